# RUN: %PYTHON %s | FileCheck %s
# mlir_tracking.rewrite: Python patterns, PDL, the greedy and walk drivers and
# dialect conversion keep handles precise; Python passes; the self-check.

import ctypes
import gc

from mlir_tracking import ir, rewrite
from mlir_tracking.passmanager import PassManager
from tracking_testing import check_tracking as check
from tracking_testing import no_folding, ops_of, swap_muli
from tracking_testing import to_addi_values as sub_to_add


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    return f


ARITH = """
func.func @f(%a: i32, %b: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c3 = arith.constant 3 : i32
  %x = arith.addi %a, %c0 : i32
  %s = arith.subi %x, %c3 : i32
  %m = arith.muli %s, %b : i32
  %dead = arith.addi %a, %b : i32
  return %m : i32
}
"""


# CHECK-LABEL: TEST: test_greedy_same_name_followed
@run
def test_greedy_same_name_followed():
    with ir.Context():
        module = ir.Module.parse(ARITH)
        mul = ops_of(module.body.operations[0])[4]
        patterns = rewrite.RewritePatternSet()
        patterns.add("arith.muli", swap_muli)
        # CHECK: <mlir_tracking.rewrite.RewritePatternSet with 1 patterns>
        print(repr(patterns))
        rewrite.apply_patterns_and_fold_greedily(module, patterns.freeze())
        # CHECK: live True
        print(mul.handle_state, "swapped" in mul.attributes)
        # CHECK: apply_patterns_and_fold_greedily on builtin.module: arith.muli at {{.*}}: replaced by arith.muli at {{.*}} (pattern swap_muli){{.*}}
        print(mul.handle_history[-1])
        check()
        # CHECK: RuntimeError: this RewritePatternSet was frozen
        try:
            patterns.add("arith.addi", swap_muli)
        except RuntimeError as e:
            print("RuntimeError:", str(e)[:35])


# CHECK-LABEL: TEST: test_different_name_under_both_rules
@run
def test_different_name_under_both_rules():
    with ir.Context():
        for require in (True, False):
            module = ir.Module.parse(ARITH)
            sub = ops_of(module.body.operations[0])[3]
            patterns = rewrite.RewritePatternSet()
            patterns.add("arith.subi", sub_to_add)
            tracking = rewrite.TrackingConfig(require_matching_replacement_op_name=require)
            rewrite.apply_patterns_and_fold_greedily(
                module, patterns.freeze(), no_folding(), tracking_config=tracking
            )
            # CHECK: True erased
            # CHECK: False live arith.addi
            print(require, sub.handle_state, sub.name if sub.is_valid else "")
            check()


# CHECK-LABEL: TEST: test_fold_to_constant_and_dead_code
@run
def test_fold_to_constant_and_dead_code():
    with ir.Context():
        module = ir.Module.parse("""
          func.func @f(%a: i32) -> i32 {
            %c1 = arith.constant 1 : i32
            %c2 = arith.constant 2 : i32
            %s = arith.addi %c1, %c2 : i32
            %dead = arith.muli %a, %a : i32
            %r = arith.addi %s, %a : i32
            return %r : i32
          }""")
        ops = ops_of(module.body.operations[0])
        s, dead = ops[2], ops[3]
        patterns = rewrite.RewritePatternSet()
        patterns.add_canonicalization_patterns()
        config = rewrite.GreedyRewriteConfig()
        config.max_iterations = 5
        # CHECK: 5 True
        print(config.max_iterations, config.enable_folding)
        rewrite.apply_patterns_and_fold_greedily(module.operation, patterns.freeze(), config)
        # CHECK: live arith.constant 3 : i32
        print(s.handle_state, s.name, s.attributes["value"])
        # CHECK: erased {{.*}}: erased (dead code or region simplification)
        print(dead.handle_state, dead.handle_history[-1])
        check()


# CHECK-LABEL: TEST: test_erase_and_modify_in_place
@run
def test_erase_and_modify_in_place():
    with ir.Context():
        module = ir.Module.parse("""
          func.func @f(%a: i32, %c: i1) -> i32 {
            cf.assert %c, "never"
            %m = arith.muli %a, %a : i32
            return %m : i32
          }""")
        assertion, mul, _ = ops_of(module.body.operations[0])

        def erase_assert(op, rewriter):
            rewriter.erase_op(op)

        def mark(op, rewriter):
            if "marked" in op.attributes:
                return True

            def change():
                op.attributes["marked"] = ir.Attribute.parse("unit")

            rewriter.modify_op_in_place(op, change)

        patterns = rewrite.RewritePatternSet()
        patterns.add("cf.assert", erase_assert)
        patterns.add("arith.muli", mark)
        rewrite.apply_patterns_and_fold_greedily(module, patterns.freeze(), no_folding())
        # CHECK: erased {{.*}}: erased (pattern {{.*}}erase_assert)
        print(assertion.handle_state, assertion.handle_history[-1])
        # CHECK: live True
        print(mul.handle_state, "marked" in mul.attributes)
        check()


# CHECK-LABEL: TEST: test_inline_block_and_erase_region
@run
def test_inline_block_and_erase_region():
    with ir.Context():
        module = ir.Module.parse("""
          func.func @f(%a: i32) -> i32 {
            %r = scf.execute_region -> i32 {
              %m = arith.muli %a, %a : i32
              scf.yield %m : i32
            }
            return %r : i32
          }""")
        region_op = ops_of(module.body.operations[0])[0]
        inner = region_op.regions[0].blocks[0]
        mul, yield_op = list(inner.operations)

        def inline_execute_region(op, rewriter):
            block = op.regions[0].blocks[0]
            if len(op.regions[0].blocks) != 1:
                return True
            terminator = list(block.operations)[-1]
            values = list(terminator.operands)
            rewriter.inline_block_before(block, op)
            rewriter.replace_op(op, values)
            rewriter.erase_op(terminator)

        patterns = rewrite.RewritePatternSet()
        patterns.add("scf.execute_region", inline_execute_region)
        rewrite.walk_and_apply_patterns(module, patterns.freeze())
        # CHECK: erased erased live func.func
        print(region_op.handle_state, yield_op.handle_state, mul.handle_state, mul.parent.name)
        # CHECK: InvalidatedHandleError
        try:
            inner.operations
        except Exception as e:
            print(type(e).__name__, str(e)[:20])
        check()


# CHECK-LABEL: TEST: test_inline_block_with_predecessors_is_refused
@run
def test_inline_block_with_predecessors_is_refused():
    # Inlining erases the block: one that a branch still targets (here from
    # another function, so not refused as "its own region") is refused
    # instead of leaving the branch on a freed block.
    with ir.Context():
        module = ir.Module.parse("""
          func.func @f(%c: i1) {
            cf.cond_br %c, ^bb1, ^bb2
          ^bb1:
            cf.br ^bb2
          ^bb2:
            return
          }
          func.func @g() {
            %z = arith.constant 0 : i32
            return
          }""")
        f, g = module.body.operations
        target = f.regions[0].blocks[1]
        constant = ops_of(g)[0]
        errors = []

        def inline_target(op, rewriter):
            if errors:
                return False
            try:
                rewriter.inline_block_before(target, op)
            except ValueError as e:
                errors.append(str(e))
            return False

        patterns = rewrite.RewritePatternSet()
        patterns.add("arith.constant", inline_target)
        rewrite.walk_and_apply_patterns(module, patterns.freeze())
        # CHECK: ['cannot inline a block that branches still target'] live 3
        print(errors, constant.handle_state, len(f.regions[0].blocks))
        check()


# CHECK-LABEL: TEST: test_python_pattern_raises
@run
def test_python_pattern_raises():
    with ir.Context():
        module = ir.Module.parse(ARITH)
        ops = ops_of(module.body.operations[0])
        calls = []

        def boom(op, rewriter):
            calls.append(op.name)
            # A change, then the exception: the IR stays valid.
            swap_muli(op, rewriter)
            raise ValueError("boom from a pattern")

        def other(op, rewriter):
            calls.append(op.name)
            return True

        patterns = rewrite.RewritePatternSet()
        patterns.add("arith.muli", boom, benefit=10)
        patterns.add("arith.subi", other)
        patterns.add("arith.addi", other)
        try:
            rewrite.apply_patterns_and_fold_greedily(module, patterns.freeze(), no_folding())
        except ValueError as e:
            # CHECK: ValueError: boom from a pattern
            print("ValueError:", e)
        # No Python pattern ran after the exception.
        # CHECK: arith.muli 1
        print(calls[-1], calls.count("arith.muli"))
        # CHECK: True live True
        module.operation.verify()
        print(module.operation.verify(), ops[4].handle_state, "swapped" in ops[4].attributes)
        check()


