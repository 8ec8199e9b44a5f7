# RUN: %PYTHON %s | FileCheck %s
# What the pass manager prints and verifies between passes: IR printing skips
# a dump its printer would crash on, print-ir and transform.print refuse such
# IR before running, a Python pass that leaves IR MLIR's verifier crashes on
# fails, and absurdly nested pipelines are refused.

import subprocess
import sys

from mlir_tracking import ir, passmanager
from mlir_tracking.dialects import openmp
from mlir_tracking.dialects.transform import interpreter
from mlir_tracking.passmanager import PassManager


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


def add_empty_canonical_loop(func):
    """Builds an omp.canonical_loop whose region is empty in `func`: it
    verifies, but its custom printer reads the region's argument."""
    block = func.regions[0].blocks[0]
    with ir.InsertionPoint.at_block_terminator(block):
        cli = openmp.NewCliOp(ir.Type.parse("!omp.cli"))
        return openmp.CanonicalLoopOp(block.arguments[0], cli=cli.result)


# A child process, whose stderr (where MLIR's IR printing goes) is read.
PRINTING_CHILD = """
import sys
from mlir_tracking import ir, passmanager
from mlir_tracking.dialects import openmp
with ir.Context() as ctx, ir.Location.unknown():
    module = ir.Module.parse('''
      func.func @f(%n: i32) { return }
      func.func @g(%n: i32) { return }''')
    def build(op, p):
        f = op.regions[0].blocks[0].operations[0]
        block = f.regions[0].blocks[0]
        with ir.InsertionPoint.at_block_terminator(block):
            cli = openmp.NewCliOp(ir.Type.parse("!omp.cli"))
            openmp.CanonicalLoopOp(block.arguments[0], cli=cli.result)
    pm = passmanager.PassManager("builtin.module")
    pm.add(build, name="build")
    pm.add("func.func(cse)")
    if sys.argv[1] == "module-scope":
        ctx.enable_multithreading(False)
        pm.enable_ir_printing(print_module_scope=True)
    else:
        pm.enable_ir_printing(print_generic_op_form=sys.argv[1] == "generic")
    pm.run(module)
    print("ran, loops:", str(module).count("omp.canonical_loop"))
"""


def run_printing_child(mode):
    child = subprocess.run([sys.executable, "-c", PRINTING_CHILD, mode],
                           capture_output=True, text=True, timeout=120)
    print("exit code:", child.returncode, child.stdout.strip())
    for line in child.stderr.splitlines():
        if line.startswith("// -----// IR Dump"):
            print(line)


# CHECK-LABEL: TEST: test_ir_printing_skips_what_it_cannot_print
@run
def test_ir_printing_skips_what_it_cannot_print():
    # A Python pass builds the loop. MLIR's IR printing prints in the custom
    # form it was given, and the loop's printer would segfault: each dump
    # holding the loop is skipped with a line that says why; the others
    # print, and the run goes on.
    # CHECK: exit code: 0 ran, loops: 1
    # CHECK-NEXT: // -----// IR Dump After build (build) skipped: 'omp.canonical_loop' cannot be printed in its custom form (its region is empty (its printer reads the region's induction variable)); print_generic_op_form=True prints it //----- //
    # The two functions are printed after cse on their own: only @f's dump
    # holds the loop.
    # CHECK-DAG: // -----// IR Dump After CSE (cse) skipped: 'omp.canonical_loop' cannot be printed
    # CHECK-DAG: // -----// IR Dump After CSE (cse) //----- //
    run_printing_child("custom")
    # With the whole module printed, every dump holds it.
    # CHECK: exit code: 0 ran, loops: 1
    # CHECK-NEXT: // -----// IR Dump After build (build) skipped:
    # CHECK-NEXT: // -----// IR Dump After CSE (cse) skipped:
    # CHECK-NEXT: // -----// IR Dump After CSE (cse) skipped:
    run_printing_child("module-scope")
    # The generic form prints it.
    # CHECK: exit code: 0 ran, loops: 1
    # CHECK-NEXT: // -----// IR Dump After build (build) //----- //
    # CHECK-NOT: skipped
    run_printing_child("generic")


