//===- TrackedTransformInterpreterPass.cpp - tracked-transform-interpreter ===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Tracking/PassTracking.h"
#include "mlir/Tracking/TransformInterpreter.h"

using namespace mlir;
using namespace mlir::tracking;

namespace mlir::tracking {
#define GEN_PASS_DECL_TRACKEDTRANSFORMINTERPRETER
#define GEN_PASS_DEF_TRACKEDTRANSFORMINTERPRETER
#include "TransformInterpreterPasses.h.inc"
} // namespace mlir::tracking

namespace {
struct TrackedTransformInterpreterPass
    : public tracking::impl::TrackedTransformInterpreterBase<
          TrackedTransformInterpreterPass> {
  using Base::Base;

  // Our ops too, loaded before the pass manager runs anything: the
  // interpreter would otherwise add them to the context itself, which MLIR
  // forbids while other threads run passes (a nested anchor).
  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registerTrackingTransformExtension(registry);
  }

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    Operation *payload = getOperation();
    ModuleOp library = transform::detail::getPreloadedTransformModule(context);
    Operation *entry = transform::detail::findTransformEntryPoint(
        payload, library, entryPoint);
    if (!entry)
      return signalPassFailure();
    transform::TransformOptions options;
    options.enableExpensiveChecks(!disableExpensiveChecks);

    HandleRegistry *registry = HandleRegistry::lookup(context);
    if (!registry) {
      // Nothing is tracked: exactly upstream's interpreter.
      if (failed(transform::applyTransformNamedSequence(payload, entry, library,
                                                        options)))
        signalPassFailure();
      return;
    }
    std::vector<TransformSequenceResult> results;
    TransformEventSource source;
    source.pass = getArgument().str();
    source.passKey = this;
    if (failed(applyTrackedNamedSequence(*registry, payload, entry, library,
                                         /*args=*/{}, options, results,
                                         source)))
      signalPassFailure();
  }
};
} // namespace

std::unique_ptr<Pass> mlir::tracking::createTrackedTransformInterpreterPass() {
  return std::make_unique<TrackedTransformInterpreterPass>();
}

void mlir::tracking::registerTrackedTransformInterpreterPass() {
  registerPrecisePass<TrackedTransformInterpreterPass>();
  registerPass(createTrackedTransformInterpreterPass);
}
