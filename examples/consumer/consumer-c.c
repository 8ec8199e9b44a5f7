/*===- consumer-c.c - mlir-tracking's C API from an installed package -----===*\
|*                                                                            *|
|* Part of the mlir-tracking project.                                         *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* The C side of examples/consumer: holds a handle across the precise         *|
|* canonicalize and a transform script through mlir-c/Tracking.h and prints   *|
|* what became of it. CI checks the output with FileCheck against the CHECK   *|
|* lines below.                                                               *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"
#include "mlir-c/Tracking.h"

#include <stdio.h>

static void print(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

int main(void) {
  MlirContext context = mlirContextCreate();
  MlirDialectRegistry dialects = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(dialects);
  mlirContextAppendDialectRegistry(context, dialects);
  mlirDialectRegistryDestroy(dialects);
  mlirContextLoadAllAvailableDialects(context);

  MlirModule module = mlirModuleCreateParse(
      context,
      mlirStringRefCreateFromCString("func.func @f() -> i32 {\n"
                                     "  %c1 = arith.constant 1 : i32\n"
                                     "  %c2 = arith.constant 2 : i32\n"
                                     "  %three = arith.addi %c1, %c2 : i32\n"
                                     "  return %three : i32\n"
                                     "}\n"));
  if (mlirModuleIsNull(module))
    return 1;
  /* module > func.func > entry block > the third op: arith.addi. */
  MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  MlirOperation add = mlirOperationGetNextInBlock(
      mlirOperationGetNextInBlock(mlirBlockGetFirstOperation(entry)));

  MlirTrackingRegistry registry = mlirTrackingRegistryCreate(context);
  MlirTrackingHandle handle = mlirTrackingHandleCreate(registry, add);

  MlirPassManager pm = mlirPassManagerCreate(context);
  mlirTrackingPassManagerEnableTracking(pm, registry);
  mlirPassManagerAddOwnedPass(pm, mlirTrackingCreateCanonicalizerPass());
  if (mlirLogicalResultIsFailure(
          mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module))))
    return 1;

  MlirStringRef state =
      mlirTrackingHandleStateGetName(mlirTrackingHandleGetState(handle));
  printf("handle: %.*s: ", (int)state.length, state.data);
  mlirOperationPrint(mlirTrackingHandleGetOperation(handle), print, NULL);
  printf("\n");
  mlirTrackingHandlePrintHistory(handle, print, NULL);
  printf("\n");

  /* A transform script run on the function with the handle bound to its
   * second argument: it annotates the op and yields the function's return. */
  MlirModule script = mlirModuleCreateParse(
      context, mlirStringRefCreateFromCString(
                   "module attributes {transform.with_named_sequence} {\n"
                   "  transform.named_sequence @__transform_main(\n"
                   "      %root: !transform.any_op {transform.readonly},\n"
                   "      %op: !transform.any_op {transform.readonly})\n"
                   "      -> !transform.any_op {\n"
                   "    transform.annotate %op \"seen\" : !transform.any_op\n"
                   "    %r = transform.structured.match ops{[\"func.return\"]} "
                   "in %root\n"
                   "        : (!transform.any_op) -> !transform.any_op\n"
                   "    transform.yield %r : !transform.any_op\n"
                   "  }\n"
                   "}\n"));
  if (mlirModuleIsNull(script))
    return 1;
  intptr_t argSizes[] = {1};
  MlirTrackingTransformResults results;
  if (mlirLogicalResultIsFailure(mlirTrackingTransformApplyNamedSequence(
          registry, func, mlirBlockGetFirstOperation(mlirModuleGetBody(script)),
          mlirModuleGetOperation(script), 1, argSizes, &handle,
          /*expensiveChecks=*/true, &results)))
    return 1;
  printf("after the script: ");
  mlirOperationPrint(mlirTrackingHandleGetOperation(handle), print, NULL);
  MlirTrackingHandle ret = mlirTrackingTransformResultsGetHandle(results, 0, 0);
  printf("\nyielded: ");
  mlirOperationPrint(mlirTrackingHandleGetOperation(ret), print, NULL);
  printf("\n");
  mlirTrackingHandleDestroy(ret);
  mlirTrackingTransformResultsDestroy(results);
  mlirModuleDestroy(script);

  mlirTrackingHandleDestroy(handle);
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  mlirTrackingRegistryDestroy(registry);
  mlirContextDestroy(context);
  return 0;
}

// CHECK: handle: live: %{{.*}} = arith.constant 3 : i32
// CHECK-NEXT: canonicalize on builtin.module: arith.addi {{.*}} (folded)
// CHECK-NEXT: after the script: %{{.*}} = arith.constant {seen} 3 : i32
// CHECK-NEXT: yielded: func.return %{{.*}} : i32
