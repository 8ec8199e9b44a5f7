//===- TransformInterpreterTest.cpp - Tests for the tracked interpreter ---===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "TestUtils.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Tracking/BlockValueRegistry.h"
#include "mlir/Tracking/Passes.h"
#include "mlir/Tracking/TransformInterpreter.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/ThreadPool.h"

#include <atomic>
#include <thread>

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::test;

namespace {

/// A context with every dialect and extension (the scripts use linalg, scf
/// and the transform extensions) and a registry.
struct TransformFixture {
  TransformFixture() : context(makeRegistry()), registry(&context) {
    context.loadAllAvailableDialects();
    // `transform.apply_registered_pass "canonicalize"` needs it registered;
    // a script in a test runs `symbol-dce` too.
    static bool passesRegistered =
        (registerTrackedPasses(), registerSymbolDCEPass(), true);
    (void)passesRegistered;
  }
  static DialectRegistry makeRegistry() {
    DialectRegistry dialects;
    registerAllDialects(dialects);
    registerAllExtensions(dialects);
    return dialects;
  }
  MLIRContext context;
  HandleRegistry registry;
};

/// Runs the sequence `@__transform_main` of `script` on `payload`, collecting
/// the error diagnostics into `errors`.
LogicalResult run(TransformFixture &fixture, Operation *payload,
                  ModuleOp script, ArrayRef<std::vector<OpHandle>> args,
                  std::vector<TransformSequenceResult> &results,
                  std::string *errors = nullptr, bool ownsWholeTree = false) {
  ScopedDiagnosticHandler handler(&fixture.context, [&](Diagnostic &diag) {
    if (errors && diag.getSeverity() == DiagnosticSeverity::Error)
      *errors += diag.str() + "\n";
    return success();
  });
  Operation *entry = script.lookupSymbol("__transform_main");
  EXPECT_TRUE(entry);
  return applyTrackedNamedSequence(fixture.registry, payload, entry, script,
                                   args, transform::TransformOptions(), results,
                                   TransformEventSource(), ownsWholeTree);
}

const char *const kMatmul = R"mlir(
func.func @outside() {
  return {tag = "outside"}
}
func.func @matmul(%A: tensor<8x16xf32>, %B: tensor<16x32xf32>,
                  %C: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %0 = linalg.matmul {tag = "matmul"}
         ins(%A, %B : tensor<8x16xf32>, tensor<16x32xf32>)
         outs(%C : tensor<8x32xf32>) -> tensor<8x32xf32>
  return {tag = "return"} %0 : tensor<8x32xf32>
}
)mlir";

const char *const kTileScript = R"mlir(
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(
      %root: !transform.any_op {transform.readonly},
      %mm: !transform.any_op {transform.consumed})
      -> (!transform.any_op, !transform.any_op, !transform.any_op) {
    %tiled, %loops:2 = transform.structured.tile_using_for %mm
        tile_sizes [4, 8]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
                                  !transform.any_op)
    transform.yield %tiled, %loops#0, %loops#1
        : !transform.any_op, !transform.any_op, !transform.any_op
  }
}
)mlir";

