//===- SparseTensorAttributes.cpp - dialects.sparse_tensor's EncodingAttr -===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Upstream's `mlir.dialects.sparse_tensor` adds to the generated op classes
// the `#sparse_tensor.encoding` attribute class `EncodingAttr` and the enums
// `LevelFormat` (an IntFlag, as upstream's arithmetic flag enum) and
// `LevelProperty`. Level types are plain ints there (MLIR's 64-bit level
// type encoding), and so they are here; `EncodingAttr.build_level_type`
// makes them. The class is registered as the attribute's caster.
//
// MLIR checks little of what it is given here: the level type constructor
// only asserts its bits, `buildLvlType` returns nullopt that the C API
// dereferences, and inverting a block map that divides a dimension without
// taking its remainder reads past a vector (mlir-opt segfaults on such an
// encoding too). Every argument is checked first, and the attribute is
// built with getChecked, its diagnostics raised as MLIRError.
//
//===----------------------------------------------------------------------===//

#include "Core.h"
#include "Downcast.h"
#include "IRObjects.h"
#include "RunGuard.h"

#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <pybind11/stl.h>

using namespace mlir;
using namespace mlir::tracking::python;
using sparse_tensor::LevelFormat;
using sparse_tensor::LevelPropNonDefault;
using sparse_tensor::LevelType;
using sparse_tensor::SparseTensorEncodingAttr;

