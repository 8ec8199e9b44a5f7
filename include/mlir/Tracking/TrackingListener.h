//===- TrackingListener.h - Keeps handles in step with rewrites -*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// TrackingListener is a RewriterBase::Listener that updates a HandleRegistry
// on every replace, erase and move. It finds replacement ops with the rules of
// the transform dialect's `transform::TrackingListener`.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_TRACKINGLISTENER_H
#define MLIR_TRACKING_TRACKINGLISTENER_H

#include "mlir/IR/PatternMatch.h"
#include "mlir/Tracking/HandleRegistry.h"
#include "llvm/ADT/SmallString.h"

namespace mlir {
class Pass;

namespace tracking {
namespace detail {
struct EventSource;
struct ChangeBatch;
struct LockFreeKeys;

/// The patterns being applied, innermost last: a pattern may run a rewrite
/// driver of its own with the same listener. Plain data, so that the
/// accesses around every match attempt stay cheap; entries deeper than kMax
/// are counted, not kept.
struct PatternStack {
  static constexpr unsigned kMax = 32;
  const Pattern *patterns[kMax];
  unsigned depth;

  const Pattern *innermost() const {
    return depth ? patterns[(depth < kMax ? depth : kMax) - 1] : nullptr;
  }
  void push(const Pattern *pattern) {
    if (depth < kMax)
      patterns[depth] = pattern;
    ++depth;
  }
  /// Pops the innermost frame of `pattern` (a driver that skipped its End on
  /// failure must not leave a stale pattern behind for the outer one).
  void pop(const Pattern *pattern) {
    if (depth > kMax || (depth && patterns[depth - 1] == pattern))
      --depth;
    else
      popBelow(pattern);
  }
  /// `pop` when `pattern` is not the innermost frame.
  void popBelow(const Pattern *pattern);
};

/// What the replacement rules ask of an op name (ConstantLike, a
/// FindPayloadReplacementOpInterface, a CastOpInterface), kept by a listener
/// that one thread uses for one execution: direct-mapped by name, the newest
/// name per slot. An op name lives as long as its context, so its address
/// names it only within that context: the cache forgets every name when it
/// sees an op of another context and when its listener starts an execution
/// (`TrackingListener::keepPatternsInListener`), and a slot holds the name's
/// TypeID too, since a context destroyed before may have left its place and
/// its names' places to a new one (a context on the stack of a loop does):
/// a name found at a remembered address is taken for the one remembered only
/// if it is an op of the same class, whose traits and interfaces are its
/// class's (but for interfaces attached to it in one context and not in the
/// other, while both contexts took the same places).
class OpKindCache {
public:
  /// The bits `getKind` returns.
  enum Kind : uint8_t {
    ConstantLike = 1,
    FindPayloadReplacement = 2,
    Cast = 4,
    /// Set in every computed kind: a slot of 0 is empty.
    Known = 8,
  };
  /// The kind of `op`'s name, its traits and interfaces looked up once per
  /// name.
  uint8_t getKind(Operation *op);
  /// The kind of `op`, looked up without a cache.
  static uint8_t computeKind(Operation *op);
  /// Forgets every name.
  void clear();
  /// The context of the names kept (null when none is).
  MLIRContext *getContext() const { return context; }
  /// The number of names kept (for tests).
  unsigned size() const;

  static constexpr unsigned kSlots = 16;

private:
  MLIRContext *context = nullptr;
  const void *names[kSlots] = {};
  TypeID typeIDs[kSlots] = {};
  uint8_t kinds[kSlots] = {};
};
} // namespace detail

/// The knobs of `transform::TrackingListenerConfig`, with the same defaults.
struct TrackingListenerConfig {
  /// Only accept a replacement op with the same name as the replaced op
  /// (a ConstantLike replacement is always accepted). Dialect conversion
  /// turns this off: the replacement of `arith.addi` is `llvm.add`.
  bool requireMatchingReplacementOpName = true;
  /// Look through ops implementing CastOpInterface when searching for the
  /// replacement op.
  bool skipCastOps = true;
};

/// Updates the handle registry as the IR is rewritten. Chainable: every
/// notification is also forwarded to `next`.
class TrackingListener : public RewriterBase::ForwardingListener {
public:
  /// With a null `registry`, each notification goes to the registry of the
  /// notified op's context, if there is one; such a listener is stateless
  /// and may be shared by all threads (see `getTrackingListener`). A given
  /// `registry` must outlive every notification the listener receives.
  explicit TrackingListener(TrackingListenerConfig config = {},
                            HandleRegistry *registry = nullptr,
                            OpBuilder::Listener *next = nullptr);

