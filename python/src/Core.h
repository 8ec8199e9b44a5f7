//===- Core.h - Shared state of the _mlirTracking extension -----*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// The C++ side of the Python objects of `mlir_tracking.ir`. Internal to the
// extension; every class here is used with the GIL held.
//
// Ownership in one paragraph: a PyMlirContext owns an MLIRContext and its
// HandleRegistry. Every top-level op handed to Python (a parsed module, an op
// created, cloned or detached from Python) has a RootOwner that destroys it
// when the last reference goes. Every PyOperation holds the RootOwner of its
// op's current root, so a handle keeps its IR alive; Regions and attribute
// maps hold the PyOperation they were reached through, Blocks and Values the
// one of an op of the tree they are in (IRObjects.h). When a
// root is inserted under another op, its owner forwards to the destination's
// owner; when an op is detached or moved to another root, the Python handles
// under it are rehomed to the new root's owner.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_PYTHON_CORE_H
#define MLIR_TRACKING_PYTHON_CORE_H

#include "InterpreterExit.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Types.h"
#include "mlir/IR/Value.h"
#include "mlir/Tracking/BlockValueRegistry.h"
#include "mlir/Tracking/HandleRegistry.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"

#include <pybind11/pybind11.h>

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace llvm {
class ThreadPoolInterface;
class WritableMemoryBuffer;
} // namespace llvm

namespace mlir::tracking {
// Internal to the extension: hidden like pybind11's own types, whose
// objects these classes hold.
namespace __attribute__((visibility("hidden"))) python {
  namespace py = pybind11;

  class PyMlirContext;
  class PyOperation;
  class IRPin;
  struct RunningPipeline;

  /// `op->getInherentAttr(name)`, safe for every op: an op without
  /// properties keeps its attributes in its dictionary (where MLIR's model
  /// of registered ops looks too), and ops of dynamic (IRDL) dialects, which
  /// have none, abort the process in getInherentAttr.
  inline std::optional<Attribute> getInherentAttrOf(Operation * op,
                                                    StringRef name) {
    if (!op->getPropertiesStorageSize())
      return op->getDiscardableAttr(name);
    return op->getInherentAttr(name);
  }

  //===----------------------------------------------------------------------===//
  // Errors
  //===----------------------------------------------------------------------===//

  /// Translated to `ir.InvalidatedHandleError` (a RuntimeError).
  struct InvalidatedHandleException : std::runtime_error {
    using std::runtime_error::runtime_error;
  };

  /// One captured diagnostic, kept as C++ data until it is raised (the handler
  /// may run without the GIL).
  struct DiagnosticRecord {
    DiagnosticSeverity severity;
    Location location;
    std::string message;
    std::vector<DiagnosticRecord> notes;

    /// A copy of `diag` and its notes (usable after the handler returns).
    static DiagnosticRecord from(Diagnostic &diag);
  };

  /// `diagnosticClass(severity, location, message, notes)` for `record`, its
  /// notes converted alike: `ir.Diagnostic` in a diagnostic handler,
  /// `ir.DiagnosticInfo` in an `MLIRError`. The location is None when the
  /// context has no Python object.
  py::object diagnosticToPython(PyMlirContext * context,
                                const DiagnosticRecord &record,
                                py::handle diagnosticClass);

  /// Translated to `ir.MLIRError(message, error_diagnostics)`.
  struct MLIRErrorException {
    std::string message;
    std::vector<DiagnosticRecord> diagnostics;
  };

  /// Silences the diagnostics of `context` that the calling thread emits
  /// while it lives, after handing each to `onDiagnostic` if given; those of
  /// other threads (runs of other threads in the same context) go on to the
  /// context's handlers. Create and destroy it on the same thread.
  class QuietOnThisThread {
  public:
    explicit QuietOnThisThread(
        MLIRContext *context,
        std::function<void(Diagnostic &)> onDiagnostic = nullptr);
    QuietOnThisThread(const QuietOnThisThread &) = delete;
    QuietOnThisThread &operator=(const QuietOnThisThread &) = delete;

  private:
    ScopedDiagnosticHandler handler;
  };

  /// Collects the error diagnostics of `context` emitted on the thread that
  /// created it while alive (the innermost capture of that thread wins);
  /// other severities, and errors of other threads, go on to the context's
  /// other handlers. So concurrent runs, parses and verifications each get
  /// exactly their own errors: MLIR's parallel helpers
  /// (failableParallelForEach, used by the pass manager and the verifier)
  /// re-emit worker-thread diagnostics on the thread that started them.
  /// Create and destroy it on the same thread.
  class DiagnosticCapture {
  public:
    /// What the call holds when the capture ends and its diagnostics reach
    /// the handlers.
    enum class End {
      /// Maybe raw IR (a capture for one step of the call): the handlers
      /// may not change IR nor start a run, and neither may other threads
      /// meanwhile (checkNoHandlerDelivery).
      InsideCall,
      /// No raw IR (a parse; PassManager.run, once its IR is unlocked).
      CallDone,
    };
    explicit DiagnosticCapture(MLIRContext *context, End end = End::InsideCall);
    ~DiagnosticCapture();
    DiagnosticCapture(const DiagnosticCapture &) = delete;
    DiagnosticCapture &operator=(const DiagnosticCapture &) = delete;

