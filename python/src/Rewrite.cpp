//===- Rewrite.cpp - mlir_tracking.rewrite --------------------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Upstream's `mlir.rewrite` names (PatternRewriter, RewritePatternSet,
// FrozenRewritePatternSet, PDLModule, GreedyRewriteConfig,
// apply_patterns_and_fold_greedily, walk_and_apply_patterns, ConversionTarget,
// TypeConverter, apply_partial_conversion, apply_full_conversion), with every
// driver run through the tracked drivers of TrackedRewrite.h so that handles
// follow each replace and erase. The GIL stays held while a driver runs:
// Python patterns are called from it, and no other Python thread can touch
// the IR meanwhile.
//
//===----------------------------------------------------------------------===//

#include "Rewrite.h"
#include "FatalErrors.h"
#include "RegistryNotifier.h"
#include "RunGuard.h"

#include "IRObjects.h"
#include "Mutation.h"
#include "OpView.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/PDL/IR/PDLOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Tracking/TrackedRewrite.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <set>

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::python;

//===----------------------------------------------------------------------===//
// PythonRun
//===----------------------------------------------------------------------===//

namespace {
thread_local PythonRun *currentRun = nullptr;
} // namespace

PythonRun::PythonRun() : previous(currentRun) { currentRun = this; }
PythonRun::~PythonRun() { currentRun = previous; }
PythonRun *PythonRun::current() { return currentRun; }

void PythonRun::pinUntilEnd(PyOperation &operation) {
  // PDL will use IR of that tree (as an operand, a replacement).
  checkUseListChange(operation.getContext(), operation.get());
  pins.push_back(std::make_unique<IRPin>(
      operation, "the rewrite driver", PinKind::ReadOnly,
      "until it returns (a PDL function returned IR of it, outside the IR "
      "the driver rewrites, which PDL uses after the function returned)"));
}

void PythonRun::recordError(py::error_already_set &raised) {
  if (!error && !cppError)
    error.emplace(std::move(raised));
}

void PythonRun::recordError(const std::exception &raised) {
  if (!error && !cppError)
    cppError = raised.what();
}

void PythonRun::rethrowIfError() {
  if (error) {
    py::error_already_set raised = std::move(*error);
    error.reset();
    throw raised;
  }
  if (cppError)
    throw std::runtime_error(*cppError);
}

std::string mlir::tracking::python::getCallableName(const py::object &fn) {
  for (const char *attr : {"__qualname__", "__name__"})
    if (py::hasattr(fn, attr))
      return py::str(fn.attr(attr));
  return py::str(py::repr(fn));
}

namespace {

//===----------------------------------------------------------------------===//
// PatternRewriter
//===----------------------------------------------------------------------===//

/// Around a call of Python rewrite code (a pattern, a PDL function) on the
/// tree of `op`. That tree is no longer known to verify (the next run
/// verifies it), and once the code returned, the Block and Value objects
/// of the tree find their IR again (a replacement may have moved a value
/// handle onto a value of another tree; see RootOwner::epoch).
class PythonRewriteScope {
public:
  PythonRewriteScope(PyMlirContext &context, Operation *op)
      : context(&context) {
    context.noteChanged(op);
    // Nothing may escape into the driver: a failure here fails again in
    // getOperation(), inside the call that reports it.
    try {
      operation = PyOperation::forOperation(context, op);
    } catch (...) {
      this->op = op;
    }
  }
  PythonRewriteScope(PythonRewriteScope &&) = default;
  PythonRewriteScope &operator=(PythonRewriteScope &&) = default;
  ~PythonRewriteScope() {
    if (!operation)
      return;
    std::shared_ptr<RootOwner> owner =
        castToOperation(operation).getResolvedOwner();
    owner->verified = false;
    context->noteTreeChanged(*owner);
  }
  /// The Python Operation of `op`.
  py::object getOperation() const {
    return operation ? operation : PyOperation::forOperation(*context, op);
  }

private:
  PyMlirContext *context;
  py::object operation;
  /// Set if `operation` could not be made.
  Operation *op = nullptr;
};

/// `rewrite.PatternRewriter`: valid only while the callback that received it
/// runs.
struct PyPatternRewriter {
  RewriterBase *rewriter;
  PyMlirContext *context;
  /// The op Python last set the insertion point at: it keeps that IR alive
  /// while the rewriter points into it (a detached tree whose last Python
  /// object goes is freed without any rewriter seeing it).
  py::object insertionAnchor;

  RewriterBase &get() const {
    if (!rewriter)
      throw std::runtime_error("this PatternRewriter is only valid inside "
                               "the pattern call that received it");
    return *rewriter;
  }
  /// After Python set the insertion point at `op`.
  void keepInsertionPoint(py::object op) {
    insertionAnchor = std::move(op);
    forgetErasedInsertionPoint();
  }
};

/// The op of `object` for a call of the rewriter `self`: of its context
/// (an op of another context, replaced or erased there, left a handle that
/// followed it live after that context was freed).
Operation *rewriterOperand(PyPatternRewriter &self, const py::handle &object) {
  Operation *op = castToOperation(object).get();
  checkSameContext(*self.context, op->getContext(), "an operation");
  return op;
}

/// `rewrite.PDLResultList`.
struct PyPDLResultList {
  PDLResultList *results;
  PyMlirContext *context;
  /// The kinds appended so far, and those the PDL module expects (or null).
  std::vector<PDLValue::Kind> *appended = nullptr;
  const std::vector<PDLValue::Kind> *expected = nullptr;
  /// Where a rewrite function's op and value results are kept alive until
  /// PDL has read them (null for constraints, which change no IR).
  KeepAliveScope *keepAlive = nullptr;
  /// The top-level op of the IR PDL rewrites (null if unknown).
  Operation *tree = nullptr;
  /// Set when a result outside that IR was appended.
  bool *appendedOutside = nullptr;

  /// Whether `op` (a result, or the op or block holding a result value) is
  /// in the IR PDL rewrites.
  static Operation *holderOf(Operation *op) { return op; }
  static Operation *holderOf(Value value) { return getHolderOf(value); }
  bool inTree(Operation *op) const {
    return !tree || (op && getRootOf(op) == tree);
  }
  bool inTree(Value value) const {
    if (Operation *definer = value.getDefiningOp())
      return inTree(definer);
    return inTree(cast<BlockArgument>(value).getOwner()->getParentOp());
  }
  PDLResultList &get() const {
    if (!results)
      throw std::runtime_error("this PDLResultList is only valid inside "
                               "the PDL function call that received it");
    return *results;
  }
};

/// Invalidates a Python wrapper of a C++ object that lives only for a call.
template <typename T> struct CallScoped {
  py::object object;
  explicit CallScoped(T value) : object(py::cast(value)) {}
  ~CallScoped() {
    T &wrapper = object.cast<T &>();
    wrapper = T{};
  }
};

/// Why `values` may not replace the results of `op` (empty if they may):
/// each must dominate every use of the result it replaces. A use left with
/// a value defined after it (the replacement op made at the end of the
/// block, a result of a user of `op`, a value of other IR) is invalid IR,
/// which the driver's C++ patterns chase without end or crash on. `hint`
/// ends the message.
std::string describeReplacementNotDominating(Operation *op, ValueRange values,
                                             const char *hint) {
  DominanceInfo dominance;
  for (auto [result, value] : llvm::zip(op->getResults(), values))
    for (Operation *user : result.getUsers())
      if (!op->isAncestor(user) && !dominatesUse(dominance, value, user))
        return "a replacement of result #" +
               std::to_string(result.getResultNumber()) + " of '" +
               op->getName().getStringRef().str() +
               "' does not dominate its use by '" +
               user->getName().getStringRef().str() + "'" + hint;
  return std::string();
}

/// Raises ValueError unless each of `values` dominates every use of the
/// result of `op` it replaces (describeReplacementNotDominating).
void checkReplacementDominates(Operation *op, ValueRange values) {
  std::string error = describeReplacementNotDominating(
      op, values, " (make the replacement before the op, at rewriter.ip)");
  if (!error.empty())
    throw py::value_error(error);
}

bool diesWith(Value value, Operation *op);

/// Why `newValues` may not replace the results of `target` (empty if they
/// may): Python's `replace_op(op, values)` and PDL's `pdl.replace` share
/// these rules. One value per result, of the result's type (unless a
/// dialect conversion runs, `converts`: it casts back), not dying with
/// `target` (its own results, a value in its regions), and dominating the
/// uses it takes over.
std::string describeInvalidReplacement(Operation *target, ValueRange newValues,
                                       bool converts, const char *hint) {
  if (newValues.size() != target->getNumResults())
    return "expected " + std::to_string(target->getNumResults()) +
           " values, got " + std::to_string(newValues.size());
  for (auto [result, value] : llvm::zip(target->getResults(), newValues)) {
    if (!converts && result.getType() != value.getType())
      return "a replacement value has another type than the result it "
             "replaces";
    // Erasing `target` frees such values while they are used.
    if (diesWith(value, target))
      return "cannot replace an operation by its own results or by values "
             "defined in its regions";
  }
  return describeReplacementNotDominating(target, newValues, hint);
}

/// "replace 'x' by it", for the errors about a replacement value.
std::string describeReplacing(Operation *op) {
  return "replace '" + op->getName().getStringRef().str() + "' by it";
}

/// Raises ValueError unless every value the ops of `block` will use once
/// inlined before `before` (`values` for its arguments, and what they use
/// from outside the block) dominates `before`: a value of the region the
/// ops leave would be dropped with it (null operands).
void checkInlinedValuesDominate(Block *block, ValueRange values,
                                Operation *before) {
  DominanceInfo dominance;
  auto refuse = [&]() {
    throw py::value_error(
        "cannot inline the block before '" +
        before->getName().getStringRef().str() +
        "': a value its ops use (or one given for its arguments) does not "
        "dominate that op (a value of the region the ops leave)");
  };
  for (Value value : values)
    if (!dominatesUse(dominance, value, before))
      refuse();
  block->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands()) {
      if (isa<BlockArgument>(operand) && operand.getParentBlock() == block)
        continue;
      Operation *holder = getHolderOf(operand);
      if (holder && block->findAncestorOpInBlock(*holder))
        continue;
      if (!dominatesUse(dominance, operand, before))
        refuse();
    }
  });
}

/// The value of `object`, which the caller is about to use (an operand, a
/// replacement): its use list will change.
Value castToValue(const py::handle &object) {
  PyValue &pyValue = object.cast<PyValue &>();
  Value value = pyValue.get();
  checkUseListChange(pyValue.getContext(), value);
  return value;
}

PyMlirContext &contextOf(Operation *op) {
  PyMlirContext *context = PyMlirContext::lookup(op->getContext());
  if (!context)
    throw std::runtime_error("operation of a context not created by "
                             "mlir_tracking");
  return *context;
}

/// A pattern's benefit from Python: MLIR keeps 16 bits and reserves the
/// largest value for "never applied" (65536 ran as benefit 0).
PatternBenefit checkedBenefit(unsigned benefit) {
  constexpr unsigned kImpossibleToMatch = 65535;
  if (benefit >= kImpossibleToMatch)
    throw py::value_error("a pattern's benefit must be below " +
                          std::to_string(kImpossibleToMatch) + ", got " +
                          std::to_string(benefit));
  return PatternBenefit(benefit);
}

/// The op's own invariants, its diagnostics dropped.
LogicalResult verifyQuietly(Operation *op) {
  DiagnosticCapture capture(op->getContext());
  return verifyOpInvariants(op);
}

/// True if a pattern or PDL function result means "matched": upstream's
/// rule, the match succeeds iff `bool(result)` is False (None included).
bool isSuccessResult(const py::object &result) {
  return result.is_none() || !py::bool_(result);
}

/// Calls `fn` for a pattern; `false` means no match or an exception
/// (recorded on the current run).
template <typename Fn>
bool callPython(PyMlirContext &context, Fn fn, bool evenAfterError = false) {
  PythonRun *run = PythonRun::current();
  // A run aborted by an exception applies no more Python code.
  if (run && run->hasError() && !evenAfterError)
    return false;
  // Fatal errors of MLIR in what Python runs end the process (its worker
  // threads may be at work).
  FatalErrorsAbort fatalErrorsAbort;
  try {
    return fn();
  } catch (py::error_already_set &error) {
    if (run)
      run->recordError(error);
    else
      error.discard_as_unraisable("mlir_tracking rewrite pattern");
  } catch (const std::exception &error) {
    // Our own errors (an invalidated handle passed to the rewriter, ...).
    if (run)
      run->recordError(error);
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Checks of the greedy and walk drivers
//===----------------------------------------------------------------------===//

/// True if `value` is freed with `op`: one of its results, or defined in
/// its regions.
bool diesWith(Value value, Operation *op) {
  if (!value)
    return false;
  Operation *owner = getHolderOf(value);
  return owner && op->isAncestor(owner);
}

/// A listener for the greedy and walk drivers of Python runs, which
/// cannot roll back a rewrite, for what Python code or PDL can leave that
/// no check at the change itself can refuse.
///
/// MLIR erases an op even when its results are still used (upstream only
/// asserts, then drops the uses: the users are left with null operands,
/// which the driver's C++ code and Python then read). That happens when a
/// rewrite replaces an op by values that die with it (a PDL rewrite
/// function returning the matched op's own result, `pdl.replace %op with
/// (%r)` where `%r` is a result of `%op`), or erases an op that is still
/// used (`pdl.erase`). Python's own rewriter calls refuse both before any
/// change; PDL's bytecode cannot be stopped, so here the users get an
/// identical copy of the op (the IR stays as it was), and the run raises
/// RuntimeError.
///
/// Raises unless `values` may replace the arguments of `block` once its
/// ops are inlined elsewhere: the block is erased, so a value of its own
/// (an argument, a result of one of its ops) would be freed or used by its
/// own definition; another context or type gives IR that does not verify.
static void checkInlinedArgumentValues(Block *block, ArrayRef<Value> values,
                                       MLIRContext *context) {
  for (size_t index = 0; index < values.size(); ++index) {
    Value value = values[index];
    std::string which = "value " + std::to_string(index) +
                        " for the arguments of the inlined block ";
    if (value.getContext() != context)
      throw py::value_error(which + "belongs to another Context");
    Block *definedIn = value.getParentBlock();
    Operation *definedUnder = definedIn ? definedIn->getParentOp() : nullptr;
    if (definedIn == block ||
        (definedUnder && block->findAncestorOpInBlock(*definedUnder)))
      throw py::value_error(which +
                            "is defined in that block, which is erased");
    Type expected = block->getArgument(index).getType();
    if (value.getType() != expected) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << which << "has type " << value.getType()
         << " but the argument has type " << expected;
      throw py::value_error(text);
    }
  }
}

/// The innermost instance of `Derived` on this thread for one context: the
/// state of a driver run, which code called deep inside MLIR (listeners,
/// Python callbacks) finds. Made on the stack, it shadows the previous one
/// until it is destroyed.
template <typename Derived> class ScopedRunState {
public:
  /// The instance on this thread for `context`, or null.
  static Derived *get(MLIRContext *context) {
    return current && current->context == context
               ? static_cast<Derived *>(current)
               : nullptr;
  }
  ScopedRunState(const ScopedRunState &) = delete;
  ScopedRunState &operator=(const ScopedRunState &) = delete;

protected:
  explicit ScopedRunState(MLIRContext *context)
      : context(context), previous(std::exchange(current, this)) {}
  ~ScopedRunState() { current = previous; }

private:
  static thread_local ScopedRunState *current;
  MLIRContext *context;
  ScopedRunState *previous;
};

template <typename Derived>
thread_local ScopedRunState<Derived> *ScopedRunState<Derived>::current =
    nullptr;

/// The IR erased since the pattern being applied began, by address. PDL may
/// still hold such IR and pass it to a native function (an op nested in one
/// it erased, or the same op under another PDL value: a native function's
/// result, a constraint's), which must then not read it. Fed by the
/// driver's listener; one per driver run and thread.
class RewriteErasures : public ScopedRunState<RewriteErasures> {
public:
  explicit RewriteErasures(MLIRContext *context) : ScopedRunState(context) {}

  /// True if the driver undoes a rewrite that fails: a dialect conversion
  /// with rollback. One without rollback claims it can recover, but goes on
  /// with whatever the failed rewrite changed (the op it erased).
  static bool canUndoFailedRewrite(PatternRewriter &rewriter) {
    if (!rewriter.canRecoverFromRewriteFailure())
      return false;
    RewriteErasures *erasures = get(rewriter.getContext());
    return !erasures || !erasures->changesStay;
  }
  /// Set for a dialect conversion without rollback.
  bool changesStay = false;

  /// A pattern begins or ends: what PDL holds from now on is live.
  void clear() {
    addresses.clear();
    operandLists.clear();
    erased = false;
  }
  /// True if IR was erased since the pattern being applied began.
  bool erasedAny() const { return erased; }

  /// A Python pattern's code begins: changedInCall() tells what it did.
  void beginCall() { changed = false; }
  /// Whether the IR changed since beginCall(): a pattern that fails must
  /// leave it as it was, since the driver then tries its next pattern on
  /// the op it matched (which the code may have erased), unless it rolls
  /// the change back.
  bool changedInCall() const { return changed; }
  /// Fires on any change the driver notifies.
  void noteChange() { changed = true; }

  /// A `pdl.replace` of `op` was refused (PDLModule::addReplaceChecks):
  /// its pattern no longer matches it in this run, which would apply it
  /// again and again (each time "changing" the IR).
  void noteRefusedReplacement(Operation *op) { refusedReplacements.insert(op); }
  bool wasReplacementRefused(Operation *op) const {
    return refusedReplacements.contains(op);
  }

  /// Under walk_and_apply_patterns: a PDL rewrite begins on `op`, the op
  /// the walk visits (PyPDLModule::addEraseChecks).
  void noteWalkVisit(Operation *op) {
    walkVisited = op;
    walkVisitedErased = false;
  }
  /// The op the walk visits whose PDL rewrite runs, or null once erased
  /// (its address may then be a new op's).
  Operation *getWalkVisited() const {
    return walkVisitedErased ? nullptr : walkVisited;
  }

  /// Fires before `op` is erased: `op`, its results and its operand list.
  void noteErased(Operation *op) {
    refusedReplacements.erase(op);
    walkVisitedErased |= op == walkVisited;
    erased = true;
    // (A detached op erased changes no IR the driver holds.)
    changed |= op->getBlock() != nullptr;
    addresses.insert(op);
    for (Value result : op->getResults())
      addresses.insert(result.getImpl());
    if (op->getNumOperands()) {
      MutableArrayRef<OpOperand> operands = op->getOpOperands();
      operandLists.push_back({operands.begin(), operands.end()});
    }
  }
  /// Fires before `block` is erased: the block and its arguments.
  void noteErased(Block *block) {
    erased = changed = true;
    addresses.insert(block);
    for (Value argument : block->getArguments())
      addresses.insert(argument.getImpl());
  }
  /// Fires after `op` was inserted: a new op may reuse erased addresses.
  void noteInserted(Operation *op) {
    changed = true;
    if (addresses.empty() && operandLists.empty())
      return;
    addresses.erase(op);
    for (Value result : op->getResults())
      addresses.erase(result.getImpl());
    MutableArrayRef<OpOperand> operands = op->getOpOperands();
    llvm::erase_if(operandLists, [&](const OperandList &list) {
      return list.begin < operands.end() && operands.begin() < list.end;
    });
  }

  /// True if `value` refers to erased IR (an op, a value, or a range into
  /// an erased op's operands or results). Reads nothing erased.
  bool refersToErased(const PDLValue &value) const {
    if (addresses.empty() && operandLists.empty())
      return false;
    switch (value.getKind()) {
    case PDLValue::Kind::Operation:
      return addresses.contains(value.cast<Operation *>());
    case PDLValue::Kind::Value:
      return addresses.contains(value.cast<Value>().getImpl());
    case PDLValue::Kind::ValueRange:
      return rangeRefersToErased(value.cast<ValueRange>());
    case PDLValue::Kind::TypeRange:
      return rangeRefersToErased(value.cast<TypeRange>());
    case PDLValue::Kind::Attribute:
    case PDLValue::Kind::Type:
      return false;
    }
    return false;
  }

private:
  struct OperandList {
    const OpOperand *begin;
    const OpOperand *end;
  };
  /// For a ValueRange or TypeRange: one into an erased op's operands or
  /// results, or a list of PDL's own holding an erased value.
  template <typename RangeT> bool rangeRefersToErased(RangeT range) const {
    if (range.empty())
      return false;
    auto base = range.getBase();
    if (auto *operand = dyn_cast<OpOperand *>(base))
      return inErasedOperandList(operand);
    if (auto *result = dyn_cast<mlir::detail::OpResultImpl *>(base))
      return addresses.contains(result);
    if (auto *values = dyn_cast<const Value *>(base))
      return llvm::any_of(ArrayRef(values, range.size()), [&](Value item) {
        return addresses.contains(item.getImpl());
      });
    return false; // A list of types.
  }
  bool inErasedOperandList(const OpOperand *operand) const {
    return llvm::any_of(operandLists, [&](const OperandList &list) {
      return list.begin <= operand && operand < list.end;
    });
  }

  llvm::DenseSet<const void *> addresses;
  SmallVector<OperandList> operandLists;
  llvm::DenseSet<Operation *> refusedReplacements;
  Operation *walkVisited = nullptr;
  bool walkVisitedErased = false;
  bool erased = false;
  bool changed = false;
};

/// The ops the Python code of a dialect conversion with rollback asked its
/// rewriter to erase or replace. Such a conversion only records the change
/// and leaves the op in place (its handle live) until it commits, where it
/// erases each recorded op: a second erase or replace of the op (or of an
/// op in it) erased it twice, and a value of an erased op that a new use
/// took stayed live without a definition ("unresolved materialization").
/// Upstream only asserts these in debug builds; here Python's calls are
/// refused. Kept as MLIR keeps its own record: what a pattern recorded
/// goes when the conversion undoes that pattern, which it then reports
/// (notifyPatternEnd with failure: the pattern failed, or the conversion
/// could not legalize what it made; nested patterns, which legalized what
/// it made, go with it). So a record never outlives its op: a rollback
/// conversion frees an op it erased or replaced only when it commits, and
/// one a pattern made only when it undoes that pattern. One per conversion
/// run and thread.
class ConversionRemovals : public ScopedRunState<ConversionRemovals> {
public:
  explicit ConversionRemovals(MLIRContext *context) : ScopedRunState(context) {}

  /// Fires when the conversion begins to apply `pattern`.
  void notePatternBegin(const Pattern &pattern) {
    patterns.push_back({&pattern, records.size()});
    endedFailed = nullptr;
  }

  /// Fires when `pattern` ends; `status` is failure if the conversion
  /// undid it. MLIR reports an undone pattern whose result it could not
  /// legalize twice in a row (from onSuccess, then onFailure): the second
  /// report is skipped, since the pattern on the stack then is an outer
  /// one (the same pattern, if it may recurse).
  void notePatternEnd(const Pattern &pattern, LogicalResult status) {
    if (failed(status) && endedFailed == &pattern) {
      endedFailed = nullptr;
      return;
    }
    endedFailed = nullptr;
    if (patterns.empty() || patterns.back().pattern != &pattern)
      return;
    size_t recordsAtBegin = patterns.pop_back_val().records;
    if (failed(status)) {
      dropFrom(recordsAtBegin);
      endedFailed = &pattern;
    }
  }

  /// Fires after Python erased (`erased`) or replaced `op` through the
  /// conversion's rewriter.
  void noteRemoved(Operation *op, bool erased) {
    if (removed.try_emplace(op, erased).second)
      records.push_back(op);
  }

  /// The op recorded as erased or replaced that is `op` or holds it, or
  /// null; `erased` says which.
  Operation *findRemoved(Operation *op, bool &erased) const {
    if (removed.empty())
      return nullptr;
    for (; op; op = op->getParentOp()) {
      auto found = removed.find(op);
      if (found != removed.end()) {
        erased = found->second;
        return op;
      }
    }
    return nullptr;
  }

  /// "already erased by this conversion ...".
  static std::string describeRemoval(bool erased) {
    return std::string(erased ? "already erased" : "already replaced") +
           " by this conversion (a conversion with rollback leaves it in "
           "place until it commits)";
  }
  /// "'x', which was already erased by this conversion ...".
  static std::string describeRemoved(Operation *removedOp, bool erased) {
    return "'" + removedOp->getName().getStringRef().str() + "', which was " +
           describeRemoval(erased);
  }

  /// Raises ValueError if `op` (or an op holding it) was erased or
  /// replaced by this conversion: `action` ("erase", "replace", "move")
  /// would erase it twice when the conversion commits.
  void checkNotRemoved(Operation *op, const char *action) const {
    bool erased = false;
    Operation *removedOp = findRemoved(op, erased);
    if (!removedOp)
      return;
    std::string text = std::string("cannot ") + action + " '" +
                       op->getName().getStringRef().str() + "': ";
    if (removedOp == op)
      throw py::value_error(text + "it was " + describeRemoval(erased));
    throw py::value_error(text + "it is inside " +
                          describeRemoved(removedOp, erased));
  }

  /// Raises ValueError if `value` dies when this conversion commits: a
  /// value of an op it erased, or defined in an op it erased or replaced
  /// (a replaced op's own results are mapped to their replacements).
  /// `action` says what would use it.
  void checkUsable(Value value,
                   llvm::function_ref<std::string()> action) const {
    Operation *holder = getHolderOf(value);
    bool erased = false;
    Operation *removedOp = holder ? findRemoved(holder, erased) : nullptr;
    if (!removedOp || (!erased && removedOp == holder && isa<OpResult>(value)))
      return;
    throw py::value_error("cannot " + action() + ": it would use " +
                          (removedOp == holder && isa<OpResult>(value)
                               ? "a result of "
                               : "a value defined in ") +
                          describeRemoved(removedOp, erased));
  }

  /// Raises ValueError if `parent` (the op of a block or region) is an op
  /// this conversion erased or replaced, or in one: `action` would put IR
  /// there, which the commit erases with it (upstream asserts against it).
  void checkDestination(Operation *parent,
                        llvm::function_ref<std::string()> action) const {
    bool erased = false;
    if (Operation *removedOp = parent ? findRemoved(parent, erased) : nullptr)
      throw py::value_error("cannot " + action() + ": " +
                            (removedOp == parent
                                 ? "its destination is in "
                                 : "its destination is inside ") +
                            describeRemoved(removedOp, erased));
  }

private:
  /// Drops the records from the `size`-th on (their changes were undone).
  void dropFrom(size_t size) {
    while (records.size() > size)
      removed.erase(records.pop_back_val());
  }

  /// The recorded ops, in order, and whether each was erased.
  SmallVector<Operation *> records;
  llvm::DenseMap<Operation *, bool> removed;
  /// The patterns being applied, innermost last (a pattern legalizes the
  /// ops it made within it), with the number of records before each.
  struct Applied {
    const Pattern *pattern;
    size_t records;
  };
  SmallVector<Applied> patterns;
  /// The pattern whose end (undone) was reported last, with nothing since.
  const Pattern *endedFailed = nullptr;
};

/// Raises ValueError if the rewriter of a conversion with rollback is to
/// `action` ("erase", "replace") `op` of other IR than it converts (a
/// module the pattern parsed): it would do it only when it commits, after
/// that IR may be freed. Operation.erase() erases such an op at once.
void checkInConvertedIR(PyPatternRewriter &self, Operation *op,
                        const char *action) {
  if (!ConversionRemovals::get(self.context->get()) || !op->getBlock() ||
      !isOutsideDrivenIR(*self.context, getRootOf(op)))
    return;
  throw py::value_error(
      std::string("cannot ") + action + " '" +
      op->getName().getStringRef().str() +
      "' with the rewriter: it is not in the IR the conversion rewrites, "
      "and a conversion with rollback would " +
      action +
      " it only when it commits (after that IR may be freed); change other "
      "IR through Operation's methods (Operation.erase())");
}

/// Feeds a RewriteErasures from a driver's notifications: the listener of
/// a dialect conversion, and the base of the greedy and walk drivers'
/// DriverChecks.
class ErasureListener : public RewriterBase::Listener {
public:
  /// `changesStay`: the driver keeps what a failed rewrite changed (see
  /// RewriteErasures::canUndoFailedRewrite).
  explicit ErasureListener(MLIRContext *context, bool changesStay = false)
      : context(context), erasures(context) {
    erasures.changesStay = changesStay;
  }
  void notifyPatternBegin(const Pattern &pattern, Operation *op) override {
    erasures.clear();
    if (ConversionRemovals *removals =
            ConversionRemovals::get(op->getContext()))
      removals->notePatternBegin(pattern);
  }
  void notifyPatternEnd(const Pattern &pattern, LogicalResult status) override {
    erasures.clear();
    if (ConversionRemovals *removals = ConversionRemovals::get(context))
      removals->notePatternEnd(pattern, status);
  }
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    erasures.noteInserted(op);
  }
  void notifyOperationErased(Operation *op) override {
    noteOperationErasedForInsertionPoint(op);
    erasures.noteErased(op);
  }
  void notifyBlockErased(Block *block) override {
    noteBlockErasedForInsertionPoint(block);
    erasures.noteErased(block);
  }
  void notifyOperationModified(Operation *) override { erasures.noteChange(); }
  void notifyOperationReplaced(Operation *, ValueRange) override {
    erasures.noteChange();
  }
  void notifyBlockInserted(Block *, Region *, Region::iterator) override {
    erasures.noteChange();
  }

private:
  MLIRContext *context;
  RewriteErasures erasures;
};

