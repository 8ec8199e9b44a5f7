//===- Mutation.h - IR changes made from Python -----------------*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Every change Python makes to the IR goes through these functions: they use
// an IRRewriter whose listener is a TrackingListener for the context's
// registry (events attributed to "python"), and they keep the ownership of
// roots in step (see Core.h).
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_PYTHON_MUTATION_H
#define MLIR_TRACKING_PYTHON_MUTATION_H

#include "Core.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace mlir {
class BranchOpInterface;
class DominanceInfo;
} // namespace mlir

namespace mlir::tracking {
// Internal to the extension: hidden like pybind11's own types, whose
// objects these classes hold.
namespace __attribute__((visibility("hidden"))) python {

  /// While alive, the IR changes Python makes on this thread in `context` go
  /// through `rewriter` (the rewriter of the Python pattern being applied),
  /// so that the pattern driver sees every insertion, change and erasure.
  class ActiveRewriterScope {
  public:
    ActiveRewriterScope(PyMlirContext &context, PatternRewriter &rewriter);
    ~ActiveRewriterScope();
    ActiveRewriterScope(const ActiveRewriterScope &) = delete;
    ActiveRewriterScope &operator=(const ActiveRewriterScope &) = delete;

  private:
    PyMlirContext *previousContext;
    RewriterBase *previousRewriter;
    bool previousTrustsIR;
    bool previousInsertionPointErased;
  };
  /// The rewriter of the pattern running on this thread in `context`, or
  /// nullptr.
  RewriterBase *getActiveRewriter(PyMlirContext & context);

  /// Fire before `block` (or `op`) is erased, through any rewriter of this
  /// thread (the driver's, through its listener, or one of Python's own):
  /// the active pattern rewriter must not keep its insertion point in freed
  /// IR. An insertion point in `block` is cleared (an erased op holding it
  /// erases the block first); one right before `op` moves past it, as
  /// RewriterBase::eraseOp does for its own erasures.
  void noteBlockErasedForInsertionPoint(Block * block);
  void noteOperationErasedForInsertionPoint(Operation * op);
  /// A listener calling those two, to chain after a TrackingListener that
  /// Python's own rewriters use (stateless; one for all threads).
  RewriterBase::Listener &getInsertionPointListener();
  /// True if the active rewriter (of this thread) lost its insertion point
  /// because its block was erased since the pattern call began or since
  /// Python last set the point (`forgetErasedInsertionPoint`).
  bool isInsertionPointErased(RewriterBase & rewriter);
  void forgetErasedInsertionPoint();

  /// While alive, Python code on this thread may change IR only as the
  /// callback of `user` may: with `matched` null it changes nothing (a PDL
  /// constraint: PDL's matcher is still iterating; a type conversion: the
  /// conversion driver holds the IR it is converting), `why` says why; a
  /// pattern of the walk
  /// driver on `walkRoot` (`matched`, its op) may not erase, replace,
  /// detach or move the ops the walk holds: the ancestors of `matched` below
  /// `walkRoot`, the op after `matched` and after each of them (the walk's
  /// next ops, which it would visit freed or moved), and the ops directly in
  /// the regions of each ancestor after the one it walks (it started on
  /// their first op when it reached that ancestor).
  class ChangeLimitScope {
  public:
    ChangeLimitScope(Operation *matched, Operation *walkRoot, const char *user,
                     const char *why = "PDL is still matching");
    ~ChangeLimitScope();
    ChangeLimitScope(const ChangeLimitScope &) = delete;
    ChangeLimitScope &operator=(const ChangeLimitScope &) = delete;

  private:
    /// A PDL constraint's scope: no change at all.
    bool refusesAll;
    /// What the walk holds, taken when the pattern starts (compared, never
    /// dereferenced later: the pattern may erase `matched`).
    llvm::SmallVector<Operation *, 8> held;
    /// The blocks the walk iterates in: of `matched` and of each ancestor
    /// up to `walkRoot`'s regions (it steps from each to the next block).
    llvm::SmallVector<Block *, 4> heldBlocks;
    /// The regions of an ancestor (below `walkRoot`) after the one the walk
    /// is in: it holds their first block and op from when it reached the
    /// ancestor (a pattern may have put others before them since).
    llvm::SmallVector<Region *, 4> pendingRegions;
    const char *user;
    const char *why;
    const ChangeLimitScope *previous;
    friend void checkChangeAllowed(Operation *, const char *);
    friend void checkBlockChangeAllowed(Block *, const char *);
  };

