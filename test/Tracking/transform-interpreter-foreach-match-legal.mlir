// Scripts with transform.foreach_match whose actions stay within what the
// walk allows (a loop peeled inside the walk's loop, a function outside the
// walk's root replaced, restrict_root, flatten_results, forwarded inputs
// and outputs, a forwarded parameter, an action that holds a walk whose
// action is itself, restrict_root with an action that erases the root it
// is applied to, a step that fails silenceably while the op it is applied
// to is there): the tracked interpreter, with its walk guards, prints
// what upstream's prints.
// RUN: tracking-opt %s --split-input-file --tracked-transform-interpreter --track-ops=all > %t.ours
// RUN: %mlir_opt %s --split-input-file --transform-interpreter > %t.upstream
// RUN: diff %t.ours %t.upstream
// RUN: FileCheck %s < %t.ours
// CHECK: scf.for

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
    
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %r = transform.foreach_match in %f @match_mul -> @peel_parent, @match_for -> @dce_func : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  func.func @a(%x: i32) -> i32 {
    %y = arith.addi %x, %x : i32
    return %y : i32
  }
  func.func @b() {
    return
  }
  transform.named_sequence @match_add(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["arith.addi"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @replace_b(%op: !transform.any_op {transform.readonly}) {
    %m = transform.get_parent_op %op {op_name = "builtin.module"} : (!transform.any_op) -> !transform.any_op
    %b = transform.structured.match ops{["func.func"]} attributes {sym_name = "b"} in %m : (!transform.any_op) -> !transform.any_op
    %new = transform.structured.replace %b {
      builtin.module {
      }
    } : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %a = transform.structured.match ops{["func.func"]} attributes {sym_name = "a"} in %root : (!transform.any_op) -> !transform.any_op
    %r = transform.foreach_match in %a @match_add -> @replace_b : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %x = arith.addi %a, %a : i32
    %y = arith.muli %x, %x : i32
    return %y : i32
  }
  transform.named_sequence @m(%op: !transform.any_op {transform.readonly}, %extra: !transform.any_op {transform.readonly}) -> (!transform.any_op, !transform.any_op) {
    transform.match.operation_name %op ["arith.addi", "arith.muli"] : !transform.any_op
    transform.yield %op, %extra : !transform.any_op, !transform.any_op
  }
  transform.named_sequence @a(%op: !transform.any_op {transform.readonly}, %extra: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.annotate %op "seen" : !transform.any_op
    %m = transform.merge_handles %op, %extra : !transform.any_op
    transform.yield %m : !transform.any_op
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %r, %out = transform.foreach_match restrict_root flatten_results in %root, %f @m -> @a : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %n = transform.num_associations %out : (!transform.any_op) -> !transform.param<i64>
    transform.debug.emit_param_as_remark %n : !transform.param<i64>
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  func.func @f(%n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
    }
    return
  }
  transform.named_sequence @match_for(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["scf.for"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @nested(%op: !transform.any_op {transform.readonly}) {
    transform.annotate %op "seen" : !transform.any_op
    %h = transform.merge_handles %op : !transform.any_op
    %r = transform.foreach_match in %h @match_for -> @nested : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %r = transform.foreach_match in %f @match_for -> @nested : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %y = arith.muli %a, %a : i32
    return %y : i32
  }
  transform.named_sequence @match_mul(%op: !transform.any_op {transform.readonly}, %p: !transform.param<i64> {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["arith.muli"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @note(%op: !transform.any_op {transform.readonly}) {
    transform.annotate %op "seen" : !transform.any_op
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %p = transform.param.constant 1 : i64 -> !transform.param<i64>
    %r = transform.foreach_match in %f, %p @match_mul -> @note : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  module @payload {
    func.func @a(%x: i32) -> i32 {
      return %x : i32
    }
    func.func private @b(%x: i32) -> i32 {
      %y = arith.subi %x, %x : i32
      return %y : i32
    }
  }
  transform.named_sequence @match_func(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["func.func"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @symbol_dce(%op: !transform.any_op {transform.readonly}) {
    %p = transform.get_parent_op %op {op_name = "builtin.module"} : (!transform.any_op) -> !transform.any_op
    transform.apply_registered_pass "symbol-dce" to %p : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %b = transform.structured.match ops{["func.func"]} attributes{sym_visibility = "private"} in %root : (!transform.any_op) -> !transform.any_op
    %r = transform.foreach_match restrict_root in %b @match_func -> @symbol_dce : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %x = arith.addi %a, %a : i32
    %y = arith.addi %x, %a : i32
    return %y : i32
  }
  transform.named_sequence @match_add(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["arith.addi"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @annotate_then_fail(%op: !transform.any_op {transform.readonly}) {
    transform.annotate %op "seen" : !transform.any_op
    %a = transform.param.constant 1 : i64 -> !transform.param<i64>
    %b = transform.param.constant 2 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %a, %b : !transform.param<i64>
    transform.annotate %op "after" : !transform.any_op
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.sequence %f : !transform.any_op failures(suppress) {
    ^bb0(%g: !transform.any_op):
      %r = transform.foreach_match in %g @match_add -> @annotate_then_fail : (!transform.any_op) -> !transform.any_op
    }
    transform.yield
  }
}
