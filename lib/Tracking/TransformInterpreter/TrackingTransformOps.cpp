//===- TrackingTransformOps.cpp - Ops of the tracked interpreter ----------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "TrackingTransformOps.h"

#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tracking/TrackingListener.h"
#include "mlir/Tracking/TransformInterpreter.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::detail;

#define GET_OP_CLASSES
#include "TrackingTransformOps.cpp.inc"

//===----------------------------------------------------------------------===//
// OpPrint
//===----------------------------------------------------------------------===//

OpPrint OpPrint::of(Operation *op) {
  OpPrint print;
  print.op = op;
  print.name = op->getName();
  print.symbolName = op->getAttr(SymbolTable::getSymbolAttrName());
  for (Region &region : op->getRegions())
    print.firstBlocks.push_back(region.empty() ? nullptr : &region.front());
  return print;
}

bool OpPrint::survivesIn(Operation *top) const {
  bool found = false;
  top->walk([&](Operation *candidate) {
    if (candidate != op)
      return WalkResult::advance();
    found = true;
    return WalkResult::interrupt();
  });
  if (!found || op->getName() != *name ||
      op->getAttr(SymbolTable::getSymbolAttrName()) != symbolName ||
      op->getNumRegions() != firstBlocks.size())
    return false;
  for (auto [region, first] : llvm::zip(op->getRegions(), firstBlocks))
    if ((region.empty() ? nullptr : &region.front()) != first)
      return false;
  return true;
}

namespace {
/// Returns the run of `op`, or emits why there is none.
TrackedRun *getRun(Operation *op, transform::TransformState &state) {
  auto *extension = state.getExtension<TrackedRunExtension>();
  if (!extension) {
    op->emitError() << "'" << op->getName()
                    << "' is internal to mlir-tracking's tracked transform "
                       "interpreter and cannot be used in a script";
    return nullptr;
  }
  return &extension->run;
}

class TrackingTransformExtension
    : public transform::TransformDialectExtension<TrackingTransformExtension> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TrackingTransformExtension)
  using Base::Base;

  void init() {
    registerTransformOps<
        transform::TrackingNoteConsumedOp, transform::TrackingCheckConsumedOp,
        transform::TrackingCheckHeldOp, transform::TrackingCheckSeparateOp,
        transform::TrackingRecordResultsOp, transform::TrackingRecordPayloadOp,
        transform::TrackingBeginWalkOp, transform::TrackingNoteWalkedOp,
        transform::TrackingCheckWalkOp, transform::TrackingCheckWalkResultsOp,
        transform::TrackingWalkStepOp, transform::TrackingBeginForeachOp,
        transform::TrackingCheckForeachOp, transform::TrackingCheckYieldOp,
        transform::TrackingCheckAlternativeOp,
        transform::TrackingCheckForeachArgOp,
        transform::TrackingCheckSplitOp>();
  }
};
} // namespace

void mlir::tracking::registerTrackingTransformExtension(
    DialectRegistry &registry) {
  registry.addExtensions<TrackingTransformExtension>();
}

//===----------------------------------------------------------------------===//
// TrackingNoteConsumedOp
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure transform::TrackingNoteConsumedOp::apply(
    transform::TransformRewriter &rewriter,
    transform::TransformResults &transformResults,
    transform::TransformState &state) {
  TrackedRun *run = getRun(getOperation(), state);
  if (!run)
    return DiagnosedSilenceableFailure::definiteFailure();
  std::string consumer = getConsumer().str();
  TrackedRun::ConsumerFrame *frame = nullptr;
  if (std::optional<int64_t> check = getCheck())
    frame = &run->consumers.emplace_back(TrackedRun::ConsumerFrame{*check, {}});
  SmallVector<Value> handles;
  SmallVector<Operation *> onlyHidden;
  for (Value handle : getHandles()) {
    for (Operation *payload : state.getPayloadOps(handle)) {
      // Everything nested in consumed payload may go away unseen: mark the
      // handles (hidden or yielded) that point there.
      payload->walk([&](Operation *nested) {
        // The foreach iterations to come that may now be freed unseen.
        for (auto &executions : run->foreachs)
          for (TrackedRun::ForeachFrame &foreach : executions)
            if (foreach.held.contains(nested))
              foreach
                .tainted.insert(nested);
        handles.clear();
        if (failed(state.getHandlesForPayloadOp(nested, handles,
                                                /*includeOutOfScope=*/true)))
          return;
        if (getReleaseHidden()) {
          // The op runs with upstream's tracking for the handles the script
          // holds: only ops that no such handle maps are released.
          auto scriptHandle = llvm::find_if(
              handles, [&](Value tracked) { return !run->isHidden(tracked); });
          if (scriptHandle != handles.end()) {
            // The conversion's listener names the first handle of the op
            // when it finds no replacement. The hidden one, mapped when the
            // entry started, comes before the script's own handles of the
            // same scope: it takes the location of the handle upstream
            // would name (the copy is ours to change).
            if (run->isHidden(handles.front()))
              cast<BlockArgument>(handles.front())
                  .setLoc(scriptHandle->getLoc());
            return;
          }
          for (Value hidden : handles) {
            if (hidden == run->rootWatch) {
              run->rootReleased = true;
              continue;
            }
            unsigned index = run->hiddenIndex.lookup(hidden);
            run->released[index] = true;
            run->consumedBy[index] = consumer;
          }
          onlyHidden.push_back(nested);
          return;
        }
        for (Value tracked : handles) {
          auto it = run->hiddenIndex.find(tracked);
          if (it != run->hiddenIndex.end() &&
              run->consumedBy[it->second].empty()) {
            run->consumedBy[it->second] = consumer;
            if (frame)
              frame->marked.emplace_back(it->second, nested);
          }
          if (run->yielded.contains(tracked))
            run->consumedYields.try_emplace(tracked, consumer);
        }
      });
    }
  }
  // Dropped after the walk: the mapping must not change under it.
  auto *extension = state.getExtension<TrackedRunExtension>();
  for (Operation *op : onlyHidden)
    (void)extension->forget(op);
  return DiagnosedSilenceableFailure::success();
}

void transform::TrackingNoteConsumedOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  onlyReadsHandle(getHandlesMutable(), effects);
  onlyReadsPayload(effects);
}

