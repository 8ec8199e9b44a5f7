# RUN: %PYTHON %s | FileCheck %s
# Runs from Python (PassManager.run, the rewrite drivers,
# apply_named_sequence) verify their input, because upstream passes crash on
# some invalid IR that Python can build. The verification is skipped while
# the IR tree is known to verify: nothing changed it from Python since it
# last verified or since a run on it succeeded. Every kind of change from
# Python makes the next run verify again, so IR made invalid is always
# refused with MLIRError, never handed to a pass. The last cases list every
# binding of `ir` and `rewrite` that changes IR (the rewriter's methods, the
# drivers, the dialect builders and the extension's own functions) and check
# each one, and fail when a binding is added without being listed.

import gc
import io
import tempfile
from types import SimpleNamespace

from mlir_tracking import _mlirTracking, ir, rewrite
from mlir_tracking.dialects import arith, func, linalg, scf, tensor
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


def run_after(mutate):
    """Runs a pipeline on a fresh module (verifying it), applies `mutate` to
    its parts (made before the change), then runs again. Returns the
    verifications of the second run and the MLIRError it raised, or None."""
    with ir.Context() as ctx, ir.Location.unknown():
        ctx.allow_unregistered_dialects = True
        module, pm = fresh()
        p = parts(module)
        mutate(p)
        return verifications_of_run(pm, module)


def verifications_of_run(pm, module):
    """Runs `pm` on `module`. Returns the verifications the run made and the
    MLIRError it raised, or None (the IR may or may not verify)."""
    before = count()
    try:
        pm.run(module)
    except ir.MLIRError as e:
        return count() - before, e
    return count() - before, None


def refused(name, mutate):
    """Makes the IR invalid with `mutate` after a run verified it, then runs
    again: the run verifies and refuses it."""
    verifications, e = run_after(mutate)
    if e is None:
        print(name + ": ran")
    else:
        print(name + ":", str(e).split(" (")[0], verifications,
              e.error_diagnostics[0].message.split(":")[0][:40])


# One change of each kind that makes the IR invalid; each run is refused.
# CHECK-LABEL: TEST: test_every_kind_of_change_is_verified
@run
def test_every_kind_of_change_is_verified():
    # CHECK: attribute set: PassManager.run: the IR does not verify 1
    refused("attribute set", lambda p: p.one.attributes.__setitem__(
        "value", ir.Attribute.parse("1 : i64")))
    # Removing an attribute the op requires is refused before any run.
    try:
        refused("attribute delete",
                lambda p: p.one.attributes.__delitem__("value"))
    except ValueError as e:
        # CHECK: attribute delete: cannot remove the inherent attribute 'value' of 'arith.constant'
        print("attribute delete:", str(e).split(":")[0])
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

        # A Python pattern that would break the IR is refused, before the
        # driver's C++ patterns (which trust the IR) see it: nothing
        # changed, and the next run goes ahead.
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
        try:
            rewrite.apply_patterns_and_fold_greedily(module, patterns.freeze())
        except ir.MLIRError as e:
            # CHECK: refused: modify_op_in_place inside a rewrite pattern would leave 'func.func' invalid
            print("refused:", str(e).split(",")[0])
        pm.run(module)
        # CHECK-NEXT: after a Python pattern: (i32) -> ()
        print("after a Python pattern:", p.g.attributes["function_type"])


