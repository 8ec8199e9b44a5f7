# Prints a function whose body nests `depth` scf.if ops, the innermost one
# holding a dead arith.addi. Usage: generate_deep.py <depth>
import sys

depth = int(sys.argv[1])
lines = ["func.func @deep(%c: i1, %x: i32) -> i32 {"]
lines += ["scf.if %c {"] * depth
lines.append("%y = arith.addi %x, %x : i32")
lines += ["}"] * depth
lines += ["return %x : i32", "}"]
print("\n".join(lines))
