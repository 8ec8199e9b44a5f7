//===- TrackedArithToLLVM.cpp - convert-arith-to-llvm, tracked ------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Upstream's `convert-arith-to-llvm` builds its own ConversionConfig inside
// runOnOperation, so its rewrites cannot be observed from outside (MLIR 22
// has no hook to give a pass's conversion driver a listener). This pass is
// the same conversion, assembled from upstream's public pattern and target
// API, run through `applyPartialConversionTracked`. Like our `canonicalize`
// it keeps upstream's name, option and TypeID so that it can take over the
// registration, and is declared precise per instance.
//
//===----------------------------------------------------------------------===//

#include "mlir/Tracking/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/LoweringOptions.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Tracking/PassTracking.h"
#include "mlir/Tracking/TrackedRewrite.h"

using namespace mlir;

namespace {
TypeID getUpstreamArithToLLVMID() {
  static TypeID id = createArithToLLVMConversionPass()->getTypeID();
  return id;
}

class TrackedArithToLLVMPass : public OperationPass<> {
public:
  TrackedArithToLLVMPass() : OperationPass<>(getUpstreamArithToLLVMID()) {
    tracking::registerPreciseInstance(this);
  }
  TrackedArithToLLVMPass(const TrackedArithToLLVMPass &other)
      : OperationPass<>(other) {
    tracking::registerPreciseInstance(this);
  }
  ~TrackedArithToLLVMPass() override {
    tracking::unregisterPreciseInstance(this);
  }

  StringRef getArgument() const override { return "convert-arith-to-llvm"; }
  StringRef getDescription() const override {
    return "Convert Arith dialect to LLVM dialect";
  }
  StringRef getName() const override { return "ArithToLLVMConversionPass"; }
  std::unique_ptr<Pass> clonePass() const override {
    return std::make_unique<TrackedArithToLLVMPass>(*this);
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<LLVM::LLVMDialect>();
  }

  void runOnOperation() override {
    LLVMConversionTarget target(getContext());
    RewritePatternSet patterns(&getContext());
    LowerToLLVMOptions options(&getContext());
    if (indexBitwidth != kDeriveIndexBitwidthFromDataLayout)
      options.overrideIndexBitwidth(indexBitwidth);
    LLVMTypeConverter converter(&getContext(), options);
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    if (failed(tracking::applyPartialConversionTracked(getOperation(), target,
                                                       std::move(patterns))))
      signalPassFailure();
  }

private:
  Option<unsigned> indexBitwidth{
      *this, "index-bitwidth",
      llvm::cl::desc("Bitwidth of the index type, 0 to use size of machine "
                     "word"),
      llvm::cl::init(kDeriveIndexBitwidthFromDataLayout)};
};
} // namespace

std::unique_ptr<Pass> mlir::tracking::createTrackedArithToLLVMPass() {
  return std::make_unique<TrackedArithToLLVMPass>();
}
