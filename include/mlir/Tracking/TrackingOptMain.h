//===- TrackingOptMain.h - mlir-opt with tracked handles -------*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// The driver of `tracking-opt`: `MlirOptMain` plus
//   --track-ops=<op-name>[,<op-name>...]|all  take handles before the pipeline
//   --debug-tracking                          print what happened to them
//   --verify-tracking                         check them after every pass
// Without these flags it is exactly `MlirOptMain`.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_TRACKINGOPTMAIN_H
#define MLIR_TRACKING_TRACKINGOPTMAIN_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

namespace mlir {
class DialectRegistry;
namespace tracking {

/// Runs the tool. Registers and parses the command line itself.
LogicalResult trackingOptMain(int argc, char **argv, StringRef toolName,
                              DialectRegistry &registry);

} // namespace tracking
} // namespace mlir

#endif // MLIR_TRACKING_TRACKINGOPTMAIN_H
