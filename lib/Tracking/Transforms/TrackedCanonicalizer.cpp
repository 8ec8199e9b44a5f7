//===- TrackedCanonicalizer.cpp - canonicalize, tracked -------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Upstream's `canonicalize`, with the tracking listener attached to the greedy
// driver. Its argument, name, description and options (names, types,
// defaults, descriptions) are upstream's: the base class is generated at build
// time by `mlir-tblgen -gen-pass-decls` from MLIR's installed
// `mlir/Transforms/Passes.td`.
//
// It keeps upstream's pass TypeID (see `resolveTypeID` below) so that it can
// take the `canonicalize` registration (the pass registry rejects two TypeIDs
// for one argument); it is marked precise per instance because upstream's own
// instances share that TypeID but report nothing.
//
//===----------------------------------------------------------------------===//

#include "mlir/Tracking/Passes.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Tracking/PassTracking.h"
#include "mlir/Tracking/TrackingListener.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

#include <optional>

namespace mlir::tracking {
#define GEN_PASS_DECL_CANONICALIZER
#define GEN_PASS_DEF_CANONICALIZER
#include "UpstreamTransformsPasses.h.inc"
} // namespace mlir::tracking

using namespace mlir;

namespace {
class TrackedCanonicalizerPass
    : public tracking::impl::CanonicalizerBase<TrackedCanonicalizerPass> {
public:
  /// The TypeID the generated base gives this pass (through
  /// `TypeID::get<TrackedCanonicalizerPass>()`): upstream's, not our own.
  static TypeID resolveTypeID() {
    static TypeID id = createCanonicalizerPass()->getTypeID();
    return id;
  }

  TrackedCanonicalizerPass() { tracking::registerPreciseInstance(this); }
  // Clones (one per worker thread) share the patterns built by initialize().
  TrackedCanonicalizerPass(const TrackedCanonicalizerPass &other)
      : Base(other), config(other.config), patterns(other.patterns) {
    tracking::registerPreciseInstance(this);
  }
  ~TrackedCanonicalizerPass() override {
    tracking::unregisterPreciseInstance(this);
  }

  LogicalResult initialize(MLIRContext *context) override {
    config.setUseTopDownTraversal(topDownProcessingEnabled)
        .setRegionSimplificationLevel(regionSimplifyLevel)
        .setMaxIterations(maxIterations)
        .setMaxNumRewrites(maxNumRewrites);

    RewritePatternSet owningPatterns(context);
    for (Dialect *dialect : context->getLoadedDialects())
      dialect->getCanonicalizationPatterns(owningPatterns);
    for (RegisteredOperationName op : context->getRegisteredOperations())
      op.getCanonicalizationPatterns(owningPatterns, context);
    patterns = std::make_shared<FrozenRewritePatternSet>(
        std::move(owningPatterns), disabledPatterns, enabledPatterns);
    return success();
  }

  void runOnOperation() override {
    // Without handles under the anchor the listener would only forward.
    // With handles, a listener of this execution keeps the patterns being
    // applied itself (the greedy driver tells it around every match attempt)
    // and the context's registry (no lookup per notification; the registry
    // outlives the run, as the context does).
    GreedyRewriteConfig runConfig = config;
    std::optional<tracking::PassTrackingListener> tracker;
    if (tracking::mayHaveHandlesUnder(getOperation())) {
      tracker.emplace(&getContext(),
                      tracking::getTrackingListener()->getConfig());
      runConfig.setListener(&*tracker);
    } else {
      runConfig.setListener(nullptr);
    }
    LogicalResult converged =
        applyPatternsGreedily(getOperation(), *patterns, runConfig);
    // Canonicalization is best-effort: non-convergence is not a failure.
    if (testConvergence && failed(converged))
      signalPassFailure();
  }

private:
  GreedyRewriteConfig config;
  std::shared_ptr<const FrozenRewritePatternSet> patterns;
};
} // namespace

std::unique_ptr<Pass> mlir::tracking::createTrackedCanonicalizerPass() {
  return std::make_unique<TrackedCanonicalizerPass>();
}