    /// Throws MLIRErrorException with `message` and the captured errors.
    [[noreturn]] void raise(const std::string &message);
    std::vector<DiagnosticRecord> take();

    /// True if the innermost capture of the calling thread takes a
    /// diagnostic of `severity` emitted in `context`.
    static bool takesOnThisThread(MLIRContext *context,
                                  DiagnosticSeverity severity);

  private:
    MLIRContext *context;
    End end;
    /// `Context.emit_error_diagnostics` when this capture was made: the
    /// errors go on to the handlers.
    bool propagatesErrors;
    DiagnosticEngine::HandlerID id;
    /// The capture this one shadows on its thread.
    DiagnosticCapture *previous;
    /// Held by an outermost capture: its end delivers what other threads
    /// emit meanwhile (holdDiagnosticDelivery).
    std::shared_ptr<void> deliveryToken;
    std::mutex mutex;
    std::vector<DiagnosticRecord> diagnostics;
  };

  /// Runs `build`, an MLIR getChecked call (null and an error emitted on
  /// invalid arguments), under a diagnostic capture: MLIRError `message`
  /// ("Invalid type", "Invalid attribute") with the errors if it fails.
  template <typename Build>
  auto buildChecked(MLIRContext * context, const char *message, Build &&build) {
    DiagnosticCapture capture(context);
    auto built = build();
    if (!built)
      capture.raise(message);
    return built;
  }

  /// Registers the exception translators; `errors` is the pure-Python module
  /// `mlir_tracking._errors` that defines the exception classes.
  void registerExceptionTranslators(py::module_ errors);
  /// The Python exception classes (borrowed from `mlir_tracking._errors`).
  py::object getInvalidatedHandleErrorClass();

  //===----------------------------------------------------------------------===//
  // Context
  //===----------------------------------------------------------------------===//

  /// Owns a root op (a top-level op) on behalf of the Python objects that
  /// refer to IR under it.
  class RootOwner : public std::enable_shared_from_this<RootOwner> {
  public:
    RootOwner(PyMlirContext &context, Operation *root, bool owning);
    /// Destroys the root if it is still owned: first every handle under it is
    /// invalidated, so the registries never keep a freed address. A tree that
    /// other IR still uses (an op moved, cloned or detached out of it uses its
    /// values or branches to its blocks) is kept alive instead, until the
    /// context dies: its users are never rewired nor left dangling.
    ~RootOwner();
    RootOwner(const RootOwner &) = delete;
    RootOwner &operator=(const RootOwner &) = delete;

    /// The root op, or nullptr once released or forwarded.
    Operation *getRoot() const { return root; }
    /// Fires when the root was inserted under another root owned by `into`:
    /// this owner stops owning and keeps `into` alive instead.
    void forwardTo(std::shared_ptr<RootOwner> into);
    /// Fires when the root was erased through the rewriter: stop owning.
    void release();
    /// Follows forwards to the owner that currently owns the IR.
    static std::shared_ptr<RootOwner> resolve(std::shared_ptr<RootOwner> owner);
    static RootOwner *resolve(RootOwner *owner);

    /// Fire when a Python Operation object starts and stops referring to
    /// this owner (made with make_shared). The objects share one strong
    /// reference, taken by the first and dropped by the last, which may
    /// destroy `this` and its IR: counted under the GIL, so making and
    /// dropping an object does no atomic operation on the shared count.
    void retainForObject() {
      if (numObjects++ == 0)
        objectsReference = shared_from_this();
    }
    void releaseForObject() {
      assert(numObjects && "unbalanced releaseForObject");
      if (--numObjects == 0)
        std::shared_ptr<RootOwner>(std::move(objectsReference)).reset();
    }

    /// The pipeline running on this tree, or nullptr (see RunGuard.h). Set
    /// by RunLock on the resolved owner; read and written with the GIL.
    const RunningPipeline *running = nullptr;
    /// Set with `running` when a nested Python pass of that run claimed
    /// this tree (made it during its call, or linked it to its op): the op
    /// that pass runs on. Only that pass may use the tree until the run
    /// ends (RunGuard.h, claimForPass). GIL-protected.
    Operation *claimedByPass = nullptr;
    /// Changes (PyMlirContext::noteTreeChanged) whenever a block or value
    /// may have left this tree, or come into it under an op that was in
    /// another tree: Block and Value objects that keep an op of this tree
    /// then re-find the op their block or value is in now
    /// (IRStructure.cpp), so that the run guard is checked on the tree they
    /// are in. Unique in the context. GIL-protected.
    uint64_t epoch;
    /// True while the tree is known to verify: set after it verified, or
    /// after a run on its root succeeded; cleared by every change Python
    /// makes to it (PyMlirContext::noteChanged) and by a failed run. A new
    /// owner (a new tree) starts false. Runs skip verifying their input
    /// while it is set (RunGuard.h). GIL-protected.
    bool verified = false;

  private:
    void forgetRoot();
    PyMlirContext &context;
    Operation *root;
    bool owning;
    std::shared_ptr<RootOwner> forward;
    /// See retainForObject.
    size_t numObjects = 0;
    std::shared_ptr<RootOwner> objectsReference;
  };