# CHECK-LABEL: TEST: test_rewriter_expires
@run
def test_rewriter_expires():
    with ir.Context():
        module = ir.Module.parse(ARITH)
        kept = []

        def keep(op, rewriter):
            kept.append(rewriter)
            return True

        patterns = rewrite.RewritePatternSet()
        patterns.add("arith.muli", keep)
        rewrite.walk_and_apply_patterns(module, patterns.freeze())
        # CHECK: <mlir_tracking.rewrite.PatternRewriter (expired)>
        print(repr(kept[0]))
        try:
            kept[0].erase_op(module.operation)
        except RuntimeError as e:
            # CHECK: True
            print("only valid inside the pattern call" in str(e))


# CHECK-LABEL: TEST: test_nested_driver_refused
@run
def test_nested_driver_refused():
    with ir.Context():
        module = ir.Module.parse(ARITH)
        inner = rewrite.RewritePatternSet()
        inner.add("arith.muli", swap_muli)
        inner = inner.freeze()

        def nested(op, rewriter):
            rewrite.apply_patterns_and_fold_greedily(module, inner)

        patterns = rewrite.RewritePatternSet()
        patterns.add("arith.subi", nested)
        try:
            rewrite.walk_and_apply_patterns(module, patterns.freeze())
        except RuntimeError as e:
            # CHECK: cannot run a rewrite driver from inside a rewrite pattern
            print(str(e).split(";")[0])
        check()


# CHECK-LABEL: TEST: test_detach_refused_in_pattern
@run
def test_detach_refused_in_pattern():
    with ir.Context():
        module = ir.Module.parse(ARITH)

        def detach(op, rewriter):
            op.detach_from_parent()

        patterns = rewrite.RewritePatternSet()
        patterns.add("arith.muli", detach)
        try:
            rewrite.apply_patterns_and_fold_greedily(module, patterns.freeze())
        except ValueError as e:
            # CHECK: cannot detach an operation while a rewrite pattern runs
            print(str(e).split(";")[0])
        check()


PDL = """
module {
  pdl.pattern : benefit(1) {
    %type = pdl.type : i32
    %lhs = pdl.operand
    %rhs = pdl.operand
    %op = pdl.operation "arith.muli"(%lhs, %rhs : !pdl.value, !pdl.value) -> (%type : !pdl.type)
    pdl.apply_native_constraint "not_swapped"(%op : !pdl.operation)
    pdl.rewrite %op with "swap"(%op : !pdl.operation)
  }
}
"""


# CHECK-LABEL: TEST: test_pdl_patterns
@run
def test_pdl_patterns():
    with ir.Context():
        module = ir.Module.parse(ARITH)
        mul = ops_of(module.body.operations[0])[4]
        pdl = rewrite.PDLModule(ir.Module.parse(PDL))
        seen = []

        def not_swapped(rewriter, results, values):
            seen.append(values[0].name)
            return "swapped" in values[0].attributes

        def swap(rewriter, results, values):
            swap_muli(values[0], rewriter)

        pdl.register_constraint_function("not_swapped", not_swapped)
        pdl.register_rewrite_function("swap", swap)
        frozen = pdl.freeze()
        del pdl
        gc.collect()
        rewrite.apply_patterns_and_fold_greedily(module, frozen, no_folding())
        # CHECK: live True {'arith.muli'}
        print(mul.handle_state, "swapped" in mul.attributes, set(seen))
        check()


def convert_muli(op, operands, type_converter, rewriter):
    with rewriter.ip:
        new = ir.Operation.create(
            "llvm.mul",
            results=[type_converter.convert_type(op.results[0].type)],
            operands=operands,
            loc=op.location,
        )
    rewriter.replace_op(op, new)


# CHECK-LABEL: TEST: test_conversion_commits
@run
def test_conversion_commits():
    with ir.Context():
        module = ir.Module.parse(ARITH)
        mul = ops_of(module.body.operations[0])[4]
        converter = rewrite.TypeConverter()
        converter.add_conversion(lambda t: t)
        target = rewrite.ConversionTarget()
        target.add_legal_dialect("llvm")
        target.add_illegal_op("arith.muli")
        patterns = rewrite.RewritePatternSet()
        patterns.add_conversion("arith.muli", convert_muli, converter)
        rewrite.apply_partial_conversion(module, target, patterns.freeze())
        # CHECK: live llvm.mul
        print(mul.handle_state, mul.name)
        # CHECK: apply_partial_conversion on builtin.module: arith.muli at {{.*}}: replaced by llvm.mul at {{.*}} (pattern convert_muli)
        print(mul.handle_history[-1])
        check()


# CHECK-LABEL: TEST: test_conversion_may_pass_through_invalid_ir
@run
def test_conversion_may_pass_through_invalid_ir():
    # A dialect conversion's IR is legal only at its end: an in-place change
    # that leaves an op invalid for a while is not refused there (greedy and
    # walk drivers refuse it, test/python/callback_limits.py).
    def convert_via_invalid_operand(op, operands, type_converter, rewriter):
        with rewriter.ip:
            wide = ir.Operation.create(
                "arith.constant", results=[ir.IntegerType.get_signless(64)],
                attributes={"value": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 1)},
                loc=op.location)
        original = op.operands[0]
        op.operands[0] = wide.results[0]  # arith.muli of i64 and i32: invalid
        op.operands[0] = original
        convert_muli(op, operands, type_converter, rewriter)

    with ir.Context():
        module = ir.Module.parse(ARITH)
        converter = rewrite.TypeConverter()
        converter.add_conversion(lambda t: t)
        target = rewrite.ConversionTarget()
        target.add_legal_dialect("llvm", "arith")
        target.add_illegal_op("arith.muli")
        patterns = rewrite.RewritePatternSet()
        patterns.add_conversion("arith.muli", convert_via_invalid_operand, converter)
        rewrite.apply_partial_conversion(module, target, patterns.freeze())
        # CHECK: llvm.mul True
        print("llvm.mul" if "llvm.mul" in str(module) else "not converted",
              module.operation.verify())


def fail_full_conversion(module, convert_muli):
    """Runs a full conversion of `module` out of arith in which only
    arith.muli converts (with `convert_muli`), so a conversion pattern runs
    and then the conversion fails and is rolled back."""
    converter = rewrite.TypeConverter()
    converter.add_conversion(lambda t: t)
    target = rewrite.ConversionTarget()
    target.add_legal_dialect("llvm", "func", "builtin")
    target.add_illegal_dialect("arith")
    patterns = rewrite.RewritePatternSet()
    patterns.add_conversion("arith.muli", convert_muli, converter)
    try:
        rewrite.apply_full_conversion(module, target, patterns.freeze())
        print("converted")
    except ir.MLIRError as e:
        print("MLIRError", str(e).splitlines()[0][:22])


# CHECK-LABEL: TEST: test_conversion_rolls_back
@run
def test_conversion_rolls_back():
    with ir.Context():
        module = ir.Module.parse("""
          func.func @f(%a: i32, %b: i32) -> i32 {
            %m = arith.muli %a, %b : i32
            %s = arith.subi %m, %b : i32
            return %s : i32
          }""")
        before = str(module)
        ops = ops_of(module.body.operations[0])
        created = []

        def convert_and_keep(op, operands, type_converter, rewriter):
            with rewriter.ip:
                new = ir.Operation.create(
                    "llvm.mul", results=[op.results[0].type], operands=operands,
                    loc=op.location,
                )
            created.append(new)
            rewriter.replace_op(op, new)

        # CHECK: MLIRError full conversion failed
        fail_full_conversion(module, convert_and_keep)
        # The muli was converted, then subi failed the conversion: rolled
        # back. The op the pattern created is gone, and its handle says so.
        # CHECK: True ['live', 'live', 'live'] erased
        print(str(module) == before, [op.handle_state for op in ops],
              created[0].handle_state)
        # (Its handle ended when the pattern returned: a conversion with
        # rollback may undo a pattern without notice.)
        # CHECK: llvm.mul at {{.*}}: erased; conversion pattern {{.*}}convert_and_keep' made it, and the conversion may undo that pattern without notice
        print(created[0].handle_history[-1])
        check()


# CHECK-LABEL: TEST: test_rolled_back_conversion_spares_other_ir
@run
def test_rolled_back_conversion_spares_other_ir():
    # Only the handles of ops the rolled-back conversion freed end: those of
    # another module, of a detached op and of an op a pattern created
    # outside the converted IR stay live.
    with ir.Context(), ir.Location.unknown():
        i32 = ir.IntegerType.get_signless(32)
        other = ir.Module.parse("""
          func.func @o(%a: i32) -> i32 {
            %0 = arith.addi %a, %a : i32
            return %0 : i32
          }""")
        held = ops_of(other.body.operations[0])[0]
        detached = ir.Operation.create(
            "arith.constant", results=[i32],
            attributes={"value": ir.IntegerAttr.get(i32, 1)})
        module = ir.Module.parse("""
          func.func @f(%a: i32) -> i32 {
            %m = arith.muli %a, %a : i32
            %s = arith.subi %m, %a : i32
            return %s : i32
          }""")
        mul = ops_of(module.body.operations[0])[0]
        made = []

        def convert(op, operands, type_converter, rewriter):
            made.append(ir.Operation.create(
                "arith.constant", results=[i32],
                attributes={"value": ir.IntegerAttr.get(i32, 2)}))
            with rewriter.ip:
                new = ir.Operation.create(
                    "llvm.mul", results=[op.results[0].type], operands=operands)
            made.append(new)
            rewriter.replace_op(op, new)

        # CHECK: MLIRError full conversion failed
        fail_full_conversion(module, convert)
        # CHECK: live live live live erased
        print(held.handle_state, detached.handle_state, mul.handle_state,
              made[0].handle_state, made[1].handle_state)
        # CHECK: arith.addi arith.constant
        print(held.name, made[0].name)
        check()


