"""Hold operation handles across a pass pipeline and see what became of them.

    PYTHONPATH=build/python_packages python3 examples/quickstart.py

Every `ir.Operation` is a tracked handle: precise passes (canonicalize, cse)
move it to the op that replaced it or mark it erased; any other pass marks
the handles nested in the op it ran on as invalidated. A handle that is not
live raises `ir.InvalidatedHandleError` instead of touching freed memory.
"""

from mlir_tracking import ir
from mlir_tracking.passmanager import PassManager

ASM = """
func.func @axpy(%a: i32, %x: i32, %n: index) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  %two = arith.constant 2 : i32
  %three = arith.constant 3 : i32
  %six = arith.muli %two, %three : i32
  %ax = arith.muli %a, %x : i32
  %ax_again = arith.muli %a, %x : i32
  %scaled = arith.addi %ax, %zero : i32
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %scaled) -> i32 {
    %inv = arith.muli %ax_again, %six : i32
    %next = arith.addi %acc, %inv : i32
    scf.yield %next : i32
  }
  return %sum : i32
}
"""


def fate(label, op):
    print(f"  {label:<10} {op.handle_state:<12}", end="")
    if op.is_valid:
        print(f"now: {op.get_asm().strip().splitlines()[0]}")
    else:
        print()
    for event in op.handle_history:
        print(f"  {'':<10} - {event}")


def main():
    with ir.Context():
        module = ir.Module.parse(ASM)
        func = module.body.operations[0]
        (c0, c1, zero, two, three, six, ax, ax_again, scaled, loop,
         ret) = func.regions[0].blocks[0].operations
        inv = loop.regions[0].blocks[0].operations[0]
        held = {"func": func, "%zero": zero, "%six": six, "%ax": ax,
                "%ax_again": ax_again, "%scaled": scaled, "scf.for": loop,
                "%inv": inv}

        print("== canonicalize,cse (precise: handles follow their ops)")
        PassManager.parse("builtin.module(canonicalize,cse)").run(module)
        for label, op in held.items():
            fate(label, op)
        # CSE merged %ax_again into %ax: both handles now refer to one op
        # (`same_op`), yet they stay distinct dict keys (`==` and `hash`
        # never change), and `canonical_handle` is the op's own handle.
        ax, ax_again = held["%ax"], held["%ax_again"]
        print(f"  %ax_again.same_op(%ax): {ax_again.same_op(ax)}, "
              f"%ax_again == %ax: {ax_again == ax}, "
              f"canonical_handle is %ax: {ax_again.canonical_handle is ax.operation}")

        print()
        print("== func.func(loop-invariant-code-motion) (not precise)")
        PassManager.parse(
            "builtin.module(func.func(loop-invariant-code-motion))").run(module)
        for label in ["func", "%ax", "scf.for", "%inv"]:
            fate(label, held[label])

        print()
        print("== using a stale handle")
        try:
            print(held["%inv"].operands)
        except ir.InvalidatedHandleError as error:
            print(f"  InvalidatedHandleError: {error}")

        print()
        print("== the IR after both pipelines")
        print(module)


if __name__ == "__main__":
    main()
