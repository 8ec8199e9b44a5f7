//===- QueuedChangesTest.cpp - Changes a pass listener queues -------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// A pass's listener queues the replaces and erases of tracked ops without
// regions and the registry applies them in batches (ChangeBatch.h). These
// tests hold the contract at every point a queue could show through: readers
// on other threads, the change count, addresses freed and reused while a
// change waits, notes of untracked ops, listeners nested on one thread,
// replacements moved before the change is applied, and the batches of two
// pass threads, each applied by its own thread alone.
//
//===----------------------------------------------------------------------===//

#include "ChangeBatch.h"
#include "RegistryNotifier.h"
#include "TestUtils.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Tracking/HandleRegistry.h"
#include "mlir/Tracking/TrackingListener.h"

#include <atomic>
#include <optional>
#include <thread>

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::test;
using mlir::tracking::detail::ChangeBatch;
using mlir::tracking::detail::EventSource;
using mlir::tracking::detail::RegistryNotifier;

namespace {

constexpr llvm::StringLiteral kModule = R"mlir(
func.func @f(%a: i32, %b: i32) -> i32 {
  %x = arith.addi %a, %b {tag = "x"} : i32
  %y = arith.muli %a, %b {tag = "y"} : i32
  %z = arith.subi %x, %y {tag = "z"} : i32
  return %z : i32
}
func.func @g(%a: i32) -> i32 {
  %w = arith.addi %a, %a {tag = "w"} : i32
  "func.return"(%w) {tag = "gret"} : (i32) -> ()
}
)mlir";

class QueuedChangesTest : public ::testing::Test {
protected:
  void SetUp() override {
    loadTestDialects(context);
    registry = std::make_unique<HandleRegistry>(&context);
    module = parseModule(context, kModule);
    ASSERT_TRUE(module);
    registry->setEventObserver(
        [this](const TrackingEvent &) { ++eventsDelivered; });
  }
  void TearDown() override {
    module = nullptr;
    registry.reset();
  }

  Operation *op(StringRef tag) {
    return findTagged(module->getOperation(), tag);
  }

  /// Clones `original` in front of it through `rewriter`.
  Operation *cloneBefore(RewriterBase &rewriter, Operation *original) {
    rewriter.setInsertionPoint(original);
    return rewriter.clone(*original);
  }

  /// Clones `original` at `builder`'s insertion point until a clone lands
  /// at the address of the freed op `freed` (the allocator reuses a freed
  /// block of the same size soon, except under ASan); returns that clone or
  /// null, and the other clones in `others`.
  Operation *cloneAt(OpBuilder &builder, Operation *original,
                     const Operation *freed,
                     SmallVectorImpl<Operation *> &others) {
    for (int attempt = 0; attempt < 16; ++attempt) {
      Operation *clone = builder.clone(*original);
      if (clone == freed)
        return clone;
      others.push_back(clone);
    }
#if !defined(TRACKING_HAS_ASAN)
    ADD_FAILURE() << "the allocator did not reuse the freed op";
#endif
    return nullptr;
  }

  /// Replaces `original` by a clone through `rewriter` (a replace, then an
  /// erase notification); returns the clone.
  Operation *replaceWithClone(RewriterBase &rewriter, Operation *original) {
    Operation *clone = cloneBefore(rewriter, original);
    rewriter.replaceOp(original, clone);
    return clone;
  }

  void expectConsistent() {
    std::vector<std::string> problems =
        registry->verifyAgainst(module->getOperation());
    EXPECT_TRUE(problems.empty()) << joinProblems(problems);
  }

  MLIRContext context;
  std::unique_ptr<HandleRegistry> registry;
  OwningOpRef<ModuleOp> module;
  std::atomic<int> eventsDelivered{0};
};

/// The replace waits in the batch (its event is not delivered) until the
/// registry's lock is next taken, here by reading the handle.
TEST_F(QueuedChangesTest, QueuedUntilTheLockIsTaken) {
  Operation *original = op("x");
  OpHandle x = registry->getHandle(original);
  PassTrackingListener listener(&context);
  IRRewriter rewriter(&context, &listener);
  Operation *clone = replaceWithClone(rewriter, original);
  EXPECT_EQ(eventsDelivered.load(), 0);
  EXPECT_EQ(x.get(), clone);
  EXPECT_EQ(eventsDelivered.load(), 1);
  ASSERT_EQ(x.getHistory().size(), 1u);
  EXPECT_EQ(x.getHistory()[0].kind, TrackingEvent::Kind::Replaced);
  expectConsistent();
}

