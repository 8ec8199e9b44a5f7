"""The tracked pass manager (upstream ``mlir.passmanager`` names)."""

from ._mlirTracking.passmanager import PassManager

__all__ = ["PassManager"]
