//===- PassTracking.cpp - Handles across pass pipelines -------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "mlir/Tracking/PassTracking.h"
#include "Attribution.h"
#include "RegistryNotifier.h"

#include "BlockValueNotifications.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Tracking/TrackingListener.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/ErrorHandling.h"

#include <atomic>
#include <optional>
#include <shared_mutex>

using namespace mlir;
using namespace mlir::tracking;

namespace {
struct PreciseRegistry {
  std::shared_mutex mutex;
  llvm::DenseSet<TypeID> passIDs;
  llvm::DenseSet<const Pass *> instances;
  /// Moves with every registration (under the lock): the answers a thread
  /// keeps (PreciseAnswers) hold while it stays.
  std::atomic<uint64_t> generation{1};
};
PreciseRegistry &getPreciseRegistry() {
  static PreciseRegistry instance;
  return instance;
}

/// The answers of `isPrecisePass` a thread gave last: the instrumentation
/// asks for every pass execution, and a pipeline's executions alternate
/// between a few passes. Keyed by the pass's address and TypeID (a pass
/// freed and another of a registered type allocated at its address is not
/// taken for it) and valid for one generation of the registrations.
struct PreciseAnswers {
  static constexpr unsigned kSlots = 4;
  uint64_t generation = 0;
  const Pass *passes[kSlots] = {};
  TypeID typeIDs[kSlots];
  bool precise[kSlots] = {};
  unsigned next = 0;
};
thread_local PreciseAnswers preciseAnswers;
} // namespace

void mlir::tracking::registerPrecisePass(TypeID passID) {
  PreciseRegistry &precise = getPreciseRegistry();
  std::unique_lock<std::shared_mutex> lock(precise.mutex);
  precise.passIDs.insert(passID);
  precise.generation.fetch_add(1, std::memory_order_release);
}

void mlir::tracking::registerPreciseInstance(const Pass *pass) {
  PreciseRegistry &precise = getPreciseRegistry();
  std::unique_lock<std::shared_mutex> lock(precise.mutex);
  precise.instances.insert(pass);
  precise.generation.fetch_add(1, std::memory_order_release);
}

void mlir::tracking::unregisterPreciseInstance(const Pass *pass) {
  PreciseRegistry &precise = getPreciseRegistry();
  std::unique_lock<std::shared_mutex> lock(precise.mutex);
  precise.instances.erase(pass);
  precise.generation.fetch_add(1, std::memory_order_release);
}

bool mlir::tracking::isPrecisePass(const Pass &pass) {
  PreciseRegistry &precise = getPreciseRegistry();
  PreciseAnswers &answers = preciseAnswers;
  // Read before the lock: an answer computed after a registration that
  // moved it is kept under the old generation, and asked again.
  uint64_t generation = precise.generation.load(std::memory_order_acquire);
  TypeID typeID = pass.getTypeID();
  if (answers.generation == generation) {
    for (unsigned i = 0; i < PreciseAnswers::kSlots; ++i)
      if (answers.passes[i] == &pass && answers.typeIDs[i] == typeID)
        return answers.precise[i];
  } else {
    answers = PreciseAnswers();
    answers.generation = generation;
  }
  bool isPrecise;
  {
    std::shared_lock<std::shared_mutex> lock(precise.mutex);
    // Instances are registered in their constructors, including the clones
    // the pass manager makes for its worker threads.
    isPrecise =
        precise.passIDs.contains(typeID) || precise.instances.contains(&pass);
  }
  unsigned slot = answers.next++ % PreciseAnswers::kSlots;
  answers.passes[slot] = &pass;
  answers.typeIDs[slot] = typeID;
  answers.precise[slot] = isPrecise;
  return isPrecise;
}

/// The TypeID of the pass manager's adaptor pass. The class is private to
/// libMLIR: ask a pass manager to make one (nesting a pipeline adds one).
static TypeID getPassAdaptorID() {
  static const TypeID id = [] {
    OpPassManager pm("builtin.module");
    pm.nest("func.func");
    return pm.begin()->getTypeID();
  }();
  return id;
}

bool mlir::tracking::isPassAdaptor(const Pass &pass) {
  return pass.getTypeID() == getPassAdaptorID();
}

//===----------------------------------------------------------------------===//
// TrackingInstrumentation
//===----------------------------------------------------------------------===//

TrackingInstrumentation::TrackingInstrumentation(HandleRegistry &registry)
    : context(registry.getContext()) {}

TrackingInstrumentation::~TrackingInstrumentation() = default;

static std::string getPassLabel(Pass *pass) {
  return (pass->getArgument().empty() ? pass->getName() : pass->getArgument())
      .str();
}

void TrackingInstrumentation::runBeforePass(Pass *pass, Operation *anchor) {
  if (isPassAdaptor(*pass))
    return;
  std::string label = getPassLabel(pass);
  if (!isPrecisePass(*pass)) {
    // From here on the handles under `anchor` are invalidated: the pass may
    // free their ops at any moment, and another thread may allocate an op at
    // a freed address.
    std::optional<detail::EventSource> source;
    auto getSource = [&] {
      if (!source) {
        source.emplace();
        source->pass = label;
        source->anchor = describeAnchor(anchor);
        source->passKey = pass;
        source->anchorKey = anchor;
      }
      return *source;
    };
    // Upstream's transform interpreter changes the payload its script
    // reaches, which may climb out of the anchor (`get_parent_op`): what
    // it may change is the whole tree.
    Operation *scope = anchor;
    if (pass->getArgument() == "transform-interpreter")
      while (Operation *parent = scope->getParentOp())
        scope = parent;
    // The registry the context has now: the one tracking was enabled with
    // may have ended (and another begun) since, while the pass manager
    // lives on. The lock-free filter knows every scope with handles below
    // it: most anchors without handles take no lock.
    if (HandleRegistry *registry = HandleRegistry::lookup(context)) {
      detail::RegistryNotifier notifier(*registry);
      if (notifier.hasHandles() &&
          (detail::RegistryNotifier::getBodyScope(scope) != scope ||
           notifier.mayBeTracked(scope)))
        notifier.invalidateNested(scope, getSource(), "pass is not precise");
    }
    // Block and value handles under it end too.
    detail::invalidateUnitsUnder(scope, getSource, "pass is not precise");
  }
  // The pass manager calls runBeforePass and runAfterPass on the thread
  // that runs the pass, nested: the attribution is that thread's, with no
  // lock or table shared by the threads of the pass manager.
  detail::pushAttribution(label, anchor, pass);
}

void TrackingInstrumentation::finishPass(Pass *pass, Operation *anchor) {
  if (isPassAdaptor(*pass))
    return;
  detail::popAttribution(pass, anchor);
}

void TrackingInstrumentation::runAfterPass(Pass *pass, Operation *anchor) {
  finishPass(pass, anchor);
}

void TrackingInstrumentation::runAfterPassFailed(Pass *pass,
                                                 Operation *anchor) {
  finishPass(pass, anchor);
}

void mlir::tracking::enableTracking(PassManager &pm, HandleRegistry &registry) {
  // Its passes would rewrite IR whose handles this registry never hears of.
  if (pm.getContext() != registry.getContext())
    llvm::report_fatal_error("enableTracking: the registry belongs to another "
                             "context than the pass manager");
  pm.addInstrumentation(std::make_unique<TrackingInstrumentation>(registry));
}
