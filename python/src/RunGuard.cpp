//===- RunGuard.cpp - IR locked while a pipeline runs on it ---------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "RunGuard.h"
#include "TreeLinks.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/bit.h"

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::python;

namespace {
/// The run whose IR the current thread may access (see ScopedRunAccess).
thread_local const RunningPipeline *allowedRun = nullptr;
/// Every run the current thread was let into, innermost last.
thread_local llvm::SmallVector<const RunningPipeline *, 2> accessibleRuns;
/// The innermost op a pass or driver runs on, on this thread (RunAnchor).
thread_local const RunAnchor *innermostAnchor = nullptr;
/// The innermost access that let the current thread into `allowedRun`, if it
/// is limited to a scope (a nested Python pass).
thread_local const ScopedRunAccess *scopedAccess = nullptr;
/// How many accesses limited to a scope this thread is in, at any depth: a
/// pipeline run from a nested Python pass lets its own Python passes see
/// all of its IR, while the outer run's other passes still run.
thread_local unsigned scopedAccessDepth = 0;

std::string describeTarget(PyOperation &target) {
  const OpHandle &handle = target.getHandle();
  return "'" + handle.getLastName() + "' at " + handle.getLastLocation();
}

/// "the pass pipeline 'p'", "the rewrite driver 'd'" and so on.
std::string describeRun(const RunningPipeline &run) {
  return std::string("the ") + run.kind + " '" + run.pipeline + "'";
}

/// True if the nested Python pass running on this thread claimed the tree
/// of `owner` (resolved): only this thread can reach it.
bool isClaimedHere(const RootOwner &owner) {
  return scopedAccess && owner.claimedByPass && owner.running == allowedRun &&
         owner.claimedByPass == scopedAccess->getScope();
}
} // namespace

void mlir::tracking::python::checkIRAccess(const RootOwner &owner) {
  const RunningPipeline *run = owner.running;
  if (!run || run == allowedRun)
    return;
  throw IRInUseException(
      "cannot access this IR: " + describeRun(*run) + " is running on it (" +
      (run->driver ? run->pipeline : std::string("PassManager.run")) + " on " +
      run->target + " in another thread); use it again after that run returns");
}

void mlir::tracking::python::checkNoRunIn(const PyMlirContext &context,
                                          StringRef what) {
  if (context.readsWithoutGIL)
    throw IRInUseException(
        what.str() +
        " is not allowed while another thread reads IR of "
        "context #" +
        std::to_string(context.getId()) +
        " without the GIL (a parse, a verification or a print, which may "
        "use the context's thread pool); call it after that returns");
  if (context.numRunning == 0)
    return;
  throw IRInUseException(
      what.str() + " is not allowed while a pass pipeline runs in context #" +
      std::to_string(context.getId()) +
      (mayReadAnyTree(context) ? " (the run that called this Python code)"
                               : " (PassManager.run in another thread)") +
      "; call it after the run returns");
}

bool mlir::tracking::python::mayChangeContext(const PyMlirContext &context) {
  // No thread reads IR without the GIL, and no run goes on but those whose
  // Python code this is: the pass manager waits for it, unless it is in a
  // nested pass at any depth (the pass manager may run its siblings on
  // other threads).
  return !context.readsWithoutGIL && mayReadAnyTree(context) &&
         !scopedAccessDepth;
}

void mlir::tracking::python::checkContextChangeAllowed(
    const PyMlirContext &context, StringRef what) {
  if (mayChangeContext(context))
    return;
  checkNoRunIn(context, what);
}

bool mlir::tracking::python::mayReadAnyTree(const PyMlirContext &context) {
  if (context.numRunning == 0)
    return true;
  // Runs nest (a driver in a Python pass): count the distinct runs of this
  // context the thread is in.
  unsigned here = 0;
  for (size_t i = 0; i < accessibleRuns.size(); ++i)
    if (accessibleRuns[i]->context == &context &&
        !llvm::is_contained(llvm::ArrayRef(accessibleRuns).take_front(i),
                            accessibleRuns[i]))
      ++here;
  return here == context.numRunning;
}

//===----------------------------------------------------------------------===//
// RunLock
//===----------------------------------------------------------------------===//

