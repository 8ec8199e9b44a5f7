//===- IRCore.cpp - Context, Location, Type, Attribute, Module, Operation -===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "Downcast.h"
#include "IRCompat.h"
#include "IRObjects.h"
#include "Mutation.h"
#include "OpView.h"
#include "RunGuard.h"
#include "Walk.h"

#include "mlir-c/Bindings/Python/Interop.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/CAPI/IR.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/stl.h>

#include <optional>

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::python;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

namespace {
template <typename T> std::string printToString(T &&object) {
  std::string text;
  llvm::raw_string_ostream os(text);
  object.print(os);
  return text;
}

void *unwrapCapsule(const py::object &capsule, const char *name) {
  void *pointer = PyCapsule_GetPointer(capsule.ptr(), name);
  if (!pointer)
    throw py::error_already_set();
  return pointer;
}

// Capsules of ops made here (`Operation._CAPIPtr`, `Module._CAPIPtr`) carry
// the op's handle (TrackedCapsuleToken, IRObjects.h).

using OpCapsuleToken = TrackedCapsuleToken<OpHandle>;

py::object makeOpCapsule(const PyOperation &op, void *pointer,
                         const char *name) {
  return OpCapsuleToken::makeCapsule(pointer, name, op.getHandle(),
                                     op.getContext().get());
}

/// The op of a capsule of `name` (an Operation or a Module). If this package
/// made the capsule: IRInUse error while a run is in progress in its
/// context, InvalidatedHandle error if its op is no longer the one it was
/// made for. `what` names the call.
Operation *unwrapOpCapsule(const py::object &capsule, const char *name,
                           const char *what) {
  void *pointer = unwrapCapsule(capsule, name);
  const OpCapsuleToken *token = OpCapsuleToken::lookup(capsule, what);
  if (!token)
    return static_cast<Operation *>(pointer);
  const OpHandle &handle = token->handle;
  if (handle.get() == pointer)
    return static_cast<Operation *>(pointer);
  if (!handle.isLive())
    throw InvalidatedHandleException(
        std::string(what) + ": the capsule's op is gone: " + handle.describe());
  throw InvalidatedHandleException(
      std::string(what) + ": the capsule's op was replaced by '" +
      handle.getLastName() +
      "' since the capsule was made; take a new one from the replacement's "
      "_CAPIPtr");
}

PyMlirContext &contextOf(MLIRContext *context) {
  PyMlirContext *result = PyMlirContext::lookup(context);
  if (!result)
    throw py::value_error("the MLIRContext of this object was not created by "
                          "mlir_tracking; create IR with mlir_tracking.ir");
  return *result;
}

/// Upstream's printing options beyond the common ones.
struct ExtraPrintOptions {
  std::optional<int64_t> largeResourceLimit;
  bool useNameLocAsPrefix = false;
};

OpPrintingFlags makePrintingFlags(std::optional<int64_t> largeElementsLimit,
                                  bool enableDebugInfo, bool prettyDebugInfo,
                                  bool printGenericOpForm, bool useLocalScope,
                                  bool assumeVerified, bool skipRegions,
                                  const ExtraPrintOptions &extra = {}) {
  OpPrintingFlags flags;
  if (largeElementsLimit)
    flags.elideLargeElementsAttrs(*largeElementsLimit);
  if (extra.largeResourceLimit)
    flags.elideLargeResourceString(*extra.largeResourceLimit);
  if (extra.useNameLocAsPrefix)
    flags.printNameLocAsPrefix();
  if (enableDebugInfo)
    flags.enableDebugInfo(/*enable=*/true, prettyDebugInfo);
  if (printGenericOpForm)
    flags.printGenericOpForm();
  if (useLocalScope)
    flags.useLocalScope();
  if (assumeVerified)
    flags.assumeVerified();
  if (skipRegions)
    flags.skipRegions();
  return flags;
}

/// The text of `operation`'s op (`str`).
std::string printOperation(PyOperation &operation) {
  Operation *op = operation.get();
  OpPrintingFlags flags;
  if (isLimitedToPassScope(*operation.getResolvedOwner()))
    flags.useLocalScope();
  std::string text;
  readWithoutGILIfPoolWaits(operation, "printing", [&] {
    text = mlir::tracking::python::printOperation(op, flags);
  });
  return text;
}

/// The op's assembly, as `bytes` if `binary` (upstream's meaning: the same
/// text, as bytes; bytecode is write_bytecode's). `assume_verified` is
/// honoured only while the op's tree is known to verify: custom printers
/// read what the verifier guarantees (a `func.func` without its type
/// segfaulted); otherwise MLIR verifies first and prints the generic form
/// of IR that does not verify.
py::object getAsm(PyOperation &operation, bool binary,
                  std::optional<int64_t> largeElementsLimit,
                  bool enableDebugInfo, bool prettyDebugInfo,
                  bool printGenericOpForm, bool useLocalScope,
                  bool assumeVerified, bool skipRegions,
                  const ExtraPrintOptions &extra = {}) {
  Operation *op = operation.get();
  assumeVerified = assumeVerified && operation.getResolvedOwner()->verified;
  // In a nested Python pass only the pass's op may be read.
  useLocalScope =
      useLocalScope || isLimitedToPassScope(*operation.getResolvedOwner());
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags = guardPrintingFlags(
      op, makePrintingFlags(largeElementsLimit, enableDebugInfo,
                            prettyDebugInfo, printGenericOpForm, useLocalScope,
                            assumeVerified, skipRegions, extra));
  readWithoutGILIfPoolWaits(operation, "printing",
                            [&] { op->print(os, flags); });
  if (binary)
    return py::bytes(text);
  return py::str(text);
}

PyOperation &asOperation(const py::handle &object) {
  return castToOperation(object);
}

const char *kOperationDoc =
    R"(A tracked handle to an MLIR operation.

The handle follows its op through rewrites that go through a rewriter
(precise passes such as canonicalize and cse, and every mutation made from
Python). `handle_state` is "live", "erased" or "invalidated"; using a handle
that is not live raises InvalidatedHandleError, whose message says what
happened to the op. The same live op always gives the same Python object.)";
} // namespace

PyOperation &mlir::tracking::python::castToOperation(const py::handle &object) {
  if (isInstance<PyModule>(object))
    return object.cast<PyModule &>().getOperation();
  if (PyOperation *viewed = unwrapOpView(object))
    return *viewed;
  if (!isInstance<PyOperation>(object))
    throw py::type_error("expected an ir.Operation or ir.Module, got " +
                         py::repr(py::type::of(object)).cast<std::string>());
  return object.cast<PyOperation &>();
}

