// Upstream's --transform-interpreter does not report what it does to the
// payload: it is a non-precise pass and every handle under its anchor is
// invalidated (the anchor survives). The tracked variant follows the transform
// dialect's own tracking instead. Both print what upstream mlir-opt prints.
// RUN: tracking-opt %s --transform-interpreter --track-ops=linalg.matmul,func.func,func.return,builtin.module --debug-tracking 2>&1 >/dev/null | FileCheck %s --check-prefix=UPSTREAM
// RUN: tracking-opt %s --tracked-transform-interpreter --track-ops=linalg.matmul,func.func,func.return,builtin.module --debug-tracking 2>&1 >/dev/null | FileCheck %s --check-prefix=TRACKED
// RUN: tracking-opt %s --tracked-transform-interpreter --track-ops=all > %t.tracked
// RUN: tracking-opt %s --transform-interpreter --track-ops=all > %t.ours
// RUN: %mlir_opt %s --transform-interpreter > %t.upstream
// RUN: diff %t.tracked %t.upstream
// RUN: diff %t.ours %t.upstream

// UPSTREAM: tracking: tracking 6 ops
// UPSTREAM-DAG: tracking: transform-interpreter on builtin.module: linalg.matmul at {{.*}}: invalidated (pass is not precise)
// UPSTREAM-DAG: tracking: transform-interpreter on builtin.module: func.return at {{.*}}: invalidated (pass is not precise)
// UPSTREAM-NOT: builtin.module at {{.*}}: invalidated
// UPSTREAM: tracking: summary: 6 tracked ops: 1 live, 0 erased, 5 invalidated

// TRACKED: tracking: tracking 6 ops
// TRACKED: tracking: tracked-transform-interpreter on builtin.module: linalg.matmul at loc({{.*}}:[[@LINE+10]]:10): erased; erased or replaced by 'transform.structured.tile_using_for', which consumed its handle
// TRACKED-NOT: invalidated
// TRACKED: tracking: summary: 6 tracked ops: 5 live, 1 erased, 0 invalidated

module attributes {transform.with_named_sequence} {
  func.func @outside() {
    return
  }
  func.func @matmul(%A: tensor<8x16xf32>, %B: tensor<16x32xf32>,
                    %C: tensor<8x32xf32>) -> tensor<8x32xf32> {
    %0 = linalg.matmul ins(%A, %B : tensor<8x16xf32>, tensor<16x32xf32>)
                       outs(%C : tensor<8x32xf32>) -> tensor<8x32xf32>
    return %0 : tensor<8x32xf32>
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %tiled, %loops:2 = transform.structured.tile_using_for %mm tile_sizes [4, 8]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
