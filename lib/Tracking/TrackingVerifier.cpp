//===- TrackingVerifier.cpp - Checks handles against the IR per pass ------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "mlir/Tracking/TrackingVerifier.h"
#include "RegistryNotifier.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Tracking/PassTracking.h"
#include "mlir/Tracking/TrackingListener.h"

using namespace mlir;
using namespace mlir::tracking;

std::string TrackingVerificationFailure::str() const {
  std::string text = "tracking verification failed after pass '" + pass +
                     "' on " + anchor + ": ";
  for (size_t i = 0; i < problems.size(); ++i)
    text += (i ? "; " : "") + problems[i];
  return text;
}

TrackingVerifier::TrackingVerifier(HandleRegistry &registry,
                                   FailureCallback onFailure)
    : context(registry.getContext()), onFailure(std::move(onFailure)) {}

void TrackingVerifier::verify(Pass *pass, Operation *anchor) {
  // Adaptors only run nested pipelines, whose passes were checked each.
  if (isPassAdaptor(*pass))
    return;
  // The registry the context has now (as TrackingInstrumentation does).
  HandleRegistry *registry = HandleRegistry::lookup(context);
  if (!registry)
    return;
  TrackingVerificationFailure failure;
  failure.pass = pass->getArgument().empty() ? pass->getName().str()
                                             : pass->getArgument().str();
  failure.anchor = describeAnchor(anchor);
  detail::EventSource source;
  source.pass = failure.pass;
  source.anchor = failure.anchor;
  source.passKey = pass;
  source.anchorKey = anchor;
  failure.problems =
      detail::RegistryNotifier(*registry).verifyNested(anchor, &source);
  if (failure.problems.empty())
    return;
  anchor->emitError() << failure.str();
  if (onFailure)
    onFailure(failure);
}

void TrackingVerifier::runAfterPass(Pass *pass, Operation *anchor) {
  verify(pass, anchor);
}

void TrackingVerifier::runAfterPassFailed(Pass *pass, Operation *anchor) {
  verify(pass, anchor);
}

void mlir::tracking::enableTrackingVerification(
    PassManager &pm, HandleRegistry &registry,
    TrackingVerifier::FailureCallback onFailure) {
  pm.addInstrumentation(
      std::make_unique<TrackingVerifier>(registry, std::move(onFailure)));
}
