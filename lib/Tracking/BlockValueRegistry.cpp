//===- BlockValueRegistry.cpp - Block and SSA value handles ---------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "mlir/Tracking/BlockValueRegistry.h"

#include "BlockValueNotifications.h"
#include "ContextMap.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Region.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <mutex>
#include <optional>

using namespace mlir;
using namespace mlir::tracking;
using mlir::tracking::detail::EventSource;

namespace mlir::tracking::detail {

/// While it is zero, a notification needs no registry lookup.
std::atomic<size_t> numUnitKeysInProcess{0};

/// An event described only when a tracked unit is affected.
struct LazyEvent {
  TrackingEvent::Kind kind;
  SourceFn source;
  std::string reason;
  std::optional<TrackingEvent> event;
  const TrackingEvent &get() {
    if (!event) {
      event.emplace();
      event->kind = kind;
      if (source) {
        EventSource from = source();
        event->pass = from.pass;
        event->anchor = from.anchor;
        event->pattern = from.pattern;
        event->passKey = from.passKey;
        event->anchorKey = from.anchorKey;
      }
      event->reason = reason;
    }
    return *event;
  }
};

namespace {
std::string printLoc(Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

std::string describeOp(Operation *op) {
  return "'" + op->getName().getStringRef().str() + "' at " +
         printLoc(op->getLoc());
}

/// " of region #0 of 'func.func' at loc(...)" for a block of `region`.
std::string describeRegion(Region *region) {
  // A region of no op (a standalone `Region`) has no number: MLIR computes
  // it from the parent op.
  Operation *parent = region->getParentOp();
  if (!parent)
    return " of a region of no op";
  return " of region #" + std::to_string(region->getRegionNumber()) + " of " +
         describeOp(parent);
}

/// "block #3 of region #0 of 'func.func' at loc(...)", or without the
/// number when `index` is not given; a block in no region is "block".
std::string describeBlock(Block *block, std::optional<unsigned> index) {
  Region *region = block->getParent();
  if (!region)
    return "block";
  std::string text = "block";
  if (index)
    text += " #" + std::to_string(*index);
  return text + describeRegion(region);
}

/// Counts the blocks before `block` in its region.
unsigned indexInRegion(Block *block) {
  unsigned index = 0;
  for (Block *before = block->getPrevNode(); before;
       before = before->getPrevNode())
    ++index;
  return index;
}

std::string describeArgument(BlockArgument argument,
                             std::optional<unsigned> blockIndex) {
  return "argument #" + std::to_string(argument.getArgNumber()) + " of " +
         describeBlock(argument.getOwner(), blockIndex);
}

std::string describeValue(Value value) {
  if (auto result = dyn_cast<OpResult>(value))
    return "result #" + std::to_string(result.getResultNumber()) + " of " +
           describeOp(result.getOwner());
  auto argument = cast<BlockArgument>(value);
  Block *owner = argument.getOwner();
  return describeArgument(argument,
                          owner->getParent()
                              ? std::optional<unsigned>(indexInRegion(owner))
                              : std::nullopt);
}
} // namespace

/// The shared state behind a BlockHandle or ValueHandle. Guarded by the
/// registry mutex.
struct UnitRecord : std::enable_shared_from_this<UnitRecord> {
  UnitRecord(UnitRegistryImpl *impl, bool isBlock)
      : impl(impl), isBlock(isBlock) {}
  UnitRegistryImpl *impl;
  const bool isBlock;
  /// The Block* or the value's impl while mapped.
  void *key = nullptr;
  /// For a block argument: its block (a live block while mapped), and its
  /// place in that block's `argsByBlock` list (unmapped in constant time:
  /// a block may have 100,000 argument handles).
  Block *argOwner = nullptr;
  uint32_t argIndex = 0;
  bool mapped = false;
  HandleState state = HandleState::Live;
  /// What the unit was, as last seen ("result #1 of 'scf.if' at loc(...)").
  std::string description;
  /// Set while `description` still lacks the block's place in its region
  /// ("block #3"), and the record is mapped: counting it costs the blocks
  /// before it, so it is counted when the description is first read
  /// (UnitRegistryImpl::completeDescription).
  bool lacksBlockIndex = false;
  /// Bounded history of events, one line each.
  std::vector<std::string> history;
};

struct UnitRegistryImpl {
  mutable std::mutex mutex;
  llvm::DenseMap<Block *, UnitRecord *> blocks;
  /// Several records may share a value: each followed a replacement onto
  /// it. The first is the canonical one.
  llvm::DenseMap<void *, llvm::SmallVector<UnitRecord *, 1>> values;
  /// Block argument records by their block, so that erasing a block finds
  /// them even when an argument was erased unnoticed.
  llvm::DenseMap<Block *, llvm::SmallVector<UnitRecord *, 2>> argsByBlock;
  /// Number of mapped records; read without the lock for the fast path
  /// (numUnitKeysInProcess sums it over every registry).
  std::atomic<size_t> numMapped{0};
  /// Number of records with `lacksBlockIndex` set.
  size_t numLackingBlockIndex = 0;

