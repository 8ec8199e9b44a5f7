// IR that fails verification.
// Before the pipeline: the parser's verifier rejects it; no handle is taken.
// RUN: not tracking-opt %s --canonicalize --track-ops=all --debug-tracking 2>&1 | FileCheck %s --check-prefix=BEFORE
// After a pass: with the verifier on parsing disabled, the pass manager's
// verifier fails after the first pass. That pass counts as failed: its
// handles are reported (invalidated by a non-precise pass, precise events by
// cse), the error is printed, no IR is printed, and nothing crashes.
// RUN: not tracking-opt %s --mlir-very-unsafe-disable-verifier-on-parsing --pass-pipeline='builtin.module(func.func(strip-debuginfo),cse)' --track-ops=all --debug-tracking 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: not tracking-opt %s --mlir-very-unsafe-disable-verifier-on-parsing --pass-pipeline='builtin.module(func.func(cse))' --track-ops=all --debug-tracking 2>&1 | FileCheck %s --check-prefix=PRECISE
// Upstream agrees that the pipeline fails.
// RUN: not %mlir_opt %s --mlir-very-unsafe-disable-verifier-on-parsing --pass-pipeline='builtin.module(func.func(cse))' 2>&1 | FileCheck %s --check-prefix=UPSTREAM

// BEFORE: error: type of return operand 0 ('i64') doesn't match function result type ('i32') in function @f
// BEFORE-NOT: tracking:

// AFTER: tracking: tracking 5 ops
// AFTER: error: type of return operand 0 ('i64') doesn't match function result type ('i32') in function @f
// AFTER-DAG: tracking: strip-debuginfo on func.func @f: arith.constant at {{.*}}: invalidated (pass is not precise)
// AFTER-DAG: tracking: strip-debuginfo on func.func @f: arith.addi at {{.*}}: invalidated (pass is not precise)
// AFTER-DAG: tracking: strip-debuginfo on func.func @f: func.return at {{.*}}: invalidated (pass is not precise)
// AFTER-NOT: cse on
// AFTER: tracking: summary: 5 tracked ops: 2 live, 0 erased, 3 invalidated
// AFTER-NOT: func.func @f

// PRECISE: tracking: tracking 5 ops
// PRECISE: error: type of return operand 0 ('i64') doesn't match function result type ('i32') in function @f
// PRECISE: tracking: cse on func.func @f: arith.addi at {{.*}}: erased (dead code removed by cse)
// PRECISE: tracking: summary: 5 tracked ops: 4 live, 1 erased, 0 invalidated

// UPSTREAM: error: type of return operand 0 ('i64') doesn't match function result type ('i32') in function @f

func.func @f(%a: i32) -> i32 {
  %c = arith.constant 1 : i64
  %0 = arith.addi %a, %a : i32
  return %c : i64
}