  /// Throws RuntimeError if the innermost ChangeLimitScope of this thread
  /// forbids `action` ("move", "inline") on `block`: a block a walk driver
  /// iterates in (moved elsewhere, the walk went on in the other region's
  /// list and never ended).
  void checkBlockChangeAllowed(Block * block, const char *action);

  /// Throws RuntimeError if the innermost ChangeLimitScope of this thread
  /// forbids `action` on `op` (null: a change that moves or frees no op,
  /// such as replacing uses), or if `action` ("erase", "replace",
  /// "detach") would free IR a KeepAliveScope keeps.
  void checkChangeAllowed(Operation * op, const char *action);

  /// Throws RuntimeError if Python code on this thread runs inside a rewrite
  /// pattern of `context` (or a PDL function, a modify_op_in_place
  /// callback) or a callback that may not change IR (a type conversion, a
  /// PDL constraint): `run` (a pass pipeline, a rewrite driver, the
  /// transform interpreter) would change IR behind the running driver's
  /// back, or free IR that C++ code holds across the callback.
  void checkRunAllowedHere(PyMlirContext & context, const char *run);

  /// While alive, Python code on this thread may not free the ops, blocks
  /// and values kept here: C++ code holds them raw across that code and
  /// uses them when it returns (`modify_op_in_place` restores the operands
  /// and successors it saved if the op is left invalid; PDL reads the
  /// results a rewrite function appended, and the args and root its rewrite
  /// uses after the call). Erasing, replacing or detaching a kept op or an
  /// op holding kept IR, inlining a kept block, or erasing a kept block
  /// argument raises RuntimeError naming `user`. Scopes nest; each is
  /// checked.
  class KeepAliveScope {
  public:
    explicit KeepAliveScope(std::string user);
    ~KeepAliveScope();
    KeepAliveScope(const KeepAliveScope &) = delete;
    KeepAliveScope &operator=(const KeepAliveScope &) = delete;

    void keep(Operation *op) { ops.push_back(op); }
    void keep(Block *block) { blocks.push_back(block); }
    /// Keeps the op defining `value`, or the block holding it.
    void keep(Value value);

  private:
    llvm::SmallVector<Operation *, 4> ops;
    llvm::SmallVector<Block *, 4> blocks;
    /// Kept block arguments (their blocks are kept too).
    llvm::SmallVector<Value, 4> arguments;
    std::string user;
    const KeepAliveScope *previous;
    friend void checkChangeAllowed(Operation *, const char *);
    friend const KeepAliveScope *findKeeperOf(Operation *);
    friend void checkKeptStaysInTree(Operation *);
    friend void checkBlockNotKept(Block *, const char *);
    friend void checkArgumentNotKept(Value, const char *);
  };
  /// The innermost KeepAliveScope of this thread that keeps `op` or IR in
  /// it, or null.
  const KeepAliveScope *findKeeperOf(Operation * op);
  /// Throws RuntimeError if a KeepAliveScope of this thread keeps `op` or
  /// IR in it, which Python is moving into another IR tree: that tree
  /// (a detached op) may be freed, with the kept IR, while the scope lasts.
  void checkKeptStaysInTree(Operation * op);
  /// Throws RuntimeError if a KeepAliveScope of this thread keeps `block`
  /// or an argument of it, which `action` (e.g. "inline") frees.
  void checkBlockNotKept(Block * block, const char *action);
  /// Throws RuntimeError if a KeepAliveScope of this thread keeps the block
  /// argument `argument`, which `action` (e.g. "erase") frees.
  void checkArgumentNotKept(Value argument, const char *action);

