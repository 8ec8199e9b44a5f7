# RUN: %PYTHON %tracking_src/examples/transform_tiling.py | FileCheck %s
# The transform example tiles and vectorizes a matmul while holding handles.

# CHECK: matmul handle: erased
# CHECK-NEXT: erased or replaced by 'transform.structured.tile_using_for', which consumed its handle
# CHECK-NEXT: outer loop: scf.for live
# CHECK-NEXT: inner loop: scf.for nested in outer: True
# CHECK-NEXT: vectorized: ['vector.multi_reduction']
# CHECK-NEXT: untouched function: live live
# CHECK: scf.for
# CHECK: vector.multi_reduction <add>
