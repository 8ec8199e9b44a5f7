//===- DifferentialFuzzer.cpp - Handles under random pipelines ------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// One case: generate a module and a pipeline, run the pipeline through
// upstream `mlir-opt` first (an upstream crash skips the case instead of
// taking the campaign down), then run it in process one pipeline element at
// a time with the tracking instrumentation and handles to a random subset of
// ops, checking after every element:
//   1. every live handle refers to an op reachable from the module, whose
//      name is the one recorded when the handle was last (re)bound, and two
//      live handles on one op compare equal;
//   2. `HandleRegistry::verifyAgainst(module)` reports nothing;
//   3. every erased or invalidated handle returns nullptr from get(), stays
//      in that state, and describe() names its state and last event;
//   4. the contract of the fallback: a precise element invalidates nothing;
//      a non-precise one leaves its anchors live and invalidates what is
//      strictly nested in them.
// At the end the printed module must equal mlir-opt's output (and a failing
// pipeline must fail in both).
//
// Then, on the same IR and handles, a few random mutations go through a
// tracked rewriter (what passes rarely do but patterns and users do): moves
// with remove() + insert() (no unlink notification) or moveOpBefore, of
// region-holding ops too, across functions; explicit op-to-op replacements,
// of zero-result ops too; and unreachable blocks filled and erased. Each is
// checked against what it must do to the handles, then a short random
// pipeline runs on the result and the checks above run again.
//
//===----------------------------------------------------------------------===//

#include "Fuzz.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tracking/HandleRegistry.h"
#include "mlir/Tracking/PassTracking.h"
#include "mlir/Tracking/TrackedRewrite.h"
#include "mlir/Tracking/TrackingListener.h"
#include "mlir/Tracking/TrackingRewriter.h"
#include "mlir/Tracking/TrackingVerifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <mutex>

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::fuzz;

namespace {
/// The buffer name of generated inputs, as it appears in locations.
constexpr llvm::StringLiteral kInputName = "fuzz-input.mlir";

/// The result of running upstream mlir-opt on a case.
struct UpstreamResult {
  bool ran = false;
  bool crashed = false;
  bool succeeded = false;
  std::string output;
  std::string errors;
};

/// A temporary file removed on destruction.
struct TempFile {
  explicit TempFile(StringRef suffix) {
    if (llvm::sys::fs::createTemporaryFile("tracking-fuzz", suffix, path))
      path.clear();
  }
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
  SmallString<128> path;
};

std::string readFile(StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}

bool writeFile(StringRef path, StringRef text) {
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  if (error)
    return false;
  os << text;
  return true;
}

UpstreamResult runUpstream(StringRef mlirOpt, StringRef input,
                           StringRef pipeline) {
  UpstreamResult result;
  TempFile in(".mlir"), out(".mlir"), err(".txt");
  if (in.path.empty() || out.path.empty() || err.path.empty() ||
      !writeFile(in.path, input))
    return result;
  std::string pipelineArg = ("--pass-pipeline=" + pipeline).str();
  std::string outArg = ("-o=" + out.path).str();
  SmallVector<StringRef> args = {mlirOpt, in.path, pipelineArg, outArg};
  std::optional<StringRef> redirects[] = {StringRef(""), std::nullopt,
                                          StringRef(err.path)};
  std::string message;
  bool failedToExecute = false;
  int rc = llvm::sys::ExecuteAndWait(
      mlirOpt, args, /*Env=*/std::nullopt, redirects, /*SecondsToWait=*/60,
      /*MemoryLimit=*/0, &message, &failedToExecute);
  if (failedToExecute) {
    result.errors = message;
    return result;
  }
  result.ran = true;
  result.crashed = rc < 0;
  result.succeeded = rc == 0;
  result.output = readFile(out.path);
  result.errors = readFile(err.path);
  return result;
}

StringRef trimTrailing(StringRef text) { return text.rtrim(" \n\t"); }

/// Where a handle sat before a pipeline element ran.
enum class Placement { Module, Function, InFunction, Other };

struct Tracked {
  OpHandle handle;
  /// For the reproducer: the op as first seen.
  std::string firstSeen;
  HandleState lastState = HandleState::Live;
  Placement placement = Placement::Other;
};

Placement getPlacement(Operation *op, Operation *module) {
  if (op == module)
    return Placement::Module;
  if (isa<func::FuncOp>(op) && op->getParentOp() == module)
    return Placement::Function;
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    if (isa<func::FuncOp>(parent) && parent->getParentOp() == module)
      return Placement::InFunction;
  return Placement::Other;
}

/// How many mutations of each kind a campaign made.
struct MutationStats {
  uint64_t removeInsertMoves = 0;
  uint64_t rewriterMoves = 0;
  uint64_t regionOpMoves = 0;
  uint64_t crossFunctionMoves = 0;
  uint64_t explicitReplacements = 0;
  uint64_t zeroResultReplacements = 0;
  uint64_t blocksErased = 0;
  uint64_t handlesChecked = 0;
};

/// Random IR changes through the tracking listener, each checked against
/// what it must do to the handles. Every change keeps the IR valid: an op is
/// made self-contained (the values it uses from outside are rematerialized
/// right before it, and its results' uses get rematerialized values) before
/// it moves.
class Mutator {
public:
  Mutator(Random &rng, ModuleOp module, std::vector<Tracked> &handles,
          HandleRegistry &registry, MutationStats &stats)
      : rng(rng), module(module), handles(handles), registry(registry),
        stats(stats), rewriter(module.getContext()) {}

