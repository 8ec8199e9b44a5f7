//===- PointerChase.cpp - Load latency by working-set size ----------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// `pointer-chase` measures how long one load takes when it misses each level
// of this machine's caches: a random cycle through the 64-byte lines of a
// working set, each load's address the value of the load before, so no two
// loads overlap and no prefetcher can guess the next. The latencies at the
// sizes that fit each level give the weights of benchmarks/simulated_bench.py
// (cycles per L1 and per last-level miss; docs/benchmarks.md, "Simulated
// cost"). Prints the best of several runs per size, in the thread's CPU
// time: the figure other tenants' load disturbs least.
//
//===----------------------------------------------------------------------===//

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <time.h>
#include <vector>

namespace {
llvm::cl::OptionCategory chaseCategory("pointer-chase options");

llvm::cl::list<unsigned> sizesKiB(
    "sizes-kib",
    llvm::cl::desc("Working sets in KiB (comma-separated; default 8 KiB to "
                   "1 GiB in powers of two)"),
    llvm::cl::CommaSeparated, llvm::cl::cat(chaseCategory));
llvm::cl::opt<unsigned>
    loads("loads", llvm::cl::desc("Dependent loads per run (default 20 M)"),
          llvm::cl::init(20'000'000), llvm::cl::cat(chaseCategory));
llvm::cl::opt<unsigned> runs("runs",
                             llvm::cl::desc("Runs per size; the best is "
                                            "printed (default 7)"),
                             llvm::cl::init(7), llvm::cl::cat(chaseCategory));

/// One cache line: the index of the next line to load, padded to 64 bytes
/// so that each load touches a line of its own.
struct alignas(64) Line {
  size_t next;
};

/// Links `lines` into one random cycle (Sattolo's shuffle: every line is
/// visited before the first comes back).
void linkRandomCycle(std::vector<Line> &lines, std::mt19937_64 &random) {
  std::vector<size_t> order(lines.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  for (size_t i = order.size() - 1; i > 0; --i) {
    std::uniform_int_distribution<size_t> pick(0, i - 1);
    std::swap(order[i], order[pick(random)]);
  }
  for (size_t i = 0; i < order.size(); ++i)
    lines[order[i]].next = order[(i + 1) % order.size()];
}

/// The thread's CPU time in nanoseconds: time spent descheduled while other
/// tenants run is not counted.
double threadCpuNanoseconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/// CPU nanoseconds per load of one run of `count` dependent loads.
double chase(const std::vector<Line> &lines, unsigned count, size_t &position) {
  double start = threadCpuNanoseconds();
  size_t at = position;
  for (unsigned i = 0; i < count; ++i)
    at = lines[at].next;
  double end = threadCpuNanoseconds();
  // Kept, so that the compiler cannot drop the chain.
  position = at;
  return (end - start) / count;
}
} // namespace

int main(int argc, char **argv) {
  llvm::cl::HideUnrelatedOptions(chaseCategory);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "pointer-chase: the latency of a load by working-set size, for the "
      "weights of benchmarks/simulated_bench.py\n");
  if (sizesKiB.empty())
    for (unsigned kib = 8; kib <= (1u << 20); kib *= 2)
      sizesKiB.push_back(kib);
  if (loads == 0 || runs == 0) {
    llvm::errs() << "pointer-chase: --loads and --runs must be at least 1\n";
    return 1;
  }
  std::mt19937_64 random(42);
  size_t position = 0;
  double firstLevel = 0;
  llvm::outs() << llvm::format("%12s %14s %12s\n", "working set", "ns per load",
                               "x smallest");
  for (unsigned kib : sizesKiB) {
    size_t count = std::max<size_t>(2, size_t(kib) * 1024 / sizeof(Line));
    std::vector<Line> lines(count);
    linkRandomCycle(lines, random);
    position = 0;
    // A first pass brings the set into whatever caches it fits.
    chase(lines, std::min<size_t>(count, loads), position);
    double best = chase(lines, loads, position);
    for (unsigned run = 1; run < runs; ++run)
      best = std::min(best, chase(lines, loads, position));
    if (firstLevel == 0)
      firstLevel = best;
    llvm::outs() << llvm::format("%9u KiB %14.2f %11.2fx\n", kib, best,
                                 best / firstLevel);
  }
  // The end of the chain, so that no run is optimized away.
  return position == size_t(-1) ? 2 : 0;
}
