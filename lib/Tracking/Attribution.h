//===- Attribution.h - Per-thread attribution of rewrites -------*- C++ -*-===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// The per-thread stack of (pass, anchor) frames that events name, for code
// that cannot scope a ScopedRewriteAttribution (the pass instrumentation,
// whose before and after callbacks run on the thread that runs the pass).
// Private to lib/Tracking; not installed.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_TRACKING_LIB_ATTRIBUTION_H
#define MLIR_TRACKING_LIB_ATTRIBUTION_H

#include "llvm/ADT/StringRef.h"

namespace mlir {
class Operation;

namespace tracking::detail {

/// Attributes the rewrites made on this thread to `pass` running on
/// `anchor` until `popAttribution(passKey, anchor)`.
void pushAttribution(llvm::StringRef pass, Operation *anchor,
                     const void *passKey);
/// Ends the innermost frame pushed for (`passKey`, `anchor`): the top one
/// when pushes and pops nest, as the pass manager's callbacks do. Frames
/// above it stay; without such a frame, nothing changes.
void popAttribution(const void *passKey, Operation *anchor);
/// The anchor of the innermost pass running on this thread (the op that pass
/// holds), or null outside passes.
Operation *getRunningPassAnchor();

} // namespace tracking::detail
} // namespace mlir

#endif // MLIR_TRACKING_LIB_ATTRIBUTION_H
