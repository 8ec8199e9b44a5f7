# RUN: %PYTHON %s | FileCheck %s
# The transform scripts of transform_interpreter.py and of
# examples/transform_tiling.py built with the transform dialect builders
# (dialects.transform, dialects.transform.structured) instead of parsed, and
# run by the tracked interpreter with the same outcomes; then upstream's other
# hand-written transform builders, built and run the same way.

import gc

from mlir_tracking import ir
from mlir_tracking.dialects import pdl, transform
from mlir_tracking.dialects.transform import interpreter, structured
from mlir_tracking.dialects.transform import pdl as transform_pdl
from tracking_testing import DOUBLING_LOOP, MATMUL, TILE, find


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    return f


def expect_error(kind, f):
    try:
        f()
    except kind as e:
        print(f"{kind.__name__}: {e}")
    else:
        print("no error")




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


# CHECK-LABEL: TEST: test_sequence_extra_bindings
@run
def test_sequence_extra_bindings():
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        any_op = transform.AnyOpType.get()
        add_type = transform.OperationType.get("arith.addi")
        propagate = transform.FailurePropagationMode.Propagate
        with ir.InsertionPoint(module.body):
            # Top level: the extra block arguments are given by their types.
            outer = transform.SequenceOp(propagate, [], any_op,
                                         [transform.AnyParamType.get(), add_type])
            with ir.InsertionPoint(outer.body):
                # Nested: the values bound to them (a BlockArgumentList).
                inner = transform.SequenceOp(propagate, [any_op],
                                             outer.bodyTarget,
                                             outer.bodyExtraArgs)
                with ir.InsertionPoint(inner.body):
                    transform.YieldOp([inner.bodyTarget])
                # Or the results of an op.
                param = transform.ParamConstantOp(
                    transform.AnyParamType.get(),
                    ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 4))
                by_op = transform.SequenceOp(propagate, [], inner.results[0],
                                             param)
                with ir.InsertionPoint(by_op.body):
                    transform.YieldOp()
                transform.YieldOp()
        # CHECK: transform.sequence  failures(propagate) {
        # CHECK: ^bb0(%[[ROOT:.*]]: !transform.any_op, %[[P:.*]]: !transform.any_param, %[[ADD:.*]]: !transform.op<"arith.addi">):
        # CHECK:   %[[R:.*]] = sequence %[[ROOT]], %[[P]], %[[ADD]] : (!transform.any_op, !transform.any_param, !transform.op<"arith.addi">) -> !transform.any_op failures(propagate) {
        # CHECK:   ^bb0(%{{.*}}: !transform.any_op, %{{.*}}: !transform.any_param, %{{.*}}: !transform.op<"arith.addi">):
        # CHECK:   %[[C:.*]] = transform.param.constant 4 : i64 -> !transform.any_param
        # CHECK:   sequence %[[R]], %[[C]] : (!transform.any_op, !transform.any_param) failures(propagate) {
        print(module)
        # CHECK: verifies: True
        print("verifies:", module.operation.verify())
        # CHECK: extras: BlockArgumentList 2 !transform.op<"arith.addi">
        extras = outer.bodyExtraArgs
        print("extras:", type(extras).__name__, len(extras), extras[1].type)

        # Wrong mixes are refused before anything is built.
        with ir.InsertionPoint(module.body):
            expect_error(ValueError, lambda: transform.SequenceOp(
                propagate, [], any_op, [any_op, outer.bodyTarget]))
            # CHECK: ValueError: extra_bindings mixes Types and Values
            expect_error(ValueError, lambda: transform.SequenceOp(
                propagate, [], any_op, [outer.bodyTarget]))
            # CHECK: ValueError: a top-level transform.sequence (its target is a Type) has no operands to bind
            expect_error(TypeError, lambda: transform.SequenceOp(
                propagate, [], any_op, any_op))
            # CHECK: TypeError: extra_bindings must be a sequence of Values or of Types
            expect_error(TypeError, lambda: transform.SequenceOp(
                propagate, [], "root"))
            # CHECK: TypeError: the target of a transform.sequence must be a handle
        with ir.InsertionPoint(outer.body.operations[0]):
            expect_error(ValueError, lambda: transform.SequenceOp(
                propagate, [], outer.bodyTarget, [any_op]))
            # CHECK: ValueError: a nested transform.sequence (its target is a Value) binds Values
        # CHECK: ops: 1 4
        print("ops:", len(module.body.operations),
              len(outer.body.operations))


