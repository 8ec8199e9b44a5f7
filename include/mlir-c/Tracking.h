//===-- mlir-c/Tracking.h - C API for tracked operation handles ---*- C -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// The C API of mlir-tracking, in the style of MLIR's own C API (mlir-c/IR.h):
// opaque structs holding a pointer, `mlirTrackingXxxCreate`/`Destroy` pairs,
// strings handed out through `MlirStringCallback`. Any binding built on the
// MLIR C API can hold handles that stay correct while passes rewrite the IR:
//
//   MlirTrackingRegistry registry = mlirTrackingRegistryCreate(context);
//   MlirTrackingHandle handle = mlirTrackingHandleCreate(registry, op);
//   mlirTrackingPassManagerEnableTracking(pm, registry);
//   mlirPassManagerRunOnOp(pm, moduleOp);
//   // The op now (the original or its replacement), null unless live:
//   MlirOperation now = mlirTrackingHandleGetOperation(handle);
//   mlirTrackingHandleDestroy(handle);
//   mlirTrackingRegistryDestroy(registry);  // before the context
//
// See docs/c-api.md.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_C_TRACKING_H
#define MLIR_C_TRACKING_H

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Rewrite.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

//===----------------------------------------------------------------------===//
// Opaque types.
//===----------------------------------------------------------------------===//

#define DEFINE_C_API_STRUCT(name, storage)                                     \
  struct name {                                                                \
    storage *ptr;                                                              \
  };                                                                           \
  typedef struct name name

/// The tracking state of one MlirContext (mlir::tracking::HandleRegistry).
DEFINE_C_API_STRUCT(MlirTrackingRegistry, void);
/// One owned reference to a tracked op (mlir::tracking::OpHandle).
DEFINE_C_API_STRUCT(MlirTrackingHandle, void);
/// How the handles of rewritten ops find their replacement op
/// (mlir::tracking::TrackingConfig).
DEFINE_C_API_STRUCT(MlirTrackingConfig, void);
/// The results of a tracked transform script run: one entry per result of
/// the entry sequence.
DEFINE_C_API_STRUCT(MlirTrackingTransformResults, void);

#undef DEFINE_C_API_STRUCT

/// The state of a handle.
typedef enum MlirTrackingHandleState {
  /// The handle refers to an existing op: the original or its replacement.
  MlirTrackingHandleStateLive = 0,
  /// The op was erased, or replaced by values without an acceptable
  /// replacement op.
  MlirTrackingHandleStateErased = 1,
  /// A pass that does not report its rewrites ran over an ancestor.
  MlirTrackingHandleStateInvalidated = 2,
} MlirTrackingHandleState;

/// Returns "live", "erased" or "invalidated" (static storage).
MLIR_CAPI_EXPORTED MlirStringRef
mlirTrackingHandleStateGetName(MlirTrackingHandleState state);

//===----------------------------------------------------------------------===//
// Registry.
//===----------------------------------------------------------------------===//

/// Creates the registry of `context`. A context has at most one registry:
/// returns a null registry if `context` is null or already has one (also
/// when threads create one at once: creations here are serialized). The
/// registry must be destroyed before the context.
MLIR_CAPI_EXPORTED MlirTrackingRegistry
mlirTrackingRegistryCreate(MlirContext context);

/// Destroys a registry made by mlirTrackingRegistryCreate. Handles that are
/// still live become erased ("tracking ended"); the handles themselves stay
/// valid to query and must still be destroyed. Null is ignored.
MLIR_CAPI_EXPORTED void
mlirTrackingRegistryDestroy(MlirTrackingRegistry registry);

/// Returns the registry of `context`, or a null registry.
MLIR_CAPI_EXPORTED MlirTrackingRegistry
mlirTrackingRegistryLookup(MlirContext context);

/// Returns the context the registry tracks.
MLIR_CAPI_EXPORTED MlirContext
mlirTrackingRegistryGetContext(MlirTrackingRegistry registry);

/// Returns the number of ops that currently have a live handle.
MLIR_CAPI_EXPORTED intptr_t
mlirTrackingRegistryGetNumTrackedOps(MlirTrackingRegistry registry);

/// Call before destroying IR without a rewriter (mlirModuleDestroy,
/// mlirOperationDestroy): the handles of `root` and of every op nested in
/// it become erased. Without it they would stay live on freed memory, and a
/// new op at a reused address could answer for them. Null arguments and an
/// op of another context are ignored.
MLIR_CAPI_EXPORTED void
mlirTrackingRegistryEraseNested(MlirTrackingRegistry registry,
                                MlirOperation root);

/// Checks whether a registry is null.
static inline bool mlirTrackingRegistryIsNull(MlirTrackingRegistry registry) {
  return !registry.ptr;
}