  /// The C++ side of `ir.Context`.
  class PyMlirContext {
  public:
    PyMlirContext();
    ~PyMlirContext();
    PyMlirContext(const PyMlirContext &) = delete;
    PyMlirContext &operator=(const PyMlirContext &) = delete;

    MLIRContext *get() const { return context.get(); }
    HandleRegistry &getRegistry() const { return *registry; }
    /// A number naming this context in errors ("context #3"), never reused.
    unsigned getId() const { return id; }

    /// The run guard's bookkeeping (RunGuard.cpp): runs in progress and
    /// active pins. GIL-protected.
    unsigned numRunning = 0;
    std::vector<IRPin *> pins;
    /// Diagnostic handlers running from the end of a DiagnosticCapture,
    /// inside a call that may still hold IR raw: no IR of this context may
    /// change, and no run start, meanwhile (checkNoHandlerDelivery).
    unsigned deliveriesInsideCalls = 0;
    /// The tracked transform interpreter's ops are registered in this
    /// context (apply_named_sequence does it once, with no run going on).
    bool transformInterpreterReady = false;
    /// Pass pipelines of this context running without the GIL: their
    /// Python passes take it on the context's thread pool, so a call that
    /// waits on that pool must not hold it (waitsOnPoolWithoutGIL,
    /// RunGuard.h). GIL-protected.
    unsigned runsWithoutGIL = 0;
    /// Calls reading IR of this context without the GIL (a parse, a
    /// verification or a print, see withoutGILIfThreaded and
    /// readWithoutGILIfPoolWaits): context-wide changes (checkNoRunIn) wait
    /// for them, since they may use the context's thread pool. Counted with
    /// the GIL.
    unsigned readsWithoutGIL = 0;
    /// The handles of blocks and values of this context.
    BlockValueRegistry &getUnits() const { return *units; }
    /// The Python object of this context (it exists while `this` does).
    py::object getObject();

    /// The context created by this extension for `context`, or nullptr.
    static PyMlirContext *lookup(MLIRContext *context);
    /// The context of the `context=` argument, or the current one.
    static PyMlirContext &resolve(const py::object &context);

    /// The owner of `root` (a top-level op). A root this extension did not
    /// create gets a non-owning owner; a kept-alive root is owned again.
    std::shared_ptr<RootOwner> getOwner(Operation *root);
    /// The owner of `root` if it has one (resolved), else nullptr.
    std::shared_ptr<RootOwner> findOwner(Operation *root) const;
    /// Makes this extension the owner of the detached op `root`.
    [[nodiscard]] std::shared_ptr<RootOwner> adoptRoot(Operation *root);
    /// The top-level ancestor of `op` (or `op`): read from the owner of the
    /// Python object of `op` when that object is known to be in step with
    /// its root (most often the op Python inserts into), else walked up.
    Operation *findRootOf(Operation *op);
    /// Points every Python handle under `subtree` at the owner of its current
    /// root (after `subtree` moved to another root).
    void rehome(Operation *subtree);

    /// Checks the registry against every root Python refers to: each tracked
    /// address must be an op of that IR, indexed consistently (for tests).
    std::vector<std::string> verifyTracking();

    /// Keeps `root` (a top-level op nobody owns any more) alive until the
    /// context dies, because IR elsewhere still uses its values or blocks.
    /// When Python reaches such a tree again, it owns it again (getOwner).
    void keepAlive(Operation *root) { keptAlive.insert(root); }

    /// False if no IR tree of this context other than the tree of `root`
    /// can exist: every tree Python creates (parse, create, clone, detach)
    /// has an owner while Python refers to it and is kept alive while other
    /// IR uses it, so with one tree known there is nothing to be linked to,
    /// and the walks of TreeLinks.h are skipped. True once raw pointers to
    /// this context or its IR crossed a capsule (C++ code may hold trees of
    /// its own).
    bool mayHaveOtherTrees(Operation *root) const;
    /// True if a pipeline or driver runs on the tree of the top-level op
    /// `root` (its owner is locked by a RunLock).
    bool isRunningTree(Operation *root) const;
    /// Fires when a capsule exported or imported this context or its IR.
    void noteCapsuleAccess() { capsuleAccess = true; }
    /// True once a capsule exported or imported this context or its IR:
    /// C++ code may change its IR without Python knowing.
    bool hadCapsuleAccess() const { return capsuleAccess; }
    /// Number of walks looking for links between trees (for tests).
    size_t numTreeLinkWalks = 0;
    /// Number of walks up an op's ancestors to find its root that an
    /// Operation object (PyOperation::get) or an insertion (findRootOf)
    /// could not skip (for tests).
    size_t numRootWalks = 0;

    /// Fires when an Operation object dies: its handle is released later,
    /// with others, under one registry lock for each batch of
    /// kReleaseBatch. Until then the handle's record stays as if C++ code
    /// held the handle: tracked, live or not, never reused.
    void releaseLater(OpHandle &&handle);
    /// Releases the handles queued by releaseLater now.
    void flushReleases();
    static constexpr size_t kReleaseBatch = 256;