# CHECK-LABEL: TEST: test_runs_that_build_unchecked_ir
@run
def test_runs_that_build_unchecked_ir():
    # A transform script annotates any attribute, a PDL rewrite creates ops
    # with any attributes: nothing checked what they build, and the tree was
    # left known to verify. The next driver then ran on invalid IR, and
    # write_bytecode wrote it without verifying (a segfault). After such a
    # script the next run verifies, and so does write_bytecode; an op a PDL
    # rewrite creates is checked when the rewrite ends.
    from mlir_tracking.dialects.transform import interpreter
    func = """
      func.func @f(%a: i32) -> i32 {
        %x = arith.muli %a, %a : i32
        return %x : i32
      }"""
    with ir.Context() as ctx:
        payload = ir.Module.parse(func)
        script = ir.Module.parse("""
          module attributes {transform.with_named_sequence} {
            transform.named_sequence @__transform_main(%root: !transform.any_op) {
              %f = transform.structured.match ops{["func.func"]} in %root
                  : (!transform.any_op) -> !transform.any_op
              %p = transform.param.constant 7 : i64 -> !transform.param<i64>
              transform.annotate %f "function_type" = %p
                  : !transform.any_op, !transform.param<i64>
              transform.yield
            }
          }""")
        interpreter.apply_named_sequence(payload, script.body.operations[0],
                                         script)
        pdl_built = ir.Module.parse(func)
        pdl = rewrite.PDLModule(ir.Module.parse("""
          module {
            pdl.pattern : benefit(1) {
              %type = pdl.type
              %lhs = pdl.operand
              %rhs = pdl.operand
              %op = pdl.operation "arith.muli"(%lhs, %rhs : !pdl.value, !pdl.value)
                  -> (%type : !pdl.type)
              pdl.rewrite %op {
                %new = pdl.operation "arith.constant" -> (%type : !pdl.type)
                pdl.replace %op with %new
              }
            }
          }"""))
        config = rewrite.GreedyRewriteConfig()
        config.enable_folding = False
        # The PDL rewrite's op is checked when the rewrite ends: its uses
        # get a placeholder, and the run raises.
        try:
            rewrite.apply_patterns_and_fold_greedily(pdl_built, pdl.freeze(),
                                                     config)
        except RuntimeError as e:
            print(str(e).split(": ")[0])
        patterns = rewrite.RewritePatternSet()
        patterns.add_canonicalization_patterns()
        frozen = patterns.freeze()
        for name, module in (("script", payload), ("pdl", pdl_built)):
            for action in (
                    lambda: module.operation.write_bytecode(io.BytesIO()),
                    lambda: rewrite.apply_patterns_and_fold_greedily(module, frozen)):
                try:
                    action()
                    print(name, "ran")
                except ir.MLIRError as e:
                    print(name, str(e).splitlines()[1].split(": ")[-1])
    # CHECK: the PDL pattern at loc("-":3:13) created 'arith.constant', which does not verify ('arith.constant' op requires attribute 'value')
    # CHECK-NEXT: script 'func.func' op requires attribute 'function_type'
    # CHECK-NEXT: script 'func.func' op requires attribute 'function_type'
    # CHECK-NEXT: pdl ran
    # CHECK-NEXT: pdl ran


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


# Every binding of `ir` that changes IR, with a change it makes to the IR of
# `parts(fresh())`. A binding that changes IR must call
# PyMlirContext::noteChanged; test_every_mutator_is_noted checks that each
# of these makes the next run verify.
MUTATORS = {
    "Block.add_argument": lambda p: p.entry.add_argument(
        p.i32, ir.Location.unknown()),
    "Block.append": lambda p: p.bb1.append(p.one),
    "Block.append_to": lambda p: p.bb1.append_to(p.region_op.regions[0]),
    "Block.create_after": lambda p: p.bb2.create_after(),
    "Block.create_at_start": lambda p: ir.Block.create_at_start(
        p.f.regions[0], [p.i64]),
    "Block.create_before": lambda p: p.entry.create_before(),
    "Block.erase_argument": lambda p: p.g.regions[0].blocks[0].erase_argument(0),
    "BlockArgument.set_location": lambda p: p.entry.arguments[0].set_location(
        ir.Location.name("there")),
    "BlockList.append": lambda p: p.f.regions[0].blocks.append(),
    # Disallowing unregistered ops may make any IR invalid.
    "Context.allow_unregistered_dialects=": lambda p: setattr(
        ir.Context.current, "allow_unregistered_dialects", False),
    "InsertionPoint.insert": lambda p: ir.InsertionPoint.at_block_begin(
        p.bb1).insert(ir.Operation.create("test.new")),
    "OpAttributeMap.__delitem__": lambda p: p.add.attributes.__delitem__(
        "overflowFlags"),
    "OpAttributeMap.__setitem__": lambda p: p.add.attributes.__setitem__(
        "tag", ir.UnitAttr.get()),
    "OpOperandList.__setitem__": lambda p: p.add.operands.__setitem__(
        0, p.entry.arguments[1]),
    "OpSuccessors.__setitem__": lambda p: p.br.successors.__setitem__(
        0, p.entry),
    # The build form, what generated builders call.
    "OpView.__init__": lambda p: ir.OpView(
        "test.new", (0, True), None, None, [],
        ip=ir.InsertionPoint(p.module.body)),
    # Forwards to Operation.location= (as upstream's _OperationBase).
    "OpView.location=": lambda p: setattr(
        p.add, "location", ir.Location.name("here")),
    "OpView.build_generic": lambda p: ir.OpView.build_generic.__func__(
        type("TestNew", (ir.OpView,), {"OPERATION_NAME": "test.new",
                                       "_ODS_REGIONS": (0, True)}),
        results=[], ip=ir.InsertionPoint(p.module.body)),
    "Operation.clone": lambda p: p.ret.clone(
        ip=ir.InsertionPoint.at_block_begin(p.bb2)),
    "Operation.create": lambda p: ir.Operation.create(
        "test.new", ip=ir.InsertionPoint(p.module.body)),
    "Operation.detach_from_parent": lambda p: p.one.detach_from_parent(),
    "Operation.erase": lambda p: p.ret.erase(),
    "Operation.location=": lambda p: setattr(
        p.add.operation, "location", ir.Location.name("here")),
    "Operation.move_after": lambda p: p.br.move_after(p.ret),
    "Operation.move_before": lambda p: p.ret.move_before(p.add),
    "Operation.replace_all_uses_with": lambda p: p.one.replace_all_uses_with(
        p.add),
    "Operation.replace_uses_of_with": lambda p: p.add.replace_uses_of_with(
        p.entry.arguments[0], p.one.result),
    "SymbolTable.__delitem__": lambda p: ir.SymbolTable(
        p.module.operation).__delitem__("g"),
    "SymbolTable.erase": lambda p: ir.SymbolTable(p.module.operation).erase(
        p.g),
    "SymbolTable.insert": lambda p: ir.SymbolTable(p.module.operation).insert(
        ir.Operation.create(
            "func.func", regions=1,
            attributes={"sym_name": ir.Attribute.parse('"f"'),
                        "function_type": ir.Attribute.parse("() -> ()")})),
    "SymbolTable.replace_all_symbol_uses": lambda p: (
        ir.SymbolTable.replace_all_symbol_uses("f", "k", p.g)),
    "SymbolTable.set_symbol_name": lambda p: ir.SymbolTable.set_symbol_name(
        p.g, "k"),
    "SymbolTable.set_visibility": lambda p: ir.SymbolTable.set_visibility(
        p.g, "private"),
    "Value.replace_all_uses_with": lambda p: (
        p.entry.arguments[0].replace_all_uses_with(p.add.result)),
    "Value.replace_all_uses_except": lambda p: (
        p.entry.arguments[0].replace_all_uses_except(p.add.result, [p.one])),
    "Value.set_type": lambda p: p.one.result.set_type(p.i64),
}

