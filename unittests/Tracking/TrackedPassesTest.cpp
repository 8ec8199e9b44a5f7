//===- TrackedPassesTest.cpp - Tests for the precise canonicalize/cse -----===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "TestUtils.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Tracking/HandleRegistry.h"
#include "mlir/Tracking/PassTracking.h"
#include "mlir/Tracking/Passes.h"
#include "mlir/Transforms/Passes.h"

#include <functional>
#include <memory>

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::test;

namespace {

/// Inputs exercising folding, constant deduplication, dead code, region
/// simplification, control flow and CSE across regions.
const char *const kInputs[] = {
    R"mlir(
func.func @fold(%a: i32, %b: i32) -> (i32, i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %s = arith.addi %c1, %c2 : i32
  %x = arith.addi %a, %c0 : i32
  %m = arith.muli %a, %b : i32
  %m2 = arith.muli %a, %b : i32
  %dead = arith.subi %a, %b : i32
  %r = arith.addi %m, %m2 : i32
  %t = arith.addi %r, %s : i32
  return %x, %t, %m2 : i32, i32, i32
}
)mlir",
    R"mlir(
func.func @regions(%a: i32, %c: i1, %n: index) -> i32 {
  %true = arith.constant true
  %r = scf.if %true -> i32 {
    %x = arith.muli %a, %a : i32
    scf.yield %x : i32
  } else {
    scf.yield %a : i32
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %l = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %r) -> i32 {
    %y = arith.addi %acc, %a : i32
    %y2 = arith.addi %acc, %a : i32
    %z = arith.muli %y, %y2 : i32
    scf.yield %z : i32
  }
  %e = scf.for %i = %c0 to %c0 step %c1 iter_args(%acc = %l) -> i32 {
    %w = arith.addi %acc, %acc : i32
    scf.yield %w : i32
  }
  %q = scf.if %c -> i32 {
    %p = arith.muli %a, %a : i32
    scf.yield %p : i32
  } else {
    scf.yield %e : i32
  }
  return %q : i32
}
)mlir",
    R"mlir(
memref.global "private" @g : memref<4xi32>
func.func @cfg(%a: i32, %b: i32) -> i32 {
  %true = arith.constant true
  cf.cond_br %true, ^bb1(%a : i32), ^bb2(%b : i32)
^bb1(%x: i32):
  %0 = arith.addi %x, %b : i32
  cf.br ^bb3(%0 : i32)
^bb2(%y: i32):
  %1 = arith.addi %y, %a : i32
  cf.br ^bb3(%1 : i32)
^bb3(%z: i32):
  %m = memref.get_global @g : memref<4xi32>
  %c0 = arith.constant 0 : index
  %v = memref.load %m[%c0] : memref<4xi32>
  %v2 = memref.load %m[%c0] : memref<4xi32>
  %s = arith.addi %v, %v2 : i32
  %r = arith.addi %z, %s : i32
  return %r : i32
}
func.func private @unused(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  %1 = arith.addi %a, %a : i32
  %2 = arith.subi %0, %1 : i32
  return %2 : i32
}
)mlir",
};

using PassFactory = std::function<std::unique_ptr<Pass>()>;

/// Runs `passes` (each nested on func.func when `nested`) on a fresh parse
/// of `source` and returns the printed result. With `track`, every op has a
/// handle and the pass manager is instrumented while the passes run.
std::string runAndPrint(MLIRContext &context, StringRef source,
                        ArrayRef<PassFactory> passes, bool nested, bool track,
                        HandleRegistry *registry) {
  OwningOpRef<ModuleOp> module = parseModule(context, source);
  if (!module)
    return "<parse error>";
  std::vector<OpHandle> handles;
  PassManager pm(&context);
  if (track) {
    module->walk(
        [&](Operation *op) { handles.push_back(registry->getHandle(op)); });
    enableTracking(pm, *registry);
  }
  OpPassManager &target = nested ? pm.nest<func::FuncOp>() : pm;
  for (const PassFactory &factory : passes)
    target.addPass(factory());
  if (failed(pm.run(*module)))
    return "<pass failure>";
  if (track) {
    std::vector<std::string> problems = registry->verifyAgainst(*module);
    EXPECT_TRUE(problems.empty()) << joinProblems(problems);
    for (const OpHandle &handle : handles)
      EXPECT_NE(handle.getState(), HandleState::Invalidated)
          << handle.describe();
  }
  return printOp(*module);
}

class TrackedPassesTest : public ::testing::Test {
protected:
  void SetUp() override {
    loadTestDialects(context);
    registry = std::make_unique<HandleRegistry>(&context);
  }
  void TearDown() override { registry.reset(); }

  void expectSameAsUpstream(ArrayRef<PassFactory> tracked,
                            ArrayRef<PassFactory> upstream) {
    for (bool nested : {false, true}) {
      for (const char *input : kInputs) {
        std::string expected = runAndPrint(context, input, upstream, nested,
                                           /*track=*/false, nullptr);
        std::string actual = runAndPrint(context, input, tracked, nested,
                                         /*track=*/true, registry.get());
        EXPECT_EQ(actual, expected) << "input:\n" << input;
        // The passes must have done something for the comparison to mean
        // anything.
        OwningOpRef<ModuleOp> original = parseModule(context, input);
        EXPECT_NE(printOp(*original), expected);
      }
    }
  }

  MLIRContext context;
  std::unique_ptr<HandleRegistry> registry;
};

TEST_F(TrackedPassesTest, CanonicalizeMatchesUpstream) {
  expectSameAsUpstream({createTrackedCanonicalizerPass},
                       {[] { return createCanonicalizerPass(); }});
}