//===----------------------------------------------------------------------===//
// Handles.
//===----------------------------------------------------------------------===//

/// Returns a new handle to `op` (the same record as any other handle to
/// `op`). Returns a null handle if the registry or the op is null, or if the
/// op belongs to another context. Must not be called while a pass is
/// rewriting the IR that contains `op`. Destroy it with
/// mlirTrackingHandleDestroy.
MLIR_CAPI_EXPORTED MlirTrackingHandle
mlirTrackingHandleCreate(MlirTrackingRegistry registry, MlirOperation op);

/// Destroys a handle; the op is not affected. Null is ignored.
MLIR_CAPI_EXPORTED void mlirTrackingHandleDestroy(MlirTrackingHandle handle);

/// Checks whether a handle is null.
static inline bool mlirTrackingHandleIsNull(MlirTrackingHandle handle) {
  return !handle.ptr;
}

/// Returns the state of the handle.
MLIR_CAPI_EXPORTED MlirTrackingHandleState
mlirTrackingHandleGetState(MlirTrackingHandle handle);

/// Returns the op the handle refers to if it is live (the original op or its
/// replacement), a null operation otherwise. The op may be erased by the next
/// pass or rewrite: ask the handle again afterwards rather than keeping it.
MLIR_CAPI_EXPORTED MlirOperation
mlirTrackingHandleGetOperation(MlirTrackingHandle handle);

/// Checks whether two handles are equal: they refer to the same op, or, once
/// not live, are the same handle (two handles that CSE merged onto one op
/// are equal from then on).
MLIR_CAPI_EXPORTED bool mlirTrackingHandleEqual(MlirTrackingHandle a,
                                                MlirTrackingHandle b);

/// Calls `callback` once with a sentence that says what the handle refers to
/// and, if it is not live, what happened to it (the error message to show when
/// a stale handle is used). A null callback is not called.
MLIR_CAPI_EXPORTED void mlirTrackingHandleDescribe(MlirTrackingHandle handle,
                                                   MlirStringCallback callback,
                                                   void *userData);

/// Returns the number of events in the handle's history. Histories are
/// bounded: a handle keeps the newest 32 events of its own (plus those of
/// the handles merged into it since they joined), the oldest dropped first.
MLIR_CAPI_EXPORTED intptr_t
mlirTrackingHandleGetNumHistoryEvents(MlirTrackingHandle handle);

/// Calls `callback` once per event of the handle's history, oldest first,
/// each a line without the newline ("canonicalize on func.func @f: arith.addi
/// at loc(...): replaced by arith.constant at loc(...) (folded)"). The events
/// are a snapshot taken when the call starts. A null callback is not called.
MLIR_CAPI_EXPORTED void
mlirTrackingHandlePrintHistory(MlirTrackingHandle handle,
                               MlirStringCallback callback, void *userData);

//===----------------------------------------------------------------------===//
// Passes.
//===----------------------------------------------------------------------===//

/// Makes `passManager` report to `registry`: precise passes (canonicalize and
/// cse from this library, and passes registered as precise) move handles to
/// replacements or mark them erased; every other pass invalidates the handles
/// strictly nested in the op it runs on. The pass manager may outlive the
/// registry: its runs report to the registry its context has then, if any.
/// Fails (and changes nothing) if either is null or they belong to different
/// contexts.
MLIR_CAPI_EXPORTED MlirLogicalResult mlirTrackingPassManagerEnableTracking(
    MlirPassManager passManager, MlirTrackingRegistry registry);

/// Registers the precise `canonicalize` and `cse` under upstream's names.
/// Call it before mlirRegisterAllPasses (the first registration of a pass
/// argument wins) so that textual pipelines get the precise versions.
MLIR_CAPI_EXPORTED void mlirTrackingRegisterPasses(void);

/// Creates the precise `canonicalize` (upstream's options and defaults).
MLIR_CAPI_EXPORTED MlirPass mlirTrackingCreateCanonicalizerPass(void);

/// Creates the precise `cse`.
MLIR_CAPI_EXPORTED MlirPass mlirTrackingCreateCSEPass(void);

//===----------------------------------------------------------------------===//
// Tracking configuration.
//===----------------------------------------------------------------------===//

/// Creates a tracking configuration with the defaults of the greedy and walk
/// drivers (the transform dialect's): the replacement op must have the
/// replaced op's name (a ConstantLike replacement is always accepted), and
/// cast ops are looked through. Functions taking a configuration accept a
/// null one for these defaults.
MLIR_CAPI_EXPORTED MlirTrackingConfig mlirTrackingConfigCreate(void);

/// Destroys a configuration. Null is ignored.
MLIR_CAPI_EXPORTED void mlirTrackingConfigDestroy(MlirTrackingConfig config);

