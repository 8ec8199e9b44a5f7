// Which transform op dropped an op whose handle a consumer consumed: the
// consumer itself ("by"), or a later op ("after": which one is not known).
// Same IR as upstream.
// RUN: tracking-opt %s --split-input-file --tracked-transform-interpreter --track-ops=arith.muli --debug-tracking 2>&1 >/dev/null | FileCheck %s
// RUN: tracking-opt %s --split-input-file --tracked-transform-interpreter --track-ops=arith.muli > %t.ours
// RUN: %mlir_opt %s --split-input-file --transform-interpreter > %t.upstream
// RUN: diff %t.ours %t.upstream

// foreach_match consumes the root and only annotates; the cse after it
// removes the duplicate muli.
// CHECK: arith.muli at loc({{.*}}:[[@LINE+4]]:8): invalidated (inside payload consumed by 'transform.foreach_match')
// CHECK: arith.muli at loc({{.*}}:[[@LINE+4]]:8): erased; erased or replaced after 'transform.foreach_match' consumed its handle
// CHECK: summary: 2 tracked ops: 0 live, 1 erased, 1 invalidated
func.func @f(%a: i32, %b: i32) -> i32 {
  %1 = arith.muli %a, %b : i32
  %2 = arith.muli %a, %b : i32
  %3 = arith.addi %1, %2 : i32
  return %3 : i32
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @match_addi(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["arith.addi"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @annotate(%op: !transform.any_op {transform.readonly}) {
    transform.annotate %op "seen" : !transform.any_op
    transform.yield
  }
  transform.named_sequence @__transform_main(%arg1: !transform.any_op) {
    %r = transform.foreach_match in %arg1 @match_addi -> @annotate : (!transform.any_op) -> !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %r : (!transform.any_op) -> !transform.any_op
    transform.apply_cse to %f : !transform.any_op
    transform.yield
  }
}

// -----

// The consumer is a foreach whose body holds another consumer: the inner
// one (cse through a pass) drops the duplicate.
// CHECK: arith.muli at loc({{.*}}:[[@LINE+4]]:8): invalidated (inside payload consumed by 'transform.foreach')
// CHECK: arith.muli at loc({{.*}}:[[@LINE+4]]:8): erased; erased or replaced by 'transform.foreach', which consumed its handle
// CHECK: summary: 2 tracked ops: 0 live, 1 erased, 1 invalidated
func.func @g(%a: i32, %b: i32) -> i32 {
  %1 = arith.muli %a, %b : i32
  %2 = arith.muli %a, %b : i32
  %3 = arith.addi %1, %2 : i32
  return %3 : i32
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg1: !transform.any_op) {
    %f = transform.structured.match ops{["func.func"]} in %arg1 : (!transform.any_op) -> !transform.any_op
    transform.foreach %f : !transform.any_op {
    ^bb0(%one: !transform.any_op):
      transform.apply_cse to %one : !transform.any_op
      %m = transform.structured.match ops{["arith.muli"]} in %one : (!transform.any_op) -> !transform.any_op
      %g = transform.apply_registered_pass "cse" to %one : (!transform.any_op) -> !transform.any_op
    }
    transform.yield
  }
}
