// Scripts whose run must not depend on which ops are tracked: the tracked
// interpreter prints what upstream's prints, whatever --track-ops holds.
// - A conversion that preserves handles wants a replacement for every handle
//   it sees alive: the tracked ops' own (hidden) handles made it fail ("failed
//   to find replacement op"), or crash in upstream's listener; they are
//   released before it, and end invalidated.
// - An entry that yields a handle into payload a transform op consumed
//   failed the run; its result comes back empty instead.
// RUN: tracking-opt %s --split-input-file --tracked-transform-interpreter --track-ops=all --debug-tracking 2>&1 >/dev/null | FileCheck %s
// RUN: tracking-opt %s --split-input-file --tracked-transform-interpreter --track-ops=all 2>/dev/null > %t.ours
// RUN: %mlir_opt %s --split-input-file --transform-interpreter 2>/dev/null > %t.upstream
// RUN: diff %t.ours %t.upstream

// CHECK: arith.constant at loc({{.*}}:[[@LINE+5]]:{{[0-9]+}}): invalidated (inside payload converted by 'transform.apply_conversion_patterns' with preserve_handles, which follows only the script's own handles)
// The function, which the script's own handle holds, is followed.
// CHECK: summary: 14 tracked ops: 8 live, 0 erased, 6 invalidated
module attributes {transform.with_named_sequence} {
  func.func @f(%n: index, %cond: i1) -> index {
    %c4 = arith.constant 4 : index
    %r = scf.if %cond -> index {
      %b = arith.muli %n, %c4 : index
      scf.yield %b : index
    } else {
      scf.yield %n : index
    }
    return %r : index
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_conversion_patterns to %f {
      transform.apply_conversion_patterns.dialect_to_llvm "arith"
    } with type_converter {
      transform.apply_conversion_patterns.memref.memref_to_llvm_type_converter
    } {legal_dialects = ["llvm"], partial_conversion, preserve_handles} : !transform.any_op
    transform.yield
  }
}

// -----

// CHECK: arith.addi at loc({{.*}}:[[@LINE+5]]:{{[0-9]+}}): invalidated (inside payload consumed by 'transform.apply_registered_pass')
// CHECK: summary: 11 tracked ops: 6 live, 0 erased, 5 invalidated
module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %c1 = arith.constant 1 : i32
    %x = arith.addi %a, %c1 : i32
    %y = arith.addi %x, %c1 : i32
    return %y : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %add = transform.structured.match ops{["arith.addi"]} in %root : (!transform.any_op) -> !transform.any_op
    %f2 = transform.apply_registered_pass "canonicalize" to %f : (!transform.any_op) -> !transform.any_op
    transform.yield %add : !transform.any_op
  }
}