def parse_file(text):
    with tempfile.NamedTemporaryFile("w", suffix=".mlir") as f:
        f.write(text)
        f.flush()
        return ir.Module.parseFile(f.name)


# Bindings that make a new IR tree (changing no existing one): the first run
# on what they return verifies it.
NEW_TREES = {
    "Module.create": lambda p: ir.Module.create(),
    "Module.parse": lambda p: ir.Module.parse(ASM),
    "Module.parseFile": lambda p: parse_file(ASM),
    "Operation.parse": lambda p: ir.Operation.parse("func.func @h() { return }"),
    "Operation.clone": lambda p: p.module.operation.clone(),
}

# Every other member of the classes of `ir` that refer to IR or to a
# context: they read IR, or change no IR (registries, settings, handlers).
NOT_MUTATORS = {
    "AsmState": "__init__ __repr__",
    "AttrBuilder": "__init__ __repr__ contains get insert",
    "Block": "__eq__ __hash__ __init__ __iter__ __repr__ __str__ arguments "
             "_op_order_is_valid is_valid operations owner predecessors region "
             "successors",
    "BlockArgument": "__class_getitem__ __init__ arg_number isinstance",
    "BlockArgumentList": "__add__ __contains__ __getitem__ __init__ __iter__ "
                         "__len__ __repr__ __reversed__ count index types",
    "BlockList": "__contains__ __getitem__ __init__ __iter__ __len__ __repr__ "
                 "__reversed__ count index",
    "BlockIterator": "__init__ __iter__ __next__",
    "BlockPredecessors": "__add__ __contains__ __getitem__ __init__ __iter__ "
                         "__len__ __repr__ __reversed__ count index",
    "BlockSuccessors": "__add__ __contains__ __getitem__ __init__ __iter__ "
                       "__len__ __repr__ __reversed__ count index",
    "Context": "_CAPICreate _CAPIPtr __enter__ __exit__ __init__ __repr__ "
               "_clear_live_operations _get_context_again _get_live_count "
               "_get_live_module_count _get_live_operation_count "
               "_get_live_operation_objects _get_root_walk_count "
               "_get_tracked_operation_count "
               "_get_tree_link_walk_count _get_operation_scan_count "
               "_get_verification_count _mlir_thread_pool_ptr "
               "_verify_tracking allow_unregistered_dialects "
               "append_dialect_registry attach_diagnostic_handler current d "
               "dialects emit_error_diagnostics emit_error_diagnostics= "
               "enable_multithreading get_dialect_descriptor "
               "get_num_threads is_multithreading_enabled "
               "is_registered_operation load_all_available_dialects "
               "set_thread_pool",
    "DiagnosticHandler": "__enter__ __exit__ __init__ __repr__ attached detach "
                         "had_error",
    "Dialect": "__init__ __repr__ descriptor",
    "DialectDescriptor": "__init__ __repr__ namespace",
    "DialectRegistry": "_CAPICreate _CAPIPtr __init__ __repr__ load_plugin",
    "Dialects": "__getattr__ __getitem__ __init__ __repr__",
    "InferShapedTypeOpInterface": "__init__ __repr__ "
                                  "inferReturnTypeComponents operation opview",
    "InferTypeOpInterface": "__init__ __repr__ inferReturnTypes operation "
                            "opview",
    "InsertionPoint": "__enter__ __exit__ __init__ __repr__ after "
                      "at_block_begin at_block_terminator before block "
                      "current ref_operation",
    "IntegerSetConstraint": "__init__ __repr__ expr is_eq",
    "Module": "_CAPICreate _CAPIPtr __init__ __repr__ __str__ body context "
              "dump operation",
    "NamedAttribute": "__init__ __repr__ attr name",
    "OpAttributeMap": "__contains__ __getitem__ __init__ __iter__ __len__ "
                      "__repr__ get items keys values",
    "OpOperand": "__init__ __repr__ operand_number owner",
    "OpOperandList": "__add__ __contains__ __getitem__ __init__ __iter__ "
                     "__len__ __repr__ __reversed__ count index",
    "OpResult": "__class_getitem__ __init__ isinstance result_number",
    "OpResultList": "__add__ __contains__ __getitem__ __init__ __iter__ "
                    "__len__ __repr__ __reversed__ count index owner types",
    "OpSuccessors": "__add__ __contains__ __getitem__ __init__ __iter__ "
                    "__len__ __repr__ __reversed__ count index",
    "OpView": "_ODS_OPERAND_SEGMENTS _ODS_REGIONS _ODS_RESULT_SEGMENTS __eq__ "
              "__getattribute__ __hash__ __repr__ __str__ attributes "
              "block context location name operands operation opview parent "
              "parse regions result results",
    "Operation": "_CAPICreate _CAPIPtr __eq__ __hash__ __init__ __repr__ "
                 "__str__ attached attributes block canonical_handle context "
                 "get_asm handle_history handle_state is_before_in_block "
                 "is_valid location name operands operation opview parent "
                 "print regions result results same_op successors verify "
                 "walk write_bytecode",
    "OpOperandIterator": "__init__ __iter__ __next__",
    "OperationIterator": "__init__ __iter__ __next__",
    "OperationList": "__contains__ __getitem__ __init__ __iter__ __len__ "
                     "__repr__ __reversed__ count index",
    "Region": "__eq__ __hash__ __init__ __iter__ __repr__ blocks owner",
    "RegionIterator": "__init__ __iter__ __next__",
    "RegionSequence": "__add__ __contains__ __getitem__ __init__ __iter__ "
                      "__len__ __repr__ __reversed__ count index",
    "ShapedTypeComponents": "__init__ element_type get has_rank rank shape",
    "SymbolTable": "__contains__ __getitem__ __init__ __repr__ "
                   "get_symbol_name get_visibility walk_symbol_tables",
    "ThreadPool": "__init__ _mlir_thread_pool_ptr get_max_concurrency",
    "TypeID": "_CAPICreate _CAPIPtr __eq__ __hash__ __init__ __repr__",
    "Value": "_CAPICreate _CAPIPtr __class_getitem__ __eq__ __hash__ __init__ "
             "__repr__ __str__ context dump get_name handle_state is_valid "
             "isinstance location maybe_downcast owner same_value type uses",
    # LLVM's debug flag: no IR.
    "_GlobalDebug": "__init__ flag flag= set_types",
    # An abstract base for isinstance checks: no IR.
    "_OperationBase": "__abstractmethods__ __slots__ _abc_impl",
}

