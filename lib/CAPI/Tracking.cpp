//===- Tracking.cpp - C API for tracked operation handles -----------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Thin wrappers from include/mlir-c/Tracking.h to the C++ API. MLIR's own
// C objects are unwrapped with mlir/CAPI/IR.h, mlir/CAPI/Pass.h and
// mlir/CAPI/Rewrite.h; ours are heap-allocated C++ objects (a HandleRegistry,
// an OpHandle holding one reference, a TrackingConfig, the results of a
// transform script run).
//
//===----------------------------------------------------------------------===//

#include "mlir-c/Tracking.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Rewrite.h"
#include "mlir/CAPI/Support.h"
#include "mlir/CAPI/Wrap.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Tracking/HandleRegistry.h"
#include "mlir/Tracking/PassTracking.h"
#include "mlir/Tracking/Passes.h"
#include "mlir/Tracking/TrackedRewrite.h"
#include "mlir/Tracking/TrackingListener.h"
#include "mlir/Tracking/TrackingRewriter.h"
#include "mlir/Tracking/TransformInterpreter.h"

#include "../Tracking/Attribution.h"

#include <mutex>

using namespace mlir;
using namespace mlir::tracking;

DEFINE_C_API_PTR_METHODS(MlirTrackingRegistry, mlir::tracking::HandleRegistry)
DEFINE_C_API_PTR_METHODS(MlirTrackingHandle, mlir::tracking::OpHandle)
DEFINE_C_API_PTR_METHODS(MlirTrackingConfig, mlir::tracking::TrackingConfig)
DEFINE_C_API_PTR_METHODS(MlirTrackingTransformResults,
                         std::vector<mlir::tracking::TransformSequenceResult>)
// What upstream's C API object wraps (upstream defines this in its .cpp
// file, not in a header).
DEFINE_C_API_PTR_METHODS(MlirGreedyRewriteDriverConfig,
                         mlir::GreedyRewriteConfig)

namespace {
/// The handle behind `handle`; an empty OpHandle (erased, no history) for a
/// null one.
const OpHandle &getHandle(MlirTrackingHandle handle) {
  static const OpHandle empty;
  return handle.ptr ? *unwrap(handle) : empty;
}

MlirTrackingHandleState wrapState(HandleState state) {
  switch (state) {
  case HandleState::Live:
    return MlirTrackingHandleStateLive;
  case HandleState::Erased:
    return MlirTrackingHandleStateErased;
  case HandleState::Invalidated:
    return MlirTrackingHandleStateInvalidated;
  }
  llvm_unreachable("unknown handle state");
}

void callWith(MlirStringCallback callback, void *userData, StringRef text) {
  if (callback)
    callback(wrap(text), userData);
}

/// The configuration behind `config`; the defaults for a null one.
TrackingConfig getConfig(MlirTrackingConfig config) {
  return config.ptr ? *unwrap(config) : TrackingConfig();
}

/// Checks the arguments shared by the pattern drivers. Errors about an op go
/// to its context's diagnostic handlers.
LogicalResult checkPatternArguments(MlirTrackingRegistry registry,
                                    MlirOperation op,
                                    MlirFrozenRewritePatternSet patterns,
                                    StringRef function) {
  if (!op.ptr)
    return failure();
  Operation *operation = unwrap(op);
  if (!registry.ptr || !patterns.ptr)
    return operation->emitError()
           << function << ": null " << (registry.ptr ? "patterns" : "registry");
  if (unwrap(registry)->getContext() != operation->getContext())
    return operation->emitError()
           << function << ": the registry belongs to another context";
  return success();
}
} // namespace

MlirStringRef mlirTrackingHandleStateGetName(MlirTrackingHandleState state) {
  switch (state) {
  case MlirTrackingHandleStateLive:
    return wrap(stringifyHandleState(HandleState::Live));
  case MlirTrackingHandleStateErased:
    return wrap(stringifyHandleState(HandleState::Erased));
  case MlirTrackingHandleStateInvalidated:
    return wrap(stringifyHandleState(HandleState::Invalidated));
  }
  return wrap(StringRef("unknown"));
}

