//===- X86VectorTransformOps.td - Input of mlir-tblgen-22 for Python *- tablegen -*-===//
//
// Part of the mlir-tracking project. Includes the installed MLIR 22
// definitions that the Python dialect module is generated from.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_PYTHON_X86VectorTransformOps
#define MLIR_TRACKING_PYTHON_X86VectorTransformOps

include "mlir/Dialect/X86Vector/TransformOps/X86VectorTransformOps.td"

#endif
