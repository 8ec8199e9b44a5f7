// The tracked interpreter nested under func.func holds its function only: a
// script that reads or changes IR outside it (here it looks for @k, in a
// module the function pipeline never anchors, to canonicalize it) fails
// before it does. Upstream's pass reads and changes it while other threads
// may be rewriting it (reading it crashed there and here); the tracked run
// could not follow the handles out there (they stayed live on freed ops).
// Nor may a script insert into the symbol table around its function
// (transform.loop.outline). Without tracking it is upstream's pass.
// RUN: not tracking-opt %s --pass-pipeline="builtin.module(transform-preload-library{transform-library-paths=%p/Inputs/climbing-sequence.mlir},func.func(tracked-transform-interpreter))" --track-ops=all --debug-tracking 2>&1 | FileCheck %s
// RUN: tracking-opt %s --pass-pipeline="builtin.module(transform-preload-library{transform-library-paths=%p/Inputs/climbing-sequence.mlir},func.func(tracked-transform-interpreter))" --mlir-disable-threading > %t.untracked
// RUN: %mlir_opt %s --pass-pipeline="builtin.module(transform-preload-library{transform-library-paths=%p/Inputs/climbing-sequence.mlir},func.func(transform-interpreter))" --mlir-disable-threading > %t.upstream
// RUN: diff %t.untracked %t.upstream
// RUN: not tracking-opt %s --pass-pipeline="builtin.module(transform-preload-library{transform-library-paths=%p/Inputs/outline-sequence.mlir},func.func(tracked-transform-interpreter))" --track-ops=all --mlir-disable-threading 2>&1 | FileCheck %s --check-prefix=OUTLINE

// OUTLINE: error: 'transform.loop.outline' would read or change payload outside the IR the tracked transform interpreter holds (func.func @loop)
// OUTLINE-NOT: @outlined

// CHECK: error: 'transform.structured.match' would read or change payload outside the IR the tracked transform interpreter holds (func.func @f): other threads may be rewriting it, and handles there could not follow
// CHECK: note: payload op outside
// CHECK-NOT: arith.addi {{.*}} erased
// CHECK: tracking: summary: 14 tracked ops: 8 live, 0 erased, 6 invalidated
func.func @f(%a: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %x = arith.addi %a, %c1 : i32
  return %x : i32
}
func.func @loop(%lb: index, %ub: index, %st: index) {
  scf.for %i = %lb to %ub step %st {
  }
  return
}
module @inner {
  func.func @k(%a: i32) -> i32 {
    %c0 = arith.constant 0 : i32
    %y = arith.addi %a, %c0 : i32
    return %y : i32
  }
}
