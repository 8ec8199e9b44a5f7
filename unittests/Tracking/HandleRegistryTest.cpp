//===- HandleRegistryTest.cpp - Tests for the handle registry -------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "HandleRecords.h"
#include "OpFilter.h"
#include "PageArena.h"
#include "RegistryLanes.h"
#include "RegistryNotifier.h"
#include "TestUtils.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Tracking/HandleRegistry.h"
#include "mlir/Tracking/PassTracking.h"
#include "mlir/Tracking/Passes.h"
#include "mlir/Tracking/TrackingListener.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::test;
using mlir::tracking::detail::RegistryNotifier;

namespace {

constexpr llvm::StringLiteral kTwoAdds = R"mlir(
func.func @f(%a: i32, %b: i32) -> i32 {
  %0 = arith.addi %a, %b {tag = "add0"} : i32
  %1 = arith.addi %0, %b {tag = "add1"} : i32
  %2 = arith.addi %a, %a {tag = "dead"} : i32
  return %1 : i32
}
)mlir";

class HandleRegistryTest : public ModuleRegistryTest {
protected:
  HandleRegistryTest() : ModuleRegistryTest(kTwoAdds) {}
};

TEST_F(HandleRegistryTest, LookupFindsTheRegistryOfTheContext) {
  EXPECT_EQ(HandleRegistry::lookup(&context), registry.get());
  EXPECT_EQ(registry->getContext(), &context);
  MLIRContext other;
  EXPECT_EQ(HandleRegistry::lookup(&other), nullptr);
  registry.reset();
  EXPECT_EQ(HandleRegistry::lookup(&context), nullptr);
}

TEST_F(HandleRegistryTest, OpsOfAnotherContextGetNoHandle) {
  // This registry never hears of another context's rewrites: a handle to
  // such an op would dangle once that context erased it.
  MLIRContext other;
  loadTestDialects(other);
  OwningOpRef<ModuleOp> foreign = parseModule(other, kTwoAdds);
  Operation *foreignAdd = findTagged(*foreign, "add0");
  EXPECT_FALSE(registry->getHandle(foreignAdd));
  Operation *add0 = findTagged(*module, "add0");
  Operation *add1 = findTagged(*module, "add1");
  std::vector<OpHandle> handles =
      registry->getHandles({add0, foreignAdd, foreignAdd->getParentOp(), add1});
  ASSERT_EQ(handles.size(), 4u);
  EXPECT_EQ(handles[0].get(), add0);
  EXPECT_FALSE(handles[1]);
  EXPECT_FALSE(handles[2]);
  EXPECT_EQ(handles[3].get(), add1);
  EXPECT_EQ(registry->getNumTrackedOps(), 2u);
}

TEST_F(HandleRegistryTest, IRDestroyedWithoutARewriterEndsItsHandles) {
  Operation *add0 = findTagged(*module, "add0");
  OpHandle nested = registry->getHandle(add0);
  OpHandle function = registry->getHandle(add0->getParentOp());
  OpHandle root = registry->getHandle(module->getOperation());
  registry->eraseNested(module->getOperation());
  module = nullptr;
  for (const OpHandle *handle : {&nested, &function, &root}) {
    EXPECT_EQ(handle->getState(), HandleState::Erased);
    EXPECT_EQ(handle->get(), nullptr);
  }
  EXPECT_NE(nested.describe().find("its IR was destroyed"), std::string::npos)
      << nested.describe();
  EXPECT_EQ(registry->getNumTrackedOps(), 0u);
  // New IR (mostly at the freed addresses) is not taken for the old.
  module = parseModule(context, kTwoAdds);
  OpHandle fresh = registry->getHandle(findTagged(*module, "add0"));
  EXPECT_TRUE(fresh.isLive());
  EXPECT_NE(fresh, nested);
  // Part of a tree, with a reason of the caller's.
  Operation *dead = findTagged(*module, "dead");
  OpHandle deadHandle = registry->getHandle(dead);
  registry->eraseNested(dead, "dropped by the test");
  dead->erase();
  EXPECT_EQ(deadHandle.getState(), HandleState::Erased);
  EXPECT_NE(deadHandle.describe().find("dropped by the test"),
            std::string::npos)
      << deadHandle.describe();
  EXPECT_TRUE(fresh.isLive());
}

TEST(HandleRegistryDeathTest, TrackingAPassManagerOfAnotherContextIsFatal) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  MLIRContext first, second;
  HandleRegistry registry(&first);
  PassManager pm(&second);
  EXPECT_DEATH(enableTracking(pm, registry),
               "the registry belongs to another context");
}

TEST_F(HandleRegistryTest, SameOpGivesEqualHandle) {
  Operation *add0 = findTagged(*module, "add0");
  Operation *add1 = findTagged(*module, "add1");
  OpHandle first = registry->getHandle(add0);
  OpHandle second = registry->getHandle(add0);
  OpHandle other = registry->getHandle(add1);

  EXPECT_TRUE(static_cast<bool>(first));
  EXPECT_EQ(first, second);
  EXPECT_EQ(first.hash(), second.hash());
  EXPECT_EQ(first.getKey(), second.getKey());
  EXPECT_NE(first, other);
  EXPECT_NE(first.getKey(), other.getKey());
  EXPECT_EQ(first.get(), add0);
  EXPECT_EQ(other.get(), add1);
  EXPECT_EQ(registry->lookupHandle(add0), first);
  EXPECT_TRUE(registry->isTracked(add0));
  EXPECT_EQ(registry->getNumTrackedOps(), 2u);
}

TEST_F(HandleRegistryTest, EmptyHandle) {
  OpHandle empty;
  EXPECT_FALSE(static_cast<bool>(empty));
  EXPECT_EQ(empty.get(), nullptr);
  EXPECT_EQ(empty.getState(), HandleState::Erased);
  EXPECT_EQ(empty.describe(), "empty operation handle");
  EXPECT_TRUE(empty.getHistory().empty());
  EXPECT_EQ(empty, OpHandle());
  // An untracked op has no handle.
  Operation *add0 = findTagged(*module, "add0");
  EXPECT_FALSE(static_cast<bool>(registry->lookupHandle(add0)));
  EXPECT_FALSE(registry->isTracked(add0));
}

TEST_F(HandleRegistryTest, StatesAndStrings) {
  EXPECT_EQ(stringifyHandleState(HandleState::Live), "live");
  EXPECT_EQ(stringifyHandleState(HandleState::Erased), "erased");
  EXPECT_EQ(stringifyHandleState(HandleState::Invalidated), "invalidated");

  Operation *add0 = findTagged(*module, "add0");
  OpHandle handle = registry->getHandle(add0);
  EXPECT_EQ(handle.getState(), HandleState::Live);
  EXPECT_TRUE(handle.isLive());
  EXPECT_EQ(handle.getLastName(), "arith.addi");
  EXPECT_NE(handle.getLastLocation().find("input.mlir"), std::string::npos)
      << handle.getLastLocation();
  EXPECT_TRUE(handle.getHistory().empty());
  std::string description = handle.describe();
  EXPECT_NE(description.find("'arith.addi'"), std::string::npos) << description;
  EXPECT_NE(description.find("is live"), std::string::npos) << description;
}

TEST_F(HandleRegistryTest, HistoryAndDescribeAfterTrackedErase) {
  auto func = collectOps<func::FuncOp>(*module).front();
  Operation *dead = findTagged(*module, "dead");
  OpHandle handle = registry->getHandle(dead);
  std::string location = handle.getLastLocation();

  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  {
    ScopedRewriteAttribution attribution("my-pass", func);
    rewriter.eraseOp(dead);
  }

  EXPECT_EQ(handle.getState(), HandleState::Erased);
  EXPECT_FALSE(handle.isLive());
  EXPECT_EQ(handle.get(), nullptr);
  // The name and location stay printable after the op is gone.
  EXPECT_EQ(handle.getLastName(), "arith.addi");
  EXPECT_EQ(handle.getLastLocation(), location);

  std::vector<TrackingEvent> history = handle.getHistory();
  ASSERT_EQ(history.size(), 1u);
  const TrackingEvent &event = history.front();
  EXPECT_EQ(event.kind, TrackingEvent::Kind::Erased);
  EXPECT_EQ(event.pass, "my-pass");
  EXPECT_EQ(event.anchor, "func.func @f");
  EXPECT_EQ(event.anchorKey, func.getOperation());
  EXPECT_EQ(event.op, "arith.addi at " + location);
  EXPECT_EQ(event.recordKey, handle.getKey());
  std::string line = event.str();
  EXPECT_EQ(line.rfind("my-pass on func.func @f: arith.addi at ", 0), 0u)
      << line;
  EXPECT_NE(line.find(": erased"), std::string::npos) << line;

  std::string description = handle.describe();
  EXPECT_NE(description.find("is erased"), std::string::npos) << description;
  EXPECT_NE(description.find("my-pass"), std::string::npos) << description;
  EXPECT_TRUE(registry->verifyAgainst(*module).empty());
  EXPECT_EQ(registry->getNumTrackedOps(), 0u);
}

TEST_F(HandleRegistryTest, EventObserverSeesEvents) {
  std::vector<std::string> seen;
  registry->setEventObserver(
      [&](const TrackingEvent &event) { seen.push_back(event.str()); });
  Operation *dead = findTagged(*module, "dead");
  OpHandle handle = registry->getHandle(dead);
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.eraseOp(dead);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_NE(seen.front().find("erased"), std::string::npos) << seen.front();
}

