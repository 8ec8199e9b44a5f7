//===- Core.cpp - Contexts, ownership and handle identity -----------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "Core.h"
#include "Attribution.h"
#include "IRCompat.h"
#include "RegistryNotifier.h"
#include "RunGuard.h"
#include "TreeLinks.h"
#include "VerifyOnThisThread.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/SMT/IR/SMTDialect.h"
#include "mlir/Dialect/SMT/IR/SMTTypes.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tracking/TrackingListener.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <new>
#include <thread>

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::python;

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

namespace {
/// The exception classes of `mlir_tracking._errors`. Never destroyed: they
/// must outlive every translation, including at interpreter exit.
py::object *invalidatedHandleErrorClass = nullptr;
py::object *mlirErrorClass = nullptr;
py::object *diagnosticInfoClass = nullptr;
py::object *diagnosticSeverityClass = nullptr;

const char *severityName(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Error:
    return "ERROR";
  case DiagnosticSeverity::Warning:
    return "WARNING";
  case DiagnosticSeverity::Note:
    return "NOTE";
  case DiagnosticSeverity::Remark:
    return "REMARK";
  }
  return "ERROR";
}

} // namespace

// Locations are converted through the ir.Location class registered in
// IRCore.cpp; declared here to avoid a header for one function.
namespace mlir::tracking::python {
py::object makeLocation(PyMlirContext &context, Location location);
} // namespace mlir::tracking::python

DiagnosticRecord DiagnosticRecord::from(Diagnostic &diag) {
  DiagnosticRecord record{
      diag.getSeverity(), diag.getLocation(), diag.str(), {}};
  for (Diagnostic &note : diag.getNotes())
    record.notes.push_back(from(note));
  return record;
}

py::str mlir::tracking::python::toPythonText(llvm::StringRef text) {
  PyObject *decoded =
      PyUnicode_DecodeUTF8(text.data(), text.size(), "backslashreplace");
  if (!decoded)
    throw py::error_already_set();
  return py::reinterpret_steal<py::str>(decoded);
}

py::object
mlir::tracking::python::diagnosticToPython(PyMlirContext *context,
                                           const DiagnosticRecord &record,
                                           py::handle diagnosticClass) {
  py::list notes;
  for (const DiagnosticRecord &note : record.notes)
    notes.append(diagnosticToPython(context, note, diagnosticClass));
  py::object location =
      context ? makeLocation(*context, record.location) : py::none();
  return diagnosticClass(
      diagnosticSeverityClass->attr(severityName(record.severity)), location,
      toPythonText(record.message), py::tuple(notes));
}

void mlir::tracking::python::registerExceptionTranslators(py::module_ errors) {
  invalidatedHandleErrorClass =
      new py::object(errors.attr("InvalidatedHandleError"));
  mlirErrorClass = new py::object(errors.attr("MLIRError"));
  diagnosticInfoClass = new py::object(errors.attr("DiagnosticInfo"));
  diagnosticSeverityClass = new py::object(errors.attr("DiagnosticSeverity"));
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const InvalidatedHandleException &e) {
      PyErr_SetObject(invalidatedHandleErrorClass->ptr(),
                      toPythonText(e.what()).ptr());
    } catch (const MLIRErrorException &e) {
      py::list diagnostics;
      for (const DiagnosticRecord &record : e.diagnostics) {
        PyMlirContext *context =
            PyMlirContext::lookup(record.location->getContext());
        diagnostics.append(
            diagnosticToPython(context, record, *diagnosticInfoClass));
      }
      py::object error =
          (*mlirErrorClass)(toPythonText(e.message), diagnostics);
      PyErr_SetObject(mlirErrorClass->ptr(), error.ptr());
    } catch (const py::cast_error &) {
      // A value that an explicit cast inside a binding could not convert:
      // the argument's fault, a TypeError as when pybind11 (or upstream's
      // nanobind) rejects an argument itself, not pybind11's RuntimeError.
      PyErr_SetString(PyExc_TypeError,
                      "incompatible argument: a value could not be converted "
                      "to the type this function takes (a wrong type, an int "
                      "out of range, or a str that is not valid UTF-8)");
    }
  });
}

py::object mlir::tracking::python::getInvalidatedHandleErrorClass() {
  return *invalidatedHandleErrorClass;
}

QuietOnThisThread::QuietOnThisThread(
    MLIRContext *context, std::function<void(Diagnostic &)> onDiagnostic)
    : handler(context,
              [thread = std::this_thread::get_id(),
               onDiagnostic = std::move(onDiagnostic)](Diagnostic &diag) {
                if (std::this_thread::get_id() != thread)
                  return failure();
                if (onDiagnostic)
                  onDiagnostic(diag);
                return success();
              }) {}

namespace {
/// The innermost DiagnosticCapture of the current thread.
thread_local DiagnosticCapture *currentCapture = nullptr;
} // namespace

DiagnosticCapture::DiagnosticCapture(MLIRContext *context, End end)
    : context(context), end(end),
      // Read under the GIL here: the handler may run on other threads.
      propagatesErrors(getEmitErrorDiagnostics(context)),
      previous(currentCapture) {
  currentCapture = this;
  if (!previous)
    deliveryToken = holdDiagnosticDelivery(context);
  // One handler per capture (the newest handler sees a diagnostic first),
  // but it only takes what its own thread emits: a capture of another
  // thread, or an outer one of this thread, passes it on.
  id = context->getDiagEngine().registerHandler([this](Diagnostic &diag) {
    if (currentCapture != this ||
        !takesOnThisThread(this->context, diag.getSeverity()))
      return failure();
    std::lock_guard<std::mutex> lock(mutex);
    diagnostics.push_back(DiagnosticRecord::from(diag));
    return success();
  });
}

DiagnosticCapture::~DiagnosticCapture() {
  context->getDiagEngine().eraseHandler(id);
  currentCapture = previous;
  // Before the delivery below: what comes after it gets a pending call.
  deliveryToken.reset();
  // The call this capture belongs to returns to Python: its warnings and
  // remarks (and errors, with emit_error_diagnostics) reach the handlers
  // now. An outer capture of this thread delivers them when its own call
  // returns (e.g. after PassManager.run has unlocked its IR).
  if (!previous && PyGILState_Check()) {
    // The call may still use raw IR after this capture ends (a capture
    // made for one step, then the writer, the driver or the change): the
    // handlers may read the IR but not change it (checkNoHandlerDelivery).
    PyMlirContext *owner =
        end == End::InsideCall ? PyMlirContext::lookup(context) : nullptr;
    if (owner)
      ++owner->deliveriesInsideCalls;
    deliverWaitingDiagnostics(context);
    if (owner)
      --owner->deliveriesInsideCalls;
  }
}

bool DiagnosticCapture::takesOnThisThread(MLIRContext *context,
                                          DiagnosticSeverity severity) {
  // With emit_error_diagnostics the errors go to the handlers instead (as
  // upstream: the MLIRError then carries none).
  DiagnosticCapture *capture = currentCapture;
  return capture && capture->context == context && !capture->propagatesErrors &&
         severity == DiagnosticSeverity::Error;
}

std::vector<DiagnosticRecord> DiagnosticCapture::take() {
  std::lock_guard<std::mutex> lock(mutex);
  return std::move(diagnostics);
}

void DiagnosticCapture::raise(const std::string &message) {
  throw MLIRErrorException{message, take()};
}

//===----------------------------------------------------------------------===//
// RootOwner
//===----------------------------------------------------------------------===//

RootOwner::RootOwner(PyMlirContext &context, Operation *root, bool owning)
    : epoch(++context.lastEpoch), context(context), root(root), owning(owning) {
}

RootOwner::~RootOwner() {
  if (!root)
    return;
  auto it = context.owners.find(root);
  if (it != context.owners.end() && it->second.expired())
    context.owners.erase(it);
  if (!owning)
    return;
  Operation *op = root;
  root = nullptr;
  if (findTreeLinks(context, op, TreeLinkQuery::UsedFromOutside)
          .rootUsedFromOutside) {
    context.keepAlive(op);
    return;
  }
  HandleRegistry &registry = context.getRegistry();
  tracking::detail::EventSource source;
  source.pass = "python";
  // Invalidate every handle under the root (taking it out of the address
  // map) before any op is freed; the root's own handle is erased.
  tracking::detail::RegistryNotifier notifier(registry);
  notifier.invalidateNested(op, source, "its IR was destroyed");
  notifier.notifyOperationErased(op, source,
                                 "its IR was destroyed (last reference "
                                 "dropped)");
  context.getUnits().eraseNested(op, "its IR was destroyed");
  op->dropAllReferences();
  op->erase();
}

void RootOwner::forgetRoot() {
  if (!root)
    return;
  auto it = context.owners.find(root);
  if (it != context.owners.end() && it->second.lock().get() == this)
    context.owners.erase(it);
  root = nullptr;
}

void RootOwner::forwardTo(std::shared_ptr<RootOwner> into) {
  forgetRoot();
  if (into.get() != this)
    forward = std::move(into);
}