def privatize_payload():
    return ir.Module.parse("""
        func.func @a() { return }
        func.func @b() { return }
        func.func @c() { return }""")


# CHECK-LABEL: TEST: test_apply_registered_pass
@run
def test_apply_registered_pass():
    with ir.Context(), ir.Location.unknown():
        script = script_module()
        any_op = transform.AnyOpType.get()
        any_param = transform.AnyParamType.get()
        with ir.InsertionPoint(script.body):
            entry = transform.NamedSequenceOp("__transform_main", [any_op], [])
            with ir.InsertionPoint(entry.body):
                root = transform.ApplyRegisteredPassOp(
                    any_op, entry.bodyTarget, "canonicalize",
                    options={"top-down": False, "max-iterations": 3})
                iterations = transform.param_constant(
                    any_param,
                    ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 2))
                root = transform.apply_registered_pass(
                    any_op, root, "canonicalize",
                    options={ir.StringAttr.get("max-iterations"): iterations,
                             "region-simplify": ir.StringAttr.get("normal")})
                keep = transform.param_constant(any_param,
                                                ir.StringAttr.get("a"))
                # A param inside a list, next to a plain string.
                transform.apply_registered_pass(
                    any_op, root, "symbol-privatize",
                    options={"exclude": [keep, "b"]})
                transform.YieldOp()
        # Options are sorted by name; params become operands.
        # CHECK: %[[R0:.*]] = transform.apply_registered_pass "canonicalize" with options = {"max-iterations" = 3 : i64, "top-down" = false} to %arg0 : (!transform.any_op) -> !transform.any_op
        # CHECK: %[[N:.*]] = transform.param.constant 2 : i64 -> !transform.any_param
        # CHECK: %[[R1:.*]] = transform.apply_registered_pass "canonicalize" with options = {"max-iterations" = %[[N]], "region-simplify" = "normal"} to %[[R0]] : (!transform.any_op, !transform.any_param) -> !transform.any_op
        # CHECK: %[[K:.*]] = transform.param.constant "a" -> !transform.any_param
        # CHECK: transform.apply_registered_pass "symbol-privatize" with options = {"exclude" = [%[[K]], "b"]} to %[[R1]] : (!transform.any_op, !transform.any_param) -> !transform.any_op
        print(script)
        # CHECK: verifies: True
        print("verifies:", script.operation.verify())

        # Running it: @a (a param) and @b stay public, @c becomes private.
        payload = privatize_payload()
        interpreter.apply_named_sequence(payload, entry, script)
        # CHECK: visibility: a=None b=None c="private"
        print("visibility:", " ".join(
            f"{op.name.value}={op.attributes['sym_visibility'] if 'sym_visibility' in op.attributes else None}"
            for op in payload.body.operations))

        # The generated builder stays reachable: dynamic options fourth.
        with ir.InsertionPoint(script.body):
            sequence = transform.SequenceOp(
                transform.FailurePropagationMode.Propagate, [], any_op,
                [any_param])
            with ir.InsertionPoint(sequence.body):
                option = ir.Attribute.parse("#transform.param_operand<index=0>")
                generated = transform.apply_registered_pass(
                    any_op, sequence.bodyTarget, "canonicalize",
                    sequence.bodyExtraArgs,
                    options=ir.DictAttr.get({"max-iterations": option}))
                # CHECK: generated: 1 {"max-iterations" = #transform.param_operand<index = 0 : i64>}
                print("generated:", len(generated.owner.dynamic_options),
                      generated.owner.options)
                # Bad options: nothing is built.
                count = len(sequence.body.operations)
                expect_error(TypeError, lambda: transform.apply_registered_pass(
                    any_op, sequence.bodyTarget, "canonicalize",
                    options={"max-iterations": 2.5}))
                # CHECK: TypeError: an apply_registered_pass option value must be an Attribute, a param handle, a bool, an int, a str or a sequence of those, got float
                expect_error(TypeError, lambda: transform.ApplyRegisteredPassOp(
                    any_op, sequence.bodyTarget, "canonicalize",
                    options={7: True}))
                # CHECK: TypeError: an option name must be a str or a StringAttr, got int
                expect_error(TypeError, lambda: transform.ApplyRegisteredPassOp(
                    any_op, sequence.bodyTarget, "canonicalize",
                    options=[("top-down", True)]))
                # CHECK: TypeError: options must be a dict of pass options, got list
                # CHECK: nothing built: True
                print("nothing built:", len(sequence.body.operations) == count)
                transform.YieldOp()


