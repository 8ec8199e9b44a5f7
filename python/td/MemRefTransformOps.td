//===- MemRefTransformOps.td - Input of mlir-tblgen-22 for Python *- tablegen -*-===//
//
// Part of the mlir-tracking project. Includes the installed MLIR 22
// definitions that the Python dialect module is generated from.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_PYTHON_MemRefTransformOps
#define MLIR_TRACKING_PYTHON_MemRefTransformOps

include "mlir/Dialect/MemRef/TransformOps/MemRefTransformOps.td"

#endif
