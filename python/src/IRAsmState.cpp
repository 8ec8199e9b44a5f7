//===- IRAsmState.cpp - ir.AsmState ---------------------------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Upstream's `ir.AsmState`, for `Value.get_name(state)` and
// `Operation.print(state)`. Upstream keeps an mlir::AsmState, which caches
// raw pointers to the ops it numbered: used after a pass or Python changed
// the IR, it would read freed ops. Ours holds the handle of the op it was
// made for and keeps its numbering only while the IR provably did not
// change (the checks of SymbolTable's index: the context's IR and registry
// change counts, no capsule, no run); otherwise it numbers the IR again.
// So it is always right and never stale, and naming N values of unchanged
// IR numbers it once, as upstream (numbering on every use was quadratic).
//
//===----------------------------------------------------------------------===//

#include "Core.h"
#include "IRCompat.h"
#include "IRObjects.h"
#include "RunGuard.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Operation.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::python;

namespace {
/// How many times an ir.AsmState numbered its IR (`ir._asm_state_numberings()`,
/// for tests).
size_t numAsmStateNumberings = 0;

/// A numbering of `scope`'s IR kept across uses (see the file comment).
struct CachedNumbering {
  std::unique_ptr<AsmState> state;
  Operation *scope = nullptr;
  bool local = false;
  IRStamp stamp;
};

/// `ir.AsmState`: where names are taken from, as the handle of an op.
struct PyAsmState {
  /// The op the state was made for (a value's defining op, or the op whose
  /// region holds its block).
  py::object operation;
  bool useLocalScope;
  /// Kept only while the IR provably did not change (see getNumbering).
  std::shared_ptr<CachedNumbering> cache = std::make_shared<CachedNumbering>();

  /// True if names are numbered in a local scope: with `useLocalScope`,
  /// and in a nested Python pass, which may read only the IR under its op
  /// (other threads rewrite the rest).
  bool isLocal() const {
    return useLocalScope ||
           isLimitedToPassScope(*castToOperation(operation).getResolvedOwner());
  }

  /// The op whose IR is numbered: the top-level op, or in a local scope
  /// the nearest op isolated from above (as upstream).
  Operation *getScope() const {
    return findPrintingScope(castToOperation(operation).get(), isLocal());
  }

  OpPrintingFlags getFlags() const {
    OpPrintingFlags flags;
    if (isLocal())
      flags.useLocalScope();
    return flags;
  }

  /// The numbering of `scope` with the guarded flags, kept while nothing
  /// can have changed the IR, or null when it may not be kept: a run is in
  /// progress (its C++ code changes IR without moving the counts), a capsule
  /// exposed the IR, or the GIL is released while printing (another thread
  /// could use the same mlir::AsmState at once). With the GIL.
  AsmState *getNumbering(Operation *scope) const {
    PyMlirContext &context = castToOperation(operation).getContext();
    if (context.numRunning != 0 || context.hadCapsuleAccess() ||
        waitsOnPoolWithoutGIL(context)) {
      cache->state.reset();
      return nullptr;
    }
    bool local = isLocal();
    CachedNumbering &kept = *cache;
    if (kept.state && kept.scope == scope && kept.local == local &&
        kept.stamp.holds(context))
      return kept.state.get();
    // Dropping the old one reads no IR (its maps are keyed by pointers).
    kept.state.reset();
    ++numAsmStateNumberings;
    kept.state = std::make_unique<AsmState>(
        scope, guardAsmStateFlags(scope, getFlags()));
    kept.scope = scope;
    kept.local = local;
    kept.stamp = IRStamp::of(context);
    return kept.state.get();
  }
};

/// The flags to print `op` with names numbered from `scope`. Making the
/// mlir::AsmState verifies `scope` (the printer falls back to the generic
/// form if it does not verify), but nothing verifies an op outside it,
/// whose custom printer may crash on invalid IR: it is verified here the
/// same way, quietly.
OpPrintingFlags printingFlagsFor(Operation *op, Operation *scope,
                                 OpPrintingFlags flags) {
  bool assumedVerified = flags.shouldAssumeVerified();
  // (Settles the scope's verification: assumeVerified on return.)
  flags = guardAsmStateFlags(scope, flags);
  // The printed op's custom printer may crash on IR that verifies.
  if (!flags.shouldPrintGenericOpForm() && findUnprintableOp(op))
    flags.printGenericOpForm();
  // An op outside the scope was not verified with it.
  if (scope->isAncestor(op) || flags.shouldPrintGenericOpForm() ||
      assumedVerified)
    return flags;
  QuietOnThisThread quiet(op->getContext());
  if (failed(verifyIR(op, /*onThisThread=*/true)))
    flags.printGenericOpForm().assumeVerified();
  return flags;
}

/// Runs `print` (C++ that reads the tree of `scope`, and of `other` if it
/// is another, and touches no Python object) as readWithoutGILIfPoolWaits
/// does: making an mlir::AsmState verifies on the context's thread pool.
template <typename Fn>
void printWithoutGILIfPoolWaits(PyOperation &scope, PyOperation &other,
                                Fn print) {
  std::optional<IRPin> otherPin;
  if (waitsOnPoolWithoutGIL(scope.getContext()) &&
      other.getResolvedOwner() != scope.getResolvedOwner())
    otherPin.emplace(other, "printing", PinKind::ReadsWithoutGIL,
                     "while it reads it without the GIL (another thread "
                     "runs Python passes on the thread pool)");
  readWithoutGILIfPoolWaits(scope, "printing", print);
}

/// The op that a state for `value` numbers from.
py::object getOwnerOp(PyValue &value) {
  Value raw = value.get();
  Operation *op = raw.getDefiningOp();
  if (!op)
    op = cast<BlockArgument>(raw).getOwner()->getParentOp();
  if (!op)
    throw py::value_error(
        "cannot make an AsmState for a value whose block has no parent "
        "operation");
  return PyOperation::forOperation(value.getContext(), op);
}
} // namespace

