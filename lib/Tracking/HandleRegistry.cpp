//===- HandleRegistry.cpp - Operation handles that survive rewrites -------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "mlir/Tracking/HandleRegistry.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>
#include <shared_mutex>

using namespace mlir;
using namespace mlir::tracking;

namespace mlir::tracking::detail {
struct RegistryImpl;

/// The shared state behind one OpHandle. All fields are guarded by the
/// registry mutex.
struct HandleRecord : std::enable_shared_from_this<HandleRecord> {
  explicit HandleRecord(RegistryImpl *registry) : registry(registry) {}
  /// The registry state; kept alive by the record's deleter.
  RegistryImpl *registry;
  /// The op while the record is mapped (live and not merged).
  Operation *op = nullptr;
  HandleState state = HandleState::Live;
  /// True while `op` is a key of the address map pointing at this record.
  bool mapped = false;
  /// The scope the record is indexed under while mapped.
  Operation *scope = nullptr;
  /// Name and location as last seen, captured as text so they outlive the op.
  std::string lastName;
  std::string lastLocation;
  /// Bounded history: `historyDropped` events were dropped from the front.
  std::vector<TrackingEvent> history;
  size_t historyDropped = 0;
  /// Set when this handle followed a replacement onto an op that already had
  /// a handle: from then on, that record speaks for both.
  std::shared_ptr<HandleRecord> forward;
  /// Absolute index into `forward->history` of the first shared event.
  size_t forwardHistoryStart = 0;
};

/// A scope (isolated-from-above or top-level op) that has records below it.
/// Scopes form a tree mirroring the IR, kept only as long as it is non-empty,
/// so no key in it is ever a freed op.
struct ScopeInfo {
  Operation *parent = nullptr;
  llvm::SmallPtrSet<HandleRecord *, 4> records;
  llvm::SmallPtrSet<Operation *, 2> children;
};

struct RegistryImpl {
  /// One lock for everything. (A reader-writer lock was tried: with two
  /// threads notifying at full speed it made tracked pipelines 4x slower.)
  mutable std::mutex mutex;
  llvm::DenseMap<Operation *, HandleRecord *> byOp;
  llvm::DenseMap<Operation *, ScopeInfo> scopes;
  std::function<void(const TrackingEvent &)> observer;

  static constexpr size_t kMaxHistory = 32;

  static HandleRecord *canonical(HandleRecord *record) {
    while (record->forward)
      record = record->forward.get();
    return record;
  }

  //===--------------------------------------------------------------------===//
  // Scope index
  //===--------------------------------------------------------------------===//

  /// Makes `scope` (and its ancestors) known to the index.
  void ensureScope(Operation *scope) {
    SmallVector<Operation *> missing;
    for (Operation *current = scope; !scopes.count(current);
         current = scopeOf(current)) {
      missing.push_back(current);
      if (!current)
        break;
    }
    for (Operation *current : missing) {
      Operation *parent = current ? scopeOf(current) : nullptr;
      scopes[current].parent = parent;
      if (current)
        scopes[parent].children.insert(current);
    }
  }

  /// Drops empty scopes from `scope` upwards.
  void pruneScope(Operation *scope) {
    while (true) {
      auto it = scopes.find(scope);
      if (it == scopes.end() || !it->second.records.empty() ||
          !it->second.children.empty())
        return;
      Operation *parent = it->second.parent;
      scopes.erase(it);
      if (!scope)
        return;
      auto parentIt = scopes.find(parent);
      if (parentIt != scopes.end())
        parentIt->second.children.erase(scope);
      scope = parent;
    }
  }

  void setScope(HandleRecord *record, Operation *scope) {
    if (record->mapped && record->scope == scope)
      return;
    Operation *old = record->scope;
    bool wasIndexed = record->mapped;
    ensureScope(scope);
    scopes[scope].records.insert(record);
    record->scope = scope;
    if (wasIndexed && old != scope) {
      scopes[old].records.erase(record);
      pruneScope(old);
    }
  }

  void reparentScope(Operation *scope, Operation *newParent) {
    ScopeInfo &info = scopes[scope];
    Operation *oldParent = info.parent;
    if (oldParent == newParent)
      return;
    ensureScope(newParent);
    scopes[newParent].children.insert(scope);
    scopes[scope].parent = newParent;
    scopes[oldParent].children.erase(scope);
    pruneScope(oldParent);
  }

