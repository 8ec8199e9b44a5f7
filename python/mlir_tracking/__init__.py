"""mlir_tracking: MLIR Python objects whose operations are tracked handles.

    from mlir_tracking import ir, passmanager

``ir`` mirrors upstream ``mlir.ir``; every ``ir.Operation`` follows its op
through rewrites and raises ``ir.InvalidatedHandleError`` instead of touching
freed memory. ``passmanager.PassManager`` runs pipelines with tracking on; ``rewrite``
applies patterns and conversions with tracking on.
"""

from . import ir, passmanager, rewrite

__all__ = ["ir", "passmanager", "rewrite"]
