# RUN: %PYTHON %s | FileCheck %s
# Block.append_to (and Block/Value objects of a moved block, while runs are
# in progress), the successor/predecessor views, operands as plain Values,
# Context._clear_live_operations, AsmState across contexts and the lazy
# import of a dialect's module when one of its ops is returned.

import gc
import subprocess
import sys
import threading

from mlir_tracking import ir
from mlir_tracking.ir import *


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    return f


CFG = r"""
func.func @f(%a: i32, %c: i1) -> i32 {
  cf.cond_br %c, ^bb1(%a : i32), ^bb2
^bb1(%x: i32):
  cf.br ^bb2
^bb2:
  return %a : i32
}"""


# CHECK-LABEL: TEST: testAppendTo
@run
def testAppendTo():
    with Context() as ctx, Location.unknown():
        ctx.allow_unregistered_dialects = True
        module = Module.create()
        f32 = F32Type.get()
        with InsertionPoint(module.body):
            dummy = Operation.create("dummy", regions=1)
            block = Block.create_at_start(dummy.regions[0], [f32])
            with InsertionPoint(block):
                ret = Operation.create("ret", operands=[block.arguments[0]])
            real = Operation.create("realop", results=[f32], regions=1)
            arg = block.arguments[0]
            block.append_to(real.regions[0])
            dummy.erase()
        # CHECK: "realop"() ({
        # CHECK-NEXT: ^bb0(%[[A:.*]]: f32):
        # CHECK-NEXT:   "ret"(%[[A]]) : (f32) -> ()
        # CHECK-NEXT: }) : () -> f32
        print(module)
        # The handles followed: the block, its argument and the op in it.
        # CHECK: True True live True
        print(block.is_valid, arg.is_valid, ret.handle_state, block.owner == real)
        # CHECK: 1 0
        print(len(real.regions[0].blocks), len(block.operations) - 1)
        # Appending to the region it is already last in changes nothing.
        block.append_to(real.regions[0])
        # Into an op nested in the block itself: refused.
        with InsertionPoint(block):
            inner = Operation.create("inner", regions=1)
        try:
            block.append_to(inner.regions[0])
        except ValueError as e:
            # CHECK: ValueError: cannot move a block into an operation nested in it
            print("ValueError:", e)
        # Into another tree (a detached op): refused, nothing changed.
        detached = Operation.create("detached", regions=1)
        try:
            block.append_to(detached.regions[0])
        except ValueError as e:
            # CHECK: ValueError: cannot move a block to an operation of another IR tree
            print("ValueError:", str(e).split(" (")[0])
        # CHECK: 0 True
        print(len(detached.regions[0].blocks), block.owner == real)
        # Another context: refused.
        with Context() as other:
            other.allow_unregistered_dialects = True
            foreign = Operation.create("foreign", regions=1, loc=Location.unknown())
        try:
            block.append_to(foreign.regions[0])
        except ValueError as e:
            # CHECK: ValueError: cannot use a region of context
            print("ValueError:", str(e)[:37])
        # Moving blocks between regions of one function keeps the handles
        # the rewriter reports to (a pass on the result works on them).
        assert ctx._verify_tracking() == []


def during_run(target, fn):
    """Runs a pipeline on `target` in another thread and returns what `fn()`
    gives (or the error it raises) while the run holds the IR: a Python pass
    of the pipeline waits until `fn` returned."""
    from mlir_tracking.passmanager import PassManager

    started, release = threading.Event(), threading.Event()

    def probe(_op, _pass):
        started.set()
        release.wait(10)

    pm = PassManager.parse("builtin.module(cse)")
    pm.add(probe, name="probe", op_name="builtin.module")
    t = threading.Thread(target=lambda: pm.run(target))
    t.start()
    started.wait(10)
    try:
        return outcome(fn)
    finally:
        release.set()
        t.join()


def outcome(fn):
    try:
        return fn()
    except Exception as e:
        return type(e).__name__ + ": " + str(e).split(": the pass")[0].split(" (")[0]


def check_run_guard(block, arg, free, held):
    """While a run holds another tree (`free`), the block and its argument
    work; while one holds the tree they are in (`held`), both are refused.
    Then the registry must match the IR."""
    print("free:", during_run(free, lambda: (len(block.operations),
                                             str(arg.type))))
    print("held:", during_run(held, lambda: (
        outcome(lambda: len(block.operations)), outcome(lambda: arg.type))))
    print("tracking:", Context.current._verify_tracking())


