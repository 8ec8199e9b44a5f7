//===- EventLog.cpp - Compact handle histories ----------------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "EventLog.h"
#include "HandleRecords.h"
#include "HotPath.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"
#include "mlir/Tracking/TrackingListener.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
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
} // namespace

namespace {
std::atomic<uint64_t> nextLogSerial{1};
} // namespace

EventLog::EventLog(const ActiveLane &lane, PageArena *arena)
    : active(lane),
      histories(sizeof(CompactEvent), sizeof(FullHistoryHeader), lane,
                HistoryPool::kMaxBlocksPerLaneAndClass, arena),
      mergedReason(
          intern("merged with the handle that already referred to it")),
      serial(nextLogSerial.fetch_add(1, std::memory_order_relaxed)) {}

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

uint32_t EventLog::internKeyedReason(const EventReason &reason,
                                     LaneCache &lane) {
  lane.lastKeyedReason = intern(reason.getText());
  lane.lastReasonKey = reason.key;
  return lane.lastKeyedReason;
}

uint32_t EventLog::internRecent(StringRef text,
                                uint32_t (&recent)[kRecentTexts]) {
  if (text.empty())
    return 0;
  unsigned found = kRecentTexts - 1;
  uint32_t id = 0;
  for (unsigned i = 0; i < kRecentTexts; ++i) {
    if (recent[i] && strings[recent[i]] == text) {
      found = i;
      id = recent[i];
      break;
    }
  }
  if (!id)
    id = intern(text);
  for (unsigned i = found; i > 0; --i)
    recent[i] = recent[i - 1];
  recent[0] = id;
  return id;
}

uint32_t EventLog::internSource(const EventSource &source) {
  assert(!frozen && "no event is made once the log is frozen");
  LaneCache &lane = cache();
  const SourceKey &last = sources[lane.lastSource];
  if (lane.lastSource && std::get<0>(last) == source.passKey &&
      std::get<1>(last) == source.anchorKey &&
      std::get<4>(last) == source.anchorName &&
      std::get<5>(last) == source.anchorSymbol &&
      strings[std::get<2>(last)] == source.pass &&
      strings[std::get<3>(last)] == source.anchor)
    return lane.lastSource;
  SourceKey key(source.passKey, source.anchorKey,
                internRecent(source.pass, lane.recentPasses),
                intern(source.anchor), source.anchorName, source.anchorSymbol);
  if (key == SourceKey())
    return 0;
  uint32_t hash = hashSource(key);
  uint32_t id =
      sourceIds.find(hash, [&](uint32_t id) { return sources[id] == key; });
  // The lane's previous source is done with, but for an EventSource that
  // still remembers it (another thread taking turns on this lane): a cause
  // it makes anew goes to the table, at worst a copy of one of the lane's.
  lane.numFreshCauses = 0;
  lane.freshSource = 0;
  if (!id) {
    // No event of this call is unrecorded yet: the one place that may
    // collect. (The key names only strings, which stay.)
    if (LLVM_UNLIKELY(records && (sources.size() >= collectSourcesAt ||
                                  causes.size() >= collectCausesAt)))
      collect();
    // New: no cause names it yet, anywhere.
    if (sources.size() >= (size_t(1) << 32) - 1)
      llvm::report_fatal_error("mlir-tracking: too many event sources");
    id = uint32_t(sources.size());
    sources.push_back(key);
    sourceIds.insert(hash, id);
    lane.freshSource = id;
  }
  lane.lastSource = id;
  return id;
}

uint32_t EventLog::hashSource(const SourceKey &key) {
  uint64_t hash = mixHash(0, uintptr_t(std::get<0>(key)));
  hash = mixHash(hash, uintptr_t(std::get<1>(key)));
  hash = mixHash(hash, uint64_t(std::get<2>(key)) << 32 | std::get<3>(key));
  hash = mixHash(hash, uintptr_t(std::get<4>(key)));
  return foldHash(mixHash(hash, uintptr_t(std::get<5>(key))));
}

uint32_t EventLog::hashCause(const CauseKey &key) {
  uint64_t hash =
      mixHash(0, uint64_t(std::get<0>(key)) << 32 | std::get<1>(key));
  return foldHash(mixHash(hash, std::get<2>(key)));
}

void EventLog::retireFreshCauses(LaneCache &lane) {
  for (uint32_t i = 0; i < lane.numFreshCauses; ++i) {
    const CauseKey &key = causes[lane.freshCauses[i]];
    uint32_t hash = hashCause(key);
    // A cause made again for a source that was fresh may be in the table.
    if (!findCause(key, hash))
      causeIds.insert(hash, lane.freshCauses[i]);
  }
  lane.freshSource = 0;
  lane.numFreshCauses = 0;
}

