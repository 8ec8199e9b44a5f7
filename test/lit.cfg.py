# -*- Python -*-
# lit configuration for mlir-tracking: tracking-opt tests under Tracking/,
# Python tests under python/, the C API test under CAPI/.
import os

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

tool_dirs = [config.mlir_tracking_tools_dir, config.llvm_tools_dir]
tools = [
    "tracking-opt",
    "tracking-fuzz",
    "mlir-tracking-capi-test",
    "tracked-rewrite-example",
    ToolSubst("%PYTHON", config.python_executable, unresolved="ignore"),
    # The upstream tool we compare against.
    ToolSubst("%mlir_opt", FindTool("mlir-opt")),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)
config.substitutions.append(("%tracking_src", config.mlir_tracking_src_root))
# Where test/lib puts the dialect plugin the Python tests load.
config.substitutions.append(("%tracking_lib_dir", config.mlir_tracking_libs_dir))

if config.python_enabled:
    llvm_config.with_environment(
        "PYTHONPATH",
        [os.path.join(config.mlir_tracking_obj_root, "python_packages")],
        append_path=True,
    )
else:
    config.excludes.append("python")
