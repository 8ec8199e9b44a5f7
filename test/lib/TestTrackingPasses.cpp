//===- TestTrackingPasses.cpp - Test passes for tracking-opt --------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// - test-tracking-add-nsw: a third-party pattern pass opted in as precise
//   (the documented recipe in PassTracking.h and docs/precise-passes.md);
// - test-tracking-add-nsw-untracked: the same rewrite, not opted in, so the
//   fallback invalidates the handles under its anchor;
// - test-tracking-fail: changes nothing and fails.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tracking/PassTracking.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace {
/// `addi(x, y)` -> a new `addi(x, y) overflow<nsw>`, so that handles have
/// to follow a replacement. (Not a valid optimization: a test rewrite.)
struct MarkAddINoSignedWrap : public OpRewritePattern<arith::AddIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::AddIOp op,
                                PatternRewriter &rewriter) const override {
    if (bitEnumContainsAll(op.getOverflowFlags(),
                           arith::IntegerOverflowFlags::nsw))
      return rewriter.notifyMatchFailure(op, "already nsw");
    rewriter.replaceOpWithNewOp<arith::AddIOp>(
        op, op.getLhs(), op.getRhs(), arith::IntegerOverflowFlags::nsw);
    return success();
  }
};

template <typename DerivedT>
struct AddNswPassBase : public PassWrapper<DerivedT, OperationPass<>> {
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect>();
  }
  void runOnOperation() override {
    RewritePatternSet patterns(&this->getContext());
    patterns.add<MarkAddINoSignedWrap>(&this->getContext());
    GreedyRewriteConfig config;
    // The opt-in: every rewrite goes through the tracking listener.
    config.setListener(tracking::getTrackingListener());
    if (failed(applyPatternsGreedily(this->getOperation(), std::move(patterns),
                                     config)))
      this->signalPassFailure();
  }
};

struct TestAddNswPass : public AddNswPassBase<TestAddNswPass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestAddNswPass)
  StringRef getArgument() const final { return "test-tracking-add-nsw"; }
  StringRef getDescription() const final {
    return "Rebuild each arith.addi with overflow<nsw> (precise: opted in)";
  }
};

struct TestAddNswUntrackedPass
    : public AddNswPassBase<TestAddNswUntrackedPass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestAddNswUntrackedPass)
  StringRef getArgument() const final {
    return "test-tracking-add-nsw-untracked";
  }
  StringRef getDescription() const final {
    return "Rebuild each arith.addi with overflow<nsw> (not declared precise)";
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
/// What a pass with a bug does: tracking-opt must report the crash as
/// mlir-opt does (stack dump, bug-report banner), tracked or not.
struct TestCrashPass : public PassWrapper<TestCrashPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestCrashPass)
  StringRef getArgument() const final { return "test-tracking-crash"; }
  StringRef getDescription() const final {
    return "Crash (a trap instruction), changing nothing";
  }
  void runOnOperation() override { __builtin_trap(); }
};
} // namespace

namespace mlir::tracking::test {
void registerTestRewritePasses();

void registerTestPasses() {
  registerTestRewritePasses();
  PassRegistration<TestAddNswPass>();
  tracking::registerPrecisePass<TestAddNswPass>();
  PassRegistration<TestAddNswUntrackedPass>();
  PassRegistration<TestFailPass>();
  PassRegistration<TestCrashPass>();
}
} // namespace mlir::tracking::test
