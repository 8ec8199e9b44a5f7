// The tracked transform interpreter nested under func.func runs on several
// functions at once with threading on: its ops are loaded with the
// pipeline (getDependentDialects), not by each run while other threads use
// the context. It prints what upstream's interpreter prints.
// RUN: tracking-opt %s --pass-pipeline="builtin.module(transform-preload-library{transform-library-paths=%p/Inputs/canonicalize-sequence.mlir},func.func(tracked-transform-interpreter))" --track-ops=all > %t.ours
// RUN: %mlir_opt %s --pass-pipeline="builtin.module(transform-preload-library{transform-library-paths=%p/Inputs/canonicalize-sequence.mlir},func.func(transform-interpreter))" > %t.upstream
// RUN: diff %t.ours %t.upstream

func.func @f(%a: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %x = arith.addi %a, %c1 : i32
  %y = arith.addi %x, %c2 : i32
  return %y : i32
}
func.func @g(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %x = arith.addi %a, %c0 : i32
  return %x : i32
}
func.func @h(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %x = arith.addi %a, %c0 : i32
  %y = arith.addi %x, %c0 : i32
  return %y : i32
}
