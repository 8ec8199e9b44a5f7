//===- BlockValueRegistryTest.cpp - Tests for block and value handles -----===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "TestUtils.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Tracking/BlockValueRegistry.h"
#include "mlir/Tracking/HandleRegistry.h"
#include "mlir/Tracking/PassTracking.h"
#include "mlir/Tracking/TrackingListener.h"

#include <cstring>
#include <memory>

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::test;

namespace {

/// Erases every block but the entry of each function, without telling
/// anyone (a pass that is not precise).
struct DropBlocksPass
    : public PassWrapper<DropBlocksPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DropBlocksPass)
  StringRef getArgument() const final { return "test-drop-blocks"; }
  StringRef getDescription() const final { return "Untracked block erasure"; }
  void runOnOperation() override {
    Region &body = getOperation().getBody();
    while (body.getBlocks().size() > 1) {
      Block &last = body.back();
      last.dropAllDefinedValueUses();
      last.dropAllUses();
      last.erase();
    }
  }
};

class BlockValueRegistryTest : public ::testing::Test {
protected:
  void SetUp() override {
    loadTestDialects(context);
    registry = std::make_unique<HandleRegistry>(&context);
    units = std::make_unique<BlockValueRegistry>(&context);
  }
  void TearDown() override {
    module = nullptr;
    units.reset();
    registry.reset();
  }

  MLIRContext context;
  std::unique_ptr<HandleRegistry> registry;
  std::unique_ptr<BlockValueRegistry> units;
  OwningOpRef<ModuleOp> module;
};

TEST_F(BlockValueRegistryTest, HandleOfSameValueIsShared) {
  module = parseModule(context, R"mlir(
    func.func @f(%a: i32) -> i32 {
      %0 = arith.addi %a, %a {tag = "add"} : i32
      return %0 : i32
    })mlir");
  Operation *add = findTagged(*module, "add");
  ValueHandle first = units->getValueHandle(add->getResult(0));
  ValueHandle second = units->getValueHandle(add->getResult(0));
  EXPECT_EQ(first.getIdentityKey(), second.getIdentityKey());
  EXPECT_EQ(first.get(), add->getResult(0));
  ValueHandle argument = units->getValueHandle(add->getOperand(0));
  EXPECT_NE(argument.getIdentityKey(), first.getIdentityKey());
  EXPECT_TRUE(isa<BlockArgument>(argument.get()));
  EXPECT_EQ(units->getNumTracked(), 2u);
  first = ValueHandle();
  second = ValueHandle();
  // The record leaves the registry with its last handle.
  EXPECT_EQ(units->getNumTracked(), 1u);
}

