//===- Registration.cpp - Register the tracked passes ---------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tracking/PassTracking.h"
#include "mlir/Tracking/Passes.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;

/// True if the pass registered under `argument` is precise. Our passes share
/// upstream's TypeIDs, so only an instance can tell them apart.
static bool isRegisteredPassPrecise(StringRef argument) {
  const PassInfo *info = PassInfo::lookup(argument);
  if (!info)
    return false;
  OpPassManager pm;
  if (failed(info->addToPipeline(pm, /*options=*/"",
                                 [](const Twine &) { return failure(); })) ||
      pm.size() != 1)
    return false;
  return tracking::isPrecisePass(*pm.begin());
}

void mlir::tracking::registerTrackedPasses() {
  registerPass(createTrackedCanonicalizerPass);
  registerPass(createTrackedCSEPass);
  registerPass(createTrackedArithToLLVMPass);
  // The first registration of an argument wins, and ours share upstream's
  // TypeIDs, so registering after upstream is silently a no-op. Say so.
  for (StringRef argument : {"canonicalize", "cse", "convert-arith-to-llvm"}) {
    if (isRegisteredPassPrecise(argument))
      continue;
    llvm::report_fatal_error(
        llvm::Twine("mlir-tracking: the pass registered as '") + argument +
        "' is upstream's, not the precise one of mlir-tracking, so handles "
        "would not follow its rewrites: call "
        "mlir::tracking::registerTrackedPasses() before "
        "mlir::registerAllPasses() (or any other registration of the "
        "upstream pass of that name)");
  }
}