/// A thread that did not queue the change sees it: its lock applies it.
TEST_F(QueuedChangesTest, ReaderOnAnotherThreadSeesQueuedChanges) {
  Operation *original = op("x");
  OpHandle x = registry->getHandle(original);
  OpHandle y = registry->getHandle(op("y"));
  PassTrackingListener listener(&context);
  IRRewriter rewriter(&context, &listener);
  Operation *clone = replaceWithClone(rewriter, original);
  Operation *seen = nullptr;
  std::thread([&] { seen = x.get(); }).join();
  EXPECT_EQ(seen, clone);

  // The replacement erased, still queued: never live again, on any thread.
  Value argument = clone->getParentOfType<func::FuncOp>().getArgument(0);
  rewriter.replaceAllUsesWith(clone->getResult(0), argument);
  rewriter.eraseOp(clone);
  HandleState xState = HandleState::Live, yState = HandleState::Erased;
  Operation *xOp = clone;
  std::thread([&] {
    xState = x.getState();
    xOp = x.get();
    yState = y.getState();
  }).join();
  EXPECT_EQ(xState, HandleState::Erased);
  EXPECT_EQ(xOp, nullptr);
  EXPECT_EQ(yState, HandleState::Live);
}

/// A reader that read the change count must see it move when a change is
/// queued after the read: the lock-free count does not wait for the apply.
TEST_F(QueuedChangesTest, ChangeCountMovesWhenAChangeIsQueued) {
  Operation *original = op("y");
  OpHandle y = registry->getHandle(original);
  PassTrackingListener listener(&context);
  IRRewriter rewriter(&context, &listener);
  Operation *clone = cloneBefore(rewriter, original);
  uint64_t before = registry->getChangeCount();
  rewriter.replaceOp(original, clone);
  EXPECT_EQ(eventsDelivered.load(), 0);
  EXPECT_NE(registry->getChangeCount(), before);
  EXPECT_EQ(y.get(), clone);
}

/// Replaced, then the replacement erased, in one batch: the handle ends
/// erased, and the registry maps neither op.
TEST_F(QueuedChangesTest, ReplacementErasedInTheSameBatch) {
  Operation *original = op("y");
  OpHandle y = registry->getHandle(original);
  {
    PassTrackingListener listener(&context);
    IRRewriter rewriter(&context, &listener);
    Operation *clone = cloneBefore(rewriter, original);
    Operation *constant = arith::ConstantIntOp::create(
        rewriter, clone->getLoc(), rewriter.getI32Type(), 7);
    rewriter.replaceOp(original, clone);
    rewriter.replaceOp(clone, constant);
    Value argument = constant->getParentOfType<func::FuncOp>().getArgument(0);
    rewriter.replaceAllUsesWith(constant->getResult(0), argument);
    rewriter.eraseOp(constant);
  }
  EXPECT_EQ(y.getState(), HandleState::Erased);
  std::vector<TrackingEvent> history = y.getHistory();
  ASSERT_EQ(history.size(), 3u);
  EXPECT_EQ(history[0].kind, TrackingEvent::Kind::Replaced);
  EXPECT_EQ(history[1].kind, TrackingEvent::Kind::Replaced);
  EXPECT_EQ(history[2].kind, TrackingEvent::Kind::Erased);
  EXPECT_EQ(registry->getNumTrackedOps(), 0u);
}

/// A rewriter erases the op it has just replaced. The op is noted untracked
/// in the thread's lane when its change is queued, so that the erase
/// notification stops at the lock-free test instead of queueing a change
/// that would find no record.
class QueuedNotesTest : public QueuedChangesTest {
protected:
  void SetUp() override {
    QueuedChangesTest::SetUp();
    y = registry->getHandle(op("y"));
    ASSERT_TRUE(notifier().startBatch(batch, op("x")->getParentOp()));
    // This thread's lane of untracked ops is made by the first change
    // applied on it.
    notifier().queueChange(batch, op("y"), nullptr, source);
    notifier().applyBatch(batch);
    ASSERT_EQ(y.getState(), HandleState::Erased);
  }
  void TearDown() override {
    if (batch.registry)
      notifier().finishBatch(batch);
    QueuedChangesTest::TearDown();
  }