  static constexpr size_t kMaxHistory = 16;

  bool empty() const { return numMapped.load(std::memory_order_acquire) == 0; }
  static UnitRegistryImpl *of(BlockValueRegistry &registry) {
    return registry.impl.get();
  }

  void mapBlock(UnitRecord *record, Block *block) {
    record->key = block;
    record->mapped = true;
    blocks[block] = record;
    ++numMapped;
    ++numUnitKeysInProcess;
  }

  void mapValue(UnitRecord *record, Value value) {
    record->key = value.getAsOpaquePointer();
    record->mapped = true;
    values[record->key].push_back(record);
    record->argOwner = nullptr;
    if (auto argument = dyn_cast<BlockArgument>(value)) {
      record->argOwner = argument.getOwner();
      auto &arguments = argsByBlock[record->argOwner];
      record->argIndex = arguments.size();
      arguments.push_back(record);
    }
    ++numMapped;
    ++numUnitKeysInProcess;
  }

  void unmap(UnitRecord *record) {
    if (!record->mapped)
      return;
    if (record->isBlock) {
      auto it = blocks.find(static_cast<Block *>(record->key));
      if (it != blocks.end() && it->second == record)
        blocks.erase(it);
    } else {
      // A value's records keep their order (the first is canonical); the
      // bulk ends (endValue) go from the back, so each is a pop.
      if (auto it = values.find(record->key); it != values.end()) {
        if (it->second.back() == record)
          it->second.pop_back();
        else
          llvm::erase(it->second, record);
        if (it->second.empty())
          values.erase(it);
      }
      // A block's argument records need no order.
      if (record->argOwner) {
        auto it = argsByBlock.find(record->argOwner);
        if (it != argsByBlock.end() && record->argIndex < it->second.size() &&
            it->second[record->argIndex] == record) {
          UnitRecord *last = it->second.back();
          it->second[record->argIndex] = last;
          last->argIndex = record->argIndex;
          it->second.pop_back();
          if (it->second.empty())
            argsByBlock.erase(it);
        }
      }
    }
    record->mapped = false;
    // Unmapped, its unit may go: the description stays as it is.
    clearLackingBlockIndex(record);
    --numMapped;
    --numUnitKeysInProcess;
  }

  void addEvent(UnitRecord *record, std::string line) {
    if (record->history.size() == kMaxHistory)
      record->history.erase(record->history.begin());
    record->history.push_back(std::move(line));
  }

  void markLackingBlockIndex(UnitRecord *record) {
    record->lacksBlockIndex = true;
    ++numLackingBlockIndex;
  }

  void clearLackingBlockIndex(UnitRecord *record) {
    if (!record->lacksBlockIndex)
      return;
    record->lacksBlockIndex = false;
    --numLackingBlockIndex;
  }

  /// Gives `record` its block's place in its region, described as the
  /// unit is now (a mapped unit is alive). The only record lacking it
  /// counts the blocks before its own; one of several numbers all those of
  /// its region in one walk, so that listing, then ending, n handles of a
  /// region's blocks costs O(n).
  void completeDescription(UnitRecord *record) {
    if (!record->lacksBlockIndex)
      return;
    Block *block =
        record->isBlock ? static_cast<Block *>(record->key) : record->argOwner;
    Region *region = block->getParent();
    if (region && numLackingBlockIndex > 1)
      return completeDescriptionsIn(region);
    // (Moved out of its region since: nothing to count.)
    std::optional<unsigned> index;
    if (region)
      index = indexInRegion(block);
    describeWithIndex(record, block, index);
  }

