"""The parameters of an op definition: tensors (``TensorDef``), scalars
(``ScalarDef``) and attributes (``IndexAttrDef`` and the ``*FnAttrDef``s).

Each is the default value of one parameter of the decorated function; the
decorator attaches it to the op being defined (its name and position come
from the parameter), so one object serves one op only.
"""

import enum

from .affine import AffineExprDef, DimDef, SymbolDef, _AffineConst
from .expressions import (BinaryFnType, FunctionKind, ReduceFnUse,
                          TensorExpression, TensorFn, TensorReduceFn,
                          TensorUse, TypeFnType, UnaryFnType, _expression,
                          _reduce_dims)
from .types import TypeVar

__all__ = ["OperandKind", "OperandDef", "TensorDef", "ScalarDef",
           "IndexAttrDef", "UnaryFnAttrDef", "BinaryFnAttrDef",
           "TypeFnAttrDef"]


class OperandKind(enum.Enum):
    INPUT_TENSOR = 0
    SCALAR = 1
    OUTPUT_TENSOR = 2
    INDEX_ATTR = 3
    UNARY_FN_ATTR = 4
    BINARY_FN_ATTR = 5
    TYPE_FN_ATTR = 6

    @property
    def is_input(self):
        return self in (OperandKind.INPUT_TENSOR, OperandKind.SCALAR)

    @property
    def is_tensor(self):
        return self in (OperandKind.INPUT_TENSOR, OperandKind.OUTPUT_TENSOR)

    @property
    def is_attribute(self):
        return self.value >= OperandKind.INDEX_ATTR.value


_FN_ATTR_FUNCTION_TYPES = {
    OperandKind.UNARY_FN_ATTR: UnaryFnType,
    OperandKind.BINARY_FN_ATTR: BinaryFnType,
    OperandKind.TYPE_FN_ATTR: TypeFnType,
}


class OperandDef:
    """What every parameter records: its kind and declared properties, and
    once attached, its op (``owner``), name and position."""

    def __init__(self, kind, *, type_var=None, shape=(), index_dims=None,
                 default_indices=None, default_fn=None):
        self.kind = kind
        self.type_var = type_var
        self.shape = tuple(shape)
        self.index_dims = None if index_dims is None else tuple(index_dims)
        self.default_indices = default_indices
        self.default_fn = default_fn
        self.owner = None
        self.name = None
        self.registered_index = -1

    @property
    def size_exprs(self):
        return self.shape

    def attach(self, owner, name, position):
        if self.owner is not None:
            raise ValueError(
                f"parameter '{name}' of '{owner.metadata.name}': this "
                f"definition object is already parameter '{self.name}' of "
                f"'{self.owner.metadata.name}'; create a new one per op")
        self.owner, self.name, self.registered_index = owner, name, position

    def detach(self):
        self.owner, self.name, self.registered_index = None, None, -1

    def check_in_definition(self, what):
        if self.owner is None or not self.owner.defining:
            where = ("" if self.owner is None
                     else f" '{self.owner.metadata.name}'")
            raise ValueError(
                f"{what} can only be used while its op{where} is being "
                f"defined (inside the function decorated with "
                f"@linalg_structured_op)")

    def __repr__(self):
        return f"{self.name}:{self.kind.name.lower()}"


def _type_var(value, what):
    if not isinstance(value, TypeVar):
        raise TypeError(f"{what} takes a TypeVar (e.g. T, TV.Acc, F32) as "
                        f"its element type, got {type(value).__name__}")
    return value


def _index_expr(value, what):
    if isinstance(value, bool) or not isinstance(value, (int, AffineExprDef)):
        raise TypeError(f"{what} must be index expressions (dimensions, "
                        f"symbols, ints), got {type(value).__name__}")
    return _AffineConst(value) if isinstance(value, int) else value


