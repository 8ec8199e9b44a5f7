//===- TransformInterpreter.cpp - Transform scripts with tracking ---------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// The route: copy the script, give its entry sequence one hidden read-only
// argument per tracked op under the payload root (bound to that op alone),
// put a `transform.tracking.note_consumed` before every op that consumes
// handles and a `transform.tracking.record_payload` before the entry's
// terminator, take the handles under the payload root out of the registry,
// run the copy, and settle each handle from what its hidden argument maps to
// at the end. The hidden arguments have no uses, so the transform dialect's
// tracking treats them like any other dead handle: the script behaves as it
// would without them.
//
//===----------------------------------------------------------------------===//

#include "mlir/Tracking/TransformInterpreter.h"

#include "../BlockValueNotifications.h"
#include "../RegistryNotifier.h"
#include "../VerifyOnThisThread.h"
#include "TrackingTransformOps.h"

#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/IR/TransformTypes.h"
#include "mlir/Dialect/Transform/IR/Utils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Tracking/TrackingListener.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <thread>

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::detail;

namespace {
/// True for the ops of the script's symbol table that the copy needs: the
/// transform dialect's ops (named sequences, ...) and nested transform
/// libraries, but never IR that contains the payload.
bool belongsToScript(Operation &op, Operation *payloadRoot) {
  if (op.isAncestor(payloadRoot))
    return false;
  if (isa<transform::TransformDialect>(op.getDialect()))
    return true;
  return isa<ModuleOp>(op) &&
         op.hasAttr(transform::TransformDialect::kWithNamedSequenceAttrName);
}

/// Checks that the entry takes `numBound` arguments after the payload root,
/// in the words of upstream's interpreter (which checks it when the entry
/// starts, on the location of the entry alone).
LogicalResult checkArgumentCount(transform::NamedSequenceOp entry,
                                 size_t numBound) {
  unsigned numExtra = entry.getBody().front().getNumArguments() - 1;
  if (numExtra == numBound)
    return success();
  return mlir::emitError(entry.getLoc())
         << "operation expects " << numExtra << " extra value bindings, but "
         << numBound << " were provided to the interpreter";
}

/// Checks that the ops and values of a caller's bindings are the payload
/// root or in it: the run detaches and follows the handles there only.
LogicalResult
checkBindings(Operation *payloadRoot,
              ArrayRef<SmallVector<transform::MappedValue>> bindings) {
  for (auto [index, values] : llvm::enumerate(bindings))
    for (transform::MappedValue mapped : values) {
      Operation *holder = nullptr;
      if (auto *op = dyn_cast<Operation *>(mapped))
        holder = op;
      else if (auto value = dyn_cast<Value>(mapped))
        holder = value.getDefiningOp() ? value.getDefiningOp()
                                       : value.getParentBlock()->getParentOp();
      else
        continue; // A parameter.
      if (!holder || !payloadRoot->isAncestor(holder))
        return payloadRoot->emitError()
               << "binding #" << index + 1
               << " holds an op or value outside the payload root";
    }
  return success();
}

/// Verifies (a copy of) the script on this thread. Its warnings are the
/// script's, which its own verification and the interpreter's report: only
/// errors pass. Other threads' runs emit into the same context meanwhile:
/// their diagnostics are not ours.
LogicalResult verifyScript(Operation *script) {
  std::thread::id verifyingThread = std::this_thread::get_id();
  ScopedDiagnosticHandler onlyErrors(
      script->getContext(), [=](Diagnostic &diag) {
        return success(std::this_thread::get_id() == verifyingThread &&
                       diag.getSeverity() != DiagnosticSeverity::Error);
      });
  return verifyOnThisThread(script);
}

/// Checks the handle bindings before anything changes.
LogicalResult checkArguments(Operation *payloadRoot,
                             transform::NamedSequenceOp entry,
                             ArrayRef<std::vector<OpHandle>> args) {
  if (failed(checkArgumentCount(entry, args.size())))
    return failure();
  for (auto [index, handles] : llvm::enumerate(args)) {
    for (const OpHandle &handle : handles) {
      Operation *op = handle.get();
      if (!op)
        return entry.emitError()
               << "argument #" << index + 1 << ": " << handle.describe();
      if (op->getContext() != payloadRoot->getContext())
        return entry.emitError()
               << "argument #" << index + 1 << ": '" << op->getName()
               << "' belongs to another context";
      if (!payloadRoot->isAncestor(op))
        return entry.emitError()
               << "argument #" << index + 1 << ": '" << op->getName()
               << "' is not the payload root nor nested in it";
    }
    if (!isa<transform::TransformHandleTypeInterface>(
            entry.getArgument(index + 1).getType()))
      return entry.emitError()
             << "argument #" << index + 1
             << " is not an operation handle; only operations can be bound";
  }
  return success();
}

/// Checks that every result can come back and that no yielded handle is
/// consumed before the end (the interpreter would then read a forgotten
/// mapping).
LogicalResult checkResults(transform::NamedSequenceOp entry) {
  Operation *terminator = entry.getBody().front().getTerminator();
  for (auto [index, yielded] : llvm::enumerate(terminator->getOperands())) {
    if (!isa<transform::TransformHandleTypeInterface,
             transform::TransformParamTypeInterface>(yielded.getType()))
      return entry.emitError()
             << "result #" << index << " has type " << yielded.getType()
             << "; only operation handles and parameters can be returned";
    for (Operation *user : yielded.getUsers()) {
      auto transformOp = dyn_cast<transform::TransformOpInterface>(user);
      if (transformOp && transform::isHandleConsumed(yielded, transformOp))
        return user->emitError()
               << "consumes the handle that the entry sequence yields as "
                  "result #"
               << index;
    }
  }
  return success();
}

/// The ops of the tree under `top` that are not in `payloadRoot`, in walk
/// order, with their names.
std::vector<std::pair<Operation *, OperationName>>
listOpsOutside(Operation *top, Operation *payloadRoot) {
  std::vector<std::pair<Operation *, OperationName>> ops;
  top->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == payloadRoot)
      return WalkResult::skip();
    ops.emplace_back(op, op->getName());
    return WalkResult::advance();
  });
  return ops;
}

/// True for the ops the tracked interpreter inserts into its copy of a
/// script.
bool isInternalOp(Operation *op) {
  return isa<
      transform::TrackingNoteConsumedOp, transform::TrackingCheckSeparateOp,
      transform::TrackingCheckConsumedOp, transform::TrackingCheckHeldOp,
      transform::TrackingRecordResultsOp, transform::TrackingRecordPayloadOp,
      transform::TrackingBeginWalkOp, transform::TrackingNoteWalkedOp,
      transform::TrackingCheckWalkOp, transform::TrackingCheckWalkResultsOp,
      transform::TrackingWalkStepOp, transform::TrackingBeginForeachOp,
      transform::TrackingCheckForeachOp, transform::TrackingCheckYieldOp,
      transform::TrackingCheckAlternativeOp,
      transform::TrackingCheckForeachArgOp, transform::TrackingCheckSplitOp>(
      op);
}