  /// After a move, re-indexes under `newScope` the records and child scopes
  /// of `oldScope` for which `isInside` holds (the moved part of the IR).
  void moveBetweenScopes(Operation *oldScope, Operation *newScope,
                         llvm::function_ref<bool(Operation *)> isInside) {
    if (oldScope == newScope)
      return;
    auto oldIt = scopes.find(oldScope);
    if (oldIt == scopes.end())
      return;
    auto records = llvm::to_vector(oldIt->second.records);
    auto children = llvm::to_vector(oldIt->second.children);
    for (HandleRecord *record : records)
      if (isInside(record->op))
        setScope(record, newScope);
    for (Operation *child : children)
      if (isInside(child))
        reparentScope(child, newScope);
  }

  /// The scope of an op: the body scope of its parent, or nullptr at the top.
  static Operation *scopeOf(Operation *op) {
    if (!op)
      return nullptr;
    Operation *parent = op->getParentOp();
    return parent ? HandleRegistry::getBodyScope(parent) : nullptr;
  }

  //===--------------------------------------------------------------------===//
  // Address map
  //===--------------------------------------------------------------------===//

  void map(HandleRecord *record, Operation *op) {
    record->op = op;
    byOp[op] = record;
    setScope(record, scopeOf(op));
    record->mapped = true;
  }

  void unmap(HandleRecord *record) {
    if (!record->mapped)
      return;
    auto it = byOp.find(record->op);
    if (it != byOp.end() && it->second == record)
      byOp.erase(it);
    auto scopeIt = scopes.find(record->scope);
    if (scopeIt != scopes.end()) {
      scopeIt->second.records.erase(record);
      pruneScope(record->scope);
    }
    record->mapped = false;
  }

  /// Returns the record mapped at `op` if someone still holds it. A record
  /// whose last handle is being released is unmapped here instead.
  std::shared_ptr<HandleRecord> lookup(Operation *op) {
    auto it = byOp.find(op);
    if (it == byOp.end())
      return nullptr;
    std::shared_ptr<HandleRecord> record = it->second->weak_from_this().lock();
    if (!record)
      unmap(it->second);
    return record;
  }

  void record(HandleRecord *record, TrackingEvent event) {
    event.recordKey = record;
    if (observer)
      observer(event);
    if (record->history.size() == kMaxHistory) {
      record->history.erase(record->history.begin());
      ++record->historyDropped;
    }
    record->history.push_back(std::move(event));
  }
};

} // namespace mlir::tracking::detail

using mlir::tracking::detail::HandleRecord;
using mlir::tracking::detail::RegistryImpl;
using mlir::tracking::detail::ScopeInfo;

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

void bind(HandleRecord *record, Operation *op) {
  record->lastName = op->getName().getStringRef().str();
  record->lastLocation = printLocation(op->getLoc());
}

TrackingEvent makeEvent(TrackingEvent::Kind kind, const HandleRecord *record,
                        const HandleRegistry::EventSource &source) {
  TrackingEvent event;
  event.kind = kind;
  event.op = record->lastName + " at " + record->lastLocation;
  event.pass = source.pass;
  event.anchor = source.anchor;
  event.pattern = source.pattern;
  event.passKey = source.passKey;
  event.anchorKey = source.anchorKey;
  return event;
}
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

namespace {
/// Unmaps a record when its last handle goes away. Holds the registry state
/// so that a handle may outlive its HandleRegistry safely.
struct RecordDeleter {
  std::shared_ptr<RegistryImpl> impl;
  void operator()(HandleRecord *record) const {
    {
      std::lock_guard<std::mutex> lock(impl->mutex);
      impl->unmap(record);
    }
    // Destroying the record may release the record it was merged into, whose
    // deleter takes the lock again: hence outside the lock.
    delete record;
  }
};

std::mutex &getMutex(const std::shared_ptr<HandleRecord> &record) {
  return record->registry->mutex;
}
} // namespace

Operation *OpHandle::get() const {
  if (!record)
    return nullptr;
  std::lock_guard<std::mutex> lock(getMutex(record));
  HandleRecord *target = RegistryImpl::canonical(record.get());
  return target->state == HandleState::Live ? target->op : nullptr;
}

HandleState OpHandle::getState() const {
  if (!record)
    return HandleState::Erased;
  std::lock_guard<std::mutex> lock(getMutex(record));
  return RegistryImpl::canonical(record.get())->state;
}

std::string OpHandle::getLastName() const {
  if (!record)
    return "";
  std::lock_guard<std::mutex> lock(getMutex(record));
  return RegistryImpl::canonical(record.get())->lastName;
}

std::string OpHandle::getLastLocation() const {
  if (!record)
    return "";
  std::lock_guard<std::mutex> lock(getMutex(record));
  return RegistryImpl::canonical(record.get())->lastLocation;
}

