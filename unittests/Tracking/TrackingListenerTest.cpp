//===- TrackingListenerTest.cpp - Tests for the tracking listener ---------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "Attribution.h"
#include "RegistryNotifier.h"
#include "TestUtils.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/TransformOps/TensorTransformOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Tracking/BlockValueRegistry.h"
#include "mlir/Tracking/HandleRegistry.h"
#include "mlir/Tracking/TrackingListener.h"
#include "mlir/Tracking/TrackingRewriter.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include <memory>
#include <optional>

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::test;
using mlir::tracking::detail::RegistryNotifier;

namespace {

constexpr llvm::StringLiteral kInput = R"mlir(
func.func @f(%a: i32, %b: i32, %i: index, %j: index, %c: i1) -> (i32, i1) {
  %0 = arith.addi %a, %b {tag = "add"} : i32
  %1 = arith.muli %0, %b {tag = "mul"} : i32
  %s, %o = arith.addui_extended %1, %a {tag = "ext"} : i32, i1
  %2 = arith.addi %s, %a {tag = "other"} : i32
  scf.if %c {
    %3 = arith.addi %a, %a {tag = "inner"} : i32
    %4 = arith.muli %3, %3 {tag = "inner2"} : i32
  } {tag = "if"}
  return %2, %o : i32, i1
}
func.func @g(%a: i32) -> i32 {
  %0 = arith.addi %a, %a {tag = "g.add"} : i32
  %1 = arith.muli %0, %a {tag = "g.mul"} : i32
  return %1 : i32
}
)mlir";

/// Counts the notifications it receives (as the `next` listener).
struct RecordingListener : public RewriterBase::Listener {
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint previous) override {
    ++inserted;
  }
  void notifyBlockInserted(Block *block, Region *previous,
                           Region::iterator previousIt) override {
    ++blocksInserted;
  }
  void notifyOperationReplaced(Operation *op, ValueRange values) override {
    replaced.push_back(op);
  }
  void notifyOperationErased(Operation *op) override { erased.push_back(op); }
  void notifyPatternBegin(const Pattern &pattern, Operation *op) override {
    ++patternsBegun;
  }
  void notifyPatternEnd(const Pattern &pattern, LogicalResult status) override {
    ++patternsEnded;
  }
  void
  notifyMatchFailure(Location loc,
                     function_ref<void(Diagnostic &)> reasonCallback) override {
    ++matchFailures;
  }
  int inserted = 0;
  int blocksInserted = 0;
  int patternsBegun = 0;
  int patternsEnded = 0;
  int matchFailures = 0;
  std::vector<Operation *> replaced;
  std::vector<Operation *> erased;
};

class TrackingListenerTest : public ModuleRegistryTest {
protected:
  TrackingListenerTest() : ModuleRegistryTest(kInput) {}

  Operation *op(StringRef tag) { return findTagged(*module, tag); }
  func::FuncOp func(StringRef name) {
    return module->lookupSymbol<func::FuncOp>(name);
  }
  Value arg(StringRef funcName, unsigned index) {
    return func(funcName).getArgument(index);
  }
  void expectConsistent() {
    std::vector<std::string> problems = registry->verifyAgainst(*module);
    EXPECT_TRUE(problems.empty()) << joinProblems(problems);
  }
  /// Invalidates the handles strictly nested in `anchor`, as before a
  /// non-precise pass; returns how many.
  size_t invalidateNested(Operation *anchor) {
    return RegistryNotifier(*registry).invalidateNested(anchor, {}, "test");
  }
  /// The reason of the last event of `handle`.
  static std::string lastReason(const OpHandle &handle) {
    std::vector<TrackingEvent> history = handle.getHistory();
    return history.empty() ? "" : history.back().reason;
  }
};

//===----------------------------------------------------------------------===//
// Replacement rules
//===----------------------------------------------------------------------===//

TEST_F(TrackingListenerTest, FollowsSameNameReplacement) {
  Operation *add = op("add");
  OpHandle handle = registry->getHandle(add);
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.setInsertionPoint(add);
  auto swapped =
      arith::AddIOp::create(rewriter, add->getLoc(), arg("f", 1), arg("f", 0));
  rewriter.replaceOp(add, swapped);

  EXPECT_TRUE(handle.isLive());
  EXPECT_EQ(handle.get(), swapped.getOperation());
  EXPECT_EQ(registry->lookupHandle(swapped), handle);
  std::vector<TrackingEvent> history = handle.getHistory();
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history.front().kind, TrackingEvent::Kind::Replaced);
  EXPECT_NE(history.front().replacement.find("arith.addi"), std::string::npos);
  EXPECT_EQ(registry->getNumTrackedOps(), 1u);
  expectConsistent();
}

TEST_F(TrackingListenerTest, FollowsReplaceOpWithOpOverload) {
  // Upstream's replaceOp(Operation *, Operation *) reports the new op's
  // results, which the rules trace back to it.
  Operation *add = op("add");
  OpHandle handle = registry->getHandle(add);
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.setInsertionPoint(add);
  Operation *clone = rewriter.clone(*add);
  rewriter.replaceOp(add, clone);
  EXPECT_EQ(handle.get(), clone);
  expectConsistent();
}

TEST_F(TrackingListenerTest, FollowsConstantReplacement) {
  Operation *add = op("add");
  OpHandle handle = registry->getHandle(add);
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.setInsertionPoint(add);
  auto constant = arith::ConstantIntOp::create(rewriter, add->getLoc(),
                                               rewriter.getI32Type(), 42);
  rewriter.replaceOp(add, constant);

  EXPECT_TRUE(handle.isLive());
  EXPECT_EQ(handle.get(), constant.getOperation());
  EXPECT_EQ(handle.getLastName(), "arith.constant");
  expectConsistent();
}

/// Builds `arith.addi` on index values, then `arith.index_cast` to i64 and
/// `arith.trunci` to i32: a chain of CastOpInterface ops over a same-name op.
static Value buildCastChain(RewriterBase &rewriter, Location loc, Value i,
                            Value j, Operation **innerAdd,
                            Operation **outerCast) {
  auto add = arith::AddIOp::create(rewriter, loc, i, j);
  auto indexCast =
      arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), add);
  auto trunc =
      arith::TruncIOp::create(rewriter, loc, rewriter.getI32Type(), indexCast);
  *innerAdd = add;
  *outerCast = trunc;
  return trunc;
}

TEST_F(TrackingListenerTest, SkipsCastChain) {
  Operation *add = op("add");
  OpHandle handle = registry->getHandle(add);
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.setInsertionPoint(add);
  Operation *innerAdd, *outerCast;
  Value value = buildCastChain(rewriter, add->getLoc(), arg("f", 2),
                               arg("f", 3), &innerAdd, &outerCast);
  std::string reason;
  FailureOr<Operation *> found =
      listener.findReplacementOp(add, value, &reason);
  ASSERT_TRUE(succeeded(found)) << reason;
  EXPECT_EQ(*found, innerAdd);
  rewriter.replaceOp(add, value);

  EXPECT_EQ(handle.get(), innerAdd);
  expectConsistent();
}

TEST_F(TrackingListenerTest, StopsAtCastWhenNotSkippingCasts) {
  Operation *add = op("add");
  OpHandle handle = registry->getHandle(add);
  TrackingListenerConfig config;
  config.skipCastOps = false;
  TrackingListener listener(config, registry.get());
  EXPECT_FALSE(listener.getConfig().skipCastOps);
  IRRewriter rewriter(&context, &listener);
  rewriter.setInsertionPoint(add);
  Operation *innerAdd, *outerCast;
  Value value = buildCastChain(rewriter, add->getLoc(), arg("f", 2),
                               arg("f", 3), &innerAdd, &outerCast);
  std::string reason;
  EXPECT_TRUE(failed(listener.findReplacementOp(add, value, &reason)));
  EXPECT_NE(reason.find("arith.trunci"), std::string::npos) << reason;
  rewriter.replaceOp(add, value);

  EXPECT_EQ(handle.getState(), HandleState::Erased);
  EXPECT_EQ(handle.get(), nullptr);
  EXPECT_NE(lastReason(handle).find("arith.trunci"), std::string::npos)
      << lastReason(handle);
  EXPECT_FALSE(registry->isTracked(innerAdd));
  expectConsistent();
}

/// builtin.unrealized_conversion_cast does not implement CastOpInterface in
/// MLIR 22, so, as in the transform dialect's listener, it is not looked
/// through: the handle is erased.
TEST_F(TrackingListenerTest, UnrealizedConversionCastIsNotSkipped) {
  Operation *add = op("add");
  OpHandle handle = registry->getHandle(add);
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.setInsertionPoint(add);
  Operation *clone = rewriter.clone(*add);
  auto unrealized = UnrealizedConversionCastOp::create(
      rewriter, add->getLoc(), TypeRange{rewriter.getI32Type()},
      ValueRange{clone->getResult(0)});
  rewriter.replaceOp(add, unrealized);
  EXPECT_EQ(handle.getState(), HandleState::Erased);
  EXPECT_NE(lastReason(handle).find("builtin.unrealized_conversion_cast"),
            std::string::npos)
      << lastReason(handle);
  expectConsistent();
}

TEST_F(TrackingListenerTest, DifferentOpNameErasesWithReason) {
  Operation *add = op("add");
  OpHandle handle = registry->getHandle(add);
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.setInsertionPoint(add);
  auto mul =
      arith::MulIOp::create(rewriter, add->getLoc(), arg("f", 0), arg("f", 1));
  // By values: the listener's rules decide (an explicit replaceOp(add, mul)
  // would be followed).
  rewriter.replaceOp(add, mul->getResults());

  EXPECT_EQ(handle.getState(), HandleState::Erased);
  EXPECT_EQ(handle.get(), nullptr);
  EXPECT_NE(lastReason(handle).find("'arith.muli' has another name"),
            std::string::npos)
      << lastReason(handle);
  EXPECT_NE(handle.describe().find("arith.muli"), std::string::npos)
      << handle.describe();
  EXPECT_FALSE(registry->isTracked(mul));
  EXPECT_EQ(registry->getNumTrackedOps(), 0u);
  expectConsistent();
}

