//===- HandleRegistry.cpp - Operation handles that survive rewrites -------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// The public API of the registry and the glue between its parts: the record
// pool (HandleRecords.h), the event log (EventLog.h), the scope index
// (ScopeIndex.h), the lock-free filter (OpFilter.h) and the map from
// contexts to registries (ContextMap.h).
//
//===----------------------------------------------------------------------===//

#include "mlir/Tracking/HandleRegistry.h"
#include "AddressMap.h"
#include "ChangeBatch.h"
#include "ContextMap.h"
#include "EventLog.h"
#include "HandleRecords.h"
#include "HotPath.h"
#include "OpFilter.h"
#include "PageArena.h"
#include "RegistryLanes.h"
#include "RegistryMutex.h"
#include "RegistryNotifier.h"
#include "ScopeIndex.h"
#include "mlir/Tracking/BlockValueRegistry.h"

#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <utility>

using namespace mlir;
using namespace mlir::tracking;

namespace mlir::tracking::detail {

using Observer = std::function<void(const TrackingEvent &)>;

void releaseRecord(HandleRecord *record);

/// One critical section of the registry. It starts by applying the changes
/// a pass's listener queued (ChangeBatch.h), so that no critical section
/// sees the registry without them. Everything that must not run under
/// the lock is queued here and runs when it ends, after unlocking: the
/// observer (which may use handles) and the release of references (which
/// takes the lock). Most critical sections (a notification about a tracked
/// op, with no observer) queue nothing: the queues are allocated on first
/// use, so that taking and ending a transaction is the lock, the lane and
/// two tests (a batch registered, queues made), inlined where a
/// notification's path needs it.
class Transaction {
public:
  explicit Transaction(RegistryImpl &impl);
  /// For the thread that owns `own`, a batch registered with `impl`:
  /// applies that batch alone (ChangeBatch.h).
  Transaction(RegistryImpl &impl, ChangeBatch &own);
  ~Transaction();
  Transaction(const Transaction &) = delete;
  Transaction &operator=(const Transaction &) = delete;

  /// Drops one reference to `record` when the transaction ends.
  void releaseLater(HandleRecord *record) {
    if (record)
      queued().released.push_back(record);
  }
  /// Hands `event` to the observer when the transaction ends (formatted
  /// under the lock: only when there is an observer).
  void deliverLater(TrackingEvent event) {
    queued().events.push_back(std::move(event));
  }

  RegistryImpl &impl;

private:
  struct Queued {
    std::vector<TrackingEvent> events;
    SmallVector<HandleRecord *, 2> released;
  };
  Queued &queued() {
    if (LLVM_UNLIKELY(!queue))
      queue = new Queued();
    return *queue;
  }
  /// Unlocks, then delivers the events and releases the references queued:
  /// out of line, so that the common end stays a few instructions.
  [[gnu::noinline]] void unlockAndRunQueued();

  Queued *queue = nullptr;
};

/// The state of one registry. It outlives the HandleRegistry while records
/// remain (their handles may outlive it): the last record freed deletes it.
struct RegistryImpl : LockFreeKeys {
  /// What the members below are aligned to, to keep apart what different
  /// threads write.
  static constexpr size_t kCacheLine = 64;

  RegistryImpl()
      : pool(this, &arena), events(activeLane, &arena),
        byOp(pool, activeLane, &arena),
        scopeIndex(pool, [this](Operation *scope) { addKey(scope); }) {
    // Histories hold the log's cause ids: the log renumbers them when it
    // collects.
    events.setRecords(pool);
  }
  RegistryImpl(const RegistryImpl &) = delete;
  RegistryImpl &operator=(const RegistryImpl &) = delete;
  ~RegistryImpl() {
    for (HandleRecord *record : pool.all())
      events.freeHistory(record);
    for (std::atomic<UntrackedLane *> &lane : untrackedLanes)
      delete lane.load(std::memory_order_relaxed);
  }

  /// One lock for everything. (A reader-writer lock was tried: with two
  /// threads notifying at full speed it made tracked pipelines 4x slower.)
  /// On a cache line of its own: a thread spinning on it must not steal the
  /// lines the holder writes, nor the lines notifications read without it.
  alignas(kCacheLine) mutable RegistryMutex mutex;
  /// The lane of the thread holding the lock (RegistryLanes.h): entered by
  /// every critical section that may write lane state (`lock`).
  ActiveLane activeLane;
  /// The batches of queued changes registered with this registry (one per
  /// pass thread, ChangeBatch.h), in the first `numBatches` slots: every
  /// transaction applies what they published first, except that a pass
  /// thread's own applies its batch alone.
  static constexpr unsigned kMaxBatches = ChangeBatch::kMaxPerRegistry;
  ChangeBatch *batches[kMaxBatches] = {};
  unsigned numBatches = 0;
  /// While an entry is applied with other batches registered: its batch,
  /// whose anchor tells the probes which records are its ops'.
  ChangeBatch *checking = nullptr;
  /// The memory of the pools and of the address map's table (PageArena.h):
  /// made first, freed last. Written only when a pool or the table grows.
  PageArena arena;
  alignas(kCacheLine) RecordPool pool;
  EventLog events;
  /// The address map: the record of each tracked op. Its header is read by
  /// every lookup: apart from what the event log writes.
  alignas(kCacheLine) AddressMap byOp;
  ScopeIndex scopeIndex;
  /// Copied (as a pointer) by each transaction that has events to deliver.
  std::shared_ptr<const Observer> observer;
  /// False once the HandleRegistry is gone: the last record freed then
  /// deletes the state.
  bool registryAlive = true;

  //===--------------------------------------------------------------------===//
  // Records
  //===--------------------------------------------------------------------===//

  /// A fresh, unmapped record with one reference.
  HandleRecord *allocateRecord() { return pool.allocate(); }

  /// Frees an unmapped record whose last reference went. Returns its parent,
  /// whose reference the record held (the caller releases it).
  HandleRecord *freeRecord(HandleRecord *record) {
    events.freeHistory(record);
    return pool.free(record);
  }

  /// The record's dense number in the pool (stable while it lives).
  uint32_t indexOf(const HandleRecord *record) const {
    return pool.indexOf(record);
  }

  //===--------------------------------------------------------------------===//
  // Lock-free filter
  //===--------------------------------------------------------------------===//

  // The state the lock-free test reads (`hasKeys`, `filter`,
  // `untrackedLanes`, `mayHaveKey`) is the base, LockFreeKeys (OpFilter.h).
  /// The lanes that have a table (a bit each; guarded by the lock).
  unsigned untrackedLaneMask = 0;
  static_assert(kNumLanes <= 32, "a bit per lane");
  /// Every filter made, the current one last (`filter` in the base); the
  /// others are retired (OpFilter::retire), kept because a reader on another
  /// thread may still be testing one.
  alignas(kCacheLine) std::vector<std::unique_ptr<OpFilter>> filters;

  /// Called under the lock after the maps changed. Writes only a change:
  /// a store, even of the same value, would take the line from the other
  /// threads reading it.
  LLVM_ATTRIBUTE_ALWAYS_INLINE void syncHasKeys() {
    // Every mapped record is indexed under a scope, and scopes are pruned
    // as they empty: the index alone tells (the address map's count is
    // spread over lanes).
    bool now = !scopeIndex.empty();
    assert((now || byOp.empty()) && "a mapped record outside the index");
    if (hasKeys.load(std::memory_order_relaxed) != now)
      hasKeys.store(now, std::memory_order_release);
  }

  /// Ops that replace or erase notifications left with no record and no
  /// scope entry, until a key is added for one of them (`addKey` clears its
  /// slot): direct-mapped by address, the newest op per slot, one table per
  /// lane (RegistryLanes.h). A rewriter replaces an op, then erases it, and
  /// CSE defers those erasures to the end of each function: the filter,
  /// which never forgets a key, would send each erase under the lock to find
  /// nothing. Invariant: no op named in any lane's table is a key of the
  /// address map or a scope of the index (`checkUntracked`).
  ///
  /// Per lane because most replace and erase notifications write a slot and
  /// every one the filter does not rule out reads one, without the lock: in one
  /// table shared by two threads, the ops of each thread's function hash over
  /// all its lines, so most reads would miss on a line the other thread just
  /// wrote. A thread notes and reads the slots of its own lane (the op it
  /// replaced is the op it erases next); a miss only takes the locked path. A
  /// lane's table is made when its lane first notes an op (most programs use
  /// one or two). Slots follow address order over 256 KiB (each 64-byte block
  /// of it has one), wider than a function's ops: CSE's erasures at the end of
  /// a function find the ops it replaced still noted. (The tables are
  /// `untrackedLanes`, next to the filter.)

  /// Under the lock: `op` has no record and is no scope of the index.
  /// `mayBeScope` is false only for a live op without regions: a scope is
  /// an ancestor of a tracked op, so such an op (most ops replaced or
  /// erased) is none, and needs no lookup. A freed op may be anything.
  /// Noted in the lock holder's lane, which is the notifying thread's.
  void noteUntracked(Operation *op, bool mayBeScope) {
    assert((mayBeScope || !scopeIndex.contains(op)) &&
           "a scope without regions");
    if (mayBeScope && scopeIndex.contains(op))
      return;
    assert(!byOp.lookup(op) && "noting a tracked op as untracked");
    std::atomic<UntrackedLane *> &lane = untrackedLanes[activeLane.get()];
    UntrackedLane *table = lane.load(std::memory_order_relaxed);
    if (LLVM_UNLIKELY(!table)) {
      table = new UntrackedLane();
      lane.store(table, std::memory_order_release);
      untrackedLaneMask |= 1u << activeLane.get();
    }
    table->slots[untrackedSlot(op)].store(op, std::memory_order_release);
  }

  /// Under the lock: the ops named by the untracked slots that are keys
  /// (none, unless a key was added without `addKey`).
  SmallVector<const void *> checkUntracked() const {
    SmallVector<const void *> wrong;
    for (const std::atomic<UntrackedLane *> &lane : untrackedLanes) {
      const UntrackedLane *table = lane.load(std::memory_order_relaxed);
      if (!table)
        continue;
      for (const std::atomic<const void *> &slot : table->slots) {
        auto *op = const_cast<Operation *>(static_cast<const Operation *>(
            slot.load(std::memory_order_relaxed)));
        if (op && (byOp.lookup(op) || scopeIndex.contains(op)))
          wrong.push_back(op);
      }
    }
    return wrong;
  }