# Immutable, uniqued values (and enums, exceptions): they refer to no IR.
VALUE_CLASSES = (ir.Attribute, ir.Type, ir.AffineExpr, ir.AffineMap,
                 ir.IntegerSet, ir.Location, ir.WalkOrder, ir.WalkResult,
                 ir.Diagnostic, ir.DiagnosticInfo, ir.DiagnosticSeverity,
                 BaseException)
SKIPPED = {"__doc__", "__module__", "__dict__", "__weakref__", "__qualname__",
           "__annotations__", "__members__", "__entries", "__getstate__",
           "__setstate__", "__index__", "__int__", "__ne__"}


def bound_members():
    """`Class.member` for each member each class of `ir` defines itself, and
    `Class.member=` for each property setter."""
    members = set()
    for name in dir(ir):
        cls = getattr(ir, name)
        if not isinstance(cls, type):
            continue
        for member, value in vars(cls).items():
            if member in SKIPPED:
                continue
            if issubclass(cls, VALUE_CLASSES):
                # A value class must not change IR: no setters, no item
                # assignment.
                if (isinstance(value, property) and value.fset) or member in (
                        "__setitem__", "__delitem__"):
                    members.add(f"{name}.{member} (a value class)")
                continue
            members.add(f"{name}.{member}")
            if isinstance(value, property) and value.fset:
                members.add(f"{name}.{member}=")
    return members


