# RUN: %PYTHON %s | FileCheck %s
# Each pdl.replace is checked with the rules of Python's replace_op: the
# replacement values must have the replaced results' types, be in the IR the
# driver rewrites and dominate every use they take over. The replace is
# refused when the pattern is applied (a conversion with rollback undoes the
# pattern; the greedy and walk drivers keep the op): the IR stays as it was
# and the driver call raises ValueError. A pattern that does not match, or
# that is not applied (a better one is), raises nothing.

import gc

from mlir_tracking import ir, rewrite

FUNC = """
func.func @f(%a: i32, %b: i32) -> i32 {
  %m = arith.muli %a, %b : i32
  %o = arith.ori %m, %b : i32
  %l = arith.subi %a, %b : i32
  %s = arith.addi %o, %l : i32
  return %s : i32
}
"""


def pdl_module(matcher, body):
    return ir.Module.parse("""
module {
  pdl.pattern : benefit(1) {
    %t = pdl.type : i32
    %x = pdl.operand
    %y = pdl.operand
    %op = pdl.operation "arith.muli"(%x, %y : !pdl.value, !pdl.value) -> (%t : !pdl.type)
    """ + matcher + """
    pdl.rewrite %op {
      """ + body + """
    }
  }
}""")


def convert(module, patterns):
    target = rewrite.ConversionTarget()
    target.add_illegal_op("arith.muli")
    rewrite.apply_partial_conversion(module, target, patterns)


def top_down(module, patterns):
    config = rewrite.GreedyRewriteConfig()
    config.use_top_down_traversal = True
    config.max_iterations = -1
    rewrite.apply_patterns_and_fold_greedily(module, patterns, config)


DRIVERS = (rewrite.apply_patterns_and_fold_greedily, top_down,
           rewrite.walk_and_apply_patterns, convert)


def apply(matcher, body, functions={}, func=FUNC, drivers=DRIVERS):
    # Runs the pattern under each driver; prints the error once, then
    # whether every driver left the IR valid and as it was.
    messages, kept = set(), []
    for driver in drivers:
        with ir.Context(), ir.Location.unknown():
            module = ir.Module.parse(func)
            before = str(module)
            pdl = rewrite.PDLModule(pdl_module(matcher, body))
            for name, fn in functions.items():
                pdl.register_rewrite_function(name, fn(module))
            try:
                driver(module, pdl.freeze())
                messages.add("no error")
            except ValueError as e:
                messages.add(str(e))
            kept.append(module.operation.verify() and str(module) == before)
            gc.collect()
    for message in sorted(messages):
        print(message)
    print("IR valid and unchanged:", all(kept))


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    return f


# CHECK-LABEL: TEST: test_matcher_values
@run
def test_matcher_values():
    # A matched user's result: the user would use itself (the greedy driver
    # folded `arith.ori` forever top-down).
    apply('%r = pdl.result 0 of %op\n'
          '    %u = pdl.operation "arith.ori"(%r, %y : !pdl.value, !pdl.value) -> (%t : !pdl.type)\n'
          '    %ur = pdl.result 0 of %u',
          'pdl.replace %op with (%ur : !pdl.value)')
    # CHECK-NEXT: pdl.replace at loc("-":12:7): a replacement of result #0 of 'arith.muli' does not dominate its use by 'arith.ori' (it is defined after that use: a later value, or a result of a user of the op); 'arith.muli' was kept (the rest of its PDL rewrite ran)
    # CHECK-NEXT: pdl.replace at loc("-":12:7): {{.*}}; the conversion undid the pattern
    # CHECK-NEXT: IR valid and unchanged: True

    # A later matched op.
    apply('%l = pdl.operation "arith.subi"(%x, %y : !pdl.value, !pdl.value) -> (%t : !pdl.type)',
          'pdl.replace %op with %l')
    # CHECK-NEXT: pdl.replace at loc("-":10:7): a replacement of result #0 of 'arith.muli' does not dominate its use by 'arith.ori' {{.*}}; 'arith.muli' was kept (the rest of its PDL rewrite ran)
    # CHECK-NEXT: pdl.replace at loc("-":10:7): {{.*}}; the conversion undid the pattern
    # CHECK-NEXT: IR valid and unchanged: True

    # A value of another type: vector.shuffle's folder read the i32 as a
    # vector and crashed.
    for driver in DRIVERS[:3]:
        with ir.Context(), ir.Location.unknown():
            module = ir.Module.parse("""
func.func @f(%a: i32) -> vector<2xi32> {
  %v = vector.broadcast %a : i32 to vector<4xi32>
  %u = vector.shuffle %v, %v [0, 5] : vector<4xi32>, vector<4xi32>
  return %u : vector<2xi32>
}""")
            before = str(module)
            pdl = rewrite.PDLModule(ir.Module.parse("""
module {
  pdl.pattern : benefit(1) {
    %vt = pdl.type : vector<4xi32>
    %x = pdl.operand
    %op = pdl.operation "vector.broadcast"(%x : !pdl.value) -> (%vt : !pdl.type)
    pdl.rewrite %op { pdl.replace %op with (%x : !pdl.value) }
  }
}"""))
            try:
                driver(module, pdl.freeze())
            except ValueError as e:
                print(e, module.operation.verify(), str(module) == before)
    # CHECK-NEXT: pdl.replace at loc("-":7:23): a replacement value has another type than the result it replaces; 'vector.broadcast' was kept (the rest of its PDL rewrite ran) True True
    # CHECK-NEXT: pdl.replace at loc("-":7:23): a replacement value has another type {{.*}} True True
    # CHECK-NEXT: pdl.replace at loc("-":7:23): a replacement value has another type {{.*}} True True