/// The op a PDL value (an op, or a value) lives in, or null.
Operation *getHeldOp(const PDLValue &value) {
  if (auto *op = value.dyn_cast<Operation *>())
    return op;
  if (value.getKind() == PDLValue::Kind::Value)
    return getHolderOf(value.cast<Value>());
  return nullptr;
}

/// Records `message` as the error of the current run (it raises
/// RuntimeError when it returns), unless it has one.
void recordRunError(const std::string &message) {
  PythonRun *run = PythonRun::current();
  if (run && !run->hasError())
    run->recordError(std::runtime_error(message));
}

/// Records `message` as the error of the current run, raised as ValueError
/// (as by the Python call that the same rule refuses), unless it has one.
void recordRunValueError(const std::string &message) {
  PythonRun *run = PythonRun::current();
  if (!run || run->hasError())
    return;
  AcquireGilOrPark gil;
  PyErr_SetString(PyExc_ValueError, message.c_str());
  py::error_already_set error;
  run->recordError(error);
}

/// The trees that the Python code of a driver's patterns makes (creates or
/// clones) outside the op the driver runs on. One that uses values or
/// blocks under that op when the code returns is erased: the driver frees
/// what nothing in its IR uses (region simplification erases a value only
/// such a tree uses; a conversion's rollback frees the casts and ops its
/// patterns made), which would leave the tree with freed or null operands.
/// For the greedy and walk drivers (in DriverChecks) and conversions.
class NewTreesOutside {
public:
  /// `driven`: the op the driver runs on.
  explicit NewTreesOutside(Operation *driven)
      : driven(driven), drivenRoot(getRootOf(driven)),
        previous(std::exchange(current, this)) {}
  ~NewTreesOutside() {
    current = previous;
    if (!createdOps.empty()) {
      AcquireGilOrPark gil;
      FatalErrorsAbort fatalErrorsAbort;
      createdOps.clear();
    }
  }
  NewTreesOutside(const NewTreesOutside &) = delete;
  NewTreesOutside &operator=(const NewTreesOutside &) = delete;

  /// The instance of the driver running on this thread in `context`, or
  /// null.
  static NewTreesOutside *get(MLIRContext *context) {
    return current && current->driven->getContext() == context ? current
                                                               : nullptr;
  }

  /// Notes an op the Python code running created or cloned (its Python
  /// object, which keeps it until the code returns), checked then.
  void noteCreated(py::object operation) {
    createdOps.push_back(std::move(operation));
  }

  /// Raises ValueError if `user`, outside the driven op's tree and not
  /// made by the Python code running, is about to use IR of `holder`
  /// under the driven op (`action` names the change): the driver frees
  /// what nothing in its IR uses.
  void checkUseFromOutside(Operation *user, Operation *holder,
                           const char *action) {
    if (!holder || !driven->isAncestor(holder))
      return;
    Operation *userRoot = getRootOf(user);
    if (userRoot == drivenRoot || isCreatedInCall(userRoot))
      return;
    throw py::value_error(
        std::string("cannot ") + action + " '" +
        user->getName().getStringRef().str() +
        "' inside a rewrite pattern: it is outside the IR being rewritten, "
        "and the driver frees what nothing in that IR uses (region "
        "simplification erases such values and blocks)");
  }

  /// Fires when the Python code (`who`) returns: erases the trees it made,
  /// created or cloned, and left outside the driven op while they use its
  /// values or blocks, with the new trees that use them; records the error
  /// on the run. Where erasing would free what others hold (a tree made
  /// before, another tree using it, a PDL result `results`, or anything
  /// under a conversion, whose rewriter may have recorded the ops), the
  /// ops' uses of the driven IR get placeholders instead.
  void finishCall(const std::string &who, ArrayRef<PDLValue> results = {}) {
    if (createdOps.empty())
      return;
    std::vector<py::object> created = std::move(createdOps);
    createdOps.clear();
    // The trees the code made (their root is a new op), and the new ops
    // it placed in other trees outside the driven op's.
    llvm::SetVector<Operation *> newRoots, placedElsewhere;
    llvm::SmallPtrSet<Operation *, 8> createdSet;
    for (py::object &object : created)
      if (Operation *op = object.cast<PyOperation &>().getIfLive())
        createdSet.insert(op);
    for (Operation *op : createdSet) {
      Operation *root = getRootOf(op);
      if (root == drivenRoot)
        continue;
      if (createdSet.contains(root))
        newRoots.insert(root);
      else
        placedElsewhere.insert(op);
    }
    llvm::SetVector<Operation *> doomed;
    for (Operation *root : newRoots)
      if (usesDrivenIR(root))
        doomed.insert(root);
    llvm::SmallVector<Operation *> kept;
    for (Operation *op : placedElsewhere)
      if (usesDrivenIR(op))
        kept.push_back(op);
    if (doomed.empty() && kept.empty())
      return;
    // The new trees that use a doomed one's values or blocks go too.
    bool usedElsewhere = false;
    for (size_t i = 0; i < doomed.size(); ++i) {
      Operation *root = doomed[i];
      auto noteUser = [&](Operation *user) {
        Operation *userRoot = getRootOf(user);
        if (userRoot == root || doomed.contains(userRoot))
          return;
        if (newRoots.contains(userRoot))
          doomed.insert(userRoot);
        else
          usedElsewhere = true;
      };
      root->walk([&](Operation *op) {
        for (Operation *user : op->getUsers())
          noteUser(user);
        for (Region &region : op->getRegions())
          for (Block &block : region) {
            for (BlockOperand &use : block.getUses())
              noteUser(use.getOwner());
            for (BlockArgument argument : block.getArguments())
              for (Operation *user : argument.getUsers())
                noteUser(user);
          }
      });
    }
    bool heldByPDL = llvm::any_of(results, [&](const PDLValue &value) {
      Operation *held = getHeldOp(value);
      return held && doomed.contains(getRootOf(held));
    });
    std::string names;
    for (Operation *op : llvm::concat<Operation *const>(doomed, kept))
      names += (names.empty() ? "'" : ", '") +
               op->getName().getStringRef().str() + "'";
    PyMlirContext &pyContext = *PyMlirContext::lookup(driven->getContext());
    if (usedElsewhere || heldByPDL || inConversion || !kept.empty()) {
      for (Operation *op : llvm::concat<Operation *const>(doomed, kept))
        usePlaceholdersForDrivenIR(pyContext, op);
      recordRunError(
          who + " left " + names +
          " outside the IR being rewritten (made and not inserted there) "
          "using values or blocks of that IR, which the driver may free; "
          "they are kept (other IR, PDL or the driver may use them) and use "
          "placeholders (builtin.unrealized_conversion_cast without inputs) "
          "instead, a branch to such a block is erased (insert or erase "
          "them before the pattern returns)");
      return;
    }
    // Not through the driver's rewriter: it never saw them.
    eraseDetachedTrees(pyContext, doomed.getArrayRef(), who);
    recordRunError(who + " left " + names +
                   " outside the IR being rewritten (created or cloned and "
                   "not inserted) using values or blocks of that IR: erased, "
                   "since the driver may free what they use (insert or erase "
                   "them before the pattern returns)");
  }

  /// True if the Python code running made `op` (created or cloned it).
  bool isCreatedInCall(Operation *op) {
    return llvm::any_of(createdOps, [&](const py::object &object) {
      return object.cast<PyOperation &>().getIfLive() == op;
    });
  }

  /// The root of the tree the driver rewrites.
  Operation *getDrivenRoot() const { return drivenRoot; }

  /// Set for a dialect conversion: its rewriter records the ops Python
  /// inserts through it, so none may be erased behind its back.
  bool inConversion = false;
  /// Set for a conversion that undoes a failed pattern's changes.
  bool rollsBack = false;

  /// Raises ValueError if Python is about to insert the detached op `op`
  /// into IR under a conversion that undoes failed patterns, and the code
  /// running did not make it: the conversion records an insertion as a
  /// creation, and undoing it erases the op (one made before was lost).
  void checkInsertion(Operation *op) {
    if (!rollsBack || isCreatedInCall(op))
      return;
    throw py::value_error(
        "cannot insert '" + op->getName().getStringRef().str() +
        "', made before this conversion pattern ran, while a dialect "
        "conversion with rollback runs: undoing the pattern would erase it; "
        "insert a clone of it");
  }

  /// After Python inserted `op` through the rewriter of a conversion that
  /// undoes patterns: such a conversion tells listeners of insertions only
  /// when it commits, so the registry still placed `op` where it was made
  /// (a new op: its own tree) and a nested Python pass could not use it
  /// (`checkPassScope`). The registry learns the place now; the commit
  /// tells it again, and an undo ends the handle (`forgetUndoneOps`).
  void noteInsertion(Operation *op) {
    if (!rollsBack)
      return;
    PyMlirContext &pyContext = *PyMlirContext::lookup(op->getContext());
    tracking::detail::RegistryNotifier notifier(pyContext.getRegistry());
    if (notifier.hasHandles() &&
        (op->getNumRegions() != 0 || notifier.mayBeTracked(op)))
      notifier.notifyOperationInserted(op);
  }

  /// Fires when a pattern of a conversion that undoes patterns returned:
  /// the ops the Python code made and inserted in the converted IR
  /// (through the conversion's rewriter), and the casts the conversion
  /// made for the operands it gave the pattern (`materializations`), are
  /// freed by an undo without notice: now if the pattern failed, or later
  /// if the conversion cannot legalize what it made (`matched`). Their
  /// handles end now. Called before finishCall.
  void forgetUndoneOps(const std::string &who,
                       ArrayRef<Operation *> materializations, bool matched) {
    if (!rollsBack)
      return;
    PyMlirContext &pyContext = *PyMlirContext::lookup(driven->getContext());
    tracking::detail::EventSource source;
    source.pass = "python";
    tracking::detail::RegistryNotifier notifier(pyContext.getRegistry());
    std::string text =
        matched ? who + " made it, and the conversion may undo that pattern "
                        "without notice (take a new handle after it)"
                : who + " failed and the conversion undid what it made";
    tracking::detail::EventReason reason{llvm::StringRef(text)};
    auto forget = [&](Operation *op) {
      notifier.invalidateNested(op, source, text);
      notifier.notifyOperationErased(op, source, reason);
      pyContext.getUnits().eraseNested(op, text);
    };
    // (Those in other trees were placed without the conversion's rewriter.)
    for (const py::object &object : createdOps)
      if (Operation *op = object.cast<PyOperation &>().getIfLive();
          op && op->getBlock() && getRootOf(op) == drivenRoot)
        forget(op);
    // A cast an earlier pattern made and this one reused ends too (it is
    // then untracked while it lives: a new handle can be taken).
    for (Operation *cast : materializations)
      forget(cast);
  }

private:
  /// True if an op in `op` uses a value or block under the driven op.
  bool usesDrivenIR(Operation *op) {
    WalkResult uses = op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (isUnderDriven(getHolderOf(operand)))
          return WalkResult::interrupt();
      for (Block *successor : nested->getSuccessors())
        if (isUnderDriven(successor->getParentOp()))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return uses.wasInterrupted();
  }
  bool isUnderDriven(Operation *holder) {
    return holder && driven->isAncestor(holder);
  }

  /// Gives every operand of the ops in `op` (outside the driven op's tree)
  /// that is a value under the driven op a placeholder of its type, a new
  /// detached op kept alive while used; unseen by the driver, which would
  /// queue the changed ops. A branch to a block under the driven op has no
  /// stand-in for the block: its results' uses get placeholders and it is
  /// erased, unless it is a conversion's (left, the run raises).
  void usePlaceholdersForDrivenIR(PyMlirContext &pyContext, Operation *op) {
    OpBuilder builder(driven->getContext());
    SmallVector<Operation *> placeholders;
    auto placeholder = [&](Type type, Location loc) {
      placeholders.push_back(
          UnrealizedConversionCastOp::create(builder, loc, type, ValueRange())
              .getOperation());
      return placeholders.back()->getResult(0);
    };
    // Once used: their owners die at once and keep them alive.
    llvm::scope_exit adopt([&] {
      for (Operation *made : placeholders)
        (void)pyContext.adoptRoot(made);
    });
    SmallVector<Operation *> branches;
    op->walk([&](Operation *nested) {
      if (llvm::any_of(nested->getSuccessors(), [&](Block *successor) {
            return isUnderDriven(successor->getParentOp());
          }))
        branches.push_back(nested);
      for (OpOperand &operand : nested->getOpOperands())
        if (isUnderDriven(getHolderOf(operand.get())))
          operand.set(placeholder(operand.get().getType(), nested->getLoc()));
    });
    if (inConversion)
      return;
    TrackingListener listener(TrackingListenerConfig(),
                              &pyContext.getRegistry(),
                              &getInsertionPointListener());
    IRRewriter rewriter(driven->getContext(), &listener);
    for (Operation *branch : branches) {
      for (OpResult result : branch->getResults())
        result.replaceAllUsesWith(
            placeholder(result.getType(), branch->getLoc()));
      std::shared_ptr<RootOwner> owner =
          branch->getBlock() ? nullptr : pyContext.getOwner(branch);
      branch->dropAllReferences();
      rewriter.eraseOp(branch);
      if (owner)
        owner->release();
    }
  }

  static thread_local NewTreesOutside *current;
  /// The op the driver runs on, and its tree's root.
  Operation *driven;
  Operation *drivenRoot;
  NewTreesOutside *previous;
  /// The Python objects of the ops noteCreated noted.
  std::vector<py::object> createdOps;
};

thread_local NewTreesOutside *NewTreesOutside::current = nullptr;

/// `inline_block_before` may take the only block of a region that its op
/// needs, as upstream's idiom does before replacing that op; the region
/// then holds a copy of the block until the pattern ends, and the run
/// raises RuntimeError if the pattern kept the op.
class DriverChecks : public ErasureListener {
public:
  /// `driven`: the op the driver runs on.
  explicit DriverChecks(Operation *driven)
      : ErasureListener(driven->getContext()), context(driven->getContext()),
        outside(driven), previous(std::exchange(current, this)) {}
  ~DriverChecks() override {
    current = previous;
    if (!newOps.empty() || !newBlocks.empty()) {
      AcquireGilOrPark gil;
      FatalErrorsAbort fatalErrorsAbort;
      newOps.clear();
      newBlocks.clear();
    }
  }
  DriverChecks(const DriverChecks &) = delete;
  DriverChecks &operator=(const DriverChecks &) = delete;

  /// The checks of the driver running on this thread in `context`, or null
  /// (a conversion nested in a pattern runs on IR of another context).
  static DriverChecks *get(MLIRContext *context) {
    return current && current->context == context ? current : nullptr;
  }

  /// Notes that the pattern running must replace or erase `op`, whose
  /// region #`region` holds a copy of the block it inlined.
  void expectRemoval(Operation *op, unsigned region) {
    expected.push_back({op, region, op->getName().getStringRef().str()});
  }
  /// Notes that the Python code running must erase `terminator`, which an
  /// inlined block left before other ops (upstream's idiom erases it once
  /// the op it came from is replaced by its operands).
  void expectErasure(Operation *terminator) {
    strayTerminators.push_back(terminator);
  }

