# RUN: %PYTHON %s | FileCheck %s
# Context.attach_diagnostic_handler, Diagnostic, DiagnosticHandler,
# Context.emit_error_diagnostics, Location.emit_error and
# MLIRError.error_diagnostics.

from mlir_tracking import ir


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


# CHECK-LABEL: TEST: test_handler_receives_diagnostics
# CHECK: True False <mlir_tracking.ir.DiagnosticHandler attached>
# CHECK-NEXT: DiagnosticSeverity.ERROR loc("foo.mlir":3:7) something broke something broke ()
# CHECK-NEXT: True True
# CHECK-NEXT: something broke DiagnosticSeverity.ERROR
# CHECK-NEXT: False
# CHECK-NEXT: 1
@run
def test_handler_receives_diagnostics():
    ctx = ir.Context()
    seen = []

    def callback(d):
        seen.append(d)
        return True

    handler = ctx.attach_diagnostic_handler(callback)
    print(handler.attached, handler.had_error, repr(handler))
    loc = ir.Location.file("foo.mlir", 3, 7, context=ctx)
    loc.emit_error("something broke")
    d = seen[0]
    print(d.severity, d.location, d.message, str(d), d.notes)
    print(isinstance(d.severity, ir.DiagnosticSeverity), d.severity == ir.DiagnosticSeverity.ERROR)
    info = ir.DiagnosticInfo(d)
    print(info.message, info.severity)
    handler.detach()
    print(handler.attached)
    handler.detach()
    print(len(seen))


# CHECK-LABEL: TEST: test_warnings_and_notes_from_parse
# CHECK: MLIRError: 1 DiagnosticSeverity.ERROR
# CHECK-NEXT: handler saw 0
# CHECK-NEXT: True
# CHECK-NEXT: MLIRError: 0
# CHECK-NEXT: handler saw 1 DiagnosticSeverity.ERROR undefined symbol alias id 'nope'
# CHECK-NEXT: False
@run
def test_warnings_and_notes_from_parse():
    ctx = ir.Context()
    seen = []
    with ctx.attach_diagnostic_handler(lambda d: seen.append(d) or True) as handler:
        # Errors of a failing parse go to the MLIRError, not to handlers.
        try:
            ir.Module.parse("func.func @f() { %0 = arith.constant 1 : i32 }", ctx)
        except ir.MLIRError as e:
            print("MLIRError:", len(e.error_diagnostics), e.error_diagnostics[0].severity)
        print("handler saw", len(seen))
        ctx.emit_error_diagnostics = True
        print(ctx.emit_error_diagnostics)
        try:
            ir.Type.parse("!nope", ctx)
        except ir.MLIRError as e:
            print("MLIRError:", len(e.error_diagnostics))
        print("handler saw", len(seen), seen[0].severity, seen[0].message[:40])
        ctx.emit_error_diagnostics = False
    print(handler.attached)


# CHECK-LABEL: TEST: test_handler_order_and_propagation
# CHECK: ['second', 'first']
# CHECK-NEXT: ['second', 'first', 'first']
@run
def test_handler_order_and_propagation():
    ctx = ir.Context()
    log = []
    first = ctx.attach_diagnostic_handler(lambda d: log.append("first") or True)
    second = ctx.attach_diagnostic_handler(lambda d: log.append("second") or False)
    ir.Location.unknown(ctx).emit_error("x")
    print(log)
    second.detach()
    ir.Location.unknown(ctx).emit_error("y")
    print(log)
    first.detach()


# CHECK-LABEL: TEST: test_handler_exception
# CHECK: True ['propagates'] True
# CHECK-NEXT: TypeError: the diagnostic handler must be callable
@run
def test_handler_exception():
    ctx = ir.Context()
    log = []
    fallback = ctx.attach_diagnostic_handler(lambda d: log.append(d.message) or True)

    def bad(d):
        raise ValueError("boom")

    import sys, io
    handler = ctx.attach_diagnostic_handler(bad)
    old, sys.stderr = sys.stderr, io.StringIO()
    try:
        ir.Location.unknown(ctx).emit_error("propagates")
    finally:
        captured, sys.stderr = sys.stderr.getvalue(), old
    print(handler.had_error, log, "boom" in captured)
    handler.detach()
    fallback.detach()
    try:
        ctx.attach_diagnostic_handler(42)
    except TypeError as e:
        print("TypeError:", e)


# CHECK-LABEL: TEST: test_notes
# CHECK: MLIRError: redefinition of symbol named 'a'
# CHECK-NEXT: notes: ['see current operation: \n"func.func"() <{function_type = () -> (), sym_name = "a", sym_visibility = "private"}> ({\n}) : () -> ()', 'see existing symbol definition here']
# CHECK-NEXT: handler: []
# CHECK-NEXT: 1 redefinition of symbol named 'a' [<DiagnosticSeverity.NOTE: 2>, <DiagnosticSeverity.NOTE: 2>]
@run
def test_notes():
    ctx = ir.Context()
    seen = []
    h = ctx.attach_diagnostic_handler(lambda d: seen.append(d) or True)
    source = """
          func.func private @a()
          func.func private @a()"""
    # The verifier reports a redefined symbol with a note at the first one.
    try:
        ir.Module.parse(source, ctx)
    except ir.MLIRError as e:
        print("MLIRError:", e.error_diagnostics[0].message)
        print("notes:", [n.message for n in e.error_diagnostics[0].notes])
    print("handler:", seen)
    # With emit_error_diagnostics the handler gets it instead.
    ctx.emit_error_diagnostics = True
    try:
        ir.Module.parse(source, ctx)
    except ir.MLIRError as e:
        assert e.error_diagnostics == [], e.error_diagnostics
    print(len(seen), seen[0].message, [n.severity for n in seen[0].notes])
    h.detach()


# CHECK-LABEL: TEST: test_handler_keeps_context_alive_and_detaches_on_exit
# CHECK: 1
# CHECK-NEXT: 0
@run
def test_handler_keeps_context_alive_and_detaches_on_exit():
    import gc
    before = ir.Context._get_live_count()
    ctx = ir.Context()
    h = ctx.attach_diagnostic_handler(lambda d: True)
    del ctx
    gc.collect()
    print(ir.Context._get_live_count() - before)
    h.detach()
    del h
    gc.collect()
    print(ir.Context._get_live_count() - before)
