//===- VerifyOnThisThread.cpp - Verification off the thread pool ---------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "VerifyOnThisThread.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/PointerUnion.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

using namespace mlir;

namespace {
/// Whether `block` may end without a terminator (MLIR's verifier: a block
/// in no region, or the only block of a region of no op, of an unregistered
/// op or of a NoTerminator op).
bool mayEndWithoutTerminator(Block &block) {
  Region *region = block.getParent();
  if (!region)
    return true;
  if (!llvm::hasSingleElement(*region))
    return false;
  Operation *op = block.getParentOp();
  return !op || op->mightHaveTrait<OpTrait::NoTerminator>();
}

/// The checks of a block before its ops are verified.
LogicalResult verifyBlockOnEntry(Block &block) {
  for (BlockArgument argument : block.getArguments())
    if (argument.getOwner() != &block)
      return emitError(argument.getLoc(), "block argument not owned by block");
  if (block.empty()) {
    if (mayEndWithoutTerminator(block))
      return success();
    return emitError(block.getParent()->getLoc(),
                     "empty block: expect at least a terminator");
  }
  for (Operation &op : block)
    if (op.getNumSuccessors() != 0 && &op != &block.back())
      return op.emitError(
          "operation with block successors must terminate its parent block");
  return success();
}

/// The checks of a block after its ops verified.
LogicalResult verifyBlockOnExit(Block &block) {
  for (Block *successor : block.getSuccessors())
    if (successor->getParent() != block.getParent())
      return block.back().emitOpError(
          "branching to block of a different region");
  if (mayEndWithoutTerminator(block))
    return success();
  Operation &last = block.back();
  if (!last.mightHaveTrait<OpTrait::IsTerminator>())
    return last.emitError("block with no terminator, has ") << last;
  return success();
}

/// What an op's nested ops may rely on: its operands are set and its
/// invariants hold (verifiers of nested ops read their parent: a return
/// reads its function's type).
LogicalResult verifyOpBeforeNested(Operation &op) {
  for (Value operand : op.getOperands())
    if (!operand)
      return op.emitError("null operand found");
  if (std::optional<RegisteredOperationName> info =
          op.getName().getRegisteredInfo())
    return info->verifyInvariants(&op);
  return success();
}

/// The invariants of an op that hold once the ops nested in it verified
/// (IsolatedFromAbove's: no operand from outside, none unlinked).
LogicalResult verifyOpAfterNested(Operation &op) {
  if (std::optional<RegisteredOperationName> info =
          op.getName().getRegisteredInfo())
    return info->verifyRegionInvariants(&op);
  return success();
}

/// What MLIR checks once an isolated-from-above op (or the root) and all it
/// holds verified: for each op with regions under it, up to the isolated
/// ops nested in it, everything MLIR checks of that op alone (again its
/// invariants; the dialect's attribute checks, the shape of its regions and
/// whether an unregistered op is allowed, for the first time) and the
/// dominance of the ops directly in its regions. Dominance comes last, as
/// in MLIR: it reads operands as linked into blocks, which the region
/// invariants above checked.
LogicalResult verifyDominanceUnder(Operation *scope) {
  WalkResult result = scope->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op->getNumRegions() == 0)
      return WalkResult::advance();
    if (op != scope && op->hasTrait<OpTrait::IsIsolatedFromAbove>())
      return WalkResult::skip();
    // Without nested isolated ops to list, this runs no pool tasks.
    if (failed(mlir::verify(op, /*verifyRecursively=*/false)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}
} // namespace

LogicalResult mlir::tracking::detail::verifyOnThisThread(Operation *root) {
  // A depth-first walk with an explicit stack (IR may nest deeper than the
  // native stack allows recursion), each item visited on entry and on exit.
  using Item = llvm::PointerUnion<Operation *, Block *>;
  SmallVector<std::pair<Item, bool>> stack{{root, /*exiting=*/false}};
  while (!stack.empty()) {
    auto [item, exiting] = stack.pop_back_val();
    if (auto *block = dyn_cast<Block *>(item)) {
      if (exiting) {
        if (failed(verifyBlockOnExit(*block)))
          return failure();
        continue;
      }
      if (failed(verifyBlockOnEntry(*block)))
        return failure();
      stack.push_back({block, true});
      for (Operation &op : llvm::reverse(*block))
        stack.push_back({&op, false});
      continue;
    }
    auto *op = cast<Operation *>(item);
    if (op->getNumRegions() == 0) {
      // All MLIR checks of an op without regions.
      if (failed(mlir::verify(op, /*verifyRecursively=*/false)))
        return failure();
      continue;
    }
    if (exiting) {
      if (failed(verifyOpAfterNested(*op)))
        return failure();
      if ((op == root || op->hasTrait<OpTrait::IsIsolatedFromAbove>()) &&
          failed(verifyDominanceUnder(op)))
        return failure();
      continue;
    }
    if (failed(verifyOpBeforeNested(*op)))
      return failure();
    stack.push_back({op, true});
    for (Region &region : llvm::reverse(op->getRegions()))
      for (Block &block : llvm::reverse(region))
        stack.push_back({&block, false});
  }
  return success();
}
