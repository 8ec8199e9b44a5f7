// examples/cpp/tracked_rewrite.cpp: handles to the ops named with loc("...")
// follow the tracked walk driver (a pattern replacing muli by shli), the
// tracked greedy driver (a fold to a constant, a fold to a block argument)
// and the tracked arith-to-LLVM conversion.

// RUN: tracked-rewrite-example %s | FileCheck %s
// RUN: not tracked-rewrite-example 2>&1 | FileCheck %s --check-prefix=USAGE
// USAGE: usage: {{.*}}tracked-rewrite-example input.mlir

func.func @f(%a: i32, %b: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c8 = arith.constant 8 : i32
  %three = arith.addi %c1, %c2 : i32 loc("three")
  %same = arith.addi %a, %c0 : i32 loc("same")
  %scaled = arith.muli %b, %c8 : i32 loc("scaled")
  %sum = arith.addi %scaled, %three : i32 loc("sum")
  %r = arith.xori %sum, %same : i32 loc("r")
  return %r : i32 loc("return")
} loc("f")

// Handles in walk order (post-order: the function last).
// CHECK-LABEL: after walk:
// CHECK-NEXT:   three: live arith.addi
// CHECK-NEXT:   same: live arith.addi
// CHECK-NEXT:   scaled: live arith.shli
// CHECK-NEXT:     walk on builtin.module: arith.muli at loc("scaled"): replaced by arith.shli at loc("scaled") (walk pattern driver)
// CHECK-NEXT:   sum: live arith.addi
// CHECK-NEXT:   r: live arith.xori
// CHECK-NEXT:   return: live func.return
// CHECK-NEXT:   f: live func.func

// The fold of "three" gives a constant 3, which the driver then merges into
// the shift amount (also 3) that the walk created.
// CHECK-LABEL: after greedy patterns:
// CHECK-NEXT:   three: live arith.constant
// CHECK-NEXT:     greedy patterns on builtin.module: arith.addi at loc("three"): replaced by arith.constant at loc("three") (folded)
// CHECK-NEXT:     greedy patterns on builtin.module: arith.constant at loc("three"): replaced by arith.constant at loc("scaled") (folded)
// CHECK-NEXT:   same: erased
// CHECK-NEXT:     greedy patterns on builtin.module: arith.addi at loc("same"): erased (folded); replacement values have no single defining op
// CHECK-NEXT:   scaled: live arith.shli
// CHECK-NEXT:     walk on builtin.module
// CHECK-NEXT:   sum: live arith.addi
// CHECK-NEXT:   r: live arith.xori
// CHECK-NEXT:   return: live func.return
// CHECK-NEXT:   f: live func.func

// CHECK-LABEL: after arith to llvm:
// CHECK-NEXT:   three: live llvm.mlir.constant
// CHECK-NEXT:     greedy patterns
// CHECK-NEXT:     greedy patterns
// CHECK-NEXT:     arith to llvm on builtin.module: arith.constant at loc("scaled"): replaced by llvm.mlir.constant {{.*}}(pattern ConstantOpLowering)
// CHECK-NEXT:   same: erased
// CHECK-NEXT:     greedy patterns
// CHECK-NEXT:   scaled: live llvm.shl
// CHECK-NEXT:     walk on builtin.module
// CHECK-NEXT:     arith to llvm on builtin.module: arith.shli at loc("scaled"): replaced by llvm.shl at loc("scaled") (pattern {{.*}}ShLIOp
// CHECK-NEXT:   sum: live llvm.add
// CHECK-NEXT:     arith to llvm on builtin.module: arith.addi at loc("sum"): replaced by llvm.add at loc("sum")
// CHECK-NEXT:   r: live llvm.xor
// CHECK-NEXT:     arith to llvm on builtin.module: arith.xori at loc("r"): replaced by llvm.xor at loc("r")
// CHECK-NEXT:   return: live func.return
// CHECK-NEXT:   f: live func.func

// CHECK:      func.func @f(%arg0: i32, %arg1: i32) -> i32 {
// CHECK-NEXT:   %[[C3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT:   %[[SHL:.*]] = llvm.shl %arg1, %[[C3]] : i32
// CHECK-NEXT:   %[[ADD:.*]] = llvm.add %[[SHL]], %[[C3]] : i32
// CHECK-NEXT:   %[[XOR:.*]] = llvm.xor %[[ADD]], %arg0 : i32
// CHECK-NEXT:   return %[[XOR]] : i32
