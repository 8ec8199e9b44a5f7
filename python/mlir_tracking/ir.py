"""IR objects with upstream ``mlir.ir`` names, where operations are tracked.

See docs/python.md for the handle semantics.
"""

from contextlib import contextmanager as _contextmanager

from ._errors import (
    Diagnostic,
    DiagnosticInfo,
    DiagnosticSeverity,
    InvalidatedHandleError,
    MLIRError,
)
from ._mlirTracking.ir import (
    AttrBuilder,
    Attribute,
    Block,
    BlockArgument,
    BlockArgumentList,
    BlockIterator,
    BlockList,
    BlockPredecessors,
    BlockSuccessors,
    Context,
    Dialect,
    InsertionPoint,
    Location,
    Module,
    NamedAttribute,
    OpAttributeMap,
    OpOperand,
    OpOperandIterator,
    OpOperandList,
    OpResult,
    OpResultList,
    OpSuccessors,
    OpView,
    Operation,
    OperationIterator,
    OperationList,
    Region,
    RegionIterator,
    RegionSequence,
    Type,
    Value,
    WalkOrder,
    WalkResult,
)

__all__ = [
    "AttrBuilder",
    "Attribute",
    "Block",
    "BlockArgument",
    "BlockArgumentList",
    "BlockIterator",
    "BlockList",
    "BlockPredecessors",
    "BlockSuccessors",
    "Context",
    "DiagnosticInfo",
    "Dialect",
    "DiagnosticSeverity",
    "InsertionPoint",
    "InvalidatedHandleError",
    "Location",
    "MLIRError",
    "Module",
    "NamedAttribute",
    "OpAttributeMap",
    "OpOperand",
    "OpOperandIterator",
    "OpOperandList",
    "OpResult",
    "OpResultList",
    "OpSuccessors",
    "OpView",
    "Operation",
    "OperationIterator",
    "OperationList",
    "Region",
    "RegionIterator",
    "RegionSequence",
    "Type",
    "Value",
    "WalkOrder",
    "WalkResult",
    "loc_tracebacks",
    "register_attribute_builder",
]

# Typed types and attributes, TypeID, affine maps and expressions
# (python/src/IRTypes.cpp, IRAttributes.cpp, IRAffine.cpp).
from ._mlirTracking.ir import (  # noqa: E402
    AffineAddExpr,
    AffineBinaryExpr,
    AffineCeilDivExpr,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineFloorDivExpr,
    AffineMap,
    AffineMapAttr,
    AffineModExpr,
    AffineMulExpr,
    AffineSymbolExpr,
    ArrayAttr,
    BF16Type,
    BoolAttr,
    ComplexType,
    DenseBoolArrayAttr,
    DenseElementsAttr,
    DenseF32ArrayAttr,
    DenseF64ArrayAttr,
    DenseFPElementsAttr,
    DenseI16ArrayAttr,
    DenseI32ArrayAttr,
    DenseI64ArrayAttr,
    DenseI8ArrayAttr,
    DenseIntElementsAttr,
    DenseResourceElementsAttr,
    DictAttr,
    F16Type,
    F32Type,
    F64Type,
    FlatSymbolRefAttr,
    Float4E2M1FNType,
    Float6E2M3FNType,
    Float6E3M2FNType,
    Float8E3M4Type,
    Float8E4M3B11FNUZType,
    Float8E4M3FNType,
    Float8E4M3FNUZType,
    Float8E4M3Type,
    Float8E5M2FNUZType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    FloatAttr,
    FloatTF32Type,
    FloatType,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerSet,
    IntegerSetAttr,
    IntegerSetConstraint,
    IntegerType,
    MemRefType,
    NoneType,
    OpaqueAttr,
    OpaqueType,
    RankedTensorType,
    ShapedType,
    StridedLayoutAttr,
    StringAttr,
    SymbolRefAttr,
    TupleType,
    TypeAttr,
    TypeID,
    UnitAttr,
    UnrankedMemRefType,
    UnrankedTensorType,
    VectorType,
    register_attribute_caster,
    register_type_caster,
    register_value_caster,
)

