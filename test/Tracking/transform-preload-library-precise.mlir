// transform-preload-library only parses a library into the context: it is
// precise (it never touches the payload), so the handles survive it and
// func.func(tracked-transform-interpreter), which takes its entry from the
// preloaded library, keeps them precise: the canonicalization erases the
// folded ops, the others stay live, nothing is invalidated.
// RUN: tracking-opt %s --pass-pipeline="builtin.module(transform-preload-library{transform-library-paths=%p/Inputs/canonicalize-sequence.mlir},func.func(tracked-transform-interpreter))" --track-ops=all --debug-tracking 2>&1 >/dev/null | FileCheck %s
// RUN: tracking-opt %s --pass-pipeline="builtin.module(transform-preload-library{transform-library-paths=%p/Inputs/canonicalize-sequence.mlir},func.func(tracked-transform-interpreter))" --track-ops=all > %t.ours
// RUN: %mlir_opt %s --pass-pipeline="builtin.module(transform-preload-library{transform-library-paths=%p/Inputs/canonicalize-sequence.mlir},func.func(transform-interpreter))" > %t.upstream
// RUN: diff %t.ours %t.upstream

// CHECK: tracking: tracking 11 ops
// CHECK-NOT: tracking: transform-preload-library on
// CHECK-NOT: invalidated (
// CHECK-DAG: tracked-transform-interpreter on func.func @f: arith.addi at loc({{.*}}:[[@LINE+8]]:8): erased
// CHECK-DAG: tracked-transform-interpreter on func.func @g: arith.addi at loc({{.*}}:[[@LINE+14]]:8): erased
// CHECK-NOT: invalidated (
// CHECK: tracking: summary: 11 tracked ops: 5 live, 6 erased, 0 invalidated

func.func @f(%a: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %x = arith.addi %a, %c1 : i32
  %y = arith.addi %x, %c2 : i32
  return %y : i32
}

func.func @g(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %x = arith.addi %a, %c0 : i32
  return %x : i32
}
