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
#include "llvm/ADT/Statistic.h"

namespace mlir::tracking {
#define GEN_PASS_DECL_CSE
#define GEN_PASS_DEF_CSE
#include "UpstreamTransformsPasses.h.inc"
} // namespace mlir::tracking

#include <optional>

using namespace mlir;

namespace {

constexpr StringLiteral kDuplicateLabel = "duplicate removed by cse";
constexpr StringLiteral kDeadLabel = "dead code removed by cse";
/// Ops erased with an op that cse removes were neither duplicates nor, when
/// that op was a duplicate, dead code.
constexpr StringLiteral kNestedLabel = "in an op removed by cse";

#if LLVM_ENABLE_STATS
/// Counts the duplicates CSE replaces for upstream's statistics (the rewriter
/// counts the dead ops) and forwards to the tracking listener, if any (none
/// when no handle lies under the anchor: the rewrites then cost what
/// upstream's cost). Only where statistics count (`LLVM_ENABLE_STATS`: builds
/// without NDEBUG, or LLVM_FORCE_ENABLE_STATS): elsewhere a pass statistic is
/// a no-op, as in upstream's cse, and a listener between the rewriter and the
/// tracking one would only add a call to every notification.
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

  int64_t numReplaced = 0;
  int64_t numErasedDead = 0;
  llvm::SmallPtrSet<Operation *, 16> replaced;
};
#endif // LLVM_ENABLE_STATS

/// While cse erases an op with regions: the label of the ops erased with it,
/// until the op's own notification.
class NestedEraseLabels : public RewriterBase::ForwardingListener {
public:
  NestedEraseLabels(OpBuilder::Listener *next, Operation *top,
                    tracking::PassTrackingListener &tracker)
      : RewriterBase::ForwardingListener(next), top(top), tracker(tracker) {
    tracker.setUnpatternedLabels(kDuplicateLabel, kNestedLabel);
  }
  ~NestedEraseLabels() override { restore(); }
  void notifyOperationErased(Operation *op) override {
    if (op == top)
      restore();
    ForwardingListener::notifyOperationErased(op);
  }

private:
  void restore() {
    if (restored)
      return;
    tracker.setUnpatternedLabels(kDuplicateLabel, kDeadLabel);
    restored = true;
  }

  Operation *top;
  tracking::PassTrackingListener &tracker;
  bool restored = false;
};

/// The rewriter of a tracked cse run. Upstream's cse rewrites with a
/// rewriter without a listener, and a rewriter with one pays for it on every
/// change: an erase walks the op's tree with a notification per op, and each
/// use that a replacement changes sends a modification. Without statistics
/// to count, this one takes the no-listener path (by leaving its listener
/// unset around upstream's code) where the tracking listener proves it would
/// do nothing: the erase of an op without regions that it ignores (most).
/// Modifications reach the listener, whose hook for them is an empty function
/// (PassTrackingListener): cheaper than an override here that unsets the
/// listener around each. The ops nested in an op it erases are labelled as
/// such (`NestedEraseLabels`).
class TrackedCSERewriter : public IRRewriter {
public:
#if LLVM_ENABLE_STATS
  TrackedCSERewriter(MLIRContext *context,
                     tracking::PassTrackingListener *tracker,
                     CSEStatisticsListener *statistics)
      : IRRewriter(context, statistics), tracker(tracker),
        statistics(statistics) {}
#else
  TrackedCSERewriter(MLIRContext *context,
                     tracking::PassTrackingListener *tracker)
      : IRRewriter(context, tracker), tracker(tracker) {}
#endif

  void eraseOp(Operation *op) override {
#if LLVM_ENABLE_STATS
    // Counted here: the listener also sees the ops erased with this one.
    if (!statistics->replaced.erase(op))
      ++statistics->numErasedDead;
#else
    if (tracker && op->getNumRegions() == 0 && tracker->ignoresChangesTo(op))
      return withoutListener([&] { IRRewriter::eraseOp(op); });
#endif
    if (!tracker || op->getNumRegions() == 0)
      return IRRewriter::eraseOp(op);
    OpBuilder::Listener *kept = getListener();
    NestedEraseLabels labels(kept, op, *tracker);
    setListener(&labels);
    IRRewriter::eraseOp(op);
    setListener(kept);
  }

private:
  template <typename Fn> void withoutListener(Fn fn) {
    OpBuilder::Listener *kept = getListener();
    setListener(nullptr);
    fn();
    setListener(kept);
  }

  tracking::PassTrackingListener *tracker;
#if LLVM_ENABLE_STATS
  CSEStatisticsListener *statistics;
#endif
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
    std::optional<tracking::PassTrackingListener> tracker;
    if (tracking::mayHaveHandlesUnder(getOperation())) {
      // The context's registry, looked up once per execution.
      tracker.emplace(&getContext());
      tracker->setUnpatternedLabels(kDuplicateLabel, kDeadLabel);
    }
    tracking::PassTrackingListener *trackerOrNull =
        tracker ? &*tracker : nullptr;
#if LLVM_ENABLE_STATS
    CSEStatisticsListener listener(trackerOrNull);
    TrackedCSERewriter rewriter(&getContext(), trackerOrNull, &listener);
#else
    TrackedCSERewriter rewriter(&getContext(), trackerOrNull);
#endif
    DominanceInfo &domInfo = getAnalysis<DominanceInfo>();
    bool changed = false;
    eliminateCommonSubExpressions(rewriter, domInfo, getOperation(), &changed);
#if LLVM_ENABLE_STATS
    numCSE += listener.numReplaced;
    numDCE += listener.numErasedDead;
#endif
    if (!changed)
      return markAllAnalysesPreserved();
    markAnalysesPreserved<DominanceInfo, PostDominanceInfo>();
  }
};
} // namespace

std::unique_ptr<Pass> mlir::tracking::createTrackedCSEPass() {
  return std::make_unique<TrackedCSEPass>();
}
