"""Stubs of mlir_tracking.dialects.transform.interpreter."""

from typing import Any, Sequence, Union

from mlir_tracking import ir

class TransformOptions:
    expensive_checks: bool
    enforce_single_top_level_transform_op: bool
    def __init__(self) -> None: ...

_OpLike = Union[ir.Operation, ir.Module, Any]

def apply_named_sequence(
    payload_root: _OpLike,
    transform_root: _OpLike,
    transform_module: _OpLike | None,
    transform_options: TransformOptions | None = None,
    args: Sequence[_OpLike | Sequence[_OpLike]] = (),
) -> list[list[ir.Operation | ir.Attribute]]: ...

def copy_symbols_and_merge_into(target: _OpLike, other: _OpLike) -> None: ...