  /// A clone of `original` in front of it.
  Operation *cloneOf(Operation *original) {
    OpBuilder builder(original);
    return builder.clone(*original);
  }

  RegistryNotifier notifier() { return RegistryNotifier(*registry); }

  OpHandle y;
  ChangeBatch batch;
  EventSource source;
};

TEST_F(QueuedNotesTest, ReplacedOpIsNotedUntrackedWhenQueued) {
  Operation *original = op("x");
  OpHandle x = registry->getHandle(original);
  Operation *clone = cloneOf(original);
  EXPECT_TRUE(notifier().mayBeTracked(original));
  notifier().queueChange(batch, original, clone, source);
  EXPECT_EQ(batch.count.load(), 1u) << "the replace waits";
  EXPECT_FALSE(notifier().mayBeTracked(original));
  EXPECT_TRUE(notifier().mayBeTracked(clone));
  EXPECT_EQ(x.get(), clone);
  original->replaceAllUsesWith(clone);
  original->erase();
  expectConsistent();
}

/// A handle taken on the op after its change was queued (here on another
/// thread) clears the note: the op's later erase reaches the registry and
/// ends that handle.
TEST_F(QueuedNotesTest, HandleTakenAfterTheQueueClearsTheNote) {
  Operation *original = op("x");
  OpHandle x = registry->getHandle(original);
  Operation *clone = cloneOf(original);
  notifier().queueChange(batch, original, clone, source);
  OpHandle late;
  std::thread([&] { late = registry->getHandle(original); }).join();
  EXPECT_TRUE(late.isLive());
  EXPECT_TRUE(notifier().mayBeTracked(original));
  EXPECT_EQ(x.get(), clone) << "the replace came before the new handle";
  notifier().queueChange(batch, original, nullptr, source);
  original->replaceAllUsesWith(clone);
  original->erase();
  EXPECT_EQ(late.getState(), HandleState::Erased) << late.describe();
  EXPECT_EQ(late.get(), nullptr);
  EXPECT_EQ(x.get(), clone);
  expectConsistent();
}

/// An op noted when its replace was queued that then replaces another op
/// (it stays in the IR after a replaceAllOpUsesWith): the note is cleared,
/// and its erase reaches the registry and ends the handle that followed it.
TEST_F(QueuedNotesTest, ReplacementAtANotedOpClearsTheNote) {
  Operation *original = op("x");
  OpHandle x = registry->getHandle(original);
  OpHandle z = registry->getHandle(op("z"));
  Operation *clone = cloneOf(original);
  notifier().queueChange(batch, original, clone, source);
  EXPECT_FALSE(notifier().mayBeTracked(original));
  notifier().queueChange(batch, op("z"), original, source);
  EXPECT_TRUE(notifier().mayBeTracked(original));
  EXPECT_EQ(z.get(), original);
  EXPECT_EQ(x.get(), clone);
  notifier().queueChange(batch, original, nullptr, source);
  EXPECT_EQ(z.getState(), HandleState::Erased) << z.describe();
  EXPECT_EQ(x.get(), clone);
  expectConsistent();
}

