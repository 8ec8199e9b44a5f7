//===- ROCDLOps.td - Input of mlir-tblgen-22 for Python *- tablegen -*-===//
//
// Part of the mlir-tracking project. Includes the installed MLIR 22
// definitions that the Python dialect module is generated from.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_PYTHON_ROCDLOps
#define MLIR_TRACKING_PYTHON_ROCDLOps

include "mlir/Dialect/LLVMIR/ROCDLOps.td"

#endif
