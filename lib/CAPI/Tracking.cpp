//===- Tracking.cpp - C API for tracked operation handles -----------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Thin wrappers from include/mlir-c/Tracking.h to the C++ API. MLIR's own
// C objects are unwrapped with mlir/CAPI/IR.h and mlir/CAPI/Pass.h; ours are
// a heap-allocated HandleRegistry and a heap-allocated OpHandle (one owned
// reference each).
//
//===----------------------------------------------------------------------===//

#include "mlir-c/Tracking.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Support.h"
#include "mlir/CAPI/Wrap.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Tracking/HandleRegistry.h"
#include "mlir/Tracking/PassTracking.h"
#include "mlir/Tracking/Passes.h"

using namespace mlir;
using namespace mlir::tracking;

DEFINE_C_API_PTR_METHODS(MlirTrackingRegistry, mlir::tracking::HandleRegistry)
DEFINE_C_API_PTR_METHODS(MlirTrackingHandle, mlir::tracking::OpHandle)

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
  callback(wrap(text), userData);
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
  // is a null result the caller can check.
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