    /// Number of Python Operation objects alive (for tests).
    size_t getNumLiveOperations() const { return numLiveOperations; }
    /// Every Python Operation object of this context, live handle or not
    /// (for tests).
    std::vector<PyOperation *> getOperationObjects();
    /// Entries examined by the scans of every Operation object
    /// (forEachOperationObject, clearLiveOperations; for tests): about the
    /// number of objects alive, plus those made since the previous scan,
    /// plus those clearLiveOperations forgot that the scan read.
    size_t numObjectEntriesScanned = 0;
    /// Number of Python Module objects alive (kept by PyModule; for tests).
    size_t numLiveModules = 0;
    /// The live Python Module object of each Python Operation object that
    /// a Module views (borrowed; the Module holds the Operation object, so
    /// the key cannot be freed and reused while its entry exists, and the
    /// Module's destructor removes the entry): `Module._CAPICreate` of a
    /// module returns its Module while one lives, as upstream.
    llvm::DenseMap<const PyOperation *, PyObject *> liveModules;
    /// Upstream's `Context._clear_live_operations`: forgets which Python
    /// object is the one of each op (the next access makes a new one; the
    /// old objects stay valid handles) and returns how many it forgot.
    size_t clearLiveOperations();

    /// Gives `owner` (a resolved owner) a new epoch (RootOwner::epoch):
    /// fires when Python moved IR into or out of its tree (rehome), Python
    /// rewrite code (a pattern) returned on it, or a rewrite driver, a
    /// transform application or a run over trees linked by uses ended on
    /// it (their rewrites may move a block or follow a value into another
    /// tree).
    void noteTreeChanged(RootOwner &owner) {
      owner.epoch = ++lastEpoch;
      noteRootsMayHaveChanged();
    }
    /// Fires when an op of this context may have changed root: Python moved
    /// IR between trees or detached it (noteTreeChanged), or C++ code ran
    /// (a pipeline, driver or transform ended). An Operation object that
    /// found its op's root at the current count need not look again
    /// (PyOperation::get): finding the root walks up the op's ancestors.
    void noteRootsMayHaveChanged() {
      ++irChanges;
      // Skips 0, the count of an object that never looked.
      if (++rootChanges == 0)
        rootChanges = 1;
    }
    uint32_t getRootChanges() const { return rootChanges; }
    /// Context.set_thread_pool: multi-threading on, with `pool` as the
    /// context's thread pool. The caller checks that nothing runs.
    void setThreadPool(std::shared_ptr<llvm::ThreadPoolInterface> pool);
    /// True if a pipeline runs without the GIL (runsWithoutGIL) in this
    /// context or in another that shares its thread pool
    /// (Context.set_thread_pool): that pipeline's Python passes may hold
    /// the pool's workers while they wait for the GIL. With the GIL.
    bool poolMayWaitForGIL() const;
    /// Moves whenever Python changed IR of this context (noteChanged,
    /// noteChangedTree) or an op may have changed root: what a caller
    /// found of the IR's shape holds while it stays put and neither the
    /// registry's change count moves nor a capsule was used (C++ code then
    /// changes IR unseen).
    uint64_t getIRChanges() const { return irChanges; }
    /// The last epoch given to an owner.
    uint64_t lastEpoch = 0;

    /// Fires when Python changed (or may have changed) the IR of the tree
    /// of `op`: the next run on that tree verifies its input first
    /// (RootOwner::verified). Creates no owner: a tree without one is
    /// verified anyway when Python owns it again.
    void noteChanged(Operation *op);
    /// Same, for the tree of `operation` (its resolved owner).
    void noteChanged(const PyOperation &operation);
    /// Same, for the tree whose top-level op is `root`; `changed`, if known,
    /// is the op changed (or the one IR is moved into), for pins limited to
    /// a nested pass's op (IRPin).
    void noteChangedTree(Operation *root, Operation *changed = nullptr);
    /// Number of input verifications runs made (for tests).
    size_t numVerifications = 0;