# CHECK-LABEL: TEST: test_arith_to_llvm_pass_follows
@run
def test_arith_to_llvm_pass_follows():
    with ir.Context():
        module = ir.Module.parse("""
          func.func @f(%a: index, %b: i32) -> (index, i32) {
            %0 = arith.addi %a, %a : index
            %1 = arith.muli %b, %b : i32
            return %0, %1 : index, i32
          }""")
        add, mul = ops_of(module.body.operations[0])[:2]
        PassManager.parse("builtin.module(convert-arith-to-llvm)").run(module.operation)
        # CHECK: llvm.add llvm.mul
        print(add.name, mul.name)
        check()


# CHECK-LABEL: TEST: test_python_pass_in_threaded_pipeline
@run
def test_python_pass_in_threaded_pipeline():
    text = "\n".join(
        f"""func.func @f{i}(%a: i32, %b: i32) -> i32 {{
              %c0 = arith.constant 0 : i32
              %x = arith.addi %a, %c0 : i32
              %m = arith.muli %x, %b : i32
              return %m : i32
            }}"""
        for i in range(24)
    )
    with ir.Context() as context:
        module = ir.Module.parse(text)
        muls = [ops_of(f)[2] for f in module.body.operations]
        patterns = rewrite.RewritePatternSet()
        patterns.add("arith.muli", swap_muli)
        frozen = patterns.freeze()
        ran_on = []

        def python_pass(op, pass_):
            ran_on.append(op.attributes["sym_name"])
            rewrite.apply_patterns_and_fold_greedily(op, frozen)

        pm = PassManager.parse("builtin.module(func.func(canonicalize))")
        pm.add(python_pass, name="swap-muli", op_name="func.func")
        pm.add("func.func(cse)")
        pm.enable_tracking_verification()
        # CHECK: builtin.module(func.func(canonicalize{{.*}}),func.func(swap-muli),func.func(cse))
        print(str(pm))
        pm.run(module.operation)
        # CHECK: 24 True True
        print(len(ran_on), all(m.handle_state == "live" for m in muls),
              all("swapped" in m.attributes for m in muls))
        check(context)


# CHECK-LABEL: TEST: test_python_pass_failure
@run
def test_python_pass_failure():
    with ir.Context():
        module = ir.Module.parse(ARITH)

        def failing(op, pass_):
            pass_.signal_pass_failure()

        def raising(op, pass_):
            raise KeyError("no such thing")

        for fn in (failing, raising):
            pm = PassManager("builtin.module")
            pm.add(fn)
            try:
                pm.run(module.operation)
            except ir.MLIRError as e:
                # CHECK: failing: MLIRError
                # CHECK: raising: MLIRError {{.*}}Python pass '{{.*}}raising' raised: KeyError
                print(fn.__name__ + ":", "MLIRError", str(e).replace("\n", " ")[:200])


# CHECK-LABEL: TEST: test_python_pass_arguments
@run
def test_python_pass_arguments():
    # Upstream's PassManager.add(run, name, argument, description, op_name),
    # positional or by keyword, and its ExternalPass name.
    from mlir_tracking.passmanager import ExternalPass

    with ir.Context():
        module = ir.Module.parse(ARITH)
        seen = []

        class Counter:
            def __call__(self, op, pass_):
                seen.append((op.name, isinstance(pass_, ExternalPass)))

        pm = PassManager("builtin.module")
        pm.add(Counter(), "CountModule")
        pm.add(Counter(), "CountFuncs", "count-funcs", None, "func.func")
        pm.add(run=Counter(), name="Anywhere", op_name="")
        # CHECK: builtin.module(CountModule,func.func(count-funcs),Anywhere)
        print(pm)
        # Unnamed: the function's __name__ (not its qualified name), or the
        # callable object's class name.
        def local_pass(op, pass_):
            pass

        unnamed = PassManager("builtin.module")
        unnamed.add(local_pass)
        unnamed.add(Counter())
        # CHECK-NEXT: builtin.module(local_pass,Counter)
        print(unnamed)
        pm.run(module.operation)
        # The module, each function, the module again; `pass_` an ExternalPass.
        # CHECK-NEXT: True True True True
        funcs = len(module.body.operations)
        print(funcs > 0, [name for name, _ in seen] == ["builtin.module"] +
              ["func.func"] * funcs + ["builtin.module"],
              all(is_pass for _, is_pass in seen), ExternalPass.__name__ == "Pass")


def libmlir():
    with open("/proc/self/maps") as maps:
        for line in maps:
            if "libMLIR.so" in line:
                return ctypes.CDLL(line.split()[-1])


# CHECK-LABEL: TEST: test_verification_catches_dishonest_pass
@run
def test_verification_catches_dishonest_pass():
    # mlir::Operation::erase(), called on the raw pointer: no listener sees it.
    destroy = getattr(libmlir(), "_ZN4mlir9Operation5eraseEv")
    destroy.argtypes = [ctypes.c_void_p]
    pointer = ctypes.pythonapi.PyCapsule_GetPointer
    pointer.restype = ctypes.c_void_p
    pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    with ir.Context():
        module = ir.Module.parse(ARITH)
        dead = ops_of(module.body.operations[0])[5]
        # Declared precise (every Python pass is), but erases through the C++
        # API, behind the tracking listener's back.
        address = pointer(dead._CAPIPtr, b"mlir.ir.Operation._CAPIPtr")

        def dishonest(op, pass_):
            destroy(address)

        pm = PassManager("builtin.module")
        pm.add(dishonest, op_name="func.func")
        pm.enable_tracking_verification()
        try:
            pm.run(module.operation)
        except ir.MLIRError as e:
            # CHECK: tracking verification failed after pass '{{.*}}dishonest' on func.func @f: handle to 'arith.addi' at {{.*}} maps an op that is no longer in the IR
            print(str(e).splitlines()[0])
        # CHECK: invalidated
        print(dead.handle_state)
        check()


# CHECK-LABEL: TEST: test_rolled_back_blocks_and_values_end
@run
def test_rolled_back_blocks_and_values_end():
    # A Value and a Block a conversion pattern kept from an op it created:
    # the rollback frees that op without notification. They used to stay
    # valid and read freed memory (value.owner segfaulted); they end with
    # the op's handle.
    with ir.Context(), ir.Location.unknown():
        i32 = ir.IntegerType.get_signless(32)
        module = ir.Module.parse("""
          func.func @f(%a: i32, %b: i32) -> i32 {
            %m = arith.muli %a, %b : i32
            %s = arith.subi %m, %b : i32
            return %s : i32
          }""")
        arg = module.body.operations[0].regions[0].blocks[0].arguments[0]
        kept = {}

        def convert(op, operands, converter, rewriter):
            with rewriter.ip:
                new = ir.Operation.create("llvm.mul", results=[i32],
                                          operands=operands, regions=1)
            kept["block"] = new.regions[0].blocks.append(i32)
            kept["argument"] = kept["block"].arguments[0]
            kept["value"] = new.results[0]
            kept["op"] = new
            rewriter.replace_op(op, new)

        converter = rewrite.TypeConverter()
        converter.add_conversion(lambda t: t)
        target = rewrite.ConversionTarget()
        target.add_legal_dialect("llvm", "func", "builtin")
        target.add_illegal_dialect("arith")  # subi stays: the conversion fails
        patterns = rewrite.RewritePatternSet()
        patterns.add_conversion("arith.muli", convert, converter)
        try:
            rewrite.apply_full_conversion(module, target, patterns.freeze())
        except ir.MLIRError:
            pass
        # CHECK: erased erased False erased live
        print(kept["op"].handle_state, kept["value"].handle_state,
              kept["block"].is_valid, kept["argument"].handle_state,
              arg.handle_state)
        try:
            kept["value"].owner
        except ir.InvalidatedHandleError as e:
            # CHECK: the conversion may undo that pattern without notice
            print(str(e).split("; ")[-1])
        check()