def print_classification(members, mutators, not_mutators):
    """Prints the bound `members` listed neither in `mutators` nor in
    `not_mutators` (class -> space-separated member names), and the listed
    names that are not bound."""
    classified = set(mutators) | {
        f"{cls}.{member}" for cls, names in not_mutators.items()
        for member in names.split()}
    print("unclassified:", sorted(members - classified))
    print("listed but not bound:", sorted(classified - members))


IF_ASM = """
func.func @h(%c: i1, %x: i32) -> i32 {
  %r = scf.if %c -> (i32) {
    %t = arith.addi %x, %x : i32
    scf.yield %t : i32
  } else {
    scf.yield %x : i32
  }
  return %r : i32
}
"""


# CHECK-LABEL: TEST: test_uses_of_ops_in_no_block
@run
def test_uses_of_ops_in_no_block():
    # An op detached (or made and not inserted yet) while other IR uses its
    # results. Under an IsolatedFromAbove op MLIR's verifier reports the use
    # itself; elsewhere (here under a detached scf.if) its dominance check
    # read the missing block and crashed, and so did the printer, which
    # verifies first. Printing now falls back to the generic form, as for
    # IR that does not verify, and verifying raises MLIRError.
    with ir.Context():
        module = ir.Module.parse(IF_ASM)
        f = module.body.operations[0]
        if_op = f.regions[0].blocks[0].operations[0]
        then_block = if_op.regions[0].blocks[0]
        add = then_block.operations[0]
        add.detach_from_parent()
        try:
            module.operation.verify()
        except ir.MLIRError as error:
            # CHECK: under func.func: operation's operand is unlinked
            print("under func.func:", error.error_diagnostics[0].message)
        if_op.detach_from_parent()

        def generic(text):
            return ('"scf.if"' in text or '"scf.yield"' in text) and \
                "<<UNKNOWN SSA VALUE>>" in text

        # CHECK-NEXT: str: True
        print("str:", generic(str(if_op)))
        # CHECK-NEXT: get_asm: True
        print("get_asm:", generic(if_op.get_asm()))
        # CHECK-NEXT: block: True
        print("block:", generic(str(then_block)))
        # CHECK-NEXT: value: True
        print("value:", generic(str(if_op.results[0])))
        out = io.StringIO()
        if_op.print(ir.AsmState(if_op), file=out)
        # CHECK-NEXT: asm state: True
        print("asm state:", generic(out.getvalue()))
        # Value.get_name(flags) made its own AsmState, unguarded: MLIR
        # verified the scf.if and crashed.
        # CHECK-NEXT: get_name: %0 %0
        print("get_name:", if_op.results[0].get_name(),
              if_op.results[0].get_name(use_local_scope=True))
        # With a local scope MLIR numbers from (and verifies) the nearest
        # IsolatedFromAbove op around the printed one, or the top-level op:
        # the whole scf.if here. Only the printed yield was checked (its
        # regions, not its own operands), and the printer crashed.
        yield_op = then_block.operations[0]
        # CHECK-NEXT: local get_asm: True
        print("local get_asm:",
              generic(yield_op.get_asm(use_local_scope=True)))
        out = io.StringIO()
        yield_op.print(use_local_scope=True, file=out)
        # CHECK-NEXT: local print: True
        print("local print:", generic(out.getvalue()))
        try:
            if_op.verify()
        except ir.MLIRError as error:
            # CHECK-NEXT: verify: operand #0 is a result of 'arith.addi', which is in no block (detached, or not inserted yet): the IR cannot be verified until that op is inserted or the use is replaced
            print("verify:", error.error_diagnostics[0].message)
        # Inserted again, the IR prints in the custom form.
        ir.InsertionPoint(then_block.operations[0]).insert(add)
        if_op.move_before(f.regions[0].blocks[0].operations[0])
        module.operation.verify()
        # CHECK-NEXT: fixed: %0 = scf.if %arg0 -> (i32) {
        print("fixed:", str(module).splitlines()[2].strip())

        # An op made and not inserted yet, whose result a yield of an
        # scf.if in the module uses: printed with a local scope, the
        # printer verified the scf.if alone, outside func.func's check.
        with ir.Location.unknown():
            three = ir.Operation.create(
                "arith.constant", results=[ir.Type.parse("i32")],
                attributes={"value": ir.Attribute.parse("3 : i32")})
        then_block.operations[1].operands[0] = three.results[0]
        # CHECK-NEXT: local scope: True
        print("local scope:",
              generic(if_op.get_asm(use_local_scope=True)))
        # CHECK-NEXT: inserted: %c3_i32 = arith.constant 3 : i32
        ir.InsertionPoint.at_block_begin(then_block).insert(three)
        print("inserted:", str(three))


