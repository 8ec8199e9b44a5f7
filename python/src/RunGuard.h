//===- RunGuard.h - IR locked while a pipeline runs on it -------*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// `PassManager.run` releases the GIL, so other Python threads run while MLIR
// changes the IR. The unit of locking is an IR tree: a top-level op and
// everything under it, represented by its RootOwner (see Core.h). Every
// structural Python object reaches IR through a PyOperation, and
// PyOperation::get() calls checkIRAccess() on the owner of its op's tree
// before it reads anything, so while a run holds a RunLock on a tree every
// access to it from Python raises IRInUseException (a RuntimeError naming
// the pipeline), without reading the IR that is being changed.
//
// The other direction: C++ code that holds raw IR across Python code (a walk
// calling its callback, a loop that allocates Python objects and so may run
// a finalizer that switches threads) holds an IRPin; a run refuses to start
// on a pinned tree. When Python moves IR out of a pinned tree, the
// destination tree is pinned too (see propagatePins), so every op a pin
// holder saw stays safe to read for as long as it holds the pin.
//
// Everything here is read and written with the GIL held.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_PYTHON_RUNGUARD_H
#define MLIR_TRACKING_PYTHON_RUNGUARD_H

#include "Core.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::tracking {
// Internal to the extension: hidden like pybind11's own types, whose
// objects these classes hold.
namespace __attribute__((visibility("hidden"))) python {

  /// What runs on a locked IR tree, for the errors other threads get.
  struct RunningPipeline {
    /// The textual pipeline, e.g. "builtin.module(canonicalize)", or the
    /// name of a rewrite driver, e.g. "apply_patterns_and_fold_greedily".
    std::string pipeline;
    /// The op the run was started on, as "'name' at loc".
    std::string target;
    /// A rewrite driver called from Python (DriverRunLock), not a pipeline.
    bool driver = false;
    /// The context the run is in.
    const PyMlirContext *context = nullptr;
    /// What runs, for errors: "pass pipeline", "rewrite driver", "transform
    /// interpreter".
    const char *kind = "pass pipeline";
    /// A pass of the run prints IR in the custom form (print-ir, a
    /// transform.print): its Python passes may not leave an op whose custom
    /// printer crashes (findUnprintableOp).
    bool printsCustomForm = false;
    /// Trees that Python passes of the run linked to its IR by uses,
    /// locked until it ends (lockTreesLinkedByPass).
    mutable llvm::SmallVector<std::shared_ptr<RootOwner>, 0> lockedDuringRun;
    /// Trees that nested Python passes of the run made, claimed until it
    /// ends unless Python drops them first (claimForPass).
    mutable std::vector<std::weak_ptr<RootOwner>> claimedDuringRun;
    /// The first exception of a Python pass of the run that is no error
    /// (KeyboardInterrupt, SystemExit: not an Exception): the pass fails,
    /// and PassManager.run raises it as it is, not an MLIRError, as
    /// upstream's does. GIL-protected.
    mutable std::optional<py::error_already_set> interruption;
  };

  /// Python touched IR that a pipeline is running on, or started a run on
  /// IR that is locked or pinned. Translated to RuntimeError.
  struct IRInUseException : std::runtime_error {
    using std::runtime_error::runtime_error;
  };

  /// Throws IRInUseException if a pipeline runs on the tree of `owner` (the
  /// resolved owner of an op) and the current thread was not let in by a
  /// ScopedRunAccess for that run. Reads no IR.
  void checkIRAccess(const RootOwner &owner);

  /// Throws IRInUseException if a pipeline runs anywhere in `context`: for
  /// context-wide changes (threading, dialects) and for resolving raw
  /// pointers (capsules) that may point into running IR. `what` names the
  /// refused call.
  void checkNoRunIn(const PyMlirContext &context, llvm::StringRef what);

  /// Throws IRInUseException unless the current thread may change
  /// `context` itself (its dialects): no run is in progress, or only runs
  /// the current thread was let into and not in a nested Python pass
  /// (their threads wait for its Python code). `what` names the refused
  /// call.
  void checkContextChangeAllowed(const PyMlirContext &context,
                                 llvm::StringRef what);
  /// The test of checkContextChangeAllowed, without throwing: no other
  /// thread may be using `context` now.
  bool mayChangeContext(const PyMlirContext &context);

