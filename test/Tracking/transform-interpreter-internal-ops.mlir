// The tracked interpreter's own ops in a user's script are refused before
// anything runs, as upstream's interpreter refuses them (there they are
// unregistered); on the tracked route they found the run and changed what
// it recorded (a handle became "inside payload consumed by 'evil'").
// RUN: not tracking-opt %s --split-input-file --tracked-transform-interpreter --track-ops=all --debug-tracking 2>&1 | FileCheck %s

// CHECK: error: 'transform.tracking.note_consumed' is internal to mlir-tracking's tracked transform interpreter and cannot be used in a script
// CHECK: tracking: summary: 8 tracked ops: 8 live, 0 erased, 0 invalidated
module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %x = arith.addi %a, %a : i32
    return %x : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.tracking.note_consumed %f by "evil" : !transform.any_op
    transform.yield
  }
}

// -----

// CHECK: error: 'transform.tracking.walk_step' is internal to mlir-tracking's tracked transform interpreter and cannot be used in a script
// CHECK: tracking: summary: 9 tracked ops: 9 live, 0 erased, 0 invalidated
module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %x = arith.addi %a, %a : i32
    return %x : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %p = transform.param.constant 0 : i64 -> !transform.param<i64>
    transform.tracking.walk_step %p : !transform.param<i64> {
      transform.yield
    }
    transform.yield
  }
}

// -----

// CHECK: error: 'transform.tracking.check_held' is internal to mlir-tracking's tracked transform interpreter and cannot be used in a script
// CHECK: tracking: summary: 8 tracked ops: 8 live, 0 erased, 0 invalidated
module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %x = arith.addi %a, %a : i32
    return %x : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    transform.tracking.check_held %root for "evil" : !transform.any_op
    transform.tracking.check_consumed 0
    transform.yield
  }
}
