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
        # The properties of these Python classes refuse another kind of
        # self as the C++ classes' do (operation_name read any object's
        # text: 'abc' for a StringAttr).
        other_op = ir.Type.parse('!transform.op<"x.y">')
        # CHECK: TypeError: OperationType.operation_name: self must be of class OperationType, got StringAttr("abc")
        expect_error(TypeError, lambda: transform.OperationType.operation_name.fget(
            ir.StringAttr.get("abc")))
        # CHECK: TypeError: OperationType.operation_name: self must be of class OperationType, got AnyOpType(!transform.any_op)
        expect_error(TypeError, lambda: transform.OperationType.operation_name.fget(
            transform.AnyOpType.get()))
        # CHECK: TypeError: ParamType.type: self must be of class ParamType, got IntegerType(i32)
        expect_error(TypeError, lambda: transform.ParamType.type.fget(
            ir.IntegerType.get_signless(32)))
        # CHECK: TypeError: ParamType.type: self must be of class ParamType, got AnyParamType(!transform.any_param)
        expect_error(TypeError, lambda: transform.ParamType.type.fget(
            transform.AnyParamType.get()))
        # CHECK: TypeError: RangeType.element_type: self must be of class RangeType, got ValueType(!pdl.value)
        expect_error(TypeError, lambda: pdl.RangeType.element_type.fget(
            pdl.ValueType.get()))
        # CHECK: of the kind: x.y !pdl.value
        print("of the kind:", transform.OperationType.operation_name.fget(other_op),
              pdl.RangeType.element_type.fget(pdl.RangeType.get(pdl.ValueType.get())))


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
    # The transform extensions under upstream's module names, with their
    # generated classes and enums: an unroll built with transform.loop runs
    # through the tracked interpreter.
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


# CHECK-LABEL: TEST: test_debug_nvgpu_and_sparse_tensor_extensions
@run
def test_debug_nvgpu_and_sparse_tensor_extensions():
    # transform.debug with upstream's short builder names, whose remarks the
    # tracked interpreter reports; the nvgpu and sparse_tensor extensions
    # under upstream's module names.
    from mlir_tracking.dialects.transform import debug, nvgpu, sparse_tensor

    # CHECK: extensions: RewriteCopyAsTmaOp MatchSparseInOut
    print("extensions:", nvgpu.RewriteCopyAsTmaOp.__name__,
          sparse_tensor.MatchSparseInOut.__name__)
    with ir.Context() as ctx, ir.Location.unknown():
        remarks = []
        ctx.attach_diagnostic_handler(
            lambda d: remarks.append(str(d.message)) or True)
        payload = ir.Module.parse(DOUBLING_LOOP)
        module = script_module()
        any_op = transform.AnyOpType.get()
        with ir.InsertionPoint(module.body):
            entry = transform.NamedSequenceOp(
                "__transform_main", [any_op], [],
                arg_attrs=[{"transform.readonly": ir.UnitAttr.get()}])
            with ir.InsertionPoint(entry.body):
                loops = structured.MatchOp.match_op_names(entry.bodyTarget, ["scf.for"])
                debug.emit_remark_at(loops, "a loop")
                param = transform.ParamConstantOp(
                    transform.AnyParamType.get(),
                    ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 7))
                debug.emit_param_as_remark(param, anchor=loops, message="seven")
                transform.YieldOp([])
        # CHECK: transform.debug.emit_remark_at %{{.*}}, "a loop" : !transform.any_op
        # CHECK: transform.debug.emit_param_as_remark %{{.*}}, "seven" at %{{.*}} : !transform.any_param, !transform.any_op
        print(module)
        interpreter.apply_named_sequence(payload.body.operations[0], entry, module)
        # CHECK: remarks: ['a loop', 'seven 7 : i32']
        print("remarks:", remarks)


