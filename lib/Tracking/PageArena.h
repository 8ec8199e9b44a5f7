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
/// MiB of them miss the TLB on most reads, and every page first touched
/// during a pass faults on its own. The arena takes that memory in 2
/// MiB-aligned *regions* the kernel may back with one huge page each
/// (`madvise(MADV_HUGEPAGE)` when mapped: a hint, which fails silently where
/// transparent huge pages are off; everything works the same without it).
///
/// Chunks (`allocateChunk`) live until the arena dies. The first
/// `kOrdinaryFirstBytes` come from ordinary allocation: a small registry (a
/// unit test, ten handles from Python, a registry per transform run) maps
/// nothing and reuses malloc's warm memory. Then, until
/// `bytesBeforeRegions` have been handed out, from *slabs* the arena maps
/// itself in 4 KiB pages: malloc's aligned allocations leave never-touched free
/// blocks beside each chunk, and chunks malloc'd while passes run (histories)
/// take memory a pass has just freed; either way upstream's next allocations
/// land in memory no cache holds (at 1M ops with 10% held, one DenseMap's
/// growth wrote 170,000 lines that missed the L2, against 1,800 without
/// tracking). Then they are carved
/// from regions: aligned chunks from a region's front (a record chunk is
/// aligned to its size), the others from its back, so one region serves
/// both with no gap between them. A region's memory comes 2 MiB per page
/// fault, and the region being filled costs its whole 2 MiB (a huge page
/// once touched): the switch waits until that is at most a twelfth of the
/// arena (at an eighth, from 16 MiB, the region just begun took 5 bytes a
/// handle at 420,000 handles and a handle over 64 bytes). (Two alternatives
/// were measured. Switching at 1-4 MiB left 140,000
/// handles or their histories in a half-used region: 66-73 B per handle or
/// 56 B per event, over the 64 B and 48 B targets. Regions in 4 KiB pages,
/// collapsed into huge pages once full (`MADV_COLLAPSE`), cost only their
/// carved pages, but those pages, fresh from the kernel, fault one by one
/// during a pass where malloc reuses memory freed before: 772 faults and 8%
/// more CPU time at 140,000 ops held; a slab's chunks are populated as they
/// are handed out.)
///
/// A slab outlives its arena: when an arena dies its slabs go to a cache of
/// the process (up to `kMaxCachedSlabs`), and the next arena takes them
/// before it maps new ones. A registry is often one of many made in turn (a
/// registry per compilation, per transform run, per round of a benchmark),
/// and pages fresh from the kernel cost more than their fault: on a host
/// whose hypervisor fills a page's mapping at its first touch (measured on a
/// PVM guest: 0.6 us a page to populate, then 5 us at the first write, 12 us
/// a plain fault, against 0.02 us for a page touched before) a new
/// registry's first pass paid that for every page of its histories. A
/// cached slab keeps the pages it had populated, so only what lies past them
/// is populated again.
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
  /// Ordinary allocation and slabs for the first 24 MiB of chunks (about
  /// 627,000 records, or 200,000 records and their histories through a
  /// pipeline), regions after.
  static constexpr size_t kDefaultBytesBeforeRegions = size_t(24) << 20;
  /// Chunks larger than this always come from ordinary allocation (they
  /// would leave too large a share of a region unused).
  static constexpr size_t kMaxRegionChunkBytes = kRegionBytes / 16;
  /// Chunks from ordinary allocation before the first slab.
  static constexpr size_t kOrdinaryFirstBytes = size_t(256) << 10;
  /// A slab: address space mapped in 4 KiB pages (never huge pages), from
  /// which chunks are carved in turn, each populated when handed out (one
  /// call rather than a page fault per page during a pass): only the chunks
  /// handed out are ever resident. Aligned to kSlabAlign, the largest
  /// alignment of a chunk from a slab.
  static constexpr size_t kSlabBytes = size_t(1) << 20;
  static constexpr size_t kSlabAlign = size_t(32) << 10;
  /// Slabs the process keeps mapped for the next arenas once theirs died:
  /// at most this many MiB of address space, resident only where chunks
  /// were handed out.
  static constexpr size_t kMaxCachedSlabs = 8;

  /// Hands out `getDefaultBytesBeforeRegions()` before regions.
  PageArena() : PageArena(getDefaultBytesBeforeRegions()) {}
  explicit PageArena(size_t bytesBeforeRegions)
      : bytesBeforeRegions(bytesBeforeRegions) {}
  /// Frees every chunk, and every table not freed yet.
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
  /// statistics do not see): the chunks handed out of its slabs, its
  /// regions, each counted whole (a huge page once touched), and its
  /// mapped tables.
  size_t getMappedBytes() const;
  /// Bytes of chunks handed out by ordinary allocation (for tests).
  size_t getOrdinaryBytes() const { return ordinaryBytes; }
  /// Bytes of chunks handed out of slabs, and slabs mapped (for tests).
  size_t getSlabChunkBytes() const { return slabChunkBytes; }
  size_t getNumSlabs() const { return slabs.size(); }
  /// Regions mapped (for tests).
  size_t getNumRegions() const { return regions.size(); }

  /// The bytes before regions of arenas made from now on with the default
  /// constructor (the registries'): kDefaultBytesBeforeRegions unless a test
  /// set another (to reach regions with a small registry).
  static size_t getDefaultBytesBeforeRegions();
  static void setDefaultBytesBeforeRegions(size_t bytes);

  /// What every arena of the process and the slab cache hold in mappings,
  /// and how many mappings (slabs, regions and tables) are live (for tests
  /// and measurements).
  static size_t getProcessMappedBytes();
  static size_t getProcessMappings();
  /// Slabs in the process's cache, and unmapping them (for tests).
  static size_t getNumCachedSlabs();
  static void releaseCachedSlabs();

