//===- HandleRegistry.cpp - Operation handles that survive rewrites -------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "mlir/Tracking/HandleRegistry.h"
#include "RegistryNotifier.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <optional>
#include <shared_mutex>
#include <tuple>

using namespace mlir;
using namespace mlir::tracking;

namespace {
/// The scope of an op: the body scope of its parent, or nullptr at the top.
Operation *scopeOfOp(Operation *op);

/// The scope of the ops directly in `op`'s regions.
Operation *bodyScopeOf(Operation *op) {
  if (!op->getParentOp() || op->hasTrait<OpTrait::IsIsolatedFromAbove>())
    return op;
  return scopeOfOp(op);
}

Operation *scopeOfOp(Operation *op) {
  if (!op)
    return nullptr;
  Operation *parent = op->getParentOp();
  return parent ? bodyScopeOf(parent) : nullptr;
}

/// The location as the asm printer prints it. File locations, by far the
/// most common, are formatted directly: setting up the printer for each
/// event would cost more than the rest of the event.
std::string printLocation(Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    os << "loc(\"";
    llvm::printEscapedString(file.getFilename().getValue(), os);
    os << "\":" << file.getLine() << ":" << file.getColumn() << ")";
    return text;
  }
  loc.print(os);
  return text;
}
} // namespace

namespace mlir::tracking::detail {
struct RegistryImpl;
struct ScopeInfo;

using Observer = std::function<void(const TrackingEvent &)>;

/// An op as last seen: its name and location as context-owned pointers
/// (`OperationName`, `Location`), formatted only when read. When the registry
/// ends (before its context), every record is frozen: the pointers are
/// replaced by ids of interned text (see `RegistryImpl::frozen`).
struct SeenOp {
  const void *name = nullptr;
  const void *loc = nullptr;
};

/// One event of a history, compact (48 bytes): the text of a TrackingEvent
/// is built only when a history is read or an observer is installed.
struct CompactEvent {
  SeenOp op;
  /// For Replaced: the replacement op.
  SeenOp replacement;
  /// The pool index of the root record the event happened to
  /// (TrackingEvent::recordKey).
  uint32_t recordIndex = 0;
  /// Index into `RegistryImpl::sources` (pass, anchor and their keys).
  uint32_t source = 0;
  /// Interned strings (`RegistryImpl::strings`).
  uint32_t pattern = 0;
  uint32_t reason : 30;
  uint32_t kind : 2;
  CompactEvent() : reason(0), kind(unsigned(TrackingEvent::Kind::Erased)) {}
};
static_assert(sizeof(CompactEvent) <= 48, "events must stay compact");

/// The bounded history of a record, allocated with its first event (most
/// records never get one) as one block: this header, then the events. The
/// number of events is kept in the record (`historySize`); the block holds
/// that number rounded up to a power of two.
struct History {
  /// Events dropped from the front (the history keeps the newest ones).
  uint32_t dropped = 0;
  /// For a record merged into another: the absolute index into the parent's
  /// history of the first event shared with it.
  uint32_t parentStart = 0;
  CompactEvent *events() { return reinterpret_cast<CompactEvent *>(this + 1); }
  const CompactEvent *events() const {
    return reinterpret_cast<const CompactEvent *>(this + 1);
  }
};
static_assert(sizeof(History) == 8 && alignof(CompactEvent) <= 8,
              "events follow the header");

/// A handle record, pooled by its registry (see RecordPool) and counted by
/// the OpHandles (and merged records) that refer to it. Guarded by the
/// registry lock, except `refs`.
struct HandleRecord {
  /// OpHandles and child records referring to this one. A record whose count
  /// dropped to zero is being released: it is never handed out again.
  std::atomic<uint32_t> refs{1};
  uint8_t state = uint8_t(HandleState::Live);
  /// True while `op` is a key of the address map pointing at this record.
  bool mapped = false;
  /// True between `detachNested` and the record's settlement: unmapped, read
  /// as invalidated, its event not recorded yet. `op` keeps the old address
  /// (compared, never dereferenced).
  bool detached = false;
  /// The number of events in `history`.
  uint8_t historySize = 0;
  /// Null for a root; holds a reference to the parent.
  HandleRecord *parent = nullptr;

  // The fields below are meaningful on roots only.

  /// The op while the record is mapped.
  Operation *op = nullptr;
  /// The scope the record is indexed under while mapped, and its neighbours
  /// on that scope's list of records.
  ScopeInfo *scope = nullptr;
  HandleRecord *scopePrev = nullptr;
  HandleRecord *scopeNext = nullptr;
  /// Name and location as last seen.
  SeenOp last;
  /// Null until the first event.
  History *history = nullptr;

