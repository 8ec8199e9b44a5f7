# RUN: %PYTHON %s | FileCheck %s
# Typed types: upstream class names, get constructors, casting constructors,
# isinstance, static_typeid/typeid, properties, reprs and downcasting of
# every type the API returns.

from mlir_tracking import ir


def run(f):
    print("\nTEST:", f.__name__)
    with ir.Context(), ir.Location.unknown():
        f()
    return f


# CHECK-LABEL: TEST: test_integer_type
# CHECK: IntegerType(i32) IntegerType(si8) IntegerType(ui64)
# CHECK-NEXT: 32 True True True False
# CHECK-NEXT: True False
# CHECK-NEXT: True builtin.integer
# CHECK-NEXT: True True
# CHECK-NEXT: True i32
@run
def test_integer_type():
    i32 = ir.IntegerType.get_signless(32)
    si8 = ir.IntegerType.get_signed(8)
    ui64 = ir.IntegerType.get_unsigned(64)
    print(repr(i32), repr(si8), repr(ui64))
    print(i32.width, i32.is_signless, si8.is_signed, ui64.is_unsigned, si8.is_signless)
    print(ir.IntegerType.isinstance(i32), ir.IntegerType.isinstance(ir.IndexType.get()))
    print(isinstance(i32, ir.Type), ir.IntegerType.type_name)
    print(i32.typeid == ir.IntegerType.static_typeid, hash(i32.typeid) == hash(ir.IntegerType.static_typeid))
    print(i32 == ir.Type.parse("i32"), str(i32))


# CHECK-LABEL: TEST: test_integer_type_by_signedness
@run
def test_integer_type_by_signedness():
    # Upstream 22's IntegerType.get(width, signedness=SIGNLESS) with the
    # IntegerType.Signedness enum (its values also on the class) and the
    # `signedness` property, next to get_signless/get_signed/get_unsigned.
    kinds = ir.IntegerType.Signedness
    # CHECK-NEXT: i16 si16 ui16 ui1
    print(ir.IntegerType.get(16), ir.IntegerType.get(16, kinds.SIGNED),
          ir.IntegerType.get(16, ir.IntegerType.UNSIGNED),
          ir.IntegerType.get(width=1, signedness=kinds.UNSIGNED))
    # CHECK-NEXT: True True
    print(ir.IntegerType.get(5, kinds.SIGNED) == ir.IntegerType.get_signed(5),
          ir.IntegerType.get(5) == ir.IntegerType.get_signless(5))
    # CHECK-NEXT: SIGNLESS SIGNED UNSIGNED
    print(*(ir.IntegerType(ir.Type.parse(text)).signedness.name
            for text in ("i9", "si9", "ui9")))
    # CHECK-NEXT: True 0 1 2
    print(kinds.SIGNED is ir.IntegerType.SIGNED, int(kinds.SIGNLESS),
          int(kinds.SIGNED), int(kinds.UNSIGNED))
    # The signedness is the enum, not a number or a name; the width is
    # checked as get_signless checks it; the context may be given.
    for bad in (1, "signed", None):
        try:
            ir.IntegerType.get(8, bad)
        except TypeError:
            # CHECK-NEXT: TypeError
            # CHECK-NEXT: TypeError
            # CHECK-NEXT: TypeError
            print("TypeError")
    try:
        ir.IntegerType.get(1 << 24, kinds.SIGNED)
    except ValueError as e:
        # CHECK-NEXT: integer bitwidth is limited to 16777215 bits, got 16777216
        print(e)
    other = ir.Context()
    # CHECK-NEXT: True si3
    typed = ir.IntegerType.get(3, kinds.SIGNED, context=other)
    print(typed.context is other, typed)