  /// True if the current thread may read every IR tree of `context`: no
  /// run is in progress in it, or every run in progress is one the current
  /// thread was let into (ScopedRunAccess), so it is waiting for this
  /// thread's Python code. Reads no IR.
  bool mayReadAnyTree(const PyMlirContext &context);

  /// Locks the IR tree of `target`, and every tree linked to it by uses
  /// (values or blocks of one used in another), for a run of `pipeline` for
  /// its lifetime. Throws IRInUseException if one of them is already locked
  /// or pinned, and InvalidatedHandleException if `target` is not live.
  class RunLock {
  public:
    RunLock(PyOperation &target, std::string pipeline, bool driver = false,
            const char *kind = "pass pipeline");
    ~RunLock();
    RunLock(const RunLock &) = delete;
    RunLock &operator=(const RunLock &) = delete;

    /// The op to run on (the live op of `target`).
    Operation *getOperation() const { return op; }
    const RunningPipeline &getRun() const { return run; }
    void setPrintsCustomForm() { run.printsCustomForm = true; }

  private:
    PyMlirContext &context;
    RunningPipeline run;
    Operation *op = nullptr;
    /// The owners of the locked trees, the target's first.
    llvm::SmallVector<std::shared_ptr<RootOwner>, 1> owners;
    /// Each owner's lock and claim before (a tree a Python pass of another
    /// run claimed, which it may run on), restored when the run ends.
    llvm::SmallVector<std::pair<const RunningPipeline *, Operation *>, 1>
        claims;
  };

  /// What an IRPin refuses besides runs.
  enum class PinKind {
    /// Python may still change the pinned IR: the holder re-checks its
    /// handles after every piece of Python code (a walk and its callback).
    RunsOnly,
    /// Python may not change the pinned IR (checkPinnedIRChange): the
    /// holder keeps raw ops, blocks or values across Python code that has
    /// no reason to change IR but could (an OpView class's `__new__`, a
    /// generator or property of an argument, a gc callback or finalizer
    /// run by an allocation), and would read them freed.
    ReadOnly,
    /// As ReadOnly, for a holder that reads the pinned IR without the GIL
    /// (readWithoutGILIfPoolWaits): Python on other threads keeps running.
    /// The pin also covers the trees linked to the pinned one by uses
    /// (keeping them alive), and refuses changes made through other trees
    /// that add or remove uses of its values or blocks
    /// (checkUseListChange): the reader may be reading those use lists.
    ReadsWithoutGIL,
  };

  /// Keeps runs off the tree of `operation` (and every tree Python moves IR
  /// of it to) for its lifetime; a ReadOnly pin also refuses every change
  /// Python makes to those trees, from any thread. `user` names the holder
  /// in the errors, e.g. "Operation.walk".
  class IRPin {
  public:
    /// `why` says what the holder does meanwhile, for the errors (default:
    /// it holds raw IR across Python code it runs).
    IRPin(PyOperation &operation, const char *user,
          PinKind kind = PinKind::ReadOnly, const char *why = nullptr);
    ~IRPin();
    IRPin(const IRPin &) = delete;
    IRPin &operator=(const IRPin &) = delete;

    /// True if this pin covers the tree of `owner` (a resolved owner).
    bool covers(const RootOwner *owner) const;
    /// True if it covers a change of `changed` (an op of the tree of
    /// `owner`; null if unknown): a pin taken in a nested Python pass
    /// covers only the pass's op in the run's tree, the only IR of it that
    /// its holder can reach (other functions' passes change theirs
    /// meanwhile).
    bool coversChangeAt(const RootOwner *owner, Operation *changed) const;
    /// Covers the tree of `owner` too (IR of another tree the holder reads:
    /// the users of a value).
    void cover(std::shared_ptr<RootOwner> owner);
    const char *getUser() const { return user; }
    const char *getWhy() const { return why; }
    bool isReadOnly() const { return kind != PinKind::RunsOnly; }
    bool readsWithoutGIL() const { return kind == PinKind::ReadsWithoutGIL; }

  private:
    friend void propagatePins(PyMlirContext &, const RootOwner *,
                              std::shared_ptr<RootOwner>);
    PyMlirContext &context;
    const char *user;
    PinKind kind;
    const char *why;
    /// The op of the nested Python pass the pin was taken in, if any: in
    /// the first owner's tree (the run's), only IR under it is covered.
    Operation *scope = nullptr;
    llvm::SmallVector<std::shared_ptr<RootOwner>, 2> owners;
  };

