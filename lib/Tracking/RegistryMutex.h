//===- RegistryMutex.h - The lock of a handle registry ----------*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// The registry lock is taken by every notification about a tracked op and
// held for a few hundred nanoseconds. Under the multi-threaded pass manager
// two threads notifying at full speed meet on it often; parking a thread in
// the kernel for a wait that short costs more than the wait. Private to
// lib/Tracking; not installed.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_LIB_REGISTRYMUTEX_H
#define MLIR_TRACKING_LIB_REGISTRYMUTEX_H

#include "llvm/Support/Compiler.h"

#include <atomic>
#include <cstdint>
#include <thread>

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace mlir::tracking::detail {

/// A mutex of one 32-bit word that spins briefly (reading, not writing, the
/// word) before parking the thread on it (a futex on Linux; elsewhere the
/// thread yields instead of parking). Taking and releasing it uncontended is
/// one atomic instruction each, with no call. Meets the Lockable
/// requirements, so `std::lock_guard` and `std::unique_lock` take it.
class RegistryMutex {
public:
  RegistryMutex() = default;
  RegistryMutex(const RegistryMutex &) = delete;
  RegistryMutex &operator=(const RegistryMutex &) = delete;

  LLVM_ATTRIBUTE_ALWAYS_INLINE void lock() {
    if (LLVM_LIKELY(try_lock()))
      return;
    lockContended();
  }

  LLVM_ATTRIBUTE_ALWAYS_INLINE bool try_lock() {
    uint32_t expected = kUnlocked;
    return state.compare_exchange_strong(expected, kLocked,
                                         std::memory_order_acquire,
                                         std::memory_order_relaxed);
  }

  LLVM_ATTRIBUTE_ALWAYS_INLINE void unlock() {
    // A thread may be parked only while the word says so.
    if (LLVM_UNLIKELY(state.exchange(kUnlocked, std::memory_order_release) ==
                      kParked))
      wakeOne();
  }

private:
  /// The word's values: free; held; held, and threads may be parked on it.
  static constexpr uint32_t kUnlocked = 0, kLocked = 1, kParked = 2;
  /// A few microseconds of spinning (a pause takes 10 to 140 cycles): longer
  /// than the registry's critical sections, shorter than parking and waking
  /// a thread.
  static constexpr unsigned kSpins = 100;

  static void pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }

  /// Out of line: the uncontended path stays small where it is inlined.
  LLVM_ATTRIBUTE_NOINLINE void lockContended() {
    for (unsigned i = 0; i < kSpins; ++i) {
      pause();
      if (state.load(std::memory_order_relaxed) == kUnlocked && try_lock())
        return;
    }
    // Mark the word before parking, so that the holder's unlock wakes a
    // thread. Whoever finds it free here owns it (marked: its own unlock may
    // wake a thread for nothing, which costs only that).
    while (state.exchange(kParked, std::memory_order_acquire) != kUnlocked)
      park();
  }

  /// Sleeps while the word still says kParked (returns at once otherwise).
  void park() {
#if defined(__linux__)
    syscall(SYS_futex, reinterpret_cast<uint32_t *>(&state), FUTEX_WAIT_PRIVATE,
            kParked, nullptr, nullptr, 0);
#else
    std::this_thread::yield();
#endif
  }

  void wakeOne() {
#if defined(__linux__)
    syscall(SYS_futex, reinterpret_cast<uint32_t *>(&state), FUTEX_WAKE_PRIVATE,
            1, nullptr, nullptr, 0);
#endif
  }

  std::atomic<uint32_t> state{kUnlocked};
  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) &&
                    std::atomic<uint32_t>::is_always_lock_free,
                "the futex is the atomic's word");
};

} // namespace mlir::tracking::detail

#endif // MLIR_TRACKING_LIB_REGISTRYMUTEX_H