__all__ += [
    "AffineAddExpr",
    "AffineBinaryExpr",
    "AffineCeilDivExpr",
    "AffineConstantExpr",
    "AffineDimExpr",
    "AffineExpr",
    "AffineFloorDivExpr",
    "AffineMap",
    "AffineMapAttr",
    "AffineModExpr",
    "AffineMulExpr",
    "AffineSymbolExpr",
    "ArrayAttr",
    "BF16Type",
    "BoolAttr",
    "ComplexType",
    "DenseBoolArrayAttr",
    "DenseElementsAttr",
    "DenseF32ArrayAttr",
    "DenseF64ArrayAttr",
    "DenseFPElementsAttr",
    "DenseI16ArrayAttr",
    "DenseI32ArrayAttr",
    "DenseI64ArrayAttr",
    "DenseI8ArrayAttr",
    "DenseIntElementsAttr",
    "DenseResourceElementsAttr",
    "DictAttr",
    "F16Type",
    "F32Type",
    "F64Type",
    "FlatSymbolRefAttr",
    "Float4E2M1FNType",
    "Float6E2M3FNType",
    "Float6E3M2FNType",
    "Float8E3M4Type",
    "Float8E4M3B11FNUZType",
    "Float8E4M3FNType",
    "Float8E4M3FNUZType",
    "Float8E4M3Type",
    "Float8E5M2FNUZType",
    "Float8E5M2Type",
    "Float8E8M0FNUType",
    "FloatAttr",
    "FloatTF32Type",
    "FloatType",
    "FunctionType",
    "IndexType",
    "IntegerAttr",
    "IntegerSet",
    "IntegerSetAttr",
    "IntegerSetConstraint",
    "IntegerType",
    "MemRefType",
    "NoneType",
    "OpaqueAttr",
    "OpaqueType",
    "RankedTensorType",
    "ShapedType",
    "StridedLayoutAttr",
    "StringAttr",
    "SymbolRefAttr",
    "TupleType",
    "TypeAttr",
    "TypeID",
    "UnitAttr",
    "UnrankedMemRefType",
    "UnrankedTensorType",
    "VectorType",
    "register_attribute_caster",
    "register_type_caster",
    "register_value_caster",
]

# Diagnostics, symbol tables, dialects and plugins (python/src/IRDiagnostics.cpp,
# IRSymbols.cpp, IRAsmState.cpp, IRCompat.cpp).
from ._mlirTracking.ir import (  # noqa: E402
    DialectDescriptor,
    DialectRegistry,
    Dialects,
    DiagnosticHandler,
    AsmState,
    SymbolTable,
    ThreadPool,
    _GlobalDebug,
    _symbol_table_scans,  # noqa: F401 (tests)
    _asm_state_numberings,  # noqa: F401 (tests)
    load_dialect_plugin,
)

__all__ += [
    "Diagnostic",
    "DialectDescriptor",
    "DialectRegistry",
    "Dialects",
    "DiagnosticHandler",
    "AsmState",
    "SymbolTable",
    "ThreadPool",
    "load_dialect_plugin",
]


# Op interfaces (python/src/OpView.cpp).
from ._mlirTracking.ir import (  # noqa: E402
    InferShapedTypeOpInterface,
    InferTypeOpInterface,
    ShapedTypeComponents,
)

__all__ += [
    "InferShapedTypeOpInterface",
    "InferTypeOpInterface",
    "ShapedTypeComponents",
]


def _register_sequences():
    # Every list class behaves as a collections.abc.Sequence (len, indexing
    # with negative indices and slices, in, index, count, reversed).
    import collections.abc

    for cls in (
        BlockArgumentList,
        BlockList,
        BlockPredecessors,
        BlockSuccessors,
        OpOperandList,
        OpResultList,
        OpSuccessors,
        OperationList,
        RegionSequence,
    ):
        collections.abc.Sequence.register(cls)
    # The attributes of an op are a Mapping by name (dict(op.attributes),
    # `case OpView(attributes={"name": a})`), as upstream.
    collections.abc.Mapping.register(OpAttributeMap)


