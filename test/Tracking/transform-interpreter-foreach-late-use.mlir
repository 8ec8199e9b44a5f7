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
// RUN: not tracking-opt %s --tracked-transform-interpreter --track-ops=all 2>&1 >/dev/null | FileCheck %s
// RUN: not %mlir_opt %s --transform-interpreter 2>&1 >/dev/null | FileCheck %s

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