TEST_F(TrackedPassesTest, CSEMatchesUpstream) {
  expectSameAsUpstream({createTrackedCSEPass}, {createCSEPass});
}

TEST_F(TrackedPassesTest, PipelineMatchesUpstream) {
  expectSameAsUpstream({createTrackedCanonicalizerPass, createTrackedCSEPass,
                        createTrackedCanonicalizerPass},
                       {[] { return createCanonicalizerPass(); }, createCSEPass,
                        [] { return createCanonicalizerPass(); }});
}

TEST_F(TrackedPassesTest, PassNamesAreUpstreams) {
  std::unique_ptr<Pass> canonicalize = createTrackedCanonicalizerPass();
  std::unique_ptr<Pass> cse = createTrackedCSEPass();
  EXPECT_EQ(canonicalize->getArgument(), "canonicalize");
  EXPECT_EQ(cse->getArgument(), "cse");
  EXPECT_EQ(canonicalize->getTypeID(), createCanonicalizerPass()->getTypeID());
  EXPECT_EQ(cse->getTypeID(), createCSEPass()->getTypeID());
}

TEST_F(TrackedPassesTest, CanonicalizeFoldFollowedToConstant) {
  OwningOpRef<ModuleOp> module = parseModule(context, R"mlir(
    func.func @f(%a: i32) -> (i32, i32) {
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %s = arith.addi %c1, %c2 {tag = "sum"} : i32
      %t = arith.muli %s, %a {tag = "use"} : i32
      return %s, %t : i32, i32
    }
  )mlir");
  ASSERT_TRUE(module);
  OpHandle sum = registry->getHandle(findTagged(*module, "sum"));
  OpHandle use = registry->getHandle(findTagged(*module, "use"));
  OpHandle c1 =
      registry->getHandle(collectOps<arith::ConstantOp>(*module).front());
  PassManager pm(&context);
  enableTracking(pm, *registry);
  pm.nest<func::FuncOp>().addPass(createTrackedCanonicalizerPass());
  ASSERT_TRUE(succeeded(pm.run(*module)));

  ASSERT_TRUE(sum.isLive()) << sum.describe();
  auto constant = dyn_cast<arith::ConstantOp>(sum.get());
  ASSERT_TRUE(constant) << sum.describe();
  EXPECT_EQ(cast<IntegerAttr>(constant.getValue()).getInt(), 3);
  EXPECT_EQ(sum.getLastName(), "arith.constant");
  // The returned value is defined by the op the handle refers to.
  auto ret = collectOps<func::ReturnOp>(*module).front();
  EXPECT_EQ(ret.getOperand(0).getDefiningOp(), sum.get());
  std::vector<TrackingEvent> history = sum.getHistory();
  ASSERT_FALSE(history.empty());
  EXPECT_EQ(history.front().kind, TrackingEvent::Kind::Replaced);
  EXPECT_EQ(history.front().pass, "canonicalize");
  // The muli is untouched except for its operand.
  EXPECT_TRUE(use.isLive());
  EXPECT_EQ(use.get(), findTagged(*module, "use"));
  // The constant 1 became dead and was removed.
  EXPECT_EQ(c1.getState(), HandleState::Erased);
  std::vector<std::string> problems = registry->verifyAgainst(*module);
  EXPECT_TRUE(problems.empty()) << joinProblems(problems);
}

TEST_F(TrackedPassesTest, CSEDuplicateEqualsKeptOp) {
  OwningOpRef<ModuleOp> module = parseModule(context, R"mlir(
    func.func @f(%a: i32, %b: i32) -> i32 {
      %0 = arith.muli %a, %b : i32
      %1 = arith.muli %a, %b : i32
      %2 = arith.muli %a, %b : i32
      %dead = arith.subi %a, %b : i32
      %s = arith.addi %0, %1 : i32
      %t = arith.addi %s, %2 : i32
      return %t : i32
    }
  )mlir");
  ASSERT_TRUE(module);
  std::vector<arith::MulIOp> muls = collectOps<arith::MulIOp>(*module);
  ASSERT_EQ(muls.size(), 3u);
  OpHandle kept = registry->getHandle(muls[0]);
  OpHandle dup1 = registry->getHandle(muls[1]);
  OpHandle dup2 = registry->getHandle(muls[2]);
  OpHandle dead =
      registry->getHandle(collectOps<arith::SubIOp>(*module).front());
  ASSERT_NE(kept, dup1);

  PassManager pm(&context);
  enableTracking(pm, *registry);
  pm.nest<func::FuncOp>().addPass(createTrackedCSEPass());
  ASSERT_TRUE(succeeded(pm.run(*module)));

  muls = collectOps<arith::MulIOp>(*module);
  ASSERT_EQ(muls.size(), 1u);
  EXPECT_EQ(kept.get(), muls[0].getOperation());
  EXPECT_EQ(dup1.get(), muls[0].getOperation());
  EXPECT_EQ(dup2.get(), muls[0].getOperation());
  EXPECT_EQ(dup1, kept);
  EXPECT_EQ(dup2, kept);
  EXPECT_EQ(dup1.hash(), kept.hash());
  EXPECT_TRUE(kept.getHistory().empty());
  std::vector<TrackingEvent> history = dup1.getHistory();
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0].pass, "cse");
  EXPECT_EQ(history[0].pattern, "duplicate removed by cse");

  EXPECT_EQ(dead.getState(), HandleState::Erased);
  EXPECT_EQ(dead.getHistory().back().pattern, "dead code removed by cse");
  EXPECT_EQ(registry->getNumTrackedOps(), 1u);
  std::vector<std::string> problems = registry->verifyAgainst(*module);
  EXPECT_TRUE(problems.empty()) << joinProblems(problems);
}

} // namespace