# CHECK-LABEL: TEST: test_x86vector_and_xegpu_extensions
@run
def test_x86vector_and_xegpu_extensions():
    # transform.x86vector's pattern ops (generated from MLIR 22's
    # definitions) in an apply_patterns run by the tracked interpreter, and
    # transform.xegpu's generated builders.
    from mlir_tracking.dialects.transform import x86vector, xegpu

    payload_text = """
      #lhs = affine_map<(m, n, k) -> (m, k)>
      #rhs = affine_map<(m, n, k) -> (k, n)>
      #out = affine_map<(m, n, k) -> (m, n)>
      func.func @outer(%a: vector<1x1xf32>, %b: vector<1x8xf32>,
                       %c: vector<1x8xf32>) -> vector<1x8xf32> {
        %r = vector.contract {indexing_maps = [#lhs, #rhs, #out],
               iterator_types = ["parallel", "parallel", "reduction"],
               kind = #vector.kind<add>} %a, %b, %c
             : vector<1x1xf32>, vector<1x8xf32> into vector<1x8xf32>
        return %r : vector<1x8xf32>
      }"""
    with ir.Context(), ir.Location.unknown():
        payload = ir.Module.parse(payload_text)
        (contract,) = find(payload.operation, "vector.contract")
        module = script_module()
        any_op = transform.AnyOpType.get()
        with ir.InsertionPoint(module.body):
            entry = transform.NamedSequenceOp(
                "__transform_main", [any_op], [],
                arg_attrs=[{"transform.readonly": ir.UnitAttr.get()}])
            with ir.InsertionPoint(entry.body):
                funcs = structured.MatchOp.match_op_names(entry.bodyTarget, ["func.func"])
                apply = transform.ApplyPatternsOp(funcs)
                with ir.InsertionPoint(apply.patterns):
                    x86vector.ApplyVectorContractToFMAPatternsOp()
                    x86vector.apply_patterns_x86vector_sink_vector_producer_ops()
                transform.YieldOp([])
        # CHECK: transform.apply_patterns.x86vector.vector_contract_to_fma
        # CHECK-NEXT: transform.apply_patterns.x86vector.sink_vector_producer_ops
        print(module)
        interpreter.apply_named_sequence(payload, entry, module)
        # The contraction became an FMA; its handle is erased (no op of its
        # name replaced it), the function's stays live.
        # CHECK: fma: 1 contract: erased function: live
        print("fma:", len(find(payload.operation, "vector.fma")),
              "contract:", contract.handle_state,
              "function:", payload.body.operations[0].operation.handle_state)

        script = script_module()
        with ir.InsertionPoint(script.body):
            entry = transform.NamedSequenceOp(
                "__transform_main", [any_op], [],
                arg_attrs=[{"transform.readonly": ir.UnitAttr.get()}])
            with ir.InsertionPoint(entry.body):
                loads = structured.MatchOp.match_op_names(
                    entry.bodyTarget, ["xegpu.load_nd"])
                value = transform.GetResultOp(
                    transform.AnyValueType.get(), loads, [0]).result
                xegpu.GetDescOp(any_op, value)
                transform.YieldOp([])
        # CHECK: transform.xegpu.get_desc_op %{{.*}} : (!transform.any_value) -> !transform.any_op
        print(script)
        # CHECK: xegpu script verifies: True
        print("xegpu script verifies:", script.operation.verify())
        # CHECK: ValueError: Operand 0 of operation "transform.xegpu.get_desc_op" must be a Value
        with ir.InsertionPoint(entry.body):
            expect_error(ValueError, lambda: xegpu.GetDescOp(any_op, None))


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


# CHECK-LABEL: TEST: test_tile_using_forall_result_types
@run
def test_tile_using_forall_result_types():
    # Upstream's form with a type for each result handle, next to the
    # one-type form (both handles that type).
    with ir.Context(), ir.Location.unknown():
        module = script_module()
        any_op = transform.AnyOpType.get()
        forall_t = transform.OperationType.get("scf.forall")
        matmul_t = transform.OperationType.get("linalg.matmul")
        with ir.InsertionPoint(module.body):
            entry = transform.NamedSequenceOp(
                "__transform_main", [any_op], [],
                arg_attrs=[{"transform.consumed": ir.UnitAttr.get()}])
            with ir.InsertionPoint(entry.body):
                # CHECK: static_num_threads = array<i64: 2, 3, 4>}> : (!transform.any_op) -> (!transform.op<"scf.forall">, !transform.op<"linalg.matmul">)
                two = structured.TileUsingForallOp(
                    forall_t, matmul_t, entry.bodyTarget, num_threads=[2, 3, 4])
                print(two)
                # CHECK: static_num_threads = array<i64: 2>}> : (!transform.any_op) -> (!transform.op<"scf.forall">, !transform.op<"scf.forall">)
                one = structured.TileUsingForallOp(
                    forall_t, entry.bodyTarget, num_threads=[2])
                print(one)
                transform.YieldOp([])
        # CHECK: TypeError: TileUsingForallOp needs a target
        expect_error(TypeError, lambda: structured.TileUsingForallOp(
            forall_t, matmul_t, num_threads=[2]))


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


