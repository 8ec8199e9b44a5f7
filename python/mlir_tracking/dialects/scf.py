"""The ``scf`` dialect (upstream ``mlir.dialects.scf``): generated op classes
plus ``ForOp(lower, upper, step, iter_args)`` with its body block, ``ForallOp``
(mixed bounds, ``induction_variables``, ``terminator()``), ``IndexSwitchOp``
(``default_block``, ``case_blocks``),
``IfOp(cond, results, hasElse=)`` with ``then_block``/``else_block``, the
``for_`` generator, ``yield_`` and ``index_switch``."""

from typing import Optional as _Optional, Sequence as _Sequence

from ._scf_ops_gen import *  # noqa: F401,F403
from ._scf_ops_gen import _Dialect
from .arith import constant as _constant
from ._ods_common import _cext as _ods_cext
from ._ods_common import append_body_block as _append_body_block
from ._ods_common import get_op_result_or_value as _get_op_result_or_value
from ._ods_common import get_op_results_or_values as _get_op_results_or_values
from ._ods_common import get_op_result_or_op_results as _get_op_result_or_op_results
from ..extras.meta import _discard
from ..ir import Block, IndexType, InsertionPoint, Value


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
        _append_body_block(self, lower_bound.type, *results)

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


def _split_bounds(bounds):
    """Static ints and dynamic values of a mixed bound list (dynamic ones
    marked ShapedType.get_dynamic_size() in the static list)."""
    from ..ir import ShapedType

    dynamic, static = [], []
    for bound in bounds:
        if isinstance(bound, int):
            static.append(bound)
        else:
            static.append(ShapedType.get_dynamic_size())
            dynamic.append(_get_op_result_or_value(bound))
    return dynamic, static


@_ods_cext.register_operation(_Dialect, replace=True)
class ForallOp(ForallOp):  # noqa: F405
    """``scf.forall`` from mixed (int or value) bounds and steps, with its
    body (induction variables, then the shared outputs)."""

    def __init__(self, lower_bounds, upper_bounds, steps, shared_outs=None, *, mapping=None, loc=None, ip=None):
        if not len(lower_bounds) == len(upper_bounds) == len(steps):
            raise ValueError("lower_bounds, upper_bounds and steps must have the same length")
        shared_outs = [] if shared_outs is None else list(_get_op_results_or_values(shared_outs))
        shared_outs = [_get_op_result_or_value(o) for o in shared_outs]
        results = [o.type for o in shared_outs]
        dynamic_lbs, static_lbs = _split_bounds(lower_bounds)
        dynamic_ubs, static_ubs = _split_bounds(upper_bounds)
        dynamic_steps, static_steps = _split_bounds(steps)
        from ..ir import DenseI64ArrayAttr

        super().__init__(
            results,
            dynamic_lbs,
            dynamic_ubs,
            dynamic_steps,
            DenseI64ArrayAttr.get(static_lbs),
            DenseI64ArrayAttr.get(static_ubs),
            DenseI64ArrayAttr.get(static_steps),
            shared_outs,
            mapping=mapping,
            loc=loc,
            ip=ip,
        )
        _append_body_block(self, *([IndexType.get()] * len(static_lbs)), *results)

    @property
    def body(self) -> Block:
        """The loop body."""
        return self.regions[0].blocks[0]

    @property
    def rank(self) -> int:
        """The number of induction variables."""
        return len(self.staticLowerBound)

    @property
    def induction_variables(self):
        """The induction variables (the first `rank` body arguments)."""
        return self.body.arguments[: self.rank]

    @property
    def inner_iter_args(self):
        """The shared outputs as seen in the body."""
        return self.body.arguments[self.rank :]

    def terminator(self):
        """The body's ``scf.forall.in_parallel``, created at the end of the
        body if it has none."""
        ops = self.body.operations
        with InsertionPoint(self.body):
            if len(ops) and isinstance(ops[len(ops) - 1], InParallelOp):
                return ops[len(ops) - 1]
            return InParallelOp()


@_ods_cext.register_operation(_Dialect, replace=True)
class InParallelOp(InParallelOp):  # noqa: F405
    """``scf.forall.in_parallel`` with its (empty) block."""

    def __init__(self, *, loc=None, ip=None):
        super().__init__(loc=loc, ip=ip)
        self.region.blocks.append()

    @property
    def block(self) -> Block:
        """The block of parallel insertions."""
        return self.region.blocks[0]