TEST(TransformInterpreterTest, TileMatmulReturnsLoopsAndErasesMatmul) {
  TransformFixture fixture;
  OwningOpRef<ModuleOp> payload = parseModule(fixture.context, kMatmul);
  OwningOpRef<ModuleOp> script = parseModule(fixture.context, kTileScript);
  std::string before = printOp(*script);
  Operation *func = findTagged(*payload, "return")->getParentOp();
  OpHandle matmul = fixture.registry.getHandle(findTagged(*payload, "matmul"));
  OpHandle ret = fixture.registry.getHandle(findTagged(*payload, "return"));
  OpHandle outside =
      fixture.registry.getHandle(findTagged(*payload, "outside"));
  OpHandle funcHandle = fixture.registry.getHandle(func);

  std::vector<TransformSequenceResult> results;
  ASSERT_TRUE(succeeded(run(fixture, func, *script, {{matmul}}, results)));

  // The consumed matmul is erased; the loops and the tiled op come back live.
  EXPECT_EQ(matmul.getState(), HandleState::Erased);
  EXPECT_NE(matmul.describe().find("transform.structured.tile_using_for"),
            std::string::npos)
      << matmul.describe();
  ASSERT_EQ(results.size(), 3u);
  ASSERT_EQ(results[0].ops.size(), 1u);
  EXPECT_EQ(results[0].ops[0].get()->getName().getStringRef(), "linalg.matmul");
  ASSERT_EQ(results[1].ops.size(), 1u);
  ASSERT_EQ(results[2].ops.size(), 1u);
  EXPECT_TRUE(isa<scf::ForOp>(results[1].ops[0].get()));
  EXPECT_TRUE(isa<scf::ForOp>(results[2].ops[0].get()));
  EXPECT_TRUE(
      results[1].ops[0].get()->isProperAncestor(results[2].ops[0].get()));
  // The return was only given new operands: still live. The payload root
  // and the handle outside it are untouched.
  EXPECT_TRUE(ret.isLive());
  EXPECT_TRUE(funcHandle.isLive());
  EXPECT_TRUE(outside.isLive());
  EXPECT_EQ(outside.get(), findTagged(*payload, "outside"));
  // The user's script is unchanged.
  EXPECT_EQ(printOp(*script), before);
  EXPECT_TRUE(fixture.registry.verifyAgainst(*payload).empty())
      << joinProblems(fixture.registry.verifyAgainst(*payload));
}

/// Bindings of ops or values outside the payload root are refused before
/// anything changes: the run follows the handles in the payload root only.
TEST(TransformInterpreterTest, BindingsOutsideThePayloadRootAreRefused) {
  TransformFixture fixture;
  OwningOpRef<ModuleOp> payload = parseModule(fixture.context, kMatmul);
  OwningOpRef<ModuleOp> script = parseModule(fixture.context, kTileScript);
  Operation *func = findTagged(*payload, "return")->getParentOp();
  Operation *outside = findTagged(*payload, "outside");
  Operation *entry = script->lookupSymbol("__transform_main");
  std::string errors;
  ScopedDiagnosticHandler handler(&fixture.context, [&](Diagnostic &diag) {
    errors += diag.str() + "\n";
    return success();
  });
  std::vector<TransformSequenceResult> results;
  SmallVector<SmallVector<transform::MappedValue>> bindings(1);
  bindings[0].push_back(outside);
  EXPECT_TRUE(failed(applyTrackedNamedSequenceWithBindings(
      fixture.registry, func, entry, *script, bindings,
      transform::TransformOptions(), results)));
  EXPECT_NE(errors.find("binding #1 holds an op or value outside the payload "
                        "root"),
            std::string::npos)
      << errors;
  // An op in the payload root is accepted: the matmul, which the script
  // tiles.
  errors.clear();
  bindings[0].front() = findTagged(*payload, "matmul");
  EXPECT_TRUE(succeeded(applyTrackedNamedSequenceWithBindings(
      fixture.registry, func, entry, *script, bindings,
      transform::TransformOptions(), results)))
      << errors;
  EXPECT_EQ(results.size(), 3u);
}

