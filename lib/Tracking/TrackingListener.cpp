//===- TrackingListener.cpp - Keeps handles in step with rewrites ---------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "mlir/Tracking/TrackingListener.h"
#include "Attribution.h"
#include "ChangeBatch.h"
#include "OpFilter.h"
#include "RegistryNotifier.h"

#include "BlockValueNotifications.h"
#include "HotPath.h"

#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/CastInterfaces.h"

#include <atomic>
#include <memory>
#include <optional>

using namespace mlir;
using namespace mlir::tracking;
using mlir::tracking::detail::ChangeBatch;
using mlir::tracking::detail::EventSource;
using mlir::tracking::detail::RegistryNotifier;

namespace {
/// What this thread is doing, for the history of the handles it changes.
struct ThreadAttribution {
  struct Frame {
    std::string pass;
    Operation *anchor;
    const void *passKey;
    /// Pushed for a pass that runs on `anchor` (pushAttribution), not by a
    /// ScopedRewriteAttribution, whose anchor the rewrites may erase.
    bool isPass = false;
    /// The anchor's parts that events name it by (EventSource::anchorName
    /// and anchorSymbol): looked up when a ScopedRewriteAttribution is made
    /// (its anchor may be erased before the frame's first event), else for
    /// the frame's first event (a pass's anchor lives through the pass).
    bool anchorDescribed = false;
    const void *anchorName = nullptr;
    const void *anchorSymbol = nullptr;

    void lookUpAnchorParts() {
      if (anchorDescribed || !anchor)
        return;
      anchorName = anchor->getName().getAsOpaquePointer();
      if (auto symbol = anchor->getAttrOfType<StringAttr>(
              SymbolTable::getSymbolAttrName()))
        anchorSymbol = symbol.getAsOpaquePointer();
      anchorDescribed = true;
    }
  };
  SmallVector<Frame, 2> frames;
};
thread_local ThreadAttribution attribution;

/// The patterns being applied on this thread, for listeners that do not keep
/// their own (see TrackingListener::keepPatternsInListener).
thread_local tracking::detail::PatternStack patternStack;

/// The event sources last built on this thread (for replacements and for
/// erasures), valid until the attribution changes.
struct CachedEventSources {
  /// TrackingListener::sourceCacheKey of the listener that built them.
  uint64_t listener = 0;
  /// The innermost pattern they name (null for none), with what names it:
  /// a pattern freed and another allocated at its address is not taken for
  /// it.
  const Pattern *pattern = nullptr;
  std::string patternName;
  std::optional<OperationName> patternRoot;
  EventSource sources[2];
};
thread_local CachedEventSources cachedSources;

/// What decides whether the sources above may be reused, as plain data: a
/// thread-local with a trivial constructor needs no initialization check,
/// which keeps the common case (a source reused) a few loads.
struct CachedSourceKey {
  uint64_t listener;
  const Pattern *pattern;
  /// cachedSources.sources, or null while neither is valid.
  EventSource *sources;
  bool valid[2];
  void invalidate() { valid[0] = valid[1] = false; }
  /// Whether the source for `replaced` is valid and was built by the
  /// listener `listenerKey` for `innermost` (by address).
  bool holds(uint64_t listenerKey, const Pattern *innermost,
             bool replaced) const {
    return listener == listenerKey && pattern == innermost && valid[replaced];
  }
};
thread_local CachedSourceKey cachedSourceKey;

/// The changes a pass's listener on this thread queued (ChangeBatch.h),
/// made when the thread's first listener takes it. Its entries point at
/// `cachedSources`, so refilling those applies it first. On the heap: 2 KiB
/// of thread-local storage would not fit the static TLS block that a
/// library loaded late (the Python extension) may use.
thread_local std::unique_ptr<ChangeBatch> threadBatch;

/// Applies the thread's batch if one of its changes points at `source`,
/// which is about to be refilled.
void applyThreadBatchBefore(const EventSource &source) {
  ChangeBatch *batch = threadBatch.get();
  if (!batch || !batch->registry)
    return;
  uint32_t queued = batch->count.load(std::memory_order_relaxed);
  for (const auto &change : ArrayRef(batch->entries, queued)) {
    if (change.source == &source) {
      RegistryNotifier(*batch->registry).applyBatch(*batch);
      return;
    }
  }
}
std::atomic<uint64_t> nextSourceCacheKey{1};

/// Whether the cached sources name `pattern` by its names, not only by its
/// address.
bool cachedPatternNamesMatch(const Pattern &pattern) {
  return pattern.getDebugName() == cachedSources.patternName &&
         pattern.getRootKind() == cachedSources.patternRoot;
}

/// Sets `text` to how events name `pattern` (into its storage: the cached
/// sources keep theirs).
void describePattern(const Pattern &pattern, std::string &text) {
  StringRef name = pattern.getDebugName();
  // Type names of patterns in anonymous namespaces, as clang and gcc spell
  // them: the prefix says nothing to the reader.
  name.consume_front("(anonymous namespace)::");
  name.consume_front("{anonymous}::");
  if (!name.empty()) {
    text.assign("pattern ");
    text.append(name.data(), name.size());
    return;
  }
  if (std::optional<OperationName> root = pattern.getRootKind()) {
    StringRef rootName = root->getStringRef();
    text.assign("unnamed pattern on ");
    text.append(rootName.data(), rootName.size());
    return;
  }
  text.assign("unnamed pattern");
}

/// The single op defining all `values`, or nullptr (like the transform
/// dialect's `TrackingListener::getCommonDefiningOp`).
template <typename Range> Operation *getCommonDefiningOpOf(Range values) {
  Operation *defOp = nullptr;
  for (Value value : values) {
    if (!value)
      continue;
    if (!defOp) {
      defOp = value.getDefiningOp();
      if (!defOp)
        return nullptr;
      continue;
    }
    if (value.getDefiningOp() != defOp)
      return nullptr;
  }
  return defOp;
}

// The tracked path's steps of the listener, pinned to the instruction-cache
// sets upstream's code uses least (HotPath.h), in two groups of a page each.
MLIR_TRACKING_PINNED_SECTION_START(listener_track)
MLIR_TRACKING_PINNED_SECTION_START(listener_track_other)

MLIR_TRACKING_PINNED(listener_track_other)
Operation *getCommonDefiningOp(ValueRange values) {
  // Most replacement values are the results of one op (a pattern's new op)
  // or an array (a fold's results): neither needs the range's out-of-line
  // dereference per value.
  ValueRange::OwnerT base = values.getBase();
  if (auto *result = dyn_cast_if_present<mlir::detail::OpResultImpl *>(base))
    return values.empty() ? nullptr : result->getOwner();
  if (auto *array = dyn_cast_if_present<const Value *>(base))
    return getCommonDefiningOpOf(ArrayRef<Value>(array, values.size()));
  return getCommonDefiningOpOf(values);
}
} // namespace

