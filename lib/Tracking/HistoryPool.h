//===- HistoryPool.h - Storage of handle histories --------------*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Blocks that hold the histories of a registry's records. Private to
// lib/Tracking; not installed.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_LIB_HISTORYPOOL_H
#define MLIR_TRACKING_LIB_HISTORYPOOL_H

#include "PageArena.h"
#include "RegistryLanes.h"

#include "llvm/Support/Compiler.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace mlir::tracking::detail {

/// History blocks in size classes: class k holds 2^k items of `itemBytes`,
/// and the largest class a `fullHeaderBytes` header before them (only a
/// full history needs one). Blocks are carved from chunks of their
/// class, and freed blocks go on a free list of their class: no malloc
/// header per history, and most histories (one or two events) use a block
/// of exactly their size. A block is named by a 32-bit id (0 is none) that
/// encodes its class and its lane. Guarded by the registry lock.
///
/// Each lane (RegistryLanes.h) has its own size classes on cache lines of
/// their own: a thread allocates from its lane, so two threads recording
/// events in turn do not take each other's free-list heads. A block goes
/// back to the lane it came from.
class HistoryPool {
public:
  using Id = uint32_t;
  /// Classes 0 to kNumClasses - 1: up to 2^(kNumClasses - 1) items.
  static constexpr unsigned kNumClasses = 6;
  /// Ids hold indices + 1 below this, per lane and class (2^26).
  static constexpr uint64_t kMaxBlocksPerLaneAndClass = uint64_t(1) << 26;

  /// Allocates from the lane `lane` names when the lock is taken.
  /// `blocksPerLaneAndClass` bounds the blocks carved for one class in one
  /// lane (less than what an id holds only in tests). Takes its chunks from
  /// `arena` (which must outlive the pool), or from an arena of its own.
  HistoryPool(size_t itemBytes, size_t fullHeaderBytes,
              const ActiveLane &lane = ActiveLane::standalone(),
              uint64_t blocksPerLaneAndClass = kMaxBlocksPerLaneAndClass,
              PageArena *arena = nullptr)
      : itemBytes(itemBytes), fullHeaderBytes(fullHeaderBytes), active(lane),
        indexLimit(std::min(blocksPerLaneAndClass, kMaxBlocksPerLaneAndClass)),
        arena(arena) {
    if (!arena) {
      ownArena = std::make_unique<PageArena>();
      this->arena = ownArena.get();
    }
  }
  /// The chunks go back with the arena.
  ~HistoryPool() = default;
  HistoryPool(const HistoryPool &) = delete;
  HistoryPool &operator=(const HistoryPool &) = delete;

  /// A block of class `sizeClass` (contents undefined), from the active
  /// lane.
  Id allocate(unsigned sizeClass) { return allocate(sizeClass, active.get()); }
  /// A block of class `sizeClass` from lane `lane` (< kNumLanes), or from
  /// the next lane that has one once `lane` has carved all it may.
  Id allocate(unsigned sizeClass, unsigned lane);
  /// A block of class 0 (one item) from the active lane, and its memory:
  /// the first event of a history, most histories' only one. Reads no more
  /// than the lane's class and the block. Inline while the lane's newest
  /// chunk has room and its free list is empty (a pass's events, while the
  /// handles live); the rest out of line.
  LLVM_ATTRIBUTE_ALWAYS_INLINE Id allocateSingle(void *&memory) {
    unsigned lane = active.get();
    SizeClass &pool = classes[lane << kClassBits];
    constexpr uint32_t perChunk = uint32_t(1) << kLog2BlocksPerChunk;
    if (LLVM_LIKELY(!pool.freeList && pool.used != perChunk &&
                    !pool.chunks.empty())) {
      memory = pool.chunks.back() + pool.used * itemBytes;
      uint64_t index =
          uint64_t(pool.chunks.size() - 1) * perChunk + pool.used++;
      return Id(((index + 1) << kIndexShift) | (lane << kClassBits));
    }
    return allocateSingleSlow(memory);
  }
  /// Returns the block to the free list of its class in its lane.
  void free(Id id);

