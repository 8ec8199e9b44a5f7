//===- TrackedCSE.cpp - cse, tracked --------------------------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Upstream's `cse` run through `eliminateCommonSubExpressions` with a rewriter
// whose listener is the tracking listener (when a handle may lie under the
// anchor). Its argument, name, description and
// statistics come from MLIR's installed `mlir/Transforms/Passes.td` through
// `mlir-tblgen -gen-pass-decls`. Like the tracked canonicalizer it keeps
// upstream's TypeID (see `resolveTypeID`) and is marked precise per instance.
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

namespace mlir::tracking {
#define GEN_PASS_DECL_CSE
#define GEN_PASS_DEF_CSE
#include "UpstreamTransformsPasses.h.inc"
} // namespace mlir::tracking

#include <optional>

using namespace mlir;

namespace {

/// Counts what CSE does for upstream's statistics and forwards it to the
/// tracking listener, if any (none when no handle lies under the anchor: the
/// rewrites then cost what upstream's cost).
class CSEStatisticsListener : public RewriterBase::ForwardingListener {
public:
  explicit CSEStatisticsListener(OpBuilder::Listener *next)
      : RewriterBase::ForwardingListener(next) {}
  void notifyOperationReplaced(Operation *op, Operation *newOp) override {
    // CSE notifies the replacement, then erases the op.
    replaced.insert(op);
    ++numReplaced;
    ForwardingListener::notifyOperationReplaced(op, newOp);
  }
  void notifyOperationErased(Operation *op) override {
    if (!replaced.erase(op))
      ++numErasedDead;
    ForwardingListener::notifyOperationErased(op);
  }

  int64_t numReplaced = 0;
  int64_t numErasedDead = 0;

private:
  llvm::SmallPtrSet<Operation *, 16> replaced;
};

class TrackedCSEPass : public tracking::impl::CSEBase<TrackedCSEPass> {
public:
  /// The TypeID the generated base gives this pass (through
  /// `TypeID::get<TrackedCSEPass>()`): upstream's, not our own.
  static TypeID resolveTypeID() {
    static TypeID id = createCSEPass()->getTypeID();
    return id;
  }

  TrackedCSEPass() { tracking::registerPreciseInstance(this); }
  TrackedCSEPass(const TrackedCSEPass &other) : Base(other) {
    tracking::registerPreciseInstance(this);
  }
  ~TrackedCSEPass() override { tracking::unregisterPreciseInstance(this); }

  void runOnOperation() override {
    std::optional<tracking::TrackingListener> tracker;
    if (tracking::mayHaveHandlesUnder(getOperation())) {
      // The context's registry, looked up once per execution.
      tracker.emplace(tracking::TrackingListenerConfig(),
                      tracking::HandleRegistry::lookup(&getContext()));
      tracker->setUnpatternedLabels("duplicate removed by cse",
                                    "dead code removed by cse");
    }
    CSEStatisticsListener listener(tracker ? &*tracker : nullptr);
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
};
} // namespace

std::unique_ptr<Pass> mlir::tracking::createTrackedCSEPass() {
  return std::make_unique<TrackedCSEPass>();
}
