//===- IRObjects.h - Python objects reached through operations --*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Value-like wrappers (Location, Type, Attribute) hold their context. The
// structural ones (Block, Region, Value, the lists and the attribute map)
// hold a Python Operation (the one they were reached through; for a Block
// or Value, an op of the tree its block or value is in now) and check, on
// every access, the run guard on that op's tree and that what they refer to
// still exists (a handle), so they never touch freed IR.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_PYTHON_IROBJECTS_H
#define MLIR_TRACKING_PYTHON_IROBJECTS_H

#include "Core.h"
#include "RunGuard.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/Region.h"
#include "mlir/IR/Types.h"
#include "mlir/IR/Value.h"
#include "mlir/Tracking/BlockValueRegistry.h"

namespace mlir::tracking {
// Internal to the extension: hidden like pybind11's own types, whose
// objects these classes hold.
namespace __attribute__((visibility("hidden"))) python {

  /// `ir.Location`.
  struct PyLocation {
    py::object context;
    Location location;
  };

  /// `ir.Type`.
  struct PyType {
    py::object context;
    Type type;
  };

  /// `ir.Attribute`.
  struct PyAttribute {
    py::object context;
    Attribute attribute;
  };

  /// `ir.NamedAttribute`.
  struct PyNamedAttribute {
    std::string name;
    py::object attr;
  };

  py::object makeLocation(PyMlirContext & context, Location location);
  py::object makeType(PyMlirContext & context, Type type);
  py::object makeAttribute(PyMlirContext & context, Attribute attribute);
  /// The location of the `loc=` argument or the current one (upstream's
  /// DefaultingPyLocation): for what IR records (ops, block arguments).
  /// Without either, upstream's RuntimeError.
  Location resolveLocation(const py::object &loc, PyMlirContext &context);
  /// The same, or unknown without either: for a location that only
  /// diagnostics use (the checked getters of types and attributes), which
  /// upstream also requires but which never reaches the IR.
  Location resolveDiagnosticLocation(const py::object &loc,
                                     PyMlirContext &context);
  /// The location of an op built from Python (Operation.create, the
  /// OpView builders, Module.create): `loc=`, else the Python call stack when
  /// traceback locations are enabled (upstream's maybeGetTracebackLocation),
  /// else as resolveLocation.
  Location resolveOpLocation(const py::object &loc, PyMlirContext &context);
  /// The location of the Python frames of the current thread (Tracebacks.cpp).
  Location tracebackLocation(MLIRContext * context);
  /// The traceback functions of `_cext.globals`.
  void populateTracebackGlobals(py::module_ & globals);

  /// `ir.Module`: a view of a `builtin.module` operation.
  struct PyModule {
    /// `operation` is the module's Operation; counts the live modules of
    /// its context (Context._get_live_module_count).
    explicit PyModule(py::object operation);
    /// A copy is never the registered object (`registered` stays false).
    PyModule(const PyModule &other);
    /// Would make the registered object view another op.
    PyModule &operator=(const PyModule &) = delete;
    ~PyModule();
    /// The Python Module of the Operation object `operation` (a module op):
    /// the live one if there is one (PyMlirContext::liveModules), else a
    /// new one, registered there until it dies.
    static py::object get(py::object operation);
    py::object operation;
    /// Whether this is the object PyMlirContext::liveModules names.
    bool registered = false;
    PyOperation &getOperation() const {
      return operation.cast<PyOperation &>();
    }
  };

  /// `ir.Region`: region `index` of the op `operation` refers to. Regions
  /// are addressed through the op's handle, never by address, so a Region
  /// never aliases a region of another op.
  struct PyRegion {
    py::object operation;
    unsigned index;
    Region *get() const;
  };

  /// `ir.Block`: a tracked block (BlockHandle). `operation` is an op of the
  /// tree the block is in: it keeps that IR and the context alive, and the
  /// run guard is checked on its tree. It is the block's parent op when the
  /// object is made; when the block may have left that op's tree since
  /// (the tree's RootOwner::epoch changed), the next access re-finds the
  /// block's parent op.
  struct PyBlock {
    mutable py::object operation;
    BlockHandle handle;
    /// The epoch of the tree of `operation` when that op was last known to
    /// be in the block's tree.
    mutable uint64_t anchorEpoch = 0;
    /// The block, or throws if it was erased or invalidated, or
    /// IRInUseException if a run in another thread holds its IR.
    Block *get() const;
    PyMlirContext &getContext() const;
    /// The Block of `block`, reached through `operation`.
    static PyBlock make(py::object operation, Block *block);
    /// The Block of `block` (reached through its parent op).
    static py::object create(PyMlirContext &context, Block *block);
  };

