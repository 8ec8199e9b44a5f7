//===- AddressMap.cpp - The record of each tracked op ---------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "AddressMap.h"
#include "HotPath.h"

#include "llvm/Support/ErrorHandling.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::tracking::detail;

void AddressMap::reserve(size_t wanted) {
  unsigned log2 = slots ? log2Capacity : 4;
  while (wanted > maxEntries(log2))
    ++log2;
  // A table counted per lane grows early by the lanes' unfolded counts:
  // leave room for them too, so that the inserts reserved for never grow it.
  while (wanted + unfoldedSlack(log2) > maxEntries(log2))
    ++log2;
  if (!slots || log2 > log2Capacity)
    rehash(log2);
}

MLIR_TRACKING_PINNED_SECTION_START(address_map)

MLIR_TRACKING_PINNED(address_map)
void AddressMap::place(uint32_t id, size_t start) {
  size_t i = start;
  for (size_t distance = 0;; i = (i + 1) & mask, ++distance) {
    uint32_t slot = slots[i];
    if (!slot) {
      slots[i] = makeSlot(id, distance);
      return;
    }
    // Entries as far from their homes as `id` is, or farther, stay. A
    // saturated distance is read from the record only when `id` is farther
    // than a slot stores.
    uint32_t stored = slot >> kIdBits;
    if (stored >= distance)
      continue;
    size_t theirs = stored;
    if (stored == kFarDistance && (theirs = distanceOf(slot, i)) >= distance)
      continue;
    // The entry here is nearer its home: `id` takes its place, and the
    // entry moves on from here.
    slots[i] = makeSlot(id, distance);
    id = slot & kIdMask;
    distance = theirs;
  }
}

MLIR_TRACKING_PINNED(address_map)
void AddressMap::insert(HandleRecord *record) {
  // Grows while the lanes' unfolded inserts could still fit (the count read
  // is the shared one, which only folding writes).
  if (folded >= growAt)
    rehash(slots ? log2Capacity + 1 : 4);
  uint32_t id = pool.idOf(record);
  if (id > kIdMask)
    llvm::report_fatal_error("mlir-tracking: too many handle records in one "
                             "registry (ids of at most 27 bits)");
  place(id, home(record->op));
  count(+1);
}

MLIR_TRACKING_PINNED(address_map) bool AddressMap::erase(HandleRecord *record) {
  if (!slots)
    return false;
  uint32_t id = pool.idOf(record);
  size_t i = home(record->op);
  while ((slots[i] & kIdMask) != id) {
    if (!slots[i])
      return false;
    i = (i + 1) & mask;
  }
  removeAt(i);
  return true;
}

uint32_t *AddressMap::allocateSlots(size_t count) {
  if (arena)
    return static_cast<uint32_t *>(arena->allocateTable(count * 4));
  auto *table = static_cast<uint32_t *>(std::calloc(count, 4));
  if (!table)
    llvm::report_bad_alloc_error("mlir-tracking: address map");
  return table;
}

void AddressMap::freeSlots(uint32_t *table) {
  if (arena)
    arena->freeTable(table);
  else
    std::free(table);
}

void AddressMap::clear() {
  freeSlots(slots);
  slots = nullptr;
  mask = 0;
  log2Capacity = 0;
  homeShift = 63;
  folded = 0;
  growAt = 0;
  laneCounted = false;
  for (CountLane &lane : lanes)
    lane.pending = 0;
}

void AddressMap::forEach(llvm::function_ref<void(HandleRecord *)> fn) const {
  if (!slots)
    return;
  for (size_t i = 0; i <= mask; ++i)
    if (uint32_t slot = slots[i])
      fn(pool.recordOfId(slot & kIdMask));
}

AddressMap::ProbeLengths AddressMap::getProbeLengths() const {
  ProbeLengths lengths;
  for (size_t i = 0; slots && i <= mask; ++i) {
    if (!slots[i])
      continue;
    size_t distance = distanceOf(slots[i], i);
    ++lengths.entries;
    lengths.total += distance;
    lengths.max = std::max(lengths.max, distance);
  }
  return lengths;
}

bool AddressMap::isInRobinHoodOrder() const {
  for (size_t i = 0; slots && i <= mask; ++i) {
    size_t next = (i + 1) & mask;
    if (!slots[next])
      continue;
    // The entry after another is at most one step farther from its home;
    // after an empty slot, at its home.
    size_t limit = slots[i] ? distanceOf(slots[i], i) + 1 : 0;
    if (distanceOf(slots[next], next) > limit)
      return false;
  }
  return true;
}

void AddressMap::rehash(unsigned newLog2Capacity) {
  uint32_t *old = slots;
  size_t oldCapacity = old ? mask + 1 : 0;
  // A table counted per lane stays so (it never shrinks); one that becomes
  // so starts with every count folded.
  size_t entries = size();
  for (CountLane &lane : lanes)
    lane.pending = 0;
  folded = ptrdiff_t(entries);
  log2Capacity = newLog2Capacity;
  if (log2Capacity > 32)
    llvm::report_fatal_error("mlir-tracking: too many tracked ops");
  laneCounted = (size_t(1) << log2Capacity) >= kLaneCountedCapacity;
  growAt = ptrdiff_t(maxEntries(log2Capacity) - unfoldedSlack(log2Capacity));
  mask = (size_t(1) << log2Capacity) - 1;
  homeShift = 64 - log2Capacity;
  slots = allocateSlots(mask + 1);
  for (size_t i = 0; i < oldCapacity; ++i) {
    if (!old[i])
      continue;
    uint32_t id = old[i] & kIdMask;
    place(id, home(pool.recordOfId(id)->op));
  }
  freeSlots(old);
}