# CHECK-LABEL: TEST: test_every_binding_is_classified
@run
def test_every_binding_is_classified():
    # A new binding of `ir` must be listed above: as a mutator (and then
    # noted, see below) or as changing no IR.
    # CHECK: unclassified: []
    # CHECK: listed but not bound: []
    print_classification(bound_members(),
                         set(MUTATORS) | set(NEW_TREES), NOT_MUTATORS)


# CHECK-LABEL: TEST: test_every_mutator_is_noted
@run
def test_every_mutator_is_noted():
    # Each mutator, after a run verified the IR: the next run verifies again
    # (the IR may or may not still verify; both are fine here).
    missed = []
    for name, mutate in MUTATORS.items():
        verifications, _ = run_after(mutate)
        if verifications != 1:
            missed.append(name)
    # CHECK: mutators: 36 not noted: []
    print("mutators:", len(MUTATORS), "not noted:", missed)
    # Each new tree is verified by its first run, and only by that one.
    counts = []
    for name, make in NEW_TREES.items():
        with ir.Context() as ctx, ir.Location.unknown():
            ctx.allow_unregistered_dialects = True
            module, pm = fresh()
            tree = make(parts(module))
            before = count()
            pm_tree = PassManager.parse(
                "builtin.module(cse)" if tree.operation.name == "builtin.module"
                else "func.func(cse)")
            pm_tree.run(tree.operation)
            pm_tree.run(tree.operation)
            counts.append(count() - before)
    # CHECK: new trees: [1, 1, 1, 1, 1]
    print("new trees:", counts)


# The rewriter's methods that change IR, each with a change it makes to the
# IR of `parts(fresh())`. Called from a Python pattern matched in another
# tree: the driver marks the tree it runs on as changed around every call of
# Python code anyway, so only the method's own noteChanged can mark the tree
# it changed.
REWRITER_MUTATORS = {
    "PatternRewriter.erase_op": lambda r, p: r.erase_op(p.region_op),
    "PatternRewriter.inline_block_before": lambda r, p: r.inline_block_before(
        p.region_op.regions[0].blocks[0], p.ret),
    "PatternRewriter.modify_op_in_place": lambda r, p: r.modify_op_in_place(
        p.add, lambda: None),
    "PatternRewriter.replace_op": lambda r, p: r.replace_op(
        p.add, values=[p.entry.arguments[0]]),
}

# The drivers, each running one Python pattern on a "test.trigger" op that
# matches nothing and changes no IR: a run in which Python code ran leaves
# the tree unverified (the code may have changed it through `ir`, and
# drivers do not verify their output). A full conversion then fails (the
# trigger stays unconverted): a failed run, which leaves it unverified too.
def conversion(apply):
    def drive(module, pattern):
        types = rewrite.TypeConverter()
        types.add_conversion(lambda t: t)
        target = rewrite.ConversionTarget()
        target.add_legal_dialect("builtin")
        patterns = rewrite.RewritePatternSet()
        patterns.add_conversion(
            "test.trigger", lambda op, operands, tc, r: pattern(op, r), types)
        try:
            apply(module, target, patterns.freeze())
        except ir.MLIRError:
            pass
    return drive


def greedy(apply):
    def drive(module, pattern):
        patterns = rewrite.RewritePatternSet()
        patterns.add("test.trigger", pattern)
        apply(module, patterns.freeze())
    return drive


DRIVERS = {
    "apply_full_conversion": conversion(rewrite.apply_full_conversion),
    "apply_partial_conversion": conversion(rewrite.apply_partial_conversion),
    "apply_patterns_and_fold_greedily": greedy(
        rewrite.apply_patterns_and_fold_greedily),
    "walk_and_apply_patterns": greedy(rewrite.walk_and_apply_patterns),
}

