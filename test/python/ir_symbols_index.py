# RUN: %PYTHON %s | FileCheck %s
# ir.SymbolTable's index: one scan of the table's body answers every lookup
# while the IR is unchanged, and whatever changed the IR since (a pass,
# Python through attributes or moves, the table itself, another SymbolTable
# object, C++ passes earlier in the same run) a lookup answers what MLIR's
# own lookup in the IR would.

from mlir_tracking import ir, passmanager


def run(f):
    print("\nTEST:", f.__name__)
    with ir.Context(), ir.Location.unknown():
        f()
    return f


def scans():
    return ir._symbol_table_scans()


ASM = """
func.func private @dead() {
  return
}
func.func private @helper() {
  return
}
func.func @main() {
  func.call @helper() : () -> ()
  return
}
"""


# A pass erased a symbol after the index was built: the lookup of the erased
# name is not answered from the index, and KeyError's text is upstream's.
# CHECK-LABEL: TEST: test_lookup_after_symbol_dce
# CHECK: True True 1
# CHECK-NEXT: False True
# CHECK-NEXT: KeyError: "Symbol 'dead' not in the symbol table."
# CHECK-NEXT: True True
@run
def test_lookup_after_symbol_dce():
    m = ir.Module.parse(ASM)
    t = ir.SymbolTable(m.operation)
    before = scans()
    dead = t["dead"]
    print("dead" in t, "helper" in t, scans() - before)
    passmanager.PassManager.parse("builtin.module(canonicalize,symbol-dce)").run(m.operation)
    print("dead" in t, dead.handle_state != "live")
    try:
        t["dead"]
    except KeyError as e:
        print("KeyError:", e)
    print(t["helper"].operation is m.body.operations[0].operation,
          t["main"].operation is m.body.operations[1].operation)


# Python renamed symbols (through the attribute and set_symbol_name) after
# the index was built.
# CHECK-LABEL: TEST: test_lookup_after_python_rename
# CHECK: False True True
# CHECK-NEXT: False True True
# CHECK-NEXT: KeyError: "Symbol 'helper' not in the symbol table."
@run
def test_lookup_after_python_rename():
    m = ir.Module.parse(ASM)
    t = ir.SymbolTable(m.operation)
    helper = t["helper"]
    dead = t["dead"]
    helper.attributes["sym_name"] = ir.StringAttr.get("renamed")
    print("helper" in t, "renamed" in t, t["renamed"].operation is helper.operation)
    ir.SymbolTable.set_symbol_name(dead, "gone")
    print("dead" in t, "gone" in t, t["gone"].operation is dead.operation)
    try:
        t["helper"]
    except KeyError as e:
        print("KeyError:", e)


# Erasing through the table (erase, del) keeps the index current: no scan
# after the first; erasing with op.erase() (not through the table) is seen.
# CHECK-LABEL: TEST: test_lookup_after_erase
# CHECK: erased False 0
# CHECK-NEXT: erased False 0
# CHECK-NEXT: erased False
# CHECK-NEXT: KeyError: "Symbol 'dead' not in the symbol table."
# CHECK-NEXT: KeyError: "Symbol 'main' not in the symbol table."
# CHECK-NEXT: True
@run
def test_lookup_after_erase():
    m = ir.Module.parse(ASM + "func.func private @other()\n")
    t = ir.SymbolTable(m.operation)
    "x" in t
    before = scans()
    dead = t["dead"]
    t.erase(dead)
    print(dead.handle_state, "dead" in t, scans() - before)
    other = t["other"]
    del t["other"]
    print(other.handle_state, "other" in t, scans() - before)
    main = t["main"]
    main.operation.erase()
    print(main.handle_state, "main" in t)
    for name in ("dead", "main"):
        try:
            del t[name]
        except KeyError as e:
            print("KeyError:", e)
    # A new op takes an erased name (built with Python, not the table).
    with ir.InsertionPoint(m.body):
        ir.Operation.parse("func.func private @main()").move_before(m.body.operations[0])
    print(t["main"].operation is m.body.operations[0].operation)


