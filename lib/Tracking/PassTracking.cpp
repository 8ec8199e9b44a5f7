//===- PassTracking.cpp - Handles across pass pipelines -------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "mlir/Tracking/PassTracking.h"

#include "BlockValueNotifications.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Tracking/TrackingListener.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <mutex>
#include <shared_mutex>

using namespace mlir;
using namespace mlir::tracking;

namespace {
struct PreciseRegistry {
  std::shared_mutex mutex;
  llvm::DenseSet<TypeID> passIDs;
  llvm::DenseSet<const Pass *> instances;
};
PreciseRegistry &getPreciseRegistry() {
  static PreciseRegistry instance;
  return instance;
}
} // namespace

void mlir::tracking::registerPrecisePass(TypeID passID) {
  PreciseRegistry &precise = getPreciseRegistry();
  std::unique_lock<std::shared_mutex> lock(precise.mutex);
  precise.passIDs.insert(passID);
}

void mlir::tracking::registerPreciseInstance(const Pass *pass) {
  PreciseRegistry &precise = getPreciseRegistry();
  std::unique_lock<std::shared_mutex> lock(precise.mutex);
  precise.instances.insert(pass);
}

void mlir::tracking::unregisterPreciseInstance(const Pass *pass) {
  PreciseRegistry &precise = getPreciseRegistry();
  std::unique_lock<std::shared_mutex> lock(precise.mutex);
  precise.instances.erase(pass);
}

bool mlir::tracking::isPrecisePass(const Pass &pass) {
  PreciseRegistry &precise = getPreciseRegistry();
  std::shared_lock<std::shared_mutex> lock(precise.mutex);
  // Instances are registered in their constructors, including the clones the
  // pass manager makes for its worker threads.
  return precise.passIDs.contains(pass.getTypeID()) ||
         precise.instances.contains(&pass);
}

RewriterBase::Listener *mlir::tracking::getTrackingListener() {
  return &getGlobalTrackingListener();
}

bool mlir::tracking::isPassAdaptor(const Pass &pass) {
  // The adaptor class is private to libMLIR; its name is all we can see.
  return pass.getName() == "mlir::detail::OpToOpPassAdaptor";
}

//===----------------------------------------------------------------------===//
// TrackingInstrumentation
//===----------------------------------------------------------------------===//

struct TrackingInstrumentation::State {
  struct Execution {
    HandleRegistry::DetachedRecords detached;
    std::unique_ptr<ScopedRewriteAttribution> attribution;
  };
  std::mutex mutex;
  /// Pass executions in flight, one per (pass instance, anchor); several run
  /// at once under the multi-threaded pass manager.
  llvm::DenseMap<std::pair<Pass *, Operation *>, Execution> executions;
};

TrackingInstrumentation::TrackingInstrumentation(HandleRegistry &registry)
    : registry(registry), state(std::make_unique<State>()) {}

TrackingInstrumentation::~TrackingInstrumentation() = default;

void TrackingInstrumentation::runBeforePass(Pass *pass, Operation *anchor) {
  if (isPassAdaptor(*pass))
    return;
  State::Execution execution;
  execution.attribution = std::make_unique<ScopedRewriteAttribution>(
      pass->getArgument().empty() ? pass->getName() : pass->getArgument(),
      anchor, pass);
  if (!isPrecisePass(*pass)) {
    execution.detached = registry.detachNestedRecords(anchor);
    // Block and value handles under the anchor end before the pass runs.
    detail::invalidateUnitsUnder(
        anchor,
        [&] {
          HandleRegistry::EventSource source;
          source.pass = pass->getArgument().empty() ? pass->getName().str()
                                                    : pass->getArgument().str();
          source.anchor = describeAnchor(anchor);
          source.passKey = pass;
          source.anchorKey = anchor;
          return source;
        },
        "pass is not precise");
  }
  std::lock_guard<std::mutex> lock(state->mutex);
  state->executions[{pass, anchor}] = std::move(execution);
}

void TrackingInstrumentation::finishPass(Pass *pass, Operation *anchor) {
  if (isPassAdaptor(*pass))
    return;
  State::Execution execution;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    auto it = state->executions.find({pass, anchor});
    if (it == state->executions.end())
      return;
    execution = std::move(it->second);
    state->executions.erase(it);
  }
  if (!execution.detached.empty()) {
    HandleRegistry::EventSource source;
    source.pass = pass->getArgument().empty() ? pass->getName().str()
                                              : pass->getArgument().str();
    source.anchor = describeAnchor(anchor);
    source.passKey = pass;
    source.anchorKey = anchor;
    registry.invalidateDetached(execution.detached, source,
                                "pass is not precise");
  }
  // `execution` dies here, outside the registry lock: it may release the
  // last reference to a record.
}

void TrackingInstrumentation::runAfterPass(Pass *pass, Operation *anchor) {
  finishPass(pass, anchor);
}

void TrackingInstrumentation::runAfterPassFailed(Pass *pass,
                                                 Operation *anchor) {
  finishPass(pass, anchor);
}

void mlir::tracking::enableTracking(PassManager &pm, HandleRegistry &registry) {
  pm.addInstrumentation(std::make_unique<TrackingInstrumentation>(registry));
}