# Every other member of the classes of `rewrite`: they change no IR (the
# PDL module copies its input).
REWRITE_NOT_MUTATORS = {
    "ConversionConfig": "__init__ __repr__ allow_pattern_rollback "
                        "allow_pattern_rollback= "
                        "attach_debug_materialization_kind "
                        "attach_debug_materialization_kind= "
                        "build_materializations build_materializations= "
                        "folding_mode folding_mode=",
    "ConversionTarget": "__init__ __repr__ add_illegal_dialect add_illegal_op "
                        "add_legal_dialect add_legal_op",
    "FrozenRewritePatternSet": "__init__ __repr__",
    "GreedyRewriteConfig": "__init__ __repr__ enable_constant_cse "
                           "enable_constant_cse= enable_folding "
                           "enable_folding= max_iterations max_iterations= "
                           "max_num_rewrites max_num_rewrites= "
                           "region_simplification_level "
                           "region_simplification_level= strictness "
                           "strictness= use_top_down_traversal "
                           "use_top_down_traversal=",
    "PDLModule": "__init__ __repr__ freeze register_constraint_function "
                 "register_rewrite_function",
    "PDLResultList": "__init__ __repr__ append",
    "PatternRewriter": "__init__ __repr__ ip notify_match_failure "
                       "set_insertion_point_after set_insertion_point_before",
    "RewritePatternSet": "__init__ __repr__ add add_canonicalization_patterns "
                         "add_conversion freeze",
    "TrackingConfig": "__init__ __repr__ require_matching_replacement_op_name "
                      "require_matching_replacement_op_name= skip_cast_ops "
                      "skip_cast_ops=",
    "TypeConverter": "__init__ __repr__ add_conversion convert_type",
}
REWRITE_ENUMS = (rewrite.DialectConversionFoldingMode,
                 rewrite.GreedyRewriteStrictness,
                 rewrite.GreedySimplifyRegionLevel)


def rewrite_members():
    """`Class.member` (and `Class.member=` for setters) for each class of
    `rewrite`, and the name of each of its functions."""
    members = set()
    for name in rewrite.__all__:
        value = getattr(rewrite, name)
        if not isinstance(value, type):
            members.add(name)
            continue
        if value in REWRITE_ENUMS:
            continue
        for member, attribute in vars(value).items():
            if member in SKIPPED:
                continue
            members.add(f"{name}.{member}")
            if isinstance(attribute, property) and attribute.fset:
                members.add(f"{name}.{member}=")
    return members


# CHECK-LABEL: TEST: test_every_rewrite_binding_is_classified
@run
def test_every_rewrite_binding_is_classified():
    # CHECK: unclassified: []
    # CHECK: listed but not bound: []
    print_classification(rewrite_members(),
                         set(REWRITER_MUTATORS) | set(DRIVERS),
                         REWRITE_NOT_MUTATORS)


def run_trigger(drive, pattern):
    """Drives `pattern(op, rewriter)` on the "test.trigger" op of a new
    module (a tree of its own), once."""
    trigger = ir.Module.parse('"test.trigger"() : () -> ()')
    calls = []

    def once(op, rewriter):
        # A true result is a failure to match.
        if calls:
            return True
        calls.append(op)
        return pattern(op, rewriter)

    drive(trigger, once)
    return trigger, calls


# CHECK-LABEL: TEST: test_every_rewriter_mutator_is_noted
@run
def test_every_rewriter_mutator_is_noted():
    missed = []
    for name, mutate in REWRITER_MUTATORS.items():
        with ir.Context() as ctx, ir.Location.unknown():
            ctx.allow_unregistered_dialects = True
            module, pm = fresh()
            p = parts(module)
            run_trigger(greedy(rewrite.apply_patterns_and_fold_greedily),
                        lambda op, rewriter: mutate(rewriter, p))
            if verifications_of_run(pm, module)[0] != 1:
                missed.append(name)
    # CHECK: rewriter mutators: 4 not noted: []
    print("rewriter mutators:", len(REWRITER_MUTATORS), "not noted:", missed)


# CHECK-LABEL: TEST: test_every_driver_leaves_python_changes_unverified
@run
def test_every_driver_leaves_python_changes_unverified():
    counts = []
    for name, drive in DRIVERS.items():
        with ir.Context() as ctx, ir.Location.unknown():
            ctx.allow_unregistered_dialects = True
            pm = PassManager.parse("builtin.module(cse)")
            trigger, calls = run_trigger(drive, lambda op, rewriter: True)
            before = count()
            pm.run(trigger)
            pm.run(trigger)
            counts.append((name, len(calls), count() - before))
    # CHECK: ('apply_full_conversion', 1, 1)
    # CHECK-SAME: ('apply_partial_conversion', 1, 1)
    # CHECK-SAME: ('apply_patterns_and_fold_greedily', 1, 1)
    # CHECK-SAME: ('walk_and_apply_patterns', 1, 1)
    print(counts)