# CHECK-LABEL: TEST: test_transform_pdl
@run
def test_transform_pdl():
    with ir.Context(), ir.Location.unknown():
        script = script_module()
        any_op = transform.AnyOpType.get()
        with ir.InsertionPoint(script.body):
            entry = transform.NamedSequenceOp("__transform_main", [any_op], [])
            with ir.InsertionPoint(entry.body):
                with_pdl = transform_pdl.WithPDLPatternsOp(entry.bodyTarget)
                with ir.InsertionPoint(with_pdl.body):
                    # Binary arith.addi / arith.muli ops (PDL counts operands
                    # and results only when they are given).
                    for name in ("addi", "muli"):
                        pattern = pdl.PatternOp(1, name)
                        with ir.InsertionPoint(pattern.body):
                            op = pdl.OperationOp(
                                f"arith.{name}",
                                args=[pdl.OperandOp(), pdl.OperandOp()],
                                types=[pdl.TypeOp()])
                            pdl.RewriteOp(op, "transform.dialect")
                    sequence = transform.SequenceOp(
                        transform.FailurePropagationMode.Propagate, [],
                        with_pdl.bodyTarget)
                    with ir.InsertionPoint(sequence.body):
                        adds = transform_pdl.PDLMatchOp(
                            any_op, sequence.bodyTarget, "addi")
                        muls = transform_pdl.PDLMatchOp(
                            any_op, sequence.bodyTarget,
                            ir.FlatSymbolRefAttr.get("muli"))
                        transform.AnnotateOp(adds, "is_add")
                        # One copy of the muli handle per matched addi.
                        copies = transform.ReplicateOp(adds, [muls])
                        transform.AnnotateOp(copies.results[0], "copied")
                        transform.YieldOp()
                transform.YieldOp()
        # CHECK: transform.with_pdl_patterns %arg0 : !transform.any_op {
        # CHECK: ^bb0(%[[W:.*]]: !transform.any_op):
        # CHECK:   pdl.pattern @addi : benefit(1) {
        # CHECK:   sequence %[[W]] : !transform.any_op failures(propagate) {
        # CHECK:   ^bb0(%[[S:.*]]: !transform.any_op):
        # CHECK:     %[[A:.*]] = pdl_match @addi in %[[S]] : (!transform.any_op) -> !transform.any_op
        # CHECK:     %[[M:.*]] = pdl_match @muli in %[[S]] : (!transform.any_op) -> !transform.any_op
        # CHECK:     %{{.*}} = replicate num(%[[A]]) %[[M]] : !transform.any_op, !transform.any_op
        print(script)
        # CHECK: verifies: True WithPDLPatternsOp PDLMatchOp
        print("verifies:", script.operation.verify(), type(with_pdl).__name__,
              type(sequence.body.operations[0]).__name__)

        payload = ir.Module.parse("""
            func.func @f(%a: i32, %b: i32) -> i32 {
              %0 = arith.addi %a, %b : i32
              %1 = arith.muli %0, %b : i32
              %2 = arith.addi %1, %a : i32
              return %2 : i32
            }""")
        body = payload.body.operations[0].regions[0].blocks[0]
        held = list(body.operations)
        interpreter.apply_named_sequence(payload, entry, script)
        # The handles held across the run stay live; the matched ops are
        # annotated.
        # CHECK: arith.addi live is_add
        # CHECK: arith.muli live copied
        # CHECK: arith.addi live is_add
        # CHECK: func.return live -
        for op in held:
            marks = [m for m in ("is_add", "copied") if m in op.attributes]
            print(op.name, op.handle_state, " ".join(marks) or "-")

        # Upstream's top-level form (a Type) and the generated one (root=).
        with ir.InsertionPoint(script.body):
            top = transform_pdl.WithPDLPatternsOp(any_op)
            generated = transform_pdl.WithPDLPatternsOp(root=None)
            # CHECK: top-level: 1 !transform.any_op; generated: 0 blocks
            print("top-level:", len(top.body.arguments), top.bodyTarget.type,
                  end="; ")
            print("generated:", len(generated.regions[0].blocks), "blocks")
            top.operation.erase()
            generated.operation.erase()
            count = len(script.body.operations)
            expect_error(TypeError, lambda: transform_pdl.WithPDLPatternsOp(3))
            # CHECK: TypeError: the target of WithPDLPatternsOp must be a handle
            expect_error(TypeError, lambda: transform_pdl.PDLMatchOp(
                any_op, entry.bodyTarget, 3))
            # CHECK: TypeError: PDLMatchOp: the pattern name must be a str or a symbol reference attribute, got int
            expect_error(TypeError, lambda: transform.ReplicateOp(
                entry.bodyTarget, entry.bodyTarget))
            # CHECK: TypeError: ReplicateOp: handles must be a sequence of handles, got BlockArgument
            # CHECK: nothing built: True
            print("nothing built:", len(script.body.operations) == count)