  /// Throws IRInUseException if a ReadOnly IRPin covers the tree of `owner`
  /// (a resolved owner): Python is about to change it. Reads no IR.
  /// PyMlirContext::noteChanged calls it, so every change Python makes is
  /// checked before it is made. `changed`: the op changed, if known
  /// (IRPin::coversChangeAt).
  void checkPinnedIRChange(const PyMlirContext &context, const RootOwner *owner,
                           Operation *changed = nullptr);

  /// Throws IRInUseException if a call reading IR without the GIL pins the
  /// tree of `value` (or `block`, or the op `user` of such a tree)
  /// (PinKind::ReadsWithoutGIL): Python is about to add or remove a use of
  /// it from another tree (a new op's operand or successor, an operand
  /// set, a replacement), which edits its use list under that reader.
  /// Cheap while the context has no pin. Reads no IR but the parent chain.
  void checkUseListChange(PyMlirContext & context, Value value);
  void checkUseListChange(PyMlirContext & context, Block * block);
  /// Same for uses of any result or block of `holder`'s tree (an op a PDL
  /// function or a pattern hands over as a replacement).
  void checkUseListChange(PyMlirContext & context, Operation * holder);
  /// As checkUseListChange for every value and block `op` (and the ops in
  /// it) uses from outside it: erasing it removes those uses.
  void checkUsesFromChange(PyMlirContext & context, Operation * op);
  /// As checkUseListChange for every value and block a clone of `op` would
  /// use from outside `op`.
  void checkCloneUseListChanges(PyMlirContext & context, Operation * op);

  /// Throws IRInUseException while diagnostic handlers of `context` run from
  /// inside a call that may still hold IR (the end of its DiagnosticCapture):
  /// `what` ("change IR", "run 'p'") would free or move IR under it.
  void checkNoHandlerDelivery(const PyMlirContext &context,
                              llvm::StringRef what);

  /// Fires after Python moved IR from the tree of `from` to the tree of `to`
  /// (a cross-tree move or a detach): pins covering `from` now cover `to`.
  void propagatePins(PyMlirContext & context, const RootOwner *from,
                     std::shared_ptr<RootOwner> to);

  /// While alive, `op` is the op a Python pass or a rewrite driver runs on,
  /// on this thread. The pass manager or the driver still uses it when the
  /// Python code returns (to verify it, to walk its regions): erasing,
  /// detaching, moving or replacing it, or an op or block holding it, from
  /// that code would free or move it under them (checkNotRunAnchor).
  class RunAnchor {
  public:
    RunAnchor(Operation *op, std::string user);
    ~RunAnchor();
    RunAnchor(const RunAnchor &) = delete;
    RunAnchor &operator=(const RunAnchor &) = delete;

  private:
    Operation *op;
    std::string user;
    const RunAnchor *previous;
    friend void checkNotRunAnchor(Operation *, const char *);
    friend void checkNotRunAnchor(Block *, const char *);
  };

  /// Throws RuntimeError if `op` (or `block`) is or holds the op of a pass
  /// or driver running on this thread (RunAnchor). `action` names the
  /// change ("erase", "detach", "move", "replace").
  void checkNotRunAnchor(Operation * op, const char *action);
  void checkNotRunAnchor(Block * block, const char *action);

  /// Lets the current thread access the IR that `run` is running on, for
  /// Python code the run itself calls (a Python pass). Nests. With a
  /// `scope` (the op a nested Python pass runs on, isolated from above),
  /// only the IR under `scope` is let in: the pass manager may be rewriting
  /// the rest on other threads (checkPassScope). `user` names the pass in
  /// the error.
  class ScopedRunAccess {
  public:
    explicit ScopedRunAccess(const RunningPipeline &run,
                             Operation *scope = nullptr, std::string user = "");
    ~ScopedRunAccess();
    ScopedRunAccess(const ScopedRunAccess &) = delete;
    ScopedRunAccess &operator=(const ScopedRunAccess &) = delete;

    /// The op of the nested Python pass this access is limited to, or null.
    Operation *getScope() const { return scope; }

  private:
    const RunningPipeline *previous;
    const ScopedRunAccess *previousScoped;
    Operation *scope;
    std::string user;
    friend void checkPassScope(const RootOwner &, const OpHandle &,
                               const char *);
    friend void checkWholeTreeAccess(const RootOwner &, const char *);
    friend Operation *findPassScope(const RootOwner &);
    friend void claimForPass(const PyMlirContext &,
                             const std::shared_ptr<RootOwner> &);
    friend bool mayAccess(const RootOwner &, const OpHandle &);
  };

