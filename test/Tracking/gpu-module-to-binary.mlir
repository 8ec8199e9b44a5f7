// The GPU passes translate to LLVM IR: tracking-opt registers the
// translations mlir-opt registers (gpu-module-to-binary failed with "missing
// LLVMTranslationDialectInterface registration"), and prints what it prints.
// (The binary records how long the translation took: that number differs.)
// RUN: tracking-opt %s --pass-pipeline='builtin.module(gpu-module-to-binary{format=isa})' --track-ops=all | sed -e 's/TimeInMs = [0-9]*/TimeInMs = N/' > %t.ours
// RUN: %mlir_opt %s --pass-pipeline='builtin.module(gpu-module-to-binary{format=isa})' | sed -e 's/TimeInMs = [0-9]*/TimeInMs = N/' > %t.upstream
// RUN: diff %t.ours %t.upstream
// RUN: FileCheck %s < %t.ours

// CHECK: gpu.binary @kernels
// CHECK-SAME: .entry kernel

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_70">] {
    llvm.func @kernel(%p: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %at = llvm.getelementptr %p[%tid] : (!llvm.ptr, i32) -> !llvm.ptr, f32
      %x = llvm.load %at : !llvm.ptr -> f32
      %y = llvm.fadd %x, %x : f32
      llvm.store %y, %at : f32, !llvm.ptr
      llvm.return
    }
  }
}
