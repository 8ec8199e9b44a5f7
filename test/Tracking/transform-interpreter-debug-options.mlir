// Upstream's debug options of transform-interpreter, on the tracked pass:
// debug-bind-trailing-args binds the entry's arguments after the payload
// root (ops by name, ^name for their results, #1;2 for i64 parameters) and
// debug-payload-root-tag runs the script on the op tagged with
// transform.target_tag. Same output as upstream's, and the handles stay
// precise.
// RUN: tracking-opt %s --split-input-file "--tracked-transform-interpreter=debug-bind-trailing-args=arith.addi,^arith.muli,#3;4" --track-ops=all > %t.ours
// RUN: %mlir_opt %s --split-input-file "--transform-interpreter=debug-bind-trailing-args=arith.addi,^arith.muli,#3;4" > %t.upstream
// RUN: diff %t.ours %t.upstream
// RUN: FileCheck %s --check-prefix=BIND < %t.ours
// RUN: tracking-opt %s --split-input-file "--tracked-transform-interpreter=debug-bind-trailing-args=arith.addi,^arith.muli,#3;4" --track-ops=all --debug-tracking 2>&1 >/dev/null | FileCheck %s --check-prefix=TRACK
// RUN: tracking-opt %s --split-input-file "--tracked-transform-interpreter=debug-payload-root-tag=here debug-bind-trailing-args=arith.addi,^arith.muli,#3;4" --track-ops=all > %t.tag.ours
// RUN: %mlir_opt %s --split-input-file "--transform-interpreter=debug-payload-root-tag=here debug-bind-trailing-args=arith.addi,^arith.muli,#3;4" > %t.tag.upstream
// RUN: diff %t.tag.ours %t.tag.upstream
// RUN: FileCheck %s --check-prefix=TAG < %t.tag.ours
// RUN: not tracking-opt %s --split-input-file "--tracked-transform-interpreter=debug-payload-root-tag=nowhere debug-bind-trailing-args=arith.addi,^arith.muli,#3;4" 2> %t.none.ours
// RUN: not %mlir_opt %s --split-input-file "--transform-interpreter=debug-payload-root-tag=nowhere debug-bind-trailing-args=arith.addi,^arith.muli,#3;4" 2> %t.none.upstream
// RUN: diff %t.none.ours %t.none.upstream
// RUN: FileCheck %s --check-prefix=NONE < %t.none.ours
// RUN: not tracking-opt %s --split-input-file "--tracked-transform-interpreter=debug-bind-trailing-args=arith.addi,^arith.muli,#x" 2> %t.bad.ours
// RUN: not %mlir_opt %s --split-input-file "--transform-interpreter=debug-bind-trailing-args=arith.addi,^arith.muli,#x" 2> %t.bad.upstream
// RUN: diff %t.bad.ours %t.bad.upstream

// Without a tag, both functions' adds are bound and annotated.
// BIND-LABEL: func.func @f
// BIND: arith.addi {{.*}} {bound = 3 : i64}
// BIND-NOT: arith.muli
// BIND-LABEL: func.func @g
// BIND: arith.addi {{.*}} {bound = 3 : i64}
// With the tag, only @g's.
// TAG-LABEL: func.func @f
// TAG-NOT: bound
// TAG-LABEL: func.func @g
// TAG: arith.addi {{.*}} {bound = 3 : i64}
// NONE: error: could not find the operation with transform.target_tag="nowhere" attribute

// The canonicalization folds the muli and its constant away; the handles
// of the other ops stay live on them.
// TRACK: tracking: summary: 20 tracked ops: 16 live, 4 erased, 0 invalidated

module attributes {transform.with_named_sequence} {
  func.func @f(%a: i32) -> i32 {
    %x = arith.addi %a, %a : i32
    %c1 = arith.constant 1 : i32
    %y = arith.muli %x, %c1 : i32
    return %y : i32
  }
  func.func @g(%a: i32) -> i32 attributes {transform.target_tag = "here"} {
    %x = arith.addi %a, %a : i32
    %c1 = arith.constant 1 : i32
    %y = arith.muli %x, %c1 : i32
    return %y : i32
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}, %adds: !transform.any_op {transform.readonly}, %muls: !transform.any_value {transform.readonly}, %params: !transform.param<i64> {transform.readonly}) {
    %p0, %p1 = transform.split_handle %params : (!transform.param<i64>) -> (!transform.param<i64>, !transform.param<i64>)
    transform.annotate %adds "bound" = %p0 : !transform.any_op, !transform.param<i64>
    %m = transform.get_defining_op %muls : (!transform.any_value) -> !transform.any_op
    transform.annotate %m "mul" = %p1 : !transform.any_op, !transform.param<i64>
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
}
