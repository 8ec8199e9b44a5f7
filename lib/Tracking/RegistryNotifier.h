//===- RegistryNotifier.h - Notification side of a registry -----*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// The notifications that keep a HandleRegistry in step with the IR. They are
// not public API: only the tracking listener, the pass instrumentation and
// in-tree code that changes IR without a rewriter (the Python extension) call
// them. This header is not installed.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_LIB_REGISTRYNOTIFIER_H
#define MLIR_TRACKING_LIB_REGISTRYNOTIFIER_H

#include "mlir/Tracking/HandleRegistry.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class Block;
class Operation;

namespace tracking::detail {
struct ChangeBatch;
struct HandleRecord;
struct LockFreeKeys;

/// Where an event comes from, for the history.
struct EventSource {
  std::string pass;
  /// The anchor's text; or, while it is empty, the anchor as its parts when
  /// `anchorName` is set (see `getAnchorText`).
  std::string anchor;
  std::string pattern;
  const void *passKey = nullptr;
  const void *anchorKey = nullptr;
  /// The anchor described by parts its context owns, formatted only when
  /// an event is read: its OperationName (as an opaque pointer) and its
  /// symbol name (a StringAttr's opaque pointer, null for none). A listener
  /// names every pass execution's anchor this way: describing it as text
  /// for each execution cost more than the events of most executions.
  const void *anchorName = nullptr;
  const void *anchorSymbol = nullptr;

  /// The anchor's text, from its parts if it has no text.
  std::string getAnchorText() const;

  /// Not part of the value: the event log that interned this source last
  /// (a serial number, never reused) and the ids it gave, so that a source
  /// reused for many events (the listener keeps one per thread and pattern)
  /// is interned once. Sources are built, then only read: a source changed
  /// after an event must be built anew (or `internedBy` reset).
  mutable uint64_t internedBy = 0;
  mutable uint32_t internedSource = 0;
  mutable uint32_t internedPattern = 0;
  /// The reason of the last event interned from this source (UINT32_MAX for
  /// none) and the cause it made: the events of one source mostly share
  /// their reason (a listener keeps apart the sources of replacements and of
  /// erasures), so most events take their cause from here.
  mutable uint32_t internedReason = UINT32_MAX;
  mutable uint32_t internedCause = 0;
};

/// The reason of an event: a text, or a key and how to format the text it
/// names. The event log remembers per lane the keyed reason it interned
/// last, so that a run of events with the same reason (a pass's failed
/// replacements) formats and compares no text.
struct EventReason {
  /// Formats the text `key` names; may reuse its storage on the next call.
  using Format = llvm::StringRef (*)(const void *key);

  EventReason(llvm::StringRef text = {}) : text(text) {}
  EventReason(const char *text) : text(text) {}
  /// `key` must name one text, `format(key)`, for as long as the registry
  /// lives: the address of a static text, or of something of the registry's
  /// context that the text is made from.
  EventReason(const void *key, Format format) : key(key), format(format) {}

  /// The text (formatted for a keyed reason).
  llvm::StringRef getText() const { return format ? format(key) : text; }

  /// Null for a reason given as text.
  const void *key = nullptr;
  Format format = nullptr;
  llvm::StringRef text;
};

/// The notification side of one HandleRegistry. Thread-safe like the
/// registry. Events reach the registry's observer after its lock is
/// released.
class RegistryNotifier {
public:
  explicit RegistryNotifier(HandleRegistry &registry) : registry(registry) {}

  /// Lock-free. False proves that `op` has no handle and is no scope of the
  /// index: a replace or erase of `op`, or an insert or move of `op` when it
  /// has no regions, has nothing to do. True may be a false positive.
  bool mayBeTracked(Operation *op) const;
  /// Lock-free. False when the registry tracks nothing at all.
  bool hasHandles() const;
  /// What `mayBeTracked` and `hasHandles` read (OpFilter.h), for a caller
  /// that notifies one registry many times and inlines the test. Lives as
  /// long as the registry's state.
  const LockFreeKeys &getLockFreeKeys() const;

  /// The event sources (pass executions) the registry's log keeps (tests).
  size_t getNumEventSources() const;

