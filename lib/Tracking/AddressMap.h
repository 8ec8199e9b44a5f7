//===- AddressMap.h - The record of each tracked op -------------*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// The address map of a registry: which record a tracked `Operation *` has.
// Private to lib/Tracking; not installed.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_LIB_ADDRESSMAP_H
#define MLIR_TRACKING_LIB_ADDRESSMAP_H

#include "HandleRecords.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <memory>

namespace mlir {
class Operation;

namespace tracking::detail {

/// An open-addressing table (linear probing, deletion by backward shift) of
/// 32-bit record ids: the key of an entry is not stored but read from its
/// record (`HandleRecord::op`), so an entry costs 4 bytes and a hit reads
/// the slot and the record it needs anyway. A record's `op` must not change
/// while it is in the table. Guarded by the registry lock.
class AddressMap {
public:
  explicit AddressMap(RecordPool &pool) : pool(pool) {}
  AddressMap(const AddressMap &) = delete;
  AddressMap &operator=(const AddressMap &) = delete;

  bool empty() const { return numEntries == 0; }
  size_t size() const { return numEntries; }
  /// Slots allocated (for tests).
  size_t capacity() const { return slots ? mask + 1 : 0; }

  /// The record mapped at `op`, or null.
  HandleRecord *lookup(const Operation *op) const {
    if (!numEntries)
      return nullptr;
    for (size_t i = home(op);; i = (i + 1) & mask) {
      uint32_t id = slots[i];
      if (!id)
        return nullptr;
      HandleRecord *record = pool.recordAt(id - 1);
      if (record->op == op)
        return record;
    }
  }

  /// Makes room for `numEntries` entries in all, so that inserting up to
  /// that many does not grow the table.
  void reserve(size_t numEntries);
  /// Maps `record->op` to `record`; nothing may be mapped there yet.
  void insert(HandleRecord *record);
  /// Takes `record` out of the table if it is there. Returns true if it was.
  bool erase(HandleRecord *record);
  /// Empties the table (records are left alone).
  void clear();
  /// Calls `fn` with every mapped record. `fn` must not change the table.
  void forEach(llvm::function_ref<void(HandleRecord *)> fn) const;

private:
  size_t home(const void *op) const {
    // Not the filter's multiplier: a key that passed the filter by a
    // collision should not also collide here.
    return (uint64_t(uintptr_t(op)) * 0xC2B2AE3D27D4EB4Full) >>
           (64 - log2Capacity);
  }
  /// Rehashes into 2^log2Capacity slots.
  void rehash(unsigned newLog2Capacity);

  RecordPool &pool;
  /// Record ids (pool index + 1); 0 marks an empty slot.
  std::unique_ptr<uint32_t[]> slots;
  size_t mask = 0;
  unsigned log2Capacity = 0;
  size_t numEntries = 0;
};

} // namespace tracking::detail
} // namespace mlir

#endif // MLIR_TRACKING_LIB_ADDRESSMAP_H
