//===- tracking.c - Test of the mlir-tracking C API -----------------------===//
//
// Part of the mlir-tracking project.
//
//===----------------------------------------------------------------------===//
//
// Exercises every function of mlir-c/Tracking.h from C, on IR built and run
// with MLIR's own C API: handles that follow canonicalize and cse, handles
// invalidated by a non-precise pass, pattern sets (canonicalization, PDL)
// applied by the tracked greedy and walk drivers, transform scripts run by
// the tracked interpreter (handles in, results out, a failing script), the
// tracked rewriter (a move into another function, a replace, an erase), the
// failure paths (null arguments, another context, a second registry) and the
// end of tracking.
//
//===----------------------------------------------------------------------===//

// RUN: mlir-tracking-capi-test 2>&1 | FileCheck %s

#include "mlir-c/Tracking.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"
#include "mlir-c/Rewrite.h"
#include "mlir-c/Support.h"

#include <pthread.h>
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

static void *createRegistry(void *context) {
  return mlirTrackingRegistryCreate(*(MlirContext *)context).ptr;
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
  // Threads creating one at once: one gets it, the others a null registry.
  pthread_t threads[4];
  void *created[4];
  for (int i = 0; i < 4; ++i)
    CHECK_OR_DIE(pthread_create(&threads[i], NULL, createRegistry, &context) ==
                 0);
  int made = 0;
  for (int i = 0; i < 4; ++i) {
    CHECK_OR_DIE(pthread_join(threads[i], &created[i]) == 0);
    if (created[i]) {
      ++made;
      registry.ptr = created[i];
    }
  }
  CHECK_OR_DIE(made == 1);
  mlirTrackingRegistryDestroy(registry);
  printf("registry ok\n");
  mlirContextDestroy(other);
  mlirContextDestroy(context);
  // CHECK-LABEL: TEST: registry
  // CHECK-NEXT: tracked ops: 0
  // CHECK-NEXT: null registry: 0
  // CHECK-NEXT: registry ok
}

static void testDestroyedIR(void) {
  printf("TEST: destroyed IR\n");
  MlirContext context = createContext();
  MlirTrackingRegistry registry = mlirTrackingRegistryCreate(context);
  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kInput));
  OpCollector muls = find(module, "arith.muli");
  MlirTrackingHandle dead = mlirTrackingHandleCreate(registry, muls.ops[0]);
  MlirTrackingHandle root =
      mlirTrackingHandleCreate(registry, mlirModuleGetOperation(module));
  // Destroyed without a rewriter: told first, the handles end.
  mlirTrackingRegistryEraseNested(registry, mlirModuleGetOperation(module));
  mlirModuleDestroy(module);
  printf("nested: %d root: %d tracked: %ld\n",
         (int)mlirTrackingHandleGetState(dead),
         (int)mlirTrackingHandleGetState(root),
         (long)mlirTrackingRegistryGetNumTrackedOps(registry));
  CHECK_OR_DIE(mlirOperationIsNull(mlirTrackingHandleGetOperation(dead)));
  // New IR, likely at the freed addresses, is not taken for the old.
  MlirModule again =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kInput));
  MlirTrackingHandle fresh =
      mlirTrackingHandleCreate(registry, find(again, "arith.muli").ops[0]);
  CHECK_OR_DIE(!mlirTrackingHandleEqual(fresh, dead));
  printf("fresh: %d\n", (int)mlirTrackingHandleGetState(fresh));
  mlirTrackingRegistryEraseNested((MlirTrackingRegistry){NULL},
                                  mlirModuleGetOperation(again));
  mlirTrackingRegistryEraseNested(registry, (MlirOperation){NULL});
  mlirTrackingHandleDestroy(fresh);
  mlirTrackingHandleDestroy(root);
  mlirTrackingHandleDestroy(dead);
  mlirModuleDestroy(again);
  mlirTrackingRegistryDestroy(registry);
  mlirContextDestroy(context);
  // CHECK-LABEL: TEST: destroyed IR
  // CHECK-NEXT: nested: 1 root: 1 tracked: 0
  // CHECK-NEXT: fresh: 0
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
  // Null callbacks are not called.
  mlirTrackingHandleDescribe(null, NULL, NULL);
  mlirTrackingHandlePrintHistory(null, NULL, NULL);
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