RunLock::RunLock(PyOperation &target, std::string pipeline, bool driver,
                 const char *kind)
    : context(target.getContext()), run{std::move(pipeline),
                                        describeTarget(target), driver,
                                        &context, kind} {
  checkNoHandlerDelivery(context, "run '" + run.pipeline + "'");
  std::shared_ptr<RootOwner> current = target.getResolvedOwner();
  if (const RunningPipeline *other = current->running;
      other && !isClaimedHere(*current))
    throw IRInUseException("cannot run '" + run.pipeline + "' on " +
                           run.target + ": " + describeRun(*other) +
                           " is already running on " + other->target +
                           " in the same IR (one run per IR tree at a time)");
  // Checks liveness and brings the owner in step with the op's tree.
  op = target.get();
  owners.push_back(target.getResolvedOwner());
  // The trees linked to the target's by uses, transitively: passes on one
  // change the use lists they share, so they are locked together. Reading
  // a linked tree is safe: links are symmetric, so a run on it would have
  // locked the target's tree too.
  TreeLinks links =
      findTreeLinks(context, getRootOf(op), TreeLinkQuery::LinkedTrees);
  // Passes assume that every use of an op they erase is in the IR they run
  // on: one erasing an op (or block) that another tree still uses would
  // leave that tree with a use of freed IR.
  // The same within the tree for a run on a nested op: a branch or an
  // operand moved into another function keeps using the op's blocks and
  // values, which the pass manager does not verify (it verifies only the
  // op) and region simplification frees.
  if (links.rootUsedFromOutside ||
      (op != getRootOf(op) && isUsedFromOutside(op)))
    throw IRInUseException(
        "cannot run '" + run.pipeline + "' on " + run.target +
        ": ops outside its IR (a clone, or ops detached or moved out of it) "
        "use values or blocks of it, and a pass could free them while they "
        "are still used; erase those ops or move them into this IR first");
  for (Operation *tree : llvm::drop_begin(links.trees))
    owners.push_back(context.getOwner(tree));
  for (const std::shared_ptr<RootOwner> &owner : owners) {
    if (const RunningPipeline *other = owner->running;
        other && !isClaimedHere(*owner))
      throw IRInUseException("cannot run '" + run.pipeline + "' on " +
                             run.target + ": " + describeRun(*other) +
                             " is already running "
                             "on " +
                             other->target +
                             ", whose IR uses values of this IR (or "
                             "this IR uses values of it)");
    for (IRPin *pin : context.pins)
      if (pin->covers(owner.get()))
        throw IRInUseException(
            "cannot run '" + run.pipeline + "' on " + run.target +
            ": the IR is in use by " + pin->getUser() +
            " (a walk callback or another thread is reading it); run it "
            "after that returns");
  }
  for (const std::shared_ptr<RootOwner> &owner : owners) {
    claims.push_back({owner->running, owner->claimedByPass});
    owner->running = &run;
    owner->claimedByPass = nullptr;
  }
  ++context.numRunning;
}

RunLock::~RunLock() {
  // A tree the Python pass running this claimed stays its own.
  for (auto [owner, claim] : llvm::zip(owners, claims)) {
    owner->running = claim.first;
    owner->claimedByPass = claim.second;
  }
  // Trees Python passes claimed or linked. One may have moved into another
  // tree since (its owner forwards there): only this run's locks go.
  auto unlock = [&](const std::shared_ptr<RootOwner> &owner) {
    for (RootOwner *locked : {owner.get(), RootOwner::resolve(owner.get())})
      if (locked->running == &run) {
        locked->running = nullptr;
        locked->claimedByPass = nullptr;
      }
  };
  for (const std::weak_ptr<RootOwner> &claimed : run.claimedDuringRun)
    if (std::shared_ptr<RootOwner> owner = claimed.lock())
      unlock(owner);
  for (const std::shared_ptr<RootOwner> &owner : run.lockedDuringRun)
    unlock(owner);
  // Dropping these may destroy trees nothing else holds: after the run.
  auto lockedDuringRun = std::move(run.lockedDuringRun);
  --context.numRunning;
  // The run's C++ code may have moved ops into other trees.
  context.noteRootsMayHaveChanged();
  // A driver's patterns, or passes over trees linked by uses, may have
  // moved a block or followed a value into another tree (Core.h).
  if (run.driver || owners.size() > 1)
    for (const std::shared_ptr<RootOwner> &owner : owners)
      context.noteTreeChanged(*RootOwner::resolve(owner));
}

//===----------------------------------------------------------------------===//
// IRPin
//===----------------------------------------------------------------------===//