  /// Finds the op that replaces `op` when its results are replaced by
  /// `newValues`: the common defining op of all values, looking through cast
  /// ops and FindPayloadReplacementOpInterface ops, if it has `op`'s name or
  /// is ConstantLike. On failure, `reason` (if given) says why.
  FailureOr<Operation *> findReplacementOp(Operation *op, ValueRange newValues,
                                           std::string *reason = nullptr) const;

  /// Labels for changes made outside any pattern (folding and dead-code
  /// removal in the greedy driver, the rewrites of CSE).
  void setUnpatternedLabels(StringRef replaceLabel, StringRef eraseLabel);

  const TrackingListenerConfig &getConfig() const { return config; }

  /// Lock-free: true proves that a replace or erase notification about `op`
  /// would do nothing (this listener has a registry of its own in which `op`
  /// is neither tracked nor a scope, no block or value handle exists in the
  /// process, and no listener follows). For a rewriter that skips the
  /// notifications such an op would cost; false proves nothing.
  bool ignoresChangesTo(Operation *op) const;
  /// Whether a listener follows this one (in-place modifications, which
  /// tracking ignores, matter only to it).
  bool hasNextListener() const { return forwards; }

  /// Keeps the patterns being applied in this listener instead of per
  /// thread, which saves a thread-local access around every match attempt of
  /// the greedy driver. Only for a listener that one thread uses at a time
  /// for one execution (a pass's own listener): the patterns it is told
  /// about must outlive it, and it keeps per op name what the replacement
  /// rules ask of an op (its traits and interfaces). Call before it is used.
  void keepPatternsInListener() {
    patternsInListener = true;
    patternSlot = forwards ? kStackMode : 0;
    ownPatterns.depth = 0;
    // A cache that has seen no op holds no name (a new listener's).
    if (opKinds.getContext())
      opKinds.clear();
  }

  /// Fires when an op is inserted or moved: moved handles stay live. An op
  /// inserted with no previous position may have been unlinked with
  /// `remove()` elsewhere: the tracked ops nested in it are re-indexed.
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint previous) override;
  /// Fires when a block is inserted or moves to another region (region
  /// inlining).
  void notifyBlockInserted(Block *block, Region *previous,
                           Region::iterator previousIt) override;
  /// Fires before `op`'s results are replaced by `newValues`: the handle
  /// follows the op found by `findReplacementOp` or becomes erased.
  void notifyOperationReplaced(Operation *op, ValueRange newValues) override;
  /// Fires before `op` is replaced by the op the rewriter names
  /// (`replaceOp(op, newOp)`, `replaceOpWithNewOp`): the handle follows
  /// `newOp`, whatever its name and number of results.
  void notifyOperationReplaced(Operation *op, Operation *newOp) override;
  /// Fires before `op` is erased (nested ops first, post-order).
  void notifyOperationErased(Operation *op) override;
  /// Fires after `op` was modified in place: tracking ignores it; only
  /// forwarded (declared here so that it sits with the other entry points).
  void notifyOperationModified(Operation *op) override;
  /// Fires before `block` is erased: its block and value handles end.
  void notifyBlockErased(Block *block) override;
  /// Fire around each pattern application (they nest when a pattern runs a
  /// driver of its own): the innermost pattern goes into the history of the
  /// handles it changes.
  void notifyPatternBegin(const Pattern &pattern, Operation *op) override;
  void notifyPatternEnd(const Pattern &pattern, LogicalResult status) override;
  /// Fires when a pattern reports why it did not match (the greedy driver
  /// calls it for every such report once a listener is attached): only
  /// forwarded.
  void
  notifyMatchFailure(Location loc,
                     function_ref<void(Diagnostic &)> reasonCallback) override;

private:
  /// Which notification `notifyChange` was called for.
  enum class Change : uint8_t { ReplacedByValues, ReplacedByOp, Erased };
  /// The general paths of the replace and erase notifications.
  LLVM_ATTRIBUTE_NOINLINE void notifyReplacedSlow(Operation *op,
                                                  ValueRange newValues);
  LLVM_ATTRIBUTE_NOINLINE void notifyReplacedSlow(Operation *op,
                                                  Operation *newOp);
  LLVM_ATTRIBUTE_NOINLINE void notifyErasedSlow(Operation *op);
  /// The general path for `notifyChange`'s arguments.
  void dispatchChange(Operation *op, Change change, uintptr_t first,
                      uintptr_t second);
  /// A replace or erase of `op` when the untracked-op test ran and could
  /// not rule `op` out, with nothing else to notify (`skipKeys` set, no
  /// block or value handle): tracks it in `registry` without testing again.
  LLVM_ATTRIBUTE_NOINLINE void trackChange(Operation *op, Change change,
                                           uintptr_t first, uintptr_t second);

