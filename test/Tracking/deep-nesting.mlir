// 3000 nested scf.if ops: precise and non-precise pipelines handle 6004
// tracked ops without crashing, and print what mlir-opt prints.
//
// Limit: upstream MLIR 22 itself overflows the stack (8 MiB, the default
// `ulimit -s`) somewhere between 3600 and 4000 levels in the parser, before
// any pass runs, in mlir-opt and tracking-opt alike; 3000 is the deepest
// round depth that works for both. canonicalize after convert-scf-to-cf on
// this input takes about a minute upstream (6000-block CFG), so it is not run.
//
// RUN: %PYTHON %S/Inputs/generate_deep.py 3000 > %t.mlir
// RUN: tracking-opt %t.mlir --canonicalize --track-ops=all --debug-tracking 2>&1 >%t.canon | FileCheck %s --check-prefix=CANON
// RUN: %mlir_opt %t.mlir --canonicalize | diff - %t.canon
// RUN: tracking-opt %t.mlir --pass-pipeline='builtin.module(func.func(sccp,cse))' --track-ops=all --debug-tracking 2>&1 >%t.sccp | FileCheck %s --check-prefix=SCCP
// RUN: %mlir_opt %t.mlir --pass-pipeline='builtin.module(func.func(sccp,cse))' | diff - %t.sccp
// RUN: tracking-opt %t.mlir --pass-pipeline='builtin.module(cse,symbol-dce,inline)' --track-ops=scf.if,func.func --debug-tracking 2>&1 >%t.cse | FileCheck %s --check-prefix=CSE
// RUN: %mlir_opt %t.mlir --pass-pipeline='builtin.module(cse,symbol-dce,inline)' | diff - %t.cse

// CANON: tracking: tracking 6004 ops
// CANON: tracking: summary: 6004 tracked ops: 3 live, 6001 erased, 0 invalidated
// CANON-NOT: PLEASE submit a bug report

// SCCP: tracking: tracking 6004 ops
// SCCP: tracking: summary: 6004 tracked ops: 2 live, 0 erased, 6002 invalidated

// CSE: tracking: tracking 3001 ops
// CSE: tracking: symbol-dce on builtin.module: func.func at {{.*}}: invalidated (pass is not precise)
// CSE: tracking: summary: 3001 tracked ops: 0 live, 3000 erased, 1 invalidated