def moved_block_ir():
    """A module with a nested module holding test.src, whose block (with an
    argument used by test.use) is reached through test.src, and test.dst
    with an empty region; returns them all."""
    i32 = IntegerType.get_signless(32)
    module = Module.create()
    inner = Module.create()
    with InsertionPoint(inner.body):
        src = Operation.create("test.src", regions=1)
    with InsertionPoint(module.body):
        dst = Operation.create("test.dst", regions=1)
    module.body.append(inner.operation)
    block = Block.create_at_start(src.regions[0], [i32])
    with InsertionPoint(block):
        Operation.create("test.use", operands=[block.arguments[0]])
    return module, inner, src, dst


# CHECK-LABEL: TEST: testMovedBlockObjectsUseTheTreeTheBlockIsIn
@run
def testMovedBlockObjectsUseTheTreeTheBlockIsIn():
    # Block and Value objects reached through the op a block left check the
    # run guard on the tree the block is in now.
    with Context() as ctx, Location.unknown():
        ctx.allow_unregistered_dialects = True
        module, inner, src, dst = moved_block_ir()
        block = src.regions[0].blocks[0]
        arg = block.arguments[0]
        block.append_to(dst.regions[0])
        other = Module.parse("func.func @g() { return }")
        # No run: they work, and see where the block is.
        # CHECK: 1 i32 True True
        print(len(block.operations), arg.type, block.owner == dst, arg.owner == block)
        # A run on another tree: they work; on their own tree: refused with
        # the usual error.
        # CHECK: free: (1, 'i32')
        # CHECK: held: ('RuntimeError: cannot access this IR', 'RuntimeError: cannot access this IR')
        # CHECK: tracking: []
        check_run_guard(block, arg, other, module)
        # Also when the tree they were reached through leaves it (the block
        # stayed): detached, the nested module is a tree of its own.
        # Used once after that move (with no run in progress), they know.
        inner.operation.detach_from_parent()
        # CHECK: 1 True
        print(len(block.operations), arg.owner == block)
        # CHECK: free: (1, 'i32')
        # CHECK: held: ('RuntimeError: cannot access this IR', 'RuntimeError: cannot access this IR')
        # CHECK: tracking: []
        check_run_guard(block, arg, inner, module)


# CHECK-LABEL: TEST: testBlockLeavesWithItsNewParent
@run
def testBlockLeavesWithItsNewParent():
    # The block's new parent leaves the tree the objects were reached
    # through: they follow it (and keep its IR alive).
    with Context() as ctx, Location.unknown():
        ctx.allow_unregistered_dialects = True
        module, inner, src, dst = moved_block_ir()
        holder = Module.create()
        with InsertionPoint(holder.body):
            target = Operation.create("test.target", regions=1)
        module.body.append(holder.operation)
        block = src.regions[0].blocks[0]
        arg = block.arguments[0]
        untouched = src.regions[0].blocks[0]
        block.append_to(target.regions[0])
        holder.operation.detach_from_parent()
        # Used with no run in progress: they find the block's tree.
        # CHECK: True 1 i32
        print(block.owner == target, len(block.operations), arg.type)
        # CHECK: free: (1, 'i32')
        # CHECK: held: ('RuntimeError: cannot access this IR', 'RuntimeError: cannot access this IR')
        # CHECK: tracking: []
        check_run_guard(block, arg, module, holder)
        # An object not used since the block left its tree cannot know,
        # while a run is in progress, whether the run holds the block:
        # refused, without reading any IR (a clear error).
        other = Module.parse("func.func @g() { return }")
        # CHECK: RuntimeError: cannot use this block or value now: its IR moved between trees since it was last used
        print(during_run(other, lambda: len(untouched.operations)))
        # CHECK: 1 True
        print(len(untouched.operations), untouched.owner == target)
        # The objects keep the tree the block is in alive.
        holder = target = None
        gc.collect()
        # CHECK: True test.target
        print(block.is_valid, block.owner.name)
        # CHECK: "test.use"(%arg0) : (i32) -> ()
        print(str(block).strip().splitlines()[-1].strip())
        # CHECK: []
        print(ctx._verify_tracking())


# CHECK-LABEL: TEST: testBlockOfErasedParent
@run
def testBlockOfErasedParent():
    with Context() as ctx, Location.unknown():
        ctx.allow_unregistered_dialects = True
        module, inner, src, dst = moved_block_ir()
        block = src.regions[0].blocks[0]
        arg = block.arguments[0]
        block.append_to(dst.regions[0])
        src.erase()
        other = Module.parse("func.func @g() { return }")
        # The op they were reached through is gone; the block lives on.
        # CHECK: erased True 1 i32
        print(src.handle_state, block.is_valid, len(block.operations), arg.type)
        # CHECK: free: (1, 'i32')
        # CHECK: held: ('RuntimeError: cannot access this IR', 'RuntimeError: cannot access this IR')
        # CHECK: tracking: []
        check_run_guard(block, arg, other, module)
        # The block's own parent erased: the objects raise, never read it.
        dst.erase()
        # CHECK: False False
        print(block.is_valid, arg.is_valid)
        for fn in (lambda: block.operations, lambda: arg.type):
            try:
                fn()
            except RuntimeError as e:
                # CHECK: InvalidatedHandleError: {{.*}}erased
                # CHECK: InvalidatedHandleError: {{.*}}erased
                print(type(e).__name__ + ":", e)


