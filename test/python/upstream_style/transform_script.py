# RUN: %PYTHON %s | FileCheck %s
# Upstream-style program (imports renamed from `mlir`): a payload built with
# the linalg builders, a transform script built with the transform builders
# (match, tile, apply_patterns), run with the interpreter; the payload
# handles held in Python follow the transformation.

from mlir_tracking.ir import *
from mlir_tracking.dialects import arith, func, linalg, tensor, transform
from mlir_tracking.dialects.transform import interpreter, structured


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


# CHECK-LABEL: TEST: testTileMatmulWithScript
@run
def testTileMatmulWithScript():
    with Context(), Location.unknown():
        f32 = F32Type.get()
        payload = Module.create()
        with InsertionPoint(payload.body):

            @func.FuncOp.from_py_func(
                RankedTensorType.get((8, 16), f32),
                RankedTensorType.get((16, 32), f32),
            )
            def mm(a, b):
                zero = arith.constant(f32, 0.0)
                init = tensor.empty([8, 32], f32)
                acc = linalg.fill(zero, outs=[init])
                return linalg.matmul(a, b, outs=[acc])

        matmul = mm.func_op.entry_block.operations[3]
        fn = mm.func_op

        script = Module.create()
        script.operation.attributes["transform.with_named_sequence"] = UnitAttr.get()
        any_op = transform.AnyOpType.get()
        with InsertionPoint(script.body):
            seq = transform.NamedSequenceOp(
                "__transform_main", [any_op], [],
                arg_attrs=[{"transform.readonly": UnitAttr.get()}])
            with InsertionPoint(seq.body):
                matched = structured.MatchOp.match_op_names(
                    seq.bodyTarget, ["linalg.matmul"])
                tiled = structured.TileUsingForOp(matched, sizes=[4, 8])
                funcs = structured.MatchOp.match_op_names(seq.bodyTarget, ["func.func"])
                with InsertionPoint(transform.ApplyPatternsOp(funcs).patterns):
                    transform.ApplyCanonicalizationPatternsOp()
                transform.YieldOp([])

        # CHECK: transform.named_sequence @__transform_main(%[[ROOT:.*]]: !transform.any_op {transform.readonly}) {
        # CHECK:   %[[M:.*]] = transform.structured.match ops{["linalg.matmul"]} in %[[ROOT]] : (!transform.any_op) -> !transform.any_op
        # CHECK:   transform.structured.tile_using_for %[[M]] tile_sizes [4, 8]
        # CHECK:   transform.apply_patterns to %{{.*}} {
        # CHECK:     transform.apply_patterns.canonicalization
        # CHECK:   transform.yield
        print(script)
        assert script.operation.verify()

        interpreter.apply_named_sequence(payload.operation, seq, script.operation)
        # CHECK: func.func @mm
        # CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
        # CHECK:   scf.for
        # CHECK:     tensor.extract_slice
        # CHECK:     linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<16x8xf32>) outs(%{{.*}} : tensor<4x8xf32>) -> tensor<4x8xf32>
        print(payload)
        assert payload.operation.verify()
        # The function holding the payload stays live; the matmul was
        # replaced by the tiled loop nest (the interpreter's tracking).
        # CHECK: func live matmul erased
        print("func", fn.operation.handle_state, "matmul", matmul.operation.handle_state)
        # CHECK: loops: 2
        loops = []
        fn.operation.walk(lambda op: loops.append(op) if op.name == "scf.for" else None)
        print("loops:", len(loops))