  /// Under the lock: whether some lane names `op` as untracked (for
  /// assertions).
  bool isNotedUntracked(const void *op) const {
    for (const std::atomic<UntrackedLane *> &lane : untrackedLanes)
      if (const UntrackedLane *table = lane.load(std::memory_order_relaxed))
        if (table->slots[untrackedSlot(op)].load(std::memory_order_relaxed) ==
            op)
          return true;
    return false;
  }

  /// Every key of the address map and of the scope index is added through
  /// here, before it is inserted.
  void addKey(const void *op) {
    // Any lane with a table may name `op`: the slot is at the same index in
    // each. (Every handle taken adds a key: mostly one lane to look at.)
    size_t index = untrackedSlot(op);
    for (unsigned mask = untrackedLaneMask; mask; mask &= mask - 1) {
      UntrackedLane *table = untrackedLanes[llvm::countr_zero(mask)].load(
          std::memory_order_relaxed);
      if (table->slots[index].load(std::memory_order_relaxed) == op)
        table->slots[index].store(nullptr, std::memory_order_release);
    }
    reserveKeys(byOp.approximateSize() + scopeIndex.size() + 1);
    const_cast<OpFilter *>(filter.load(std::memory_order_relaxed))->set(op);
  }

  /// Makes the filter large enough for `keys` keys: rebuilt (from every key
  /// now in the maps) at once for a batch of keys about to be added, rather
  /// than at each doubling as they come. The filter it replaces is retired
  /// (OpFilter::retire: its pages given back, a reader still testing it
  /// takes the locked path).
  /// Registries of this many keys and more get a filter of at least
  /// 2^kFilterFloorLog2Bits bits (64 KiB) when it is rebuilt: with 16 to 32
  /// bits a key, about 1 in 20 notifications about an untracked op took the
  /// lock to find nothing (10% of 140k ops held). (2^20 bits cost a handle
  /// 8 bytes at 16,385 keys, where the floor first applies one key at a
  /// time: over 64 bytes a handle.)
  static constexpr size_t kFilterFloorKeys = size_t(1) << 12;
  static constexpr unsigned kFilterFloorLog2Bits = 19;
  /// Below the floor, the bits per key (as a shift) that a filter is sized
  /// for: 128 to 256, rebuilt below 64. The filter maps a run of 2^log2Bits
  /// 64-byte blocks onto its bits in order, and runs overlay at hashed
  /// offsets: at 32 bits a key (a 4 MiB run for 2,000 keys) the 10 MiB of
  /// heap a 20k-op module spans overlaid three runs, and about 1 in 35
  /// notifications about an untracked op took the lock to find nothing;
  /// with 128 bits a key (a 16 MiB run) almost none do. At most 32 bytes a
  /// key, less than the floor costs a registry of 4,096 keys.
  static constexpr unsigned kSmallFilterLog2BitsPerKey = 7;
  /// Above the floor, a filter is rebuilt below 16 bits a key, twice as
  /// large (32 bits a key): 2 to 4 bytes a handle. (Sized for 32 to 64 bits
  /// a key, each rebuild quadrupled it: 8 bytes a handle just after, which
  /// with the address map just grown took a handle over 64 bytes.)
  static constexpr unsigned kLargeFilterLog2BitsPerKey = 4;
  void reserveKeys(size_t keys) {
    const OpFilter *current = filter.load(std::memory_order_relaxed);
    unsigned log2BitsPerKey = keys < kFilterFloorKeys
                                  ? kSmallFilterLog2BitsPerKey
                                  : kLargeFilterLog2BitsPerKey;
    // Rebuilt below half the bits a key it is sized for (64 below the
    // floor, 16 above): a false positive rate of a few percent at most.
    unsigned rebuildShift =
        keys < kFilterFloorKeys ? log2BitsPerKey - 1 : log2BitsPerKey;
    if (current &&
        (keys << rebuildShift) <= (size_t(1) << current->getLog2Bits()))
      return;
    unsigned log2Bits = 12;
    while ((size_t(1) << log2Bits) < (keys << log2BitsPerKey))
      ++log2Bits;
    if (keys >= kFilterFloorKeys)
      log2Bits = std::max(log2Bits, kFilterFloorLog2Bits);
    auto rebuilt = std::make_unique<OpFilter>(log2Bits);
    byOp.forEach([&](HandleRecord *record) { rebuilt->set(record->op); });
    scopeIndex.forEachScope([&](Operation *scope) { rebuilt->set(scope); });
    // Sequentially consistent, with the reads of the batch below: a listener
    // that queued a replacement after the batch was applied sets its bit in
    // the filter it then reads (markQueuedReplacement), and either it reads
    // this one or this reads its entry.
    filter.store(rebuilt.get(), std::memory_order_seq_cst);
    for (ChangeBatch *batch : ArrayRef(batches, numBatches)) {
      uint32_t queued = batch->count.load(std::memory_order_seq_cst);
      for (const QueuedChange &change : ArrayRef(batch->entries, queued))
        if (change.replacement)
          rebuilt->set(change.replacement);
    }
    if (!filters.empty())
      filters.back()->retire();
    filters.push_back(std::move(rebuilt));
  }

  /// Bytes of the filters' mappings that are not retired.
  size_t getFilterMappedBytes() const {
    size_t bytes = 0;
    for (const std::unique_ptr<OpFilter> &each : filters)
      bytes += each->getMappedBytes();
    return bytes;
  }

  //===--------------------------------------------------------------------===//
  // Events
  //===--------------------------------------------------------------------===//

  LLVM_ATTRIBUTE_ALWAYS_INLINE CompactEvent
  makeEvent(TrackingEvent::Kind kind, const HandleRecord *record,
            const EventSource &source, StringRef reason = {}) {
    return events.makeEvent(kind, record->lastName, record->lastLoc, source,
                            reason);
  }

  TrackingEvent expand(const CompactEvent &event) const {
    return events.expand(event, pool.recordAt(event.recordIndex));
  }

  /// Adds `event` to the history of the root `record` (setting its record
  /// index); the observer sees it when `tx` ends. By reference: the event is
  /// built in the caller's frame and copied once, into the history.
  /// Inline: with the observer's formatting out of line, a few instructions
  /// and the append.
  LLVM_ATTRIBUTE_ALWAYS_INLINE void
  record(HandleRecord *record, CompactEvent &event, Transaction &tx) {
    event.recordIndex = pool.indexOf(record);
    if (LLVM_UNLIKELY(observer != nullptr))
      deliverLater(event, tx);
    events.appendEvent(record, event);
  }

  /// Formats `event` for the observer, who sees it when `tx` ends.
  [[gnu::noinline]] void deliverLater(const CompactEvent &event,
                                      Transaction &tx) {
    tx.deliverLater(expand(event));
  }

  /// Marks the root `record` (already unmapped) as no longer live.
  void endRecord(HandleRecord *record, HandleState state, CompactEvent &&event,
                 Transaction &tx) {
    endRecordInline(record, state, event, tx);
  }
  /// `endRecord`, inline in the erase notification (most of its calls): the
  /// event stays in the caller's registers and frame.
  LLVM_ATTRIBUTE_ALWAYS_INLINE void endRecordInline(HandleRecord *record,
                                                    HandleState state,
                                                    CompactEvent &event,
                                                    Transaction &tx) {
    noteChange();
    record->op = nullptr;
    record->state = uint8_t(state);
    this->record(record, event, tx);
  }

  /// Replaces the context-owned pointers of every record by interned text.
  void freeze() {
    EventLog::Freezer freezer(events);
    for (HandleRecord *record : pool.all())
      freezer.freeze(record);
    freezer.finish();
  }

  //===--------------------------------------------------------------------===//
  // Union-find
  //===--------------------------------------------------------------------===//

  /// Returns the root of `record`'s group, pointing every record on the way
  /// directly at it. References dropped on the way are released by `tx`.
  HandleRecord *findRoot(HandleRecord *record, Transaction &tx) {
    HandleRecord *parent = record->getParent();
    if (!parent || !parent->getParent())
      return parent ? parent : record;
    SmallVector<HandleRecord *, 8> path;
    HandleRecord *current = record;
    while (HandleRecord *next = current->getParent()) {
      path.push_back(current);
      current = next;
    }
    // From the record nearest the root down: each one takes over the events
    // its parent received since it joined, then points at the root.
    for (size_t i = path.size() - 1; i-- > 0;) {
      HandleRecord *node = path[i];
      HandleRecord *next = path[i + 1];
      events.appendHistory(node, next, events.parentStartOf(node));
      events.setParentStart(node, events.parentStartOf(next));
      HandleRecord *old = node->getParent();
      next->getParent()->refs.fetch_add(1, std::memory_order_relaxed);
      node->setParent(next->getParent());
      // `node` held the only reference to its old parent (no handle, no
      // other child): nothing reads that history again, so free it now.
      // Released with the transaction, every record of a long chain would
      // hold a full history at once (a 300,000-long chain: 300 MB).
      if (old->refs.load(std::memory_order_relaxed) == 1)
        events.freeHistory(old);
      tx.releaseLater(old);
    }
    return current;
  }

  /// Links the root `record` under the root `into`, adopting one reference
  /// to `into`.
  void link(HandleRecord *record, HandleRecord *into) {
    noteChange();
    numMerges.fetch_add(1, std::memory_order_release);
    events.setParentStart(record, events.historyEnd(into));
    record->setParent(into);
  }

  //===--------------------------------------------------------------------===//
  // Address map
  //===--------------------------------------------------------------------===//

  static Operation *scopeOf(Operation *op) { return scopeOfOp(op); }

  /// `scopeOf(op)`, read from the record of the parent of `op` when it has
  /// one: each op inserted into a deep nest from Python (where the op
  /// inserted into is tracked) then costs no walk up to its scope.
  Operation *scopeOfUnderParent(Operation *op) const {
    Operation *parent = op->getParentOp();
    if (!parent)
      return nullptr;
    if (!parent->getParentOp() ||
        parent->hasTrait<OpTrait::IsIsolatedFromAbove>())
      return parent;
    if (HandleRecord *record = byOp.lookup(parent); record && record->mapped)
      if (ScopeInfo *info = scopeIndex.infoOf(record)) {
        assert(info->op == scopeOf(op) && "a record indexed outside its scope");
        return info->op;
      }
    return scopeOf(op);
  }

