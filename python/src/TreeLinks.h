//===- TreeLinks.h - Uses that link one IR tree to another ------*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// An IR tree (a top-level op and everything under it, see Core.h) is linked
// to another when an op of one uses a value defined in the other, or branches
// to a block of it: an op cloned, detached or moved out of a tree keeps such
// uses. Two places need those links: the run guard locks linked trees
// together and refuses a run whose passes could free IR another tree uses,
// and a root owner keeps a tree alive while another tree uses it. Finding
// the links walks every op and use of the trees, so it is skipped when the
// context has no other tree (PyMlirContext::mayHaveOtherTrees).
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_PYTHON_TREELINKS_H
#define MLIR_TRACKING_PYTHON_TREELINKS_H

#include "Core.h"

#include "llvm/ADT/SmallVector.h"

namespace mlir::tracking {
// Internal to the extension: hidden like pybind11's own types, whose
// objects these classes hold.
namespace __attribute__((visibility("hidden"))) python {

  /// The links of one tree.
  struct TreeLinks {
    /// The trees linked to the root, transitively, the root first (only
    /// the root for TreeLinkQuery::UsedFromOutside).
    llvm::SmallVector<Operation *, 1> trees;
    /// True if an op of another tree uses a value or block of the root's
    /// tree.
    bool rootUsedFromOutside = false;
  };

  enum class TreeLinkQuery {
    /// Only whether the root's tree is used from outside (stops at the
    /// first such use).
    UsedFromOutside,
    /// Every tree linked to the root's, transitively.
    LinkedTrees,
  };

  /// The links of the tree of `root` (a top-level op of `context`). Walks
  /// the IR only when the context may have another tree. With `within` (an
  /// op under `root`), only the links of the IR under `within` are found
  /// in the root's tree: a nested Python pass may read only its op, the
  /// pass manager may be rewriting the rest on other threads.
  TreeLinks findTreeLinks(PyMlirContext & context, Operation * root,
                          TreeLinkQuery query, Operation *within = nullptr);

  /// True if an op not nested in `op` (elsewhere in its tree, or in another
  /// tree) uses a value or block of the IR under `op` (not `op`'s own
  /// results): a run on `op` could free what that op still uses. Walks the
  /// IR under `op`, in any context.
  bool isUsedFromOutside(Operation * op);

} // namespace python
} // namespace mlir::tracking

#endif // MLIR_TRACKING_PYTHON_TREELINKS_H
