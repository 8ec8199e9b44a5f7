//===- ThreadingTest.cpp - Tracking under the multi-threaded pass manager -===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "RegistryNotifier.h"
#include "TestUtils.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Tracking/HandleRegistry.h"
#include "mlir/Tracking/PassTracking.h"
#include "mlir/Tracking/Passes.h"
#include "mlir/Tracking/TrackingRewriter.h"
#include "llvm/ADT/DenseMap.h"

#include <atomic>
#include <memory>
#include <thread>

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::test;
using mlir::tracking::detail::EventSource;
using mlir::tracking::detail::RegistryNotifier;

namespace {

/// Replaces every nested `arith.addi` by a clone, untracked: addresses are
/// freed and reused while other threads run precise passes.
struct UntrackedRewritePass
    : public PassWrapper<UntrackedRewritePass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(UntrackedRewritePass)
  StringRef getArgument() const final { return "test-untracked-rewrite"; }
  void runOnOperation() override {
    SmallVector<Operation *> adds;
    getOperation()->walk([&](arith::AddIOp add) { adds.push_back(add); });
    for (Operation *add : adds) {
      OpBuilder builder(add);
      Operation *clone = builder.clone(*add);
      add->replaceAllUsesWith(clone);
      add->erase();
    }
  }
};

/// A precise pass: in each function, replaces every `arith.muli` by a fresh
/// clone through a `TrackingRewriter` (handles follow the clones), erasing
/// the original. Clones are allocated where the allocator likes, often at
/// the address of an op that the thread freed while it ran the pass on
/// another function. Fails on the function named `failOn`, after rewriting
/// it.
struct CloneMulsPass
    : public PassWrapper<CloneMulsPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CloneMulsPass)
  explicit CloneMulsPass(std::string failOn = "") : failOn(std::move(failOn)) {}
  StringRef getArgument() const final { return "test-clone-muls"; }
  void runOnOperation() override {
    SmallVector<Operation *> muls;
    getOperation()->walk([&](arith::MulIOp mul) { muls.push_back(mul); });
    TrackingRewriter rewriter(&getContext());
    for (Operation *mul : muls) {
      rewriter.setInsertionPoint(mul);
      rewriter.replaceOp(mul, rewriter.clone(*mul));
    }
    if (getOperation().getSymName() == failOn)
      signalPassFailure();
  }
  std::string failOn;
};

/// The body ops of each function, in order.
enum BodyOp { C0, C1, C2, Sum, AddZero, Mul, MulDup, R, T, Return, NumBodyOps };

constexpr llvm::StringLiteral kFunctionBody = R"mlir((%a: i32, %b: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %s = arith.addi %c1, %c2 : i32
  %x = arith.addi %a, %c0 : i32
  %m = arith.muli %x, %b : i32
  %m2 = arith.muli %x, %b : i32
  %r = arith.addi %m, %m2 : i32
  %t = arith.addi %r, %s : i32
  return %t : i32
}
)mlir";

/// A module with `numTop` functions at the top level and `numNested` nested
/// modules holding one function each.
std::string makeModule(int numTop, int numNested) {
  std::string text;
  for (int i = 0; i < numTop; ++i)
    text += "func.func @f" + std::to_string(i) + kFunctionBody.str();
  for (int i = 0; i < numNested; ++i)
    text += "module @m" + std::to_string(i) + " {\nfunc.func @g" +
            std::to_string(i) + kFunctionBody.str() + "}\n";
  return text;
}

/// Handles to a function and each op of its body.
struct FunctionHandles {
  OpHandle func;
  std::vector<OpHandle> body;
};

std::vector<FunctionHandles> takeHandles(HandleRegistry &registry,
                                         ModuleOp module) {
  std::vector<FunctionHandles> result;
  module->walk([&](func::FuncOp func) {
    FunctionHandles handles;
    handles.func = registry.getHandle(func);
    for (Operation &op : func.getBody().front())
      handles.body.push_back(registry.getHandle(&op));
    EXPECT_EQ(handles.body.size(), static_cast<size_t>(NumBodyOps));
    result.push_back(std::move(handles));
  });
  return result;
}

