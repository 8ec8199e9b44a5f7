//===- RegistryStructuresTest.cpp - The registry's private structures -----===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// The containers a HandleRegistry is built of, tested on their own with
// made-up keys: the address map, compared against a std::map under growth,
// deletion and reuse of pooled records and keys of one home; the lock-free
// filter's false positives for dense and spread addresses; the history pool and
// the histories the event log keeps in it; the registry lock; the lanes that
// keep what different threads write apart (history blocks, entry counts).
//
//===----------------------------------------------------------------------===//

#include "AddressMap.h"
#include "EventLog.h"
#include "HandleRecords.h"
#include "HistoryPool.h"
#include "IdTable.h"
#include "OpFilter.h"
#include "RegistryLanes.h"
#include "RegistryMutex.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"

#include "gtest/gtest.h"

#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::detail;

namespace {

/// A made-up op address: the address map compares keys, never reads them.
Operation *fakeOp(uintptr_t i) {
  return reinterpret_cast<Operation *>(uintptr_t(0x100000) + i * 64);
}

/// Checks `map` against `expected` both ways.
void expectSame(const AddressMap &map,
                const std::map<Operation *, HandleRecord *> &expected) {
  EXPECT_EQ(map.size(), expected.size());
  for (auto [op, record] : expected)
    EXPECT_EQ(map.lookup(op), record);
  size_t visited = 0;
  map.forEach([&](HandleRecord *record) {
    ++visited;
    auto it = expected.find(record->op);
    ASSERT_NE(it, expected.end());
    EXPECT_EQ(it->second, record);
  });
  EXPECT_EQ(visited, expected.size());
}

TEST(AddressMapTest, GrowsAndStaysAtMostSevenEighthsFull) {
  RecordPool pool(nullptr);
  AddressMap map(pool);
  EXPECT_TRUE(map.empty());
  EXPECT_EQ(map.lookup(fakeOp(1)), nullptr);
  std::map<Operation *, HandleRecord *> expected;
  for (uintptr_t i = 0; i < 20000; ++i) {
    HandleRecord *record = pool.allocate();
    record->op = fakeOp(i);
    map.insert(record);
    expected[record->op] = record;
    EXPECT_LE(map.size() * 8, map.capacity() * 7);
  }
  expectSame(map, expected);
  // Keys never inserted are not found, whatever slot they hash to.
  for (uintptr_t i = 20000; i < 21000; ++i)
    EXPECT_EQ(map.lookup(fakeOp(i)), nullptr);
}

/// A table grows only once the next entry would take it past 7/8 full
/// (less what the lanes may hold unfolded in a large one): just after
/// growing, a key costs at most 4 / (7/16) bytes, about 9.1. (At 3/4 it was
/// 10.7, which took a handle over 64 bytes at the sizes just past it.)
TEST(AddressMapTest, GrowsOnlyPastSevenEighths) {
  RecordPool pool(nullptr);
  AddressMap map(pool);
  size_t capacity = 0;
  for (uintptr_t i = 0; i < 60000; ++i) {
    HandleRecord *record = pool.allocate();
    record->op = fakeOp(i);
    size_t before = map.size();
    map.insert(record);
    if (map.capacity() == capacity)
      continue;
    if (capacity) {
      // The table was full to its limit before this insert (a large one:
      // the shared count was, which lags the lane's by less than kFoldAt).
      size_t slack = capacity < AddressMap::kLaneCountedCapacity
                         ? 0
                         : kNumLanes * size_t(AddressMap::kFoldAt - 1);
      EXPECT_GE(before, capacity * 7 / 8 - slack) << "at " << i;
      EXPECT_LE(before, capacity * 7 / 8) << "at " << i;
      if (!slack)
        EXPECT_EQ(before, capacity * 7 / 8) << "at " << i;
      EXPECT_EQ(map.capacity(), capacity * 2);
      // Bytes per entry just after growing: at most 4 / (7/16) plus the
      // lanes' slack.
      EXPECT_LE(double(map.capacity() * 4) / double(map.size()),
                64.0 / 7 * (1 + double(slack) / double(before)) + 0.01)
          << "at " << i;
    }
    capacity = map.capacity();
  }
}

TEST(AddressMapTest, ReserveMakesRoomOnce) {
  RecordPool pool(nullptr);
  AddressMap map(pool);
  map.reserve(1000);
  size_t capacity = map.capacity();
  EXPECT_GE(capacity * 7, 1000u * 8);
  std::map<Operation *, HandleRecord *> expected;
  for (uintptr_t i = 0; i < 1000; ++i) {
    HandleRecord *record = pool.allocate();
    record->op = fakeOp(i);
    map.insert(record);
    expected[record->op] = record;
  }
  EXPECT_EQ(map.capacity(), capacity);
  // Reserving less than is there changes nothing; more rehashes in place.
  map.reserve(10);
  EXPECT_EQ(map.capacity(), capacity);
  map.reserve(5000);
  EXPECT_GT(map.capacity(), capacity);
  expectSame(map, expected);
}

TEST(AddressMapTest, RandomInsertsAndErasesMatchAStdMap) {
  RecordPool pool(nullptr);
  AddressMap map(pool);
  std::map<Operation *, HandleRecord *> expected;
  std::mt19937 random(12);
  // Few distinct keys in a small table: long probe runs that wrap around
  // the end, and many backward shifts.
  for (int step = 0; step < 50000; ++step) {
    Operation *op = fakeOp(random() % 48);
    auto it = expected.find(op);
    if (it == expected.end()) {
      HandleRecord *record = pool.allocate();
      record->op = op;
      map.insert(record);
      expected[op] = record;
    } else {
      HandleRecord *record = it->second;
      // Mostly erased right after a lookup of it (as notifications do),
      // sometimes after a lookup of another key, or of none.
      if (step % 3 == 1) {
        EXPECT_EQ(map.lookup(op), record);
      } else if (step % 3 == 2) {
        Operation *other = fakeOp(random() % 48);
        auto found = expected.find(other);
        EXPECT_EQ(map.lookup(other),
                  found == expected.end() ? nullptr : found->second);
      }
      EXPECT_TRUE(map.erase(record));
      // Erasing twice finds nothing.
      EXPECT_FALSE(map.erase(record));
      expected.erase(it);
      pool.free(record);
    }
    if (step % 997 == 0) {
      expectSame(map, expected);
      EXPECT_TRUE(map.isInRobinHoodOrder());
    }
  }
  expectSame(map, expected);
  EXPECT_TRUE(map.isInRobinHoodOrder());
}

/// `take` is `lookup` and `erase` in one probe: against a std::map, with
/// keys of a few homes in a small table (runs that wrap around its end and
/// saturate the stored distance), keys never inserted, keys taken twice and
/// a record whose slot was reused under another address.
TEST(AddressMapTest, TakeFindsAndErasesInOneProbe) {
  RecordPool pool(nullptr);
  AddressMap map(pool);
  map.reserve(AddressMap::kFarDistance + 40);
  size_t capacity = map.capacity();
  unsigned log2Capacity = 0;
  while ((size_t(1) << log2Capacity) < capacity)
    ++log2Capacity;
  // Keys of three homes, the last one next to the table's end.
  std::vector<Operation *> keys;
  size_t homes[] = {0, 5, capacity - 2};
  for (uintptr_t i = 0; keys.size() < 3 * (AddressMap::kFarDistance + 8); ++i) {
    size_t home = AddressMap::homeOf(fakeOp(i), log2Capacity);
    if (llvm::is_contained(homes, home))
      keys.push_back(fakeOp(i));
  }
  std::map<Operation *, HandleRecord *> expected;
  std::mt19937 random(31);
  for (int step = 0; step < 40000; ++step) {
    Operation *op = keys[random() % keys.size()];
    auto it = expected.find(op);
    if (it == expected.end()) {
      if (random() % 3 == 0) {
        // Not mapped: nothing taken, nothing changed.
        EXPECT_EQ(map.take(op), nullptr);
        continue;
      }
      if (expected.size() * 4 >= capacity * 3)
        continue;
      HandleRecord *record = pool.allocate();
      record->op = op;
      map.insert(record);
      expected[op] = record;
      continue;
    }
    HandleRecord *record = it->second;
    EXPECT_EQ(map.take(op), record);
    // Taken once: neither `take` nor `erase` finds it again, and the record
    // still names its op.
    EXPECT_EQ(record->op, op);
    EXPECT_EQ(map.take(op), nullptr);
    EXPECT_FALSE(map.erase(record));
    expected.erase(it);
    // Half the time the record's slot is reused under another key right
    // away (as a replacement that the pool gives the freed slot).
    pool.free(record);
    if (random() % 2) {
      Operation *other = keys[random() % keys.size()];
      if (!expected.count(other) && other != op) {
        HandleRecord *reused = pool.allocate();
        EXPECT_EQ(reused, record);
        reused->op = other;
        map.insert(reused);
        expected[other] = reused;
        EXPECT_EQ(map.take(op), nullptr);
      }
    }
    if (step % 499 == 0) {
      expectSame(map, expected);
      EXPECT_TRUE(map.isInRobinHoodOrder());
    }
  }
  EXPECT_EQ(map.capacity(), capacity);
  expectSame(map, expected);
  EXPECT_TRUE(map.isInRobinHoodOrder());
  for (auto [op, record] : expected)
    EXPECT_EQ(map.take(op), record);
  EXPECT_TRUE(map.empty());
}

TEST(AddressMapTest, EntriesSitAtTheirHomesThroughGrowthAndClear) {
  // Keys a window apart (512 bytes) have homes spread by the window's hash:
  // in a sparse table most sit at their homes, as `homeOf` computes them for
  // the table's capacity at the time (the map keeps what it derives from
  // the capacity, which must follow every growth and a clear).
  RecordPool pool(nullptr);
  AddressMap map(pool);
  auto log2Of = [](size_t capacity) {
    unsigned log2 = 0;
    while ((size_t(1) << log2) < capacity)
      ++log2;
    return log2;
  };
  auto atHome = [&](const std::vector<HandleRecord *> &records) {
    unsigned log2 = log2Of(map.capacity());
    size_t count = 0;
    for (HandleRecord *record : records)
      count += map.slotOf(record->op) == AddressMap::homeOf(record->op, log2);
    return count;
  };
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<HandleRecord *> records;
    for (size_t i = 0; i < 3000; ++i) {
      HandleRecord *record = pool.allocate();
      record->op = fakeOp(i * 8 + pass);
      map.insert(record);
      records.push_back(record);
      if (i == 10 || i == 100 || i == 2999) {
        // Over half of them at their homes (a table at most 7/8 full).
        EXPECT_GT(atHome(records) * 2, records.size()) << "at " << i;
        for (HandleRecord *inMap : records)
          EXPECT_NE(map.slotOf(inMap->op), SIZE_MAX);
      }
    }
    map.clear();
    for (HandleRecord *record : records)
      EXPECT_EQ(map.slotOf(record->op), SIZE_MAX);
    for (HandleRecord *record : records)
      pool.free(record);
  }
}

