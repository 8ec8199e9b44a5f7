//===- TrackedRewrite.h - Pattern drivers that keep handles precise -*- C++
//-*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// The greedy and walk pattern drivers and the dialect conversion driver, run
// with a tracking listener built from a per-run TrackingConfig. Every replace
// and erase they make (patterns, folding, dead-code removal, region
// simplification, and for conversion everything that is committed) updates
// the handle registry of the rewritten IR's context. Any listener already in
// the driver's config still receives every notification.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_TRACKEDREWRITE_H
#define MLIR_TRACKING_TRACKEDREWRITE_H

#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Tracking/TrackingListener.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tracking {

/// How the handles of rewritten ops find their replacement, per run: the
/// transform dialect's knobs (require matching op name, skip casts).
using TrackingConfig = TrackingListenerConfig;

/// The default for dialect conversion: replacements change dialect
/// (`arith.addi` becomes `llvm.add`), so names may differ.
TrackingConfig getConversionTrackingConfig();

/// `applyPatternsGreedily` with a tracking listener for `tracking`; the
/// listener already in `config` (if any) is chained after it.
LogicalResult applyPatternsGreedilyTracked(
    Operation *op, const FrozenRewritePatternSet &patterns,
    GreedyRewriteConfig config = GreedyRewriteConfig(),
    TrackingConfig tracking = TrackingConfig(), bool *changed = nullptr);

/// The same on the ops in `region` (not the region's parent op).
LogicalResult applyPatternsGreedilyTracked(
    Region &region, const FrozenRewritePatternSet &patterns,
    GreedyRewriteConfig config = GreedyRewriteConfig(),
    TrackingConfig tracking = TrackingConfig(), bool *changed = nullptr);

/// `walkAndApplyPatterns` (ops nested in `op`, not `op` itself) with a
/// tracking listener; `next` also receives every notification.
void walkAndApplyPatternsTracked(Operation *op,
                                 const FrozenRewritePatternSet &patterns,
                                 TrackingConfig tracking = TrackingConfig(),
                                 RewriterBase::Listener *next = nullptr);

/// `applyPartialConversion` with a tracking listener. The driver notifies at
/// commit: on success handles follow the conversion, each event naming the
/// pattern that rewrote the op; on failure (everything rolled back) no
/// handle changes. The listener in `config` (if any) is chained after ours.
LogicalResult applyPartialConversionTracked(
    Operation *op, const ConversionTarget &target,
    const FrozenRewritePatternSet &patterns,
    ConversionConfig config = ConversionConfig(),
    TrackingConfig tracking = getConversionTrackingConfig());

/// `applyFullConversion` with a tracking listener, as above.
LogicalResult applyFullConversionTracked(
    Operation *op, const ConversionTarget &target,
    const FrozenRewritePatternSet &patterns,
    ConversionConfig config = ConversionConfig(),
    TrackingConfig tracking = getConversionTrackingConfig());

/// The listener the conversion driver is given: the dialect conversion
/// notifies replacements at commit, long after the pattern that made them
/// ended, so this listener remembers which pattern rewrote each root op and
/// attributes the committed events to it. Notifications go to a
/// TrackingListener for `tracking`, then to `next`.
class ConversionTrackingListener : public RewriterBase::Listener {
public:
  /// `delayedNotifications`: the driver's `allowPatternRollback` (it then
  /// notifies at commit; before that it frees only the ops that patterns it
  /// undoes created).
  explicit ConversionTrackingListener(
      TrackingConfig tracking = getConversionTrackingConfig(),
      RewriterBase::Listener *next = nullptr, bool delayedNotifications = true);
  ~ConversionTrackingListener() override;

  /// Takes note of the ops under `root`, which the driver is about to
  /// convert: only patterns applied to those are remembered from then on.
  /// Any other op was created during the conversion and may be a fold's
  /// constant, which the driver frees without a notification when it undoes
  /// the fold (with what patterns applied to it created): a later op at its
  /// address must not be attributed to a pattern that never rewrote it.
  void noteOpsBeforeConversion(Operation *root);

  /// Fires around each pattern application, during matching (before any
  /// commit): remembers the pattern of each successfully rewritten root,
  /// and forgets it again when the driver undoes that pattern.
  void notifyPatternBegin(const Pattern &pattern, Operation *op) override;
  void notifyPatternEnd(const Pattern &pattern, LogicalResult status) override;
  /// Fire at commit.
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint previous) override;
  void notifyBlockInserted(Block *block, Region *previous,
                           Region::iterator previousIt) override;
  void notifyOperationModified(Operation *op) override;
  void notifyOperationReplaced(Operation *op, ValueRange newValues) override;
  void notifyOperationReplaced(Operation *op, Operation *newOp) override;
  void notifyOperationErased(Operation *op) override;
  void notifyBlockErased(Block *block) override;
  void
  notifyMatchFailure(Location loc,
                     function_ref<void(Diagnostic &)> reasonCallback) override;

private:
  struct State;
  std::unique_ptr<State> state;
};

} // namespace mlir::tracking

#endif // MLIR_TRACKING_TRACKEDREWRITE_H