//===----------------------------------------------------------------------===//
// TrackingCheckConsumedOp
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure transform::TrackingCheckConsumedOp::apply(
    transform::TransformRewriter &rewriter,
    transform::TransformResults &transformResults,
    transform::TransformState &state) {
  TrackedRun *run = getRun(getOperation(), state);
  if (!run)
    return DiagnosedSilenceableFailure::definiteFailure();
  // The frames above this consumer's are those of consumers nested in it
  // that failed before their check: dropped unchecked.
  int64_t check = getCheck();
  while (!run->consumers.empty() && run->consumers.back().check != check)
    run->consumers.pop_back();
  if (run->consumers.empty())
    return DiagnosedSilenceableFailure::success();
  SmallVector<Value> handles;
  for (auto [index, op] : run->consumers.back().marked) {
    // The hidden handles are out of this op's scope: looked up by the op
    // they mapped, by address only (it may be freed).
    handles.clear();
    (void)state.getHandlesForPayloadOp(op, handles,
                                       /*includeOutOfScope=*/true);
    if (!llvm::is_contained(handles, run->hiddenArgs[index]))
      run->droppedByConsumer[index] = true;
  }
  run->consumers.pop_back();
  return DiagnosedSilenceableFailure::success();
}

void transform::TrackingCheckConsumedOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {}

//===----------------------------------------------------------------------===//
// TrackingCheckHeldOp
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure transform::TrackingCheckHeldOp::apply(
    transform::TransformRewriter &rewriter,
    transform::TransformResults &transformResults,
    transform::TransformState &state) {
  TrackedRun *run = getRun(getOperation(), state);
  if (!run)
    return DiagnosedSilenceableFailure::definiteFailure();
  if (!run->heldLimit)
    return DiagnosedSilenceableFailure::success();
  for (Value target : getTargets())
    for (Operation *op : state.getPayloadOps(target)) {
      // What it inserts into when it adds a symbol next to its target.
      Operation *reached =
          getInsertsAround() ? SymbolTable::getNearestSymbolTable(op) : op;
      if (reached && run->heldLimit->isAncestor(reached))
        continue;
      DiagnosedDefiniteFailure diag =
          emitDefiniteFailure()
          << "'" << getGuarded()
          << "' would read or change payload outside the IR the tracked "
             "transform interpreter holds ("
          << describeAnchor(run->heldLimit)
          << "): other threads may be rewriting it, and handles there "
             "could not follow";
      diag.attachNote(op->getLoc()) << "payload op outside";
      return diag;
    }
  return DiagnosedSilenceableFailure::success();
}

void transform::TrackingCheckHeldOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  onlyReadsHandle(getTargetsMutable(), effects);
  onlyReadsPayload(effects);
}

//===----------------------------------------------------------------------===//
// TrackingCheckSeparateOp
//===----------------------------------------------------------------------===//

namespace {
/// The option string that `transform.apply_registered_pass` hands to its
/// pass: `key=value` pairs separated by spaces, strings unquoted, arrays and
/// parameters (all their values) joined by commas, other attributes printed
/// without their type.
void printPassOption(Attribute value, transform::ApplyRegisteredPassOp pass,
                     transform::TransformState &state, raw_ostream &os) {
  auto printList = [&](ArrayRef<Attribute> values) {
    llvm::interleave(
        values, os,
        [&](Attribute element) { printPassOption(element, pass, state, os); },
        ",");
  };
  if (auto param = dyn_cast<transform::ParamOperandAttr>(value)) {
    int64_t index = param.getIndex().getInt();
    if (index >= 0 &&
        index < static_cast<int64_t>(pass.getDynamicOptions().size()))
      printList(state.getParams(pass.getDynamicOptions()[index]));
  } else if (auto array = dyn_cast<ArrayAttr>(value)) {
    printList(array.getValue());
  } else if (auto string = dyn_cast<StringAttr>(value)) {
    os << string.getValue();
  } else {
    value.print(os, /*elideType=*/true);
  }
}

/// True if the guarded op fails before it looks at its targets, in a way
/// that it reports itself: then upstream reports that failure, not the check
/// on the targets. `transform.apply_registered_pass` first looks up its
/// pass; `transform.apply_conversion_patterns` first needs a type converter
/// for each pattern descriptor.
bool failsBeforeTargets(Operation *guarded) {
  if (auto pass = dyn_cast<transform::ApplyRegisteredPassOp>(guarded))
    return !PassPipelineInfo::lookup(pass.getPassName()) &&
           !PassInfo::lookup(pass.getPassName());
  if (auto conversion =
          dyn_cast<transform::ApplyConversionPatternsOp>(guarded)) {
    if (conversion.getDefaultTypeConverter() ||
        conversion.getPatterns().empty())
      return false;
    for (Operation &op : conversion.getPatterns().front()) {
      auto descriptor =
          dyn_cast<transform::ConversionPatternDescriptorOpInterface>(&op);
      if (descriptor && !descriptor.getTypeConverter())
        return true;
    }
  }
  return false;
}

/// `transform.apply_registered_pass` builds its pipeline before it looks at
/// its targets. Builds it the same way and, if that fails, reports it as the
/// op does (the option parser may also print to stderr: once, here, since
/// the op does not run).
DiagnosedSilenceableFailure
checkPassPipeline(transform::ApplyRegisteredPassOp pass,
                  transform::TransformState &state) {
  const PassRegistryEntry *info = PassPipelineInfo::lookup(pass.getPassName());
  if (!info)
    info = PassInfo::lookup(pass.getPassName());
  if (!info)
    return DiagnosedSilenceableFailure::success();
  std::string options;
  llvm::raw_string_ostream os(options);
  llvm::interleave(
      pass.getOptions(), os,
      [&](NamedAttribute option) {
        os << option.getName().getValue() << "=";
        printPassOption(option.getValue(), pass, state, os);
      },
      " ");
  PassManager pm(pass->getContext());
  if (succeeded(info->addToPipeline(pm, options, [&](const Twine &message) {
        pass->emitError(message);
        return failure();
      })))
    return DiagnosedSilenceableFailure::success();
  return mlir::emitDefiniteFailure(pass->getLoc())
         << "failed to add pass or pass pipeline to pipeline: "
         << pass.getPassName();
}
} // namespace

