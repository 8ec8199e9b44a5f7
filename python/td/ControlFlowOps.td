//===- ControlFlowOps.td - Python bindings input -----------*- tablegen -*-===//
//
// Part of the mlir-tracking project. Includes the installed MLIR 22
// definitions that the Python dialect module is generated from.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_PYTHON_ControlFlowOps
#define MLIR_TRACKING_PYTHON_ControlFlowOps

include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.td"

#endif
