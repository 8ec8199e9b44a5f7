// Upstream's interpreter refuses a transform op whose target contains the
// op itself ("cannot apply transform to itself"), and a
// `transform.alternatives` whose scope contains it. The tracked interpreter
// runs a copy of the script outside the payload, so it checks the op the
// copy was cloned from: it fails as upstream does, with the same diagnostics
// at the same places, and still runs what targets IR beside the script.
// RUN: not tracking-opt %s --split-input-file --tracked-transform-interpreter --track-ops=all > %t.ours 2> %t.ours.err
// RUN: not %mlir_opt %s --split-input-file --transform-interpreter > %t.upstream 2> %t.upstream.err
// RUN: diff %t.ours %t.upstream
// RUN: diff %t.ours.err %t.upstream.err
// RUN: FileCheck %s --input-file=%t.ours.err
// RUN: FileCheck %s --input-file=%t.ours --check-prefix=OUT

// CHECK: [[@LINE+11]]:5: error: cannot apply transform to itself (or one of its ancestors)
// CHECK: [[@LINE+1]]:1: note: target payload op
module attributes {transform.with_named_sequence} {
  func.func @f(%x: i32) -> i32 {
    %c0 = arith.constant 0 : i32
    %a = arith.addi %x, %c0 : i32
    %b = arith.addi %x, %c0 : i32
    %s = arith.addi %a, %b : i32
    return %s : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    transform.apply_cse to %root : !transform.any_op
    transform.yield
  }
}

// -----

// CHECK: [[@LINE+8]]:5: error: cannot apply transform to itself (or one of its ancestors)
// CHECK: [[@LINE+1]]:1: note: target payload op
module attributes {transform.with_named_sequence} {
  func.func @f(%x: i32) {
    %a = arith.addi %x, %x : i32
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    transform.apply_dce to %root : !transform.any_op
    transform.yield
  }
}

// -----

// CHECK: [[@LINE+9]]:5: error: cannot apply transform to itself (or one of its ancestors)
// CHECK: [[@LINE+1]]:1: note: target payload op
module attributes {transform.with_named_sequence} {
  func.func @f(%x: i32) -> i32 {
    %c0 = arith.constant 0 : i32
    %a = arith.addi %x, %c0 : i32
    return %a : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    transform.apply_patterns to %root {
      transform.apply_patterns.canonicalization
    } {apply_cse} : !transform.any_op
    transform.yield
  }
}

// -----

// CHECK: [[@LINE+8]]:5: error: cannot apply transform to itself (or one of its ancestors)
// CHECK: [[@LINE+1]]:1: note: target payload op
module attributes {transform.with_named_sequence} {
  func.func @f(%x: i32) -> i32 {
    %a = arith.addi %x, %x : i32
    return %a : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    transform.apply_conversion_patterns to %root {
      transform.apply_conversion_patterns.dialect_to_llvm "arith"
    } with type_converter {
      transform.apply_conversion_patterns.memref.memref_to_llvm_type_converter
    } {legal_dialects = ["llvm"], partial_conversion} : !transform.any_op
    transform.yield
  }
}

// -----

// The op's own failure before it looks at its targets comes first.
// CHECK: [[@LINE+7]]:5: error: pattern descriptor does not specify type converter
module attributes {transform.with_named_sequence} {
  func.func @f(%x: i32) -> i32 {
    %a = arith.addi %x, %x : i32
    return %a : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    transform.apply_conversion_patterns to %root {
      transform.apply_conversion_patterns.dialect_to_llvm "arith"
    } {legal_dialects = ["llvm"], partial_conversion} : !transform.any_op
    transform.yield
  }
}

// -----