# CHECK-LABEL: TEST: test_generated_extension_modules
@run
def test_generated_extension_modules():
    # The transform extensions other than structured and pdl are their
    # generated classes (upstream's module names): an unroll built with
    # transform.loop runs through the tracked interpreter.
    from mlir_tracking.dialects.transform import (bufferization, gpu, loop,
                                                  memref, tensor, vector)

    # CHECK: extensions: LoopUnrollOp MakeLoopIndependentOp MemRefMultiBufferOp MapNestedForallToThreads ApplyVectorReductionToContractPatternsOp OneShotBufferizeOp
    print("extensions:", loop.LoopUnrollOp.__name__,
          tensor.MakeLoopIndependentOp.__name__, memref.MemRefMultiBufferOp.__name__,
          gpu.MapNestedForallToThreads.__name__,
          vector.ApplyVectorReductionToContractPatternsOp.__name__,
          bufferization.OneShotBufferizeOp.__name__)
    # CHECK-NEXT: enums: ParallelArith IdentityLayoutMap
    print("enums:", vector.VectorContractLowering.ParallelArith.name,
          bufferization.LayoutMapOption.IdentityLayoutMap.name)
    with ir.Context(), ir.Location.unknown():
        payload = ir.Module.parse(DOUBLING_LOOP)
        module = script_module()
        any_op = transform.AnyOpType.get()
        with ir.InsertionPoint(module.body):
            entry = transform.NamedSequenceOp("__transform_main", [any_op], [],
                                              arg_attrs=[{"transform.consumed": ir.UnitAttr.get()}])
            with ir.InsertionPoint(entry.body):
                loops = structured.MatchOp.match_op_names(entry.bodyTarget, ["scf.for"])
                loop.LoopUnrollOp(loops, factor=4)
                transform.YieldOp([])
        func = payload.body.operations[0]
        (for_op,) = find(payload.operation, "scf.for")
        interpreter.apply_named_sequence(func, entry, module)
        # CHECK: transform.loop.unroll %{{.*}} {factor = 4 : i64} : !transform.any_op
        print(module)
        # The unroll consumed the loop (its handle is invalidated, as the
        # transform dialect's tracking says); the body is there four times.
        # CHECK: loop: invalidated adds: 4
        print("loop:", for_op.handle_state, "adds:", str(payload).count("arith.addf"))


# CHECK-LABEL: TEST: test_structured_builders_with_implied_handles
@run
def test_structured_builders_with_implied_handles():
    # Upstream's forms whose result handles are !transform.any_op:
    # tile_using_forall by tile sizes, then generalize the tiled op.
    with ir.Context(), ir.Location.unknown():
        payload = ir.Module.parse(MATMUL)
        module = script_module()
        any_op = transform.AnyOpType.get()
        with ir.InsertionPoint(module.body):
            entry = transform.NamedSequenceOp(
                "__transform_main", [any_op], [any_op],
                arg_attrs=[{"transform.consumed": ir.UnitAttr.get()}])
            with ir.InsertionPoint(entry.body):
                matmul = structured.MatchOp.match_op_names(entry.bodyTarget, ["linalg.matmul"])
                tiled = structured.TileUsingForallOp(matmul, tile_sizes=[4, 8])
                generic = structured.GeneralizeOp(tiled.tiled_op)
                transform.YieldOp([generic.transformed])
        # CHECK: transform.structured.tile_using_forall %{{.*}} tile_sizes [4, 8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
        # CHECK: transform.structured.generalize %{{.*}} : (!transform.any_op) -> !transform.any_op
        print(module)
        func = payload.body.operations[1]
        (matmul_op,) = find(payload.operation, "linalg.matmul")
        ((result,),) = interpreter.apply_named_sequence(func, entry, module)
        # The matmul was tiled away (erased); the handle that comes back is
        # the generic in the forall's body.
        # CHECK: erased linalg.generic scf.forall
        print(matmul_op.handle_state, result.name, result.parent.name)
        # CHECK: TypeError: TileUsingForallOp takes num_threads= or tile_sizes=, not both and not neither
        expect_error(TypeError, lambda: structured.TileUsingForallOp(
            entry.bodyTarget, num_threads=[2], tile_sizes=[4]))


