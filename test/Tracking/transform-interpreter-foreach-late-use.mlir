// Upstream's transform.foreach maps a later iteration's block argument to
// payload an earlier one freed (here: the clone transform.alternatives put
// in place of @g), but reads it only where the body uses the argument
// (or at the mapping, for a block argument type that checks its payload);
// this body fails before, at its first op, which uses a consumed handle:
// the tracked interpreter reports that same error, and refuses the freed
// payload only where the body would read it. Iteration one yields a handle
// whose payload was consumed through another handle: it keeps its mapping,
// and upstream reads it without error, as the tracked interpreter does.
// (Which payload op the notes name depends on addresses, in both tools.)
// RUN: not tracking-opt %s --split-input-file --tracked-transform-interpreter --track-ops=all 2>&1 >/dev/null | FileCheck %s
// RUN: sed -n '1,/^\/\/ -----/p' %s > %t.first.mlir
// RUN: not %mlir_opt %t.first.mlir --transform-interpreter 2>&1 >/dev/null | FileCheck %s
// RUN: sed -n '/^\/\/ -----/,$p' %s > %t.second.mlir
// RUN: tracking-opt %t.second.mlir --tracked-transform-interpreter --track-ops=all > %t.ours 2>&1
// RUN: %mlir_opt %t.second.mlir --transform-interpreter > %t.upstream 2>&1
// RUN: diff %t.ours %t.upstream
// RUN: FileCheck %s --check-prefix=RESULTS < %t.ours

// CHECK: [[@LINE+12]]:7: error: op uses a handle invalidated by a previously executed transform op
// CHECK-NEXT: transform.alternatives %payload
// CHECK-NOT: transform.foreach body
module attributes {transform.with_named_sequence} {
  module @payload {
    func.func @f() { return }
    func.func private @g() { return }
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %payload = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %r = transform.foreach %payload : !transform.any_op -> !transform.any_op {
    ^bb0(%v1: !transform.any_op):
      transform.alternatives %payload : !transform.any_op {
      ^bb0(%v5: !transform.any_op):
        transform.annotate %v5 "a5" : !transform.any_op
      }
      transform.yield %v1 : !transform.any_op
    }
    transform.yield
  }
}

// -----

// The foreach's results are used, and the body yields a handle that a pass
// run on its module invalidated (not consumed): upstream yields it without
// error, and so does the tracked interpreter (its check of the results read
// them as operands, which the expensive checks refused).
// RESULTS: remark: 1 : i64
module attributes {transform.with_named_sequence} {
  module @payload {
    func.func @f() { return }
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %payload = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %r = transform.foreach %payload : !transform.any_op -> !transform.any_op {
    ^bb0(%v1: !transform.any_op):
      %m = transform.get_parent_op %v1 {op_name = "builtin.module"} : (!transform.any_op) -> !transform.any_op
      %w = transform.apply_registered_pass "canonicalize" to %m : (!transform.any_op) -> !transform.any_op
      transform.yield %v1 : !transform.any_op
    }
    %n = transform.num_associations %r : (!transform.any_op) -> !transform.param<i64>
    transform.debug.emit_param_as_remark %n : !transform.param<i64>
    transform.yield
  }
}
