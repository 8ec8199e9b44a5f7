# RUN: %PYTHON %s | FileCheck %s
# The linalg OpDSL (mlir_tracking.dialects.linalg.opdsl.lang): ops defined in
# Python and emitted as linalg.generic (indexing maps, iterator types, a body
# whose arith/math ops follow the element types) or as the named op; and the
# errors of definitions and calls.

from mlir_tracking.dialects import arith, func, memref, tensor
from mlir_tracking.dialects.linalg.opdsl.lang import *
from mlir_tracking.ir import (ComplexType, Context, F16Type, F32Type, F64Type,
                              InsertionPoint, IntegerType, Location,
                              MemRefType, Module, RankedTensorType)


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


def error(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001
        print(f"{type(e).__name__}: {e}")
    else:
        print("no error")


def emit(build):
    """Builds funcs into a new module with `build(types)`, verifies and
    prints it."""
    with Context(), Location.unknown():
        module = Module.create()
        types = dict(f16=F16Type.get(), f32=F32Type.get(), f64=F64Type.get(),
                     i1=IntegerType.get_signless(1),
                     i8=IntegerType.get_signless(8),
                     i16=IntegerType.get_signless(16),
                     i32=IntegerType.get_signless(32))
        with InsertionPoint(module.body):
            build(types)
        print("verifies:", module.operation.verify())
        print(module)


def tensor_of(shape, element):
    return RankedTensorType.get(shape, element)


@linalg_structured_op
def matmul_same(A=TensorDef(T, S.M, S.K), B=TensorDef(T, S.K, S.N),
                C=TensorDef(T, S.M, S.N, output=True)):
    domain(D.m, D.n, D.k)
    C[D.m, D.n] += A[D.m, D.k] * B[D.k, D.n]


@linalg_structured_op
def matmul_cast(A=TensorDef(T1, S.M, S.K), B=TensorDef(T2, S.K, S.N),
                C=TensorDef(U, S.M, S.N, output=True),
                cast=TypeFnAttrDef(default=TypeFn.cast_signed)):
    domain(D.m, D.n, D.k)
    C[D.m, D.n] += cast(U, A[D.m, D.k]) * cast(U, B[D.k, D.n])


# CHECK-LABEL: TEST: test_matmul
@run
def test_matmul():
    def build(t):
        f32 = t["f32"]

        @func.FuncOp.from_py_func(tensor_of((4, 16), f32),
                                  tensor_of((16, 8), f32))
        def mm_f32(a, b):
            init = tensor.EmptyOp([4, 8], f32)
            return matmul_same(a, b, outs=[init.result])

        # One function per (A, B, C) element types and cast.
        cases = [("i8", "i8", "i32", None), ("i8", "i8", "i32", "unsigned"),
                 ("i8", "i16", "i32", None), ("i32", "i32", "i16", None),
                 ("i8", "i8", "f32", None), ("i8", "i8", "f32", "unsigned"),
                 ("f16", "f16", "f32", None), ("f64", "f64", "f32", None)]
        for a, b, c, cast in cases:
            name = f"mm_{a}_{b}_{c}" + (f"_{cast}" if cast else "")
            kwargs = {"cast": TypeFn.cast_unsigned} if cast else {}

            def body(x, y, z, kwargs=kwargs):
                return matmul_cast(x, y, outs=[z], **kwargs)

            body.__name__ = name
            func.FuncOp.from_py_func(tensor_of((4, 16), t[a]),
                                     tensor_of((16, 8), t[b]),
                                     tensor_of((4, 8), t[c]))(body)

    emit(build)


# CHECK: verifies: True
# CHECK-DAG: #[[MM_A:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
# CHECK-DAG: #[[MM_B:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
# CHECK-DAG: #[[MM_C:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
# CHECK-LABEL: func.func @mm_f32(
# CHECK-SAME: %[[A:.+]]: tensor<4x16xf32>, %[[B:.+]]: tensor<16x8xf32>)
# CHECK: %[[INIT:.+]] = tensor.empty() : tensor<4x8xf32>
# CHECK: linalg.generic {indexing_maps = [#[[MM_A]], #[[MM_B]], #[[MM_C]]], iterator_types = ["parallel", "parallel", "reduction"]}
# CHECK-SAME: ins(%[[A]], %[[B]] : tensor<4x16xf32>, tensor<16x8xf32>) outs(%[[INIT]] : tensor<4x8xf32>)
# CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %[[ACC:.+]]: f32):
# CHECK-NEXT:   %[[P:.+]] = arith.mulf %[[X]], %[[Y]] : f32
# CHECK-NEXT:   %[[S:.+]] = arith.addf %[[ACC]], %[[P]] : f32
# CHECK-NEXT:   linalg.yield %[[S]] : f32
# CHECK-LABEL: func.func @mm_i8_i8_i32(
# CHECK: ^bb0(%[[X:.+]]: i8, %[[Y:.+]]: i8, %[[ACC:.+]]: i32):
# CHECK-NEXT:   %[[XC:.+]] = arith.extsi %[[X]] : i8 to i32
# CHECK-NEXT:   %[[YC:.+]] = arith.extsi %[[Y]] : i8 to i32
# CHECK-NEXT:   %[[P:.+]] = arith.muli %[[XC]], %[[YC]] : i32
# CHECK-NEXT:   %[[S:.+]] = arith.addi %[[ACC]], %[[P]] : i32
# CHECK-NEXT:   linalg.yield %[[S]] : i32
# CHECK-NEXT: } -> tensor<4x8xi32>
# CHECK-LABEL: func.func @mm_i8_i8_i32_unsigned(
# CHECK: arith.extui %{{.+}} : i8 to i32
# CHECK-NEXT: arith.extui %{{.+}} : i8 to i32
# CHECK-LABEL: func.func @mm_i8_i16_i32(
# CHECK: arith.extsi %{{.+}} : i8 to i32
# CHECK-NEXT: arith.extsi %{{.+}} : i16 to i32
# CHECK-LABEL: func.func @mm_i32_i32_i16(
# CHECK: arith.trunci %{{.+}} : i32 to i16
# CHECK-NEXT: arith.trunci %{{.+}} : i32 to i16
# CHECK-NEXT: arith.muli %{{.+}}, %{{.+}} : i16
# CHECK-LABEL: func.func @mm_i8_i8_f32(
# CHECK: arith.sitofp %{{.+}} : i8 to f32
# CHECK-NEXT: arith.sitofp %{{.+}} : i8 to f32
# CHECK-NEXT: arith.mulf
# CHECK-LABEL: func.func @mm_i8_i8_f32_unsigned(
# CHECK: arith.uitofp %{{.+}} : i8 to f32
# CHECK-NEXT: arith.uitofp %{{.+}} : i8 to f32
# CHECK-LABEL: func.func @mm_f16_f16_f32(
# CHECK: arith.extf %{{.+}} : f16 to f32
# CHECK-NEXT: arith.extf %{{.+}} : f16 to f32
# CHECK-LABEL: func.func @mm_f64_f64_f32(
# CHECK: arith.truncf %{{.+}} : f64 to f32
# CHECK-NEXT: arith.truncf %{{.+}} : f64 to f32
# CHECK-NEXT: arith.mulf %{{.+}}, %{{.+}} : f32


@linalg_structured_op
def dot(A=TensorDef(T, S.M), B=TensorDef(T, S.M), C=TensorDef(U, output=True)):
    C[None] += TypeFn.cast_signed(U, A[D.m]) * TypeFn.cast_signed(U, B[D.m])


@linalg_structured_op
def row_stats(X=TensorDef(T, S.R, S.C), Total=TensorDef(T, S.R, output=True),
              Peak=TensorDef(T, S.R, output=True)):
    # No domain(): the dimensions are ordered by name (c, r).
    Total[D.r] += X[D.r, D.c]
    Peak[D.r] = ReduceFn.max_signed[D.c](X[D.r, D.c])


# CHECK-LABEL: TEST: test_reductions
@run
def test_reductions():
    def build(t):
        @func.FuncOp.from_py_func(tensor_of((8,), t["i8"]),
                                  tensor_of((8,), t["i8"]),
                                  tensor_of((), t["i32"]))
        def dot_i8(a, b, c):
            return dot(a, b, outs=[c], emit_generic=True)

        @func.FuncOp.from_py_func(tensor_of((8,), t["i8"]),
                                  tensor_of((8,), t["i8"]),
                                  tensor_of((), t["i32"]))
        def dot_named(a, b, c):
            # `dot` is also a built-in op's name: that op is built.
            return dot(a, b, outs=[c])

        @func.FuncOp.from_py_func(tensor_of((4, 8), t["f32"]),
                                  tensor_of((4,), t["f32"]),
                                  tensor_of((4,), t["f32"]))
        def stats(x, total, peak):
            return row_stats(x, outs=[total, peak])

    print(row_stats.structure.dims, row_stats.structure.iterator_types)
    emit(build)


# CHECK: [D.c, D.r] ['reduction', 'parallel']
# CHECK: verifies: True
# CHECK-DAG: #[[VEC:.+]] = affine_map<(d0) -> (d0)>
# CHECK-DAG: #[[SCALAR:.+]] = affine_map<(d0) -> ()>
# CHECK-DAG: #[[X:.+]] = affine_map<(d0, d1) -> (d1, d0)>
# CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d1)>
# CHECK-LABEL: func.func @dot_i8(
# CHECK: linalg.generic {indexing_maps = [#[[VEC]], #[[VEC]], #[[SCALAR]]], iterator_types = ["reduction"]}
# CHECK: arith.extsi
# CHECK: arith.extsi
# CHECK: arith.muli
# CHECK: arith.addi
# CHECK: -> tensor<i32>
# CHECK-LABEL: func.func @dot_named(
# CHECK: linalg.dot ins(%{{.+}}, %{{.+}} : tensor<8xi8>, tensor<8xi8>) outs(%{{.+}} : tensor<i32>) -> tensor<i32>
# CHECK-LABEL: func.func @stats(
# CHECK: %[[R:.+]]:2 = linalg.generic {indexing_maps = [#[[X]], #[[ROW]], #[[ROW]]], iterator_types = ["reduction", "parallel"]}
# CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %[[TOTAL:.+]]: f32, %[[PEAK:.+]]: f32):
# CHECK-NEXT:   %[[SUM:.+]] = arith.addf %[[TOTAL]], %[[IN]] : f32
# CHECK-NEXT:   %[[MAX:.+]] = arith.maximumf %[[PEAK]], %[[IN]] : f32
# CHECK-NEXT:   linalg.yield %[[SUM]], %[[MAX]] : f32, f32
# CHECK: return %[[R]]#0, %[[R]]#1


@linalg_structured_op
def fill_cast(value=ScalarDef(T1), O=TensorDef(U, output=True)):
    O[None] = TypeFn.cast_signed(U, value)


@linalg_structured_op
def fill_from_tensor(I=TensorDef(T1), O=TensorDef(U, output=True)):
    O[None] = TypeFn.cast_signed(U, I[None])


# CHECK-LABEL: TEST: test_fill
@run
def test_fill():
    def build(t):
        f32 = t["f32"]

        @func.FuncOp.from_py_func(f32, tensor_of((), f32))
        def fill_0d(v, o):
            return fill_cast(v, outs=[o])

        @func.FuncOp.from_py_func(t["i8"], tensor_of((4, 16), f32))
        def fill_2d_i8(v, o):
            return fill_cast(v, outs=[o])

        @func.FuncOp.from_py_func(tensor_of((), f32), tensor_of((4, 8, 16), f32))
        def fill_3d_from_0d(v, o):
            return fill_from_tensor(v, outs=[o])

        @func.FuncOp.from_py_func(tensor_of((4, 8), f32), tensor_of((4, 8), t["f64"]))
        def copy_2d(v, o):
            return fill_from_tensor(v, outs=[o])

    emit(build)


# CHECK: verifies: True
# CHECK-DAG: #[[M0:.+]] = affine_map<() -> ()>
# CHECK-DAG: #[[M2S:.+]] = affine_map<(d0, d1) -> ()>
# CHECK-DAG: #[[M2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
# CHECK-DAG: #[[M3S:.+]] = affine_map<(d0, d1, d2) -> ()>
# CHECK-DAG: #[[M3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
# CHECK-LABEL: func.func @fill_0d(
# CHECK: linalg.generic {indexing_maps = [#[[M0]], #[[M0]]], iterator_types = []}
# CHECK-NEXT: ^bb0(%[[V:.+]]: f32, %{{.+}}: f32):
# CHECK-NEXT:   linalg.yield %[[V]] : f32
# CHECK-LABEL: func.func @fill_2d_i8(
# CHECK: linalg.generic {indexing_maps = [#[[M2S]], #[[M2]]], iterator_types = ["parallel", "parallel"]}
# CHECK: arith.sitofp %{{.+}} : i8 to f32
# CHECK-LABEL: func.func @fill_3d_from_0d(
# CHECK: linalg.generic {indexing_maps = [#[[M3S]], #[[M3]]], iterator_types = ["parallel", "parallel", "parallel"]}
# CHECK-SAME: ins(%{{.+}} : tensor<f32>)
# CHECK-LABEL: func.func @copy_2d(
# CHECK: linalg.generic {indexing_maps = [#[[M2]], #[[M2]]]
# CHECK: arith.extf %{{.+}} : f32 to f64


@linalg_structured_op
def conv_hw(I=TensorDef(T1, S.N, S.IH, S.IW, S.C), K=TensorDef(T2, S.KH, S.KW, S.C),
            O=TensorDef(U, S.N, S.OH, S.OW, S.C, output=True),
            strides=IndexAttrDef(S.SH, S.SW, default=[1, 1]),
            dilations=IndexAttrDef(S.DH, S.DW, default=[1, 2])):
    domain(D.n, D.oh, D.ow, D.kh, D.kw, D.c)
    O[D.n, D.oh, D.ow, D.c] += TypeFn.cast_signed(
        U, I[D.n, D.oh * S.SH + D.kh * S.DH, D.ow * S.SW + D.kw * S.DW, D.c]
    ) * TypeFn.cast_signed(U, K[D.kh, D.kw, D.c])


# CHECK-LABEL: TEST: test_convolution
@run
def test_convolution():
    def build(t):
        @func.FuncOp.from_py_func(tensor_of((1, 4, 16, 1), t["f32"]),
                                  tensor_of((2, 2, 1), t["f32"]),
                                  tensor_of((1, 2, 4, 1), t["i32"]))
        def conv_strided(i, k, o):
            # Strides given, dilations left at their default [1, 2].
            return conv_hw(i, k, outs=[o], strides=[2, 4])

        @func.FuncOp.from_py_func(tensor_of((1, 4, 16, 1), t["f32"]),
                                  tensor_of((2, 2, 1), t["f32"]),
                                  tensor_of((1, 2, 4, 1), t["f32"]))
        def conv_dilated(i, k, o):
            return conv_hw(i, k, outs=[o], dilations=[2, 1])

    emit(build)


# CHECK: verifies: True
# CHECK-DAG: #[[IN_S:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d3, d2 * 4 + d4 * 2, d5)>
# CHECK-DAG: #[[IN_D:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 + d3 * 2, d2 + d4, d5)>
# CHECK-DAG: #[[FILTER:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d4, d5)>
# CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>
# CHECK-LABEL: func.func @conv_strided(
# CHECK: linalg.generic {indexing_maps = [#[[IN_S]], #[[FILTER]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
# CHECK-NEXT: ^bb0(%[[I:.+]]: f32, %[[K:.+]]: f32, %[[O:.+]]: i32):
# CHECK-NEXT:   %[[IC:.+]] = arith.fptosi %[[I]] : f32 to i32
# CHECK-NEXT:   %[[KC:.+]] = arith.fptosi %[[K]] : f32 to i32
# CHECK-NEXT:   %[[P:.+]] = arith.muli %[[IC]], %[[KC]] : i32
# CHECK-NEXT:   %[[S:.+]] = arith.addi %[[O]], %[[P]] : i32
# CHECK-NEXT:   linalg.yield %[[S]] : i32
# CHECK-LABEL: func.func @conv_dilated(
# CHECK: linalg.generic {indexing_maps = [#[[IN_D]], #[[FILTER]], #[[OUT]]]


@linalg_structured_op
def pool_hw(I=TensorDef(T1, S.N, S.H, S.W, S.C),
            K=TensorDef(T2, S.KH, S.KW, index_dims=[D.kh, D.kw]),
            O=TensorDef(U, S.N, S.OH, S.OW, S.C, output=True),
            reduce=BinaryFnAttrDef(default=BinaryFn.max_signed),
            cast=TypeFnAttrDef(default=TypeFn.cast_signed),
            strides=IndexAttrDef(S.SH, S.SW, default=[1, 1]),
            dilations=IndexAttrDef(S.DH, S.DW, default=[1, 1])):
    domain(D.n, D.oh, D.ow, D.kh, D.kw, D.c)
    O[D.n, D.oh, D.ow, D.c] = reduce[D.kh, D.kw](
        cast(U, I[D.n, D.oh * S.SH + D.kh * S.DH, D.ow * S.SW + D.kw * S.DW, D.c]))


# CHECK-LABEL: TEST: test_pooling
@run
def test_pooling():
    def build(t):
        cases = [("max", "i32", {}),
                 ("max_u", "i32", dict(reduce=BinaryFn.max_unsigned,
                                       cast=TypeFn.cast_unsigned)),
                 ("max_f", "f32", {}),
                 ("min", "i32", dict(reduce=BinaryFn.min_signed)),
                 ("min_u", "i32", dict(reduce=BinaryFn.min_unsigned,
                                       cast=TypeFn.cast_unsigned)),
                 ("min_f", "f32", dict(reduce=BinaryFn.min_signed))]
        for name, out, kwargs in cases:
            def body(i, window, o, kwargs=kwargs):
                return pool_hw(i, window, outs=[o], strides=[2, 4],
                               dilations=[1, 2], **kwargs)

            body.__name__ = f"pool_{name}"
            func.FuncOp.from_py_func(tensor_of((1, 4, 16, 1), t["f32"]),
                                     tensor_of((2, 2), t["f32"]),
                                     tensor_of((1, 2, 4, 1), t[out]))(body)

    emit(build)


# CHECK: verifies: True
# CHECK-DAG: #[[PIN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d3, d2 * 4 + d4 * 2, d5)>
# CHECK-DAG: #[[PWIN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d4)>
# CHECK-DAG: #[[POUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>
# CHECK-LABEL: func.func @pool_max(
# CHECK: linalg.generic {indexing_maps = [#[[PIN]], #[[PWIN]], #[[POUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
# CHECK-NEXT: ^bb0(%[[I:.+]]: f32, %{{.+}}: f32, %[[O:.+]]: i32):
# CHECK-NEXT:   %[[IC:.+]] = arith.fptosi %[[I]] : f32 to i32
# CHECK-NEXT:   %[[M:.+]] = arith.maxsi %[[O]], %[[IC]] : i32
# CHECK-NEXT:   linalg.yield %[[M]] : i32
# CHECK-LABEL: func.func @pool_max_u(
# CHECK: arith.fptoui
# CHECK-NEXT: arith.maxui
# CHECK-LABEL: func.func @pool_max_f(
# CHECK: ^bb0(%[[I:.+]]: f32, %{{.+}}: f32, %[[O:.+]]: f32):
# CHECK-NEXT:   %[[M:.+]] = arith.maximumf %[[O]], %[[I]] : f32
# CHECK-LABEL: func.func @pool_min(
# CHECK: arith.fptosi
# CHECK-NEXT: arith.minsi
# CHECK-LABEL: func.func @pool_min_u(
# CHECK: arith.fptoui
# CHECK-NEXT: arith.minui
# CHECK-LABEL: func.func @pool_min_f(
# CHECK: arith.minimumf


@linalg_structured_op
def iota_sum(O=TensorDef(I32, S.M, S.N, output=True)):
    O[D.m, D.n] = TypeFn.cast_signed(I32, index(D.n)) + TypeFn.cast_signed(
        I32, index(D.m))


@linalg_structured_op
def constants(O=TensorDef(F32, S.M, S.N, output=True)):
    O[D.m, D.n] = TypeFn.cast_unsigned(F32, const(42)) + TypeFn.cast_signed(
        F32, const(0.5))


@linalg_structured_op
def unary_poly(I=TensorDef(T), O=TensorDef(U, output=True),
               fun=UnaryFnAttrDef(default=UnaryFn.exp),
               cast=TypeFnAttrDef(default=TypeFn.cast_signed)):
    O[None] = fun(cast(U, I[None]))


@linalg_structured_op
def binary_poly(A=TensorDef(T, S.M), B=TensorDef(T, S.M),
                O=TensorDef(T, S.M, output=True),
                fun=BinaryFnAttrDef(default=BinaryFn.add)):
    O[D.m] = fun(A[D.m], B[D.m])


@linalg_structured_op
def choose(C=TensorDef(TV.Cond, S.M), A=TensorDef(T, S.M),
           O=TensorDef(T, S.M, output=True)):
    O[D.m] = TernaryFn.select(C[D.m], A[D.m] / A[D.m] - A[D.m], A[D.m])


# CHECK-LABEL: TEST: test_index_const_and_attribute_overrides
@run
def test_index_const_and_attribute_overrides():
    def build(t):
        f32 = t["f32"]

        @func.FuncOp.from_py_func(tensor_of((4, 16), t["i32"]))
        def iota(o):
            return iota_sum(outs=[o])

        @func.FuncOp.from_py_func(tensor_of((4, 16), f32))
        def consts(o):
            return constants(outs=[o])

        for fn in ("exp", "log", "abs", "ceil", "floor", "negf", "sqrt",
                   "tanh", "reciprocal", "square"):
            def body(i, o, fn=fn):
                return unary_poly(i, outs=[o], fun=getattr(UnaryFn, fn))

            body.__name__ = f"unary_{fn}"
            func.FuncOp.from_py_func(tensor_of((4, 16), f32),
                                     tensor_of((4, 16), f32))(body)

        @func.FuncOp.from_py_func(tensor_of((4, 16), t["i8"]),
                                  tensor_of((4, 16), f32))
        def unary_unsigned(i, o):
            return unary_poly(i, outs=[o], cast=TypeFn.cast_unsigned,
                              fun=UnaryFn.floor)

        c32 = ComplexType.get(f32)

        @func.FuncOp.from_py_func(tensor_of((4, 16), c32),
                                  tensor_of((4, 16), c32))
        def unary_complex_neg(i, o):
            return unary_poly(i, outs=[o], fun=UnaryFn.negf)

        @func.FuncOp.from_py_func(tensor_of((8,), t["i32"]),
                                  tensor_of((8,), t["i32"]))
        def binary_default(a, o):
            return binary_poly(a, a, outs=[o])

        @func.FuncOp.from_py_func(tensor_of((8,), t["i32"]),
                                  tensor_of((8,), t["i32"]))
        def binary_mul(a, o):
            return binary_poly(a, a, outs=[o], fun=BinaryFn.mul)

        @func.FuncOp.from_py_func(tensor_of((8,), t["i32"]),
                                  tensor_of((8,), t["i32"]))
        def binary_div_unsigned(a, o):
            return binary_poly(a, a, outs=[o], fun=BinaryFn.div_unsigned)

        @func.FuncOp.from_py_func(tensor_of((8,), t["i1"]),
                                  tensor_of((8,), t["i1"]))
        def binary_bool(a, o):
            return binary_poly(a, a, outs=[o])

        @func.FuncOp.from_py_func(tensor_of((8,), t["i1"]),
                                  tensor_of((8,), f32), tensor_of((8,), f32))
        def select(c, a, o):
            return choose(c, a, outs=[o])

    emit(build)


# CHECK: verifies: True
# CHECK-LABEL: func.func @iota(
# CHECK: ^bb0(%{{.+}}: i32):
# CHECK-NEXT:   %[[N:.+]] = linalg.index 1 : index
# CHECK-NEXT:   %[[NC:.+]] = arith.index_cast %[[N]] : index to i32
# CHECK-NEXT:   %[[M:.+]] = linalg.index 0 : index
# CHECK-NEXT:   %[[MC:.+]] = arith.index_cast %[[M]] : index to i32
# CHECK-NEXT:   %[[S:.+]] = arith.addi %[[NC]], %[[MC]] : i32
# CHECK-NEXT:   linalg.yield %[[S]] : i32
# CHECK-LABEL: func.func @consts(
# CHECK: %[[C42:.+]] = arith.constant 42 : i64
# CHECK-NEXT: %[[F42:.+]] = arith.uitofp %[[C42]] : i64 to f32
# CHECK-NEXT: %[[CH:.+]] = arith.constant 5.000000e-01 : f64
# CHECK-NEXT: %[[FH:.+]] = arith.truncf %[[CH]] : f64 to f32
# CHECK-NEXT: arith.addf %[[F42]], %[[FH]] : f32
# CHECK-LABEL: func.func @unary_exp(
# CHECK: math.exp %{{.+}} : f32
# CHECK-LABEL: func.func @unary_log(
# CHECK: math.log %{{.+}} : f32
# CHECK-LABEL: func.func @unary_abs(
# CHECK: math.absf %{{.+}} : f32
# CHECK-LABEL: func.func @unary_ceil(
# CHECK: math.ceil %{{.+}} : f32
# CHECK-LABEL: func.func @unary_floor(
# CHECK: math.floor %{{.+}} : f32
# CHECK-LABEL: func.func @unary_negf(
# CHECK: arith.negf %{{.+}} : f32
# CHECK-LABEL: func.func @unary_sqrt(
# CHECK: math.sqrt %{{.+}} : f32
# CHECK-LABEL: func.func @unary_tanh(
# CHECK: math.tanh %{{.+}} : f32
# CHECK-LABEL: func.func @unary_reciprocal(
# CHECK: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
# CHECK-NEXT: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
# CHECK-NEXT: arith.divf %[[ONE]], %[[IN]] : f32
# CHECK-LABEL: func.func @unary_square(
# CHECK: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
# CHECK-NEXT: arith.mulf %[[IN]], %[[IN]] : f32
# CHECK-LABEL: func.func @unary_unsigned(
# CHECK: arith.uitofp %{{.+}} : i8 to f32
# CHECK-NEXT: math.floor
# CHECK-LABEL: func.func @unary_complex_neg(
# CHECK: complex.neg %{{.+}} : complex<f32>
# CHECK-LABEL: func.func @binary_default(
# CHECK: arith.addi %{{.+}}, %{{.+}} : i32
# CHECK-LABEL: func.func @binary_mul(
# CHECK: arith.muli %{{.+}}, %{{.+}} : i32
# CHECK-LABEL: func.func @binary_div_unsigned(
# CHECK: arith.divui %{{.+}}, %{{.+}} : i32
# CHECK-LABEL: func.func @binary_bool(
# CHECK: arith.ori %{{.+}}, %{{.+}} : i1
# CHECK-LABEL: func.func @select(
# CHECK: ^bb0(%[[C:.+]]: i1, %[[A:.+]]: f32, %{{.+}}: f32):
# CHECK-NEXT: %[[Q:.+]] = arith.divf %[[A]], %[[A]] : f32
# CHECK-NEXT: %[[D:.+]] = arith.subf %[[Q]], %[[A]] : f32
# CHECK-NEXT: arith.select %[[C]], %[[D]], %[[A]] : f32


@linalg_structured_op
def matmul(A=TensorDef(T1, S.M, S.K), B=TensorDef(T2, S.K, S.N),
           C=TensorDef(U, S.M, S.N, output=True),
           cast=TypeFnAttrDef(default=TypeFn.cast_signed)):
    """Same name as the built-in op: emit_generic=False builds linalg.matmul."""
    domain(D.m, D.n, D.k)
    implements(ContractionOpInterface)
    defines(Canonicalizer)
    C[D.m, D.n] += cast(U, A[D.m, D.k]) * cast(U, B[D.k, D.n])


@linalg_structured_op
def conv_2d_nhwc_hwcf(
        I=TensorDef(T1, S.N, S.OH * S.SH + S.KH * S.DH, S.OW * S.SW + S.KW * S.DW, S.C),
        K=TensorDef(T2, S.KH, S.KW, S.C, S.F),
        O=TensorDef(U, S.N, S.OH, S.OW, S.F, output=True),
        strides=IndexAttrDef(S.SH, S.SW, default=[1, 1]),
        dilations=IndexAttrDef(S.DH, S.DW, default=[1, 1])):
    implements(ConvolutionOpInterface)
    domain(D.n, D.oh, D.ow, D.f, D.kh, D.kw, D.c)
    O[D.n, D.oh, D.ow, D.f] += TypeFn.cast_signed(
        U, I[D.n, D.oh * S.SH + D.kh * S.DH, D.ow * S.SW + D.kw * S.DW, D.c]
    ) * TypeFn.cast_signed(U, K[D.kh, D.kw, D.c, D.f])


@linalg_structured_op(op_name="scaled_copy")
def some_python_name(I=TensorDef(T, S.N), O=TensorDef(T, S.N, output=True)):
    O[D.n] = I[D.n] * I[D.n]


# CHECK-LABEL: TEST: test_named_ops
@run
def test_named_ops():
    print(matmul.op_name, matmul.op_def.metadata.cpp_class_name,
          matmul.op_def.metadata.implements, matmul.op_def.metadata.defines,
          repr(matmul.__doc__))
    print(some_python_name.op_name)

    def build(t):
        @func.FuncOp.from_py_func(tensor_of((4, 16), t["i8"]),
                                  tensor_of((16, 8), t["i8"]),
                                  tensor_of((4, 8), t["i32"]))
        def named_matmul(a, b, c):
            return matmul(a, b, outs=[c], cast=TypeFn.cast_unsigned)

        @func.FuncOp.from_py_func(tensor_of((4, 16), t["i8"]),
                                  tensor_of((16, 8), t["i8"]),
                                  tensor_of((4, 8), t["i32"]))
        def generic_matmul(a, b, c):
            return matmul(a, b, outs=[c], emit_generic=True)

        @func.FuncOp.from_py_func(tensor_of((1, 9, 9, 3), t["f32"]),
                                  tensor_of((3, 3, 3, 8), t["f32"]),
                                  tensor_of((1, 4, 4, 8), t["f32"]))
        def named_conv(i, k, o):
            return conv_2d_nhwc_hwcf(i, k, outs=[o], strides=[2, 2])

        @func.FuncOp.from_py_func(tensor_of((6,), t["f32"]),
                                  tensor_of((6,), t["f32"]))
        def custom_name(i, o):
            # Not a built-in op: generic even without emit_generic.
            return some_python_name(i, outs=[o], emit_generic=False)

    emit(build)


# CHECK: matmul MatmulOp [LinalgContractionOpInterface] [hasCanonicalizer] 'Same name as the built-in op: emit_generic=False builds linalg.matmul.'
# CHECK: scaled_copy
# CHECK: verifies: True
# CHECK-LABEL: func.func @named_matmul(
# CHECK: linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%{{.+}}, %{{.+}} : tensor<4x16xi8>, tensor<16x8xi8>) outs(%{{.+}} : tensor<4x8xi32>)
# CHECK-LABEL: func.func @generic_matmul(
# CHECK: linalg.generic
# CHECK: arith.extsi
# CHECK-LABEL: func.func @named_conv(
# CHECK: linalg.conv_2d_nhwc_hwcf {{.*}}strides = dense<2> : tensor<2xi64>
# CHECK-LABEL: func.func @custom_name(
# CHECK: linalg.generic
# CHECK: arith.mulf


@linalg_structured_op
def uncast_copy(I=TensorDef(T1, S.M), O=TensorDef(U, S.M, output=True)):
    O[D.m] = I[D.m]


@linalg_structured_op
def add_vec(A=TensorDef(T, S.M), B=TensorDef(T, S.M),
            C=TensorDef(T, S.M, output=True)):
    C[D.m] = A[D.m] + B[D.m]


# CHECK-LABEL: TEST: test_memrefs_contexts_and_insertion_points
@run
def test_memrefs_contexts_and_insertion_points():
    # One definition, emitted in two Contexts in turn.
    for _ in range(2):
        with Context(), Location.unknown():
            module = Module.create()
            f32 = F32Type.get()
            with InsertionPoint(module.body):
                buffer = memref.AllocOp(MemRefType.get([4], f32), [], [])
                # On memrefs there is no result: the op is returned.
                op = add_vec(buffer, buffer, outs=[buffer])
                print(type(op).__name__, op.name, len(op.results))
            # Outside an insertion point the op is built detached.
            values = tensor.EmptyOp([4], f32, ip=InsertionPoint(module.body))
            detached = add_vec(values, values, outs=[values])
            print(detached.owner.name, detached.owner.parent is None)
            print("verifies:", module.operation.verify())
    # With no Context entered, the operands' Context is used.
    print(add_vec(values, values, outs=[values]).type)


# CHECK: Operation linalg.generic 0
# CHECK-NEXT: linalg.generic True
# CHECK-NEXT: verifies: True
# CHECK-NEXT: Operation linalg.generic 0
# CHECK-NEXT: linalg.generic True
# CHECK-NEXT: verifies: True
# CHECK-NEXT: tensor<4xf32>


# CHECK-LABEL: TEST: test_call_errors
@run
def test_call_errors():
    with Context(), Location.unknown():
        module = Module.create()
        f32, i32 = F32Type.get(), IntegerType.get_signless(32)
        with InsertionPoint(module.body):
            a = tensor.EmptyOp([4, 16], f32).result
            b = tensor.EmptyOp([16, 8], f32).result
            c = tensor.EmptyOp([4, 8], f32).result
            wrong_k = tensor.EmptyOp([15, 8], f32).result
            v = tensor.EmptyOp([4], f32).result
            vi = tensor.EmptyOp([4], i32).result
            m2 = tensor.EmptyOp([4, 4], f32).result
            scalar = arith.ConstantOp(f32, 1.0).result
            before = str(module)
            error(lambda: matmul_cast(a, b))
            error(lambda: matmul_cast(a, outs=[c]))
            error(lambda: matmul_cast(a, b, outs=c))
            error(lambda: matmul_cast(a, b, outs=[c, c]))
            error(lambda: matmul_cast(a, 3, outs=[c]))
            error(lambda: matmul_cast(a, wrong_k, outs=[c]))
            error(lambda: matmul_cast(a, v, outs=[c]))
            error(lambda: matmul_cast(scalar, b, outs=[c]))
            error(lambda: fill_cast(v, outs=[v]))
            error(lambda: matmul_cast(a, b, outs=[c], cast=BinaryFn.add))
            error(lambda: matmul_cast(a, b, outs=[c], strides=[1, 1]))
            error(lambda: matmul_cast(a, b, outs=[c], emit_generic="yes"))
            error(lambda: conv_hw(a, b, outs=[c], strides=[1]))
            error(lambda: conv_hw(a, b, outs=[c], strides=(1, 2.0)))
            error(lambda: add_vec(v, vi, outs=[v]))
            error(lambda: constants(outs=[vi]))
            error(lambda: fill_from_tensor(v, outs=[m2]))
            # The body fails after the op was created: it is erased again.
            error(lambda: unary_poly(vi, outs=[vi]))
            error(lambda: binary_poly(vi, vi, outs=[vi], fun=BinaryFn.powf))
            error(lambda: uncast_copy(v, outs=[vi]))
            error(lambda: matmul(a, b, outs=[c], fun=BinaryFn.add))
            print("IR unchanged:", str(module) == before)
        with Context():
            error(lambda: add_vec(v, v, outs=[v]))


# CHECK-NEXT: TypeError: matmul_cast() needs outs=[...]: one value per output (C)
# CHECK-NEXT: TypeError: matmul_cast() takes 2 input(s) (A, B), got 1
# CHECK-NEXT: TypeError: matmul_cast(): outs must be a list of values, got OpResult
# CHECK-NEXT: ValueError: matmul_cast() takes 1 output(s) (C), got 2 in outs
# CHECK-NEXT: TypeError: matmul_cast(): input 'B' must be a Value (or an op with one result), got int
# CHECK-NEXT: ValueError: matmul_cast(): dimension 0 of 'B' (tensor<15x8xf32>) has size 15, but S.K is 16 (from dimension 1 of 'A')
# CHECK-NEXT: ValueError: matmul_cast(): 'B' must have rank 2 [S.K, S.N], got tensor<4xf32>
# CHECK-NEXT: TypeError: matmul_cast(): input 'A' must be a ranked tensor or memref, got f32
# CHECK-NEXT: TypeError: fill_cast(): scalar 'value' takes a scalar value, got tensor<4xf32>
# CHECK-NEXT: TypeError: matmul_cast(): attribute 'cast' takes a TypeFn function (e.g. TypeFn.cast_signed), got BinaryFn.add
# CHECK-NEXT: TypeError: matmul_cast() got unexpected keyword argument(s) ['strides']; its attributes are ['cast']
# CHECK-NEXT: TypeError: matmul_cast(): emit_generic must be a bool, got str
# CHECK-NEXT: ValueError: conv_hw(): attribute 'strides' takes 2 value(s), got 1
# CHECK-NEXT: TypeError: conv_hw(): attribute 'strides' takes ints, got [1, 2.0]
# CHECK-NEXT: TypeError: add_vec(): input 'B' has element type i32, but type variable T is f32 (from 'A')
# CHECK-NEXT: TypeError: constants(): output 'O' must have element type f32 (F32), got tensor<4xi32>
# CHECK-NEXT: ValueError: fill_from_tensor(): 'I' has rank 1; this op iterates over the rank of its first output (2), and takes inputs of that rank or of rank 0
# CHECK-NEXT: TypeError: unary_poly(): exp is not defined on (i32), in fun(cast(U, I[None]))
# CHECK-NEXT: TypeError: binary_poly(): powf is not defined on (i32, i32), in fun(A[D.m], B[D.m])
# CHECK-NEXT: TypeError: uncast_copy(): the value assigned to O has type f32, but O's element type is i32 (convert it with TypeFn), in I[D.m]
# CHECK-NEXT: TypeError: matmul() got unexpected keyword argument(s) ['fun']; its attributes are ['cast']
# CHECK-NEXT: IR unchanged: True
# CHECK-NEXT: ValueError: add_vec(): the operands belong to another Context than the current one


# CHECK-LABEL: TEST: test_definition_errors
@run
def test_definition_errors():
    def define(fn, **kwargs):
        error(lambda: linalg_structured_op(fn, **kwargs))

    def unknown_domain(A=TensorDef(T, S.M), C=TensorDef(T, S.M, output=True)):
        domain(D.m, D.k)
        C[D.m] = A[D.m]

    def wrong_rank(A=TensorDef(T, S.M), C=TensorDef(T, S.M, output=True)):
        C[D.m] = A[D.m, D.n]

    def python_number(A=TensorDef(T, S.M), C=TensorDef(T, S.M, output=True)):
        C[D.m] = A[D.m] + 1

    def assigns_input(A=TensorDef(T, S.M), C=TensorDef(T, S.M, output=True)):
        A[D.m] = C[D.m]

    def unused(A=TensorDef(T, S.M), B=TensorDef(T, S.M),
               C=TensorDef(T, S.M, output=True)):
        C[D.m] = A[D.m]

    def output_first(C=TensorDef(T, S.M, output=True), A=TensorDef(T, S.M)):
        C[D.m] = A[D.m]

    def two_accesses(A=TensorDef(T, S.M, S.N), C=TensorDef(T, S.M, output=True)):
        C[D.m] = A[D.m, D.m] + A[D.m, D.n]

    def size_symbol(A=TensorDef(T, S.M), C=TensorDef(T, S.M, output=True)):
        C[D.m] = A[D.m + S.M]

    def not_a_def(A=TensorDef(T, S.M), C=TensorDef(T, S.M, output=True), x=3):
        C[D.m] = A[D.m]

    def bad_index(C=TensorDef(I32, S.M, output=True)):
        C[D.m] = TypeFn.cast_signed(I32, index(D.q))

    def nested_reduction(A=TensorDef(T, S.M), C=TensorDef(T, output=True)):
        C[None] = ReduceFn.add[D.m](A[D.m]) + A[D.m]

    def mixed_reductions(A=TensorDef(T, S.M, S.N), X=TensorDef(T, S.M, output=True),
                         Y=TensorDef(T, S.N, output=True)):
        X[D.m] += A[D.m, D.n]
        Y[D.n] += A[D.m, D.n]

    def assigned_twice(A=TensorDef(T, S.M), C=TensorDef(T, S.M, output=True)):
        C[D.m] = A[D.m]
        C[D.m] = A[D.m]

    def nothing(C=TensorDef(T, S.M, output=True)):
        pass

    def reserved(A=TensorDef(T, S.M), C=TensorDef(T, S.M, output=True),
                 outs=IndexAttrDef(S.X, default=[1])):
        C[D.m] = A[D.m]

    def too_many_args(A=TensorDef(T, S.M), C=TensorDef(T, S.M, output=True)):
        C[D.m] = UnaryFn.exp(A[D.m], A[D.m])

    def inline_scalar(C=TensorDef(T, S.M, output=True)):
        C[D.m] = ScalarDef(T)

    for fn in (unknown_domain, wrong_rank, python_number, assigns_input,
               unused, output_first, two_accesses, size_symbol, not_a_def,
               bad_index, nested_reduction, mixed_reductions, assigned_twice,
               nothing, reserved, too_many_args, inline_scalar):
        define(fn)
    define(nothing, op_name="not a name")
    error(lambda: TensorDef(T, D.m))
    error(lambda: TensorDef("T", S.M))
    error(lambda: IndexAttrDef(S.SH, S.SW, default=[1]))
    error(lambda: TypeFnAttrDef(default=BinaryFn.add))
    error(lambda: ReduceFn.add["k"])
    error(lambda: const("1"))
    error(lambda: domain(D.m))

    # A parameter object belongs to one op; it is free again if that op's
    # definition failed.
    shared = TensorDef(T, S.M)

    def first(A=shared, C=TensorDef(T, S.M, output=True)):
        C[D.m] = A[D.m] + 1

    def second(A=shared, C=TensorDef(T, S.M, output=True)):
        C[D.m] = A[D.m]

    def third(A=shared, C=TensorDef(T, S.M, output=True)):
        C[D.m] = A[D.m]

    define(first)
    define(second)
    define(third)
    error(lambda: shared[D.m])


# CHECK-NEXT: ValueError: 'unknown_domain': domain [D.m, D.k] does not match the dimensions the accesses use, [D.m]
# CHECK-NEXT: ValueError: A is declared with rank 1 but accessed with 2 index(es)
# CHECK-NEXT: TypeError: an argument of BinaryFn.add must be a tensor expression, got int (wrap Python numbers in const(...))
# CHECK-NEXT: ValueError: only outputs can be assigned; A is an input (declare it with output=True)
# CHECK-NEXT: ValueError: 'unused': tensor B is never accessed; give it index_dims=[...] to say how it maps to the domain
# CHECK-NEXT: ValueError: input 'A' of 'output_first' comes after an output or attribute; declare inputs first, then outputs, then attributes
# CHECK-NEXT: ValueError: 'two_accesses': A is accessed in two ways, [D.m, D.m] and A[D.m, D.n]; a structured op reads each operand through one indexing map
# CHECK-NEXT: ValueError: 'size_symbol': S.M in the access A[(D.m + S.M)] is not a symbol of an IndexAttrDef (a size symbol has no value in an index expression)
# CHECK-NEXT: TypeError: parameter 'x' of 'not_a_def' must default to a TensorDef, ScalarDef, IndexAttrDef or *FnAttrDef, got 3
# CHECK-NEXT: ValueError: 'bad_index': index(D.q) is not a dimension of the iteration domain [D.m]
# CHECK-NEXT: ValueError: 'nested_reduction': the reduction reduce_add[D.m](A[D.m]) must be the whole right-hand side of its assignment
# CHECK-NEXT: ValueError: 'mixed_reductions': all assignments must reduce over the same dimensions, got (D.n), (D.m)
# CHECK-NEXT: ValueError: 'assigned_twice': C is assigned more than once
# CHECK-NEXT: ValueError: 'nothing': assigns no output
# CHECK-NEXT: ValueError: attribute 'outs' of 'reserved': the name is reserved
# CHECK-NEXT: TypeError: UnaryFn.exp takes 1 argument(s), got 2
# CHECK-NEXT: ValueError: 'inline_scalar': ScalarDef(T) uses a definition that is not a parameter of this op
# CHECK-NEXT: ValueError: op_name must be an identifier, got 'not a name'
# CHECK-NEXT: ValueError: the sizes of a TensorDef use symbols (S.M), not dimensions; got D.m
# CHECK-NEXT: TypeError: TensorDef takes a TypeVar (e.g. T, TV.Acc, F32) as its element type, got str
# CHECK-NEXT: ValueError: IndexAttrDef has 2 symbol(s) but 1 default value(s)
# CHECK-NEXT: TypeError: TypeFnAttrDef takes a default of type TypeFnType, got BinaryFn.add
# CHECK-NEXT: TypeError: reduction dimensions must be dimensions (e.g. D.k), got str
# CHECK-NEXT: TypeError: const takes an int or a float, got str
# CHECK-NEXT: ValueError: domain() can only be called inside the function decorated with @linalg_structured_op
# CHECK-NEXT: TypeError: an argument of BinaryFn.add must be a tensor expression, got int (wrap Python numbers in const(...))
# CHECK-NEXT: no error
# CHECK-NEXT: ValueError: parameter 'A' of 'third': this definition object is already parameter 'A' of 'second'; create a new one per op
# CHECK-NEXT: ValueError: a TensorDef can only be used while its op 'second' is being defined (inside the function decorated with @linalg_structured_op)


@linalg_structured_op
def unary_poly(I=TensorDef(T), O=TensorDef(U, output=True),
               fun=UnaryFnAttrDef(default=UnaryFn.exp)):
    O[None] = fun(I[None])


@linalg_structured_op
def fill(value=ScalarDef(T1), O=TensorDef(U, output=True)):
    O[None] = TypeFn.cast_signed(U, value)


# CHECK-LABEL: TEST: test_parity_and_checked_operands
@run
def test_parity_and_checked_operands():
    # Index casts are arith.index_cast signed or not, as the named ops' C++
    # bodies build them; exp, log and abs of complex numbers are complex ops.
    from mlir_tracking.ir import IndexType

    def build(t):
        index = IndexType.get()
        c32 = ComplexType.get(t["f32"])

        @func.FuncOp.from_py_func(tensor_of((4, 8), index),
                                  tensor_of((8, 2), index),
                                  tensor_of((4, 2), t["i32"]))
        def mm_index_unsigned(a, b, c):
            return matmul_cast(a, b, outs=[c], cast=TypeFn.cast_unsigned)

        for fn, out in [("exp", c32), ("log", c32), ("abs", t["f32"])]:
            @func.FuncOp.from_py_func(tensor_of((4,), c32), tensor_of((4,), out),
                                      name=f"complex_{fn}")
            def unary(i, o):
                return unary_poly(i, outs=[o], fun=getattr(UnaryFn, fn))

    emit(build)
    # CHECK: verifies: True
    # CHECK-LABEL: func.func @mm_index_unsigned(
    # CHECK-COUNT-2: arith.index_cast %{{.*}} : index to i32
    # CHECK-LABEL: func.func @complex_exp(
    # CHECK: complex.exp %{{.*}} : complex<f32>
    # CHECK-LABEL: func.func @complex_log(
    # CHECK: complex.log %{{.*}} : complex<f32>
    # CHECK-LABEL: func.func @complex_abs(
    # CHECK: complex.abs %{{.*}} : complex<f32>

    # Operands the body's ops or the op's verifier would refuse are refused
    # before anything is built (or the named op is erased again).
    with Context(), Location.unknown():
        module = Module.create()
        f32, f64 = F32Type.get(), F64Type.get()
        si8 = IntegerType.get_signed(8)
        with InsertionPoint(module.body):
            @func.FuncOp.from_py_func(tensor_of((4,), si8), tensor_of((4,), f32),
                                      f64, MemRefType.get((4,), f32))
            def refused(x, y, v, buffer):
                # CHECK: TypeError: unary_poly(): input 'I' has element type si8; the body's arith, math and complex ops take signless integers, index, floats and complex numbers
                error(lambda: unary_poly(x, outs=[y]))
                # CHECK-NEXT: TypeError: unary_poly(): the operands mix tensors and memrefs (memrefs: O); a structured op takes all tensors or all memrefs
                error(lambda: unary_poly(y, outs=[buffer]))
                # CHECK-NEXT: ValueError: fill(): linalg.fill does not verify on these operands ('linalg.fill' op expected fill value type ('f64') to match output element type ('f32')); pass emit_generic=True to build the definition's generic op
                error(lambda: fill(v, outs=[y]))
                # The generic op converts the value.
                return fill(v, outs=[y], emit_generic=True)
        # CHECK-NEXT: left: ['linalg.generic', 'func.return'] True
        body = refused.func_op.regions[0].blocks[0]
        print("left:", [op.name for op in body.operations],
              module.operation.verify())
