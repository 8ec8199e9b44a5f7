//===- Walk.h - Operation.walk that never touches freed IR ------*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// `Operation.walk` calls Python code for every op, and that code may erase
// or move any op (the next one, the current one, its parent, the walked op)
// or try to run a pipeline on the IR. MLIR's own walk keeps iterators into
// the IR across the callback, so it cannot be used. Instead the walk takes a
// snapshot of handles first and visits them in order, skipping every op
// that is no longer live or no longer under the walked op; it ends when the
// walked op itself is gone. An IRPin keeps pipelines off the walked IR
// meanwhile. The exact semantics are in docs/python.md.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_PYTHON_WALK_H
#define MLIR_TRACKING_PYTHON_WALK_H

#include "Core.h"

#include "mlir/IR/Visitors.h"

namespace mlir::tracking {
// Internal to the extension: hidden like pybind11's own types, whose
// objects these classes hold.
namespace __attribute__((visibility("hidden"))) python {

  /// Upstream's `ir.WalkResult` values.
  enum class PyWalkResult { Advance, Interrupt, Skip };

  /// Calls `callback(op)` on `operation` and every op nested in it, in
  /// `order`, as described above. An exception of the callback ends the
  /// walk and is raised again as upstream's error (see raiseCallbackError).
  void walkOperation(PyOperation & operation, const py::function &callback,
                     WalkOrder order);

  /// Fires when a walk callback (Operation.walk,
  /// SymbolTable.walk_symbol_tables) raised `error`: throws upstream's
  /// `RuntimeError("Exception raised in callback: Type: message")`, with the
  /// original exception as its `__cause__`. Exceptions that are not an
  /// `Exception` (KeyboardInterrupt, SystemExit) propagate unchanged.
  [[noreturn]] void raiseCallbackError(py::error_already_set & error);

} // namespace python
} // namespace mlir::tracking

#endif // MLIR_TRACKING_PYTHON_WALK_H
