// An entry that names itself as a foreach_match action whose matcher
// matches nothing: upstream's run succeeds, and so does the tracked one (the
// hidden arguments made the action's signature wrong when ops were
// tracked).
// RUN: tracking-opt %s --tracked-transform-interpreter --track-ops=all > %t.ours 2>&1
// RUN: %mlir_opt %s --transform-interpreter > %t.upstream 2>&1
// RUN: diff %t.ours %t.upstream
// RUN: FileCheck %s < %t.ours

// CHECK: remark: done
module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %c1 = arith.constant 1 : i32
    %x = arith.addi %a, %c1 : i32
    return %x : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %add = transform.structured.match ops{["arith.addi"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach_match restrict_root in %add
        @match_for -> @__transform_main
      : (!transform.any_op) -> !transform.any_op
    transform.debug.emit_remark_at %root, "done" : !transform.any_op
    transform.yield
  }
  transform.named_sequence @match_for(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["scf.for"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
}
