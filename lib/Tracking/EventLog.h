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

#include "RegistryNotifier.h"

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

/// An op as last seen: its name and location as context-owned pointers
/// (`OperationName`, `Location`), formatted only when read. When the registry
/// ends (before its context), every record is frozen: the pointers are
/// replaced by ids of interned text (see `EventLog::Freezer`).
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
  /// Index into the log's sources (pass, anchor and their keys).
  uint32_t source = 0;
  /// Interned strings (`EventLog::intern`).
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

/// The events of one registry: interned text, and the histories of its
/// records. Guarded by the registry lock.
class EventLog {
public:
  EventLog();
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
  uint32_t internPattern(StringRef pattern) {
    if (strings[lastPattern] == pattern)
      return lastPattern;
    return lastPattern = intern(pattern);
  }
  uint32_t internReason(StringRef reason) {
    if (strings[lastReason] == reason)
      return lastReason;
    return lastReason = intern(reason);
  }

  /// The reason of every merge.
  uint32_t getMergedReason() const { return mergedReason; }

  //===--------------------------------------------------------------------===//
  // Events
  //===--------------------------------------------------------------------===//

  static SeenOp see(Operation *op);

  StringRef nameText(SeenOp seen) const;
  std::string locationText(SeenOp seen) const;
  /// "arith.addi at loc(...)".
  std::string describe(SeenOp seen) const;

  /// An event about the op last seen as `op`.
  CompactEvent makeEvent(TrackingEvent::Kind kind, SeenOp op,
                         const EventSource &source, StringRef reason = {});
  /// The event as text; `recordKey` names the record it happened to.
  TrackingEvent expand(const CompactEvent &compact,
                       const void *recordKey) const;

  /// Replaces context-owned pointers by ids of interned text, for a registry
  /// that ends before its context: freeze every SeenOp of every record, then
  /// call `finish`.
  class Freezer {
  public:
    explicit Freezer(EventLog &log) : log(log) {}
    void freeze(SeenOp &seen);
    /// Freezes the record's last sight and every event of its history.
    void freeze(HandleRecord *record);
    void finish() { log.frozen = true; }

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
  /// history is full.
  void appendEvent(HandleRecord *record, const CompactEvent &event);
  /// Appends the events of `from` from absolute index `start` on to the
  /// history of `to`, keeping the newest `kMaxHistory`.
  void appendHistory(HandleRecord *to, const HandleRecord *from,
                     uint64_t start);
  /// Absolute index one past the newest event of `record`.
  static uint64_t historyEnd(const HandleRecord *record);
  /// For a record merged into another: where its share of the parent's
  /// history starts, and setting it.
  static uint64_t parentStartOf(const HandleRecord *record);
  void setParentStart(HandleRecord *record, uint64_t start);
  /// The events `record`'s parent received since `record` joined it (those
  /// the parent still keeps).
  ArrayRef<CompactEvent> sharedEvents(const HandleRecord *record) const;
  /// Frees the history of `record` (before the record is freed).
  void freeHistory(HandleRecord *record);

private:
  /// The history of `record`, created empty if it has none.
  History &historyOf(HandleRecord *record);

  llvm::StringMap<uint32_t> stringIds;
  std::vector<StringRef> strings = {StringRef()};
  /// Where events come from: (pass key, anchor key, pass, anchor) interned.
  using SourceKey = std::tuple<const void *, const void *, uint32_t, uint32_t>;
  llvm::DenseMap<SourceKey, uint32_t> sourceIds;
  std::vector<SourceKey> sources = {SourceKey()};
  uint32_t lastSource = 0;
  uint32_t lastPattern = 0;
  uint32_t lastReason = 0;
  uint32_t mergedReason = 0;
  /// Set when the registry ended: every SeenOp holds interned ids, not
  /// context-owned pointers (the context may be gone).
  bool frozen = false;
};

} // namespace tracking::detail
} // namespace mlir

#endif // MLIR_TRACKING_LIB_EVENTLOG_H
