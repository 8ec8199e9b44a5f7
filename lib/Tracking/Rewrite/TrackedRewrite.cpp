//===- TrackedRewrite.cpp - Pattern drivers that keep handles precise -----===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "mlir/Tracking/TrackedRewrite.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mlir::tracking;

TrackingConfig mlir::tracking::getConversionTrackingConfig() {
  TrackingConfig config;
  config.requireMatchingReplacementOpName = false;
  return config;
}

//===----------------------------------------------------------------------===//
// Greedy and walk drivers
//===----------------------------------------------------------------------===//

namespace {
/// The tracking listener of one greedy run, chained before the caller's.
struct GreedyRun {
  GreedyRun(GreedyRewriteConfig &config, TrackingConfig tracking)
      : listener(tracking, /*registry=*/nullptr, config.getListener()) {
    config.setListener(&listener);
  }
  TrackingListener listener;
};
} // namespace

LogicalResult mlir::tracking::applyPatternsGreedilyTracked(
    Operation *op, const FrozenRewritePatternSet &patterns,
    GreedyRewriteConfig config, TrackingConfig tracking, bool *changed) {
  GreedyRun run(config, tracking);
  return applyPatternsGreedily(op, patterns, config, changed);
}

LogicalResult mlir::tracking::applyPatternsGreedilyTracked(
    Region &region, const FrozenRewritePatternSet &patterns,
    GreedyRewriteConfig config, TrackingConfig tracking, bool *changed) {
  GreedyRun run(config, tracking);
  return applyPatternsGreedily(region, patterns, config, changed);
}

void mlir::tracking::walkAndApplyPatternsTracked(
    Operation *op, const FrozenRewritePatternSet &patterns,
    TrackingConfig tracking, RewriterBase::Listener *next) {
  TrackingListener listener(tracking, /*registry=*/nullptr, next);
  // The walk driver does not report which pattern applied.
  listener.setUnpatternedLabels("walk pattern driver", "walk pattern driver");
  walkAndApplyPatterns(op, patterns, &listener);
}

//===----------------------------------------------------------------------===//
// ConversionTrackingListener
//===----------------------------------------------------------------------===//

struct ConversionTrackingListener::State {
  State(TrackingConfig tracking, RewriterBase::Listener *next,
        bool delayedNotifications)
      : tracking(tracking), next(next),
        delayedNotifications(delayedNotifications) {
    this->tracking.setUnpatternedLabels("dialect conversion",
                                        "erased by dialect conversion");
  }
  /// Receives the committed notifications, without `next`: the pattern
  /// brackets we add around them are ours, not the driver's.
  TrackingListener tracking;
  RewriterBase::Listener *next;
  /// True when the driver may roll back (and so notifies at commit and
  /// frees no op before the conversion ends).
  bool delayedNotifications;
  struct Application {
    const Pattern *pattern;
    Operation *root;
    /// The op before `root` when the pattern began.
    Operation *previous;
  };
  /// Patterns being applied (conversion legalizes the ops a pattern created
  /// before that pattern ends, so applications nest).
  SmallVector<Application> active;
  /// The last pattern that succeeded on each root op. Ops are not freed
  /// before the conversion ends, so no key is reused while this lives.
  llvm::DenseMap<Operation *, const Pattern *> rewrittenBy;
  /// The last op a successful pattern created right before its root: what
  /// the root's handle follows if the driver commits the replacement with no
  /// values (it drops the replacement of results it considers dead).
  llvm::DenseMap<Operation *, Operation *> createdBefore;

  /// The pattern that rewrote `op` or its nearest rewritten ancestor.
  const Pattern *findPattern(Operation *op) const {
    for (Operation *current = op; current; current = current->getParentOp()) {
      auto it = rewrittenBy.find(current);
      if (it != rewrittenBy.end())
        return it->second;
    }
    return nullptr;
  }

  /// Runs `notify` on the tracking listener, attributed to `op`'s pattern.
  template <typename Fn> void attributed(Operation *op, Fn notify) {
    const Pattern *pattern = findPattern(op);
    if (pattern)
      tracking.notifyPatternBegin(*pattern, op);
    notify(tracking);
    if (pattern)
      tracking.notifyPatternEnd(*pattern, success());
  }
};

ConversionTrackingListener::ConversionTrackingListener(
    TrackingConfig tracking, RewriterBase::Listener *next,
    bool delayedNotifications)
    : state(std::make_unique<State>(tracking, next, delayedNotifications)) {}

/// Looks through the `builtin.unrealized_conversion_cast` ops the driver
/// materializes between old and new types: they are bookkeeping, and
/// reconcile-unrealized-casts removes them later.
static SmallVector<Value> lookThroughMaterializations(ValueRange values) {
  SmallVector<Value> result;
  for (Value value : values) {
    while (value) {
      auto cast = value.getDefiningOp<UnrealizedConversionCastOp>();
      if (!cast || cast.getNumOperands() != cast.getNumResults())
        break;
      value = cast.getOperand(llvm::cast<OpResult>(value).getResultNumber());
    }
    result.push_back(value);
  }
  return result;
}