TEST(TransformInterpreterTest, BoundArgumentFollowsCanonicalization) {
  TransformFixture fixture;
  OwningOpRef<ModuleOp> payload = parseModule(fixture.context, R"mlir(
func.func @f(%a: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %x = arith.addi %a, %c1 {tag = "inner"} : i32
  %y = arith.addi %x, %c2 {tag = "outer"} : i32
  return {tag = "return"} %y : i32
}
)mlir");
  // `%add` stays live after the patterns (annotate uses it), so the
  // transform dialect follows its op to the replacement.
  OwningOpRef<ModuleOp> script = parseModule(fixture.context, R"mlir(
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(
      %root: !transform.any_op {transform.readonly},
      %add: !transform.any_op {transform.readonly}) {
    transform.apply_patterns to %root {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.annotate %add "followed" : !transform.any_op
    transform.yield
  }
}
)mlir");
  Operation *func = findTagged(*payload, "return")->getParentOp();
  Operation *outerOp = findTagged(*payload, "outer");
  OpHandle outer = fixture.registry.getHandle(outerOp);
  OpHandle inner = fixture.registry.getHandle(findTagged(*payload, "inner"));
  OpHandle ret = fixture.registry.getHandle(findTagged(*payload, "return"));

  std::vector<TransformSequenceResult> results;
  ASSERT_TRUE(succeeded(run(fixture, func, *script, {{outer}}, results)));
  EXPECT_TRUE(results.empty());

  // (x + 1) + 2 became x + 3: a new arith.addi replaced the outer one.
  ASSERT_TRUE(outer.isLive()) << outer.describe();
  Operation *now = outer.get();
  EXPECT_EQ(now->getName().getStringRef(), "arith.addi");
  EXPECT_TRUE(now->hasAttr("followed"));
  std::vector<TrackingEvent> history = outer.getHistory();
  ASSERT_FALSE(history.empty());
  EXPECT_EQ(history.back().kind, TrackingEvent::Kind::Replaced);
  // The inner addi is gone; nothing needed it, so the interpreter dropped it.
  EXPECT_EQ(inner.getState(), HandleState::Erased);
  EXPECT_TRUE(ret.isLive());
  EXPECT_TRUE(fixture.registry.verifyAgainst(*payload).empty());
}

