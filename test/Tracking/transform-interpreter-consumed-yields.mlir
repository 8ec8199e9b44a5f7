// A transform.yield of a handle that a transform op consumed: the op owning
// the region (transform.foreach, an include of the sequence, foreach_match
// after an action) reads the handle's payload after the region ran, and a
// consumed handle has no mapping any more; mlir-opt-22 segfaults on each of
// these (and so did apply_named_sequence from Python). The tracked
// interpreter reports it as upstream reports any use of a consumed handle,
// at the yield.
// RUN: not tracking-opt %s --split-input-file --tracked-transform-interpreter --track-ops=all 2>&1 >/dev/null | FileCheck %s

// CHECK: [[@LINE+12]]:7: error: op uses a handle invalidated by a previously executed transform op
// CHECK: note: invalidated by this transform op that consumes its operand #0
module attributes {transform.with_named_sequence} {
  func.func @f(%x: i32) -> i32 {
    %0 = arith.addi %x, %x : i32
    return %0 : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %a = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %r = transform.foreach %a : !transform.any_op -> !transform.any_op {
    ^bb0(%o: !transform.any_op):
      %m = transform.apply_registered_pass "canonicalize" to %o : (!transform.any_op) -> !transform.any_op
      transform.yield %o : !transform.any_op
    }
    transform.yield
  }
}

// -----

// CHECK: [[@LINE+8]]:5: error: op uses a handle invalidated by a previously executed transform op
module attributes {transform.with_named_sequence} {
  func.func @f(%x: i32) -> i32 {
    %0 = arith.addi %x, %x : i32
    return %0 : i32
  }
  transform.named_sequence @callee(%a: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %m = transform.apply_registered_pass "canonicalize" to %a : (!transform.any_op) -> !transform.any_op
    transform.yield %a : !transform.any_op
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %a = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %r = transform.include @callee failures(propagate) (%a) : (!transform.any_op) -> !transform.any_op
    transform.annotate %r "x" : !transform.any_op
    transform.yield
  }
}

// -----

// CHECK: [[@LINE+12]]:5: error: op uses a handle invalidated by a previously executed transform op
module attributes {transform.with_named_sequence} {
  func.func @f(%x: i32) -> i32 {
    %0 = arith.addi %x, %x : i32
    return %0 : i32
  }
  transform.named_sequence @match_add(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["arith.addi"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @tile(%op: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %t, %l = transform.structured.tile_using_for %op tile_sizes [4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %u, %r = transform.foreach_match in %root @match_add -> @tile : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