  HandleState getState() const { return HandleState(state); }
};

/// A scope (isolated-from-above or top-level op) that has records below it.
/// Scopes form a tree mirroring the IR, kept only as long as it is non-empty,
/// so no key in it is ever a freed op.
struct ScopeInfo {
  explicit ScopeInfo(Operation *op) : op(op) {}
  Operation *op;
  Operation *parent = nullptr;
  /// The records indexed here (through HandleRecord::scopeNext).
  HandleRecord *records = nullptr;
  llvm::SmallPtrSet<Operation *, 2> children;
};

/// Records live in chunks aligned to their size, each starting with a header
/// naming its registry: a record finds its registry from its own address,
/// and freed slots are reused through a free list.
struct RecordChunk {
  static constexpr size_t kBytes = size_t(1) << 15;
  RegistryImpl *impl;
  uint32_t index;
  static constexpr size_t kHeader = 64;
  static constexpr uint32_t kRecords =
      (kBytes - kHeader) / sizeof(HandleRecord);
  HandleRecord *slot(uint32_t i) {
    return reinterpret_cast<HandleRecord *>(reinterpret_cast<char *>(this) +
                                            kHeader) +
           i;
  }
  static RecordChunk *of(const HandleRecord *record) {
    return reinterpret_cast<RecordChunk *>(uintptr_t(record) & ~(kBytes - 1));
  }
};

RegistryImpl &registryOf(const HandleRecord *record) {
  return *RecordChunk::of(record)->impl;
}

/// Takes a reference to `record` unless it is being released.
bool tryRetain(HandleRecord *record) {
  uint32_t refs = record->refs.load(std::memory_order_relaxed);
  while (refs && !record->refs.compare_exchange_weak(
                     refs, refs + 1, std::memory_order_acq_rel,
                     std::memory_order_relaxed)) {
  }
  return refs != 0;
}

void releaseRecord(HandleRecord *record);

/// A bit per hashed address, set for every op that is a key of the address
/// map or of the scope index, and read without the lock: a clear bit proves
/// that a notification about the op has nothing to do. Bits are only set
/// (under the lock); a filter is rebuilt, larger, as the keys grow, and the
/// old one is kept until the registry state dies since a reader on another
/// thread may still be testing it. Bits of keys that left stay set (false
/// positives take the locked path, which is always correct).
class OpFilter {
public:
  explicit OpFilter(unsigned log2Bits)
      : log2Bits(log2Bits),
        words(new std::atomic<uint64_t>[(size_t(1) << log2Bits) / 64]()) {}
  unsigned getLog2Bits() const { return log2Bits; }
  void set(const void *key) {
    size_t bit = index(key);
    words[bit / 64].fetch_or(uint64_t(1) << (bit % 64),
                             std::memory_order_relaxed);
  }
  bool test(const void *key) const {
    size_t bit = index(key);
    return (words[bit / 64].load(std::memory_order_relaxed) >> (bit % 64)) & 1;
  }

private:
  size_t index(const void *key) const {
    return (uint64_t(uintptr_t(key)) * 0x9E3779B97F4A7C15ull) >>
           (64 - log2Bits);
  }
  unsigned log2Bits;
  std::unique_ptr<std::atomic<uint64_t>[]> words;
};

/// One critical section of the registry. Everything that must not run under
/// the lock is queued here and runs when it ends, after unlocking: the
/// observer (which may use handles) and the release of references (which
/// takes the lock).
class Transaction {
public:
  explicit Transaction(RegistryImpl &impl);
  ~Transaction();
  Transaction(const Transaction &) = delete;
  Transaction &operator=(const Transaction &) = delete;

  /// Drops one reference to `record` when the transaction ends.
  void releaseLater(HandleRecord *record) {
    if (record)
      released.push_back(record);
  }

  RegistryImpl &impl;
  /// Events for the observer, formatted under the lock (only when there is
  /// an observer).
  std::vector<TrackingEvent> events;

private:
  std::unique_lock<std::mutex> lock;
  SmallVector<HandleRecord *, 2> released;
};

/// True if the record's last reference is being dropped (it must not be
/// handed out or followed any more).
bool isReleasing(const HandleRecord *record) {
  return record->refs.load(std::memory_order_acquire) == 0;
}

struct RegistryImpl {
  RegistryImpl() = default;
  RegistryImpl(const RegistryImpl &) = delete;
  RegistryImpl &operator=(const RegistryImpl &) = delete;
  ~RegistryImpl() {
    for (auto &entry : scopes)
      delete entry.second;
    for (HandleRecord *record : allRecords()) {
      std::free(record->history);
      record->~HandleRecord();
    }
    for (RecordChunk *chunk : chunks)
      ::operator delete(chunk, std::align_val_t(RecordChunk::kBytes));
  }

  /// One lock for everything. (A reader-writer lock was tried: with two
  /// threads notifying at full speed it made tracked pipelines 4x slower.)
  mutable std::mutex mutex;
  llvm::DenseMap<Operation *, HandleRecord *> byOp;
  llvm::DenseMap<Operation *, ScopeInfo *> scopes;
  /// Copied (as a pointer) by each transaction that has events to deliver.
  std::shared_ptr<const Observer> observer;

  //===--------------------------------------------------------------------===//
  // Record pool
  //===--------------------------------------------------------------------===//

  std::vector<RecordChunk *> chunks;
  /// Freed slots, linked through `HandleRecord::parent`.
  HandleRecord *freeRecords = nullptr;
  /// Slots of the newest chunk never used yet.
  uint32_t nextFresh = RecordChunk::kRecords;
  /// Records allocated and not yet freed.
  size_t numRecords = 0;
  /// False once the HandleRegistry is gone: the last record freed then
  /// deletes the state.
  bool registryAlive = true;

  HandleRecord *allocateRecord() {
    void *slot;
    if (freeRecords) {
      slot = freeRecords;
      freeRecords = freeRecords->parent;
    } else {
      if (nextFresh == RecordChunk::kRecords) {
        auto *chunk = static_cast<RecordChunk *>(::operator new(
            RecordChunk::kBytes, std::align_val_t(RecordChunk::kBytes)));
        chunk->impl = this;
        chunk->index = chunks.size();
        chunks.push_back(chunk);
        nextFresh = 0;
      }
      slot = chunks.back()->slot(nextFresh++);
    }
    ++numRecords;
    return new (slot) HandleRecord();
  }

  /// Returns the slot of an unmapped record to the pool. Returns the parent,
  /// whose reference the record held.
  HandleRecord *freeRecord(HandleRecord *record) {
    HandleRecord *parent = record->parent;
    std::free(record->history);
    record->~HandleRecord();
    // A freed slot reads as released (refs == 0) and unused (see allRecords).
    auto *dead = new (record) HandleRecord();
    dead->refs.store(0, std::memory_order_relaxed);
    dead->state = kFreeSlot;
    dead->parent = freeRecords;
    freeRecords = dead;
    --numRecords;
    return parent;
  }

  /// A state value no live record has: marks a free slot.
  static constexpr uint8_t kFreeSlot = 0xff;

  /// Every allocated record.
  SmallVector<HandleRecord *> allRecords() {
    SmallVector<HandleRecord *> result;
    for (size_t c = 0; c < chunks.size(); ++c) {
      uint32_t used =
          c + 1 == chunks.size() ? nextFresh : RecordChunk::kRecords;
      for (uint32_t i = 0; i < used; ++i) {
        HandleRecord *record = chunks[c]->slot(i);
        if (record->state != kFreeSlot)
          result.push_back(record);
      }
    }
    return result;
  }

  uint32_t indexOf(const HandleRecord *record) const {
    RecordChunk *chunk = RecordChunk::of(record);
    return chunk->index * RecordChunk::kRecords +
           uint32_t(record - chunk->slot(0));
  }
  const void *recordAt(uint32_t index) const {
    return chunks[index / RecordChunk::kRecords]->slot(index %
                                                       RecordChunk::kRecords);
  }