std::vector<TrackingEvent> OpHandle::getHistory() const {
  std::vector<TrackingEvent> result;
  if (!record)
    return result;
  std::lock_guard<std::mutex> lock(getMutex(record));
  // Own events, then those of each record it was merged into since the merge.
  size_t start = 0;
  for (const HandleRecord *current = record.get(); current;
       current = current->forward.get()) {
    size_t skip =
        start > current->historyDropped ? start - current->historyDropped : 0;
    for (size_t i = skip; i < current->history.size(); ++i)
      result.push_back(current->history[i]);
    start = current->forwardHistoryStart;
  }
  return result;
}

std::string OpHandle::describe() const {
  if (!record)
    return "empty operation handle";
  HandleState state = getState();
  std::string text = "operation handle to '" + getLastName() + "' at " +
                     getLastLocation() + " is " +
                     stringifyHandleState(state).str();
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
  std::lock_guard<std::mutex> lock(getMutex(record));
  return RegistryImpl::canonical(record.get());
}

bool OpHandle::sameOp(const OpHandle &other) const {
  return getKey() == other.getKey();
}

//===----------------------------------------------------------------------===//
// HandleRegistry
//===----------------------------------------------------------------------===//

HandleRegistry::HandleRegistry(MLIRContext *context)
    : context(context), impl(std::make_shared<RegistryImpl>()) {
  ContextRegistryMap &registries = getContextRegistryMap();
  std::unique_lock<std::shared_mutex> lock(registries.mutex);
  bool inserted = registries.map.try_emplace(context, this).second;
  if (!inserted)
    llvm::report_fatal_error(
        "mlir-tracking: this MLIRContext already has a HandleRegistry");
}

HandleRegistry::~HandleRegistry() {
  {
    ContextRegistryMap &registries = getContextRegistryMap();
    std::unique_lock<std::shared_mutex> lock(registries.mutex);
    registries.map.erase(context);
  }
  std::lock_guard<std::mutex> lock(impl->mutex);
  for (auto &entry : impl->byOp) {
    HandleRecord *record = entry.second;
    record->mapped = false;
    record->op = nullptr;
    if (record->state != HandleState::Live)
      continue;
    record->state = HandleState::Erased;
    TrackingEvent event = makeEvent(TrackingEvent::Kind::Erased, record, {});
    event.reason = "tracking ended (registry destroyed)";
    impl->record(record, std::move(event));
  }
  impl->byOp.clear();
  impl->scopes.clear();
}

HandleRegistry *HandleRegistry::lookup(MLIRContext *context) {
  ContextRegistryMap &registries = getContextRegistryMap();
  std::shared_lock<std::shared_mutex> lock(registries.mutex);
  return registries.map.lookup(context);
}

Operation *HandleRegistry::getBodyScope(Operation *op) {
  if (!op->getParentOp() || op->hasTrait<OpTrait::IsIsolatedFromAbove>())
    return op;
  return RegistryImpl::scopeOf(op);
}

OpHandle HandleRegistry::getHandle(Operation *op) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  if (std::shared_ptr<HandleRecord> existing = impl->lookup(op))
    return OpHandle(std::move(existing));
  std::shared_ptr<HandleRecord> record(new HandleRecord(impl.get()),
                                       RecordDeleter{impl});
  bind(record.get(), op);
  impl->map(record.get(), op);
  return OpHandle(std::move(record));
}

OpHandle HandleRegistry::lookupHandle(Operation *op) const {
  std::lock_guard<std::mutex> lock(impl->mutex);
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

void HandleRegistry::notifyOperationReplaced(Operation *op,
                                             Operation *replacement,
                                             const EventSource &source) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  auto it = impl->byOp.find(op);
  if (it == impl->byOp.end())
    return;
  HandleRecord *record = it->second;
  impl->unmap(record);

  TrackingEvent event =
      makeEvent(TrackingEvent::Kind::Replaced, record, source);
  // Print the replacement's location once: for the event and for the record.
  std::string replacementName = replacement->getName().getStringRef().str();
  std::string replacementLocation = printLocation(replacement->getLoc());
  event.replacement = replacementName + " at " + replacementLocation;
  if (std::shared_ptr<HandleRecord> existing = impl->lookup(replacement)) {
    // Both handles now speak for the same op: merge into the existing one.
    event.reason = "merged with the handle that already referred to it";
    impl->record(record, std::move(event));
    record->op = nullptr;
    record->forwardHistoryStart =
        existing->historyDropped + existing->history.size();
    record->forward = std::move(existing);
    return;
  }
  impl->record(record, std::move(event));
  record->lastName = std::move(replacementName);
  record->lastLocation = std::move(replacementLocation);
  impl->map(record, replacement);
}