# CHECK-LABEL: TEST: test_structured_builders_upstream_arguments
@run
def test_structured_builders_upstream_arguments():
    # The remaining structured ops with upstream's hand-written arguments:
    # the script they make verifies.
    with ir.Context(), ir.Location.unknown():
        module = script_module()
        any_op = transform.AnyOpType.get()
        with ir.InsertionPoint(module.body):
            entry = transform.NamedSequenceOp("__transform_main", [any_op], [])
            with ir.InsertionPoint(entry.body):
                target = entry.bodyTarget
                structured.BufferizeToAllocationOp(target, memory_space=3,
                                                   alloc_op="memref.alloca")
                structured.MapCopyToThreadsOp(target, total_num_threads=32,
                                              desired_bit_alignment=128)
                structured.MultiTileSizesOp(any_op, target, dimension=1, target_size=42)
                structured.PadOp(target, pad_to_multiple_of=[8, 16],
                                 padding_dimensions=[0, 1], transpose_paddings=[[1, 0]])
                structured.SplitOp(target, 1, 42)
                structured.SplitOp(target, 0, transform.ParamConstantOp(
                    transform.ParamType.get(ir.IntegerType.get_signless(64)),
                    ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 4)).param)
                transform.YieldOp([])
        # CHECK: verifies: True
        print("verifies:", module.operation.verify())
        # CHECK: transform.structured.bufferize_to_allocation %arg0 {alloc_op = "memref.alloca", memory_space = 3 : i64}
        # CHECK: transform.structured.gpu.map_copy_to_threads %arg0 total_num_threads = 32 desired_bit_alignment = 128
        # CHECK: transform.structured.multitile_sizes %arg0 {dimension = 1 : i64, target_size = 42 : i64}
        # CHECK: transform.structured.pad %arg0 pad_to_multiple_of [8, 16] {padding_dimensions = [0, 1], transpose_paddings = {{\[\[}}1, 0]]}
        # CHECK: transform.structured.split %arg0 after 42 {dimension = 1 : i64}
        # CHECK: transform.structured.split %arg0 after %{{.*}} {dimension = 0 : i64}
        print(module)


# Upstream's hand-written builders of the transform dialect itself and of
# its loop, tensor, memref, bufferization and gpu extensions: each form
# built and printed, the wrong arguments refused before anything is built,
# and scripts made with them run by the tracked interpreter.


def in_sequence(build, root_type=None):
    """Builds ops with `build(target)` in a top-level transform.sequence
    (its root of `root_type`, !transform.any_op by default), then prints
    the module."""
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        sequence = transform.SequenceOp(
            transform.FailurePropagationMode.Propagate, [],
            root_type or transform.AnyOpType.get())
        with ir.InsertionPoint(sequence.body):
            build(sequence.bodyTarget)
            transform.YieldOp()
    print(module)
    return module


def refused(make, kinds=(TypeError, ValueError)):
    """Runs `make` under a scratch sequence: prints the error it raises and
    whether the sequence's body is still empty."""
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        sequence = transform.SequenceOp(
            transform.FailurePropagationMode.Propagate, [],
            transform.AnyOpType.get())
        with ir.InsertionPoint(sequence.body):
            try:
                make(sequence.bodyTarget)
            except kinds as error:
                built = len(sequence.body.operations)
                print(f"{type(error).__name__}: {error} [built: {built}]")
            else:
                print("no error")


def named_script(body, input_types=None, arg_attrs=None):
    """A script module with @__transform_main(%root) built by
    `body(entry)`; returns (module, entry)."""
    module = script_module()
    any_op = transform.AnyOpType.get()
    with ir.InsertionPoint(module.body):
        entry = transform.NamedSequenceOp(
            "__transform_main", input_types or [any_op], [],
            arg_attrs=arg_attrs)
        with ir.InsertionPoint(entry.body):
            body(entry)
            transform.YieldOp()
    return module, entry


