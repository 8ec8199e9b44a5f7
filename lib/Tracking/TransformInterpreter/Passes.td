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

    It takes upstream's options, with upstream's meaning (see the
    `transform-interpreter` pass in MLIR's
    `mlir/include/mlir/Dialect/Transform/Transforms/Passes.td`):
      * `debug-payload-root-tag`: the payload root is the one op under the
        anchor whose `transform.target_tag` string attribute has this value
        (the anchor itself when empty);
      * `debug-bind-trailing-args`: one entry per argument of the entry after
        the payload root: an op name binds every op of that name under the
        payload root, `^name` the results of those ops, and `#1;2` the given
        integers as `i64` parameters.
  }];
  let dependentDialects = ["::mlir::transform::TransformDialect"];
  let options = [
    Option<"debugPayloadRootTag", "debug-payload-root-tag", "std::string",
           /*default=*/[{""}],
           "Run on the op under the anchor whose 'transform.target_tag' "
           "attribute has this value instead of on the anchor.">,
    ListOption<"debugBindTrailingArgs", "debug-bind-trailing-args",
               "std::string",
               "Bind the entry's arguments after the payload root: an op "
               "name (its ops), ^name (their results) or #1;2 (i64 "
               "parameters).">,
    Option<"entryPoint", "entry-point", "std::string",
           /*default=*/[{"__transform_main"}],
           "Entry point of the pass pipeline.">,
    Option<"disableExpensiveChecks", "disable-expensive-checks", "bool",
           /*default=*/"false",
           "Disable expensive checks in the interpreter for a faster run.">,
  ];
}

#endif // MLIR_TRACKING_TRANSFORMINTERPRETER_PASSES