# CHECK-LABEL: TEST: test_parse_downcasts
# CHECK: IntegerType IntegerType(i1)
# CHECK-NEXT: IndexType IndexType(index)
# CHECK-NEXT: F16Type F16Type(f16)
# CHECK-NEXT: BF16Type BF16Type(bf16)
# CHECK-NEXT: F32Type F32Type(f32)
# CHECK-NEXT: F64Type F64Type(f64)
# CHECK-NEXT: FloatTF32Type FloatTF32Type(tf32)
# CHECK-NEXT: Float8E4M3FNType Float8E4M3FNType(f8E4M3FN)
# CHECK-NEXT: Float8E5M2Type Float8E5M2Type(f8E5M2)
# CHECK-NEXT: Float4E2M1FNType Float4E2M1FNType(f4E2M1FN)
# CHECK-NEXT: NoneType NoneType(none)
# CHECK-NEXT: ComplexType ComplexType(complex<f32>)
# CHECK-NEXT: TupleType TupleType(tuple<i32, f32>)
# CHECK-NEXT: FunctionType FunctionType((i32) -> f32)
# CHECK-NEXT: VectorType VectorType(vector<4xf32>)
# CHECK-NEXT: RankedTensorType RankedTensorType(tensor<2x?xf32>)
# CHECK-NEXT: UnrankedTensorType UnrankedTensorType(tensor<*xi8>)
# CHECK-NEXT: MemRefType MemRefType(memref<2xf32>)
# CHECK-NEXT: UnrankedMemRefType UnrankedMemRefType(memref<*xf32>)
# CHECK-NEXT: OpaqueType OpaqueType(!foo<"bar">)
# CHECK-NEXT: Type Type(f80)
# CHECK-NEXT: Type F32Type
@run
def test_parse_downcasts():
    ir.Context.current.allow_unregistered_dialects = True
    for asm in ["i1", "index", "f16", "bf16", "f32", "f64", "tf32", "f8E4M3FN",
                "f8E5M2", "f4E2M1FN", "none", "complex<f32>", "tuple<i32, f32>",
                "(i32) -> f32", "vector<4xf32>", "tensor<2x?xf32>", "tensor<*xi8>",
                "memref<2xf32>", "memref<*xf32>", '!foo<"bar">', "f80"]:
        t = ir.Type.parse(asm)
        print(type(t).__name__, repr(t))
    # maybe_downcast on a generic Type.
    base = ir.Type(ir.F32Type.get())
    print(type(base).__name__, type(base.maybe_downcast()).__name__)


# CHECK-LABEL: TEST: test_casting_constructors
# CHECK: IntegerType(i16) 16
# CHECK-NEXT: ValueError: Cannot cast type to F32Type (from Type(i16))
# CHECK-NEXT: ValueError: Cannot cast type to ShapedType (from Type(i16))
# CHECK-NEXT: ShapedType 1
# CHECK-NEXT: True 16
# CHECK-NEXT: AttributeError: FloatType has no typeid.
@run
def test_casting_constructors():
    t = ir.Type.parse("i16")
    print(repr(ir.IntegerType(t)), ir.IntegerType(t).width)
    try:
        ir.F32Type(t)
    except ValueError as e:
        print("ValueError:", e)
    try:
        ir.ShapedType(t)
    except ValueError as e:
        print("ValueError:", e)
    shaped = ir.ShapedType(ir.Type.parse("tensor<3xi8>"))
    print(type(shaped).__name__, shaped.rank)
    print(ir.FloatType.isinstance(ir.F16Type.get()), ir.FloatType(ir.BF16Type.get()).width)
    try:
        ir.FloatType.static_typeid
    except AttributeError as e:
        print("AttributeError:", e)


# CHECK-LABEL: TEST: test_float_types
# CHECK: F16Type(f16) 16 True True
# CHECK-NEXT: BF16Type(bf16) 16 True True
# CHECK-NEXT: F32Type(f32) 32 True True
# CHECK-NEXT: F64Type(f64) 64 True True
# CHECK-NEXT: FloatTF32Type(tf32) 19 True True
# CHECK-NEXT: Float4E2M1FNType(f4E2M1FN) 4 True True
# CHECK-NEXT: Float6E2M3FNType(f6E2M3FN) 6 True True
# CHECK-NEXT: Float6E3M2FNType(f6E3M2FN) 6 True True
# CHECK-NEXT: Float8E4M3FNType(f8E4M3FN) 8 True True
# CHECK-NEXT: Float8E5M2Type(f8E5M2) 8 True True
# CHECK-NEXT: Float8E4M3Type(f8E4M3) 8 True True
# CHECK-NEXT: Float8E4M3FNUZType(f8E4M3FNUZ) 8 True True
# CHECK-NEXT: Float8E4M3B11FNUZType(f8E4M3B11FNUZ) 8 True True
# CHECK-NEXT: Float8E5M2FNUZType(f8E5M2FNUZ) 8 True True
# CHECK-NEXT: Float8E3M4Type(f8E3M4) 8 True True
# CHECK-NEXT: Float8E8M0FNUType(f8E8M0FNU) 8 True True
@run
def test_float_types():
    for cls in [ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type, ir.FloatTF32Type,
                ir.Float4E2M1FNType, ir.Float6E2M3FNType, ir.Float6E3M2FNType,
                ir.Float8E4M3FNType, ir.Float8E5M2Type, ir.Float8E4M3Type,
                ir.Float8E4M3FNUZType, ir.Float8E4M3B11FNUZType,
                ir.Float8E5M2FNUZType, ir.Float8E3M4Type, ir.Float8E8M0FNUType]:
        t = cls.get()
        print(repr(t), t.width, isinstance(t, ir.FloatType), t.typeid == cls.static_typeid)


