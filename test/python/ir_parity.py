# RUN: %PYTHON %s | FileCheck %s
# Behaviour that code written against upstream `mlir.ir` relies on: walk
# callback errors, value casters, live-object counts, insertion point errors,
# dense resources, sliced lists, the attribute map as a Mapping, and classes
# that cannot be instantiated without __init__.

import array
import collections.abc
import copy
import gc
import io

from mlir_tracking import ir, passmanager, rewrite


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    return f


SOURCE = """
func.func @f(%a: i32, %b: i64, %c: index) -> i32 {
  %0:3 = "test.three"(%a, %b, %c) : (i32, i64, index) -> (i32, i64, index)
  %1 = "test.use"(%0#0, %0#1, %0#2, %a, %b) {z = 1 : i8, a = "s"} : (i32, i64, index, i32, i64) -> i32
  return %1 : i32
}
"""


def parse(ctx):
    ctx.allow_unregistered_dialects = True
    return ir.Module.parse(SOURCE)


def ops_of(module):
    return list(module.body.operations[0].regions[0].blocks[0].operations)


# CHECK-LABEL: TEST: test_walk_callback_error
@run
def test_walk_callback_error():
    with ir.Context() as ctx:
        module = parse(ctx)
        seen = []

        def boom(op):
            seen.append(op.name)
            if op.name == "test.use":
                raise ValueError("boom")

        try:
            module.operation.walk(boom)
        except RuntimeError as e:
            # Upstream's error type and message; the original is the cause.
            # CHECK: RuntimeError: Exception raised in callback: ValueError: boom
            print(type(e).__name__ + ":", e)
            # CHECK-NEXT: ValueError boom
            print(type(e.__cause__).__name__, e.__cause__)
        # The walk stopped at the failing op; the IR is untouched.
        # CHECK-NEXT: ['test.three', 'test.use'] True
        print(seen, module.operation.verify())

        def interrupt(op):
            raise KeyboardInterrupt

        try:
            module.operation.walk(interrupt)
        except KeyboardInterrupt:
            # Not an Exception: propagates unchanged.
            # CHECK-NEXT: KeyboardInterrupt
            print("KeyboardInterrupt")

        def bad_table(op, visible):
            raise KeyError("nope")

        try:
            ir.SymbolTable.walk_symbol_tables(module.operation, True, bad_table)
        except RuntimeError as e:
            # CHECK-NEXT: Exception raised in callback: KeyError: 'nope'
            print(e)


# CHECK-LABEL: TEST: test_live_object_counts
@run
def test_live_object_counts():
    with ir.Context() as ctx:
        module = parse(ctx)
        other = ir.Module.parse("module {}")
        # CHECK: modules: 2
        print("modules:", ctx._get_live_module_count())
        use = ops_of(module)[1]
        objects = ctx._get_live_operation_objects()
        # CHECK-NEXT: True True
        print(any(o is use.operation for o in objects),
              all(isinstance(o, ir.Operation) for o in objects))
        del other
        gc.collect()
        # CHECK-NEXT: modules: 1
        print("modules:", ctx._get_live_module_count())
        # An erased handle stays an object until dropped.
        ret = ops_of(module)[2].operation
        ret.erase()
        # CHECK-NEXT: erased True
        print(ret.handle_state, any(o is ret for o in ctx._get_live_operation_objects()))


# CHECK-LABEL: TEST: test_insertion_point_errors
@run
def test_insertion_point_errors():
    with ir.Context() as ctx, ir.Location.unknown():
        module = parse(ctx)
        block = module.body.operations[0].regions[0].blocks[0]
        try:
            ir.InsertionPoint.current
        except ValueError as e:
            # CHECK: No current InsertionPoint
            print(e)
        before = str(module)
        try:
            ir.InsertionPoint(block).insert(ir.Operation.create("test.after"))
        except IndexError as e:
            # CHECK-NEXT: Cannot insert operation at the end of a block that already has a terminator. Did you mean to use 'InsertionPoint.at_block_terminator(block)' versus 'InsertionPoint(block)'?
            print(e)
        # CHECK-NEXT: unchanged True
        print("unchanged", str(module) == before)
        # Before the terminator is fine.
        ir.InsertionPoint.at_block_terminator(block).insert(
            ir.Operation.create("test.before_return"))
        # CHECK-NEXT: test.before_return func.return
        print(*[op.name for op in ops_of(module)[-2:]])
        # A block without terminator: at_block_terminator refuses, the end
        # of the block is fine.
        holder = ir.Operation.create("test.holder", regions=1)
        empty = holder.regions[0].blocks.append()
        try:
            ir.InsertionPoint.at_block_terminator(empty)
        except ValueError as e:
            # CHECK-NEXT: Block has no terminator
            print(e)
        ir.InsertionPoint(empty).insert(ir.Operation.create("test.inside"))
        # CHECK-NEXT: 1
        print(len(empty.operations))


