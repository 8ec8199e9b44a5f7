# RUN: %PYTHON %s | FileCheck %s
# Operation.walk never touches freed IR: it visits a snapshot of handles,
# skipping ops that are no longer live or no longer under the walked op, and
# ends when the walked op goes. Before, callbacks that erased or moved other
# ops (the next sibling, the parent, the function being walked) or ran a
# pipeline on the walked IR crashed or read freed memory.

import gc

from mlir_tracking import ir, passmanager


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    return f


ASM = """
func.func @f(%a: i32, %c: i1) -> i32 {
  %c1 = arith.constant 1 : i32
  %0 = arith.addi %a, %c1 : i32
  %1 = scf.if %c -> i32 {
    %2 = arith.muli %0, %0 : i32
    scf.yield %2 : i32
  } else {
    scf.yield %0 : i32
  }
  return %1 : i32
}
func.func @g() {
  %c2 = arith.constant 2 : i32
  return
}
"""


def names(ops):
    return " ".join(op.name for op in ops)


# CHECK-LABEL: TEST: test_orders_and_results
@run
def test_orders_and_results():
    with ir.Context():
        m = ir.Module.parse(ASM)
        seen = []
        m.operation.walk(lambda op: seen.append(op), ir.WalkOrder.PRE_ORDER)
        # CHECK: builtin.module func.func arith.constant arith.addi scf.if arith.muli scf.yield scf.yield func.return func.func arith.constant func.return
        print(names(seen))
        seen = []
        m.operation.walk(lambda op: seen.append(op))
        # CHECK: arith.constant arith.addi arith.muli scf.yield scf.yield scf.if func.return func.func arith.constant func.return func.func builtin.module
        print(names(seen))

        # SKIP in pre-order skips what is nested in the op.
        def skip_if(op):
            seen.append(op)
            if op.name in ("scf.if", "func.func"):
                return ir.WalkResult.SKIP
        seen = []
        m.operation.walk(skip_if, walk_order=ir.WalkOrder.PRE_ORDER)
        # CHECK: builtin.module func.func func.func
        print(names(seen))

        def interrupt_at_muli(op):
            seen.append(op)
            if op.name == "arith.muli":
                return ir.WalkResult.INTERRUPT
            return ir.WalkResult.ADVANCE
        seen = []
        m.operation.walk(interrupt_at_muli)
        # CHECK: arith.constant arith.addi arith.muli
        print(names(seen))

        # A bad return value and an exception of the callback.
        try:
            m.operation.walk(lambda op: 42)
        except TypeError as e:
            # CHECK: walk callback must return a WalkResult or None, got <class 'int'>
            print(e)
        # The callback's exception ends the walk as upstream's RuntimeError,
        # with the original as its cause.
        try:
            m.operation.walk(lambda op: 1 / 0)
        except RuntimeError as e:
            # CHECK: Exception raised in callback: ZeroDivisionError: division by zero ZeroDivisionError
            print(e, type(e.__cause__).__name__)

        # One whose text cannot be made (its __str__ raises) is still the
        # cause; its text is what Python's traceback shows for it.
        class Unprintable(Exception):
            def __str__(self):
                raise ValueError("no text")

        def raise_unprintable(op):
            raise Unprintable()
        try:
            m.operation.walk(raise_unprintable)
        except RuntimeError as e:
            # CHECK: Exception raised in callback: Unprintable: <exception str() failed> Unprintable
            print(e, type(e.__cause__).__name__)


def fresh():
    m = ir.Module.parse(ASM)
    f, g = m.body.operations
    return m, f, g


