"""Dimensions (``D.m``), symbols (``S.M``) and the affine expressions built
from them.

They are plain Python objects, not IR: an op definition outlives any one
Context, so its index expressions are only turned into ``ir.AffineExpr``
when the op is emitted (``to_ir``), with the positions and values of that
emission.
"""

from .....ir import (AffineAddExpr, AffineCeilDivExpr, AffineConstantExpr,
                    AffineDimExpr, AffineFloorDivExpr, AffineModExpr,
                    AffineMulExpr)
from .interned import InternedByName

__all__ = ["AffineExprDef", "DimDef", "SymbolDef", "D", "S"]


class AffineExprDef:
    """An index expression over dimensions, symbols and integer constants."""

    def _wrap(self, other, operator):
        if isinstance(other, bool) or not isinstance(other, (int, AffineExprDef)):
            raise TypeError(
                f"an index expression can only be combined with another index "
                f"expression or an int with '{operator}', got "
                f"{type(other).__name__}")
        return other if isinstance(other, AffineExprDef) else _AffineConst(other)

    def __add__(self, other):
        return _AffineBinary("+", self, self._wrap(other, "+"))

    def __radd__(self, other):
        return _AffineBinary("+", self._wrap(other, "+"), self)

    def __mul__(self, other):
        return _AffineBinary("*", self, self._wrap(other, "*"))

    def __rmul__(self, other):
        return _AffineBinary("*", self._wrap(other, "*"), self)

    def __floordiv__(self, other):
        return _AffineBinary("floordiv", self, self._wrap(other, "//"))

    def __truediv__(self, other):
        # As upstream: `/` in an index expression is a ceiling division.
        return _AffineBinary("ceildiv", self, self._wrap(other, "/"))

    def __mod__(self, other):
        return _AffineBinary("mod", self, self._wrap(other, "%"))

    def leaves(self):
        """The dimensions, symbols and constants of the expression, left to
        right."""
        yield self

    def dims(self):
        return [e for e in self.leaves() if isinstance(e, DimDef)]

    def symbols(self):
        return [e for e in self.leaves() if isinstance(e, SymbolDef)]

    def to_ir(self, dim_position, symbol_value):
        """The ``ir.AffineExpr`` of this expression in the current Context:
        ``dim_position(dim)`` gives a dimension's position, and
        ``symbol_value(symbol)`` a symbol's integer value."""
        raise NotImplementedError(type(self).__name__)

    def evaluate(self, symbol_value):
        """The integer value of a dimension-free expression, or None when a
        symbol has no value (``symbol_value`` returns None)."""
        raise NotImplementedError(type(self).__name__)


class _AffineConst(AffineExprDef):
    def __init__(self, value):
        self.value = value

    def to_ir(self, dim_position, symbol_value):
        return AffineConstantExpr.get(self.value)

    def evaluate(self, symbol_value):
        return self.value

    def __repr__(self):
        return str(self.value)


def _ceildiv(a, b):
    return -((-a) // b)


_IR_BUILDERS = {
    "+": AffineAddExpr.get,
    "*": AffineMulExpr.get,
    "floordiv": AffineFloorDivExpr.get,
    "ceildiv": AffineCeilDivExpr.get,
    "mod": AffineModExpr.get,
}

_EVALUATORS = {
    "+": lambda a, b: a + b,
    "*": lambda a, b: a * b,
    "floordiv": lambda a, b: a // b,
    "ceildiv": _ceildiv,
    "mod": lambda a, b: a % b,
}


class _AffineBinary(AffineExprDef):
    def __init__(self, operator, lhs, rhs):
        self.operator = operator
        self.lhs = lhs
        self.rhs = rhs

    def leaves(self):
        yield from self.lhs.leaves()
        yield from self.rhs.leaves()

    def to_ir(self, dim_position, symbol_value):
        return _IR_BUILDERS[self.operator](
            self.lhs.to_ir(dim_position, symbol_value),
            self.rhs.to_ir(dim_position, symbol_value))

    def evaluate(self, symbol_value):
        lhs = self.lhs.evaluate(symbol_value)
        rhs = self.rhs.evaluate(symbol_value)
        if lhs is None or rhs is None:
            return None
        if self.operator in ("floordiv", "ceildiv", "mod") and rhs == 0:
            return None
        return _EVALUATORS[self.operator](lhs, rhs)

    def __repr__(self):
        return f"({self.lhs!r} {self.operator} {self.rhs!r})"


class _Named(InternedByName, AffineExprDef):
    """Dimensions and symbols are unique per name (``D.m is D.m``); each
    subclass has its own names."""


class DimDef(_Named):
    """A named dimension of the iteration domain (``D.m``)."""

    _instances = {}

    @property
    def dimname(self):
        return self.name

    def to_ir(self, dim_position, symbol_value):
        return AffineDimExpr.get(dim_position(self))

    def evaluate(self, symbol_value):
        raise ValueError(f"D.{self.name} has no value outside the iteration")

    def __repr__(self):
        return f"D.{self.name}"


class SymbolDef(_Named):
    """A named size (``S.M``): a tensor dimension's size, or an index
    attribute's value (strides, dilations)."""

    _instances = {}

    @property
    def symname(self):
        return self.name

    def to_ir(self, dim_position, symbol_value):
        return AffineConstantExpr.get(symbol_value(self))

    def evaluate(self, symbol_value):
        return symbol_value(self)

    def __repr__(self):
        return f"S.{self.name}"


class _Namespace:
    """``D.x``/``S.x``: the dimension or symbol named x."""

    def __init__(self, cls):
        object.__setattr__(self, "_cls", cls)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return self._cls(name)

    def __setattr__(self, name, value):
        raise AttributeError(f"{self._cls.__name__}s are named by attribute "
                             f"access and cannot be assigned")

    def __repr__(self):
        return "D" if self._cls is DimDef else "S"


D = _Namespace(DimDef)
S = _Namespace(SymbolDef)