# CHECK-LABEL: TEST: test_loop_builders
@run
def test_loop_builders():
    from mlir_tracking.dialects.transform import loop

    with ir.Context(), ir.Location.unknown():
        any_op = transform.AnyOpType.get()
        for_type = transform.OperationType.get("scf.for")

        def build(root):
            # Each op consumes its target: a fresh handle for each.
            def target():
                return structured.MatchOp.match_op_names(for_type, root,
                                                         "scf.for")

            loop.LoopOutlineOp(any_op, any_op, target(), func_name="foo")
            loop.LoopOutlineOp(any_op, transform.OperationType.get(
                "func.call"), target(), func_name=ir.StringAttr.get("bar"))
            loop.LoopPeelOp(for_type, for_type, target())
            loop.LoopPeelOp(any_op, any_op, target(), peel_front=True,
                            fail_if_already_divisible=ir.BoolAttr.get(True))
            loop.LoopPipelineOp(any_op, target())
            loop.LoopPipelineOp(any_op, target(), iteration_interval=3,
                                read_latency=ir.IntegerAttr.get(
                                    ir.IntegerType.get_signless(64), 5))
            loop.LoopUnrollOp(target(), factor=42)
            loop.LoopUnrollOp(target(), 2)

        module = in_sequence(build)
        # CHECK: transform.sequence  failures(propagate) {
        # CHECK: %[[T:.*]] = transform.structured.match ops{["scf.for"]} in %arg0 : (!transform.any_op) -> !transform.op<"scf.for">
        # CHECK: %{{.*}}, %{{.*}} = transform.loop.outline %[[T]] {func_name = "foo"} : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
        # CHECK: %[[T:.*]] = transform.structured.match
        # CHECK: %{{.*}}, %{{.*}} = transform.loop.outline %[[T]] {func_name = "bar"} : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.op<"func.call">)
        # CHECK: %[[T:.*]] = transform.structured.match
        # CHECK: %{{.*}}, %{{.*}} = transform.loop.peel %[[T]] : (!transform.op<"scf.for">) -> (!transform.op<"scf.for">, !transform.op<"scf.for">)
        # CHECK: %[[T:.*]] = transform.structured.match
        # CHECK: %{{.*}}, %{{.*}} = transform.loop.peel %[[T]] {fail_if_already_divisible = true, peel_front = true} : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
        # CHECK: %[[T:.*]] = transform.structured.match
        # CHECK: %{{.*}} = transform.loop.pipeline %[[T]] : (!transform.op<"scf.for">) -> !transform.any_op
        # CHECK: %[[T:.*]] = transform.structured.match
        # CHECK: %{{.*}} = transform.loop.pipeline %[[T]] {iteration_interval = 3 : i64, read_latency = 5 : i64} : (!transform.op<"scf.for">) -> !transform.any_op
        # CHECK: %[[T:.*]] = transform.structured.match
        # CHECK: transform.loop.unroll %[[T]] {factor = 42 : i64} : !transform.op<"scf.for">
        # CHECK: %[[T:.*]] = transform.structured.match
        # CHECK: transform.loop.unroll %[[T]] {factor = 2 : i64} : !transform.op<"scf.for">
        # CHECK: verifies: True
        print("verifies:", module.operation.verify())
        ops = module.body.operations[0].regions[0].blocks[0].operations
        # CHECK: classes: LoopOutlineOp LoopPeelOp LoopPipelineOp LoopUnrollOp MatchOp
        print("classes:", *sorted({type(op).__name__ for op in ops} - {"YieldOp"}))
        # The defaults as upstream sets them: peel's flags false, the
        # pipeline's interval 1 and latency 10 (the printer elides them).
        # CHECK: defaults: false false 1 10
        peel, pipeline = ops[5], ops[9]
        print("defaults:", peel.peel_front, peel.fail_if_already_divisible,
              pipeline.iteration_interval.value, pipeline.read_latency.value)

        # CHECK: TypeError: LoopOutlineOp: missing func_name (the name of the outlined function) [built: 0]
        refused(lambda t: loop.LoopOutlineOp(any_op, any_op, t))
        # CHECK: TypeError: LoopOutlineOp: func_name must be a str or a StringAttr, got int [built: 0]
        refused(lambda t: loop.LoopOutlineOp(any_op, any_op, t, func_name=1))
        # CHECK: TypeError: LoopOutlineOp.__init__() missing 1 required positional argument: 'target' [built: 0]
        refused(lambda t: loop.LoopOutlineOp(any_op, t, func_name="f"))
        # CHECK: TypeError: LoopOutlineOp: call_type must be a Type, got BlockArgument [built: 0]
        refused(lambda t: loop.LoopOutlineOp(any_op, t, t, func_name="f"))
        # CHECK: TypeError: LoopPeelOp: peel_front must be a bool or a BoolAttr, got int [built: 0]
        refused(lambda t: loop.LoopPeelOp(any_op, any_op, t, peel_front=1))
        # CHECK: TypeError: LoopPeelOp: target must be a handle (a Value or a one-result op), got str [built: 0]
        refused(lambda t: loop.LoopPeelOp(any_op, any_op, "loop"))
        # CHECK: TypeError: LoopPipelineOp: read_latency must be an int or an IntegerAttr, got float [built: 0]
        refused(lambda t: loop.LoopPipelineOp(any_op, t, read_latency=2.5))
        # CHECK: TypeError: LoopUnrollOp: missing factor (the unroll factor) [built: 0]
        refused(lambda t: loop.LoopUnrollOp(t))
        # CHECK: ValueError: LoopUnrollOp: factor must be >= 1, got 0 [built: 0]
        refused(lambda t: loop.LoopUnrollOp(t, factor=0))
        # CHECK: TypeError: LoopUnrollOp: factor must be an int or an IntegerAttr, got bool [built: 0]
        refused(lambda t: loop.LoopUnrollOp(t, factor=True))
        # The bound holds for an IntegerAttr too.
        # CHECK: ValueError: LoopUnrollOp: factor must be >= 1, got -3 [built: 0]
        refused(lambda t: loop.LoopUnrollOp(
            t, factor=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), -3)))


LOOPS_PAYLOAD = """
module {
  func.func @peel(%buffer: memref<10xf32>) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c10 = arith.constant 10 : index
    scf.for %i = %c0 to %c10 step %c4 {
      %v = memref.load %buffer[%i] : memref<10xf32>
      memref.store %v, %buffer[%i] {tag = "store"} : memref<10xf32>
    } {tag = "peeled"}
    return
  }
  func.func @outline(%buffer: memref<8xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    scf.for %i = %c0 to %c8 step %c1 {
      %v = memref.load %buffer[%i] : memref<8xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %buffer[%i] : memref<8xf32>
    } {tag = "outlined"}
    return
  }
}
"""


