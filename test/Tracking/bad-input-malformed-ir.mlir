// Malformed IR is rejected with the parser's error before any handle is
// taken or any pass runs; nothing is printed on stdout.
// RUN: not tracking-opt %s --split-input-file --canonicalize --track-ops=all --debug-tracking 2>&1 | FileCheck %s
// RUN: not tracking-opt %s --split-input-file --canonicalize --track-ops=all --debug-tracking 2>/dev/null | FileCheck %s --check-prefix=STDOUT --allow-empty

// STDOUT-NOT: func.func
// CHECK-NOT: tracking: tracking
// CHECK-NOT: PLEASE submit a bug report

// CHECK: bad-input-malformed-ir.mlir:[[@LINE+1]]:14: error: expected non-function type
func.func @f( {

// -----

// CHECK: error: use of undeclared SSA value name
func.func @g(%a: i32) -> i32 {
  %0 = arith.addi %a, %undefined : i32
  return %0 : i32
}

// -----

// CHECK: error: custom op 'arith.nosuchop' is unknown
func.func @h(%a: i32) {
  %0 = arith.nosuchop %a : i32
  return
}

// -----

// CHECK: error: Dialect `nosuchdialect' not found for custom op 'nosuchdialect.op'
func.func @i() {
  nosuchdialect.op
  return
}

// -----

// CHECK: error: use of value '%a' expects different type than prior uses: 'i64' vs 'i32'
func.func @j(%a: i32) -> i64 {
  %0 = arith.addi %a, %a : i64
  return %0 : i64
}

// -----

// CHECK: error: expected operation name in quotes
func.func @truncated(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