  private:
    friend class RootOwner;
    friend class PyOperation;
    unsigned id;
    /// See noteRootsMayHaveChanged; 0 is never current.
    uint32_t rootChanges = 1;
    uint64_t irChanges = 0;
    /// The pool of Context.set_thread_pool: MLIR does not own it, so the
    /// context keeps it, and destroys it after the MLIRContext.
    std::shared_ptr<llvm::ThreadPoolInterface> threadPool;
    std::unique_ptr<MLIRContext> context;
    std::unique_ptr<HandleRegistry> registry;
    /// The Python Operation object of each handle (identity), indexed by
    /// the handle's `OpHandle::getIdentityIndex()`: dense, so a vector, and
    /// the objects a walk makes sit side by side in it. Null where the
    /// handle has no object.
    std::vector<PyOperation *> operationsByIndex;
    /// Non-null entries of `operationsByIndex`.
    size_t numLiveOperations = 0;
    /// The indices of `operationsByIndex` given an object, in the order the
    /// objects were made: every non-null entry's index is here. A dropped
    /// object leaves its index behind (dropping writes nothing more), and a
    /// later object at the same index adds it again; `compactObjectIndices`
    /// removes both kinds, when the list holds twice the live objects and
    /// before each scan. So a scan visits about as many entries as there
    /// are live objects (plus those made since the last scan), where
    /// `operationsByIndex` is as long as the largest record index ever
    /// given an object.
    std::vector<uint32_t> objectIndices;
    /// Fires before `index` is given an object.
    void noteObjectIndex(uint32_t index) {
      if (objectIndices.size() >=
          2 * std::max<size_t>(numLiveOperations, kMinObjectIndices))
        compactObjectIndices();
      objectIndices.push_back(index);
    }
    static constexpr size_t kMinObjectIndices = 1024;
    /// Keeps in `objectIndices` one entry per non-null `operationsByIndex`
    /// entry.
    void compactObjectIndices();
    /// The handles queued by releaseLater (GIL-protected), moved into raw
    /// storage: releaseHandles leaves them empty, so none is destroyed (an
    /// out-of-line call per dropped object, for nothing).
    alignas(OpHandle) unsigned char pendingStorage[kReleaseBatch *
                                                   sizeof(OpHandle)];
    size_t numPending = 0;
    OpHandle *getPending() {
      return reinterpret_cast<OpHandle *>(pendingStorage);
    }
    /// The Python Operation objects that clearLiveOperations took out of
    /// `operationsByIndex`. With those, every Python Operation object is
    /// reachable, also those whose handle merged into another one's key:
    /// rehome must reach them all, so that each object's owner is its op's
    /// tree (the run guard relies on it).
    llvm::DenseSet<PyOperation *> forgottenOperations;
    /// The objects of `forgottenOperations` with a live handle, by the key
    /// of the handle's merge group (`OpHandle::getKey`, which the op's own
    /// handle has too), as of the registry's merge count
    /// `forgottenMergesAtScan`: rehome looks each moved op up here instead
    /// of reading every forgotten object. May name objects dropped since
    /// (checked against `forgottenOperations` before use: only
    /// clearLiveOperations adds to it, and it clears this index).
    llvm::DenseMap<const void *, llvm::SmallVector<PyOperation *, 1>>
        forgottenObjectsByKey;
    uint64_t forgottenMergesAtScan = UINT64_MAX;
    /// Updates `forgottenObjectsByKey` if handles merged or objects were
    /// forgotten since its last scan.
    void indexForgottenObjects();
    /// The `operationsByIndex` entries whose object's handle had merged into
    /// another (it follows an op whose own record is another one), by the
    /// key of their merge group (`OpHandle::getKey`, which the handle of
    /// the op has too), as of the registry's merge count
    /// `mergesAtLastScan` (the keys stay until the next merge). With those
    /// and `forgottenOperations`, the objects of the ops under an op are
    /// found by looking up each op's handle (rehome).
    llvm::DenseMap<const void *, llvm::SmallVector<uint32_t, 1>>
        mergedObjectsByKey;
    uint64_t mergesAtLastScan = UINT64_MAX;
    /// Updates `mergedObjectsByKey` if handles merged since its last scan.
    void findMergedObjects();
    /// Adds to `affected` the Python Operation objects of the ops under
    /// `subtree` (`subtree` included), walking it, and returns true; or
    /// returns false if the walk would visit more ops than there are
    /// objects (scanning the objects then costs less).
    bool findObjectsUnder(Operation *subtree,
                          std::vector<PyOperation *> &affected);
    /// Calls `fn` with every Python Operation object (see above). `fn` must
    /// not make or drop Operation objects.
    template <typename Fn> void forEachOperationObject(Fn fn) {
      compactObjectIndices();
      for (uint32_t index : objectIndices)
        fn(operationsByIndex[index]);
      numObjectEntriesScanned += forgottenOperations.size();
      for (PyOperation *operation : forgottenOperations)
        fn(operation);
    }
    /// The Python object of this context, borrowed (it owns `this`); set by
    /// the first getObject().
    PyObject *self = nullptr;
    /// Root op -> its owner. Entries go away when the root is destroyed,
    /// erased or inserted elsewhere, so no key is ever a freed op.
    llvm::DenseMap<Operation *, std::weak_ptr<RootOwner>> owners;
    std::unique_ptr<BlockValueRegistry> units;
    /// Trees whose owner died while other IR used their values or blocks;
    /// destroyed with the context, after every reference into them.
    llvm::SetVector<Operation *> keptAlive;
    /// Set by noteCapsuleAccess.
    bool capsuleAccess = false;
  };

  /// When a cache of facts read from a context's IR (SymbolTable's index,
  /// AsmState's numbering) was made. The IR provably did not change since
  /// while the context's IR change count and its registry's change count
  /// stay, no capsule ever exposed the IR (C++ code may then change it
  /// unseen) and no run is active (its C++ code moves the counts only when
  /// it ends).
  struct IRStamp {
    uint64_t irChanges = 0;
    uint64_t registryChanges = 0;

    /// The stamp of the IR as it is now.
    static IRStamp of(PyMlirContext &context);
    /// True if the IR cannot have changed since this stamp was taken.
    bool holds(PyMlirContext &context) const;
  };

  /// Returns the top-level ancestor of `op` (or `op`).
  Operation *getRootOf(Operation * op);
  /// The op that `value` lives and dies with: its defining op, or the op
  /// whose region holds its block (null for a block in no op).
  inline Operation *getHolderOf(Value value) {
    if (Operation *definer = value.getDefiningOp())
      return definer;
    return value.getParentBlock()->getParentOp();
  }
  /// Adds the ops of `tree` (itself included) to `ops`, and its blocks, block
  /// arguments and op results to `units`: every address the handle
  /// registries may map in that IR.
  void collectLiveIR(Operation * tree, llvm::DenseSet<Operation *> & ops,
                     llvm::DenseSet<const void *> & units);