  /// HandleRegistry::getChangeCount: the count in the high bits, and in
  /// bit 0 whether the count was read since it last moved. A step that may
  /// change what `OpHandle::get` says of a handle moves the count only if
  /// it was read since: two reads then differ whenever such a step came
  /// between them, and while nobody reads (a pipeline's notifications) the
  /// word is only read, so the threads notifying share its line.
  alignas(kCacheLine) mutable std::atomic<uint64_t> changeWord{0};
  static constexpr uint64_t kChangeRead = 1;
  /// HandleRegistry::getNumMerges. Moves only when records merge (an op
  /// replaced by one that has a handle); on a line of its own, so that a
  /// merge does not evict the line of changeWord that notifying threads read.
  alignas(kCacheLine) std::atomic<uint64_t> numMerges{0};

  /// Called, under the lock, by every step that maps a record again,
  /// unmaps, merges or ends one.
  /// Each move is a compare-exchange from a read word, as the one of a
  /// change queued without the lock (`noteQueuedChange`): two moves after
  /// one read make one, and a reader's flag set after a move is never
  /// overwritten.
  LLVM_ATTRIBUTE_ALWAYS_INLINE void noteChange() {
    uint64_t word = changeWord.load(std::memory_order_relaxed);
    if (word & kChangeRead)
      changeWord.compare_exchange_strong(
          word, word + 1, std::memory_order_release, std::memory_order_relaxed);
  }

  /// Lock-free. A step whose critical section follows this read (or the
  /// lock taken after it) sees kChangeRead set, and moves the count.
  uint64_t changeCount() const {
    uint64_t word = changeWord.load(std::memory_order_seq_cst);
    if (LLVM_UNLIKELY(!(word & kChangeRead)))
      word = changeWord.fetch_or(kChangeRead, std::memory_order_seq_cst);
    return word >> 1;
  }

  /// `noteChange` for a change queued without the lock, after it was
  /// published (ChangeBatch.h). Sequentially consistent with the reader's
  /// side (`changeCount`, then the lock's `applyPending`): either this
  /// sees the read flag and moves the count, or the reader's lock, taken
  /// after setting the flag, applies the change.
  void noteQueuedChange() {
    uint64_t word = changeWord.load(std::memory_order_seq_cst);
    if (word & kChangeRead)
      changeWord.compare_exchange_strong(
          word, word + 1, std::memory_order_seq_cst, std::memory_order_relaxed);
  }

  void map(HandleRecord *record, Operation *op) {
    insertKey(record, op);
    scopeIndex.setScope(record, scopeOf(op), /*indexed=*/false);
    record->mapped = true;
  }

  /// `map`, when the scope of `op` is known to be `scope`.
  void mapInScope(HandleRecord *record, Operation *op, ScopeInfo *scope) {
    insertKey(record, op);
    scopeIndex.addRecord(record, scope);
    record->mapped = true;
  }

  /// The address-map half of `map` and `mapInScope`.
  void insertKey(HandleRecord *record, Operation *op);

  /// Moves the mapped `record` to `op`, which has no record: most
  /// replacements stay in the scope of the op they replace, and then keep
  /// their place on the scope's list (no unlink and relink of neighbouring
  /// records, no scope lookup). The record's entry is taken out of the
  /// address map already (`byOp.take`, as the replace notification does),
  /// and its op is still alive (the notification comes before the erase).
  void remapTaken(HandleRecord *record, Operation *op) {
    // Most replacements are made in the block of the op they replace, so
    // in its scope: finding an op's scope asks each parent for a trait.
    Block *block = op->getBlock();
    if (block && block == record->op->getBlock()) {
      assert(scopeIndex.infoOf(record)->op == scopeOf(op) &&
             "a record indexed outside its op's scope");
      insertKey(record, op);
      return;
    }
    Operation *scope = scopeOf(op);
    if (scopeIndex.infoOf(record)->op != scope) {
      unindex(record);
      map(record, op);
      return;
    }
    insertKey(record, op);
  }

  /// With `countChange` false the change count stays: for records no
  /// handle refers to any more (being released).
  MLIR_TRACKING_HOT_PATH void unmap(HandleRecord *record,
                                    bool countChange = true) {
    if (!record->mapped)
      return;
    byOp.erase(record);
    unindex(record, countChange);
  }

  /// The rest of `unmap`, for a mapped record whose entry `byOp.take` took
  /// out of the address map: the notifications about a replaced or erased
  /// op find its record and take the entry in one probe. Until this (or
  /// `remapTaken`) runs, the record says `mapped` without an entry. One
  /// out-of-line copy (the scope unlink inlined in it) for every path: the
  /// notifications stay short.
  [[gnu::noinline]] void unindex(HandleRecord *record, bool countChange = true);

  /// Returns the record mapped at `op` with a new reference to it, or null.
  /// A record whose last handle is being released is unmapped here instead.
  HandleRecord *lookup(Operation *op);
  /// `record` (mapped), unless its last handle is being released: then
  /// unmapped, and null.
  HandleRecord *retained(HandleRecord *record);

  /// Indexes the mapped `record` under `scope`.
  void setScope(HandleRecord *record, Operation *scope) {
    scopeIndex.setScope(record, scope, record->mapped);
  }

  //===--------------------------------------------------------------------===//
  // Replace and erase
  //===--------------------------------------------------------------------===//

  /// The record of `op`, if any, follows `replacement` or merges into its
  /// record; `op` is left untracked. `seen` is what `replacement` was seen
  /// as when queued, or null to look now. `inOpBlock`: `replacement` was
  /// made in `op`'s block (so in its scope), and nothing of the IR is read
  /// (a queued change, whose `op` may be freed); else both ops are alive.
  /// Inline in the replace notification and in `applyPending`.
  LLVM_ATTRIBUTE_ALWAYS_INLINE void
  replaceOp(Operation *op, bool hasRegions, Operation *replacement,
            const SeenOp *seen, bool inOpBlock, const EventSource &source,
            Transaction &tx) {
    // `op` leaves the address map whatever follows: its entry is taken
    // with the lookup, and every path below finishes the unmap or remaps.
    HandleRecord *record = takeOwn(op);
    if (!record)
      return;
    // Set last: mapping the replacement may clear it.
    llvm::scope_exit untracked([&] { noteUntracked(op, hasRegions); });
    // A record whose last handle is being released has nothing to follow.
    if (isReleasing(record)) {
      unindex(record);
      return;
    }
    HandleRecord *existing = retained(lookupOwn(replacement, tx));
    CompactEvent event = events.makeEvent(
        TrackingEvent::Kind::Replaced, record->lastName, record->lastLoc,
        source, existing ? events.getMergedReason() : 0);
    events.setReplacement(event, seen ? *seen : EventLog::see(replacement));
    if (existing) {
      // Both handles now speak for the same op: `record` joins the group
      // of the handle that referred to it first. O(1): both are roots.
      unindex(record);
      this->record(record, event, tx);
      link(record, existing);
      return;
    }
    this->record(record, event, tx);
    record->setLastToReplacement(event);
    if (inOpBlock)
      insertKey(record, replacement);
    else
      remapTaken(record, replacement);
  }

  /// Ends the record of `op`, if any, as erased. The caller leaves `op`
  /// untracked (after the scope work, if `op` may be a scope).
  LLVM_ATTRIBUTE_ALWAYS_INLINE void eraseOp(Operation *op,
                                            const EventSource &source,
                                            const EventReason &reason,
                                            Transaction &tx) {
    HandleRecord *record = takeOwn(op);
    if (!record)
      return;
    unindex(record);
    if (isReleasing(record))
      return;
    CompactEvent event =
        events.makeEvent(TrackingEvent::Kind::Erased, record->lastName,
                         record->lastLoc, source, events.internReason(reason));
    endRecordInline(record, HandleState::Erased, event, tx);
  }

  //===--------------------------------------------------------------------===//
  // Queued changes (ChangeBatch.h)
  //===--------------------------------------------------------------------===//

  /// Applies the changes every batch published since the last call, each
  /// batch in order: by the transaction that takes the lock, before
  /// anything else.
  [[gnu::noinline]] void applyPending(Transaction &tx);
  /// Applies what `batch` published since the last call, in order.
  void applyBatchEntries(ChangeBatch &batch, Transaction &tx);
  /// Applies the next entry of `batch`.
  void applyNextEntry(ChangeBatch &batch, Transaction &tx);

  // While a batch's entry is applied with other batches registered, its
  // probes tell its records (indexed under its anchor) from the records of
  // other batches' ops that had the same address (ChangeBatch.h). The
  // entries that name an address, in all batches, follow each other in
  // time as the ops at that address do; each batch applies its own in
  // order, and the cases below fix the order between batches.

  /// Takes the record of the replaced or erased `op` out of the address
  /// map, if it has one. A record of another batch's op found at the
  /// address means that `op` had none: had it one, that op could only have
  /// been mapped there after this change was applied (`lookupOwn`).
  LLVM_ATTRIBUTE_ALWAYS_INLINE HandleRecord *takeOwn(Operation *op) {
    if (LLVM_LIKELY(!checking))
      return byOp.take(op);
    HandleRecord *record = byOp.lookup(op);
    if (!record || !isUnderAnchor(record, checking->anchor))
      return nullptr;
    [[maybe_unused]] HandleRecord *taken = byOp.take(op);
    assert(taken == record && "two records mapped at one address");
    return record;
  }
  /// The record mapped at the replacement `op`, which is alive (a batch
  /// applies its changes before it queues the erase of an op it maps,
  /// RegistryNotifier::queueChange). A record of another batch's op found
  /// at the address is stale: that op was freed before `op` took its
  /// address, by a change queued before this one, which is applied first.
  LLVM_ATTRIBUTE_ALWAYS_INLINE HandleRecord *lookupOwn(Operation *op,
                                                       Transaction &tx) {
    HandleRecord *record = byOp.lookup(op);
    if (LLVM_LIKELY(!checking) || !record)
      return record;
    return lookupOwnSlow(op, record, tx);
  }
  HandleRecord *lookupOwnSlow(Operation *op, HandleRecord *record,
                              Transaction &tx);
  /// Whether `record` is indexed under `anchor` or a scope nested in it.
  bool isUnderAnchor(const HandleRecord *record, Operation *anchor) const;
  /// Applies, up to the first that names `op`, the changes of the batch
  /// (other than those being applied) that has one naming `op`. Returns
  /// false if none has.
  bool applyForeignChangesTo(Operation *op, Transaction &tx);

