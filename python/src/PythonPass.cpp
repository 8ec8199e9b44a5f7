//===- PythonPass.cpp - Passes written in Python --------------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// `PassManager.add(fn, name=...)`: upstream's signature for a pass whose
// `run` is a Python callable `fn(op, pass_)`. The pass is precise: every IR
// change Python makes goes through the tracking listener. The pass manager
// runs passes with the GIL released, possibly on several threads at once;
// each execution takes the GIL for the duration of the call.
//
//===----------------------------------------------------------------------===//

#include "Rewrite.h"
#include "RunGuard.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Tracking/PassTracking.h"
#include "llvm/ADT/StringSet.h"

#include <pybind11/stl.h>

#include <mutex>
#include <optional>

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::python;

namespace {
class PythonPass;

/// `passmanager.Pass`: what the callable receives as `pass_`.
struct PyPass {
  PythonPass *pass = nullptr;
};

/// Allocates one TypeID per Python pass (pass classes are identified by
/// TypeID; two Python passes must not look like clones of each other).
TypeID allocatePassTypeID() {
  static TypeIDAllocator allocator;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  return allocator.allocate();
}

/// Op names the passes anchor on, interned: a Pass keeps a StringRef.
std::optional<StringRef> internOpName(const std::optional<std::string> &name) {
  if (!name || name->empty())
    return std::nullopt;
  static llvm::StringSet<> names;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  return names.insert(*name).first->getKey();
}

class PythonPass : public Pass {
public:
  PythonPass(TypeID id, std::string name, std::string argument,
             std::string description, std::optional<StringRef> opName,
             std::shared_ptr<py::object> fn)
      : Pass(id, opName), name(std::move(name)), argument(std::move(argument)),
        description(std::move(description)), fn(std::move(fn)) {
    registerPreciseInstance(this);
  }
  PythonPass(const PythonPass &other)
      : Pass(other), name(other.name), argument(other.argument),
        description(other.description), fn(other.fn) {
    registerPreciseInstance(this);
  }
  ~PythonPass() override { unregisterPreciseInstance(this); }

  StringRef getName() const override { return name; }
  StringRef getArgument() const override { return argument; }
  StringRef getDescription() const override { return description; }
  bool canScheduleOn(RegisteredOperationName opInfo) const override {
    return true;
  }
  std::unique_ptr<Pass> clonePass() const override {
    return std::make_unique<PythonPass>(*this);
  }

  void runOnOperation() override {
    Operation *op = getOperation();
    AcquireGilOrPark gil;
    PyMlirContext *context = PyMlirContext::lookup(op->getContext());
    if (!context) {
      op->emitError() << "Python pass '" << argument
                      << "' runs on IR of a context not created by "
                         "mlir_tracking";
      return signalPassFailure();
    }
    // The run locked this IR against other threads (RunGuard.h); the pass
    // is part of that run, so its Python code may use the IR under its op.
    // Only that: a nested pass shares the tree with passes the pass manager
    // runs on the op's siblings, on other threads.
    std::shared_ptr<RootOwner> tree = context->getOwner(getRootOf(op));
    std::optional<ScopedRunAccess> access;
    if (tree->running)
      access.emplace(*tree->running, op->getParentOp() ? op : nullptr,
                     "the Python pass '" + argument + "' on '" +
                         op->getName().getStringRef().str() + "'");
    RunAnchor anchor(op, "the Python pass '" + argument + "'");
    PythonRun run;
    std::string error;
    // The callable may keep its Pass object: it must not point at this pass
    // once it returned, however it returned.
    py::object pyPass = py::cast(PyPass{this});
    try {
      callOrPark(*fn, PyOperation::forOperation(*context, op), pyPass);
    } catch (py::error_already_set &raised) {
      error = raised.what();
      if (!raised.matches(PyExc_Exception) && tree->running &&
          !tree->running->interruption)
        tree->running->interruption = raised;
    } catch (const std::exception &raised) {
      error = raised.what();
    }
    pyPass.cast<PyPass &>().pass = nullptr;
    // The pass may have left ops outside the run's IR that use its IR (made
    // detached, cloned, moved out) and kept them: the pipeline's threads
    // edit those use lists from now on without the GIL.
    PassLinks links = tree->running
                          ? lockTreesLinkedByPass(*context, op, *tree->running)
                          : PassLinks::Kept;
    if (links != PassLinks::Kept && error.empty()) {
      if (links == PassLinks::UsedFromOutside)
        op->emitError()
            << "Python pass '" << argument
            << "' left ops outside the IR it runs on (created or cloned "
               "without being inserted, detached or moved out, or in another "
               "function) that use values or blocks of it, or it uses those "
               "of another function, which later passes could free while "
               "they are still used; erase those ops or insert them before "
               "the pass returns";
      else
        op->emitError() << "Python pass '" << argument
                        << "' linked IR outside its op by uses that the "
                           "Python pass on another op linked too (their ops "
                           "are rewritten on two threads, which would both "
                           "edit its use lists); link only IR the pass made";
      return signalPassFailure();
    }
    if (!error.empty()) {
      op->emitError() << "Python pass '" << argument << "' raised: " << error;
      return signalPassFailure();
    }
    // The run checked its IR before it started; what the pass leaves is
    // verified and maybe printed next (MLIR's verifier and printers crash
    // on some shapes that Python can build), and later passes read it.
    if (Operation *unverifiable = findUnverifiableOp(op)) {
      unverifiable->emitOpError()
          << describeUnverifiableOp(unverifiable)
          << " (left by the Python pass '" << argument << "')";
      return signalPassFailure();
    }
    if (tree->running && tree->running->printsCustomForm)
      if (Operation *unprintable = findUnprintableOp(op)) {
        unprintable->emitOpError()
            << "cannot be printed in its custom form ("
            << describeUnprintableOp(unprintable)
            << "), and the run prints IR (left by the Python pass '" << argument
            << "')";
        return signalPassFailure();
      }
  }

