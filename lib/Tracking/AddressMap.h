//===- AddressMap.h - The record of each tracked op -------------*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// The address map of a registry: which record a tracked `Operation *` has.
// Private to lib/Tracking; not installed.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_LIB_ADDRESSMAP_H
#define MLIR_TRACKING_LIB_ADDRESSMAP_H

#include "HandleRecords.h"
#include "HotPath.h"
#include "RegistryLanes.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Compiler.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace mlir {
class Operation;

namespace tracking::detail {

/// An open-addressing table (linear probing in Robin Hood order, deletion by
/// backward shift) of 32-bit slots: a record id (`RecordPool::idOf`) in the low
/// `kIdBits` bits and, above them, how far the slot is from the home of its
/// key (saturated at `kFarDistance`). The key itself is not stored but read
/// from its record (`HandleRecord::op`), so an entry costs 4 bytes; the
/// distance tells which probed slots may hold the key (those whose key has
/// the same home) and lets an erase shift entries back without reading their
/// records. A record's `op` must not change while it is in the table.
/// Guarded by the registry lock.
///
/// Robin Hood order: an insert takes the slot of the first entry nearer its
/// own home than the new key is to its home (which moves on), so the entries
/// of a run are ordered by home. A lookup stops at the first entry nearer its
/// home than the key would be, and an erase shifts back only the entries
/// after the hole up to the first one at its home: the windowed homes
/// (`homeOf`) make runs long, and without the order an erase shifted to the
/// end of the run.
///
/// In a large table the entry count is kept per lane (RegistryLanes.h):
/// each thread counts its inserts and erases on a cache line of its own and
/// folds them into the shared count every `kFoldAt` net changes, so two
/// threads mapping and unmapping in turn do not pass the count's line back
/// and forth; the table grows early enough for every lane's unfolded count.
class AddressMap {
public:
  /// Record ids take the low bits of a slot: ids below 2^27, about 107
  /// million records (817 of every 1024 ids name a slot).
  static constexpr unsigned kIdBits = 27;
  static constexpr uint32_t kIdMask = (uint32_t(1) << kIdBits) - 1;
  /// The distance stored for entries this far from their home or farther
  /// (their home is then read from the record).
  static constexpr uint32_t kFarDistance = (uint32_t(1) << (32 - kIdBits)) - 1;

  /// Counts in the lane `lane` names when the lock is taken. Takes its
  /// table from `arena` (which must outlive the map), or from calloc.
  explicit AddressMap(RecordPool &pool,
                      const ActiveLane &lane = ActiveLane::standalone(),
                      PageArena *arena = nullptr)
      : pool(pool), active(lane), arena(arena) {}
  ~AddressMap() { freeSlots(slots); }
  AddressMap(const AddressMap &) = delete;
  AddressMap &operator=(const AddressMap &) = delete;

  /// The number of entries (reads every lane).
  size_t size() const {
    ptrdiff_t total = folded;
    for (const CountLane &lane : lanes)
      total += lane.pending;
    return size_t(total);
  }
  bool empty() const { return size() == 0; }
  /// The number of entries, give or take `kNumLanes * (kFoldAt - 1)` in a
  /// large table: for sizing what grows with the table (reads no lane).
  size_t approximateSize() const {
    return size_t(std::max<ptrdiff_t>(folded, 0));
  }
  /// Slots allocated (for tests).
  size_t capacity() const { return slots ? mask + 1 : 0; }

  /// The record mapped at `op`, or null.
  MLIR_TRACKING_HOT_PATH HandleRecord *lookup(const Operation *op) const {
    return find(op).record;
  }

  /// Takes the entry of `op` out of the table and returns its record, or
  /// null if `op` is not mapped: `lookup` and `erase` in one probe, for the
  /// notifications whose op leaves the map whatever becomes of its record
  /// (a replaced or erased op). The record's `op` is left as it was.
  /// Inline: one probe in each notification, no call.
  LLVM_ATTRIBUTE_ALWAYS_INLINE HandleRecord *take(const Operation *op) {
    Found found = find(op);
    if (found.record)
      removeAt(found.slot);
    return found.record;
  }

  /// Starts loading the slot where `record->op`'s probe begins, for an
  /// `erase` of it a few steps later (the slot is a random line of a table
  /// that does not fit in cache when it is large). Reads `record->op`.
  void prefetch(const HandleRecord *record) const {
    if (slots)
      __builtin_prefetch(&slots[home(record->op)], /*rw=*/1);
  }

