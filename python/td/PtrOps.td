//===- PtrOps.td - Input of mlir-tblgen-22 for Python *- tablegen -*-===//
//
// Part of the mlir-tracking project. Includes the installed MLIR 22
// definitions that the Python dialect module is generated from.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_PYTHON_PtrOps
#define MLIR_TRACKING_PYTHON_PtrOps

include "mlir/Dialect/Ptr/IR/PtrOps.td"

#endif
