//===- TrackingTransformOps.h - Ops of the tracked interpreter --*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Tracking/TransformInterpreter: the transform ops that the
// tracked interpreter inserts into its copy of a script, and the state they
// report to.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_TRANSFORMINTERPRETER_TRACKINGTRANSFORMOPS_H
#define MLIR_TRACKING_TRANSFORMINTERPRETER_TRACKINGTRANSFORMOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/Interfaces/MatchInterfaces.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>
#include <string>
#include <vector>

#define GET_OP_CLASSES
#include "TrackingTransformOps.h.inc"

namespace mlir::tracking::detail {

/// What tells an op from another one that a script created at its address
/// after it was freed without notification (a pass the script ran): its
/// name, symbol name and the address of the first block of each region,
/// taken before the script ran. A script may change its other attributes
/// and its location; one that renames the op, or rebuilds the first block
/// of one of its regions, is taken for one that erased it.
struct OpPrint {
  Operation *op = nullptr;
  std::optional<OperationName> name;
  Attribute symbolName;
  SmallVector<Block *, 1> firstBlocks;

  static OpPrint of(Operation *op);
  /// True if `op` is still at its address in the tree under `top`, as
  /// printed: walks `top`, and reads `op` only once found there.
  bool survivesIn(Operation *top) const;
};

/// What the ops of one tracked run read and write. Owned by the driver.
struct TrackedRun {
  /// The hidden arguments, one per tracked op, and their positions: of the
  /// sequence that includes the entry, or of the entry itself when the
  /// script uses the entry as an action (see `applyTracked`).
  SmallVector<Value> hiddenArgs;
  llvm::DenseMap<Value, unsigned> hiddenIndex;
  /// One more hidden argument, bound to the payload root: the transform
  /// dialect's tracking drops the root from it when it is erased or
  /// replaced with notification (a new op at its address is never added).
  Value rootWatch;
  /// The payload root was dropped from `rootWatch` by `release_hidden`.
  bool rootReleased = false;
  /// True for the hidden arguments, `rootWatch` included.
  bool isHidden(Value handle) const {
    return handle == rootWatch || hiddenIndex.contains(handle);
  }
  /// Per hidden argument: the transform op that consumed payload containing
  /// its op ("" if none). Such an op may have been freed unseen.
  SmallVector<std::string> consumedBy;
  /// Per hidden argument: the consumer that `consumedBy` names erased or
  /// replaced its op (found by `transform.tracking.check_consumed`), rather
  /// than a later transform op.
  SmallVector<bool> droppedByConsumer;
  /// The consumers running now, innermost last: per
  /// `transform.tracking.note_consumed` with a `check`, that index and the
  /// hidden arguments it marked, with the op each mapped then.
  struct ConsumerFrame {
    int64_t check;
    SmallVector<std::pair<unsigned, Operation *>> marked;
  };
  SmallVector<ConsumerFrame> consumers;
  /// Per hidden argument: its mapping was dropped before a transform op that
  /// needs a replacement for every handle it sees alive (see
  /// `transform.tracking.note_consumed`'s `release_hidden`).
  SmallVector<bool> released;
  /// Per `transform.tracking.check_separate` (its `guard` attribute): the op
  /// of the copy it guards, and where upstream would run that op: the op the
  /// copy was cloned from, or for an op of a library linked into the script,
  /// the symbol table upstream merges the library into.
  struct SeparationGuard {
    Operation *guarded = nullptr;
    Operation *original = nullptr;
    /// For a `transform.alternatives`: the name of a scope op in no block
    /// (top-level, or a clone an enclosing alternative runs on), found when
    /// it last began; upstream's op inserts its clones beside such a scope
    /// once an alternative succeeds, and crashes.
    std::optional<OperationName> blocklessScope;
  };
  SmallVector<SeparationGuard> guards;
  /// The handles the entry yields, and those of them whose payload a
  /// transform op consumed (with the consumer's name).
  llvm::DenseSet<Value> yielded;
  llvm::DenseMap<Value, std::string> consumedYields;
  /// When the caller holds the payload root's whole IR tree: that tree's
  /// top op, from which `transform.tracking.record_payload` checks that the
  /// payload root is still there (a script can erase it: a pass run on an
  /// ancestor) before it walks it. Null when only the payload root is held.
  Operation *treeTop = nullptr;
  /// The payload root before the script ran (when `treeTop` is set).
  OpPrint payloadRootPrint;
  /// The script erased the payload root (found through `treeTop`).
  bool payloadRootErased = false;
  /// Set by `transform.tracking.record_payload` once the script is done.
  bool recorded = false;
  /// As upstream's `transform-interpreter` pass: the entry's results are not
  /// wanted (`transform.tracking.record_results` records nothing), and a
  /// script may erase its payload root (the run goes on).
  bool likeUpstreamPass = false;
  /// The ops of the held IR when the script was done (by address), from
  /// `transform.tracking.record_payload`.
  llvm::DenseSet<Operation *> present;
  /// When the held IR is not a whole tree (a pass's anchor, or the payload
  /// root of a nested run): its top, which `transform.tracking.check_held`
  /// keeps the script's changes in.
  Operation *heldLimit = nullptr;
  /// What became of the op of a hidden argument.
  enum class Fate {
    /// Still mapped, to `finalOps[i]`.
    Live,
    /// Dropped from the mapping: erased or replaced, with notification.
    Dropped,
    /// Still mapped, but inside consumed payload: it may have been freed.
    Consumed,
    /// Still mapped, to an op no longer under the payload root.
    Escaped,
    /// Released before a transform op that would want its replacement.
    Released,
  };
  /// Per hidden argument: its fate, and its op at the end when live.
  SmallVector<Fate> fates;
  SmallVector<Operation *> finalOps;
  /// Per result of the entry: its payload ops (addresses until
  /// `transform.tracking.record_payload` finds them live) or parameters,
  /// from `transform.tracking.record_results`.
  SmallVector<SmallVector<Operation *>> resultOps;
  SmallVector<SmallVector<Attribute>> resultParams;
  SmallVector<bool> resultIsParam;