/// A replacement through ops implementing FindPayloadReplacementOpInterface
/// (a reshape back and forth): the search looks through them to their
/// source, in a search of its own (findReplacementWithStorage), with and
/// without the listener's cache of op kinds.
TEST(TrackingListenerPayloadTest, ReplacementFoundThroughPayloadOps) {
  DialectRegistry dialects;
  tensor::registerFindPayloadReplacementOpInterfaceExternalModels(dialects);
  MLIRContext context(dialects);
  loadTestDialects(context);
  context.loadDialect<tensor::TensorDialect>();
  OwningOpRef<ModuleOp> module = parseModule(context, R"mlir(
func.func @f(%t: tensor<2x2xi32>) -> (tensor<2x2xi32>, tensor<2x2xi32>) {
  %0 = arith.addi %t, %t {tag = "add"} : tensor<2x2xi32>
  %1 = arith.subi %t, %t {tag = "sub"} : tensor<2x2xi32>
  %2 = arith.addi %t, %t {tag = "new"} : tensor<2x2xi32>
  %3 = tensor.collapse_shape %2 [[0, 1]] : tensor<2x2xi32> into tensor<4xi32>
  %4 = tensor.expand_shape %3 [[0, 1]] output_shape [2, 2] {tag = "expand"}
      : tensor<4xi32> into tensor<2x2xi32>
  return %0, %1 : tensor<2x2xi32>, tensor<2x2xi32>
}
)mlir");
  ASSERT_TRUE(module);
  HandleRegistry registry(&context);
  Operation *add = findTagged(*module, "add");
  Operation *sub = findTagged(*module, "sub");
  Operation *newAdd = findTagged(*module, "new");
  Operation *expand = findTagged(*module, "expand");
  OpHandle addHandle = registry.getHandle(add);
  OpHandle subHandle = registry.getHandle(sub);

  TrackingListener listener({}, &registry);
  EXPECT_EQ(listener.findReplacementOp(add, expand->getResults()), newAdd);
  std::string reason;
  EXPECT_TRUE(
      failed(listener.findReplacementOp(sub, expand->getResults(), &reason)));
  EXPECT_EQ(reason, "replacement op 'arith.addi' has another name and is not "
                    "constant-like");

  TrackingListener ownListener({}, &registry);
  ownListener.keepPatternsInListener();
  IRRewriter rewriter(&context, &ownListener);
  rewriter.replaceOp(add, expand->getResults());
  EXPECT_EQ(addHandle.get(), newAdd);
  rewriter.replaceOp(sub, expand->getResults());
  EXPECT_EQ(subHandle.get(), nullptr);
  EXPECT_EQ(subHandle.getHistory().back().reason,
            "replacement op 'arith.addi' has another name and is not "
            "constant-like");
  EXPECT_TRUE(registry.verifyAgainst(*module).empty());
}

/// Reasons of failed replacements are interned by key (the fixed text, or the
/// found op's name) and remembered per lane: alternating keys, and a reason
/// given as text between them, must each read their own text.
TEST_F(TrackingListenerTest, AlternatingFailureReasonsReadTheirOwnText) {
  Operation *add = op("add");
  Operation *other = op("other");
  Operation *gAdd = op("g.add");
  Operation *inner = op("inner");
  OpHandle addHandle = registry->getHandle(add);
  OpHandle otherHandle = registry->getHandle(other);
  OpHandle gAddHandle = registry->getHandle(gAdd);
  OpHandle innerHandle = registry->getHandle(inner);
  TrackingListener listener({}, registry.get());
  listener.keepPatternsInListener();
  IRRewriter rewriter(&context, &listener);

  // Another name: arith.muli.
  rewriter.setInsertionPoint(add);
  auto mul =
      arith::MulIOp::create(rewriter, add->getLoc(), arg("f", 0), arg("f", 1));
  rewriter.replaceOp(add, mul->getResults());
  // No single defining op: a block argument.
  rewriter.replaceOp(other, ValueRange{arg("f", 0)});
  // Another name again, of another op: arith.subi.
  rewriter.setInsertionPoint(gAdd);
  auto sub =
      arith::SubIOp::create(rewriter, gAdd->getLoc(), arg("g", 0), arg("g", 0));
  rewriter.replaceOp(gAdd, sub->getResults());
  // A reason given as text, then the first key again.
  OpHandle mulHandle = registry->getHandle(mul);
  RegistryNotifier(*registry).notifyOperationErased(
      mul, tracking::detail::EventSource(), "a reason as text");
  rewriter.setInsertionPoint(inner);
  auto mul2 = arith::MulIOp::create(rewriter, inner->getLoc(), arg("f", 0),
                                    arg("f", 0));
  rewriter.replaceOp(inner, mul2->getResults());

  EXPECT_EQ(lastReason(addHandle), "replacement op 'arith.muli' has another "
                                   "name and is not constant-like");
  EXPECT_EQ(lastReason(otherHandle),
            "replacement values have no single defining op");
  EXPECT_EQ(lastReason(gAddHandle), "replacement op 'arith.subi' has another "
                                    "name and is not constant-like");
  EXPECT_EQ(lastReason(mulHandle), "a reason as text");
  EXPECT_EQ(lastReason(innerHandle), "replacement op 'arith.muli' has another "
                                     "name and is not constant-like");
  // The reason of `findReplacementOp` is the same text.
  std::string reason;
  EXPECT_TRUE(
      failed(listener.findReplacementOp(mul2, sub->getResults(), &reason)));
  EXPECT_EQ(reason, "replacement op 'arith.subi' has another name and is not "
                    "constant-like");
  expectConsistent();
}

