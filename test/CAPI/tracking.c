//===- tracking.c - Test of the mlir-tracking C API -----------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Exercises every function of mlir-c/Tracking.h from C, on IR built and run
// with MLIR's own C API: handles that follow canonicalize and cse, handles
// invalidated by a non-precise pass, the failure paths (null arguments,
// another context, a second registry) and the end of tracking.
//
//===----------------------------------------------------------------------===//

// RUN: mlir-tracking-capi-test 2>&1 | FileCheck %s

#include "mlir-c/Tracking.h"

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"
#include "mlir-c/Support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_OR_DIE(cond)                                                     \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static void printToStdout(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

static void printLine(MlirStringRef text, void *userData) {
  fprintf(stdout, "%s  %.*s\n", (const char *)userData, (int)text.length,
          text.data);
}

/// Prints "<label>: <state>[: <op>]", the description and the history.
static void report(const char *label, MlirTrackingHandle handle) {
  MlirTrackingHandleState state = mlirTrackingHandleGetState(handle);
  MlirStringRef name = mlirTrackingHandleStateGetName(state);
  printf("%s: %.*s", label, (int)name.length, name.data);
  MlirOperation op = mlirTrackingHandleGetOperation(handle);
  // The op is there exactly when the handle is live.
  CHECK_OR_DIE(mlirOperationIsNull(op) ==
               (state != MlirTrackingHandleStateLive));
  if (!mlirOperationIsNull(op)) {
    printf(": ");
    mlirOperationPrint(op, printToStdout, NULL);
  }
  printf("\n  describe: ");
  mlirTrackingHandleDescribe(handle, printToStdout, NULL);
  printf("\n  %ld events\n",
         (long)mlirTrackingHandleGetNumHistoryEvents(handle));
  mlirTrackingHandlePrintHistory(handle, printLine, (void *)"  ");
}

/// Collects the ops named `name`, in walk order.
typedef struct {
  const char *name;
  MlirOperation ops[8];
  int count;
} OpCollector;

static MlirWalkResult collect(MlirOperation op, void *userData) {
  OpCollector *collector = (OpCollector *)userData;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (name.length == strlen(collector->name) &&
      !strncmp(name.data, collector->name, name.length) && collector->count < 8)
    collector->ops[collector->count++] = op;
  return MlirWalkResultAdvance;
}

static OpCollector find(MlirModule module, const char *name) {
  OpCollector collector = {name, {{NULL}}, 0};
  mlirOperationWalk(mlirModuleGetOperation(module), collect, &collector,
                    MlirWalkPreOrder);
  return collector;
}

static MlirContext createContext(void) {
  MlirContext context = mlirContextCreate();
  MlirDialectRegistry dialects = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(dialects);
  mlirContextAppendDialectRegistry(context, dialects);
  mlirDialectRegistryDestroy(dialects);
  mlirContextLoadAllAvailableDialects(context);
  return context;
}

// @f: canonicalize folds %three to a constant and erases %dead; @g: cse
// merges %b into %a.
static const char *const kInput = "func.func @f(%x: i32) -> i32 {\n"
                                  "  %c1 = arith.constant 1 : i32\n"
                                  "  %c2 = arith.constant 2 : i32\n"
                                  "  %three = arith.addi %c1, %c2 : i32\n"
                                  "  %dead = arith.muli %x, %x : i32\n"
                                  "  %sum = arith.addi %x, %three : i32\n"
                                  "  return %sum : i32\n"
                                  "}\n"
                                  "func.func @g(%x: i32, %y: i32) -> i32 {\n"
                                  "  %a = arith.muli %x, %y : i32\n"
                                  "  %b = arith.muli %x, %y : i32\n"
                                  "  %c = arith.addi %a, %b : i32\n"
                                  "  return %c : i32\n"
                                  "}\n";

