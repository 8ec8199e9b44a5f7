//===- TrackingBenchmark.cpp - What tracking costs ------------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Prints, from one run, the ratios that matter, for each IR size and thread
// count asked for:
//  1. a precise pipeline, `func.func(canonicalize,cse)`: upstream's passes
//     against ours with no registry at all, with an empty registry, and with
//     a share of the ops held;
//  2. a non-precise function pass that changes nothing, with a few handles
//     held: no tracking, against walking every op under each anchor (what
//     `PassManager.run(invalidate_ops=True)` did), against our scope index;
//  3. the memory a held handle and a history event cost.
//
// Wall times on a shared machine swing by several times, so configurations
// are interleaved: each round runs every configuration once, in an order
// rotated from round to round, on a fresh clone of the IR. A ratio is taken
// within each round and the rows print its median, a 95% confidence interval
// of the median and its range over the rounds, for process CPU time and for
// wall time.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Tracking/HandleRegistry.h"
#include "mlir/Tracking/PassTracking.h"
#include "mlir/Tracking/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>
#include <malloc.h>
#include <optional>
#include <sys/resource.h>

using namespace mlir;

namespace {
llvm::cl::OptionCategory benchCategory("tracking-bench options");

llvm::cl::list<unsigned>
    sizes("sizes",
          llvm::cl::desc("Approximate IR sizes in ops (comma-separated)"),
          llvm::cl::CommaSeparated, llvm::cl::cat(benchCategory));
llvm::cl::list<unsigned>
    threadCounts("thread-counts",
                 llvm::cl::desc("1: single-threaded pass manager; 2: the "
                                "context's thread pool (comma-separated)"),
                 llvm::cl::CommaSeparated, llvm::cl::cat(benchCategory));
llvm::cl::list<unsigned>
    heldPercents("held",
                 llvm::cl::desc("Percent of ops held for the precise pipeline "
                                "(comma-separated; default 0,10,100)"),
                 llvm::cl::CommaSeparated, llvm::cl::cat(benchCategory));
llvm::cl::opt<double> fallbackPercent(
    "fallback-held",
    llvm::cl::desc("Percent of ops held for the non-precise pass"),
    llvm::cl::init(1.0), llvm::cl::cat(benchCategory));
llvm::cl::opt<unsigned> rounds("rounds",
                               llvm::cl::desc("Interleaved rounds per size"),
                               llvm::cl::init(5), llvm::cl::cat(benchCategory));
llvm::cl::opt<std::string> jsonOutput(
    "json",
    llvm::cl::desc("Also write every figure as JSON to this file "
                   "('-' for stdout, the table then goes to stderr)"),
    llvm::cl::init(""), llvm::cl::cat(benchCategory));
llvm::cl::opt<bool>
    skipMemory("skip-memory",
               llvm::cl::desc("Do not measure memory per handle and event"),
               llvm::cl::init(false), llvm::cl::cat(benchCategory));
llvm::cl::opt<std::string> onlyConfig(
    "only",
    llvm::cl::desc("Run only the configurations whose name contains this "
                   "text, print their times and nothing else (for profiling "
                   "one configuration, e.g. under callgrind)"),
    llvm::cl::init(""), llvm::cl::cat(benchCategory));
llvm::cl::opt<bool> instrumentTimedOnly(
    "instrument-timed-only",
    llvm::cl::desc("Under callgrind run with --instr-atstart=no: instrument "
                   "only each configuration's clone, preparation and timed "
                   "run, not the IR's generation and parsing (several times "
                   "faster at 1M ops; benchmarks/simulated_bench.py)"),
    llvm::cl::init(false), llvm::cl::cat(benchCategory));
llvm::cl::opt<bool> dumpTimedCalls(
    "dump-timed-calls",
    llvm::cl::desc("Under callgrind: zero its counters right before each "
                   "timed call and dump them right after it, so that a dump "
                   "holds exactly one timed call, every thread's work "
                   "included (benchmarks/simulated_bench.py)"),
    llvm::cl::init(false), llvm::cl::cat(benchCategory));

llvm::cl::opt<std::string> timedCallsOutput(
    "timed-calls",
    llvm::cl::desc("Write each timed call's IR size, thread count, group, "
                   "configuration, start and end (CLOCK_MONOTONIC seconds, "
                   "the clock of `perf record -k CLOCK_MONOTONIC`) to this "
                   "file, one tab-separated line each, so that a profile's "
                   "samples can be told apart by configuration "
                   "(benchmarks/perf_by_config.py)"),
    llvm::cl::init(""), llvm::cl::cat(benchCategory));

/// Ops the generator emits per function (measured once, see makeModule).
constexpr unsigned kOpsPerFunction = 352;
/// Arithmetic "steps" per function; each emits 1-2 ops.
constexpr unsigned kStepsPerFunction = 200;

/// A function pass that changes nothing and is not precise.
struct NoOpFunctionPass
    : public PassWrapper<NoOpFunctionPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(NoOpFunctionPass)
  StringRef getArgument() const final { return "bench-noop"; }
  void runOnOperation() override {}
};

