// Pattern sets applied through the opt-in tracked drivers: handles follow
// same-name replacements, follow a replacement by another op only when the
// run's TrackingConfig relaxes the name rule, and --debug-tracking names the
// pattern of each change.
// RUN: tracking-opt %s --test-tracking-patterns --debug-tracking 2>&1 >/dev/null | FileCheck %s --check-prefix=GREEDY
// RUN: tracking-opt %s --test-tracking-patterns=require-matching-name=false --debug-tracking 2>&1 >/dev/null | FileCheck %s --check-prefix=RELAXED
// RUN: tracking-opt %s --test-tracking-patterns=driver=walk --debug-tracking 2>&1 >/dev/null | FileCheck %s --check-prefix=WALK
// RUN: tracking-opt %s --test-tracking-patterns --verify-tracking | FileCheck %s --check-prefix=IR

// GREEDY: tracking: tracking 7 ops
// GREEDY-DAG: tracking: test-tracking-patterns on builtin.module: arith.muli at loc({{.*}}:[[@LINE+18]]:8): replaced by arith.muli at loc({{.*}}:[[@LINE+18]]:8) (pattern SwapMulIOperands)
// GREEDY-DAG: tracking: test-tracking-patterns on builtin.module: arith.subi at loc({{.*}}:[[@LINE+16]]:8): erased (pattern SubConstantToAdd); replacement op 'arith.addi' has another name and is not constant-like
// GREEDY-DAG: tracking: test-tracking-patterns on builtin.module: arith.addi at loc({{.*}}:[[@LINE+17]]:11): erased (dead code or region simplification)
// GREEDY: tracking: summary: 7 tracked ops: 4 live, 3 erased, 0 invalidated

// RELAXED-DAG: arith.subi at loc({{.*}}:[[@LINE+12]]:8): replaced by arith.addi at loc({{.*}}:[[@LINE+12]]:8) (pattern SubConstantToAdd)
// RELAXED: tracking: summary: 7 tracked ops: 5 live, 2 erased, 0 invalidated

// The walk driver does not report patterns, nor remove dead code.
// WALK-DAG: arith.muli at loc({{.*}}:[[@LINE+9]]:8): replaced by arith.muli at loc({{.*}}:[[@LINE+9]]:8) (walk pattern driver)
// WALK: tracking: summary: 7 tracked ops: 6 live, 1 erased, 0 invalidated

// IR: %[[C:.*]] = arith.constant -3 : i32
// IR: %[[A:.*]] = arith.addi %arg0, %[[C]] : i32
// IR: arith.muli %arg1, %[[A]] {swapped} : i32
func.func @f(%a: i32, %b: i32) -> i32 {
  %c3 = arith.constant 3 : i32
  %0 = arith.subi %a, %c3 : i32
  %1 = arith.muli %0, %b : i32
  %dead = arith.addi %a, %a : i32
  return %1 : i32
}