  /// The hooks around a match attempt when the listener keeps its patterns
  /// and forwards to no one stay a few instructions; the rest is here.
  void notifyPatternBeginSlow(const Pattern &pattern, Operation *op);
  void notifyPatternEndSlow(const Pattern &pattern, LogicalResult status);
  /// The registry to notify about `op`, or null when a lock-free test
  /// proves that `op` is neither tracked nor a scope (most notifications).
  HandleRegistry *getRegistryIfTracked(Operation *op) const;
  /// The same for a listener that looks its registry up per op.
  LLVM_ATTRIBUTE_NOINLINE HandleRegistry *
  getRegistryIfTrackedSlow(Operation *op) const;
  /// What a notification about an op that may be tracked does, out of line
  /// so that the untracked path stays a few lines of code: follows `op`'s
  /// handle to its replacement, or marks it erased.
  LLVM_ATTRIBUTE_NOINLINE void
  trackReplacement(HandleRegistry &target, Operation *op, ValueRange newValues);
  LLVM_ATTRIBUTE_NOINLINE void
  trackReplacement(HandleRegistry &target, Operation *op, Operation *newOp);
  LLVM_ATTRIBUTE_NOINLINE void trackErasure(HandleRegistry &target,
                                            Operation *op);
  /// The batch to queue a tracked change to `target` in (ChangeBatch.h), or
  /// null to apply it now: a PassTrackingListener takes its thread's batch
  /// at its first tracked change, unless another listener of the thread or
  /// of the registry holds it.
  detail::ChangeBatch *getBatch(HandleRegistry &target);
  /// True proves, lock-free and inline, that a replace or erase of `op` has
  /// nothing to do: a listener of one registry, with no listener after it
  /// and no block or value handle in the process, about an untracked op.
  bool canSkipUntracked(Operation *op) const;
  /// The three replace and erase notifications in one function: the
  /// untracked-op test (`canSkipUntracked`) once, on lines that every
  /// notification shares, then a tail call to the notification's general
  /// path. The arguments come as words, so that the test has registers left
  /// and saves none: the new values' base and count (ReplacedByValues), the
  /// new op (ReplacedByOp), nothing (Erased).
  void notifyChange(Operation *op, Change change, uintptr_t first,
                    uintptr_t second);
  HandleRegistry *getRegistry(Operation *op) const;
  detail::EventSource getEventSource(bool replaced) const;
  /// Sets every field of `source` that `getEventSource` sets, reusing the
  /// storage of its texts.
  void fillEventSource(detail::EventSource &source, bool replaced) const;
  /// The label of a change made outside any pattern.
  StringRef getUnpatternedLabel(bool replaced) const;
  /// The same, kept per thread until the pass or pattern changes: most
  /// events of a pattern application share it.
  const detail::EventSource &getCachedEventSource(bool replaced) const;
  /// The same when the inline test could not prove the cached one current
  /// (a listener that does not keep its patterns compares their names):
  /// reuses it if it is, else builds it anew.
  const detail::EventSource &
  getCachedEventSourceSlow(bool replaced, const Pattern *pattern) const;

