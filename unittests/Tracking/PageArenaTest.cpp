//===- PageArenaTest.cpp - Tests for a registry's large memory ------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "PageArena.h"
#include "AddressMap.h"
#include "HandleRecords.h"
#include "HistoryPool.h"
#include "TestUtils.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tracking/PassTracking.h"
#include "mlir/Tracking/Passes.h"

#include <algorithm>
#include <cstring>
#include <malloc.h>
#include <memory>
#include <sys/mman.h>
#include <thread>
#include <utility>
#include <vector>

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::detail;
using namespace mlir::tracking::test;

#if defined(__SANITIZE_ADDRESS__)
#define MLIR_TRACKING_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MLIR_TRACKING_TEST_ASAN 1
#endif
#endif
#ifdef MLIR_TRACKING_TEST_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace {

constexpr size_t kRegion = PageArena::kRegionBytes;
constexpr size_t kRecordChunk = RecordChunk::kBytes;

/// What the process has mapped in arenas: slabs, regions and tables. The
/// slabs that earlier tests' arenas left in the process's cache are
/// unmapped first, so that an arena of this test maps its own.
struct ProcessMappings {
  ProcessMappings() {
    PageArena::releaseCachedSlabs();
    bytes = PageArena::getProcessMappedBytes();
    count = PageArena::getProcessMappings();
  }
  size_t bytes;
  size_t count;
};

/// Carves `count` chunks alternating a record chunk (aligned to its size)
/// and a history-like chunk (20 KiB, 8-byte aligned), and checks that each
/// is aligned as asked, that none overlaps another, and that each keeps
/// what was written to it.
void carveAndCheck(PageArena &arena, size_t count) {
  std::vector<std::pair<char *, size_t>> chunks;
  for (size_t i = 0; i < count; ++i) {
    bool aligned = i % 2 == 0;
    size_t bytes = aligned ? kRecordChunk : 20480;
    auto *chunk = static_cast<char *>(
        arena.allocateChunk(bytes, aligned ? kRecordChunk : 8));
    ASSERT_NE(chunk, nullptr);
    if (aligned) {
      EXPECT_EQ(uintptr_t(chunk) % kRecordChunk, 0u);
      // What RecordChunk::of relies on: every slot masks back to the chunk.
      auto *record = reinterpret_cast<HandleRecord *>(
          chunk + RecordChunk::kHeader + 100 * sizeof(HandleRecord));
      EXPECT_EQ(reinterpret_cast<char *>(RecordChunk::of(record)), chunk);
    } else {
      EXPECT_EQ(uintptr_t(chunk) % 8, 0u);
    }
    std::memset(chunk, int(i & 0xff), bytes);
    chunks.push_back({chunk, bytes});
  }
  for (size_t i = 0; i < chunks.size(); ++i)
    for (size_t j = 0; j < chunks[i].second; j += 4093)
      ASSERT_EQ(static_cast<unsigned char>(chunks[i].first[j]), i & 0xff)
          << "chunk " << i << " was overwritten";
  std::sort(chunks.begin(), chunks.end());
  for (size_t i = 1; i < chunks.size(); ++i)
    EXPECT_LE(chunks[i - 1].first + chunks[i - 1].second, chunks[i].first)
        << "chunks overlap";
}

TEST(PageArenaTest, SmallArenaMapsNothing) {
  ProcessMappings before;
  {
    PageArena arena;
    EXPECT_EQ(PageArena::getDefaultBytesBeforeRegions(),
              PageArena::kDefaultBytesBeforeRegions);
    // 240 KiB of chunks: about 3,000 records and their histories.
    carveAndCheck(arena, 9);
    EXPECT_EQ(arena.getNumRegions(), 0u);
    EXPECT_EQ(arena.getNumSlabs(), 0u);
    EXPECT_EQ(arena.getMappedBytes(), 0u);
    EXPECT_EQ(arena.getOrdinaryBytes(), 5 * kRecordChunk + 4 * 20480u);
    EXPECT_EQ(PageArena::getProcessMappings(), before.count);
  }
  EXPECT_EQ(PageArena::getProcessMappedBytes(), before.bytes);
}

