//===- TrackingBenchmark.cpp - What tracking costs ------------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Prints, from one run, the ratios that matter:
//  1. a precise pipeline (canonicalize, cse) with handles held, against the
//     same pipeline untracked;
//  2. the fallback for a non-precise function pass with few handles held:
//     our scope index, against walking every op under each anchor (what
//     `PassManager.run(invalidate_ops=True)` did), against nothing.
// Times are the best of several repetitions on freshly parsed IR.
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
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <functional>

using namespace mlir;

namespace {
llvm::cl::opt<unsigned> numFunctions("functions",
                                     llvm::cl::desc("Functions per module"),
                                     llvm::cl::init(400));
llvm::cl::opt<unsigned>
    opsPerFunction("ops", llvm::cl::desc("Arithmetic ops per function"),
                   llvm::cl::init(200));
llvm::cl::opt<unsigned> repetitions("repetitions",
                                    llvm::cl::desc("Runs per measurement"),
                                    llvm::cl::init(5));
llvm::cl::opt<std::string>
    dumpModule("dump-module",
               llvm::cl::desc("Write the generated module to this file"),
               llvm::cl::init(""));
llvm::cl::opt<unsigned>
    heldHandles("handles",
                llvm::cl::desc("Handles held for the fallback measurement"),
                llvm::cl::init(20));

/// A function pass that changes nothing and is not precise.
struct NoOpFunctionPass
    : public PassWrapper<NoOpFunctionPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(NoOpFunctionPass)
  StringRef getArgument() const final { return "bench-noop"; }
  void runOnOperation() override {}
};

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

