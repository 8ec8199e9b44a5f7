# RUN: %PYTHON %s | FileCheck %s
# Upstream's hand-written additions to dialects.irdl (ops built with their
# body, load_dialects) and dialects.ml_program (FuncOp), and result type
# inference for ops that must sit in a given parent.

import gc

from mlir_tracking import ir
from mlir_tracking.dialects import arith, irdl, ml_program


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    return f


def expect(exception_type, fn):
    try:
        fn()
    except exception_type as error:
        print(type(error).__name__ + ":", str(error).splitlines()[0])
        return
    print("no exception")


# CHECK-LABEL: TEST: test_irdl_definitions_and_loading
@run
def test_irdl_definitions_and_loading():
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            dialect = irdl.dialect("shapes")
            with ir.InsertionPoint(dialect.body):
                op = irdl.operation_("scale")
                with ir.InsertionPoint(op.body):
                    # irdl.is must sit in an irdl.operation/type/attribute:
                    # its result type is inferred where it is inserted.
                    f32 = irdl.is_(ir.TypeAttr.get(ir.F32Type.get()))
                    irdl.operands_([f32], ["factor"], [irdl.Variadicity.single])
                    irdl.results_([f32], ["out"], [irdl.Variadicity.variadic])
                kind = irdl.type_("kind")
                with ir.InsertionPoint(kind.body):
                    irdl.parameters([irdl.is_(ir.StringAttr.get("k"))], ["name"])
        # CHECK: irdl.dialect @shapes {
        # CHECK-NEXT: irdl.operation @scale {
        # CHECK-NEXT: %0 = irdl.is f32
        # CHECK-NEXT: irdl.operands(factor: %0)
        # CHECK-NEXT: irdl.results(out: variadic %0)
        # CHECK: irdl.type @kind {
        # CHECK-NEXT: %0 = irdl.is "k"
        # CHECK-NEXT: irdl.parameters(name: %0)
        print(module)
        # CHECK: DialectOp OperationOp True
        print(type(dialect).__name__, type(op).__name__, module.operation.verify())
        irdl.load_dialects(module)
        # The loaded dialect's ops parse and verify.
        # CHECK: "shapes.scale"(%cst) : (f32) -> (f32, f32)
        print(ir.Module.parse("""
          %c = arith.constant 1.0 : f32
          %r:2 = "shapes.scale"(%c) : (f32) -> (f32, f32)"""))
        # CHECK: MLIRError: Unable to parse module assembly:
        expect(ir.MLIRError, lambda: ir.Module.parse("""
          %c = arith.constant 1 : i32
          "shapes.scale"(%c) : (i32) -> ()"""))
        # A dialect the context has already (loaded twice, or an upstream
        # dialect's name) is refused: MLIR crashed registering its ops again.
        # CHECK: RuntimeError: failed to load IRDL dialects: the context or the module has a dialect named 'shapes' already
        expect(RuntimeError, lambda: irdl.load_dialects(module))
        # CHECK: RuntimeError: failed to load IRDL dialects: the context or the module has a dialect named 'arith' already
        expect(RuntimeError, lambda: irdl.load_dialects(ir.Module.parse("irdl.dialect @arith {}")))
        # Twice in one module (nested modules are symbol tables of their
        # own, so it verifies): MLIR registered the ops twice and crashed.
        # CHECK: RuntimeError: failed to load IRDL dialects: the context or the module has a dialect named 'twice' already
        expect(RuntimeError, lambda: irdl.load_dialects(ir.Module.parse("""
          module { irdl.dialect @twice { irdl.operation @a {} } }
          module { irdl.dialect @twice { irdl.operation @a {} } }""")))
        # Definitions that do not verify are reported before anything reads
        # them (an irdl.dialect without its name crashed the name check).
        unnamed = ir.Module.create()
        with ir.InsertionPoint(unnamed.body):
            ir.Operation.create("irdl.dialect", regions=1)
        # CHECK: RuntimeError: failed to load IRDL dialects
        expect(RuntimeError, lambda: irdl.load_dialects(unnamed))
        # Anything but Variadicity values for the variadicity list.
        # CHECK: TypeError: expected a list of irdl.Variadicity, got int
        expect(TypeError, lambda: irdl.operands_([], [], [1]))
        # Outside an irdl.operation, irdl.is cannot be built (its type is
        # not inferred from an op that does not verify).
        # CHECK: MLIRError: Operation creation failed: the operands or attributes of "irdl.is" do not satisfy its constraints
        expect(ir.MLIRError, lambda: irdl.is_(ir.TypeAttr.get(ir.F32Type.get())))
        with ir.InsertionPoint(module.body):
            # CHECK: MLIRError: Operation creation failed: the operands or attributes of "irdl.is" do not satisfy its constraints
            expect(ir.MLIRError, lambda: irdl.is_(ir.TypeAttr.get(ir.F32Type.get())))
        # Nothing was left behind by the failures.
        # CHECK: ops at top level: 1
        print("ops at top level:", len(module.body.operations))


