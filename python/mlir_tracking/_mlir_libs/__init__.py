"""Upstream's ``mlir._mlir_libs`` functions that set up every new context.

``get_dialect_registry()`` is the process-wide registry that each
``ir.Context`` created afterwards appends, as upstream's is: register a
dialect or extension there to have it in every new context.

Upstream's contexts load every available dialect unless a site initializer
module turns that off, and only then read the list of
``append_load_on_create_dialect``. This package has no site initializer
modules and its contexts always load every dialect (the tracking layer's
checks assume no dialect is loaded while IR is in use), so the list is kept
for code that fills or reads it and, as in upstream's default set-up, loads
nothing more. ``ir.Context(load_on_create_dialects=[...])`` checks that each
named dialect is loaded (IndexError otherwise).

``get_include_dirs()`` and ``get_lib_dirs()`` name the directories to build
C or C++ code that works with this package's objects (their ``_CAPIPtr``
capsules): the installed MLIR 22 headers (``mlir-c/IR.h``) and the
directory of ``libMLIR.so``, which the extension links, and of Debian's
C API archives (``libMLIRCAPIIR.a``, ...). Upstream's name their own
package's ``include`` directory and its ``MLIRPythonCAPI`` library, which
this package does not have.
"""

from .._mlirTracking.ir import _site_dialect_registry
from . import _build_paths

__all__ = [
    "append_load_on_create_dialect",
    "get_dialect_registry",
    "get_include_dirs",
    "get_lib_dirs",
    "get_load_on_create_dialects",
]

_dialect_registry = None
_load_on_create_dialects = []


def get_dialect_registry():
    """The registry every new context appends (an ``ir.DialectRegistry``)."""
    global _dialect_registry
    if _dialect_registry is None:
        _dialect_registry = _site_dialect_registry()
    return _dialect_registry


def append_load_on_create_dialect(dialect: str):
    """Adds a dialect name to the list of dialects to load on creation."""
    _load_on_create_dialects.append(dialect)


def get_load_on_create_dialects():
    """The list of dialect names (the list itself, as upstream's)."""
    return _load_on_create_dialects


def get_include_dirs():
    """The include directories of the MLIR C API the extension was built
    against (a list of str; the first holds ``mlir-c/IR.h``)."""
    return list(_build_paths.MLIR_INCLUDE_DIRS)


def get_lib_dirs():
    """The directories of the libraries to link C or C++ code that uses this
    package's objects with: ``libMLIR.so`` and MLIR's C API archives (a
    list of str)."""
    return [_build_paths.LLVM_LIBRARY_DIR]