TEST(AddressMapTest, FreedRecordSlotsAreReusedUnderANewAddress) {
  RecordPool pool(nullptr);
  AddressMap map(pool);
  HandleRecord *first = pool.allocate();
  first->op = fakeOp(1);
  map.insert(first);
  EXPECT_TRUE(map.erase(first));
  pool.free(first);
  EXPECT_EQ(pool.size(), 0u);
  // The pool hands the same slot out again; the map finds it under its new
  // op only.
  HandleRecord *second = pool.allocate();
  EXPECT_EQ(second, first);
  second->op = fakeOp(2);
  map.insert(second);
  EXPECT_EQ(map.lookup(fakeOp(1)), nullptr);
  EXPECT_EQ(map.lookup(fakeOp(2)), second);
  map.clear();
  EXPECT_TRUE(map.empty());
  EXPECT_EQ(map.lookup(fakeOp(2)), nullptr);
  pool.free(second);
}

/// Keys that all hash to one slot: distances from the home pass the largest
/// one a slot stores (kFarDistance), so lookups and backward shifts read
/// the home from the record there.
TEST(AddressMapTest, KeysOfOneHomePastTheStoredDistance) {
  RecordPool pool(nullptr);
  AddressMap map(pool);
  constexpr size_t kKeys = AddressMap::kFarDistance + 17;
  map.reserve(kKeys);
  size_t capacity = map.capacity();
  unsigned log2Capacity = 0;
  while ((size_t(1) << log2Capacity) < capacity)
    ++log2Capacity;
  // Made-up ops with the home of fakeOp(0), and as many with other homes.
  std::vector<Operation *> sameHome, others;
  size_t target = AddressMap::homeOf(fakeOp(0), log2Capacity);
  for (uintptr_t i = 0; sameHome.size() < 2 * kKeys; ++i) {
    Operation *op = fakeOp(i);
    if (AddressMap::homeOf(op, log2Capacity) == target)
      sameHome.push_back(op);
    else if (others.size() < 8)
      others.push_back(op);
  }
  std::map<Operation *, HandleRecord *> expected;
  std::mt19937 random(7);
  for (int round = 0; round < 20; ++round) {
    // Fill up with keys of the one home (and a few others in the run),
    // then erase a random half.
    for (size_t i = 0; i < kKeys && expected.size() < kKeys; ++i) {
      Operation *op = i % 8 == 7 ? others[i / 8 % others.size()]
                                 : sameHome[random() % sameHome.size()];
      if (expected.count(op))
        continue;
      HandleRecord *record = pool.allocate();
      record->op = op;
      map.insert(record);
      expected[op] = record;
    }
    EXPECT_EQ(map.capacity(), capacity);
    expectSame(map, expected);
    EXPECT_TRUE(map.isInRobinHoodOrder());
    // Keys of the same home never inserted are not found.
    for (Operation *op : sameHome)
      if (!expected.count(op))
        EXPECT_EQ(map.lookup(op), nullptr);
    for (auto it = expected.begin(); it != expected.end();) {
      if (random() % 2) {
        ++it;
        continue;
      }
      EXPECT_TRUE(map.erase(it->second));
      EXPECT_FALSE(map.erase(it->second));
      pool.free(it->second);
      it = expected.erase(it);
    }
    expectSame(map, expected);
    EXPECT_TRUE(map.isInRobinHoodOrder());
  }
}

