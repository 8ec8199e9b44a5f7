//===- PageArena.cpp - A registry's large memory, in huge pages -----------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "PageArena.h"

#include "llvm/Support/Compiler.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstdlib>
#include <mutex>
#include <new>
#include <sys/mman.h>

using namespace mlir::tracking::detail;

namespace {
/// Chunks carved from a region's back start on a cache line of their own.
constexpr size_t kLineBytes = 64;
/// Slab chunks are populated page by page.
constexpr size_t kPageBytes = 4096;

std::atomic<size_t> defaultBytesBeforeRegions{
    PageArena::kDefaultBytesBeforeRegions};
std::atomic<size_t> processMappedBytes{0};
std::atomic<size_t> processMappings{0};

/// The slabs of arenas that died, for the next arenas (PageArena.h).
struct SlabCache {
  std::mutex mutex;
  llvm::SmallVector<std::pair<char *, size_t>, PageArena::kMaxCachedSlabs>
      slabs;
};
/// Never destroyed: arenas may die during the process's exit, after the
/// destructors of function-local statics ran.
SlabCache &slabCache() {
  static SlabCache *cache = new SlabCache;
  return *cache;
}
} // namespace

size_t PageArena::getDefaultBytesBeforeRegions() {
  return defaultBytesBeforeRegions.load(std::memory_order_relaxed);
}

void PageArena::setDefaultBytesBeforeRegions(size_t bytes) {
  defaultBytesBeforeRegions.store(bytes, std::memory_order_relaxed);
}

size_t PageArena::getProcessMappedBytes() {
  return processMappedBytes.load(std::memory_order_relaxed);
}

size_t PageArena::getProcessMappings() {
  return processMappings.load(std::memory_order_relaxed);
}

size_t PageArena::getNumCachedSlabs() {
  SlabCache &cache = slabCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  return cache.slabs.size();
}

void PageArena::releaseCachedSlabs() {
  SlabCache &cache = slabCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  for (auto [base, populated] : cache.slabs) {
    __asan_unpoison_memory_region(base, kSlabBytes);
    unmap(base, kSlabBytes);
  }
  cache.slabs.clear();
}

PageArena::Slab PageArena::takeSlab() {
  SlabCache &cache = slabCache();
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    if (!cache.slabs.empty()) {
      // The last one given back: the most recently written.
      auto [base, populated] = cache.slabs.pop_back_val();
      __asan_unpoison_memory_region(base, kSlabBytes);
      return {base, populated};
    }
  }
  return {mapAligned(kSlabBytes, kSlabAlign, Backing::SmallPages), 0};
}

void PageArena::returnSlab(Slab slab) {
  SlabCache &cache = slabCache();
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    if (cache.slabs.size() < kMaxCachedSlabs) {
      // Under AddressSanitizer a read through a pointer into a dead
      // registry's slab is reported, as it would fault once unmapped
      // (llvm/Support/Compiler.h: without the sanitizer this does nothing).
      __asan_poison_memory_region(slab.base, kSlabBytes);
      cache.slabs.push_back({slab.base, slab.populated});
      return;
    }
  }
  unmap(slab.base, kSlabBytes);
}

char *PageArena::mapAligned(size_t bytes, size_t align, Backing backing) {
  assert(bytes % align == 0 && "whole multiples of the alignment");
  // Map more than asked, then give back the misaligned ends.
  size_t padded = bytes + align;
  void *mapped = ::mmap(nullptr, padded, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED)
    llvm::report_bad_alloc_error("mlir-tracking: cannot map registry memory");
  uintptr_t start = uintptr_t(mapped);
  uintptr_t aligned = llvm::alignTo(start, align);
  if (aligned != start)
    ::munmap(mapped, aligned - start);
  if (size_t tail = start + padded - (aligned + bytes))
    ::munmap(reinterpret_cast<void *>(aligned + bytes), tail);
  // A hint: where transparent huge pages are off, it fails and changes
  // nothing.
  (void)::madvise(reinterpret_cast<void *>(aligned), bytes,
                  backing == Backing::HugePages ? MADV_HUGEPAGE
                                                : MADV_NOHUGEPAGE);
  processMappedBytes.fetch_add(bytes, std::memory_order_relaxed);
  processMappings.fetch_add(1, std::memory_order_relaxed);
  return reinterpret_cast<char *>(aligned);
}