/// Prints each diagnostic as "diagnostic: <message>".
static MlirLogicalResult printDiagnostic(MlirDiagnostic diagnostic,
                                         void *userData) {
  (void)userData;
  printf("diagnostic: ");
  mlirDiagnosticPrint(diagnostic, printToStdout, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

static MlirOperation findFunc(MlirModule module, const char *symbol) {
  OpCollector funcs = find(module, "func.func");
  for (int i = 0; i < funcs.count; ++i) {
    MlirAttribute name = mlirOperationGetAttributeByName(
        funcs.ops[i], mlirStringRefCreateFromCString("sym_name"));
    MlirStringRef value = mlirStringAttrGetValue(name);
    if (value.length == strlen(symbol) &&
        !strncmp(value.data, symbol, value.length))
      return funcs.ops[i];
  }
  CHECK_OR_DIE(0 && "no such function");
  return (MlirOperation){NULL};
}

// Replaces every arith.muli by an arith.addi of the same operands.
static const char *const kMulToAdd =
    "module {\n"
    "  pdl.pattern @mul_to_add : benefit(1) {\n"
    "    %type = pdl.type\n"
    "    %lhs = pdl.operand\n"
    "    %rhs = pdl.operand\n"
    "    %root = pdl.operation \"arith.muli\"(%lhs, %rhs : !pdl.value, "
    "!pdl.value) -> (%type : !pdl.type)\n"
    "    pdl.rewrite %root {\n"
    "      %new = pdl.operation \"arith.addi\"(%lhs, %rhs : !pdl.value, "
    "!pdl.value) -> (%type : !pdl.type)\n"
    "      pdl.replace %root with %new\n"
    "    }\n"
    "  }\n"
    "}\n";

static const char *const kMuls = "func.func @h(%x: i32, %y: i32) -> i32 {\n"
                                 "  %m = arith.muli %x, %y : i32\n"
                                 "  return %m : i32\n"
                                 "}\n"
                                 "func.func @k(%x: i32, %y: i32) -> i32 {\n"
                                 "  %m = arith.muli %x, %y : i32\n"
                                 "  return %m : i32\n"
                                 "}\n";

/// Freezes `set`. MLIR 22's mlirFreezeRewritePattern moves the patterns out
/// of the set but never frees the emptied set object (as C++'s
/// `FrozenRewritePatternSet(std::move(set))` leaves `set` to its owner), so
/// it is destroyed here; LeakSanitizer reports it otherwise.
static MlirFrozenRewritePatternSet freeze(MlirRewritePatternSet set) {
  MlirFrozenRewritePatternSet frozen = mlirFreezeRewritePattern(set);
  mlirRewritePatternSetDestroy(set);
  return frozen;
}

/// A PDL pattern set, frozen.
static MlirFrozenRewritePatternSet freezePDL(MlirContext context,
                                             const char *text) {
  MlirModule pdl =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(text));
  CHECK_OR_DIE(!mlirModuleIsNull(pdl));
  // The pattern module takes the module; the set takes the patterns.
  MlirPDLPatternModule pdlModule = mlirPDLPatternModuleFromModule(pdl);
  MlirRewritePatternSet set =
      mlirRewritePatternSetFromPDLPatternModule(pdlModule);
  mlirPDLPatternModuleDestroy(pdlModule);
  return freeze(set);
}

static void testTrackingConfig(void) {
  printf("TEST: tracking config\n");
  MlirTrackingConfig config = mlirTrackingConfigCreate();
  CHECK_OR_DIE(!mlirTrackingConfigIsNull(config));
  printf("defaults: %d %d\n",
         mlirTrackingConfigGetRequireMatchingOpName(config),
         mlirTrackingConfigGetSkipCastOps(config));
  mlirTrackingConfigSetRequireMatchingOpName(config, false);
  mlirTrackingConfigSetSkipCastOps(config, false);
  printf("set: %d %d\n", mlirTrackingConfigGetRequireMatchingOpName(config),
         mlirTrackingConfigGetSkipCastOps(config));
  // A null configuration reads as the defaults and ignores setters.
  MlirTrackingConfig null = {NULL};
  mlirTrackingConfigSetSkipCastOps(null, false);
  printf("null: %d %d\n", mlirTrackingConfigGetRequireMatchingOpName(null),
         mlirTrackingConfigGetSkipCastOps(null));
  mlirTrackingConfigDestroy(config);
  mlirTrackingConfigDestroy(null);
  // CHECK-LABEL: TEST: tracking config
  // CHECK-NEXT: defaults: 1 1
  // CHECK-NEXT: set: 0 0
  // CHECK-NEXT: null: 1 1
}

static void testPatterns(void) {
  printf("TEST: patterns\n");
  MlirContext context = createContext();
  mlirContextAttachDiagnosticHandler(context, printDiagnostic, NULL, NULL);
  MlirTrackingRegistry registry = mlirTrackingRegistryCreate(context);
  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kInput));
  MlirModule muls =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kMuls));
  CHECK_OR_DIE(!mlirModuleIsNull(module) && !mlirModuleIsNull(muls));

  OpCollector adds = find(module, "arith.addi");
  MlirTrackingHandle three = mlirTrackingHandleCreate(registry, adds.ops[0]);
  MlirTrackingHandle dead =
      mlirTrackingHandleCreate(registry, find(module, "arith.muli").ops[0]);
  MlirTrackingHandle gMul =
      mlirTrackingHandleCreate(registry, find(module, "arith.muli").ops[1]);
  MlirTrackingHandle hMul =
      mlirTrackingHandleCreate(registry, find(muls, "arith.muli").ops[0]);
  MlirTrackingHandle kMul =
      mlirTrackingHandleCreate(registry, find(muls, "arith.muli").ops[1]);

  // The canonicalization patterns, greedily on @f only: the fold to a
  // constant is followed, the dead op is erased, @g is not touched.
  MlirRewritePatternSet set = mlirRewritePatternSetCreate(context);
  mlirTrackingRewritePatternSetAddCanonicalizationPatterns(set);
  MlirFrozenRewritePatternSet canonicalization = freeze(set);
  MlirGreedyRewriteDriverConfig greedy = mlirGreedyRewriteDriverConfigCreate();
  mlirGreedyRewriteDriverConfigSetMaxIterations(greedy, 10);
  CHECK_OR_DIE(mlirLogicalResultIsSuccess(
      mlirTrackingApplyPatternsAndFoldGreedily(registry, findFunc(module, "f"),
                                               canonicalization, greedy,
                                               (MlirTrackingConfig){NULL})));
  report("three", three);
  report("dead", dead);
  report("mul in @g", gMul);

  // PDL patterns (arith.muli -> arith.addi). The walk driver, with the name
  // rule relaxed, follows the replacement by another op...
  MlirFrozenRewritePatternSet mulToAdd = freezePDL(context, kMulToAdd);
  MlirTrackingConfig relaxed = mlirTrackingConfigCreate();
  mlirTrackingConfigSetRequireMatchingOpName(relaxed, false);
  CHECK_OR_DIE(mlirLogicalResultIsSuccess(mlirTrackingWalkAndApplyPatterns(
      registry, findFunc(muls, "h"), mulToAdd, relaxed)));
  report("mul in @h (walk, names may differ)", hMul);
  // ... and the greedy driver with the default rule does not accept it.
  CHECK_OR_DIE(mlirLogicalResultIsSuccess(
      mlirTrackingApplyPatternsAndFoldGreedily(registry, findFunc(muls, "k"),
                                               mulToAdd, greedy,
                                               (MlirTrackingConfig){NULL})));
  report("mul in @k (greedy, same name required)", kMul);

  // Bad arguments fail and change nothing; errors about an op go to its
  // context's diagnostic handlers.
  MlirContext other = createContext();
  mlirContextAttachDiagnosticHandler(other, printDiagnostic, NULL, NULL);
  MlirTrackingRegistry otherRegistry = mlirTrackingRegistryCreate(other);
  MlirOperation g = findFunc(module, "g");
  CHECK_OR_DIE(
      mlirLogicalResultIsFailure(mlirTrackingApplyPatternsAndFoldGreedily(
          otherRegistry, g, mulToAdd, greedy, relaxed)));
  CHECK_OR_DIE(mlirLogicalResultIsFailure(mlirTrackingWalkAndApplyPatterns(
      (MlirTrackingRegistry){NULL}, g, mulToAdd, relaxed)));
  CHECK_OR_DIE(
      mlirLogicalResultIsFailure(mlirTrackingApplyPatternsAndFoldGreedily(
          registry, g, (MlirFrozenRewritePatternSet){NULL}, greedy, relaxed)));
  CHECK_OR_DIE(mlirLogicalResultIsFailure(mlirTrackingWalkAndApplyPatterns(
      registry, (MlirOperation){NULL}, mulToAdd, relaxed)));
  mlirTrackingRewritePatternSetAddCanonicalizationPatterns(
      (MlirRewritePatternSet){NULL});
  report("mul in @g after refused runs", gMul);

  mlirTrackingRegistryDestroy(otherRegistry);
  mlirContextDestroy(other);
  MlirTrackingHandle handles[] = {three, dead, gMul, hMul, kMul};
  for (int i = 0; i < 5; ++i)
    mlirTrackingHandleDestroy(handles[i]);
  mlirTrackingConfigDestroy(relaxed);
  mlirGreedyRewriteDriverConfigDestroy(greedy);
  mlirFrozenRewritePatternSetDestroy(mulToAdd);
  mlirFrozenRewritePatternSetDestroy(canonicalization);
  mlirModuleDestroy(muls);
  mlirModuleDestroy(module);
  mlirTrackingRegistryDestroy(registry);
  mlirContextDestroy(context);
  // clang-format off
  // CHECK-LABEL: TEST: patterns
  // CHECK-NEXT: three: live: %{{.*}} = arith.constant 3 : i32
  // CHECK: 1 events
  // CHECK-NEXT: mlirTrackingApplyPatternsAndFoldGreedily on func.func @f: arith.addi {{.*}} (folded)
  // CHECK-NEXT: dead: erased
  // CHECK: 1 events
  // CHECK-NEXT: mlirTrackingApplyPatternsAndFoldGreedily on func.func @f: arith.muli {{.*}}: erased
  // CHECK-NEXT: mul in @g: live: %{{.*}} = arith.muli %arg0, %arg1 : i32
  // CHECK: 0 events
  // CHECK-NEXT: mul in @h (walk, names may differ): live: %{{.*}} = arith.addi %arg0, %arg1 : i32
  // CHECK: 1 events
  // CHECK-NEXT: mlirTrackingWalkAndApplyPatterns on func.func @h: arith.muli {{.*}}: replaced by arith.addi
  // CHECK-NEXT: mul in @k (greedy, same name required): erased
  // CHECK-NEXT: describe: operation handle to 'arith.muli'
  // CHECK-SAME: is erased
  // CHECK: 1 events
  // CHECK-NEXT: mlirTrackingApplyPatternsAndFoldGreedily on func.func @k: arith.muli
  // CHECK-SAME: erased (unnamed pattern on arith.muli); replacement op 'arith.addi' has another name
  // CHECK-NEXT: diagnostic: mlirTrackingApplyPatternsAndFoldGreedily: the registry belongs to another context
  // CHECK-NEXT: diagnostic: mlirTrackingWalkAndApplyPatterns: null registry
  // CHECK-NEXT: diagnostic: mlirTrackingApplyPatternsAndFoldGreedily: null patterns
  // CHECK-NEXT: mul in @g after refused runs: live: %{{.*}} = arith.muli %arg0, %arg1 : i32
  // CHECK: 0 events
  // clang-format on
}