std::string mlir::tracking::describeAnchor(Operation *anchor) {
  auto symbol =
      anchor->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
  return describeAnchor(anchor->getName().getStringRef(),
                        symbol ? symbol.getValue() : StringRef());
}

std::string mlir::tracking::describeAnchor(StringRef name,
                                           StringRef symbolName) {
  if (symbolName.empty())
    return name.str();
  std::string text;
  text.reserve(name.size() + 2 + symbolName.size());
  text.append(name.data(), name.size());
  text.append(" @");
  text.append(symbolName.data(), symbolName.size());
  return text;
}

void tracking::detail::pushAttribution(StringRef pass, Operation *anchor,
                                       const void *passKey) {
  attribution.frames.push_back({pass.str(), anchor, passKey});
  attribution.frames.back().isPass = true;
  cachedSourceKey.invalidate();
}

void tracking::detail::popAttribution(const void *passKey, Operation *anchor) {
  auto &frames = attribution.frames;
  for (size_t i = frames.size(); i-- > 0;) {
    if (frames[i].passKey == passKey && frames[i].anchor == anchor) {
      frames.erase(frames.begin() + i);
      cachedSourceKey.invalidate();
      return;
    }
  }
}

Operation *tracking::detail::getRunningPassAnchor() {
  for (const ThreadAttribution::Frame &frame :
       llvm::reverse(attribution.frames))
    if (frame.isPass)
      return frame.anchor;
  return nullptr;
}

ScopedRewriteAttribution::ScopedRewriteAttribution(StringRef passName,
                                                   Operation *anchor,
                                                   const void *passKey) {
  detail::pushAttribution(passName, anchor, passKey);
  // Now, while the anchor is certainly alive: the caller's rewrites may
  // erase it before the first event.
  attribution.frames.back().lookUpAnchorParts();
}

ScopedRewriteAttribution::~ScopedRewriteAttribution() {
  attribution.frames.pop_back();
  cachedSourceKey.invalidate();
}

bool mlir::tracking::mayHaveHandlesUnder(Operation *anchor) {
  MLIRContext *context = anchor->getContext();
  if (detail::hasUnitHandles(context))
    return true;
  HandleRegistry *registry = HandleRegistry::lookup(context);
  if (!registry)
    return false;
  RegistryNotifier notifier(*registry);
  if (!notifier.hasHandles())
    return false;
  // Records under a scope are indexed under it, and the index (so the
  // filter) knows every scope with records below it. The filter first: an
  // anchor with handles below is a scope, and finding an op's scope asks
  // its name for a trait.
  if (notifier.mayBeTracked(anchor))
    return true;
  return RegistryNotifier::getBodyScope(anchor) != anchor;
}

TrackingListener *mlir::tracking::getTrackingListener() {
  static TrackingListener listener;
  return &listener;
}

