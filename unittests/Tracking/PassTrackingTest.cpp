//===- PassTrackingTest.cpp - Tests for the pass instrumentation ----------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "RegistryNotifier.h"
#include "TestUtils.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tracking/HandleRegistry.h"
#include "mlir/Tracking/PassTracking.h"
#include "mlir/Tracking/Passes.h"
#include "mlir/Tracking/TrackingListener.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <new>
#include <thread>

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::test;
using mlir::tracking::detail::RegistryNotifier;

namespace {

/// Replaces every nested `arith.addi` by a clone without telling anyone: the
/// kind of pass the instrumentation must fall back for.
void rewriteBehindTheRegistrysBack(Operation *root) {
  SmallVector<Operation *> adds;
  root->walk([&](arith::AddIOp add) { adds.push_back(add); });
  for (Operation *add : adds) {
    OpBuilder builder(add);
    Operation *clone = builder.clone(*add);
    add->replaceAllUsesWith(clone);
    add->erase();
  }
}

struct NonPrecisePass : public PassWrapper<NonPrecisePass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(NonPrecisePass)
  StringRef getArgument() const final { return "test-non-precise"; }
  StringRef getDescription() const final { return "Untracked rewrites"; }
  void runOnOperation() override {
    rewriteBehindTheRegistrysBack(getOperation());
  }
};

struct FailingPass : public PassWrapper<FailingPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FailingPass)
  StringRef getArgument() const final { return "test-failing"; }
  StringRef getDescription() const final { return "Rewrites, then fails"; }
  void runOnOperation() override {
    rewriteBehindTheRegistrysBack(getOperation());
    signalPassFailure();
  }
};

/// A third-party pattern pass that opted in: SwapAddOperands through the
/// greedy driver with the tracking listener.
struct PrecisePatternPass
    : public PassWrapper<PrecisePatternPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PrecisePatternPass)
  StringRef getArgument() const final { return "test-precise-swap"; }
  StringRef getDescription() const final { return "Tracked rewrites"; }
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SwapAddOperands>(&getContext());
    GreedyRewriteConfig config;
    config.setListener(getTrackingListener());
    config.enableFolding(false);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};

constexpr llvm::StringLiteral kInput = R"mlir(
memref.global "private" @buffer : memref<4xi32>
func.func @a(%x: i32, %y: i32) -> i32 {
  %0 = arith.addi %x, %y {tag = "a.add"} : i32
  %1 = arith.muli %0, %y {tag = "a.mul"} : i32
  return %1 : i32
}
func.func @b(%x: i32, %y: i32) -> i32 {
  %0 = arith.addi %x, %y {tag = "b.add"} : i32
  %1 = arith.muli %0, %y {tag = "b.mul"} : i32
  %r = scf.if %c -> i32 {
    %2 = arith.muli %x, %x {tag = "b.inner"} : i32
    scf.yield %2 : i32
  } else {
    scf.yield %1 : i32
  }
  return %r : i32
}
)mlir";

class PassTrackingTest : public ::testing::Test {
protected:
  void SetUp() override {
    static bool registered = [] {
      registerPrecisePass<PrecisePatternPass>();
      return true;
    }();
    (void)registered;
    loadTestDialects(context);
    std::string source = kInput.str();
    // @b needs a condition.
    size_t pos = source.find("func.func @b(%x: i32, %y: i32)");
    source.replace(pos, 30, "func.func @b(%x: i32, %y: i32, %c: i1)");
    module = parseModule(context, source);
    ASSERT_TRUE(module);
    registry = std::make_unique<HandleRegistry>(&context);
    for (StringRef tag : {"a.add", "a.mul", "b.add", "b.mul", "b.inner"})
      handles[tag] = registry->getHandle(findTagged(*module, tag));
    moduleHandle = registry->getHandle(*module);
    funcA = registry->getHandle(module->lookupSymbol("a"));
    funcB = registry->getHandle(module->lookupSymbol("b"));
    global = registry->getHandle(module->lookupSymbol("buffer"));
  }
  void TearDown() override {
    handles.clear();
    registry.reset();
    module = nullptr;
  }

