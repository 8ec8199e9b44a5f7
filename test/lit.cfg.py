# lit configuration for mlir-tracking: tracking-opt tests under Tracking/,
# Python tests under python/.
import os

import lit.formats

config.name = "mlir-tracking"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".py"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "Inputs", "lib"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tracking_obj_root, "test")

bin_dir = os.path.join(config.tracking_obj_root, "bin")
config.environment["PATH"] = os.pathsep.join(
    [bin_dir, config.llvm_tools_dir, config.environment.get("PATH", "")]
)
config.environment["PYTHONPATH"] = os.path.join(
    config.tracking_obj_root, "python_packages"
)
# The upstream tool we compare against.
config.substitutions.append(("%mlir_opt", os.path.join(config.llvm_tools_dir, "mlir-opt")))
config.substitutions.append(("%PYTHON", config.python_executable))
config.substitutions.append(("%tracking_src", config.tracking_src_root))

if not config.python_enabled:
    config.excludes.append("python")