/// Erases tracked ops through a tracked rewriter and allocates ops of the
/// same kind until one lands at an address freed while a handle still
/// referred to it: that handle must stay erased and the new op must not
/// inherit it. Each fresh op is tracked and erased in turn, so the allocator
/// always has a freed block of the op's size at hand (a single erased op is
/// not enough: another allocation of that size may take its block first).
TEST_F(HandleRegistryTest, ReusedAddressIsNeverConfused) {
  Operation *add0 = findTagged(*module, "add0");
  OpHandle neighbour = registry->getHandle(add0);
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.setInsertionPoint(add0);
  // A detached template to clone from: same op kind, same size.
  Operation *prototype = add0->clone();

  // Handles of erased ops, by the address their op had.
  llvm::DenseMap<const void *, OpHandle> erased;
  auto eraseTracked = [&](Operation *op) {
    OpHandle handle = registry->getHandle(op);
    rewriter.eraseOp(op);
    ASSERT_EQ(handle.getState(), HandleState::Erased);
    erased[op] = handle;
  };
  eraseTracked(findTagged(*module, "dead"));

  bool repeated = false;
  for (int i = 0; i < 1000 && !repeated; ++i) {
    Operation *fresh =
        (i % 2) ? rewriter.clone(*prototype)
                : rewriter.create(
                      prototype->getLoc(), prototype->getName().getIdentifier(),
                      prototype->getOperands(), prototype->getResultTypes(),
                      prototype->getAttrs());
    // Whether or not the address repeated, nothing refers to the new op.
    EXPECT_FALSE(static_cast<bool>(registry->lookupHandle(fresh)));
    EXPECT_FALSE(registry->isTracked(fresh));
    auto old = erased.find(fresh);
    repeated = old != erased.end();
    if (repeated) {
      EXPECT_EQ(old->second.get(), nullptr);
      EXPECT_EQ(old->second.getState(), HandleState::Erased);
      OpHandle renewed = registry->getHandle(fresh);
      EXPECT_NE(renewed, old->second);
      EXPECT_EQ(renewed.get(), fresh);
      EXPECT_TRUE(renewed.getHistory().empty());
      EXPECT_EQ(old->second.get(), nullptr);
      EXPECT_EQ(old->second.getHistory().size(), 1u);
    } else {
      eraseTracked(fresh);
    }
  }
  prototype->destroy();
#ifndef TRACKING_HAS_ASAN
  // The allocator reuses freed blocks of the same size; under
  // AddressSanitizer the quarantine prevents that.
  EXPECT_TRUE(repeated) << "no freed address was reused";
#endif
  for (auto &[address, handle] : erased)
    EXPECT_EQ(handle.getState(), HandleState::Erased);
  EXPECT_EQ(neighbour.get(), add0);
  EXPECT_TRUE(registry->verifyAgainst(*module).empty())
      << joinProblems(registry->verifyAgainst(*module));
}

constexpr llvm::StringLiteral kDuplicates = R"mlir(
func.func @g(%a: i32, %b: i32) -> (i32, i32, i32) {
  %0 = arith.addi %a, %b {tag = "d0"} : i32
  %1 = arith.addi %a, %b {tag = "d1"} : i32
  %2 = arith.addi %a, %b {tag = "d2"} : i32
  return %0, %1, %2 : i32, i32, i32
}
)mlir";

/// Three duplicate additions, for the untracked-op table.
class HandleRegistryUntrackedTest : public ModuleRegistryTest {
protected:
  HandleRegistryUntrackedTest() : ModuleRegistryTest(kDuplicates) {}
};

/// Like CSE: ops are replaced first and erased later. The registry remembers
/// the replaced ops as untracked so that their erasures skip the lock; an op
/// tracked again in between must still see its erasure.
TEST_F(HandleRegistryUntrackedTest, ReplacedOpTrackedAgainSeesItsErase) {
  Operation *d0 = findTagged(*module, "d0");
  Operation *d1 = findTagged(*module, "d1");
  Operation *d2 = findTagged(*module, "d2");
  OpHandle h1 = registry->getHandle(d1);
  OpHandle h2 = registry->getHandle(d2);
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.replaceAllOpUsesWith(d1, d0);
  rewriter.replaceAllOpUsesWith(d2, d0);
  EXPECT_EQ(h1.get(), d0);
  EXPECT_EQ(h2.get(), d0);
  EXPECT_FALSE(registry->isTracked(d1));
  EXPECT_TRUE(registry->verifyAgainst(*module).empty())
      << joinProblems(registry->verifyAgainst(*module));

  // `d1` is still in the IR: a handle to it is a fresh record.
  OpHandle again = registry->getHandle(d1);
  EXPECT_EQ(again.get(), d1);
  EXPECT_NE(again, h1);
  EXPECT_TRUE(registry->verifyAgainst(*module).empty())
      << joinProblems(registry->verifyAgainst(*module));
  rewriter.eraseOp(d1);
  rewriter.eraseOp(d2);
  EXPECT_EQ(again.getState(), HandleState::Erased);
  EXPECT_EQ(again.get(), nullptr);
  ASSERT_EQ(again.getHistory().size(), 1u);
  EXPECT_EQ(again.getHistory().front().kind, TrackingEvent::Kind::Erased);
  // The replaced handles were not touched by the erasures.
  EXPECT_EQ(h1.get(), d0);
  EXPECT_EQ(h2.get(), d0);
  EXPECT_EQ(h1.getHistory().size(), 1u);
  EXPECT_EQ(registry->getNumTrackedOps(), 1u);
  EXPECT_TRUE(registry->verifyAgainst(*module).empty())
      << joinProblems(registry->verifyAgainst(*module));
}

/// A rolled-back dialect conversion frees the ops its patterns made without
/// a notification; their handles end afterwards, by address only. Under
/// AddressSanitizer any read of the freed ops fails this test.
TEST_F(HandleRegistryUntrackedTest, FreedScopeEndsItsHandlesByAddress) {
  Operation *function = findTagged(*module, "d0")->getParentOp();
  OpHandle functionHandle = registry->getHandle(function);
  OpHandle d0 = registry->getHandle(findTagged(*module, "d0"));
  OpHandle d1 = registry->getHandle(findTagged(*module, "d1"));
  function->erase();
  RegistryNotifier(*registry).notifyFreedOperationErased(function, {},
                                                         "rolled back");
  EXPECT_EQ(functionHandle.getState(), HandleState::Erased);
  EXPECT_EQ(d0.getState(), HandleState::Erased);
  EXPECT_EQ(d1.getState(), HandleState::Erased);
  EXPECT_EQ(d0.getHistory().back().reason, "an ancestor was erased");
  EXPECT_EQ(registry->getNumTrackedOps(), 0u);
  EXPECT_TRUE(registry->verifyAgainst(*module).empty())
      << joinProblems(registry->verifyAgainst(*module));
}

/// An address the registry remembers as untracked (replaced, then erased
/// and freed) comes back as a new op that gets a handle: its erasure must
/// reach that handle.
TEST_F(HandleRegistryUntrackedTest, ReusedUntrackedAddressSeesItsErase) {
  Operation *d0 = findTagged(*module, "d0");
  OpHandle target = registry->getHandle(d0);
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.setInsertionPoint(d0);
  Operation *prototype = d0->clone();

  llvm::DenseSet<const void *> freed;
  bool reused = false;
  for (int i = 0; i < 1000 && !reused; ++i) {
    Operation *fresh = rewriter.clone(*prototype);
    reused = freed.contains(fresh);
    OpHandle handle = registry->getHandle(fresh);
    EXPECT_TRUE(handle.getHistory().empty());
    if (reused) {
      // Tracked again at an address noted untracked: erase it directly.
      rewriter.eraseOp(fresh);
      EXPECT_EQ(handle.getState(), HandleState::Erased);
      EXPECT_EQ(handle.get(), nullptr);
      break;
    }
    // Replaced (the handle follows `d0`), then erased: the erase finds the
    // address untracked.
    rewriter.replaceAllOpUsesWith(fresh, d0);
    EXPECT_EQ(handle.get(), d0);
    rewriter.eraseOp(fresh);
    EXPECT_EQ(handle.get(), d0);
    freed.insert(fresh);
  }
  prototype->destroy();
#ifndef TRACKING_HAS_ASAN
  EXPECT_TRUE(reused) << "no freed address was reused";
#endif
  EXPECT_EQ(target.get(), d0);
  EXPECT_EQ(registry->getNumTrackedOps(), 1u);
  EXPECT_TRUE(registry->verifyAgainst(*module).empty())
      << joinProblems(registry->verifyAgainst(*module));
}