static const char *const kMatmul =
    "func.func @outside() {\n"
    "  return {tag = \"outside\"}\n"
    "}\n"
    "func.func @matmul(%A: tensor<8x16xf32>, %B: tensor<16x32xf32>,\n"
    "                  %C: tensor<8x32xf32>) -> tensor<8x32xf32> {\n"
    "  %0 = linalg.matmul ins(%A, %B : tensor<8x16xf32>, tensor<16x32xf32>)\n"
    "                     outs(%C : tensor<8x32xf32>) -> tensor<8x32xf32>\n"
    "  return {tag = \"inside\"} %0 : tensor<8x32xf32>\n"
    "}\n";

// Tiles the matmul bound to %mm; yields the tiled op, both loops and a
// parameter.
static const char *const kTile =
    "module attributes {transform.with_named_sequence} {\n"
    "  transform.named_sequence @__transform_main(\n"
    "      %root: !transform.any_op {transform.readonly},\n"
    "      %mm: !transform.any_op {transform.consumed})\n"
    "      -> (!transform.any_op, !transform.any_op, !transform.any_op,\n"
    "          !transform.param<i64>) {\n"
    "    %tiled, %loops:2 = transform.structured.tile_using_for %mm\n"
    "        tile_sizes [4, 8]\n"
    "        : (!transform.any_op) -> (!transform.any_op, !transform.any_op,\n"
    "                                  !transform.any_op)\n"
    "    %four = transform.param.constant 4 : i64 -> !transform.param<i64>\n"
    "    transform.yield %tiled, %loops#0, %loops#1, %four\n"
    "        : !transform.any_op, !transform.any_op, !transform.any_op,\n"
    "          !transform.param<i64>\n"
    "  }\n"
    "}\n";

