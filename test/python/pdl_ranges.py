# RUN: %PYTHON %s | FileCheck %s
# PDL hands rewrite functions ranges (`pdl.operands`, `pdl.types` of an op)
# that point into the op's operand or result lists: the op may not go while
# PDL still reads such a range, neither from a caster run while the range
# becomes a Python list, nor from an earlier function of the same rewrite.

import gc

from mlir_tracking import ir, rewrite

FUNC = """
func.func @f(%a: i32, %b: i32) -> (i32, i32) {
  %m:2 = "test.two"(%a, %b) : (i32, i32) -> (i32, i32)
  return %m#0, %m#1 : i32, i32
}
"""


def pdl_calling(*calls):
    # One pattern on "test.two" whose rewrite calls the native functions
    # `calls` with its operands (a value range) and result types (a type
    # range).
    body = "\n".join(
        f'pdl.apply_native_rewrite "{name}"(%ops, %types : '
        "!pdl.range<value>, !pdl.range<type>)" for name in calls)
    return ir.Module.parse("""
      module {
        pdl.pattern : benefit(1) {
          %ops = pdl.operands
          %types = pdl.types
          %op = pdl.operation "test.two"(%ops : !pdl.range<value>)
              -> (%types : !pdl.range<type>)
          pdl.rewrite %op {
            """ + body + """
            pdl.erase %op
          }
        }
      }""")


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    return f


def setup():
    module = ir.Module.parse(FUNC)
    block = module.body.operations[0].regions[0].blocks[0]
    two = block.operations[0].operation
    return module, block, two


def erase_root(two, block, log, who):
    # What a hostile callback does: take the op's uses away and erase it.
    try:
        two.replace_all_uses_with(list(block.arguments))
        two.erase()
        log.append(f"{who} erased the op")
    except RuntimeError as error:
        log.append(f"{who} refused: {str(error).splitlines()[0]}")


def apply(module, pdl_module, functions):
    pdl = rewrite.PDLModule(pdl_module)
    for name, fn in functions.items():
        pdl.register_rewrite_function(name, fn)
    rewrite.apply_patterns_and_fold_greedily(module, pdl.freeze())


# CHECK-LABEL: TEST: test_caster_erasing_the_op_of_a_range
@run
def test_caster_erasing_the_op_of_a_range():
    # CHECK: the value caster refused: cannot erase 'test.two': PDL (passing its values to 'fn') still uses it (or IR in it) after this Python code returns
    # CHECK-NEXT: fn got 2 values, 2 types
    # CHECK-NEXT: erased by the pattern: True
    # CHECK-NEXT: the type caster refused: cannot erase 'test.two': PDL (passing its values to 'fn') still uses it (or IR in it) after this Python code returns
    # CHECK-NEXT: fn got 2 values, 2 types
    # CHECK-NEXT: erased by the pattern: True
    for kind, register in [("value", ir.register_value_caster),
                           ("type", ir.register_type_caster)]:
        with ir.Context() as context:
            context.allow_unregistered_dialects = True
            module, block, two = setup()
            log, armed = [], [True]

            def caster(item):
                if armed[0]:
                    armed[0] = False
                    erase_root(two, block, log, f"the {kind} caster")
                return item

            register(ir.IntegerType.static_typeid, replace=True)(caster)
            try:
                def fn(rewriter, results, values):
                    log.append(f"fn got {len(values[0])} values, "
                               f"{len(values[1])} types")

                apply(module, pdl_calling("fn"), {"fn": fn})
            finally:
                register(ir.IntegerType.static_typeid, replace=True)(lambda x: x)
            print(*log, sep="\n")
            print("erased by the pattern:", "test.two" not in str(module))


# CHECK-LABEL: TEST: test_function_erasing_the_op_of_a_later_range
@run
def test_function_erasing_the_op_of_a_later_range():
    with ir.Context() as context:
        context.allow_unregistered_dialects = True
        module, block, two = setup()
        log = []

        def first(rewriter, results, values):
            erase_root(two, block, log, "first")

        def second(rewriter, results, values):
            log.append(f"second got {[str(v.type) for v in values[0]]} "
                       f"{[str(t) for t in values[1]]}")

        apply(module, pdl_calling("first", "second"),
              {"first": first, "second": second})
        # CHECK: first refused: cannot erase 'test.two': the PDL rewrite calling 'first' still uses it (or IR in it) after this Python code returns
        # CHECK-NEXT: second got ['i32', 'i32'] ['i32', 'i32']
        print(*log, sep="\n")
        # CHECK: verifies: True
        print("verifies:", module.operation.verify())
