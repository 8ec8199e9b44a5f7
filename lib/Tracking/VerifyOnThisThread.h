//===- VerifyOnThisThread.h - Verification off the thread pool --*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// MLIR verifies the isolated-from-above ops of a region in parallel, and a
// pool thread that waits for them (a pass manager's worker, running one
// function's pipeline) may take another queued task of the pass manager and
// run that function's pipeline nested inside the current one. The nested
// pipeline's end clears the thread's order in the pass manager's
// ParallelDiagnosticHandler, so the rest of the outer pipeline's
// diagnostics reach none of the handlers that should get them (they go to
// stderr), and the outer pass's state on the thread sits under another
// pass's. Code that verifies inside a pass verifies on its own thread.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_LIB_VERIFYONTHISTHREAD_H
#define MLIR_TRACKING_LIB_VERIFYONTHISTHREAD_H

#include "mlir/Support/LLVM.h"

namespace mlir {
class Operation;

namespace tracking::detail {

/// mlir::verify(root) on the calling thread only: the same checks, in the
/// order MLIR makes them (an op's invariants before the ops nested in it,
/// which its region invariants then follow), one op at a time.
LogicalResult verifyOnThisThread(Operation *root);

} // namespace tracking::detail
} // namespace mlir

#endif // MLIR_TRACKING_LIB_VERIFYONTHISTHREAD_H