IRPin::IRPin(PyOperation &operation, const char *user, PinKind kind,
             const char *why)
    : context(operation.getContext()), user(user), kind(kind), why(why) {
  std::shared_ptr<RootOwner> owner = operation.getResolvedOwner();
  checkIRAccess(*owner);
  scope = findPassScope(*owner);
  owners.push_back(std::move(owner));
  // A reader without the GIL reads use lists, which changes to the trees
  // linked to this one edit (and destroying one of them would drop its
  // uses): those trees are pinned and kept alive too.
  if (kind == PinKind::ReadsWithoutGIL) {
    // From a nested Python pass, only the links of its op: the rest of the
    // tree is being rewritten on other threads (walking it crashed).
    TreeLinks links = findTreeLinks(context, getRootOf(operation.get()),
                                    TreeLinkQuery::LinkedTrees, scope);
    for (Operation *tree : llvm::drop_begin(links.trees))
      cover(context.getOwner(tree));
  }
  context.pins.push_back(this);
}

IRPin::~IRPin() { llvm::erase(context.pins, this); }

bool IRPin::covers(const RootOwner *owner) const {
  return llvm::any_of(owners, [&](const std::shared_ptr<RootOwner> &pinned) {
    return RootOwner::resolve(pinned).get() == owner;
  });
}

bool IRPin::coversChangeAt(const RootOwner *owner, Operation *changed) const {
  if (!covers(owner))
    return false;
  if (!scope || !changed || RootOwner::resolve(owners.front()).get() != owner)
    return true;
  return scope->isAncestor(changed);
}

void IRPin::cover(std::shared_ptr<RootOwner> owner) {
  std::shared_ptr<RootOwner> resolved = RootOwner::resolve(std::move(owner));
  if (covers(resolved.get()))
    return;
  checkIRAccess(*resolved);
  owners.push_back(std::move(resolved));
}

void mlir::tracking::python::checkPinnedIRChange(const PyMlirContext &context,
                                                 const RootOwner *owner,
                                                 Operation *changed) {
  for (IRPin *pin : context.pins)
    if (pin->isReadOnly() && pin->coversChangeAt(owner, changed))
      throw IRInUseException(
          std::string("cannot change this IR now: ") + pin->getUser() +
          " holds it " +
          (pin->getWhy()
               ? pin->getWhy()
               : "while Python code runs (an OpView class's __new__, a "
                 "generator or property of an argument, a gc callback or "
                 "finalizer)") +
          "; change it after that call returns");
}

namespace {
/// The pin of a call that reads the tree of `op` without the GIL, if any.
const IRPin *findReaderWithoutGIL(PyMlirContext &context, Operation *op) {
  if (llvm::none_of(context.pins,
                    [](const IRPin *pin) { return pin->readsWithoutGIL(); }))
    return nullptr;
  // A pin holds the owner of each tree it covers: a tree with no owner is
  // not pinned.
  std::shared_ptr<RootOwner> owner = context.findOwner(getRootOf(op));
  if (!owner)
    return nullptr;
  for (const IRPin *pin : context.pins)
    if (pin->readsWithoutGIL() && pin->coversChangeAt(owner.get(), op))
      return pin;
  return nullptr;
}

void checkUseListChangeUnder(PyMlirContext &context, Operation *op,
                             const char *what) {
  if (!op)
    return;
  // A tree a run holds that this thread may not use: a Python pass of the
  // run claimed it (the pipeline may be editing its values' use lists on
  // another thread now), or another run locked it.
  // Or the run's own tree outside the nested pass's op: another
  // function (reached through a use of a value of another tree; while that
  // tree is not locked, every function using it is in Python code).
  auto outsideScope = [&](const RootOwner &owner) {
    if (!scopedAccess || !scopedAccess->getScope())
      return false;
    if (owner.claimedByPass)
      return owner.claimedByPass != scopedAccess->getScope();
    return !scopedAccess->getScope()->isAncestor(op);
  };
  if (context.numRunning)
    if (std::shared_ptr<RootOwner> owner = context.findOwner(getRootOf(op));
        owner && owner->running &&
        (owner->running != allowedRun || outsideScope(*owner)))
      throw IRInUseException(
          std::string("cannot use this ") + what + " now: its IR is held by " +
          describeRun(*owner->running) +
          (owner->running == allowedRun ? " for the Python pass on another op"
                                        : "") +
          ", which may be editing its use list; use it after that run "
          "returns");
  if (context.pins.empty())
    return;
  if (const IRPin *pin = findReaderWithoutGIL(context, op))
    throw IRInUseException(
        std::string("cannot use this ") + what + " now: " + pin->getUser() +
        " in another thread reads its IR without the GIL (another thread "
        "runs Python passes on the thread pool), and a new or removed use "
        "would change its use list under that read; use it after that call "
        "returns");
}
} // namespace