# CHECK-LABEL: TEST: test_block_argument_erasure_in_a_conversion_with_rollback
@run
def test_block_argument_erasure_in_a_conversion_with_rollback():
    # A conversion pattern that sets an op's operands away from a block
    # argument (through the conversion's rewriter, which records the old
    # operands) and then erases the argument (not through it): undoing the
    # failed pattern gave the op the freed argument back (a segfault).
    # Under rollback the erasure is refused; without it, it is done.
    source = """
      func.func @f(%a: i32, %b: i32) -> i32 {
        cf.br ^bb1(%a : i32)
      ^bb1(%x: i32):
        %c = arith.muli %x, %x : i32
        return %c : i32
      }"""
    for rollback in (True, False):
        with ir.Context(), ir.Location.unknown():
            module = ir.Module.parse(source)
            f = module.body.operations[0]
            entry, body = f.regions[0].blocks

            def convert(op, operands, converter, rewriter):
                op.operation.operands[0] = entry.arguments[1]
                op.operation.operands[1] = entry.arguments[1]
                try:
                    body.erase_argument(0)
                    print("erased")
                except ValueError as e:
                    print(str(e)[:80])
                return True

            converter = rewrite.TypeConverter()
            converter.add_conversion(lambda t: t)
            target = rewrite.ConversionTarget()
            target.add_illegal_op("arith.muli")
            target.add_legal_dialect("llvm", "func", "cf")
            patterns = rewrite.RewritePatternSet()
            patterns.add_conversion("arith.muli", convert, converter)
            config = rewrite.ConversionConfig()
            config.allow_pattern_rollback = rollback
            try:
                rewrite.apply_partial_conversion(f, target, patterns.freeze(),
                                                 config)
            except (ir.MLIRError, RuntimeError) as e:
                print(type(e).__name__)
            print(len(body.arguments), str(body.operations[0]))
    # CHECK: cannot erase a block argument inside a dialect conversion that undoes
    # CHECK-NEXT: MLIRError
    # CHECK-NEXT: 1 %1 = arith.muli %0, %0 : i32
    # Without rollback the erasure is done at once and stays (the branch
    # still passes an operand: the IR no longer verifies, as upstream).
    # CHECK-NEXT: erased
    # CHECK-NEXT: MLIRError
    # CHECK-NEXT: 0 {{.*}}arith.muli{{.*}}(%arg1, %arg1)


# CHECK-LABEL: TEST: test_region_of_an_op_replaced_by_one_with_fewer_regions
@run
def test_region_of_an_op_replaced_by_one_with_fewer_regions():
    # A Region is region #i of the op its handle refers to now: after the
    # handle followed a replacement with fewer regions it raises, naming
    # the op (the message read "of operation handle to ... is live no
    # longer exists").
    with ir.Context() as ctx, ir.Location.unknown():
        ctx.allow_unregistered_dialects = True
        module = ir.Module.parse("""
          func.func @f(%a: i32) -> i32 {
            %r = "test.two"(%a) ({ "test.y"() : () -> () },
                                 { "test.y"() : () -> () }) : (i32) -> i32
            return %r : i32
          }""")
        two = ops_of(module.body.operations[0])[0]
        second = two.regions[1]

        def shrink(op, rewriter):
            if len(op.regions) != 2:
                return True
            with rewriter.ip:
                new = ir.Operation.create("test.two", results=[op.results[0].type],
                                          operands=list(op.operands), regions=1)
            with ir.InsertionPoint(new.regions[0].blocks.append()):
                ir.Operation.create("test.y")
            rewriter.replace_op(op, new)

        patterns = rewrite.RewritePatternSet()
        patterns.add("test.two", shrink)
        rewrite.apply_patterns_and_fold_greedily(module, patterns.freeze())
        # CHECK: live 1
        print(two.handle_state, len(two.regions))
        try:
            second.blocks
        except ir.InvalidatedHandleError as e:
            # CHECK-NEXT: region #1 of 'test.two' no longer exists: the op the handle refers to now has 1 region(s)
            print(e)
        check()


# CHECK-LABEL: TEST: test_conversion_to_other_types
@run
def test_conversion_to_other_types():
    # Upstream's conversion idiom: a pattern replaces an op by one on the
    # converted types, and the conversion casts for the uses it does not
    # convert. replace_op refused results of another type (right for the
    # greedy and walk drivers, where no cast is made).
    for rollback in (True, False):
        with ir.Context(), ir.Location.unknown():
            i32 = ir.IntegerType.get_signless(32)
            module = ir.Module.parse("""
              func.func @f(%a: i64, %b: i64) -> i64 {
                %s = arith.addi %a, %b : i64
                %t = arith.addi %s, %b : i64
                return %t : i64
              }""")
            first, second, _ = ops_of(module.body.operations[0])

            def narrow(t):
                if ir.IntegerType.isinstance(t) and ir.IntegerType(t).width == 64:
                    return i32

            converter = rewrite.TypeConverter()
            converter.add_conversion(lambda t: t)
            converter.add_conversion(narrow)

            def by_op(op, operands, type_converter, rewriter):
                with rewriter.ip:
                    new = ir.Operation.create("llvm.add", results=[i32],
                                              operands=operands)
                rewriter.replace_op(op, new)

            def by_values(op, operands, type_converter, rewriter):
                with rewriter.ip:
                    new = ir.Operation.create("llvm.add", results=[i32],
                                              operands=operands)
                rewriter.replace_op(op, list(new.results))

            patterns = rewrite.RewritePatternSet()
            patterns.add_conversion("arith.addi",
                                    by_op if rollback else by_values, converter)
            target = rewrite.ConversionTarget()
            target.add_legal_dialect("func", "llvm", "builtin")
            target.add_illegal_op("arith.addi")
            config = rewrite.ConversionConfig()
            config.allow_pattern_rollback = rollback
            # Casts stay (no materialization functions to resolve them).
            config.build_materializations = False
            rewrite.apply_partial_conversion(module, target, patterns.freeze(),
                                             config=config)
            text = str(module)
            # CHECK: 2 3 live llvm.add live llvm.add True
            # CHECK: 2 4 live llvm.add live llvm.add True
            print(text.count("llvm.add"),
                  text.count("builtin.unrealized_conversion_cast"),
                  first.handle_state, first.name, second.handle_state,
                  second.name, module.operation.verify())

    # The greedy driver makes no casts: there the types must match.
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse(ARITH)

        def to_i64(op, rewriter):
            with rewriter.ip:
                new = ir.Operation.create(
                    "arith.constant", results=[ir.IntegerType.get_signless(64)],
                    attributes={"value": ir.IntegerAttr.get(
                        ir.IntegerType.get_signless(64), 3)})
            rewriter.replace_op(op, new)

        patterns = rewrite.RewritePatternSet()
        patterns.add("arith.constant", to_i64)
        try:
            rewrite.apply_patterns_and_fold_greedily(module, patterns.freeze())
        except ValueError as error:
            # CHECK: a result of the replacement has another type than the result it replaces
            print(error)


CONVERT_TWICE = """
func.func @f(%a: i32, %b: i32, %c: i1) -> i32 {
  %k = llvm.mlir.constant(5 : i32) : i32
  scf.if %c {
    "test.keep"() : () -> ()
  }
  %y = arith.muli %a, %b {first} : i32
  %z = arith.muli %y, %b : i32
  return %z : i32
}
"""