/// A rewrite listener that does nothing. The greedy driver runs callbacks
/// around each match attempt when any listener is attached (upstream's
/// release builds pass none without one): their cost is the floor of every
/// tracking that listens to `canonicalize`, ours included. (Our `cse` needs
/// no such floor: its rewriter leaves the listener out where it would do
/// nothing.)
struct EmptyListener : public RewriterBase::Listener {};

/// Upstream's `canonicalize` with an empty listener in its driver's config;
/// the other settings are the pass's defaults (top-down, normal region
/// simplification), which a config given to the pass replaces.
std::unique_ptr<Pass> createCanonicalizerWithEmptyListener() {
  static EmptyListener listener;
  GreedyRewriteConfig config;
  config.setUseTopDownTraversal(true)
      .setRegionSimplificationLevel(GreedySimplifyRegionLevel::Normal)
      .setListener(&listener);
  return createCanonicalizerPass(config);
}

/// The walk-everything fallback: after every pass, visit every op under the
/// anchor and invalidate the ones that have a handle.
struct WalkEverythingInstrumentation : public PassInstrumentation {
  llvm::DenseMap<Operation *, bool> *handles;
  explicit WalkEverythingInstrumentation(llvm::DenseMap<Operation *, bool> &h)
      : handles(&h) {}
  void runAfterPass(Pass *pass, Operation *anchor) override {
    anchor->walk([&](Operation *op) {
      if (op == anchor)
        return;
      auto it = handles->find(op);
      if (it != handles->end())
        it->second = false;
    });
  }
};

/// Foldable arithmetic, duplicates and dead code: `numFunctions` functions
/// of kOpsPerFunction ops each.
std::string makeModule(unsigned numFunctions) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "module {\n";
  for (unsigned f = 0; f < numFunctions; ++f) {
    os << "  func.func @f" << f << "(%a: i32, %b: i32) -> i32 {\n";
    os << "    %c1 = arith.constant 1 : i32\n";
    os << "    %v0 = arith.addi %a, %b : i32\n";
    for (unsigned i = 1; i < kStepsPerFunction; ++i) {
      switch (i % 4) {
      case 0: // x + 0 folds away
        os << "    %z" << i << " = arith.constant 0 : i32\n";
        os << "    %v" << i << " = arith.addi %v" << i - 1 << ", %z" << i
           << " : i32\n";
        break;
      case 1: // duplicate of the next op: CSE
        os << "    %v" << i << " = arith.muli %v" << i - 1 << ", %a : i32\n";
        break;
      case 2:
        os << "    %d" << i << " = arith.muli %v" << i - 2 << ", %a : i32\n";
        os << "    %v" << i << " = arith.addi %v" << i - 1 << ", %d" << i
           << " : i32\n";
        break;
      default: // dead code
        os << "    %dead" << i << " = arith.subi %v" << i - 1
           << ", %c1 : i32\n";
        os << "    %v" << i << " = arith.xori %v" << i - 1 << ", %b : i32\n";
      }
    }
    os << "    return %v" << kStepsPerFunction - 1 << " : i32\n  }\n";
  }
  os << "}\n";
  return text;
}