  /// Starts loading the slot where the probe for `op` begins (a batch of
  /// queued changes loads theirs before applying any).
  void prefetchHome(const void *op) const {
    if (slots)
      __builtin_prefetch(&slots[home(op)], /*rw=*/1);
  }

  /// Ops are at least 64 bytes apart (sizeof(Operation)): each 64-byte block
  /// of addresses holds at most one key.
  static constexpr unsigned kLog2BlockBytes = 6;
  /// The blocks of a window (512 bytes of addresses) take consecutive homes.
  static constexpr unsigned kLog2WindowBlocks = 3;

  /// The slot `op` hashes to in a table of 2^log2Capacity slots (for tests).
  /// Locality-preserving: a multiplicative hash of the op's 512-byte window
  /// picks where the window's homes start, and the op's 64-byte block within
  /// the window picks one of the 8 slots from there. Ops allocated one after
  /// another (which passes visit in that order) mostly share a line of the
  /// table instead of each missing the cache on a random one. Consecutive
  /// windows of a dense heap land evenly spread (a multiplicative hash of
  /// consecutive numbers), so probes stay as short as with a mixing hash of
  /// each op (RegistryStructuresTest's probe-length tests). Not the filter's
  /// index either: a key that passed the filter by a collision should not
  /// also collide here.
  static size_t homeOf(const void *op, unsigned log2Capacity) {
    return homeIn(op, 64 - log2Capacity, (uint64_t(1) << log2Capacity) - 1);
  }

  /// How far entries are from their homes (for tests and measurements).
  struct ProbeLengths {
    size_t entries = 0;
    size_t total = 0;
    size_t max = 0;
    double mean() const { return entries ? double(total) / entries : 0; }
  };
  ProbeLengths getProbeLengths() const;
  /// Whether every run is in Robin Hood order (for tests).
  bool isInRobinHoodOrder() const;
  /// The slot of `op`'s entry, or SIZE_MAX if `op` is not mapped (for
  /// tests).
  size_t slotOf(const Operation *op) const {
    Found found = find(op);
    return found.record ? found.slot : SIZE_MAX;
  }

  /// Makes room for `numEntries` entries in all, so that inserting up to
  /// that many does not grow the table.
  void reserve(size_t numEntries);
  /// Maps `record->op` to `record`; nothing may be mapped there yet.
  void insert(HandleRecord *record);
  /// Takes `record` out of the table if it is there. Returns true if it was.
  bool erase(HandleRecord *record);
  /// Empties the table (records are left alone).
  void clear();
  /// Calls `fn` with every mapped record. `fn` must not change the table.
  void forEach(llvm::function_ref<void(HandleRecord *)> fn) const;

  /// A table holds at most this many eighths of its slots: 4.6 to 9.1
  /// bytes a key. (At 3/4, 5.3 to 10.7 bytes a key, the table just grown
  /// took a handle over 64 bytes between the sizes where it doubles; at
  /// 7/8 probes are about twice as long at the limit, the locality-
  /// preserving homes keep the dense runs' entries near theirs:
  /// RegistryStructuresTest.)
  static constexpr size_t kMaxLoadEighths = 7;
  /// The most entries a table of 2^log2 slots holds.
  static constexpr size_t maxEntries(unsigned log2) {
    return (kMaxLoadEighths << log2) / 8;
  }