DiagnosedSilenceableFailure transform::TrackingCheckSeparateOp::apply(
    transform::TransformRewriter &rewriter,
    transform::TransformResults &transformResults,
    transform::TransformState &state) {
  TrackedRun *run = getRun(getOperation(), state);
  if (!run)
    return DiagnosedSilenceableFailure::definiteFailure();
  uint64_t index = getGuard();
  if (index >= run->guards.size())
    return mlir::emitDefiniteFailure(getLoc())
           << "'" << getOperationName() << "' has no guard #" << index;
  Operation *guarded = run->guards[index].guarded;
  Operation *original = run->guards[index].original;

  if (isa<transform::AlternativesOp>(guarded)) {
    // Upstream's `transform.alternatives`: each scope in turn must not
    // contain the op, then must be isolated from above (which the op itself
    // reports).
    SmallVector<Operation *> scopes;
    if (Value scope = getTarget())
      llvm::append_range(scopes, state.getPayloadOps(scope));
    else
      scopes.push_back(state.getTopLevel());
    run->guards[index].blocklessScope.reset();
    for (Operation *scope : scopes) {
      if (scope->isAncestor(original)) {
        auto diag = mlir::emitDefiniteFailure(getLoc())
                    << "scope must not contain the transforms being applied";
        diag.attachNote(scope->getLoc()) << "scope";
        return diag;
      }
      if (!scope->hasTrait<OpTrait::IsIsolatedFromAbove>())
        return DiagnosedSilenceableFailure::success();
    }
    // Upstream's op clones its scope beside it once an alternative
    // succeeds, which crashes for a scope in no block (top-level, or a clone
    // an enclosing alternative runs on): the alternatives'
    // `transform.tracking.check_alternative` refuses that success.
    for (Operation *scope : scopes)
      if (!scope->getBlock()) {
        run->guards[index].blocklessScope = scope->getName();
        break;
      }
    return DiagnosedSilenceableFailure::success();
  }

  // Upstream's `ensurePayloadIsSeparateFromTransform`, on each target.
  if (failsBeforeTargets(guarded))
    return DiagnosedSilenceableFailure::success();
  for (Operation *target : state.getPayloadOps(getTarget())) {
    if (!target->isAncestor(original))
      continue;
    if (auto pass = dyn_cast<transform::ApplyRegisteredPassOp>(guarded)) {
      DiagnosedSilenceableFailure pipeline = checkPassPipeline(pass, state);
      if (!pipeline.succeeded())
        return pipeline;
    }
    auto diag = mlir::emitDefiniteFailure(getLoc())
                << "cannot apply transform to itself (or one of its ancestors)";
    diag.attachNote(target->getLoc()) << "target payload op";
    return diag;
  }
  return DiagnosedSilenceableFailure::success();
}

void transform::TrackingCheckSeparateOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  onlyReadsHandle(getTargetMutable(), effects);
  onlyReadsPayload(effects);
}

//===----------------------------------------------------------------------===//
// TrackingRecordResultsOp
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure transform::TrackingRecordResultsOp::apply(
    transform::TransformRewriter &rewriter,
    transform::TransformResults &transformResults,
    transform::TransformState &state) {
  TrackedRun *run = getRun(getOperation(), state);
  if (!run)
    return DiagnosedSilenceableFailure::definiteFailure();
  // As upstream's pass, which drops them: neither checked nor read (a
  // consumed handle's mapping is gone).
  if (run->likeUpstreamPass)
    return DiagnosedSilenceableFailure::success();
  ValueRange yields = getYields().front().getTerminator()->getOperands();
  unsigned numResults = yields.size();
  run->resultOps.assign(numResults, {});
  run->resultParams.assign(numResults, {});
  run->resultIsParam.assign(numResults, false);
  for (auto [index, yielded] : llvm::enumerate(yields)) {
    // Into consumed payload: its ops may be freed, so the result comes back
    // empty (upstream returns no results; the script itself succeeds).
    if (run->consumedYields.contains(yielded))
      continue;
    if (isa<transform::TransformParamTypeInterface>(yielded.getType())) {
      run->resultIsParam[index] = true;
      llvm::append_range(run->resultParams[index], state.getParams(yielded));
      continue;
    }
    // Addresses only: `transform.tracking.record_payload` checks that they
    // are live ops before anything reads them.
    llvm::append_range(run->resultOps[index], state.getPayloadOps(yielded));
  }
  return DiagnosedSilenceableFailure::success();
}

void transform::TrackingRecordResultsOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {}

//===----------------------------------------------------------------------===//
// TrackingRecordPayloadOp
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure transform::TrackingRecordPayloadOp::apply(
    transform::TransformRewriter &rewriter,
    transform::TransformResults &transformResults,
    transform::TransformState &state) {
  TrackedRun *run = getRun(getOperation(), state);
  if (!run)
    return DiagnosedSilenceableFailure::definiteFailure();

  // The ops that exist now, as addresses: a handle may hold the address of an
  // op freed inside consumed payload, which must not be dereferenced. Only
  // the payload root is walked when the caller holds no more (other IR may
  // be under rewrite by other threads when the interpreter runs as a nested
  // pass); its ancestors are accepted for results too.
  Operation *payloadRoot = state.getTopLevel();
  if (run->treeTop && run->treeTop != payloadRoot) {
    // Dropped from its hidden handle (erased or replaced, with
    // notification), or gone without one (a pass run on an ancestor).
    bool dropped = false;
    if (!run->rootReleased) {
      auto watched = state.getPayloadOps(run->rootWatch);
      dropped =
          watched.begin() == watched.end() || *watched.begin() != payloadRoot;
    }
    if (dropped || !run->payloadRootPrint.survivesIn(run->treeTop)) {
      run->payloadRootErased = true;
      // Upstream's pass goes on; a caller that gave the payload root is
      // told.
      if (!run->likeUpstreamPass)
        return mlir::emitDefiniteFailure(getLoc())
               << "the transform script erased its payload root";
    }
  }
  llvm::DenseSet<Operation *> &present = run->present;
  Operation *held = run->treeTop ? run->treeTop : payloadRoot;
  held->walk([&](Operation *op) { present.insert(op); });
  // (Read only while the payload root is alive.)
  Operation *above =
      run->payloadRootErased ? held->getParentOp() : payloadRoot->getParentOp();
  for (Operation *ancestor = above; ancestor;
       ancestor = ancestor->getParentOp())
    present.insert(ancestor);

  run->finalOps.assign(run->hiddenArgs.size(), nullptr);
  run->fates.assign(run->hiddenArgs.size(), TrackedRun::Fate::Dropped);
  for (auto [index, hidden] : llvm::enumerate(run->hiddenArgs)) {
    // Released before an op that would have wanted its replacement: what
    // became of its op is unknown, as inside consumed payload.
    if (run->released[index]) {
      run->fates[index] = TrackedRun::Fate::Released;
      continue;
    }
    // A hidden handle maps one op, or none once the interpreter's tracking
    // dropped it (it was notified while the op still existed).
    auto ops = state.getPayloadOps(hidden);
    if (ops.begin() == ops.end())
      continue;
    Operation *op = *ops.begin();
    if (!run->consumedBy[index].empty())
      run->fates[index] = TrackedRun::Fate::Consumed;
    else if (!present.contains(op))
      run->fates[index] = TrackedRun::Fate::Escaped;
    else {
      run->fates[index] = TrackedRun::Fate::Live;
      run->finalOps[index] = op;
    }
  }

  for (auto [index, ops] : llvm::enumerate(run->resultOps))
    for (Operation *op : ops)
      if (!present.contains(op))
        return mlir::emitDefiniteFailure(getLoc())
               << "result #" << index
               << " of the entry sequence refers to an op outside "
               << (run->treeTop ? "the payload root's IR tree"
                                : "the payload root and its ancestors")
               << ", which the tracked interpreter cannot vouch for";
  run->recorded = true;
  return DiagnosedSilenceableFailure::success();
}

