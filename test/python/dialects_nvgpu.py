# RUN: %PYTHON %s | FileCheck %s
# dialects.nvgpu's TensorMapDescriptorType (upstream's, in our words): built
# from a memref and the four nvgpu enums, returned as its class, and refused
# with a clear error for values MLIR's C API would cast unchecked.

from mlir_tracking import ir
from mlir_tracking.dialects import nvgpu

with ir.Context():
    memref = ir.MemRefType.get((128, 64), ir.F16Type.get(),
                               memory_space=ir.Attribute.parse("3"))
    desc = nvgpu.TensorMapDescriptorType.get(
        memref, nvgpu.TensorMapSwizzleKind.SWIZZLE_64B,
        nvgpu.TensorMapL2PromoKind.L2PROMO_NONE,
        nvgpu.TensorMapOOBKind.OOB_ZERO,
        nvgpu.TensorMapInterleaveKind.INTERLEAVE_16B)
    # CHECK: !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_64b, l2promo = none, oob = zero, interleave = interleave_16b>
    print(desc)
    # CHECK-NEXT: TensorMapDescriptorType True
    print(type(ir.Type.parse(str(desc))).__name__,
          nvgpu.TensorMapDescriptorType.isinstance(desc))
    for args in ((memref, 99, 0, 0, 0), (memref, 0, 0, -1, 0),
                 (ir.F16Type.get(), 0, 0, 0, 0)):
        try:
            nvgpu.TensorMapDescriptorType.get(*args)
        except (ValueError, TypeError) as e:
            # CHECK-NEXT: ValueError TensorMapDescriptorType.get: swizzle 99 is no value of its nvgpu enum
            # CHECK-NEXT: ValueError TensorMapDescriptorType.get: oob_fill -1 is no value of its nvgpu enum
            # CHECK-NEXT: TypeError TensorMapDescriptorType.get: tensor_type must be a MemRefType, got f16
            print(type(e).__name__, e)