  /// Notes a new op the Python code running inserted that has regions or
  /// is a branch, or a terminator it placed before another (a
  /// replacement), checked when the code returns (finishCall). Its Python
  /// object keeps the op alive until then (the code may detach and drop it).
  void expectCompletedOp(py::object operation) {
    newOps.push_back(std::move(operation));
  }
  /// Notes a block the Python code running added (its Python object),
  /// checked for its terminator when the code returns (finishCall).
  void expectTerminatedBlock(py::object block) {
    newBlocks.push_back(std::move(block));
  }
  /// When the Python code (`who`) that `rewriter` ran returns (with the
  /// GIL): erases a new op holding a block without a terminator, puts a
  /// new terminator it left before other ops in its place (a block ends in
  /// exactly one), gives a new branch that does not match its targets
  /// placeholders for what they take, completes a new block without a
  /// terminator, erases a terminator an inline left before other ops, and
  /// reports each.
  /// `results`: what a PDL function returned, which PDL uses next.
  void finishCall(RewriterBase &rewriter, const std::string &who,
                  ArrayRef<PDLValue> results = {}) {
    // A repair that would erase what the caller (PDL) still uses would
    // free it under PDL: the process stops instead.
    auto checkErasable = [&](Operation *op) {
      bool returned = llvm::any_of(results, [&](const PDLValue &value) {
        Operation *held = getHeldOp(value);
        return held && op->isAncestor(held);
      });
      if (returned || findKeeperOf(op))
        llvm::report_fatal_error(
            llvm::Twine(who) + " left '" + op->getName().getStringRef() +
            "' unfinished (a block without a terminator, or a terminator "
            "before another), and its caller still uses it (a PDL value or "
            "result in it): no repair can keep the IR valid");
    };
    std::vector<py::object> ops = std::move(newOps);
    newOps.clear();
    for (py::object &object : ops) {
      Operation *op = object.cast<PyOperation &>().getIfLive();
      // An op left unfinished: a block without a terminator, or regions
      // without the blocks its invariants need (checked at its insertion
      // unless its regions were still to be filled: checkNewOpInPattern).
      const char *unfinished = nullptr;
      if (op && op->getBlock() && hasUnterminatedBlock(op))
        unfinished = "with a block that did not end in a terminator";
      else if (op && op->getBlock() && op->getNumRegions() &&
               failed(verifyQuietly(op)))
        unfinished = "without verifying (a region left without the blocks "
                     "it needs?)";
      if (unfinished) {
        std::string name = op->getName().getStringRef().str();
        checkErasable(op);
        rewriter.replaceOp(op, placeholdersFor(rewriter, op));
        record(who + " inserted '" + name + "' " + unfinished +
               " when the pattern returned: it was erased (its uses get "
               "placeholders, builtin.unrealized_conversion_cast without "
               "inputs), since the driver's C++ patterns trust every block "
               "to end in its terminator and the IR to verify");
        continue;
      }
      if (op && op->getBlock() && op->hasTrait<OpTrait::IsTerminator>() &&
          op->getNextNode()) {
        if (op->getBlock()->back().hasTrait<OpTrait::IsTerminator>())
          checkErasable(op);
        op = placeStrayTerminator(rewriter, op, who);
      }
      if (op)
        matchNewBranches(rewriter, op, who, checkErasable);
    }
    ops.clear();
    std::vector<py::object> blocks = std::move(newBlocks);
    newBlocks.clear();
    for (py::object &object : blocks)
      if (Block *block = object.cast<PyBlock &>().handle.get())
        if (lacksTerminator(block))
          completeUnterminatedBlock(rewriter, block, who);
    blocks.clear();
    std::vector<Operation *> stray = std::move(strayTerminators);
    strayTerminators.clear();
    for (Operation *op : stray) {
      if (!op->getBlock() || &op->getBlock()->back() == op || !op->use_empty())
        continue;
      std::string name = op->getName().getStringRef().str();
      rewriter.eraseOp(op);
      record(who + " inlined a block and left its terminator '" + name +
             "' before other ops: it was erased (erase it in the pattern, "
             "once its operands replaced the op the block came from)");
    }
    outside.finishCall(who, results);
  }

  /// Records `message` as the error of the current run, unless it has one.
  static void recordError(const std::string &message) { record(message); }

  void notifyOperationReplaced(Operation *op, ValueRange newValues) override {
    ErasureListener::notifyOperationReplaced(op, newValues);
    // MLIR asserts this (with assertions on) and otherwise drops the extra
    // values, or erases the op with its other results still used (kept for
    // their users below, on erasure). Python's replace_op refuses it; a PDL
    // rewrite cannot be stopped: the run raises.
    if (newValues.size() != op->getNumResults())
      record("a rewrite (a PDL pattern) replaced '" +
             op->getName().getStringRef().str() + "', which has " +
             std::to_string(op->getNumResults()) + " result(s), by " +
             std::to_string(newValues.size()) + " value(s)");
    SmallVector<unsigned> kept;
    for (auto [index, value] : llvm::enumerate(newValues))
      if (index < op->getNumResults() && diesWith(value, op) &&
          !op->getResult(index).use_empty())
        kept.push_back(index);
    if (!kept.empty())
      keepForUsers(op, kept, takeGeneration(op),
                   "replaced '" + op->getName().getStringRef().str() +
                       "' by a value that it defines (its own result, or one "
                       "in its regions)");
  }

  void notifyOperationErased(Operation *op) override {
    ErasureListener::notifyOperationErased(op);
    llvm::erase_if(expected, [&](const Expected &e) { return e.op == op; });
    llvm::erase(strayTerminators, op);
    unsigned generation = takeGeneration(op);
    if (op->use_empty() || !op->getParentOp() ||
        mayBeGraphRegion(*op->getParentRegion()) || !isEraseRoot(op))
      return;
    SmallVector<unsigned> kept;
    for (OpResult result : op->getResults())
      if (!result.use_empty())
        kept.push_back(result.getResultNumber());
    keepForUsers(op, kept, generation,
                 "erased '" + op->getName().getStringRef().str() +
                     "' while its results were still used");
  }

  void notifyPatternEnd(const Pattern &pattern, LogicalResult status) override {
    ErasureListener::notifyPatternEnd(pattern, status);
    StringRef name = pattern.getDebugName();
    finishPattern(name.empty() ? "a pattern" : "pattern '" + name.str() + "'");
  }

  /// Reports an op that the pattern (`name`) should have removed.
  void finishPattern(const std::string &name) {
    if (expected.empty())
      return;
    Expected first = expected.front();
    expected.clear();
    record(name + " inlined the only block of region #" +
           std::to_string(first.region) + " of '" + first.name +
           "', which the op needs, and kept the op: its region holds a copy "
           "of the block (the inlined ops are in both places); replace or "
           "erase the op in the pattern that inlines its block");
  }

private:
  struct Expected {
    Operation *op;
    unsigned region;
    std::string name;
  };

  /// Whether `op`, erased with uses left, is the op a rewrite erases rather
  /// than one nested in it: MLIR erases a tree users first (post-order,
  /// reverse dominance), so when a nested op goes, its only users left are
  /// in blocks unreachable in its region. A user in `op`'s block or in a
  /// reachable block of its region means `op` is the root.
  static bool isEraseRoot(Operation *op) {
    Region *region = op->getParentRegion();
    llvm::SmallPtrSet<Block *, 8> reachable;
    SmallVector<Block *> stack{&region->front()};
    while (!stack.empty()) {
      Block *block = stack.pop_back_val();
      if (reachable.insert(block).second)
        llvm::append_range(stack, block->getSuccessors());
    }
    for (Operation *user : op->getUsers())
      if (Operation *inRegion = region->findAncestorOpInRegion(*user))
        if (inRegion->getBlock() == op->getBlock() ||
            reachable.contains(inRegion->getBlock()))
          return true;
    return false;
  }

  /// Moves the uses of results `kept` of `op` to a copy of `op` made right
  /// before it (unseen by the driver and the registry: nothing tracks it
  /// yet), and records the error on the current run. `op` may be such a
  /// copy (`generation` > 0), matched again by the same pattern; the driver
  /// revisits what the erased op used, so that can loop forever within one
  /// iteration: past kMaxCopies, the users get a value without a definition
  /// instead, as a dialect conversion leaves one
  /// (`builtin.unrealized_conversion_cast` without inputs).
  void keepForUsers(Operation *op, ArrayRef<unsigned> kept, unsigned generation,
                    const std::string &what) {
    OpBuilder builder(op);
    SmallVector<Value> replacements;
    if (generation >= kMaxCopies) {
      SmallVector<Type> types;
      for (unsigned index : kept)
        types.push_back(op->getResult(index).getType());
      auto cast = UnrealizedConversionCastOp::create(builder, op->getLoc(),
                                                     types, ValueRange());
      llvm::append_range(replacements, cast.getResults());
    } else {
      Operation *copy = builder.clone(*op);
      copies[copy] = generation + 1;
      for (unsigned index : kept)
        replacements.push_back(copy->getResult(index));
    }
    for (auto [index, replacement] : llvm::zip(kept, replacements))
      op->getResult(index).replaceAllUsesWith(replacement);
    record("a rewrite (a PDL pattern, or a PDL rewrite function) " + what +
           ": MLIR would have erased it and left its users with null "
           "operands; they use an identical copy of it instead");
  }

  static void record(const std::string &message) { recordRunError(message); }

  /// Whether a block in the regions of `op` needs a terminator it lacks.
  static bool hasUnterminatedBlock(Operation *op) {
    bool found = false;
    for (Region &region : op->getRegions())
      region.walk([&](Block *block) {
        if (lacksTerminator(block)) {
          found = true;
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
    return found;
  }

  /// A placeholder (an `unrealized_conversion_cast` without inputs) for
  /// each result of `op`, made before it.
  static SmallVector<Value> placeholdersFor(RewriterBase &rewriter,
                                            Operation *op) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(op);
    SmallVector<Value> placeholders;
    for (Type type : op->getResultTypes())
      placeholders.push_back(UnrealizedConversionCastOp::create(
                                 rewriter, op->getLoc(), type, ValueRange())
                                 .getResult(0));
    return placeholders;
  }

  /// Whether `block`, in a region, needs a terminator it does not end in
  /// (MLIR's verifier: unless its op is unregistered or NoTerminator).
  static bool lacksTerminator(Block *block) {
    Operation *parent = block->getParentOp();
    if (!parent || !parent->isRegistered() ||
        parent->hasTrait<OpTrait::NoTerminator>())
      return false;
    return block->empty() || !block->back().hasTrait<OpTrait::IsTerminator>();
  }

  /// Erases the new block `block`, left without a terminator, if nothing
  /// reaches it or uses its values, or else ends it in a branch to itself
  /// (an entry block, which no branch may target, in a branch to a new
  /// block that does), and reports it.
  static void completeUnterminatedBlock(RewriterBase &rewriter, Block *block,
                                        const std::string &who) {
    std::string where =
        "region #" + std::to_string(block->getParent()->getRegionNumber()) +
        " of '" + block->getParentOp()->getName().getStringRef().str() + "'";
    bool unused = llvm::all_of(block->getArguments(),
                               [](BlockArgument a) { return a.use_empty(); });
    bool usedInside = llvm::any_of(
        block->getOperations(), [](Operation &op) { return !op.use_empty(); });
    if (block->hasNoPredecessors() && unused && !usedInside &&
        !block->isEntryBlock()) {
      rewriter.eraseBlock(block);
      record(who + " left a new block of " + where +
             " without a terminator: nothing reached it, and it was erased "
             "(end each new block in its terminator in the pattern that adds "
             "it)");
      return;
    }
    // The driver's block merging reads the terminator of each block that
    // branches reach.
    if (!block->getParentOp()->getContext()->getLoadedDialect(
            cf::ControlFlowDialect::getDialectNamespace()))
      llvm::report_fatal_error(
          llvm::Twine(who) + " left a new block of " + where +
          " without a terminator, which the driver would crash on, and no "
          "'cf' dialect is loaded for a stand-in terminator");
    OpBuilder::InsertionGuard guard(rewriter);
    Location loc = block->getParentOp()->getLoc();
    Block *loop = block;
    if (block->isEntryBlock()) {
      loop = rewriter.createBlock(block->getParent(),
                                  std::next(block->getIterator()));
      cf::BranchOp::create(rewriter, loc, loop, ValueRange());
    }
    rewriter.setInsertionPointToEnd(block);
    SmallVector<Value> placeholders;
    for (BlockArgument argument : loop->getArguments())
      placeholders.push_back(
          UnrealizedConversionCastOp::create(rewriter, argument.getLoc(),
                                             argument.getType(), ValueRange())
              .getResult(0));
    cf::BranchOp::create(rewriter, loc, loop, placeholders);
    record(who + " left a new block of " + where +
           " without a terminator: it was ended in a branch to " +
           (loop == block ? "itself" : "a new block that loops") +
           " ('cf.br', forwarding placeholders), since the driver's C++ "
           "patterns read every block's terminator (end each new block in "
           "its terminator in the pattern that adds it)");
  }

  /// Ends the block of the new terminator `op`, which the code left before
  /// other ops (it did not erase the terminator it replaces, or put ops
  /// after it): erases it if the block still ends in a terminator, moves
  /// it to the end otherwise. Returns it, or null once erased.
  static Operation *placeStrayTerminator(RewriterBase &rewriter, Operation *op,
                                         const std::string &who) {
    Block *block = op->getBlock();
    std::string name = op->getName().getStringRef().str();
    Operation &last = block->back();
    if (!last.hasTrait<OpTrait::IsTerminator>()) {
      rewriter.moveOpBefore(op, block, block->end());
      record(who + " left the new terminator '" + name +
             "' before other ops of its block: it was moved to the end "
             "(a block ends in its terminator)");
      return op;
    }
    // Its uses (by the terminator after it, say) get placeholders.
    if (!op->use_empty())
      rewriter.replaceOp(op, placeholdersFor(rewriter, op));
    else
      rewriter.eraseOp(op);
    record(who + " inserted the terminator '" + name +
           "' before the terminator '" + last.getName().getStringRef().str() +
           "' of its block and kept that one: the new one was erased (erase "
           "or replace the terminator it replaces in the same pattern)");
    return nullptr;
  }

  /// Gives each branch in `holder` that does not verify operands that its
  /// targets take (matchTargets), or erases one invalid otherwise (changed
  /// since it was inserted) and completes its block, and records it.
  static void
  matchNewBranches(RewriterBase &rewriter, Operation *holder,
                   const std::string &who,
                   llvm::function_ref<void(Operation *)> checkErasable) {
    SmallVector<std::pair<BranchOpInterface, bool>> invalid;
    holder->walk([&](BranchOpInterface branch) {
      std::optional<RegisteredOperationName> info = branch->getRegisteredInfo();
      if (!info)
        return;
      DiagnosticCapture capture(branch->getContext());
      if (failed(verifyOpInvariants(branch)))
        invalid.push_back(
            {branch, onlyOperandsMismatchTargets(capture.take())});
    });
    for (auto [branch, mismatchOnly] : invalid) {
      std::string name = branch->getName().getStringRef().str();
      if (mismatchOnly) {
        matchTargets(rewriter, branch);
        record(who + " inserted '" + name +
               "' with operands its target blocks do not take, and left it "
               "so: they were replaced by placeholders "
               "(builtin.unrealized_conversion_cast without inputs), since "
               "the driver's C++ patterns trust branches to match their "
               "targets");
        continue;
      }
      Block *block = branch->getBlock();
      checkErasable(branch);
      // Its uses (an `llvm.invoke`'s result) get placeholders.
      rewriter.replaceOp(branch, placeholdersFor(rewriter, branch));
      record(who + " left '" + name +
             "' invalid (changed after it was inserted): it was erased");
      if (lacksTerminator(block))
        completeUnterminatedBlock(rewriter, block, who);
    }
  }

  /// Whether `op` verifies (its invariants), without reporting.
  static bool verifiesQuietly(Operation *op) {
    std::optional<RegisteredOperationName> info = op->getRegisteredInfo();
    if (!info)
      return true;
    QuietOnThisThread quiet(op->getContext());
    return succeeded(verifyOpInvariants(op));
  }

  /// Makes `branch` forward what its targets take: the operand in place
  /// where its type is the argument's, a placeholder (an
  /// `unrealized_conversion_cast` without inputs) otherwise; extra ones
  /// dropped. Its segments are well formed.
  static void matchTargets(RewriterBase &rewriter, BranchOpInterface branch) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(branch);
    SmallVector<SmallVector<Value>> matched =
        operandsTargetsTake(branch, [&](Type type) -> Value {
          return UnrealizedConversionCastOp::create(rewriter, branch->getLoc(),
                                                    type, ValueRange())
              .getResult(0);
        });
    rewriter.modifyOpInPlace(branch,
                             [&] { forwardToTargets(branch, matched); });
  }

  static thread_local DriverChecks *current;
  MLIRContext *context;
  NewTreesOutside outside;
  DriverChecks *previous;
  std::vector<Expected> expected;
  std::vector<Operation *> strayTerminators;
  /// The Python objects of the new ops expectCompletedOp noted.
  std::vector<py::object> newOps;
  /// The Python objects of the new blocks expectTerminatedBlock noted.
  std::vector<py::object> newBlocks;
  /// How many copies of an op, each replacing the one before, keepForUsers
  /// makes at most (more than a greedy run's default iterations).
  static constexpr unsigned kMaxCopies = 32;
  /// The copies made by keepForUsers while they live, with their
  /// generation.
  llvm::DenseMap<Operation *, unsigned> copies;

  unsigned takeGeneration(Operation *op) {
    auto it = copies.find(op);
    if (it == copies.end())
      return 0;
    unsigned generation = it->second;
    copies.erase(it);
    return generation;
  }
};

thread_local DriverChecks *DriverChecks::current = nullptr;

//===----------------------------------------------------------------------===//
// Python patterns
//===----------------------------------------------------------------------===//

/// The op walk_and_apply_patterns runs on, on this thread (null when none):
/// its Python patterns may not change what the walk holds (ChangeLimitScope).
thread_local Operation *walkDriverRoot = nullptr;

/// Whether a Python pattern (`who`) that failed (returned a true value, or
/// raised) changed the IR in a driver that keeps such changes (greedy,
/// walk, a conversion without rollback): it then counts as applied, and
/// the run raises. The driver would try its next pattern on the op it
/// matched, which the code may have erased.
bool keptChangesOfFailure(PatternRewriter &rewriter, RewriteErasures *erasures,
                          const std::string &who) {
  if (!erasures || !erasures->changedInCall() ||
      RewriteErasures::canUndoFailedRewrite(rewriter))
    return false;
  DriverChecks::recordError(
      who + " changed the IR and then failed (returned a true value, or "
            "raised): it counts as applied, since the driver goes on with "
            "the op it matched after a failure (return None or False once "
            "the IR changed)");
  return true;
}

/// A pattern whose matchAndRewrite is a Python callable `fn(op, rewriter)`.
class PythonPattern : public RewritePattern {
public:
  PythonPattern(StringRef root, PatternBenefit benefit, MLIRContext *context,
                py::object fn)
      : RewritePattern(root, benefit, context), fn(std::move(fn)),
        name(getCallableName(this->fn)) {
    setDebugName(name);
  }
  ~PythonPattern() override {
    AcquireGilOrPark gil;
    FatalErrorsAbort fatalErrorsAbort;
    fn = py::object();
  }

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    AcquireGilOrPark gil;
    FatalErrorsAbort fatalErrorsAbort;
    PyMlirContext *context = PyMlirContext::lookup(op->getContext());
    if (!context)
      return failure();
    ActiveRewriterScope scope(*context, rewriter);
    PythonRewriteScope rewrite(*context, op);
    std::optional<ChangeLimitScope> limit;
    if (walkDriverRoot)
      limit.emplace(op, walkDriverRoot, "a pattern of walk_and_apply_patterns");
    RewriteErasures *erasures = RewriteErasures::get(rewriter.getContext());
    if (erasures)
      erasures->beginCall();
    bool matched = callPython(*context, [&] {
      CallScoped<PyPatternRewriter> pyRewriter(
          PyPatternRewriter{&rewriter, context});
      // Upstream hands a pattern the op's view (its OpView subclass).
      py::object result = callOrPark(fn, rewrite.getOperation().attr("opview"),
                                     pyRewriter.object);
      return isSuccessResult(result);
    });
    std::string who = "pattern '" + name + "'";
    if (DriverChecks *checks = DriverChecks::get(rewriter.getContext())) {
      checks->finishCall(rewriter, who);
      checks->finishPattern(who);
    }
    return success(matched || keptChangesOfFailure(rewriter, erasures, who));
  }

private:
  py::object fn;
  std::string name;
};

/// `rewrite.FrozenRewritePatternSet`.
struct PyFrozenRewritePatternSet {
  py::object context;
  std::shared_ptr<FrozenRewritePatternSet> patterns;
  /// Keeps the Python callables of PDL functions alive (the PDL module's
  /// functions hold them as borrowed handles).
  py::list keepAlive;

  /// Whether a run of it may leave IR that does not verify without Python
  /// changing it (which drops what is known, PyMlirContext::noteChanged).
  bool mayMakeInvalidIR() const {
    return patterns->getPDLByteCode() != nullptr;
  }
};

/// `rewrite.RewritePatternSet`.
struct PyRewritePatternSet {
  py::object contextObject;
  PyMlirContext *context;
  std::unique_ptr<RewritePatternSet> patterns;

  RewritePatternSet &get() {
    if (!patterns)
      throw std::runtime_error("this RewritePatternSet was frozen; build a "
                               "new one");
    return *patterns;
  }
};

std::string getRootName(const py::handle &root) {
  if (py::isinstance<py::str>(root))
    return root.cast<std::string>();
  if (py::hasattr(root, "OPERATION_NAME"))
    return py::str(root.attr("OPERATION_NAME"));
  throw py::type_error("the root argument must be an operation name or a "
                       "class with OPERATION_NAME");
}

//===----------------------------------------------------------------------===//
// PDL
//===----------------------------------------------------------------------===//

py::object toPython(PyMlirContext &context, const PDLValue &value) {
  switch (value.getKind()) {
  case PDLValue::Kind::Attribute:
    return makeAttribute(context, value.cast<Attribute>());
  case PDLValue::Kind::Operation:
    return PyOperation::forOperation(context, value.cast<Operation *>());
  case PDLValue::Kind::Type:
    return makeType(context, value.cast<Type>());
  case PDLValue::Kind::TypeRange: {
    py::list list;
    for (Type type : value.cast<TypeRange>())
      list.append(makeType(context, type));
    return std::move(list);
  }
  case PDLValue::Kind::Value:
    return PyValue::create(context, value.cast<Value>());
  case PDLValue::Kind::ValueRange: {
    py::list list;
    for (Value v : value.cast<ValueRange>())
      list.append(PyValue::create(context, v));
    return std::move(list);
  }
  }
  return py::none();
}