void transform::TrackingRecordPayloadOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  onlyReadsPayload(effects);
}

//===----------------------------------------------------------------------===//
// The foreach_match walk guards
//===----------------------------------------------------------------------===//
//
// A walk chain, as i64s: the address of the top of the payload tree, the
// number of levels, then for each level from the top down: the index of the
// region the level's block is in (in the op of the level above), the block,
// the op at this level, the op the walk visits after it (0: none to check)
// and whether the op may be gone (the op the walk is at). Addresses are
// looked for among the live blocks and ops of the level above, from the top
// (which no transform op can erase), never read before they are found.

namespace {
constexpr unsigned kFieldsPerLevel = 5;

int64_t addressOf(const void *pointer) {
  return int64_t(reinterpret_cast<uintptr_t>(pointer));
}

/// The error of `transform.tracking.check_foreach` and `check_foreach_arg`.
constexpr const char *kForeachFreedMessage =
    "a transform.foreach body erased or replaced payload that a later "
    "iteration is applied to or that an earlier iteration yielded: "
    "upstream's transform.foreach iterates over and returns the payload as "
    "it was when each was taken, and would read it freed";

/// The top op of the tree holding `op` (which must be alive), or `limit`
/// when `op` is in it (the IR a nested run holds: what is above, other
/// threads may be rewriting).
Operation *topOf(Operation *op, Operation *limit) {
  while (op != limit)
    if (Operation *parent = op->getParentOp())
      op = parent;
    else
      break;
  return op;
}

/// Erases from `addresses` those of the ops, op results and block arguments
/// found in the payload, never reading them: the tree of the state's top
/// level, and each of `tops` (the top ops of trees, taken while alive) that
/// some handle still maps: `transform.alternatives` runs its alternatives on
/// detached clones, which the tracking drops from the mappings when they
/// are erased and nothing frees unseen while the alternative runs. A run
/// that holds less than a whole tree walks the held IR only.
void eraseFoundInPayload(transform::TransformState &state,
                         const TrackedRun &run,
                         const llvm::SmallPtrSetImpl<Operation *> &tops,
                         llvm::DenseSet<int64_t> &addresses) {
  Operation *mainTop = topOf(state.getTopLevel(), run.heldLimit);
  SmallVector<Operation *> walked = {mainTop};
  SmallVector<Value> handles;
  for (Operation *top : tops) {
    handles.clear();
    if (top != mainTop &&
        succeeded(state.getHandlesForPayloadOp(top, handles,
                                               /*includeOutOfScope=*/true)))
      walked.push_back(top);
  }
  for (Operation *top : walked) {
    top->walk([&](Operation *op) {
      addresses.erase(addressOf(op));
      for (Value value : op->getResults())
        addresses.erase(addressOf(value.getAsOpaquePointer()));
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (Value value : block.getArguments())
            addresses.erase(addressOf(value.getAsOpaquePointer()));
    });
    if (addresses.empty())
      return;
  }
}

/// Appends the chain of `op` to `chain`. `nextOf(level op, is below the
/// walk's root)` gives the op after it to check, or null.
void appendChain(Operation *op, SmallVectorImpl<int64_t> &chain,
                 function_ref<Operation *(Operation *)> nextOf,
                 bool mayBeGone) {
  SmallVector<Operation *> ops;
  for (Operation *level = op; level; level = level->getParentOp())
    ops.push_back(level);
  chain.push_back(addressOf(ops.back()));
  chain.push_back(int64_t(ops.size() - 1));
  for (Operation *level : llvm::reverse(ArrayRef(ops).drop_back())) {
    chain.push_back(level->getParentRegion()->getRegionNumber());
    chain.push_back(addressOf(level->getBlock()));
    chain.push_back(addressOf(level));
    chain.push_back(addressOf(nextOf(level)));
    chain.push_back(mayBeGone && level == op);
  }
}

/// Finds blocks and ops by address among the live ones, without reading
/// anything at the address. A block's ops are searched from both ends at
/// once (a walk checks ops near its position, which moves from one end to
/// the other); what was found is remembered for the rest of the check.
class LiveIndex {
public:
  bool hasBlock(Operation *op, int64_t region, int64_t block) {
    if (region < 0 || region >= op->getNumRegions())
      return false;
    for (Block &candidate : op->getRegion(region))
      if (addressOf(&candidate) == block)
        return true;
    return false;
  }
  bool hasOp(Block *block, int64_t op) {
    if (found.contains({block, op}))
      return true;
    if (block->empty())
      return false;
    auto forward = block->begin(), backward = std::prev(block->end());
    while (true) {
      if (addressOf(&*forward) == op || addressOf(&*backward) == op)
        break;
      if (forward == backward || std::next(forward) == backward)
        return false;
      ++forward;
      --backward;
    }
    found.insert({block, op});
    return true;
  }

private:
  llvm::DenseSet<std::pair<Block *, int64_t>> found;
};

/// Checks the chains in `chains` (back to back). Returns false when one of
/// their blocks or ops is gone or moved. A chain ending at `mayBeGone` (the
/// op the walk is at) may lose its last op. A level without an op (0) holds
/// a block only (a forwarded block argument's).
bool chainsIntact(ArrayRef<int64_t> chains, LiveIndex &live,
                  int64_t mayBeGoneOp = 0) {
  while (!chains.empty()) {
    if (chains.size() < 2)
      return false;
    auto *above = reinterpret_cast<Operation *>(uintptr_t(chains[0]));
    int64_t levels = chains[1];
    chains = chains.drop_front(2);
    if (levels < 0 || chains.size() < size_t(levels) * kFieldsPerLevel)
      return false;
    for (int64_t level = 0; level != levels; ++level) {
      ArrayRef<int64_t> fields = chains.take_front(kFieldsPerLevel);
      chains = chains.drop_front(kFieldsPerLevel);
      int64_t op = fields[2], next = fields[3];
      bool mayBeGone = fields[4] || (op && op == mayBeGoneOp);
      if (!above)
        continue; // Below an op that may be gone: nothing more to check.
      if (!live.hasBlock(above, fields[0], fields[1]))
        return false;
      auto *block = reinterpret_cast<Block *>(uintptr_t(fields[1]));
      // The op the walk visits next may not go, nor leave the block (the
      // walk would run past another block's end).
      if (next && !live.hasOp(block, next))
        return false;
      if (!op) {
        above = nullptr;
        continue;
      }
      if (mayBeGone && !live.hasOp(block, op)) {
        above = nullptr;
        continue;
      }
      if (!live.hasOp(block, op))
        return false;
      above = reinterpret_cast<Operation *>(uintptr_t(op));
    }
  }
  return true;
}

/// A walk record (note_walked's result) as the chain it holds.
SmallVector<int64_t> readWalkRecord(transform::TransformState &state,
                                    Value record) {
  SmallVector<int64_t> chain;
  for (Attribute attribute : state.getParams(record))
    chain.push_back(cast<IntegerAttr>(attribute).getInt());
  return chain;
}

/// The address of the op a walk record's chain ends at (the op the walk is
/// at), or 0 when the record holds none.
int64_t walkedOpOf(ArrayRef<int64_t> chain) {
  if (chain.size() < 2 + kFieldsPerLevel)
    return 0;
  return chain[chain.size() - kFieldsPerLevel + 2];
}

/// Appends the chain of the block of a block argument: its op's, then the
/// block (a level without an op).
void appendBlockChain(Block *block, SmallVectorImpl<int64_t> &chain) {
  Operation *parent = block->getParentOp();
  if (!parent)
    return;
  size_t start = chain.size();
  appendChain(
      parent, chain, [](Operation *) -> Operation * { return nullptr; },
      /*mayBeGone=*/false);
  ++chain[start + 1];
  chain.push_back(block->getParent()->getRegionNumber());
  chain.push_back(addressOf(block));
  chain.push_back(0);
  chain.push_back(0);
  chain.push_back(0);
}

/// The frame of walk `walk` of the run of `op`, or null (with an error
/// when `op` is used outside the tracked interpreter).
TrackedRun::WalkFrame *
getWalkFrame(Operation *op, transform::TransformState &state, int64_t walk) {
  TrackedRun *run = getRun(op, state);
  if (!run || walk < 0 || size_t(walk) >= run->walks.size())
    return nullptr;
  return &run->walks[walk];
}
} // namespace

