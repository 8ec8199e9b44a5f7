//===- HandleRegistry.h - Operation handles that survive rewrites -*- C++ -*-//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// A HandleRegistry maps live `Operation *`s to handle records. A handle
// (`OpHandle`) is either live (it refers to an existing op: the original or
// its replacement), erased, or invalidated; it is never a dangling pointer.
//
// Invariant: after every notification the registry holds no address of an op
// that no longer exists, so an address reused by the allocator can never be
// mistaken for an old op (no ABA).
//
// Records are indexed by their *scope*: the nearest proper ancestor that is
// isolated from above, or the top-level op. Pass anchors are always scopes,
// so the handles under an anchor are found from the registry alone, without
// touching IR that another thread may be rewriting.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_HANDLEREGISTRY_H
#define MLIR_TRACKING_HANDLEREGISTRY_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
class Operation;

namespace tracking {

/// The state of a handle, as described in the handle contract.
enum class HandleState {
  /// The handle refers to an existing op.
  Live,
  /// The op was erased, or replaced by values without an acceptable
  /// replacement op.
  Erased,
  /// A pass that does not report its rewrites ran over an ancestor.
  Invalidated,
};

/// Returns "live", "erased" or "invalidated".
llvm::StringRef stringifyHandleState(HandleState state);

/// One thing that happened to a tracked op. Strings are captured when the
/// event happens, so an event stays printable after its op is gone.
struct TrackingEvent {
  enum class Kind { Replaced, Erased, Invalidated };
  Kind kind;
  /// The op as last seen: "arith.addi at loc(...)".
  std::string op;
  /// For Replaced: the replacement op, same format as `op`.
  std::string replacement;
  /// The pass that was running ("" outside a pass) and its anchor
  /// ("func.func @f").
  std::string pass;
  std::string anchor;
  /// The pattern that was being applied, when known.
  std::string pattern;
  /// Why: "no replacement op ...", "pass is not precise", "merged with ...".
  std::string reason;
  /// The handle record this event happened to; only used to group events
  /// (for example by the tool's --debug-tracking), never dereferenced.
  const void *recordKey = nullptr;
  /// The pass instance and anchor op that produced the event (keys only).
  const void *passKey = nullptr;
  const void *anchorKey = nullptr;

  /// One line: "erased (pattern: X) in canonicalize on func.func @f".
  std::string str() const;
};

/// What `OpHandle::get(bool &isCanonical)` says of one handle (see
/// `HandleRegistry::resolveHandles`).
struct ResolvedHandle {
  /// The op, or nullptr if the handle is not live.
  Operation *op = nullptr;
  /// Whether the handle's own record is the one mapped at `op`.
  bool isCanonical = false;
};

namespace detail {
struct HandleRecord;
struct RegistryImpl;
class RegistryNotifier;
} // namespace detail

/// A shared, copyable reference to a tracked op. Cheap to copy (one atomic
/// increment of the record's own count); the record is dropped from the
/// registry when the last handle to it goes away.
///
/// When a handle follows a replacement onto an op that already has a handle
/// (CSE), the two records merge (union-find: each access compresses the path
/// to the record that speaks for the group, so accesses and merges stay
/// cheap however many merges happened).
class OpHandle {
public:
  OpHandle() = default;
  OpHandle(const OpHandle &other);
  OpHandle(OpHandle &&other) noexcept : record(other.record) {
    other.record = nullptr;
  }
  OpHandle &operator=(const OpHandle &other);
  OpHandle &operator=(OpHandle &&other) noexcept;
  ~OpHandle();