TEST_F(TrackingListenerTest, DifferentOpNameAcceptedWithoutNameRequirement) {
  Operation *add = op("add");
  OpHandle handle = registry->getHandle(add);
  TrackingListenerConfig config;
  config.requireMatchingReplacementOpName = false;
  TrackingListener listener(config, registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.setInsertionPoint(add);
  auto mul =
      arith::MulIOp::create(rewriter, add->getLoc(), arg("f", 0), arg("f", 1));
  rewriter.replaceOp(add, mul);

  EXPECT_TRUE(handle.isLive());
  EXPECT_EQ(handle.get(), mul.getOperation());
  EXPECT_EQ(handle.getLastName(), "arith.muli");
  expectConsistent();
}

TEST_F(TrackingListenerTest, BlockArgumentReplacementErases) {
  Operation *add = op("add");
  OpHandle handle = registry->getHandle(add);
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.replaceOp(add, arg("f", 0));

  EXPECT_EQ(handle.getState(), HandleState::Erased);
  EXPECT_NE(lastReason(handle).find("no single defining op"), std::string::npos)
      << lastReason(handle);
  EXPECT_EQ(registry->getNumTrackedOps(), 0u);
  expectConsistent();
}

TEST_F(TrackingListenerTest, ValuesFromTwoOpsErase) {
  Operation *ext = op("ext");
  OpHandle handle = registry->getHandle(ext);
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.setInsertionPoint(ext);
  Operation *first = rewriter.clone(*ext);
  Operation *second = rewriter.clone(*ext);
  // One result from each clone: both have the right name, but no single op
  // replaces `ext`.
  SmallVector<Value> values = {first->getResult(0), second->getResult(1)};
  std::string reason;
  EXPECT_TRUE(failed(listener.findReplacementOp(ext, values, &reason)));
  rewriter.replaceOp(ext, values);

  EXPECT_EQ(handle.getState(), HandleState::Erased);
  EXPECT_NE(lastReason(handle).find("no single defining op"), std::string::npos)
      << lastReason(handle);
  EXPECT_FALSE(registry->isTracked(first));
  EXPECT_FALSE(registry->isTracked(second));
  expectConsistent();
}

TEST_F(TrackingListenerTest, ReplacementByNoValuesFails) {
  TrackingListener listener({}, registry.get());
  std::string reason;
  EXPECT_TRUE(failed(listener.findReplacementOp(op("add"), {}, &reason)));
  EXPECT_FALSE(reason.empty());
}

//===----------------------------------------------------------------------===//
// Erasure
//===----------------------------------------------------------------------===//

TEST_F(TrackingListenerTest, ErasingRegionOpErasesNestedHandlesPostOrder) {
  Operation *ifOp = op("if");
  Operation *inner = op("inner");
  Operation *inner2 = op("inner2");
  OpHandle ifHandle = registry->getHandle(ifOp);
  OpHandle innerHandle = registry->getHandle(inner);
  OpHandle inner2Handle = registry->getHandle(inner2);
  OpHandle outside = registry->getHandle(op("other"));

  // The observer runs under the registry lock: compare keys taken before.
  const void *ifKey = ifHandle.getKey();
  const void *innerKey = innerHandle.getKey();
  const void *inner2Key = inner2Handle.getKey();
  std::vector<std::string> order;
  registry->setEventObserver([&](const TrackingEvent &event) {
    if (event.kind != TrackingEvent::Kind::Erased)
      return;
    order.push_back(event.recordKey == ifKey       ? "if"
                    : event.recordKey == innerKey  ? "inner"
                    : event.recordKey == inner2Key ? "inner2"
                                                   : "?");
  });
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.eraseOp(ifOp);

  EXPECT_EQ(ifHandle.getState(), HandleState::Erased);
  EXPECT_EQ(innerHandle.getState(), HandleState::Erased);
  EXPECT_EQ(inner2Handle.getState(), HandleState::Erased);
  EXPECT_TRUE(outside.isLive());
  // Nested ops first (post-order; the block's ops in reverse), then the op.
  EXPECT_EQ(order, (std::vector<std::string>{"inner2", "inner", "if"}));
  EXPECT_EQ(registry->getNumTrackedOps(), 1u);
  expectConsistent();
}

TEST_F(TrackingListenerTest, ErasingFunctionErasesEverythingInside) {
  func::FuncOp g = func("g");
  OpHandle funcHandle = registry->getHandle(g);
  OpHandle add = registry->getHandle(op("g.add"));
  OpHandle mul = registry->getHandle(op("g.mul"));
  OpHandle other = registry->getHandle(op("other"));
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.eraseOp(g);

  EXPECT_EQ(funcHandle.getState(), HandleState::Erased);
  EXPECT_EQ(add.getState(), HandleState::Erased);
  EXPECT_EQ(mul.getState(), HandleState::Erased);
  EXPECT_TRUE(other.isLive());
  EXPECT_EQ(registry->getNumTrackedOps(), 1u);
  expectConsistent();
}

//===----------------------------------------------------------------------===//
// Moves
//===----------------------------------------------------------------------===//

TEST_F(TrackingListenerTest, MoveWithinFunctionKeepsHandle) {
  Operation *add = op("add");
  Operation *other = op("other");
  OpHandle handle = registry->getHandle(add);
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.moveOpBefore(add, add->getBlock()->getTerminator());
  rewriter.moveOpBefore(add, other);
  EXPECT_EQ(handle.get(), add);
  expectConsistent();
}

TEST_F(TrackingListenerTest, MoveAcrossFunctionsFollowsScope) {
  func::FuncOp f = func("f");
  func::FuncOp g = func("g");
  Operation *add = op("g.add");
  OpHandle handle = registry->getHandle(add);
  OpHandle stay = registry->getHandle(op("g.mul"));
  OpHandle inF = registry->getHandle(op("other"));
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  // Move `g.add` into @f (its operands become dangling, which the registry
  // does not care about).
  rewriter.moveOpBefore(add, f.getBody().front().getTerminator());
  EXPECT_EQ(handle.get(), add);
  expectConsistent();

  // The scope index followed: @f's handles now include the moved op, @g's
  // do not.
  EXPECT_EQ(invalidateNested(g), 1u);
  EXPECT_EQ(stay.getState(), HandleState::Invalidated);
  EXPECT_TRUE(handle.isLive());
  EXPECT_EQ(invalidateNested(f), 2u);
  EXPECT_EQ(handle.getState(), HandleState::Invalidated);
  EXPECT_EQ(inF.getState(), HandleState::Invalidated);
  // Move back so the module can be destroyed with consistent use-lists.
  rewriter.moveOpBefore(add, &g.getBody().front().front());
}

TEST_F(TrackingListenerTest, InlineBlockBeforeKeepsHandles) {
  auto ifOp = cast<scf::IfOp>(op("if"));
  OpHandle ifHandle = registry->getHandle(ifOp);
  OpHandle inner = registry->getHandle(op("inner"));
  OpHandle inner2 = registry->getHandle(op("inner2"));
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  Block *thenBlock = ifOp.thenBlock();
  rewriter.eraseOp(thenBlock->getTerminator());
  rewriter.inlineBlockBefore(thenBlock, ifOp);
  rewriter.eraseOp(ifOp);

  EXPECT_EQ(ifHandle.getState(), HandleState::Erased);
  EXPECT_TRUE(inner.isLive());
  EXPECT_TRUE(inner2.isLive());
  EXPECT_EQ(inner.get()->getParentOp(), func("f").getOperation());
  expectConsistent();
}

TEST_F(TrackingListenerTest, ScfIfInlinedByCanonicalizationKeepsHandles) {
  // A constant condition makes scf.if's canonicalization inline the region.
  OwningOpRef<ModuleOp> input = parseModule(context, R"mlir(
    func.func @h(%a: i32) -> i32 {
      %true = arith.constant true
      %r = scf.if %true -> i32 {
        %x = arith.muli %a, %a {tag = "then"} : i32
        scf.yield %x : i32
      } else {
        %y = arith.addi %a, %a {tag = "else"} : i32
        scf.yield %y : i32
      }
      return %r : i32
    }
  )mlir");
  ASSERT_TRUE(input);
  OpHandle thenOp = registry->getHandle(findTagged(*input, "then"));
  OpHandle elseOp = registry->getHandle(findTagged(*input, "else"));
  OpHandle ifOp = registry->getHandle(collectOps<scf::IfOp>(*input).front());

  RewritePatternSet patterns(&context);
  scf::IfOp::getCanonicalizationPatterns(patterns, &context);
  TrackingListener listener({}, registry.get());
  GreedyRewriteConfig config;
  config.setListener(&listener);
  ASSERT_TRUE(
      succeeded(applyPatternsGreedily(*input, std::move(patterns), config)));

  EXPECT_TRUE(collectOps<scf::IfOp>(*input).empty());
  EXPECT_TRUE(thenOp.isLive());
  EXPECT_EQ(thenOp.get()->getParentOp(),
            collectOps<func::FuncOp>(*input).front().getOperation());
  EXPECT_EQ(elseOp.getState(), HandleState::Erased);
  EXPECT_NE(ifOp.getState(), HandleState::Live);
  std::vector<std::string> problems = registry->verifyAgainst(*input);
  EXPECT_TRUE(problems.empty()) << joinProblems(problems);
}

TEST_F(TrackingListenerTest, InlineRegionBeforeFollowsScope) {
  func::FuncOp f = func("f");
  func::FuncOp g = func("g");
  OpHandle gAdd = registry->getHandle(op("g.add"));
  OpHandle gMul = registry->getHandle(op("g.mul"));
  OpHandle fOther = registry->getHandle(op("other"));
  OpHandle fInner = registry->getHandle(op("inner"));
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  // Move @g's body (a block) into @f's region, then @f's whole region into
  // @g: nested records must be re-indexed under the new function each time.
  rewriter.inlineRegionBefore(g.getBody(), f.getBody(), f.getBody().end());
  EXPECT_TRUE(g.getBody().empty());
  EXPECT_EQ(gAdd.get()->getParentOp(), f.getOperation());
  expectConsistent();

  rewriter.inlineRegionBefore(f.getBody(), g.getBody(), g.getBody().end());
  EXPECT_EQ(fInner.get()->getParentOfType<func::FuncOp>(), g);
  EXPECT_TRUE(gAdd.isLive());
  EXPECT_TRUE(gMul.isLive());
  EXPECT_TRUE(fOther.isLive());
  expectConsistent();

  // Everything is under @g now.
  EXPECT_EQ(invalidateNested(f), 0u);
  EXPECT_EQ(invalidateNested(g), 4u);
}

TEST_F(TrackingListenerTest, MovingFunctionIntoNestedModuleReparentsScope) {
  OwningOpRef<ModuleOp> input = parseModule(context, R"mlir(
    module {
      func.func @f(%a: i32) -> i32 {
        %x = arith.addi %a, %a {tag = "x"} : i32
        return %x : i32
      }
      module @inner {
        func.func private @decl()
      }
    }
  )mlir");
  ASSERT_TRUE(input);
  auto f = input->lookupSymbol<func::FuncOp>("f");
  auto inner = input->lookupSymbol<ModuleOp>("inner");
  OpHandle funcHandle = registry->getHandle(f);
  OpHandle x = registry->getHandle(findTagged(*input, "x"));
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.moveOpBefore(f, &inner.getBody()->front());
  EXPECT_TRUE(funcHandle.isLive());
  EXPECT_TRUE(x.isLive());
  std::vector<std::string> problems = registry->verifyAgainst(*input);
  EXPECT_TRUE(problems.empty()) << joinProblems(problems);

  // A non-precise pass on the nested module now reaches @f and its body.
  EXPECT_EQ(invalidateNested(inner), 2u);
  EXPECT_EQ(x.getState(), HandleState::Invalidated);
  EXPECT_EQ(funcHandle.getState(), HandleState::Invalidated);
}

//===----------------------------------------------------------------------===//
// Merging
//===----------------------------------------------------------------------===//

TEST_F(TrackingListenerTest, ReplacementOntoHandledOpMerges) {
  Operation *first = op("g.add");
  OpHandle firstHandle = registry->getHandle(first);
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.setInsertionPointAfter(first);
  Operation *second = rewriter.clone(*first);
  OpHandle secondHandle = registry->getHandle(second);
  ASSERT_NE(firstHandle, secondHandle);

  rewriter.replaceOp(first, second);
  EXPECT_EQ(firstHandle, secondHandle);
  EXPECT_EQ(firstHandle.hash(), secondHandle.hash());
  EXPECT_EQ(firstHandle.getKey(), secondHandle.getKey());
  EXPECT_EQ(firstHandle.get(), second);
  EXPECT_EQ(registry->lookupHandle(second), firstHandle);
  EXPECT_EQ(registry->getNumTrackedOps(), 1u);
  expectConsistent();

  // The merged op is replaced again: both follow.
  rewriter.setInsertionPointAfter(second);
  Operation *third = rewriter.clone(*second);
  rewriter.replaceOp(second, third);
  EXPECT_EQ(firstHandle.get(), third);
  EXPECT_EQ(secondHandle.get(), third);
  EXPECT_EQ(firstHandle, secondHandle);
  // The first handle's history shows the merge and what happened after it.
  std::vector<TrackingEvent> history = firstHandle.getHistory();
  ASSERT_EQ(history.size(), 2u);
  EXPECT_NE(history[0].reason.find("merged"), std::string::npos);
  EXPECT_EQ(history[1].kind, TrackingEvent::Kind::Replaced);
  expectConsistent();

  // Dropping the handle that was merged into keeps the entry alive.
  secondHandle = OpHandle();
  EXPECT_EQ(registry->getNumTrackedOps(), 1u);
  EXPECT_EQ(registry->lookupHandle(third), firstHandle);

  rewriter.eraseOp(third);
  EXPECT_EQ(firstHandle.getState(), HandleState::Erased);
  EXPECT_EQ(registry->getNumTrackedOps(), 0u);
  expectConsistent();
}

//===----------------------------------------------------------------------===//
// Chaining and the global listener
//===----------------------------------------------------------------------===//

TEST_F(TrackingListenerTest, ForwardsToNextListener) {
  RecordingListener recorder;
  TrackingListener listener({}, registry.get(), &recorder);
  IRRewriter rewriter(&context, &listener);
  Operation *add = op("add");
  OpHandle handle = registry->getHandle(add);
  rewriter.setInsertionPoint(add);
  Operation *clone = rewriter.clone(*add);
  EXPECT_EQ(recorder.inserted, 1);
  rewriter.replaceOp(add, clone);
  EXPECT_EQ(handle.get(), clone);
  ASSERT_EQ(recorder.replaced.size(), 1u);
  EXPECT_EQ(recorder.replaced.front(), add);
  ASSERT_EQ(recorder.erased.size(), 1u);
  EXPECT_EQ(recorder.erased.front(), add);

  // Untracked ops are forwarded too.
  Operation *dead = op("g.mul");
  rewriter.replaceOp(dead, arg("g", 0));
  EXPECT_EQ(recorder.replaced.size(), 2u);

  rewriter.inlineRegionBefore(func("g").getBody(), func("f").getBody(),
                              func("f").getBody().end());
  EXPECT_EQ(recorder.blocksInserted, 1);
}

TEST_F(TrackingListenerTest, GlobalListenerUsesContextRegistry) {
  Operation *add = op("add");
  OpHandle handle = registry->getHandle(add);
  IRRewriter rewriter(&context, getTrackingListener());
  rewriter.setInsertionPoint(add);
  Operation *clone = rewriter.clone(*add);
  rewriter.replaceOp(add, clone);
  EXPECT_EQ(handle.get(), clone);

  // Without a registry for the context, the global listener does nothing.
  MLIRContext other;
  loadTestDialects(other);
  OwningOpRef<ModuleOp> otherModule = parseModule(other, kInput);
  ASSERT_TRUE(otherModule);
  IRRewriter otherRewriter(&other, getTrackingListener());
  otherRewriter.eraseOp(findTagged(*otherModule, "inner2"));
  EXPECT_TRUE(handle.isLive());
}

TEST_F(TrackingListenerTest, PatternNameGoesIntoHistory) {
  OpHandle handle = registry->getHandle(op("g.add"));
  RewritePatternSet patterns(&context);
  patterns.add<SwapAddOperands>(&context);
  TrackingListener listener({}, registry.get());
  GreedyRewriteConfig config;
  config.setListener(&listener);
  config.enableFolding(false);
  {
    ScopedRewriteAttribution attribution("swap", func("g"));
    ASSERT_TRUE(succeeded(
        applyPatternsGreedily(func("g"), std::move(patterns), config)));
  }
  ASSERT_TRUE(handle.isLive());
  EXPECT_TRUE(handle.get()->hasAttr("swapped"));
  std::vector<TrackingEvent> history = handle.getHistory();
  ASSERT_EQ(history.size(), 1u);
  EXPECT_NE(history[0].pattern.find("SwapAddOperands"), std::string::npos)
      << history[0].pattern;
  EXPECT_EQ(history[0].pass, "swap");
  expectConsistent();
}

TEST_F(TrackingListenerTest, EachAttributionAndLabelGoesIntoItsEvents) {
  // The listener keeps the source of its events per thread and rebuilds it
  // in place when the pass, anchor, listener or labels change: each event
  // must name its own, never the previous one's.
  auto makeOp = [&](StringRef funcName) {
    func::FuncOp fn = func(funcName);
    OpBuilder builder(&context);
    builder.setInsertionPointToStart(&fn.getBody().front());
    return arith::AddIOp::create(builder, fn.getLoc(), arg(funcName, 0),
                                 arg(funcName, 0))
        .getOperation();
  };
  struct Expected {
    std::string pass, anchor, pattern;
  };
  auto expectEvent = [](const OpHandle &handle, TrackingEvent::Kind kind,
                        const Expected &expected) {
    std::vector<TrackingEvent> history = handle.getHistory();
    ASSERT_EQ(history.size(), 1u);
    EXPECT_EQ(history[0].kind, kind);
    EXPECT_EQ(history[0].pass, expected.pass);
    EXPECT_EQ(history[0].anchor, expected.anchor);
    EXPECT_EQ(history[0].pattern, expected.pattern);
  };
  auto erase = [&](TrackingListener &listener, Operation *victim) {
    OpHandle handle = registry->getHandle(victim);
    IRRewriter rewriter(&context, &listener);
    rewriter.eraseOp(victim);
    return handle;
  };
  auto replace = [&](TrackingListener &listener, Operation *victim) {
    OpHandle handle = registry->getHandle(victim);
    IRRewriter rewriter(&context, &listener);
    rewriter.setInsertionPoint(victim);
    Operation *clone = rewriter.clone(*victim);
    rewriter.replaceOp(victim, clone->getResults());
    EXPECT_EQ(handle.get(), clone);
    return handle;
  };
  const std::string dead = "dead code or region simplification";
  TrackingListener first({}, registry.get());
  {
    ScopedRewriteAttribution attribution("pass-a", func("f"));
    expectEvent(erase(first, makeOp("f")), TrackingEvent::Kind::Erased,
                {"pass-a", "func.func @f", dead});
    expectEvent(replace(first, makeOp("f")), TrackingEvent::Kind::Replaced,
                {"pass-a", "func.func @f", "folded"});
  }
  {
    ScopedRewriteAttribution attribution("pass-b", func("g"));
    expectEvent(erase(first, makeOp("g")), TrackingEvent::Kind::Erased,
                {"pass-b", "func.func @g", dead});
  }
  // Outside any pass: no pass or anchor.
  expectEvent(erase(first, makeOp("g")), TrackingEvent::Kind::Erased,
              {"", "", dead});
  first.setUnpatternedLabels("replaced here", "erased here");
  {
    ScopedRewriteAttribution attribution("pass-c", func("f"));
    expectEvent(erase(first, makeOp("f")), TrackingEvent::Kind::Erased,
                {"pass-c", "func.func @f", "erased here"});
    expectEvent(replace(first, makeOp("f")), TrackingEvent::Kind::Replaced,
                {"pass-c", "func.func @f", "replaced here"});
    // Another listener has the default labels.
    TrackingListener second({}, registry.get());
    expectEvent(erase(second, makeOp("f")), TrackingEvent::Kind::Erased,
                {"pass-c", "func.func @f", dead});
    expectEvent(replace(second, makeOp("f")), TrackingEvent::Kind::Replaced,
                {"pass-c", "func.func @f", "folded"});
  }
  expectConsistent();
}

TEST_F(TrackingListenerTest, ScopedAttributionOutlivesItsErasedAnchor) {
  // The rewrites under a ScopedRewriteAttribution may erase its anchor
  // before any tracked event: a later event still names the anchor as it
  // was, and reads nothing of the freed op (ASan build).
  OpBuilder builder(&context);
  builder.setInsertionPointToEnd(module->getBody());
  auto doomed = func::FuncOp::create(builder, module->getLoc(), "doomed",
                                     builder.getFunctionType({}, {}));
  doomed.addEntryBlock();
  OpBuilder bodyBuilder = OpBuilder::atBlockEnd(&doomed.getBody().front());
  func::ReturnOp::create(bodyBuilder, module->getLoc());
  ScopedRewriteAttribution attribution("by-hand", doomed);
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.eraseOp(doomed);
  builder.setInsertionPointToStart(&func("f").getBody().front());
  Operation *victim = arith::AddIOp::create(builder, func("f").getLoc(),
                                            arg("f", 0), arg("f", 0))
                          .getOperation();
  OpHandle handle = registry->getHandle(victim);
  rewriter.eraseOp(victim);
  std::vector<TrackingEvent> history = handle.getHistory();
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0].pass, "by-hand");
  EXPECT_EQ(history[0].anchor, "func.func @doomed");
  expectConsistent();
}

