// Tracking never changes what a pipeline produces: tracking-opt with every op
// tracked prints exactly what upstream mlir-opt prints.
// RUN: tracking-opt %s --canonicalize --cse --track-ops=all --debug-tracking 2>/dev/null > %t.ours
// RUN: %mlir_opt %s --canonicalize --cse > %t.upstream
// RUN: diff %t.ours %t.upstream
// RUN: tracking-opt %s --pass-pipeline='builtin.module(inline,func.func(canonicalize{region-simplify=aggressive},cse),symbol-dce,sccp,canonicalize{top-down=false})' --track-ops=all --mlir-print-debuginfo > %t.ours2
// RUN: %mlir_opt %s --pass-pipeline='builtin.module(inline,func.func(canonicalize{region-simplify=aggressive},cse),symbol-dce,sccp,canonicalize{top-down=false})' --mlir-print-debuginfo > %t.upstream2
// RUN: diff %t.ours2 %t.upstream2
// RUN: tracking-opt %s --pass-pipeline='builtin.module(func.func(loop-invariant-code-motion,control-flow-sink,canonicalize,cse),remove-dead-values,canonicalize)' --track-ops=all --mlir-disable-threading > %t.ours3
// RUN: %mlir_opt %s --pass-pipeline='builtin.module(func.func(loop-invariant-code-motion,control-flow-sink,canonicalize,cse),remove-dead-values,canonicalize)' --mlir-disable-threading > %t.upstream3
// RUN: diff %t.ours3 %t.upstream3

func.func private @helper(%a: i32, %b: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %0 = arith.addi %a, %c0 : i32
  %1 = arith.muli %0, %b : i32
  return %1 : i32
}

func.func private @unused() {
  return
}

func.func @main(%arg0: i32, %arg1: index, %cond: i1) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : i32
  %true = arith.constant true
  %0 = call @helper(%arg0, %c4) : (i32, i32) -> i32
  %1 = scf.for %i = %c0 to %arg1 step %c1 iter_args(%acc = %0) -> (i32) {
    %inv = arith.muli %arg0, %c4 : i32
    %s = arith.addi %acc, %inv : i32
    scf.yield %s : i32
  }
  %2 = scf.if %true -> i32 {
    scf.yield %1 : i32
  } else {
    scf.yield %0 : i32
  }
  %3 = arith.addi %2, %2 : i32
  %4 = arith.addi %2, %2 : i32
  %5 = arith.select %cond, %3, %4 : i32
  cf.cond_br %cond, ^bb1, ^bb2
^bb1:
  cf.br ^bb3(%5 : i32)
^bb2:
  cf.br ^bb3(%5 : i32)
^bb3(%r: i32):
  return %r : i32
}
