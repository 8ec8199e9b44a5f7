//===- Passes.h - Precise canonicalize and CSE -----------------*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// `canonicalize` and `cse` with upstream's names, options, statistics and
// results, whose rewrites feed the tracking listener. They take over
// upstream's registrations: call `registerTrackedPasses()` before
// `registerAllPasses()`.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_PASSES_H
#define MLIR_TRACKING_PASSES_H

#include <memory>

namespace mlir {
class Pass;
namespace tracking {

/// `canonicalize`, reporting every rewrite to the tracking listener.
std::unique_ptr<Pass> createTrackedCanonicalizerPass();
/// `cse`, reporting every replacement and erasure to the tracking listener.
std::unique_ptr<Pass> createTrackedCSEPass();

/// `convert-arith-to-llvm`, through the tracked dialect conversion driver:
/// handles follow `arith` ops to their `llvm` replacements.
std::unique_ptr<Pass> createTrackedArithToLLVMPass();

/// Registers them under `canonicalize`, `cse` and `convert-arith-to-llvm`. Must
/// run before upstream's registrations (the first registration of a pass
/// argument wins).
void registerTrackedPasses();

} // namespace tracking
} // namespace mlir

#endif // MLIR_TRACKING_PASSES_H
