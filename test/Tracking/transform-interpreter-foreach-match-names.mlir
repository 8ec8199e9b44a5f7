// A remark from a foreach_match action about a value that a step of the
// action produced: the tracked interpreter, which runs each step of an
// action inside a transform.tracking.walk_step, names the value as the
// step's op does, and prints what upstream prints, diagnostics included.
// RUN: tracking-opt %s --tracked-transform-interpreter --track-ops=all > %t.ours 2> %t.ours.err
// RUN: %mlir_opt %s --transform-interpreter > %t.upstream 2> %t.upstream.err
// RUN: diff %t.ours %t.upstream
// RUN: diff %t.ours.err %t.upstream.err
// RUN: FileCheck %s < %t.ours.err
// CHECK: remark:

module attributes {transform.with_named_sequence} {
  func.func @f(%x: i32) -> i32 {
    %y = arith.addi %x, %x : i32
    return %y : i32
  }
  transform.named_sequence @mf(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["func.func"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @m(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["arith.addi"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @inner(%op: !transform.any_op {transform.readonly}) -> !transform.param<i64> {
    %p = transform.param.constant 2 : i64 -> !transform.param<i64>
    transform.yield %p : !transform.param<i64>
  }
  transform.named_sequence @a(%op: !transform.any_op {transform.consumed}) {
    %u, %q = transform.foreach_match in %op @m -> @inner : (!transform.any_op) -> (!transform.any_op, !transform.param<i64>)
    transform.debug.emit_param_as_remark %q : !transform.param<i64>
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    transform.foreach_match in %root @mf -> @a : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