  /// Makes one mutation; returns its description ("" if none applied) and
  /// appends what it did wrong to `problems`.
  std::string mutate(std::vector<std::string> &problems) {
    // The op of every live handle, before.
    snapshot.clear();
    for (size_t i = 0; i < handles.size(); ++i)
      if (Operation *op = handles[i].handle.get())
        snapshot.push_back({i, op});
    expectedOp.clear();
    expectErased.clear();

    std::string what;
    switch (rng.below(3)) {
    case 0:
      what = move();
      break;
    case 1:
      what = replace();
      break;
    default:
      what = fillAndEraseBlock();
      break;
    }
    if (what.empty())
      return what;
    check(what, problems);
    return what;
  }

private:
  /// Ops that may move or be replaced: inside a function, not terminators,
  /// and (for moves) no calls, which could make a function recursive.
  std::vector<Operation *> candidates(bool forMove) {
    std::vector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (!op->getParentOfType<func::FuncOp>() ||
          op->hasTrait<OpTrait::IsTerminator>() || op->getNumSuccessors())
        return;
      if (forMove) {
        bool hasCall = false;
        op->walk([&](func::CallOp) { hasCall = true; });
        if (hasCall)
          return;
      }
      ops.push_back(op);
    });
    return ops;
  }

  /// Picks an op, preferring those with regions half of the time.
  Operation *pick(const std::vector<Operation *> &ops, bool preferRegions) {
    if (ops.empty())
      return nullptr;
    if (preferRegions) {
      std::vector<Operation *> withRegions;
      for (Operation *op : ops)
        if (op->getNumRegions())
          withRegions.push_back(op);
      if (!withRegions.empty())
        return rng.pick(withRegions);
    }
    return rng.pick(ops);
  }

  static bool canMaterialize(Type type) {
    if (isa<IntegerType, IndexType, FloatType>(type))
      return true;
    auto memref = dyn_cast<MemRefType>(type);
    return memref && memref.hasStaticShape();
  }

  /// A new value of `type` at the insertion point.
  Value materialize(Type type, Location loc) {
    if (isa<IntegerType>(type))
      return arith::ConstantOp::create(rewriter, loc,
                                       rewriter.getIntegerAttr(type, 0));
    if (isa<IndexType>(type))
      return arith::ConstantIndexOp::create(rewriter, loc, 0);
    if (isa<FloatType>(type))
      return arith::ConstantOp::create(rewriter, loc,
                                       rewriter.getFloatAttr(type, 0.0));
    return memref::AllocaOp::create(rewriter, loc, cast<MemRefType>(type));
  }

  /// Makes `op` independent of the values around it. The ops it now uses
  /// are appended to `carried` (they must move with it). False if a type
  /// cannot be rematerialized (nothing changed then).
  bool makeSelfContained(Operation *op, std::vector<Operation *> &carried) {
    llvm::SetVector<Value> external;
    op->walk([&](Operation *inner) {
      for (Value value : inner->getOperands()) {
        Operation *owner = value.getDefiningOp();
        if (!owner)
          owner = value.getParentBlock()->getParentOp();
        if (!op->isAncestor(owner))
          external.insert(value);
      }
    });
    for (Value value : external)
      if (!canMaterialize(value.getType()))
        return false;
    for (Value result : op->getResults())
      if (!result.use_empty() && !canMaterialize(result.getType()))
        return false;
    rewriter.setInsertionPoint(op);
    for (Value result : op->getResults())
      if (!result.use_empty())
        rewriter.replaceAllUsesWith(
            result, materialize(result.getType(), op->getLoc()));
    for (Value value : external) {
      Value local = materialize(value.getType(), op->getLoc());
      carried.push_back(local.getDefiningOp());
      rewriter.replaceUsesWithIf(value, local, [&](OpOperand &use) {
        return op->isAncestor(use.getOwner());
      });
    }
    return true;
  }

  /// Moves `ops` (in order) before `before`, with remove() + insert() or
  /// with moveOpBefore.
  void moveAll(ArrayRef<Operation *> ops, Operation *before,
               bool removeInsert) {
    for (Operation *op : ops) {
      if (removeInsert) {
        op->remove();
        rewriter.setInsertionPoint(before);
        rewriter.insert(op);
      } else {
        rewriter.moveOpBefore(op, before);
      }
    }
    if (removeInsert)
      ++stats.removeInsertMoves;
    else
      ++stats.rewriterMoves;
  }

  /// The ops of every block in a function, except in `exclude`, to insert
  /// before (terminators included: inserting before one is fine).
  std::vector<Operation *> insertionPoints(Operation *exclude) {
    std::vector<Operation *> points;
    module.walk([&](Operation *op) {
      if (op->getParentOfType<func::FuncOp>() && !exclude->isAncestor(op))
        points.push_back(op);
    });
    return points;
  }

  std::string move() {
    Operation *op = pick(candidates(/*forMove=*/true), rng.chance(60));
    if (!op)
      return "";
    std::vector<Operation *> points = insertionPoints(op);
    if (points.empty())
      return "";
    Operation *before = rng.pick(points);
    std::vector<Operation *> carried;
    if (!makeSelfContained(op, carried))
      return "";
    carried.push_back(op);
    // Moving before one of the carried ops (or the op itself) moves nothing.
    if (llvm::is_contained(carried, before))
      return "";
    auto oldFunc = op->getParentOfType<func::FuncOp>();
    bool removeInsert = rng.chance(60);
    std::string what =
        std::string(removeInsert ? "remove()+insert()" : "moveOpBefore") +
        " of " + describe(op) + " before " + describe(before);
    moveAll(carried, before, removeInsert);
    if (op->getNumRegions())
      ++stats.regionOpMoves;
    if (op->getParentOfType<func::FuncOp>() != oldFunc)
      ++stats.crossFunctionMoves;
    // Every handle keeps its op.
    return what;
  }

  std::string replace() {
    std::vector<Operation *> ops = candidates(/*forMove=*/false);
    if (ops.empty())
      return "";
    std::vector<Operation *> zeroResults;
    for (Operation *op : ops)
      if (op->getNumResults() == 0)
        zeroResults.push_back(op);
    Operation *op = !zeroResults.empty() && rng.chance(50)
                        ? rng.pick(zeroResults)
                        : pick(ops, rng.chance(30));
    std::string what = "replaceOp(" + describe(op) + ", its clone)";
    rewriter.setInsertionPoint(op);
    Operation *clone = rewriter.clone(*op);
    expectReplaced(op, clone);
    rewriter.replaceOp(op, clone);
    ++stats.explicitReplacements;
    if (clone->getNumResults() == 0)
      ++stats.zeroResultReplacements;
    return what;
  }

  std::string fillAndEraseBlock() {
    std::vector<func::FuncOp> funcs;
    module.walk([&](func::FuncOp func) {
      if (!func.isExternal() &&
          llvm::all_of(func.getResultTypes(), canMaterialize))
        funcs.push_back(func);
    });
    if (funcs.empty())
      return "";
    func::FuncOp func = rng.pick(funcs);
    Location loc = func.getLoc();
    // An unreachable block ending in a return, with a tracked op of its own.
    Block *block = rewriter.createBlock(&func.getBody(), func.getBody().end());
    rewriter.setInsertionPointToEnd(block);
    SmallVector<Value> values;
    for (Type type : func.getResultTypes())
      values.push_back(materialize(type, loc));
    Operation *fresh = materialize(rewriter.getI32Type(), loc).getDefiningOp();
    auto ret = func::ReturnOp::create(rewriter, loc, values);
    track(fresh);
    track(ret);
    std::string what = "new block in " + describe(func);
    // Move an op in, perhaps from another function.
    Operation *op = pick(candidates(/*forMove=*/true), rng.chance(60));
    std::vector<Operation *> carried;
    if (op && op->getBlock() != block && makeSelfContained(op, carried)) {
      carried.push_back(op);
      what += ", " + describe(op) + " moved in";
      moveAll(carried, ret, rng.chance(60));
    }
    if (!rng.chance(70))
      return what + " (kept)";
    for (Operation &inner : *block)
      inner.walk([&](Operation *nested) { expectErased.insert(nested); });
    rewriter.eraseBlock(block);
    ++stats.blocksErased;
    return what + ", erased";
  }

  void track(Operation *op) {
    Tracked tracked;
    tracked.handle = registry.getHandle(op);
    tracked.firstSeen = tracked.handle.getLastName() + " at " +
                        tracked.handle.getLastLocation() + " (mutation)";
    handles.push_back(std::move(tracked));
    snapshot.push_back({handles.size() - 1, op});
  }

  void expectReplaced(Operation *op, Operation *by) {
    expectedOp[op] = by;
    op->walk([&](Operation *nested) {
      if (nested != op)
        expectErased.insert(nested);
    });
  }

  static std::string describe(Operation *op) {
    std::string text = op->getName().getStringRef().str();
    if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
      text += " at " + std::to_string(loc.getLine()) + ":" +
              std::to_string(loc.getColumn());
    return text;
  }

  void check(StringRef what, std::vector<std::string> &problems) {
    for (auto [index, before] : snapshot) {
      ++stats.handlesChecked;
      Tracked &tracked = handles[index];
      std::string who =
          "after " + what.str() + ": handle to " + tracked.firstSeen;
      HandleState state = tracked.handle.getState();
      Operation *now = tracked.handle.get();
      if (expectErased.contains(before)) {
        if (state != HandleState::Erased)
          problems.push_back(who + " should be erased but is " +
                             tracked.handle.describe());
        continue;
      }
      Operation *expected = expectedOp.lookup(before);
      if (!expected)
        expected = before;
      if (now != expected)
        problems.push_back(who + " should refer to " +
                           (expected == before ? "the same op as before"
                                               : "the replacement op") +
                           " but " + tracked.handle.describe());
    }
    for (std::string &problem : registry.verifyAgainst(module))
      problems.push_back("after " + what.str() + ": registry: " + problem);
  }

  Random &rng;
  ModuleOp module;
  std::vector<Tracked> &handles;
  HandleRegistry &registry;
  MutationStats &stats;
  TrackingRewriter rewriter;
  std::vector<std::pair<size_t, Operation *>> snapshot;
  llvm::DenseMap<Operation *, Operation *> expectedOp;
  llvm::DenseSet<Operation *> expectErased;
};

