//===- TestUtils.h - Shared helpers for the tracking unit tests -*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_UNITTESTS_TESTUTILS_H
#define MLIR_TRACKING_UNITTESTS_TESTUTILS_H

// Defined when built with AddressSanitizer, whose quarantine keeps freed
// blocks from being reused soon: tests that need an address to come back
// cannot require it then.
#if defined(__SANITIZE_ADDRESS__)
#define TRACKING_HAS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TRACKING_HAS_ASAN 1
#endif
#endif

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Tracking/HandleRegistry.h"

#include "gtest/gtest.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::tracking::test {

/// Loads the dialects the tests use into `context`.
inline void loadTestDialects(MLIRContext &context) {
  context.loadDialect<func::FuncDialect, arith::ArithDialect, scf::SCFDialect,
                      cf::ControlFlowDialect, memref::MemRefDialect>();
}

/// Parses `source` into a module, failing the test if it does not parse.
inline OwningOpRef<ModuleOp> parseModule(MLIRContext &context,
                                         llvm::StringRef source) {
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, &context, "input.mlir");
  EXPECT_TRUE(module) << "failed to parse:\n" << source.str();
  return module;
}

/// Returns the op under `root` carrying the string attribute `tag = "name"`.
inline Operation *findTagged(Operation *root, llvm::StringRef name) {
  Operation *found = nullptr;
  root->walk([&](Operation *op) {
    if (auto tag = op->getAttrOfType<StringAttr>("tag"))
      if (tag.getValue() == name)
        found = op;
  });
  EXPECT_TRUE(found) << "no op tagged '" << name.str() << "'";
  return found;
}

/// Returns all ops of type `OpT` under `root`, in pre-order.
template <typename OpT> std::vector<OpT> collectOps(Operation *root) {
  std::vector<OpT> ops;
  root->walk<WalkOrder::PreOrder>([&](OpT op) { ops.push_back(op); });
  return ops;
}

/// Prints `op` to a string (generic form off, like mlir-opt).
inline std::string printOp(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

/// Formats the registry's invariant violations for a test failure message.
inline std::string joinProblems(const std::vector<std::string> &problems) {
  std::string text;
  for (const std::string &problem : problems)
    text += problem + "\n";
  return text;
}

/// A fresh context with the test dialects loaded, the module of the
/// fixture's source parsed in it, and the context's HandleRegistry
/// (destroyed before the module, as a registry may outlive none of its IR).
/// A fixture passes its source to the constructor.
class ModuleRegistryTest : public ::testing::Test {
protected:
  explicit ModuleRegistryTest(llvm::StringRef source) : source(source) {}
  void SetUp() override {
    loadTestDialects(context);
    module = parseModule(context, source);
    ASSERT_TRUE(module);
    registry = std::make_unique<HandleRegistry>(&context);
  }
  void TearDown() override {
    registry.reset();
    module = nullptr;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::unique_ptr<HandleRegistry> registry;

private:
  llvm::StringRef source;
};

/// Rebuilds each `arith.addi` once with swapped operands (a new op, marked
/// `swapped`), so that handles have to follow a replacement.
struct SwapAddOperands : public OpRewritePattern<arith::AddIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::AddIOp add,
                                PatternRewriter &rewriter) const override {
    if (add->hasAttr("swapped"))
      return failure();
    auto swapped = arith::AddIOp::create(rewriter, add.getLoc(), add.getRhs(),
                                         add.getLhs());
    swapped->setAttrs(add->getAttrs());
    swapped->setAttr("swapped", rewriter.getUnitAttr());
    rewriter.replaceOp(add, swapped);
    return success();
  }
};

} // namespace mlir::tracking::test

#endif // MLIR_TRACKING_UNITTESTS_TESTUTILS_H
