# RUN: %PYTHON %s | FileCheck %s
# Typed attributes: get constructors, casting constructors, properties,
# sequence/mapping behaviour, the buffer protocol of dense elements, reprs,
# errors, and downcasting of every attribute the API returns.

import array

from mlir_tracking import ir


def run(f):
    print("\nTEST:", f.__name__)
    with ir.Context(), ir.Location.unknown():
        f()
    return f


# CHECK-LABEL: TEST: test_string_attr
# CHECK: StringAttr("hello") hello b'hello' "hello"
# CHECK-NEXT: StringAttr("\FF\00") b'\xff'
# CHECK-NEXT: StringAttr("x" : i8) IntegerType(i8)
# CHECK-NEXT: True False
# CHECK-NEXT: True builtin.string
# CHECK-NEXT: StringAttr("cast")
# CHECK-NEXT: ValueError: Cannot cast attribute to StringAttr (from Attribute(unit))
@run
def test_string_attr():
    s = ir.StringAttr.get("hello")
    print(repr(s), s.value, s.value_bytes, str(s))
    print(repr(ir.StringAttr.get(b"\xff\x00")), ir.StringAttr.get(b"\xff").value_bytes)
    typed = ir.StringAttr.get_typed(ir.IntegerType.get_signless(8), "x")
    print(repr(typed), repr(typed.type))
    print(ir.StringAttr.isinstance(s), ir.StringAttr.isinstance(ir.UnitAttr.get()))
    print(s.typeid == ir.StringAttr.static_typeid, ir.StringAttr.attr_name)
    print(repr(ir.StringAttr(ir.Attribute.parse('"cast"'))))
    try:
        ir.StringAttr(ir.UnitAttr.get())
    except ValueError as e:
        print("ValueError:", e)


# CHECK-LABEL: TEST: test_integer_attr
# CHECK: IntegerAttr(42 : i64) 42 42 IntegerType(i64)
# CHECK-NEXT: -128
# CHECK-NEXT: 255
# CHECK-NEXT: -1
# CHECK-NEXT: IntegerAttr(1267650600228229401496703205383 : i128) True
# CHECK-NEXT: IntegerAttr(-3 : index)
# CHECK-NEXT: ValueError: integer 256 does not fit in 8 bits
# CHECK-NEXT: ValueError: integer -129 does not fit in 8 bits
# CHECK-NEXT: ValueError: IntegerAttr.get expects an integer or index type, got f32
# CHECK-NEXT: ValueError: Cannot cast attribute to IntegerAttr (from Attribute("x"))
@run
def test_integer_attr():
    i64 = ir.IntegerType.get_signless(64)
    a = ir.IntegerAttr.get(i64, 42)
    print(repr(a), a.value, int(a), repr(a.type))
    print(ir.IntegerAttr.get(ir.IntegerType.get_signless(8), -128).value)
    print(ir.IntegerAttr.get(ir.IntegerType.get_unsigned(8), 255).value)
    print(ir.IntegerAttr.get(ir.IntegerType.get_signless(8), 255).value)
    big = ir.IntegerAttr.get(ir.IntegerType.get_signless(128), 2**100 + 7)
    print(repr(big), big.value == 2**100 + 7)
    print(repr(ir.IntegerAttr.get(ir.IndexType.get(), -3)))
    for ty, value in [(ir.IntegerType.get_signless(8), 256),
                      (ir.IntegerType.get_signless(8), -129),
                      (ir.F32Type.get(), 1)]:
        try:
            ir.IntegerAttr.get(ty, value)
        except ValueError as e:
            print("ValueError:", e)
    try:
        ir.IntegerAttr(ir.StringAttr.get("x"))
    except ValueError as e:
        print("ValueError:", e)


