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
    auto noteUser = [&](Operation *user) {
      if (i == 0 && !root->isAncestor(user)) {
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