void mlir::tracking::python::checkUseListChange(PyMlirContext &context,
                                                Value value) {
  if (context.pins.empty() && !context.numRunning)
    return;
  checkUseListChangeUnder(context, getHolderOf(value), "value");
}

void mlir::tracking::python::checkUseListChange(PyMlirContext &context,
                                                Block *block) {
  if (!context.pins.empty() || context.numRunning)
    checkUseListChangeUnder(context, block->getParentOp(), "block");
}

void mlir::tracking::python::checkUsesFromChange(PyMlirContext &context,
                                                 Operation *op) {
  if (context.pins.empty() && !context.numRunning)
    return;
  op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands())
      if (Operation *holder = getHolderOf(operand);
          holder && !op->isAncestor(holder))
        checkUseListChange(context, operand);
    for (Block *successor : nested->getSuccessors())
      if (Operation *holder = successor->getParentOp();
          holder && !op->isAncestor(holder))
        checkUseListChange(context, successor);
  });
}

void mlir::tracking::python::checkUseListChange(PyMlirContext &context,
                                                Operation *holder) {
  checkUseListChangeUnder(context, holder, "operation");
}

void mlir::tracking::python::checkCloneUseListChanges(PyMlirContext &context,
                                                      Operation *op) {
  if (context.pins.empty())
    return;
  // What a clone uses from outside `op` is in the tree of `op` or linked
  // to it: unpinned there, nothing to check.
  if (!findReaderWithoutGIL(context, op))
    return;
  auto isInside = [&](Operation *holder) {
    return holder && op->isAncestor(holder);
  };
  op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands())
      if (!isInside(getHolderOf(operand)))
        checkUseListChange(context, operand);
    for (Block *successor : nested->getSuccessors())
      if (!isInside(successor->getParentOp()))
        checkUseListChange(context, successor);
  });
}

void mlir::tracking::python::checkNoHandlerDelivery(
    const PyMlirContext &context, StringRef what) {
  if (context.deliveriesInsideCalls == 0)
    return;
  throw IRInUseException(
      "cannot " + what.str() +
      " now: diagnostic handlers are running at the end of a call that may "
      "still use the IR (a verification or a step inside it); do it after "
      "that call returns");
}

void mlir::tracking::python::propagatePins(PyMlirContext &context,
                                           const RootOwner *from,
                                           std::shared_ptr<RootOwner> to) {
  for (IRPin *pin : context.pins) {
    if (!pin->covers(from) || pin->covers(to.get()))
      continue;
    // A pin a nested pass took covers only its op in the run's tree: IR
    // another function's pass moves out of that tree was never under it.
    if (pin->scope && RootOwner::resolve(pin->owners.front()).get() == from &&
        (!scopedAccess || scopedAccess->getScope() != pin->scope))
      continue;
    pin->owners.push_back(to);
  }
}

//===----------------------------------------------------------------------===//
// ScopedRunAccess
//===----------------------------------------------------------------------===//

ScopedRunAccess::ScopedRunAccess(const RunningPipeline &run, Operation *scope,
                                 std::string user)
    : previous(allowedRun), previousScoped(scopedAccess), scope(scope),
      user(std::move(user)) {
  allowedRun = &run;
  accessibleRuns.push_back(&run);
  // Another run let in here (a driver on a tree of its own) is not limited;
  // the limit comes back with the pass's run.
  scopedAccess = scope ? this : nullptr;
  if (scope)
    ++scopedAccessDepth;
}

ScopedRunAccess::~ScopedRunAccess() {
  if (scope)
    --scopedAccessDepth;
  allowedRun = previous;
  scopedAccess = previousScoped;
  accessibleRuns.pop_back();
}

void mlir::tracking::python::checkPassScope(const RootOwner &owner,
                                            const OpHandle &anchor,
                                            const char *what) {
  const ScopedRunAccess *access = scopedAccess;
  if (!access || !owner.running || owner.running != allowedRun ||
      (owner.claimedByPass ? owner.claimedByPass == access->scope
                           : anchor.isNestedIn(access->scope)))
    return;
  throw IRInUseException(
      std::string("cannot access this ") + what + " from " + access->user +
      ": it is not under the op the pass runs on (a pass may use only the "
      "IR under its op; the pass manager may be rewriting the rest on "
      "other threads), or the op it was reached through is gone");
}

