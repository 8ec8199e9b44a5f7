"""The transform interpreter with tracked handles (upstream
``mlir.dialects.transform.interpreter``).

    from mlir_tracking.dialects.transform import interpreter
    loops = interpreter.apply_named_sequence(
        func, script.body.operations[0], script, args=[matmul])

Unlike upstream, the caller's handles survive the script: a handle bound to an
extra argument of the entry sequence (or any other handle under the payload
root) follows the transform dialect's own tracking, becomes ``erased`` when
the interpreter dropped its op and ``invalidated`` when its op sat in payload
that a transform op consumed. The sequence's results come back as handles.
See docs/transform.md.
"""

from ...._errors import MLIRError as _MLIRError
from ...._errors import MLIRValueError as _MLIRValueError
from ...._mlirTracking import ir as _ir
from ...._mlirTracking.transform_interpreter import TransformOptions
from ...._mlirTracking.transform_interpreter import (
    apply_named_sequence as _apply_named_sequence,
)
from ...._mlirTracking.transform_interpreter import (
    copy_symbols_and_merge_into as _copy_symbols_and_merge_into,
)

__all__ = ["TransformOptions", "apply_named_sequence", "copy_symbols_and_merge_into"]


def _unpack_operation(op):
    """An ``ir.Operation`` or ``ir.Module`` for an op, a module or an OpView."""
    if isinstance(op, (_ir.Operation, _ir.Module)):
        return op
    operation = getattr(op, "operation", None)
    if operation is None:
        raise TypeError(
            f"expected an Operation, a Module or an OpView, got {type(op).__name__}"
        )
    return operation


def _as_value_error(error):
    """`error` as an MLIRValueError: upstream raises ValueError here."""
    return _MLIRValueError(error.message, error.error_diagnostics).with_traceback(
        error.__traceback__
    )


def _unpack_arg(arg):
    if isinstance(arg, (list, tuple)):
        return [_unpack_operation(op) for op in arg]
    return _unpack_operation(arg)


def apply_named_sequence(
    payload_root, transform_root, transform_module, transform_options=None, args=()
):
    """Applies the named sequence ``transform_root`` to ``payload_root``.

    ``transform_module`` (a module, or None) is linked into a private copy of
    the script when it does not contain ``transform_root``; the script itself
    is never modified. ``args[i]`` (an op, or a list of ops) is bound to
    argument ``i + 1`` of the entry sequence (argument 0 is the payload root);
    every bound op must be the payload root or nested in it. Returns one list
    per result of the entry sequence (its ``transform.yield`` operands): live
    ``ir.Operation`` handles for operation handles, ``ir.Attribute``s for
    parameters.

    The payload root must be isolated from above (a function, a module) or
    top-level. Every handle strictly nested in it ends up live on the op the
    transform dialect's tracking says it became, ``erased`` when the
    interpreter dropped it, or ``invalidated`` when it sat in consumed payload.
    Raises ``ir.MLIRError`` (also a ``ValueError``, as upstream raises) with
    the interpreter's diagnostics when the script fails; the handles under the payload root are then invalidated.
    """
    payload_root = _unpack_operation(payload_root)
    transform_root = _unpack_operation(transform_root)
    if transform_module is not None:
        transform_module = _unpack_operation(transform_module)
    args = [_unpack_arg(arg) for arg in args]
    try:
        return _apply_named_sequence(
            payload_root, transform_root, transform_module, transform_options, args
        )
    except _MLIRError as error:
        raise _as_value_error(error) from None


def copy_symbols_and_merge_into(target, other):
    """Copies the symbols of ``other`` into ``target`` (upstream's name; both
    symbol tables such as modules, or OpViews of them). ``other`` is not
    changed. Colliding private symbols are renamed (on either side, with
    their uses); a function declaration and a definition of the same name
    become the definition. A collision of public symbols raises
    ``ir.MLIRError`` (also a ``ValueError``, as upstream raises) and leaves
    ``target`` as it was. Handles of ``target`` stay live (a renamed symbol is the same op),
    except those of declarations merged away, which become ``erased``.
    """
    target = _unpack_operation(target)
    other = _unpack_operation(other)
    try:
        _copy_symbols_and_merge_into(target, other)
    except _MLIRError as error:
        raise _as_value_error(error) from None