//===----------------------------------------------------------------------===//
// Registry.
//===----------------------------------------------------------------------===//

MlirTrackingRegistry mlirTrackingRegistryCreate(MlirContext context) {
  MLIRContext *ctx = unwrap(context);
  // The C++ constructor treats a second registry as a fatal error; here it
  // is a null result the caller can check. Serialized: two threads creating
  // one at once both passed the check, and the second aborted.
  static std::mutex creation;
  std::lock_guard<std::mutex> lock(creation);
  if (!ctx || HandleRegistry::lookup(ctx))
    return {nullptr};
  return wrap(new HandleRegistry(ctx));
}

void mlirTrackingRegistryDestroy(MlirTrackingRegistry registry) {
  delete unwrap(registry);
}

MlirTrackingRegistry mlirTrackingRegistryLookup(MlirContext context) {
  if (!context.ptr)
    return {nullptr};
  return wrap(HandleRegistry::lookup(unwrap(context)));
}

void mlirTrackingRegistryEraseNested(MlirTrackingRegistry registry,
                                     MlirOperation root) {
  if (registry.ptr && root.ptr)
    unwrap(registry)->eraseNested(unwrap(root));
}

MlirContext mlirTrackingRegistryGetContext(MlirTrackingRegistry registry) {
  if (!registry.ptr)
    return {nullptr};
  return wrap(unwrap(registry)->getContext());
}

intptr_t mlirTrackingRegistryGetNumTrackedOps(MlirTrackingRegistry registry) {
  if (!registry.ptr)
    return 0;
  return static_cast<intptr_t>(unwrap(registry)->getNumTrackedOps());
}

//===----------------------------------------------------------------------===//
// Handles.
//===----------------------------------------------------------------------===//

MlirTrackingHandle mlirTrackingHandleCreate(MlirTrackingRegistry registry,
                                            MlirOperation op) {
  if (!registry.ptr || !op.ptr)
    return {nullptr};
  HandleRegistry *handles = unwrap(registry);
  Operation *operation = unwrap(op);
  // A registry only ever sees the rewrites of its own context.
  if (operation->getContext() != handles->getContext())
    return {nullptr};
  return wrap(new OpHandle(handles->getHandle(operation)));
}

void mlirTrackingHandleDestroy(MlirTrackingHandle handle) {
  delete unwrap(handle);
}

MlirTrackingHandleState mlirTrackingHandleGetState(MlirTrackingHandle handle) {
  return wrapState(getHandle(handle).getState());
}

MlirOperation mlirTrackingHandleGetOperation(MlirTrackingHandle handle) {
  return wrap(getHandle(handle).get());
}

bool mlirTrackingHandleEqual(MlirTrackingHandle a, MlirTrackingHandle b) {
  return getHandle(a) == getHandle(b);
}

void mlirTrackingHandleDescribe(MlirTrackingHandle handle,
                                MlirStringCallback callback, void *userData) {
  callWith(callback, userData, getHandle(handle).describe());
}

intptr_t mlirTrackingHandleGetNumHistoryEvents(MlirTrackingHandle handle) {
  return static_cast<intptr_t>(getHandle(handle).getHistory().size());
}

void mlirTrackingHandlePrintHistory(MlirTrackingHandle handle,
                                    MlirStringCallback callback,
                                    void *userData) {
  for (const TrackingEvent &event : getHandle(handle).getHistory())
    callWith(callback, userData, event.str());
}

//===----------------------------------------------------------------------===//
// Passes.
//===----------------------------------------------------------------------===//

