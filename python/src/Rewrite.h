//===- Rewrite.h - Python patterns run from C++ drivers ---------*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Shared by `mlir_tracking.rewrite` and Python-defined passes: a run of a
// driver (or a Python pass) collects the first exception a Python callback
// raised, and every later Python callback of that run is skipped, so the
// exception can be re-raised once the C++ driver returns.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_PYTHON_REWRITE_H
#define MLIR_TRACKING_PYTHON_REWRITE_H

#include "Core.h"

#include <optional>

namespace mlir {
class PassManager;
} // namespace mlir

namespace mlir::tracking {
namespace __attribute__((visibility("hidden"))) python {

  /// The state of one driver run started from Python, current on its thread
  /// while alive.
  class PythonRun {
  public:
    PythonRun();
    ~PythonRun();
    PythonRun(const PythonRun &) = delete;
    PythonRun &operator=(const PythonRun &) = delete;

    /// The run current on this thread, or nullptr.
    static PythonRun *current();
    /// Records the Python exception being handled (the first one wins).
    void recordError(py::error_already_set &error);
    void recordError(const std::exception &error);
    bool hasError() const { return error || cppError; }
    /// The recorded exception as text ("" if none).
    std::string describeError() const {
      return error ? error->what() : cppError.value_or("");
    }
    /// Re-raises the recorded exception, if any (GIL held).
    void rethrowIfError();
    /// Keeps `object` alive until the run ends: an op or value C++ keeps
    /// raw after the Python code that gave it returned (a PDL result), which
    /// a detached op's handle would otherwise free when it goes.
    void keepUntilEnd(py::handle object) {
      kept.push_back(py::reinterpret_borrow<py::object>(object));
    }
    /// Pins the IR tree of `operation` read-only until the run ends: the
    /// tree of a PDL result outside the IR the run rewrites, which no run
    /// lock keeps other threads (or later Python code of the run) from
    /// freeing before PDL is done with it.
    void pinUntilEnd(PyOperation &operation);

  private:
    std::vector<py::object> kept;
    /// After `kept`: unpinned before the objects go.
    std::vector<std::unique_ptr<IRPin>> pins;
    PythonRun *previous;
    std::optional<py::error_already_set> error;
    std::optional<std::string> cppError;
  };

  /// "f" for a function f (its __qualname__), for pattern and pass names.
  std::string getCallableName(const py::object &fn);

  void populateRewrite(py::module_ & m);
  void populatePythonPasses(py::module_ & passmanager);
  void populatePassVerification(py::module_ & passmanager);
  /// The MLIR pass manager of a `passmanager.PassManager` (not through its
  /// capsule: C++ code with the capsule could turn its verifier off, so
  /// taking one makes the pass manager's verification untrusted).
  /// ValueError naming `what` if it was released (`_testing_release`).
  mlir::PassManager *getTrackedPassManager(py::handle object,
                                           llvm::StringRef what);
  /// getTrackedPassManager, also refused (IRInUseException naming `what`)
  /// while the pass manager runs: for calls that change its passes, which
  /// MLIR iterates during a run.
  mlir::PassManager *getIdlePassManager(py::handle object,
                                        llvm::StringRef what);

} // namespace python
} // namespace mlir::tracking

#endif // MLIR_TRACKING_PYTHON_REWRITE_H