  void completeDescriptionsIn(Region *region) {
    unsigned index = 0;
    for (Block &block : *region) {
      if (auto it = blocks.find(&block);
          it != blocks.end() && it->second->lacksBlockIndex)
        describeWithIndex(it->second, &block, index);
      if (auto it = argsByBlock.find(&block); it != argsByBlock.end())
        for (UnitRecord *record : it->second)
          if (record->lacksBlockIndex)
            describeWithIndex(record, &block, index);
      ++index;
    }
  }

  /// Describes `record` (of `block` or an argument of it) anew, with
  /// `index` as the block's number.
  void describeWithIndex(UnitRecord *record, Block *block,
                         std::optional<unsigned> index) {
    clearLackingBlockIndex(record);
    if (record->isBlock)
      record->description = describeBlock(block, index);
    // An argument erased unnoticed keeps its description.
    else if (argumentStillThere(record))
      record->description = describeArgument(
          cast<BlockArgument>(Value::getFromOpaquePointer(record->key)), index);
  }

  /// Unmaps `record` and gives it its final state. `irReadable` is false
  /// when its unit may be freed already: its description stays as it is.
  void finish(UnitRecord *record, HandleState state, LazyEvent &event,
              bool irReadable = true) {
    if (irReadable)
      completeDescription(record);
    unmap(record);
    if (record->state != HandleState::Live)
      return;
    record->state = state;
    TrackingEvent copy = event.get();
    copy.op = record->description;
    addEvent(record, copy.str());
  }

  /// True while the block of a block-argument record still has it (MLIR
  /// reports no erasure of block arguments). Compares addresses only.
  static bool argumentStillThere(const UnitRecord *record) {
    if (!record->argOwner)
      return true;
    for (BlockArgument argument : record->argOwner->getArguments())
      if (argument.getAsOpaquePointer() == record->key)
        return true;
    return false;
  }

  /// Checks a block-argument record; ends it if its argument is gone.
  bool validate(UnitRecord *record) {
    if (!record->mapped || argumentStillThere(record))
      return record->mapped;
    LazyEvent event{TrackingEvent::Kind::Erased, nullptr,
                    "the block argument was erased", std::nullopt};
    finish(record, HandleState::Erased, event);
    return false;
  }

  /// Returns the record if someone still holds it; a record whose last
  /// handle is being released is unmapped instead.
  std::shared_ptr<UnitRecord> hold(UnitRecord *record) {
    std::shared_ptr<UnitRecord> held = record->weak_from_this().lock();
    if (!held)
      unmap(record);
    return held;
  }

  //===--------------------------------------------------------------------===//
  // Ending records under IR that goes away
  //===--------------------------------------------------------------------===//

  void endValue(Value value, HandleState state, LazyEvent &event) {
    auto it = values.find(value.getAsOpaquePointer());
    if (it == values.end())
      return;
    SmallVector<UnitRecord *, 1> records = it->second;
    for (UnitRecord *record : llvm::reverse(records))
      finish(record, state, event);
  }

  /// Ends the block's record and its argument records.
  void endBlock(Block *block, HandleState state, LazyEvent &event) {
    if (auto it = blocks.find(block); it != blocks.end())
      finish(it->second, state, event);
    if (auto it = argsByBlock.find(block); it != argsByBlock.end())
      for (UnitRecord *record : llvm::to_vector(it->second))
        finish(record, state, event);
  }

  /// Ends every record in `op`'s regions, and of `op`'s results if
  /// `includeResults`.
  void endUnder(Operation *op, bool includeResults, HandleState state,
                LazyEvent &event) {
    if (includeResults)
      for (Value result : op->getResults())
        endValue(result, state, event);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        endBlockAndContents(&block, state, event);
  }

