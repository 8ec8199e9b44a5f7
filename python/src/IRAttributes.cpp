//===- IRAttributes.cpp - The builtin attribute classes -------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "Downcast.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"

#include <pybind11/stl.h>

#include <cmath>

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::python;

namespace {
#define MLIR_TRACKING_PY_ATTR(NAME, BASE)                                      \
  struct Py##NAME : BASE {}
MLIR_TRACKING_PY_ATTR(StringAttr, PyAttribute);
MLIR_TRACKING_PY_ATTR(IntegerAttr, PyAttribute);
MLIR_TRACKING_PY_ATTR(FloatAttr, PyAttribute);
MLIR_TRACKING_PY_ATTR(BoolAttr, PyAttribute);
MLIR_TRACKING_PY_ATTR(UnitAttr, PyAttribute);
MLIR_TRACKING_PY_ATTR(TypeAttr, PyAttribute);
MLIR_TRACKING_PY_ATTR(ArrayAttr, PyAttribute);
MLIR_TRACKING_PY_ATTR(DictAttr, PyAttribute);
MLIR_TRACKING_PY_ATTR(FlatSymbolRefAttr, PyAttribute);
MLIR_TRACKING_PY_ATTR(SymbolRefAttr, PyAttribute);
MLIR_TRACKING_PY_ATTR(OpaqueAttr, PyAttribute);
MLIR_TRACKING_PY_ATTR(StridedLayoutAttr, PyAttribute);
MLIR_TRACKING_PY_ATTR(DenseElementsAttr, PyAttribute);
MLIR_TRACKING_PY_ATTR(DenseIntElementsAttr, PyDenseElementsAttr);
MLIR_TRACKING_PY_ATTR(DenseFPElementsAttr, PyDenseElementsAttr);
MLIR_TRACKING_PY_ATTR(DenseBoolArrayAttr, PyAttribute);
MLIR_TRACKING_PY_ATTR(DenseI8ArrayAttr, PyAttribute);
MLIR_TRACKING_PY_ATTR(DenseI16ArrayAttr, PyAttribute);
MLIR_TRACKING_PY_ATTR(DenseI32ArrayAttr, PyAttribute);
MLIR_TRACKING_PY_ATTR(DenseI64ArrayAttr, PyAttribute);
MLIR_TRACKING_PY_ATTR(DenseF32ArrayAttr, PyAttribute);
MLIR_TRACKING_PY_ATTR(DenseF64ArrayAttr, PyAttribute);
MLIR_TRACKING_PY_ATTR(DenseResourceElementsAttr, PyAttribute);
#undef MLIR_TRACKING_PY_ATTR

template <typename T> bool isaAttr(Attribute attr) { return isa<T>(attr); }

PyMlirContext &ctxOf(const PyAttribute &attr) {
  return pyContextOf(attr.context);
}

/// A Python int as an APInt of `width` bits; ValueError if it fits neither
/// as signed nor as unsigned.
APInt toAPInt(const py::int_ &given, unsigned width) {
  // An exact int: the text of a bool ("True") or of an int subclass with its
  // own __str__ is no number.
  auto value = py::reinterpret_steal<py::int_>(PyNumber_Index(given.ptr()));
  if (!value)
    throw py::error_already_set();
  bool negative =
      PyObject_RichCompareBool(value.ptr(), py::int_(0).ptr(), Py_LT) == 1;
  // ~v == -v - 1: a negative value needs that many bits plus a sign bit.
  py::object magnitude =
      negative ? py::reinterpret_steal<py::object>(PyNumber_Invert(value.ptr()))
               : py::object(value);
  size_t bits = magnitude.attr("bit_length")().cast<size_t>();
  bool fits = negative ? width > 0 && bits <= width - 1 : bits <= width;
  if (!fits)
    throw py::value_error(
        "integer " + value.attr("__str__")().cast<std::string>() +
        " does not fit in " + std::to_string(width) + " bits");
  std::string text = value.attr("__str__")().cast<std::string>();
  return APInt(width + 2, text, 10).trunc(width);
}

/// An APInt as a Python int.
py::int_ fromAPInt(const APInt &value, bool isSigned) {
  std::string text = llvm::toString(value, 10, isSigned);
  return py::reinterpret_steal<py::int_>(
      PyLong_FromString(text.c_str(), nullptr, 10));
}

/// Whether an integer of `type` reads back as a signed value (upstream:
/// signless and signed integers and index are read signed).
bool readsSigned(Type type) {
  auto intType = dyn_cast<IntegerType>(type);
  return !intType || !intType.isUnsigned();
}

Attribute makeIntegerAttr(Type type, const py::int_ &value) {
  if (isa<IndexType>(type))
    return IntegerAttr::get(
        type, toAPInt(value, IndexType::kInternalStorageBitWidth));
  auto intType = dyn_cast<IntegerType>(type);
  if (!intType)
    throw py::value_error("IntegerAttr.get expects an integer or index "
                          "type, got " +
                          printToStr(type));
  APInt apValue = toAPInt(value, intType.getWidth());
  return IntegerAttr::get(type, apValue);
}

Attribute attrOf(const py::handle &object) {
  if (!isInstance<PyAttribute>(object))
    throw py::type_error("expected an ir.Attribute, got " +
                         py::repr(py::type::of(object)).cast<std::string>());
  return object.cast<PyAttribute &>().attribute;
}

/// An item of a list that makes an ArrayAttr (ArrayAttr.get, ArrayAttr +
/// list, DenseElementsAttr.get of attributes): RuntimeError with upstream's
/// messages when it is not an Attribute.
Attribute arrayItemOf(const py::handle &object) {
  if (isInstance<PyAttribute>(object))
    return object.cast<PyAttribute &>().attribute;
  std::string got = py::repr(py::type::of(object)).cast<std::string>();
  if (object.is_none())
    throw std::runtime_error("Invalid attribute (None?) when attempting to "
                             "create an ArrayAttribute (got None)");
  throw std::runtime_error("Invalid attribute when attempting to create an "
                           "ArrayAttribute (expected an ir.Attribute, got " +
                           got + ")");
}

/// Upstream-style index normalization: negative indices count from the end.
intptr_t normalizeIndex(intptr_t index, intptr_t size,
                        const char *message = "index out of range") {
  if (index < 0)
    index += size;
  if (index < 0 || index >= size)
    throw py::index_error(message);
  return index;
}

//===----------------------------------------------------------------------===//
// Dense arrays (array<i32: 1, 2>)
//===----------------------------------------------------------------------===//

template <typename Derived, typename AttrT, typename ElementT>
void defineDenseArray(py::module_ &m, const char *name, const char *doc) {
  // All dense arrays share DenseArrayAttr's TypeID: the caster registered in
  // populateDenseArrayCaster picks the class by element type.
  defineConcreteAttribute<Derived, PyAttribute>(m, name, doc, isaAttr<AttrT>,
                                                std::nullopt)
      .def_static(
          "get",
          [](const std::vector<ElementT> &values, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            SmallVector<ElementT> elements(values.begin(), values.end());
            return makeTypedAttr<Derived>(ctx, AttrT::get(ctx.get(), elements));
          },
          py::arg("values"), py::arg("context") = py::none(),
          "The dense array of `values`.")
      .def(
          "__len__",
          [](const PyAttribute &self) {
            return cast<AttrT>(self.attribute).size();
          },
          "The number of elements.")
      .def(
          "__getitem__",
          [](const PyAttribute &self, intptr_t index) {
            auto attr = cast<AttrT>(self.attribute);
            return ElementT(attr[normalizeIndex(index, attr.size())]);
          },
          py::arg("index"), "The element at `index` (negative from the end).")
      .def(
          "__iter__",
          [](const PyAttribute &self) {
            auto values = cast<AttrT>(self.attribute).asArrayRef();
            return py::iter(
                py::cast(std::vector<ElementT>(values.begin(), values.end())));
          },
          "Iterates over the elements.")
      .def(
          "__add__",
          [](const PyAttribute &self, const std::vector<ElementT> &extra) {
            auto values = cast<AttrT>(self.attribute).asArrayRef();
            SmallVector<ElementT> all(values.begin(), values.end());
            all.append(extra.begin(), extra.end());
            PyMlirContext &ctx = ctxOf(self);
            return makeTypedAttr<Derived>(ctx, AttrT::get(ctx.get(), all));
          },
          py::arg("other"), "A new array with `other`'s elements appended.");
}

//===----------------------------------------------------------------------===//
// Dense elements
//===----------------------------------------------------------------------===//

/// The number of elements of `shape` if it and their bytes (`itemBytes`
/// each) fit in an int64_t, else nullopt: MLIR's product wraps (a shape of
/// 2**62 x 4 counted 0 elements).
std::optional<int64_t> checkedElementCount(ArrayRef<int64_t> shape,
                                           int64_t itemBytes = 1) {
  int64_t count = 1, bytes;
  for (int64_t size : shape)
    if (size < 0 || __builtin_mul_overflow(count, size, &count))
      return std::nullopt;
  if (__builtin_mul_overflow(count, std::max<int64_t>(itemBytes, 1), &bytes))
    return std::nullopt;
  return count;
}

/// The buffer format character and item size of elements of `type`, or
/// nullopt if Python has no format for it.
std::optional<std::pair<std::string, size_t>> bufferFormat(Type type) {
  if (isa<IndexType>(type))
    return std::make_pair(std::string("q"), size_t(8));
  if (auto intType = dyn_cast<IntegerType>(type)) {
    bool isUnsigned = intType.isUnsigned();
    switch (intType.getWidth()) {
    case 8:
      return std::make_pair(std::string(isUnsigned ? "B" : "b"), size_t(1));
    case 16:
      return std::make_pair(std::string(isUnsigned ? "H" : "h"), size_t(2));
    case 32:
      return std::make_pair(std::string(isUnsigned ? "I" : "i"), size_t(4));
    case 64:
      return std::make_pair(std::string(isUnsigned ? "Q" : "q"), size_t(8));
    default:
      return std::nullopt;
    }
  }
  if (type.isF16())
    return std::make_pair(std::string("e"), size_t(2));
  if (type.isF32())
    return std::make_pair(std::string("f"), size_t(4));
  if (type.isF64())
    return std::make_pair(std::string("d"), size_t(8));
  if (auto complex = dyn_cast<ComplexType>(type)) {
    if (complex.getElementType().isF32())
      return std::make_pair(std::string("Zf"), size_t(8));
    if (complex.getElementType().isF64())
      return std::make_pair(std::string("Zd"), size_t(16));
  }
  return std::nullopt;
}

/// A buffer of one byte per element (format '?') for an i1 attribute, which
/// MLIR stores as packed bits: the bytes live in a Python object the buffer
/// holds until it is released.
py::buffer_info unpackedBoolBuffer(DenseElementsAttr attr,
                                   std::vector<py::ssize_t> shape) {
  auto values = attr.getValues<bool>();
  std::string bytes(attr.isSplat() ? 1 : attr.getNumElements(), 0);
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = values[i];
  py::bytes holder(bytes);
  auto *view = new Py_buffer();
  // With shape and strides: buffer_info reads them.
  if (PyObject_GetBuffer(holder.ptr(), view, PyBUF_RECORDS_RO) != 0) {
    delete view;
    throw py::error_already_set();
  }
  py::buffer_info info(view, /*ownview=*/true);
  info.format = "?";
  info.itemsize = 1;
  info.ndim = shape.size();
  info.size = attr.getNumElements();
  // A splat stores one element: every stride is 0.
  info.strides.assign(shape.size(), 0);
  if (!attr.isSplat()) {
    py::ssize_t stride = 1;
    for (size_t i = shape.size(); i-- > 0;) {
      info.strides[i] = stride;
      stride *= shape[i];
    }
  }
  info.shape = std::move(shape);
  info.readonly = true;
  return info;
}

py::buffer_info denseBuffer(const PyAttribute &self) {
  auto attr = cast<DenseElementsAttr>(self.attribute);
  ShapedType type = attr.getType();
  // (Such attributes parse: their buffer would claim memory they lack.)
  if (!checkedElementCount(type.getShape(), 16))
    throw std::runtime_error("the attribute's shape has too many elements "
                             "for a buffer: " +
                             printToStr(type));
  if (type.getElementType().isInteger(1))
    return unpackedBoolBuffer(attr,
                              std::vector<py::ssize_t>(type.getShape().begin(),
                                                       type.getShape().end()));
  auto format = bufferFormat(type.getElementType());
  if (!format)
    throw std::runtime_error("unsupported element type for the buffer "
                             "protocol: " +
                             printToStr(type.getElementType()));
  std::vector<py::ssize_t> shape(type.getShape().begin(),
                                 type.getShape().end());
  std::vector<py::ssize_t> strides(shape.size(), 0);
  // A splat stores one element: every stride is 0.
  if (!attr.isSplat()) {
    py::ssize_t stride = format->second;
    for (size_t i = shape.size(); i-- > 0;) {
      strides[i] = stride;
      stride *= shape[i];
    }
  }
  ArrayRef<char> raw = attr.getRawData();
  return py::buffer_info(const_cast<char *>(raw.data()), format->second,
                         format->first, shape.size(), shape, strides,
                         /*readonly=*/true);
}

/// The element type for a Python buffer format, or null.
Type typeForFormat(MLIRContext *context, std::string format, size_t itemSize,
                   bool signless) {
  // Skip the byte-order/size prefix ('<', '=', '@', '!', '>').
  if (!format.empty() && strchr("<>=@!", format[0]))
    format = format.substr(1);
  if (format == "Zf" && itemSize == 8)
    return ComplexType::get(Float32Type::get(context));
  if (format == "Zd" && itemSize == 16)
    return ComplexType::get(Float64Type::get(context));
  if (format.size() != 1)
    return {};
  char c = format[0];
  if (c == 'f' && itemSize == 4)
    return Float32Type::get(context);
  if (c == 'd' && itemSize == 8)
    return Float64Type::get(context);
  if (c == 'e' && itemSize == 2)
    return Float16Type::get(context);
  if (c == '?')
    return IntegerType::get(context, 1);
  if (strchr("bhilq", c))
    return IntegerType::get(context, itemSize * 8,
                            signless ? IntegerType::Signless
                                     : IntegerType::Signed);
  if (strchr("BHILQ", c))
    return IntegerType::get(context, itemSize * 8,
                            signless ? IntegerType::Signless
                                     : IntegerType::Unsigned);
  return {};
}

/// The deepest nesting of lists DenseElementsAttr.get takes (a tensor of
/// that rank): deeper, or a list that contains itself, overflowed the stack.
constexpr size_t kMaxNestedListDepth = 1024;

/// Flattens nested Python lists of numbers into `out`; fills `shape`.
void flattenNested(const py::handle &object, size_t depth,
                   std::vector<int64_t> &shape, std::vector<py::object> &out) {
  if (py::isinstance<py::list>(object) || py::isinstance<py::tuple>(object)) {
    if (depth == kMaxNestedListDepth)
      throw py::value_error("nested lists deeper than " +
                            std::to_string(kMaxNestedListDepth) +
                            " levels (or a list that contains itself)");
    // A copy that owns its items: the items a subclass's __getitem__ makes
    // die with the loop's temporaries.
    auto items = py::reinterpret_steal<py::list>(PySequence_List(object.ptr()));
    if (!items)
      throw py::error_already_set();
    int64_t size = py::len(items);
    if (depth == shape.size())
      shape.push_back(size);
    else if (depth > shape.size() || shape[depth] != size)
      throw py::value_error("nested lists must be rectangular");
    for (py::handle item : items)
      flattenNested(item, depth + 1, shape, out);
    return;
  }
  if (depth != shape.size())
    throw py::value_error("nested lists must be rectangular");
  out.push_back(py::reinterpret_borrow<py::object>(object));
}

/// ValueError unless `attr` is what DenseElementsAttr reads as an element of
/// type `elementType`: an IntegerAttr for integers and indices, a FloatAttr
/// for floats. MLIR casts without a check: a StringAttr typed i32 was read
/// as 0, a complex number attribute crashed (complex elements are taken
/// from numbers, not attributes).
void checkElementAttr(Attribute attr, Type elementType) {
  if (isa<IntegerType, IndexType>(elementType) && isa<IntegerAttr>(attr))
    return;
  if (isa<FloatType>(elementType) && isa<FloatAttr>(attr))
    return;
  throw py::value_error(
      "a dense element of type " + printToStr(elementType) + " must be " +
      (isa<FloatType>(elementType) ? "a FloatAttr"
       : isa<ComplexType>(elementType)
           ? "given as numbers (nested lists or a buffer), not an attribute"
           : "an IntegerAttr") +
      ", got " + printToStr(attr));
}

/// ValueError if `value` is a NaN or an infinity and the float type `type`
/// has none (f4E2M1FN, f6E2M3FN, ...): APFloat's conversion made it 0
/// silently.
void checkRepresentable(Type type, double value) {
  auto floatType = dyn_cast<FloatType>(type);
  if (!floatType || std::isfinite(value))
    return;
  const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
  bool isNaN = std::isnan(value);
  if (isNaN ? llvm::APFloat::semanticsHasNaN(semantics)
            : llvm::APFloat::semanticsHasInf(semantics))
    return;
  throw py::value_error(printToStr(type) + " has no " +
                        (isNaN ? "NaN" : "infinity") + ", got " +
                        std::to_string(value));
}

/// A Python number as a double: floats, ints and objects with __float__
/// (not strings, which py::float_ would parse).
double toDouble(const py::handle &value, Type type) {
  PyNumberMethods *number = Py_TYPE(value.ptr())->tp_as_number;
  if (!PyFloat_Check(value.ptr()) && !PyIndex_Check(value.ptr()) &&
      !(number && number->nb_float))
    throw py::type_error("an element of type " + printToStr(type) +
                         " must be a number, got " +
                         std::string(Py_TYPE(value.ptr())->tp_name));
  double result = PyFloat_AsDouble(value.ptr());
  if (result == -1.0 && PyErr_Occurred())
    throw py::error_already_set();
  return result;
}

Attribute scalarAttr(Type elementType, const py::handle &value) {
  if (isInstance<PyAttribute>(value))
    throw py::type_error("DenseElementsAttr.get: Attributes go in a flat list "
                         "of Attributes only, not nested or mixed with "
                         "numbers");
  if (isa<FloatType>(elementType)) {
    double number = toDouble(value, elementType);
    checkRepresentable(elementType, number);
    return FloatAttr::get(elementType, number);
  }
  if (!isa<IntegerType, IndexType>(elementType))
    throw py::value_error("unsupported element type " +
                          printToStr(elementType));
  // Integers from ints only (py::int_ would parse "3" and truncate 1.5).
  if (!PyIndex_Check(value.ptr()))
    throw py::type_error("an element of type " + printToStr(elementType) +
                         " must be an int, got " +
                         std::string(Py_TYPE(value.ptr())->tp_name));
  auto number = py::reinterpret_steal<py::int_>(PyNumber_Index(value.ptr()));
  if (!number)
    throw py::error_already_set();
  if (elementType.isInteger(1)) {
    bool one = number.equal(py::int_(1));
    if (!one && !number.equal(py::int_(0)))
      throw py::value_error("an element of type i1 must be a bool, 0 or 1, "
                            "got " +
                            py::repr(value).cast<std::string>());
    return IntegerAttr::get(elementType, one ? 1 : 0);
  }
  return makeIntegerAttr(elementType, number);
}

/// True for element types a DenseElementsAttr stores as raw bits: integers,
/// indices, floats and complex numbers of those (MLIR computes their storage
/// width and asserts, or crashes, on any other type).
bool isDenseElementType(Type type) {
  if (auto complex = dyn_cast<ComplexType>(type))
    type = complex.getElementType();
  return isa<IntegerType, IndexType, FloatType>(type);
}

/// The element count of `attr` for len() and indexing; OverflowError if it
/// overflows an int64_t (such attributes parse, and MLIR's count wraps: a
/// tensor<4611686018427387905x4xi32> counted 4 elements).
int64_t denseElementCount(DenseElementsAttr attr) {
  std::optional<int64_t> count = checkedElementCount(attr.getType().getShape());
  if (!count) {
    PyErr_SetString(PyExc_OverflowError,
                    ("the element count of " + printToStr(attr.getType()) +
                     " overflows a 64-bit integer")
                        .c_str());
    throw py::error_already_set();
  }
  return *count;
}

/// `type` as the type of a dense attribute: a ranked tensor or vector type
/// of static shape and dense element type; ValueError otherwise.
ShapedType checkDenseType(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !isa<RankedTensorType, VectorType>(type) ||
      !shaped.hasStaticShape())
    throw py::value_error("the type of a DenseElementsAttr must be a ranked "
                          "tensor or vector type of static shape, got " +
                          printToStr(type));
  if (!checkedElementCount(shaped.getShape(), 16))
    throw py::value_error("the shape of " + printToStr(type) +
                          " has too many elements");
  if (!isDenseElementType(shaped.getElementType()))
    throw py::value_error(
        "unsupported element type " + printToStr(shaped.getElementType()) +
        ": DenseElementsAttr holds integers, indices, floats and complex "
        "numbers");
  return shaped;
}