/// `rewrite.PDLModule`: a copy of a module of `pdl.pattern` ops, plus native
/// functions registered from Python.
/// After a PDL rewrite function (`name`) returned: PDL creates the rest of
/// its rewrite's ops at the rewriter's insertion point. If the function
/// moved the op that point is before (the root) into another block, the
/// point follows it (MLIR's builder would link the next op into that
/// block's list with the old block as its parent). If the function left
/// that point in IR that is gone (its block, or an op holding it, was
/// erased; under a conversion with rollback, erased or replaced by it), the
/// point goes back before `root` (where PDL had it), if that op is still
/// there, and the run raises RuntimeError: those ops went into freed IR.
void restoreInsertionPointForPDL(PatternRewriter &rewriter, Operation *root,
                                 const std::string &name) {
  MLIRContext *context = rewriter.getContext();
  ConversionRemovals *removals = ConversionRemovals::get(context);
  auto isRemoved = [&](Operation *parent) {
    bool erased = false;
    return !parent || (removals && removals->findRemoved(parent, erased));
  };
  Block *block = rewriter.getInsertionBlock();
  // (The op is live: one erased moved the point past it.)
  if (block && rewriter.getInsertionPoint() != block->end() &&
      rewriter.getInsertionPoint()->getBlock() != block) {
    rewriter.setInsertionPoint(&*rewriter.getInsertionPoint());
    block = rewriter.getInsertionBlock();
  }
  if (block ? !isRemoved(block->getParentOp())
            : !isInsertionPointErased(rewriter))
    return;
  RewriteErasures *erasures = RewriteErasures::get(context);
  bool rootStays = root && erasures &&
                   !erasures->refersToErased(PDLValue(root)) &&
                   !isRemoved(root->getParentOp());
  if (rootStays)
    rewriter.setInsertionPoint(root);
  else
    rewriter.clearInsertionPoint();
  recordRunError(
      "PDL rewrite function '" + name +
      "' left the rewriter's insertion point in IR that is erased "
      "(its block, or an op holding it, was erased); the rest of its "
      "PDL rewrite created its ops " +
      (rootStays ? "before the rewrite's root instead"
                 : "without an insertion point"));
}

struct PyPDLModule {
  py::object contextObject;
  PyMlirContext *context;
  std::unique_ptr<PDLPatternModule> module;
  py::list callables;
  /// The rewrite functions whose calls carry hidden arguments.
  std::set<std::string> withHiddenArguments;

  PDLPatternModule &get() {
    if (!module)
      throw std::runtime_error("this PDLModule was frozen; build a new one");
    return *module;
  }

  /// The result kinds the PDL module's uses of the native function `name`
  /// declare (`pdl.apply_native_constraint`, or `pdl.apply_native_rewrite`
  /// and `pdl.rewrite ... with`), or nullopt if nothing uses it. MLIR reads
  /// exactly these results after a call that succeeds, without checking
  /// them: a function reporting others would make it read past the list or
  /// take one kind of object for another.
  std::optional<std::vector<PDLValue::Kind>>
  resultKindsOf(const std::string &name, bool constraint) {
    std::optional<std::vector<PDLValue::Kind>> kinds;
    std::optional<Location> conflict;
    auto noteUse = [&](Operation *use, TypeRange types) {
      std::vector<PDLValue::Kind> these;
      for (Type type : types)
        these.push_back(kindOf(type));
      if (kinds && *kinds != these && !conflict)
        conflict = use->getLoc();
      kinds = std::move(these);
    };
    get().getModule()->walk([&](Operation *op) {
      if (constraint) {
        if (auto apply = dyn_cast<pdl::ApplyNativeConstraintOp>(op))
          if (apply.getName() == name)
            noteUse(op, apply.getResultTypes());
        return;
      }
      if (auto apply = dyn_cast<pdl::ApplyNativeRewriteOp>(op))
        if (apply.getName() == name)
          noteUse(op, apply.getResultTypes());
      if (auto rewrite = dyn_cast<pdl::RewriteOp>(op))
        if (rewrite.getName() == name)
          noteUse(op, {});
    });
    if (conflict) {
      std::string where;
      llvm::raw_string_ostream os(where);
      os << *conflict;
      throw py::value_error("the PDL module uses native function '" + name +
                            "' with different result types (" + where +
                            "): register one function for each signature");
    }
    return kinds;
  }

  static PDLValue::Kind kindOf(Type type) {
    if (auto range = dyn_cast<pdl::RangeType>(type))
      return isa<pdl::TypeType>(range.getElementType())
                 ? PDLValue::Kind::TypeRange
                 : PDLValue::Kind::ValueRange;
    if (isa<pdl::AttributeType>(type))
      return PDLValue::Kind::Attribute;
    if (isa<pdl::OperationType>(type))
      return PDLValue::Kind::Operation;
    if (isa<pdl::TypeType>(type))
      return PDLValue::Kind::Type;
    return PDLValue::Kind::Value;
  }

  /// A result of a native rewrite function that a `pdl.replace` of the
  /// same rewrite uses to replace an op: operand `argument` of the call, or
  /// (-1) the rewrite's root.
  struct ReplacementFlow {
    unsigned result;
    int argument;
  };

  /// The key of the attribute we append to each call of a rewrite function
  /// registered from Python (see addHiddenArguments).
  static constexpr const char *kUserArguments =
      "__mlir_tracking_user_arguments";

  /// Appends to every `pdl.apply_native_rewrite "name"` the PDL values its
  /// rewrite still uses after the call, then an attribute holding the number
  /// of operands the call had: the function then keeps those ops and values
  /// alive while Python runs (PDL would read an op the Python function
  /// erased, or erase it twice), whether PDL got them from the matcher, the
  /// root or an earlier function, and passes Python only the call's own
  /// operands. Once per name.
  void addHiddenArguments(const std::string &name) {
    if (!withHiddenArguments.insert(name).second)
      return;
    SmallVector<pdl::ApplyNativeRewriteOp> calls;
    get().getModule()->walk([&](pdl::ApplyNativeRewriteOp apply) {
      if (apply.getName() == name)
        calls.push_back(apply);
    });
    for (pdl::ApplyNativeRewriteOp apply : calls) {
      SmallVector<Value> hidden = valuesUsedAfter(apply);
      OpBuilder builder(apply);
      // What PDL holds after the call: the hidden arguments (at their
      // index in the call's values), then the results (after the values
      // and the attribute below).
      int64_t numUser = apply.getArgs().size();
      int64_t numValues = numUser + hidden.size() + 1;
      SmallVector<Value> after(hidden);
      llvm::append_range(after, apply.getResults());
      EraseConflicts conflicts = eraseConflicts(apply->getNextNode(), after);
      for (SmallVector<int64_t> *pairs :
           {&conflicts.usedAfter, &conflicts.replacedBy})
        for (int64_t &index : *pairs)
          index += index < static_cast<int64_t>(hidden.size())
                       ? numUser
                       : numValues - static_cast<int64_t>(hidden.size());
      auto count = builder.getDictionaryAttr(
          {builder.getNamedAttr(kUserArguments,
                                builder.getI64IntegerAttr(numUser)),
           builder.getNamedAttr(kUsedAfterErase, builder.getDenseI64ArrayAttr(
                                                     conflicts.usedAfter)),
           builder.getNamedAttr(kReplacedBy, builder.getDenseI64ArrayAttr(
                                                 conflicts.replacedBy))});
      hidden.push_back(
          pdl::AttributeOp::create(builder, apply.getLoc(), count));
      apply.getArgsMutable().append(hidden);
    }
  }

  /// The PDL values defined before `apply` (by the matcher, or earlier in
  /// its rewrite) that a later op of the rewrite uses: ops, values and
  /// ranges (a range of types may point into an op's results). Types and
  /// attributes live as long as the context.
  static SmallVector<Value> valuesUsedAfter(pdl::ApplyNativeRewriteOp apply) {
    SmallVector<Value> used;
    auto pattern = apply->getParentOfType<pdl::PatternOp>();
    if (!pattern)
      return used;
    auto consider = [&](Operation *op) {
      for (Value value : op->getResults()) {
        if (isa<pdl::TypeType, pdl::AttributeType>(value.getType()))
          continue;
        if (llvm::any_of(value.getUsers(), [&](Operation *user) {
              return user->getBlock() == apply->getBlock() &&
                     apply->isBeforeInBlock(user);
            }))
          used.push_back(value);
      }
    };
    // The matcher's ops, then the rewrite's before the call.
    for (Operation &op : pattern.getBodyRegion().front())
      consider(&op);
    for (Operation &op : *apply->getBlock()) {
      if (&op == apply.getOperation())
        break;
      consider(&op);
    }
    return used;
  }

  /// The error if the results a rewrite function appended and the hidden
  /// arguments of its call (`values`) meet one of the call's erase
  /// conflicts (addHiddenArguments), else an empty string. Replacements
  /// only under a dialect conversion (`inConversion`).
  static std::string findReturnedEraseConflict(const std::string &name,
                                               ArrayRef<PDLValue> values,
                                               PDLResultList &results,
                                               bool inConversion) {
    if (values.empty() || values.back().getKind() != PDLValue::Kind::Attribute)
      return "";
    auto info = dyn_cast<DictionaryAttr>(values.back().cast<Attribute>());
    if (!info)
      return "";
    SmallVector<PDLValue> &appended = ResultListAccess::of(results);
    auto valueAt = [&](int64_t index) -> const PDLValue * {
      if (index < 0)
        return nullptr;
      if (static_cast<size_t>(index) < values.size())
        return &values[index];
      size_t result = index - values.size();
      return result < appended.size() ? &appended[result] : nullptr;
    };
    auto holds = [&](const char *key) {
      auto pairs = info.getAs<DenseI64ArrayAttr>(key);
      return pairs && findEraseConflict(pairs.asArrayRef(), valueAt);
    };
    if (holds(kUsedAfterErase))
      return "PDL rewrite function '" + name +
             "' returned an op, or a value or range of one, that its rewrite "
             "erases under another PDL value and uses after that (an alias "
             "of an op it erases, or of one nested in it): PDL would use "
             "freed IR; the rest of the rewrite did not run";
    if (inConversion && holds(kReplacedBy))
      return "PDL rewrite function '" + name +
             "' returned an op or value with which its rewrite replaces an "
             "op by what dies with it (the op itself, one of its results, or "
             "a value in its regions, under two PDL values): the dialect "
             "conversion would loop forever or leave null operands";
    return "";
  }

  /// How many of `values` (of one call of a rewrite function) are the
  /// call's own operands: all of them, unless addHiddenArguments appended
  /// more and the count.
  static size_t countUserArguments(ArrayRef<PDLValue> values) {
    if (values.empty() || values.back().getKind() != PDLValue::Kind::Attribute)
      return values.size();
    auto count = dyn_cast<DictionaryAttr>(values.back().cast<Attribute>());
    auto number =
        count ? count.getAs<IntegerAttr>(kUserArguments) : IntegerAttr();
    if (!number || number.getInt() < 0 ||
        static_cast<uint64_t>(number.getInt()) >= values.size())
      return values.size();
    return number.getInt();
  }

  /// The replacement flows of the uses of rewrite function `name`.
  std::vector<ReplacementFlow> replacementFlowsOf(const std::string &name) {
    std::vector<ReplacementFlow> flows;
    get().getModule()->walk([&](pdl::ApplyNativeRewriteOp apply) {
      if (apply.getName() != name)
        return;
      auto rewrite = apply->getParentOfType<pdl::RewriteOp>();
      for (OpResult result : apply->getResults())
        for (Operation *user : result.getUsers()) {
          auto replace = dyn_cast<pdl::ReplaceOp>(user);
          if (!replace || replace.getOpValue() == result)
            continue;
          Value replaced = replace.getOpValue();
          int argument = -2;
          for (auto [index, operand] : llvm::enumerate(apply.getArgs()))
            if (operand == replaced)
              argument = index;
          if (argument == -2 && rewrite && rewrite.getRoot() == replaced)
            argument = -1;
          if (argument != -2)
            flows.push_back({result.getResultNumber(), argument});
        }
    });
    return flows;
  }

  /// The PDL values of a rewrite that hold results of the op `opValue`:
  /// `pdl.result(s)` of it, and the `pdl.range`s built from those (a range
  /// copies the values, so it holds the op's results too).
  static SmallVector<Value> resultsOf(Value opValue) {
    SmallVector<Value> derived;
    for (Operation *user : opValue.getUsers())
      if (isa<pdl::ResultOp, pdl::ResultsOp>(user))
        derived.push_back(user->getResult(0));
    for (size_t i = 0; i < derived.size(); ++i)
      for (Operation *user : derived[i].getUsers())
        if (isa<pdl::RangeOp>(user) &&
            !llvm::is_contained(derived, user->getResult(0)))
          derived.push_back(user->getResult(0));
    return derived;
  }

  /// Refuses a PDL rewrite that uses an op after its `pdl.erase` or
  /// `pdl.replace` (which erases it), or what dies with it: its results
  /// (`pdl.result(s)` of it, and ranges built from those) and the ranges of
  /// its operands and result types the matcher bound (`pdl.operands`,
  /// `pdl.types`, which point into the op). MLIR would read freed memory, and
  /// so would the functions here that take the op to Python.
  static void checkNoUseAfterErase(ModuleOp module) {
    module->walk([](pdl::RewriteOp rewrite) {
      if (rewrite.getBodyRegion().empty())
        return;
      Block &body = rewrite.getBodyRegion().front();
      for (Operation &eraser : body) {
        Value erased;
        if (auto erase = dyn_cast<pdl::EraseOp>(eraser))
          erased = erase.getOpValue();
        else if (auto replace = dyn_cast<pdl::ReplaceOp>(eraser))
          erased = replace.getOpValue();
        if (!erased)
          continue;
        llvm::SmallPtrSet<Value, 8> dead{erased};
        for (Value result : resultsOf(erased))
          dead.insert(result);
        if (auto matched = erased.getDefiningOp<pdl::OperationOp>()) {
          for (Value operands : matched.getOperandValues())
            if (isa<pdl::RangeType>(operands.getType()))
              dead.insert(operands);
          for (Value types : matched.getTypeValues())
            if (isa<pdl::RangeType>(types.getType()))
              dead.insert(types);
        }
        for (Operation *later = eraser.getNextNode(); later;
             later = later->getNextNode()) {
          if (llvm::none_of(later->getOperands(),
                            [&](Value value) { return dead.contains(value); }))
            continue;
          std::string where;
          llvm::raw_string_ostream os(where);
          os << later->getLoc();
          throw py::value_error(
              "'" + later->getName().getStringRef().str() + "' (" + where +
              ") uses an op that '" + eraser.getName().getStringRef().str() +
              "' erased before it, or a value or range that died with it");
        }
      }
    });
  }

  /// The keys, in the attribute ending a call's hidden arguments, of the
  /// call's erase conflicts (eraseConflicts over its hidden arguments and
  /// results).
  static constexpr const char *kUsedAfterErase =
      "__mlir_tracking_used_after_erase";
  static constexpr const char *kReplacedBy = "__mlir_tracking_replaced_by";

  /// Pairs (e, u), flattened, of indices into the `candidates` of
  /// eraseConflicts.
  struct EraseConflicts {
    /// A step erases candidates[e] (`pdl.erase`, `pdl.replace`) and a later
    /// step uses candidates[u], directly or through `pdl.result(s)` of it,
    /// other than by passing it to a rewrite function (RewriteErasures
    /// catches that when it is called).
    SmallVector<int64_t> usedAfter;
    /// A `pdl.replace` of candidates[e] replaces it by candidates[u] (or its
    /// results).
    SmallVector<int64_t> replacedBy;
  };

  /// The erase conflicts among `candidates` (PDL values a rewrite uses from
  /// its step `from` on). checkNoUseAfterErase and checkReplacements refuse
  /// them for one PDL value; for two it depends on the IR: if
  /// candidates[u] holds the op of candidates[e] too (an alias a native
  /// function returned), an op nested in it, or a value or range of one
  /// (findEraseConflict), PDL would use freed IR (erase an op twice, read
  /// its results), or replace an op by what dies with it (under the greedy
  /// and walk drivers DriverChecks catches that; a dialect conversion
  /// loops forever or leaves null operands).
  static EraseConflicts eraseConflicts(Operation *from,
                                       ArrayRef<Value> candidates) {
    llvm::DenseMap<Operation *, unsigned> stepOf;
    unsigned step = 0;
    for (Operation *op = from; op; op = op->getNextNode())
      stepOf[op] = step++;
    // The users of `value`, of `pdl.result(s)` of it, and of the ranges
    // built from it or from those.
    auto forEachUser = [](Value value, auto fn) {
      SmallVector<Value> derived = resultsOf(value);
      for (size_t i = 0; i < derived.size() + 1; ++i)
        for (Operation *user : (i ? derived[i - 1] : value).getUsers()) {
          fn(user);
          if (isa<pdl::RangeOp>(user) &&
              !llvm::is_contained(derived, user->getResult(0)))
            derived.push_back(user->getResult(0));
        }
    };
    auto lastUse = [&](Value value) {
      std::optional<unsigned> last;
      forEachUser(value, [&](Operation *user) {
        auto it = stepOf.find(user);
        if (!isa<pdl::ApplyNativeRewriteOp>(user) && it != stepOf.end() &&
            (!last || *last < it->second))
          last = it->second;
      });
      return last;
    };
    EraseConflicts conflicts;
    for (auto [e, erased] : llvm::enumerate(candidates)) {
      if (!isa<pdl::OperationType>(erased.getType()))
        continue;
      Operation *eraser = nullptr;
      for (Operation *user : erased.getUsers()) {
        auto eraseOp = dyn_cast<pdl::EraseOp>(user);
        auto replaceOp = dyn_cast<pdl::ReplaceOp>(user);
        if (!(eraseOp && eraseOp.getOpValue() == erased) &&
            !(replaceOp && replaceOp.getOpValue() == erased))
          continue;
        if (stepOf.count(user) && (!eraser || stepOf[user] < stepOf[eraser]))
          eraser = user;
      }
      if (!eraser)
        continue;
      for (auto [u, used] : llvm::enumerate(candidates)) {
        if (used == erased)
          continue;
        auto pair = {static_cast<int64_t>(e), static_cast<int64_t>(u)};
        std::optional<unsigned> last = lastUse(used);
        if (last && *last > stepOf[eraser])
          conflicts.usedAfter.append(pair);
        bool replacement = false;
        if (isa<pdl::ReplaceOp>(eraser))
          forEachUser(used,
                      [&](Operation *user) { replacement |= user == eraser; });
        if (replacement)
          conflicts.replacedBy.append(pair);
      }
    }
    return conflicts;
  }

  /// Calls `fn` with each op whose erasure frees `value` or what it holds:
  /// the op, the op defining a value or holding its block, the op whose
  /// operand or result list a range points into, or for a list of PDL's
  /// own, the holder of each value in it. Types and attributes have none.
  static void forEachHolder(const PDLValue &value,
                            llvm::function_ref<void(Operation *)> fn) {
    switch (value.getKind()) {
    case PDLValue::Kind::Operation:
      fn(value.cast<Operation *>());
      return;
    case PDLValue::Kind::Value:
      fn(getHolderOf(value.cast<Value>()));
      return;
    case PDLValue::Kind::ValueRange: {
      auto range = value.cast<ValueRange>();
      if (Operation *owner = getRangeStorageOwner(range))
        fn(owner);
      else
        for (Value item : range)
          fn(getHolderOf(item));
      return;
    }
    case PDLValue::Kind::TypeRange:
      if (Operation *owner = getRangeStorageOwner(value.cast<TypeRange>()))
        fn(owner);
      return;
    case PDLValue::Kind::Attribute:
    case PDLValue::Kind::Type:
      return;
    }
  }

