"""Upstream's Python OpDSL for Linalg (``mlir.dialects.linalg.opdsl``),
written anew for mlir_tracking.

``opdsl.lang`` describes a structured op as a tensor comprehension in a
decorated Python function; calling the decorated function emits the op into
the IR, as a ``linalg.generic`` or, for the name of a built-in named op, as
that op. See ``lang/__init__.py`` for what the language provides.
"""
