//===- IRDL.cpp - dialects.irdl's load_dialects ---------------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Upstream's `mlir.dialects.irdl.load_dialects(module)`: registers the
// dialects that the `irdl.dialect` ops of a module define in its context.
//
// MLIR's loader builds its verifiers from the constraint ops
// (VerifyConstraintInterface, VerifyRegionInterface) of each definition and
// looks the values the definition uses up among them: a value of another op
// is not found, and the verifier reads past its lists (a segfault when an
// op of the dialect is verified) or drops the constraint silently. The
// `irdl.c_pred` op (a C++ predicate, meant for code generation) is such an
// op, and so is any other op producing an `!irdl.attribute` or
// `!irdl.region`; load_dialects refuses definitions holding them before it
// loads anything.
//
//===----------------------------------------------------------------------===//

#include "Core.h"
#include "Downcast.h"
#include "IRObjects.h"
#include "RunGuard.h"

#include "mlir/Dialect/IRDL/IR/IRDL.h"
#include "mlir/Dialect/IRDL/IR/IRDLInterfaces.h"
#include "mlir/Dialect/IRDL/IRDLLoading.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::tracking::python;

namespace {
/// Why MLIR's loader cannot check the definitions in `moduleOp` (an empty
/// string if it can): an irdl.c_pred, or a constraint or region value not
/// made by an IRDL constraint op, in an irdl.type, irdl.attribute or
/// irdl.operation.
std::string describeUnloadableDefinition(ModuleOp moduleOp) {
  std::string reason;
  moduleOp.walk([&](irdl::DialectOp dialect) {
    dialect.walk([&](Operation *op) {
      if (isa<irdl::CPredOp>(op)) {
        reason = "'irdl.c_pred' at " + printToStr(op->getLoc()) +
                 ": a C++ predicate cannot be checked in a dialect loaded "
                 "at run time";
        return WalkResult::interrupt();
      }
      if (!isa<irdl::TypeOp, irdl::AttributeOp, irdl::OperationOp>(
              op->getParentOp()))
        return WalkResult::advance();
      for (OpOperand &operand : op->getOpOperands()) {
        Value value = operand.get();
        Operation *producer = value.getDefiningOp();
        bool isRegion = isa<irdl::RegionType>(value.getType());
        bool checkable =
            producer &&
            (isRegion ? isa<irdl::VerifyRegionInterface>(producer)
                      : isa<irdl::VerifyConstraintInterface>(producer));
        if (checkable ||
            (!isRegion && !isa<irdl::AttributeType>(value.getType())))
          continue;
        reason =
            "operand " + std::to_string(operand.getOperandNumber()) + " of '" +
            op->getName().getStringRef().str() + "' at " +
            printToStr(op->getLoc()) + " is not made by an IRDL " +
            (isRegion ? "region" : "constraint") + " op" +
            (producer ? " ('" + producer->getName().getStringRef().str() + "')"
                      : std::string()) +
            ": a dialect loaded at run time cannot check it";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return reason.empty() ? WalkResult::advance() : WalkResult::interrupt();
  });
  return reason;
}
} // namespace

void mlir::tracking::python::populateIRDL(py::module_ &m) {
  m.def(
      "load_dialects",
      [](PyModule &module) {
        PyOperation &operation = module.getOperation();
        PyMlirContext &context = operation.getContext();
        // Adds dialects to the context, which MLIR forbids while it runs
        // passes; and the loader reads the module.
        checkNoRunIn(context, "irdl.load_dialects");
        auto moduleOp = cast<ModuleOp>(operation.get());
        MLIRContext *mlirContext = context.get();
        DiagnosticCapture capture(mlirContext,
                                  DiagnosticCapture::End::CallDone);
        // Everything below reads the definitions as verified.
        if (succeeded(verifyIR(moduleOp))) {
          // MLIR registers each definition's ops as new: a dialect of a
          // name the context knows already, or that the module defines
          // twice (nested modules are symbol tables of their own), crashed
          // it (upstream's too).
          std::vector<StringRef> available =
              mlirContext->getAvailableDialects();
          llvm::StringSet<> defined;
          std::string known;
          moduleOp.walk([&](irdl::DialectOp dialect) {
            StringRef name = dialect.getSymName();
            if (defined.insert(name).second &&
                !mlirContext->getLoadedDialect(name) &&
                !llvm::is_contained(available, name))
              return WalkResult::advance();
            known = name.str();
            return WalkResult::interrupt();
          });
          if (!known.empty())
            throw std::runtime_error("failed to load IRDL dialects: the "
                                     "context or the module has a dialect "
                                     "named '" +
                                     known + "' already");
          // What the loader's verifiers cannot check, refused before the
          // loader registers anything.
          std::string unloadable = describeUnloadableDefinition(moduleOp);
          if (!unloadable.empty())
            throw std::runtime_error("failed to load IRDL dialects: " +
                                     unloadable);
          if (succeeded(irdl::loadDialects(moduleOp)))
            return;
        }
        std::string message = "failed to load IRDL dialects";
        for (const DiagnosticRecord &record : capture.take())
          message += "\n" + record.message;
        throw std::runtime_error(message);
      },
      py::arg("module"),
      "Registers in the module's context the dialects its irdl.dialect ops "
      "define; RuntimeError if they do not verify or cannot be loaded (an "
      "irdl.c_pred, or a constraint not made by an IRDL constraint op, "
      "cannot be checked at run time).");
}
