"""Upstream's ``mlir.dialects.async_dialect.passes``, which registers the
dialect's passes when imported. Every upstream pass is registered here
already (``PassManager.parse`` knows them), so importing it only keeps
upstream programs that do working.
"""