bool isInNestedModule(const OpHandle &func) {
  Operation *op = func.get();
  return op && op->getParentOp() && op->getParentOp()->getParentOp();
}

class ThreadingTest : public ::testing::Test {
protected:
  void SetUp() override {
    registerPrecisePass<CloneMulsPass>();
    loadTestDialects(context);
    context.enableMultithreading(true);
    ASSERT_TRUE(context.isMultithreadingEnabled());
    registry = std::make_unique<HandleRegistry>(&context);
  }
  void TearDown() override { registry.reset(); }

  void expectConsistent(ModuleOp module) {
    std::vector<std::string> problems = registry->verifyAgainst(module);
    EXPECT_TRUE(problems.empty()) << joinProblems(problems);
  }

  /// Checks the handles of a function that only saw precise passes
  /// (canonicalize, then cse).
  void expectPrecisRun(const FunctionHandles &handles) {
    ASSERT_TRUE(handles.func.isLive());
    auto func = cast<func::FuncOp>(handles.func.get());
    for (const OpHandle &handle : handles.body) {
      EXPECT_NE(handle.getState(), HandleState::Invalidated)
          << handle.describe();
      if (Operation *op = handle.get())
        EXPECT_EQ(op->getParentOp(), func.getOperation());
    }
    // 1 + 2 folded to a constant 3.
    auto sum = dyn_cast_or_null<arith::ConstantOp>(handles.body[Sum].get());
    ASSERT_TRUE(sum) << handles.body[Sum].describe();
    EXPECT_EQ(cast<IntegerAttr>(sum.getValue()).getInt(), 3);
    // %a + 0 folded to a block argument.
    EXPECT_EQ(handles.body[AddZero].getState(), HandleState::Erased);
    // The duplicate multiplication merged into the first one.
    EXPECT_TRUE(handles.body[Mul].isLive());
    EXPECT_EQ(handles.body[MulDup], handles.body[Mul]);
    for (BodyOp kept : {R, T, Return})
      EXPECT_TRUE(handles.body[kept].isLive()) << handles.body[kept].describe();
    EXPECT_EQ(handles.body[Return].get(),
              func.getBody().front().getTerminator());
    // Each event names the pass and the op it ran on (the function, or
    // the nested module holding it), though the threads ran other anchors
    // in between (attribution per thread).
    std::string anchor = ("func.func @" + func.getSymName()).str();
    if (auto parent = dyn_cast<ModuleOp>(func->getParentOp());
        parent && parent->getParentOp())
      anchor = ("builtin.module @" + *parent.getSymName()).str();
    for (auto [op, pass] :
         {std::pair(AddZero, "canonicalize"), std::pair(MulDup, "cse")}) {
      std::vector<TrackingEvent> history = handles.body[op].getHistory();
      ASSERT_FALSE(history.empty()) << handles.body[op].describe();
      EXPECT_EQ(history.back().pass, pass) << handles.body[op].describe();
      EXPECT_EQ(history.back().anchor, anchor) << handles.body[op].describe();
    }
  }

  /// Checks the handles of a function whose pipeline ended with a pass that
  /// is not precise.
  void expectInvalidatedRun(const FunctionHandles &handles) {
    ASSERT_TRUE(handles.func.isLive());
    for (const OpHandle &handle : handles.body) {
      EXPECT_FALSE(handle.isLive()) << handle.describe();
      EXPECT_EQ(handle.get(), nullptr);
    }
    EXPECT_EQ(handles.body[AddZero].getState(), HandleState::Erased);
    for (BodyOp invalidated : {Sum, Mul, MulDup, R, T, Return})
      EXPECT_EQ(handles.body[invalidated].getState(), HandleState::Invalidated)
          << handles.body[invalidated].describe();
  }

