//===- TrackedCSE.cpp - cse, tracked --------------------------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Upstream's `cse` run through `eliminateCommonSubExpressions` with a rewriter
// whose listener is the tracking listener. Like the tracked canonicalizer it
// keeps upstream's TypeID and is marked precise per instance.
//
//===----------------------------------------------------------------------===//

#include "mlir/Tracking/Passes.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Tracking/PassTracking.h"
#include "mlir/Tracking/TrackingListener.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace {
TypeID getUpstreamCSEID() {
  static TypeID id = createCSEPass()->getTypeID();
  return id;
}

/// Tracks what CSE does and counts it for upstream's statistics.
class CSEStatisticsListener : public tracking::TrackingListener {
public:
  CSEStatisticsListener() {
    setUnpatternedLabels("duplicate removed by cse",
                         "dead code removed by cse");
  }
  void notifyOperationReplaced(Operation *op, Operation *newOp) override {
    // CSE notifies the replacement, then erases the op.
    replaced.insert(op);
    ++numReplaced;
    tracking::TrackingListener::notifyOperationReplaced(op, newOp);
  }
  void notifyOperationErased(Operation *op) override {
    if (!replaced.erase(op))
      ++numErasedDead;
    tracking::TrackingListener::notifyOperationErased(op);
  }

  int64_t numReplaced = 0;
  int64_t numErasedDead = 0;

private:
  llvm::SmallPtrSet<Operation *, 16> replaced;
};

class TrackedCSEPass : public OperationPass<> {
public:
  TrackedCSEPass() : OperationPass<>(getUpstreamCSEID()) {
    tracking::registerPreciseInstance(this);
  }
  TrackedCSEPass(const TrackedCSEPass &other) : OperationPass<>(other) {
    tracking::registerPreciseInstance(this);
  }
  ~TrackedCSEPass() override { tracking::unregisterPreciseInstance(this); }

  StringRef getArgument() const override { return "cse"; }
  StringRef getDescription() const override {
    return "Eliminate common sub-expressions";
  }
  StringRef getName() const override { return "CSE"; }
  std::unique_ptr<Pass> clonePass() const override {
    return std::make_unique<TrackedCSEPass>(*this);
  }

  void runOnOperation() override {
    CSEStatisticsListener listener;
    IRRewriter rewriter(&getContext(), &listener);
    DominanceInfo &domInfo = getAnalysis<DominanceInfo>();
    bool changed = false;
    eliminateCommonSubExpressions(rewriter, domInfo, getOperation(), &changed);
    numCSE += listener.numReplaced;
    numDCE += listener.numErasedDead;
    if (!changed)
      return markAllAnalysesPreserved();
    markAnalysesPreserved<DominanceInfo, PostDominanceInfo>();
  }

private:
  Statistic numCSE{this, "num-cse'd", "Number of operations CSE'd"};
  Statistic numDCE{this, "num-dce'd", "Number of operations DCE'd"};
};
} // namespace

std::unique_ptr<Pass> mlir::tracking::createTrackedCSEPass() {
  return std::make_unique<TrackedCSEPass>();
}
