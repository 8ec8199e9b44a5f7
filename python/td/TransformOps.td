//===- TransformOps.td - Python bindings input -------------*- tablegen -*-===//
//
// Part of the mlir-tracking project. Includes the installed MLIR 22
// definitions that the Python dialect module is generated from.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_PYTHON_TransformOps
#define MLIR_TRACKING_PYTHON_TransformOps

include "mlir/Dialect/Transform/IR/TransformOps.td"

#endif
