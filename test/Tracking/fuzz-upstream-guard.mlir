// After the mutations, a case may run a pattern-driver step and then passes.
// Upstream mlir-opt cannot run the driver step, so the fuzzer guards each
// pass that follows one on the IR the step left: a pass upstream crashes on
// there is skipped, never run in the fuzzer's own process. The stand-in
// crashes on every single-pass pipeline but `canonicalize`.

// RUN: rm -rf %t && mkdir -p %t
// RUN: env REAL_MLIR_OPT=%mlir_opt tracking-fuzz --count 40 --verbose --repro-dir %t --mlir-opt %S/Inputs/single-pass-crashing-mlir-opt.sh | FileCheck %s
// CHECK: case {{[0-9]+}}: upstream mlir-opt crashed on {{[a-z-]+}} after a driver step; skipped
// CHECK: 40 cases, {{[0-9]+}} handles checked, 0 findings