# CHECK-LABEL: TEST: test_dense_resource
@run
def test_dense_resource():
    backing = bytearray(array.array("i", [1, 2, 3, 4]).tobytes())
    ctx = ir.Context()
    with ctx, ir.Location.unknown():
        i32 = ir.IntegerType.get_signless(32)
        tensor = ir.RankedTensorType.get([2, 2], i32)
        attr = ir.DenseResourceElementsAttr.get_from_buffer(
            memoryview(backing).cast("i"), "from_python", tensor)
        # CHECK: DenseResourceElementsAttr(dense_resource<from_python> : tensor<2x2xi32>)
        print(repr(attr))
        module = ir.Module.parse("module {}")
        module.operation.attributes["test.resource"] = attr
        # The resource section prints the buffer (alignment, then the data).
        # CHECK: test.resource = dense_resource<from_python> : tensor<2x2xi32>
        # CHECK: from_python: "0x0400000001000000020000000300000004000000"
        print(module)
        # Casting and downcasting.
        generic = module.operation.attributes["test.resource"]
        # CHECK: DenseResourceElementsAttr True
        print(type(generic).__name__,
              ir.DenseResourceElementsAttr.isinstance(ir.Attribute(generic)))
        try:
            ir.DenseResourceElementsAttr(ir.UnitAttr.get())
        except ValueError as e:
            # CHECK-NEXT: Cannot cast attribute to DenseResourceElementsAttr
            print(e)
        for bad in (array.array("i", [1, 2, 3]), array.array("b", [1] * 4)):
            try:
                ir.DenseResourceElementsAttr.get_from_buffer(bad, "bad", tensor)
            except ValueError as e:
                # CHECK-NEXT: the buffer has 12 bytes, tensor<2x2xi32> needs 16
                # CHECK-NEXT: the buffer has 4 bytes, tensor<2x2xi32> needs 16
                print(e)
        try:
            ir.DenseResourceElementsAttr.get_from_buffer(backing, "bad", i32)
        except ValueError as e:
            # CHECK-NEXT: must be a statically shaped type, got i32
            print(e)
        # The byte count of a type whose element count overflows wrapped
        # (2**62 x 4 bytes counted 0): an empty buffer was accepted and
        # folding read far outside it.
        huge = ir.RankedTensorType.get([1 << 62, 4], ir.IntegerType.get_signless(8))
        try:
            ir.DenseResourceElementsAttr.get_from_buffer(b"", "huge", huge)
        except ValueError as e:
            # CHECK-NEXT: the shape of tensor<4611686018427387904x4xi8> has too many elements
            print(e)
    # The attribute holds the buffer (a bytearray with an exported buffer
    # cannot be resized) until the context drops the resource.
    try:
        backing.extend(b"x")
    except BufferError:
        # CHECK-NEXT: buffer held
        print("buffer held")
    # Everything that holds the context goes; the context drops the blob.
    del attr, generic, module, ctx, i32, tensor, bad, huge
    gc.collect()
    backing.extend(b"x")
    # CHECK-NEXT: buffer released 17
    print("buffer released", len(backing))


# CHECK-LABEL: TEST: test_slices
@run
def test_slices():
    with ir.Context() as ctx:
        module = parse(ctx)
        three, use, ret = ops_of(module)
        results = three.results
        tail = results[1:]
        # A slice is a view of the same class, as upstream.
        # CHECK: OpResultList 2 [1, 2] ['i64', 'index']
        print(type(tail).__name__, len(tail), [r.result_number for r in tail],
              [str(t) for t in tail.types])
        # CHECK-NEXT: [2, 1] [2] [0, 1, 2]
        print([r.result_number for r in results[-1:0:-1]],
              [r.result_number for r in results[::2][1:]],
              [r.result_number for r in results[::-1][::-1]])
        # CHECK-NEXT: True True
        print(results[-1] == results[2], tail[-1] == results[2])
        try:
            tail[2]
        except IndexError as e:
            # CHECK-NEXT: index out of range
            print(e)
        args = module.body.operations[0].regions[0].blocks[0].arguments
        # CHECK-NEXT: BlockArgumentList ['i64', 'index']
        print(type(args[1:]).__name__, [str(t) for t in args[1:].types])
        # Concatenation gives a list.
        joined = args[-1:] + args[:1]
        # CHECK-NEXT: list [2, 0]
        print(type(joined).__name__, [a.arg_number for a in joined])
        operands = use.operands
        odd = operands[1::2]
        # CHECK-NEXT: OpOperandList 2
        print(type(odd).__name__, len(odd))
        # Setting through a view sets the operand it shows.
        odd[1] = args[1]
        # CHECK-NEXT: "test.use"(%0#0, %0#1, %0#2, %arg1, %arg1)
        print(str(use).split(" {")[0])
        # CHECK-NEXT: RegionSequence 0
        print(type(use.regions[1:]).__name__, len(use.regions[1:]))
        # The lists upstream does not slice as views give lists.
        # CHECK-NEXT: list 2
        print(type(module.body.operations[0].regions[0].blocks[0].operations[1:]).__name__,
              len(module.body.operations[0].regions[0].blocks[0].operations[1:]))
        # CHECK-NEXT: OpView
        print(type(results.owner).__name__)


# CHECK-LABEL: TEST: test_attribute_map_is_a_mapping
@run
def test_attribute_map_is_a_mapping():
    with ir.Context() as ctx:
        module = parse(ctx)
        use = ops_of(module)[1]
        attrs = use.attributes
        # CHECK: True ['a', 'z'] 2
        print(isinstance(attrs, collections.abc.Mapping), sorted(attrs), len(attrs))
        # CHECK-NEXT: {'a': '"s"', 'z': '1 : i8'}
        print({k: str(v) for k, v in sorted(dict(attrs).items())})
        match use:
            case ir.OpView(attributes={"z": ir.IntegerAttr(value=z), **rest}):
                # CHECK-NEXT: matched 1 ['a']
                print("matched", z, sorted(rest))
        for bad in (lambda: attrs.get(0), lambda: attrs.get([], None)):
            try:
                bad()
            except TypeError:
                # CHECK-NEXT: TypeError
                # CHECK-NEXT: TypeError
                print("TypeError")
        try:
            attrs[42]
        except IndexError:
            # CHECK-NEXT: IndexError
            print("IndexError")
        # CHECK-NEXT: NamedAttribute True
        print(type(attrs[0]).__name__, attrs.get("missing", 7) == 7)
        del attrs["a"]
        attrs["b"] = ir.UnitAttr.get()
        # CHECK-NEXT: ['b', 'z'] False
        print(sorted(attrs), "a" in attrs)


