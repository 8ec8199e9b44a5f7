// tracking-fuzz --help shows its own options and LLVM's generic ones
// (--help, --help-list, --version), none of the hundreds of global options
// that libLLVM and libMLIR register (--color, --aarch64-..., ...).

// RUN: tracking-fuzz --help | FileCheck %s
// RUN: tracking-fuzz --help | grep -c -- '^ *--' | FileCheck %s --check-prefix=COUNT

// CHECK: Generic Options:
// CHECK: --help
// CHECK: tracking-fuzz options:
// CHECK-DAG: --count=<ulong>
// CHECK-DAG: --mlir-opt=<string>
// CHECK-DAG: --repro-dir=<string>
// CHECK-DAG: --seed=<ulong>
// CHECK-NOT: --color

// 3 generic options and 10 of ours.
// COUNT: {{^}}13{{$}}