  /// Runs canonicalize, then cse, on the pass manager's threads over the
  /// top-level functions of `module` while another thread calls `work`
  /// again and again: from before the pipeline starts (it has returned once
  /// when the pipeline starts) until the pipeline ended.
  LogicalResult runPreciseWhile(ModuleOp module,
                                llvm::function_ref<void()> work) {
    std::atomic<bool> done{false}, started{false};
    std::thread worker([&] {
      do {
        work();
        started = true;
      } while (!done.load());
    });
    while (!started.load())
      std::this_thread::yield();
    PassManager pm(&context);
    enableTracking(pm, *registry);
    OpPassManager &funcs = pm.nest<func::FuncOp>();
    funcs.addPass(createTrackedCanonicalizerPass());
    funcs.addPass(createTrackedCSEPass());
    LogicalResult result = pm.run(module);
    done = true;
    worker.join();
    return result;
  }

  /// Runs the precise pipeline `iterations` times over 60 functions while
  /// another thread reads every handle again and again: what it reads of a
  /// handle agrees with itself, and a handle that stopped being live never
  /// returns an op.
  void expectReadersSeeConsistentHandles(int iterations);

  MLIRContext context;
  std::unique_ptr<HandleRegistry> registry;
};

TEST_F(ThreadingTest, ManyFunctionsNonPrecisePipeline) {
  for (int iteration = 0; iteration < 3; ++iteration) {
    OwningOpRef<ModuleOp> module = parseModule(context, makeModule(200, 0));
    ASSERT_TRUE(module);
    OpHandle moduleHandle = registry->getHandle(*module);
    std::vector<FunctionHandles> handles = takeHandles(*registry, *module);
    ASSERT_EQ(handles.size(), 200u);

    PassManager pm(&context);
    enableTracking(pm, *registry);
    OpPassManager &nested = pm.nest<func::FuncOp>();
    nested.addPass(createTrackedCanonicalizerPass());
    nested.addPass(createTrackedCSEPass());
    nested.addPass(std::make_unique<UntrackedRewritePass>());
    ASSERT_TRUE(succeeded(pm.run(*module)));

    EXPECT_TRUE(moduleHandle.isLive());
    for (const FunctionHandles &function : handles)
      expectInvalidatedRun(function);
    // Only the module and the functions are still mapped.
    EXPECT_EQ(registry->getNumTrackedOps(), 201u);
    expectConsistent(*module);
  }
}

TEST_F(ThreadingTest, ManyFunctionsPreciseOnlyPipeline) {
  for (int iteration = 0; iteration < 3; ++iteration) {
    OwningOpRef<ModuleOp> module = parseModule(context, makeModule(200, 0));
    ASSERT_TRUE(module);
    std::vector<FunctionHandles> handles = takeHandles(*registry, *module);
    PassManager pm(&context);
    enableTracking(pm, *registry);
    OpPassManager &nested = pm.nest<func::FuncOp>();
    nested.addPass(createTrackedCanonicalizerPass());
    nested.addPass(createTrackedCSEPass());
    ASSERT_TRUE(succeeded(pm.run(*module)));
    for (const FunctionHandles &function : handles)
      expectPrecisRun(function);
    expectConsistent(*module);
  }
}