# CHECK-LABEL: TEST: test_shaped_types
# CHECK: RankedTensorType(tensor<2x?xf32>) 2 True True False
# CHECK-NEXT: True True 2 F32Type(f32)
# CHECK-NEXT: True True None
# CHECK-NEXT: RankedTensorType(tensor<4xf32, "enc">) StringAttr("enc")
# CHECK-NEXT: IndexError: dimension out of range
# CHECK-NEXT: UnrankedTensorType(tensor<*xf32>) False
# CHECK-NEXT: ValueError: calling this method requires that the type has a rank.
# CHECK-NEXT: VectorType(vector<2x[3]xf32>) True [False, True]
# CHECK-NEXT: VectorType(vector<4xf32>) False
# CHECK-NEXT: MLIRError: Invalid type 1
# CHECK-NEXT: ValueError: Expected len(scalable) == len(shape).
# CHECK-NEXT: MemRefType(memref<4x8xf32, 1>) AffineMapAttr(affine_map<(d0, d1) -> (d0, d1)>) AffineMap((d0, d1) -> (d0, d1)) IntegerAttr(1 : i64)
# CHECK-NEXT: ([8, 1], 0)
# CHECK-NEXT: MemRefType(memref<4x8xf32, strided<[16, 1], offset: 2>>) ([16, 1], 2)
# CHECK-NEXT: UnrankedMemRefType(memref<*xf32>) None
@run
def test_shaped_types():
    f32 = ir.F32Type.get()
    dyn = ir.ShapedType.get_dynamic_size()
    t = ir.RankedTensorType.get([2, dyn], f32)
    print(repr(t), t.rank, t.shape == [2, dyn], t.has_rank, t.has_static_shape)
    print(t.is_dynamic_dim(1), t.is_static_dim(0), t.get_dim_size(0), repr(t.element_type))
    print(ir.ShapedType.is_dynamic_size(dyn), ir.ShapedType.is_static_size(4), t.encoding)
    enc = ir.RankedTensorType.get([4], f32, encoding=ir.StringAttr.get("enc"))
    print(repr(enc), repr(enc.encoding))
    try:
        t.get_dim_size(5)
    except IndexError as e:
        print("IndexError:", e)
    u = ir.UnrankedTensorType.get(f32)
    print(repr(u), u.has_rank)
    try:
        u.rank
    except ValueError as e:
        print("ValueError:", e)
    v = ir.VectorType.get([2, 3], f32, scalable_dims=[1])
    print(repr(v), v.scalable, v.scalable_dims)
    print(repr(ir.VectorType.get([4], f32)), ir.VectorType.get([4], f32).scalable)
    try:
        ir.VectorType.get([2], ir.NoneType.get())
    except ir.MLIRError as e:
        print("MLIRError:", e.message, len(e.error_diagnostics))
    try:
        ir.VectorType.get([2], f32, scalable=[True])
        ir.VectorType.get([2], f32, scalable=[True, False])
    except ValueError as e:
        print("ValueError:", e)
    m = ir.MemRefType.get([4, 8], f32, memory_space=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 1))
    print(repr(m), repr(m.layout), repr(m.affine_map), repr(m.memory_space))
    print(m.get_strides_and_offset())
    strided = ir.MemRefType.get([4, 8], f32, layout=ir.StridedLayoutAttr.get(2, [16, 1]))
    print(repr(strided), strided.get_strides_and_offset())
    um = ir.UnrankedMemRefType.get(f32, None)
    print(repr(um), um.memory_space)