void HandleRegistry::notifyOperationErased(Operation *op,
                                           const EventSource &source,
                                           StringRef reason) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  auto it = impl->byOp.find(op);
  if (it != impl->byOp.end()) {
    HandleRecord *record = it->second;
    impl->unmap(record);
    record->op = nullptr;
    record->state = HandleState::Erased;
    TrackingEvent event =
        makeEvent(TrackingEvent::Kind::Erased, record, source);
    event.reason = reason.str();
    impl->record(record, std::move(event));
  }
  // Nested ops were notified first; whatever scope `op` was is now empty of
  // records, but drop it explicitly in case a nested erase went unnotified.
  auto scopeIt = impl->scopes.find(op);
  if (scopeIt != impl->scopes.end()) {
    Operation *parent = scopeIt->second.parent;
    for (HandleRecord *orphan : llvm::to_vector(scopeIt->second.records)) {
      impl->unmap(orphan);
      orphan->op = nullptr;
      orphan->state = HandleState::Erased;
      TrackingEvent event =
          makeEvent(TrackingEvent::Kind::Erased, orphan, source);
      event.reason = "an ancestor was erased";
      impl->record(orphan, std::move(event));
    }
    scopeIt = impl->scopes.find(op);
    if (scopeIt != impl->scopes.end() && scopeIt->second.children.empty()) {
      impl->scopes.erase(scopeIt);
      impl->scopes[parent].children.erase(op);
      impl->pruneScope(parent);
    }
  }
}

void HandleRegistry::notifyOperationMoved(Operation *op, Operation *oldScope) {
  Operation *newScope = getBodyScope(op);
  std::lock_guard<std::mutex> lock(impl->mutex);
  if (auto it = impl->byOp.find(op); it != impl->byOp.end())
    impl->setScope(it->second, RegistryImpl::scopeOf(op));
  if (impl->scopes.count(op) && getBodyScope(op) == op)
    impl->reparentScope(op, RegistryImpl::scopeOf(op));

  // Records and scopes below `op` that were indexed under the old scope now
  // belong to the new one.
  impl->moveBetweenScopes(oldScope, newScope, [&](Operation *nested) {
    return op->isProperAncestor(nested);
  });
}

void HandleRegistry::notifyBlockMoved(Block *block, Operation *oldScope) {
  Operation *parent = block->getParentOp();
  if (!parent)
    return;
  std::lock_guard<std::mutex> lock(impl->mutex);
  impl->moveBetweenScopes(
      oldScope, getBodyScope(parent),
      [&](Operation *nested) { return block->findAncestorOpInBlock(*nested); });
}

HandleRegistry::DetachedRecords
HandleRegistry::detachNestedRecords(Operation *anchor) {
  DetachedRecords detached;
  std::lock_guard<std::mutex> lock(impl->mutex);
  if (!impl->scopes.count(anchor))
    return detached;
  // Collect the scope subtree rooted at `anchor` from the index alone: the IR
  // outside `anchor` may be under rewrite by other threads.
  SmallVector<Operation *> worklist = {anchor};
  SmallVector<HandleRecord *> records;
  for (size_t i = 0; i < worklist.size(); ++i) {
    ScopeInfo &info = impl->scopes[worklist[i]];
    records.append(info.records.begin(), info.records.end());
    worklist.append(info.children.begin(), info.children.end());
  }
  for (HandleRecord *record : records) {
    if (std::shared_ptr<HandleRecord> held = record->weak_from_this().lock())
      detached.push_back(std::move(held));
    impl->unmap(record);
  }
  return detached;
}

void HandleRegistry::invalidateDetached(DetachedRecords &records,
                                        const EventSource &source,
                                        StringRef reason) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  for (const std::shared_ptr<HandleRecord> &record : records) {
    if (record->state != HandleState::Live || record->mapped)
      continue;
    record->op = nullptr;
    record->state = HandleState::Invalidated;
    TrackingEvent event =
        makeEvent(TrackingEvent::Kind::Invalidated, record.get(), source);
    event.reason = reason.str();
    impl->record(record.get(), std::move(event));
  }
}

