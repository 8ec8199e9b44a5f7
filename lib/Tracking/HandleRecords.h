//===- HandleRecords.h - Pooled, counted handle records ---------*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// The records behind OpHandles: what a handle knows about its op, pooled by
// the registry and counted by the handles that refer to them. Private to
// lib/Tracking; not installed.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_LIB_HANDLERECORDS_H
#define MLIR_TRACKING_LIB_HANDLERECORDS_H

#include "EventLog.h"
#include "PageArena.h"

#include "mlir/Tracking/HandleRegistry.h"
#include "llvm/ADT/SmallVector.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

namespace mlir {
class Operation;

namespace tracking::detail {
struct RegistryImpl;
struct ScopeInfo;

/// A handle record, pooled by its registry (see RecordPool) and counted by
/// the OpHandles (and merged records) that refer to it. Guarded by the
/// registry lock, except `refs`. 40 bytes: links are 32-bit ids, the name
/// last seen is an id of the event log's name table, and what only a root
/// needs shares room with what only a merged record needs.
struct HandleRecord {
  HandleRecord()
      : state(0), mapped(0), detached(0), merged(0), historySize(0),
        lastName(0) {}

  /// OpHandles and merged records referring to this one. A record whose
  /// count dropped to zero is being released: it is never handed out again.
  std::atomic<uint32_t> refs{1};
  /// A HandleState (or RecordPool's mark of a free slot).
  uint32_t state : 2;
  /// True while `op` is a key of the address map pointing at this record.
  uint32_t mapped : 1;
  /// True between `detachNested` and the record's settlement: unmapped, read
  /// as invalidated, its event not recorded yet. `op` keeps the old address
  /// (compared, never dereferenced).
  uint32_t detached : 1;
  /// True once merged into another record: `parent` holds a reference to
  /// it, and the fields meant for roots are gone.
  uint32_t merged : 1;
  /// The number of events in `history` (at most EventLog::kMaxHistory).
  uint32_t historySize : 6;
  /// Roots: the name as last seen, an id of EventLog::nameId (0 for none).
  uint32_t lastName : EventLog::kNameIdBits;
  /// The history's block in the registry's HistoryPool; 0 until the first
  /// event.
  uint32_t history = 0;
  union {
    /// Roots, while mapped: the ScopeIndex id of the scope the record is
    /// indexed under (0 when not indexed).
    uint32_t scope = 0;
    /// Merged records: the absolute index into the parent's history of the
    /// first event shared with it.
    uint32_t parentStart;
  };
  /// Roots, while indexed: the neighbours on the scope's list of records
  /// (RecordPool ids, 0 for none).
  uint32_t scopePrev = 0;
  uint32_t scopeNext = 0;
  union {
    /// Roots: the op while the record is mapped (or, detached, the old
    /// address).
    Operation *op = nullptr;
    /// Merged records (see `merged`).
    HandleRecord *parent;
  };
  /// Roots: the location as last seen (see SeenOp).
  const void *lastLoc = nullptr;

  HandleState getState() const { return HandleState(state); }
  /// The record this one was merged into, or null for a root.
  HandleRecord *getParent() const { return merged ? parent : nullptr; }
  /// Merges this (unmapped) record into `into`, adopting a reference to it.
  void setParent(HandleRecord *into) {
    merged = 1;
    parent = into;
  }
  /// Roots: the op as last seen, and setting it.
  SeenOp getLast(const EventLog &log) const {
    return {log.nameOf(lastName), lastLoc};
  }
  void setLast(EventLog &log, SeenOp seen) {
    lastName = log.nameId(seen.name);
    lastLoc = seen.loc;
  }
  /// Roots: the replacement of `event` (Replaced) as the op last seen.
  void setLastToReplacement(const CompactEvent &event) {
    lastName = event.replacementName;
    lastLoc = event.replacementLoc;
  }
};
static_assert(sizeof(HandleRecord) <= 40, "records must stay compact");
static_assert(EventLog::kMaxHistory < 64, "historySize has 6 bits");

inline uint32_t EventLog::droppedOf(const HandleRecord *record) const {
  if (!record->history || !HistoryPool::isFull(record->history))
    return 0;
  return static_cast<FullHistoryHeader *>(histories.get(record->history))
      ->dropped;
}

LLVM_ATTRIBUTE_ALWAYS_INLINE void
EventLog::appendEvent(HandleRecord *record, const CompactEvent &event) {
  if (LLVM_UNLIKELY(record->history != 0))
    return appendToHistory(record, event);
  void *block;
  record->history = histories.allocateSingle(block);
  new (block) CompactEvent(event);
  record->historySize = 1;
}

inline uint64_t EventLog::historyEnd(const HandleRecord *record) const {
  return uint64_t(droppedOf(record)) + record->historySize;
}

inline uint64_t EventLog::parentStartOf(const HandleRecord *record) const {
  return record->parentStart;
}

inline void EventLog::setParentStart(HandleRecord *record, uint64_t start) {
  record->parentStart = uint32_t(start);
}

/// Takes a reference to `record` unless it is being released.
inline bool tryRetain(HandleRecord *record) {
  uint32_t refs = record->refs.load(std::memory_order_relaxed);
  while (refs && !record->refs.compare_exchange_weak(
                     refs, refs + 1, std::memory_order_acq_rel,
                     std::memory_order_relaxed)) {
  }
  return refs != 0;
}

/// True if the record's last reference is being dropped (it must not be
/// handed out or followed any more).
inline bool isReleasing(const HandleRecord *record) {
  return record->refs.load(std::memory_order_acquire) == 0;
}

/// Records live in chunks aligned to their size, each starting with a header
/// naming its registry: a record finds its registry from its own address,
/// and freed slots are reused through a free list.
struct RecordChunk {
  static constexpr size_t kBytes = size_t(1) << 15;
  RegistryImpl *impl;
  uint32_t index;
  static constexpr size_t kHeader = 64;
  static constexpr uint32_t kRecords =
      (kBytes - kHeader) / sizeof(HandleRecord);
  HandleRecord *slot(uint32_t i) {
    return reinterpret_cast<HandleRecord *>(reinterpret_cast<char *>(this) +
                                            kHeader) +
           i;
  }
  static RecordChunk *of(const HandleRecord *record) {
    return reinterpret_cast<RecordChunk *>(uintptr_t(record) & ~(kBytes - 1));
  }
};

/// The registry state a record belongs to.
inline RegistryImpl &registryOf(const HandleRecord *record) {
  return *RecordChunk::of(record)->impl;
}

/// The records of one registry: allocated from chunks, freed slots reused.
/// Guarded by the registry lock.
class RecordPool {
public:
  /// Takes its chunks from `arena` (which must outlive the pool), or from an
  /// arena of its own.
  explicit RecordPool(RegistryImpl *owner, PageArena *arena = nullptr)
      : owner(owner), arena(arena) {
    if (!arena) {
      ownArena = std::make_unique<PageArena>();
      this->arena = ownArena.get();
    }
  }
  /// Destroys the records; their chunks go back with the arena. Records
  /// must hold nothing that needs freeing.
  ~RecordPool();
  RecordPool(const RecordPool &) = delete;
  RecordPool &operator=(const RecordPool &) = delete;