# CHECK-LABEL: TEST: test_loop_builders_run
@run
def test_loop_builders_run():
    # Peel one loop and outline the other, with the builders' scripts run
    # by the tracked interpreter; the handles it yields come back.
    from mlir_tracking.dialects.transform import loop

    with ir.Context(), ir.Location.unknown():
        any_op = transform.AnyOpType.get()
        for_type = transform.OperationType.get("scf.for")
        module = script_module()
        with ir.InsertionPoint(module.body):
            entry = transform.NamedSequenceOp(
                "__transform_main", [any_op], [for_type, for_type, any_op,
                                               any_op],
                arg_attrs=[{"transform.consumed": ir.UnitAttr.get()}])
            with ir.InsertionPoint(entry.body):
                loops = structured.MatchOp.match_op_names(entry.bodyTarget,
                                                          ["scf.for"])
                first, second = transform.SplitHandleOp([for_type, for_type],
                                                        loops).results
                peel = loop.LoopPeelOp(for_type, for_type, first)
                outline = loop.LoopOutlineOp(any_op, any_op, second,
                                             func_name="outlined_body")
                transform.YieldOp([*peel.results, *outline.results])
        # CHECK: verifies: True
        print("verifies:", module.operation.verify())
        payload = ir.Module.parse(LOOPS_PAYLOAD)
        (peeled,) = find(payload.operation, "scf.for", "peeled")
        (outlined,) = find(payload.operation, "scf.for", "outlined")
        (main,), (rest,), (func,), (call,) = interpreter.apply_named_sequence(
            payload, entry, module)
        # CHECK: peeled: scf.for scf.for live live
        print("peeled:", main.name, rest.name, main.handle_state,
              rest.handle_state)
        # The loop was consumed by the peel: its handle is invalidated, as
        # the transform dialect says of consumed payload.
        # CHECK: held loop: invalidated consumed: True
        print("held loop:", peeled.handle_state, "consumed:",
              "consumed by 'transform.loop.peel'" in peeled.handle_history[-1])
        # CHECK: loops in @peel: 2, remainder after main: True
        peel_func = payload.body.operations[0]
        print("loops in @peel:", len(find(peel_func, "scf.for")),
              end=", remainder after main: ")
        print(rest.parent == main.parent and
              main.operation.is_before_in_block(rest.operation))
        # CHECK: outlined: func.func @outlined_body, called by func.call
        print(f"outlined: {func.name} @{func.attributes['sym_name'].value}, "
              f"called by {call.name}")
        # CHECK: old loop: erased
        print("old loop:", outlined.handle_state)
        # CHECK: calls: 1 stores: 2
        print("calls:", str(payload).count("call @outlined_body"),
              "stores:", len(find(payload.operation, "memref.store", "store")))


