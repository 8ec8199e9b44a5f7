// The tracked interpreter nested under func.func holds its function only: a
// script that changes IR outside it (here @k, in a module the function
// pipeline never anchors) fails before it does. Upstream's pass changes it,
// while other threads may be rewriting it; the tracked run could not follow
// the handles there (they stayed live on freed ops). Without tracking it is
// upstream's pass.
// RUN: not tracking-opt %s --pass-pipeline="builtin.module(transform-preload-library{transform-library-paths=%p/Inputs/climbing-sequence.mlir},func.func(tracked-transform-interpreter))" --track-ops=all --debug-tracking 2>&1 | FileCheck %s
// RUN: tracking-opt %s --pass-pipeline="builtin.module(transform-preload-library{transform-library-paths=%p/Inputs/climbing-sequence.mlir},func.func(tracked-transform-interpreter))" --mlir-disable-threading > %t.untracked
// RUN: %mlir_opt %s --pass-pipeline="builtin.module(transform-preload-library{transform-library-paths=%p/Inputs/climbing-sequence.mlir},func.func(transform-interpreter))" --mlir-disable-threading > %t.upstream
// RUN: diff %t.untracked %t.upstream

// CHECK: error: 'transform.apply_patterns' would change payload outside the IR the tracked transform interpreter holds (func.func @f): other threads may be rewriting it, and handles there could not follow
// CHECK: note: payload op outside
// CHECK-NOT: arith.addi {{.*}} erased
// CHECK: tracking: summary: 10 tracked ops: 7 live, 0 erased, 3 invalidated
func.func @f(%a: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %x = arith.addi %a, %c1 : i32
  return %x : i32
}
module @inner {
  func.func @k(%a: i32) -> i32 {
    %c0 = arith.constant 0 : i32
    %y = arith.addi %a, %c0 : i32
    return %y : i32
  }
}