  /// Lock-free, by the thread that queued a replacement: clears the slot of
  /// its own lane (the one its lock-free test reads) that may name
  /// `replacement` from an op that had its address before, so that the
  /// test does not skip the replacement's notifications before the change
  /// maps it.
  void forgetUntrackedLockFree(const Operation *replacement) {
    UntrackedLane *table =
        untrackedLanes[peekLane()].load(std::memory_order_acquire);
    if (!table)
      return;
    std::atomic<const void *> &slot = table->slots[untrackedSlot(replacement)];
    // Mostly the slot names another op: no locked instruction then.
    const void *expected = replacement;
    if (slot.load(std::memory_order_relaxed) == replacement)
      slot.compare_exchange_strong(expected, nullptr,
                                   std::memory_order_relaxed);
  }

  /// Lock-free, by the thread that queues a change of `op` (before it
  /// publishes it): notes `op` untracked in its own lane, as applying the
  /// change will. The rewriter erases the op it just replaced, and that
  /// notification then ends at the lane test instead of queueing a change
  /// that finds nothing. Safe before the change is applied: only this
  /// thread's test reads the lane without the lock; a lock holder that may
  /// read `op`'s record applies the published change first (a reader
  /// applies every batch; another pass thread's batch holds no op under
  /// this anchor); and a key added for `op` meanwhile clears the slot
  /// (`addKey`), the note being ordered before the publication. The batch maps
  /// no replacement at `op` when its change is queued (such a batch is applied
  /// first), and a replacement queued at it later clears the slot
  /// (`forgetUntrackedLockFree`): an op the batch maps is never skipped.
  /// (A consistency check on another thread in the instant between the
  /// note and the publication may name the op as noted while mapped; a
  /// note made after the publication could outlive a key added in between,
  /// which would skip the op's notifications.)
  void noteQueuedUntrackedLockFree(const Operation *op) {
    UntrackedLane *table =
        untrackedLanes[peekLane()].load(std::memory_order_acquire);
    if (table)
      table->slots[untrackedSlot(op)].store(op, std::memory_order_release);
  }

  /// Lock-free, after a replacement was queued: clears its bit in the
  /// current filter, so that the queuing thread's lock-free test passes its
  /// notifications on. A filter rebuilt meanwhile from the keys may lack it:
  /// then either this reads the new filter and clears the bit there too, or
  /// the rebuild read the entry (`reserveKeys`).
  void markQueuedReplacement(const Operation *replacement) {
    const OpFilter *current = filter.load(std::memory_order_seq_cst);
    while (current) {
      // Mostly the bit is clear already (the address was a key before):
      // no locked instruction then.
      if (!current->test(replacement))
        const_cast<OpFilter *>(current)->set(replacement);
      const OpFilter *now = filter.load(std::memory_order_seq_cst);
      if (now == current)
        return;
      current = now;
    }
  }

  /// Re-indexes the tracked ops nested in `op` (not `op` itself) where they
  /// are now, when where they were is unknown. Nested scopes are only
  /// reparented: what is inside them is indexed under them already.
  void reindexNested(Operation *op) {
    reindexNestedInScope(op, bodyScopeOf(op));
  }

  /// The same, when `op`'s body scope is known to be `scope`.
  void reindexNestedInScope(Operation *op, Operation *scope) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        reindexBlock(&block, scope);
  }

  /// The same for the ops of `block`, whose body scope is `scope`: every op
  /// walked (outside nested scopes) is in `scope`, so none looks it up.
  void reindexBlock(Block *block, Operation *scope) {
    for (Operation &nested : *block) {
      nested.walk<WalkOrder::PreOrder>([&](Operation *inner) {
        if (HandleRecord *record = byOp.lookup(inner))
          setScope(record, scope);
        if (inner->hasTrait<OpTrait::IsIsolatedFromAbove>()) {
          if (scopeIndex.contains(inner))
            scopeIndex.reparentScope(inner, scope);
          return WalkResult::skip();
        }
        return WalkResult::advance();
      });
    }
  }

  /// A move is re-indexed either by walking the moved IR (reindexBlock) or
  /// by scanning what the old scope indexes for the part inside it
  /// (ScopeIndex::moveBetweenScopes). True if the walk is the cheaper: the
  /// ops of the moved `blocks` (nested ones included) are fewer than the
  /// records and child scopes of `oldScope`. Counts each side only as far
  /// as the other goes, so that moving each of n blocks or ops stays linear
  /// in n however large either side is.
  bool walkIsCheaper(Operation *oldScope, ArrayRef<Block *> blocks) {
    ScopeInfo *info = scopeIndex.findScope(oldScope);
    if (!info)
      return false;
    size_t numChildren = info->children.size();
    HandleRecord *next = pool.recordOf(info->records);
    bool scopeLeft = true;
    auto countOne = [&](Operation *) {
      if (numChildren) {
        --numChildren;
        return WalkResult::advance();
      }
      if (!next) {
        scopeLeft = false;
        return WalkResult::interrupt();
      }
      next = pool.recordOf(next->scopeNext);
      return WalkResult::advance();
    };
    for (Block *block : blocks)
      for (Operation &op : *block)
        if (op.walk(countOne).wasInterrupted())
          return scopeLeft;
    return scopeLeft;
  }
};

// The registry's steps of the tracked path, out of line and pinned to the
// instruction-cache sets upstream's code uses least (HotPath.h).
MLIR_TRACKING_PINNED_SECTION_START(registry)

MLIR_TRACKING_PINNED(registry)
void RegistryImpl::insertKey(HandleRecord *record, Operation *op) {
  // A record mapped before (replaced, or detached and settled) now says
  // something else; a new record changes no handle.
  if (record->op)
    noteChange();
  record->op = op;
  addKey(op);
  byOp.insert(record);
  assert(!isNotedUntracked(op) && "a key noted as untracked");
}

MLIR_TRACKING_PINNED(registry)
void RegistryImpl::unindex(HandleRecord *record, bool countChange) {
  if (countChange)
    noteChange();
  scopeIndex.removeRecord(record);
  record->mapped = false;
}

MLIR_TRACKING_PINNED(registry)
HandleRecord *RegistryImpl::lookup(Operation *op) {
  return retained(byOp.lookup(op));
}

MLIR_TRACKING_PINNED(registry)
HandleRecord *RegistryImpl::retained(HandleRecord *record) {
  if (!record)
    return nullptr;
  if (tryRetain(record))
    return record;
  unmap(record, /*countChange=*/false);
  return nullptr;
}

[[gnu::always_inline]] inline Transaction::Transaction(RegistryImpl &impl)
    : impl(impl) {
  impl.mutex.lock();
  impl.activeLane.enter();
  if (LLVM_UNLIKELY(impl.numBatches != 0))
    impl.applyPending(*this);
}

Transaction::Transaction(RegistryImpl &impl, ChangeBatch &own) : impl(impl) {
  impl.mutex.lock();
  impl.activeLane.enter();
  impl.applyBatchEntries(own, *this);
}

[[gnu::always_inline]] inline Transaction::~Transaction() {
  impl.syncHasKeys();
  if (LLVM_LIKELY(!queue)) {
    impl.mutex.unlock();
    return;
  }
  unlockAndRunQueued();
}

void Transaction::unlockAndRunQueued() {
  std::unique_ptr<Queued> owned(queue);
  std::shared_ptr<const Observer> observer;
  if (!owned->events.empty())
    observer = impl.observer;
  impl.mutex.unlock();
  if (observer)
    for (const TrackingEvent &event : owned->events)
      (*observer)(event);
  // Releasing takes the lock.
  for (HandleRecord *record : owned->released)
    releaseRecord(record);
}

void RegistryImpl::applyPending(Transaction &tx) {
  for (ChangeBatch *batch : ArrayRef(batches, numBatches))
    applyBatchEntries(*batch, tx);
}

void RegistryImpl::applyBatchEntries(ChangeBatch &batch, Transaction &tx) {
  // Sequentially consistent: pairs with the store that published the last
  // change (RegistryNotifier::queueChange).
  uint32_t end = batch.count.load(std::memory_order_seq_cst);
  if (batch.applied == end)
    return;
  // The address-map slots the changes probe are scattered lines of a table
  // that does not fit in cache with every op of a large module held: loaded
  // first, their misses overlap instead of each stalling its change.
  // (Loading each change's record and scope neighbours ahead too gained
  // nothing measurable: docs/benchmarks.md, round 21.)
  for (const QueuedChange &change :
       ArrayRef(batch.entries + batch.applied, end - batch.applied))
    byOp.prefetchHome(change.op);
  while (batch.applied != end)
    applyNextEntry(batch, tx);
}

void RegistryImpl::applyNextEntry(ChangeBatch &batch, Transaction &tx) {
  const QueuedChange &change = batch.entries[batch.applied];
  // With other batches registered, probes tell this batch's records from
  // theirs (lookupOwn).
  ChangeBatch *outer = checking;
  checking = numBatches > 1 ? &batch : nullptr;
  batch.applying = true;
  if (change.replacement) {
    SeenOp seen{change.first, change.second};
    replaceOp(change.op, /*hasRegions=*/false, change.replacement, &seen,
              /*inOpBlock=*/true, *change.source, tx);
  } else {
    EventReason reason = change.format
                             ? EventReason(change.first, change.format)
                             : EventReason();
    eraseOp(change.op, *change.source, reason, tx);
    // Unless the address is mapped to a record of another batch's op
    // (takeOwn).
    if (!checking || !byOp.lookup(change.op))
      noteUntracked(change.op, /*mayBeScope=*/false);
  }
  batch.applying = false;
  checking = outer;
  ++batch.applied;
}

