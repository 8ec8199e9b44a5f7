//===- OpFilter.h - Lock-free filter of tracked addresses -------*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Most notifications are about ops that have no handle. A bit filter read
// without the registry lock proves that for most of them; `LockFreeKeys` is
// all such a test reads. Private to lib/Tracking; not installed.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_LIB_OPFILTER_H
#define MLIR_TRACKING_LIB_OPFILTER_H

#include "RegistryLanes.h"

#include "llvm/Support/Compiler.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace mlir::tracking::detail {

/// A bit per address block (see `index`), cleared for every op that is a key
/// of the address map or of the scope index, and read without the lock: a
/// set bit proves that a notification about the op has nothing to do. Bits
/// are only cleared (under the lock); a filter is rebuilt, larger, as the
/// keys grow. Bits of keys that left stay clear (false positives take the
/// locked path, which is always correct).
///
/// Inverted (a clear bit for a key) so that an old filter can give its
/// memory back while a reader on another thread may still be testing it:
/// `retire` replaces its pages by fresh zeroed ones, which cost no memory
/// until written and which every test reads as "may be a key". A reader of
/// a retired filter takes the locked path, as a false positive does, and
/// the retired filters of a growing registry cost nothing (they held as
/// many bits as the current one: 2 to 4 bytes per handle).
class OpFilter {
public:
  /// Filters of at least this many bytes (2^17 bits, from 1,025 keys) are
  /// mapped on their own (and their pages given back by `retire`); smaller
  /// ones are allocated and kept (at most 10.5 KiB in all): a small
  /// registry maps nothing.
  static constexpr size_t kMinMappedBytes = size_t(16) << 10;

  explicit OpFilter(unsigned log2Bits);
  ~OpFilter();
  OpFilter(const OpFilter &) = delete;
  OpFilter &operator=(const OpFilter &) = delete;

  unsigned getLog2Bits() const { return log2Bits; }
  void set(const void *key) {
    size_t bit = index(key);
    words[bit / 64].fetch_and(~(uint64_t(1) << (bit % 64)),
                              std::memory_order_relaxed);
  }
  bool test(const void *key) const {
    size_t bit = index(key);
    return !((words[bit / 64].load(std::memory_order_relaxed) >> (bit % 64)) &
             1);
  }
  /// Under the registry lock, once another filter is published: gives back
  /// the pages of a mapped filter (every test answers true from then on).
  /// No-op for a small one.
  void retire();
  /// Bytes of the words that are mapped and not retired (what
  /// `HandleRegistry::getMappedBytes` counts for the filter).
  size_t getMappedBytes() const { return retired ? 0 : mappedBytes; }
  bool isRetired() const { return retired; }
  /// The words (for tests).
  const void *getWords() const { return words; }

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
        ((block >> log2Bits) * 0x9E3779B97F4A7C15ull) >> offsetShift;
    return (block + offset) & mask;
  }
  /// Every notification about an untracked op tests a bit: the words and
  /// what `index` derives from the size are kept precomputed, on one line.
  std::atomic<uint64_t> *words;
  uint64_t mask;
  unsigned log2Bits;
  unsigned offsetShift;
  /// The size of the words' mapping (0 for allocated words).
  size_t mappedBytes;
  bool retired = false;
};

/// What a notification reads, without the lock, to prove that its op has
/// nothing to do: a registry's state (RegistryImpl) derives from it, and a
/// listener of one registry keeps a pointer to it so that the test is
/// inlined in its notifications. Every member is written under the
/// registry's lock only; see RegistryImpl for when.
struct alignas(64) LockFreeKeys {
  /// The slots of a lane's untracked-op table (RegistryImpl::noteUntracked).
  static constexpr size_t kUntrackedSlots = 4096;
  struct UntrackedLane {
    std::atomic<const void *> slots[kUntrackedSlots] = {};
  };
  static size_t untrackedSlot(const void *op) {
    // Ops are at least 64 bytes apart: neighbours take different slots.
    return (uintptr_t(op) >> 6) % kUntrackedSlots;
  }

  /// False while the address map and the scope index are empty (updated at
  /// the end of every transaction). Read by every notification on every
  /// thread, written rarely: on a cache line that no transaction writes.
  std::atomic<bool> hasKeys{false};
  /// The current filter (null until the first key).
  std::atomic<const OpFilter *> filter{nullptr};
  /// The untracked-op tables, one per lane, null until the lane notes an
  /// op: read-mostly too.
  std::atomic<UntrackedLane *> untrackedLanes[kNumLanes] = {};

  /// Lock-free: false proves that `op` is neither tracked nor a scope.
  /// (A filter retired meanwhile answers true: see OpFilter.)
  bool mayHaveKey(const void *op) const {
    // The filter first: it rules out most untracked ops on a line that many
    // neighbours share (the filter keeps 512 blocks of addresses on a line,
    // the untracked table 8). The likely path falls through, so that the
    // listener's inlined copy of this test is one run of code. A set bit
    // proves `op` no key whether or not keys exist (bits are cleared for
    // keys only), so the flag is read only after a clear bit or without a
    // filter.
    const OpFilter *current = filter.load(std::memory_order_acquire);
    if (LLVM_LIKELY(current != nullptr) && LLVM_LIKELY(!current->test(op)))
      return false;
    if (!hasKeys.load(std::memory_order_acquire))
      return false;
    // Then the slot the thread's own notifications wrote: a rewriter's
    // erase of the op it just replaced stops here.
    const UntrackedLane *table =
        untrackedLanes[peekLane()].load(std::memory_order_acquire);
    return !table || table->slots[untrackedSlot(op)].load(
                         std::memory_order_acquire) != op;
  }
};

} // namespace mlir::tracking::detail

#endif // MLIR_TRACKING_LIB_OPFILTER_H