def all_classes():
    from mlir_tracking import _mlirTracking

    seen = []
    for module in (ir, rewrite, passmanager, _mlirTracking.ir, _mlirTracking.rewrite,
                   _mlirTracking.passmanager):
        for name in dir(module):
            value = getattr(module, name)
            if (isinstance(value, type) and value.__module__.startswith("mlir_tracking._mlirTracking")
                    and not issubclass(value, ir.OpView) and value not in seen):
                seen.append(value)
    return seen


# CHECK-LABEL: TEST: test_bare_new_refused
@run
def test_bare_new_refused():
    refused, made = 0, []
    for cls in all_classes():
        try:
            obj = cls.__new__(cls)
        except TypeError:
            refused += 1
            continue
        made.append(cls.__name__)
    # OpView (checked below) handles bare instances itself.
    # CHECK: refused: True made: []
    print("refused:", refused > 100, "made:", made)
    with ir.Context():
        try:
            ir.OpView.__new__(ir.OpView).operation
        except Exception as e:
            # CHECK-NEXT: TypeError
            print(type(e).__name__)
        module = ir.Module.parse("module {}")
        for obj in (module, module.operation, module.body, ir.IntegerType.get_signless(8)):
            try:
                copy.copy(obj)
            except TypeError:
                # CHECK-NEXT: copy refused
                # CHECK-NEXT: copy refused
                # CHECK-NEXT: copy refused
                # CHECK-NEXT: copy refused
                print("copy refused")

        # Python subclasses are constructed as usual.
        class MyInt(ir.IntegerType):
            pass

        mine = MyInt(ir.IntegerType.get_signless(8))
        # CHECK-NEXT: MyInt 8
        print(type(mine).__name__, mine.width)


# CHECK-LABEL: TEST: test_conversion_config
@run
def test_conversion_config():
    config = rewrite.ConversionConfig()
    # CHECK: <mlir_tracking.rewrite.ConversionConfig folding_mode=BEFORE_PATTERNS build_materializations=True allow_pattern_rollback=True>
    print(repr(config))
    config.folding_mode = rewrite.DialectConversionFoldingMode.NEVER
    config.build_materializations = False
    # CHECK-NEXT: DialectConversionFoldingMode.NEVER False
    print(config.folding_mode, config.build_materializations)
    with ir.Context():
        module = ir.Module.parse("""
func.func @f(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %x = arith.addi %a, %c0 : i32
  %m = arith.muli %x, %x : i32
  return %m : i32
}""")
        add, mul = ops_of(module)[1:3]

        def to_llvm(name):
            def convert(op, operands, converter, rewriter):
                with rewriter.ip:
                    new = ir.Operation.create(
                        name, results=[op.results[0].type], operands=operands,
                        loc=op.location)
                rewriter.replace_op(op, new)
            return convert

        converter = rewrite.TypeConverter()
        converter.add_conversion(lambda t: t)
        target = rewrite.ConversionTarget()
        target.add_legal_dialect("llvm")
        target.add_illegal_op("arith.addi", "arith.muli")
        patterns = rewrite.RewritePatternSet()
        patterns.add_conversion("arith.addi", to_llvm("llvm.add"), converter)
        patterns.add_conversion("arith.muli", to_llvm("llvm.mul"), converter)
        # With folding NEVER, addi %a, 0 is converted, not folded away.
        rewrite.apply_partial_conversion(module, target, patterns.freeze(), config)
        # CHECK-NEXT: llvm.add llvm.mul
        print(add.name, mul.name)
        assert ir.Context.current._verify_tracking() == []


# CHECK-LABEL: TEST: test_blocks_and_extras
@run
def test_blocks_and_extras():
    from mlir_tracking.extras import types as T

    with ir.Context() as ctx, ir.Location.unknown():
        ctx.allow_unregistered_dialects = True
        # CHECK: i32 si8 index tensor<4x?xf32> memref<8xi1> vector<2xf64> (i32) -> i64
        print(T.i32(), T.si8(), T.index(), T.tensor(4, T.dynamic(), T.f32()),
              T.memref(8, element_type=T.bool()), T.vector(2, T.f64()),
              T.function(inputs=[T.i32()], results=[T.i64()]))
        holder = ir.Operation.create("test.holder", regions=1)
        entry = holder.regions[0].blocks.append(T.i32())
        exit_block = entry.create_after(T.i64(), arg_locs=[ir.Location.name("x")])
        middle = exit_block.create_before()
        try:
            entry.create_after(T.i32(), T.i32(), arg_locs=[ir.Location.unknown()])
        except ValueError as e:
            # CHECK-NEXT: Expected 2 locations, got: 1
            print(e)
        with ir.InsertionPoint(entry):
            ir.Operation.create("test.br", successors=[middle])
        with ir.InsertionPoint(middle):
            ir.Operation.create("test.br", successors=[exit_block])
        blocks = list(holder.regions[0])
        # Iterating a region gives its blocks, a block its operations.
        # CHECK-NEXT: 3 True True
        print(len(blocks), blocks[1] == middle, [op.name for op in entry] == ["test.br"])
        # CHECK-NEXT: True True 0
        print(list(entry.successors) == [middle], list(middle.predecessors) == [entry],
              len(exit_block.successors))
        # An argument with uses cannot be erased (MLIR would assert).
        with ir.InsertionPoint(exit_block):
            ir.Operation.create("test.use", operands=[exit_block.arguments[0]])
        try:
            exit_block.erase_argument(0)
        except ValueError as e:
            # CHECK-NEXT: cannot erase argument 0 of the block: it still has uses
            print(e)
        entry.erase_argument(0)
        # CHECK-NEXT: 0
        print(len(entry.arguments))
        try:
            entry.erase_argument(0)
        except IndexError:
            # CHECK-NEXT: IndexError
            print("IndexError")
        # replace_uses_of_with
        a = ir.Operation.create("test.a", results=[T.i32()]).result
        b = ir.Operation.create("test.b", results=[T.i32()]).result
        user = ir.Operation.create("test.user", operands=[a, b, a])
        user.replace_uses_of_with(a, b)
        # CHECK-NEXT: 3
        print(sum(operand.same_value(b) for operand in user.operands))


