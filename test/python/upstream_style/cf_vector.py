# RUN: %PYTHON %s | FileCheck %s
# Upstream-style program (imports renamed from `mlir`): a CFG with cf branches
# and block arguments built block by block, and vector ops; blocks'
# successors and predecessors inspected.

from mlir_tracking.ir import *
from mlir_tracking.dialects import arith, cf, func, vector
from mlir_tracking.passmanager import PassManager


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


# CHECK-LABEL: TEST: testBranches
@run
def testBranches():
    with Context(), Location.unknown():
        module = Module.create()
        i32 = IntegerType.get_signless(32)
        i1 = IntegerType.get_signless(1)
        with InsertionPoint(module.body):
            fn = func.FuncOp("abs", ([i32], [i32]))
            entry = fn.add_entry_block()
            neg = entry.create_after(i32)
            exit = neg.create_after(i32, arg_locs=[Location.name("result")])
            with InsertionPoint(entry):
                x = entry.arguments[0]
                zero = arith.constant(i32, 0)
                is_neg = arith.cmpi(arith.CmpIPredicate.slt, x, zero)
                cf.CondBranchOp(is_neg, [x], [x], neg, exit)
            with InsertionPoint(neg):
                cf.BranchOp([arith.subi(zero, neg.arguments[0])], exit)
            with InsertionPoint(exit):
                func.ReturnOp([exit.arguments[0]])

        # CHECK: func.func @abs(%[[X:.*]]: i32) -> i32 {
        # CHECK:   cf.cond_br %{{.*}}, ^bb1(%[[X]] : i32), ^bb2(%[[X]] : i32)
        # CHECK: ^bb1(%[[N:.*]]: i32):
        # CHECK:   cf.br ^bb2(%{{.*}} : i32)
        # CHECK: ^bb2(%[[R:.*]]: i32 loc("result")):
        # CHECK:   return %[[R]] : i32
        print(module.operation.get_asm(enable_debug_info=False))
        module.operation.print(enable_debug_info=True)
        assert module.operation.verify()

        # CHECK: successors 2 [1, 2] 1
        blocks = list(fn.body.blocks)
        succ = entry.successors
        print("successors", len(succ), [blocks.index(b) for b in succ], len(succ[1:]))
        # CHECK: predecessors of exit 2 True
        preds = exit.predecessors
        print("predecessors of exit", len(preds), set(blocks.index(b) for b in preds) == {0, 1})
        cond_br = entry.operations[-1]
        # CHECK: CondBranchOp 2 1 1 True
        print(type(cond_br).__name__, len(cond_br.successors), len(cond_br.trueDestOperands),
              len(cond_br.falseDestOperands), cond_br.successors[0] == neg)
        # CHECK: BlockArgument 0 True
        arg = exit.arguments[0]
        print(type(arg).__name__, arg.arg_number, arg.owner == exit)
        # Operands are downcast, as upstream's (MLIR 22) are.
        # CHECK: BlockArgument BlockArgument True
        op0 = cond_br.operands[1]
        print(type(op0).__name__, type(BlockArgument(op0)).__name__, BlockArgument.isinstance(op0))

        # canonicalize runs on the CFG; the handles of the function, the
        # blocks and the branch follow.
        PassManager.parse("builtin.module(canonicalize)").run(module.operation)
        # CHECK: live True True live
        print(fn.operation.handle_state, exit.is_valid, arg.is_valid,
              cond_br.operation.handle_state)
        # CHECK: func.func @abs
        # CHECK: cf.cond_br
        print(fn)


# CHECK-LABEL: TEST: testVectorOps
@run
def testVectorOps():
    with Context(), Location.unknown():
        module = Module.create()
        f32 = F32Type.get()
        v4 = VectorType.get([4], f32)
        index = IndexType.get()
        mem = MemRefType.get([16], f32)
        with InsertionPoint(module.body):

            @func.FuncOp.from_py_func(mem, index)
            def scaled_sum(m, i):
                pad = arith.constant(f32, 0.0)
                two = arith.constant(f32, 2.0)
                vec = vector.transfer_read(
                    v4, m, [i], AffineMapAttr.get(AffineMap.get_identity(1)), pad,
                    in_bounds=[True])
                splat = vector.broadcast(v4, two)
                prod = arith.mulf(vec, splat)
                return vector.reduction(f32, vector.CombiningKind.ADD, prod)

        # CHECK: %[[READ:.*]] = vector.transfer_read %arg0[%arg1], %{{.*}} {in_bounds = [true]} : memref<16xf32>, vector<4xf32>
        # CHECK: %[[B:.*]] = vector.broadcast %{{.*}} : f32 to vector<4xf32>
        # CHECK: %[[P:.*]] = arith.mulf %[[READ]], %[[B]] : vector<4xf32>
        # CHECK: vector.reduction <add>, %[[P]] : vector<4xf32> into f32
        print(module)
        assert module.operation.verify()
        vt = VectorType(v4)
        # CHECK: vector<4xf32> [4] f32 False
        print(vt, vt.shape, vt.element_type, vt.scalable)
        sv = VectorType.get([2, 8], f32, scalable=[False, True])
        # CHECK: vector<2x[8]xf32> True [False, True]
        print(sv, sv.scalable, sv.scalable_dims)
        red = scaled_sum.func_op.entry_block.operations[-2]
        # CHECK: ReductionOp #vector.kind<add>
        print(type(red).__name__, red.kind)