/// Made-up op addresses in the patterns a heap gives: dense runs of ops of
/// mixed sizes, a share of them, several arenas, and spread or adversarial
/// strides.
std::vector<uintptr_t> denseRun(size_t count, uintptr_t base, unsigned seed,
                                size_t every = 1) {
  std::mt19937 random(seed);
  std::vector<uintptr_t> addresses;
  uintptr_t address = base;
  for (size_t i = 0; addresses.size() < count; ++i) {
    if (i % every == 0)
      addresses.push_back(address);
    // 64 to 176 bytes, as the ops of arith and func are.
    address += 64 + 16 * (random() % 8);
  }
  return addresses;
}

std::map<std::string, std::vector<uintptr_t>> addressPatterns(size_t count,
                                                              unsigned log2) {
  std::map<std::string, std::vector<uintptr_t>> patterns;
  patterns["dense run"] = denseRun(count, 0x555500001230, 1);
  patterns["every tenth of a dense run"] =
      denseRun(count, 0x555500001230, 2, /*every=*/10);
  for (unsigned arenas : {2u, 8u}) {
    std::vector<uintptr_t> &all =
        patterns["dense runs in " + std::to_string(arenas) + " arenas"];
    for (unsigned a = 0; a < arenas; ++a) {
      std::vector<uintptr_t> run = denseRun(
          count / arenas, 0x7f0000000040 + a * (uintptr_t(64) << 20), 10 + a);
      all.insert(all.end(), run.begin(), run.end());
    }
  }
  std::vector<uintptr_t> first = denseRun(count / 2, 0x555500000000, 3);
  std::vector<uintptr_t> second =
      denseRun(count / 2, 0x555500000000 + (uintptr_t(1) << 30), 4);
  first.insert(first.end(), second.begin(), second.end());
  patterns["two runs 1 GiB apart"] = first;
  std::mt19937_64 random(5);
  std::set<uintptr_t> seen;
  std::vector<uintptr_t> &spread = patterns["random"];
  while (spread.size() < count) {
    uintptr_t address =
        (random() & ((uintptr_t(1) << 47) - 1)) & ~uintptr_t(63);
    if (seen.insert(address).second)
      spread.push_back(address);
  }
  for (size_t i = 0; i < count; ++i) {
    patterns["4 KiB apart"].push_back(0x555500000000 + i * 4096);
    patterns["1 MiB apart"].push_back(0x555500000000 + (i << 20));
    // Windows a table span apart (the same start in a table of 2^log2).
    patterns["windows a table span apart"].push_back(
        0x555500000000 + (i << (log2 + 9)) + (i % 8) * 64);
    patterns["one op per table-sized block"].push_back(0x555500000000 +
                                                       (i << (log2 + 6)));
  }
  return patterns;
}

/// The locality-preserving home keeps probes as short as a mixing hash
/// would, dense or not: a table filled to its 7/8 limit with each pattern.
TEST(AddressMapTest, ProbesStayShortForEveryAddressPattern) {
  constexpr unsigned kLog2 = 15;
  // Just below the growth limit of 2^15 slots (less the lanes' slack).
  constexpr size_t kKeys =
      AddressMap::maxEntries(kLog2) - kNumLanes * size_t(AddressMap::kFoldAt);
  for (auto &[name, addresses] : addressPatterns(kKeys, kLog2)) {
    SCOPED_TRACE(name);
    RecordPool pool(nullptr);
    AddressMap map(pool);
    map.reserve(kKeys);
    ASSERT_EQ(map.capacity(), size_t(1) << kLog2);
    std::vector<HandleRecord *> records;
    for (uintptr_t address : addresses) {
      HandleRecord *record = pool.allocate();
      record->op = reinterpret_cast<Operation *>(address);
      map.insert(record);
      records.push_back(record);
    }
    AddressMap::ProbeLengths lengths = map.getProbeLengths();
    EXPECT_EQ(lengths.entries, addresses.size());
    // Linear probing with a uniform hash at 7/8: about 3.5 on average (1.5
    // at 3/4), and (at this size) a longest probe of 60-90. Measured at 7/8:
    // 3.1 (longest 24) for random addresses, 3.3 (17) for dense runs in 8
    // arenas (64 MiB apart, whose windows' evenly spread starts overlay),
    // about 1 (7) for one dense run.
    EXPECT_LT(lengths.mean(), 4.5) << "max " << lengths.max;
    EXPECT_LT(lengths.max, 160u) << "mean " << lengths.mean();
    // Dense runs: no entry so far that lookups passing it read records.
    if (name.find("dense run") == 0 || name.find("dense runs") == 0 ||
        name.find("two runs") == 0)
      EXPECT_LT(lengths.max, size_t(AddressMap::kFarDistance))
          << "mean " << lengths.mean();
    for (HandleRecord *record : records)
      ASSERT_EQ(map.lookup(record->op), record);
    EXPECT_TRUE(map.isInRobinHoodOrder());
    // Erasing every other entry (backward shifts) keeps every key found.
    for (size_t i = 0; i < records.size(); i += 2)
      ASSERT_TRUE(map.erase(records[i]));
    EXPECT_TRUE(map.isInRobinHoodOrder());
    for (size_t i = 0; i < records.size(); ++i)
      ASSERT_EQ(map.lookup(records[i]->op), i % 2 ? records[i] : nullptr);
    // Inserting them again in reverse order (each displacing entries
    // nearer their homes) finds every key.
    for (size_t i = records.size(); i-- > 0;)
      if (i % 2 == 0)
        map.insert(records[i]);
    EXPECT_TRUE(map.isInRobinHoodOrder());
    for (HandleRecord *record : records)
      ASSERT_EQ(map.lookup(record->op), record);
  }
}