DiagnosedSilenceableFailure transform::TrackingBeginWalkOp::apply(
    transform::TransformRewriter &rewriter,
    transform::TransformResults &transformResults,
    transform::TransformState &state) {
  TrackedRun::WalkFrame *frame = getWalkFrame(getOperation(), state, getWalk());
  if (!frame)
    return DiagnosedSilenceableFailure::definiteFailure();
  TrackedRun *run = getRun(getOperation(), state);
  *frame = TrackedRun::WalkFrame();
  auto noNext = [](Operation *) -> Operation * { return nullptr; };
  for (Operation *root : state.getPayloadOps(getRoot())) {
    frame->roots.insert(root);
    frame->tops.insert(topOf(root, run->heldLimit));
    appendChain(root, frame->heldChains, noNext, /*mayBeGone=*/false);
  }
  for (Value forwarded : getForwarded()) {
    if (isa<transform::TransformHandleTypeInterface>(forwarded.getType())) {
      for (Operation *op : state.getPayloadOps(forwarded)) {
        frame->tops.insert(topOf(op, run->heldLimit));
        appendChain(op, frame->heldChains, noNext, /*mayBeGone=*/false);
      }
      continue;
    }
    // Values: their op, or their block.
    for (Value value : state.getPayloadValues(forwarded)) {
      Operation *holder = value.getDefiningOp()
                              ? value.getDefiningOp()
                              : value.getParentBlock()->getParentOp();
      if (holder)
        frame->tops.insert(topOf(holder, run->heldLimit));
      if (Operation *owner = value.getDefiningOp())
        appendChain(owner, frame->heldChains, noNext, /*mayBeGone=*/false);
      else
        appendBlockChain(cast<BlockArgument>(value).getOwner(),
                         frame->heldChains);
    }
  }
  return DiagnosedSilenceableFailure::success();
}

void transform::TrackingBeginWalkOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  onlyReadsHandle(getRootMutable(), effects);
  onlyReadsHandle(getForwardedMutable(), effects);
  onlyReadsPayload(effects);
}

