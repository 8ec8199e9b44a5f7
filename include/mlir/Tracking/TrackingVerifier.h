//===- TrackingVerifier.h - Checks handles against the IR per pass -*- C++
//-*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// The self-check mode (`tracking-opt --verify-tracking`, Python
// `PassManager.enable_tracking_verification()`): after every pass, the
// handles nested in the pass's anchor are checked against the IR. A pass
// declared precise that changes the IR without telling the tracking listener
// (an `op->erase()` on the side) leaves a handle to a freed op; it is caught
// here, named in an error, and the broken handles are invalidated before
// anything can use them. Like the transform dialect's expensive checks, it
// costs a walk of each anchor after each pass.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_TRACKINGVERIFIER_H
#define MLIR_TRACKING_TRACKINGVERIFIER_H

#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Tracking/HandleRegistry.h"

#include <functional>
#include <string>
#include <vector>

namespace mlir {
class PassManager;
namespace tracking {

/// One pass that broke the registry.
struct TrackingVerificationFailure {
  /// The pass argument (or name) and its anchor ("func.func @f").
  std::string pass;
  std::string anchor;
  /// One line per broken handle.
  std::vector<std::string> problems;
  /// "tracking verification failed after pass 'p' on func.func @f: ...".
  std::string str() const;
};

/// Checks the registry after each pass (see the file comment).
class TrackingVerifier : public PassInstrumentation {
public:
  using FailureCallback =
      std::function<void(const TrackingVerificationFailure &)>;
  /// `onFailure`, if given, runs (on the pass's thread) for each failure,
  /// after the error was emitted on the anchor.
  explicit TrackingVerifier(HandleRegistry &registry,
                            FailureCallback onFailure = nullptr);

  /// Fire after `pass` ran (or failed) on `anchor`: verifies the handles
  /// nested in `anchor`.
  void runAfterPass(Pass *pass, Operation *anchor) override;
  void runAfterPassFailed(Pass *pass, Operation *anchor) override;

private:
  void verify(Pass *pass, Operation *anchor);
  /// The registry's context: each pass is checked against the registry the
  /// context has then, so the verifier may outlive it.
  MLIRContext *context;
  FailureCallback onFailure;
};

/// Adds a TrackingVerifier for `registry` to `pm` (after `enableTracking`).
void enableTrackingVerification(
    PassManager &pm, HandleRegistry &registry,
    TrackingVerifier::FailureCallback onFailure = nullptr);

} // namespace tracking
} // namespace mlir

#endif // MLIR_TRACKING_TRACKINGVERIFIER_H
