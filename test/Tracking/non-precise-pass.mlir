// A pass that does not report its rewrites invalidates every handle strictly
// nested in its anchor; a precise pass doing the same rewrite is followed.
// RUN: tracking-opt %s --test-tracking-add-nsw-untracked --track-ops=arith.addi,func.func,builtin.module --debug-tracking 2>&1 | FileCheck %s --check-prefix=UNTRACKED
// RUN: tracking-opt %s --test-tracking-add-nsw --track-ops=arith.addi,func.func,builtin.module --debug-tracking 2>&1 | FileCheck %s --check-prefix=PRECISE

// UNTRACKED: tracking: tracking 4 ops
// UNTRACKED-DAG: tracking: test-tracking-add-nsw-untracked on builtin.module: func.func at {{.*}}: invalidated (pass is not precise)
// UNTRACKED-DAG: tracking: test-tracking-add-nsw-untracked on builtin.module: arith.addi at {{.*}}: invalidated (pass is not precise)
// UNTRACKED-NOT: builtin.module at {{.*}}: invalidated
// UNTRACKED: tracking: summary: 4 tracked ops: 1 live, 0 erased, 3 invalidated

// PRECISE: tracking: tracking 4 ops
// PRECISE-DAG: tracking: test-tracking-add-nsw on builtin.module: arith.addi at loc({{.*}}:[[@LINE+6]]:8): replaced by arith.addi at loc({{.*}}:[[@LINE+6]]:8) (pattern {{.*}}MarkAddINoSignedWrap)
// PRECISE-DAG: tracking: test-tracking-add-nsw on builtin.module: arith.addi at loc({{.*}}:[[@LINE+6]]:8): replaced by arith.addi at loc({{.*}}:[[@LINE+6]]:8) (pattern {{.*}}MarkAddINoSignedWrap)
// PRECISE: tracking: summary: 4 tracked ops: 4 live, 0 erased, 0 invalidated

func.func @f(%arg0: i32) -> i32 {
  %c5 = arith.constant 5 : i32
  %0 = arith.addi %c5, %arg0 : i32
  %1 = arith.addi %0, %arg0 : i32
  return %1 : i32
}