  void expectConsistent() {
    std::vector<std::string> problems = registry->verifyAgainst(*module);
    EXPECT_TRUE(problems.empty()) << joinProblems(problems);
  }
  void expectState(StringRef tag, HandleState state) {
    EXPECT_EQ(handles[tag].getState(), state)
        << tag.str() << ": " << handles[tag].describe();
  }
  /// Expects `handle` to have been invalidated by `pass` on `anchor`.
  static void expectInvalidatedBy(const OpHandle &handle, StringRef pass,
                                  StringRef anchor) {
    ASSERT_EQ(handle.getState(), HandleState::Invalidated) << handle.describe();
    EXPECT_EQ(handle.get(), nullptr);
    std::vector<TrackingEvent> history = handle.getHistory();
    ASSERT_FALSE(history.empty());
    const TrackingEvent &event = history.back();
    EXPECT_EQ(event.kind, TrackingEvent::Kind::Invalidated);
    EXPECT_EQ(event.pass, pass.str());
    EXPECT_EQ(event.anchor, anchor.str());
    EXPECT_EQ(event.reason, "pass is not precise");
    EXPECT_NE(handle.describe().find("pass is not precise"), std::string::npos)
        << handle.describe();
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::unique_ptr<HandleRegistry> registry;
  llvm::StringMap<OpHandle> handles;
  OpHandle moduleHandle, funcA, funcB, global;
};

TEST_F(PassTrackingTest, ModulePassInvalidatesNestedButNotModule) {
  PassManager pm(&context);
  enableTracking(pm, *registry);
  pm.addPass(std::make_unique<NonPrecisePass>());
  ASSERT_TRUE(succeeded(pm.run(*module)));

  EXPECT_TRUE(moduleHandle.isLive());
  EXPECT_EQ(moduleHandle.get(), module->getOperation());
  expectInvalidatedBy(funcA, "test-non-precise", "builtin.module");
  expectInvalidatedBy(funcB, "test-non-precise", "builtin.module");
  expectInvalidatedBy(global, "test-non-precise", "builtin.module");
  for (StringRef tag : {"a.add", "a.mul", "b.add", "b.mul", "b.inner"})
    expectInvalidatedBy(handles[tag], "test-non-precise", "builtin.module");
  EXPECT_EQ(registry->getNumTrackedOps(), 1u);
  expectConsistent();
}

/// A pass manager may outlive the registry it was given: its runs report to
/// the registry the context has then (none, then a new one), never to the
/// freed one.
TEST_F(PassTrackingTest, PassManagerOutlivesItsRegistry) {
  PassManager pm(&context);
  enableTracking(pm, *registry);
  pm.addPass(std::make_unique<NonPrecisePass>());
  handles.clear();
  moduleHandle = funcA = funcB = global = OpHandle();
  registry.reset();
  ASSERT_TRUE(succeeded(pm.run(*module)));

  registry = std::make_unique<HandleRegistry>(&context);
  OpHandle add = registry->getHandle(findTagged(*module, "a.add"));
  ASSERT_TRUE(succeeded(pm.run(*module)));
  expectInvalidatedBy(add, "test-non-precise", "builtin.module");
  expectConsistent();
}

TEST_F(PassTrackingTest, NestedPipelineInvalidatesOnlyFunctionBodies) {
  static PassRegistration<NonPrecisePass> registration;
  PassManager pm(&context);
  enableTracking(pm, *registry);
  // `pm` is anchored on builtin.module: this is
  // builtin.module(func.func(test-non-precise)).
  ASSERT_TRUE(succeeded(parsePassPipeline("func.func(test-non-precise)", pm)));
  ASSERT_TRUE(succeeded(pm.run(*module)));

  EXPECT_TRUE(moduleHandle.isLive());
  EXPECT_TRUE(funcA.isLive());
  EXPECT_TRUE(funcB.isLive());
  EXPECT_TRUE(global.isLive());
  EXPECT_EQ(global.get(), module->lookupSymbol("buffer"));
  for (StringRef tag : {"a.add", "a.mul"})
    expectInvalidatedBy(handles[tag], "test-non-precise", "func.func @a");
  for (StringRef tag : {"b.add", "b.mul", "b.inner"})
    expectInvalidatedBy(handles[tag], "test-non-precise", "func.func @b");
  EXPECT_EQ(registry->getNumTrackedOps(), 4u);
  expectConsistent();

  // New handles can be taken afterwards and are fresh.
  OpHandle fresh = registry->getHandle(findTagged(*module, "a.add"));
  EXPECT_TRUE(fresh.isLive());
  EXPECT_NE(fresh, handles["a.add"]);
  EXPECT_TRUE(fresh.getHistory().empty());
}

TEST_F(PassTrackingTest, FailingNestedPassStillInvalidates) {
  PassManager pm(&context);
  enableTracking(pm, *registry);
  pm.nest<func::FuncOp>().addPass(std::make_unique<FailingPass>());
  EXPECT_TRUE(failed(pm.run(*module)));

  EXPECT_TRUE(moduleHandle.isLive());
  EXPECT_TRUE(global.isLive());
  // With one thread the pipeline stops after the first failing function;
  // whichever functions it ran on lost their nested handles, and no handle
  // is left live on an op that was rewritten.
  EXPECT_TRUE(funcA.isLive());
  EXPECT_TRUE(funcB.isLive());
  expectInvalidatedBy(handles["a.add"], "test-failing", "func.func @a");
  expectInvalidatedBy(handles["a.mul"], "test-failing", "func.func @a");
  for (StringRef tag : {"b.add", "b.mul", "b.inner"}) {
    const OpHandle &handle = handles[tag];
    if (handle.isLive())
      EXPECT_EQ(handle.get(), findTagged(*module, tag));
  }
  expectConsistent();
}

TEST_F(PassTrackingTest, FailingModulePassStillInvalidates) {
  PassManager pm(&context);
  enableTracking(pm, *registry);
  pm.addPass(std::make_unique<FailingPass>());
  EXPECT_TRUE(failed(pm.run(*module)));

  EXPECT_TRUE(moduleHandle.isLive());
  expectInvalidatedBy(funcA, "test-failing", "builtin.module");
  expectInvalidatedBy(global, "test-failing", "builtin.module");
  for (StringRef tag : {"a.add", "a.mul", "b.add", "b.mul", "b.inner"})
    expectInvalidatedBy(handles[tag], "test-failing", "builtin.module");
  expectConsistent();
}

TEST_F(PassTrackingTest, PrecisePassesDoNotInvalidate) {
  EXPECT_TRUE(isPrecisePass(*createTrackedCanonicalizerPass()));
  EXPECT_TRUE(isPrecisePass(*createTrackedCSEPass()));
  EXPECT_TRUE(isPrecisePass(PrecisePatternPass()));
  EXPECT_FALSE(isPrecisePass(NonPrecisePass()));

  PassManager pm(&context);
  enableTracking(pm, *registry);
  OpPassManager &nested = pm.nest<func::FuncOp>();
  nested.addPass(createTrackedCanonicalizerPass());
  nested.addPass(createTrackedCSEPass());
  nested.addPass(std::make_unique<PrecisePatternPass>());
  pm.addPass(createTrackedCanonicalizerPass());
  pm.addPass(createTrackedCSEPass());
  ASSERT_TRUE(succeeded(pm.run(*module)));

  EXPECT_TRUE(moduleHandle.isLive());
  EXPECT_TRUE(funcA.isLive());
  EXPECT_TRUE(funcB.isLive());
  EXPECT_TRUE(global.isLive());
  for (StringRef tag : {"a.add", "a.mul", "b.add", "b.mul", "b.inner"})
    expectState(tag, HandleState::Live);
  // The swapped adds were followed, and the history names the pattern.
  for (StringRef tag : {"a.add", "b.add"}) {
    Operation *op = handles[tag].get();
    ASSERT_TRUE(op);
    EXPECT_TRUE(op->hasAttr("swapped"));
    EXPECT_EQ(op, findTagged(*module, tag));
    std::vector<TrackingEvent> history = handles[tag].getHistory();
    ASSERT_EQ(history.size(), 1u);
    EXPECT_EQ(history[0].kind, TrackingEvent::Kind::Replaced);
    EXPECT_EQ(history[0].pass, "test-precise-swap");
    EXPECT_NE(history[0].pattern.find("SwapAddOperands"), std::string::npos)
        << history[0].pattern;
  }
  expectConsistent();
}

TEST_F(PassTrackingTest, TrackedCanonicalizeAttributesEvents) {
  OwningOpRef<ModuleOp> input = parseModule(context, R"mlir(
    func.func @f(%x: i32) -> i32 {
      %c0 = arith.constant 0 : i32
      %0 = arith.addi %x, %c0 {tag = "zero"} : i32
      return %0 : i32
    }
  )mlir");
  ASSERT_TRUE(input);
  OpHandle zero = registry->getHandle(findTagged(*input, "zero"));
  PassManager pm(&context);
  enableTracking(pm, *registry);
  pm.nest<func::FuncOp>().addPass(createTrackedCanonicalizerPass());
  ASSERT_TRUE(succeeded(pm.run(*input)));
  // x + 0 folds to %x, a block argument: erased, not invalidated.
  ASSERT_EQ(zero.getState(), HandleState::Erased) << zero.describe();
  std::vector<TrackingEvent> history = zero.getHistory();
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0].pass, "canonicalize");
  EXPECT_EQ(history[0].anchor, "func.func @f");
}