# CHECK-LABEL: TEST: test_rewrite_function_values
@run
def test_rewrite_function_values():
    replace_by_result = ('%v = pdl.apply_native_rewrite "pick"(%op : !pdl.operation) : !pdl.value\n'
                         '      pdl.replace %op with (%v : !pdl.value)')

    def later(module):
        block = module.body.operations[0].regions[0].blocks[0]
        return lambda rw, results, values: results.append(block.operations[2].results[0])
    apply('', replace_by_result, {"pick": later})
    # CHECK-NEXT: pdl.replace at loc("-":11:7): a replacement of result #0 of 'arith.muli' does not dominate its use by 'arith.ori' {{.*}}; 'arith.muli' was kept (the rest of its PDL rewrite ran)
    # CHECK-NEXT: pdl.replace at loc("-":11:7): a replacement of result #0 of 'arith.muli' does not dominate its use by 'arith.ori' {{.*}}; the conversion undid the pattern
    # CHECK-NEXT: IR valid and unchanged: True

    # An op the function creates at rewriter.ip is legal.
    def created(module):
        def fn(rewriter, results, values):
            with rewriter.ip:
                op = ir.Operation.create("arith.addi", results=[values[0].results[0].type],
                                         operands=list(values[0].operands))
            results.append(op.results[0])
        return fn
    apply('', replace_by_result, {"pick": created}, drivers=DRIVERS[:3])
    # CHECK-NEXT: no error
    # CHECK-NEXT: IR valid and unchanged: False


# CHECK-LABEL: TEST: test_values_of_other_ir
@run
def test_values_of_other_ir():
    # A value of another module: a constraint's fails the match, a rewrite
    # function's replacement is refused; the IR is never linked to it.
    for matcher, body, kind in (
            ('%v = pdl.apply_native_constraint "other"(%op : !pdl.operation) : !pdl.value',
             'pdl.replace %op with (%v : !pdl.value)', "constraint"),
            ('', '%v = pdl.apply_native_rewrite "other"(%op : !pdl.operation) : !pdl.value\n'
             '      pdl.replace %op with (%v : !pdl.value)', "rewrite")):
        results = set()
        for driver in DRIVERS:
            with ir.Context(), ir.Location.unknown():
                module = ir.Module.parse(FUNC)
                before = str(module)
                other = ir.Module.parse("func.func @g(%q: i32) -> i32 { return %q : i32 }")
                arg = other.body.operations[0].regions[0].blocks[0].arguments[0]
                pdl = rewrite.PDLModule(pdl_module(matcher, body))
                getattr(pdl, f"register_{kind}_function")(
                    "other", lambda rw, res, values: res.append(arg))
                try:
                    driver(module, pdl.freeze())
                except RuntimeError as e:
                    results.add(f"{kind}: {e} {module.operation.verify()} {str(module) == before}")
                del arg, other
                gc.collect()
        print("\n".join(sorted(results)))
    # CHECK-NEXT: constraint: a PDL result is not in the IR that PDL rewrites (a detached op, or one of other IR): create ops at rewriter.ip True True
    # CHECK-NEXT: rewrite: a PDL result is not in the IR that PDL rewrites (a detached op, or one of other IR): create ops at rewriter.ip True True