void RootOwner::release() { forgetRoot(); }

std::shared_ptr<RootOwner>
RootOwner::resolve(std::shared_ptr<RootOwner> owner) {
  while (owner && owner->forward)
    owner = owner->forward;
  return owner;
}

RootOwner *RootOwner::resolve(RootOwner *owner) {
  while (owner && owner->forward)
    owner = owner->forward.get();
  return owner;
}

//===----------------------------------------------------------------------===//
// PyMlirContext
//===----------------------------------------------------------------------===//

namespace {
llvm::DenseMap<MLIRContext *, PyMlirContext *> &getContexts() {
  static auto *contexts = new llvm::DenseMap<MLIRContext *, PyMlirContext *>();
  return *contexts;
}
} // namespace

PyMlirContext::PyMlirContext() {
  static unsigned nextId = 0;
  id = ++nextId;
  DialectRegistry dialects;
  registerAllDialects(dialects);
  registerAllExtensions(dialects);
  // As upstream's bindings (mlirRegisterAllLLVMTranslations): the GPU
  // passes and the LLVM IR translation need the translation interfaces.
  registerAllToLLVMIRTranslations(dialects);
  appendPluginDialects(dialects);
  appendSiteDialects(dialects);
  context = std::make_unique<MLIRContext>(dialects);
  context->loadAllAvailableDialects();
  registry = std::make_unique<HandleRegistry>(context.get());
  units = std::make_unique<BlockValueRegistry>(context.get());
  getContexts()[context.get()] = this;
}

PyMlirContext::~PyMlirContext() {
  flushReleases();
  getContexts().erase(context.get());
  setEmitErrorDiagnostics(context.get(), false);
  forgetPythonDiagnostics(context.get());
  // Every Python object that refers to IR keeps its context alive, so no
  // owner and no handle object is left: the registry goes first, then the
  // context it belongs to.
  // Trees kept alive for their users may use each other: drop every
  // reference before freeing any.
  for (Operation *root : keptAlive)
    root->dropAllReferences();
  for (Operation *root : keptAlive)
    root->erase();
  keptAlive.clear();
  units.reset();
  registry.reset();
  context.reset();
}

py::object PyMlirContext::getObject() {
  if (!self)
    self = py::cast(this, py::return_value_policy::reference).ptr();
  return py::reinterpret_borrow<py::object>(self);
}

void PyMlirContext::releaseLater(OpHandle &&handle) {
  new (&getPending()[numPending++]) OpHandle(std::move(handle));
  if (numPending == kReleaseBatch)
    flushReleases();
}

void PyMlirContext::flushReleases() {
  if (!numPending)
    return;
  // Empties every queued handle: nothing is left to destroy.
  registry->releaseHandles(MutableArrayRef<OpHandle>(getPending(), numPending));
  numPending = 0;
}

void PyMlirContext::compactObjectIndices() {
  numObjectEntriesScanned += objectIndices.size();
  // An index listed twice is kept once: the entry kept is marked in
  // `operationsByIndex` (objects are aligned: bit 0 is free) until the end.
  auto marked = [](PyOperation *operation) {
    return (uintptr_t(operation) & 1) != 0;
  };
  size_t kept = 0;
  for (uint32_t index : objectIndices) {
    PyOperation *&slot = operationsByIndex[index];
    if (!slot || marked(slot))
      continue;
    slot = reinterpret_cast<PyOperation *>(uintptr_t(slot) | 1);
    objectIndices[kept++] = index;
  }
  objectIndices.resize(kept);
  for (uint32_t index : objectIndices) {
    PyOperation *&slot = operationsByIndex[index];
    slot = reinterpret_cast<PyOperation *>(uintptr_t(slot) & ~uintptr_t(1));
  }
  assert(objectIndices.size() == numLiveOperations &&
         "an object missing from objectIndices");
}

std::vector<PyOperation *> PyMlirContext::getOperationObjects() {
  std::vector<PyOperation *> objects;
  forEachOperationObject(
      [&](PyOperation *operation) { objects.push_back(operation); });
  return objects;
}

size_t mlir::tracking::python::getNumLiveContexts() {
  return getContexts().size();
}

namespace {
/// The contexts with `Context.emit_error_diagnostics` set.
llvm::DenseSet<MLIRContext *> &emitErrorContexts() {
  static auto *contexts = new llvm::DenseSet<MLIRContext *>();
  return *contexts;
}
} // namespace

bool mlir::tracking::python::getEmitErrorDiagnostics(MLIRContext *context) {
  return emitErrorContexts().contains(context);
}

void mlir::tracking::python::setEmitErrorDiagnostics(MLIRContext *context,
                                                     bool value) {
  if (value)
    emitErrorContexts().insert(context);
  else
    emitErrorContexts().erase(context);
}

PyMlirContext *PyMlirContext::lookup(MLIRContext *context) {
  return getContexts().lookup(context);
}

PyMlirContext &PyMlirContext::resolve(const py::object &context) {
  if (!context.is_none())
    return context.cast<PyMlirContext &>();
  py::object current = getCurrentContext();
  if (current.is_none())
    throw py::value_error(
        "an MLIR function requires a Context but none was provided in the "
        "call or from the surrounding environment; either pass one with "
        "'context=' or establish a default with 'with Context():'");
  return current.cast<PyMlirContext &>();
}

std::shared_ptr<RootOwner> PyMlirContext::getOwner(Operation *root) {
  auto it = owners.find(root);
  if (it != owners.end())
    if (std::shared_ptr<RootOwner> owner = it->second.lock())
      return owner;
  // A tree kept alive for its users: Python holds it again, so its owner
  // decides again when it dies (it may be inserted, erased or dropped).
  if (keptAlive.remove(root))
    return adoptRoot(root);
  // IR this extension did not create (it came in through a capsule): refer
  // to it without owning it.
  auto owner = std::make_shared<RootOwner>(*this, root, /*owning=*/false);
  owners[root] = owner;
  return owner;
}

std::shared_ptr<RootOwner> PyMlirContext::findOwner(Operation *root) const {
  auto it = owners.find(root);
  if (it == owners.end())
    return nullptr;
  std::shared_ptr<RootOwner> owner = it->second.lock();
  return owner ? RootOwner::resolve(std::move(owner)) : nullptr;
}

bool PyMlirContext::mayHaveOtherTrees(Operation *root) const {
  if (capsuleAccess)
    return true;
  size_t others = owners.size() + keptAlive.size();
  if (owners.count(root))
    --others;
  if (keptAlive.contains(root))
    --others;
  return others != 0;
}

bool PyMlirContext::isRunningTree(Operation *root) const {
  auto it = owners.find(root);
  if (it == owners.end())
    return false;
  std::shared_ptr<RootOwner> owner = it->second.lock();
  return owner && RootOwner::resolve(owner.get())->running;
}

void PyMlirContext::setThreadPool(
    std::shared_ptr<llvm::ThreadPoolInterface> pool) {
  // MLIR takes a pool only with multi-threading off.
  context->disableMultithreading();
  context->setThreadPool(*pool);
  // The old pool, if any, is no longer MLIR's.
  threadPool = std::move(pool);
}

bool PyMlirContext::poolMayWaitForGIL() const {
  if (!context->isMultithreadingEnabled())
    return false;
  if (runsWithoutGIL)
    return true;
  llvm::ThreadPoolInterface *pool = &context->getThreadPool();
  for (auto &[mlirContext, other] : getContexts())
    if (other->runsWithoutGIL && mlirContext->isMultithreadingEnabled() &&
        &mlirContext->getThreadPool() == pool)
      return true;
  return false;
}

IRStamp IRStamp::of(PyMlirContext &context) {
  return {context.getIRChanges(), context.getRegistry().getChangeCount()};
}

bool IRStamp::holds(PyMlirContext &context) const {
  return context.numRunning == 0 && !context.hadCapsuleAccess() &&
         irChanges == context.getIRChanges() &&
         registryChanges == context.getRegistry().getChangeCount();
}

void PyMlirContext::noteChanged(Operation *op) {
  noteChangedTree(getRootOf(op), op);
}

void PyMlirContext::noteChangedTree(Operation *root, Operation *changed) {
  checkNoHandlerDelivery(*this, "change IR");
  ++irChanges;
  auto it = owners.find(root);
  if (it == owners.end())
    return;
  if (std::shared_ptr<RootOwner> owner = it->second.lock()) {
    std::shared_ptr<RootOwner> resolved = RootOwner::resolve(owner);
    checkPinnedIRChange(*this, resolved.get(), changed);
    resolved->verified = false;
  }
}

void PyMlirContext::noteChanged(const PyOperation &operation) {
  checkNoHandlerDelivery(*this, "change IR");
  ++irChanges;
  std::shared_ptr<RootOwner> owner = operation.getResolvedOwner();
  checkPinnedIRChange(*this, owner.get(), operation.getIfLive());
  owner->verified = false;
}

