# RUN: %PYTHON %s | FileCheck %s
# The hand-written conveniences of builtin, func, arith, scf and tensor over the
# classes mlir-tblgen-22 generates: construction, accessors, value builders,
# result type inference, downcasting of returned ops, errors, and that every
# op built this way is a tracked handle.

import gc
from array import array

from mlir_tracking import ir, passmanager
from mlir_tracking.dialects import arith, builtin, func, scf, tensor


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


# CHECK-LABEL: TEST: test_module_op
@run
def test_module_op():
    with ir.Context(), ir.Location.unknown():
        module = builtin.ModuleOp()
        # CHECK: ModuleOp True 0
        print(type(module).__name__, isinstance(module, ir.OpView),
              len(module.body.operations))
        with ir.InsertionPoint(module.body):
            inner = builtin.ModuleOp(sym_name="inner")
        # CHECK: module {
        # CHECK:   module @inner {
        print(module)
        # CHECK: True True
        print(module.body.operations[0] is inner, inner.parent == module)


# CHECK-LABEL: TEST: test_func_op
@run
def test_func_op():
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        i32 = ir.IntegerType.get_signless(32)
        with ir.InsertionPoint(module.body):
            f = func.FuncOp("add", ([i32, i32], [i32]), visibility="private")
            # CHECK: True
            print(f.is_external)
            entry = f.add_entry_block()
            with ir.InsertionPoint(entry):
                s = arith.addi(f.arguments[0], f.arguments[1])
                func.ReturnOp([s])
            ext = func.FuncOp("ext", ir.FunctionType.get([], []), visibility="private")
        # CHECK: func.func private @add(%arg0: i32, %arg1: i32) -> i32 {
        # CHECK:   %0 = arith.addi %arg0, %arg1 : i32
        # CHECK:   return %0 : i32
        # CHECK: func.func private @ext()
        print(module)
        # CHECK: add "private" (i32, i32) -> i32 2
        print(f.name.value, f.visibility, f.type, len(f.arguments))
        # CHECK: func.func True
        print(f.operation.name, f.entry_block == entry)
        expect_error(IndexError, f.add_entry_block)
        # CHECK: IndexError: The function already has an entry block!
        expect_error(IndexError, lambda: ext.entry_block)
        # CHECK: IndexError: External function does not have a body
        # The API returns the registered classes.
        # CHECK: FuncOp True AddIOp ReturnOp
        ops = module.body.operations
        print(type(ops[0]).__name__, ops[0] is f,
              type(f.entry_block.operations[0]).__name__,
              type(f.entry_block.operations[1]).__name__)
        # CHECK: True
        print(module.operation.verify())


# CHECK-LABEL: TEST: test_func_body_builder_and_call
@run
def test_func_body_builder_and_call():
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        f32 = ir.F32Type.get()
        with ir.InsertionPoint(module.body):
            def body(op):
                func.ReturnOp([op.arguments[0]])

            ident = func.FuncOp("ident", ([f32], [f32]), body_builder=body)
            caller = func.FuncOp("caller", ([f32], [f32]))
            with ir.InsertionPoint(caller.add_entry_block()):
                c1 = func.CallOp(ident, [caller.arguments[0]])
                c2 = func.CallOp([f32], "ident", [c1.result])
                func.ReturnOp([c2])
        # CHECK: %0 = call @ident(%arg0) : (f32) -> f32
        # CHECK: %1 = call @ident(%0) : (f32) -> f32
        print(caller)
        expect_error(ValueError, lambda: func.CallOp(ident, caller.arguments[0]))
        # CHECK: ValueError: when calling a FuncOp, the second argument must be the list of call arguments
        expect_error(ValueError, lambda: func.CallOp([f32], [1], []))
        # CHECK: ValueError: when calling by name, the second argument must be a str or a FlatSymbolRefAttr
        # CHECK: True
        print(module.operation.verify())