# Under walk_and_apply_patterns a PDL rewrite may erase or replace only the
# op it matched and ops nested in it, as upstream's walk driver documents:
# it has already stepped to the op after the matched one (a pure PDL
# rewrite erasing that op made it read freed memory) and holds the matched
# op's ancestors. Other drivers keep allowing it.
WALK_FUNC = """
func.func @f(%a: i32, %b: i32) -> i32 {
  %l = arith.subi %a, %b : i32
  %m = arith.muli %a, %b : i32
  %d = arith.xori %m, %b : i32
  %o = arith.ori %m, %b : i32
  return %o : i32
}
"""


def walk_pdl(matcher, body, root="arith.muli"):
    return ir.Module.parse("""module {
  pdl.pattern : benefit(1) {
    %t = pdl.type : i32
    %x = pdl.operand
    %y = pdl.operand
    %op = pdl.operation \"""" + root + """\"(%x, %y : !pdl.value, !pdl.value) -> (%t : !pdl.type)
    """ + matcher + """
    pdl.rewrite %op {
      """ + body + """
    }
  }
}""")


def walk_apply(matcher, body, root="arith.muli", pick=None, func=WALK_FUNC,
               functions={},
               drivers=(rewrite.walk_and_apply_patterns,
                        rewrite.apply_patterns_and_fold_greedily)):
    # Prints, per driver, the error (or "no error"), whether the IR verifies
    # and whether it is as before.
    for driver in drivers:
        with ir.Context(), ir.Location.unknown():
            module = ir.Module.parse(func)
            before = str(module)
            pdl = rewrite.PDLModule(walk_pdl(matcher, body, root))
            if pick:
                pdl.register_rewrite_function(
                    "pick", lambda rw, results, values:
                        results.append(pick(values[0])))
            for name, fn in functions.items():
                pdl.register_rewrite_function(name, fn)
            try:
                driver(module, pdl.freeze())
                message = "no error"
            except ValueError as e:
                message = "ValueError: " + str(e)
            print(f"{driver.__name__}: {message}; valid:",
                  module.operation.verify(), "unchanged:",
                  str(module) == before)
        gc.collect()


PICK = ('%p = pdl.apply_native_rewrite "pick"(%op : !pdl.operation)'
        ' : !pdl.operation\n      pdl.erase %p')


