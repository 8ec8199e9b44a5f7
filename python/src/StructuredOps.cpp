//===- StructuredOps.cpp - Bodies of Linalg named ops built from Python ---===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// The C++ builders of the Linalg named structured ops (linalg.matmul,
// linalg.fill, ...) fill their region from the op's region builder; the
// generic builder the Python classes use cannot. This fills it afterwards.
//
//===----------------------------------------------------------------------===//

#include "IRObjects.h"
#include "OpView.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::python;

void mlir::tracking::python::populateStructuredOpHelpers(py::module_ &m) {
  m.def(
      "_linalg_fill_structured_region",
      [](const py::object &operation) {
        PyOperation &pyOp = castToOperation(operation);
        Operation *op = pyOp.get();
        auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
        if (!linalgOp)
          return false;
        auto regionBuilder = linalgOp.getRegionBuilder();
        if (!regionBuilder || op->getNumRegions() != 1)
          return false;
        Region &region = op->getRegion(0);
        if (!region.empty())
          throw py::value_error("the region of '" +
                                op->getName().getStringRef().str() +
                                "' is not empty");
        SmallVector<Type> argTypes;
        auto dps = cast<DestinationStyleOpInterface>(op);
        for (Value input : dps.getDpsInputs())
          argTypes.push_back(getElementTypeOrSelf(input.getType()));
        for (Value init : dps.getDpsInits())
          argTypes.push_back(getElementTypeOrSelf(init.getType()));
        SmallVector<Location> argLocs(argTypes.size(), op->getLoc());
        pyOp.getContext().noteChanged(pyOp);
        ImplicitLocOpBuilder builder(op->getLoc(), op->getContext());
        Block *body = builder.createBlock(&region, {}, argTypes, argLocs);
        builder.setInsertionPointToStart(body);
        DiagnosticCapture capture(op->getContext());
        regionBuilder(builder, *body, op->getAttrDictionary().getValue(),
                      [&]() { return op->emitError(); });
        std::vector<DiagnosticRecord> errors = capture.take();
        if (!errors.empty()) {
          // Leave the op as the generic builder made it.
          region.getBlocks().clear();
          throw MLIRErrorException{"cannot build the body of '" +
                                       op->getName().getStringRef().str() + "'",
                                   std::move(errors)};
        }
        return true;
      },
      py::arg("operation"),
      "Fills the empty region of a Linalg named structured op from its "
      "region builder (one block argument per input and init element "
      "type). Returns False for ops without a region builder.");
}
