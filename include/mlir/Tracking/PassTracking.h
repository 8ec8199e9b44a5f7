//===- PassTracking.h - Handles across pass pipelines -----------*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Passes are either *precise* (every change they make goes through a rewriter
// whose listener is the tracking listener) or not. For a pass that is not
// precise, the TrackingInstrumentation invalidates the handles strictly nested
// in the pass's anchor op; the anchor and everything outside it stay live.
//
// Opting a pattern-based pass in (see docs/precise-passes.md):
//
//   void MyPass::runOnOperation() {
//     GreedyRewriteConfig config;
//     config.setListener(tracking::getTrackingListener());
//     if (failed(applyPatternsGreedily(getOperation(), patterns, config)))
//       signalPassFailure();
//   }
//   ...
//   tracking::registerPrecisePass<MyPass>();
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_PASSTRACKING_H
#define MLIR_TRACKING_PASSTRACKING_H

#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Support/TypeID.h"
#include "mlir/Tracking/HandleRegistry.h"
#include "mlir/Tracking/TrackingListener.h"

#include <memory>

namespace mlir {
class Pass;
class PassManager;

namespace tracking {

/// Declares that every pass with `passID` reports all of its IR changes to
/// `getTrackingListener()`. Its handles are then never blanket-invalidated.
void registerPrecisePass(TypeID passID);
template <typename PassT> void registerPrecisePass() {
  registerPrecisePass(TypeID::get<PassT>());
}

/// Declares one pass instance precise, for a pass class that shares its
/// TypeID with an untracked one (our `canonicalize` and `cse` share
/// upstream's, so that they can take upstream's registrations). The instance
/// must call `unregisterPreciseInstance` before it dies.
void registerPreciseInstance(const Pass *pass);
void unregisterPreciseInstance(const Pass *pass);

/// Returns true if `pass` (or the pass it was cloned from for threading) is
/// precise.
bool isPrecisePass(const Pass &pass);

/// The fallback for passes that are not precise, and the attribution of the
/// rewrites of those that are.
class TrackingInstrumentation : public PassInstrumentation {
public:
  explicit TrackingInstrumentation(HandleRegistry &registry);
  ~TrackingInstrumentation() override;

  /// Fires before `pass` runs on `anchor`: takes the handles strictly nested
  /// in `anchor` out of the address map unless `pass` is precise, so that no
  /// address the pass frees can be looked up by another thread.
  void runBeforePass(Pass *pass, Operation *anchor) override;
  /// Fire after the pass: the detached handles become invalidated.
  void runAfterPass(Pass *pass, Operation *anchor) override;
  void runAfterPassFailed(Pass *pass, Operation *anchor) override;

private:
  void finishPass(Pass *pass, Operation *anchor);

  /// The registry's context: each pass execution reports to the registry
  /// the context has then (if any), so the instrumentation may outlive it.
  MLIRContext *context;
};

/// Adds a TrackingInstrumentation for `registry` to `pm`. The registry must
/// be of `pm`'s context (a fatal error otherwise). The pass manager may
/// outlive it: its runs then report to the context's next registry, if any.
void enableTracking(PassManager &pm, HandleRegistry &registry);

/// True for the pass manager's own adaptor passes, which only run nested
/// pipelines and change nothing themselves.
bool isPassAdaptor(const Pass &pass);

} // namespace tracking
} // namespace mlir

#endif // MLIR_TRACKING_PASSTRACKING_H