# CHECK-LABEL: TEST: test_float_bool_unit_type_attrs
# CHECK: FloatAttr(2.500000e+00 : f16) 2.5 2.5
# CHECK-NEXT: FloatAttr(1.250000e+00 : f32) FloatAttr(-5.000000e-01 : f64)
# CHECK-NEXT: MLIRError: Invalid attribute:
# CHECK-NEXT: error: unknown: expected floating point type
# CHECK-NEXT: BoolAttr(true) True False
# CHECK-NEXT: BoolAttr True True
# CHECK-NEXT: IntegerAttr(1 : i8)
# CHECK-NEXT: BoolAttr(false)
# CHECK-NEXT: UnitAttr(unit) UnitAttr
# CHECK-NEXT: TypeAttr(index) IndexType(index)
@run
def test_float_bool_unit_type_attrs():
    f = ir.FloatAttr.get(ir.F16Type.get(), 2.5)
    print(repr(f), f.value, float(f))
    print(repr(ir.FloatAttr.get_f32(1.25)), repr(ir.FloatAttr.get_f64(-0.5)))
    try:
        ir.FloatAttr.get(ir.IntegerType.get_signless(32), 1.0)
    except ir.MLIRError as e:
        print("MLIRError:", e)
    t = ir.BoolAttr.get(True)
    print(repr(t), t.value, bool(ir.BoolAttr.get(False)))
    # true is an i1 IntegerAttr, returned as a BoolAttr (as upstream's
    # IntegerAttr caster does); it is an IntegerAttr too.
    print(type(ir.Attribute.parse("true")).__name__, ir.BoolAttr.isinstance(ir.Attribute.parse("true")),
          ir.IntegerAttr.isinstance(ir.Attribute.parse("true")))
    print(repr(ir.Attribute.parse("1 : i8")))
    print(repr(ir.BoolAttr(ir.Attribute.parse("false"))))
    print(repr(ir.UnitAttr.get()), type(ir.Attribute.parse("unit")).__name__)
    ta = ir.TypeAttr.get(ir.IndexType.get())
    print(repr(ta), repr(ta.value))


# CHECK-LABEL: TEST: test_array_and_dict_attrs
# CHECK: ArrayAttr([unit, "x"]) 2 StringAttr("x") StringAttr("x") ['UnitAttr', 'StringAttr']
# CHECK-NEXT: ArrayAttr([unit, "x", false]) 2
# CHECK-NEXT: IndexError: ArrayAttribute index out of range
# CHECK-NEXT: RuntimeError: Invalid attribute when attempting to create an ArrayAttribute (expected an ir.Attribute, got <class 'int'>)
# CHECK-NEXT: DictAttr({a = "x", b}) 2 True False StringAttr("x")
# CHECK-NEXT: a StringAttr("x") ['a', 'b']
# CHECK-NEXT: KeyError: 'attempt to access a non-existent attribute'
# CHECK-NEXT: DictAttr({})
@run
def test_array_and_dict_attrs():
    a = ir.ArrayAttr.get([ir.UnitAttr.get(), ir.StringAttr.get("x")])
    print(repr(a), len(a), repr(a[1]), repr(a[-1]), [type(x).__name__ for x in a])
    b = a + [ir.BoolAttr.get(False)]
    print(repr(b), len(a))
    try:
        a[2]
    except IndexError as e:
        print("IndexError:", e)
    try:
        ir.ArrayAttr.get([1])
    except RuntimeError as e:
        print("RuntimeError:", e)
    d = ir.DictAttr.get({"b": ir.UnitAttr.get(), "a": ir.StringAttr.get("x")})
    print(repr(d), len(d), "a" in d, "z" in d, repr(d["a"]))
    print(d[0].name, repr(d[0].attr), [n.name for n in d])
    try:
        d["z"]
    except KeyError as e:
        print("KeyError:", e)
    print(repr(ir.DictAttr.get()))


# CHECK-LABEL: TEST: test_symbol_refs_opaque_strided
# CHECK: FlatSymbolRefAttr(@foo) foo FlatSymbolRefAttr
# CHECK-NEXT: SymbolRefAttr(@a::@b::@c) ['a', 'b', 'c']
# CHECK-NEXT: SymbolRefAttr(@foo) True foo
# CHECK-NEXT: ValueError: SymbolRefAttr must be composed of at least one symbol.
# CHECK-NEXT: OpaqueAttr(#mydialect.payload) mydialect b'payload'
# CHECK-NEXT: StridedLayoutAttr(strided<[4, 1], offset: 8>) 8 [4, 1]
# CHECK-NEXT: StridedLayoutAttr(strided<[?, ?], offset: ?>) True
@run
def test_symbol_refs_opaque_strided():
    flat = ir.FlatSymbolRefAttr.get("foo")
    print(repr(flat), flat.value, type(flat).__name__)
    nested = ir.SymbolRefAttr.get(["a", "b", "c"])
    print(repr(nested), nested.value)
    # Parsed references downcast to SymbolRefAttr (FlatSymbolRefAttr has no
    # TypeID of its own, as upstream).
    parsed = ir.Attribute.parse("@foo")
    print(repr(parsed), ir.FlatSymbolRefAttr.isinstance(parsed), ir.FlatSymbolRefAttr(parsed).value)
    try:
        ir.SymbolRefAttr.get([])
    except ValueError as e:
        print("ValueError:", e)
    ir.Context.current.allow_unregistered_dialects = True
    o = ir.OpaqueAttr.get("mydialect", b"payload", ir.NoneType.get())
    print(repr(o), o.dialect_namespace, o.data)
    s = ir.StridedLayoutAttr.get(8, [4, 1])
    print(repr(s), s.offset, s.strides)
    dyn = ir.StridedLayoutAttr.get_fully_dynamic(2)
    print(repr(dyn), dyn.offset == ir.ShapedType.get_dynamic_stride_or_offset())


