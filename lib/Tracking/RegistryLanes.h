//===- RegistryLanes.h - What each thread writes under a lock ---*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// One lock guards a registry, and under the multi-threaded pass manager two
// threads take it in turn. Every cache line the holder writes that the other
// thread wrote last moves between the cores: a shared counter or free-list
// head written by every critical section costs each of them a miss. Such
// state is kept per *lane* instead: each thread writes the lane it was given,
// on cache lines of its own. Lanes only spread the writes; every lane is
// guarded by the same lock as before, so which lane a thread uses never
// matters for correctness. Private to lib/Tracking; not installed.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_LIB_REGISTRYLANES_H
#define MLIR_TRACKING_LIB_REGISTRYLANES_H

#include "llvm/Support/Compiler.h"

#include <atomic>
#include <cstddef>

namespace mlir::tracking::detail {

/// Lanes per registry: threads beyond this many share lanes (round robin).
inline constexpr unsigned kNumLanes = 8;
/// What lane state is aligned to.
inline constexpr size_t kLaneAlignment = 64;

namespace lanes {
/// The next lane to give a thread.
inline std::atomic<unsigned> nextLane{0};
/// This thread's lane, or kNumLanes until it first asks. Initial-exec: read
/// by lock-free notification paths, where the general model's call (in the
/// position-independent code linked into the Python extension) would cost
/// more than the read; 4 bytes of the static TLS block.
[[gnu::tls_model("initial-exec")]] inline thread_local unsigned threadLane =
    kNumLanes;

LLVM_ATTRIBUTE_NOINLINE inline unsigned assignLane() {
  threadLane = nextLane.fetch_add(1, std::memory_order_relaxed) % kNumLanes;
  return threadLane;
}
} // namespace lanes

/// The lane of the calling thread: fixed for the thread's life, and, for the
/// first kNumLanes threads that ask, different from every other thread's.
inline unsigned currentLane() {
  unsigned lane = lanes::threadLane;
  return lane < kNumLanes ? lane : lanes::assignLane();
}

/// The calling thread's lane if it has one, else some lane: for lock-free
/// reads that are correct in any lane and only faster in the thread's own.
/// Never assigns one (no call, nothing to save around it).
inline unsigned peekLane() {
  static_assert((kNumLanes & (kNumLanes - 1)) == 0, "a power of two");
  return lanes::threadLane & (kNumLanes - 1);
}

/// The lane of the thread holding a lock: set by each thread that takes the
/// lock, read by the structures the lock guards (which are given it when
/// made). Reading it costs less than asking for the thread's lane at every
/// step of a critical section; it lives next to the lock, on a cache line
/// the holder has just taken.
class ActiveLane {
public:
  unsigned get() const { return lane; }
  /// Called by a thread that has just taken the lock.
  void enter() { lane = currentLane(); }

  /// Lane 0, for structures used on their own (tests), never entered.
  static const ActiveLane &standalone() {
    static const ActiveLane lane;
    return lane;
  }

private:
  unsigned lane = 0;
};

} // namespace mlir::tracking::detail

#endif // MLIR_TRACKING_LIB_REGISTRYLANES_H