/// Ops allocated one after another take homes on the same lines of the
/// table: a pass visiting them in order touches a line per few ops, not
/// one per op (a mixing hash gives a new line for nearly every op).
TEST(AddressMapTest, NeighbouringOpsShareLinesOfTheTable) {
  constexpr unsigned kLog2 = 21;
  std::vector<uintptr_t> run = denseRun(4000, 0x555500001230, 9);
  size_t lineChanges = 0, lastLine = ~size_t(0);
  for (uintptr_t address : run) {
    // 16 four-byte slots per 64-byte line.
    size_t line =
        AddressMap::homeOf(reinterpret_cast<void *>(address), kLog2) / 16;
    lineChanges += line != lastLine;
    lastLine = line;
  }
  // Ops 64-176 bytes apart: about 4.5 per 512-byte window.
  EXPECT_LT(lineChanges, run.size() * 4 / 10);
  // Neighbouring 64-byte blocks of one window take neighbouring slots.
  uintptr_t window = 0x555500000000;
  size_t home = AddressMap::homeOf(reinterpret_cast<void *>(window), kLog2);
  for (uintptr_t block = 1; block < 8; ++block)
    EXPECT_EQ(AddressMap::homeOf(reinterpret_cast<void *>(window + block * 64),
                                 kLog2),
              (home + block) & ((size_t(1) << kLog2) - 1));
}

/// The filter's index keeps neighbouring ops together: a run of ops holding
/// every tenth one tracked gives no false positive for the others while the
/// run fits the filter.
TEST(OpFilterTest, DenseRunOfOpsHasNoFalsePositives) {
  OpFilter filter(/*log2Bits=*/16);
  // Ops 80 bytes apart (the smallest op allocation is larger than 64).
  auto op = [](uintptr_t i) {
    return reinterpret_cast<const void *>(uintptr_t(0x7f0000001230) + i * 80);
  };
  for (uintptr_t i = 0; i < 40000; i += 10)
    filter.set(op(i));
  size_t falsePositives = 0;
  for (uintptr_t i = 0; i < 40000; ++i) {
    if (i % 10 == 0)
      EXPECT_TRUE(filter.test(op(i)));
    else
      falsePositives += filter.test(op(i));
  }
  EXPECT_EQ(falsePositives, 0u);
}

/// Ops a multiple of the filter's span apart (blocks of arenas, say) do not
/// pile up on one bit: the false positive rate stays near the share of bits
/// set.
TEST(OpFilterTest, AddressesASpanApartSpreadOut) {
  constexpr unsigned kLog2Bits = 12;
  OpFilter filter(kLog2Bits);
  constexpr uintptr_t kSpan = (uintptr_t(1) << kLog2Bits) * 64;
  auto op = [&](uintptr_t i) {
    return reinterpret_cast<const void *>(uintptr_t(0x7f0000000000) +
                                          i * kSpan);
  };
  // 256 keys in 4096 bits: about 6% of the bits set.
  for (uintptr_t i = 0; i < 256; ++i)
    filter.set(op(i));
  size_t falsePositives = 0;
  for (uintptr_t i = 256; i < 4352; ++i)
    falsePositives += filter.test(op(i));
  EXPECT_LT(falsePositives, 4096u / 8) << "keys piled up";
  // The same for ops packed in one span but sharing no block.
  std::mt19937_64 random(3);
  falsePositives = 0;
  for (int i = 0; i < 4096; ++i)
    falsePositives += filter.test(reinterpret_cast<const void *>(
        uintptr_t(0x7f0000000000) + (random() % (kSpan * 512)) / 64 * 64 +
        kSpan * 1024));
  EXPECT_LT(falsePositives, 4096u / 8);
}