std::shared_ptr<RootOwner> PyMlirContext::adoptRoot(Operation *root) {
  // No op changes root here: `root` is new, or was detached (the caller
  // rehomes the handles under it), or kept alive as it was.
  auto owner = std::make_shared<RootOwner>(*this, root, /*owning=*/true);
  owners[root] = owner;
  claimForPass(*this, owner);
  return owner;
}

void PyMlirContext::findMergedObjects() {
  uint64_t merges = registry->getNumMerges();
  if (merges == mergesAtLastScan)
    return;
  mergedObjectsByKey.clear();
  compactObjectIndices();
  for (uint32_t index : objectIndices) {
    const OpHandle &handle = operationsByIndex[index]->getHandle();
    bool isCanonical = false;
    if (handle.get(isCanonical) && !isCanonical)
      mergedObjectsByKey[handle.getKey()].push_back(index);
  }
  mergesAtLastScan = merges;
}

void PyMlirContext::indexForgottenObjects() {
  uint64_t merges = registry->getNumMerges();
  if (merges == forgottenMergesAtScan)
    return;
  forgottenObjectsByKey.clear();
  numObjectEntriesScanned += forgottenOperations.size();
  for (PyOperation *operation : forgottenOperations) {
    const OpHandle &handle = operation->getHandle();
    if (handle.get())
      forgottenObjectsByKey[handle.getKey()].push_back(operation);
  }
  forgottenMergesAtScan = merges;
}

namespace {
/// Whether rehome may read the op of `operation` to see if it moved into the
/// tree of `newOwner`. Ops of a tree a pipeline runs on that this thread
/// may not use (the rest of a nested pass's tree) must not be read, unless
/// the registry (read without the IR) puts them in the new tree, which is
/// this thread's (an op a nested pass detached from its function).
bool mayReadForRehome(const PyOperation &operation, const RootOwner &newOwner) {
  const OpHandle &handle = operation.getHandle();
  return mayAccess(*operation.getResolvedOwner(), handle) ||
         (mayAccess(newOwner, handle) && handle.isNestedIn(newOwner.getRoot()));
}
} // namespace

bool PyMlirContext::findObjectsUnder(Operation *subtree,
                                     std::vector<PyOperation *> &affected) {
  size_t numObjects = numLiveOperations + forgottenOperations.size();
  size_t budget = std::max<size_t>(numObjects, 64);
  size_t numVisited = 0;
  findMergedObjects();
  indexForgottenObjects();
  // Reads only `subtree`, which this thread just moved: ops of a tree a
  // pipeline runs on stay unread.
  WalkResult walked = subtree->walk([&](Operation *op) {
    if (++numVisited > budget)
      return WalkResult::interrupt();
    OpHandle handle = registry->lookupHandle(op);
    if (!handle)
      return WalkResult::advance();
    uint32_t index = handle.getIdentityIndex();
    if (index < operationsByIndex.size() && operationsByIndex[index])
      affected.push_back(operationsByIndex[index]);
    // The objects clearLiveOperations forgot, merged or not.
    if (!forgottenObjectsByKey.empty())
      if (auto it = forgottenObjectsByKey.find(handle.getKey());
          it != forgottenObjectsByKey.end())
        for (PyOperation *forgotten : it->second)
          if (forgottenOperations.contains(forgotten) &&
              forgotten->getIfLive() == op)
            affected.push_back(forgotten);
    // The objects whose handle merged into this one's; an index given to
    // another object since is checked.
    if (mergedObjectsByKey.empty())
      return WalkResult::advance();
    if (auto it = mergedObjectsByKey.find(handle.getKey());
        it != mergedObjectsByKey.end())
      for (uint32_t merged : it->second)
        if (merged < operationsByIndex.size() && operationsByIndex[merged] &&
            operationsByIndex[merged]->getIfLive() == op)
          affected.push_back(operationsByIndex[merged]);
    return WalkResult::advance();
  });
  if (walked.wasInterrupted()) {
    affected.clear();
    return false;
  }
  return true;
}

void PyMlirContext::rehome(Operation *subtree) {
  std::shared_ptr<RootOwner> owner = getOwner(getRootOf(subtree));
  // Block and Value objects that keep an op of `subtree` may refer to IR
  // that stayed in the old tree, and those that keep an op of the old tree
  // to IR of `subtree`.
  noteTreeChanged(*owner);
  std::vector<PyOperation *> affected;
  if (!findObjectsUnder(subtree, affected))
    forEachOperationObject([&](PyOperation *operation) {
      if (!mayReadForRehome(*operation, *owner))
        return;
      Operation *op = operation->getIfLive();
      if (op && subtree->isAncestor(op))
        affected.push_back(operation);
    });
  for (PyOperation *operation : affected) {
    std::shared_ptr<RootOwner> old = operation->getResolvedOwner();
    if (old != owner)
      noteTreeChanged(*old);
    operation->setOwner(owner);
  }
}

std::vector<std::string> PyMlirContext::verifyTracking() {
  // Only handles Python holds are expected in the registry.
  flushReleases();
  checkNoRunIn(*this, "Context._verify_tracking");
  std::vector<std::string> problems;
  llvm::DenseSet<Operation *> present;
  llvm::DenseSet<const void *> presentUnits;
  for (auto &entry : owners) {
    Operation *root = entry.first;
    collectLiveIR(root, present, presentUnits);
    // Per root, only the records of that root are expected.
    for (std::string &problem : registry->verifyAgainst(root))
      if (!StringRef(problem).starts_with("registry maps an op that is not"))
        problems.push_back(std::move(problem));
  }
  registry->forEachTrackedOp([&](Operation *op) {
    if (!present.contains(op))
      problems.push_back("registry maps an address that is not an op of any "
                         "IR held from Python");
  });
  units->forEachTrackedAddress([&](const void *address) {
    if (!presentUnits.contains(address))
      problems.push_back("block/value registry maps an address that is not "
                         "a block or value of any IR held from Python");
  });
  return problems;
}

std::string mlir::tracking::python::describeContext(MLIRContext *context) {
  PyMlirContext *known = PyMlirContext::lookup(context);
  return known ? "context #" + std::to_string(known->getId())
               : "a context not created by mlir_tracking";
}

void mlir::tracking::python::checkSameContext(const PyMlirContext &expected,
                                              MLIRContext *actual,
                                              StringRef what) {
  if (actual == expected.get())
    return;
  throw py::value_error("cannot use " + what.str() + " of " +
                        describeContext(actual) + " with IR of context #" +
                        std::to_string(expected.getId()) +
                        ": objects of different contexts cannot be mixed");
}

Operation *mlir::tracking::python::getRootOf(Operation *op) {
  while (Operation *parent = op->getParentOp())
    op = parent;
  return op;
}

void mlir::tracking::python::collectLiveIR(
    Operation *tree, llvm::DenseSet<Operation *> &ops,
    llvm::DenseSet<const void *> &units) {
  tree->walk([&](Operation *op) {
    ops.insert(op);
    for (Value result : op->getResults())
      units.insert(result.getAsOpaquePointer());
    for (Region &region : op->getRegions())
      for (Block &block : region) {
        units.insert(&block);
        for (Value argument : block.getArguments())
          units.insert(argument.getAsOpaquePointer());
      }
  });
}

//===----------------------------------------------------------------------===//
// PyOperation
//===----------------------------------------------------------------------===//

PyOperation::PyOperation(PyMlirContext &context, OpHandle handle,
                         uint32_t index, std::shared_ptr<RootOwner> owner)
    : context(&context), owner(owner.get()), handle(std::move(handle)),
      index(index) {
  // Keeps the context's Python object (and so the context) alive.
  context.getObject().release();
  this->owner->retainForObject();
}

PyOperation::~PyOperation() {
  PyMlirContext &context = *this->context;
  std::vector<PyOperation *> &objects = context.operationsByIndex;
  if (index < objects.size() && objects[index] == this) {
    objects[index] = nullptr;
    --context.numLiveOperations;
  } else {
    context.forgottenOperations.erase(this);
  }
  // Release the handle before the owner may destroy the IR it refers to
  // (a queued handle is invalidated with the IR, as any held handle). The
  // empty handle left is not destroyed (a union member).
  context.releaseLater(std::move(handle));
  owner->releaseForObject();
  // Last: this may destroy the context.
  Py_DECREF(context.self);
}

static_assert(sizeof(PyOperation) <= 40, "Operation objects stay small");

namespace {
/// The storage of PyOperation objects: slots in chunks aligned to their
/// size (a slot finds its chunk from its address), each chunk with a free
/// list of its own. Used with the GIL held. Objects a walk makes sit side by
/// side in walk order; a chunk whose objects are all dropped is freed,
/// unless it is the one empty chunk kept for the next objects (so that
/// making and dropping one object at a time allocates nothing).
class OperationSlots {
public:
  void *allocate() {
    Chunk *chunk = available;
    if (!chunk)
      chunk = addChunk();
    Slot *slot = chunk->freeSlots;
    if (slot)
      chunk->freeSlots = slot->next;
    else
      slot = &chunk->slots[chunk->numFresh++];
    if (chunk->numUsed++ == 0 && chunk == empty)
      empty = nullptr;
    if (chunk->isFull())
      unlinkAvailable(chunk);
    return slot;
  }