# CHECK-LABEL: TEST: testBlockMovedTwice
@run
def testBlockMovedTwice():
    with Context() as ctx, Location.unknown():
        ctx.allow_unregistered_dialects = True
        module, inner, src, dst = moved_block_ir()
        with InsertionPoint(inner.body):
            dst2 = Operation.create("test.dst2", regions=1)
        block = src.regions[0].blocks[0]
        arg = block.arguments[0]
        block.append_to(dst.regions[0])
        via_dst = dst.regions[0].blocks[0]
        block.append_to(dst2.regions[0])
        # CHECK: True True True 1
        print(block.owner == dst2, via_dst.owner == dst2, via_dst == block,
              len(via_dst.operations))
        # The second destination leaves with the nested module.
        inner.operation.detach_from_parent()
        # CHECK: True True i32
        print(block.owner == dst2, via_dst.owner == dst2, arg.type)
        # CHECK: free: (1, 'i32')
        # CHECK: held: ('RuntimeError: cannot access this IR', 'RuntimeError: cannot access this IR')
        # CHECK: tracking: []
        check_run_guard(block, arg, module, inner)
        # CHECK: free: (1, 'i32')
        # CHECK: held: ('RuntimeError: cannot access this IR', 'RuntimeError: cannot access this IR')
        # CHECK: tracking: []
        check_run_guard(via_dst, arg, module, inner)


# CHECK-LABEL: TEST: testSuccessorViews
@run
def testSuccessorViews():
    with Context():
        module = Module.parse(CFG)
        fn = module.body.operations[0]
        b0, b1, b2 = fn.regions[0].blocks
        # CHECK: BlockSuccessors 2 True True 1
        s = b0.successors
        print(type(s).__name__, len(s), s[0] == b1, s[-1] == b2, len(s[1:]))
        # CHECK: BlockPredecessors 2 True 0
        p = b2.predecessors
        print(type(p).__name__, len(p), set(p) == {b0, b1}, len(b0.predecessors))
        # CHECK: <mlir_tracking.ir.BlockSuccessors of <mlir_tracking.ir.Block
        print(repr(s))
        br = b0.operations[0]
        # CHECK: OpSuccessors 2 True
        print(type(br.successors).__name__, len(br.successors), br.successors[1] == b2)
        # Assignment, through the view.
        b1br = b1.operations[0]
        b1br.successors[0] = b2
        # CHECK: cf.br ^bb2
        print(b1br)
        try:
            br.successors[5] = b2
        except IndexError as e:
            # CHECK: IndexError
            print("IndexError")
        other = Module.parse("func.func @g() { cf.br ^bb1\n ^bb1:\n return }")
        try:
            b1br.successors[0] = other.body.operations[0].regions[0].blocks[1]
        except ValueError as e:
            # CHECK: ValueError: a successor must be a block of the region that holds the operation
            print("ValueError:", e)


# CHECK-LABEL: TEST: testOperandsAreDowncast
@run
def testOperandsAreDowncast():
    with Context():
        module = Module.parse(CFG)
        fn = module.body.operations[0]
        ret = fn.regions[0].blocks[2].operations[0]
        operand = ret.operands[0]
        # As MLIR 22's bindings: an operand is an OpResult or a BlockArgument.
        # CHECK: BlockArgument True True True
        print(type(operand).__name__, isinstance(operand, BlockArgument),
              BlockArgument.isinstance(operand), operand == fn.regions[0].blocks[0].arguments[0])
        # CHECK: BlockArgument 0
        print(type(BlockArgument(operand)).__name__, BlockArgument(operand).arg_number)
        # The caster receives the downcast value, as for block arguments.
        seen = []

        @register_value_caster(IntegerType.static_typeid, replace=True)
        def cast(v):
            seen.append(type(v).__name__)
            return v

        ret.operands[0]
        fn.regions[0].blocks[0].arguments[0]
        # CHECK: ['BlockArgument', 'BlockArgument']
        print(seen)