TrackingListener *mlir::tracking::getTrackingRewriterListener() {
  // Its events say which rewriter made them, not the greedy driver's
  // reasons ("folded") that the unpatterned changes of a pass carry.
  struct RewriterListener : TrackingListener {
    RewriterListener() {
      setUnpatternedLabels("TrackingRewriter", "TrackingRewriter");
    }
  };
  static RewriterListener listener;
  return &listener;
}

TrackingListener::TrackingListener(TrackingListenerConfig config,
                                   HandleRegistry *registry,
                                   OpBuilder::Listener *next)
    : RewriterBase::ForwardingListener(next),
      skipKeys(registry && !next
                   ? &RegistryNotifier(*registry).getLockFreeKeys()
                   : nullptr),
      forwards(next != nullptr), config(config), registry(registry),
      keys(registry ? &RegistryNotifier(*registry).getLockFreeKeys() : nullptr),
      sourceCacheKey(
          nextSourceCacheKey.fetch_add(1, std::memory_order_relaxed)) {}

void TrackingListener::setUnpatternedLabels(StringRef replaceLabel,
                                            StringRef eraseLabel) {
  unpatternedReplaceLabel = replaceLabel;
  unpatternedEraseLabel = eraseLabel;
  customLabels = true;
  sourceCacheKey = nextSourceCacheKey.fetch_add(1, std::memory_order_relaxed);
}

MLIR_TRACKING_HOT_PATH HandleRegistry *
TrackingListener::getRegistry(Operation *op) const {
  return registry ? registry : HandleRegistry::lookup(op->getContext());
}

/// Inline: read by every event's source.
LLVM_ATTRIBUTE_ALWAYS_INLINE const Pattern *
TrackingListener::getInnermostPattern() const {
  if (patternSlot != kStackMode)
    return reinterpret_cast<const Pattern *>(patternSlot);
  return patternsInListener ? ownPatterns.innermost()
                            : patternStack.innermost();
}

StringRef TrackingListener::getUnpatternedLabel(bool replaced) const {
  if (customLabels)
    return replaced ? unpatternedReplaceLabel : unpatternedEraseLabel;
  return replaced ? "folded" : "dead code or region simplification";
}

EventSource TrackingListener::getEventSource(bool replaced) const {
  EventSource source;
  fillEventSource(source, replaced);
  // Block and value handles take the source as text.
  if (source.anchorName) {
    source.anchor = source.getAnchorText();
    source.anchorName = source.anchorSymbol = nullptr;
  }
  return source;
}

void TrackingListener::fillEventSource(EventSource &source,
                                       bool replaced) const {
  // Assigned, not built anew: the cached sources keep their texts' storage
  // from one pass execution to the next.
  source.pass.clear();
  source.anchor.clear();
  source.passKey = nullptr;
  source.anchorKey = nullptr;
  source.anchorName = source.anchorSymbol = nullptr;
  if (!attribution.frames.empty()) {
    ThreadAttribution::Frame &frame = attribution.frames.back();
    source.pass = frame.pass;
    source.passKey = frame.passKey;
    source.anchorKey = frame.anchor;
    if (frame.anchor) {
      // By its parts: the text is made only if an event is read.
      frame.lookUpAnchorParts();
      source.anchorName = frame.anchorName;
      source.anchorSymbol = frame.anchorSymbol;
    }
  }
  if (const Pattern *pattern = getInnermostPattern()) {
    describePattern(*pattern, source.pattern);
  } else {
    StringRef label = getUnpatternedLabel(replaced);
    source.pattern.assign(label.data(), label.size());
  }
}

/// Inline in the event-source callbacks of the notifications: most events
/// reuse the source, a few loads and compares.
LLVM_ATTRIBUTE_ALWAYS_INLINE const EventSource &
TrackingListener::getCachedEventSource(bool replaced) const {
  CachedSourceKey &key = cachedSourceKey;
  const Pattern *pattern = getInnermostPattern();
  // A listener that keeps its patterns outlives none of them: the address
  // names the pattern.
  if (LLVM_LIKELY(key.holds(sourceCacheKey, pattern, replaced) &&
                  (!pattern || patternsInListener)))
    return key.sources[replaced];
  return getCachedEventSourceSlow(replaced, pattern);
}

const EventSource &
TrackingListener::getCachedEventSourceSlow(bool replaced,
                                           const Pattern *pattern) const {
  CachedSourceKey &key = cachedSourceKey;
  CachedEventSources &cache = cachedSources;
  // Other listeners may see a pattern freed and another allocated at its
  // address: the pattern's names must match too.
  bool samePattern = key.listener == sourceCacheKey && key.pattern == pattern &&
                     (!pattern || cachedPatternNamesMatch(*pattern));
  if (samePattern && key.valid[replaced])
    return key.sources[replaced];
  if (!samePattern) {
    key.invalidate();
    key.listener = cache.listener = sourceCacheKey;
    key.pattern = cache.pattern = pattern;
    // Assigned: the storage stays from one pattern to the next.
    StringRef patternName = pattern ? pattern->getDebugName() : StringRef();
    cache.patternName.assign(patternName.data(), patternName.size());
    cache.patternRoot = pattern ? pattern->getRootKind() : std::nullopt;
  }
  EventSource &source = cache.sources[replaced];
  applyThreadBatchBefore(source);
  fillEventSource(source, replaced);
  // Its texts changed: interned anew by the next event.
  source.internedBy = 0;
  source.internedReason = UINT32_MAX;
  key.sources = cache.sources;
  key.valid[replaced] = true;
  return cache.sources[replaced];
}