/// Pseudo pipeline elements run after the mutations through the tracked
/// pattern drivers (TrackedRewrite.h) instead of a pass manager, with the
/// canonicalization patterns `canonicalize` uses.
constexpr StringLiteral kGreedyDriverStep = "(tracked greedy driver)";
constexpr StringLiteral kWalkDriverStep = "(tracked walk driver)";

bool isDriverStep(StringRef element) {
  return element == kGreedyDriverStep || element == kWalkDriverStep;
}

/// The canonicalization patterns of every loaded dialect and registered op
/// (as the `canonicalize` pass collects them), or of the `arith` ops only:
/// the walk driver requires patterns that change nothing but the matched op,
/// which `arith`'s are and, for example, `cf`'s block merging is not.
FrozenRewritePatternSet getCanonicalizationPatterns(MLIRContext *context,
                                                    bool arithOnly) {
  RewritePatternSet patterns(context);
  if (!arithOnly)
    for (Dialect *dialect : context->getLoadedDialects())
      dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : context->getRegisteredOperations())
    if (!arithOnly || op.getDialectNamespace() == "arith")
      op.getCanonicalizationPatterns(patterns, context);
  return FrozenRewritePatternSet(std::move(patterns));
}

/// Runs a driver step on `module`; the greedy driver as `canonicalize` does
/// (top-down, normal region simplification), under either name rule.
/// Returns false if the driver reports failure (it did not converge).
bool runDriverStep(StringRef step, ModuleOp module, Random &rng) {
  ScopedRewriteAttribution attribution(step, module);
  FrozenRewritePatternSet patterns = getCanonicalizationPatterns(
      module.getContext(), /*arithOnly=*/step == kWalkDriverStep);
  TrackingConfig tracking;
  tracking.requireMatchingReplacementOpName = rng.chance(50);
  if (step == kWalkDriverStep) {
    walkAndApplyPatternsTracked(module, patterns, tracking);
    return true;
  }
  GreedyRewriteConfig config;
  config.setUseTopDownTraversal(true).setRegionSimplificationLevel(
      GreedySimplifyRegionLevel::Normal);
  return succeeded(
      applyPatternsGreedilyTracked(module, patterns, config, tracking));
}

