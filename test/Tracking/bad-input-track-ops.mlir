// --track-ops names are checked before the pipeline runs: an op the context
// does not know, or something that is not an op name, is an error.
// RUN: not tracking-opt %s --canonicalize --track-ops=x.y 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tracking-opt %s --canonicalize --track-ops=arith.addi,arith.nosuch --debug-tracking 2>&1 | FileCheck %s --check-prefix=UNKNOWNOP
// RUN: not tracking-opt %s --canonicalize --track-ops=addi 2>&1 | FileCheck %s --check-prefix=NODOT
// RUN: not tracking-opt %s --canonicalize --track-ops=, 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not tracking-opt %s --canonicalize --track-ops=x.y 2>/dev/null | FileCheck %s --check-prefix=STDOUT --allow-empty
// An unregistered name is fine once unregistered dialects are allowed.
// RUN: tracking-opt %s --canonicalize --allow-unregistered-dialect --track-ops=x.y,arith.addi --debug-tracking 2>&1 | FileCheck %s --check-prefix=ALLOWED

// UNKNOWN: error: --track-ops: unknown operation 'x.y'
// UNKNOWN-NOT: tracking:
// UNKNOWNOP: error: --track-ops: unknown operation 'arith.nosuch'
// UNKNOWNOP-NOT: tracking:
// NODOT: error: --track-ops: 'addi' is not an operation name (expected 'dialect.op' or 'all')
// EMPTY: error: --track-ops: '' is not an operation name
// STDOUT-NOT: func.func
// ALLOWED: tracking: tracking 1 ops
// ALLOWED: tracking: summary: 1 tracked ops: 1 live, 0 erased, 0 invalidated
// ALLOWED: func.func @f

func.func @f(%arg0: i32) -> i32 {
  %0 = arith.addi %arg0, %arg0 : i32
  return %0 : i32
}
