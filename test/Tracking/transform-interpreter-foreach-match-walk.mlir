// A transform.foreach_match walks the payload while its actions run. An
// action that changes only the op it is applied to (here: tiles it) runs
// as upstream's; one that erases an op the walk still reads (here: the next
// arith.addi, by canonicalizing the enclosing function) stops the run with
// an error where upstream's walk reads it freed (mlir-opt segfaults).
// RUN: sed -n '1,/^\/\/ -----/p' %s > %t.first.mlir
// RUN: tracking-opt %t.first.mlir --tracked-transform-interpreter --track-ops=all > %t.ours
// RUN: %mlir_opt %t.first.mlir --transform-interpreter > %t.upstream
// RUN: diff %t.ours %t.upstream
// RUN: FileCheck %s --check-prefix=TILED < %t.ours
// RUN: not tracking-opt %s --split-input-file --tracked-transform-interpreter --track-ops=all 2>&1 >/dev/null | FileCheck %s --check-prefix=ERR

// TILED-LABEL: func.func @two_matmuls
// TILED-COUNT-2: scf.for
// TILED: return
module attributes {transform.with_named_sequence} {
  func.func @two_matmuls(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
    %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
    %1 = linalg.matmul ins(%0, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
    return %1 : tensor<8x8xf32>
  }
  transform.named_sequence @match_matmul(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.matmul"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @tile(%op: !transform.any_op {transform.consumed}) {
    %tiled, %loop = transform.structured.tile_using_for %op tile_sizes [4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %r = transform.foreach_match in %f @match_matmul -> @tile : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// ERR: error: a transform.foreach_match action erased or replaced an op outside the op it was applied to (one that encloses it or follows it): foreach_match's walk of the payload, which is in progress, would read it freed; the actions of foreach_match may only change the op they are applied to and the ops nested in it
// ERR-NEXT: transform.yield
module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %c0 = arith.constant 0 : i32
    %x = arith.addi %a, %c0 : i32
    %y = arith.addi %x, %c0 : i32
    return %y : i32
  }
  transform.named_sequence @match_add(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["arith.addi"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @simplify_function(%op: !transform.any_op {transform.readonly}) {
    %p = transform.get_parent_op %op {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %p { transform.apply_patterns.canonicalization } : !transform.any_op
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %r = transform.foreach_match in %root @match_add -> @simplify_function : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