# Inserting through the table keeps the index current (a renamed insert
# included); symbols added by Python around the table are found.
# CHECK-LABEL: TEST: test_lookup_after_insert
# CHECK: StringAttr("helper_0") True True 0
# CHECK-NEXT: StringAttr("helper_1") True 0
# CHECK-NEXT: StringAttr("fresh") True 0
# CHECK-NEXT: True True
# CHECK-NEXT: []
@run
def test_lookup_after_insert():
    m = ir.Module.parse(ASM)
    t = ir.SymbolTable(m.operation)
    "x" in t
    before = scans()
    first = ir.Operation.parse("func.func private @helper()")
    name = t.insert(first)
    print(repr(name), t["helper_0"].operation is first.operation,
          t["helper"].operation is m.body.operations[1].operation, scans() - before)
    second = ir.Operation.parse("func.func private @helper()")
    name = t.insert(second)
    print(repr(name), t["helper_1"].operation is second.operation, scans() - before)
    fresh = ir.Operation.parse("func.func private @fresh()")
    print(repr(t.insert(fresh)), "fresh" in t, scans() - before)
    # Added by Python without the table: a clone, and an op created at an
    # insertion point.
    t["main"].operation.clone(ip=ir.InsertionPoint(m.body))
    cloned = m.body.operations[-1]
    ir.SymbolTable.set_symbol_name(cloned, "main_clone")
    with ir.InsertionPoint(m.body):
        made = ir.Operation.parse("func.func private @made()")
        made.move_after(m.body.operations[0])
    print(t["main_clone"].operation is cloned.operation, t["made"].operation is made.operation)
    print(ir.Context.current._verify_tracking())


# Two SymbolTable objects on one op: each sees what the other changed.
# CHECK-LABEL: TEST: test_two_tables_on_one_op
# CHECK: True True
# CHECK-NEXT: False False
# CHECK-NEXT: StringAttr("added_0")
@run
def test_two_tables_on_one_op():
    m = ir.Module.parse(ASM)
    t1 = ir.SymbolTable(m.operation)
    t2 = ir.SymbolTable(m)
    "x" in t1
    "x" in t2
    t1.insert(ir.Operation.parse("func.func private @added()"))
    print("added" in t2, t2["added"].operation is m.body.operations[-1].operation)
    del t2["helper"]
    t1.erase(t1["dead"])
    print("helper" in t1, "dead" in t2)
    print(repr(t2.insert(ir.Operation.parse("func.func private @added()"))))


# A symbol moved to another module is no longer in the first one's table,
# and is in the other's; moved back, it is found again.
# CHECK-LABEL: TEST: test_symbol_moved_to_another_module
# CHECK: False True True
# CHECK-NEXT: True False
@run
def test_symbol_moved_to_another_module():
    m = ir.Module.parse(ASM)
    other = ir.Module.parse("func.func private @x()")
    t = ir.SymbolTable(m.operation)
    u = ir.SymbolTable(other.operation)
    "x" in u
    dead = t["dead"]
    dead.operation.move_before(other.body.operations[0])
    print("dead" in t, "dead" in u, u["dead"].operation is dead.operation)
    dead.operation.move_after(m.body.operations[0])
    print(t["dead"].operation is dead.operation, "dead" in u)