/// Each thread notes the ops its notifications left untracked in the table
/// of its own lane. A handle taken on another thread (another lane) must
/// clear the op from every lane: else the first thread's erasure of the op
/// would skip the lock and leave the handle live on a freed op.
TEST_F(HandleRegistryUntrackedTest, TrackedOnAnotherThreadSeesItsErase) {
  Operation *d0 = findTagged(*module, "d0");
  Operation *d1 = findTagged(*module, "d1");
  OpHandle h1 = registry->getHandle(d1);
  unsigned mainLane = tracking::detail::currentLane();
  // Lanes go round robin: make sure the worker's is not this thread's.
  if (tracking::detail::lanes::nextLane.load() % tracking::detail::kNumLanes ==
      mainLane)
    std::thread([] { (void)tracking::detail::currentLane(); }).join();

  std::atomic<int> step{0};
  unsigned workerLane = mainLane;
  std::thread worker([&] {
    workerLane = tracking::detail::currentLane();
    TrackingListener listener({}, registry.get());
    IRRewriter rewriter(&context, &listener);
    // The handle follows `d0`; `d1` is noted untracked in this lane.
    rewriter.replaceAllOpUsesWith(d1, d0);
    step = 1;
    while (step.load() != 2)
      std::this_thread::yield();
    rewriter.eraseOp(d1);
  });
  while (step.load() != 1)
    std::this_thread::yield();
  EXPECT_NE(workerLane, mainLane);
  EXPECT_EQ(h1.get(), d0);
  EXPECT_FALSE(registry->isTracked(d1));
  // Tracked again from this thread.
  OpHandle again = registry->getHandle(d1);
  EXPECT_EQ(again.get(), d1);
  EXPECT_TRUE(registry->verifyAgainst(*module).empty())
      << joinProblems(registry->verifyAgainst(*module));
  step = 2;
  worker.join();

  EXPECT_EQ(again.getState(), HandleState::Erased);
  EXPECT_EQ(again.get(), nullptr);
  EXPECT_EQ(h1.get(), d0);
  EXPECT_EQ(registry->getNumTrackedOps(), 1u);
  EXPECT_TRUE(registry->verifyAgainst(*module).empty())
      << joinProblems(registry->verifyAgainst(*module));
}

TEST_F(HandleRegistryTest, DroppingLastHandleRemovesEntry) {
  Operation *add0 = findTagged(*module, "add0");
  Operation *add1 = findTagged(*module, "add1");
  EXPECT_EQ(registry->getNumTrackedOps(), 0u);
  {
    OpHandle first = registry->getHandle(add0);
    OpHandle copy = first;
    {
      OpHandle other = registry->getHandle(add1);
      EXPECT_EQ(registry->getNumTrackedOps(), 2u);
    }
    EXPECT_EQ(registry->getNumTrackedOps(), 1u);
    EXPECT_FALSE(registry->isTracked(add1));
    first = OpHandle();
    // `copy` still holds the record.
    EXPECT_EQ(registry->getNumTrackedOps(), 1u);
    EXPECT_EQ(registry->lookupHandle(add0), copy);
  }
  EXPECT_EQ(registry->getNumTrackedOps(), 0u);
  EXPECT_FALSE(registry->isTracked(add0));
  EXPECT_FALSE(static_cast<bool>(registry->lookupHandle(add0)));

  // A new handle to the same op is a fresh record.
  OpHandle again = registry->getHandle(add0);
  EXPECT_EQ(again.get(), add0);
  EXPECT_EQ(registry->getNumTrackedOps(), 1u);
}

TEST_F(HandleRegistryTest, ForEachTrackedOpVisitsLiveHandles) {
  Operation *add0 = findTagged(*module, "add0");
  Operation *add1 = findTagged(*module, "add1");
  OpHandle h0 = registry->getHandle(add0);
  OpHandle h1 = registry->getHandle(add1);
  std::vector<Operation *> seen;
  registry->forEachTrackedOp([&](Operation *op) { seen.push_back(op); });
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_TRUE(llvm::is_contained(seen, add0));
  EXPECT_TRUE(llvm::is_contained(seen, add1));
}