# CHECK-LABEL: TEST: test_dense_arrays
# CHECK: DenseBoolArrayAttr(array<i1: true, false>) 2 [True, False] False DenseBoolArrayAttr
# CHECK-NEXT: DenseI8ArrayAttr(array<i8: 1, -2>) 2 [1, -2] -2 DenseI8ArrayAttr
# CHECK-NEXT: DenseI16ArrayAttr(array<i16: 300>) 1 [300] 300 DenseI16ArrayAttr
# CHECK-NEXT: DenseI32ArrayAttr(array<i32: 1, 2, 3>) 3 [1, 2, 3] 3 DenseI32ArrayAttr
# CHECK-NEXT: DenseI64ArrayAttr(array<i64: 1099511627776>) 1 [1099511627776] 1099511627776 DenseI64ArrayAttr
# CHECK-NEXT: DenseF32ArrayAttr(array<f32: 1.500000e+00>) 1 [1.5] 1.5 DenseF32ArrayAttr
# CHECK-NEXT: DenseF64ArrayAttr(array<f64: 2.500000e-01, 2.000000e+00>) 2 [0.25, 2.0] 2.0 DenseF64ArrayAttr
# CHECK-NEXT: DenseI32ArrayAttr(array<i32: 1, 2, 3>)
# CHECK-NEXT: DenseI64ArrayAttr(array<i64>)
# CHECK-NEXT: TypeError: out of range for i8
# CHECK-NEXT: IndexError: index out of range
@run
def test_dense_arrays():
    for cls, values in [(ir.DenseBoolArrayAttr, [True, False]),
                        (ir.DenseI8ArrayAttr, [1, -2]),
                        (ir.DenseI16ArrayAttr, [300]),
                        (ir.DenseI32ArrayAttr, [1, 2, 3]),
                        (ir.DenseI64ArrayAttr, [2**40]),
                        (ir.DenseF32ArrayAttr, [1.5]),
                        (ir.DenseF64ArrayAttr, [0.25, 2.0])]:
        a = cls.get(values)
        print(repr(a), len(a), list(a), a[-1], type(ir.Attribute.parse(str(a))).__name__)
    print(repr(ir.DenseI32ArrayAttr.get([1]) + [2, 3]))
    print(repr(ir.DenseI64ArrayAttr.get([])))
    try:
        ir.DenseI8ArrayAttr.get([1000])
    except TypeError:
        print("TypeError: out of range for i8")
    try:
        ir.DenseI32ArrayAttr.get([1])[1]
    except IndexError as e:
        print("IndexError:", e)


# Upstream's exception types and messages for lists that are not all
# attributes, an ArrayAttr index past the end, an empty list to
# DenseElementsAttr.get, and get_splat's refusals.
# CHECK-LABEL: TEST: test_array_and_dense_errors_as_upstream
# CHECK: RuntimeError: Invalid attribute (None?) when attempting to create an ArrayAttribute
# CHECK-NEXT: RuntimeError: Invalid attribute when attempting to create an ArrayAttribute
# CHECK-NEXT: RuntimeError: Invalid attribute (None?) when attempting to create an ArrayAttribute
# CHECK-NEXT: RuntimeError: Invalid attribute when attempting to create an ArrayAttribute
# CHECK-NEXT: IndexError: ArrayAttribute index out of range
# CHECK-NEXT: ValueError: Attributes list must be non-empty
# CHECK-NEXT: ValueError: Attributes list must be non-empty
# CHECK-NEXT: dense<> : tensor<0xi32>
# CHECK-NEXT: ValueError: Expected a static ShapedType for the shaped_type parameter: Type(f32)
# CHECK-NEXT: ValueError: Expected a static ShapedType for the shaped_type parameter: Type(tensor<*xf32>)
# CHECK-NEXT: ValueError: Shaped element type and attribute type must be equal: shaped=Type(tensor<2x3xf32>), element=Attribute(1.500000e+00 : f64)
@run
def test_array_and_dense_errors_as_upstream():
    f32 = ir.F32Type.get()
    unit = ir.UnitAttr.get()
    for bad in (lambda: ir.ArrayAttr.get([None]),
                lambda: ir.ArrayAttr.get([unit, 42]),
                lambda: ir.ArrayAttr.get([unit]) + [None],
                lambda: ir.DenseElementsAttr.get([ir.FloatAttr.get(f32, 1.0), "x"]),
                lambda: ir.ArrayAttr.get([unit])[1],
                lambda: ir.DenseElementsAttr.get([]),
                lambda: ir.DenseElementsAttr.get([], type=f32)):
        try:
            bad()
            print("no error")
        except (RuntimeError, IndexError, ValueError) as e:
            print(f"{type(e).__name__}: {e}")
    # With a shape, an empty list is an empty tensor (our extension).
    print(ir.DenseElementsAttr.get([], type=ir.IntegerType.get_signless(32), shape=[0]))
    f64_elem = ir.FloatAttr.get(ir.F64Type.get(), 1.5)
    for shaped, elem in ((f32, ir.FloatAttr.get(f32, 1.5)),
                         (ir.UnrankedTensorType.get(f32), ir.FloatAttr.get(f32, 1.5)),
                         (ir.RankedTensorType.get([2, 3], f32), f64_elem)):
        try:
            ir.DenseElementsAttr.get_splat(shaped, elem)
            print("no error")
        except ValueError as e:
            print(f"ValueError: {e}")