namespace {
void releaseCapsuleContext(PyObject *capsule) {
  Py_XDECREF(static_cast<PyObject *>(PyCapsule_GetContext(capsule)));
}
} // namespace

py::object mlir::tracking::python::makeUniquedCapsule(
    const void *pointer, const char *name, const py::object &context) {
  auto capsule = py::reinterpret_steal<py::object>(
      PyCapsule_New(const_cast<void *>(pointer), name, releaseCapsuleContext));
  if (!capsule)
    throw py::error_already_set();
  if (PyCapsule_SetContext(capsule.ptr(), context.ptr()) != 0)
    throw py::error_already_set();
  context.inc_ref();
  return capsule;
}

py::object mlir::tracking::python::makeLocation(PyMlirContext &context,
                                                Location location) {
  checkContextOf(context, Attribute(location));
  return py::cast(PyLocation{context.getObject(), location});
}

py::object mlir::tracking::python::makeType(PyMlirContext &context, Type type) {
  return downcastType(context, type);
}

py::object mlir::tracking::python::makeAttribute(PyMlirContext &context,
                                                 Attribute attribute) {
  return downcastAttribute(context, attribute);
}

Location mlir::tracking::python::resolveLocation(const py::object &loc,
                                                 PyMlirContext &context) {
  if (!loc.is_none())
    return loc.cast<PyLocation &>().location;
  // As upstream's DefaultingPyLocation: the location of the innermost
  // `with` (a Context entered after a Location hides it), else an error.
  py::object current = getCurrentLocation();
  if (current.is_none())
    throw std::runtime_error(
        "An MLIR function requires a Location but none was provided in the "
        "call or from the surrounding environment. Either pass to the "
        "function with a 'loc=' arg or use a 'with' statement.");
  auto &location = current.cast<PyLocation &>();
  checkSameContext(context, location.location->getContext(),
                   "the current location");
  return location.location;
}

Location
mlir::tracking::python::resolveDiagnosticLocation(const py::object &loc,
                                                  PyMlirContext &context) {
  if (loc.is_none() && getCurrentLocation().is_none())
    return UnknownLoc::get(context.get());
  return resolveLocation(loc, context);
}

//===----------------------------------------------------------------------===//
// Bindings
//===----------------------------------------------------------------------===//