/// Runs cases and accumulates statistics.
class Fuzzer {
public:
  Fuzzer(const FuzzOptions &options, const DialectRegistry &registry,
         llvm::raw_ostream &os)
      : options(options), registry(registry), os(os) {}

  FuzzStats run() {
    for (uint64_t i = 0; i < options.count; ++i) {
      runCase(options.start + i);
      if (options.maxFindings && stats.findings >= options.maxFindings) {
        os << "tracking-fuzz: stopping after " << stats.findings
           << " findings\n";
        break;
      }
    }
    if (options.track)
      os << "tracking-fuzz: mutations: " << mutationStats.removeInsertMoves
         << " remove()+insert() moves, " << mutationStats.rewriterMoves
         << " moveOpBefore moves (" << mutationStats.regionOpMoves
         << " of region ops, " << mutationStats.crossFunctionMoves
         << " across functions), " << mutationStats.explicitReplacements
         << " explicit replacements (" << mutationStats.zeroResultReplacements
         << " of zero-result ops), " << mutationStats.blocksErased
         << " blocks erased; " << mutationStats.handlesChecked
         << " handles checked after them\n";
    return stats;
  }

private:
  void runCase(uint64_t index);
  void checkHandles(std::vector<Tracked> &handles, HandleRegistry &registry,
                    ModuleOp module, StringRef element, bool failedElement,
                    std::vector<std::string> &problems);
  void report(uint64_t index, StringRef input, ArrayRef<std::string> pipeline,
              bool threaded, const std::vector<Tracked> &handles,
              ArrayRef<std::string> problems, StringRef diagnostics);
  /// Runs upstream mlir-opt with `element` on `module` as it is now; true
  /// (the case's remaining steps are skipped) if it crashed there.
  bool upstreamCrashesOn(ModuleOp module, StringRef element, uint64_t index);