# CHECK-LABEL: TEST: test_tensor_memref_builders
@run
def test_tensor_memref_builders():
    from mlir_tracking.dialects.transform import memref, tensor

    with ir.Context(), ir.Location.unknown():
        any_op = transform.AnyOpType.get()
        pad_type = transform.OperationType.get("tensor.pad")
        alloc_type = transform.OperationType.get("memref.alloc")
        alloca_type = transform.OperationType.get("memref.alloca")

        def build(root):
            def target(name, handle_type):
                return structured.MatchOp.match_op_names(handle_type, root,
                                                         name)

            tensor.MakeLoopIndependentOp(target("tensor.pad", pad_type), 1)
            tensor.MakeLoopIndependentOp(
                pad_type, target("tensor.pad", pad_type), 2)
            memref.MemRefAllocaToGlobalOp(target("memref.alloca", alloca_type))
            memref.MemRefAllocaToGlobalOp(
                transform.OperationType.get("memref.get_global"),
                transform.OperationType.get("memref.global"),
                target("memref.alloca", alloca_type))
            memref.MemRefMultiBufferOp(target("memref.alloc", alloc_type), 4)
            memref.MemRefMultiBufferOp(
                alloc_type, target("memref.alloc", alloc_type), 2)
            memref.MemRefMultiBufferOp(target("memref.alloc", alloc_type),
                                       ir.IntegerAttr.get(
                                           ir.IntegerType.get_signless(64), 3),
                                       skip_analysis=True)

        module = in_sequence(build)
        # CHECK: %[[P:.*]] = transform.structured.match ops{["tensor.pad"]}
        # CHECK: %{{.*}} = transform.tensor.make_loop_independent %[[P]] {num_loops = 1 : i64} : (!transform.op<"tensor.pad">) -> !transform.any_op
        # CHECK: %[[P:.*]] = transform.structured.match ops{["tensor.pad"]}
        # CHECK: %{{.*}} = transform.tensor.make_loop_independent %[[P]] {num_loops = 2 : i64} : (!transform.op<"tensor.pad">) -> !transform.op<"tensor.pad">
        # CHECK: %[[A:.*]] = transform.structured.match ops{["memref.alloca"]}
        # CHECK: %{{.*}}, %{{.*}} = transform.memref.alloca_to_global %[[A]] : (!transform.op<"memref.alloca">) -> (!transform.any_op, !transform.any_op)
        # CHECK: %[[A:.*]] = transform.structured.match ops{["memref.alloca"]}
        # CHECK: %{{.*}}, %{{.*}} = transform.memref.alloca_to_global %[[A]] : (!transform.op<"memref.alloca">) -> (!transform.op<"memref.get_global">, !transform.op<"memref.global">)
        # CHECK: %[[A:.*]] = transform.structured.match ops{["memref.alloc"]}
        # CHECK: %{{.*}} = transform.memref.multibuffer %[[A]] {factor = 4 : i64} : (!transform.op<"memref.alloc">) -> !transform.any_op
        # CHECK: %[[A:.*]] = transform.structured.match ops{["memref.alloc"]}
        # CHECK: %{{.*}} = transform.memref.multibuffer %[[A]] {factor = 2 : i64} : (!transform.op<"memref.alloc">) -> !transform.op<"memref.alloc">
        # CHECK: %[[A:.*]] = transform.structured.match ops{["memref.alloc"]}
        # CHECK: %{{.*}} = transform.memref.multibuffer %[[A]] {factor = 3 : i64, skip_analysis} : (!transform.op<"memref.alloc">) -> !transform.any_op
        # CHECK: verifies: True
        print("verifies:", module.operation.verify())

        # CHECK: TypeError: MakeLoopIndependentOp: missing num_loops [built: 0]
        refused(lambda t: tensor.MakeLoopIndependentOp(t))
        # CHECK: TypeError: MakeLoopIndependentOp: missing num_loops [built: 0]
        refused(lambda t: tensor.MakeLoopIndependentOp(any_op, t))
        # CHECK: TypeError: MakeLoopIndependentOp: num_loops must be an int or an IntegerAttr, got BlockArgument [built: 0]
        refused(lambda t: tensor.MakeLoopIndependentOp(t, t))
        # CHECK: TypeError: MakeLoopIndependentOp: missing the target handle [built: 0]
        refused(lambda t: tensor.MakeLoopIndependentOp(any_op))
        # CHECK: TypeError: MemRefAllocaToGlobalOp: give all 2 result Types or none of them [built: 0]
        refused(lambda t: memref.MemRefAllocaToGlobalOp(any_op, t))
        # CHECK: TypeError: MemRefAllocaToGlobalOp: too many positional arguments (the target, then nothing) [built: 0]
        refused(lambda t: memref.MemRefAllocaToGlobalOp(t, t))
        # CHECK: TypeError: MemRefAllocaToGlobalOp: target must be a handle (a Value or a one-result op), got int [built: 0]
        refused(lambda t: memref.MemRefAllocaToGlobalOp(7))
        # CHECK: TypeError: MemRefMultiBufferOp: missing factor (the number of buffers) [built: 0]
        refused(lambda t: memref.MemRefMultiBufferOp(t))
        # CHECK: ValueError: MemRefMultiBufferOp: factor must be >= 1, got 0 [built: 0]
        refused(lambda t: memref.MemRefMultiBufferOp(any_op, t, 0))
        # CHECK: TypeError: MemRefMultiBufferOp: skip_analysis must be a bool, got str [built: 0]
        refused(lambda t: memref.MemRefMultiBufferOp(t, 2, skip_analysis="no"))


MEMREF_PAYLOAD = """
module {
  func.func @multi_buffer(%in: memref<16xf32>) {
    %tmp = memref.alloc() {tag = "tmp"} : memref<4xf32>
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    scf.for %i = %c0 to %c16 step %c4 {
      %part = memref.subview %in[%i] [4] [1]
          : memref<16xf32> to memref<4xf32, strided<[1], offset: ?>>
      memref.copy %part, %tmp
          : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32>
      %v = memref.load %tmp[%c0] : memref<4xf32>
      memref.store %v, %in[%i] : memref<16xf32>
    }
    return
  }
  func.func @scratch() -> f32 {
    %c0 = arith.constant 0 : index
    %a = memref.alloca() {tag = "scratch"} : memref<2xf32>
    %v = memref.load %a[%c0] : memref<2xf32>
    return %v : f32
  }
}
"""


