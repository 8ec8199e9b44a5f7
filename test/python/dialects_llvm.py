# RUN: %PYTHON %s | FileCheck %s
# dialects.llvm's additions (upstream's, in our words): StructType and
# PointerType as the types' classes, and mlir_constant(value).

from mlir_tracking import ir
from mlir_tracking.dialects import llvm


def error(f):
    try:
        f()
        return "no error"
    except Exception as e:
        return f"{type(e).__name__}: {e}"


with ir.Context(), ir.Location.unknown():
    i8, i32 = ir.IntegerType.get_signless(8), ir.IntegerType.get_signless(32)
    literal = llvm.StructType.get_literal([i8, i32])
    # CHECK: !llvm.struct<(i8, i32)> !llvm.struct<packed (i32)> None False [IntegerType(i8), IntegerType(i32)]
    print(literal, llvm.StructType.get_literal([i32], packed=True), literal.name,
          literal.opaque, literal.body)
    # CHECK-NEXT: True True
    print(literal == llvm.StructType.get_literal([i8, i32]),
          type(ir.Type.parse("!llvm.struct<(i8)>")).__name__ == "StructType")

    node = llvm.StructType.get_identified("node")
    # CHECK-NEXT: !llvm.struct<"node", opaque> node None True
    print(node, node.name, node.body, node.opaque)
    # A recursive body: the struct refers to itself through a pointer.
    node.set_body([i32, llvm.PointerType.get()])
    # CHECK-NEXT: !llvm.struct<"node", (i32, ptr)> False
    print(llvm.StructType.get_identified("node"), node.opaque)
    node.set_body([i32, llvm.PointerType.get()])  # the same body again
    # CHECK-NEXT: ValueError: struct body already set to different content: !llvm.struct<"node", (i32, ptr)>
    print(error(lambda: node.set_body([i32])))
    # CHECK-NEXT: ValueError: only identified structs have a body to set; this one is literal
    print(error(lambda: literal.set_body([i32])))
    # CHECK-NEXT: ValueError: invalid LLVM structure element type: !llvm.void
    print(error(lambda: llvm.StructType.get_literal([ir.Type.parse("!llvm.void")])))
    fresh = llvm.StructType.new_identified("node", [i8])
    # CHECK-NEXT: True !llvm.struct<"opaque_one", opaque>
    print(fresh.name != "node", llvm.StructType.get_opaque("opaque_one"))

    # CHECK-NEXT: !llvm.ptr !llvm.ptr<3> 3 PointerType
    far = llvm.PointerType.get(3)
    print(llvm.PointerType.get(), far, far.address_space,
          type(ir.Type.parse("!llvm.ptr<3>")).__name__)

    other = ir.Context()
    # CHECK-NEXT: ValueError: cannot make
    print(error(lambda: llvm.StructType.get_literal(
        [ir.IntegerType.get_signless(8, context=other)]))[:23])

    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        c = llvm.mlir_constant(ir.IntegerAttr.get(i32, 128))
        d = llvm.mlir_constant(i8, ir.IntegerAttr.get(i8, 1))
    # CHECK-NEXT: llvm.mlir.constant(128 : i32) : i32
    # CHECK-NEXT: llvm.mlir.constant(1 : i8) : i8
    print(str(c.owner).split(" = ")[1])
    print(str(d.owner).split(" = ")[1])