  //===--------------------------------------------------------------------===//
  // Lock-free filter
  //===--------------------------------------------------------------------===//

  /// False while the address map and the scope index are empty (updated at
  /// the end of every transaction).
  std::atomic<bool> hasKeys{false};
  /// The current filter (null until the first key).
  std::atomic<const OpFilter *> filter{nullptr};
  std::vector<std::unique_ptr<OpFilter>> filters;

  /// Called under the lock after the maps changed.
  void syncHasKeys() {
    hasKeys.store(!byOp.empty() || !scopes.empty(), std::memory_order_release);
  }

  /// Lock-free: false proves that `op` is neither tracked nor a scope.
  bool mayHaveKey(const void *op) const {
    if (!hasKeys.load(std::memory_order_acquire))
      return false;
    const OpFilter *current = filter.load(std::memory_order_acquire);
    return !current || current->test(op);
  }

  void addKey(const void *op) {
    const OpFilter *current = filter.load(std::memory_order_relaxed);
    // About 16 bits per key: a false positive rate of a few percent.
    size_t keys = byOp.size() + scopes.size() + 1;
    if (current && (keys << 4) <= (size_t(1) << current->getLog2Bits())) {
      const_cast<OpFilter *>(current)->set(op);
      return;
    }
    unsigned log2Bits = 12;
    while ((size_t(1) << log2Bits) < (keys << 5))
      ++log2Bits;
    auto rebuilt = std::make_unique<OpFilter>(log2Bits);
    for (auto &entry : byOp)
      rebuilt->set(entry.first);
    for (auto &entry : scopes)
      rebuilt->set(entry.first);
    rebuilt->set(op);
    filter.store(rebuilt.get(), std::memory_order_release);
    filters.push_back(std::move(rebuilt));
  }

  static constexpr uint32_t kMaxHistory = 32;
  //===--------------------------------------------------------------------===//
  // Compact events
  //===--------------------------------------------------------------------===//

  /// Interned strings: pass labels, anchors, patterns, reasons and, once
  /// frozen, names and locations. Id 0 is "". Entries never move.
  llvm::StringMap<uint32_t> stringIds;
  std::vector<StringRef> strings = {StringRef()};
  /// Where events come from: (pass key, anchor key, pass, anchor) interned.
  using SourceKey = std::tuple<const void *, const void *, uint32_t, uint32_t>;
  llvm::DenseMap<SourceKey, uint32_t> sourceIds;
  std::vector<SourceKey> sources = {SourceKey()};
  /// Set when the registry ended: every SeenOp holds interned ids, not
  /// context-owned pointers (the context may be gone).
  bool frozen = false;

  uint32_t intern(StringRef text) {
    if (text.empty())
      return 0;
    auto [it, inserted] = stringIds.try_emplace(text, strings.size());
    if (inserted)
      strings.push_back(it->getKey());
    return it->second;
  }

  /// The last source and pattern interned: consecutive events mostly come
  /// from the same pass execution, so a comparison saves hashing.
  uint32_t lastSource = 0;
  uint32_t lastPattern = 0;

  uint32_t internSource(const EventSource &source) {
    const SourceKey &last = sources[lastSource];
    if (lastSource && std::get<0>(last) == source.passKey &&
        std::get<1>(last) == source.anchorKey &&
        strings[std::get<2>(last)] == source.pass &&
        strings[std::get<3>(last)] == source.anchor)
      return lastSource;
    SourceKey key(source.passKey, source.anchorKey, intern(source.pass),
                  intern(source.anchor));
    if (key == SourceKey())
      return 0;
    auto [it, inserted] = sourceIds.try_emplace(key, sources.size());
    if (inserted)
      sources.push_back(key);
    return lastSource = it->second;
  }

  uint32_t internPattern(StringRef pattern) {
    if (strings[lastPattern] == pattern)
      return lastPattern;
    return lastPattern = intern(pattern);
  }

  uint32_t lastReason = 0;
  uint32_t internReason(StringRef reason) {
    if (strings[lastReason] == reason)
      return lastReason;
    return lastReason = intern(reason);
  }

  /// The reason of every merge.
  uint32_t mergedReason =
      intern("merged with the handle that already referred to it");

  static SeenOp see(Operation *op) {
    return {op->getName().getAsOpaquePointer(),
            op->getLoc().getAsOpaquePointer()};
  }

  StringRef nameText(SeenOp seen) const {
    if (frozen)
      return strings[reinterpret_cast<uintptr_t>(seen.name)];
    if (!seen.name)
      return "";
    return OperationName::getFromOpaquePointer(seen.name).getStringRef();
  }

  std::string locationText(SeenOp seen) const {
    if (frozen)
      return strings[reinterpret_cast<uintptr_t>(seen.loc)].str();
    if (!seen.loc)
      return "";
    return printLocation(Location::getFromOpaquePointer(seen.loc));
  }

  /// "arith.addi at loc(...)".
  std::string describe(SeenOp seen) const {
    return (nameText(seen) + " at " + locationText(seen)).str();
  }

  TrackingEvent expand(const CompactEvent &compact) const {
    TrackingEvent event;
    event.kind = TrackingEvent::Kind(compact.kind);
    event.op = describe(compact.op);
    if (compact.replacement.name || compact.replacement.loc)
      event.replacement = describe(compact.replacement);
    const SourceKey &source = sources[compact.source];
    event.passKey = std::get<0>(source);
    event.anchorKey = std::get<1>(source);
    event.pass = strings[std::get<2>(source)].str();
    event.anchor = strings[std::get<3>(source)].str();
    event.pattern = strings[compact.pattern].str();
    event.reason = strings[compact.reason].str();
    event.recordKey = recordAt(compact.recordIndex);
    return event;
  }

  CompactEvent makeEvent(TrackingEvent::Kind kind, const HandleRecord *record,
                         const EventSource &source, StringRef reason = {}) {
    CompactEvent event;
    event.kind = unsigned(kind);
    event.op = record->last;
    event.source = internSource(source);
    event.pattern = internPattern(source.pattern);
    event.reason = internReason(reason);
    return event;
  }

