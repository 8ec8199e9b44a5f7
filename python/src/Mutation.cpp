//===- Mutation.cpp - IR changes made from Python -------------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "Mutation.h"
#include "RegistryNotifier.h"
#include "RunGuard.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Tracking/TrackingListener.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <optional>

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::python;

namespace {
/// The rewriter of the Python pattern running on this thread.
thread_local PyMlirContext *activeContext = nullptr;
thread_local RewriterBase *activeRewriter = nullptr;
/// Whether the active rewriter's driver trusts the IR to verify between
/// patterns (not a dialect conversion, whose IR is legal only at its end).
thread_local bool activeDriverTrustsIR = false;
/// Whether the active rewriter's insertion point was cleared because its
/// block was erased (see noteBlockErasedForInsertionPoint).
thread_local bool activeInsertionPointErased = false;

/// An IRRewriter that reports to the registry of `context`, attributing the
/// events to "python" and to `label` (shown where a pattern name would be).
/// Inside a Python pattern, the pattern's rewriter is used instead: its
/// driver must see the change, and its listener already tracks.
struct PythonRewriter {
  /// `detached`: the change is to a detached tree the pattern's driver
  /// never saw (a dialect conversion's rewriter would replay the change on
  /// it when it commits, as if it were in its IR): no pattern's rewriter.
  PythonRewriter(PyMlirContext &context, StringRef label, bool detached = false)
      : listener(TrackingListenerConfig(), &context.getRegistry(),
                 &getInsertionPointListener()),
        own(context.get(), &listener),
        active(detached ? nullptr : getActiveRewriter(context)) {
    checkChangeAllowed(nullptr, "change IR");
    listener.setUnpatternedLabels(label, label);
    if (!active)
      attribution.emplace("python", nullptr);
  }
  RewriterBase &get() { return active ? *active : own; }
  TrackingListener listener;
  IRRewriter own;
  RewriterBase *active;
  std::optional<ScopedRewriteAttribution> attribution;
};
} // namespace

namespace {
thread_local const ChangeLimitScope *innermostLimit = nullptr;
} // namespace

ChangeLimitScope::ChangeLimitScope(Operation *matched, Operation *walkRoot,
                                   const char *user, const char *why)
    : refusesAll(!matched), user(user), why(why), previous(innermostLimit) {
  for (Operation *op = matched; op && op != walkRoot; op = op->getParentOp()) {
    if (op != matched)
      held.push_back(op);
    if (Operation *next = op->getNextNode())
      held.push_back(next);
    if (Block *block = op->getBlock())
      heldBlocks.push_back(block);
    // When the walk reached the parent it started a walk of each of its
    // regions, at their first block and op; those after this op's region
    // are still to come.
    Operation *parent = op->getParentOp();
    if (parent && parent != walkRoot)
      for (Region &region : parent->getRegions().drop_front(
               op->getParentRegion()->getRegionNumber() + 1))
        if (!region.empty())
          pendingRegions.push_back(&region);
  }
  innermostLimit = this;
}

void mlir::tracking::python::checkBlockChangeAllowed(Block *block,
                                                     const char *action) {
  const ChangeLimitScope *limit = innermostLimit;
  if (!limit || limit->refusesAll ||
      (!llvm::is_contained(limit->heldBlocks, block) &&
       !llvm::is_contained(limit->pendingRegions, block->getParent())))
    return;
  throw std::runtime_error(
      std::string("cannot ") + action + " this block from " + limit->user +
      ": the walk is iterating it (" +
      (llvm::is_contained(limit->heldBlocks, block)
           ? "it holds the matched op or one of its ancestors"
           : "it is in a region of an ancestor that the walk has yet to "
             "walk") +
      ") and would go on from wherever the block ends up");
}

ChangeLimitScope::~ChangeLimitScope() { innermostLimit = previous; }

namespace {
/// The op a modify_op_in_place callback on this thread changes, or null.
thread_local Operation *opInModification = nullptr;
} // namespace

namespace {
/// The innermost KeepAliveScope of this thread.
thread_local const KeepAliveScope *innermostKeepAlive = nullptr;

/// Whether `action` frees the op it is applied to.
bool freesOp(StringRef action) {
  return action == "erase" || action == "replace" || action == "detach";
}

[[noreturn]] void refuseToFreeKept(const std::string &what, const char *action,
                                   const std::string &user) {
  throw std::runtime_error(std::string("cannot ") + action + " " + what + ": " +
                           user +
                           " still uses it (or IR in it) after this Python "
                           "code returns");
}
} // namespace

const KeepAliveScope *mlir::tracking::python::findKeeperOf(Operation *op) {
  auto holds = [&](Operation *kept) { return kept && op->isAncestor(kept); };
  for (const KeepAliveScope *scope = innermostKeepAlive; scope;
       scope = scope->previous)
    if (llvm::any_of(scope->ops, holds) ||
        llvm::any_of(scope->blocks,
                     [&](Block *block) { return holds(block->getParentOp()); }))
      return scope;
  return nullptr;
}

void mlir::tracking::python::checkKeptStaysInTree(Operation *op) {
  if (const KeepAliveScope *scope = findKeeperOf(op))
    throw std::runtime_error(
        "cannot move '" + op->getName().getStringRef().str() +
        "' into other IR: " + scope->user +
        " still uses it (or IR in it) after this Python code returns, and "
        "the other IR may be freed before");
}

KeepAliveScope::KeepAliveScope(std::string user)
    : user(std::move(user)), previous(innermostKeepAlive) {
  innermostKeepAlive = this;
}

KeepAliveScope::~KeepAliveScope() { innermostKeepAlive = previous; }

void KeepAliveScope::keep(Value value) {
  if (Operation *definer = value.getDefiningOp()) {
    keep(definer);
    return;
  }
  arguments.push_back(value);
  keep(cast<BlockArgument>(value).getOwner());
}

void mlir::tracking::python::checkBlockNotKept(Block *block,
                                               const char *action) {
  for (const KeepAliveScope *scope = innermostKeepAlive; scope;
       scope = scope->previous)
    if (llvm::is_contained(scope->blocks, block))
      refuseToFreeKept("this block", action, scope->user);
}

void mlir::tracking::python::checkArgumentNotKept(Value argument,
                                                  const char *action) {
  for (const KeepAliveScope *scope = innermostKeepAlive; scope;
       scope = scope->previous)
    if (llvm::is_contained(scope->arguments, argument))
      refuseToFreeKept("this block argument", action, scope->user);
}

void mlir::tracking::python::checkChangeAllowed(Operation *op,
                                                const char *action) {
  if (op && freesOp(action))
    if (const KeepAliveScope *scope = findKeeperOf(op))
      refuseToFreeKept("'" + op->getName().getStringRef().str() + "'", action,
                       scope->user);
  // The rewriter finalizes, and we check, that op after the callback: it
  // must still be there.
  if (op && opInModification && op->isAncestor(opInModification))
    throw std::runtime_error(
        std::string("cannot ") + action + " '" +
        op->getName().getStringRef().str() +
        "' inside modify_op_in_place of it (or of an op in it)");
  const ChangeLimitScope *limit = innermostLimit;
  if (!limit || (!limit->refusesAll &&
                 (!op || (!llvm::is_contained(limit->held, op) &&
                          !llvm::is_contained(limit->pendingRegions,
                                              op->getParentRegion())))))
    return;
  if (limit->refusesAll)
    throw std::runtime_error(std::string("cannot ") + action + " from " +
                             limit->user + ": it may not change IR (" +
                             limit->why + ")");
  throw std::runtime_error(
      std::string("cannot ") + action + " '" +
      op->getName().getStringRef().str() + "' from " + limit->user +
      ": the walk holds it (an ancestor of the matched op, the op it visits "
      "after the matched op or after one of its ancestors, or an op of a "
      "region of an ancestor that it has yet to walk)");
}

