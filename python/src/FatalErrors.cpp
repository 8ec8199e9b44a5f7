//===- FatalErrors.cpp - LLVM fatal errors of a conversion, raised --------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "FatalErrors.h"

#include "llvm/Support/ErrorHandling.h"

#include <utility>

#include <unistd.h>

using namespace mlir::tracking::python;

namespace {
thread_local bool fatalErrorsRaise = false;

void onFatalError(void *, const char *reason, bool) {
  if (fatalErrorsRaise) {
    // Once: the code that catches it runs with errors ending the process.
    fatalErrorsRaise = false;
    throw FatalErrorStop{reason};
  }
  // As LLVM prints without a handler; it then ends the process.
  std::string text = std::string("LLVM ERROR: ") + reason + "\n";
  ssize_t written = ::write(2, text.data(), text.size());
  (void)written;
}
} // namespace

void mlir::tracking::python::installFatalErrorHandler() {
  llvm::install_fatal_error_handler(onFatalError);
}

FatalErrorsRaise::FatalErrorsRaise()
    : previous(std::exchange(fatalErrorsRaise, true)) {}
FatalErrorsRaise::~FatalErrorsRaise() { fatalErrorsRaise = previous; }

FatalErrorsAbort::FatalErrorsAbort()
    : previous(std::exchange(fatalErrorsRaise, false)) {}
FatalErrorsAbort::~FatalErrorsAbort() { fatalErrorsRaise = previous; }