/// A pass type of its own: registering it precise changes no other test.
struct LaterPrecisePass
    : public PassWrapper<LaterPrecisePass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LaterPrecisePass)
  StringRef getArgument() const final { return "test-later-precise"; }
  void runOnOperation() override {}
};

/// The instrumentation asks for every pass execution, and a thread keeps its
/// last answers: a registration after an answer must change it, for the
/// same pass object as for a new one at the same address.
TEST_F(PassTrackingTest, PrecisenessFollowsRegistrationsAfterAnAnswer) {
  NonPrecisePass instance;
  EXPECT_FALSE(isPrecisePass(instance));
  registerPreciseInstance(&instance);
  EXPECT_TRUE(isPrecisePass(instance));
  unregisterPreciseInstance(&instance);
  EXPECT_FALSE(isPrecisePass(instance));

  // One storage for two passes of different types, one after the other.
  alignas(std::max_align_t) unsigned char
      storage[std::max(sizeof(LaterPrecisePass), sizeof(NonPrecisePass))];
  auto *later = new (storage) LaterPrecisePass();
  EXPECT_FALSE(isPrecisePass(*later));
  registerPrecisePass(TypeID::get<LaterPrecisePass>());
  EXPECT_TRUE(isPrecisePass(*later));
  later->~LaterPrecisePass();
  // Another type at the same address is not taken for the one answered.
  auto *other = new (storage) NonPrecisePass();
  EXPECT_FALSE(isPrecisePass(*other));
  other->~NonPrecisePass();
}

