# RUN: %PYTHON %s | FileCheck %s
# Upstream-style program (imports renamed from `mlir`): a matmul with a bias
# built with the linalg and tensor builders in a function from
# func.FuncOp.from_py_func, then bufferized-free lowering to loops.

from mlir_tracking.ir import *
from mlir_tracking.dialects import arith, func, linalg, tensor
from mlir_tracking.passmanager import PassManager


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


# CHECK-LABEL: TEST: testMatmulBias
@run
def testMatmulBias():
    with Context(), Location.unknown():
        module = Module.create()
        f32 = F32Type.get()
        with InsertionPoint(module.body):

            @func.FuncOp.from_py_func(
                RankedTensorType.get((4, 8), f32),
                RankedTensorType.get((8, 16), f32),
                RankedTensorType.get((4, 16), f32),
            )
            def matmul_bias(lhs, rhs, bias):
                zero = arith.ConstantOp(f32, 0.0)
                init = tensor.EmptyOp([4, 16], f32)
                filled = linalg.fill(zero, outs=[init])
                prod = linalg.matmul(lhs, rhs, outs=[filled])
                return linalg.add(prod, bias, outs=[init])

        # CHECK: func.func @matmul_bias(%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x16xf32>, %[[C:.*]]: tensor<4x16xf32>) -> tensor<4x16xf32>
        # CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
        # CHECK: %[[INIT:.*]] = tensor.empty() : tensor<4x16xf32>
        # CHECK: %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[INIT]] : tensor<4x16xf32>) -> tensor<4x16xf32>
        # CHECK: %[[MM:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<8x16xf32>) outs(%[[FILL]] : tensor<4x16xf32>) -> tensor<4x16xf32>
        # CHECK: %[[ADD:.*]] = linalg.add ins(%[[MM]], %[[C]] : tensor<4x16xf32>, tensor<4x16xf32>) outs(%[[INIT]] : tensor<4x16xf32>) -> tensor<4x16xf32>
        # CHECK: return %[[ADD]] : tensor<4x16xf32>
        print(module)
        assert module.operation.verify()

        fn = module.body.operations[0]
        # CHECK: FuncOp matmul_bias (tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
        print(type(fn).__name__, fn.name.value, fn.type)
        # CHECK: ['ConstantOp', 'EmptyOp', 'FillOp', 'MatmulOp', 'AddOp', 'ReturnOp']
        print([type(op).__name__ for op in fn.entry_block.operations])
        matmul = fn.entry_block.operations[3]
        # CHECK: inputs 2 outputs 1 result tensor<4x16xf32>
        print("inputs", len(matmul.inputs), "outputs", len(matmul.outputs),
              "result", matmul.result.type)
        # CHECK: True True
        print(matmul.inputs[0] == fn.arguments[0], isinstance(matmul.result.type, RankedTensorType))
        shaped = ShapedType(matmul.result.type)
        # CHECK: shape [4, 16] rank 2 static True element f32
        print("shape", shaped.shape, "rank", shaped.rank, "static", shaped.has_static_shape,
              "element", shaped.element_type)


# CHECK-LABEL: TEST: testGenericElementwise
@run
def testGenericElementwise():
    with Context(), Location.unknown():
        module = Module.create()
        f32 = F32Type.get()
        t = RankedTensorType.get((ShapedType.get_dynamic_size(), 32), f32)
        with InsertionPoint(module.body):

            @func.FuncOp.from_py_func(t, t)
            def relu_sum(x, y):
                c0 = arith.ConstantOp.create_index(0)
                dim = tensor.DimOp(x, c0)
                init = tensor.EmptyOp([dim, 32], f32)
                identity = AffineMap.get_identity(2)
                parallel = Attribute.parse("#linalg.iterator_type<parallel>")
                op = linalg.GenericOp(
                    [t], [x, y], [init],
                    ArrayAttr.get([AffineMapAttr.get(identity)] * 3),
                    ArrayAttr.get([parallel, parallel]),
                )
                block = op.regions[0].blocks.append(f32, f32, f32)
                with InsertionPoint(block):
                    s = arith.addf(block.arguments[0], block.arguments[1])
                    zero = arith.constant(f32, 0.0)
                    linalg.YieldOp([arith.maximumf(s, zero)])
                return op.result

        # CHECK: func.func @relu_sum(%[[X:.*]]: tensor<?x32xf32>, %[[Y:.*]]: tensor<?x32xf32>) -> tensor<?x32xf32>
        # CHECK: %[[DIM:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x32xf32>
        # CHECK: tensor.empty(%[[DIM]]) : tensor<?x32xf32>
        # CHECK: linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
        # CHECK: ^bb0(%[[IN:.*]]: f32, %[[IN1:.*]]: f32, %[[OUT:.*]]: f32):
        # CHECK: arith.maximumf
        # CHECK: linalg.yield
        print(module)
        assert module.operation.verify()

        generic = module.body.operations[0].entry_block.operations[3]
        # CHECK: GenericOp 2 1 ['parallel', 'parallel']
        print(type(generic).__name__, len(generic.inputs), len(generic.outputs),
              [str(a).split("<")[1].rstrip(">") for a in generic.iterator_types])
        maps = [AffineMapAttr(a).value for a in generic.indexing_maps]
        # CHECK: (d0, d1) -> (d0, d1) 2 2 True
        print(maps[0], maps[0].n_dims, len(maps[0].results), maps[0].is_permutation)

        # Lower to loops. one-shot-bufferize runs on the module and is not
        # precise: the handles nested in the module are invalidated.
        fn = module.body.operations[0]
        pm = PassManager.parse(
            "builtin.module(one-shot-bufferize{bufferize-function-boundaries},"
            "func.func(convert-linalg-to-loops))")
        pm.run(module.operation)
        # CHECK: invalidated
        print(fn.operation.handle_state)
        # CHECK: scf.for
        # CHECK: scf.for
        # CHECK: memref.load
        # CHECK: arith.maximumf
        # CHECK: memref.store
        print(module)
