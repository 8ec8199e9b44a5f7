// The instruction-cache sets that the tracked path and the listener's entry
// points were placed in (lib/Tracking/HotPath.h) hold in the linked tool:
// each pinned group starts at MLIR_TRACKING_PINNED_PAGE_OFFSET (0x740) in a
// page, the entry points at MLIR_TRACKING_LISTENER_PAGE_OFFSET (0x900). A
// compiler or linker that dropped the sections would place them anywhere.
// RUN: llvm-nm -C %tracking_opt_file | FileCheck %s

// CHECK-DAG: {{^[0-9a-f]*}}740 T mlir::tracking::detail::RegistryNotifier::notifyOperationReplaced(
// CHECK-DAG: {{^[0-9a-f]*}}740 T mlir::tracking::detail::RegistryNotifier::notifyErased(
// CHECK-DAG: {{^[0-9a-f]*}}740 T mlir::tracking::TrackingListener::trackReplacement({{.*}}mlir::ValueRange)
// CHECK-DAG: {{^[0-9a-f]*}}900 T mlir::tracking::PassTrackingListener::notifyMatchFailure(