TEST_F(BlockValueRegistryTest, ResultFollowsItsValueNotItsPosition) {
  // scf.if rebuilt without its unused result 0 (as canonicalize does): the
  // handle of old result 1 follows to new result 0; old result 0 is erased.
  module = parseModule(context, R"mlir(
    func.func private @get() -> i32
    func.func @f(%c: i1) -> i32 {
      %0:2 = scf.if %c -> (i32, i32) {
        %x = func.call @get() : () -> i32
        %y = func.call @get() : () -> i32
        scf.yield %x, %y : i32, i32
      } else {
        %x = func.call @get() : () -> i32
        %y = func.call @get() : () -> i32
        scf.yield %x, %y : i32, i32
      }
      return %0#1 : i32
    })mlir");
  scf::IfOp ifOp = collectOps<scf::IfOp>(*module).front();
  ValueHandle unused = units->getValueHandle(ifOp.getResult(0));
  ValueHandle used = units->getValueHandle(ifOp.getResult(1));
  BlockHandle thenBlock = units->getBlockHandle(ifOp.thenBlock());

  TrackingListener listener(TrackingListenerConfig(), registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.setInsertionPoint(ifOp);
  auto newIf = scf::IfOp::create(rewriter, ifOp.getLoc(),
                                 TypeRange{rewriter.getI32Type()},
                                 ifOp.getCondition(), /*withElse=*/false);
  newIf.getThenRegion().getBlocks().clear();
  rewriter.inlineRegionBefore(ifOp.getThenRegion(), newIf.getThenRegion(),
                              newIf.getThenRegion().end());
  rewriter.inlineRegionBefore(ifOp.getElseRegion(), newIf.getElseRegion(),
                              newIf.getElseRegion().end());
  for (Region *region : {&newIf.getThenRegion(), &newIf.getElseRegion()}) {
    auto yield = cast<scf::YieldOp>(region->front().getTerminator());
    rewriter.modifyOpInPlace(yield, [&] { yield->eraseOperand(0); });
  }
  rewriter.replaceOp(ifOp, {Value(), newIf.getResult(0)});

  EXPECT_EQ(used.get(), newIf.getResult(0));
  EXPECT_FALSE(unused.get());
  EXPECT_EQ(unused.getState(), HandleState::Erased);
  EXPECT_NE(unused.describe().find("replaced by no value"), std::string::npos)
      << unused.describe();
  // The block moved into the new op: same block, still live.
  EXPECT_EQ(thenBlock.get(), newIf.thenBlock());
  // The followed handle is now the canonical handle of its new value.
  EXPECT_EQ(units->getValueHandle(newIf.getResult(0)).getIdentityKey(),
            used.getIdentityKey());
}

TEST_F(BlockValueRegistryTest, ResultFollowsFoldToBlockArgument) {
  module = parseModule(context, R"mlir(
    func.func @f(%x: i32) -> i32 {
      %c0 = arith.constant 0 : i32
      %0 = arith.addi %x, %c0 {tag = "add"} : i32
      return %0 : i32
    })mlir");
  Operation *add = findTagged(*module, "add");
  Value x = add->getOperand(0);
  ValueHandle argument = units->getValueHandle(x);
  ValueHandle sum = units->getValueHandle(add->getResult(0));
  OpHandle addHandle = registry->getHandle(add);
  TrackingListener listener(TrackingListenerConfig(), registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.replaceOp(add, x);
  // The op handle is erased (no replacement op), the value handle follows.
  EXPECT_EQ(addHandle.getState(), HandleState::Erased);
  EXPECT_EQ(sum.get(), x);
  EXPECT_NE(sum.getIdentityKey(), argument.getIdentityKey());
  // The argument's own handle stays canonical.
  EXPECT_EQ(units->getValueHandle(x).getIdentityKey(),
            argument.getIdentityKey());
}

TEST_F(BlockValueRegistryTest, ErasedBlockIsNeverAliasedByANewOne) {
  module = parseModule(context, R"mlir(
    func.func @f() {
      return
    ^dead(%v: i32):
      return
    })mlir");
  auto func = collectOps<func::FuncOp>(*module).front();
  Block *dead = &func.getBody().back();
  BlockHandle handle = units->getBlockHandle(dead);
  ValueHandle argument = units->getValueHandle(dead->getArgument(0));
  TrackingListener listener(TrackingListenerConfig(), registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.eraseBlock(dead);
  EXPECT_EQ(handle.getState(), HandleState::Erased);
  EXPECT_EQ(argument.getState(), HandleState::Erased);
  EXPECT_EQ(units->getNumTracked(), 0u);

  // Blocks allocated now (likely at the freed address) get fresh handles.
  for (int i = 0; i < 4; ++i) {
    Block *fresh = new Block();
    fresh->addArgument(rewriter.getI32Type(), func.getLoc());
    func.getBody().push_back(fresh);
    BlockHandle freshHandle = units->getBlockHandle(fresh);
    EXPECT_NE(freshHandle.getIdentityKey(), handle.getIdentityKey());
    EXPECT_TRUE(freshHandle.isLive());
    EXPECT_FALSE(handle.get());
    EXPECT_NE(units->getValueHandle(fresh->getArgument(0)).getIdentityKey(),
              argument.getIdentityKey());
  }
}

TEST_F(BlockValueRegistryTest, ErasingAnOpEndsEverythingNestedInIt) {
  module = parseModule(context, R"mlir(
    func.func @f(%a: i32) -> i32 {
      %r = scf.execute_region -> i32 {
        %x = arith.addi %a, %a {tag = "inner"} : i32
        cf.br ^next(%x : i32)
      ^next(%y: i32):
        scf.yield %y : i32
      }
      return %a : i32
    })mlir");
  auto region = collectOps<scf::ExecuteRegionOp>(*module).front();
  Operation *inner = findTagged(*module, "inner");
  Block *next = &region.getRegion().back();
  ValueHandle result = units->getValueHandle(region->getResult(0));
  ValueHandle innerValue = units->getValueHandle(inner->getResult(0));
  ValueHandle argument = units->getValueHandle(next->getArgument(0));
  BlockHandle block = units->getBlockHandle(next);
  // Not nested in the erased op: stays live.
  auto func = collectOps<func::FuncOp>(*module).front();
  ValueHandle outside = units->getValueHandle(func.getArgument(0));
  TrackingListener listener(TrackingListenerConfig(), registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.eraseOp(region);
  for (HandleState state : {result.getState(), innerValue.getState(),
                            argument.getState(), block.getState()})
    EXPECT_EQ(state, HandleState::Erased);
  EXPECT_EQ(outside.get(), func.getArgument(0));
  EXPECT_EQ(units->getNumTracked(), 1u);
}

TEST_F(BlockValueRegistryTest, EraseNestedEndsHandlesOfDestroyedIR) {
  module = parseModule(context, R"mlir(
    func.func @f(%a: i32) -> i32 {
      return %a : i32
    })mlir");
  auto func = collectOps<func::FuncOp>(*module).front();
  ValueHandle argument = units->getValueHandle(func.getArgument(0));
  BlockHandle entry = units->getBlockHandle(&func.getBody().front());
  units->eraseNested(module->getOperation(), "its IR was destroyed");
  EXPECT_EQ(argument.getState(), HandleState::Erased);
  EXPECT_EQ(entry.getState(), HandleState::Erased);
  EXPECT_NE(entry.describe().find("its IR was destroyed"), std::string::npos)
      << entry.describe();
}

TEST_F(BlockValueRegistryTest, NonPrecisePassInvalidatesUnderItsAnchorOnly) {
  module = parseModule(context, R"mlir(
    func.func @f(%c: i1) -> i32 {
      %one = arith.constant 1 : i32
      return %one : i32
    ^dead:
      return %one : i32
    }
    func.func @g() -> i32 {
      %two = arith.constant 2 : i32
      return %two : i32
    })mlir");
  auto funcs = collectOps<func::FuncOp>(*module);
  func::FuncOp f = funcs[0], g = funcs[1];
  BlockHandle moduleBody = units->getBlockHandle(module->getBody());
  BlockHandle dropped = units->getBlockHandle(&f.getBody().back());
  BlockHandle entry = units->getBlockHandle(&f.getBody().front());
  ValueHandle argument = units->getValueHandle(f.getArgument(0));
  ValueHandle one =
      units->getValueHandle(f.getBody().front().front().getResult(0));
  ValueHandle two =
      units->getValueHandle(g.getBody().front().front().getResult(0));

  PassManager pm(&context);
  enableTracking(pm, *registry);
  pm.nest<func::FuncOp>().addPass(std::make_unique<DropBlocksPass>());
  ASSERT_TRUE(succeeded(pm.run(*module)));

  for (const auto *handle : {&dropped, &entry})
    EXPECT_EQ(handle->getState(), HandleState::Invalidated);
  EXPECT_EQ(argument.getState(), HandleState::Invalidated);
  EXPECT_EQ(one.getState(), HandleState::Invalidated);
  EXPECT_NE(one.describe().find("test-drop-blocks on func.func @f"),
            std::string::npos)
      << one.describe();
  // Outside the anchors: the module's block. (Inside @g: invalidated too,
  // the pass ran on it.)
  EXPECT_TRUE(moduleBody.isLive());
  EXPECT_EQ(two.getState(), HandleState::Invalidated);
  // Fresh handles afterwards refer to what is there now.
  EXPECT_TRUE(units->getBlockHandle(&f.getBody().front()).isLive());
}

TEST_F(BlockValueRegistryTest, ErasedBlockArgumentIsDetectedOnUse) {
  // MLIR reports no erasure of block arguments: the handle checks that its
  // block still has the argument.
  module = parseModule(context, R"mlir(
    func.func @f() {
      return
    ^bb1(%u: i32, %v: i32):
      return
    })mlir");
  Block *block = &collectOps<func::FuncOp>(*module).front().getBody().back();
  ValueHandle first = units->getValueHandle(block->getArgument(0));
  ValueHandle second = units->getValueHandle(block->getArgument(1));
  block->eraseArgument(0);
  EXPECT_FALSE(first.get());
  EXPECT_EQ(first.getState(), HandleState::Erased);
  EXPECT_EQ(second.get(), block->getArgument(0));
  // Erasing the block ends the remaining argument handle.
  TrackingListener listener(TrackingListenerConfig(), registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.eraseBlock(block);
  EXPECT_EQ(second.getState(), HandleState::Erased);
  EXPECT_EQ(units->getNumTracked(), 0u);
}

/// The text after "handle to " in `describe()`, up to " of region" (or the
/// end of the unit's description).
std::string unitOf(const std::string &description) {
  size_t start = description.find("handle to ") + strlen("handle to ");
  size_t end = description.find(" of region", start);
  if (end == std::string::npos)
    end = description.find(" is ", start);
  return description.substr(start, end - start);
}

TEST_F(BlockValueRegistryTest, BlockNumbersAreCountedWhenFirstRead) {
  module = parseModule(context, R"mlir(
    func.func @f() {
      return
    ^b1(%x: i32):
      return
    ^b2:
      return
    })mlir");
  auto func = collectOps<func::FuncOp>(*module).front();
  Region &body = func.getBody();
  Block *b1 = &*std::next(body.begin());
  Block *b2 = &body.back();
  TrackingListener listener(TrackingListenerConfig(), registry.get());
  IRRewriter rewriter(&context, &listener);

  // The only handle lacking a number counts the blocks before its block,
  // as they are when it is read.
  BlockHandle second = units->getBlockHandle(b2);
  rewriter.createBlock(&body, Region::iterator(b1));
  EXPECT_EQ(unitOf(second.describe()), "block #3") << second.describe();

  // Several: one walk numbers them all, the argument's block too.
  BlockHandle first = units->getBlockHandle(b1);
  ValueHandle argument = units->getValueHandle(b1->getArgument(0));
  BlockHandle entry = units->getBlockHandle(&body.front());
  rewriter.createBlock(&body, body.begin());
  rewriter.eraseBlock(b1);
  EXPECT_EQ(unitOf(first.describe()), "block #3") << first.describe();
  EXPECT_EQ(unitOf(argument.describe()), "argument #0 of block #3")
      << argument.describe();
  EXPECT_EQ(unitOf(entry.describe()), "block #1") << entry.describe();

  // A block taken out of its region before its description is read has no
  // number (a read one keeps it: "as last seen").
  Block *loose = rewriter.createBlock(&body, body.end());
  BlockHandle looseHandle = units->getBlockHandle(loose);
  body.getBlocks().remove(loose);
  EXPECT_EQ(unitOf(looseHandle.describe()), "block") << looseHandle.describe();
  body.push_back(loose);
  EXPECT_EQ(unitOf(second.describe()), "block #3") << second.describe();
}

TEST_F(BlockValueRegistryTest, DescriptionWithoutNumberOnceTheRegistryEnds) {
  module = parseModule(context, R"mlir(
    func.func @f() {
      return
    ^b1:
      return
    })mlir");
  auto func = collectOps<func::FuncOp>(*module).front();
  BlockHandle block = units->getBlockHandle(&func.getBody().back());
  // The IR may be gone before its registry: no number is counted then.
  units.reset();
  EXPECT_EQ(unitOf(block.describe()), "block") << block.describe();
  EXPECT_NE(block.describe().find("of region #0 of 'func.func'"),
            std::string::npos)
      << block.describe();
}

TEST_F(BlockValueRegistryTest, HandlesOutliveTheRegistry) {
  module = parseModule(context, "func.func @f(%a: i32) { return }");
  ValueHandle argument = units->getValueHandle(
      collectOps<func::FuncOp>(*module).front().getArgument(0));
  units.reset();
  EXPECT_EQ(argument.getState(), HandleState::Erased);
  EXPECT_FALSE(argument.get());
  EXPECT_EQ(BlockValueRegistry::lookup(&context), nullptr);
}

TEST_F(BlockValueRegistryTest, BlocksOfARegionOfNoOp) {
  // A standalone Region (as builders fill before an op takes it) has no
  // parent op: describing its blocks must not ask for a region number, and
  // an empty block of it, which names no context, must still end its handle
  // when a rewriter erases it (a new block at that address must not answer).
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  Region region;
  Block *withArgument = rewriter.createBlock(&region);
  withArgument->addArgument(rewriter.getI32Type(), rewriter.getUnknownLoc());
  Block *empty = rewriter.createBlock(&region, region.end());
  BlockHandle emptyHandle = units->getBlockHandle(empty);
  ValueHandle argument = units->getValueHandle(withArgument->getArgument(0));
  EXPECT_EQ(unitOf(emptyHandle.describe()), "block #1 of a region of no op")
      << emptyHandle.describe();
  EXPECT_EQ(unitOf(argument.describe()),
            "argument #0 of block #0 of a region of no op")
      << argument.describe();

  rewriter.eraseBlock(empty);
  EXPECT_EQ(emptyHandle.getState(), HandleState::Erased);
  EXPECT_EQ(emptyHandle.get(), nullptr);
  Block *next = rewriter.createBlock(&region, region.end());
  BlockHandle nextHandle = units->getBlockHandle(next);
  EXPECT_NE(nextHandle.getIdentityKey(), emptyHandle.getIdentityKey());
  EXPECT_EQ(units->getNumTracked(), 2u);
  rewriter.eraseBlock(next);
  EXPECT_EQ(nextHandle.getState(), HandleState::Erased);
  rewriter.eraseBlock(withArgument);
  EXPECT_EQ(argument.getState(), HandleState::Erased);
  EXPECT_EQ(units->getNumTracked(), 0u);
}

} // namespace