/// A retired filter answers "may be a key" for every address (a reader on
/// another thread may still be testing it: it takes the locked path), and
/// its pages are given back: none of them is resident any more.
TEST(OpFilterTest, RetiredFilterAnswersMayBeAKeyAndHoldsNoPages) {
  auto op = [](uintptr_t i) {
    return reinterpret_cast<const void *>(uintptr_t(0x7f0000001000) + i * 80);
  };
  // 2^18 bits: 32 KiB, mapped on its own.
  OpFilter filter(/*log2Bits=*/18);
  ASSERT_EQ(filter.getMappedBytes(), size_t(32) << 10);
  for (uintptr_t i = 0; i < 1000; i += 10)
    filter.set(op(i));
  size_t keys = 0, others = 0;
  for (uintptr_t i = 0; i < 1000; ++i)
    (i % 10 ? others : keys) += filter.test(op(i));
  EXPECT_EQ(keys, 100u);
  EXPECT_EQ(others, 0u);
  long page = ::sysconf(_SC_PAGESIZE);
  size_t pages = filter.getMappedBytes() / size_t(page);
  size_t size = filter.getMappedBytes();
  auto residentPages = [&] {
    std::vector<unsigned char> resident(pages);
    EXPECT_EQ(
        ::mincore(const_cast<void *>(filter.getWords()), size, resident.data()),
        0);
    return size_t(
        llvm::count_if(resident, [](unsigned char bit) { return bit & 1; }));
  };
  EXPECT_EQ(residentPages(), pages);
  filter.retire();
  EXPECT_TRUE(filter.isRetired());
  EXPECT_EQ(filter.getMappedBytes(), 0u);
  // No page resident (`residentPages` reads the old size).
  EXPECT_EQ(residentPages(), 0u);
  // Reading the retired words maps the kernel's shared zero page.
  for (uintptr_t i = 0; i < 1000; ++i)
    EXPECT_TRUE(filter.test(op(i))) << i;
  // A small filter is allocated, not mapped: retiring it changes nothing.
  OpFilter small(/*log2Bits=*/12);
  EXPECT_EQ(small.getMappedBytes(), 0u);
  small.set(op(3));
  small.retire();
  EXPECT_FALSE(small.isRetired());
  EXPECT_TRUE(small.test(op(3)));
  EXPECT_FALSE(small.test(op(4)));
}

TEST(HistoryPoolTest, BlocksOfEveryClassAreDisjointAndReused) {
  HistoryPool pool(/*itemBytes=*/40, /*fullHeaderBytes=*/8);
  std::vector<HistoryPool::Id> ids;
  std::set<HistoryPool::Id> distinct;
  // Enough blocks of each class for several chunks.
  for (unsigned sizeClass = 0; sizeClass < HistoryPool::kNumClasses;
       ++sizeClass) {
    for (int i = 0; i < 1200; ++i) {
      HistoryPool::Id id = pool.allocate(sizeClass);
      ASSERT_NE(id, 0u);
      EXPECT_EQ(HistoryPool::classOf(id), sizeClass);
      EXPECT_EQ(HistoryPool::capacityOf(id), 1u << sizeClass);
      EXPECT_EQ(uintptr_t(pool.get(id)) % 8, 0u);
      EXPECT_TRUE(distinct.insert(id).second);
      // Fill the whole block with a byte of its own.
      std::memset(pool.get(id), int(ids.size() % 251),
                  pool.blockBytes(sizeClass));
      ids.push_back(id);
    }
  }
  // No block overlapped another: each still holds its own byte.
  for (size_t i = 0; i < ids.size(); ++i) {
    auto *bytes = static_cast<unsigned char *>(pool.get(ids[i]));
    size_t size = pool.blockBytes(HistoryPool::classOf(ids[i]));
    for (size_t b = 0; b < size; ++b)
      ASSERT_EQ(bytes[b], i % 251) << "block " << i << " byte " << b;
  }
  // Freed blocks are handed out again before new chunks are taken.
  size_t bytes = pool.getAllocatedBytes();
  for (HistoryPool::Id id : ids)
    pool.free(id);
  std::set<HistoryPool::Id> again;
  for (unsigned sizeClass = 0; sizeClass < HistoryPool::kNumClasses;
       ++sizeClass)
    for (int i = 0; i < 1200; ++i)
      again.insert(pool.allocate(sizeClass));
  EXPECT_EQ(again, distinct);
  EXPECT_EQ(pool.getAllocatedBytes(), bytes);
}

/// Each lane has blocks of its own: an id names its lane, blocks of
/// different lanes never overlap, and a freed block goes back to its own
/// lane (another lane takes a fresh one rather than it).
TEST(HistoryPoolTest, LanesKeepTheirBlocksApart) {
  HistoryPool pool(/*itemBytes=*/40, /*fullHeaderBytes=*/8);
  std::vector<HistoryPool::Id> ids;
  for (unsigned lane = 0; lane < kNumLanes; ++lane) {
    for (unsigned sizeClass = 0; sizeClass < HistoryPool::kNumClasses;
         ++sizeClass) {
      for (int i = 0; i < 40; ++i) {
        HistoryPool::Id id = pool.allocate(sizeClass, lane);
        EXPECT_EQ(HistoryPool::laneOf(id), lane);
        EXPECT_EQ(HistoryPool::classOf(id), sizeClass);
        std::memset(pool.get(id), int(ids.size() % 251),
                    pool.blockBytes(sizeClass));
        ids.push_back(id);
      }
    }
  }
  EXPECT_EQ(std::set<HistoryPool::Id>(ids.begin(), ids.end()).size(),
            ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    auto *bytes = static_cast<unsigned char *>(pool.get(ids[i]));
    size_t size = pool.blockBytes(HistoryPool::classOf(ids[i]));
    for (size_t b = 0; b < size; ++b)
      ASSERT_EQ(bytes[b], i % 251) << "block " << i << " byte " << b;
  }

  HistoryPool::Id freed = pool.allocate(0, 3);
  pool.free(freed);
  HistoryPool::Id other = pool.allocate(0, 5);
  EXPECT_NE(other, freed);
  EXPECT_EQ(HistoryPool::laneOf(other), 5u);
  EXPECT_EQ(pool.allocate(0, 3), freed);
}