namespace {
/// The C++ object of a pybind11 instance in a GC callback, or null if it
/// has none yet (the GC may visit an instance whose __init__ has not run).
template <typename T> T *instanceOf(PyObject *self) {
  auto *instance = reinterpret_cast<py::detail::instance *>(self);
  py::detail::value_and_holder slot =
      instance->get_value_and_holder(py::detail::get_type_info(typeid(T)));
  return slot.holder_constructed() ? static_cast<T *>(slot.value_ptr())
                                   : nullptr;
}

/// `ir.Context` takes part in the GC: it holds its diagnostic handlers'
/// callbacks, and a callback that keeps a diagnostic (or anything else of
/// the context) closes a cycle that would otherwise keep the context and
/// all its IR forever.
void setUpContextGC(PyHeapTypeObject *heap) {
  PyTypeObject &type = heap->ht_type;
  type.tp_flags |= Py_TPFLAGS_HAVE_GC;
  type.tp_traverse = [](PyObject *self, visitproc visit, void *arg) {
    Py_VISIT(Py_TYPE(self));
    if (PyMlirContext *context = instanceOf<PyMlirContext>(self))
      return traverseDiagnosticCallbacks(context->get(), visit, arg);
    return 0;
  };
  type.tp_clear = [](PyObject *self) {
    if (PyMlirContext *context = instanceOf<PyMlirContext>(self))
      clearDiagnosticCallbacks(context->get());
    return 0;
  };
}

/// `ir.Location` reports the context it holds, so that the GC sees a cycle
/// through a kept diagnostic's location.
void setUpLocationGC(PyHeapTypeObject *heap) {
  PyTypeObject &type = heap->ht_type;
  type.tp_flags |= Py_TPFLAGS_HAVE_GC;
  type.tp_traverse = [](PyObject *self, visitproc visit, void *arg) {
    Py_VISIT(Py_TYPE(self));
    if (PyLocation *location = instanceOf<PyLocation>(self))
      Py_VISIT(location->context.ptr());
    return 0;
  };
}

/// `ir.ThreadPool`: a thread pool of its own that contexts can share
/// (Context.set_thread_pool).
struct PyThreadPool {
  std::shared_ptr<llvm::ThreadPoolInterface> pool =
      std::make_shared<llvm::DefaultThreadPool>();
};

/// An address as `0x...` text.
std::string addressText(const void *address) {
  std::string text;
  llvm::raw_string_ostream(text) << address;
  return text;
}

void populateThreadPool(py::module_ &m) {
  py::class_<PyThreadPool>(m, "ThreadPool",
                           "A pool of threads, one per hardware thread, that "
                           "contexts can share (Context.set_thread_pool).")
      .def(py::init<>())
      .def(
          "get_max_concurrency",
          [](PyThreadPool &self) { return self.pool->getMaxConcurrency(); },
          "The number of threads of the pool.")
      .def(
          "_mlir_thread_pool_ptr",
          [](PyThreadPool &self) { return addressText(self.pool.get()); },
          "The address of the pool, as text (for tests).");
}

void populateContext(py::module_ &m) {
  populateThreadPool(m);
  py::class_<PyMlirContext>(m, "Context", py::custom_type_setup(setUpContextGC),
                            "An MLIR context with every upstream dialect and "
                            "extension, and the registry of its handles.")
      .def(py::init(
               [](std::optional<std::vector<std::string>> loadOnCreateDialects,
                  PyThreadPool *threadPool) {
                 auto context = std::make_unique<PyMlirContext>();
                 if (threadPool)
                   context->setThreadPool(threadPool->pool);
                 // Every dialect is loaded already; as upstream's
                 // `self.dialects[name]`, an unknown name is an IndexError.
                 for (const std::string &name :
                      loadOnCreateDialects.value_or(std::vector<std::string>()))
                   if (!context->get()->getLoadedDialect(name))
                     throw py::index_error("Dialect '" + name + "' not found");
                 return context;
               }),
           py::arg("load_on_create_dialects") = py::none(),
           py::arg("thread_pool") = py::none(),
           "Creates a context with every upstream dialect (and those of "
           "`_mlir_libs.get_dialect_registry()` and loaded plugins) loaded. "
           "`load_on_create_dialects` names dialects that must be among "
           "them (upstream loads only those); `thread_pool` is the pool "
           "of its multi-threaded passes (Context.set_thread_pool).")
      .def(
          "__enter__",
          [](py::object self) {
            pushFrame(FrameKind::Context, self, self);
            return self;
          },
          "Makes this the current context.")
      .def(
          "__exit__",
          [](py::object self, py::object, py::object, py::object) {
            popFrame(FrameKind::Context, self);
          },
          "Restores the previous current context.", py::arg("exc_type"),
          py::arg("exc_value"), py::arg("traceback"))
      .def_property_readonly_static(
          "current", [](py::object) { return getCurrentContext(); },
          "The current context, or None.")
      .def_property(
          "allow_unregistered_dialects",
          [](PyMlirContext &self) {
            return self.get()->allowsUnregisteredDialects();
          },
          [](PyMlirContext &self, bool allow) {
            checkNoRunIn(self, "setting Context.allow_unregistered_dialects");
            // IR that verified may not any more: every tree is verified
            // again before its next run (each tree with an owner has an
            // Operation object holding it).
            if (!allow)
              for (PyOperation *operation : self.getOperationObjects())
                self.noteChanged(*operation);
            self.get()->allowUnregisteredDialects(allow);
          },
          "Whether ops of unknown dialects may be parsed and created.")
      .def(
          "enable_multithreading",
          [](PyMlirContext &self, bool enable) {
            checkNoRunIn(self, "Context.enable_multithreading");
            self.get()->enableMultithreading(enable);
          },
          py::arg("enable"),
          "Turns the context's thread pool (and so the multi-threaded pass "
          "manager) on or off.")
      .def(
          "set_thread_pool",
          [](PyMlirContext &self, PyThreadPool &pool) {
            checkNoRunIn(self, "Context.set_thread_pool");
            self.setThreadPool(pool.pool);
          },
          py::arg("pool"),
          "Turns multi-threading on with `pool` as the context's thread "
          "pool (the context keeps the pool alive).")
      .def(
          "get_num_threads",
          [](PyMlirContext &self) { return self.get()->getNumThreads(); },
          "The number of threads the context's passes may use (1 without "
          "multi-threading).")
      .def(
          "_mlir_thread_pool_ptr",
          [](PyMlirContext &self) {
            // MLIRContext::getThreadPool asserts multi-threading is on.
            if (!self.get()->isMultithreadingEnabled())
              throw py::value_error(
                  "Context._mlir_thread_pool_ptr: multi-threading is off, "
                  "the context has no thread pool");
            return addressText(&self.get()->getThreadPool());
          },
          "The address of the context's thread pool, as text (for tests).")
      .def_property_readonly(
          "is_multithreading_enabled",
          [](PyMlirContext &self) {
            return self.get()->isMultithreadingEnabled();
          },
          "Whether the multi-threaded pass manager is on.")
      .def(
          "is_registered_operation",
          [](PyMlirContext &self, const std::string &name) {
            return RegisteredOperationName::lookup(name, self.get())
                .has_value();
          },
          py::arg("operation_name"),
          "Returns True if `operation_name` is a registered operation.")
      .def(
          "load_all_available_dialects",
          [](PyMlirContext &self) {
            checkNoRunIn(self, "Context.load_all_available_dialects");
            self.get()->loadAllAvailableDialects();
          },
          "Loads every registered dialect (done at creation).")
      .def(
          "_get_live_operation_count",
          [](PyMlirContext &self) { return self.getNumLiveOperations(); },
          "Number of Operation objects alive (for tests).")
      .def(
          "_clear_live_operations",
          [](PyMlirContext &self) { return self.clearLiveOperations(); },
          "Upstream's test helper: forgets the Operation object of every op "
          "(the next access makes a new one) and returns how many. Unlike "
          "upstream, whose objects are then invalid, the old objects stay "
          "valid tracked handles (equal to the new ones).")
      .def(
          "_get_live_operation_objects",
          [](PyMlirContext &self) {
            py::list objects;
            // Each PyOperation is owned by its Python object: this finds it.
            for (PyOperation *operation : self.getOperationObjects())
              objects.append(
                  py::cast(operation, py::return_value_policy::reference));
            return objects;
          },
          "The Operation objects alive in this context, live handles or not "
          "(for tests).")
      .def(
          "_get_tree_link_walk_count",
          [](PyMlirContext &self) { return self.numTreeLinkWalks; },
          "Number of walks that looked for uses linking one IR tree to "
          "another (skipped while the context has a single tree; for "
          "tests).")
      .def(
          "_get_root_walk_count",
          [](PyMlirContext &self) { return self.numRootWalks; },
          "Number of walks up an op's ancestors to its root that an "
          "Operation object or an insertion could not skip (for tests).")
      .def(
          "_get_operation_scan_count",
          [](PyMlirContext &self) { return self.numObjectEntriesScanned; },
          "Number of entries examined by the scans of every Operation object "
          "of this context (when IR moves between trees, and by "
          "_get_live_operation_objects and _clear_live_operations): about "
          "the objects alive at each scan, plus those made since the "
          "previous one (for tests).")
      .def(
          "_get_verification_count",
          [](PyMlirContext &self) { return self.numVerifications; },
          "Number of times a run (PassManager.run, a rewrite driver, "
          "apply_named_sequence) verified its input; a run on a tree not "
          "changed from Python since it last verified skips it (for "
          "tests).")
      .def(
          "_get_live_module_count",
          [](PyMlirContext &self) { return self.numLiveModules; },
          "Number of Module objects alive in this context (for tests).")
      .def(
          "_verify_tracking",
          [](PyMlirContext &self) { return self.verifyTracking(); },
          "Checks the handle registry against all IR held from Python; "
          "returns the problems found (for tests).")
      .def(
          "_get_tracked_operation_count",
          [](PyMlirContext &self) {
            // Dropped Operation objects no longer hold their ops.
            self.flushReleases();
            return self.getRegistry().getNumTrackedOps();
          },
          "Number of ops with a live handle in the registry (for tests).")
      .def_property_readonly(
          "_CAPIPtr",
          [](PyMlirContext &self) {
            // C++ code may now create IR of its own in this context.
            self.noteCapsuleAccess();
            return makeUniquedCapsule(wrap(self.get()).ptr,
                                      MLIR_PYTHON_CAPSULE_CONTEXT,
                                      self.getObject());
          },
          "A capsule with the MlirContext, for upstream bindings.")
      .def_static(
          "_CAPICreate",
          [](py::object capsule) {
            auto *context = static_cast<MLIRContext *>(
                unwrapCapsule(capsule, MLIR_PYTHON_CAPSULE_CONTEXT));
            PyMlirContext &result = contextOf(context);
            result.noteCapsuleAccess();
            return result.getObject();
          },
          py::arg("capsule"),
          "Returns the Context of a capsule made by `_CAPIPtr`.")
      .def("__repr__", [](PyMlirContext &self) {
        return "<mlir_tracking.ir.Context #" + std::to_string(self.getId()) +
               ": " + std::to_string(self.getNumLiveOperations()) +
               " live operation objects>";
      });
}

void populateLocation(py::module_ &m) {
  py::class_<PyLocation>(m, "Location", py::custom_type_setup(setUpLocationGC),
                         "A source location.")
      .def_static(
          "unknown",
          [](py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeLocation(ctx, UnknownLoc::get(ctx.get()));
          },
          py::arg("context") = py::none(), "An unknown location.")
      .def_static(
          "file",
          [](const std::string &filename, unsigned line, unsigned col,
             py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            return makeLocation(
                ctx, FileLineColLoc::get(ctx.get(), filename, line, col));
          },
          py::arg("filename"), py::arg("line"), py::arg("col"),
          py::arg("context") = py::none(), "A file:line:column location.")
      .def_static(
          "name",
          [](const std::string &name, py::object childLoc, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            Location child = childLoc.is_none()
                                 ? Location(UnknownLoc::get(ctx.get()))
                                 : childLoc.cast<PyLocation &>().location;
            checkSameContext(ctx, child->getContext(), "a child location");
            return makeLocation(
                ctx, NameLoc::get(StringAttr::get(ctx.get(), name), child));
          },
          py::arg("name"), py::arg("childLoc") = py::none(),
          py::arg("context") = py::none(), "A named location.")
      .def_property_readonly_static(
          "current", [](py::object) { return getCurrentLocation(); },
          "The current location, or None.")
      .def(
          "__enter__",
          [](py::object self) {
            pushFrame(FrameKind::Location, self,
                      self.cast<PyLocation &>().context);
            return self;
          },
          "Makes this the current location (and its context current).")
      .def(
          "__exit__",
          [](py::object self, py::object, py::object, py::object) {
            popFrame(FrameKind::Location, self);
          },
          py::arg("exc_type"), py::arg("exc_value"), py::arg("traceback"),
          "Restores the previous location.")
      .def_property_readonly(
          "context", [](PyLocation &self) { return self.context; },
          "The context of the location.")
      .def(
          "__eq__",
          [](PyLocation &self, py::object other) {
            return isInstance<PyLocation>(other) &&
                   other.cast<PyLocation &>().location == self.location;
          },
          py::arg("other"), "Locations are uniqued: equal if identical.")
      .def(
          "__hash__",
          [](PyLocation &self) {
            return std::hash<const void *>()(
                self.location.getAsOpaquePointer());
          },
          "Hash of the uniqued location.")
      .def_property_readonly(
          "_CAPIPtr",
          [](PyLocation &self) {
            return makeUniquedCapsule(wrap(self.location).ptr,
                                      MLIR_PYTHON_CAPSULE_LOCATION,
                                      self.context);
          },
          "A capsule with the MlirLocation.")
      .def(
          "__str__",
          [](PyLocation &self) { return printToString(self.location); },
          "The location as MLIR prints it.")
      .def(
          "__repr__",
          [](PyLocation &self) { return printToString(self.location); },
          "The location as MLIR prints it.");
}

void populateTypeAndAttribute(py::module_ &m) {
  py::class_<PyType>(m, "Type", "An MLIR type.")
      .def_static(
          "parse",
          [](const std::string &asm_, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            DiagnosticCapture capture(ctx.get(),
                                      DiagnosticCapture::End::CallDone);
            checkTextNesting(asm_, "Type.parse");
            Type type = parseType(asm_, ctx.get());
            if (!type)
              capture.raise("Unable to parse type: '" + asm_ + "'");
            return makeType(ctx, type);
          },
          py::arg("asm"), py::arg("context") = py::none(),
          "Parses a type; raises MLIRError on failure.")
      .def_property_readonly(
          "context", [](PyType &self) { return self.context; },
          "The context of the type.")
      .def(
          "__eq__",
          [](PyType &self, py::object other) {
            return isInstance<PyType>(other) &&
                   other.cast<PyType &>().type == self.type;
          },
          py::arg("other"), "Types are uniqued: equal if identical.")
      .def(
          "__hash__",
          [](PyType &self) {
            return std::hash<const void *>()(self.type.getAsOpaquePointer());
          },
          "Hash of the uniqued type.")
      .def_property_readonly(
          "_CAPIPtr",
          [](PyType &self) {
            return makeUniquedCapsule(wrap(self.type).ptr,
                                      MLIR_PYTHON_CAPSULE_TYPE, self.context);
          },
          "A capsule with the MlirType.")
      .def_static(
          "_CAPICreate",
          [](py::object capsule) {
            Type type = Type::getFromOpaquePointer(
                unwrapCapsule(capsule, MLIR_PYTHON_CAPSULE_TYPE));
            return makeType(contextOf(type.getContext()), type);
          },
          py::arg("capsule"), "Returns the Type of a capsule.")
      .def(
          "__str__", [](PyType &self) { return printToString(self.type); },
          "The type as MLIR prints it.")
      .def(
          "__repr__",
          [](PyType &self) { return "Type(" + printToString(self.type) + ")"; },
          "Type(<type>).");

  py::class_<PyAttribute>(m, "Attribute", "An MLIR attribute.")
      .def_static(
          "parse",
          [](const std::string &asm_, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            DiagnosticCapture capture(ctx.get(),
                                      DiagnosticCapture::End::CallDone);
            checkTextNesting(asm_, "Attribute.parse");
            Attribute attribute = parseAttribute(asm_, ctx.get());
            if (!attribute)
              capture.raise("Unable to parse attribute: '" + asm_ + "'");
            return makeAttribute(ctx, attribute);
          },
          py::arg("asm"), py::arg("context") = py::none(),
          "Parses an attribute; raises MLIRError on failure.")
      .def_property_readonly(
          "context", [](PyAttribute &self) { return self.context; },
          "The context of the attribute.")
      .def_property_readonly(
          "type",
          [](PyAttribute &self) -> py::object {
            auto typed = dyn_cast<TypedAttr>(self.attribute);
            if (!typed)
              return py::none();
            return makeType(self.context.cast<PyMlirContext &>(),
                            typed.getType());
          },
          "The type of a typed attribute, or None.")
      .def(
          "__eq__",
          [](PyAttribute &self, py::object other) {
            return isInstance<PyAttribute>(other) &&
                   other.cast<PyAttribute &>().attribute == self.attribute;
          },
          py::arg("other"), "Attributes are uniqued: equal if identical.")
      .def(
          "__hash__",
          [](PyAttribute &self) {
            return std::hash<const void *>()(
                self.attribute.getAsOpaquePointer());
          },
          "Hash of the uniqued attribute.")
      .def_property_readonly(
          "_CAPIPtr",
          [](PyAttribute &self) {
            return makeUniquedCapsule(wrap(self.attribute).ptr,
                                      MLIR_PYTHON_CAPSULE_ATTRIBUTE,
                                      self.context);
          },
          "A capsule with the MlirAttribute.")
      .def_static(
          "_CAPICreate",
          [](py::object capsule) {
            Attribute attribute = Attribute::getFromOpaquePointer(
                unwrapCapsule(capsule, MLIR_PYTHON_CAPSULE_ATTRIBUTE));
            return makeAttribute(contextOf(attribute.getContext()), attribute);
          },
          py::arg("capsule"), "Returns the Attribute of a capsule.")
      .def(
          "__str__",
          [](PyAttribute &self) { return printToString(self.attribute); },
          "The attribute as MLIR prints it.")
      .def(
          "__repr__",
          [](PyAttribute &self) {
            return "Attribute(" + printToString(self.attribute) + ")";
          },
          "Attribute(<attribute>).");

  py::class_<PyNamedAttribute>(m, "NamedAttribute", "A (name, attribute) pair.")
      .def_property_readonly(
          "name", [](PyNamedAttribute &self) { return self.name; },
          "The attribute name.")
      .def_property_readonly(
          "attr", [](PyNamedAttribute &self) { return self.attr; },
          "The attribute.")
      .def(
          "__repr__",
          [](PyNamedAttribute &self) {
            return "NamedAttribute(" + self.name + "=" +
                   py::str(self.attr).cast<std::string>() + ")";
          },
          "NamedAttribute(name=attr).");
}

void populateModule(py::module_ &m) {
  py::class_<PyModule>(m, "Module",
                       "A `builtin.module`: a view of its (tracked) "
                       "operation, which owns the IR.")
      .def_static(
          "parse",
          [](const std::string &asm_, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            DiagnosticCapture capture(ctx.get(),
                                      DiagnosticCapture::End::CallDone);
            ParserSource source(asm_, "Module.parse");
            // Verified by verifyIR, which checks first what MLIR's verifier
            // would crash on.
            ParserConfig config(ctx.get(), /*verifyAfterParse=*/false);
            OwningOpRef<ModuleOp> module = withoutGILIfThreaded(ctx, [&] {
              OwningOpRef<ModuleOp> parsed =
                  parseSourceString<ModuleOp>(source.get(), config);
              if (parsed && failed(verifyIR(*parsed)))
                parsed = nullptr;
              return parsed;
            });
            if (!module)
              capture.raise("Unable to parse module assembly");
            Operation *op = module.release().getOperation();
            return PyModule::get(PyOperation::adopt(ctx, op));
          },
          py::arg("asm"), py::arg("context") = py::none(),
          "Parses a module; raises MLIRError with the diagnostics on "
          "failure.")
      .def_static(
          "create",
          [](py::object loc) {
            PyMlirContext &ctx = PyMlirContext::resolve(
                loc.is_none() ? py::object(py::none())
                              : loc.cast<PyLocation &>().context);
            ModuleOp module = ModuleOp::create(resolveOpLocation(loc, ctx));
            return PyModule::get(
                PyOperation::adopt(ctx, module.getOperation()));
          },
          py::arg("loc") = py::none(), "Creates an empty module.")
      .def_property_readonly(
          "operation", [](PyModule &self) { return self.operation; },
          "The module's operation (a tracked handle).")
      .def_property_readonly(
          "body",
          [](PyModule &self) {
            PyOperation &operation = self.getOperation();
            Operation *op = operation.get();
            return PyBlock::make(self.operation, &op->getRegion(0).front());
          },
          "The module's only block.")
      .def_property_readonly(
          "context",
          [](PyModule &self) { return self.getOperation().getContextObject(); },
          "The context of the module.")
      .def(
          "dump", [](PyModule &self) { self.getOperation().get()->dump(); },
          "Prints the module to stderr.")
      .def_property_readonly(
          "_CAPIPtr",
          [](PyModule &self) {
            ModuleOp module = cast<ModuleOp>(self.getOperation().get());
            self.getOperation().getContext().noteCapsuleAccess();
            return makeOpCapsule(self.getOperation(),
                                 const_cast<void *>(wrap(module).ptr),
                                 MLIR_PYTHON_CAPSULE_MODULE);
          },
          "A capsule with the MlirModule (the IR stays owned by this "
          "package).")
      .def_static(
          "_CAPICreate",
          [](py::object capsule) {
            Operation *op = unwrapOpCapsule(capsule, MLIR_PYTHON_CAPSULE_MODULE,
                                            "Module._CAPICreate");
            PyMlirContext &ctx = contextOf(op->getContext());
            // A raw pointer may point into IR a pipeline is running on.
            checkNoRunIn(ctx, "Module._CAPICreate");
            ctx.noteCapsuleAccess();
            return PyModule::get(PyOperation::forOperation(ctx, op));
          },
          py::arg("capsule"), "Returns a Module for a capsule.")
      .def(
          "__str__",
          [](PyModule &self) { return printOperation(self.getOperation()); },
          "The module as MLIR prints it.")
      .def(
          "__repr__",
          [](PyModule &self) {
            PyOperation &operation = self.getOperation();
            return "<mlir_tracking.ir.Module (" +
                   stringifyHandleState(operation.getHandle().getState())
                       .str() +
                   ")>";
          },
          "A short description.");
}

void populateOperation(py::module_ &m) {
  py::enum_<WalkOrder>(m, "WalkOrder", "The order of Operation.walk.")
      .value("PRE_ORDER", WalkOrder::PreOrder)
      .value("POST_ORDER", WalkOrder::PostOrder);
  py::enum_<PyWalkResult>(m, "WalkResult",
                          "What a walk callback returns (None: ADVANCE).")
      .value("ADVANCE", PyWalkResult::Advance)
      .value("INTERRUPT", PyWalkResult::Interrupt)
      .value("SKIP", PyWalkResult::Skip);

  py::class_<PyOperation>(m, "Operation", kOperationDoc)
      .def_static(
          "create",
          [](const std::string &name, py::object results, py::object operands,
             py::object attributes, py::object successors, int64_t regions,
             py::object loc, py::object ip, bool inferType) {
            checkRegionCount(regions);
            py::object contextObject = py::none();
            if (!loc.is_none())
              contextObject = loc.cast<PyLocation &>().context;
            else if (!ip.is_none() && !ip.is(py::bool_(false)))
              contextObject = asOperation(ip.cast<PyInsertionPoint &>()
                                              .block.cast<PyBlock &>()
                                              .operation)
                                  .getContextObject();
            PyMlirContext &ctx = PyMlirContext::resolve(contextObject);
            MLIRContext *mlirContext = ctx.get();
            OperationName opName(name, mlirContext);
            if (!opName.isRegistered() &&
                !mlirContext->allowsUnregisteredDialects())
              throw py::value_error(
                  "unregistered operation '" + name +
                  "' (set Context.allow_unregistered_dialects to create it)");
            OperationState state(resolveOpLocation(loc, ctx), opName);
            checkSameContext(ctx, state.location->getContext(), "a location");
            // Run the arguments' Python code (iterators) first: no Python
            // code may run between resolving IR pointers and using them.
            auto asList = [](const py::object &items) {
              return items.is_none() ? py::list() : py::list(items);
            };
            py::list resultList = asList(results);
            py::list operandList = asList(operands);
            py::list successorList = asList(successors);
            py::dict attributeDict =
                attributes.is_none() ? py::dict() : py::dict(attributes);
            for (py::handle type : resultList) {
              Type resultType = type.cast<PyType &>().type;
              checkSameContext(ctx, resultType.getContext(), "a result type");
              state.addTypes(resultType);
            }
            for (auto item : attributeDict) {
              // Upstream's errors for a bad key or value.
              if (!py::isinstance<py::str>(item.first))
                throw py::value_error(
                    "Invalid attribute key (not a string) when attempting to "
                    "create the operation \"" +
                    name + "\"");
              std::string key = item.first.cast<std::string>();
              if (item.second.is_none())
                throw py::value_error(
                    "Found an invalid (`None`?) attribute value for the key "
                    "\"" +
                    key + "\" when attempting to create the operation \"" +
                    name + "\"");
              if (!isInstance<PyAttribute>(item.second))
                throw py::value_error(
                    "Invalid attribute value for the key \"" + key +
                    "\" when attempting to create the operation \"" + name +
                    "\"");
              Attribute attribute = item.second.cast<PyAttribute &>().attribute;
              checkSameContext(ctx, attribute.getContext(), "an attribute");
              state.addAttribute(key, attribute);
            }
            for (py::handle operand : operandList) {
              Value value = operand.cast<PyValue &>().get();
              checkSameContext(ctx, value.getContext(), "an operand");
              checkUseListChange(ctx, value);
              state.addOperands(value);
            }
            for (py::handle successor : successorList) {
              Block *block = successor.cast<PyBlock &>().get();
              checkSameContext(ctx, block->getParent()->getContext(),
                               "a successor block");
              checkUseListChange(ctx, block);
              state.addSuccessors(block);
            }
            for (int64_t i = 0; i < regions; ++i)
              state.addRegion();
            if (inferType) {
              // MLIR's C API asserts that no result type was given.
              if (!resultList.empty())
                throw py::value_error(
                    "Operation.create of \"" + name +
                    "\": results and infer_type=True exclude each other");
              inferCreatedResultTypes(state, ip);
            }
            Operation *op = Operation::create(state);
            py::object result = PyOperation::adopt(ctx, op);
            noteNewOpInPattern(result.cast<PyOperation &>());
            for (const NamedAttribute &given : state.attributes)
              if (!storedInherentAttribute(op, given.getName(),
                                           given.getValue()))
                throw py::type_error(
                    "attribute '" + given.getName().str() +
                    "' of operation \"" + name + "\" has the wrong kind: " +
                    py::repr(makeAttribute(ctx, given.getValue()))
                        .cast<std::string>());
            maybeInsert(result.cast<PyOperation &>(), ip);
            return result;
          },
          py::arg("name"), py::arg("results") = py::none(),
          py::arg("operands") = py::none(), py::arg("attributes") = py::none(),
          py::arg("successors") = py::none(), py::arg("regions") = 0,
          py::arg("loc") = py::none(), py::arg("ip") = py::none(),
          py::arg("infer_type") = false,
          "Creates an operation. It is inserted at `ip` (None: the current "
          "insertion point, if any; False: nowhere); otherwise it stays "
          "detached and is owned by its handle. With `infer_type`, its "
          "result types come from its InferTypeOpInterface (no `results`).")
      .def_property_readonly(
          "name",
          [](PyOperation &self) {
            return toPythonText(self.get()->getName().getStringRef());
          },
          "The operation name, e.g. 'arith.addi'.")
      .def_property_readonly(
          "context", [](PyOperation &self) { return self.getContextObject(); },
          "The context of the operation.")
      .def_property_readonly(
          "location",
          [](PyOperation &self) {
            return makeLocation(self.getContext(), self.get()->getLoc());
          },
          "The location of the operation.")
      .def_property_readonly(
          "operation", [](py::object self) { return self; },
          "The operation itself (upstream OpView compatibility).")
      .def_property_readonly(
          "attributes",
          [](py::object self) {
            asOperation(self).get();
            return PyOpAttributeMap{self};
          },
          "The attributes, as a mapping from name to Attribute.")
      .def_property_readonly(
          "operands",
          [](py::object self) {
            asOperation(self).get();
            return PyOpOperandList{self};
          },
          "The operands (Values).")
      .def_property_readonly(
          "results",
          [](py::object self) {
            asOperation(self).get();
            return PyOpResultList{self};
          },
          "The results (OpResults).")
      .def_property_readonly(
          "result",
          [](py::object self) {
            Operation *op = asOperation(self).get();
            if (op->getNumResults() != 1)
              throw py::value_error(
                  "Cannot call .result on operation " +
                  op->getName().getStringRef().str() + " which has " +
                  std::to_string(op->getNumResults()) + " results");
            return PyValue::create(asOperation(self).getContext(),
                                   op->getResult(0));
          },
          "The only result; ValueError unless there is exactly one.")
      .def_property_readonly(
          "regions",
          [](py::object self) {
            asOperation(self).get();
            return PyRegionSequence{self};
          },
          "The regions.")
      .def_property_readonly(
          "parent",
          [](PyOperation &self) -> py::object {
            Operation *parent = self.get()->getParentOp();
            if (!parent)
              return py::none();
            // get() brought the owner in step with the op's tree, which is
            // the parent's: neither finding the parent's owner nor its next
            // get() walks up again (deep IR).
            std::shared_ptr<RootOwner> owner = self.getResolvedOwner();
            py::object result =
                PyOperation::forOperation(self.getContext(), parent, owner);
            asOperation(result).confirmOwner(*owner);
            return result;
          },
          "The parent operation, or None if detached or top-level.")
      .def_property_readonly(
          "block",
          [](PyOperation &self) -> py::object {
            Block *block = self.get()->getBlock();
            if (!block)
              return py::none();
            return PyBlock::create(self.getContext(), block);
          },
          "The block containing the operation, or None if detached.")
      .def_property_readonly(
          "is_valid",
          [](PyOperation &self) { return self.getIfLive() != nullptr; },
          "True while the handle is live.")
      .def_property_readonly(
          "handle_state",
          [](PyOperation &self) {
            return stringifyHandleState(self.getHandle().getState()).str();
          },
          "'live', 'erased' or 'invalidated'.")
      .def_property_readonly(
          "handle_history",
          [](PyOperation &self) {
            std::vector<std::string> history;
            for (const TrackingEvent &event : self.getHandle().getHistory())
              history.push_back(event.str());
            return history;
          },
          "What happened to the op, oldest first, one str per event.")
      .def(
          "walk",
          [](PyOperation &self, py::function callback, WalkOrder order) {
            walkOperation(self, callback, order);
          },
          py::arg("callback"), py::arg("walk_order") = WalkOrder::PostOrder,
          "Calls `callback(op)` on this op and every op nested in it (a "
          "snapshot taken when the walk starts, in `walk_order`). The "
          "callback returns a WalkResult (None means ADVANCE; SKIP skips the "
          "ops nested in the op in pre-order). It may erase or move any op: "
          "ops no longer live or no longer under this op are not visited, "
          "and the walk ends if this op is erased. Running a pipeline on "
          "this IR during the walk raises RuntimeError. An exception of the "
          "callback ends the walk and is raised as RuntimeError('Exception "
          "raised in callback: ...') from it (upstream's error).")
      .def(
          "clone",
          [](PyOperation &self, py::object ip) {
            checkCloneUseListChanges(self.getContext(), self.get());
            Operation *copy = self.get()->clone();
            py::object result = PyOperation::adopt(self.getContext(), copy);
            noteNewOpInPattern(result.cast<PyOperation &>());
            maybeInsert(result.cast<PyOperation &>(), ip);
            return createOpView(result);
          },
          py::arg("ip") = py::none(),
          "A deep copy, inserted at `ip` (None: the current insertion point "
          "if any; False: nowhere), else detached and owned by its handle.")
      .def(
          "erase", [](PyOperation &self) { eraseOperation(self); },
          "Erases the op and everything in it; their handles become erased. "
          "ValueError if a result is still used outside it.")
      .def(
          "detach_from_parent",
          [](py::object self) {
            detachOperation(asOperation(self));
            return self;
          },
          "Removes the op from its block; its handle then owns it.")
      .def(
          "move_before",
          [](PyOperation &self, PyOperation &other) {
            Operation *ref = other.get();
            self.get();
            if (!ref->getBlock())
              throw py::value_error("reference operation is detached");
            placeOperation(self, ref->getBlock(), ref->getIterator(),
                           "Operation.move_before");
          },
          py::arg("other"), "Moves (or inserts) the op before `other`.")
      .def(
          "move_after",
          [](PyOperation &self, PyOperation &other) {
            Operation *ref = other.get();
            self.get();
            if (!ref->getBlock())
              throw py::value_error("reference operation is detached");
            placeOperation(self, ref->getBlock(), std::next(ref->getIterator()),
                           "Operation.move_after");
          },
          py::arg("other"), "Moves (or inserts) the op after `other`.")
      .def(
          "replace_all_uses_with",
          [](PyOperation &self, py::object values) {
            // The iterable's Python code runs before any IR is resolved.
            // An Operation or an OpView: use its results.
            bool isOperation = isInstance<PyOperation>(values) ||
                               isInstance<PyModule>(values) ||
                               unwrapOpView(values);
            py::list valueList = isOperation ? py::list() : py::list(values);
            Operation *op = self.get();
            std::vector<Value> replacements;
            if (isOperation) {
              for (Value value : asOperation(values).get()->getResults())
                replacements.push_back(value);
            } else {
              for (py::handle value : valueList)
                replacements.push_back(value.cast<PyValue &>().get());
            }
            if (replacements.size() != op->getNumResults())
              throw py::value_error("expected " +
                                    std::to_string(op->getNumResults()) +
                                    " replacement values, got " +
                                    std::to_string(replacements.size()));
            for (auto [from, to] : llvm::zip(op->getResults(), replacements))
              replaceAllUsesWith(self.getContext(), from, to);
          },
          py::arg("values"),
          "Replaces every use of the op's results with `values` (a list of "
          "Values or an Operation). The handle stays on this op.")
      .def(
          "verify",
          [](PyOperation &self) {
            Operation *op = self.get();
            DiagnosticCapture capture(op->getContext());
            LogicalResult verified = failure();
            readWithoutGILIfPoolWaits(self, "Operation.verify",
                                      [&] { verified = verifyIR(op); });
            if (failed(verified))
              capture.raise("Verification failed");
            return true;
          },
          "Verifies the op; raises MLIRError with the diagnostics on failure.")
      .def(
          "get_asm",
          [](PyOperation &self, bool binary,
             std::optional<int64_t> largeElementsLimit, bool enableDebugInfo,
             bool prettyDebugInfo, bool printGenericOpForm, bool useLocalScope,
             bool assumeVerified, bool skipRegions,
             std::optional<int64_t> largeResourceLimit,
             bool useNameLocAsPrefix) {
            return getAsm(self, binary, largeElementsLimit, enableDebugInfo,
                          prettyDebugInfo, printGenericOpForm, useLocalScope,
                          assumeVerified, skipRegions,
                          {largeResourceLimit, useNameLocAsPrefix});
          },
          py::arg("binary") = false,
          py::arg("large_elements_limit") = py::none(),
          py::arg("enable_debug_info") = false,
          py::arg("pretty_debug_info") = false,
          py::arg("print_generic_op_form") = false,
          py::arg("use_local_scope") = false,
          py::arg("assume_verified") = false, py::arg("skip_regions") = false,
          py::arg("large_resource_limit") = py::none(),
          py::arg("use_name_loc_as_prefix") = false,
          "The op as text (as bytes if `binary`, as upstream; bytecode is "
          "write_bytecode's).")
      .def(
          "print",
          [](PyOperation &self, std::optional<int64_t> largeElementsLimit,
             bool enableDebugInfo, bool prettyDebugInfo,
             bool printGenericOpForm, bool useLocalScope, bool assumeVerified,
             py::object file, bool binary, bool skipRegions,
             std::optional<int64_t> largeResourceLimit,
             bool useNameLocAsPrefix) {
            py::object text =
                getAsm(self, binary, largeElementsLimit, enableDebugInfo,
                       prettyDebugInfo, printGenericOpForm, useLocalScope,
                       assumeVerified, skipRegions,
                       {largeResourceLimit, useNameLocAsPrefix});
            if (file.is_none())
              file =
                  py::module_::import("sys").attr(binary ? "stdout" : "stdout");
            if (binary && !py::hasattr(file, "buffer"))
              file.attr("write")(text);
            else if (binary)
              file.attr("buffer").attr("write")(text);
            else
              file.attr("write")(text);
          },
          py::arg("large_elements_limit") = py::none(),
          py::arg("enable_debug_info") = false,
          py::arg("pretty_debug_info") = false,
          py::arg("print_generic_op_form") = false,
          py::arg("use_local_scope") = false,
          py::arg("assume_verified") = false, py::arg("file") = py::none(),
          py::arg("binary") = false, py::arg("skip_regions") = false,
          py::arg("large_resource_limit") = py::none(),
          py::arg("use_name_loc_as_prefix") = false,
          "Prints the op to `file` (default: sys.stdout).")
      .def_property_readonly(
          "successors",
          [](py::object self) {
            self.cast<PyOperation &>().get();
            return PyOpSuccessors{self};
          },
          "The successor blocks of the op, a sliceable view (assignable).")
      .def(
          "__str__", [](PyOperation &self) { return printOperation(self); },
          "The op as MLIR prints it.")
      .def(
          "__repr__",
          [](PyOperation &self) {
            const OpHandle &handle = self.getHandle();
            return "<mlir_tracking.ir.Operation '" + handle.getLastName() +
                   "' at " + handle.getLastLocation() + " (" +
                   stringifyHandleState(handle.getState()).str() + ")>";
          },
          "A short description that never raises.")
      .def(
          "__eq__",
          [](PyOperation &self, py::object other) {
            if (isInstance<PyModule>(other))
              other = other.cast<PyModule &>().operation;
            if (PyOperation *viewed = unwrapOpView(other))
              other = py::cast(viewed, py::return_value_policy::reference);
            return isInstance<PyOperation>(other) &&
                   other.cast<PyOperation &>().getHandle().getIdentityKey() ==
                       self.getHandle().getIdentityKey();
          },
          py::arg("other"),
          "Equal when both are the same handle. Never changes over the "
          "handle's life, so handles are safe in dicts and sets across "
          "pipelines; use `same_op` to ask whether two handles refer to the "
          "same op now.")
      .def(
          "__hash__",
          [](PyOperation &self) {
            return std::hash<const void *>()(self.getHandle().getIdentityKey());
          },
          "Consistent with ==; never changes.")
      .def(
          "same_op",
          [](PyOperation &self, py::object other) {
            return self.getHandle().sameOp(castToOperation(other).getHandle());
          },
          py::arg("other"),
          "True if this handle and `other` (an Operation or Module) refer to "
          "the same op now: the same handle, or one that followed a "
          "replacement (a CSE merge) onto the other's op. Two handles that "
          "are not live are the same op only if they were merged before.")
      .def_property_readonly(
          "canonical_handle",
          [](PyOperation &self) {
            return PyOperation::forOperation(self.getContext(), self.get());
          },
          "The handle of the op this handle refers to now: the Operation every "
          "path to the op returns (`parent`, walks, the `.operation` of the "
          "views `block.operations[i]` returns). "
          "It is `self` unless this handle was merged onto an op that "
          "already had one (CSE). Raises InvalidatedHandleError if not "
          "live.")
      .def_property_readonly(
          "_CAPIPtr",
          [](PyOperation &self) {
            Operation *op = self.get();
            // C++ code may now link other IR to this op's tree.
            self.getContext().noteCapsuleAccess();
            return makeOpCapsule(self, wrap(op).ptr,
                                 MLIR_PYTHON_CAPSULE_OPERATION);
          },
          "A capsule with the MlirOperation (raises if not live).")
      .def_static(
          "_CAPICreate",
          [](py::object capsule) {
            Operation *op =
                unwrapOpCapsule(capsule, MLIR_PYTHON_CAPSULE_OPERATION,
                                "Operation._CAPICreate");
            PyMlirContext &ctx = contextOf(op->getContext());
            // A raw pointer may point into IR a pipeline is running on.
            checkNoRunIn(ctx, "Operation._CAPICreate");
            ctx.noteCapsuleAccess();
            return PyOperation::forOperation(ctx, op);
          },
          py::arg("capsule"),
          "The Operation for a capsule: the existing object if there is "
          "one (`Operation._CAPICreate(op._CAPIPtr) is op`).");
}
} // namespace

