//===- EventLog.h - Compact handle histories --------------------*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// What happened to each handle, recorded compactly when it happens and
// formatted as a TrackingEvent only when read: ops as context-owned pointers
// (frozen to interned text if the registry ends first), passes, anchors,
// patterns and reasons as interned ids. Private to lib/Tracking; not
// installed.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_LIB_EVENTLOG_H
#define MLIR_TRACKING_LIB_EVENTLOG_H

#include "HistoryPool.h"
#include "HotPath.h"
#include "IdTable.h"
#include "RegistryLanes.h"
#include "RegistryNotifier.h"

#include "mlir/IR/Operation.h"
#include "mlir/Tracking/HandleRegistry.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace mlir {
class Operation;

namespace tracking::detail {
struct HandleRecord;
class RecordPool;

/// An op as last seen: its name and location as context-owned pointers
/// (`OperationName`, `Location`), formatted only when read. When the registry
/// ends (before its context), every record is frozen: the pointers are
/// replaced by ids of interned text (see `EventLog::Freezer`).
struct SeenOp {
  const void *name = nullptr;
  const void *loc = nullptr;
};

/// One event of a history, compact (32 bytes): the text of a TrackingEvent
/// is built only when a history is read or an observer is installed. The
/// ops' names are ids of the log's name table (`EventLog::nameId`), which
/// freezes with the log, so only the locations are pointers of the context.
struct CompactEvent {
  /// The op as last seen: its location (see SeenOp) and its name's id.
  const void *opLoc = nullptr;
  /// For Replaced: the replacement's location (null for none).
  const void *replacementLoc = nullptr;
  /// The pool index of the root record the event happened to
  /// (TrackingEvent::recordKey).
  uint32_t recordIndex = 0;
  /// Index into the log's causes: where the event comes from (pass, anchor
  /// and their keys), the pattern and the reason, interned together.
  uint32_t cause : 30;
  uint32_t kind : 2;
  uint32_t opName = 0;
  /// For Replaced: the replacement's name id (0 for none).
  uint32_t replacementName = 0;
  CompactEvent() : cause(0), kind(unsigned(TrackingEvent::Kind::Erased)) {}
};
static_assert(sizeof(CompactEvent) <= 32, "events must stay compact");

/// The bounded history of a record is allocated with its first event (most
/// records never get one) as a block of the log's HistoryPool holding the
/// events only: the number of events is kept in the record
/// (`historySize`), and the block holds that number rounded up to a power of
/// two. A full history (kMaxHistory events) drops the oldest event for each
/// new one; its block starts with this header.
struct FullHistoryHeader {
  /// Events dropped from the front (the history keeps the newest ones).
  uint32_t dropped = 0;
  uint32_t unused = 0;
};
static_assert(sizeof(FullHistoryHeader) % alignof(CompactEvent) == 0,
              "events follow the header");

/// The events of one registry: interned text, and the histories of its
/// records. Guarded by the registry lock.
class EventLog {
public:
  /// Keeps its per-lane state in the lane `lane` names when the lock is
  /// taken; takes the histories' chunks from `arena` (which must outlive
  /// the log), or from an arena of its own.
  explicit EventLog(const ActiveLane &lane = ActiveLane::standalone(),
                    PageArena *arena = nullptr);
  EventLog(const EventLog &) = delete;
  EventLog &operator=(const EventLog &) = delete;

  //===--------------------------------------------------------------------===//
  // Interned text
  //===--------------------------------------------------------------------===//

  /// Interned strings: pass labels, anchors, patterns, reasons and, once
  /// frozen, names and locations. Id 0 is "". Entries never move.
  uint32_t intern(StringRef text);
  StringRef text(uint32_t id) const { return strings[id]; }

  /// Consecutive events mostly come from the same pass execution and
  /// pattern: a comparison with the last one interned saves hashing.
  uint32_t internSource(const EventSource &source);
  /// Passes and patterns alternate (canonicalize and CSE, function after
  /// function): each lane remembers the last few of each it interned.
  uint32_t internPattern(StringRef pattern) {
    return internRecent(pattern, cache().recentPatterns);
  }
  MLIR_TRACKING_HOT_PATH uint32_t internReason(StringRef reason) {
    if (reason.empty())
      return 0;
    uint32_t &last = cache().lastReason;
    if (strings[last] == reason)
      return last;
    return last = intern(reason);
  }