TEST_F(HandleRegistryTest, ForEachTrackedOpCallbackMayEraseListedOps) {
  // The callback erases the function (and so the ops listed after it, in
  // whatever order): they must not be passed to it freed.
  OpHandle function = registry->getHandle(
      findTagged(*module, "add0")->getParentOfType<func::FuncOp>());
  OpHandle h0 = registry->getHandle(findTagged(*module, "add0"));
  OpHandle h1 = registry->getHandle(findTagged(*module, "add1"));
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  int calls = 0;
  registry->forEachTrackedOp([&](Operation *op) {
    ++calls;
    // Reads the op: a freed one would be a use after free (ASan).
    if (isa<func::FuncOp>(op)) {
      rewriter.eraseOp(op);
      return;
    }
    // Drops the function if reached first: then it is never listed.
    EXPECT_TRUE(isa<arith::AddIOp>(op));
    if (calls == 1)
      rewriter.eraseOp(function.get());
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(function.getState(), HandleState::Erased);
  EXPECT_EQ(h0.getState(), HandleState::Erased);
  EXPECT_EQ(h1.getState(), HandleState::Erased);
  EXPECT_EQ(registry->getNumTrackedOps(), 0u);
}

TEST_F(HandleRegistryTest, RegistryDestroyedWhileHandlesHeld) {
  Operation *add0 = findTagged(*module, "add0");
  OpHandle handle = registry->getHandle(add0);
  OpHandle moduleHandle = registry->getHandle(*module);
  registry.reset();

  EXPECT_EQ(handle.getState(), HandleState::Erased);
  EXPECT_EQ(handle.get(), nullptr);
  EXPECT_EQ(moduleHandle.get(), nullptr);
  EXPECT_EQ(handle.getLastName(), "arith.addi");
  std::string description = handle.describe();
  EXPECT_NE(description.find("tracking ended"), std::string::npos)
      << description;
  // Copying and dropping handles after the registry is gone is fine.
  OpHandle copy = handle;
  EXPECT_EQ(copy, handle);
  handle = OpHandle();
  EXPECT_EQ(copy.getState(), HandleState::Erased);

  // The IR can go away too; the handles only hold text.
  module = nullptr;
  EXPECT_EQ(copy.getLastName(), "arith.addi");
  EXPECT_EQ(moduleHandle.getLastName(), "builtin.module");

  // A new registry can be created for the same context.
  registry = std::make_unique<HandleRegistry>(&context);
  EXPECT_EQ(registry->getNumTrackedOps(), 0u);
}

/// A context of its own with the two additions and a registry, for handles
/// that outlive all three (which end in the reverse order: the registry
/// before its IR).
struct OwnContext {
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  HandleRegistry registry;
  OwnContext()
      : module((loadTestDialects(context), parseModule(context, kTwoAdds))),
        registry(&context) {}
};

TEST(HandleRegistryStandaloneTest, HandlesOutliveContext) {
  OpHandle handle;
  {
    OwnContext own;
    handle = own.registry.getHandle(findTagged(*own.module, "add1"));
    EXPECT_TRUE(handle.isLive());
  }
  EXPECT_EQ(handle.getState(), HandleState::Erased);
  EXPECT_EQ(handle.get(), nullptr);
  EXPECT_NE(handle.describe().find("'arith.addi'"), std::string::npos);
}

/// Names, locations and events are kept as context-owned pointers while the
/// registry lives and become text when it ends: the whole history must read
/// the same after the registry and the context are gone.
TEST(HandleRegistryStandaloneTest, HistoryOutlivesTheContext) {
  OpHandle handle, merged, function;
  std::string liveDescription;
  std::vector<std::string> liveHistory;
  {
    OwnContext own;
    MLIRContext &context = own.context;
    OwningOpRef<ModuleOp> &module = own.module;
    HandleRegistry &registry = own.registry;
    Operation *add0 = findTagged(*module, "add0");
    Operation *add1 = findTagged(*module, "add1");
    handle = registry.getHandle(add0);
    merged = registry.getHandle(add1);
    // Records keep names by an id of the registry's name table.
    function = registry.getHandle(add0->getParentOp());
    EXPECT_EQ(function.getLastName(), "func.func");

    TrackingListener listener({}, &registry);
    IRRewriter rewriter(&context, &listener);
    rewriter.setInsertionPoint(add0);
    Location newLoc = FileLineColLoc::get(&context, "new.mlir", 7, 3);
    auto replacement = arith::AddIOp::create(
        rewriter, newLoc, add0->getOperand(1), add0->getOperand(0));
    {
      ScopedRewriteAttribution attribution("my-pass", add0->getParentOp());
      rewriter.replaceOp(add0, replacement->getResults());
    }
    EXPECT_EQ(handle.get(), replacement.getOperation());
    EXPECT_EQ(handle.getLastLocation(), "loc(\"new.mlir\":7:3)");
    rewriter.eraseOp(replacement);
    EXPECT_EQ(handle.getState(), HandleState::Erased);
    liveDescription = handle.describe();
    for (const TrackingEvent &event : handle.getHistory())
      liveHistory.push_back(event.str());
  }
  ASSERT_EQ(liveHistory.size(), 2u);
  EXPECT_NE(liveHistory[0].find("my-pass on func.func @f: arith.addi at "
                                "loc("),
            std::string::npos)
      << liveHistory[0];
  EXPECT_NE(liveHistory[0].find("replaced by arith.addi at "
                                "loc(\"new.mlir\":7:3)"),
            std::string::npos)
      << liveHistory[0];
  std::vector<TrackingEvent> history = handle.getHistory();
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[0].str(), liveHistory[0]);
  EXPECT_EQ(history[1].str(), liveHistory[1]);
  EXPECT_EQ(history[0].pass, "my-pass");
  EXPECT_EQ(history[0].anchor, "func.func @f");
  EXPECT_EQ(history[1].kind, TrackingEvent::Kind::Erased);
  EXPECT_EQ(handle.describe(), liveDescription);
  EXPECT_EQ(handle.getLastName(), "arith.addi");
  EXPECT_EQ(handle.getLastLocation(), "loc(\"new.mlir\":7:3)");
  // A handle untouched by rewrites ends with the registry.
  EXPECT_NE(merged.describe().find("tracking ended"), std::string::npos)
      << merged.describe();
  EXPECT_EQ(merged.getLastName(), "arith.addi");
  EXPECT_EQ(function.getLastName(), "func.func");
  EXPECT_EQ(handle.getLastName(), "arith.addi");
}

/// An event keeps the op's and the replacement's names as ids of one table
/// and their locations apart: a replacement by an op of another name, and
/// the erasure of that op, read the same before and after the registry and
/// the context end.
TEST(HandleRegistryStandaloneTest, EventsKeepBothNamesAndLocations) {
  OpHandle handle;
  std::vector<std::string> liveHistory;
  {
    OwnContext own;
    MLIRContext &context = own.context;
    Operation *add0 = findTagged(*own.module, "add0");
    handle = own.registry.getHandle(add0);
    TrackingListenerConfig config;
    config.requireMatchingReplacementOpName = false;
    TrackingListener listener(config, &own.registry);
    IRRewriter rewriter(&context, &listener);
    rewriter.setInsertionPoint(add0);
    auto sub = arith::SubIOp::create(
        rewriter, FileLineColLoc::get(&context, "sub.mlir", 3, 5),
        add0->getOperand(0), add0->getOperand(1));
    auto mul = arith::MulIOp::create(
        rewriter, FileLineColLoc::get(&context, "mul.mlir", 9, 1),
        add0->getOperand(0), add0->getOperand(1));
    rewriter.replaceOp(add0, sub->getResults());
    rewriter.replaceOp(sub, mul->getResults());
    EXPECT_EQ(handle.get(), mul.getOperation());
    EXPECT_EQ(handle.getLastName(), "arith.muli");
    rewriter.eraseOp(mul);
    for (const TrackingEvent &event : handle.getHistory())
      liveHistory.push_back(event.str());
  }
  ASSERT_EQ(liveHistory.size(), 3u);
  EXPECT_NE(liveHistory[0].find("arith.addi at loc("), std::string::npos)
      << liveHistory[0];
  EXPECT_NE(liveHistory[0].find("replaced by arith.subi at "
                                "loc(\"sub.mlir\":3:5)"),
            std::string::npos)
      << liveHistory[0];
  EXPECT_NE(liveHistory[1].find("arith.subi at loc(\"sub.mlir\":3:5): "
                                "replaced by arith.muli at "
                                "loc(\"mul.mlir\":9:1)"),
            std::string::npos)
      << liveHistory[1];
  EXPECT_NE(liveHistory[2].find("arith.muli at loc(\"mul.mlir\":9:1)"),
            std::string::npos)
      << liveHistory[2];
  std::vector<TrackingEvent> history = handle.getHistory();
  ASSERT_EQ(history.size(), 3u);
  for (size_t i = 0; i < history.size(); ++i)
    EXPECT_EQ(history[i].str(), liveHistory[i]);
  EXPECT_EQ(history[0].replacement, "arith.subi at loc(\"sub.mlir\":3:5)");
  EXPECT_TRUE(history[2].replacement.empty());
  EXPECT_EQ(handle.getLastName(), "arith.muli");
}

/// `mayHaveHandlesUnder` may answer true when nothing is tracked (a filter),
/// but never false when a handle lies under the anchor.
TEST_F(HandleRegistryTest, MayHaveHandlesUnderAnchors) {
  Operation *func = findTagged(*module, "add0")->getParentOp();
  EXPECT_FALSE(mayHaveHandlesUnder(func));
  EXPECT_FALSE(mayHaveHandlesUnder(*module));
  {
    OpHandle handle = registry->getHandle(findTagged(*module, "add0"));
    EXPECT_TRUE(mayHaveHandlesUnder(func));
    EXPECT_TRUE(mayHaveHandlesUnder(*module));
  }
  // The last handle went away: nothing is tracked.
  EXPECT_FALSE(mayHaveHandlesUnder(func));
  // Many handles elsewhere (the filter is rebuilt as it grows) never hide
  // the one under `func`.
  std::vector<OwningOpRef<ModuleOp>> others;
  std::vector<OpHandle> handles;
  for (int i = 0; i < 300; ++i) {
    others.push_back(parseModule(context, kTwoAdds));
    others.back()->walk(
        [&](Operation *op) { handles.push_back(registry->getHandle(op)); });
  }
  OpHandle handle = registry->getHandle(findTagged(*module, "dead"));
  EXPECT_TRUE(mayHaveHandlesUnder(func));
  for (OwningOpRef<ModuleOp> &other : others)
    EXPECT_TRUE(mayHaveHandlesUnder(*other));
  registry.reset();
  EXPECT_FALSE(mayHaveHandlesUnder(func));
  handles.clear();
}

TEST_F(HandleRegistryTest, VerifyAgainstIsCleanForUntouchedIR) {
  std::vector<OpHandle> handles;
  module->walk(
      [&](Operation *op) { handles.push_back(registry->getHandle(op)); });
  EXPECT_EQ(registry->getNumTrackedOps(), handles.size());
  std::vector<std::string> problems = registry->verifyAgainst(*module);
  EXPECT_TRUE(problems.empty()) << joinProblems(problems);
}

/// Erasing an op behind the registry's back leaves a stale entry; the checker
/// must report it (this is what the other tests rely on).
TEST_F(HandleRegistryTest, VerifyAgainstReportsUnnotifiedErase) {
  Operation *dead = findTagged(*module, "dead");
  OpHandle handle = registry->getHandle(dead);
  OpHandle other = registry->getHandle(findTagged(*module, "add0"));
  ASSERT_TRUE(registry->verifyAgainst(*module).empty());

  dead->erase(); // No listener: the registry is not told.

  std::vector<std::string> problems = registry->verifyAgainst(*module);
  ASSERT_EQ(problems.size(), 1u) << joinProblems(problems);
  EXPECT_NE(problems.front().find("not in the IR"), std::string::npos)
      << problems.front();
  EXPECT_NE(problems.front().find("arith.addi"), std::string::npos)
      << problems.front();
}

/// A handle whose op was moved out of `root` is also reported: verifyAgainst
/// only accepts ops nested in the root it is given.
TEST_F(HandleRegistryTest, VerifyAgainstReportsOpsOutsideRoot) {
  auto func = collectOps<func::FuncOp>(*module).front();
  OpHandle moduleHandle = registry->getHandle(*module);
  EXPECT_TRUE(registry->verifyAgainst(*module).empty());
  std::vector<std::string> problems = registry->verifyAgainst(func);
  EXPECT_EQ(problems.size(), 1u) << joinProblems(problems);
}

} // namespace

//===----------------------------------------------------------------------===//
// Regressions (issue 7)
//===----------------------------------------------------------------------===//

