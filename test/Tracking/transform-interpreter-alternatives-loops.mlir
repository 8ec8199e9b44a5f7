// transform.alternatives runs each alternative on clones of its scope that
// are in no block. The checks of what a transform.foreach or a
// transform.foreach_match returns (its ops must still be in the payload)
// looked for them in the payload's tree only, so such a loop in an
// alternative failed the run ("... would read it freed") where upstream's
// succeeds; they look in the clones' trees too now.
// RUN: tracking-opt %s --split-input-file --tracked-transform-interpreter --track-ops=all > %t.ours
// RUN: %mlir_opt %s --split-input-file --transform-interpreter > %t.upstream
// RUN: diff %t.ours %t.upstream
// RUN: FileCheck %s < %t.ours

// CHECK: arith.constant {x} 1
// CHECK: arith.constant {x} 2
module attributes {transform.with_named_sequence} {
  func.func @f() -> (i32, i32) {
    %a = arith.constant 1 : i32
    %b = arith.constant 2 : i32
    return %a, %b : i32, i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.alternatives %f : !transform.any_op {
    ^bb0(%scope: !transform.any_op):
      %cs = transform.structured.match ops{["arith.constant"]} in %scope : (!transform.any_op) -> !transform.any_op
      %r = transform.foreach %cs : !transform.any_op -> !transform.any_op {
      ^bb1(%c: !transform.any_op):
        transform.yield %c : !transform.any_op
      }
      transform.annotate %r "x" : !transform.any_op
    }
    transform.yield
  }
}

// -----

// CHECK: arith.constant {x, y} 1
// CHECK: arith.constant {x, y} 2
module attributes {transform.with_named_sequence} {
  func.func @f() -> (i32, i32) {
    %a = arith.constant 1 : i32
    %b = arith.constant 2 : i32
    return %a, %b : i32, i32
  }
  transform.named_sequence @match_c(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["arith.constant"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @act(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.annotate %op "y" : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.alternatives %f : !transform.any_op {
    ^bb0(%scope: !transform.any_op):
      %u, %r = transform.foreach_match in %scope @match_c -> @act : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.annotate %r "x" : !transform.any_op
    }
    transform.yield
  }
}