void mlir::tracking::python::checkWholeTreeAccess(const RootOwner &owner,
                                                  const char *what) {
  const ScopedRunAccess *access = scopedAccess;
  if (!access || !owner.running || owner.running != allowedRun ||
      (owner.claimedByPass && owner.claimedByPass == access->scope))
    return;
  throw IRInUseException(
      std::string("cannot run ") + what + " from " + access->user +
      ": it may change IR outside the op the pass runs on, which the pass "
      "manager may be rewriting on other threads; run it from a pass on "
      "the top-level op, or after PassManager.run returns");
}

bool mlir::tracking::python::isLimitedToPassScope(const RootOwner &owner) {
  return findPassScope(owner) != nullptr;
}

Operation *mlir::tracking::python::findPassScope(const RootOwner &owner) {
  const ScopedRunAccess *access = scopedAccess;
  // A tree the pass claimed is all its own.
  if (access && owner.running && owner.running == allowedRun &&
      !owner.claimedByPass)
    return access->scope;
  return nullptr;
}

void mlir::tracking::python::claimForPass(
    const PyMlirContext &context, const std::shared_ptr<RootOwner> &owner) {
  const ScopedRunAccess *access = scopedAccess;
  if (!access || !access->scope || !allowedRun ||
      allowedRun->context != &context || owner->running)
    return;
  owner->running = allowedRun;
  owner->claimedByPass = access->scope;
  std::vector<std::weak_ptr<RootOwner>> &claimed = allowedRun->claimedDuringRun;
  // Most such trees are new ops inserted at once: forget those Python
  // dropped, so a pass making millions of ops does not keep as many.
  if (claimed.size() >= 1024 && llvm::has_single_bit(claimed.size()))
    llvm::erase_if(claimed, [](const std::weak_ptr<RootOwner> &owner) {
      return owner.expired();
    });
  claimed.push_back(owner);
}

bool mlir::tracking::python::mayAccess(const RootOwner &owner,
                                       const OpHandle &handle) {
  if (!owner.running)
    return true;
  if (owner.running != allowedRun)
    return false;
  const ScopedRunAccess *access = scopedAccess;
  return !access || owner.claimedByPass == access->scope ||
         (!owner.claimedByPass && handle.isNestedIn(access->scope));
}

PassLinks mlir::tracking::python::lockTreesLinkedByPass(
    PyMlirContext &context, Operation *passOp, const RunningPipeline &run) {
  Operation *root = getRootOf(passOp);
  Operation *scope = passOp == root ? nullptr : passOp;
  TreeLinks links =
      findTreeLinks(context, root, TreeLinkQuery::LinkedTrees, scope);
  bool shared = false;
  for (Operation *tree : llvm::drop_begin(links.trees)) {
    std::shared_ptr<RootOwner> owner = context.getOwner(tree);
    // (A tree of another run cannot be reached from this one.)
    if (owner->running && owner->claimedByPass != scope) {
      // Locked with the run when it started, or linked by a pass on the
      // whole IR (the pass manager waits for those): nothing else runs on
      // it. Else another function's pass claimed it, which matters only
      // to a nested pass (a pass on the whole IR runs alone).
      shared = shared || (scope && owner->claimedByPass);
      continue;
    }
    // Linked now: kept (a drop would erase it and edit the use lists the
    // pipeline edits) and claimed until the run ends.
    owner->running = &run;
    owner->claimedByPass = scope;
    run.lockedDuringRun.push_back(std::move(owner));
  }
  if (links.rootUsedFromOutside)
    return PassLinks::UsedFromOutside;
  return shared ? PassLinks::SharedWithAnotherPass : PassLinks::Kept;
}

//===----------------------------------------------------------------------===//
// RunAnchor
//===----------------------------------------------------------------------===//

RunAnchor::RunAnchor(Operation *op, std::string user)
    : op(op), user(std::move(user)), previous(innermostAnchor) {
  innermostAnchor = this;
}

RunAnchor::~RunAnchor() { innermostAnchor = previous; }

void mlir::tracking::python::checkNotRunAnchor(Operation *op,
                                               const char *action) {
  for (const RunAnchor *anchor = innermostAnchor; anchor;
       anchor = anchor->previous)
    if (op->isAncestor(anchor->op))
      throw IRInUseException(std::string("cannot ") + action + " '" +
                             op->getName().getStringRef().str() +
                             "': " + (op == anchor->op ? "it is" : "it holds") +
                             " the op " + anchor->user +
                             " runs on, which still uses it after the Python "
                             "code returns");
}