TEST_F(PassTrackingTest, UpstreamCanonicalizerIsNotPrecise) {
  std::unique_ptr<Pass> upstream = createCanonicalizerPass();
  std::unique_ptr<Pass> tracked = createTrackedCanonicalizerPass();
  // Same TypeID (so that ours can take upstream's registration) ...
  EXPECT_EQ(upstream->getTypeID(), tracked->getTypeID());
  // ... but only ours is precise.
  EXPECT_FALSE(isPrecisePass(*upstream));
  EXPECT_TRUE(isPrecisePass(*tracked));
  EXPECT_FALSE(isPrecisePass(*createCSEPass()));

  PassManager pm(&context);
  enableTracking(pm, *registry);
  pm.nest<func::FuncOp>().addPass(std::move(upstream));
  ASSERT_TRUE(succeeded(pm.run(*module)));
  EXPECT_TRUE(funcA.isLive());
  EXPECT_TRUE(funcB.isLive());
  for (StringRef tag : {"a.add", "a.mul", "b.add", "b.mul", "b.inner"})
    expectState(tag, HandleState::Invalidated);
  expectConsistent();
}

TEST_F(PassTrackingTest, NonPrecisePassOnOneFunctionLeavesOthersAlone) {
  auto b = module->lookupSymbol<func::FuncOp>("b");
  PassManager pm(&context, func::FuncOp::getOperationName());
  enableTracking(pm, *registry);
  pm.addPass(std::make_unique<NonPrecisePass>());
  ASSERT_TRUE(succeeded(pm.run(b)));

  EXPECT_TRUE(funcB.isLive()); // The anchor survives.
  for (StringRef tag : {"b.add", "b.mul", "b.inner"})
    expectInvalidatedBy(handles[tag], "test-non-precise", "func.func @b");
  for (StringRef tag : {"a.add", "a.mul"}) {
    expectState(tag, HandleState::Live);
    EXPECT_TRUE(handles[tag].getHistory().empty());
    EXPECT_EQ(registry->lookupHandle(findTagged(*module, tag)), handles[tag]);
  }
  EXPECT_TRUE(funcA.isLive());
  EXPECT_TRUE(global.isLive());
  EXPECT_TRUE(moduleHandle.isLive());
  expectConsistent();
}