TEST(TransformInterpreterTest, BoundArgumentWhoseOpIsErased) {
  TransformFixture fixture;
  OwningOpRef<ModuleOp> payload = parseModule(fixture.context, R"mlir(
func.func @f(%a: i32) -> i32 {
  %dead = arith.muli %a, %a {tag = "dead"} : i32
  return {tag = "return"} %a : i32
}
)mlir");
  OwningOpRef<ModuleOp> script = parseModule(fixture.context, R"mlir(
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(
      %root: !transform.any_op {transform.readonly},
      %dead: !transform.any_op {transform.readonly}) {
    transform.apply_patterns to %root {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
}
)mlir");
  Operation *func = findTagged(*payload, "return")->getParentOp();
  OpHandle dead = fixture.registry.getHandle(findTagged(*payload, "dead"));
  std::vector<TransformSequenceResult> results;
  ASSERT_TRUE(succeeded(run(fixture, func, *script, {{dead}}, results)));
  EXPECT_EQ(dead.getState(), HandleState::Erased);
  EXPECT_EQ(dead.get(), nullptr);
  EXPECT_TRUE(fixture.registry.verifyAgainst(*payload).empty());
}

TEST(TransformInterpreterTest, FailingScriptReportsAndInvalidates) {
  TransformFixture fixture;
  OwningOpRef<ModuleOp> payload = parseModule(fixture.context, kMatmul);
  OwningOpRef<ModuleOp> script = parseModule(fixture.context, R"mlir(
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(
      %root: !transform.any_op {transform.readonly},
      %ret: !transform.any_op {transform.consumed}) {
    %t, %l = transform.structured.tile_using_for %ret tile_sizes [4]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
)mlir");
  Operation *func = findTagged(*payload, "return")->getParentOp();
  OpHandle ret = fixture.registry.getHandle(findTagged(*payload, "return"));
  OpHandle matmul = fixture.registry.getHandle(findTagged(*payload, "matmul"));
  OpHandle funcHandle = fixture.registry.getHandle(func);
  OpHandle outside =
      fixture.registry.getHandle(findTagged(*payload, "outside"));
  std::vector<TransformSequenceResult> results;
  std::string errors;
  EXPECT_TRUE(failed(run(fixture, func, *script, {{ret}}, results, &errors)));
  EXPECT_NE(errors.find("TilingInterface"), std::string::npos) << errors;
  EXPECT_EQ(ret.getState(), HandleState::Invalidated);
  EXPECT_EQ(matmul.getState(), HandleState::Invalidated);
  EXPECT_NE(matmul.describe().find("the transform script failed"),
            std::string::npos);
  EXPECT_TRUE(funcHandle.isLive());
  EXPECT_TRUE(outside.isLive());
  EXPECT_TRUE(fixture.registry.verifyAgainst(*payload).empty());
}

TEST(TransformInterpreterTest, ReadOnlyScriptKeepsHandlesLive) {
  TransformFixture fixture;
  OwningOpRef<ModuleOp> payload = parseModule(fixture.context, kMatmul);
  OwningOpRef<ModuleOp> script = parseModule(fixture.context, R"mlir(
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(
      %root: !transform.any_op {transform.readonly},
      %mm: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.annotate %mm "scheduled" : !transform.any_op
    %ret = transform.structured.match ops{["func.return"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.yield %ret : !transform.any_op
  }
}
)mlir");
  Operation *func = findTagged(*payload, "return")->getParentOp();
  Operation *matmulOp = findTagged(*payload, "matmul");
  OpHandle matmul = fixture.registry.getHandle(matmulOp);
  OpHandle ret = fixture.registry.getHandle(findTagged(*payload, "return"));
  std::vector<TransformSequenceResult> results;
  ASSERT_TRUE(succeeded(run(fixture, func, *script, {{matmul}}, results)));
  ASSERT_TRUE(matmul.isLive());
  EXPECT_EQ(matmul.get(), matmulOp);
  EXPECT_TRUE(matmul.get()->hasAttr("scheduled"));
  EXPECT_TRUE(matmul.getHistory().empty());
  ASSERT_EQ(results.size(), 1u);
  ASSERT_EQ(results[0].ops.size(), 1u);
  // The result is the caller's handle to the same op.
  EXPECT_EQ(results[0].ops[0], ret);
  EXPECT_TRUE(fixture.registry.verifyAgainst(*payload).empty());
}

TEST(TransformInterpreterTest, ConsumedPayloadInvalidatesNestedHandles) {
  TransformFixture fixture;
  OwningOpRef<ModuleOp> payload = parseModule(fixture.context, R"mlir(
func.func @f(%a: i32) -> i32 {
  %dead = arith.muli %a, %a {tag = "dead"} : i32
  %x = arith.addi %a, %a {tag = "add"} : i32
  return {tag = "return"} %x : i32
}
)mlir");
  // A pass run by the script frees ops without telling anyone: handles into
  // the consumed function cannot be vouched for.
  OwningOpRef<ModuleOp> script = parseModule(fixture.context, R"mlir(
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(
      %root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %g = transform.apply_registered_pass "canonicalize" to %f
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
)mlir");
  OpHandle dead = fixture.registry.getHandle(findTagged(*payload, "dead"));
  OpHandle add = fixture.registry.getHandle(findTagged(*payload, "add"));
  OpHandle module = fixture.registry.getHandle(*payload);
  std::vector<TransformSequenceResult> results;
  std::string errors;
  ASSERT_TRUE(succeeded(run(fixture, *payload, *script, {}, results, &errors)))
      << errors;
  EXPECT_EQ(dead.getState(), HandleState::Invalidated);
  EXPECT_EQ(add.getState(), HandleState::Invalidated);
  EXPECT_NE(add.describe().find("apply_registered_pass"), std::string::npos);
  EXPECT_TRUE(module.isLive());
  EXPECT_TRUE(fixture.registry.verifyAgainst(*payload).empty());
}

TEST(TransformInterpreterTest, BlockAndValueHandlesEndWhenAScriptRuns) {
  TransformFixture fixture;
  BlockValueRegistry units(&fixture.context);
  OwningOpRef<ModuleOp> payload = parseModule(fixture.context, R"mlir(
func.func @f(%a: i32) -> i32 {
  %x = arith.addi %a, %a {tag = "add"} : i32
  return {tag = "return"} %x : i32
}
func.func @g(%a: i32) -> i32 {
  return {tag = "other"} %a : i32
}
)mlir");
  // Even a script that changes nothing: the interpreter follows ops only,
  // and a pass or pattern it runs may free blocks and values unseen.
  OwningOpRef<ModuleOp> script = parseModule(fixture.context, R"mlir(
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(
      %root: !transform.any_op {transform.readonly}) {
    transform.yield
  }
}
)mlir");
  Operation *add = findTagged(*payload, "add");
  Operation *other = findTagged(*payload, "other");
  ValueHandle sum = units.getValueHandle(add->getResult(0));
  BlockHandle body = units.getBlockHandle(add->getBlock());
  ValueHandle outside = units.getValueHandle(other->getOperand(0));
  std::vector<TransformSequenceResult> results;
  ASSERT_TRUE(succeeded(
      run(fixture, add->getParentOp(), *script, {}, results, nullptr)));
  EXPECT_EQ(sum.getState(), HandleState::Invalidated);
  EXPECT_EQ(body.getState(), HandleState::Invalidated);
  EXPECT_NE(sum.describe().find("follows operations only"), std::string::npos)
      << sum.describe();
  // Outside the payload root when the caller holds only that root.
  EXPECT_TRUE(outside.isLive());
}

TEST(TransformInterpreterTest, WholeTreeScriptFollowsOpsOutsideThePayload) {
  TransformFixture fixture;
  OwningOpRef<ModuleOp> payload = parseModule(fixture.context, R"mlir(
func.func @f(%a: i32) -> i32 {
  return {tag = "return"} %a : i32
}
func.func private @g(%a: i32) -> i32 {
  %x = arith.addi %a, %a {tag = "unused"} : i32
  return {tag = "dropped"} %x : i32
}
func.func @h(%a: i32) -> i32 {
  %zero = arith.constant 0 : i32
  %x = arith.addi %a, %zero {tag = "folded"} : i32
  return {tag = "kept"} %x : i32
}
)mlir");
  // The script climbs from @f to the module: patterns there are followed,
  // a pass there invalidates what it consumed.
  auto climbing = [&](StringRef action) {
    return parseModule(fixture.context, (R"mlir(
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(
      %root: !transform.any_op {transform.readonly}) {
    %m = transform.get_parent_op %root {op_name = "builtin.module"}
        : (!transform.any_op) -> !transform.any_op
    )mlir" + action + R"mlir(
    transform.yield
  }
}
)mlir")
                                            .str());
  };
  Operation *f = findTagged(*payload, "return")->getParentOp();
  OpHandle fHandle = fixture.registry.getHandle(f);
  OpHandle unused = fixture.registry.getHandle(findTagged(*payload, "unused"));
  OpHandle folded = fixture.registry.getHandle(findTagged(*payload, "folded"));
  OpHandle kept = fixture.registry.getHandle(findTagged(*payload, "kept"));
  std::vector<TransformSequenceResult> results;
  std::string errors;
  OwningOpRef<ModuleOp> patterns = climbing(R"mlir(
    transform.apply_patterns to %m {
      transform.apply_patterns.canonicalization
    } : !transform.any_op)mlir");
  ASSERT_TRUE(succeeded(run(fixture, f, *patterns, {}, results, &errors,
                            /*ownsWholeTree=*/true)))
      << errors;
  EXPECT_TRUE(fHandle.isLive());
  EXPECT_EQ(folded.getState(), HandleState::Erased);
  EXPECT_TRUE(kept.isLive());
  EXPECT_TRUE(unused.isLive());
  EXPECT_TRUE(fixture.registry.verifyAgainst(*payload).empty());

  OwningOpRef<ModuleOp> pass = climbing(R"mlir(
    %n = transform.apply_registered_pass "symbol-dce" to %m
        : (!transform.any_op) -> !transform.any_op)mlir");
  ASSERT_TRUE(succeeded(run(fixture, f, *pass, {}, results, &errors,
                            /*ownsWholeTree=*/true)))
      << errors;
  EXPECT_FALSE(payload->lookupSymbol("g"));
  EXPECT_TRUE(fHandle.isLive());
  EXPECT_EQ(unused.getState(), HandleState::Invalidated);
  EXPECT_EQ(kept.getState(), HandleState::Invalidated);
  EXPECT_TRUE(fixture.registry.verifyAgainst(*payload).empty());
}

TEST(TransformInterpreterTest, BadBindingsChangeNothing) {
  TransformFixture fixture;
  OwningOpRef<ModuleOp> payload = parseModule(fixture.context, kMatmul);
  OwningOpRef<ModuleOp> script = parseModule(fixture.context, kTileScript);
  Operation *func = findTagged(*payload, "return")->getParentOp();
  OpHandle matmul = fixture.registry.getHandle(findTagged(*payload, "matmul"));
  OpHandle outside =
      fixture.registry.getHandle(findTagged(*payload, "outside"));
  std::vector<TransformSequenceResult> results;
  std::string errors;
  // Too few arguments.
  EXPECT_TRUE(failed(run(fixture, func, *script, {}, results, &errors)));
  EXPECT_NE(
      errors.find(
          "operation expects 1 extra value bindings, but 0 were provided"),
      std::string::npos)
      << errors;
  // A handle outside the payload root.
  errors.clear();
  EXPECT_TRUE(
      failed(run(fixture, func, *script, {{outside}}, results, &errors)));
  EXPECT_NE(errors.find("not the payload root nor nested in it"),
            std::string::npos)
      << errors;
  // A payload root that is neither isolated nor top-level.
  errors.clear();
  EXPECT_TRUE(failed(run(fixture, findTagged(*payload, "matmul"), *script,
                         {{matmul}}, results, &errors)));
  EXPECT_NE(errors.find("isolated from above"), std::string::npos) << errors;
  EXPECT_TRUE(matmul.isLive());
  EXPECT_TRUE(outside.isLive());
}

TEST(TransformInterpreterTest, YieldingAConsumedHandleIsRefused) {
  TransformFixture fixture;
  OwningOpRef<ModuleOp> payload = parseModule(fixture.context, kMatmul);
  OwningOpRef<ModuleOp> script = parseModule(fixture.context, R"mlir(
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(
      %root: !transform.any_op {transform.readonly},
      %mm: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %t, %l = transform.structured.tile_using_for %mm tile_sizes [4]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield %mm : !transform.any_op
  }
}
)mlir");
  Operation *func = findTagged(*payload, "return")->getParentOp();
  OpHandle matmul = fixture.registry.getHandle(findTagged(*payload, "matmul"));
  std::vector<TransformSequenceResult> results;
  std::string errors;
  EXPECT_TRUE(
      failed(run(fixture, func, *script, {{matmul}}, results, &errors)));
  EXPECT_NE(errors.find("yields as result #0"), std::string::npos) << errors;
  EXPECT_TRUE(matmul.isLive());
}

/// Counts the tasks MLIR hands to the context's thread pool and runs each
/// at once on the calling thread.
class CountingThreadPool : public llvm::ThreadPoolInterface {
public:
  std::atomic<unsigned> tasks{0};
  void wait() override {}
  void wait(llvm::ThreadPoolTaskGroup &) override {}
  unsigned getMaxConcurrency() const override { return 2; }

private:
  void asyncEnqueue(llvm::unique_function<void()> task,
                    llvm::ThreadPoolTaskGroup *) override {
    ++tasks;
    task();
  }
};

const char *const kTwoLibrarySequences = R"mlir(
module attributes {transform.with_named_sequence} {
  transform.named_sequence @first(%op: !transform.any_op {transform.readonly}) {
    transform.yield
  }
  transform.named_sequence @second(%op: !transform.any_op {transform.readonly}) {
    transform.yield
  }
  transform.named_sequence @__transform_main(
      %root: !transform.any_op {transform.readonly},
      %ret: !transform.any_op {transform.readonly}) {
    transform.include @first failures(propagate) (%ret) : (!transform.any_op) -> ()
    transform.include @second failures(propagate) (%ret) : (!transform.any_op) -> ()
    transform.yield
  }
}
)mlir";