/// Top-level functions get a pipeline ending in a non-precise pass while
/// the functions in nested modules are only canonicalized and CSE'd, in the
/// same parallel adaptor: precise rewrites allocate ops while the untracked
/// pass frees others.
TEST_F(ThreadingTest, MixedPreciseAndNonPreciseInParallel) {
  for (int iteration = 0; iteration < 3; ++iteration) {
    OwningOpRef<ModuleOp> module = parseModule(context, makeModule(100, 100));
    ASSERT_TRUE(module);
    OpHandle moduleHandle = registry->getHandle(*module);
    std::vector<FunctionHandles> handles = takeHandles(*registry, *module);
    ASSERT_EQ(handles.size(), 200u);
    std::vector<bool> nestedModule;
    for (const FunctionHandles &function : handles)
      nestedModule.push_back(isInNestedModule(function.func));
    ASSERT_EQ(llvm::count(nestedModule, true), 100);

    PassManager pm(&context);
    enableTracking(pm, *registry);
    OpPassManager &funcs = pm.nest<func::FuncOp>();
    funcs.addPass(createTrackedCanonicalizerPass());
    funcs.addPass(createTrackedCSEPass());
    funcs.addPass(std::make_unique<UntrackedRewritePass>());
    OpPassManager &modules = pm.nest<ModuleOp>();
    modules.addPass(createTrackedCanonicalizerPass());
    modules.addPass(createTrackedCSEPass());
    ASSERT_TRUE(succeeded(pm.run(*module)));

    EXPECT_TRUE(moduleHandle.isLive());
    for (size_t i = 0; i < handles.size(); ++i) {
      if (nestedModule[i])
        expectPrecisRun(handles[i]);
      else
        expectInvalidatedRun(handles[i]);
    }
    expectConsistent(*module);

    // Run again on the same IR with fresh handles on everything.
    std::vector<OpHandle> all;
    module->walk(
        [&](Operation *op) { all.push_back(registry->getHandle(op)); });
    ASSERT_TRUE(succeeded(pm.run(*module)));
    expectConsistent(*module);
    for (size_t i = 0; i < handles.size(); ++i)
      EXPECT_TRUE(handles[i].func.isLive());
  }
}

/// Many threads take and drop handles to the same ops while nothing
/// rewrites: identity holds and every entry goes away with its last handle.
TEST_F(ThreadingTest, ConcurrentGetHandleAndDrop) {
  OwningOpRef<ModuleOp> module = parseModule(context, makeModule(200, 0));
  ASSERT_TRUE(module);
  std::vector<Operation *> ops;
  module->walk([&](Operation *op) { ops.push_back(op); });
  // Handles held by the main thread for the first 100 ops.
  std::vector<OpHandle> held;
  for (size_t i = 0; i < 100; ++i)
    held.push_back(registry->getHandle(ops[i]));

  constexpr int kThreads = 4;
  constexpr int kIterations = 20000;
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<OpHandle> kept;
      for (int k = 0; k < kIterations; ++k) {
        size_t index = (static_cast<size_t>(t) * 7919 + k * 31) % ops.size();
        OpHandle handle = registry->getHandle(ops[index]);
        if (handle.get() != ops[index] || !handle.isLive())
          ++mismatches;
        if (registry->lookupHandle(ops[index]) != handle)
          ++mismatches;
        if (index < held.size() &&
            (handle != held[index] || handle.hash() != held[index].hash()))
          ++mismatches;
        if (k % 7 == 0)
          kept.push_back(handle);
        if (kept.size() > 64)
          kept.erase(kept.begin(), kept.begin() + 32);
      }
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(registry->getNumTrackedOps(), held.size());
  expectConsistent(*module);
  held.clear();
  EXPECT_EQ(registry->getNumTrackedOps(), 0u);
}

