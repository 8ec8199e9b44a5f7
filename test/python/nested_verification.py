# RUN: %PYTHON %s | FileCheck %s
# Verification made on the calling thread (every print, and Operation.verify,
# the rewrite drivers and the tracked transform interpreter inside a Python
# pass) checks every nested op, block and terminator as mlir::verify does.
# Before, it verified only the isolated-from-above ops themselves: an invalid
# op inside a module or function reached its custom printer or a folder and
# crashed (adversarial pass 59).

from mlir_tracking import ir, passmanager, rewrite
from mlir_tracking.dialects import arith, func
from mlir_tracking.dialects.transform import interpreter


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


def first_line_of_errors(error):
    return [d.message.splitlines()[0] for d in error.error_diagnostics]


# CHECK-LABEL: TEST: test_printing_ir_with_an_invalid_nested_op
# CHECK: "arith.constant"() : () -> i32
# CHECK: "arith.constant"() : () -> i32
# CHECK: %0
# CHECK: "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
# CHECK: "func.func"() <{{.*}}> ({
# CHECK: "func.return"() : () -> ()
@run
def test_printing_ir_with_an_invalid_nested_op():
    with ir.Context(), ir.Location.unknown():
        i32 = ir.IntegerType.get_signless(32)
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            # No `value`: arith.constant's printer and result namer read it.
            constant = ir.Operation.create("arith.constant", results=[i32])
        print(module)
        print(constant)
        print(constant.result.get_name())
        # A function without its terminator yet (a from_py_func body).
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            @func.FuncOp.from_py_func()
            def f():
                print(arith.ConstantOp(ir.F32Type.get(), 0.0))
        # A function whose op misses its type: its return's verifier reads
        # that type, so the function is checked before the ops in it.
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            function = ir.Operation.create(
                "func.func", regions=1,
                attributes={"sym_name": ir.StringAttr.get("g")})
        block = function.regions[0].blocks.append()
        with ir.InsertionPoint(block):
            ir.Operation.create("func.return")
        print(module)
        try:
            module.operation.verify()
        except ir.MLIRError as e:
            # CHECK: ["'func.func' op requires attribute 'function_type'"]
            print(first_line_of_errors(e))


# CHECK-LABEL: TEST: test_blocks_are_checked
# CHECK: ["'func.return' op must be the last operation in the parent block"]
# CHECK: ['block with no terminator, has %0 = "arith.constant"() <{value = 1 : i32}> : () -> i32']
# CHECK: ['empty block: expect at least a terminator']
@run
def test_blocks_are_checked():
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse("""
          func.func @f() {
            return
          }""")

        def verify():
            try:
                module.operation.verify()
                print("verified")
            except ir.MLIRError as e:
                print(first_line_of_errors(e))

        def unfinished_blocks(op, pass_):
            body = op.regions[0].blocks[0].operations[0].regions[0].blocks[0]
            ret = body.operations[0]
            with ir.InsertionPoint(ret):
                constant = arith.ConstantOp(ir.IntegerType.get_signless(32), 1)
            constant.move_after(ret)
            verify()
            ret.detach_from_parent()
            verify()
            constant.operation.erase()
            verify()
            body.append(ret)

        pm = passmanager.PassManager("builtin.module")
        pm.add(unfinished_blocks, name="unfinished_blocks")
        pm.run(module.operation)
        # CHECK: verified
        verify()


# CHECK-LABEL: TEST: test_verify_inside_a_python_pass
# CHECK: ["'arith.addi' op expected 2 operands, but found 0"]
# CHECK: ["'arith.constant' op requires attribute 'value'"]
# CHECK: MLIRError
@run
def test_verify_inside_a_python_pass():
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse("""
          func.func @f() -> i32 {
            %c = arith.constant 1 : i32
            return %c : i32
          }""")
        i32 = ir.IntegerType.get_signless(32)

        def add_invalid_ops(op, pass_):
            function = op.regions[0].blocks[0].operations[0]
            ret = function.regions[0].blocks[0].operations[1]
            with ir.InsertionPoint(ret):
                bad = ir.Operation.create("arith.addi", results=[i32])
            try:
                op.verify()
                print("verified")
            except ir.MLIRError as e:
                print(first_line_of_errors(e))
            bad.erase()
            # Folders of the driver below would read the missing value.
            with ir.InsertionPoint(ret):
                constant = ir.Operation.create("arith.constant", results=[i32])
                add = ir.Operation.create(
                    "arith.addi", results=[i32],
                    operands=[constant.result, constant.result])
            ret.operands[0] = add.result
            patterns = rewrite.RewritePatternSet()
            patterns.add_canonicalization_patterns()
            try:
                rewrite.apply_patterns_and_fold_greedily(op, patterns.freeze())
                print("rewritten")
            except ir.MLIRError as e:
                print(first_line_of_errors(e))
                raise

        pm = passmanager.PassManager("builtin.module")
        pm.add(add_invalid_ops, name="add_invalid_ops")
        try:
            pm.run(module.operation)
        except ir.MLIRError as e:
            print(type(e).__name__)


# CHECK-LABEL: TEST: test_named_sequence_with_an_invalid_nested_op
# CHECK: refused: Failed to apply named transform sequence: error: unknown: 'transform.get_parent_op' op requires a single operand {{.*}} the transform script does not verify
@run
def test_named_sequence_with_an_invalid_nested_op():
    with ir.Context(), ir.Location.unknown():
        payload = ir.Module.parse("""
          func.func @f(%a: i32) -> i32 {
            %0 = arith.addi %a, %a : i32
            return %0 : i32
          }""")
        script = ir.Module.parse("""
          module attributes {transform.with_named_sequence} {
            transform.named_sequence @__transform_main(
                %arg0: !transform.any_op {transform.readonly}) {
              transform.yield
            }
          }""")
        sequence = script.body.operations[0]
        body = sequence.regions[0].blocks[0]
        with ir.InsertionPoint(body.operations[0]):
            # transform.get_parent_op without its target operand: applying
            # it would read the missing operand.
            ir.Operation.create(
                "transform.get_parent_op",
                results=[ir.Type.parse("!transform.any_op")])
        try:
            interpreter.apply_named_sequence(payload, sequence, script)
            print("applied")
        except ir.MLIRError as e:
            print("refused:", " ".join(str(e).split()))
        # CHECK: func.func @f
        print(payload)
