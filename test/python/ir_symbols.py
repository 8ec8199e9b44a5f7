# RUN: %PYTHON %s | FileCheck %s
# ir.SymbolTable: lookup, insert (with renaming), erase through the tracked
# paths, symbol names and visibility, replace_all_symbol_uses and
# walk_symbol_tables.

from mlir_tracking import ir


def run(f):
    print("\nTEST:", f.__name__)
    with ir.Context(), ir.Location.unknown():
        f()
    return f


ASM = """
func.func private @callee() -> i32
func.func @caller() -> i32 {
  %0 = func.call @callee() : () -> i32
  return %0 : i32
}
"""


# CHECK-LABEL: TEST: test_lookup
# CHECK: True False <mlir_tracking.ir.SymbolTable of 'builtin.module'>
# CHECK-NEXT: "callee" FuncOp True
# CHECK-NEXT: KeyError: "Symbol 'nope' not in the symbol table."
# CHECK-NEXT: TypeError: Operation is not a Symbol Table.
# CHECK-NEXT: True
# CHECK-NEXT: 0 ValueError: 'builtin.module' has no single region with a single block, which a symbol table needs
# CHECK-NEXT: 1 ValueError: 'builtin.module' has no single region with a single block, which a symbol table needs
@run
def test_lookup():
    m = ir.Module.parse(ASM)
    table = ir.SymbolTable(m.operation)
    print("callee" in table, "nope" in table, repr(table))
    callee = table["callee"]
    print(callee.name, type(callee).__name__, callee.operation is m.body.operations[0].operation)
    try:
        table["nope"]
    except KeyError as e:
        print("KeyError:", e)
    try:
        ir.SymbolTable(callee)
    except TypeError as e:
        print("TypeError:", e)
    # A Module works as well as its operation.
    print("caller" in ir.SymbolTable(m))
    # A module built without its region, or with an empty one: MLIR's
    # symbol table read the missing block (a segfault).
    for regions in (0, 1):
        with ir.Location.unknown(m.context):
            bare = ir.Operation.create("builtin.module", regions=regions)
        try:
            table = ir.SymbolTable(bare)
            table.insert(callee.operation.clone(ip=False))
            print(regions, "inserted")
        except ValueError as e:
            print(regions, "ValueError:", e)


# CHECK-LABEL: TEST: test_names_and_visibility
# CHECK: StringAttr("callee")
# CHECK-NEXT: StringAttr("private") StringAttr("public")
# CHECK-NEXT: StringAttr("nested")
# CHECK-NEXT: ValueError: Expected visibility to be 'public', 'private' or 'nested'
# CHECK-NEXT: True False
# CHECK-NEXT: ValueError: Expected operation to have a symbol name.
@run
def test_names_and_visibility():
    m = ir.Module.parse(ASM)
    table = ir.SymbolTable(m.operation)
    callee = table["callee"]
    print(repr(ir.SymbolTable.get_symbol_name(callee)))
    print(repr(ir.SymbolTable.get_visibility(callee)), repr(ir.SymbolTable.get_visibility(table["caller"])))
    ir.SymbolTable.set_visibility(callee, "nested")
    print(repr(ir.SymbolTable.get_visibility(callee)))
    try:
        ir.SymbolTable.set_visibility(callee, "secret")
    except ValueError as e:
        print("ValueError:", e)
    ir.SymbolTable.set_symbol_name(callee, "renamed")
    print("renamed" in ir.SymbolTable(m.operation), "callee" in ir.SymbolTable(m.operation))
    try:
        ir.SymbolTable.get_symbol_name(m.body.operations[1].regions[0].blocks[0].operations[0])
    except ValueError as e:
        print("ValueError:", e)


# set_visibility(op, "public") writes the attribute, as upstream, so the op
# prints as `func.func public @f` and keeps `sym_visibility` in its attributes.
# CHECK-LABEL: TEST: test_set_visibility_public_is_explicit
# CHECK: func.func public @f()
# CHECK-NEXT: True StringAttr("public")
@run
def test_set_visibility_public_is_explicit():
    m = ir.Module.parse("func.func private @f() {\n  return\n}")
    f = m.body.operations[0]
    ir.SymbolTable.set_visibility(f, "public")
    print(str(m).splitlines()[1].strip())
    print("sym_visibility" in f.attributes, repr(ir.SymbolTable.get_visibility(f)))


# CHECK-LABEL: TEST: test_replace_all_symbol_uses
# CHECK: @other
# CHECK-NEXT: verified
@run
def test_replace_all_symbol_uses():
    m = ir.Module.parse(ASM)
    table = ir.SymbolTable(m.operation)
    ir.SymbolTable.set_symbol_name(table["callee"], "other")
    ir.SymbolTable.replace_all_symbol_uses("callee", "other", m.operation)
    call = table["caller"].regions[0].blocks[0].operations[0]
    print(call.attributes["callee"])
    m.operation.verify()
    print("verified")


# CHECK-LABEL: TEST: test_insert_and_erase
# CHECK: False
# CHECK-NEXT: StringAttr("callee_0") True builtin.module True
# CHECK-NEXT: erased False
# CHECK-NEXT: InvalidatedHandleError
# CHECK-NEXT: erased 1
# CHECK-NEXT: ValueError: the operation is not in this symbol table
# CHECK-NEXT: ValueError: Expected operation to have a symbol name.
# CHECK-NEXT: []
@run
def test_insert_and_erase():
    m = ir.Module.parse(ASM)
    table = ir.SymbolTable(m.operation)
    extra = ir.Operation.parse("func.func private @callee()")
    print(extra.attached)
    name = table.insert(extra)
    # The name was taken: MLIR renamed the new symbol.
    print(repr(name), extra.attached, extra.parent.name,
          m.body.operations[-1].operation is extra.operation)
    callee = table["callee"]
    table.erase(callee)
    print(callee.handle_state, "callee" in table)
    try:
        callee.name
    except ir.InvalidatedHandleError:
        print("InvalidatedHandleError")
    other = table[str(name).strip('"')]
    del table[str(name).strip('"')]
    print(other.handle_state, len(m.body.operations))
    try:
        table.erase(ir.Operation.parse("func.func private @x()"))
    except ValueError as e:
        print("ValueError:", e)
    ir.Context.current.allow_unregistered_dialects = True
    try:
        table.insert(ir.Operation.parse('"test.op"() : () -> ()'))
    except ValueError as e:
        print("ValueError:", e)
    print(ir.Context.current._verify_tracking())


# CHECK-LABEL: TEST: test_walk_symbol_tables
# CHECK: [('builtin.module', True), ('builtin.module', True)]
# CHECK-NEXT: RuntimeError: stop
@run
def test_walk_symbol_tables():
    m = ir.Module.parse("""
      module @outer {
        module @inner {
          func.func private @f()
        }
      }""")
    seen = []
    ir.SymbolTable.walk_symbol_tables(m.operation, True,
                                      lambda op, visible: seen.append((op.name, visible)))
    print(seen)

    def boom(op, visible):
        raise RuntimeError("stop")

    try:
        ir.SymbolTable.walk_symbol_tables(m.operation, False, boom)
    except RuntimeError as e:
        print("RuntimeError:", e)