/// A lane that may carve no more blocks of a class lends the next lanes'
/// (with a limit of 64 ids per lane and class, three chunks of 16 blocks of
/// the largest class are carved per lane): no block is handed out twice, and
/// freed blocks go back to the lane they came from.
/// The single-item fast path hands out the same blocks as `allocate(0)`:
/// carved in order, across chunks, then reused from the free list, each
/// with the memory `get` gives; and once the lane may carve no more, the
/// next lane lends one.
TEST(HistoryPoolTest, SingleBlocksMatchClassZero) {
  HistoryPool pool(/*itemBytes=*/40, /*fullHeaderBytes=*/8,
                   ActiveLane::standalone(), /*blocksPerLaneAndClass=*/2048);
  std::vector<HistoryPool::Id> ids;
  std::set<HistoryPool::Id> distinct;
  // Alternating with allocate(0), over three chunks of 512 blocks.
  for (int i = 0; i < 1500; ++i) {
    void *memory = nullptr;
    HistoryPool::Id id =
        i % 3 == 2 ? pool.allocate(0) : pool.allocateSingle(memory);
    if (i % 3 == 2)
      memory = pool.get(id);
    ASSERT_NE(id, 0u);
    EXPECT_EQ(HistoryPool::classOf(id), 0u);
    EXPECT_EQ(HistoryPool::laneOf(id), 0u);
    EXPECT_EQ(memory, pool.get(id));
    EXPECT_TRUE(distinct.insert(id).second);
    std::memset(memory, int(i % 251), 40);
    ids.push_back(id);
  }
  for (size_t i = 0; i < ids.size(); ++i)
    ASSERT_EQ(*static_cast<unsigned char *>(pool.get(ids[i])), i % 251);
  // Freed blocks come back, newest first, with their memory.
  size_t bytes = pool.getAllocatedBytes();
  for (size_t i = 0; i < ids.size(); i += 2)
    pool.free(ids[i]);
  for (size_t i = ids.size(); i-- > 0;) {
    if (i % 2)
      continue;
    void *memory = nullptr;
    HistoryPool::Id id = pool.allocateSingle(memory);
    EXPECT_EQ(id, ids[i]);
    EXPECT_EQ(memory, pool.get(id));
  }
  EXPECT_EQ(pool.getAllocatedBytes(), bytes);
  // A lane carves chunks of 512 blocks of class 0 while every index + 1
  // stays below 2048: three chunks and no fourth, so the 1537th block comes
  // from lane 1.
  for (int i = 1500; i < 1536; ++i) {
    void *memory = nullptr;
    EXPECT_EQ(HistoryPool::laneOf(pool.allocateSingle(memory)), 0u);
  }
  void *memory = nullptr;
  HistoryPool::Id lent = pool.allocateSingle(memory);
  EXPECT_EQ(HistoryPool::laneOf(lent), 1u);
  EXPECT_EQ(memory, pool.get(lent));
}

TEST(HistoryPoolTest, ExhaustedLaneLendsTheNext) {
  HistoryPool pool(/*itemBytes=*/40, /*fullHeaderBytes=*/8,
                   ActiveLane::standalone(), /*blocksPerLaneAndClass=*/64);
  unsigned full = HistoryPool::kNumClasses - 1;
  constexpr unsigned kPerLane = 48;
  std::vector<HistoryPool::Id> ids;
  for (unsigned i = 0; i < kPerLane * kNumLanes; ++i) {
    HistoryPool::Id id = pool.allocate(full, /*lane=*/2);
    EXPECT_EQ(HistoryPool::laneOf(id), (2 + i / kPerLane) % kNumLanes);
    std::memset(pool.get(id), int(i % 251), pool.blockBytes(full));
    ids.push_back(id);
  }
  EXPECT_EQ(std::set<HistoryPool::Id>(ids.begin(), ids.end()).size(),
            ids.size());
  for (size_t i = 0; i < ids.size(); ++i)
    ASSERT_EQ(*static_cast<unsigned char *>(pool.get(ids[i])), i % 251);
  // Lane 2 has nothing left: a block freed to lane 5 is what it gets.
  HistoryPool::Id freed = ids[kPerLane * 3 + 7];
  ASSERT_EQ(HistoryPool::laneOf(freed), 5u);
  pool.free(freed);
  EXPECT_EQ(pool.allocate(full, 2), freed);
}

/// Threads get lanes of their own (the first kNumLanes of them), and
/// allocate from them.
TEST(HistoryPoolTest, EachThreadAllocatesFromItsLane) {
  // As in a registry: each thread that takes the lock enters its lane.
  ActiveLane lane;
  HistoryPool pool(/*itemBytes=*/40, /*fullHeaderBytes=*/8, lane);
  std::mutex mutex;
  constexpr unsigned kThreads = 4;
  static_assert(kThreads <= kNumLanes, "as many lanes as threads");
  std::vector<unsigned> threadLanes(kThreads);
  std::vector<std::vector<HistoryPool::Id>> blocks(kThreads);
  std::vector<std::thread> threads;
  // One after the other: each thread is given its lane before the next
  // starts.
  for (unsigned t = 0; t < kThreads; ++t) {
    std::thread([&, t] {
      threadLanes[t] = currentLane();
      EXPECT_EQ(currentLane(), threadLanes[t]) << "a thread's lane is fixed";
    }).join();
  }
  EXPECT_EQ(std::set<unsigned>(threadLanes.begin(), threadLanes.end()).size(),
            size_t(kThreads));
  for (unsigned t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 1000; ++i) {
        std::lock_guard<std::mutex> lock(mutex);
        lane.enter();
        HistoryPool::Id id = pool.allocate(unsigned(i % 3));
        EXPECT_EQ(HistoryPool::laneOf(id), currentLane());
        blocks[t].push_back(id);
        // Every other block goes back (from whichever thread).
        if (i % 2 && !blocks[(t + 1) % kThreads].empty()) {
          pool.free(blocks[(t + 1) % kThreads].back());
          blocks[(t + 1) % kThreads].pop_back();
        }
      }
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  std::set<HistoryPool::Id> held;
  for (const auto &ofThread : blocks)
    for (HistoryPool::Id id : ofThread)
      EXPECT_TRUE(held.insert(id).second) << "a block handed out twice";
}