  /// `ir.Value` and its subclasses `ir.OpResult` and `ir.BlockArgument`: a
  /// tracked SSA value (ValueHandle) that follows its replacements. The
  /// subclass says what the value was when the object was made.
  /// `keepAlive` is the op that defines it (or whose region holds its
  /// block): it keeps the IR and the context alive, and the run guard is
  /// checked on its tree. Re-found as for PyBlock when the value may have
  /// left that op's tree (a rewrite replaced it by a value of another op,
  /// or its block moved).
  struct PyValue {
    mutable py::object keepAlive;
    ValueHandle handle;
    /// As PyBlock::anchorEpoch.
    mutable uint64_t anchorEpoch = 0;
    /// The value, or throws if it was erased or invalidated.
    Value get() const;
    PyMlirContext &getContext() const;
    static py::object create(PyMlirContext &context, Value value);
  };
  struct PyOpResult : PyValue {};
  struct PyBlockArgument : PyValue {};

  /// `ir.OpOperand`: operand `number` of an operation.
  struct PyOpOperand {
    py::object operation;
    unsigned number;
  };

  /// The part of a list a sliced view shows (upstream's `Sliceable`):
  /// element i of the view is element `start + i * step` of the whole list.
  /// `length` -1 is the whole list, whatever its current size.
  struct SliceSpec {
    intptr_t start = 0;
    intptr_t length = -1;
    intptr_t step = 1;
  };

  /// The list-like views. The sliceable ones (as upstream: operands,
  /// results, block arguments, regions) carry a SliceSpec.
  struct PyOperationList {
    py::object block;
  };
  struct PyBlockArgumentList {
    py::object block;
    SliceSpec slice;
  };
  struct PyRegionSequence {
    py::object operation;
    SliceSpec slice;
  };
  struct PyBlockList {
    py::object region;
  };
  struct PyOpOperandList {
    py::object operation;
    SliceSpec slice;
  };
  struct PyOpResultList {
    py::object operation;
    SliceSpec slice;
  };
  /// `ir.BlockSuccessors` / `ir.BlockPredecessors`: the successors of a
  /// block's terminator and the blocks branching to it (sliceable views).
  struct PyBlockSuccessors {
    py::object block;
    SliceSpec slice;
  };
  struct PyBlockPredecessors {
    py::object block;
    SliceSpec slice;
  };
  /// `ir.OpSuccessors`: the successor blocks of an operation.
  struct PyOpSuccessors {
    py::object operation;
    SliceSpec slice;
  };
  struct PyOpAttributeMap {
    py::object operation;
  };

  /// `ir.InsertionPoint`: before `refOperation`, or at the end of `block` when
  /// `refOperation` is None.
  struct PyInsertionPoint {
    py::object block;
    py::object refOperation;
    /// Inserts the detached op `operation` here.
    void insert(PyOperation &operation) const;
  };

  /// Inserts `op` (a detached op) at the current or given insertion point:
  /// `ip` None means the current one if any; returns true if inserted.
  bool maybeInsert(PyOperation & operation, const py::object &ip);

  /// What a `_CAPIPtr` capsule of an op or value made by this package
  /// carries as its context: a copy of the op's or value's handle, so that
  /// `_CAPICreate` of one whose op or value was erased or replaced since
  /// raises instead of reading freed IR (or other IR at a reused address).
  /// A capsule made by other code carries only the pointer, which is taken
  /// as it is (as upstream).
  template <typename Handle> struct TrackedCapsuleToken {
    Handle handle;
    /// Looked up (never read) to refuse the capsule while a run is in
    /// progress there, before anything reads the op or value.
    MLIRContext *context;

    static void destroy(PyObject *capsule) {
      delete static_cast<TrackedCapsuleToken *>(PyCapsule_GetContext(capsule));
    }

    /// A capsule of `pointer` named `name` that carries `handle`.
    static py::object makeCapsule(void *pointer, const char *name,
                                  Handle handle, MLIRContext *context) {
      auto capsule = py::reinterpret_steal<py::object>(
          PyCapsule_New(pointer, name, destroy));
      if (!capsule)
        throw py::error_already_set();
      auto token = std::make_unique<TrackedCapsuleToken>(
          TrackedCapsuleToken{std::move(handle), context});
      if (PyCapsule_SetContext(capsule.ptr(), token.get()) != 0)
        throw py::error_already_set();
      token.release();
      return capsule;
    }

    /// The token `capsule` carries, or null if this package did not make
    /// it. Raises IRInUse while a run is in progress in the token's
    /// context (`what` names the call).
    static const TrackedCapsuleToken *lookup(const py::object &capsule,
                                             const char *what) {
      if (PyCapsule_GetDestructor(capsule.ptr()) != destroy)
        return nullptr;
      const auto *token = static_cast<const TrackedCapsuleToken *>(
          PyCapsule_GetContext(capsule.ptr()));
      if (token)
        if (PyMlirContext *context = PyMlirContext::lookup(token->context))
          checkNoRunIn(*context, what);
      return token;
    }
  };

  /// The `_CAPIPtr` capsule of `pointer`, the MLIRContext of `context` or an
  /// object uniqued in it (a type, an attribute, a location, an affine
  /// expression, map or set). The
  /// capsule holds `context` (the Python Context), so the MLIRContext lives
  /// as long as the capsule and `_CAPICreate` of it never reads a freed
  /// uniquer.
  py::object makeUniquedCapsule(const void *pointer, const char *name,
                                const py::object &context);

} // namespace python
} // namespace mlir::tracking

#endif // MLIR_TRACKING_PYTHON_IROBJECTS_H