# CHECK-LABEL: TEST: test_dense_elements
# CHECK: DenseIntElementsAttr(dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi64>) DenseIntElementsAttr 4 1 4 False
# CHECK-NEXT: q (2, 2) {{\[\[}}1, 2], [3, 4]] True
# CHECK-NEXT: DenseFPElementsAttr(dense<[1.500000e+00, -2.000000e+00]> : tensor<2xf32>) -2.0 [1.5, -2.0]
# CHECK-NEXT: DenseIntElementsAttr(dense<[1, -1]> : tensor<2xsi8>)
# CHECK-NEXT: DenseIntElementsAttr(dense<{{\[\[}}7, 8], [9, 10]]> : tensor<2x2xi16>) {{\[\[}}7, 8], [9, 10]]
# CHECK-NEXT: DenseIntElementsAttr(dense<[1, 2, 3]> : tensor<3xi16>) h
# CHECK-NEXT: DenseIntElementsAttr(dense<[true, false, true]> : tensor<3xi1>) 1 0
# CHECK-NEXT: DenseFPElementsAttr(dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf64>) DenseFPElementsAttr
# CHECK-NEXT: DenseIntElementsAttr(dense<5> : tensor<2x2xi32>) True IntegerAttr(5 : i32) {{\[\[}}5, 5], [5, 5]]
# CHECK-NEXT: DenseFPElementsAttr 1.0 VectorType(vector<2xf64>)
# CHECK-NEXT: DenseIntElementsAttr
# CHECK-NEXT: ValueError: nested lists must be rectangular
# CHECK-NEXT: ValueError: shape does not match the buffer size
# CHECK-NEXT: ValueError: get_splat_value called on a non-splat attribute
# CHECK-NEXT: IndexError: index out of range
# CHECK-NEXT: ValueError: Shaped element type and attribute type must be equal: shaped=Type(tensor<2xf32>), element=Attribute(5 : i32)
# CHECK-NEXT: ValueError: Cannot cast attribute to DenseIntElementsAttr (from Attribute(dense<[1.500000e+00, -2.000000e+00]> : tensor<2xf32>))
@run
def test_dense_elements():
    ints = ir.DenseElementsAttr.get([[1, 2], [3, 4]])
    print(repr(ints), type(ints).__name__, len(ints), ints[0], ints[-1], ints.is_splat)
    mv = memoryview(ints)
    print(mv.format, mv.shape, mv.tolist(), mv.readonly)
    floats = ir.DenseElementsAttr.get(array.array("f", [1.5, -2.0]))
    print(repr(floats), floats[1], memoryview(floats).tolist())
    i8 = ir.DenseElementsAttr.get(array.array("b", [1, -1]), signless=False)
    print(repr(i8))
    u16 = ir.DenseElementsAttr.get(array.array("H", [7, 8, 9, 10]), shape=[2, 2])
    print(repr(u16), memoryview(u16).tolist())
    typed = ir.DenseElementsAttr.get([1, 2, 3], type=ir.IntegerType.get_signless(16))
    print(repr(typed), memoryview(typed).format)
    bools = ir.DenseElementsAttr.get([True, False, True])
    print(repr(bools), bools[0], bools[1])
    attrs = ir.DenseElementsAttr.get([ir.FloatAttr.get_f64(1.0), ir.FloatAttr.get_f64(2.0)])
    print(repr(attrs), type(attrs).__name__)
    splat = ir.DenseElementsAttr.get_splat(
        ir.RankedTensorType.get([2, 2], ir.IntegerType.get_signless(32)),
        ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 5))
    print(repr(splat), splat.is_splat, repr(splat.get_splat_value()), memoryview(splat).tolist())
    parsed = ir.Attribute.parse("dense<[1.0, 2.0]> : vector<2xf64>")
    print(type(parsed).__name__, parsed[0], repr(parsed.type))
    print(type(ir.Attribute.parse('dense<"abc"> : tensor<1x!tf_type.string>'
                                  if False else "dense<1> : tensor<2xi8>")).__name__)
    for bad in [lambda: ir.DenseElementsAttr.get([[1, 2], [3]]),
                lambda: ir.DenseElementsAttr.get(array.array("i", [1, 2, 3]), shape=[2]),
                lambda: ints.get_splat_value(),
                lambda: ints[4],
                lambda: ir.DenseElementsAttr.get_splat(
                    ir.RankedTensorType.get([2], ir.F32Type.get()),
                    ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 5))]:
        try:
            bad()
        except (ValueError, IndexError) as e:
            print(type(e).__name__ + ":", e)
    try:
        ir.DenseIntElementsAttr(floats)
    except ValueError as e:
        print("ValueError:", e)


