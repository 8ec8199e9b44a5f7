// The pass drops the entry's results, as upstream's does: an entry that
// yields a handle it consumed, or a value handle, runs (the C++ and Python
// entry points, which return results, refuse them). Same output as
// upstream's.
// RUN: tracking-opt %s --split-input-file --tracked-transform-interpreter --track-ops=all > %t.ours 2>&1
// RUN: %mlir_opt %s --split-input-file --transform-interpreter > %t.upstream 2>&1
// RUN: diff %t.ours %t.upstream
// RUN: FileCheck %s < %t.ours

// CHECK-LABEL: func.func @f
// CHECK-NEXT: return %arg0
module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %c0 = arith.constant 0 : i32
    %x = arith.addi %a, %c0 : i32
    return %x : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op) -> !transform.any_op {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %f2 = transform.apply_registered_pass "canonicalize" to %f : (!transform.any_op) -> !transform.any_op
    transform.yield %f : !transform.any_op
  }
}

// -----

// CHECK-LABEL: func.func @f
// CHECK: arith.addi {{.*}} {seen}
module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %c0 = arith.constant 0 : i32
    %x = arith.addi %a, %c0 : i32
    return %x : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op) -> !transform.any_value {
    %f = transform.structured.match ops{["arith.addi"]} in %root : (!transform.any_op) -> !transform.any_op
    %v = transform.get_result %f[0] : (!transform.any_op) -> !transform.any_value
    transform.annotate %f "seen" : !transform.any_op
    transform.yield %v : !transform.any_value
  }
}