# CHECK-LABEL: TEST: test_from_py_func
@run
def test_from_py_func():
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        i64 = ir.IntegerType.get_signless(64)
        with ir.InsertionPoint(module.body):
            @func.FuncOp.from_py_func(i64, i64)
            def mul(a, b):
                return arith.muli(a, b)

            @func.FuncOp.from_py_func(i64, name="square")
            def sq(a, func_op):
                # CHECK: square
                print(func_op.name.value)
                return mul(a, a)

            @func.func(i64, results=[])
            def explicit(a):
                func.ReturnOp([])

            # With explicit results= the body must return None: upstream
            # raises AssertionError.
            try:
                @func.func(i64, results=[i64])
                def returns_anyway(a):
                    return a
            except AssertionError as e:
                # CHECK: AssertionError: Capturing a python function with explicit `results=` requires that the wrapped function returns None.
                print("AssertionError:", e)
            # A body that raises leaves no half-built function behind.
            try:
                @func.func(i64)
                def raises(a):
                    arith.addi(a, a)
                    raise KeyError("in the body")
            except KeyError:
                # CHECK: functions: ['mul', 'square', 'explicit']
                print("functions:", [op.name.value for op in module.body.operations])

        # CHECK: func.func @mul(%arg0: i64, %arg1: i64) -> i64 {
        # CHECK:   %0 = arith.muli %arg0, %arg1 : i64
        # CHECK: func.func @square(%arg0: i64) -> i64 {
        # CHECK:   %0 = call @mul(%arg0, %arg0) : (i64, i64) -> i64
        # CHECK: func.func @explicit(%arg0: i64) {
        print(module)
        # CHECK: FuncOp mul
        print(type(mul.func_op).__name__, mul.__name__)
        # CHECK: True
        print(module.operation.verify())


# CHECK-LABEL: TEST: test_arith_constant
@run
def test_arith_constant():
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        i32 = ir.IntegerType.get_signless(32)
        f64 = ir.F64Type.get()
        index = ir.IndexType.get()
        with ir.InsertionPoint(module.body):
            c = arith.ConstantOp(i32, 42)
            d = arith.ConstantOp(f64, 1.5)
            e = arith.ConstantOp.create_index(7)
            v = arith.constant(i32, -1)
            t = arith.ConstantOp(ir.RankedTensorType.get([2], i32), array("i", [1, 2]))
            a = arith.ConstantOp(ir.IntegerAttr.get(i32, 5))
        # CHECK: %c42_i32 = arith.constant 42 : i32
        # CHECK: %cst = arith.constant 1.500000e+00 : f64
        # CHECK: %c7 = arith.constant 7 : index
        # CHECK: %c-1_i32 = arith.constant -1 : i32
        # CHECK: %cst_0 = arith.constant dense<[1, 2]> : tensor<2xi32>
        # CHECK: %c5_i32 = arith.constant 5 : i32
        print(module)
        # CHECK: 42 1.5 7 i32
        print(c.literal_value, d.literal_value, e.literal_value, c.type)
        # CHECK: OpResult True
        print(type(v).__name__, isinstance(v.owner, arith.ConstantOp))
        expect_error(ValueError, lambda: t.literal_value)
        # CHECK: ValueError: only integer and float constants have literal values
        expect_error(TypeError, lambda: arith.ConstantOp(f64, 3))
        # CHECK: TypeError: integer constant of non-integer type f64
        expect_error(TypeError, lambda: arith.ConstantOp(i32, "x"))
        # CHECK: TypeError: constant value must be an int, float, array.array or Attribute, got str
        expect_error(ValueError, lambda: arith.ConstantOp(ir.RankedTensorType.get([2], i32), array("d", [1, 2])))
        # CHECK: ValueError: Mismatching array element (64) and type (32) width.