  void deallocate(void *pointer) {
    auto *slot = static_cast<Slot *>(pointer);
    Chunk *chunk = Chunk::of(slot);
    if (chunk->isFull())
      linkAvailable(chunk);
    slot->next = chunk->freeSlots;
    chunk->freeSlots = slot;
    if (--chunk->numUsed)
      return;
    if (!empty) {
      empty = chunk;
      return;
    }
    unlinkAvailable(chunk);
    chunk->~Chunk();
    ::operator delete(chunk, std::align_val_t(kChunkBytes));
  }

private:
  static constexpr size_t kChunkBytes = size_t(1) << 16;
  union Slot {
    Slot *next;
    alignas(PyOperation) unsigned char bytes[sizeof(PyOperation)];
  };
  struct Chunk;
  struct ChunkHeader {
    /// Neighbours on the list of chunks with a free slot.
    Chunk *prev = nullptr, *next = nullptr;
    Slot *freeSlots = nullptr;
    /// Slots handed out and not freed; slots never handed out.
    uint32_t numUsed = 0, numFresh = 0;
  };
  struct Chunk : ChunkHeader {
    static constexpr uint32_t kSlots =
        (kChunkBytes - sizeof(ChunkHeader)) / sizeof(Slot);
    Slot slots[kSlots];
    bool isFull() const { return !freeSlots && numFresh == kSlots; }
    static Chunk *of(Slot *slot) {
      return reinterpret_cast<Chunk *>(uintptr_t(slot) & ~(kChunkBytes - 1));
    }
  };
  static_assert(sizeof(Chunk) <= kChunkBytes, "a chunk fits its alignment");

  Chunk *addChunk() {
    auto *chunk =
        new (::operator new(kChunkBytes, std::align_val_t(kChunkBytes))) Chunk;
    linkAvailable(chunk);
    return chunk;
  }
  void linkAvailable(Chunk *chunk) {
    chunk->prev = nullptr;
    chunk->next = available;
    if (available)
      available->prev = chunk;
    available = chunk;
  }
  void unlinkAvailable(Chunk *chunk) {
    if (chunk->prev)
      chunk->prev->next = chunk->next;
    else
      available = chunk->next;
    if (chunk->next)
      chunk->next->prev = chunk->prev;
    chunk->prev = chunk->next = nullptr;
  }

  /// The chunks with a free slot, the newest first.
  Chunk *available = nullptr;
  /// The chunk kept with no object in it, or null.
  Chunk *empty = nullptr;
};

/// Never destroyed: objects may outlive every static destructor.
[[maybe_unused]] OperationSlots &getOperationSlots() {
  static auto *slots = new OperationSlots();
  return *slots;
}
} // namespace

// Under AddressSanitizer every object is a heap block of its own, so that
// the sanitizer reports a use of a dropped object (a reused slot would hide
// it).
#if defined(__SANITIZE_ADDRESS__)
#define MLIR_TRACKING_OBJECTS_FROM_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MLIR_TRACKING_OBJECTS_FROM_HEAP 1
#endif
#endif

void *PyOperation::operator new(size_t size) {
  assert(size == sizeof(PyOperation) && "no subclass of PyOperation");
#ifdef MLIR_TRACKING_OBJECTS_FROM_HEAP
  return ::operator new(size);
#else
  (void)size;
  return getOperationSlots().allocate();
#endif
}

void PyOperation::operator delete(void *pointer) {
#ifdef MLIR_TRACKING_OBJECTS_FROM_HEAP
  ::operator delete(pointer);
#else
  if (pointer)
    getOperationSlots().deallocate(pointer);
#endif
}

namespace {
/// pybind11's record of the Operation class, looked up once: casting by
/// type would hash the type's name for every object.
const py::detail::type_info *getOperationTypeInfo() {
  static const py::detail::type_info *info =
      py::detail::get_type_info(typeid(PyOperation), /*throw_if_missing=*/true);
  return info;
}

/// A new Python Operation object owning `operation` (as casting it with
/// `take_ownership` would), or null with a Python error set. Made here
/// because pybind11's cast looks the pointer up among the registered
/// instances (a fresh object cannot be one) and its instance set-up finds
/// the class's record again by type name (hashing the name and comparing
/// it with strcmp, about 600 instructions per object): walks make one
/// object per op.
py::object makeOperationObject(PyOperation *operation) {
  const py::detail::type_info *info = getOperationTypeInfo();
  auto object = py::reinterpret_steal<py::object>(
      py::detail::make_new_instance(info->type));
  if (!object)
    return object;
  auto *instance = reinterpret_cast<py::detail::instance *>(object.ptr());
  // The class's own type (never a subclass here): the simple layout.
  py::detail::value_and_holder valueAndHolder =
      instance->get_value_and_holder(info);
  valueAndHolder.value_ptr() = operation;
  // Not owned until the holder is: if registering throws, the object dies
  // without deleting `operation` (the caller does).
  py::detail::register_instance(instance, operation, info);
  valueAndHolder.set_instance_registered();
  // The class's holder (the default std::unique_ptr) owns the object from
  // here on, as class_<PyOperation>::init_instance would make it.
  using Holder = std::unique_ptr<PyOperation>;
  new (std::addressof(valueAndHolder.holder<Holder>())) Holder(operation);
  valueAndHolder.set_holder_constructed();
  instance->owned = true;
  return object;
}
} // namespace

py::object PyOperation::forOperation(PyMlirContext &context, Operation *op) {
  return forOperation(context, op, nullptr);
}

py::object
PyOperation::forOperation(PyMlirContext &context, Operation *op,
                          const std::shared_ptr<RootOwner> &rootOwner) {
  // Records queued for release are mapped still: an address that C++ code
  // freed and reused behind the registry's back must not find one.
  context.flushReleases();
  // The record mapped at `op` is the canonical one for it: its identity is
  // the identity of the object every path to `op` returns.
  return forCanonicalHandle(context, context.getRegistry().getHandle(op), op,
                            rootOwner);
}

py::object
PyOperation::forCanonicalHandle(PyMlirContext &context, OpHandle handle,
                                Operation *op,
                                const std::shared_ptr<RootOwner> &rootOwner) {
  uint32_t index = handle.getIdentityIndex();
  std::vector<PyOperation *> &objects = context.operationsByIndex;
  if (index < objects.size() && objects[index])
    return objects[index]->getObject();
  if (index >= objects.size())
    objects.resize(std::max<size_t>(index + 1, objects.size() * 2), nullptr);
  context.noteObjectIndex(index);
  auto *operation =
      new PyOperation(context, std::move(handle), index,
                      rootOwner ? rootOwner : context.getOwner(getRootOf(op)));
  // Registered before the Python object exists: deleting `operation` on
  // failure below unregisters it. Nothing in between resizes `objects`.
  objects[index] = operation;
  ++context.numLiveOperations;
  py::object object;
  try {
    object = makeOperationObject(operation);
  } catch (...) {
    delete operation;
    throw;
  }
  if (!object) {
    delete operation;
    throw py::error_already_set();
  }
  operation->self = object.ptr();
  return object;
}

py::object PyOperation::adopt(PyMlirContext &context, Operation *op) {
  assert(!op->getBlock() && "only detached ops can be adopted");
  // Hold the new owner until the handle holds it.
  std::shared_ptr<RootOwner> owner = context.adoptRoot(op);
  py::object object = forOperation(context, op, owner);
  // `op` is its own root: the object need not walk up to check.
  object.cast<PyOperation &>().confirmOwner(*owner);
  return object;
}

Operation *PyMlirContext::findRootOf(Operation *op) {
  if (!capsuleAccess)
    if (OpHandle handle = registry->lookupHandle(op)) {
      uint32_t index = handle.getIdentityIndex();
      if (index < operationsByIndex.size())
        if (PyOperation *operation = operationsByIndex[index];
            operation && operation->rootCheckedAt == rootChanges &&
            operation->getIfLive() == op)
          if (Operation *root = RootOwner::resolve(operation->owner)->getRoot())
            return root;
    }
  ++numRootWalks;
  return getRootOf(op);
}

Operation *PyOperation::get() {
  Operation *op = handle.get();
  if (!op)
    // Upstream's message ends ours: programs match on it.
    throw InvalidatedHandleException(handle.describe() +
                                     " (the operation has been invalidated)");
  // Before reading anything: the owner (kept in step with the op's tree by
  // forwards and rehome) says whether a pipeline runs on that tree.
  RootOwner *resolved = RootOwner::resolve(owner);
  checkIRAccess(*resolved);
  checkPassScope(*resolved, handle, "op");
  // Keep the owner in step with the op's root (forwards after insertion).
  // Capsules let C++ code move IR without telling: then always look.
  if (rootCheckedAt == context->getRootChanges() &&
      !context->hadCapsuleAccess()) {
    // No op changed root since `owner` was found to own this one's, but
    // by inserting a tree's root into another tree, which forwards its
    // owner: the resolved owner owns the root now (no walk up, which costs
    // the nesting depth at each op inserted into a deep nest).
    if (owner != resolved)
      setOwner(resolved->shared_from_this());
    return op;
  }
  ++context->numRootWalks;
  Operation *root = getRootOf(op);
  if (owner != resolved || owner->getRoot() != root) {
    std::shared_ptr<RootOwner> current = resolved->getRoot() == root
                                             ? resolved->shared_from_this()
                                             : context->getOwner(root);
    if (current.get() != resolved) {
      checkIRAccess(*current);
      checkPassScope(*current, handle, "op");
    }
    setOwner(std::move(current));
  }
  rootCheckedAt = context->getRootChanges();
  return op;
}

