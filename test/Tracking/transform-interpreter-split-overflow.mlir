// transform.split_handle with an overflow result reserves (payloads -
// results) entries for it before it distributes the payload: with fewer
// payloads than results, when it goes on (an empty handle passed through,
// or fail_on_payload_too_small = false), mlir-opt-22 aborts ("SmallVector
// unable to grow"), and so did apply_named_sequence from Python, which died
// with the process. The tracked interpreter fails with an error there; with
// enough payloads, or where upstream fails first, it runs as upstream's.
// RUN: sed -n '1,/^\/\/ -----/p' %s > %t.first.mlir
// RUN: tracking-opt %t.first.mlir --tracked-transform-interpreter --track-ops=all > %t.ours
// RUN: %mlir_opt %t.first.mlir --transform-interpreter > %t.upstream
// RUN: diff %t.ours %t.upstream
// RUN: FileCheck %s --check-prefix=SPLIT < %t.ours
// RUN: not tracking-opt %s --split-input-file --tracked-transform-interpreter --track-ops=all 2>&1 >/dev/null | FileCheck %s --check-prefix=ERR

// SPLIT: arith.constant {first} 1
// SPLIT: arith.constant {rest} 2
// SPLIT: arith.constant {rest} 3
module attributes {transform.with_named_sequence} {
  func.func @f() -> (i32, i32, i32) {
    %a = arith.constant 1 : i32
    %b = arith.constant 2 : i32
    %c = arith.constant 3 : i32
    return %a, %b, %c : i32, i32, i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %cs = transform.structured.match ops{["arith.constant"]} in %root : (!transform.any_op) -> !transform.any_op
    %first, %rest = transform.split_handle %cs {overflow_result = 1} : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %first "first" : !transform.any_op
    transform.annotate %rest "rest" : !transform.any_op
    transform.yield
  }
}

// -----

// An empty handle, passed through.
module attributes {transform.with_named_sequence} {
  func.func @f() { return }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %none = transform.structured.match ops{["arith.addi"]} in %root : (!transform.any_op) -> !transform.any_op
    // ERR: [[@LINE+1]]:14: error: 'transform.split_handle' with an overflow result got 0 payload(s) for 2 results
    %a, %b = transform.split_handle %none {overflow_result = 1} : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Too few payloads, allowed.
module attributes {transform.with_named_sequence} {
  func.func @f() { return }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %ret = transform.structured.match ops{["func.return"]} in %root : (!transform.any_op) -> !transform.any_op
    // ERR: [[@LINE+1]]:18: error: 'transform.split_handle' with an overflow result got 1 payload(s) for 3 results
    %a, %b, %c = transform.split_handle %ret {overflow_result = 0, fail_on_payload_too_small = false} : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Too few payloads, refused by upstream's op itself (its own error).
module attributes {transform.with_named_sequence} {
  func.func @f() { return }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %ret = transform.structured.match ops{["func.return"]} in %root : (!transform.any_op) -> !transform.any_op
    // ERR: [[@LINE+1]]:14: error: {{.*}} expected to contain 2 payloads but it contains 1 payloads
    %a, %b = transform.split_handle %ret {overflow_result = 1} : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
