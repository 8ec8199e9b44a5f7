"""Short type constructors (upstream ``mlir.extras.types`` names).

Every function builds its type in the current ``ir.Context`` (or the one
given with ``context=``)::

    from mlir_tracking.extras import types as T

    with ir.Context():
        T.i32()                       # IntegerType i32
        T.tensor(4, T.dynamic(), T.f32())  # tensor<4x?xf32>
        T.memref(8, element_type=T.index())
        T.function(inputs=[T.i32()], results=[T.i64()])
"""

import functools

from ..ir import (
    Attribute,
    BF16Type,
    ComplexType,
    F16Type,
    F32Type,
    F64Type,
    Float8E4M3FNType,
    Float8E5M2Type,
    FunctionType,
    IndexType,
    IntegerType,
    MemRefType,
    NoneType,
    OpaqueType,
    RankedTensorType,
    ShapedType,
    StringAttr,
    TupleType,
    Type,
    UnrankedMemRefType,
    UnrankedTensorType,
    VectorType,
)

__all__ = [
    "bf16", "bool", "complex", "dynamic", "f16", "f32", "f64", "f8E4M3FN",
    "f8E5M2", "function", "i", "i1", "i16", "i32", "i64", "i8", "index",
    "memref", "none", "opaque", "si", "si16", "si32", "si64", "si8", "tensor",
    "tuple", "ui", "ui16", "ui32", "ui64", "ui8", "vector",
]


def i(width, *, context=None):
    """The signless integer type of `width` bits."""
    return IntegerType.get_signless(width, context=context)


def si(width, *, context=None):
    """The signed integer type of `width` bits."""
    return IntegerType.get_signed(width, context=context)


def ui(width, *, context=None):
    """The unsigned integer type of `width` bits."""
    return IntegerType.get_unsigned(width, context=context)


def _fixed(make, width):
    fn = functools.partial(make, width)
    fn.__doc__ = f"{make.__doc__} ({width})"
    return fn


bool = _fixed(i, 1)  # noqa: A001 (upstream's name)
i1 = _fixed(i, 1)
i8, i16, i32, i64 = (_fixed(i, w) for w in (8, 16, 32, 64))
si8, si16, si32, si64 = (_fixed(si, w) for w in (8, 16, 32, 64))
ui8, ui16, ui32, ui64 = (_fixed(ui, w) for w in (8, 16, 32, 64))


def index(*, context=None):
    return IndexType.get(context=context)


def f16(*, context=None):
    return F16Type.get(context=context)


def bf16(*, context=None):
    return BF16Type.get(context=context)


def f32(*, context=None):
    return F32Type.get(context=context)


def f64(*, context=None):
    return F64Type.get(context=context)


def f8E5M2(*, context=None):
    return Float8E5M2Type.get(context=context)


def f8E4M3FN(*, context=None):
    return Float8E4M3FNType.get(context=context)


def none(*, context=None):
    return NoneType.get(context=context)


def complex(element_type):  # noqa: A001 (upstream's name)
    return ComplexType.get(element_type)


def opaque(dialect_namespace, type_data, *, context=None):
    return OpaqueType.get(dialect_namespace, type_data, context=context)


def dynamic():
    """The size of a dynamic dimension (`?`)."""
    return ShapedType.get_dynamic_size()


def _split_shape(args, element_type):
    """`(4, 8, T.f32())` -> ([4, 8], f32): the element type may come last."""
    shape = list(args)
    if shape and isinstance(shape[-1], Type):
        if element_type is not None:
            raise ValueError("element type given twice")
        element_type = shape.pop()
    if element_type is None:
        raise ValueError("an element type is required")
    for size in shape:
        if not isinstance(size, int):
            raise TypeError(f"a dimension size must be an int, got {size!r}")
    return shape, element_type


def vector(*shape, element_type=None, scalable=None, scalable_dims=None, loc=None):
    """`vector<...>`; `scalable` flags per dimension, or `scalable_dims`."""
    shape, element_type = _split_shape(shape, element_type)
    if scalable is not None or scalable_dims is not None:
        return VectorType.get(shape, element_type, scalable=scalable,
                              scalable_dims=scalable_dims, loc=loc)
    return VectorType.get(shape, element_type, loc=loc)


def tensor(*shape, element_type=None, encoding=None, loc=None):
    """`tensor<...>`; with no dimensions, `tensor<*x...>`. `encoding` is an
    Attribute or a str (a StringAttr), as upstream."""
    shape, element_type = _split_shape(shape, element_type)
    if isinstance(encoding, str):
        encoding = StringAttr.get(encoding)
    if not shape:
        return UnrankedTensorType.get(element_type, loc=loc)
    return RankedTensorType.get(shape, element_type, encoding, loc=loc)


def memref(*shape, element_type=None, memory_space=None, layout=None, loc=None):
    """`memref<...>`; with no dimensions, `memref<*x...>`. `memory_space` is
    an Attribute or an int (an integer attribute), as upstream."""
    shape, element_type = _split_shape(shape, element_type)
    if isinstance(memory_space, int):
        memory_space = Attribute.parse(str(memory_space))
    if not shape:
        return UnrankedMemRefType.get(element_type, memory_space, loc=loc)
    return MemRefType.get(shape, element_type, layout, memory_space, loc=loc)


def tuple(*elements, context=None):  # noqa: A001 (upstream's name)
    return TupleType.get_tuple(list(elements), context=context)


def function(*, inputs, results, context=None):
    return FunctionType.get(list(inputs), list(results), context=context)
