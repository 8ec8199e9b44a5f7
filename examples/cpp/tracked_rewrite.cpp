//===- tracked_rewrite.cpp - Handles across tracked rewrites, from C++ ----===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Holds a handle to every op of the input that has a name location
// (`loc("name")`), then rewrites the input twice and prints where each handle
// went after each step:
//
// 1. a pattern set (the canonicalization patterns of the arith dialect and
//    `MulByPowerOfTwoToShift`, below) applied by the tracked greedy driver
//    (`applyPatternsGreedilyTracked`), folding included;
// 2. the arith-to-LLVM dialect conversion run by the tracked conversion
//    driver (`applyPartialConversionTracked`).
//
//   tracked-rewrite-example input.mlir
//
// test/Tracking/example-tracked-rewrite.mlir runs it.
//
//===----------------------------------------------------------------------===//

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Tracking/HandleRegistry.h"
#include "mlir/Tracking/TrackedRewrite.h"
#include "mlir/Tracking/TrackingListener.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <utility>
#include <vector>

using namespace mlir;

namespace {
/// `x * 2^k` -> `x << k`: the op is replaced by an op of another name.
struct MulByPowerOfTwoToShift : OpRewritePattern<arith::MulIOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::MulIOp op,
                                PatternRewriter &rewriter) const override {
    APInt factor;
    if (!matchPattern(op.getRhs(), m_ConstantInt(&factor)) ||
        !factor.isPowerOf2() || factor.isOne())
      return rewriter.notifyMatchFailure(op, "not a power of two above 1");
    Value amount = arith::ConstantOp::create(
        rewriter, op.getLoc(),
        rewriter.getIntegerAttr(op.getType(), factor.logBase2()));
    rewriter.replaceOpWithNewOp<arith::ShLIOp>(op, op.getLhs(), amount);
    return success();
  }
};

/// The handles held, with the names the input gave their ops.
using Handles = std::vector<std::pair<std::string, tracking::OpHandle>>;

/// Prints "<name>: <state> [<op now>]" and the last event of each handle.
void report(StringRef step, const Handles &handles) {
  llvm::outs() << "after " << step << ":\n";
  for (const auto &[name, handle] : handles) {
    llvm::outs() << "  " << name << ": "
                 << tracking::stringifyHandleState(handle.getState());
    if (Operation *op = handle.get())
      llvm::outs() << " " << op->getName();
    llvm::outs() << "\n";
    std::vector<tracking::TrackingEvent> history = handle.getHistory();
    if (!history.empty())
      llvm::outs() << "    " << history.back().str() << "\n";
  }
}
} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: " << argv[0] << " input.mlir\n";
    return 2;
  }
  MLIRContext context;
  context
      .loadDialect<arith::ArithDialect, func::FuncDialect, LLVM::LLVMDialect>();
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(argv[1], &context);
  if (!module)
    return 1;

  // One registry per context; it must outlive the handles' use.
  tracking::HandleRegistry registry(&context);
  Handles handles;
  module->walk([&](Operation *op) {
    if (auto name = dyn_cast<NameLoc>(op->getLoc()))
      handles.emplace_back(name.getName().str(), registry.getHandle(op));
  });

  // 1. Patterns, greedily. Replacements by an op of another name (muli by
  // shli) are followed only when the name rule is relaxed.
  RewritePatternSet patterns(&context);
  context.getLoadedDialect<arith::ArithDialect>()->getCanonicalizationPatterns(
      patterns);
  for (RegisteredOperationName op : context.getRegisteredOperations())
    if (op.getDialectNamespace() == "arith")
      op.getCanonicalizationPatterns(patterns, &context);
  patterns.add<MulByPowerOfTwoToShift>(&context);
  tracking::TrackingConfig followAnyOp;
  followAnyOp.requireMatchingReplacementOpName = false;
  {
    // The events name this step, as they name a pass in a pipeline.
    tracking::ScopedRewriteAttribution attribution("greedy patterns", *module);
    if (failed(tracking::applyPatternsGreedilyTracked(
            *module, std::move(patterns), GreedyRewriteConfig(),
            followAnyOp))) {
      llvm::errs() << "the greedy driver did not converge\n";
      return 1;
    }
  }
  report("greedy patterns", handles);

  // 2. arith to LLVM: the handles follow each op into the LLVM dialect at
  // commit (conversions accept replacements of another name by default).
  LLVMTypeConverter converter(&context);
  RewritePatternSet lowering(&context);
  arith::populateArithToLLVMConversionPatterns(converter, lowering);
  LLVMConversionTarget target(context);
  target.addLegalOp<ModuleOp>();
  target.addLegalDialect<func::FuncDialect>();
  {
    tracking::ScopedRewriteAttribution attribution("arith to llvm", *module);
    if (failed(tracking::applyPartialConversionTracked(*module, target,
                                                       std::move(lowering)))) {
      llvm::errs() << "the conversion failed\n";
      return 1;
    }
  }
  report("arith to llvm", handles);

  llvm::outs() << *module << "\n";
  return 0;
}
