"""The right-hand sides of an op definition: tensor accesses, constants,
iteration indices and applications of the scalar functions (``UnaryFn``,
``BinaryFn``, ``TernaryFn``, ``TypeFn``, ``ReduceFn``).

An expression is a tree recorded while the definition runs; the emitter
evaluates it once per op, on the body's block arguments, choosing the
arith/math/complex ops from the element types it meets.
"""

import enum

from .affine import DimDef
from .types import TypeVar

__all__ = [
    "TensorExpression", "TensorUse", "TensorFn", "TensorReduceFn", "const",
    "index", "FunctionKind", "UnaryFnType", "BinaryFnType", "TernaryFnType",
    "TypeFnType", "UnaryFn", "BinaryFn", "TernaryFn", "TypeFn",
    "ReduceFnType", "ReduceFnUse", "ReduceFn",
]


def _expression(value, what):
    if not isinstance(value, TensorExpression):
        hint = (" (wrap Python numbers in const(...))"
                if isinstance(value, (int, float)) else "")
        raise TypeError(f"{what} must be a tensor expression, got "
                        f"{type(value).__name__}{hint}")
    return value


class TensorExpression:
    """A scalar computation per point of the iteration domain."""

    def children(self):
        return ()

    def walk(self):
        """This expression and its subexpressions, depth first, left to
        right."""
        yield self
        for child in self.children():
            yield from child.walk()

    def __add__(self, rhs):
        return BinaryFn.add(self, rhs)

    def __sub__(self, rhs):
        return BinaryFn.sub(self, rhs)

    def __mul__(self, rhs):
        return BinaryFn.mul(self, rhs)

    def __truediv__(self, rhs):
        return BinaryFn.div(self, rhs)

    def __bool__(self):
        raise TypeError("a tensor expression has no truth value (use "
                        "TernaryFn.select for a choice)")

    # Expressions are nodes, compared by identity (`==` is not overloaded).
    __hash__ = object.__hash__


class TensorUse(TensorExpression):
    """``A[D.m, D.k]``: the element of a tensor operand at the given index
    expressions."""

    def __init__(self, operand, indices):
        self.operand = operand
        self.indices = tuple(indices)

    @property
    def operand_def(self):
        return self.operand

    def dims(self):
        return [d for e in self.indices for d in e.dims()]

    def access_key(self):
        """What identifies the access, for comparing two uses."""
        return tuple(repr(e) for e in self.indices)

    def __iadd__(self, rhs):
        # `O[...] += rhs`: reduce with add over the dimensions of rhs that
        # the output does not use, in the order they appear.
        rhs = _expression(rhs, "the right-hand side of +=")
        own = set(self.dims())
        reduced = []
        for node in rhs.walk():
            if isinstance(node, TensorUse):
                for dim in node.dims():
                    if dim not in own and dim not in reduced:
                        reduced.append(dim)
        return ReduceFnUse(BinaryFn.add, None, reduced)(rhs)

    def __repr__(self):
        indices = ", ".join(map(repr, self.indices)) or "None"
        return f"{self.operand.name}[{indices}]"


class FunctionKind(enum.Enum):
    UNARY = 1
    BINARY = 2
    TERNARY = 3
    TYPE = 4

    @property
    def arity(self):
        return {FunctionKind.UNARY: 1, FunctionKind.BINARY: 2,
                FunctionKind.TERNARY: 3, FunctionKind.TYPE: 1}[self]


class TensorFn(TensorExpression):
    """A scalar function applied to expressions: a fixed one (``fn``, e.g.
    ``BinaryFn.add``) or the one an attribute selects (``attr``, the
    OperandDef of a ``*FnAttrDef``). Type functions also carry the target
    type variable."""

    def __init__(self, kind, fn, attr, type_var, args):
        if (fn is None) == (attr is None):
            raise ValueError("TensorFn needs exactly one of a function and a "
                             "function attribute")
        name = repr(fn) if fn is not None else attr.name
        if len(args) != kind.arity:
            raise TypeError(f"{name} takes {kind.arity} argument(s), got "
                            f"{len(args)}")
        if kind is FunctionKind.TYPE and not isinstance(type_var, TypeVar):
            raise TypeError(f"{name} takes a TypeVar (e.g. U) as its first "
                            f"argument, got {type(type_var).__name__}")
        self.kind = kind
        self.fn = fn
        self.attr = attr
        self.type_var = type_var
        self.args = tuple(_expression(a, f"an argument of {name}")
                          for a in args)

    def children(self):
        return self.args

    def __repr__(self):
        name = self.fn.fn_name if self.fn is not None else self.attr.name
        args = ", ".join(map(repr, self.args))
        if self.type_var is not None:
            return f"{name}({self.type_var.name}, {args})"
        return f"{name}({args})"


class TensorReduceFn(TensorExpression):
    """A reduction of its argument into the output it is assigned to
    (``lhs``), over the reduction dimensions of ``reducer``."""

    def __init__(self, reducer, args):
        if len(args) != 1:
            raise TypeError(f"a reduction takes 1 argument, got {len(args)}")
        self.reducer = reducer
        self.args = (_expression(args[0], "the argument of a reduction"),)
        self.lhs = None

    @property
    def reduce_use(self):
        return self.reducer

    def children(self):
        return self.args

    def __repr__(self):
        return f"{self.reducer!r}({self.args[0]!r})"


