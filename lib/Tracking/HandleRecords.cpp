//===- HandleRecords.cpp - Pooled, counted handle records -----------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "HandleRecords.h"

using namespace mlir;
using namespace mlir::tracking::detail;

RecordPool::~RecordPool() {
  for (HandleRecord *record : all())
    record->~HandleRecord();
}

void RecordPool::addChunk() {
  // Aligned to its size: RecordChunk::of masks a record's address.
  auto *chunk = static_cast<RecordChunk *>(
      arena->allocateChunk(RecordChunk::kBytes, RecordChunk::kBytes));
  chunk->impl = owner;
  chunk->index = chunks.size();
  chunks.push_back(chunk);
  nextFresh = 0;
}

SmallVector<HandleRecord *> RecordPool::all() const {
  SmallVector<HandleRecord *> result;
  for (size_t c = 0; c < chunks.size(); ++c) {
    uint32_t used = c + 1 == chunks.size() ? nextFresh : RecordChunk::kRecords;
    for (uint32_t i = 0; i < used; ++i) {
      HandleRecord *record = chunks[c]->slot(i);
      if (record->state != kFreeSlot)
        result.push_back(record);
    }
  }
  return result;
}