  void endBlockAndContents(Block *block, HandleState state, LazyEvent &event) {
    endBlock(block, state, event);
    for (Operation &nested : *block)
      endUnder(&nested, /*includeResults=*/true, state, event);
  }
};

} // namespace mlir::tracking::detail

using mlir::tracking::detail::describeArgument;
using mlir::tracking::detail::describeBlock;
using mlir::tracking::detail::describeValue;
using mlir::tracking::detail::SourceFn;
using mlir::tracking::detail::UnitRecord;
using mlir::tracking::detail::UnitRegistryImpl;

namespace {
/// Block/value registries by context.
using UnitRegistries = mlir::tracking::detail::ContextMap<BlockValueRegistry>;

TrackingEvent makeEvent(TrackingEvent::Kind kind, const EventSource &source) {
  TrackingEvent event;
  event.kind = kind;
  event.pass = source.pass;
  event.anchor = source.anchor;
  event.pattern = source.pattern;
  event.passKey = source.passKey;
  event.anchorKey = source.anchorKey;
  return event;
}

/// Unmaps a record when its last handle goes away; holds the registry state
/// so that a handle may outlive its registry.
struct UnitRecordDeleter {
  std::shared_ptr<UnitRegistryImpl> impl;
  void operator()(UnitRecord *record) const {
    {
      std::lock_guard<std::mutex> lock(impl->mutex);
      impl->unmap(record);
    }
    delete record;
  }
};

std::string describeRecord(const UnitRecord &record, const char *noun) {
  std::string text = std::string(noun) + " handle to " + record.description +
                     " is " + stringifyHandleState(record.state).str();
  if (record.state != HandleState::Live && !record.history.empty())
    text += ": " + record.history.back();
  return text;
}
} // namespace

//===----------------------------------------------------------------------===//
// BlockHandle and ValueHandle
//===----------------------------------------------------------------------===//

Block *BlockHandle::get() const {
  if (!record)
    return nullptr;
  std::lock_guard<std::mutex> lock(record->impl->mutex);
  return record->state == HandleState::Live && record->mapped
             ? static_cast<Block *>(record->key)
             : nullptr;
}

HandleState BlockHandle::getState() const {
  if (!record)
    return HandleState::Erased;
  std::lock_guard<std::mutex> lock(record->impl->mutex);
  return record->state;
}

std::string BlockHandle::describe() const {
  if (!record)
    return "empty block handle";
  std::lock_guard<std::mutex> lock(record->impl->mutex);
  record->impl->completeDescription(record.get());
  return describeRecord(*record, "block");
}

Value ValueHandle::get() const {
  if (!record)
    return Value();
  std::lock_guard<std::mutex> lock(record->impl->mutex);
  if (record->state != HandleState::Live ||
      !record->impl->validate(record.get()))
    return Value();
  return Value::getFromOpaquePointer(record->key);
}

HandleState ValueHandle::getState() const {
  if (!record)
    return HandleState::Erased;
  std::lock_guard<std::mutex> lock(record->impl->mutex);
  if (record->state == HandleState::Live)
    record->impl->validate(record.get());
  return record->state;
}

std::string ValueHandle::describe() const {
  if (!record)
    return "empty value handle";
  std::lock_guard<std::mutex> lock(record->impl->mutex);
  if (record->state == HandleState::Live &&
      record->impl->validate(record.get()))
    record->impl->completeDescription(record.get());
  return describeRecord(*record, "value");
}

//===----------------------------------------------------------------------===//
// BlockValueRegistry
//===----------------------------------------------------------------------===//

BlockValueRegistry::BlockValueRegistry(MLIRContext *context)
    : context(context), impl(std::make_shared<UnitRegistryImpl>()) {
  if (!UnitRegistries::insert(context, this))
    llvm::report_fatal_error(
        "mlir-tracking: this MLIRContext already has a BlockValueRegistry");
}

BlockValueRegistry::~BlockValueRegistry() {
  UnitRegistries::erase(context);
  std::lock_guard<std::mutex> lock(impl->mutex);
  detail::LazyEvent event{TrackingEvent::Kind::Erased, nullptr,
                          "tracking ended (registry destroyed)", std::nullopt};
  SmallVector<UnitRecord *> all;
  for (auto &entry : impl->blocks)
    all.push_back(entry.second);
  for (auto &entry : impl->values)
    all.append(entry.second.begin(), entry.second.end());
  // The IR may be gone before its context's registry.
  for (UnitRecord *record : all)
    impl->finish(record, HandleState::Erased, event, /*irReadable=*/false);
}

BlockValueRegistry *BlockValueRegistry::lookup(MLIRContext *context) {
  return UnitRegistries::lookup(context);
}

BlockHandle BlockValueRegistry::getBlockHandle(Block *block) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  if (auto it = impl->blocks.find(block); it != impl->blocks.end())
    if (std::shared_ptr<UnitRecord> held = impl->hold(it->second))
      return BlockHandle(std::move(held));
  std::shared_ptr<UnitRecord> record(new UnitRecord(impl.get(), true),
                                     UnitRecordDeleter{impl});
  // Numbered when first read (completeDescription): counting here would
  // make listing a region's blocks quadratic.
  record->description = describeBlock(block, std::nullopt);
  if (block->getParent())
    impl->markLackingBlockIndex(record.get());
  impl->mapBlock(record.get(), block);
  return BlockHandle(std::move(record));
}