# CHECK-LABEL: TEST: test_parse_print_successors
@run
def test_parse_print_successors():
    from mlir_tracking.dialects import builtin

    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        # Operation.parse returns the op's view, as upstream.
        # CHECK: ModuleOp OpView
        print(type(ir.Operation.parse("module {}")).__name__,
              type(ir.Operation.parse('"test.foo"() : () -> ()')).__name__)
        # CHECK-NEXT: ModuleOp
        print(type(builtin.ModuleOp.parse("module {}")).__name__)
        try:
            builtin.ModuleOp.parse('"test.foo"() : () -> ()')
        except ir.MLIRError as e:
            # CHECK-NEXT: Expected a 'builtin.module' op, got: 'test.foo'
            print(e)
        module = ir.Module.parse('''
          func.func @f(%c: i1) {
            %x = "test.named"() : () -> i32 loc("nom")
            cf.cond_br %c, ^a, ^b
          ^a:
            return
          ^b:
            return
          }
          "test.r"() {r = dense_resource<blob> : tensor<1xi32>} : () -> ()
          {-#
            dialect_resources: { builtin: { blob: "0x0800000001000000" } }
          #-}''')
        func = module.body.operations[0]
        branch = func.regions[0].blocks[0].operations[1]
        # CHECK-NEXT: 2 True
        print(len(branch.successors),
              branch.successors[1] == func.regions[0].blocks[2])
        # binary=True gives the same text as bytes (bytecode is
        # write_bytecode's).
        # CHECK-NEXT: True
        print(module.operation.get_asm(binary=True).decode() == str(module))
        # CHECK-NEXT: %nom = "test.named"
        print(func.get_asm(use_name_loc_as_prefix=True, use_local_scope=True).splitlines()[1].strip())
        # CHECK-NEXT: True False
        print('blob: "0x08' in module.operation.get_asm(),
              'blob: "0x08' in module.operation.get_asm(large_resource_limit=2))


# CHECK-LABEL: TEST: test_create_attribute_errors
@run
def test_create_attribute_errors():
    with ir.Context() as ctx, ir.Location.unknown():
        for attributes in ({None: ir.StringAttr.get("n")}, {42: ir.UnitAttr.get()},
                           {"some_key": ctx}, {"some_key": None}):
            try:
                ir.Operation.create("builtin.module", attributes=attributes)
            except ValueError as e:
                # CHECK: Invalid attribute key (not a string) when attempting to create the operation "builtin.module"
                # CHECK-NEXT: Invalid attribute key (not a string) when attempting to create the operation "builtin.module"
                # CHECK-NEXT: Invalid attribute value for the key "some_key" when attempting to create the operation "builtin.module"
                # CHECK-NEXT: Found an invalid (`None`?) attribute value for the key "some_key" when attempting to create the operation "builtin.module"
                print(e)


# CHECK-LABEL: TEST: test_dialect_search_prefix
@run
def test_dialect_search_prefix():
    import os
    import sys
    import tempfile

    from mlir_tracking import _cext

    # A package of the user's with a module for a dialect we ship none for.
    root = tempfile.mkdtemp()
    os.makedirs(os.path.join(root, "my_dialects"))
    open(os.path.join(root, "my_dialects", "__init__.py"), "w").close()
    with open(os.path.join(root, "my_dialects", "amx.py"), "w") as f:
        f.write("from mlir_tracking import _cext, ir\n"
                "@_cext.register_dialect\n"
                "class _Dialect(ir.Dialect):\n"
                "    DIALECT_NAMESPACE = 'amx'\n")
    sys.path.append(root)
    with ir.Context() as ctx:
        # No module for it under the built-in prefix, one for ub.
        # CHECK: False True
        print(_cext.globals._check_dialect_module_loaded("amx"),
              _cext.globals._check_dialect_module_loaded("ub"))
        # CHECK: Dialect
        print(type(ctx.dialects.amx).__name__)
        _cext.globals.append_dialect_search_prefix("my_dialects")
        # CHECK-NEXT: True True
        print(_cext.globals._check_dialect_module_loaded("amx"),
              "my_dialects.amx" in sys.modules)
        # CHECK-NEXT: ['mlir_tracking.dialects', 'my_dialects']
        print(_cext.globals.dialect_search_modules)
        # CHECK-NEXT: my_dialects.amx
        print(type(ctx.dialects.amx).__module__)
        # The built-in prefix still comes first.
        # CHECK-NEXT: mlir_tracking.dialects.
        print(type(ctx.dialects.ub).__module__[:23])


# CHECK-LABEL: TEST: test_registration_hooks
@run
def test_registration_hooks():
    # Upstream's hooks that register a class without the decorators.
    from mlir_tracking import _cext

    class Probe(ir.OpView):
        OPERATION_NAME = "probe.op"

    class Probe2(ir.OpView):
        OPERATION_NAME = "probe.op"

    class ProbeDialect(ir.Dialect):
        DIALECT_NAMESPACE = "probe"

    hooks = _cext.globals
    hooks._register_dialect_impl("probe", ProbeDialect)
    hooks._register_operation_impl("probe.op", Probe)
    # CHECK: ProbeDialect Probe
    print(hooks._get_dialect_class("probe").__name__,
          hooks._get_operation_class("probe.op").__name__)
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        module = ir.Module.parse('"probe.op"() : () -> ()')
        # CHECK-NEXT: Probe
        print(type(module.body.operations[0]).__name__)
        hooks._register_operation_impl("probe.op", Probe2, replace=True)
        # CHECK-NEXT: Probe2
        print(type(module.body.operations[0]).__name__)
    attempts = [
        lambda: hooks._register_dialect_impl("probe", ProbeDialect),
        lambda: hooks._register_operation_impl("probe.op", Probe),
        lambda: hooks._register_operation_impl("probe.other", int),
        lambda: hooks._register_dialect_impl("other", "not a class"),
    ]
    for attempt in attempts:
        try:
            attempt()
        except (RuntimeError, TypeError) as e:
            print(type(e).__name__ + ":", e)
    # CHECK-NEXT: RuntimeError: Dialect namespace 'probe' is already registered.
    # CHECK-NEXT: RuntimeError: Operation 'probe.op' is already registered.
    # CHECK-NEXT: TypeError: <class 'int'> is not a subclass of OpView
    # CHECK-NEXT: TypeError: 'not a class' is not a subclass of Dialect


