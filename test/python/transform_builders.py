# RUN: %PYTHON %s | FileCheck %s
# The transform scripts of transform_interpreter.py and of
# examples/transform_tiling.py built with the transform dialect builders
# (dialects.transform, dialects.transform.structured) instead of parsed, and
# run by the tracked interpreter with the same outcomes.

import gc

from mlir_tracking import ir
from mlir_tracking.dialects import transform
from mlir_tracking.dialects.transform import interpreter, structured
from tracking_testing import MATMUL, TILE, find


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    return f




def script_module():
    module = ir.Module.create()
    module.operation.attributes["transform.with_named_sequence"] = ir.UnitAttr.get()
    return module


def build_tile_script():
    """@__transform_main(%root {readonly}, %mm {consumed}): tiles %mm by
    [4, 8] and yields the tiled op and both loops."""
    module = script_module()
    any_op = transform.AnyOpType.get()
    with ir.InsertionPoint(module.body):
        entry = transform.NamedSequenceOp(
            "__transform_main",
            [any_op, any_op],
            [any_op] * 3,
            arg_attrs=[
                {"transform.readonly": ir.UnitAttr.get()},
                {"transform.consumed": ir.UnitAttr.get()},
            ],
        )
        with ir.InsertionPoint(entry.body):
            (matmul,) = entry.bodyExtraArgs
            tile = structured.TileUsingForOp(matmul, sizes=[4, 8])
            transform.YieldOp([tile.tiled_linalg_op, *tile.loops])
    return module, entry


# CHECK-LABEL: TEST: test_built_script
@run
def test_built_script():
    with ir.Context(), ir.Location.unknown():
        script, entry = build_tile_script()
        # CHECK: verifies: True
        print("verifies:", script.operation.verify())
        # CHECK: entry: NamedSequenceOp
        print("entry:", type(entry).__name__)
        # The same script as the parsed text, up to SSA names.
        parsed = ir.Module.parse(TILE)
        # CHECK: same as parsed: True
        print("same as parsed:", str(script) == str(parsed))
        # CHECK: tile_using_for %arg1 tile_sizes [4, 8]
        print(script)


# CHECK-LABEL: TEST: test_tile_matmul
@run
def test_tile_matmul():
    with ir.Context(), ir.Location.unknown():
        payload = ir.Module.parse(MATMUL)
        script, entry = build_tile_script()
        script_text = str(script)
        (func,) = find(payload.operation, "func.func")[1:]
        (matmul,) = find(payload.operation, "linalg.matmul")
        (outside,) = find(payload.operation, "func.return", "outside")
        (inside,) = find(payload.operation, "func.return", "inside")
        tiled, outer, inner = interpreter.apply_named_sequence(
            func, entry, script, args=[matmul]
        )
        # CHECK: matmul: erased
        print("matmul:", matmul.handle_state)
        # CHECK: consumed by: True
        print(
            "consumed by:",
            any("tile_using_for" in event for event in matmul.handle_history),
        )
        # CHECK: results: linalg.matmul scf.for scf.for
        print("results:", tiled[0].name, outer[0].name, inner[0].name)
        # CHECK: results live: live live live
        print("results live:", tiled[0].handle_state, outer[0].handle_state,
              inner[0].handle_state)
        # CHECK: nested: True
        print("nested:", inner[0].parent == outer[0])
        # The payload root and the op outside it survive.
        # CHECK: live: live live live
        print("live:", outside.handle_state, inside.handle_state, func.handle_state)
        # CHECK: tile sizes: tensor<4x16xf32>
        print("tile sizes:", tiled[0].operands[0].type)
        # CHECK: script unchanged: True
        print("script unchanged:", str(script) == script_text)
        try:
            matmul.name
        except ir.InvalidatedHandleError as error:
            # CHECK: error: operation handle to 'linalg.matmul' {{.*}} is erased
            print("error:", error)


