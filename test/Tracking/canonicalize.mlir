// RUN: tracking-opt %s --canonicalize --track-ops=all --debug-tracking 2>&1 | FileCheck %s

// CHECK: tracking: tracking 9 ops
// CHECK-DAG: tracking: canonicalize on builtin.module: arith.addi at loc({{.*}}:[[@LINE+7]]:{{[0-9]+}}): replaced by arith.constant at {{.*}} (folded)
// CHECK-DAG: tracking: canonicalize on builtin.module: arith.constant at loc({{.*}}:[[@LINE+5]]:{{[0-9]+}}): erased
// CHECK-DAG: tracking: canonicalize on builtin.module: arith.constant at loc({{.*}}:[[@LINE+3]]:{{[0-9]+}}): erased
// CHECK: tracking: summary: 9 tracked ops: 7 live, 2 erased, 0 invalidated
func.func @f(%arg0: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %0 = arith.addi %c1, %c2 : i32
  %1 = arith.addi %arg0, %0 : i32
  %2 = arith.addi %arg0, %0 : i32
  %3 = arith.muli %1, %2 : i32
  return %3 : i32
}