/// An op erased while queued, its address reused by a new op that is then
/// replaced: the replace is about the new op, which has no handle, and must
/// not move the erased op's handle.
TEST_F(QueuedChangesTest, AddressReusedWhileTheEraseWaits) {
  Operation *victim = op("y");
  OpHandle y = registry->getHandle(victim);
  PassTrackingListener listener(&context);
  IRRewriter rewriter(&context, &listener);
  // The erase waits; the address may come back for a clone of another op.
  // Cloned without a listener: an insert notification would take the lock
  // (and apply the erase) first.
  Operation *bystander = op("x");
  rewriter.replaceAllUsesWith(victim->getResult(0), bystander->getResult(0));
  rewriter.eraseOp(victim);
  OpBuilder quiet(op("z"));
  SmallVector<Operation *> clones;
  if (Operation *reused = cloneAt(quiet, bystander, victim, clones)) {
    // A replacement at an address that shares the erased op's bit in the
    // batch's summary would apply the batch first (queueChange): take one
    // that does not.
    Operation *replacement = quiet.clone(*bystander);
    while (ChangeBatch::opBit(replacement) & ChangeBatch::opBit(victim)) {
      clones.push_back(replacement);
      replacement = quiet.clone(*bystander);
    }
    // Queued after the erase, about the same address.
    rewriter.replaceOp(reused, replacement);
    EXPECT_EQ(eventsDelivered.load(), 0);
    EXPECT_FALSE(registry->isTracked(replacement));
    EXPECT_FALSE(registry->lookupHandle(replacement));
  }
  for (Operation *clone : clones)
    rewriter.eraseOp(clone);
  EXPECT_EQ(y.getState(), HandleState::Erased);
  EXPECT_EQ(y.get(), nullptr);
  EXPECT_EQ(registry->getNumTrackedOps(), 0u);
  expectConsistent();
}

/// A replacement made at an address that the registry noted as untracked
/// (an op erased there before): its own later erase must still reach the
/// registry. (The batch applies the change that maps it before it queues
/// that erase: ReplacementIsMappedBeforeItsEraseIsQueued.)
TEST_F(QueuedChangesTest, ReplacementAtAnAddressNotedUntracked) {
  Operation *original = op("x");
  OpHandle x = registry->getHandle(original);
  OpHandle w = registry->getHandle(op("w"));
  PassTrackingListener listener(&context);
  IRRewriter rewriter(&context, &listener);
  // Made first: its insert notification could apply the batch.
  rewriter.setInsertionPoint(original);
  Operation *constant = arith::ConstantIntOp::create(
      rewriter, original->getLoc(), rewriter.getI32Type(), 1);
  // `w` erased and applied: its address is noted untracked.
  Operation *gone = op("w");
  rewriter.replaceAllUsesWith(
      gone->getResult(0), gone->getParentOfType<func::FuncOp>().getArgument(0));
  rewriter.eraseOp(gone);
  ASSERT_EQ(w.getState(), HandleState::Erased);
  // A clone of `x` (the same op as `w`) may take `w`'s address.
  rewriter.setInsertionPoint(original);
  SmallVector<Operation *> clones;
  Operation *replacement = cloneAt(rewriter, original, gone, clones);
  if (!replacement)
    replacement = clones.pop_back_val();
  for (Operation *clone : clones)
    rewriter.eraseOp(clone);
  rewriter.replaceOp(original, replacement);
  // Still queued: erase the replacement.
  rewriter.replaceAllUsesWith(replacement->getResult(0),
                              constant->getResult(0));
  rewriter.eraseOp(replacement);
  EXPECT_EQ(eventsDelivered.load(), 2) << "`w`'s erase and `x`'s replace";
  EXPECT_EQ(x.getState(), HandleState::Erased) << x.describe();
  EXPECT_EQ(x.get(), nullptr);
  expectConsistent();
}

/// A replacement moved to another function (another scope) before its
/// change is applied: the move's notification applies it first, then
/// re-indexes the handle where the op now is.
TEST_F(QueuedChangesTest, ReplacementMovedBeforeTheChangeIsApplied) {
  Operation *original = op("x");
  OpHandle x = registry->getHandle(original);
  OpHandle gret = registry->getHandle(op("gret"));
  PassTrackingListener listener(&context);
  IRRewriter rewriter(&context, &listener);
  Operation *clone = replaceWithClone(rewriter, original);
  // Its operands are @f's arguments: give it @g's before moving it there.
  Value gArg = op("gret")->getParentOfType<func::FuncOp>().getArgument(0);
  rewriter.modifyOpInPlace(clone, [&] {
    clone->setOperand(0, gArg);
    clone->setOperand(1, gArg);
  });
  rewriter.replaceAllUsesWith(
      clone->getResult(0),
      op("z")->getParentOfType<func::FuncOp>().getArgument(0));
  rewriter.moveOpBefore(clone, op("gret"));
  EXPECT_EQ(x.get(), clone);
  EXPECT_EQ(x.get()->getParentOfType<func::FuncOp>().getSymName(), "g");
  // Erasing @g ends every handle in it, the moved one included.
  rewriter.eraseOp(op("gret")->getParentOp());
  EXPECT_EQ(x.getState(), HandleState::Erased) << x.describe();
  EXPECT_EQ(gret.getState(), HandleState::Erased);
  expectConsistent();
}

