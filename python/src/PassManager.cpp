//===- PassManager.cpp - passmanager.PassManager
//---------------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "Core.h"
#include "Mutation.h"
#include "Rewrite.h"
#include "RunGuard.h"

#include "mlir-c/Bindings/Python/Interop.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tracking/PassTracking.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/stl.h>

#include <optional>

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::python;

namespace {
/// `passmanager.PassManager`: an mlir::PassManager with the tracking
/// instrumentation, so handles survive (or are invalidated) precisely.
struct PyPassManager {
  PyPassManager(PyMlirContext &context, StringRef anchor)
      : contextObject(context.getObject()), context(&context),
        passManager(std::make_unique<PassManager>(context.get(), anchor)) {
    enableTracking(*passManager, context.getRegistry());
    owners().insert(passManager.get());
  }
  /// Adopts `adopted`, tracked already.
  PyPassManager(PyMlirContext &context, std::unique_ptr<PassManager> adopted)
      : contextObject(context.getObject()), context(&context),
        passManager(std::move(adopted)) {
    owners().insert(passManager.get());
  }
  ~PyPassManager() {
    if (passManager)
      owners().erase(passManager.get());
  }
  py::object contextObject;
  PyMlirContext *context;
  std::unique_ptr<PassManager> passManager;
  /// The pipeline while `run` runs it (GIL-protected), else empty: an MLIR
  /// PassManager runs one op at a time and must not change while it runs.
  std::optional<std::string> running;
  /// The pass manager verifies the IR after each pass (MLIR's default):
  /// false after enable_verifier(False), or once C++ code got the pass
  /// manager through a capsule (it may have turned it off).
  bool verifiesOutput = true;
  /// enable_ir_printing(print_module_scope=True) was called: the printer
  /// then reads the whole module from whichever thread runs a pass, so a
  /// run needs the context's multi-threading off (checked at `run` too:
  /// it may have been turned back on since).
  bool printsModuleScope = false;

  /// The flags of a pass manager released by `_testing_release`, which a
  /// later `_CAPICreate` of it takes back.
  struct Released {
    /// Keeps the context alive: the leaked pass manager refers to it.
    py::object contextObject;
    bool verifiesOutput;
    bool printsModuleScope;
  };

  /// The pass managers owned by a PassManager object (GIL-protected): a
  /// capsule of one may not be adopted by another (both would free it).
  static llvm::DenseSet<PassManager *> &owners() {
    static auto *set = new llvm::DenseSet<PassManager *>();
    return *set;
  }
  /// Released pass managers (GIL-protected), tracked: each is leaked until
  /// `_CAPICreate` adopts it (C code must not destroy one).
  static llvm::DenseMap<PassManager *, Released> &released() {
    static auto *map = new llvm::DenseMap<PassManager *, Released>();
    return *map;
  }

  /// Throws if `_testing_release` released the pass manager.
  void checkNotReleased(StringRef what) const {
    if (!passManager)
      throw py::value_error(what.str() +
                            ": the PassManager was released "
                            "(_testing_release); adopt its pass manager with "
                            "PassManager._CAPICreate(capsule)");
  }

  /// Throws if the pass manager is released or running; `what` names the
  /// refused call.
  void checkNotRunning(StringRef what) const {
    checkNotReleased(what);
    if (running)
      throw IRInUseException(
          what.str() + ": the PassManager is running '" + *running +
          "' (in another thread, or this call comes from one of its "
          "passes); call it after the run returns");
  }
};

} // namespace

PassManager *mlir::tracking::python::getTrackedPassManager(py::handle object,
                                                           StringRef what) {
  auto &self = object.cast<PyPassManager &>();
  self.checkNotReleased(what);
  return self.passManager.get();
}

PassManager *mlir::tracking::python::getIdlePassManager(py::handle object,
                                                        StringRef what) {
  auto &self = object.cast<PyPassManager &>();
  self.checkNotRunning(what);
  return self.passManager.get();
}