DiagnosedSilenceableFailure transform::TrackingNoteWalkedOp::apply(
    transform::TransformRewriter &rewriter,
    transform::TransformResults &transformResults,
    transform::TransformState &state) {
  TrackedRun::WalkFrame *frame = getWalkFrame(getOperation(), state, getWalk());
  if (!frame)
    return DiagnosedSilenceableFailure::definiteFailure();
  SmallVector<int64_t> chain;
  // foreach_match maps its matcher's first argument to the one op it walks.
  auto walked = state.getPayloadOps(getWalked());
  if (llvm::hasSingleElement(walked)) {
    Operation *op = *walked.begin();
    // The levels whose iterators the walk holds: those below its root. The
    // root may hold another root (both walked): the outermost counts.
    Operation *outermostRoot = nullptr;
    for (Operation *level = op; level; level = level->getParentOp())
      if (frame->roots.contains(level))
        outermostRoot = level;
    llvm::SmallPtrSet<Operation *, 8> belowRoot;
    for (Operation *level = op; level && level != outermostRoot;
         level = level->getParentOp())
      belowRoot.insert(level);
    appendChain(
        op, chain,
        [&](Operation *level) -> Operation * {
          if (!belowRoot.contains(level))
            return nullptr;
          // The op after it when the walk entered it: the first time it is
          // seen, since the walk enters an op right before the first op it
          // matches in it (or it itself), and until it leaves it.
          return frame->nextWhenEntered.try_emplace(level, level->getNextNode())
              .first->second;
        },
        /*mayBeGone=*/true);
    // The walk has left the ops that are not on this chain (each matcher
    // of the op notes it again: its entry stays).
    SmallVector<Operation *> left;
    for (auto &[entered, next] : frame->nextWhenEntered)
      if (!belowRoot.contains(entered))
        left.push_back(entered);
    for (Operation *entered : left)
      frame->nextWhenEntered.erase(entered);
  }
  auto i64 = IntegerType::get(getContext(), 64);
  SmallVector<Attribute> record;
  for (int64_t value : chain)
    record.push_back(IntegerAttr::get(i64, value));
  transformResults.setParams(cast<OpResult>(getRecord()), record);
  return DiagnosedSilenceableFailure::success();
}

void transform::TrackingNoteWalkedOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  onlyReadsHandle(getWalkedMutable(), effects);
  producesHandle(getOperation()->getOpResults(), effects);
  onlyReadsPayload(effects);
}

DiagnosedSilenceableFailure transform::TrackingCheckWalkOp::apply(
    transform::TransformRewriter &rewriter,
    transform::TransformResults &transformResults,
    transform::TransformState &state) {
  TrackedRun::WalkFrame *frame = getWalkFrame(getOperation(), state, getWalk());
  if (!frame)
    return DiagnosedSilenceableFailure::definiteFailure();
  SmallVector<int64_t> record = readWalkRecord(state, getRecord());
  // A root may be the op the walk is at (with `restrict_root`) and go.
  LiveIndex live;
  if (chainsIntact(record, live) &&
      chainsIntact(frame->heldChains, live, walkedOpOf(record)))
    return DiagnosedSilenceableFailure::success();
  return emitDefiniteFailure()
         << "a transform.foreach_match action erased or moved payload "
            "outside the op it was applied to (an op that encloses it or "
            "follows it, their block, a root of the walk or a forwarded "
            "input): foreach_match's walk of the payload, which is in "
            "progress, would read it freed; the actions of foreach_match may "
            "only change the op they are applied to and the ops nested in it";
}

void transform::TrackingCheckWalkOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  onlyReadsHandle(getRecordMutable(), effects);
  onlyReadsPayload(effects);
}

DiagnosedSilenceableFailure transform::TrackingCheckWalkResultsOp::apply(
    transform::TransformRewriter &rewriter,
    transform::TransformResults &transformResults,
    transform::TransformState &state) {
  TrackedRun::WalkFrame *frame = getWalkFrame(getOperation(), state, getWalk());
  if (!frame)
    return DiagnosedSilenceableFailure::definiteFailure();
  // Ops and values (by their opaque pointers), looked for in a walk of the
  // payload's trees, never read.
  llvm::DenseSet<int64_t> yielded;
  for (Value result : getResults()) {
    if (isa<transform::TransformHandleTypeInterface>(result.getType()))
      for (Operation *op : state.getPayloadOps(result))
        yielded.insert(addressOf(op));
    else
      for (Value value : state.getPayloadValues(result))
        yielded.insert(addressOf(value.getAsOpaquePointer()));
  }
  if (yielded.empty())
    return DiagnosedSilenceableFailure::success();
  eraseFoundInPayload(state, *getRun(getOperation(), state), frame->tops,
                      yielded);
  if (yielded.empty())
    return DiagnosedSilenceableFailure::success();
  return emitDefiniteFailure()
         << "the results of this transform.foreach_match hold an op that a "
            "later action erased (upstream's foreach_match does not follow "
            "its results): they would be read freed";
}

void transform::TrackingCheckWalkResultsOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  onlyReadsHandle(getResultsMutable(), effects);
  onlyReadsPayload(effects);
}

DiagnosedSilenceableFailure transform::TrackingWalkStepOp::apply(
    transform::TransformRewriter &rewriter,
    transform::TransformResults &transformResults,
    transform::TransformState &state) {
  TrackedRun *run = getRun(getOperation(), state);
  if (!run)
    return DiagnosedSilenceableFailure::definiteFailure();
  // An action that a walk of its own applies while it runs: upstream's
  // interpreter enters its region again, which it cannot (it shares the
  // mappings of the running action and erases them when the inner one ends;
  // the outer one then crashes reading them, or its foreach checks see its
  // payload gone). Refused before anything of the inner one runs.
  Operation *action = getOperation()->getParentOp();
  if (!run->runningActions.insert(action).second)
    return emitDefiniteFailure()
           << "a transform.foreach_match action was applied while it was "
              "running (a walk in it applied it again): upstream's "
              "interpreter cannot enter the action's region twice (it "
              "drops the handles of the running action, and crashes "
              "reading them)";
  llvm::scope_exit stillRunning([&] { run->runningActions.erase(action); });
  Block &body = getBody().front();
  auto scope = state.make_region_scope(getBody());
  for (Operation &step : body.without_terminator()) {
    DiagnosedSilenceableFailure result =
        state.applyTransform(cast<transform::TransformOpInterface>(step));
    if (result.isDefiniteFailure())
      return result;
    if (!result.isSilenceableFailure())
      continue;
    // Upstream's foreach_match now reads the walked op's location: it must
    // be alive, wherever the action moved it (looked for in the whole
    // payload, from its top: failures are rare).
    SmallVector<int64_t> record = readWalkRecord(state, getRecord());
    int64_t walked = walkedOpOf(record);
    bool walkedAlive = !walked;
    if (!walkedAlive) {
      auto *top = reinterpret_cast<Operation *>(uintptr_t(record.front()));
      // A nested run walks the IR it holds (above it, other threads may be
      // rewriting), when the walk is in it (not in a detached clone).
      for (size_t level = 2;
           run->heldLimit && level + kFieldsPerLevel <= record.size();
           level += kFieldsPerLevel)
        if (record[level + 2] == addressOf(run->heldLimit))
          top = run->heldLimit;
      top->walk([&](Operation *op) {
        if (addressOf(op) != walked)
          return WalkResult::advance();
        walkedAlive = true;
        return WalkResult::interrupt();
      });
    }
    if (walkedAlive) {
      transform::detail::forwardTerminatorOperands(&body, state,
                                                   transformResults);
      return result;
    }
    std::string message = result.getMessage();
    (void)result.silence();
    DiagnosedDefiniteFailure failure =
        emitDefiniteFailure()
        << "a step of a transform.foreach_match action failed after the "
           "action erased the op it was applied to: upstream's foreach_match "
           "would read that op's location for its note";
    failure.attachNote(step.getLoc()) << "the step failed: " << message;
    return failure;
  }
  transform::detail::forwardTerminatorOperands(&body, state, transformResults);
  return DiagnosedSilenceableFailure::success();
}

