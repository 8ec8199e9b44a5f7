//===- LinalgStructuredTransformEnums.td - Python bindings input --*- tablegen -*-===//
//
// Part of the mlir-tracking project. Includes the installed MLIR 22
// definitions that the Python dialect module is generated from.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_PYTHON_LinalgStructuredTransformEnums
#define MLIR_TRACKING_PYTHON_LinalgStructuredTransformEnums

include "mlir/Dialect/Linalg/TransformOps/LinalgTransformEnums.td"

#endif
