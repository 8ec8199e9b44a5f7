//===- OpFilter.h - Lock-free filter of tracked addresses -------*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Most notifications are about ops that have no handle. A bit filter read
// without the registry lock proves that for most of them. Private to
// lib/Tracking; not installed.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_LIB_OPFILTER_H
#define MLIR_TRACKING_LIB_OPFILTER_H

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace mlir::tracking::detail {

/// A bit per address block (see `index`), set for every op that is a key of the
/// address map or of the scope index, and read without the lock: a clear bit
/// proves that a notification about the op has nothing to do. Bits are only set
/// (under the lock); a filter is rebuilt, larger, as the keys grow, and the
/// old one is kept until the registry state dies since a reader on another
/// thread may still be testing it. Bits of keys that left stay set (false
/// positives take the locked path, which is always correct).
class OpFilter {
public:
  explicit OpFilter(unsigned log2Bits)
      : log2Bits(log2Bits),
        words(new std::atomic<uint64_t>[(size_t(1) << log2Bits) / 64]()) {}
  unsigned getLog2Bits() const { return log2Bits; }
  void set(const void *key) {
    size_t bit = index(key);
    words[bit / 64].fetch_or(uint64_t(1) << (bit % 64),
                             std::memory_order_relaxed);
  }
  bool test(const void *key) const {
    size_t bit = index(key);
    return (words[bit / 64].load(std::memory_order_relaxed) >> (bit % 64)) & 1;
  }

private:
  /// Locality-preserving: ops are at least 64 bytes apart, so each 64-byte
  /// block of addresses has its own bit, and a run of 2^log2Bits blocks maps
  /// onto the bits in order, rotated by an offset drawn from the run's
  /// number. Ops allocated one after another (which passes visit in that
  /// order) share a word and a cache line of the filter instead of each
  /// missing the cache; runs of a large heap (or arenas a multiple of the
  /// run apart) overlay at scattered offsets, so the false positive rate
  /// stays about the share of bits set, as with a mixing hash.
  size_t index(const void *key) const {
    uint64_t block = uint64_t(uintptr_t(key)) >> 6;
    uint64_t offset =
        ((block >> log2Bits) * 0x9E3779B97F4A7C15ull) >> (64 - log2Bits);
    return (block + offset) & ((uint64_t(1) << log2Bits) - 1);
  }
  unsigned log2Bits;
  std::unique_ptr<std::atomic<uint64_t>[]> words;
};

} // namespace mlir::tracking::detail

#endif // MLIR_TRACKING_LIB_OPFILTER_H