  /// While a rewrite pattern runs in `context`, the driver's C++ patterns
  /// and folders read the IR next and trust it to verify (the driver
  /// verified it only before starting; `scf.if` canonicalization read a
  /// terminator a Python pattern had erased). After Python changed `op` in
  /// place (`action`), this checks `op`'s invariants; if they fail it calls
  /// `undo` and raises MLIRError. Outside patterns it does nothing: a run
  /// verifies its input, and a dialect conversion's IR is legal only at
  /// its end.
  void checkInvariantsInPattern(PyMlirContext & context, Operation * op,
                                const char *action,
                                llvm::function_ref<void()> undo);
  /// While alive, the changes Python makes to `op` are one modification
  /// (`PatternRewriter.modify_op_in_place`): checkInvariantsInPattern lets
  /// them pass, and the modification is checked as a whole at its end.
  class OpModificationScope {
  public:
    explicit OpModificationScope(Operation *op);
    ~OpModificationScope();
    OpModificationScope(const OpModificationScope &) = delete;
    OpModificationScope &operator=(const OpModificationScope &) = delete;

  private:
    Operation *previous;
  };
  /// After Python changed the arguments of `block` (`action`) inside a
  /// rewrite pattern: the branches to `block` and, for an entry block, its
  /// op (a function's signature, a loop's iteration arguments) must still
  /// verify, since the driver's C++ patterns index the arguments by the
  /// operands (a `cf.br` whose target gained an argument crashed block
  /// merging). If one does not, calls `undo` and raises MLIRError.
  void checkBlockArgumentsInPattern(PyMlirContext & context, Block * block,
                                    const char *action,
                                    llvm::function_ref<void()> undo);
  /// Notes a new op that Python inserted inside a greedy or walk pattern
  /// and that has regions, is a branch (BranchOpInterface), or is a
  /// terminator placed before another: checked when the pattern's code
  /// returns, since the code may complete it next (fill its blocks, give
  /// the branch's targets the arguments it passes, erase the terminator it
  /// replaces). An op with a block left without a terminator is then
  /// erased, a branch that does not match its targets gets placeholders
  /// for what they take, a terminator left before other ops is erased or
  /// moved to the end, and the run raises (Rewrite.cpp, DriverChecks). The
  /// Python object is kept until then.
  void checkNewOpWhenPatternReturns(PyOperation & operation);
  /// Fires when Python code created or cloned `operation` (inserted or
  /// not): inside a greedy or walk pattern, the op is checked when the
  /// pattern returns (one left outside the driven op using IR under it is
  /// erased, as the driver may free what it uses).
  void noteNewOpInPattern(PyOperation & operation);
  /// Inside a greedy or walk pattern, raises ValueError if `user`, an op
  /// outside the IR being rewritten that the pattern did not make, is to
  /// use a value or block of `holder` (the op it lives in) in that IR
  /// (`action`: "set an operand of"): the driver frees what nothing in its
  /// IR uses.
  void checkUseOfDrivenIRInPattern(Operation * user, Operation * holder,
                                   const char *action);
  /// Raises ValueError if a dialect conversion that undoes failed patterns
  /// runs and `op` (detached, about to be inserted) was not made by the
  /// Python code running: undoing the insertion would erase it.
  void checkInsertionInConversion(PyMlirContext & context, Operation * op);
  /// After Python inserted the detached `op` through a dialect conversion's
  /// rewriter: a conversion that undoes failed patterns tells the registry
  /// only when it commits, so it is told where `op` is now.
  void noteInsertionInConversion(PyMlirContext & context, Operation * op);
  /// True while a dialect conversion runs Python code on this thread.
  bool isInConversion(PyMlirContext & context);
  /// Under a dialect conversion that undoes failed patterns, raises
  /// ValueError: erasing a block argument (`Block.erase_argument`) is not
  /// done through its rewriter, so it cannot be undone, and undoing the
  /// pattern's recorded changes (an operand set) could make an op use the
  /// freed argument again (a segfault).
  void checkArgumentErasureInConversion(PyMlirContext & context);
  /// Under a dialect conversion with rollback, which erases what its
  /// patterns erase or replace only when it commits (Rewrite.cpp,
  /// ConversionRemovals): raises ValueError if `op` (or an op holding it)
  /// was already erased or replaced by it, and `action` ("erase",
  /// "replace", "move") would erase it twice when it commits.
  void checkNotRemovedInConversion(PyMlirContext & context, Operation * op,
                                   const char *action);
  /// After Python erased (`erased`) or replaced `op` through the rewriter
  /// of such a conversion.
  void noteRemovedInConversion(PyMlirContext & context, Operation * op,
                               bool erased);
  /// Under such a conversion, raises ValueError if `value` dies when it
  /// commits (a value of an op it erased, or defined in an op it erased or
  /// replaced) and `action` would give it a new use.
  void checkUsableInConversion(PyMlirContext & context, Value value,
                               llvm::function_ref<std::string()> action);
  /// Under such a conversion, raises ValueError if `parent` (the op of the
  /// block or region `action` puts IR in) is in an op it erased or
  /// replaced.
  void checkDestinationInConversion(PyMlirContext & context, Operation * parent,
                                    llvm::function_ref<std::string()> action);
  /// True if the Python code a driver or conversion runs on this thread
  /// made `op` (created or cloned it) in this call.
  bool isMadeInPatternCall(PyMlirContext & context, Operation * op);
  /// True while a rewrite driver or conversion runs Python code on this
  /// thread and `root` (a top-level op) is not the root of the tree it
  /// rewrites.
  bool isOutsideDrivenIR(PyMlirContext & context, Operation * root);
  /// The operands `branch` (its successor operand segments well formed)
  /// would forward to each successor to match the target's arguments: its
  /// own where the type is the argument's, `placeholder(type)` otherwise,
  /// extra ones dropped.
  SmallVector<SmallVector<Value>> operandsTargetsTake(
      BranchOpInterface branch, llvm::function_ref<Value(Type)> placeholder);
  /// Whether the errors of verifying a branch are all MLIR's reports of
  /// operands its targets do not take (its other invariants held: its
  /// successor operands can be read).
  bool onlyOperandsMismatchTargets(const std::vector<DiagnosticRecord> &errors);
  /// Makes `branch` forward `operands[i]` to successor #i.
  void forwardToTargets(BranchOpInterface branch,
                        ArrayRef<SmallVector<Value>> operands);
  /// True if `value` dominates its use by `user` (MLIR's properlyDominates,
  /// which reads the block of both): a value of an op in no block does not
  /// dominate anything; a user in no block is checked when inserted.
  bool dominatesUse(DominanceInfo & dominance, Value value, Operation * user);
  /// How many times a check of a change inside a Python pattern walked a
  /// whole region for uses its values no longer dominate (for tests of the
  /// changes that need no such walk).
  uint64_t getNumRegionDominanceWalks();
  /// After Python changed the type of `value` (`Value.set_type`) inside a
  /// rewrite pattern: the ops whose invariants read it must still verify
  /// (its users, and its op, or for a block argument the branches to its
  /// block and an entry block's op), since the driver's folders and C++
  /// patterns trust the types (`vector.extract`'s folder read an `i32` as a
  /// vector). If one does not, calls `undo` and raises MLIRError.
  void checkValueTypeInPattern(PyMlirContext & context, Value value,
                               const char *action,
                               llvm::function_ref<void()> undo);
  /// Whether moving `block` out of its region inside a rewrite pattern
  /// would leave that region empty while its op needs a block there (the
  /// region of an `scf.if`, a function's body): the driver's C++ patterns
  /// read that block. The op's verifier decides; its errors go to `errors`.
  bool regionNeedsBlockInPattern(PyMlirContext & context, Block * block,
                                 std::vector<DiagnosticRecord> & errors);
  /// Raises MLIRError if regionNeedsBlockInPattern (`action` moves the
  /// block).
  void checkRegionKeepsBlockInPattern(PyMlirContext & context, Block * block,
                                      const char *action);
  /// Raises ValueError if adding a block to `region` inside a rewrite
  /// pattern would give a second block to an op that holds one
  /// (`OpTrait::SingleBlock`, as `scf.if`): the driver's C++ patterns read
  /// only the first, which a new empty block at the start made them crash
  /// on.
  void checkNewBlockInPattern(PyMlirContext & context, Region * region);
  /// Inside a greedy or walk pattern, raises MLIRError and erases the
  /// block `block` just added if it became its region's entry block and
  /// its op does not verify with it (a function's signature names the
  /// entry block's arguments).
  void checkNewEntryBlockInPattern(PyMlirContext & context, Block * block);
  /// Notes a block that Python added inside a greedy or walk pattern (its
  /// `ir.Block` object, kept until then): it must end in a terminator when
  /// the pattern's code returns. One that does not is erased if nothing
  /// reaches it or uses its arguments, or else ended in a branch to itself
  /// forwarding placeholders, and the run raises (Rewrite.cpp,
  /// DriverChecks).
  void checkNewBlockWhenPatternReturns(PyMlirContext & context,
                                       py::object block);
  /// Hands `block` to the checks of the driver running (Rewrite.cpp).
  void noteNewBlockInPattern(PyMlirContext & context, py::object block);
  /// Raises ValueError if erasing `op` inside a rewrite pattern would leave
  /// its block without a terminator (create the replacement before it
  /// first).
  void checkTerminatorStaysInPattern(PyMlirContext & context, Operation * op,
                                     const char *action);
  /// Raises ValueError if placing `op` before `before` in `block` inside a
  /// rewrite pattern would leave a block not ending in its terminator (the
  /// op is its block's terminator, goes after one, or is a terminator put
  /// before other ops).
  void checkPlacementInPattern(PyMlirContext & context, Operation * op,
                               Block * block, Block::iterator before);

