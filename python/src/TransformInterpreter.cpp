//===- TransformInterpreter.cpp - dialects.transform.interpreter ----------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// `TransformOptions` and `apply_named_sequence` (upstream names), on the
// tracked route of mlir/Tracking/TransformInterpreter.h: the caller's handles
// survive the script as precisely as the transform dialect's own tracking
// allows, and the entry sequence's results come back as handles.
//
//===----------------------------------------------------------------------===//

#include "Core.h"
#include "IRObjects.h"
#include "Mutation.h"
#include "RunGuard.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tracking/TransformInterpreter.h"

#include <pybind11/stl.h>

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::python;

namespace {
/// `TransformOptions`: upstream's two knobs, with upstream's defaults (both
/// on).
struct PyTransformOptions {
  transform::TransformOptions options;
};

/// `args` as plain lists of objects, one per extra argument: iterating the
/// arguments (or a sequence of ops among them) runs Python code, which may
/// change the IR, so it comes before any IR is read.
std::vector<py::list> copyArguments(const py::object &args) {
  if (!py::isinstance<py::sequence>(args) || py::isinstance<py::str>(args))
    throw py::type_error("args must be a sequence with one Operation "
                         "or list of Operations per extra argument");
  std::vector<py::list> copies;
  for (py::handle arg : copyToList(args)) {
    if (py::isinstance<py::sequence>(arg) && !py::isinstance<py::str>(arg))
      copies.push_back(copyToList(arg));
    else
      copies.push_back(py::list(py::make_tuple(arg)));
  }
  return copies;
}

/// The handles bound to one extra argument (copied by copyArguments).
std::vector<OpHandle> toHandles(const py::list &ops, size_t index,
                                PyMlirContext &context) {
  std::vector<OpHandle> handles;
  for (py::handle item : ops) {
    PyOperation &op = castToOperation(item);
    if (&op.getContext() != &context)
      throw py::value_error("args[" + std::to_string(index) +
                            "]: the operation belongs to another context");
    // Raises InvalidatedHandleError for a handle that is not live.
    op.get();
    handles.push_back(op.getHandle());
  }
  return handles;
}
} // namespace