# CHECK-LABEL: TEST: test_memref_builders_run
@run
def test_memref_builders_run():
    # multibuffer of the loop's buffer (two rotating copies) and
    # alloca_to_global of the scratch buffer, by the tracked interpreter.
    from mlir_tracking.dialects.transform import memref

    with ir.Context(), ir.Location.unknown():
        any_op = transform.AnyOpType.get()
        alloc_type = transform.OperationType.get("memref.alloc")
        alloca_type = transform.OperationType.get("memref.alloca")
        module = script_module()
        with ir.InsertionPoint(module.body):
            entry = transform.NamedSequenceOp(
                "__transform_main", [any_op], [any_op] * 3,
                arg_attrs=[{"transform.readonly": ir.UnitAttr.get()}])
            with ir.InsertionPoint(entry.body):
                allocs = structured.MatchOp.match_op_names(
                    alloc_type, entry.bodyTarget, "memref.alloc")
                allocas = structured.MatchOp.match_op_names(
                    alloca_type, entry.bodyTarget, "memref.alloca")
                buffers = memref.MemRefMultiBufferOp(allocs, 2)
                to_global = memref.MemRefAllocaToGlobalOp(allocas)
                transform.YieldOp([buffers, *to_global.results])
        # CHECK: verifies: True
        print("verifies:", module.operation.verify())
        payload = ir.Module.parse(MEMREF_PAYLOAD)
        (tmp,) = find(payload.operation, "memref.alloc", "tmp")
        (scratch,) = find(payload.operation, "memref.alloca", "scratch")
        (buffer,), (get_global,), (global_,) = \
            interpreter.apply_named_sequence(payload, entry, module)
        # CHECK: multibuffered: memref.alloc memref<2x4xf32> live
        print("multibuffered:", buffer.name, buffer.results[0].type,
              buffer.handle_state)
        # The old buffer was replaced (and its handle consumed).
        # CHECK: held alloc: erased
        print("held alloc:", tmp.handle_state)
        # CHECK: to global: memref.get_global memref.global live live
        print("to global:", get_global.name, global_.name,
              get_global.handle_state, global_.handle_state)
        # CHECK: global at module level: True, refers to it: True
        print("global at module level:", global_.parent == payload.operation,
              end=", refers to it: ")
        print(str(get_global.attributes["name"])
              == "@" + global_.attributes["sym_name"].value)
        # CHECK: held alloca: erased
        print("held alloca:", scratch.handle_state)


