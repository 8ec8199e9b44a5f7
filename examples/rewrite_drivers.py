"""Each tracked rewrite driver from Python, with handles held across it.

    PYTHONPATH=build/python_packages python3 examples/rewrite_drivers.py

Greedy patterns written in Python, the walk driver, PDL with a Python native
rewrite, a dialect conversion to LLVM, and a Python pass in a threaded
pipeline checked by the tracking self-check. After each step the handles
taken before it say where their op went.
"""

from mlir_tracking import ir, rewrite
from mlir_tracking.passmanager import PassManager

SOURCE = """
func.func @f(%a: i32, %b: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %x = arith.addi %a, %c0 : i32
  %m = arith.muli %x, %b : i32
  %r = arith.subi %m, %b : i32
  return %r : i32
}
"""


def swap_muli(op, rewriter):
    """muli(x, y) -> muli(y, x) once (marked 'swapped')."""
    if "swapped" in op.attributes:
        return rewriter.notify_match_failure(op, "already swapped")
    with rewriter.ip:
        new = ir.Operation.create(
            "arith.muli",
            results=[op.results[0].type],
            operands=[op.operands[1], op.operands[0]],
            attributes={"swapped": ir.Attribute.parse("unit")},
            loc=op.location,
        )
    rewriter.replace_op(op, new)


def show(title, **handles):
    print(f"== {title}")
    for name, op in handles.items():
        where = op.name if op.is_valid else ""
        print(f"  {name}: {op.handle_state} {where}")
        print(f"    last: {op.handle_history[-1] if op.handle_history else '-'}")


def body(module):
    return list(module.body.operations[0].regions[0].blocks[0].operations)


with ir.Context():
    # 1. Greedy driver: a Python pattern plus canonicalization (folding).
    module = ir.Module.parse(SOURCE)
    _, x, m, r, _ = body(module)
    patterns = rewrite.RewritePatternSet()
    patterns.add("arith.muli", swap_muli)
    patterns.add_canonicalization_patterns()
    rewrite.apply_patterns_and_fold_greedily(module, patterns.freeze())
    show("greedy", x=x, m=m, r=r)

    # 2. Walk driver, with the name rule relaxed for this run.
    def sub_to_add(op, rewriter):
        with rewriter.ip:
            new = ir.Operation.create(
                "arith.addi",
                results=[op.results[0].type],
                operands=list(op.operands),
                loc=op.location,
            )
        rewriter.replace_op(op, [new.results[0]])

    patterns = rewrite.RewritePatternSet()
    patterns.add("arith.subi", sub_to_add)
    relaxed = rewrite.TrackingConfig(require_matching_replacement_op_name=False)
    rewrite.walk_and_apply_patterns(module, patterns.freeze(), tracking_config=relaxed)
    show("walk (names may differ)", r=r)

    # 3. PDL: the pattern in PDL, the rewrite in Python.
    module = ir.Module.parse(SOURCE)
    m = body(module)[2]
    pdl = rewrite.PDLModule(ir.Module.parse("""
      module {
        pdl.pattern : benefit(1) {
          %t = pdl.type : i32
          %l = pdl.operand
          %r = pdl.operand
          %op = pdl.operation "arith.muli"(%l, %r : !pdl.value, !pdl.value) -> (%t : !pdl.type)
          pdl.apply_native_constraint "not_swapped"(%op : !pdl.operation)
          pdl.rewrite %op with "swap"(%op : !pdl.operation)
        }
      }"""))
    pdl.register_constraint_function(
        "not_swapped", lambda rewriter, results, values: "swapped" in values[0].attributes
    )
    pdl.register_rewrite_function(
        "swap", lambda rewriter, results, values: swap_muli(values[0], rewriter)
    )
    rewrite.apply_patterns_and_fold_greedily(module, pdl.freeze())
    show("PDL", m=m)

    # 4. Dialect conversion (the tracked convert-arith-to-llvm pass).
    PassManager.parse("builtin.module(convert-arith-to-llvm)").run(module.operation)
    show("arith to LLVM", m=m)

    # 5. A Python pass between C++ passes, on many functions, threads on,
    #    with the self-check after every pass.
    module = ir.Module.parse("\n".join(SOURCE.replace("@f", f"@f{i}") for i in range(8)))
    muls = [list(f.regions[0].blocks[0].operations)[2] for f in module.body.operations]
    frozen_swap = rewrite.RewritePatternSet()
    frozen_swap.add("arith.muli", swap_muli)
    frozen_swap = frozen_swap.freeze()

    def swap_pass(op, pass_):
        rewrite.apply_patterns_and_fold_greedily(op, frozen_swap)

    pm = PassManager.parse("builtin.module(func.func(canonicalize))")
    pm.add(swap_pass, name="swap-muli", op_name="func.func")
    pm.add("func.func(cse)")
    pm.enable_tracking_verification()
    pm.run(module.operation)
    print("== python pass:", str(pm))
    print("  all muls followed:", all(op.is_valid and "swapped" in op.attributes for op in muls))
