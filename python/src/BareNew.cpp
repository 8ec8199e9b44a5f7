//===- BareNew.cpp - Refuse `X.__new__(X)` on the extension's classes -----===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// pybind11 lets Python make an instance without running `__init__`
// (`ir.Operation.__new__(ir.Operation)`, also what `copy.copy` and pickle
// do); the first method called on it then gets uninitialized storage (its
// type caster allocates the C++ object lazily and never constructs it), and
// reading a `Type`, an `OpHandle` or a `py::object` from it crashes the
// interpreter. Every class of this extension therefore gets a `tp_new` of
// its own: `X(...)` calls it directly and works as before, while
// `X.__new__(X)` goes through `object.__new__`'s safety check, which refuses
// a type whose `tp_new` is not its base's and raises TypeError. Python
// subclasses inherit the slot, so they are constructed as usual.
//
//===----------------------------------------------------------------------===//

#include "Core.h"
#include "OpView.h"

#include <pybind11/detail/class.h>

using namespace mlir::tracking::python;

namespace {
/// pybind11's allocation, under another address than pybind11_object's.
extern "C" PyObject *trackingObjectNew(PyTypeObject *type, PyObject *args,
                                       PyObject *kwargs) {
  return py::detail::pybind11_object_new(type, args, kwargs);
}

void guardClass(py::handle cls, py::handle opView,
                llvm::SmallPtrSetImpl<PyObject *> &seen) {
  if (!PyType_Check(cls.ptr()) || !seen.insert(cls.ptr()).second)
    return;
  auto *type = reinterpret_cast<PyTypeObject *>(cls.ptr());
  // OpView handles bare instances itself (its storage is zeroed and every
  // method checks it); generated dialect classes derive from it.
  if (PyObject_IsSubclass(cls.ptr(), opView.ptr()) == 1)
    return;
  // Only ours: a module may hold another extension's class.
  std::string module = py::str(cls.attr("__module__"));
  if (!llvm::StringRef(module).starts_with("mlir_tracking"))
    return;
  if (type->tp_new == py::detail::pybind11_object_new) {
    type->tp_new = trackingObjectNew;
    PyType_Modified(type);
  }
  // Classes nested in classes (enums, iterators).
  py::dict members = py::reinterpret_borrow<py::dict>(type->tp_dict);
  for (auto item : members)
    if (PyType_Check(item.second.ptr()))
      guardClass(item.second, opView, seen);
}

void guardModule(py::module_ module, py::handle opView,
                 llvm::SmallPtrSetImpl<PyObject *> &seen) {
  for (auto item : py::reinterpret_borrow<py::dict>(module.attr("__dict__"))) {
    if (PyType_Check(item.second.ptr()))
      guardClass(item.second, opView, seen);
    else if (PyModule_Check(item.second.ptr()) &&
             seen.insert(item.second.ptr()).second)
      guardModule(py::reinterpret_borrow<py::module_>(item.second), opView,
                  seen);
  }
}
} // namespace

void mlir::tracking::python::refuseBareNew(py::module_ &root) {
  llvm::SmallPtrSet<PyObject *, 32> seen;
  guardModule(root, root.attr("ir").attr("OpView"), seen);
}
