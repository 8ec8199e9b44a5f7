//===- RegistryNotifier.h - Notification side of a registry -----*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// The notifications that keep a HandleRegistry in step with the IR. They are
// not public API: only the tracking listener, the pass instrumentation and
// in-tree code that changes IR without a rewriter (the Python extension) call
// them. This header is not installed.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_LIB_REGISTRYNOTIFIER_H
#define MLIR_TRACKING_LIB_REGISTRYNOTIFIER_H

#include "mlir/Tracking/HandleRegistry.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir {
class Block;
class Operation;

namespace tracking::detail {

/// Where an event comes from, for the history.
struct EventSource {
  std::string pass;
  std::string anchor;
  std::string pattern;
  const void *passKey = nullptr;
  const void *anchorKey = nullptr;
};

/// The notification side of one HandleRegistry. Thread-safe like the
/// registry. Events reach the registry's observer after its lock is
/// released.
class RegistryNotifier {
public:
  explicit RegistryNotifier(HandleRegistry &registry) : registry(registry) {}

  /// Fires when `op` was replaced and `replacement` (found by the listener's
  /// rules, or named by the rewriter) takes its place. The handle of `op`
  /// follows it; if `replacement` has a handle already, the two merge.
  void notifyOperationReplaced(Operation *op, Operation *replacement,
                               const EventSource &source);
  /// Fires when `op` is about to be erased, or was replaced without an
  /// acceptable replacement op (`reason` says which).
  void notifyOperationErased(Operation *op, const EventSource &source,
                             llvm::StringRef reason);
  /// Fires after `op` moved from a known position. `oldScope` is the op that
  /// was the scope of `op`'s body before the move (see `getBodyScope`), or
  /// nullptr if `op` had no parent.
  void notifyOperationMoved(Operation *op, Operation *oldScope);
  /// Fires after `op` was inserted with no known previous position: a new op,
  /// or one unlinked with `remove()` (MLIR sends no notification for that).
  /// Re-indexes `op` and every tracked op nested in it, looking inside
  /// nested scopes only through the index.
  void notifyOperationInserted(Operation *op);
  /// Fires after `block` moved between regions; `oldScope` as above for the
  /// region it left.
  void notifyBlockMoved(Block *block, Operation *oldScope);
  /// Fires after `block` was inserted with no known previous region.
  void notifyBlockInserted(Block *block);

  /// Invalidates every record strictly nested in `anchor` right away (before
  /// a pass that does not report its rewrites runs on `anchor`, or before IR
  /// is destroyed) and takes it out of the address map, so that no address
  /// the pass frees can be looked up and no handle returns a freed op.
  /// Returns the number of handles invalidated.
  size_t invalidateNested(Operation *anchor, const EventSource &source,
                          llvm::StringRef reason);

  /// The scope that ops nested directly in `op`'s regions belong to: `op`
  /// itself if it is isolated from above or top-level, else `op`'s scope.
  static Operation *getBodyScope(Operation *op);

private:
  HandleRegistry &registry;
};

} // namespace tracking::detail
} // namespace mlir

#endif // MLIR_TRACKING_LIB_REGISTRYNOTIFIER_H
