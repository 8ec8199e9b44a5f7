// A transform.foreach_match walks the payload while its actions run. An
// action that changes only the op it is applied to (here: tiles it) runs
// as upstream's; one that erases an op the walk still reads (here: the next
// arith.addi, by canonicalizing the enclosing function) stops the run with
// an error where upstream's walk reads it freed (mlir-opt segfaults), as do
// actions that erase the block the walk is in or move the next op out of
// it, whether the sequences are nested in a library module or in a
// foreach_match of an action; a matcher that may change the payload is
// refused before the run.
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

// ERR: error: a transform.foreach_match action erased or moved payload outside the op it was applied to (an op that encloses it or follows it, their block, a root of the walk or a forwarded input): foreach_match's walk of the payload, which is in progress, would read it freed; the actions of foreach_match may only change the op they are applied to and the ops nested in it
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

// -----

// The action erases the block the walk is in (cf.br is its last op).
// ERR: error: a transform.foreach_match action erased or moved payload outside the op it was applied to
module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    return %a : i32
  ^bb1:
    cf.br ^bb1
  }
  transform.named_sequence @match_br(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["cf.br"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @simplify(%op: !transform.any_op {transform.readonly}) {
    %p = transform.get_parent_op %op {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %p { transform.apply_patterns.canonicalization } : !transform.any_op
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %r = transform.foreach_match in %root @match_br -> @simplify : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The action hoists the op after the matched one out of the loop: alive, in another block.
// ERR: error: a transform.foreach_match action erased or moved payload outside the op it was applied to
module attributes {transform.with_named_sequence} {
  func.func @f(%a: index, %b: index, %m: memref<?xindex>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c10 = arith.constant 10 : index
    scf.for %i = %c0 to %c10 step %c1 {
      %x = arith.muli %i, %i : index
      %y = arith.addi %a, %b : index
      memref.store %x, %m[%y] : memref<?xindex>
    }
    return
  }
  transform.named_sequence @match_mul(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["arith.muli"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @licm(%op: !transform.any_op {transform.readonly}) {
    %p = transform.get_parent_op %op {op_name = "scf.for"} : (!transform.any_op) -> !transform.any_op
    transform.apply_licm to %p : !transform.any_op
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %r = transform.foreach_match in %root @match_mul -> @licm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Matcher and action in a nested library module, referred to by nested references.
// ERR: error: a transform.foreach_match action erased or moved payload outside the op it was applied to
module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %c0 = arith.constant 0 : i32
    %x = arith.addi %a, %c0 : i32
    %y = arith.addi %x, %c0 : i32
    return %y : i32
  }
  module @lib attributes {transform.with_named_sequence} {
    transform.named_sequence @match_add(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
      transform.match.operation_name %op ["arith.addi"] : !transform.any_op
      transform.yield %op : !transform.any_op
    }
    transform.named_sequence @simplify_function(%op: !transform.any_op {transform.readonly}) {
      %p = transform.get_parent_op %op {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
      transform.apply_patterns to %p { transform.apply_patterns.canonicalization } : !transform.any_op
      transform.yield
    }
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %r = "transform.foreach_match"(%root) <{matchers = [@lib::@match_add], actions = [@lib::@simplify_function]}> : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A matcher that includes a sequence that changes the payload, then fails.
// ERR: error: the matcher @match_add of this 'transform.foreach_match' may change the payload, which it walks while its matchers run; a matcher may only read it
module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %c0 = arith.constant 0 : i32
    %x = arith.addi %a, %c0 : i32
    %y = arith.addi %x, %c0 : i32
    return %y : i32
  }
  transform.named_sequence @simplify_function(%op: !transform.any_op {transform.readonly}) {
    %p = transform.get_parent_op %op {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %p { transform.apply_patterns.canonicalization } : !transform.any_op
    transform.yield
  }
  transform.named_sequence @match_add(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["arith.addi"] : !transform.any_op
    transform.include @simplify_function failures(propagate) (%op) : (!transform.any_op) -> ()
    transform.match.operation_name %op ["arith.nothing"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @act(%op: !transform.any_op {transform.readonly}) {
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %r = transform.foreach_match in %root @match_add -> @act : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A foreach_match inside an action, whose own action erases what the inner walk reads.
// ERR: error: a transform.foreach_match action erased or moved payload outside the op it was applied to
module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %c0 = arith.constant 0 : i32
    %x = arith.addi %a, %c0 : i32
    %y = arith.addi %x, %c0 : i32
    return %y : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %r = transform.foreach_match in %root @match_func -> @outer_action : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
  transform.named_sequence @match_func(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["func.func"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @outer_action(%f: !transform.any_op {transform.consumed}) {
    %r = transform.foreach_match in %f @match_add -> @simplify_function : (!transform.any_op) -> !transform.any_op
    transform.yield
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
}

// -----

// A matcher that reaches a payload writer through a collect_matching of its own.
// ERR: error: the matcher @inner of this 'transform.collect_matching' may change the payload, which it walks while its matchers run; a matcher may only read it
module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %c0 = arith.constant 0 : i32
    %x = arith.addi %a, %c0 : i32
    %y = arith.addi %x, %c0 : i32
    return %y : i32
  }
  transform.named_sequence @simplify_function(%op: !transform.any_op {transform.readonly}) {
    %p = transform.get_parent_op %op {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %p { transform.apply_patterns.canonicalization } : !transform.any_op
    transform.yield
  }
  transform.named_sequence @inner(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["arith.addi"] : !transform.any_op
    transform.include @simplify_function failures(propagate) (%op) : (!transform.any_op) -> ()
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @helper(%op: !transform.any_op {transform.readonly}) {
    %p = transform.get_parent_op %op {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    %m = transform.collect_matching @inner in %p : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
  transform.named_sequence @match_add(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["arith.addi"] : !transform.any_op
    transform.include @helper failures(propagate) (%op) : (!transform.any_op) -> ()
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @act(%op: !transform.any_op {transform.readonly}) {
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %r = transform.foreach_match in %root @match_add -> @act : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// collect_matching's own walk: a matcher that may write the payload.
// ERR: error: the matcher @inner of this 'transform.collect_matching' may change the payload, which it walks while its matchers run; a matcher may only read it
module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %c0 = arith.constant 0 : i32
    %x = arith.addi %a, %c0 : i32
    %y = arith.addi %x, %c0 : i32
    return %y : i32
  }
  transform.named_sequence @simplify_function(%op: !transform.any_op {transform.readonly}) {
    %p = transform.get_parent_op %op {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %p { transform.apply_patterns.canonicalization } : !transform.any_op
    transform.yield
  }
  transform.named_sequence @inner(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["arith.addi"] : !transform.any_op
    transform.include @simplify_function failures(propagate) (%op) : (!transform.any_op) -> ()
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.collect_matching @inner in %root : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// An action inserts a loop after the loop the walk is in (it survives), a later one erases the op the walk kept as next.
// ERR: error: a transform.foreach_match action erased or moved payload outside the op it was applied to
module attributes {transform.with_named_sequence} {
  func.func @f(%m: memref<?xindex>) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c10 = arith.constant 10 : index
    scf.for %i = %c0 to %c10 step %c4 {
      %x = arith.muli %i, %i : index
      memref.store %x, %m[%i] : memref<?xindex>
    }
    %dead = arith.constant 7 : index
    return
  }
  transform.named_sequence @match_mul(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["arith.muli"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @peel_parent(%op: !transform.any_op {transform.readonly}) {
    %p = transform.get_parent_op %op {op_name = "scf.for"} : (!transform.any_op) -> !transform.op<"scf.for">
    %a, %b = transform.loop.peel %p : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @match_for(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["scf.for"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @dce_func(%op: !transform.any_op {transform.readonly}) {
    %p = transform.get_parent_op %op {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    transform.apply_dce to %p : !transform.any_op
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %r = transform.foreach_match in %f @match_mul -> @peel_parent, @match_for -> @dce_func : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// An action erases a later root of the walk (a pass, which does not notify).
// ERR: error: a transform.foreach_match action erased or moved payload outside the op it was applied to
module attributes {transform.with_named_sequence} {
  module @payload {
    func.func @a(%x: i32) -> i32 {
      %y = arith.addi %x, %x : i32
      return %y : i32
    }
    func.func @c(%x: i32) -> i32 {
      return %x : i32
    }
    func.func private @b(%x: i32) -> i32 {
      %y = arith.muli %x, %x : i32
      return %y : i32
    }
  }
  transform.named_sequence @match_add(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["arith.addi"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @dce(%op: !transform.any_op {transform.readonly}) {
    %p = transform.get_parent_op %op {op_name = "builtin.module"} : (!transform.any_op) -> !transform.any_op
    transform.apply_registered_pass "symbol-dce" to %p : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %r = transform.foreach_match in %f @match_add -> @dce : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// An action erases a forwarded input, which every matcher reads.
// ERR: error: a transform.foreach_match action erased or moved payload outside the op it was applied to
module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %c = arith.constant 0 : i32
    %x = arith.addi %a, %a : i32
    %y = arith.addi %x, %a : i32
    return %y : i32
  }
  transform.named_sequence @match_add(%op: !transform.any_op {transform.readonly}, %fwd: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_op) {
    transform.match.operation_name %op ["arith.addi"] : !transform.any_op
    transform.match.operation_name %fwd ["arith.constant"] : !transform.any_op
    transform.yield %op, %fwd : !transform.any_op, !transform.any_op
  }
  transform.named_sequence @dce(%op: !transform.any_op {transform.readonly}, %fwd: !transform.any_op {transform.readonly}) {
    %p = transform.get_parent_op %op {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    transform.apply_dce to %p : !transform.any_op
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %c = transform.structured.match ops{["arith.constant"]} in %root : (!transform.any_op) -> !transform.any_op
    %r = transform.foreach_match in %f, %c @match_add -> @dce : (!transform.any_op, !transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A later action erases what an earlier one yielded, which a transform op after the walk reads.
// ERR: error: the results of this transform.foreach_match hold an op that a later action erased
module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %x = arith.addi %a, %a : i32
    %y = arith.muli %a, %a : i32
    return %y : i32
  }
  transform.named_sequence @match_add(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["arith.addi"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @keep(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @match_mul(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["arith.muli"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @dce(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %p = transform.get_parent_op %op {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    transform.apply_dce to %p : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %r, %ops = transform.foreach_match in %f @match_add -> @keep, @match_mul -> @dce : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %ops "touched" : !transform.any_op
    transform.yield
  }
}

// -----

// Two roots, one inside the other: an action erases the op after the inner root, which the walk of the outer one holds.
// ERR: error: a transform.foreach_match action erased or moved payload outside the op it was applied to
module attributes {transform.with_named_sequence} {
  module @payload {
    func.func @a(%x: i32) -> i32 {
      %y = arith.addi %x, %x : i32
      return %y : i32
    }
    func.func private @b(%x: i32) -> i32 {
      %y = arith.subi %x, %x : i32
      return %y : i32
    }
    func.func @c(%x: i32) -> i32 {
      return %x : i32
    }
  }
  transform.named_sequence @match_add(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["arith.addi"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @symbol_dce(%op: !transform.any_op {transform.readonly}) {
    %p = transform.get_parent_op %op {op_name = "builtin.module"} : (!transform.any_op) -> !transform.any_op
    transform.apply_registered_pass "symbol-dce" to %p : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["builtin.module"]} attributes{sym_name = "payload"} in %root : (!transform.any_op) -> !transform.any_op
    %a = transform.structured.match ops{["func.func"]} attributes{sym_name = "a"} in %root : (!transform.any_op) -> !transform.any_op
    %roots = transform.merge_handles %m, %a : !transform.any_op
    %r = transform.foreach_match in %roots @match_add -> @symbol_dce : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A later action erases the op of a value an earlier one yielded.
// ERR: error: the results of this transform.foreach_match hold an op that a later action erased
module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %x = arith.addi %a, %a : i32
    %y = arith.muli %a, %a : i32
    return %y : i32
  }
  transform.named_sequence @match_add(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["arith.addi"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @result_of(%op: !transform.any_op {transform.readonly}) -> !transform.any_value {
    %v = transform.get_result %op[0] : (!transform.any_op) -> !transform.any_value
    transform.yield %v : !transform.any_value
  }
  transform.named_sequence @match_mul(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["arith.muli"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @dce(%op: !transform.any_op {transform.readonly}) -> !transform.any_value {
    %p = transform.get_parent_op %op {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    transform.apply_dce to %p : !transform.any_op
    %v = transform.get_result %op[0] : (!transform.any_op) -> !transform.any_value
    transform.yield %v : !transform.any_value
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %r, %vals = transform.foreach_match in %f @match_add -> @result_of, @match_mul -> @dce : (!transform.any_op) -> (!transform.any_op, !transform.any_value)
    %d = transform.get_defining_op %vals : (!transform.any_value) -> !transform.any_op
    transform.debug.emit_remark_at %d, "defined here" : !transform.any_op
    transform.yield
  }
}

// -----

// An action erases the op of a forwarded value, which every matcher reads.
// ERR: error: a transform.foreach_match action erased or moved payload outside the op it was applied to
module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %x = arith.addi %a, %a : i32
    %y = arith.muli %a, %a : i32
    %z = arith.subi %y, %a : i32
    return %z : i32
  }
  transform.named_sequence @match_mul(%op: !transform.any_op {transform.readonly}, %v: !transform.any_value {transform.readonly}) -> !transform.any_op {
    %d = transform.get_defining_op %v : (!transform.any_value) -> !transform.any_op
    transform.match.operation_name %d ["arith.addi"] : !transform.any_op
    transform.match.operation_name %op ["arith.muli"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @dce(%op: !transform.any_op {transform.readonly}) {
    %p = transform.get_parent_op %op {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    transform.apply_dce to %p : !transform.any_op
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %add = transform.structured.match ops{["arith.addi"]} in %root : (!transform.any_op) -> !transform.any_op
    %v = transform.get_result %add[0] : (!transform.any_op) -> !transform.any_value
    %r = transform.foreach_match in %f, %v @match_mul -> @dce : (!transform.any_op, !transform.any_value) -> !transform.any_op
    transform.yield
  }
}

// -----

// An action erases the op it is applied to, then a step fails silenceably: upstream's
// walk reads the erased op's location for its note.
// ERR: error: a step of a transform.foreach_match action failed after the action erased the op it was applied to
module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %x = arith.addi %a, %a : i32
    return %a : i32
  }
  transform.named_sequence @match_add(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["arith.addi"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @erase_then_fail(%op: !transform.any_op {transform.readonly}) {
    %p = transform.get_parent_op %op {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    transform.apply_dce to %p : !transform.any_op
    %a = transform.param.constant 1 : i64 -> !transform.param<i64>
    %b = transform.param.constant 2 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %a, %b : !transform.param<i64>
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.sequence %f : !transform.any_op failures(propagate) {
    ^bb0(%g: !transform.any_op):
      %r = transform.foreach_match in %g @match_add -> @erase_then_fail : (!transform.any_op) -> !transform.any_op
    }
    transform.yield
  }
}
