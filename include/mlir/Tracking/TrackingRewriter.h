//===- TrackingRewriter.h - A rewriter that names its replacements -*- C++ -*-//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// MLIR 22's `RewriterBase::replaceOp(op, newOp)` tells its listener only the
// values that replace `op` (and none at all when `op` has no results), so a
// listener cannot tell "replaced by this op" from "replaced by these values".
// Only `replaceAllOpUsesWith(op, newOp)` sends the op form
// (`notifyOperationReplaced(op, newOp)`). TrackingRewriter is an IRRewriter
// whose `replaceOp(op, newOp)` (and so `replaceOpWithNewOp`) goes through
// that form: the tracking listener then follows the op the rewriter names,
// like the transform dialect's explicit replacement channel, whatever its
// name and number of results.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_TRACKINGREWRITER_H
#define MLIR_TRACKING_TRACKINGREWRITER_H

#include "mlir/IR/PatternMatch.h"
#include "mlir/Tracking/TrackingListener.h"

namespace mlir::tracking {

/// An IRRewriter whose `replaceOp(op, newOp)` and `replaceOpWithNewOp` name
/// the replacement op to the listener.
class TrackingRewriter : public IRRewriter {
public:
  /// By default the listener is the process-wide one for rewriters
  /// (`getTrackingRewriterListener`).
  explicit TrackingRewriter(
      MLIRContext *context,
      OpBuilder::Listener *listener = getTrackingRewriterListener())
      : IRRewriter(context, listener) {}

  using IRRewriter::replaceOp;
  /// Same IR change as upstream's, reported as
  /// `notifyOperationReplaced(op, newOp)` rather than by values.
  void replaceOp(Operation *op, Operation *newOp) override {
    assert(op->getNumResults() == newOp->getNumResults() &&
           "ops have different number of results");
    replaceAllOpUsesWith(op, newOp);
    eraseOp(op);
  }
};

} // namespace mlir::tracking

#endif // MLIR_TRACKING_TRACKINGREWRITER_H