# CHECK-LABEL: TEST: test_irdl_definitions_loading_cannot_check
@run
def test_irdl_definitions_loading_cannot_check():
    # MLIR's loader builds its verifiers from the IRDL constraint ops of a
    # definition: an irdl.c_pred (C++ code), or a constraint made by another
    # op, is not among them, and the verifier read past its lists when an op
    # of the loaded dialect was verified (a segfault) or dropped the
    # constraint silently. load_dialects refuses such definitions before it
    # loads anything.
    cpred = 'irdl.c_pred "::llvm::isa<::mlir::IntegerType>($_self)"'
    definitions = [
        # An op's result, operand, attribute; a type's parameter; a region's
        # argument; inside any_of; unused.
        "irdl.operation @o { %0 = " + cpred + "\n irdl.results(r: %0) }",
        "irdl.operation @o { %0 = " + cpred + "\n irdl.operands(a: %0) }",
        "irdl.operation @o { %0 = " + cpred + '\n irdl.attributes {"v" = %0} }',
        "irdl.type @t { %0 = " + cpred + "\n irdl.parameters(p: %0) }",
        "irdl.operation @o { %0 = " + cpred + "\n %r = irdl.region(%0)\n irdl.regions(b: %r) }",
        "irdl.operation @o { %0 = " + cpred + "\n %1 = irdl.is i32\n %2 = irdl.any_of(%0, %1)\n irdl.results(r: %2) }",
        "irdl.operation @o { %0 = " + cpred + "\n %1 = irdl.is i32\n irdl.results(r: %1) }",
        # Constraints and regions made by ops other than IRDL's.
        "irdl.operation @o { %0 = builtin.unrealized_conversion_cast to !irdl.attribute\n irdl.results(r: %0) }",
        "irdl.operation @o { %0 = builtin.unrealized_conversion_cast to !irdl.attribute\n %1 = irdl.is i32\n %2 = irdl.any_of(%1, %0)\n irdl.results(r: %2) }",
        "irdl.type @t { %0 = builtin.unrealized_conversion_cast to !irdl.attribute\n irdl.parameters(p: %0) }",
        "irdl.operation @o { %0 = builtin.unrealized_conversion_cast to !irdl.region\n irdl.regions(b: %0) }",
    ]
    with ir.Context():
        for definition in definitions:
            module = ir.Module.parse("irdl.dialect @tt {\n" + definition + "\n}")
            expect(RuntimeError, lambda: irdl.load_dialects(module))
        # CHECK:      RuntimeError: failed to load IRDL dialects: 'irdl.c_pred' at loc("-":2:26): a C++ predicate cannot be checked in a dialect loaded at run time
        # CHECK-NEXT: RuntimeError: failed to load IRDL dialects: 'irdl.c_pred' at loc("-":2:26): a C++ predicate cannot be checked in a dialect loaded at run time
        # CHECK-NEXT: RuntimeError: failed to load IRDL dialects: 'irdl.c_pred' at loc("-":2:26): a C++ predicate cannot be checked in a dialect loaded at run time
        # CHECK-NEXT: RuntimeError: failed to load IRDL dialects: 'irdl.c_pred' at loc("-":2:21): a C++ predicate cannot be checked in a dialect loaded at run time
        # CHECK-NEXT: RuntimeError: failed to load IRDL dialects: 'irdl.c_pred' at
        # CHECK-NEXT: RuntimeError: failed to load IRDL dialects: 'irdl.c_pred' at
        # CHECK-NEXT: RuntimeError: failed to load IRDL dialects: 'irdl.c_pred' at
        # CHECK-NEXT: RuntimeError: failed to load IRDL dialects: operand 0 of 'irdl.results' at loc("-":3:2) is not made by an IRDL constraint op ('builtin.unrealized_conversion_cast'): a dialect loaded at run time cannot check it
        # CHECK-NEXT: RuntimeError: failed to load IRDL dialects: operand 1 of 'irdl.any_of' at loc("-":4:7) is not made by an IRDL constraint op ('builtin.unrealized_conversion_cast'): a dialect loaded at run time cannot check it
        # CHECK-NEXT: RuntimeError: failed to load IRDL dialects: operand 0 of 'irdl.parameters' at loc("-":3:2) is not made by an IRDL constraint op
        # CHECK-NEXT: RuntimeError: failed to load IRDL dialects: operand 0 of 'irdl.regions' at loc("-":3:2) is not made by an IRDL region op ('builtin.unrealized_conversion_cast'): a dialect loaded at run time cannot check it
        # Nothing was loaded: ops of the dialect do not parse, and a
        # definition the loader can check loads under the same name.
        # CHECK-NEXT: MLIRError: Unable to parse module assembly:
        expect(ir.MLIRError, lambda: ir.Module.parse('%0 = "tt.o"() : () -> i32'))
        irdl.load_dialects(ir.Module.parse(
            "irdl.dialect @tt {\n irdl.operation @o { %0 = irdl.base \"!builtin.integer\"\n irdl.results(r: %0) }\n}"))
        # CHECK-NEXT: %0 = "tt.o"() : () -> i32
        print(ir.Module.parse('%0 = "tt.o"() : () -> i32').body.operations[0])
        # CHECK-NEXT: MLIRError: Unable to parse module assembly:
        expect(ir.MLIRError, lambda: ir.Module.parse('%0 = "tt.o"() : () -> f32'))


