//===- LLVMTypes.cpp - dialects.llvm's StructType and PointerType ---------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Upstream's `mlir.dialects.llvm` has Python classes for two LLVM dialect
// types: `!llvm.struct` (literal, identified, opaque; an identified one's
// body is set once) and `!llvm.ptr`. They are registered as the types'
// casters, so the API returns these types as these classes.
//
//===----------------------------------------------------------------------===//

#include "Core.h"
#include "Downcast.h"
#include "IRObjects.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"

#include <pybind11/stl.h>

using namespace mlir;
using namespace mlir::tracking::python;

namespace {
struct PyLLVMStructType : PyType {};
struct PyLLVMPointerType : PyType {};

/// The element types of `elements` (a sequence of ir.Type) for a struct of
/// `context`; ValueError for a type a struct cannot hold.
SmallVector<Type> structElements(PyMlirContext &context,
                                 const py::handle &elements) {
  SmallVector<Type> types;
  for (py::handle item : elements) {
    Type type = item.cast<PyType &>().type;
    checkContextOf(context, type);
    if (!LLVM::LLVMStructType::isValidElementType(type))
      throw py::value_error("invalid LLVM structure element type: " +
                            printToStr(type));
    types.push_back(type);
  }
  return types;
}

LLVM::LLVMStructType asStruct(const PyType &self) {
  return cast<LLVM::LLVMStructType>(self.type);
}
} // namespace

void mlir::tracking::python::populateLLVMTypes(py::module_ &m) {
  defineConcreteType<PyLLVMStructType, PyType>(
      m, "StructType",
      "!llvm.struct: literal (its body is its identity) or identified by a "
      "name (opaque until its body is set, once).",
      [](Type type) { return isa<LLVM::LLVMStructType>(type); },
      TypeID::get<LLVM::LLVMStructType>())
      .def_static(
          "get_literal",
          [](const py::sequence &elements, bool packed, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            SmallVector<Type> types = structElements(ctx, elements);
            return makeTyped<PyLLVMStructType>(
                ctx,
                LLVM::LLVMStructType::getLiteral(ctx.get(), types, packed));
          },
          py::arg("elements"), py::kw_only(), py::arg("packed") = false,
          py::arg("context") = py::none(),
          "The literal struct of `elements` (packed if asked).")
      .def_static(
          "get_identified",
          [](const std::string &name, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeTyped<PyLLVMStructType>(
                ctx, LLVM::LLVMStructType::getIdentified(ctx.get(), name));
          },
          py::arg("name"), py::kw_only(), py::arg("context") = py::none(),
          "The struct identified by `name` (the same type for the same name "
          "in a context); opaque until `set_body`.")
      .def_static(
          "new_identified",
          [](const std::string &name, const py::sequence &elements, bool packed,
             py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            SmallVector<Type> types = structElements(ctx, elements);
            return makeTyped<PyLLVMStructType>(
                ctx, LLVM::LLVMStructType::getNewIdentified(ctx.get(), name,
                                                            types, packed));
          },
          py::arg("name"), py::arg("elements"), py::kw_only(),
          py::arg("packed") = false, py::arg("context") = py::none(),
          "A new identified struct with this body, named `name` or, if "
          "that name is taken, a unique name derived from it.")
      .def_static(
          "get_opaque",
          [](const std::string &name, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeTyped<PyLLVMStructType>(
                ctx, LLVM::LLVMStructType::getOpaque(name, ctx.get()));
          },
          py::arg("name"), py::arg("context") = py::none(),
          "The identified struct `name`, opaque.")
      .def(
          "set_body",
          [](PyType &self, const py::sequence &elements, bool packed) {
            LLVM::LLVMStructType type = asStruct(self);
            if (!type.isIdentified())
              throw py::value_error("only identified structs have a body to "
                                    "set; this one is literal");
            SmallVector<Type> types =
                structElements(pyContextOf(self.context), elements);
            if (failed(type.setBody(types, packed)))
              throw py::value_error("struct body already set to different "
                                    "content: " +
                                    printToStr(self.type));
          },
          py::arg("elements"), py::kw_only(), py::arg("packed") = false,
          "Sets the body of an identified struct; ValueError if it has "
          "another one already (the same body again is accepted).")
      .def_property_readonly(
          "name",
          [](const PyType &self) -> py::object {
            LLVM::LLVMStructType type = asStruct(self);
            if (!type.isIdentified())
              return py::none();
            return py::str(type.getName().str());
          },
          "The name of an identified struct, None for a literal one.")
      .def_property_readonly(
          "body",
          [](const PyType &self) -> py::object {
            LLVM::LLVMStructType type = asStruct(self);
            if (type.isOpaque())
              return py::none();
            py::list body;
            for (Type element : type.getBody())
              body.append(makeType(pyContextOf(self.context), element));
            return std::move(body);
          },
          "The element types, None while opaque.")
      .def_property_readonly(
          "packed",
          [](const PyType &self) { return asStruct(self).isPacked(); },
          "Whether the struct is packed.")
      .def_property_readonly(
          "opaque",
          [](const PyType &self) { return asStruct(self).isOpaque(); },
          "Whether the struct has no body yet.");

  defineConcreteType<PyLLVMPointerType, PyType>(
      m, "PointerType", "!llvm.ptr, in an address space.",
      [](Type type) { return isa<LLVM::LLVMPointerType>(type); },
      TypeID::get<LLVM::LLVMPointerType>())
      .def_static(
          "get",
          [](std::optional<unsigned> addressSpace, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeTyped<PyLLVMPointerType>(
                ctx, LLVM::LLVMPointerType::get(ctx.get(),
                                                addressSpace.value_or(0)));
          },
          py::arg("address_space") = py::none(), py::kw_only(),
          py::arg("context") = py::none(),
          "!llvm.ptr in `address_space` (0 if None).")
      .def_property_readonly(
          "address_space",
          [](const PyType &self) {
            return cast<LLVM::LLVMPointerType>(self.type).getAddressSpace();
          },
          "The address space.");
}