  llvm::ThreadPoolInterface &getThreadPool() {
    if (!threadPool)
      threadPool = std::make_unique<llvm::DefaultThreadPool>(
          llvm::hardware_concurrency(options.threads));
    return *threadPool;
  }

  const FuzzOptions &options;
  const DialectRegistry &registry;
  llvm::raw_ostream &os;
  FuzzStats stats;
  MutationStats mutationStats;
  std::unique_ptr<llvm::DefaultThreadPool> threadPool;
};

bool Fuzzer::upstreamCrashesOn(ModuleOp module, StringRef element,
                               uint64_t index) {
  std::string text;
  {
    llvm::raw_string_ostream textOs(text);
    module->print(textOs);
  }
  UpstreamResult result =
      runUpstream(options.mlirOptPath, text, joinPipeline({element.str()}));
  if (result.ran && !result.crashed)
    return false;
  ++stats.upstreamCrashes;
  if (options.verbose)
    os << "case " << index << ": upstream mlir-opt crashed on " << element
       << " after a driver step; skipped\n";
  return true;
}

void Fuzzer::runCase(uint64_t index) {
  Random rng(getCaseSeed(options.seed, index));
  std::string input = generateModule(rng);
  std::vector<std::string> pipeline = generatePipeline(rng);
  std::string fullPipeline = joinPipeline(pipeline);
  bool threaded = options.threadedEvery && index % options.threadedEvery == 0;
  unsigned handlePercent = rng.range(15, 70);
  ++stats.cases;

  UpstreamResult upstream;
  if (!options.mlirOptPath.empty()) {
    upstream = runUpstream(options.mlirOptPath, input, fullPipeline);
    if (!upstream.ran) {
      os << "tracking-fuzz: cannot run '" << options.mlirOptPath
         << "': " << upstream.errors << "\n";
      ++stats.findings;
      return;
    }
    if (upstream.crashed) {
      // The same input would crash this process too: skip it, loudly.
      ++stats.upstreamCrashes;
      SmallString<128> path(options.reproDir);
      llvm::sys::path::append(
          path, "tracking-fuzz-" + std::to_string(options.seed) + "-" +
                    std::to_string(index) + "-upstream-crash.mlir");
      writeFile(path, input);
      os << "tracking-fuzz: case " << index
         << ": upstream mlir-opt crashed, case skipped (" << path << ", "
         << fullPipeline << ")\n";
      return;
    }
  }

  std::vector<std::string> problems;
  std::string diagnostics;
  std::vector<Tracked> handles;
  {
    MLIRContext context(registry, MLIRContext::Threading::DISABLED);
    if (threaded) {
      context.setThreadPool(getThreadPool());
      ++stats.threadedCases;
    }
    ScopedDiagnosticHandler diagHandler(&context, [&](Diagnostic &diag) {
      llvm::raw_string_ostream diagOs(diagnostics);
      diagOs << diag.getLocation() << ": " << diag << "\n";
      for (Diagnostic &note : diag.getNotes())
        diagOs << "  note: " << note << "\n";
      return success();
    });

    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(input, ParserConfig(&context), kInputName);
    if (!module) {
      problems.push_back("the generator produced IR that does not parse");
      report(index, input, pipeline, threaded, handles, problems, diagnostics);
      return;
    }

    // Load what the whole pipeline depends on up front, as mlir-opt does
    // before running it: canonicalize collects the patterns of the dialects
    // loaded when it is initialized.
    {
      PassManager full(&context, ModuleOp::getOperationName());
      std::string error;
      llvm::raw_string_ostream errorOs(error);
      if (failed(parsePassPipeline(llvm::join(pipeline, ","), full, errorOs))) {
        problems.push_back("the generated pipeline does not parse: " + error);
        report(index, input, pipeline, threaded, handles, problems,
               diagnostics);
        return;
      }
      DialectRegistry dependencies;
      full.getDependentDialects(dependencies);
      context.appendDialectRegistry(dependencies);
      for (StringRef name : dependencies.getDialectNames())
        context.getOrLoadDialect(name);
    }

    auto tracking = std::make_unique<HandleRegistry>(&context);
    auto takeHandles = [&](unsigned percent) {
      module->getOperation()->walk([&](Operation *op) {
        if (!rng.chance(percent))
          return;
        Tracked tracked;
        tracked.handle = tracking->getHandle(op);
        tracked.firstSeen = tracked.handle.getLastName() + " at " +
                            tracked.handle.getLastLocation();
        handles.push_back(std::move(tracked));
      });
    };
    if (options.track)
      takeHandles(handlePercent);

    bool ok = true;
    for (size_t step = 0; step < pipeline.size() && ok; ++step) {
      const std::string &element = pipeline[step];
      for (Tracked &tracked : handles)
        if (Operation *op = tracked.handle.get())
          tracked.placement = getPlacement(op, module->getOperation());

      PassManager pm(&context, ModuleOp::getOperationName());
      std::string error;
      llvm::raw_string_ostream errorOs(error);
      if (failed(parsePassPipeline(element, pm, errorOs))) {
        problems.push_back("pipeline element '" + element +
                           "' does not parse: " + error);
        break;
      }
      // The self-check names a precise pass that broke the registry.
      std::mutex verificationMutex;
      std::vector<std::string> verificationFailures;
      if (options.track) {
        enableTracking(pm, *tracking);
        enableTrackingVerification(
            pm, *tracking, [&](const TrackingVerificationFailure &failure) {
              std::lock_guard<std::mutex> lock(verificationMutex);
              verificationFailures.push_back(failure.str());
            });
      }
      ok = succeeded(pm.run(*module));
      for (std::string &failure : verificationFailures)
        problems.push_back("after '" + element + "': " + failure);
      ++stats.passesRun;

      std::vector<std::string> stepProblems;
      checkHandles(handles, *tracking, *module, element, !ok, stepProblems);
      for (std::string &problem : stepProblems)
        problems.push_back("after '" + element + "' (element " +
                           std::to_string(step + 1) + " of " +
                           std::to_string(pipeline.size()) + "): " + problem);

      // Exercise address reuse: new handles on whatever ops exist now, and
      // let some handles go (unmapping their records).
      if (options.track && ok && rng.chance(50))
        takeHandles(rng.range(5, 30));
      if (rng.chance(30) && !handles.empty())
        handles.erase(handles.begin() + rng.below(handles.size()));
    }
    if (!ok)
      ++stats.failedPipelines;

    if (upstream.ran) {
      if (ok != upstream.succeeded) {
        problems.push_back(
            std::string("the pipeline ") + (ok ? "succeeded" : "failed") +
            " in process but " + (upstream.succeeded ? "succeeded" : "failed") +
            " in mlir-opt" +
            (upstream.errors.empty() ? "" : ": " + upstream.errors));
      } else if (ok) {
        std::string printed;
        llvm::raw_string_ostream printedOs(printed);
        module->print(printedOs);
        if (trimTrailing(printed) != trimTrailing(upstream.output))
          problems.push_back("the final IR differs from mlir-opt's:\n"
                             "--- tracking-fuzz\n" +
                             printed + "--- mlir-opt\n" + upstream.output);
      }
    }

    // Mutations through the tracked rewriter, then a short pipeline over
    // their result.
    if (options.track && ok && problems.empty() && succeeded(verify(*module))) {
      ScopedRewriteAttribution attribution("fuzz-mutation", *module);
      Mutator mutator(rng, *module, handles, *tracking, mutationStats);
      unsigned count = rng.range(1, 4);
      std::vector<std::string> done;
      for (unsigned i = 0; i < count && problems.empty(); ++i) {
        std::string what = mutator.mutate(problems);
        if (!what.empty())
          done.push_back(what);
      }
      if (!done.empty())
        pipeline.push_back("(mutations: " + llvm::join(done, "; ") + ")");
      if (problems.empty() && failed(verify(*module)))
        problems.push_back("the mutations left invalid IR: " +
                           llvm::join(done, "; "));
      std::vector<std::string> after = generatePipeline(rng);
      after.resize(std::min<size_t>(after.size(), 2));
      // Sometimes the pattern drivers instead of a pass manager.
      if (rng.chance(30))
        after.insert(after.begin() + rng.below(after.size() + 1),
                     rng.chance(50) ? kGreedyDriverStep.str()
                                    : kWalkDriverStep.str());
      // The mutated module, kept if the case finds something (or crashes
      // this process): the input of the pipeline that follows.
      SmallString<128> mutatedPath(options.reproDir);
      llvm::sys::path::append(
          mutatedPath, "tracking-fuzz-" + std::to_string(options.seed) + "-" +
                           std::to_string(index) + "-mutated.mlir");
      std::string mutatedText;
      {
        llvm::raw_string_ostream textOs(mutatedText);
        module->print(textOs);
        writeFile(mutatedPath, mutatedText);
      }
      // Upstream passes crash on some shapes the mutations make (unreachable
      // blocks, for one): run upstream first, as for the generated input.
      if (!options.mlirOptPath.empty() && !after.empty()) {
        // A driver step applies the patterns `canonicalize` applies.
        std::vector<std::string> guard = after;
        for (std::string &element : guard)
          if (isDriverStep(element))
            element = "canonicalize";
        UpstreamResult afterUpstream =
            runUpstream(options.mlirOptPath, mutatedText, joinPipeline(guard));
        if (!afterUpstream.ran || afterUpstream.crashed) {
          ++stats.upstreamCrashes;
          if (options.verbose)
            os << "case " << index << ": upstream mlir-opt crashed on "
               << joinPipeline(after) << " after the mutations; skipped\n";
          after.clear();
        }
      }
      if (options.verbose) {
        os << "case " << index << ": mutations: " << llvm::join(done, "; ")
           << "; then " << joinPipeline(after) << " on " << mutatedPath << "\n";
        os.flush();
      }
      bool ranDriverStep = false;
      for (size_t step = 0; step < after.size() && ok && problems.empty();
           ++step) {
        const std::string &element = after[step];
        pipeline.push_back(element);
        for (Tracked &tracked : handles)
          if (Operation *op = tracked.handle.get())
            tracked.placement = getPlacement(op, module->getOperation());
        bool elementOk;
        if (isDriverStep(element)) {
          elementOk = runDriverStep(element, *module, rng);
          ranDriverStep = true;
          ++stats.driverRuns;
        } else {
          // The guard above ran `canonicalize` in place of the driver steps
          // that came before, which need not give the IR this pass gets:
          // guard it again on that IR (upstream passes crash on some shapes).
          if (ranDriverStep && !options.mlirOptPath.empty() &&
              upstreamCrashesOn(*module, element, index))
            break;
          PassManager pm(&context, ModuleOp::getOperationName());
          std::string error;
          llvm::raw_string_ostream errorOs(error);
          if (failed(parsePassPipeline(element, pm, errorOs)))
            break;
          enableTracking(pm, *tracking);
          elementOk = succeeded(pm.run(*module));
          ++stats.passesRun;
        }
        std::vector<std::string> stepProblems;
        checkHandles(handles, *tracking, *module, element, !elementOk,
                     stepProblems);
        for (std::string &problem : stepProblems)
          problems.push_back("after the mutations, after '" + element +
                             "': " + problem);
        if (!elementOk)
          break;
      }
      if (!problems.empty()) {
        problems.push_back("the mutated module is " + mutatedPath.str().str());
        report(index, input, pipeline, threaded, handles, problems,
               diagnostics);
      } else {
        llvm::sys::fs::remove(mutatedPath);
      }
      problems.clear();
    }

    for (const Tracked &tracked : handles) {
      switch (tracked.handle.getState()) {
      case HandleState::Live:
        ++stats.endLive;
        break;
      case HandleState::Erased:
        ++stats.endErased;
        break;
      case HandleState::Invalidated:
        ++stats.endInvalidated;
        break;
      }
      for (const TrackingEvent &event : tracked.handle.getHistory())
        if (event.kind == TrackingEvent::Kind::Replaced)
          ++stats.replacementsFollowed;
    }

    if (options.verbose)
      os << "case " << index << ": " << pipeline.size() << " elements "
         << fullPipeline << ", " << handles.size() << " handles"
         << (threaded ? ", threaded" : "") << (ok ? "" : ", pipeline failed")
         << (problems.empty() ? ", ok" : ", FINDING") << "\n";
    if (!problems.empty())
      report(index, input, pipeline, threaded, handles, problems, diagnostics);

    // Handles may outlive the registry, which must die before the context.
    tracking.reset();
    std::vector<std::string> late;
    for (Tracked &tracked : handles)
      if (tracked.handle.get() || tracked.handle.isLive())
        late.push_back("handle to " + tracked.firstSeen +
                       " is still live after its registry died");
    if (!late.empty())
      report(index, input, pipeline, threaded, handles, late, diagnostics);
  }
}