MlirLogicalResult
mlirTrackingPassManagerEnableTracking(MlirPassManager passManager,
                                      MlirTrackingRegistry registry) {
  if (!passManager.ptr || !registry.ptr)
    return mlirLogicalResultFailure();
  PassManager &pm = *unwrap(passManager);
  HandleRegistry &handles = *unwrap(registry);
  if (pm.getContext() != handles.getContext())
    return mlirLogicalResultFailure();
  enableTracking(pm, handles);
  return mlirLogicalResultSuccess();
}

void mlirTrackingRegisterPasses(void) { registerTrackedPasses(); }

MlirPass mlirTrackingCreateCanonicalizerPass(void) {
  return wrap(createTrackedCanonicalizerPass().release());
}

MlirPass mlirTrackingCreateCSEPass(void) {
  return wrap(createTrackedCSEPass().release());
}

//===----------------------------------------------------------------------===//
// Tracking configuration.
//===----------------------------------------------------------------------===//

MlirTrackingConfig mlirTrackingConfigCreate(void) {
  return wrap(new TrackingConfig());
}

void mlirTrackingConfigDestroy(MlirTrackingConfig config) {
  delete unwrap(config);
}

void mlirTrackingConfigSetRequireMatchingOpName(MlirTrackingConfig config,
                                                bool require) {
  if (config.ptr)
    unwrap(config)->requireMatchingReplacementOpName = require;
}

bool mlirTrackingConfigGetRequireMatchingOpName(MlirTrackingConfig config) {
  return getConfig(config).requireMatchingReplacementOpName;
}

void mlirTrackingConfigSetSkipCastOps(MlirTrackingConfig config, bool skip) {
  if (config.ptr)
    unwrap(config)->skipCastOps = skip;
}

bool mlirTrackingConfigGetSkipCastOps(MlirTrackingConfig config) {
  return getConfig(config).skipCastOps;
}

//===----------------------------------------------------------------------===//
// Pattern rewrites.
//===----------------------------------------------------------------------===//

void mlirTrackingRewritePatternSetAddCanonicalizationPatterns(
    MlirRewritePatternSet set) {
  if (!set.ptr)
    return;
  RewritePatternSet &patterns = *unwrap(set);
  MLIRContext *context = patterns.getContext();
  for (Dialect *dialect : context->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : context->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, context);
}

MlirLogicalResult mlirTrackingApplyPatternsAndFoldGreedily(
    MlirTrackingRegistry registry, MlirOperation op,
    MlirFrozenRewritePatternSet patterns, MlirGreedyRewriteDriverConfig config,
    MlirTrackingConfig tracking) {
  static constexpr StringLiteral function =
      "mlirTrackingApplyPatternsAndFoldGreedily";
  if (failed(checkPatternArguments(registry, op, patterns, function)))
    return mlirLogicalResultFailure();
  Operation *root = unwrap(op);
  GreedyRewriteConfig driverConfig =
      config.ptr ? *unwrap(config) : GreedyRewriteConfig();
  // The events name this function, as they name a pass in a pipeline.
  ScopedRewriteAttribution attribution(function, root);
  return wrap(applyPatternsGreedilyTracked(root, *unwrap(patterns),
                                           driverConfig, getConfig(tracking)));
}

MlirLogicalResult mlirTrackingWalkAndApplyPatterns(
    MlirTrackingRegistry registry, MlirOperation op,
    MlirFrozenRewritePatternSet patterns, MlirTrackingConfig tracking) {
  static constexpr StringLiteral function = "mlirTrackingWalkAndApplyPatterns";
  if (failed(checkPatternArguments(registry, op, patterns, function)))
    return mlirLogicalResultFailure();
  Operation *root = unwrap(op);
  ScopedRewriteAttribution attribution(function, root);
  walkAndApplyPatternsTracked(root, *unwrap(patterns), getConfig(tracking));
  return mlirLogicalResultSuccess();
}

//===----------------------------------------------------------------------===//
// Rewriter.
//===----------------------------------------------------------------------===//

