//===- GPUAttributes.cpp - dialects.gpu's ObjectAttr ----------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Upstream's `mlir.dialects.gpu.ObjectAttr`: `#gpu.object`, a compiled GPU
// module (what gpu-module-to-binary puts in a `gpu.binary`), registered as
// the attribute's caster.
//
//===----------------------------------------------------------------------===//

#include "Core.h"
#include "Downcast.h"
#include "IRObjects.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::tracking::python;

namespace {
struct PyGPUObjectAttr : PyAttribute {};

gpu::ObjectAttr asObject(const PyAttribute &self) {
  return cast<gpu::ObjectAttr>(self.attribute);
}
} // namespace

void mlir::tracking::python::populateGPUAttributes(py::module_ &m) {
  defineConcreteAttribute<PyGPUObjectAttr, PyAttribute>(
      m, "ObjectAttr",
      "#gpu.object: a GPU module compiled for `target` in `format`.",
      [](Attribute attr) { return isa<gpu::ObjectAttr>(attr); },
      TypeID::get<gpu::ObjectAttr>())
      .def_static(
          "get",
          [](const PyAttribute &target, unsigned format,
             const py::bytes &object, py::object properties,
             py::object kernels) {
            PyMlirContext &ctx = pyContextOf(target.context);
            std::optional<gpu::CompilationTarget> kind =
                gpu::symbolizeCompilationTarget(format);
            if (!kind)
              throw py::value_error("format must be a gpu.CompilationTarget, "
                                    "got " +
                                    std::to_string(format));
            DictionaryAttr props;
            if (!properties.is_none()) {
              props = dyn_cast<DictionaryAttr>(
                  properties.cast<PyAttribute &>().attribute);
              if (!props)
                throw py::type_error("properties must be a DictAttr");
            }
            gpu::KernelTableAttr table;
            if (!kernels.is_none()) {
              table = dyn_cast<gpu::KernelTableAttr>(
                  kernels.cast<PyAttribute &>().attribute);
              if (!table)
                throw py::type_error("kernels must be a #gpu.kernel_table");
            }
            for (Attribute part :
                 {target.attribute, Attribute(props), Attribute(table)})
              if (part)
                checkContextOf(ctx, part);
            StringAttr bytes =
                StringAttr::get(ctx.get(), object.cast<std::string>());
            auto attr = buildChecked(ctx.get(), "Invalid attribute", [&] {
              return gpu::ObjectAttr::getChecked(
                  [&] { return emitError(UnknownLoc::get(ctx.get())); },
                  ctx.get(), target.attribute, *kind, bytes, props, table);
            });
            return makeTypedAttr<PyGPUObjectAttr>(ctx, attr);
          },
          py::arg("target"), py::arg("format"), py::arg("object"),
          py::arg("properties") = py::none(), py::arg("kernels") = py::none(),
          "The object `object` (bytes or str) compiled for the GPU target "
          "attribute `target` in `format` (a gpu.CompilationTarget), with "
          "optional `properties` (a DictAttr) and `kernels`; MLIRError for a "
          "target that is no GPU target.")
      .def_property_readonly(
          "target",
          [](const PyAttribute &self) {
            return makeAttribute(pyContextOf(self.context),
                                 asObject(self).getTarget());
          },
          "The target attribute.")
      .def_property_readonly(
          "format",
          [](const PyAttribute &self) {
            return static_cast<unsigned>(asObject(self).getFormat());
          },
          "The format (a gpu.CompilationTarget value).")
      .def_property_readonly(
          "object",
          [](const PyAttribute &self) {
            return py::bytes(asObject(self).getObject().getValue().str());
          },
          "The compiled object, as bytes.")
      .def_property_readonly(
          "properties",
          [](const PyAttribute &self) -> py::object {
            DictionaryAttr props = asObject(self).getProperties();
            if (!props)
              return py::none();
            return makeAttribute(pyContextOf(self.context), props);
          },
          "The properties (a DictAttr), or None.")
      .def_property_readonly(
          "kernels",
          [](const PyAttribute &self) -> py::object {
            gpu::KernelTableAttr table = asObject(self).getKernels();
            if (!table)
              return py::none();
            return makeAttribute(pyContextOf(self.context), table);
          },
          "The kernel table, or None.");
}