TEST_F(TrackingListenerTest, InstrumentationFramesEndByPassAndAnchor) {
  // The pass instrumentation pushes a frame per pass execution on the thread
  // that runs it and ends it by (pass, anchor): the frame ended is that
  // execution's even when it is not the innermost one.
  auto eraseAndReadSource = [&](StringRef funcName) {
    OpBuilder builder(&context);
    builder.setInsertionPointToStart(&func(funcName).getBody().front());
    Operation *victim =
        arith::AddIOp::create(builder, func(funcName).getLoc(),
                              arg(funcName, 0), arg(funcName, 0))
            .getOperation();
    OpHandle handle = registry->getHandle(victim);
    TrackingListener listener({}, registry.get());
    IRRewriter rewriter(&context, &listener);
    rewriter.eraseOp(victim);
    std::vector<TrackingEvent> history = handle.getHistory();
    EXPECT_EQ(history.size(), 1u);
    return history.empty() ? std::string("none")
                           : history[0].pass + " on " + history[0].anchor;
  };
  int outerKey = 0, innerKey = 0;
  tracking::detail::pushAttribution("outer", func("f"), &outerKey);
  EXPECT_EQ(eraseAndReadSource("f"), "outer on func.func @f");
  tracking::detail::pushAttribution("inner", func("g"), &innerKey);
  EXPECT_EQ(eraseAndReadSource("g"), "inner on func.func @g");
  // Not pushed: nothing ends.
  tracking::detail::popAttribution(&innerKey, func("f"));
  EXPECT_EQ(eraseAndReadSource("g"), "inner on func.func @g");
  // The outer frame ends under the inner one, which stays.
  tracking::detail::popAttribution(&outerKey, func("f"));
  EXPECT_EQ(eraseAndReadSource("f"), "inner on func.func @g");
  tracking::detail::popAttribution(&innerKey, func("g"));
  EXPECT_EQ(eraseAndReadSource("f"), " on ");
  expectConsistent();
}

TEST_F(TrackingListenerTest, WalkPatternDriverIsPreciseWithTheListener) {
  // walkAndApplyPatterns takes a listener too: with the tracking listener,
  // handles follow its rewrites (docs/precise-passes.md).
  struct RebuildMul : public OpRewritePattern<arith::MulIOp> {
    using OpRewritePattern::OpRewritePattern;
    LogicalResult matchAndRewrite(arith::MulIOp mul,
                                  PatternRewriter &rewriter) const override {
      if (mul->hasAttr("rebuilt"))
        return failure();
      auto rebuilt = arith::MulIOp::create(rewriter, mul.getLoc(), mul.getLhs(),
                                           mul.getRhs());
      rebuilt->setAttr("rebuilt", rewriter.getUnitAttr());
      rewriter.replaceOp(mul, rebuilt);
      return success();
    }
  };
  OpHandle mul = registry->getHandle(op("g.mul"));
  OpHandle add = registry->getHandle(op("g.add"));
  RewritePatternSet patterns(&context);
  patterns.add<RebuildMul>(&context);
  TrackingListener listener({}, registry.get());
  walkAndApplyPatterns(func("g"), std::move(patterns), &listener);
  ASSERT_TRUE(mul.isLive());
  EXPECT_TRUE(mul.get()->hasAttr("rebuilt"));
  EXPECT_EQ(mul.get()->getName().getStringRef(), "arith.muli");
  EXPECT_TRUE(add.isLive());
  expectConsistent();
}

} // namespace

