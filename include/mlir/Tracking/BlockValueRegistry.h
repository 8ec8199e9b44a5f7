//===- BlockValueRegistry.h - Block and SSA value handles -------*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Handles to blocks and SSA values that are never aliased by new IR allocated
// at a reused address, the way OpHandles are for operations.
//
// A `BlockHandle` refers to one block until that block is erased (or a pass
// that does not report its rewrites ran over it). A `ValueHandle` refers to
// one SSA value and follows its replacement: when the rewriter replaces an op
// by values (`replaceOp(op, values)`, folding), the handle of result i moves
// to value i; when the op is replaced by an op, to that op's result i. It
// never moves to another value by position. Both are fed by the
// TrackingListener, by the pass instrumentation (before a pass that is not
// precise, every block and value strictly nested in its anchor is
// invalidated) and by owners of IR, which call `eraseNested` before
// destroying it.
//
// Invariant: the registry holds no address of a freed block or value, so an
// address reused by the allocator is never mistaken for an old block or
// value (no ABA). The one mutation MLIR reports to no listener is
// `Block::eraseArgument`: a handle to a block argument checks on every use
// that its block still has that argument, by address. An argument added to
// the same block after the erasure may take the freed address: the handle
// then refers to it. Drop such handles before erasing arguments.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_BLOCKVALUEREGISTRY_H
#define MLIR_TRACKING_BLOCKVALUEREGISTRY_H

#include "mlir/IR/Value.h"
#include "mlir/Tracking/HandleRegistry.h"
#include "llvm/ADT/DenseSet.h"

#include <memory>
#include <string>

namespace mlir {
class Block;
class MLIRContext;
class Operation;

namespace tracking {
namespace detail {
struct UnitRecord;
struct UnitRegistryImpl;
} // namespace detail

/// A shared, copyable reference to a tracked block.
class BlockHandle {
public:
  BlockHandle() = default;
  /// The block if the handle is live, nullptr otherwise.
  Block *get() const;
  HandleState getState() const;
  bool isLive() const { return getState() == HandleState::Live; }
  explicit operator bool() const { return record != nullptr; }
  /// A sentence for an error: what the block was and what happened to it.
  std::string describe() const;
  /// Names this handle's record; never changes (one record per block while
  /// the block lives).
  const void *getIdentityKey() const { return record.get(); }

private:
  friend class BlockValueRegistry;
  explicit BlockHandle(std::shared_ptr<detail::UnitRecord> record)
      : record(std::move(record)) {}
  std::shared_ptr<detail::UnitRecord> record;
};

/// A shared, copyable reference to a tracked SSA value (an op result or a
/// block argument) that follows the value's replacements.
class ValueHandle {
public:
  ValueHandle() = default;
  /// The value (or its replacement) if the handle is live, a null Value
  /// otherwise.
  Value get() const;
  HandleState getState() const;
  bool isLive() const { return getState() == HandleState::Live; }
  explicit operator bool() const { return record != nullptr; }
  /// A sentence for an error: what the value was and what happened to it.
  std::string describe() const;
  /// Names this handle's record; never changes. Two handles that followed
  /// replacements onto one value keep distinct records.
  const void *getIdentityKey() const { return record.get(); }

private:
  friend class BlockValueRegistry;
  explicit ValueHandle(std::shared_ptr<detail::UnitRecord> record)
      : record(std::move(record)) {}
  std::shared_ptr<detail::UnitRecord> record;
};

/// Owns the block and value tracking state for one MLIRContext, next to its
/// HandleRegistry. Thread-safe.
class BlockValueRegistry {
public:
  /// Creates the registry of `context`. At most one per context; it must be
  /// destroyed before the context.
  explicit BlockValueRegistry(MLIRContext *context);
  /// Ends tracking: live handles become erased ("tracking ended").
  ~BlockValueRegistry();
  BlockValueRegistry(const BlockValueRegistry &) = delete;
  BlockValueRegistry &operator=(const BlockValueRegistry &) = delete;

  /// Returns the registry of `context`, or nullptr.
  static BlockValueRegistry *lookup(MLIRContext *context);

  /// The handle of `block` (the same record while the block lives). Must not
  /// be called while a pass is rewriting the IR that contains `block`.
  BlockHandle getBlockHandle(Block *block);
  /// The canonical handle of `value`: the record created for it, or the
  /// oldest one that followed a replacement onto it. Same restriction.
  ValueHandle getValueHandle(Value value);

  /// Number of blocks and values that have a live handle.
  size_t getNumTracked() const;
  /// Calls `fn` with the address of every tracked block and value impl.
  void forEachTrackedAddress(llvm::function_ref<void(const void *)> fn) const;

  /// Fires before IR owned by the caller is destroyed without a rewriter:
  /// every block and value in `root` (its results and everything nested)
  /// becomes erased with `reason`.
  void eraseNested(Operation *root, llvm::StringRef reason);
  /// Fires after IR was freed without any notification (a rolled-back
  /// dialect conversion frees the ops its patterns created): every tracked
  /// block and value whose address is not in `live` (the blocks, block
  /// arguments and results of the IR that still exists) becomes erased with
  /// `reason`, so that no freed address stays mapped.
  void eraseAllBut(const llvm::DenseSet<const void *> &live,
                   llvm::StringRef reason);

private:
  friend struct detail::UnitRegistryImpl;
  MLIRContext *context;
  std::shared_ptr<detail::UnitRegistryImpl> impl;
};

} // namespace tracking
} // namespace mlir

#endif // MLIR_TRACKING_BLOCKVALUEREGISTRY_H
