//===- ChangeBatch.h - Tracked changes queued for one lock ------*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// With every op held, each replace and erase a pass makes is about a tracked
// op, and each took the registry's lock to update a record, the address map
// and a scope list: a few cache misses on tables too large for the cache, one
// after another. A pass's listener queues such changes here instead, and the
// registry applies them in order in one critical section, where the misses
// of a batch overlap (docs/benchmarks.md, "The batch log").
//
// The contract stays: nobody sees the registry with changes still queued.
// Every critical section of the registry, on any thread, first applies the
// queued changes (RegistryImpl::applyPending), so a reader (OpHandle::get on
// another thread, a Python walk) and every notification that is not queued
// see them in order. Only what is read without the lock needs care; see
// RegistryNotifier::queueChange.
//
// Each pass thread has a batch of its own, and applies it alone: the
// changes another thread queued are about ops under that thread's anchor,
// which this thread's ops never are (the pass manager runs passes on
// disjoint isolated ops), so applying them would only move their lines
// between the cores (docs/benchmarks.md, round 23). One thing joins two
// batches: an address that one thread's queued change frees and the
// allocator hands to an op of another thread. The record of the freed op
// stays mapped there until its change is applied; a probe that finds a
// record outside its batch's anchor applies the other batch's changes up to
// the one that frees it (RegistryImpl::lookupOwn). Private to lib/Tracking;
// not installed.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_LIB_CHANGEBATCH_H
#define MLIR_TRACKING_LIB_CHANGEBATCH_H

#include "RegistryNotifier.h"

#include "llvm/ADT/SmallVector.h"

#include <atomic>
#include <cstdint>

namespace mlir {
class Operation;

namespace tracking::detail {

/// A tracked replace or erase of an op without regions, as the listener saw
/// it: applied without reading the IR, which may have changed (and the op
/// been freed) meanwhile.
struct QueuedChange {
  /// The op replaced or erased; only its address is used when applied.
  Operation *op;
  /// The op that replaces `op`, in `op`'s block when queued (so in its
  /// scope), or null for an erase.
  Operation *replacement;
  /// The listener's cached source (valid until its thread's cache is
  /// refilled, which applies the batch first).
  const EventSource *source;
  /// For a replacement: its name and location (EventLog::see) when queued.
  /// For an erase: the reason's key (null for no reason) and its format.
  const void *first;
  const void *second;
  EventReason::Format format;
};

/// The changes one thread's pass listener queued for one registry. One per
/// thread (TrackingListener.cpp), registered with at most one registry at a
/// time; a registry takes one per pass thread, up to kMaxPerRegistry at
/// once. The owner writes entries past `count` and publishes them by
/// storing `count`; whoever holds the registry's lock applies
/// [applied, count), one entry at a time.
struct ChangeBatch {
  static constexpr unsigned kCapacity = 32;
  /// Batches a registry takes at once (a pass thread's listener beyond
  /// them applies its changes as they come).
  static constexpr unsigned kMaxPerRegistry = 8;

  QueuedChange entries[kCapacity] = {};
  /// Entries published. Stored by the owner only; reset (with `applied`)
  /// only by the owner holding the registry's lock.
  std::atomic<uint32_t> count{0};
  /// Entries applied: under the registry's lock.
  uint32_t applied = 0;
  /// Under the registry's lock: true while an entry of this batch is being
  /// applied (a probe that finds a record of another batch's changes
  /// applies those, never this one's later entries).
  bool applying = false;
  /// The anchor of the pass whose listener fills the batch: every queued op
  /// is under it, and the anchors of batches registered at once are
  /// disjoint. Set when registered; a batch without one is registered only
  /// alone (RegistryNotifier::startBatch).
  Operation *anchor = nullptr;
  /// The anchor and the ops around it when registered, innermost first:
  /// whether two anchors nest is told by comparing these, without reading
  /// an op of another thread's batch (its pass may have ended).
  llvm::SmallVector<Operation *, 4> anchorPath;
  /// Owner only: a bit per hash of each queued `op` since the last reset.
  /// Applying a change notes its op untracked in the applier's lane: a
  /// replacement at the address of a queued op is queued only after those
  /// changes are applied (RegistryNotifier::queueChange).
  uint64_t queuedOps = 0;
  /// Owner only: the same for each queued replacement.
  uint64_t queuedReplacements = 0;
  /// The registry the batch is registered with, or null; and the listener
  /// that fills it. Owner only.
  HandleRegistry *registry = nullptr;
  const void *owner = nullptr;

  ChangeBatch() = default;
  ChangeBatch(const ChangeBatch &) = delete;
  ChangeBatch &operator=(const ChangeBatch &) = delete;
  /// A thread that ends while its listener still holds the batch (a
  /// listener not destroyed on its thread) applies and unregisters it, so
  /// that the registry keeps no pointer to freed memory.
  ~ChangeBatch() {
    if (registry)
      RegistryNotifier(*registry).finishBatch(*this);
  }

  /// The bit of `queuedOps` for `op`.
  static uint64_t opBit(const void *op) {
    return uint64_t(1) << ((uintptr_t(op) >> 6) % 64);
  }
  /// Owner only: whether a queued change replaces an op by `op`.
  bool mapsReplacement(const Operation *op) const {
    uint32_t queued = count.load(std::memory_order_relaxed);
    for (uint32_t i = 0; i != queued; ++i)
      if (entries[i].replacement == op)
        return true;
    return false;
  }
};

} // namespace tracking::detail
} // namespace mlir

#endif // MLIR_TRACKING_LIB_CHANGEBATCH_H