TEST_F(PassTrackingTest, InvalidateNestedTakesOnlyRecordsUnderTheAnchor) {
  auto a = module->lookupSymbol<func::FuncOp>("a");
  auto b = module->lookupSymbol<func::FuncOp>("b");
  RegistryNotifier notifier(*registry);
  EXPECT_EQ(notifier.invalidateNested(b, {}, "pass is not precise"), 3u);
  // Invalidated records are out of the address map at once.
  EXPECT_FALSE(registry->isTracked(findTagged(*module, "b.add")));
  EXPECT_TRUE(registry->isTracked(findTagged(*module, "a.add")));
  expectState("b.inner", HandleState::Invalidated);
  expectState("a.add", HandleState::Live);

  // An anchor without handles below it costs nothing and detaches nothing.
  OpHandle dropA = funcA;
  handles["a.add"] = OpHandle();
  handles["a.mul"] = OpHandle();
  EXPECT_EQ(notifier.invalidateNested(a, {}, "pass is not precise"), 0u);
  EXPECT_TRUE(funcA.isLive());
}

/// While a non-precise pass runs over @b again and again, another thread
/// rewrites @a through a tracked rewriter. The pass's fallback must only
/// look at @b's records (found through the registry's own index), so @a's
/// handle follows every rewrite.
TEST_F(PassTrackingTest, ConcurrentTrackedRewritesOutsideTheAnchor) {
  auto b = module->lookupSymbol<func::FuncOp>("b");
  Operation *initialA = findTagged(*module, "a.add");
  OpHandle aAdd = handles["a.add"];
  std::atomic<bool> failedRewrite{false};
  constexpr int kRewrites = 300;
  std::thread rewriter([&] {
    IRRewriter rewriter(&context, getTrackingListener());
    Operation *current = initialA;
    for (int i = 0; i < kRewrites; ++i) {
      rewriter.setInsertionPoint(current);
      Operation *clone = rewriter.clone(*current);
      rewriter.replaceOp(current, clone);
      if (aAdd.get() != clone)
        failedRewrite = true;
      current = clone;
    }
  });
  PassManager pm(&context, func::FuncOp::getOperationName());
  enableTracking(pm, *registry);
  pm.addPass(std::make_unique<NonPrecisePass>());
  for (int i = 0; i < 50; ++i) {
    std::vector<OpHandle> inB;
    b.walk([&](Operation *op) {
      if (op != b.getOperation())
        inB.push_back(registry->getHandle(op));
    });
    ASSERT_TRUE(succeeded(pm.run(b)));
    for (const OpHandle &handle : inB)
      EXPECT_EQ(handle.getState(), HandleState::Invalidated);
  }
  rewriter.join();
  EXPECT_FALSE(failedRewrite);
  EXPECT_TRUE(aAdd.isLive());
  EXPECT_EQ(aAdd.get(), findTagged(*module, "a.add"));
  EXPECT_EQ(aAdd.getHistory().size(), static_cast<size_t>(kRewrites) < 32
                                          ? static_cast<size_t>(kRewrites)
                                          : 32u);
  EXPECT_TRUE(funcB.isLive());
  expectConsistent();
}

} // namespace

//===----------------------------------------------------------------------===//
// Regressions (issue 7)
//===----------------------------------------------------------------------===//

namespace {
/// A non-precise pass that reports what the handles look like while it runs,
/// then rewrites behind the registry's back.
struct ObservingPass
    : public PassWrapper<ObservingPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ObservingPass)
  explicit ObservingPass(std::function<void(Operation *)> observe)
      : observe(std::move(observe)) {}
  StringRef getArgument() const final { return "test-observing"; }
  StringRef getDescription() const final { return "Looks, then rewrites"; }
  void runOnOperation() override {
    observe(getOperation());
    rewriteBehindTheRegistrysBack(getOperation());
  }
  std::function<void(Operation *)> observe;
};
} // namespace

/// While a non-precise pass runs, the handles under its anchor are already
/// invalidated: get() never returns an op the pass may have freed.
TEST_F(PassTrackingTest, NonPreciseHandlesAreInvalidatedWhileThePassRuns) {
  std::vector<HandleState> states;
  std::vector<Operation *> ops;
  std::vector<std::string> passes;
  PassManager pm(&context);
  enableTracking(pm, *registry);
  pm.addNestedPass<func::FuncOp>(
      std::make_unique<ObservingPass>([&](Operation *anchor) {
        if (SymbolTable::getSymbolName(anchor) != "b")
          return;
        for (StringRef tag : {"b.add", "b.inner"}) {
          states.push_back(handles[tag].getState());
          ops.push_back(handles[tag].get());
          std::vector<TrackingEvent> history = handles[tag].getHistory();
          passes.push_back(history.empty() ? "" : history.back().pass);
        }
        states.push_back(funcB.getState());
      }));
  ASSERT_TRUE(succeeded(pm.run(*module)));
  ASSERT_EQ(states.size(), 3u);
  EXPECT_EQ(states[0], HandleState::Invalidated);
  EXPECT_EQ(states[1], HandleState::Invalidated);
  EXPECT_EQ(ops[0], nullptr);
  EXPECT_EQ(ops[1], nullptr);
  EXPECT_EQ(passes[0], "test-observing");
  // The anchor itself survives.
  EXPECT_EQ(states[2], HandleState::Live);
  expectInvalidatedBy(handles["b.add"], "test-observing", "func.func @b");
  expectConsistent();
}