# CHECK-LABEL: TEST: test_print_ir_and_transform_print_refuse_unprintable_ir
@run
def test_print_ir_and_transform_print_refuse_unprintable_ir():
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse("func.func @f(%n: i32) { return }")
        func = module.body.operations[0]
        add_empty_canonical_loop(func)
        before = str(module)
        # The print-ir pass prints the op it runs on, nested or not, also as
        # a pipeline in another pass's option; snapshot-op-locations prints
        # the IR to a file. (A print-ir anchored on other ops counts too.)
        for pipeline in ["builtin.module(print-ir)",
                         "builtin.module(func.func(cse,print-ir{label=x}))",
                         "builtin.module(inline{default-pipeline=print-ir})",
                         "builtin.module(snapshot-op-locations)",
                         "builtin.module(gpu.module(print-ir))"]:
            try:
                PassManager.parse(pipeline).run(module)
            except ValueError as e:
                print(e)
        # CHECK: PassManager.run: the pass 'print-ir' prints IR, and 'omp.canonical_loop' cannot be printed in its custom form (its region is empty (its printer reads the region's induction variable))
        # CHECK-NEXT: PassManager.run: the pass 'print-ir' prints IR, and 'omp.canonical_loop'
        # CHECK-NEXT: PassManager.run: the pass 'print-ir' prints IR, and 'omp.canonical_loop'
        # CHECK-NEXT: PassManager.run: the pass 'snapshot-op-locations' prints IR, and 'omp.canonical_loop'
        # CHECK-NEXT: PassManager.run: the pass 'print-ir' prints IR, and 'omp.canonical_loop'
        # A transform interpreter's script may come from library files: any
        # of them may print.
        try:
            PassManager.parse("builtin.module(transform-interpreter)").run(module)
        except ValueError as e:
            # CHECK-NEXT: PassManager.run: a transform script (maybe in a library file) may print IR, and 'omp.canonical_loop' cannot be printed
            print(e)
        # Refused before anything ran.
        # CHECK: unchanged: True
        print("unchanged:", str(module) == before)
        # A transform script that prints.
        script = ir.Module.parse("""
          module attributes {transform.with_named_sequence} {
            transform.named_sequence @__transform_main(
                %root: !transform.any_op {transform.readonly}) {
              transform.print %root {name = "payload"} : !transform.any_op
              transform.yield
            }
          }""")
        try:
            interpreter.apply_named_sequence(module, script.body.operations[0],
                                             script)
        except ValueError as e:
            # CHECK: apply_named_sequence: the script's 'transform.print' may print payload IR, and 'omp.canonical_loop' cannot be printed in its custom form
            print(e)
        # A pass a script runs prints too (print-ir given as an option's
        # pipeline here); and options that nest pipelines too deep for
        # MLIR's recursion are refused before anything runs.
        for options in ['{"default-pipeline" = "print-ir"}',
                        '{"default-pipeline" = "%s"}' % ("any(" * 1001 + "cse" + ")" * 1001)]:
            script = ir.Module.parse("""
              module attributes {transform.with_named_sequence} {
                transform.named_sequence @__transform_main(
                    %root: !transform.any_op {transform.consumed}) {
                  %r = transform.apply_registered_pass "inline"
                      with options = OPTIONS to %root
                      : (!transform.any_op) -> !transform.any_op
                  transform.yield
                }
              }""".replace("OPTIONS", options))
            try:
                interpreter.apply_named_sequence(
                    module, script.body.operations[0], script)
            except ValueError as e:
                print(e)
        # CHECK: apply_named_sequence: the script's 'transform.apply_registered_pass' may print payload IR, and 'omp.canonical_loop' cannot be printed
        # CHECK-NEXT: an option of 'transform.apply_registered_pass' nests 1001 levels of pass managers or options; at most 1000 are supported
        # Passes that print nothing run on it.
        PassManager.parse("builtin.module(func.func(cse))").run(module)
        # CHECK: cse ran: True
        print("cse ran:", str(module) == before)