TEST(PageArenaTest, ChunksAreAlignedAndDisjointAcrossTheSwitch) {
  ProcessMappings before;
  {
    // Ordinary for 64 KiB, then regions.
    PageArena arena(/*bytesBeforeRegions=*/64 << 10);
    carveAndCheck(arena, 400); // About 10 MiB.
    // A chunk that would pass the limit comes from a region.
    EXPECT_GT(arena.getOrdinaryBytes(), 32u << 10);
    EXPECT_LE(arena.getOrdinaryBytes(), 64u << 10);
    EXPECT_GE(arena.getNumRegions(), 5u);
    EXPECT_EQ(PageArena::getProcessMappings() - before.count,
              arena.getNumRegions());
    // Every region is counted whole, as mapped.
    EXPECT_EQ(arena.getMappedBytes(), arena.getNumRegions() * kRegion);
    EXPECT_EQ(PageArena::getProcessMappedBytes() - before.bytes,
              arena.getMappedBytes());
  }
  // Everything went back with the arena.
  EXPECT_EQ(PageArena::getProcessMappings(), before.count);
  EXPECT_EQ(PageArena::getProcessMappedBytes(), before.bytes);
}

TEST(PageArenaTest, AlignedChunksFromTheFrontOthersFromTheBack) {
  PageArena arena(/*bytesBeforeRegions=*/0);
  EXPECT_EQ(arena.getMappedBytes(), 0u);
  auto *first =
      static_cast<char *>(arena.allocateChunk(kRecordChunk, kRecordChunk));
  EXPECT_EQ(uintptr_t(first) % kRegion, 0u) << "a region's start";
  EXPECT_EQ(arena.getNumRegions(), 1u);
  EXPECT_EQ(arena.getMappedBytes(), kRegion);
  // 100 bytes from the back, on a cache line of their own.
  auto *small = static_cast<char *>(arena.allocateChunk(100, 8));
  EXPECT_EQ(small, first + kRegion - 128);
  // The front fills up to the back: 63 record chunks in all.
  for (size_t i = 1; i < kRegion / kRecordChunk - 1; ++i)
    EXPECT_EQ(arena.allocateChunk(kRecordChunk, kRecordChunk),
              first + i * kRecordChunk);
  EXPECT_EQ(arena.getNumRegions(), 1u);
  void *next = arena.allocateChunk(kRecordChunk, kRecordChunk);
  EXPECT_EQ(arena.getNumRegions(), 2u);
  EXPECT_EQ(uintptr_t(next) % kRegion, 0u);
  EXPECT_EQ(arena.getMappedBytes(), 2 * kRegion);
}

TEST(PageArenaTest, OversizedChunksAreOrdinary) {
  PageArena arena(/*bytesBeforeRegions=*/0);
  void *chunk = arena.allocateChunk(PageArena::kMaxRegionChunkBytes + 8, 8);
  ASSERT_NE(chunk, nullptr);
  EXPECT_EQ(arena.getNumRegions(), 0u);
  EXPECT_EQ(arena.getOrdinaryBytes(), PageArena::kMaxRegionChunkBytes + 8);
}

TEST(PageArenaTest, LargeTablesAreMappedAndGoBack) {
  ProcessMappings before;
  {
    PageArena arena;
    auto *small = static_cast<uint32_t *>(arena.allocateTable(4096));
    EXPECT_EQ(arena.getMappedBytes(), 0u);
    EXPECT_EQ(small[1023], 0u);
    arena.freeTable(small);

    size_t bytes = 3 * kRegion + 4;
    auto *large = static_cast<uint32_t *>(arena.allocateTable(bytes));
    EXPECT_EQ(uintptr_t(large) % kRegion, 0u);
    EXPECT_EQ(arena.getMappedBytes(), 4 * kRegion);
    EXPECT_EQ(PageArena::getProcessMappedBytes() - before.bytes, 4 * kRegion);
    for (size_t i = 0; i < bytes / 4; i += 1000)
      ASSERT_EQ(large[i], 0u);
    large[bytes / 4 - 1] = 7;
    arena.freeTable(large);
    EXPECT_EQ(arena.getMappedBytes(), 0u);
    EXPECT_EQ(PageArena::getProcessMappings(), before.count);
    // One left for the arena to free.
    arena.allocateTable(kRegion);
    EXPECT_EQ(arena.getMappedBytes(), kRegion);
  }
  EXPECT_EQ(PageArena::getProcessMappings(), before.count);
  EXPECT_EQ(PageArena::getProcessMappedBytes(), before.bytes);
}

