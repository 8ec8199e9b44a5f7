//===- TestTransformOps.td - Transform ops for tests ------*- tablegen -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Transform ops that tracking-opt's lit tests use to look inside a tracked
// transform script run. Not part of the library.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_TESTTRANSFORMOPS
#define MLIR_TRACKING_TESTTRANSFORMOPS

include "mlir/Dialect/Transform/IR/TransformDialect.td"
include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpBase.td"

def TestCountHandlesInScopeOp
    : TransformDialectOp<"test_tracking.count_handles_in_scope",
        [DeclareOpInterfaceMethods<TransformOpInterface>,
         DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Reports how many handles of the current scope map each op";
  let description = [{
    Emits a remark on each payload op of `$target` with the number of
    handles that map it in the scope upstream's invalidation check scans
    when a transform op here consumes a handle (up to the first enclosing
    named sequence). Only reads its operand and the payload.
  }];

  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs);
  let assemblyFormat = "$target attr-dict `:` type($target)";
}

#endif // MLIR_TRACKING_TESTTRANSFORMOPS