/// A listener made while another on the same thread holds the thread's
/// batch applies its changes at once, after the queued ones; each change is
/// named by the pass it came from.
TEST_F(QueuedChangesTest, NestedListenersOnOneThread) {
  Operation *original = op("y");
  OpHandle y = registry->getHandle(original);
  int outerKey = 0, innerKey = 0;
  ScopedRewriteAttribution outerPass("outer", module->getOperation(),
                                     &outerKey);
  PassTrackingListener outer(&context);
  IRRewriter outerRewriter(&context, &outer);
  Operation *first = replaceWithClone(outerRewriter, original);
  EXPECT_EQ(eventsDelivered.load(), 0);
  Operation *second = nullptr;
  {
    ScopedRewriteAttribution innerPass("inner", module->getOperation(),
                                       &innerKey);
    PassTrackingListener inner(&context);
    IRRewriter innerRewriter(&context, &inner);
    second = replaceWithClone(innerRewriter, first);
    EXPECT_EQ(eventsDelivered.load(), 2);
  }
  std::vector<TrackingEvent> history = y.getHistory();
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[0].pass, "outer");
  EXPECT_EQ(history[1].pass, "inner");
  EXPECT_EQ(y.get(), second);
  expectConsistent();
}

/// Two registries, one thread: the thread's batch serves one of them; the
/// other's listener applies its changes as they come. Both stay right.
TEST_F(QueuedChangesTest, ListenersOfTwoRegistriesOnOneThread) {
  MLIRContext otherContext;
  loadTestDialects(otherContext);
  HandleRegistry otherRegistry(&otherContext);
  OwningOpRef<ModuleOp> other = parseModule(otherContext, kModule);
  ASSERT_TRUE(other);
  Operation *otherY = findTagged(other->getOperation(), "y");
  Operation *original = op("y");
  OpHandle y = registry->getHandle(original);
  OpHandle otherHandle = otherRegistry.getHandle(otherY);

  PassTrackingListener first(&context);
  PassTrackingListener second(&otherContext);
  IRRewriter firstRewriter(&context, &first);
  IRRewriter secondRewriter(&otherContext, &second);
  Operation *replacement = replaceWithClone(firstRewriter, original);
  Operation *otherReplacement = replaceWithClone(secondRewriter, otherY);
  EXPECT_EQ(y.get(), replacement);
  EXPECT_EQ(otherHandle.get(), otherReplacement);
  EXPECT_TRUE(otherRegistry.verifyAgainst(other->getOperation()).empty());
  expectConsistent();
}

/// More changes than a batch holds, with handles taken on another thread
/// in between (which grows the filter and applies the batch under way):
/// every handle follows its op.
TEST_F(QueuedChangesTest, ManyChangesWhileAnotherThreadTakesHandles) {
  std::string text = "func.func @big(%a: i32) -> i32 {\n";
  constexpr int kOps = 300;
  for (int i = 0; i < kOps; ++i)
    text += "  %v" + std::to_string(i) + " = arith.addi %a, %a : i32\n";
  text += "  return %a : i32\n}\n";
  OwningOpRef<ModuleOp> big = parseModule(context, text);
  ASSERT_TRUE(big);
  auto func = cast<func::FuncOp>(&big->getBody()->front());
  std::vector<Operation *> adds;
  for (Operation &each : func.getBody().front().without_terminator())
    adds.push_back(&each);
  std::vector<OpHandle> handles;
  for (Operation *add : llvm::ArrayRef(adds).take_front(kOps / 2))
    handles.push_back(registry->getHandle(add));

  std::atomic<bool> done{false};
  std::vector<OpHandle> late;
  std::thread taker([&] {
    for (Operation *add : llvm::ArrayRef(adds).drop_front(kOps / 2)) {
      late.push_back(registry->getHandle(add));
      (void)registry->getNumTrackedOps();
    }
    while (!done.load())
      (void)registry->getNumTrackedOps();
  });
  std::vector<Operation *> replacements;
  {
    PassTrackingListener listener(&context);
    IRRewriter rewriter(&context, &listener);
    for (Operation *add : llvm::ArrayRef(adds).take_front(kOps / 2)) {
      replacements.push_back(replaceWithClone(rewriter, add));
    }
    // Each replacement replaced again: its bit in the filter must hold
    // though the filter was rebuilt meanwhile.
    for (Operation *&replacement : replacements)
      replacement = replaceWithClone(rewriter, replacement);
  }
  done = true;
  taker.join();
  for (auto [handle, replacement] : llvm::zip_equal(handles, replacements))
    EXPECT_EQ(handle.get(), replacement) << handle.describe();
  for (const OpHandle &handle : late)
    EXPECT_TRUE(handle.isLive());
  EXPECT_TRUE(registry->verifyAgainst(big->getOperation()).empty());
}