/// If the after-pass hook never fires (a crash handler, a pass manager that
/// stops), the handles are invalidated all the same.
TEST_F(PassTrackingTest, InvalidationDoesNotWaitForTheAfterPassHook) {
  auto b = module->lookupSymbol<func::FuncOp>("b");
  NonPrecisePass pass;
  {
    TrackingInstrumentation instrumentation(*registry);
    instrumentation.runBeforePass(&pass, b);
    expectInvalidatedBy(handles["b.mul"], "test-non-precise", "func.func @b");
    EXPECT_EQ(handles["b.inner"].get(), nullptr);
    EXPECT_TRUE(funcB.isLive());
    EXPECT_TRUE(handles["a.add"].isLive());
  }
  expectState("b.mul", HandleState::Invalidated);
}

/// The pass manager's adaptor is recognized by TypeID.
TEST_F(PassTrackingTest, AdaptorPassesAreRecognized) {
  PassManager pm(&context);
  OpPassManager &nested = pm.nest<func::FuncOp>();
  nested.addPass(std::make_unique<NonPrecisePass>());
  ASSERT_EQ(pm.size(), 1u);
  EXPECT_TRUE(isPassAdaptor(*pm.begin()));
  EXPECT_FALSE(isPassAdaptor(*nested.begin()));
  EXPECT_FALSE(isPassAdaptor(*createTrackedCSEPass()));
}

/// An op with a region, moved to another function with remove() + insert()
/// (no unlink notification), then a non-precise pass on the new function
/// alone: the moved handles must be invalidated, not left live on freed ops.
TEST_F(PassTrackingTest, RemoveInsertMoveThenNonPrecisePassOnNewFunction) {
  OwningOpRef<ModuleOp> input = parseModule(context, R"mlir(
    func.func @src(%c: i1) {
      scf.if %c {
        %k = arith.constant 1 : i32
        %s = arith.addi %k, %k {tag = "moved.add"} : i32
      } {tag = "moved.if"}
      return
    }
    func.func @dst(%c: i1) {
      return
    }
  )mlir");
  ASSERT_TRUE(input);
  // Only handles of `input`, so that verifyAgainst(input) sees them all.
  handles.clear();
  moduleHandle = funcA = funcB = global = OpHandle();
  ASSERT_EQ(registry->getNumTrackedOps(), 0u);
  auto src = input->lookupSymbol<func::FuncOp>("src");
  auto dst = input->lookupSymbol<func::FuncOp>("dst");
  Operation *ifOp = findTagged(*input, "moved.if");
  OpHandle ifHandle = registry->getHandle(ifOp);
  OpHandle addHandle = registry->getHandle(findTagged(*input, "moved.add"));
  OpHandle srcHandle = registry->getHandle(src);

  IRRewriter rewriter(&context, getTrackingListener());
  ifOp->remove();
  rewriter.setInsertionPoint(dst.getBody().front().getTerminator());
  rewriter.insert(ifOp);
  rewriter.modifyOpInPlace(ifOp,
                           [&] { ifOp->setOperand(0, dst.getArgument(0)); });
  std::vector<std::string> problems = registry->verifyAgainst(*input);
  EXPECT_TRUE(problems.empty()) << joinProblems(problems);

  PassManager pm(&context, func::FuncOp::getOperationName());
  enableTracking(pm, *registry);
  pm.addPass(std::make_unique<NonPrecisePass>());
  ASSERT_TRUE(succeeded(pm.run(dst)));
  expectInvalidatedBy(addHandle, "test-non-precise", "func.func @dst");
  expectInvalidatedBy(ifHandle, "test-non-precise", "func.func @dst");
  EXPECT_TRUE(srcHandle.isLive());
  problems = registry->verifyAgainst(*input);
  EXPECT_TRUE(problems.empty()) << joinProblems(problems);
}
