"""The ``scf`` dialect (upstream ``mlir.dialects.scf``): generated op classes
plus ``ForOp(lower, upper, step, iter_args)`` with its body block,
``IfOp(cond, results, hasElse=)`` with ``then_block``/``else_block``, the
``for_`` generator and ``yield_``."""

from typing import Optional as _Optional, Sequence as _Sequence

from ._scf_ops_gen import *  # noqa: F401,F403
from ._scf_ops_gen import _Dialect
from .arith import constant as _constant
from ._ods_common import _cext as _ods_cext
from ._ods_common import get_op_result_or_value as _get_op_result_or_value
from ._ods_common import get_op_results_or_values as _get_op_results_or_values
from ..ir import Block, IndexType, InsertionPoint, OpView, Operation, Value


@_ods_cext.register_operation(_Dialect, replace=True)
class ForOp(ForOp):  # noqa: F405
    """``scf.for`` with its body block (induction variable, then one
    argument per iter_arg)."""

    def __init__(self, lower_bound, upper_bound, step, iter_args=None, *, loc=None, ip=None):
        """`lower_bound`, `upper_bound`, `step`: values (or single-result
        ops) of one integer-like type; `iter_args`: loop-carried initial
        values (a list, or an op whose results they are). The results have
        the iter_args' types; the body block is created, empty (add an
        `scf.yield`)."""
        iter_args = list(_get_op_results_or_values([] if iter_args is None else iter_args))
        results = [_get_op_result_or_value(arg).type for arg in iter_args]
        lower_bound = _get_op_result_or_value(lower_bound)
        super().__init__(
            results, lower_bound, upper_bound, step, iter_args, loc=loc, ip=ip
        )
        self.regions[0].blocks.append(lower_bound.type, *results)

    @property
    def body(self) -> Block:
        """The loop body."""
        return self.regions[0].blocks[0]

    @property
    def induction_variable(self) -> Value:
        """The induction variable (first body argument)."""
        return self.body.arguments[0]

    @property
    def inner_iter_args(self):
        """The loop-carried values as seen in the body (the operands are
        `initArgs`)."""
        return list(self.body.arguments)[1:]


@_ods_cext.register_operation(_Dialect, replace=True)
class IfOp(IfOp):  # noqa: F405
    """``scf.if`` with its then block (and else block if `hasElse`)."""

    def __init__(self, cond, results_=None, *, hasElse=False, loc=None, ip=None):
        super().__init__([] if results_ is None else list(results_), cond, loc=loc, ip=ip)
        self.regions[0].blocks.append()
        if hasElse:
            self.regions[1].blocks.append()

    @property
    def then_block(self) -> Block:
        """The then block."""
        return self.regions[0].blocks[0]

    @property
    def else_block(self) -> Block:
        """The else block (IndexError if the op has none)."""
        return self.regions[1].blocks[0]


def for_(start, stop=None, step=None, iter_args: _Optional[_Sequence[Value]] = None, *, loc=None, ip=None):
    """Generator: builds an ``scf.for`` and yields inside its body.

        for iv in scf.for_(0, n):             # yields iv
            ...; scf.yield_([])
        for iv, acc, res in scf.for_(0, n, 1, [init]):  # one iter_arg

    Int bounds become index constants; `stop` alone means range(0, stop).
    """
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    bounds = []
    for bound in (start, stop, step):
        if isinstance(bound, bool) or isinstance(bound, float):
            raise ValueError(f"loop bound {bound!r} must be an int or a value")
        if isinstance(bound, int):
            bound = _constant(IndexType.get(), bound, loc=loc, ip=ip)
        bounds.append(bound)
    for_op = ForOp(*bounds, iter_args, loc=loc, ip=ip)
    iv = for_op.induction_variable
    inner = tuple(for_op.inner_iter_args)
    with InsertionPoint(for_op.body):
        if len(inner) > 1:
            yield iv, inner, for_op.results
        elif len(inner) == 1:
            yield iv, inner[0], for_op.results[0]
        else:
            yield iv