// CHECK: [[@LINE+12]]:10: error: cannot apply transform to itself (or one of its ancestors)
// CHECK: [[@LINE+1]]:1: note: target payload op
module attributes {transform.with_named_sequence} {
  func.func private @callee(%x: i32) -> i32 {
    %a = arith.addi %x, %x : i32
    return %a : i32
  }
  func.func @caller(%x: i32) -> i32 {
    %r = func.call @callee(%x) : (i32) -> i32
    return %r : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %m = transform.apply_registered_pass "inline" to %root : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// CHECK: [[@LINE+6]]:10: error: unknown pass or pass pipeline: no-such-pass
module attributes {transform.with_named_sequence} {
  func.func @f() {
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %m = transform.apply_registered_pass "no-such-pass" to %root : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// CHECK: [[@LINE+7]]:10: error: <Pass-Options-Parser>: no such option bogus-option
// CHECK: [[@LINE+6]]:10: error: failed to add pass or pass pipeline to pipeline: canonicalize
module attributes {transform.with_named_sequence} {
  func.func @f() {
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %m = transform.apply_registered_pass "canonicalize" with options = {"bogus-option" = 1} to %root : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Options from a parameter build the pipeline; then the targets are checked.
// CHECK: [[@LINE+8]]:10: error: cannot apply transform to itself (or one of its ancestors)
// CHECK: [[@LINE+1]]:1: note: target payload op
module attributes {transform.with_named_sequence} {
  func.func @f() {
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %p = transform.param.constant 3 : i64 -> !transform.param<i64>
    %m = transform.apply_registered_pass "canonicalize" with options = {"max-iterations" = %p, "disable-patterns" = ["a", "b"]} to %root : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    transform.yield
  }
}

// -----

// A handle to several ops, one of them the root.
// CHECK: [[@LINE+13]]:5: error: cannot apply transform to itself (or one of its ancestors)
// CHECK: [[@LINE+1]]:1: note: target payload op
module attributes {transform.with_named_sequence} {
  func.func @f(%x: i32) -> i32 {
    %c0 = arith.constant 0 : i32
    %a = arith.addi %x, %c0 : i32
    %b = arith.addi %x, %c0 : i32
    %s = arith.addi %a, %b : i32
    return %s : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %h = transform.merge_handles %f, %root : !transform.any_op
    transform.apply_cse to %h : !transform.any_op
    transform.yield
  }
}

// -----

// The target is the script's own sequence.
// CHECK: [[@LINE+8]]:5: error: cannot apply transform to itself (or one of its ancestors)
// CHECK: [[@LINE+5]]:3: note: target payload op
module attributes {transform.with_named_sequence} {
  func.func @f() {
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %s = transform.structured.match ops{["transform.named_sequence"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_dce to %s : !transform.any_op
    transform.yield
  }
}

// -----

// An included sequence beside the entry.
// CHECK: [[@LINE+7]]:5: error: cannot apply transform to itself (or one of its ancestors)
// CHECK: [[@LINE+1]]:1: note: target payload op
module attributes {transform.with_named_sequence} {
  func.func @f() {
    return
  }
  transform.named_sequence @helper(%r: !transform.any_op {transform.readonly}) {
    transform.apply_cse to %r : !transform.any_op
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    transform.include @helper failures(propagate) (%root) : (!transform.any_op) -> ()
    transform.yield
  }
}

// -----

// A nested module that holds the script.
// CHECK: [[@LINE+9]]:7: error: cannot apply transform to itself (or one of its ancestors)
// CHECK: [[@LINE+2]]:3: note: target payload op
module attributes {transform.with_named_sequence} {
  module @inner attributes {transform.with_named_sequence} {
    func.func @f() {
      return
    }
    transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
      %inner = transform.structured.match ops{["builtin.module"]} attributes {sym_name = "inner"} in %root : (!transform.any_op) -> !transform.any_op
      transform.apply_cse to %inner : !transform.any_op
      transform.yield
    }
  }
}

// -----

// CHECK: [[@LINE+10]]:7: error: scope must not contain the transforms being applied
// CHECK: [[@LINE+2]]:3: note: scope
module attributes {transform.with_named_sequence} {
  module @inner attributes {transform.with_named_sequence} {
    func.func @f(%x: i32) -> i32 {
      %a = arith.addi %x, %x : i32
      return %a : i32
    }
    transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
      %inner = transform.structured.match ops{["builtin.module"]} attributes {sym_name = "inner"} in %root : (!transform.any_op) -> !transform.any_op
      transform.alternatives %inner : !transform.any_op {
      ^bb0(%s: !transform.any_op):
        %a = transform.structured.match ops{["arith.addi"]} in %s : (!transform.any_op) -> !transform.any_op
        transform.annotate %a "alt" : !transform.any_op
      }
      transform.yield
    }
  }
}

// -----

// CHECK: [[@LINE+7]]:5: error: scope must not contain the transforms being applied
// CHECK: [[@LINE+1]]:1: note: scope
module attributes {transform.with_named_sequence} {
  func.func @f() {
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    transform.alternatives %root : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.yield
    }
    transform.yield
  }
}

// -----

// Without a scope, the scope is the payload root.
// CHECK: [[@LINE+7]]:5: error: scope must not contain the transforms being applied
// CHECK: [[@LINE+1]]:1: note: scope
module attributes {transform.with_named_sequence} {
  func.func @f() {
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    transform.alternatives {
    ^bb0(%s: !transform.any_op):
      transform.yield
    }
    transform.yield
  }
}

// -----

// Targets beside the script: everything runs.
// OUT-LABEL: func.func @beside
// OUT-NEXT: %[[S:.*]] = arith.addi %arg0, %arg0 {alt} : i32
// OUT-NEXT: return %[[S]] : i32
module attributes {transform.with_named_sequence} {
  func.func @beside(%x: i32) -> i32 {
    %c0 = arith.constant 0 : i32
    %a = arith.addi %x, %c0 : i32
    %b = arith.addi %x, %c0 : i32
    %d = arith.muli %x, %x : i32
    %s = arith.addi %a, %b : i32
    return %s : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_cse to %f : !transform.any_op
    transform.apply_dce to %f : !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %g = transform.apply_registered_pass "canonicalize" to %f : (!transform.any_op) -> !transform.any_op
    transform.alternatives %g : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %adds = transform.structured.match ops{["arith.addi"]} in %s : (!transform.any_op) -> !transform.any_op
      transform.annotate %adds "alt" : !transform.any_op
    }
    transform.yield
  }
}
