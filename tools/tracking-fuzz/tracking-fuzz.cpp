//===- tracking-fuzz.cpp - Differential fuzzer for operation tracking -----===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Runs random pipelines over random modules with handles held, checks the
// handle contract after every pass and compares the final IR with upstream
// mlir-opt. Prints `N cases, H handles checked, F findings` last and exits
// non-zero on any finding. See docs/reliability.md.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tracking/Fuzz.h"
#include "mlir/Tracking/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static cl::opt<uint64_t> seed("seed", cl::desc("Campaign seed"), cl::init(1));
static cl::opt<uint64_t> start("start", cl::desc("First case index"),
                               cl::init(0));
static cl::opt<uint64_t> caseCount("count", cl::desc("Number of cases"),
                                   cl::init(100));
static cl::opt<std::string>
    mlirOpt("mlir-opt",
            cl::desc("Upstream mlir-opt to compare with (empty: "
                     "no differential check)"),
            cl::init("/usr/lib/llvm-22/bin/mlir-opt"));
static cl::opt<unsigned>
    threads("fuzz-threads",
            cl::desc("Threads of the multi-threaded pass manager"),
            cl::init(2));
static cl::opt<unsigned> threadedEvery(
    "threaded-every",
    cl::desc("Run every N-th case with threading on (0: never, 1: always)"),
    cl::init(3));
static cl::opt<std::string>
    reproDir("repro-dir", cl::desc("Where reproducers go"), cl::init("."));
static cl::opt<unsigned>
    maxFindings("max-findings",
                cl::desc("Stop after this many findings (0: never)"),
                cl::init(10));
static cl::opt<bool> verbose("verbose", cl::desc("One line per case"));
static cl::opt<bool>
    noTracking("no-tracking",
               cl::desc("Run the pipelines without handles or tracking (to "
                        "triage a difference from mlir-opt)"));

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  // Ours first: the first registration of a pass argument wins.
  mlir::tracking::registerTrackedPasses();
  mlir::registerAllPasses();
  cl::ParseCommandLineOptions(argc, argv, "mlir-tracking differential fuzzer");

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
  options.reproDir = reproDir;
  options.maxFindings = maxFindings;
  options.verbose = verbose;
  options.track = !noTracking;
  mlir::tracking::fuzz::FuzzStats stats =
      mlir::tracking::fuzz::runFuzzer(options, registry, outs());

  outs() << "(" << stats.passesRun << " pipeline elements run, "
         << stats.threadedCases << " threaded cases, " << stats.failedPipelines
         << " failing pipelines, " << stats.upstreamCrashes
         << " upstream crashes skipped; handles at the end: " << stats.endLive
         << " live, " << stats.endErased << " erased, " << stats.endInvalidated
         << " invalidated; " << stats.replacementsFollowed
         << " replacements followed)\n";
  outs() << stats.cases << " cases, " << stats.handlesChecked
         << " handles checked, " << stats.findings << " findings\n";
  return stats.findings ? 1 : 0;
}