  /// Fires when `op` was replaced and `replacement` (found by the listener's
  /// rules, or named by the rewriter) takes its place. The handle of `op`
  /// follows it; if `replacement` has a handle already, the two merge.
  /// `source` is read only if `op` is tracked (a listener passes the source
  /// it keeps per pass execution and pattern: no call back for it).
  void notifyOperationReplaced(Operation *op, Operation *replacement,
                               const EventSource &source);
  /// Fires when `op` is about to be erased, or was replaced without an
  /// acceptable replacement op (`reason` says which).
  void notifyOperationErased(Operation *op, const EventSource &source,
                             const EventReason &reason);
  /// The same, for a caller that tells whether `op` has regions (the
  /// listener's tracked path): no call between the two.
  void notifyOperationErased(Operation *op, bool hasRegions,
                             const EventSource &source,
                             const EventReason &reason) {
    notifyErased(op, source, reason, /*mayBeScope=*/hasRegions);
  }
  /// The same for an op that is already freed (a rolled-back dialect
  /// conversion frees the ops its patterns made without a notification):
  /// reads nothing of `op`, only uses its address as a key.
  void notifyFreedOperationErased(Operation *op, const EventSource &source,
                                  llvm::StringRef reason);
  /// Registers `batch` (ChangeBatch.h), idle, for the changes a pass makes
  /// under `anchor` (null if unknown), and returns true; or false if the
  /// registry has as many batches as it takes, one without an anchor, or
  /// one whose anchor is nested in `anchor` or holds it.
  bool startBatch(ChangeBatch &batch, Operation *anchor);
  /// Queues the replace (`replacement` non-null) or erase of `op`, which
  /// has no regions and may be tracked, in `batch`, registered here; a
  /// replacement must be in `op`'s block. Lock-free unless the batch fills
  /// (or must be applied first): `source` must stay valid and unchanged
  /// until `applyBatch`. Nobody taking the lock sees the registry without
  /// the change.
  void queueChange(ChangeBatch &batch, Operation *op, Operation *replacement,
                   const EventSource &source, const EventReason &reason = {});
  /// Applies what `batch` holds (any critical section would), then empties
  /// it: its sources may change.
  void applyBatch(ChangeBatch &batch);
  /// `applyBatch`, then unregisters `batch`.
  void finishBatch(ChangeBatch &batch);

  /// Fires after `op` moved from a known position. `oldScope` is the op that
  /// was the scope of `op`'s body before the move (see `getBodyScope`), or
  /// nullptr if `op` had no parent.
  void notifyOperationMoved(Operation *op, Operation *oldScope);
  /// Fires after `op` was inserted with no known previous position: a new op,
  /// or one unlinked with `remove()` (MLIR sends no notification for that).
  /// Re-indexes `op` and every tracked op nested in it, looking inside
  /// nested scopes only through the index.
  void notifyOperationInserted(Operation *op);
  /// Fires after `block` moved between regions; `oldScope` as above for the
  /// region it left.
  void notifyBlockMoved(Block *block, Operation *oldScope);
  /// Fires after `block` was inserted with no known previous region.
  void notifyBlockInserted(Block *block);

  /// Invalidates every record strictly nested in `anchor` right away (before
  /// a pass that does not report its rewrites runs on `anchor`, or before IR
  /// is destroyed) and takes it out of the address map, so that no address
  /// the pass frees can be looked up and no handle returns a freed op.
  /// Returns the number of handles invalidated.
  size_t invalidateNested(Operation *anchor, const EventSource &source,
                          llvm::StringRef reason);

  /// Handles taken out of the registry by `detachNested`, for the caller to
  /// settle once it learns what became of their ops.
  using DetachedRecords = std::vector<OpHandle>;
  /// Like `invalidateNested`, for a caller that may learn afterwards what
  /// became of some of the ops (the transform interpreter's own tracking):
  /// the handles strictly nested in `anchor` leave the address map and read
  /// as invalidated right away, but their events wait for `resolveDetached`
  /// or `invalidateDetached`.
  DetachedRecords detachNested(Operation *anchor);
  /// Settles one handle taken out by `detachNested` and not settled yet.
  /// Fires after the IR change. A non-null `op` makes the handle live on `op`
  /// (a "replaced" event if it is not the handle's old op; merged into `op`'s
  /// handle if `op` has one); with a null `op` the handle becomes `state`
  /// (erased or invalidated). Other handles are left alone.
  void resolveDetached(const OpHandle &handle, Operation *op, HandleState state,
                       const EventSource &source, llvm::StringRef reason);
  /// Invalidates every handle of `records` not settled yet. The caller drops
  /// `records` afterwards, outside any registry call.
  void invalidateDetached(DetachedRecords &records, const EventSource &source,
                          llvm::StringRef reason);

  /// Checks the records strictly nested in `anchor` (found from the scope
  /// index) against the IR under `anchor`: each must map an op that is still
  /// there, with its recorded name and scope. Only walks `anchor`, so it may
  /// run while other threads rewrite other anchors. With `repair`, each record
  /// found wrong is taken out of the map and invalidated with `repair` as
  /// source and the problem as reason, so that no freed address stays in the
  /// registry. Returns one line per problem.
  std::vector<std::string> verifyNested(Operation *anchor,
                                        const EventSource *repair = nullptr);

  /// The scope that ops nested directly in `op`'s regions belong to: `op`
  /// itself if it is isolated from above or top-level, else `op`'s scope.
  static Operation *getBodyScope(Operation *op);

private:
  /// Both erase notifications; `mayBeScope` is false only for a live op
  /// without regions.
  void notifyErased(Operation *op, const EventSource &source,
                    const EventReason &reason, bool mayBeScope);

  HandleRegistry &registry;
};

} // namespace tracking::detail
} // namespace mlir

#endif // MLIR_TRACKING_LIB_REGISTRYNOTIFIER_H