# CHECK-LABEL: TEST: test_python_pass_leaves_what_print_ir_cannot_print
@run
def test_python_pass_leaves_what_print_ir_cannot_print():
    # The run checks its IR before it starts; a Python pass that adds the
    # loop before a print-ir pass fails instead of letting it crash.
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse("func.func @f(%n: i32) { return }")

        def build(op, p):
            add_empty_canonical_loop(op.regions[0].blocks[0].operations[0])

        pm = PassManager("builtin.module")
        pm.add(build, name="build")
        pm.add("print-ir")
        try:
            pm.run(module)
        except ir.MLIRError as e:
            # CHECK: Failure while executing pass pipeline:
            # CHECK-NEXT: 'omp.canonical_loop' op cannot be printed in its custom form (its region is empty (its printer reads the region's induction variable)), and the run prints IR (left by the Python pass 'build')
            print(e)


# CHECK-LABEL: TEST: test_python_pass_leaves_what_the_verifier_crashes_on
@run
def test_python_pass_leaves_what_the_verifier_crashes_on():
    # Attribute setters do not check; a transform.include whose callee's
    # arg_attrs are no dictionaries crashed MLIR's verifier (run after every
    # pass), which asks the include for its effects. The pass fails.
    script = """
      module attributes {transform.with_named_sequence} {
        transform.named_sequence @__transform_main(
            %root: !transform.any_op {transform.readonly}) {
          transform.include @callee failures(propagate) (%root)
              : (!transform.any_op) -> ()
          transform.yield
        }
        transform.named_sequence @callee(
            %a: !transform.any_op {transform.readonly}) {
          transform.yield
        }
      }"""
    with ir.Context(), ir.Location.unknown():
        for verifier in [True, False]:
            module = ir.Module.parse(script)

            def spoil(op, p):
                callee = op.regions[0].blocks[0].operations[1]
                callee.attributes["arg_attrs"] = ir.Attribute.parse("[1 : i32]")

            pm = PassManager("builtin.module")
            pm.add(spoil, name="spoil")
            pm.add("canonicalize")
            pm.enable_verifier(verifier)
            try:
                pm.run(module)
            except ir.MLIRError as e:
                # CHECK: 'transform.include' op includes '@callee', a transform.named_sequence that has 'arg_attrs' that is not a list of dictionaries, and asking the include for its effects {{.*}} (left by the Python pass 'spoil')
                # The spoiled module still prints (in the generic form).
                # CHECK-NEXT: generic: True
                # CHECK-NEXT: (left by the Python pass 'spoil')
                # CHECK-NEXT: generic: True
                print(e.error_diagnostics[0].message)
            print("generic:", str(module).startswith('"builtin.module"'))


# CHECK-LABEL: TEST: test_pipelines_nested_too_deep
@run
def test_pipelines_nested_too_deep():
    # MLIR prints and runs nested pass managers recursively; 20,000 nested
    # any( overflowed the stack.
    with ir.Context():
        def nested(n):
            return "builtin.module(" + "any(" * n + "cse" + ")" * n + ")"

        for make in [lambda: PassManager.parse(nested(20000)),
                     lambda: PassManager("builtin.module").add(
                         "any(" * 1001 + "cse" + ")" * 1001)]:
            try:
                make()
            except ValueError as e:
                # CHECK: the pipeline nests 20001 levels of pass managers or options; at most 1000 are supported (MLIR prints and runs them recursively)
                # CHECK: the pipeline nests 1001 levels
                print(e)
        pm = PassManager.parse(nested(999))
        pm.run(ir.Module.parse("module {}"))
        # CHECK: 999 levels run: True
        print("999 levels run:", str(pm).count("any(") == 999)