/// The text of an anchor named by its parts (EventSource::anchorName and
/// anchorSymbol).
static std::string describeAnchorParts(const void *name, const void *symbol) {
  StringRef symbolName;
  if (symbol)
    symbolName =
        cast<StringAttr>(Attribute::getFromOpaquePointer(symbol)).getValue();
  return describeAnchor(
      OperationName::getFromOpaquePointer(name).getStringRef(), symbolName);
}

std::string EventSource::getAnchorText() const {
  if (!anchor.empty() || !anchorName)
    return anchor;
  return describeAnchorParts(anchorName, anchorSymbol);
}

//===----------------------------------------------------------------------===//
// Events
//===----------------------------------------------------------------------===//

std::string EventLog::anchorText(const SourceKey &source) const {
  if (!std::get<4>(source))
    return strings[std::get<3>(source)].str();
  return describeAnchorParts(std::get<4>(source), std::get<5>(source));
}

/// The name the table gives every op name past its last id: a registry
/// that saw more than 2^21 distinct names (a generator making unique
/// unregistered ones) keeps tracking, only its texts no longer tell those
/// names apart.
static const char unrecordedName = 0;

StringRef EventLog::nameText(SeenOp seen) const {
  if (frozen)
    return strings[reinterpret_cast<uintptr_t>(seen.name)];
  if (!seen.name)
    return "";
  if (seen.name == &unrecordedName)
    return "(an op name not recorded: more than 2097151 distinct names in "
           "this registry)";
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

uint32_t EventLog::internName(const void *name, LaneCache &lane) {
  if (!name)
    return 0;
  assert(!frozen && "no op is seen once the log is frozen");
  constexpr size_t kLastId = (size_t(1) << kNameIdBits) - 1;
  auto known = nameIds.find(name);
  uint32_t id;
  if (known != nameIds.end()) {
    id = known->second;
  } else if (names.size() < kLastId) {
    id = names.size();
    nameIds.try_emplace(name, id);
    names.push_back(name);
  } else {
    // The table is full: the last id stands for every name after it.
    if (names.size() == kLastId)
      names.push_back(&unrecordedName);
    id = kLastId;
  }
  lane.lastNameSeen = name;
  lane.lastNameId = id;
  return id;
}

MLIR_TRACKING_HOT_PATH uint32_t EventLog::internCause(uint32_t source,
                                                      uint32_t pattern,
                                                      uint32_t reason) {
  CauseKey key(source, pattern, reason);
  LaneCache &lane = cache();
  for (unsigned i = 0; i < kRecentCauses; ++i)
    if (lane.recentKeys[i] == key)
      return lane.recentIds[i];
  return internNewCause(key, lane);
}

uint32_t EventLog::internNewCause(const CauseKey &key, LaneCache &lane) {
  uint32_t id = findOrAddCause(key, lane);
  // The zero entries stand for cause 0, (0, 0, 0), which is not in causeIds.
  for (unsigned i = kRecentCauses - 1; i > 0; --i) {
    lane.recentKeys[i] = lane.recentKeys[i - 1];
    lane.recentIds[i] = lane.recentIds[i - 1];
  }
  lane.recentKeys[0] = key;
  lane.recentIds[0] = id;
  return id;
}

LLVM_ATTRIBUTE_ALWAYS_INLINE uint32_t
EventLog::findOrAddCause(const CauseKey &key, LaneCache &lane) {
  if (lane.freshSource && std::get<0>(key) == lane.freshSource) {
    // The causes of the lane's fresh source are all in the lane.
    for (uint32_t i = 0; i < lane.numFreshCauses; ++i)
      if (causes[lane.freshCauses[i]] == key)
        return lane.freshCauses[i];
    if (lane.numFreshCauses < kFreshCauses) {
      uint32_t id = addCause(key);
      lane.freshCauses[lane.numFreshCauses++] = id;
      return id;
    }
    retireFreshCauses(lane);
  }
  uint32_t hash = hashCause(key);
  if (uint32_t id = findCause(key, hash))
    return id;
  uint32_t id = addCause(key);
  causeIds.insert(hash, id);
  return id;
}

LLVM_ATTRIBUTE_ALWAYS_INLINE uint32_t EventLog::addCause(const CauseKey &key) {
  if (causes.size() >= (size_t(1) << 30))
    llvm::report_fatal_error("mlir-tracking: too many event causes");
  causes.push_back(key);
  return uint32_t(causes.size() - 1);
}

MLIR_TRACKING_HOT_PATH uint32_t
EventLog::internSourceCause(const EventSource &source, uint32_t reason) {
  if (source.internedBy != serial) {
    source.internedSource = internSource(source);
    source.internedPattern = internPattern(source.pattern);
    source.internedReason = UINT32_MAX;
    source.internedBy = serial;
  }
  if (reason == source.internedReason)
    return source.internedCause;
  source.internedCause =
      internCause(source.internedSource, source.internedPattern, reason);
  source.internedReason = reason;
  return source.internedCause;
}

void EventLog::resetLaneCauses() {
  for (LaneCache &lane : caches) {
    lane.lastSource = 0;
    lane.freshSource = lane.numFreshCauses = 0;
    std::fill(std::begin(lane.recentKeys), std::end(lane.recentKeys),
              CauseKey());
    std::fill(std::begin(lane.recentIds), std::end(lane.recentIds), 0);
  }
  // A source that remembers a cause id of this log must not use it again.
  serial = nextLogSerial.fetch_add(1, std::memory_order_relaxed);
}

void EventLog::setCollectionThresholds(size_t keptSources, size_t keptCauses) {
  // A collection visits every record slot and each of its events (32 at
  // most), and every source and cause: it comes after at least as many
  // new sources (or causes) as slots, and as were kept.
  size_t slots = records ? records->getNumSlots() : 0;
  collectSourcesAt =
      std::max(kForgetSourcesAt, keptSources + std::max(keptSources, slots));
  collectCausesAt =
      std::max(4 * kForgetSourcesAt, keptCauses + std::max(keptCauses, slots));
}

void EventLog::forgetCausesIfMany() {
  if (sources.size() <= kForgetSourcesAt)
    return;
  std::vector<SourceKey>(1).swap(sources);
  sourceIds.clear();
  std::vector<CauseKey>(1).swap(causes);
  causeIds.clear();
  resetLaneCauses();
  setCollectionThresholds(0, 0);
}

void EventLog::collect() {
  assert(records && !frozen && "collects the sources of a live registry");
  // Mark: the causes some history names (1), and their sources.
  std::vector<uint32_t> newCause(causes.size(), 0);
  records->forEach([&](const HandleRecord *record) {
    for (const CompactEvent &event : eventsOf(record))
      newCause[event.cause] = 1;
  });
  std::vector<uint32_t> newSource(sources.size(), 0);
  for (size_t id = 1; id < causes.size(); ++id)
    if (newCause[id])
      newSource[std::get<0>(causes[id])] = 1;
  // Keep them in their order, renumbered, in tables of their size.
  std::vector<SourceKey> keptSources(1);
  IdTable keptSourceIds;
  for (size_t id = 1; id < sources.size(); ++id) {
    if (!newSource[id])
      continue;
    newSource[id] = uint32_t(keptSources.size());
    keptSourceIds.insert(hashSource(sources[id]), newSource[id]);
    keptSources.push_back(sources[id]);
  }
  newSource[0] = 0;
  std::vector<CauseKey> keptCauses(1);
  IdTable keptCauseIds;
  for (size_t id = 1; id < causes.size(); ++id) {
    if (!newCause[id])
      continue;
    CauseKey key = causes[id];
    std::get<0>(key) = newSource[std::get<0>(key)];
    uint32_t hash = hashCause(key);
    // A lane may have made a second copy of a cause (see LaneCache): the
    // copies become one.
    if (uint32_t same = keptCauseIds.find(
            hash, [&](uint32_t kept) { return keptCauses[kept] == key; })) {
      newCause[id] = same;
      continue;
    }
    newCause[id] = uint32_t(keptCauses.size());
    keptCauseIds.insert(hash, newCause[id]);
    keptCauses.push_back(key);
  }
  newCause[0] = 0;
  records->forEach([&](HandleRecord *record) {
    for (CompactEvent &event : eventsOf(record))
      event.cause = newCause[event.cause];
  });
  sources.swap(keptSources);
  sourceIds = std::move(keptSourceIds);
  causes.swap(keptCauses);
  causeIds = std::move(keptCauseIds);
  resetLaneCauses();
  setCollectionThresholds(sources.size(), causes.size());
}

void EventLog::setReason(CompactEvent &event, uint32_t reason) {
  const CauseKey &cause = causes[event.cause];
  event.cause = internCause(std::get<0>(cause), std::get<1>(cause), reason);
}

TrackingEvent EventLog::expand(const CompactEvent &compact,
                               const void *recordKey) const {
  TrackingEvent event;
  event.kind = TrackingEvent::Kind(compact.kind);
  event.op = describe({names[compact.opName], compact.opLoc});
  if (compact.replacementName || compact.replacementLoc)
    event.replacement =
        describe({names[compact.replacementName], compact.replacementLoc});
  const CauseKey &cause = causes[compact.cause];
  const SourceKey &source = sources[std::get<0>(cause)];
  event.passKey = std::get<0>(source);
  event.anchorKey = std::get<1>(source);
  event.pass = strings[std::get<2>(source)].str();
  event.anchor = anchorText(source);
  event.pattern = strings[std::get<1>(cause)].str();
  event.reason = strings[std::get<2>(cause)].str();
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
  // Names are ids of the log's table, which `finish` freezes.
  auto freezeLocation = [&](const void *&loc) {
    SeenOp location{nullptr, loc};
    freeze(location);
    loc = location.loc;
  };
  freezeLocation(record->lastLoc);
  for (CompactEvent &event : log.eventsOf(record)) {
    freezeLocation(event.opLoc);
    freezeLocation(event.replacementLoc);
  }
}

void EventLog::Freezer::finish() {
  // Anchors named by their parts get their text.
  for (SourceKey &source : log.sources) {
    if (!std::get<4>(source))
      continue;
    std::get<3>(source) = log.intern(log.anchorText(source));
    std::get<4>(source) = std::get<5>(source) = nullptr;
  }
  // Its keys name what the context owns; no source is interned any more.
  log.sourceIds.clear();
  for (const void *&name : log.names) {
    SeenOp seen{name, nullptr};
    freeze(seen);
    name = seen.name;
  }
  log.nameIds.clear();
  for (LaneCache &lane : log.caches) {
    lane.lastNameSeen = nullptr;
    lane.lastNameId = 0;
    // Keys may name what the context owns.
    lane.lastReasonKey = nullptr;
    lane.lastSource = 0;
    lane.freshSource = lane.numFreshCauses = 0;
  }
  log.frozen = true;
}

//===----------------------------------------------------------------------===//
// Histories
//===----------------------------------------------------------------------===//

MLIR_TRACKING_HOT_PATH CompactEvent *
EventLog::eventsAt(HistoryPool::Id id) const {
  auto *block = static_cast<char *>(histories.get(id));
  if (HistoryPool::isFull(id))
    block += sizeof(FullHistoryHeader);
  return reinterpret_cast<CompactEvent *>(block);
}

MutableArrayRef<CompactEvent> EventLog::eventsOf(HandleRecord *record) {
  if (!record->history)
    return {};
  return {eventsAt(record->history), record->historySize};
}

ArrayRef<CompactEvent> EventLog::eventsOf(const HandleRecord *record) const {
  if (!record->history)
    return {};
  return {eventsAt(record->history), record->historySize};
}

void EventLog::appendToHistory(HandleRecord *record,
                               const CompactEvent &event) {
  uint32_t size = record->historySize;
  if (size == kMaxHistory) {
    CompactEvent *events = eventsAt(record->history);
    std::memmove(events, events + 1, (size - 1) * sizeof(CompactEvent));
    --size;
    ++static_cast<FullHistoryHeader *>(histories.get(record->history))->dropped;
  } else if (size == HistoryPool::capacityOf(record->history)) {
    // Full: move to a block of the next class.
    HistoryPool::Id grown =
        histories.allocate(HistoryPool::classOf(record->history) + 1);
    if (HistoryPool::isFull(grown))
      new (histories.get(grown)) FullHistoryHeader();
    std::memcpy(static_cast<void *>(eventsAt(grown)), eventsAt(record->history),
                size * sizeof(CompactEvent));
    histories.free(record->history);
    record->history = grown;
  }
  eventsAt(record->history)[size] = event;
  record->historySize = size + 1;
}

void EventLog::appendHistory(HandleRecord *to, const HandleRecord *from,
                             uint64_t start) {
  uint64_t dropped = droppedOf(from);
  uint64_t skip = start > dropped ? start - dropped : 0;
  ArrayRef<CompactEvent> events = eventsOf(from);
  for (uint64_t i = skip; i < events.size(); ++i)
    appendEvent(to, events[i]);
}

ArrayRef<CompactEvent>
EventLog::sharedEvents(const HandleRecord *record) const {
  const HandleRecord *parent = record->getParent();
  if (!parent || !parent->history)
    return {};
  uint64_t start = parentStartOf(record);
  uint64_t dropped = droppedOf(parent);
  uint64_t skip = start > dropped ? start - dropped : 0;
  return eventsOf(parent).drop_front(
      std::min<uint64_t>(skip, parent->historySize));
}

void EventLog::freeHistory(HandleRecord *record) {
  if (record->history)
    histories.free(record->history);
  record->history = 0;
  record->historySize = 0;
}

static_assert(EventLog::kMaxHistory ==
                  (uint32_t(1) << (HistoryPool::kNumClasses - 1)),
              "a full history has a block of the largest class");
