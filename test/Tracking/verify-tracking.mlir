// --verify-tracking checks the handles under each pass's anchor after the
// pass: a pass declared precise that erases ops behind the listener's back
// is named, and its broken handles are invalidated (never left dangling).
// RUN: not tracking-opt %s --pass-pipeline='builtin.module(func.func(test-tracking-dishonest))' --verify-tracking --debug-tracking 2>&1 | FileCheck %s
// Honest precise pipelines pass the check, with threads.
// RUN: tracking-opt %s --pass-pipeline='builtin.module(func.func(canonicalize,cse,test-tracking-patterns),convert-arith-to-llvm)' --verify-tracking | FileCheck %s --check-prefix=HONEST

// CHECK: tracking: tracking 8 ops
// CHECK-DAG: error: tracking verification failed after pass 'test-tracking-dishonest' on func.func @f: handle to 'arith.addi' at loc({{.*}}:[[@LINE+7]]:11) maps an op that is no longer in the IR
// CHECK-DAG: tracking: test-tracking-dishonest on func.func @f: arith.addi at {{.*}}: invalidated (tracking verification: handle to 'arith.addi'
// CHECK: tracking: summary: 8 tracked ops: 7 live, 0 erased, 1 invalidated

// HONEST: llvm.mul
func.func @f(%a: i32, %b: i32) -> i32 {
  %m = arith.muli %a, %b : i32
  %dead = arith.addi %a, %a : i32
  return %m : i32
}
func.func @g(%a: i32, %b: i32) -> i32 {
  %m = arith.muli %a, %b : i32
  return %m : i32
}
