//===- Walk.cpp - Operation.walk that never touches freed IR --------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "Walk.h"
#include "RunGuard.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::python;

namespace {
/// The ops to visit: a handle per op (so erasure and replacement are seen)
/// and, in pre-order, the index just past the ops nested in each at
/// snapshot time (where SKIP continues).
struct Snapshot {
  explicit Snapshot(HandleRegistry &registry) : registry(registry) {}
  ~Snapshot() { registry.releaseHandles(handles); }
  Snapshot(const Snapshot &) = delete;
  Snapshot &operator=(const Snapshot &) = delete;

  HandleRegistry &registry;
  std::vector<OpHandle> handles;
  std::vector<size_t> ends;
};

/// The ops under `root` (and `root`) in `order`, as handles made under one
/// registry lock.
void takeSnapshot(Snapshot &snapshot, Operation *root, WalkOrder order) {
  HandleRegistry &registry = snapshot.registry;
  std::vector<Operation *> ops;
  if (order == WalkOrder::PostOrder) {
    root->walk<WalkOrder::PostOrder>([&](Operation *op) { ops.push_back(op); });
    snapshot.handles = registry.getHandles(ops);
    return;
  }
  // Pre-order: `open` holds the entries whose subtree is being listed; an op
  // closes every open entry that is not its parent.
  std::vector<std::pair<size_t, Operation *>> open;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    Operation *parent = op == root ? nullptr : op->getParentOp();
    while (!open.empty() && open.back().second != parent) {
      snapshot.ends[open.back().first] = ops.size();
      open.pop_back();
    }
    open.emplace_back(ops.size(), op);
    ops.push_back(op);
    snapshot.ends.push_back(0);
  });
  for (auto &[index, op] : open)
    snapshot.ends[index] = ops.size();
  snapshot.handles = registry.getHandles(ops);
}

/// The most snapshot handles resolved under one lock.
constexpr size_t kMaxWindow = 64;
/// How many visits ahead an op is loaded. Each visit reads its op (is it
/// still under the walked op?), which the snapshot's pass over a large IR
/// has left cold: loaded a few visits ahead, its miss overlaps the callbacks
/// before it (docs/benchmarks.md, "The Python walk's cold ops (round 26 of
/// issue 12)").
constexpr size_t kOpsAhead = 4;

/// Starts loading the op of `resolved`, if any. A hint only: an op that a
/// callback erases meanwhile is not read (a prefetch reads nothing the
/// program sees, and never faults).
void prefetchOp(const ResolvedHandle &resolved) {
  if (resolved.op)
    __builtin_prefetch(resolved.op);
}

/// Whether a visited op is still under the walked op (a callback may have
/// moved it out). `Operation::isAncestor` walks up every ancestor of the op,
/// so asking it at each visit makes a walk quadratic in the nesting depth:
/// the ancestors found under the walked op are remembered while IR keeps
/// its shape (no change from Python, the registry or C++ behind a capsule).
class UnderWalkedOp {
public:
  UnderWalkedOp(PyMlirContext &context, HandleRegistry &registry)
      : context(context), registry(registry) {}

  bool contains(Operation *walked, Operation *op) {
    if (op == walked)
      return true;
    Operation *parent = op->getParentOp();
    if (parent == walked)
      return true;
    uint64_t irChanges = context.getIRChanges();
    uint64_t registryChanges = registry.getChangeCount();
    if (walked != lastWalked || irChanges != lastIRChanges ||
        registryChanges != lastRegistryChanges || context.hadCapsuleAccess()) {
      under.clear();
      lastParent = nullptr;
      lastWalked = walked;
      lastIRChanges = irChanges;
      lastRegistryChanges = registryChanges;
    }
    // Consecutive ops mostly share a parent.
    if (parent && parent == lastParent)
      return true;
    SmallVector<Operation *> path;
    bool found = false;
    for (Operation *current = parent; current;
         current = current->getParentOp()) {
      if (current == walked || under.contains(current)) {
        found = true;
        break;
      }
      path.push_back(current);
    }
    if (!found)
      return false;
    under.insert(path.begin(), path.end());
    lastParent = parent;
    return true;
  }

private:
  PyMlirContext &context;
  HandleRegistry &registry;
  Operation *lastWalked = nullptr;
  uint64_t lastIRChanges = 0;
  uint64_t lastRegistryChanges = 0;
  /// Proper descendants of `lastWalked` (ops with regions, the ancestors of
  /// visited ops).
  llvm::DenseSet<Operation *> under;
  Operation *lastParent = nullptr;
};

PyWalkResult callCallback(const py::function &callback, py::object op) {
  py::object result = callOrPark(callback, std::move(op));
  if (result.is_none())
    return PyWalkResult::Advance;
  if (!isInstance<PyWalkResult>(result))
    throw py::type_error("walk callback must return a WalkResult or None, "
                         "got " +
                         py::repr(py::type::of(result)).cast<std::string>());
  return result.cast<PyWalkResult>();
}
} // namespace

