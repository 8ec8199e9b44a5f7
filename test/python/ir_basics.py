# RUN: %PYTHON %s | FileCheck %s
# The upstream mlir.ir names: Context, Location, Module, Operation, Block,
# Region, Value, Type, Attribute, InsertionPoint, walk, capsules.

import ctypes

from mlir_tracking import ir


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


def capsule_name(capsule):
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype = ctypes.c_char_p
    get_name.argtypes = [ctypes.py_object]
    return get_name(capsule).decode()


ASM = """
func.func @add(%a: i32, %b: i32) -> i32 attributes {my.tag = "x"} {
  %0 = arith.addi %a, %b : i32
  %1 = arith.muli %0, %b : i32
  return %1 : i32
}
"""


# CHECK-LABEL: TEST: test_context
@run
def test_context():
    # CHECK: None
    print(ir.Context.current)
    with ir.Context() as ctx:
        # CHECK: True
        print(ir.Context.current is ctx)
        # CHECK: True
        print(ctx.is_registered_operation("arith.addi"))
        # CHECK: False
        print(ctx.allow_unregistered_dialects)
        ctx.allow_unregistered_dialects = True
        # CHECK: True
        print(ctx.allow_unregistered_dialects)
        m = ir.Module.parse('"my.op"() : () -> ()')
        # CHECK: "my.op"() : () -> ()
        print(m.body.operations[0])
        ctx.enable_multithreading(False)
        # CHECK: False
        print(ctx.is_multithreading_enabled)
        ctx.enable_multithreading(True)
        # CHECK: Context #{{[0-9]+}}: 0 live operation objects
        del m
        print(repr(ctx))
        # CHECK: mlir.ir.Context._CAPIPtr
        print(capsule_name(ctx._CAPIPtr))
        # CHECK: True
        print(ir.Context._CAPICreate(ctx._CAPIPtr) is ctx)
    # CHECK: None
    print(ir.Context.current)
    try:
        ir.Module.parse("module {}")
    except ValueError as e:
        # CHECK: requires a Context
        print(e)


# CHECK-LABEL: TEST: test_location
@run
def test_location():
    with ir.Context() as ctx:
        # CHECK: loc(unknown)
        print(ir.Location.unknown())
        loc = ir.Location.file("a.py", 3, 7)
        # CHECK: loc("a.py":3:7)
        print(loc)
        # CHECK: loc("named"("a.py":3:7))
        print(ir.Location.name("named", childLoc=loc))
        # CHECK: True
        print(loc.context is ctx)
        # CHECK: True
        print(loc == ir.Location.file("a.py", 3, 7, context=ctx))
        # CHECK: mlir.ir.Location._CAPIPtr
        print(capsule_name(loc._CAPIPtr))
        with loc:
            # CHECK: True
            print(ir.Location.current == loc)
            op = ir.Operation.create("arith.constant",
                                     results=[ir.Type.parse("i32")],
                                     attributes={"value": ir.Attribute.parse("1 : i32")})
            # CHECK: loc("a.py":3:7)
            print(op.location)
        # CHECK: None
        print(ir.Location.current)


# CHECK-LABEL: TEST: test_type_and_attribute
@run
def test_type_and_attribute():
    with ir.Context():
        t = ir.Type.parse("tensor<4xf32>")
        # CHECK: tensor<4xf32> RankedTensorType(tensor<4xf32>)
        print(t, repr(t))
        # CHECK: True
        print(t == ir.Type.parse("tensor<4xf32>"))
        # CHECK: True
        print(hash(t) == hash(ir.Type.parse("tensor<4xf32>")))
        # CHECK: mlir.ir.Type._CAPIPtr
        print(capsule_name(t._CAPIPtr))
        a = ir.Attribute.parse("42 : i64")
        # CHECK: 42 : i64 IntegerAttr(42 : i64) i64
        print(a, repr(a), a.type)
        # CHECK: mlir.ir.Attribute._CAPIPtr
        print(capsule_name(a._CAPIPtr))
        try:
            ir.Type.parse("not_a_type<")
        except ir.MLIRError as e:
            # CHECK: Unable to parse type: 'not_a_type<'
            print(e.message)
            # CHECK: 1
            print(len(e.error_diagnostics))


