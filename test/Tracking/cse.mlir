// Duplicate expressions: the handle of the removed duplicate follows onto the
// op that is kept, and merges with that op's own handle.
// RUN: tracking-opt %s --cse --track-ops=arith.addi,arith.muli --debug-tracking 2>&1 | FileCheck %s
// RUN: tracking-opt %s --cse --track-ops=all | FileCheck %s --check-prefix=IR

// CHECK: tracking: tracking 3 ops
// CHECK-NEXT: tracking: cse on builtin.module: arith.addi at loc({{.*}}cse.mlir":[[@LINE+9]]:8): replaced by arith.addi at loc({{.*}}cse.mlir":[[@LINE+8]]:8) (duplicate removed by cse); merged with the handle that already referred to it
// CHECK-NEXT: tracking: summary: 3 tracked ops: 3 live, 0 erased, 0 invalidated

// IR-LABEL: func.func @dup
// IR: %[[SUM:.*]] = arith.addi %arg0, %arg1 : i32
// IR-NOT: arith.addi
// IR: arith.muli %[[SUM]], %[[SUM]] : i32
func.func @dup(%arg0: i32, %arg1: i32) -> i32 {
  %0 = arith.addi %arg0, %arg1 : i32
  %1 = arith.addi %arg0, %arg1 : i32
  %2 = arith.muli %0, %1 : i32
  return %2 : i32
}