ValueHandle BlockValueRegistry::getValueHandle(Value value) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  if (auto it = impl->values.find(value.getAsOpaquePointer());
      it != impl->values.end()) {
    // Stale argument records (their argument was erased unnoticed) are
    // ended here, so a new value at that address never finds them.
    for (UnitRecord *record : llvm::to_vector(it->second))
      if (impl->validate(record))
        if (std::shared_ptr<UnitRecord> held = impl->hold(record))
          return ValueHandle(std::move(held));
  }
  std::shared_ptr<UnitRecord> record(new UnitRecord(impl.get(), false),
                                     UnitRecordDeleter{impl});
  if (auto argument = dyn_cast<BlockArgument>(value)) {
    // As a block's description, numbered when first read.
    record->description = describeArgument(argument, std::nullopt);
    if (argument.getOwner()->getParent())
      impl->markLackingBlockIndex(record.get());
  } else {
    record->description = describeValue(value);
  }
  impl->mapValue(record.get(), value);
  return ValueHandle(std::move(record));
}

size_t BlockValueRegistry::getNumTracked() const {
  return impl->numMapped.load();
}

void BlockValueRegistry::forEachTrackedAddress(
    llvm::function_ref<void(const void *)> fn) const {
  std::vector<const void *> addresses;
  {
    std::lock_guard<std::mutex> lock(impl->mutex);
    for (auto &entry : impl->blocks)
      addresses.push_back(entry.first);
    for (auto &entry : impl->values)
      addresses.push_back(entry.first);
  }
  for (const void *address : addresses)
    fn(address);
}

void BlockValueRegistry::eraseNested(Operation *root, StringRef reason) {
  if (impl->empty())
    return;
  detail::LazyEvent event{TrackingEvent::Kind::Erased, nullptr, reason.str(),
                          std::nullopt};
  std::lock_guard<std::mutex> lock(impl->mutex);
  impl->endUnder(root, /*includeResults=*/true, HandleState::Erased, event);
}

void BlockValueRegistry::eraseAllBut(const llvm::DenseSet<const void *> &live,
                                     StringRef reason) {
  if (impl->empty())
    return;
  detail::LazyEvent event{TrackingEvent::Kind::Erased, nullptr, reason.str(),
                          std::nullopt};
  std::lock_guard<std::mutex> lock(impl->mutex);
  // Collected first: finishing a record unmaps it from these tables.
  llvm::SetVector<UnitRecord *> gone;
  for (auto &[block, record] : impl->blocks)
    if (!live.contains(block))
      gone.insert(record);
  for (auto &[key, records] : impl->values)
    if (!live.contains(key))
      gone.insert(records.begin(), records.end());
  // An argument of a freed block: its record points at the block.
  for (auto &[block, records] : impl->argsByBlock)
    if (!live.contains(block))
      gone.insert(records.begin(), records.end());
  for (UnitRecord *record : gone)
    impl->finish(record, HandleState::Erased, event, /*irReadable=*/false);
}

//===----------------------------------------------------------------------===//
// Notifications
//===----------------------------------------------------------------------===//

namespace {
/// The registry state of `context` if it tracks anything, else null.
UnitRegistryImpl *getActive(MLIRContext *context) {
  if (tracking::detail::numUnitKeysInProcess.load(std::memory_order_acquire) ==
      0)
    return nullptr;
  BlockValueRegistry *registry = BlockValueRegistry::lookup(context);
  if (!registry)
    return nullptr;
  UnitRegistryImpl *impl = UnitRegistryImpl::of(*registry);
  return impl->empty() ? nullptr : impl;
}
} // namespace

