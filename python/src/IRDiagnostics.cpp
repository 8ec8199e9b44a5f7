//===- IRDiagnostics.cpp - Diagnostic handlers attached from Python -------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// `Context.attach_diagnostic_handler(callback)`, `Diagnostic`,
// `DiagnosticHandler`, `Context.emit_error_diagnostics` and
// `Location.emit_error`, as upstream.
//
// Python callbacks never run inside MLIR's DiagnosticEngine. The engine calls
// its handlers under its own mutex, on whichever thread emits: a callback
// running there would wait for the GIL while holding that mutex, and a thread
// holding the GIL that emits (or merely registers a handler) would wait for
// the mutex: a deadlock. And the engine iterates its handler list while
// calling them, so a callback that attached or detached a handler corrupted
// it. So each context gets one engine handler of ours, which only copies the
// diagnostic into a queue (no GIL, no Python), and the Python callbacks get it
// from the queue on a thread that holds the GIL and is outside the engine:
// when the call that emitted it returns to Python (`Location.emit_error`, the
// end of a parse, verification or `PassManager.run`), or else soon after on
// the main thread (a pending call). The callbacks then run over our own list
// of handlers, which they may change while they run.
//
//===----------------------------------------------------------------------===//

#include "Downcast.h"
#include "FatalErrors.h"
#include "IRCompat.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <deque>
#include <thread>

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::python;