/// The observer runs on the pass manager's threads after the registry lock
/// is released: one that reads handles and the registry on every event must
/// not deadlock (it used to), and reads consistent handles. (Other threads
/// go on rewriting meanwhile, so what it reads may already be newer than
/// the event.)
TEST_F(ThreadingTest, ObserverUsingHandlesDuringParallelPipeline) {
  for (int iteration = 0; iteration < 20; ++iteration) {
    OwningOpRef<ModuleOp> module = parseModule(context, makeModule(40, 10));
    ASSERT_TRUE(module);
    std::vector<FunctionHandles> handles = takeHandles(*registry, *module);
    ASSERT_EQ(handles.size(), 50u);
    std::atomic<int> events{0}, invalidated{0}, problems{0};
    registry->setEventObserver([&](const TrackingEvent &event) {
      ++events;
      if (event.kind == TrackingEvent::Kind::Invalidated)
        ++invalidated;
      // Read handles of every function (other threads are rewriting some of
      // them): states, descriptions and the registry, never the IR.
      const FunctionHandles &function = handles[events % handles.size()];
      for (const OpHandle &handle : function.body) {
        HandleState state = handle.getState();
        std::string description = handle.describe();
        // A state read on both sides of the description, if unchanged, is
        // the one it names.
        if (handle.getState() == state &&
            description.find(" is " + stringifyHandleState(state).str()) ==
                std::string::npos)
          ++problems;
      }
      (void)registry->getNumTrackedOps();
    });

    PassManager pm(&context);
    enableTracking(pm, *registry);
    OpPassManager &funcs = pm.nest<func::FuncOp>();
    funcs.addPass(createTrackedCanonicalizerPass());
    funcs.addPass(createTrackedCSEPass());
    funcs.addPass(std::make_unique<UntrackedRewritePass>());
    OpPassManager &modules = pm.nest<ModuleOp>();
    modules.addPass(createTrackedCanonicalizerPass());
    modules.addPass(createTrackedCSEPass());
    ASSERT_TRUE(succeeded(pm.run(*module)));
    registry->setEventObserver(nullptr);

    EXPECT_EQ(problems.load(), 0);
    EXPECT_GT(events.load(), 0);
    // In each of the 40 top-level functions, five records are invalidated:
    // Sum, Mul (with MulDup merged into it), R, T and Return.
    EXPECT_EQ(invalidated.load(), 40 * 5);
    for (const FunctionHandles &function : handles) {
      if (isInNestedModule(function.func))
        expectPrecisRun(function);
      else
        expectInvalidatedRun(function);
    }
    expectConsistent(*module);
  }
}

/// The pass manager's threads rewrite different functions at full speed
/// while another thread reads every handle without pause: all three meet on
/// the registry lock. The reader sees consistent handles, and the pipeline's
/// outcome is the one a single thread gets.
TEST_F(ThreadingTest, ReaderDuringParallelRewrites) {
  expectReadersSeeConsistentHandles(/*iterations=*/10);
}

/// With one pass-manager thread, its listener queues every change to a
/// tracked op (ChangeBatch.h) for the whole pipeline: the reader's lock
/// applies them, and it never sees one late.
TEST_F(ThreadingTest, ReaderWhileOnePassThreadQueuesChanges) {
  context.disableMultithreading();
  expectReadersSeeConsistentHandles(/*iterations=*/10);
}

void ThreadingTest::expectReadersSeeConsistentHandles(int iterations) {
  for (int iteration = 0; iteration < iterations; ++iteration) {
    OwningOpRef<ModuleOp> module = parseModule(context, makeModule(60, 0));
    ASSERT_TRUE(module);
    std::vector<FunctionHandles> handles = takeHandles(*registry, *module);
    ASSERT_EQ(handles.size(), 60u);
    std::atomic<int> problems{0};
    LogicalResult result = runPreciseWhile(*module, [&] {
      for (const FunctionHandles &function : handles) {
        for (const OpHandle &handle : function.body) {
          HandleState state = handle.getState();
          std::string description = handle.describe();
          if (handle.getState() == state &&
              description.find(" is " + stringifyHandleState(state).str()) ==
                  std::string::npos)
            ++problems;
          // A handle of an op that is gone is never live again.
          if (state != HandleState::Live && handle.get())
            ++problems;
          (void)handle.getHistory();
        }
        (void)registry->getNumTrackedOps();
      }
    });
    ASSERT_TRUE(succeeded(result));
    EXPECT_EQ(problems.load(), 0);
    for (const FunctionHandles &function : handles)
      expectPrecisRun(function);
    expectConsistent(*module);
  }
}