/// The tensor type of `shape` (non-negative sizes) and `elementType`.
ShapedType denseTensorType(ArrayRef<int64_t> shape, Type elementType) {
  if (llvm::any_of(shape, [](int64_t size) { return size < 0; }))
    throw py::value_error("shape sizes must be non-negative");
  return checkDenseType(RankedTensorType::get(shape, elementType));
}

/// The type of a dense attribute built with `type=` and `shape=`: an explicit
/// shaped type is the result type (a shape beside it is an error), an
/// element type gets `shape`, else `fallbackShape`.
ShapedType resultDenseType(Type explicitType,
                           const std::optional<std::vector<int64_t>> &shape,
                           ArrayRef<int64_t> fallbackShape, Type elementType) {
  if (isa_and_nonnull<ShapedType>(explicitType)) {
    if (shape)
      throw py::value_error("Shape can only be specified explicitly when the "
                            "type is not a shaped type.");
    return checkDenseType(explicitType);
  }
  return denseTensorType(shape ? ArrayRef<int64_t>(*shape) : fallbackShape,
                         elementType);
}

/// The data of `type` whose elements (or complex parts) are narrower than
/// the byte MLIR stores each in (i2 to i7, f4, f6; i1 is packed bits) as
/// MLIR wants it, with the bits above each element's width zero: MLIR keeps
/// the byte as given, and an element with such bits printed as nothing
/// (`dense<[-1, ]>`) and could not be read back. An integer byte that is
/// the sign extension of its low bits (numpy's int8 -2 for an i4) is
/// narrowed to them in `storage`, as upstream reads it; any other byte with
/// bits above the width raises ValueError.
ArrayRef<char> narrowSubByteElements(ShapedType type, ArrayRef<char> raw,
                                     std::vector<char> &storage) {
  Type elementType = type.getElementType();
  if (auto complex = dyn_cast<ComplexType>(elementType))
    elementType = complex.getElementType();
  unsigned width = isa<IndexType>(elementType)
                       ? IndexType::kInternalStorageBitWidth
                       : elementType.getIntOrFloatBitWidth();
  if (width == 1 || width >= 8)
    return raw;
  bool integer = isa<IntegerType>(elementType);
  unsigned char low = (1u << width) - 1;
  for (size_t i = 0; i < raw.size(); ++i) {
    auto byte = static_cast<unsigned char>(raw[i]);
    if ((byte >> width) == 0)
      continue;
    bool signExtended =
        integer && (byte & (1u << (width - 1))) && (byte | low) == 0xff;
    if (!signExtended)
      throw py::value_error(
          "the buffer's bytes hold " + printToStr(elementType) +
          " elements in their low " + std::to_string(width) +
          " bits; the bits above must be zero" +
          (integer ? " or extend the sign of those bits" : "") +
          " (a byte holds " + std::to_string(byte) + ")");
    if (storage.empty())
      storage.assign(raw.begin(), raw.end());
    storage[i] = static_cast<char>(byte & low);
  }
  return storage.empty() ? raw : ArrayRef<char>(storage);
}

