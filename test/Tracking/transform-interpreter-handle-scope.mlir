// The tracked interpreter follows each tracked op by a hidden handle. Those
// handles live outside the entry's scope (on a sequence that includes the
// entry), so the script's transform ops see the handles of its scope as the
// untracked run does: upstream's check of a consuming op, which scans every
// handle of that scope against the consumed payload, costs what it costs
// without tracking (with the hidden handles in the entry it cost one check
// per tracked op and consumed op: 38 s instead of 2 s at 16,000 functions).
// RUN: tracking-opt %s --split-input-file --tracked-transform-interpreter --track-ops=all 2>&1 >/dev/null | FileCheck %s
// RUN: tracking-opt %s --split-input-file --tracked-transform-interpreter --track-ops=all 2>&1 >/dev/null | sed 's/^.*remark/remark/' > %t.tracked
// RUN: tracking-opt %s --split-input-file --tracked-transform-interpreter 2>&1 >/dev/null | sed 's/^.*remark/remark/' > %t.untracked
// RUN: diff %t.tracked %t.untracked

// CHECK: :[[@LINE+5]]:10: remark: 1 handle(s) in scope
// CHECK: :[[@LINE+5]]:10: remark: 1 handle(s) in scope
module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %c1 = arith.constant 1 : i32
    %x = arith.addi %a, %c1 : i32
    %y = arith.addi %x, %c1 : i32
    return %y : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op) {
    %add = transform.structured.match ops{["arith.addi"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.test_tracking.count_handles_in_scope %add : !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_registered_pass "canonicalize" to %f : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// In a `transform.foreach` body (the scan goes on to the entry's handles)
// and in an entry that another sequence includes (the run includes a clone
// of it).
// CHECK: :[[@LINE+4]]:10: remark: 2 handle(s) in scope
// CHECK: :[[@LINE+3]]:10: remark: 2 handle(s) in scope
module attributes {transform.with_named_sequence} {
  func.func @g(%a: i32) -> i32 {
    %x = arith.muli %a, %a : i32
    return %x : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mul = transform.structured.match ops{["arith.muli"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %mul : !transform.any_op {
    ^bb0(%one: !transform.any_op):
      transform.test_tracking.count_handles_in_scope %one : !transform.any_op
    }
    %again = transform.structured.match ops{["arith.muli"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.test_tracking.count_handles_in_scope %again : !transform.any_op
    transform.yield
  }
  transform.named_sequence @unused(%root: !transform.any_op {transform.readonly}) {
    transform.include @__transform_main failures(propagate) (%root) : (!transform.any_op) -> ()
    transform.yield
  }
}

// -----

// An entry that names itself (a parameter, a foreach_match action that
// never runs) keeps the hidden handles out of its scope too.
// CHECK: :[[@LINE+4]]:10: remark: 1 handle(s) in scope
module attributes {transform.with_named_sequence} {
  func.func @h(%a: i32) -> i32 {
    %c1 = arith.constant 1 : i32
    %x = arith.subi %a, %c1 : i32
    return %x : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %name = transform.param.constant @__transform_main -> !transform.any_param
    %sub = transform.structured.match ops{["arith.subi"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.test_tracking.count_handles_in_scope %sub : !transform.any_op
    transform.foreach_match restrict_root in %sub
        @match_for -> @__transform_main
      : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
  transform.named_sequence @match_for(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["scf.for"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
}
