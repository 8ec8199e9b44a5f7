//===- Downcast.h - Typed Type/Attribute subclasses and downcasting -*- C++
//-*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Upstream `mlir.ir` returns every Type and Attribute as its most specific
// Python class (`IntegerType`, `IntegerAttr`, ...). This file has the
// registries that map an MLIR TypeID to the "caster" building that class,
// and the template that defines a concrete subclass (casting constructor,
// `isinstance`, `static_typeid`, `repr`) and registers its caster.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_PYTHON_DOWNCAST_H
#define MLIR_TRACKING_PYTHON_DOWNCAST_H

#include "IRObjects.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/Support/TypeID.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace mlir::tracking {
namespace __attribute__((visibility("hidden"))) python {

  /// `ir.TypeID`.
  struct PyTypeID {
    TypeID typeID;
  };

  /// Registers `caster` (a callable taking the base `ir.Type` and returning
  /// the object to hand out) for types of `typeID`. Throws if one is
  /// registered and `replace` is false.
  void registerTypeCaster(TypeID typeID, py::object caster, bool replace);
  void registerAttributeCaster(TypeID typeID, py::object caster, bool replace);

  /// The most specific Python object for `type` / `attribute` (used by
  /// makeType / makeAttribute, so by everything that returns one).
  py::object downcastType(PyMlirContext & context, Type type);
  py::object downcastAttribute(PyMlirContext & context, Attribute attribute);

  /// The `context` (a Context object) as the C++ context.
  inline PyMlirContext &pyContextOf(const py::object &context) {
    return context.cast<PyMlirContext &>();
  }

  template <typename T> std::string printToStr(const T &object) {
    std::string text;
    llvm::raw_string_ostream os(text);
    object.print(os);
    return text;
  }

  /// Defines `Derived` (a struct deriving from PyType with no data of its
  /// own) as the Python class `name` deriving from `Base`'s class: the
  /// casting constructor `Name(type)` (ValueError on a mismatch, as
  /// upstream), `isinstance`, `static_typeid` (AttributeError for the
  /// abstract bases), `typeid`, `repr` "Name(<type>)", and the caster that
  /// makes returned types of `typeID` this class.
  template <typename Derived, typename Base, typename IsA>
  py::class_<Derived, Base> defineConcreteType(
      py::module_ & m, const char *name, const char *doc, IsA isa,
      std::optional<TypeID> typeID) {
    static_assert(std::is_base_of_v<PyType, Derived>);
    std::string className = name;
    py::class_<Derived, Base> cls(m, name, doc);
    cls.def(py::init([isa, className](const PyType &other) {
              if (!isa(other.type))
                throw py::value_error(
                    "Cannot cast type to " + className + " (from " +
                    py::repr(py::cast(other)).cast<std::string>() + ")");
              Derived result;
              static_cast<PyType &>(result) = other;
              return result;
            }),
            py::arg("cast_from_type"),
            "Casts a Type to this class; ValueError if it is not one.");
    cls.def_static(
        "isinstance",
        [isa](const py::object &other) {
          return py::isinstance<PyType>(other) &&
                 isa(other.cast<PyType &>().type);
        },
        py::arg("other"), "Whether `other` is a Type of this class.");
    cls.def_property_readonly_static(
        "static_typeid",
        [typeID, className](py::object) {
          if (!typeID)
            throw py::attribute_error(className + " has no typeid.");
          return PyTypeID{*typeID};
        },
        "The TypeID of this class's types.");
    cls.def(
        "__repr__",
        [className](const PyType &self) {
          return className + "(" + printToStr(self.type) + ")";
        },
        "Name(<type>), as upstream.");
    if (typeID)
      registerTypeCaster(*typeID, py::cpp_function([](const PyType &base) {
        Derived result;
        static_cast<PyType &>(result) = base;
        return result;
      }),
                         /*replace=*/true);
    return cls;
  }

  /// The attribute counterpart of defineConcreteType.
  template <typename Derived, typename Base, typename IsA>
  py::class_<Derived, Base> defineConcreteAttribute(
      py::module_ & m, const char *name, const char *doc, IsA isa,
      std::optional<TypeID> typeID, bool bufferProtocol = false) {
    static_assert(std::is_base_of_v<PyAttribute, Derived>);
    std::string className = name;
    py::class_<Derived, Base> cls =
        bufferProtocol
            ? py::class_<Derived, Base>(m, name, doc, py::buffer_protocol())
            : py::class_<Derived, Base>(m, name, doc);
    cls.def(py::init([isa, className](const PyAttribute &other) {
              if (!isa(other.attribute))
                throw py::value_error(
                    "Cannot cast attribute to " + className + " (from " +
                    py::repr(py::cast(other)).cast<std::string>() + ")");
              Derived result;
              static_cast<PyAttribute &>(result) = other;
              return result;
            }),
            py::arg("cast_from_attr"),
            "Casts an Attribute to this class; ValueError if it is not one.");
    cls.def_static(
        "isinstance",
        [isa](const py::object &other) {
          return py::isinstance<PyAttribute>(other) &&
                 isa(other.cast<PyAttribute &>().attribute);
        },
        py::arg("other"), "Whether `other` is an Attribute of this class.");
    cls.def_property_readonly_static(
        "static_typeid",
        [typeID, className](py::object) {
          if (!typeID)
            throw py::attribute_error(className + " has no typeid.");
          return PyTypeID{*typeID};
        },
        "The TypeID of this class's attributes.");
    cls.def(
        "__repr__",
        [className](const PyAttribute &self) {
          return className + "(" + printToStr(self.attribute) + ")";
        },
        "Name(<attribute>), as upstream.");
    if (typeID)
      registerAttributeCaster(*typeID,
                              py::cpp_function([](const PyAttribute &base) {
                                Derived result;
                                static_cast<PyAttribute &>(result) = base;
                                return result;
                              }),
                              /*replace=*/true);
    return cls;
  }

  /// Builds the Python object of class `Derived` for `type` (for `get`s).
  template <typename Derived>
  py::object makeTyped(PyMlirContext & context, Type type) {
    Derived result;
    result.context = context.getObject();
    result.type = type;
    return py::cast(std::move(result));
  }
  template <typename Derived>
  py::object makeTypedAttr(PyMlirContext & context, Attribute attribute) {
    Derived result;
    result.context = context.getObject();
    result.attribute = attribute;
    return py::cast(std::move(result));
  }

  /// `ir.AffineMap` for `map` (defined in IRAffine.cpp).
  py::object makeAffineMap(PyMlirContext & context, AffineMap map);

  void populateIRTypes(py::module_ & m);
  void populateIRAttributes(py::module_ & m);
  void populateIRAffine(py::module_ & m);

} // namespace python
} // namespace mlir::tracking

#endif // MLIR_TRACKING_PYTHON_DOWNCAST_H
