//===- IRTypes.cpp - TypeID, the caster registries and the builtin types --===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "Downcast.h"
#include "IRCompat.h"
#include "OpView.h"

#include "mlir-c/Bindings/Python/Interop.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Dialect.h"
#include "llvm/ADT/DenseMap.h"

#include <pybind11/stl.h>

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::python;

//===----------------------------------------------------------------------===//
// Caster registries
//===----------------------------------------------------------------------===//

namespace {
using CasterMap = llvm::DenseMap<TypeID, py::object>;
// Never destroyed: the callables must outlive every downcast, including at
// interpreter exit.
CasterMap &typeCasters() {
  static auto *casters = new CasterMap();
  return *casters;
}
CasterMap &attributeCasters() {
  static auto *casters = new CasterMap();
  return *casters;
}

void registerCaster(CasterMap &map, TypeID typeID, py::object caster,
                    bool replace, const char *what) {
  auto [it, inserted] = map.try_emplace(typeID, caster);
  if (inserted)
    return;
  if (!replace)
    throw std::runtime_error(
        std::string(what) +
        " caster is already registered for this TypeID; pass replace=True");
  it->second = std::move(caster);
}
} // namespace

void mlir::tracking::python::registerTypeCaster(TypeID typeID,
                                                py::object caster,
                                                bool replace) {
  registerCaster(typeCasters(), typeID, std::move(caster), replace, "Type");
}

void mlir::tracking::python::registerAttributeCaster(TypeID typeID,
                                                     py::object caster,
                                                     bool replace) {
  registerCaster(attributeCasters(), typeID, std::move(caster), replace,
                 "Attribute");
}

namespace {
/// The context of the first of `object` and the types and attributes nested
/// in it that is not `expected`, or null.
template <typename T>
MLIRContext *findOtherContext(MLIRContext *expected, T object) {
  if (object.getContext() != expected)
    return object.getContext();
  MLIRContext *other = nullptr;
  auto check = [&](auto element) {
    if (element.getContext() == expected)
      return WalkResult::advance();
    other = element.getContext();
    return WalkResult::interrupt();
  };
  object.walk([&](Attribute attribute) { return check(attribute); },
              [&](Type type) { return check(type); });
  return other;
}

template <typename T>
void checkContextOfImpl(PyMlirContext &context, T object, const char *kind) {
  // Objects of two contexts can only meet while both exist.
  if (getNumLiveContexts() < 2)
    return;
  if (MLIRContext *other = findOtherContext(context.get(), object))
    throw py::value_error(std::string("cannot make ") + kind + " of " +
                          describeContext(context.get()) +
                          " from a type or attribute of " +
                          describeContext(other) +
                          ": objects of different contexts cannot be mixed");
}
} // namespace

void mlir::tracking::python::checkContextOf(PyMlirContext &context, Type type) {
  checkContextOfImpl(context, type, "a type");
}

void mlir::tracking::python::checkContextOf(PyMlirContext &context,
                                            Attribute attribute) {
  checkContextOfImpl(context, attribute,
                     isa<LocationAttr>(attribute) ? "a location"
                                                  : "an attribute");
}

namespace {
/// The concrete classes and what each accepts as `self`.
std::vector<std::pair<py::object, std::function<bool(py::handle)>>> &
concreteClasses() {
  static auto *classes =
      new std::vector<std::pair<py::object, std::function<bool(py::handle)>>>();
  return *classes;
}
} // namespace

void mlir::tracking::python::noteConcreteClass(
    py::handle cls, std::function<bool(py::handle)> accepts) {
  concreteClasses().emplace_back(py::reinterpret_borrow<py::object>(cls),
                                 std::move(accepts));
}

void mlir::tracking::python::guardConcreteClassMethods() {
  for (auto &[cls, accepts] : concreteClasses()) {
    std::string className = py::str(cls.attr("__name__"));
    auto refuse = [className](const std::string &member, py::handle self) {
      return py::type_error(className + "." + member +
                            ": self must be of class " + className + ", got " +
                            py::repr(self).cast<std::string>());
    };
    auto docOf = [](const py::object &original) {
      py::object doc = original.attr("__doc__");
      return doc.is_none() ? std::string() : doc.cast<std::string>();
    };
    // A property's getter takes only self: called without packing the
    // arguments, the guard costs less (pybind11 copies name and doc).
    auto guardGetter = [accepts = accepts, refuse, docOf](py::object original,
                                                          std::string member) {
      std::string doc = docOf(original);
      return py::cpp_function(
          [accepts, refuse, original, member](py::handle self) {
            if (!accepts(self))
              throw refuse(member, self);
            return callOneOrPark(original, self);
          },
          py::name(member.c_str()), py::doc(doc.c_str()));
    };
    auto guard = [accepts = accepts, refuse, docOf](py::object original,
                                                    std::string member) {
      std::string doc = docOf(original);
      return py::cpp_function(
          [accepts, refuse, original, member](py::object self, py::args args,
                                              py::kwargs kwargs) {
            if (!accepts(self))
              throw refuse(member, self);
            py::tuple arguments(args.size() + 1);
            arguments[0] = self;
            for (size_t i = 0; i < args.size(); ++i)
              arguments[i + 1] = args[i];
            return callPackedOrPark(original, arguments, kwargs);
          },
          py::name(member.c_str()), py::doc(doc.c_str()));
    };
    py::dict members = cls.attr("__dict__");
    for (auto [key, value] : members) {
      std::string member = py::str(key);
      if (member == "__init__" || member == "__new__" || member == "__repr__" ||
          member == "__doc__" || member == "__module__")
        continue;
      PyObject *object = value.ptr();
      if (Py_TYPE(object) == &PyProperty_Type) {
        // A plain property (static ones have their own type).
        py::object fget = value.attr("fget");
        if (fget.is_none())
          continue;
        py::object guarded =
            py::module_::import("builtins")
                .attr("property")(guardGetter(fget, member), py::none(),
                                  py::none(), value.attr("__doc__"));
        py::setattr(cls, key, guarded);
      } else if (PyInstanceMethod_Check(object)) {
        py::object function = py::reinterpret_borrow<py::object>(
            PyInstanceMethod_GET_FUNCTION(object));
        py::object wrapped = guard(function, member);
        py::setattr(cls, key,
                    py::reinterpret_steal<py::object>(
                        PyInstanceMethod_New(wrapped.ptr())));
      }
    }
  }
}

