# Prints `n` functions of ten ops each (foldable constants, a common
# subexpression, a call chain; two in three private). Usage:
# generate_large.py <n>
import sys

n = int(sys.argv[1])
lines = []
for f in range(n):
    visibility = "private " if f % 3 else ""
    lines.append(f"func.func {visibility}@f{f}(%a: i32, %b: i32) -> i32 {{")
    lines.append("  %c1 = arith.constant 1 : i32")
    lines.append("  %c2 = arith.constant 2 : i32")
    lines.append("  %0 = arith.addi %c1, %c2 : i32")
    lines.append("  %1 = arith.addi %a, %0 : i32")
    lines.append("  %2 = arith.addi %a, %0 : i32")
    lines.append("  %3 = arith.muli %1, %2 : i32")
    lines.append("  %4 = arith.muli %b, %b : i32")
    if f + 1 < n:
        lines.append(f"  %5 = func.call @f{f + 1}(%3, %4) : (i32, i32) -> i32")
    else:
        lines.append("  %5 = arith.addi %3, %4 : i32")
    lines.append("  return %5 : i32")
    lines.append("}")
print("\n".join(lines))