# CHECK-LABEL: TEST: test_conversion_refuses_what_it_already_removed
@run
def test_conversion_refuses_what_it_already_removed():
    # With rollback (the default), a conversion only records an erase or a
    # replace: the op stays in the IR, its handle live, until the commit
    # erases it. Erasing or replacing it again (or an op in it), using a
    # value that dies then, or building in it made the commit erase it
    # twice (a segfault) or fail after changing the IR. Each such call now
    # raises at once, and the conversion fails with the IR as it was.
    def mul(rewriter, op, operands):
        with rewriter.ip:
            return ir.Operation.create("llvm.mul", results=[op.results[0].type],
                                       operands=operands)

    def erase_twice(op, operands, rewriter, ops):
        rewriter.erase_op(ops[0])
        rewriter.erase_op(ops[0])

    def erase_then_operation_erase(op, operands, rewriter, ops):
        rewriter.erase_op(ops[0])
        ops[0].erase()

    def replace_twice(op, operands, rewriter, ops):
        rewriter.replace_op(op, mul(rewriter, op, operands))
        rewriter.replace_op(op, [operands[0]])

    def erase_holder_then_nested(op, operands, rewriter, ops):
        rewriter.erase_op(ops[1])
        rewriter.erase_op(ops[1].regions[0].blocks[0].operations[0])

    def replace_by_erased_value(op, operands, rewriter, ops):
        rewriter.erase_op(ops[0])
        rewriter.replace_op(op, [ops[0].results[0]])

    def new_op_uses_erased_value(op, operands, rewriter, ops):
        rewriter.erase_op(ops[0])
        mul(rewriter, op, [ops[0].results[0], operands[1]])

    def build_in_erased_op(op, operands, rewriter, ops):
        rewriter.set_insertion_point_before(
            ops[1].regions[0].blocks[0].operations[0])
        rewriter.erase_op(ops[1])
        with rewriter.ip:
            ir.Operation.create("test.new")

    def later_pattern_replaces_again(op, operands, rewriter, ops):
        if "first" in op.attributes:
            rewriter.replace_op(op, mul(rewriter, op, operands))
            return
        # The first muli, replaced by the earlier call, reached through
        # the IR (its handle is still live).
        first = op.operands[0].owner
        rewriter.replace_op(first, mul(rewriter, first, list(first.operands)))

    for case in (erase_twice, erase_then_operation_erase, replace_twice,
                 erase_holder_then_nested, replace_by_erased_value,
                 new_op_uses_erased_value, build_in_erased_op,
                 later_pattern_replaces_again):
        with ir.Context() as context, ir.Location.unknown():
            context.allow_unregistered_dialects = True
            module = ir.Module.parse(CONVERT_TWICE)
            before = str(module)
            converter = rewrite.TypeConverter()
            converter.add_conversion(lambda t: t)
            target = rewrite.ConversionTarget()
            target.add_legal_dialect("llvm", "func", "builtin", "scf")
            target.add_illegal_op("arith.muli")

            def pattern(op, operands, type_converter, rewriter):
                case(op.operation, operands, rewriter,
                     ops_of(module.body.operations[0]))

            patterns = rewrite.RewritePatternSet()
            patterns.add_conversion("arith.muli", pattern, converter)
            try:
                rewrite.apply_partial_conversion(module, target,
                                                 patterns.freeze())
                print(case.__name__, "converted")
            except ValueError as error:
                print(case.__name__, "ValueError:", error)
            print("unchanged:", str(module) == before,
                  module.operation.verify())
    # CHECK: erase_twice ValueError: cannot erase 'llvm.mlir.constant': it was already erased by this conversion (a conversion with rollback leaves it in place until it commits)
    # CHECK-NEXT: unchanged: True True
    # CHECK-NEXT: erase_then_operation_erase ValueError: cannot erase 'llvm.mlir.constant': it was already erased by this conversion
    # CHECK-NEXT: unchanged: True True
    # CHECK-NEXT: replace_twice ValueError: cannot replace 'arith.muli': it was already replaced by this conversion
    # CHECK-NEXT: unchanged: True True
    # CHECK-NEXT: erase_holder_then_nested ValueError: cannot erase 'test.keep': it is inside 'scf.if', which was already erased by this conversion
    # CHECK-NEXT: unchanged: True True
    # CHECK-NEXT: replace_by_erased_value ValueError: cannot replace 'arith.muli' by it: it would use a result of 'llvm.mlir.constant', which was already erased by this conversion
    # CHECK-NEXT: unchanged: True True
    # CHECK-NEXT: new_op_uses_erased_value ValueError: cannot place 'llvm.mul' there: it would use a result of 'llvm.mlir.constant', which was already erased by this conversion
    # CHECK-NEXT: unchanged: True True
    # CHECK-NEXT: build_in_erased_op ValueError: cannot place 'test.new' there: its destination is in 'scf.if', which was already erased by this conversion
    # CHECK-NEXT: unchanged: True True
    # CHECK-NEXT: later_pattern_replaces_again ValueError: cannot replace 'arith.muli': it was already replaced by this conversion
    # CHECK-NEXT: unchanged: True True


# CHECK-LABEL: TEST: test_conversion_forgets_what_it_undid
@run
def test_conversion_forgets_what_it_undid():
    # What the conversion undoes is no longer erased: a pattern that failed
    # after erasing an op, and one whose result the conversion could not
    # legalize, leave the op to the next pattern.
    with ir.Context() as context, ir.Location.unknown():
        context.allow_unregistered_dialects = True
        module = ir.Module.parse(CONVERT_TWICE)
        converter = rewrite.TypeConverter()
        converter.add_conversion(lambda t: t)
        target = rewrite.ConversionTarget()
        target.add_legal_dialect("llvm", "func", "builtin", "scf")
        target.add_illegal_op("arith.muli")
        calls = []

        def illegal_result(op, operands, type_converter, rewriter):
            calls.append("illegal_result")
            if "first" in op.attributes:
                rewriter.erase_op(ops_of(module.body.operations[0])[0])
            with rewriter.ip:
                new = ir.Operation.create(
                    "arith.muli", results=[op.results[0].type],
                    operands=operands, attributes={"made": ir.UnitAttr.get()})
            rewriter.replace_op(op, new)

        def fails_after_erasing(op, operands, type_converter, rewriter):
            calls.append("fails_after_erasing")
            if "made" in op.attributes:
                return True
            if "first" in op.attributes:
                rewriter.erase_op(ops_of(module.body.operations[0])[0])
            return True

        def to_llvm(op, operands, type_converter, rewriter):
            calls.append("to_llvm")
            if "made" in op.attributes:
                return True
            if "first" in op.attributes:
                rewriter.erase_op(ops_of(module.body.operations[0])[0])
            with rewriter.ip:
                new = ir.Operation.create(
                    "llvm.mul", results=[op.results[0].type], operands=operands)
            rewriter.replace_op(op, new)

        patterns = rewrite.RewritePatternSet()
        patterns.add_conversion("arith.muli", illegal_result, converter,
                                benefit=3)
        patterns.add_conversion("arith.muli", fails_after_erasing, converter,
                                benefit=2)
        patterns.add_conversion("arith.muli", to_llvm, converter, benefit=1)
        rewrite.apply_partial_conversion(module, target, patterns.freeze())
        # CHECK: ['illegal_result', 'fails_after_erasing', 'to_llvm', 'fails_after_erasing', 'to_llvm']
        print(calls[:5])
        # CHECK: func.func @f
        # CHECK-NOT: llvm.mlir.constant
        # CHECK: llvm.mul %arg0, %arg1
        # CHECK: llvm.mul
        # CHECK-NOT: arith.muli
        # CHECK: True
        print(module)
        print(module.operation.verify())



UNDONE_THEN_OTHER_OPS = """
func.func @f(%a: i32, %b: i32) -> i32 {
  %k = llvm.mlir.constant(5 : i32) : i32
  "test.x"(%a) : (i32) -> ()
  "test.y"(%b) : (i32) -> ()
  "test.z"(%b) : (i32) -> ()
  "test.w"(%b) : (i32) -> ()
  return %a : i32
}
"""


# CHECK-LABEL: TEST: test_conversion_forgets_undone_patterns_of_other_ops
@run
def test_conversion_forgets_undone_patterns_of_other_ops():
    # A pattern on test.x erases %k (or an op it made), then makes an op the
    # conversion cannot legalize: the conversion undoes the pattern. What it
    # erased is not erased any more: a later pattern on test.y may erase %k
    # (upstream does), and a new op at the address of the freed one is not
    # taken for it. The ops test.n a pattern made and the conversion freed
    # were tried: a new test.n at such an address is a new op, and what was
    # erased since stays erased (the second erase of %k is refused; it was
    # erased twice at commit).
    def convert(kind):
        with ir.Context() as context, ir.Location.unknown():
            context.allow_unregistered_dialects = True
            module = ir.Module.parse(UNDONE_THEN_OTHER_OPS)
            k = ops_of(module.body.operations[0])[0]
            converter = rewrite.TypeConverter()
            converter.add_conversion(lambda t: t)
            target = rewrite.ConversionTarget()
            target.add_legal_dialect("llvm", "func", "builtin")
            target.add_illegal_op("arith.muli")

            def erase_new_op(rewriter):
                with rewriter.ip:
                    new = ir.Operation.create("test.tmp")
                rewriter.erase_op(new)

            def on_n(op, operands, type_converter, rewriter):
                if str(op.attributes["tag"]) == '"undone"':
                    return True
                rewriter.erase_op(op)

            def on_x(op, operands, type_converter, rewriter):
                if kind == "erase_k":
                    rewriter.erase_op(k)
                elif kind == "new_op":
                    erase_new_op(rewriter)
                with rewriter.ip:
                    if kind == "retry":
                        ir.Operation.create("test.n", attributes={"tag": ir.StringAttr.get("undone")})
                    ir.Operation.create(
                        "arith.muli", results=[ir.IntegerType.get_signless(32)],
                        operands=[operands[0], operands[0]])
                rewriter.erase_op(op)

            def on_y(op, operands, type_converter, rewriter):
                if kind == "new_op":
                    erase_new_op(rewriter)
                else:
                    rewriter.erase_op(k)
                rewriter.erase_op(op)

            def on_z(op, operands, type_converter, rewriter):
                with rewriter.ip:
                    for _ in range(8):
                        ir.Operation.create("test.n", attributes={"tag": ir.StringAttr.get("new")})
                rewriter.erase_op(op)

            def on_w(op, operands, type_converter, rewriter):
                if kind == "retry":
                    rewriter.erase_op(k)
                rewriter.erase_op(op)

            patterns = rewrite.RewritePatternSet()
            for name, fn in (("test.n", on_n), ("test.x", on_x), ("test.y", on_y),
                             ("test.z", on_z), ("test.w", on_w)):
                patterns.add_conversion(name, fn, converter)
            try:
                rewrite.apply_partial_conversion(module, target, patterns.freeze())
                outcome = "converted"
            except ValueError as e:
                outcome = "ValueError: " + str(e)
            print(kind, outcome, module.operation.verify(),
                  [op.name for op in ops_of(module.body.operations[0])])
        gc.collect()

    convert("erase_k")
    # CHECK-NEXT: erase_k converted True ['test.x', 'func.return']
    convert("new_op")
    # CHECK-NEXT: new_op converted True ['llvm.mlir.constant', 'test.x', 'func.return']
    convert("retry")
    # CHECK-NEXT: retry ValueError: cannot erase 'llvm.mlir.constant': it was already erased by this conversion (a conversion with rollback leaves it in place until it commits) True ['test.x', 'test.w', 'func.return']