  /// Replaces the context-owned pointers of every record by interned text.
  void freeze() {
    llvm::DenseMap<const void *, uint32_t> names, locations;
    auto freezeOne = [&](SeenOp &seen) {
      if (seen.name) {
        auto [it, inserted] = names.try_emplace(seen.name, 0);
        if (inserted)
          it->second = intern(nameText(seen));
        seen.name = reinterpret_cast<const void *>(uintptr_t(it->second));
      }
      if (seen.loc) {
        auto [it, inserted] = locations.try_emplace(seen.loc, 0);
        if (inserted)
          it->second = intern(locationText(seen));
        seen.loc = reinterpret_cast<const void *>(uintptr_t(it->second));
      }
    };
    for (HandleRecord *record : allRecords()) {
      freezeOne(record->last);
      for (CompactEvent &event : RegistryImpl::eventsOf(record)) {
        freezeOne(event.op);
        freezeOne(event.replacement);
      }
    }
    frozen = true;
  }

  //===--------------------------------------------------------------------===//
  // Histories
  //===--------------------------------------------------------------------===//

  static MutableArrayRef<CompactEvent> eventsOf(HandleRecord *record) {
    if (!record->history)
      return {};
    return {record->history->events(), record->historySize};
  }
  static ArrayRef<CompactEvent> eventsOf(const HandleRecord *record) {
    if (!record->history)
      return {};
    return {record->history->events(), record->historySize};
  }

  static History *allocateHistory(History *old, uint32_t capacity) {
    auto *history = static_cast<History *>(
        std::realloc(old, sizeof(History) + capacity * sizeof(CompactEvent)));
    if (!history)
      llvm::report_bad_alloc_error("mlir-tracking: history");
    return history;
  }

  /// The history of `record`, created empty if it has none.
  static History &historyOf(HandleRecord *record) {
    if (!record->history) {
      record->history = new (allocateHistory(nullptr, 1)) History();
      record->historySize = 0;
    }
    return *record->history;
  }

  /// Appends `event` to `record`'s history, dropping the oldest one when the
  /// history is full.
  static void appendEvent(HandleRecord *record, const CompactEvent &event) {
    History &history = historyOf(record);
    uint32_t size = record->historySize;
    if (size == kMaxHistory) {
      std::memmove(history.events(), history.events() + 1,
                   (size - 1) * sizeof(CompactEvent));
      --size;
      ++history.dropped;
    } else if (size && llvm::isPowerOf2_32(size)) {
      // Full: the block holds `size` events.
      record->history = allocateHistory(record->history, size * 2);
    }
    record->history->events()[size] = event;
    record->historySize = size + 1;
  }

  /// Absolute index one past the newest event of `record`.
  static uint64_t historyEnd(const HandleRecord *record) {
    return record->history
               ? uint64_t(record->history->dropped) + record->historySize
               : 0;
  }

  /// Appends the events of `from` from absolute index `start` on to the
  /// history of `to`, keeping the newest `kMaxHistory`.
  static void appendHistory(HandleRecord *to, const HandleRecord *from,
                            uint64_t start) {
    if (!from->history)
      return;
    uint64_t dropped = from->history->dropped;
    uint64_t skip = start > dropped ? start - dropped : 0;
    ArrayRef<CompactEvent> events = eventsOf(from);
    for (uint64_t i = skip; i < events.size(); ++i)
      appendEvent(to, events[i]);
  }

  //===--------------------------------------------------------------------===//
  // Union-find
  //===--------------------------------------------------------------------===//

  static uint64_t parentStartOf(const HandleRecord *record) {
    return record->history ? record->history->parentStart : 0;
  }

  /// Returns the root of `record`'s group, pointing every record on the way
  /// directly at it. References dropped on the way are released by `tx`.
  static HandleRecord *findRoot(HandleRecord *record, Transaction &tx) {
    if (!record->parent || !record->parent->parent)
      return record->parent ? record->parent : record;
    SmallVector<HandleRecord *, 8> path;
    HandleRecord *current = record;
    while (current->parent) {
      path.push_back(current);
      current = current->parent;
    }
    // From the record nearest the root down: each one takes over the events
    // its parent received since it joined, then points at the root.
    for (size_t i = path.size() - 1; i-- > 0;) {
      HandleRecord *node = path[i];
      HandleRecord *next = path[i + 1];
      appendHistory(node, next, parentStartOf(node));
      historyOf(node).parentStart = parentStartOf(next);
      HandleRecord *old = node->parent;
      next->parent->refs.fetch_add(1, std::memory_order_relaxed);
      node->parent = next->parent;
      tx.releaseLater(old);
    }
    return current;
  }

  /// Links the root `record` under the root `into`, adopting one reference
  /// to `into`.
  static void link(HandleRecord *record, HandleRecord *into) {
    uint64_t start = historyEnd(into);
    historyOf(record).parentStart = uint32_t(start);
    record->parent = into;
    record->op = nullptr;
  }

  //===--------------------------------------------------------------------===//
  // Scope index
  //===--------------------------------------------------------------------===//

  ScopeInfo *findScope(Operation *scope) const {
    auto it = scopes.find(scope);
    return it == scopes.end() ? nullptr : it->second;
  }

  /// Makes `scope` (and its ancestors) known to the index.
  ScopeInfo *ensureScope(Operation *scope) {
    if (ScopeInfo *info = findScope(scope))
      return info;
    SmallVector<Operation *> missing;
    for (Operation *current = scope; !scopes.count(current);
         current = scopeOf(current)) {
      missing.push_back(current);
      if (!current)
        break;
    }
    // Outermost first: each parent exists when its child is added.
    for (Operation *current : llvm::reverse(missing)) {
      Operation *parent = current ? scopeOf(current) : nullptr;
      if (current)
        addKey(current);
      auto *info = new ScopeInfo(current);
      info->parent = parent;
      scopes[current] = info;
      if (current)
        scopes[parent]->children.insert(current);
    }
    return scopes[scope];
  }

  /// Drops empty scopes from `scope` upwards.
  void pruneScope(Operation *scope) {
    while (true) {
      auto it = scopes.find(scope);
      if (it == scopes.end() || it->second->records ||
          !it->second->children.empty())
        return;
      Operation *parent = it->second->parent;
      delete it->second;
      scopes.erase(it);
      if (!scope)
        return;
      if (ScopeInfo *parentInfo = findScope(parent))
        parentInfo->children.erase(scope);
      scope = parent;
    }
  }

