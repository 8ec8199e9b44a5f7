//===- HistoryPool.cpp - Storage of handle histories ----------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "HistoryPool.h"
#include "HotPath.h"

#include "llvm/Support/ErrorHandling.h"

#include <cstdlib>
#include <cstring>

using namespace mlir::tracking::detail;

bool HistoryPool::mayCarve(const SizeClass &pool, uint32_t perChunk) const {
  // Every block of a new chunk must get an id: index + 1 < indexLimit.
  return (uint64_t(pool.chunks.size()) + 1) * perChunk < indexLimit;
}

MLIR_TRACKING_HOT_PATH HistoryPool::Id HistoryPool::allocate(unsigned sizeClass,
                                                             unsigned lane) {
  SizeClass &pool = classes[(lane << kClassBits) | sizeClass];
  if (Id id = pool.freeList) {
    std::memcpy(&pool.freeList, get(id), sizeof(Id));
    return id;
  }
  uint32_t perChunk = uint32_t(1) << (kLog2BlocksPerChunk - sizeClass);
  if (LLVM_UNLIKELY(pool.chunks.empty() || pool.used == perChunk)) {
    if (LLVM_UNLIKELY(!mayCarve(pool, perChunk)))
      return allocateInAnotherLane(sizeClass, lane);
    addChunk(pool, sizeClass);
  }
  uint64_t index = uint64_t(pool.chunks.size() - 1) * perChunk + pool.used++;
  return Id(((index + 1) << kIndexShift) | (lane << kClassBits) | sizeClass);
}

MLIR_TRACKING_HOT_PATH HistoryPool::Id
HistoryPool::allocateSingleSlow(void *&memory) {
  unsigned lane = active.get();
  SizeClass &pool = classes[lane << kClassBits];
  constexpr uint32_t perChunk = uint32_t(1) << kLog2BlocksPerChunk;
  if (Id id = pool.freeList) {
    uint32_t index = (id >> kIndexShift) - 1;
    memory = pool.chunks[index >> kLog2BlocksPerChunk] +
             (index & (perChunk - 1)) * itemBytes;
    std::memcpy(&pool.freeList, memory, sizeof(Id));
    return id;
  }
  // A new chunk, or another lane's block.
  Id id = allocate(0, lane);
  memory = get(id);
  return id;
}

void HistoryPool::addChunk(SizeClass &pool, unsigned sizeClass) {
  uint32_t perChunk = uint32_t(1) << (kLog2BlocksPerChunk - sizeClass);
  size_t bytes = blockBytes(sizeClass) * perChunk;
  auto *chunk = static_cast<char *>(arena->allocateChunk(bytes, 8));
  pool.chunks.push_back(chunk);
  allocatedBytes += bytes;
  pool.used = 0;
}

HistoryPool::Id HistoryPool::allocateInAnotherLane(unsigned sizeClass,
                                                   unsigned lane) {
  // Any lane is as correct as another: the next one with a block to give.
  uint32_t perChunk = uint32_t(1) << (kLog2BlocksPerChunk - sizeClass);
  for (unsigned next = (lane + 1) % kNumLanes; next != lane;
       next = (next + 1) % kNumLanes) {
    const SizeClass &pool = classes[(next << kClassBits) | sizeClass];
    if (pool.freeList || (!pool.chunks.empty() && pool.used < perChunk) ||
        mayCarve(pool, perChunk))
      return allocate(sizeClass, next);
  }
  llvm::report_fatal_error("mlir-tracking: too many histories");
}

void HistoryPool::free(Id id) {
  SizeClass &pool = classes[id & kLaneClassMask];
  std::memcpy(get(id), &pool.freeList, sizeof(Id));
  pool.freeList = id;
}
