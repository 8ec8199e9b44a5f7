//===- consumer.cpp - mlir-tracking from an installed package -------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Holds handles to three ops across the precise `canonicalize` and prints what
// became of each: one is folded into a constant (the handle follows it), one
// is dead and erased, one is untouched. CI checks the output with FileCheck
// against the CHECK lines below.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Tracking/HandleRegistry.h"
#include "mlir/Tracking/PassTracking.h"
#include "mlir/Tracking/Passes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

static const char *const kInput = R"mlir(
func.func @f(%x: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %three = arith.addi %c1, %c2 : i32
  %dead = arith.muli %x, %x : i32
  %sum = arith.addi %x, %three : i32
  return %sum : i32
}
)mlir";

/// Prints the state of `handle`, the op it refers to if live, and its story.
static void report(StringRef label, const tracking::OpHandle &handle) {
  llvm::outs() << label << ": "
               << tracking::stringifyHandleState(handle.getState());
  if (Operation *op = handle.get()) {
    llvm::outs() << ": ";
    op->print(llvm::outs());
  }
  llvm::outs() << "\n";
  for (const tracking::TrackingEvent &event : handle.getHistory())
    llvm::outs() << "  " << event.str() << "\n";
}

int main() {
  DialectRegistry dialects;
  dialects.insert<arith::ArithDialect, func::FuncDialect>();
  MLIRContext context(dialects);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kInput, &context);
  if (!module)
    return 1;

  // One registry per context, destroyed before it.
  tracking::HandleRegistry registry(&context);
  SmallVector<Operation *> ops;
  module->walk([&](Operation *op) {
    if (isa<arith::AddIOp, arith::MulIOp>(op))
      ops.push_back(op);
  });
  tracking::OpHandle three = registry.getHandle(ops[0]);
  tracking::OpHandle dead = registry.getHandle(ops[1]);
  tracking::OpHandle sum = registry.getHandle(ops[2]);

  PassManager pm(&context);
  tracking::enableTracking(pm, registry);
  pm.addPass(tracking::createTrackedCanonicalizerPass());
  if (failed(pm.run(*module)))
    return 1;

  report("three", three);
  report("dead", dead);
  report("sum", sum);
  return three.isLive() && !dead.isLive() && sum.isLive() ? 0 : 1;
}

// CHECK: three: live: %{{.*}} = arith.constant 3 : i32
// CHECK-NEXT: replaced by arith.constant
// CHECK: dead: erased
// CHECK-NEXT: erased
// CHECK: sum: live: %{{.*}} = arith.addi %arg0, %{{.*}} : i32