/// Checks whether a configuration is null.
static inline bool mlirTrackingConfigIsNull(MlirTrackingConfig config) {
  return !config.ptr;
}

/// Sets whether a replacement op must have the replaced op's name.
MLIR_CAPI_EXPORTED void
mlirTrackingConfigSetRequireMatchingOpName(MlirTrackingConfig config,
                                           bool require);

/// Returns whether a replacement op must have the replaced op's name.
MLIR_CAPI_EXPORTED bool
mlirTrackingConfigGetRequireMatchingOpName(MlirTrackingConfig config);

/// Sets whether ops implementing CastOpInterface are looked through when
/// searching for the replacement op.
MLIR_CAPI_EXPORTED void
mlirTrackingConfigSetSkipCastOps(MlirTrackingConfig config, bool skip);

/// Returns whether cast ops are looked through.
MLIR_CAPI_EXPORTED bool
mlirTrackingConfigGetSkipCastOps(MlirTrackingConfig config);

//===----------------------------------------------------------------------===//
// Pattern rewrites.
//===----------------------------------------------------------------------===//

/// Adds the canonicalization patterns of every loaded dialect and every
/// registered op of the set's context (what `canonicalize` applies) to `set`.
/// Null is ignored.
MLIR_CAPI_EXPORTED void
mlirTrackingRewritePatternSetAddCanonicalizationPatterns(
    MlirRewritePatternSet set);

/// Upstream's mlirApplyPatternsAndFoldGreedilyWithOp with tracking: applies
/// `patterns` to the ops nested in `op` (and folds them) with the greedy
/// driver, and every replace and erase it makes (patterns, folding, dead-code
/// removal, region simplification) updates the handles of `registry`, each
/// event naming the pattern. A null `config` or `tracking` means the
/// defaults. Returns failure if the driver did not converge (the rewrites it
/// made are tracked all the same), or, changing nothing, if `registry`, `op`
/// or `patterns` is null or `registry` is not the registry of `op`'s context.
/// Must not be called while a pass is rewriting the IR that contains `op`.
MLIR_CAPI_EXPORTED MlirLogicalResult mlirTrackingApplyPatternsAndFoldGreedily(
    MlirTrackingRegistry registry, MlirOperation op,
    MlirFrozenRewritePatternSet patterns, MlirGreedyRewriteDriverConfig config,
    MlirTrackingConfig tracking);

/// Upstream's mlirWalkAndApplyPatterns with tracking: applies `patterns` to
/// the ops nested in `op` in one walk. Fails, changing nothing, on the bad
/// arguments mlirTrackingApplyPatternsAndFoldGreedily refuses.
MLIR_CAPI_EXPORTED MlirLogicalResult mlirTrackingWalkAndApplyPatterns(
    MlirTrackingRegistry registry, MlirOperation op,
    MlirFrozenRewritePatternSet patterns, MlirTrackingConfig tracking);

//===----------------------------------------------------------------------===//
// Rewriter.
//===----------------------------------------------------------------------===//

/// Upstream's mlirIRRewriterCreate with tracking: a rewriter of `context` for
/// every mlirRewriterBase* function of mlir-c/Rewrite.h whose replaces, erases
/// and moves update the handles of the context's registry (each event names
/// "mlirTrackingRewriter"). Changes made with MLIR's own rewriter, or with
/// mlirOperationMoveBefore/After, mlirOperationDestroy, or the insertion of
/// detached IR that holds handles with mlirBlockInsertOwnedOperation*/
/// mlirBlockAppendOwnedOperation (insert it with mlirRewriterBaseInsert, or
/// take the handles once it is inserted), are not seen: an op moved into
/// another function that way keeps the handle's old place, and a pass
/// erasing it there may leave its handle on freed memory.
/// `mlirRewriterBaseReplaceOpWithOperation` names the replacement op to the
/// handle, whatever its name (an op of another context ends the handle,
/// erased: that context's registry would not tell this one when it goes).
/// `mlirRewriterBaseReplaceAllOpUsesWith*` tell listeners that the op is
/// replaced (MLIR's contract, which upstream's transform tracking follows
/// too): its handle follows the replacement, or ends erased, while the op
/// itself stays until erased. The rewriter looks the registry up at each
/// change, so it may outlive the registry (not the context). Destroy it with
/// mlirTrackingRewriterDestroy. Returns null for a null context.
MLIR_CAPI_EXPORTED MlirRewriterBase
mlirTrackingRewriterCreate(MlirContext context);

/// The same with the insertion point before `op` (upstream's
/// mlirIRRewriterCreateFromOp). Returns null for a null op.
MLIR_CAPI_EXPORTED MlirRewriterBase
mlirTrackingRewriterCreateFromOp(MlirOperation op);