# Last: the value caster registry is process-wide.
# CHECK-LABEL: TEST: test_value_casters
@run
def test_value_casters():
    class I32Result(ir.OpResult):
        def __str__(self):
            return "I32Result:" + super().__str__()

    class I32Arg(ir.BlockArgument):
        pass

    def cast_integer(value):
        if ir.OpResult.isinstance(value):
            return I32Result(value)
        if ir.BlockArgument.isinstance(value):
            return I32Arg(value)
        return value

    assert ir.register_value_caster(ir.IntegerType.static_typeid)(cast_integer) is cast_integer
    with ir.Context() as ctx:
        module = parse(ctx)
        three, use, ret = ops_of(module)
        args = module.body.operations[0].regions[0].blocks[0].arguments
        # Integer-typed values go through the caster; index ones do not.
        # CHECK: I32Result I32Result OpResult
        print(*[type(r).__name__ for r in three.results])
        # CHECK-NEXT: I32Arg I32Arg BlockArgument
        print(*[type(a).__name__ for a in args])
        # CHECK-NEXT: I32Result I32Result
        print(type(use.result).__name__, type(ret.operands[0]).__name__)
        # CHECK-NEXT: I32Result I32Result
        print(type(three.results[1:][0]).__name__, type(use.result.maybe_downcast()).__name__)
        # The cast value is the same tracked value.
        # CHECK-NEXT: True live
        print(three.results[0] == ir.Value(three.results[0]), three.results[0].handle_state)
        try:
            ir.register_value_caster(ir.IntegerType.static_typeid)(lambda v: v)
        except RuntimeError as e:
            # CHECK-NEXT: Value caster is already registered: <function test_value_casters.<locals>.cast_integer
            print(e)
        try:
            ir.OpResult(args[0])
        except ValueError as e:
            # CHECK-NEXT: Cannot cast value to OpResult (from
            print(e)
        ir.register_value_caster(ir.IntegerType.static_typeid, lambda v: v, replace=True)
        # CHECK-NEXT: OpResult
        print(type(three.results[0]).__name__)


# CHECK-LABEL: TEST: test_asm_state
@run
def test_asm_state():
    with ir.Context() as ctx:
        module = parse(ctx)
        three, use, ret = ops_of(module)
        func = module.body.operations[0]
        state = ir.AsmState(use.result)
        # CHECK: %0#1 %1 %arg2
        print(three.results[1].get_name(state), use.result.get_name(state),
              func.regions[0].blocks[0].arguments[2].get_name(state))
        local = ir.AsmState(func, use_local_scope=True)
        # CHECK-NEXT: %arg0 %1
        print(func.regions[0].blocks[0].arguments[0].get_name(local),
              use.result.get_name(local))
        # CHECK-NEXT: func.return %1 : i32
        ret.print(state)
        print()
        # The state numbers the IR when it is used: after an op before `use`
        # is erased (no stale names, no freed op read), %1 is %0.
        erased = ops_of(module)[0]
        three.results[0].replace_all_uses_with(func.regions[0].blocks[0].arguments[0])
        three.results[1].replace_all_uses_with(func.regions[0].blocks[0].arguments[1])
        three.results[2].replace_all_uses_with(func.regions[0].blocks[0].arguments[2])
        erased.erase()
        # CHECK-NEXT: %0
        print(use.result.get_name(state))
        # The op of the state is gone: using the state raises.
        gone = ir.AsmState(use.result)
        use.result.replace_all_uses_with(func.regions[0].blocks[0].arguments[0])
        use.erase()
        try:
            func.regions[0].blocks[0].arguments[0].get_name(gone)
        except ir.InvalidatedHandleError as e:
            # CHECK-NEXT: InvalidatedHandleError: operation handle to 'test.use'
            print(type(e).__name__ + ":", str(e)[:32])
        # CHECK-NEXT: <mlir_tracking.ir.AsmState for
        print(repr(state)[:31])


# CHECK-LABEL: TEST: test_asm_state_numbers_unchanged_ir_once
@run
def test_asm_state_numbers_unchanged_ir_once():
    # Naming many values with one state numbers the IR once while it does
    # not change (it numbered it on every use: quadratic), and again once
    # after each change, so names stay those of the IR as it is now.
    with ir.Context() as ctx:
        n = 300
        body = "\n".join(f"  %v{i} = arith.addi %a, %a : i32" for i in range(n))
        module = ir.Module.parse("func.func @f(%a: i32) -> i32 {\n" + body +
                                 f"\n  return %v{n - 1} : i32\n}}")
        block = module.body.operations[0].regions[0].blocks[0]
        ops = list(block.operations)[:-1]
        state = ir.AsmState(module.operation)
        before = ir._asm_state_numberings()
        names = [op.results[0].get_name(state) for op in ops]
        out = io.StringIO()
        for op in ops[:50]:
            op.operation.print(state, file=out)
        # CHECK: %0 %299 numberings: 1
        print(names[0], names[-1], "numberings:",
              ir._asm_state_numberings() - before)
        # A change from Python: numbered again, once, with the new names.
        ops[0].operation.erase()
        before = ir._asm_state_numberings()
        names = [op.results[0].get_name(state) for op in ops[1:]]
        # CHECK-NEXT: %0 %298 numberings: 1
        print(names[0], names[-1], "numberings:",
              ir._asm_state_numberings() - before)
        # A pass (cse merges them into one): numbered again after it.
        pm = passmanager.PassManager.parse("builtin.module(cse)")
        pm.run(module.operation)
        kept = block.operations[0]
        before = ir._asm_state_numberings()
        # CHECK-NEXT: %0 %arg0 numberings: 1
        print(kept.results[0].get_name(state),
              block.arguments[0].get_name(state), "numberings:",
              ir._asm_state_numberings() - before)
        # A state of another scope (a local one) numbers its own IR; the
        # first one keeps its numbering.
        local = ir.AsmState(module.body.operations[0], use_local_scope=True)
        before = ir._asm_state_numberings()
        # CHECK-NEXT: %0 %0 numberings: 1
        print(kept.results[0].get_name(local),
              kept.results[0].get_name(state), "numberings:",
              ir._asm_state_numberings() - before)
        # Once a capsule exposed the IR, C++ code may change it unseen: no
        # numbering is kept.
        module.operation._CAPIPtr
        before = ir._asm_state_numberings()
        kept.results[0].get_name(state)
        kept.results[0].get_name(state)
        # CHECK-NEXT: numberings: 2
        print("numberings:", ir._asm_state_numberings() - before)


