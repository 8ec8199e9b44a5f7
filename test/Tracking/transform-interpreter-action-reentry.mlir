// A transform.foreach_match action whose walk applies the same action while
// it runs makes upstream's interpreter enter the action's region a second
// time, which it does not support (debug builds assert "the region scope is
// already present"): the inner application shares the mappings of the
// running one and erases them when it ends, and the outer one crashes at
// the next handle it defines or consumes (`mlir-opt --transform-interpreter`
// and the tracked interpreter segfaulted on this script). The tracked
// interpreter copies each walk's actions, so the copy applied from @act's
// include (depth one) is not @act itself; the copy applied again from its
// own walk (depth two, @b's walk reaching @c) is refused before anything of
// it runs. This also kept the checks of a foreach in the action from
// reading the frame of the inner run of the same foreach, which failed
// silenceably (its body stops at the first op on the second run, whose
// module is marked) and was suppressed.
// RUN: not tracking-opt %s --tracked-transform-interpreter --track-ops=all 2>&1 >/dev/null | FileCheck %s
// RUN: not tracking-opt %s --tracked-transform-interpreter --track-ops=func.return 2>&1 >/dev/null | FileCheck %s

// CHECK: [[@LINE+27]]:5: error: a transform.foreach_match action was applied while it was running (a walk in it applied it again): upstream's interpreter cannot enter the action's region twice
// CHECK-NOT: error
module attributes {transform.with_named_sequence} {
  module @ma {
    func.func @fa() -> i32 {
      %0 = arith.constant 7 : i32
      return %0 : i32
    }
  }
  module @mb {
    func.func @fb() -> (i32, i32, i32) {
      %0 = arith.constant 1 : i32
      %1 = arith.constant 1 : i32
      %2 = arith.constant 2 : i32
      return %0, %1, %2 : i32, i32, i32
    }
  }
  module @b {
  }
  module @c {
  }
  transform.named_sequence @is_module(%op: !transform.any_op {transform.readonly}, %items: !transform.any_op {transform.readonly}, %next: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op) {
    transform.match.operation_name %op ["builtin.module"] : !transform.any_op
    transform.yield %op, %items, %next, %items, %op : !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op
  }
  // Runs on %items, then applies itself to %next (its items forwarded).
  transform.named_sequence @act(%op: !transform.any_op {transform.readonly}, %items: !transform.any_op {transform.readonly}, %next: !transform.any_op {transform.readonly}, %items2: !transform.any_op {transform.readonly}, %next2: !transform.any_op {transform.readonly}) {
    transform.foreach %items : !transform.any_op {
    ^bb0(%x: !transform.any_op):
      // Fails when the module holding %x is marked.
      transform.foreach %x : !transform.any_op {
      ^bb1(%z: !transform.any_op):
        %zm = transform.get_parent_op %z {op_name = "builtin.module"} : (!transform.any_op) -> !transform.any_op
        %marked = transform.structured.match ops{["builtin.module"]} attributes{"x.mark"} in %zm : (!transform.any_op) -> !transform.any_op
        %n = transform.num_associations %marked : (!transform.any_op) -> !transform.param<i64>
        %zero = transform.param.constant 0 : i64 -> !transform.param<i64>
        transform.match.param.cmpi eq %n, %zero : !transform.param<i64>
      }
      %m = transform.get_parent_op %x {op_name = "builtin.module"} : (!transform.any_op) -> !transform.any_op
      transform.annotate %m "x.mark" : !transform.any_op
      %f = transform.get_parent_op %x {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
      transform.apply_patterns to %f { transform.apply_patterns.canonicalization } : !transform.any_op
      transform.sequence %next : !transform.any_op failures(suppress) {
      ^bb2(%root: !transform.any_op):
        %fresh = transform.merge_handles %root, %root {deduplicate} : !transform.any_op
        transform.foreach_match restrict_root in %fresh, %items2, %next2 @is_module -> @act : (!transform.any_op, !transform.any_op, !transform.any_op) -> !transform.any_op
        transform.yield
      }
      // The first handle the outer run defines after the inner one ended.
      %after = transform.param.constant 1 : i64 -> !transform.param<i64>
    }
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %fa = transform.structured.match ops{["func.func"]} attributes{sym_name = "fa"} in %root : (!transform.any_op) -> !transform.any_op
    %fb = transform.structured.match ops{["func.func"]} attributes{sym_name = "fb"} in %root : (!transform.any_op) -> !transform.any_op
    %ca = transform.structured.match ops{["arith.constant"]} in %fa : (!transform.any_op) -> !transform.any_op
    %cb = transform.structured.match ops{["arith.constant"]} in %fb : (!transform.any_op) -> !transform.any_op
    %b = transform.structured.match ops{["builtin.module"]} attributes{sym_name = "b"} in %root : (!transform.any_op) -> !transform.any_op
    %c = transform.structured.match ops{["builtin.module"]} attributes{sym_name = "c"} in %root : (!transform.any_op) -> !transform.any_op
    transform.include @act failures(propagate) (%root, %ca, %b, %cb, %c) : (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op) -> ()
    transform.yield
  }
}