//===----------------------------------------------------------------------===//
// Regressions (issue 7)
//===----------------------------------------------------------------------===//

/// remove() sends no notification and the insert that follows has no
/// previous position: the moved op's nested handles must still leave the
/// scope of the function they came from.
TEST_F(TrackingListenerTest, RemoveThenInsertReindexesNestedHandles) {
  Operation *ifOp = op("if");
  OpHandle ifHandle = registry->getHandle(ifOp);
  OpHandle inner = registry->getHandle(op("inner"));
  OpHandle inner2 = registry->getHandle(op("inner2"));
  OpHandle stay = registry->getHandle(op("add"));
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  ifOp->remove();
  rewriter.setInsertionPoint(func("g").getBody().front().getTerminator());
  rewriter.insert(ifOp);

  EXPECT_EQ(ifHandle.get(), ifOp);
  EXPECT_TRUE(inner.isLive());
  EXPECT_TRUE(inner2.isLive());
  expectConsistent();
  // Nothing of the moved op is left under @f; all of it is under @g.
  EXPECT_EQ(invalidateNested(func("f")), 1u);
  EXPECT_TRUE(inner.isLive());
  EXPECT_EQ(invalidateNested(func("g")), 3u);
  EXPECT_EQ(inner.getState(), HandleState::Invalidated);
  EXPECT_EQ(inner2.getState(), HandleState::Invalidated);
  EXPECT_EQ(stay.getState(), HandleState::Invalidated);
}

/// The same through a nested isolated op: its body stays indexed under it,
/// and it is reparented.
TEST_F(TrackingListenerTest, RemoveThenInsertReparentsNestedScopes) {
  OwningOpRef<ModuleOp> input = parseModule(context, R"mlir(
    module {
      module @a {
        func.func @f(%x: i32) -> i32 {
          %y = arith.addi %x, %x {tag = "y"} : i32
          return %y : i32
        }
      }
      module @b {
      }
    }
  )mlir");
  ASSERT_TRUE(input);
  auto a = input->lookupSymbol<ModuleOp>("a");
  auto b = input->lookupSymbol<ModuleOp>("b");
  auto f = a.lookupSymbol<func::FuncOp>("f");
  OpHandle y = registry->getHandle(findTagged(*input, "y"));
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  f->remove();
  rewriter.setInsertionPointToEnd(b.getBody());
  rewriter.insert(f);
  std::vector<std::string> problems = registry->verifyAgainst(*input);
  EXPECT_TRUE(problems.empty()) << joinProblems(problems);
  EXPECT_EQ(invalidateNested(a), 0u);
  EXPECT_TRUE(y.isLive());
  EXPECT_EQ(invalidateNested(b), 1u);
  EXPECT_EQ(y.getState(), HandleState::Invalidated);
}

/// A block unlinked from its region and inserted elsewhere without a
/// previous region: its tracked ops are re-indexed too.
TEST_F(TrackingListenerTest, DetachedBlockInsertedElsewhereIsReindexed) {
  Operation *ifOp = op("if");
  OpHandle inner = registry->getHandle(op("inner"));
  Block *thenBlock = &ifOp->getRegion(0).front();
  // Give @g a second region-holding op to receive the block.
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.setInsertionPoint(func("g").getBody().front().getTerminator());
  auto target =
      scf::ExecuteRegionOp::create(rewriter, ifOp->getLoc(), TypeRange());
  thenBlock->getParent()->getBlocks().remove(thenBlock);
  target.getRegion().push_back(thenBlock);
  listener.notifyBlockInserted(thenBlock, /*previous=*/nullptr, {});
  expectConsistent();
  EXPECT_EQ(invalidateNested(func("f")), 0u);
  EXPECT_TRUE(inner.isLive());
  EXPECT_EQ(invalidateNested(func("g")), 1u);
  // Give the block back (with a terminator again) for a clean teardown.
  target.getRegion().getBlocks().remove(thenBlock);
  ifOp->getRegion(0).push_back(thenBlock);
}

/// TrackingRewriter::replaceOp(op, newOp) names the replacement: the handle
/// follows it even when the ops have no results (no values to find it from).
TEST_F(TrackingListenerTest, ExplicitReplacementOfZeroResultOpFollows) {
  Operation *ifOp = op("if");
  OpHandle handle = registry->getHandle(ifOp);
  TrackingListener listener({}, registry.get());
  TrackingRewriter rewriter(&context, &listener);
  rewriter.setInsertionPoint(ifOp);
  Operation *clone = rewriter.clone(*ifOp);
  rewriter.replaceOp(ifOp, clone);

  EXPECT_TRUE(handle.isLive()) << handle.describe();
  EXPECT_EQ(handle.get(), clone);
  std::vector<TrackingEvent> history = handle.getHistory();
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history.front().kind, TrackingEvent::Kind::Replaced);
  expectConsistent();
}

/// Any rewriter's replaceAllOpUsesWith(op, newOp) is the op form too.
TEST_F(TrackingListenerTest, ReplaceAllOpUsesWithOpIsExplicit) {
  Operation *ifOp = op("if");
  OpHandle handle = registry->getHandle(ifOp);
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.setInsertionPoint(ifOp);
  Operation *clone = rewriter.clone(*ifOp);
  rewriter.replaceAllOpUsesWith(ifOp, clone);
  rewriter.eraseOp(ifOp);
  EXPECT_EQ(handle.get(), clone) << handle.describe();
  expectConsistent();
}

/// Upstream's replaceOp(op, newOp) reports values only: with no results
/// there is nothing to follow, and the handle says so.
TEST_F(TrackingListenerTest, UpstreamReplaceOpOfZeroResultOpErases) {
  Operation *ifOp = op("if");
  OpHandle handle = registry->getHandle(ifOp);
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.setInsertionPoint(ifOp);
  Operation *clone = rewriter.clone(*ifOp);
  rewriter.replaceOp(ifOp, clone);
  EXPECT_EQ(handle.getState(), HandleState::Erased);
  EXPECT_EQ(lastReason(handle), "replaced by no values");
  expectConsistent();
}

TEST_F(TrackingListenerTest, ExplicitReplacementByOpOfAnotherNameFollows) {
  Operation *add = op("add");
  OpHandle handle = registry->getHandle(add);
  TrackingListener listener({}, registry.get());
  TrackingRewriter rewriter(&context, &listener);
  rewriter.setInsertionPoint(add);
  auto mul =
      rewriter.replaceOpWithNewOp<arith::MulIOp>(add, arg("f", 0), arg("f", 1));
  EXPECT_EQ(handle.get(), mul.getOperation()) << handle.describe();
  EXPECT_EQ(handle.getLastName(), "arith.muli");
  EXPECT_EQ(registry->lookupHandle(mul), handle);
  expectConsistent();
}

/// A TrackingRewriter's own listener labels the changes it makes outside any
/// pattern with the rewriter, not with the greedy driver's "folded".
TEST_F(TrackingListenerTest, DefaultTrackingRewriterNamesItself) {
  Operation *add = op("add");
  OpHandle handle = registry->getHandle(add);
  TrackingRewriter rewriter(&context);
  rewriter.setInsertionPoint(add);
  rewriter.replaceOpWithNewOp<arith::MulIOp>(add, arg("f", 0), arg("f", 1));
  EXPECT_EQ(handle.getLastName(), "arith.muli") << handle.describe();
  EXPECT_EQ(handle.getHistory().back().pattern, "TrackingRewriter");
  rewriter.eraseOp(handle.get());
  EXPECT_EQ(handle.getState(), HandleState::Erased);
  EXPECT_EQ(handle.getHistory().back().pattern, "TrackingRewriter");
  expectConsistent();
}

/// An explicit replacement onto an op with a handle of its own merges them.
TEST_F(TrackingListenerTest, ExplicitReplacementOntoHandledOpMerges) {
  Operation *ifOp = op("if");
  OpHandle handle = registry->getHandle(ifOp);
  TrackingListener listener({}, registry.get());
  TrackingRewriter rewriter(&context, &listener);
  rewriter.setInsertionPoint(ifOp);
  Operation *clone = rewriter.clone(*ifOp);
  OpHandle cloneHandle = registry->getHandle(clone);
  rewriter.replaceOp(ifOp, clone);
  EXPECT_EQ(handle, cloneHandle);
  EXPECT_EQ(handle.get(), clone);
  expectConsistent();
}

namespace {
/// A pattern that never matches, only there to be named in histories.
struct NamedPattern : public RewritePattern {
  NamedPattern(MLIRContext *context, StringRef name)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {
    setDebugName(name);
  }
  LogicalResult matchAndRewrite(Operation *, PatternRewriter &) const override {
    return failure();
  }
};
} // namespace

/// A pattern may run a driver of its own: the innermost pattern is named,
/// and when it ends the outer one is again.
TEST_F(TrackingListenerTest, NestedPatternsAttributeTheInnermost) {
  NamedPattern outer(&context, "Outer"), nested(&context, "Nested");
  OpHandle inner = registry->getHandle(op("inner"));
  OpHandle inner2 = registry->getHandle(op("inner2"));
  OpHandle ifHandle = registry->getHandle(op("if"));
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  listener.notifyPatternBegin(outer, op("if"));
  listener.notifyPatternBegin(nested, op("inner2"));
  rewriter.eraseOp(op("inner2"));
  listener.notifyPatternEnd(nested, success());
  rewriter.eraseOp(op("inner"));
  listener.notifyPatternEnd(outer, success());
  rewriter.eraseOp(op("if"));

  EXPECT_EQ(inner2.getHistory().back().pattern, "pattern Nested");
  EXPECT_EQ(inner.getHistory().back().pattern, "pattern Outer");
  EXPECT_EQ(ifHandle.getHistory().back().pattern,
            "dead code or region simplification");
}