/// Process CPU time (all threads), wall time and minor page faults of one
/// call.
struct Sample {
  double cpu = 0;
  double wall = 0;
  double faults = 0;
};

/// Minor page faults of the process so far (all threads).
double minorFaults() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_minflt);
}

double processCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/// Callgrind's client requests that tracking-bench makes.
enum class CallgrindRequest { Instrument, StopInstrumenting, Zero, Dump };

/// Sends `request` to callgrind (outside valgrind it does nothing). `option`
/// names the flag that asked, for the error of a build without the header.
void sendToCallgrind(CallgrindRequest request, const char *option) {
#ifdef CALLGRIND_ZERO_STATS
  switch (request) {
  case CallgrindRequest::Instrument:
    CALLGRIND_START_INSTRUMENTATION;
    break;
  case CallgrindRequest::StopInstrumenting:
    CALLGRIND_STOP_INSTRUMENTATION;
    break;
  case CallgrindRequest::Zero:
    CALLGRIND_ZERO_STATS;
    break;
  case CallgrindRequest::Dump:
    CALLGRIND_DUMP_STATS_AT("timed call");
    break;
  }
#else
  (void)request;
  llvm::report_fatal_error(llvm::Twine(option) +
                           ": built without <valgrind/callgrind.h>");
#endif
}

/// With --dump-timed-calls, brackets a timed call with callgrind's client
/// requests. Zeroing and dumping cover every thread, unlike
/// `--toggle-collect`, which follows one thread's calls and so misses what
/// the thread pool's workers run.
void markTimedCall(bool start) {
  if (dumpTimedCalls)
    sendToCallgrind(start ? CallgrindRequest::Zero : CallgrindRequest::Dump,
                    "--dump-timed-calls");
}

Sample timeIt(const std::function<void()> &fn) {
  double faultsStart = minorFaults();
  double cpuStart = processCpuSeconds();
  auto wallStart = std::chrono::steady_clock::now();
  markTimedCall(/*start=*/true);
  fn();
  markTimedCall(/*start=*/false);
  Sample sample;
  sample.faults = minorFaults() - faultsStart;
  sample.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                              wallStart)
                    .count();
  sample.cpu = processCpuSeconds() - cpuStart;
  return sample;
}

/// Every op of the module but the module, in walk order.
std::vector<Operation *> allOps(ModuleOp module) {
  std::vector<Operation *> ops;
  module->walk([&](Operation *op) {
    if (op != module)
      ops.push_back(op);
  });
  return ops;
}

/// `percent`% of `ops`, evenly spread.
std::vector<Operation *> pickOps(ArrayRef<Operation *> ops, double percent) {
  std::vector<Operation *> picked;
  if (percent <= 0)
    return picked;
  size_t count = std::max<size_t>(1, ops.size() * percent / 100.0);
  double stride = double(ops.size()) / count;
  for (size_t i = 0; i < count; ++i)
    picked.push_back(ops[size_t(i * stride)]);
  return picked;
}

/// One configuration: `prepare` builds the pass manager (and whatever
/// tracking state it needs) for a fresh module, untimed; the returned
/// callable is the timed part.
struct Config {
  std::string group;
  std::string name;
  std::function<std::function<void()>(ModuleOp)> prepare;
  std::vector<Sample> samples;
};

/// A pass manager for `pipeline` (the body of a builtin.module pipeline).
std::unique_ptr<PassManager> makePassManager(MLIRContext &context,
                                             StringRef pipeline) {
  auto pm = std::make_unique<PassManager>(&context);
  if (failed(parsePassPipeline(pipeline, *pm)))
    llvm::report_fatal_error("bad benchmark pipeline");
  return pm;
}

void runOrDie(PassManager &pm, ModuleOp module) {
  if (failed(pm.run(module)))
    llvm::report_fatal_error("benchmark pipeline failed");
}

struct Stats {
  double median = 0, min = 0, max = 0;
  /// A 95% confidence interval of the median, free of any assumption about
  /// the distribution: the order statistics at ranks n/2 -+ 0.98 sqrt(n)
  /// (the normal approximation of the binomial count of samples below the
  /// median). With few rounds it spans nearly the range; it narrows as
  /// sqrt(rounds), which is how a long run resolves a few percent on a host
  /// whose single rounds swing by tens of percent.
  double ciLow = 0, ciHigh = 0;
  /// The values in round order (ratios: one per round).
  std::vector<double> values;
};