class TensorDef:
    """A tensor (or memref) operand: ``TensorDef(T, S.M, S.K)`` declares its
    element type variable and one size symbol (or expression) per
    dimension; ``output=True`` makes it an output. ``index_dims`` maps a
    tensor that is never accessed (a pooling window's shape) to domain
    dimensions."""

    def __init__(self, type_var, *shape, index_dims=None, output=False):
        _type_var(type_var, "TensorDef")
        shape = tuple(_index_expr(s, "the sizes of a TensorDef") for s in shape)
        for size in shape:
            if size.dims():
                raise ValueError(f"the sizes of a TensorDef use symbols (S.M), "
                                 f"not dimensions; got {size!r}")
        if index_dims is not None:
            index_dims = tuple(index_dims)
            if any(not isinstance(d, DimDef) for d in index_dims):
                raise TypeError(f"index_dims must be dimensions (e.g. D.kh), "
                                f"got {list(index_dims)}")
            if len(index_dims) != len(shape):
                raise ValueError(f"index_dims has {len(index_dims)} "
                                 f"dimension(s) for a TensorDef of rank "
                                 f"{len(shape)}")
        if not isinstance(output, bool):
            raise TypeError(f"output must be a bool, got "
                            f"{type(output).__name__}")
        kind = OperandKind.OUTPUT_TENSOR if output else OperandKind.INPUT_TENSOR
        self.operand_def = OperandDef(kind, type_var=type_var, shape=shape,
                                      index_dims=index_dims)

    def __getitem__(self, indices):
        operand = self.operand_def
        operand.check_in_definition("a TensorDef")
        if not isinstance(indices, tuple):
            indices = (indices,)
        if indices == (None,):
            indices = ()  # `X[None]`: a rank-0 (or rank-polymorphic) access.
        indices = tuple(_index_expr(i, f"the indices of {operand.name}")
                        for i in indices)
        if len(indices) != len(operand.shape):
            raise ValueError(
                f"{operand.name} is declared with rank {len(operand.shape)} "
                f"but accessed with {len(indices)} index(es)")
        return TensorUse(operand, indices)

    def __setitem__(self, indices, value):
        operand = self.operand_def
        operand.check_in_definition("a TensorDef")
        if operand.kind is not OperandKind.OUTPUT_TENSOR:
            raise ValueError(f"only outputs can be assigned; {operand.name} "
                             f"is an input (declare it with output=True)")
        value = _expression(value, f"the value assigned to {operand.name}")
        use = self[indices]
        if isinstance(value, TensorReduceFn):
            if value.lhs is not None:
                raise ValueError(f"this reduction is already assigned to "
                                 f"{value.lhs!r}")
            value.lhs = use
        operand.owner.add_assignment(use, value)

    def __repr__(self):
        return f"TensorDef({self.operand_def!r})"


class ScalarDef(TensorExpression):
    """A scalar input, passed to the op as a value of the type variable's
    type."""

    def __init__(self, type_var):
        _type_var(type_var, "ScalarDef")
        self.operand_def = OperandDef(OperandKind.SCALAR, type_var=type_var)

    @property
    def scalar_name(self):
        return self.operand_def.name

    def __repr__(self):
        operand = self.operand_def
        return operand.name or f"ScalarDef({operand.type_var.name})"


class IndexAttrDef:
    """An attribute of integers, one per symbol (``IndexAttrDef(S.SH, S.SW,
    default=[1, 1])``); the symbols stand for its values in index
    expressions (strides, dilations)."""

    def __init__(self, *sizes, default):
        if not sizes:
            raise ValueError("IndexAttrDef needs at least one symbol")
        if any(not isinstance(s, SymbolDef) for s in sizes):
            raise TypeError(f"IndexAttrDef takes symbols (e.g. S.SH), got "
                            f"{list(sizes)}")
        if len(set(sizes)) != len(sizes):
            raise ValueError(f"IndexAttrDef symbols repeat: {list(sizes)}")
        default = list(default)
        if any(isinstance(d, bool) or not isinstance(d, int) for d in default):
            raise TypeError(f"IndexAttrDef's default must be ints, got "
                            f"{default}")
        if len(default) != len(sizes):
            raise ValueError(f"IndexAttrDef has {len(sizes)} symbol(s) but "
                             f"{len(default)} default value(s)")
        self.operand_def = OperandDef(OperandKind.INDEX_ATTR, shape=sizes,
                                      default_indices=default)


class _FnAttrDef:
    kind = None

    def __init__(self, default):
        expected = _FN_ATTR_FUNCTION_TYPES[self.kind]
        if not isinstance(default, expected):
            raise TypeError(f"{type(self).__name__} takes a default of type "
                            f"{expected.__name__}, got {default!r}")
        self.operand_def = OperandDef(self.kind, default_fn=default)

    def _apply(self, fn_kind, type_var, args):
        self.operand_def.check_in_definition(type(self).__name__)
        return TensorFn(fn_kind, None, self.operand_def, type_var, args)


class UnaryFnAttrDef(_FnAttrDef):
    """A unary function chosen when the op is emitted (``fun=UnaryFn.log``),
    ``default`` otherwise."""
    kind = OperandKind.UNARY_FN_ATTR

    def __call__(self, *args):
        return self._apply(FunctionKind.UNARY, None, args)


class BinaryFnAttrDef(_FnAttrDef):
    """A binary function chosen when the op is emitted; index it with
    dimensions to reduce with it (``reduce[D.kh, D.kw](...)``)."""
    kind = OperandKind.BINARY_FN_ATTR

    def __call__(self, *args):
        return self._apply(FunctionKind.BINARY, None, args)

    def __getitem__(self, dims):
        self.operand_def.check_in_definition("BinaryFnAttrDef")
        return ReduceFnUse(None, self, _reduce_dims(dims))


class TypeFnAttrDef(_FnAttrDef):
    """A conversion chosen when the op is emitted (``cast=TypeFn.cast_unsigned``)."""
    kind = OperandKind.TYPE_FN_ATTR

    def __call__(self, type_var, *args):
        return self._apply(FunctionKind.TYPE, type_var, args)