# CHECK-LABEL: TEST: test_bufferization_gpu_builders
@run
def test_bufferization_gpu_builders():
    from mlir_tracking.dialects.transform import bufferization, gpu

    with ir.Context(), ir.Location.unknown():
        any_op = transform.AnyOpType.get()
        empty_type = transform.OperationType.get("tensor.empty")
        dummy = transform.OperationType.get("test.dummy")

        def build(root):
            def empties():
                return structured.MatchOp.match_op_names(empty_type, root,
                                                         "tensor.empty")

            def funcs():
                return structured.MatchOp.match_op_names(root, "func.func")

            bufferization.EmptyTensorToAllocTensorOp(empties())
            bufferization.EmptyTensorToAllocTensorOp(
                transform.OperationType.get("bufferization.alloc_tensor"),
                empties())
            bufferization.OneShotBufferizeOp(funcs())
            bufferization.OneShotBufferizeOp(dummy, funcs())
            bufferization.OneShotBufferizeOp(
                funcs(), allow_return_allocs_from_loops=True,
                allow_unknown_ops=True, bufferize_function_boundaries=True,
                function_boundary_type_conversion=(
                    bufferization.LayoutMapOption.IdentityLayoutMap),
                memcpy_op="linalg.copy", print_conflicts=True,
                test_analysis_only=True)
            gpu.MapForallToBlocks(funcs())
            gpu.MapForallToBlocks(dummy, funcs())
            gpu.MapForallToBlocks(funcs(), grid_dims=[4, 2, 1],
                                  generate_gpu_launch=True)
            gpu.MapNestedForallToThreads(funcs())
            gpu.MapNestedForallToThreads(dummy, funcs())
            gpu.MapNestedForallToThreads(funcs(), block_dims=[4, 2, 1],
                                         warp_size=64,
                                         sync_after_distribute=False)
            # The compact form's result has the target's type.
            gpu.MapNestedForallToThreads(structured.MatchOp.match_op_names(
                transform.OperationType.get("gpu.launch"), root,
                "gpu.launch"))

        module = in_sequence(build)
        # CHECK: %[[E:.*]] = transform.structured.match ops{["tensor.empty"]}
        # CHECK: %{{.*}} = transform.bufferization.empty_tensor_to_alloc_tensor %[[E]] : (!transform.op<"tensor.empty">) -> !transform.op<"bufferization.alloc_tensor">
        # CHECK: %[[E:.*]] = transform.structured.match ops{["tensor.empty"]}
        # CHECK: %{{.*}} = transform.bufferization.empty_tensor_to_alloc_tensor %[[E]] : (!transform.op<"tensor.empty">) -> !transform.op<"bufferization.alloc_tensor">
        # CHECK: %[[F:.*]] = transform.structured.match ops{["func.func"]}
        # CHECK: %{{.*}} = transform.bufferization.one_shot_bufferize %[[F]] : (!transform.any_op) -> !transform.any_op
        # CHECK: %[[F:.*]] = transform.structured.match ops{["func.func"]}
        # CHECK: %{{.*}} = transform.bufferization.one_shot_bufferize %[[F]] : (!transform.any_op) -> !transform.op<"test.dummy">
        # CHECK: %[[F:.*]] = transform.structured.match ops{["func.func"]}
        # CHECK: %{{.*}} = transform.bufferization.one_shot_bufferize layout{IdentityLayoutMap} %[[F]] {allow_return_allocs_from_loops = true, allow_unknown_ops = true, bufferize_function_boundaries = true, memcpy_op = "linalg.copy", print_conflicts = true, test_analysis_only = true} : (!transform.any_op) -> !transform.any_op
        # CHECK: %[[F:.*]] = transform.structured.match ops{["func.func"]}
        # CHECK: %{{.*}} = transform.gpu.map_forall_to_blocks %[[F]] : (!transform.any_op) -> !transform.any_op
        # CHECK: %[[F:.*]] = transform.structured.match ops{["func.func"]}
        # CHECK: %{{.*}} = transform.gpu.map_forall_to_blocks %[[F]] : (!transform.any_op) -> !transform.op<"test.dummy">
        # CHECK: %[[F:.*]] = transform.structured.match ops{["func.func"]}
        # CHECK: %{{.*}} = transform.gpu.map_forall_to_blocks %[[F]] generate_gpu_launch grid_dims = [4, 2, 1] : (!transform.any_op) -> !transform.any_op
        # CHECK: %[[F:.*]] = transform.structured.match ops{["func.func"]}
        # CHECK: %{{.*}} = transform.gpu.map_nested_forall_to_threads %[[F]] block_dims = [] : (!transform.any_op) -> !transform.any_op
        # CHECK: %[[F:.*]] = transform.structured.match ops{["func.func"]}
        # CHECK: %{{.*}} = transform.gpu.map_nested_forall_to_threads %[[F]] block_dims = [] : (!transform.any_op) -> !transform.op<"test.dummy">
        # CHECK: %[[F:.*]] = transform.structured.match ops{["func.func"]}
        # CHECK: %{{.*}} = transform.gpu.map_nested_forall_to_threads %[[F]] block_dims = [4, 2, 1] sync_after_distribute = false warp_size = 64 : (!transform.any_op) -> !transform.any_op
        # CHECK: %[[L:.*]] = transform.structured.match ops{["gpu.launch"]}
        # CHECK: %{{.*}} = transform.gpu.map_nested_forall_to_threads %[[L]] block_dims = [] : (!transform.op<"gpu.launch">) -> !transform.op<"gpu.launch">
        # CHECK: verifies: True
        print("verifies:", module.operation.verify())

        # CHECK: TypeError: EmptyTensorToAllocTensorOp: missing the target handle [built: 0]
        refused(lambda t: bufferization.EmptyTensorToAllocTensorOp(any_op))
        # CHECK: TypeError: EmptyTensorToAllocTensorOp: too many positional arguments (the target, then nothing) [built: 0]
        refused(lambda t: bufferization.EmptyTensorToAllocTensorOp(t, t))
        # CHECK: TypeError: OneShotBufferizeOp: allow_unknown_ops must be a bool or a BoolAttr, got str [built: 0]
        refused(lambda t: bufferization.OneShotBufferizeOp(
            t, allow_unknown_ops="yes"))
        # CHECK: TypeError: OneShotBufferizeOp: function_boundary_type_conversion must be a LayoutMapOption, got str [built: 0]
        refused(lambda t: bufferization.OneShotBufferizeOp(
            t, function_boundary_type_conversion="IdentityLayoutMap"))
        # CHECK: TypeError: OneShotBufferizeOp: memcpy_op must be a str or a StringAttr, got int [built: 0]
        refused(lambda t: bufferization.OneShotBufferizeOp(t, memcpy_op=1))
        # CHECK: TypeError: MapForallToBlocks: grid_dims must be a sequence of ints or an Attribute, got 'x' [built: 0]
        refused(lambda t: gpu.MapForallToBlocks(t, grid_dims="x"))
        # CHECK: TypeError: MapForallToBlocks: grid_dims must be a sequence of ints or an Attribute, got 4 [built: 0]
        refused(lambda t: gpu.MapForallToBlocks(t, grid_dims=4))
        # CHECK: TypeError: MapForallToBlocks: generate_gpu_launch must be a bool, got int [built: 0]
        refused(lambda t: gpu.MapForallToBlocks(t, generate_gpu_launch=1))
        # CHECK: TypeError: MapNestedForallToThreads: block_dims must be a sequence of ints or an Attribute, got [4, 'y'] [built: 0]
        refused(lambda t: gpu.MapNestedForallToThreads(t, block_dims=[4, "y"]))
        # CHECK: ValueError: MapNestedForallToThreads: warp_size must be >= 1, got 0 [built: 0]
        refused(lambda t: gpu.MapNestedForallToThreads(t, warp_size=0))
        # CHECK: TypeError: MapNestedForallToThreads: missing the target handle [built: 0]
        refused(lambda t: gpu.MapNestedForallToThreads(any_op))


BUFFERIZATION_PAYLOAD = """
module {
  func.func @fill(%t: tensor<4xf32>) -> tensor<4xf32> {
    %c0 = arith.constant 0 : index
    %f = arith.constant 1.0 : f32
    %e = tensor.empty() {tag = "empty"} : tensor<4xf32>
    %v = tensor.extract %t[%c0] : tensor<4xf32>
    %s = arith.addf %v, %f : f32
    %r = tensor.insert %s into %e[%c0] : tensor<4xf32>
    return {tag = "ret"} %r : tensor<4xf32>
  }
}
"""


