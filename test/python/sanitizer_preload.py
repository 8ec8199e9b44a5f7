# REQUIRES: sanitizers
# RUN: %PYTHON %s | FileCheck %s
# RUN: not %PYTHON %s use-after-free 2>&1 | FileCheck %s --check-prefix=UAF
# The Python tests of the sanitizer build really run under ASan+UBSan:
# %PYTHON preloads the runtimes into Debian's uninstrumented python3, the
# extension is instrumented, leak detection is off for Python only, and an
# error is reported and stops the process (see test/sanitizers/).

import ctypes
import os
import sys

from mlir_tracking import _mlirTracking, ir
from mlir_tracking.passmanager import PassManager


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


process = ctypes.CDLL(None)

if sys.argv[1:] == ["use-after-free"]:
    # Read freed heap memory through the intercepted memmove: ASan's report,
    # and a non-zero exit (the RUN line's `not`).
    libc_malloc = process.malloc
    libc_malloc.restype = ctypes.c_void_p
    pointer = libc_malloc(64)
    process.free(ctypes.c_void_p(pointer))
    # UAF: ERROR: AddressSanitizer: heap-use-after-free
    ctypes.string_at(pointer, 16)
    print("no report")
    sys.exit(0)


# CHECK-LABEL: TEST: test_runtimes_loaded
@run
def test_runtimes_loaded():
    # The preloaded runtimes define their entry points in the process.
    for symbol in ("__asan_init", "__ubsan_handle_type_mismatch_v1"):
        print(symbol, hasattr(process, symbol))
    # CHECK: __asan_init True
    # CHECK: __ubsan_handle_type_mismatch_v1 True
    # CPython's own allocations are not reported at exit: leak detection is
    # off for Python processes, and on for everything else.
    # CHECK: detect_leaks=0 True
    options = os.environ.get("ASAN_OPTIONS", "").split(":")
    print("detect_leaks=0", options[-1] == "detect_leaks=0")


# CHECK-LABEL: TEST: test_extension_instrumented
@run
def test_extension_instrumented():
    # The extension is compiled with the sanitizers: it calls ASan's checks
    # and UBSan's handlers.
    with open(_mlirTracking.__file__, "rb") as f:
        image = f.read()
    # CHECK: asan checks True ubsan handlers True
    print("asan checks", b"__asan_report_" in image,
          "ubsan handlers", b"__ubsan_handle_" in image)
    # And it works under them: a handle followed through a pass.
    with ir.Context():
        module = ir.Module.parse("""
          func.func @f(%a: i32) -> i32 {
            %0 = arith.addi %a, %a : i32
            %1 = arith.addi %a, %a : i32
            %2 = arith.muli %0, %1 : i32
            return %2 : i32
          }""")
        ops = module.body.operations[0].regions[0].blocks[0].operations
        first, second = ops[0], ops[1]
        PassManager.parse("builtin.module(cse)").run(module)
        # CHECK: arith.addi True 3
        print(second.name, second.same_op(first), len(ops))
