// A nested pipeline anchors each pass on each function. The non-precise pass
// invalidates only the handles inside the functions: the func.func ops, the
// module and the global outside them stay live.
// RUN: tracking-opt %s --pass-pipeline='builtin.module(func.func(canonicalize,test-tracking-add-nsw-untracked))' --track-ops=all --debug-tracking 2>&1 | FileCheck %s

// CHECK: tracking: tracking 10 ops
// CHECK-DAG: tracking: canonicalize on func.func @a: arith.addi at {{.*}}: replaced by arith.constant
// CHECK-DAG: tracking: test-tracking-add-nsw-untracked on func.func @a: arith.constant at {{.*}}: invalidated (pass is not precise)
// CHECK-DAG: tracking: test-tracking-add-nsw-untracked on func.func @a: func.return at {{.*}}: invalidated (pass is not precise)
// CHECK-DAG: tracking: test-tracking-add-nsw-untracked on func.func @b: arith.muli at {{.*}}: invalidated (pass is not precise)
// CHECK-DAG: tracking: test-tracking-add-nsw-untracked on func.func @b: func.return at {{.*}}: invalidated (pass is not precise)
// CHECK-NOT: func.func at {{.*}}: invalidated
// CHECK-NOT: memref.global at {{.*}}: invalidated
// CHECK: tracking: summary: 10 tracked ops: 4 live, 2 erased, 4 invalidated

memref.global "private" constant @g : memref<i32> = dense<7>

func.func @a() -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %0 = arith.addi %c1, %c2 : i32
  return %0 : i32
}

func.func @b(%arg0: i32) -> i32 {
  %0 = arith.muli %arg0, %arg0 : i32
  return %0 : i32
}
