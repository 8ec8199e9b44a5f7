//===- RegistryStructuresTest.cpp - The registry's private structures -----===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// The containers a HandleRegistry is built of, tested on their own with
// made-up keys: the address map, compared against a std::map under growth,
// deletion and reuse of pooled records.
//
//===----------------------------------------------------------------------===//

#include "AddressMap.h"
#include "HandleRecords.h"

#include "gtest/gtest.h"

#include <map>
#include <random>

using namespace mlir;
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

TEST(AddressMapTest, GrowsAndStaysAtMostThreeQuartersFull) {
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
    EXPECT_LE(map.size() * 4, map.capacity() * 3);
  }
  expectSame(map, expected);
  // Keys never inserted are not found, whatever slot they hash to.
  for (uintptr_t i = 20000; i < 21000; ++i)
    EXPECT_EQ(map.lookup(fakeOp(i)), nullptr);
  // A handle costs 4 bytes per slot: at most 4 / (3/8) bytes per entry.
  EXPECT_LE(map.capacity() * 4, map.size() * 11);
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
      EXPECT_TRUE(map.erase(record));
      // Erasing twice finds nothing.
      EXPECT_FALSE(map.erase(record));
      expected.erase(it);
      pool.free(record);
    }
    if (step % 997 == 0)
      expectSame(map, expected);
  }
  expectSame(map, expected);
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

} // namespace