# CHECK-LABEL: TEST: test_module
@run
def test_module():
    with ir.Context():
        m = ir.Module.parse(ASM)
        # CHECK: module {
        # CHECK: func.func @add
        print(str(m))
        # CHECK: builtin.module
        print(m.operation.name)
        # CHECK: 1
        print(len(m.body.operations))
        # CHECK: True
        print(m.body.owner == m.operation)
        # CHECK: <mlir_tracking.ir.Module (live)>
        print(repr(m))
        # CHECK: mlir.ir.Module._CAPIPtr
        print(capsule_name(m._CAPIPtr))
        # CHECK: True
        print(ir.Module._CAPICreate(m._CAPIPtr).operation is m.operation)
        empty = ir.Module.create(loc=ir.Location.unknown())
        # CHECK: module {
        # CHECK-NEXT: }
        print(empty)
        # CHECK: True
        print(m.context is ir.Context.current)


# CHECK-LABEL: TEST: test_operation_properties
@run
def test_operation_properties():
    with ir.Context():
        m = ir.Module.parse(ASM)
        func = m.body.operations[0]
        # CHECK: func.func
        print(func.operation.name)
        # CHECK: True
        print(func.parent is m.operation)
        # CHECK: True
        print(func.block == m.body)
        # CHECK: 1
        print(len(func.regions))
        block = func.regions[0].blocks[0]
        # CHECK: True
        print(func.regions[0].owner is func)
        addi, muli, ret = block.operations
        # CHECK: arith.addi arith.muli func.return
        print(addi.name, muli.name, ret.name)
        # CHECK: 2 1
        print(len(addi.operands), len(addi.results))
        # CHECK: i32
        print(addi.result.type)
        # CHECK: True
        print(addi.result.owner is addi)
        # CHECK: True
        print(muli.operands[0] == addi.result)
        # CHECK: %0
        print(addi.result.get_name())
        # CHECK: OpResult(%0 = arith.addi %arg0, %arg1 : i32)
        print(addi.result)
        # CHECK: [IntegerType(i32)]
        print(addi.results.types)
        try:
            ret.result
        except ValueError as e:
            # CHECK: 0 results
            print(e)
        # Block arguments.
        args = block.arguments
        # CHECK: 2 [IntegerType(i32), IntegerType(i32)]
        print(len(args), args.types)
        # CHECK: BlockArgument 0 True
        print(type(args[0]).__name__, args[0].arg_number, args[0].owner == block)
        # CHECK: %arg1
        print(args[1].get_name())
        # Uses.
        uses = list(args[1].uses)
        # CHECK: 2
        print(len(uses))
        # CHECK: ['arith.addi:1', 'arith.muli:1']
        print(sorted(f"{u.owner.name}:{u.operand_number}" for u in uses))
        # Index and iteration.
        # CHECK: True True
        print(block.operations[-1] is ret, block.operations[0] is addi)
        # CHECK: loc("-":3:8)
        print(addi.location)
        # CHECK: %0 = arith.addi %arg0, %arg1 : i32
        print(addi.get_asm())
        # CHECK: "arith.addi"(%arg0, %arg1)
        print(addi.get_asm(print_generic_op_form=True))
        # CHECK: True
        print(isinstance(addi.get_asm(binary=True), bytes))
        # CHECK: %0 = arith.addi %arg0, %arg1 : i32
        addi.print()
        print()
        # CHECK: True
        print(addi.verify())
        # CHECK: mlir.ir.Value._CAPIPtr
        print(capsule_name(addi.result._CAPIPtr))
        # CHECK: True
        print(ir.Value._CAPICreate(addi.result._CAPIPtr) == addi.result)
        # CHECK: <mlir_tracking.ir.Operation 'arith.addi' at loc("-":3:8) (live)>
        print(repr(addi))
        # CHECK: True
        print(addi.operation.operation is addi.operation)


