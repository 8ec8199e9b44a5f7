//===- OpFilter.cpp - Lock-free filter of tracked addresses ---------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "OpFilter.h"

#include "llvm/Support/ErrorHandling.h"

#include <cstring>
#include <sys/mman.h>

using namespace mlir::tracking::detail;

namespace {
/// A fresh zeroed anonymous mapping of `bytes` at `at` (anywhere if null;
/// `at`'s old pages are replaced at once, with no moment unmapped).
void *mapZeroed(void *at, size_t bytes) {
  int flags = MAP_PRIVATE | MAP_ANONYMOUS | (at ? MAP_FIXED : 0);
  void *mapped = ::mmap(at, bytes, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (mapped == MAP_FAILED)
    llvm::report_bad_alloc_error("mlir-tracking: cannot map the op filter");
  return mapped;
}
} // namespace

OpFilter::OpFilter(unsigned log2Bits)
    : mask((uint64_t(1) << log2Bits) - 1), log2Bits(log2Bits),
      offsetShift(64 - log2Bits) {
  size_t numWords = (size_t(1) << log2Bits) / 64;
  size_t bytes = numWords * sizeof(uint64_t);
  mappedBytes = bytes >= kMinMappedBytes ? bytes : 0;
  words = mappedBytes
              ? static_cast<std::atomic<uint64_t> *>(mapZeroed(nullptr, bytes))
              : new std::atomic<uint64_t>[numWords];
  // Every bit set: no key yet.
  for (size_t i = 0; i < numWords; ++i)
    words[i].store(~uint64_t(0), std::memory_order_relaxed);
}

OpFilter::~OpFilter() {
  if (mappedBytes)
    ::munmap(words, mappedBytes);
  else
    delete[] words;
}

void OpFilter::retire() {
  if (retired || !mappedBytes)
    return;
  // Zeroed pages in place of the words: a reader still testing this filter
  // reads a clear bit ("may be a key") and takes the locked path. Mapped
  // over in one call, so a reader never finds the words unmapped.
  mapZeroed(words, mappedBytes);
  retired = true;
}
