# RUN: %PYTHON %s | FileCheck %s
# Runs from Python (PassManager.run, the rewrite drivers,
# apply_named_sequence) verify their input, because upstream passes crash on
# some invalid IR that Python can build. The verification is skipped while
# the IR tree is known to verify: nothing changed it from Python since it
# last verified or since a run on it succeeded. Every kind of change from
# Python makes the next run verify again, so IR made invalid is always
# refused with MLIRError, never handed to a pass.

import gc
from types import SimpleNamespace

from mlir_tracking import ir, rewrite
from mlir_tracking.passmanager import PassManager


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    return f


ASM = """
func.func @f(%a: i32, %b: i64, %c: i1) -> i32 {
  %one = arith.constant 1 : i32
  %0 = arith.addi %a, %one : i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  cf.br ^bb2
^bb2:
  return %0 : i32
}
func.func @g(%x: i32) {
  "test.region"() ({
    "test.end"() : () -> ()
  }) : () -> ()
  return
}
"""


def parts(module):
    f, g = module.body.operations
    entry, bb1, bb2 = f.regions[0].blocks
    one, add, _ = entry.operations
    return SimpleNamespace(
        module=module, f=f, g=g, entry=entry, bb1=bb1, bb2=bb2, one=one,
        add=add, br=bb1.operations[0], ret=bb2.operations[0],
        region_op=g.regions[0].blocks[0].operations[0],
        i32=ir.IntegerType.get_signless(32),
        i64=ir.IntegerType.get_signless(64))


def fresh():
    """A module that verified (a run succeeded on it) and a no-op pipeline."""
    module = ir.Module.parse(ASM)
    pm = PassManager.parse("builtin.module(cse)")
    pm.run(module)
    return module, pm


def count():
    return ir.Context.current._get_verification_count()


# CHECK-LABEL: TEST: test_second_run_does_not_verify
@run
def test_second_run_does_not_verify():
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        before = count()
        module, pm = fresh()
        # A new tree is verified by its first run, not by the next ones.
        # CHECK: 1 1 1
        first = count() - before
        pm.run(module)
        pm.run(module)
        second = count() - before
        # Reading the IR changes nothing.
        str(module)
        list(module.body.operations[0].regions[0].blocks[0].operations)
        pm.run(module)
        print(first, second, count() - before)
        # The rewrite drivers skip it too.
        patterns = rewrite.RewritePatternSet().freeze()
        rewrite.apply_patterns_and_fold_greedily(module, patterns)
        rewrite.walk_and_apply_patterns(module, patterns)
        # CHECK: 1
        print(count() - before)


def refused(name, mutate):
    """Makes the IR invalid with `mutate` after a run verified it, then runs
    again: the run verifies and refuses it."""
    with ir.Context() as ctx, ir.Location.unknown():
        ctx.allow_unregistered_dialects = True
        module, pm = fresh()
        p = parts(module)
        before = count()
        mutate(p)
        try:
            pm.run(module)
            print(name + ": ran")
        except ir.MLIRError as e:
            print(name + ":", str(e).split(" (")[0], count() - before,
                  e.error_diagnostics[0].message.split(":")[0][:40])