void Fuzzer::checkHandles(std::vector<Tracked> &handles,
                          HandleRegistry &registry, ModuleOp module,
                          StringRef element, bool failedElement,
                          std::vector<std::string> &problems) {
  llvm::DenseSet<Operation *> present;
  module->walk([&](Operation *op) { present.insert(op); });
  bool precise = isDriverStep(element) || isPreciseElement(element);
  bool nested = element.starts_with("func.func(");
  llvm::DenseMap<Operation *, const void *> keyOfOp;

  for (Tracked &tracked : handles) {
    ++stats.handlesChecked;
    const OpHandle &handle = tracked.handle;
    HandleState state = handle.getState();
    Operation *op = handle.get();
    std::string who = "handle to '" + handle.getLastName() + "' at " +
                      handle.getLastLocation() + " (first seen as " +
                      tracked.firstSeen + ")";

    if (tracked.lastState != HandleState::Live && state != tracked.lastState)
      problems.push_back(who + " went from " +
                         stringifyHandleState(tracked.lastState).str() +
                         " to " + stringifyHandleState(state).str());

    if (state == HandleState::Live) {
      // (1) Live: reachable, same name as recorded, one key per op.
      if (!op) {
        problems.push_back(who + " is live but get() is null");
      } else if (!present.contains(op)) {
        problems.push_back(who + " is live but refers to an op that is not "
                                 "in the module");
      } else {
        if (op->getName().getStringRef() != handle.getLastName())
          problems.push_back(who + " refers to a '" +
                             op->getName().getStringRef().str() + "'");
        auto [it, inserted] = keyOfOp.try_emplace(op, handle.getKey());
        if (!inserted && it->second != handle.getKey())
          problems.push_back(who +
                             " and another live handle refer to the same op "
                             "but compare unequal");
      }
    } else {
      // (3) Not live: refuses use with the right error.
      if (op)
        problems.push_back(who + " is " + stringifyHandleState(state).str() +
                           " but get() returns an op");
      std::string description = handle.describe();
      std::string stateName = stringifyHandleState(state).str();
      if (description.find(" is " + stateName) == std::string::npos)
        problems.push_back(
            who + ": describe() does not name its state: " + description);
      std::vector<TrackingEvent> history = handle.getHistory();
      TrackingEvent::Kind expected = state == HandleState::Erased
                                         ? TrackingEvent::Kind::Erased
                                         : TrackingEvent::Kind::Invalidated;
      if (history.empty() || history.back().kind != expected)
        problems.push_back(who + " is " + stateName +
                           " but its last event is not that: " + description);
      else if (description.find(history.back().str()) == std::string::npos)
        problems.push_back(
            who + ": describe() does not name its event: " + description);
    }

    // (4) The fallback contract.
    if (tracked.lastState == HandleState::Live && !failedElement) {
      if (precise && state == HandleState::Invalidated)
        problems.push_back(who + " was invalidated by a precise pipeline "
                                 "element");
      if (!precise) {
        bool anchor = tracked.placement == Placement::Module ||
                      (nested && tracked.placement == Placement::Function);
        bool under = nested ? tracked.placement == Placement::InFunction
                            : tracked.placement != Placement::Module;
        if (anchor && state != HandleState::Live)
          problems.push_back(who +
                             " was the anchor of a non-precise pass "
                             "but is " +
                             stringifyHandleState(state).str());
        if (under && state == HandleState::Live)
          problems.push_back(who + " was nested in the anchor of a "
                                   "non-precise pass but is still live");
      }
    }
    tracked.lastState = state;
  }

  // (2) The registry against the IR.
  for (std::string &problem : registry.verifyAgainst(module))
    problems.push_back("registry: " + problem);
}

