// tracking-fuzz writes reproducers to --repro-dir (created if missing), by
// default to a fresh temporary directory, never to the current directory.
// An upstream mlir-opt that crashes makes every case write one.

// RUN: rm -rf %t && mkdir -p %t/cwd %t/tmp %t/tmp-clean

// RUN: cd %t/cwd && env TMPDIR=%t/tmp tracking-fuzz --count 2 --mlir-opt %S/Inputs/crashing-mlir-opt.sh | FileCheck %s --check-prefix=TEMP
// RUN: ls %t/cwd | count 0
// RUN: ls %t/tmp | count 1
// RUN: ls %t/tmp/tracking-fuzz-* | FileCheck %s --check-prefix=FILES
// TEMP: upstream mlir-opt crashed, case skipped ({{.*}}tmp/tracking-fuzz-{{[^/]*}}/tracking-fuzz-1-0-upstream-crash.mlir
// TEMP: reproducers in {{.*}}tmp/tracking-fuzz-
// TEMP: 2 cases, {{[0-9]+}} handles checked, 0 findings
// FILES: tracking-fuzz-1-0-upstream-crash.mlir
// FILES: tracking-fuzz-1-1-upstream-crash.mlir

// RUN: cd %t/cwd && tracking-fuzz --count 1 --mlir-opt %S/Inputs/crashing-mlir-opt.sh --repro-dir %t/given/nested | FileCheck %s --check-prefix=GIVEN
// RUN: ls %t/given/nested | FileCheck %s --check-prefix=FILE1
// RUN: ls %t/cwd | count 0
// GIVEN: reproducers in {{.*}}given/nested
// FILE1: tracking-fuzz-1-0-upstream-crash.mlir
// FILE1-NOT: tracking-fuzz

// Nothing to write: the temporary directory does not stay behind.
// RUN: cd %t/cwd && env TMPDIR=%t/tmp-clean tracking-fuzz --count 1 --mlir-opt= | FileCheck %s --check-prefix=CLEAN
// RUN: ls %t/tmp-clean | count 0
// CLEAN-NOT: reproducers in
// CLEAN: 1 cases, {{[0-9]+}} handles checked, 0 findings

// An unusable --repro-dir is a clear error.
// RUN: touch %t/file
// RUN: not tracking-fuzz --count 1 --repro-dir %t/file/sub 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: tracking-fuzz: cannot create --repro-dir '{{.*}}file/sub':