//===----------------------------------------------------------------------===//
// OpKindCache
//===----------------------------------------------------------------------===//

uint8_t tracking::detail::OpKindCache::computeKind(Operation *op) {
  uint8_t kind = Known;
  if (op->hasTrait<OpTrait::ConstantLike>())
    kind |= ConstantLike;
  if (isa<transform::FindPayloadReplacementOpInterface>(op))
    kind |= FindPayloadReplacement;
  if (isa<CastOpInterface>(op))
    kind |= Cast;
  return kind;
}

MLIR_TRACKING_HOT_PATH uint8_t
tracking::detail::OpKindCache::getKind(Operation *op) {
  // Traits and interfaces are a property of the op name, and a trait or
  // interface lookup costs more than the rest of the replacement rules.
  MLIRContext *opContext = op->getContext();
  if (opContext != context) {
    // Without a context the cache holds no name (a new listener's).
    if (context)
      clear();
    context = opContext;
  }
  OperationName opName = op->getName();
  const void *name = opName.getAsOpaquePointer();
  TypeID typeID = opName.getTypeID();
  unsigned slot =
      unsigned((uintptr_t(name) * 0x9E3779B97F4A7C15ull) >> 60) % kSlots;
  if (names[slot] != name || typeIDs[slot] != typeID) {
    kinds[slot] = computeKind(op);
    names[slot] = name;
    typeIDs[slot] = typeID;
  }
  return kinds[slot];
}

void tracking::detail::OpKindCache::clear() {
  context = nullptr;
  std::fill(std::begin(names), std::end(names), nullptr);
  std::fill(std::begin(typeIDs), std::end(typeIDs), TypeID());
  std::fill(std::begin(kinds), std::end(kinds), uint8_t(0));
}

unsigned tracking::detail::OpKindCache::size() const {
  return unsigned(llvm::count_if(names, [](const void *name) { return name; }));
}