namespace {
/// The listener of a C API rewriter, a base so that it is built before the
/// rewriter that points to it. No registry of its own: it looks up the
/// registry of each changed op's context, so the rewriter may outlive one.
struct LabelledListener {
  LabelledListener() {
    labelled.setUnpatternedLabels("mlirTrackingRewriter",
                                  "mlirTrackingRewriter");
  }
  TrackingListener labelled;
};

/// What mlirTrackingRewriterCreate returns.
class CAPITrackingRewriter : private LabelledListener, public TrackingRewriter {
public:
  explicit CAPITrackingRewriter(MLIRContext *context)
      : TrackingRewriter(context, &labelled) {}
};
} // namespace

MlirRewriterBase mlirTrackingRewriterCreate(MlirContext context) {
  if (!context.ptr)
    return {nullptr};
  return wrap(
      static_cast<RewriterBase *>(new CAPITrackingRewriter(unwrap(context))));
}

MlirRewriterBase mlirTrackingRewriterCreateFromOp(MlirOperation op) {
  if (!op.ptr)
    return {nullptr};
  Operation *operation = unwrap(op);
  auto *rewriter = new CAPITrackingRewriter(operation->getContext());
  rewriter->setInsertionPoint(operation);
  return wrap(static_cast<RewriterBase *>(rewriter));
}

void mlirTrackingRewriterDestroy(MlirRewriterBase rewriter) {
  // Virtual destructors: the rewriter is an IRRewriter, as upstream's are.
  delete static_cast<IRRewriter *>(unwrap(rewriter));
}

//===----------------------------------------------------------------------===//
// Transform interpreter.
//===----------------------------------------------------------------------===//

MlirLogicalResult mlirTrackingTransformApplyNamedSequence(
    MlirTrackingRegistry registry, MlirOperation payloadRoot,
    MlirOperation transformRoot, MlirOperation transformModule, intptr_t nArgs,
    const intptr_t *argSizes, const MlirTrackingHandle *argHandles,
    bool expensiveChecks, MlirTrackingTransformResults *results) {
  if (results)
    *results = {nullptr};
  if (!payloadRoot.ptr)
    return mlirLogicalResultFailure();
  Operation *payload = unwrap(payloadRoot);
  auto refuse = [&](const Twine &message) {
    emitError(payload->getLoc())
        << "mlirTrackingTransformApplyNamedSequence: " << message;
    return mlirLogicalResultFailure();
  };
  if (!registry.ptr)
    return refuse("null registry");
  if (!transformRoot.ptr)
    return refuse("null transform root");
  // The C++ entry point checks the contexts of the ops; the module must be
  // of the same context before it can be looked at.
  ModuleOp library;
  if (transformModule.ptr) {
    Operation *module = unwrap(transformModule);
    if (module->getContext() != payload->getContext())
      return refuse("the transform module belongs to another context");
    library = dyn_cast<ModuleOp>(module);
    if (!library)
      return refuse("the transform module must be a 'builtin.module', not '" +
                    module->getName().getStringRef() + "'");
  }
  if (nArgs < 0 || (nArgs > 0 && !argSizes))
    return refuse("bad argument count or null argument sizes");
  // Upstream's check of the count, before anything is allocated for the
  // arguments (a huge count would be).
  auto sequence = dyn_cast<transform::NamedSequenceOp>(unwrap(transformRoot));
  if (sequence && !sequence.isExternal() &&
      sequence->getContext() == payload->getContext() &&
      nArgs != intptr_t(sequence.getBody().front().getNumArguments()) - 1) {
    sequence.emitError() << "operation expects "
                         << sequence.getBody().front().getNumArguments() - 1
                         << " extra value bindings, but " << nArgs
                         << " were provided to the interpreter";
    return mlirLogicalResultFailure();
  }

  std::vector<std::vector<OpHandle>> bound(nArgs);
  intptr_t next = 0;
  for (intptr_t index = 0; index < nArgs; ++index) {
    if (argSizes[index] < 0)
      return refuse("argument #" + Twine(index + 1) + " has a negative size");
    if (argSizes[index] > 0 && !argHandles)
      return refuse("null argument handles");
    for (intptr_t i = 0; i < argSizes[index]; ++i, ++next) {
      if (!argHandles[next].ptr)
        return refuse("argument #" + Twine(index + 1) + ": handle " + Twine(i) +
                      " is null");
      bound[index].push_back(*unwrap(argHandles[next]));
    }
  }

  // The caller holds the payload root's whole tree (a script may climb out
  // of its payload root and change or erase what is there), unless it runs
  // in a pass (a C pass in a pipeline): then it holds that pass's anchor.
  Operation *passAnchor = tracking::detail::getRunningPassAnchor();
  if (passAnchor && !passAnchor->isAncestor(payload))
    return refuse("the payload root is outside the op that the pass running "
                  "on this thread holds");

  transform::TransformOptions transformOptions;
  transformOptions.enableExpensiveChecks(expensiveChecks);
  auto out = std::make_unique<std::vector<TransformSequenceResult>>();
  LogicalResult applied =
      passAnchor ? applyTrackedNamedSequence(*unwrap(registry), payload,
                                             unwrap(transformRoot), library,
                                             bound, transformOptions, *out,
                                             TransformEventSource(), passAnchor)
                 : applyTrackedNamedSequence(*unwrap(registry), payload,
                                             unwrap(transformRoot), library,
                                             bound, transformOptions, *out,
                                             TransformEventSource(),
                                             /*ownsWholeTree=*/true);
  if (failed(applied))
    return mlirLogicalResultFailure();
  if (results)
    *results = wrap(out.release());
  return mlirLogicalResultSuccess();
}

