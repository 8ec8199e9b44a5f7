//===- TransformPDLExtensionOps.td - Python bindings input -*- tablegen -*-===//
//
// Part of the mlir-tracking project. Includes the installed MLIR 22
// definitions that the Python dialect module is generated from.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_PYTHON_TransformPDLExtensionOps
#define MLIR_TRACKING_PYTHON_TransformPDLExtensionOps

include "mlir/Dialect/Transform/PDLExtension/PDLExtensionOps.td"

#endif
