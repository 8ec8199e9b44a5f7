//===- IRDiagnostics.cpp - Diagnostic handlers attached from Python -------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// `Context.attach_diagnostic_handler(callback)`, `Diagnostic`,
// `DiagnosticHandler`, `Context.emit_error_diagnostics` and
// `Location.emit_error`, as upstream. A handler is an MLIR DiagnosticEngine
// handler that copies the diagnostic into C++ data, takes the GIL and calls
// the Python callback with an `ir.Diagnostic` (a snapshot that stays valid
// after the callback, unlike upstream's).
//
//===----------------------------------------------------------------------===//

#include "Downcast.h"
#include "IRCompat.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::python;

namespace {
/// What the MLIR handler and the Python handler object share.
struct HandlerState {
  MLIRContext *context;
  DiagnosticEngine::HandlerID id = 0;
  py::object callback;
  bool attached = true;
  bool hadError = false;
  ~HandlerState() {
    // Destroyed by the DiagnosticEngine (detach, context destruction) or by
    // the last Python handler object: release the callback under the GIL.
    py::gil_scoped_acquire gil;
    callback = py::object();
  }
};

/// `ir.DiagnosticHandler`: what `attach_diagnostic_handler` returns.
struct PyDiagnosticHandler {
  /// The context, kept alive while attached (so detach never touches a
  /// destroyed engine); None after detach.
  py::object context;
  std::shared_ptr<HandlerState> state;

  void detach() {
    if (!state->attached)
      return;
    state->attached = false;
    state->context->getDiagEngine().eraseHandler(state->id);
    context = py::none();
  }
};

PyDiagnosticHandler attachHandler(PyMlirContext &context, py::object callback) {
  if (!PyCallable_Check(callback.ptr()))
    throw py::type_error("the diagnostic handler must be callable");
  auto state = std::make_shared<HandlerState>();
  state->context = context.get();
  state->callback = std::move(callback);
  MLIRContext *mlirContext = context.get();
  // The engine owns a strong reference: the handler stays attached when
  // the Python object goes away (as upstream), until detach() or the
  // context's destruction.
  state->id = mlirContext->getDiagEngine().registerHandler(
      [state, mlirContext](Diagnostic &diag) -> LogicalResult {
        DiagnosticRecord record = DiagnosticRecord::from(diag);
        py::gil_scoped_acquire gil;
        if (!state->attached)
          return failure();
        PyMlirContext *pyContext = PyMlirContext::lookup(mlirContext);
        if (!pyContext)
          return failure();
        try {
          py::object result = state->callback(diagnosticToPython(
              pyContext, record,
              py::module_::import("mlir_tracking._errors").attr("Diagnostic")));
          return success(result.is_none() ? false : result.cast<bool>());
        } catch (py::error_already_set &e) {
          // As upstream: report, remember, and let other handlers see it.
          state->hadError = true;
          e.discard_as_unraisable("MLIR diagnostic handler");
        } catch (std::exception &e) {
          state->hadError = true;
          py::print(
              "MLIR Python diagnostic handler raised exception:", e.what(),
              py::arg("file") = py::module_::import("sys").attr("stderr"));
        }
        return failure();
      });
  return PyDiagnosticHandler{context.getObject(), std::move(state)};
}
} // namespace

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
        emitError(self.location) << message;
      },
      py::arg("message"),
      "Emits an error diagnostic at this location to the context's "
      "handlers.");
}