namespace {

/// The observer runs after the registry lock is released: it may use
/// handles and the registry (it used to deadlock).
TEST_F(HandleRegistryTest, EventObserverMayUseHandlesAndTheRegistry) {
  Operation *dead = findTagged(*module, "dead");
  Operation *add0 = findTagged(*module, "add0");
  OpHandle handle = registry->getHandle(dead);
  OpHandle other = registry->getHandle(add0);
  std::vector<std::string> seen;
  registry->setEventObserver([&](const TrackingEvent &event) {
    seen.push_back(handle.describe());
    EXPECT_EQ(handle.getState(), HandleState::Erased);
    EXPECT_EQ(handle.get(), nullptr);
    EXPECT_EQ(registry->lookupHandle(add0), other);
    EXPECT_TRUE(registry->isTracked(add0));
    // Even taking a new handle is fine.
    EXPECT_TRUE(registry->getHandle(add0).isLive());
  });
  TrackingListener listener({}, registry.get());
  IRRewriter rewriter(&context, &listener);
  rewriter.eraseOp(dead);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_NE(seen.front().find("is erased"), std::string::npos) << seen.front();
  // The observer may also be replaced or removed from within itself.
  registry->setEventObserver([&](const TrackingEvent &) {
    registry->setEventObserver(nullptr);
    seen.push_back("once");
  });
  OpHandle add1 = registry->getHandle(findTagged(*module, "add1"));
  rewriter.replaceOp(findTagged(*module, "add1"), add0->getResults());
  EXPECT_EQ(seen.back(), "once");
  EXPECT_EQ(seen.size(), 2u);
}

/// Builds `count` constants in a fresh module and a handle for each.
struct ConstantChain {
  ConstantChain(MLIRContext &context, HandleRegistry &registry, int count)
      : module(ModuleOp::create(UnknownLoc::get(&context))) {
    OpBuilder builder(&context);
    builder.setInsertionPointToEnd(module->getBody());
    Location loc = UnknownLoc::get(&context);
    ops.reserve(count);
    handles.reserve(count);
    for (int i = 0; i < count; ++i) {
      ops.push_back(arith::ConstantIntOp::create(builder, loc, i, 32));
      handles.push_back(registry.getHandle(ops.back()));
    }
  }
  /// Replaces op i by op i + 1 for every i: each handle merges into the
  /// next, so the first one ends at the end of a chain of `count - 1`.
  void mergeAll(MLIRContext &context) {
    IRRewriter rewriter(&context, getTrackingListener());
    for (size_t i = 0; i + 1 < ops.size(); ++i)
      rewriter.replaceOp(ops[i], ops[i + 1]);
  }
  OwningOpRef<ModuleOp> module;
  std::vector<Operation *> ops;
  std::vector<OpHandle> handles;
};

constexpr int kChainLength = 300000;

/// Hundreds of thousands of merges onto one handle: accessing the first
/// handle must not walk the chain every time, and the records in between
/// can go once the path is compressed.
/// The bits of the registry's lock-free filter per tracked op.
double filterBitsPerTrackedOp(HandleRegistry &registry) {
  const tracking::detail::OpFilter *filter =
      RegistryNotifier(registry).getLockFreeKeys().filter.load();
  return filter ? double(size_t(1) << filter->getLog2Bits()) /
                      double(registry.getNumTrackedOps())
                : 0;
}

TEST(HandleRegistryFilterTest, SmallRegistriesKeepManyBitsPerKey) {
  // Below 4,096 keys the filter keeps 64 bits a key or more (sized for 128
  // to 256), so that the runs of addresses it overlays are long enough for
  // the heap of a module.
  MLIRContext context;
  loadTestDialects(context);
  std::string text = "func.func @f(%a: i32) {\n";
  for (int i = 0; i < 5000; ++i)
    text += "  %v" + std::to_string(i) + " = arith.addi %a, %a : i32\n";
  text += "  return\n}\n";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(module);
  std::vector<Operation *> ops;
  module->walk([&](arith::AddIOp op) { ops.push_back(op); });
  {
    // One handle at a time.
    HandleRegistry registry(&context);
    std::vector<OpHandle> handles;
    for (size_t i = 0; i < ops.size(); ++i) {
      handles.push_back(registry.getHandle(ops[i]));
      // 16 bits a key at least above (the floor of 2^20 bits applies when
      // the filter is rebuilt).
      ASSERT_GE(filterBitsPerTrackedOp(registry), i + 1 < 4000 ? 64.0 : 16.0)
          << "at " << i;
    }
  }
  {
    // A batch is sized for at once.
    HandleRegistry registry(&context);
    std::vector<OpHandle> handles =
        registry.getHandles(ArrayRef<Operation *>(ops).take_front(2000));
    EXPECT_GE(filterBitsPerTrackedOp(registry), 128.0);
  }
}

/// Constants in a fresh module, without handles.
struct ConstantOps {
  ConstantOps(MLIRContext &context, int count)
      : module(ModuleOp::create(UnknownLoc::get(&context))) {
    OpBuilder builder(&context);
    builder.setInsertionPointToEnd(module->getBody());
    Location loc = UnknownLoc::get(&context);
    ops.reserve(count);
    for (int i = 0; i < count; ++i)
      ops.push_back(arith::ConstantIntOp::create(builder, loc, i, 32));
  }
  OwningOpRef<ModuleOp> module;
  std::vector<Operation *> ops;
};

TEST(HandleRegistryFilterTest, LargeRegistriesKeep16To32BitsPerKey) {
  // From the floor on, a filter is rebuilt below 16 bits a key to twice
  // its size: 2 to 4 bytes a handle (sized for 32 to 64 bits a key before,
  // it quadrupled: 8 bytes a handle just after). Only the current filter
  // is counted in the registry's mappings: the ones it replaced gave their
  // pages back.
  MLIRContext context;
  loadTestDialects(context);
  ConstantOps constants(context, 40000);
  HandleRegistry registry(&context);
  std::vector<OpHandle> handles;
  for (size_t i = 0; i < constants.ops.size(); ++i) {
    handles.push_back(registry.getHandle(constants.ops[i]));
    if (i + 1 < 16384)
      continue;
    double bits = filterBitsPerTrackedOp(registry);
    ASSERT_GE(bits, 15.9) << "at " << i;
    ASSERT_LE(bits, 32.1) << "at " << i;
    if (i % 4096 == 0) {
      const tracking::detail::OpFilter *filter =
          RegistryNotifier(registry).getLockFreeKeys().filter.load();
      // The current filter, besides the record chunks past the first
      // ordinary ones (from slabs); no filter it replaced.
      using tracking::detail::PageArena;
      using tracking::detail::RecordChunk;
      size_t chunks = (i + RecordChunk::kRecords) / RecordChunk::kRecords;
      size_t ordinaryChunks =
          PageArena::kOrdinaryFirstBytes / RecordChunk::kBytes;
      EXPECT_EQ(registry.getMappedBytes(),
                (size_t(1) << filter->getLog2Bits()) / 8 +
                    (chunks - ordinaryChunks) * RecordChunk::kBytes)
          << "at " << i;
    }
  }
}

/// Readers on other threads test the lock-free filter (and keep a filter
/// they loaded a while) as handles are taken one at a time on this one,
/// rebuilding and retiring filters: an op held before the readers started
/// is never ruled out, by the current filter or a retired one, and a
/// retired filter's words stay readable (ASan and UBSan see the reads).
TEST(HandleRegistryFilterTest, RetiredFiltersStaySafeForReaders) {
  MLIRContext context;
  loadTestDialects(context);
  ConstantOps constants(context, 40000);
  HandleRegistry registry(&context);
  constexpr size_t kHeldFirst = 64;
  std::vector<OpHandle> handles;
  for (size_t i = 0; i < kHeldFirst; ++i)
    handles.push_back(registry.getHandle(constants.ops[i]));
  const tracking::detail::LockFreeKeys &keys =
      RegistryNotifier(registry).getLockFreeKeys();
  std::atomic<bool> done{false};
  std::atomic<size_t> ruledOut{0}, heldFilters{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&, t] {
      while (!done.load(std::memory_order_acquire)) {
        // A filter kept across a pause, as a reader preempted in a test.
        const tracking::detail::OpFilter *kept = keys.filter.load();
        std::this_thread::yield();
        for (size_t i = t; i < kHeldFirst; i += 2) {
          if (!kept->test(constants.ops[i]) ||
              !keys.mayHaveKey(constants.ops[i]) ||
              !RegistryNotifier(registry).mayBeTracked(constants.ops[i]))
            ruledOut.fetch_add(1);
        }
        if (kept != keys.filter.load())
          heldFilters.fetch_add(1);
      }
    });
  }
  for (size_t i = kHeldFirst; i < constants.ops.size(); ++i) {
    handles.push_back(registry.getHandle(constants.ops[i]));
    if (i % 1024 == 0)
      std::this_thread::yield();
  }
  done.store(true, std::memory_order_release);
  for (std::thread &reader : readers)
    reader.join();
  EXPECT_EQ(ruledOut.load(), 0u);
  for (Operation *op : constants.ops)
    EXPECT_TRUE(keys.mayHaveKey(op));
  // Whether a reader kept a filter through its retirement depends on the
  // scheduling; report it, assert nothing.
  RecordProperty("kept_filters_replaced", int(heldFilters.load()));
}

TEST(HandleMergeChainTest, AccessAfterManyMerges) {
  MLIRContext context;
  loadTestDialects(context);
  HandleRegistry registry(&context);
  ConstantChain chain(context, registry, kChainLength);
  chain.mergeAll(context);
  OpHandle first = chain.handles.front();
  OpHandle last = chain.handles.back();
  OpHandle middle = chain.handles[kChainLength / 2];
  chain.handles.clear();

  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(first.get(), chain.ops.back());
    EXPECT_EQ(first.getState(), HandleState::Live);
    EXPECT_EQ(first, last);
    EXPECT_EQ(middle, last);
    EXPECT_EQ(first.hash(), last.hash());
  }
  // The history stays bounded and ends with the merge of the first handle's
  // whole chain; the last handle never changed.
  std::vector<TrackingEvent> history = first.getHistory();
  EXPECT_FALSE(history.empty());
  EXPECT_LE(history.size(), 64u);
  EXPECT_EQ(history.front().kind, TrackingEvent::Kind::Replaced);
  EXPECT_TRUE(last.getHistory().empty());
  EXPECT_EQ(registry.getNumTrackedOps(), 1u);
  EXPECT_TRUE(registry.verifyAgainst(*chain.module).empty());
}

/// Compressing a long chain whose records in between no handle holds (a
/// pattern replacing an op many times, each replacement's handle dropped)
/// frees their histories as it goes: each took over up to 32 events on the
/// way, and held until the access ended they took 1 KiB a record.
TEST(HandleMergeChainTest, CompressingAChainHoldsNoHistoryPerRecord) {
  MLIRContext context;
  loadTestDialects(context);
  HandleRegistry registry(&context);
  constexpr int kLength = 100000;
  ConstantChain chain(context, registry, kLength);
  chain.mergeAll(context);
  OpHandle first = chain.handles.front();
  chain.handles.clear();
  size_t before = registry.getMappedBytes();
  EXPECT_EQ(first.get(), chain.ops.back());
  // 100 MB when every record's history lived to the end of the access.
  EXPECT_LT(registry.getMappedBytes() - before, size_t(8) << 20);
  EXPECT_EQ(first.getHistory().size(), 32u);
  EXPECT_EQ(registry.getNumTrackedOps(), 1u);
}