  /// Drops `scope` and everything indexed below it (its records must be
  /// unmapped already).
  void eraseScope(Operation *scope) {
    auto it = scopes.find(scope);
    if (it == scopes.end())
      return;
    delete it->second;
    scopes.erase(it);
  }

  static void linkIntoScope(HandleRecord *record, ScopeInfo *info) {
    record->scope = info;
    record->scopePrev = nullptr;
    record->scopeNext = info->records;
    if (info->records)
      info->records->scopePrev = record;
    info->records = record;
  }

  static void unlinkFromScope(HandleRecord *record) {
    ScopeInfo *info = record->scope;
    if (record->scopePrev)
      record->scopePrev->scopeNext = record->scopeNext;
    else
      info->records = record->scopeNext;
    if (record->scopeNext)
      record->scopeNext->scopePrev = record->scopePrev;
    record->scopePrev = record->scopeNext = nullptr;
  }

  static SmallVector<HandleRecord *> recordsOf(const ScopeInfo *info) {
    SmallVector<HandleRecord *> result;
    for (HandleRecord *record = info->records; record;
         record = record->scopeNext)
      result.push_back(record);
    return result;
  }

  /// Indexes `record` (mapped, or being mapped when `indexed` is false)
  /// under `scope`.
  void setScope(HandleRecord *record, Operation *scope, bool indexed) {
    if (indexed && record->scope->op == scope)
      return;
    ScopeInfo *old = indexed ? record->scope : nullptr;
    ScopeInfo *info = ensureScope(scope);
    if (old) {
      unlinkFromScope(record);
      linkIntoScope(record, info);
      pruneScope(old->op);
      return;
    }
    linkIntoScope(record, info);
  }

  void setScope(HandleRecord *record, Operation *scope) {
    setScope(record, scope, record->mapped);
  }

  void reparentScope(Operation *scope, Operation *newParent) {
    ScopeInfo *info = findScope(scope);
    Operation *oldParent = info->parent;
    if (oldParent == newParent)
      return;
    ensureScope(newParent)->children.insert(scope);
    info->parent = newParent;
    if (ScopeInfo *oldInfo = findScope(oldParent))
      oldInfo->children.erase(scope);
    pruneScope(oldParent);
  }

  /// After a move, re-indexes under `newScope` the records and child scopes
  /// of `oldScope` for which `isInside` holds (the moved part of the IR).
  void moveBetweenScopes(Operation *oldScope, Operation *newScope,
                         llvm::function_ref<bool(Operation *)> isInside) {
    if (oldScope == newScope)
      return;
    ScopeInfo *oldInfo = findScope(oldScope);
    if (!oldInfo)
      return;
    auto records = recordsOf(oldInfo);
    auto children = llvm::to_vector(oldInfo->children);
    for (HandleRecord *record : records)
      if (isInside(record->op))
        setScope(record, newScope);
    for (Operation *child : children)
      if (isInside(child))
        reparentScope(child, newScope);
  }

  /// Re-indexes the tracked ops nested in `op` (not `op` itself) where they
  /// are now, when where they were is unknown. Nested scopes are only
  /// reparented: what is inside them is indexed under them already.
  void reindexNested(Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        reindexBlock(&block);
  }

  void reindexBlock(Block *block) {
    for (Operation &nested : *block) {
      nested.walk<WalkOrder::PreOrder>([&](Operation *inner) {
        if (auto it = byOp.find(inner); it != byOp.end())
          setScope(it->second, scopeOf(inner));
        if (inner->hasTrait<OpTrait::IsIsolatedFromAbove>()) {
          if (scopes.count(inner))
            reparentScope(inner, scopeOf(inner));
          return WalkResult::skip();
        }
        return WalkResult::advance();
      });
    }
  }

  static Operation *scopeOf(Operation *op) { return scopeOfOp(op); }

  /// The records indexed in the scope subtree rooted at `anchor`, found from
  /// the index alone: the IR outside `anchor` may be under rewrite by other
  /// threads, and scope keys that a pass freed behind the listener's back
  /// are compared, never dereferenced.
  SmallVector<HandleRecord *> collectNested(Operation *anchor) {
    SmallVector<HandleRecord *> records;
    if (!scopes.count(anchor))
      return records;
    SmallVector<Operation *> worklist = {anchor};
    for (size_t i = 0; i < worklist.size(); ++i) {
      ScopeInfo *info = scopes.lookup(worklist[i]);
      if (!info)
        continue;
      for (HandleRecord *record = info->records; record;
           record = record->scopeNext)
        records.push_back(record);
      worklist.append(info->children.begin(), info->children.end());
    }
    return records;
  }

  //===--------------------------------------------------------------------===//
  // Address map
  //===--------------------------------------------------------------------===//

  void map(HandleRecord *record, Operation *op) {
    record->op = op;
    addKey(op);
    byOp[op] = record;
    setScope(record, scopeOf(op), /*indexed=*/false);
    record->mapped = true;
  }

  void unmap(HandleRecord *record) {
    if (!record->mapped)
      return;
    auto it = byOp.find(record->op);
    if (it != byOp.end() && it->second == record)
      byOp.erase(it);
    Operation *scope = record->scope->op;
    unlinkFromScope(record);
    record->scope = nullptr;
    pruneScope(scope);
    record->mapped = false;
  }

  /// Returns the record mapped at `op` with a new reference to it, or null.
  /// A record whose last handle is being released is unmapped here instead.
  HandleRecord *lookup(Operation *op) {
    auto it = byOp.find(op);
    if (it == byOp.end())
      return nullptr;
    HandleRecord *record = it->second;
    if (tryRetain(record))
      return record;
    unmap(record);
    return nullptr;
  }

  /// Adds `event` to the history of the root `record`; the observer sees it
  /// when `tx` ends.
  void record(HandleRecord *record, CompactEvent event, Transaction &tx) {
    event.recordIndex = indexOf(record);
    if (observer)
      tx.events.push_back(expand(event));
    appendEvent(record, event);
  }

