# RUN: %PYTHON %s | FileCheck %s
# A PDL rewrite goes on after a native rewrite function returns with the ops
# and values it still uses: from the matcher, the root, an earlier function,
# or a range (`pdl.operands`, `pdl.types` of an op) that points into an op's
# operand or result list. The Python function may not erase them, neither
# from a caster run while its arguments become Python objects, nor through
# a handle it holds from elsewhere.

import faulthandler
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


CHAIN = """
func.func @f(%a: i32) -> i32 {
  %d = "test.def"(%a) : (i32) -> i32
  %u = "test.user"(%d) : (i32) -> i32
  return %u : i32
}
"""


def chain_pdl(rewrite_body):
    # "test.user" fed by "test.def", both bound by the matcher.
    return ir.Module.parse("""
      module {
        pdl.pattern : benefit(1) {
          %t = pdl.type
          %no = pdl.operands
          %def = pdl.operation "test.def"(%no : !pdl.range<value>)
              -> (%t : !pdl.type)
          %v = pdl.result 0 of %def
          %root = pdl.operation "test.user"(%v : !pdl.value) -> (%t : !pdl.type)
          pdl.rewrite %root {
            """ + rewrite_body + """
          }
        }
      }""")


# CHECK-LABEL: TEST: test_function_erasing_an_op_of_the_matcher
@run
def test_function_erasing_an_op_of_the_matcher():
    # The function gets only a type, but erases the matched "test.def"
    # through a handle of its own, and the rewrite then erases it again.
    with ir.Context() as context:
        context.allow_unregistered_dialects = True
        module = ir.Module.parse(CHAIN)
        block = module.body.operations[0].regions[0].blocks[0]
        definer, user = block.operations[0].operation, block.operations[1].operation
        log = []

        def fn(rewriter, results, values):
            user.operands[0] = block.arguments[0]
            try:
                rewriter.erase_op(definer)
            except RuntimeError as error:
                log.append(str(error))

        apply(module, chain_pdl("""
            pdl.apply_native_rewrite "fn"(%t : !pdl.type)
            pdl.erase %def"""), {"fn": fn})
        # CHECK: cannot erase 'test.def': the PDL rewrite calling 'fn' still uses it (or IR in it) after this Python code returns
        print(*log)
        # CHECK: erased by the rewrite: True True
        print("erased by the rewrite:", definer.handle_state == "erased",
              module.operation.verify())


# CHECK-LABEL: TEST: test_function_erasing_an_earlier_functions_result
@run
def test_function_erasing_an_earlier_functions_result():
    # "make" returns a new op that the rewrite replaces the root with after
    # "spoil" ran; "spoil" reaches the new op through a handle of its own.
    with ir.Context() as context:
        context.allow_unregistered_dialects = True
        module = ir.Module.parse(CHAIN)
        argument = module.body.operations[0].regions[0].blocks[0].arguments[0]
        made, log = [], []

        def make(rewriter, results, values):
            with ir.InsertionPoint(values[0]), ir.Location.unknown():
                made.append(ir.Operation.create(
                    "test.new", results=[argument.type], operands=[argument]))
            results.append(made[0])

        def spoil(rewriter, results, values):
            try:
                rewriter.erase_op(made[0])
            except RuntimeError as error:
                log.append(str(error))

        apply(module, chain_pdl("""
            %new = pdl.apply_native_rewrite "make"(%root : !pdl.operation)
                : !pdl.operation
            pdl.apply_native_rewrite "spoil"(%t : !pdl.type)
            pdl.replace %root with %new"""), {"make": make, "spoil": spoil})
        # CHECK: cannot erase 'test.new': the PDL rewrite calling 'spoil' still uses it (or IR in it) after this Python code returns
        print(*log)
        # CHECK: replaced: live ['test.new'] True
        print("replaced:", made[0].handle_state,
              [op.name for op in module.body.operations[0].regions[0]
               .blocks[0].operations][1:2], module.operation.verify())