# CHECK-LABEL: TEST: test_bufferization_builders_run
@run
def test_bufferization_builders_run():
    # tensor.empty -> bufferization.alloc_tensor, then one-shot
    # bufferization of the whole module (function boundaries included).
    from mlir_tracking.dialects.transform import bufferization

    with ir.Context(), ir.Location.unknown():
        any_op = transform.AnyOpType.get()
        module = script_module()
        with ir.InsertionPoint(module.body):
            entry = transform.NamedSequenceOp(
                "__transform_main", [any_op], [any_op, any_op],
                arg_attrs=[{"transform.consumed": ir.UnitAttr.get()}])
            with ir.InsertionPoint(entry.body):
                empties = structured.MatchOp.match_op_names(
                    transform.OperationType.get("tensor.empty"),
                    entry.bodyTarget, "tensor.empty")
                bufferization.EmptyTensorToAllocTensorOp(empties)
                bufferized = bufferization.OneShotBufferizeOp(
                    entry.bodyTarget, bufferize_function_boundaries=True,
                    function_boundary_type_conversion=(
                        bufferization.LayoutMapOption.IdentityLayoutMap))
                funcs = structured.MatchOp.match_op_names(bufferized,
                                                          "func.func")
                allocated = structured.MatchOp.match_op_names(
                    bufferized, "memref.alloc")
                transform.YieldOp([funcs, allocated])
        # CHECK: verifies: True
        print("verifies:", module.operation.verify())
        payload = ir.Module.parse(BUFFERIZATION_PAYLOAD)
        (empty,) = find(payload.operation, "tensor.empty", "empty")
        (ret,) = find(payload.operation, "func.return", "ret")
        (func,), (alloc,) = interpreter.apply_named_sequence(
            payload, entry, module)
        # CHECK: function: (memref<4xf32>) -> memref<4xf32>
        print("function:", func.attributes["function_type"].value)
        # The alloc_tensor became a memref.alloc.
        # CHECK: alloc: memref.alloc memref<4xf32> live
        print("alloc:", alloc.name, alloc.results[0].type,
              alloc.handle_state)
        # CHECK: held: tensor.empty erased
        print("held: tensor.empty", empty.handle_state)
        # CHECK: no tensors left: True
        print("no tensors left:", "tensor<" not in str(payload))


GPU_PAYLOAD = """
module {
  func.func @saxpy(%x: memref<32xf32>, %y: memref<32xf32>, %a: f32) {
    scf.forall (%b) in (4) {
      scf.forall (%t) in (8) {
        %c8 = arith.constant 8 : index
        %o = arith.muli %b, %c8 : index
        %i = arith.addi %o, %t : index
        %xv = memref.load %x[%i] : memref<32xf32>
        %yv = memref.load %y[%i] : memref<32xf32>
        %m = arith.mulf %a, %xv : f32
        %s = arith.addf %m, %yv : f32
        memref.store %s, %y[%i] {tag = "store"} : memref<32xf32>
      } {mapping = [#gpu.thread<x>]}
    } {mapping = [#gpu.block<x>]}
    return
  }
}
"""


# CHECK-LABEL: TEST: test_gpu_builders_run
@run
def test_gpu_builders_run():
    # The compact forms chained: blocks (with a new gpu.launch), then the
    # threads of the launch the first one returns.
    from mlir_tracking.dialects.transform import gpu

    with ir.Context(), ir.Location.unknown():
        any_op = transform.AnyOpType.get()

        def body(entry):
            funcs = structured.MatchOp.match_op_names(entry.bodyTarget,
                                                      "func.func")
            launch = gpu.MapForallToBlocks(funcs, generate_gpu_launch=True)
            threads = gpu.MapNestedForallToThreads(launch,
                                                   block_dims=[8, 1, 1])
            transform.AnnotateOp(threads, "mapped")

        script, entry = named_script(
            body, arg_attrs=[{"transform.readonly": ir.UnitAttr.get()}])
        # CHECK: verifies: True
        print("verifies:", script.operation.verify())
        payload = ir.Module.parse(GPU_PAYLOAD)
        (store,) = find(payload.operation, "memref.store", "store")
        interpreter.apply_named_sequence(payload, entry, script)
        (launch,) = find(payload.operation, "gpu.launch")
        # CHECK: launch: mapped True, foralls left: 0
        print("launch: mapped", "mapped" in launch.attributes,
              end=", foralls left: ")
        print(len(find(payload.operation, "scf.forall")))
        # The forall bodies were rebuilt in the launch: the held store's
        # handle says so (erased by the consuming op), and a copy of it,
        # tag included, is in the launch.
        # CHECK: store: erased by map_forall_to_blocks: True, copy in launch: 1
        print("store:", store.handle_state, "by map_forall_to_blocks:",
              "'transform.gpu.map_forall_to_blocks'" in store.handle_history[-1],
              end=", copy in launch: ")
        print(len(find(launch, "memref.store", "store")))
        # CHECK: thread ids: 3 block ids: 3
        print("thread ids:", len(find(launch, "gpu.thread_id")),
              "block ids:", len(find(launch, "gpu.block_id")))
