"""The names generated dialect modules reach as ``_cext`` (upstream:
``mlir._mlir_libs._mlir``): the class registries and the ``ir`` module.

``register_dialect`` and ``register_operation`` are the class decorators that
``mlir-tblgen-22 -gen-python-op-bindings`` emits; ``globals`` holds the
process-wide registries.
"""

from . import ir
from ._mlirTracking import globals, register_dialect, register_operation

__all__ = ["globals", "ir", "register_dialect", "register_operation"]