@_ods_cext.register_operation(_Dialect, replace=True)
class IndexSwitchOp(IndexSwitchOp):  # noqa: F405
    """``scf.index_switch`` on `arg` with one region per case value, each
    with an empty block; `default_body_builder(op)` and then
    `case_body_builder(op, i, case)` for each case fill them if given (at
    the start of the block; they build the ``scf.yield`` too). If a body
    builder raises, the op is erased and the exception propagates.

    With the region count as the fourth argument (an int) or
    ``num_caseRegions=``, it is the generated builder (regions without
    blocks)."""

    def __init__(self, results, arg, cases, case_body_builder=None,
                 default_body_builder=None, loc=None, ip=None, *,
                 num_caseRegions=None):
        from ..ir import DenseI64ArrayAttr

        if num_caseRegions is not None or (
                isinstance(case_body_builder, int)
                and not isinstance(case_body_builder, bool)):
            if num_caseRegions is None:
                num_caseRegions = case_body_builder
            elif case_body_builder is not None:
                raise TypeError("IndexSwitchOp takes a case body builder or "
                                "num_caseRegions, not both")
            if default_body_builder is not None:
                raise TypeError("the generated IndexSwitchOp(results, arg, "
                                "cases, num_caseRegions) takes no body "
                                "builders")
            super().__init__(list(results), arg, cases, num_caseRegions,
                             loc=loc, ip=ip)
            return
        for name, builder in (("case_body_builder", case_body_builder),
                              ("default_body_builder", default_body_builder)):
            if builder is not None and not callable(builder):
                raise TypeError(f"IndexSwitchOp: {name} must be callable, "
                                f"got {type(builder).__name__}")
        if not isinstance(cases, DenseI64ArrayAttr):
            cases = list(cases)
            for case in cases:
                if isinstance(case, bool) or not isinstance(case, int):
                    raise TypeError("IndexSwitchOp: the cases must be ints, "
                                    f"got {case!r}")
            cases = DenseI64ArrayAttr.get(cases)
        super().__init__(list(results), arg, cases,
                         num_caseRegions=len(cases), loc=loc, ip=ip)
        for region in self.regions:
            region.blocks.append()
        try:
            if default_body_builder is not None:
                with InsertionPoint(self.default_block):
                    default_body_builder(self)
            if case_body_builder is not None:
                for i, case in enumerate(cases):
                    with InsertionPoint(self.case_block(i)):
                        case_body_builder(self, i, case)
        except BaseException as error:
            _discard(self, "'scf.index_switch'", error)
            raise

    @property
    def default_region(self):
        """The region run when no case matches."""
        return self.regions[0]

    @property
    def default_block(self) -> Block:
        """The block of the default region."""
        return self.default_region.blocks[0]

    @property
    def case_regions(self):
        """The case regions (a view of the regions after the default one)."""
        return self.regions[1:]

    def case_region(self, i: int):
        """The region of case `i`."""
        return self.case_regions[i]

    @property
    def case_blocks(self):
        """The blocks of the case regions."""
        return [region.blocks[0] for region in self.case_regions]

    def case_block(self, i: int) -> Block:
        """The block of case `i`."""
        return self.case_regions[i].blocks[0]


def index_switch(results, arg, cases, case_body_builder=None,
                 default_body_builder=None, loc=None, ip=None, *,
                 num_caseRegions=None, num_case_regions=None):
    """Upstream's builder: a new ``IndexSwitchOp(results, arg, cases,
    case_body_builder, default_body_builder)``; returns its result, its
    results, or the op when it has none. With the region count as the
    fourth argument (an int) or ``num_case_regions=``, it is the generated
    builder (regions without blocks)."""
    if num_case_regions is not None:
        if num_caseRegions is not None:
            raise TypeError("index_switch: give num_case_regions once")
        num_caseRegions = num_case_regions
    return _get_op_result_or_op_results(IndexSwitchOp(
        results, arg, cases, case_body_builder, default_body_builder,
        loc=loc, ip=ip, num_caseRegions=num_caseRegions))
