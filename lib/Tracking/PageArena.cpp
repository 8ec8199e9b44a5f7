//===- PageArena.cpp - A registry's large memory, in huge pages -----------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "PageArena.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"

#include <atomic>
#include <cassert>
#include <cstdlib>
#include <new>
#include <sys/mman.h>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

using namespace mlir::tracking::detail;

namespace {
/// The base page size the carved bytes of a region in small pages are
/// rounded to when counted.
constexpr size_t kSmallPageBytes = 4096;
/// Chunks carved from a region's back start on a cache line of their own.
constexpr size_t kLineBytes = 64;

std::atomic<size_t> processMappedBytes{0};
std::atomic<size_t> processMappings{0};
} // namespace

size_t PageArena::getProcessMappedBytes() {
  return processMappedBytes.load(std::memory_order_relaxed);
}

size_t PageArena::getProcessMappings() {
  return processMappings.load(std::memory_order_relaxed);
}

char *PageArena::mapAligned(size_t bytes, bool huge) {
  assert(bytes % kRegionBytes == 0 && "whole regions");
  // Map a region more than asked, then give back the misaligned ends.
  size_t padded = bytes + kRegionBytes;
  void *mapped = ::mmap(nullptr, padded, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED)
    llvm::report_bad_alloc_error("mlir-tracking: cannot map registry memory");
  uintptr_t start = uintptr_t(mapped);
  uintptr_t aligned = llvm::alignTo(start, kRegionBytes);
  if (aligned != start)
    ::munmap(mapped, aligned - start);
  if (size_t tail = start + padded - (aligned + bytes))
    ::munmap(reinterpret_cast<void *>(aligned + bytes), tail);
  // A hint: where transparent huge pages are off, it fails and changes
  // nothing.
  if (huge)
    (void)::madvise(reinterpret_cast<void *>(aligned), bytes, MADV_HUGEPAGE);
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
  for (char *region : regions)
    unmap(region, kRegionBytes);
  for (auto [table, bytes] : mappedTables)
    unmap(table, bytes);
}

void PageArena::addRegion() {
  if (!regions.empty() && !lastEager) {
    // Carved to its end: its pages are (or will be) touched, so one huge
    // page costs no more memory. Best effort, synchronous; where it fails
    // (no huge page free, THP off) the region stays in small pages, and
    // the advice lets the kernel's background collapse take it later.
    char *full = regions.back();
    (void)::madvise(full, kRegionBytes, MADV_HUGEPAGE);
    (void)::madvise(full, kRegionBytes, MADV_COLLAPSE);
  }
  lastEager = regions.size() * kRegionBytes >= eagerLimit;
  regions.push_back(mapAligned(kRegionBytes, lastEager));
  numEager += lastEager;
  front = 0;
  back = kRegionBytes;
}

void *PageArena::allocateChunk(size_t bytes, size_t align) {
  assert(llvm::isPowerOf2_64(align) && align <= kRegionBytes &&
         "a power of two up to a region");
  if (ordinaryBytes + bytes <= ordinaryLimit || bytes > kMaxRegionChunkBytes) {
    void *chunk = ::operator new(bytes, std::align_val_t(align));
    ordinaryChunks.push_back({chunk, align});
    ordinaryBytes += bytes;
    return chunk;
  }
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
  char *table = mapAligned(mapped, /*huge=*/true);
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
  if (regions.empty())
    return tableBytes;
  size_t bytes = tableBytes + (regions.size() - 1) * kRegionBytes;
  // The region being filled: whole if it came advised, else the pages its
  // chunks were carved from.
  if (lastEager)
    return bytes + kRegionBytes;
  return bytes + llvm::alignTo(front, kSmallPageBytes) +
         llvm::alignTo(kRegionBytes - back, kSmallPageBytes);
}
