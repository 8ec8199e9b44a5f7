//===- TransformEnums.td - Python bindings input -----------*- tablegen -*-===//
//
// Part of the mlir-tracking project. Includes the installed MLIR 22
// definitions that the Python dialect module is generated from.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_PYTHON_TransformEnums
#define MLIR_TRACKING_PYTHON_TransformEnums

include "mlir/Dialect/Transform/IR/TransformAttrs.td"

#endif
