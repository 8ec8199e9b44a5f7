//===- IRDL.cpp - dialects.irdl's load_dialects ---------------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Upstream's `mlir.dialects.irdl.load_dialects(module)`: registers the
// dialects that the `irdl.dialect` ops of a module define in its context.
//
//===----------------------------------------------------------------------===//

#include "Core.h"
#include "Downcast.h"
#include "IRObjects.h"
#include "RunGuard.h"

#include "mlir/Dialect/IRDL/IR/IRDL.h"
#include "mlir/Dialect/IRDL/IRDLLoading.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::tracking::python;

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
        // MLIR registers each definition's ops as new: a dialect of a name
        // the context knows already crashed it (upstream's too).
        MLIRContext *mlirContext = context.get();
        std::vector<StringRef> available = mlirContext->getAvailableDialects();
        std::string known;
        moduleOp.walk([&](irdl::DialectOp dialect) {
          StringRef name = dialect.getSymName();
          if (!mlirContext->getLoadedDialect(name) &&
              !llvm::is_contained(available, name))
            return WalkResult::advance();
          known = name.str();
          return WalkResult::interrupt();
        });
        if (!known.empty())
          throw std::runtime_error("failed to load IRDL dialects: the "
                                   "context has a dialect named '" +
                                   known + "' already");
        DiagnosticCapture capture(mlirContext,
                                  DiagnosticCapture::End::CallDone);
        // The loader reads the definitions as verified.
        if (succeeded(verifyIR(moduleOp)) &&
            succeeded(irdl::loadDialects(moduleOp)))
          return;
        std::string message = "failed to load IRDL dialects";
        for (const DiagnosticRecord &record : capture.take())
          message += "\n" + record.message;
        throw std::runtime_error(message);
      },
      py::arg("module"),
      "Registers in the module's context the dialects its irdl.dialect ops "
      "define; RuntimeError if they do not verify or cannot be loaded.");
}