/// A large table counts entries per lane: threads inserting and erasing
/// (under one lock, as in a registry), each erasing entries others made,
/// keep the count exact and the table at most 7/8 full at every step.
TEST(AddressMapTest, LaneCountsStayExactAcrossThreads) {
  RecordPool pool(nullptr);
  ActiveLane lane;
  AddressMap map(pool, lane);
  // A table counted per lane from the start, room for everything reserved.
  map.reserve(AddressMap::kLaneCountedCapacity);
  ASSERT_GE(map.capacity(), AddressMap::kLaneCountedCapacity);
  size_t capacity = map.capacity();
  std::mutex mutex;
  std::vector<HandleRecord *> live;
  std::atomic<int> problems{0};
  constexpr int kThreads = 4;
  constexpr int kSteps = 3000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 random(t);
      for (int step = 0; step < kSteps; ++step) {
        std::lock_guard<std::mutex> lock(mutex);
        lane.enter();
        if (live.empty() || random() % 3) {
          HandleRecord *record = pool.allocate();
          record->op = fakeOp(uintptr_t(t) * kSteps + step);
          map.insert(record);
          live.push_back(record);
        } else {
          size_t i = random() % live.size();
          if (!map.erase(live[i]))
            ++problems;
          pool.free(live[i]);
          live[i] = live.back();
          live.pop_back();
        }
        if (map.size() != live.size() || map.size() * 8 > map.capacity() * 7)
          ++problems;
        // The shared count is off by at most what the lanes hold.
        if (map.approximateSize() + kNumLanes * (AddressMap::kFoldAt - 1) <
                live.size() ||
            map.approximateSize() >
                live.size() + kNumLanes * (AddressMap::kFoldAt - 1))
          ++problems;
      }
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(problems.load(), 0);
  // The reservation held: no growth.
  EXPECT_EQ(map.capacity(), capacity);
  std::map<Operation *, HandleRecord *> expected;
  for (HandleRecord *record : live)
    expected[record->op] = record;
  expectSame(map, expected);
  for (HandleRecord *record : live)
    EXPECT_TRUE(map.erase(record));
  EXPECT_TRUE(map.empty());
  EXPECT_EQ(map.lookup(fakeOp(1)), nullptr);
}

/// A table that becomes large enough to count per lane carries its count
/// over, and `clear` forgets every lane's.
TEST(AddressMapTest, CountSurvivesGrowingIntoLanesAndClear) {
  RecordPool pool(nullptr);
  ActiveLane lane;
  AddressMap map(pool, lane);
  lane.enter();
  std::vector<HandleRecord *> records;
  size_t wanted = AddressMap::kLaneCountedCapacity;
  for (size_t i = 0; i < wanted; ++i) {
    HandleRecord *record = pool.allocate();
    record->op = fakeOp(i);
    map.insert(record);
    records.push_back(record);
    // Now and then another thread (another lane) erases the entry before.
    if (i % 1000 < 20 && records.size() >= 2) {
      HandleRecord *gone = records[records.size() - 2];
      std::thread([&] {
        lane.enter();
        EXPECT_TRUE(map.erase(gone));
      }).join();
      lane.enter();
      records[records.size() - 2] = records.back();
      records.pop_back();
    }
    ASSERT_EQ(map.size(), records.size());
    ASSERT_LE(map.size() * 8, map.capacity() * 7);
  }
  EXPECT_GE(map.capacity(), AddressMap::kLaneCountedCapacity);
  EXPECT_EQ(map.size(), records.size());
  map.clear();
  EXPECT_TRUE(map.empty());
  EXPECT_EQ(map.approximateSize(), 0u);
  EXPECT_EQ(map.lookup(records.front()->op), nullptr);
}

TEST(EventLogTest, HistoriesGrowThroughTheClassesAndKeepTheNewest) {
  RecordPool records(nullptr);
  EventLog log;
  HandleRecord *record = records.allocate();
  HandleRecord *other = records.allocate();
  EventSource source;
  source.pass = "p";
  for (uint32_t i = 0; i < 40; ++i) {
    CompactEvent event =
        log.makeEvent(TrackingEvent::Kind::Erased, /*name=*/0, /*loc=*/nullptr,
                      source, "r" + std::to_string(i));
    event.recordIndex = i;
    log.appendEvent(record, event);
    // Another record's history grows in between, in the same pool.
    log.appendEvent(other, event);
    ArrayRef<CompactEvent> events = log.eventsOf(record);
    ASSERT_EQ(events.size(), std::min<uint32_t>(i + 1, EventLog::kMaxHistory));
    EXPECT_EQ(log.historyEnd(record), i + 1);
    // Oldest first, the newest last, none lost while moving between blocks.
    for (size_t k = 0; k < events.size(); ++k)
      EXPECT_EQ(events[k].recordIndex, i + 1 - events.size() + k);
    EXPECT_EQ(log.expand(events.back(), nullptr).reason,
              "r" + std::to_string(i));
    EXPECT_EQ(log.expand(events.back(), nullptr).pass, "p");
  }
  // Events of `other` from absolute index 35 on: the last five.
  HandleRecord *copy = records.allocate();
  log.appendHistory(copy, other, 35);
  ASSERT_EQ(log.eventsOf(copy).size(), 5u);
  EXPECT_EQ(log.eventsOf(copy).front().recordIndex, 35u);
  for (HandleRecord *held : {record, other, copy}) {
    log.freeHistory(held);
    EXPECT_TRUE(log.eventsOf(held).empty());
    records.free(held);
  }
}

/// A registry that sees more distinct op names than a record's name id
/// holds (a generator of unique unregistered ops) keeps going: the last id
/// stands for every later name, with a text that says so. It aborted the
/// process before.
TEST(EventLogTest, NamesPastTheTableShareTheLastId) {
  EventLog log;
  constexpr uint32_t kLastId = (1u << EventLog::kNameIdBits) - 1;
  // Names are only hashed until read: any distinct addresses will do.
  static const char names[kLastId + 3] = {};
  for (uint32_t i = 0; i < kLastId - 1; ++i)
    ASSERT_EQ(log.nameId(&names[i]), i + 1);
  EXPECT_EQ(log.nameId(&names[kLastId]), kLastId);
  EXPECT_EQ(log.nameId(&names[kLastId + 1]), kLastId);
  EXPECT_EQ(log.nameId(&names[kLastId]), kLastId);
  // Names seen before still get their own ids.
  EXPECT_EQ(log.nameId(&names[5]), 6u);
  EXPECT_EQ(log.nameText({log.nameOf(kLastId), nullptr}),
            "(an op name not recorded: more than 2097151 distinct names in "
            "this registry)");
}

