//===- BlockValueNotifications.h - Feeding block/value handles --*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Private plumbing: how the TrackingListener and the pass instrumentation
// keep the BlockValueRegistry of a context in step with the IR. Each hook
// looks up the registry of the IR's context and returns at once when it has
// nothing tracked.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_LIB_BLOCKVALUENOTIFICATIONS_H
#define MLIR_TRACKING_LIB_BLOCKVALUENOTIFICATIONS_H

#include "RegistryNotifier.h"
#include "mlir/IR/ValueRange.h"

#include "mlir/Tracking/HandleRegistry.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <atomic>
#include <cstddef>

namespace mlir {
class Block;
class MLIRContext;
class Operation;

namespace tracking::detail {

/// Describes where an event comes from; called only if something tracked is
/// affected (describing costs string work).
using SourceFn = llvm::function_ref<EventSource()>;

/// Mapped block and value records summed over every registry of the
/// process (defined in BlockValueRegistry.cpp).
extern std::atomic<size_t> numUnitKeysInProcess;

/// Lock-free and inline: false when no block or value of any context has a
/// handle (most programs hold none), so the hooks below need not be called.
inline bool mayHaveUnitHandles() {
  return numUnitKeysInProcess.load(std::memory_order_acquire) != 0;
}

/// Lock-free: false when no block or value of `context` has a handle.
bool hasUnitHandles(MLIRContext *context);

/// Fires before `op`'s results are replaced by `newValues` (one per result;
/// a null value means "no replacement"): the handle of result i follows
/// value i.
void notifyUnitsOfReplacement(Operation *op, ValueRange newValues,
                              SourceFn source);
/// Fires before `op` is erased: its results, and every block and value still
/// nested in it, become erased.
void notifyUnitsOfErasedOp(Operation *op, SourceFn source);
/// Fires before `block` is erased: the block, its arguments and everything
/// still nested in it become erased.
void notifyUnitsOfErasedBlock(Block *block, SourceFn source);
/// Fires before a pass that does not report its rewrites runs on `anchor`:
/// every block and value strictly nested in `anchor` is taken out of the
/// address map and invalidated (the anchor's own results survive). Walks the
/// anchor's IR, which only the calling thread touches, and only when the
/// registry tracks something.
void invalidateUnitsUnder(Operation *anchor, SourceFn source,
                          llvm::StringRef reason);

} // namespace tracking::detail
} // namespace mlir

#endif // MLIR_TRACKING_LIB_BLOCKVALUENOTIFICATIONS_H
