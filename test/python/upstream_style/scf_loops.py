# RUN: %PYTHON %s | FileCheck %s
# Upstream-style program (imports renamed from `mlir`): loops with scf.for
# (iter_args), scf.if with results and scf.while, built with the dialect
# builders, then canonicalized while the handles follow.

from mlir_tracking.ir import *
from mlir_tracking.dialects import arith, func, scf
from mlir_tracking.passmanager import PassManager


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


# CHECK-LABEL: TEST: testSumOfSquares
@run
def testSumOfSquares():
    with Context(), Location.unknown():
        module = Module.create()
        index = IndexType.get()
        i64 = IntegerType.get_signless(64)
        with InsertionPoint(module.body):

            @func.FuncOp.from_py_func(index)
            def sum_squares(n):
                zero = arith.constant(i64, 0)
                lb = arith.constant(index, 0)
                step = arith.constant(index, 1)
                loop = scf.ForOp(lb, n, step, [zero])
                with InsertionPoint(loop.body):
                    iv = arith.index_cast(i64, loop.induction_variable)
                    sq = arith.muli(iv, iv)
                    acc = arith.addi(loop.inner_iter_args[0], sq)
                    scf.YieldOp([acc])
                return loop.results[0]

        # CHECK: func.func @sum_squares(%[[N:.*]]: index) -> i64
        # CHECK: %[[R:.*]] = scf.for %[[IV:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (i64)
        # CHECK: arith.index_cast %[[IV]] : index to i64
        # CHECK: arith.muli
        # CHECK: arith.addi %[[ACC]],
        # CHECK: scf.yield
        # CHECK: return %[[R]] : i64
        print(module)
        assert module.operation.verify()
        loop = module.body.operations[0].entry_block.operations[3]
        # CHECK: ForOp 1 1 i64
        print(type(loop).__name__, len(loop.results), len(loop.inner_iter_args),
              loop.results[0].type)
        # CHECK: lowerBound BlockArgument? False OpResult? True
        print("lowerBound", "BlockArgument?", BlockArgument.isinstance(loop.lowerBound),
              "OpResult?", OpResult.isinstance(loop.lowerBound))
        # CHECK: iv owner is body: True
        print("iv owner is body:", loop.induction_variable.owner == loop.body)


# CHECK-LABEL: TEST: testIfElseWithResults
@run
def testIfElseWithResults():
    with Context(), Location.unknown():
        module = Module.create()
        i32 = IntegerType.get_signless(32)
        with InsertionPoint(module.body):

            @func.FuncOp.from_py_func(i32, i32)
            def clamp_or_negate(x, limit):
                cond = arith.cmpi(arith.CmpIPredicate.sgt, x, limit)
                if_op = scf.IfOp(cond, [i32], hasElse=True)
                with InsertionPoint(if_op.then_block):
                    scf.YieldOp([limit])
                with InsertionPoint(if_op.else_block):
                    zero = arith.constant(i32, 0)
                    scf.YieldOp([arith.subi(zero, x)])
                return if_op.result

        # CHECK: %[[C:.*]] = arith.cmpi sgt, %arg0, %arg1 : i32
        # CHECK: scf.if %[[C]] -> (i32) {
        # CHECK:   scf.yield %arg1 : i32
        # CHECK: } else {
        # CHECK:   arith.subi
        print(module)
        assert module.operation.verify()
        if_op = module.body.operations[0].entry_block.operations[1]
        cmp = module.body.operations[0].entry_block.operations[0]
        # CHECK: IfOp CmpIOp IntegerAttr(4 : i64) sgt
        print(type(if_op).__name__, type(cmp).__name__, repr(cmp.predicate),
              arith.CmpIPredicate(cmp.predicate.value).name)
        # CHECK: regions 2 then-ops 1 else-ops 3
        print("regions", len(if_op.regions), "then-ops", len(if_op.then_block.operations),
              "else-ops", len(if_op.else_block.operations))


