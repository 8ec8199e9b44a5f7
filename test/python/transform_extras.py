# RUN: %PYTHON %s | FileCheck %s
# dialects.transform.extras (upstream's helpers, in our words): handles as
# value casters with chaining methods, constant params, normal forms, the
# script and region decorators; a script built with them runs through the
# tracked interpreter.

import gc

from mlir_tracking import ir
from mlir_tracking.dialects import scf, transform
from mlir_tracking.dialects.transform import interpreter, loop, structured
from mlir_tracking.dialects.transform.extras import (
    NormalForm, OpHandle, ParamHandle, ValueHandle, apply_patterns,
    constant_param, insert_transform_script, named_sequence, sequence)
from tracking_testing import DOUBLING_LOOP


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    return f


# CHECK-LABEL: TEST: test_handles_and_script
@run
def test_handles_and_script():
    with ir.Context(), ir.Location.unknown():
        script = ir.Module.create()
        script.operation.attributes["transform.with_named_sequence"] = ir.UnitAttr.get()
        seen = {}

        def build(root):
            seen["root"] = type(root).__name__
            loops = root.match_ops(scf.ForOp)
            seen["loops"] = (type(loops).__name__, str(loops.type), loops.parent is root,
                             root.children == [loops])
            some = root.match_ops([scf.ForOp, "arith.addf"])
            seen["some"] = str(some.type)
            linalg_ops = root.match_ops(structured.MatchInterfaceEnum.LinalgOp)
            seen["iface"] = str(linalg_ops.owner.attributes["interface"])
            loops.print("the loop")
            loop.LoopUnrollOp(loops, factor=2)

        insert_transform_script(script.body, build)
        # CHECK: root OpHandle
        # CHECK-NEXT: loops ('OpHandle', '!transform.op<"scf.for">', True, True)
        # CHECK-NEXT: some !transform.any_op
        # (MatchInterfaceEnum is an i32 enum: LinalgOp is 0.)
        # CHECK-NEXT: iface 0 : i32
        for key, value in seen.items():
            print(key, value)
        # CHECK: transform.named_sequence @__transform_main(%arg0: !transform.any_op) {
        # CHECK: transform.structured.match interface{LinalgOp} in %arg0
        # CHECK: transform.print %{{.*}} {name = "the loop"}
        # CHECK: transform.loop.unroll %{{.*}} {factor = 2 : i64}
        print(script)
        payload = ir.Module.parse(DOUBLING_LOOP)
        func = payload.body.operations[0]
        interpreter.apply_named_sequence(func, script.body.operations[0], script)
        # CHECK: unrolled: 2 addf
        print("unrolled:", str(payload).count("arith.addf"), "addf")

        # Value and param handles (a script that is only printed).
        other = ir.Module.create()
        other.operation.attributes["transform.with_named_sequence"] = ir.UnitAttr.get()

        def values(root):
            value = root.match_ops("arith.addf").get_result([0])
            seen["value"] = (type(value).__name__, type(value.get_defining_op()).__name__)
            seen["param"] = (type(constant_param(4)).__name__, str(constant_param(4).type),
                             str(constant_param(ir.StringAttr.get("x")).type))

        insert_transform_script(other.body, values)
        # CHECK: value ('ValueHandle', 'OpHandle')
        # CHECK-NEXT: param ('ParamHandle', '!transform.param<i64>', '!transform.any_param')
        print("value", seen["value"])
        print("param", seen["param"])
        # CHECK: transform.get_result %{{.*}}[0] : (!transform.op<"arith.addf">) -> !transform.any_value
        # CHECK: transform.param.constant "x" -> !transform.any_param
        print(other)

        # A script that raises leaves no half-built sequence.
        def broken(root):
            root.match_ops(scf.ForOp)
            raise KeyError("in the script")

        try:
            insert_transform_script(script.body, broken)
        except KeyError:
            # CHECK: sequences: 1
            print("sequences:", len(script.body.operations))


# CHECK-LABEL: TEST: test_normal_forms
@run
def test_normal_forms():
    class Unrolled(NormalForm):
        propagate_up = False

        @classmethod
        def _impl(cls, handle):
            loop.LoopUnrollOp(handle, factor=4)
            return handle

    class Everywhere(NormalForm):
        pass

    with ir.Context(), ir.Location.unknown():
        script = ir.Module.create()

        def build(root):
            loops = root.match_ops(scf.ForOp)
            inner = loops.match_ops("arith.addf")
            loops.normalize(Unrolled)
            print("unrolled:", loops.normalForm.__name__, root.normalForm.__name__,
                  inner.normalForm.__name__)
            inner.normalForm = Everywhere
            print("everywhere:", root.normalForm.__name__, loops.normalForm.__name__)

        # CHECK: unrolled: Unrolled NormalForm Unrolled
        # CHECK-NEXT: everywhere: Everywhere Everywhere
        insert_transform_script(script.body, build)
        try:
            NormalForm()
        except TypeError as e:
            # CHECK-NEXT: TypeError: NormalForm is used as a class
            print("TypeError:", str(e)[:31])


# CHECK-LABEL: TEST: test_region_decorators
@run
def test_region_decorators():
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        module.operation.attributes["transform.with_named_sequence"] = ir.UnitAttr.get()
        with ir.InsertionPoint(module.body):
            @sequence([], transform.FailurePropagationMode.Propagate, [])
            def basic(target: transform.any_op_t()):
                adds = target.match_ops("arith.addi")

                @apply_patterns(adds)
                def patterns():
                    transform.ApplyCanonicalizationPatternsOp()

            @named_sequence("other", [transform.any_op_t()], [])
            def other(target):
                target.print("other")
        # CHECK: transform.sequence  failures(propagate) {
        # CHECK: ^{{.*}}(%[[ROOT:.*]]: !transform.any_op):
        # CHECK:   %[[ADDS:.*]] = transform.structured.match ops{["arith.addi"]} in %[[ROOT]] : (!transform.any_op) -> !transform.op<"arith.addi">
        # CHECK:   apply_patterns to %[[ADDS]] {
        # CHECK:     transform.apply_patterns.canonicalization
        # CHECK: transform.named_sequence @other(%{{.*}}: !transform.any_op) {
        print(module)
        # CHECK: verifies: True
        print("verifies:", module.operation.verify())
