# RUN: %PYTHON %s | FileCheck %s
# Upstream-style program (imports renamed from `mlir`): a diagnostic handler
# that catches a verifier error, MLIRError.error_diagnostics, locations of
# every kind, and errors emitted from Python.

from mlir_tracking.ir import *
from mlir_tracking.dialects import arith, func


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


# CHECK-LABEL: TEST: testVerifierErrorThroughHandler
@run
def testVerifierErrorThroughHandler():
    ctx = Context()
    seen = []

    def handler(d):
        seen.append((str(d.severity), str(d.location), d.message,
                     [n.message for n in d.notes]))
        return True

    h = ctx.attach_diagnostic_handler(handler)
    with ctx, Location.file("kernel.py", 10, 4):
        module = Module.create()
        i32 = IntegerType.get_signless(32)
        with InsertionPoint(module.body):
            fn = func.FuncOp("bad", ([i32], [i32]))
            with InsertionPoint(fn.add_entry_block()):
                # Returns nothing although the function returns an i32.
                func.ReturnOp([])
        ctx.emit_error_diagnostics = True
        try:
            module.operation.verify()
        except MLIRError as e:
            # With emit_error_diagnostics the error went to the handler.
            # CHECK: MLIRError with 0 diagnostics
            print("MLIRError with", len(e.error_diagnostics), "diagnostics")
        # CHECK: DiagnosticSeverity.ERROR loc("kernel.py":10:4) 'func.return' op has 0 operands, but enclosing function (@bad) returns 1
        for severity, loc, message, notes in seen:
            print(severity, loc, message)
        ctx.emit_error_diagnostics = False
        seen.clear()
        try:
            module.operation.verify()
        except MLIRError as e:
            # CHECK: Verification failed:
            # CHECK: error: "kernel.py":10:4: 'func.return' op has 0 operands, but enclosing function (@bad) returns 1
            print(e)
            d = e.error_diagnostics[0]
            # CHECK: DiagnosticInfo ERROR loc("kernel.py":10:4) 1 note(s)
            print(type(d).__name__, d.severity.name, d.location, len(d.notes), "note(s)")
            # CHECK: note: see current operation: "func.return"() : () -> ()
            print("note:", d.notes[0].message)
        # CHECK: handler saw 0
        print("handler saw", len(seen))
        Location.name("here").emit_error("custom problem")
        # CHECK: DiagnosticSeverity.ERROR loc("here") custom problem
        print(*seen[-1][:3])
        h.detach()
        # CHECK: attached False had_error False
        print("attached", h.attached, "had_error", h.had_error)


# CHECK-LABEL: TEST: testParseErrorAndHandlerException
@run
def testParseErrorAndHandlerException():
    with Context() as ctx:
        try:
            Module.parse("func.func @f() -> i32 { return %y : i32 }")
        except MLIRError as e:
            # CHECK: Unable to parse module assembly:
            print(str(e).splitlines()[0])
            # CHECK: 1 ERROR
            print(len(e.error_diagnostics), e.error_diagnostics[0].severity.name)

        def raising(d):
            raise ValueError("handler bug")

        with ctx.attach_diagnostic_handler(raising) as h:
            Location.unknown().emit_error("boom")
        # CHECK: had_error True attached False
        print("had_error", h.had_error, "attached", h.attached)
        try:
            Type.parse("i32x")
        except MLIRError as e:
            # CHECK: Unable to parse type: 'i32x'

            print(str(e).splitlines()[0])


# CHECK-LABEL: TEST: testLocationKinds
@run
def testLocationKinds():
    with Context():
        f = Location.file("a.py", 3, 7)
        n = Location.name("x", childLoc=f)
        c = Location.callsite(Location.file("callee.py", 1, 1), [f, Location.file("main.py", 9, 2)])
        fu = Location.fused([f, n], metadata=StringAttr.get("fusion"))
        u = Location.unknown()
        # CHECK: loc("a.py":3:7) a.py 3 7
        print(f, f.filename, f.start_line, f.start_col)
        # CHECK: loc("x"("a.py":3:7)) x True
        print(n, n.name_str, n.is_a_name())
        # CHECK: loc(callsite("callee.py":1:1 at callsite("a.py":3:7 at "main.py":9:2)))
        print(c)
        # CHECK: loc(fused<"fusion">["a.py":3:7, "x"("a.py":3:7)]) True 2
        print(fu, fu.is_a_fused(), len(fu.locations))
        # CHECK: loc(unknown)
        print(u)
        attr = f.attr
        # CHECK: True
        print(Location.from_attr(attr) == f)
