//===- TestRewritePasses.cpp - Test passes for the tracked drivers --------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// - test-tracking-patterns: a pattern set applied through the opt-in drivers
//   (`applyPatternsGreedilyTracked`, or `walkAndApplyPatternsTracked` with
//   `driver=walk`), with `require-matching-name` as the per-run
//   TrackingConfig;
// - test-tracking-conversion: `arith.muli` -> `llvm.mul` (not on index)
//   through
//   `applyPartialConversionTracked` (or `applyFullConversionTracked` with
//   `full=true`, which fails on any other arith op and rolls back);
// - test-tracking-dishonest: declared precise, but erases unused
//   `arith.addi` ops with `op->erase()` behind the listener's back (so that
//   --verify-tracking has something to catch).
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tracking/PassTracking.h"
#include "mlir/Tracking/TrackedRewrite.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace {
/// `subi(x, c)` -> `addi(x, -c)`: a replacement by an op of another name.
struct SubConstantToAdd : public OpRewritePattern<arith::SubIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::SubIOp op,
                                PatternRewriter &rewriter) const override {
    IntegerAttr value;
    if (!matchPattern(op.getRhs(), m_Constant(&value)))
      return rewriter.notifyMatchFailure(op, "rhs is not a constant");
    auto negated = arith::ConstantOp::create(
        rewriter, op.getLoc(),
        IntegerAttr::get(value.getType(), -value.getValue()));
    rewriter.replaceOpWithNewOp<arith::AddIOp>(op, op.getLhs(), negated);
    return success();
  }
};

/// `muli(x, y)` -> a new `muli(y, x)` tagged `swapped`: a same-name
/// replacement.
struct SwapMulIOperands : public OpRewritePattern<arith::MulIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::MulIOp op,
                                PatternRewriter &rewriter) const override {
    if (op->hasAttr("swapped"))
      return rewriter.notifyMatchFailure(op, "already swapped");
    auto swapped =
        arith::MulIOp::create(rewriter, op.getLoc(), op.getRhs(), op.getLhs());
    swapped->setAttr("swapped", rewriter.getUnitAttr());
    rewriter.replaceOp(op, swapped);
    return success();
  }
};

struct TestPatternsPass
    : public PassWrapper<TestPatternsPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestPatternsPass)
  TestPatternsPass() = default;
  TestPatternsPass(const TestPatternsPass &other) : PassWrapper(other) {}
  StringRef getArgument() const final { return "test-tracking-patterns"; }
  StringRef getDescription() const final {
    return "Apply a test pattern set through the tracked greedy or walk "
           "driver (precise)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect>();
  }
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SubConstantToAdd, SwapMulIOperands>(&getContext());
    FrozenRewritePatternSet frozen(std::move(patterns));
    tracking::TrackingConfig tracking;
    tracking.requireMatchingReplacementOpName = requireMatchingName;
    if (driver == "walk") {
      tracking::walkAndApplyPatternsTracked(getOperation(), frozen, tracking);
      return;
    }
    if (driver != "greedy") {
      getOperation()->emitError() << "unknown driver '" << driver << "'";
      return signalPassFailure();
    }
    if (failed(tracking::applyPatternsGreedilyTracked(
            getOperation(), frozen, GreedyRewriteConfig(), tracking)))
      signalPassFailure();
  }
  Option<std::string> driver{*this, "driver", llvm::cl::desc("greedy or walk"),
                             llvm::cl::init("greedy")};
  Option<bool> requireMatchingName{
      *this, "require-matching-name",
      llvm::cl::desc("TrackingConfig: only follow same-name replacements"),
      llvm::cl::init(true)};
};

/// `arith.muli` -> `llvm.mul`.
struct MulIToLLVM : public OpConversionPattern<arith::MulIOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::MulIOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getType().isIndex())
      return rewriter.notifyMatchFailure(op, "index type");
    rewriter.replaceOpWithNewOp<LLVM::MulOp>(op, adaptor.getLhs(),
                                             adaptor.getRhs());
    return success();
  }
};

struct TestConversionPass
    : public PassWrapper<TestConversionPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestConversionPass)
  TestConversionPass() = default;
  TestConversionPass(const TestConversionPass &other) : PassWrapper(other) {}
  StringRef getArgument() const final { return "test-tracking-conversion"; }
  StringRef getDescription() const final {
    return "Convert arith.muli to llvm.mul through the tracked conversion "
           "driver (precise)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, LLVM::LLVMDialect>();
  }
  void runOnOperation() override {
    ConversionTarget target(getContext());
    target.addLegalDialect<LLVM::LLVMDialect>();
    // Index multiplications stay (this test pattern has no type converter).
    target.addDynamicallyLegalOp<arith::MulIOp>(
        [](arith::MulIOp op) { return op.getType().isIndex(); });
    if (full) {
      // Everything but arith is legal: any other arith op fails the run.
      target.markUnknownOpDynamicallyLegal([](Operation *op) {
        return !isa<arith::ArithDialect>(op->getDialect());
      });
    }
    RewritePatternSet patterns(&getContext());
    patterns.add<MulIToLLVM>(&getContext());
    FrozenRewritePatternSet frozen(std::move(patterns));
    LogicalResult result = full ? tracking::applyFullConversionTracked(
                                      getOperation(), target, frozen)
                                : tracking::applyPartialConversionTracked(
                                      getOperation(), target, frozen);
    if (failed(result))
      signalPassFailure();
  }
  Option<bool> full{
      *this, "full",
      llvm::cl::desc("Full conversion (fails on other arith ops)"),
      llvm::cl::init(false)};
};

struct TestDishonestPass
    : public PassWrapper<TestDishonestPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestDishonestPass)
  StringRef getArgument() const final { return "test-tracking-dishonest"; }
  StringRef getDescription() const final {
    return "Declared precise, but erases unused arith.addi ops without the "
           "rewriter (for --verify-tracking)";
  }
  void runOnOperation() override {
    SmallVector<Operation *> dead;
    getOperation()->walk([&](arith::AddIOp op) {
      if (op->use_empty())
        dead.push_back(op);
    });
    for (Operation *op : dead)
      op->erase();
  }
};
} // namespace

namespace mlir::tracking::test {
void registerTestRewritePasses() {
  PassRegistration<TestPatternsPass>();
  tracking::registerPrecisePass<TestPatternsPass>();
  PassRegistration<TestConversionPass>();
  tracking::registerPrecisePass<TestConversionPass>();
  PassRegistration<TestDishonestPass>();
  tracking::registerPrecisePass<TestDishonestPass>();
}
} // namespace mlir::tracking::test