/// A context that compiles module after module makes a source (and its
/// causes) per pass execution that changed a tracked op: with no record
/// left to name them, the log forgets them, and a source that remembers a
/// cause from before interns it anew.
TEST(HandleMergeChainTest, SourcesOfModulesGoneAreForgotten) {
  MLIRContext context;
  loadTestDialects(context);
  HandleRegistry registry(&context);
  RegistryNotifier notifier(registry);
  int passKey = 0;
  tracking::detail::EventSource kept;
  kept.pass = "kept-pass";
  kept.passKey = &passKey;
  std::vector<int> anchors(100 * 100);
  size_t most = 0;
  for (int round = 0; round < 100; ++round) {
    ConstantChain module(context, registry, 100);
    for (size_t i = 0; i < module.ops.size(); ++i) {
      Operation *op = module.ops[i];
      // One pass execution per op, its anchor new (as a new function is;
      // these ops take the addresses of the last round's).
      tracking::detail::EventSource source;
      source.pass = "p";
      source.passKey = &passKey;
      source.anchorKey = &anchors[round * 100 + i];
      notifier.notifyOperationErased(op, i == 0 ? kept : source, "gone");
    }
    if (round == 99) {
      std::vector<TrackingEvent> history = module.handles[0].getHistory();
      ASSERT_EQ(history.size(), 1u);
      EXPECT_EQ(history[0].pass, "kept-pass");
      EXPECT_EQ(history[0].reason, "gone");
    }
    most = std::max(most, notifier.getNumEventSources());
  }
  // 9,901 sources when the log kept them all.
  EXPECT_LE(most, tracking::detail::EventLog::kForgetSourcesAt + 100);
}

/// The same with one handle kept across every module (a generator holding
/// a handle into a long-lived module): the log collects the sources and
/// causes no history names as they pile up, and the kept handle's history
/// still reads right.
TEST(HandleMergeChainTest, SourcesOfModulesGoneAreCollectedWhileAHandleLives) {
  MLIRContext context;
  loadTestDialects(context);
  HandleRegistry registry(&context);
  RegistryNotifier notifier(registry);
  int passKey = 0;
  ConstantChain keeper(context, registry, 1);
  OpHandle kept = keeper.handles[0];
  {
    tracking::detail::EventSource first;
    first.pass = "kept-pass";
    first.pattern = "kept-pattern";
    first.passKey = &passKey;
    first.anchor = "func.func @kept";
    notifier.notifyOperationErased(keeper.ops[0], first, "kept-reason");
  }
  std::vector<int> anchors(100 * 100);
  size_t most = 0;
  for (int round = 0; round < 100; ++round) {
    ConstantChain module(context, registry, 100);
    for (size_t i = 0; i < module.ops.size(); ++i) {
      tracking::detail::EventSource source;
      source.pass = "p";
      source.passKey = &passKey;
      source.anchorKey = &anchors[round * 100 + i];
      notifier.notifyOperationErased(module.ops[i], source, "gone");
    }
    most = std::max(most, notifier.getNumEventSources());
  }
  // 10,001 sources when the log kept them all while a handle lived.
  EXPECT_LE(most, tracking::detail::EventLog::kForgetSourcesAt + 100);
  std::vector<TrackingEvent> history = kept.getHistory();
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0].pass, "kept-pass");
  EXPECT_EQ(history[0].passKey, &passKey);
  EXPECT_EQ(history[0].anchor, "func.func @kept");
  EXPECT_EQ(history[0].pattern, "kept-pattern");
  EXPECT_EQ(history[0].reason, "kept-reason");
}

/// Collections renumber the causes of every history: handles kept from
/// rounds long gone, merged chains (whose members read the root's events)
/// and a source cached across collections (as a listener caches one per
/// pattern) all still name their own pass, anchor, pattern and reason,
/// though the anchors' addresses are reused by every round.
TEST(HandleMergeChainTest, HistoriesReadRightAfterCollections) {
  MLIRContext context;
  loadTestDialects(context);
  HandleRegistry registry(&context);
  RegistryNotifier notifier(registry);
  int passKey = 0;
  // Reused by every round, as a new function takes the old one's address.
  std::vector<int> anchors(200);
  tracking::detail::EventSource cached;
  cached.pass = "cached-pass";
  cached.pattern = "cached-pattern";
  cached.passKey = &passKey;
  cached.anchor = "cached-anchor";
  struct Expected {
    OpHandle handle;
    std::vector<std::string> texts;
  };
  std::vector<Expected> expected;
  constexpr int kRounds = 120;
  size_t most = 0;
  for (int round = 0; round < kRounds; ++round) {
    // Freed at the end of the round: the next round's ops take its ops'
    // addresses.
    auto module = std::make_unique<ConstantChain>(context, registry, 200);
    auto sourceOf = [&](size_t i) {
      tracking::detail::EventSource source;
      source.pass = "pass-" + std::to_string(round % 3);
      source.passKey = &passKey;
      source.anchorKey = &anchors[i];
      source.anchor =
          "func.func @r" + std::to_string(round) + "_" + std::to_string(i);
      source.pattern = "pattern-" + std::to_string(i % 5);
      return source;
    };
    // Ops 0..9 merge into op 10 (a chain of 10): every one keeps its own
    // replacement event and reads op 10's later events through it.
    for (size_t i = 0; i < 10; ++i)
      notifier.notifyOperationReplaced(module->ops[i], module->ops[i + 1],
                                       sourceOf(i));
    for (size_t i = 10; i < module->ops.size(); ++i) {
      const tracking::detail::EventSource source = sourceOf(i);
      std::string reason = "reason-" + std::to_string(i % 7);
      notifier.notifyOperationErased(module->ops[i], i == 150 ? cached : source,
                                     StringRef(reason));
    }
    bool keep = round % 10 == 3;
    if (keep) {
      for (size_t i :
           {size_t(0), size_t(9), size_t(10), size_t(150), size_t(199)}) {
        std::vector<std::string> texts;
        for (const TrackingEvent &event : module->handles[i].getHistory())
          texts.push_back(event.pass + "|" + event.anchor + "|" +
                          event.pattern + "|" + event.reason);
        ASSERT_FALSE(texts.empty());
        // The op's own last event (for the chain, op 10's erasure).
        size_t last = std::max<size_t>(i, 10);
        EXPECT_EQ(texts.back(),
                  last == 150
                      ? "cached-pass|cached-anchor|cached-pattern|"
                        "reason-3"
                      : sourceOf(last).pass + "|" + sourceOf(last).anchor +
                            "|" + sourceOf(last).pattern + "|reason-" +
                            std::to_string(last % 7))
            << "round " << round << ", op " << i;
        expected.push_back({module->handles[i], std::move(texts)});
      }
    }
    most = std::max(most, notifier.getNumEventSources());
  }
  // 120 rounds of 200 sources: 24,000 (and the causes) kept without
  // collections.
  EXPECT_LE(most, tracking::detail::EventLog::kForgetSourcesAt + 200);
  ASSERT_EQ(expected.size(), 60u);
  for (const Expected &each : expected) {
    std::vector<std::string> texts;
    for (const TrackingEvent &event : each.handle.getHistory())
      texts.push_back(event.pass + "|" + event.anchor + "|" + event.pattern +
                      "|" + event.reason);
    EXPECT_EQ(texts, each.texts);
  }
  // Spot checks of what the texts hold.
  std::vector<TrackingEvent> chain = expected[0].handle.getHistory();
  ASSERT_EQ(chain.size(), 11u);
  EXPECT_EQ(chain[0].pass, "pass-0");
  EXPECT_EQ(chain[0].anchor, "func.func @r3_0");
  EXPECT_EQ(chain[0].anchorKey, &anchors[0]);
  EXPECT_EQ(chain[0].pattern, "pattern-0");
  EXPECT_EQ(chain[9].anchor, "func.func @r3_9");
  EXPECT_EQ(chain[10].anchor, "func.func @r3_10");
  EXPECT_EQ(chain[10].reason, "reason-3");
  std::vector<TrackingEvent> fromCached = expected.back().handle.getHistory();
  ASSERT_EQ(fromCached.size(), 1u);
  EXPECT_EQ(expected[3].handle.getHistory()[0].pass, "cached-pass");
  EXPECT_EQ(expected[3].handle.getHistory()[0].pattern, "cached-pattern");
  EXPECT_EQ(expected[3].handle.getHistory()[0].anchor, "cached-anchor");
  EXPECT_EQ(expected[3].handle.getHistory()[0].reason, "reason-3");
  EXPECT_EQ(fromCached[0].anchor, "func.func @r113_199");
}