static void testStateNames(void) {
  printf("TEST: state names\n");
  MlirTrackingHandleState states[] = {MlirTrackingHandleStateLive,
                                      MlirTrackingHandleStateErased,
                                      MlirTrackingHandleStateInvalidated};
  for (int i = 0; i < 3; ++i) {
    MlirStringRef name = mlirTrackingHandleStateGetName(states[i]);
    printf("%d: %.*s\n", (int)states[i], (int)name.length, name.data);
  }
  // CHECK-LABEL: TEST: state names
  // CHECK-NEXT: 0: live
  // CHECK-NEXT: 1: erased
  // CHECK-NEXT: 2: invalidated
}

static void testRegistry(void) {
  printf("TEST: registry\n");
  MlirContext context = createContext();
  MlirContext other = createContext();

  CHECK_OR_DIE(mlirTrackingRegistryIsNull(
      mlirTrackingRegistryCreate((MlirContext){NULL})));
  CHECK_OR_DIE(mlirTrackingRegistryIsNull(mlirTrackingRegistryLookup(context)));
  MlirTrackingRegistry registry = mlirTrackingRegistryCreate(context);
  CHECK_OR_DIE(!mlirTrackingRegistryIsNull(registry));
  // One registry per context: a second one is refused, not fatal.
  CHECK_OR_DIE(mlirTrackingRegistryIsNull(mlirTrackingRegistryCreate(context)));
  CHECK_OR_DIE(mlirTrackingRegistryLookup(context).ptr == registry.ptr);
  CHECK_OR_DIE(mlirTrackingRegistryIsNull(mlirTrackingRegistryLookup(other)));
  CHECK_OR_DIE(
      mlirContextEqual(mlirTrackingRegistryGetContext(registry), context));
  CHECK_OR_DIE(mlirContextIsNull(
      mlirTrackingRegistryGetContext((MlirTrackingRegistry){NULL})));
  printf("tracked ops: %ld\n",
         (long)mlirTrackingRegistryGetNumTrackedOps(registry));
  printf("null registry: %ld\n", (long)mlirTrackingRegistryGetNumTrackedOps(
                                     (MlirTrackingRegistry){NULL}));

  mlirTrackingRegistryDestroy(registry);
  mlirTrackingRegistryDestroy((MlirTrackingRegistry){NULL});
  CHECK_OR_DIE(mlirTrackingRegistryIsNull(mlirTrackingRegistryLookup(context)));
  // A new registry once the old one is gone.
  registry = mlirTrackingRegistryCreate(context);
  CHECK_OR_DIE(!mlirTrackingRegistryIsNull(registry));
  mlirTrackingRegistryDestroy(registry);
  printf("registry ok\n");
  mlirContextDestroy(other);
  mlirContextDestroy(context);
  // CHECK-LABEL: TEST: registry
  // CHECK-NEXT: tracked ops: 0
  // CHECK-NEXT: null registry: 0
  // CHECK-NEXT: registry ok
}

