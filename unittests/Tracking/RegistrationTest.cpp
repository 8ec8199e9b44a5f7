//===- RegistrationTest.cpp - Tests for registerTrackedPasses -------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// The pass registry is global to the process: the order tests are in a
// binary of their own, and the wrong order runs in a death test's fresh
// process ("threadsafe" style re-executes the binary for that test alone).
//
//===----------------------------------------------------------------------===//

#include "mlir/InitAllPasses.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tracking/PassTracking.h"
#include "mlir/Tracking/Passes.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tracking;

namespace {

/// Parses `pipeline` and returns whether every pass in it is precise.
bool isPipelinePrecise(StringRef pipeline) {
  OpPassManager pm;
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (failed(parsePassPipeline(pipeline, pm, os))) {
    ADD_FAILURE() << errors;
    return false;
  }
  for (Pass &pass : pm.getPasses())
    if (!isPrecisePass(pass))
      return false;
  return !pm.empty();
}

TEST(RegistrationTest, OursFirstMakesCanonicalizeAndCSEPrecise) {
  registerTrackedPasses();
  registerAllPasses();
  EXPECT_TRUE(isPipelinePrecise("canonicalize"));
  EXPECT_TRUE(isPipelinePrecise("cse"));
  EXPECT_TRUE(isPipelinePrecise("canonicalize{max-iterations=2},cse"));
  // Registering again is harmless.
  registerTrackedPasses();
  EXPECT_TRUE(isPipelinePrecise("canonicalize"));
}

TEST(RegistrationDeathTest, UpstreamFirstFailsLoudlyWithTheFix) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        registerAllPasses();
        registerTrackedPasses();
      },
      "'canonicalize' is upstream's.*call "
      "mlir::tracking::registerTrackedPasses\\(\\) before "
      "mlir::registerAllPasses\\(\\)");
}

TEST(RegistrationDeathTest, UpstreamCSEAloneIsDetectedToo) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        registerCSEPass();
        registerTrackedPasses();
      },
      "'cse' is upstream's");
}

} // namespace
