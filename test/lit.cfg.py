# -*- Python -*-
# lit configuration for mlir-tracking: tracking-opt tests under Tracking/,
# Python tests under python/, the C API test under CAPI/.
import os
import shlex

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import FindTool, ToolSubst

config.name = "mlir-tracking"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".py", ".c"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "Inputs", "lib", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mlir_tracking_obj_root, "test")

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
# FileCheck, not, count, %python.
llvm_config.use_default_substitutions()

config.mlir_tracking_tools_dir = os.path.join(config.mlir_tracking_obj_root, "bin")
config.mlir_tracking_libs_dir = os.path.join(config.mlir_tracking_obj_root, "lib")
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.mlir_tracking_tools_dir, append_path=True)


def python_command():
    """The command %PYTHON runs.

    In a sanitizer build, Debian's uninstrumented python3 loads our
    instrumented extension: the ASan runtime must come first in the process,
    so the runtimes are preloaded (for the Python processes only; the C++
    tools link them normally). Leak detection is off for Python processes
    only: CPython leaks by design (interned objects, the type caches and
    module state it never frees at exit), see test/sanitizers/lsan.supp.
    Every other option comes unchanged from the environment
    (test/sanitizers/sanitizer-env.sh): ASan's checks stay on, UBSan still
    halts on the first report.
    """
    python = config.python_executable
    if not (config.sanitizers_enabled and config.sanitizer_runtimes):
        return python
    preload = config.sanitizer_runtimes
    if config.environment.get("LD_PRELOAD"):
        preload += ":" + config.environment["LD_PRELOAD"]
    asan_options = config.environment.get("ASAN_OPTIONS", "")
    asan_options = (asan_options + ":" if asan_options else "") + "detect_leaks=0"
    return " ".join(
        [
            "env",
            "LD_PRELOAD=" + shlex.quote(preload),
            "ASAN_OPTIONS=" + shlex.quote(asan_options),
            python,
        ]
    )


tool_dirs = [config.mlir_tracking_tools_dir, config.llvm_tools_dir]
tools = [
    "tracking-opt",
    "tracking-fuzz",
    "mlir-tracking-capi-test",
    "tracked-rewrite-example",
    ToolSubst("%PYTHON", python_command(), unresolved="ignore"),
    # The upstream tool we compare against.
    ToolSubst("%mlir_opt", FindTool("mlir-opt")),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)
config.substitutions.append(("%tracking_src", config.mlir_tracking_src_root))
# The built tool's file, for tests that read the binary (hot-path-layout).
config.substitutions.append(
    ("%tracking_opt_file", os.path.join(config.mlir_tracking_tools_dir, "tracking-opt"))
)
# Where test/lib puts the dialect plugin the Python tests load.
config.substitutions.append(("%tracking_lib_dir", config.mlir_tracking_libs_dir))

# PROPERTY_TEST_MAX_EXAMPLES (test/python/property_test.py) reaches the test
# when set, to run more or fewer examples by hand.
if "PROPERTY_TEST_MAX_EXAMPLES" in os.environ:
    config.environment["PROPERTY_TEST_MAX_EXAMPLES"] = os.environ[
        "PROPERTY_TEST_MAX_EXAMPLES"
    ]

# REQUIRES: sanitizers (the ASan+UBSan build, scripts/sanitize.sh).
if config.sanitizers_enabled:
    config.available_features.add("sanitizers")

if config.python_enabled:
    llvm_config.with_environment(
        "PYTHONPATH",
        [
            os.path.join(config.mlir_tracking_obj_root, "python_packages"),
            # Helpers and payloads the tests share (tracking_testing.py).
            os.path.join(config.test_source_root, "python", "Inputs"),
        ],
        append_path=True,
    )
else:
    config.excludes.append("python")