void mlir::tracking::python::checkRunAllowedHere(PyMlirContext &context,
                                                 const char *run) {
  if (getActiveRewriter(context))
    throw std::runtime_error(std::string("cannot run ") + run +
                             " from inside a rewrite pattern (or a PDL "
                             "function of one); use the PatternRewriter");
  checkChangeAllowed(nullptr, (std::string("run ") + run).c_str());
}

OpModificationScope::OpModificationScope(Operation *op)
    : previous(std::exchange(opInModification, op)) {}

OpModificationScope::~OpModificationScope() { opInModification = previous; }

namespace {
/// Whether the driver of the pattern running in `context` trusts the IR to
/// verify between patterns (see checkInvariantsInPattern).
bool patternTrustsIR(PyMlirContext &context) {
  return getActiveRewriter(context) && activeDriverTrustsIR;
}

/// Verifies `op` (a registered op; others pass): its invariants and, with
/// `regions`, those of its regions. The errors go to `errors`.
bool verifiesForPatterns(Operation *op, bool regions,
                         std::vector<DiagnosticRecord> &errors) {
  std::optional<RegisteredOperationName> info = op->getRegisteredInfo();
  if (!info)
    return true;
  DiagnosticCapture capture(op->getContext());
  if (succeeded(verifyOpInvariants(op)) &&
      (!regions || succeeded(info->verifyRegionInvariants(op))))
    return true;
  errors = capture.take();
  return false;
}

[[noreturn]] void raiseLeftInvalid(const std::string &action, Operation *op,
                                   std::vector<DiagnosticRecord> errors) {
  throw MLIRErrorException{
      action + " inside a rewrite pattern would leave '" +
          op->getName().getStringRef().str() +
          "' invalid, and the driver's C++ patterns trust the IR to verify; "
          "nothing was changed",
      std::move(errors)};
}

} // namespace

namespace {
/// Whether `a` comes before `b`, both in one block. MLIR's isBeforeInBlock
/// renumbers the whole block when its order went stale, which Python code
/// that changes a block between checks (a pattern inlining a region per op)
/// made quadratic: a def and its use are mostly near each other, so look
/// around `a` first, a few steps each way.
bool isBeforeNearby(Operation *a, Operation *b) {
  constexpr unsigned kSteps = 32;
  Operation *next = a->getNextNode(), *prev = a->getPrevNode();
  for (unsigned i = 0; i < kSteps && (next || prev); ++i) {
    if (next == b)
      return true;
    if (prev == b)
      return false;
    next = next ? next->getNextNode() : nullptr;
    prev = prev ? prev->getPrevNode() : nullptr;
  }
  return a->isBeforeInBlock(b);
}
} // namespace

bool mlir::tracking::python::dominatesUse(DominanceInfo &dominance, Value value,
                                          Operation *user) {
  // A user in no block is checked when it is inserted; MLIR's dominance
  // reads the block of both.
  if (!user->getBlock())
    return true;
  Operation *definer = value.getDefiningOp();
  if (definer && !definer->getBlock())
    return false;
  // What properlyDominates decides for a use in the definer's block.
  if (definer && definer != user && definer->getBlock() == user->getBlock())
    return !dominance.hasSSADominance(user->getBlock()) ||
           isBeforeNearby(definer, user);
  return dominance.properlyDominates(value, user);
}