void mlir::tracking::python::populateIRAsmState(py::module_ &m) {
  m.def(
      "_asm_state_numberings", [] { return numAsmStateNumberings; },
      "How many times AsmState objects numbered their IR (for tests).");
  py::class_<PyAsmState>(m, "AsmState",
                         "Where Value.get_name and Operation.print take SSA "
                         "names from. Keeps its numbering only while the IR "
                         "provably did not change, so it stays right when "
                         "the IR changes.")
      .def(py::init([](PyValue &value, bool useLocalScope) {
             return PyAsmState{getOwnerOp(value), useLocalScope};
           }),
           py::arg("value"), py::arg("use_local_scope") = false,
           "Names as printed from the IR holding `value`.")
      .def(py::init([](py::object op, bool useLocalScope) {
             // An Operation, OpView or Module; live.
             PyOperation &operation = castToOperation(op);
             return PyAsmState{PyOperation::forOperation(operation.getContext(),
                                                         operation.get()),
                               useLocalScope};
           }),
           py::arg("op"), py::arg("use_local_scope") = false,
           "Names as printed from the IR holding `op`.")
      .def("__repr__", [](PyAsmState &self) {
        return "<mlir_tracking.ir.AsmState for " +
               py::repr(self.operation).cast<std::string>() +
               (self.useLocalScope ? ", local scope>" : ">");
      });

  auto value = py::reinterpret_borrow<py::class_<PyValue>>(m.attr("Value"));
  value.def(
      "get_name",
      [](PyValue &self, PyAsmState &state) {
        Value raw = self.get();
        Operation *scope = state.getScope();
        PyOperation &scopeOperation = castToOperation(state.operation);
        checkSameContext(scopeOperation.getContext(), raw.getContext(),
                         "a value");
        std::string text;
        if (AsmState *numbering = state.getNumbering(scope)) {
          llvm::raw_string_ostream os(text);
          raw.printAsOperand(os, *numbering);
          return text;
        }
        ++numAsmStateNumberings;
        printWithoutGILIfPoolWaits(
            scopeOperation, castToOperation(self.keepAlive),
            [&] { text = printValueAsOperand(raw, scope, state.getFlags()); });
        return text;
      },
      py::arg("state"),
      "The value as an operand ('%0', '%arg0'), named as in `state`'s IR.");

  auto operation =
      py::reinterpret_borrow<py::class_<PyOperation>>(m.attr("Operation"));
  operation.def(
      "print",
      [](PyOperation &self, PyAsmState &state, py::object file, bool binary) {
        Operation *op = self.get();
        Operation *scope = state.getScope();
        PyOperation &scopeOperation = castToOperation(state.operation);
        checkSameContext(scopeOperation.getContext(), op->getContext(),
                         "an operation");
        std::string text;
        // The kept numbering has the flags printingFlagsFor gives an op in
        // its scope whose custom printer is safe.
        OpPrintingFlags flags = state.getFlags();
        AsmState *numbering = nullptr;
        if (scope->isAncestor(op) &&
            (flags.shouldPrintGenericOpForm() || !findUnprintableOp(op)))
          numbering = state.getNumbering(scope);
        if (numbering) {
          llvm::raw_string_ostream os(text);
          op->print(os, *numbering);
        } else {
          ++numAsmStateNumberings;
          printWithoutGILIfPoolWaits(scopeOperation, self, [&] {
            AsmState asmState(scope, printingFlagsFor(op, scope, flags));
            llvm::raw_string_ostream os(text);
            op->print(os, asmState);
          });
        }
        if (file.is_none())
          file = py::module_::import("sys").attr("stdout");
        if (!binary) {
          file.attr("write")(text);
          return;
        }
        py::bytes bytes(text);
        if (py::hasattr(file, "buffer"))
          file.attr("buffer").attr("write")(bytes);
        else
          file.attr("write")(bytes);
      },
      py::arg("state"), py::arg("file") = py::none(), py::arg("binary") = false,
      "Prints the op to `file` (default: sys.stdout) with the names of "
      "`state`.");
}
