// The tracked transform interpreter settles each tracked op from the
// transform dialect's own tracking: followed to a replacement that a live
// transform handle needed, erased when dropped, invalidated inside payload
// that a transform op consumed (a pass run by the script frees ops unseen)
// and everywhere under the anchor when the script fails. It prints what
// upstream's interpreter prints.
// RUN: not tracking-opt %s --split-input-file --tracked-transform-interpreter --track-ops=arith.addi,arith.muli,func.func --debug-tracking 2>&1 >/dev/null | FileCheck %s
// RUN: not tracking-opt %s --split-input-file --tracked-transform-interpreter --track-ops=all 2>/dev/null > %t.ours
// RUN: not %mlir_opt %s --split-input-file --transform-interpreter 2>/dev/null > %t.upstream
// RUN: diff %t.ours %t.upstream

// CHECK: tracking: tracking 4 ops
// CHECK: tracking: tracked-transform-interpreter on builtin.module: arith.addi at loc({{.*}}:[[@LINE+10]]:10): erased; dropped by the transform interpreter's tracking
// CHECK: tracking: tracked-transform-interpreter on builtin.module: arith.addi at loc({{.*}}:[[@LINE+10]]:10): replaced by arith.addi at loc(fused[{{.*}}]); followed by the transform interpreter
// CHECK: tracking: tracked-transform-interpreter on builtin.module: arith.muli at loc({{.*}}:[[@LINE+10]]:13): erased; dropped by the transform interpreter's tracking
// CHECK: tracking: summary: 4 tracked ops: 2 live, 2 erased, 0 invalidated

module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    // (a + 1) + 2 becomes a + 3: a new arith.addi replaces the outer one.
    %x = arith.addi %a, %c1 : i32
    %y = arith.addi %x, %c2 : i32
    %dead = arith.muli %a, %a : i32
    return %y : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %adds = transform.structured.match ops{["arith.addi"]} in %f : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    // Uses %adds after the patterns: the interpreter must follow them.
    transform.annotate %adds "seen" : !transform.any_op
    transform.yield
  }
}

// -----

// CHECK: tracking: tracking 3 ops
// CHECK-DAG: tracking: tracked-transform-interpreter on builtin.module: func.func at loc({{.*}}:[[@LINE+6]]:3): invalidated (inside payload consumed by 'transform.apply_registered_pass')
// CHECK-DAG: tracking: tracked-transform-interpreter on builtin.module: arith.addi at loc({{.*}}:[[@LINE+6]]:10): invalidated (inside payload consumed by 'transform.apply_registered_pass')
// CHECK-DAG: tracking: tracked-transform-interpreter on builtin.module: arith.muli at loc({{.*}}:[[@LINE+6]]:10): invalidated (inside payload consumed by 'transform.apply_registered_pass')
// CHECK: tracking: summary: 3 tracked ops: 0 live, 0 erased, 3 invalidated

module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %x = arith.addi %a, %a : i32
    %d = arith.muli %a, %a : i32
    return %x : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %f2 = transform.apply_registered_pass "canonicalize" to %f : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// CHECK: tracking: tracking 2 ops
// CHECK: error: only ops implementing TilingInterface are supported
// CHECK-DAG: tracking: tracked-transform-interpreter on builtin.module: func.func at loc({{.*}}:[[@LINE+5]]:3): invalidated (the transform script failed)
// CHECK-DAG: tracking: tracked-transform-interpreter on builtin.module: arith.addi at loc({{.*}}:[[@LINE+5]]:10): invalidated (the transform script failed)
// CHECK: tracking: summary: 2 tracked ops: 0 live, 0 erased, 2 invalidated

module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %x = arith.addi %a, %a : i32
    return %x : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %adds = transform.structured.match ops{["arith.addi"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %loops = transform.structured.tile_using_for %adds tile_sizes [4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
