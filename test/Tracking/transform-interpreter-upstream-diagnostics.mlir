// Errors that upstream's interpreter reports on the entry or on a handle of
// the script: the tracked interpreter reports them in the same words at the
// same places, never on its private copy of the script (hidden arguments,
// internal ops) nor on its hidden arguments.
// RUN: not tracking-opt %s --split-input-file --tracked-transform-interpreter --track-ops=all 2> %t.ours
// RUN: not %mlir_opt %s --split-input-file --transform-interpreter 2> %t.upstream
// RUN: diff %t.ours %t.upstream
// RUN: FileCheck %s < %t.ours

// An entry whose first argument is a parameter: the note shows the user's
// entry (one argument, no internal op).
// CHECK: :[[@LINE+5]]:3: error: 'transform.named_sequence' op expects the first entry block argument to be of type implementing TransformHandleTypeInterface
// CHECK: note: see current operation:
// CHECK-NEXT: function_type = (!transform.param<i64>) -> ()
module attributes {transform.with_named_sequence} {
  func.func @f() { return }
  transform.named_sequence @__transform_main(%root: !transform.param<i64> {transform.readonly}) {
    transform.yield
  }
}

// -----

// An extra argument that nothing binds.
// CHECK: :[[@LINE+4]]:3: error: operation expects 1 extra value bindings, but 0 were provided to the interpreter
// CHECK-NOT: see current operation
module attributes {transform.with_named_sequence} {
  func.func @f() { return }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}, %x: !transform.any_op {transform.readonly}) {
    transform.yield
  }
}

// -----

// A conversion that preserves handles finds no replacement for the tracked
// index_cast: the note names the script's handle %op, not the entry.
// CHECK: note: replacement is required because this handle must be updated
// CHECK-NEXT: %op = transform.structured.match
module attributes {transform.with_named_sequence} {
  func.func @f(%a: i64) -> index {
    %x = arith.index_cast %a : i64 to index
    return %x : index
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["arith.index_cast"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_conversion_patterns to %op {
      transform.apply_conversion_patterns.dialect_to_llvm "arith"
    } with type_converter {
      transform.apply_conversion_patterns.memref.memref_to_llvm_type_converter
    } {legal_dialects = ["llvm"], partial_conversion, preserve_handles} : !transform.any_op
    transform.yield
  }
}