  /// True if a pair (e, u) of `pairs` (eraseConflicts) holds for the live
  /// PDL values `valueAt(index)`: the op of e is, or holds, what u needs.
  static bool
  findEraseConflict(ArrayRef<int64_t> pairs,
                    llvm::function_ref<const PDLValue *(int64_t)> valueAt) {
    for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
      const PDLValue *erased = valueAt(pairs[i]);
      const PDLValue *used = valueAt(pairs[i + 1]);
      if (!erased || !used || erased->getKind() != PDLValue::Kind::Operation)
        continue;
      auto *erasedOp = erased->cast<Operation *>();
      bool conflict = false;
      forEachHolder(*used, [&](Operation *holder) {
        conflict |= erasedOp->isAncestor(holder);
      });
      if (conflict)
        return true;
    }
    return false;
  }

  /// Ends the matcher of each pattern whose rewrite could use freed IR
  /// through two PDL values of the matcher (eraseConflicts: an op nested in
  /// one it erases, a constraint's alias of a value of it) with a native
  /// constraint of ours that fails the match when they hold such IR: the
  /// pattern is not applied, and the run raises. A rewrite function's
  /// results are checked when it returns (keep).
  void addEraseGuards() {
    ModuleOp module = get().getModule();
    SmallVector<pdl::PatternOp> patterns(module.getOps<pdl::PatternOp>());
    for (pdl::PatternOp pattern : patterns) {
      pdl::RewriteOp rewrite = pattern.getRewriter();
      if (rewrite.getBodyRegion().empty() ||
          rewrite.getBodyRegion().front().empty())
        continue;
      Block &body = rewrite.getBodyRegion().front();
      SmallVector<Value> candidates;
      for (Operation &op : pattern.getBodyRegion().front())
        for (Value value : op.getResults())
          if (!isa<pdl::TypeType, pdl::AttributeType>(value.getType()) &&
              llvm::any_of(value.getUsers(), [&](Operation *user) {
                return rewrite.getBodyRegion().isAncestor(
                    user->getParentRegion());
              }))
            candidates.push_back(value);
      EraseConflicts conflicts = eraseConflicts(&body.front(), candidates);
      SmallVector<int64_t> pairs = std::move(conflicts.usedAfter);
      llvm::append_range(pairs, conflicts.replacedBy);
      if (pairs.empty())
        continue;
      std::string name =
          "__mlir_tracking_erase_guard_" + std::to_string(numEraseGuards++);
      std::string where;
      llvm::raw_string_ostream os(where);
      os << pattern.getLoc();
      OpBuilder builder(rewrite);
      pdl::ApplyNativeConstraintOp::create(builder, rewrite.getLoc(),
                                           TypeRange(), name, candidates,
                                           /*isNegated=*/false);
      get().registerConstraintFunction(
          name, [pairs, where](PatternRewriter &, PDLResultList &,
                               ArrayRef<PDLValue> values) {
            if (!findEraseConflict(pairs, [&](int64_t index) {
                  return index >= 0 &&
                                 static_cast<size_t>(index) < values.size()
                             ? &values[index]
                             : nullptr;
                }))
              return success();
            if (PythonRun *run = PythonRun::current(); run && !run->hasError())
              run->recordError(std::runtime_error(
                  "the PDL pattern at " + where +
                  " was not applied: its rewrite erases an op that another "
                  "PDL value of its matcher holds too (an op nested in it, "
                  "or a value or range of it a constraint returned), which "
                  "it uses after the erasure: PDL would use freed IR"));
            return failure();
          });
    }
  }
  unsigned numEraseGuards = 0;

  /// Ends each rewrite body that creates ops with a native rewrite of ours
  /// that checks them: MLIR's PDL builds an op from whatever operands and
  /// attributes the rewrite names (an `arith.addi` of one operand, an
  /// inherent attribute of the wrong kind, which MLIR drops), and the
  /// driver's folders and patterns then read it as valid (segfaults). An
  /// op that does not verify is replaced by placeholders (operand-less
  /// `builtin.unrealized_conversion_cast`s its users keep) and the run
  /// raises. Ops the body erases or replaces are not checked (they are gone
  /// by then), nor those a native rewrite it calls erased (the driver's
  /// erasures tell).
  void addCreatedOpChecks() {
    ModuleOp module = get().getModule();
    for (pdl::PatternOp pattern : module.getOps<pdl::PatternOp>()) {
      pdl::RewriteOp rewrite = pattern.getRewriter();
      if (rewrite.getBodyRegion().empty())
        continue;
      Block &body = rewrite.getBodyRegion().front();
      SmallVector<Value> created;
      // Per created op: whether a native rewrite takes it (and may erase it).
      std::vector<bool> toNative;
      for (auto operation : body.getOps<pdl::OperationOp>()) {
        Value op = operation.getOp();
        bool gone = llvm::any_of(op.getUsers(), [&](Operation *user) {
          if (auto replace = dyn_cast<pdl::ReplaceOp>(user))
            return replace.getOpValue() == op;
          return isa<pdl::EraseOp>(user);
        });
        if (gone)
          continue;
        created.push_back(op);
        toNative.push_back(llvm::any_of(op.getUsers(), [](Operation *user) {
          return isa<pdl::ApplyNativeRewriteOp>(user);
        }));
      }
      if (created.empty())
        continue;
      std::string name =
          "__mlir_tracking_check_created_" + std::to_string(numCreatedChecks++);
      std::string where;
      llvm::raw_string_ostream os(where);
      os << pattern.getLoc();
      OpBuilder builder = OpBuilder::atBlockEnd(&body);
      pdl::ApplyNativeRewriteOp::create(builder, rewrite.getLoc(), TypeRange(),
                                        name, created);
      get().registerRewriteFunction(
          name, [where, toNative](PatternRewriter &rewriter, PDLResultList &,
                                  ArrayRef<PDLValue> values) {
            RewriteErasures *erasures =
                RewriteErasures::get(rewriter.getContext());
            for (auto [index, value] : llvm::enumerate(values)) {
              bool mayBeGone = erasures ? erasures->refersToErased(value)
                                        : bool(toNative[index]);
              if (!mayBeGone)
                replaceIfInvalid(rewriter, value.cast<Operation *>(), where);
            }
            return success();
          });
    }
  }
  unsigned numCreatedChecks = 0;

  /// See addCreatedOpChecks.
  static void replaceIfInvalid(PatternRewriter &rewriter, Operation *op,
                               const std::string &where) {
    std::vector<DiagnosticRecord> errors;
    // (A `pdl.replace` of one created op by a user of it leaves that user
    // using itself: the greedy driver looped forever. A rewrite function's
    // value of other IR, or a later one, does not dominate it either.)
    bool usesItself = llvm::any_of(op->getOperands(), [&](Value operand) {
      return operand.getDefiningOp() == op;
    });
    bool notDominated = false;
    if (!usesItself && op->getBlock()) {
      DominanceInfo dominance;
      notDominated = llvm::any_of(op->getOperands(), [&](Value operand) {
        return !dominatesUse(dominance, operand, op);
      });
    }
    if (!usesItself && !notDominated) {
      DiagnosticCapture capture(op->getContext());
      if (succeeded(verifyOpInvariants(op)))
        return;
      errors = capture.take();
    }
    if (PythonRun *run = PythonRun::current(); run && !run->hasError())
      run->recordError(std::runtime_error(
          "the PDL pattern at " + where + " created '" +
          op->getName().getStringRef().str() + "', which does not verify" +
          (usesItself     ? std::string(" (it uses its own result)")
           : notDominated ? std::string(" (an operand does not dominate it: a "
                                        "later value, or one of other IR)")
           : errors.empty() ? std::string()
                            : " (" + errors.front().message + ")") +
          ": the driver's folders and patterns trust the IR; its uses get "
          "placeholders"));
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(op);
    SmallVector<Value> placeholders;
    for (OpResult result : op->getResults())
      placeholders.push_back(
          UnrealizedConversionCastOp::create(rewriter, op->getLoc(),
                                             result.getType(), ValueRange())
              .getResult(0));
    rewriter.replaceOp(op, placeholders);
  }

  /// Checks each `pdl.replace` with the rules of Python's `replace_op`
  /// (describeInvalidReplacement: types, what dies with the op, dominance
  /// of every use taken over), and that the op and its replacements are in
  /// the IR PDL rewrites: MLIR's PDL replaces whatever it is given (a value
  /// of another type crashed `vector.shuffle`'s folder, a user's result
  /// left that user using itself and the greedy driver folding it forever,
  /// a constraint's value of another module linked the two).
  ///
  /// A native rewrite of ours runs right before it and hands PDL the op
  /// and values to replace: when they are refused, under a dialect
  /// conversion with rollback it fails (the pattern is undone); under the
  /// greedy and walk drivers, where a failure aborts, PDL replaces a
  /// detached stand-in instead (the op stays as it was, the rest of the
  /// rewrite runs, and the run raises ValueError), and a native constraint
  /// of ours in the matcher then fails the patterns that replace that op
  /// in the run. The check runs when the pattern is applied, not when it
  /// matches: PDL evaluates a constraint among the pattern's own
  /// predicates (its types, attributes, operands) in an order of its own,
  /// and the matchers of patterns that are then not applied (a better
  /// pattern is); neither may raise. Added at freeze, once the native
  /// functions (whose analyses read the rewrites as written) are
  /// registered.
  void addReplaceChecks() {
    ModuleOp module = get().getModule();
    const char *notRefused = "__mlir_tracking_check_replace_not_refused";
    for (pdl::PatternOp pattern : module.getOps<pdl::PatternOp>()) {
      pdl::RewriteOp rewrite = pattern.getRewriter();
      if (rewrite.getBodyRegion().empty())
        continue;
      Region &rewriteRegion = rewrite.getBodyRegion();
      for (auto replace : llvm::make_early_inc_range(
               rewriteRegion.front().getOps<pdl::ReplaceOp>())) {
        std::string where;
        llvm::raw_string_ostream os(where);
        os << replace.getLoc();
        SmallVector<Value> arguments{replace.getOpValue()};
        if (Value operation = replace.getReplOperation())
          arguments.push_back(operation);
        llvm::append_range(arguments, replace.getReplValues());
        std::string id = std::to_string(numReplaceChecks++);
        if (!rewriteRegion.isAncestor(replace.getOpValue().getParentRegion())) {
          OpBuilder builder(rewrite);
          pdl::ApplyNativeConstraintOp::create(
              builder, replace.getLoc(), TypeRange(), notRefused,
              replace.getOpValue(), /*isNegated=*/false);
        }
        std::string name = "__mlir_tracking_check_replace_" + id;
        OpBuilder builder(replace);
        MLIRContext *context = module.getContext();
        auto check = pdl::ApplyNativeRewriteOp::create(
            builder, replace.getLoc(),
            TypeRange{pdl::OperationType::get(context),
                      pdl::RangeType::get(pdl::ValueType::get(context))},
            name, arguments);
        pdl::ReplaceOp::create(builder, replace.getLoc(), check.getResult(0),
                               Value(), ValueRange{check.getResult(1)});
        replace.erase();
        get().registerRewriteFunction(name, [where](PatternRewriter &rewriter,
                                                    PDLResultList &results,
                                                    ArrayRef<PDLValue> values) {
          std::string why = describeRefusedReplace(rewriter, values);
          if (why.empty())
            why = describeWalkRefusal(
                rewriter, values.front().cast<Operation *>(), "replace");
          if (why.empty()) {
            results.push_back(values.front().cast<Operation *>());
            SmallVector<Value> replacements = replacementsOf(values);
            results.push_back(ValueRange(replacements));
            return success();
          }
          if (RewriteErasures::canUndoFailedRewrite(rewriter)) {
            recordRunValueError("pdl.replace at " + where + ": " + why +
                                "; the conversion undid the pattern");
            return failure();
          }
          results.push_back(keepRefused(rewriter, values.front(),
                                        "pdl.replace at " + where, why,
                                        /*replace=*/true));
          results.push_back(ValueRange());
          return success();
        });
      }
    }
    if (!get().getConstraintFunctions().count(notRefused))
      get().registerConstraintFunction(
          notRefused, [](PatternRewriter &rewriter, PDLResultList &,
                         ArrayRef<PDLValue> values) {
            RewriteErasures *erasures =
                RewriteErasures::get(rewriter.getContext());
            return failure(erasures && erasures->wasReplacementRefused(
                                           values.front().cast<Operation *>()));
          });
  }
  unsigned numReplaceChecks = 0;

  /// Under a driver that cannot undo a pattern (greedy, walk), where a
  /// failure aborts: records why `step` ("pdl.replace at LOC") may not
  /// erase or replace the op `refused` and returns what PDL erases or
  /// replaces instead, a detached stand-in (unseen by the driver until PDL
  /// erases it). The op stays as it was, the rest of the PDL rewrite runs,
  /// and the run raises ValueError. A refused replacement no longer
  /// matches that op in the run (see addReplaceChecks).
  static Operation *keepRefused(PatternRewriter &rewriter,
                                const PDLValue &refused,
                                const std::string &step, const std::string &why,
                                bool replace) {
    RewriteErasures *erasures = RewriteErasures::get(rewriter.getContext());
    std::string kept = "the op";
    if (!erasures || !erasures->refersToErased(refused)) {
      auto *op = refused.cast<Operation *>();
      kept = "'" + op->getName().getStringRef().str() + "'";
      if (erasures && replace)
        erasures->noteRefusedReplacement(op);
    }
    recordRunValueError(step + ": " + why + "; " + kept +
                        " was kept (the rest of its PDL rewrite ran)");
    OpBuilder detached(rewriter.getContext());
    return UnrealizedConversionCastOp::create(
        detached, rewriter.getUnknownLoc(), TypeRange(), ValueRange());
  }

  /// Why a PDL rewrite of walk_and_apply_patterns may not `action` ("erase",
  /// "replace") the live op `op`, or empty (and always under other
  /// drivers). Upstream's walk driver lets a pattern erase or replace only
  /// the op it visits and ops nested in it: it has already stepped to the
  /// op after it, and holds each ancestor and the first op of their regions
  /// still to walk (erasing the op after the matched one read freed
  /// memory). Stricter than the rule for Python code (ChangeLimitScope,
  /// which refuses only what the walk holds), as upstream documents.
  static std::string describeWalkRefusal(PatternRewriter &rewriter,
                                         Operation *op, StringRef action) {
    if (!walkDriverRoot ||
        walkDriverRoot->getContext() != rewriter.getContext())
      return "";
    RewriteErasures *erasures = RewriteErasures::get(rewriter.getContext());
    // Compared, never read: the walk visits it, or it was erased.
    Operation *visited = erasures ? erasures->getWalkVisited() : nullptr;
    for (Operation *holder = op; visited && holder;
         holder = holder->getParentOp())
      if (holder == visited)
        return "";
    return "cannot " + action.str() + " '" +
           op->getName().getStringRef().str() +
           "' from a PDL rewrite of walk_and_apply_patterns: it is neither "
           "the matched op nor nested in it (the walk has already stepped to "
           "the op after the matched op and holds its ancestors; a walk "
           "pattern may erase or replace only the matched op and ops nested "
           "in it)";
  }

  /// Checks each `pdl.erase` right before it with a native rewrite of ours,
  /// which hands PDL the op to erase: under walk_and_apply_patterns an op
  /// other than the matched op and the ops nested in it is refused
  /// (describeWalkRefusal; MLIR's walk driver read the op after the matched
  /// one freed), under every driver an op the rewrite already erased (an
  /// alias of it escaping checkNoUseAfterErase). A conversion with rollback
  /// fails the pattern; the greedy and walk drivers erase a detached
  /// stand-in instead (keepRefused). Each rewrite body that erases or
  /// replaces begins by noting the op the walk visits (its root), before
  /// anything of it changed. Added at freeze, after addReplaceChecks (whose
  /// analysis reads the rewrites as written).
  void addEraseChecks() {
    ModuleOp module = get().getModule();
    MLIRContext *context = module.getContext();
    const char *noteVisit = "__mlir_tracking_note_walk_visit";
    for (pdl::PatternOp pattern : module.getOps<pdl::PatternOp>()) {
      pdl::RewriteOp rewrite = pattern.getRewriter();
      if (rewrite.getBodyRegion().empty())
        continue;
      Block &body = rewrite.getBodyRegion().front();
      SmallVector<pdl::EraseOp> erases(body.getOps<pdl::EraseOp>());
      if (erases.empty() && body.getOps<pdl::ReplaceOp>().empty())
        continue;
      OpBuilder atStart = OpBuilder::atBlockBegin(&body);
      pdl::ApplyNativeRewriteOp::create(atStart, rewrite.getLoc(), TypeRange(),
                                        noteVisit, ValueRange());
      for (pdl::EraseOp erase : erases) {
        std::string where;
        llvm::raw_string_ostream os(where);
        os << erase.getLoc();
        std::string name =
            "__mlir_tracking_check_erase_" + std::to_string(numEraseChecks++);
        OpBuilder builder(erase);
        auto check = pdl::ApplyNativeRewriteOp::create(
            builder, erase.getLoc(), pdl::OperationType::get(context), name,
            erase.getOpValue());
        erase.getOpValueMutable().assign(check.getResult(0));
        get().registerRewriteFunction(name, [where](PatternRewriter &rewriter,
                                                    PDLResultList &results,
                                                    ArrayRef<PDLValue> values) {
          const PDLValue &erased = values.front();
          std::string why;
          RewriteErasures *erasures =
              RewriteErasures::get(rewriter.getContext());
          if (erasures && erasures->refersToErased(erased))
            why = "its rewrite erased that op before (an op it erased or "
                  "replaced, or one nested in it)";
          else
            why = describeWalkRefusal(rewriter, erased.cast<Operation *>(),
                                      "erase");
          if (why.empty()) {
            results.push_back(erased.cast<Operation *>());
            return success();
          }
          if (RewriteErasures::canUndoFailedRewrite(rewriter)) {
            recordRunValueError("pdl.erase at " + where + ": " + why +
                                "; the conversion undid the pattern");
            return failure();
          }
          results.push_back(keepRefused(rewriter, erased,
                                        "pdl.erase at " + where, why,
                                        /*replace=*/false));
          return success();
        });
      }
    }
    if (!get().getRewriteFunctions().count(noteVisit))
      get().registerRewriteFunction(
          noteVisit,
          [](PatternRewriter &rewriter, PDLResultList &, ArrayRef<PDLValue>) {
            // PDL's applicator puts the insertion point before the root.
            if (walkDriverRoot &&
                walkDriverRoot->getContext() == rewriter.getContext())
              if (RewriteErasures *erasures =
                      RewriteErasures::get(rewriter.getContext()))
                erasures->noteWalkVisit(getVisitedOp(rewriter));
            return success();
          });
  }
  unsigned numEraseChecks = 0;

  /// The values a `pdl.replace` check gets after the replaced op: values,
  /// ranges of them, or an op (its results).
  static SmallVector<Value> replacementsOf(ArrayRef<PDLValue> values) {
    SmallVector<Value> replacements;
    for (const PDLValue &value : values.drop_front()) {
      if (auto *op = value.dyn_cast<Operation *>())
        llvm::append_range(replacements, op->getResults());
      else if (value.getKind() == PDLValue::Kind::Value)
        replacements.push_back(value.cast<Value>());
      else if (value.getKind() == PDLValue::Kind::ValueRange)
        llvm::append_range(replacements, value.cast<ValueRange>());
    }
    return replacements;
  }

  /// Why PDL may not replace the op `values[0]` by the rest of `values`
  /// (see addReplaceChecks), or empty.
  static std::string describeRefusedReplace(PatternRewriter &rewriter,
                                            ArrayRef<PDLValue> values) {
    MLIRContext *context = rewriter.getContext();
    if (RewriteErasures *erasures = RewriteErasures::get(context))
      if (llvm::any_of(values, [&](const PDLValue &value) {
            return erasures->refersToErased(value);
          }))
        return "it uses IR its rewrite erased before (an op it erased or "
               "replaced, one nested in it, or a value of one)";
    auto *op = values.front().cast<Operation *>();
    SmallVector<Value> replacements = replacementsOf(values);
    NewTreesOutside *outside = NewTreesOutside::get(context);
    Operation *tree = outside ? outside->getDrivenRoot() : getRootOf(op);
    if (!op->getBlock() || getRootOf(op) != tree)
      return "the op it replaces, '" + op->getName().getStringRef().str() +
             "', is not in the IR that PDL rewrites";
    for (auto [index, value] : llvm::enumerate(replacements)) {
      Operation *holder = getHolderOf(value);
      if (!holder || getRootOf(holder) != tree)
        return "replacement value #" + std::to_string(index) + " of '" +
               op->getName().getStringRef().str() +
               "' is not in the IR that PDL rewrites (a value of other IR, "
               "or of a detached op)";
    }
    return describeInvalidReplacement(
        op, replacements, outside && outside->inConversion,
        " (it is defined after that use: a later value, or a result of a "
        "user of the op)");
  }

  /// Refuses a module that does not verify (MLIR's PDL lowering reads the
  /// patterns as valid: a `pdl.pattern` without a body crashed it) or that
  /// holds ops but no `pdl.pattern` at its top (MLIR's PDL bytecode crashed
  /// on patterns in a nested module, and on a module of other ops; an empty
  /// module is an empty set of patterns, see freeze).
  static void checkShape(PyMlirContext &context, ModuleOp module) {
    {
      DiagnosticCapture capture(context.get());
      if (failed(verify(module)))
        capture.raise("PDLModule: the module does not verify");
    }
    Block *body = module.getBody();
    if (!body->empty() && body->getOps<pdl::PatternOp>().empty())
      throw py::value_error(
          "PDLModule: the module holds no 'pdl.pattern' op at its top level "
          "(patterns in nested ops are not used); found '" +
          body->front().getName().getStringRef().str() + "'");
  }

  /// Refuses, when the patterns are frozen, a native function the patterns
  /// call and nobody registered: MLIR's PDL bytecode calls it unchecked (a
  /// misspelt name crashed it).
  void checkCalledFunctionsRegistered() {
    PDLPatternModule &module = get();
    auto refuse = [](StringRef kind, StringAttr name) {
      throw py::value_error("PDLModule: the patterns call the native " +
                            kind.str() + " function '" + name.getValue().str() +
                            "', which is not registered (register it with "
                            "register_" +
                            kind.str() + "_function before freeze)");
    };
    module.getModule()->walk([&](Operation *op) {
      if (auto constraint = dyn_cast<pdl::ApplyNativeConstraintOp>(op)) {
        if (!module.getConstraintFunctions().count(constraint.getName()))
          refuse("constraint", constraint.getNameAttr());
      } else if (auto rewrite = dyn_cast<pdl::ApplyNativeRewriteOp>(op)) {
        if (!module.getRewriteFunctions().count(rewrite.getName()))
          refuse("rewrite", rewrite.getNameAttr());
      } else if (auto rewrite = dyn_cast<pdl::RewriteOp>(op)) {
        if (rewrite.getNameAttr() &&
            !module.getRewriteFunctions().count(*rewrite.getName()))
          refuse("rewrite", rewrite.getNameAttr());
      }
    });
  }

  /// Refuses native functions named like the ones this module adds
  /// (`__mlir_tracking_erase_guard_N`, whose conflicts index the arguments
  /// of the call it adds).
  static void checkReservedNames(ModuleOp module) {
    module->walk([](Operation *op) {
      StringAttr name;
      if (auto constraint = dyn_cast<pdl::ApplyNativeConstraintOp>(op))
        name = constraint.getNameAttr();
      else if (auto rewrite = dyn_cast<pdl::ApplyNativeRewriteOp>(op))
        name = rewrite.getNameAttr();
      else if (auto rewrite = dyn_cast<pdl::RewriteOp>(op))
        name = rewrite.getNameAttr();
      if (name)
        checkReservedName(name.getValue());
    });
  }

  /// Refuses `name` if it is named like the native functions this module
  /// adds (registered under it, a function replaced one of ours, or was
  /// dropped for it: MLIR keeps the first of a name).
  static void checkReservedName(StringRef name) {
    if (name.starts_with("__mlir_tracking_"))
      throw py::value_error("the PDL native function name '" + name.str() +
                            "' is reserved (names starting with "
                            "'__mlir_tracking_' are this library's)");
  }

  /// Refuses a `pdl.replace` of an op by itself or by its own results
  /// (`pdl.result` / `pdl.results` of it): MLIR would erase the op while
  /// its users still use it (the greedy driver), or map its results to
  /// themselves and loop forever (dialect conversion); and one by an op the
  /// rewrite made from those results.
  static void checkReplacements(ModuleOp module) {
    module->walk([](pdl::ReplaceOp replace) {
      Value replaced = replace.getOpValue();
      bool byItself = replace.getReplOperation() == replaced;
      for (Value value : replace.getReplValues()) {
        Operation *def = value.getDefiningOp();
        if (auto result = dyn_cast_or_null<pdl::ResultOp>(def))
          byItself |= result.getParent() == replaced;
        if (auto results = dyn_cast_or_null<pdl::ResultsOp>(def))
          byItself |= results.getParent() == replaced;
      }
      std::string where;
      llvm::raw_string_ostream os(where);
      os << replace.getLoc();
      if (byItself)
        throw py::value_error(
            "pdl.replace (" + where +
            ") replaces an op by itself or by its own results: MLIR would "
            "erase the op while it is still used");
      // An op the rewrite creates from the replaced op's results would use
      // its own results once it replaces that op (the greedy driver looped
      // forever; a conversion committed it).
      if (auto replacement = dyn_cast_or_null<pdl::OperationOp>(
              replace.getReplOperation()
                  ? replace.getReplOperation().getDefiningOp()
                  : nullptr))
        for (Value operand : replacement.getOperandValues()) {
          Operation *def = operand.getDefiningOp();
          if ((isa_and_present<pdl::ResultOp>(def) &&
               cast<pdl::ResultOp>(def).getParent() == replaced) ||
              (isa_and_present<pdl::ResultsOp>(def) &&
               cast<pdl::ResultsOp>(def).getParent() == replaced))
            throw py::value_error(
                "pdl.replace (" + where +
                ") replaces an op by one made from its own results, which "
                "would then use its own results");
        }
    });
  }

  /// Keeps `fn` alive with the module and returns the function PDL calls for
  /// it (constraints and rewrites have the same signature; a constraint may
  /// not change IR).
  std::function<LogicalResult(PatternRewriter &, PDLResultList &,
                              ArrayRef<PDLValue>)>
  keep(const std::string &name, py::function fn, bool constraint) {
    std::optional<std::vector<PDLValue::Kind>> kinds =
        resultKindsOf(name, constraint);
    std::vector<ReplacementFlow> flows;
    if (!constraint) {
      addHiddenArguments(name);
      flows = replacementFlowsOf(name);
    }
    callables.append(fn);
    PyMlirContext *ctx = context;
    PyObject *callable = fn.ptr();
    return [ctx, callable, constraint, name, kinds = std::move(kinds),
            flows = std::move(flows)](PatternRewriter &rewriter,
                                      PDLResultList &results,
                                      ArrayRef<PDLValue> values) {
      AcquireGilOrPark gil;
      FatalErrorsAbort fatalErrorsAbort;
      if (constraint) {
        ChangeLimitScope limit(nullptr, nullptr, "a PDL constraint function");
        return call(ctx, name, callable, rewriter, results, values, kinds,
                    values.size());
      }
      // PDL may hand the function what its rewrite erased (an op nested in
      // one it erased, an alias of one): do not touch it.
      if (RewriteErasures *erasures =
              RewriteErasures::get(rewriter.getContext()))
        if (llvm::any_of(values, [&](const PDLValue &value) {
              return erasures->refersToErased(value);
            })) {
          if (PythonRun *run = PythonRun::current(); run && !run->hasError())
            run->recordError(std::runtime_error(
                "PDL passes rewrite function '" + name +
                "' IR that its rewrite erased before the call (an op it "
                "erased or replaced, one nested in it, or a value or range "
                "of one): the function was not called"));
          if (RewriteErasures::canUndoFailedRewrite(rewriter))
            return failure();
          return afterFailedRewrite(rewriter, name, results, kinds);
        }
      std::optional<ChangeLimitScope> limit;
      if (walkDriverRoot)
        limit.emplace(getVisitedOp(rewriter), walkDriverRoot,
                      "a PDL rewrite function of walk_and_apply_patterns");
      // PDL goes on with the ops and values its rewrite uses after the call
      // (a `pdl.erase` of an op the function erased freed it twice): the
      // hidden arguments (addHiddenArguments); and with the results the
      // function appends.
      size_t numUserArguments = countUserArguments(values);
      KeepAliveScope keepAlive("the PDL rewrite calling '" + name + "'");
      keepValues(keepAlive, values,
                 [&](size_t index) { return index >= numUserArguments; });
      // Where a failure aborts (see afterFailedRewrite), the function runs
      // even after an earlier error of the run.
      bool canFail = RewriteErasures::canUndoFailedRewrite(rewriter) ||
                     !hasOpOrValueResults(kinds);
      LogicalResult result = call(ctx, name, callable, rewriter, results,
                                  values, kinds, numUserArguments, &flows,
                                  /*evenAfterError=*/!canFail, &keepAlive);
      if (succeeded(result)) {
        std::string conflict = findReturnedEraseConflict(
            name, values, results, rewriter.canRecoverFromRewriteFailure());
        if (!conflict.empty()) {
          if (PythonRun *run = PythonRun::current(); run && !run->hasError())
            run->recordError(std::runtime_error(conflict));
          result = failure();
        }
      }
      // A driver that rolls back (dialect conversion) takes the failure; it
      // reads no result then.
      if (succeeded(result) || RewriteErasures::canUndoFailedRewrite(rewriter))
        return result;
      return afterFailedRewrite(rewriter, name, results, kinds);
    };
  }

  /// The op whose operand or result list `range` (a ValueRange or TypeRange)
  /// points into, or null (a list of PDL's own, or an empty one):
  /// `pdl.operands` and `pdl.types` of an op give such ranges, which die with
  /// the op.
  template <typename RangeT>
  static Operation *getRangeStorageOwner(RangeT range) {
    if (range.empty())
      return nullptr;
    auto base = range.getBase();
    if (auto *operand = dyn_cast<OpOperand *>(base))
      return operand->getOwner();
    if (auto *result = dyn_cast<mlir::detail::OpResultImpl *>(base))
      return result->getOwner();
    return nullptr;
  }

  /// Keeps the ops and values among `values` whose index `selected` takes,
  /// and the ops whose operand or result lists their ranges point into.
  static void keepValues(KeepAliveScope &scope, ArrayRef<PDLValue> values,
                         llvm::function_ref<bool(size_t)> selected) {
    for (size_t index = 0; index < values.size(); ++index) {
      if (!selected(index))
        continue;
      const PDLValue &value = values[index];
      if (auto *op = value.dyn_cast<Operation *>())
        scope.keep(op);
      else if (value.getKind() == PDLValue::Kind::Value)
        scope.keep(value.cast<Value>());
      else if (value.getKind() == PDLValue::Kind::ValueRange) {
        auto range = value.cast<ValueRange>();
        if (Operation *owner = getRangeStorageOwner(range))
          scope.keep(owner);
        for (Value item : range)
          scope.keep(item);
      } else if (value.getKind() == PDLValue::Kind::TypeRange) {
        if (Operation *owner = getRangeStorageOwner(value.cast<TypeRange>()))
          scope.keep(owner);
      }
    }
  }

  /// The root of the PDL rewrite calling a function: PDL's applicator puts
  /// the insertion point before it (null if it does not).
  static Operation *getRewriteRoot(PatternRewriter &rewriter) {
    Block *block = rewriter.getInsertionBlock();
    if (!block || rewriter.getInsertionPoint() == block->end())
      return nullptr;
    return &*rewriter.getInsertionPoint();
  }

  /// The op walk_and_apply_patterns visits when it calls a PDL rewrite: the
  /// pattern applicator puts the insertion point before it, and PDL's own
  /// rewrite steps do not move it.
  static Operation *getVisitedOp(PatternRewriter &rewriter) {
    Block *block = rewriter.getInsertionBlock();
    if (!block)
      return walkDriverRoot;
    if (rewriter.getInsertionPoint() != block->end())
      return &*rewriter.getInsertionPoint();
    return block->getParentOp();
  }

  /// What a failed rewrite function returns to PDL under a driver that
  /// cannot roll back (the greedy and walk drivers, a dialect conversion
  /// without rollback). MLIR aborts the process on a failure under the
  /// first two, and a conversion without rollback goes on with what the
  /// rewrite erased, so unless it must, report success: the rest of the
  /// PDL rewrite then runs, and the driver's caller raises the recorded
  /// error. With no results, nothing of the rest depends on the function;
  /// attributes, types and ranges get stand-ins (a unit attribute, `none`,
  /// empty ranges). Ops and values have no harmless stand-in: there the
  /// greedy and walk drivers abort (upstream behaves the same), with the
  /// reason printed first; a conversion without rollback takes the failure
  /// if the rewrite erased nothing yet, else the process is stopped the
  /// same way (it would use the erased IR).
  static LogicalResult
  afterFailedRewrite(PatternRewriter &rewriter, const std::string &name,
                     PDLResultList &results,
                     const std::optional<std::vector<PDLValue::Kind>> &kinds) {
    MLIRContext *context = rewriter.getContext();
    PythonRun *run = PythonRun::current();
    std::string reason =
        "PDL rewrite function '" + name +
        "' failed under a rewrite driver that cannot undo a failed rewrite";
    if (run && !run->hasError())
      run->recordError(std::runtime_error(
          reason + " (it returned a truthy value); the rest of its PDL "
                   "rewrite ran without it"));
    std::vector<PDLValue::Kind> expected =
        kinds.value_or(std::vector<PDLValue::Kind>{});
    if (hasOpOrValueResults(kinds)) {
      RewriteErasures *erasures = RewriteErasures::get(context);
      bool mlirAborts = !rewriter.canRecoverFromRewriteFailure();
      if (!mlirAborts && erasures && !erasures->erasedAny())
        return failure();
      llvm::errs() << "mlir_tracking: " << reason
                   << ", and it has op or value results, which the rest of "
                      "the PDL rewrite would use: "
                   << (mlirAborts ? "MLIR aborts"
                                  : "the process stops (the driver would go "
                                    "on with IR the rewrite erased)")
                   << ".\n";
      if (run)
        llvm::errs() << "mlir_tracking: the error: " << run->describeError()
                     << "\n";
      llvm::errs().flush();
      if (!mlirAborts)
        llvm::report_fatal_error("a failed PDL rewrite function under a "
                                 "dialect conversion without rollback",
                                 /*gen_crash_diag=*/false);
      return failure();
    }
    // MLIR reads the list from its start: drop what the function appended.
    ResultListAccess::of(results).clear();
    for (PDLValue::Kind kind : expected) {
      if (kind == PDLValue::Kind::Attribute)
        results.push_back(UnitAttr::get(context));
      else if (kind == PDLValue::Kind::Type)
        results.push_back(NoneType::get(context));
      else if (kind == PDLValue::Kind::TypeRange)
        results.push_back(TypeRange());
      else
        results.push_back(ValueRange());
    }
    return success();
  }

  static bool
  hasOpOrValueResults(const std::optional<std::vector<PDLValue::Kind>> &kinds) {
    return kinds && llvm::any_of(*kinds, [](PDLValue::Kind kind) {
             return kind == PDLValue::Kind::Operation ||
                    kind == PDLValue::Kind::Value;
           });
  }

  /// The list a PDLResultList holds (protected, and no way to empty it).
  struct ResultListAccess : PDLResultList {
    static SmallVector<PDLValue> &of(PDLResultList &list) {
      return list.*(&ResultListAccess::results);
    }
  };

  /// Calls `fn(rewriter, results, values)` for a constraint or rewrite, with
  /// the GIL. Fails if `fn` raised, returned a truthy value, or appended
  /// results other than `kinds` (recording why in the current PythonRun).
  /// Python gets the first `numUserArguments` of `values` (the rest are
  /// hidden arguments). `fn` is borrowed: the module, then the frozen set,
  /// keep it alive.
  static LogicalResult
  call(PyMlirContext *ctx, const std::string &name, py::handle fn,
       PatternRewriter &rewriter, PDLResultList &results,
       ArrayRef<PDLValue> values,
       const std::optional<std::vector<PDLValue::Kind>> &kinds,
       size_t numUserArguments,
       const std::vector<ReplacementFlow> *flows = nullptr,
       bool evenAfterError = false, KeepAliveScope *keepAlive = nullptr) {
    // The rewrite's root, before Python moves the insertion point.
    Operation *root = getRewriteRoot(rewriter);
    // (A constraint runs before the insertion point is set.)
    Operation *tree = nullptr;
    if (NewTreesOutside *outside = NewTreesOutside::get(rewriter.getContext()))
      tree = outside->getDrivenRoot();
    else if (Block *block = rewriter.getInsertionBlock())
      if (Operation *parent = block->getParentOp())
        tree = getRootOf(parent);
    ActiveRewriterScope scope(*ctx, rewriter);
    // Python code rewrites the tree the rewriter is in.
    std::vector<PythonRewriteScope> rewrites;
    if (Block *block = rewriter.getInsertionBlock())
      if (Operation *parent = block->getParentOp())
        rewrites.emplace_back(*ctx, parent);
    for (const PDLValue &value : values)
      if (auto *op = value.dyn_cast<Operation *>())
        rewrites.emplace_back(*ctx, op);
    llvm::scope_exit finish([&] {
      restoreInsertionPointForPDL(rewriter, root, name);
      if (DriverChecks *checks = DriverChecks::get(rewriter.getContext()))
        checks->finishCall(rewriter, "PDL rewrite function '" + name + "'",
                           ResultListAccess::of(results));
    });
    return success(callPython(
        *ctx,
        [&] {
          CallScoped<PyPatternRewriter> pyRewriter(
              PyPatternRewriter{&rewriter, ctx});
          std::vector<PDLValue::Kind> appended;
          bool appendedOutside = false;
          CallScoped<PyPDLResultList> pyResults(PyPDLResultList{
              &results, ctx, &appended, kinds ? &*kinds : nullptr, keepAlive,
              tree, &appendedOutside});
          py::list args;
          {
            // Making the objects may run Python code (a gc callback).
            KeepAliveScope converting("PDL (passing its values to '" + name +
                                      "')");
            keepValues(converting, values, [](size_t) { return true; });
            for (const PDLValue &value : values.take_front(numUserArguments))
              args.append(toPython(*ctx, value));
          }
          if (!isSuccessResult(
                  callOrPark(fn, pyRewriter.object, pyResults.object, args)))
            return false;
          // A result outside the IR PDL rewrites (the run raises, see
          // PDLResultList.append) fails a constraint, and a rewrite function
          // where the failure is undone, before PDL uses it.
          if (appendedOutside &&
              (!keepAlive || RewriteErasures::canUndoFailedRewrite(rewriter)))
            return false;
          if (kinds && appended != *kinds)
            throw std::runtime_error("PDL native function '" + name +
                                     "' appended " + describeKinds(appended) +
                                     " but its PDL use expects " +
                                     describeKinds(*kinds));
          // Under the greedy and walk drivers, DriverChecks catches this later
          // (failing here would abort the process).
          if (flows && rewriter.canRecoverFromRewriteFailure())
            checkReplacementResults(name, *flows, results, values, root);
          return true;
        },
        evenAfterError));
  }

  /// Raises if a result that the PDL rewrite then uses to replace an op dies
  /// with that op: the dialect conversion would map the op's results to
  /// themselves and loop forever.
  static void checkReplacementResults(const std::string &name,
                                      ArrayRef<ReplacementFlow> flows,
                                      PDLResultList &results,
                                      ArrayRef<PDLValue> values,
                                      Operation *root) {
    SmallVector<PDLValue> &list = ResultListAccess::of(results);
    for (const ReplacementFlow &flow : flows) {
      Operation *replaced = root;
      if (flow.argument >= 0)
        replaced =
            static_cast<size_t>(flow.argument) < values.size() &&
                    values[flow.argument].getKind() == PDLValue::Kind::Operation
                ? values[flow.argument].cast<Operation *>()
                : nullptr;
      if (!replaced || flow.result >= list.size())
        continue;
      const PDLValue &result = list[flow.result];
      SmallVector<Value> replacements;
      if (result.getKind() == PDLValue::Kind::Value)
        replacements.push_back(result.cast<Value>());
      else if (result.getKind() == PDLValue::Kind::ValueRange)
        llvm::append_range(replacements, result.cast<ValueRange>());
      else if (result.getKind() == PDLValue::Kind::Operation)
        llvm::append_range(replacements,
                           result.cast<Operation *>()->getResults());
      if (llvm::any_of(replacements,
                       [&](Value value) { return diesWith(value, replaced); }))
        throw std::runtime_error(
            "PDL rewrite function '" + name + "' returned result #" +
            std::to_string(flow.result) +
            ", which its PDL rewrite uses to "
            "replace '" +
            replaced->getName().getStringRef().str() +
            "', and which dies with it (the op itself, one of its results, "
            "or a value in its regions)");
    }
  }

  static std::string describeKinds(ArrayRef<PDLValue::Kind> kinds) {
    std::string text = "[";
    llvm::raw_string_ostream os(text);
    llvm::interleaveComma(kinds, os);
    return text + "]";
  }
};

