// A transform.alternatives inside another runs on a clone of the outer
// scope, which is in no block. Upstream's op puts the clone an alternative
// succeeded on beside its scope, so it crashes when an inner alternative
// succeeds (mlir-opt-22 segfaults), and runs as usual when none does (the
// outer alternatives then goes on to its next alternative). The tracked
// interpreter refused such a scope before any alternative ran, so it
// failed both; it now refuses it when an alternative succeeds only.
// RUN: sed -n '1,/^\/\/ -----/p' %s > %t.first.mlir
// RUN: tracking-opt %t.first.mlir --tracked-transform-interpreter --track-ops=all > %t.ours
// RUN: %mlir_opt %t.first.mlir --transform-interpreter > %t.upstream
// RUN: diff %t.ours %t.upstream
// RUN: FileCheck %s --check-prefix=SECOND < %t.ours
// RUN: not tracking-opt %s --split-input-file --tracked-transform-interpreter --track-ops=all 2>&1 >/dev/null | FileCheck %s --check-prefix=ERR

// SECOND: func.func @f(%arg0: i32) -> i32 attributes {second}
module attributes {transform.with_named_sequence} {
  func.func @f(%x: i32) -> i32 {
    return %x : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.alternatives %f : !transform.any_op {
    ^bb0(%outer: !transform.any_op):
      transform.alternatives %outer : !transform.any_op {
      ^bb1(%inner: !transform.any_op):
        %p = transform.get_parent_op %inner {op_name = "builtin.module"} : (!transform.any_op) -> !transform.any_op
      }
    }, {
    ^bb0(%outer: !transform.any_op):
      transform.annotate %outer "second" : !transform.any_op
    }
    transform.yield
  }
}

// -----

// ERR: [[@LINE+9]]:7: error: 'transform.alternatives' cannot apply to 'func.func', which is top-level: it clones its scope beside it
module attributes {transform.with_named_sequence} {
  func.func @f(%x: i32) -> i32 {
    return %x : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.alternatives %f : !transform.any_op {
    ^bb0(%outer: !transform.any_op):
      transform.alternatives %outer : !transform.any_op {
      ^bb1(%inner: !transform.any_op):
        transform.annotate %inner "inner" : !transform.any_op
      }
    }, {
    ^bb0(%outer: !transform.any_op):
      transform.annotate %outer "second" : !transform.any_op
    }
    transform.yield
  }
}
