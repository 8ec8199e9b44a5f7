//===- TransformInterpreter.h - Transform scripts with tracking -*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Runs a transform-dialect named sequence on a payload op and keeps operation
// handles correct across it:
//
// - caller-held handles may be bound to the extra arguments of the entry
//   sequence (after the payload root, which is always the first argument);
// - every tracked op strictly nested in the payload root (bound or not) ends
//   up where the transform dialect's own tracking says: live on the op that
//   replaced it, `erased` when the interpreter dropped it (erased, or replaced
//   while no handle needed a replacement), `invalidated` when it sat in the
//   payload of a handle that a transform op consumed (such ops may be erased
//   without notification);
// - the handles yielded by the entry sequence come back as live handles;
// - the payload root and its ancestors stay live; so does everything outside
//   the payload root, unless the caller holds the whole tree
//   (`ownsWholeTree`): tracked ops anywhere in the tree are then followed
//   like those nested in the payload root;
// - block and value handles (BlockValueRegistry) in what the script may
//   reach are invalidated before it runs: the interpreter follows ops only;
// - on a silenceable or definite failure, the interpreter's diagnostics go to
//   the context's handlers and every handle strictly nested in the payload
//   root is invalidated (with `ownsWholeTree`, those outside it too, unless
//   the ops outside the payload root are the same ops in the same places).
//
// The user's script is never modified: the interpreter runs a private copy,
// whose entry a sequence of ours with one hidden argument per tracked op
// includes, instrumented with ops of ours (see docs/transform.md).
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_TRANSFORMINTERPRETER_H
#define MLIR_TRACKING_TRANSFORMINTERPRETER_H

#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/IR/Attributes.h"
#include "mlir/Tracking/HandleRegistry.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
class ModuleOp;
class Pass;

