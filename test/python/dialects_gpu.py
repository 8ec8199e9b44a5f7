# RUN: %PYTHON %s | FileCheck %s
# dialects.gpu's ObjectAttr (upstream's, in our words): built from Python
# and returned by the API for the objects gpu-module-to-binary makes.

from mlir_tracking import ir
from mlir_tracking.dialects import gpu
from mlir_tracking.passmanager import PassManager


def error(f):
    try:
        f()
        return "no error"
    except Exception as e:
        return f"{type(e).__name__}: {str(e).splitlines()[0]}"


with ir.Context(), ir.Location.unknown():
    target = ir.Attribute.parse("#nvvm.target")
    blob = b"\x7fELF\x00binary"
    properties = ir.DictAttr.get({"O": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 3)})
    obj = gpu.ObjectAttr.get(target, gpu.CompilationTarget.Fatbin, blob, properties)
    # CHECK: #gpu.object<#nvvm.target, properties = {O = 3 : i32}, "\7FELF\00binary">
    print(obj)
    # CHECK-NEXT: True 4 True #nvvm.target None
    print(obj.object == blob, obj.format, obj.properties == properties, obj.target, obj.kernels)
    # CHECK-NEXT: ObjectAttr None
    plain = gpu.ObjectAttr.get(target, gpu.CompilationTarget.Assembly, b"ptx")
    print(type(ir.Attribute.parse(str(plain))).__name__, plain.properties)
    # CHECK-NEXT: ValueError: format must be a gpu.CompilationTarget, got 9
    print(error(lambda: gpu.ObjectAttr.get(target, 9, blob)))
    # CHECK-NEXT: MLIRError: Invalid attribute:
    print(error(lambda: gpu.ObjectAttr.get(ir.UnitAttr.get(), 4, blob)))
    # CHECK-NEXT: TypeError: properties must be a DictAttr
    print(error(lambda: gpu.ObjectAttr.get(target, 4, blob, ir.UnitAttr.get())))

    # What gpu-module-to-binary makes comes back as an ObjectAttr.
    module = ir.Module.parse("""
      module attributes {gpu.container_module} {
        gpu.module @kernels [#nvvm.target<chip = "sm_70">] {
          llvm.func @kernel() attributes {gpu.kernel, nvvm.kernel} {
            llvm.return
          }
        }
      }""")
    PassManager.parse("builtin.module(gpu-module-to-binary{format=isa})").run(module)
    (made,) = module.body.operations[0].attributes["objects"]
    # CHECK-NEXT: ObjectAttr 2 True
    print(type(made).__name__, made.format, b".entry kernel" in made.object)