TEST(PageArenaTest, AddressMapReturnsItsOldTables) {
  ProcessMappings before;
  {
    PageArena arena;
    RecordPool pool(nullptr, &arena);
    AddressMap map(pool, ActiveLane::standalone(), &arena);
    map.reserve(1000);
    EXPECT_EQ(arena.getMappedBytes(), 0u) << "a small table is calloc'd";
    // 2^19 slots and more: mapped on their own.
    map.reserve(500000);
    EXPECT_GE(map.capacity() * 4, kRegion);
    EXPECT_EQ(arena.getMappedBytes(), map.capacity() * 4);
    map.reserve(2000000);
    EXPECT_EQ(arena.getMappedBytes(), map.capacity() * 4)
        << "the old table was unmapped";
    EXPECT_EQ(PageArena::getProcessMappings() - before.count, 1u);
    map.clear();
    EXPECT_EQ(arena.getMappedBytes(), 0u);
    map.reserve(600000);
  }
  EXPECT_EQ(PageArena::getProcessMappings(), before.count);
  EXPECT_EQ(PageArena::getProcessMappedBytes(), before.bytes);
}

/// Past the first chunks and before regions, chunks come from slabs the
/// arena maps: none of them from malloc's heap, whose aligned allocations
/// leave never-touched free blocks that upstream's passes would take.
TEST(PageArenaTest, SlabsBetweenOrdinaryChunksAndRegions) {
  ProcessMappings before;
  {
    // Ordinary and slabs for 4 MiB, then regions.
    PageArena arena(/*bytesBeforeRegions=*/4 << 20);
    size_t heapBefore = mallinfo2().uordblks;
    carveAndCheck(arena, 100); // About 2.5 MiB.
    EXPECT_LE(arena.getOrdinaryBytes(), PageArena::kOrdinaryFirstBytes);
    EXPECT_GT(arena.getOrdinaryBytes(), PageArena::kOrdinaryFirstBytes / 2);
    // carveAndCheck's own vector aside, malloc holds no more than that.
    EXPECT_LT(mallinfo2().uordblks - heapBefore,
              arena.getOrdinaryBytes() + (64u << 10));
    EXPECT_GT(arena.getNumSlabs(), 0u);
    EXPECT_EQ(arena.getNumRegions(), 0u);
    // Only the chunks handed out count: the rest of a slab is never touched.
    EXPECT_EQ(arena.getMappedBytes(), arena.getSlabChunkBytes());
    EXPECT_EQ(arena.getOrdinaryBytes() + arena.getSlabChunkBytes(),
              50 * kRecordChunk + 50 * 20480u);
    EXPECT_EQ(PageArena::getProcessMappings() - before.count,
              arena.getNumSlabs());
    EXPECT_EQ(PageArena::getProcessMappedBytes() - before.bytes,
              arena.getNumSlabs() * PageArena::kSlabBytes);
    // Past 4 MiB of chunks, regions; slab chunks count towards the switch.
    carveAndCheck(arena, 100);
    EXPECT_LE(arena.getOrdinaryBytes() + arena.getSlabChunkBytes(), size_t(4)
                                                                        << 20);
    EXPECT_GE(arena.getNumRegions(), 1u);
    EXPECT_EQ(arena.getMappedBytes(),
              arena.getSlabChunkBytes() + arena.getNumRegions() * kRegion);
    EXPECT_EQ(PageArena::getProcessMappedBytes() - before.bytes,
              arena.getNumSlabs() * PageArena::kSlabBytes +
                  arena.getNumRegions() * kRegion);
  }
  // The slabs stay mapped in the process's cache, the regions went back.
  EXPECT_EQ(PageArena::getProcessMappings() - before.count,
            PageArena::getNumCachedSlabs());
  PageArena::releaseCachedSlabs();
  EXPECT_EQ(PageArena::getProcessMappings(), before.count);
  EXPECT_EQ(PageArena::getProcessMappedBytes(), before.bytes);
}