namespace {
std::string printPipeline(OpPassManager &pm) {
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  return text;
}

/// Passes of `pipeline` that print IR with the custom printers, which crash
/// on some IR that verifies (findUnprintableOp; str() falls back to the
/// generic form, these cannot): print-ir and its kind print the op they run
/// on, a transform script any op of the tree (the script may come from
/// library files: every transform interpreter counts). Raises ValueError if
/// the run's IR holds such an op, or if the script in the tree nests pass
/// options too deep, and marks the run for its Python passes, which check
/// what they leave. (IR printing around passes skips such a dump instead:
/// enable_ir_printing.) A print-ir anchored on other ops counts too.
void checkPrintable(StringRef pipeline, RunLock &lock) {
  Operation *op = lock.getOperation();
  std::string printer;
  Operation *printed = op;
  if (StringRef pass = findIRPrintingPass(pipeline); !pass.empty())
    printer = "the pass '" + pass.str() + "' prints IR";
  if (pipelineMayRunTransformScript(pipeline)) {
    printed = getRootOf(op);
    if (Operation *scriptPrinter = checkTransformScript(printed))
      printer = "the transform script's '" +
                scriptPrinter->getName().getStringRef().str() +
                "' may print IR";
    else if (printer.empty())
      printer = "a transform script (maybe in a library file) may print IR";
  }
  if (printer.empty())
    return;
  lock.setPrintsCustomForm();
  Operation *unprintable = findUnprintableOp(printed);
  if (!unprintable)
    return;
  throw py::value_error("PassManager.run: " + printer + ", and '" +
                        unprintable->getName().getStringRef().str() +
                        "' cannot be printed in its custom form (" +
                        describeUnprintableOp(unprintable) + ")");
}
} // namespace