# CHECK-LABEL: TEST: test_walk_driver_erasures
@run
def test_walk_driver_erasures():
    # Pure PDL: erasing the op after the matched one (an unused user of it).
    user = ('%r = pdl.result 0 of %op\n'
            '    %u = pdl.operation "arith.xori"(%r, %y : !pdl.value, !pdl.value) -> (%t : !pdl.type)')
    walk_apply(user, 'pdl.erase %u')
    # CHECK-NEXT: walk_and_apply_patterns: ValueError: pdl.erase at loc("-":10:7): cannot erase 'arith.xori' from a PDL rewrite of walk_and_apply_patterns: it is neither the matched op nor nested in it (the walk has already stepped to the op after the matched op and holds its ancestors; a walk pattern may erase or replace only the matched op and ops nested in it); 'arith.xori' was kept (the rest of its PDL rewrite ran); valid: True unchanged: True
    # CHECK-NEXT: apply_patterns_and_fold_greedily: no error; valid: True unchanged: False

    # Replacing it.
    walk_apply(user, 'pdl.replace %u with (%r : !pdl.value)')
    # CHECK-NEXT: walk_and_apply_patterns: ValueError: pdl.replace at loc("-":10:7): cannot replace 'arith.xori' from a PDL rewrite of walk_and_apply_patterns: it is neither the matched op nor nested in it ({{.*}}); 'arith.xori' was kept (the rest of its PDL rewrite ran); valid: True unchanged: True
    # CHECK-NEXT: apply_patterns_and_fold_greedily: no error; valid: True unchanged: False

    # The rest of the rewrite runs: the matched op is replaced, the user kept.
    walk_apply(user, 'pdl.erase %u\n'
               '      %n = pdl.operation "arith.addi"(%x, %y : !pdl.value, !pdl.value) -> (%t : !pdl.type)\n'
               '      %nr = pdl.result 0 of %n\n'
               '      pdl.replace %op with (%nr : !pdl.value)',
               drivers=(rewrite.walk_and_apply_patterns,))
    # CHECK-NEXT: walk_and_apply_patterns: ValueError: pdl.erase at loc("-":10:7): cannot erase 'arith.xori' {{.*}}; 'arith.xori' was kept (the rest of its PDL rewrite ran); valid: True unchanged: False

    # Nor once a rewrite function replaced the matched op.
    walk_apply(user, 'pdl.apply_native_rewrite "drop"(%op : !pdl.operation)\n'
               '      pdl.erase %u',
               functions={"drop": lambda rw, results, values: rw.replace_op(
                   values[0], [values[0].operands[0]])},
               drivers=(rewrite.walk_and_apply_patterns,))
    # CHECK-NEXT: walk_and_apply_patterns: ValueError: pdl.erase at loc("-":11:7): cannot erase 'arith.xori' {{.*}}; 'arith.xori' was kept (the rest of its PDL rewrite ran); valid: True unchanged: False

    # The op before the matched one, the matched op's function, an op of
    # another function: none is nested in the matched op.
    for name, pick in (("before", lambda op: op.operation.block.operations[0]),
                       ("parent", lambda op: op.operation.parent),
                       ("elsewhere", lambda op: op.operation.parent.parent
                        .regions[0].blocks[0].operations[1]
                        .regions[0].blocks[0].operations[0])):
        print(name)
        walk_apply('', PICK, pick=pick,
                   func=WALK_FUNC + "func.func @g(%c: i32) {\n"
                   "  %e = arith.addi %c, %c : i32\n  return\n}",
                   drivers=(rewrite.walk_and_apply_patterns,))
    # CHECK-NEXT: before
    # CHECK-NEXT: walk_and_apply_patterns: ValueError: pdl.erase at loc("-":10:7): cannot erase 'arith.subi' from a PDL rewrite {{.*}}; 'arith.subi' was kept (the rest of its PDL rewrite ran); valid: True unchanged: True
    # CHECK-NEXT: parent
    # CHECK-NEXT: walk_and_apply_patterns: ValueError: pdl.erase at loc("-":10:7): cannot erase 'func.func' from a PDL rewrite {{.*}}; 'func.func' was kept (the rest of its PDL rewrite ran); valid: True unchanged: True
    # CHECK-NEXT: elsewhere
    # CHECK-NEXT: walk_and_apply_patterns: ValueError: pdl.erase at loc("-":10:7): cannot erase 'arith.addi' from a PDL rewrite {{.*}}; 'arith.addi' was kept (the rest of its PDL rewrite ran); valid: True unchanged: True

    # Legal: erasing the matched op, replacing it by an op the rewrite made.
    walk_apply('', 'pdl.erase %op', root="arith.xori")
    # CHECK-NEXT: walk_and_apply_patterns: no error; valid: True unchanged: False
    # CHECK-NEXT: apply_patterns_and_fold_greedily: no error; valid: True unchanged: False
    walk_apply('', '%n = pdl.operation "arith.addi"(%x, %y : !pdl.value, !pdl.value) -> (%t : !pdl.type)\n'
               '      %nr = pdl.result 0 of %n\n'
               '      pdl.replace %op with (%nr : !pdl.value)',
               drivers=(rewrite.walk_and_apply_patterns,))
    # CHECK-NEXT: walk_and_apply_patterns: no error; valid: True unchanged: False

    # Legal: erasing and replacing ops nested in the matched op.
    nested = """
func.func @f(%a: i32, %b: i32) -> i32 {
  %r = scf.execute_region -> i32 {
    %d = arith.xori %a, %b : i32
    %m = arith.muli %a, %b : i32
    scf.yield %m : i32
  }
  return %r : i32
}"""
    for body in ('pdl.erase %p', 'pdl.replace %p with %n'):
        with ir.Context(), ir.Location.unknown():
            module = ir.Module.parse(nested)
            pdl = rewrite.PDLModule(ir.Module.parse("""module {
  pdl.pattern : benefit(1) {
    %ty = pdl.type : i32
    %op = pdl.operation "scf.execute_region" -> (%ty : !pdl.type)
    pdl.rewrite %op {
      %p = pdl.apply_native_rewrite "pick"(%op : !pdl.operation) : !pdl.operation
      %n = pdl.apply_native_rewrite "next"(%op : !pdl.operation) : !pdl.operation
      """ + body + """
    }
  }
}"""))
            ops = lambda op: op.regions[0].blocks[0].operations
            pdl.register_rewrite_function(
                "pick", lambda rw, results, values: results.append(ops(values[0])[0]))
            pdl.register_rewrite_function(
                "next", lambda rw, results, values: results.append(ops(values[0])[1]))
            rewrite.walk_and_apply_patterns(module, pdl.freeze())
            print(module.operation.verify(),
                  [op.name for op in ops(ops(module.body.operations[0])[0])])
        gc.collect()
    # CHECK-NEXT: True ['arith.muli', 'scf.yield']
    # CHECK-NEXT: True ['arith.muli', 'scf.yield']