/// Each pass execution gets a source of its own, its anchor kept as parts
/// of the context, and its causes kept in the lane rather than in a hash
/// table: a cause must still get one id however the events of a source
/// interleave with another's, and the anchor must read the same after the
/// log froze it to text and the context is gone.
TEST(EventLogTest, SourcesAndCausesStayOneIdPerKind) {
  EventLog log;
  auto context = std::make_unique<MLIRContext>();
  context->allowUnregisteredDialects();
  auto makeSource = [&](StringRef pass, StringRef symbol) {
    EventSource source;
    source.pass = pass.str();
    source.passKey = &log;
    source.anchorKey = context.get();
    source.anchorName =
        OperationName("test.anchor", context.get()).getAsOpaquePointer();
    source.anchorSymbol =
        StringAttr::get(context.get(), symbol).getAsOpaquePointer();
    return source;
  };
  EventSource first = makeSource("canonicalize", "f");
  EventSource second = makeSource("cse", "g");
  // More reasons than the lane keeps recent or fresh causes.
  constexpr unsigned kReasons = EventLog::kMaxHistory + 8;
  auto causesOf = [&](const EventSource &source, unsigned reasons) {
    std::vector<uint32_t> causes;
    for (unsigned i = 0; i < reasons; ++i)
      causes.push_back(log.makeEvent(TrackingEvent::Kind::Erased, 0, nullptr,
                                     source, "r" + std::to_string(i))
                           .cause);
    return causes;
  };
  // More than the recent causes, fewer than the fresh ones.
  std::vector<uint32_t> fewCauses = causesOf(first, 8);
  EXPECT_EQ(fewCauses, causesOf(first, 8));
  std::vector<uint32_t> firstCauses = causesOf(first, kReasons);
  EXPECT_TRUE(
      std::equal(fewCauses.begin(), fewCauses.end(), firstCauses.begin()));
  EXPECT_EQ(firstCauses, causesOf(first, kReasons));
  std::vector<uint32_t> secondCauses = causesOf(second, kReasons);
  // Back to a source the lane has moved on from: its causes may be copied
  // once into the table, not once per event.
  std::vector<uint32_t> firstAgain = causesOf(first, kReasons);
  EXPECT_EQ(firstAgain, causesOf(first, kReasons));
  EXPECT_EQ(secondCauses, causesOf(second, kReasons));
  // The same source built anew (the next run of a pipeline on the same IR)
  // is the same source, with the same causes.
  EventSource firstRebuilt = makeSource("canonicalize", "f");
  EXPECT_EQ(causesOf(firstRebuilt, kReasons), firstAgain);
  EventSource secondRebuilt = makeSource("cse", "g");
  EXPECT_EQ(causesOf(secondRebuilt, kReasons), secondCauses);
  std::set<uint32_t> distinct(firstCauses.begin(), firstCauses.end());
  distinct.insert(secondCauses.begin(), secondCauses.end());
  EXPECT_EQ(distinct.size(), 2 * kReasons);

  CompactEvent event =
      log.makeEvent(TrackingEvent::Kind::Erased, 0, nullptr, second, "r1");
  TrackingEvent live = log.expand(event, nullptr);
  EXPECT_EQ(live.pass, "cse");
  EXPECT_EQ(live.anchor, "test.anchor @g");
  EXPECT_EQ(live.reason, "r1");
  EXPECT_EQ(log.expand(CompactEvent(), nullptr).anchor, "");
  EventLog::Freezer(log).finish();
  context.reset();
  TrackingEvent frozen = log.expand(event, nullptr);
  EXPECT_EQ(frozen.anchor, live.anchor);
  EXPECT_EQ(frozen.pass, live.pass);
  EXPECT_EQ(log.expand(CompactEvent{}, nullptr).anchor, "");
}

/// Ids found by hash must be told apart by their keys: ids that share a
/// hash (or a home slot) are each found, through growth, and a key never
/// added is not found even among its hash's ids.
TEST(IdTableTest, FindsEachIdAmongSharedHashesThroughGrowth) {
  std::vector<uint64_t> keys = {0};
  IdTable table;
  auto hashOf = [](uint64_t key) { return uint32_t(key % 7); };
  auto find = [&](uint64_t key) {
    return table.find(hashOf(key),
                      [&](uint32_t id) { return keys[id] == key; });
  };
  EXPECT_EQ(find(5), 0u);
  for (uint64_t key = 1; key <= 1000; ++key) {
    keys.push_back(key * 3);
    table.insert(hashOf(key * 3), uint32_t(keys.size() - 1));
  }
  EXPECT_EQ(table.size(), 1000u);
  for (uint32_t id = 1; id < keys.size(); ++id)
    EXPECT_EQ(find(keys[id]), id);
  // Multiples of 3 only: none of these was added, yet each shares a hash.
  for (uint64_t key : {1ull, 2ull, 3001ull, 3003ull})
    EXPECT_EQ(find(key), 0u);
  table.clear();
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(find(3), 0u);
}

/// Threads that meet on the lock all the time (spinning, then parking) never
/// overlap in a critical section, and none of their increments is lost.
TEST(RegistryMutexTest, ExcludesUnderContention) {
  RegistryMutex mutex;
  // Plain integers: an overlap loses increments or breaks the invariant.
  uint64_t counter = 0, twice = 0;
  std::atomic<int> inside{0}, overlaps{0};
  constexpr int kThreads = 4;
  constexpr int kIterations = 50000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kIterations; ++i) {
        // Every other thread also tries its luck without blocking.
        std::unique_lock<RegistryMutex> lock(mutex, std::defer_lock);
        if (t % 2 == 0 || !lock.try_lock())
          lock.lock();
        if (inside.fetch_add(1) != 0)
          ++overlaps;
        if (twice != 2 * counter)
          ++overlaps;
        ++counter;
        twice += 2;
        inside.fetch_sub(1);
      }
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_EQ(counter, uint64_t(kThreads) * kIterations);
  EXPECT_EQ(twice, 2 * counter);
}

/// `try_lock` fails while another thread holds the lock, and succeeds once it
/// is released; a thread blocked in `lock` (past its spinning) gets it then.
TEST(RegistryMutexTest, TryLockAndBlockedLock) {
  RegistryMutex mutex;
  mutex.lock();
  bool acquired = true;
  std::thread([&] {
    acquired = mutex.try_lock();
    if (acquired)
      mutex.unlock();
  }).join();
  EXPECT_FALSE(acquired);

  std::atomic<bool> waiterIn{false};
  std::thread waiter([&] {
    std::lock_guard<RegistryMutex> lock(mutex);
    waiterIn = true;
  });
  // The waiter cannot get in while the lock is held, however long it waits.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(waiterIn.load());
  mutex.unlock();
  waiter.join();
  EXPECT_TRUE(waiterIn.load());
  ASSERT_TRUE(mutex.try_lock());
  mutex.unlock();
}

} // namespace