  void fail() { signalPassFailure(); }

private:
  std::string name, argument, description;
  /// Shared by the clones; released with the GIL held.
  std::shared_ptr<py::object> fn;
};

struct GilReleasingDeleter {
  void operator()(py::object *object) const {
    AcquireGilOrPark gil;
    delete object;
  }
};
} // namespace

void mlir::tracking::python::populatePythonPasses(py::module_ &m) {
  py::class_<PyPass>(m, "Pass",
                     "The running Python pass, as its callable sees it.")
      .def(
          "signal_pass_failure",
          [](PyPass &self) {
            if (!self.pass)
              throw std::runtime_error(
                  "signal_pass_failure called after the pass returned");
            self.pass->fail();
          },
          "Marks this run of the pass failed (PassManager.run then raises "
          "MLIRError).")
      .def_property_readonly(
          "name",
          [](PyPass &self) -> py::object {
            if (!self.pass)
              return py::none();
            return py::str(self.pass->getArgument().str());
          },
          "The pass argument.")
      .def("__repr__", [](PyPass &self) {
        if (!self.pass)
          return std::string("<mlir_tracking.passmanager.Pass (finished)>");
        return "<mlir_tracking.passmanager.Pass '" +
               self.pass->getArgument().str() + "'>";
      });

  // An overload of the C++ `PassManager.add(pipeline)`, in this file so that
  // the pass manager's own file stays about running pipelines.
  py::object cls = m.attr("PassManager");
  py::cpp_function addPythonPass(
      [](py::object self, py::function fn, std::optional<std::string> name,
         std::optional<std::string> argument,
         std::optional<std::string> description,
         std::optional<std::string> opName) {
        // Not while it runs: MLIR iterates the passes it would add to (a
        // Python pass adding one to its own pass manager segfaulted).
        PassManager *pm = getIdlePassManager(self, "PassManager.add");
        // Upstream's default, `run.__name__` (a callable object has its
        // class's).
        std::string passName =
            name ? *name
                 : py::str(py::hasattr(fn, "__name__")
                               ? fn.attr("__name__")
                               : py::type::of(fn).attr("__name__"))
                       .cast<std::string>();
        std::string passArgument = argument ? *argument : passName;
        // Own the callable through a holder that takes the GIL to release
        // it: the pass manager may be destroyed without it.
        auto holder = std::shared_ptr<py::object>(new py::object(fn),
                                                  GilReleasingDeleter());
        std::optional<StringRef> anchor = internOpName(opName);
        auto pass = std::make_unique<PythonPass>(
            allocatePassTypeID(), passName, passArgument,
            description.value_or(""), anchor, std::move(holder));
        // Nested like `func.func(...)` in a pipeline string; adjacent nested
        // pipelines are merged by the pass manager.
        if (anchor && pm->getOpAnchorName() != *anchor)
          pm->nest(*anchor).addPass(std::move(pass));
        else
          pm->addPass(std::move(pass));
      },
      py::name("add"), py::is_method(cls),
      py::sibling(py::getattr(cls, "add", py::none())), py::arg("run"),
      py::arg("name") = py::none(), py::arg("argument") = py::none(),
      py::arg("description") = py::none(), py::arg("op_name") = py::none(),
      "Adds a pass written in Python (upstream's arguments): `run(op, pass_)` "
      "runs on each op the pass is scheduled on (with the GIL; one call at a "
      "time). `name` defaults to `run.__name__`, `argument` to the name; "
      "without `op_name` (or with '') it runs on any op. It is "
      "precise: the changes it makes through mlir_tracking are tracked. "
      "`pass_.signal_pass_failure()` fails it; an exception fails it with "
      "the exception's message.");
  cls.attr("add") = addPythonPass;
}