# CHECK-LABEL: TEST: test_conversion_replacement_dying_with_an_op_not_passed
@run
def test_conversion_replacement_dying_with_an_op_not_passed():
    # The function returns the matched "test.def"'s own result without
    # getting "test.def", and the rewrite replaces "test.def" by it: under a
    # dialect conversion that loops forever, so the function fails.
    with ir.Context() as context:
        context.allow_unregistered_dialects = True
        module = ir.Module.parse(CHAIN)
        definer = module.body.operations[0].regions[0].blocks[0].operations[0]

        def pick(rewriter, results, values):
            results.append(definer.results[0])

        pdl = rewrite.PDLModule(chain_pdl("""
            %picked = pdl.apply_native_rewrite "pick"(%t : !pdl.type)
                : !pdl.value
            pdl.replace %def with (%picked : !pdl.value)"""))
        pdl.register_rewrite_function("pick", pick)
        target = rewrite.ConversionTarget()
        target.add_illegal_op("test.user")
        try:
            rewrite.apply_partial_conversion(module, target, pdl.freeze())
        except (RuntimeError, ir.MLIRError) as error:
            # CHECK: PDL rewrite function 'pick' returned result #0, which its PDL rewrite uses to replace 'test.def', and which dies with it
            print(type(error).__name__, str(error).splitlines()[0])
        # CHECK: verifies: True
        print("verifies:", module.operation.verify())


def two_op_pdl(rewrite_body):
    # A pattern on "test.two" binding the op, its operands, result types,
    # results and first result.
    return ir.Module.parse("""
      module {
        pdl.pattern : benefit(1) {
          %ops = pdl.operands
          %types = pdl.types
          %op = pdl.operation "test.two"(%ops : !pdl.range<value>)
              -> (%types : !pdl.range<type>)
          %results = pdl.results of %op
          %first = pdl.result 0 of %op
          pdl.rewrite %op {
            """ + rewrite_body + """
          }
        }
      }""")


# CHECK-LABEL: TEST: test_use_after_pdl_erases_the_op
@run
def test_use_after_pdl_erases_the_op():
    # After `pdl.erase` or `pdl.replace` of an op, the rewrite may not use
    # it, its results, or the ranges of its operands and result types: the
    # module is refused when it is built.
    uses = {"the op": "%op : !pdl.operation",
            "a result": "%first : !pdl.value",
            "its results": "%results : !pdl.range<value>",
            "its operands": "%ops : !pdl.range<value>",
            "its result types": "%types : !pdl.range<type>"}
    replace = """%new = pdl.operation "test.new" -> (%types : !pdl.range<type>)
                 pdl.replace %op with %new"""
    for eraser in ("pdl.erase %op", replace):
        for what, argument in uses.items():
            with ir.Context():
                try:
                    rewrite.PDLModule(two_op_pdl(eraser + """
                        pdl.apply_native_rewrite "fn"(""" + argument + ")"))
                    print(what, "accepted")
                except ValueError as error:
                    print(what, "refused:", str(error).split(") ")[1])
    # CHECK-COUNT-10: refused: uses an op that 'pdl.{{erase|replace}}' erased before it, or a value or range that died with it
    # A range built from a result before the erasure holds that result
    # (PDL built a new op on the freed value: heap corruption).
    with ir.Context():
        try:
            rewrite.PDLModule(two_op_pdl("""
                %r = pdl.range %first, %first : !pdl.value, !pdl.value
                pdl.erase %op
                %n = pdl.operation "test.new"(%r : !pdl.range<value>)
                    -> (%types : !pdl.range<type>)"""))
            print("range accepted")
        except ValueError as error:
            # CHECK-NEXT: range refused: uses an op that 'pdl.erase' erased before it, or a value or range that died with it
            print("range refused:", str(error).split(") ")[1])
    # Before the erasure, all of them may be used.
    with ir.Context():
        rewrite.PDLModule(two_op_pdl("""
            pdl.apply_native_rewrite "fn"(%op, %first, %results, %ops, %types
                : !pdl.operation, !pdl.value, !pdl.range<value>,
                  !pdl.range<value>, !pdl.range<type>)
            pdl.erase %op"""))
        # CHECK-NEXT: used before: accepted
        print("used before: accepted")