  /// Throws ValueError unless `actual` (the context of an object passed in,
  /// described by `what`, e.g. "an operand") is `expected` (the context of
  /// the IR it is used with). The one check that keeps objects of different
  /// contexts apart; the message names both contexts.
  void checkSameContext(const PyMlirContext &expected, MLIRContext *actual,
                        llvm::StringRef what);
  /// Calls `parse` (which must touch no Python object) without the GIL when
  /// `context` is multi-threaded: the parser verifies on the context's
  /// thread pool, whose workers may be waiting for the GIL (a Python pass
  /// of a pipeline another thread runs), so parsing with the GIL held could
  /// deadlock. Without threading the context's uniquers take no locks, and
  /// the GIL keeps other threads out of the context.
  template <typename Fn>
  auto withoutGILIfThreaded(PyMlirContext & context, Fn && parse) {
    if (!context.get()->isMultithreadingEnabled())
      return parse();
    ++context.readsWithoutGIL;
    llvm::scope_exit uncount([&] { --context.readsWithoutGIL; });
    ReleaseGilOrPark release;
    return parse();
  }
  /// "context #N", for messages.
  std::string describeContext(MLIRContext * context);

  //===----------------------------------------------------------------------===//
  // Operation
  //===----------------------------------------------------------------------===//

  /// The C++ side of `ir.Operation`: a tracked handle.
  class PyOperation {
  public:
    /// Returns the Python object for `op` (the same object while one exists).
    static py::object forOperation(PyMlirContext &context, Operation *op);
    /// Same, for an op of the tree of `owner` (its resolved owner, in step
    /// with the op's root): callers that visit many ops of one tree (walks)
    /// pass it down instead of finding the root per op.
    static py::object forOperation(PyMlirContext &context, Operation *op,
                                   const std::shared_ptr<RootOwner> &owner);
    /// Same, when `handle` is known to be the canonical handle of the live
    /// op `op` (`OpHandle::get(bool &)` said so): skips the registry lookup.
    /// A new object takes `handle` over (callers that hold a handle they no
    /// longer need, such as a walk's snapshot, move it in: no reference is
    /// taken and dropped).
    static py::object
    forCanonicalHandle(PyMlirContext &context, OpHandle handle, Operation *op,
                       const std::shared_ptr<RootOwner> &owner);
    /// Takes ownership of the detached op `op` and returns its Python object.
    static py::object adopt(PyMlirContext &context, Operation *op);

    ~PyOperation();

    /// The op, or throws InvalidatedHandleException if the handle is not
    /// live, or IRInUseException if a pipeline runs on its IR tree. The choke
    /// point every structural object goes through before touching IR.
    Operation *get();
    /// The op or nullptr; never throws. Does not check the run guard: only
    /// for code that does not dereference the op.
    Operation *getIfLive() const { return handle.get(); }
    /// The owner of the op's tree, following forwards; reads no IR.
    std::shared_ptr<RootOwner> getResolvedOwner() const {
      return RootOwner::resolve(owner)->shared_from_this();
    }
    const OpHandle &getHandle() const { return handle; }
    PyMlirContext &getContext() const { return *context; }
    py::object getContextObject() const { return context->getObject(); }
    /// The Python object of this handle (it owns `this`).
    py::object getObject() const {
      return py::reinterpret_borrow<py::object>(self);
    }
    /// Replaces the owner (see PyMlirContext::rehome).
    void setOwner(std::shared_ptr<RootOwner> newOwner);
    /// Tells this object that `current`, a resolved owner just found to own
    /// the root of an op in the same tree (its child's), owns its op's
    /// root: if it is this object's owner, get() need not walk up to check.
    void confirmOwner(const RootOwner &current) {
      if (owner == &current)
        rootCheckedAt = context->getRootChanges();
    }

    /// Objects live in slots of a pool of their own (Core.cpp), used with
    /// the GIL held: walks make one per op, and malloc's free of a small
    /// block (a fast bin, then consolidating the bins when the list that
    /// held the objects is freed) cost about as much as the rest of
    /// dropping one. (Heap blocks under AddressSanitizer, so that a use of
    /// a dropped object is reported.)
    static void *operator new(size_t size);
    static void operator delete(void *pointer);

  private:
    PyOperation(PyMlirContext &context, OpHandle handle, uint32_t index,
                std::shared_ptr<RootOwner> owner);
    friend class PyMlirContext;

    // 40 bytes, a slot of the pool: dropping an object touches no other
    // object. The destructor releases the handle, then the owner (which may
    // destroy IR and needs the context), then the context's Python object.
    /// Holds a reference to the context's Python object (`context->self`).
    PyMlirContext *context;
    /// Counted by RootOwner::retainForObject.
    RootOwner *owner;
    /// A union member is not destroyed: the destructor moves the handle to
    /// the release queue and leaves no empty handle to destroy.
    union {
      OpHandle handle;
    };
    /// Borrowed: the Python object owns `this`.
    PyObject *self = nullptr;
    /// The handle's identity index (`OpHandle::getIdentityIndex`, which
    /// reads the record's chunk): where this object sits in
    /// `PyMlirContext::operationsByIndex`, unless clearLiveOperations moved
    /// it to `forgottenOperations`.
    uint32_t index;
    /// `PyMlirContext::getRootChanges()` when `owner` was last found to own
    /// the op's root (in the padding: the slot stays 40 bytes).
    uint32_t rootCheckedAt = 0;
  };

