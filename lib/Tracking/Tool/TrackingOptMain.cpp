//===- TrackingOptMain.cpp - mlir-opt with tracked handles ----------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "mlir/Tracking/TrackingOptMain.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Tracking/HandleRegistry.h"
#include "mlir/Tracking/PassTracking.h"
#include "mlir/Tracking/TrackingListener.h"
#include "mlir/Tracking/TrackingVerifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <memory>
#include <mutex>

using namespace mlir;
using namespace mlir::tracking;

namespace {
/// Takes the handles before the first pass, prints their events after each
/// pass and a summary when the pass manager goes away. Registered before the
/// TrackingInstrumentation, so its "after" hooks run after the invalidation.
class DebugTrackingSession : public PassInstrumentation {
public:
  DebugTrackingSession(MLIRContext *context, llvm::StringSet<> opNames,
                       bool trackAll, bool print)
      : registry(std::make_unique<HandleRegistry>(context)),
        opNames(std::move(opNames)), trackAll(trackAll), print(print) {
    registry->setEventObserver([this](const TrackingEvent &event) {
      std::lock_guard<std::mutex> lock(eventsMutex);
      events[{event.passKey, event.anchorKey}].push_back(event);
    });
  }

  ~DebugTrackingSession() override {
    if (!print)
      return;
    size_t counts[3] = {0, 0, 0};
    for (const OpHandle &handle : handles)
      ++counts[static_cast<int>(handle.getState())];
    llvm::errs() << "tracking: summary: " << handles.size()
                 << " tracked ops: " << counts[0] << " live, " << counts[1]
                 << " erased, " << counts[2] << " invalidated\n";
    handles.clear();
    registry.reset();
  }

  HandleRegistry &getRegistry() { return *registry; }

  void runBeforePass(Pass *pass, Operation *anchor) override {
    if (started)
      return;
    started = true;
    anchor->walk([&](Operation *op) {
      if (trackAll || opNames.contains(op->getName().getStringRef()))
        handles.push_back(registry->getHandle(op));
    });
    if (print)
      llvm::errs() << "tracking: tracking " << handles.size() << " ops\n";
  }

  void runAfterPass(Pass *pass, Operation *anchor) override {
    printEvents(pass, anchor);
  }
  void runAfterPassFailed(Pass *pass, Operation *anchor) override {
    printEvents(pass, anchor);
  }

private:
  void printEvents(Pass *pass, Operation *anchor) {
    if (!print || isPassAdaptor(*pass))
      return;
    std::vector<TrackingEvent> mine;
    {
      std::lock_guard<std::mutex> lock(eventsMutex);
      auto it = events.find({pass, anchor});
      if (it == events.end())
        return;
      mine = std::move(it->second);
      events.erase(it);
    }
    // One write per pass, so lines of concurrent passes do not interleave.
    std::string text;
    for (const TrackingEvent &event : mine)
      text += "tracking: " + event.str() + "\n";
    llvm::errs() << text;
  }

  std::unique_ptr<HandleRegistry> registry;
  std::vector<OpHandle> handles;
  llvm::StringSet<> opNames;
  bool trackAll;
  bool print;
  bool started = false;
  std::mutex eventsMutex;
  /// The events not printed yet, by pass execution (pass and anchor): a
  /// pass nested in another's execution (inline's canonicalize) takes its
  /// own without scanning the outer pass's, which grow with the IR.
  llvm::DenseMap<std::pair<const void *, const void *>,
                 std::vector<TrackingEvent>>
      events;
};

/// Checks that every name in --track-ops is an op the context knows.
LogicalResult verifyTrackedOpNames(MLIRContext *context,
                                   const llvm::StringSet<> &names,
                                   bool allowUnregistered) {
  for (const auto &entry : names) {
    StringRef name = entry.getKey();
    auto [dialectName, opName] = name.split('.');
    if (opName.empty()) {
      emitError(UnknownLoc::get(context))
          << "--track-ops: '" << name
          << "' is not an operation name (expected 'dialect.op' or 'all')";
      return failure();
    }
    if (allowUnregistered)
      continue;
    context->getOrLoadDialect(dialectName);
    if (!RegisteredOperationName::lookup(name, context)) {
      emitError(UnknownLoc::get(context))
          << "--track-ops: unknown operation '" << name << "'";
      return failure();
    }
  }
  return success();
}
} // namespace

LogicalResult mlir::tracking::trackingOptMain(int argc, char **argv,
                                              StringRef toolName,
                                              DialectRegistry &registry) {
  static llvm::cl::list<std::string> trackOps(
      "track-ops",
      llvm::cl::desc("Take handles to the ops with these names (or 'all') "
                     "before the pipeline runs"),
      llvm::cl::CommaSeparated);
  static llvm::cl::opt<bool> debugTracking(
      "debug-tracking",
      llvm::cl::desc("Print what happened to each tracked op after each pass "
                     "(tracks all ops unless --track-ops is given)"),
      llvm::cl::init(false));
  static llvm::cl::opt<bool> verifyTracking(
      "verify-tracking",
      llvm::cl::desc("After every pass, check the handles nested in its "
                     "anchor against the IR and fail naming the pass that "
                     "broke them (tracks all ops unless --track-ops is given)"),
      llvm::cl::init(false));

  auto [inputFilename, outputFilename] =
      registerAndParseCLIOptions(argc, argv, toolName, registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  if ((trackOps.empty() && !debugTracking && !verifyTracking) ||
      config.shouldShowDialects() || config.shouldListPasses())
    return MlirOptMain(argc, argv, inputFilename, outputFilename, registry);
  // What upstream's MlirOptMain sets up before running: the stack trace and
  // bug-report banner on a crash, and the crash reproducer's signal
  // handling.
  llvm::InitLLVM initLLVM(argc, argv);

  llvm::StringSet<> opNames;
  bool trackAll = trackOps.empty();
  for (const std::string &name : trackOps) {
    if (name == "all")
      trackAll = true;
    else
      opNames.insert(name);
  }

  // Wrap the pipeline set-up: parse the pipeline as mlir-opt does, then add
  // the session and the tracking instrumentation (in that order).
  MlirOptMainConfig pipelineConfig = config;
  bool print = debugTracking;
  bool verify = verifyTracking;
  auto verificationFailed = std::make_shared<std::atomic<bool>>(false);
  config.setPassPipelineSetupFn(
      [pipelineConfig, opNames, trackAll, print, verify,
       verificationFailed](PassManager &pm) -> LogicalResult {
        if (failed(pipelineConfig.setupPassPipeline(pm)))
          return failure();
        if (failed(verifyTrackedOpNames(
                pm.getContext(), opNames,
                pipelineConfig.shouldAllowUnregisteredDialects())))
          return failure();
        auto session = std::make_unique<DebugTrackingSession>(
            pm.getContext(), opNames, trackAll, print);
        HandleRegistry &handles = session->getRegistry();
        pm.addInstrumentation(std::move(session));
        enableTracking(pm, handles);
        if (verify)
          enableTrackingVerification(
              pm, handles,
              [verificationFailed](const TrackingVerificationFailure &) {
                verificationFailed->store(true);
              });
        return success();
      });

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return failure();
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return failure();
  }
  if (failed(MlirOptMain(output->os(), std::move(input), registry, config)))
    return failure();
  // The error was reported on the anchor; the pipeline itself succeeded.
  if (verificationFailed->load())
    return failure();
  output->keep();
  return success();
}
