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
/// returns a null registry if `context` is null or already has one. The
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
/// a stale handle is used).
MLIR_CAPI_EXPORTED void mlirTrackingHandleDescribe(MlirTrackingHandle handle,
                                                   MlirStringCallback callback,
                                                   void *userData);

/// Returns the number of events in the handle's history.
MLIR_CAPI_EXPORTED intptr_t
mlirTrackingHandleGetNumHistoryEvents(MlirTrackingHandle handle);

/// Calls `callback` once per event of the handle's history, oldest first,
/// each a line without the newline ("canonicalize on func.func @f: arith.addi
/// at loc(...): replaced by arith.constant at loc(...) (folded)"). The events
/// are a snapshot taken when the call starts.
MLIR_CAPI_EXPORTED void
mlirTrackingHandlePrintHistory(MlirTrackingHandle handle,
                               MlirStringCallback callback, void *userData);

//===----------------------------------------------------------------------===//
// Passes.
//===----------------------------------------------------------------------===//

/// Makes `passManager` report to `registry`: precise passes (canonicalize and
/// cse from this library, and passes registered as precise) move handles to
/// replacements or mark them erased; every other pass invalidates the handles
/// strictly nested in the op it runs on. The registry must outlive every run.
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

#ifdef __cplusplus
}
#endif

#endif // MLIR_C_TRACKING_H
