"""Decorators that build an op's region from a Python function (upstream
``mlir.extras.meta``).

``region_op(OpClass, terminator=YieldOp)`` makes a decorator factory: its
arguments build the op, and the function it decorates is called once, at
the start of the op's first block, with the block's arguments; what it
returns (nothing, a value or a tuple/list of values) is passed, as a list,
to ``terminator``, built at the end of the region's last block. The
decorated name is bound to the op's result, its results, or the op when
it has none.

If the region has no block yet, one is added whose argument types are the
function's parameter annotations, which must then all be ``ir.Type``s.

If building the body raises, the op is erased (nothing half-built stays
in the IR) and the exception propagates; if the op cannot be erased (the
body gave one of its values a use outside it), it stays and the
exception carries a note saying so. ``region_op`` of an op without
regions raises ``TypeError`` (the op is erased).
"""

import inspect as _inspect

from ..dialects._ods_common import get_op_result_or_op_results as _results_of
from ..dialects._ods_common import get_op_result_or_value as _value_of
from ..ir import InsertionPoint as _InsertionPoint
from ..ir import Type as _Type

__all__ = ["op_region_builder", "region_op"]


def _check_arity(body_builder, count, what):
    """TypeError unless `body_builder` can be called with `count`
    positional arguments."""
    try:
        signature = _inspect.signature(body_builder)
    except (TypeError, ValueError):
        return  # builtins and the like: let the call itself complain
    try:
        signature.bind(*([None] * count))
    except TypeError:
        name = getattr(body_builder, "__name__", repr(body_builder))
        raise TypeError(
            f"the body of {what} has {count} block argument(s), but "
            f"{name}{signature} cannot take {count} positional argument(s)"
        ) from None


def _block_types_from_annotations(body_builder, what):
    signature = _inspect.signature(body_builder)
    types = []
    for parameter in signature.parameters.values():
        if not isinstance(parameter.annotation, _Type):
            name = getattr(body_builder, "__name__", repr(body_builder))
            raise ValueError(
                f"the region of {what} has no block: every parameter of "
                f"{name}{signature} needs an ir.Type annotation to make one "
                f"('{parameter.name}' has none)"
            )
        types.append(parameter.annotation)
    return types


def _discard(op, what, error):
    """Erases `op`, built in part because `error` stopped its body. If it
    cannot be (the body gave one of its values a use outside the op), the
    op stays and `error`, which the caller raises again, says why."""
    try:
        op.operation.erase()
    except Exception as refusal:
        error.add_note(f"the half-built {what} stays in the IR: {refusal}")


def op_region_builder(op, op_region, terminator=None):
    """A decorator that builds the body of `op_region` (a region of `op`)
    with the function it decorates, then returns the op's result(s) (or the
    op when it has none). See the module docstring."""
    what = f"'{op.operation.name}'"

    def build(body_builder):
        try:
            blocks = op_region.blocks
            if len(blocks) == 0:
                blocks.append(*_block_types_from_annotations(body_builder, what))
            entry = op_region.blocks[0]
            arguments = list(entry.arguments)
            _check_arity(body_builder, len(arguments), what)
            with _InsertionPoint(entry):
                returned = body_builder(*arguments)
            if terminator is not None:
                if returned is None:
                    values = []
                elif isinstance(returned, (tuple, list)):
                    values = [_value_of(v) for v in returned]
                else:
                    values = [_value_of(returned)]
                with _InsertionPoint(list(op_region.blocks)[-1]):
                    terminator(values)
        except BaseException as error:
            _discard(op, what, error)
            raise
        return _results_of(op)

    return build


def region_op(op_constructor, terminator=None):
    """A decorator factory for ops with a region: `f(*args, **kwargs)`
    builds `op_constructor(*args, **kwargs)` and returns the decorator that
    builds its first region (`op_region_builder`). Used bare (`@f` on a
    function) it builds the op with no arguments."""

    def with_arguments(*args, **kwargs):
        op = op_constructor(*args, **kwargs)
        if len(op.operation.regions) == 0:
            error = TypeError(
                f"region_op: '{op.operation.name}' has no region to build")
            _discard(op, f"'{op.operation.name}'", error)
            raise error
        return op_region_builder(op, op.operation.regions[0], terminator)

    def factory(*args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]) \
                and not isinstance(args[0], type):
            return with_arguments()(args[0])
        return with_arguments(*args, **kwargs)

    factory.__name__ = getattr(op_constructor, "__name__", "region_op")
    factory.__qualname__ = factory.__name__
    factory.__doc__ = (
        f"Decorator factory: builds {factory.__name__} from the arguments; "
        f"the decorated function builds its region."
    )
    return factory