void mlirTrackingTransformResultsDestroy(MlirTrackingTransformResults results) {
  delete unwrap(results);
}

namespace {
/// Result `pos` of `results`, or null.
const TransformSequenceResult *getResult(MlirTrackingTransformResults results,
                                         intptr_t pos) {
  if (!results.ptr || pos < 0 ||
      static_cast<size_t>(pos) >= unwrap(results)->size())
    return nullptr;
  return &(*unwrap(results))[pos];
}
} // namespace

intptr_t mlirTrackingTransformResultsGetNumResults(
    MlirTrackingTransformResults results) {
  return results.ptr ? static_cast<intptr_t>(unwrap(results)->size()) : 0;
}

bool mlirTrackingTransformResultsIsParam(MlirTrackingTransformResults results,
                                         intptr_t pos) {
  const TransformSequenceResult *result = getResult(results, pos);
  return result && result->isParam;
}

intptr_t
mlirTrackingTransformResultsGetNumElements(MlirTrackingTransformResults results,
                                           intptr_t pos) {
  const TransformSequenceResult *result = getResult(results, pos);
  if (!result)
    return 0;
  return static_cast<intptr_t>(result->isParam ? result->params.size()
                                               : result->ops.size());
}

MlirTrackingHandle
mlirTrackingTransformResultsGetHandle(MlirTrackingTransformResults results,
                                      intptr_t pos, intptr_t index) {
  const TransformSequenceResult *result = getResult(results, pos);
  if (!result || result->isParam || index < 0 ||
      static_cast<size_t>(index) >= result->ops.size())
    return {nullptr};
  return wrap(new OpHandle(result->ops[index]));
}

MlirAttribute
mlirTrackingTransformResultsGetParam(MlirTrackingTransformResults results,
                                     intptr_t pos, intptr_t index) {
  const TransformSequenceResult *result = getResult(results, pos);
  if (!result || !result->isParam || index < 0 ||
      static_cast<size_t>(index) >= result->params.size())
    return {nullptr};
  return wrap(result->params[index]);
}