namespace {
/// One callback attached from Python.
struct HandlerState {
  py::object callback;
  bool attached = true;
  bool hadError = false;
  ~HandlerState() {
    // The last reference goes wherever the engine or a delivery drops it:
    // release the callback under the GIL (cheap where it is held).
    AcquireGilOrPark gil;
    callback = py::object();
  }
};

/// How deep deliveries may nest on one thread: a callback that emits a
/// diagnostic gets it (delivered when its `emit_error` returns) from inside
/// its own call, as upstream's would; past this depth `emit_error` refuses,
/// so a callback that emits one diagnostic for each one it gets ends with
/// an error instead of recursing until the stack overflows.
constexpr unsigned kMaxDeliveryDepth = 16;
/// The deliveries in progress on this thread.
thread_local unsigned deliveryDepth = 0;

/// The Python handlers of one context and the diagnostics waiting for them.
class PythonDiagnostics
    : public std::enable_shared_from_this<PythonDiagnostics> {
public:
  explicit PythonDiagnostics(MLIRContext *context) : context(context) {}

  /// Registers this context's one engine handler. With the GIL.
  void registerWithEngine() {
    context->getDiagEngine().registerHandler(
        [self = shared_from_this()](Diagnostic &diag) {
          return self->offer(diag);
        });
  }

  /// Appends a handler (it runs before those attached earlier). With the GIL.
  void attach(const std::shared_ptr<HandlerState> &handler) {
    std::lock_guard<std::mutex> lock(mutex);
    handlers.push_back(handler);
    numAttached.store(handlers.size(), std::memory_order_release);
  }
  /// Removes a handler: it sees no diagnostic from now on, also none of
  /// a delivery in progress. With the GIL.
  void detach(HandlerState &handler) {
    handler.attached = false;
    std::lock_guard<std::mutex> lock(mutex);
    llvm::erase_if(handlers, [&](const std::shared_ptr<HandlerState> &h) {
      return h.get() == &handler;
    });
    numAttached.store(handlers.size(), std::memory_order_release);
  }

  /// Hands every waiting diagnostic to the handlers, oldest first. With the
  /// GIL, outside the engine; never raises (a callback's exception is
  /// reported as unraisable, as upstream).
  void deliver();

  /// Visits each attached handler's callback (the one reference to it):
  /// what the context's GC traversal reports. With the GIL.
  int traverseCallbacks(visitproc visit, void *arg) {
    std::lock_guard<std::mutex> lock(mutex);
    for (const std::shared_ptr<HandlerState> &handler : handlers)
      Py_VISIT(handler->callback.ptr());
    return 0;
  }

  /// Detaches every handler and drops its callback: the context is in a
  /// cycle that the GC breaks (a callback that keeps a diagnostic keeps its
  /// location, which keeps the context). With the GIL.
  void clearHandlers() {
    std::vector<py::object> callbacks;
    {
      std::lock_guard<std::mutex> lock(mutex);
      for (const std::shared_ptr<HandlerState> &handler : handlers) {
        handler->attached = false;
        callbacks.push_back(std::move(handler->callback));
      }
      handlers.clear();
      numAttached.store(0, std::memory_order_release);
    }
    // Dropped outside the lock: releasing a callback may run Python code.
  }

  /// Drops the waiting diagnostics and detaches every handler: the context
  /// is going away (as upstream, its handlers say `attached == False`).
  void forget() {
    std::lock_guard<std::mutex> lock(mutex);
    waiting.clear();
    contextAlive = false;
    for (const std::shared_ptr<HandlerState> &handler : handlers)
      handler->attached = false;
    handlers.clear();
    numAttached.store(0, std::memory_order_release);
  }

private:
  /// The engine handler: runs under the engine's mutex on the emitting
  /// thread, perhaps without the GIL. Takes the diagnostic when a Python
  /// handler is attached and the emitting thread's DiagnosticCapture (if
  /// any) would not take it: captured errors belong to the MLIRError.
  LogicalResult offer(Diagnostic &diag);

  /// Calls the handlers, newest first, until one returns True; prints an
  /// unhandled error as the engine does when no handler takes it.
  void deliverOne(PyMlirContext &pyContext, const DiagnosticRecord &record);

  static int runPendingDelivery(void *weakSelf);
  /// Asks the main thread to deliver the waiting diagnostics (a pending
  /// call), unless it is asked already. Needs no GIL.
  void scheduleDelivery();

public:
  /// Calls of this context in progress that deliver the waiting diagnostics
  /// when they return (outermost DiagnosticCaptures). While there is one,
  /// another thread's diagnostic waits for it rather than for a pending
  /// call, which would run the handlers on the main thread wherever it is:
  /// inside the `with lock:` that the handler takes too (a deadlock), or
  /// in the middle of an import.
  void beginDeliveringCall() {
    deliveringCalls.fetch_add(1, std::memory_order_acq_rel);
  }
  /// `delivers`: the call delivers now (it holds the GIL); else a pending
  /// call does.
  void endDeliveringCall(bool delivers) {
    deliveringCalls.fetch_sub(1, std::memory_order_acq_rel);
    if (!delivers)
      scheduleDelivery();
  }

private:
  std::atomic<unsigned> deliveringCalls{0};

  MLIRContext *const context;
  /// Guards what follows; taken by the engine handler on any thread.
  std::mutex mutex;
  std::vector<std::shared_ptr<HandlerState>> handlers;
  std::deque<DiagnosticRecord> waiting;
  bool pendingCallScheduled = false;
  bool contextAlive = true;
  /// `handlers.size()`, read by the engine handler without the mutex.
  std::atomic<size_t> numAttached{0};
};

/// The PythonDiagnostics of each context that had a handler attached.
/// GIL-protected.
llvm::DenseMap<MLIRContext *, std::shared_ptr<PythonDiagnostics>> &
pythonDiagnostics() {
  static auto *map =
      new llvm::DenseMap<MLIRContext *, std::shared_ptr<PythonDiagnostics>>();
  return *map;
}

LogicalResult PythonDiagnostics::offer(Diagnostic &diag) {
  if (numAttached.load(std::memory_order_acquire) == 0 ||
      DiagnosticCapture::takesOnThisThread(context, diag.getSeverity()))
    return failure();
  DiagnosticRecord record = DiagnosticRecord::from(diag);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!contextAlive)
      return failure();
    waiting.push_back(std::move(record));
    // Read after the push, under the lock that delivery takes: a call that
    // ends after this read delivers this diagnostic.
    if (deliveringCalls.load(std::memory_order_acquire) != 0)
      return success();
  }
  scheduleDelivery();
  return success();
}

void PythonDiagnostics::scheduleDelivery() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (pendingCallScheduled || waiting.empty())
      return;
    pendingCallScheduled = true;
  }
  // A catch-all for diagnostics no Python call returns with (those of
  // threads MLIR or C++ code started): the main thread delivers them at its
  // next chance. Py_AddPendingCall needs neither the GIL nor a thread state.
  auto *weakSelf = new std::weak_ptr<PythonDiagnostics>(weak_from_this());
  if (Py_AddPendingCall(&runPendingDelivery, weakSelf) != 0) {
    delete weakSelf;
    std::lock_guard<std::mutex> lock(mutex);
    pendingCallScheduled = false;
  }
}

int PythonDiagnostics::runPendingDelivery(void *weakSelf) {
  std::unique_ptr<std::weak_ptr<PythonDiagnostics>> owned(
      static_cast<std::weak_ptr<PythonDiagnostics> *>(weakSelf));
  if (std::shared_ptr<PythonDiagnostics> self = owned->lock()) {
    {
      std::lock_guard<std::mutex> lock(self->mutex);
      self->pendingCallScheduled = false;
    }
    self->deliver();
  }
  return 0;
}