# CHECK-LABEL: TEST: test_core_builders
@run
def test_core_builders():
    with ir.Context(), ir.Location.unknown():
        any_op = transform.AnyOpType.get()
        for_type = transform.OperationType.get("scf.for")

        def build(target):
            loops = structured.MatchOp.match_op_names(target, ["scf.for"])
            transform.CastOp(for_type, target)
            # An op stands for its result.
            print("cast:", type(transform.cast(any_op, loops)).__name__)
            transform.GetParentOp(any_op, target, isolated_from_above=True,
                                  nth_parent=2)
            transform.GetParentOp(any_op, loops)
            transform.get_parent_op(any_op, loops, op_name="func.func",
                                    deduplicate=True,
                                    allow_empty_results=True)
            transform.MergeHandlesOp([target])
            merged = transform.MergeHandlesOp([target, loops],
                                              deduplicate=True)
            transform.merge_handles([merged], results=[any_op])
            transform.ApplyPatternsOp(target)
            with ir.InsertionPoint(
                    transform.ApplyPatternsOp(target, True, 3, 7).patterns):
                transform.ApplyCanonicalizationPatternsOp()
            patterns = transform.apply_patterns(target, max_iterations=2)
            print("apply_patterns:", type(patterns).__name__,
                  len(patterns.patterns.operations))
            transform.replicate(target, [loops, merged])
            print("replicate one:",
                  type(transform.replicate(target, [loops])).__name__,
                  end=", ")
            none = transform.replicate(target, [])
            print("none:", type(none).__name__)
            none.operation.erase()

        in_sequence(build)
        # CHECK: cast: OpResult
        # CHECK: apply_patterns: ApplyPatternsOp 0
        # CHECK: replicate one: OpResult, none: ReplicateOp
        # CHECK: transform.sequence  failures(propagate) {
        # CHECK: ^bb0(%[[ROOT:.*]]: !transform.any_op):
        # CHECK:   %[[LOOPS:.*]] = transform.structured.match ops{["scf.for"]} in %[[ROOT]]
        # CHECK:   %{{.*}} = cast %[[ROOT]] : !transform.any_op to !transform.op<"scf.for">
        # CHECK:   %{{.*}} = cast %[[LOOPS]] : !transform.any_op to !transform.any_op
        # CHECK:   %{{.*}} = get_parent_op %[[ROOT]] {isolated_from_above, nth_parent = 2 : i64} : (!transform.any_op) -> !transform.any_op
        # CHECK:   %{{.*}} = get_parent_op %[[LOOPS]] : (!transform.any_op) -> !transform.any_op
        # CHECK:   %{{.*}} = get_parent_op %[[LOOPS]] {allow_empty_results, deduplicate, op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
        # CHECK:   %{{.*}} = merge_handles %[[ROOT]] : !transform.any_op
        # CHECK:   %[[MERGED:.*]] = merge_handles deduplicate %[[ROOT]], %[[LOOPS]] : !transform.any_op
        # CHECK:   %{{.*}} = merge_handles %[[MERGED]] : !transform.any_op
        # CHECK:   apply_patterns to %[[ROOT]] {
        # CHECK-NEXT: } : !transform.any_op
        # CHECK:   apply_patterns to %[[ROOT]] {
        # CHECK-NEXT:   transform.apply_patterns.canonicalization
        # CHECK-NEXT: } {apply_cse, max_iterations = 3 : i64, max_num_rewrites = 7 : i64} : !transform.any_op
        # CHECK:   apply_patterns to %[[ROOT]] {
        # CHECK-NEXT: } {max_iterations = 2 : i64} : !transform.any_op
        # CHECK:   %{{.*}}:2 = replicate num(%[[ROOT]]) %[[LOOPS]], %[[MERGED]] : !transform.any_op, !transform.any_op, !transform.any_op

        def build_regions(target):
            foreach = transform.ForeachOp([any_op], [target, target],
                                          with_zip_shortest=True)
            with ir.InsertionPoint(foreach.body):
                first, second = foreach.bodyTargets
                transform.yield_([first])
            # CHECK: foreach: ForeachOp 2 BlockArgumentList
            print("foreach:", type(foreach).__name__,
                  len(foreach.bodyTargets),
                  type(foreach.bodyTargets).__name__)
            no_results = transform.foreach([], [target])
            with ir.InsertionPoint(no_results.body):
                transform.YieldOp()
            two = transform.foreach([any_op, for_type], [target])
            with ir.InsertionPoint(two[0].owner.body):
                cast = transform.cast(for_type, two[0].owner.bodyTargets[0])
                transform.YieldOp([two[0].owner.bodyTargets[0], cast])
            # CHECK: foreach results: ForeachOp OpResultList
            print("foreach results:", type(no_results).__name__,
                  type(two).__name__)
            nested = transform.sequence(
                transform.FailurePropagationMode.Suppress, [any_op], target)
            with ir.InsertionPoint(nested.owner.body):
                transform.yield_([nested.owner.bodyTarget])
            # CHECK: sequence: OpResult
            print("sequence:", type(nested).__name__)

        in_sequence(build_regions)
        # CHECK: transform.sequence  failures(propagate) {
        # CHECK: ^bb0(%[[ROOT:.*]]: !transform.any_op):
        # CHECK:   %{{.*}} = foreach %[[ROOT]], %[[ROOT]] with_zip_shortest : !transform.any_op, !transform.any_op -> !transform.any_op {
        # CHECK:   ^bb0(%[[A:.*]]: !transform.any_op, %{{.*}}: !transform.any_op):
        # CHECK:     yield %[[A]] : !transform.any_op
        # CHECK:   foreach %[[ROOT]] : !transform.any_op {
        # CHECK:   %{{.*}}:2 = foreach %[[ROOT]] : !transform.any_op -> !transform.any_op, !transform.op<"scf.for"> {
        # CHECK:   %{{.*}} = sequence %[[ROOT]] : !transform.any_op -> !transform.any_op failures(suppress) {

        module = script_module()
        with ir.InsertionPoint(module.body):
            entry = transform.named_sequence(
                "__transform_main", [any_op], [],
                arg_attrs=[{"transform.readonly": ir.UnitAttr.get()}])
            with ir.InsertionPoint(entry.body):
                # CHECK: yield_: YieldOp
                print("yield_:", type(transform.yield_()).__name__)
        # CHECK: transform.named_sequence @__transform_main(%{{.*}}: !transform.any_op {transform.readonly}) {
        # CHECK-NEXT: transform.yield
        print(module)
        # CHECK: verifies: True
        print("verifies:", module.operation.verify())