/// The same through tracked pipelines (canonicalize and cse, functions on
/// the context's threads, the listeners' sources cached per pattern and
/// their changes queued in batches): one pass manager compiles module after
/// module, each function new (its address reused, its name not), while one
/// handle lives; histories read after the collections name the function
/// they happened in.
TEST(HandleMergeChainTest, TrackedPipelinesCollectWhileAHandleLives) {
  MLIRContext context;
  loadTestDialects(context);
  HandleRegistry registry(&context);
  RegistryNotifier notifier(registry);
  OwningOpRef<ModuleOp> keeper = parseModule(
      context, "func.func @keep(%a: i32) -> i32 { return %a : i32 }");
  OpHandle kept = registry.getHandle(&*keeper->getBody()->begin());
  PassManager pm(&context);
  enableTracking(pm, registry);
  OpPassManager &functions = pm.nest<func::FuncOp>();
  functions.addPass(createTrackedCanonicalizerPass());
  functions.addPass(createTrackedCSEPass());
  struct Expected {
    OpHandle handle;
    std::string suffix;
    std::vector<std::string> texts;
  };
  std::vector<Expected> expected;
  auto textsOf = [](const OpHandle &handle) {
    std::vector<std::string> texts;
    for (const TrackingEvent &event : handle.getHistory())
      texts.push_back(event.pass + "|" + event.anchor + "|" + event.pattern +
                      "|" + event.reason);
    return texts;
  };
  size_t most = 0;
  for (int round = 0; round < 40; ++round) {
    std::string suffix = "_r" + std::to_string(round);
    std::string text;
    for (int f = 0; f < 100; ++f)
      text += "func.func @f" + std::to_string(f) + suffix +
              "(%a: i32, %b: i32) -> i32 {\n"
              "  %c0 = arith.constant 0 : i32\n"
              "  %c1 = arith.constant 1 : i32\n"
              "  %c1b = arith.constant 1 : i32\n"
              "  %x = arith.addi %a, %c0 : i32\n"
              "  %m = arith.muli %x, %b : i32\n"
              "  %m2 = arith.muli %x, %b : i32\n"
              "  %s = arith.addi %c1, %c1b : i32\n"
              "  %r = arith.addi %m, %m2 : i32\n"
              "  %t = arith.addi %r, %s : i32\n"
              "  return %t : i32\n}\n";
    OwningOpRef<ModuleOp> module = parseModule(context, text);
    std::vector<OpHandle> handles;
    module->walk([&](Operation *op) {
      if (op != module->getOperation())
        handles.push_back(registry.getHandle(op));
    });
    ASSERT_TRUE(succeeded(pm.run(*module)));
    most = std::max(most, notifier.getNumEventSources());
    // Else the handles left would answer for the next module's ops at the
    // same addresses.
    registry.eraseNested(module.get());
    if (round % 8 != 5)
      continue;
    for (const OpHandle &handle : handles) {
      std::vector<std::string> texts = textsOf(handle);
      ASSERT_FALSE(texts.empty());
      // Every event but the last (the module's end) comes from a pass run
      // on a function of this module.
      for (size_t i = 0; i + 1 < texts.size(); ++i)
        EXPECT_NE(texts[i].find(suffix + "|"), std::string::npos) << texts[i];
      if (texts.size() > 1)
        expected.push_back({handle, suffix, std::move(texts)});
    }
  }
  // About 200 sources a module, 8,000 when the log kept them all.
  EXPECT_LE(most, tracking::detail::EventLog::kForgetSourcesAt + 400);
  ASSERT_GT(expected.size(), 1000u);
  for (const Expected &each : expected)
    EXPECT_EQ(textsOf(each.handle), each.texts) << each.suffix;
  EXPECT_TRUE(kept.get());
}

/// Threads compiling modules (each its own, with new anchors) while another
/// reads the histories of kept handles and drops them: collections come in
/// the middle of it all, and every history read names its own source.
TEST(HandleMergeChainTest, CollectionsUnderThreads) {
  MLIRContext context;
  loadTestDialects(context);
  HandleRegistry registry(&context);
  RegistryNotifier notifier(registry);
  int passKey = 0;
  std::mutex mutex;
  std::vector<std::pair<OpHandle, std::string>> kept;
  std::atomic<int> writersLeft{2};
  std::atomic<size_t> wrong{0}, read{0};
  // The reader's passes over a non-empty snapshot: a writer waits for them
  // to keep up, so that reads interleave with the writes on any host.
  std::atomic<int> readerPasses{0};
  auto text = [](const TrackingEvent &event) {
    return event.pass + "|" + event.anchor + "|" + event.reason;
  };
  auto writer = [&](int thread) {
    std::vector<int> anchors(100);
    for (int round = 0; round < 60; ++round) {
      while (readerPasses.load() < round / 2)
        std::this_thread::yield();
      ConstantChain module(context, registry, 100);
      for (size_t i = 0; i < module.ops.size(); ++i) {
        tracking::detail::EventSource source;
        source.pass = "pass-" + std::to_string(thread);
        source.passKey = &passKey;
        source.anchorKey = &anchors[i];
        source.anchor = "@t" + std::to_string(thread) + "_" +
                        std::to_string(round) + "_" + std::to_string(i);
        std::string reason = "r" + std::to_string(i);
        notifier.notifyOperationErased(module.ops[i], source,
                                       StringRef(reason));
      }
      std::lock_guard<std::mutex> guard(mutex);
      for (size_t i = 0; i < module.ops.size(); i += 25)
        kept.push_back({module.handles[i], "pass-" + std::to_string(thread) +
                                               "|@t" + std::to_string(thread) +
                                               "_" + std::to_string(round) +
                                               "_" + std::to_string(i) + "|r" +
                                               std::to_string(i)});
    }
    --writersLeft;
  };
  std::thread first(writer, 0), second(writer, 1);
  size_t most = 0;
  while (writersLeft.load() > 0) {
    std::vector<std::pair<OpHandle, std::string>> snapshot;
    {
      std::lock_guard<std::mutex> guard(mutex);
      snapshot = kept;
      // Drop half of them, the oldest.
      if (kept.size() > 40)
        kept.erase(kept.begin(), kept.begin() + kept.size() / 2);
    }
    for (const auto &[handle, expected] : snapshot) {
      std::vector<TrackingEvent> history = handle.getHistory();
      ++read;
      if (history.size() != 1 || text(history[0]) != expected)
        ++wrong;
    }
    most = std::max(most, notifier.getNumEventSources());
    if (!snapshot.empty())
      ++readerPasses;
  }
  first.join();
  second.join();
  for (const auto &[handle, expected] : kept) {
    std::vector<TrackingEvent> history = handle.getHistory();
    ASSERT_EQ(history.size(), 1u);
    EXPECT_EQ(text(history[0]), expected);
  }
  EXPECT_GT(read.load(), 0u);
  EXPECT_EQ(wrong.load(), 0u);
  // 12,000 sources without collections.
  EXPECT_LE(most, tracking::detail::EventLog::kForgetSourcesAt + 200);
}

/// Dropping the only handle to the start of a 300k-long chain releases the
/// whole chain without recursing (it used to overflow the stack).
TEST(HandleMergeChainTest, DroppingTheStartOfALongChain) {
  MLIRContext context;
  loadTestDialects(context);
  HandleRegistry registry(&context);
  ConstantChain chain(context, registry, kChainLength);
  chain.mergeAll(context);
  OpHandle first = chain.handles.front();
  // Release every handle but the first, from the end of the chain: each
  // record stays alive only through its predecessor.
  while (chain.handles.size() > 1)
    chain.handles.pop_back();
  chain.handles.clear();
  EXPECT_EQ(registry.getNumTrackedOps(), 1u);
  first = OpHandle();
  EXPECT_EQ(registry.getNumTrackedOps(), 0u);
  EXPECT_TRUE(registry.verifyAgainst(*chain.module).empty());
}

/// Merges arriving in the other order (each new handle merging into the
/// first) form a star, the history of each handle its own.
TEST(HandleMergeChainTest, ManyMergesIntoOneHandle) {
  MLIRContext context;
  loadTestDialects(context);
  HandleRegistry registry(&context);
  ConstantChain chain(context, registry, 1000);
  IRRewriter rewriter(&context, getTrackingListener());
  for (size_t i = 1; i < chain.ops.size(); ++i)
    rewriter.replaceOp(chain.ops[i], chain.ops[0]);
  for (const OpHandle &handle : chain.handles) {
    EXPECT_EQ(handle, chain.handles.front());
    EXPECT_EQ(handle.get(), chain.ops.front());
  }
  EXPECT_TRUE(chain.handles.front().getHistory().empty());
  EXPECT_EQ(chain.handles.back().getHistory().size(), 1u);
}

/// Path compression keeps every event a handle saw: merged twice, the first
/// handle's history holds its own merge, the next record's merge and the
/// erasure of the op they all ended on.
TEST(HandleMergeChainTest, CompressionKeepsHistory) {
  MLIRContext context;
  loadTestDialects(context);
  HandleRegistry registry(&context);
  ConstantChain chain(context, registry, 4);
  chain.mergeAll(context);
  OpHandle first = chain.handles[0];
  OpHandle second = chain.handles[1];
  chain.handles.erase(chain.handles.begin() + 1, chain.handles.end());
  IRRewriter rewriter(&context, getTrackingListener());
  rewriter.eraseOp(chain.ops.back());
  for (int i = 0; i < 2; ++i) {
    std::vector<TrackingEvent> history = first.getHistory();
    ASSERT_EQ(history.size(), 4u);
    EXPECT_EQ(history[0].kind, TrackingEvent::Kind::Replaced);
    EXPECT_EQ(history[1].kind, TrackingEvent::Kind::Replaced);
    EXPECT_EQ(history[2].kind, TrackingEvent::Kind::Replaced);
    EXPECT_EQ(history[3].kind, TrackingEvent::Kind::Erased);
    EXPECT_EQ(second.getHistory().size(), 3u);
    EXPECT_EQ(first.getState(), HandleState::Erased);
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// A handle following its op's replacement keeps or changes its scope
//===----------------------------------------------------------------------===//

constexpr llvm::StringLiteral kTwoFunctions = R"mlir(
func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a {tag = "f0"} : i32
  %1 = arith.muli %0, %a {tag = "f1"} : i32
  return %1 : i32
}
func.func @g(%a: i32) -> i32 {
  %0 = arith.addi %a, %a {tag = "g0"} : i32
  return %0 : i32
}
)mlir";

class HandleRegistryRemapTest : public ModuleRegistryTest {
protected:
  HandleRegistryRemapTest() : ModuleRegistryTest(kTwoFunctions) {}
  void expectConsistent() {
    std::vector<std::string> problems = registry->verifyAgainst(*module);
    EXPECT_TRUE(problems.empty()) << joinProblems(problems);
  }
};