void PythonDiagnostics::deliver() {
  if (deliveryDepth >= kMaxDeliveryDepth)
    return;
  PyMlirContext *pyContext = PyMlirContext::lookup(context);
  if (!pyContext)
    return;
  // A callback may drop the last reference to the context: keep it (and the
  // locations of the waiting diagnostics) alive until the queue is empty.
  py::object keepAlive = pyContext->getObject();
  // Drains may happen while an exception is being raised: keep it.
  py::error_scope savedError;
  ++deliveryDepth;
  while (true) {
    std::optional<DiagnosticRecord> record;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (waiting.empty() || !contextAlive)
        break;
      record.emplace(std::move(waiting.front()));
      waiting.pop_front();
    }
    deliverOne(*pyContext, *record);
  }
  --deliveryDepth;
}

void PythonDiagnostics::deliverOne(PyMlirContext &pyContext,
                                   const DiagnosticRecord &record) {
  // The handlers of this moment: a callback may attach or detach handlers
  // (a detached one is skipped; an attached one sees the next diagnostic).
  std::vector<std::shared_ptr<HandlerState>> snapshot;
  {
    std::lock_guard<std::mutex> lock(mutex);
    snapshot = handlers;
  }
  py::object diagnostic;
  // MLIR's fatal errors in the handlers end the process, even under a
  // conversion that raises its own (FatalErrors.h).
  FatalErrorsAbort fatalErrorsAbort;
  for (const std::shared_ptr<HandlerState> &handler : llvm::reverse(snapshot)) {
    if (!handler->attached)
      continue;
    try {
      if (!diagnostic)
        diagnostic = diagnosticToPython(
            &pyContext, record,
            py::module_::import("mlir_tracking._errors").attr("Diagnostic"));
      py::object result = callOrPark(handler->callback, diagnostic);
      if (!result.is_none() && result.cast<bool>())
        return;
    } catch (py::error_already_set &e) {
      // As upstream: report, remember, and let other handlers see it.
      handler->hadError = true;
      e.discard_as_unraisable("MLIR diagnostic handler");
    } catch (std::exception &e) {
      handler->hadError = true;
      py::print("MLIR Python diagnostic handler raised exception:", e.what(),
                py::arg("file") = py::module_::import("sys").attr("stderr"));
    }
  }
  // What the engine does with a diagnostic no handler takes.
  if (record.severity != DiagnosticSeverity::Error)
    return;
  llvm::raw_ostream &os = llvm::errs();
  if (!isa<UnknownLoc>(record.location))
    os << record.location << ": ";
  os << "error: " << record.message << '\n';
  os.flush();
}

/// `ir.DiagnosticHandler`: what `attach_diagnostic_handler` returns.
struct PyDiagnosticHandler {
  /// Outlives the context (detach touches only its list); the context's
  /// destruction detaches the handler.
  std::shared_ptr<PythonDiagnostics> owner;
  std::shared_ptr<HandlerState> state;

  void detach() {
    if (!state->attached)
      return;
    owner->detach(*state);
  }
};

PyDiagnosticHandler attachHandler(PyMlirContext &context, py::object callback) {
  if (!PyCallable_Check(callback.ptr()))
    throw py::type_error("the diagnostic handler must be callable");
  std::shared_ptr<PythonDiagnostics> &owner =
      pythonDiagnostics()[context.get()];
  if (!owner) {
    owner = std::make_shared<PythonDiagnostics>(context.get());
    owner->registerWithEngine();
  }
  auto state = std::make_shared<HandlerState>();
  state->callback = std::move(callback);
  // The owner keeps the handler attached when the Python object goes away
  // (as upstream), until detach() or the context's destruction.
  owner->attach(state);
  return PyDiagnosticHandler{owner, std::move(state)};
}
} // namespace

void mlir::tracking::python::deliverWaitingDiagnostics(MLIRContext *context) {
  auto it = pythonDiagnostics().find(context);
  if (it != pythonDiagnostics().end())
    it->second->deliver();
}

int mlir::tracking::python::traverseDiagnosticCallbacks(MLIRContext *context,
                                                        visitproc visit,
                                                        void *arg) {
  auto it = pythonDiagnostics().find(context);
  return it == pythonDiagnostics().end()
             ? 0
             : it->second->traverseCallbacks(visit, arg);
}