namespace {
/// Why no replacement op was found, without text: formatting a reason costs
/// more than the rest of the notification.
struct ReplacementFailure {
  enum Kind { NoValues, NoSingleDefiningOp, OtherName, NoOpThroughCasts };
  Kind kind = NoValues;
  /// For OtherName: the op found.
  Operation *found = nullptr;
};

using OpKind = tracking::detail::OpKindCache::Kind;

/// The rules of `TrackingListener::findReplacementOp`. Without
/// `withStorage`, there is no room for the next operands of a
/// FindPayloadReplacementOpInterface op (a vector to set up and free on the
/// path of every replacement): such an op (rare) restarts the search with it.
template <bool withStorage>
FailureOr<Operation *>
findReplacementImpl(const TrackingListenerConfig &config, Operation *op,
                    ValueRange newValues, ReplacementFailure &why,
                    tracking::detail::OpKindCache *kinds);

/// Out of line: the common search keeps no vector in its frame.
LLVM_ATTRIBUTE_NOINLINE FailureOr<Operation *>
findReplacementWithStorage(const TrackingListenerConfig &config, Operation *op,
                           ValueRange newValues, ReplacementFailure &why,
                           tracking::detail::OpKindCache *kinds) {
  return findReplacementImpl<true>(config, op, newValues, why, kinds);
}

template <bool withStorage>
FailureOr<Operation *>
findReplacementImpl(const TrackingListenerConfig &config, Operation *op,
                    ValueRange newValues, ReplacementFailure &why,
                    tracking::detail::OpKindCache *kinds) {
  if (newValues.empty()) {
    why.kind = ReplacementFailure::NoValues;
    return failure();
  }
  std::conditional_t<withStorage, SmallVector<Value>, std::nullptr_t> storage;
  ValueRange values = newValues;
  do {
    Operation *defOp = getCommonDefiningOp(values);
    if (!defOp) {
      why.kind = ReplacementFailure::NoSingleDefiningOp;
      return failure();
    }
    if (!config.requireMatchingReplacementOpName ||
        defOp->getName() == op->getName())
      return defOp;
    uint8_t kind = kinds ? kinds->getKind(defOp)
                         : tracking::detail::OpKindCache::computeKind(defOp);
    // Folding to a constant is the most common canonicalization.
    if (kind & OpKind::ConstantLike)
      return defOp;

    if (kind & OpKind::FindPayloadReplacement) {
      if constexpr (!withStorage) {
        return findReplacementWithStorage(config, op, newValues, why, kinds);
      } else {
        SmallVector<Value> next =
            cast<transform::FindPayloadReplacementOpInterface>(defOp)
                .getNextOperands();
        storage = std::move(next);
        values = storage;
        continue;
      }
    }
    if (config.skipCastOps && (kind & OpKind::Cast)) {
      values = defOp->getOperands();
      continue;
    }
    why.kind = ReplacementFailure::OtherName;
    why.found = defOp;
    return failure();
  } while (!values.empty());
  why.kind = ReplacementFailure::NoOpThroughCasts;
  return failure();
}

MLIR_TRACKING_HOT_PATH FailureOr<Operation *>
findReplacement(const TrackingListenerConfig &config, Operation *op,
                ValueRange newValues, ReplacementFailure &why,
                tracking::detail::OpKindCache *kinds = nullptr) {
  return findReplacementImpl<false>(config, op, newValues, why, kinds);
}

/// The fixed texts of failures: their addresses are their keys
/// (EventReason).
constexpr char kNoValuesText[] = "replaced by no values";
constexpr char kNoSingleDefiningOpText[] =
    "replacement values have no single defining op";
constexpr char kNoOpThroughCastsText[] =
    "no replacement op found through casts";

StringRef formatFixedReason(const void *key) {
  return static_cast<const char *>(key);
}

/// The text of an OtherName failure, from the found op's name (as an opaque
/// OperationName). Kept per thread for the last name: a run of the same
/// failure formats it once.
StringRef formatOtherNameReason(const void *name) {
  struct LastText {
    std::string name;
    std::string text;
  };
  thread_local LastText last;
  StringRef nameText = OperationName::getFromOpaquePointer(name).getStringRef();
  if (last.text.empty() || last.name != nameText) {
    last.name = nameText.str();
    last.text = ("replacement op '" + nameText +
                 "' has another name and is not constant-like")
                    .str();
  }
  return last.text;
}

/// The reason of `why`, unformatted: keyed by its fixed text or by the found
/// op's name, which lives as long as the context (so as the registry).
MLIR_TRACKING_HOT_PATH tracking::detail::EventReason
describe(const ReplacementFailure &why) {
  const char *fixed = kNoValuesText;
  switch (why.kind) {
  case ReplacementFailure::NoValues:
    break;
  case ReplacementFailure::NoSingleDefiningOp:
    fixed = kNoSingleDefiningOpText;
    break;
  case ReplacementFailure::NoOpThroughCasts:
    fixed = kNoOpThroughCastsText;
    break;
  case ReplacementFailure::OtherName:
    return {why.found->getName().getAsOpaquePointer(), formatOtherNameReason};
  }
  return {fixed, formatFixedReason};
}
} // namespace

FailureOr<Operation *>
TrackingListener::findReplacementOp(Operation *op, ValueRange newValues,
                                    std::string *reason) const {
  ReplacementFailure why;
  FailureOr<Operation *> found = findReplacement(config, op, newValues, why);
  if (failed(found) && reason)
    *reason = describe(why).getText().str();
  return found;
}

void TrackingListener::notifyOperationInserted(
    Operation *op, OpBuilder::InsertPoint previous) {
  HandleRegistry *target = getRegistry(op);
  // An op without regions has no nested handles to re-index: only its own
  // handle, if any, matters (the common case: a new or moved leaf op).
  if (target && RegistryNotifier(*target).hasHandles() &&
      (op->getNumRegions() != 0 ||
       RegistryNotifier(*target).mayBeTracked(op))) {
    RegistryNotifier notifier(*target);
    if (!previous.isSet()) {
      // New, or unlinked with remove() (MLIR does not notify that): where
      // its body was indexed is unknown.
      notifier.notifyOperationInserted(op);
    } else {
      // The scope that held `op`'s body before: `op` itself if it is a
      // scope, else the scope of the block it came from.
      Operation *oldScope = op;
      if (!op->hasTrait<OpTrait::IsIsolatedFromAbove>())
        if (Operation *oldParent = previous.getBlock()->getParentOp())
          oldScope = RegistryNotifier::getBodyScope(oldParent);
      notifier.notifyOperationMoved(op, oldScope);
    }
  }
  ForwardingListener::notifyOperationInserted(op, previous);
}

void TrackingListener::notifyBlockInserted(Block *block, Region *previous,
                                           Region::iterator previousIt) {
  if (Operation *parent = block->getParentOp()) {
    HandleRegistry *target = getRegistry(parent);
    if (target && RegistryNotifier(*target).hasHandles()) {
      RegistryNotifier notifier(*target);
      Operation *oldParent = previous ? previous->getParentOp() : nullptr;
      if (oldParent)
        notifier.notifyBlockMoved(block,
                                  RegistryNotifier::getBodyScope(oldParent));
      else
        notifier.notifyBlockInserted(block);
    }
  }
  ForwardingListener::notifyBlockInserted(block, previous, previousIt);
}

