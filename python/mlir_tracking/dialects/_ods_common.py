"""Runtime helpers of the generated dialect modules (upstream
``mlir.dialects._ods_common``): accessors for variadic operand and result
groups, argument normalization, and the ``_cext`` hooks.
"""

from typing import (
    List as _List,
    Optional as _Optional,
    Sequence as _Sequence,
    Tuple as _Tuple,
    TypeVar as _TypeVar,
    Union as _Union,
)

import functools as _functools
from types import FunctionType as _FunctionType

from .. import _cext
from ..ir import (
    ArrayAttr,
    Attribute,
    BoolAttr,
    DenseI64ArrayAttr,
    IntegerAttr,
    IntegerType,
    OpView,
    Operation,
    OpResultList,
    ShapedType,
    Type,
    Value,
)

__all__ = [
    "equally_sized_accessor",
    "get_default_loc_context",
    "get_op_result_or_value",
    "get_op_results_or_values",
    "get_op_result_or_op_results",
    "segmented_accessor",
]


def _guard_self(cls, name, function):
    """`function` (a method of `cls`, or a property's getter) refusing a
    `self` that is not a type of `cls` with TypeError."""

    @_functools.wraps(function)
    def guarded(self, *args, **kwargs):
        if not (isinstance(self, Type) and cls.isinstance(self)):
            raise TypeError(
                f"{cls.__name__}.{name}: self must be of class "
                f"{cls.__name__}, got {self!r}"
            )
        return function(self, *args, **kwargs)

    return guarded


class TypeFromAssembly(Type):
    """A type of a dialect whose C++ type classes have no binding, over its
    assembly: ``X(type)`` casts (``ValueError`` if `type` is not one),
    ``X.isinstance(type)`` checks. A subclass sets ``_SAMPLE``, the assembly
    of one of its types, and its module sets ``_TYPEID`` (the TypeID its
    types share) at import."""

    _SAMPLE = None
    _TYPEID = None

    def __init_subclass__(cls, **kwargs):
        # As the C++ classes' methods (guardConcreteClassMethods): the
        # methods and property getters a subclass defines refuse a `self`
        # that is not one of its types (they read its assembly, and gave
        # another type's text or an unrelated error).
        super().__init_subclass__(**kwargs)
        for name, member in list(vars(cls).items()):
            if name.startswith("__"):
                continue
            if isinstance(member, property) and member.fget is not None:
                setattr(
                    cls,
                    name,
                    property(
                        _guard_self(cls, name, member.fget),
                        member.fset and _guard_self(cls, name, member.fset),
                        member.fdel and _guard_self(cls, name, member.fdel),
                        member.__doc__,
                    ),
                )
            elif isinstance(member, _FunctionType):
                setattr(cls, name, _guard_self(cls, name, member))

    def __init__(self, cast_from_type):
        super().__init__(cast_from_type)
        if not type(self).isinstance(cast_from_type):
            raise ValueError(
                f"Cannot cast type to {type(self).__name__} (from {cast_from_type})"
            )

    @classmethod
    def isinstance(cls, other):
        """Whether `other` is a type of this class."""
        return isinstance(other, Type) and other.typeid == cls._TYPEID

    def __repr__(self):
        return f"{type(self).__name__}({self})"

    @classmethod
    def get_static_typeid(cls):
        """The TypeID of this class's types (upstream's name)."""
        return cls._TYPEID


def segmented_accessor(elements, raw_segments, idx):
    """The slice of `elements` (operands or results) that forms group `idx`,
    where `raw_segments` is the op's `operandSegmentSizes` or
    `resultSegmentSizes` (a DenseI32ArrayAttr)."""
    sizes = list(_cext.ir.DenseI32ArrayAttr(raw_segments))
    if not 0 <= idx < len(sizes):
        raise IndexError(f"segment {idx} out of range ({len(sizes)} segments)")
    start = sum(sizes[:idx])
    try:
        return elements[start : start + sizes[idx]]
    except TypeError:
        # A list class without slicing: the same elements as a list.
        return [elements[i] for i in range(start, start + sizes[idx])]


def equally_sized_accessor(
    elements, n_simple, n_variadic, n_preceding_simple, n_preceding_variadic
):
    """(start, size) of a variadic group of an op whose variadic groups all
    have the same length (SameVariadicOperandSize / ...ResultSize).

    `n_simple` and `n_variadic` count the single and the variadic groups;
    the `n_preceding_*` count those before the group asked for.
    """
    total_variadic = len(elements) - n_simple
    if n_variadic <= 0 or total_variadic % n_variadic:
        raise ValueError(
            f"{len(elements)} elements cannot form {n_variadic} equally sized "
            f"variadic groups next to {n_simple} single ones"
        )
    size = total_variadic // n_variadic
    return n_preceding_simple + n_preceding_variadic * size, size


def append_body_block(op, *types):
    """Appends the block of `op`'s first region, with arguments of `types`
    (located at the current Location, as upstream's builders do), to an op
    a builder has just made. When that fails (no Location is current), the
    op is erased before the error propagates: nothing half-built stays in
    the IR (upstream leaves the op without its block)."""
    try:
        return op.regions[0].blocks.append(*types)
    except BaseException as error:
        from ..extras.meta import _discard

        _discard(op, f"'{op.operation.name}'", error)
        raise


def get_default_loc_context(location=None):
    """The context in which a defaulted attribute is built: the one of
    `location`, else of the current Location, else None (the current
    Context is then used by the callee)."""
    if location is None:
        current = _cext.ir.Location.current
        return current.context if current is not None else None
    return location.context