private:
  /// Maps `bytes` (a multiple of `align`) aligned to `align`, advised for
  /// huge pages or against them; reports a bad alloc on failure.
  enum class Backing { HugePages, SmallPages };
  static char *mapAligned(size_t bytes, size_t align, Backing backing);
  static void unmap(void *memory, size_t bytes);
  /// Maps a new region to carve from.
  void addRegion();
  /// A chunk from the slab being filled, or a new one.
  void *allocateFromSlab(size_t bytes, size_t align);

  /// A slab, and how many of its first bytes are resident (populated, a
  /// whole number of pages).
  struct Slab {
    char *base;
    size_t populated;
  };
  /// A slab from the process's cache, or a new mapping.
  static Slab takeSlab();
  /// Gives `slab` to the process's cache, or unmaps it if the cache is full.
  static void returnSlab(Slab slab);

  /// Chunks are handed out from ordinary allocation and slabs until this
  /// many bytes, then from regions.
  size_t bytesBeforeRegions;
  /// Slabs, the last one being carved from `slabFront` (the rest of the
  /// others never touched, but for pages a previous arena left resident),
  /// and the bytes of chunks handed out of them.
  llvm::SmallVector<Slab, 4> slabs;
  size_t slabFront = 0;
  size_t slabChunkBytes = 0;
  /// Chunks from ordinary allocation, with their alignment.
  llvm::SmallVector<std::pair<void *, size_t>, 4> ordinaryChunks;
  size_t ordinaryBytes = 0;
  /// Every region, the one being filled last.
  llvm::SmallVector<char *, 4> regions;
  /// The free range of the last region: [front, back).
  size_t front = 0;
  size_t back = 0;
  /// Mapped tables and their mapped sizes.
  llvm::DenseMap<void *, size_t> mappedTables;
  size_t tableBytes = 0;
};

} // namespace mlir::tracking::detail

#endif // MLIR_TRACKING_LIB_PAGEARENA_H
