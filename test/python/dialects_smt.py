# RUN: %PYTHON %s | FileCheck %s
# dialects.smt's additions (upstream's, in our words): BoolType and
# BitVectorType as the types' classes, bool_t/bv_t, the solver decorator,
# and export_smtlib, whose text is mlir-translate --export-smtlib's.

import shutil
import subprocess

from mlir_tracking import ir
from mlir_tracking.dialects import smt


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


def mlir_translate(text, *flags):
    tool = shutil.which("mlir-translate") or "/usr/lib/llvm-22/bin/mlir-translate"
    return subprocess.run([tool, "--export-smtlib", *flags], input=text,
                          capture_output=True, text=True, check=True).stdout


# CHECK-LABEL: TEST: test_types
@run
def test_types():
    with ir.Context():
        bv = ir.Type.parse("!smt.bv<32>")
        # CHECK-NEXT: BitVectorType 32 !smt.bv<32>
        print(type(bv).__name__, bv.width, smt.BitVectorType.get(32))
        # CHECK-NEXT: BoolType !smt.bool True False
        print(type(ir.Type.parse("!smt.bool")).__name__, smt.bool_t(),
              smt.BoolType.isinstance(smt.bool_t()),
              smt.BitVectorType.isinstance(smt.bool_t()))
        # CHECK-NEXT: True
        print(smt.bv_t(8) == smt.BitVectorType.get(8))
        # CHECK-NEXT: IntType !smt.int True
        print(type(ir.Type.parse("!smt.int")).__name__, smt.IntType.get(),
              smt.IntType.isinstance(ir.Type.parse("!smt.int")))
        # The enums (generated from MLIR's definitions).
        # CHECK-NEXT: IntPredicate le ult
        print(type(smt.IntPredicate.le).__name__, smt.IntPredicate.le,
              smt.BVCmpPredicate.ult)
        try:
            smt.BitVectorType.get(0)
        except ir.MLIRError as e:
            # CHECK-NEXT: MLIRError bit-vector must have at least a width of one
            print("MLIRError", e.error_diagnostics[0].message)
        # MLIR's SMT ops read widths as 32-bit numbers (a repeat of a 2**32
        # bit vector divided by zero in its verifier): wider is refused when
        # built, and an op with such a value when its IR is verified.
        try:
            smt.BitVectorType.get(2**32)
        except ValueError as e:
            # CHECK-NEXT: ValueError BitVectorType.get: width 4294967296 is over 4294967295, the widest bit-vector MLIR's SMT ops take
            print("ValueError", e)
        try:
            ir.Module.parse("""
              smt.solver() : () -> () {
                %x = smt.declare_fun : !smt.bv<4294967296>
                %r = smt.bv.repeat 2 times %x : !smt.bv<4294967296>
              }""")
        except ir.MLIRError as e:
            # CHECK-NEXT: MLIRError 'smt.declare_fun' op has a value of type !smt.bv<4294967296>: MLIR's SMT ops take bit-vectors of 1 to 4294967295 bits
            print("MLIRError", e.error_diagnostics[0].message)


# CHECK-LABEL: TEST: test_solver_and_export
@run
def test_solver_and_export():
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            @smt.solver()
            def query():
                x = smt.declare_fun(smt.bv_t(8))
                y = smt.declare_fun(smt.bv_t(8))
                smt.assert_(smt.eq([x, y]))
        # CHECK-NEXT: True smt.solver
        print(module.operation.verify(), query.name)
        for options in ({}, {"inline_single_use_values": True}):
            flags = [f"--smtlibexport-{name.replace('_', '-')}"
                     for name in options]
            ours = smt.export_smtlib(module, **options)
            # CHECK-NEXT: True (assert (let ((tmp_1 (= tmp tmp_0)))
            # CHECK-NEXT: True (assert (= tmp tmp_0))
            print(ours == mlir_translate(str(module), *flags),
                  ours.splitlines()[3])
        # (mlir-translate has no flag for this one.)
        indented = smt.export_smtlib(module, indent_let_body=True)
        def indent(text):
            line = text.splitlines()[4]
            return len(line) - len(line.lstrip(" ")), line.strip()
        # The let's body under the let's bindings, then further in.
        # CHECK-NEXT: (8, 'tmp_1))') (13, 'tmp_1))')
        print(indent(smt.export_smtlib(module)), indent(indented))
        # CHECK-NEXT: True
        print(smt.export_smtlib(module.operation) == smt.export_smtlib(module))


# CHECK-LABEL: TEST: test_export_errors
@run
def test_export_errors():
    with ir.Context():
        # An op the exporter does not know, inside a solver.
        module = ir.Module.parse("""
          smt.solver() : () -> () {
            %c = arith.constant 1 : i32
          }""")
        try:
            smt.export_smtlib(module)
        except ValueError as e:
            # CHECK-NEXT: Failed to export smtlib.
            # CHECK-NEXT: Diagnostic message solver must not contain any non-SMT operations
            print(e)
        # IR that does not verify is refused before the exporter reads it.
        module = ir.Module.parse("""
          smt.solver() : () -> () {
            %x = smt.declare_fun : !smt.bv<8>
          }""")
        block = module.body.operations[0].regions[0].blocks[0]
        with ir.InsertionPoint.at_block_terminator(block), \
                ir.Location.unknown():
            smt.assert_(smt.eq([block.operations[0].result] * 2))
        block.operations[1].move_before(block.operations[0])
        try:
            smt.export_smtlib(module)
        except ir.MLIRError as e:
            # CHECK-NEXT: cannot export IR that does not verify to SMT-LIB
            print(e.message)
        # An assertion inside a quantifier's body (MLIR's exporter crashed
        # on it; it verifies, but SMT-LIB has no way to say it).
        module = ir.Module.parse("""
          smt.solver() : () -> () {
            %0 = smt.forall {
            ^bb0(%x: !smt.bool):
              smt.assert %x
              smt.yield %x : !smt.bool
            }
            smt.assert %0
          }""")
        try:
            smt.export_smtlib(module)
        except ValueError as e:
            # CHECK-NEXT: True Failed to export smtlib: an 'smt.assert' inside the body of an 'smt.forall' or 'smt.exists'
            print(module.operation.verify(), e)
        try:
            smt.export_smtlib("smt.solver")
        except TypeError as e:
            # CHECK-NEXT: expected an ir.Operation or ir.Module
            print(e)