/// True for the transform ops that upstream refuses to apply to an op that
/// contains them (`ensurePayloadIsSeparateFromTransform` in MLIR's
/// TransformOps.cpp, and `transform.alternatives`' scope check).
bool checksSeparation(Operation *op) {
  return isa<transform::ApplyCommonSubexpressionEliminationOp,
             transform::ApplyDeadCodeEliminationOp, transform::ApplyPatternsOp,
             transform::ApplyConversionPatternsOp,
             transform::ApplyRegisteredPassOp, transform::AlternativesOp>(op);
}

/// Inserts a `transform.tracking.check_separate` before every transform op
/// of `script` that upstream refuses to apply to its own ancestors, and
/// records in `guards` where upstream would run it: `originals` maps the
/// ops cloned from the user's script to their originals; the others come
/// from a library that upstream merges into `libraryHome` (null when
/// upstream merges nothing).
void instrumentSeparationChecks(
    Operation *script,
    const llvm::DenseMap<Operation *, Operation *> &originals,
    Operation *libraryHome,
    SmallVectorImpl<TrackedRun::SeparationGuard> &guards) {
  SmallVector<Operation *> checked;
  script->walk([&](Operation *op) {
    if (checksSeparation(op))
      checked.push_back(op);
  });
  for (Operation *op : checked) {
    Operation *original = originals.lookup(op);
    if (!original)
      original = libraryHome;
    if (!original)
      continue;
    Value target;
    if (auto alternatives = dyn_cast<transform::AlternativesOp>(op))
      target = alternatives.getScope();
    else
      target = op->getOperand(0);
    OpBuilder builder(op);
    transform::TrackingCheckSeparateOp::create(builder, op->getLoc(), target,
                                               guards.size());
    // An alternative that succeeds on a scope in no block.
    if (isa<transform::AlternativesOp>(op))
      for (Region &alternative : op->getRegions()) {
        builder.setInsertionPoint(alternative.front().getTerminator());
        transform::TrackingCheckAlternativeOp::create(builder, op->getLoc(),
                                                      guards.size());
      }
    guards.push_back({op, original, std::nullopt});
  }
}

/// Inserts a `transform.tracking.check_held` before every transform op of
/// `script` that reads or changes the payload itself (not through the ops it
/// runs: those get their own), with its operation handles. The ops known to
/// insert into the symbol table around their target (a new function, a
/// global) are checked there.
void instrumentHeldChecks(Operation *script) {
  SmallVector<transform::TransformOpInterface> users;
  script->walk([&](transform::TransformOpInterface op) {
    if (isa<transform::IncludeOp, transform::ForeachOp, transform::SequenceOp,
            transform::NamedSequenceOp>(op) ||
        isInternalOp(op))
      return;
    if (transform::doesReadPayload(op) || transform::doesModifyPayload(op))
      users.push_back(op);
  });
  for (transform::TransformOpInterface user : users) {
    SmallVector<Value> targets;
    for (Value operand : user->getOperands())
      if (isa<transform::TransformHandleTypeInterface>(operand.getType()) &&
          !llvm::is_contained(targets, operand))
        targets.push_back(operand);
    if (targets.empty())
      continue;
    StringRef name = user->getName().getStringRef();
    bool insertsAround = name == "transform.loop.outline" ||
                         name == "transform.memref.alloca_to_global";
    OpBuilder builder(user);
    transform::TrackingCheckHeldOp::create(builder, user->getLoc(), targets,
                                           name, insertsAround);
  }
}

/// The first op that `sequence`, or a sequence it refers to (an include's
/// callee, a `collect_matching`'s or a `foreach_match`'s matchers and
/// actions), runs and that may write the payload, or null.
Operation *findPayloadWriter(transform::NamedSequenceOp sequence,
                             SymbolTableCollection &symbols,
                             llvm::SmallPtrSetImpl<Operation *> &visited) {
  if (!visited.insert(sequence).second || sequence.isExternal())
    return nullptr;
  Operation *writer = nullptr;
  sequence.getBody().walk([&](Operation *op) {
    // What the op refers to runs as part of it.
    op->getAttrDictionary().walk([&](SymbolRefAttr ref) {
      if (writer)
        return;
      if (auto callee =
              symbols.lookupNearestSymbolFrom<transform::NamedSequenceOp>(op,
                                                                          ref))
        writer = findPayloadWriter(callee, symbols, visited);
    });
    if (writer)
      return WalkResult::interrupt();
    // An include's own effects say "may write" whatever its callee does;
    // those of the ops that run matchers say "reads".
    if (isa<transform::IncludeOp>(op))
      return WalkResult::advance();
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return WalkResult::advance();
    SmallVector<MemoryEffects::EffectInstance> onPayload;
    effects.getEffectsOnResource(transform::PayloadIRResource::get(),
                                 onPayload);
    if (llvm::none_of(onPayload, [](const MemoryEffects::EffectInstance &e) {
          return isa<MemoryEffects::Write>(e.getEffect());
        }))
      return WalkResult::advance();
    writer = op;
    return WalkResult::interrupt();
  });
  return writer;
}

/// Refuses a matcher `ref` of `user` (a `foreach_match` or a
/// `collect_matching`, which walk the payload while their matchers run)
/// that may write the payload: a matcher stops at its first failure, so no
/// check can follow what it changed.
LogicalResult checkReadOnlyMatcher(Operation *user, SymbolRefAttr ref,
                                   SymbolTableCollection &symbols) {
  auto matcher =
      symbols.lookupNearestSymbolFrom<transform::NamedSequenceOp>(user, ref);
  if (!matcher)
    return success();
  llvm::SmallPtrSet<Operation *, 8> visited;
  Operation *writer = findPayloadWriter(matcher, symbols, visited);
  if (!writer)
    return success();
  InFlightDiagnostic diag = user->emitError()
                            << "the matcher " << ref << " of this '"
                            << user->getName()
                            << "' may change the payload, which it walks while "
                               "its matchers run; a matcher may only read it";
  diag.attachNote(writer->getLoc())
      << "'" << writer->getName() << "' may write the payload";
  return diag;
}