void PyOperation::setOwner(std::shared_ptr<RootOwner> newOwner) {
  // The old owner may destroy other IR: swap first, release after.
  RootOwner *old = owner;
  newOwner->retainForObject();
  owner = newOwner.get();
  old->releaseForObject();
}

//===----------------------------------------------------------------------===//
// Thread context stack
//===----------------------------------------------------------------------===//

namespace {
/// Strong references held by hand: the vector may be destroyed at thread
/// exit without the GIL, so it must not own py::objects.
struct Frame {
  FrameKind kind;
  PyObject *entered;
  PyObject *context;
  PyObject *location;
  PyObject *insertionPoint;
};
thread_local std::vector<Frame> frames;

py::object borrow(PyObject *object) {
  if (!object)
    return py::none();
  return py::reinterpret_borrow<py::object>(object);
}
} // namespace

void mlir::tracking::python::pushFrame(FrameKind kind, const py::object &object,
                                       const py::object &context) {
  Frame frame{kind, object.ptr(), nullptr, nullptr, nullptr};
  if (!frames.empty()) {
    frame.location = frames.back().location;
    frame.insertionPoint = frames.back().insertionPoint;
  }
  frame.context = context.ptr();
  if (kind == FrameKind::Location)
    frame.location = object.ptr();
  if (kind == FrameKind::InsertionPoint)
    frame.insertionPoint = object.ptr();
  // A location or insertion point of another context does not apply.
  if (!frames.empty() && frames.back().context != frame.context) {
    if (kind != FrameKind::Location)
      frame.location = nullptr;
    if (kind != FrameKind::InsertionPoint)
      frame.insertionPoint = nullptr;
  }
  for (PyObject *held :
       {frame.entered, frame.context, frame.location, frame.insertionPoint})
    Py_XINCREF(held);
  frames.push_back(frame);
}

void mlir::tracking::python::popFrame(FrameKind kind,
                                      const py::object &object) {
  if (frames.empty() || frames.back().entered != object.ptr() ||
      frames.back().kind != kind)
    throw std::runtime_error(
        "unbalanced exit from a Context, Location or InsertionPoint manager");
  Frame frame = frames.back();
  frames.pop_back();
  for (PyObject *held :
       {frame.entered, frame.context, frame.location, frame.insertionPoint})
    Py_XDECREF(held);
}

py::object mlir::tracking::python::getCurrentContext() {
  return frames.empty() ? py::none() : borrow(frames.back().context);
}

py::object mlir::tracking::python::getCurrentLocation() {
  return frames.empty() ? py::none() : borrow(frames.back().location);
}

py::object mlir::tracking::python::getCurrentInsertionPoint() {
  return frames.empty() ? py::none() : borrow(frames.back().insertionPoint);
}

std::string mlir::tracking::python::printOperation(Operation *op,
                                                   OpPrintingFlags flags) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os, guardPrintingFlags(op, flags));
  return text;
}

OpOperand *mlir::tracking::python::findUseOfBlocklessResult(Operation *op) {
  // Under an IsolatedFromAbove op, the verifier's check of that trait
  // reports such a use ("operation's operand is unlinked") before any
  // dominance check: only uses outside every isolated op crash it.
  if (op->hasTrait<OpTrait::IsIsolatedFromAbove>())
    return nullptr;
  OpOperand *found = nullptr;
  for (Region &region : op->getRegions()) {
    region.walk<WalkOrder::PreOrder>([&](Operation *nested) {
      if (nested->hasTrait<OpTrait::IsIsolatedFromAbove>())
        return WalkResult::skip();
      for (OpOperand &operand : nested->getOpOperands()) {
        auto result = dyn_cast_if_present<OpResult>(operand.get());
        if (result && !result.getOwner()->getBlock()) {
          found = &operand;
          return WalkResult::interrupt();
        }
      }
      return WalkResult::advance();
    });
    if (found)
      break;
  }
  return found;
}

namespace {
/// A switch-like op: its successor operand segments, the successors before
/// the segmented ones (a default destination, with operands of its own),
/// and its case values (none for an indirect branch).
struct SwitchShape {
  llvm::StringLiteral op;
  llvm::StringLiteral segments;
  unsigned unsegmentedSuccessors;
  llvm::StringLiteral caseValues;
};
constexpr SwitchShape kSwitchShapes[] = {
    {"cf.switch", "case_operand_segments", 1, "case_values"},
    {"llvm.switch", "case_operand_segments", 1, "case_values"},
    {"spirv.Switch", "case_operand_segments", 1, "literals"},
    {"llvm.indirectbr", "indbr_operand_segments", 0, ""},
};
} // namespace

namespace {
/// The inputs of the affine map in attribute `name` of `op`, if it has one.
std::optional<unsigned> mapInputs(Operation *op, StringRef name) {
  auto map = dyn_cast_if_present<AffineMapAttr>(
      getInherentAttrOf(op, name).value_or(Attribute()));
  if (!map)
    return std::nullopt;
  return map.getValue().getNumInputs();
}

/// Affine loops whose bound maps take other counts of inputs than they
/// get operands: `affine.for`'s verifier lets it pass (canonicalization
/// then asks a SmallVector for 2^64 elements and aborts),
/// `affine.parallel`'s reads operands past its last.
std::string describeUnverifiableAffineLoop(Operation *op) {
  StringRef name = op->getName().getStringRef();
  if (name == "affine.for") {
    auto segments = dyn_cast_if_present<DenseI32ArrayAttr>(
        getInherentAttrOf(op, "operandSegmentSizes").value_or(Attribute()));
    if (!segments || segments.size() != 3)
      return {};
    const StringRef bounds[] = {"lowerBoundMap", "upperBoundMap"};
    for (auto [index, bound] : llvm::enumerate(bounds)) {
      std::optional<unsigned> inputs = mapInputs(op, bound);
      if (inputs && *inputs != unsigned(segments[index]))
        return "'" + bound.str() + "' takes " + std::to_string(*inputs) +
               " inputs, and the op has " + std::to_string(segments[index]) +
               " operands for it";
    }
    return {};
  }
  if (name == "affine.parallel") {
    std::optional<unsigned> lower = mapInputs(op, "lowerBoundsMap");
    std::optional<unsigned> upper = mapInputs(op, "upperBoundsMap");
    if (lower && upper && *lower + *upper != op->getNumOperands())
      return "its bound maps take " + std::to_string(*lower + *upper) +
             " inputs, and it has " + std::to_string(op->getNumOperands()) +
             " operands";
  }
  return {};
}

/// The inherent attributes that a new op of `name` has unless set to
/// something else: its default-valued ones. Found once per op name and
/// thread, from a scratch op. An entry is also keyed by the name's text: a
/// context freed and another one allocated where its names were gives
/// other names at the same addresses, but for the same op name the same
/// defaults (they are the op's C++ code's).
ArrayRef<std::string> defaultedAttributes(OperationName name) {
  struct Entry {
    std::string opName;
    SmallVector<std::string> attributes;
  };
  thread_local llvm::DenseMap<const void *, Entry> entries;
  Entry &entry = entries[name.getAsOpaquePointer()];
  if (entry.opName == name.getStringRef())
    return entry.attributes;
  entry.opName = name.getStringRef().str();
  entry.attributes.clear();
  OperationState state(UnknownLoc::get(name.getContext()), name);
  Operation *scratch = Operation::create(state);
  for (StringAttr attribute : name.getAttributeNames())
    if (getInherentAttrOf(scratch, attribute.getValue()).value_or(Attribute()))
      entry.attributes.push_back(attribute.getValue().str());
  scratch->destroy();
  return entry.attributes;
}

/// MLIR's SMT ops read bit-vector widths as 32-bit numbers, which the type
/// (and Python's BitVectorType.get before it) allows up to 2^63 - 1:
/// `smt.bv.repeat` of a `!smt.bv<4294967296>` divided by zero in its
/// verifier (adversarial pass 62), and `smt.bv.concat` infers a negative
/// width from two wide operands.
std::string describeUnverifiableBitVector(Operation *op) {
  // Other dialects' ops do not read the widths (most ops, on every
  // verification, skip the type walk).
  if (!isa_and_present<smt::SMTDialect>(op->getDialect()))
    return {};
  auto tooWide = [](Type type) {
    auto bitVector = dyn_cast<smt::BitVectorType>(type);
    return bitVector &&
           (bitVector.getWidth() < 1 || bitVector.getWidth() > UINT32_MAX);
  };
  for (TypeRange types :
       {TypeRange(op->getOperandTypes()), TypeRange(op->getResultTypes())})
    for (Type type : types)
      if (tooWide(type)) {
        std::string text;
        llvm::raw_string_ostream(text) << type;
        return "has a value of type " + text +
               ": MLIR's SMT ops take bit-vectors of 1 to 4294967295 bits";
      }
  return {};
}

/// `linalg.matmul`'s verifier reads its three indexing maps and their
/// results unchecked (an empty list, one map, or maps without results
/// crashed it; its batch and contract cousins check them).
std::string describeUnverifiableMatmul(Operation *op) {
  if (op->getName().getStringRef() != "linalg.matmul")
    return {};
  auto maps = dyn_cast_if_present<ArrayAttr>(
      getInherentAttrOf(op, "indexing_maps").value_or(Attribute()));
  if (!maps)
    return {};
  if (maps.size() != 3)
    return "'indexing_maps' holds " + std::to_string(maps.size()) +
           " maps, and it takes 3 (for its inputs and its output)";
  for (Attribute attribute : maps) {
    auto map = dyn_cast<AffineMapAttr>(attribute);
    if (!map || map.getValue().getNumResults() == 0)
      return "'indexing_maps' holds a map without results";
  }
  return {};
}

/// Ops whose verifiers, or their parents', read what the op's own invariants
/// (checked later) promise: a structured linalg op with no block, whose
/// interface verifiers read its iterator types and maps first (crashed, as
/// `linalg.abs` does; mlir-opt parses such ops with their defaults and
/// reports them), and the `llvm.landingpad`/`llvm.resume` that their
/// `llvm.func`'s verifier reads the type of.
/// Whether the static sizes of the shaped type `type` multiply past an
/// int64_t. MLIR's element count wraps, and such types verify:
/// tensor<9223372036854775807x9223372036854775807x2xi32> counted 2
/// elements, and canonicalize's folds read past the data of a dense
/// attribute of that type (a segfault in mlir-opt too).
bool overflowsElementCount(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank())
    return false;
  int64_t count = 1;
  for (int64_t size : shaped.getShape())
    if (size > 0 && __builtin_mul_overflow(count, size, &count))
      return true;
  return false;
}