/// A replacement in the scope of the replaced op keeps the record's place
/// in that scope's list; one in another scope moves it there. Either way
/// the scope index says where the handle is: invalidating one function's
/// nested handles reaches exactly the handles now in it.
TEST_F(HandleRegistryRemapTest, ReplacementInSameOrOtherScope) {
  Operation *f0 = findTagged(*module, "f0");
  Operation *f1 = findTagged(*module, "f1");
  Operation *g0 = findTagged(*module, "g0");
  OpHandle h0 = registry->getHandle(f0);
  OpHandle h1 = registry->getHandle(f1);
  RegistryNotifier notifier(*registry);
  // A fresh op in @f replaces f0: same scope.
  OpBuilder builder(f0);
  Operation *fresh = f0->clone();
  builder.insert(fresh);
  notifier.notifyOperationReplaced(f0, fresh, tracking::detail::EventSource());
  EXPECT_EQ(h0.get(), fresh);
  EXPECT_FALSE(registry->isTracked(f0));
  f0->replaceAllUsesWith(fresh);
  f0->erase();
  expectConsistent();
  // g0 (untracked, in @g) replaces f1: the handle moves to @g's scope.
  notifier.notifyOperationReplaced(f1, g0, tracking::detail::EventSource());
  EXPECT_EQ(h1.get(), g0);
  expectConsistent();
  auto g = module->lookupSymbol<func::FuncOp>("g");
  auto f = module->lookupSymbol<func::FuncOp>("f");
  EXPECT_EQ(notifier.invalidateNested(g, {}, "test"), 1u);
  EXPECT_EQ(h1.getState(), HandleState::Invalidated);
  EXPECT_EQ(h0.getState(), HandleState::Live);
  EXPECT_EQ(notifier.invalidateNested(f, {}, "test"), 1u);
  EXPECT_EQ(h0.getState(), HandleState::Invalidated);
  EXPECT_EQ(registry->getNumTrackedOps(), 0u);
  expectConsistent();
}

/// A source reused for many events remembers the cause it interned last
/// (`EventSource::internedCause`): each event still gets its own reason, and
/// a source reused with another registry interns anew there (the cause ids
/// of one log mean nothing in another).
TEST_F(HandleRegistryRemapTest, ReusedSourceKeepsEachEventsReason) {
  Operation *f0 = findTagged(*module, "f0");
  Operation *f1 = findTagged(*module, "f1");
  Operation *g0 = findTagged(*module, "g0");
  OpHandle h0 = registry->getHandle(f0);
  OpHandle h1 = registry->getHandle(f1);
  OpHandle hg = registry->getHandle(g0);
  tracking::detail::EventSource source;
  source.pass = "my-pass";
  source.pattern = "MyPattern";
  RegistryNotifier notifier(*registry);
  // A merge (its own reason), an erase with a reason, one without, and the
  // first reason again: each event keeps what it was given.
  notifier.notifyOperationReplaced(f0, g0, source);
  notifier.notifyOperationErased(f1, source, "no replacement");
  notifier.notifyOperationErased(g0, source, "");
  OpHandle h1Again = registry->getHandle(f0);
  notifier.notifyOperationErased(f0, source, "no replacement");
  auto reasons = [](const OpHandle &handle) {
    std::vector<std::string> result;
    for (const TrackingEvent &event : handle.getHistory()) {
      EXPECT_EQ(event.pass, "my-pass");
      EXPECT_EQ(event.pattern, "MyPattern");
      result.push_back(event.reason);
    }
    return result;
  };
  EXPECT_EQ(reasons(h0),
            (std::vector<std::string>{
                "merged with the handle that already referred to it", ""}));
  EXPECT_EQ(reasons(h1), std::vector<std::string>{"no replacement"});
  EXPECT_EQ(reasons(hg), std::vector<std::string>{""});
  EXPECT_EQ(reasons(h1Again), std::vector<std::string>{"no replacement"});
  EXPECT_EQ(h0.getState(), HandleState::Erased);
  EXPECT_EQ(registry->getNumTrackedOps(), 0u);

  // The same source with a registry whose log interned other causes first.
  MLIRContext otherContext;
  loadTestDialects(otherContext);
  OwningOpRef<ModuleOp> other = parseModule(otherContext, kTwoFunctions);
  ASSERT_TRUE(other);
  HandleRegistry otherRegistry(&otherContext);
  RegistryNotifier otherNotifier(otherRegistry);
  Operation *otherF0 = findTagged(*other, "f0");
  Operation *otherF1 = findTagged(*other, "f1");
  OpHandle first = otherRegistry.getHandle(otherF0);
  OpHandle second = otherRegistry.getHandle(otherF1);
  tracking::detail::EventSource earlier;
  earlier.pass = "earlier-pass";
  otherNotifier.notifyOperationErased(otherF1, earlier, "earlier reason");
  otherNotifier.notifyOperationErased(otherF0, source, "no replacement");
  ASSERT_EQ(first.getHistory().size(), 1u);
  EXPECT_EQ(first.getHistory()[0].pass, "my-pass");
  EXPECT_EQ(first.getHistory()[0].pattern, "MyPattern");
  EXPECT_EQ(first.getHistory()[0].reason, "no replacement");
  ASSERT_EQ(second.getHistory().size(), 1u);
  EXPECT_EQ(second.getHistory()[0].pass, "earlier-pass");
  EXPECT_EQ(second.getHistory()[0].reason, "earlier reason");
  // And back to the first registry: its cause is interned again there.
  OpHandle last = registry->getHandle(f1);
  notifier.notifyOperationErased(f1, source, "no replacement");
  EXPECT_EQ(reasons(last), std::vector<std::string>{"no replacement"});
}

//===----------------------------------------------------------------------===//
// isNestedIn: the scope check of a Python pass, from the registry alone
//===----------------------------------------------------------------------===//

namespace {

constexpr llvm::StringLiteral kNestedScopes = R"mlir(
func.func @f(%a: i32, %c: i1) -> i32 {
  %0 = scf.if %c -> i32 {
    %1 = arith.addi %a, %a {tag = "f_nested"} : i32
    scf.yield %1 : i32
  } else {
    scf.yield %a : i32
  } {tag = "f_if"}
  return %0 : i32
}
func.func @g(%a: i32) -> i32 {
  %0 = arith.addi %a, %a {tag = "g0"} : i32
  return %0 : i32
}
module @inner {
  func.func @h(%a: i32) -> i32 {
    %0 = arith.addi %a, %a {tag = "h0"} : i32
    return %0 : i32
  }
}
)mlir";

class HandleNestingTest : public ModuleRegistryTest {
protected:
  HandleNestingTest() : ModuleRegistryTest(kNestedScopes) {}
  Operation *symbol(Operation *table, StringRef name) {
    return SymbolTable::lookupSymbolIn(table, name);
  }
};

TEST_F(HandleNestingTest, OpsUnderTheirScopesOnly) {
  Operation *f = symbol(*module, "f");
  Operation *g = symbol(*module, "g");
  Operation *inner = symbol(*module, "inner");
  Operation *h = symbol(inner, "h");
  OpHandle nested = registry->getHandle(findTagged(*module, "f_nested"));
  OpHandle ifOp = registry->getHandle(findTagged(*module, "f_if"));
  OpHandle inG = registry->getHandle(findTagged(*module, "g0"));
  OpHandle inH = registry->getHandle(findTagged(*module, "h0"));
  OpHandle fHandle = registry->getHandle(f);
  OpHandle moduleHandle = registry->getHandle(*module);

  // Through a region that is not isolated (scf.if) up to the function,
  // and on to the top.
  EXPECT_TRUE(nested.isNestedIn(f));
  EXPECT_TRUE(nested.isNestedIn(*module));
  EXPECT_FALSE(nested.isNestedIn(g));
  EXPECT_TRUE(ifOp.isNestedIn(f));
  EXPECT_FALSE(inG.isNestedIn(f));
  EXPECT_TRUE(inG.isNestedIn(g));
  // Through a nested isolated op (module @inner).
  EXPECT_TRUE(inH.isNestedIn(h));
  EXPECT_TRUE(inH.isNestedIn(inner));
  EXPECT_TRUE(inH.isNestedIn(*module));
  EXPECT_FALSE(inH.isNestedIn(f));
  // A scope is in itself; an ancestor is not in its descendant.
  EXPECT_TRUE(fHandle.isNestedIn(f));
  EXPECT_FALSE(fHandle.isNestedIn(g));
  EXPECT_TRUE(moduleHandle.isNestedIn(*module));
  EXPECT_FALSE(moduleHandle.isNestedIn(f));
  EXPECT_FALSE(OpHandle().isNestedIn(f));
}

/// The answer follows the registry's events: a handle moved by a
/// replacement into another function is in that function; an erased one is
/// in nothing.
TEST_F(HandleNestingTest, FollowsReplacementAndErase) {
  Operation *f = symbol(*module, "f");
  Operation *g = symbol(*module, "g");
  Operation *g0 = findTagged(*module, "g0");
  OpHandle nested = registry->getHandle(findTagged(*module, "f_nested"));
  OpHandle inG = registry->getHandle(g0);
  RegistryNotifier notifier(*registry);
  notifier.notifyOperationReplaced(findTagged(*module, "f_nested"), g0,
                                   tracking::detail::EventSource());
  EXPECT_TRUE(nested.isNestedIn(g));
  EXPECT_FALSE(nested.isNestedIn(f));
  notifier.notifyOperationErased(g0, tracking::detail::EventSource(), "gone");
  EXPECT_EQ(inG.getState(), HandleState::Erased);
  EXPECT_FALSE(inG.isNestedIn(g));
  EXPECT_FALSE(nested.isNestedIn(g));
  EXPECT_FALSE(nested.isNestedIn(*module));
}

} // namespace