# CHECK-LABEL: TEST: test_conversion_forgets_nested_patterns_it_undid
@run
def test_conversion_forgets_nested_patterns_it_undid():
    # touch_then_fail modifies %dead, which the conversion then legalizes
    # nested in it (add_to_llvm makes an llvm.add before it), then leaves an
    # arith.xori nothing legalizes: the conversion undoes both patterns and
    # frees the llvm.add. erase_dead_and_convert erases %dead, committed as
    # a replacement by no values: its handle must neither follow the freed
    # llvm.add (it used to, a read of freed memory) nor name add_to_llvm.
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse("""
          func.func @f(%a: i32, %b: i32) -> i32 {
            %m = arith.muli %a, %b : i32
            %dead = arith.addi %a, %b : i32
            return %m : i32
          }""")
        m, dead = ops_of(module.body.operations[0])[:2]
        i32 = ir.IntegerType.get_signless(32)

        def touch_then_fail(op, operands, type_converter, rewriter):
            def touch():
                dead.attributes["touched"] = ir.UnitAttr.get()

            rewriter.modify_op_in_place(dead, touch)
            with rewriter.ip:
                ir.Operation.create("arith.xori", results=[i32], operands=operands)
                new = ir.Operation.create("llvm.mul", results=[i32], operands=operands)
            rewriter.replace_op(op, new)

        def add_to_llvm(op, operands, type_converter, rewriter):
            with rewriter.ip:
                new = ir.Operation.create("llvm.add", results=[i32], operands=operands)
            rewriter.replace_op(op, new)

        def erase_dead_and_convert(op, operands, type_converter, rewriter):
            rewriter.erase_op(dead)
            with rewriter.ip:
                new = ir.Operation.create("llvm.mul", results=[i32], operands=operands)
            rewriter.replace_op(op, new)

        converter = rewrite.TypeConverter()
        converter.add_conversion(lambda t: t)
        target = rewrite.ConversionTarget()
        target.add_legal_dialect("llvm", "func", "builtin")
        target.add_illegal_op("arith.muli", "arith.addi", "arith.xori")
        patterns = rewrite.RewritePatternSet()
        patterns.add_conversion("arith.muli", touch_then_fail, converter, benefit=2)
        patterns.add_conversion("arith.addi", add_to_llvm, converter)
        patterns.add_conversion("arith.muli", erase_dead_and_convert, converter)
        config = rewrite.ConversionConfig()
        config.allow_pattern_rollback = True
        rewrite.apply_partial_conversion(module, target, patterns.freeze(), config)
        # CHECK: erased arith.addi at {{.*}}: erased (dialect conversion); replacement values have no single defining op
        print(dead.handle_state, dead.handle_history[-1].split(": ", 1)[1])
        # CHECK: live llvm.mul True
        print(m.handle_state, m.name,
              m.handle_history[-1].endswith(".erase_dead_and_convert)"))
        check()


# CHECK-LABEL: TEST: test_conversion_erases_other_ir_at_once
@run
def test_conversion_erases_other_ir_at_once():
    # Operation.erase() of an op of other IR (a module the pattern parsed)
    # in a conversion pattern: the conversion's rewriter only recorded it,
    # and erased the op when it committed, after the module was freed. Now
    # it erases the op at once, and the rewriter refuses such an op.
    for keep in (False, True):
        with ir.Context() as context, ir.Location.unknown():
            context.allow_unregistered_dialects = True
            module = ir.Module.parse(
                'func.func @f(%a: i32) {\n  "test.x"(%a) : (i32) -> ()\n  return\n}')
            converter = rewrite.TypeConverter()
            converter.add_conversion(lambda t: t)
            target = rewrite.ConversionTarget()
            target.add_legal_dialect("func", "builtin")
            kept = []

            def on_x(op, operands, type_converter, rewriter):
                scratch = ir.Module.parse('"test.tmp"() : () -> ()')
                tmp = scratch.body.operations[0]
                for change in (rewriter.erase_op, lambda op: rewriter.replace_op(op, [])):
                    try:
                        change(tmp)
                    except ValueError as e:
                        print(e)
                tmp.operation.erase()
                print(len(scratch.body.operations), tmp.operation.handle_state)
                if keep:
                    kept.append(scratch)
                rewriter.erase_op(op)

            patterns = rewrite.RewritePatternSet()
            patterns.add_conversion("test.x", on_x, converter)
            rewrite.apply_partial_conversion(module, target, patterns.freeze())
            print(module.operation.verify(),
                  [op.name for op in ops_of(module.body.operations[0])],
                  [len(scratch.body.operations) for scratch in kept])
        gc.collect()
    # CHECK-NEXT: cannot erase 'test.tmp' with the rewriter: it is not in the IR the conversion rewrites, and a conversion with rollback would erase it only when it commits (after that IR may be freed); change other IR through Operation's methods (Operation.erase())
    # CHECK-NEXT: cannot replace 'test.tmp' with the rewriter: it is not in the IR the conversion rewrites, and a conversion with rollback would replace it only when it commits {{.*}}
    # CHECK-NEXT: 0 erased
    # CHECK-NEXT: True ['func.return'] []
    # CHECK-NEXT: cannot erase 'test.tmp' {{.*}}
    # CHECK-NEXT: cannot replace 'test.tmp' {{.*}}
    # CHECK-NEXT: 0 erased
    # CHECK-NEXT: True ['func.return'] [0]

IP_IN_IF = """
func.func private @f(%a: i32, %c: i1) -> i32 {
  scf.if %c {
    scf.if %c {
      "test.keep"() : () -> ()
    }
  }
  %y = arith.muli %a, %a : i32
  return %y : i32
}
"""


# CHECK-LABEL: TEST: test_insertion_point_in_erased_block
@run
def test_insertion_point_in_erased_block():
    # A pattern put the rewriter's insertion point in a block and then
    # erased that block, or an op holding it: `rewriter.ip` read the freed
    # block. The point is now cleared with the block, and reading it says
    # so; an InsertionPoint taken before refers to an erased block.
    def erase_outer_if(rewriter, outer, op):
        rewriter.erase_op(outer)

    def operation_erase(rewriter, outer, op):
        outer.erase()

    def erase_enclosing_func(rewriter, outer, op):
        rewriter.erase_op(op.parent)

    # (The walk driver refuses to erase an ancestor of the matched op.)
    for erase, driver in (
            (erase_outer_if, rewrite.apply_patterns_and_fold_greedily),
            (erase_outer_if, rewrite.walk_and_apply_patterns),
            (operation_erase, rewrite.apply_patterns_and_fold_greedily),
            (operation_erase, rewrite.walk_and_apply_patterns),
            (erase_enclosing_func, rewrite.apply_patterns_and_fold_greedily)):
        with ir.Context() as context, ir.Location.unknown():
            context.allow_unregistered_dialects = True
            module = ir.Module.parse(IP_IN_IF)
            func = module.body.operations[0]
            outer = ops_of(func)[0]
            inner = outer.regions[0].blocks[0].operations[0]
            keep = inner.regions[0].blocks[0].operations[0]
            seen = []

            def pattern(op, rewriter):
                if seen:
                    return True
                rewriter.set_insertion_point_after(keep)
                saved = rewriter.ip
                erase(rewriter, outer, op.operation)
                try:
                    rewriter.ip
                except RuntimeError as error:
                    seen.append(str(error))
                try:
                    with saved:
                        ir.Operation.create("test.new")
                except ir.InvalidatedHandleError as error:
                    seen.append("saved: " + str(error).split(" at ")[0])
                # A new point can be set, and used.
                if op.operation.is_valid:
                    rewriter.set_insertion_point_before(op)
                    with rewriter.ip:
                        ir.Operation.create("test.new")

            patterns = rewrite.RewritePatternSet()
            patterns.add("arith.muli", pattern)
            try:
                driver(module, patterns.freeze())
            except RuntimeError as error:
                seen.append("driver: " + str(error))
            print(erase.__name__, seen, module.operation.verify())
    # CHECK: erase_outer_if ["the rewriter's insertion point was erased: its block (or an op holding it) was erased; set a new one with set_insertion_point_before/after", "saved: block handle to block #0 of region #0 of 'scf.if'"] True
    # CHECK-NEXT: erase_outer_if ["the rewriter's insertion point was erased: {{.*}}", "saved: {{.*}}"] True
    # CHECK-NEXT: operation_erase ["the rewriter's insertion point was erased: {{.*}}", "saved: {{.*}}"] True
    # CHECK-NEXT: operation_erase ["the rewriter's insertion point was erased: {{.*}}", "saved: {{.*}}"] True
    # CHECK-NEXT: erase_enclosing_func ["the rewriter's insertion point was erased: {{.*}}", "saved: {{.*}}"] True


