//===- tracking-opt.cpp - mlir-opt with tracked operation handles ---------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Every upstream dialect, extension and pass, with `canonicalize` and `cse`
// replaced by their precise (tracked) versions, plus --track-ops and
// --debug-tracking.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Tracking/Passes.h"
#include "mlir/Tracking/TrackingOptMain.h"
#include "mlir/Tracking/TransformInterpreter.h"

namespace mlir::tracking::test {
void registerTestPasses();
void registerTestTransformExtension(mlir::DialectRegistry &registry);
} // namespace mlir::tracking::test

int main(int argc, char **argv) {
  // Ours first: the first registration of a pass argument wins.
  mlir::tracking::registerTrackedPasses();
  mlir::tracking::registerTrackedTransformInterpreterPass();
  mlir::registerAllPasses();
  mlir::tracking::test::registerTestPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // As mlir-opt: the GPU passes (gpu-module-to-binary) translate to LLVM IR.
  mlir::registerAllGPUToLLVMIRTranslations(registry);
  mlir::tracking::registerTrackingTransformExtension(registry);
  mlir::tracking::test::registerTestTransformExtension(registry);
  return mlir::asMainReturnCode(
      mlir::tracking::trackingOptMain(argc, argv, "tracking-opt", registry));
}
