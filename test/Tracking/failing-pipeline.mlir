// A failing pass still invalidates the handles under its anchor, the error is
// reported, and the tool exits with an error instead of printing IR.
// RUN: not tracking-opt %s --pass-pipeline='builtin.module(func.func(test-tracking-fail))' --track-ops=all --debug-tracking 2>&1 | FileCheck %s

// CHECK: tracking: tracking 4 ops
// CHECK: error: test-tracking-fail: failing on purpose
// CHECK-DAG: tracking: test-tracking-fail on func.func @f: arith.addi at {{.*}}: invalidated (pass is not precise)
// CHECK-DAG: tracking: test-tracking-fail on func.func @f: func.return at {{.*}}: invalidated (pass is not precise)
// CHECK: tracking: summary: 4 tracked ops: 2 live, 0 erased, 2 invalidated
// CHECK-NOT: func.func @f

func.func @f(%arg0: i32) -> i32 {
  %0 = arith.addi %arg0, %arg0 : i32
  return %0 : i32
}
