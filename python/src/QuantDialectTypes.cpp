//===- QuantDialectTypes.cpp - dialects.quant's quantized types -----------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Upstream's `mlir.dialects.quant` has Python classes for the quant
// dialect's types: the abstract base `QuantizedType` (static helpers, the
// storage and expressed types, casts between types based on them) and
// `AnyQuantizedType`, `UniformQuantizedType`, `UniformQuantizedPerAxisType`,
// `UniformQuantizedSubChannelType` and `CalibratedQuantizedType`, registered
// as the types' casters.
//
// Types are built with getChecked (MLIRError with the diagnostics); what the
// verifiers do not check and MLIR would misread is checked first: the
// integer widths of the default bounds (a shift by -1 for 0), flags other
// than FLAG_SIGNED, per-axis lists of different lengths or empty ones (the
// printed form does not parse), sub-channel lists of different lengths
// (upstream reads past the shorter), sub-channel scales or zero points of
// rank 0 (MLIR's printer crashes) or without elements, and casts that would
// build a shaped type of a null element type. A `!quant.calibrated` type
// has no storage type (MLIR keeps a null one, and bounds of 0): the
// properties that describe the storage type raise ValueError for it, and the
// casts to or from a type based on it raise TypeError, where MLIR would read
// the null type or build a shaped type of it.
//
//===----------------------------------------------------------------------===//

#include "Core.h"
#include "Downcast.h"
#include "IRObjects.h"
#include "RunGuard.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/stl.h>

using namespace mlir;
using namespace mlir::tracking::python;

namespace {
struct PyQuantizedType : PyType {};
struct PyAnyQuantizedType : PyQuantizedType {};
struct PyUniformQuantizedType : PyQuantizedType {};
struct PyUniformQuantizedPerAxisType : PyQuantizedType {};
struct PyUniformQuantizedSubChannelType : PyQuantizedType {};
struct PyCalibratedQuantizedType : PyQuantizedType {};

quant::QuantizedType asQuantized(const PyType &self) {
  return cast<quant::QuantizedType>(self.type);
}

/// `self` as a quantized type with a storage type: ValueError naming `what`
/// for one without (a `!quant.calibrated` type).
quant::QuantizedType withStorage(const PyType &self, const char *what) {
  quant::QuantizedType quantized = asQuantized(self);
  if (!quantized.getStorageType())
    throw py::value_error(printToStr(quantized) + " has no storage type (a " +
                          "quant.calibrated type only records an observed " +
                          "range), so " + what + " is undefined");
  return quantized;
}

/// TypeError for a cast that would read the storage type of `quantized`
/// when it has none (MLIR would build a shaped type of a null element).
void checkCastStorage(quant::QuantizedType quantized) {
  if (quantized && !quantized.getStorageType())
    throw py::type_error("Invalid cast: " + printToStr(quantized) +
                         " has no storage type.");
}

PyMlirContext &contextOf(const PyType &type) {
  return pyContextOf(type.context);
}

/// `object` as a Type of `context` (None if `optional` and None).
Type typeArg(PyMlirContext &context, const py::handle &object, const char *what,
             bool optional = false) {
  if (optional && object.is_none())
    return Type();
  if (!isInstance<PyType>(object))
    throw py::type_error(std::string(what) + " must be a Type" +
                         (optional ? " or None" : "") + ", got " +
                         reprOf(object));
  Type type = object.cast<const PyType &>().type;
  checkContextOf(context, type);
  return type;
}

void checkIntegralWidth(unsigned width) {
  if (width == 0 || width > 64)
    throw py::value_error("integral_width must lie in 1..64, got " +
                          std::to_string(width));
}

void checkFlags(unsigned flags) {
  if (flags & ~static_cast<unsigned>(quant::QuantizationFlags::Signed))
    throw py::value_error("flags must be 0 or QuantizedType.FLAG_SIGNED (" +
                          std::to_string(quant::QuantizationFlags::Signed) +
                          "), got " + std::to_string(flags));
}

/// The context of `storageType` (contexts load the quant dialect, as every
/// dialect, when created).
PyMlirContext &quantContext(const py::handle &storageType, const char *what) {
  if (!isInstance<PyType>(storageType))
    throw py::type_error(std::string(what) + " must be a Type, got " +
                         reprOf(storageType));
  return pyContextOf(storageType.cast<const PyType &>().context);
}

/// Runs `build` (a getChecked call given the emitter) and makes its type of
/// class `Derived`; MLIRError with the diagnostics if it failed.
template <typename Derived, typename Build>
py::object makeChecked(PyMlirContext &context, Build &&build) {
  Type type = buildChecked(context.get(), "Invalid type", [&] {
    return build([&] { return emitError(UnknownLoc::get(context.get())); });
  });
  return makeTyped<Derived>(context, type);
}

/// The result of a cast: TypeError if MLIR had none, as upstream.
py::object castResult(PyMlirContext &context, Type result) {
  if (!result)
    throw py::type_error("Invalid cast.");
  return makeType(context, result);
}

/// Whether MLIR's casts to the expressed type would build a type of a null
/// element (a tensor of `!quant.any<i8>`, which has no expressed type).
bool lacksExpressedType(Type type) {
  quant::QuantizedType element =
      quant::QuantizedType::getQuantizedElementType(type);
  return element && !element.getExpressedType();
}
} // namespace

