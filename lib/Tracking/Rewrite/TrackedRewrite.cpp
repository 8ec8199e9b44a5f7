//===- TrackedRewrite.cpp - Pattern drivers that keep handles precise -----===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "mlir/Tracking/TrackedRewrite.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>

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
  /// True when the driver may roll back: it then notifies at commit and
  /// frees the ops it replaced only after that. Otherwise it notifies (and
  /// frees) at once, inside the pattern.
  bool delayedNotifications;
  struct Application {
    const Pattern *pattern;
    Operation *root;
    /// The op before `root` when the pattern began.
    Operation *previous;
    /// The size of `undoLog` when the pattern began.
    size_t undoMark;
  };
  /// Patterns being applied (conversion legalizes the ops a pattern created
  /// before that pattern ends, so applications nest).
  SmallVector<Application> active;
  /// What the last pattern that succeeded on a root op did.
  struct Rewrite {
    const Pattern *pattern = nullptr;
    /// The last op the pattern created right before the root, if any: what
    /// the root's handle follows if the driver commits the replacement with
    /// no values (it drops the replacement of results it considers dead).
    Operation *createdBefore = nullptr;
  };
  /// Keyed by root op; kept only when notifications are delayed (otherwise
  /// a root may be freed, and its address reused, as soon as it ends). The
  /// driver undoes a pattern whose result it cannot legalize together with
  /// the patterns nested in it, and frees the ops they created (roots or
  /// `createdBefore` here), so we undo their entries too (`undoLog`). (It
  /// also undoes a fold whose constants it cannot legalize, without a
  /// notification: once `opsBefore` is known, no entry names such a
  /// constant, and `committedOps` keeps the ops created before a root from
  /// being read.)
  llvm::DenseMap<Operation *, Rewrite> rewrites;
  /// The entries of `rewrites` that patterns ending inside an active one
  /// overwrote (std::nullopt: there was none), oldest first.
  SmallVector<std::pair<Operation *, std::optional<Rewrite>>> undoLog;
  /// The ops announced as inserted at commit and not yet as erased or
  /// replaced: a `createdBefore` op is read only if it is one. A created op
  /// that survives is announced before the replacement that follows it (the
  /// driver commits its rewrites in order); one the driver freed when it
  /// undid its creation (a fold it could not legalize) never is.
  llvm::DenseSet<Operation *> committedOps;
  /// The ops that existed when the conversion began, if known
  /// (`noteOpsBeforeConversion`): the roots `rewrites` may name. The driver
  /// frees none of them before it commits.
  llvm::DenseSet<Operation *> opsBefore;
  bool knowsOpsBefore = false;
  /// The pattern whose failure was reported last, if none began since: the
  /// driver reports the failure of a pattern that matched but whose result
  /// it could not legalize twice (from its success and failure callbacks).
  const Pattern *lastFailed = nullptr;

  /// Ends the innermost application with `status`.
  void end(const Pattern &pattern, LogicalResult status) {
    Application application = active.pop_back_val();
    if (failed(status)) {
      undoTo(application.undoMark);
      return;
    }
    if (application.pattern == &pattern && delayedNotifications)
      record(application);
    // Nothing encloses it any more, so nothing can undo it.
    if (active.empty())
      undoLog.clear();
  }

  /// Remembers what the successful `application` did to its root. Replaced
  /// ops stay in place until commit when notifications are delayed.
  void record(const Application &application) {
    Operation *root = application.root;
    // A root created during the conversion may be a fold's constant that
    // the driver frees unannounced, and an op created later at its address
    // would take its entry: its rewrites go unnamed ("dialect conversion").
    if (knowsOpsBefore && !opsBefore.contains(root))
      return;
    Rewrite rewrite{application.pattern, nullptr};
    Operation *previous = root->getPrevNode();
    if (previous && previous != application.previous &&
        !isa<UnrealizedConversionCastOp>(previous))
      rewrite.createdBefore = previous;
    auto [it, inserted] = rewrites.try_emplace(root, rewrite);
    if (!active.empty())
      undoLog.emplace_back(root,
                           inserted ? std::nullopt : std::optional(it->second));
    it->second = rewrite;
  }

  /// Undoes the entries recorded since `undoLog` had `size` entries.
  void undoTo(size_t size) {
    while (undoLog.size() > size) {
      auto [root, old] = undoLog.pop_back_val();
      if (old)
        rewrites[root] = *old;
      else
        rewrites.erase(root);
    }
  }

  /// The pattern that rewrote `op` or its nearest rewritten ancestor. With
  /// immediate notifications, the pattern being applied.
  const Pattern *findPattern(Operation *op) const {
    if (!delayedNotifications)
      return active.empty() ? nullptr : active.back().pattern;
    for (Operation *current = op; current; current = current->getParentOp()) {
      auto it = rewrites.find(current);
      if (it != rewrites.end())
        return it->second.pattern;
    }
    return nullptr;
  }

  /// `op` and the ops in it are about to be freed.
  void forgetCommitted(Operation *op) {
    if (committedOps.empty())
      return;
    if (op->getNumRegions() == 0) {
      committedOps.erase(op);
      return;
    }
    op->walk([&](Operation *nested) { committedOps.erase(nested); });
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

void ConversionTrackingListener::noteOpsBeforeConversion(Operation *root) {
  state->knowsOpsBefore = true;
  root->walk([&](Operation *op) { state->opsBefore.insert(op); });
}

void ConversionTrackingListener::notifyPatternBegin(const Pattern &pattern,
                                                    Operation *op) {
  Operation *previous =
      state->delayedNotifications ? op->getPrevNode() : nullptr;
  state->active.push_back({&pattern, op, previous, state->undoLog.size()});
  state->lastFailed = nullptr;
  if (state->next)
    state->next->notifyPatternBegin(pattern, op);
}

void ConversionTrackingListener::notifyPatternEnd(const Pattern &pattern,
                                                  LogicalResult status) {
  // A failure right after the same pattern's failure is the driver's second
  // report of it (counting both would end the enclosing application).
  bool repeated = failed(status) && state->lastFailed == &pattern;
  state->lastFailed = failed(status) && !repeated ? &pattern : nullptr;
  if (!repeated && !state->active.empty())
    state->end(pattern, status);
  if (state->next)
    state->next->notifyPatternEnd(pattern, status);
}

void ConversionTrackingListener::notifyOperationInserted(
    Operation *op, OpBuilder::InsertPoint previous) {
  if (state->delayedNotifications)
    state->committedOps.insert(op);
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
    auto it = state->rewrites.find(op);
    if (it != state->rewrites.end() && it->second.createdBefore &&
        state->committedOps.contains(it->second.createdBefore))
      values.assign(it->second.createdBefore->result_begin(),
                    it->second.createdBefore->result_end());
  }
  state->forgetCommitted(op);
  state->attributed(op, [&](TrackingListener &tracking) {
    tracking.notifyOperationReplaced(op, values);
  });
  if (state->next)
    state->next->notifyOperationReplaced(op, newValues);
}

void ConversionTrackingListener::notifyOperationReplaced(Operation *op,
                                                         Operation *newOp) {
  state->forgetCommitted(op);
  state->attributed(op, [&](TrackingListener &tracking) {
    tracking.notifyOperationReplaced(op, newOp);
  });
  if (state->next)
    state->next->notifyOperationReplaced(op, newOp);
}

void ConversionTrackingListener::notifyOperationErased(Operation *op) {
  state->forgetCommitted(op);
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
  if (config.allowPatternRollback)
    listener.noteOpsBeforeConversion(op);
  config.listener = &listener;
  return applyPartialConversion(op, target, patterns, config);
}

LogicalResult mlir::tracking::applyFullConversionTracked(
    Operation *op, const ConversionTarget &target,
    const FrozenRewritePatternSet &patterns, ConversionConfig config,
    TrackingConfig tracking) {
  ConversionTrackingListener listener(tracking, config.listener,
                                      config.allowPatternRollback);
  if (config.allowPatternRollback)
    listener.noteOpsBeforeConversion(op);
  config.listener = &listener;
  return applyFullConversion(op, target, patterns, config);
}
