# RUN: %PYTHON %s | FileCheck %s
# What Python code called back by a pass, a rewrite driver or PDL may not do,
# and the clear error it gets instead. Each of these used to free or move IR
# that the pass manager, the driver or PDL's matcher still used (segfaults,
# reads of freed memory; found by an adversarial pass over callbacks).

import gc

from mlir_tracking import ir, rewrite
from mlir_tracking.dialects.transform import interpreter
from mlir_tracking.passmanager import PassManager


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    return f


FUNCS = """
func.func @f(%a: i32, %b: i32) -> i32 {
  %m = arith.muli %a, %b : i32
  %d = arith.addi %a, %a : i32
  return %m : i32
}
func.func @g(%a: i32) -> i32 {
  return %a : i32
}
"""


def first_line(error):
    """The first line of the error, or of the pass's error in an MLIRError."""
    lines = str(error).splitlines()
    return next((line.strip() for line in lines if "raised" in line),
                lines[0])


def intact(module):
    """The IR is whole: both functions, and it verifies."""
    return [op.attributes["sym_name"].value
            for op in module.body.operations], module.operation.verify()


# CHECK-LABEL: TEST: test_pass_may_not_remove_its_op
@run
def test_pass_may_not_remove_its_op():
    cases = {
        "erase": ("func.func", lambda op: op.erase()),
        "detach": ("func.func", lambda op: op.detach_from_parent()),
        "move": ("func.func", lambda op: op.move_after(op)),
        "erase module": ("builtin.module", lambda op: op.erase()),
    }
    for name, (anchor, change) in cases.items():
        with ir.Context():
            module = ir.Module.parse(FUNCS)

            def remove(op, pass_):
                change(op)

            pm = PassManager("builtin.module")
            pm.add(remove, name="remove", op_name=anchor)
            try:
                pm.run(module.operation)
                print(name, "ran", intact(module))
            except ir.MLIRError as e:
                print(name, first_line(e), intact(module))
    # CHECK: erase error: "-":2:1: Python pass 'remove' raised: RuntimeError: cannot erase 'func.func': it is the op the Python pass 'remove' runs on, which still uses it after the Python code returns (['f', 'g'], True)
    # CHECK: detach {{.*}}cannot detach 'func.func': it is the op the Python pass 'remove' runs on{{.*}} (['f', 'g'], True)
    # Moving an op next to itself changes nothing: allowed.
    # CHECK: move ran (['f', 'g'], True)
    # CHECK: erase module {{.*}}cannot erase 'builtin.module': it is the op the Python pass 'remove' runs on{{.*}} (['f', 'g'], True)


# CHECK-LABEL: TEST: test_pass_object_ends_with_the_pass
@run
def test_pass_object_ends_with_the_pass():
    # Kept by a pass that raised, the Pass object must not point at the
    # pass after it returned (it was only cleared on a normal return).
    saved = []
    with ir.Context():
        module = ir.Module.parse(FUNCS)

        def keep_and_raise(op, pass_):
            saved.append(pass_)
            raise ValueError("boom")

        pm = PassManager("builtin.module")
        pm.add(keep_and_raise, name="keeper")
        try:
            pm.run(module.operation)
        except ir.MLIRError:
            pass
        del pm
        gc.collect()
        # CHECK: None
        print(saved[0].name)
        try:
            saved[0].signal_pass_failure()
        except RuntimeError as e:
            # CHECK: signal_pass_failure called after the pass returned
            print(e)


# CHECK-LABEL: TEST: test_pattern_may_not_erase_the_driver_op
@run
def test_pattern_may_not_erase_the_driver_op():
    for driver in (rewrite.apply_patterns_and_fold_greedily,
                   rewrite.walk_and_apply_patterns):
        with ir.Context():
            module = ir.Module.parse(FUNCS)
            f = module.body.operations[0]

            def erase_function(op, rewriter):
                rewriter.erase_op(op.parent)

            patterns = rewrite.RewritePatternSet()
            patterns.add("arith.muli", erase_function)
            try:
                driver(f, patterns.freeze())
            except RuntimeError as e:
                print(first_line(e), intact(module))
    # CHECK: cannot erase 'func.func': it is the op the rewrite driver 'apply_patterns_and_fold_greedily' runs on{{.*}} (['f', 'g'], True)
    # CHECK: cannot erase 'func.func': it is the op the rewrite driver 'walk_and_apply_patterns' runs on{{.*}} (['f', 'g'], True)


