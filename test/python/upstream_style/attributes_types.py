# RUN: %PYTHON %s | FileCheck %s
# Upstream-style program (imports renamed from `mlir`): typed attributes and
# types read back from parsed IR, with downcasting, and DenseElementsAttr
# buffers exchanged with numpy.

import numpy as np

from mlir_tracking.ir import *
from mlir_tracking.dialects import arith, func


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


# CHECK-LABEL: TEST: testInspectParsedIR
@run
def testInspectParsedIR():
    with Context():
        module = Module.parse(r"""
          func.func @weights() -> tensor<2x3xf32> attributes {
              tags = ["a", "b"], scale = 2.5 : f64, count = 7 : i16,
              flags = array<i32: 1, 2, 3>, enabled, ref = @other,
              shape = {rank = 2 : index}} {
            %w = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
            return %w : tensor<2x3xf32>
          }
        """)
        fn = module.body.operations[0]
        attrs = fn.attributes
        # CHECK: ArrayAttr ['a', 'b']
        tags = attrs["tags"]
        print(type(tags).__name__, [StringAttr(t).value for t in tags])
        # CHECK: FloatAttr 2.5 f64
        print(type(attrs["scale"]).__name__, attrs["scale"].value, attrs["scale"].type)
        # CHECK: IntegerAttr 7 i16 16
        count = attrs["count"]
        print(type(count).__name__, count.value, count.type, IntegerType(count.type).width)
        # CHECK: DenseI32ArrayAttr [1, 2, 3] 3
        print(type(attrs["flags"]).__name__, list(attrs["flags"]), len(attrs["flags"]))
        # CHECK: UnitAttr True
        print(type(attrs["enabled"]).__name__, "enabled" in attrs)
        # SymbolRefAttr and FlatSymbolRefAttr share a TypeID: a reference
        # without nested ones comes back as FlatSymbolRefAttr (as upstream's
        # caster does), a nested one as SymbolRefAttr.
        # CHECK: FlatSymbolRefAttr other ['other'] SymbolRefAttr ['a', 'b']
        print(type(attrs["ref"]).__name__, attrs["ref"].value,
              SymbolRefAttr(attrs["ref"]).value,
              type(Attribute.parse("@a::@b")).__name__,
              Attribute.parse("@a::@b").value)
        # CHECK: DictAttr 2 IndexType
        shape = attrs["shape"]
        print(type(shape).__name__, shape["rank"].value, type(shape["rank"].type).__name__)
        # CHECK: FunctionType [] [RankedTensorType(tensor<2x3xf32>)]
        ft = fn.type
        print(type(ft).__name__, ft.inputs, ft.results)

        const = fn.entry_block.operations[0]
        value = const.value
        # CHECK: DenseFPElementsAttr False 6 RankedTensorType(tensor<2x3xf32>)
        print(type(value).__name__, value.is_splat, len(value), repr(value.type))
        # CHECK: {{\[}}[1. 2. 3.]
        # CHECK:  [4. 5. 6.]] float32 (2, 3)
        arr = np.array(value)
        print(arr, arr.dtype, arr.shape)
        # CHECK: 5.0
        print(value[4])
        t = RankedTensorType(value.type)
        # CHECK: 2 [2, 3] F32Type True True
        print(t.rank, t.shape, type(t.element_type).__name__, t.has_static_shape,
              F32Type.isinstance(t.element_type))


# CHECK-LABEL: TEST: testBuildFromNumpy
@run
def testBuildFromNumpy():
    with Context(), Location.unknown():
        ints = np.arange(12, dtype=np.int32).reshape(3, 4)
        attr = DenseElementsAttr.get(ints)
        # CHECK: DenseIntElementsAttr dense<{{\[}}[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]> : tensor<3x4xi32>
        print(type(attr).__name__, attr)
        back = np.array(attr)
        # CHECK: True int32
        print(np.array_equal(back, ints), back.dtype)
        floats = DenseElementsAttr.get(np.array([0.5, 1.5], dtype=np.float64),
                                       type=F64Type.get())
        # CHECK: dense<[5.000000e-01, 1.500000e+00]> : tensor<2xf64>
        print(floats)
        splat = DenseElementsAttr.get_splat(
            RankedTensorType.get([2, 2], F32Type.get()), FloatAttr.get_f32(1.0))
        # CHECK: True dense<1.000000e+00> : tensor<2x2xf32>
        print(splat.is_splat, splat)
        bools = DenseElementsAttr.get(np.array([True, False, True]))
        # CHECK: dense<[true, false, true]> : tensor<3xi1>
        print(bools)
        module = Module.create()
        with InsertionPoint(module.body):

            @func.FuncOp.from_py_func()
            def table():
                return arith.constant(attr.type, attr)

        # CHECK: arith.constant dense<{{\[}}[0, 1, 2, 3]{{.*}}> : tensor<3x4xi32>
        print(module)
        # memoryview works without numpy, too.
        mv = memoryview(attr)
        # CHECK: i (3, 4) 11
        print(mv.format, mv.shape, mv[2, 3])


