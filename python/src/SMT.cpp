//===- SMT.cpp - dialects.smt's types and SMT-LIB export ------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Upstream's `mlir.dialects.smt` extension: the `!smt.bool`, `!smt.int` and
// `!smt.bv<N>` type classes (registered as the types' casters) and
// `export_smtlib`, which writes a module's `smt.solver` ops as an SMT-LIB
// script.
//
//===----------------------------------------------------------------------===//

#include "Core.h"
#include "Downcast.h"
#include "IRObjects.h"
#include "RunGuard.h"

#include "mlir/Dialect/SMT/IR/SMTOps.h"
#include "mlir/Dialect/SMT/IR/SMTTypes.h"
#include "mlir/Target/SMTLIB/ExportSMTLIB.h"

using namespace mlir;
using namespace mlir::tracking::python;

namespace {
struct PySMTBoolType : PyType {};
struct PySMTIntType : PyType {};
struct PySMTBitVectorType : PyType {};
} // namespace

void mlir::tracking::python::populateSMT(py::module_ &m) {
  defineConcreteType<PySMTBoolType, PyType>(
      m, "BoolType", "!smt.bool.",
      [](Type type) { return isa<smt::BoolType>(type); },
      TypeID::get<smt::BoolType>())
      .def_static(
          "get",
          [](py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeTyped<PySMTBoolType>(ctx, smt::BoolType::get(ctx.get()));
          },
          py::arg("context") = py::none(), "The type !smt.bool.");
  defineConcreteType<PySMTIntType, PyType>(
      m, "IntType", "!smt.int: a mathematical integer.",
      [](Type type) { return isa<smt::IntType>(type); },
      TypeID::get<smt::IntType>())
      .def_static(
          "get",
          [](py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeTyped<PySMTIntType>(ctx, smt::IntType::get(ctx.get()));
          },
          py::arg("context") = py::none(), "The type !smt.int.");
  defineConcreteType<PySMTBitVectorType, PyType>(
      m, "BitVectorType", "!smt.bv<width>: a bit-vector of `width` bits.",
      [](Type type) { return isa<smt::BitVectorType>(type); },
      TypeID::get<smt::BitVectorType>())
      .def_static(
          "get",
          [](int64_t width, py::object context) {
            // The type allows 2^63 - 1 bits, MLIR's SMT ops 32-bit widths
            // (a repeat of a 2^32-bit vector divided by zero verifying).
            if (width > int64_t(UINT32_MAX))
              throw py::value_error(
                  "BitVectorType.get: width " + std::to_string(width) +
                  " is over 4294967295, the widest bit-vector MLIR's SMT ops "
                  "take");
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            Type type = buildChecked(ctx.get(), "Invalid type", [&] {
              return smt::BitVectorType::getChecked(
                  [&] { return emitError(UnknownLoc::get(ctx.get())); },
                  ctx.get(), width);
            });
            return makeTyped<PySMTBitVectorType>(ctx, type);
          },
          py::arg("width"), py::arg("context") = py::none(),
          "The type !smt.bv<width>; MLIRError for a width below 1, "
          "ValueError for one over 4294967295.")
      .def_property_readonly(
          "width",
          [](PyType &self) {
            return cast<smt::BitVectorType>(self.type).getWidth();
          },
          "The number of bits.");

  m.def(
      "export_smtlib",
      [](py::object module, bool inlineSingleUseValues, bool indentLetBody) {
        PyOperation &operation = castToOperation(module);
        // The exporter reads each op as the verifier leaves it (an operand
        // of another function is a value it never named).
        verifyBeforeWriting(operation, "export_smtlib",
                            "cannot export IR that does not verify to "
                            "SMT-LIB");
        Operation *op = operation.get();
        // MLIR's exporter emits every smt.assert as a command and crashed
        // on one inside a quantifier's body (its values are bound there),
        // which SMT-LIB has no way to say either.
        WalkResult nested = op->walk([](smt::AssertOp assertion) {
          return assertion->getParentOfType<smt::ForallOp>() ||
                         assertion->getParentOfType<smt::ExistsOp>()
                     ? WalkResult::interrupt()
                     : WalkResult::advance();
        });
        if (nested.wasInterrupted())
          throw py::value_error("Failed to export smtlib: an 'smt.assert' "
                                "inside the body of an 'smt.forall' or "
                                "'smt.exists' (an assertion is a command of "
                                "the script, not part of a formula)");
        smt::SMTEmissionOptions options;
        options.inlineSingleUseValues = inlineSingleUseValues;
        options.indentLetBody = indentLetBody;
        std::string text;
        llvm::raw_string_ostream os(text);
        DiagnosticCapture capture(op->getContext());
        if (succeeded(smt::exportSMTLIB(op, os, options)))
          return text;
        std::string message = "Failed to export smtlib.\nDiagnostic message";
        for (const DiagnosticRecord &diagnostic : capture.take())
          message += " " + diagnostic.message;
        throw py::value_error(message);
      },
      py::arg("module"), py::arg("inline_single_use_values") = false,
      py::arg("indent_let_body") = false,
      "The SMT-LIB script of the `smt.solver` ops of `module` (an "
      "ir.Module or ir.Operation); ValueError with MLIR's diagnostics if "
      "an op cannot be exported.");
}