# CHECK-LABEL: TEST: testClearLiveOperations
@run
def testClearLiveOperations():
    ctx = Context()
    module = Module.parse(r"""func.func private @f()""", ctx)
    op1 = module.body.operations[0].operation
    # CHECK: 2 2 0
    print(ctx._get_live_operation_count(), ctx._clear_live_operations(),
          ctx._get_live_operation_count())
    op2 = module.body.operations[0].operation
    # A new object, the same handle; the old one still works.
    # CHECK: False True func.func private @f()
    print(op1 is op2, op1 == op2, str(op1).strip())
    # CHECK: 1
    print(ctx._get_live_operation_count())
    op1 = None
    gc.collect()
    # Dropping the old object leaves the new one registered.
    # CHECK: 1 True
    print(ctx._get_live_operation_count(), module.body.operations[0].operation is op2)


# CHECK-LABEL: TEST: testAsmStateContexts
@run
def testAsmStateContexts():
    with Context():
        m1 = Module.parse("func.func @f(%a: i32) { return }")
    with Context():
        m2 = Module.parse("func.func @g(%b: i32) { return }")
    state = AsmState(m1.operation)
    arg = m2.body.operations[0].regions[0].blocks[0].arguments[0]
    try:
        arg.get_name(state)
    except ValueError as e:
        # CHECK: ValueError: cannot use a value of context #{{[0-9]+}} with IR of context #{{[0-9]+}}
        print("ValueError:", e)
    try:
        m2.body.operations[0].print(state)
    except ValueError as e:
        # CHECK: ValueError: cannot use an operation of context
        print("ValueError:", str(e)[:45])
    # CHECK: %arg0
    print(m1.body.operations[0].regions[0].blocks[0].arguments[0].get_name(state))


# CHECK-LABEL: TEST: testLazyDialectImport
@run
def testLazyDialectImport():
    # In a fresh interpreter: returning an op of a dialect whose module was
    # never imported gives its registered class (the module is imported).
    code = (
        "import sys\n"
        "from mlir_tracking import ir\n"
        "with ir.Context():\n"
        "    m = ir.Module.parse('func.func @f() { %c = arith.constant 1 : i32\\n return }')\n"
        "    print('before', 'mlir_tracking.dialects.arith' in sys.modules)\n"
        "    ops = m.body.operations[0].regions[0].blocks[0].operations\n"
        "    print(type(m.body.operations[0]).__name__, [type(o).__name__ for o in ops])\n"
        "    print('after', 'mlir_tracking.dialects.arith' in sys.modules)\n"
        "    t = ir.Type.parse('!transform.op<\"foo.bar\">')\n"
        "    print('transform' in sys.modules.get('mlir_tracking.dialects.transform', sys).__name__, repr(t))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    # CHECK: before False
    # CHECK: FuncOp ['ConstantOp', 'ReturnOp']
    # CHECK: after True
    # CHECK: True OperationType(!transform.op<"foo.bar">)
    print(out.stdout.strip())
    print(out.stderr.strip())
    # Ops of a dialect without a module stay plain OpViews.
    with Context() as ctx:
        ctx.allow_unregistered_dialects = True
        m = Module.parse('"nodialect.op"() : () -> ()')
        # CHECK: OpView
        print(type(m.body.operations[0]).__name__)


# CHECK-LABEL: TEST: testUpstreamMessagesAndPaths
@run
def testUpstreamMessagesAndPaths():
    import os
    import tempfile

    from mlir_tracking.dialects import shape

    with Context() as ctx, Location.unknown():
        ctx.allow_unregistered_dialects = True
        m = Module.parse('"custom.none"() : () -> ()\n%0:2 = "custom.two"() : () -> (i1, i1)')
        for op in m.body.operations:
            try:
                op.result
            except ValueError as e:
                # CHECK: Cannot call .result on operation custom.none which has 0 results
                # CHECK: Cannot call .result on operation custom.two which has 2 results
                print(e)
        for bad in (lambda: m.body.operations[5], lambda: m.operation.regions[0].blocks[3],
                    lambda: m.operation.regions[4]):
            try:
                bad()
            except IndexError as e:
                # CHECK: attempt to access out of bounds operation
                # CHECK: attempt to access out of bounds block
                # CHECK: index out of range
                print(e)
        op = m.body.operations[0].detach_from_parent()
        try:
            op.detach_from_parent()
        except ValueError as e:
            # CHECK: Detached operation has no parent.
            print(e)
        # write_bytecode takes a path, as upstream.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.mlirbc")
            m.operation.write_bytecode(path)
            with open(path, "rb") as f:
                data = f.read()
            # CHECK: True True
            print(data.startswith(b"ML\xefR"), "custom.two" in str(Module.parse(data)))
        # shape's IndexElementsAttr builder.
        c = shape.const_shape([1, 2, 3])
        # CHECK: shape.const_shape [1, 2, 3] : tensor<3xindex>
        print(c.owner)