# One change of each kind that makes the IR invalid; each run is refused.
# CHECK-LABEL: TEST: test_every_kind_of_change_is_verified
@run
def test_every_kind_of_change_is_verified():
    # CHECK: attribute set: PassManager.run: the IR does not verify 1
    refused("attribute set", lambda p: p.one.attributes.__setitem__(
        "value", ir.Attribute.parse("1 : i64")))
    # CHECK: attribute delete: PassManager.run: the IR does not verify 1
    refused("attribute delete", lambda p: p.one.attributes.__delitem__("value"))
    # CHECK: operand set: PassManager.run: the IR does not verify 1
    refused("operand set", lambda p: p.add.operands.__setitem__(
        0, p.entry.arguments[1]))
    # CHECK: successor set: PassManager.run: the IR does not verify 1 entry block of region may not have prede
    refused("successor set", lambda p: p.br.successors.__setitem__(0, p.entry))
    # CHECK: argument added: PassManager.run: the IR does not verify 1
    refused("argument added", lambda p: p.entry.add_argument(
        p.i32, ir.Location.unknown()))
    # CHECK: argument erased: PassManager.run: the IR does not verify 1
    refused("argument erased",
            lambda p: p.g.regions[0].blocks[0].erase_argument(0))
    # CHECK: argument type: PassManager.run: the IR does not verify 1
    refused("argument type", lambda p: p.entry.arguments[0].set_type(p.i64))
    # CHECK: result type: PassManager.run: the IR does not verify 1
    refused("result type", lambda p: p.one.result.set_type(p.i64))

    def insert(p):
        with ir.InsertionPoint.at_block_begin(p.bb1):
            ir.Operation.create("cf.br", successors=[p.bb2])

    # CHECK: inserted: PassManager.run: the IR does not verify 1
    refused("inserted", insert)

    def create_with_region(p):
        ir.Operation.create(
            "func.func", regions=1,
            attributes={"sym_name": ir.Attribute.parse('"h"'),
                        "function_type": ir.Attribute.parse("() -> ()")},
            ip=ir.InsertionPoint(p.module.body))

    # CHECK: created with a region: PassManager.run: the IR does not verify 1
    refused("created with a region", create_with_region)
    # CHECK: moved: PassManager.run: the IR does not verify 1
    refused("moved", lambda p: p.ret.move_before(p.add))
    # CHECK: moved after: PassManager.run: the IR does not verify 1
    refused("moved after", lambda p: p.br.move_after(p.ret))
    # CHECK: erased: PassManager.run: the IR does not verify 1
    refused("erased", lambda p: p.ret.erase())
    # (The constant uses nothing: a detached op that still used the
    # module's values or blocks would make the run refuse for that first.)
    # CHECK: detached: PassManager.run: the IR does not verify 1 operation's operand is unlinked
    refused("detached", lambda p: p.one.detach_from_parent())
    # The change that made upstream's cf.br canonicalization crash.
    # CHECK: block moved: PassManager.run: the IR does not verify 1 reference to block defined in another r
    refused("block moved", lambda p: p.bb1.append_to(p.region_op.regions[0]))

    def new_block(p):
        p.f.regions[0].blocks.append()

    # CHECK: block appended: PassManager.run: the IR does not verify 1
    refused("block appended", new_block)

    def block_created(p):
        ir.Block.create_at_start(p.f.regions[0], [p.i64])

    # CHECK: block created: PassManager.run: the IR does not verify 1
    refused("block created", block_created)
    # CHECK: block before: PassManager.run: the IR does not verify 1
    refused("block before", lambda p: p.entry.create_before())
    # CHECK: block after: PassManager.run: the IR does not verify 1
    refused("block after", lambda p: p.bb2.create_after())
    # CHECK: cloned: PassManager.run: the IR does not verify 1
    refused("cloned", lambda p: p.ret.clone(
        ip=ir.InsertionPoint.at_block_begin(p.bb2)))
    # CHECK: uses replaced: PassManager.run: the IR does not verify 1
    refused("uses replaced",
            lambda p: p.entry.arguments[0].replace_all_uses_with(p.add.result))
    # CHECK: op uses replaced: PassManager.run: the IR does not verify 1
    refused("op uses replaced",
            lambda p: p.one.replace_all_uses_with(p.add))
    # CHECK: symbol renamed: PassManager.run: the IR does not verify 1
    refused("symbol renamed",
            lambda p: ir.SymbolTable.set_symbol_name(p.g, "f"))

    def symbol_inserted(p):
        # The table renames the clash; a declaration must be private.
        decl = ir.Operation.create(
            "func.func", regions=1,
            attributes={"sym_name": ir.Attribute.parse('"f"'),
                        "function_type": ir.Attribute.parse("() -> ()")})
        ir.SymbolTable(p.module.operation).insert(decl)

    # CHECK: symbol inserted: PassManager.run: the IR does not verify 1
    refused("symbol inserted", symbol_inserted)


