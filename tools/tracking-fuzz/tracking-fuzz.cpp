//===- tracking-fuzz.cpp - Differential fuzzer for operation tracking -----===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Runs random pipelines over random modules with handles held, checks the
// handle contract after every pass and compares the final IR with upstream
// mlir-opt. Prints `N cases, H handles checked, F findings` last and exits
// non-zero on any finding. Reproducers go to --repro-dir, by default a fresh
// temporary directory (never the current one). See docs/reliability.md.
//
//===----------------------------------------------------------------------===//

#include "Fuzz.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tracking/Passes.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#ifndef MLIR_TRACKING_UPSTREAM_MLIR_OPT
#define MLIR_TRACKING_UPSTREAM_MLIR_OPT "mlir-opt"
#endif

using namespace llvm;

// --help shows these and nothing of LLVM's and MLIR's global options.
static cl::OptionCategory fuzzCategory("tracking-fuzz options");

static cl::opt<uint64_t> seed("seed", cl::desc("Campaign seed"), cl::init(1),
                              cl::cat(fuzzCategory));
static cl::opt<uint64_t> start("start", cl::desc("First case index"),
                               cl::init(0), cl::cat(fuzzCategory));
static cl::opt<uint64_t> caseCount("count", cl::desc("Number of cases"),
                                   cl::init(100), cl::cat(fuzzCategory));
static cl::opt<std::string>
    mlirOpt("mlir-opt",
            cl::desc("Upstream mlir-opt to compare with (empty: "
                     "no differential check)"),
            cl::init(MLIR_TRACKING_UPSTREAM_MLIR_OPT), cl::cat(fuzzCategory));
static cl::opt<unsigned>
    threads("fuzz-threads",
            cl::desc("Threads of the multi-threaded pass manager"), cl::init(2),
            cl::cat(fuzzCategory));
static cl::opt<unsigned> threadedEvery(
    "threaded-every",
    cl::desc("Run every N-th case with threading on (0: never, 1: always)"),
    cl::init(3), cl::cat(fuzzCategory));
static cl::opt<std::string>
    reproDir("repro-dir",
             cl::desc("Directory for reproducers, created if missing "
                      "(default: a fresh temporary directory)"),
             cl::cat(fuzzCategory));
static cl::opt<unsigned>
    maxFindings("max-findings",
                cl::desc("Stop after this many findings (0: never)"),
                cl::init(10), cl::cat(fuzzCategory));
static cl::opt<bool> verbose("verbose", cl::desc("One line per case"),
                             cl::cat(fuzzCategory));
static cl::opt<bool>
    noTracking("no-tracking",
               cl::desc("Run the pipelines without handles or tracking (to "
                        "triage a difference from mlir-opt)"),
               cl::cat(fuzzCategory));

/// The directory reproducers go to: --repro-dir (created if missing), or a
/// fresh directory under the system's temporary directory (`isTemporary`).
/// Empty on error.
static std::string prepareReproDir(bool &isTemporary) {
  isTemporary = false;
  if (!reproDir.empty()) {
    if (std::error_code ec = sys::fs::create_directories(reproDir)) {
      errs() << "tracking-fuzz: cannot create --repro-dir '" << reproDir
             << "': " << ec.message() << "\n";
      return "";
    }
    return reproDir;
  }
  SmallString<128> dir;
  if (std::error_code ec =
          sys::fs::createUniqueDirectory("tracking-fuzz", dir)) {
    errs() << "tracking-fuzz: cannot create a temporary directory: "
           << ec.message() << "\n";
    return "";
  }
  isTemporary = true;
  return std::string(dir);
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  // Ours first: the first registration of a pass argument wins.
  mlir::tracking::registerTrackedPasses();
  mlir::registerAllPasses();
  cl::HideUnrelatedOptions(fuzzCategory);
  cl::ParseCommandLineOptions(argc, argv, "mlir-tracking differential fuzzer");

  bool temporaryReproDir;
  std::string reproducers = prepareReproDir(temporaryReproDir);
  if (reproducers.empty())
    return 2;

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);

  mlir::tracking::fuzz::FuzzOptions options;
  options.seed = seed;
  options.start = start;
  options.count = caseCount;
  options.mlirOptPath = mlirOpt;
  options.threads = threads;
  options.threadedEvery = threadedEvery;
  options.reproDir = reproducers;
  options.maxFindings = maxFindings;
  options.verbose = verbose;
  options.track = !noTracking;
  mlir::tracking::fuzz::FuzzStats stats =
      mlir::tracking::fuzz::runFuzzer(options, registry, outs());

  outs() << "(" << stats.passesRun << " pipeline elements run, "
         << stats.driverRuns << " tracked pattern-driver runs, "
         << stats.threadedCases << " threaded cases, " << stats.failedPipelines
         << " failing pipelines, " << stats.upstreamCrashes
         << " upstream crashes skipped; handles at the end: " << stats.endLive
         << " live, " << stats.endErased << " erased, " << stats.endInvalidated
         << " invalidated; " << stats.replacementsFollowed
         << " replacements followed)\n";
  if (stats.findings || stats.upstreamCrashes)
    outs() << "reproducers in " << reproducers << "\n";
  else if (temporaryReproDir)
    sys::fs::remove(reproducers); // Nothing was written: leave no trace.
  outs() << stats.cases << " cases, " << stats.handlesChecked
         << " handles checked, " << stats.findings << " findings\n";
  return stats.findings ? 1 : 0;
}