void transform::TrackingWalkStepOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::detail::getPotentialTopLevelEffects(getOperation(), Value(),
                                                 getBody().front(), effects);
}

void transform::TrackingWalkStepOp::getAsmResultNames(
    OpAsmSetValueNameFn setNameFn) {
  // The names the wrapped op gives the values the step yields.
  Operation *terminator = getBody().front().getTerminator();
  for (auto [index, yielded] : llvm::enumerate(terminator->getOperands())) {
    auto asmOp = dyn_cast_if_present<OpAsmOpInterface>(yielded.getDefiningOp());
    if (!asmOp)
      continue;
    asmOp.getAsmResultNames([&, index = index](Value value, StringRef name) {
      if (value == yielded)
        setNameFn(getResult(index), name);
    });
  }
}

//===----------------------------------------------------------------------===//
// TrackingBeginForeachOp, TrackingCheckForeachOp
//===----------------------------------------------------------------------===//

namespace {
/// The run of `op` if it knows the foreach numbered `foreach`, else null.
TrackedRun *getForeachRun(Operation *op, transform::TransformState &state,
                          int64_t foreach) {
  TrackedRun *run = getRun(op, state);
  if (!run || foreach < 0 || size_t(foreach) >= run->foreachs.size())
    return nullptr;
  return run;
}
} // namespace

DiagnosedSilenceableFailure transform::TrackingBeginForeachOp::apply(
    transform::TransformRewriter &rewriter,
    transform::TransformResults &transformResults,
    transform::TransformState &state) {
  TrackedRun *run = getForeachRun(getOperation(), state, getForeach());
  if (!run)
    return DiagnosedSilenceableFailure::definiteFailure();
  // Upstream's foreach (`prepareValueMappings`), with the ops holding the
  // values.
  TrackedRun::ForeachFrame frame;
  std::optional<size_t> numIterations;
  for (Value target : getTargets()) {
    frame.targets.push_back(target);
    auto &payload = frame.payloads.emplace_back();
    if (isa<transform::TransformHandleTypeInterface>(target.getType())) {
      for (Operation *op : state.getPayloadOps(target))
        payload.push_back({op, op, false});
    } else if (isa<transform::TransformValueHandleTypeInterface>(
                   target.getType())) {
      for (Value value : state.getPayloadValues(target)) {
        Operation *holder = value.getDefiningOp();
        if (!holder)
          holder = value.getParentBlock()->getParentOp();
        payload.push_back({value, holder, isa<BlockArgument>(value)});
      }
    } else {
      // Parameters are never freed: only their count matters.
      for (Attribute param : state.getParams(target))
        payload.push_back({param, nullptr, false});
    }
    for (const TrackedRun::ForeachFrame::Item &item : payload) {
      if (!item.holder)
        continue;
      frame.held.insert(item.holder);
      frame.tops.insert(topOf(item.holder, run->heldLimit));
    }
    if (numIterations && *numIterations != payload.size() && !getZipShortest())
      return DiagnosedSilenceableFailure::success(); // Upstream fails.
    numIterations =
        std::min(numIterations.value_or(payload.size()), payload.size());
  }
  frame.numIterations = numIterations.value_or(0);
  // Frames left by bodies that failed silenceably (an execution still in
  // progress would be one this runs inside, which upstream fails before it
  // checks again: see TrackedRun::foreachs).
  run->foreachs[getForeach()].clear();
  if (frame.numIterations == 0)
    return DiagnosedSilenceableFailure::success(); // No body runs.
  run->foreachs[getForeach()].push_back(std::move(frame));
  return DiagnosedSilenceableFailure::success();
}

void transform::TrackingBeginForeachOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  onlyReadsHandle(getTargetsMutable(), effects);
  onlyReadsPayload(effects);
}