# CHECK-LABEL: TEST: test_changes_that_keep_it_valid_still_verify
@run
def test_changes_that_keep_it_valid_still_verify():
    # Any change makes the next run verify, also one that keeps the IR
    # valid; the run then goes on.
    changes = {
        "location": lambda p: setattr(p.add.operation, "location",
                                      ir.Location.name("here")),
        "argument location": lambda p: p.entry.arguments[0].set_location(
            ir.Location.name("there")),
        "visibility": lambda p: ir.SymbolTable.set_visibility(p.g, "private"),
        "symbol uses": lambda p: ir.SymbolTable.replace_all_symbol_uses(
            "f", "k", p.g),
        "attribute": lambda p: p.add.attributes.__setitem__(
            "tag", ir.UnitAttr.get()),
    }
    for name, change in changes.items():
        with ir.Context() as ctx, ir.Location.unknown():
            ctx.allow_unregistered_dialects = True
            module, pm = fresh()
            before = count()
            change(parts(module))
            pm.run(module)
            # CHECK: location 1
            # CHECK: argument location 1
            # CHECK: visibility 1
            # CHECK: symbol uses 1
            # CHECK: attribute 1
            print(name, count() - before)


# CHECK-LABEL: TEST: test_runs_that_leave_it_unverified
@run
def test_runs_that_leave_it_unverified():
    with ir.Context() as ctx, ir.Location.unknown():
        ctx.allow_unregistered_dialects = True
        module, pm = fresh()
        p = parts(module)
        bad_type = ir.TypeAttr.get(
            ir.FunctionType.get([ir.IntegerType.get_signless(64)], []))

        # A pass that breaks the IR with the pass manager's verifier off:
        # the run succeeds, the next one is refused.
        def breaker(op, _pass):
            p.g.attributes["function_type"] = bad_type

        unchecked = PassManager("builtin.module")
        unchecked.add(breaker, name="breaker", op_name="builtin.module")
        unchecked.enable_verifier(False)
        unchecked.run(module)
        # CHECK: after an unverified pass: PassManager.run: the IR does not verify
        try:
            pm.run(module)
        except ir.MLIRError as e:
            print("after an unverified pass:", str(e).split(" (")[0])
        p.g.attributes["function_type"] = ir.TypeAttr.get(
            ir.FunctionType.get([ir.IntegerType.get_signless(32)], []))

        # A failed run: the next run verifies (and then goes on).
        def fail(op, pass_):
            pass_.signal_pass_failure()

        failing = PassManager("builtin.module")
        failing.add(fail, name="fail", op_name="builtin.module")
        before = count()
        try:
            failing.run(module)
        except ir.MLIRError as e:
            print("failed:", str(e).split(" (")[0])
        # CHECK: failed: Failure while executing pass pipeline
        pm.run(module)
        # CHECK: verified again: 2
        print("verified again:", count() - before)

        # A Python pattern that breaks the IR: the driver succeeds, the next
        # run is refused.
        done = []

        def pattern(op, rewriter):
            if done:
                return False
            done.append(op)
            rewriter.modify_op_in_place(
                p.g.operation,
                lambda: p.g.attributes.__setitem__("function_type", bad_type))
            return True

        patterns = rewrite.RewritePatternSet()
        patterns.add("test.end", pattern)
        rewrite.apply_patterns_and_fold_greedily(module, patterns.freeze())
        # CHECK: after a Python pattern: PassManager.run: the IR does not verify
        try:
            pm.run(module)
        except ir.MLIRError as e:
            print("after a Python pattern:", str(e).split(" (")[0])


# CHECK-LABEL: TEST: test_new_trees_and_nested_runs
@run
def test_new_trees_and_nested_runs():
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        module, pm = fresh()
        before = count()
        # A clone is a new tree: its first run verifies.
        copy = module.operation.clone()
        pm.run(copy)
        pm.run(copy)
        # CHECK: clone: 1
        print("clone:", count() - before)
        # A run on a nested op verifies (only) that op while the tree is not
        # known to verify, and does not make the whole tree known to verify.
        other = ir.Module.parse(ASM)
        before = count()
        PassManager.parse("func.func(cse)").run(other.body.operations[0])
        pm.run(other)
        pm.run(other)
        # CHECK: nested: 2
        print("nested:", count() - before)
        # Disallowing unregistered ops may make IR invalid: every tree
        # verifies again.
        ctx.allow_unregistered_dialects = False
        before = count()
        # CHECK: disallowed: PassManager.run: the IR does not verify
        try:
            pm.run(module)
        except ir.MLIRError as e:
            print("disallowed:", str(e).split(" (")[0])
        # Once C++ code may hold the IR (a capsule went out), every run
        # verifies.
        ctx.allow_unregistered_dialects = True
        module.operation._CAPIPtr
        before = count()
        pm.run(module)
        pm.run(module)
        # CHECK: capsule: 2
        print("capsule:", count() - before)