  /// What the hooks around a match attempt read first. A listener that keeps
  /// its patterns and forwards to no one holds the one pattern being applied
  /// here (0 between attempts): its hooks are a compare and a store.
  /// kStackMode otherwise, and while patterns nest: they are then on
  /// `ownPatterns` (or the thread's stack). First among the members, as
  /// `skipKeys` and `forwards`: the entry points reach them with short
  /// offsets.
  uintptr_t patternSlot = kStackMode;
  static constexpr uintptr_t kStackMode = 1;
  /// `keys` if no listener follows this one, else null: all that the
  /// untracked-op test reads of the listener.
  const detail::LockFreeKeys *skipKeys;
  /// Whether a listener follows this one in the chain.
  bool forwards;
  TrackingListenerConfig config;
  HandleRegistry *registry;
  /// The lock-free state of `registry`, if given (OpFilter.h).
  const detail::LockFreeKeys *keys;
  /// Set by `setUnpatternedLabels`; until then the labels are the default
  /// texts. Inline storage: a listener made per pass execution allocates
  /// nothing for the labels of the in-tree drivers.
  llvm::SmallString<32> unpatternedReplaceLabel;
  llvm::SmallString<32> unpatternedEraseLabel;
  bool customLabels = false;
  /// Names this listener and its labels for the per-thread cache of event
  /// sources: unique per listener, renewed when the labels change.
  uint64_t sourceCacheKey;
  /// The innermost pattern being applied (from this listener's own stack or
  /// the thread's).
  const Pattern *getInnermostPattern() const;
  /// See keepPatternsInListener.
  bool patternsInListener = false;
  detail::PatternStack ownPatterns{};
  /// Only used with patternsInListener.
  detail::OpKindCache opKinds;

protected:
  /// Whether `getBatch` may still take the thread's batch (only a
  /// PassTrackingListener sets it: it lives for one pass execution on one
  /// thread).
  bool mayBatchChanges = false;
  /// Applies the changes queued in the thread's batch, if this listener
  /// holds it, and releases it.
  void releaseBatch();

private:
  /// The thread's batch while this listener holds it (applied and released
  /// by the destructor).
  detail::ChangeBatch *batch = nullptr;
};

/// The listener a precise pass attaches to the rewrites of one execution
/// (the tracked `canonicalize` and `cse`): the context's registry, no
/// listener after it, the patterns being applied kept in it
/// (`keepPatternsInListener`). Its failure-report and modification hooks,
/// which the greedy driver calls on every match attempt and change, are
/// empty functions. Its replace and erase notifications are
/// TrackingListener's: whether block or value handles exist is read at each
/// one, since an event observer running during the pass may make them. It
/// queues the replaces and erases of tracked ops without regions and has
/// the registry apply them in batches (the registry applies them before
/// any other use, on any thread, so nobody sees them late). Make it when the
/// pass starts, on the thread that runs it, and destroy it there (the
/// destructor applies what it queued). It keeps the registry the context
/// had when it was made: no rewrite may notify it once that registry is
/// destroyed (destroying the listener afterwards is fine: the registry
/// applied what it had queued).
class PassTrackingListener final : public TrackingListener {
public:
  explicit PassTrackingListener(MLIRContext *context,
                                TrackingListenerConfig config = {});
  /// Applies the changes it queued.
  ~PassTrackingListener() override;
  PassTrackingListener(const PassTrackingListener &) = delete;
  PassTrackingListener &operator=(const PassTrackingListener &) = delete;

  void notifyOperationModified(Operation *op) override;
  void
  notifyMatchFailure(Location loc,
                     function_ref<void(Diagnostic &)> reasonCallback) override;
};

/// The process-wide stateless listener (registry looked up per op) that the
/// precise passes attach to their rewrites, with the default configuration.
/// Safe to use when no tracking is active: it then does nothing but forward
/// nothing.
TrackingListener *getTrackingListener();

/// The same for rewrites made outside any pass or driver: the default
/// listener of TrackingRewriter, whose events name "TrackingRewriter".
TrackingListener *getTrackingRewriterListener();

/// Attributes the rewrites made on this thread to `pass` running on `anchor`
/// while alive (the pass instrumentation does the same around each pass):
/// set it to attribute rewrites made outside a pass manager. `anchor` must
/// be alive when it is made; the rewrites may erase it afterwards (events
/// name it as it was then).
class ScopedRewriteAttribution {
public:
  ScopedRewriteAttribution(StringRef passName, Operation *anchor,
                           const void *passKey = nullptr);
  ~ScopedRewriteAttribution();
  ScopedRewriteAttribution(const ScopedRewriteAttribution &) = delete;
  ScopedRewriteAttribution &
  operator=(const ScopedRewriteAttribution &) = delete;
};

/// False proves that no handle (of an op, block or value) lies under
/// `anchor`, so the tracking listener has nothing to do for rewrites there
/// and a precise pass may run without it. Lock-free; may answer true when
/// nothing is tracked. Call it when the pass starts, on the thread that runs
/// it: handles are never created under an anchor a pass is rewriting.
bool mayHaveHandlesUnder(Operation *anchor);

/// "func.func @f", "builtin.module": how an anchor is named in events.
std::string describeAnchor(Operation *anchor);
/// The same from the anchor's name and its symbol name (empty for none).
std::string describeAnchor(StringRef opName, StringRef symbolName);

} // namespace tracking
} // namespace mlir

#endif // MLIR_TRACKING_TRACKINGLISTENER_H