  /// Marks the root `record` (already unmapped) as no longer live.
  void endRecord(HandleRecord *record, HandleState state, CompactEvent event,
                 Transaction &tx) {
    record->op = nullptr;
    record->state = uint8_t(state);
    this->record(record, event, tx);
  }
};

Transaction::Transaction(RegistryImpl &impl) : impl(impl), lock(impl.mutex) {}

Transaction::~Transaction() {
  impl.syncHasKeys();
  std::shared_ptr<const Observer> observer;
  if (!events.empty())
    observer = impl.observer;
  lock.unlock();
  if (observer)
    for (const TrackingEvent &event : events)
      (*observer)(event);
  // Releasing takes the lock.
  for (HandleRecord *record : released)
    releaseRecord(record);
}

/// Drops one reference to `record`; the last one frees it, then drops the
/// reference it held to its parent, iteratively (long merge chains must not
/// recurse).
void releaseRecord(HandleRecord *record) {
  while (record && record->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    RegistryImpl *impl = &registryOf(record);
    bool last;
    {
      std::lock_guard<std::mutex> lock(impl->mutex);
      impl->unmap(record);
      impl->syncHasKeys();
      record = impl->freeRecord(record);
      last = impl->numRecords == 0 && !impl->registryAlive;
    }
    // A record with a parent keeps the state alive: `record` is null here.
    if (last)
      delete impl;
  }
}

} // namespace mlir::tracking::detail

using mlir::tracking::detail::CompactEvent;
using mlir::tracking::detail::EventSource;
using mlir::tracking::detail::HandleRecord;
using mlir::tracking::detail::History;
using mlir::tracking::detail::isReleasing;
using mlir::tracking::detail::Observer;
using mlir::tracking::detail::RegistryImpl;
using mlir::tracking::detail::RegistryNotifier;
using mlir::tracking::detail::registryOf;
using mlir::tracking::detail::releaseRecord;
using mlir::tracking::detail::ScopeInfo;
using mlir::tracking::detail::SeenOp;
using mlir::tracking::detail::Transaction;
using mlir::tracking::detail::tryRetain;

namespace {
/// Registries by context. Contexts are few; a mutex is plenty.
struct ContextRegistryMap {
  std::shared_mutex mutex;
  llvm::DenseMap<MLIRContext *, HandleRegistry *> map;
};
ContextRegistryMap &getContextRegistryMap() {
  static ContextRegistryMap instance;
  return instance;
}

/// Bumped whenever a registry is created or destroyed: each thread keeps its
/// last lookup while the generation stays the same, so that notifications
/// find their registry without the map's lock.
std::atomic<uint64_t> registryGeneration{1};
struct LookupCache {
  uint64_t generation = 0;
  MLIRContext *context = nullptr;
  HandleRegistry *registry = nullptr;
};
thread_local LookupCache lookupCache;

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
  if (!record)
    return nullptr;
  Transaction tx(registryOf(record));
  HandleRecord *root = RegistryImpl::findRoot(record, tx);
  return root->getState() == HandleState::Live ? root->op : nullptr;
}

HandleState OpHandle::getState() const {
  if (!record)
    return HandleState::Erased;
  Transaction tx(registryOf(record));
  return RegistryImpl::findRoot(record, tx)->getState();
}

std::string OpHandle::getLastName() const {
  if (!record)
    return "";
  Transaction tx(registryOf(record));
  return registryOf(record)
      .nameText(RegistryImpl::findRoot(record, tx)->last)
      .str();
}

std::string OpHandle::getLastLocation() const {
  if (!record)
    return "";
  Transaction tx(registryOf(record));
  return registryOf(record).locationText(
      RegistryImpl::findRoot(record, tx)->last);
}

std::vector<TrackingEvent> OpHandle::getHistory() const {
  std::vector<TrackingEvent> result;
  if (!record)
    return result;
  Transaction tx(registryOf(record));
  RegistryImpl::findRoot(record, tx);
  // Own events (including those folded in by path compression), then those
  // of the root since this record joined it.
  const RegistryImpl &impl = registryOf(record);
  for (const CompactEvent &event :
       RegistryImpl::eventsOf(static_cast<const HandleRecord *>(record)))
    result.push_back(impl.expand(event));
  const HandleRecord *root = record->parent;
  if (root && root->history) {
    uint64_t start = RegistryImpl::parentStartOf(record);
    uint64_t dropped = root->history->dropped;
    uint64_t skip = start > dropped ? start - dropped : 0;
    ArrayRef<CompactEvent> events = RegistryImpl::eventsOf(root);
    for (uint64_t i = skip; i < events.size(); ++i)
      result.push_back(impl.expand(events[i]));
  }
  return result;
}

std::string OpHandle::describe() const {
  if (!record)
    return "empty operation handle";
  HandleState state = getState();
  std::string text;
  {
    Transaction tx(registryOf(record));
    SeenOp last = RegistryImpl::findRoot(record, tx)->last;
    RegistryImpl &impl = registryOf(record);
    text = "operation handle to '" + impl.nameText(last).str() + "' at " +
           impl.locationText(last) + " is " + stringifyHandleState(state).str();
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
  return RegistryImpl::findRoot(record, tx);
}

bool OpHandle::sameOp(const OpHandle &other) const {
  return getKey() == other.getKey();
}

//===----------------------------------------------------------------------===//
// HandleRegistry
//===----------------------------------------------------------------------===//

HandleRegistry::HandleRegistry(MLIRContext *context)
    : context(context), impl(new RegistryImpl()) {
  ContextRegistryMap &registries = getContextRegistryMap();
  std::unique_lock<std::shared_mutex> lock(registries.mutex);
  bool inserted = registries.map.try_emplace(context, this).second;
  registryGeneration.fetch_add(1, std::memory_order_acq_rel);
  if (!inserted)
    llvm::report_fatal_error(
        "mlir-tracking: this MLIRContext already has a HandleRegistry");
}

HandleRegistry::~HandleRegistry() {
  {
    ContextRegistryMap &registries = getContextRegistryMap();
    std::unique_lock<std::shared_mutex> lock(registries.mutex);
    registries.map.erase(context);
    registryGeneration.fetch_add(1, std::memory_order_acq_rel);
  }
  {
    Transaction tx(*impl);
    for (auto &entry : impl->byOp) {
      HandleRecord *record = entry.second;
      record->mapped = false;
      record->scope = nullptr;
      record->scopePrev = record->scopeNext = nullptr;
      if (record->getState() != HandleState::Live || isReleasing(record)) {
        record->op = nullptr;
        continue;
      }
      impl->endRecord(record, HandleState::Erased,
                      impl->makeEvent(TrackingEvent::Kind::Erased, record, {},
                                      "tracking ended (registry destroyed)"),
                      tx);
    }
    impl->byOp.clear();
    for (auto &entry : impl->scopes)
      delete entry.second;
    impl->scopes.clear();
    // Handles may outlive the registry, and the context after it: their
    // names, locations and histories become text.
    impl->freeze();
  }
  // The state lives on while records do; the last one deletes it.
  bool last;
  {
    std::lock_guard<std::mutex> lock(impl->mutex);
    impl->registryAlive = false;
    last = impl->numRecords == 0;
  }
  if (last)
    delete impl;
}

HandleRegistry *HandleRegistry::lookup(MLIRContext *context) {
  uint64_t generation = registryGeneration.load(std::memory_order_acquire);
  LookupCache &cache = lookupCache;
  if (cache.generation == generation && cache.context == context)
    return cache.registry;
  ContextRegistryMap &registries = getContextRegistryMap();
  std::shared_lock<std::shared_mutex> lock(registries.mutex);
  // Read under the lock: a registry created or destroyed since the load
  // above bumped the generation, so this entry is never kept stale.
  cache = {registryGeneration.load(std::memory_order_relaxed), context,
           registries.map.lookup(context)};
  return cache.registry;
}

OpHandle HandleRegistry::getHandle(Operation *op) {
  Transaction tx(*impl);
  if (HandleRecord *existing = impl->lookup(op))
    return OpHandle(existing);
  HandleRecord *record = impl->allocateRecord();
  record->last = RegistryImpl::see(op);
  impl->map(record, op);
  return OpHandle(record);
}

OpHandle HandleRegistry::lookupHandle(Operation *op) const {
  Transaction tx(*impl);
  return OpHandle(impl->lookup(op));
}

bool HandleRegistry::isTracked(Operation *op) const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->byOp.count(op);
}