void mlir::tracking::python::raiseCallbackError(py::error_already_set &error) {
  if (!error.matches(PyExc_Exception))
    throw;
  // Upstream's message: the callback's exception as "Type: message".
  std::string message = "Exception raised in callback: " +
                        error.type().attr("__name__").cast<std::string>();
  // An exception whose __str__ raises keeps its place as the cause, with
  // the text Python's own traceback shows for it.
  std::string text;
  try {
    text = py::str(error.value()).cast<std::string>();
  } catch (py::error_already_set &) {
    text = "<exception str() failed>";
  }
  if (!text.empty())
    message += ": " + text;
  py::raise_from(error, PyExc_RuntimeError, message.c_str());
  throw py::error_already_set();
}

void mlir::tracking::python::walkOperation(PyOperation &operation,
                                           const py::function &callback,
                                           WalkOrder order) {
  Operation *root = operation.get();
  PyMlirContext &context = operation.getContext();
  // No pipeline may run on this IR (or where the callback moves it) while
  // the walk holds raw pointers between callbacks.
  IRPin pin(operation, "Operation.walk", PinKind::RunsOnly);
  // As in forOperation: no queued record may answer for a reused address.
  context.flushReleases();
  HandleRegistry &registry = context.getRegistry();
  Snapshot snapshot(registry);
  takeSnapshot(snapshot, root, order);
  // The walked op as of the last visit, and the owner of its tree (the
  // tree of every op visited): refreshed only when the walked op moved.
  Operation *current = root;
  std::shared_ptr<RootOwner> owner = operation.getResolvedOwner();
  // What the registry says of the walked op and of the snapshot's handles
  // [windowBegin, windowEnd), read under one lock per window: it holds
  // while the registry's change count stays `resolvedAt` (no visit then
  // takes a lock). A window that a change cut short is followed by a
  // smaller one (callbacks that change IR at every visit resolve one
  // handle at a time, as each visit did before).
  Operation *walked = nullptr;
  ResolvedHandle window[kMaxWindow];
  size_t windowBegin = 0, windowEnd = 0, windowSize = kMaxWindow;
  uint64_t resolvedAt = 0;
  UnderWalkedOp underWalkedOp(context, registry);
  for (size_t i = 0, e = snapshot.handles.size(); i < e;) {
    uint64_t changes = registry.getChangeCount();
    if (i >= windowEnd || changes != resolvedAt) {
      if (i < windowEnd)
        windowSize = 1;
      else if (windowEnd)
        windowSize = std::min(windowSize * 2, kMaxWindow);
      resolvedAt = changes;
      walked = operation.getIfLive();
      windowBegin = i;
      windowEnd = std::min(e, i + windowSize);
      registry.resolveHandles(
          ArrayRef<OpHandle>(snapshot.handles).slice(i, windowEnd - i),
          MutableArrayRef<ResolvedHandle>(window, windowEnd - i));
      // The window's first ops now, the others kOpsAhead visits before
      // theirs (below).
      for (size_t j = i; j < std::min(windowEnd, i + kOpsAhead); ++j)
        prefetchOp(window[j - windowBegin]);
    }
    // The walk ends when the walked op is gone.
    if (!walked)
      return;
    // A callback moved the walked op (or it followed a replacement): bring
    // its owner in step with its tree (this also checks the run guard).
    if (walked != current || !owner->getRoot() ||
        owner->getRoot() != getRootOf(walked)) {
      current = operation.get();
      owner = operation.getResolvedOwner();
    }
    if (i + kOpsAhead < windowEnd)
      prefetchOp(window[i + kOpsAhead - windowBegin]);
    ResolvedHandle resolved = window[i - windowBegin];
    Operation *op = resolved.op;
    // Erased, invalidated, or moved out of the walked op: not visited.
    if (!op || !underWalkedOp.contains(current, op)) {
      ++i;
      continue;
    }
    PyWalkResult result;
    try {
      // The snapshot's handle is the op's own unless it merged into another
      // (a callback replaced ops): then the registry has the op's. The
      // snapshot no longer needs it (no visit goes back): it goes to the
      // object.
      result = callCallback(
          callback,
          resolved.isCanonical
              ? PyOperation::forCanonicalHandle(
                    context, std::move(snapshot.handles[i]), op, owner)
              : PyOperation::forOperation(context, op, owner));
    } catch (py::error_already_set &error) {
      raiseCallbackError(error);
    }
    switch (result) {
    case PyWalkResult::Advance:
      ++i;
      break;
    case PyWalkResult::Interrupt:
      return;
    case PyWalkResult::Skip:
      i = order == WalkOrder::PreOrder ? snapshot.ends[i] : i + 1;
      break;
    }
  }
}