  /// Throws IRInUseException if the current thread runs a Python pass of
  /// the run on the tree of `owner` (resolved) and `anchor`, the handle
  /// through which an op, block or value of that tree is reached, does not
  /// refer to an op under the pass's op: the pass manager may be rewriting
  /// the rest of the tree on other threads. `what` names what was reached
  /// ("op", "block", "value"). Reads no IR.
  void checkPassScope(const RootOwner &owner, const OpHandle &anchor,
                      const char *what);

  /// Throws IRInUseException if the current thread runs a Python pass of
  /// the run on the tree of `owner` (resolved) that is limited to the op it
  /// runs on (a nested pass, see ScopedRunAccess): `what` (e.g. a transform
  /// script) may reach any op of the tree, and the pass manager may be
  /// rewriting the rest on other threads or iterating over it. Reads no IR.
  void checkWholeTreeAccess(const RootOwner &owner, const char *what);

  /// True if the current thread runs a nested Python pass of the run on the
  /// tree of `owner` (resolved), limited to the op it runs on: printing
  /// must then number and verify from the printed op (a local scope), not
  /// from the tree's root, which other threads may be rewriting.
  bool isLimitedToPassScope(const RootOwner &owner);
  /// The op that limit is to (the nested Python pass's op), or nullptr.
  Operation *findPassScope(const RootOwner &owner);

  /// Fires when Python made the tree of `owner` in `context` (adoptRoot: a
  /// new, cloned, detached or parsed op). In a nested Python pass the tree is
  /// claimed by the pass: locked by its run and usable only by that pass until
  /// the run ends. Python passes on other functions run at the same time (one
  /// releasing the GIL lets another in); one that took such a tree (a
  /// branch to a block of the first's function, an op using its values)
  /// linked the two functions, which the pass manager rewrites on two
  /// threads.
  void claimForPass(const PyMlirContext &context,
                    const std::shared_ptr<RootOwner> &owner);

  /// True if the current thread may use the op of `handle`, in the tree of
  /// `owner` (resolved): no run holds the tree, or the thread runs Python
  /// code of that run allowed there (see checkPassScope). Reads no IR.
  bool mayAccess(const RootOwner &owner, const OpHandle &handle);

  /// What lockTreesLinkedByPass found.
  enum class PassLinks {
    /// Nothing the pass must fail for.
    Kept,
    /// IR outside the pass's op uses values or blocks of it, or the pass's
    /// op uses those of another function.
    UsedFromOutside,
    /// A tree linked to the pass's op is linked to another function's
    /// Python pass too.
    SharedWithAnotherPass,
  };

  /// Fires when the Python code of a pass of `run` on `passOp` returned.
  /// Trees outside the run's IR that the pass linked to it by uses (an op
  /// it created or cloned and left detached, using values of its op, or
  /// values of such an op used in its op) are locked for the rest of the
  /// run, as RunLock locks the trees linked before it: other threads would
  /// edit the use lists that the pipeline's threads edit. The pass must
  /// fail if such a tree uses values or blocks of `passOp` (later passes
  /// assume every use of what they erase is in their IR: RunLock's rule),
  /// or if another function's pass linked it too (their functions are
  /// rewritten on two threads).
  PassLinks lockTreesLinkedByPass(PyMlirContext & context, Operation * passOp,
                                  const RunningPipeline &run);

  /// True if a call from Python that waits on the context's thread pool
  /// (a verification, a pass run by a transform script) must release the
  /// GIL meanwhile: a pipeline of the context, or of another context that
  /// shares its pool, runs Python passes on that pool, which wait for the
  /// GIL. The caller keeps other threads away from
  /// the IR it reads (a run lock, or a read-only IRPin) while it does.
  bool waitsOnPoolWithoutGIL(const PyMlirContext &context);

