"""IR objects with upstream ``mlir.ir`` names, where operations are tracked.

See docs/python.md for the handle semantics.
"""

from ._errors import (
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
    BlockList,
    Context,
    Dialect,
    InsertionPoint,
    Location,
    Module,
    NamedAttribute,
    OpAttributeMap,
    OpOperand,
    OpOperandList,
    OpResult,
    OpResultList,
    OpView,
    Operation,
    OperationList,
    Region,
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
    "BlockList",
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
    "OpOperandList",
    "OpResult",
    "OpResultList",
    "OpView",
    "Operation",
    "OperationList",
    "Region",
    "RegionSequence",
    "Type",
    "Value",
    "WalkOrder",
    "WalkResult",
    "register_attribute_builder",
]

# Last: the builders refer back to this module.
from ._attr_builders import register_attribute_builder  # noqa: E402