  /// The block's memory, 8-byte aligned.
  void *get(Id id) const {
    unsigned sizeClass = classOf(id);
    uint32_t index = (id >> kIndexShift) - 1;
    unsigned log2PerChunk = kLog2BlocksPerChunk - sizeClass;
    return classes[id & kLaneClassMask].chunks[index >> log2PerChunk] +
           (index & ((1u << log2PerChunk) - 1)) * blockBytes(sizeClass);
  }
  static unsigned classOf(Id id) { return id & ((1u << kClassBits) - 1); }
  static unsigned laneOf(Id id) {
    return (id >> kClassBits) & ((1u << kLaneBits) - 1);
  }
  /// How many items a block of `id`'s class holds.
  static uint32_t capacityOf(Id id) { return uint32_t(1) << classOf(id); }

  /// True for the largest class, whose blocks start with the header.
  static bool isFull(Id id) { return classOf(id) == kNumClasses - 1; }
  size_t blockBytes(unsigned sizeClass) const {
    return (sizeClass == kNumClasses - 1 ? fullHeaderBytes : 0) +
           (itemBytes << sizeClass);
  }

  /// Bytes in chunks (for tests).
  size_t getAllocatedBytes() const { return allocatedBytes; }

private:
  static constexpr unsigned kClassBits = 3;
  static constexpr unsigned kLaneBits = 3;
  static_assert(kNumLanes <= (1u << kLaneBits), "lanes fit in an id");
  /// An id is (index + 1) << kIndexShift | lane << kClassBits | class: its
  /// low bits index `classes` directly.
  static constexpr unsigned kIndexShift = kClassBits + kLaneBits;
  static constexpr uint32_t kLaneClassMask = (1u << kIndexShift) - 1;
  static_assert(kMaxBlocksPerLaneAndClass == uint64_t(1) << (32 - kIndexShift),
                "an id holds an index below the limit");

  /// `allocateSingle` from the free list, or with a new chunk.
  LLVM_ATTRIBUTE_NOINLINE Id allocateSingleSlow(void *&memory);
  /// `allocate` once `lane` has none free and may carve no more.
  LLVM_ATTRIBUTE_NOINLINE Id allocateInAnotherLane(unsigned sizeClass,
                                                   unsigned lane);
  /// Class 0 has 2^kLog2BlocksPerChunk blocks per chunk, each larger class
  /// half as many (chunks of 16 KiB for 32-byte items).
  static constexpr unsigned kLog2BlocksPerChunk = 9;

  struct SizeClass {
    std::vector<char *> chunks;
    /// Blocks handed out from the newest chunk.
    uint32_t used = 0;
    /// Freed blocks, linked through their first 4 bytes.
    Id freeList = 0;
  };

  size_t itemBytes;
  size_t fullHeaderBytes;
  const ActiveLane &active;
  /// Chunks are carved for a class in a lane while their last index + 1
  /// stays below this.
  uint64_t indexLimit;
  PageArena *arena;
  std::unique_ptr<PageArena> ownArena;
  size_t allocatedBytes = 0;
  /// The size classes of lane `l` at `l << kClassBits` (2^kClassBits of
  /// them, kNumClasses used: each lane takes whole cache lines).
  static_assert((sizeof(SizeClass) << kClassBits) % kLaneAlignment == 0,
                "a lane's classes share no cache line with another lane's");
  alignas(kLaneAlignment) SizeClass classes[kNumLanes << kClassBits];

  /// Carves a new chunk for `pool` (of class `sizeClass`): out of line, so
  /// that `allocate` stays a few cache lines of code.
  LLVM_ATTRIBUTE_NOINLINE void addChunk(SizeClass &pool, unsigned sizeClass);
  /// Whether `pool` may take one more chunk of `perChunk` blocks.
  bool mayCarve(const SizeClass &pool, uint32_t perChunk) const;
};

} // namespace mlir::tracking::detail

#endif // MLIR_TRACKING_LIB_HISTORYPOOL_H
