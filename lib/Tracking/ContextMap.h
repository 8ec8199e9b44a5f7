//===- ContextMap.h - The registry of each MLIRContext ----------*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// At most one registry of a kind exists per MLIRContext, and notifications
// find it from the context of the IR they are about. This header is not
// installed.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_LIB_CONTEXTMAP_H
#define MLIR_TRACKING_LIB_CONTEXTMAP_H

#include "llvm/ADT/DenseMap.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <shared_mutex>

namespace mlir {
class MLIRContext;

namespace tracking::detail {

/// The registries of kind `RegistryT` by context. Contexts are few: one
/// shared lock guards the map, and each thread keeps its last lookup while
/// no registry of this kind was created or destroyed since (a generation
/// count), so that notifications find their registry without the lock.
template <typename RegistryT> class ContextMap {
public:
  /// Makes `registry` the registry of `context`. Returns false (and changes
  /// nothing) if `context` has one already.
  static bool insert(MLIRContext *context, RegistryT *registry) {
    State &state = getState();
    std::unique_lock<std::shared_mutex> lock(state.mutex);
    if (!state.map.try_emplace(context, registry).second)
      return false;
    generation.fetch_add(1, std::memory_order_acq_rel);
    return true;
  }

  /// Forgets the registry of `context`.
  static void erase(MLIRContext *context) {
    State &state = getState();
    std::unique_lock<std::shared_mutex> lock(state.mutex);
    state.map.erase(context);
    generation.fetch_add(1, std::memory_order_acq_rel);
  }

  /// Returns the registry of `context`, or nullptr.
  static RegistryT *lookup(MLIRContext *context) {
    uint64_t current = generation.load(std::memory_order_acquire);
    Cache &last = cache;
    if (last.generation == current && last.context == context)
      return last.registry;
    State &state = getState();
    std::shared_lock<std::shared_mutex> lock(state.mutex);
    // Read under the lock: a registry created or destroyed since the load
    // above bumped the generation, so this entry is never kept stale.
    last = {generation.load(std::memory_order_relaxed), context,
            state.map.lookup(context)};
    return last.registry;
  }

  /// Calls `fn` with every registry, under the shared lock (no registry of
  /// this kind is created or destroyed meanwhile): for IR that names no
  /// context (an empty block of a region of no op).
  template <typename Fn> static void forEach(Fn fn) {
    State &state = getState();
    std::shared_lock<std::shared_mutex> lock(state.mutex);
    for (auto &entry : state.map)
      fn(entry.second);
  }

private:
  struct State {
    std::shared_mutex mutex;
    llvm::DenseMap<MLIRContext *, RegistryT *> map;
  };
  static State &getState() {
    static State state;
    return state;
  }

  struct Cache {
    uint64_t generation = 0;
    MLIRContext *context = nullptr;
    RegistryT *registry = nullptr;
  };
  /// Bumped whenever a registry of this kind is created or destroyed.
  static inline std::atomic<uint64_t> generation{1};
  static inline thread_local Cache cache;
};

} // namespace tracking::detail
} // namespace mlir

#endif // MLIR_TRACKING_LIB_CONTEXTMAP_H
