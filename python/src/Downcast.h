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
#include <functional>

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

  /// What defineConcrete needs to know about types and attributes.
  template <typename Wrapper> struct ConcreteKind;
  template <> struct ConcreteKind<PyType> {
    static constexpr const char *lower = "type";
    static constexpr const char *castDoc =
        "Casts a Type to this class; ValueError if it is not one.";
    static constexpr const char *isinstanceDoc =
        "Whether `other` is a Type of this class.";
    static constexpr const char *castArg = "cast_from_type";
    static Type get(const PyType &wrapper) { return wrapper.type; }
    static void registerCaster(TypeID typeID, py::object caster) {
      registerTypeCaster(typeID, std::move(caster), /*replace=*/true);
    }
  };
  template <> struct ConcreteKind<PyAttribute> {
    static constexpr const char *lower = "attribute";
    static constexpr const char *castDoc =
        "Casts an Attribute to this class; ValueError if it is not one.";
    static constexpr const char *isinstanceDoc =
        "Whether `other` is an Attribute of this class.";
    static constexpr const char *castArg = "cast_from_attr";
    static Attribute get(const PyAttribute &wrapper) {
      return wrapper.attribute;
    }
    static void registerCaster(TypeID typeID, py::object caster) {
      registerAttributeCaster(typeID, std::move(caster), /*replace=*/true);
    }
  };

  /// Defines `Derived` (a struct deriving from `Wrapper`, PyType or
  /// PyAttribute, with no data of its own) as the Python class `name`
  /// deriving from `Base`'s class: the casting constructor `Name(type)`
  /// (ValueError on a mismatch, as upstream), `isinstance`, `static_typeid`
  /// (AttributeError for the abstract bases), `repr` "Name(<type>)", and the
  /// caster that makes returned objects of `typeID` this class.
  /// Notes `cls`, a concrete class whose objects `accepts`:
  /// guardConcreteClassMethods makes its methods refuse other objects.
  void noteConcreteClass(py::handle cls,
                         std::function<bool(py::handle)> accepts);
  /// Wraps the methods and properties of every noted class so that `self`
  /// must be an object the class accepts (TypeError otherwise, as upstream's
  /// classes, whose methods take their own class): they cast `self`'s type
  /// or attribute to their kind unchecked, and `StringAttr.value.fget(an
  /// IntegerAttr)` read another kind's storage. Called once every class is
  /// defined and has its methods.
  void guardConcreteClassMethods();

  template <typename Wrapper, typename Derived, typename Base, typename IsA>
  py::class_<Derived, Base> defineConcrete(py::class_<Derived, Base> cls,
                                           const char *name, IsA isa,
                                           std::optional<TypeID> typeID) {
    static_assert(std::is_base_of_v<Wrapper, Derived>);
    using Kind = ConcreteKind<Wrapper>;
    std::string className = name;
    noteConcreteClass(cls, [isa](py::handle object) {
      return py::isinstance<Wrapper>(object) &&
             isa(Kind::get(object.cast<Wrapper &>()));
    });
    cls.def(py::init([isa, className](const Wrapper &other) {
              if (!isa(Kind::get(other)))
                throw py::value_error(
                    std::string("Cannot cast ") + Kind::lower + " to " +
                    className + " (from " +
                    py::repr(py::cast(other)).template cast<std::string>() +
                    ")");
              Derived result;
              static_cast<Wrapper &>(result) = other;
              return result;
            }),
            py::arg(Kind::castArg), Kind::castDoc);
    cls.def_static(
        "isinstance",
        [isa](const py::object &other) {
          return py::isinstance<Wrapper>(other) &&
                 isa(Kind::get(other.cast<Wrapper &>()));
        },
        py::arg("other"), Kind::isinstanceDoc);
    cls.def_property_readonly_static(
        "static_typeid",
        [typeID, className](py::object) {
          if (!typeID)
            throw py::attribute_error(className + " has no typeid.");
          return PyTypeID{*typeID};
        },
        "The TypeID of the objects of this class.");
    cls.def(
        "__repr__",
        [className](const Wrapper &self) {
          return className + "(" + printToStr(Kind::get(self)) + ")";
        },
        "Name(<object>), as upstream.");
    if (typeID)
      Kind::registerCaster(*typeID, py::cpp_function([](const Wrapper &base) {
        Derived result;
        static_cast<Wrapper &>(result) = base;
        return result;
      }));
    return cls;
  }

  /// defineConcrete for a type class.
  template <typename Derived, typename Base, typename IsA>
  py::class_<Derived, Base> defineConcreteType(
      py::module_ & m, const char *name, const char *doc, IsA isa,
      std::optional<TypeID> typeID) {
    return defineConcrete<PyType>(py::class_<Derived, Base>(m, name, doc), name,
                                  isa, typeID);
  }

  /// defineConcrete for an attribute class (`bufferProtocol` for the dense
  /// elements classes).
  template <typename Derived, typename Base, typename IsA>
  py::class_<Derived, Base> defineConcreteAttribute(
      py::module_ & m, const char *name, const char *doc, IsA isa,
      std::optional<TypeID> typeID, bool bufferProtocol = false) {
    return defineConcrete<PyAttribute>(
        bufferProtocol
            ? py::class_<Derived, Base>(m, name, doc, py::buffer_protocol())
            : py::class_<Derived, Base>(m, name, doc),
        name, isa, typeID);
  }

  /// Throws ValueError unless `type` (or `attribute`, locations included),
  /// about to become a Python object of `context`, and every type and
  /// attribute nested in it are of `context`. A getter given objects of two
  /// contexts (`FunctionType.get([a type of c2], [], context=c1)`,
  /// `ArrayAttr.get([an attribute of c2], context=c1)`) makes an object of
  /// one that points into the other: after the other context is freed,
  /// printing or using it reads freed memory. Free while only one context
  /// exists (the common case); else a walk of the nested elements.
  void checkContextOf(PyMlirContext & context, Type type);
  void checkContextOf(PyMlirContext & context, Attribute attribute);

  /// Builds the Python object of class `Derived` for `type` (for `get`s).
  template <typename Derived>
  py::object makeTyped(PyMlirContext & context, Type type) {
    checkContextOf(context, type);
    Derived result;
    result.context = context.getObject();
    result.type = type;
    return py::cast(std::move(result));
  }
  template <typename Derived>
  py::object makeTypedAttr(PyMlirContext & context, Attribute attribute) {
    checkContextOf(context, attribute);
    Derived result;
    result.context = context.getObject();
    result.attribute = attribute;
    return py::cast(std::move(result));
  }

  /// `ir.AffineMap` for `map` (defined in IRAffine.cpp).
  py::object makeAffineMap(PyMlirContext & context, AffineMap map);
  /// The map of `object` (an `ir.AffineMap`, or None for a null map), an
  /// argument named `what`: TypeError for another kind of object,
  /// ValueError for a map of another context than `context`.
  AffineMap affineMapArg(PyMlirContext & context, const py::handle &object,
                         const char *what);

  void populateIRTypes(py::module_ & m);
  /// dialects.llvm's StructType and PointerType (LLVMTypes.cpp).
  void populateLLVMTypes(py::module_ & m);
  /// dialects.gpu's ObjectAttr (GPUAttributes.cpp).
  void populateGPUAttributes(py::module_ & m);
  /// dialects.smt's BoolType, IntType, BitVectorType and export_smtlib
  /// (SMT.cpp).
  void populateSMT(py::module_ & m);
  /// dialects.nvgpu's TensorMapDescriptorType (NVGPUTypes.cpp).
  void populateNVGPUTypes(py::module_ & m);
  /// dialects.irdl's load_dialects (IRDL.cpp).
  void populateIRDL(py::module_ & m);
  /// dialects.sparse_tensor's EncodingAttr, LevelFormat and LevelProperty
  /// (SparseTensorAttributes.cpp).
  void populateSparseTensorAttributes(py::module_ & m);
  /// dialects.quant's quantized types (QuantDialectTypes.cpp).
  void populateQuantTypes(py::module_ & m);
  void populateIRAttributes(py::module_ & m);
  void populateIRAffine(py::module_ & m);

} // namespace python
} // namespace mlir::tracking

#endif // MLIR_TRACKING_PYTHON_DOWNCAST_H