# CHECK-LABEL: TEST: test_arith_value_builders_and_inference
@run
def test_arith_value_builders_and_inference():
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        i32 = ir.IntegerType.get_signless(32)
        with ir.InsertionPoint(module.body):
            a = arith.constant(i32, 1)
            b = arith.constant(i32, 2)
            s = arith.addi(a, b)
            # No result types given: InferTypeOpInterface computes them.
            cmp = arith.CmpIOp(arith.CmpIPredicate.slt, s, b)
            sel = arith.select(cmp.result, s, b)
            flags = arith.addi(a, b, overflow_flags=arith.IntegerOverflowFlags.nsw)
            ext = arith.AddUIExtendedOp(i32, ir.IntegerType.get_signless(1), a, b)
        # CHECK: %0 = arith.addi %c1_i32, %c2_i32 : i32
        # CHECK: %1 = arith.cmpi slt, %0, %c2_i32 : i32
        # CHECK: %2 = arith.select %1, %0, %c2_i32 : i32
        # CHECK: %3 = arith.addi %c1_i32, %c2_i32 overflow<nsw> : i32
        # CHECK: %sum, %overflow = arith.addui_extended
        print(module)
        # CHECK: i1 AddIOp True
        print(cmp.result.type, type(s.owner).__name__, cmp.lhs == s)
        # CHECK: 2 : i64 slt
        print(cmp.predicate, arith.CmpIPredicate.slt)
        # CHECK: 2 True
        print(len(ext.results), ext.sum.type == i32)
        expect_error(ValueError, lambda: arith.addi(a, 3))
        # CHECK: ValueError: Operand 1 of operation "arith.addi" must be a Value
        expect_error(TypeError, lambda: arith.addi(a))
        # CHECK: TypeError: {{.*}}rhs
        # CHECK: True
        print(module.operation.verify())


# CHECK-LABEL: TEST: test_scf_for_and_if
@run
def test_scf_for_and_if():
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        index = ir.IndexType.get()
        f32 = ir.F32Type.get()
        with ir.InsertionPoint(module.body):
            f = func.FuncOp("loop", ([index, f32, ir.IntegerType.get_signless(1)], [f32]))
            with ir.InsertionPoint(f.add_entry_block()):
                n, init, cond = f.arguments
                lb = arith.constant(index, 0)
                step = arith.constant(index, 1)
                loop = scf.ForOp(lb, n, step, [init])
                with ir.InsertionPoint(loop.body):
                    acc = arith.addf(loop.inner_iter_args[0], loop.inner_iter_args[0])
                    scf.yield_([acc])
                branch = scf.IfOp(cond, [f32], hasElse=True)
                with ir.InsertionPoint(branch.then_block):
                    scf.yield_([loop.results[0]])
                with ir.InsertionPoint(branch.else_block):
                    scf.yield_([init])
                for iv in scf.for_(0, 4):
                    scf.yield_([])
                func.ReturnOp([branch.results[0]])
        # CHECK: %0 = scf.for %arg3 = %c0 to %arg0 step %c1 iter_args(%arg4 = %arg1) -> (f32) {
        # CHECK:   %2 = arith.addf %arg4, %arg4 : f32
        # CHECK:   scf.yield %2 : f32
        # CHECK: %1 = scf.if %arg2 -> (f32) {
        # CHECK: } else {
        # CHECK: scf.for %arg3 = %c0_0 to %c4 step %c1_1 {
        print(module)
        # CHECK: True index 1 True
        print(loop.induction_variable == loop.body.arguments[0],
              loop.induction_variable.type, len(loop.inner_iter_args),
              loop.initArgs[0] == init)
        # CHECK: ForOp IfOp
        block = f.entry_block
        print(type(block.operations[2]).__name__, type(block.operations[3]).__name__)
        expect_error(TypeError, lambda: scf.ForOp(lb, n, step, [3]))
        # CHECK: TypeError: expected a Value, Operation or OpView, got int
        expect_error(ValueError, lambda: next(scf.for_(0.5, 4)))
        # CHECK: ValueError: loop bound 0.5 must be an int or a value
        # CHECK: True
        print(module.operation.verify())