  /// The same for a reason that may be keyed: a keyed reason is formatted
  /// and interned only when the lane's last keyed reason had another key.
  MLIR_TRACKING_HOT_PATH uint32_t internReason(const EventReason &reason) {
    if (!reason.key)
      return internReason(reason.text);
    LaneCache &lane = cache();
    if (lane.lastReasonKey == reason.key)
      return lane.lastKeyedReason;
    return internKeyedReason(reason, lane);
  }

  /// The reason of every merge.
  uint32_t getMergedReason() const { return mergedReason; }
  /// Replaces the reason of `event` by the interned `reason`.
  void setReason(CompactEvent &event, uint32_t reason);

  //===--------------------------------------------------------------------===//
  // Events
  //===--------------------------------------------------------------------===//

  static SeenOp see(Operation *op) {
    return {op->getName().getAsOpaquePointer(),
            op->getLoc().getAsOpaquePointer()};
  }

  /// Op names as records keep them (HandleRecord::lastName): a small id per
  /// distinct name (id 0: no name). Frozen with the rest.
  static constexpr unsigned kNameIdBits = 21;
  uint32_t nameId(const void *name) {
    LaneCache &lane = cache();
    if (name == lane.lastNameSeen)
      return lane.lastNameId;
    return internName(name, lane);
  }
  const void *nameOf(uint32_t id) const { return names[id]; }

  StringRef nameText(SeenOp seen) const;
  std::string locationText(SeenOp seen) const;
  /// "arith.addi at loc(...)".
  std::string describe(SeenOp seen) const;

  /// An event about the op last seen with the name id `name` (of `nameId`)
  /// at `loc`.
  CompactEvent makeEvent(TrackingEvent::Kind kind, uint32_t name,
                         const void *loc, const EventSource &source,
                         StringRef reason = {}) {
    return makeEvent(kind, name, loc, source, internReason(reason));
  }
  /// The same with the reason interned already. Inline: most events take
  /// the cause their source remembers.
  LLVM_ATTRIBUTE_ALWAYS_INLINE CompactEvent makeEvent(TrackingEvent::Kind kind,
                                                      uint32_t name,
                                                      const void *loc,
                                                      const EventSource &source,
                                                      uint32_t reason) {
    CompactEvent event;
    event.kind = unsigned(kind);
    event.opName = name;
    event.opLoc = loc;
    // The log drops or renumbers causes only with a new serial (see
    // `collect`): the one remembered stays valid while the serial matches.
    if (LLVM_LIKELY(source.internedBy == serial &&
                    reason == source.internedReason))
      event.cause = source.internedCause;
    else
      event.cause = internSourceCause(source, reason);
    return event;
  }
  /// Sets the replacement of a Replaced event.
  /// Sets the replacement of `event`: the op seen as `seen`.
  void setReplacement(CompactEvent &event, SeenOp seen) {
    event.replacementName = nameId(seen.name);
    event.replacementLoc = seen.loc;
  }
  /// The event as text; `recordKey` names the record it happened to.
  TrackingEvent expand(const CompactEvent &compact,
                       const void *recordKey) const;

  /// Forgets every source and cause, when no record is left to hold an
  /// event naming one and there are at least `kForgetSourcesAt`: a new
  /// anchor (a function of a new module) adds a source and its causes, and
  /// a context that compiles module after module would keep them all.
  /// EventSources that remember a cause of this log intern anew.
  void forgetCausesIfMany();
  static constexpr size_t kForgetSourcesAt = 4096;
  size_t getNumSources() const { return sources.size() - 1; }

  /// The records whose histories hold this log's cause ids. Once set, a new
  /// source that takes the sources (or causes) past their threshold first
  /// collects: the sources and causes no history names are dropped, the
  /// rest renumbered (see `collect`). Without it, only `forgetCausesIfMany`
  /// drops any.
  void setRecords(const RecordPool &pool) { records = &pool; }

  /// Replaces context-owned pointers by ids of interned text, for a registry
  /// that ends before its context: freeze every SeenOp of every record, then
  /// call `finish`.
  class Freezer {
  public:
    explicit Freezer(EventLog &log) : log(log) {}
    void freeze(SeenOp &seen);
    /// Freezes the record's last sight and every event of its history.
    void freeze(HandleRecord *record);
    /// Freezes the name table, then marks the log frozen.
    void finish();