NESTED = """
func.func @f(%a: i32) {
  %x = "test.def"(%a) : (i32) -> i32
  "test.parent"(%x) ({
    "test.inner"(%x) : (i32) -> ()
    "test.end"() : () -> ()
  }) : (i32) -> ()
  return
}
"""


def run_driver(driver, module, frozen):
    if driver == "greedy":
        rewrite.apply_patterns_and_fold_greedily(module, frozen)
    elif driver == "walk":
        rewrite.walk_and_apply_patterns(module, frozen)
    else:
        target = rewrite.ConversionTarget()
        target.add_illegal_op("test.parent")
        target.add_legal_dialect("func")
        target.add_legal_op("test.new", "test.def", "test.inner", "test.end")
        config = rewrite.ConversionConfig()
        config.allow_pattern_rollback = False
        rewrite.apply_partial_conversion(module, target, frozen, config)


def nested_pdl(rewrite_body):
    """A PDL module with one pattern on "test.parent" and the "test.inner"
    nested in it (both users of %x, as in NESTED), rewriting with
    `rewrite_body`, which must use %inner."""
    return """
      module {
        pdl.pattern : benefit(1) {
          %t = pdl.type
          %x = pdl.operand : %t
          %parent = pdl.operation "test.parent"(%x : !pdl.value)
          %inner = pdl.operation "test.inner"(%x : !pdl.value)
          pdl.rewrite %parent {
            """ + rewrite_body + """
          }
        }
      }"""


def run_child_on_nested(pdl_text, *lines):
    """Runs, in a child Python process (for runs that stop the process),
    `lines` with `module` (NESTED) and `pdl` (a PDLModule of `pdl_text`)
    defined in a context allowing unregistered ops."""
    import subprocess, sys
    child = "\n".join([
        "from mlir_tracking import ir, rewrite",
        "with ir.Context() as context:",
        "    context.allow_unregistered_dialects = True",
        f"    module = ir.Module.parse({NESTED!r})",
        f"    pdl = rewrite.PDLModule(ir.Module.parse({pdl_text!r}))",
    ] + ["    " + line for line in lines])
    return subprocess.run([sys.executable, "-c", child],
                          capture_output=True, text=True)


# CHECK-LABEL: TEST: test_pdl_passing_what_its_rewrite_erased
@run
def test_pdl_passing_what_its_rewrite_erased():
    # The rewrite erases "test.parent", then passes a function an op PDL
    # still holds under another value: one nested in it (matched by the
    # matcher), or the same op a native function returned. No static check
    # sees it; the function is not called, and the run raises.
    passing = {
        "nested": ("", "%inner : !pdl.operation"),
        "alias": ('%alias = pdl.apply_native_rewrite "same"(%parent, %inner : '
                  "!pdl.operation, !pdl.operation) : !pdl.operation",
                  "%alias : !pdl.operation"),
    }
    for case, (before, argument) in passing.items():
        for eraser in ("pdl.erase %parent", "pdl.replace %parent with %new"):
            for driver in ("greedy", "walk", "conversion without rollback"):
                with ir.Context() as context:
                    context.allow_unregistered_dialects = True
                    module = ir.Module.parse(NESTED)
                    pdl = rewrite.PDLModule(ir.Module.parse(nested_pdl(
                        '%new = pdl.operation "test.new"\n' + before + "\n" +
                        eraser + '\npdl.apply_native_rewrite "use"(' +
                        argument + ")")))
                    called = []
                    pdl.register_rewrite_function(
                        "same", lambda r, results, values: results.append(values[0]))
                    pdl.register_rewrite_function(
                        "use", lambda r, results, values: called.append(values[0]))
                    try:
                        run_driver(driver, module, pdl.freeze())
                        print(case, driver, "ran")
                    except RuntimeError as error:
                        print(case, driver, "raised:", str(error).splitlines()[0],
                              "called:", len(called))
    # CHECK-COUNT-12: raised: PDL passes rewrite function 'use' IR that its rewrite erased before the call (an op it erased or replaced, one nested in it, or a value or range of one): the function was not called called: 0
    # CHECK-NOT: ran


