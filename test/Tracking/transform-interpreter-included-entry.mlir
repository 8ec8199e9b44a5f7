// An entry that another sequence of the script includes: the tracked
// interpreter's hidden arguments go on a clone of it (they changed its
// signature: "incorrect number of operands for callee").
// RUN: tracking-opt %s --tracked-transform-interpreter=entry-point=inner --track-ops=all --debug-tracking 2>&1 >/dev/null | FileCheck %s
// RUN: tracking-opt %s --tracked-transform-interpreter=entry-point=inner --track-ops=all 2>/dev/null > %t.ours
// RUN: %mlir_opt %s --transform-interpreter=entry-point=inner > %t.upstream
// RUN: diff %t.ours %t.upstream

// CHECK: summary: 12 tracked ops: 12 live, 0 erased, 0 invalidated
module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %c1 = arith.constant 1 : i32
    %x = arith.addi %a, %c1 : i32
    return %x : i32
  }
  transform.named_sequence @inner(%root: !transform.any_op {transform.readonly}) {
    %add = transform.structured.match ops{["arith.addi"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.annotate %add "seen" : !transform.any_op
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    transform.include @inner failures(propagate) (%root) : (!transform.any_op) -> ()
    transform.yield
  }
}