  /// The Operation* of an `ir.Operation` or `ir.Module` argument.
  PyOperation &castToOperation(const py::handle &object);

  //===----------------------------------------------------------------------===//
  // Thread context stack (Context / Location / InsertionPoint managers).
  //===----------------------------------------------------------------------===//

  enum class FrameKind { Context, Location, InsertionPoint };
  void pushFrame(FrameKind kind, const py::object &object,
                 const py::object &context);
  void popFrame(FrameKind kind, const py::object &object);
  /// The current Context / Location / InsertionPoint object, or None.
  py::object getCurrentContext();
  py::object getCurrentLocation();
  py::object getCurrentInsertionPoint();

  //===----------------------------------------------------------------------===//
  // Module population.
  //===----------------------------------------------------------------------===//

  void populateIRCore(py::module_ & m);
  void populateIRStructure(py::module_ & m);
  void populatePassManager(py::module_ & m);
  void populateTransformInterpreter(py::module_ & m);
  /// `_benchmark`: the bare-wrapper baseline of benchmarks/python_bench.py.
  void populateBenchmarkSupport(py::module_ & m);
  /// Makes `X.__new__(X)` raise TypeError for every class under `root`
  /// (except OpView, which checks bare instances itself); call last.
  void refuseBareNew(py::module_ & root);

  /// Prints `op` (for __str__).
  std::string printOperation(Operation * op,
                             OpPrintingFlags flags = OpPrintingFlags());

  /// MLIR's verifier reads the block of each operand's defining op when it
  /// checks dominance in the regions of the op it verifies, and crashes on
  /// a result of an op that is in no block (an op detached, or created and
  /// not inserted, while other IR uses its results), unless an
  /// IsolatedFromAbove op around the use reports it first. Python can build
  /// such IR, so every verification it asks for, the printer's included,
  /// goes through these.
  /// The first use of such a result that verifying `op` would crash on: by
  /// an op nested in `op`'s regions with no IsolatedFromAbove op around it
  /// (`op` included), or null.
  OpOperand *findUseOfBlocklessResult(Operation * op);
  /// Upstream's switch-like branches (`cf.switch`, `llvm.switch`,
  /// `spirv.Switch`, `llvm.indirectbr`) keep their successors' operands in
  /// a segment attribute whose length no verifier checks before the
  /// BranchOpInterface verifier reads one segment per successor: too short
  /// (or a negative entry), verifying, printing or folding the op reads
  /// past it (`mlir-opt` segfaults on such text). And a switch's verifier
  /// reads its case values' type without checking that it has any; affine
  /// loops' bound maps may take other counts of inputs than they get
  /// operands (a verifier reading past the operands, canonicalization
  /// aborting). Why `op` (not its regions) is such an op, or an empty
  /// string.
  std::string describeUnverifiableOp(Operation * op);
  /// The first op in `root` (`root` included) that
  /// describeUnverifiableOp describes, or null.
  Operation *findUnverifiableOp(Operation * root);
  /// The invariants of the registered op `op` (RegisteredOperationName::
  /// verifyInvariants), or an error for what describeUnverifiableOp
  /// describes, which that would crash on.
  LogicalResult verifyOpInvariants(Operation * op);
  /// mlir::verify(op), or an error at such a use or op (the diagnostic
  /// handlers or a DiagnosticCapture get it) and failure. With
  /// `onThisThread` (and always inside a pass), every op is verified on
  /// the calling thread, not in parallel on the context's pool, so that
  /// every diagnostic is emitted on this thread (QuietOnThisThread).
  LogicalResult verifyIR(Operation * op, bool onThisThread = false);
  /// Ops whose custom printer crashes on IR that their verifier accepts:
  /// `omp.canonical_loop` with its region empty (its printer reads the
  /// induction variable, the region's argument; a generated
  /// `openmp.CanonicalLoopOp(...)` leaves the region empty). Why `op` (not
  /// its regions) is such an op, or an empty string.
  std::string describeUnprintableOp(Operation * op);
  /// The first op in `root` (`root` included) that describeUnprintableOp
  /// describes, or null.
  Operation *findUnprintableOp(Operation * root);
  /// Why printing `printed` in the custom form, verified first and numbered
  /// from itself (as MLIR's IR printing around passes prints), would crash:
  /// an op in it that findUnprintableOp finds, or IR the verifier crashes
  /// on (findUseOfBlocklessResult, findUnverifiableOp); else empty.
  std::string describeCrashingPrint(Operation * printed);
  /// Whether the textual pipeline `pipeline` may run the pass `argument`:
  /// the name stands alone (an element of a pass list or an option's
  /// value; other text may match too, which only makes callers check more).
  bool pipelineMayRunPass(StringRef pipeline, StringRef argument);
  /// A pass `pipeline` may run whose own code prints IR with the custom
  /// printers (print-ir, snapshot-op-locations, view-op-graph), or empty.
  StringRef findIRPrintingPass(StringRef pipeline);
  /// Whether `pipeline` may run a transform interpreter, whose script (in
  /// the payload's tree or in library files) may print payload IR.
  bool pipelineMayRunTransformScript(StringRef pipeline);
  /// MLIR parses, prints and runs nested pass managers recursively:
  /// ValueError if `pipeline` nests pass managers or options (which may
  /// hold pipelines) more than 1000 levels deep. `what` names the text.
  void checkPipelineNesting(StringRef pipeline, StringRef what);
  /// MLIR's parser recurses once per level of regions, types and
  /// attributes (about 1.3 KB of stack per region: IR nesting 6,500 regions
  /// overflowed the stack): ValueError if `text` (IR in the textual form;
  /// bytecode is not scanned) nests brackets more than 2000 levels deep.
  /// `what` names the call.
  void checkTextNesting(StringRef text, StringRef what);
  /// `text` as a Python str, bytes that are not UTF-8 escaped (`\xff`): MLIR
  /// keeps names and messages as bytes (`"a.\ff"` names an op), which
  /// pybind11's strict conversion raised UnicodeDecodeError for, in place
  /// of the MLIRError that carried them or the op that had the name.
  py::str toPythonText(llvm::StringRef text);
  /// What Python hands MLIR's parser (`source`: text or bytecode), checked:
  /// text nesting too deep is refused (checkTextNesting), and bytecode is
  /// read from a copy aligned to a page (a Python string's bytes are
  /// aligned to 16 bytes at best, and MLIR's reader refuses a resource
  /// aligned to more than its buffer is: bytecode with 64-byte aligned
  /// resources that write_bytecode made did not read back).
  class ParserSource {
  public:
    ParserSource(StringRef source, StringRef what);
    ~ParserSource();
    StringRef get() const { return source; }