# CHECK-LABEL: TEST: test_attributes
@run
def test_attributes():
    with ir.Context():
        m = ir.Module.parse(ASM)
        func = m.body.operations[0]
        attrs = func.attributes
        # CHECK: "x"
        print(attrs["my.tag"])
        # CHECK: True False
        print("my.tag" in attrs, "nope" in attrs)
        # CHECK: ['function_type', 'my.tag', 'sym_name']
        print(sorted(attrs.keys()))
        # CHECK: 3
        print(len(attrs))
        # Iterating gives the names (a Mapping, as upstream); indexing by
        # position gives NamedAttributes.
        # CHECK: function_type=(i32, i32) -> i32
        for name in attrs:
            if name == "function_type":
                print(f"{name}={attrs[name]}")
        # CHECK: function_type
        print(attrs[0].name)
        attrs["my.other"] = ir.Attribute.parse("[1, 2]")
        # CHECK: [1, 2]
        print(func.attributes["my.other"])
        # Printed values parse back to equal attributes.
        for name, value in func.attributes.items():
            assert ir.Attribute.parse(str(value)) == value, name
        del func.attributes["my.other"]
        # CHECK: None
        print(func.attributes.get("my.other"))
        try:
            func.attributes["my.other"]
        except KeyError as e:
            # CHECK: not found
            print(e)
        # CHECK: NamedAttribute(
        print(repr(func.attributes[0]))


# CHECK-LABEL: TEST: test_create_and_insert
@run
def test_create_and_insert():
    with ir.Context(), ir.Location.unknown():
        m = ir.Module.create()
        i32 = ir.Type.parse("i32")
        with ir.InsertionPoint(m.body):
            c1 = ir.Operation.create("arith.constant", results=[i32],
                                     attributes={"value": ir.Attribute.parse("1 : i32")})
            c2 = ir.Operation.create("arith.constant", results=[i32],
                                     attributes={"value": ir.Attribute.parse("2 : i32")})
            add = ir.Operation.create("arith.addi", results=[i32],
                                      operands=[c1.result, c2.result])
        # No current insertion point: ValueError, as upstream.
        try:
            ir.InsertionPoint.current
        except ValueError as e:
            # CHECK: No current InsertionPoint
            print(e)
        ir.InsertionPoint.at_block_begin(m.body).insert(
            ir.Operation.create("arith.constant", results=[i32],
                                attributes={"value": ir.Attribute.parse("0 : i32")}))
        ir.InsertionPoint.before(add).insert(
            ir.Operation.create("arith.constant", results=[i32],
                                attributes={"value": ir.Attribute.parse("5 : i32")}))
        ir.InsertionPoint.after(add).insert(
            ir.Operation.create("arith.constant", results=[i32],
                                attributes={"value": ir.Attribute.parse("9 : i32")}))
        # CHECK: arith.constant 0
        # CHECK-NEXT: arith.constant 1
        # CHECK-NEXT: arith.constant 2
        # CHECK-NEXT: arith.constant 5
        # CHECK-NEXT: arith.addi
        # CHECK-NEXT: arith.constant 9
        print(m)
        # CHECK: True
        print(m.operation.verify())
        # An op with a region and blocks.
        func_type = ir.Attribute.parse("(i32) -> i32")
        func = ir.Operation.create(
            "func.func", regions=1,
            attributes={"sym_name": ir.Attribute.parse('"g"'),
                        "function_type": ir.Attribute.parse("(i32) -> i32")})
        # CHECK: True
        print(func.parent is None and func.block is None)
        entry = func.regions[0].blocks.append(i32)
        with ir.InsertionPoint(entry):
            ir.Operation.create("func.return", operands=[entry.arguments[0]])
        extra = entry.add_argument(i32, ir.Location.unknown())
        # CHECK: 1
        print(extra.arg_number)
        entry2 = ir.Block.create_at_start(func.regions[0], [i32])
        # CHECK: 2
        print(len(func.regions[0].blocks))
        # CHECK: ^bb0(%arg0: i32):
        print(entry2)
        m.body.append(func)
        # CHECK: True
        print(func.parent is m.operation)
        # CHECK: InsertionPoint at end of
        print(repr(ir.InsertionPoint(m.body)))
        # CHECK: InsertionPoint before
        print(repr(ir.InsertionPoint(func)))
        try:
            ir.Operation.create("nodialect.op")
        except ValueError as e:
            # CHECK: unregistered operation 'nodialect.op'
            print(e)