# CHECK-LABEL: TEST: test_walk_pattern_changes_only_its_op
@run
def test_walk_pattern_changes_only_its_op():
    # The walk driver holds the op it visits next: a pattern erasing it
    # made the walk visit freed memory.
    with ir.Context():
        module = ir.Module.parse(FUNCS)
        f = module.body.operations[0]
        seen = []

        def erase_next(op, rewriter):
            following = list(op.parent.regions[0].blocks[0].operations)[1]
            try:
                rewriter.erase_op(following)
            except RuntimeError as e:
                seen.append(first_line(e))
            # Its own op it may replace.
            rewriter.replace_op(op, [op.operands[0]])

        patterns = rewrite.RewritePatternSet()
        patterns.add("arith.muli", erase_next)
        rewrite.walk_and_apply_patterns(f, patterns.freeze())
        # CHECK: cannot erase 'arith.addi' from a pattern of walk_and_apply_patterns: the walk holds it (an ancestor of the matched op, or the op it visits after the matched op or after one of its ancestors)
        print(seen[0])
        # CHECK: arith.addi
        # CHECK-NOT: arith.muli
        # CHECK: return %arg0 : i32
        print(f)


PDL = """
module {
  pdl.pattern : benefit(1) {
    %type = pdl.type : i32
    %lhs = pdl.operand
    %rhs = pdl.operand
    %op = pdl.operation "arith.muli"(%lhs, %rhs : !pdl.value, !pdl.value) -> (%type : !pdl.type)
    pdl.apply_native_constraint "changes_ir"(%op : !pdl.operation)
    pdl.rewrite %op with "tag"(%op : !pdl.operation)
  }
}
"""


# CHECK-LABEL: TEST: test_pdl_constraint_may_not_change_ir
@run
def test_pdl_constraint_may_not_change_ir():
    with ir.Context():
        module = ir.Module.parse(FUNCS)
        pdl = rewrite.PDLModule(ir.Module.parse(PDL))

        def changes_ir(rewriter, results, values):
            rewriter.erase_op(values[0])

        def tag(rewriter, results, values):
            values[0].attributes["tagged"] = ir.UnitAttr.get()

        pdl.register_constraint_function("changes_ir", changes_ir)
        pdl.register_rewrite_function("tag", tag)
        try:
            rewrite.apply_patterns_and_fold_greedily(module, pdl.freeze())
        except Exception as e:
            # CHECK: cannot erase from a PDL constraint function: it may not change IR (PDL is still matching)
            print(first_line(e)[first_line(e).find("cannot"):])
        # CHECK: (['f', 'g'], True)
        print(intact(module))


SCRIPT = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    transform.apply_patterns to %root {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
}
"""


# CHECK-LABEL: TEST: test_no_transform_sequence_inside_a_pattern
@run
def test_no_transform_sequence_inside_a_pattern():
    with ir.Context():
        module = ir.Module.parse(FUNCS)
        script = ir.Module.parse(SCRIPT)

        def transform(op, rewriter):
            interpreter.apply_named_sequence(
                op.parent, script.body.operations[0], script)

        patterns = rewrite.RewritePatternSet()
        patterns.add("arith.muli", transform)
        try:
            rewrite.apply_patterns_and_fold_greedily(module, patterns.freeze())
        except RuntimeError as e:
            # CHECK: cannot apply a transform sequence from inside a rewrite pattern; use the PatternRewriter
            print(first_line(e))
        # CHECK: (['f', 'g'], True)
        print(intact(module))