# CHECK-LABEL: TEST: test_core_builder_errors
@run
def test_core_builder_errors():
    with ir.Context(), ir.Location.unknown():
        any_op = transform.AnyOpType.get()
        # CHECK: TypeError: CastOp: result_type must be a Type, got BlockArgument [built: 0]
        refused(lambda t: transform.CastOp(t, t))
        # CHECK: TypeError: CastOp: target must be a handle (a Value or a one-result op), got AnyOpType [built: 0]
        refused(lambda t: transform.cast(any_op, any_op))
        # CHECK: ValueError: GetParentOp: nth_parent must be >= 1, got 0 [built: 0]
        refused(lambda t: transform.GetParentOp(any_op, t, nth_parent=0))
        # CHECK: TypeError: GetParentOp: op_name must be a str or a StringAttr, got int [built: 0]
        refused(lambda t: transform.get_parent_op(any_op, t, op_name=3))
        # CHECK: TypeError: GetParentOp: deduplicate must be a bool, got str [built: 0]
        refused(lambda t: transform.GetParentOp(any_op, t, deduplicate="yes"))
        # CHECK: TypeError: MergeHandlesOp: handles must be a sequence of handles, got BlockArgument [built: 0]
        refused(lambda t: transform.MergeHandlesOp(t))
        # CHECK: ValueError: MergeHandlesOp: needs at least one handle to merge (or the result type in results=) [built: 0]
        refused(lambda t: transform.merge_handles([]))
        # CHECK: TypeError: MergeHandlesOp: each of handles must be a handle (a Value or a one-result op), got int [built: 0]
        refused(lambda t: transform.MergeHandlesOp([t, 1]))
        # CHECK: TypeError: MergeHandlesOp: results must be a sequence of Types, got AnyOpType [built: 0]
        refused(lambda t: transform.MergeHandlesOp([t], results=any_op))
        # CHECK: TypeError: ApplyPatternsOp: max_iterations must be an int or an IntegerAttr, got str [built: 0]
        refused(lambda t: transform.apply_patterns(t, False, "3"))
        # CHECK: TypeError: ApplyPatternsOp: apply_cse must be a bool, got int [built: 0]
        refused(lambda t: transform.ApplyPatternsOp(t, 1))
        # CHECK: TypeError: ForeachOp: each of results must be a Type, got BlockArgument [built: 0]
        refused(lambda t: transform.ForeachOp([t], [t]))
        # CHECK: TypeError: ForeachOp: targets must be a sequence of handles, got BlockArgument [built: 0]
        refused(lambda t: transform.foreach([], t))
        # CHECK: TypeError: YieldOp: operands must be a sequence of handles, got BlockArgument [built: 0]
        refused(lambda t: transform.yield_(t))
        # A multi-result op does not stand for one handle.
        # CHECK: ValueError: CastOp: target must be a handle; the op 'transform.split_handle' given has 2 results, not one [built: 1]
        refused(lambda t: transform.CastOp(any_op, transform.SplitHandleOp(
            [any_op, any_op], t)))
        # NamedSequenceOp.apply needs its script module.
        with ir.InsertionPoint(ir.Module.create().body):
            lone = transform.NamedSequenceOp("lone", [any_op], [])
            with ir.InsertionPoint(lone.body):
                transform.YieldOp()
        # CHECK: ValueError: NamedSequenceOp.apply: the sequence must be in a module with the transform.with_named_sequence attribute
        expect_error(ValueError, lambda: lone.apply(ir.Module.parse(
            "func.func @f() { return }")))