namespace {
/// The first use in or of `op` that its value no longer dominates: an
/// operand of `op` or of an op in it defined outside `op`, or a use of a
/// result of `op`. Null if there is none.
OpOperand *findUseNotDominated(Operation *op) {
  DominanceInfo dominance;
  OpOperand *found = nullptr;
  op->walk([&](Operation *nested) {
    for (OpOperand &operand : nested->getOpOperands()) {
      Operation *holder = getHolderOf(operand.get());
      if ((nested == op || !holder || !op->isAncestor(holder)) &&
          !dominatesUse(dominance, operand.get(), nested)) {
        found = &operand;
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  if (found)
    return found;
  for (Value result : op->getResults())
    for (OpOperand &use : result.getUses())
      if (!dominatesUse(dominance, result, use.getOwner()))
        return &use;
  return nullptr;
}

/// The op the last move within a block put in place (compared, never
/// read: it may be gone). Changed with the GIL.
const Operation *lastMovedWithinBlock = nullptr;

/// For a move of `op` within its block to before `before`, the first use
/// the move would leave undominated, found without moving it. From a place
/// where its uses were dominated (each change inside a pattern is checked),
/// a move within the block can break two things: a value of an op of the
/// block that `op` (or an op in it) uses must still be defined before the
/// new place, and an op of the block that uses a result of `op` (or holds
/// such a use) must still come after it. Each is one order query between
/// two ops that stay where they are, which MLIR answers from its numbering
/// of the block (findUseNotDominated's trial move and move back made MLIR
/// renumber the whole block at each move: quadratic in a pattern that
/// hoists many ops). Not for ops with successors (checked at the block's
/// end).
OpOperand *findUseBrokenByMoveInBlock(Operation *op, Block::iterator before) {
  Block *block = op->getBlock();
  DominanceInfo dominance;
  if (!dominance.hasSSADominance(block))
    return nullptr;
  // The new place lies between `prev` and `next` (either null at an end of
  // the block; neither is `op`, which is not already there).
  Operation *next = before == block->end() ? nullptr : &*before;
  Operation *prev = next ? next->getPrevNode() : &block->back();
  // Whether `other`, an op of the block other than `op`, comes before the
  // new place, asked of one of its neighbours. Not of the op the previous
  // move put there, if that is one: MLIR numbers a moved op only when
  // asked, from its neighbours, and ops put at one place one after another
  // use up the numbers between them, which makes MLIR renumber the whole
  // block every two or three moves (a pattern sinking a chain of ops to one
  // place). And looked for near `other` first: a pattern that moves ops to
  // one place asks about the ops it put there before.
  bool byNext = next && (!prev || next != lastMovedWithinBlock);
  auto isBeforeNewPlace = [&](Operation *other) {
    if (byNext)
      return other != next && isBeforeNearby(other, next);
    return prev && (other == prev || isBeforeNearby(other, prev));
  };
  OpOperand *found = nullptr;
  op->walk([&](Operation *nested) {
    for (OpOperand &operand : nested->getOpOperands()) {
      Operation *definer = operand.get().getDefiningOp();
      if (definer && definer->getBlock() == block && definer != op &&
          !isBeforeNewPlace(definer)) {
        found = &operand;
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  if (found)
    return found;
  for (OpOperand &use : op->getUses()) {
    Operation *user = block->findAncestorOpInBlock(*use.getOwner());
    // A use in `op` itself is never dominated, wherever `op` goes.
    if (user == op || (user && isBeforeNewPlace(user)))
      return &use;
  }
  return nullptr;
}

/// RewriterBase::moveOpBefore within the op's block, without the splice that
/// makes MLIR renumber the whole block at its next order query: the op is
/// taken out and put back, which leaves the numbering of the other ops
/// valid (MLIR numbers the op from its neighbours when asked). The same
/// notification as RewriterBase::moveOpBefore.
void moveInBlockKeepingOrder(RewriterBase &rewriter, Operation *op,
                             Block::iterator before) {
  Block *block = op->getBlock();
  OpBuilder::InsertPoint previous(block, std::next(op->getIterator()));
  op->remove();
  block->getOperations().insert(before, op);
  lastMovedWithinBlock = op;
  if (OpBuilder::Listener *listener = rewriter.getListener())
    listener->notifyOperationInserted(op, previous);
}

/// Whether `other` (may be null) branches to the same blocks as `op`.
bool hasSameSuccessors(Operation *op, Operation *other) {
  if (!other)
    return false;
  llvm::SmallPtrSet<Block *, 4> mine(op->getSuccessors().begin(),
                                     op->getSuccessors().end());
  llvm::SmallPtrSet<Block *, 4> theirs(other->getSuccessors().begin(),
                                       other->getSuccessors().end());
  return mine == theirs;
}

/// The first use in `region` (its nested regions included) that its value
/// does not dominate, or null: a change of the region's control flow (a
/// new branch, a successor set, a block moved in or out) can open a path
/// around a definition, and region simplification then erases the block it
/// is in and drops the use. Such a change keeps the order within each
/// block, and the entry block dominates the region: uses of a value of
/// their own block or of the entry block need no dominance query (which
/// builds the region's dominator tree, once per change).
/// Counted for getNumRegionDominanceWalks; changed under the GIL only.
uint64_t numRegionDominanceWalks = 0;

OpOperand *findUseNotDominatedIn(Region &region) {
  ++numRegionDominanceWalks;
  DominanceInfo dominance;
  OpOperand *found = nullptr;
  Block *entry = region.empty() ? nullptr : &region.front();
  region.walk<WalkOrder::PreOrder>([&](Operation *op) {
    // Nothing defined outside an isolated op reaches into it.
    for (OpOperand &operand : op->getOpOperands()) {
      Block *definedIn = operand.get().getParentBlock();
      if (definedIn && (definedIn == op->getBlock() || definedIn == entry))
        continue;
      if (!dominatesUse(dominance, operand.get(), op)) {
        found = &operand;
        return WalkResult::interrupt();
      }
    }
    return op->hasTrait<OpTrait::IsIsolatedFromAbove>() ? WalkResult::skip()
                                                        : WalkResult::advance();
  });
  return found;
}

[[noreturn]] void raiseNotDominated(const std::string &action, OpOperand *use) {
  throw MLIRErrorException{
      action + " inside a rewrite pattern would leave operand #" +
          std::to_string(use->getOperandNumber()) + " of '" +
          use->getOwner()->getName().getStringRef().str() +
          "' a value that does not dominate it (its own result, one defined "
          "after it, or one of a block it is no longer in), and the driver's "
          "C++ patterns trust the IR to verify; nothing was changed",
      {}};
}
} // namespace

uint64_t mlir::tracking::python::getNumRegionDominanceWalks() {
  return numRegionDominanceWalks;
}

void mlir::tracking::python::checkInvariantsInPattern(
    PyMlirContext &context, Operation *op, const char *action,
    llvm::function_ref<void()> undo) {
  if (!patternTrustsIR(context) || op == opInModification)
    return;
  std::vector<DiagnosticRecord> errors;
  if (verifiesForPatterns(op, /*regions=*/false, errors))
    return;
  undo();
  raiseLeftInvalid(action, op, std::move(errors));
}

void mlir::tracking::python::checkBlockArgumentsInPattern(
    PyMlirContext &context, Block *block, const char *action,
    llvm::function_ref<void()> undo) {
  if (!patternTrustsIR(context))
    return;
  // Each branch to `block` once (a `cf.cond_br` may target it twice).
  llvm::SmallPtrSet<Operation *, 4> seen;
  std::vector<DiagnosticRecord> errors;
  for (BlockOperand &use : block->getUses()) {
    Operation *branch = use.getOwner();
    if (seen.insert(branch).second &&
        !verifiesForPatterns(branch, /*regions=*/false, errors)) {
      undo();
      raiseLeftInvalid(action, branch, std::move(errors));
    }
  }
  // Its op defines an entry block's arguments, often in a region verifier
  // (`scf.for`'s iteration arguments).
  Operation *parent = block->getParentOp();
  if (!parent || !block->isEntryBlock() ||
      verifiesForPatterns(parent, /*regions=*/true, errors))
    return;
  undo();
  raiseLeftInvalid(action, parent, std::move(errors));
}

void mlir::tracking::python::checkValueTypeInPattern(
    PyMlirContext &context, Value value, const char *action,
    llvm::function_ref<void()> undo) {
  if (!patternTrustsIR(context))
    return;
  if (auto argument = dyn_cast<BlockArgument>(value))
    checkBlockArgumentsInPattern(context, argument.getOwner(), action, undo);
  else
    checkInvariantsInPattern(context, value.getDefiningOp(), action, undo);
  // Each user once; one under modification is checked as a whole later.
  llvm::SmallPtrSet<Operation *, 4> seen;
  std::vector<DiagnosticRecord> errors;
  for (Operation *user : value.getUsers())
    if (user != opInModification && seen.insert(user).second &&
        !verifiesForPatterns(user, /*regions=*/false, errors)) {
      undo();
      raiseLeftInvalid(action, user, std::move(errors));
    }
}

bool mlir::tracking::python::regionNeedsBlockInPattern(
    PyMlirContext &context, Block *block,
    std::vector<DiagnosticRecord> &errors) {
  Region *region = block->getParent();
  Operation *parent = block->getParentOp();
  if (!patternTrustsIR(context) || !parent || !region->hasOneBlock())
    return false;
  // Ask the op's verifier whether the region may be empty (an `scf.if`
  // without results may lose its else block): unlink the block for the
  // check, without telling anyone, and put it back. The verifier mostly
  // says no, and MLIR then prints the op into a note, numbering the values
  // of the whole function around it: an inlining pattern run on every op
  // of a function was quadratic. The note (the op without that block) is
  // left out while no other thread may emit a diagnostic (the flag is the
  // context's).
  MLIRContext *mlirContext = parent->getContext();
  bool quiet =
      mlirContext->shouldPrintOpOnDiagnostic() && mayChangeContext(context);
  if (quiet)
    mlirContext->printOpOnDiagnostic(false);
  region->getBlocks().remove(block);
  llvm::scope_exit restore([&] {
    region->getBlocks().push_back(block);
    if (quiet)
      mlirContext->printOpOnDiagnostic(true);
  });
  return !verifiesForPatterns(parent, /*regions=*/true, errors);
}

void mlir::tracking::python::checkRegionKeepsBlockInPattern(
    PyMlirContext &context, Block *block, const char *action) {
  std::vector<DiagnosticRecord> errors;
  if (!regionNeedsBlockInPattern(context, block, errors))
    return;
  throw MLIRErrorException{
      std::string(action) + " inside a rewrite pattern would leave region #" +
          std::to_string(block->getParent()->getRegionNumber()) + " of '" +
          block->getParentOp()->getName().getStringRef().str() +
          "' without a block, which it needs, and the driver's C++ patterns "
          "trust the IR to verify; nothing was changed (inline_block_before "
          "takes the body out of an op that the pattern then replaces)",
      std::move(errors)};
}

void mlir::tracking::python::checkNewBlockInPattern(PyMlirContext &context,
                                                    Region *region) {
  Operation *parent = region->getParentOp();
  if (!patternTrustsIR(context) || !parent || region->empty() ||
      !parent->hasTrait<OpTrait::SingleBlock>())
    return;
  throw py::value_error(
      "cannot add a block to region #" +
      std::to_string(region->getRegionNumber()) + " of '" +
      parent->getName().getStringRef().str() +
      "' inside a rewrite pattern: the op holds a single block there, which "
      "the driver's C++ patterns read");
}

void mlir::tracking::python::checkNewEntryBlockInPattern(PyMlirContext &context,
                                                         Block *block) {
  if (!patternTrustsIR(context) || !block->isEntryBlock())
    return;
  Operation *parent = block->getParentOp();
  // An op the pattern made is being built (its body comes next): it is
  // checked when the pattern returns.
  if (isMadeInPatternCall(context, parent))
    return;
  std::vector<DiagnosticRecord> errors;
  if (verifiesForPatterns(parent, /*regions=*/true, errors))
    return;
  // Added raw: the driver never saw it.
  block->erase();
  raiseLeftInvalid("adding an entry block", parent, std::move(errors));
}

void mlir::tracking::python::checkNewBlockWhenPatternReturns(
    PyMlirContext &context, py::object block) {
  if (patternTrustsIR(context))
    noteNewBlockInPattern(context, std::move(block));
}

void mlir::tracking::python::checkPlacementInPattern(PyMlirContext &context,
                                                     Operation *op,
                                                     Block *block,
                                                     Block::iterator before) {
  if (!patternTrustsIR(context))
    return;
  if (op->getBlock())
    checkTerminatorStaysInPattern(context, op, "move");
  bool atEnd = before == block->end();
  bool afterTerminator = atEnd && !block->empty() &&
                         block->back().hasTrait<OpTrait::IsTerminator>();
  // A replacement goes right before the terminator it replaces (which is
  // erased next; see checkTerminatorStaysInPattern).
  bool replacesTerminator = !atEnd && &*before == &block->back() &&
                            before->hasTrait<OpTrait::IsTerminator>();
  bool terminatorInside =
      !atEnd && !replacesTerminator && op->hasTrait<OpTrait::IsTerminator>();
  if (!afterTerminator && !terminatorInside)
    return;
  throw py::value_error(
      "cannot place '" + op->getName().getStringRef().str() + "' " +
      (afterTerminator ? "after the terminator of a block"
                       : "before other ops, as a terminator") +
      " inside a rewrite pattern: the driver's C++ patterns trust every "
      "block to end in its terminator");
}

void mlir::tracking::python::checkTerminatorStaysInPattern(
    PyMlirContext &context, Operation *op, const char *action) {
  Block *block = op->getBlock();
  if (!patternTrustsIR(context) || !block ||
      !op->hasTrait<OpTrait::IsTerminator>() || &block->back() != op)
    return;
  // Its replacement, made before it, ends the block once it is gone, and
  // takes over the block's control flow: checked as the IR will be then
  // (adversarial pass 60: an operand set after the replacement was placed,
  // valid only while `op` ended the block, lost its dominance unchecked).
  if (Operation *previous = op->getPrevNode();
      previous && previous->hasTrait<OpTrait::IsTerminator>()) {
    if (hasSameSuccessors(previous, op))
      return;
    block->getOperations().remove(op);
    OpOperand *use = findUseNotDominatedIn(*block->getParent());
    block->getOperations().push_back(op);
    if (use)
      raiseNotDominated(
          std::string(action) == "erase"
              ? "erasing '" + op->getName().getStringRef().str() + "'"
              : "moving '" + op->getName().getStringRef().str() + "'",
          use);
    return;
  }
  throw py::value_error(
      std::string("cannot ") + action + " '" +
      op->getName().getStringRef().str() +
      "', the terminator of its block, inside a rewrite pattern: the "
      "driver's C++ patterns trust every block to end in one (create its "
      "replacement before it first, or use replace_op)");
}

ActiveRewriterScope::ActiveRewriterScope(PyMlirContext &context,
                                         PatternRewriter &rewriter)
    : previousContext(activeContext), previousRewriter(activeRewriter),
      previousTrustsIR(activeDriverTrustsIR),
      previousInsertionPointErased(activeInsertionPointErased) {
  activeContext = &context;
  activeRewriter = &rewriter;
  activeDriverTrustsIR = !rewriter.canRecoverFromRewriteFailure();
  activeInsertionPointErased = false;
}

ActiveRewriterScope::~ActiveRewriterScope() {
  activeContext = previousContext;
  activeRewriter = previousRewriter;
  activeDriverTrustsIR = previousTrustsIR;
  activeInsertionPointErased = previousInsertionPointErased;
}

RewriterBase *
mlir::tracking::python::getActiveRewriter(PyMlirContext &context) {
  return activeContext == &context ? activeRewriter : nullptr;
}

void mlir::tracking::python::noteBlockErasedForInsertionPoint(Block *block) {
  // (Compared, never read: another context's rewriter cannot point into a
  // live block of this one.)
  if (!activeRewriter || activeRewriter->getInsertionBlock() != block)
    return;
  activeRewriter->clearInsertionPoint();
  activeInsertionPointErased = true;
}

void mlir::tracking::python::noteOperationErasedForInsertionPoint(
    Operation *op) {
  if (!activeRewriter)
    return;
  Block *block = activeRewriter->getInsertionBlock();
  if (block && op->getBlock() == block &&
      activeRewriter->getInsertionPoint() == op->getIterator())
    activeRewriter->setInsertionPoint(block, std::next(op->getIterator()));
}

namespace {
/// See getInsertionPointListener.
struct InsertionPointListener : RewriterBase::Listener {
  void notifyBlockErased(Block *block) override {
    noteBlockErasedForInsertionPoint(block);
  }
  void notifyOperationErased(Operation *op) override {
    noteOperationErasedForInsertionPoint(op);
  }
};
} // namespace

RewriterBase::Listener &mlir::tracking::python::getInsertionPointListener() {
  static InsertionPointListener listener;
  return listener;
}

bool mlir::tracking::python::isInsertionPointErased(RewriterBase &rewriter) {
  return activeRewriter == &rewriter && activeInsertionPointErased &&
         !rewriter.getInsertionBlock();
}

void mlir::tracking::python::forgetErasedInsertionPoint() {
  activeInsertionPointErased = false;
}

void mlir::tracking::python::noteValueChanged(PyMlirContext &context,
                                              Value value) {
  if (Operation *holder = getHolderOf(value))
    context.noteChanged(holder);
}

SmallVector<SmallVector<Value>> mlir::tracking::python::operandsTargetsTake(
    BranchOpInterface branch, llvm::function_ref<Value(Type)> placeholder) {
  SmallVector<SmallVector<Value>> matched;
  for (unsigned i = 0, e = branch->getNumSuccessors(); i < e; ++i) {
    Block *target = branch->getSuccessor(i);
    SuccessorOperands operands = branch.getSuccessorOperands(i);
    unsigned produced = operands.getProducedOperandCount();
    OperandRange forwarded = operands.getForwardedOperands();
    SmallVector<Value> &values = matched.emplace_back();
    for (unsigned arg = produced; arg < target->getNumArguments(); ++arg) {
      Type type = target->getArgument(arg).getType();
      unsigned index = arg - produced;
      values.push_back(index < forwarded.size() &&
                               forwarded[index].getType() == type
                           ? forwarded[index]
                           : placeholder(type));
    }
  }
  return matched;
}

void mlir::tracking::python::forwardToTargets(
    BranchOpInterface branch, ArrayRef<SmallVector<Value>> operands) {
  for (auto [i, values] : llvm::enumerate(operands))
    branch.getSuccessorOperands(i).getMutableForwardedOperands().assign(values);
}

bool mlir::tracking::python::onlyOperandsMismatchTargets(
    const std::vector<DiagnosticRecord> &errors) {
  // MLIR's BranchOpInterface verifier (ControlFlowInterfaces.cpp), which
  // runs after the op's own invariants (its operand segments) held.
  return !errors.empty() &&
         llvm::all_of(errors, [](const DiagnosticRecord &error) {
           StringRef message = error.message;
           return (message.starts_with("branch has ") &&
                   message.contains(" operands for successor #")) ||
                  message.starts_with("type mismatch for bb argument #");
         });
}

namespace {
/// Raises ValueError unless `successor` may be successor #`index` of `op`
/// in `region` (`action`: what Python is doing): a block of the same
/// region, not its entry block. No later step of a pattern can fix either
/// (block merging and branch folding crashed on both).
void checkSuccessorInPattern(const char *action, Operation *op, size_t index,
                             Block *successor, Region *region) {
  if (successor->getParent() == region && !successor->isEntryBlock())
    return;
  throw py::value_error(std::string("cannot ") + action + " '" +
                        op->getName().getStringRef().str() +
                        "' inside a rewrite pattern: successor #" +
                        std::to_string(index) + " is " +
                        (successor->getParent() != region
                             ? "a block of another region"
                             : "the entry block of its region") +
                        ", which no branch may target");
}

/// Whether the new branch `branch`, in its block, verifies once it forwards
/// what its targets take: it may pass operands that its targets take only
/// once the pattern adds their arguments (checked when the pattern
/// returns), but the rest must hold now. Checked on a copy at the end of
/// its block (unseen by the driver) with placeholders for the operands
/// that do not match yet. The errors go to `errors`.
bool verifiesOnceTargetsMatch(BranchOpInterface branch,
                              std::vector<DiagnosticRecord> &errors) {
  if (verifiesForPatterns(branch, /*regions=*/false, errors))
    return true;
  // Anything else makes its operands unsafe to read (segments past them).
  if (!onlyOperandsMismatchTargets(errors))
    return false;
  OpBuilder builder(branch->getContext());
  SmallVector<Operation *> placeholders;
  SmallVector<SmallVector<Value>> matched =
      operandsTargetsTake(branch, [&](Type type) {
        Operation *cast = UnrealizedConversionCastOp::create(
            builder, branch->getLoc(), type, ValueRange());
        placeholders.push_back(cast);
        return cast->getResult(0);
      });
  bool matches = placeholders.empty() &&
                 llvm::all_of(llvm::enumerate(matched), [&](auto entry) {
                   return branch.getSuccessorOperands(entry.index())
                              .getForwardedOperands()
                              .size() == entry.value().size();
                 });
  bool valid = false;
  if (!matches) {
    Operation *copy = branch->clone();
    forwardToTargets(cast<BranchOpInterface>(copy), matched);
    branch->getBlock()->push_back(copy);
    std::vector<DiagnosticRecord> copyErrors;
    valid = verifiesForPatterns(copy, /*regions=*/false, copyErrors);
    copy->erase();
    if (!valid)
      errors = std::move(copyErrors);
  }
  for (Operation *placeholder : placeholders)
    placeholder->erase();
  return valid;
}

/// Inside a rewrite pattern, raises MLIRError unless the new op `op`,
/// placed in `block` before `before`, verifies (its invariants; its regions
/// may be filled after): the driver's C++ patterns and folders read it
/// next and trust it (a `tensor.empty` with an `i32` result crashed
/// `tensor.dim`'s canonicalization). It is placed there only for the check,
/// unseen by the driver: its verifier may read its parent. A terminator
/// is checked at the end of the block (a replacement goes before the
/// terminator it replaces, which is erased next). A branch is checked as
/// if it forwarded what its targets take: the pattern may give its targets
/// the arguments it passes next (adding a block argument checks the
/// branches to the block), and the rest is checked when the pattern
/// returns (checkNewOpWhenPatternReturns).
void checkNewOpInPattern(PyMlirContext &context, Operation *op, Block *block,
                         Block::iterator before) {
  if (!patternTrustsIR(context))
    return;
  if (Operation *malformed = findUnverifiableOp(op))
    throw py::value_error(
        "cannot insert '" + op->getName().getStringRef().str() +
        "' inside a rewrite pattern: " +
        (malformed == op ? std::string("its")
                         : "the '" + malformed->getName().getStringRef().str() +
                               "' in it has") +
        " " + describeUnverifiableOp(malformed));
  // What no later step of the pattern can fix (block merging and branch
  // folding crashed on both).
  for (auto [index, successor] : llvm::enumerate(op->getSuccessors()))
    checkSuccessorInPattern("insert", op, index, successor, block->getParent());
  block->getOperations().insert(
      op->hasTrait<OpTrait::IsTerminator>() ? block->end() : before, op);
  // And the ops in it, which the driver visits next too (built before). An
  // op whose regions the pattern fills next (upstream's builders insert
  // `scf.for` before adding its body) is checked when the pattern returns.
  bool regionsToFill = llvm::any_of(
      op->getRegions(), [](Region &region) { return region.empty(); });
  std::vector<DiagnosticRecord> errors;
  Operation *invalid = nullptr;
  op->walk([&](Operation *nested) {
    if (nested == op && regionsToFill)
      return WalkResult::advance();
    auto branch = dyn_cast<BranchOpInterface>(nested);
    if (branch ? verifiesOnceTargetsMatch(branch, errors)
               : verifiesForPatterns(nested, /*regions=*/false, errors))
      return WalkResult::advance();
    invalid = nested;
    return WalkResult::interrupt();
  });
  bool valid = !invalid;
  OpOperand *notDominated = valid ? findUseNotDominated(op) : nullptr;
  // A branch changes the region's control flow (it replaces the
  // terminator it is placed before), unless it goes where that one goes.
  if (valid && !notDominated && op->getNumSuccessors() &&
      !hasSameSuccessors(op, before == block->end() ? nullptr : &*before))
    notDominated = findUseNotDominatedIn(*block->getParent());
  op->remove();
  if (notDominated)
    raiseNotDominated("inserting '" + op->getName().getStringRef().str() + "'",
                      notDominated);
  if (valid)
    return;
  throw MLIRErrorException{
      "inserting '" + op->getName().getStringRef().str() + "' inside a " +
          "rewrite pattern: " +
          (invalid == op
               ? std::string("it")
               : "'" + invalid->getName().getStringRef().str() + "' in it") +
          " does not verify, and the driver's "
          "C++ patterns trust the IR to verify; it was not inserted (its "
          "operands, results and attributes must be complete when it is "
          "inserted; its regions may be filled after)",
      std::move(errors)};
}
/// Whether a value defined in `home` may be used in `block`: `home` holds
/// `block`, with no op isolated from above between them.
bool isVisibleIn(Region *home, Block *block) {
  for (Region *region = block->getParent(); region;) {
    if (region == home)
      return true;
    Operation *parent = region->getParentOp();
    if (!parent || parent->hasTrait<OpTrait::IsIsolatedFromAbove>())
      return false;
    region = parent->getParentRegion();
  }
  return false;
}

/// Inside a dialect conversion pattern, raises ValueError if `user`, in
/// `block` once the change (`action`) is made, would use `value` of its own
/// tree across an op isolated from above (a value of another function): no
/// later step of the conversion makes that valid, and it would commit IR
/// that does not verify. The greedy and walk drivers refuse it by their
/// dominance check; a conversion's IR is legal only at its end, so only
/// this is checked there. Uses of other trees' IR follow the rule for new
/// ops outside the converted IR.
void checkVisibleInConversion(PyMlirContext &context, Value value,
                              Operation *user, Block *block,
                              llvm::function_ref<std::string()> action) {
  // (A value of an op the conversion erased dies when it commits.)
  checkUsableInConversion(context, value, action);
  Operation *holder = getHolderOf(value);
  if (!block || !holder || !isInConversion(context) ||
      isVisibleIn(value.getParentRegion(), block) ||
      getRootOf(holder) != getRootOf(block->getParentOp()))
    return;
  throw py::value_error(
      "cannot " + action() + " inside a conversion pattern: '" +
      user->getName().getStringRef().str() +
      "' would use a value defined outside the op isolated from above that "
      "holds it (a value of another function), and the IR would not verify");
}

/// `checkVisibleInConversion` for placing `op` in `block`: the values the
/// ops in it use, and its own uses, which stay where they are.
void checkPlacementInConversion(PyMlirContext &context, Operation *op,
                                Block *block) {
  if (!isInConversion(context))
    return;
  auto action = [&] {
    return "place '" + op->getName().getStringRef().str() + "' there";
  };
  // The conversion erases what it erased or replaced when it commits.
  if (op->getBlock())
    checkNotRemovedInConversion(context, op, "move");
  checkDestinationInConversion(context, block->getParentOp(), action);
  op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands())
      if (Operation *holder = getHolderOf(operand);
          holder && !op->isAncestor(holder))
        checkVisibleInConversion(context, operand, nested, block, action);
  });
  if (op->use_empty())
    return;
  // The uses see `op`'s results in `block`'s region once it is there.
  for (OpOperand &use : op->getUses()) {
    Operation *user = use.getOwner();
    if (!op->isAncestor(user) && user->getBlock() &&
        !isVisibleIn(block->getParent(), user->getBlock()))
      throw py::value_error(
          "cannot " + action() + " inside a conversion pattern: '" +
          user->getName().getStringRef().str() +
          "' would use its result from outside the op isolated from above "
          "that holds it (another function), and the IR would not verify");
  }
}
} // namespace

void mlir::tracking::python::placeOperation(PyOperation &operation,
                                            Block *block,
                                            Block::iterator before,
                                            StringRef label) {
  Operation *op = operation.get();
  PyMlirContext &context = operation.getContext();
  Operation *destination = block->getParentOp();
  if (!destination)
    throw py::value_error("cannot insert into a block that has no parent "
                          "operation");
  if (PyMlirContext *target = PyMlirContext::lookup(destination->getContext()))
    checkSameContext(*target, op->getContext(), "an operation");
  // Each walk up from `destination` costs its depth: take at most one.
  Operation *newRoot = context.findRootOf(destination);
  // A detached op (most often a new one) holds `destination` only if it is
  // that tree's root.
  if (op->getBlock() ? op->isAncestor(destination) : newRoot == op)
    throw py::value_error("cannot move an operation into itself");
  // Already there (placed before itself, or right before `before`).
  if ((before != block->end() && &*before == op) ||
      (op->getBlock() == block && std::next(op->getIterator()) == before))
    return;
  checkNotRunAnchor(op, "move");
  Operation *oldRoot = op->getBlock() ? getRootOf(op) : op;
  if (op->getBlock())
    checkChangeAllowed(op, "move");
  if (oldRoot != newRoot)
    checkKeptStaysInTree(op);
  checkPlacementInPattern(context, op, block, before);
  checkPlacementInConversion(context, op, block);
  context.noteChanged(operation);
  context.noteChangedTree(newRoot, destination);
  // From and into trees other than the one a driver rewrites: not through
  // its rewriter (a conversion would record the ops as its own and free
  // them when it undoes a pattern, or legalize them after Python freed
  // them).
  bool outsideDriver = isOutsideDrivenIR(context, newRoot) &&
                       (!op->getBlock() || isOutsideDrivenIR(context, oldRoot));
  if (!op->getBlock()) {
    if (!outsideDriver)
      checkInsertionInConversion(context, op);
    checkNewOpInPattern(context, op, block, before);
  }
  PythonRewriter rewriter(context, label, /*detached=*/outsideDriver);
  if (!op->getBlock()) {
    // A detached root: whoever owned it now keeps the destination alive.
    std::shared_ptr<RootOwner> oldOwner = context.getOwner(op);
    // The active pattern rewriter keeps its own insertion point.
    OpBuilder::InsertionGuard guard(rewriter.get());
    rewriter.get().setInsertionPoint(block, before);
    rewriter.get().insert(op);
    if (!outsideDriver)
      noteInsertionInConversion(context, op);
    oldOwner->forwardTo(context.getOwner(newRoot));
    if (patternTrustsIR(context) &&
        (op->getNumRegions() || isa<BranchOpInterface>(op) ||
         (op->hasTrait<OpTrait::IsTerminator>() && op->getNextNode())))
      checkNewOpWhenPatternReturns(operation);
    return;
  }
  std::shared_ptr<RootOwner> oldOwner = operation.getResolvedOwner();
  // Inside a pattern the op's values must still reach their uses at the
  // new place (region simplification dropped the uses of a block argument
  // that a moved op took out of its block: a null operand; an op moved in
  // from another tree kept using that tree's values). Checked with the op
  // there unseen by the driver, which must not queue an op that goes back
  // to another tree.
  bool withinBlock = op->getBlock() == block;
  if (patternTrustsIR(context) && withinBlock && !op->getNumSuccessors()) {
    if (OpOperand *use = findUseBrokenByMoveInBlock(op, before))
      raiseNotDominated(label.str(), use);
  } else if (patternTrustsIR(context)) {
    for (auto [index, successor] : llvm::enumerate(op->getSuccessors()))
      checkSuccessorInPattern("move", op, index, successor, block->getParent());
    Block *oldBlock = op->getBlock();
    Operation *oldNext = op->getNextNode();
    op->moveBefore(block, before);
    OpOperand *use = findUseNotDominated(op);
    // A branch moved in replaces the terminator it is placed before, as an
    // inserted one does, unless it goes where that one goes: checked at the
    // block's end, where MLIR's control flow reads it (adversarial pass 60:
    // moving a branch around a definition segfaulted after region
    // simplification).
    if (!use && op->getNumSuccessors() &&
        !hasSameSuccessors(op, before == block->end() ? nullptr : &*before)) {
      op->moveBefore(block, block->end());
      use = findUseNotDominatedIn(*block->getParent());
    }
    op->moveBefore(oldBlock,
                   oldNext ? oldNext->getIterator() : oldBlock->end());
    if (use)
      raiseNotDominated(label.str(), use);
  }
  if (withinBlock)
    moveInBlockKeepingOrder(rewriter.get(), op, before);
  else
    rewriter.get().moveOpBefore(op, block, before);
  if (oldRoot != newRoot) {
    context.rehome(op);
    context.noteTreeChanged(*oldOwner);
    propagatePins(context, oldOwner.get(), context.getOwner(newRoot));
  }
}

void mlir::tracking::python::checkNoUseOutside(Operation *op,
                                               const char *action,
                                               bool ownResults) {
  auto refuse = [&](const std::string &what, Operation *user) {
    throw py::value_error(std::string("cannot ") + action + " '" +
                          op->getName().getStringRef().str() + "': " + what +
                          " is still used by '" +
                          user->getName().getStringRef().str() +
                          "' outside it (replace or move that use first)");
  };
  auto describeIn = [](Operation *nested) {
    return "'" + nested->getName().getStringRef().str() + "'";
  };
  op->walk([&](Operation *nested) {
    if (ownResults || nested != op)
      for (OpResult result : nested->getResults())
        for (Operation *user : result.getUsers())
          if (!op->isAncestor(user))
            refuse("result #" + std::to_string(result.getResultNumber()) +
                       " of " + describeIn(nested),
                   user);
    for (Region &region : nested->getRegions())
      for (Block &block : region) {
        for (BlockArgument argument : block.getArguments())
          for (Operation *user : argument.getUsers())
            if (!op->isAncestor(user))
              refuse("block argument #" +
                         std::to_string(argument.getArgNumber()) +
                         " of a block in " + describeIn(nested),
                     user);
        for (BlockOperand &use : block.getUses())
          if (!op->isAncestor(use.getOwner()))
            refuse("a block in " + describeIn(nested) +
                       " (as a branch successor)",
                   use.getOwner());
      }
  });
}

void mlir::tracking::python::eraseDetachedTrees(PyMlirContext &context,
                                                ArrayRef<Operation *> roots,
                                                StringRef label) {
  TrackingListener listener(TrackingListenerConfig(), &context.getRegistry(),
                            &getInsertionPointListener());
  listener.setUnpatternedLabels(label, label);
  IRRewriter rewriter(context.get(), &listener);
  for (Operation *root : roots)
    root->dropAllReferences();
  for (Operation *root : roots) {
    std::shared_ptr<RootOwner> owner = context.getOwner(root);
    rewriter.eraseOp(root);
    owner->release();
  }
}

namespace {
/// How deep a tree Operation.erase erases through a rewriter. MLIR's
/// RewriterBase::eraseOp erases nested ops one by one, recursively, with
/// about 1.4 KB of stack per level: 6,000 levels overflowed the stack.
constexpr unsigned kMaxRewriterEraseDepth = 1000;

/// Whether regions nest more than `limit` levels deep under `op`.
bool nestsDeeperThan(Operation *op, unsigned limit) {
  if (op->getNumRegions() == 0)
    return false;
  unsigned depth = 0;
  return op
      ->walk([&](Operation *nested, const WalkStage &stage) {
        if (nested->getNumRegions() == 0)
          return WalkResult::advance();
        if (stage.isBeforeAllRegions() && ++depth > limit)
          return WalkResult::interrupt();
        if (stage.isAfterAllRegions())
          --depth;
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// Erases `op`, which nests too deep for a rewriter: the registry hears of
/// each nested op's erasure (innermost first, as from the rewriter), then
/// MLIR frees the tree at once, which recurses with small frames.
void eraseDeepTree(PyMlirContext &context, Operation *op) {
  tracking::detail::EventSource source;
  source.pass = "python";
  source.pattern = "Operation.erase";
  tracking::detail::RegistryNotifier notifier(context.getRegistry());
  op->walk([&](Operation *nested) {
    if (nested->getNumRegions() != 0 || notifier.mayBeTracked(nested))
      notifier.notifyOperationErased(nested, source,
                                     tracking::detail::EventReason(""));
  });
  context.getUnits().eraseNested(op, "");
  op->dropAllReferences();
  op->erase();
}
} // namespace

void mlir::tracking::python::eraseOperation(PyOperation &operation) {
  Operation *op = operation.get();
  PyMlirContext &context = operation.getContext();
  checkNotRunAnchor(op, "erase");
  checkChangeAllowed(op, "erase");
  checkTerminatorStaysInPattern(context, op, "erase");
  checkNoUseOutside(op, "erase", /*ownResults=*/true);
  checkUsesFromChange(context, op);
  checkNotRemovedInConversion(context, op, "erase");
  context.noteChanged(operation);
  std::shared_ptr<RootOwner> rootOwner;
  if (!op->getBlock())
    rootOwner = context.getOwner(op);
  // An op of other IR than the driver rewrites is erased at once, not
  // through its rewriter (a conversion would only record the erasure and
  // erase the op when it commits, after its IR may be freed).
  bool detached =
      rootOwner != nullptr || isOutsideDrivenIR(context, getRootOf(op));
  if (nestsDeeperThan(op, kMaxRewriterEraseDepth)) {
    if (!detached && getActiveRewriter(context))
      throw py::value_error(
          "cannot erase an op nesting more than " +
          std::to_string(kMaxRewriterEraseDepth) +
          " levels of regions while a rewrite pattern runs (the pattern's "
          "rewriter erases nested ops recursively)");
    eraseDeepTree(context, op);
    if (rootOwner)
      rootOwner->release();
    return;
  }
  {
    PythonRewriter rewriter(context, "Operation.erase", detached);
    rewriter.get().eraseOp(op);
    if (rewriter.active)
      noteRemovedInConversion(context, op, /*erased=*/true);
  }
  if (rootOwner)
    rootOwner->release();
}

void mlir::tracking::python::detachOperation(PyOperation &operation) {
  Operation *op = operation.get();
  PyMlirContext &context = operation.getContext();
  if (!op->getBlock())
    throw py::value_error("Detached operation has no parent.");
  checkNotRunAnchor(op, "detach");
  checkChangeAllowed(op, "detach");
  // The pattern driver could not see the op leave the IR (a rewriter has no
  // "detach"), and would keep it in its worklist.
  if (getActiveRewriter(context))
    throw py::value_error("cannot detach an operation while a rewrite "
                          "pattern runs; use the PatternRewriter to erase, "
                          "replace or move it");
  Operation *oldParent = op->getParentOp();
  Operation *oldScope =
      oldParent ? tracking::detail::RegistryNotifier::getBodyScope(oldParent)
                : nullptr;
  std::shared_ptr<RootOwner> oldOwner = operation.getResolvedOwner();
  // The new tree's owner starts unverified; the old tree lost an op.
  context.noteChanged(operation);
  op->remove();
  tracking::detail::RegistryNotifier(context.getRegistry())
      .notifyOperationMoved(op, oldScope);
  // Hold the new owner until the handles under `op` hold it.
  std::shared_ptr<RootOwner> owner = context.adoptRoot(op);
  context.rehome(op);
  context.noteTreeChanged(*oldOwner);
  propagatePins(context, oldOwner.get(), owner);
}

void mlir::tracking::python::replaceAllUsesWith(PyMlirContext &context,
                                                Value from, Value to) {
  checkSameContext(context, from.getContext(), "a value");
  checkSameContext(context, to.getContext(), "a replacement value");
  checkUseListChange(context, from);
  checkUseListChange(context, to);
  for (Operation *user : from.getUsers()) {
    // The users change too (one may be in IR a run holds).
    checkUseListChange(context, user);
    checkUseOfDrivenIRInPattern(user, getHolderOf(to),
                                "replace_all_uses_with for a use in");
    checkVisibleInConversion(context, to, user, user->getBlock(), [&] {
      return "replace_all_uses_with for a use in '" +
             user->getName().getStringRef().str() + "'";
    });
  }
  for (Operation *user : from.getUsers())
    context.noteChanged(user);
  noteValueChanged(context, to);
  SmallVector<OpOperand *> changed;
  for (OpOperand &use : from.getUses())
    changed.push_back(&use);
  PythonRewriter rewriter(context, "replace_all_uses_with");
  rewriter.get().replaceAllUsesWith(from, to);
  // Inside a pattern each user must still verify (a value of another type:
  // `vector.extract`'s folder read an `i32` as a vector), and `to` must
  // dominate it; else undone.
  if (!patternTrustsIR(context))
    return;
  auto undo = [&] {
    for (OpOperand *use : changed)
      rewriter.get().modifyOpInPlace(use->getOwner(), [&] { use->set(from); });
  };
  DominanceInfo dominance;
  llvm::SmallPtrSet<Operation *, 4> seen;
  std::vector<DiagnosticRecord> errors;
  for (OpOperand *use : changed) {
    Operation *user = use->getOwner();
    if (!dominatesUse(dominance, to, user)) {
      undo();
      raiseNotDominated("replace_all_uses_with", use);
    }
    if (user == opInModification || !seen.insert(user).second ||
        verifiesForPatterns(user, /*regions=*/false, errors))
      continue;
    undo();
    raiseLeftInvalid("replace_all_uses_with", user, std::move(errors));
  }
}

void mlir::tracking::python::setOperand(PyMlirContext &context, Operation *op,
                                        unsigned index, Value value) {
  checkSameContext(context, value.getContext(), "an operand value");
  checkUseListChange(context, value);
  Value old = op->getOperand(index);
  // Its use list loses this use.
  checkUseListChange(context, old);
  if (old == value)
    return;
  checkUseOfDrivenIRInPattern(op, getHolderOf(value), "set an operand of");
  checkVisibleInConversion(context, value, op, op->getBlock(), [&] {
    return "set an operand of '" + op->getName().getStringRef().str() + "'";
  });
  context.noteChanged(op);
  PythonRewriter rewriter(context, "set operand");
  rewriter.get().modifyOpInPlace(op, [&] { op->setOperand(index, value); });
  checkInvariantsInPattern(context, op, "setting an operand", [&] {
    rewriter.get().modifyOpInPlace(op, [&] { op->setOperand(index, old); });
  });
  DominanceInfo dominance;
  if (patternTrustsIR(context) && !dominatesUse(dominance, value, op)) {
    rewriter.get().modifyOpInPlace(op, [&] { op->setOperand(index, old); });
    raiseNotDominated("setting an operand", &op->getOpOperand(index));
  }
}

void mlir::tracking::python::moveBlock(PyMlirContext &context, Block *block,
                                       Region *region,
                                       Region::iterator before) {
  checkNotRunAnchor(block, "move");
  checkBlockChangeAllowed(block, "move");
  checkRegionKeepsBlockInPattern(context, block, "moving the block");
  checkDestinationInConversion(context, region->getParentOp(),
                               [] { return std::string("move the block"); });
  if (Operation *source = block->getParentOp())
    context.noteChanged(source);
  context.noteChanged(region->getParentOp());
  Region *source = block->getParent();
  Block *next = block->getNextNode();
  auto entryOf = [](Region *r) { return r->empty() ? nullptr : &r->front(); };
  Block *sourceEntry = entryOf(source), *destinationEntry = entryOf(region);
  // Branches between blocks stay within their region.
  if (patternTrustsIR(context) && source != region &&
      (!block->hasNoPredecessors() ||
       (!block->empty() && block->back().getNumSuccessors())))
    throw py::value_error(
        "cannot move a block to another region inside a rewrite pattern "
        "while branches " +
        std::string(block->hasNoPredecessors() ? "leave it" : "target it") +
        ": no branch may target a block of another region");
  PythonRewriter rewriter(context, "Block.append_to");
  rewriter.get().moveBlockBefore(block, region, before);
  if (patternTrustsIR(context) && source != region)
    for (Region *changed : {source, region})
      if (OpOperand *use = findUseNotDominatedIn(*changed)) {
        rewriter.get().moveBlockBefore(
            block, source, next ? next->getIterator() : source->end());
        raiseNotDominated("moving the block", use);
      }
  // A region whose entry block changed: its op defines the entry block's
  // arguments (a function's signature), and no branch may target it. The
  // driver's C++ patterns trust both (region simplification erased the
  // old entry block, unreachable now, and dropped the uses of its
  // arguments: null operands).
  if (!patternTrustsIR(context))
    return;
  for (auto [changed, entryBefore] :
       {std::pair(source, sourceEntry), std::pair(region, destinationEntry)}) {
    Block *entry = entryOf(changed);
    Operation *holder = changed->getParentOp();
    if (!entry || entry == entryBefore || !holder)
      continue;
    std::vector<DiagnosticRecord> errors;
    if (entry->hasNoPredecessors() &&
        verifiesForPatterns(holder, /*regions=*/true, errors))
      continue;
    rewriter.get().moveBlockBefore(block, source,
                                   next ? next->getIterator() : source->end());
    throw MLIRErrorException{
        "moving the block inside a rewrite pattern would give region #" +
            std::to_string(changed->getRegionNumber()) + " of '" +
            holder->getName().getStringRef().str() + "' an entry block that " +
            (errors.empty() ? std::string("branches target")
                            : std::string("it does not accept")) +
            ", and the driver's C++ patterns trust the IR to verify; nothing "
            "was changed",
        std::move(errors)};
  }
  // Within one region, only a new entry block changes what dominates what
  // (adversarial pass 60: the old entry moved last left its values
  // undominated, and region simplification then dropped their uses).
  if (source == region && entryOf(region) != destinationEntry)
    if (OpOperand *use = findUseNotDominatedIn(*region)) {
      rewriter.get().moveBlockBefore(
          block, source, next ? next->getIterator() : source->end());
      raiseNotDominated("moving the block", use);
    }
}

void mlir::tracking::python::setSuccessor(PyMlirContext &context, Operation *op,
                                          unsigned index, Block *block) {
  checkUseListChange(context, block);
  if (op->getSuccessor(index) == block)
    return;
  checkUseOfDrivenIRInPattern(op, block->getParentOp(), "set a successor of");
  if (patternTrustsIR(context) && op->getBlock())
    checkSuccessorInPattern("set a successor of", op, index, block,
                            op->getBlock()->getParent());
  context.noteChanged(op);
  PythonRewriter rewriter(context, "set successor");
  Block *old = op->getSuccessor(index);
  rewriter.get().modifyOpInPlace(op, [&] { op->setSuccessor(block, index); });
  auto undo = [&] {
    rewriter.get().modifyOpInPlace(op, [&] { op->setSuccessor(old, index); });
  };
  checkInvariantsInPattern(context, op, "setting a successor", undo);
  if (!patternTrustsIR(context) || !op->getBlock())
    return;
  // A target the op already branches to adds no path, and fewer paths take
  // no dominance away (a `cf.cond_br` folded to one target).
  for (auto [other, successor] : llvm::enumerate(op->getSuccessors()))
    if (other != index && successor == block)
      return;
  if (OpOperand *use = findUseNotDominatedIn(*op->getBlock()->getParent())) {
    undo();
    raiseNotDominated("setting a successor", use);
  }
}
