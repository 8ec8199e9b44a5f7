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
//===----------------------------------------------------------------------===//

#include "Fuzz.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tracking/HandleRegistry.h"
#include "mlir/Tracking/PassTracking.h"
#include "mlir/Tracking/TrackingVerifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
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
  std::unique_ptr<llvm::DefaultThreadPool> threadPool;
};

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
  bool precise = isPreciseElement(element);
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
