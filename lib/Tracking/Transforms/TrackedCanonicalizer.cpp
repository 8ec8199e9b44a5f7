//===- TrackedCanonicalizer.cpp - canonicalize, tracked -------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Upstream's `canonicalize`, with the tracking listener attached to the greedy
// driver. It keeps upstream's pass TypeID so that it can take the
// `canonicalize` registration (the pass registry rejects two TypeIDs for one
// argument); it is marked precise per instance because upstream's own
// instances share that TypeID but report nothing.
//
//===----------------------------------------------------------------------===//

#include "mlir/Tracking/Passes.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Tracking/PassTracking.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace {
TypeID getUpstreamCanonicalizerID() {
  static TypeID id = createCanonicalizerPass()->getTypeID();
  return id;
}

class TrackedCanonicalizerPass : public OperationPass<> {
public:
  TrackedCanonicalizerPass() : OperationPass<>(getUpstreamCanonicalizerID()) {
    tracking::registerPreciseInstance(this);
  }
  // Clones (one per worker thread) share the patterns built by initialize().
  TrackedCanonicalizerPass(const TrackedCanonicalizerPass &other)
      : OperationPass<>(other), config(other.config), patterns(other.patterns) {
    tracking::registerPreciseInstance(this);
  }
  ~TrackedCanonicalizerPass() override {
    tracking::unregisterPreciseInstance(this);
  }

  StringRef getArgument() const override { return "canonicalize"; }
  StringRef getDescription() const override {
    return "Canonicalize operations";
  }
  StringRef getName() const override { return "Canonicalizer"; }
  std::unique_ptr<Pass> clonePass() const override {
    return std::make_unique<TrackedCanonicalizerPass>(*this);
  }

  LogicalResult initialize(MLIRContext *context) override {
    config.setUseTopDownTraversal(topDownProcessingEnabled)
        .setRegionSimplificationLevel(regionSimplifyLevel)
        .setMaxIterations(maxIterations)
        .setMaxNumRewrites(maxNumRewrites)
        .setListener(tracking::getTrackingListener());

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
    LogicalResult converged =
        applyPatternsGreedily(getOperation(), *patterns, config);
    // Canonicalization is best-effort: non-convergence is not a failure.
    if (testConvergence && failed(converged))
      signalPassFailure();
  }

private:
  // Upstream's options, under upstream's names and defaults.
  Option<bool> topDownProcessingEnabled{
      *this, "top-down",
      llvm::cl::desc("Seed the worklist in general top-down order"),
      llvm::cl::init(true)};
  Option<GreedySimplifyRegionLevel> regionSimplifyLevel{
      *this, "region-simplify",
      llvm::cl::desc("Perform control flow optimizations to the region tree"),
      llvm::cl::init(GreedySimplifyRegionLevel::Normal),
      llvm::cl::values(
          clEnumValN(GreedySimplifyRegionLevel::Disabled, "disabled",
                     "Don't run any control-flow simplification."),
          clEnumValN(GreedySimplifyRegionLevel::Normal, "normal",
                     "Perform simple control-flow simplifications (e.g. dead "
                     "args elimination)."),
          clEnumValN(GreedySimplifyRegionLevel::Aggressive, "aggressive",
                     "Perform aggressive control-flow simplification (e.g. "
                     "block merging)."))};
  Option<int64_t> maxIterations{
      *this, "max-iterations",
      llvm::cl::desc(
          "Max. iterations between applying patterns / simplifying regions"),
      llvm::cl::init(10)};
  Option<int64_t> maxNumRewrites{
      *this, "max-num-rewrites",
      llvm::cl::desc("Max. number of pattern rewrites within an iteration"),
      llvm::cl::init(-1)};
  Option<bool> testConvergence{
      *this, "test-convergence",
      llvm::cl::desc(
          "Test only: Fail pass on non-convergence to detect cyclic pattern"),
      llvm::cl::init(false)};
  ListOption<std::string> disabledPatterns{
      *this, "disable-patterns",
      llvm::cl::desc(
          "Labels of patterns that should be filtered out during application")};
  ListOption<std::string> enabledPatterns{
      *this, "enable-patterns",
      llvm::cl::desc("Labels of patterns that should be used during "
                     "application, all other patterns are filtered out")};

  GreedyRewriteConfig config;
  std::shared_ptr<const FrozenRewritePatternSet> patterns;
};
} // namespace

std::unique_ptr<Pass> mlir::tracking::createTrackedCanonicalizerPass() {
  return std::make_unique<TrackedCanonicalizerPass>();
}
