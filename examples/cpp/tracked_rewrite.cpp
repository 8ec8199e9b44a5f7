//===- tracked_rewrite.cpp - Handles across tracked rewrites, from C++ ----===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Holds a handle to every op of the input that has a name location
// (`loc("name")`), then rewrites the input with each tracked driver of
// mlir/Tracking/TrackedRewrite.h and prints where each handle went after
// each step:
//
// 1. `MulByPowerOfTwoToShift` (below) applied in one walk
//    (`walkAndApplyPatternsTracked`);
// 2. the canonicalization patterns of the arith dialect applied by the
//    greedy driver (`applyPatternsGreedilyTracked`), folding included;
// 3. the arith-to-LLVM dialect conversion (`applyPartialConversionTracked`).
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

/// Prints "<name>: <state> [<op now>]" and the history of each handle.
void report(StringRef step, const Handles &handles) {
  llvm::outs() << "after " << step << ":\n";
  for (const auto &[name, handle] : handles) {
    llvm::outs() << "  " << name << ": "
                 << tracking::stringifyHandleState(handle.getState());
    if (Operation *op = handle.get())
      llvm::outs() << " " << op->getName();
    llvm::outs() << "\n";
    for (const tracking::TrackingEvent &event : handle.getHistory())
      llvm::outs() << "    " << event.str() << "\n";
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

  // 1. One pattern in a single walk. It replaces muli by shli, an op of
  // another name: the handle follows only because the name rule is relaxed.
  RewritePatternSet shifts(&context);
  shifts.add<MulByPowerOfTwoToShift>(&context);
  tracking::TrackingConfig followAnyOp;
  followAnyOp.requireMatchingReplacementOpName = false;
  {
    // The events name this step, as they name a pass in a pipeline.
    tracking::ScopedRewriteAttribution attribution("walk", *module);
    tracking::walkAndApplyPatternsTracked(*module, std::move(shifts),
                                          followAnyOp);
  }
  report("walk", handles);

  // 2. The arith canonicalization patterns, greedily, folding included, with
  // the default tracking rules.
  RewritePatternSet patterns(&context);
  context.getLoadedDialect<arith::ArithDialect>()->getCanonicalizationPatterns(
      patterns);
  for (RegisteredOperationName op : context.getRegisteredOperations())
    if (op.getDialectNamespace() == "arith")
      op.getCanonicalizationPatterns(patterns, &context);
  {
    tracking::ScopedRewriteAttribution attribution("greedy patterns", *module);
    if (failed(tracking::applyPatternsGreedilyTracked(*module,
                                                      std::move(patterns)))) {
      llvm::errs() << "the greedy driver did not converge\n";
      return 1;
    }
  }
  report("greedy patterns", handles);

  // 3. arith to LLVM: the handles follow each op into the LLVM dialect at
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