static void testPrecisePasses(void) {
  printf("TEST: precise passes\n");
  MlirContext context = createContext();
  MlirTrackingRegistry registry = mlirTrackingRegistryCreate(context);
  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kInput));
  CHECK_OR_DIE(!mlirModuleIsNull(module));

  OpCollector adds = find(module, "arith.addi");
  OpCollector muls = find(module, "arith.muli");
  CHECK_OR_DIE(adds.count == 3 && muls.count == 3);
  MlirTrackingHandle three = mlirTrackingHandleCreate(registry, adds.ops[0]);
  MlirTrackingHandle sum = mlirTrackingHandleCreate(registry, adds.ops[1]);
  MlirTrackingHandle dead = mlirTrackingHandleCreate(registry, muls.ops[0]);
  MlirTrackingHandle a = mlirTrackingHandleCreate(registry, muls.ops[1]);
  MlirTrackingHandle b = mlirTrackingHandleCreate(registry, muls.ops[2]);
  // A second handle to the same op shares its record.
  MlirTrackingHandle threeAgain =
      mlirTrackingHandleCreate(registry, adds.ops[0]);
  CHECK_OR_DIE(mlirTrackingHandleEqual(three, threeAgain));
  CHECK_OR_DIE(!mlirTrackingHandleEqual(a, b));
  printf("tracked ops: %ld\n",
         (long)mlirTrackingRegistryGetNumTrackedOps(registry));

  MlirPassManager pm = mlirPassManagerCreate(context);
  CHECK_OR_DIE(mlirLogicalResultIsSuccess(
      mlirTrackingPassManagerEnableTracking(pm, registry)));
  mlirPassManagerAddOwnedPass(pm, mlirTrackingCreateCanonicalizerPass());
  mlirPassManagerAddOwnedPass(pm, mlirTrackingCreateCSEPass());
  CHECK_OR_DIE(mlirLogicalResultIsSuccess(
      mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module))));

  report("three", three);
  report("dead", dead);
  report("sum", sum);
  report("a", a);
  report("b", b);
  // CSE merged %b into %a: the handles now refer to the same op.
  printf("a == b: %d\n", mlirTrackingHandleEqual(a, b));
  printf("tracked ops: %ld\n",
         (long)mlirTrackingRegistryGetNumTrackedOps(registry));

  MlirTrackingHandle handles[] = {three, threeAgain, dead, sum, a, b};
  for (int i = 0; i < 6; ++i)
    mlirTrackingHandleDestroy(handles[i]);
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  mlirTrackingRegistryDestroy(registry);
  mlirContextDestroy(context);
  // CHECK-LABEL: TEST: precise passes
  // CHECK-NEXT: tracked ops: 5
  // CHECK-NEXT: three: live: %{{.*}} = arith.constant 3 : i32
  // CHECK-NEXT: describe: operation handle to 'arith.constant'
  // CHECK-SAME: is live
  // CHECK-NEXT: 1 events
  // CHECK-NEXT: canonicalize on builtin.module: arith.addi {{.*}} (folded)
  // CHECK-NEXT: dead: erased
  // CHECK-NEXT: describe: operation handle to 'arith.muli'
  // CHECK-SAME: is erased
  // CHECK-NEXT: 1 events
  // CHECK-NEXT: canonicalize on builtin.module: arith.muli {{.*}}: erased
  // CHECK-NEXT: sum: live: %{{.*}} = arith.addi %arg0, %{{.*}} : i32
  // CHECK-NEXT: describe: operation handle to 'arith.addi'
  // CHECK-NEXT: 0 events
  // CHECK-NEXT: a: live: %{{.*}} = arith.muli %arg0, %arg1 : i32
  // CHECK-NEXT: describe: operation handle to 'arith.muli'
  // CHECK-NEXT: 0 events
  // CHECK-NEXT: b: live: %{{.*}} = arith.muli %arg0, %arg1 : i32
  // CHECK-NEXT: describe: operation handle to 'arith.muli'
  // CHECK-NEXT: 1 events
  // CHECK-NEXT: cse on builtin.module: arith.muli {{.*}}: replaced by
  // CHECK-NEXT: a == b: 1
  // CHECK-NEXT: tracked ops: 3
}