py::object denseElementsGet(const py::object &array, bool signless,
                            const py::object &type, const py::object &shape,
                            const py::object &context) {
  PyMlirContext &ctx = PyMlirContext::resolve(
      context.is_none() && !type.is_none() ? type.attr("context") : context);
  MLIRContext *mlirContext = ctx.get();
  Type explicitType = type.is_none() ? Type() : type.cast<PyType &>().type;
  std::optional<std::vector<int64_t>> explicitShape;
  if (!shape.is_none())
    explicitShape = shape.cast<std::vector<int64_t>>();

  // An empty list is upstream's list-of-attributes overload (with no shape
  // to give the tensor, it has nothing to build).
  if (py::isinstance<py::list>(array) && py::len(array) == 0 && !explicitShape)
    throw py::value_error("Attributes list must be non-empty");
  // A list of Attributes: upstream's overload.
  if (py::isinstance<py::list>(array) && py::len(array) > 0 &&
      isInstance<PyAttribute>(array[py::int_(0)])) {
    if (explicitShape)
      throw py::type_error("DenseElementsAttr.get: shape= is not taken with "
                           "a list of Attributes; pass type= a shaped type");
    std::vector<Attribute> attrs;
    for (py::handle item : array)
      attrs.push_back(arrayItemOf(item));
    ShapedType shapedType;
    if (explicitType) {
      if (!isa<ShapedType>(explicitType))
        throw py::value_error("type must be a shaped type");
      shapedType = checkDenseType(explicitType);
    } else {
      auto typed = dyn_cast<TypedAttr>(attrs[0]);
      if (!typed)
        throw py::value_error("the attributes must be typed");
      shapedType = denseTensorType({(int64_t)attrs.size()}, typed.getType());
    }
    if (shapedType.getNumElements() != (int64_t)attrs.size())
      throw py::value_error("expected " +
                            std::to_string(shapedType.getNumElements()) +
                            " attributes, got " + std::to_string(attrs.size()));
    for (Attribute attr : attrs) {
      auto typed = dyn_cast<TypedAttr>(attr);
      if (!typed || typed.getType() != shapedType.getElementType())
        throw py::value_error("All attributes must be of the same type and "
                              "match the type parameter: expected=" +
                              printToStr(shapedType.getElementType()) +
                              ", but got=" + printToStr(attr));
      checkElementAttr(attr, shapedType.getElementType());
    }
    return makeAttribute(ctx, DenseElementsAttr::get(shapedType, attrs));
  }

  // Nested Python lists of numbers (no numpy needed).
  if (py::isinstance<py::list>(array) || py::isinstance<py::tuple>(array)) {
    std::vector<int64_t> listShape;
    std::vector<py::object> values;
    flattenNested(array, 0, listShape, values);
    Type elementType = explicitType;
    if (auto shaped = dyn_cast_or_null<ShapedType>(elementType))
      elementType = shaped.getElementType();
    if (!elementType) {
      bool anyFloat = false, allBool = !values.empty();
      for (auto &value : values) {
        anyFloat |= py::isinstance<py::float_>(value);
        allBool &= py::isinstance<py::bool_>(value);
      }
      elementType = anyFloat  ? Type(Float64Type::get(mlirContext))
                    : allBool ? Type(IntegerType::get(mlirContext, 1))
                              : Type(IntegerType::get(mlirContext, 64));
    }
    if (!isDenseElementType(elementType))
      throw py::value_error("unsupported element type " +
                            printToStr(elementType));
    ShapedType tensorType =
        resultDenseType(explicitType, explicitShape, listShape, elementType);
    if (tensorType.getNumElements() != (int64_t)values.size())
      throw py::value_error("shape does not match the number of elements");
    std::vector<Attribute> attrs;
    for (auto &value : values)
      attrs.push_back(scalarAttr(elementType, value));
    return makeAttribute(ctx, DenseElementsAttr::get(tensorType, attrs));
  }

  // Anything with the buffer protocol. With an explicit type the bytes are
  // that type's raw data, whatever the buffer's format (upstream's rule:
  // numpy refuses to give a format for some dtypes, such as datetime64).
  Py_buffer view;
  int flags = PyBUF_ND | PyBUF_C_CONTIGUOUS | (explicitType ? 0 : PyBUF_FORMAT);
  if (PyObject_GetBuffer(array.ptr(), &view, flags) != 0)
    throw py::error_already_set();
  std::unique_ptr<Py_buffer, void (*)(Py_buffer *)> release(&view,
                                                            PyBuffer_Release);
  // A 0-d buffer (numpy's scalar arrays) makes a rank-0 tensor.
  std::vector<int64_t> bufferShape(view.shape, view.shape + view.ndim);
  ArrayRef<char> raw(static_cast<const char *>(view.buf), view.len);
  std::string format = view.format ? view.format : "B";
  if (!explicitType && !format.empty() &&
      (format[0] == '>' || format[0] == '!'))
    throw py::value_error("unsupported buffer format '" + format +
                          "': big-endian data (convert it to native byte "
                          "order, e.g. numpy's astype('=...'))");
  if (!explicitType && (format == "?" || format == "=?" || format == "<?")) {
    // One byte per bool; MLIR packs the bits. One value is a splat.
    ShapedType boolType = denseTensorType(explicitShape.value_or(bufferShape),
                                          IntegerType::get(mlirContext, 1));
    if (view.len != 1 && view.len != boolType.getNumElements())
      throw py::value_error("shape does not match the buffer size (" +
                            std::to_string(view.len) + " bools for " +
                            printToStr(boolType) + ")");
    SmallVector<bool> bits;
    for (char byte : raw)
      bits.push_back(byte != 0);
    return makeAttribute(ctx, DenseElementsAttr::get(boolType, bits));
  }
  Type elementType = explicitType;
  if (auto shaped = dyn_cast_or_null<ShapedType>(elementType))
    elementType = shaped.getElementType();
  if (!elementType)
    elementType = typeForFormat(mlirContext, format, view.itemsize, signless);
  if (!elementType)
    throw py::value_error("unimplemented array format conversion from "
                          "format: " +
                          format +
                          " (pass type= to read its bytes as that type)");
  ShapedType resultType =
      resultDenseType(explicitType, explicitShape, bufferShape, elementType);
  // A buffer of the whole type's data, or of one element (a splat); i1 as
  // packed bits (one byte of 0 or 0xff is a splat).
  bool detectedSplat;
  if (!DenseElementsAttr::isValidRawBuffer(resultType, raw, detectedSplat))
    throw py::value_error(
        "shape does not match the buffer size: " + std::to_string(view.len) +
        " bytes cannot hold " + printToStr(resultType) +
        (elementType.isInteger(1)
             ? " (i1 elements are packed bits, as numpy.packbits(..., "
               "bitorder='little') gives)"
             : " (nor one element of it, a splat)"));
  std::vector<char> narrowed;
  raw = narrowSubByteElements(resultType, raw, narrowed);
  return makeAttribute(ctx,
                       DenseElementsAttr::getFromRawBuffer(resultType, raw));
}