//===----------------------------------------------------------------------===//
// One batch per pass thread
//===----------------------------------------------------------------------===//

/// Two ops, one in each function, for the tests that drive two batches.
constexpr llvm::StringLiteral kTwoFunctions = R"mlir(
func.func @f(%a: i32) {
  %x = arith.addi %a, %a {tag = "x"} : i32
  return
}
func.func @g(%a: i32) {
  %w = arith.muli %a, %a {tag = "w"} : i32
  return
}
)mlir";

class TwoBatchesTest : public QueuedChangesTest {
protected:
  void SetUp() override {
    QueuedChangesTest::SetUp();
    module = parseModule(context, kTwoFunctions);
    ASSERT_TRUE(module);
    f = SymbolTable::lookupSymbolIn(*module, "f");
    g = SymbolTable::lookupSymbolIn(*module, "g");
  }

  /// Registers `onF` for @f and `onG` for @g, as two pass threads would.
  bool startBatchesOfBothFunctions(RegistryNotifier &notifier, ChangeBatch &onF,
                                   ChangeBatch &onG) {
    return notifier.startBatch(onF, f) && notifier.startBatch(onG, g);
  }

  /// Queues the erase of `x` (in @f) on @f's batch, then moves `x` before
  /// `w` (in @g), which the registry cannot tell from the allocator handing
  /// `x`'s address to a new op there, and queues the replacement of `w` by
  /// it on @g's batch. Applies @g's batch first, then ends both. Returns the
  /// events delivered once @g's batch was applied.
  int eraseThenReuseAddressInOtherBatch(Operation *x, Operation *w) {
    RegistryNotifier notifier(*registry);
    ChangeBatch onF, onG;
    if (!startBatchesOfBothFunctions(notifier, onF, onG)) {
      ADD_FAILURE() << "two batches of disjoint anchors refused";
      return -1;
    }
    notifier.queueChange(onF, x, nullptr, source);
    x->moveBefore(w);
    notifier.queueChange(onG, w, x, source);
    notifier.applyBatch(onG);
    int delivered = eventsDelivered.load();
    notifier.finishBatch(onF);
    notifier.finishBatch(onG);
    return delivered;
  }

  Operation *f = nullptr;
  Operation *g = nullptr;
  EventSource source;
};

