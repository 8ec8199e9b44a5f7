//===- TuneExtensionOps.td - Input of mlir-tblgen-22 for Python *- tablegen -*-===//
//
// Part of the mlir-tracking project. Includes the installed MLIR 22
// definitions that the Python dialect module is generated from.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_PYTHON_TuneExtensionOps
#define MLIR_TRACKING_PYTHON_TuneExtensionOps

include "mlir/Dialect/Transform/TuneExtension/TuneExtensionOps.td"

#endif