void PageArena::unmap(void *memory, size_t bytes) {
  ::munmap(memory, bytes);
  processMappedBytes.fetch_sub(bytes, std::memory_order_relaxed);
  processMappings.fetch_sub(1, std::memory_order_relaxed);
}

PageArena::~PageArena() {
  for (auto [chunk, align] : ordinaryChunks)
    ::operator delete(chunk, std::align_val_t(align));
  for (Slab slab : slabs)
    returnSlab(slab);
  for (char *region : regions)
    unmap(region, kRegionBytes);
  for (auto [table, bytes] : mappedTables)
    unmap(table, bytes);
}

void PageArena::addRegion() {
  regions.push_back(mapAligned(kRegionBytes, kRegionBytes, Backing::HugePages));
  front = 0;
  back = kRegionBytes;
}

void *PageArena::allocateChunk(size_t bytes, size_t align) {
  assert(llvm::isPowerOf2_64(align) && align <= kRegionBytes &&
         "a power of two up to a region");
  size_t handedOut = ordinaryBytes + slabChunkBytes + bytes;
  bool beforeRegions = handedOut <= bytesBeforeRegions;
  bool slabbable = bytes <= kSlabBytes && align <= kSlabAlign;
  if ((beforeRegions && (handedOut <= kOrdinaryFirstBytes || !slabbable)) ||
      bytes > kMaxRegionChunkBytes) {
    void *chunk = ::operator new(bytes, std::align_val_t(align));
    ordinaryChunks.push_back({chunk, align});
    ordinaryBytes += bytes;
    return chunk;
  }
  if (beforeRegions)
    return allocateFromSlab(bytes, align);
  // Aligned chunks from the front, the others from the back (8-byte
  // aligned ones on their own cache line).
  bool fromFront = align > kLineBytes;
  auto fits = [&] {
    if (regions.empty())
      return false;
    if (fromFront)
      return llvm::alignTo(front, align) + bytes <= back;
    return back >= front + bytes &&
           llvm::alignDown(back - bytes, kLineBytes) >= front;
  };
  if (!fits())
    addRegion();
  char *region = regions.back();
  if (fromFront) {
    front = llvm::alignTo(front, align);
    void *chunk = region + front;
    front += bytes;
    return chunk;
  }
  back = llvm::alignDown(back - bytes, kLineBytes);
  return region + back;
}

void *PageArena::allocateFromSlab(size_t bytes, size_t align) {
  slabFront = llvm::alignTo(slabFront, align);
  if (slabs.empty() || slabFront + bytes > kSlabBytes) {
    slabs.push_back(takeSlab());
    slabFront = 0;
  }
  Slab &slab = slabs.back();
  char *chunk = slab.base + slabFront;
  slabFront += bytes;
  slabChunkBytes += bytes;
  // Fault the chunk's pages in at once, but for those a previous arena left
  // resident (before Linux 5.14 this fails, and they fault one by one as
  // written).
  size_t end = llvm::alignTo(slabFront, kPageBytes);
  size_t first = std::max(
      llvm::alignDown(size_t(chunk - slab.base), kPageBytes), slab.populated);
  if (first < end) {
    (void)::madvise(slab.base + first, end - first, MADV_POPULATE_WRITE);
    slab.populated = end;
  }
  return chunk;
}

void *PageArena::allocateTable(size_t bytes) {
  if (bytes < kRegionBytes) {
    void *table = std::calloc(1, bytes);
    if (!table)
      llvm::report_bad_alloc_error("mlir-tracking: cannot allocate a table");
    return table;
  }
  // Mapped pages read as zero; a table is written whole when it is filled,
  // so each of its huge pages is used.
  size_t mapped = llvm::alignTo(bytes, kRegionBytes);
  char *table = mapAligned(mapped, kRegionBytes, Backing::HugePages);
  mappedTables[table] = mapped;
  tableBytes += mapped;
  return table;
}

void PageArena::freeTable(void *table) {
  if (!table)
    return;
  auto it = mappedTables.find(table);
  if (it == mappedTables.end()) {
    std::free(table);
    return;
  }
  unmap(table, it->second);
  tableBytes -= it->second;
  mappedTables.erase(it);
}

size_t PageArena::getMappedBytes() const {
  return slabChunkBytes + regions.size() * kRegionBytes + tableBytes;
}