/// Guards every `transform.foreach_match` of `script` against actions that
/// erase or move what its walk still reads (upstream's walk read it freed).
/// Each gets an index (`walk`), a `transform.tracking.begin_walk` before it
/// (its roots and forwarded inputs), a `transform.tracking.
/// check_walk_results` after it (its results), and copies of its matchers
/// and actions made for it: each matcher copy starts with a
/// `transform.tracking.note_walked` of the op it matches and yields its
/// result after its own, each action copy takes it as one more argument and
/// ends with a `transform.tracking.check_walk` of it. The copies get fresh
/// names beside their sequences, which stay as they are for their other
/// uses; copies holding a `foreach_match` get their own guards. Not for
/// pairs with the entry, whose arguments the run changes, nor with
/// declarations. Matchers that may write the payload (of `foreach_match`
/// and `collect_matching`) are refused. `originals` learns where the ops of
/// the copies come from; returns the number of walks.
FailureOr<unsigned> instrumentForeachMatchWalks(
    ModuleOp script, Operation *entry,
    llvm::DenseMap<Operation *, Operation *> &originals) {
  SymbolTableCollection symbols;
  WalkResult matchers = script->walk([&](transform::CollectMatchingOp op) {
    return failed(checkReadOnlyMatcher(op, op.getMatcherAttr(), symbols))
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  if (matchers.wasInterrupted())
    return failure();
  SmallVector<transform::ForeachMatchOp> walks;
  script->walk([&](transform::ForeachMatchOp op) { walks.push_back(op); });
  if (walks.empty())
    return 0u;
  // A walk's index; the clones of a walk in copies mirror it (a copy of an
  // action that holds a walk whose action is that same sequence would
  // otherwise call for copies without end).
  llvm::DenseMap<Operation *, unsigned> indexOf;
  for (auto [index, walk] : llvm::enumerate(walks))
    indexOf[walk] = index;
  SmallVector<std::pair<transform::ForeachMatchOp, transform::ForeachMatchOp>>
      mirrors;
  llvm::DenseSet<Operation *> guarded;
  MLIRContext *context = script.getContext();
  Type param =
      transform::ParamType::get(context, IntegerType::get(context, 64));
  auto copySequence = [&](transform::NamedSequenceOp sequence) {
    IRMapping mapping;
    auto copy = cast<transform::NamedSequenceOp>(sequence->clone(mapping));
    sequence->walk([&](Operation *op) {
      if (Operation *original = originals.lookup(op))
        originals[mapping.lookup(op)] = original;
    });
    // Beside the sequence, renamed to a name its symbol table does not use.
    symbols.getSymbolTable(sequence->getParentOp())
        .insert(copy, std::next(Block::iterator(sequence.getOperation())));
    // Its walks mirror those they were cloned from (once those are
    // guarded, unless they were when cloned, guards included).
    sequence->walk([&](transform::ForeachMatchOp original) {
      if (!guarded.contains(original))
        mirrors.emplace_back(
            cast<transform::ForeachMatchOp>(mapping.lookup(original)),
            original);
    });
    return copy;
  };
  auto matcherCopy = [&](transform::NamedSequenceOp matcher, int64_t walk) {
    transform::NamedSequenceOp copy = copySequence(matcher);
    Block &body = copy.getBody().front();
    auto builder = OpBuilder::atBlockBegin(&body);
    auto note = transform::TrackingNoteWalkedOp::create(
        builder, copy.getLoc(), param, body.getArgument(0), walk);
    Operation *yield = body.getTerminator();
    yield->insertOperands(yield->getNumOperands(), note.getRecord());
    SmallVector<Type> resultTypes(copy.getFunctionType().getResults());
    resultTypes.push_back(param);
    copy.setFunctionTypeAttr(TypeAttr::get(FunctionType::get(
        context, copy.getFunctionType().getInputs(), resultTypes)));
    return copy.getSymNameAttr();
  };
  auto actionCopy = [&](transform::NamedSequenceOp action, int64_t walk) {
    transform::NamedSequenceOp copy = copySequence(action);
    Block &body = copy.getBody().front();
    unsigned added = body.getNumArguments();
    auto readOnly = DictionaryAttr::get(
        context,
        {NamedAttribute(
            StringAttr::get(context,
                            transform::TransformDialect::kArgReadOnlyAttrName),
            UnitAttr::get(context))});
    (void)copy.insertArguments({added}, {param}, {readOnly}, {copy.getLoc()});
    Value record = body.getArgument(added);
    // Each op in a step that stops the walk when it fails after the action
    // erased its op (upstream would read that op's location).
    for (Operation &op :
         llvm::make_early_inc_range(body.without_terminator())) {
      OpBuilder builder(&op);
      auto step = transform::TrackingWalkStepOp::create(
          builder, op.getLoc(), op.getResultTypes(), record);
      Block *inner = builder.createBlock(&step.getBody());
      op.moveBefore(inner, inner->end());
      builder.setInsertionPointToEnd(inner);
      auto yield =
          transform::YieldOp::create(builder, op.getLoc(), op.getResults());
      for (auto [result, stepResult] :
           llvm::zip(op.getResults(), step.getResults()))
        result.replaceAllUsesExcept(stepResult, yield);
    }
    auto builder = OpBuilder(body.getTerminator());
    transform::TrackingCheckWalkOp::create(
        builder, body.getTerminator()->getLoc(), record, walk);
    return copy.getSymNameAttr();
  };
  // The reference to `copy` from where `ref` pointed: same path, new leaf.
  auto refTo = [&](SymbolRefAttr ref, StringAttr copy) -> Attribute {
    if (ref.getNestedReferences().empty())
      return SymbolRefAttr::get(copy);
    SmallVector<FlatSymbolRefAttr> nested(ref.getNestedReferences());
    nested.back() = FlatSymbolRefAttr::get(copy);
    return SymbolRefAttr::get(ref.getRootReference(), nested);
  };
  // The guards of a walk, around `walk`, with index `index`.
  auto guard = [&](transform::ForeachMatchOp walk, unsigned index) {
    OpBuilder builder(walk);
    SmallVector<Value> forwarded, results;
    for (Value input : walk.getForwardedInputs())
      if (!isa<transform::TransformParamTypeInterface>(input.getType()))
        forwarded.push_back(input);
    transform::TrackingBeginWalkOp::create(builder, walk.getLoc(),
                                           walk.getRoot(), forwarded, index);
    builder.setInsertionPointAfter(walk);
    for (Value result : walk.getForwardedOutputs())
      if (!isa<transform::TransformParamTypeInterface>(result.getType()))
        results.push_back(result);
    transform::TrackingCheckWalkResultsOp::create(builder, walk.getLoc(),
                                                  results, index);
  };
  for (size_t index = 0; index < walks.size(); ++index) {
    transform::ForeachMatchOp walk = walks[index];
    SmallVector<Attribute> matchers(walk.getMatchers().getValue());
    SmallVector<Attribute> actions(walk.getActions().getValue());
    for (auto [matcherRef, actionRef] : llvm::zip(matchers, actions)) {
      if (failed(checkReadOnlyMatcher(walk, cast<SymbolRefAttr>(matcherRef),
                                      symbols)))
        return failure();
      auto matcher =
          symbols.lookupNearestSymbolFrom<transform::NamedSequenceOp>(
              walk, cast<SymbolRefAttr>(matcherRef));
      auto action = symbols.lookupNearestSymbolFrom<transform::NamedSequenceOp>(
          walk, cast<SymbolRefAttr>(actionRef));
      if (!matcher || !action || matcher.isExternal() || action.isExternal() ||
          matcher == entry || action == entry ||
          matcher.getBody().front().getNumArguments() == 0)
        continue;
      matcherRef =
          refTo(cast<SymbolRefAttr>(matcherRef), matcherCopy(matcher, index));
      actionRef =
          refTo(cast<SymbolRefAttr>(actionRef), actionCopy(action, index));
    }
    walk.setMatchersAttr(ArrayAttr::get(context, matchers));
    walk.setActionsAttr(ArrayAttr::get(context, actions));
    guard(walk, index);
    guarded.insert(walk);
  }
  for (auto [mirror, original] : mirrors) {
    mirror.setMatchersAttr(original.getMatchersAttr());
    mirror.setActionsAttr(original.getActionsAttr());
    guard(mirror, indexOf.lookup(original));
  }
  return unsigned(walks.size());
}

/// Guards every `transform.foreach` of `script`: a
/// `transform.tracking.begin_foreach` before it and a
/// `transform.tracking.check_foreach` at the end of its body, which share an
/// index. Upstream's foreach maps each iteration from the payload it copied
/// when it began, and returns what the iterations yielded, even where an
/// iteration erased them. Returns the number of foreach ops.
unsigned instrumentForeachLoops(Operation *script) {
  SmallVector<transform::ForeachOp> loops;
  script->walk([&](transform::ForeachOp op) { loops.push_back(op); });
  for (auto [index, loop] : llvm::enumerate(loops)) {
    OpBuilder builder(loop);
    transform::TrackingBeginForeachOp::create(builder, loop.getLoc(),
                                              loop.getTargets(), index,
                                              loop.getWithZipShortest());
    // What the iterations yield matters only when something reads the
    // foreach's results.
    Operation *terminator = loop.getBody().front().getTerminator();
    bool recordYields = !loop->use_empty() && terminator->getNumOperands();
    // Upstream reads the payload it maps to a block argument at once only
    // for types that check it; otherwise where the body uses it first. The
    // checks of those uses come before the check at the end of the body,
    // which finds out about the next iteration.
    Block &body = loop.getBody().front();
    bool mapsEagerly = llvm::any_of(body.getArgumentTypes(), [](Type type) {
      return !isa<transform::AnyOpType, transform::AnyValueType,
                  transform::TransformParamTypeInterface>(type);
    });
    for (Operation &op : body) {
      bool usesArgument = false;
      op.walk([&](Operation *nested) {
        for (Value operand : nested->getOperands())
          if (auto argument = dyn_cast<BlockArgument>(operand))
            usesArgument |= argument.getOwner() == &body;
      });
      if (!usesArgument)
        continue;
      builder.setInsertionPoint(&op);
      transform::TrackingCheckForeachArgOp::create(builder, loop.getLoc(),
                                                   index);
    }
    builder.setInsertionPoint(terminator);
    transform::TrackingCheckForeachOp::create(builder, loop.getLoc(), index,
                                              mapsEagerly, recordYields);
  }
  return unsigned(loops.size());
}

/// Inserts a `transform.tracking.check_split` before every
/// `transform.split_handle` of `script` with an overflow result: upstream's
/// op aborts the process when it has fewer payloads than results.
void instrumentSplits(Operation *script) {
  SmallVector<transform::SplitHandleOp> splits;
  script->walk([&](transform::SplitHandleOp split) {
    if (split.getOverflowResult())
      splits.push_back(split);
  });
  for (transform::SplitHandleOp split : splits) {
    OpBuilder builder(split);
    transform::TrackingCheckSplitOp::create(
        builder, split.getLoc(), split.getHandle(), split.getNumResults(),
        split.getFailOnPayloadTooSmall(), split.getPassThroughEmptyHandle());
  }
}

/// Inserts a `transform.tracking.check_yield` before every `transform.yield`
/// of `script` that yields a handle a transform op consumes to the op owning
/// its region, but those of `entry` (whose consumed results are refused
/// before the run) and of our own ops: the owner reads them after the region
/// ran, and a consumed handle has no mapping (upstream crashed reading it).
/// Handles that are only invalidated (their payload consumed through
/// another handle) keep their mapping and are left alone, as upstream does.
void instrumentYields(Operation *script, Operation *entry) {
  SmallVector<std::pair<transform::YieldOp, SmallVector<Value>>> yields;
  script->walk([&](transform::YieldOp yield) {
    Operation *owner = yield->getParentOp();
    if (owner == entry || isInternalOp(owner))
      return;
    SmallVector<Value> consumed;
    for (Value yielded : yield->getOperands())
      for (Operation *user : yielded.getUsers()) {
        auto transformOp = dyn_cast<transform::TransformOpInterface>(user);
        if (transformOp && transform::isHandleConsumed(yielded, transformOp) &&
            !llvm::is_contained(consumed, yielded))
          consumed.push_back(yielded);
      }
    if (!consumed.empty())
      yields.emplace_back(yield, std::move(consumed));
  });
  for (auto &[yield, consumed] : yields) {
    // Before a foreach's end check, which reads what the body yields.
    Operation *before = yield;
    if (auto *previous = yield->getPrevNode();
        previous && isa<transform::TrackingCheckForeachOp>(previous))
      before = previous;
    OpBuilder builder(before);
    transform::TrackingCheckYieldOp::create(builder, yield.getLoc(), consumed);
  }
}

/// Inserts a `transform.tracking.note_consumed` before every transform op of
/// `script` that consumes operation handles, and a
/// `transform.tracking.check_consumed` after it.
void instrumentConsumers(Operation *script) {
  SmallVector<std::pair<Operation *, SmallVector<Value>>> consumers;
  script->walk([&](transform::TransformOpInterface transformOp) {
    SmallVector<Value> consumed;
    for (OpOperand *operand : transformOp.getConsumedHandleOpOperands())
      if (isa<transform::TransformHandleTypeInterface>(
              operand->get().getType()) &&
          !llvm::is_contained(consumed, operand->get()))
        consumed.push_back(operand->get());
    if (!consumed.empty())
      consumers.emplace_back(transformOp, std::move(consumed));
  });
  for (auto [check, entry] : llvm::enumerate(consumers)) {
    auto &[consumer, handles] = entry;
    OpBuilder builder(consumer);
    transform::TrackingNoteConsumedOp::create(
        builder, consumer->getLoc(), handles,
        consumer->getName().getStringRef(), /*release_hidden=*/false,
        builder.getI64IntegerAttr(check));
    builder.setInsertionPointAfter(consumer);
    transform::TrackingCheckConsumedOp::create(builder, consumer->getLoc(),
                                               check);
  }
  // A conversion that preserves handles wants a replacement for every handle
  // it sees alive, dead ones included: the hidden ones are released first.
  SmallVector<transform::ApplyConversionPatternsOp> conversions;
  script->walk([&](transform::ApplyConversionPatternsOp conversion) {
    if (conversion.getPreserveHandles())
      conversions.push_back(conversion);
  });
  for (transform::ApplyConversionPatternsOp conversion : conversions) {
    OpBuilder builder(conversion);
    transform::TrackingNoteConsumedOp::create(
        builder, conversion.getLoc(), ValueRange{conversion.getTarget()},
        conversion->getName().getStringRef(), /*release_hidden=*/true,
        /*check=*/IntegerAttr());
  }
}
/// The `transform.readonly` argument attribute.
DictionaryAttr readOnlyArgument(MLIRContext *context) {
  return DictionaryAttr::get(
      context,
      {NamedAttribute(
          StringAttr::get(context,
                          transform::TransformDialect::kArgReadOnlyAttrName),
          UnitAttr::get(context))});
}

/// Adds `numHidden` read-only operation handles after the arguments of
/// `entry`, and a `transform.tracking.record_payload` before its terminator.
FailureOr<transform::NamedSequenceOp>
addHiddenArguments(transform::NamedSequenceOp entry, unsigned numHidden) {
  MLIRContext *context = entry.getContext();
  unsigned first = entry.getBody().front().getNumArguments();
  SmallVector<unsigned> indices(numHidden, first);
  SmallVector<Type> types(numHidden, transform::AnyOpType::get(context));
  SmallVector<DictionaryAttr> attrs(numHidden, readOnlyArgument(context));
  SmallVector<Location> locs(numHidden, entry.getLoc());
  if (failed(entry.insertArguments(indices, types, attrs, locs)))
    return failure();
  Operation *terminator = entry.getBody().front().getTerminator();
  OpBuilder builder(terminator);
  transform::TrackingRecordPayloadOp::create(builder, terminator->getLoc());
  return entry;
}

/// Makes `entry` includable (its arguments annotated as upstream's include
/// requires, from what its body does with them; its results dropped, since
/// `transform.tracking.record_results` records them) and returns a new
/// named sequence of `script` that takes the entry's arguments followed by
/// `numHidden` read-only operation handles, includes the entry, and records
/// the payload of the hidden handles.
FailureOr<transform::NamedSequenceOp>
wrapEntry(ModuleOp script, transform::NamedSequenceOp entry,
          unsigned numHidden) {
  MLIRContext *context = entry.getContext();
  Block &entryBody = entry.getBody().front();
  llvm::SmallDenseSet<unsigned> consumed;
  transform::getConsumedBlockArguments(entryBody, consumed);
  StringRef consumedName = transform::TransformDialect::kArgConsumedAttrName;
  StringRef readOnlyName = transform::TransformDialect::kArgReadOnlyAttrName;
  for (unsigned i = 0, e = entry.getNumArguments(); i < e; ++i)
    if (!entry.getArgAttr(i, consumedName) &&
        !entry.getArgAttr(i, readOnlyName))
      entry.setArgAttr(i, consumed.contains(i) ? consumedName : readOnlyName,
                       UnitAttr::get(context));
  Operation *entryTerminator = entryBody.getTerminator();
  Location resultsLoc = entryTerminator->getLoc();
  entryTerminator->setOperands({});
  entry.setFunctionTypeAttr(TypeAttr::get(FunctionType::get(
      context, entry.getFunctionType().getInputs(), TypeRange())));
  entry.removeResAttrsAttr();

  unsigned numArgs = entry.getNumArguments();
  SmallVector<Type> types(entry.getFunctionType().getInputs());
  types.append(numHidden, transform::AnyOpType::get(context));
  SmallVector<Attribute> argAttrs;
  for (unsigned i = 0; i < numArgs; ++i)
    argAttrs.push_back(entry.getArgAttrDict(i));
  argAttrs.append(numHidden, readOnlyArgument(context));
  OpBuilder builder(context);
  auto wrapper = transform::NamedSequenceOp::create(
      builder, entry.getLoc(), "__tracking_run",
      TypeAttr::get(FunctionType::get(context, types, TypeRange())),
      /*sym_visibility=*/nullptr, builder.getArrayAttr(argAttrs),
      /*res_attrs=*/nullptr);
  // Under a name the script does not use.
  SymbolTable(script).insert(wrapper);
  SmallVector<Location> locs;
  for (BlockArgument arg : entryBody.getArguments())
    locs.push_back(arg.getLoc());
  locs.append(numHidden, entry.getLoc());
  Block *body = builder.createBlock(&wrapper.getBody(), {}, types, locs);
  transform::IncludeOp::create(
      builder, entry.getLoc(), TypeRange(),
      SymbolRefAttr::get(entry.getSymNameAttr()),
      transform::FailurePropagationModeAttr::get(
          context, transform::FailurePropagationMode::Propagate),
      body->getArguments().take_front(numArgs), /*arg_attrs=*/nullptr,
      /*res_attrs=*/nullptr);
  transform::TrackingRecordPayloadOp::create(builder, resultsLoc);
  transform::YieldOp::create(builder, resultsLoc);
  return wrapper;
}

} // namespace

void mlir::tracking::prepareTrackedTransformInterpreter(MLIRContext *context) {
  DialectRegistry extensions;
  registerTrackingTransformExtension(extensions);
  // Both are no-ops once done.
  context->appendDialectRegistry(extensions);
  context->getOrLoadDialect<transform::TransformDialect>();
}

namespace {
/// The run behind both entry points: `handleArgs` (checked here) or, when
/// null, `bindings` (the caller's) go to the arguments after the payload
/// root. `heldTop` is the op whose whole tree the caller holds (null: the
/// payload root only). `likeUpstreamPass`: see
/// `applyTrackedNamedSequenceWithBindings`.
LogicalResult
applyTracked(HandleRegistry &registry, Operation *payloadRoot,
             Operation *transformRoot, ModuleOp transformModule,
             const ArrayRef<std::vector<OpHandle>> *handleArgs,
             ArrayRef<SmallVector<transform::MappedValue>> bindings,
             const transform::TransformOptions &options,
             std::vector<TransformSequenceResult> &results,
             const TransformEventSource &source, Operation *heldTop,
             bool likeUpstreamPass = false) {
  results.clear();
  MLIRContext *context = payloadRoot->getContext();
  if (registry.getContext() != context)
    return payloadRoot->emitError()
           << "the handle registry belongs to another context";
  if (transformRoot->getContext() != context ||
      (transformModule && transformModule->getContext() != context))
    return payloadRoot->emitError()
           << "the transform script belongs to another context";
  if (heldTop && !heldTop->isAncestor(payloadRoot))
    return payloadRoot->emitError()
           << "the held IR does not contain the payload root";
  // Upstream's words first: programs match on them.
  if (!isa<transform::TransformOpInterface>(transformRoot))
    return transformRoot->emitError()
           << "operation must implement TransformOpInterface to be used as "
              "transform root";
  auto entry = dyn_cast<transform::NamedSequenceOp>(transformRoot);
  if (!entry)
    return transformRoot->emitError()
           << "expected a 'transform.named_sequence' as the transform root";
  if (entry.isExternal())
    return entry.emitError() << "the entry sequence has no body";
  // Upstream checks the entry's form when it starts (and reports the entry
  // as it is): on the user's entry, before our copy adds arguments to it.
  if (failed(transform::detail::verifyPossibleTopLevelTransformOpTrait(entry)))
    return failure();
  // The handles the run takes out of the registry are those under this op,
  // found without walking IR that other threads may be rewriting: when the
  // caller holds more than the payload root (a pass holds its anchor), the
  // payload root may be any op in it.
  Operation *detachedTop = heldTop ? heldTop : payloadRoot;
  if (detachedTop->getParentOp() &&
      !detachedTop->hasTrait<OpTrait::IsIsolatedFromAbove>())
    return payloadRoot->emitError()
           << "the payload root of the tracked transform interpreter must be "
              "isolated from above (such as a function) or top-level, or in "
              "IR the caller holds whole";
  if (handleArgs ? failed(checkArguments(payloadRoot, entry, *handleArgs))
                 : failed(checkArgumentCount(entry, bindings.size())) ||
                       failed(checkBindings(payloadRoot, bindings)))
    return failure();
  if (!likeUpstreamPass && failed(checkResults(entry)))
    return failure();

  // Our ops must be known before the copy is built.
  prepareTrackedTransformInterpreter(context);

  // Copy the script: the entry and the transform ops beside it (sequences it
  // may include), then link the library as upstream does, into the copy.
  OwningOpRef<ModuleOp> script = ModuleOp::create(entry.getLoc());
  (*script)->setAttr(transform::TransformDialect::kWithNamedSequenceAttrName,
                     UnitAttr::get(context));
  OpBuilder builder = OpBuilder::atBlockEnd(script->getBody());
  transform::NamedSequenceOp copy;
  IRMapping cloneMapping;
  SmallVector<Operation *> clonedFrom;
  for (Operation &op : *entry->getBlock()) {
    if (&op != entry.getOperation() && !belongsToScript(op, payloadRoot))
      continue;
    Operation *cloned = builder.clone(op, cloneMapping);
    clonedFrom.push_back(&op);
    if (&op == entry.getOperation())
      copy = cast<transform::NamedSequenceOp>(cloned);
  }
  // A script built from Python or C need not verify, and the include below
  // drops the entry's results: an entry whose terminator does not match them
  // would then verify, and run.
  if (failed(verifyScript(copy)))
    return entry.emitError() << "the transform script does not verify";
  // Where each op of the copy would run upstream, for the checks that a
  // transform op does not target its own script.
  llvm::DenseMap<Operation *, Operation *> originals;
  for (Operation *op : clonedFrom)
    op->walk([&](Operation *nested) {
      if (Operation *cloned = cloneMapping.lookupOrNull(nested))
        originals[cloned] = nested;
    });
  // Where the hidden arguments go. Upstream's invalidation check scans every
  // handle of the consuming op's scope up to the first named sequence, so
  // hidden arguments in the entry would make each consumer cost as many
  // checks as there are tracked ops times its payload: they go on a sequence
  // that includes the entry (`wrapEntry`), out of that scan. The included
  // entry yields nothing (upstream's include reads the yielded handles even
  // after a failure, unset ones included): a clone under a fresh name when
  // other sequences of the script refer to the entry, so that they keep it
  // as it is. Not when the entry refers to itself (as a `foreach_match`
  // action): a clone would use its own values where upstream reuses the
  // entry's, and upstream's invalidation of them would not happen: the
  // entry itself is included when the include leaves it as it is (no
  // results, every argument annotated), and otherwise the hidden arguments
  // go on the entry itself. (A parameter naming the entry runs nothing.)
  bool usedElsewhere = false, usedWithin = false;
  if (std::optional<SymbolTable::UseRange> uses =
          SymbolTable::getSymbolUses(copy, *script))
    for (const SymbolTable::SymbolUse &use : *uses)
      if (!isa<transform::ParamConstantOp>(use.getUser()))
        (copy->isAncestor(use.getUser()) ? usedWithin : usedElsewhere) = true;
  bool includedAsItIs =
      copy.getFunctionType().getNumResults() == 0 &&
      llvm::all_of(llvm::seq(copy.getNumArguments()), [&](unsigned i) {
        return copy.getArgAttr(
                   i, transform::TransformDialect::kArgConsumedAttrName) ||
               copy.getArgAttr(
                   i, transform::TransformDialect::kArgReadOnlyAttrName);
      });
  bool hiddenInEntry = usedWithin && !includedAsItIs;
  transform::NamedSequenceOp included = copy;
  if (!usedWithin && usedElsewhere && !includedAsItIs) {
    IRMapping entryMapping;
    included = cast<transform::NamedSequenceOp>(copy->clone(entryMapping));
    copy->walk([&](Operation *nested) {
      if (Operation *original = originals.lookup(nested))
        originals[entryMapping.lookup(nested)] = original;
    });
    // Renamed to a name the script does not use.
    SymbolTable(*script).insert(
        included, std::next(Block::iterator(copy.getOperation())));
  }
  Operation *libraryHome = nullptr;
  if (transformModule && !transformModule->isAncestor(entry)) {
    // Upstream merges the library into the entry's symbol table.
    libraryHome = SymbolTable::getNearestSymbolTable(entry);
    OwningOpRef<Operation *> library(transformModule->clone());
    if (failed(
            transform::detail::mergeSymbolsInto(*script, std::move(library))))
      return payloadRoot->emitError() << "failed to merge symbols";
  }

  // What the script may change: the payload root, or the whole tree when the
  // caller holds it (a script can climb out of its payload root with
  // `transform.get_parent_op`).
  Operation *treeTop = heldTop == payloadRoot ? nullptr : heldTop;
  Operation *scope = treeTop ? treeTop : payloadRoot;

  // The tracked ops strictly nested in the scope, in IR order, each followed
  // by a hidden argument; except the payload root and its ancestors (the
  // spine), which stay where they are unless the script erases the payload
  // root.
  // Found by a walk of the scope, which the caller holds, with the
  // registry's lock-free filter in front of each lookup: a run per function
  // must not cost every tracked op of the registry.
  tracking::detail::RegistryNotifier filter(registry);
  SmallVector<Operation *> trackedOps;
  std::vector<OpHandle> trackedHandles;
  std::vector<std::pair<OpHandle, Operation *>> spineHandles;
  scope->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == scope || !filter.mayBeTracked(op))
      return;
    OpHandle handle = registry.lookupHandle(op);
    if (!handle)
      return;
    if (op->isAncestor(payloadRoot)) {
      spineHandles.emplace_back(std::move(handle), op);
      return;
    }
    trackedOps.push_back(op);
    trackedHandles.push_back(std::move(handle));
  });

  // Instrument the copy: the separation checks, then the consumers (so that
  // a check comes before the note and the new ops are not visited), then
  // the hidden arguments and the recording op.
  TrackedRun run;
  // The user's script may not hold our own ops: they would find this run
  // and change what it records.
  Operation *internal = nullptr;
  script->walk([&](Operation *op) {
    if (!isInternalOp(op))
      return WalkResult::advance();
    internal = op;
    return WalkResult::interrupt();
  });
  if (internal)
    return internal->emitError()
           << "'" << internal->getName()
           << "' is internal to mlir-tracking's tracked transform "
              "interpreter and cannot be used in a script";
  FailureOr<unsigned> walks = instrumentForeachMatchWalks(
      *script, usedWithin ? copy.getOperation() : nullptr, originals);
  if (failed(walks))
    return failure();
  run.walks.resize(*walks);
  run.foreachs.resize(instrumentForeachLoops(*script));
  instrumentSeparationChecks(*script, originals, libraryHome, run.guards);
  // Less than a whole tree held: the script's changes must stay in it.
  if (scope->getParentOp()) {
    run.heldLimit = scope;
    instrumentHeldChecks(*script);
  }
  instrumentConsumers(*script);
  instrumentYields(*script, included);
  instrumentSplits(*script);
  Block &entryBody = included.getBody().front();
  Operation *entryTerminator = entryBody.getTerminator();
  for (Value yielded : entryTerminator->getOperands())
    run.yielded.insert(yielded);
  builder.setInsertionPoint(entryTerminator);
  auto recordResults = transform::TrackingRecordResultsOp::create(
      builder, entryTerminator->getLoc());
  builder.createBlock(&recordResults.getYields());
  transform::YieldOp::create(builder, entryTerminator->getLoc(),
                             entryTerminator->getOperands());
  FailureOr<transform::NamedSequenceOp> runner =
      hiddenInEntry ? addHiddenArguments(included, trackedOps.size() + 1)
                    : wrapEntry(*script, included, trackedOps.size() + 1);
  if (failed(runner))
    return entry.emitError() << "cannot add arguments to the entry sequence";
  Block &runnerBody = runner->getBody().front();
  // One hidden argument per tracked op, then the payload root's.
  unsigned firstHidden = runnerBody.getNumArguments() - (trackedOps.size() + 1);
  if (failed(verifyScript(*script)))
    return entry.emitError() << "the transform script does not verify";

  // When handles outside the payload root are detached, the ops out there
  // as they are now: after a failed script, which settles no handle, those
  // handles stay if nothing out there changed.
  SmallVector<bool> isOutside;
  for (Operation *op : trackedOps)
    isOutside.push_back(!payloadRoot->isProperAncestor(op));
  std::vector<std::pair<Operation *, OperationName>> outsideBefore;
  if (llvm::is_contained(isOutside, true))
    outsideBefore = listOpsOutside(treeTop, payloadRoot);

  run.treeTop = treeTop;
  run.likeUpstreamPass = likeUpstreamPass;
  if (treeTop)
    run.payloadRootPrint = OpPrint::of(payloadRoot);
  run.rootWatch = runnerBody.getArgument(runnerBody.getNumArguments() - 1);
  for (unsigned i = 0, e = trackedOps.size(); i < e; ++i) {
    Value hidden = runnerBody.getArgument(firstHidden + i);
    run.hiddenArgs.push_back(hidden);
    run.hiddenIndex[hidden] = i;
  }
  run.consumedBy.assign(trackedOps.size(), "");
  run.droppedByConsumer.assign(trackedOps.size(), false);
  run.released.assign(trackedOps.size(), false);

  RaggedArray<transform::MappedValue> mapping;
  if (handleArgs) {
    for (const std::vector<OpHandle> &handles : *handleArgs) {
      SmallVector<transform::MappedValue> ops;
      for (const OpHandle &handle : handles)
        ops.push_back(handle.get());
      mapping.push_back(ops);
    }
  } else {
    for (const SmallVector<transform::MappedValue> &values : bindings)
      mapping.push_back(values);
  }
  for (Operation *op : trackedOps)
    mapping.push_back(ArrayRef<transform::MappedValue>{op});
  mapping.push_back(ArrayRef<transform::MappedValue>{payloadRoot});

  // Described now: the script may erase the payload root.
  tracking::detail::EventSource eventSource;
  eventSource.pass = source.pass;
  eventSource.passKey = source.passKey;
  Operation *anchor = source.anchor ? source.anchor : payloadRoot;
  eventSource.anchor = describeAnchor(anchor);
  eventSource.anchorKey = anchor;

  // Nothing in the scope may be looked up while the script runs: a pass it
  // runs could free an op and reuse its address. The interpreter follows
  // ops only: block and value handles in the scope end now, as before a pass
  // that does not report its rewrites.
  tracking::detail::RegistryNotifier notifier(registry);
  tracking::detail::RegistryNotifier::DetachedRecords detached =
      notifier.detachNested(scope);
  tracking::detail::invalidateUnitsUnder(
      scope, [&] { return eventSource; },
      "the transform interpreter follows operations only");
  // Always with the expensive checks: without them a script may use a
  // handle whose payload a consumer freed, and return an op that a later
  // transform created at the freed address as a live result.
  transform::TransformOptions checkedOptions = options;
  checkedOptions.enableExpensiveChecks(true);
  LogicalResult status = transform::applyTransforms(
      payloadRoot,
      cast<transform::TransformOpInterface>(runner->getOperation()), mapping,
      checkedOptions, /*enforceToplevelTransformOp=*/false,
      [&](transform::TransformState &state) {
        state.addExtension<TrackedRunExtension>(run);
      });

  // The spine is still there unless the payload root went: checked here
  // when the script failed before `transform.tracking.record_payload` did.
  if (treeTop && !run.recorded && !run.payloadRootErased &&
      treeTop != payloadRoot)
    run.payloadRootErased = !run.payloadRootPrint.survivesIn(treeTop);
  // The payload root's handle when the script erased it.
  auto settleErasedPayloadRoot = [&] {
    const char *reason =
        "erased by the transform script it was the payload root of";
    // Strictly nested in the tree top, it was detached with the rest.
    auto payloadRootHandle =
        llvm::find_if(spineHandles, [&](const auto &entry) {
          return entry.second == payloadRoot;
        });
    if (payloadRootHandle != spineHandles.end())
      notifier.resolveDetached(payloadRootHandle->first, nullptr,
                               HandleState::Erased, eventSource, reason);
    else
      notifier.notifyFreedOperationErased(payloadRoot, eventSource, reason);
  };
  // An ancestor stays only if it still is one: the script may have moved
  // the payload root out of it and erased it.
  if (run.payloadRootErased && run.recorded) {
    // Upstream's pass goes on (`likeUpstreamPass`): the ancestors that the
    // run found in the held IR at its end stay.
    settleErasedPayloadRoot();
    for (auto &[handle, op] : spineHandles) {
      if (op == payloadRoot)
        continue;
      if (run.present.contains(op))
        notifier.resolveDetached(handle, op, HandleState::Live, eventSource,
                                 "");
      else
        notifier.resolveDetached(handle, nullptr, HandleState::Invalidated,
                                 eventSource,
                                 "gone with the payload root the transform "
                                 "script erased");
    }
  } else if (!run.payloadRootErased && !spineHandles.empty()) {
    llvm::SmallPtrSet<Operation *, 8> ancestors;
    for (Operation *op = payloadRoot; op; op = op->getParentOp())
      ancestors.insert(op);
    for (auto &[handle, op] : spineHandles) {
      if (ancestors.contains(op))
        notifier.resolveDetached(handle, op, HandleState::Live, eventSource,
                                 "");
      else
        notifier.resolveDetached(handle, nullptr, HandleState::Invalidated,
                                 eventSource,
                                 "no longer holds the payload root");
    }
  }

  if (failed(status) || !run.recorded) {
    if (run.payloadRootErased) {
      // (Settled above when the run went on.)
      if (!run.recorded)
        settleErasedPayloadRoot();
    } else if (!outsideBefore.empty() &&
               outsideBefore == listOpsOutside(treeTop, payloadRoot)) {
      // The ops outside the payload root are the same ops in the same
      // places: their handles stay.
      for (auto [index, handle] : llvm::enumerate(trackedHandles))
        if (isOutside[index])
          notifier.resolveDetached(handle, trackedOps[index], HandleState::Live,
                                   eventSource, "");
    }
    notifier.invalidateDetached(detached, eventSource,
                                "the transform script failed");
    return failure();
  }

  for (auto [index, handle] : llvm::enumerate(trackedHandles)) {
    const std::string &consumer = run.consumedBy[index];
    switch (run.fates[index]) {
    case TrackedRun::Fate::Live:
      notifier.resolveDetached(handle, run.finalOps[index], HandleState::Live,
                               eventSource,
                               "followed by the transform interpreter");
      break;
    case TrackedRun::Fate::Dropped:
      notifier.resolveDetached(
          handle, nullptr, HandleState::Erased, eventSource,
          consumer.empty()
              ? "dropped by the transform interpreter's tracking (erased, or "
                "replaced while no live transform handle needed a "
                "replacement)"
          : run.droppedByConsumer[index]
              ? "erased or replaced by '" + consumer +
                    "', which consumed its handle"
              // A later transform op dropped it: which one is not known.
              : "erased or replaced after '" + consumer +
                    "' consumed its handle");
      break;
    case TrackedRun::Fate::Consumed:
      notifier.resolveDetached(handle, nullptr, HandleState::Invalidated,
                               eventSource,
                               "inside payload consumed by '" + consumer + "'");
      break;
    case TrackedRun::Fate::Released:
      notifier.resolveDetached(handle, nullptr, HandleState::Invalidated,
                               eventSource,
                               "inside payload converted by '" + consumer +
                                   "' with preserve_handles, which follows "
                                   "only the script's own handles");
      break;
    case TrackedRun::Fate::Escaped:
      notifier.resolveDetached(handle, nullptr, HandleState::Invalidated,
                               eventSource, "no longer under the payload root");
      break;
    }
  }
  // Records that appeared while the script ran have no hidden argument.
  notifier.invalidateDetached(detached, eventSource,
                              "not followed by the transform interpreter");

  for (unsigned i = 0, e = run.resultIsParam.size(); i < e; ++i) {
    TransformSequenceResult result;
    result.isParam = run.resultIsParam[i];
    for (Operation *op : run.resultOps[i])
      result.ops.push_back(registry.getHandle(op));
    result.params.assign(run.resultParams[i].begin(),
                         run.resultParams[i].end());
    results.push_back(std::move(result));
  }
  return success();
}
} // namespace