/// Which of the `numPages` pages from `start` are resident.
std::vector<bool> residentPages(const char *start, size_t numPages) {
  std::vector<unsigned char> bits(numPages);
  EXPECT_EQ(::mincore(const_cast<char *>(start), numPages * 4096, bits.data()),
            0);
  std::vector<bool> resident;
  for (unsigned char bit : bits)
    resident.push_back(bit & 1);
  return resident;
}

/// An arena that dies leaves its slabs, and the pages it populated in them,
/// to the next arena: a registry made after another touches no page fresh
/// from the kernel until it outgrows what the first one used.
TEST(PageArenaTest, SlabsOfADeadArenaServeTheNext) {
  ProcessMappings before;
  // Slabs from the first chunk past the ordinary ones.
  constexpr size_t kBeforeRegions = PageArena::kOrdinaryFirstBytes + (8 << 20);
  char *firstSlabChunk = nullptr;
  {
    PageArena arena(kBeforeRegions);
    arena.allocateChunk(PageArena::kOrdinaryFirstBytes, 8);
    // 3 chunks of 20 KiB: 15 pages of a slab.
    firstSlabChunk = static_cast<char *>(arena.allocateChunk(20480, 8));
    std::memset(firstSlabChunk, 1, 20480);
    std::memset(arena.allocateChunk(20480, 8), 2, 20480);
    std::memset(arena.allocateChunk(20480, 8), 3, 20480);
    EXPECT_EQ(arena.getNumSlabs(), 1u);
    EXPECT_EQ(uintptr_t(firstSlabChunk) % PageArena::kSlabAlign, 0u);
  }
  EXPECT_EQ(PageArena::getNumCachedSlabs(), 1u);
  EXPECT_EQ(PageArena::getProcessMappings() - before.count, 1u);
#ifdef MLIR_TRACKING_TEST_ASAN
  EXPECT_TRUE(__asan_address_is_poisoned(firstSlabChunk))
      << "a cached slab is poisoned: a stale pointer into it is reported";
#endif
  std::vector<bool> resident = residentPages(firstSlabChunk, 32);
  EXPECT_EQ(std::count(resident.begin(), resident.end(), true), 15)
      << "the pages handed out stay resident, the rest is never touched";
  {
    PageArena arena(kBeforeRegions);
    arena.allocateChunk(PageArena::kOrdinaryFirstBytes, 8);
    auto *chunk = static_cast<char *>(arena.allocateChunk(4096, 8));
    EXPECT_EQ(chunk, firstSlabChunk) << "the cached slab, from its start";
#ifdef MLIR_TRACKING_TEST_ASAN
    EXPECT_FALSE(__asan_address_is_poisoned(chunk));
#endif
    EXPECT_EQ(PageArena::getNumCachedSlabs(), 0u);
    EXPECT_EQ(PageArena::getProcessMappings() - before.count, 1u)
        << "nothing new mapped";
    // Past the pages the first arena populated, the next chunk's are
    // populated as in a new slab.
    auto *past = static_cast<char *>(arena.allocateChunk(81920, 8));
    EXPECT_EQ(past, firstSlabChunk + 4096);
    resident = residentPages(firstSlabChunk, 32);
    EXPECT_EQ(std::count(resident.begin(), resident.end(), true), 21);
    std::memset(past, 4, 81920);
    carveAndCheck(arena, 40);
    EXPECT_GT(arena.getNumSlabs(), 1u);
  }
  PageArena::releaseCachedSlabs();
  EXPECT_EQ(PageArena::getProcessMappings(), before.count);
  EXPECT_EQ(PageArena::getProcessMappedBytes(), before.bytes);
}