DiagnosedSilenceableFailure transform::TrackingCheckForeachOp::apply(
    transform::TransformRewriter &rewriter,
    transform::TransformResults &transformResults,
    transform::TransformState &state) {
  TrackedRun *run = getForeachRun(getOperation(), state, getForeach());
  if (!run)
    return DiagnosedSilenceableFailure::definiteFailure();
  auto &executions = run->foreachs[getForeach()];
  if (executions.empty())
    return DiagnosedSilenceableFailure::success();
  TrackedRun::ForeachFrame &frame = executions.back();
  size_t next = ++frame.checked;
  // This iteration's yields are alive (their handles map them; none is
  // consumed: check_yield comes first).
  ValueRange yields;
  if (getRecordYields())
    yields = getOperation()->getBlock()->getTerminator()->getOperands();
  for (Value yielded : yields) {
    if (isa<transform::TransformHandleTypeInterface>(yielded.getType())) {
      for (Operation *op : state.getPayloadOps(yielded)) {
        frame.yielded.push_back(op);
        frame.tops.insert(topOf(op, run->heldLimit));
      }
    } else if (isa<transform::TransformValueHandleTypeInterface>(
                   yielded.getType())) {
      for (Value value : state.getPayloadValues(yielded)) {
        frame.yielded.push_back(value);
        Operation *holder = value.getDefiningOp();
        if (!holder)
          holder = value.getParentBlock()->getParentOp();
        if (holder)
          frame.tops.insert(topOf(holder, run->heldLimit));
      }
    }
  }
  // The next iteration's payload: an op (or op result) that its target
  // handle still maps was neither erased nor replaced (the tracking drops
  // those; a new op at a freed address is mapped only as the replacement of
  // one of the target's ops, so it is a live op the handle names). Block
  // arguments and what consumed payload held are looked for in the payload.
  // Checking the next one only keeps a long foreach linear.
  bool nextFreed = false;
  llvm::DenseSet<int64_t> toFindNext, toFindYielded;
  SmallVector<Value> handles;
  for (auto [target, payload] : llvm::zip(frame.targets, frame.payloads)) {
    if (next >= frame.numIterations)
      break;
    const TrackedRun::ForeachFrame::Item &item = payload[next];
    if (isa<Attribute>(item.payload))
      continue; // A parameter.
    auto *op = dyn_cast<Operation *>(item.payload);
    const void *address =
        op ? op : cast<Value>(item.payload).getAsOpaquePointer();
    if (item.isBlockArgument || !item.holder ||
        frame.tainted.contains(item.holder)) {
      toFindNext.insert(addressOf(address));
      continue;
    }
    handles.clear();
    LogicalResult mapped =
        op ? state.getHandlesForPayloadOp(op, handles,
                                          /*includeOutOfScope=*/true)
           : state.getHandlesForPayloadValue(cast<Value>(item.payload), handles,
                                             /*includeOutOfScope=*/true);
    if (failed(mapped) || !llvm::is_contained(handles, target))
      nextFreed = true;
  }
  // After the last iteration, the results, which upstream's tracking does
  // not update either.
  bool last = next >= frame.numIterations;
  if (last) {
    for (transform::MappedValue yielded : frame.yielded) {
      if (auto *op = dyn_cast<Operation *>(yielded))
        toFindYielded.insert(addressOf(op));
      else if (auto value = dyn_cast<Value>(yielded))
        toFindYielded.insert(addressOf(value.getAsOpaquePointer()));
    }
  }
  if (!nextFreed && !toFindNext.empty()) {
    eraseFoundInPayload(state, *run, frame.tops, toFindNext);
    nextFreed = !toFindNext.empty();
  }
  bool yieldedFreed = false;
  if (!toFindYielded.empty()) {
    eraseFoundInPayload(state, *run, frame.tops, toFindYielded);
    yieldedFreed = !toFindYielded.empty();
  }
  // Upstream maps the next iteration's block arguments from freed payload,
  // which it reads there only for a type that checks its payload; otherwise
  // first where the body uses them (`transform.tracking.check_foreach_arg`),
  // and the body may fail before, as upstream's does.
  frame.nextFreed = nextFreed;
  bool fail = yieldedFreed || (nextFreed && getMapsEagerly());
  if (last || fail)
    executions.pop_back();
  if (!fail)
    return DiagnosedSilenceableFailure::success();
  return emitDefiniteFailure() << kForeachFreedMessage;
}

void transform::TrackingCheckForeachOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  onlyReadsPayload(effects);
}

//===----------------------------------------------------------------------===//
// TrackingCheckYieldOp
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure transform::TrackingCheckYieldOp::apply(
    transform::TransformRewriter &rewriter,
    transform::TransformResults &transformResults,
    transform::TransformState &state) {
  // The interpreter's expensive checks refused a consumed operand before
  // this runs.
  if (!getRun(getOperation(), state))
    return DiagnosedSilenceableFailure::definiteFailure();
  return DiagnosedSilenceableFailure::success();
}

void transform::TrackingCheckYieldOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  onlyReadsHandle(getYieldedMutable(), effects);
}

//===----------------------------------------------------------------------===//
// TrackingCheckAlternativeOp
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure transform::TrackingCheckAlternativeOp::apply(
    transform::TransformRewriter &rewriter,
    transform::TransformResults &transformResults,
    transform::TransformState &state) {
  TrackedRun *run = getRun(getOperation(), state);
  if (!run || getGuard() >= run->guards.size())
    return DiagnosedSilenceableFailure::definiteFailure();
  std::optional<OperationName> scope = run->guards[getGuard()].blocklessScope;
  if (!scope)
    return DiagnosedSilenceableFailure::success();
  return emitDefiniteFailure()
         << "'transform.alternatives' cannot apply to '" << *scope
         << "', which is top-level: it clones its scope beside it";
}

void transform::TrackingCheckAlternativeOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  onlyReadsPayload(effects);
}

//===----------------------------------------------------------------------===//
// TrackingCheckForeachArgOp
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure transform::TrackingCheckForeachArgOp::apply(
    transform::TransformRewriter &rewriter,
    transform::TransformResults &transformResults,
    transform::TransformState &state) {
  TrackedRun *run = getForeachRun(getOperation(), state, getForeach());
  if (!run)
    return DiagnosedSilenceableFailure::definiteFailure();
  auto &executions = run->foreachs[getForeach()];
  // The first iteration's payload was just taken; the frame of an execution
  // whose last iteration began is gone (its payload checked then).
  if (executions.empty() || executions.back().checked == 0 ||
      !executions.back().nextFreed)
    return DiagnosedSilenceableFailure::success();
  executions.pop_back();
  return emitDefiniteFailure() << kForeachFreedMessage;
}

void transform::TrackingCheckForeachArgOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  onlyReadsPayload(effects);
}

//===----------------------------------------------------------------------===//
// TrackingCheckSplitOp
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure transform::TrackingCheckSplitOp::apply(
    transform::TransformRewriter &rewriter,
    transform::TransformResults &transformResults,
    transform::TransformState &state) {
  if (!getRun(getOperation(), state))
    return DiagnosedSilenceableFailure::definiteFailure();
  // Upstream's count of the payload.
  Type type = getHandle().getType();
  int64_t numPayloads = 0;
  if (isa<transform::TransformHandleTypeInterface>(type))
    numPayloads = llvm::range_size(state.getPayloadOps(getHandle()));
  else if (isa<transform::TransformValueHandleTypeInterface>(type))
    numPayloads = llvm::range_size(state.getPayloadValues(getHandle()));
  else
    numPayloads = llvm::range_size(state.getParams(getHandle()));
  int64_t numResults = getNumResults();
  // Upstream's op fails with its own error before it reserves.
  bool failsFirst = getFailOnPayloadTooSmall() &&
                    (numPayloads != 0 || !getPassThroughEmptyHandle());
  if (numPayloads >= numResults || failsFirst)
    return DiagnosedSilenceableFailure::success();
  return emitDefiniteFailure()
         << "'transform.split_handle' with an overflow result got "
         << numPayloads << " payload(s) for " << numResults
         << " results: upstream's op reserves " << numPayloads << " - "
         << numResults
         << " entries for the overflow result and aborts the process";
}

void transform::TrackingCheckSplitOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  onlyReadsHandle(getHandleMutable(), effects);
}