// Fails: func.return cannot be tiled.
static const char *const kFailing =
    "module attributes {transform.with_named_sequence} {\n"
    "  transform.named_sequence @__transform_main(\n"
    "      %root: !transform.any_op {transform.readonly}) {\n"
    "    %r = transform.structured.match ops{[\"func.return\"]} in %root\n"
    "        : (!transform.any_op) -> !transform.any_op\n"
    "    %t, %l = transform.structured.tile_using_for %r tile_sizes [4]\n"
    "        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n"
    "    transform.yield\n"
    "  }\n"
    "}\n";

static MlirOperation firstOp(MlirModule module) {
  return mlirBlockGetFirstOperation(mlirModuleGetBody(module));
}

static void testTransformInterpreter(void) {
  printf("TEST: transform interpreter\n");
  MlirContext context = createContext();
  mlirContextAttachDiagnosticHandler(context, printDiagnostic, NULL, NULL);
  MlirTrackingRegistry registry = mlirTrackingRegistryCreate(context);
  MlirModule payload =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kMatmul));
  MlirModule script =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kTile));
  CHECK_OR_DIE(!mlirModuleIsNull(payload) && !mlirModuleIsNull(script));
  MlirOperation func = findFunc(payload, "matmul");
  MlirTrackingHandle funcHandle = mlirTrackingHandleCreate(registry, func);
  MlirTrackingHandle matmul =
      mlirTrackingHandleCreate(registry, find(payload, "linalg.matmul").ops[0]);
  OpCollector returns = find(payload, "func.return");
  MlirTrackingHandle outside =
      mlirTrackingHandleCreate(registry, returns.ops[0]);
  MlirTrackingHandle inside =
      mlirTrackingHandleCreate(registry, returns.ops[1]);

  intptr_t argSizes[] = {1};
  MlirTrackingTransformResults results = {NULL};
  CHECK_OR_DIE(
      mlirLogicalResultIsSuccess(mlirTrackingTransformApplyNamedSequence(
          registry, func, firstOp(script), mlirModuleGetOperation(script), 1,
          argSizes, &matmul, /*expensiveChecks=*/true, &results)));
  CHECK_OR_DIE(!mlirTrackingTransformResultsIsNull(results));

  intptr_t numResults = mlirTrackingTransformResultsGetNumResults(results);
  printf("results: %ld\n", (long)numResults);
  for (intptr_t pos = 0; pos < numResults; ++pos) {
    intptr_t count = mlirTrackingTransformResultsGetNumElements(results, pos);
    if (mlirTrackingTransformResultsIsParam(results, pos)) {
      CHECK_OR_DIE(mlirTrackingHandleIsNull(
          mlirTrackingTransformResultsGetHandle(results, pos, 0)));
      for (intptr_t i = 0; i < count; ++i) {
        printf("result %ld: param ", (long)pos);
        mlirAttributePrint(
            mlirTrackingTransformResultsGetParam(results, pos, i),
            printToStdout, NULL);
        printf("\n");
      }
      continue;
    }
    CHECK_OR_DIE(mlirAttributeIsNull(
        mlirTrackingTransformResultsGetParam(results, pos, 0)));
    for (intptr_t i = 0; i < count; ++i) {
      MlirTrackingHandle handle =
          mlirTrackingTransformResultsGetHandle(results, pos, i);
      MlirStringRef state =
          mlirTrackingHandleStateGetName(mlirTrackingHandleGetState(handle));
      MlirStringRef name = mlirIdentifierStr(
          mlirOperationGetName(mlirTrackingHandleGetOperation(handle)));
      printf("result %ld: %.*s %.*s\n", (long)pos, (int)state.length,
             state.data, (int)name.length, name.data);
      mlirTrackingHandleDestroy(handle);
    }
  }
  // Out of range reads are null.
  CHECK_OR_DIE(mlirTrackingTransformResultsGetNumElements(results, 99) == 0);
  CHECK_OR_DIE(mlirTrackingHandleIsNull(
      mlirTrackingTransformResultsGetHandle(results, 1, 5)));
  CHECK_OR_DIE(!mlirTrackingTransformResultsIsParam(results, -1));
  // A handle taken out of the results outlives them.
  MlirTrackingHandle outer =
      mlirTrackingTransformResultsGetHandle(results, 1, 0);
  mlirTrackingTransformResultsDestroy(results);
  report("outer loop", outer);
  report("matmul", matmul);
  report("inside", inside);
  report("outside", outside);
  report("func", funcHandle);

  // Results are optional.
  MlirModule payload2 =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kMatmul));
  MlirTrackingHandle matmul2 = mlirTrackingHandleCreate(
      registry, find(payload2, "linalg.matmul").ops[0]);
  CHECK_OR_DIE(
      mlirLogicalResultIsSuccess(mlirTrackingTransformApplyNamedSequence(
          registry, findFunc(payload2, "matmul"), firstOp(script),
          (MlirOperation){NULL}, 1, argSizes, &matmul2, false, NULL)));
  report("matmul without results", matmul2);

  mlirTrackingHandleDestroy(matmul2);
  mlirModuleDestroy(payload2);
  MlirTrackingHandle handles[] = {outer, matmul, inside, outside, funcHandle};
  for (int i = 0; i < 5; ++i)
    mlirTrackingHandleDestroy(handles[i]);
  mlirModuleDestroy(script);
  mlirModuleDestroy(payload);
  mlirTrackingRegistryDestroy(registry);
  mlirContextDestroy(context);
  // clang-format off
  // CHECK-LABEL: TEST: transform interpreter
  // CHECK-NEXT: results: 4
  // CHECK-NEXT: result 0: live linalg.matmul
  // CHECK-NEXT: result 1: live scf.for
  // CHECK-NEXT: result 2: live scf.for
  // CHECK-NEXT: result 3: param 4 : i64
  // CHECK-NEXT: outer loop: live: %{{.*}} = scf.for
  // CHECK: matmul: erased
  // CHECK-NEXT: describe: operation handle to 'linalg.matmul'
  // CHECK-SAME: is erased
  // CHECK: transform-interpreter on func.func @matmul: linalg.matmul {{.*}}: erased; erased or replaced by 'transform.structured.tile_using_for', which consumed its handle
  // CHECK: inside: live: func.return
  // CHECK: outside: live: func.return
  // CHECK: func: live: func.func @matmul
  // CHECK: matmul without results: erased
  // clang-format on
}