# CHECK-LABEL: TEST: test_patterns_not_applied_raise_nothing
@run
def test_patterns_not_applied_raise_nothing():
    # The check runs when the pattern is applied: PDL evaluates the
    # pattern's own predicates (here the type %t shared by %x and the
    # trunci) in an order of its own, so a pattern that does not match (on
    # @f, i8 -> i32 -> i16) raised; upstream folds @g and leaves @f.
    fold = """
func.func @f(%a: i8) -> i16 {
  %e = arith.extsi %a : i8 to i32
  %t = arith.trunci %e : i32 to i16
  return %t : i16
}
func.func @g(%a: i16) -> i16 {
  %e = arith.extsi %a : i16 to i32
  %t = arith.trunci %e : i32 to i16
  return %t : i16
}"""
    for operand in ("%x = pdl.operand : %t", "%i8 = pdl.type : i16\n    %x = pdl.operand : %i8"):
        for driver in DRIVERS[:3]:
            with ir.Context(), ir.Location.unknown():
                module = ir.Module.parse(fold)
                pdl = rewrite.PDLModule(ir.Module.parse("""
module {
  pdl.pattern @trunc_of_ext : benefit(1) {
    %t = pdl.type
    %t2 = pdl.type
    """ + operand + """
    %e = pdl.operation "arith.extsi"(%x : !pdl.value) -> (%t2 : !pdl.type)
    %er = pdl.result 0 of %e
    %op = pdl.operation "arith.trunci"(%er : !pdl.value) -> (%t : !pdl.type)
    pdl.rewrite %op { pdl.replace %op with (%x : !pdl.value) }
  }
}"""))
                driver(module, pdl.freeze())
                f, g = str(module).split("@g")
                print(driver.__name__, module.operation.verify(),
                      "trunci" in f, "trunci" not in g)
            gc.collect()
    # CHECK-NEXT: apply_patterns_and_fold_greedily True True True
    # CHECK-NEXT: top_down True True True
    # CHECK-NEXT: walk_and_apply_patterns True True True
    # CHECK-NEXT: apply_patterns_and_fold_greedily True True True
    # CHECK-NEXT: top_down True True True
    # CHECK-NEXT: walk_and_apply_patterns True True True

    # A pattern of lower benefit is matched but not applied: the better
    # one replaces the op (upstream too). With the benefits swapped, the
    # refused pattern is the one applied (upstream gives IR that does not
    # verify): the op is kept, no pattern replaces it again in the run, and
    # the run raises.
    ext = """
func.func @f(%a: i16) -> i32 {
  %e = arith.extsi %a : i16 to i32
  return %e : i32
}"""
    for good, bad in ((2, 1), (1, 2)):
        for driver in DRIVERS[:3]:
            with ir.Context(), ir.Location.unknown():
                module = ir.Module.parse(ext)
                pdl = rewrite.PDLModule(ir.Module.parse(f"""
module {{
  pdl.pattern @good : benefit({good}) {{
    %t = pdl.type : i32
    %x = pdl.operand
    %op = pdl.operation "arith.extsi"(%x : !pdl.value) -> (%t : !pdl.type)
    pdl.rewrite %op {{
      %n = pdl.operation "arith.extui"(%x : !pdl.value) -> (%t : !pdl.type)
      pdl.replace %op with %n
    }}
  }}
  pdl.pattern @bad : benefit({bad}) {{
    %t = pdl.type : i32
    %x = pdl.operand
    %op = pdl.operation "arith.extsi"(%x : !pdl.value) -> (%t : !pdl.type)
    pdl.rewrite %op {{ pdl.replace %op with (%x : !pdl.value) }}
  }}
}}"""))
                try:
                    driver(module, pdl.freeze())
                    outcome = "no error"
                except ValueError as e:
                    outcome = str(e)
                body = module.body.operations[0].regions[0].blocks[0].operations
                print(driver.__name__, outcome, module.operation.verify(),
                      [op.name for op in body])
            gc.collect()
    # CHECK-NEXT: apply_patterns_and_fold_greedily no error True ['arith.extui', 'func.return']
    # CHECK-NEXT: top_down no error True ['arith.extui', 'func.return']
    # CHECK-NEXT: walk_and_apply_patterns no error True ['arith.extui', 'func.return']
    # CHECK-NEXT: apply_patterns_and_fold_greedily pdl.replace at loc("-":16:23): a replacement value has another type than the result it replaces; 'arith.extsi' was kept (the rest of its PDL rewrite ran) True ['arith.extsi', 'func.return']
    # CHECK-NEXT: top_down pdl.replace at loc("-":16:23): {{.*}}; 'arith.extsi' was kept (the rest of its PDL rewrite ran) True ['arith.extsi', 'func.return']
    # CHECK-NEXT: walk_and_apply_patterns pdl.replace at loc("-":16:23): {{.*}}; 'arith.extsi' was kept (the rest of its PDL rewrite ran) True ['arith.extsi', 'func.return']


