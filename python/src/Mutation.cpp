//===- Mutation.cpp - IR changes made from Python -------------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "Mutation.h"
#include "RunGuard.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Tracking/TrackingListener.h"

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::python;

namespace {
/// An IRRewriter that reports to the registry of `context`, attributing the
/// events to "python" and to `label` (shown where a pattern name would be).
struct PythonRewriter {
  PythonRewriter(PyMlirContext &context, StringRef label)
      : listener(TrackingListenerConfig(), &context.getRegistry()),
        rewriter(context.get(), &listener), attribution("python", nullptr) {
    listener.setUnpatternedLabels(label, label);
  }
  TrackingListener listener;
  IRRewriter rewriter;
  ScopedRewriteAttribution attribution;
};
} // namespace

void mlir::tracking::python::placeOperation(PyOperation &operation,
                                            Block *block,
                                            Block::iterator before,
                                            StringRef label) {
  Operation *op = operation.get();
  PyMlirContext &context = operation.getContext();
  Operation *destination = block->getParentOp();
  if (!destination)
    throw py::value_error("cannot insert into a block that has no parent "
                          "operation");
  if (PyMlirContext *target = PyMlirContext::lookup(destination->getContext()))
    checkSameContext(*target, op->getContext(), "an operation");
  if (op->isAncestor(destination))
    throw py::value_error("cannot move an operation into itself");
  if (before != block->end() && &*before == op)
    return;
  Operation *oldRoot = getRootOf(op);
  Operation *newRoot = getRootOf(destination);
  PythonRewriter rewriter(context, label);
  if (!op->getBlock()) {
    // A detached root: whoever owned it now keeps the destination alive.
    std::shared_ptr<RootOwner> oldOwner = context.getOwner(op);
    rewriter.rewriter.setInsertionPoint(block, before);
    rewriter.rewriter.insert(op);
    oldOwner->forwardTo(context.getOwner(newRoot));
    return;
  }
  std::shared_ptr<RootOwner> oldOwner = operation.getResolvedOwner();
  rewriter.rewriter.moveOpBefore(op, block, before);
  if (oldRoot != newRoot) {
    context.rehome(op);
    propagatePins(context, oldOwner.get(), context.getOwner(newRoot));
  }
}

void mlir::tracking::python::eraseOperation(PyOperation &operation) {
  Operation *op = operation.get();
  PyMlirContext &context = operation.getContext();
  // Erasing an op whose results are used elsewhere would leave those uses
  // dangling (upstream asserts in debug builds only).
  op->walk([&](Operation *nested) {
    for (OpResult result : nested->getResults())
      for (Operation *user : result.getUsers())
        if (!op->isAncestor(user))
          throw py::value_error(
              "cannot erase '" + op->getName().getStringRef().str() +
              "': result #" + std::to_string(result.getResultNumber()) +
              " of '" + nested->getName().getStringRef().str() +
              "' is still used by '" + user->getName().getStringRef().str() +
              "' (replace its uses first)");
  });
  std::shared_ptr<RootOwner> rootOwner;
  if (!op->getBlock())
    rootOwner = context.getOwner(op);
  {
    PythonRewriter rewriter(context, "Operation.erase");
    rewriter.rewriter.eraseOp(op);
  }
  if (rootOwner)
    rootOwner->release();
}

void mlir::tracking::python::detachOperation(PyOperation &operation) {
  Operation *op = operation.get();
  PyMlirContext &context = operation.getContext();
  if (!op->getBlock())
    throw py::value_error("operation is already detached");
  Operation *oldParent = op->getParentOp();
  Operation *oldScope =
      oldParent ? HandleRegistry::getBodyScope(oldParent) : nullptr;
  std::shared_ptr<RootOwner> oldOwner = operation.getResolvedOwner();
  op->remove();
  context.getRegistry().notifyOperationMoved(op, oldScope);
  // Hold the new owner until the handles under `op` hold it.
  std::shared_ptr<RootOwner> owner = context.adoptRoot(op);
  context.rehome(op);
  propagatePins(context, oldOwner.get(), owner);
}

void mlir::tracking::python::replaceAllUsesWith(PyMlirContext &context,
                                                Value from, Value to) {
  checkSameContext(context, from.getContext(), "a value");
  checkSameContext(context, to.getContext(), "a replacement value");
  PythonRewriter rewriter(context, "replace_all_uses_with");
  rewriter.rewriter.replaceAllUsesWith(from, to);
}

void mlir::tracking::python::setOperand(PyMlirContext &context, Operation *op,
                                        unsigned index, Value value) {
  checkSameContext(context, value.getContext(), "an operand value");
  PythonRewriter rewriter(context, "set operand");
  rewriter.rewriter.modifyOpInPlace(op, [&] { op->setOperand(index, value); });
}