# CHECK-LABEL: TEST: test_erasing_callbacks
@run
def test_erasing_callbacks():
    with ir.Context() as ctx:
        for order in (ir.WalkOrder.PRE_ORDER, ir.WalkOrder.POST_ORDER):
            print(order)
            # Erase the op itself (it has no uses: arith.constant @g).
            m, f, g = fresh()
            seen = []

            def erase_self(op):
                seen.append(op.name)
                if op.name == "arith.constant" and op.parent == g:
                    op.erase()
            m.operation.walk(erase_self, order)
            print("self:", " ".join(seen))

            # Erase the next sibling before it is visited (pre-order), and
            # erase the parent from a nested op.
            m, f, g = fresh()
            seen = []

            def erase_next(op):
                seen.append(op.name)
                if op.name == "func.func" and op == f:
                    g.erase()
            m.operation.walk(erase_next, order)
            print("next:", " ".join(seen))

            m, f, g = fresh()
            seen = []

            def erase_parent(op):
                seen.append(op.name)
                if op.name == "arith.muli":
                    # The whole function being walked.
                    f.erase()
            m.operation.walk(erase_parent, order)
            print("function:", " ".join(seen))

            # Erase the walked op itself from a nested op: the walk ends.
            m, f, g = fresh()
            seen = []

            def erase_walked(op):
                seen.append(op.name)
                if op.name == "arith.addi":
                    f.erase()
            f.walk(erase_walked, order)
            print("walked:", " ".join(seen), f.handle_state)
            assert ctx._verify_tracking() == [], ctx._verify_tracking()
        # CHECK: WalkOrder.PRE_ORDER
        # CHECK-NEXT: self: builtin.module func.func arith.constant arith.addi scf.if arith.muli scf.yield scf.yield func.return func.func arith.constant func.return
        # CHECK-NEXT: next: builtin.module func.func arith.constant arith.addi scf.if arith.muli scf.yield scf.yield func.return
        # CHECK-NEXT: function: builtin.module func.func arith.constant arith.addi scf.if arith.muli func.func arith.constant func.return
        # CHECK-NEXT: walked: func.func arith.constant arith.addi erased
        # CHECK-NEXT: WalkOrder.POST_ORDER
        # CHECK-NEXT: self: arith.constant arith.addi arith.muli scf.yield scf.yield scf.if func.return func.func arith.constant func.return func.func builtin.module
        # CHECK-NEXT: next: arith.constant arith.addi arith.muli scf.yield scf.yield scf.if func.return func.func builtin.module
        # CHECK-NEXT: function: arith.constant arith.addi arith.muli arith.constant func.return func.func builtin.module
        # CHECK-NEXT: walked: arith.constant arith.addi erased


# CHECK-LABEL: TEST: test_moving_callbacks
@run
def test_moving_callbacks():
    with ir.Context() as ctx:
        # Move ops out of the walked op: they are not visited. Move an op
        # the walk has passed back in front: not visited twice.
        m, f, g = fresh()
        other = ir.Module.parse("")
        seen = []

        def move(op):
            seen.append(op.name)
            if op.name == "arith.constant" and op.parent == f:
                # The function @g goes to another module.
                other.body.append(g)
        m.operation.walk(move, ir.WalkOrder.PRE_ORDER)
        # CHECK: builtin.module func.func arith.constant arith.addi scf.if arith.muli scf.yield scf.yield func.return
        print(" ".join(seen))
        # CHECK: 1 1
        print(len(m.body.operations), len(other.body.operations))

        m, f, g = fresh()
        seen = []

        def detach_walked(op):
            seen.append(op.name)
            if op.name == "arith.addi":
                # The walked function leaves its module: the walk goes on
                # inside it (its ops are still under it).
                f.detach_from_parent()
        f.walk(detach_walked)
        # CHECK: arith.constant arith.addi arith.muli scf.yield scf.yield scf.if func.return func.func
        print(" ".join(seen))
        # CHECK: []
        print(ctx._verify_tracking())


DEEP_ASM = """
func.func @deep(%c: i1) {
  scf.if %c {
    scf.if %c {
      %x = arith.constant 1 : i32
      %y = arith.constant 2 : i32
    }
  }
  return
}
func.func @sink() {
  return
}
"""