namespace {
struct PySparseTensorEncodingAttr : PyAttribute {};

/// The formats Python names (upstream's, in its order, then batch, which
/// upstream's enum lacks although MLIR has batch levels).
constexpr std::pair<const char *, LevelFormat> kLevelFormats[] = {
    {"dense", LevelFormat::Dense},
    {"n_out_of_m", LevelFormat::NOutOfM},
    {"compressed", LevelFormat::Compressed},
    {"singleton", LevelFormat::Singleton},
    {"loose_compressed", LevelFormat::LooseCompressed},
    {"batch", LevelFormat::Batch},
};

constexpr std::pair<const char *, LevelPropNonDefault> kLevelProperties[] = {
    {"non_ordered", LevelPropNonDefault::Nonordered},
    {"non_unique", LevelPropNonDefault::Nonunique},
    {"soa", LevelPropNonDefault::SoA},
};

/// Bits of a level type: 16 of properties, 16 of format, 8 of n, 8 of m.
constexpr uint64_t kPropertyBits = 0x7;

/// The Python enum classes (made once, when the module is populated; kept
/// for the life of the process).
py::object &levelFormatClass() {
  static auto *cls = new py::object();
  return *cls;
}
py::object &levelPropertyClass() {
  static auto *cls = new py::object();
  return *cls;
}

/// `object` as an unsigned 64-bit int (TypeError if it is no int,
/// ValueError if it does not fit).
uint64_t uint64Arg(const py::handle &object, const std::string &what) {
  if (!PyLong_Check(object.ptr()))
    throw py::type_error(what + " must be an int, got " + reprOf(object));
  unsigned long long value = PyLong_AsUnsignedLongLong(object.ptr());
  if (value == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    throw py::value_error(what + " out of range: " + reprOf(object));
  }
  return value;
}

LevelFormat levelFormatArg(const py::handle &object) {
  uint64_t value = uint64Arg(object, "lvl_fmt");
  for (auto [name, format] : kLevelFormats)
    if (static_cast<uint64_t>(format) == value)
      return format;
  throw py::value_error("lvl_fmt must be a LevelFormat, got " + reprOf(object));
}

/// `bits` as a level type, if it is one MLIR's parser could give: a known
/// format, properties only where they apply, n <= m for n_out_of_m and no
/// other bits (MLIR's own check lets through stray bits, which print as
/// nothing and make an encoding that differs from its printed form).
std::optional<LevelType> checkedLevelType(uint64_t bits) {
  if ((bits >> 48) != 0 || !LevelType::isValidLvlBits(bits) ||
      (bits & 0xffff & ~kPropertyBits) != 0)
    return std::nullopt;
  LevelType type(bits);
  if (type.getLvlFmt() == LevelFormat::Undef)
    return std::nullopt;
  if (type.isa<LevelFormat::NOutOfM>()) {
    if (type.getN() > type.getM())
      return std::nullopt;
  } else if ((bits >> 32) != 0) {
    return std::nullopt;
  }
  return type;
}

/// Whether MLIR can invert the block map `dimToLvl` safely. Its inverse
/// (inferLvlToDim, which the builder and the verifier both call) expects
/// every dimension that a level divides (floordiv) to have exactly one
/// level taking its remainder (mod), and reads past its components
/// otherwise.
bool blockInverseIsSafe(AffineMap dimToLvl) {
  if (!sparse_tensor::isBlockSparsity(dimToLvl))
    return true;
  llvm::SmallDenseMap<unsigned, unsigned> divided, remainders;
  for (AffineExpr result : dimToLvl.getResults()) {
    auto binary = dyn_cast<AffineBinaryOpExpr>(result);
    if (!binary)
      continue;
    unsigned pos = cast<AffineDimExpr>(binary.getLHS()).getPosition();
    if (binary.getKind() == AffineExprKind::FloorDiv)
      ++divided[pos];
    else
      ++remainders[pos];
  }
  for (auto [pos, count] : divided)
    if (count != 1 || remainders.lookup(pos) != 1)
      return false;
  return true;
}

/// An explicit or implicit value: None, or a numeric attribute of
/// `context` (what the encoding's parser accepts).
Attribute numericValueArg(PyMlirContext &context, const py::handle &object,
                          const char *what) {
  if (object.is_none())
    return Attribute();
  if (!isInstance<PyAttribute>(object))
    throw py::type_error(std::string(what) +
                         " must be an Attribute or None, got " +
                         reprOf(object));
  Attribute value = object.cast<const PyAttribute &>().attribute;
  if (!isa<IntegerAttr, FloatAttr, complex::NumberAttr>(value))
    throw py::type_error(std::string(what) +
                         " must be an IntegerAttr, a FloatAttr or a "
                         "#complex.number, got " +
                         reprOf(object));
  checkContextOf(context, value);
  return value;
}

unsigned widthArg(const py::handle &object, const std::string &what) {
  uint64_t width = uint64Arg(object, what);
  if (width > std::numeric_limits<unsigned>::max())
    throw py::value_error(what + " out of range: " + reprOf(object));
  return static_cast<unsigned>(width);
}

SparseTensorEncodingAttr asEncoding(const PyAttribute &self) {
  return cast<SparseTensorEncodingAttr>(self.attribute);
}

/// N or M of the last level when it is n_out_of_m, else 0 (what upstream's
/// accessor reads without its assertion).
uint64_t structuredPart(const PyAttribute &self, bool n) {
  ArrayRef<LevelType> levels = asEncoding(self).getLvlTypes();
  if (levels.empty() || !levels.back().isa<LevelFormat::NOutOfM>())
    return 0;
  return n ? levels.back().getN() : levels.back().getM();
}

py::object optionalMap(const PyAttribute &self, AffineMap map) {
  if (!map)
    return py::none();
  return makeAffineMap(pyContextOf(self.context), map);
}

py::object optionalValue(const PyAttribute &self, Attribute value) {
  if (!value)
    return py::none();
  return makeAttribute(pyContextOf(self.context), value);
}
} // namespace

