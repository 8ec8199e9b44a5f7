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

#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Verifier.h"

namespace mlir::tracking::detail {

/// mlir::verify(root) on the calling thread only.
inline LogicalResult verifyOnThisThread(Operation *root) {
  WalkResult result = root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    // Each verify covers its op and the nested ops up to (not into) the
    // isolated-from-above ones, which the walk reaches in turn.
    bool verifiedAlone =
        op == root || (op->getNumRegions() != 0 &&
                       op->hasTrait<OpTrait::IsIsolatedFromAbove>());
    if (verifiedAlone && failed(mlir::verify(op, /*verifyRecursively=*/false)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

} // namespace mlir::tracking::detail

#endif // MLIR_TRACKING_LIB_VERIFYONTHISTHREAD_H
