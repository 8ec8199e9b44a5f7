# RUN: %PYTHON %s | FileCheck %s
# A stateful property test (hypothesis): random interleavings of parse, clone,
# erase, move, detach, attribute changes, op creation, use replacement,
# precise and non-precise pipelines (also two at once on two threads, and
# one on a thread while this one uses every held handle), walks whose
# callbacks erase ops, dropping modules and handles, and garbage
# collection. After
# every step: live handles work and name an op that exists, stale handles
# raise ir.InvalidatedHandleError naming their state and never come back,
# and the registry agrees with the IR (Context._verify_tracking()).
# Bounded (derandomized, fixed example counts) to run in well under a minute.
# This file once aborted in glibc with a corrupted heap: a branch moved into
# another module kept successors in a module that was then destroyed. Kept as
# the regression.

import gc
import os
import threading

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from mlir_tracking import ir, passmanager

MODULES = [
    """
func.func @f(%a: i32, %b: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %0 = arith.addi %c1, %c2 : i32
  %1 = arith.addi %a, %0 : i32
  %2 = arith.addi %a, %0 : i32
  %3 = arith.muli %1, %2 : i32
  %4 = func.call @g(%3) : (i32) -> i32
  return %4 : i32
}
func.func private @g(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %0 = arith.addi %x, %c0 : i32
  return %0 : i32
}
""",
    """
func.func @loop(%n: index, %x: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (i32) {
    %inv = arith.muli %x, %x : i32
    %s = scf.if %true -> (i32) {
      %t = arith.addi %acc, %inv : i32
      scf.yield %t : i32
    } else {
      scf.yield %acc : i32
    }
    scf.yield %s : i32
  }
  return %r : i32
}
func.func private @dead() {
  return
}
""",
    """
func.func @mem(%v: i32, %c: i1) -> i32 {
  %m = memref.alloca() : memref<i32>
  memref.store %v, %m[] : memref<i32>
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %l = memref.load %m[] : memref<i32>
  cf.br ^bb2
^bb2:
  %r = memref.load %m[] : memref<i32>
  %d = math.absi %r : i32
  return %d : i32
}
""",
]

PIPELINES = [
    # Precise.
    "builtin.module(canonicalize)",
    "builtin.module(cse)",
    "builtin.module(func.func(canonicalize,cse))",
    # Not precise, or mixed.
    "builtin.module(inline,symbol-dce)",
    "builtin.module(func.func(sccp,loop-invariant-code-motion))",
    "builtin.module(func.func(mem2reg),canonicalize)",
    "builtin.module(control-flow-sink,topological-sort)",
    "builtin.module(convert-scf-to-cf,func.func(cse))",
]

# Pipelines whose passes all report their rewrites.
PRECISE_PIPELINES = PIPELINES[:3]


def run_pipeline_on(pipeline, module):
    """Runs `pipeline` on `module`; a failing pass (MLIRError) and the refusal
    to run on IR that ops outside it use (a clone) are expected outcomes."""
    try:
        passmanager.PassManager.parse(pipeline, context=module.context).run(
            module.operation)
    except ir.MLIRError:
        pass
    except RuntimeError as error:
        if "use values or blocks of it" not in str(error):
            raise

STATES = ("live", "erased", "invalidated")

# How often each state was checked, for the report at the end.
SEEN = {state: 0 for state in STATES}


