// Invalid pipelines and pass options: a clear error, no handle is taken, no
// IR is printed, no crash.
// RUN: not tracking-opt %s --pass-pipeline='builtin.module(nosuchpass)' --track-ops=all --debug-tracking 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tracking-opt %s --pass-pipeline='builtin.module(canonicalize{max-iterations=abc})' --track-ops=all --debug-tracking 2>&1 | FileCheck %s --check-prefix=BADVALUE
// RUN: not tracking-opt %s --pass-pipeline='builtin.module(canonicalize{region-simplify=sometimes})' --track-ops=all 2>&1 | FileCheck %s --check-prefix=BADENUM
// RUN: not tracking-opt %s --pass-pipeline='builtin.module(cse{bogus=1})' --track-ops=all --debug-tracking 2>&1 | FileCheck %s --check-prefix=BADOPTION
// RUN: not tracking-opt %s --pass-pipeline='builtin.module(func.func(canonicalize)' --track-ops=all 2>&1 | FileCheck %s --check-prefix=UNBALANCED
// RUN: not tracking-opt %s --pass-pipeline='func.func(canonicalize)' --track-ops=all 2>&1 | FileCheck %s --check-prefix=WRONGROOT
// RUN: not tracking-opt %s --pass-pipeline='builtin.module(cse)' --canonicalize --track-ops=all 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: not tracking-opt %s --pass-pipeline='builtin.module(nosuchpass)' --track-ops=all 2>/dev/null | FileCheck %s --check-prefix=STDOUT --allow-empty

// UNKNOWN: error: {{.*}}'nosuchpass' does not refer to a registered pass or pass pipeline
// UNKNOWN-NOT: tracking:
// BADVALUE: 'abc' value invalid
// BADVALUE: failed to add `canonicalize` with options `max-iterations=abc`
// BADVALUE-NOT: tracking:
// BADENUM: Cannot find option named 'sometimes'
// BADENUM: failed to add `canonicalize` with options `region-simplify=sometimes`
// BADOPTION: no such option bogus
// BADOPTION-NOT: tracking:
// UNBALANCED: error: {{.*}}encountered unbalanced parentheses while parsing pipeline
// WRONGROOT: error: {{.*}}builtin.module
// BOTH: error: '-pass-pipeline' option can't be used with individual pass options
// STDOUT-NOT: func.func

func.func @f(%arg0: i32) -> i32 {
  %0 = arith.addi %arg0, %arg0 : i32
  return %0 : i32
}