std::string describeUnverifiableShape(Operation *op) {
  for (TypeRange types :
       {TypeRange(op->getResultTypes()), TypeRange(op->getOperandTypes())})
    for (Type type : types)
      if (overflowsElementCount(type)) {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << "uses the type " << type
           << ", whose element count overflows a 64-bit integer (MLIR's "
              "count wraps, and its folds read out of bounds)";
        return text;
      }
  if (isa<linalg::LinalgOp>(op) &&
      (op->getNumRegions() != 1 || op->getRegion(0).empty()))
    return "expects to have 1 region with 1 block";
  if (isa<LLVM::LandingpadOp>(op) && op->getNumResults() != 1)
    return "has " + std::to_string(op->getNumResults()) +
           " results and takes 1 (its llvm.func's verifier reads its type)";
  if (isa<LLVM::ResumeOp>(op) && op->getNumOperands() != 1)
    return "has " + std::to_string(op->getNumOperands()) +
           " operands and takes 1 (its llvm.func's verifier reads its type)";
  return {};
}

/// A default-valued inherent attribute that `op` lacks: MLIR drops an
/// inherent attribute set to one of the wrong kind (from PDL, or
/// `transform.annotate`), which leaves null what the op's printer and
/// folders read (the verifier lets it pass).
std::string describeDroppedAttribute(Operation *op) {
  if (!op->getPropertiesStorageSize())
    return {};
  for (const std::string &attribute : defaultedAttributes(op->getName()))
    if (!getInherentAttrOf(op, attribute).value_or(Attribute()))
      return "lacks its inherent attribute '" + attribute +
             "' (set to an attribute of the wrong kind, which MLIR drops)";
  return {};
}
/// The first op of `root` (post-order, `root` included) that `describe`
/// says something about, or null.
Operation *findFirstDescribed(Operation *root,
                              function_ref<std::string(Operation *)> describe) {
  Operation *found = nullptr;
  root->walk([&](Operation *op) {
    if (describe(op).empty())
      return WalkResult::advance();
    found = op;
    return WalkResult::interrupt();
  });
  return found;
}

/// Why `op` fails its own invariants (MLIR's first error, or "no message"),
/// or empty: checked with its diagnostics silenced.
std::string describeFailedInvariants(Operation *op) {
  std::string message;
  QuietOnThisThread silence(op->getContext(), [&](Diagnostic &diag) {
    if (message.empty() && diag.getSeverity() == DiagnosticSeverity::Error)
      message = diag.str();
  });
  if (succeeded(op->getName().verifyInvariants(op)))
    return {};
  return message.empty() ? "no message" : message;
}

/// An op that a transform op holds and that fails its own invariants: the
/// transform op's verifier (verifyTransformOpInterface) asks its nested ops
/// for their effects before they are verified, and their `getEffects` read
/// the operands, attributes and regions their invariants promise (an empty
/// `transform.foreach` body segfaulted, a `transform.annotate` without its
/// operand exhausted memory; mlir-opt too). Walked after its own nested
/// ops (findUnverifiableOp's post-order), so their effects are safe to ask.
std::string describeUnverifiedTransformChild(Operation *op) {
  Operation *parent = op->getParentOp();
  if (!parent || !isa<transform::TransformOpInterface>(parent))
    return {};
  // transform.foreach's verifier asks every op of its body for its effects
  // through the interface, unchecked (a module or an unregistered op there
  // segfaulted).
  if (isa<transform::ForeachOp>(parent) && !isa<MemoryEffectOpInterface>(op))
    return "does not implement MemoryEffectOpInterface, and the verifier of "
           "the transform.foreach that holds it would ask it for its effects";
  std::string failure = describeFailedInvariants(op);
  if (failure.empty())
    return {};
  return "does not verify (" + failure +
         "), and the verifier of the transform op that holds it would ask it "
         "for its effects";
}

/// The op that `ref` names, looked up from `from` as
/// SymbolTable::lookupNearestSymbolFrom does, or null; `problem` says why
/// when the lookup itself would crash (a symbol table on the path with no
/// region, which lookupNearestSymbolFrom indexes).
Operation *lookUpSymbolSafely(Operation *from, SymbolRefAttr ref,
                              std::string &problem) {
  Operation *table = from->getParentOp();
  while (table && !table->hasTrait<OpTrait::SymbolTable>())
    table = table->getParentOp();
  if (!table)
    return nullptr;
  auto find = [&](Operation *scope, StringAttr name) -> Operation * {
    if (scope->getNumRegions() == 0) {
      problem = "the symbol table '" + scope->getName().getStringRef().str() +
                "' on the path to its target has no region";
      return nullptr;
    }
    for (Block &block : scope->getRegion(0))
      for (Operation &candidate : block)
        if (candidate.getAttrOfType<StringAttr>(
                SymbolTable::getSymbolAttrName()) == name)
          return &candidate;
    return nullptr;
  };
  Operation *found = find(table, ref.getRootReference());
  for (FlatSymbolRefAttr nested : ref.getNestedReferences()) {
    if (!found || !found->hasTrait<OpTrait::SymbolTable>())
      return nullptr;
    found = find(found, nested.getAttr());
  }
  return found;
}

/// Why the argument or result attributes `attribute` of a callee with
/// `count` arguments or results would be misread: not a list of
/// dictionaries, or a list of another length.
std::string describeMalformedAttrList(Operation *callee, StringRef attribute,
                                      size_t count) {
  Attribute stored = callee->getAttr(attribute);
  if (!stored)
    return {};
  auto list = dyn_cast<ArrayAttr>(stored);
  if (!list || !llvm::all_of(list, llvm::IsaPred<DictionaryAttr>))
    return "has '" + attribute.str() +
           "' that is not a list of "
           "dictionaries";
  if (list.size() != count)
    return "has '" + attribute.str() + "' with " + std::to_string(list.size()) +
           " entries for " + std::to_string(count) +
           (attribute == "arg_attrs" ? " arguments" : " results");
  return {};
}

/// The transform.named_sequence ops whose checks by describeCallee are under
/// way on this thread (an include cycle), and the verdicts of the current
/// findUnverifiableOp walk (null outside one).
thread_local llvm::SmallPtrSet<Operation *, 8> calleesUnderCheck;
thread_local llvm::DenseMap<Operation *, std::string> *calleeVerdicts = nullptr;