PDL_MULI_PREFIX = """
module {
  pdl.pattern : benefit(1) {
    %type = pdl.type : i32
    %lhs = pdl.operand
    %rhs = pdl.operand
    %op = pdl.operation "arith.muli"(%lhs, %rhs : !pdl.value, !pdl.value) -> (%type : !pdl.type)
    pdl.rewrite %op {"""


# CHECK-LABEL: TEST: test_pdl_function_leaves_insertion_point_in_erased_block
@run
def test_pdl_function_leaves_insertion_point_in_erased_block():
    # PDL creates the rest of its rewrite's ops at the rewriter's insertion
    # point: a rewrite function that left it in a block it erased made PDL
    # build in freed IR. The point goes back before the rewrite's root, and
    # the run raises.
    with ir.Context() as context, ir.Location.unknown():
        context.allow_unregistered_dialects = True
        module = ir.Module.parse(IP_IN_IF)
        func = module.body.operations[0]
        pdl = rewrite.PDLModule(ir.Module.parse(PDL_MULI_PREFIX + """
      pdl.apply_native_rewrite "erase_if"(%op : !pdl.operation)
      %new = pdl.operation "arith.addi"(%lhs, %rhs : !pdl.value, !pdl.value) -> (%type : !pdl.type)
      pdl.replace %op with %new
    }
  }
}"""))

        def erase_if(rewriter, results, values):
            outer = ops_of(func)[0]
            rewriter.set_insertion_point_before(
                outer.regions[0].blocks[0].operations[0])
            rewriter.erase_op(outer)

        pdl.register_rewrite_function("erase_if", erase_if)
        try:
            rewrite.apply_patterns_and_fold_greedily(module, pdl.freeze())
        except RuntimeError as error:
            # CHECK: PDL rewrite function 'erase_if' left the rewriter's insertion point in IR that is erased (its block, or an op holding it, was erased); the rest of its PDL rewrite created its ops before the rewrite's root instead
            print(error)
        # CHECK: %[[SUM:.*]] = arith.addi %arg0, %arg0 : i32
        # CHECK-NEXT: return %[[SUM]] : i32
        # CHECK: True
        print(module)
        print(module.operation.verify())


# CHECK-LABEL: TEST: test_pdl_modules_that_cannot_run
@run
def test_pdl_modules_that_cannot_run():
    # MLIR's PDL lowering and bytecode trust their input: a pattern without
    # a body, patterns in a nested module or none at all, and a call of a
    # native function nobody registered each crashed. PDLModule refuses
    # them; an empty module is an empty set of patterns.
    pattern = """
      pdl.pattern @p : benefit(1) {
        %op = pdl.operation "test.marker"
        %CALL
        pdl.rewrite %op { %REWRITE }
      }"""
    erase_markers = pattern.replace("%CALL", "").replace("%REWRITE", "pdl.erase %op")
    with ir.Context() as context, ir.Location.unknown():
        context.allow_unregistered_dialects = True
        no_body = ir.Module.create()
        ir.Operation.create(
            "pdl.pattern", regions=1,
            attributes={"benefit": ir.IntegerAttr.get(
                ir.IntegerType.get_signless(16), 1)},
            ip=ir.InsertionPoint(no_body.body))
        constraint = pattern.replace(
            "%CALL", 'pdl.apply_native_constraint "typo"(%op : !pdl.operation)'
        ).replace("%REWRITE", "pdl.erase %op")
        cases = {
            "no body": no_body,
            "nested": "module { module {" + erase_markers + "} }",
            "no pattern": "module { func.func @g() { return } }",
            "constraint": constraint,
            "rewrite": pattern.replace("%CALL", "").replace(
                "pdl.rewrite %op { %REWRITE }", 'pdl.rewrite %op with "typo"'),
        }
        for label, source in cases.items():
            try:
                if isinstance(source, str):
                    source = ir.Module.parse(source)
                rewrite.PDLModule(source).freeze()
                print(label, "frozen")
            except (ValueError, ir.MLIRError) as error:
                print(label, type(error).__name__, str(error).splitlines()[0][:80])
        # CHECK: no body MLIRError PDLModule: the module does not verify
        # CHECK: nested ValueError PDLModule: the module holds no 'pdl.pattern' op at its top level (patterns
        # CHECK: no pattern ValueError PDLModule: the module holds no 'pdl.pattern' op at its top level (patterns
        # CHECK: constraint ValueError PDLModule: the patterns call the native constraint function 'typo', which
        # CHECK: rewrite ValueError PDLModule: the patterns call the native rewrite function 'typo', which is n

        # Registered, the same calls run; no patterns change nothing.
        source = 'func.func @f() { "test.marker"() : () -> ()\n return }'
        registered = rewrite.PDLModule(ir.Module.parse(constraint))
        registered.register_constraint_function("typo", lambda *args: None)
        payload = ir.Module.parse(source)
        rewrite.apply_patterns_and_fold_greedily(payload, registered.freeze())
        empty = rewrite.PDLModule(ir.Module.parse("module {}")).freeze()
        untouched = ir.Module.parse(source)
        rewrite.apply_patterns_and_fold_greedily(untouched, empty)
        # CHECK: 0 1
        print(str(payload).count("test.marker"), str(untouched).count("test.marker"))


# CHECK-LABEL: TEST: test_pattern_benefit_range
@run
def test_pattern_benefit_range():
    # MLIR keeps 16 bits of a benefit and reserves the largest value for
    # "never applied": 65536 ran as benefit 0, 65535 never.
    with ir.Context():
        patterns = rewrite.RewritePatternSet()
        patterns.add("arith.addi", lambda op, rewriter: True, benefit=65534)
        for benefit in (65535, 65536):
            try:
                patterns.add("arith.addi", lambda op, rewriter: True,
                             benefit=benefit)
            except ValueError as error:
                # CHECK: a pattern's benefit must be below 65535, got 65535
                # CHECK: a pattern's benefit must be below 65535, got 65536
                print(error)


# CHECK-LABEL: TEST: test_patterns_get_the_op_view
@run
def test_patterns_get_the_op_view():
    # Upstream hands a pattern the matched op's OpView subclass.
    from mlir_tracking.dialects import arith
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse("""
          func.func @f(%a: i32, %b: i32) -> i32 {
            %s = arith.addi %a, %b : i32
            %m = arith.muli %s, %b : i32
            return %m : i32
          }""")
        seen = []

        def addi_to_muli(op, rewriter):
            seen.append(type(op).__name__)
            with rewriter.ip:
                product = arith.muli(op.lhs, op.rhs)
            rewriter.replace_op(op, product.owner)

        def convert_muli(op, operands, type_converter, rewriter):
            seen.append(type(op).__name__)
            with rewriter.ip:
                new = ir.Operation.create("llvm.mul", results=[op.result.type],
                                          operands=operands)
            rewriter.replace_op(op, new)

        patterns = rewrite.RewritePatternSet()
        patterns.add(arith.AddIOp, addi_to_muli)
        rewrite.apply_patterns_and_fold_greedily(module, patterns.freeze())
        converter = rewrite.TypeConverter()
        converter.add_conversion(lambda t: t)
        target = rewrite.ConversionTarget()
        target.add_legal_dialect("llvm", "func", "arith")
        target.add_illegal_op("arith.muli")
        patterns = rewrite.RewritePatternSet()
        patterns.add_conversion("arith.muli", convert_muli, converter)
        rewrite.apply_partial_conversion(module, target, patterns.freeze())
        # CHECK: ['AddIOp', 'MulIOp', 'MulIOp'] 2
        print(seen, str(module).count("llvm.mul"))