size_t HandleRegistry::getNumTrackedOps() const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->byOp.size();
}

void HandleRegistry::forEachTrackedOp(
    llvm::function_ref<void(Operation *)> fn) const {
  std::vector<Operation *> ops;
  {
    std::lock_guard<std::mutex> lock(impl->mutex);
    for (auto &entry : impl->byOp)
      ops.push_back(entry.first);
  }
  for (Operation *op : ops)
    fn(op);
}

void HandleRegistry::setEventObserver(
    std::function<void(const TrackingEvent &)> observer) {
  std::shared_ptr<const Observer> shared;
  if (observer)
    shared = std::make_shared<const Observer>(std::move(observer));
  std::lock_guard<std::mutex> lock(impl->mutex);
  // The previous observer may still be running on another thread: its copy
  // of the pointer keeps it alive.
  impl->observer = std::move(shared);
}

std::vector<std::string> HandleRegistry::verifyAgainst(Operation *root) const {
  llvm::DenseMap<Operation *, OperationName> present;
  root->walk([&](Operation *op) { present.try_emplace(op, op->getName()); });
  std::vector<std::string> problems;
  std::lock_guard<std::mutex> lock(impl->mutex);
  for (auto &entry : impl->byOp) {
    HandleRecord *record = entry.second;
    std::string lastName = impl->nameText(record->last).str();
    auto it = present.find(entry.first);
    if (it == present.end()) {
      problems.push_back("registry maps an op that is not in the IR (last "
                         "seen as '" +
                         lastName + "' at " + impl->locationText(record->last) +
                         ")");
      continue;
    }
    if (it->second.getAsOpaquePointer() != record->last.name)
      problems.push_back("handle bound to '" + lastName + "' at " +
                         impl->locationText(record->last) + " now points at '" +
                         it->second.getStringRef().str() + "'");
    if (record->op != entry.first || !record->mapped || record->parent ||
        record->getState() != HandleState::Live)
      problems.push_back("inconsistent record for '" + lastName + "'");
    Operation *expectedScope = RegistryImpl::scopeOf(entry.first);
    if (!record->scope || record->scope->op != expectedScope)
      problems.push_back("handle to '" + lastName + "' at " +
                         impl->locationText(record->last) +
                         " is indexed under the wrong scope");
  }
  // Every indexed record is mapped where it is indexed. (Scopes are not
  // checked against `root`: callers check one root of several at a time.)
  for (auto &entry : impl->scopes) {
    for (HandleRecord *record = entry.second->records; record;
         record = record->scopeNext)
      if (!record->mapped || record->scope != entry.second)
        problems.push_back("the scope index holds a stale record for '" +
                           impl->nameText(record->last).str() + "'");
  }
  return problems;
}

//===----------------------------------------------------------------------===//
// RegistryNotifier
//===----------------------------------------------------------------------===//

Operation *RegistryNotifier::getBodyScope(Operation *op) {
  return bodyScopeOf(op);
}

bool RegistryNotifier::mayBeTracked(Operation *op) const {
  return registry.impl->mayHaveKey(op);
}

bool RegistryNotifier::hasHandles() const {
  return registry.impl->hasKeys.load(std::memory_order_acquire);
}

void RegistryNotifier::notifyOperationReplaced(Operation *op,
                                               Operation *replacement,
                                               const EventSource &source) {
  notifyOperationReplaced(op, replacement,
                          [&]() -> const EventSource & { return source; });
}

void RegistryNotifier::notifyOperationErased(Operation *op,
                                             const EventSource &source,
                                             StringRef reason) {
  notifyOperationErased(
      op, [&]() -> const EventSource & { return source; }, reason);
}

void RegistryNotifier::notifyOperationReplaced(Operation *op,
                                               Operation *replacement,
                                               LazySource source) {
  if (op == replacement)
    return;
  RegistryImpl &impl = *registry.impl;
  Transaction tx(impl);
  auto it = impl.byOp.find(op);
  if (it == impl.byOp.end())
    return;
  HandleRecord *record = it->second;
  impl.unmap(record);
  // A record whose last handle is being released has nothing to follow.
  if (isReleasing(record))
    return;

  CompactEvent event =
      impl.makeEvent(TrackingEvent::Kind::Replaced, record, source());
  event.replacement = RegistryImpl::see(replacement);
  if (HandleRecord *existing = impl.lookup(replacement)) {
    // Both handles now speak for the same op: `record` joins the group of
    // the handle that referred to it first. O(1): both are roots.
    event.reason = impl.mergedReason;
    impl.record(record, event, tx);
    RegistryImpl::link(record, existing);
    return;
  }
  impl.record(record, event, tx);
  record->last = event.replacement;
  impl.map(record, replacement);
}