  private:
    EventLog &log;
    llvm::DenseMap<const void *, uint32_t> names, locations;
  };

  //===--------------------------------------------------------------------===//
  // Histories
  //===--------------------------------------------------------------------===//

  /// The newest events kept per record.
  static constexpr uint32_t kMaxHistory = 32;

  MutableArrayRef<CompactEvent> eventsOf(HandleRecord *record);
  ArrayRef<CompactEvent> eventsOf(const HandleRecord *record) const;
  /// Appends `event` to `record`'s history, dropping the oldest one when the
  /// history is full. Inline (HandleRecords.h): most events are the first of
  /// their history, which takes a block of one.
  void appendEvent(HandleRecord *record, const CompactEvent &event);
  /// Appends the events of `from` from absolute index `start` on to the
  /// history of `to`, keeping the newest `kMaxHistory`.
  void appendHistory(HandleRecord *to, const HandleRecord *from,
                     uint64_t start);
  /// Absolute index one past the newest event of `record`. (This and the
  /// other accessors of a record's fields are defined in HandleRecords.h,
  /// inline: a merge reads and sets them under the lock.)
  uint64_t historyEnd(const HandleRecord *record) const;
  /// For a record merged into another: where its share of the parent's
  /// history starts, and setting it.
  uint64_t parentStartOf(const HandleRecord *record) const;
  void setParentStart(HandleRecord *record, uint64_t start);
  /// The events `record`'s parent received since `record` joined it (those
  /// the parent still keeps).
  ArrayRef<CompactEvent> sharedEvents(const HandleRecord *record) const;
  /// Frees the history of `record` (before the record is freed).
  void freeHistory(HandleRecord *record);

private:
  /// `appendEvent` to a history that has a block: out of line.
  LLVM_ATTRIBUTE_NOINLINE void appendToHistory(HandleRecord *record,
                                               const CompactEvent &event);
  /// The events of the block `id`.
  CompactEvent *eventsAt(HistoryPool::Id id) const;
  /// Events dropped from the front of `record`'s history.
  uint32_t droppedOf(const HandleRecord *record) const;

  uint32_t internCause(uint32_t source, uint32_t pattern, uint32_t reason);
  struct LaneCache;
  uint32_t internName(const void *name, LaneCache &lane);

  /// The names of nameId, and their ids.
  std::vector<const void *> names = {nullptr};
  llvm::DenseMap<const void *, uint32_t> nameIds;