HandleRegistry *TrackingListener::getRegistryIfTracked(Operation *op) const {
  // A listener of one registry tests its lock-free state inline: most
  // notifications are about untracked ops and end here.
  // (`notifyChange` sends the ops its own test passed to
  // `trackChange`: here the test was not made.)
  if (LLVM_LIKELY(keys))
    return keys->mayHaveKey(op) ? registry : nullptr;
  return getRegistryIfTrackedSlow(op);
}

HandleRegistry *
TrackingListener::getRegistryIfTrackedSlow(Operation *op) const {
  HandleRegistry *target = getRegistry(op);
  return target && RegistryNotifier(*target).mayBeTracked(op) ? target
                                                              : nullptr;
}

MLIR_TRACKING_PINNED(listener_track)
void TrackingListener::trackReplacement(HandleRegistry &target, Operation *op,
                                        ValueRange newValues) {
  ReplacementFailure why;
  FailureOr<Operation *> replacement = findReplacement(
      config, op, newValues, why, patternsInListener ? &opKinds : nullptr);
  RegistryNotifier notifier(target);
  // Built once per pass execution and pattern: most notifications that reach
  // here are about a tracked op, which needs it.
  const EventSource &source = getCachedEventSource(/*replaced=*/true);
  // Queued when nothing of it needs the IR later: an op without regions
  // (no scope below it), replaced in its own block (in its scope).
  if (op->getNumRegions() == 0) {
    if (ChangeBatch *queue = getBatch(target)) {
      if (failed(replacement))
        return notifier.queueChange(*queue, op, nullptr, source, describe(why));
      if (*replacement == op)
        return;
      if (op->getBlock() && (*replacement)->getBlock() == op->getBlock())
        return notifier.queueChange(*queue, op, *replacement, source);
    }
  }
  if (succeeded(replacement))
    notifier.notifyOperationReplaced(op, *replacement, source);
  else
    notifier.notifyOperationErased(op, op->getNumRegions() != 0, source,
                                   describe(why));
}

MLIR_TRACKING_PINNED(listener_track_other)
void TrackingListener::trackReplacement(HandleRegistry &target, Operation *op,
                                        Operation *newOp) {
  const EventSource &source = getCachedEventSource(/*replaced=*/true);
  if (op->getNumRegions() == 0 && newOp != op && op->getBlock() &&
      newOp->getBlock() == op->getBlock())
    if (ChangeBatch *queue = getBatch(target))
      return RegistryNotifier(target).queueChange(*queue, op, newOp, source);
  RegistryNotifier(target).notifyOperationReplaced(op, newOp, source);
}

MLIR_TRACKING_PINNED(listener_track_other)
void TrackingListener::trackErasure(HandleRegistry &target, Operation *op) {
  const EventSource &source = getCachedEventSource(/*replaced=*/false);
  bool hasRegions = op->getNumRegions() != 0;
  if (!hasRegions)
    if (ChangeBatch *queue = getBatch(target))
      return RegistryNotifier(target).queueChange(*queue, op, nullptr, source);
  RegistryNotifier(target).notifyOperationErased(op, hasRegions, source,
                                                 /*reason=*/"");
}

MLIR_TRACKING_PINNED(listener_track_other)
ChangeBatch *TrackingListener::getBatch(HandleRegistry &target) {
  if (LLVM_LIKELY(batch != nullptr))
    return batch->registry == &target ? batch : nullptr;
  if (!mayBatchChanges || &target != registry)
    return nullptr;
  // Tried once: a listener that finds the batch taken applies its changes
  // (and so first any change queued before them) as they come.
  mayBatchChanges = false;
  if (!threadBatch)
    threadBatch = std::make_unique<ChangeBatch>();
  ChangeBatch &mine = *threadBatch;
  // The pass's anchor, which holds every op its rewrites change.
  Operation *anchor =
      attribution.frames.empty() ? nullptr : attribution.frames.back().anchor;
  if (mine.owner || !RegistryNotifier(target).startBatch(mine, anchor))
    return nullptr;
  mine.owner = this;
  batch = &mine;
  return batch;
}

void TrackingListener::releaseBatch() {
  if (!batch)
    return;
  // A registry destroyed first applied and unregistered the batch.
  if (batch->registry)
    RegistryNotifier(*batch->registry).finishBatch(*batch);
  else
    batch->owner = nullptr;
  batch = nullptr;
}

// The three notifications most rewrites send: about an untracked op (the
// filter says so), from a listener of one registry with no listener to
// forward to and no block or value handle in the process, they return after
// the inlined test; about an op the test could not rule out, a tail call to
// the tracked path (`trackChange`). Every other case is a tail call to the
// general path (which makes the test: getRegistryIfTracked), so that this one
// saves no registers.
LLVM_ATTRIBUTE_ALWAYS_INLINE bool
TrackingListener::canSkipUntracked(Operation *op) const {
  return LLVM_LIKELY(skipKeys && !detail::mayHaveUnitHandles()) &&
         !skipKeys->mayHaveKey(op);
}

