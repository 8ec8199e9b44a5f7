//===- IRCompat.h - Upstream ir names added outside the core files -*- C++
//-*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Diagnostics handlers, symbol tables, dialects and dialect plugins, and the
// rest of upstream's core `ir` names (IRDiagnostics.cpp, IRSymbols.cpp,
// IRCompat.cpp), and the context state they share with Core.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_PYTHON_IRCOMPAT_H
#define MLIR_TRACKING_PYTHON_IRCOMPAT_H

#include "Core.h"

#include "mlir/IR/DialectRegistry.h"

namespace mlir::tracking {
namespace __attribute__((visibility("hidden"))) python {

  /// Adds the dialects of the plugins loaded with `ir.load_dialect_plugin`;
  /// every new context gets them.
  void appendPluginDialects(DialectRegistry & registry);
  /// Adds the process-wide registry of `_mlir_libs.get_dialect_registry()`
  /// (what Python code registered there); every new context gets it.
  void appendSiteDialects(DialectRegistry & registry);

  /// `Context.emit_error_diagnostics`: whether errors captured for an
  /// MLIRError also go on to the handlers attached from Python. Read by
  /// DiagnosticCapture when it is created (with the GIL held).
  bool getEmitErrorDiagnostics(MLIRContext * context);
  void setEmitErrorDiagnostics(MLIRContext * context, bool value);
  /// Hands the diagnostics waiting for the handlers attached from Python to
  /// `context` to them (IRDiagnostics.cpp). With the GIL; never from inside
  /// MLIR's diagnostic engine.
  void deliverWaitingDiagnostics(MLIRContext * context);
  /// Marks a call of `context` in progress whose end delivers the waiting
  /// diagnostics (an outermost DiagnosticCapture), until the token is
  /// dropped: meanwhile other threads' diagnostics wait for that delivery.
  /// Null when no handler was ever attached. With the GIL.
  std::shared_ptr<void> holdDiagnosticDelivery(MLIRContext * context);
  /// Drops the Python handlers' state of a context being destroyed.
  void forgetPythonDiagnostics(MLIRContext * context);
  /// The GC support of `ir.Context`: visits the callbacks of the handlers
  /// attached to `context` (which it holds), and detaches them to break a
  /// cycle through them.
  int traverseDiagnosticCallbacks(MLIRContext * context, visitproc visit,
                                  void *arg);
  void clearDiagnosticCallbacks(MLIRContext * context);

  /// Number of live contexts (Context._get_live_count; checkContextOf).
  size_t getNumLiveContexts();

  void populateIRDiagnostics(py::module_ & m);
  void populateIRSymbols(py::module_ & m);
  void populateIRAsmState(py::module_ & m);
  void populateIRCompat(py::module_ & m);

} // namespace python
} // namespace mlir::tracking

#endif // MLIR_TRACKING_PYTHON_IRCOMPAT_H
