// An entry that its own script uses as a foreach_match action: upstream's
// run fails (the action reuses the consumed root handle). The tracked run
// fails too whatever is tracked (running a clone of the entry, as for an
// entry other sequences include, made it succeed when ops were tracked);
// with ops tracked its message is another (the action's argument count).
// RUN: not tracking-opt %s --tracked-transform-interpreter --track-ops=all 2>/dev/null > %t.ours
// RUN: not %mlir_opt %s --transform-interpreter 2>/dev/null > %t.upstream
// RUN: diff %t.ours %t.upstream
// RUN: not tracking-opt %s --tracked-transform-interpreter 2>&1 >/dev/null | FileCheck %s
// CHECK: error: op uses a handle invalidated by a previously executed transform op

module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %c1 = arith.constant 1 : i32
    %x = arith.addi %a, %c1 : i32
    return %x : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %add = transform.structured.match ops{["arith.addi"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.annotate %add "seen" : !transform.any_op
    %r = transform.foreach_match in %root
        @match_func -> @__transform_main
      : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
  transform.named_sequence @match_func(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["func.func"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
}
