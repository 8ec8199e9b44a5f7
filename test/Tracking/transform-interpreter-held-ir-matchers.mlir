// A run that holds less than a whole IR tree (`func.func(...)`) puts a
// `transform.tracking.check_held` before every transform op that reads the
// payload, the match ops of matchers included; foreach_match and
// collect_matching refuse matchers holding ops that are not match ops, so
// every script with one failed ("expected operations in the match part to
// implement MatchOpInterface") where upstream's pass runs it. The check is
// a match op now.
// RUN: tracking-opt %s --pass-pipeline="builtin.module(transform-preload-library{transform-library-paths=%p/Inputs/matching-sequence.mlir},func.func(tracked-transform-interpreter))" --track-ops=arith.addi > %t.ours
// RUN: %mlir_opt %s --pass-pipeline="builtin.module(transform-preload-library{transform-library-paths=%p/Inputs/matching-sequence.mlir},func.func(transform-interpreter))" > %t.upstream
// RUN: diff %t.ours %t.upstream
// RUN: FileCheck %s < %t.ours

// CHECK-LABEL: func.func @f
// CHECK: arith.addi {{.*}} {collected, done, seen}
// CHECK-LABEL: func.func @g
// CHECK: arith.addi {{.*}} {collected, done, seen}
// CHECK: arith.addi {{.*}} {collected, done, seen}
func.func @f(%x: i32) -> i32 {
  %0 = arith.addi %x, %x : i32
  return %0 : i32
}
func.func @g(%x: i32) -> i32 {
  %0 = arith.addi %x, %x : i32
  %1 = arith.addi %0, %x : i32
  return %1 : i32
}