# CHECK-LABEL: TEST: test_other_types
# CHECK: ComplexType(complex<f32>) F32Type(f32)
# CHECK-NEXT: ValueError: invalid 'Type(index)' and expected floating point or integer type.
# CHECK-NEXT: TupleType(tuple<i32, f32>) 2 F32Type(f32)
# CHECK-NEXT: FunctionType((i32, f32) -> index) [IntegerType(i32), F32Type(f32)] [IndexType(index)]
# CHECK-NEXT: OpaqueType(!mydialect.payload) mydialect payload
# CHECK-NEXT: NoneType(none) IndexType(index)
@run
def test_other_types():
    i32 = ir.IntegerType.get_signless(32)
    f32 = ir.F32Type.get()
    c = ir.ComplexType.get(f32)
    print(repr(c), repr(c.element_type))
    try:
        ir.ComplexType.get(ir.IndexType.get())
    except ValueError as e:
        print("ValueError:", e)
    tup = ir.TupleType.get_tuple([i32, f32])
    print(repr(tup), tup.num_types, repr(tup.get_type(1)))
    fn = ir.FunctionType.get([i32, f32], [ir.IndexType.get()])
    print(repr(fn), fn.inputs, fn.results)
    ir.Context.current.allow_unregistered_dialects = True
    op = ir.OpaqueType.get("mydialect", "payload")
    print(repr(op), op.dialect_namespace, op.data)
    print(repr(ir.NoneType.get()), repr(ir.IndexType.get()))


# CHECK-LABEL: TEST: test_api_returns_downcast
# CHECK: TypeAttr
# CHECK-NEXT: FunctionType((i32, tensor<4xf32>) -> i32) ['IntegerType', 'RankedTensorType']
# CHECK-NEXT: ['IntegerType(i32)', 'RankedTensorType(tensor<4xf32>)']
# CHECK-NEXT: StringAttr("f")
@run
def test_api_returns_downcast():
    m = ir.Module.parse("""
      func.func @f(%a: i32, %t: tensor<4xf32>) -> i32 {
        return %a : i32
      }""")
    func = m.body.operations[0]
    print(type(func.attributes["function_type"]).__name__)
    ftype = func.attributes["function_type"].value
    print(repr(ftype), [type(t).__name__ for t in ftype.inputs])
    entry = func.regions[0].blocks[0]
    print([repr(a.type) for a in entry.arguments])
    print(repr(func.attributes["sym_name"]))


# CHECK-LABEL: TEST: test_type_caster
# CHECK: RuntimeError: Type caster is already registered for this TypeID; pass replace=True
# CHECK-NEXT: MyIndex!
# CHECK-NEXT: IndexType(index)
@run
def test_type_caster():
    class MyIndex(ir.IndexType):
        def __repr__(self):
            return "MyIndex!"

    try:
        ir.register_type_caster(ir.IndexType.static_typeid, lambda t: MyIndex(t))
    except RuntimeError as e:
        print("RuntimeError:", e)

    @ir.register_type_caster(ir.IndexType.static_typeid, replace=True)
    def cast_index(t):
        return MyIndex(t)

    print(repr(ir.Type.parse("index")))
    ir.register_type_caster(ir.IndexType.static_typeid, lambda t: ir.IndexType(t), replace=True)
    print(repr(ir.Type.parse("index")))


# Inputs that crashed or built broken types (adversarial pass 56).
# CHECK-LABEL: TEST: test_hostile_type_inputs
# CHECK: ValueError: a memref layout must be an attribute with the memref layout interface (an AffineMapAttr, a strided layout, ...), got "x"
# CHECK-NEXT: ValueError: a memref layout must be an attribute with the memref layout interface (an AffineMapAttr, a strided layout, ...), got unit
# CHECK-NEXT: ValueError: integer bitwidth is limited to 16777215 bits, got 16777216
# CHECK-NEXT: ValueError: integer bitwidth is limited to 16777215 bits, got 1073741832
# CHECK-NEXT: ValueError: integer bitwidth is limited to 16777215 bits, got 2147483648
# CHECK-NEXT: still built: memref<2xf32, strided<[1]>> i16777215 True
@run
def test_hostile_type_inputs():
    f32 = ir.F32Type.get()
    for call in (
            lambda: ir.MemRefType.get([2], f32, layout=ir.StringAttr.get("x")),
            lambda: ir.MemRefType.get([2], f32, layout=ir.UnitAttr.get()),
            lambda: ir.IntegerType.get_signless(2**24),
            lambda: ir.IntegerType.get_signed(2**30 + 8),
            lambda: ir.IntegerType.get_unsigned(2**31)):
        try:
            call()
            print("accepted")
        except ValueError as e:
            print("ValueError:", e)
    widest = ir.IntegerType.get_signless(2**24 - 1)
    print("still built:",
          ir.MemRefType.get([2], f32,
                            layout=ir.Attribute.parse("strided<[1]>")),
          widest, ir.Type.parse(str(widest)) == widest)