ConversionTrackingListener::~ConversionTrackingListener() = default;

void ConversionTrackingListener::notifyPatternBegin(const Pattern &pattern,
                                                    Operation *op) {
  Operation *previous =
      state->delayedNotifications ? op->getPrevNode() : nullptr;
  state->active.push_back({&pattern, op, previous});
  if (state->next)
    state->next->notifyPatternBegin(pattern, op);
}

void ConversionTrackingListener::notifyPatternEnd(const Pattern &pattern,
                                                  LogicalResult status) {
  if (!state->active.empty()) {
    State::Application application = state->active.pop_back_val();
    if (succeeded(status) && application.pattern == &pattern) {
      Operation *root = application.root;
      state->rewrittenBy[root] = &pattern;
      // Replaced ops stay in place until commit when notifications are
      // delayed; otherwise `root` may be gone already.
      if (state->delayedNotifications) {
        Operation *previous = root->getPrevNode();
        if (previous && previous != application.previous &&
            !isa<UnrealizedConversionCastOp>(previous))
          state->createdBefore[root] = previous;
        else
          state->createdBefore.erase(root);
      }
    }
  }
  if (state->next)
    state->next->notifyPatternEnd(pattern, status);
}

void ConversionTrackingListener::notifyOperationInserted(
    Operation *op, OpBuilder::InsertPoint previous) {
  state->tracking.notifyOperationInserted(op, previous);
  if (state->next)
    state->next->notifyOperationInserted(op, previous);
}

void ConversionTrackingListener::notifyBlockInserted(
    Block *block, Region *previous, Region::iterator previousIt) {
  state->tracking.notifyBlockInserted(block, previous, previousIt);
  if (state->next)
    state->next->notifyBlockInserted(block, previous, previousIt);
}

void ConversionTrackingListener::notifyOperationModified(Operation *op) {
  if (state->next)
    state->next->notifyOperationModified(op);
}

void ConversionTrackingListener::notifyOperationReplaced(Operation *op,
                                                         ValueRange newValues) {
  SmallVector<Value> values(newValues.begin(), newValues.end());
  if (state->tracking.getConfig().skipCastOps)
    values = lookThroughMaterializations(newValues);
  if (llvm::all_of(values, [](Value value) { return !value; })) {
    auto it = state->createdBefore.find(op);
    if (it != state->createdBefore.end())
      values.assign(it->second->result_begin(), it->second->result_end());
  }
  state->attributed(op, [&](TrackingListener &tracking) {
    tracking.notifyOperationReplaced(op, values);
  });
  if (state->next)
    state->next->notifyOperationReplaced(op, newValues);
}

void ConversionTrackingListener::notifyOperationReplaced(Operation *op,
                                                         Operation *newOp) {
  state->attributed(op, [&](TrackingListener &tracking) {
    tracking.notifyOperationReplaced(op, newOp);
  });
  if (state->next)
    state->next->notifyOperationReplaced(op, newOp);
}

void ConversionTrackingListener::notifyOperationErased(Operation *op) {
  state->attributed(op, [&](TrackingListener &tracking) {
    tracking.notifyOperationErased(op);
  });
  if (state->next)
    state->next->notifyOperationErased(op);
}

void ConversionTrackingListener::notifyBlockErased(Block *block) {
  // Block and value handles end with the block (never keep a freed Block*).
  state->tracking.notifyBlockErased(block);
  if (state->next)
    state->next->notifyBlockErased(block);
}

void ConversionTrackingListener::notifyMatchFailure(
    Location loc, function_ref<void(Diagnostic &)> reasonCallback) {
  if (state->next)
    state->next->notifyMatchFailure(loc, reasonCallback);
}

//===----------------------------------------------------------------------===//
// Conversion drivers
//===----------------------------------------------------------------------===//

LogicalResult mlir::tracking::applyPartialConversionTracked(
    Operation *op, const ConversionTarget &target,
    const FrozenRewritePatternSet &patterns, ConversionConfig config,
    TrackingConfig tracking) {
  ConversionTrackingListener listener(tracking, config.listener,
                                      config.allowPatternRollback);
  config.listener = &listener;
  return applyPartialConversion(op, target, patterns, config);
}

LogicalResult mlir::tracking::applyFullConversionTracked(
    Operation *op, const ConversionTarget &target,
    const FrozenRewritePatternSet &patterns, ConversionConfig config,
    TrackingConfig tracking) {
  ConversionTrackingListener listener(tracking, config.listener,
                                      config.allowPatternRollback);
  config.listener = &listener;
  return applyFullConversion(op, target, patterns, config);
}