void mlir::tracking::python::populateQuantTypes(py::module_ &m) {
  auto quantizedType =
      defineConcreteType<PyQuantizedType, PyType>(
          m, "QuantizedType",
          "Base class of the quant dialect's types: values of an expressed "
          "(float) type approximated by a storage (integer) type.",
          [](Type type) { return isa<quant::QuantizedType>(type); },
          std::nullopt)
          .def_static(
              "default_minimum_for_integer",
              [](bool isSigned, unsigned integralWidth) {
                checkIntegralWidth(integralWidth);
                return quant::QuantizedType::getDefaultMinimumForInteger(
                    isSigned, integralWidth);
              },
              py::arg("is_signed"), py::arg("integral_width"),
              "The least value an integer of this signedness and width "
              "holds; ValueError for a width outside 1..64.")
          .def_static(
              "default_maximum_for_integer",
              [](bool isSigned, unsigned integralWidth) {
                checkIntegralWidth(integralWidth);
                return quant::QuantizedType::getDefaultMaximumForInteger(
                    isSigned, integralWidth);
              },
              py::arg("is_signed"), py::arg("integral_width"),
              "The greatest value an integer of this signedness and width "
              "holds; ValueError for a width outside 1..64.")
          .def_property_readonly(
              "expressed_type",
              [](const PyType &self) -> py::object {
                Type expressed = asQuantized(self).getExpressedType();
                if (!expressed)
                  return py::none();
                return makeType(contextOf(self), expressed);
              },
              "The type approximated (None for a quant.any without one).")
          .def_property_readonly(
              "flags",
              [](const PyType &self) { return asQuantized(self).getFlags(); },
              "The flags (is_signed reads them).")
          .def_property_readonly(
              "is_signed",
              [](const PyType &self) { return asQuantized(self).isSigned(); },
              "Whether the storage type holds signed values.")
          .def_property_readonly(
              "storage_type",
              [](const PyType &self) {
                return makeType(
                    contextOf(self),
                    withStorage(self, "storage_type").getStorageType());
              },
              "The type that stores the values; ValueError for a "
              "quant.calibrated type, which has none.")
          .def_property_readonly(
              "storage_type_min",
              [](const PyType &self) {
                return withStorage(self, "storage_type_min")
                    .getStorageTypeMin();
              },
              "The least value stored; ValueError for a quant.calibrated "
              "type, which has no storage type.")
          .def_property_readonly(
              "storage_type_max",
              [](const PyType &self) {
                return withStorage(self, "storage_type_max")
                    .getStorageTypeMax();
              },
              "The greatest value stored; ValueError for a quant.calibrated "
              "type, which has no storage type.")
          .def_property_readonly(
              "storage_type_integral_width",
              [](const PyType &self) {
                return withStorage(self, "storage_type_integral_width")
                    .getStorageTypeIntegralWidth();
              },
              "The bit width of the storage type; ValueError for a "
              "quant.calibrated type, which has none.")
          .def(
              "is_compatible_expressed_type",
              [](const PyType &self, const py::object &candidate) {
                Type type = typeArg(contextOf(self), candidate, "candidate");
                return asQuantized(self).isCompatibleExpressedType(type);
              },
              py::arg("candidate"),
              "Whether `candidate` (a type, or a shaped type of elements of "
              "that type) is this type's expressed type.")
          .def_property_readonly(
              "quantized_element_type",
              [](const PyType &self) {
                return makeType(
                    contextOf(self),
                    quant::QuantizedType::getQuantizedElementType(self.type));
              },
              "This type, as the quantized element type.")
          .def(
              "cast_from_storage_type",
              [](const PyType &self, const py::object &candidate) {
                PyMlirContext &context = contextOf(self);
                Type type = typeArg(context, candidate, "candidate");
                checkCastStorage(asQuantized(self));
                return castResult(context,
                                  asQuantized(self).castFromStorageType(type));
              },
              py::arg("candidate"),
              "The type based on this one that corresponds to `candidate`, "
              "a type based on the storage type; TypeError if there is "
              "none (always for a quant.calibrated type).")
          .def_static(
              "cast_to_storage_type",
              [](const py::object &type) {
                if (!isInstance<PyType>(type))
                  throw py::type_error("type must be a Type, got " +
                                       reprOf(type));
                const PyType &quantized = type.cast<const PyType &>();
                checkCastStorage(quant::QuantizedType::getQuantizedElementType(
                    quantized.type));
                return castResult(
                    contextOf(quantized),
                    quant::QuantizedType::castToStorageType(quantized.type));
              },
              py::arg("type"),
              "The type based on the storage type that corresponds to "
              "`type`, a type based on a quantized type; TypeError if there "
              "is none (a type based on a quant.calibrated type).")
          .def(
              "cast_from_expressed_type",
              [](const PyType &self, const py::object &candidate) {
                PyMlirContext &context = contextOf(self);
                Type type = typeArg(context, candidate, "candidate");
                return castResult(
                    context, asQuantized(self).castFromExpressedType(type));
              },
              py::arg("candidate"),
              "The type based on this one that corresponds to `candidate`, "
              "a type based on the expressed type; TypeError if there is "
              "none.")
          .def_static(
              "cast_to_expressed_type",
              [](const py::object &type) {
                if (!isInstance<PyType>(type))
                  throw py::type_error("type must be a Type, got " +
                                       reprOf(type));
                const PyType &quantized = type.cast<const PyType &>();
                if (lacksExpressedType(quantized.type))
                  throw py::type_error("Invalid cast.");
                return castResult(
                    contextOf(quantized),
                    quant::QuantizedType::castToExpressedType(quantized.type));
              },
              py::arg("type"),
              "The type based on the expressed type that corresponds to "
              "`type`, a type based on a quantized type; TypeError if there "
              "is none.")
          .def(
              "cast_expressed_to_storage_type",
              [](const PyType &self, const py::object &candidate) {
                PyMlirContext &context = contextOf(self);
                Type type = typeArg(context, candidate, "candidate");
                checkCastStorage(asQuantized(self));
                return castResult(
                    context,
                    asQuantized(self).castExpressedToStorageType(type));
              },
              py::arg("candidate"),
              "The type based on the storage type that corresponds to "
              "`candidate`, a type based on the expressed type; TypeError if "
              "there is none (always for a quant.calibrated type).");
  quantizedType.attr("FLAG_SIGNED") =
      static_cast<unsigned>(quant::QuantizationFlags::Signed);

  defineConcreteType<PyAnyQuantizedType, PyQuantizedType>(
      m, "AnyQuantizedType",
      "!quant.any: values stored in a storage type, mapped to the expressed "
      "type in a way left unspecified.",
      [](Type type) { return isa<quant::AnyQuantizedType>(type); },
      TypeID::get<quant::AnyQuantizedType>())
      .def_static(
          "get",
          [](unsigned flags, const py::object &storageType,
             const py::object &expressedType, int64_t storageTypeMin,
             int64_t storageTypeMax) {
            PyMlirContext &ctx = quantContext(storageType, "storage_type");
            checkFlags(flags);
            Type storage = typeArg(ctx, storageType, "storage_type");
            Type expressed = typeArg(ctx, expressedType, "expressed_type",
                                     /*optional=*/true);
            return makeChecked<PyAnyQuantizedType>(ctx, [&](auto emit) {
              return quant::AnyQuantizedType::getChecked(
                  emit, flags, storage, expressed, storageTypeMin,
                  storageTypeMax);
            });
          },
          py::arg("flags"), py::arg("storage_type"), py::arg("expressed_type"),
          py::arg("storage_type_min"), py::arg("storage_type_max"),
          "The type in the context of `storage_type` (`expressed_type` may be "
          "None); MLIRError if invalid.")
      .def_property_readonly_static(
          "type_name",
          [](py::object) { return quant::AnyQuantizedType::name.str(); },
          "The type's registered name.");

  defineConcreteType<PyUniformQuantizedType, PyQuantizedType>(
      m, "UniformQuantizedType",
      "!quant.uniform with one scale and zero point: real = scale * "
      "(stored - zero_point).",
      [](Type type) { return isa<quant::UniformQuantizedType>(type); },
      TypeID::get<quant::UniformQuantizedType>())
      .def_static(
          "get",
          [](unsigned flags, const py::object &storageType,
             const py::object &expressedType, double scale, int64_t zeroPoint,
             int64_t storageTypeMin, int64_t storageTypeMax) {
            PyMlirContext &ctx = quantContext(storageType, "storage_type");
            checkFlags(flags);
            Type storage = typeArg(ctx, storageType, "storage_type");
            Type expressed = typeArg(ctx, expressedType, "expressed_type");
            return makeChecked<PyUniformQuantizedType>(ctx, [&](auto emit) {
              return quant::UniformQuantizedType::getChecked(
                  emit, flags, storage, expressed, scale, zeroPoint,
                  storageTypeMin, storageTypeMax);
            });
          },
          py::arg("flags"), py::arg("storage_type"), py::arg("expressed_type"),
          py::arg("scale"), py::arg("zero_point"), py::arg("storage_type_min"),
          py::arg("storage_type_max"),
          "The type in the context of `storage_type`; MLIRError if invalid.")
      .def_property_readonly(
          "scale",
          [](const PyType &self) {
            return cast<quant::UniformQuantizedType>(self.type).getScale();
          },
          "The difference between the real values of consecutive stored "
          "values.")
      .def_property_readonly(
          "zero_point",
          [](const PyType &self) {
            return cast<quant::UniformQuantizedType>(self.type).getZeroPoint();
          },
          "The stored value of the real value 0.")
      .def_property_readonly(
          "is_fixed_point",
          [](const PyType &self) {
            return cast<quant::UniformQuantizedType>(self.type).isFixedPoint();
          },
          "Whether this is a fixed-point type (signed, zero point 0).")
      .def_property_readonly_static(
          "type_name",
          [](py::object) { return quant::UniformQuantizedType::name.str(); },
          "The type's registered name.");

  defineConcreteType<PyUniformQuantizedPerAxisType, PyQuantizedType>(
      m, "UniformQuantizedPerAxisType",
      "!quant.uniform with a scale and zero point per slice along one "
      "dimension.",
      [](Type type) { return isa<quant::UniformQuantizedPerAxisType>(type); },
      TypeID::get<quant::UniformQuantizedPerAxisType>())
      .def_static(
          "get",
          [](unsigned flags, const py::object &storageType,
             const py::object &expressedType, std::vector<double> scales,
             std::vector<int64_t> zeroPoints, int32_t quantizedDimension,
             int64_t storageTypeMin, int64_t storageTypeMax) {
            PyMlirContext &ctx = quantContext(storageType, "storage_type");
            checkFlags(flags);
            if (scales.size() != zeroPoints.size())
              throw py::value_error(
                  "Mismatching number of scales and zero points.");
            if (scales.empty())
              throw py::value_error("scales must not be empty");
            if (quantizedDimension < 0)
              throw py::value_error("quantized_dimension must not be "
                                    "negative, got " +
                                    std::to_string(quantizedDimension));
            Type storage = typeArg(ctx, storageType, "storage_type");
            Type expressed = typeArg(ctx, expressedType, "expressed_type");
            return makeChecked<PyUniformQuantizedPerAxisType>(
                ctx, [&](auto emit) {
                  return quant::UniformQuantizedPerAxisType::getChecked(
                      emit, flags, storage, expressed, scales, zeroPoints,
                      quantizedDimension, storageTypeMin, storageTypeMax);
                });
          },
          py::arg("flags"), py::arg("storage_type"), py::arg("expressed_type"),
          py::arg("scales"), py::arg("zero_points"),
          py::arg("quantized_dimension"), py::arg("storage_type_min"),
          py::arg("storage_type_max"),
          "The type in the context of `storage_type`; ValueError for lists "
          "of different lengths or empty ones, MLIRError if invalid.")
      .def_property_readonly(
          "scales",
          [](const PyType &self) {
            ArrayRef<double> scales =
                cast<quant::UniformQuantizedPerAxisType>(self.type).getScales();
            return std::vector<double>(scales.begin(), scales.end());
          },
          "The scale of each slice along quantized_dimension.")
      .def_property_readonly(
          "zero_points",
          [](const PyType &self) {
            ArrayRef<int64_t> points =
                cast<quant::UniformQuantizedPerAxisType>(self.type)
                    .getZeroPoints();
            return std::vector<int64_t>(points.begin(), points.end());
          },
          "The zero point of each slice along quantized_dimension.")
      .def_property_readonly(
          "quantized_dimension",
          [](const PyType &self) {
            return cast<quant::UniformQuantizedPerAxisType>(self.type)
                .getQuantizedDimension();
          },
          "The dimension whose slices the scales and zero points belong to.")
      .def_property_readonly(
          "is_fixed_point",
          [](const PyType &self) {
            return cast<quant::UniformQuantizedPerAxisType>(self.type)
                .isFixedPoint();
          },
          "Whether this is a fixed-point type (signed, zero points 0).")
      .def_property_readonly_static(
          "type_name",
          [](py::object) {
            return quant::UniformQuantizedPerAxisType::name.str();
          },
          "The type's registered name.");

  defineConcreteType<PyUniformQuantizedSubChannelType, PyQuantizedType>(
      m, "UniformQuantizedSubChannelType",
      "!quant.uniform with a scale and zero point per block of the "
      "quantized dimensions.",
      [](Type type) {
        return isa<quant::UniformQuantizedSubChannelType>(type);
      },
      TypeID::get<quant::UniformQuantizedSubChannelType>())
      .def_static(
          "get",
          [](unsigned flags, const py::object &storageType,
             const py::object &expressedType, const py::object &scales,
             const py::object &zeroPoints,
             std::vector<int32_t> quantizedDimensions,
             std::vector<int64_t> blockSizes, int64_t storageTypeMin,
             int64_t storageTypeMax) {
            PyMlirContext &ctx = quantContext(storageType, "storage_type");
            checkFlags(flags);
            if (quantizedDimensions.size() != blockSizes.size())
              throw py::value_error("Mismatching number of quantized "
                                    "dimensions and block sizes.");
            auto denseArg = [&](const py::object &object, const char *what) {
              DenseElementsAttr dense;
              if (isInstance<PyAttribute>(object))
                dense = dyn_cast<DenseElementsAttr>(
                    object.cast<const PyAttribute &>().attribute);
              if (!dense)
                throw py::type_error(std::string(what) +
                                     " must be a DenseElementsAttr, got " +
                                     reprOf(object));
              // MLIR's printer crashes on rank 0, and prints no value
              // (which does not parse) for no element.
              if (dense.getType().getRank() == 0 || dense.getNumElements() == 0)
                throw py::value_error(std::string(what) +
                                      " must have a rank of 1 or more and "
                                      "elements");
              checkContextOf(ctx, dense);
              return dense;
            };
            DenseElementsAttr scalesAttr = denseArg(scales, "scales");
            DenseElementsAttr pointsAttr = denseArg(zeroPoints, "zero_points");
            Type storage = typeArg(ctx, storageType, "storage_type");
            Type expressed = typeArg(ctx, expressedType, "expressed_type");
            return makeChecked<PyUniformQuantizedSubChannelType>(
                ctx, [&](auto emit) {
                  return quant::UniformQuantizedSubChannelType::getChecked(
                      emit, flags, storage, expressed, scalesAttr, pointsAttr,
                      quantizedDimensions, blockSizes, storageTypeMin,
                      storageTypeMax);
                });
          },
          py::arg("flags"), py::arg("storage_type"), py::arg("expressed_type"),
          py::arg("scales"), py::arg("zero_points"),
          py::arg("quantized_dimensions"), py::arg("block_sizes"),
          py::arg("storage_type_min"), py::arg("storage_type_max"),
          "The type in the context of `storage_type`, with `scales` and "
          "`zero_points` DenseElementsAttrs of the same shape and a block "
          "size per quantized dimension; ValueError or TypeError for "
          "arguments of the wrong kind, MLIRError if invalid.")
      .def_property_readonly(
          "quantized_dimensions",
          [](const PyType &self) {
            ArrayRef<int32_t> dims =
                cast<quant::UniformQuantizedSubChannelType>(self.type)
                    .getQuantizedDimensions();
            return std::vector<int32_t>(dims.begin(), dims.end());
          },
          "The dimensions quantized in blocks, in the order of "
          "block_sizes.")
      .def_property_readonly(
          "block_sizes",
          [](const PyType &self) {
            ArrayRef<int64_t> sizes =
                cast<quant::UniformQuantizedSubChannelType>(self.type)
                    .getBlockSizes();
            return std::vector<int64_t>(sizes.begin(), sizes.end());
          },
          "The block size of each quantized dimension.")
      .def_property_readonly(
          "scales",
          [](const PyType &self) {
            return makeAttribute(
                contextOf(self),
                cast<quant::UniformQuantizedSubChannelType>(self.type)
                    .getScales());
          },
          "The scales (a DenseElementsAttr).")
      .def_property_readonly(
          "zero_points",
          [](const PyType &self) {
            return makeAttribute(
                contextOf(self),
                cast<quant::UniformQuantizedSubChannelType>(self.type)
                    .getZeroPoints());
          },
          "The zero points (a DenseElementsAttr).")
      .def_property_readonly_static(
          "type_name",
          [](py::object) {
            return quant::UniformQuantizedSubChannelType::name.str();
          },
          "The type's registered name.");

  defineConcreteType<PyCalibratedQuantizedType, PyQuantizedType>(
      m, "CalibratedQuantizedType",
      "!quant.calibrated: an expressed type with the range [min, max] "
      "observed.",
      [](Type type) { return isa<quant::CalibratedQuantizedType>(type); },
      TypeID::get<quant::CalibratedQuantizedType>())
      .def_static(
          "get",
          [](const py::object &expressedType, double min, double max) {
            PyMlirContext &ctx = quantContext(expressedType, "expressed_type");
            Type expressed = typeArg(ctx, expressedType, "expressed_type");
            return makeChecked<PyCalibratedQuantizedType>(ctx, [&](auto emit) {
              return quant::CalibratedQuantizedType::getChecked(emit, expressed,
                                                                min, max);
            });
          },
          py::arg("expressed_type"), py::arg("min"), py::arg("max"),
          "The type in the context of `expressed_type`; MLIRError if "
          "invalid.")
      .def_property_readonly(
          "min",
          [](const PyType &self) {
            return cast<quant::CalibratedQuantizedType>(self.type).getMin();
          },
          "The least value observed.")
      .def_property_readonly(
          "max",
          [](const PyType &self) {
            return cast<quant::CalibratedQuantizedType>(self.type).getMax();
          },
          "The greatest value observed.")
      .def_property_readonly_static(
          "type_name",
          [](py::object) { return quant::CalibratedQuantizedType::name.str(); },
          "The type's registered name.");
}