py::object mlir::tracking::python::downcastType(PyMlirContext &context,
                                                Type type) {
  checkContextOf(context, type);
  py::object base = py::cast(PyType{context.getObject(), type});
  auto it = typeCasters().find(type.getTypeID());
  if (it == typeCasters().end()) {
    // As upstream, the dialect's module may register a caster when loaded
    // (builtin casters are registered here, in C++).
    StringRef dialect = type.getDialect().getNamespace();
    if (dialect.empty() || dialect == "builtin")
      return base;
    loadDialectModule(dialect.str());
    it = typeCasters().find(type.getTypeID());
    if (it == typeCasters().end())
      return base;
  }
  return callOrPark(it->second, base);
}

py::object mlir::tracking::python::downcastAttribute(PyMlirContext &context,
                                                     Attribute attribute) {
  checkContextOf(context, attribute);
  py::object base = py::cast(PyAttribute{context.getObject(), attribute});
  auto it = attributeCasters().find(attribute.getTypeID());
  if (it == attributeCasters().end()) {
    StringRef dialect = attribute.getDialect().getNamespace();
    if (dialect.empty() || dialect == "builtin")
      return base;
    loadDialectModule(dialect.str());
    it = attributeCasters().find(attribute.getTypeID());
    if (it == attributeCasters().end())
      return base;
  }
  return callOrPark(it->second, base);
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

namespace {
// One empty struct per Python class: pybind11 needs a distinct C++ type per
// class, and the caster builds the subclass by value.
#define MLIR_TRACKING_PY_TYPE(NAME, BASE)                                      \
  struct Py##NAME : BASE {}
MLIR_TRACKING_PY_TYPE(IntegerType, PyType);
MLIR_TRACKING_PY_TYPE(IndexType, PyType);
MLIR_TRACKING_PY_TYPE(FloatType, PyType);
MLIR_TRACKING_PY_TYPE(NoneType, PyType);
MLIR_TRACKING_PY_TYPE(ComplexType, PyType);
MLIR_TRACKING_PY_TYPE(ShapedType, PyType);
MLIR_TRACKING_PY_TYPE(VectorType, PyShapedType);
MLIR_TRACKING_PY_TYPE(RankedTensorType, PyShapedType);
MLIR_TRACKING_PY_TYPE(UnrankedTensorType, PyShapedType);
MLIR_TRACKING_PY_TYPE(MemRefType, PyShapedType);
MLIR_TRACKING_PY_TYPE(UnrankedMemRefType, PyShapedType);
MLIR_TRACKING_PY_TYPE(TupleType, PyType);
MLIR_TRACKING_PY_TYPE(FunctionType, PyType);
MLIR_TRACKING_PY_TYPE(OpaqueType, PyType);
#undef MLIR_TRACKING_PY_TYPE

template <typename T> bool isaType(Type type) { return isa<T>(type); }

PyMlirContext &contextOfType(const PyType &type) {
  return pyContextOf(type.context);
}

std::vector<Type> toTypes(const py::handle &sequence) {
  std::vector<Type> types;
  for (py::handle item : sequence)
    types.push_back(item.cast<PyType &>().type);
  return types;
}

py::list toPythonTypes(PyMlirContext &context, TypeRange types) {
  py::list list;
  for (Type type : types)
    list.append(makeType(context, type));
  return list;
}

/// The context of a `loc=` argument, else of `fallback`.
PyMlirContext &contextOfLoc(const py::object &loc, PyMlirContext &fallback) {
  if (loc.is_none())
    return fallback;
  return pyContextOf(loc.cast<PyLocation &>().context);
}

Attribute optionalAttr(const py::object &attr) {
  if (attr.is_none())
    return {};
  return attr.cast<PyAttribute &>().attribute;
}

py::object optionalAttrObject(PyMlirContext &context, Attribute attr) {
  if (!attr)
    return py::none();
  return makeAttribute(context, attr);
}

void requireRank(ShapedType type) {
  if (!type.hasRank())
    throw py::value_error(
        "calling this method requires that the type has a rank.");
}

/// A float type class with only a `get`.
template <typename Derived, typename MlirT>
void defineFloat(py::module_ &m, const char *name, const char *description) {
  defineConcreteType<Derived, PyFloatType>(m, name, description, isaType<MlirT>,
                                           TypeID::get<MlirT>())
      .def_static(
          "get",
          [](py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeTyped<Derived>(ctx, MlirT::get(ctx.get()));
          },
          py::arg("context") = py::none(),
          (std::string("Returns the ") + description + ".").c_str())
      .def_property_readonly_static(
          "type_name", [](py::object) { return MlirT::name.str(); },
          "The type's registered name.");
}
} // namespace

//===----------------------------------------------------------------------===//
// TypeID, Type.maybe_downcast, register_type_caster
//===----------------------------------------------------------------------===//

namespace {
void populateTypeID(py::module_ &m) {
  py::class_<PyTypeID>(m, "TypeID",
                       "An MLIR TypeID: identifies a C++ class of types, "
                       "attributes, ops or interfaces.")
      .def(
          "__eq__",
          [](const PyTypeID &self, const py::object &other) {
            return isInstance<PyTypeID>(other) &&
                   other.cast<PyTypeID &>().typeID == self.typeID;
          },
          py::arg("other"), "Equal if both identify the same class.")
      .def(
          "__hash__",
          [](const PyTypeID &self) {
            return std::hash<const void *>()(self.typeID.getAsOpaquePointer());
          },
          "Consistent with ==.")
      .def_property_readonly(
          "_CAPIPtr",
          [](const PyTypeID &self) {
            return py::reinterpret_steal<py::object>(PyCapsule_New(
                const_cast<void *>(self.typeID.getAsOpaquePointer()),
                MLIR_PYTHON_CAPSULE_TYPEID, nullptr));
          },
          "A capsule with the MlirTypeID.")
      .def_static(
          "_CAPICreate",
          [](const py::object &capsule) {
            void *pointer =
                PyCapsule_GetPointer(capsule.ptr(), MLIR_PYTHON_CAPSULE_TYPEID);
            if (!pointer)
              throw py::error_already_set();
            return PyTypeID{TypeID::getFromOpaquePointer(pointer)};
          },
          py::arg("capsule"), "The TypeID of a capsule.")
      .def(
          "__repr__",
          [](const PyTypeID &self) {
            std::string text;
            llvm::raw_string_ostream os(text);
            os << "<mlir_tracking.ir.TypeID "
               << self.typeID.getAsOpaquePointer() << ">";
            return text;
          },
          "<TypeID address>.");

  m.def(
      "register_type_caster",
      [](const PyTypeID &typeID, py::object caster,
         bool replace) -> py::object {
        if (caster.is_none())
          return py::cpp_function(
              [typeID, replace](py::object caster) {
                registerTypeCaster(typeID.typeID, caster, replace);
                return caster;
              },
              py::arg("caster"));
        registerTypeCaster(typeID.typeID, caster, replace);
        return caster;
      },
      py::arg("typeid"), py::arg("caster") = py::none(), py::kw_only(),
      py::arg("replace") = false,
      "Registers `caster(type) -> object` for the types of `typeid` (their "
      "objects returned by the API go through it). Without `caster`, "
      "returns a decorator.");
  m.def(
      "register_attribute_caster",
      [](const PyTypeID &typeID, py::object caster,
         bool replace) -> py::object {
        if (caster.is_none())
          return py::cpp_function(
              [typeID, replace](py::object caster) {
                registerAttributeCaster(typeID.typeID, caster, replace);
                return caster;
              },
              py::arg("caster"));
        registerAttributeCaster(typeID.typeID, caster, replace);
        return caster;
      },
      py::arg("typeid"), py::arg("caster") = py::none(), py::kw_only(),
      py::arg("replace") = false,
      "Registers `caster(attribute) -> object` for the attributes of "
      "`typeid`. Without `caster`, returns a decorator.");

  // The base classes get typeid, maybe_downcast and dump here, next to the
  // registries they use.
  auto type = py::reinterpret_borrow<py::class_<PyType>>(m.attr("Type"));
  type.def(py::init([](const PyType &other) { return PyType(other); }),
           py::arg("cast_from_type"),
           "The generic Type of `cast_from_type` (see maybe_downcast).")
      .def_property_readonly(
          "typeid",
          [](PyType &self) { return PyTypeID{self.type.getTypeID()}; },
          "The TypeID of the type's class.")
      .def(
          "maybe_downcast",
          [](const PyType &self) {
            return downcastType(contextOfType(self), self.type);
          },
          "This type as its most specific registered class.")
      .def(
          "dump", [](PyType &self) { self.type.dump(); },
          "Prints the type to stderr.");
  auto attribute =
      py::reinterpret_borrow<py::class_<PyAttribute>>(m.attr("Attribute"));
  attribute
      .def(
          py::init([](const PyAttribute &other) { return PyAttribute(other); }),
          py::arg("cast_from_attr"),
          "The generic Attribute of `cast_from_attr` (see maybe_downcast).")
      .def_property_readonly(
          "typeid",
          [](PyAttribute &self) {
            return PyTypeID{self.attribute.getTypeID()};
          },
          "The TypeID of the attribute's class.")
      .def(
          "maybe_downcast",
          [](const PyAttribute &self) {
            return downcastAttribute(pyContextOf(self.context), self.attribute);
          },
          "This attribute as its most specific registered class.")
      .def(
          "dump", [](PyAttribute &self) { self.attribute.dump(); },
          "Prints the attribute to stderr.")
      .def(
          "get_named",
          [](const py::object &self, const std::string &name) {
            return PyNamedAttribute{name, self};
          },
          py::arg("name"), "A NamedAttribute of `name` and this attribute.");
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

/// IntegerType::get, with MLIR's width limit as a ValueError: a wider type
/// (which MLIR only asserts against) printed as another width and was not
/// equal to its own parse.
IntegerType getIntegerType(PyMlirContext &context, unsigned width,
                           IntegerType::SignednessSemantics signedness) {
  if (width > IntegerType::kMaxWidth)
    throw py::value_error("integer bitwidth is limited to " +
                          std::to_string(IntegerType::kMaxWidth) +
                          " bits, got " + std::to_string(width));
  return IntegerType::get(context.get(), width, signedness);
}

void populateScalarTypes(py::module_ &m) {
  auto integerType = defineConcreteType<PyIntegerType, PyType>(
      m, "IntegerType", "An integer type (`i32`, `si8`, `ui64`).",
      isaType<IntegerType>, TypeID::get<IntegerType>());
  // Upstream's IntegerType.Signedness, its values also on the class
  // (IntegerType.SIGNED), for get(width, signedness) and `signedness`.
  py::enum_<IntegerType::SignednessSemantics>(
      integerType, "Signedness", "The signedness of an integer type.")
      .value("SIGNLESS", IntegerType::Signless)
      .value("SIGNED", IntegerType::Signed)
      .value("UNSIGNED", IntegerType::Unsigned)
      .export_values();
  integerType
      .def_static(
          "get",
          [](unsigned width, IntegerType::SignednessSemantics signedness,
             py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeTyped<PyIntegerType>(
                ctx, getIntegerType(ctx, width, signedness));
          },
          py::arg("width"), py::arg("signedness") = IntegerType::Signless,
          py::arg("context") = py::none(),
          "An integer type of `width` bits and `signedness` "
          "(IntegerType.Signedness, signless by default).")
      .def_static(
          "get_signless",
          [](unsigned width, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeTyped<PyIntegerType>(
                ctx, getIntegerType(ctx, width, IntegerType::Signless));
          },
          py::arg("width"), py::arg("context") = py::none(),
          "A signless integer type of `width` bits.")
      .def_static(
          "get_signed",
          [](unsigned width, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeTyped<PyIntegerType>(
                ctx, getIntegerType(ctx, width, IntegerType::Signed));
          },
          py::arg("width"), py::arg("context") = py::none(),
          "A signed integer type of `width` bits.")
      .def_static(
          "get_unsigned",
          [](unsigned width, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeTyped<PyIntegerType>(
                ctx, getIntegerType(ctx, width, IntegerType::Unsigned));
          },
          py::arg("width"), py::arg("context") = py::none(),
          "An unsigned integer type of `width` bits.")
      .def_property_readonly(
          "width",
          [](const PyType &self) {
            return cast<IntegerType>(self.type).getWidth();
          },
          "The width in bits.")
      .def_property_readonly(
          "signedness",
          [](const PyType &self) {
            return cast<IntegerType>(self.type).getSignedness();
          },
          "The signedness (an IntegerType.Signedness).")
      .def_property_readonly(
          "is_signless",
          [](const PyType &self) {
            return cast<IntegerType>(self.type).isSignless();
          },
          "Whether the type is signless.")
      .def_property_readonly(
          "is_signed",
          [](const PyType &self) {
            return cast<IntegerType>(self.type).isSigned();
          },
          "Whether the type is signed.")
      .def_property_readonly(
          "is_unsigned",
          [](const PyType &self) {
            return cast<IntegerType>(self.type).isUnsigned();
          },
          "Whether the type is unsigned.")
      .def_property_readonly_static(
          "type_name", [](py::object) { return IntegerType::name.str(); },
          "The type's registered name.");

  defineConcreteType<PyIndexType, PyType>(m, "IndexType", "The index type.",
                                          isaType<IndexType>,
                                          TypeID::get<IndexType>())
      .def_static(
          "get",
          [](py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeTyped<PyIndexType>(ctx, IndexType::get(ctx.get()));
          },
          py::arg("context") = py::none(), "The index type.")
      .def_property_readonly_static(
          "type_name", [](py::object) { return IndexType::name.str(); },
          "The type's registered name.");

  defineConcreteType<PyFloatType, PyType>(
      m, "FloatType", "Base class of the floating-point types.",
      isaType<FloatType>, std::nullopt)
      .def_property_readonly(
          "width",
          [](const PyType &self) {
            return cast<FloatType>(self.type).getWidth();
          },
          "The width in bits.");

  struct PyFloat4E2M1FNType : PyFloatType {};
  struct PyFloat6E2M3FNType : PyFloatType {};
  struct PyFloat6E3M2FNType : PyFloatType {};
  struct PyFloat8E4M3FNType : PyFloatType {};
  struct PyFloat8E5M2Type : PyFloatType {};
  struct PyFloat8E4M3Type : PyFloatType {};
  struct PyFloat8E4M3FNUZType : PyFloatType {};
  struct PyFloat8E4M3B11FNUZType : PyFloatType {};
  struct PyFloat8E5M2FNUZType : PyFloatType {};
  struct PyFloat8E3M4Type : PyFloatType {};
  struct PyFloat8E8M0FNUType : PyFloatType {};
  struct PyBF16Type : PyFloatType {};
  struct PyF16Type : PyFloatType {};
  struct PyFloatTF32Type : PyFloatType {};
  struct PyF32Type : PyFloatType {};
  struct PyF64Type : PyFloatType {};
  defineFloat<PyFloat4E2M1FNType, Float4E2M1FNType>(m, "Float4E2M1FNType",
                                                    "f4E2M1FN type");
  defineFloat<PyFloat6E2M3FNType, Float6E2M3FNType>(m, "Float6E2M3FNType",
                                                    "f6E2M3FN type");
  defineFloat<PyFloat6E3M2FNType, Float6E3M2FNType>(m, "Float6E3M2FNType",
                                                    "f6E3M2FN type");
  defineFloat<PyFloat8E4M3FNType, Float8E4M3FNType>(m, "Float8E4M3FNType",
                                                    "f8E4M3FN type");
  defineFloat<PyFloat8E5M2Type, Float8E5M2Type>(m, "Float8E5M2Type",
                                                "f8E5M2 type");
  defineFloat<PyFloat8E4M3Type, Float8E4M3Type>(m, "Float8E4M3Type",
                                                "f8E4M3 type");
  defineFloat<PyFloat8E4M3FNUZType, Float8E4M3FNUZType>(m, "Float8E4M3FNUZType",
                                                        "f8E4M3FNUZ type");
  defineFloat<PyFloat8E4M3B11FNUZType, Float8E4M3B11FNUZType>(
      m, "Float8E4M3B11FNUZType", "f8E4M3B11FNUZ type");
  defineFloat<PyFloat8E5M2FNUZType, Float8E5M2FNUZType>(m, "Float8E5M2FNUZType",
                                                        "f8E5M2FNUZ type");
  defineFloat<PyFloat8E3M4Type, Float8E3M4Type>(m, "Float8E3M4Type",
                                                "f8E3M4 type");
  defineFloat<PyFloat8E8M0FNUType, Float8E8M0FNUType>(m, "Float8E8M0FNUType",
                                                      "f8E8M0FNU type");
  defineFloat<PyBF16Type, BFloat16Type>(m, "BF16Type", "bf16 type");
  defineFloat<PyF16Type, Float16Type>(m, "F16Type", "f16 type");
  defineFloat<PyFloatTF32Type, FloatTF32Type>(m, "FloatTF32Type", "tf32 type");
  defineFloat<PyF32Type, Float32Type>(m, "F32Type", "f32 type");
  defineFloat<PyF64Type, Float64Type>(m, "F64Type", "f64 type");

  defineConcreteType<PyNoneType, PyType>(m, "NoneType", "The none type.",
                                         isaType<NoneType>,
                                         TypeID::get<NoneType>())
      .def_static(
          "get",
          [](py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeTyped<PyNoneType>(ctx, NoneType::get(ctx.get()));
          },
          py::arg("context") = py::none(), "The none type.")
      .def_property_readonly_static(
          "type_name", [](py::object) { return NoneType::name.str(); },
          "The type's registered name.");

  defineConcreteType<PyComplexType, PyType>(
      m, "ComplexType", "complex<element_type>.", isaType<ComplexType>,
      TypeID::get<ComplexType>())
      .def_static(
          "get",
          [](const PyType &elementType) {
            if (!isa<IntegerType, FloatType>(elementType.type))
              throw py::value_error(
                  "invalid '" +
                  py::repr(py::cast(elementType)).cast<std::string>() +
                  "' and expected floating point or integer type.");
            return makeTyped<PyComplexType>(contextOfType(elementType),
                                            ComplexType::get(elementType.type));
          },
          py::arg("element_type"), "complex<element_type>.")
      .def_property_readonly(
          "element_type",
          [](const PyType &self) {
            return makeType(contextOfType(self),
                            cast<ComplexType>(self.type).getElementType());
          },
          "The element type.")
      .def_property_readonly_static(
          "type_name", [](py::object) { return ComplexType::name.str(); },
          "The type's registered name.");

  defineConcreteType<PyTupleType, PyType>(m, "TupleType", "tuple<...>.",
                                          isaType<TupleType>,
                                          TypeID::get<TupleType>())
      .def_static(
          "get_tuple",
          [](const py::list &elements, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeTyped<PyTupleType>(
                ctx, TupleType::get(ctx.get(), toTypes(elements)));
          },
          py::arg("elements"), py::arg("context") = py::none(),
          "A tuple of the given types.")
      .def(
          "get_type",
          [](const PyType &self, intptr_t pos) {
            auto tuple = cast<TupleType>(self.type);
            if (pos < 0 || pos >= static_cast<intptr_t>(tuple.size()))
              throw py::index_error("tuple type position out of range");
            return makeType(contextOfType(self), tuple.getType(pos));
          },
          py::arg("pos"), "The element type at `pos`.")
      .def_property_readonly(
          "num_types",
          [](const PyType &self) { return cast<TupleType>(self.type).size(); },
          "The number of element types.")
      .def_property_readonly_static(
          "type_name", [](py::object) { return TupleType::name.str(); },
          "The type's registered name.");

  defineConcreteType<PyFunctionType, PyType>(
      m, "FunctionType", "(inputs) -> results.", isaType<FunctionType>,
      TypeID::get<FunctionType>())
      .def_static(
          "get",
          [](const py::list &inputs, const py::list &results,
             py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeTyped<PyFunctionType>(
                ctx, FunctionType::get(ctx.get(), toTypes(inputs),
                                       toTypes(results)));
          },
          py::arg("inputs"), py::arg("results"),
          py::arg("context") = py::none(), "A function type.")
      .def_property_readonly(
          "inputs",
          [](const PyType &self) {
            return toPythonTypes(contextOfType(self),
                                 cast<FunctionType>(self.type).getInputs());
          },
          "The input types (a list).")
      .def_property_readonly(
          "results",
          [](const PyType &self) {
            return toPythonTypes(contextOfType(self),
                                 cast<FunctionType>(self.type).getResults());
          },
          "The result types (a list).")
      .def_property_readonly_static(
          "type_name", [](py::object) { return FunctionType::name.str(); },
          "The type's registered name.");

  defineConcreteType<PyOpaqueType, PyType>(
      m, "OpaqueType", "A type of an unregistered dialect: !ns<\"data\">.",
      isaType<OpaqueType>, TypeID::get<OpaqueType>())
      .def_static(
          "get",
          [](const std::string &dialectNamespace, const std::string &buffer,
             py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeTyped<PyOpaqueType>(
                ctx, OpaqueType::get(
                         StringAttr::get(ctx.get(), dialectNamespace), buffer));
          },
          py::arg("dialect_namespace"), py::arg("buffer"),
          py::arg("context") = py::none(), "An opaque type.")
      .def_property_readonly(
          "dialect_namespace",
          [](const PyType &self) {
            return cast<OpaqueType>(self.type).getDialectNamespace().str();
          },
          "The dialect namespace.")
      .def_property_readonly(
          "data",
          [](const PyType &self) {
            return cast<OpaqueType>(self.type).getTypeData().str();
          },
          "The type data.")
      .def_property_readonly_static(
          "type_name", [](py::object) { return OpaqueType::name.str(); },
          "The type's registered name.");
}

void populateShapedTypes(py::module_ &m) {
  auto shapedOf = [](const PyType &self) {
    return cast<ShapedType>(self.type);
  };
  defineConcreteType<PyShapedType, PyType>(
      m, "ShapedType",
      "Base class of the shaped types (tensor, memref, "
      "vector).",
      isaType<ShapedType>, std::nullopt)
      .def_property_readonly(
          "element_type",
          [shapedOf](const PyType &self) {
            return makeType(contextOfType(self),
                            shapedOf(self).getElementType());
          },
          "The element type.")
      .def_property_readonly(
          "has_rank",
          [shapedOf](const PyType &self) { return shapedOf(self).hasRank(); },
          "Whether the type is ranked.")
      .def_property_readonly(
          "rank",
          [shapedOf](const PyType &self) {
            requireRank(shapedOf(self));
            return shapedOf(self).getRank();
          },
          "The rank; ValueError if unranked.")
      .def_property_readonly(
          "has_static_shape",
          [shapedOf](const PyType &self) {
            return shapedOf(self).hasStaticShape();
          },
          "Whether ranked with no dynamic dimension.")
      .def(
          "is_dynamic_dim",
          [shapedOf](const PyType &self, intptr_t dim) {
            ShapedType shaped = shapedOf(self);
            requireRank(shaped);
            if (dim < 0 || dim >= shaped.getRank())
              throw py::index_error("dimension out of range");
            return shaped.isDynamicDim(dim);
          },
          py::arg("dim"), "Whether dimension `dim` is dynamic.")
      .def(
          "is_static_dim",
          [shapedOf](const PyType &self, intptr_t dim) {
            ShapedType shaped = shapedOf(self);
            requireRank(shaped);
            if (dim < 0 || dim >= shaped.getRank())
              throw py::index_error("dimension out of range");
            return !shaped.isDynamicDim(dim);
          },
          py::arg("dim"), "Whether dimension `dim` is static.")
      .def(
          "get_dim_size",
          [shapedOf](const PyType &self, intptr_t dim) {
            ShapedType shaped = shapedOf(self);
            requireRank(shaped);
            if (dim < 0 || dim >= shaped.getRank())
              throw py::index_error("dimension out of range");
            return shaped.getDimSize(dim);
          },
          py::arg("dim"),
          "The size of dimension `dim` (dynamic: "
          "get_dynamic_size()).")
      .def_static(
          "is_dynamic_size",
          [](int64_t size) { return ShapedType::isDynamic(size); },
          py::arg("dim_size"), "Whether `dim_size` means dynamic.")
      .def_static(
          "is_static_size",
          [](int64_t size) { return ShapedType::isStatic(size); },
          py::arg("dim_size"), "Whether `dim_size` is a static size.")
      .def(
          "is_dynamic_stride_or_offset",
          [](const PyType &, int64_t value) {
            return ShapedType::isDynamic(value);
          },
          py::arg("dim_size"),
          "Whether `dim_size` is the dynamic stride/offset marker.")
      .def(
          "is_static_stride_or_offset",
          [](const PyType &, int64_t value) {
            return ShapedType::isStatic(value);
          },
          py::arg("dim_size"),
          "Whether `dim_size` is a static stride or offset.")
      .def_property_readonly(
          "shape",
          [shapedOf](const PyType &self) {
            ShapedType shaped = shapedOf(self);
            requireRank(shaped);
            return std::vector<int64_t>(shaped.getShape().begin(),
                                        shaped.getShape().end());
          },
          "The shape as a list of ints (dynamic: get_dynamic_size()).")
      .def_static(
          "get_dynamic_size", []() { return ShapedType::kDynamic; },
          "The size that marks a dynamic dimension.")
      .def_static(
          "get_dynamic_stride_or_offset", []() { return ShapedType::kDynamic; },
          "The value that marks a dynamic stride or offset.");

  defineConcreteType<PyVectorType, PyShapedType>(
      m, "VectorType", "vector<shape x element_type>, optionally scalable.",
      isaType<VectorType>, TypeID::get<VectorType>())
      .def_static(
          "get",
          [](std::vector<int64_t> shape, const PyType &elementType,
             std::optional<std::vector<bool>> scalable,
             std::optional<std::vector<int64_t>> scalableDims, py::object loc) {
            if (scalable && scalableDims)
              throw py::value_error("'scalable' and 'scalable_dims' kwargs "
                                    "are mutually exclusive.");
            std::vector<bool> flags(shape.size(), false);
            if (scalable) {
              if (scalable->size() != shape.size())
                throw py::value_error("Expected len(scalable) == len(shape).");
              flags = *scalable;
            }
            if (scalableDims)
              for (int64_t dim : *scalableDims) {
                if (dim < 0 || dim >= static_cast<int64_t>(shape.size()))
                  throw py::value_error("Scalable dimension index out of "
                                        "bounds.");
                flags[dim] = true;
              }
            PyMlirContext &ctx = contextOfLoc(loc, contextOfType(elementType));
            Location location = resolveDiagnosticLocation(loc, ctx);
            SmallVector<bool> scalableFlags(flags.begin(), flags.end());
            Type type = buildChecked(ctx.get(), "Invalid type", [&] {
              return VectorType::getChecked([&] { return emitError(location); },
                                            shape, elementType.type,
                                            scalableFlags);
            });
            return makeTyped<PyVectorType>(ctx, type);
          },
          py::arg("shape"), py::arg("element_type"), py::kw_only(),
          py::arg("scalable") = py::none(),
          py::arg("scalable_dims") = py::none(), py::arg("loc") = py::none(),
          "A vector type; MLIRError if the element type is not allowed.")
      .def_property_readonly(
          "scalable",
          [](const PyType &self) {
            return cast<VectorType>(self.type).isScalable();
          },
          "Whether any dimension is scalable.")
      .def_property_readonly(
          "scalable_dims",
          [](const PyType &self) {
            auto dims = cast<VectorType>(self.type).getScalableDims();
            return std::vector<bool>(dims.begin(), dims.end());
          },
          "One bool per dimension: whether it is scalable.")
      .def_property_readonly_static(
          "type_name", [](py::object) { return VectorType::name.str(); },
          "The type's registered name.");

  defineConcreteType<PyRankedTensorType, PyShapedType>(
      m, "RankedTensorType", "tensor<shape x element_type, encoding>.",
      isaType<RankedTensorType>, TypeID::get<RankedTensorType>())
      .def_static(
          "get",
          [](std::vector<int64_t> shape, const PyType &elementType,
             py::object encoding, py::object loc) {
            PyMlirContext &ctx = contextOfLoc(loc, contextOfType(elementType));
            Location location = resolveDiagnosticLocation(loc, ctx);
            Type type = buildChecked(ctx.get(), "Invalid type", [&] {
              return RankedTensorType::getChecked(
                  [&] { return emitError(location); }, shape, elementType.type,
                  optionalAttr(encoding));
            });
            return makeTyped<PyRankedTensorType>(ctx, type);
          },
          py::arg("shape"), py::arg("element_type"),
          py::arg("encoding") = py::none(), py::arg("loc") = py::none(),
          "A ranked tensor type; MLIRError if invalid.")
      .def_property_readonly(
          "encoding",
          [](const PyType &self) {
            return optionalAttrObject(
                contextOfType(self),
                cast<RankedTensorType>(self.type).getEncoding());
          },
          "The encoding attribute, or None.")
      .def_property_readonly_static(
          "type_name", [](py::object) { return RankedTensorType::name.str(); },
          "The type's registered name.");

  defineConcreteType<PyUnrankedTensorType, PyShapedType>(
      m, "UnrankedTensorType", "tensor<* x element_type>.",
      isaType<UnrankedTensorType>, TypeID::get<UnrankedTensorType>())
      .def_static(
          "get",
          [](const PyType &elementType, py::object loc) {
            PyMlirContext &ctx = contextOfLoc(loc, contextOfType(elementType));
            Location location = resolveDiagnosticLocation(loc, ctx);
            Type type = buildChecked(ctx.get(), "Invalid type", [&] {
              return UnrankedTensorType::getChecked(
                  [&] { return emitError(location); }, elementType.type);
            });
            return makeTyped<PyUnrankedTensorType>(ctx, type);
          },
          py::arg("element_type"), py::arg("loc") = py::none(),
          "An unranked tensor type; MLIRError if invalid.")
      .def_property_readonly_static(
          "type_name",
          [](py::object) { return UnrankedTensorType::name.str(); },
          "The type's registered name.");

  defineConcreteType<PyMemRefType, PyShapedType>(
      m, "MemRefType", "memref<shape x element_type, layout, memory_space>.",
      isaType<MemRefType>, TypeID::get<MemRefType>())
      .def_static(
          "get",
          [](std::vector<int64_t> shape, const PyType &elementType,
             py::object layout, py::object memorySpace, py::object loc) {
            PyMlirContext &ctx = contextOfLoc(loc, contextOfType(elementType));
            Location location = resolveDiagnosticLocation(loc, ctx);
            Attribute layoutAttr = optionalAttr(layout);
            // MLIR casts without a check (a StringAttr layout segfaulted).
            if (layoutAttr && !isa<MemRefLayoutAttrInterface>(layoutAttr))
              throw py::value_error(
                  "a memref layout must be an attribute with the memref "
                  "layout interface (an AffineMapAttr, a strided layout, "
                  "...), got " +
                  printToStr(layoutAttr));
            Type type = buildChecked(ctx.get(), "Invalid type", [&] {
              return MemRefType::getChecked(
                  [&] { return emitError(location); }, shape, elementType.type,
                  layoutAttr ? cast<MemRefLayoutAttrInterface>(layoutAttr)
                             : MemRefLayoutAttrInterface(),
                  optionalAttr(memorySpace));
            });
            return makeTyped<PyMemRefType>(ctx, type);
          },
          py::arg("shape"), py::arg("element_type"),
          py::arg("layout") = py::none(), py::arg("memory_space") = py::none(),
          py::arg("loc") = py::none(), "A memref type; MLIRError if invalid.")
      .def_property_readonly(
          "layout",
          [](const PyType &self) {
            return makeAttribute(contextOfType(self),
                                 cast<MemRefType>(self.type).getLayout());
          },
          "The layout attribute.")
      .def_property_readonly(
          "affine_map",
          [](const PyType &self) {
            return makeAffineMap(
                contextOfType(self),
                cast<MemRefType>(self.type).getLayout().getAffineMap());
          },
          "The layout as an AffineMap.")
      .def_property_readonly(
          "memory_space",
          [](const PyType &self) {
            return optionalAttrObject(
                contextOfType(self),
                cast<MemRefType>(self.type).getMemorySpace());
          },
          "The memory space attribute, or None.")
      .def(
          "get_strides_and_offset",
          [](const PyType &self) {
            SmallVector<int64_t> strides;
            int64_t offset;
            if (failed(cast<MemRefType>(self.type).getStridesAndOffset(strides,
                                                                       offset)))
              throw py::value_error("Failed to extract strides and offset "
                                    "from memref.");
            return py::make_tuple(
                std::vector<int64_t>(strides.begin(), strides.end()), offset);
          },
          "(strides, offset) of a strided layout; ValueError otherwise.")
      .def_property_readonly_static(
          "type_name", [](py::object) { return MemRefType::name.str(); },
          "The type's registered name.");

  defineConcreteType<PyUnrankedMemRefType, PyShapedType>(
      m, "UnrankedMemRefType", "memref<* x element_type, memory_space>.",
      isaType<UnrankedMemRefType>, TypeID::get<UnrankedMemRefType>())
      .def_static(
          "get",
          [](const PyType &elementType, py::object memorySpace,
             py::object loc) {
            PyMlirContext &ctx = contextOfLoc(loc, contextOfType(elementType));
            Location location = resolveDiagnosticLocation(loc, ctx);
            Type type = buildChecked(ctx.get(), "Invalid type", [&] {
              return UnrankedMemRefType::getChecked(
                  [&] { return emitError(location); }, elementType.type,
                  optionalAttr(memorySpace));
            });
            return makeTyped<PyUnrankedMemRefType>(ctx, type);
          },
          py::arg("element_type"), py::arg("memory_space"),
          py::arg("loc") = py::none(),
          "An unranked memref type; MLIRError if invalid.")
      .def_property_readonly(
          "memory_space",
          [](const PyType &self) {
            return optionalAttrObject(
                contextOfType(self),
                cast<UnrankedMemRefType>(self.type).getMemorySpace());
          },
          "The memory space attribute, or None.")
      .def_property_readonly_static(
          "type_name",
          [](py::object) { return UnrankedMemRefType::name.str(); },
          "The type's registered name.");
}
} // namespace

void mlir::tracking::python::populateIRTypes(py::module_ &m) {
  populateTypeID(m);
  populateScalarTypes(m);
  populateShapedTypes(m);
}
