//===- Passes.td - The tracked transform interpreter pass -*- tablegen -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_TRANSFORMINTERPRETER_PASSES
#define MLIR_TRACKING_TRANSFORMINTERPRETER_PASSES

include "mlir/Pass/PassBase.td"

def TrackedTransformInterpreter : Pass<"tracked-transform-interpreter"> {
  let summary = "transform-interpreter that keeps operation handles correct";
  let description = [{
    Runs the named sequence `entry-point` (found in the anchor op or in the
    preloaded transform library) on the anchor op, like upstream's
    `transform-interpreter`, but through mlir-tracking's tracked route: the
    handles under the anchor follow the transform dialect's own tracking
    (live on their replacement, erased when dropped, invalidated inside
    consumed payload) instead of all being invalidated.
  }];
  let dependentDialects = ["::mlir::transform::TransformDialect"];
  let options = [
    Option<"entryPoint", "entry-point", "std::string",
           /*default=*/[{"__transform_main"}],
           "Entry point of the pass pipeline.">,
    Option<"disableExpensiveChecks", "disable-expensive-checks", "bool",
           /*default=*/"false",
           "Disable expensive checks in the interpreter for a faster run.">,
  ];
}

#endif // MLIR_TRACKING_TRANSFORMINTERPRETER_PASSES