//===----------------------------------------------------------------------===//
// Configs
//===----------------------------------------------------------------------===//

/// `rewrite.TrackingConfig`.
struct PyTrackingConfig {
  TrackingConfig config;
};

/// `rewrite.GreedyRewriteConfig`.
struct PyGreedyRewriteConfig {
  GreedyRewriteConfig config;
};

/// `rewrite.ConversionConfig`: the value settings of a ConversionConfig (the
/// driver sets the listener itself).
struct PyConversionConfig {
  ConversionConfig config;
};

/// Binds `name` to a data member of the upstream config a wrapper holds.
template <typename Wrapper, typename Config, typename T>
void bindConfigField(py::class_<Wrapper> &cls, const char *name,
                     T Config::*field, const char *doc) {
  cls.def_property(
      name, [field](Wrapper &self) { return self.config.*field; },
      [field](Wrapper &self, T value) { self.config.*field = value; }, doc);
}

/// Binds `name` to a getter/setter pair of the upstream config a wrapper
/// holds (GreedyRewriteConfig keeps its fields private).
template <typename Wrapper, typename Config, typename T, typename R>
void bindConfigAccessors(py::class_<Wrapper> &cls, const char *name,
                         T (Config::*get)() const, R (Config::*set)(T),
                         const char *doc) {
  cls.def_property(
      name, [get](Wrapper &self) { return (self.config.*get)(); },
      [set](Wrapper &self, T value) { (self.config.*set)(value); }, doc);
}

TrackingConfig resolveTracking(const py::object &tracking,
                               TrackingConfig fallback) {
  if (tracking.is_none())
    return fallback;
  return tracking.cast<PyTrackingConfig &>().config;
}

PyMlirContext &checkTargetContext(PyOperation &target, py::object context) {
  if (&target.getContext() != &context.cast<PyMlirContext &>())
    throw py::value_error("the operation and the patterns belong to "
                          "different contexts");
  // A driver started from a pattern would change IR behind the running
  // driver's back (its worklist would keep erased ops).
  checkRunAllowedHere(target.getContext(), "a rewrite driver");
  return target.getContext();
}

std::string describeTracking(const TrackingConfig &config) {
  return std::string("<mlir_tracking.rewrite.TrackingConfig "
                     "require_matching_replacement_op_name=") +
         (config.requireMatchingReplacementOpName ? "True" : "False") +
         " skip_cast_ops=" + (config.skipCastOps ? "True" : "False") + ">";
}

//===----------------------------------------------------------------------===//
// Dialect conversion
//===----------------------------------------------------------------------===//

/// `rewrite.TypeConverter`.
struct PyTypeConverter {
  std::unique_ptr<TypeConverter> converter = std::make_unique<TypeConverter>();
  /// The Python callables (the converter holds borrowed handles).
  py::list callables;
  /// The context of the first use (GIL-protected). MLIR caches conversions
  /// by type address, for any context: kept alive, that context's types stay
  /// valid, and other contexts are refused (a dead context's cached type
  /// answered for a new context's type at the same address).
  py::object context;
  /// Calls into the converter under way (GIL-protected): MLIR iterates its
  /// conversions while it calls them, so none may be added meanwhile.
  int converting = 0;

  /// Binds the converter to `ctx`, or raises ValueError if it is bound to
  /// another context.
  void bindTo(PyMlirContext &ctx) {
    if (!context) {
      context = ctx.getObject();
      return;
    }
    if (&context.cast<PyMlirContext &>() != &ctx)
      throw py::value_error(
          "this TypeConverter was first used in another Context: MLIR caches "
          "its conversions by type for that context; make one TypeConverter "
          "per Context");
  }
};

/// Counts a call into `converter` while it lasts.
struct ConvertingScope {
  explicit ConvertingScope(PyTypeConverter &converter) : converter(converter) {
    ++converter.converting;
  }
  ~ConvertingScope() { --converter.converting; }
  PyTypeConverter &converter;
};

/// `rewrite.ConversionTarget`.
struct PyConversionTarget {
  py::object contextObject;
  MLIRContext *context;
  std::unique_ptr<ConversionTarget> target;
};

/// A conversion pattern whose matchAndRewrite is a Python callable
/// `fn(op, operands, type_converter, rewriter)`.
class PythonConversionPattern : public ConversionPattern {
public:
  PythonConversionPattern(PyTypeConverter &converter, py::object converterObj,
                          StringRef root, PatternBenefit benefit,
                          MLIRContext *context, py::object fn)
      : ConversionPattern(*converter.converter, root, benefit, context),
        fn(std::move(fn)), converterObj(std::move(converterObj)),
        name(getCallableName(this->fn)) {
    setDebugName(name);
  }
  ~PythonConversionPattern() override {
    AcquireGilOrPark gil;
    FatalErrorsAbort fatalErrorsAbort;
    fn = py::object();
    converterObj = py::object();
  }

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    AcquireGilOrPark gil;
    FatalErrorsAbort fatalErrorsAbort;
    PyMlirContext *context = PyMlirContext::lookup(op->getContext());
    if (!context)
      return failure();
    ActiveRewriterScope scope(*context, rewriter);
    PythonRewriteScope rewrite(*context, op);
    // The casts the conversion made for this call's operands (they differ
    // from the op's own): undone with the pattern if it fails.
    SmallVector<Operation *> materializations;
    for (auto [index, value] : llvm::enumerate(operands))
      if (value && index < op->getNumOperands() &&
          value != op->getOperand(index))
        if (auto cast = value.getDefiningOp<UnrealizedConversionCastOp>())
          if (!llvm::is_contained(materializations, cast.getOperation()))
            materializations.push_back(cast);
    RewriteErasures *erasures = RewriteErasures::get(rewriter.getContext());
    if (erasures)
      erasures->beginCall();
    bool matched = callPython(*context, [&] {
      CallScoped<PyPatternRewriter> pyRewriter(
          PyPatternRewriter{&rewriter, context});
      py::list values;
      {
        // A value caster (Python code) runs for each operand: it may not
        // free the op or the operands still to convert.
        KeepAliveScope converting("the conversion pattern '" + name +
                                  "' (passing its operands)");
        converting.keep(op);
        for (Value value : operands)
          if (value)
            converting.keep(value);
        for (Value value : operands)
          values.append(PyValue::create(*context, value));
      }
      py::object result = callOrPark(fn, rewrite.getOperation().attr("opview"),
                                     values, converterObj, pyRewriter.object);
      return isSuccessResult(result);
    });
    // (`op` may be gone: the pattern may have erased it.)
    if (NewTreesOutside *outside =
            NewTreesOutside::get(rewriter.getContext())) {
      std::string who = "conversion pattern '" + name + "'";
      // Undone now if it failed; else maybe later, when the conversion
      // cannot legalize what it made (again without notice).
      outside->forgetUndoneOps(who, materializations, matched);
      outside->finishCall(who);
    }
    return success(matched ||
                   keptChangesOfFailure(rewriter, erasures,
                                        "conversion pattern '" + name + "'"));
  }

private:
  py::object fn;
  py::object converterObj;
  std::string name;
};

/// After a conversion rolled back: the rollback freed the ops its patterns
/// created without notifying anyone, so the handles Python took to them
/// during the run end here, and no freed address stays mapped. They are the
/// tracked ops in none of the trees Python owns: `root` (restored as it
/// was) and the others (a Python pattern may create ops elsewhere; handles
/// of other IR must not end). Walks that IR, on this failure path only.
void endHandlesOfRolledBackOps(PyMlirContext &context, Operation *root,
                               StringRef driver) {
  HandleRegistry &registry = context.getRegistry();
  llvm::DenseSet<Operation *> candidates;
  registry.forEachTrackedOp(
      [&](Operation *tracked) { candidates.insert(tracked); });
  llvm::SmallPtrSet<Operation *, 4> roots{getRootOf(root)};
  for (PyOperation *operation : context.getOperationObjects())
    if (Operation *tree = operation->getResolvedOwner()->getRoot())
      roots.insert(tree);
  // What still exists: its ops, and its blocks, arguments and results
  // for the handles of blocks and values.
  llvm::DenseSet<Operation *> liveOps;
  llvm::DenseSet<const void *> liveUnits;
  for (Operation *tree : roots)
    collectLiveIR(tree, liveOps, liveUnits);
  for (Operation *live : liveOps)
    candidates.erase(live);
  constexpr const char *reason =
      "created by a dialect conversion that was rolled back";
  tracking::detail::EventSource source;
  source.pass = driver;
  for (Operation *gone : candidates)
    tracking::detail::RegistryNotifier(registry).notifyFreedOperationErased(
        gone, source, reason);
  context.getUnits().eraseAllBut(liveUnits, reason);
}