# CHECK-LABEL: TEST: test_pdl_passing_a_constraints_alias_of_an_erased_value
@run
def test_pdl_passing_a_constraints_alias_of_an_erased_value():
    # A constraint returns the root's result; the rewrite replaces the root
    # and passes the function that value.
    with ir.Context() as context:
        context.allow_unregistered_dialects = True
        module = ir.Module.parse(CHAIN)
        pdl = rewrite.PDLModule(ir.Module.parse("""
          module {
            pdl.pattern : benefit(1) {
              %t = pdl.type
              %v = pdl.operand
              %root = pdl.operation "test.user"(%v : !pdl.value) -> (%t : !pdl.type)
              %r = pdl.result 0 of %root
              %alias = pdl.apply_native_constraint "same"(%r : !pdl.value) : !pdl.value
              pdl.rewrite %root {
                pdl.replace %root with (%v : !pdl.value)
                pdl.apply_native_rewrite "use"(%alias : !pdl.value)
              }
            }
          }"""))
        pdl.register_constraint_function(
            "same", lambda r, results, values: results.append(values[0]))
        pdl.register_rewrite_function("use", lambda r, results, values: None)
        try:
            rewrite.apply_patterns_and_fold_greedily(module, pdl.freeze())
        except RuntimeError as error:
            # CHECK: PDL passes rewrite function 'use' IR that its rewrite erased before the call
            print(str(error).splitlines()[0])
        # CHECK: verifies: True
        print("verifies:", module.operation.verify())


def conversion(rollback):
    def convert(module, frozen):
        target = rewrite.ConversionTarget()
        target.add_illegal_op("test.parent", "test.user")
        target.add_legal_dialect("func")
        target.add_legal_op("test.new", "test.def", "test.inner", "test.end")
        config = rewrite.ConversionConfig()
        config.allow_pattern_rollback = rollback
        rewrite.apply_partial_conversion(module, target, frozen, config)
    return convert


DRIVERS = {
    "greedy": rewrite.apply_patterns_and_fold_greedily,
    "walk": rewrite.walk_and_apply_patterns,
    "conversion": conversion(True),
    "conversion without rollback": conversion(False),
}


# CHECK-LABEL: TEST: test_pdl_erasing_what_another_matcher_value_holds
@run
def test_pdl_erasing_what_another_matcher_value_holds():
    # Two values of the matcher hold IR of one op: an op nested in another
    # (both users of %x), or a value a constraint returned. The rewrite
    # erases the outer op, then uses the other value (erases the nested op,
    # replaces an op by the value): PDL used freed IR (a segfault). No static
    # check sees it; the pattern is not applied and the run raises.
    cases = {
        "nested": (NESTED, nested_pdl("pdl.erase %parent\npdl.erase %inner")),
        "constraint's alias": (CHAIN, """
        module { pdl.pattern : benefit(1) {
          %t = pdl.type
          %x = pdl.operand
          %def = pdl.operation "test.def"(%x : !pdl.value) -> (%t : !pdl.type)
          %v = pdl.result 0 of %def
          %root = pdl.operation "test.user"(%v : !pdl.value) -> (%t : !pdl.type)
          %alias = pdl.apply_native_constraint "same"(%v : !pdl.value) : !pdl.value
          pdl.rewrite %root {
            pdl.replace %def with (%x : !pdl.value)
            pdl.replace %root with (%alias : !pdl.value)
          }
        } }"""),
    }
    for case, (ir_text, pattern) in cases.items():
        for driver, apply_driver in DRIVERS.items():
            with ir.Context() as context:
                context.allow_unregistered_dialects = True
                module = ir.Module.parse(ir_text)
                before = str(module)
                pdl = rewrite.PDLModule(ir.Module.parse(pattern))
                pdl.register_constraint_function(
                    "same", lambda r, results, values: results.append(values[0]))
                try:
                    apply_driver(module, pdl.freeze())
                    print(case, driver, "ran")
                except RuntimeError as error:
                    print(case, driver, "raised:", str(error).splitlines()[0])
                print(module.operation.verify(), str(module) == before)
    # CHECK-COUNT-8: raised: the PDL pattern at loc({{.*}}) was not applied: its rewrite erases an op that another PDL value of its matcher holds too (an op nested in it, or a value or range of it a constraint returned), which it uses after the erasure: PDL would use freed IR
    # CHECK-NOT: ran
    # CHECK-NOT: False