  /// A fresh record with one reference.
  HandleRecord *allocate() {
    void *slot;
    if (freeRecords) {
      slot = freeRecords;
      // Free slots are linked through `parent` (without `merged`).
      freeRecords = freeRecords->parent;
    } else {
      if (nextFresh == RecordChunk::kRecords)
        addChunk();
      slot = chunks.back()->slot(nextFresh++);
    }
    ++numRecords;
    return new (slot) HandleRecord();
  }

  /// Returns the slot of an unmapped record, whose history is freed, to the
  /// pool. Returns the parent, whose reference the record held.
  HandleRecord *free(HandleRecord *record) {
    HandleRecord *parent = record->getParent();
    record->~HandleRecord();
    // A freed slot reads as released (refs == 0) and unused (see all()).
    auto *dead = new (record) HandleRecord();
    dead->refs.store(0, std::memory_order_relaxed);
    dead->state = kFreeSlot;
    dead->parent = freeRecords;
    freeRecords = dead;
    --numRecords;
    return parent;
  }

  /// Records allocated and not yet freed.
  size_t size() const { return numRecords; }
  /// Every allocated record.
  SmallVector<HandleRecord *> all() const;
  /// Calls `fn` on every allocated record, in slot order, without a list.
  template <typename Fn> void forEach(Fn fn) const {
    for (size_t c = 0; c < chunks.size(); ++c) {
      uint32_t used =
          c + 1 == chunks.size() ? nextFresh : RecordChunk::kRecords;
      for (uint32_t i = 0; i < used; ++i) {
        HandleRecord *record = chunks[c]->slot(i);
        if (record->state != kFreeSlot)
          fn(record);
      }
    }
  }
  /// The slots of every chunk: what `forEach` visits at most.
  size_t getNumSlots() const { return chunks.size() * RecordChunk::kRecords; }

  /// A dense number for `record`, and back.
  uint32_t indexOf(const HandleRecord *record) const {
    RecordChunk *chunk = RecordChunk::of(record);
    return chunk->index * RecordChunk::kRecords +
           uint32_t(record - chunk->slot(0));
  }
  HandleRecord *recordAt(uint32_t index) const {
    return chunks[index / RecordChunk::kRecords]->slot(index %
                                                       RecordChunk::kRecords);
  }
  /// A 32-bit link to `record`, never 0 (which links nothing), and back:
  /// the chunk's number above kLog2IdsPerChunk bits and the slot + 1 below
  /// them. Not dense (a chunk's ids end at kRecords, before 2^10), but
  /// following one takes a shift and a mask, where the dense index divides
  /// by kRecords: the address map and the scope lists follow links on every
  /// notification about a tracked op.
  static constexpr unsigned kLog2IdsPerChunk = 10;
  static_assert(RecordChunk::kRecords < (1u << kLog2IdsPerChunk),
                "a chunk's slots + 1 fit below the chunk's number");
  uint32_t idOf(const HandleRecord *record) const {
    RecordChunk *chunk = RecordChunk::of(record);
    return chunk->index << kLog2IdsPerChunk |
           (uint32_t(record - chunk->slot(0)) + 1);
  }
  /// The record of a non-zero id.
  HandleRecord *recordOfId(uint32_t id) const {
    return chunks[id >> kLog2IdsPerChunk]->slot(
        (id & ((1u << kLog2IdsPerChunk) - 1)) - 1);
  }
  HandleRecord *recordOf(uint32_t id) const {
    return id ? recordOfId(id) : nullptr;
  }

private:
  /// A state value no live record has: marks a free slot.
  static constexpr uint32_t kFreeSlot = 3;

  void addChunk();

  RegistryImpl *owner;
  PageArena *arena;
  std::unique_ptr<PageArena> ownArena;
  std::vector<RecordChunk *> chunks;
  /// Freed slots, linked through `HandleRecord::parent`.
  HandleRecord *freeRecords = nullptr;
  /// Slots of the newest chunk never used yet.
  uint32_t nextFresh = RecordChunk::kRecords;
  size_t numRecords = 0;
};

} // namespace tracking::detail
} // namespace mlir

#endif // MLIR_TRACKING_LIB_HANDLERECORDS_H