/// Runs a conversion from Python (see endHandlesOfRolledBackOps).
void runConversion(py::object op, PyConversionTarget &target,
                   PyFrozenRewritePatternSet &set, py::object pyConfig,
                   py::object tracking, bool full) {
  ConversionConfig conversionConfig;
  if (!pyConfig.is_none())
    conversionConfig = pyConfig.cast<PyConversionConfig &>().config;
  PyOperation &pyTarget = castToOperation(op);
  PyMlirContext &context = checkTargetContext(pyTarget, set.context);
  // Its legality is keyed by the op names of its own context: of another
  // context it would call nothing illegal, and the conversion would succeed
  // without converting.
  checkSameContext(context, target.context, "the conversion target");
  DriverRunLock guard(pyTarget, full ? "apply_full_conversion"
                                     : "apply_partial_conversion");
  Operation *root = guard.getOperation();
  const char *driver =
      full ? "apply_full_conversion" : "apply_partial_conversion";
  PythonRun run;
  LogicalResult result = failure();
  {
    ScopedRewriteAttribution attribution(
        full ? "apply_full_conversion" : "apply_partial_conversion", root);
    DiagnosticCapture capture(context.get());
    // Without rollback, a PDL rewrite frees what it erases at once.
    ErasureListener erasures(
        context.get(),
        /*changesStay=*/!conversionConfig.allowPatternRollback);
    NewTreesOutside outside(root);
    outside.inConversion = true;
    outside.rollsBack = conversionConfig.allowPatternRollback;
    // Without rollback the driver erases at once (handles end).
    std::optional<ConversionRemovals> removals;
    if (conversionConfig.allowPatternRollback)
      removals.emplace(context.get());
    if (!conversionConfig.listener)
      conversionConfig.listener = &erasures;
    TrackingConfig config =
        resolveTracking(tracking, getConversionTrackingConfig());
    // The driver ends the process when a pattern without rollback leaves ops
    // it cannot legalize: raised instead (FatalErrors.h).
    std::optional<FatalErrorStop> stopped;
    try {
      FatalErrorsRaise fatalErrorsRaise;
      result =
          full ? applyFullConversionTracked(root, *target.target, *set.patterns,
                                            conversionConfig, config)
               : applyPartialConversionTracked(root, *target.target,
                                               *set.patterns, conversionConfig,
                                               config);
    } catch (FatalErrorStop &stop) {
      stopped = std::move(stop);
    }
    if (stopped)
      throw MLIRErrorException{
          std::string(driver) + " stopped: " + stopped->reason +
              (conversionConfig.allowPatternRollback
                   ? " (the IR may hold what the conversion had not undone)"
                   : " (without rollback the IR stays as the patterns left "
                     "it, partly converted)") +
              (run.hasError()
                   ? "; first error of a Python pattern: " + run.describeError()
                   : std::string()),
          capture.take()};
    // Without rollback the driver changed the IR as it went (and notified
    // at once): the ops it created are still there.
    if (failed(result) && !conversionConfig.allowPatternRollback) {
      run.rethrowIfError();
      capture.raise(full ? "full conversion failed"
                         : "partial conversion failed");
    }
    if (failed(result)) {
      endHandlesOfRolledBackOps(context, root, driver);
      run.rethrowIfError();
      capture.raise(full ? "full conversion failed"
                         : "partial conversion failed");
    }
  }
  run.rethrowIfError();
  guard.succeeded(set.mayMakeInvalidIR());
}

} // namespace

//===----------------------------------------------------------------------===//
// Bindings
//===----------------------------------------------------------------------===//

void mlir::tracking::python::populateRewrite(py::module_ &m) {
  m.def("_region_dominance_walks", &getNumRegionDominanceWalks,
        "How many times checks of changes inside Python patterns walked a "
        "whole region for uses left without dominance (for tests).");
  py::enum_<GreedyRewriteStrictness>(
      m, "GreedyRewriteStrictness",
      "Which ops the greedy driver may rewrite besides the initial ones.")
      .value("ANY_OP", GreedyRewriteStrictness::AnyOp)
      .value("EXISTING_AND_NEW_OPS", GreedyRewriteStrictness::ExistingAndNewOps)
      .value("EXISTING_OPS", GreedyRewriteStrictness::ExistingOps);

  py::enum_<GreedySimplifyRegionLevel>(
      m, "GreedySimplifyRegionLevel",
      "How much control-flow simplification the greedy driver does.")
      .value("DISABLED", GreedySimplifyRegionLevel::Disabled)
      .value("NORMAL", GreedySimplifyRegionLevel::Normal)
      .value("AGGRESSIVE", GreedySimplifyRegionLevel::Aggressive);

  py::class_<PyTrackingConfig> trackingConfig(
      m, "TrackingConfig",
      "How handles find the op that replaces theirs, per driver run (the "
      "transform dialect's TrackingListener knobs).");
  trackingConfig
      .def(py::init([](bool requireName, bool skipCasts) {
             PyTrackingConfig config;
             config.config.requireMatchingReplacementOpName = requireName;
             config.config.skipCastOps = skipCasts;
             return config;
           }),
           py::arg("require_matching_replacement_op_name") = true,
           py::arg("skip_cast_ops") = true,
           "Defaults are the greedy drivers' (names must match; casts are "
           "looked through). Conversions default to names not required.")
      .def("__repr__", [](PyTrackingConfig &self) {
        return describeTracking(self.config);
      });
  bindConfigField(trackingConfig, "require_matching_replacement_op_name",
                  &TrackingConfig::requireMatchingReplacementOpName,
                  "Follow a replacement only if it has the replaced op's name "
                  "(or is constant-like).");
  bindConfigField(trackingConfig, "skip_cast_ops", &TrackingConfig::skipCastOps,
                  "Look through cast ops when looking for the replacement op.");

  py::class_<PyGreedyRewriteConfig> greedyConfig(
      m, "GreedyRewriteConfig", "Options of the greedy pattern driver.");
  greedyConfig.def(py::init<>(), "The driver's defaults.");
  using Greedy = GreedyRewriteConfig;
  bindConfigAccessors(greedyConfig, "max_iterations", &Greedy::getMaxIterations,
                      &Greedy::setMaxIterations,
                      "Maximum number of iterations (-1: no limit).");
  bindConfigAccessors(
      greedyConfig, "max_num_rewrites", &Greedy::getMaxNumRewrites,
      &Greedy::setMaxNumRewrites,
      "Maximum number of rewrites per iteration (-1: no limit).");
  bindConfigAccessors(
      greedyConfig, "use_top_down_traversal", &Greedy::getUseTopDownTraversal,
      &Greedy::setUseTopDownTraversal, "Seed the worklist top-down.");
  bindConfigAccessors(greedyConfig, "enable_folding", &Greedy::isFoldingEnabled,
                      &Greedy::enableFolding,
                      "Fold ops (handles follow folds to constants).");
  bindConfigAccessors(greedyConfig, "enable_constant_cse",
                      &Greedy::isConstantCSEEnabled, &Greedy::enableConstantCSE,
                      "Deduplicate constants.");
  bindConfigAccessors(greedyConfig, "strictness", &Greedy::getStrictness,
                      &Greedy::setStrictness, "A GreedyRewriteStrictness.");
  bindConfigAccessors(greedyConfig, "region_simplification_level",
                      &Greedy::getRegionSimplificationLevel,
                      &Greedy::setRegionSimplificationLevel,
                      "A GreedySimplifyRegionLevel.");
  greedyConfig.def("__repr__", [](PyGreedyRewriteConfig &self) {
    return "<mlir_tracking.rewrite.GreedyRewriteConfig max_iterations=" +
           std::to_string(self.config.getMaxIterations()) +
           " max_num_rewrites=" +
           std::to_string(self.config.getMaxNumRewrites()) + ">";
  });

  py::class_<PyPatternRewriter>(
      m, "PatternRewriter",
      "The rewriter handed to a Python pattern; every change made through it "
      "(and every IR change Python makes while the pattern runs) is seen by "
      "the driver and tracked. Valid only during that call.")
      .def_property_readonly(
          "ip",
          [](PyPatternRewriter &self) {
            RewriterBase &rewriter = self.get();
            Block *block = rewriter.getInsertionBlock();
            if (!block && isInsertionPointErased(rewriter))
              throw std::runtime_error(
                  "the rewriter's insertion point was erased: its block (or "
                  "an op holding it) was erased; set a new one with "
                  "set_insertion_point_before/after");
            if (!block)
              throw std::runtime_error("the rewriter has no insertion point");
            py::object ref = py::none();
            if (rewriter.getInsertionPoint() != block->end())
              ref = PyOperation::forOperation(*self.context,
                                              &*rewriter.getInsertionPoint());
            return py::cast(
                PyInsertionPoint{PyBlock::create(*self.context, block), ref});
          },
          "The insertion point (before the matched op by default), as an "
          "ir.InsertionPoint: `with rewriter.ip:` creates ops there.")
      .def(
          "set_insertion_point_before",
          [](PyPatternRewriter &self, py::object op) {
            RewriterBase &rewriter = self.get();
            rewriter.setInsertionPoint(rewriterOperand(self, op));
            self.keepInsertionPoint(op);
          },
          py::arg("op"), "Moves the insertion point before `op`.")
      .def(
          "set_insertion_point_after",
          [](PyPatternRewriter &self, py::object op) {
            RewriterBase &rewriter = self.get();
            rewriter.setInsertionPointAfter(rewriterOperand(self, op));
            self.keepInsertionPoint(op);
          },
          py::arg("op"), "Moves the insertion point after `op`.")
      .def(
          "replace_op",
          [](PyPatternRewriter &self, py::object op, py::object with,
             py::object values) {
            RewriterBase &rewriter = self.get();
            if (with.is_none() == values.is_none())
              throw py::type_error("replace_op takes a new operation or a "
                                   "list of values");
            if (with.is_none())
              with = values;
            bool byOperation = isInstance<PyOperation>(with) ||
                               isInstance<PyModule>(with) || unwrapOpView(with);
            // First, before any raw pointer: `values` may be a generator
            // that changes the IR.
            py::list valueObjects = byOperation ? py::list() : py::list(with);
            Operation *target = rewriterOperand(self, op);
            bool converts = isInConversion(*self.context);
            checkInConvertedIR(self, target, "replace");
            checkNotRemovedInConversion(*self.context, target, "replace");
            checkNotRunAnchor(target, "replace");
            checkChangeAllowed(target, "replace");
            // Its results' uses move to the replacement; a use of what is
            // in its regions would be left dangling.
            checkNoUseOutside(target, "replace", /*ownResults=*/false);
            self.context->noteChanged(target);
            if (byOperation) {
              Operation *replacement = castToOperation(with).get();
              // (A handle following the replacement into another context
              // outlived it.)
              checkSameContext(*self.context, replacement->getContext(),
                               "a replacement operation");
              if (!replacement->getBlock())
                throw py::value_error("the replacement operation is not in "
                                      "a block; create it at rewriter.ip");
              if (target->isAncestor(replacement))
                throw py::value_error("cannot replace an operation by "
                                      "itself or by an op nested in it");
              if (target->getNumResults() != replacement->getNumResults())
                throw py::value_error(
                    "the replacement has " +
                    std::to_string(replacement->getNumResults()) +
                    " results, the operation " +
                    std::to_string(target->getNumResults()));
              // A conversion replaces by converted types, and casts back
              // for the uses it does not convert.
              if (!converts &&
                  target->getResultTypes() != replacement->getResultTypes())
                throw py::value_error("a result of the replacement has "
                                      "another type than the result it "
                                      "replaces");
              checkUseListChange(*self.context, replacement);
              checkReplacementDominates(target, replacement->getResults());
              for (Value result : replacement->getResults())
                checkUsableInConversion(*self.context, result, [&] {
                  return describeReplacing(target);
                });
              rewriter.replaceOp(target, replacement);
              noteRemovedInConversion(*self.context, target, /*erased=*/false);
              return;
            }
            SmallVector<Value> newValues;
            for (py::handle value : valueObjects) {
              newValues.push_back(castToValue(value));
              checkSameContext(*self.context, newValues.back().getContext(),
                               "a replacement value");
            }
            std::string invalid = describeInvalidReplacement(
                target, newValues, converts,
                " (make the replacement before the op, at rewriter.ip)");
            if (!invalid.empty())
              throw py::value_error(invalid);
            for (Value value : newValues)
              checkUsableInConversion(*self.context, value, [&] {
                return describeReplacing(target);
              });
            rewriter.replaceOp(target, newValues);
            noteRemovedInConversion(*self.context, target, /*erased=*/false);
          },
          py::arg("op"), py::arg("new_op") = py::none(),
          py::arg("values") = py::none(),
          "replace_op(op, new_op): replaces `op` by `new_op` (results in "
          "order) and erases `op`. replace_op(op, values): replaces result i "
          "by values[i] and erases `op`. Handles to `op` follow the "
          "replacement op under the run's TrackingConfig, else become "
          "erased.")
      .def(
          "erase_op",
          [](PyPatternRewriter &self, py::object op) {
            RewriterBase &rewriter = self.get();
            Operation *target = rewriterOperand(self, op);
            checkInConvertedIR(self, target, "erase");
            checkNotRemovedInConversion(*self.context, target, "erase");
            checkNotRunAnchor(target, "erase");
            checkChangeAllowed(target, "erase");
            checkTerminatorStaysInPattern(*self.context, target, "erase");
            self.context->noteChanged(target);
            if (!target->getBlock())
              throw py::value_error("cannot erase a detached operation with "
                                    "the rewriter; use Operation.erase");
            for (Operation *user : target->getUsers())
              if (!target->isAncestor(user))
                throw py::value_error("cannot erase '" +
                                      target->getName().getStringRef().str() +
                                      "': its results are still used");
            // (A detached op kept from Python may use values in it.)
            checkNoUseOutside(target, "erase", /*ownResults=*/false);
            rewriter.eraseOp(target);
            noteRemovedInConversion(*self.context, target, /*erased=*/true);
          },
          py::arg("op"), "Erases `op` (its results must be unused).")
      .def(
          "modify_op_in_place",
          [](PyPatternRewriter &self, py::object op, py::function fn) {
            RewriterBase &rewriter = self.get();
            Operation *target = rewriterOperand(self, op);
            checkChangeAllowed(nullptr, "modify an op");
            self.context->noteChanged(target);
            // What `fn` may change, to undo it if it leaves `target` invalid.
            NamedAttrList attributes(target->getAttrDictionary());
            SmallVector<Value> operands(target->getOperands());
            SmallVector<Block *> successors(target->getSuccessors());
            SmallVector<Type> resultTypes(target->getResultTypes());
            Location location = target->getLoc();
            auto undo = [&] {
              rewriter.modifyOpInPlace(target, [&] {
                target->setAttrs(
                    attributes.getDictionary(target->getContext()));
                target->setOperands(operands);
                for (auto [index, block] : llvm::enumerate(successors))
                  target->setSuccessor(block, index);
                for (auto [result, type] :
                     llvm::zip(target->getResults(), resultTypes))
                  result.setType(type);
                target->setLoc(location);
              });
            };
            rewriter.startOpModification(target);
            try {
              OpModificationScope modification(target);
              // The undo restores them.
              KeepAliveScope keepAlive("modify_op_in_place of '" +
                                       target->getName().getStringRef().str() +
                                       "' (to undo an invalid change)");
              for (Value operand : operands)
                keepAlive.keep(operand);
              for (Block *successor : successors)
                keepAlive.keep(successor);
              callOrPark(fn);
            } catch (...) {
              rewriter.finalizeOpModification(target);
              // `fn` raised half-way: the op may be invalid too. Undo then
              // as well; `fn`'s exception says what went wrong.
              try {
                checkInvariantsInPattern(*self.context, target,
                                         "modify_op_in_place", undo);
              } catch (MLIRErrorException &) {
              }
              throw;
            }
            rewriter.finalizeOpModification(target);
            checkInvariantsInPattern(*self.context, target,
                                     "modify_op_in_place", undo);
          },
          py::arg("op"), py::arg("fn"),
          "Calls `fn()`, which changes `op` in place (attributes, operands, "
          "successors, result types, location), and tells the driver that "
          "`op` changed. In a greedy or walk pattern, a change that leaves "
          "`op` invalid is undone and raises MLIRError.")
      .def(
          "inline_block_before",
          [](PyPatternRewriter &self, py::object source, py::object op,
             std::optional<py::list> argValues) {
            RewriterBase &rewriter = self.get();
            Block *block = source.cast<PyBlock &>().get();
            Operation *before = rewriterOperand(self, op);
            auto inlining = [] { return std::string("inline the block"); };
            checkDestinationInConversion(*self.context, block->getParentOp(),
                                         inlining);
            checkDestinationInConversion(*self.context, before->getParentOp(),
                                         inlining);
            checkNotRunAnchor(block, "inline");
            self.context->noteChanged(before);
            if (Operation *parent = block->getParentOp())
              self.context->noteChanged(parent);
            if (block->getParent() &&
                block->getParent()->findAncestorOpInRegion(*before))
              throw py::value_error("cannot inline a block into its own "
                                    "region");
            // The block is erased: branches to it would be left pointing
            // at freed memory (upstream only asserts this).
            if (!block->hasNoPredecessors())
              throw py::value_error("cannot inline a block that branches "
                                    "still target");
            checkChangeAllowed(block->getParentOp(), "inline a block of");
            checkChangeAllowed(nullptr, "inline a block");
            checkBlockNotKept(block, "inline");
            checkBlockChangeAllowed(block, "inline");
            if (Operation *holder = block->getParentOp();
                !holder || getRootOf(holder) != getRootOf(before))
              for (Operation &moved : *block)
                checkKeptStaysInTree(&moved);
            SmallVector<Value> values;
            if (argValues)
              for (py::handle value : *argValues)
                values.push_back(castToValue(value));
            if (values.size() != block->getNumArguments())
              throw py::value_error("expected " +
                                    std::to_string(block->getNumArguments()) +
                                    " values for the block arguments, got " +
                                    std::to_string(values.size()));
            checkInlinedArgumentValues(block, values, before->getContext());
            if (DriverChecks::get(before->getContext()))
              checkInlinedValuesDominate(block, values, before);
            // Upstream's idiom takes the body out of an op and then replaces
            // the op: until the pattern ends, the region keeps a copy, unseen
            // by the driver, so that the IR stays valid if it keeps the op.
            std::vector<DiagnosticRecord> errors;
            if (regionNeedsBlockInPattern(*self.context, block, errors)) {
              DriverChecks *checks =
                  DriverChecks::get(block->getParentOp()->getContext());
              if (!checks)
                checkRegionKeepsBlockInPattern(*self.context, block,
                                               "inlining the block");
              Block *copy = new Block();
              IRMapping mapping;
              for (BlockArgument argument : block->getArguments())
                mapping.map(argument, copy->addArgument(argument.getType(),
                                                        argument.getLoc()));
              block->getParent()->push_back(copy);
              OpBuilder builder = OpBuilder::atBlockEnd(copy);
              for (Operation &op : *block)
                builder.clone(op, mapping);
              checks->expectRemoval(block->getParentOp(),
                                    block->getParent()->getRegionNumber());
            }
            if (DriverChecks *checks = DriverChecks::get(before->getContext());
                checks && !block->empty() &&
                block->back().hasTrait<OpTrait::IsTerminator>())
              checks->expectErasure(&block->back());
            rewriter.inlineBlockBefore(block, before, values);
          },
          py::arg("source"), py::arg("op"), py::arg("arg_values") = py::none(),
          "Moves the ops of `source` before `op`, replacing its arguments by "
          "`arg_values`, and erases `source`.")
      .def(
          "notify_match_failure",
          [](PyPatternRewriter &self, py::object op, const std::string &msg) {
            RewriterBase &rewriter = self.get();
            Operation *target = rewriterOperand(self, op);
            (void)rewriter.notifyMatchFailure(target, msg);
            return true;
          },
          py::arg("op"), py::arg("message"),
          "Reports why the pattern did not match; returns True, so "
          "`return rewriter.notify_match_failure(op, '...')` fails the match.")
      .def("__repr__", [](PyPatternRewriter &self) {
        return std::string("<mlir_tracking.rewrite.PatternRewriter") +
               (self.rewriter ? ">" : " (expired)>");
      });

  py::class_<PyFrozenRewritePatternSet>(
      m, "FrozenRewritePatternSet",
      "An immutable pattern set, ready for the drivers.")
      .def("__repr__", [](PyFrozenRewritePatternSet &) {
        return std::string("<mlir_tracking.rewrite.FrozenRewritePatternSet>");
      });

  py::class_<PyRewritePatternSet>(m, "RewritePatternSet",
                                  "A set of rewrite patterns.")
      .def(py::init([](py::object context) {
             PyMlirContext &ctx = PyMlirContext::resolve(context);
             return PyRewritePatternSet{
                 ctx.getObject(), &ctx,
                 std::make_unique<RewritePatternSet>(ctx.get())};
           }),
           py::arg("context") = py::none(), "An empty set.")
      .def(
          "add",
          [](PyRewritePatternSet &self, py::handle root, py::function fn,
             unsigned benefit) {
            RewritePatternSet &patterns = self.get();
            std::string name = getRootName(root);
            patterns.add(std::make_unique<PythonPattern>(
                name, checkedBenefit(benefit), self.context->get(), fn));
          },
          py::arg("root"), py::arg("fn"), py::arg("benefit") = 1,
          "Adds a pattern on ops named `root` (a name or a class with "
          "OPERATION_NAME): `fn(op, rewriter)` matches and rewrites; the "
          "match succeeds iff its result is falsy (e.g. None). An exception "
          "aborts the driver run and is re-raised by it.")
      .def(
          "add_conversion",
          [](PyRewritePatternSet &self, py::handle root, py::function fn,
             py::object typeConverter, unsigned benefit) {
            RewritePatternSet &patterns = self.get();
            auto &converter = typeConverter.cast<PyTypeConverter &>();
            converter.bindTo(*self.context);
            patterns.add(std::make_unique<PythonConversionPattern>(
                converter, typeConverter, getRootName(root),
                checkedBenefit(benefit), self.context->get(), fn));
          },
          py::arg("root"), py::arg("fn"), py::arg("type_converter"),
          py::arg("benefit") = 1,
          "Adds a conversion pattern: `fn(op, operands, type_converter, "
          "rewriter)` with the converted operands as a list (upstream passes "
          "an adaptor); the match succeeds iff the result is falsy.")
      .def(
          "add_canonicalization_patterns",
          [](PyRewritePatternSet &self) {
            RewritePatternSet &patterns = self.get();
            MLIRContext *context = self.context->get();
            for (Dialect *dialect : context->getLoadedDialects())
              dialect->getCanonicalizationPatterns(patterns);
            for (RegisteredOperationName op :
                 context->getRegisteredOperations())
              op.getCanonicalizationPatterns(patterns, context);
          },
          "Adds the canonicalization patterns of every loaded dialect and "
          "registered op (what `canonicalize` applies).")
      .def(
          "freeze",
          [](PyRewritePatternSet &self) {
            RewritePatternSet &patterns = self.get();
            PyFrozenRewritePatternSet frozen{
                self.contextObject,
                std::make_shared<FrozenRewritePatternSet>(std::move(patterns)),
                py::list()};
            self.patterns.reset();
            return frozen;
          },
          "Freezes the set (which becomes unusable) for the drivers.")
      .def("__repr__", [](PyRewritePatternSet &self) {
        if (!self.patterns)
          return std::string("<mlir_tracking.rewrite.RewritePatternSet "
                             "(frozen)>");
        return "<mlir_tracking.rewrite.RewritePatternSet with " +
               std::to_string(self.patterns->getNativePatterns().size()) +
               " patterns>";
      });

  py::class_<PyPDLResultList>(m, "PDLResultList",
                              "The results of a PDL native function.")
      .def(
          "append",
          [](PyPDLResultList &self, py::object value) {
            PDLResultList &results = self.get();
            // Objects of another context would be wired into this one's IR
            // and read after that context is freed.
            auto inContext = [&](auto object) {
              checkSameContext(*self.context, object.getContext(),
                               "a PDL result");
              return object;
            };
            auto valueOf = [&](py::handle item) {
              return inContext(castToValue(item));
            };
            auto typeOf = [&](py::handle item) {
              return inContext(item.cast<PyType &>().type);
            };
            // A result outside the rewritten IR (which the driver's lock
            // keeps from other threads): its tree is pinned until the run
            // ends, before PDL holds it.
            auto pinIfOutside = [&](auto object) {
              if (self.inTree(object))
                return false;
              Operation *holder = PyPDLResultList::holderOf(object);
              if (PythonRun *run = PythonRun::current(); run && holder)
                run->pinUntilEnd(
                    PyOperation::forOperation(*self.context, getRootOf(holder))
                        .template cast<PyOperation &>());
              return true;
            };
            PDLValue::Kind kind;
            bool outside = false;
            if (isInstance<PyValue>(value)) {
              kind = PDLValue::Kind::Value;
              Value result = valueOf(value);
              outside = pinIfOutside(result);
              if (self.keepAlive)
                self.keepAlive->keep(result);
              results.push_back(result);
            } else if (isInstance<PyType>(value)) {
              kind = PDLValue::Kind::Type;
              results.push_back(typeOf(value));
            } else if (isInstance<PyAttribute>(value)) {
              kind = PDLValue::Kind::Attribute;
              results.push_back(
                  inContext(value.cast<PyAttribute &>().attribute));
            } else if (py::isinstance<py::list>(value) ||
                       py::isinstance<py::tuple>(value)) {
              // A range: of types if its items are (or, empty, if PDL
              // expects types here), else of values.
              // A plain list first: a subclass's __iter__ is Python code,
              // which may not run between the raw values below.
              py::list items(value);
              size_t position = self.appended ? self.appended->size() : 0;
              bool types = items.size()
                               ? isInstance<PyType>(items[0])
                               : self.expected &&
                                     position < self.expected->size() &&
                                     (*self.expected)[position] ==
                                         PDLValue::Kind::TypeRange;
              if (types) {
                kind = PDLValue::Kind::TypeRange;
                SmallVector<Type> list;
                for (py::handle item : items)
                  list.push_back(typeOf(item));
                results.push_back(TypeRange(list));
              } else {
                kind = PDLValue::Kind::ValueRange;
                SmallVector<Value> list;
                for (py::handle item : items)
                  list.push_back(valueOf(item));
                for (Value item : list)
                  outside |= pinIfOutside(item);
                if (self.keepAlive)
                  for (Value item : list)
                    self.keepAlive->keep(item);
                results.push_back(ValueRange(list));
              }
            } else {
              kind = PDLValue::Kind::Operation;
              Operation *op = castToOperation(value).get();
              checkSameContext(*self.context, op->getContext(), "a PDL result");
              outside = pinIfOutside(op);
              if (self.keepAlive)
                self.keepAlive->keep(op);
              results.push_back(op);
            }
            if (self.appended)
              self.appended->push_back(kind);
            // PDL reads the result after the function returned, and a
            // detached op lives only as long as its handle. One outside
            // the IR leaves that IR using an op in no block: the run
            // raises (failing here would abort the process, see
            // afterFailedRewrite).
            if (outside && self.appendedOutside)
              *self.appendedOutside = true;
            if (PythonRun *run = PythonRun::current()) {
              run->keepUntilEnd(value);
              if (outside && !run->hasError())
                run->recordError(std::runtime_error(
                    "a PDL result is not in the IR that PDL rewrites (a "
                    "detached op, or one of other IR): create ops at "
                    "rewriter.ip"));
            }
          },
          py::arg("value"),
          "Appends a Value, Operation, Type or Attribute result, or a list "
          "of Values or Types (a range).")
      .def("__repr__", [](PyPDLResultList &self) {
        return std::string("<mlir_tracking.rewrite.PDLResultList") +
               (self.results ? ">" : " (expired)>");
      });

  py::class_<PyPDLModule>(
      m, "PDLModule",
      "PDL patterns (`pdl.pattern` ops of a module, which is copied), with "
      "native constraints and rewrites written in Python.")
      .def(py::init([](py::object module) {
             PyOperation &op = castToOperation(module);
             auto moduleOp = dyn_cast<ModuleOp>(op.get());
             if (!moduleOp)
               throw py::type_error("PDLModule expects a builtin.module");
             PyMlirContext &ctx = op.getContext();
             PyPDLModule::checkShape(ctx, moduleOp);
             PyPDLModule::checkReservedNames(moduleOp);
             PyPDLModule::checkReplacements(moduleOp);
             PyPDLModule::checkNoUseAfterErase(moduleOp);
             PyPDLModule pdl{ctx.getObject(), &ctx,
                             std::make_unique<PDLPatternModule>(
                                 OwningOpRef<ModuleOp>(moduleOp.clone())),
                             py::list()};
             pdl.addEraseGuards();
             pdl.addCreatedOpChecks();
             return pdl;
           }),
           py::arg("module"), "Copies the PDL patterns of `module`.")
      .def(
          "register_constraint_function",
          [](PyPDLModule &self, const std::string &name, py::function fn) {
            PDLPatternModule &module = self.get();
            PyPDLModule::checkReservedName(name);
            module.registerConstraintFunction(
                name, self.keep(name, std::move(fn), /*constraint=*/true));
          },
          py::arg("name"), py::arg("fn"),
          "`fn(rewriter, results, values)` holds iff it returns a falsy "
          "value (upstream's rule).")
      .def(
          "register_rewrite_function",
          [](PyPDLModule &self, const std::string &name, py::function fn) {
            PDLPatternModule &module = self.get();
            PyPDLModule::checkReservedName(name);
            module.registerRewriteFunction(
                name, self.keep(name, std::move(fn), /*constraint=*/false));
          },
          py::arg("name"), py::arg("fn"),
          "`fn(rewriter, results, values)` rewrites through `rewriter`; a "
          "truthy result fails the rewrite.")
      .def(
          "freeze",
          [](PyPDLModule &self) {
            self.checkCalledFunctionsRegistered();
            self.addReplaceChecks();
            self.addEraseChecks();
            PDLPatternModule &module = self.get();
            // MLIR's PDL bytecode crashes on a module without patterns.
            RewritePatternSet set =
                module.getModule().getBody()->getOps<pdl::PatternOp>().empty()
                    ? RewritePatternSet(self.context->get())
                    : RewritePatternSet(std::move(module));
            self.module.reset();
            PyFrozenRewritePatternSet frozen{
                self.contextObject,
                std::make_shared<FrozenRewritePatternSet>(std::move(set)),
                self.callables};
            return frozen;
          },
          "Freezes the PDL patterns (this module becomes unusable).")
      .def("__repr__", [](PyPDLModule &self) {
        return std::string("<mlir_tracking.rewrite.PDLModule") +
               (self.module ? ">" : " (frozen)>");
      });

  m.def(
      "apply_patterns_and_fold_greedily",
      [](py::object op, PyFrozenRewritePatternSet &set,
         std::optional<PyGreedyRewriteConfig> config, py::object tracking) {
        PyOperation &target = castToOperation(op);
        checkTargetContext(target, set.context);
        DriverRunLock guard(target, "apply_patterns_and_fold_greedily");
        Operation *root = guard.getOperation();
        PythonRun run;
        ScopedRewriteAttribution attribution("apply_patterns_and_fold_greedily",
                                             root);
        GreedyRewriteConfig greedy =
            config ? config->config : GreedyRewriteConfig();
        DriverChecks checks(root);
        greedy.setListener(&checks);
        LogicalResult result = applyPatternsGreedilyTracked(
            root, *set.patterns, greedy,
            resolveTracking(tracking, TrackingConfig()));
        checks.finishPattern("a pattern of apply_patterns_and_fold_greedily");
        run.rethrowIfError();
        if (failed(result))
          throw std::runtime_error("pattern application failed to converge");
        guard.succeeded(set.mayMakeInvalidIR());
      },
      py::arg("op"), py::arg("set"), py::arg("config") = py::none(),
      py::arg("tracking_config") = py::none(),
      "Applies the patterns to the ops nested in `op` (an Operation or a "
      "Module) until a fixpoint, folding and removing dead code; handles "
      "follow every change. Raises RuntimeError if it did not converge, "
      "and re-raises the first exception of a Python pattern.");

  py::class_<PyTypeConverter>(m, "TypeConverter",
                              "Type conversions for dialect conversion.")
      .def(py::init<>(), "A converter with no conversions.")
      .def(
          "add_conversion",
          [](PyTypeConverter &self, py::function fn) {
            if (self.converting)
              throw std::runtime_error(
                  "TypeConverter.add_conversion: the converter is converting "
                  "a type (MLIR iterates its conversions meanwhile); add "
                  "conversions before using it");
            self.callables.append(fn);
            PyObject *callable = fn.ptr();
            PyTypeConverter *owner = &self;
            self.converter->addConversion(
                [callable, owner](Type type) -> std::optional<Type> {
                  AcquireGilOrPark gil;
                  FatalErrorsAbort fatalErrorsAbort;
                  PyMlirContext *context =
                      PyMlirContext::lookup(type.getContext());
                  // Not handled (MLIR caches a failed conversion, never
                  // one that none handled).
                  if (!context || !owner->context ||
                      &owner->context.cast<PyMlirContext &>() != context)
                    return std::nullopt;
                  ConvertingScope converting(*owner);
                  // The conversion driver holds raw ops and values
                  // across this call.
                  ChangeLimitScope limit(nullptr, nullptr,
                                         "a TypeConverter conversion",
                                         "the dialect conversion holds the IR "
                                         "it is converting");
                  std::optional<Type> converted;
                  bool called = callPython(*context, [&] {
                    py::object result =
                        callOrPark(callable, makeType(*context, type));
                    if (result.is_none())
                      return true;
                    if (!isInstance<PyType>(result)) {
                      PyErr_Format(PyExc_TypeError,
                                   "a TypeConverter conversion must return an "
                                   "ir.Type or None, got %s",
                                   Py_TYPE(result.ptr())->tp_name);
                      throw py::error_already_set();
                    }
                    Type resultType = result.cast<PyType &>().type;
                    if (resultType.getContext() != type.getContext()) {
                      PyErr_SetString(PyExc_ValueError,
                                      "a TypeConverter conversion returned a "
                                      "type of another Context");
                      throw py::error_already_set();
                    }
                    converted = resultType;
                    return true;
                  });
                  // After an error (the run's) no later conversion is
                  // called: none handles the type, and nothing is cached.
                  if (!called)
                    return std::nullopt;
                  return converted;
                });
          },
          py::arg("convert"),
          "Adds `convert(type) -> Type | None` (None: try the conversions "
          "added before it). The last added is tried first. RuntimeError "
          "while the converter is converting.")
      .def(
          "convert_type",
          [](PyTypeConverter &self, py::object type) -> py::object {
            auto &pyType = type.cast<PyType &>();
            PyMlirContext &context = pyType.context.cast<PyMlirContext &>();
            self.bindTo(context);
            Type converted;
            {
              // The conversions' exceptions are this call's.
              PythonRun run;
              ConvertingScope converting(self);
              converted = self.converter->convertType(pyType.type);
              run.rethrowIfError();
            }
            if (!converted)
              return py::none();
            return makeType(context, converted);
          },
          py::arg("type"),
          "The converted type, or None; a conversion's exception propagates. "
          "The converter is bound to the context of its first use "
          "(ValueError in another).")
      .def("__repr__", [](PyTypeConverter &self) {
        return "<mlir_tracking.rewrite.TypeConverter with " +
               std::to_string(py::len(self.callables)) + " conversions>";
      });

  auto names = [](py::args args) {
    std::vector<std::string> result;
    for (py::handle arg : args) {
      if (py::isinstance<py::str>(arg))
        result.push_back(arg.cast<std::string>());
      else if (py::hasattr(arg, "OPERATION_NAME"))
        result.push_back(py::str(arg.attr("OPERATION_NAME")));
      else if (py::hasattr(arg, "DIALECT_NAMESPACE"))
        result.push_back(py::str(arg.attr("DIALECT_NAMESPACE")));
      else
        throw py::type_error("expected names, op classes or dialect "
                             "classes");
    }
    return result;
  };
  py::class_<PyConversionTarget>(m, "ConversionTarget",
                                 "What is legal after a dialect conversion.")
      .def(py::init([](py::object context) {
             PyMlirContext &ctx = PyMlirContext::resolve(context);
             return PyConversionTarget{
                 ctx.getObject(), ctx.get(),
                 std::make_unique<ConversionTarget>(*ctx.get())};
           }),
           py::arg("context") = py::none(), "An empty target.")
      .def(
          "add_legal_op",
          [names](PyConversionTarget &self, py::args ops) {
            for (const std::string &name : names(ops))
              self.target->addLegalOp(OperationName(name, self.context));
          },
          "Marks the ops (names or classes) legal.")
      .def(
          "add_illegal_op",
          [names](PyConversionTarget &self, py::args ops) {
            for (const std::string &name : names(ops))
              self.target->addIllegalOp(OperationName(name, self.context));
          },
          "Marks the ops (names or classes) illegal.")
      .def(
          "add_legal_dialect",
          [names](PyConversionTarget &self, py::args dialects) {
            for (const std::string &name : names(dialects))
              self.target->addLegalDialect(name);
          },
          "Marks the dialects (names or classes) legal.")
      .def(
          "add_illegal_dialect",
          [names](PyConversionTarget &self, py::args dialects) {
            for (const std::string &name : names(dialects))
              self.target->addIllegalDialect(name);
          },
          "Marks the dialects (names or classes) illegal.")
      .def("__repr__", [](PyConversionTarget &) {
        return std::string("<mlir_tracking.rewrite.ConversionTarget>");
      });

  py::enum_<DialectConversionFoldingMode>(
      m, "DialectConversionFoldingMode",
      "When dialect conversion folds ops that are not legal.")
      .value("NEVER", DialectConversionFoldingMode::Never)
      .value("BEFORE_PATTERNS", DialectConversionFoldingMode::BeforePatterns)
      .value("AFTER_PATTERNS", DialectConversionFoldingMode::AfterPatterns);

  py::class_<PyConversionConfig> conversionConfig(
      m, "ConversionConfig",
      "Settings of a dialect conversion (upstream's names), for "
      "apply_partial_conversion / apply_full_conversion.");
  conversionConfig.def(py::init<>(), "The driver's defaults.");
  bindConfigField(conversionConfig, "folding_mode",
                  &ConversionConfig::foldingMode,
                  "A DialectConversionFoldingMode (default BEFORE_PATTERNS).");
  bindConfigField(
      conversionConfig, "build_materializations",
      &ConversionConfig::buildMaterializations,
      "Whether the driver materializes type conversions (default True).");
  bindConfigField(conversionConfig, "allow_pattern_rollback",
                  &ConversionConfig::allowPatternRollback,
                  "Whether a failed conversion is rolled back (default True). "
                  "When False the driver changes the IR as it goes (handles "
                  "follow at once) and a failure leaves the IR partly "
                  "converted.");
  bindConfigField(conversionConfig, "attach_debug_materialization_kind",
                  &ConversionConfig::attachDebugMaterializationKind,
                  "Whether materializations carry a debug attribute saying "
                  "their kind.");
  conversionConfig.def("__repr__", [](PyConversionConfig &self) {
    const char *modes[] = {"NEVER", "BEFORE_PATTERNS", "AFTER_PATTERNS"};
    return std::string("<mlir_tracking.rewrite.ConversionConfig "
                       "folding_mode=") +
           modes[static_cast<int>(self.config.foldingMode)] +
           " build_materializations=" +
           (self.config.buildMaterializations ? "True" : "False") +
           " allow_pattern_rollback=" +
           (self.config.allowPatternRollback ? "True" : "False") + ">";
  });

  m.def(
      "apply_partial_conversion",
      [](py::object op, PyConversionTarget &target,
         PyFrozenRewritePatternSet &set, py::object config,
         py::object tracking) {
        runConversion(op, target, set, config, tracking, /*full=*/false);
      },
      py::arg("op"), py::arg("target"), py::arg("set"),
      py::arg("config") = py::none(), py::arg("tracking_config") = py::none(),
      "Converts what the patterns can; fails (MLIRError, IR and handles "
      "unchanged) only on ops explicitly illegal. Handles follow at commit; "
      "op names need not match unless `tracking_config` says so.");
  m.def(
      "apply_full_conversion",
      [](py::object op, PyConversionTarget &target,
         PyFrozenRewritePatternSet &set, py::object config,
         py::object tracking) {
        runConversion(op, target, set, config, tracking, /*full=*/true);
      },
      py::arg("op"), py::arg("target"), py::arg("set"),
      py::arg("config") = py::none(), py::arg("tracking_config") = py::none(),
      "Converts every op to a legal one or fails (MLIRError), rolling "
      "everything back: IR and handles unchanged.");

  m.def(
      "walk_and_apply_patterns",
      [](py::object op, PyFrozenRewritePatternSet &set, py::object tracking) {
        PyOperation &target = castToOperation(op);
        checkTargetContext(target, set.context);
        DriverRunLock guard(target, "walk_and_apply_patterns");
        Operation *root = guard.getOperation();
        PythonRun run;
        ScopedRewriteAttribution attribution("walk_and_apply_patterns", root);
        Operation *outerWalkRoot = std::exchange(walkDriverRoot, root);
        llvm::scope_exit leave([&] { walkDriverRoot = outerWalkRoot; });
        DriverChecks checks(root);
        walkAndApplyPatternsTracked(root, *set.patterns,
                                    resolveTracking(tracking, TrackingConfig()),
                                    &checks);
        checks.finishPattern("a pattern of walk_and_apply_patterns");
        run.rethrowIfError();
        guard.succeeded(set.mayMakeInvalidIR());
      },
      py::arg("op"), py::arg("set"), py::arg("tracking_config") = py::none(),
      "Applies the patterns once to each op nested in `op` in a walk "
      "(no folding, no fixpoint); handles follow every change.");
}

