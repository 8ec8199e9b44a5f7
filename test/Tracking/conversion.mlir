// Dialect conversion through the tracked driver: on commit handles follow
// across dialects (names may differ), each event naming the pattern; a
// conversion that fails is rolled back and changes no handle.
// RUN: tracking-opt %s --test-tracking-conversion --debug-tracking 2>&1 >/dev/null | FileCheck %s --check-prefix=COMMIT
// RUN: not tracking-opt %s --test-tracking-conversion=full=true --debug-tracking 2>&1 | FileCheck %s --check-prefix=ROLLBACK
// RUN: tracking-opt %s --convert-arith-to-llvm --debug-tracking 2>&1 >/dev/null | FileCheck %s --check-prefix=LLVM
// The tracked convert-arith-to-llvm produces what mlir-opt's does.
// RUN: tracking-opt %s --convert-arith-to-llvm --verify-tracking > %t.tracked.mlir
// RUN: %mlir_opt %s --convert-arith-to-llvm > %t.upstream.mlir
// RUN: diff %t.tracked.mlir %t.upstream.mlir

// COMMIT: tracking: tracking 11 ops
// COMMIT: tracking: test-tracking-conversion on builtin.module: arith.muli at loc({{.*}}:[[@LINE+18]]:8): replaced by llvm.mul at loc({{.*}}:[[@LINE+18]]:8) (pattern MulIToLLVM)
// COMMIT: tracking: test-tracking-conversion on builtin.module: arith.muli at loc({{.*}}:[[@LINE+28]]:8): replaced by llvm.mul at loc({{.*}}:[[@LINE+28]]:8) (pattern MulIToLLVM)
// COMMIT: tracking: summary: 11 tracked ops: 11 live, 0 erased, 0 invalidated

// The muli is converted first, then the constant fails the full conversion:
// everything is rolled back.
// ROLLBACK: error: failed to legalize operation 'arith.constant'
// ROLLBACK-NOT: replaced
// ROLLBACK: tracking: summary: 11 tracked ops: 11 live, 0 erased, 0 invalidated

// LLVM-DAG: arith.subi at loc({{.*}}:[[@LINE+10]]:8): replaced by llvm.sub at loc({{.*}}:[[@LINE+10]]:8) (pattern {{.*}}VectorConvertToLLVMPattern<mlir::arith::SubIOp
// LLVM-DAG: arith.muli at loc({{.*}}:[[@LINE+7]]:8): replaced by llvm.mul at loc({{.*}}:[[@LINE+7]]:8)
// LLVM-DAG: arith.constant at loc({{.*}}:[[@LINE+7]]:9): replaced by llvm.mlir.constant at loc({{.*}}:[[@LINE+7]]:9) (pattern ConstantOpLowering)
// LLVM-DAG: arith.muli at loc({{.*}}:[[@LINE+14]]:8): replaced by llvm.mul at loc({{.*}}:[[@LINE+14]]:8)
// LLVM-DAG: arith.addi at loc({{.*}}:[[@LINE+14]]:8): replaced by llvm.add at loc({{.*}}:[[@LINE+14]]:8)
// LLVM: tracking: summary: 11 tracked ops: 11 live, 0 erased, 0 invalidated

func.func @f(%a: i32, %b: i32) -> i32 {
  %1 = arith.muli %a, %b : i32
  %c3 = arith.constant 3 : i32
  %0 = arith.subi %1, %c3 : i32
  return %0 : i32
}

// The index ops need materializations (index -> i64): handles look through
// them.
func.func @g(%a: index, %b: i64) -> (index, i64) {
  %1 = arith.muli %a, %a : index
  %0 = arith.addi %1, %a : index
  %2 = arith.muli %b, %b : i64
  return %0, %2 : index, i64
}