void HandleRegistry::resolveDetached(const OpHandle &handle, Operation *op,
                                     HandleState state,
                                     const EventSource &source,
                                     StringRef reason) {
  if (!handle.record)
    return;
  std::lock_guard<std::mutex> lock(impl->mutex);
  HandleRecord *record = RegistryImpl::canonical(handle.record.get());
  if (record->state != HandleState::Live || record->mapped)
    return;
  if (!op) {
    record->op = nullptr;
    record->state = state;
    TrackingEvent event = makeEvent(state == HandleState::Erased
                                        ? TrackingEvent::Kind::Erased
                                        : TrackingEvent::Kind::Invalidated,
                                    record, source);
    event.reason = reason.str();
    impl->record(record, std::move(event));
    return;
  }
  // The old address is only compared, never dereferenced: it may be freed.
  bool replaced = record->op != op;
  std::string name = op->getName().getStringRef().str();
  std::string location = printLocation(op->getLoc());
  std::shared_ptr<HandleRecord> existing = impl->lookup(op);
  if (replaced || existing) {
    TrackingEvent event =
        makeEvent(TrackingEvent::Kind::Replaced, record, source);
    event.replacement = name + " at " + location;
    event.reason = reason.str();
    if (existing) {
      event.reason = "merged with the handle that already referred to it";
      impl->record(record, std::move(event));
      record->op = nullptr;
      record->forwardHistoryStart =
          existing->historyDropped + existing->history.size();
      record->forward = std::move(existing);
      return;
    }
    impl->record(record, std::move(event));
  }
  record->lastName = std::move(name);
  record->lastLocation = std::move(location);
  impl->map(record, op);
}

void HandleRegistry::setEventObserver(
    std::function<void(const TrackingEvent &)> observer) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  impl->observer = std::move(observer);
}

std::vector<std::string> HandleRegistry::verifyAgainst(Operation *root) const {
  llvm::DenseMap<Operation *, StringRef> present;
  root->walk(
      [&](Operation *op) { present[op] = op->getName().getStringRef(); });
  std::vector<std::string> problems;
  std::lock_guard<std::mutex> lock(impl->mutex);
  for (auto &entry : impl->byOp) {
    HandleRecord *record = entry.second;
    auto it = present.find(entry.first);
    if (it == present.end()) {
      problems.push_back("registry maps an op that is not in the IR (last "
                         "seen as '" +
                         record->lastName + "' at " + record->lastLocation +
                         ")");
      continue;
    }
    if (it->second != record->lastName)
      problems.push_back("handle bound to '" + record->lastName + "' at " +
                         record->lastLocation + " now points at '" +
                         it->second.str() + "'");
    if (record->op != entry.first || !record->mapped ||
        record->state != HandleState::Live)
      problems.push_back("inconsistent record for '" + record->lastName + "'");
    Operation *expectedScope = RegistryImpl::scopeOf(entry.first);
    if (record->scope != expectedScope)
      problems.push_back("handle to '" + record->lastName + "' at " +
                         record->lastLocation +
                         " is indexed under the wrong scope");
  }
  return problems;
}

std::vector<std::string>
HandleRegistry::verifyNested(Operation *anchor, const EventSource *repair) {
  llvm::DenseMap<Operation *, StringRef> present;
  anchor->walk([&](Operation *op) {
    if (op != anchor)
      present[op] = op->getName().getStringRef();
  });
  std::vector<std::string> problems;
  std::lock_guard<std::mutex> lock(impl->mutex);
  if (!impl->scopes.count(anchor))
    return problems;
  // The scope subtree from the index alone; keys of scopes that a pass freed
  // behind the listener's back are compared, never dereferenced.
  SmallVector<Operation *> worklist = {anchor};
  SmallVector<HandleRecord *> records;
  for (size_t i = 0; i < worklist.size(); ++i) {
    ScopeInfo &info = impl->scopes[worklist[i]];
    records.append(info.records.begin(), info.records.end());
    worklist.append(info.children.begin(), info.children.end());
  }
  for (HandleRecord *record : records) {
    std::string problem;
    auto it = present.find(record->op);
    if (it == present.end())
      problem = "handle to '" + record->lastName + "' at " +
                record->lastLocation +
                " maps an op that is no longer in the IR";
    else if (it->second != record->lastName)
      problem = "handle to '" + record->lastName + "' at " +
                record->lastLocation + " now points at '" + it->second.str() +
                "'";
    else if (record->scope != RegistryImpl::scopeOf(record->op))
      problem = "handle to '" + record->lastName + "' at " +
                record->lastLocation + " is indexed under the wrong scope";
    if (problem.empty())
      continue;
    problems.push_back(problem);
    if (!repair)
      continue;
    impl->unmap(record);
    record->op = nullptr;
    record->state = HandleState::Invalidated;
    TrackingEvent event =
        makeEvent(TrackingEvent::Kind::Invalidated, record, *repair);
    event.reason = "tracking verification: " + problem;
    impl->record(record, std::move(event));
  }
  return problems;
}