static void testTransformInterpreterFailures(void) {
  printf("TEST: transform interpreter failures\n");
  MlirContext context = createContext();
  MlirContext other = createContext();
  mlirContextAttachDiagnosticHandler(context, printDiagnostic, NULL, NULL);
  MlirTrackingRegistry registry = mlirTrackingRegistryCreate(context);
  MlirTrackingRegistry otherRegistry = mlirTrackingRegistryCreate(other);
  MlirModule payload =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kMatmul));
  MlirModule tile =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kTile));
  MlirModule failing =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kFailing));
  MlirModule foreign =
      mlirModuleCreateParse(other, mlirStringRefCreateFromCString(kTile));
  MlirOperation func = findFunc(payload, "matmul");
  MlirTrackingHandle funcHandle = mlirTrackingHandleCreate(registry, func);
  MlirTrackingHandle matmul =
      mlirTrackingHandleCreate(registry, find(payload, "linalg.matmul").ops[0]);
  MlirTrackingHandle outside =
      mlirTrackingHandleCreate(registry, find(payload, "func.return").ops[0]);
  MlirTrackingHandle outsideFunc =
      mlirTrackingHandleCreate(registry, findFunc(payload, "outside"));

  // Refused before anything runs: nothing changes, results stay null.
  MlirTrackingTransformResults results = {(void *)&results};
  intptr_t one[] = {1};
  intptr_t two[] = {2};
  MlirTrackingHandle nullHandle = {NULL};
  MlirTrackingHandle twoHandles[] = {matmul, nullHandle};
  MlirOperation entry = firstOp(tile);
  // The entry takes the payload root and one more argument.
  CHECK_OR_DIE(mlirLogicalResultIsFailure(
      mlirTrackingTransformApplyNamedSequence(registry, func, entry,
                                              (MlirOperation){NULL}, 0, NULL,
                                              NULL, false, &results)));
  CHECK_OR_DIE(mlirTrackingTransformResultsIsNull(results));
  // A huge count is refused before anything is allocated for it.
  CHECK_OR_DIE(
      mlirLogicalResultIsFailure(mlirTrackingTransformApplyNamedSequence(
          registry, func, entry, (MlirOperation){NULL}, (intptr_t)1 << 40, one,
          &matmul, false, NULL)));
  CHECK_OR_DIE(
      mlirLogicalResultIsFailure(mlirTrackingTransformApplyNamedSequence(
          (MlirTrackingRegistry){NULL}, func, entry, (MlirOperation){NULL}, 1,
          one, &matmul, false, NULL)));
  CHECK_OR_DIE(mlirLogicalResultIsFailure(
      mlirTrackingTransformApplyNamedSequence(otherRegistry, func, entry,
                                              (MlirOperation){NULL}, 1, one,
                                              &matmul, false, NULL)));
  CHECK_OR_DIE(mlirLogicalResultIsFailure(
      mlirTrackingTransformApplyNamedSequence(registry, func, firstOp(foreign),
                                              (MlirOperation){NULL}, 1, one,
                                              &matmul, false, NULL)));
  CHECK_OR_DIE(
      mlirLogicalResultIsFailure(mlirTrackingTransformApplyNamedSequence(
          registry, func, entry, func, 1, one, &matmul, false, NULL)));
  CHECK_OR_DIE(mlirLogicalResultIsFailure(
      mlirTrackingTransformApplyNamedSequence(registry, func, entry,
                                              (MlirOperation){NULL}, 1, two,
                                              twoHandles, false, NULL)));
  // The op bound must be in the payload root.
  CHECK_OR_DIE(mlirLogicalResultIsFailure(
      mlirTrackingTransformApplyNamedSequence(registry, func, entry,
                                              (MlirOperation){NULL}, 1, one,
                                              &outside, false, NULL)));
  // Nor in another context.
  MlirTrackingHandle foreignOp =
      mlirTrackingHandleCreate(otherRegistry, firstOp(foreign));
  CHECK_OR_DIE(mlirLogicalResultIsFailure(
      mlirTrackingTransformApplyNamedSequence(registry, func, entry,
                                              (MlirOperation){NULL}, 1, one,
                                              &foreignOp, false, NULL)));
  mlirTrackingHandleDestroy(foreignOp);
  CHECK_OR_DIE(mlirLogicalResultIsFailure(
      mlirTrackingTransformApplyNamedSequence(registry, (MlirOperation){NULL},
                                              entry, (MlirOperation){NULL}, 1,
                                              one, &matmul, false, NULL)));
  report("matmul after refused runs", matmul);

  // A script that fails: the interpreter's diagnostics, then every handle
  // under the payload root is invalidated; the root and the rest stay live.
  results.ptr = (void *)&results;
  CHECK_OR_DIE(mlirLogicalResultIsFailure(
      mlirTrackingTransformApplyNamedSequence(registry, func, firstOp(failing),
                                              mlirModuleGetOperation(failing),
                                              0, NULL, NULL, false, &results)));
  CHECK_OR_DIE(mlirTrackingTransformResultsIsNull(results));
  CHECK_OR_DIE(mlirTrackingTransformResultsGetNumResults(results) == 0);
  mlirTrackingTransformResultsDestroy(results);
  report("matmul after failing script", matmul);
  report("func after failing script", funcHandle);
  report("outside after failing script", outside);
  report("outside func after failing script", outsideFunc);

  MlirTrackingHandle handles[] = {funcHandle, matmul, outside, outsideFunc};
  for (int i = 0; i < 4; ++i)
    mlirTrackingHandleDestroy(handles[i]);
  mlirModuleDestroy(foreign);
  mlirModuleDestroy(failing);
  mlirModuleDestroy(tile);
  mlirModuleDestroy(payload);
  mlirTrackingRegistryDestroy(otherRegistry);
  mlirTrackingRegistryDestroy(registry);
  mlirContextDestroy(other);
  mlirContextDestroy(context);
  // clang-format off
  // CHECK-LABEL: TEST: transform interpreter failures
  // CHECK-NEXT: diagnostic: operation expects 1 extra value bindings, but 0 were provided to the interpreter
  // CHECK-NEXT: diagnostic: operation expects 1 extra value bindings, but 1099511627776 were provided to the interpreter
  // CHECK-NEXT: diagnostic: mlirTrackingTransformApplyNamedSequence: null registry
  // CHECK-NEXT: diagnostic: the handle registry belongs to another context
  // CHECK-NEXT: diagnostic: the transform script belongs to another context
  // CHECK-NEXT: diagnostic: mlirTrackingTransformApplyNamedSequence: the transform module must be a 'builtin.module', not 'func.func'
  // CHECK-NEXT: diagnostic: mlirTrackingTransformApplyNamedSequence: argument #1: handle 1 is null
  // CHECK-NEXT: diagnostic: argument #1: 'func.return' is not the payload root nor nested in it
  // CHECK-NEXT: diagnostic: argument #1: 'transform.named_sequence' belongs to another context
  // CHECK-NEXT: matmul after refused runs: live: %{{.*}} = linalg.matmul
  // CHECK: 0 events
  // CHECK-NEXT: diagnostic: only ops implementing TilingInterface are supported
  // CHECK-NEXT: matmul after failing script: invalidated
  // CHECK-NEXT: describe: operation handle to 'linalg.matmul'
  // CHECK-SAME: is invalidated
  // CHECK-SAME: the transform script failed
  // CHECK: func after failing script: live: func.func @matmul
  // CHECK: outside after failing script: live: func.return
  // CHECK: outside func after failing script: live: func.func @outside
  // clang-format on
}