# CHECK-LABEL: TEST: test_dense_element_count_overflow
@run
def test_dense_element_count_overflow():
    # get_splat refuses the shapes get refuses (their element count wraps:
    # len() was 0 for 2**62 x 8 elements); a parsed attribute of such a
    # shape raises OverflowError from len() and indexing (a splat of 2**62
    # + 1 by 4 elements had len() 4).
    i1 = ir.IntegerType.get_signless(1)
    for shape in ([1 << 62, 8], [1 << 59, 2]):
        try:
            ir.DenseElementsAttr.get_splat(ir.RankedTensorType.get(shape, i1),
                                           ir.BoolAttr.get(True))
        except ValueError as e:
            # CHECK: ValueError: the shape of tensor<4611686018427387904x8xi1> has too many elements
            # CHECK: ValueError: the shape of tensor<576460752303423488x2xi1> has too many elements
            print("ValueError:", e)
    parsed = ir.Attribute.parse("dense<7> : tensor<4611686018427387905x4xi32>")
    floats = ir.Attribute.parse("dense<1.0> : tensor<4611686018427387905x4xf32>")
    for f in (lambda: len(parsed), lambda: parsed[0], lambda: list(parsed),
              lambda: floats[-1]):
        try:
            f()
        except OverflowError as e:
            # CHECK: OverflowError: the element count of tensor<4611686018427387905x4xi32> overflows a 64-bit integer
            # CHECK: OverflowError: the element count of tensor<4611686018427387905x4xi32> overflows a 64-bit integer
            # CHECK: OverflowError: the element count of tensor<4611686018427387905x4xi32> overflows a 64-bit integer
            # CHECK: OverflowError: the element count of tensor<4611686018427387905x4xf32> overflows a 64-bit integer
            print("OverflowError:", e)
    # Counts that fit are as before; get_splat takes a memref type, as
    # upstream.
    big = ir.Attribute.parse("dense<7> : tensor<4611686018427387903x2xi32>")
    # CHECK: 9223372036854775806 7
    print(len(big), big[-1])
    i32 = ir.IntegerType.get_signless(32)
    splat = ir.DenseElementsAttr.get_splat(ir.MemRefType.get([2, 3], i32),
                                           ir.IntegerAttr.get(i32, 3))
    # CHECK: dense<3> : memref<2x3xi32> 6
    print(splat, len(splat))