void mlir::tracking::python::clearDiagnosticCallbacks(MLIRContext *context) {
  auto it = pythonDiagnostics().find(context);
  if (it != pythonDiagnostics().end())
    it->second->clearHandlers();
}

std::shared_ptr<void>
mlir::tracking::python::holdDiagnosticDelivery(MLIRContext *context) {
  auto it = pythonDiagnostics().find(context);
  if (it == pythonDiagnostics().end())
    return nullptr;
  std::shared_ptr<PythonDiagnostics> diagnostics = it->second;
  diagnostics->beginDeliveringCall();
  return std::shared_ptr<void>(nullptr, [diagnostics](void *) {
    diagnostics->endDeliveringCall(/*delivers=*/PyGILState_Check());
  });
}

void mlir::tracking::python::forgetPythonDiagnostics(MLIRContext *context) {
  auto it = pythonDiagnostics().find(context);
  if (it == pythonDiagnostics().end())
    return;
  it->second->forget();
  pythonDiagnostics().erase(it);
}

void mlir::tracking::python::populateIRDiagnostics(py::module_ &m) {
  py::class_<PyDiagnosticHandler>(
      m, "DiagnosticHandler",
      "A diagnostic handler attached to a context; a context manager that "
      "detaches it on exit.")
      .def("detach", &PyDiagnosticHandler::detach,
           "Detaches the handler (idempotent).")
      .def_property_readonly(
          "attached",
          [](const PyDiagnosticHandler &self) { return self.state->attached; },
          "Whether the handler is attached.")
      .def_property_readonly(
          "had_error",
          [](const PyDiagnosticHandler &self) { return self.state->hadError; },
          "Whether the callback raised an exception.")
      .def(
          "__enter__", [](py::object self) { return self; },
          "Returns the handler.")
      .def(
          "__exit__",
          [](PyDiagnosticHandler &self, py::object, py::object, py::object) {
            self.detach();
          },
          py::arg("exc_type"), py::arg("exc_value"), py::arg("traceback"),
          "Detaches the handler.")
      .def(
          "__repr__",
          [](const PyDiagnosticHandler &self) {
            return std::string("<mlir_tracking.ir.DiagnosticHandler ") +
                   (self.state->attached ? "attached" : "detached") + ">";
          },
          "A short description.");

  auto context =
      py::reinterpret_borrow<py::class_<PyMlirContext>>(m.attr("Context"));
  context
      .def(
          "attach_diagnostic_handler",
          [](PyMlirContext &self, py::object callback) {
            return attachHandler(self, std::move(callback));
          },
          py::arg("callback"),
          "Attaches `callback(diagnostic) -> bool` to the context's "
          "diagnostics; True means handled (later handlers do not see it). "
          "Handlers attached last run first. Errors of calls that raise "
          "MLIRError are captured for the exception and reach handlers "
          "only with `emit_error_diagnostics`. Returns a DiagnosticHandler.")
      .def_property(
          "emit_error_diagnostics",
          [](PyMlirContext &self) {
            return getEmitErrorDiagnostics(self.get());
          },
          [](PyMlirContext &self, bool value) {
            setEmitErrorDiagnostics(self.get(), value);
          },
          "Whether error diagnostics captured for an MLIRError also go to "
          "the attached handlers (default False, as upstream).");

  auto location =
      py::reinterpret_borrow<py::class_<PyLocation>>(m.attr("Location"));
  location.def(
      "emit_error",
      [](PyLocation &self, const std::string &message) {
        if (deliveryDepth >= kMaxDeliveryDepth)
          throw std::runtime_error(
              "Location.emit_error: diagnostic handlers nest " +
              std::to_string(kMaxDeliveryDepth) +
              " deep (a handler emits a diagnostic for each one it gets?)");
        MLIRContext *context = self.location->getContext();
        emitError(self.location) << message;
        // The handlers get it before this call returns, as upstream.
        deliverWaitingDiagnostics(context);
      },
      py::arg("message"),
      "Emits an error diagnostic at this location to the context's "
      "handlers.");
  location.def(
      "_emit_error_on_native_thread",
      [](PyLocation &self, const std::string &message) {
        Location loc = self.location;
        ReleaseGilOrPark release;
        std::thread([&] { emitError(loc) << message; }).join();
      },
      py::arg("message"),
      "For tests: emits an error from a thread C++ started, as C++ code "
      "driving MLIR may; no Python call returns with it.");
}