// @f's %k moves to @g, where canonicalize erases it as dead code.
static const char *const kRewriterInput = "func.func @f(%x: i32) -> i32 {\n"
                                          "  %k = arith.constant 5 : i32\n"
                                          "  %m = arith.muli %x, %x : i32\n"
                                          "  %n = arith.addi %x, %x : i32\n"
                                          "  return %n : i32\n"
                                          "}\n"
                                          "func.func @g() {\n"
                                          "  return\n"
                                          "}\n";

static const char *const kTwoFunctions =
    "func.func private @f(%x: i32) -> i32 {\n"
    "  return %x : i32\n"
    "}\n"
    "func.func @other(%x: i32) -> i32 {\n"
    "  %a = arith.addi %x, %x : i32\n"
    "  %b = arith.addi %x, %x : i32\n"
    "  %c = arith.muli %a, %b : i32\n"
    "  return %c : i32\n"
    "}\n";

/// A script that climbs from its payload root to the module and runs `what`
/// there.
static MlirModule climbingScript(MlirContext context, const char *what) {
  char text[1024];
  snprintf(text, sizeof(text),
           "module attributes {transform.with_named_sequence} {\n"
           "  transform.named_sequence @__transform_main(%%root: "
           "!transform.any_op {transform.readonly}) {\n"
           "    %%m = transform.get_parent_op %%root {op_name = "
           "\"builtin.module\"} : (!transform.any_op) -> !transform.any_op\n"
           "    %s\n"
           "    transform.yield\n"
           "  }\n"
           "}\n",
           what);
  return mlirModuleCreateParse(context, mlirStringRefCreateFromCString(text));
}

typedef struct {
  MlirTrackingRegistry registry;
  MlirOperation payloadRoot;
  MlirOperation script;
} ScriptInPass;

static void runScriptInPass(MlirOperation anchor, MlirExternalPass pass,
                            void *userData) {
  (void)anchor;
  ScriptInPass *run = (ScriptInPass *)userData;
  if (mlirLogicalResultIsFailure(mlirTrackingTransformApplyNamedSequence(
          run->registry, run->payloadRoot,
          firstOp(mlirModuleFromOperation(run->script)), run->script, 0, NULL,
          NULL, false, NULL)))
    mlirExternalPassSignalFailure(pass);
}
static void noop(void *userData) { (void)userData; }
static void *same(void *userData) { return userData; }

