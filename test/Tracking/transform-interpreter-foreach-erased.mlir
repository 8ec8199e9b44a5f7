// A transform.foreach maps each iteration from the payload it copied when it
// began and returns what its iterations yielded, even where an iteration
// erased them: a body that canonicalizes the function holding the ops of
// later iterations (two equal constants merged), runs a pass that erases them
// unseen (symbol-dce, which consumes the module's handle), or erases an op an
// earlier iteration yielded made upstream read freed memory (`mlir-opt`
// segfaults or annotates a freed op). The tracked interpreter stops such a
// foreach with an error before the read; a body that changes only its own
// payload runs as upstream's (nested, zipped with parameters, results used).
// RUN: sed -n '1,/^\/\/ -----/p' %s > %t.first.mlir
// RUN: tracking-opt %t.first.mlir --tracked-transform-interpreter --track-ops=all > %t.ours
// RUN: %mlir_opt %t.first.mlir --transform-interpreter > %t.upstream
// RUN: diff %t.ours %t.upstream
// RUN: FileCheck %s --check-prefix=LEGAL < %t.ours
// RUN: not tracking-opt %s --split-input-file --tracked-transform-interpreter --track-ops=all 2>&1 >/dev/null | FileCheck %s --check-prefix=ERR
// RUN: not tracking-opt %s --split-input-file --tracked-transform-interpreter --track-ops=func.return 2>&1 >/dev/null | FileCheck %s --check-prefix=ERR

// LEGAL-LABEL: func.func @f
// LEGAL-SAME: attributes {outer = 1 : i64}
// LEGAL-NEXT: arith.muli {{.*}} {inner}
// LEGAL-LABEL: func.func @g
// LEGAL-SAME: attributes {outer = 1 : i64}
// LEGAL-NEXT: return
module attributes {transform.with_named_sequence} {
  func.func @f(%x: i32) -> i32 {
    %a = arith.constant 0 : i32
    %b = arith.addi %x, %a : i32
    %c = arith.muli %b, %b : i32
    return %c : i32
  }
  func.func @g(%x: i32) -> i32 {
    %a = arith.constant 0 : i32
    %b = arith.addi %x, %a : i32
    return %b : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %fs = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %p = transform.param.constant 1 : i64 -> !transform.param<i64>
    %ps = transform.merge_handles %p, %p, %p : !transform.param<i64>
    %r:2 = transform.foreach %fs, %ps : !transform.any_op, !transform.param<i64> -> !transform.any_op, !transform.param<i64> {
    ^bb0(%f: !transform.any_op, %q: !transform.param<i64>):
      %adds = transform.structured.match ops{["arith.addi", "arith.muli"]} in %f : (!transform.any_op) -> !transform.any_op
      %k = transform.foreach %adds : !transform.any_op -> !transform.any_op {
      ^bb1(%add: !transform.any_op):
        transform.annotate %add "inner" : !transform.any_op
        transform.yield %add : !transform.any_op
      }
      transform.apply_patterns to %f { transform.apply_patterns.canonicalization } : !transform.any_op
      transform.yield %f, %q : !transform.any_op, !transform.param<i64>
    } {with_zip_shortest}
    transform.annotate %r#0 "outer" = %r#1 : !transform.any_op, !transform.param<i64>
    transform.yield
  }
}

// -----

// ERR: [[@LINE+10]]:5: error: a transform.foreach body erased or replaced payload that a later iteration is applied to
module attributes {transform.with_named_sequence} {
  func.func @f() -> (i32, i32) {
    %a = arith.constant 1 : i32
    %b = arith.constant 1 : i32
    return %a, %b : i32, i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %cs = transform.structured.match ops{["arith.constant"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %cs : !transform.any_op {
    ^bb0(%c: !transform.any_op):
      transform.apply_patterns to %f { transform.apply_patterns.canonicalization } : !transform.any_op
      transform.annotate %c "seen" : !transform.any_op
    }
    transform.yield
  }
}

// -----

// ERR: [[@LINE+11]]:5: error: a transform.foreach body erased or replaced payload that a later iteration is applied to
module attributes {transform.with_named_sequence} {
  func.func @f() -> (i32, i32) {
    %a = arith.constant 1 : i32
    %b = arith.constant 1 : i32
    return %a, %b : i32, i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %cs = transform.structured.match ops{["arith.constant"]} in %root : (!transform.any_op) -> !transform.any_op
    %vs = transform.get_result %cs[0] : (!transform.any_op) -> !transform.any_value
    transform.foreach %vs : !transform.any_value {
    ^bb0(%v: !transform.any_value):
      transform.apply_patterns to %f { transform.apply_patterns.canonicalization } : !transform.any_op
      %d = transform.get_defining_op %v : (!transform.any_value) -> !transform.any_op
      transform.annotate %d "seen" : !transform.any_op
    }
    transform.yield
  }
}

// -----

// ERR: [[@LINE+8]]:5: error: a transform.foreach body erased or replaced payload that a later iteration is applied to
module attributes {transform.with_named_sequence} {
  module @payload {
    func.func private @a() { return }
    func.func private @b() { return }
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %fs = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %fs : !transform.any_op {
    ^bb0(%f: !transform.any_op):
      %m = transform.get_parent_op %f {op_name = "builtin.module"} : (!transform.any_op) -> !transform.any_op
      transform.apply_registered_pass "symbol-dce" to %m : (!transform.any_op) -> !transform.any_op
    }
    transform.yield
  }
}

// -----

// ERR: [[@LINE+10]]:13: error: a transform.foreach body erased or replaced payload that a later iteration is applied to or that an earlier iteration yielded
module attributes {transform.with_named_sequence} {
  func.func @f() {
    %dead = arith.constant 7 : i32
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %c = transform.structured.match ops{["arith.constant"]} in %root : (!transform.any_op) -> !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %both = transform.merge_handles %c, %f : !transform.any_op
    %seen = transform.foreach %both : !transform.any_op -> !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.apply_patterns to %op { transform.apply_patterns.canonicalization } : !transform.any_op
      transform.yield %op : !transform.any_op
    }
    transform.annotate %seen "seen" : !transform.any_op
    transform.yield
  }
}

// -----

// A typed block argument: upstream reads the freed op when it maps it.
// ERR: [[@LINE+10]]:5: error: a transform.foreach body erased or replaced payload that a later iteration is applied to
module attributes {transform.with_named_sequence} {
  func.func @f() -> (i32, i32) {
    %a = arith.constant 1 : i32
    %b = arith.constant 1 : i32
    return %a, %b : i32, i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %cs = transform.structured.match ops{["arith.constant"]} in %root : (!transform.any_op) -> !transform.op<"arith.constant">
    transform.foreach %cs : !transform.op<"arith.constant"> {
    ^bb0(%c: !transform.op<"arith.constant">):
      transform.apply_patterns to %f { transform.apply_patterns.canonicalization } : !transform.any_op
      transform.annotate %c "seen" : !transform.op<"arith.constant">
    }
    transform.yield
  }
}