/// Foldable arithmetic, duplicates and dead code, `opsPerFunction` ops each.
std::string makeModule() {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "module {\n";
  for (unsigned f = 0; f < numFunctions; ++f) {
    os << "  func.func @f" << f << "(%a: i32, %b: i32) -> i32 {\n";
    os << "    %c1 = arith.constant 1 : i32\n";
    os << "    %v0 = arith.addi %a, %b : i32\n";
    for (unsigned i = 1; i < opsPerFunction; ++i) {
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
    os << "    return %v" << opsPerFunction - 1 << " : i32\n  }\n";
  }
  os << "}\n";
  return text;
}

double seconds(const std::function<void()> &fn) {
  auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// Best time of `repetitions` runs of `run` on freshly parsed IR (parsing is
/// not timed).
double measure(MLIRContext &context, const std::string &text,
               const std::function<double(ModuleOp)> &run) {
  double best = 1e30;
  for (unsigned i = 0; i < repetitions; ++i) {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    if (!module)
      llvm::report_fatal_error("benchmark IR does not parse");
    best = std::min(best, run(*module));
  }
  return best;
}

double runPipeline(MLIRContext &context, ModuleOp module, StringRef pipeline,
                   tracking::HandleRegistry *registry,
                   llvm::DenseMap<Operation *, bool> *walkHandles) {
  // `pipeline` is the body of a builtin.module pipeline, like --pass-pipeline
  // without its `builtin.module(...)`.
  PassManager pm(&context);
  if (failed(parsePassPipeline(pipeline, pm)))
    llvm::report_fatal_error("bad benchmark pipeline");
  if (registry)
    tracking::enableTracking(pm, *registry);
  if (walkHandles)
    pm.addInstrumentation(
        std::make_unique<WalkEverythingInstrumentation>(*walkHandles));
  return seconds([&] {
    if (failed(pm.run(module)))
      llvm::report_fatal_error("benchmark pipeline failed");
  });
}

/// "  <label>   <ms> ms  ratio <r>x" (no ratio without a baseline).
void printRow(StringRef label, double time, double baseline = 0) {
  llvm::outs() << llvm::format("  %-26s%8.2f ms", label.str().c_str(),
                               time * 1e3);
  if (baseline > 0)
    llvm::outs() << llvm::format("  ratio %.2fx", time / baseline);
  llvm::outs() << "\n";
}

/// Every `stride`-th op of the module.
std::vector<Operation *> pickOps(ModuleOp module, unsigned count) {
  std::vector<Operation *> all;
  module->walk([&](Operation *op) {
    if (op != module)
      all.push_back(op);
  });
  std::vector<Operation *> picked;
  size_t stride = std::max<size_t>(1, all.size() / std::max(1u, count));
  for (size_t i = 0; i < all.size() && picked.size() < count; i += stride)
    picked.push_back(all[i]);
  return picked;
}
} // namespace

int main(int argc, char **argv) {
  tracking::registerTrackedPasses();
  PassRegistration<NoOpFunctionPass>();
  llvm::cl::ParseCommandLineOptions(argc, argv, "mlir-tracking benchmark\n");

  DialectRegistry dialects;
  dialects.insert<arith::ArithDialect, func::FuncDialect>();
  MLIRContext context(dialects);
  context.loadAllAvailableDialects();
  std::string text = makeModule();
  if (!dumpModule.empty()) {
    std::error_code error;
    llvm::raw_fd_ostream file(dumpModule, error);
    file << text;
  }
  size_t numOps = 0;
  {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    module->walk([&](Operation *) { ++numOps; });
  }
  llvm::outs() << "module: " << numFunctions << " functions, " << numOps
               << " ops; best of " << repetitions << " runs\n\n";

  // 1. Precise pipeline: the listener's cost.
  const char *precise = "func.func(canonicalize,cse)";
  double untracked = measure(context, text, [&](ModuleOp module) {
    return runPipeline(context, module, precise, nullptr, nullptr);
  });
  auto trackedWith = [&](unsigned fraction) {
    return measure(context, text, [&](ModuleOp module) {
      tracking::HandleRegistry registry(&context);
      std::vector<tracking::OpHandle> handles;
      for (Operation *op : pickOps(module, numOps / fraction))
        handles.push_back(registry.getHandle(op));
      return runPipeline(context, module, precise, &registry, nullptr);
    });
  };
  double trackedNone = measure(context, text, [&](ModuleOp module) {
    tracking::HandleRegistry registry(&context);
    return runPipeline(context, module, precise, &registry, nullptr);
  });
  double trackedTenth = trackedWith(10);
  double trackedAll = trackedWith(1);
  llvm::outs() << "precise pipeline " << precise << "\n";
  printRow("untracked", untracked);
  printRow("tracked, no handles", trackedNone, untracked);
  printRow("tracked, 10% of ops held", trackedTenth, untracked);
  printRow("tracked, every op held", trackedAll, untracked);
  llvm::outs() << "\n";

  // 2. Fallback for a non-precise pass, few handles held.
  const char *fallback = "func.func(bench-noop)";
  double bare = measure(context, text, [&](ModuleOp module) {
    return runPipeline(context, module, fallback, nullptr, nullptr);
  });
  double ours = measure(context, text, [&](ModuleOp module) {
    tracking::HandleRegistry registry(&context);
    std::vector<tracking::OpHandle> handles;
    for (Operation *op : pickOps(module, heldHandles))
      handles.push_back(registry.getHandle(op));
    return runPipeline(context, module, fallback, &registry, nullptr);
  });
  double walk = measure(context, text, [&](ModuleOp module) {
    llvm::DenseMap<Operation *, bool> handles;
    for (Operation *op : pickOps(module, heldHandles))
      handles[op] = true;
    return runPipeline(context, module, fallback, nullptr, &handles);
  });
  llvm::outs() << "non-precise pass " << fallback << ", " << heldHandles
               << " handles held\n";
  printRow("no tracking", bare);
  printRow("walk everything", walk, bare);
  printRow("scope index (ours)", ours, bare);
  llvm::outs() << llvm::format("  %-26s%8s     ratio %.2fx\n",
                               "ours vs walk everything", "", ours / walk);
  return 0;
}