void mlir::tracking::python::populatePassManager(py::module_ &m) {
  py::enum_<PassDisplayMode>(m, "PassDisplayMode",
                             "How enable_statistics shows the statistics.")
      .value("LIST", PassDisplayMode::List,
             "Each pass once, its statistics summed over the pipeline.")
      .value("PIPELINE", PassDisplayMode::Pipeline,
             "In the pipeline's structure.");
  py::class_<PyPassManager>(
      m, "PassManager",
      "A pass manager whose runs keep operation handles precise: precise "
      "passes (canonicalize, cse, opted-in passes) update them, every other "
      "pass invalidates only the handles nested in its anchor.")
      .def(py::init([](const std::string &anchorOp, py::object context) {
             return std::make_unique<PyPassManager>(
                 PyMlirContext::resolve(context), anchorOp);
           }),
           py::arg("anchor_op") = "any", py::arg("context") = py::none(),
           "Creates an empty pass manager anchored on `anchor_op`.")
      .def_static(
          "parse",
          [](const std::string &pipeline, py::object context) {
            PyMlirContext &ctx = PyMlirContext::resolve(context);
            checkPipelineNesting(pipeline, "the pipeline");
            std::string errors;
            llvm::raw_string_ostream os(errors);
            FailureOr<OpPassManager> parsed = parsePassPipeline(pipeline, os);
            if (failed(parsed))
              throw py::value_error(StringRef(errors).trim().str());
            auto result =
                std::make_unique<PyPassManager>(ctx, parsed->getOpAnchorName());
            static_cast<OpPassManager &>(*result->passManager) =
                std::move(*parsed);
            return result;
          },
          py::arg("pipeline"), py::arg("context") = py::none(),
          "Parses a pipeline such as 'builtin.module(canonicalize,cse)'; "
          "ValueError (naming the unknown pass) on failure.")
      .def(
          "add",
          [](PyPassManager &self, const std::string &pipeline) {
            self.checkNotRunning("PassManager.add");
            checkPipelineNesting(pipeline, "the pipeline");
            std::string errors;
            llvm::raw_string_ostream os(errors);
            if (failed(parsePassPipeline(pipeline, *self.passManager, os)))
              throw py::value_error(StringRef(errors).trim().str());
          },
          py::arg("pipeline"),
          "Adds passes from a textual pipeline such as 'canonicalize,cse'; "
          "ValueError on failure.")
      .def(
          "run",
          [](PyPassManager &self, py::object operation,
             bool /*invalidateOps*/) {
            // `invalidate_ops` is accepted for upstream compatibility:
            // upstream invalidates its live Python op objects after a run
            // (they may point to freed ops); here every op object is a
            // tracked handle that the run updates, so there is nothing to
            // invalidate, whatever the value.
            PyOperation &target = castToOperation(operation);
            checkSameContext(*self.context, target.getContext().get(),
                             "an operation");
            self.checkNotRunning("PassManager.run");
            // Module-scope IR printing from the worker threads of a
            // multi-threaded run prints the whole module while other
            // threads rewrite it (upstream checks only when printing is
            // set up; threading may have been turned on since).
            if (self.printsModuleScope &&
                self.context->get()->isMultithreadingEnabled())
              throw py::value_error(
                  "PassManager.run: print_module_scope needs multi-threading "
                  "disabled (Context.enable_multithreading(False)); it was "
                  "turned on after enable_ir_printing(print_module_scope="
                  "True)");
            checkRunAllowedHere(target.getContext(), "a pass pipeline");
            std::string pipeline = printPipeline(*self.passManager);
            // Made first, so that the diagnostic handlers attached from
            // Python get the run's diagnostics once the IR is unlocked.
            DiagnosticCapture capture(self.context->get(),
                                      DiagnosticCapture::End::CallDone);
            // Locks the op's IR tree: other threads' accesses to it raise.
            RunLock lock(target, pipeline);
            InputVerification verification(target, lock.getOperation(),
                                           "PassManager.run");
            checkPrintable(pipeline, lock);
            self.running = pipeline;
            llvm::scope_exit clear([&] { self.running.reset(); });
            LogicalResult result = failure();
            if (self.context->get()->isMultithreadingEnabled()) {
              // Counted with the GIL, before it is released and after it is
              // taken back (waitsOnPoolWithoutGIL).
              ++self.context->runsWithoutGIL;
              llvm::scope_exit uncount([&] { --self.context->runsWithoutGIL; });
              ReleaseGilOrPark release;
              result = self.passManager->run(lock.getOperation());
            } else {
              // Without threading the context's uniquers take no locks: no
              // other thread may use the context, so keep the GIL.
              result = self.passManager->run(lock.getOperation());
            }
            if (failed(result) && lock.getRun().interruption) {
              lock.getRun().interruption->restore();
              throw py::error_already_set();
            }
            if (failed(result))
              capture.raise("Failure while executing pass pipeline");
            // Without its verifier a pipeline's output is unchecked (a
            // transform script in it may annotate any attribute).
            verification.succeeded(self.verifiesOutput,
                                   /*mayMakeInvalidIR=*/true);
          },
          py::arg("operation"), py::arg("invalidate_ops") = true,
          "Runs the pipeline on `operation` (an Operation or a Module); raises "
          "MLIRError with the diagnostics of this run if a pass fails. The "
          "GIL is released while MLIR runs (if the context is "
          "multi-threaded); meanwhile the IR tree of `operation` is locked: "
          "any access to it from Python, and another run on it, raise "
          "RuntimeError. `invalidate_ops` (upstream's) changes nothing: "
          "handles are tracked, so no op object needs invalidating. "
          "ValueError if enable_ir_printing(print_module_scope=True) was "
          "called and the context is multi-threaded.")
      .def(
          "enable_ir_printing",
          [](PyPassManager &self, bool printBeforeAll, bool printAfterAll,
             bool printModuleScope, bool printAfterChange,
             bool printAfterFailure, std::optional<int64_t> largeElementsLimit,
             std::optional<int64_t> largeResourceLimit, bool enableDebugInfo,
             bool printGenericOpForm,
             std::optional<std::string> treePrintingDirPath) {
            self.checkNotRunning("PassManager.enable_ir_printing");
            if (printModuleScope &&
                self.context->get()->isMultithreadingEnabled())
              throw py::value_error(
                  "print_module_scope needs multi-threading disabled first "
                  "(Context.enable_multithreading(False))");
            if (printModuleScope)
              self.printsModuleScope = true;
            // MLIR prints with the flags it is given, and custom printers
            // (or the printer's verification) crash on some IR that Python
            // can build or that a Python pass leaves: such a dump is
            // skipped, with a line that says why.
            auto guarded = [printGenericOpForm,
                            printModuleScope](bool enabled, const char *when) {
              return [=](Pass *pass, Operation *op) {
                if (!enabled || printGenericOpForm)
                  return enabled;
                std::string why = describeCrashingPrint(
                    printModuleScope ? getRootOf(op) : op);
                if (why.empty())
                  return true;
                llvm::errs()
                    << "// -----// IR Dump " << when << " " << pass->getName()
                    << " (" << pass->getArgument() << ") skipped: " << why
                    << "; print_generic_op_form=True prints it "
                       "//----- //\n\n";
                return false;
              };
            };
            auto before = guarded(printBeforeAll, "Before");
            auto after = guarded(printAfterAll, "After");
            OpPrintingFlags flags;
            // As upstream: the elements limit also elides resources, unless
            // a resource limit of its own is given.
            if (largeElementsLimit) {
              flags.elideLargeElementsAttrs(*largeElementsLimit);
              flags.elideLargeResourceString(*largeElementsLimit);
            }
            if (largeResourceLimit)
              flags.elideLargeResourceString(*largeResourceLimit);
            if (enableDebugInfo)
              flags.enableDebugInfo();
            if (printGenericOpForm)
              flags.printGenericOpForm();
            if (treePrintingDirPath)
              self.passManager->enableIRPrintingToFileTree(
                  before, after, printModuleScope, printAfterChange,
                  printAfterFailure, *treePrintingDirPath, flags);
            else
              self.passManager->enableIRPrinting(
                  before, after, printModuleScope, printAfterChange,
                  printAfterFailure, llvm::errs(), flags);
          },
          py::arg("print_before_all") = false,
          py::arg("print_after_all") = true,
          py::arg("print_module_scope") = false,
          py::arg("print_after_change") = false,
          py::arg("print_after_failure") = false,
          py::arg("large_elements_limit") = py::none(),
          py::arg("large_resource_limit") = py::none(),
          py::arg("enable_debug_info") = false,
          py::arg("print_generic_op_form") = false,
          py::arg("tree_printing_dir_path") = py::none(),
          "Prints the IR around passes to stderr (or to a file tree).")
      .def(
          "enable_verifier",
          [](PyPassManager &self, bool enable) {
            self.checkNotRunning("PassManager.enable_verifier");
            self.passManager->enableVerifier(enable);
            self.verifiesOutput = enable;
          },
          py::arg("enable"), "Turns the verifier after each pass on or off.")
      .def(
          "enable_timing",
          [](PyPassManager &self) {
            self.checkNotRunning("PassManager.enable_timing");
            self.passManager->enableTiming();
          },
          "Times the passes and analyses of every run; MLIR prints the "
          "report to stderr when the pass manager is destroyed.")
      .def(
          "enable_statistics",
          [](PyPassManager &self, PassDisplayMode displayMode) {
            self.checkNotRunning("PassManager.enable_statistics");
            // PassDisplayMode(n) makes any value.
            if (displayMode != PassDisplayMode::List &&
                displayMode != PassDisplayMode::Pipeline)
              throw py::value_error("PassManager.enable_statistics: "
                                    "displayMode must be PassDisplayMode.LIST "
                                    "or PassDisplayMode.PIPELINE");
            self.passManager->enableStatistics(displayMode);
          },
          py::arg("displayMode") = PassDisplayMode::Pipeline,
          "Collects the passes' statistics; MLIR prints them to stderr "
          "after each run (empty with an LLVM built without statistics, "
          "such as Debian's).")
      .def_property_readonly(
          "context", [](PyPassManager &self) { return self.contextObject; },
          "The context of the pass manager.")
      .def_property_readonly(
          "_CAPIPtr",
          [](PyPassManager &self) {
            self.checkNotReleased("PassManager._CAPIPtr");
            self.verifiesOutput = false;
            return py::reinterpret_steal<py::object>(
                PyCapsule_New(wrap(self.passManager.get()).ptr,
                              MLIR_PYTHON_CAPSULE_PASS_MANAGER, nullptr));
          },
          "A capsule with the MlirPassManager.")
      .def(
          "_testing_release",
          [](PyPassManager &self) {
            self.checkNotRunning("PassManager._testing_release");
            PassManager *pm = self.passManager.release();
            PyPassManager::owners().erase(pm);
            PyPassManager::released()[pm] = {self.contextObject,
                                             self.verifiesOutput,
                                             self.printsModuleScope};
          },
          "Releases (leaks) the backing pass manager (testing): this object "
          "can no longer be used, PassManager._CAPICreate of its capsule "
          "adopts the pass manager.")
      .def_static(
          "_CAPICreate",
          [](py::object capsule) {
            MlirPassManager raw = mlirPythonCapsuleToPassManager(capsule.ptr());
            if (!raw.ptr)
              throw py::error_already_set();
            PassManager *pm = unwrap(raw);
            if (PyPassManager::owners().contains(pm))
              throw py::value_error(
                  "PassManager._CAPICreate: the pass manager is owned by "
                  "another PassManager object (both would free it); call "
                  "_testing_release() on that one first");
            // Only ours: one made elsewhere may lack the tracking
            // instrumentation (its passes would free ops under handles), and
            // whether it has it cannot be asked.
            auto it = PyPassManager::released().find(pm);
            if (it == PyPassManager::released().end())
              throw py::value_error(
                  "PassManager._CAPICreate: adopts only a pass manager "
                  "released by PassManager._testing_release()");
            PyPassManager::Released flags = std::move(it->second);
            PyPassManager::released().erase(it);
            // The released map kept the context alive.
            auto result = std::make_unique<PyPassManager>(
                flags.contextObject.cast<PyMlirContext &>(),
                std::unique_ptr<PassManager>(pm));
            result->verifiesOutput = flags.verifiesOutput;
            result->printsModuleScope = flags.printsModuleScope;
            return result;
          },
          py::arg("capsule"),
          "Adopts the MlirPassManager of a capsule (upstream's name), taking "
          "ownership: only one released by _testing_release (ValueError "
          "otherwise, naming another PassManager object that owns it).")
      .def(
          "__str__",
          [](PyPassManager &self) {
            if (!self.passManager)
              return std::string("<released>");
            return self.running ? *self.running
                                : printPipeline(*self.passManager);
          },
          "The pipeline as text.")
      .def(
          "__repr__",
          [](PyPassManager &self) {
            if (!self.passManager)
              return std::string(
                  "<mlir_tracking.passmanager.PassManager (released)>");
            if (self.running)
              return "<mlir_tracking.passmanager.PassManager '" +
                     *self.running + "' (running)>";
            return "<mlir_tracking.passmanager.PassManager '" +
                   printPipeline(*self.passManager) + "'>";
          },
          "A short description.");
}