// A pass manager's pool thread that waited for a parallel verification of
// the script could run another function's pipeline nested inside this run,
// which cleared the thread's order in the pass manager's diagnostic
// handler: that run's errors went to stderr instead of the caller's.
TEST(TransformInterpreterTest, ScriptIsVerifiedWithoutTheThreadPool) {
  CountingThreadPool pool;
  MLIRContext context(TransformFixture::makeRegistry(),
                      MLIRContext::Threading::DISABLED);
  context.setThreadPool(pool);
  context.loadAllAvailableDialects();
  HandleRegistry registry(&context);
  OwningOpRef<ModuleOp> payload = parseModule(context, kMatmul);
  OwningOpRef<ModuleOp> script = parseModule(context, kTwoLibrarySequences);
  Operation *func = findTagged(*payload, "return")->getParentOp();
  OpHandle ret = registry.getHandle(findTagged(*payload, "return"));
  std::vector<TransformSequenceResult> results;
  // The parser verifies in parallel: count the run's tasks only.
  pool.tasks = 0;
  EXPECT_TRUE(succeeded(applyTrackedNamedSequence(
      registry, func, script->lookupSymbol("__transform_main"), *script,
      {{ret}}, transform::TransformOptions(), results, TransformEventSource(),
      /*ownsWholeTree=*/false)));
  EXPECT_EQ(pool.tasks, 0u);
  EXPECT_TRUE(ret.isLive());
}