bool mlir::tracking::detail::hasUnitHandles(MLIRContext *context) {
  return getActive(context) != nullptr;
}

void mlir::tracking::detail::notifyUnitsOfReplacement(Operation *op,
                                                      ValueRange newValues,
                                                      SourceFn source) {
  UnitRegistryImpl *impl = getActive(op->getContext());
  if (!impl)
    return;
  std::lock_guard<std::mutex> lock(impl->mutex);
  for (OpResult result : op->getResults()) {
    auto it = impl->values.find(result.getAsOpaquePointer());
    if (it == impl->values.end())
      continue;
    SmallVector<UnitRecord *, 1> records = it->second;
    unsigned index = result.getResultNumber();
    Value replacement = index < newValues.size() ? newValues[index] : Value();
    if (replacement == result)
      continue;
    if (!replacement) {
      detail::LazyEvent event{TrackingEvent::Kind::Erased, source,
                              "replaced by no value", std::nullopt};
      for (UnitRecord *record : records)
        impl->finish(record, HandleState::Erased, event);
      continue;
    }
    // The handle follows the value that takes this one's place; records
    // already on that value stay first (canonical).
    TrackingEvent event = makeEvent(TrackingEvent::Kind::Replaced, source());
    std::string description = describeValue(replacement);
    event.replacement = description;
    for (UnitRecord *record : records) {
      if (record->state != HandleState::Live)
        continue;
      impl->completeDescription(record);
      impl->unmap(record);
      event.op = record->description;
      impl->addEvent(record, event.str());
      record->description = description;
      impl->mapValue(record, replacement);
      // Numbered again when read, as a handle taken on the argument.
      if (auto argument = dyn_cast<BlockArgument>(replacement);
          argument && argument.getOwner()->getParent())
        impl->markLackingBlockIndex(record);
    }
  }
}

void mlir::tracking::detail::notifyUnitsOfErasedOp(Operation *op,
                                                   SourceFn source) {
  UnitRegistryImpl *impl = getActive(op->getContext());
  if (!impl)
    return;
  detail::LazyEvent event{TrackingEvent::Kind::Erased, source, "",
                          std::nullopt};
  std::lock_guard<std::mutex> lock(impl->mutex);
  impl->endUnder(op, /*includeResults=*/true, HandleState::Erased, event);
}

void mlir::tracking::detail::notifyUnitsOfErasedBlock(Block *block,
                                                      SourceFn source) {
  Operation *parent = block->getParentOp();
  UnitRegistryImpl *impl = nullptr;
  if (parent)
    impl = getActive(parent->getContext());
  else if (!block->empty())
    impl = getActive(block->front().getContext());
  else if (block->getNumArguments())
    impl = getActive(block->getArgument(0).getContext());
  else {
    // An empty block of a region of no op names no context, yet it may have
    // a handle: whichever registry maps it must forget it before it is freed.
    if (!mayHaveUnitHandles())
      return;
    UnitRegistries::forEach([&](BlockValueRegistry *registry) {
      UnitRegistryImpl *candidate = UnitRegistryImpl::of(*registry);
      std::lock_guard<std::mutex> lock(candidate->mutex);
      if (candidate->blocks.count(block)) {
        detail::LazyEvent event{TrackingEvent::Kind::Erased, source, "",
                                std::nullopt};
        candidate->endBlock(block, HandleState::Erased, event);
      }
    });
    return;
  }
  if (!impl)
    return;
  detail::LazyEvent event{TrackingEvent::Kind::Erased, source, "",
                          std::nullopt};
  std::lock_guard<std::mutex> lock(impl->mutex);
  impl->endBlockAndContents(block, HandleState::Erased, event);
}

void mlir::tracking::detail::invalidateUnitsUnder(Operation *anchor,
                                                  SourceFn source,
                                                  StringRef reason) {
  UnitRegistryImpl *impl = getActive(anchor->getContext());
  if (!impl)
    return;
  detail::LazyEvent event{TrackingEvent::Kind::Invalidated, source,
                          reason.str(), std::nullopt};
  std::lock_guard<std::mutex> lock(impl->mutex);
  impl->endUnder(anchor, /*includeResults=*/false, HandleState::Invalidated,
                 event);
}