HandleRecord *RegistryImpl::lookupOwnSlow(Operation *op, HandleRecord *record,
                                          Transaction &tx) {
  // Mostly the record is indexed under the anchor itself.
  while (record && !isUnderAnchor(record, checking->anchor)) {
    // Each change applied here was queued before the address was freed, so
    // before this batch's change about `op`: none of them waits for a later
    // change of this batch.
    [[maybe_unused]] bool applied = applyForeignChangesTo(op, tx);
    assert(applied && "a live replacement's address mapped by another batch");
    if (!applied)
      return nullptr;
    record = byOp.lookup(op);
  }
  return record;
}

bool RegistryImpl::isUnderAnchor(const HandleRecord *record,
                                 Operation *anchor) const {
  const ScopeInfo *info = scopeIndex.infoOf(record);
  assert(info && "a mapped record outside the index");
  if (!info || info->op == anchor)
    return true;
  // A scope nested in the anchor (an isolated op inside a function).
  for (Operation *scope = info->parent; scope;) {
    if (scope == anchor)
      return true;
    const ScopeInfo *above = scopeIndex.findScope(scope);
    scope = above ? above->parent : nullptr;
  }
  return false;
}

bool RegistryImpl::applyForeignChangesTo(Operation *op, Transaction &tx) {
  for (ChangeBatch *batch : ArrayRef(batches, numBatches)) {
    if (batch->applying)
      continue;
    uint32_t end = batch->count.load(std::memory_order_seq_cst);
    for (uint32_t i = batch->applied; i != end; ++i) {
      if (batch->entries[i].op != op)
        continue;
      while (batch->applied <= i)
        applyNextEntry(*batch, tx);
      return true;
    }
  }
  return false;
}

/// Drops one reference to `record`; the last one frees it, then drops the
/// reference it held to its parent, iteratively (long merge chains must not
/// recurse).
void releaseRecord(HandleRecord *record) {
  while (record && record->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    RegistryImpl *impl = &registryOf(record);
    bool last;
    {
      Transaction tx(*impl);
      // No handle refers to it: the change count stays.
      impl->unmap(record, /*countChange=*/false);
      record = impl->freeRecord(record);
      if (impl->pool.size() == 0)
        impl->events.forgetCausesIfMany();
      last = impl->pool.size() == 0 && !impl->registryAlive;
    }
    // A record with a parent keeps the state alive: `record` is null here.
    if (last)
      delete impl;
  }
}

} // namespace mlir::tracking::detail

using mlir::tracking::detail::ChangeBatch;
using mlir::tracking::detail::CompactEvent;
using mlir::tracking::detail::EventLog;
using mlir::tracking::detail::EventReason;
using mlir::tracking::detail::EventSource;
using mlir::tracking::detail::HandleRecord;
using mlir::tracking::detail::isReleasing;
using mlir::tracking::detail::Observer;
using mlir::tracking::detail::QueuedChange;
using mlir::tracking::detail::RegistryImpl;
using mlir::tracking::detail::RegistryMutex;
using mlir::tracking::detail::RegistryNotifier;
using mlir::tracking::detail::registryOf;
using mlir::tracking::detail::releaseRecord;
using mlir::tracking::detail::ScopeInfo;
using mlir::tracking::detail::SeenOp;
using mlir::tracking::detail::Transaction;
using mlir::tracking::detail::tryRetain;

namespace {
/// Registries by context.
using Registries = mlir::tracking::detail::ContextMap<HandleRegistry>;
} // namespace

//===----------------------------------------------------------------------===//
// TrackingEvent
//===----------------------------------------------------------------------===//

StringRef mlir::tracking::stringifyHandleState(HandleState state) {
  switch (state) {
  case HandleState::Live:
    return "live";
  case HandleState::Erased:
    return "erased";
  case HandleState::Invalidated:
    return "invalidated";
  }
  llvm_unreachable("unknown handle state");
}

std::string TrackingEvent::str() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (!pass.empty()) {
    os << pass;
    if (!anchor.empty())
      os << " on " << anchor;
    os << ": ";
  }
  os << op << ": ";
  switch (kind) {
  case Kind::Replaced:
    os << "replaced by " << replacement;
    break;
  case Kind::Erased:
    os << "erased";
    break;
  case Kind::Invalidated:
    os << "invalidated";
    break;
  }
  if (!pattern.empty())
    os << " (" << pattern << ")";
  if (!reason.empty())
    os << (kind == Kind::Invalidated && pattern.empty() ? " (" : "; ") << reason
       << (kind == Kind::Invalidated && pattern.empty() ? ")" : "");
  return text;
}

//===----------------------------------------------------------------------===//
// OpHandle
//===----------------------------------------------------------------------===//

OpHandle::OpHandle(const OpHandle &other) : record(other.record) {
  if (record)
    record->refs.fetch_add(1, std::memory_order_relaxed);
}

OpHandle &OpHandle::operator=(const OpHandle &other) {
  if (other.record)
    other.record->refs.fetch_add(1, std::memory_order_relaxed);
  releaseRecord(record);
  record = other.record;
  return *this;
}

OpHandle &OpHandle::operator=(OpHandle &&other) noexcept {
  if (this != &other) {
    releaseRecord(record);
    record = other.record;
    other.record = nullptr;
  }
  return *this;
}

OpHandle::~OpHandle() { releaseRecord(record); }

Operation *OpHandle::get() const {
  bool isCanonical;
  return get(isCanonical);
}

Operation *OpHandle::get(bool &isCanonical) const {
  isCanonical = false;
  if (!record)
    return nullptr;
  RegistryImpl &impl = registryOf(record);
  HandleRecord *root;
  {
    // Mostly the root is at most one step away: nothing to compress, so a
    // plain lock will do.
    std::lock_guard<RegistryMutex> lock(impl.mutex);
    HandleRecord *parent = record->getParent();
    // Queued changes are applied by a transaction first.
    if (!impl.numBatches && (!parent || !parent->getParent())) {
      root = parent ? parent : record;
      if (root->getState() != HandleState::Live)
        return nullptr;
      // A live root is mapped at its op, except while being detached (which
      // reads as invalidated).
      isCanonical = root == record && record->mapped;
      return root->op;
    }
  }
  Transaction tx(impl);
  root = impl.findRoot(record, tx);
  return root->getState() == HandleState::Live ? root->op : nullptr;
}

uint32_t OpHandle::getIdentityIndex() const {
  assert(record && "identity index of an empty handle");
  // A record's chunk and slot never change: no lock.
  return registryOf(record).indexOf(record);
}

HandleState OpHandle::getState() const {
  if (!record)
    return HandleState::Erased;
  Transaction tx(registryOf(record));
  return tx.impl.findRoot(record, tx)->getState();
}

bool OpHandle::isNestedIn(Operation *scope) const {
  if (!record)
    return false;
  Transaction tx(registryOf(record));
  RegistryImpl &impl = tx.impl;
  HandleRecord *root = impl.findRoot(record, tx);
  if (root->getState() != HandleState::Live || !root->mapped)
    return false;
  if (root->op == scope)
    return true;
  // Up the scope tree: scope keys are compared, never dereferenced.
  for (ScopeInfo *info = impl.scopeIndex.infoOf(root); info && info->op;
       info = impl.scopeIndex.findScope(info->parent))
    if (info->op == scope)
      return true;
  return false;
}

std::string OpHandle::getLastName() const {
  if (!record)
    return "";
  Transaction tx(registryOf(record));
  return tx.impl.events
      .nameText(tx.impl.findRoot(record, tx)->getLast(tx.impl.events))
      .str();
}

std::string OpHandle::getLastLocation() const {
  if (!record)
    return "";
  Transaction tx(registryOf(record));
  return tx.impl.events.locationText(
      tx.impl.findRoot(record, tx)->getLast(tx.impl.events));
}

std::vector<TrackingEvent> OpHandle::getHistory() const {
  std::vector<TrackingEvent> result;
  if (!record)
    return result;
  Transaction tx(registryOf(record));
  RegistryImpl &impl = tx.impl;
  impl.findRoot(record, tx);
  // Own events (including those folded in by path compression), then those
  // of the root since this record joined it.
  const HandleRecord *own = record;
  for (const CompactEvent &event : impl.events.eventsOf(own))
    result.push_back(impl.expand(event));
  for (const CompactEvent &event : impl.events.sharedEvents(own))
    result.push_back(impl.expand(event));
  return result;
}

std::string OpHandle::describe() const {
  if (!record)
    return "empty operation handle";
  HandleState state = getState();
  std::string text;
  {
    Transaction tx(registryOf(record));
    SeenOp last = tx.impl.findRoot(record, tx)->getLast(tx.impl.events);
    text = "operation handle to '" + tx.impl.events.nameText(last).str() +
           "' at " + tx.impl.events.locationText(last) + " is " +
           stringifyHandleState(state).str();
  }
  if (state == HandleState::Live)
    return text;
  std::vector<TrackingEvent> history = getHistory();
  if (!history.empty())
    text += ": " + history.back().str();
  return text;
}

bool OpHandle::operator==(const OpHandle &other) const {
  return getKey() == other.getKey();
}

size_t OpHandle::hash() const { return std::hash<const void *>()(getKey()); }

const void *OpHandle::getKey() const {
  if (!record)
    return nullptr;
  Transaction tx(registryOf(record));
  return tx.impl.findRoot(record, tx);
}

bool OpHandle::sameOp(const OpHandle &other) const {
  return getKey() == other.getKey();
}

//===----------------------------------------------------------------------===//
// HandleRegistry
//===----------------------------------------------------------------------===//

HandleRegistry::HandleRegistry(MLIRContext *context)
    : context(context), impl(new RegistryImpl()) {
  if (!Registries::insert(context, this))
    llvm::report_fatal_error(
        "mlir-tracking: this MLIRContext already has a HandleRegistry");
}