/// Why asking for the effects of an op that includes `callee` would crash:
/// IncludeOp::getEffects runs the callee's own verification (which asks the
/// ops of its body for their effects) and reads its argument attributes
/// unchecked. Empty if it would not.
std::string describeCallee(Operation *callee) {
  if (calleeVerdicts)
    if (auto found = calleeVerdicts->find(callee);
        found != calleeVerdicts->end())
      return found->second;
  std::string verdict = [&]() -> std::string {
    auto typeAttr = dyn_cast_if_present<TypeAttr>(
        callee->getAttr(transform::NamedSequenceOp::getFunctionTypeAttrName(
            callee->getName())));
    auto type =
        typeAttr ? dyn_cast<FunctionType>(typeAttr.getValue()) : FunctionType();
    if (!type)
      return "has no 'function_type' of a function type";
    for (auto [attribute, count] :
         {std::pair<StringRef, size_t>{"arg_attrs", type.getNumInputs()},
          {"res_attrs", type.getNumResults()}})
      if (std::string malformed =
              describeMalformedAttrList(callee, attribute, count);
          !malformed.empty())
        return malformed;
    // Its verifier asks the ops of its body for their effects: those are
    // checked first, as findUnverifiableOp would (a callee defined after
    // its include was not walked yet).
    calleesUnderCheck.insert(callee);
    std::string nested;
    callee->walk([&](Operation *inner) {
      if (inner == callee)
        return WalkResult::advance();
      nested = describeUnverifiableOp(inner);
      if (nested.empty())
        return WalkResult::advance();
      nested = "holds a '" + inner->getName().getStringRef().str() + "' that " +
               nested;
      return WalkResult::interrupt();
    });
    calleesUnderCheck.erase(callee);
    if (!nested.empty())
      return nested;
    std::string failure = describeFailedInvariants(callee);
    return failure.empty() ? std::string()
                           : "does not verify (" + failure + ")";
  }();
  if (calleeVerdicts)
    calleeVerdicts->try_emplace(callee, verdict);
  return verdict;
}

/// A transform.include whose callee would crash the include's getEffects,
/// which the include's own interface verifier and the verifier of the
/// transform op that holds it call before the include's symbol uses are
/// verified (a callee with `arg_attrs = [1 : i32]`, or fewer entries than
/// the include has operands, segfaulted Module.parse; mlir-opt too).
std::string describeUnverifiableInclude(Operation *op) {
  if (!isa<transform::IncludeOp>(op))
    return {};
  auto target = op->getAttrOfType<SymbolRefAttr>("target");
  if (!target)
    return {};
  std::string problem;
  Operation *callee = lookUpSymbolSafely(op, target, problem);
  if (!problem.empty())
    return problem + ", and asking the include for its effects looks it up";
  // getEffects ignores a target that is not a named sequence.
  if (!isa_and_present<transform::NamedSequenceOp>(callee))
    return {};
  std::string name = "'@" + target.getLeafReference().str() + "'";
  if (calleesUnderCheck.contains(callee))
    return "includes " + name +
           " recursively (recursion is not allowed in named sequences, and "
           "asking the include for its effects would not end)";
  // Said once, by the outermost include.
  std::string consequence =
      calleesUnderCheck.empty()
          ? ", and asking the include for its effects (as its verifier and "
            "the verifier of the transform op that holds it do) reads that "
            "callee unchecked"
          : "";
  if (std::string verdict = describeCallee(callee); !verdict.empty())
    return "includes " + name + ", a transform.named_sequence that " + verdict +
           consequence;
  // getEffects reads an argument attribute per operand.
  if (auto argAttrs = callee->getAttrOfType<ArrayAttr>("arg_attrs");
      argAttrs && argAttrs.size() < op->getNumOperands())
    return "has " + std::to_string(op->getNumOperands()) +
           " operands and its callee " + name + " has argument attributes " +
           "for " + std::to_string(argAttrs.size()) +
           ", and asking the include for its effects would read past them";
  return {};
}

} // namespace

std::string mlir::tracking::python::describeUnverifiableOp(Operation *op) {
  // Before its own invariants are run: the include's verifier asks it for
  // its effects.
  if (std::string include = describeUnverifiableInclude(op); !include.empty())
    return include;
  // Unregistered ops too: the transform op asks them for their effects.
  if (std::string child = describeUnverifiedTransformChild(op); !child.empty())
    return child;
  if (!op->isRegistered())
    return {};
  if (std::string loop = describeUnverifiableAffineLoop(op); !loop.empty())
    return loop;
  if (std::string dropped = describeDroppedAttribute(op); !dropped.empty())
    return dropped;
  if (std::string shape = describeUnverifiableShape(op); !shape.empty())
    return shape;
  if (std::string matmul = describeUnverifiableMatmul(op); !matmul.empty())
    return matmul;
  if (std::string bitVector = describeUnverifiableBitVector(op);
      !bitVector.empty())
    return bitVector;
  if (!op->getNumSuccessors())
    return {};
  StringRef name = op->getName().getStringRef();
  for (const SwitchShape &shape : kSwitchShapes) {
    if (name != shape.op)
      continue;
    // Fewer successors, or a missing attribute: the op's own invariants,
    // checked first, report it.
    if (op->getNumSuccessors() < shape.unsegmentedSuccessors)
      return {};
    size_t cases = op->getNumSuccessors() - shape.unsegmentedSuccessors;
    // The op's verifier reads the case values' type once there are cases.
    if (!shape.caseValues.empty() && cases &&
        !getInherentAttrOf(op, shape.caseValues).value_or(Attribute()))
      return "has " + std::to_string(cases) + " case destinations and no '" +
             shape.caseValues.str() + "'";
    std::optional<Attribute> stored = getInherentAttrOf(op, shape.segments);
    auto segments =
        dyn_cast_if_present<DenseI32ArrayAttr>(stored.value_or(Attribute()));
    if (!segments)
      return {};
    if (llvm::any_of(segments.asArrayRef(),
                     [](int32_t size) { return size < 0; }))
      return "'" + shape.segments.str() + "' holds a negative size";
    if (segments.size() >= cases)
      return {};
    return "'" + shape.segments.str() + "' holds " +
           std::to_string(segments.size()) + " operand segments for " +
           std::to_string(cases) + " successors (one per successor" +
           (shape.unsegmentedSuccessors ? " after the first" : "") + ")";
  }
  return {};
}

LogicalResult mlir::tracking::python::verifyOpInvariants(Operation *op) {
  if (std::string unverifiable = describeUnverifiableOp(op);
      !unverifiable.empty())
    return op->emitOpError() << unverifiable;
  return op->getName().verifyInvariants(op);
}

Operation *mlir::tracking::python::findUnverifiableOp(Operation *root) {
  // Each callee of transform.include is checked once per walk.
  llvm::DenseMap<Operation *, std::string> verdicts;
  bool outermost = !calleeVerdicts;
  if (outermost)
    calleeVerdicts = &verdicts;
  llvm::scope_exit reset([&] {
    if (outermost)
      calleeVerdicts = nullptr;
  });
  return findFirstDescribed(root, describeUnverifiableOp);
}

LogicalResult mlir::tracking::python::verifyIR(Operation *op,
                                               bool onThisThread) {
  // MLIR verifies an op after its ancestors, and verifiers read their
  // parent as valid (func.return casts its function's type): an op
  // verified alone first has its ancestors' own invariants checked, from
  // the top.
  SmallVector<Operation *> ancestors;
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    ancestors.push_back(parent);
  // A transform op among them verifies by asking the ops it holds for their
  // effects: those are checked first, innermost first.
  for (Operation *ancestor : llvm::reverse(ancestors)) {
    if (!isa<transform::TransformOpInterface>(ancestor))
      continue;
    if (Operation *unverifiable = findUnverifiableOp(ancestor))
      return unverifiable->emitOpError()
             << describeUnverifiableOp(unverifiable);
    break;
  }
  for (Operation *ancestor : llvm::reverse(ancestors))
    if (failed(verifyOpInvariants(ancestor)))
      return failure();
  if (Operation *unverifiable = findUnverifiableOp(op))
    return unverifiable->emitOpError() << describeUnverifiableOp(unverifiable);
  if (OpOperand *use = findUseOfBlocklessResult(op)) {
    Operation *definer = use->get().getDefiningOp();
    use->getOwner()->emitError()
        << "operand #" << use->getOperandNumber() << " is a result of '"
        << definer->getName()
        << "', which is in no block (detached, or not inserted yet): "
           "the IR cannot be verified until that op is inserted or the use "
           "is replaced";
    return failure();
  }
  // Inside a pass (a Python pass on a pool thread) MLIR's parallel
  // verification could run other pipelines nested here
  // (VerifyOnThisThread.h).
  if (onThisThread || tracking::detail::getRunningPassAnchor())
    return tracking::detail::verifyOnThisThread(op);
  return mlir::verify(op);
}

std::string mlir::tracking::python::describeUnprintableOp(Operation *op) {
  if (!op->isRegistered())
    return {};
  // omp::CanonicalLoopOp::print reads the region's argument; its verifier
  // checks the argument count only when the region has a block.
  if (op->getName().getStringRef() == "omp.canonical_loop" &&
      op->getNumRegions() == 1 && op->getRegion(0).empty())
    return "its region is empty (its printer reads the region's induction "
           "variable)";
  return {};
}

Operation *mlir::tracking::python::findUnprintableOp(Operation *root) {
  return findFirstDescribed(root, describeUnprintableOp);
}