# CHECK-LABEL: TEST: test_value_dump
@run
def test_value_dump():
    # Value.dump prints the value to stderr (fd 2, as MLIR's dump) as str()
    # shows it without "Value(...)".
    import os
    import tempfile

    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        module = ir.Module.parse(SOURCE)
        func = module.body.operations[0]
        three = func.regions[0].blocks[0].operations[0]
        arg = func.regions[0].blocks[0].arguments[1]
        with tempfile.TemporaryFile() as out:
            saved = os.dup(2)
            os.dup2(out.fileno(), 2)
            try:
                three.results[2].dump()
                arg.dump()
            finally:
                os.dup2(saved, 2)
                os.close(saved)
            out.seek(0)
            lines = out.read().decode().splitlines()
        # CHECK: %0:3 = "test.three"(%arg0, %arg1, %arg2) : (i32, i64, index) -> (i32, i64, index)
        # CHECK-NEXT: <block argument> of type 'i64' at index: 1
        print(*lines, sep="\n")
        # CHECK-NEXT: True
        print(lines[0] == str(three.results[2])[len("OpResult("):-1])
        dead = ir.Operation.create("test.one", results=[ir.IntegerType.get_signless(8)],
                                   loc=ir.Location.unknown())
        value = dead.results[0]
        dead.erase()
        try:
            value.dump()
        except ir.InvalidatedHandleError as e:
            # CHECK-NEXT: InvalidatedHandleError
            print(type(e).__name__)


REPLACE_SOURCE = """
func.func @f(%a: i32, %b: i32) -> i32 {
  %p = arith.muli %a, %a : i32
  %y = arith.addi %a, %b : i32
  %q = arith.subi %a, %p : i32
  %r = arith.xori %a, %y : i32
  %s = arith.ori %q, %r : i32
  return %s : i32
}
"""


# CHECK-LABEL: TEST: test_value_replace_all_uses_except
@run
def test_value_replace_all_uses_except():
    # Upstream's replace_all_uses_except(with_, exceptions): every use but
    # those by `exceptions` (an op or a list of ops; OpViews too).
    def setup():
        module = ir.Module.parse(REPLACE_SOURCE)
        entry = module.body.operations[0].regions[0].blocks[0]
        return module, entry, list(entry.operations), entry.arguments

    def users(value):
        return sorted(f"{use.owner.name}#{use.operand_number}" for use in value.uses)

    with ir.Context() as ctx, ir.Location.unknown():
        module, entry, (p, y, q, r, s, ret), (a, b) = setup()
        # One op excepted (an OpView): %a stays only in the addi.
        a.replace_all_uses_except(b, y)
        # CHECK: ['arith.addi#0'] ['arith.addi#1', 'arith.muli#0', 'arith.muli#1', 'arith.subi#0', 'arith.xori#0']
        print(users(a), users(b))
        # A list of ops (Operations and OpViews mixed).
        module, entry, (p, y, q, r, s, ret), (a, b) = setup()
        a.replace_all_uses_except(b, [p.operation, q])
        # CHECK-NEXT: ['arith.muli#0', 'arith.muli#1', 'arith.subi#0'] ['arith.addi#0', 'arith.addi#1', 'arith.xori#0']
        print(users(a), users(b))
        # Nothing excepted (an empty list, or ops that do not use it): every
        # use, as replace_all_uses_with.
        a.replace_all_uses_except(b, [])
        # CHECK-NEXT: [] True
        print(users(a), len(users(b)) == 6)
        module, entry, (p, y, q, r, s, ret), (a, b) = setup()
        p.result.replace_all_uses_except(b, ret)
        # CHECK-NEXT: [] ['arith.addi#1', 'arith.subi#1']
        print(users(p.result), users(b))
        # CHECK-NEXT: True
        print(module.operation.verify())

        # Failure paths: nothing changes.
        module, entry, (p, y, q, r, s, ret), (a, b) = setup()
        before = str(module)
        for bad in ["arith.addi", 3, None, [y, "x"]]:
            try:
                a.replace_all_uses_except(b, bad)
            except TypeError as e:
                # CHECK-NEXT: TypeError exceptions must be an Operation or a list of Operations, got <class 'str'>
                # CHECK-NEXT: TypeError exceptions must be an Operation or a list of Operations, got <class 'int'>
                # CHECK-NEXT: TypeError exceptions must be an Operation or a list of Operations, got <class 'NoneType'>
                # CHECK-NEXT: TypeError expected an ir.Operation or ir.Module, got <class 'str'>
                print("TypeError", e)
        with ir.Context(), ir.Location.unknown():
            other = ir.Module.parse(REPLACE_SOURCE)
            other_entry = other.body.operations[0].regions[0].blocks[0]
            other_op = other_entry.operations[1]
            other_value = other_entry.arguments[1]
        try:
            a.replace_all_uses_except(b, [y, other_op])
        except ValueError as e:
            # CHECK-NEXT: ValueError cannot use an excepted operation of context
            print("ValueError", str(e)[:45])
        try:
            a.replace_all_uses_except(other_value, y)
        except ValueError as e:
            # CHECK-NEXT: ValueError cannot use a replacement value of context
            print("ValueError", str(e)[:51])
        ctx.allow_unregistered_dialects = True
        gone = ir.Operation.create("test.gone", loc=ir.Location.unknown())
        gone.erase()
        try:
            a.replace_all_uses_except(b, [y, gone])
        except ir.InvalidatedHandleError as e:
            # CHECK-NEXT: InvalidatedHandleError
            print(type(e).__name__)
        # CHECK-NEXT: True
        print(str(module) == before)

        # Inside a rewrite pattern each use is checked as an operand
        # assignment: a use the new value does not dominate (the muli before
        # %y's addi) is refused, and the uses already replaced (the xori,
        # the subi) are set back.
        module, entry, (p, y, q, r, s, ret), (a, b) = setup()
        before = str(module)
        seen = []

        def replace(op, rewriter):
            if seen:
                return True
            seen.append(op)
            try:
                a.replace_all_uses_except(y.result, y)
            except ir.MLIRError as e:
                seen.append(str(e).splitlines()[0])
            # Applied (the uses were set and set back): the driver
            # counts it as a change.
            return None

        patterns = rewrite.RewritePatternSet()
        patterns.add("arith.ori", replace)
        config = rewrite.GreedyRewriteConfig()
        config.enable_folding = False
        rewrite.apply_patterns_and_fold_greedily(module, patterns.freeze(), config)
        # CHECK-NEXT: setting an operand inside a rewrite pattern would leave operand #1 of 'arith.muli' a value that does not dominate it
        print(seen[1])
        # CHECK-NEXT: True ['arith.addi#0', 'arith.muli#0', 'arith.muli#1', 'arith.subi#0', 'arith.xori#0']
        print(str(module) == before, users(a))


