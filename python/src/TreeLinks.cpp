//===- TreeLinks.cpp - Uses that link one IR tree to another --------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "TreeLinks.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::python;

namespace {
/// True if `op` (under `within`, in the tree of `root`) uses a value or
/// block of that tree that is not under `within` (another function).
bool usesOutside(Operation *op, Operation *within, Operation *root) {
  auto outside = [&](Operation *holder) {
    return holder && !within->isAncestor(holder) && getRootOf(holder) == root;
  };
  for (Value operand : op->getOperands())
    if (outside(getHolderOf(operand)))
      return true;
  for (Block *successor : op->getSuccessors())
    if (outside(successor->getParentOp()))
      return true;
  return false;
}
} // namespace

TreeLinks mlir::tracking::python::findTreeLinks(PyMlirContext &context,
                                                Operation *root,
                                                TreeLinkQuery query,
                                                Operation *within) {
  TreeLinks links;
  links.trees.push_back(root);
  // The common case, one tree in the context: nothing to walk.
  if (!context.mayHaveOtherTrees(root))
    return links;
  ++context.numTreeLinkWalks;
  bool outsideUseOnly = query == TreeLinkQuery::UsedFromOutside;
  llvm::DenseSet<Operation *> seen{root};
  auto note = [&](Operation *op) {
    Operation *tree = getRootOf(op);
    if (seen.insert(tree).second)
      links.trees.push_back(tree);
  };
  auto noteValue = [&](Value value) {
    if (Operation *holder = getHolderOf(value))
      note(holder);
  };
  for (size_t i = 0; i < links.trees.size(); ++i) {
    // A tree a pipeline is running on (reached from a Python pass, through a
    // value of its op) is being changed on other threads: walking it would
    // race. Its owner is running, so the caller refuses the link anyway.
    if (i > 0 && context.isRunningTree(links.trees[i]))
      break;
    // A user of a value or block of the tree; true to stop the walk.
    // With `within`, a use in another function of the root's tree crosses
    // the pass's boundary as a use from another tree would.
    Operation *boundary = i == 0 && within ? within : root;
    auto noteUser = [&](Operation *user) {
      if (i == 0 && !boundary->isAncestor(user)) {
        links.rootUsedFromOutside = true;
        if (outsideUseOnly)
          return true;
      }
      if (!outsideUseOnly)
        note(user);
      return false;
    };
    Operation *walked = i == 0 && within ? within : links.trees[i];
    WalkResult result = walked->walk([&](Operation *op) {
      if (!outsideUseOnly) {
        for (Value operand : op->getOperands())
          noteValue(operand);
        for (Block *successor : op->getSuccessors())
          if (Operation *parent = successor->getParentOp())
            note(parent);
      }
      if (i == 0 && within && usesOutside(op, within, root))
        links.rootUsedFromOutside = true;
      for (Value result : op->getResults())
        for (Operation *user : result.getUsers())
          if (noteUser(user))
            return WalkResult::interrupt();
      for (Region &region : op->getRegions())
        for (Block &block : region) {
          for (BlockOperand &use : block.getUses())
            if (noteUser(use.getOwner()))
              return WalkResult::interrupt();
          for (BlockArgument argument : block.getArguments())
            for (Operation *user : argument.getUsers())
              if (noteUser(user))
                return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      break;
  }
  return links;
}

bool mlir::tracking::python::isUsedFromOutside(Operation *op) {
  auto outside = [&](Operation *user) { return !op->isAncestor(user); };
  WalkResult result = op->walk([&](Operation *nested) {
    // A run on `op` keeps `op` itself: its results are used outside.
    if (nested != op)
      for (Value value : nested->getResults())
        if (llvm::any_of(value.getUsers(), outside))
          return WalkResult::interrupt();
    for (Region &region : nested->getRegions())
      for (Block &block : region) {
        for (BlockOperand &use : block.getUses())
          if (outside(use.getOwner()))
            return WalkResult::interrupt();
        for (BlockArgument argument : block.getArguments())
          if (llvm::any_of(argument.getUsers(), outside))
            return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}