/// The change count is one word that changes made after a read move:
/// while the pass manager's threads rewrite, a reader on another thread sees
/// it only grow, and the passes' changes on any thread moved it.
TEST_F(ThreadingTest, ChangeCountSeesEveryThreadsChanges) {
  OwningOpRef<ModuleOp> module = parseModule(context, makeModule(40, 0));
  ASSERT_TRUE(module);
  std::vector<FunctionHandles> handles = takeHandles(*registry, *module);
  uint64_t before = registry->getChangeCount();
  std::atomic<int> decreases{0};
  uint64_t last = before;
  LogicalResult result = runPreciseWhile(*module, [&] {
    uint64_t now = registry->getChangeCount();
    if (now < last)
      ++decreases;
    last = now;
  });
  ASSERT_TRUE(succeeded(result));
  EXPECT_EQ(decreases.load(), 0);
  // Every function had a replaced sum, an erased addition and a merged
  // duplicate after `before` was read.
  EXPECT_GT(registry->getChangeCount(), before);
  for (const FunctionHandles &function : handles)
    expectPrecisRun(function);

  // A change made on a thread of its own shows in the sum read here.
  uint64_t count = registry->getChangeCount();
  Operation *ret = handles.front().body[Return].get();
  ASSERT_TRUE(ret);
  std::thread([&] {
    RegistryNotifier(*registry).notifyOperationErased(ret, EventSource(),
                                                      "test");
  }).join();
  EXPECT_GT(registry->getChangeCount(), count);
  EXPECT_EQ(handles.front().body[Return].getState(), HandleState::Erased);
}

/// Threads (hence lanes) take turns recording the events of the same
/// handles: each thread's history blocks, interning caches and counts are its
/// lane's, and a history that grows on one lane leaves the block of another.
/// Every handle keeps the newest events, in order, each naming its own pass
/// and pattern, and the registry stays consistent with the IR.
TEST_F(ThreadingTest, HistoriesRecordedInTurnOnSeveralLanes) {
  constexpr int kThreads = 4;
  constexpr int kSteps = 300;
  OwningOpRef<ModuleOp> module = parseModule(context, makeModule(kThreads, 0));
  ASSERT_TRUE(module);
  // Per thread, in a function of its own: a handle that moves between two
  // ops of that function (a replacement each step, the other op untracked).
  std::vector<std::pair<Operation *, Operation *>> pairs;
  std::vector<OpHandle> handles;
  module->walk([&](func::FuncOp func) {
    Block &body = func.getBody().front();
    auto it = body.begin();
    Operation *first = &*it++;
    Operation *second = &*it;
    pairs.emplace_back(first, second);
    handles.push_back(registry->getHandle(first));
  });
  ASSERT_EQ(handles.size(), size_t(kThreads));
  auto step = [&](int t, int i) {
    EventSource source;
    source.pass = "pass-" + std::to_string(t) + "-" + std::to_string(i);
    source.pattern = "pattern-" + std::to_string(i % 3);
    auto [a, b] = pairs[t];
    RegistryNotifier(*registry).notifyOperationReplaced(i % 2 ? b : a,
                                                        i % 2 ? a : b, source);
  };
  // First one thread after another (each on a new lane), then all at once.
  for (int i = 0; i < kSteps / 2; ++i)
    std::thread([&, i] {
      for (int t = 0; t < kThreads; ++t)
        step(t, i);
    }).join();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = kSteps / 2; i < kSteps; ++i)
        step(t, i);
    });
  for (std::thread &thread : threads)
    thread.join();

  for (int t = 0; t < kThreads; ++t) {
    // An even number of steps: back on the first op.
    EXPECT_EQ(handles[t].get(), pairs[t].first);
    std::vector<TrackingEvent> history = handles[t].getHistory();
    ASSERT_EQ(history.size(), 32u);
    for (size_t k = 0; k < history.size(); ++k) {
      int i = kSteps - 32 + int(k);
      EXPECT_EQ(history[k].kind, TrackingEvent::Kind::Replaced);
      EXPECT_EQ(history[k].pass,
                "pass-" + std::to_string(t) + "-" + std::to_string(i));
      EXPECT_EQ(history[k].pattern, "pattern-" + std::to_string(i % 3));
    }
  }
  expectConsistent(*module);
  EXPECT_EQ(registry->getNumTrackedOps(), size_t(kThreads));
}