# CHECK-LABEL: TEST: test_builtin_module_decorator_and_shorthands
@run
def test_builtin_module_decorator_and_shorthands():
    # Upstream's dialects.builtin re-exports the ir names and makes `module`
    # a decorator; transform has any_op_t().
    from mlir_tracking.dialects import arith, builtin, transform
    with ir.Context(), ir.Location.unknown():
        # CHECK: Module !transform.any_op
        print(type(builtin.Module.create()).__name__, transform.any_op_t())

        @builtin.module(sym_name="consts")
        def consts():
            arith.constant(ir.IntegerType.get_signless(32), 1)

        # CHECK: module @consts {
        # CHECK-NEXT: arith.constant 1 : i32
        print(consts)
        try:
            @builtin.module
            def broken():
                arith.constant(ir.IntegerType.get_signless(32), 2)
                raise KeyError("in the body")
        except KeyError as error:
            # CHECK: KeyError 'in the body' True
            print(type(error).__name__, error, consts.operation.verify())

        @builtin.module(attrs={"transform.with_named_sequence": ir.UnitAttr.get()})
        def with_attrs():
            pass

        # CHECK: module attributes {transform.with_named_sequence} {
        print(with_attrs)


# CHECK-LABEL: TEST: test_location_required_where_ir_records_it
@run
def test_location_required_where_ir_records_it():
    # As upstream's: an op, a module or a block argument needs a location,
    # from loc=/arg_locs= or the innermost `with`; none is a RuntimeError,
    # never an unknown location put in the IR silently.
    def expect(f):
        try:
            f()
            print("no error")
        except RuntimeError as e:
            print("RuntimeError:", str(e).split(".")[0])

    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        i32 = ir.IntegerType.get_signless(32)
        holder = ir.Operation.create("test.holder", regions=1,
                                     loc=ir.Location.name("holder"))
        blocks = holder.regions[0].blocks
        # CHECK: RuntimeError: An MLIR function requires a Location but none was provided in the call or from the surrounding environment
        expect(lambda: ir.Operation.create("test.op"))
        # CHECK-NEXT: RuntimeError: An MLIR function requires a Location
        expect(lambda: ir.Module.create())
        # CHECK-NEXT: RuntimeError: An MLIR function requires a Location
        expect(lambda: blocks.append(i32))
        # CHECK-NEXT: RuntimeError: An MLIR function requires a Location
        expect(lambda: ir.Block.create_at_start(holder.regions[0], [i32]))
        # Nothing was added by the failed calls.
        # CHECK-NEXT: 0
        print(len(blocks))
        # A block without arguments needs no location.
        blocks.append()
        with ir.Location.name("here"):
            blocks.append(i32)
            # A context entered inside a location hides it, as upstream's.
            with ir.Context() as inner:
                inner.allow_unregistered_dialects = True
                # CHECK-NEXT: RuntimeError: An MLIR function requires a Location
                expect(lambda: ir.Operation.create("test.op"))
        blocks.append(i32, arg_locs=[ir.Location.name("given")])
        # CHECK: "test.holder"() ({
        # CHECK-NEXT: ^bb0:
        # CHECK-NEXT: ^bb1(%{{.*}}: i32 loc("here")):
        # CHECK-NEXT: ^bb2(%{{.*}}: i32 loc("given")):
        holder.print(enable_debug_info=True)
        # Types and attributes only use the location for their diagnostics:
        # an unknown one serves.
        # CHECK: tensor<2xi32>
        print(ir.RankedTensorType.get([2], i32))
        # A location of another context is refused.
        with ir.Context() as other:
            other_loc = ir.Location.unknown()
        try:
            ir.Operation.create("func.return", loc=other_loc,
                                ip=ir.InsertionPoint(blocks[0]))
        except ValueError as e:
            # CHECK: ValueError: {{.*}}context
            print("ValueError:", e)