# A Python pass sees the symbols a C++ pass made earlier in the same run: the
# index built before the run has none of them, and neither the context's IR
# change count nor the registry's moved yet (nothing tracked is under the
# module); a lookup while a run is in progress scans again.
# CHECK-LABEL: TEST: test_python_pass_sees_cpp_pass_symbols
# CHECK: before: False
# CHECK-NEXT: in pass: True func.func
# CHECK-NEXT: after: True
@run
def test_python_pass_sees_cpp_pass_symbols():
    m = ir.Module.parse("""
      %c = arith.constant 3 : i32
      %p = math.ipowi %c, %c : i32
    """)
    t = ir.SymbolTable(m.operation)
    name = "__mlir_math_ipowi_i32"
    print("before:", name in t)

    def probe(op, pass_):
        print("in pass:", name in t, t[name].operation.name)

    pm = passmanager.PassManager.parse("builtin.module(convert-math-to-funcs)")
    pm.add(probe, name="probe", op_name="builtin.module")
    pm.run(m.operation)
    print("after:", name in t)


# A Python rewrite pattern's lookups see what the driver's rewrites did
# before them in the same run: here a pattern erased a symbol.
# CHECK-LABEL: TEST: test_rewrite_pattern_lookups
# CHECK: True
# CHECK-NEXT: seen after the erasure: True
# CHECK-NEXT: consistent: True
@run
def test_rewrite_pattern_lookups():
    from mlir_tracking import rewrite
    m = ir.Module.parse("""
      func.func @f(%a: i32) -> i32 {
        %d = arith.addi %a, %a : i32
        return %d : i32
      }
      func.func private @dead()
    """)
    t = ir.SymbolTable(m.operation)
    print("dead" in t)
    erased = []
    seen = []

    def erase_dead(op, rewriter):
        # A true value: no match.
        if op.operation.attributes["sym_name"] != ir.StringAttr.get("dead"):
            return True
        rewriter.erase_op(op)
        erased.append(True)

    def look(op, rewriter):
        seen.append((bool(erased), "dead" in t, "f" in t))
        return True

    patterns = rewrite.RewritePatternSet()
    patterns.add("func.func", erase_dead)
    patterns.add("arith.addi", look)
    rewrite.apply_patterns_and_fold_greedily(m, patterns.freeze())
    print("seen after the erasure:", any(after for after, _, _ in seen))
    print("consistent:", all(present != after and f for after, present, f in seen))


# Once a capsule exposed the context's IR, C++ code may change it unseen: a
# name the index lacks is looked up in the IR again; a name it has is still
# answered from it (after the check).
# CHECK-LABEL: TEST: test_misses_rescan_after_capsule_access
# CHECK: before the capsule: 0
# CHECK-NEXT: after it: misses 2 hits 0
@run
def test_misses_rescan_after_capsule_access():
    m = ir.Module.parse(ASM)
    t = ir.SymbolTable(m.operation)
    "x" in t
    before = scans()
    "x" in t, t["main"], "y" in t
    print("before the capsule:", scans() - before)
    m.operation._CAPIPtr
    before = scans()
    "x" in t, "y" in t
    hits = scans()
    t["main"], t["helper"]
    print("after it: misses", hits - before, "hits", scans() - hits)


# Scaling: looking up each of 10,000 symbols (and 10,000 absent names)
# scans the table once; inserts and lookups interleaved scan it once.
# CHECK-LABEL: TEST: test_lookups_scan_once
# CHECK: scans: 1 10000 0
# CHECK-NEXT: interleaved scans: 1
@run
def test_lookups_scan_once():
    n = 10000
    m = ir.Module.parse("\n".join(f"func.func private @f{i}()" for i in range(n)))
    t = ir.SymbolTable(m.operation)
    before = scans()
    found = sum(1 for i in range(n) if t[f"f{i}"].operation.name == "func.func")
    absent = sum(1 for i in range(n) if f"g{i}" in t)
    print("scans:", scans() - before, found, absent)

    m2 = ir.Module.parse("func.func private @seed()")
    t2 = ir.SymbolTable(m2.operation)
    before = scans()
    for i in range(2000):
        t2.insert(ir.Operation.parse(f"func.func private @h{i}()"))
        assert f"h{i}" in t2 and f"h{i + 1}" not in t2
    print("interleaved scans:", scans() - before)