# CHECK-LABEL: TEST: test_pdl_function_returning_an_alias_of_what_is_erased
@run
def test_pdl_function_returning_an_alias_of_what_is_erased():
    # A rewrite function returns the op it got (or one nested in it); the
    # rewrite erases the op under its first value, then again under the
    # function's result: a double free. The function's results are checked
    # when it returns: a conversion with rollback fails and undoes the
    # rewrite; the greedy driver cannot undo it, and MLIR aborts on a failed
    # function, so it stops the process with the reason (in a child
    # process), where it freed the op twice before.
    pattern = nested_pdl("""
        %alias = pdl.apply_native_rewrite "pick"(%parent, %inner
            : !pdl.operation, !pdl.operation) : !pdl.operation
        pdl.erase %parent
        pdl.erase %alias""")
    for which in (0, 1):
        with ir.Context() as context:
            context.allow_unregistered_dialects = True
            module = ir.Module.parse(NESTED)
            before = str(module)
            pdl = rewrite.PDLModule(ir.Module.parse(pattern))
            pdl.register_rewrite_function(
                "pick", lambda r, results, values: results.append(values[which]))
            try:
                conversion(True)(module, pdl.freeze())
                print(which, "ran")
            except RuntimeError as error:
                print(which, "raised:", str(error).splitlines()[0])
            print(module.operation.verify(), str(module) == before)
    # CHECK: 0 raised: PDL rewrite function 'pick' returned an op, or a value or range of one, that its rewrite erases under another PDL value and uses after that (an alias of an op it erases, or of one nested in it): PDL would use freed IR; the rest of the rewrite did not run
    # CHECK-NEXT: True True
    # CHECK-NEXT: 1 raised: PDL rewrite function 'pick' returned an op
    # CHECK-NEXT: True True
    result = run_child_on_nested(
        pattern,
        "pdl.register_rewrite_function(",
        "    'pick', lambda r, results, values: results.append(values[0]))",
        "rewrite.apply_patterns_and_fold_greedily(module, pdl.freeze())")
    # CHECK: True
    # CHECK-NEXT: mlir_tracking: PDL rewrite function 'pick' failed under a rewrite driver that cannot undo a failed rewrite, and it has op or value results, which the rest of the PDL rewrite would use: MLIR aborts.
    # CHECK-NEXT: mlir_tracking: the error: PDL rewrite function 'pick' returned an op, or a value or range of one, that its rewrite erases under another PDL value
    print(result.returncode != 0 and "AddressSanitizer" not in result.stderr)
    print("\n".join(result.stderr.splitlines()[:2]))


