//===- SCFOps.td - Input of mlir-tblgen-22 for Python ------*- tablegen -*-===//
//
// Part of the mlir-tracking project. Includes the installed MLIR 22
// definitions that the Python dialect module is generated from.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_PYTHON_SCFOps
#define MLIR_TRACKING_PYTHON_SCFOps

include "mlir/Dialect/SCF/IR/SCFOps.td"

#endif