# enable_ir_printing's resource limits, as upstream's: large_resource_limit
# elides a resource blob longer than it, and large_elements_limit elides
# resources too (the dumps are read from a file tree).
# CHECK-LABEL: TEST: test_printing_elides_large_resources
# CHECK: no limit: blob printed
# CHECK-NEXT: large_resource_limit=4: blob elided
# CHECK-NEXT: large_elements_limit=1: blob elided
# CHECK-NEXT: large_resource_limit=4096: blob printed
@run
def test_printing_elides_large_resources():
    import glob
    import os
    import tempfile

    source = """
      func.func @main() -> tensor<3xi64> {
        %0 = arith.constant dense_resource<blob1> : tensor<3xi64>
        return %0 : tensor<3xi64>
      }
      {-#
        dialect_resources: {
          builtin: {
            blob1: "0x080000000100000000000000020000000000000003000000"
          }
        }
      #-}"""
    for label, limits in (("no limit", {}),
                          ("large_resource_limit=4", {"large_resource_limit": 4}),
                          ("large_elements_limit=1", {"large_elements_limit": 1}),
                          ("large_resource_limit=4096", {"large_resource_limit": 4096})):
        with ir.Context() as ctx, tempfile.TemporaryDirectory() as tree:
            ctx.enable_multithreading(False)
            module = ir.Module.parse(source)
            pm = PassManager.parse("builtin.module(canonicalize)")
            pm.enable_ir_printing(tree_printing_dir_path=tree, **limits)
            pm.run(module.operation)
            dumps = "".join(open(path).read() for path in
                            glob.glob(os.path.join(tree, "**", "*.mlir"), recursive=True))
            printed = "blob1: \"0x08000000" in dumps
            print(f"{label}: blob {'printed' if printed else 'elided'}")


def run_child(script):
    """Runs `script` in a child Python (MLIR writes its reports to the
    process's stderr, which only a child's can be read from)."""
    return subprocess.run([sys.executable, "-c", script], capture_output=True,
                          text=True, timeout=120)


# CHECK-LABEL: TEST: test_statistics_report
@run
def test_statistics_report():
    # enable_statistics (upstream's, with its PassDisplayMode): MLIR prints
    # the statistics after each run, to stderr; read from a child process.
    # Debian's LLVM is built without statistics, so, as mlir-opt's
    # --mlir-pass-statistics, the report has its title only.
    child = run_child("""
from mlir_tracking import ir, passmanager
with ir.Context():
    module = ir.Module.parse("func.func @f(%a: i32) -> i32 { return %a : i32 }")
    pm = passmanager.PassManager.parse("builtin.module(func.func(canonicalize,cse))")
    pm.enable_statistics()
    pm.run(module.operation)
    print("ran", flush=True)
    pm = passmanager.PassManager.parse("builtin.module(func.func(cse))")
    pm.enable_statistics(passmanager.PassDisplayMode.LIST)
    pm.run(module.operation)
    def enable_inside(op, pass_):
        try:
            pm.enable_statistics()
        except RuntimeError as e:
            print(e, flush=True)
    pm.add(enable_inside)
    pm.run(module.operation)
try:
    pm.enable_statistics(passmanager.PassDisplayMode(7))
except ValueError as e:
    print(e, flush=True)
""")
    # CHECK: exit code: 0
    print("exit code:", child.returncode)
    # CHECK-NEXT: ran
    # CHECK-NEXT: PassManager.enable_statistics: the PassManager is running 'builtin.module(func.func(cse),enable_inside)'
    # CHECK-NEXT: PassManager.enable_statistics: displayMode must be PassDisplayMode.LIST or PassDisplayMode.PIPELINE
    print(child.stdout.strip())
    # CHECK-NEXT: reports: 3
    print("reports:", child.stderr.count("Pass statistics report"))


# CHECK-LABEL: TEST: test_timing_report
@run
def test_timing_report():
    # enable_timing (upstream's): MLIR prints the report of every run to
    # stderr when the pass manager is destroyed; read from a child process.
    child = run_child("""
import gc
from mlir_tracking import ir, passmanager
with ir.Context():
    module = ir.Module.parse("func.func @f(%a: i32) -> i32 { return %a : i32 }")
    pm = passmanager.PassManager.parse("builtin.module(func.func(canonicalize,cse))")
    pm.enable_timing()
    pm.run(module.operation)
    pm.run(module.operation)
    print("ran", flush=True)
    del pm
    gc.collect()
    print("destroyed", flush=True)
""")
    report = child.stderr
    # CHECK: exit code: 0 ran destroyed
    print("exit code:", child.returncode, " ".join(child.stdout.split()))
    # CHECK-NEXT: report: True Canonicalizer: True CSE: True
    print("report:", "Execution time report" in report,
          "Canonicalizer:", "Canonicalizer" in report, "CSE:", "CSE" in report)