void mlir::tracking::python::checkNewOpWhenPatternReturns(
    PyOperation &operation) {
  if (DriverChecks *checks = DriverChecks::get(operation.getContext().get()))
    checks->expectCompletedOp(operation.getObject());
}

void mlir::tracking::python::noteNewOpInPattern(PyOperation &operation) {
  if (NewTreesOutside *outside =
          NewTreesOutside::get(operation.getContext().get()))
    outside->noteCreated(operation.getObject());
}

void mlir::tracking::python::checkUseOfDrivenIRInPattern(Operation *user,
                                                         Operation *holder,
                                                         const char *action) {
  if (NewTreesOutside *outside = NewTreesOutside::get(user->getContext()))
    outside->checkUseFromOutside(user, holder, action);
}

bool mlir::tracking::python::isOutsideDrivenIR(PyMlirContext &context,
                                               Operation *root) {
  NewTreesOutside *outside = NewTreesOutside::get(context.get());
  return outside && outside->getDrivenRoot() != root;
}

void mlir::tracking::python::checkInsertionInConversion(PyMlirContext &context,
                                                        Operation *op) {
  if (NewTreesOutside *outside = NewTreesOutside::get(context.get()))
    outside->checkInsertion(op);
}

bool mlir::tracking::python::isMadeInPatternCall(PyMlirContext &context,
                                                 Operation *op) {
  NewTreesOutside *outside = NewTreesOutside::get(context.get());
  return outside && outside->isCreatedInCall(op);
}

bool mlir::tracking::python::isInConversion(PyMlirContext &context) {
  NewTreesOutside *outside = NewTreesOutside::get(context.get());
  return outside && outside->inConversion;
}

void mlir::tracking::python::checkArgumentErasureInConversion(
    PyMlirContext &context) {
  NewTreesOutside *outside = NewTreesOutside::get(context.get());
  if (!outside || !outside->inConversion || !outside->rollsBack)
    return;
  throw py::value_error(
      "cannot erase a block argument inside a dialect conversion that undoes "
      "failed patterns (allow_pattern_rollback): the conversion cannot undo "
      "the erasure, and undoing the pattern's other changes could give an "
      "op the freed argument back as an operand; erase it after the "
      "conversion, or convert with allow_pattern_rollback=False");
}

void mlir::tracking::python::checkNotRemovedInConversion(PyMlirContext &context,
                                                         Operation *op,
                                                         const char *action) {
  if (ConversionRemovals *removals = ConversionRemovals::get(context.get()))
    removals->checkNotRemoved(op, action);
}

void mlir::tracking::python::noteRemovedInConversion(PyMlirContext &context,
                                                     Operation *op,
                                                     bool erased) {
  if (ConversionRemovals *removals = ConversionRemovals::get(context.get()))
    removals->noteRemoved(op, erased);
}

void mlir::tracking::python::checkUsableInConversion(
    PyMlirContext &context, Value value,
    llvm::function_ref<std::string()> action) {
  if (ConversionRemovals *removals = ConversionRemovals::get(context.get()))
    removals->checkUsable(value, action);
}

void mlir::tracking::python::checkDestinationInConversion(
    PyMlirContext &context, Operation *parent,
    llvm::function_ref<std::string()> action) {
  if (ConversionRemovals *removals = ConversionRemovals::get(context.get()))
    removals->checkDestination(parent, action);
}

void mlir::tracking::python::noteInsertionInConversion(PyMlirContext &context,
                                                       Operation *op) {
  if (NewTreesOutside *outside = NewTreesOutside::get(context.get()))
    outside->noteInsertion(op);
}

void mlir::tracking::python::noteNewBlockInPattern(PyMlirContext &context,
                                                   py::object block) {
  if (DriverChecks *checks = DriverChecks::get(context.get()))
    checks->expectTerminatedBlock(std::move(block));
}