/// Each pass thread applies its own batch: a thread's listener ending (or
/// its batch filling) does not apply the other thread's queued changes,
/// which a reader still sees.
TEST_F(TwoBatchesTest, EachThreadAppliesItsOwnBatch) {
  Operation *x = op("x"), *w = op("w");
  OpHandle xHandle = registry->getHandle(x);
  OpHandle wHandle = registry->getHandle(w);
  std::atomic<int> queued{0};
  std::atomic<bool> fDone{false};
  Operation *xClone = nullptr, *wClone = nullptr;
  int eventsWhenFDone = -1;
  auto run = [&](Operation *anchor, Operation *original, Operation *&clone,
                 bool finishFirst) {
    ScopedRewriteAttribution attribution("test-pass", anchor);
    PassTrackingListener listener(&context);
    IRRewriter rewriter(&context, &listener);
    clone = replaceWithClone(rewriter, original);
    ++queued;
    // Both batches hold a change before either is applied.
    while (queued.load() < 2)
      std::this_thread::yield();
    if (!finishFirst)
      while (!fDone.load())
        std::this_thread::yield();
    (void)listener;
  };
  std::thread onG([&] { run(g, w, wClone, /*finishFirst=*/false); });
  std::thread onF([&] {
    run(f, x, xClone, /*finishFirst=*/true);
    // The listener on @f is gone: its change applied, @g's still queued.
    eventsWhenFDone = eventsDelivered.load();
    fDone = true;
  });
  onF.join();
  onG.join();
  EXPECT_EQ(eventsWhenFDone, 1);
  EXPECT_EQ(eventsDelivered.load(), 2);
  EXPECT_EQ(xHandle.get(), xClone);
  EXPECT_EQ(wHandle.get(), wClone);
  expectConsistent();
}

/// A reader sees the changes of every batch, though no pass thread applied
/// the other's.
TEST_F(TwoBatchesTest, ReaderAppliesEveryBatch) {
  Operation *x = op("x"), *w = op("w");
  OpHandle xHandle = registry->getHandle(x);
  OpHandle wHandle = registry->getHandle(w);
  RegistryNotifier notifier(*registry);
  ChangeBatch onF, onG;
  ASSERT_TRUE(startBatchesOfBothFunctions(notifier, onF, onG));
  notifier.queueChange(onF, x, nullptr, source);
  notifier.queueChange(onG, w, nullptr, source);
  // Applying @g's batch leaves @f's queued.
  notifier.applyBatch(onG);
  EXPECT_EQ(eventsDelivered.load(), 1);
  EXPECT_EQ(xHandle.getState(), HandleState::Erased);
  EXPECT_EQ(eventsDelivered.load(), 2);
  EXPECT_EQ(wHandle.getState(), HandleState::Erased);
  notifier.finishBatch(onF);
  notifier.finishBatch(onG);
}

/// The address of an op whose erase waits in one batch, taken by an op of
/// another function that replaces a tracked op there, queued in another
/// batch (the allocator hands a block freed by one pass thread to another;
/// here the op is moved, which the registry cannot tell from a reuse). The
/// second batch, applied first, finds the erased op's record at the
/// address: it applies that erase first, then maps the address to the
/// replaced op's record. Merging the two would have made the erased op's
/// handle live and then erased the replaced one's.
TEST_F(TwoBatchesTest, AddressOfAWaitingEraseReusedInAnotherBatch) {
  Operation *x = op("x"), *w = op("w");
  OpHandle xHandle = registry->getHandle(x);
  OpHandle wHandle = registry->getHandle(w);
  // Both applied with @g's batch, the erase first.
  EXPECT_EQ(eraseThenReuseAddressInOtherBatch(x, w), 2);
  EXPECT_EQ(xHandle.getState(), HandleState::Erased);
  EXPECT_EQ(wHandle.get(), x);
  ASSERT_EQ(wHandle.getHistory().size(), 1u);
  EXPECT_EQ(wHandle.getHistory()[0].kind, TrackingEvent::Kind::Replaced);
  w->erase();
  expectConsistent();
}

/// The other order: an erase waits in one batch for an untracked op (the
/// filter could not rule it out) whose address another batch then maps to
/// a tracked op's record. Applied last, the erase finds a record of the
/// other function at its address: not its op's, so it ends nothing.
TEST_F(TwoBatchesTest, WaitingEraseOfAnUntrackedOpSparesTheAddressNewOwner) {
  Operation *x = op("x"), *w = op("w");
  OpHandle wHandle = registry->getHandle(w);
  // The erase, applied when @f's batch ends, delivers nothing.
  EXPECT_EQ(eraseThenReuseAddressInOtherBatch(x, w), 1);
  EXPECT_EQ(eventsDelivered.load(), 1);
  EXPECT_EQ(wHandle.get(), x);
  EXPECT_EQ(wHandle.getState(), HandleState::Live);
  w->erase();
  expectConsistent();
}