  /// Net changes a lane counts before folding them into the shared count.
  static constexpr ptrdiff_t kFoldAt = 64;
  /// Tables of at least this many slots count per lane; smaller ones fold
  /// every change (their unfolded counts would be a large share of them).
  static constexpr size_t kLaneCountedCapacity = size_t(1) << 14;

private:
  /// `homeOf` with what it derives from the capacity given: `shift` is 64
  /// minus its log2, `capacityMask` the capacity minus one.
  LLVM_ATTRIBUTE_ALWAYS_INLINE static size_t
  homeIn(const void *op, unsigned shift, uint64_t capacityMask) {
    uint64_t block = uint64_t(uintptr_t(op)) >> kLog2BlockBytes;
    uint64_t window = block >> kLog2WindowBlocks;
    uint64_t start = (window * 0xC2B2AE3D27D4EB4Full) >> shift;
    uint64_t offset = block & ((uint64_t(1) << kLog2WindowBlocks) - 1);
    return (start + offset) & capacityMask;
  }
  /// Every probe starts here: the shift and the mask are kept, not derived
  /// from `log2Capacity` on each (a replace or erase probes two or three
  /// times).
  size_t home(const void *op) const { return homeIn(op, homeShift, mask); }
  /// Counts one entry in (+1) or out (-1).
  void count(ptrdiff_t change) {
    if (!laneCounted) {
      folded += change;
      return;
    }
    ptrdiff_t &pending = lanes[active.get()].pending;
    pending += change;
    if (pending >= kFoldAt || pending <= -kFoldAt) {
      folded += pending;
      pending = 0;
    }
  }
  /// Entries the lanes of a table of 2^log2 slots may hold unfolded.
  static size_t unfoldedSlack(unsigned log2) {
    return (size_t(1) << log2) < kLaneCountedCapacity
               ? 0
               : kNumLanes * size_t(kFoldAt - 1);
  }
  /// The distance of the entry `slot` at index `i` from its home.
  size_t distanceOf(uint32_t slot, size_t i) const {
    uint32_t distance = slot >> kIdBits;
    if (distance < kFarDistance)
      return distance;
    return (i - home(pool.recordOfId(slot & kIdMask)->op)) & mask;
  }
  static uint32_t makeSlot(uint32_t id, size_t distance) {
    return id | uint32_t(std::min<size_t>(distance, kFarDistance)) << kIdBits;
  }
  /// `op`'s record and the slot of its entry (a null record if `op` is not
  /// mapped): the probe `lookup` and `take` share.
  struct Found {
    HandleRecord *record;
    size_t slot;
  };
  LLVM_ATTRIBUTE_ALWAYS_INLINE Found find(const Operation *op) const {
    // No count here: whether the table is empty is read from its slots.
    if (!slots)
      return {nullptr, 0};
    size_t i = home(op);
    for (uint32_t distance = 0;; i = (i + 1) & mask) {
      uint32_t slot = slots[i];
      uint32_t stored = slot >> kIdBits;
      // Robin Hood order: `op` would sit before an entry nearer its home
      // (an empty slot reads as distance 0 and id 0). A saturated distance
      // compares as equal and reads the record.
      if (stored < distance || !slot)
        return {nullptr, 0};
      // Only an entry with the same home may be `op`'s.
      if (stored == distance) {
        HandleRecord *record = pool.recordOfId(slot & kIdMask);
        if (record->op == op)
          return {record, i};
      }
      if (distance < kFarDistance)
        ++distance;
    }
  }
  /// Empties slot `i` (an entry's) by backward shift and counts the entry
  /// out.
  LLVM_ATTRIBUTE_ALWAYS_INLINE void removeAt(size_t i) {
    // In Robin Hood order the entries after the hole up to the first empty
    // slot or entry at its home each move back by one.
    for (size_t j = (i + 1) & mask;; j = (j + 1) & mask) {
      uint32_t slot = slots[j];
      if (!(slot >> kIdBits))
        break;
      slots[i] = makeSlot(slot & kIdMask, distanceOf(slot, j) - 1);
      i = j;
    }
    slots[i] = 0;
    count(-1);
  }
  /// Puts `id`, whose key's home is `start`, in Robin Hood order: before
  /// the first entry nearer its home, which moves on the same way.
  void place(uint32_t id, size_t start);
  /// Rehashes into 2^log2Capacity slots.
  void rehash(unsigned newLog2Capacity);
  /// A zeroed table of `count` slots, and freeing one (a large table is
  /// mapped on its own in huge pages: PageArena::allocateTable).
  uint32_t *allocateSlots(size_t count);
  void freeSlots(uint32_t *table);

  RecordPool &pool;
  const ActiveLane &active;
  PageArena *arena;
  /// Record ids (RecordPool::idOf) and distances; 0 marks an empty slot.
  uint32_t *slots = nullptr;
  size_t mask = 0;
  unsigned log2Capacity = 0;
  /// 64 - log2Capacity (for `home`; 63 without slots, where no key has a
  /// home: a shift by 64 would be undefined).
  unsigned homeShift = 63;
  /// The entry count, but for what the lanes have not folded in yet (which
  /// may be negative: a lane may erase what another inserted).
  ptrdiff_t folded = 0;
  /// The table grows before an insert when `folded` reaches this: at most
  /// `kMaxLoadEighths` full, even with every lane's unfolded inserts (0
  /// without slots).
  ptrdiff_t growAt = 0;
  /// Whether the count is kept per lane (in a large table).
  bool laneCounted = false;
  struct alignas(kLaneAlignment) CountLane {
    ptrdiff_t pending = 0;
  };
  CountLane lanes[kNumLanes];
};

} // namespace tracking::detail
} // namespace mlir

#endif // MLIR_TRACKING_LIB_ADDRESSMAP_H