/// pybind11's buffer slot calls our buffer function with no handler around
/// it: an unsupported element type's exception terminated the process.
/// This slot reports it as BufferError instead.
int getBufferOrRaise(PyObject *object, Py_buffer *view, int flags) {
  try {
    return py::detail::pybind11_getbuffer(object, view, flags);
  } catch (py::error_already_set &error) {
    error.restore();
  } catch (const std::exception &error) {
    PyErr_SetString(PyExc_BufferError, error.what());
  }
  if (view)
    view->obj = nullptr;
  return -1;
}

template <typename Derived, typename Base, typename IsA>
py::class_<Derived, Base> defineDenseClass(py::module_ &m, const char *name,
                                           const char *doc, IsA isa,
                                           std::optional<TypeID> typeID) {
  auto cls = defineConcreteAttribute<Derived, Base>(m, name, doc, isa, typeID,
                                                    /*bufferProtocol=*/true);
  cls.def_buffer([](Derived &self) { return denseBuffer(self); });
  reinterpret_cast<PyTypeObject *>(cls.ptr())->tp_as_buffer->bf_getbuffer =
      getBufferOrRaise;
  return cls;
}

void populateDenseElements(py::module_ &m) {
  defineDenseClass<PyDenseElementsAttr, PyAttribute>(
      m, "DenseElementsAttr",
      "dense<...> of a tensor or vector type; readable through the buffer "
      "protocol (memoryview(attr)).",
      isaAttr<DenseElementsAttr>, std::nullopt)
      .def_static(
          "get",
          [](const py::list &attrs, const PyType &type,
             const py::object &context) {
            // Upstream's overload for a list of attributes, whose second
            // parameter is the type.
            return denseElementsGet(attrs, /*signless=*/true, py::cast(type),
                                    py::none(), context);
          },
          py::arg("attrs"), py::arg("type"), py::arg("context") = py::none(),
          "Builds from a list of Attributes (or numbers) and the shaped type "
          "(or element type).")
      .def_static("get", &denseElementsGet, py::arg("array"),
                  py::arg("signless") = true, py::arg("type") = py::none(),
                  py::arg("shape") = py::none(),
                  py::arg("context") = py::none(),
                  "Builds from a buffer (memoryview, array.array, bytes "
                  "with a format), from a list of Attributes, or from "
                  "(nested) lists of Python numbers. `type` fixes the element "
                  "type (or the whole shaped type for attribute lists), "
                  "`shape` the shape.")
      .def_static(
          "get_splat",
          [](const PyType &shapedType, const PyAttribute &element) {
            auto shaped = dyn_cast<ShapedType>(shapedType.type);
            auto typed = dyn_cast<TypedAttr>(element.attribute);
            if (!shaped || !shaped.hasStaticShape())
              throw py::value_error("Expected a static ShapedType for the "
                                    "shaped_type parameter: Type(" +
                                    printToStr(shapedType.type) + ")");
            // As DenseElementsAttr.get: MLIR's element count would wrap.
            if (!checkedElementCount(shaped.getShape(), 16))
              throw py::value_error("the shape of " +
                                    printToStr(shapedType.type) +
                                    " has too many elements");
            if (!typed || typed.getType() != shaped.getElementType())
              throw py::value_error(
                  "Shaped element type and attribute type must be equal: "
                  "shaped=Type(" +
                  printToStr(shapedType.type) + "), element=Attribute(" +
                  printToStr(element.attribute) + ")");
            checkElementAttr(typed, shaped.getElementType());
            return makeAttribute(pyContextOf(shapedType.context),
                                 DenseElementsAttr::get(shaped, typed));
          },
          py::arg("shaped_type"), py::arg("element_attr"),
          "A splat of `element_attr` with type `shaped_type`.")
      .def_property_readonly(
          "is_splat",
          [](const PyAttribute &self) {
            return cast<DenseElementsAttr>(self.attribute).isSplat();
          },
          "Whether every element is the same.")
      .def(
          "get_splat_value",
          [](const PyAttribute &self) {
            auto attr = cast<DenseElementsAttr>(self.attribute);
            if (!attr.isSplat())
              throw py::value_error("get_splat_value called on a non-splat "
                                    "attribute");
            return makeAttribute(ctxOf(self), attr.getSplatValue<Attribute>());
          },
          "The splat element (ValueError if not a splat).")
      .def(
          "__len__",
          [](const PyAttribute &self) {
            return denseElementCount(cast<DenseElementsAttr>(self.attribute));
          },
          "The number of elements (OverflowError if it overflows a 64-bit "
          "integer).");

  defineDenseClass<PyDenseIntElementsAttr, PyDenseElementsAttr>(
      m, "DenseIntElementsAttr", "dense<...> of integers or index.",
      isaAttr<DenseIntElementsAttr>, std::nullopt)
      .def(
          "__getitem__",
          [](const PyAttribute &self, intptr_t index) -> py::object {
            auto attr = cast<DenseElementsAttr>(self.attribute);
            index = normalizeIndex(index, denseElementCount(attr));
            Type elementType = attr.getElementType();
            APInt value = attr.getValues<APInt>()[index];
            if (elementType.isInteger(1))
              return py::int_(value.isZero() ? 0 : 1); // As upstream: an int.
            return fromAPInt(value, readsSigned(elementType));
          },
          py::arg("index"), "The element at flat `index` as an int.");

  defineDenseClass<PyDenseFPElementsAttr, PyDenseElementsAttr>(
      m, "DenseFPElementsAttr", "dense<...> of floats.",
      isaAttr<DenseFPElementsAttr>, std::nullopt)
      .def(
          "__getitem__",
          [](const PyAttribute &self, intptr_t index) {
            auto attr = cast<DenseElementsAttr>(self.attribute);
            index = normalizeIndex(index, denseElementCount(attr));
            return attr.getValues<APFloat>()[index].convertToDouble();
          },
          py::arg("index"), "The element at flat `index` as a float.");

  // Dense elements share one C++ class; pick the Python class by element
  // type when downcasting.
  auto denseCaster = py::cpp_function([](const PyAttribute &base) {
    if (isa<DenseIntElementsAttr>(base.attribute)) {
      PyDenseIntElementsAttr result;
      static_cast<PyAttribute &>(result) = base;
      return py::cast(std::move(result));
    }
    if (isa<DenseFPElementsAttr>(base.attribute)) {
      PyDenseFPElementsAttr result;
      static_cast<PyAttribute &>(result) = base;
      return py::cast(std::move(result));
    }
    PyDenseElementsAttr result;
    static_cast<PyAttribute &>(result) = base;
    return py::cast(std::move(result));
  });
  registerAttributeCaster(TypeID::get<DenseIntOrFPElementsAttr>(), denseCaster,
                          /*replace=*/true);
  registerAttributeCaster(TypeID::get<DenseStringElementsAttr>(), denseCaster,
                          /*replace=*/true);
}

