// Ops inlined out of an scf.if with a constant condition keep their handles;
// the scf.if is replaced by a value of another op (so its handle is erased,
// with the reason) and the dead branch is erased.
// RUN: tracking-opt %s --canonicalize --track-ops=arith.muli,arith.addi,scf.if --debug-tracking 2>&1 | FileCheck %s

// CHECK: tracking: tracking 3 ops
// CHECK-NEXT: tracking: canonicalize on builtin.module: scf.if at loc({{.*}}:[[@LINE+8]]:8): erased (pattern RemoveStaticCondition); replacement op 'arith.muli' has another name and is not constant-like
// CHECK-NEXT: tracking: canonicalize on builtin.module: arith.addi at loc({{.*}}:[[@LINE+11]]:10): erased (pattern RemoveStaticCondition)
// CHECK-NEXT: tracking: summary: 3 tracked ops: 1 live, 2 erased, 0 invalidated
// CHECK: %[[M:.*]] = arith.muli %arg0, %arg0
// CHECK-NEXT: return %[[M]]

func.func @f(%arg0: i32) -> i32 {
  %true = arith.constant true
  %0 = scf.if %true -> i32 {
    %1 = arith.muli %arg0, %arg0 : i32
    scf.yield %1 : i32
  } else {
    %2 = arith.addi %arg0, %arg0 : i32
    scf.yield %2 : i32
  }
  return %0 : i32
}
