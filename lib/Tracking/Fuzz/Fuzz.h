//===- Fuzz.h - Differential fuzzing of operation tracking ------*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// The engine behind `tracking-fuzz`: a deterministic generator of random but
// valid modules (func, arith, math, scf, cf, memref) and of pass pipelines
// mixing precise and non-precise upstream passes, and a driver that runs each
// pipeline one pass at a time with handles held to a random subset of ops,
// checking the handle contract after every pass and comparing the final IR
// with upstream `mlir-opt`.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_FUZZ_H
#define MLIR_TRACKING_FUZZ_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir {
class DialectRegistry;

namespace tracking::fuzz {

/// A small deterministic random number generator (splitmix64): the same seed
/// gives the same cases on every platform and standard library.
class Random {
public:
  explicit Random(uint64_t seed) : state(seed) {}
  uint64_t next();
  /// Uniform in [0, bound), bound > 0.
  uint64_t below(uint64_t bound) { return next() % bound; }
  /// Uniform in [lo, hi].
  int64_t range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(below(static_cast<uint64_t>(hi - lo + 1)));
  }
  /// True with probability `percent`/100.
  bool chance(unsigned percent) { return below(100) < percent; }
  template <typename T> const T &pick(const std::vector<T> &items) {
    return items[below(items.size())];
  }

private:
  uint64_t state;
};

/// Mixes a campaign seed and a case index into the seed of one case, so any
/// case can be rerun alone.
uint64_t getCaseSeed(uint64_t seed, uint64_t caseIndex);

/// Returns the text of a random valid module (functions at the top level of
/// an implicit `builtin.module`).
std::string generateModule(Random &rng);

/// Returns a random pipeline: a list of elements, each a pass (with options)
/// anchored on the module or a nested `func.func(...)` pipeline.
std::vector<std::string> generatePipeline(Random &rng);

/// Joins elements into `builtin.module(a,b,...)`.
std::string joinPipeline(llvm::ArrayRef<std::string> elements);

/// True if every pass in the pipeline element is precise (tracked).
bool isPreciseElement(llvm::StringRef element);

struct FuzzOptions {
  uint64_t seed = 1;
  /// Cases `start` .. `start + count - 1` are run.
  uint64_t start = 0;
  uint64_t count = 100;
  /// Upstream tool to compare the final IR with; empty disables the check.
  std::string mlirOptPath = "/usr/lib/llvm-22/bin/mlir-opt";
  /// Worker threads of the multi-threaded pass manager.
  unsigned threads = 2;
  /// Every `threadedEvery`-th case runs with context threading on (0: never,
  /// 1: always).
  unsigned threadedEvery = 3;
  /// Where reproducers are written.
  std::string reproDir = ".";
  bool verbose = false;
  /// Hold handles and run the tracking instrumentation (off only to triage
  /// a difference from mlir-opt: does it happen without tracking?).
  bool track = true;
  /// Stop after this many findings (0: never).
  unsigned maxFindings = 10;
};

struct FuzzStats {
  uint64_t cases = 0;
  uint64_t handlesChecked = 0;
  uint64_t findings = 0;
  uint64_t passesRun = 0;
  /// Runs of the tracked pattern drivers after the mutations.
  uint64_t driverRuns = 0;
  uint64_t failedPipelines = 0;
  uint64_t upstreamCrashes = 0;
  uint64_t threadedCases = 0;
  /// Handle states at the end of each case, and replacements followed: how
  /// much of the contract the campaign exercised.
  uint64_t endLive = 0;
  uint64_t endErased = 0;
  uint64_t endInvalidated = 0;
  uint64_t replacementsFollowed = 0;
};

/// Runs the campaign described by `options`, printing findings and
/// reproducers to `os`. The passes must have been registered (ours first:
/// `registerTrackedPasses()` then `registerAllPasses()`); `registry` holds
/// the dialects and extensions.
FuzzStats runFuzzer(const FuzzOptions &options, const DialectRegistry &registry,
                    llvm::raw_ostream &os);

} // namespace tracking::fuzz
} // namespace mlir

#endif // MLIR_TRACKING_FUZZ_H
