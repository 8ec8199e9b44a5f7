# RUN: %PYTHON %s | FileCheck %s
# Upstream parity: Module identity through capsules (upstream
# ir/module.py testModuleCapsule: `Module._CAPICreate(m._CAPIPtr) is m`).

import gc

from mlir_tracking import ir


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    return f


# CHECK-LABEL: TEST: test_module_capsule_identity
@run
def test_module_capsule_identity():
    ctx = ir.Context()
    m = ir.Module.parse("module @a {}", ctx)
    dup = ir.Module._CAPICreate(m._CAPIPtr)
    # CHECK: same module: True
    print("same module:", dup is m)
    # CHECK: live modules: 1
    print("live modules:", ctx._get_live_module_count())
    # Two parses of distinct IR are distinct modules; each capsule comes
    # back as its own module.
    other = ir.Module.parse("module @b {}", ctx)
    # CHECK: distinct: True True True
    print("distinct:", other is not m,
          ir.Module._CAPICreate(other._CAPIPtr) is other,
          ir.Module._CAPICreate(m._CAPIPtr) is m)
    # A module dropped while its op lives on (held here): a later
    # _CAPICreate makes a new Module, which keeps the IR alive.
    capsule = m._CAPIPtr
    op = m.operation
    del m, dup
    gc.collect()
    # CHECK: live modules after drop: 1
    print("live modules after drop:", ctx._get_live_module_count())
    again = ir.Module._CAPICreate(capsule)
    # CHECK: same op: True
    print("same op:", again.operation is op)
    # CHECK: same again: True
    print("same again:", ir.Module._CAPICreate(capsule) is again)
    del op, capsule
    gc.collect()
    # CHECK: module @a {
    print(again)
    # CHECK: valid: True
    print("valid:", again.operation.is_valid)
    # Once every object of the first module is gone, its IR is freed and a
    # new parse may reuse the address: the new Module is a new object.
    capsule = again._CAPIPtr
    del again
    gc.collect()
    try:
        ir.Module._CAPICreate(capsule)
    except ir.InvalidatedHandleError as e:
        # CHECK: stale capsule: True
        print("stale capsule:", "the capsule's op is gone" in str(e))
    fresh = [ir.Module.parse("module @c {}", ctx) for _ in range(4)]
    # CHECK: fresh distinct: True
    print("fresh distinct:", len({id(f) for f in fresh}) == 4 and
          all(ir.Module._CAPICreate(f._CAPIPtr) is f for f in fresh))
    del fresh, other
    gc.collect()
    # CHECK: live modules at end: 0
    print("live modules at end:", ctx._get_live_module_count())