# CHECK-LABEL: TEST: test_scf_index_switch
@run
def test_scf_index_switch():
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        index = ir.IndexType.get()
        i32 = ir.IntegerType.get_signless(32)
        calls = []
        with ir.InsertionPoint(module.body):
            f = func.FuncOp("pick", ([index], [i32, i32]))
            with ir.InsertionPoint(f.add_entry_block()):
                def default(op):
                    calls.append("default")
                    scf.yield_([arith.constant(i32, -1)])

                def case(op, i, value):
                    calls.append(f"case {i}={value}")
                    scf.yield_([arith.constant(i32, 100 + value)])

                picked = scf.index_switch([i32], f.arguments[0], [2, 5],
                                          case_body_builder=case,
                                          default_body_builder=default)
                # With a constant selector, canonicalize keeps only case 5.
                five = arith.constant(index, 5)
                fixed = scf.index_switch([i32], five, range(2, 7), case,
                                         default)
                func.ReturnOp([picked, fixed])
        # CHECK: %[[P:.*]] = scf.index_switch %arg0 -> i32
        # CHECK: case 2 {
        # CHECK:   %{{.*}} = arith.constant 102 : i32
        # CHECK: case 5 {
        # CHECK:   %{{.*}} = arith.constant 105 : i32
        # CHECK: default {
        # CHECK:   %{{.*}} = arith.constant -1 : i32
        print(module)
        # Default first, then the cases in order (as upstream).
        # CHECK: default, case 0=2, case 1=5, default, case 0=2
        print(", ".join(calls[:5]))
        # CHECK: True OpResult IndexSwitchOp
        print(module.operation.verify(), type(picked).__name__,
              type(picked.owner).__name__)
        switch = picked.owner
        passmanager.PassManager.parse("builtin.module(canonicalize)").run(
            module.operation)
        # CHECK: %[[C:.*]] = arith.constant 105 : i32
        # CHECK: return %{{.*}}, %[[C]] : i32, i32
        print(f)
        # CHECK: live 2
        print(switch.operation.handle_state, len(switch.case_blocks))

        # The generated builder: the region count fourth, no blocks.
        with ir.InsertionPoint(module.body):
            raw = scf.IndexSwitchOp([], f.arguments[0], [1, 2], 2)
            # CHECK: generated: 3 regions, 0 blocks
            print(f"generated: {len(raw.regions)} regions, "
                  f"{sum(len(r.blocks) for r in raw.regions)} blocks")
            raw.operation.erase()

        # A body builder that raises leaves nothing behind.
        with ir.InsertionPoint(f.entry_block.operations[0]):
            def failing(op, i, value):
                scf.yield_([arith.constant(i32, value)])
                if value == 3:
                    raise KeyError("no case 3")

            count = len(f.entry_block.operations)
            expect_error(KeyError, lambda: scf.index_switch(
                [i32], f.arguments[0], [1, 3], failing, default))
            # CHECK: KeyError: 'no case 3'
            expect_error(TypeError, lambda: scf.index_switch(
                [i32], f.arguments[0], [1], "not callable"))
            # CHECK: TypeError: IndexSwitchOp: case_body_builder must be callable, got str
            expect_error(TypeError, lambda: scf.index_switch(
                [i32], f.arguments[0], [1.5]))
            # CHECK: TypeError: IndexSwitchOp: the cases must be ints, got 1.5
            expect_error(TypeError, lambda: scf.index_switch(
                [i32], f.arguments[0], [1], lambda op: None))
            # CHECK: TypeError: {{.*}}takes 1 positional argument but 3 were given
            # CHECK: nothing left: True True
            print("nothing left:", len(f.entry_block.operations) == count,
                  module.operation.verify())