static void testNonPrecisePassAndRegistration(void) {
  printf("TEST: non-precise pass and registration\n");
  // Ours first: the first registration of a pass argument wins.
  mlirTrackingRegisterPasses();
  mlirRegisterAllPasses();

  MlirContext context = createContext();
  MlirTrackingRegistry registry = mlirTrackingRegistryCreate(context);
  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kInput));
  MlirTrackingHandle func =
      mlirTrackingHandleCreate(registry, find(module, "func.func").ops[0]);
  MlirTrackingHandle three =
      mlirTrackingHandleCreate(registry, find(module, "arith.addi").ops[0]);
  MlirTrackingHandle sum =
      mlirTrackingHandleCreate(registry, find(module, "arith.addi").ops[1]);

  // "canonicalize" parsed from text is the precise one.
  MlirPassManager pm = mlirPassManagerCreate(context);
  mlirTrackingPassManagerEnableTracking(pm, registry);
  CHECK_OR_DIE(mlirLogicalResultIsSuccess(mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString("builtin.module(canonicalize)"),
      printToStdout, NULL)));
  CHECK_OR_DIE(mlirLogicalResultIsSuccess(
      mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module))));
  report("three after canonicalize", three);
  mlirPassManagerDestroy(pm);

  // Any other pass invalidates the handles nested in the op it ran on; the op
  // itself (the function) stays live.
  pm = mlirPassManagerCreate(context);
  mlirTrackingPassManagerEnableTracking(pm, registry);
  CHECK_OR_DIE(mlirLogicalResultIsSuccess(mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString(
          "builtin.module(func.func(loop-invariant-code-motion))"),
      printToStdout, NULL)));
  CHECK_OR_DIE(mlirLogicalResultIsSuccess(
      mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module))));
  report("sum after licm", sum);
  report("func after licm", func);

  // Destroying the registry ends tracking: live handles become erased and
  // stay safe to query.
  mlirTrackingRegistryDestroy(registry);
  report("func after registry destroyed", func);

  mlirTrackingHandleDestroy(func);
  mlirTrackingHandleDestroy(three);
  mlirTrackingHandleDestroy(sum);
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
  // CHECK-LABEL: TEST: non-precise pass and registration
  // CHECK-NEXT: three after canonicalize: live: %{{.*}} = arith.constant 3
  // CHECK: canonicalize on builtin.module: arith.addi {{.*}} (folded)
  // CHECK-NEXT: sum after licm: invalidated
  // CHECK-NEXT: describe: operation handle to 'arith.addi'
  // CHECK-SAME: is invalidated
  // CHECK-SAME: loop-invariant-code-motion
  // CHECK: func after licm: live: func.func @f
  // CHECK: func after registry destroyed: erased
  // CHECK: tracking ended
}

static void testFailurePaths(void) {
  printf("TEST: failure paths\n");
  MlirContext context = createContext();
  MlirContext other = createContext();
  MlirTrackingRegistry registry = mlirTrackingRegistryCreate(context);
  MlirModule foreign =
      mlirModuleCreateParse(other, mlirStringRefCreateFromCString(kInput));
  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kInput));

  // Null arguments and ops of another context give null handles.
  CHECK_OR_DIE(mlirTrackingHandleIsNull(mlirTrackingHandleCreate(
      (MlirTrackingRegistry){NULL}, mlirModuleGetOperation(module))));
  CHECK_OR_DIE(mlirTrackingHandleIsNull(
      mlirTrackingHandleCreate(registry, (MlirOperation){NULL})));
  CHECK_OR_DIE(mlirTrackingHandleIsNull(
      mlirTrackingHandleCreate(registry, mlirModuleGetOperation(foreign))));
  CHECK_OR_DIE(mlirTrackingRegistryGetNumTrackedOps(registry) == 0);

  // A null handle reads as an erased handle with no history.
  MlirTrackingHandle null = {NULL};
  report("null handle", null);
  CHECK_OR_DIE(mlirTrackingHandleEqual(null, null));
  mlirTrackingHandleDestroy(null);

  // Tracking cannot be enabled with a null registry or pass manager, or
  // across contexts.
  MlirPassManager pm = mlirPassManagerCreate(context);
  MlirPassManager otherPm = mlirPassManagerCreate(other);
  CHECK_OR_DIE(mlirLogicalResultIsFailure(
      mlirTrackingPassManagerEnableTracking(pm, (MlirTrackingRegistry){NULL})));
  CHECK_OR_DIE(mlirLogicalResultIsFailure(mlirTrackingPassManagerEnableTracking(
      (MlirPassManager){NULL}, registry)));
  CHECK_OR_DIE(mlirLogicalResultIsFailure(
      mlirTrackingPassManagerEnableTracking(otherPm, registry)));
  printf("failure paths ok\n");

  mlirPassManagerDestroy(otherPm);
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  mlirModuleDestroy(foreign);
  mlirTrackingRegistryDestroy(registry);
  mlirContextDestroy(other);
  mlirContextDestroy(context);
  // CHECK-LABEL: TEST: failure paths
  // CHECK-NEXT: null handle: erased
  // CHECK-NEXT: describe: empty operation handle
  // CHECK-NEXT: 0 events
  // CHECK-NEXT: failure paths ok
}

int main(void) {
  testStateNames();
  testRegistry();
  testPrecisePasses();
  testNonPrecisePassAndRegistration();
  testFailurePaths();
  return 0;
}
