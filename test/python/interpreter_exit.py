# RUN: %PYTHON %s | FileCheck %s
# Daemon threads inside bindings that call Python while the interpreter
# exits. CPython 3.11 ends such a thread with pthread_exit when its Python
# code asks for the GIL back; the unwinding went through the extension's C++
# frames, which released Python objects without a thread state: a segfault
# in most runs of each scenario below. Such a thread now sleeps until the
# process exits (InterpreterExit.h), as CPython 3.14 does itself. Each
# scenario runs in a child process a few times; the child must exit with
# status 0 after printing its last line.

import subprocess
import sys

PRELUDE = """
import sys, threading, time
from mlir_tracking import ir, rewrite
from mlir_tracking.passmanager import PassManager

FUNCTIONS = "\\n".join(
    f'''func.func @f{i}(%a: i32) -> i32 {{
          %c0 = arith.constant 0 : i32
          %0 = arith.addi %a, %c0 : i32
          %1 = arith.muli %0, %a : i32
          return %1 : i32
        }}'''
    for i in range(40))
ctx = ir.Context()


def nap(*args):
    # Gives up the GIL: the thread asks for it back when it wakes.
    time.sleep(0.0002)


def start(work, threads=3):
    def loop():
        with ctx:
            while True:
                work()
    for _ in range(threads):
        threading.Thread(target=loop, daemon=True).start()
    time.sleep(0.3)
    print("main exiting", flush=True)
"""

PYTHON_PASS = """
def work():
    module = ir.Module.parse(FUNCTIONS)
    pm = PassManager("builtin.module")
    pm.add(nap, name="nap", op_name="func.func")
    pm.run(module.operation)
"""

SCENARIOS = {
    "walk": """
module = ir.Module.parse(FUNCTIONS, context=ctx)
start(lambda: module.operation.walk(nap))
""",
    "greedy pattern": """
def work():
    module = ir.Module.parse(FUNCTIONS)
    patterns = rewrite.RewritePatternSet()
    patterns.add("arith.muli", lambda op, rewriter: nap() or True)
    rewrite.apply_patterns_and_fold_greedily(module, patterns.freeze())
ctx.enable_multithreading(False)
start(work)
""",
    "Python pass on the calling thread": PYTHON_PASS + """
ctx.enable_multithreading(False)
start(work)
""",
    "Python pass on the thread pool": PYTHON_PASS + """
start(work, threads=2)
""",
    "symbol table walk": """
module = ir.Module.parse(FUNCTIONS, context=ctx)
start(lambda: ir.SymbolTable.walk_symbol_tables(module.operation, True, nap))
""",
    "type conversion": """
def work():
    converter = rewrite.TypeConverter()
    converter.add_conversion(lambda t: nap() or t)
    for width in range(1, 60):
        converter.convert_type(ir.IntegerType.get_signless(width))
start(work)
""",
    "diagnostic handler": """
module = ir.Module.parse('''
  module attributes {transform.with_named_sequence} {
    transform.named_sequence @__transform_main(
        %root: !transform.any_op {transform.readonly}) {
      transform.debug.emit_remark_at %root, "hello" : !transform.any_op
      transform.yield
    }
  }''', context=ctx)
ctx.attach_diagnostic_handler(lambda diagnostic: nap() or True)
pm = PassManager.parse("builtin.module(transform-interpreter)", context=ctx)
start(lambda: pm.run(module.operation), threads=2)
""",
}

RUNS = 3

for name, body in SCENARIOS.items():
    outcomes = []
    for _ in range(RUNS):
        child = subprocess.run([sys.executable, "-c", PRELUDE + body],
                               capture_output=True, text=True, timeout=120)
        clean = child.returncode == 0 and child.stdout == "main exiting\n"
        outcomes.append(clean)
        if not clean:
            print(f"{name}: status {child.returncode}, output "
                  f"{child.stdout!r}, errors {child.stderr[-2000:]!r}")
    print(f"{name}: {sum(outcomes)} of {RUNS} exited cleanly")

# CHECK: walk: 3 of 3 exited cleanly
# CHECK: greedy pattern: 3 of 3 exited cleanly
# CHECK: Python pass on the calling thread: 3 of 3 exited cleanly
# CHECK: Python pass on the thread pool: 3 of 3 exited cleanly
# CHECK: symbol table walk: 3 of 3 exited cleanly
# CHECK: type conversion: 3 of 3 exited cleanly
# CHECK: diagnostic handler: 3 of 3 exited cleanly
