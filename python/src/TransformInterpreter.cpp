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

#include "RegistryNotifier.h"

#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/Utils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Tracking/TransformInterpreter.h"
#include "llvm/ADT/DenseSet.h"

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

/// The top-level ops of the symbol table `op` (its only block), in order.
SmallVector<Operation *> topLevelOps(Operation *op) {
  SmallVector<Operation *> ops;
  for (Operation &nested : op->getRegion(0).front())
    ops.push_back(&nested);
  return ops;
}

/// `copy_symbols_and_merge_into(target, other)` (upstream's name):
/// transform::detail::mergeSymbolsInto(target, a clone of other), on
/// tracked terms. MLIR's merge changes `target` without a rewriter: it
/// renames colliding private symbols (and their uses), moves the copied
/// symbols in, erases a function declaration that a definition of the same
/// name replaces (of either side), and may fail half-way (renamed, nothing
/// moved). So it runs first on a copy of `target`: a failure raises
/// MLIRError and leaves `target` as it was; a success tells which ops of
/// `target` the merge erases, whose handles are erased before the merge
/// runs on `target` itself.
void copySymbolsAndMergeInto(py::object targetObject, py::object otherObject) {
  PyOperation &target = castToOperation(targetObject);
  PyOperation &other = castToOperation(otherObject);
  PyMlirContext &context = target.getContext();
  if (&other.getContext() != &context)
    throw py::value_error("copy_symbols_and_merge_into: `other` belongs to "
                          "another context than `target`");
  // From a pattern, a PDL function or a type conversion: C++ holds IR.
  checkRunAllowedHere(context, "copy_symbols_and_merge_into");
  // MLIR's merge verifies on the context's thread pool, where the Python
  // passes of a pipeline running without the GIL wait for it.
  if (waitsOnPoolWithoutGIL(context))
    throw IRInUseException(
        "copy_symbols_and_merge_into: a pass pipeline of this context is "
        "running without the GIL (its Python passes wait for the GIL on the "
        "thread pool the merge verifies on); call it after the run returns");
  Operation *targetOp = target.get();
  Operation *otherOp = other.get();
  for (auto [op, name] :
       {std::pair(targetOp, "target"), std::pair(otherOp, "other")})
    if (!op->hasTrait<OpTrait::SymbolTable>() || op->getNumRegions() != 1 ||
        !op->getRegion(0).hasOneBlock())
      throw py::value_error(std::string("copy_symbols_and_merge_into: `") +
                            name +
                            "` must be a symbol table with one block "
                            "(a builtin.module), got '" +
                            op->getName().getStringRef().str() + "'");
  // The copied symbols must not use values of `other` outside them: those
  // die with the copy once the symbols moved out.
  for (Operation &symbol : otherOp->getRegion(0).front()) {
    if (!isa<SymbolOpInterface>(symbol))
      continue;
    WalkResult used = symbol.walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        Block *block = operand.getParentBlock();
        Operation *holder = block ? block->getParentOp() : nullptr;
        if (Operation *definer = operand.getDefiningOp())
          holder = definer;
        if (!holder || !symbol.isAncestor(holder))
          return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (used.wasInterrupted())
      throw py::value_error("copy_symbols_and_merge_into: the symbol '" +
                            symbol.getName().getStringRef().str() +
                            "' of `other` uses a value defined outside it");
  }
  // MLIR's merge verifies both (its verifier crashes on some IR Python can
  // build; verifyIR checks that first) and reads the transform dialect.
  for (auto [op, name] :
       {std::pair(targetOp, "target"), std::pair(otherOp, "other")}) {
    DiagnosticCapture capture(context.get());
    if (failed(verifyIR(op)))
      capture.raise(std::string("copy_symbols_and_merge_into: `") + name +
                    "` does not verify");
  }
  if (!context.get()->getLoadedDialect<transform::TransformDialect>()) {
    checkContextChangeAllowed(context, "copy_symbols_and_merge_into");
    context.get()->getOrLoadDialect<transform::TransformDialect>();
  }

  // The trial, on copies.
  SmallVector<Operation *> targetOps = topLevelOps(targetOp);
  SmallVector<Operation *> erased;
  {
    OwningOpRef<Operation *> trial(targetOp->clone());
    SmallVector<Operation *> trialOps = topLevelOps(trial.get());
    DiagnosticCapture capture(context.get());
    if (failed(transform::detail::mergeSymbolsInto(
            trial.get(), OwningOpRef<Operation *>(otherOp->clone()))))
      capture.raise("Failed to merge symbols");
    // Compared by address only (the merge allocates no op, so no address
    // of an erased op is reused meanwhile).
    llvm::DenseSet<Operation *> survivors;
    for (Operation &op : trial->getRegion(0).front())
      survivors.insert(&op);
    for (size_t i = 0; i < trialOps.size(); ++i)
      if (!survivors.contains(trialOps[i]))
        erased.push_back(targetOps[i]);
  }

  // The merge itself, on `target`.
  for (Operation *op : erased)
    checkChangeAllowed(op, "erase");
  context.noteChanged(target);
  tracking::detail::EventSource source;
  source.pass = "python";
  tracking::detail::RegistryNotifier notifier(context.getRegistry());
  const char *reason = "copy_symbols_and_merge_into merged this declaration "
                       "with a definition of the same symbol";
  for (Operation *op : erased) {
    notifier.invalidateNested(op, source, reason);
    notifier.notifyOperationErased(op, source, reason);
    context.getUnits().eraseNested(op, reason);
  }
  DiagnosticCapture capture(context.get());
  if (failed(transform::detail::mergeSymbolsInto(
          targetOp, OwningOpRef<Operation *>(otherOp->clone()))))
    capture.raise("Failed to merge symbols (after a trial on a copy "
                  "succeeded)");
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
            throw py::value_error("transform_module must be a builtin.module");
        }
        // transform.print prints with the custom printers, which crash on
        // some IR that verifies (findUnprintableOp); it may print any op of
        // the payload's tree.
        Operation *printer = checkTransformScript(getRootOf(rootOp));
        if (library)
          if (Operation *libraryPrinter = checkTransformScript(library))
            printer = printer ? printer : libraryPrinter;
        if (printer)
          if (Operation *unprintable = findUnprintableOp(getRootOf(payloadOp)))
            throw py::value_error("apply_named_sequence: the script's '" +
                                  printer->getName().getStringRef().str() +
                                  "' may print payload IR, and '" +
                                  unprintable->getName().getStringRef().str() +
                                  "' cannot be printed in its custom form (" +
                                  describeUnprintableOp(unprintable) + ")");
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
          ReleaseGilOrPark release;
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

  m.def("copy_symbols_and_merge_into", &copySymbolsAndMergeInto,
        py::arg("target"), py::arg("other"),
        "Copies the symbols of `other` into `target` (both symbol tables, "
        "e.g. modules), renaming colliding private symbols and merging a "
        "function declaration with its definition; MLIRError (and `target` "
        "unchanged) if public symbols collide.");
}
