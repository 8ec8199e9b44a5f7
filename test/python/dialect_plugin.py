# RUN: %PYTHON %s %tracking_lib_dir/TrackingTestDialectPlugin.so | FileCheck %s
# A downstream dialect library (test/lib/TestDialectPlugin.cpp, an MLIR
# dialect plugin) loaded into our contexts with ir.load_dialect_plugin and
# DialectRegistry.load_plugin; its ops are tracked like any other.

import sys

from mlir_tracking import ir, passmanager

PLUGIN = sys.argv[1]


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


# CHECK-LABEL: TEST: test_unknown_before_loading
# CHECK-NEXT: False
# CHECK-NEXT: MLIRError: Unable to parse module assembly
@run
def test_unknown_before_loading():
    with ir.Context() as ctx:
        print(ctx.is_registered_operation("tracking_plugin.noop"))
        try:
            ir.Module.parse('"tracking_plugin.noop"() : () -> ()')
        except ir.MLIRError as e:
            print("MLIRError:", e.message)


# CHECK-LABEL: TEST: test_registry_load_plugin
# CHECK-NEXT: True
# CHECK-NEXT: tracking_plugin
@run
def test_registry_load_plugin():
    with ir.Context() as ctx:
        registry = ir.DialectRegistry()
        registry.load_plugin(PLUGIN)
        ctx.append_dialect_registry(registry)
        ctx.load_all_available_dialects()
        print(ctx.is_registered_operation("tracking_plugin.noop"))
        print(ctx.get_dialect_descriptor("tracking_plugin").namespace)


# CHECK-LABEL: TEST: test_site_dialect_registry
# CHECK-NEXT: False True
# CHECK-NEXT: True
@run
def test_site_dialect_registry():
    # Upstream's _mlir_libs.get_dialect_registry(): contexts created after a
    # dialect is registered there have it, earlier ones do not.
    from mlir_tracking._mlir_libs import get_dialect_registry

    before = ir.Context()
    get_dialect_registry().load_plugin(PLUGIN)
    after = ir.Context()
    print(before.is_registered_operation("tracking_plugin.noop"),
          after.is_registered_operation("tracking_plugin.noop"))
    with after:
        m = ir.Module.parse('"tracking_plugin.noop"() : () -> ()')
        print(m.body.operations[0].name == "tracking_plugin.noop")


# CHECK-LABEL: TEST: test_load_dialect_plugin
# CHECK-NEXT: TrackingTestDialectPlugin
# CHECK-NEXT: True True
# CHECK-NEXT: tracking_plugin.noop live
# CHECK-NEXT: erased
# CHECK-NEXT: MLIRError: Verification failed
# CHECK-NEXT: ValueError: failed to load dialect plugin
@run
def test_load_dialect_plugin():
    with ir.Context() as ctx:
        print(ir.load_dialect_plugin(PLUGIN))
        later = ir.Context()
        print(ctx.is_registered_operation("tracking_plugin.noop"),
              later.is_registered_operation("tracking_plugin.noop"))
        m = ir.Module.parse("""
          func.func @f() {
            "tracking_plugin.noop"() {tag = "a"} : () -> ()
            return
          }""")
        noop = m.body.operations[0].regions[0].blocks[0].operations[0]
        print(noop.name, noop.handle_state)
        noop.erase()
        print(noop.handle_state)
        bad = ir.Operation.create("tracking_plugin.noop",
                                  attributes={"tag": ir.UnitAttr.get()},
                                  loc=ir.Location.unknown())
        try:
            bad.verify()
        except ir.MLIRError as e:
            print("MLIRError:", e.message)
        try:
            ir.load_dialect_plugin("/nonexistent/libnothing.so")
        except ValueError as e:
            print("ValueError:", str(e)[:32])


# CHECK-LABEL: TEST: test_no_plugin_or_registry_while_a_pipeline_runs
# CHECK-NEXT: load_dialect_plugin is not allowed while a pass pipeline runs in context
# CHECK-NEXT: Context.append_dialect_registry is not allowed while a pass pipeline runs
# CHECK-NEXT: True
@run
def test_no_plugin_or_registry_while_a_pipeline_runs():
    # A Python pass is code of the running pipeline: the pass manager may
    # be running other passes on other threads, which read the dialects
    # and registry that these calls change.
    with ir.Context() as ctx:
        module = ir.Module.parse("func.func @f() { return }")
        errors = []

        def loads(op, pass_):
            for call in (lambda: ir.load_dialect_plugin(PLUGIN),
                         lambda: ctx.append_dialect_registry(
                             ir.DialectRegistry())):
                try:
                    call()
                except RuntimeError as e:
                    errors.append(str(e))

        pm = passmanager.PassManager()
        pm.add(loads, name="loads")
        pm.run(module.operation)
        for error in errors:
            print(error)
        print(module.operation.verify())