class TrackingMachine(RuleBasedStateMachine):
    @initialize()
    def setup(self):
        self.ctx = ir.Context()
        self.ctx.__enter__()
        # Load every dialect the pipelines need before threads run them.
        for pipeline in PIPELINES:
            m = ir.Module.parse(MODULES[0])
            passmanager.PassManager.parse(pipeline).run(m.operation)
        self.modules = []
        # Held handles and the state each was last seen in.
        self.handles = []
        self.last_state = {}

    def teardown(self):
        if hasattr(self, "ctx"):
            self.modules.clear()
            self.handles.clear()
            self.ctx.__exit__(None, None, None)
            del self.ctx
            gc.collect()

    # -- helpers --------------------------------------------------------------

    def hold(self, op):
        self.handles.append(op)
        self.last_state.setdefault(id(op), (op, op.handle_state))

    def live_handles(self):
        return [h for h in self.handles if h.is_valid]

    def nested_live(self):
        return [h for h in self.live_handles() if h.name != "builtin.module"]

    # -- rules ----------------------------------------------------------------

    @rule(index=st.integers(0, len(MODULES) - 1), data=st.data())
    def parse(self, index, data):
        if len(self.modules) >= 4:
            return
        module = ir.Module.parse(MODULES[index])
        self.modules.append(module)
        ops = []
        module.operation.walk(lambda op: ops.append(op))
        picks = data.draw(st.lists(st.integers(0, len(ops) - 1), max_size=6))
        for i in picks:
            self.hold(ops[i])

    @precondition(lambda self: self.nested_live())
    @rule(data=st.data())
    def clone(self, data):
        op = data.draw(st.sampled_from(self.nested_live()))
        self.hold(op.clone())

    @precondition(lambda self: self.nested_live())
    @rule(data=st.data())
    def erase(self, data):
        op = data.draw(st.sampled_from(self.nested_live()))
        try:
            op.erase()
        except ValueError:
            # Results still used outside: refused, the handle stays live.
            assert op.is_valid
            return
        assert op.handle_state == "erased"

    @precondition(lambda self: len(self.nested_live()) >= 2)
    @rule(data=st.data(), after=st.booleans())
    def move(self, data, after):
        live = self.nested_live()
        op = data.draw(st.sampled_from(live))
        other = data.draw(st.sampled_from(live))
        if other.parent is None:
            return
        try:
            if after:
                op.move_after(other)
            else:
                op.move_before(other)
        except ValueError:
            return  # Moving an op into itself.
        assert op.is_valid

    @precondition(lambda self: self.nested_live())
    @rule(data=st.data())
    def detach(self, data):
        op = data.draw(st.sampled_from(self.nested_live()))
        if op.parent is None:
            return
        detached = op.detach_from_parent()
        assert detached == op and detached.is_valid and detached.parent is None

    @precondition(lambda self: self.modules)
    @rule(data=st.data(), pipeline=st.sampled_from(PIPELINES),
          threads=st.booleans())
    def run_pipeline(self, data, pipeline, threads):
        module = data.draw(st.sampled_from(self.modules))
        self.ctx.enable_multithreading(threads)
        try:
            # Moves and erasures may have broken the IR: passes only run on
            # valid IR (as after parsing).
            module.operation.verify()
        except ir.MLIRError:
            return
        run_pipeline_on(pipeline, module)
        assert module.operation.is_valid

    @precondition(lambda self: len(self.modules) >= 2)
    @rule(data=st.data(), first=st.sampled_from(PIPELINES),
          second=st.sampled_from(PIPELINES))
    def run_two_threads(self, data, first, second):
        a, b = data.draw(
            st.lists(st.sampled_from(self.modules), min_size=2, max_size=2,
                     unique_by=id))
        errors = []

        def work(module, pipeline):
            try:
                module.operation.verify()
                run_pipeline_on(pipeline, module)
            except ir.MLIRError:
                pass
            except Exception as e:  # pragma: no cover - reported below
                errors.append(e)

        threads = [threading.Thread(target=work, args=(a, first)),
                   threading.Thread(target=work, args=(b, second))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors

    @precondition(lambda self: self.modules)
    @rule(data=st.data(), order=st.sampled_from(
        [ir.WalkOrder.PRE_ORDER, ir.WalkOrder.POST_ORDER]),
          steps=st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)),
                         max_size=4))
    def walk_erasing(self, data, order, steps):
        # A walk whose callback erases ops anywhere (ahead, behind, its own
        # op, ancestors): never a freed op, and the walk visits only live
        # ops under the walked one.
        module = data.draw(st.sampled_from(self.modules))
        ops = []
        module.operation.walk(lambda op: ops.append(op))
        plan = dict(steps)
        state = {"i": 0}

        def callback(op):
            assert op.is_valid
            victim = plan.get(state["i"])
            state["i"] += 1
            if victim is not None and victim < len(ops) and \
                    ops[victim].is_valid and \
                    ops[victim].name != "builtin.module":
                try:
                    ops[victim].erase()
                except ValueError:
                    pass  # Results still used outside.
            return ir.WalkResult.ADVANCE

        module.operation.walk(callback, order)
        for op in ops[:3]:
            self.hold(op)

    @precondition(lambda self: self.nested_live())
    @rule(data=st.data(), kind=st.sampled_from(["attribute", "create", "rauw"]))
    def python_mutation(self, data, kind):
        op = data.draw(st.sampled_from(self.nested_live()))
        if kind == "attribute":
            op.attributes["prop.tag"] = ir.Attribute.parse("unit")
            assert "prop.tag" in op.attributes
        elif kind == "create":
            if op.parent is None:
                return
            with ir.Location.unknown():
                new = ir.Operation.create(
                    "arith.constant", results=[ir.Type.parse("i32")],
                    attributes={"value": ir.Attribute.parse("3 : i32")},
                    ip=ir.InsertionPoint(op))
            self.hold(new)
        else:
            # Replace the uses of a result with an earlier value of the same
            # type in the same block (dominance is kept).
            if not len(op.results) or op.block is None:
                return
            result = op.results[0]
            for earlier in op.block.operations:
                if earlier == op:
                    break
                if len(earlier.results) and \
                        earlier.results[0].type == result.type:
                    result.replace_all_uses_with(earlier.results[0])
                    assert not list(result.uses)
                    break

    @precondition(lambda self: self.modules)
    @rule(data=st.data(), pipeline=st.sampled_from(PRECISE_PIPELINES))
    def access_during_run(self, data, pipeline):
        # Another thread runs a pipeline on one module while this one uses
        # every held handle: each access works or raises the guard's
        # RuntimeError naming the pipeline, never anything else.
        module = data.draw(st.sampled_from(self.modules))
        self.ctx.enable_multithreading(True)
        try:
            module.operation.verify()
        except ir.MLIRError:
            return
        pm = passmanager.PassManager.parse(pipeline, context=module.context)
        text = str(pm)
        errors = []

        def work():
            try:
                pm.run(module.operation)
            except ir.MLIRError:
                pass
            except RuntimeError as e:
                if "use values or blocks of it" not in str(e):
                    errors.append(e)
            except Exception as e:  # pragma: no cover - reported below
                errors.append(e)

        thread = threading.Thread(target=work)
        thread.start()
        for op in list(self.handles):
            for access in (lambda: op.name, lambda: str(op),
                           lambda: op.parent, lambda: list(op.operands),
                           lambda: op.walk(lambda o: None)):
                try:
                    access()
                except ir.InvalidatedHandleError:
                    pass
                except RuntimeError as e:
                    assert text in str(e) or "already running" in str(e), e
        thread.join()
        assert not errors, errors
        assert module.operation.is_valid

    @precondition(lambda self: self.modules)
    @rule(data=st.data())
    def drop_module(self, data):
        module = data.draw(st.sampled_from(self.modules))
        self.modules = [m for m in self.modules if m is not module]
        del module
        gc.collect()

    @precondition(lambda self: self.handles)
    @rule(data=st.data())
    def drop_handle(self, data):
        i = data.draw(st.integers(0, len(self.handles) - 1))
        del self.handles[i]

    @rule()
    def collect(self):
        gc.collect()

    # -- invariants -----------------------------------------------------------

    @invariant()
    def handles_are_correct_or_clearly_invalid(self):
        if not hasattr(self, "ctx"):
            return
        for op in self.handles:
            state = op.handle_state
            assert state in STATES, state
            SEEN[state] += 1
            _, before = self.last_state[id(op)]
            if before != "live":
                assert state == before, (before, state)
            self.last_state[id(op)] = (op, state)
            if state == "live":
                assert op.is_valid
                assert op.name
                op.location
                op.parent
                if op.name != "builtin.module":
                    str(op)
            else:
                assert not op.is_valid
                try:
                    op.name
                except ir.InvalidatedHandleError as e:
                    assert state in str(e), str(e)
                else:
                    raise AssertionError("a stale handle gave its name")
                try:
                    str(op)
                except ir.InvalidatedHandleError:
                    pass
                else:
                    raise AssertionError("a stale handle printed")
                assert op.handle_history
        assert self.ctx._verify_tracking() == []


# PROPERTY_TEST_MAX_EXAMPLES overrides the example count (lit passes it
# through); the sanitizer build keeps the default, about 40 s there.
TrackingMachine.TestCase.settings = settings(
    max_examples=int(os.environ.get("PROPERTY_TEST_MAX_EXAMPLES", "40")),
    stateful_step_count=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)

# CHECK: TEST: property
print("TEST: property")
TrackingMachine.TestCase("runTest").runTest()
# CHECK: PASSED
print("PASSED")
print("handle checks by state:", SEEN)
