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
#include <mutex>

namespace mlir::tracking::detail {

/// A mutex that spins briefly (reading, not writing, the lock's cache line)
/// before parking in `std::mutex`. Meets the Lockable requirements, so
/// `std::lock_guard` and `std::unique_lock` take it.
class RegistryMutex {
public:
  RegistryMutex() = default;
  RegistryMutex(const RegistryMutex &) = delete;
  RegistryMutex &operator=(const RegistryMutex &) = delete;

  void lock() {
    if (mutex.try_lock()) {
      held.store(true, std::memory_order_relaxed);
      return;
    }
    lockContended();
  }

  bool try_lock() {
    if (!mutex.try_lock())
      return false;
    held.store(true, std::memory_order_relaxed);
    return true;
  }

  void unlock() {
    held.store(false, std::memory_order_relaxed);
    mutex.unlock();
  }

private:
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
      // `held` is only a hint: `try_lock` is what synchronizes.
      if (!held.load(std::memory_order_relaxed) && mutex.try_lock()) {
        held.store(true, std::memory_order_relaxed);
        return;
      }
    }
    mutex.lock();
    held.store(true, std::memory_order_relaxed);
  }

  std::mutex mutex;
  /// True while some thread holds `mutex`.
  std::atomic<bool> held{false};
};

} // namespace mlir::tracking::detail

#endif // MLIR_TRACKING_LIB_REGISTRYMUTEX_H