  /// Runs `fn` (C++ that reads the IR of `operation`'s tree and touches no
  /// Python object: a verification, a print) without the GIL if
  /// waitsOnPoolWithoutGIL, that tree pinned read-only meanwhile (`user`
  /// names the holder in the errors of other threads).
  template <typename Fn>
  void readWithoutGILIfPoolWaits(PyOperation & operation, const char *user,
                                 Fn fn) {
    if (!waitsOnPoolWithoutGIL(operation.getContext())) {
      fn();
      return;
    }
    IRPin pin(operation, user, PinKind::ReadsWithoutGIL,
              "while it reads it without the GIL (another thread runs Python "
              "passes on the thread pool)");
    PyMlirContext &context = operation.getContext();
    ++context.readsWithoutGIL;
    llvm::scope_exit uncount([&] { --context.readsWithoutGIL; });
    ReleaseGilOrPark release;
    fn();
  }

  /// For writers that trust the IR they read (bytecode, SMT-LIB): raises
  /// MLIRError with `message` and the verifier's diagnostics unless the op
  /// of `operation` verifies (skipped when its whole tree is known to).
  void verifyBeforeWriting(PyOperation & operation, const char *user,
                           const std::string &message);

  /// The input check of a run from Python (PassManager.run, the rewrite
  /// drivers, apply_named_sequence). Passes, patterns and transforms assume
  /// valid IR (upstream's crash on, for example, a branch to a block of
  /// another region, which Python can build), so a run verifies its input
  /// first, unless its tree is known to verify (RootOwner::verified: no
  /// change from Python since it last verified or a run on its root
  /// succeeded). Destroyed without `succeeded()`, the run failed and the
  /// tree is no longer known to verify.
  class InputVerification {
  public:
    /// Raises MLIRError with the verifier's diagnostics if `op` (the live
    /// op of `target`, locked against other threads) does not verify.
    /// `user` names the run in the error.
    InputVerification(PyOperation &target, Operation *op, const char *user);
    ~InputVerification();
    InputVerification(const InputVerification &) = delete;
    InputVerification &operator=(const InputVerification &) = delete;

    /// Fires when the run succeeded. `outputVerified`: the run verified
    /// its result (a pass manager with its verifier on), so a run on the
    /// root leaves the tree known to verify even if Python code of the run
    /// changed it; otherwise it stays known to verify only if nothing
    /// changed it from Python during the run, and the run does not build
    /// IR from data that nothing checks (`mayMakeInvalidIR`: PDL patterns
    /// create ops with any attributes, a transform script annotates any
    /// attribute).
    void succeeded(bool outputVerified, bool mayMakeInvalidIR = false);

  private:
    std::shared_ptr<RootOwner> owner;
    /// The run is on the root of the tree (a run on a nested op verifies
    /// only that op).
    bool onRoot;
    bool done = false;
  };

  /// Takes the run guard for a rewrite driver called from Python
  /// (apply_patterns_and_fold_greedily, walk_and_apply_patterns, the
  /// conversions) on `target`, for its lifetime. The driver keeps the GIL
  /// but calls Python patterns, which let other threads run between
  /// bytecodes: as for a pipeline, the IR tree of `target` (and the trees
  /// linked to it) is locked against them, and the current thread (the
  /// patterns) is let in. Called from a Python pass on the IR its pipeline
  /// runs on, it takes no lock of its own (the pass already has the IR).
  /// Throws IRInUseException if a pipeline or another driver runs on that
  /// IR (also one whose pattern called this one), or a walk pins it.
  class DriverRunLock {
  public:
    DriverRunLock(PyOperation &target, const char *driver,
                  const char *kind = "rewrite driver");
    DriverRunLock(const DriverRunLock &) = delete;
    DriverRunLock &operator=(const DriverRunLock &) = delete;

    /// The op to run on (the live op of `target`).
    Operation *getOperation() const { return op; }
    /// False inside a Python pass on the IR of its pipeline: the pipeline's
    /// lock holds that IR, not trees the pass linked to it meanwhile.
    bool hasOwnLock() const { return lock.has_value(); }
    /// Fires when the driver succeeded (see InputVerification).
    /// `mayMakeInvalidIR`: the run builds IR from data that nothing checks
    /// (PDL patterns, a transform script).
    void succeeded(bool mayMakeInvalidIR) {
      if (verification)
        verification->succeeded(/*outputVerified=*/false, mayMakeInvalidIR);
    }

  private:
    std::optional<RunLock> lock;
    std::optional<ScopedRunAccess> access;
    std::optional<InputVerification> verification;
    std::optional<RunAnchor> anchor;
    Operation *op = nullptr;
  };

} // namespace python
} // namespace mlir::tracking

#endif // MLIR_TRACKING_PYTHON_RUNGUARD_H