  // Every function here notes the trees it changes
  // (PyMlirContext::noteChanged), so that the next run on them verifies its
  // input; so does every other binding that changes IR.

  /// Notes a change to the tree of `value` (its defining op, or the op
  /// whose region holds its block).
  void noteValueChanged(PyMlirContext & context, Value value);

  /// Inserts (if detached) or moves `operation` before `before` in `block`
  /// (`block->end()` for the end). ValueError if `block` is of another
  /// context.
  void placeOperation(PyOperation & operation, Block * block,
                      Block::iterator before, llvm::StringRef label);
  /// Erases `operation` and everything nested in it; their handles become
  /// erased. Refuses if a result, block argument or block of it is still
  /// used outside it.
  void eraseOperation(PyOperation & operation);
  /// Raises ValueError if a value or block of `op` (its own results only
  /// with `ownResults`) is used outside it: erasing or replacing it
  /// (`action`) would leave that use dangling (upstream asserts in debug
  /// builds only). Checked before anything changes.
  void checkNoUseOutside(Operation * op, const char *action, bool ownResults);
  /// Erases the detached trees `roots` (top-level ops) that Python owns,
  /// with a rewriter of their own (not the active pattern's: its driver
  /// never saw them), their handles becoming erased under `label`. Uses
  /// among them are dropped first; nothing else may use them.
  void eraseDetachedTrees(PyMlirContext & context, ArrayRef<Operation *> roots,
                          StringRef label);
  /// Detaches `operation` from its block; Python then owns it.
  void detachOperation(PyOperation & operation);
  /// Replaces every use of `from` with `to` (ValueError if either is of
  /// another context than `context`).
  void replaceAllUsesWith(PyMlirContext & context, Value from, Value to);
  /// Sets operand `index` of `op` (ValueError if `value` is of another
  /// context).
  void setOperand(PyMlirContext & context, Operation * op, unsigned index,
                  Value value);

  /// Sets successor `index` of `op` to `block` (in place, through the
  /// tracked rewriter).
  void setSuccessor(PyMlirContext & context, Operation * op, unsigned index,
                    Block *block);
  /// Moves `block` before `before` in `region` (a region of the same IR
  /// tree), through the tracked rewriter.
  void moveBlock(PyMlirContext & context, Block * block, Region * region,
                 Region::iterator before);

} // namespace python
} // namespace mlir::tracking

#endif // MLIR_TRACKING_PYTHON_MUTATION_H
