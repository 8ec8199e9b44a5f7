"""Conveniences on top of ``mlir_tracking.ir`` (upstream ``mlir.extras``)."""
