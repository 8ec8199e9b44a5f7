# RUN: %PYTHON %s | FileCheck %s
# Upstream-style program (imports renamed from `mlir`): a module of several
# functions built with builders and func.CallOp, a symbol table (lookup,
# rename, visibility, symbol uses), a pass pipeline (inline, canonicalize,
# symbol-dce) and what the held handles say afterwards.

from mlir_tracking.ir import *
from mlir_tracking.dialects import arith, func
from mlir_tracking.passmanager import PassManager


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


def build(module):
    i32 = IntegerType.get_signless(32)
    with InsertionPoint(module.body):

        @func.FuncOp.from_py_func(i32)
        def square(x):
            return arith.muli(x, x)

        @func.FuncOp.from_py_func(i32)
        def twice_square(x):
            s = func.CallOp(square.func_op, [x])
            return arith.addi(s.result, s.result)

        @func.FuncOp.from_py_func(i32)
        def entry(x):
            return func.call([i32], FlatSymbolRefAttr.get("twice_square"), [x])

    return square.func_op, twice_square.func_op, entry.func_op


# CHECK-LABEL: TEST: testSymbolTable
@run
def testSymbolTable():
    with Context(), Location.unknown():
        module = Module.create()
        square, twice, entry = build(module)
        table = SymbolTable(module.operation)
        # CHECK: FuncOp True True
        print(type(table["square"]).__name__, "entry" in table, table["square"] == square)
        SymbolTable.set_visibility(square, "private")
        SymbolTable.set_visibility(twice, "private")
        # CHECK: "private" "square"
        print(SymbolTable.get_visibility(square), SymbolTable.get_symbol_name(square))
        SymbolTable.replace_all_symbol_uses("square", "sq", module.operation)
        SymbolTable.set_symbol_name(square, "sq")
        # CHECK: func.func private @sq
        # CHECK: call @sq(
        print(module)
        assert module.operation.verify()
        tables = []
        SymbolTable.walk_symbol_tables(module.operation, True,
                                       lambda op, visible: tables.append(op.name))
        # CHECK: ['builtin.module']
        print(tables)
        dead = func.FuncOp("unused", ([], []), visibility="private")
        dead.add_entry_block()
        with InsertionPoint(dead.entry_block):
            func.ReturnOp([])
        name = table.insert(dead)
        # CHECK: "unused" True
        print(name, "unused" in SymbolTable(module.operation))
        try:
            table["nope"]
        except KeyError as e:
            # CHECK: KeyError
            print("KeyError")


# CHECK-LABEL: TEST: testPipelineAndHandles
@run
def testPipelineAndHandles():
    with Context(), Location.unknown():
        module = Module.create()
        square, twice, entry = build(module)
        SymbolTable.set_visibility(square, "private")
        SymbolTable.set_visibility(twice, "private")
        mul = square.entry_block.operations[0]
        call = entry.entry_block.operations[0]
        pm = PassManager("builtin.module")
        pm.add("inline")
        pm.add("func.func(canonicalize,cse)")
        pm.add("symbol-dce")
        # CHECK: builtin.module(inline{{.*}},func.func(canonicalize{{.*}},cse),symbol-dce)
        print(pm)
        pm.run(module.operation)
        # CHECK: func.func @entry(%[[X:.*]]: i32) -> i32 {
        # CHECK:   %[[M:.*]] = arith.muli %[[X]], %[[X]] : i32
        # CHECK:   %[[A:.*]] = arith.addi %[[M]], %[[M]] : i32
        # CHECK:   return %[[A]] : i32
        # CHECK-NOT: func.func
        print(module)
        # The held handles: inline runs on the module and is not precise, so
        # every handle nested in the module is invalidated (the module's own
        # stays live).
        # CHECK: entry invalidated square erased-or-invalidated call invalidated
        print("entry", entry.operation.handle_state,
              "square", "erased-or-invalidated" if not square.operation.is_valid else "live",
              "call", call.operation.handle_state)
        try:
            call.operands
        except InvalidatedHandleError as e:
            # CHECK: InvalidatedHandleError: operation handle to 'func.call'
            print("InvalidatedHandleError:", str(e)[:40])
        # CHECK: True
        print(module.operation.verify())

        try:
            PassManager.parse("builtin.module(no-such-pass)")
        except ValueError as e:
            # CHECK: ValueError
            print("ValueError")
        # A pipeline anchored on another op raises MLIRError; nothing changed.
        fn = module.body.operations[0]
        try:
            PassManager.parse("builtin.module(cse)").run(fn.operation)
        except MLIRError as e:
            # CHECK: MLIRError: Failure while executing pass pipeline
            print("MLIRError:", str(e).splitlines()[0])
        # CHECK: live
        print(fn.operation.handle_state)