namespace tracking {

/// What one result of the entry sequence (an operand of its `transform.yield`)
/// is bound to after the run.
struct TransformSequenceResult {
  /// True for a `!transform.param` result: `params` is set, `ops` is empty.
  bool isParam = false;
  /// Live handles to the payload ops of an op handle result, in handle order.
  std::vector<OpHandle> ops;
  /// The attributes of a parameter result.
  std::vector<Attribute> params;
};

/// Where the run's tracking events come from (names shown in handle
/// histories and by --debug-tracking).
struct TransformEventSource {
  std::string pass = "transform-interpreter";
  const void *passKey = nullptr;
  /// The op the events say the run was on: a pass's anchor, which may hold
  /// the payload root (`debug-payload-root-tag`). Null: the payload root.
  Operation *anchor = nullptr;
};

/// Applies the named sequence `transformRoot` (a `transform.named_sequence`)
/// to `payloadRoot` with tracking in `registry`. `transformModule`, if given
/// and not an ancestor of `transformRoot`, is a library linked into the copy
/// of the script (as `transform::applyTransformNamedSequence` does). `args[i]`
/// is bound to argument `i + 1` of the entry sequence; each handle must be
/// live and refer to the payload root or an op nested in it. On success,
/// `results` holds one entry per result of the entry sequence (empty for a
/// result whose payload a transform op consumed: its ops may be freed).
///
/// `options` apply as given, except that the expensive checks stay on: they
/// are what refuses a script that uses a handle after a consumer freed its
/// payload (it could otherwise return a new op at the freed address).
///
/// Errors (bad arguments, a script that fails) are emitted as diagnostics on
/// the context and return failure. Errors found before the run change
/// nothing; after a failed run, the handles strictly nested in the payload
/// root are invalidated.
///
/// `payloadRoot` is isolated from above or top-level, or any op with
/// `ownsWholeTree`.
///
/// `ownsWholeTree`: the caller holds the whole IR tree of `payloadRoot` (no
/// other thread uses any of it). The interpreter then follows the handles
/// of the whole tree (a script may climb out of its payload root with
/// `transform.get_parent_op`) and checks that the script left the payload
/// root in place (a pass it runs on an ancestor may erase it): if not, the
/// run fails and the payload root's handle is erased. Without it (a nested
/// pass), both would read IR other threads may be rewriting: a script that
/// changes IR outside its payload root breaks the pass's contract, and one
/// that erases its payload root is undefined behaviour, as in upstream's
/// interpreter.
LogicalResult applyTrackedNamedSequence(
    HandleRegistry &registry, Operation *payloadRoot, Operation *transformRoot,
    ModuleOp transformModule, ArrayRef<std::vector<OpHandle>> args,
    const transform::TransformOptions &options,
    std::vector<TransformSequenceResult> &results,
    const TransformEventSource &source = {}, bool ownsWholeTree = false);

/// The same with `heldTop`, an ancestor of `payloadRoot` (or itself) whose
/// whole tree the caller holds, isolated from above or top-level:
/// `ownsWholeTree` with that op as the top of the held tree (the anchor of
/// the pass the caller runs in). Null: `ownsWholeTree = false`.
LogicalResult applyTrackedNamedSequence(
    HandleRegistry &registry, Operation *payloadRoot, Operation *transformRoot,
    ModuleOp transformModule, ArrayRef<std::vector<OpHandle>> args,
    const transform::TransformOptions &options,
    std::vector<TransformSequenceResult> &results,
    const TransformEventSource &source, Operation *heldTop);

/// The same run with the arguments after the payload root bound as upstream's
/// `transform::applyTransformNamedSequence` binds them: `bindings[i]` (ops,
/// payload values or parameters) goes to argument `i + 1`, and the
/// interpreter checks that each fits its argument's type. The ops and values
/// must be the payload root or nested in it (the caller found them there, as
/// `tracked-transform-interpreter`'s `debug-bind-trailing-args` does; others
/// fail the run before anything changes).
/// `heldTop`, if given, is an ancestor of `payloadRoot` (or itself) whose
/// whole tree the caller holds: `ownsWholeTree` above, with that op as the
/// top of the held tree (a pass's anchor when the payload root is an op
/// nested in it); it must be isolated from above or top-level, and the
/// payload root may then be any op in it.
/// `likeUpstreamPass`: runs as upstream's `transform-interpreter` pass does
/// (the tracked pass sets it): the entry's results are neither checked nor
/// returned, and a script may erase its payload root (its handle ends
/// erased, the run goes on).
LogicalResult applyTrackedNamedSequenceWithBindings(
    HandleRegistry &registry, Operation *payloadRoot, Operation *transformRoot,
    ModuleOp transformModule,
    ArrayRef<SmallVector<transform::MappedValue>> bindings,
    const transform::TransformOptions &options,
    std::vector<TransformSequenceResult> &results,
    const TransformEventSource &source = {}, Operation *heldTop = nullptr,
    bool likeUpstreamPass = false);

/// Registers the transform dialect extension holding our internal ops (a
/// script that contains them is refused).
/// `applyTrackedNamedSequence` adds it to the context by itself.
void registerTrackingTransformExtension(DialectRegistry &registry);

/// Loads the transform dialect with that extension into `context`, as
/// `applyTrackedNamedSequence` does first. Changing a context's dialects is
/// not allowed while passes run in it: a caller that may call
/// `applyTrackedNamedSequence` while other threads run passes in the
/// context calls this once beforehand, after which the interpreter leaves
/// the context's dialects alone.
void prepareTrackedTransformInterpreter(MLIRContext *context);

/// `tracked-transform-interpreter`: upstream's `transform-interpreter` on the
/// tracked route above. Precise: it resolves the handles under its anchor
/// itself instead of having them blanket-invalidated.
std::unique_ptr<Pass> createTrackedTransformInterpreterPass();
/// Registers `tracked-transform-interpreter` and marks it precise.
void registerTrackedTransformInterpreterPass();

} // namespace tracking
} // namespace mlir

#endif // MLIR_TRACKING_TRANSFORMINTERPRETER_H
