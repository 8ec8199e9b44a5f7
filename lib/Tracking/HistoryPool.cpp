//===- HistoryPool.cpp - Storage of handle histories ----------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "HistoryPool.h"

#include "llvm/Support/ErrorHandling.h"

#include <cstdlib>
#include <cstring>

using namespace mlir::tracking::detail;

HistoryPool::~HistoryPool() {
  for (SizeClass &sizeClass : classes)
    for (char *chunk : sizeClass.chunks)
      std::free(chunk);
}

HistoryPool::Id HistoryPool::allocate(unsigned sizeClass, unsigned lane) {
  SizeClass &pool = classes[(lane << kClassBits) | sizeClass];
  if (Id id = pool.freeList) {
    std::memcpy(&pool.freeList, get(id), sizeof(Id));
    return id;
  }
  uint32_t perChunk = uint32_t(1) << (kLog2BlocksPerChunk - sizeClass);
  if (pool.chunks.empty() || pool.used == perChunk) {
    size_t bytes = blockBytes(sizeClass) * perChunk;
    auto *chunk = static_cast<char *>(std::malloc(bytes));
    if (!chunk)
      llvm::report_bad_alloc_error("mlir-tracking: history");
    pool.chunks.push_back(chunk);
    allocatedBytes += bytes;
    pool.used = 0;
  }
  uint64_t index = uint64_t(pool.chunks.size() - 1) * perChunk + pool.used++;
  if (index + 1 >= (uint64_t(1) << (32 - kIndexShift)))
    llvm::report_fatal_error("mlir-tracking: too many histories");
  return Id(((index + 1) << kIndexShift) | (lane << kClassBits) | sizeClass);
}

void HistoryPool::free(Id id) {
  SizeClass &pool = classes[id & kLaneClassMask];
  std::memcpy(get(id), &pool.freeList, sizeof(Id));
  pool.freeList = id;
}