class const(TensorExpression):
    """A constant: an int becomes an i64 and a float an f64 (cast them with
    ``TypeFn`` to the type they combine with)."""

    def __init__(self, value):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"const takes an int or a float, got "
                            f"{type(value).__name__}")
        if isinstance(value, int) and not -2**63 <= value < 2**64:
            raise ValueError(f"const({value}) does not fit in 64 bits")
        self.value = value

    def __repr__(self):
        return f"const({self.value!r})"


class index(TensorExpression):
    """The current position along a dimension of the iteration domain
    (``linalg.index``, of type index)."""

    def __init__(self, dim):
        if not isinstance(dim, DimDef):
            raise TypeError(f"index takes a dimension (e.g. D.m), got "
                            f"{type(dim).__name__}")
        self.dim = dim

    @property
    def dim_def(self):
        return self.dim

    def __repr__(self):
        return f"index({self.dim!r})"


class _FunctionType:
    kind = None

    def __init__(self, fn_name):
        self.fn_name = fn_name

    def __call__(self, *args):
        return TensorFn(self.kind, self, None, None, args)

    def __repr__(self):
        return f"{type(self).__name__[:-4]}.{self.fn_name}"


class UnaryFnType(_FunctionType):
    """A one-argument scalar function (``UnaryFn.exp``)."""
    kind = FunctionKind.UNARY


class BinaryFnType(_FunctionType):
    """A two-argument scalar function (``BinaryFn.add``)."""
    kind = FunctionKind.BINARY


class TernaryFnType(_FunctionType):
    """A three-argument scalar function (``TernaryFn.select``)."""
    kind = FunctionKind.TERNARY


class TypeFnType(_FunctionType):
    """A conversion to the type a type variable stands for
    (``TypeFn.cast_signed(U, x)``)."""
    kind = FunctionKind.TYPE

    def __call__(self, type_var, *args):
        return TensorFn(self.kind, self, None, type_var, args)


def _namespace(cls, doc, names):
    members = {name: cls(name) for name in names}
    members["__doc__"] = doc
    members["__slots__"] = ()
    return type(cls.__name__[:-4], (), members)


UnaryFn = _namespace(
    UnaryFnType,
    "Unary functions; all take a floating-point operand, `negf` also a "
    "complex one.",
    ["exp", "log", "abs", "ceil", "floor", "negf", "reciprocal", "round",
     "sqrt", "rsqrt", "square", "tanh", "erf"])

BinaryFn = _namespace(
    BinaryFnType,
    "Binary functions on operands of one type. Integers are signless: the "
    "`_signed`/`_unsigned` variants say how to compare or divide them (on "
    "floats both are `maximumf`/`minimumf`).",
    ["add", "sub", "mul", "div", "div_unsigned", "max_signed", "min_signed",
     "max_unsigned", "min_unsigned", "powf"])

TernaryFn = _namespace(
    TernaryFnType,
    "Ternary functions: `select(cond, a, b)` with an i1 condition.",
    ["select"])

TypeFn = _namespace(
    TypeFnType,
    "Conversions: `cast_signed` treats integers as signed (extsi, sitofp, "
    "fptosi), `cast_unsigned` as unsigned (extui, uitofp, fptoui).",
    ["cast_signed", "cast_unsigned"])


def _reduce_dims(dims):
    if not isinstance(dims, tuple):
        dims = (dims,)
    for dim in dims:
        if not isinstance(dim, DimDef):
            raise TypeError(f"reduction dimensions must be dimensions (e.g. "
                            f"D.k), got {type(dim).__name__}")
    if len(set(dims)) != len(dims):
        raise ValueError(f"reduction dimensions repeat: {list(dims)}")
    return dims


class ReduceFnUse:
    """A reduction function with its reduction dimensions, to apply to the
    expression being reduced (``ReduceFn.add[D.k](...)``)."""

    def __init__(self, binary_fn, binary_attr, reduce_dims):
        if (binary_fn is None) == (binary_attr is None):
            raise ValueError("a reduction needs exactly one of a binary "
                             "function and a binary function attribute")
        self.binary_fn = binary_fn
        self.binary_attr = binary_attr
        self.reduce_dims = tuple(reduce_dims)

    def __call__(self, *args):
        return TensorReduceFn(self, args)

    def __repr__(self):
        fn = (self.binary_fn.fn_name if self.binary_fn is not None
              else self.binary_attr.operand_def.name)
        return f"reduce_{fn}[{', '.join(map(repr, self.reduce_dims))}]"


class ReduceFnType:
    """A binary function used to reduce (``ReduceFn.add``); index it with
    the reduction dimensions."""

    def __init__(self, binary_fn):
        if not isinstance(binary_fn, BinaryFnType):
            raise TypeError(f"ReduceFnType takes a BinaryFnType, got "
                            f"{type(binary_fn).__name__}")
        self.binary_fn = binary_fn

    def __getitem__(self, dims):
        return ReduceFnUse(self.binary_fn, None, _reduce_dims(dims))

    def __repr__(self):
        return f"reduce_{self.binary_fn.fn_name}"


class ReduceFn:
    """Reductions: ``ReduceFn.add[D.k](expr)``."""
    __slots__ = ()
    add = ReduceFnType(BinaryFn.add)
    mul = ReduceFnType(BinaryFn.mul)
    max_signed = ReduceFnType(BinaryFn.max_signed)
    min_signed = ReduceFnType(BinaryFn.min_signed)
    max_unsigned = ReduceFnType(BinaryFn.max_unsigned)
    min_unsigned = ReduceFnType(BinaryFn.min_unsigned)