  llvm::StringMap<uint32_t> stringIds;
  std::vector<StringRef> strings = {StringRef()};
  /// Where events come from: (pass key, anchor key, pass, anchor text,
  /// anchor name, anchor symbol) interned. An anchor is named by its text,
  /// or by its parts (EventSource::anchorName and anchorSymbol), which are
  /// the context's until the log freezes them to text. Interned, so that a
  /// pipeline run again and again on the same IR adds no sources (nor
  /// causes) after its first run.
  using SourceKey = std::tuple<const void *, const void *, uint32_t, uint32_t,
                               const void *, const void *>;
  std::vector<SourceKey> sources = {SourceKey()};
  /// The ids of `sources` by hash (a new pass execution adds a source).
  IdTable sourceIds;
  static uint32_t hashSource(const SourceKey &key);
  /// The anchor of `source` as text.
  std::string anchorText(const SourceKey &source) const;
  /// (source, pattern, reason) interned together: an event's cause.
  using CauseKey = std::tuple<uint32_t, uint32_t, uint32_t>;
  std::vector<CauseKey> causes = {CauseKey()};
  /// The ids of `causes` by hash, but for the lanes' fresh causes.
  IdTable causeIds;
  static uint32_t hashCause(const CauseKey &key);
  /// The id of `key` in `causeIds`, or 0.
  uint32_t findCause(const CauseKey &key, uint32_t hash) const {
    return causeIds.find(hash, [&](uint32_t id) { return causes[id] == key; });
  }
  static constexpr unsigned kRecentCauses = 4;
  static constexpr unsigned kRecentTexts = 4;
  /// The causes of a lane's newest source are few and known to the lane
  /// alone: up to this many are kept in the lane, not in `causeIds`.
  static constexpr unsigned kFreshCauses = 16;
  /// What interning remembers of its last lookups, per lane
  /// (RegistryLanes.h): written by most events, and two threads recording
  /// events in turn would each evict the other's and take its cache line.
  struct alignas(kLaneAlignment) LaneCache {
    /// The name interned last: most replacements keep it.
    const void *lastNameSeen = nullptr;
    uint32_t lastNameId = 0;
    uint32_t lastSource = 0;
    /// The pass labels and patterns interned last, most recent first.
    uint32_t recentPasses[kRecentTexts] = {};
    uint32_t recentPatterns[kRecentTexts] = {};
    /// The source this lane added last, while it is the lane's source and
    /// its causes are few (else 0), and the causes made with it
    /// (`kFreshCauses` at most): a new source's causes are made on this
    /// lane, so they need no hash table. (A cause made later with a source
    /// that was fresh goes to the table: at worst a second copy of a
    /// cause, never two copies in the table.)
    uint32_t freshSource = 0;
    uint32_t numFreshCauses = 0;
    uint32_t freshCauses[kFreshCauses] = {};
    uint32_t lastReason = 0;
    /// The keyed reason interned last (see EventReason), and its id.
    uint32_t lastKeyedReason = 0;
    const void *lastReasonKey = nullptr;
    /// The causes interned last, most recent first: events of one pattern
    /// application alternate between a few (replaced, merged, erased).
    CauseKey recentKeys[kRecentCauses] = {};
    uint32_t recentIds[kRecentCauses] = {};
  };
  LaneCache caches[kNumLanes];
  LaneCache &cache() { return caches[active.get()]; }
  /// `internCause` when none of the recent causes is `key`: out of line, so
  /// that the common path stays a few cache lines of code.
  LLVM_ATTRIBUTE_NOINLINE uint32_t internNewCause(const CauseKey &key,
                                                  LaneCache &lane);
  /// The cause of an event of `source` with `reason`, when the source does
  /// not remember it: interns the source first if this log has not yet, and
  /// remembers the cause in the source. Out of line.
  LLVM_ATTRIBUTE_NOINLINE uint32_t internSourceCause(const EventSource &source,
                                                     uint32_t reason);
  /// Interns non-empty `text`, looking first among the `recent` ids
  /// (most recent first) of this lane.
  uint32_t internRecent(StringRef text, uint32_t (&recent)[kRecentTexts]);
  /// Moves the causes of the lane's fresh source to `causeIds`.
  void retireFreshCauses(LaneCache &lane);
  /// The id of the cause `key`: of the lane's fresh causes, of `causeIds`,
  /// or added.
  uint32_t findOrAddCause(const CauseKey &key, LaneCache &lane);
  /// Adds `key` to the causes (not to `causeIds`); returns its id.
  uint32_t addCause(const CauseKey &key);
  /// Drops the sources and causes that no event of a record's history
  /// names, renumbers the rest (in every history), forgets what the lanes
  /// remember and takes a new serial, so that an EventSource interns again.
  /// Called by `internSource` before it adds a source, when no event made
  /// by the caller is left unrecorded: every cause id in use is in a
  /// history.
  LLVM_ATTRIBUTE_NOINLINE void collect();
  /// Sets when the next collection comes, from what the last one kept.
  void setCollectionThresholds(size_t keptSources, size_t keptCauses);
  /// Forgets what every lane remembers of sources and causes.
  void resetLaneCauses();
  /// `internReason` of a keyed reason not interned last: out of line.
  LLVM_ATTRIBUTE_NOINLINE uint32_t internKeyedReason(const EventReason &reason,
                                                     LaneCache &lane);
  const ActiveLane &active;
  /// The blocks of every history.
  HistoryPool histories;
  uint32_t mergedReason = 0;
  /// Names this log in `EventSource::internedBy`.
  uint64_t serial;
  /// See `setRecords`.
  const RecordPool *records = nullptr;
  /// A new source collects once the sources reach `collectSourcesAt` or
  /// the causes `collectCausesAt`: at least twice what the last collection
  /// kept, and as many new as it visited record slots, so that its cost
  /// is O(1) a source or cause added since.
  size_t collectSourcesAt = kForgetSourcesAt;
  size_t collectCausesAt = 4 * kForgetSourcesAt;
  /// Set when the registry ended: every SeenOp holds interned ids, not
  /// context-owned pointers (the context may be gone).
  bool frozen = false;
};

} // namespace tracking::detail
} // namespace mlir

#endif // MLIR_TRACKING_LIB_EVENTLOG_H
