# RUN: %PYTHON %s | FileCheck %s
# Identity of Python objects across rewrites: `==`/`hash` of operations never
# change (CSE merges), blocks and regions are never aliased by new IR at a
# reused address, values follow their SSA value (never another one by
# position), and IR is never rewired or freed under a use.

import gc

from mlir_tracking import ir
from mlir_tracking.passmanager import PassManager


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    return f


def body(func):
    return list(func.regions[0].blocks[0].operations)


def expect(error_type, fn):
    try:
        fn()
    except error_type as error:
        print(f"{error_type.__name__}: {error}")
        return
    print(f"no {error_type.__name__}")


# CHECK-LABEL: TEST: test_merged_handles_in_dict_and_set
@run
def test_merged_handles_in_dict_and_set():
    with ir.Context():
        module = ir.Module.parse("""
          func.func @f(%a: i32, %b: i32) -> (i32, i32, i32) {
            %0 = arith.addi %a, %b : i32
            %1 = arith.addi %a, %b : i32
            %2 = arith.muli %a, %b : i32
            return %0, %1, %2 : i32, i32, i32
          }""")
        first, second, muli, ret = body(module.body.operations[0])
        names = {first: "first", second: "second", muli: "muli"}
        held = {first, second, muli}
        hashes = [hash(op) for op in (first, second, muli)]
        PassManager.parse("builtin.module(cse)").run(module)
        # Before the fix, `second` hashed like `first` after the merge: the
        # dict lookup missed and the set held two "equal" elements.
        # CHECK: second first 3 True
        print(names[second], names[first], len(held),
              hashes == [hash(op) for op in (first, second, muli)])
        # CHECK: True True False False
        print(second in held, first.same_op(second), first == second,
              first.same_op(muli))
        # The op's own handle is what every path to the op returns.
        # CHECK: True True True
        print(second.canonical_handle is first.operation,
              ret.operands[1].owner is first,
              second.canonical_handle.same_op(second))
        # same_op accepts a Module (its operation) and rejects other objects.
        # CHECK: True False
        print(module.operation.same_op(module), first.same_op(module))
        expect(TypeError, lambda: first.same_op(3))


# CHECK-LABEL: TEST: test_same_op_when_not_live
@run
def test_same_op_when_not_live():
    with ir.Context():
        module = ir.Module.parse("""
          func.func @f(%a: i32, %b: i32) -> i32 {
            %0 = arith.addi %a, %b : i32
            %1 = arith.addi %a, %b : i32
            %2 = arith.muli %0, %1 : i32
            return %a : i32
          }""")
        first, second, muli, ret = body(module.body.operations[0])
        key = hash(second)
        PassManager.parse("builtin.module(cse,canonicalize)").run(module)
        # Both erased (dead code) after the merge: still the same op, hash
        # unchanged; canonical_handle raises.
        # CHECK: erased erased True True
        print(first.handle_state, second.handle_state, first.same_op(second),
              hash(second) == key)
        # CHECK: InvalidatedHandleError: operation handle to 'arith.addi'
        expect(ir.InvalidatedHandleError, lambda: second.canonical_handle)