_register_sequences()


class _OperationBase(metaclass=__import__("abc").ABCMeta):
    """Upstream's common base of ``Operation`` and ``OpView``: here both are
    registered with it, so ``isinstance(x, _OperationBase)`` and
    ``issubclass`` answer as upstream (every OpView subclass too)."""

    __slots__ = ()


_OperationBase.register(Operation)
_OperationBase.register(OpView)


def _dense_array_get(bound_get, kind):
    """`Dense*ArrayAttr.get` that also takes attributes of the element kind
    (IntegerAttr / FloatAttr / BoolAttr values), as upstream."""

    def unwrap(value):
        if not isinstance(value, Attribute):
            return value
        if kind == "float" and FloatAttr.isinstance(value):
            return FloatAttr(value).value
        if kind == "int" and IntegerAttr.isinstance(value):
            return IntegerAttr(value).value
        if kind == "bool" and BoolAttr.isinstance(value):
            return BoolAttr(value).value
        raise TypeError(
            f"get(): incompatible function arguments: {value!r} is not a {kind} attribute"
        )

    def get(values, context=None):
        return bound_get([unwrap(v) for v in values], context)

    get.__doc__ = bound_get.__doc__
    return get


def _add_conveniences():
    # Upstream names that are plain compositions of the bound API.
    def block_iter(self):
        """Iterates over the operations of the block (an OperationIterator
        over a snapshot)."""
        return iter(self.operations)

    def region_iter(self):
        """Iterates over the blocks of the region (a BlockIterator over a
        snapshot)."""
        return iter(self.blocks)

    def replace_uses_of_with(self, of, with_):
        """Replaces every operand of this op that is `of` with `with_`."""
        operands = self.operation.operands
        for i, operand in enumerate(operands):
            if operand.same_value(of):
                operands[i] = with_

    def opview_parse(cls, source, *, source_name="", context=None):
        """Parses one op of this class (MLIRError if it is another op)."""
        view = Operation.parse(source, source_name=source_name, context=context)
        expected = getattr(cls, "OPERATION_NAME", None)
        if expected is not None and view.operation.name != expected:
            raise MLIRError(
                f"Expected a '{expected}' op, got: '{view.operation.name}'", [])
        return view

    OpView.parse = classmethod(opview_parse)
    for cls, kind in (
        (DenseBoolArrayAttr, "bool"),
        (DenseI8ArrayAttr, "int"),
        (DenseI16ArrayAttr, "int"),
        (DenseI32ArrayAttr, "int"),
        (DenseI64ArrayAttr, "int"),
        (DenseF32ArrayAttr, "float"),
        (DenseF64ArrayAttr, "float"),
    ):
        cls.get = staticmethod(_dense_array_get(cls.get, kind))
    Block.__iter__ = block_iter
    Region.__iter__ = region_iter
    Operation.replace_uses_of_with = replace_uses_of_with


_add_conveniences()

# Last: the builders refer back to this module.
from ._attr_builders import register_attribute_builder  # noqa: E402


@_contextmanager
def loc_tracebacks(*, max_depth=None):
    """Within it, ops built without ``loc=`` are located at the Python call
    stack that built them (upstream ``mlir.ir.loc_tracebacks``): at most
    ``max_depth`` frames (None: the current limit, 10 by default), innermost
    first, skipping the frames of excluded files. The setting is
    process-wide (``_cext.globals``), as upstream; nested uses restore the
    outer limit and leave tracebacks enabled if they were."""
    from ._mlirTracking import globals as _globals

    old_enabled = _globals.loc_tracebacks_enabled()
    old_limit = _globals.loc_tracebacks_frame_limit()
    max_depth = old_limit if max_depth is None else max_depth
    try:
        _globals.set_loc_tracebacks_frame_limit(max_depth)
        if not old_enabled:
            _globals.set_loc_tracebacks_enabled(True)
        yield
    finally:
        if not old_enabled:
            _globals.set_loc_tracebacks_enabled(False)
        _globals.set_loc_tracebacks_frame_limit(old_limit)