# CHECK-LABEL: TEST: test_api_returns_downcast
# CHECK: a IntegerAttr
# CHECK-NEXT: b ArrayAttr
# CHECK-NEXT: c DictAttr
# CHECK-NEXT: d DenseI64ArrayAttr
# CHECK-NEXT: e FloatAttr
# CHECK-NEXT: f DenseIntElementsAttr
# CHECK-NEXT: g AffineMapAttr
# CHECK-NEXT: IntegerAttr UnitAttr(unit)
# CHECK-NEXT: NamedAttribute(x=1 : i32)
# CHECK-NEXT: Attribute IntegerAttr(1 : i32) True
@run
def test_api_returns_downcast():
    m = ir.Module.parse("""
      func.func private @f() attributes {a = 1 : i32, b = [1, "x"], c = {k = unit},
                                         d = array<i64: 1, 2>, e = 2.0 : f32,
                                         f = dense<[1, 2]> : tensor<2xi32>,
                                         g = affine_map<(d0) -> (d0)>}
    """)
    attrs = m.body.operations[0].attributes
    for name in "abcdefg":
        print(name, type(attrs[name]).__name__)
    print(type(attrs["b"][0]).__name__, repr(attrs["c"]["k"]))
    print(repr(ir.Attribute.parse("1 : i32").get_named("x")))
    base = ir.Attribute(attrs["a"])
    print(type(base).__name__, repr(base.maybe_downcast()), base.typeid == ir.IntegerAttr.static_typeid)


# CHECK-LABEL: TEST: test_attribute_caster
# CHECK: UnitAttr(unit) ['Attribute(unit)']
# CHECK-NEXT: RuntimeError: Attribute caster is already registered for this TypeID; pass replace=True
@run
def test_attribute_caster():
    seen = []

    @ir.register_attribute_caster(ir.UnitAttr.static_typeid, replace=True)
    def cast_unit(attr):
        seen.append(repr(attr))
        return ir.UnitAttr(attr)

    print(repr(ir.Attribute.parse("unit")), seen)
    try:
        ir.register_attribute_caster(ir.UnitAttr.static_typeid, cast_unit)
    except RuntimeError as e:
        print("RuntimeError:", e)


# CHECK-LABEL: TEST: test_dense_elements_upstream_buffer_rules
# CHECK: dense<{{\[\[}}0, 1], [2, 3]]> : vector<2x2xi32>
# CHECK-NEXT: dense<7> : tensor<2x3xi32>
# CHECK-NEXT: dense<{{\[\[}}true, false, true], [false, true, false]]> : tensor<2x3xi1>
# CHECK-NEXT: dense<true> : tensor<4x2x5xi1>
# CHECK-NEXT: bool (2, 3) {{\[\[}}True, False, True], [True, True, False]]
# CHECK-NEXT: dense<[1, 2]> : tensor<2xi64>
# CHECK-NEXT: dense<[2.000000e+00, 3.000000e+00]> : tensor<2xf64>
# CHECK-NEXT: ValueError: Shape can only be specified explicitly when the type is not a shaped type.
# CHECK-NEXT: ValueError: shape does not match the buffer size: 1 bytes cannot hold tensor<16xi1> (i1 elements are packed bits, as numpy.packbits(..., bitorder='little') gives)
# CHECK-NEXT: 0-d: dense<7> : tensor<i32> () dense<true> : tensor<i1>
# CHECK-NEXT: bools as ints: dense<[1, 0, 1]> : tensor<3xi64> 1 : i64 false
# CHECK-NEXT: ValueError: unsupported buffer format '>i': big-endian data (convert it to native byte order, e.g. numpy's astype('=...'))
# CHECK-NEXT: TypeError: DenseElementsAttr.get: shape= is not taken with a list of Attributes; pass type= a shaped type
# CHECK-NEXT: TypeError: DenseElementsAttr.get: Attributes go in a flat list of Attributes only, not nested or mixed with numbers
# CHECK-NEXT: ValueError: unimplemented array format conversion from format: 7w (pass type= to read its bytes as that type)
@run
def test_dense_elements_upstream_buffer_rules():
    # Upstream's rules for buffers: an explicit shaped type is the result
    # type; one element makes a splat; with type=i1 the bytes are packed
    # bits; reading an i1 attribute gives bools.
    import numpy as np

    i32 = ir.IntegerType.get_signless(32)
    i1 = ir.IntegerType.get_signless(1)
    print(ir.DenseElementsAttr.get(np.arange(4, dtype=np.int32),
                                   type=ir.VectorType.get((2, 2), i32)))
    print(ir.DenseElementsAttr.get(np.array(7, dtype=np.int32), shape=(2, 3)))
    bools = np.array([[1, 0, 1], [0, 1, 0]], dtype=np.bool_)
    print(ir.DenseElementsAttr.get(np.packbits(bools, axis=None, bitorder="little"),
                                   type=i1, shape=bools.shape))
    print(ir.DenseElementsAttr.get(np.array(255, dtype=np.uint8), type=i1,
                                   shape=(4, 2, 5)))
    read = np.array(ir.DenseElementsAttr.get(
        np.array([[True, False, True], [True, True, False]])))
    print(read.dtype, read.shape, read.tolist())
    # The attribute list overload takes the type positionally, as upstream.
    i64 = ir.IntegerType.get_signless(64)
    print(ir.DenseElementsAttr.get([ir.IntegerAttr.get(i64, 1), ir.IntegerAttr.get(i64, 2)],
                                   ir.RankedTensorType.get((2,), i64)))
    f64 = ir.F64Type.get()
    print(ir.DenseElementsAttr.get([ir.FloatAttr.get(f64, 2.0), ir.FloatAttr.get(f64, 3.0)],
                                   type=ir.RankedTensorType.get((2,), f64)))
    for call in (
            lambda: ir.DenseElementsAttr.get(np.arange(4, dtype=np.int32),
                                             type=ir.RankedTensorType.get((4,), i32),
                                             shape=(2, 2)),
            lambda: ir.DenseElementsAttr.get(np.array(3, dtype=np.uint8), type=i1,
                                             shape=(16,))):
        try:
            call()
        except ValueError as e:
            print("ValueError:", e)
    # A 0-d buffer is a rank-0 tensor, as upstream.
    zero_d = ir.DenseElementsAttr.get(np.array(7, dtype=np.int32))
    print("0-d:", zero_d, np.array(zero_d).shape, ir.DenseElementsAttr.get(np.array(True)))
    # bools given as integers are 0 and 1 (their text, "True", was parsed).
    print("bools as ints:", ir.DenseElementsAttr.get([True, False, 1]),
          ir.IntegerAttr.get(i64, True), ir.IntegerAttr.get(i1, False))
    for call in (
            lambda: ir.DenseElementsAttr.get(np.array([1, 2], dtype=">i4")),
            lambda: ir.DenseElementsAttr.get([ir.IntegerAttr.get(i64, 1)] * 4, shape=[2, 2]),
            lambda: ir.DenseElementsAttr.get([[ir.IntegerAttr.get(i64, 1)]] * 2),
            lambda: ir.DenseElementsAttr.get(np.array([["hello", "goodbye"]]))):
        try:
            call()
        except (ValueError, TypeError) as e:
            print(f"{type(e).__name__}:", e)


