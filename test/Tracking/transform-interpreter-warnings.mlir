// The tracked interpreter prints the script's verifier warnings as upstream's
// does, no more often (it verifies its instrumented copy of the script with
// the copy's warnings dropped), and the same IR.
// RUN: tracking-opt %s --tracked-transform-interpreter --track-ops=all > %t.ours 2> %t.ours.err
// RUN: %mlir_opt %s --transform-interpreter > %t.upstream 2> %t.upstream.err
// RUN: diff %t.ours %t.upstream
// RUN: diff %t.ours.err %t.upstream.err
// RUN: FileCheck %s < %t.ours.err
// CHECK: warning: op argument #0 is not consumed in the body but is marked as consumed

module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %c0 = arith.constant 0 : i32
    %x = arith.addi %a, %c0 : i32
    return %x : i32
  }
  transform.named_sequence @match_add(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["arith.addi"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @annotate(%op: !transform.any_op {transform.consumed}) {
    transform.annotate %op "seen" : !transform.any_op
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %r = transform.foreach_match in %f @match_add -> @annotate : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
