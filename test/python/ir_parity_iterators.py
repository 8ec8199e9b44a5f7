# RUN: %PYTHON %s | FileCheck %s
# Upstream parity: iter() of an op's regions, a region (or its blocks) and a
# block (or its operations) returns ir.RegionIterator, ir.BlockIterator and
# ir.OperationIterator (upstream ir/operation.py
# testTraverseOpRegionBlockIterators). Ours iterate over a snapshot taken
# when the iterator is made, so changing the IR while iterating is safe.

import gc

from mlir_tracking import ir


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    return f


SOURCE = """
func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  %1 = arith.muli %0, %a : i32
  %2 = arith.subi %1, %a : i32
  return %2 : i32
}
"""


# CHECK-LABEL: TEST: test_iterator_classes
@run
def test_iterator_classes():
    with ir.Context():
        m = ir.Module.parse(SOURCE)
        op = m.operation
        # CHECK: Region iter: <mlir_tracking.{{.+}}.RegionIterator
        print("Region iter:", repr(iter(op.regions)))
        # CHECK: Block iter: <mlir_tracking.{{.+}}.BlockIterator
        print("Block iter:", repr(iter(op.regions[-1])))
        # CHECK: Block list iter: <mlir_tracking.{{.+}}.BlockIterator
        print("Block list iter:", repr(iter(op.regions[-1].blocks)))
        # CHECK: Operation iter: <mlir_tracking.{{.+}}.OperationIterator
        print("Operation iter:", repr(iter(op.regions[-1].blocks[-1])))
        # CHECK: Operation list iter: <mlir_tracking.{{.+}}.OperationIterator
        print("Operation list iter:", repr(iter(m.body.operations)))
        # CHECK: classes: True True True
        print("classes:", isinstance(iter(op.regions), ir.RegionIterator),
              isinstance(iter(m.body.operations[0].regions[0]), ir.BlockIterator),
              isinstance(iter(m.body), ir.OperationIterator))
        # The iterator protocol: __iter__ is the iterator itself, __next__
        # walks, StopIteration at the end (and stays there).
        it = iter(m.body)
        # CHECK: self: True
        print("self:", iter(it) is it)
        # CHECK: next: func.func
        print("next:", next(it).operation.name)
        # CHECK: end: True True
        print("end:", next(it, None) is None, next(it, None) is None)
        # Sliced region sequences iterate over the slice.
        # CHECK: sliced: 0
        print("sliced:", len(list(iter(op.regions[1:]))))
        # Value.uses is upstream's OpOperandIterator (over a snapshot too).
        arg = m.body.operations[0].regions[0].blocks[0].arguments[0]
        uses = arg.uses
        # CHECK: uses: True True
        print("uses:", isinstance(uses, ir.OpOperandIterator), iter(uses) is uses)
        first = next(uses)
        # MLIR lists the newest use first.
        # CHECK: use: arith.subi 1
        print("use:", first.owner.operation.name, first.operand_number)


# CHECK-LABEL: TEST: test_iteration_while_changing
@run
def test_iteration_while_changing():
    with ir.Context(), ir.Location.unknown():
        m = ir.Module.parse(SOURCE)
        block = m.body.operations[0].regions[0].blocks[0]
        # Erasing the current op and the next one while iterating: the
        # snapshot goes on; the op erased ahead reads as an erased handle.
        seen = []
        for o in block:
            op = o.operation
            if not op.is_valid:
                seen.append("(erased: %s)" % op.handle_state)
                continue
            seen.append(op.name)
            if op.name == "arith.addi":
                mul = block.operations[1].operation
                sub = block.operations[2].operation
                sub.operands[0] = block.arguments[0]
                mul.operands[0] = block.arguments[0]
                mul.erase()
                op.erase()
        # CHECK: seen: ['arith.addi', '(erased: {{.*}})', 'arith.subi', 'func.return']
        print("seen:", seen)
        # Appending while iterating: the new op is not visited.
        names = []
        for o in m.body:
            names.append(o.operation.name)
            if len(names) == 1:
                with ir.InsertionPoint(m.body):
                    ir.Operation.create(
                        "func.func",
                        attributes={
                            "sym_name": ir.StringAttr.get("g"),
                            "sym_visibility": ir.StringAttr.get("private"),
                            "function_type": ir.TypeAttr.get(
                                ir.FunctionType.get([], [])),
                        },
                        regions=1)
        # CHECK: appended: ['func.func'] 2
        print("appended:", names, len(m.body.operations))
        # CHECK: valid: True
        m.operation.verify()
        print("valid:", m.operation.is_valid)