Stats summarize(std::vector<double> values) {
  Stats stats;
  stats.values = values;
  if (values.empty())
    return stats;
  llvm::sort(values);
  stats.min = values.front();
  stats.max = values.back();
  size_t n = values.size();
  stats.median =
      n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  double halfWidth = 0.98 * std::sqrt(double(n));
  auto at = [&](double rank) { // 1-based rank, clamped to the samples
    long index = std::lround(rank) - 1;
    return values[std::clamp<long>(index, 0, long(n) - 1)];
  };
  stats.ciLow = at(std::floor(n / 2.0 - halfWidth));
  stats.ciHigh = at(std::ceil(n / 2.0 + 1 + halfWidth));
  return stats;
}

/// Per-round ratios of `config` against `baseline`.
Stats ratioStats(const Config &config, const Config &baseline, bool cpu) {
  std::vector<double> ratios;
  for (size_t i = 0; i < config.samples.size(); ++i) {
    double a = cpu ? config.samples[i].cpu : config.samples[i].wall;
    double b = cpu ? baseline.samples[i].cpu : baseline.samples[i].wall;
    if (b > 0)
      ratios.push_back(a / b);
  }
  return summarize(ratios);
}

Stats faultStats(const Config &config) {
  std::vector<double> values;
  for (const Sample &sample : config.samples)
    values.push_back(sample.faults);
  return summarize(values);
}

Stats timeStats(const Config &config, bool cpu) {
  std::vector<double> values;
  for (const Sample &sample : config.samples)
    values.push_back((cpu ? sample.cpu : sample.wall) * 1e3);
  return summarize(values);
}

llvm::json::Object toJSON(const Stats &stats) {
  return llvm::json::Object{
      {"median", stats.median},
      {"min", stats.min},
      {"max", stats.max},
      {"median_ci95", llvm::json::Array{stats.ciLow, stats.ciHigh}},
      {"rounds", llvm::json::Array(stats.values)}};
}

/// The output streams: the table goes to stderr when JSON goes to stdout.
llvm::raw_ostream &table() {
  return jsonOutput == "-" ? llvm::errs() : llvm::outs();
}

/// "  <name>  cpu <median> ms  wall <median> ms  faults <median>  [ratio
/// cpu x [95% interval of the median] (min-max) wall x [..] (min-max) vs
/// <baseline>]".
void printRow(const Config &config, const Config *baseline) {
  Stats cpu = timeStats(config, /*cpu=*/true);
  Stats wall = timeStats(config, /*cpu=*/false);
  table() << llvm::format("  %-30s cpu %9.2f ms  wall %9.2f ms  faults %6.0f",
                          config.name.c_str(), cpu.median, wall.median,
                          faultStats(config).median);
  if (baseline) {
    Stats rc = ratioStats(config, *baseline, true);
    Stats rw = ratioStats(config, *baseline, false);
    table() << llvm::format("  ratio cpu %.3fx [%.3f-%.3f] (%.3f-%.3f) wall "
                            "%.3fx [%.3f-%.3f] (%.3f-%.3f) vs %s",
                            rc.median, rc.ciLow, rc.ciHigh, rc.min, rc.max,
                            rw.median, rw.ciLow, rw.ciHigh, rw.min, rw.max,
                            baseline->name.c_str());
  }
  table() << "\n";
}

/// With --instrument-timed-only, turns callgrind's instrumentation on or off
/// around a configuration's run: the clone and preparation stay instrumented
/// so that the simulated caches hold what they would hold natively when the
/// timed call starts.
void setTimedInstrumentation(bool on) {
  if (instrumentTimedOnly)
    sendToCallgrind(on ? CallgrindRequest::Instrument
                       : CallgrindRequest::StopInstrumenting,
                    "--instrument-timed-only");
}