bool TrackingListener::ignoresChangesTo(Operation *op) const {
  return canSkipUntracked(op);
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//
//
// What the greedy driver calls on every match attempt (the pattern hooks and
// the failure report) and on every change (replace, erase, modification),
// in this order in a section of their own (MLIR_TRACKING_LISTENER_ENTRY):
// with no listener after ours, most of these calls end on a handful of
// neighbouring lines, which stay in the instruction cache because every
// notification touches them. The replace and erase entry points share one
// copy of the untracked-op test (notifyChange).

/// The new values' storage as a word, for `notifyChange`.
static uintptr_t valuesBaseWord(ValueRange newValues) {
  return reinterpret_cast<uintptr_t>(newValues.getBase().getOpaqueValue());
}

/// The new values from `notifyChange`'s words.
static ValueRange valuesFromWords(uintptr_t base, uintptr_t count) {
  return ValueRange(
      ValueRange::OwnerT::getFromOpaqueValue(reinterpret_cast<void *>(base)),
      ptrdiff_t(count));
}

// The general path of a replace or erase notification, from its arguments
// as words (inlined in `notifyChange`, as a tail call).
LLVM_ATTRIBUTE_ALWAYS_INLINE void
TrackingListener::dispatchChange(Operation *op, Change change, uintptr_t first,
                                 uintptr_t second) {
  switch (change) {
  case Change::ReplacedByValues:
    return notifyReplacedSlow(op, valuesFromWords(first, second));
  case Change::ReplacedByOp:
    return notifyReplacedSlow(op, reinterpret_cast<Operation *>(first));
  case Change::Erased:
    return notifyErasedSlow(op);
  }
  llvm_unreachable("unknown change");
}

MLIR_TRACKING_LISTENER_SECTION_START

MLIR_TRACKING_LISTENER_ENTRY void
TrackingListener::notifyPatternBegin(const Pattern &pattern, Operation *op) {
  if (LLVM_LIKELY(patternSlot == 0)) {
    patternSlot = reinterpret_cast<uintptr_t>(&pattern);
    return;
  }
  notifyPatternBeginSlow(pattern, op);
}

MLIR_TRACKING_LISTENER_ENTRY void
TrackingListener::notifyPatternEnd(const Pattern &pattern,
                                   LogicalResult status) {
  // Only the fast path puts a pattern in the slot.
  if (LLVM_LIKELY(patternSlot == reinterpret_cast<uintptr_t>(&pattern))) {
    patternSlot = 0;
    return;
  }
  notifyPatternEndSlow(pattern, status);
}

// A pass's own listener (PassTrackingListener): its empty hooks come right
// after the pattern hooks, which it shares, so that the lines a precise pass
// runs on every match attempt and modification are neighbours.

MLIR_TRACKING_LISTENER_ENTRY void
PassTrackingListener::notifyMatchFailure(Location,
                                         function_ref<void(Diagnostic &)>) {}

MLIR_TRACKING_LISTENER_ENTRY void
PassTrackingListener::notifyOperationModified(Operation *) {}

MLIR_TRACKING_LISTENER_ENTRY void TrackingListener::notifyMatchFailure(
    Location loc, function_ref<void(Diagnostic &)> reasonCallback) {
  if (LLVM_UNLIKELY(forwards))
    ForwardingListener::notifyMatchFailure(loc, reasonCallback);
}

MLIR_TRACKING_LISTENER_ENTRY void
TrackingListener::notifyOperationModified(Operation *op) {
  if (LLVM_UNLIKELY(forwards))
    ForwardingListener::notifyOperationModified(op);
}

MLIR_TRACKING_LISTENER_ENTRY void
TrackingListener::notifyOperationReplaced(Operation *op, ValueRange newValues) {
  notifyChange(op, Change::ReplacedByValues, valuesBaseWord(newValues),
               newValues.size());
}

MLIR_TRACKING_LISTENER_ENTRY void
TrackingListener::notifyOperationReplaced(Operation *op, Operation *newOp) {
  notifyChange(op, Change::ReplacedByOp, reinterpret_cast<uintptr_t>(newOp), 0);
}

MLIR_TRACKING_LISTENER_ENTRY void
TrackingListener::notifyOperationErased(Operation *op) {
  notifyChange(op, Change::Erased, 0, 0);
}

// Aligned: the short path starts a line.
MLIR_TRACKING_LISTENER_ENTRY LLVM_ATTRIBUTE_NOINLINE
    __attribute__((aligned(64))) void
    TrackingListener::notifyChange(Operation *op, Change change,
                                   uintptr_t first, uintptr_t second) {
  if (LLVM_LIKELY(skipKeys && !detail::mayHaveUnitHandles())) {
    if (LLVM_LIKELY(!skipKeys->mayHaveKey(op)))
      return;
    // The filter may hold `op`: the general path would test it again, find
    // no block or value handle and no listener to forward to.
    return trackChange(op, change, first, second);
  }
  dispatchChange(op, change, first, second);
}

MLIR_TRACKING_PINNED(listener_track)
void TrackingListener::trackChange(Operation *op, Change change,
                                   uintptr_t first, uintptr_t second) {
  switch (change) {
  case Change::ReplacedByValues:
    return trackReplacement(*registry, op, valuesFromWords(first, second));
  case Change::ReplacedByOp:
    return trackReplacement(*registry, op,
                            reinterpret_cast<Operation *>(first));
  case Change::Erased:
    return trackErasure(*registry, op);
  }
  llvm_unreachable("unknown change");
}

void TrackingListener::notifyReplacedSlow(Operation *op, ValueRange newValues) {
  if (HandleRegistry *target = getRegistryIfTracked(op))
    trackReplacement(*target, op, newValues);
  // Block and value handles (BlockValueRegistry), if any in the process.
  if (detail::mayHaveUnitHandles())
    detail::notifyUnitsOfReplacement(
        op, newValues, [&] { return getEventSource(/*replaced=*/true); });
  ForwardingListener::notifyOperationReplaced(op, newValues);
}

void TrackingListener::notifyReplacedSlow(Operation *op, Operation *newOp) {
  // The rewriter names the replacement: no need to search for it (and no
  // values to search from when the ops have no results).
  if (HandleRegistry *target = getRegistryIfTracked(op))
    trackReplacement(*target, op, newOp);
  // Block and value handles (BlockValueRegistry), if any in the process.
  if (detail::mayHaveUnitHandles())
    detail::notifyUnitsOfReplacement(op, newOp->getResults(), [&] {
      return getEventSource(/*replaced=*/true);
    });
  ForwardingListener::notifyOperationReplaced(op, newOp);
}

void TrackingListener::notifyErasedSlow(Operation *op) {
  // The filter knows tracked ops and scopes: the registry must also see the
  // erase of a scope, to drop it from the index. The source (string work) is
  // described only for a tracked op.
  if (HandleRegistry *target = getRegistryIfTracked(op))
    trackErasure(*target, op);
  // Block and value handles (BlockValueRegistry), if any in the process.
  if (detail::mayHaveUnitHandles())
    detail::notifyUnitsOfErasedOp(
        op, [&] { return getEventSource(/*replaced=*/false); });
  ForwardingListener::notifyOperationErased(op);
}

PassTrackingListener::PassTrackingListener(MLIRContext *context,
                                           TrackingListenerConfig config)
    : TrackingListener(config, HandleRegistry::lookup(context)) {
  keepPatternsInListener();
  mayBatchChanges = true;
}

PassTrackingListener::~PassTrackingListener() { releaseBatch(); }

void TrackingListener::notifyBlockErased(Block *block) {
  // Block and value handles (BlockValueRegistry), if any in the process.
  if (detail::mayHaveUnitHandles())
    detail::notifyUnitsOfErasedBlock(
        block, [&] { return getEventSource(/*replaced=*/false); });
  ForwardingListener::notifyBlockErased(block);
}

void tracking::detail::PatternStack::popBelow(const Pattern *pattern) {
  for (unsigned i = depth; i-- > 0;) {
    if (patterns[i] == pattern) {
      depth = i;
      return;
    }
  }
}

namespace {
// Out of line: in a position-independent library the thread-local access is
// a call, which would make the hooks save registers even for listeners
// that keep their own stack.
[[gnu::noinline]] void pushThreadPattern(const Pattern *pattern) {
  patternStack.push(pattern);
}
[[gnu::noinline]] void popThreadPattern(const Pattern *pattern) {
  patternStack.pop(pattern);
}
} // namespace

void TrackingListener::notifyPatternBeginSlow(const Pattern &pattern,
                                              Operation *op) {
  if (patternSlot != kStackMode) {
    // A pattern begins while the slot holds another (a pattern running a
    // driver with this listener): both go on the stack until it empties.
    ownPatterns.push(reinterpret_cast<const Pattern *>(patternSlot));
    patternSlot = kStackMode;
  }
  if (patternsInListener)
    ownPatterns.push(&pattern);
  else
    pushThreadPattern(&pattern);
  ForwardingListener::notifyPatternBegin(pattern, op);
}

void TrackingListener::notifyPatternEndSlow(const Pattern &pattern,
                                            LogicalResult status) {
  // In the slot's mode, an End of a pattern the slot does not hold pops
  // nothing, as on a stack that does not hold it.
  if (patternSlot == kStackMode) {
    if (patternsInListener)
      ownPatterns.pop(&pattern);
    else
      popThreadPattern(&pattern);
    if (patternsInListener && !forwards && ownPatterns.depth == 0)
      patternSlot = 0;
  }
  ForwardingListener::notifyPatternEnd(pattern, status);
}
