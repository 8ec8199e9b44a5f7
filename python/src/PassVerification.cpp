//===- PassVerification.cpp - PassManager.enable_tracking_verification ----===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// The Python switch of the self-check mode (`tracking-opt --verify-tracking`):
// after every pass the handles nested in its anchor are checked against the
// IR, and `PassManager.run` raises MLIRError naming each pass that broke
// them. Added to the pass manager class from here (its `run` is wrapped),
// so that PassManager.cpp stays about running pipelines.
//
//===----------------------------------------------------------------------===//

#include "Rewrite.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Tracking/TrackingVerifier.h"
#include "llvm/ADT/DenseMap.h"

#include <mutex>

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::python;

namespace {
/// The failures of the current run of one pass manager. Owned by its
/// verifier instrumentation: it leaves the map when the pass manager dies.
struct VerificationState {
  PassManager *pm;
  std::mutex mutex;
  std::vector<std::string> failures;
  ~VerificationState();
};

std::mutex &getStatesMutex() {
  static std::mutex mutex;
  return mutex;
}
llvm::DenseMap<PassManager *, std::weak_ptr<VerificationState>> &getStates() {
  static llvm::DenseMap<PassManager *, std::weak_ptr<VerificationState>> map;
  return map;
}

VerificationState::~VerificationState() {
  std::lock_guard<std::mutex> lock(getStatesMutex());
  auto it = getStates().find(pm);
  if (it != getStates().end() && it->second.expired())
    getStates().erase(it);
}

std::shared_ptr<VerificationState> lookupState(PassManager *pm) {
  std::lock_guard<std::mutex> lock(getStatesMutex());
  auto it = getStates().find(pm);
  return it == getStates().end() ? nullptr : it->second.lock();
}
} // namespace

void mlir::tracking::python::populatePassVerification(py::module_ &m) {
  py::object cls = m.attr("PassManager");
  cls.attr("enable_tracking_verification") = py::cpp_function(
      [](py::object self) {
        PassManager *pm = getIdlePassManager(
            self, "PassManager.enable_tracking_verification");
        if (lookupState(pm))
          return;
        PyMlirContext &context = self.attr("context").cast<PyMlirContext &>();
        auto state = std::make_shared<VerificationState>();
        state->pm = pm;
        {
          std::lock_guard<std::mutex> lock(getStatesMutex());
          getStates()[pm] = state;
        }
        enableTrackingVerification(
            *pm, context.getRegistry(),
            [state](const TrackingVerificationFailure &failure) {
              std::lock_guard<std::mutex> lock(state->mutex);
              state->failures.push_back(failure.str());
            });
      },
      py::name("enable_tracking_verification"), py::is_method(cls),
      "Checks the handles nested in each pass's anchor against the IR after "
      "every pass (a walk of the anchor per pass). A pass declared precise "
      "that changed the IR without telling the tracking listener is caught: "
      "its broken handles become invalidated and `run` raises MLIRError "
      "naming it.");

  py::object originalRun = cls.attr("run");
  cls.attr("run") = py::cpp_function(
      [originalRun](py::object self, py::args args, py::kwargs kwargs) {
        std::shared_ptr<VerificationState> state =
            lookupState(getTrackedPassManager(self, "PassManager.run"));
        if (state) {
          std::lock_guard<std::mutex> lock(state->mutex);
          state->failures.clear();
        }
        py::object result = originalRun(self, *args, **kwargs);
        if (state) {
          std::vector<std::string> failures;
          {
            std::lock_guard<std::mutex> lock(state->mutex);
            failures.swap(state->failures);
          }
          if (!failures.empty()) {
            std::string message;
            for (const std::string &failure : failures)
              message += (message.empty() ? "" : "\n") + failure;
            throw MLIRErrorException{message, {}};
          }
        }
        return result;
      },
      py::name("run"), py::is_method(cls),
      "Runs the pipeline (see the pass manager's run) and, with tracking "
      "verification on, raises MLIRError naming each pass that broke the "
      "handles.");
}
