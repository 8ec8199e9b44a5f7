//===- IdTable.h - Ids of interned keys, found by hash ----------*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// The event log interns sources and causes into vectors of keys: an id is an
// index into its vector. An IdTable finds the id of a key from the key's
// hash, comparing candidates through the vector, so that a key is stored
// once (a DenseMap from key to id stores it twice and hashes every key again
// as it grows). Private to lib/Tracking; not installed.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_LIB_IDTABLE_H
#define MLIR_TRACKING_LIB_IDTABLE_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mlir::tracking::detail {

/// Non-zero ids by 32-bit hash, in open addressing: a slot is the hash and
/// the id (8 bytes), zero when empty.
class IdTable {
public:
  /// The id added with `hash` for which `isKey(id)` holds, or 0.
  template <typename IsKey> uint32_t find(uint32_t hash, IsKey isKey) const {
    if (slots.empty())
      return 0;
    size_t mask = slots.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      uint64_t slot = slots[i];
      if (!slot)
        return 0;
      if (uint32_t(slot >> 32) == hash && isKey(uint32_t(slot)))
        return uint32_t(slot);
    }
  }

  /// Adds `id` (non-zero, not in the table) with `hash`.
  void insert(uint32_t hash, uint32_t id) {
    // At most 3/4 full: probes stay short.
    if ((count + 1) * 4 > slots.size() * 3)
      grow();
    place(hash, id);
    ++count;
  }

  size_t size() const { return count; }
  /// Empties the table and gives its memory back.
  void clear() {
    std::vector<uint64_t>().swap(slots);
    count = 0;
  }

private:
  void place(uint32_t hash, uint32_t id) {
    size_t mask = slots.size() - 1;
    size_t i = hash & mask;
    while (slots[i])
      i = (i + 1) & mask;
    slots[i] = uint64_t(hash) << 32 | id;
  }
  /// Doubles the slots (64 at first); the hashes kept in the slots place
  /// the ids again without their keys.
  void grow() {
    std::vector<uint64_t> old(slots.empty() ? 64 : slots.size() * 2, 0);
    old.swap(slots);
    for (uint64_t slot : old)
      if (slot)
        place(uint32_t(slot >> 32), uint32_t(slot));
  }

  std::vector<uint64_t> slots;
  size_t count = 0;
};

/// Mixes `value` into `hash` (the finalizer of a 64-bit multiplicative
/// hash): cheap, and every input bit moves the high half of the result.
inline uint64_t mixHash(uint64_t hash, uint64_t value) {
  hash = (hash ^ value) * 0x9E3779B97F4A7C15ull;
  return hash ^ (hash >> 29);
}

/// The 32 bits an IdTable keeps of a mixed hash.
inline uint32_t foldHash(uint64_t hash) { return uint32_t(hash >> 32); }

} // namespace mlir::tracking::detail

#endif // MLIR_TRACKING_LIB_IDTABLE_H