static void testTransformInterpreterHoldsTheTree(void) {
  printf("TEST: transform interpreter holds the tree\n");
  MlirContext context = createContext();
  mlirContextAttachDiagnosticHandler(context, printDiagnostic, NULL, NULL);
  MlirTrackingRegistry registry = mlirTrackingRegistryCreate(context);
  MlirModule payload = mlirModuleCreateParse(
      context, mlirStringRefCreateFromCString(kTwoFunctions));
  MlirOperation f = findFunc(payload, "f");
  MlirOperation other = findFunc(payload, "other");
  MlirTrackingHandle fHandle = mlirTrackingHandleCreate(registry, f);
  MlirTrackingHandle otherHandle = mlirTrackingHandleCreate(registry, other);
  MlirTrackingHandle b =
      mlirTrackingHandleCreate(registry, find(payload, "arith.addi").ops[1]);

  // The script changes @other, outside its payload root @f: the handles
  // there follow (%b, a duplicate that cse removes, was left live on freed
  // memory).
  MlirModule cse =
      climbingScript(context, "transform.apply_cse to %m : !transform.any_op");
  CHECK_OR_DIE(mlirLogicalResultIsSuccess(
      mlirTrackingTransformApplyNamedSequence(registry, f, firstOp(cse),
                                              mlirModuleGetOperation(cse), 0,
                                              NULL, NULL, false, NULL)));
  report("b after cse", b);
  report("other after cse", otherHandle);

  // Any op may be the payload root: here an op in @other.
  MlirModule annotate = climbingScript(
      context, "transform.annotate %root \"seen\" : !transform.any_op");
  MlirOperation add = find(payload, "arith.addi").ops[0];
  CHECK_OR_DIE(mlirLogicalResultIsSuccess(
      mlirTrackingTransformApplyNamedSequence(registry, add, firstOp(annotate),
                                              mlirModuleGetOperation(annotate),
                                              0, NULL, NULL, false, NULL)));
  printf("annotated: %d\n",
         !mlirAttributeIsNull(mlirOperationGetAttributeByName(
             add, mlirStringRefCreateFromCString("seen"))));

  // In a pass, the caller holds the pass's anchor only: a payload root
  // outside it is refused.
  MlirModule dce = climbingScript(
      context, "%n = transform.apply_registered_pass \"symbol-dce\" to %m : "
               "(!transform.any_op) -> !transform.any_op");
  ScriptInPass run = {registry, other, mlirModuleGetOperation(annotate)};
  MlirExternalPassCallbacks callbacks = {noop, noop, NULL, same,
                                         runScriptInPass};
  MlirTypeIDAllocator ids = mlirTypeIDAllocatorCreate();
  MlirPassManager pm = mlirPassManagerCreate(context);
  CHECK_OR_DIE(mlirLogicalResultIsSuccess(
      mlirTrackingPassManagerEnableTracking(pm, registry)));
  MlirOpPassManager functions = mlirPassManagerGetNestedUnder(
      pm, mlirStringRefCreateFromCString("func.func"));
  mlirOpPassManagerAddOwnedPass(
      functions,
      mlirCreateExternalPass(mlirTypeIDAllocatorAllocateTypeID(ids),
                             mlirStringRefCreateFromCString("ScriptInPass"),
                             mlirStringRefCreateFromCString("script-in-pass"),
                             mlirStringRefCreateFromCString(""),
                             mlirStringRefCreateFromCString("func.func"), 0,
                             NULL, callbacks, &run));
  CHECK_OR_DIE(mlirLogicalResultIsFailure(
      mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(payload))));
  mlirPassManagerDestroy(pm);
  mlirTypeIDAllocatorDestroy(ids);

  // A script that erases its payload root fails, and the root's handle
  // ends erased (it was left live on freed memory).
  CHECK_OR_DIE(mlirLogicalResultIsFailure(
      mlirTrackingTransformApplyNamedSequence(registry, f, firstOp(dce),
                                              mlirModuleGetOperation(dce), 0,
                                              NULL, NULL, false, NULL)));
  report("f after symbol-dce", fHandle);

  mlirTrackingHandleDestroy(fHandle);
  mlirTrackingHandleDestroy(otherHandle);
  mlirTrackingHandleDestroy(b);
  mlirModuleDestroy(dce);
  mlirModuleDestroy(annotate);
  mlirModuleDestroy(cse);
  mlirModuleDestroy(payload);
  mlirTrackingRegistryDestroy(registry);
  mlirContextDestroy(context);
  // clang-format off
  // CHECK-LABEL: TEST: transform interpreter holds the tree
  // CHECK-NEXT: b after cse: erased
  // CHECK: other after cse: live: func.func @other
  // CHECK: annotated: 1
  // CHECK: diagnostic: mlirTrackingTransformApplyNamedSequence: the payload root is outside the op that the pass running on this thread holds
  // CHECK: diagnostic: the transform script erased its payload root
  // CHECK-NEXT: f after symbol-dce: erased
  // CHECK-NEXT: describe: {{.*}}erased by the transform script it was the payload root of
  // clang-format on
}

