# RUN: %PYTHON %s | FileCheck %s
# The smt and tune extensions of the transform dialect (upstream's
# dialects.transform.smt and .tune, in our words): constrain_params with its
# body block of SMT-typed arguments, and knobs built from Python values.

from mlir_tracking import ir
from mlir_tracking.dialects import smt, transform
from mlir_tracking.dialects.transform import debug, tune
from mlir_tracking.dialects.transform import smt as transform_smt


def run(f):
    print("\nTEST:", f.__name__)
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            sequence = transform.SequenceOp(
                transform.FailurePropagationMode.Propagate, [],
                transform.AnyOpType.get())
            with ir.InsertionPoint(sequence.body):
                f()
                transform.YieldOp()
        print("verifies:", module.operation.verify())
        print(module)
    return f


def i32(value):
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(32), value)


# CHECK-LABEL: TEST: test_constrain_params
# CHECK-NEXT: ConstrainParamsOp: 1 params but 0 arg_types (one SMT type a param)
# CHECK-NEXT: verifies: True
# CHECK: %[[P:.*]] = transform.param.constant 7 : i32
# CHECK: transform.smt.constrain_params(%[[P]]) : (!transform.any_param) -> ()
# CHECK-NEXT: ^bb{{.*}}(%[[X:.*]]: !smt.int):
# CHECK: %[[C:.*]] = smt.int.constant 10
# CHECK: %[[LT:.*]] = smt.int.cmp lt %[[X]], %[[C]]
# CHECK: smt.assert %[[LT]]
# CHECK: %[[TWICE:.*]] = transform.smt.constrain_params(%[[P]]) : (!transform.any_param) -> !transform.any_param
# CHECK: smt.int.add
# CHECK: transform.debug.emit_param_as_remark %[[TWICE]]
@run
def test_constrain_params():
    param = transform.ParamConstantOp(transform.AnyParamType.get(), i32(7))
    bounded = transform_smt.ConstrainParamsOp([], [param], [smt.IntType.get()])
    (x,) = bounded.body.arguments
    with ir.InsertionPoint(bounded.body):
        ten = smt.IntConstantOp(i32(10))
        smt.AssertOp(smt.IntCmpOp(smt.IntPredicate.lt, x, ten))
        smt.YieldOp([])
    # The value builder takes the SMT types too.
    twice_op = transform_smt.smt_constrain_params(
        [transform.AnyParamType.get()], [param], [smt.IntType.get()])
    (y,) = twice_op.owner.regions[0].blocks[0].arguments
    with ir.InsertionPoint(twice_op.owner.regions[0].blocks[0]):
        smt.YieldOp([smt.IntAddOp([y, y])])
    debug.emit_param_as_remark(twice_op)
    try:
        transform_smt.ConstrainParamsOp([], [param], [])
    except ValueError as e:
        print(e)


# CHECK-LABEL: TEST: test_knobs
# CHECK-NEXT: KnobOp: <object object at {{.*}}> is no attribute, bool, int, float or str
# CHECK-NEXT: KnobOp: options must be an attribute or a sequence, got 3
# CHECK-NEXT: verifies: True
# CHECK: transform.tune.knob<"unroll"> options = [true, false] -> !transform.any_param
# CHECK: transform.tune.knob<"tile"> = 8 : i64 from options = [4, 8, 16] -> !transform.any_param
# CHECK: transform.tune.knob<"scale"> = 5.000000e-01 : f64 from options = [2.500000e-01, 5.000000e-01] -> !transform.any_param
# CHECK: transform.tune.knob<"schedule"> = "fast" from options = ["fast", unit] -> !transform.any_param
@run
def test_knobs():
    param = transform.AnyParamType.get()
    tune.KnobOp(param, "unroll", [True, False])
    tune.knob(param, "tile", [4, 8, 16], selected=8)
    tune.knob(param, ir.StringAttr.get("scale"), [0.25, 0.5], selected=0.5)
    tune.KnobOp(param, name="schedule", options=["fast", ir.UnitAttr.get()],
                selected="fast")
    for bad in ([object()], 3):
        try:
            tune.knob(param, "bad", bad)
        except TypeError as e:
            print(e)
