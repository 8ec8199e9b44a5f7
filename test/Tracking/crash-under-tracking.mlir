// A pass that crashes under tracking flags gets LLVM's crash report, as
// under mlir-opt (the tracked path once skipped InitLLVM: no stack dump, no
// banner).
// RUN: not --crash tracking-opt %s --test-tracking-crash 2>&1 | FileCheck %s
// RUN: not --crash tracking-opt %s --test-tracking-crash --track-ops=all 2>&1 | FileCheck %s
// RUN: not --crash tracking-opt %s --test-tracking-crash --debug-tracking 2>&1 | FileCheck %s

// CHECK: PLEASE submit a bug report
// CHECK: Stack dump:
// CHECK: Program arguments: {{.*}}tracking-opt

func.func @f() {
  return
}