void Fuzzer::report(uint64_t index, StringRef input,
                    ArrayRef<std::string> pipeline, bool threaded,
                    const std::vector<Tracked> &handles,
                    ArrayRef<std::string> problems, StringRef diagnostics) {
  stats.findings += problems.size();
  SmallString<128> path(options.reproDir);
  llvm::sys::path::append(path, "tracking-fuzz-" +
                                    std::to_string(options.seed) + "-" +
                                    std::to_string(index) + ".mlir");
  bool written = writeFile(path, input);
  std::string fullPipeline = joinPipeline(pipeline);

  os << "tracking-fuzz: FINDING in case " << index << " (seed " << options.seed
     << (threaded ? ", threaded" : "") << ")\n";
  for (const std::string &problem : problems)
    os << "  - " << problem << "\n";
  os << "  input: " << (written ? path.str() : StringRef("(not written)"))
     << "\n";
  os << "  pipeline: " << fullPipeline << "\n";
  llvm::StringSet<> names;
  os << "  handles (" << handles.size() << "):\n";
  for (const Tracked &tracked : handles) {
    os << "    " << tracked.firstSeen << ": " << tracked.handle.describe()
       << "\n";
    names.insert(StringRef(tracked.firstSeen).split(' ').first);
  }
  std::vector<std::string> sortedNames;
  for (const auto &entry : names)
    sortedNames.push_back(entry.getKey().str());
  llvm::sort(sortedNames);
  if (!diagnostics.empty())
    os << "  diagnostics:\n" << diagnostics;
  os << "  rerun: tracking-fuzz --seed " << options.seed << " --start " << index
     << " --count 1"
     << (options.threadedEvery
             ? " --threaded-every=" + std::to_string(options.threadedEvery)
             : std::string(" --threaded-every=0"))
     << "\n";
  os << "  lit:   // RUN: tracking-opt %s '--pass-pipeline=" << fullPipeline
     << "' --track-ops=" << llvm::join(sortedNames, ",")
     << " --debug-tracking 2>&1 | FileCheck %s\n";
  os << "         // RUN: tracking-opt %s '--pass-pipeline=" << fullPipeline
     << "' --track-ops=all > %t.tracked && %mlir_opt %s '--pass-pipeline="
     << fullPipeline << "' > %t.upstream && diff %t.tracked %t.upstream\n";
}
} // namespace

FuzzStats mlir::tracking::fuzz::runFuzzer(const FuzzOptions &options,
                                          const DialectRegistry &registry,
                                          llvm::raw_ostream &os) {
  return Fuzzer(options, registry, os).run();
}