void RegistryNotifier::notifyOperationErased(Operation *op,
                                             LazySource lazySource,
                                             StringRef reason) {
  RegistryImpl &impl = *registry.impl;
  Transaction tx(impl);
  const EventSource *built = nullptr;
  auto source = [&]() -> const EventSource & {
    if (!built)
      built = &lazySource();
    return *built;
  };
  auto it = impl.byOp.find(op);
  if (it != impl.byOp.end()) {
    HandleRecord *record = it->second;
    impl.unmap(record);
    if (!isReleasing(record)) {
      impl.endRecord(
          record, HandleState::Erased,
          impl.makeEvent(TrackingEvent::Kind::Erased, record, source(), reason),
          tx);
    }
  }
  // Nested ops were notified first; whatever scope `op` was is now empty of
  // records, but drop it explicitly in case a nested erase went unnotified.
  ScopeInfo *scopeInfo = impl.findScope(op);
  if (!scopeInfo)
    return;
  Operation *parent = scopeInfo->parent;
  SmallVector<Operation *> worklist = {op};
  SmallVector<HandleRecord *> orphans;
  for (size_t i = 0; i < worklist.size(); ++i) {
    ScopeInfo *nested = impl.findScope(worklist[i]);
    if (!nested)
      continue;
    for (HandleRecord *record = nested->records; record;
         record = record->scopeNext)
      orphans.push_back(record);
    worklist.append(nested->children.begin(), nested->children.end());
  }
  for (HandleRecord *orphan : orphans) {
    impl.unmap(orphan);
    if (isReleasing(orphan) || orphan->getState() != HandleState::Live)
      continue;
    impl.endRecord(orphan, HandleState::Erased,
                   impl.makeEvent(TrackingEvent::Kind::Erased, orphan, source(),
                                  "an ancestor was erased"),
                   tx);
  }
  // Unmapping emptied the subtree; drop what is left of it.
  for (Operation *scope : llvm::reverse(worklist))
    impl.eraseScope(scope);
  if (ScopeInfo *parentInfo = impl.findScope(parent))
    parentInfo->children.erase(op);
  impl.pruneScope(parent);
}

void RegistryNotifier::notifyOperationMoved(Operation *op,
                                            Operation *oldScope) {
  Operation *newScope = getBodyScope(op);
  RegistryImpl &impl = *registry.impl;
  Transaction tx(impl);
  if (auto it = impl.byOp.find(op); it != impl.byOp.end())
    impl.setScope(it->second, RegistryImpl::scopeOf(op));
  if (impl.scopes.count(op) && newScope == op)
    impl.reparentScope(op, RegistryImpl::scopeOf(op));

  // Records and scopes below `op` that were indexed under the old scope now
  // belong to the new one.
  impl.moveBetweenScopes(oldScope, newScope, [&](Operation *nested) {
    return op->isProperAncestor(nested);
  });
}

void RegistryNotifier::notifyOperationInserted(Operation *op) {
  RegistryImpl &impl = *registry.impl;
  Transaction tx(impl);
  // Most inserted ops are new, and most registries small: nothing to do
  // without handles.
  if (impl.byOp.empty())
    return;
  if (auto it = impl.byOp.find(op); it != impl.byOp.end())
    impl.setScope(it->second, RegistryImpl::scopeOf(op));
  if (getBodyScope(op) == op) {
    // What is inside a scope is indexed under it: only the scope moves.
    if (impl.scopes.count(op))
      impl.reparentScope(op, RegistryImpl::scopeOf(op));
    return;
  }
  // `op` may have been unlinked with remove() elsewhere, its tracked
  // descendants still indexed under the scope it left.
  impl.reindexNested(op);
}

void RegistryNotifier::notifyBlockMoved(Block *block, Operation *oldScope) {
  Operation *parent = block->getParentOp();
  if (!parent)
    return;
  RegistryImpl &impl = *registry.impl;
  Transaction tx(impl);
  impl.moveBetweenScopes(
      oldScope, getBodyScope(parent),
      [&](Operation *nested) { return block->findAncestorOpInBlock(*nested); });
}

void RegistryNotifier::notifyBlockInserted(Block *block) {
  if (!block->getParentOp() || block->empty())
    return;
  RegistryImpl &impl = *registry.impl;
  Transaction tx(impl);
  if (!impl.byOp.empty())
    impl.reindexBlock(block);
}

size_t RegistryNotifier::invalidateNested(Operation *anchor,
                                          const EventSource &source,
                                          StringRef reason) {
  RegistryImpl &impl = *registry.impl;
  Transaction tx(impl);
  size_t invalidated = 0;
  for (HandleRecord *record : impl.collectNested(anchor)) {
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
  for (HandleRecord *record : impl.collectNested(anchor)) {
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
  HandleRecord *record = RegistryImpl::findRoot(handle.record, tx);
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
  SeenOp seen = RegistryImpl::see(op);
  HandleRecord *existing = impl.lookup(op);
  if (replaced || existing) {
    CompactEvent event =
        impl.makeEvent(TrackingEvent::Kind::Replaced, record, source, reason);
    event.replacement = seen;
    if (existing) {
      event.reason = impl.mergedReason;
      impl.record(record, event, tx);
      RegistryImpl::link(record, existing);
      return;
    }
    impl.record(record, event, tx);
  }
  record->last = seen;
  impl.map(record, op);
}

void RegistryNotifier::invalidateDetached(DetachedRecords &records,
                                          const EventSource &source,
                                          StringRef reason) {
  RegistryImpl &impl = *registry.impl;
  Transaction tx(impl);
  for (const OpHandle &held : records) {
    HandleRecord *record = RegistryImpl::findRoot(held.record, tx);
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
  for (HandleRecord *record : impl.collectNested(anchor)) {
    std::string problem;
    auto it = present.find(record->op);
    std::string seen = "handle to '" + impl.nameText(record->last).str() +
                       "' at " + impl.locationText(record->last);
    if (it == present.end())
      problem = seen + " maps an op that is no longer in the IR";
    else if (it->second.getAsOpaquePointer() != record->last.name)
      problem =
          seen + " now points at '" + it->second.getStringRef().str() + "'";
    else if (record->scope->op != RegistryImpl::scopeOf(record->op))
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