/// The same, for a listener that keeps its patterns (the hooks' fast path),
/// also when a pattern ends that is not the innermost one (a driver that
/// skipped an End) and when patterns nest deeper than the stack keeps.
TEST_F(TrackingListenerTest, KeptPatternsNestLikeThreadPatterns) {
  NamedPattern outer(&context, "Outer"), nested(&context, "Nested");
  OpHandle inner = registry->getHandle(op("inner"));
  OpHandle inner2 = registry->getHandle(op("inner2"));
  OpHandle add = registry->getHandle(op("add"));
  OpHandle mul = registry->getHandle(op("mul"));
  OpHandle ifHandle = registry->getHandle(op("if"));
  TrackingListener listener({}, registry.get());
  listener.keepPatternsInListener();
  IRRewriter rewriter(&context, &listener);
  listener.notifyPatternBegin(outer, op("if"));
  listener.notifyPatternBegin(nested, op("inner2"));
  rewriter.eraseOp(op("inner2"));
  listener.notifyPatternEnd(nested, success());
  rewriter.eraseOp(op("inner"));
  // `nested` begins again and its End never comes: the End of `outer` pops
  // both.
  listener.notifyPatternBegin(nested, op("if"));
  listener.notifyPatternEnd(outer, success());
  rewriter.eraseOp(op("if"));
  EXPECT_EQ(inner2.getHistory().back().pattern, "pattern Nested");
  EXPECT_EQ(inner.getHistory().back().pattern, "pattern Outer");
  EXPECT_EQ(ifHandle.getHistory().back().pattern,
            "dead code or region simplification");

  // Deeper than the stack: the patterns beyond it are counted, and the
  // kept ones come back as the others end.
  constexpr unsigned kDepth = tracking::detail::PatternStack::kMax + 3;
  listener.notifyPatternBegin(outer, op("mul"));
  for (unsigned i = 1; i < kDepth; ++i)
    listener.notifyPatternBegin(nested, op("mul"));
  for (unsigned i = 1; i < kDepth; ++i)
    listener.notifyPatternEnd(nested, failure());
  Operation *mulOp = op("mul");
  rewriter.replaceAllUsesWith(mulOp->getResult(0), arg("f", 0));
  rewriter.eraseOp(mulOp);
  listener.notifyPatternEnd(outer, success());
  rewriter.replaceAllUsesWith(op("add")->getResult(0), arg("f", 0));
  rewriter.eraseOp(op("add"));
  EXPECT_EQ(mul.getHistory().back().pattern, "pattern Outer");
  EXPECT_EQ(add.getHistory().back().pattern,
            "dead code or region simplification");
  expectConsistent();
}

/// A listener that keeps its patterns and forwards to another one sends it
/// the hooks around match attempts and the match failures; one that
/// forwards to no one swallows them.
TEST_F(TrackingListenerTest, KeptPatternsForwardHooksAndMatchFailures) {
  NamedPattern pattern(&context, "Forwarded");
  RecordingListener recorder;
  TrackingListener listener({}, registry.get(), &recorder);
  listener.keepPatternsInListener();
  OpHandle handle = registry->getHandle(op("inner2"));
  IRRewriter rewriter(&context, &listener);
  listener.notifyPatternBegin(pattern, op("inner2"));
  listener.notifyMatchFailure(op("inner2")->getLoc(), [](Diagnostic &) {});
  rewriter.eraseOp(op("inner2"));
  listener.notifyPatternEnd(pattern, success());
  EXPECT_EQ(recorder.patternsBegun, 1);
  EXPECT_EQ(recorder.patternsEnded, 1);
  EXPECT_EQ(recorder.matchFailures, 1);
  EXPECT_EQ(handle.getHistory().back().pattern, "pattern Forwarded");

  TrackingListener alone({}, registry.get());
  alone.keepPatternsInListener();
  bool described = false;
  alone.notifyMatchFailure(op("inner")->getLoc(),
                           [&](Diagnostic &) { described = true; });
  EXPECT_FALSE(described);
}

namespace {
/// Fails on every `arith.addi` after saying why (the greedy driver forwards
/// the reason to its listener), ahead of the patterns of lower benefit.
struct FailingFirst : public OpRewritePattern<arith::AddIOp> {
  FailingFirst(MLIRContext *context)
      : OpRewritePattern(context, /*benefit=*/2) {
    setDebugName("FailingFirst");
  }
  LogicalResult matchAndRewrite(arith::AddIOp add,
                                PatternRewriter &rewriter) const override {
    return rewriter.notifyMatchFailure(add, "never matches");
  }
};
} // namespace

/// A fold (x + 0), two additions for SwapAddOperands (after FailingFirst
/// fails on each), a dead op and an op no pattern touches.
constexpr llvm::StringLiteral kFolding = R"mlir(
  func.func @h(%a: i32, %b: i32) -> i32 {
    %c0 = arith.constant 0 : i32
    %0 = arith.muli %a, %b {tag = "h.mul"} : i32
    %1 = arith.addi %0, %c0 {tag = "h.fold"} : i32
    %2 = arith.addi %1, %b {tag = "h.swap"} : i32
    %3 = arith.addi %2, %a {tag = "h.swap2"} : i32
    %4 = arith.subi %3, %a {tag = "h.dead"} : i32
    return %3 : i32
  }
)mlir";

/// Through the greedy driver, with a listener that keeps its patterns (the
/// hooks' one-slot fast path) and with one that keeps them per thread: a
/// pattern that fails before another matches leaves no trace, a fold after
/// or between pattern applications is named as a fold, and the pattern set
/// gives the same IR with the listener and without.
TEST_F(TrackingListenerTest, GreedyDriverNamesTheMatchingPatternAndFolds) {
  RewritePatternSet set(&context);
  set.add<FailingFirst, SwapAddOperands>(&context);
  FrozenRewritePatternSet patterns(std::move(set));

  OwningOpRef<ModuleOp> untracked = parseModule(context, kFolding);
  ASSERT_TRUE(untracked);
  ASSERT_TRUE(succeeded(applyPatternsGreedily(*untracked, patterns)));

  for (bool keep : {true, false}) {
    SCOPED_TRACE(keep ? "kept patterns" : "thread patterns");
    OwningOpRef<ModuleOp> tracked = parseModule(context, kFolding);
    ASSERT_TRUE(tracked);
    OpHandle fold = registry->getHandle(findTagged(*tracked, "h.fold"));
    OpHandle swap = registry->getHandle(findTagged(*tracked, "h.swap"));
    OpHandle swap2 = registry->getHandle(findTagged(*tracked, "h.swap2"));
    OpHandle mul = registry->getHandle(findTagged(*tracked, "h.mul"));
    RecordingListener recorder;
    TrackingListener listener({}, registry.get(), keep ? nullptr : &recorder);
    if (keep)
      listener.keepPatternsInListener();
    GreedyRewriteConfig config;
    config.setListener(&listener);
    ASSERT_TRUE(succeeded(applyPatternsGreedily(*tracked, patterns, config)));

    // x + 0 folds to the muli: another name, so the handle ends, as a fold.
    EXPECT_EQ(fold.getState(), HandleState::Erased);
    ASSERT_FALSE(fold.getHistory().empty());
    EXPECT_EQ(fold.getHistory().back().pattern, "folded");
    for (OpHandle *handle : {&swap, &swap2}) {
      ASSERT_TRUE(handle->isLive()) << handle->describe();
      EXPECT_TRUE(handle->get()->hasAttr("swapped"));
      ASSERT_FALSE(handle->getHistory().empty());
      EXPECT_NE(handle->getHistory().back().pattern.find("SwapAddOperands"),
                std::string::npos)
          << handle->getHistory().back().pattern;
    }
    EXPECT_TRUE(mul.isLive());
    EXPECT_TRUE(mul.getHistory().empty());
    if (!keep) {
      // Every attempt was forwarded, the failures with their reasons.
      EXPECT_GT(recorder.patternsBegun, 0);
      EXPECT_EQ(recorder.patternsBegun, recorder.patternsEnded);
      EXPECT_GT(recorder.matchFailures, 0);
    }
    EXPECT_EQ(printOp(*tracked), printOp(*untracked));
    std::vector<std::string> problems = registry->verifyAgainst(*tracked);
    EXPECT_TRUE(problems.empty()) << joinProblems(problems);
  }
}

TEST_F(TrackingListenerTest, PassListenerDestroyedAfterItsRegistry) {
  // The listener queues the change of a tracked op in its thread's batch;
  // the registry goes first (applying it) and must leave the listener
  // nothing to apply to a freed registry when it is destroyed.
  OpHandle mul = registry->getHandle(op("g.mul"));
  std::optional<PassTrackingListener> listener(std::in_place, &context);
  {
    IRRewriter rewriter(&context, &*listener);
    Operation *mulOp = op("g.mul");
    rewriter.replaceOp(mulOp, mulOp->getOperand(1));
  }
  registry.reset();
  EXPECT_EQ(mul.getState(), HandleState::Erased);
  listener.reset();

  // The thread's batch is free again for the next registry's listener.
  registry = std::make_unique<HandleRegistry>(&context);
  OpHandle add = registry->getHandle(op("g.add"));
  {
    PassTrackingListener next(&context);
    IRRewriter rewriter(&context, &next);
    rewriter.eraseOp(op("g.add"));
  }
  EXPECT_EQ(add.getState(), HandleState::Erased);
  expectConsistent();
}