CORE_PAYLOAD = """
func.func @f(%a: i32, %b: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%x = %a) -> i32 {
    %y = arith.addi %x, %b : i32
    %z = arith.muli %y, %b : i32
    scf.yield %z : i32
  }
  %r = arith.addi %s, %a : i32
  return %r : i32
}
"""


# CHECK-LABEL: TEST: test_core_builders_run
@run
def test_core_builders_run():
    # A script made with cast, get_parent_op, merge_handles, foreach and
    # apply_patterns, applied with NamedSequenceOp.apply: the payload ops
    # held from Python stay live and carry the script's marks.
    with ir.Context(), ir.Location.unknown():
        any_op = transform.AnyOpType.get()
        add_type = transform.OperationType.get("arith.addi")

        def body(entry):
            adds = structured.MatchOp.match_op_names(entry.bodyTarget,
                                                     ["arith.addi"])
            muls = structured.MatchOp.match_op_names(entry.bodyTarget,
                                                     ["arith.muli"])
            typed_adds = transform.cast(add_type, adds)
            loop = transform.get_parent_op(any_op, muls, op_name="scf.for")
            funcs = transform.GetParentOp(any_op, adds,
                                          isolated_from_above=True,
                                          deduplicate=True)
            arith = transform.merge_handles([adds, muls, adds],
                                            deduplicate=True)
            transform.AnnotateOp(loop, "outer_loop")
            transform.AnnotateOp(funcs, "parent_func")
            each = transform.ForeachOp([any_op], [typed_adds])
            with ir.InsertionPoint(each.body):
                (add,) = each.bodyTargets
                transform.AnnotateOp(add, "visited")
                transform.YieldOp([transform.cast(any_op, add)])
            transform.AnnotateOp(each.results[0], "collected")
            transform.AnnotateOp(arith, "arith")
            with ir.InsertionPoint(
                    transform.apply_patterns(entry.bodyTarget).patterns):
                transform.ApplyCanonicalizationPatternsOp()

        script, entry = named_script(body)
        # CHECK: verifies: True
        print("verifies:", script.operation.verify())
        payload = ir.Module.parse(CORE_PAYLOAD)
        held = {}

        def hold(op):
            held.setdefault(op.name, []).append(op)
            return ir.WalkResult.ADVANCE

        payload.operation.walk(hold)
        # CHECK: apply returns the payload: True
        print("apply returns the payload:", entry.apply(payload) is payload)
        # CHECK: arith.addi live arith collected visited
        # CHECK: arith.addi live arith collected visited
        # CHECK: arith.muli live arith
        # CHECK: func.func live parent_func
        # CHECK: scf.for live outer_loop
        for name in ("arith.addi", "arith.muli", "func.func", "scf.for"):
            for op in held[name]:
                marks = sorted(key for key in ("outer_loop", "parent_func",
                                               "visited", "collected",
                                               "arith")
                               if key in op.attributes)
                print(op.name, op.handle_state, " ".join(marks))