# CHECK-LABEL: TEST: testTypesAndCasts
@run
def testTypesAndCasts():
    with Context():
        t = Type.parse("tensor<?x4x!llvm.ptr>")
        # CHECK: RankedTensorType True [-9223372036854775808, 4] True
        print(type(t).__name__, t.is_dynamic_dim(0), t.shape, ShapedType.is_dynamic_size(t.shape[0]))
        c = ComplexType.get(F64Type.get())
        # CHECK: complex<f64> F64Type
        print(c, type(c.element_type).__name__)
        tup = TupleType.get_tuple([IndexType.get(), NoneType.get()])
        # CHECK: tuple<index, none> 2 NoneType
        print(tup, tup.num_types, type(tup.get_type(1)).__name__)
        try:
            IntegerType(F32Type.get())
        except ValueError as e:
            # CHECK: Cannot cast type to IntegerType (from Type(f32))
            print(e)
        i8 = IntegerType.get_unsigned(8)
        # CHECK: ui8 8 True False
        print(i8, i8.width, i8.is_unsigned, i8.is_signless)
        # CHECK: True True
        print(IntegerType.static_typeid == i8.typeid, Type(i8).maybe_downcast() == i8)
        u = UnrankedMemRefType.get(F16Type.get(), Attribute.parse("2"))
        # CHECK: memref<*xf16, 2> 2
        print(u, u.memory_space.value)
        fl = Float8E4M3FNType.get()
        # CHECK: f8E4M3FN 8
        print(fl, fl.width)
        o = OpaqueType.get("mydialect", "thing<1>", context=Context.current)
        # CHECK: !mydialect.thing<1> mydialect thing<1>
        print(o, o.dialect_namespace, o.data)


# CHECK-LABEL: TEST: testArraysFromAttributesAndShortTypes
@run
def testArraysFromAttributesAndShortTypes():
    import mlir_tracking.extras.types as T

    with Context(), Location.unknown():
        # Dense arrays from attributes of their element kind, as upstream.
        # CHECK: array<i8: 4, 2> array<f32: 4.000000e+00, 2.000000e+00> array<i1: true, false>
        print(DenseI8ArrayAttr.get([Attribute.parse(x) for x in ["4", "2"]]),
              DenseF32ArrayAttr.get([Attribute.parse(x) for x in ["4.0", "2.0"]]),
              DenseBoolArrayAttr.get([BoolAttr.get(True), BoolAttr.get(False)]))
        for bad in ([Attribute.parse("4000")], [Attribute.parse("2.0")]):
            try:
                DenseI8ArrayAttr.get(bad)
            except TypeError:
                # CHECK: TypeError
                # CHECK: TypeError
                print("TypeError")
        # i1 elements of a DenseIntElementsAttr are ints, as upstream.
        # CHECK: [1, 0, 1] 1
        bits = Attribute.parse("dense<[true, false, true]> : tensor<3xi1>")
        print(list(bits), bits[0])
        # CHECK: MemRefType(memref<2x3xf64, 1>) RankedTensorType(tensor<?x3xf64, "enc">)
        print(repr(T.memref(2, 3, T.f64(), memory_space=1)),
              repr(T.tensor(T.dynamic(), 3, T.f64(), encoding="enc")))
        # Types of the transform dialect come back as its classes.
        # CHECK: OperationType(!transform.op<"linalg.matmul">) linalg.matmul
        t = Type.parse('!transform.op<"linalg.matmul">')
        print(repr(t), t.operation_name)