# CHECK-LABEL: TEST: test_tile_and_vectorize
@run
def test_tile_and_vectorize():
    # examples/transform_tiling.py's script: tile, vectorize the tile,
    # canonicalize, match the reduction.
    with ir.Context(), ir.Location.unknown():
        payload = ir.Module.parse(MATMUL)
        module = script_module()
        any_op = transform.AnyOpType.get()
        with ir.InsertionPoint(module.body):
            entry = transform.NamedSequenceOp(
                "__transform_main",
                [any_op, transform.OperationType.get("linalg.matmul")],
                [any_op, any_op, any_op],
                arg_attrs=[
                    {"transform.readonly": ir.UnitAttr.get()},
                    {"transform.consumed": ir.UnitAttr.get()},
                ],
            )
            with ir.InsertionPoint(entry.body):
                func_handle = entry.bodyTarget
                (mm,) = entry.bodyExtraArgs
                tile = structured.TileUsingForOp(any_op, mm, sizes=[4, 8])
                structured.VectorizeOp(tile.tiled_linalg_op)
                patterns = transform.ApplyPatternsOp(func_handle)
                with ir.InsertionPoint(patterns.patterns):
                    transform.ApplyCanonicalizationPatternsOp()
                reduction = structured.MatchOp.match_op_names(
                    func_handle, "vector.multi_reduction"
                )
                transform.YieldOp([*tile.loops, reduction])
        # CHECK: verifies: True
        print("verifies:", module.operation.verify())

        (func,) = find(payload.operation, "func.func")[1:]
        (matmul,) = find(payload.operation, "linalg.matmul")
        (outside,) = find(payload.operation, "func.return", "outside")
        (outer,), (inner,), reductions = interpreter.apply_named_sequence(
            func, entry, module, args=[matmul]
        )
        # CHECK: matmul: erased
        print("matmul:", matmul.handle_state)
        # CHECK: loops: scf.for scf.for live
        print("loops:", outer.name, inner.name, inner.handle_state)
        # CHECK: vectorized: ['vector.multi_reduction']
        print("vectorized:", [op.name for op in reductions])
        # CHECK: outside: live
        print("outside:", outside.handle_state)
        # CHECK: no linalg left: True
        print("no linalg left:", not find(func, "linalg.matmul"))


# CHECK-LABEL: TEST: test_builder_errors
@run
def test_builder_errors():
    with ir.Context(), ir.Location.unknown():
        module = script_module()
        any_op = transform.AnyOpType.get()
        with ir.InsertionPoint(module.body):
            entry = transform.NamedSequenceOp("main", [any_op], [])
            with ir.InsertionPoint(entry.body):
                for make in (
                    lambda: structured.TileUsingForOp(
                        entry.bodyTarget, entry.bodyTarget, sizes=[4]),
                    lambda: structured.TileUsingForOp(
                        [any_op], entry.bodyTarget, sizes=[4, 8]),
                    lambda: structured.TileUsingForOp(any_op, sizes=[4]),
                ):
                    try:
                        make()
                    except (TypeError, ValueError) as error:
                        # CHECK: error: TileUsingForOp takes one target, got two
                        # CHECK: error: 1 loop types for 2 loops
                        # CHECK: error: TileUsingForOp needs a target
                        print("error:", error)
                # A zero size makes no loop.
                tile = structured.TileUsingForOp(entry.bodyTarget, sizes=[0, 8])
                # CHECK: loops for [0, 8]: 1
                print("loops for [0, 8]:", len(tile.loops))
                transform.YieldOp()
        try:
            transform.AnyOpType(transform.OperationType.get("scf.for"))
        except ValueError as error:
            # CHECK: error: Cannot cast type to AnyOpType
            print("error:", error)
        param = transform.ParamType.get(ir.IntegerType.get_signless(64))
        # CHECK: param: ParamType(!transform.param<i64>) i64
        print("param:", repr(param), param.type)
        # CHECK: op type: scf.for True False
        op_type = transform.OperationType.get("scf.for")
        print("op type:", op_type.operation_name,
              transform.OperationType.isinstance(op_type),
              transform.AnyOpType.isinstance(op_type))
