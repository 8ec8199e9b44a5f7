//===- EventLog.cpp - Compact handle histories ----------------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "EventLog.h"
#include "HandleRecords.h"

#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::detail;

namespace {
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

History *allocateHistory(History *old, uint32_t capacity) {
  auto *history = static_cast<History *>(
      std::realloc(old, sizeof(History) + capacity * sizeof(CompactEvent)));
  if (!history)
    llvm::report_bad_alloc_error("mlir-tracking: history");
  return history;
}
} // namespace

EventLog::EventLog()
    : mergedReason(
          intern("merged with the handle that already referred to it")) {}

//===----------------------------------------------------------------------===//
// Interned text
//===----------------------------------------------------------------------===//

uint32_t EventLog::intern(StringRef text) {
  if (text.empty())
    return 0;
  auto [it, inserted] = stringIds.try_emplace(text, strings.size());
  if (inserted)
    strings.push_back(it->getKey());
  return it->second;
}

uint32_t EventLog::internSource(const EventSource &source) {
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

//===----------------------------------------------------------------------===//
// Events
//===----------------------------------------------------------------------===//

SeenOp EventLog::see(Operation *op) {
  return {op->getName().getAsOpaquePointer(),
          op->getLoc().getAsOpaquePointer()};
}

StringRef EventLog::nameText(SeenOp seen) const {
  if (frozen)
    return strings[reinterpret_cast<uintptr_t>(seen.name)];
  if (!seen.name)
    return "";
  return OperationName::getFromOpaquePointer(seen.name).getStringRef();
}

std::string EventLog::locationText(SeenOp seen) const {
  if (frozen)
    return strings[reinterpret_cast<uintptr_t>(seen.loc)].str();
  if (!seen.loc)
    return "";
  return printLocation(Location::getFromOpaquePointer(seen.loc));
}

std::string EventLog::describe(SeenOp seen) const {
  return (nameText(seen) + " at " + locationText(seen)).str();
}

CompactEvent EventLog::makeEvent(TrackingEvent::Kind kind, SeenOp op,
                                 const EventSource &source, StringRef reason) {
  CompactEvent event;
  event.kind = unsigned(kind);
  event.op = op;
  event.source = internSource(source);
  event.pattern = internPattern(source.pattern);
  event.reason = internReason(reason);
  return event;
}

TrackingEvent EventLog::expand(const CompactEvent &compact,
                               const void *recordKey) const {
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
  event.recordKey = recordKey;
  return event;
}

void EventLog::Freezer::freeze(SeenOp &seen) {
  if (seen.name) {
    auto [it, inserted] = names.try_emplace(seen.name, 0);
    if (inserted)
      it->second = log.intern(log.nameText(seen));
    seen.name = reinterpret_cast<const void *>(uintptr_t(it->second));
  }
  if (seen.loc) {
    auto [it, inserted] = locations.try_emplace(seen.loc, 0);
    if (inserted)
      it->second = log.intern(log.locationText(seen));
    seen.loc = reinterpret_cast<const void *>(uintptr_t(it->second));
  }
}

void EventLog::Freezer::freeze(HandleRecord *record) {
  freeze(record->last);
  for (CompactEvent &event : log.eventsOf(record)) {
    freeze(event.op);
    freeze(event.replacement);
  }
}

//===----------------------------------------------------------------------===//
// Histories
//===----------------------------------------------------------------------===//

MutableArrayRef<CompactEvent> EventLog::eventsOf(HandleRecord *record) {
  if (!record->history)
    return {};
  return {record->history->events(), record->historySize};
}

ArrayRef<CompactEvent> EventLog::eventsOf(const HandleRecord *record) const {
  if (!record->history)
    return {};
  return {record->history->events(), record->historySize};
}

History &EventLog::historyOf(HandleRecord *record) {
  if (!record->history) {
    record->history = new (allocateHistory(nullptr, 1)) History();
    record->historySize = 0;
  }
  return *record->history;
}

void EventLog::appendEvent(HandleRecord *record, const CompactEvent &event) {
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

uint64_t EventLog::historyEnd(const HandleRecord *record) {
  return record->history
             ? uint64_t(record->history->dropped) + record->historySize
             : 0;
}

void EventLog::appendHistory(HandleRecord *to, const HandleRecord *from,
                             uint64_t start) {
  if (!from->history)
    return;
  uint64_t dropped = from->history->dropped;
  uint64_t skip = start > dropped ? start - dropped : 0;
  ArrayRef<CompactEvent> events = eventsOf(from);
  for (uint64_t i = skip; i < events.size(); ++i)
    appendEvent(to, events[i]);
}

uint64_t EventLog::parentStartOf(const HandleRecord *record) {
  return record->history ? record->history->parentStart : 0;
}

void EventLog::setParentStart(HandleRecord *record, uint64_t start) {
  historyOf(record).parentStart = uint32_t(start);
}

ArrayRef<CompactEvent>
EventLog::sharedEvents(const HandleRecord *record) const {
  const HandleRecord *parent = record->parent;
  if (!parent || !parent->history)
    return {};
  uint64_t start = parentStartOf(record);
  uint64_t dropped = parent->history->dropped;
  uint64_t skip = start > dropped ? start - dropped : 0;
  return eventsOf(parent).drop_front(
      std::min<uint64_t>(skip, parent->historySize));
}

void EventLog::freeHistory(HandleRecord *record) {
  std::free(record->history);
  record->history = nullptr;
  record->historySize = 0;
}