# CHECK-LABEL: TEST: test_pdl_rewrites_creating_invalid_ops
@run
def test_pdl_rewrites_creating_invalid_ops():
    # PDL builds an op from whatever its rewrite names; the driver's folders
    # then read it as valid: an arith.addi of one operand (a segfault in its
    # folder), an inherent attribute of the wrong kind (MLIR drops it; the
    # printer read the null it left). Each op a rewrite creates is checked
    # when the rewrite ends: its uses get a placeholder and the run raises.
    def pattern(new_op):
        return """
          module {
            pdl.pattern @p : benefit(1) {
              %t = pdl.type : i32
              %x = pdl.operand
              %y = pdl.operand
              %op = pdl.operation "arith.muli"(%x, %y : !pdl.value, !pdl.value) -> (%t : !pdl.type)
              pdl.rewrite %op {
                %bad = pdl.attribute = 5 : i32
                %new = """ + new_op + """
                pdl.replace %op with %new
              }
            }
          }"""

    cases = {
        "one operand": pattern('pdl.operation "arith.addi"(%x : !pdl.value) -> (%t : !pdl.type)'),
        "wrong kind": pattern('pdl.operation "arith.addi"(%x, %y : !pdl.value, !pdl.value) '
                              '{"overflowFlags" = %bad} -> (%t : !pdl.type)'),
        "valid": pattern('pdl.operation "arith.addi"(%x, %y : !pdl.value, !pdl.value) '
                         '-> (%t : !pdl.type)'),
    }
    with ir.Context():
        for label, source in cases.items():
            module = ir.Module.parse("""
              func.func @f(%a: i32, %b: i32) -> i32 {
                %c0 = arith.constant 0 : i32
                %m = arith.muli %a, %b : i32
                %u = arith.addi %m, %c0 : i32
                return %u : i32
              }""")
            mul = ops_of(module.body.operations[0])[1]
            frozen = rewrite.PDLModule(ir.Module.parse(source)).freeze()
            try:
                rewrite.apply_patterns_and_fold_greedily(module, frozen)
                outcome = "applied"
            except RuntimeError as error:
                outcome = str(error).split(": the driver")[0]
            print(label, "|", outcome, "|", mul.handle_state,
                  module.operation.verify(),
                  str(module).count("unrealized_conversion_cast"))
        # CHECK: one operand | the PDL pattern at loc("-":3:13) created 'arith.addi', which does not verify ('arith.addi' op expected 2 operands, but found 1) | erased True 1
        # CHECK: wrong kind | the PDL pattern at loc("-":3:13) created 'arith.addi', which does not verify ('arith.addi' op lacks its inherent attribute 'overflowFlags' (set to an attribute of the wrong kind, which MLIR drops)) | erased True 1
        # CHECK: valid | applied | erased True 0


# CHECK-LABEL: TEST: test_pdl_created_ops_handed_around
@run
def test_pdl_created_ops_handed_around():
    # A created op handed to a native rewrite function was left unchecked
    # (the function might erase it): a harmless function let an invalid
    # op through to the driver's folder (a segfault). It is checked unless
    # the driver saw it erased. A created op replacing the op whose results
    # it uses would use itself (the greedy driver looped forever): refused.
    source = """
      module {
        pdl.pattern @p : benefit(1) {
          %t = pdl.type : i32
          %x = pdl.operand
          %y = pdl.operand
          %op = pdl.operation "arith.muli"(%x, %y : !pdl.value, !pdl.value) -> (%t : !pdl.type)
          pdl.rewrite %op {
            %new = pdl.operation "arith.addi"(%x : !pdl.value) -> (%t : !pdl.type)
            pdl.apply_native_rewrite "look"(%new : !pdl.operation)
            pdl.replace %op with %new
          }
        }
      }"""
    with ir.Context():
        module = ir.Module.parse("""
          func.func @f(%a: i32, %b: i32) -> i32 {
            %m = arith.muli %a, %b : i32
            return %m : i32
          }""")
        pdl = rewrite.PDLModule(ir.Module.parse(source))
        seen = []
        pdl.register_rewrite_function(
            "look", lambda rewriter, results, values: seen.append(values[0].name))
        try:
            rewrite.apply_patterns_and_fold_greedily(module, pdl.freeze())
        except RuntimeError as error:
            # CHECK: ['arith.addi'] the PDL pattern at loc("-":3:9) created 'arith.addi', which does not verify ('arith.addi' op expected 2 operands, but found 1)
            print(seen, str(error).split(": the driver")[0])
        # CHECK: True
        print(module.operation.verify())
        self_use = source.replace(
            """%new = pdl.operation "arith.addi"(%x : !pdl.value) -> (%t : !pdl.type)
            pdl.apply_native_rewrite "look"(%new : !pdl.operation)
            pdl.replace %op with %new""",
            """%sum = pdl.operation "arith.addi"(%x, %y : !pdl.value, !pdl.value) -> (%t : !pdl.type)
            %r = pdl.result 0 of %sum
            %and = pdl.operation "arith.andi"(%r, %y : !pdl.value, !pdl.value) -> (%t : !pdl.type)
            pdl.replace %sum with %and
            pdl.replace %op with %and""")
        try:
            rewrite.PDLModule(ir.Module.parse(self_use))
        except ValueError as error:
            # CHECK: replaces an op by one made from its own results, which would then use its own results
            print(str(error).split(") ", 1)[1])


# CHECK-LABEL: TEST: test_pdl_replacement_counts
@run
def test_pdl_replacement_counts():
    # MLIR asserts on a replacement of another count than the op's results
    # (with assertions on) and otherwise drops the extra values; Python's
    # replace_op refuses it, and so does the check PDLModule adds before each
    # pdl.replace (the op is kept, the run raises).
    with ir.Context():
        pdl = rewrite.PDLModule(ir.Module.parse("""
          module {
            pdl.pattern @p : benefit(1) {
              %t = pdl.type : i32
              %x = pdl.operand
              %y = pdl.operand
              %op = pdl.operation "arith.muli"(%x, %y : !pdl.value, !pdl.value) -> (%t : !pdl.type)
              pdl.rewrite %op {
                pdl.replace %op with (%x, %y : !pdl.value, !pdl.value)
              }
            }
          }"""))
        module = ir.Module.parse("""
          func.func @f(%a: i32, %b: i32) -> i32 {
            %m = arith.muli %a, %b : i32
            return %m : i32
          }""")
        try:
            rewrite.apply_patterns_and_fold_greedily(module, pdl.freeze())
        except ValueError as error:
            # CHECK: pdl.replace at loc("-":9:17): expected 1 values, got 2; 'arith.muli' was kept (the rest of its PDL rewrite ran)
            print(error)
        # CHECK: True arith.muli
        print(module.operation.verify(),
              module.body.operations[0].regions[0].blocks[0].operations[0].name)


# CHECK-LABEL: TEST: test_type_converter_contract
@run
def test_type_converter_contract():
    # MLIR's TypeConverter caches conversions by type address for any
    # context: used in a second context, a dead context's cached type
    # answered for the new context's type at the same address. It iterates
    # its conversions while calling them: one added meanwhile freed the list
    # under the loop. And a conversion's exception was dropped, the next
    # conversion's type returned (and cached).
    def error(f):
        try:
            return f()
        except Exception as e:
            return f"{type(e).__name__}: {e}"

    converter = rewrite.TypeConverter()
    converter.add_conversion(lambda t: ir.IntegerType.get_signless(64, context=t.context))
    with ir.Context():
        # CHECK: i64
        print(converter.convert_type(ir.IntegerType.get_signless(32)))
    with ir.Context():
        # CHECK-NEXT: ValueError: this TypeConverter was first used in another Context: MLIR caches its conversions by type for that context; make one TypeConverter per Context
        print(error(lambda: converter.convert_type(ir.IntegerType.get_signless(32))))
        patterns = rewrite.RewritePatternSet()
        # CHECK-NEXT: ValueError: this TypeConverter was first used in another Context
        print(error(lambda: patterns.add_conversion(
            "arith.addi", lambda *args: True, converter)))

    calls = []

    def grows(t):
        calls.append(t)
        converter2.add_conversion(lambda t: None)

    def buggy(t):
        calls.append(t)
        raise KeyError("in the conversion")

    converter2 = rewrite.TypeConverter()
    converter2.add_conversion(lambda t: ir.IntegerType.get_signless(64, context=t.context))
    converter2.add_conversion(grows)
    with ir.Context():
        i8 = ir.IntegerType.get_signless(8)
        # CHECK-NEXT: RuntimeError: TypeConverter.add_conversion: the converter is converting a type (MLIR iterates its conversions meanwhile); add conversions before using it
        print(error(lambda: converter2.convert_type(i8)))
        converter3 = rewrite.TypeConverter()
        converter3.add_conversion(lambda t: ir.IntegerType.get_signless(64, context=t.context))
        converter3.add_conversion(buggy)
        # The exception propagates each time: neither the earlier
        # conversion's i64 nor a failure is cached.
        # CHECK-NEXT: KeyError: 'in the conversion' KeyError: 'in the conversion' 3
        print(error(lambda: converter3.convert_type(i8)),
              error(lambda: converter3.convert_type(i8)), len(calls))
        converter4 = rewrite.TypeConverter()
        converter4.add_conversion(lambda t: "i64")
        # CHECK-NEXT: TypeError: a TypeConverter conversion must return an ir.Type or None, got str
        print(error(lambda: converter4.convert_type(i8)))
        other = ir.Context()
        converter5 = rewrite.TypeConverter()
        converter5.add_conversion(lambda t: ir.IntegerType.get_signless(64, context=other))
        # CHECK-NEXT: ValueError: a TypeConverter conversion returned a type of another Context
        print(error(lambda: converter5.convert_type(i8)))
