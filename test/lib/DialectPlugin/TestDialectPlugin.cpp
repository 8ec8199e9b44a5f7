//===- TestDialectPlugin.cpp - A downstream dialect as an MLIR plugin -----===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// A tiny out-of-tree dialect (`tracking_plugin`, one op `tracking_plugin.noop`
// with an optional `tag` attribute), packaged the way MLIR loads downstream
// dialects into mlir-opt (`--load-dialect-plugin`): a shared library
// exporting `mlirGetDialectPluginInfo`. The Python tests load it with
// `ir.load_dialect_plugin(path)` to check that a user's own dialect works in
// our contexts. Written without ODS to stay self-contained.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "llvm/Config/llvm-config.h"

using namespace mlir;

namespace mlir::tracking_plugin {
/// `tracking_plugin.noop`: no operands, results or regions.
class NoOp : public Op<NoOp, OpTrait::ZeroOperands, OpTrait::ZeroResults,
                       OpTrait::ZeroRegions, OpTrait::ZeroSuccessors> {
public:
  using Op::Op;
  static StringRef getOperationName() { return "tracking_plugin.noop"; }
  static ArrayRef<StringRef> getAttributeNames() { return {}; }
  /// Only `tag` (a string) is allowed.
  LogicalResult verify() {
    for (NamedAttribute attr : (*this)->getAttrs())
      if (attr.getName() != "tag" || !isa<StringAttr>(attr.getValue()))
        return emitOpError("only a string 'tag' attribute is allowed");
    return success();
  }
};

class TrackingPluginDialect : public Dialect {
public:
  explicit TrackingPluginDialect(MLIRContext *context)
      : Dialect(getDialectNamespace(), context,
                TypeID::get<TrackingPluginDialect>()) {
    addOperations<NoOp>();
  }
  static StringRef getDialectNamespace() { return "tracking_plugin"; }
};
} // namespace mlir::tracking_plugin

// Explicit TypeIDs: the implicit ones would be resolved by name across the
// process, which a plugin should not rely on.
MLIR_DECLARE_EXPLICIT_TYPE_ID(mlir::tracking_plugin::NoOp)
MLIR_DEFINE_EXPLICIT_TYPE_ID(mlir::tracking_plugin::NoOp)
MLIR_DECLARE_EXPLICIT_TYPE_ID(mlir::tracking_plugin::TrackingPluginDialect)
MLIR_DEFINE_EXPLICIT_TYPE_ID(mlir::tracking_plugin::TrackingPluginDialect)

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "TrackingTestDialectPlugin",
          LLVM_VERSION_STRING, [](DialectRegistry *registry) {
            registry->insert<tracking_plugin::TrackingPluginDialect>();
          }};
}