/// A pass's own listener (PassTrackingListener, what the tracked canonicalize
/// and cse attach) records what a listener that keeps its patterns records:
/// the same histories, event by event, through the greedy driver, with its
/// failure and modification hooks empty.
TEST_F(TrackingListenerTest, PassListenerRecordsWhatAKeepingListenerRecords) {
  RewritePatternSet set(&context);
  set.add<FailingFirst, SwapAddOperands>(&context);
  FrozenRewritePatternSet patterns(std::move(set));

  auto run = [&](bool passListener) {
    OwningOpRef<ModuleOp> tracked = parseModule(context, kFolding);
    EXPECT_TRUE(tracked);
    std::vector<OpHandle> handles;
    for (StringRef tag : {"h.mul", "h.fold", "h.swap", "h.swap2", "h.dead"})
      handles.push_back(registry->getHandle(findTagged(*tracked, tag)));
    std::optional<TrackingListener> keeping;
    std::optional<PassTrackingListener> pass;
    GreedyRewriteConfig config;
    if (passListener) {
      pass.emplace(&context);
      EXPECT_FALSE(pass->hasNextListener());
      config.setListener(&*pass);
    } else {
      keeping.emplace(TrackingListenerConfig(), registry.get());
      keeping->keepPatternsInListener();
      config.setListener(&*keeping);
    }
    EXPECT_TRUE(succeeded(applyPatternsGreedily(*tracked, patterns, config)));
    std::vector<std::string> problems = registry->verifyAgainst(*tracked);
    EXPECT_TRUE(problems.empty()) << joinProblems(problems);
    std::vector<std::string> histories;
    for (OpHandle &handle : handles) {
      std::string text = std::to_string(int(handle.getState()));
      for (const TrackingEvent &event : handle.getHistory())
        text += "|" + std::to_string(int(event.kind)) + "," + event.op + "," +
                event.replacement + "," + event.pass + "," + event.anchor +
                "," + event.pattern + "," + event.reason;
      histories.push_back(text);
    }
    return std::make_pair(printOp(*tracked), histories);
  };
  auto [keptText, keptHistories] = run(/*passListener=*/false);
  auto [passText, passHistories] = run(/*passListener=*/true);
  EXPECT_EQ(passText, keptText);
  EXPECT_EQ(passHistories, keptHistories);
  // The fold, the swaps and the dead op each left an event.
  for (size_t i = 1; i < passHistories.size(); ++i)
    EXPECT_NE(passHistories[i].find('|'), std::string::npos)
        << passHistories[i];
}

/// The pass listener reaches the block and value handles of its context,
/// made before it or while it lives (an event observer runs during the pass
/// and may make one): whether they exist is read at each notification, not
/// decided once when the listener is made.
TEST_F(TrackingListenerTest, PassListenerSeesTheUnitHandlesOfItsContext) {
  OpHandle held = registry->getHandle(op("mul"));
  PassTrackingListener listener(&context);
  EXPECT_TRUE(listener.ignoresChangesTo(op("g.mul")));
  EXPECT_FALSE(listener.ignoresChangesTo(op("mul")));
  EXPECT_FALSE(listener.ignoresChangesTo(func("f")));
  BlockValueRegistry units(&context);
  ValueHandle value = units.getValueHandle(op("g.mul")->getResult(0));
  EXPECT_FALSE(listener.ignoresChangesTo(op("g.mul")));
  EXPECT_FALSE(PassTrackingListener(&context).ignoresChangesTo(op("g.mul")));
  IRRewriter rewriter(&context, &listener);
  Operation *mul = op("g.mul");
  rewriter.replaceAllUsesWith(mul->getResult(0), op("g.add")->getResult(0));
  rewriter.eraseOp(mul);
  EXPECT_EQ(value.getState(), HandleState::Erased);
  EXPECT_TRUE(held.isLive());
  expectConsistent();
}

/// A listener of one registry keeps the registry's lock-free state, not its
/// filter: keys added after the listener was made (the first filter, then a
/// larger one as handles grow past it) are seen by its inlined test.
TEST_F(TrackingListenerTest, OneRegistryListenerSeesKeysAddedAfterIt) {
  constexpr unsigned kOps = 900;
  std::string text = "func.func @big(%a: i32) {\n";
  for (unsigned i = 0; i < kOps; ++i)
    text += "  %v" + std::to_string(i) + " = arith.addi %a, %a : i32\n";
  text += "  return\n}\n";
  OwningOpRef<ModuleOp> big = parseModule(context, text);
  ASSERT_TRUE(big);
  TrackingListener listener({}, registry.get());
  listener.keepPatternsInListener();
  IRRewriter rewriter(&context, &listener);
  std::vector<arith::AddIOp> adds = collectOps<arith::AddIOp>(*big);
  ASSERT_EQ(adds.size(), kOps);
  // Every third op held: 300 keys, more than the first filter (4096 bits,
  // 16 a key) is sized for.
  std::vector<OpHandle> held;
  for (unsigned i = 0; i < kOps; i += 3)
    held.push_back(registry->getHandle(adds[i]));
  for (unsigned i = kOps; i-- > 0;)
    rewriter.eraseOp(adds[i]);
  for (const OpHandle &handle : held) {
    EXPECT_EQ(handle.getState(), HandleState::Erased);
    ASSERT_FALSE(handle.getHistory().empty());
    EXPECT_EQ(handle.getHistory().back().pattern,
              "dead code or region simplification");
  }
  std::vector<std::string> problems = registry->verifyAgainst(*big);
  EXPECT_TRUE(problems.empty()) << joinProblems(problems);
}

/// `ignoresChangesTo` lets a rewriter (our cse's) skip the notifications of
/// an op: it may say so only when tracking would do nothing with them, never
/// for a tracked op, the scope of one, an op whose value has a handle, or
/// when a listener follows that would see them.
TEST_F(TrackingListenerTest, IgnoresChangesOnlyToWhatNoHandleNeeds) {
  OpHandle held = registry->getHandle(op("mul"));
  TrackingListener listener({}, registry.get());
  EXPECT_FALSE(listener.hasNextListener());
  EXPECT_FALSE(listener.ignoresChangesTo(op("mul")));
  // @f is the scope the held op is indexed under.
  EXPECT_FALSE(listener.ignoresChangesTo(func("f")));
  // Untracked and no scope. (A filter false positive would make this
  // false: a few keys in at least 2^20 bits.)
  EXPECT_TRUE(listener.ignoresChangesTo(op("add")));
  EXPECT_TRUE(listener.ignoresChangesTo(op("g.mul")));

  // A listener after it sees every notification.
  RecordingListener recording;
  TrackingListener forwarding({}, registry.get(), &recording);
  EXPECT_TRUE(forwarding.hasNextListener());
  EXPECT_FALSE(forwarding.ignoresChangesTo(op("add")));
  // A listener that finds its registry per op proves nothing lock-free.
  TrackingListener lookingUp;
  EXPECT_FALSE(lookingUp.ignoresChangesTo(op("add")));

  {
    // A value handle anywhere in the process: the erase of an op must
    // reach it.
    BlockValueRegistry units(&context);
    ValueHandle value = units.getValueHandle(op("add")->getResult(0));
    EXPECT_FALSE(listener.ignoresChangesTo(op("add")));
    EXPECT_FALSE(listener.ignoresChangesTo(op("g.mul")));
  }
  EXPECT_TRUE(listener.ignoresChangesTo(op("add")));
  EXPECT_FALSE(listener.ignoresChangesTo(op("mul")));
  EXPECT_TRUE(held.isLive());
}

/// The replace and erase entry points share one untracked-op test and hand
/// their arguments to the general path as words: a tracked op's handle must
/// still follow the op the values lead to, whatever the values' storage
/// (an array of values, an op's results, an op's operands), and a listener
/// after ours must receive the same values, op or erasure, and the
/// modifications.
TEST_F(TrackingListenerTest, ChangeNotificationsKeepTheirArguments) {
  struct ValueRecorder : public RewriterBase::Listener {
    void notifyOperationModified(Operation *op) override { ++modified; }
    void notifyOperationReplaced(Operation *op, ValueRange values) override {
      replaced.emplace_back(op, llvm::to_vector(values));
    }
    void notifyOperationReplaced(Operation *op, Operation *newOp) override {
      replacedByOp.emplace_back(op, newOp);
    }
    void notifyOperationErased(Operation *op) override { erased.push_back(op); }
    int modified = 0;
    std::vector<std::pair<Operation *, SmallVector<Value>>> replaced;
    std::vector<std::pair<Operation *, Operation *>> replacedByOp;
    std::vector<Operation *> erased;
  };
  // One module per run, alive until its handles are gone.
  OwningOpRef<ModuleOp> second = parseModule(context, kInput);
  ASSERT_TRUE(second);
  for (bool forward : {false, true}) {
    SCOPED_TRACE(forward ? "with a listener after ours" : "alone");
    ModuleOp ir = forward ? *second : *module;
    auto tagged = [&](StringRef tag) { return findTagged(ir, tag); };
    HandleRegistry &local = *registry;
    ValueRecorder recorder;
    TrackingListener listener({}, &local, forward ? &recorder : nullptr);

    // Operands (OpOperand storage): both of inner2's are inner's result.
    OpHandle add = local.getHandle(tagged("add"));
    ValueRange operands = tagged("inner2")->getOperands();
    listener.notifyOperationReplaced(tagged("add"), operands);
    EXPECT_EQ(add.get(), tagged("inner"));
    // Results (OpResult storage).
    OpHandle other = local.getHandle(tagged("other"));
    ValueRange results = tagged("g.add")->getResults();
    listener.notifyOperationReplaced(tagged("other"), results);
    EXPECT_EQ(other.get(), tagged("g.add"));
    // An array of values: a constant is accepted whatever its name.
    OpBuilder builder(tagged("mul"));
    auto constant = arith::ConstantIntOp::create(
        builder, tagged("mul")->getLoc(), builder.getI32Type(), 7);
    SmallVector<Value> array = {constant.getResult()};
    OpHandle mul = local.getHandle(tagged("mul"));
    listener.notifyOperationReplaced(tagged("mul"), ValueRange(array));
    EXPECT_EQ(mul.get(), constant.getOperation());
    // No values.
    OpHandle inner2 = local.getHandle(tagged("inner2"));
    listener.notifyOperationReplaced(tagged("inner2"), ValueRange());
    EXPECT_EQ(inner2.getState(), HandleState::Erased);
    EXPECT_EQ(lastReason(inner2), "replaced by no values");
    // The op form, of an op of another name.
    OpHandle ext = local.getHandle(tagged("ext"));
    listener.notifyOperationReplaced(tagged("ext"), tagged("g.mul"));
    EXPECT_EQ(ext.get(), tagged("g.mul"));
    // Erasure (of the op add's handle followed).
    listener.notifyOperationErased(tagged("inner"));
    EXPECT_EQ(add.getState(), HandleState::Erased);
    // An untracked op: nothing changes here.
    listener.notifyOperationReplaced(tagged("if"), results);
    listener.notifyOperationErased(tagged("if"));
    listener.notifyOperationModified(tagged("if"));
    EXPECT_EQ(local.getNumTrackedOps(), 3u);
    std::vector<std::string> problems = local.verifyAgainst(ir);
    EXPECT_TRUE(problems.empty()) << joinProblems(problems);

    if (!forward) {
      EXPECT_TRUE(recorder.replaced.empty());
      EXPECT_EQ(recorder.modified, 0);
      continue;
    }
    ASSERT_EQ(recorder.replaced.size(), 5u);
    EXPECT_EQ(recorder.replaced[0].first, tagged("add"));
    EXPECT_EQ(recorder.replaced[0].second, llvm::to_vector(operands));
    EXPECT_EQ(recorder.replaced[1].first, tagged("other"));
    EXPECT_EQ(recorder.replaced[1].second, llvm::to_vector(results));
    EXPECT_EQ(recorder.replaced[2].first, tagged("mul"));
    EXPECT_EQ(recorder.replaced[2].second, array);
    EXPECT_EQ(recorder.replaced[3].first, tagged("inner2"));
    EXPECT_TRUE(recorder.replaced[3].second.empty());
    EXPECT_EQ(recorder.replaced[4].first, tagged("if"));
    EXPECT_EQ(recorder.replaced[4].second, llvm::to_vector(results));
    ASSERT_EQ(recorder.replacedByOp.size(), 1u);
    EXPECT_EQ(recorder.replacedByOp[0],
              std::make_pair(tagged("ext"), tagged("g.mul")));
    EXPECT_EQ(recorder.erased,
              std::vector<Operation *>({tagged("inner"), tagged("if")}));
    EXPECT_EQ(recorder.modified, 1);
  }
}

