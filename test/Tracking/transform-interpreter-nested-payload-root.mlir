// A payload root that is not isolated from above (debug-payload-root-tag on
// a loop): the pass holds its anchor, so the tracked run detaches the
// handles under the anchor and follows them all, those outside the loop
// included (the script climbs to the function with get_parent_op). Same
// output as upstream's; the events say the pass ran on its anchor.
// RUN: tracking-opt %s --split-input-file "--tracked-transform-interpreter=debug-payload-root-tag=root" --track-ops=all > %t.ours 2>&1
// RUN: %mlir_opt %s --split-input-file "--transform-interpreter=debug-payload-root-tag=root" > %t.upstream 2>&1
// RUN: diff %t.ours %t.upstream
// RUN: tracking-opt %s --split-input-file "--tracked-transform-interpreter=debug-payload-root-tag=root" --track-ops=all --debug-tracking 2>&1 >/dev/null | FileCheck %s

// CHECK: tracking: tracking 17 ops
// CHECK-DAG: tracked-transform-interpreter on builtin.module: arith.muli at loc({{.*}}:[[@LINE+8]]:12): erased; dropped by the transform interpreter's tracking
// CHECK-DAG: tracked-transform-interpreter on builtin.module: arith.muli at loc({{.*}}:[[@LINE+11]]:10): erased; dropped by the transform interpreter's tracking
// CHECK: tracking: summary: 17 tracked ops: 15 live, 2 erased, 0 invalidated
module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32, %lb: index, %ub: index, %st: index) -> i32 {
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %a) -> i32 {
      %x = arith.addi %acc, %c1 : i32
      %y = arith.muli %x, %c1 : i32
      scf.yield %y : i32
    } {transform.target_tag = "root"}
    %z = arith.addi %r, %c1 : i32
    %w = arith.muli %z, %c1 : i32
    return %w : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["arith.muli"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.debug.emit_remark_at %m, "the loop's muli" : !transform.any_op
    %f = transform.get_parent_op %root {op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
}

// -----

// A tagged block-less op: the script sees it alone.
// CHECK: tracking: tracking 7 ops
// CHECK: tracking: summary: 7 tracked ops: 7 live, 0 erased, 0 invalidated
module attributes {transform.with_named_sequence} {
  func.func @g(%a: i32) -> i32 {
    %x = arith.addi %a, %a {transform.target_tag = "root"} : i32
    return %x : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    transform.debug.emit_remark_at %root, "the tagged add" : !transform.any_op
    transform.yield
  }
}

// -----

// The script erases its payload root (a loop unrolled away): upstream's pass
// goes on, and so does the tracked one (it failed: "the transform script
// erased its payload root"); the loop's handle ends erased, the function
// around it stays live.
// CHECK: tracking: tracking 12 ops
// CHECK-DAG: scf.for at loc({{.*}}:[[@LINE+8]]:5): erased; erased by the transform script it was the payload root of
// CHECK-DAG: memref.store at loc({{.*}}:[[@LINE+8]]:7): invalidated (inside payload consumed by 'transform.loop.unroll')
// CHECK: tracking: summary: 12 tracked ops: 9 live, 1 erased, 2 invalidated
module attributes {transform.with_named_sequence} {
  func.func @main(%m: memref<4xi32>, %v: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %i = %c0 to %c4 step %c1 {
      memref.store %v, %m[%i] : memref<4xi32>
    } {transform.target_tag = "root"}
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    transform.loop.unroll %root {factor = 4} : !transform.any_op
    transform.yield
  }
}
