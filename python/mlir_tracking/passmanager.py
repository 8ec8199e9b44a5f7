"""The tracked pass manager (upstream ``mlir.passmanager`` names)."""

from ._mlirTracking.passmanager import Pass, PassDisplayMode, PassManager

# Upstream's name for what a Python pass's callable receives as `pass_`.
ExternalPass = Pass

__all__ = ["ExternalPass", "Pass", "PassDisplayMode", "PassManager"]