  /// Per `transform.foreach_match` of the copy (the `walk` attribute of the
  /// ops that guard it), what its walk reads besides the op it is at: set
  /// by `transform.tracking.begin_walk`, read by the walk's
  /// `transform.tracking.note_walked` and `check_walk`.
  struct WalkFrame {
    /// Where each root the walk visits (upstream iterates them from the
    /// root handle's mapping) and each forwarded input (which upstream
    /// copies once and gives every matcher) was: see WalkChain.
    SmallVector<int64_t> heldChains;
    /// For each op the walk is inside (or at): the op after it when the
    /// walk entered it, which the walk's iterator holds (an action may
    /// insert ops after it since).
    llvm::DenseMap<Operation *, Operation *> nextWhenEntered;
    /// The walk's roots (for the levels that its iterators hold).
    llvm::SmallPtrSet<Operation *, 4> roots;
    /// The top ops of the trees of the roots and forwarded inputs (a
    /// `transform.alternatives` runs on detached clones).
    llvm::SmallPtrSet<Operation *, 2> tops;
  };
  SmallVector<WalkFrame> walks;

  /// One execution of a `transform.foreach` of the copy (the `foreach`
  /// attribute of the ops that guard it), from
  /// `transform.tracking.begin_foreach` to the last
  /// `transform.tracking.check_foreach` of its body.
  struct ForeachFrame {
    /// One iteration's payload of one target (never dereferenced).
    struct Item {
      transform::MappedValue payload;
      /// The op, or the op holding the value.
      Operation *holder = nullptr;
      /// A block argument: no handle's mapping vouches for it (the
      /// tracking does not drop the arguments of erased blocks).
      bool isBlockArgument = false;
    };
    /// The foreach's targets, and per target the payload upstream's foreach
    /// copied when it began.
    SmallVector<Value> targets;
    SmallVector<SmallVector<Item>> payloads;
    size_t numIterations = 0;
    /// The iterations whose body ended.
    size_t checked = 0;
    /// The payload of the iteration after the last one checked was found
    /// freed (it fails where the body first uses it).
    bool nextFreed = false;
    /// The holders of the payloads; those a consumer's payload contains go
    /// to `tainted` (the consumer may free them unseen, and the mappings of
    /// their handles stay).
    llvm::DenseSet<Operation *> held;
    llvm::DenseSet<Operation *> tainted;
    /// What the iterations yielded so far (upstream's results).
    SmallVector<transform::MappedValue> yielded;
    /// The top ops of the trees of the payloads and the yields (a
    /// `transform.alternatives` runs on detached clones).
    llvm::SmallPtrSet<Operation *, 2> tops;
  };

  /// Per foreach of the copy, its execution in progress, last. A body that
  /// fails silenceably leaves its frame (its last check never runs); the
  /// next execution drops it. A foreach runs inside itself only through an
  /// action its body applies that includes the foreach's sequence; upstream
  /// then fails the outer run on a handle the inner one invalidated before
  /// the outer checks run again, and a check that finds no frame skips: no
  /// check reads another execution's frame.
  std::vector<std::vector<ForeachFrame>> foreachs;

  /// The `foreach_match` action copies with a
  /// `transform.tracking.walk_step` in progress.
  llvm::SmallPtrSet<Operation *, 4> runningActions;
};

/// Gives the ops of the script copy access to their run.
class TrackedRunExtension : public transform::TransformState::Extension {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TrackedRunExtension)

  TrackedRunExtension(transform::TransformState &state, TrackedRun &run)
      : Extension(state), run(run) {}
  /// Drops `op` from the mapping of every handle (only hidden ones map it).
  LogicalResult forget(Operation *op) { return replacePayloadOp(op, nullptr); }
  TrackedRun &run;
};

} // namespace mlir::tracking::detail

#endif // MLIR_TRACKING_TRANSFORMINTERPRETER_TRACKINGTRANSFORMOPS_H