/// The batch API (what Python's walk and drop use) on one thread, in
/// functions no pass visits (nested modules), while the pass manager's
/// threads rewrite the top-level functions: the batches and the rewrites
/// meet on the registry lock and share its tables. Each batch hands out the
/// handles already held where there are some, and the entries it made leave
/// with its release.
TEST_F(ThreadingTest, BatchHandlesWhileOtherFunctionsRewrite) {
  for (int iteration = 0; iteration < 5; ++iteration) {
    OwningOpRef<ModuleOp> module = parseModule(context, makeModule(40, 10));
    ASSERT_TRUE(module);
    std::vector<FunctionHandles> handles = takeHandles(*registry, *module);
    // Every op of the nested modules, handles held above for some of them.
    std::vector<Operation *> idleOps;
    for (Operation &nested : module->getBody()->getOperations())
      if (isa<ModuleOp>(nested))
        nested.walk([&](Operation *op) { idleOps.push_back(op); });
    ASSERT_FALSE(idleOps.empty());
    size_t trackedBefore = registry->getNumTrackedOps();

    std::atomic<int> problems{0};
    LogicalResult result = runPreciseWhile(*module, [&] {
      std::vector<OpHandle> batch = registry->getHandles(idleOps);
      if (batch.size() != idleOps.size())
        ++problems;
      for (size_t i = 0; i < batch.size(); ++i)
        if (batch[i].get() != idleOps[i] ||
            registry->lookupHandle(idleOps[i]) != batch[i])
          ++problems;
      registry->releaseHandles(batch);
      for (const OpHandle &handle : batch)
        if (handle)
          ++problems;
    });
    ASSERT_TRUE(succeeded(result));
    EXPECT_EQ(problems.load(), 0);
    for (const FunctionHandles &function : handles) {
      if (isInNestedModule(function.func)) {
        // Untouched by the pipeline: every handle still on its op.
        for (const OpHandle &handle : function.body)
          EXPECT_TRUE(handle.isLive()) << handle.describe();
      } else {
        expectPrecisRun(function);
      }
    }
    expectConsistent(*module);
    // The batches' own entries are gone: only the held handles' remain
    // (canonicalize and CSE only drop entries of the rewritten functions).
    EXPECT_LE(registry->getNumTrackedOps(), trackedBefore);
    handles.clear();
    EXPECT_EQ(registry->getNumTrackedOps(), 0u);
  }
}

/// Functions run canonicalize, a pass that replaces each multiplication by a
/// clone, then cse, on the pass manager's threads. The ops a thread frees in
/// one function (erased by canonicalize, replaced by clones) come back as the
/// clones of other functions: every handle of an erased op stays erased,
/// every live one is on an op of its own function, and no freed address is
/// left in the registry.
TEST_F(ThreadingTest, ErasedAddressesReusedByOtherAnchors) {
  size_t crossAnchorReuse = 0;
  for (int iteration = 0; iteration < 5; ++iteration) {
    OwningOpRef<ModuleOp> module = parseModule(context, makeModule(100, 0));
    ASSERT_TRUE(module);
    std::vector<FunctionHandles> handles = takeHandles(*registry, *module);
    // Where every op was before the run: its function's index.
    llvm::DenseMap<Operation *, size_t> functionOf;
    for (size_t i = 0; i < handles.size(); ++i)
      for (const OpHandle &handle : handles[i].body)
        functionOf[handle.get()] = i;

    PassManager pm(&context);
    enableTracking(pm, *registry);
    OpPassManager &funcs = pm.nest<func::FuncOp>();
    funcs.addPass(createTrackedCanonicalizerPass());
    funcs.addPass(std::make_unique<CloneMulsPass>());
    funcs.addPass(createTrackedCSEPass());
    ASSERT_TRUE(succeeded(pm.run(*module)));

    for (size_t i = 0; i < handles.size(); ++i) {
      const FunctionHandles &function = handles[i];
      expectPrecisRun(function);
      // The multiplication was replaced by its clone, then the duplicate
      // clone merged into it.
      Operation *mul = function.body[Mul].get();
      ASSERT_TRUE(mul && isa<arith::MulIOp>(mul));
      std::vector<TrackingEvent> history = function.body[Mul].getHistory();
      ASSERT_FALSE(history.empty());
      EXPECT_EQ(history.back().kind, TrackingEvent::Kind::Replaced);
      EXPECT_EQ(history.back().pass, "test-clone-muls");
      // An erased op's handle never comes back, whatever now lives at its
      // address.
      EXPECT_EQ(function.body[AddZero].get(), nullptr);
      function.func.get()->walk([&](Operation *op) {
        auto it = functionOf.find(op);
        if (it != functionOf.end() && it->second != i)
          ++crossAnchorReuse;
      });
    }
    expectConsistent(*module);
  }
#if !defined(TRACKING_HAS_ASAN) && !defined(__SANITIZE_THREAD__)
  // Without an allocator quarantine, threads reuse what they freed.
  EXPECT_GT(crossAnchorReuse, 0u) << "no address was reused across functions";
#endif
}