HandleRegistry::~HandleRegistry() {
  Registries::erase(context);
  {
    // Applies what the batches queued first; a listener that still holds
    // one (a PassTrackingListener destroyed after the registry) then finds
    // it unregistered rather than pointing to this freed object.
    Transaction tx(*impl);
    for (ChangeBatch *batch : ArrayRef(impl->batches, impl->numBatches)) {
      batch->count.store(0, std::memory_order_relaxed);
      batch->applied = 0;
      batch->queuedOps = 0;
      batch->queuedReplacements = 0;
      batch->registry = nullptr;
      batch->anchor = nullptr;
      batch->anchorPath.clear();
    }
    std::fill(impl->batches, impl->batches + impl->numBatches, nullptr);
    impl->numBatches = 0;
    impl->byOp.forEach([&](HandleRecord *record) {
      record->mapped = false;
      record->scope = 0;
      record->scopePrev = record->scopeNext = 0;
      if (record->getState() != HandleState::Live || isReleasing(record)) {
        record->op = nullptr;
        return;
      }
      impl->endRecord(record, HandleState::Erased,
                      impl->makeEvent(TrackingEvent::Kind::Erased, record, {},
                                      "tracking ended (registry destroyed)"),
                      tx);
    });
    impl->byOp.clear();
    impl->scopeIndex.clear();
    // Handles may outlive the registry, and the context after it: their
    // names, locations and histories become text.
    impl->freeze();
  }
  // The state lives on while records do; the last one deletes it.
  bool last;
  {
    Transaction tx(*impl);
    impl->registryAlive = false;
    last = impl->pool.size() == 0;
  }
  if (last)
    delete impl;
}

HandleRegistry *HandleRegistry::lookup(MLIRContext *context) {
  return Registries::lookup(context);
}

OpHandle HandleRegistry::getHandle(Operation *op) {
  // This registry never hears of another context's rewrites.
  if (op->getContext() != context)
    return OpHandle();
  Transaction tx(*impl);
  if (HandleRecord *existing = impl->lookup(op))
    return OpHandle(existing);
  HandleRecord *record = impl->allocateRecord();
  record->setLast(impl->events, EventLog::see(op));
  impl->map(record, op);
  return OpHandle(record);
}

void HandleRegistry::eraseNested(Operation *root, StringRef reason) {
  if (root->getContext() != context)
    return;
  detail::EventSource source;
  source.pass = "HandleRegistry::eraseNested";
  RegistryNotifier notifier(*this);
  // Nested ops first: an erased scope takes its index entry with it.
  if (notifier.hasHandles())
    root->walk([&](Operation *op) {
      if (op->getNumRegions() != 0 || notifier.mayBeTracked(op))
        notifier.notifyOperationErased(op, source, EventReason(reason));
    });
  if (BlockValueRegistry *units = BlockValueRegistry::lookup(context))
    units->eraseNested(root, reason);
}

void HandleRegistry::eraseNested(Operation *root) {
  eraseNested(root, "its IR was destroyed");
}

/// How many steps ahead the batch calls (getHandles, releaseHandles) load
/// the records and address-map slots they will touch: a large batch's
/// records are mostly cold and its slots scattered lines of a table larger
/// than the caches, so loaded ahead their misses overlap.
static constexpr size_t kBatchLoadAhead = 8;

std::vector<OpHandle> HandleRegistry::getHandles(ArrayRef<Operation *> ops) {
  std::vector<OpHandle> handles;
  handles.reserve(ops.size());
  Transaction tx(*impl);
  impl->byOp.reserve(impl->byOp.size() + ops.size());
  // Each new record adds a key (and a few a scope): the filter is sized once.
  impl->reserveKeys(impl->byOp.size() + impl->scopeIndex.size() + ops.size());
  // Consecutive ops mostly share a parent, hence a scope: finding the scope
  // (a trait lookup per ancestor, then the index) is done once per parent.
  // A scope a record was just indexed under cannot be pruned meanwhile.
  Operation *lastParent = nullptr;
  ScopeInfo *lastScope = nullptr;
  // The body scope of each parent found so far: in deeply nested IR each op
  // has a parent of its own, and walking up to the scope for each would
  // make a walk's snapshot quadratic in the depth.
  DenseMap<Operation *, Operation *> bodyScopes;
  auto bodyScopeOfParent = [&](Operation *parent) {
    SmallVector<Operation *> path;
    Operation *scope = parent;
    for (Operation *current = parent;; current = current->getParentOp()) {
      auto known = bodyScopes.find(current);
      if (known != bodyScopes.end()) {
        scope = known->second;
        break;
      }
      path.push_back(current);
      if (!current->getParentOp() ||
          current->hasTrait<OpTrait::IsIsolatedFromAbove>()) {
        scope = current;
        break;
      }
    }
    for (Operation *op : path)
      bodyScopes[op] = scope;
    return scope;
  };
  for (auto [i, op] : llvm::enumerate(ops)) {
    if (i + kBatchLoadAhead < ops.size())
      impl->byOp.prefetchHome(ops[i + kBatchLoadAhead]);
    if (HandleRecord *existing = impl->lookup(op)) {
      handles.push_back(OpHandle(existing));
      continue;
    }
    // Ops of one parent share a context: checked with the scope.
    Operation *parent = op->getParentOp();
    if (!lastScope || parent != lastParent || !parent) {
      if (op->getContext() != context) {
        handles.push_back(OpHandle());
        lastScope = nullptr;
        continue;
      }
      lastParent = parent;
      lastScope = impl->scopeIndex.ensureScope(
          parent ? bodyScopeOfParent(parent) : nullptr);
    }
    HandleRecord *record = impl->pool.allocate();
    record->setLast(impl->events, EventLog::see(op));
    impl->mapInScope(record, op, lastScope);
    handles.push_back(OpHandle(record));
  }
  return handles;
}

