//===- NVGPUTypes.cpp - dialects.nvgpu's TensorMapDescriptorType ----------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Upstream's `mlir.dialects.nvgpu.TensorMapDescriptorType`
// (`!nvgpu.tensormap.descriptor`), registered as the type's caster. Its `get`
// takes the enums as integers, as upstream's does; unlike MLIR's C API it
// checks them and the tensor type (which MLIR casts unchecked).
//
//===----------------------------------------------------------------------===//

#include "Core.h"
#include "Downcast.h"
#include "IRObjects.h"

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

using namespace mlir;
using namespace mlir::tracking::python;

namespace {
struct PyTensorMapDescriptorType : PyType {};

/// The enumerator of `value`, or ValueError naming the argument.
template <typename Enum>
Enum checkedEnum(std::optional<Enum> (*symbolize)(uint32_t), int64_t value,
                 const char *argument) {
  std::optional<Enum> kind;
  if (value >= 0 && value <= int64_t(UINT32_MAX))
    kind = symbolize(uint32_t(value));
  if (!kind)
    throw py::value_error(std::string("TensorMapDescriptorType.get: ") +
                          argument + " " + std::to_string(value) +
                          " is no value of its nvgpu enum");
  return *kind;
}
} // namespace

void mlir::tracking::python::populateNVGPUTypes(py::module_ &m) {
  defineConcreteType<PyTensorMapDescriptorType, PyType>(
      m, "TensorMapDescriptorType",
      "!nvgpu.tensormap.descriptor: a TMA descriptor of a memref.",
      [](Type type) { return isa<nvgpu::TensorMapDescriptorType>(type); },
      TypeID::get<nvgpu::TensorMapDescriptorType>())
      .def_static(
          "get",
          [](const PyType &tensorType, int64_t swizzle, int64_t l2promo,
             int64_t oobFill, int64_t interleave, py::object context) {
            auto memref = dyn_cast<MemRefType>(tensorType.type);
            if (!memref)
              throw py::type_error("TensorMapDescriptorType.get: tensor_type "
                                   "must be a MemRefType, got " +
                                   printToStr(tensorType.type));
            PyMlirContext &ctx = context.is_none()
                                     ? pyContextOf(tensorType.context)
                                     : PyMlirContext::resolve(context);
            checkContextOf(ctx, memref);
            Type type = nvgpu::TensorMapDescriptorType::get(
                ctx.get(), memref,
                checkedEnum(nvgpu::symbolizeTensorMapSwizzleKind, swizzle,
                            "swizzle"),
                checkedEnum(nvgpu::symbolizeTensorMapL2PromoKind, l2promo,
                            "l2promo"),
                checkedEnum(nvgpu::symbolizeTensorMapOOBKind, oobFill,
                            "oob_fill"),
                checkedEnum(nvgpu::symbolizeTensorMapInterleaveKind, interleave,
                            "interleave"));
            return makeTyped<PyTensorMapDescriptorType>(ctx, type);
          },
          py::arg("tensor_type"), py::arg("swizzle"), py::arg("l2promo"),
          py::arg("oob_fill"), py::arg("interleave"),
          py::arg("ctx") = py::none(),
          "The descriptor of `tensor_type` (a MemRefType) with the given "
          "nvgpu.TensorMap{Swizzle,L2Promo,OOB,Interleave}Kind values; "
          "ValueError for a value that is none of its enum's.");
}