/// A listener that keeps its patterns remembers per op name what the
/// replacement rules ask (constant-like, cast): replacements judged from
/// that memory, again and again, agree with the shared listener's.
TEST_F(TrackingListenerTest, KeptPatternsListenerJudgesReplacementsAlike) {
  for (bool keep : {false, true}) {
    SCOPED_TRACE(keep ? "kept patterns" : "thread patterns");
    OwningOpRef<ModuleOp> fresh = parseModule(context, kInput);
    ASSERT_TRUE(fresh);
    TrackingListener listener({}, registry.get());
    if (keep)
      listener.keepPatternsInListener();
    IRRewriter rewriter(&context, &listener);
    auto f = fresh->lookupSymbol<func::FuncOp>("f");
    Value i = f.getArgument(2), j = f.getArgument(3);
    for (StringRef tag : {"add", "inner", "other"}) {
      SCOPED_TRACE(tag.str());
      Operation *target = findTagged(*fresh, tag);
      OpHandle handle = registry->getHandle(target);
      rewriter.setInsertionPoint(target);
      Operation *innerAdd, *outerCast;
      // Through two casts (twice the same names: the second time from the
      // listener's memory).
      Value value = buildCastChain(rewriter, target->getLoc(), i, j, &innerAdd,
                                   &outerCast);
      rewriter.replaceOp(target, value);
      EXPECT_EQ(handle.get(), innerAdd);
      // A constant is accepted whatever its name.
      rewriter.setInsertionPoint(innerAdd);
      auto constant =
          arith::ConstantIndexOp::create(rewriter, innerAdd->getLoc(), 7);
      rewriter.replaceOp(innerAdd, constant);
      EXPECT_EQ(handle.get(), constant.getOperation());
      // Another name, neither constant nor cast: erased, with the reason.
      rewriter.setInsertionPoint(constant);
      auto xori = arith::XOrIOp::create(rewriter, constant.getLoc(), i, j);
      rewriter.replaceOp(constant, xori->getResults());
      EXPECT_EQ(handle.getState(), HandleState::Erased);
      EXPECT_NE(lastReason(handle).find("'arith.xori' has another name"),
                std::string::npos)
          << lastReason(handle);
    }
    std::vector<std::string> problems = registry->verifyAgainst(*fresh);
    EXPECT_TRUE(problems.empty()) << joinProblems(problems);
  }
}

/// A scope erased while records are still indexed under it (its nested ops'
/// erasures went unnotified): their handles end with the reason, and the
/// scope leaves the index. An op without regions erased the same way is no
/// scope and touches nothing else.
TEST_F(TrackingListenerTest, ErasingScopeWithUnnotifiedNestedOpsEndsThem) {
  OpHandle add = registry->getHandle(op("g.add"));
  OpHandle mul = registry->getHandle(op("g.mul"));
  OpHandle other = registry->getHandle(op("other"));
  RegistryNotifier notifier(*registry);
  // A leaf op of @f, unnotified for @f's sake: only its own handle ends.
  notifier.notifyOperationErased(op("inner2"), tracking::detail::EventSource(),
                                 "");
  EXPECT_TRUE(other.isLive());
  func::FuncOp g = func("g");
  notifier.notifyOperationErased(g, tracking::detail::EventSource(), "");
  g->erase();
  for (const OpHandle *handle : {&add, &mul}) {
    EXPECT_EQ(handle->getState(), HandleState::Erased);
    EXPECT_EQ(handle->get(), nullptr);
    EXPECT_EQ(lastReason(*handle), "an ancestor was erased");
  }
  EXPECT_TRUE(other.isLive());
  expectConsistent();
}

//===----------------------------------------------------------------------===//
// What the replacement rules ask of an op name, cached per listener
//===----------------------------------------------------------------------===//

constexpr llvm::StringLiteral kKindsInput = R"mlir(
func.func @k(%a: i32, %i: index) -> i64 {
  %c = arith.constant {tag = "constant"} 1 : i32
  %s = arith.addi %a, %c {tag = "add"} : i32
  %x = arith.index_cast %i {tag = "cast"} : index to i64
  return %x : i64
}
)mlir";

/// Names are kept per context: an op of another context makes the cache
/// forget the first context's names; `clear` forgets everything.
TEST(OpKindCacheTest, ForgetsTheNamesOfAnotherContext) {
  MLIRContext first, second;
  loadTestDialects(first);
  loadTestDialects(second);
  OwningOpRef<ModuleOp> a = parseModule(first, kKindsInput);
  OwningOpRef<ModuleOp> b = parseModule(second, kKindsInput);
  ASSERT_TRUE(a && b);
  using Kind = tracking::detail::OpKindCache::Kind;
  tracking::detail::OpKindCache cache;
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.getContext(), nullptr);
  uint8_t constant = cache.getKind(findTagged(*a, "constant"));
  EXPECT_EQ(constant, Kind::Known | Kind::ConstantLike);
  EXPECT_EQ(cache.getKind(findTagged(*a, "add")), Kind::Known);
  EXPECT_EQ(cache.getKind(findTagged(*a, "cast")), Kind::Known | Kind::Cast);
  EXPECT_EQ(cache.getContext(), &first);
  unsigned firstNames = cache.size();
  // Three names in 16 slots: at least two distinct slots hold them.
  EXPECT_GE(firstNames, 2u);
  // Asked again, the kinds come from the cache and are the same.
  EXPECT_EQ(cache.getKind(findTagged(*a, "constant")), constant);
  EXPECT_EQ(cache.size(), firstNames);

  EXPECT_EQ(cache.getKind(findTagged(*b, "add")), Kind::Known);
  EXPECT_EQ(cache.getContext(), &second);
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.getKind(findTagged(*b, "constant")),
            Kind::Known | Kind::ConstantLike);
  cache.clear();
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.getContext(), nullptr);
  // Without a cache, the same answers.
  EXPECT_EQ(tracking::detail::OpKindCache::computeKind(findTagged(*b, "cast")),
            Kind::Known | Kind::Cast);
}

/// A kept-patterns listener used with one context after another, each made
/// in the same place and loading its dialects in another order: every
/// context's replacements are judged by that context's op names. (Whether a
/// context's names take the places of the previous one's is up to the
/// allocator: ForgetsTheNamesOfAnotherContext is the deterministic check.)
TEST(OpKindCacheTest, KeptPatternsListenerJudgesEachContextsNames) {
  TrackingListener listener;
  listener.keepPatternsInListener();
  for (int round = 0; round < 6; ++round) {
    SCOPED_TRACE(round);
    MLIRContext context;
    // The op names are made in another order each round.
    if (round % 2) {
      context.loadDialect<arith::ArithDialect>();
      loadTestDialects(context);
    } else {
      loadTestDialects(context);
    }
    HandleRegistry registry(&context);
    OwningOpRef<ModuleOp> module = parseModule(context, kKindsInput);
    ASSERT_TRUE(module);
    IRRewriter rewriter(&context, &listener);
    Operation *add = findTagged(*module, "add");
    Operation *cast = findTagged(*module, "cast");
    OpHandle addHandle = registry.getHandle(add);
    OpHandle castHandle = registry.getHandle(cast);
    // An addi replacing the cast (another name, not a constant, not a
    // cast): the cast's handle ends.
    rewriter.setInsertionPoint(cast);
    auto again = arith::IndexCastOp::create(
        rewriter, cast->getLoc(), rewriter.getI64Type(), cast->getOperand(0));
    auto sum = arith::AddIOp::create(rewriter, cast->getLoc(), again, again);
    rewriter.replaceOp(cast, sum->getResults());
    EXPECT_EQ(castHandle.getState(), HandleState::Erased);
    // A constant replacing the addi is accepted, whatever its name.
    rewriter.setInsertionPoint(add);
    auto constant = arith::ConstantIntOp::create(rewriter, add->getLoc(),
                                                 rewriter.getI32Type(), 3);
    rewriter.replaceOp(add, constant->getResults());
    EXPECT_EQ(addHandle.get(), constant.getOperation());
    std::vector<std::string> problems = registry.verifyAgainst(*module);
    EXPECT_TRUE(problems.empty()) << joinProblems(problems);
  }
}