/// Destroys a rewriter made by mlirTrackingRewriterCreate(FromOp). Null is
/// ignored.
MLIR_CAPI_EXPORTED void mlirTrackingRewriterDestroy(MlirRewriterBase rewriter);

//===----------------------------------------------------------------------===//
// Transform interpreter.
//===----------------------------------------------------------------------===//

/// Upstream's mlirTransformApplyNamedSequence with tracking (see
/// docs/transform.md): applies the named sequence `transformRoot` (a
/// `transform.named_sequence`) to `payloadRoot`, which is bound to the entry's
/// first argument. `transformModule` (a `builtin.module`, may be null) is a
/// library of sequences linked into a private copy of the script; the
/// user's script is never modified. `expensiveChecks` enables the
/// interpreter's expensive checks (upstream's
/// mlirTransformOptionsEnableExpensiveChecks; the other transform option
/// does not apply to named sequences). Upstream's MlirTransformOptions is
/// not taken because mlir-c/Dialect/Transform/Interpreter.h has no include
/// guard: including it from here would break programs that include it too.
///
/// Extra arguments: argument `i + 1` of the entry is bound to `argSizes[i]`
/// handles, taken in order from `argHandles` (which holds the sum of
/// `argSizes`); each must be live and refer to the payload root or an op
/// nested in it.
///
/// The caller holds the payload root's whole IR tree, or, when it runs in a
/// pass (a C pass in a pipeline with tracking enabled), that pass's anchor,
/// which must hold the payload root: a script may climb out of its payload
/// root (`transform.get_parent_op`) and change what is there. After the run,
/// every tracked op of the held IR ends up where the transform dialect's
/// own tracking says: live (followed to its replacement), erased (dropped,
/// or consumed by a transform op) or invalidated (in the payload of a
/// consumed handle, or moved out of the held IR); the payload root's
/// ancestors stay live. A script that erases its payload root fails, and
/// the root's handle ends erased.
///
/// On success, if `results` is not null, `*results` receives the results of
/// the entry sequence (destroy them with mlirTrackingTransformResultsDestroy).
/// On failure `*results` is set to null, the diagnostics go to the context's
/// diagnostic handlers, and: for bad arguments (null registry or ops, ops of
/// another context, a dead or null handle, an op outside the payload root,
/// a wrong number of arguments, ...) nothing changes; for a script that
/// fails, every handle strictly nested in the payload root is invalidated.
MLIR_CAPI_EXPORTED MlirLogicalResult mlirTrackingTransformApplyNamedSequence(
    MlirTrackingRegistry registry, MlirOperation payloadRoot,
    MlirOperation transformRoot, MlirOperation transformModule, intptr_t nArgs,
    const intptr_t *argSizes, const MlirTrackingHandle *argHandles,
    bool expensiveChecks, MlirTrackingTransformResults *results);

/// Destroys the results of a run, with the handles they hold (handles taken
/// out with mlirTrackingTransformResultsGetHandle stay valid). Null is
/// ignored.
MLIR_CAPI_EXPORTED void
mlirTrackingTransformResultsDestroy(MlirTrackingTransformResults results);

/// Checks whether results are null.
static inline bool
mlirTrackingTransformResultsIsNull(MlirTrackingTransformResults results) {
  return !results.ptr;
}

/// Returns the number of results of the entry sequence (0 for null).
MLIR_CAPI_EXPORTED intptr_t
mlirTrackingTransformResultsGetNumResults(MlirTrackingTransformResults results);

/// Returns whether result `pos` is a `!transform.param` (its elements are
/// attributes) rather than an operation handle (its elements are ops).
MLIR_CAPI_EXPORTED bool
mlirTrackingTransformResultsIsParam(MlirTrackingTransformResults results,
                                    intptr_t pos);

/// Returns the number of payload ops or parameters of result `pos` (0 if
/// out of range).
MLIR_CAPI_EXPORTED intptr_t mlirTrackingTransformResultsGetNumElements(
    MlirTrackingTransformResults results, intptr_t pos);

/// Returns a new handle to payload op `index` of result `pos`, live when the
/// run ended; destroy it with mlirTrackingHandleDestroy. Null if out of range
/// or if the result is a parameter.
MLIR_CAPI_EXPORTED MlirTrackingHandle mlirTrackingTransformResultsGetHandle(
    MlirTrackingTransformResults results, intptr_t pos, intptr_t index);

/// Returns parameter `index` of result `pos`. Null if out of range or if the
/// result is not a parameter.
MLIR_CAPI_EXPORTED MlirAttribute mlirTrackingTransformResultsGetParam(
    MlirTrackingTransformResults results, intptr_t pos, intptr_t index);

#ifdef __cplusplus
}
#endif

#endif // MLIR_C_TRACKING_H