# CHECK-LABEL: TEST: test_walk
@run
def test_walk():
    with ir.Context():
        m = ir.Module.parse(ASM)
        names = []
        m.operation.walk(lambda op: names.append(op.name))
        # CHECK: ['arith.addi', 'arith.muli', 'func.return', 'func.func', 'builtin.module']
        print(names)
        names = []
        m.operation.walk(lambda op: names.append(op.name), ir.WalkOrder.PRE_ORDER)
        # CHECK: ['builtin.module', 'func.func', 'arith.addi', 'arith.muli', 'func.return']
        print(names)

        def first_arith(op):
            names.append(op.name)
            if op.name.startswith("arith."):
                return ir.WalkResult.INTERRUPT
            return ir.WalkResult.ADVANCE

        names = []
        m.operation.walk(first_arith, walk_order=ir.WalkOrder.PRE_ORDER)
        # CHECK: ['builtin.module', 'func.func', 'arith.addi']
        print(names)

        def skip_func(op):
            names.append(op.name)
            return ir.WalkResult.SKIP if op.name == "func.func" else ir.WalkResult.ADVANCE

        names = []
        m.operation.walk(skip_func, ir.WalkOrder.PRE_ORDER)
        # CHECK: ['builtin.module', 'func.func']
        print(names)

        def boom(op):
            raise KeyError("from callback")

        try:
            m.operation.walk(boom)
        except RuntimeError as e:
            # CHECK: Exception raised in callback: KeyError: 'from callback'
            print(e)
        # The walk hands out the same objects as iteration.
        seen = []
        m.operation.walk(lambda op: seen.append(op))
        func = m.body.operations[0]
        # CHECK: True
        print(seen[3] is func.operation)


# CHECK-LABEL: TEST: test_value_replace_all_uses_with
@run
def test_value_replace_all_uses_with():
    with ir.Context():
        m = ir.Module.parse(ASM)
        block = m.body.operations[0].regions[0].blocks[0]
        addi, muli, ret = block.operations
        addi.result.replace_all_uses_with(block.arguments[0])
        # CHECK: arith.muli %arg0, %arg1
        print(muli)
        muli.operands[0] = addi.result
        # CHECK: arith.muli %0, %arg1
        print(muli)
        # Operation.replace_all_uses_with takes values or an op.
        muli.replace_all_uses_with([block.arguments[1]])
        # CHECK: return %arg1
        print(ret)
        # CHECK: live
        print(muli.handle_state)


# CHECK-LABEL: TEST: test_insertion_point_variants
@run
def test_insertion_point_variants():
    with ir.Context(), ir.Location.unknown():
        m = ir.Module.parse(ASM)
        block = m.body.operations[0].regions[0].blocks[0]
        i32 = ir.Type.parse("i32")
        ip = ir.InsertionPoint.at_block_terminator(block)
        # CHECK: True
        print(ip.ref_operation is block.operations[-1].operation and ip.block == block)
        with ip:
            c = ir.Operation.create("arith.constant", results=[i32],
                                    attributes={"value": ir.Attribute.parse("4 : i32")})
            # ip=False: not inserted even inside an insertion point.
            d = ir.Operation.create("arith.constant", results=[i32],
                                    attributes={"value": ir.Attribute.parse("5 : i32")},
                                    ip=False)
            e = c.clone(ip=False)
        # CHECK: True None None
        print(c.parent is m.body.operations[0].operation, d.parent, e.parent)
        # CHECK: arith.constant 4 : i32
        # CHECK-NEXT: return
        print(block)
        try:
            ir.InsertionPoint.at_block_terminator(m.body)
        except ValueError as err:
            # CHECK: no terminator
            print(err)
