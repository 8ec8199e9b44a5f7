# RUN: %PYTHON %tracking_src/examples/build_with_dialects.py | FileCheck %s
# The dialect-builder example keeps working: the IR it builds, the classes
# the API returns, and what the handles report after each pipeline.

# CHECK: == built with the dialect builders
# CHECK: func.func @saxpy(%arg0: f32, %arg1: f32, %arg2: memref<?xf32>, %arg3: memref<?xf32>) {
# CHECK:   scf.for %arg4 = %c0 to %dim step %c1 {
# CHECK:     memref.store %6, %arg3[%arg4] : memref<?xf32>
# CHECK: ops of the entry block: ['ConstantOp', 'ConstantOp', 'DimOp', 'ConstantOp', 'ForOp', 'ReturnOp']
# CHECK: == canonicalize,cse (precise: handles follow their ops)
# CHECK:   func             FuncOp   live
# CHECK:   scf.for          ForOp    live
# CHECK:   b * 1.0          MulFOp   erased
# CHECK-NEXT: canonicalize on builtin.module: arith.mulf at loc(unknown): erased (folded)
# CHECK:   a * x[i] again   MulFOp   live  -> %2 = arith.mulf %arg0, %0 : f32
# CHECK:   store            StoreOp  live
# CHECK: == func.func(loop-invariant-code-motion) (not precise)
# CHECK:   scf.for          ForOp    invalidated
# CHECK: == using a stale handle
# CHECK:   InvalidatedHandleError: operation handle to 'memref.store' at loc(unknown) is invalidated
# CHECK: == the IR after both pipelines
# CHECK:       %3 = arith.mulf %1, %arg1 : f32