  /// Returns the op if the handle is live, nullptr otherwise.
  Operation *get() const;
  /// Same, and sets `isCanonical` to whether this handle's own record is the
  /// one mapped at the op: `HandleRegistry::getHandle(op)` then returns a
  /// handle with this handle's identity key. False once the handle followed
  /// a replacement onto an op that already had a handle (it merged), and
  /// when the handle is not live. One lock for both.
  Operation *get(bool &isCanonical) const;
  HandleState getState() const;
  bool isLive() const { return getState() == HandleState::Live; }
  /// True if the handle is live and its op is `scope` or nested in it, where
  /// `scope` is an op isolated from above or a top-level op (a pass
  /// anchor). Decided from the registry alone, reading no IR: the handle's
  /// op may be in IR that another thread is rewriting.
  bool isNestedIn(Operation *scope) const;
  explicit operator bool() const { return record != nullptr; }

  /// The op's name and location as last seen (at creation or replacement).
  std::string getLastName() const;
  std::string getLastLocation() const;
  /// Every event of this handle, oldest first (bounded).
  std::vector<TrackingEvent> getHistory() const;
  /// A sentence for an error: what the handle was, and what happened to it.
  std::string describe() const;

  /// Handles are equal when they refer to the same op (or, once not live, are
  /// the same handle). A handle that followed a replacement onto an op that
  /// had a handle of its own is equal to that handle from then on.
  bool operator==(const OpHandle &other) const;
  bool operator!=(const OpHandle &other) const { return !(*this == other); }
  /// A hash consistent with operator==.
  size_t hash() const;
  /// A key for "the same op now": the record that speaks for this handle's
  /// merge group. It changes only when this handle merges into another one
  /// (it then becomes that handle's key).
  const void *getKey() const;

  // Identity (Python's `==`/`hash` rule: never changes over a handle's life).
  /// A key naming this handle's own record: unlike `getKey()` it does not
  /// change when the handle is merged into another one, so it is safe as a
  /// key of hash maps and sets held across rewrites.
  const void *getIdentityKey() const { return record; }
  /// A small number naming this handle's own record among the records of
  /// its registry, as `getIdentityKey()` does: unique while the handle
  /// lives, reused after, dense from 0 (for side tables indexed by handle).
  /// Reads no shared state. Must not be called on an empty handle.
  uint32_t getIdentityIndex() const;
  /// True if both handles refer to the same op now (after a merge, the
  /// handle followed onto the op of `other`), or are the same handle.
  bool sameOp(const OpHandle &other) const;

private:
  friend struct detail::RegistryImpl;
  friend class HandleRegistry;
  friend class detail::RegistryNotifier;
  /// Adopts one reference to `record`.
  explicit OpHandle(detail::HandleRecord *record) : record(record) {}
  /// A pooled record of the registry, holding its own reference count.
  detail::HandleRecord *record = nullptr;
};

/// Owns the tracking state for one MLIRContext. Thread-safe: every member may
/// be called from several threads at once.
class HandleRegistry {
public:
  /// Creates the registry of `context`. At most one registry per context may
  /// exist; it must be destroyed before the context.
  explicit HandleRegistry(MLIRContext *context);
  /// Ends tracking: live handles become erased ("tracking ended").
  ~HandleRegistry();
  HandleRegistry(const HandleRegistry &) = delete;
  HandleRegistry &operator=(const HandleRegistry &) = delete;

  /// Returns the registry of `context`, or nullptr.
  static HandleRegistry *lookup(MLIRContext *context);

  MLIRContext *getContext() const { return context; }