/// A precise pass fails on one function after rewriting it, while the other
/// functions run on: the pipeline fails, what the failed pass did is
/// tracked, the functions that ran to the end are as with no failure, and
/// the instrumentation's state for the failed execution ends (a second
/// pipeline on the same registry attributes its events right).
TEST_F(ThreadingTest, FailingPassOnOneAnchorWhileOthersSucceed) {
  for (int iteration = 0; iteration < 5; ++iteration) {
    OwningOpRef<ModuleOp> module = parseModule(context, makeModule(60, 0));
    ASSERT_TRUE(module);
    std::vector<FunctionHandles> handles = takeHandles(*registry, *module);
    size_t failing = handles.size();
    for (size_t i = 0; i < handles.size(); ++i)
      if (cast<func::FuncOp>(handles[i].func.get()).getSymName() == "f7")
        failing = i;
    ASSERT_LT(failing, handles.size());

    PassManager pm(&context);
    enableTracking(pm, *registry);
    OpPassManager &funcs = pm.nest<func::FuncOp>();
    funcs.addPass(createTrackedCanonicalizerPass());
    funcs.addPass(std::make_unique<CloneMulsPass>("f7"));
    funcs.addPass(createTrackedCSEPass());
    EXPECT_TRUE(failed(pm.run(*module)));

    for (size_t i = 0; i < handles.size(); ++i) {
      const FunctionHandles &function = handles[i];
      ASSERT_TRUE(function.func.isLive());
      Operation *func = function.func.get();
      for (const OpHandle &handle : function.body) {
        // Every pass was precise: nothing is invalidated, and every live
        // handle is on an op of its own function.
        EXPECT_NE(handle.getState(), HandleState::Invalidated)
            << handle.describe();
        if (Operation *op = handle.get())
          EXPECT_EQ(op->getParentOp(), func) << handle.describe();
      }
      if (i == failing) {
        // Canonicalized and cloned, then the pipeline stopped: the clones
        // were not merged.
        const OpHandle &mul = function.body[Mul];
        const OpHandle &dup = function.body[MulDup];
        ASSERT_TRUE(mul.isLive() && dup.isLive());
        EXPECT_NE(mul, dup);
        EXPECT_FALSE(mul.sameOp(dup));
        EXPECT_EQ(mul.getHistory().back().pass, "test-clone-muls");
        EXPECT_EQ(dup.getHistory().back().pass, "test-clone-muls");
        EXPECT_EQ(function.body[AddZero].getState(), HandleState::Erased);
      } else if (function.body[Mul] == function.body[MulDup]) {
        // Ran to the end (others may have been skipped after the failure).
        expectPrecisRun(function);
      }
    }
    expectConsistent(*module);

    // The registry goes on: a pipeline that succeeds, on the same IR.
    PassManager again(&context);
    enableTracking(again, *registry);
    again.nest<func::FuncOp>().addPass(createTrackedCSEPass());
    ASSERT_TRUE(succeeded(again.run(*module)));
    const FunctionHandles &function = handles[failing];
    EXPECT_EQ(function.body[Mul], function.body[MulDup]);
    EXPECT_EQ(function.body[MulDup].getHistory().back().pass, "cse");
    expectConsistent(*module);
  }
}

} // namespace