/// Seconds on CLOCK_MONOTONIC, the clock `perf record -k CLOCK_MONOTONIC`
/// stamps its samples with.
double monotonicSeconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/// Where --timed-calls writes (null without it).
llvm::raw_fd_ostream *timedCallsLog = nullptr;

/// Runs every configuration `rounds` times, interleaved and rotated.
/// `numOps` and `threads` only label the lines of --timed-calls.
void runInterleaved(MLIRContext &context, ModuleOp base,
                    std::vector<Config> &configs, size_t numOps,
                    unsigned threads) {
  for (unsigned round = 0; round < rounds; ++round) {
    for (size_t k = 0; k < configs.size(); ++k) {
      Config &config = configs[(k + round) % configs.size()];
      if (!StringRef(config.name).contains(onlyConfig))
        continue;
      setTimedInstrumentation(true);
      OwningOpRef<ModuleOp> module = cast<ModuleOp>(base->clone());
      std::function<void()> timed = config.prepare(*module);
      double start = monotonicSeconds();
      config.samples.push_back(timeIt(timed));
      if (timedCallsLog)
        *timedCallsLog << numOps << '\t' << threads << '\t' << config.group
                       << '\t' << config.name << '\t'
                       << llvm::format("%.9f\t%.9f\n", start,
                                       monotonicSeconds());
      setTimedInstrumentation(false);
    }
  }
}

/// Runs every configuration of `group` once on a copy of `base` and dies
/// unless each leaves the IR the first one leaves: the rows of a group
/// compare the same work (tracking must not change what a pass produces).
void checkSameOutput(ModuleOp base, std::vector<Config> &configs,
                     StringRef group) {
  std::optional<std::string> expected;
  const Config *first = nullptr;
  for (Config &config : configs) {
    if (config.group != group)
      continue;
    OwningOpRef<ModuleOp> module = cast<ModuleOp>(base->clone());
    config.prepare (*module)();
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    if (!expected) {
      expected = std::move(text);
      first = &config;
    } else if (text != *expected) {
      llvm::report_fatal_error(llvm::Twine("benchmark configuration '") +
                               config.name + "' left other IR than '" +
                               first->name + "'");
    }
  }
}

/// Heap in use, from glibc's allocator (signed: the IR shrinks as passes
/// run). Large blocks (hash tables of 100k entries and more) are mapped
/// separately and counted in `hblkhd`, not in `uordblks`.
int64_t heapInUse() {
  struct mallinfo2 info = mallinfo2();
  return int64_t(info.uordblks) + int64_t(info.hblkhd);
}

/// The resident set of the process, from /proc/self/status (0 where there
/// is none).
int64_t residentBytes() {
  FILE *status = std::fopen("/proc/self/status", "r");
  if (!status)
    return 0;
  char line[256];
  int64_t kib = 0;
  while (std::fgets(line, sizeof(line), status))
    if (std::sscanf(line, "VmRSS: %" SCNd64 " kB", &kib) == 1)
      break;
  std::fclose(status);
  return kib * 1024;
}

struct MemoryFigures {
  double bytesPerHandle = 0;
  double bytesPerEvent = 0;
  size_t handles = 0;
  size_t events = 0;
  /// The registry's own mappings (HandleRegistry::getMappedBytes) once
  /// every handle is taken and after the run, included in the figures.
  size_t mappedAfterHandles = 0;
  size_t mappedAfterRun = 0;
  /// The resident set's growth per handle and per event, measured as the
  /// figures above (what the allocator keeps but does not use included).
  double rssPerHandle = 0;
  double rssPerEvent = 0;
};