# CHECK-LABEL: TEST: test_attr_names
# CHECK: builtin.affine_map builtin.integer_set builtin.array builtin.symbol_ref builtin.opaque builtin.dictionary builtin.type builtin.unit builtin.strided_layout builtin.dense_resource_elements builtin.integer builtin.float builtin.string
@run
def test_attr_names():
    # Upstream's attr_name: the registered name of the attribute class.
    print(*[cls.attr_name for cls in (
        ir.AffineMapAttr, ir.IntegerSetAttr, ir.ArrayAttr, ir.SymbolRefAttr,
        ir.OpaqueAttr, ir.DictAttr, ir.TypeAttr, ir.UnitAttr,
        ir.StridedLayoutAttr, ir.DenseResourceElementsAttr, ir.IntegerAttr,
        ir.FloatAttr, ir.StringAttr)])


# Inputs that crashed or built wrong attributes (adversarial pass 56); each
# is refused with an error now, and the IR stays usable.
# CHECK-LABEL: TEST: test_hostile_builder_inputs
# CHECK: subclass: dense<[1, 2, 3]> : tensor<3xi64>
# CHECK-NEXT: ValueError: nested lists deeper than 1024 levels (or a list that contains itself)
# CHECK-NEXT: ValueError: nested lists deeper than 1024 levels (or a list that contains itself)
# CHECK-NEXT: ValueError: a dense element of type i32 must be an IntegerAttr, got "x" : i32
# CHECK-NEXT: ValueError: a dense element of type i32 must be an IntegerAttr, got "x" : i32
# CHECK-NEXT: ValueError: a dense element of type f32 must be a FloatAttr, got "x" : f32
# CHECK-NEXT: ValueError: a dense element of type complex<f32> must be given as numbers (nested lists or a buffer), not an attribute, got #complex.number<:f32 1.000000e+00, 2.000000e+00> : complex<f32>
# CHECK-NEXT: TypeError: an element of type i32 must be an int, got float
# CHECK-NEXT: TypeError: an element of type i32 must be an int, got str
# CHECK-NEXT: TypeError: an element of type f32 must be a number, got str
# CHECK-NEXT: ValueError: an element of type i1 must be a bool, 0 or 1, got 2
# CHECK-NEXT: ValueError: the buffer's bytes hold i4 elements in their low 4 bits; the bits above must be zero or extend the sign of those bits (a byte holds 31)
# CHECK-NEXT: ValueError: f4E2M1FN has no NaN, got nan
# CHECK-NEXT: ValueError: f6E3M2FN has no infinity, got inf
# CHECK-NEXT: ValueError: f4E2M1FN has no infinity, got -inf
# CHECK-NEXT: TypeError: get(): incompatible function arguments
# CHECK-NEXT: TypeError: incompatible argument: a value could not be converted to the type this function takes (a wrong type, an int out of range, or a str that is not valid UTF-8)
# CHECK-NEXT: still built: dense<[1, 2]> : tensor<2xi4> dense<[true, false]> : tensor<2xi1> 6.000000e+00 : f4E2M1FN true
# Bytes that extend the sign of an integer's low bits (numpy's int8 -2 for
# an i4) are read as those bits, as upstream reads them; a float's are not.
# CHECK-NEXT: dense<[-2, -8, 7]> : tensor<3xi4>
# CHECK-NEXT: ValueError: the buffer's bytes hold f4E2M1FN elements in their low 4 bits; the bits above must be zero (a byte holds 254)
@run
def test_hostile_builder_inputs():
    class Fresh(list):
        # Each item a new object that only the caller's temporary holds.
        def __getitem__(self, index):
            return int(str(index + 1))

    with ir.Context(), ir.Location.unknown():
        print("subclass:", ir.DenseElementsAttr.get(Fresh([1, 2, 3])))
        cyclic = [1]
        cyclic.append(cyclic)
        deep = [1]
        for _ in range(70000):
            deep = [deep]
        i32 = ir.IntegerType.get_signless(32)
        f32 = ir.F32Type.get()
        i4 = ir.IntegerType.get_signless(4)
        f4 = ir.Type.parse("f4E2M1FN")
        f6 = ir.Type.parse("f6E3M2FN")
        complex_number = ir.Attribute.parse(
            "#complex.number<:f32 1.0, 2.0> : complex<f32>")
        typed_string = ir.StringAttr.get_typed(i32, "x")
        for call in (
                lambda: ir.DenseElementsAttr.get(cyclic),
                lambda: ir.DenseElementsAttr.get(deep),
                lambda: ir.DenseElementsAttr.get([typed_string] * 2),
                lambda: ir.DenseElementsAttr.get_splat(
                    ir.RankedTensorType.get([2], i32), typed_string),
                lambda: ir.DenseElementsAttr.get(
                    [ir.StringAttr.get_typed(f32, "x")]),
                lambda: ir.DenseElementsAttr.get([complex_number]),
                lambda: ir.DenseElementsAttr.get(
                    [1.5, 2], type=ir.RankedTensorType.get([2], i32)),
                lambda: ir.DenseElementsAttr.get(
                    [1, "3"], type=ir.RankedTensorType.get([2], i32)),
                lambda: ir.DenseElementsAttr.get(
                    ["1.0"], type=ir.RankedTensorType.get([1], f32)),
                lambda: ir.DenseElementsAttr.get(
                    [True, 2], type=ir.RankedTensorType.get(
                        [2], ir.IntegerType.get_signless(1))),
                lambda: ir.DenseElementsAttr.get(
                    bytes([0x1F, 0xF0]), type=ir.RankedTensorType.get([2], i4)),
                lambda: ir.FloatAttr.get(f4, float("nan")),
                lambda: ir.FloatAttr.get(f6, float("inf")),
                lambda: ir.DenseElementsAttr.get(
                    [1.0, float("-inf")], type=ir.RankedTensorType.get([2], f4)),
                lambda: ir.BoolAttr.get(2),
                # A lone surrogate has no UTF-8 form (pybind11's
                # RuntimeError before, a TypeError upstream).
                lambda: ir.StringAttr.get("a\udc80")):
            try:
                call()
                print("accepted")
            except (ValueError, TypeError) as e:
                print(f"{type(e).__name__}:", str(e).splitlines()[0])
        print("still built:",
              ir.DenseElementsAttr.get(
                  bytes([1, 2]), type=ir.RankedTensorType.get([2], i4)),
              ir.DenseElementsAttr.get(
                  [True, 0], type=ir.RankedTensorType.get(
                      [2], ir.IntegerType.get_signless(1))),
              ir.FloatAttr.get(f4, 6.0), ir.BoolAttr.get(True))
        print(ir.DenseElementsAttr.get(
            bytes([0xFE, 0xF8, 0x07]), type=ir.RankedTensorType.get([3], i4)))
        try:
            ir.DenseElementsAttr.get(
                bytes([0xFE]), type=ir.RankedTensorType.get([1], f4))
        except ValueError as e:
            print("ValueError:", e)
