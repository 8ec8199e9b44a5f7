//===- TestTrackingPasses.cpp - Test passes for tracking-opt --------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// - test-tracking-swap-addi: a third-party pattern pass opted in as precise
//   (the documented recipe in PassTracking.h and docs/precise-passes.md);
// - test-tracking-swap-addi-untracked: the same rewrite, not opted in, so the
//   fallback invalidates the handles under its anchor;
// - test-tracking-fail: changes nothing and fails.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tracking/PassTracking.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace {
/// `addi(constant, x)` -> `addi(x, constant)`, as a new op (so that handles
/// have to follow a replacement).
struct SwapConstantLhsOfAddI : public OpRewritePattern<arith::AddIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::AddIOp op,
                                PatternRewriter &rewriter) const override {
    if (!matchPattern(op.getLhs(), m_Constant()) ||
        matchPattern(op.getRhs(), m_Constant()))
      return rewriter.notifyMatchFailure(op, "lhs is not the only constant");
    rewriter.replaceOpWithNewOp<arith::AddIOp>(op, op.getRhs(), op.getLhs(),
                                               op.getOverflowFlagsAttr());
    return success();
  }
};

template <typename DerivedT>
struct SwapAddIPassBase : public PassWrapper<DerivedT, OperationPass<>> {
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect>();
  }
  void runOnOperation() override {
    RewritePatternSet patterns(&this->getContext());
    patterns.add<SwapConstantLhsOfAddI>(&this->getContext());
    GreedyRewriteConfig config;
    // The opt-in: every rewrite goes through the tracking listener.
    config.setListener(tracking::getTrackingListener());
    if (failed(applyPatternsGreedily(this->getOperation(), std::move(patterns),
                                     config)))
      this->signalPassFailure();
  }
};

struct TestSwapAddIPass : public SwapAddIPassBase<TestSwapAddIPass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestSwapAddIPass)
  StringRef getArgument() const final { return "test-tracking-swap-addi"; }
  StringRef getDescription() const final {
    return "Swap a constant lhs of arith.addi (precise: opted in)";
  }
};

struct TestSwapAddIUntrackedPass
    : public SwapAddIPassBase<TestSwapAddIUntrackedPass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestSwapAddIUntrackedPass)
  StringRef getArgument() const final {
    return "test-tracking-swap-addi-untracked";
  }
  StringRef getDescription() const final {
    return "Swap a constant lhs of arith.addi (not declared precise)";
  }
};

struct TestFailPass : public PassWrapper<TestFailPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestFailPass)
  StringRef getArgument() const final { return "test-tracking-fail"; }
  StringRef getDescription() const final {
    return "Emit an error and fail, changing nothing";
  }
  void runOnOperation() override {
    getOperation()->emitError("test-tracking-fail: failing on purpose");
    signalPassFailure();
  }
};
} // namespace

namespace mlir::tracking::test {
void registerTestPasses() {
  PassRegistration<TestSwapAddIPass>();
  tracking::registerPrecisePass<TestSwapAddIPass>();
  PassRegistration<TestSwapAddIUntrackedPass>();
  PassRegistration<TestFailPass>();
}
} // namespace mlir::tracking::test