void mlir::tracking::python::populateTransformInterpreter(py::module_ &m) {
  py::class_<PyTransformOptions>(
      m, "TransformOptions",
      "Options of the transform interpreter (upstream "
      "transform::TransformOptions).")
      .def(py::init<>(), "Creates options with upstream's defaults.")
      .def_property(
          "expensive_checks",
          [](const PyTransformOptions &self) {
            return self.options.getExpensiveChecksEnabled();
          },
          [](PyTransformOptions &self, bool value) {
            self.options.enableExpensiveChecks(value);
          },
          "Check before each transform op that its handles still point to "
          "valid payload (on by default). The tracked interpreter keeps "
          "them on whatever this says: without them a script may return a "
          "freed op's address, reused by a new op, as a live result.")
      .def_property(
          "enforce_single_top_level_transform_op",
          [](const PyTransformOptions &self) {
            return self.options.getEnforceSingleToplevelTransformOp();
          },
          [](PyTransformOptions &self, bool value) {
            self.options.enableEnforceSingleToplevelTransformOp(value);
          },
          "Require a single top-level transform op (on by default).")
      .def(
          "__repr__",
          [](const PyTransformOptions &self) {
            return std::string("TransformOptions(expensive_checks=") +
                   (self.options.getExpensiveChecksEnabled() ? "True"
                                                             : "False") +
                   ", enforce_single_top_level_transform_op=" +
                   (self.options.getEnforceSingleToplevelTransformOp()
                        ? "True"
                        : "False") +
                   ")";
          },
          "The options and their values.");

  m.def(
      "apply_named_sequence",
      [](py::object payloadRoot, py::object transformRoot,
         py::object transformModule, py::object transformOptions,
         py::object args) {
        // Python code first: nothing may run once IR is taken raw.
        std::vector<py::list> arguments = copyArguments(args);
        PyOperation &payload = castToOperation(payloadRoot);
        PyOperation &root = castToOperation(transformRoot);
        PyMlirContext &context = payload.getContext();
        // From a pattern (its driver's worklist would keep erased ops), a
        // PDL function or a type conversion (C++ holds IR across them).
        checkRunAllowedHere(context, "a transform sequence");
        if (&root.getContext() != &context)
          throw py::value_error(
              "the transform root belongs to another context than the "
              "payload root");
        PyOperation *module = nullptr;
        if (!transformModule.is_none()) {
          module = &castToOperation(transformModule);
          if (&module->getContext() != &context)
            throw py::value_error("the transform module belongs to another "
                                  "context than the payload root");
        }
        transform::TransformOptions options;
        if (!transformOptions.is_none())
          options = transformOptions.cast<PyTransformOptions &>().options;
        std::vector<std::vector<OpHandle>> bound;
        for (size_t index = 0; index < arguments.size(); ++index)
          bound.push_back(toHandles(arguments[index], index, context));
        // The script may climb out of the op a nested Python pass runs on.
        checkWholeTreeAccess(*payload.getResolvedOwner(),
                             "a transform sequence");
        // The first run in a context registers the interpreter's ops: not
        // while passes use the context's dialects on other threads.
        if (!context.transformInterpreterReady) {
          checkContextChangeAllowed(
              context, "the first apply_named_sequence in a context");
          prepareTrackedTransformInterpreter(context.get());
          context.transformInterpreterReady = true;
        }

        // Locks the payload's tree like a rewrite driver (refused where a
        // pipeline, another driver or a pin holds it) and verifies it.
        DriverRunLock guard(payload, "apply_named_sequence",
                            "transform interpreter");
        Operation *payloadOp = guard.getOperation();
        Operation *rootOp = root.get();
        ModuleOp library;
        if (module) {
          library = dyn_cast<ModuleOp>(module->get());
          if (!library)
            throw py::type_error("transform_module must be a builtin.module");
        }
        std::vector<TransformSequenceResult> results;
        DiagnosticCapture capture(context.get());
        auto apply = [&] {
          return applyTrackedNamedSequence(context.getRegistry(), payloadOp,
                                           rootOp, library, bound, options,
                                           results, TransformEventSource(),
                                           /*ownsWholeTree=*/true);
        };
        LogicalResult applied = failure();
        if (waitsOnPoolWithoutGIL(context)) {
          // A pass the script runs waits on the thread pool, whose Python
          // passes wait for the GIL. The payload is locked; the script's
          // trees are pinned against changes.
          std::vector<std::unique_ptr<IRPin>> scriptPins;
          // In a Python pass the payload is the pass's: the trees its uses
          // link it to are pinned too (another thread edited a linked
          // value's use list under the interpreter).
          if (!guard.hasOwnLock())
            scriptPins.push_back(std::make_unique<IRPin>(
                payload, "apply_named_sequence", PinKind::ReadsWithoutGIL,
                "while it runs a transform script on it without the GIL"));
          for (PyOperation *script : {&root, module})
            if (script &&
                script->getResolvedOwner() != payload.getResolvedOwner())
              scriptPins.push_back(std::make_unique<IRPin>(
                  *script, "apply_named_sequence", PinKind::ReadsWithoutGIL,
                  "while it runs that transform script without the GIL"));
          py::gil_scoped_release release;
          applied = apply();
        } else {
          // The GIL stays held: no Python thread may touch the IR meanwhile.
          applied = apply();
        }
        // Transforms may have moved blocks and values of the payload.
        context.noteTreeChanged(*payload.getResolvedOwner());
        if (failed(applied))
          capture.raise("Failed to apply named transform sequence");
        guard.succeeded(/*mayMakeInvalidIR=*/true);

        // Making the objects may run Python code (an attribute caster, a gc
        // callback): the ops of later results must stay.
        IRPin pin(payload, "apply_named_sequence", PinKind::ReadOnly,
                  "while it makes the Python objects of its results (an "
                  "attribute caster or a gc callback runs meanwhile)");
        py::list out;
        for (const TransformSequenceResult &result : results) {
          py::list items;
          if (result.isParam) {
            for (Attribute param : result.params)
              items.append(makeAttribute(context, param));
          } else {
            for (const OpHandle &handle : result.ops)
              items.append(PyOperation::forOperation(context, handle.get()));
          }
          out.append(items);
        }
        return out;
      },
      py::arg("payload_root"), py::arg("transform_root"),
      py::arg("transform_module") = py::none(),
      py::arg("transform_options") = py::none(), py::arg("args") = py::tuple(),
      "Applies the named sequence `transform_root` to `payload_root` with "
      "tracking; see mlir_tracking.dialects.transform.interpreter.");
}