  /// Returns the handle of `op`, creating one if needed; an empty handle
  /// for an op of another context (this registry never hears of that
  /// context's rewrites). Must not be called while a pass is rewriting the
  /// IR that contains `op`.
  OpHandle getHandle(Operation *op);
  /// `getHandle` for each op of `ops`, in order, under one lock (for
  /// callers that need handles to many ops at once, such as a snapshot of a
  /// walk). Same precondition as getHandle.
  std::vector<OpHandle> getHandles(ArrayRef<Operation *> ops);
  /// Call before destroying IR without a rewriter (an `OwningOpRef` going
  /// out of scope, `Operation::erase`, `Block::erase`): the handles of
  /// `root` and of every op nested in it become erased with `reason`, and
  /// so do the block and value handles of the context's BlockValueRegistry,
  /// if any. Without it they would stay live on freed memory, and a new op
  /// at a reused address could answer for them. Rewriters, passes and the
  /// tracked drivers tell the registry themselves.
  void eraseNested(Operation *root, llvm::StringRef reason);
  /// The same, with the reason "its IR was destroyed".
  void eraseNested(Operation *root);
  /// Drops every handle of `handles`, leaving them empty: as destroying
  /// them one by one, but the records of this registry whose last reference
  /// goes are released under one lock (handles of another registry are
  /// released one by one).
  void releaseHandles(MutableArrayRef<OpHandle> handles);
  /// `OpHandle::get(isCanonical)` for each of `handles`, in order, those of
  /// this registry under one lock: for callers that visit many handles (a
  /// walk's snapshot). `resolved` has the size of `handles`.
  void resolveHandles(ArrayRef<OpHandle> handles,
                      MutableArrayRef<ResolvedHandle> resolved) const;
  /// A number that never decreases and that two reads give alike only if
  /// no handle of this registry may have come to say something else from
  /// `OpHandle::get` in between: a record mapped at another op, unmapped,
  /// merged into another or no longer live (on any thread). Not a count of
  /// those steps: only steps after some read move it. Read without a lock,
  /// in a few instructions: what `resolveHandles` gave after reading it
  /// holds while it reads the same.
  uint64_t getChangeCount() const;
  /// How many times a handle merged into another (followed a replacement
  /// onto an op that had a handle of its own), never decreasing. Only a
  /// merge makes a handle's record other than the one `lookupHandle` finds
  /// at its op (`OpHandle::get(bool &isCanonical)`), so side tables indexed
  /// by identity know when to look for such handles again.
  uint64_t getNumMerges() const;
  /// Returns the handle of `op` if one exists, an empty handle otherwise.
  OpHandle lookupHandle(Operation *op) const;
  /// Returns true if `op` has a handle. Cheap: a listener checks this before
  /// doing any work for a notification.
  bool isTracked(Operation *op) const;
  /// Number of ops that currently have a live handle.
  size_t getNumTrackedOps() const;
  /// Bytes of memory the registry holds in pages it maps itself, which
  /// malloc's statistics (`mallinfo2`) do not see: a large registry's
  /// records, histories and address map, in regions meant for huge pages
  /// (each counted whole once it may be one: that is what it costs in RAM).
  /// 0 for a small registry. For measurements.
  size_t getMappedBytes() const;
  /// Calls `fn` with every op that currently has a live handle. `fn` may
  /// erase or replace tracked ops with a rewriter: an op listed is skipped
  /// once its handle no longer refers to it (it is never passed freed).
  void forEachTrackedOp(llvm::function_ref<void(Operation *)> fn) const;

  /// Installs a callback run on every event, after the registry lock is
  /// released: it may use handles and the registry. It runs when the change
  /// is applied: at once, on the thread that made it, or, for a change a
  /// pass's listener queued, when the batch is applied (at the latest when
  /// the pass execution ends, and before any other use of the registry
  /// returns), on the thread that applies it. Under the multi-threaded pass
  /// manager it runs on several threads at once; it must not throw. Changes
  /// queued before this call are reported to the observer they were made
  /// under.
  void setEventObserver(std::function<void(const TrackingEvent &)> observer);

  /// Checks the invariants against the IR under `root`: every address in the
  /// map belongs to an op nested in (or equal to) `root` with the recorded
  /// name. Returns a description of each violation. For tests and fuzzing;
  /// walks the whole IR.
  std::vector<std::string> verifyAgainst(Operation *root) const;

private:
  /// The notification side (lib/Tracking/RegistryNotifier.h).
  friend class detail::RegistryNotifier;

  MLIRContext *context;
  /// Outlives the registry while handles remain (their records live in it).
  detail::RegistryImpl *impl;
};

} // namespace tracking
} // namespace mlir

#endif // MLIR_TRACKING_HANDLEREGISTRY_H