// While a run verifies its script copy it ignores the copy's warnings and
// remarks; those that other threads emit meanwhile reach the handlers.
TEST(TransformInterpreterTest, OtherThreadsRemarksPassWhileAScriptIsVerified) {
  TransformFixture fixture;
  OwningOpRef<ModuleOp> payload = parseModule(fixture.context, kMatmul);
  OwningOpRef<ModuleOp> script =
      parseModule(fixture.context, kTwoLibrarySequences);
  Operation *func = findTagged(*payload, "return")->getParentOp();
  OpHandle ret = fixture.registry.getHandle(findTagged(*payload, "return"));
  unsigned remarksSeen = 0;
  ScopedDiagnosticHandler counter(&fixture.context, [&](Diagnostic &diag) {
    // The engine calls handlers under its own lock.
    if (diag.getSeverity() == DiagnosticSeverity::Remark)
      ++remarksSeen;
    return success();
  });
  std::atomic<bool> running{true};
  unsigned remarksEmitted = 0;
  std::thread emitter([&] {
    Location loc = UnknownLoc::get(&fixture.context);
    while (running) {
      emitRemark(loc) << "from another thread";
      ++remarksEmitted;
    }
  });
  for (int i = 0; i < 200; ++i) {
    std::vector<TransformSequenceResult> results;
    EXPECT_TRUE(succeeded(applyTrackedNamedSequence(
        fixture.registry, func, script->lookupSymbol("__transform_main"),
        *script, {{ret}}, transform::TransformOptions(), results,
        TransformEventSource(), /*ownsWholeTree=*/false)));
  }
  running = false;
  emitter.join();
  EXPECT_GT(remarksEmitted, 0u);
  EXPECT_EQ(remarksSeen, remarksEmitted);
}

} // namespace