/// A batch applies its changes before it queues the erase of an op it maps
/// as a replacement: once freed, the op's address may go to an op of
/// another batch, which must find the replaced op's record there (and
/// apply the erase first), not an empty slot that this batch maps later.
TEST_F(TwoBatchesTest, ReplacementIsMappedBeforeItsEraseIsQueued) {
  Operation *x = op("x"), *w = op("w");
  OpHandle xHandle = registry->getHandle(x);
  OpHandle wHandle = registry->getHandle(w);
  RegistryNotifier notifier(*registry);
  ChangeBatch onF, onG;
  ASSERT_TRUE(startBatchesOfBothFunctions(notifier, onF, onG));
  OpBuilder builder(x);
  Operation *replacement = builder.clone(*x);
  notifier.queueChange(onF, x, replacement, source);
  EXPECT_EQ(eventsDelivered.load(), 0);
  notifier.queueChange(onF, replacement, nullptr, source);
  // The replace was applied; the erase waits.
  EXPECT_EQ(eventsDelivered.load(), 1);
  replacement->moveBefore(w);
  notifier.queueChange(onG, w, replacement, source);
  notifier.applyBatch(onG);
  notifier.finishBatch(onF);
  notifier.finishBatch(onG);
  std::vector<TrackingEvent> history = xHandle.getHistory();
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[0].kind, TrackingEvent::Kind::Replaced);
  EXPECT_EQ(history[1].kind, TrackingEvent::Kind::Erased);
  EXPECT_EQ(wHandle.get(), replacement);
  w->erase();
  x->erase();
  expectConsistent();
}

/// Anchors of batches registered at once are disjoint, and a batch without
/// one is registered alone: a probe could not tell their records apart.
TEST_F(TwoBatchesTest, NestedOrUnknownAnchorsAreNotRegisteredTogether) {
  RegistryNotifier notifier(*registry);
  ChangeBatch outer, inner, unknown;
  ASSERT_TRUE(notifier.startBatch(outer, *module));
  EXPECT_FALSE(notifier.startBatch(inner, f));
  EXPECT_FALSE(notifier.startBatch(unknown, nullptr));
  notifier.finishBatch(outer);
  ASSERT_TRUE(notifier.startBatch(inner, f));
  EXPECT_FALSE(notifier.startBatch(outer, *module));
  EXPECT_FALSE(notifier.startBatch(unknown, nullptr));
  notifier.finishBatch(inner);
  ASSERT_TRUE(notifier.startBatch(unknown, nullptr));
  EXPECT_FALSE(notifier.startBatch(inner, f));
  notifier.finishBatch(unknown);
}

/// A registry takes one batch per pass thread, up to kMaxPerRegistry at
/// once: the next pass thread's listener applies its changes as they come.
TEST(TwoBatchesLimitTest, BatchesBeyondTheLimitAreRefused) {
  MLIRContext context;
  loadTestDialects(context);
  std::string text;
  for (unsigned i = 0; i <= ChangeBatch::kMaxPerRegistry; ++i)
    text += "func.func @f" + std::to_string(i) + "() {\n  return\n}\n";
  OwningOpRef<ModuleOp> module = parseModule(context, text);
  ASSERT_TRUE(module);
  std::vector<Operation *> functions;
  for (Operation &function : module->getBody()->getOperations())
    functions.push_back(&function);
  ASSERT_EQ(functions.size(), ChangeBatch::kMaxPerRegistry + 1);
  HandleRegistry registry(&context);
  RegistryNotifier notifier(registry);
  std::vector<ChangeBatch> batches(ChangeBatch::kMaxPerRegistry + 1);
  for (unsigned i = 0; i < ChangeBatch::kMaxPerRegistry; ++i)
    ASSERT_TRUE(notifier.startBatch(batches[i], functions[i])) << i;
  ChangeBatch &extra = batches.back();
  EXPECT_FALSE(notifier.startBatch(extra, functions.back()));
  // A slot freed is taken again.
  notifier.finishBatch(batches.front());
  EXPECT_TRUE(notifier.startBatch(extra, functions.back()));
  for (ChangeBatch &batch : batches)
    if (batch.registry)
      notifier.finishBatch(batch);
}

} // namespace