# CHECK-LABEL: TEST: test_moving_out_an_enclosing_op
@run
def test_moving_out_an_enclosing_op():
    # The walk remembers which ancestors it found under the walked op (so
    # that deeply nested IR does not make it quadratic); a callback that
    # moves such an ancestor out must still take its ops out of the walk.
    with ir.Context() as ctx:
        for order in (ir.WalkOrder.PRE_ORDER, ir.WalkOrder.POST_ORDER):
            m = ir.Module.parse(DEEP_ASM)
            deep, sink = m.body.operations
            outer = deep.regions[0].blocks[0].operations[0]
            seen = []
            sink_return = sink.regions[0].blocks[0].operations[0]

            def move_outer(op):
                seen.append(op.name)
                if op.name == "arith.constant" and outer.parent == deep:
                    outer.move_before(sink_return)

            deep.walk(move_outer, order)
            print(order, " ".join(seen))
            assert ctx._verify_tracking() == [], ctx._verify_tracking()
        # CHECK: WalkOrder.PRE_ORDER func.func scf.if scf.if arith.constant func.return
        # CHECK: WalkOrder.POST_ORDER arith.constant func.return func.func


# CHECK-LABEL: TEST: test_pipeline_in_callback_refused
@run
def test_pipeline_in_callback_refused():
    with ir.Context() as ctx:
        m, f, g = fresh()
        other = ir.Module.parse("")
        messages = []

        def run_pipeline(op):
            if op.name == "arith.addi":
                for target in (m, f):
                    try:
                        passmanager.PassManager.parse(
                            "builtin.module(canonicalize)"
                            if target is m else "func.func(canonicalize)"
                        ).run(target)
                    except RuntimeError as e:
                        messages.append(str(e))
                # Where the callback moved IR of the walk is pinned too.
                other.body.append(g)
                try:
                    passmanager.PassManager.parse(
                        "builtin.module(canonicalize)").run(other)
                except RuntimeError as e:
                    messages.append(str(e))
                # Unrelated IR can run.
                passmanager.PassManager.parse(
                    "builtin.module(canonicalize)").run(ir.Module.parse(""))
        m.operation.walk(run_pipeline)
        # CHECK: cannot run 'builtin.module(canonicalize{{.*}}' on 'builtin.module' at {{.*}}: the IR is in use by Operation.walk
        # CHECK: cannot run 'func.func(canonicalize{{.*}}' on 'func.func' at {{.*}}: the IR is in use by Operation.walk
        # CHECK: cannot run 'builtin.module(canonicalize{{.*}}' on 'builtin.module' at {{.*}}: the IR is in use by Operation.walk
        for message in messages:
            print(message)
        # After the walk, pipelines run again.
        passmanager.PassManager.parse("builtin.module(canonicalize)").run(m)
        passmanager.PassManager.parse("builtin.module(canonicalize)").run(other)
        # CHECK: ok
        print("ok")


# CHECK-LABEL: TEST: test_erase_everything_many_times
@run
def test_erase_everything_many_times():
    # Erase ops in every position from every callback position, both
    # orders: never a crash, the registry always agrees with the IR.
    with ir.Context() as ctx:
        count = 0
        for order in (ir.WalkOrder.PRE_ORDER, ir.WalkOrder.POST_ORDER):
            for at in range(12):
                for victim in range(12):
                    m, f, g = fresh()
                    ops = []
                    m.operation.walk(lambda op: ops.append(op), order)
                    ops = [op for op in ops if op.name != "builtin.module"]
                    state = {"i": 0}

                    def callback(op):
                        if state["i"] == at and victim < len(ops):
                            target = ops[victim]
                            if target.is_valid:
                                # Drop uses first so erasure is allowed.
                                for r in target.results:
                                    for use in list(r.uses):
                                        user = use.owner
                                        if user.is_valid:
                                            user.erase() if not list(
                                                user.results) else None
                                try:
                                    target.erase()
                                except ValueError:
                                    pass
                        state["i"] += 1
                    m.operation.walk(callback, order)
                    count += 1
                    assert ctx._verify_tracking() == []
        # CHECK: walks: 288
        print("walks:", count)
