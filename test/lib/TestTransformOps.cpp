//===- TestTransformOps.cpp - Transform ops for tests ---------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "TestTransformOps.h.inc"

using namespace mlir;

#define GET_OP_CLASSES
#include "TestTransformOps.cpp.inc"

DiagnosedSilenceableFailure transform::TestCountHandlesInScopeOp::apply(
    transform::TransformRewriter &rewriter,
    transform::TransformResults &results, transform::TransformState &state) {
  for (Operation *op : state.getPayloadOps(getTarget())) {
    SmallVector<Value> handles;
    (void)state.getHandlesForPayloadOp(op, handles,
                                       /*includeOutOfScope=*/false);
    op->emitRemark() << handles.size() << " handle(s) in scope";
  }
  return DiagnosedSilenceableFailure::success();
}

void transform::TestCountHandlesInScopeOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getTargetMutable(), effects);
  transform::onlyReadsPayload(effects);
}

namespace {
class TestTransformExtension
    : public transform::TransformDialectExtension<TestTransformExtension> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestTransformExtension)
  using Base::Base;

  void init() { registerTransformOps<transform::TestCountHandlesInScopeOp>(); }
};
} // namespace

namespace mlir::tracking::test {
void registerTestTransformExtension(DialectRegistry &registry) {
  registry.addExtensions<TestTransformExtension>();
}
} // namespace mlir::tracking::test
