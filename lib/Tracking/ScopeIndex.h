//===- ScopeIndex.h - Handle records by isolated scope ----------*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Records are indexed by their *scope*: the nearest proper ancestor that is
// isolated from above, or the top-level op. Pass anchors are always scopes,
// so the records under an anchor are found from the index alone, without
// touching IR that another thread may be rewriting. Private to lib/Tracking;
// not installed.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_LIB_SCOPEINDEX_H
#define MLIR_TRACKING_LIB_SCOPEINDEX_H

#include "HandleRecords.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace mlir {
class Operation;

namespace tracking::detail {

/// The scope of an op: the body scope of its parent, or nullptr at the top.
Operation *scopeOfOp(Operation *op);
/// The scope of the ops directly in `op`'s regions: `op` itself if it is
/// isolated from above or top-level, else `op`'s scope.
Operation *bodyScopeOf(Operation *op);

/// A scope (isolated-from-above or top-level op) that has records below it.
/// Scopes form a tree mirroring the IR, kept only as long as it is non-empty,
/// so no key in it is ever a freed op. On cache lines of its own: the head of
/// its record list is written whenever a record of the scope is mapped or
/// unmapped, and the scopes of two functions that two threads rewrite at
/// once are mostly made one after the other (they would share a line).
struct alignas(64) ScopeInfo {
  ScopeInfo(Operation *op, uint32_t id) : op(op), id(id) {}
  Operation *op;
  /// Names the scope in `HandleRecord::scope`.
  uint32_t id;
  /// The first record indexed here (a RecordPool id; the others follow
  /// through HandleRecord::scopeNext).
  uint32_t records = 0;
  Operation *parent = nullptr;
  llvm::SmallPtrSet<Operation *, 2> children;
};

/// The scope tree of one registry and the records indexed in it. Guarded by
/// the registry lock. Only mapped records are indexed.
class ScopeIndex {
public:
  /// `onNewScope` runs for each op that becomes a key of the index.
  ScopeIndex(const RecordPool &pool,
             std::function<void(Operation *)> onNewScope)
      : pool(pool), onNewScope(std::move(onNewScope)) {}
  ~ScopeIndex() { clear(); }
  ScopeIndex(const ScopeIndex &) = delete;
  ScopeIndex &operator=(const ScopeIndex &) = delete;

  bool empty() const { return scopes.empty(); }
  size_t size() const { return scopes.size(); }
  bool contains(Operation *scope) const { return scopes.count(scope); }
  /// Calls `fn` with every scope key (nullptr is the key of the top).
  void forEachScope(llvm::function_ref<void(Operation *)> fn) const {
    for (auto &entry : scopes)
      fn(entry.first);
  }
  /// Calls `fn` with every scope.
  void forEachScopeInfo(llvm::function_ref<void(const ScopeInfo &)> fn) const {
    for (auto &entry : scopes)
      fn(*entry.second);
  }
  /// Drops every scope (records are left alone).
  void clear();

  /// The scope `record` is indexed under, or null.
  ScopeInfo *infoOf(const HandleRecord *record) const {
    return byId[record->scope];
  }
  /// The records indexed under `info`, in no particular order.
  SmallVector<HandleRecord *> recordsOf(const ScopeInfo &info) const;

  ScopeInfo *findScope(Operation *scope) const {
    auto it = scopes.find(scope);
    return it == scopes.end() ? nullptr : it->second;
  }
  /// Makes `scope` (and its ancestors) known to the index.
  ScopeInfo *ensureScope(Operation *scope);
  /// Drops empty scopes from `scope` upwards.
  void pruneScope(Operation *scope);
  /// Drops `scope` alone (its records must be unmapped already).
  void eraseScope(Operation *scope);
  /// Makes `newParent` the parent of the known scope `scope`.
  void reparentScope(Operation *scope, Operation *newParent);

  /// Indexes `record` (mapped, or being mapped when `indexed` is false)
  /// under `scope`.
  void setScope(HandleRecord *record, Operation *scope, bool indexed);
  /// Indexes `record` (being mapped) under `info`, a scope of this index:
  /// `setScope` for callers that know the scope already.
  void addRecord(HandleRecord *record, ScopeInfo *info) {
    linkIntoScope(record, info);
  }
  /// Takes the indexed `record` out of the index, pruning what empties.
  /// Inline: every unmap of a record (an erase, a merge) comes here.
  LLVM_ATTRIBUTE_ALWAYS_INLINE void removeRecord(HandleRecord *record) {
    ScopeInfo *info = infoOf(record);
    unlinkFromScope(record, info);
    record->scope = 0;
    // Mostly other records stay indexed there: no lookup of the scope.
    if (LLVM_UNLIKELY(!info->records && info->children.empty()))
      pruneScope(info->op);
  }

  /// After a move, re-indexes under `newScope` the records and child scopes
  /// of `oldScope` for which `isInside` holds (the moved part of the IR).
  void moveBetweenScopes(Operation *oldScope, Operation *newScope,
                         llvm::function_ref<bool(Operation *)> isInside);

  /// The records indexed in the scope subtree rooted at `anchor`, found from
  /// the index alone: the IR outside `anchor` may be under rewrite by other
  /// threads, and scope keys that a pass freed behind the listener's back
  /// are compared, never dereferenced.
  SmallVector<HandleRecord *> collectNested(Operation *anchor) const;

  /// For an erased `op`: the records of the scope subtree rooted at `op`
  /// (to be unmapped by the caller), the scopes of that subtree (outermost
  /// first) and the parent of `op`. Returns false if `op` is no scope.
  bool collectSubtree(Operation *op, SmallVectorImpl<HandleRecord *> &records,
                      SmallVectorImpl<Operation *> &subtree,
                      Operation *&parent) const;
  /// Drops the scope subtree of an erased `op` (whose records the caller
  /// unmapped), given by `collectSubtree`, then the empty scopes above it.
  void eraseSubtree(Operation *op, ArrayRef<Operation *> subtree,
                    Operation *parent);

private:
  void linkIntoScope(HandleRecord *record, ScopeInfo *info);
  /// Takes `record` off the list of `info`, the scope it is indexed under:
  /// writes its neighbours' links.
  void unlinkFromScope(HandleRecord *record, ScopeInfo *info) {
    uint32_t prev = record->scopePrev, next = record->scopeNext;
    if (prev)
      pool.recordOfId(prev)->scopeNext = next;
    else
      info->records = next;
    if (next)
      pool.recordOfId(next)->scopePrev = prev;
    record->scopePrev = record->scopeNext = 0;
  }
  ScopeInfo *createScope(Operation *op);
  void destroyScope(ScopeInfo *info);

  const RecordPool &pool;
  llvm::DenseMap<Operation *, ScopeInfo *> scopes;
  /// Scopes by id (0 is none), and the ids free for reuse.
  std::vector<ScopeInfo *> byId = {nullptr};
  std::vector<uint32_t> freeIds;
  std::function<void(Operation *)> onNewScope;
};

} // namespace tracking::detail
} // namespace mlir

#endif // MLIR_TRACKING_LIB_SCOPEINDEX_H