void mlir::tracking::python::checkNotRunAnchor(Block *block,
                                               const char *action) {
  for (const RunAnchor *anchor = innermostAnchor; anchor;
       anchor = anchor->previous)
    if (block->findAncestorOpInBlock(*anchor->op))
      throw IRInUseException(std::string("cannot ") + action +
                             " this block: it holds the op " + anchor->user +
                             " runs on, which still uses it after the Python "
                             "code returns");
}

//===----------------------------------------------------------------------===//
// DriverRunLock
//===----------------------------------------------------------------------===//

DriverRunLock::DriverRunLock(PyOperation &target, const char *driver,
                             const char *kind) {
  std::shared_ptr<RootOwner> owner = target.getResolvedOwner();
  // Inside a Python pass of the pipeline that runs on this IR: the pass
  // owns its op, and the pipeline's lock already keeps other threads out.
  if (owner->running && owner->running == allowedRun &&
      !owner->running->driver) {
    checkNoHandlerDelivery(target.getContext(),
                           std::string("run '") + driver + "'");
    op = target.get();
    // No lock of its own, but a pin (a walk, a listing in the pass) holds
    // the IR as it does against a lock.
    for (IRPin *pin : target.getContext().pins)
      if (pin->coversChangeAt(owner.get(), op))
        throw IRInUseException(std::string("cannot run '") + driver +
                               "': the IR is in use by " + pin->getUser() +
                               " (a walk callback or another thread is "
                               "reading it); run it after that returns");
    // The pass may have left its IR invalid: MLIR's drivers and transforms
    // assume valid IR (a folder reads a missing attribute).
    verification.emplace(target, op, driver);
  } else {
    lock.emplace(target, driver, /*driver=*/true, kind);
    access.emplace(lock->getRun());
    op = lock->getOperation();
    verification.emplace(target, op, driver);
  }
  anchor.emplace(op, std::string("the ") + kind + " '" + driver + "'");
}

//===----------------------------------------------------------------------===//
// InputVerification
//===----------------------------------------------------------------------===//

bool mlir::tracking::python::waitsOnPoolWithoutGIL(
    const PyMlirContext &context) {
  // Also a run of another context on the same pool: waiting for it with
  // the GIL deadlocked (adversarial pass 62).
  return context.poolMayWaitForGIL();
}

void mlir::tracking::python::verifyBeforeWriting(PyOperation &operation,
                                                 const char *user,
                                                 const std::string &message) {
  Operation *op = operation.get();
  std::shared_ptr<RootOwner> owner = operation.getResolvedOwner();
  if (owner->verified && owner->getRoot() == op &&
      !operation.getContext().hadCapsuleAccess())
    return;
  DiagnosticCapture verification(op->getContext());
  LogicalResult verified = failure();
  readWithoutGILIfPoolWaits(operation, user, [&] { verified = verifyIR(op); });
  if (failed(verified))
    verification.raise(message);
}

InputVerification::InputVerification(PyOperation &target, Operation *op,
                                     const char *user)
    : owner(target.getResolvedOwner()), onRoot(owner->getRoot() == op) {
  PyMlirContext &context = target.getContext();
  // C++ code that got this context through a capsule may change any IR
  // without telling us: always verify then.
  if (owner->verified && !context.hadCapsuleAccess())
    return;
  ++context.numVerifications;
  DiagnosticCapture capture(op->getContext());
  LogicalResult verified = failure();
  if (waitsOnPoolWithoutGIL(context)) {
    // The run's lock keeps other threads away from the IR.
    ReleaseGilOrPark release;
    verified = verifyIR(op);
  } else {
    verified = verifyIR(op);
  }
  if (failed(verified))
    capture.raise(std::string(user) +
                  ": the IR does not verify (passes, patterns and transforms "
                  "assume valid IR)");
  if (onRoot)
    owner->verified = true;
}

InputVerification::~InputVerification() {
  if (!done)
    RootOwner::resolve(owner)->verified = false;
}

void InputVerification::succeeded(bool outputVerified, bool mayMakeInvalidIR) {
  done = true;
  std::shared_ptr<RootOwner> current = RootOwner::resolve(owner);
  if (!onRoot || current != owner || (mayMakeInvalidIR && !outputVerified))
    current->verified = false;
  else if (outputVerified)
    current->verified = true;
}
