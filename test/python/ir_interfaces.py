# RUN: %PYTHON %s | FileCheck %s
# Upstream parity: ir.InferTypeOpInterface, ir.InferShapedTypeOpInterface and
# ir.ShapedTypeComponents (upstream lib/Bindings/Python/IRInterfaces.cpp;
# the dialect-free parts of upstream's python_test.py), with upstream
# dialect ops: arith.addi infers its result type, tosa.add its shaped
# components.

import gc

from mlir_tracking import ir
from mlir_tracking.dialects import arith, tosa


def run(f):
    print("\nTEST:", f.__name__)
    f()
    gc.collect()
    return f


SOURCE = """
func.func @f(%a: i32, %t: tensor<2x3xf32>, %u: tensor<1x3xf32>) -> i32 {
  %0 = arith.addi %a, %a : i32
  %1 = tosa.add %t, %u : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return %0 : i32
}
"""


def parse():
    m = ir.Module.parse(SOURCE)
    func = m.body.operations[0]
    block = func.regions[0].blocks[0]
    return m, block


# CHECK-LABEL: TEST: test_infer_type_op_interface
@run
def test_infer_type_op_interface():
    with ir.Context() as ctx, ir.Location.unknown():
        m, block = parse()
        addi = block.operations[0]
        a = block.arguments[0]
        iface = ir.InferTypeOpInterface(addi)
        # CHECK: operation: True arith.addi
        print("operation:", iface.operation is addi.operation,
              iface.opview.operation.name)
        # CHECK: from op: [IntegerType(i32)]
        print("from op:", iface.inferReturnTypes(operands=[a, a]))
        # From an Operation, an OpView subclass or a name: the same.
        # CHECK: from Operation: [IntegerType(i32)]
        print("from Operation:", ir.InferTypeOpInterface(addi.operation)
              .inferReturnTypes(operands=[a, a]))
        static = ir.InferTypeOpInterface(arith.AddIOp)
        # CHECK: from class: [IntegerType(i32)]
        print("from class:", static.inferReturnTypes(operands=[a, a], context=ctx))
        # Operands may be given as a sequence of values.
        # CHECK: from name: [IntegerType(i32)]
        print("from name:", ir.InferTypeOpInterface("arith.addi", ctx)
              .inferReturnTypes(operands=[[a, a]]))
        # A static interface has no operation, as upstream.
        for prop in ("operation", "opview"):
            try:
                getattr(static, prop)
            except TypeError as e:
                # CHECK: TypeError: Cannot get an operation from a static interface
                # CHECK: TypeError: Cannot get an opview from a static interface
                print("TypeError:", e)
        # Attributes are inherent attributes (turned into properties).
        t = block.arguments[1]
        cmpi = ir.InferTypeOpInterface("arith.cmpi").inferReturnTypes(
            operands=[a, a],
            attributes=ir.DictAttr.get({"predicate": ir.IntegerAttr.get(
                ir.IntegerType.get_signless(64), 0)}))
        # CHECK: cmpi: [IntegerType(i1)]
        print("cmpi:", cmpi)
        # Ops that do not implement it: upstream's ValueError.
        for what in (block.operations[2], "func.return", block.operations[1]):
            try:
                ir.InferTypeOpInterface(what)
            except ValueError as e:
                # CHECK: ValueError: the operation does not implement InferTypeOpInterface (operation 'func.return')
                # CHECK: ValueError: the operation does not implement InferTypeOpInterface (operation 'func.return')
                # CHECK: ValueError: the operation does not implement InferTypeOpInterface (operation 'tosa.add')
                print("ValueError:", e)
        try:
            ir.InferTypeOpInterface(42)
        except TypeError as e:
            # CHECK: TypeError: Op interface does not refer to an operation or OpView class
            print("TypeError:", e)
        # Operands the op does not accept: ValueError, never a crash.
        for operands in ([a, t], [a], [a, 3]):
            try:
                iface.inferReturnTypes(operands=operands)
            except ValueError as e:
                # CHECK: ValueError: Failed to infer result types: the operands or attributes of "arith.addi" do not satisfy its constraints: 'arith.addi' op operand #1 must be signless-integer-like, but got 'tensor<2x3xf32>'
                # CHECK: ValueError: Failed to infer result types: the operands or attributes of "arith.addi" do not satisfy its constraints: 'arith.addi' op expected 2 operands, but found 1
                # CHECK: ValueError: Operand 1 must be a Value or Sequence of Values (got int)
                print("ValueError:", e)
        try:
            iface.inferReturnTypes(operands=[a, a], properties=object())
        except ValueError as e:
            # CHECK: ValueError: properties= is not supported
            print("ValueError:", e)


# CHECK-LABEL: TEST: test_infer_shaped_type_op_interface
@run
def test_infer_shaped_type_op_interface():
    with ir.Context() as ctx, ir.Location.unknown():
        m, block = parse()
        add = block.operations[1]
        t, u = block.arguments[1], block.arguments[2]
        iface = ir.InferShapedTypeOpInterface(add)
        # CHECK: operation: tosa.add
        print("operation:", iface.operation.name)
        components = iface.inferReturnTypeComponents(operands=[t, u])
        c = components[0]
        # tosa.add infers the shape only (MLIR leaves the element type unset).
        # CHECK: components: 1 True 2 [2, 3] None
        print("components:", len(components), c.has_rank, c.rank, c.shape,
              c.element_type)
        # CHECK: static: [2, 3]
        print("static:", ir.InferShapedTypeOpInterface(tosa.AddOp)
              .inferReturnTypeComponents(operands=[t, u], context=ctx)[0].shape)
        for what in (block.operations[0], "arith.addi"):
            try:
                ir.InferShapedTypeOpInterface(what)
            except ValueError as e:
                # CHECK: ValueError: the operation does not implement InferShapedTypeOpInterface (operation 'arith.addi')
                # CHECK: ValueError: the operation does not implement InferShapedTypeOpInterface (operation 'arith.addi')
                print("ValueError:", e)
        try:
            iface.inferReturnTypeComponents(operands=[t, block.arguments[0]])
        except ValueError as e:
            # CHECK: ValueError: Failed to infer result shape type components: the operands or attributes of "tosa.add" do not satisfy its constraints: 'tosa.add' op operand #1 must be tosa-conformant tensor of number values, but got 'i32'
            print("ValueError:", e)


# CHECK-LABEL: TEST: test_shaped_type_components
@run
def test_shaped_type_components():
    with ir.Context():
        f32 = ir.F32Type.get()
        unranked = ir.ShapedTypeComponents.get(f32)
        # CHECK: unranked: False None None f32
        print("unranked:", unranked.has_rank, unranked.rank, unranked.shape,
              unranked.element_type)
        ranked = ir.ShapedTypeComponents.get([2, 3], f32)
        # CHECK: ranked: True 2 [2, 3] f32
        print("ranked:", ranked.has_rank, ranked.rank, ranked.shape,
              ranked.element_type)
        with_attr = ir.ShapedTypeComponents.get([4], f32, ir.StringAttr.get("e"))
        # CHECK: with attribute: True 1 [4]
        print("with attribute:", with_attr.has_rank, with_attr.rank, with_attr.shape)