# CHECK-LABEL: TEST: test_tensor_generate
@run
def test_tensor_generate():
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        index = ir.IndexType.get()
        dynamic = ir.ShapedType.get_dynamic_size()
        with ir.InsertionPoint(module.body):
            f = func.FuncOp("table", ([index], [index, index]))
            with ir.InsertionPoint(f.add_entry_block()):
                n = f.arguments[0]
                result_type = ir.RankedTensorType.get([dynamic, 4], index)

                # Upstream's form: annotated block arguments.
                @tensor.generate(result_type, dynamic_extents=[n])
                def table(i: index, j: index):
                    return arith.addi(arith.muli(i, arith.constant(index, 10)), j)

                # Annotations are optional here: the block is made from the type.
                @tensor.generate(ir.RankedTensorType.get([3], index))
                def iota(i):
                    return i

                two = arith.constant(index, 2)
                three = arith.constant(index, 3)
                func.ReturnOp([tensor.extract(table, [two, three]),
                               tensor.extract(iota, [two])])
        # CHECK: %[[T:.*]] = tensor.generate %arg0 {
        # CHECK: ^bb0(%[[I:.*]]: index, %[[J:.*]]: index):
        # CHECK:   %[[M:.*]] = arith.muli %[[I]], %{{.*}} : index
        # CHECK:   %[[A:.*]] = arith.addi %[[M]], %[[J]] : index
        # CHECK:   tensor.yield %[[A]] : index
        # CHECK: } : tensor<?x4xindex>
        print(f)
        # CHECK: True OpResult GenerateOp
        print(module.operation.verify(), type(table).__name__,
              type(table.owner).__name__)
        # Canonicalize folds each extract from a generate into the body's
        # value at that index: 2 * 10 + 3 and 2.
        passmanager.PassManager.parse("builtin.module(canonicalize)").run(
            module.operation)
        # CHECK-DAG: %[[C23:.*]] = arith.constant 23 : index
        # CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
        # CHECK: return %[[C23]], %[[C2]] : index, index
        print(f)

        # Hostile uses: refused before the op is built, or the op is erased.
        with ir.InsertionPoint(f.entry_block.operations[0]):
            m = arith.constant(index, 7)
            one = arith.constant(ir.F32Type.get(), 1.0)
            count = len(f.entry_block.operations)
            expect_error(TypeError, lambda: tensor.generate(index, []))
            # CHECK: TypeError: tensor.generate makes a ranked tensor: result must be a RankedTensorType, got index
            expect_error(ValueError, lambda: tensor.generate(result_type, []))
            # CHECK: ValueError: tensor.generate of tensor<?x4xindex> needs 1 dynamic extent(s), one per dynamic dimension; got 0
            expect_error(TypeError, lambda: tensor.generate(result_type, [one]))
            # CHECK: TypeError: a dynamic extent must be an index value, got one of type f32

            def body_raises():
                @tensor.generate(result_type, [m])
                def g(i, j):
                    arith.addi(i, j)
                    raise RuntimeError("body failed")

            def wrong_annotation():
                @tensor.generate(result_type, [m])
                def g(i: ir.F32Type.get(), j):
                    return i

            def wrong_arity():
                @tensor.generate(result_type, [m])
                def g(i):
                    return i

            def wrong_element():
                @tensor.generate(result_type, [m])
                def g(i, j):
                    return arith.constant(ir.IntegerType.get_signless(32), 0)

            def two_values():
                @tensor.generate(result_type, [m])
                def g(i, j):
                    return i, j

            expect_error(RuntimeError, body_raises)
            # CHECK: RuntimeError: body failed
            expect_error(TypeError, wrong_annotation)
            # CHECK: TypeError: the block arguments of 'tensor.generate' are index values; parameter 'i' is annotated f32
            expect_error(TypeError, wrong_arity)
            # CHECK: TypeError: the body of 'tensor.generate' has 2 block argument(s), but g(i) cannot take 2 positional argument(s)
            expect_error(TypeError, wrong_element)
            # CHECK: TypeError: the body of 'tensor.generate' must return a value of the element type index, got one of type i32
            expect_error(ValueError, two_values)
            # CHECK: ValueError: the body of 'tensor.generate' must return one value (the element), got 2
            # CHECK: nothing left: True True
            print("nothing left:", len(f.entry_block.operations) == count,
                  module.operation.verify())