# CHECK-LABEL: TEST: test_attributes_of_ops_of_a_loaded_dialect
@run
def test_attributes_of_ops_of_a_loaded_dialect():
    # Ops of a dialect loaded at run time keep their attributes in their
    # dictionary: MLIR aborts the process when asked for their inherent
    # attributes, which setting and creating with attributes did.
    with ir.Context(), ir.Location.unknown():
        irdl.load_dialects(ir.Module.parse("""
          irdl.dialect @num {
            irdl.operation @const {
              %0 = irdl.base "#builtin.integer"
              %1 = irdl.is i32
              irdl.attributes {"value" = %0}
              irdl.results(out: %1)
            }
          }"""))
        i32 = ir.IntegerType.get_signless(32)
        module = ir.Module.parse('%0 = "num.const"() {value = 1 : i32} : () -> i32')
        op = module.body.operations[0]
        op.attributes["value"] = ir.IntegerAttr.get(i32, 2)
        op.attributes["note"] = ir.UnitAttr.get()
        made = ir.Operation.create(
            "num.const", results=[i32],
            attributes={"value": ir.IntegerAttr.get(i32, 3)},
            ip=ir.InsertionPoint(module.body))
        # CHECK: %0 = "num.const"() {note, value = 2 : i32} : () -> i32
        # CHECK-NEXT: %1 = "num.const"() {value = 3 : i32} : () -> i32
        print(module)
        del op.attributes["note"]
        # CHECK: 2 : i32 False 3 : i32 True
        print(op.attributes["value"], "note" in op.attributes,
              made.attributes["value"], module.operation.verify())
        # IRDL's constraint, checked by the verifier as for parsed ops.
        made.attributes["value"] = ir.StringAttr.get("three")
        # CHECK-NEXT: MLIRError: Verification failed:
        expect(ir.MLIRError, lambda: module.operation.verify())


# CHECK-LABEL: TEST: test_ml_program_func
@run
def test_ml_program_func():
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        si32 = ir.IntegerType.get_signed(32)
        i32 = ir.IntegerType.get_signless(32)
        with ir.InsertionPoint(module.body):
            f = ml_program.FuncOp(name="identity", type=([si32], [si32]))
            block = f.add_entry_block()
            with ir.InsertionPoint(block):
                ml_program.ReturnOp([block.arguments[0]])
            declared = ml_program.FuncOp("declared", ir.FunctionType.get([], []),
                                         visibility="private")
            ml_program.FuncOp("three", ([], [i32]), body_builder=lambda op:
                              ml_program.ReturnOp([arith.constant(i32, 3)]))
        # CHECK: ml_program.func @identity(%arg0: si32) -> si32 {
        # CHECK-NEXT: ml_program.return %arg0 : si32
        # CHECK: ml_program.func private @declared()
        # CHECK: ml_program.func @three() -> i32 {
        # CHECK-NEXT: %c3_i32 = arith.constant 3 : i32
        print(module)
        # CHECK: identity (si32) -> si32 False True "private" FuncOp True
        print(f.name.value, f.type, f.is_external, declared.is_external,
              declared.visibility, type(module.body.operations[0]).__name__,
              module.operation.verify())
        # CHECK: IndexError: External function does not have a body
        expect(IndexError, lambda: declared.entry_block)
        # CHECK: IndexError: The function already has an entry block!
        expect(IndexError, lambda: f.add_entry_block())
        # CHECK: TypeError: type must be a FunctionType or (inputs, results), got 3
        expect(TypeError, lambda: ml_program.FuncOp("bad", 3))
        # A body builder that raises leaves no half-built function.
        def failing_body(op):
            arith.constant(i32, 1)
            raise ValueError("body failed")
        with ir.InsertionPoint(module.body):
            # CHECK: ValueError: body failed
            expect(ValueError, lambda: ml_program.FuncOp(
                "half", ([], [i32]), body_builder=failing_body))
        # CHECK: functions: ['identity', 'declared', 'three']
        print("functions:", [op.name.value for op in module.body.operations])