def get_op_result_or_value(
    arg: _Union[OpView, Operation, Value, OpResultList]
) -> Value:
    """`arg` if it is a Value, else the single result of the op (or result
    list) `arg`; ValueError if that op does not have exactly one result."""
    if isinstance(arg, (OpView, Operation)):
        return arg.result
    if isinstance(arg, OpResultList):
        if len(arg) != 1:
            raise ValueError(f"expected a single result, got {len(arg)}")
        return arg[0]
    if not isinstance(arg, Value):
        raise TypeError(f"expected a Value, Operation or OpView, got {type(arg).__name__}")
    return arg


def get_op_results_or_values(
    arg: _Union[OpView, Operation, _Sequence[_Union[OpView, Operation, Value]]]
) -> _Union[_Sequence[_Union[OpView, Operation, Value]], OpResultList]:
    """The results of the op `arg`, or `arg` itself (a sequence of values)."""
    if isinstance(arg, (OpView, Operation)):
        return arg.results
    return arg


def get_op_result_or_op_results(
    op: _Union[OpView, Operation],
) -> _Union[Operation, Value, _Sequence[Value]]:
    """What value builders return: the only result, the result list, or the
    op itself when it has no results."""
    results = op.results
    if len(results) == 1:
        return results[0]
    if len(results) > 1:
        return results
    return op.operation if isinstance(op, OpView) else op


# What a value caster (ir.register_value_caster) returns.
SubClassValueT = _TypeVar("SubClassValueT", bound=Value)

ResultValueTypeTuple = Operation, OpView, Value
ResultValueT = _Union[ResultValueTypeTuple]
VariadicResultValueT = _Union[ResultValueT, _Sequence[ResultValueT]]

StaticIntLike = _Union[int, IntegerAttr]
ValueLike = _Union[Operation, OpView, Value]
MixedInt = _Union[StaticIntLike, ValueLike]

IntOrAttrList = _Sequence[_Union[IntegerAttr, int]]
OptionalIntList = _Optional[_Union[ArrayAttr, IntOrAttrList]]

BoolOrAttrList = _Sequence[_Union[BoolAttr, bool]]
OptionalBoolList = _Optional[_Union[ArrayAttr, BoolOrAttrList]]

MixedValues = _Union[_Sequence[_Union[StaticIntLike, ValueLike]], ArrayAttr, ValueLike]

DynamicIndexList = _Sequence[_Union[MixedInt, _Sequence[MixedInt]]]


def _dispatch_dynamic_index_list(
    indices: _Union[DynamicIndexList, ArrayAttr],
) -> _Tuple[_List[ValueLike], _Union[_List[int], ArrayAttr], _List[bool]]:
    """Splits a mixed index list (ints, IntegerAttrs, values, and one-element
    lists for scalable entries) into dynamic values, static sizes (dynamic
    ones marked ShapedType.get_dynamic_size()) and scalable flags, as the
    DynamicIndexList assembly directive does."""
    if isinstance(indices, ArrayAttr):
        indices = list(indices)
    dynamic, static, scalable = [], [], []

    def split(index):
        if isinstance(index, int):
            static.append(index)
        elif isinstance(index, IntegerAttr):
            static.append(index.value)
        elif isinstance(index, (Operation, Value, OpView)):
            static.append(ShapedType.get_dynamic_size())
            dynamic.append(index)
        else:
            return False
        return True

    for index in indices:
        if split(index):
            scalable.append(False)
            continue
        if not isinstance(index, (list, tuple)) or len(index) != 1 or not split(index[0]):
            raise TypeError(
                f"index must be an int, IntegerAttr, value or a one-element "
                f"list of those (scalable), got {index!r}"
            )
        scalable.append(True)
    return dynamic, static, scalable


def _dispatch_mixed_values(
    values: MixedValues,
) -> _Tuple[_List[Value], _Union[Operation, Value, OpView], DenseI64ArrayAttr]:
    """Splits `values` into (dynamic values, packed handle, static sizes):
    a single value or op is a packed handle; an ArrayAttr is static; a list
    mixes static ints and dynamic values (marked dynamic in the static
    list)."""
    if isinstance(values, ArrayAttr):
        return [], None, values
    if isinstance(values, (Operation, Value, OpView)):
        return [], values, None
    dynamic, static = [], []
    for size in values or []:
        if isinstance(size, int):
            static.append(size)
        elif isinstance(size, IntegerAttr):
            static.append(size.value)
        else:
            static.append(ShapedType.get_dynamic_size())
            dynamic.append(size)
    return dynamic, None, DenseI64ArrayAttr.get(static)


def _get_value_or_attribute_value(value_or_attr):
    if isinstance(value_or_attr, ArrayAttr):
        return _get_value_list(value_or_attr)
    if isinstance(value_or_attr, Attribute) and hasattr(value_or_attr, "value"):
        return value_or_attr.value
    return value_or_attr


def _get_value_list(sequence_or_array_attr):
    return [_get_value_or_attribute_value(v) for v in sequence_or_array_attr]


def _get_int_array_attr(values) -> ArrayAttr:
    """An ArrayAttr of i64 IntegerAttrs from ints, IntegerAttrs or an
    ArrayAttr; None stays None."""
    if values is None:
        return None
    i64 = IntegerType.get_signless(64)
    return ArrayAttr.get([IntegerAttr.get(i64, v) for v in _get_value_list(values)])


def _get_int_array_array_attr(values) -> ArrayAttr:
    """An ArrayAttr of ArrayAttrs of i64 IntegerAttrs from nested sequences
    (or ArrayAttrs); None stays None."""
    if values is None:
        return None
    return ArrayAttr.get(
        [_get_int_array_attr(_get_value_list(nested)) for nested in _get_value_list(values)]
    )
