//===- HandleIdentityTest.cpp - Stable identity of operation handles ------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//

#include "RegistryNotifier.h"
#include "TestUtils.h"

#include "mlir/Tracking/HandleRegistry.h"

using namespace mlir;
using namespace mlir::tracking;
using namespace mlir::tracking::test;
using mlir::tracking::detail::EventSource;
using mlir::tracking::detail::RegistryNotifier;

namespace {
const char *kTwoAdds = R"mlir(
func.func @f(%a: i32, %b: i32) -> (i32, i32) {
  %0 = arith.addi %a, %b {tag = "add0"} : i32
  %1 = arith.addi %a, %b {tag = "add1"} : i32
  return %0, %1 : i32, i32
}
)mlir";

TEST(HandleIdentityTest, IdentityKeySurvivesMergeWhileSameOpFollowsIt) {
  MLIRContext context;
  loadTestDialects(context);
  HandleRegistry registry(&context);
  OwningOpRef<ModuleOp> module = parseModule(context, kTwoAdds);
  Operation *add0 = findTagged(*module, "add0");
  Operation *add1 = findTagged(*module, "add1");
  OpHandle kept = registry.getHandle(add0);
  OpHandle merged = registry.getHandle(add1);
  const void *keptKey = kept.getIdentityKey();
  const void *mergedKey = merged.getIdentityKey();
  EXPECT_NE(keptKey, mergedKey);
  EXPECT_FALSE(merged.sameOp(kept));
  EXPECT_TRUE(merged.sameOp(merged));
  // Another handle to the same op has the same identity (one record).
  EXPECT_EQ(registry.getHandle(add0).getIdentityKey(), keptKey);

  // add1 replaced by add0 (as CSE does): the handles merge.
  RegistryNotifier(registry).notifyOperationReplaced(add1, add0, EventSource());
  add1->getResult(0).replaceAllUsesWith(add0->getResult(0));
  add1->erase();
  EXPECT_TRUE(merged.sameOp(kept));
  EXPECT_TRUE(kept.sameOp(merged));
  EXPECT_EQ(merged.get(), add0);
  // Identity keys are unchanged by the merge.
  EXPECT_EQ(kept.getIdentityKey(), keptKey);
  EXPECT_EQ(merged.getIdentityKey(), mergedKey);
  // The handle now found at the op is the op's own handle.
  EXPECT_EQ(registry.lookupHandle(add0).getIdentityKey(), keptKey);

  // Once erased, merged handles still name one op; identity is unchanged.
  RegistryNotifier(registry).notifyOperationErased(add0, EventSource(), "test");
  EXPECT_FALSE(merged.isLive());
  EXPECT_TRUE(merged.sameOp(kept));
  EXPECT_EQ(merged.getIdentityKey(), mergedKey);
  EXPECT_FALSE(OpHandle().sameOp(kept));
}
} // namespace
