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

namespace {
/// `Op::getNumRegionArgs()`, which the named ops define (not through an
/// interface), or nullopt.
template <typename Op, typename = void> struct RegionArgCount {
  static std::optional<unsigned> get() { return std::nullopt; }
};
template <typename Op>
struct RegionArgCount<Op, std::void_t<decltype(Op::getNumRegionArgs())>> {
  static std::optional<unsigned> get() { return Op::getNumRegionArgs(); }
};

template <typename... Ops>
std::optional<unsigned> regionArgCountOf(Operation *op) {
  std::optional<unsigned> count;
  (void)((isa<Ops>(op) ? (count = RegionArgCount<Ops>::get(), true) : false) ||
         ...);
  return count;
}

/// The number of block arguments the region builder of the named op `op`
/// reads, if it says.
std::optional<unsigned> getRegionArgCount(Operation *op) {
  return regionArgCountOf<
#define GET_OP_LIST
#include "mlir/Dialect/Linalg/IR/LinalgStructuredOps.cpp.inc"
      >(op);
}

/// Region builders read their block arguments by position and combine them
/// with arith ops, trusting the op's operands: too few arguments were read
/// out of bounds, and element types arith cannot combine (f32 with
/// complex<f32> or vector<4xf32>, index with f32) crashed the builder (some
/// builders report them through a null callback). They combine integers
/// with indices or floats, of any widths, and any types all equal.
void checkRegionArgs(Operation *op, ArrayRef<Type> argTypes) {
  std::string name = op->getName().getStringRef().str();
  if (std::optional<unsigned> expected = getRegionArgCount(op);
      expected && *expected != argTypes.size())
    throw py::value_error("'" + name + "' takes " + std::to_string(*expected) +
                          " inputs and inits together, got " +
                          std::to_string(argTypes.size()));
  auto isScalar = [](Type type) { return type.isIntOrIndexOrFloat(); };
  bool mixesIndexAndFloat =
      llvm::any_of(argTypes, [](Type type) { return type.isIndex(); }) &&
      llvm::any_of(argTypes, [](Type type) { return isa<FloatType>(type); });
  if (llvm::all_equal(argTypes) ||
      (llvm::all_of(argTypes, isScalar) && !mixesIndexAndFloat))
    return;
  std::string types;
  llvm::raw_string_ostream os(types);
  llvm::interleaveComma(argTypes, os);
  throw py::value_error("the body of '" + name +
                        "' cannot combine the element types (" + types +
                        "): integers with indices or floats, or one type");
}
/// Raises ValueError unless the `operandSegmentSizes` of `op` split its
/// operands into inputs and inits: the op's accessors trust them
/// (`Operation.create` takes any attribute; a negative or oversized count
/// read past the operands).
void checkOperandSegments(Operation *op) {
  if (!op->hasTrait<OpTrait::AttrSizedOperandSegments>())
    return;
  std::optional<Attribute> attribute =
      getInherentAttrOf(op, "operandSegmentSizes");
  auto sizes =
      dyn_cast_or_null<DenseI32ArrayAttr>(attribute.value_or(Attribute()));
  int64_t total = 0;
  bool valid = sizes && sizes.size() == 2;
  if (valid)
    for (int32_t size : sizes.asArrayRef()) {
      valid &= size >= 0;
      total += size;
    }
  if (!valid || total != static_cast<int64_t>(op->getNumOperands()))
    throw py::value_error(
        "the operandSegmentSizes of '" + op->getName().getStringRef().str() +
        "' must be two non-negative counts (inputs, inits) adding up to its " +
        std::to_string(op->getNumOperands()) + " operands");
}

/// linalg.elementwise without indexing_maps gets the identity maps its
/// parser infers (one per operand, of the init's rank): its verifier wants
/// them and only the parser and the C++ builders that take maps set them.
void setDefaultElementwiseMaps(Operation *op) {
  auto elementwise = dyn_cast<linalg::ElementwiseOp>(op);
  if (!elementwise || !elementwise.getIndexingMaps().empty() ||
      elementwise.getOutputs().size() != 1)
    return;
  auto initType = dyn_cast<ShapedType>(elementwise.getOutputs()[0].getType());
  if (!initType || !initType.hasRank())
    return;
  elementwise.setIndexingMapsAttr(
      Builder(op->getContext())
          .getAffineMapArrayAttr(linalg::ElementwiseOp::getDefaultIndexingMaps(
              op->getNumOperands(), initType.getRank(), op->getContext())));
}

/// `operation` as a Linalg op that verifies, body included (the analyses
/// read its indexing maps and operands, and ask its body's ops about their
/// effects, as the verifier guarantees them), or null.
linalg::LinalgOp verifiedLinalgOp(const py::object &operation) {
  Operation *op = castToOperation(operation).get();
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return {};
  DiagnosticCapture quiet(op->getContext());
  if (failed(verifyIR(op)))
    return {};
  return linalgOp;
}

py::list toList(ArrayRef<unsigned> values) {
  py::list list;
  for (unsigned value : values)
    list.append(value);
  return list;
}
py::list toList(ArrayRef<int64_t> values) {
  py::list list;
  for (int64_t value : values)
    list.append(value);
  return list;
}

void populateLinalgAnalyses(py::module_ &m) {
  m.def(
      "_linalg_isa_contraction_op",
      [](const py::object &operation) {
        linalg::LinalgOp op = verifiedLinalgOp(operation);
        return op && linalg::isaContractionOpInterface(op);
      },
      py::arg("op"));
  m.def(
      "_linalg_infer_contraction_dimensions",
      [](const py::object &operation) -> py::object {
        linalg::LinalgOp op = verifiedLinalgOp(operation);
        if (!op)
          return py::none();
        FailureOr<linalg::ContractionDimensions> dims =
            linalg::inferContractionDims(op);
        if (failed(dims))
          return py::none();
        return py::make_tuple(toList(dims->batch), toList(dims->m),
                              toList(dims->n), toList(dims->k));
      },
      py::arg("op"));
  m.def(
      "_linalg_isa_convolution_op",
      [](const py::object &operation) {
        linalg::LinalgOp op = verifiedLinalgOp(operation);
        return op && linalg::isaConvolutionOpInterface(op);
      },
      py::arg("op"));
  m.def(
      "_linalg_infer_convolution_dimensions",
      [](const py::object &operation) -> py::object {
        linalg::LinalgOp op = verifiedLinalgOp(operation);
        if (!op)
          return py::none();
        FailureOr<linalg::ConvolutionDimensions> dims =
            linalg::inferConvolutionDims(op);
        if (failed(dims))
          return py::none();
        return py::make_tuple(toList(dims->batch), toList(dims->outputImage),
                              toList(dims->outputChannel),
                              toList(dims->filterLoop),
                              toList(dims->inputChannel), toList(dims->depth),
                              toList(dims->strides), toList(dims->dilations));
      },
      py::arg("op"));
  m.def(
      "_linalg_get_indexing_maps",
      [](const py::object &operation) -> py::object {
        PyOperation &pyOp = castToOperation(operation);
        linalg::LinalgOp op = verifiedLinalgOp(operation);
        if (!op)
          return py::none();
        return makeAttribute(pyOp.getContext(), op.getIndexingMaps());
      },
      py::arg("op"));
}
} // namespace

void mlir::tracking::python::populateStructuredOpHelpers(py::module_ &m) {
  populateLinalgAnalyses(m);
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
        checkOperandSegments(op);
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
        checkRegionArgs(op, argTypes);
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
        setDefaultElementwiseMaps(op);
        return true;
      },
      py::arg("operation"),
      "Fills the empty region of a Linalg named structured op from its "
      "region builder (one block argument per input and init element "
      "type). Returns False for ops without a region builder.");
}