void mlir::tracking::python::populateIRCore(py::module_ &m) {
  populateContext(m);
  populateLocation(m);
  populateTypeAndAttribute(m);
  populateModule(m);
  populateOperation(m);
}

//===----------------------------------------------------------------------===//
// PyModule
//===----------------------------------------------------------------------===//

PyModule::PyModule(py::object operation) : operation(std::move(operation)) {
  ++getOperation().getContext().numLiveModules;
}

PyModule::PyModule(const PyModule &other) : operation(other.operation) {
  ++getOperation().getContext().numLiveModules;
}

PyModule::~PyModule() {
  PyMlirContext &context = getOperation().getContext();
  if (registered)
    context.liveModules.erase(&getOperation());
  --context.numLiveModules;
}

py::object PyModule::get(py::object operation) {
  PyOperation &op = operation.cast<PyOperation &>();
  PyMlirContext &context = op.getContext();
  auto found = context.liveModules.find(&op);
  if (found != context.liveModules.end())
    return py::reinterpret_borrow<py::object>(found->second);
  py::object object = py::cast(PyModule(std::move(operation)));
  // Making the object ran no Python code that could have registered
  // another Module for `op` meanwhile.
  object.cast<PyModule &>().registered = true;
  context.liveModules[&op] = object.ptr();
  return object;
}

size_t PyMlirContext::clearLiveOperations() {
  size_t cleared = numLiveOperations;
  // The objects stay alive and valid; their destructors must not remove the
  // entries of the objects made after this.
  compactObjectIndices();
  for (uint32_t index : objectIndices) {
    forgottenOperations.insert(operationsByIndex[index]);
    operationsByIndex[index] = nullptr;
  }
  objectIndices.clear();
  numLiveOperations = 0;
  // The newly forgotten objects are not indexed yet.
  forgottenMergesAtScan = UINT64_MAX;
  return cleared;
}