/// Bytes per held handle (registry records for every op) and per history
/// event (a tracked pipeline with every op held, against the same pipeline
/// untracked: the difference is what the registry keeps). The heap in use
/// plus what the registry maps itself (HandleRegistry::getMappedBytes).
MemoryFigures measureMemory(MLIRContext &context, ModuleOp base) {
  MemoryFigures figures;
  const char *pipeline = "func.func(canonicalize,cse)";
  // Untracked: how much the heap moves because the IR changes.
  int64_t untrackedGrowth, untrackedRss;
  {
    OwningOpRef<ModuleOp> module = cast<ModuleOp>(base->clone());
    auto pm = makePassManager(context, pipeline);
    int64_t before = heapInUse();
    int64_t rssBefore = residentBytes();
    runOrDie(*pm, *module);
    untrackedGrowth = heapInUse() - before;
    untrackedRss = residentBytes() - rssBefore;
  }
  OwningOpRef<ModuleOp> module = cast<ModuleOp>(base->clone());
  std::vector<Operation *> ops = allOps(*module);
  auto pm = makePassManager(context, pipeline);
  tracking::HandleRegistry registry(&context);
  std::atomic<size_t> events{0};
  registry.setEventObserver([&](const tracking::TrackingEvent &) { ++events; });
  tracking::enableTracking(*pm, registry);
  auto inUse = [&] { return heapInUse() + int64_t(registry.getMappedBytes()); };
  std::vector<tracking::OpHandle> handles;
  handles.reserve(ops.size());
  // The vector (allocated, and its pages touched, before the heap and the
  // resident set are read) is not counted; each handle's 8 bytes are.
  handles.resize(ops.size());
  handles.clear();
  int64_t beforeHandles = inUse();
  int64_t rssBeforeHandles = residentBytes();
  for (Operation *op : ops)
    handles.push_back(registry.getHandle(op));
  int64_t afterHandles = inUse();
  int64_t rssAfterHandles = residentBytes();
  figures.handles = handles.size();
  figures.mappedAfterHandles = registry.getMappedBytes();
  figures.bytesPerHandle =
      double(afterHandles - beforeHandles) / handles.size() +
      sizeof(tracking::OpHandle);
  figures.rssPerHandle =
      double(rssAfterHandles - rssBeforeHandles) / handles.size();
  runOrDie(*pm, *module);
  int64_t trackedGrowth = inUse() - afterHandles;
  int64_t trackedRss = residentBytes() - rssAfterHandles;
  figures.mappedAfterRun = registry.getMappedBytes();
  figures.events = events;
  if (figures.events) {
    figures.bytesPerEvent =
        (double(trackedGrowth) - double(untrackedGrowth)) / figures.events;
    figures.rssPerEvent =
        (double(trackedRss) - double(untrackedRss)) / figures.events;
  }
  return figures;
}
} // namespace