# CHECK-LABEL: TEST: testWhileLoop
@run
def testWhileLoop():
    with Context(), Location.unknown():
        module = Module.create()
        i32 = IntegerType.get_signless(32)
        with InsertionPoint(module.body):

            @func.FuncOp.from_py_func(i32)
            def collatz_steps(start):
                zero = arith.constant(i32, 0)
                w = scf.WhileOp([i32, i32], [start, zero])
                before = w.before.blocks.append(i32, i32)
                with InsertionPoint(before):
                    one = arith.constant(i32, 1)
                    cont = arith.cmpi(arith.CmpIPredicate.ne, before.arguments[0], one)
                    scf.ConditionOp(cont, list(before.arguments))
                after = w.after.blocks.append(i32, i32)
                with InsertionPoint(after):
                    two = arith.constant(i32, 2)
                    half = arith.divsi(after.arguments[0], two)
                    steps = arith.addi(after.arguments[1], arith.constant(i32, 1))
                    scf.YieldOp([half, steps])
                return w.results[1]

        # CHECK: %[[W:.*]]:2 = scf.while (%[[A:.*]] = %arg0, %[[B:.*]] = %{{.*}}) : (i32, i32) -> (i32, i32) {
        # CHECK:   scf.condition(%{{.*}}) %[[A]], %[[B]] : i32, i32
        # CHECK: } do {
        # CHECK: ^bb0(%{{.*}}: i32, %{{.*}}: i32):
        # CHECK:   arith.divsi
        # CHECK: return %[[W]]#1 : i32
        print(module)
        assert module.operation.verify()

        # Canonicalize: the handles of the loop and of its body's ops follow.
        fn = module.body.operations[0]
        w = fn.entry_block.operations[1]
        div = w.after.blocks[0].operations[1]
        PassManager.parse("builtin.module(canonicalize,cse)").run(module.operation)
        # CHECK: WhileOp live DivSIOp live
        print(type(w).__name__, w.operation.handle_state, type(div).__name__,
              div.operation.handle_state)
        # CHECK: %{{.*}} = arith.divsi %{{.*}}, %{{.*}} : i32
        print(div)


# CHECK-LABEL: TEST: testForallAndIndexSwitch
@run
def testForallAndIndexSwitch():
    with Context(), Location.unknown():
        module = Module.create()
        f32 = F32Type.get()
        i32 = IntegerType.get_signless(32)
        index = IndexType.get()
        t = RankedTensorType.get([4, 8], f32)
        with InsertionPoint(module.body):

            @func.FuncOp.from_py_func(t, index)
            def tiles(tensor, n):
                loop = scf.ForallOp([0, 0], [n, 8], [1, 2], [tensor])
                with InsertionPoint(loop.body):
                    i, j = loop.induction_variables
                    arith.addi(i, j)
                    loop.terminator()
                return loop.result

            @func.FuncOp.from_py_func(index, results=[i32])
            def pick(which):
                switch = scf.IndexSwitchOp(
                    [i32], which, range(2),
                    case_body_builder=lambda op, i, case: scf.yield_([arith.constant(i32, 10 * case)]),
                    default_body_builder=lambda op: scf.yield_([arith.constant(i32, -1)]))
                func.return_([switch.results[0]])

        # CHECK: %[[R:.*]] = scf.forall (%[[I:.*]], %[[J:.*]]) = (0, 0) to (%arg1, 8) step (1, 2) shared_outs(%{{.*}} = %arg0) -> (tensor<4x8xf32>) {
        # CHECK:   arith.addi %[[I]], %[[J]] : index
        # CHECK:   scf.forall.in_parallel {
        # CHECK: return %[[R]] : tensor<4x8xf32>
        # CHECK: scf.index_switch %arg0 -> i32
        # CHECK: case 0 {
        # CHECK:   arith.constant 0 : i32
        # CHECK: case 1 {
        # CHECK:   arith.constant 10 : i32
        # CHECK: default {
        # CHECK:   arith.constant -1 : i32
        print(module)
        assert module.operation.verify()
        loop = tiles.func_op.entry_block.operations[0]
        switch = pick.func_op.entry_block.operations[0]
        # CHECK: ForallOp 2 1 IndexSwitchOp 3 2 True
        print(type(loop).__name__, loop.rank, len(loop.inner_iter_args), type(switch).__name__,
              len(switch.regions), len(switch.case_blocks),
              switch.case_region(1) == switch.regions[2])