LogicalResult mlir::tracking::applyTrackedNamedSequence(
    HandleRegistry &registry, Operation *payloadRoot, Operation *transformRoot,
    ModuleOp transformModule, ArrayRef<std::vector<OpHandle>> args,
    const transform::TransformOptions &options,
    std::vector<TransformSequenceResult> &results,
    const TransformEventSource &source, bool ownsWholeTree) {
  Operation *heldTop = nullptr;
  if (ownsWholeTree) {
    heldTop = payloadRoot;
    while (Operation *parent = heldTop->getParentOp())
      heldTop = parent;
  }
  return applyTrackedNamedSequence(registry, payloadRoot, transformRoot,
                                   transformModule, args, options, results,
                                   source, heldTop);
}

LogicalResult mlir::tracking::applyTrackedNamedSequence(
    HandleRegistry &registry, Operation *payloadRoot, Operation *transformRoot,
    ModuleOp transformModule, ArrayRef<std::vector<OpHandle>> args,
    const transform::TransformOptions &options,
    std::vector<TransformSequenceResult> &results,
    const TransformEventSource &source, Operation *heldTop) {
  return applyTracked(registry, payloadRoot, transformRoot, transformModule,
                      &args, {}, options, results, source, heldTop);
}

LogicalResult mlir::tracking::applyTrackedNamedSequenceWithBindings(
    HandleRegistry &registry, Operation *payloadRoot, Operation *transformRoot,
    ModuleOp transformModule,
    ArrayRef<SmallVector<transform::MappedValue>> bindings,
    const transform::TransformOptions &options,
    std::vector<TransformSequenceResult> &results,
    const TransformEventSource &source, Operation *heldTop,
    bool likeUpstreamPass) {
  return applyTracked(registry, payloadRoot, transformRoot, transformModule,
                      /*handleArgs=*/nullptr, bindings, options, results,
                      source, heldTop, likeUpstreamPass);
}