# CHECK-LABEL: TEST: test_built_ops_are_tracked
@run
def test_built_ops_are_tracked():
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        i32 = ir.IntegerType.get_signless(32)
        with ir.InsertionPoint(module.body):
            f = func.FuncOp("f", ([i32], [i32]))
            with ir.InsertionPoint(f.add_entry_block()):
                zero = arith.ConstantOp(i32, 0)
                add = arith.AddIOp(f.arguments[0], zero)
                func.ReturnOp([add])
        pm = passmanager.PassManager.parse("builtin.module(canonicalize)")
        pm.run(module.operation)
        # x + 0 folds away: the handle says so, and never shows another op.
        # CHECK: erased
        print(add.operation.handle_state)
        expect_error(ir.InvalidatedHandleError, lambda: add.result)
        # CHECK: InvalidatedHandleError: {{.*}}arith.addi
        # CHECK: live FuncOp
        print(f.operation.handle_state, type(module.body.operations[0]).__name__)


# CHECK-LABEL: TEST: test_views_of_ops_replaced_by_another_name
@run
def test_views_of_ops_replaced_by_another_name():
    # canonicalize folds an addi of two constants into an arith.constant and
    # the handle follows it; a dialect conversion replaces an arith.muli by
    # an llvm.mul. The views keep their class (AddIOp, MulIOp), whose
    # generated accessors read operands the new op lacks (a bare IndexError)
    # or its results and attributes under the old meaning: they raise
    # TypeError instead, and `view.opview` gives the current op's class.
    from mlir_tracking import rewrite

    with ir.Context():
        module = ir.Module.parse("""
          func.func @f(%x: i32, %y: i32) -> (i32, i32) {
            %a = arith.constant 1 : i32
            %b = arith.constant 2 : i32
            %sum = arith.addi %a, %b overflow<nsw> : i32
            %product = arith.muli %x, %y : i32
            return %sum, %product : i32, i32
          }""")
        entry = module.body.operations[0].regions[0].blocks[0]
        add, mul = entry.operations[2], entry.operations[3]
        # CHECK: AddIOp MulIOp
        print(type(add).__name__, type(mul).__name__)
        passmanager.PassManager.parse("builtin.module(canonicalize)").run(
            module.operation)
        # CHECK: live arith.constant AddIOp
        print(add.operation.handle_state, add.operation.name, type(add).__name__)
        expect_error(TypeError, lambda: add.lhs)
        # CHECK: TypeError: AddIOp.lhs: this AddIOp view is stale: its 'arith.addi' op was replaced by an 'arith.constant' op; use view.opview for a view of the current op, or view.operation
        expect_error(TypeError, lambda: add.result)
        # CHECK: TypeError: AddIOp.result: this AddIOp view is stale
        expect_error(TypeError, lambda: add.overflowFlags)
        # CHECK: TypeError: AddIOp.overflowFlags: this AddIOp view is stale
        # CHECK: %c3_i32 = arith.constant 3 : i32 arith.constant
        print(add, add.name)
        # CHECK: ConstantOp True 3
        print(type(add.opview).__name__, add.opview is add.operation.opview,
              add.opview.literal_value)

        converter = rewrite.TypeConverter()
        converter.add_conversion(lambda t: t)
        target = rewrite.ConversionTarget()
        target.add_legal_dialect("llvm")
        target.add_illegal_op("arith.muli")

        def to_llvm_mul(op, operands, type_converter, rewriter):
            with rewriter.ip:
                new = ir.Operation.create("llvm.mul", results=[op.results[0].type],
                                          operands=operands, loc=op.location)
            rewriter.replace_op(op, new)

        patterns = rewrite.RewritePatternSet()
        patterns.add_conversion("arith.muli", to_llvm_mul, converter)
        rewrite.apply_partial_conversion(module, target, patterns.freeze())
        # CHECK: live llvm.mul MulIOp
        print(mul.operation.handle_state, mul.operation.name, type(mul).__name__)
        expect_error(TypeError, lambda: mul.lhs)
        # CHECK: TypeError: MulIOp.lhs: this MulIOp view is stale: its 'arith.muli' op was replaced by an 'llvm.mul' op
        # CHECK: MulOp True
        print(type(mul.opview).__name__,
              mul.opview.lhs == entry.arguments[0])
