"""The tracked pass manager (upstream ``mlir.passmanager`` names)."""

from ._mlirTracking.passmanager import Pass, PassManager

__all__ = ["Pass", "PassManager"]