# CHECK-LABEL: TEST: test_reserved_function_names
@run
def test_reserved_function_names():
    # Registered under one of the names of the checks PDLModule adds, a
    # function replaced the check (a type-changing pdl.replace reached
    # vector.shuffle's folder) or was dropped for it.
    with ir.Context():
        pdl = rewrite.PDLModule(pdl_module("", "pdl.replace %op with (%x : !pdl.value)"))
        for register in (pdl.register_constraint_function, pdl.register_rewrite_function):
            try:
                register("__mlir_tracking_check_replace_0", lambda *args: None)
            except ValueError as e:
                print(e)
    # CHECK-NEXT: the PDL native function name '__mlir_tracking_check_replace_0' is reserved (names starting with '__mlir_tracking_' are this library's)
    # CHECK-NEXT: the PDL native function name '__mlir_tracking_check_replace_0' is reserved {{.*}}


# CHECK-LABEL: TEST: test_function_moves_the_root
@run
def test_function_moves_the_root():
    # A rewrite function moves the root (the op PDL's insertion point is
    # before) into another block: the next pdl.operation goes before the
    # root there (MLIR's builder linked it into that block's list with the
    # function's block as its parent).
    with ir.Context() as ctx, ir.Location.unknown():
        ctx.allow_unregistered_dialects = True
        module = ir.Module.parse("""
func.func @f(%c: i1) {
  scf.if %c {
    "test.keep"() : () -> ()
  }
  "test.root"() : () -> ()
  return
}""")
        inner = module.body.operations[0].regions[0].blocks[0].operations[0].regions[0].blocks[0]
        pdl = rewrite.PDLModule(ir.Module.parse("""
module { pdl.pattern : benefit(1) {
  %op = pdl.operation "test.root"
  pdl.rewrite %op {
    pdl.apply_native_rewrite "move"(%op : !pdl.operation)
    %n = pdl.operation "test.new"
    pdl.apply_native_rewrite "mark"(%op : !pdl.operation)
  }
}}"""))
        pdl.register_rewrite_function(
            "move", lambda rw, results, values: values[0].move_before(inner.operations[0]))
        pdl.register_rewrite_function(
            "mark", lambda rw, results, values: values[0].attributes.__setitem__("done", ir.UnitAttr.get()))
        rewrite.walk_and_apply_patterns(module, pdl.freeze())
        print(module.operation.verify(),
              [(op.name, op.operation.parent.name) for op in inner.operations])
    # CHECK-NEXT: True [('test.new', 'scf.if'), ('test.root', 'scf.if'), ('test.keep', 'scf.if'), ('scf.yield', 'scf.if')]