/// The cache keeps at most kMaxCachedSlabs: the slabs of more arenas dying
/// at once are unmapped; arenas made and dropped on several threads at once
/// share it without handing one slab to two of them.
TEST(PageArenaTest, SlabCacheIsBoundedAndSharedByThreads) {
  ProcessMappings before;
  constexpr size_t kBeforeRegions = PageArena::kOrdinaryFirstBytes + (8 << 20);
  {
    std::vector<std::unique_ptr<PageArena>> arenas;
    for (size_t i = 0; i < PageArena::kMaxCachedSlabs + 3; ++i) {
      arenas.push_back(std::make_unique<PageArena>(kBeforeRegions));
      arenas.back()->allocateChunk(PageArena::kOrdinaryFirstBytes, 8);
      arenas.back()->allocateChunk(4096, 8);
    }
    EXPECT_EQ(PageArena::getProcessMappings() - before.count,
              PageArena::kMaxCachedSlabs + 3);
  }
  EXPECT_EQ(PageArena::getNumCachedSlabs(), PageArena::kMaxCachedSlabs);
  EXPECT_EQ(PageArena::getProcessMappings() - before.count,
            PageArena::kMaxCachedSlabs);

  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (unsigned round = 0; round < 20; ++round) {
        PageArena arena(kBeforeRegions);
        // Each chunk keeps its own pattern while the other threads carve:
        // no slab is in two arenas at once.
        carveAndCheck(arena, 30);
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_LE(PageArena::getNumCachedSlabs(), PageArena::kMaxCachedSlabs);
  PageArena::releaseCachedSlabs();
  EXPECT_EQ(PageArena::getProcessMappings(), before.count);
  EXPECT_EQ(PageArena::getProcessMappedBytes(), before.bytes);
}

TEST(PageArenaTest, PoolsOfOneArenaShareItsRegions) {
  PageArena arena(/*bytesBeforeRegions=*/0);
  RecordPool records(nullptr, &arena);
  HistoryPool histories(40, 8, ActiveLane::standalone(),
                        HistoryPool::kMaxBlocksPerLaneAndClass, &arena);
  std::vector<HandleRecord *> allocated;
  std::vector<HistoryPool::Id> blocks;
  for (unsigned i = 0; i < 20000; ++i) {
    allocated.push_back(records.allocate());
    allocated.back()->lastLoc = &allocated; // Written, then read back.
    blocks.push_back(histories.allocate(i % HistoryPool::kNumClasses));
    std::memset(histories.get(blocks.back()), int(i & 0xff),
                histories.blockBytes(HistoryPool::classOf(blocks.back())));
  }
  for (unsigned i = 0; i < allocated.size(); ++i) {
    ASSERT_EQ(records.recordOfId(records.idOf(allocated[i])), allocated[i]);
    ASSERT_EQ(allocated[i]->lastLoc, &allocated);
    auto *memory = static_cast<unsigned char *>(histories.get(blocks[i]));
    size_t bytes = histories.blockBytes(HistoryPool::classOf(blocks[i]));
    ASSERT_EQ(memory[0], i & 0xff);
    ASSERT_EQ(memory[bytes - 1], i & 0xff);
  }
  // 20,000 records (0.8 MB) and histories (about 5 MB) in one arena.
  EXPECT_GE(arena.getNumRegions(), 3u);
  for (HandleRecord *record : allocated)
    records.free(record);
}

/// A module of `numFunctions` functions that canonicalize and cse rewrite:
/// constants to deduplicate, additions of zero to fold, duplicates to
/// merge, dead code.
std::string makeModule(unsigned numFunctions) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "module {\n";
  for (unsigned f = 0; f < numFunctions; ++f) {
    os << "func.func @f" << f << "(%a: i32, %b: i32) -> i32 {\n"
       << "  %v0 = arith.addi %a, %b : i32\n";
    for (unsigned i = 1; i < 60; ++i) {
      os << "  %z" << i << " = arith.constant 0 : i32\n"
         << "  %x" << i << " = arith.addi %v" << i - 1 << ", %z" << i
         << " : i32\n"
         << "  %m" << i << " = arith.muli %x" << i << ", %a : i32\n"
         << "  %n" << i << " = arith.muli %x" << i << ", %a : i32\n"
         << "  %dead" << i << " = arith.subi %m" << i << ", %b : i32\n"
         << "  %v" << i << " = arith.addi %m" << i << ", %n" << i << " : i32\n";
    }
    os << "  return %v59 : i32\n}\n";
  }
  os << "}\n";
  return text;
}

