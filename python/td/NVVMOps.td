//===- NVVMOps.td - Input of mlir-tblgen-22 for Python *- tablegen -*-===//
//
// Part of the mlir-tracking project. Includes the installed MLIR 22
// definitions that the Python dialect module is generated from.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_PYTHON_NVVMOps
#define MLIR_TRACKING_PYTHON_NVVMOps

include "mlir/Dialect/LLVMIR/NVVMOps.td"

#endif
