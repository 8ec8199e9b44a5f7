// A module of 10000 functions (110000 lines, 100001 ops) with every op
// tracked: precise and non-precise pipelines finish in about a second and
// print what mlir-opt prints.
//
// RUN: %PYTHON %S/Inputs/generate_large.py 10000 > %t.mlir
// RUN: tracking-opt %t.mlir --pass-pipeline='builtin.module(canonicalize,cse)' --track-ops=all --debug-tracking 2>&1 >%t.precise | FileCheck %s --check-prefix=PRECISE
// RUN: %mlir_opt %t.mlir --pass-pipeline='builtin.module(canonicalize,cse)' | diff - %t.precise
// RUN: tracking-opt %t.mlir --pass-pipeline='builtin.module(func.func(sccp,canonicalize),symbol-dce)' --track-ops=all --debug-tracking 2>&1 >%t.mixed | FileCheck %s --check-prefix=MIXED
// RUN: %mlir_opt %t.mlir --pass-pipeline='builtin.module(func.func(sccp,canonicalize),symbol-dce)' | diff - %t.mixed

// PRECISE: tracking: tracking 100001 ops
// PRECISE: tracking: summary: 100001 tracked ops: 80001 live, 20000 erased, 0 invalidated
// MIXED: tracking: tracking 100001 ops
// MIXED: tracking: summary: 100001 tracked ops: 1 live, 0 erased, 100000 invalidated
