// Ops with regions: the ops nested in a duplicate that cse removes, or in a
// dead op it erases, go with it, and their handles say so ("in an op removed
// by cse"), not "dead code" (which only the dead op itself is).
// RUN: tracking-opt %s --cse --track-ops=all --debug-tracking 2>&1 >/dev/null | FileCheck %s
// RUN: tracking-opt %s --cse --track-ops=all > %t.ours
// RUN: %mlir_opt %s --cse > %t.upstream
// RUN: diff %t.ours %t.upstream

// CHECK: scf.if at loc({{.*}}:[[@LINE+20]]:8): replaced by scf.if at loc({{.*}}:[[@LINE+13]]:8) (duplicate removed by cse)
// CHECK: scf.yield at loc({{.*}}:[[@LINE+24]]:5): erased (in an op removed by cse)
// CHECK: arith.muli at loc({{.*}}:[[@LINE+22]]:10): erased (in an op removed by cse)
// CHECK: scf.yield at loc({{.*}}:[[@LINE+19]]:5): erased (in an op removed by cse)
// CHECK: arith.addi at loc({{.*}}:[[@LINE+17]]:10): erased (in an op removed by cse)
// CHECK: scf.yield at loc({{.*}}:[[@LINE+26]]:5): erased (in an op removed by cse)
// CHECK: scf.yield at loc({{.*}}:[[@LINE+23]]:5): erased (in an op removed by cse)
// CHECK: arith.subi at loc({{.*}}:[[@LINE+21]]:10): erased (in an op removed by cse)
// CHECK: scf.if at loc({{.*}}:[[@LINE+19]]:11): erased (dead code removed by cse)
// CHECK: arith.addi at loc({{.*}}:[[@LINE+24]]:13): erased (dead code removed by cse)
// CHECK-NOT: removed by cse
// CHECK: summary
func.func @f(%c: i1, %a: i32, %b: i32) -> (i32, i32) {
  %0 = scf.if %c -> i32 {
    %x = arith.addi %a, %b : i32
    scf.yield %x : i32
  } else {
    %y = arith.muli %a, %b : i32
    scf.yield %y : i32
  }
  %1 = scf.if %c -> i32 {
    %x = arith.addi %a, %b : i32
    scf.yield %x : i32
  } else {
    %y = arith.muli %a, %b : i32
    scf.yield %y : i32
  }
  %dead = scf.if %c -> i32 {
    %x = arith.subi %a, %b : i32
    scf.yield %x : i32
  } else {
    scf.yield %a : i32
  }
  %unused = arith.addi %a, %a : i32
  return %0, %1 : i32, i32
}