# Dialect builders (generated, and the hand-written ones of
# mlir_tracking.dialects) change IR only through the bindings of `ir` above
# (the generated ones through OpView.__init__) and the extension's own
# functions listed here. Each case builds one op at the start of @d.
DIALECT_ASM = """
func.func @d(%i: index, %t: tensor<4xf32>, %x: f32, %a: i32) {
  return
}
"""

DIALECT_BUILDERS = {
    "arith.constant": lambda v: arith.constant(v.i32, 7),
    "arith.AddIOp": lambda v: arith.AddIOp(v.a, v.a),
    "arith.addi": lambda v: arith.addi(v.a, v.a),
    "func.FuncOp": lambda v: func.FuncOp("h", ([], [])),
    "func.ReturnOp": lambda v: func.ReturnOp([]),
    # Fills the op's body with _linalg_fill_structured_region.
    "linalg.fill": lambda v: linalg.fill(v.x, outs=[v.t]),
    "scf.ForOp": lambda v: scf.ForOp(v.i, v.i, v.i),
    "tensor.empty": lambda v: tensor.empty([4], ir.F32Type.get()),
}

# The functions of the extension module itself: whether each changes IR.
EXTENSION_FUNCTIONS = {
    "_linalg_fill_structured_region": "mutator (linalg builders)",
    # Linalg analyses: read the op (Operation.get checks its tree's lock;
    # MLIR's accessors memoize a named op's maps in an attribute, as its
    # own verifier does).
    "_linalg_get_indexing_maps": "reads IR",
    "_linalg_infer_contraction_dimensions": "reads IR",
    "_linalg_infer_convolution_dimensions": "reads IR",
    "_linalg_isa_contraction_op": "reads IR",
    "_linalg_isa_convolution_op": "reads IR",
    "register_dialect": "no IR",
    "register_operation": "no IR",
}


# CHECK-LABEL: TEST: test_every_dialect_builder_is_noted
@run
def test_every_dialect_builder_is_noted():
    missed = []
    for name, build in DIALECT_BUILDERS.items():
        with ir.Context() as ctx, ir.Location.unknown():
            module = ir.Module.parse(DIALECT_ASM)
            pm = PassManager.parse("builtin.module(cse)")
            pm.run(module)
            entry = module.body.operations[0].regions[0].blocks[0]
            i, t, x, a = entry.arguments
            values = SimpleNamespace(i=i, t=t, x=x, a=a,
                                     i32=ir.IntegerType.get_signless(32))
            with ir.InsertionPoint.at_block_begin(entry):
                build(values)
            if verifications_of_run(pm, module)[0] != 1:
                missed.append(name)
    # CHECK: dialect builders: 8 not noted: []
    print("dialect builders:", len(DIALECT_BUILDERS), "not noted:", missed)
    functions = {name for name, value in vars(_mlirTracking).items()
                 if callable(value) and not isinstance(value, type)
                 and not name.startswith("__")}
    # CHECK: unclassified functions: [] listed but not bound: []
    print("unclassified functions:", sorted(functions - set(EXTENSION_FUNCTIONS)),
          "listed but not bound:", sorted(set(EXTENSION_FUNCTIONS) - functions))


# CHECK-LABEL: TEST: test_inherent_attributes_of_the_wrong_kind
@run
def test_inherent_attributes_of_the_wrong_kind():
    # transform.annotate sets an inherent attribute to whatever its param
    # holds; MLIR drops one of the wrong kind and leaves null what the op's
    # custom printer reads (a segfault printing the payload), while the
    # verifier let it pass. Such an op does not verify now, and prints in
    # the generic form.
    from mlir_tracking.dialects.transform import interpreter
    with ir.Context():
        payload = ir.Module.parse("""
          func.func @f(%a: i32) -> i32 {
            %0 = arith.addi %a, %a : i32
            return %0 : i32
          }""")
        script = ir.Module.parse("""
          module attributes {transform.with_named_sequence} {
            transform.named_sequence @__transform_main(%root: !transform.any_op) {
              %x = transform.structured.match ops{["arith.addi"]} in %root
                  : (!transform.any_op) -> !transform.any_op
              %p = transform.param.constant 5 : i32 -> !transform.any_param
              transform.annotate %x "overflowFlags" = %p
                  : !transform.any_op, !transform.any_param
              transform.yield
            }
          }""")
        interpreter.apply_named_sequence(payload, script.body.operations[0],
                                         script)
        # CHECK: %0 = "arith.addi"(%arg0, %arg0) : (i32, i32) -> i32
        print(payload)
        try:
            payload.operation.verify()
        except ir.MLIRError as e:
            # CHECK: 'arith.addi' op lacks its inherent attribute 'overflowFlags' (set to an attribute of the wrong kind, which MLIR drops)
            print(str(e).splitlines()[1].split(": ", 1)[1])