static void testRewriter(void) {
  printf("TEST: rewriter\n");
  // (MLIR 22 declares mlirRewriterBaseIsNull but does not define it.)
  CHECK_OR_DIE(!mlirTrackingRewriterCreate((MlirContext){NULL}).ptr);
  CHECK_OR_DIE(!mlirTrackingRewriterCreateFromOp((MlirOperation){NULL}).ptr);
  mlirTrackingRewriterDestroy((MlirRewriterBase){NULL});

  MlirContext context = createContext();
  MlirTrackingRegistry registry = mlirTrackingRegistryCreate(context);
  MlirModule module = mlirModuleCreateParse(
      context, mlirStringRefCreateFromCString(kRewriterInput));
  MlirOperation constant = find(module, "arith.constant").ops[0];
  MlirOperation mul = find(module, "arith.muli").ops[0];
  MlirOperation add = find(module, "arith.addi").ops[0];
  MlirOperation gReturn = find(module, "func.return").ops[1];
  MlirTrackingHandle k = mlirTrackingHandleCreate(registry, constant);
  MlirTrackingHandle m = mlirTrackingHandleCreate(registry, mul);
  MlirTrackingHandle n = mlirTrackingHandleCreate(registry, add);

  // Replaced by a clone that the rewriter names: the handle follows it.
  MlirRewriterBase rewriter = mlirTrackingRewriterCreateFromOp(add);
  CHECK_OR_DIE(rewriter.ptr);
  MlirOperation clone = mlirRewriterBaseClone(rewriter, add);
  mlirRewriterBaseReplaceOpWithOperation(rewriter, add, clone);
  report("n", n);
  CHECK_OR_DIE(mlirOperationEqual(mlirTrackingHandleGetOperation(n), clone));
  mlirRewriterBaseEraseOp(rewriter, mul);
  report("m", m);

  // A move into another function is seen: the pass that erases %k in @g
  // (where no handle lay before) updates its handle.
  mlirRewriterBaseMoveOpBefore(rewriter, constant, gReturn);
  MlirPassManager pm = mlirPassManagerCreate(context);
  CHECK_OR_DIE(mlirLogicalResultIsSuccess(
      mlirTrackingPassManagerEnableTracking(pm, registry)));
  MlirOpPassManager functions = mlirPassManagerGetNestedUnder(
      pm, mlirStringRefCreateFromCString("func.func"));
  mlirOpPassManagerAddOwnedPass(functions,
                                mlirTrackingCreateCanonicalizerPass());
  CHECK_OR_DIE(mlirLogicalResultIsSuccess(
      mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module))));
  mlirPassManagerDestroy(pm);
  report("k", k);

  // The rewriter looks the registry up at each change: it outlives it.
  mlirTrackingHandleDestroy(k);
  mlirTrackingHandleDestroy(m);
  mlirTrackingHandleDestroy(n);
  mlirTrackingRegistryDestroy(registry);
  mlirRewriterBaseSetInsertionPointBefore(rewriter, clone);
  mlirRewriterBaseReplaceOpWithOperation(
      rewriter, clone, mlirRewriterBaseClone(rewriter, clone));
  mlirTrackingRewriterDestroy(rewriter);
  mlirOperationPrint(mlirModuleGetOperation(module), printToStdout, NULL);
  printf("\n");

  // Made from a context, with the insertion point set afterwards.
  rewriter = mlirTrackingRewriterCreate(context);
  CHECK_OR_DIE(mlirContextEqual(mlirRewriterBaseGetContext(rewriter), context));

  // Replaced by an op of another context: that context's registry would
  // never tell this one of its erasure, so the handle ends here (it
  // followed the op there, and read it freed once that IR was erased).
  registry = mlirTrackingRegistryCreate(context);
  MlirContext other = createContext();
  MlirModule foreign = mlirModuleCreateParse(
      other, mlirStringRefCreateFromCString(kRewriterInput));
  MlirOperation lastReturn = find(module, "func.return").ops[1];
  MlirTrackingHandle r = mlirTrackingHandleCreate(registry, lastReturn);
  mlirRewriterBaseReplaceOpWithOperation(rewriter, lastReturn,
                                         find(foreign, "func.return").ops[1]);
  report("r", r);
  mlirTrackingHandleDestroy(r);
  mlirTrackingRegistryDestroy(registry);
  mlirModuleDestroy(foreign);
  mlirContextDestroy(other);
  mlirTrackingRewriterDestroy(rewriter);
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
  // CHECK-LABEL: TEST: rewriter
  // CHECK-NEXT: n: live: %{{.*}} = arith.addi %arg0, %arg0 : i32
  // CHECK-NEXT: describe: operation handle to 'arith.addi'
  // CHECK-NEXT: 1 events
  // CHECK-NEXT: arith.addi {{.*}} (mlirTrackingRewriter)
  // CHECK-NEXT: m: erased
  // CHECK-NEXT: describe: operation handle to 'arith.muli'
  // CHECK-NEXT: 1 events
  // CHECK-NEXT: arith.muli {{.*}}: erased {{.*}}mlirTrackingRewriter
  // CHECK-NEXT: k: erased
  // CHECK-NEXT: describe: operation handle to 'arith.constant'
  // CHECK-NEXT: 1 events
  // CHECK-NEXT: canonicalize on func.func @g: arith.constant
  // CHECK: func.func @f(%arg0: i32) -> i32 {
  // CHECK-NEXT: %[[SUM:.*]] = arith.addi %arg0, %arg0 : i32
  // CHECK-NEXT: return %[[SUM]] : i32
  // CHECK: func.func @g() {
  // CHECK-NEXT: return
  // CHECK: r: erased
  // CHECK-NEXT: describe: {{.*}}replaced by an op of another context
}

int main(void) {
  testStateNames();
  testRegistry();
  testDestroyedIR();
  testPrecisePasses();
  testNonPrecisePassAndRegistration();
  testFailurePaths();
  testTrackingConfig();
  testPatterns();
  testTransformInterpreter();
  testTransformInterpreterFailures();
  testTransformInterpreterHoldsTheTree();
  testRewriter();
  return 0;
}
