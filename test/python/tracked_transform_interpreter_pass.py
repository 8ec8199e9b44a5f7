# RUN: %PYTHON %s | FileCheck %s
# The precise `tracked-transform-interpreter` pass from Python: a pipeline
# parses it, and so does a script's transform.apply_registered_pass. The
# handles under its anchor follow the script (upstream's
# `transform-interpreter` would invalidate them all), as
# `transform-preload-library` before it leaves them alone.

import gc
import tempfile

from mlir_tracking import ir
from mlir_tracking.dialects.transform import interpreter
from mlir_tracking.passmanager import PassManager


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    return f


SCRIPT = """
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %adds = transform.structured.match ops{["arith.addi"]} in %f : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.annotate %adds "kept" : !transform.any_op
    transform.yield
  }
"""

PAYLOAD = """
  func.func @f(%a: i32) -> i32 {
    %c0 = arith.constant 0 : i32
    %x = arith.muli %a, %a : i32
    %y = arith.addi %x, %x : i32
    %z = arith.addi %y, %c0 : i32
    return %z : i32
  }
"""


def ops(func):
    return list(func.regions[0].blocks[0].operations)


# CHECK-LABEL: TEST: test_pipeline_keeps_handles
@run
def test_pipeline_keeps_handles():
    with ir.Context():
        module = ir.Module.parse(
            "module attributes {transform.with_named_sequence} {"
            + PAYLOAD
            + SCRIPT
            + "}"
        )
        func = module.body.operations[0]
        c0, mul, add, folded, ret = ops(func)
        PassManager.parse("builtin.module(tracked-transform-interpreter)").run(
            module.operation
        )
        # The add the script kept, annotated through a handle it followed.
        # CHECK: add: live arith.addi True
        print("add:", add.handle_state, add.name, "kept" in add.attributes)
        # CHECK: mul: live
        print("mul:", mul.handle_state)
        # `addi %y, 0` folded into %y: its handle, which the script held,
        # follows it to the add that defines %y.
        # CHECK: folded: live True
        print("folded:", folded.handle_state, folded.same_op(add))
        # CHECK: func: live
        print("func:", func.handle_state)


# CHECK-LABEL: TEST: test_nested_after_preload
@run
def test_nested_after_preload():
    with tempfile.NamedTemporaryFile("w", suffix=".mlir") as library:
        library.write(
            "module attributes {transform.with_named_sequence} {" + SCRIPT + "}"
        )
        library.flush()
        with ir.Context():
            module = ir.Module.parse("module {" + PAYLOAD + "}")
            func = module.body.operations[0]
            c0, mul, add, folded, ret = ops(func)
            PassManager.parse(
                "builtin.module(transform-preload-library{transform-library-paths="
                + library.name
                + "},func.func(tracked-transform-interpreter))"
            ).run(module.operation)
            # CHECK: add: live True
            print("add:", add.handle_state, "kept" in add.attributes)
            # CHECK: mul: live
            print("mul:", mul.handle_state)
            # CHECK: folded: live True
            print("folded:", folded.handle_state, folded.same_op(add))


# CHECK-LABEL: TEST: test_apply_registered_pass
@run
def test_apply_registered_pass():
    with ir.Context():
        payload = ir.Module.parse(
            "module attributes {transform.with_named_sequence} {"
            + PAYLOAD
            + SCRIPT
            + "}"
        )
        script = ir.Module.parse(
            """
            module attributes {transform.with_named_sequence} {
              transform.named_sequence @main(%root: !transform.any_op {transform.consumed}) {
                %m = transform.apply_registered_pass "tracked-transform-interpreter" to %root : (!transform.any_op) -> !transform.any_op
                transform.yield
              }
            }
            """
        )
        func = payload.body.operations[0]
        add = ops(func)[2]
        interpreter.apply_named_sequence(
            payload.operation, script.body.operations[0], script
        )
        # The pass ran (the add is annotated); the script consumed its
        # payload, so the handles under it end invalidated, not stale.
        # CHECK: annotated: True
        print("annotated:", "kept" in str(payload))
        # CHECK: add: invalidated
        print("add:", add.handle_state)