//===----------------------------------------------------------------------===//
// The other attributes
//===----------------------------------------------------------------------===//

void populateSimpleAttributes(py::module_ &m) {
  defineConcreteAttribute<PyStringAttr, PyAttribute>(
      m, "StringAttr", "A string attribute.", isaAttr<StringAttr>,
      TypeID::get<StringAttr>())
      .def_static(
          "get",
          [](const py::object &value, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            std::string text = py::isinstance<py::bytes>(value)
                                   ? value.cast<py::bytes>().cast<std::string>()
                                   : value.cast<std::string>();
            return makeTypedAttr<PyStringAttr>(
                ctx, StringAttr::get(ctx.get(), text));
          },
          py::arg("value"), py::arg("context") = py::none(),
          "A string attribute (from str or bytes).")
      .def_static(
          "get_typed",
          [](const PyType &type, const std::string &value) {
            return makeTypedAttr<PyStringAttr>(
                pyContextOf(type.context), StringAttr::get(value, type.type));
          },
          py::arg("type"), py::arg("value"),
          "A string attribute of type `type`.")
      .def_property_readonly(
          "value",
          [](const PyAttribute &self) {
            StringRef value = cast<StringAttr>(self.attribute).getValue();
            return py::str(value.data(), value.size());
          },
          "The string (UnicodeDecodeError if it is not UTF-8: use "
          "value_bytes).")
      .def_property_readonly(
          "value_bytes",
          [](const PyAttribute &self) {
            StringRef value = cast<StringAttr>(self.attribute).getValue();
            return py::bytes(value.data(), value.size());
          },
          "The string as bytes.")
      .def_property_readonly_static(
          "attr_name", [](py::object) { return StringAttr::name.str(); },
          "The attribute's registered name.");

  defineConcreteAttribute<PyIntegerAttr, PyAttribute>(
      m, "IntegerAttr", "An integer or index attribute.", isaAttr<IntegerAttr>,
      TypeID::get<IntegerAttr>())
      .def_static(
          "get",
          [](const PyType &type, const py::int_ &value) {
            return makeTypedAttr<PyIntegerAttr>(
                pyContextOf(type.context), makeIntegerAttr(type.type, value));
          },
          py::arg("type"), py::arg("value"),
          "An integer attribute of `type` (integer or index); ValueError if "
          "`value` does not fit.")
      .def_property_readonly(
          "value",
          [](const PyAttribute &self) {
            auto attr = cast<IntegerAttr>(self.attribute);
            return fromAPInt(attr.getValue(), readsSigned(attr.getType()));
          },
          "The value (signed unless the type is unsigned).")
      .def(
          "__int__",
          [](const PyAttribute &self) {
            auto attr = cast<IntegerAttr>(self.attribute);
            return fromAPInt(attr.getValue(), readsSigned(attr.getType()));
          },
          "The value.")
      .def_property_readonly_static(
          "attr_name", [](py::object) { return IntegerAttr::name.str(); },
          "The attribute's registered name.");

  defineConcreteAttribute<PyBoolAttr, PyAttribute>(
      m, "BoolAttr", "true or false (an i1 IntegerAttr).", isaAttr<BoolAttr>,
      std::nullopt)
      .def_static(
          "get",
          [](bool value, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeTypedAttr<PyBoolAttr>(ctx,
                                             BoolAttr::get(ctx.get(), value));
          },
          // A bool only, as upstream (2 was taken as true).
          py::arg("value").noconvert(), py::arg("context") = py::none(),
          "true or false.")
      .def_property_readonly(
          "value",
          [](const PyAttribute &self) {
            return cast<BoolAttr>(self.attribute).getValue();
          },
          "The value.")
      .def(
          "__bool__",
          [](const PyAttribute &self) {
            return cast<BoolAttr>(self.attribute).getValue();
          },
          "The value.");
  // An i1 IntegerAttr comes back as a BoolAttr, as upstream's caster for
  // IntegerAttr's TypeID does.
  registerAttributeCaster(
      TypeID::get<IntegerAttr>(),
      py::cpp_function([](const PyAttribute &attr) -> py::object {
        if (isa<BoolAttr>(attr.attribute))
          return py::cast(PyBoolAttr{attr});
        return py::cast(PyIntegerAttr{attr});
      }),
      /*replace=*/true);

  defineConcreteAttribute<PyFloatAttr, PyAttribute>(
      m, "FloatAttr", "A floating-point attribute.", isaAttr<FloatAttr>,
      TypeID::get<FloatAttr>())
      .def_static(
          "get",
          [](const PyType &type, double value, py::object loc) {
            PyMlirContext &ctx = pyContextOf(type.context);
            Location location = resolveDiagnosticLocation(loc, ctx);
            checkRepresentable(type.type, value);
            Attribute attr = buildChecked(ctx.get(), "Invalid attribute", [&] {
              return FloatAttr::getChecked([&] { return emitError(location); },
                                           type.type, value);
            });
            return makeTypedAttr<PyFloatAttr>(ctx, attr);
          },
          py::arg("type"), py::arg("value"), py::arg("loc") = py::none(),
          "A float attribute of `type`; MLIRError if `type` is not a float "
          "type.")
      .def_static(
          "get_f32",
          [](double value, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeTypedAttr<PyFloatAttr>(
                ctx, FloatAttr::get(Float32Type::get(ctx.get()), value));
          },
          py::arg("value"), py::arg("context") = py::none(),
          "An f32 attribute.")
      .def_static(
          "get_f64",
          [](double value, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeTypedAttr<PyFloatAttr>(
                ctx, FloatAttr::get(Float64Type::get(ctx.get()), value));
          },
          py::arg("value"), py::arg("context") = py::none(),
          "An f64 attribute.")
      .def_property_readonly(
          "value",
          [](const PyAttribute &self) {
            return cast<FloatAttr>(self.attribute).getValueAsDouble();
          },
          "The value as a Python float.")
      .def(
          "__float__",
          [](const PyAttribute &self) {
            return cast<FloatAttr>(self.attribute).getValueAsDouble();
          },
          "The value.")
      .def_property_readonly_static(
          "attr_name", [](py::object) { return FloatAttr::name.str(); },
          "The attribute's registered name.");

  defineConcreteAttribute<PyUnitAttr, PyAttribute>(
      m, "UnitAttr", "The unit attribute.", isaAttr<UnitAttr>,
      TypeID::get<UnitAttr>())
      .def_static(
          "get",
          [](py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeTypedAttr<PyUnitAttr>(ctx, UnitAttr::get(ctx.get()));
          },
          py::arg("context") = py::none(), "The unit attribute.");

  defineConcreteAttribute<PyTypeAttr, PyAttribute>(
      m, "TypeAttr", "A type as an attribute.", isaAttr<TypeAttr>,
      TypeID::get<TypeAttr>())
      .def_static(
          "get",
          [](const PyType &value, py::object context) {
            return makeTypedAttr<PyTypeAttr>(pyContextOf(value.context),
                                             TypeAttr::get(value.type));
          },
          py::arg("value"), py::arg("context") = py::none(),
          "The attribute holding type `value`.")
      .def_property_readonly(
          "value",
          [](const PyAttribute &self) {
            return makeType(ctxOf(self),
                            cast<TypeAttr>(self.attribute).getValue());
          },
          "The type.");

  defineConcreteAttribute<PyArrayAttr, PyAttribute>(
      m, "ArrayAttr", "[attr, ...].", isaAttr<ArrayAttr>,
      TypeID::get<ArrayAttr>())
      .def_static(
          "get",
          [](const py::list &attributes, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            std::vector<Attribute> attrs;
            for (py::handle item : attributes)
              attrs.push_back(arrayItemOf(item));
            return makeTypedAttr<PyArrayAttr>(ctx,
                                              ArrayAttr::get(ctx.get(), attrs));
          },
          py::arg("attributes"), py::arg("context") = py::none(),
          "The array of `attributes`.")
      .def(
          "__len__",
          [](const PyAttribute &self) {
            return cast<ArrayAttr>(self.attribute).size();
          },
          "The number of elements.")
      .def(
          "__getitem__",
          [](const PyAttribute &self, intptr_t index) {
            auto attr = cast<ArrayAttr>(self.attribute);
            return makeAttribute(
                ctxOf(self),
                attr[normalizeIndex(index, attr.size(),
                                    "ArrayAttribute index out of range")]);
          },
          py::arg("index"), "The element at `index` (negative from the end).")
      .def(
          "__iter__",
          [](const PyAttribute &self) {
            py::list items;
            for (Attribute attr : cast<ArrayAttr>(self.attribute))
              items.append(makeAttribute(ctxOf(self), attr));
            return py::iter(items);
          },
          "Iterates over the elements.")
      .def(
          "__add__",
          [](const PyAttribute &self, const py::list &extra) {
            auto attr = cast<ArrayAttr>(self.attribute);
            std::vector<Attribute> attrs(attr.begin(), attr.end());
            for (py::handle item : extra)
              attrs.push_back(arrayItemOf(item));
            PyMlirContext &ctx = ctxOf(self);
            return makeTypedAttr<PyArrayAttr>(ctx,
                                              ArrayAttr::get(ctx.get(), attrs));
          },
          py::arg("other"), "A new ArrayAttr with `other` appended.");

  defineConcreteAttribute<PyDictAttr, PyAttribute>(
      m, "DictAttr", "{name = attr, ...}.", isaAttr<DictionaryAttr>,
      TypeID::get<DictionaryAttr>())
      .def_static(
          "get",
          [](const py::dict &value, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            std::vector<NamedAttribute> attrs;
            for (auto item : value)
              attrs.emplace_back(
                  StringAttr::get(ctx.get(), item.first.cast<std::string>()),
                  attrOf(item.second));
            return makeTypedAttr<PyDictAttr>(
                ctx, DictionaryAttr::get(ctx.get(), attrs));
          },
          py::arg("value") = py::dict(), py::arg("context") = py::none(),
          "The dictionary of `value` (str -> Attribute).")
      .def(
          "__len__",
          [](const PyAttribute &self) {
            return cast<DictionaryAttr>(self.attribute).size();
          },
          "The number of entries.")
      .def(
          "__contains__",
          [](const PyAttribute &self, const std::string &name) {
            return static_cast<bool>(
                cast<DictionaryAttr>(self.attribute).get(name));
          },
          py::arg("name"), "Whether `name` is a key.")
      .def(
          "__getitem__",
          [](const PyAttribute &self, const std::string &name) {
            Attribute attr = cast<DictionaryAttr>(self.attribute).get(name);
            if (!attr)
              throw py::key_error("attempt to access a non-existent "
                                  "attribute");
            return makeAttribute(ctxOf(self), attr);
          },
          py::arg("name"), "The attribute of `name` (KeyError if absent).")
      .def(
          "__getitem__",
          [](const PyAttribute &self, intptr_t index) {
            auto dict = cast<DictionaryAttr>(self.attribute);
            NamedAttribute named =
                dict.getValue()[normalizeIndex(index, dict.size())];
            return PyNamedAttribute{
                named.getName().str(),
                makeAttribute(ctxOf(self), named.getValue())};
          },
          py::arg("index"), "The NamedAttribute at `index`.")
      .def(
          "__iter__",
          [](const PyAttribute &self) {
            py::list items;
            for (NamedAttribute named :
                 cast<DictionaryAttr>(self.attribute).getValue())
              items.append(PyNamedAttribute{
                  named.getName().str(),
                  makeAttribute(ctxOf(self), named.getValue())});
            return py::iter(items);
          },
          "Iterates over the NamedAttributes (as upstream).");

  defineConcreteAttribute<PySymbolRefAttr, PyAttribute>(
      m, "SymbolRefAttr", "@root::@nested... .", isaAttr<SymbolRefAttr>,
      TypeID::get<SymbolRefAttr>())
      .def_static(
          "get",
          [](const std::vector<std::string> &symbols, py::object context) {
            if (symbols.empty())
              throw py::value_error("SymbolRefAttr must be composed of at "
                                    "least one symbol.");
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            SmallVector<FlatSymbolRefAttr> nested;
            for (size_t i = 1; i < symbols.size(); ++i)
              nested.push_back(FlatSymbolRefAttr::get(ctx.get(), symbols[i]));
            return makeTypedAttr<PySymbolRefAttr>(
                ctx, SymbolRefAttr::get(ctx.get(), symbols[0], nested));
          },
          py::arg("symbols"), py::arg("context") = py::none(),
          "@symbols[0]::@symbols[1]...")
      .def_property_readonly(
          "value",
          [](const PyAttribute &self) {
            auto ref = cast<SymbolRefAttr>(self.attribute);
            std::vector<std::string> symbols{ref.getRootReference().str()};
            for (FlatSymbolRefAttr nested : ref.getNestedReferences())
              symbols.push_back(nested.getValue().str());
            return symbols;
          },
          "The symbol names, root first.");

  defineConcreteAttribute<PyFlatSymbolRefAttr, PyAttribute>(
      m, "FlatSymbolRefAttr", "@symbol.", isaAttr<FlatSymbolRefAttr>,
      std::nullopt)
      .def_static(
          "get",
          [](const std::string &value, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeTypedAttr<PyFlatSymbolRefAttr>(
                ctx, FlatSymbolRefAttr::get(ctx.get(), value));
          },
          py::arg("value"), py::arg("context") = py::none(), "@value.")
      .def_property_readonly(
          "value",
          [](const PyAttribute &self) {
            return cast<FlatSymbolRefAttr>(self.attribute).getValue().str();
          },
          "The symbol name.");
  // A reference without nested ones comes back as a FlatSymbolRefAttr, as
  // upstream's caster for SymbolRefAttr's TypeID does.
  registerAttributeCaster(
      TypeID::get<SymbolRefAttr>(),
      py::cpp_function([](const PyAttribute &attr) -> py::object {
        if (isa<FlatSymbolRefAttr>(attr.attribute))
          return py::cast(PyFlatSymbolRefAttr{attr});
        return py::cast(PySymbolRefAttr{attr});
      }),
      /*replace=*/true);

  defineConcreteAttribute<PyOpaqueAttr, PyAttribute>(
      m, "OpaqueAttr", "An attribute of an unregistered dialect.",
      isaAttr<OpaqueAttr>, TypeID::get<OpaqueAttr>())
      .def_static(
          "get",
          [](const std::string &dialectNamespace, const py::bytes &buffer,
             const PyType &type, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeTypedAttr<PyOpaqueAttr>(
                ctx,
                OpaqueAttr::get(StringAttr::get(ctx.get(), dialectNamespace),
                                buffer.cast<std::string>(), type.type));
          },
          py::arg("dialect_namespace"), py::arg("buffer"), py::arg("type"),
          py::arg("context") = py::none(), "An opaque attribute.")
      .def_property_readonly(
          "dialect_namespace",
          [](const PyAttribute &self) {
            return cast<OpaqueAttr>(self.attribute).getDialectNamespace().str();
          },
          "The dialect namespace.")
      .def_property_readonly(
          "data",
          [](const PyAttribute &self) {
            StringRef data = cast<OpaqueAttr>(self.attribute).getAttrData();
            return py::bytes(data.data(), data.size());
          },
          "The attribute data (bytes).");

  defineConcreteAttribute<PyStridedLayoutAttr, PyAttribute>(
      m, "StridedLayoutAttr", "strided<[strides], offset: o>.",
      isaAttr<StridedLayoutAttr>, TypeID::get<StridedLayoutAttr>())
      .def_static(
          "get",
          [](int64_t offset, const std::vector<int64_t> &strides,
             py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeTypedAttr<PyStridedLayoutAttr>(
                ctx, StridedLayoutAttr::get(ctx.get(), offset, strides));
          },
          py::arg("offset"), py::arg("strides"),
          py::arg("context") = py::none(), "A strided layout.")
      .def_static(
          "get_fully_dynamic",
          [](int64_t rank, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            std::vector<int64_t> strides(rank, ShapedType::kDynamic);
            return makeTypedAttr<PyStridedLayoutAttr>(
                ctx, StridedLayoutAttr::get(ctx.get(), ShapedType::kDynamic,
                                            strides));
          },
          py::arg("rank"), py::arg("context") = py::none(),
          "A strided layout with dynamic offset and strides.")
      .def_property_readonly(
          "offset",
          [](const PyAttribute &self) {
            return cast<StridedLayoutAttr>(self.attribute).getOffset();
          },
          "The offset.")
      .def_property_readonly(
          "strides",
          [](const PyAttribute &self) {
            auto strides = cast<StridedLayoutAttr>(self.attribute).getStrides();
            return std::vector<int64_t>(strides.begin(), strides.end());
          },
          "The strides.");

  defineDenseArray<PyDenseBoolArrayAttr, DenseBoolArrayAttr, bool>(
      m, "DenseBoolArrayAttr", "array<i1: ...>.");
  defineDenseArray<PyDenseI8ArrayAttr, DenseI8ArrayAttr, int8_t>(
      m, "DenseI8ArrayAttr", "array<i8: ...>.");
  defineDenseArray<PyDenseI16ArrayAttr, DenseI16ArrayAttr, int16_t>(
      m, "DenseI16ArrayAttr", "array<i16: ...>.");
  defineDenseArray<PyDenseI32ArrayAttr, DenseI32ArrayAttr, int32_t>(
      m, "DenseI32ArrayAttr", "array<i32: ...>.");
  defineDenseArray<PyDenseI64ArrayAttr, DenseI64ArrayAttr, int64_t>(
      m, "DenseI64ArrayAttr", "array<i64: ...>.");
  defineDenseArray<PyDenseF32ArrayAttr, DenseF32ArrayAttr, float>(
      m, "DenseF32ArrayAttr", "array<f32: ...>.");
  defineDenseArray<PyDenseF64ArrayAttr, DenseF64ArrayAttr, double>(
      m, "DenseF64ArrayAttr", "array<f64: ...>.");
  registerAttributeCaster(
      TypeID::get<DenseArrayAttr>(),
      py::cpp_function([](const PyAttribute &base) -> py::object {
        auto as = [&](auto tag) {
          decltype(tag) result;
          static_cast<PyAttribute &>(result) = base;
          return py::cast(std::move(result));
        };
        Attribute attr = base.attribute;
        if (isa<DenseBoolArrayAttr>(attr))
          return as(PyDenseBoolArrayAttr{});
        if (isa<DenseI8ArrayAttr>(attr))
          return as(PyDenseI8ArrayAttr{});
        if (isa<DenseI16ArrayAttr>(attr))
          return as(PyDenseI16ArrayAttr{});
        if (isa<DenseI32ArrayAttr>(attr))
          return as(PyDenseI32ArrayAttr{});
        if (isa<DenseI64ArrayAttr>(attr))
          return as(PyDenseI64ArrayAttr{});
        if (isa<DenseF32ArrayAttr>(attr))
          return as(PyDenseF32ArrayAttr{});
        if (isa<DenseF64ArrayAttr>(attr))
          return as(PyDenseF64ArrayAttr{});
        return py::cast(base);
      }),
      /*replace=*/true);
}
/// `DenseResourceElementsAttr.get_from_buffer`: the elements live in the
/// Python buffer, which the attribute's blob holds until the context drops
/// it (then the buffer is released, with the GIL).
py::object denseResourceFromBuffer(py::object array, const std::string &name,
                                   PyType &type,
                                   std::optional<size_t> alignment,
                                   bool isMutable, py::object context) {
  PyMlirContext &ctx = PyMlirContext::resolve(context);
  checkSameContext(ctx, type.type.getContext(), "a type");
  auto shaped = dyn_cast<ShapedType>(type.type);
  if (!shaped || !shaped.hasStaticShape())
    throw py::value_error("the type of a DenseResourceElementsAttr must be a "
                          "statically shaped type, got " +
                          printToStr(type.type));
  Type elementType = shaped.getElementType();
  if (!elementType.isIntOrIndexOrFloat())
    throw py::value_error("unsupported element type " +
                          printToStr(elementType) +
                          " (integers, index and floats are)");
  auto view = std::make_unique<Py_buffer>();
  int flags = PyBUF_ND | PyBUF_C_CONTIGUOUS;
  if (isMutable)
    flags |= PyBUF_WRITABLE;
  if (PyObject_GetBuffer(array.ptr(), view.get(), flags) != 0)
    throw py::error_already_set();
  // Released on every path: by the blob once it holds it, else here.
  auto release = [](Py_buffer *buffer) {
    // The context may outlive the interpreter (a context kept until exit).
    if (Py_IsInitialized()) {
      AcquireGilOrPark gil;
      PyBuffer_Release(buffer);
    }
    delete buffer;
  };
  std::unique_ptr<Py_buffer, decltype(release)> held(view.release(), release);
  // MLIR reads the resource as the type's elements: a buffer of another
  // size would be read out of bounds (upstream does not check this).
  unsigned elementBits = elementType.isIndex()
                             ? IndexType::kInternalStorageBitWidth
                             : elementType.getIntOrFloatBitWidth();
  // As DenseElementsAttr.get: MLIR's element count and this product would
  // wrap (an empty buffer passed for 2**62 x 4 bytes).
  std::optional<int64_t> count = checkedElementCount(shaped.getShape(), 16);
  int64_t expected;
  if (!count ||
      __builtin_mul_overflow(*count, (elementBits + 7) / 8, &expected))
    throw py::value_error("the shape of " + printToStr(type.type) +
                          " has too many elements");
  if (held->len != expected)
    throw py::value_error("the buffer has " + std::to_string(held->len) +
                          " bytes, " + printToStr(type.type) + " needs " +
                          std::to_string(expected));
  size_t align = alignment.value_or(
      held->itemsize > 0 ? static_cast<size_t>(held->itemsize) : 1);
  if (align == 0 || (align & (align - 1)) != 0)
    throw py::value_error("the alignment must be a power of two");
  if (reinterpret_cast<uintptr_t>(held->buf) % align != 0)
    throw py::value_error("the buffer is not aligned to " +
                          std::to_string(align) + " bytes");
  ArrayRef<char> data(static_cast<const char *>(held->buf), held->len);
  Py_buffer *owned = held.release();
  AsmResourceBlob blob(
      data, align, [owned, release](void *, size_t, size_t) { release(owned); },
      isMutable);
  return makeAttribute(
      ctx, DenseResourceElementsAttr::get(shaped, name, std::move(blob)));
}

void populateDenseResource(py::module_ &m) {
  defineConcreteAttribute<PyDenseResourceElementsAttr, PyAttribute>(
      m, "DenseResourceElementsAttr",
      "Dense elements held in a resource blob (dense_resource<name>).",
      isaAttr<DenseResourceElementsAttr>,
      TypeID::get<DenseResourceElementsAttr>())
      .def_static(
          "get_from_buffer", &denseResourceFromBuffer, py::arg("array"),
          py::arg("name"), py::arg("type"), py::arg("alignment") = py::none(),
          py::arg("is_mutable") = false, py::arg("context") = py::none(),
          "An attribute of `type` whose elements are the C-contiguous buffer "
          "`array` (not copied; released when the context drops the "
          "resource). The buffer must have exactly the bytes the type "
          "needs (ValueError otherwise). The resource is named after `name` "
          "(made unique by MLIR).");
}
} // namespace

void mlir::tracking::python::populateIRAttributes(py::module_ &m) {
  populateSimpleAttributes(m);
  populateDenseElements(m);
  populateDenseResource(m);
}