int main(int argc, char **argv) {
  tracking::registerTrackedPasses();
  PassRegistration<NoOpFunctionPass>();
  llvm::cl::HideUnrelatedOptions(benchCategory);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "mlir-tracking benchmark: the cost of tracking as ratios from one run\n");
  if (sizes.empty())
    sizes.push_back(140000);
  if (threadCounts.empty()) {
    threadCounts.push_back(1);
    threadCounts.push_back(2);
  }
  if (heldPercents.empty())
    for (unsigned percent : {0u, 10u, 100u})
      heldPercents.push_back(percent);

  std::optional<llvm::raw_fd_ostream> timedCallsFile;
  if (!timedCallsOutput.empty()) {
    std::error_code error;
    timedCallsFile.emplace(timedCallsOutput, error);
    if (error) {
      llvm::errs() << "tracking-bench: cannot write " << timedCallsOutput
                   << ": " << error.message() << "\n";
      return 1;
    }
    *timedCallsFile << "# ops\tthreads\tgroup\tconfiguration\tstart\tend\n";
    timedCallsLog = &*timedCallsFile;
  }

  DialectRegistry dialects;
  dialects.insert<arith::ArithDialect, func::FuncDialect>();
  MLIRContext context(dialects);
  context.loadAllAvailableDialects();

  llvm::json::Array jsonRows;
  llvm::json::Array jsonMemory;
  const char *precise = "func.func(canonicalize,cse)";
  const char *fallback = "func.func(bench-noop)";

  for (unsigned size : sizes) {
    unsigned numFunctions = std::max(1u, size / kOpsPerFunction);
    OwningOpRef<ModuleOp> base =
        parseSourceString<ModuleOp>(makeModule(numFunctions), &context);
    if (!base)
      llvm::report_fatal_error("benchmark IR does not parse");
    size_t numOps = allOps(*base).size() + 1;

    for (unsigned threads : threadCounts) {
      context.enableMultithreading(threads > 1);
      table() << "module: " << numFunctions << " functions, " << numOps
              << " ops; " << threads << " thread" << (threads > 1 ? "s" : "")
              << "; " << rounds << " interleaved rounds\n";

      // 1. Precise pipeline.
      std::vector<Config> configs;
      // Upstream's own canonicalize and cse, built directly (the registered
      // names are ours); the canonicalizer given, the baseline's or the one
      // with an empty listener.
      auto upstreamPipeline = [&](std::unique_ptr<Pass> (*canonicalizer)()) {
        return [&context, canonicalizer](ModuleOp module) {
          auto pm = std::make_shared<PassManager>(&context);
          OpPassManager &fpm = pm->nest<func::FuncOp>();
          fpm.addPass(canonicalizer());
          fpm.addPass(createCSEPass());
          return std::function<void()>([pm, module] { runOrDie(*pm, module); });
        };
      };
      configs.push_back({"precise", "upstream passes", upstreamPipeline([] {
                           return createCanonicalizerPass();
                         })});
      configs.push_back(
          {"precise", "upstream, empty listener",
           upstreamPipeline(createCanonicalizerWithEmptyListener)});
      configs.push_back({"precise", "ours, no registry", [&](ModuleOp module) {
                           std::shared_ptr<PassManager> pm =
                               makePassManager(context, precise);
                           return std::function<void()>(
                               [pm, module] { runOrDie(*pm, module); });
                         }});
      for (unsigned percent : heldPercents) {
        configs.push_back(
            {"precise", "ours, " + std::to_string(percent) + "% held",
             [&, percent](ModuleOp module) {
               // The registry and handles die after the timed run, with the
               // state the std::function holds.
               auto registry =
                   std::make_shared<tracking::HandleRegistry>(&context);
               auto handles =
                   std::make_shared<std::vector<tracking::OpHandle>>();
               for (Operation *op : pickOps(allOps(module), percent))
                 handles->push_back(registry->getHandle(op));
               std::shared_ptr<PassManager> pm =
                   makePassManager(context, precise);
               tracking::enableTracking(*pm, *registry);
               return std::function<void()>(
                   [pm, module, handles, registry] { runOrDie(*pm, module); });
             }});
      }

      // 2. Non-precise pass.
      configs.push_back({"fallback", "no tracking", [&](ModuleOp module) {
                           std::shared_ptr<PassManager> pm =
                               makePassManager(context, fallback);
                           return std::function<void()>(
                               [pm, module] { runOrDie(*pm, module); });
                         }});
      configs.push_back(
          {"fallback", "walk everything", [&](ModuleOp module) {
             auto handles =
                 std::make_shared<llvm::DenseMap<Operation *, bool>>();
             for (Operation *op : pickOps(allOps(module), fallbackPercent))
               (*handles)[op] = true;
             std::shared_ptr<PassManager> pm =
                 makePassManager(context, fallback);
             pm->addInstrumentation(
                 std::make_unique<WalkEverythingInstrumentation>(*handles));
             return std::function<void()>(
                 [pm, module, handles] { runOrDie(*pm, module); });
           }});
      configs.push_back(
          {"fallback", "scope index (ours)", [&](ModuleOp module) {
             auto registry =
                 std::make_shared<tracking::HandleRegistry>(&context);
             auto handles = std::make_shared<std::vector<tracking::OpHandle>>();
             for (Operation *op : pickOps(allOps(module), fallbackPercent))
               handles->push_back(registry->getHandle(op));
             std::shared_ptr<PassManager> pm =
                 makePassManager(context, fallback);
             tracking::enableTracking(*pm, *registry);
             return std::function<void()>(
                 [pm, module, handles, registry] { runOrDie(*pm, module); });
           }});

      if (onlyConfig.empty() && threads == threadCounts.front())
        checkSameOutput(*base, configs, "precise");
      runInterleaved(context, *base, configs, numOps, threads);
      if (!onlyConfig.empty()) {
        for (const Config &config : configs)
          if (!config.samples.empty())
            printRow(config, nullptr);
        continue;
      }

      auto find = [&](StringRef name) -> const Config * {
        for (const Config &config : configs)
          if (config.name == name)
            return &config;
        return nullptr;
      };
      const Config *upstream = find("upstream passes");
      const Config *none = find("no tracking");
      const Config *walk = find("walk everything");
      table() << "precise pipeline " << precise << "\n";
      for (const Config &config : configs) {
        if (config.group != "precise")
          continue;
        printRow(config, &config == upstream ? nullptr : upstream);
      }
      table() << "non-precise pass " << fallback << ", "
              << llvm::format("%g", double(fallbackPercent))
              << "% of ops held\n";
      for (const Config &config : configs)
        if (config.group == "fallback")
          printRow(config, &config == none ? nullptr : none);
      const Config *ours = find("scope index (ours)");
      Stats oursVsWalk = ratioStats(*ours, *walk, true);
      table() << llvm::format(
          "  %-30s ratio cpu %.3fx [%.3f-%.3f] "
          "(%.3f-%.3f)\n",
          "scope index vs walk everything", oursVsWalk.median, oursVsWalk.ciLow,
          oursVsWalk.ciHigh, oursVsWalk.min, oursVsWalk.max);
      table() << "\n";

      for (const Config &config : configs) {
        const Config *baseline = config.group == "precise" ? upstream : none;
        llvm::json::Object row{
            {"group", config.group},
            {"config", config.name},
            {"ops", int64_t(numOps)},
            {"threads", int64_t(threads)},
            {"cpu_ms", toJSON(timeStats(config, true))},
            {"wall_ms", toJSON(timeStats(config, false))},
            {"minor_faults", toJSON(faultStats(config))},
        };
        if (&config != baseline) {
          row["baseline"] = baseline->name;
          row["ratio_cpu"] = toJSON(ratioStats(config, *baseline, true));
          row["ratio_wall"] = toJSON(ratioStats(config, *baseline, false));
        }
        jsonRows.push_back(std::move(row));
      }
    }

    if (!skipMemory) {
      context.enableMultithreading(false);
      MemoryFigures memory = measureMemory(context, *base);
      table() << llvm::format(
          "memory at %zu ops: %.0f B per held handle (%zu handles), %.0f B "
          "per history event (%zu events); the registry's own mappings "
          "%.1f MiB after the handles, %.1f MiB after the run; resident set "
          "%.0f B per handle, %.0f B per event\n\n",
          numOps, memory.bytesPerHandle, memory.handles, memory.bytesPerEvent,
          memory.events, memory.mappedAfterHandles / 1048576.0,
          memory.mappedAfterRun / 1048576.0, memory.rssPerHandle,
          memory.rssPerEvent);
      jsonMemory.push_back(llvm::json::Object{
          {"ops", int64_t(numOps)},
          {"bytes_per_handle", memory.bytesPerHandle},
          {"bytes_per_event", memory.bytesPerEvent},
          {"handles", int64_t(memory.handles)},
          {"events", int64_t(memory.events)},
          {"mapped_bytes_after_handles", int64_t(memory.mappedAfterHandles)},
          {"mapped_bytes_after_run", int64_t(memory.mappedAfterRun)},
          {"rss_bytes_per_handle", memory.rssPerHandle},
          {"rss_bytes_per_event", memory.rssPerEvent}});
    }
  }

  if (!jsonOutput.empty()) {
    llvm::json::Value document =
        llvm::json::Object{{"rounds", int64_t(rounds)},
                           {"fallback_held_percent", double(fallbackPercent)},
                           {"rows", std::move(jsonRows)},
                           {"memory", std::move(jsonMemory)}};
    if (jsonOutput == "-") {
      llvm::outs() << llvm::formatv("{0:2}", document) << "\n";
    } else {
      std::error_code error;
      llvm::raw_fd_ostream file(jsonOutput, error);
      if (error) {
        llvm::errs() << "tracking-bench: cannot write " << jsonOutput << ": "
                     << error.message() << "\n";
        return 1;
      }
      file << llvm::formatv("{0:2}", document) << "\n";
    }
  }
  return 0;
}