/// What a history says, but for where (locations, anchors: they differ
/// from function to function).
std::vector<std::string> describe(const OpHandle &handle) {
  std::vector<std::string> lines;
  lines.push_back(std::to_string(int(handle.getState())));
  for (const TrackingEvent &event : handle.getHistory())
    lines.push_back(std::to_string(int(event.kind)) + " " + event.pass + " " +
                    event.pattern + " " + event.reason);
  return lines;
}

/// Handles to every op of a module, through canonicalize and cse.
struct TrackedRun {
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::unique_ptr<HandleRegistry> registry;
  std::vector<Operation *> ops;
  std::vector<OpHandle> handles;
  size_t mappedWithHandles = 0;

  explicit TrackedRun(unsigned numFunctions) {
    loadTestDialects(context);
    context.disableMultithreading();
    module = parseModule(context, makeModule(numFunctions));
    registry = std::make_unique<HandleRegistry>(&context);
    module->walk([&](Operation *op) {
      if (op != module.get())
        ops.push_back(op);
    });
    handles = registry->getHandles(ops);
    mappedWithHandles = registry->getMappedBytes();
    PassManager pm(&context);
    EXPECT_TRUE(
        succeeded(parsePassPipeline("func.func(canonicalize,cse)", pm)));
    enableTracking(pm, *registry);
    EXPECT_TRUE(succeeded(pm.run(*module)));
    EXPECT_TRUE(registry->verifyAgainst(*module).empty());
  }
};

/// Registries made while this lives switch to regions after 1 MiB (about
/// 26,000 records) instead of 24.
struct SmallerSwitch {
  SmallerSwitch() { PageArena::setDefaultBytesBeforeRegions(1 << 20); }
  ~SmallerSwitch() {
    PageArena::setDefaultBytesBeforeRegions(
        PageArena::kDefaultBytesBeforeRegions);
  }
};

TEST(PageArenaTest, RecordsAndHistoriesStayCorrectInRegions) {
  registerTrackedPasses();
  SmallerSwitch smallerSwitch;
  ProcessMappings before;
  // One function: 361 ops, every chunk ordinary. 200 functions: 72,000
  // records (2.9 MB), most in regions.
  TrackedRun small(1);
  EXPECT_EQ(small.registry->getMappedBytes(), 0u);
  EXPECT_EQ(PageArena::getProcessMappings(), before.count);
  size_t opsPerFunction = small.ops.size();
  {
    TrackedRun large(200);
    ASSERT_EQ(large.ops.size(), 200 * opsPerFunction);
    EXPECT_GT(large.mappedWithHandles, 0u);
    EXPECT_GT(large.registry->getMappedBytes(), large.mappedWithHandles)
        << "histories grew in regions during the run";
    EXPECT_EQ(large.registry->getNumTrackedOps(),
              200 * small.registry->getNumTrackedOps());
    // Every function's handles say what the lone function's say, the first
    // function's (records in ordinary chunks) and the last one's (in
    // regions) alike.
    for (unsigned f : {0u, 1u, 100u, 199u})
      for (size_t i = 0; i < opsPerFunction; ++i)
        ASSERT_EQ(describe(large.handles[f * opsPerFunction + i]),
                  describe(small.handles[i]))
            << "function " << f << ", op " << i;
    // The handles outlive the registry; then everything goes back.
    large.registry.reset();
    EXPECT_GT(PageArena::getProcessMappings(), before.count);
    EXPECT_FALSE(large.handles.back().isLive());
  }
  // But for the slabs, which the process keeps for the next registry.
  EXPECT_EQ(PageArena::getProcessMappings() - before.count,
            PageArena::getNumCachedSlabs());
  PageArena::releaseCachedSlabs();
  EXPECT_EQ(PageArena::getProcessMappings(), before.count);
  EXPECT_EQ(PageArena::getProcessMappedBytes(), before.bytes);
}

} // namespace