void HandleRegistry::releaseHandles(MutableArrayRef<OpHandle> handles) {
  SmallVector<HandleRecord *> released;
  for (auto [i, handle] : llvm::enumerate(handles)) {
    if (i + kBatchLoadAhead < handles.size() &&
        handles[i + kBatchLoadAhead].record)
      __builtin_prefetch(handles[i + kBatchLoadAhead].record, /*rw=*/1);
    HandleRecord *record = std::exchange(handle.record, nullptr);
    if (!record)
      continue;
    // A handle of another registry takes that registry's lock, on its own.
    if (&registryOf(record) != impl) {
      releaseRecord(record);
      continue;
    }
    // As in releaseRecord: from here on the record is never handed out
    // again (tryRetain refuses it), though it stays mapped until freed.
    if (record->refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
      released.push_back(record);
  }
  if (released.empty())
    return;
  SmallVector<HandleRecord *> parents;
  {
    Transaction tx(*impl);
    for (auto [i, record] : llvm::enumerate(released)) {
      if (i + kBatchLoadAhead < released.size() &&
          released[i + kBatchLoadAhead]->mapped)
        impl->byOp.prefetch(released[i + kBatchLoadAhead]);
      impl->unmap(record, /*countChange=*/false);
      if (HandleRecord *parent = impl->freeRecord(record))
        parents.push_back(parent);
    }
    if (impl->pool.size() == 0)
      impl->events.forgetCausesIfMany();
    // No handle refers to a released record (a merged record holds a
    // reference to its root): what OpHandle::get says of every handle is as
    // before, so the change count stays.
  }
  // This registry is alive: freeing records cannot end its state.
  for (HandleRecord *parent : parents)
    releaseRecord(parent);
}

void HandleRegistry::resolveHandles(
    ArrayRef<OpHandle> handles,
    MutableArrayRef<ResolvedHandle> resolved) const {
  assert(handles.size() == resolved.size() && "one result per handle");
  bool foreign = false;
  {
    Transaction tx(*impl);
    for (auto [handle, result] : llvm::zip_equal(handles, resolved)) {
      result = ResolvedHandle();
      HandleRecord *record = handle.record;
      if (!record)
        continue;
      // Another registry's handle is read after this lock is released (two
      // registry locks are never held at once).
      if (&registryOf(record) != impl) {
        foreign = true;
        continue;
      }
      HandleRecord *root = impl->findRoot(record, tx);
      if (root->getState() != HandleState::Live)
        continue;
      result.op = root->op;
      // As in OpHandle::get: a live root is mapped at its op, except while
      // being detached.
      result.isCanonical = root == record && record->mapped;
    }
  }
  if (foreign)
    for (auto [handle, result] : llvm::zip_equal(handles, resolved))
      if (handle.record && &registryOf(handle.record) != impl)
        result.op = handle.get(result.isCanonical);
}

uint64_t HandleRegistry::getChangeCount() const { return impl->changeCount(); }

uint64_t HandleRegistry::getNumMerges() const {
  return impl->numMerges.load(std::memory_order_acquire);
}

OpHandle HandleRegistry::lookupHandle(Operation *op) const {
  Transaction tx(*impl);
  return OpHandle(impl->lookup(op));
}

bool HandleRegistry::isTracked(Operation *op) const {
  Transaction tx(*impl);
  return impl->byOp.lookup(op) != nullptr;
}

size_t HandleRegistry::getNumTrackedOps() const {
  Transaction tx(*impl);
  return impl->byOp.size();
}

size_t HandleRegistry::getMappedBytes() const {
  Transaction tx(*impl);
  return impl->arena.getMappedBytes() + impl->getFilterMappedBytes();
}

void HandleRegistry::forEachTrackedOp(
    llvm::function_ref<void(Operation *)> fn) const {
  // `fn` may erase or replace tracked ops (with a rewriter) that come later
  // in the list: a reference to each record tells, before its call, whether
  // its op is still the one listed, never a freed one or another op at its
  // address.
  std::vector<Operation *> ops;
  std::vector<OpHandle> handles;
  {
    Transaction tx(*impl);
    impl->byOp.forEach([&](HandleRecord *record) {
      if (!tryRetain(record))
        return;
      ops.push_back(record->op);
      handles.push_back(OpHandle(record));
    });
  }
  for (auto [op, handle] : llvm::zip_equal(ops, handles))
    if (handle.get() == op)
      fn(op);
}

void HandleRegistry::setEventObserver(
    std::function<void(const TrackingEvent &)> observer) {
  std::shared_ptr<const Observer> shared;
  if (observer)
    shared = std::make_shared<const Observer>(std::move(observer));
  // Changes queued before are applied (and their events delivered) under
  // the observer they were made under.
  { Transaction applyQueued(*impl); }
  std::lock_guard<RegistryMutex> lock(impl->mutex);
  // The previous observer may still be running on another thread: its copy
  // of the pointer keeps it alive.
  impl->observer = std::move(shared);
}

std::vector<std::string> HandleRegistry::verifyAgainst(Operation *root) const {
  llvm::DenseMap<Operation *, OperationName> present;
  root->walk([&](Operation *op) { present.try_emplace(op, op->getName()); });
  std::vector<std::string> problems;
  Transaction tx(*impl);
  impl->byOp.forEach([&](HandleRecord *record) {
    std::string lastName =
        impl->events.nameText(record->getLast(impl->events)).str();
    auto it = present.find(record->op);
    if (it == present.end()) {
      problems.push_back(
          "registry maps an op that is not in the IR (last "
          "seen as '" +
          lastName + "' at " +
          impl->events.locationText(record->getLast(impl->events)) + ")");
      return;
    }
    if (it->second.getAsOpaquePointer() != record->getLast(impl->events).name)
      problems.push_back(
          "handle bound to '" + lastName + "' at " +
          impl->events.locationText(record->getLast(impl->events)) +
          " now points at '" + it->second.getStringRef().str() + "'");
    if (impl->byOp.lookup(record->op) != record || !record->mapped ||
        record->getParent() || record->getState() != HandleState::Live)
      problems.push_back("inconsistent record for '" + lastName + "'");
    Operation *expectedScope = RegistryImpl::scopeOf(record->op);
    ScopeInfo *info = impl->scopeIndex.infoOf(record);
    if (!info || info->op != expectedScope)
      problems.push_back(
          "handle to '" + lastName + "' at " +
          impl->events.locationText(record->getLast(impl->events)) +
          " is indexed under the wrong scope");
  });
  // The lock-free shortcut never names a key (else a notification about it
  // would be skipped).
  for (const void *op : impl->checkUntracked())
    problems.push_back(
        "an op noted as untracked is tracked or a scope (address " +
        std::to_string(uintptr_t(op)) + ")");
  // Every indexed record is mapped where it is indexed. (Scopes are not
  // checked against `root`: callers check one root of several at a time.)
  impl->scopeIndex.forEachScopeInfo([&](const ScopeInfo &info) {
    for (HandleRecord *record : impl->scopeIndex.recordsOf(info))
      if (!record->mapped || record->scope != info.id)
        problems.push_back(
            "the scope index holds a stale record for '" +
            impl->events.nameText(record->getLast(impl->events)).str() + "'");
  });
  // A scope in this IR sits under its enclosing scope, so that a
  // non-precise pass on that one reaches the handles in it.
  impl->scopeIndex.forEachScopeInfo([&](const ScopeInfo &info) {
    if (!info.op || !present.count(info.op))
      return;
    ScopeInfo *parent = impl->scopeIndex.findScope(info.parent);
    if (info.parent != RegistryImpl::scopeOf(info.op) || !parent ||
        !parent->children.contains(info.op))
      problems.push_back("the scope '" +
                         info.op->getName().getStringRef().str() +
                         "' is indexed under the wrong parent scope");
  });
  return problems;
}

//===----------------------------------------------------------------------===//
// RegistryNotifier
//===----------------------------------------------------------------------===//

namespace {
/// For an erased `op` that may be a scope: ends the records still indexed
/// in its scope subtree and drops the subtree from the index.
[[gnu::noinline]] void eraseScopeOf(RegistryImpl &impl, Operation *op,
                                    const EventSource &source,
                                    Transaction &tx) {
  // Nested ops were notified first; whatever scope `op` was is now empty of
  // records, but drop it explicitly in case a nested erase went unnotified.
  SmallVector<Operation *> subtree;
  SmallVector<HandleRecord *> orphans;
  Operation *parent = nullptr;
  if (!impl.scopeIndex.collectSubtree(op, orphans, subtree, parent))
    return;
  for (HandleRecord *orphan : orphans) {
    impl.unmap(orphan);
    if (isReleasing(orphan) || orphan->getState() != HandleState::Live)
      continue;
    impl.endRecord(orphan, HandleState::Erased,
                   impl.makeEvent(TrackingEvent::Kind::Erased, orphan, source,
                                  "an ancestor was erased"),
                   tx);
  }
  // Unmapping emptied the subtree; drop what is left of it.
  impl.scopeIndex.eraseSubtree(op, subtree, parent);
}
} // namespace

Operation *RegistryNotifier::getBodyScope(Operation *op) {
  return bodyScopeOf(op);
}

MLIR_TRACKING_HOT_PATH bool
RegistryNotifier::mayBeTracked(Operation *op) const {
  return registry.impl->mayHaveKey(op);
}

bool RegistryNotifier::hasHandles() const {
  return registry.impl->hasKeys.load(std::memory_order_acquire);
}

const tracking::detail::LockFreeKeys &
RegistryNotifier::getLockFreeKeys() const {
  return *registry.impl;
}

size_t RegistryNotifier::getNumEventSources() const {
  Transaction tx(*registry.impl);
  return registry.impl->events.getNumSources();
}

MLIR_TRACKING_PINNED_SECTION_START(replace)

MLIR_TRACKING_PINNED(replace)
void RegistryNotifier::notifyOperationReplaced(Operation *op,
                                               Operation *replacement,
                                               const EventSource &source) {
  if (op == replacement)
    return;
  // This registry is never told about an op of another context (its erasure
  // goes to that context's registry): the handle cannot follow it there.
  if (replacement->getContext() != op->getContext())
    return notifyErased(op, source,
                        EventReason("replaced by an op of another context"),
                        op->getNumRegions() != 0);
  RegistryImpl &impl = *registry.impl;
  Transaction tx(impl);
  impl.replaceOp(op, op->getNumRegions() != 0, replacement, /*seen=*/nullptr,
                 /*inOpBlock=*/false, source, tx);
}

MLIR_TRACKING_PINNED_SECTION_START(erase)

// Not pinned: the listener's tracked path calls the overload that takes
// whether the op has regions (RegistryNotifier.h).
void RegistryNotifier::notifyOperationErased(Operation *op,
                                             const EventSource &source,
                                             const EventReason &reason) {
  notifyErased(op, source, reason, /*mayBeScope=*/op->getNumRegions() != 0);
}

void RegistryNotifier::notifyFreedOperationErased(Operation *op,
                                                  const EventSource &source,
                                                  StringRef reason) {
  notifyErased(op, source, EventReason(reason), /*mayBeScope=*/true);
}

MLIR_TRACKING_PINNED(erase)
void RegistryNotifier::notifyErased(Operation *op, const EventSource &source,
                                    const EventReason &reason,
                                    bool mayBeScope) {
  RegistryImpl &impl = *registry.impl;
  Transaction tx(impl);
  impl.eraseOp(op, source, reason, tx);
  // Only an op with regions can be a scope (see noteUntracked): most erased
  // ops skip the scope work, kept out of line.
  if (mayBeScope)
    eraseScopeOf(impl, op, source, tx);
  // `op` is left untracked (a rewriter erases an op it replaced: the erase
  // notification follows this one).
  impl.noteUntracked(op, mayBeScope);
}

bool RegistryNotifier::startBatch(ChangeBatch &batch, Operation *anchor) {
  RegistryImpl &impl = *registry.impl;
  // Registering reads no record: the other batches' changes can wait for
  // their threads (the idle `batch` applies nothing).
  Transaction tx(impl, batch);
  assert(!batch.registry && batch.count.load(std::memory_order_relaxed) == 0 &&
         "starting a batch in use");
  if (impl.numBatches == RegistryImpl::kMaxBatches)
    return false;
  // The probes of a batch tell its records by its anchor: the anchors of
  // batches registered at once must be disjoint (a pass that runs a nested
  // pipeline has its anchor around the nested passes'), and a batch
  // without one is registered alone. Only the ops above `anchor` are read,
  // which no pass under it changes.
  batch.anchorPath.clear();
  for (Operation *around = anchor; around; around = around->getParentOp())
    batch.anchorPath.push_back(around);
  for (ChangeBatch *other : ArrayRef(impl.batches, impl.numBatches))
    if (!anchor || !other->anchor ||
        llvm::is_contained(batch.anchorPath, other->anchor) ||
        llvm::is_contained(other->anchorPath, anchor))
      return false;
  impl.batches[impl.numBatches++] = &batch;
  batch.registry = &registry;
  batch.anchor = anchor;
  return true;
}

void RegistryNotifier::queueChange(ChangeBatch &batch, Operation *op,
                                   Operation *replacement,
                                   const EventSource &source,
                                   const EventReason &reason) {
  assert(batch.registry == &registry && "a batch of another registry");
  assert(op->getNumRegions() == 0 && "a queued op with regions");
  assert((!replacement || replacement->getBlock() == op->getBlock()) &&
         "a queued replacement outside the op's block");
  assert((reason.format || reason.text.empty()) && "a queued reason as text");
  RegistryImpl &impl = *registry.impl;
  // An op this batch maps as a replacement is not freed before that change
  // is applied: another pass thread could take its address and map it
  // first (RegistryImpl::lookupOwn).
  if (LLVM_UNLIKELY(batch.queuedReplacements & ChangeBatch::opBit(op)) &&
      batch.mapsReplacement(op))
    applyBatch(batch);
  if (replacement) {
    // Applying a queued change notes its op untracked in the applier's
    // lane, which may be this thread's: the replacement takes the address
    // of a queued op only once that change is applied, or the note could
    // land after the slot is cleared below.
    if (LLVM_UNLIKELY(batch.queuedOps & ChangeBatch::opBit(replacement)))
      applyBatch(batch);
    impl.forgetUntrackedLockFree(replacement);
    batch.queuedReplacements |= ChangeBatch::opBit(replacement);
  }
  uint32_t index = batch.count.load(std::memory_order_relaxed);
  QueuedChange &change = batch.entries[index];
  change.op = op;
  change.replacement = replacement;
  change.source = &source;
  if (replacement) {
    SeenOp seen = EventLog::see(replacement);
    change.first = seen.name;
    change.second = seen.loc;
    change.format = nullptr;
  } else {
    change.first = reason.key;
    change.second = nullptr;
    change.format = reason.format;
  }
  batch.queuedOps |= ChangeBatch::opBit(op);
  impl.noteQueuedUntrackedLockFree(op);
  // Published: from here on every transaction applies it first.
  // Sequentially consistent, as the reads that follow (the change word,
  // the filter) and the other threads' accesses they pair with: each side
  // stores, then loads what the other stored.
  batch.count.store(index + 1, std::memory_order_seq_cst);
  impl.noteQueuedChange();
  if (replacement)
    impl.markQueuedReplacement(replacement);
  if (index + 1 == ChangeBatch::kCapacity)
    applyBatch(batch);
}

void RegistryNotifier::applyBatch(ChangeBatch &batch) {
  assert(batch.registry == &registry && "a batch of another registry");
  // The transaction applies it (alone: the other batches are about ops
  // under other anchors); emptied under the lock, which every reader of
  // its entries holds.
  Transaction tx(*registry.impl, batch);
  batch.count.store(0, std::memory_order_relaxed);
  batch.applied = 0;
  batch.queuedOps = 0;
  batch.queuedReplacements = 0;
}

void RegistryNotifier::finishBatch(ChangeBatch &batch) {
  assert(batch.registry == &registry && "a batch of another registry");
  RegistryImpl &impl = *registry.impl;
  Transaction tx(impl, batch);
  ChangeBatch **slot =
      std::find(impl.batches, impl.batches + impl.numBatches, &batch);
  assert(slot != impl.batches + impl.numBatches &&
         "finishing a batch not registered");
  *slot = impl.batches[--impl.numBatches];
  impl.batches[impl.numBatches] = nullptr;
  batch.count.store(0, std::memory_order_relaxed);
  batch.applied = 0;
  batch.queuedOps = 0;
  batch.queuedReplacements = 0;
  batch.registry = nullptr;
  batch.owner = nullptr;
  batch.anchor = nullptr;
  batch.anchorPath.clear();
}

void RegistryNotifier::notifyOperationMoved(Operation *op,
                                            Operation *oldScope) {
  Operation *newScope = getBodyScope(op);
  RegistryImpl &impl = *registry.impl;
  Transaction tx(impl);
  if (HandleRecord *record = impl.byOp.lookup(op))
    impl.setScope(record, RegistryImpl::scopeOf(op));
  if (impl.scopeIndex.contains(op) && newScope == op)
    impl.scopeIndex.reparentScope(op, RegistryImpl::scopeOf(op));

  // Records and scopes below `op` that were indexed under the old scope now
  // belong to the new one. None were if `op` holds no ops: then the old
  // scope's records are not scanned (moving each op of a function into
  // another stays linear). (An op that was a scope itself has `oldScope`
  // == `op`: what is in it stays indexed under it.)
  if (op->getNumRegions() == 0 || oldScope == newScope)
    return;
  SmallVector<Block *> blocks;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      blocks.push_back(&block);
  if (impl.walkIsCheaper(oldScope, blocks)) {
    impl.reindexNested(op);
    return;
  }
  impl.scopeIndex.moveBetweenScopes(oldScope, newScope, [&](Operation *nested) {
    return op->isProperAncestor(nested);
  });
}

void RegistryNotifier::notifyOperationInserted(Operation *op) {
  RegistryImpl &impl = *registry.impl;
  Transaction tx(impl);
  // Most inserted ops are new, and most registries small: nothing to do
  // without handles (then the scope index is empty too).
  if (impl.scopeIndex.empty())
    return;
  Operation *scope = impl.scopeOfUnderParent(op);
  // Whether the index knew `op` as a root (its record in the top scope).
  bool wasRoot = false;
  if (HandleRecord *record = impl.byOp.lookup(op)) {
    if (record->mapped)
      if (ScopeInfo *info = impl.scopeIndex.infoOf(record))
        wasRoot = info->op == nullptr;
    impl.setScope(record, scope);
  }
  // Whether `op` is a scope itself (bodyScopeOf(op) == op), without walking
  // up to its scope: inserting each op of a deep nest stays linear.
  if (!op->getParentOp() || op->hasTrait<OpTrait::IsIsolatedFromAbove>()) {
    // What is inside a scope is indexed under it: only the scope moves.
    if (impl.scopeIndex.contains(op))
      impl.scopeIndex.reparentScope(op, scope);
    return;
  }
  if (op->getNumRegions() == 0)
    return;
  // A root the index knew as one: what is under it is indexed under it (it
  // was its own scope), and moves to `scope` without a walk (building a
  // nest inside out inserts each root holding the whole nest so far).
  if (wasRoot) {
    impl.scopeIndex.moveBetweenScopes(op, scope,
                                      [](Operation *) { return true; });
    return;
  }
  // `op` may have been unlinked with remove() elsewhere, its tracked
  // descendants still indexed under the scope it left.
  impl.reindexNestedInScope(op, scope);
}

void RegistryNotifier::notifyBlockMoved(Block *block, Operation *oldScope) {
  Operation *parent = block->getParentOp();
  if (!parent)
    return;
  if (block->empty())
    return;
  Operation *newScope = getBodyScope(parent);
  if (oldScope == newScope)
    return;
  RegistryImpl &impl = *registry.impl;
  Transaction tx(impl);
  if (impl.walkIsCheaper(oldScope, block)) {
    impl.reindexBlock(block, newScope);
    return;
  }
  impl.scopeIndex.moveBetweenScopes(oldScope, newScope, [&](Operation *nested) {
    return block->findAncestorOpInBlock(*nested);
  });
}

void RegistryNotifier::notifyBlockInserted(Block *block) {
  if (!block->getParentOp() || block->empty())
    return;
  RegistryImpl &impl = *registry.impl;
  Transaction tx(impl);
  if (!impl.scopeIndex.empty())
    impl.reindexBlock(block, getBodyScope(block->getParentOp()));
}

size_t RegistryNotifier::invalidateNested(Operation *anchor,
                                          const EventSource &source,
                                          StringRef reason) {
  RegistryImpl &impl = *registry.impl;
  Transaction tx(impl);
  size_t invalidated = 0;
  for (HandleRecord *record : impl.scopeIndex.collectNested(anchor)) {
    impl.unmap(record);
    if (isReleasing(record) || record->getState() != HandleState::Live)
      continue;
    impl.endRecord(record, HandleState::Invalidated,
                   impl.makeEvent(TrackingEvent::Kind::Invalidated, record,
                                  source, reason),
                   tx);
    ++invalidated;
  }
  return invalidated;
}

RegistryNotifier::DetachedRecords
RegistryNotifier::detachNested(Operation *anchor) {
  RegistryImpl &impl = *registry.impl;
  Transaction tx(impl);
  DetachedRecords detached;
  for (HandleRecord *record : impl.scopeIndex.collectNested(anchor)) {
    impl.unmap(record);
    if (record->getState() != HandleState::Live || !tryRetain(record))
      continue;
    record->state = uint8_t(HandleState::Invalidated);
    record->detached = true;
    detached.push_back(OpHandle(record));
  }
  return detached;
}

void RegistryNotifier::resolveDetached(const OpHandle &handle, Operation *op,
                                       HandleState state,
                                       const EventSource &source,
                                       StringRef reason) {
  if (!handle.record)
    return;
  RegistryImpl &impl = *registry.impl;
  Transaction tx(impl);
  HandleRecord *record = impl.findRoot(handle.record, tx);
  if (!record->detached)
    return;
  record->detached = false;
  if (!op) {
    impl.endRecord(record, state,
                   impl.makeEvent(state == HandleState::Erased
                                      ? TrackingEvent::Kind::Erased
                                      : TrackingEvent::Kind::Invalidated,
                                  record, source, reason),
                   tx);
    return;
  }
  record->state = uint8_t(HandleState::Live);
  // The old address is only compared, never dereferenced: it may be freed.
  bool replaced = record->op != op;
  SeenOp seen = EventLog::see(op);
  HandleRecord *existing = impl.lookup(op);
  if (replaced || existing) {
    CompactEvent event =
        impl.makeEvent(TrackingEvent::Kind::Replaced, record, source, reason);
    impl.events.setReplacement(event, seen);
    if (existing) {
      impl.events.setReason(event, impl.events.getMergedReason());
      impl.record(record, event, tx);
      impl.link(record, existing);
      return;
    }
    impl.record(record, event, tx);
  }
  record->setLast(impl.events, seen);
  impl.map(record, op);
}

void RegistryNotifier::invalidateDetached(DetachedRecords &records,
                                          const EventSource &source,
                                          StringRef reason) {
  RegistryImpl &impl = *registry.impl;
  Transaction tx(impl);
  for (const OpHandle &held : records) {
    HandleRecord *record = impl.findRoot(held.record, tx);
    if (!record->detached)
      continue;
    record->detached = false;
    impl.endRecord(record, HandleState::Invalidated,
                   impl.makeEvent(TrackingEvent::Kind::Invalidated, record,
                                  source, reason),
                   tx);
  }
}

std::vector<std::string>
RegistryNotifier::verifyNested(Operation *anchor, const EventSource *repair) {
  llvm::DenseMap<Operation *, OperationName> present;
  anchor->walk([&](Operation *op) {
    if (op != anchor)
      present.try_emplace(op, op->getName());
  });
  std::vector<std::string> problems;
  RegistryImpl &impl = *registry.impl;
  Transaction tx(impl);
  for (HandleRecord *record : impl.scopeIndex.collectNested(anchor)) {
    std::string problem;
    auto it = present.find(record->op);
    std::string seen =
        "handle to '" +
        impl.events.nameText(record->getLast(impl.events)).str() + "' at " +
        impl.events.locationText(record->getLast(impl.events));
    if (it == present.end())
      problem = seen + " maps an op that is no longer in the IR";
    else if (it->second.getAsOpaquePointer() !=
             record->getLast(impl.events).name)
      problem =
          seen + " now points at '" + it->second.getStringRef().str() + "'";
    else if (impl.scopeIndex.infoOf(record)->op !=
             RegistryImpl::scopeOf(record->op))
      problem = seen + " is indexed under the wrong scope";
    if (problem.empty())
      continue;
    problems.push_back(problem);
    if (!repair)
      continue;
    impl.unmap(record);
    if (isReleasing(record))
      continue;
    impl.endRecord(record, HandleState::Invalidated,
                   impl.makeEvent(TrackingEvent::Kind::Invalidated, record,
                                  *repair, "tracking verification: " + problem),
                   tx);
  }
  return problems;
}