  private:
    std::unique_ptr<llvm::WritableMemoryBuffer> alignedCopy;
    StringRef source;
  };
  /// What a transform script in `root` does that must be checked before it
  /// runs: the first op that prints payload IR in the custom form
  /// (`transform.print`, or `transform.apply_registered_pass` of a pass
  /// findIRPrintingPass finds, also in its options); ValueError for a
  /// `transform.apply_registered_pass` whose options nest too deep
  /// (checkPipelineNesting).
  Operation *checkTransformScript(Operation * root);
  /// The op MLIR's printer numbers from, and verifies, to print `op` (or a
  /// value of it) through Operation::print or Value::printAsOperand with
  /// flags alone (its findParent rule): with a local scope, the nearest
  /// IsolatedFromAbove op among `op` and its ancestors; otherwise, or if
  /// there is none, the top-level op.
  Operation *findPrintingScope(Operation * op, bool localScope);
  /// `flags` for printing `op` through `op->print(os, flags)` (which
  /// numbers from and verifies findPrintingScope(op, local scope)); for IR
  /// the printer's verification would crash on, the generic form without
  /// verification (what MLIR prints for IR that does not verify); for an
  /// op in `op` whose custom printer would crash (findUnprintableOp), the
  /// generic form, even with `assumeVerified`.
  OpPrintingFlags guardPrintingFlags(Operation * op, OpPrintingFlags flags);
  /// guardPrintingFlags for an mlir::AsmState made on `scope` itself (which
  /// verifies `scope`, whatever the local-scope flag says).
  OpPrintingFlags guardAsmStateFlags(Operation * scope, OpPrintingFlags flags);
  /// `value.printAsOperand` ('%0', '%arg0') with its names numbered from
  /// `scope` (an op holding the value's definition), through an
  /// mlir::AsmState on `scope` with guarded flags (guardAsmStateFlags).
  std::string printValueAsOperand(Value value, Operation * scope,
                                  OpPrintingFlags flags);

  /// Raises ValueError unless `regions` is a region count an op can have:
  /// not negative, and within MLIR's limit (Operation keeps the count in
  /// 23 bits; beyond it, building allocated gigabytes and aborted).
  void checkRegionCount(int64_t regions);

  /// True unless `op` (of a registered op name) was given `attribute` as
  /// its inherent attribute `name` and did not store it: the property
  /// setter silently drops an attribute of the wrong kind and leaves a
  /// null property behind, which custom printers read (a segfault).
  bool storedInherentAttribute(Operation * op, llvm::StringRef name,
                               Attribute attribute);

  /// A new plain list of `items` (None: empty). py::list(x) keeps a list
  /// subclass as it is, whose __iter__ and __getitem__ are Python code:
  /// bindings copy their sequence arguments with this before they take IR
  /// raw, and then read only the copy.
  py::list copyToList(const py::handle &items);

  /// True if `object` is an instance of the bound class `T` (or a subclass).
  /// Use it, not py::isinstance, on objects from Python: that calls
  /// PyObject_IsInstance, which reads the object's `__class__` when its type
  /// does not match, and a subclass may make `__class__` a property (Python
  /// code, run while the binding holds IR raw). This checks the type only.
  template <typename T> bool isInstance(const py::handle &object) {
    static PyTypeObject *type = py::detail::get_type_info(typeid(T))->type;
    return object && PyObject_TypeCheck(object.ptr(), type);
  }

  /// `repr(object)`, for error messages.
  inline std::string reprOf(const py::handle &object) {
    return py::repr(object).cast<std::string>();
  }

} // namespace python
} // namespace mlir::tracking

#endif // MLIR_TRACKING_PYTHON_CORE_H