# Value.location (a result's is its op's, an argument's its own) and
# ir._GlobalDebug (LLVM's debug flag), as upstream; and OpDSL's star import
# gives `ir`, as upstream's does.
# CHECK-LABEL: TEST: test_value_location_and_global_debug
# CHECK: loc("made here") loc("argument")
# CHECK-NEXT: False True False
# CHECK-NEXT: (d0, d1) -> (d1, d0)
@run
def test_value_location_and_global_debug():
    with ir.Context(), ir.Location.name("made here"):
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            op = ir.Operation.create(
                "func.func", regions=1, attributes={
                    "sym_name": ir.StringAttr.get("f"),
                    "function_type": ir.TypeAttr.get(
                        ir.FunctionType.get([ir.IndexType.get()], []))})
        block = op.regions[0].blocks.append(
            ir.IndexType.get(), arg_locs=[ir.Location.name("argument")])
        with ir.InsertionPoint(block):
            constant = ir.Operation.create(
                "arith.constant", results=[ir.IndexType.get()],
                attributes={"value": ir.IntegerAttr.get(ir.IndexType.get(), 1)})
        print(constant.result.location, block.arguments[0].location)
    from mlir_tracking.ir import _GlobalDebug
    print(_GlobalDebug.flag, end=" ")
    _GlobalDebug.flag = True
    print(_GlobalDebug.flag, end=" ")
    _GlobalDebug.flag = False
    _GlobalDebug.set_types("pass-manager")
    _GlobalDebug.set_types(["pass-manager", "greedy-rewriter"])
    print(_GlobalDebug.flag)
    names = {}
    exec("from mlir_tracking.dialects.linalg.opdsl.lang import *", names)
    with names["ir"].Context():
        d0, d1 = (names["ir"].AffineDimExpr.get(i) for i in range(2))
        print(names["ir"].AffineMap.get(2, 0, [d1, d0]))


# CHECK-LABEL: TEST: test_development_directories
@run
def test_development_directories():
    # Upstream's _mlir_libs.get_include_dirs() / get_lib_dirs(): where the
    # C API headers and libraries are for C or C++ code that works with the
    # package's capsules. Here those of the installed MLIR 22 the extension
    # links: mlir-c/IR.h and libMLIR.so.
    import os

    from mlir_tracking import _mlir_libs

    includes, libs = _mlir_libs.get_include_dirs(), _mlir_libs.get_lib_dirs()
    # CHECK-NEXT: lists: True True
    print("lists:", isinstance(includes, list) and bool(includes),
          isinstance(libs, list) and bool(libs))
    # CHECK-NEXT: IR.h: True libMLIR.so: True
    print("IR.h:", os.path.isfile(os.path.join(includes[0], "mlir-c", "IR.h")),
          "libMLIR.so:", os.path.exists(os.path.join(libs[0], "libMLIR.so")))
    # Each call gives a fresh list: changing one changes no later answer.
    includes.clear()
    libs.append("elsewhere")
    # CHECK-NEXT: unchanged: True True
    print("unchanged:", _mlir_libs.get_include_dirs()[0] != "elsewhere"
          and bool(_mlir_libs.get_include_dirs()),
          "elsewhere" not in _mlir_libs.get_lib_dirs())


# CHECK-LABEL: TEST: test_operation_base_and_create_infer_type
@run
def test_operation_base_and_create_infer_type():
    # Upstream's `_OperationBase` is the common base of Operation and OpView:
    # code that checks "is this an op of any kind" uses it.
    from mlir_tracking.dialects import arith

    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse(
            "func.func @f(%a: i32, %t: tensor<4xf32>) -> i32 { return %a : i32 }")
        fn = module.body.operations[0]
        # CHECK-NEXT: base: True True True True False
        print("base:", isinstance(fn, ir._OperationBase),
              isinstance(fn.operation, ir._OperationBase),
              issubclass(arith.AddIOp, ir._OperationBase),
              issubclass(ir.Operation, ir._OperationBase),
              isinstance(module, ir._OperationBase))
        a, t = fn.arguments
        ret = fn.entry_block.operations[0]
        # Operation.create(..., infer_type=True) (MLIR 22's) takes the
        # result types from the op's InferTypeOpInterface.
        with ir.InsertionPoint(ret):
            add = ir.Operation.create("arith.addi", operands=[a, a], infer_type=True)
            dim = ir.Operation.create(
                "tensor.dim", infer_type=True,
                operands=[t, arith.constant(ir.IndexType.get(), 0)])
        # CHECK-NEXT: inferred: i32 index True
        print("inferred:", add.results[0].type, dim.results[0].type,
              add.parent == fn.operation)
        # Where nothing can be inferred it raises before anything is built:
        # results given too (MLIR's C API asserts), an op without the
        # interface, operands that do not fit the op (MLIR's inference would
        # read them unchecked).
        for name, kwargs in (
            ("arith.addi", dict(operands=[a, a], results=[a.type])),
            ("func.return", dict(operands=[a])),
            ("arith.addi", dict(operands=[a, t])),
        ):
            try:
                ir.Operation.create(name, infer_type=True, **kwargs)
            except (ValueError, ir.MLIRError) as e:
                print(type(e).__name__, str(e).splitlines()[0])
        # CHECK-NEXT: ValueError Operation.create of "arith.addi": results and infer_type=True exclude each other
        # CHECK-NEXT: ValueError operation "func.return" does not implement InferTypeOpInterface: its result types cannot be inferred; pass results=[...]
        # CHECK-NEXT: MLIRError Operation creation failed: the operands or attributes of "arith.addi" do not satisfy its constraints, so its result types cannot be inferred
        # CHECK-NEXT: ops: 4 verify: True
        print("ops:", len(fn.entry_block.operations), "verify:", module.operation.verify())
