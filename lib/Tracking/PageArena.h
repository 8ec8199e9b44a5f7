//===- PageArena.h - A registry's large memory, in huge pages ---*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Where a registry's large structures get their memory: the record chunks,
// the history chunks and the address map's table. Private to lib/Tracking;
// not installed.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_LIB_PAGEARENA_H
#define MLIR_TRACKING_LIB_PAGEARENA_H

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cstddef>
#include <cstdint>

namespace mlir::tracking::detail {

/// The memory of a registry's pools and tables. A large registry reads its
/// records, histories and address map at random: in 4 KiB pages, tens of
/// MiB of them miss the TLB on most reads, and pages first touched during a
/// pass fault one by one. The arena takes that memory in 2 MiB-aligned
/// *regions* the kernel may back with one huge page each
/// (`madvise(MADV_HUGEPAGE)`: a hint, which fails silently where
/// transparent huge pages are off; everything works the same without it).
///
/// Chunks (`allocateChunk`) live until the arena dies; they come, in turn:
///  1. from ordinary allocation, until `ordinaryBytes` have been handed out:
///     a small registry (a unit test, ten handles from Python, a registry
///     per transform run) maps nothing and reuses malloc's warm memory;
///  2. from regions in 4 KiB pages, each collapsed into a huge page once
///     carved to its end (`MADV_COLLAPSE`): only the carved pages of the
///     region being filled cost memory;
///  3. once the arena holds `eagerBytes` in regions, from regions advised
///     for huge pages when mapped: their pages come 2 MiB at a time, so a
///     pass growing the registry takes 512 times fewer page faults, and
///     the region being filled costs its whole 2 MiB, a small share of the
///     arena by then.
/// Aligned chunks are carved from a region's front (a record chunk is
/// aligned to its size), the others from its back: one region serves both
/// with no gap between them.
///
/// Tables (`allocateTable`) are zeroed and freed on their own: one of at
/// least a region is mapped on its own, advised, and unmapped when freed
/// (the address map's old table when it grows); smaller ones are calloc'd.
///
/// Not thread-safe: a registry's arena is used under its lock.
class PageArena {
public:
  /// The size and alignment of a region: one huge page on x86-64 and
  /// AArch64 with 4 KiB base pages.
  static constexpr size_t kRegionBytes = size_t(1) << 21;
  /// Ordinary allocation up to 1 MiB of chunks (26 record chunks: about
  /// 21,000 records).
  static constexpr size_t kDefaultOrdinaryBytes = size_t(1) << 20;
  /// Regions advised when mapped once 16 MiB are in regions: the region
  /// being filled is then at most an eighth of the arena.
  static constexpr size_t kDefaultEagerBytes = size_t(16) << 20;
  /// Chunks larger than this always come from ordinary allocation (they
  /// would leave too large a share of a region unused).
  static constexpr size_t kMaxRegionChunkBytes = kRegionBytes / 16;

  explicit PageArena(size_t ordinaryBytes = kDefaultOrdinaryBytes,
                     size_t eagerBytes = kDefaultEagerBytes)
      : ordinaryLimit(ordinaryBytes), eagerLimit(eagerBytes) {}
  /// Frees every chunk and table (tables must have been freed or are freed
  /// here).
  ~PageArena();
  PageArena(const PageArena &) = delete;
  PageArena &operator=(const PageArena &) = delete;

  /// `bytes` of memory aligned to `align` (a power of two, at most
  /// kRegionBytes), contents undefined, kept until the arena dies.
  void *allocateChunk(size_t bytes, size_t align);

  /// `bytes` of zeroed memory, aligned as malloc's, until `freeTable`.
  void *allocateTable(size_t bytes);
  /// Frees a table of this arena.
  void freeTable(void *table);

  /// The memory this arena holds outside malloc's heap (which malloc's
  /// statistics do not see): whole regions, but for the carved pages of a
  /// region in 4 KiB pages being filled, and mapped tables.
  size_t getMappedBytes() const;
  /// Bytes of chunks handed out by ordinary allocation (for tests).
  size_t getOrdinaryBytes() const { return ordinaryBytes; }
  /// Regions mapped (for tests).
  size_t getNumRegions() const { return regions.size(); }
  /// Regions mapped with the huge-page advice from the start (for tests).
  size_t getNumEagerRegions() const { return numEager; }

  /// What every arena of the process holds in mappings, and how many
  /// mappings (regions and tables) are live (for tests and measurements).
  static size_t getProcessMappedBytes();
  static size_t getProcessMappings();

private:
  /// Maps `bytes` (a multiple of kRegionBytes) aligned to kRegionBytes,
  /// advised for huge pages if `huge`; reports a bad alloc on failure.
  static char *mapAligned(size_t bytes, bool huge);
  static void unmap(void *memory, size_t bytes);
  /// Retires the region being filled (collapsing it if it is in 4 KiB
  /// pages) and maps a new one.
  void addRegion();

  size_t ordinaryLimit;
  size_t eagerLimit;
  /// Chunks from ordinary allocation, with their alignment.
  llvm::SmallVector<std::pair<void *, size_t>, 4> ordinaryChunks;
  size_t ordinaryBytes = 0;
  /// Every region, the one being filled last.
  llvm::SmallVector<char *, 4> regions;
  /// The free range of the last region: [front, back).
  size_t front = 0;
  size_t back = 0;
  /// Whether the last region was advised when mapped.
  bool lastEager = false;
  size_t numEager = 0;
  /// Mapped tables and their mapped sizes.
  llvm::DenseMap<void *, size_t> mappedTables;
  size_t tableBytes = 0;
};

} // namespace mlir::tracking::detail

#endif // MLIR_TRACKING_LIB_PAGEARENA_H