void mlir::tracking::python::populateSparseTensorAttributes(py::module_ &m) {
  py::module_ enumModule = py::module_::import("enum");
  py::list formats, properties;
  for (auto [name, format] : kLevelFormats)
    formats.append(py::make_tuple(name, static_cast<uint64_t>(format)));
  for (auto [name, property] : kLevelProperties)
    properties.append(py::make_tuple(name, static_cast<uint64_t>(property)));
  py::object moduleName = m.attr("__name__");
  levelFormatClass() = enumModule.attr("IntFlag")(
      "LevelFormat", formats, py::arg("module") = moduleName);
  levelFormatClass().attr("__doc__") =
      "The storage format of a sparse tensor level (the format bits of a "
      "level type).";
  levelPropertyClass() = enumModule.attr("Enum")(
      "LevelProperty", properties, py::arg("module") = moduleName);
  levelPropertyClass().attr("__doc__") =
      "A non-default property of a sparse tensor level.";
  m.attr("LevelFormat") = levelFormatClass();
  m.attr("LevelProperty") = levelPropertyClass();

  defineConcreteAttribute<PySparseTensorEncodingAttr, PyAttribute>(
      m, "EncodingAttr",
      "#sparse_tensor.encoding: how a sparse tensor is stored (its level "
      "types, the maps between dimensions and levels, the bit widths of "
      "positions and coordinates, its explicit and implicit values).",
      [](Attribute attr) { return isa<SparseTensorEncodingAttr>(attr); },
      TypeID::get<SparseTensorEncodingAttr>())
      .def_static(
          "get",
          [](const py::sequence &lvlTypes, const py::object &dimToLvl,
             const py::object &lvlToDim, const py::object &posWidth,
             const py::object &crdWidth, const py::object &explicitVal,
             const py::object &implicitVal, const py::object &context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            SmallVector<LevelType> levels;
            for (size_t i = 0, e = py::len(lvlTypes); i < e; ++i) {
              std::string what = "lvl_types[" + std::to_string(i) + "]";
              py::object item = lvlTypes[i];
              uint64_t bits = uint64Arg(item, what);
              std::optional<LevelType> level = checkedLevelType(bits);
              if (!level)
                throw py::value_error(what + ": " +
                                      llvm::formatv("{0:x}", bits).str() +
                                      " is not a valid level type (see "
                                      "EncodingAttr.build_level_type)");
              levels.push_back(*level);
            }
            AffineMap toLvl = affineMapArg(ctx, dimToLvl, "dim_to_lvl");
            AffineMap toDim = affineMapArg(ctx, lvlToDim, "lvl_to_dim");
            if (toLvl && toLvl.getNumDims() == 0)
              throw py::value_error("dim_to_lvl must have a dimension");
            if (toLvl && !blockInverseIsSafe(toLvl))
              throw py::value_error(
                  "dim_to_lvl: a block map must take the remainder (mod) "
                  "of each dimension it divides (floordiv), once; MLIR "
                  "cannot invert this one (it crashes on it)");
            unsigned posBits = widthArg(posWidth, "pos_width");
            unsigned crdBits = widthArg(crdWidth, "crd_width");
            Attribute explicitAttr =
                numericValueArg(ctx, explicitVal, "explicit_val");
            Attribute implicitAttr =
                numericValueArg(ctx, implicitVal, "implicit_val");
            auto attr = buildChecked(ctx.get(), "Invalid attribute", [&] {
              return SparseTensorEncodingAttr::getChecked(
                  [&] { return emitError(UnknownLoc::get(ctx.get())); },
                  ctx.get(), ArrayRef<LevelType>(levels), toLvl, toDim, posBits,
                  crdBits, explicitAttr, implicitAttr);
            });
            return makeTypedAttr<PySparseTensorEncodingAttr>(ctx, attr);
          },
          py::arg("lvl_types"), py::arg("dim_to_lvl"), py::arg("lvl_to_dim"),
          py::arg("pos_width"), py::arg("crd_width"),
          py::arg("explicit_val") = py::none(),
          py::arg("implicit_val") = py::none(), py::arg("context") = py::none(),
          "The encoding of `lvl_types` (level types, as build_level_type "
          "makes them), the maps `dim_to_lvl` and `lvl_to_dim` (None: the "
          "identity, the inverse of dim_to_lvl), the bit widths `pos_width` "
          "and `crd_width` (0 for index) and the numeric attributes "
          "`explicit_val` and `implicit_val`. ValueError or TypeError for an "
          "argument of the wrong kind, MLIRError for an encoding MLIR "
          "refuses.")
      .def_static(
          "build_level_type",
          [](const py::object &lvlFmt, const py::iterable &properties,
             const py::object &n, const py::object &m) {
            LevelFormat format = levelFormatArg(lvlFmt);
            std::vector<LevelPropNonDefault> props;
            for (py::handle item : properties) {
              // LevelProperty(x) is x for a member, the member of an int.
              py::object member = levelPropertyClass()(item);
              props.push_back(static_cast<LevelPropNonDefault>(
                  member.attr("value").cast<uint64_t>()));
            }
            uint64_t nValue = uint64Arg(n, "n"), mValue = uint64Arg(m, "m");
            if (nValue > 0xff || mValue > 0xff)
              throw py::value_error("n and m must lie in 0..255");
            if (format != LevelFormat::NOutOfM && (nValue || mValue))
              throw py::value_error("n and m apply to n_out_of_m levels only");
            if (nValue > mValue)
              throw py::value_error("n must not exceed m in n_out_of_m");
            std::optional<LevelType> level =
                LevelType::buildLvlType(format, props, nValue, mValue);
            if (!level)
              throw py::value_error(
                  "these properties do not apply to a level of format " +
                  reprOf(levelFormatClass()(static_cast<uint64_t>(format))));
            return static_cast<uint64_t>(*level);
          },
          py::arg("lvl_fmt"), py::arg("properties") = py::list(),
          py::arg("n") = 0, py::arg("m") = 0,
          "The level type (an int) of format `lvl_fmt` with the "
          "LevelProperty values `properties`, and `n` out of `m` for "
          "n_out_of_m; ValueError for a combination MLIR has no level type "
          "for.")
      .def_property_readonly(
          "lvl_types",
          [](const PyAttribute &self) {
            std::vector<uint64_t> types;
            for (LevelType level : asEncoding(self).getLvlTypes())
              types.push_back(static_cast<uint64_t>(level));
            return types;
          },
          "The level types, as ints.")
      .def_property_readonly(
          "dim_to_lvl",
          [](const PyAttribute &self) {
            return optionalMap(self, asEncoding(self).getDimToLvl());
          },
          "The map from dimensions to levels, or None.")
      .def_property_readonly(
          "lvl_to_dim",
          [](const PyAttribute &self) {
            return optionalMap(self, asEncoding(self).getLvlToDim());
          },
          "The map from levels to dimensions, or None.")
      .def_property_readonly(
          "pos_width",
          [](const PyAttribute &self) {
            return asEncoding(self).getPosWidth();
          },
          "The bit width of positions (0: index).")
      .def_property_readonly(
          "crd_width",
          [](const PyAttribute &self) {
            return asEncoding(self).getCrdWidth();
          },
          "The bit width of coordinates (0: index).")
      .def_property_readonly(
          "explicit_val",
          [](const PyAttribute &self) {
            return optionalValue(self, asEncoding(self).getExplicitVal());
          },
          "The value of the stored entries when all are the same, or None.")
      .def_property_readonly(
          "implicit_val",
          [](const PyAttribute &self) {
            return optionalValue(self, asEncoding(self).getImplicitVal());
          },
          "The value of the entries not stored, or None.")
      .def_property_readonly(
          "structured_n",
          [](const PyAttribute &self) { return structuredPart(self, true); },
          "N of the last level when it is n_out_of_m, else 0.")
      .def_property_readonly(
          "structured_m",
          [](const PyAttribute &self) { return structuredPart(self, false); },
          "M of the last level when it is n_out_of_m, else 0.")
      .def_property_readonly(
          "lvl_formats_enum",
          [](const PyAttribute &self) {
            py::list formats;
            for (LevelType level : asEncoding(self).getLvlTypes())
              formats.append(
                  levelFormatClass()(static_cast<uint64_t>(level.getLvlFmt())));
            return formats;
          },
          "The format of each level, as LevelFormat values.")
      .def_property_readonly_static(
          "attr_name",
          [](py::object) { return SparseTensorEncodingAttr::name.str(); },
          "The attribute's registered name.");
}
