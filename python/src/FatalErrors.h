//===- FatalErrors.h - LLVM fatal errors of a conversion, raised -*- C++
//-*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// MLIR's dialect conversion ends the process (`llvm::report_fatal_error`)
// when a pattern of a conversion without rollback leaves ops it cannot
// legalize: it cannot undo them. From Python that is an ordinary mistake in
// a pattern (an op the target does not know), and it must not kill the
// interpreter. While a `FatalErrorsRaise` lives on a thread, a fatal error
// reported on that thread throws `FatalErrorStop` instead: the conversion's
// frames are left without running their destructors (MLIR is built without
// exceptions; what they hold is leaked), and the IR stays as the driver had
// changed it, ops and all, which a conversion without rollback promises on
// failure anyway. Python code that the conversion calls runs with fatal
// errors ending the process again (`FatalErrorsAbort`): a pipeline it runs
// must not be left half-way with worker threads still at work.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_PYTHON_FATALERRORS_H
#define MLIR_TRACKING_PYTHON_FATALERRORS_H

#include <string>

namespace mlir::tracking {
namespace __attribute__((visibility("hidden"))) python {

  /// What `llvm::report_fatal_error` throws under a `FatalErrorsRaise`.
  struct FatalErrorStop {
    std::string reason;
  };

  /// Installs the process's fatal error handler: it throws under a
  /// `FatalErrorsRaise`, else prints as LLVM does without one (LLVM then
  /// ends the process as before). Once, when the extension loads.
  void installFatalErrorHandler();

  /// Fatal errors reported on this thread while alive throw FatalErrorStop.
  class FatalErrorsRaise {
  public:
    FatalErrorsRaise();
    ~FatalErrorsRaise();
    FatalErrorsRaise(const FatalErrorsRaise &) = delete;
    FatalErrorsRaise &operator=(const FatalErrorsRaise &) = delete;

  private:
    bool previous;
  };

  /// Fatal errors reported on this thread while alive end the process (for
  /// Python code called from a FatalErrorsRaise scope).
  class FatalErrorsAbort {
  public:
    FatalErrorsAbort();
    ~FatalErrorsAbort();
    FatalErrorsAbort(const FatalErrorsAbort &) = delete;
    FatalErrorsAbort &operator=(const FatalErrorsAbort &) = delete;

  private:
    bool previous;
  };

} // namespace python
} // namespace mlir::tracking

#endif // MLIR_TRACKING_PYTHON_FATALERRORS_H
