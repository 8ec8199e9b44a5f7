//===- VectorEnums.td - Python bindings input --------------*- tablegen -*-===//
//
// Part of the mlir-tracking project. Includes the installed MLIR 22
// definitions that the Python dialect module is generated from.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_PYTHON_VectorEnums
#define MLIR_TRACKING_PYTHON_VectorEnums

include "mlir/Dialect/Vector/IR/VectorAttributes.td"

#endif