# CHECK-LABEL: TEST: test_pdl_replacing_an_op_by_its_value_under_two_values
@run
def test_pdl_replacing_an_op_by_its_value_under_two_values():
    # One function returns the root's result, a later one the root itself;
    # the rewrite replaces the second by the first. A dialect conversion
    # looped forever on it (with rollback) or left the return with a null
    # operand (without): the later function fails, and the IR is as before.
    pattern = """
      module {
        pdl.pattern : benefit(1) {
          %t = pdl.type
          %x = pdl.operand
          %root = pdl.operation "test.user"(%x : !pdl.value) -> (%t : !pdl.type)
          pdl.rewrite %root {
            %v = pdl.apply_native_rewrite "first_result"(%root : !pdl.operation) : !pdl.value
            %alias = pdl.apply_native_rewrite "same"(%root : !pdl.operation) : !pdl.operation
            pdl.replace %alias with (%v : !pdl.value)
          }
        }
      }"""
    for driver in ("conversion", "conversion without rollback"):
        with ir.Context() as context:
            context.allow_unregistered_dialects = True
            module = ir.Module.parse(CHAIN)
            before = str(module)
            pdl = rewrite.PDLModule(ir.Module.parse(pattern))
            pdl.register_rewrite_function(
                "first_result",
                lambda r, results, values: results.append(values[0].results[0]))
            pdl.register_rewrite_function(
                "same", lambda r, results, values: results.append(values[0]))
            faulthandler.dump_traceback_later(60, exit=True)
            try:
                DRIVERS[driver](module, pdl.freeze())
                print(driver, "ran")
            except RuntimeError as error:
                print(driver, "raised:", str(error).splitlines()[0])
            faulthandler.cancel_dump_traceback_later()
            print(module.operation.verify(), str(module) == before)
    # CHECK: conversion raised: PDL rewrite function 'same' returned an op or value with which its rewrite replaces an op by what dies with it (the op itself, one of its results, or a value in its regions, under two PDL values): the dialect conversion would loop forever or leave null operands
    # CHECK-NEXT: True True
    # CHECK-NEXT: conversion without rollback raised: PDL rewrite function 'same' returned an op or value with which
    # CHECK-NEXT: True True


# CHECK-LABEL: TEST: test_failing_function_with_op_results_after_an_erasure_without_rollback
@run
def test_failing_function_with_op_results_after_an_erasure_without_rollback():
    # A conversion without rollback takes a failed function, and goes on
    # with what the rewrite erased before it (a segfault). With op or value
    # results there is no stand-in to report success with: before any
    # erasure the failure stands (the call raises); after one the process
    # stops with the reason (in a child process).
    def pattern(first):
        return """
          module {
            pdl.pattern : benefit(1) {
              %t = pdl.type
              %x = pdl.operand : %t
              %parent = pdl.operation "test.parent"(%x : !pdl.value)
              pdl.rewrite %parent {
                """ + first + """
                %r = pdl.apply_native_rewrite "boom"(%x : !pdl.value) : !pdl.operation
                pdl.erase %r
              }
            }
          }"""
    for first in ("", "pdl.erase %parent"):
        result = run_child_on_nested(
            pattern(first),
            "pdl.register_rewrite_function('boom', lambda r, res, v: 1 / 0)",
            "target = rewrite.ConversionTarget()",
            "target.add_illegal_op('test.parent')",
            "target.add_legal_dialect('func')",
            "target.add_legal_op('test.def', 'test.inner', 'test.end')",
            "config = rewrite.ConversionConfig()",
            "config.allow_pattern_rollback = False",
            "try:",
            "    rewrite.apply_partial_conversion(module, target, pdl.freeze(), config)",
            "except ZeroDivisionError as error:",
            "    print('raised:', error, module.operation.verify())")
        print(result.returncode, result.stdout.strip(),
              "AddressSanitizer" in result.stderr)
        print("\n".join(line for line in result.stderr.splitlines()
                        if line.startswith("mlir_tracking:")))
    # CHECK: 0 raised: division by zero True False
    # CHECK: {{[1-9][0-9]*}}  False
    # CHECK-NEXT: mlir_tracking: PDL rewrite function 'boom' failed under a rewrite driver that cannot undo a failed rewrite, and it has op or value results, which the rest of the PDL rewrite would use: the process stops (the driver would go on with IR the rewrite erased).
    # CHECK-NEXT: mlir_tracking: the error: ZeroDivisionError: division by zero


# CHECK-LABEL: TEST: test_reserved_pdl_function_names
@run
def test_reserved_pdl_function_names():
    # A module calling one of the guard constraints PDLModule adds, with
    # arguments of its own (the guard read past them: a segfault).
    with ir.Context():
        try:
            rewrite.PDLModule(two_op_pdl("""
                pdl.apply_native_rewrite "__mlir_tracking_erase_guard_0"(%op : !pdl.operation)
                pdl.erase %op"""))
        except ValueError as error:
            # CHECK: the PDL native function name '__mlir_tracking_erase_guard_0' is reserved
            print(error)
