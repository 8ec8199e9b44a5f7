//===- Registration.cpp - Register the tracked passes ---------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tracking/Passes.h"

using namespace mlir;

void mlir::tracking::registerTrackedPasses() {
  registerPass(createTrackedCanonicalizerPass);
  registerPass(createTrackedCSEPass);
  registerPass(createTrackedArithToLLVMPass);
}
