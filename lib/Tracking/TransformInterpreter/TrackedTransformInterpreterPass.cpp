//===- TrackedTransformInterpreterPass.cpp - tracked-transform-interpreter ===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/Transforms/Passes.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLExtras.h"

#include "mlir/Tracking/PassTracking.h"
#include "mlir/Tracking/TransformInterpreter.h"
#include <optional>

using namespace mlir;
using namespace mlir::tracking;

namespace mlir::tracking {
#define GEN_PASS_DECL_TRACKEDTRANSFORMINTERPRETER
#define GEN_PASS_DEF_TRACKEDTRANSFORMINTERPRETER
#include "TransformInterpreterPasses.h.inc"
} // namespace mlir::tracking

namespace {
/// The payload root that `debug-payload-root-tag` selects under `anchor`:
/// the anchor when `tag` is empty, else the one op whose
/// `transform.target_tag` is `tag`. Null, with upstream's diagnostics, when
/// there is none or more than one.
Operation *findTaggedPayloadRoot(Operation *anchor, StringRef tag) {
  if (tag.empty())
    return anchor;
  StringAttr tagName = StringAttr::get(
      anchor->getContext(), transform::TransformDialect::kTargetTagAttrName);
  Operation *found = nullptr;
  WalkResult walk = anchor->walk([&](Operation *op) {
    auto value = op->getAttrOfType<StringAttr>(tagName);
    if (!value || value.getValue() != tag)
      return WalkResult::advance();
    if (!found) {
      found = op;
      return WalkResult::advance();
    }
    InFlightDiagnostic diag = op->emitError()
                              << "repeated operation with the target tag '"
                              << tag << "'";
    diag.attachNote(found->getLoc()) << "previously seen operation";
    return WalkResult::interrupt();
  });
  if (walk.wasInterrupted())
    return nullptr;
  if (!found)
    anchor->emitError() << "could not find the operation with "
                           "transform.target_tag=\""
                        << tag << "\" attribute";
  return found;
}

struct TrackedTransformInterpreterPass
    : public tracking::impl::TrackedTransformInterpreterBase<
          TrackedTransformInterpreterPass> {
  using Base::Base;

  // Our ops too, loaded before the pass manager runs anything: the
  // interpreter would otherwise add them to the context itself, which MLIR
  // forbids while other threads run passes (a nested anchor).
  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registerTrackingTransformExtension(registry);
  }

  /// What `debug-bind-trailing-args` binds to the entry's arguments after
  /// the payload root, in order: the ops named by an entry, the results of
  /// the ops named by a `^`-entry (found in a walk of `payloadRoot`), the
  /// `i64` integers of a `#`-entry (separated by `;`).
  std::optional<SmallVector<SmallVector<transform::MappedValue>>>
  collectTrailingBindings(Operation *payloadRoot) {
    MLIRContext *context = payloadRoot->getContext();
    SmallVector<SmallVector<transform::MappedValue>> bindings(
        debugBindTrailingArgs.size());
    // Per entry: the op name it looks for, and whether it wants results.
    SmallVector<std::pair<std::optional<OperationName>, bool>> wanted;
    for (auto [index, spelled] : llvm::enumerate(debugBindTrailingArgs)) {
      StringRef entry = spelled;
      if (entry.consume_front("#")) {
        wanted.emplace_back(std::nullopt, false);
        // As upstream reads them: up to each `;`, until nothing is left
        // (a trailing `;` ends the list).
        StringRef rest = entry;
        do {
          StringRef number;
          std::tie(number, rest) = rest.split(';');
          int64_t value;
          if (number.getAsInteger(10, value)) {
            emitError(UnknownLoc::get(context))
                << "couldn't parse integer pass argument " << spelled;
            return std::nullopt;
          }
          bindings[index].push_back(
              IntegerAttr::get(IntegerType::get(context, 64), value));
        } while (!rest.empty());
        continue;
      }
      bool results = entry.consume_front("^");
      wanted.emplace_back(OperationName(entry, context), results);
    }
    payloadRoot->walk([&](Operation *op) {
      for (auto [index, want] : llvm::enumerate(wanted)) {
        if (!want.first || op->getName() != *want.first)
          continue;
        if (want.second)
          llvm::append_range(bindings[index], op->getResults());
        else
          bindings[index].push_back(op);
      }
    });
    return bindings;
  }

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    Operation *anchor = getOperation();
    ModuleOp library = transform::detail::getPreloadedTransformModule(context);
    Operation *payload = findTaggedPayloadRoot(anchor, debugPayloadRootTag);
    if (!payload)
      return signalPassFailure();
    Operation *entry =
        transform::detail::findTransformEntryPoint(anchor, library, entryPoint);
    if (!entry)
      return signalPassFailure();
    std::optional<SmallVector<SmallVector<transform::MappedValue>>> trailing =
        collectTrailingBindings(payload);
    if (!trailing)
      return signalPassFailure();
    transform::TransformOptions options;
    options.enableExpensiveChecks(!disableExpensiveChecks);

    HandleRegistry *registry = HandleRegistry::lookup(context);
    if (!registry) {
      // Nothing is tracked: exactly upstream's interpreter.
      RaggedArray<transform::MappedValue> bindings;
      bindings.push_back(ArrayRef<transform::MappedValue>{payload});
      for (const SmallVector<transform::MappedValue> &values : *trailing)
        bindings.push_back(values);
      if (failed(transform::applyTransformNamedSequence(
              bindings, cast<transform::TransformOpInterface>(entry), library,
              options)))
        signalPassFailure();
      return;
    }
    std::vector<TransformSequenceResult> results;
    TransformEventSource source;
    source.pass = getArgument().str();
    source.passKey = this;
    source.anchor = anchor;
    // The pass holds its anchor: a script run on an op nested in it may
    // reach the rest of the anchor (transform.get_parent_op).
    if (failed(applyTrackedNamedSequenceWithBindings(
            *registry, payload, entry, library, *trailing, options, results,
            source, /*heldTop=*/payload == anchor ? nullptr : anchor,
            /*likeUpstreamPass=*/true)))
      signalPassFailure();
  }
};
} // namespace

std::unique_ptr<Pass> mlir::tracking::createTrackedTransformInterpreterPass() {
  return std::make_unique<TrackedTransformInterpreterPass>();
}

void mlir::tracking::registerTrackedTransformInterpreterPass() {
  registerPrecisePass<TrackedTransformInterpreterPass>();
  // Upstream's `transform-preload-library` parses files into the transform
  // dialect's library and never touches the payload: nothing for handles to
  // follow. Its class is private to MLIR; an instance gives its TypeID.
  registerPrecisePass(transform::createPreloadLibraryPass()->getTypeID());
  registerPass(createTrackedTransformInterpreterPass);
}