std::string mlir::tracking::python::describeCrashingPrint(Operation *printed) {
  if (Operation *unprintable = findUnprintableOp(printed))
    return "'" + unprintable->getName().getStringRef().str() +
           "' cannot be printed in its custom form (" +
           describeUnprintableOp(unprintable) + ")";
  if (OpOperand *use = findUseOfBlocklessResult(printed))
    return "'" + use->getOwner()->getName().getStringRef().str() +
           "' uses a result of an op in no block, which the printer's "
           "verification crashes on";
  if (Operation *unverifiable = findUnverifiableOp(printed))
    return "'" + unverifiable->getName().getStringRef().str() + "' " +
           describeUnverifiableOp(unverifiable) +
           " (the printer verifies first)";
  return {};
}

bool mlir::tracking::python::pipelineMayRunPass(StringRef pipeline,
                                                StringRef argument) {
  auto isNameChar = [](char c) {
    return llvm::isAlnum(c) || c == '-' || c == '_' || c == '.';
  };
  for (size_t at = pipeline.find(argument); at != StringRef::npos;
       at = pipeline.find(argument, at + 1)) {
    size_t end = at + argument.size();
    if ((at == 0 || !isNameChar(pipeline[at - 1])) &&
        (end == pipeline.size() || !isNameChar(pipeline[end])))
      return true;
  }
  return false;
}

StringRef mlir::tracking::python::findIRPrintingPass(StringRef pipeline) {
  for (StringRef pass : {"print-ir", "snapshot-op-locations", "view-op-graph"})
    if (pipelineMayRunPass(pipeline, pass))
      return pass;
  return {};
}

bool mlir::tracking::python::pipelineMayRunTransformScript(StringRef pipeline) {
  return pipelineMayRunPass(pipeline, "transform-interpreter") ||
         pipelineMayRunPass(pipeline, "tracked-transform-interpreter");
}

void mlir::tracking::python::checkPipelineNesting(StringRef pipeline,
                                                  StringRef what) {
  constexpr unsigned kMaxNesting = 1000;
  unsigned depth = 0, deepest = 0;
  for (char c : pipeline) {
    if (c == '(' || c == '{')
      deepest = std::max(deepest, ++depth);
    else if ((c == ')' || c == '}') && depth > 0)
      --depth;
  }
  if (deepest > kMaxNesting)
    throw py::value_error(what.str() + " nests " + std::to_string(deepest) +
                          " levels of pass managers or options; at most " +
                          std::to_string(kMaxNesting) +
                          " are supported (MLIR prints and runs them "
                          "recursively)");
}

void mlir::tracking::python::checkTextNesting(StringRef text, StringRef what) {
  constexpr unsigned kMaxNesting = 2000;
  if (text.starts_with("ML\xefR"))
    return; // Bytecode (see ParserSource).
  // An upper bound of what the parser nests: brackets outside string
  // literals and comments (an arrow's '>' only lowers the count).
  unsigned depth = 0, deepest = 0;
  bool inString = false;
  for (size_t i = 0, e = text.size(); i != e; ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
      continue;
    }
    switch (c) {
    case '"':
      inString = true;
      break;
    case '/':
      if (i + 1 != e && text[i + 1] == '/')
        i = std::min(text.find('\n', i), e - 1);
      break;
    case '{':
    case '(':
    case '[':
    case '<':
      deepest = std::max(deepest, ++depth);
      break;
    case '}':
    case ')':
    case ']':
    case '>':
      if (depth > 0)
        --depth;
      break;
    }
  }
  if (deepest > kMaxNesting)
    throw py::value_error(
        what.str() + ": the text nests " + std::to_string(deepest) +
        " levels of brackets; at most " + std::to_string(kMaxNesting) +
        " are supported (MLIR's parser recurses once per "
        "level)");
}

ParserSource::ParserSource(StringRef text, StringRef what) : source(text) {
  if (!text.starts_with("ML\xefR")) {
    checkTextNesting(text, what);
    return;
  }
  alignedCopy = llvm::WritableMemoryBuffer::getNewUninitMemBuffer(
      text.size(), what, llvm::Align(4096));
  llvm::copy(text, alignedCopy->getBufferStart());
  source = StringRef(alignedCopy->getBufferStart(), text.size());
}

ParserSource::~ParserSource() = default;

Operation *mlir::tracking::python::checkTransformScript(Operation *root) {
  Operation *printer = nullptr;
  root->walk([&](Operation *op) {
    StringRef name = op->getName().getStringRef();
    if (name == "transform.print" && !printer)
      printer = op;
    if (name != "transform.apply_registered_pass")
      return;
    // The pass's name and the strings of its options (which may hold
    // pipelines), all parsed when the op runs.
    SmallVector<StringRef> texts;
    if (auto pass = op->getAttrOfType<StringAttr>("pass_name"))
      texts.push_back(pass.getValue());
    if (auto options = op->getAttrOfType<DictionaryAttr>("options"))
      for (NamedAttribute option : options) {
        if (auto text = dyn_cast<StringAttr>(option.getValue()))
          texts.push_back(text.getValue());
        if (auto list = dyn_cast<ArrayAttr>(option.getValue()))
          for (Attribute element : list)
            if (auto text = dyn_cast<StringAttr>(element))
              texts.push_back(text.getValue());
      }
    for (StringRef text : texts) {
      checkPipelineNesting(text, "an option of '" + name.str() + "'");
      if (!printer && !findIRPrintingPass(text).empty())
        printer = op;
    }
  });
  return printer;
}

Operation *mlir::tracking::python::findPrintingScope(Operation *op,
                                                     bool localScope) {
  // As MLIR's findParent (Operation::print, Value::printAsOperand).
  while (!(localScope && op->hasTrait<OpTrait::IsIsolatedFromAbove>())) {
    Operation *parent = op->getParentOp();
    if (!parent)
      break;
    op = parent;
  }
  return op;
}

namespace {
/// guardPrintingFlags: `printed` goes through the custom printers, and the
/// printer's mlir::AsmState verifies `scope`.
OpPrintingFlags guardFlags(Operation *printed, Operation *scope,
                           OpPrintingFlags flags) {
  if (flags.shouldPrintGenericOpForm())
    return flags;
  // Only the ops printed go through their custom printers (the ops around
  // them are numbered, not printed).
  if (findUnprintableOp(printed))
    return flags.printGenericOpForm();
  if (flags.shouldAssumeVerified())
    return flags;
  if (findUseOfBlocklessResult(scope) || findUnverifiableOp(scope))
    return flags.printGenericOpForm().assumeVerified();
  // The printer verifies `scope` and prints invalid IR in the generic form,
  // silencing its verifier's errors on the calling thread only: verifying
  // in parallel, the errors of the pool's threads went to stderr, and
  // inside a pass (a Python pass on a pool thread) the pool could run
  // other pipelines nested here and lose their errors. Verified here, on
  // this thread, quietly, with the printer's outcome.
  QuietOnThisThread quiet(scope->getContext());
  if (failed(verifyIR(scope, /*onThisThread=*/true)))
    flags.printGenericOpForm();
  return flags.assumeVerified();
}
} // namespace

OpPrintingFlags
mlir::tracking::python::guardPrintingFlags(Operation *op,
                                           OpPrintingFlags flags) {
  // The printer verifies the op it numbers from: the top-level op, or with
  // a local scope the nearest IsolatedFromAbove op around `op` (never `op`
  // itself unless it is isolated).
  return guardFlags(op, findPrintingScope(op, flags.shouldUseLocalScope()),
                    flags);
}

OpPrintingFlags
mlir::tracking::python::guardAsmStateFlags(Operation *scope,
                                           OpPrintingFlags flags) {
  return guardFlags(scope, scope, flags);
}

std::string mlir::tracking::python::printValueAsOperand(Value value,
                                                        Operation *scope,
                                                        OpPrintingFlags flags) {
  AsmState state(scope, guardAsmStateFlags(scope, flags));
  std::string text;
  llvm::raw_string_ostream os(text);
  value.printAsOperand(os, state);
  return text;
}

bool mlir::tracking::python::storedInherentAttribute(Operation *op,
                                                     StringRef name,
                                                     Attribute attribute) {
  if (!op->isRegistered())
    return true;
  std::optional<Attribute> stored = getInherentAttrOf(op, name);
  return !stored || *stored == attribute;
}

py::list mlir::tracking::python::copyToList(const py::handle &items) {
  if (items.is_none())
    return py::list();
  PyObject *copy = PySequence_List(items.ptr());
  if (!copy)
    throw py::error_already_set();
  return py::reinterpret_steal<py::list>(copy);
}

void mlir::tracking::python::checkRegionCount(int64_t regions) {
  constexpr int64_t kMaxRegions = (int64_t(1) << 23) - 1;
  if (regions < 0 || regions > kMaxRegions)
    throw py::value_error("an operation has from 0 to " +
                          std::to_string(kMaxRegions) + " regions, not " +
                          std::to_string(regions));
}
