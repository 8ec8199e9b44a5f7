//===- OpView.h - ir.OpView and the dialect class registry ------*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// `ir.OpView` is a typed view of a tracked `ir.Operation`: the classes that
// mlir-tblgen-22 -gen-python-op-bindings generates derive from it and
// register themselves by operation name (`_cext.register_operation`). Every
// place of the API that returns an op as upstream's `createOpView` does goes
// through `createOpView` here, which returns an instance of the registered
// class for the op's current name.
//
// Identity: a view holds its Operation (so it keeps the handle and the IR
// alive). While a view of an op is alive, `createOpView` returns that same
// view object if its class is still the one registered for the op's name, so
// `block.operations[0] is block.operations[0]` holds for views as it does for
// operations (upstream makes a new view object each time).
//
// A view whose op was replaced by an op of another name (its handle followed
// the replacement) keeps its Python class; that class's accessors, written
// for the old op, then raise TypeError instead of reading the new op, and
// `view.opview` gives a view of the new op (see `PyOpView::fitsOp`).
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_PYTHON_OPVIEW_H
#define MLIR_TRACKING_PYTHON_OPVIEW_H

#include "Core.h"

#include <cstring>

namespace mlir::tracking {
namespace __attribute__((visibility("hidden"))) python {

  /// The C++ side of `ir.OpView`.
  class PyOpView {
  public:
    explicit PyOpView(py::object operation);
    ~PyOpView();
    PyOpView(const PyOpView &) = delete;
    PyOpView &operator=(const PyOpView &) = delete;

    /// The wrapped Operation; TypeError on a view that was never
    /// initialized.
    PyOperation &getOperation() const {
      return getOperationObject().cast<PyOperation &>();
    }
    py::object getOperationObject() const {
      if (!operation)
        throw py::type_error(kNotInitialized);
      return operation;
    }
    static constexpr const char *kNotInitialized =
        "this OpView was never initialized (call OpView.__init__ with an "
        "Operation)";

    /// Zeroed storage: on an instance made by `OpView.__new__` alone,
    /// pybind11 allocates the C++ object without constructing it when a
    /// method is called; zeroed, it reads as "not initialized" instead of
    /// garbage.
    static void *operator new(size_t size) {
      void *storage = ::operator new(size);
      std::memset(storage, 0, size);
      return storage;
    }
    static void operator delete(void *storage) { ::operator delete(storage); }

    /// The op if it can be read now, else nullptr (the view was never
    /// initialized, its handle is not live, or a run holds its IR); never
    /// throws. What then reads the op raises the handle's error.
    Operation *tryGet() const;

    /// Whether `op` (the view's op, from tryGet) has the name this view saw
    /// when it was made or last found to fit its class. A pointer compare.
    bool hasViewedName(Operation *op) const {
      return op->getName().getAsOpaquePointer() == viewedName;
    }

    /// For `op`, the view's op, when it has another name than the view saw
    /// (it followed a replacement): whether `cls`, the view's class, still
    /// describes it. It does when `cls` has no OPERATION_NAME (plain OpView,
    /// classes that do not name an op), when that is `op`'s name, and when
    /// `cls` is the class registered for `op`'s name (one class registered
    /// for several names); the view then remembers the name. Otherwise the
    /// view is stale: its class's accessors were written for another op.
    /// May run Python code (the registry lookup may import a dialect
    /// module): reads `op` only before that.
    bool fitsOp(py::handle cls, Operation *op);

    /// The name this view saw ("" if none: the op could not be read when the
    /// view was made).
    std::string getViewedName() const;

  private:
    py::object operation;
    /// The PyOperation of `operation` (which owns it).
    PyOperation *operationPtr = nullptr;
    /// The op's name (OperationName's opaque pointer) when this view was
    /// made or last found to fit its class (fitsOp); null if it could not be
    /// read then.
    const void *viewedName = nullptr;
  };

  /// The view of `operation` (an `ir.Operation` object): the live cached view
  /// if it has the registered class of the op's name, else a new instance of
  /// that class (plain `ir.OpView` if none is registered). Raises
  /// InvalidatedHandleError if the handle is not live.
  py::object createOpView(const py::object &operation);

  /// The Operation wrapped by `object` if it is an `ir.OpView`, else nullptr.
  PyOperation *unwrapOpView(const py::handle &object);

  /// Upstream's loadDialectModule: imports `<prefix>.<dialect>` from the
  /// first of `globals.dialect_search_modules` that has it, once (a
  /// namespace none has is retried only when the search modules change).
  /// True if a module for `dialect` was imported, now or before.
  bool loadDialectModule(const std::string &dialect);

  /// Fills `state.types` through the op's InferTypeOpInterface, as
  /// `build_generic` does for `results=None`: `ValueError` for an op that is
  /// not registered or does not implement the interface, `MLIRError` with
  /// the diagnostics when its operands or attributes do not satisfy its
  /// constraints or inference fails. `ip` is where the op will be inserted
  /// (an InsertionPoint, None for the current one, False for none).
  void inferCreatedResultTypes(OperationState & state, const py::object &ip);

  /// The registered Python class for dialect `dialectNamespace` / operation
  /// `operationName`, or None.
  py::object lookupDialectClass(const std::string &dialectNamespace);
  py::object lookupOperationClass(const std::string &operationName);

  /// Defines `OpView`, `Dialect`, `AttrBuilder` and `Operation.opview` in
  /// `ir`, and `register_dialect`, `register_operation` and `globals` in the
  /// extension module `m`.
  void populateOpView(py::module_ & m, py::module_ & ir);

  /// Defines `_linalg_fill_structured_region` in `m` (StructuredOps.cpp).
  void populateStructuredOpHelpers(py::module_ & m);

} // namespace python
} // namespace mlir::tracking

#endif // MLIR_TRACKING_PYTHON_OPVIEW_H
