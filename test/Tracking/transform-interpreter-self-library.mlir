// Upstream merges a preloaded library into the module of the entry
// sequence, here the payload: a library sequence applied to the payload
// root then targets its own ancestor, and the tracked interpreter (which
// links the library into its private copy) fails as upstream does.
// RUN: not tracking-opt %s --pass-pipeline="builtin.module(transform-preload-library{transform-library-paths=%p/Inputs/cse-sequence.mlir},tracked-transform-interpreter)" --track-ops=all > %t.ours 2> %t.ours.err
// RUN: not %mlir_opt %s --pass-pipeline="builtin.module(transform-preload-library{transform-library-paths=%p/Inputs/cse-sequence.mlir},transform-interpreter)" > %t.upstream 2> %t.upstream.err
// RUN: diff %t.ours %t.upstream
// RUN: diff %t.ours.err %t.upstream.err
// RUN: FileCheck %s --input-file=%t.ours.err

// CHECK: cse-sequence.mlir:5:5: error: cannot apply transform to itself (or one of its ancestors)
// CHECK: transform-interpreter-self-library.mlir:[[@LINE+1]]:1: note: target payload op
module attributes {transform.with_named_sequence} {
  func.func @f(%x: i32) -> i32 {
    %c0 = arith.constant 0 : i32
    %a = arith.addi %x, %c0 : i32
    %b = arith.addi %x, %c0 : i32
    %s = arith.addi %a, %b : i32
    return %s : i32
  }
  transform.named_sequence private @lib_cse(%r: !transform.any_op {transform.readonly})
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    transform.include @lib_cse failures(propagate) (%root) : (!transform.any_op) -> ()
    transform.yield
  }
}
