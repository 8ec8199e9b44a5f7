# RUN: %PYTHON %s | FileCheck %s
# AffineExpr (operators, subclasses, casting), AffineMap, IntegerSet and
# their attributes.

from mlir_tracking import ir


def run(f):
    print("\nTEST:", f.__name__)
    with ir.Context():
        f()
    return f


# CHECK-LABEL: TEST: test_affine_expr
# CHECK: AffineExpr(d0) 0 0 3 AffineDimExpr
# CHECK-NEXT: AffineExpr(d0 * 2 + s0 mod 4 - 1) AffineAddExpr d0 * 2 + s0 mod 4 - 1
# CHECK-NEXT: AffineExpr(d0 + 2) AffineExpr(d0 - d1) AffineExpr(d1 * 3) AffineExpr(-d0) AffineExpr(7 mod d0)
# CHECK-NEXT: AffineExpr(d0 floordiv 2) AffineExpr(d0 ceildiv 2)
# CHECK-NEXT: AffineExpr(d0 floordiv 3) AffineExpr(d1 ceildiv 5)
# CHECK-NEXT: AffineAddExpr AffineExpr(d0) AffineExpr(d1) True
# CHECK-NEXT: AffineExpr(d0 * 4) AffineExpr(d0 mod 4)
# CHECK-NEXT: AffineConstantExpr AffineExpr(4)
# CHECK-NEXT: True False
# CHECK-NEXT: AffineExpr(d2)
# CHECK-NEXT: ValueError: Cannot cast affine expression to AffineSymbolExpr (from AffineExpr(d0))
# CHECK-NEXT: True False True
# CHECK-NEXT: AffineExpr((d0 + 10) * 2 + s0 mod 4 - 1) AffineExpr(d1 + d0 + d1)
# CHECK-NEXT: AffineExpr(d1) AffineExpr(s2)
# CHECK-NEXT: AffineExpr(s0)
# CHECK-NEXT: True
# CHECK-NEXT: TypeError: AffineExpr + str
@run
def test_affine_expr():
    d0 = ir.AffineDimExpr.get(0)
    d1 = ir.AffineExpr.get_dim(1)
    s0 = ir.AffineSymbolExpr.get(0)
    c = ir.AffineConstantExpr.get(3)
    print(repr(d0), d0.position, s0.position, c.value, type(d1).__name__)
    e = d0 * 2 + s0 % 4 - 1
    print(repr(e), type(e).__name__, str(e))
    print(repr(2 + d0), repr(d0 - d1), repr(3 * d1), repr(-d0), repr(7 % d0))
    print(repr(ir.AffineExpr.get_floor_div(d0, 2)), repr(ir.AffineExpr.get_ceil_div(d0, 2)))
    print(repr(ir.AffineFloorDivExpr.get(d0, c)), repr(ir.AffineCeilDivExpr.get(d1, 5)))
    add = ir.AffineAddExpr.get(d0, d1)
    print(type(add).__name__, repr(add.lhs), repr(add.rhs), isinstance(add, ir.AffineBinaryExpr))
    print(repr(ir.AffineMulExpr.get(d0, 4)), repr(ir.AffineModExpr.get(d0, 4)))
    # MLIR simplifies: a constant sum is a constant, whatever class was asked.
    print(type(ir.AffineAddExpr.get(c, 1)).__name__, repr(c + 1))
    print(ir.AffineDimExpr.isinstance(d0), ir.AffineDimExpr.isinstance(s0))
    print(repr(ir.AffineDimExpr(ir.AffineExpr.get_dim(2))))
    try:
        ir.AffineSymbolExpr(d0)
    except ValueError as err:
        print("ValueError:", err)
    print(d0 == ir.AffineDimExpr.get(0), d0 == d1, hash(d0) == hash(ir.AffineExpr.get_dim(0)))
    m = ir.AffineMap.get(2, 0, [d1, d0 + d1])
    print(repr(e.compose(ir.AffineMap.get(1, 1, [d0 + 10]))), repr((d0 + d1).compose(m)))
    print(repr(d0.shift_dims(2, 1)), repr(s0.shift_symbols(1, 2)))
    print(repr(ir.AffineExpr.simplify_affine_expr(d0 * 2 - d0 * 2 + s0, 1, 1)))
    print(ir.AffineExpr._CAPICreate(e._CAPIPtr) == e)
    try:
        d0 + "x"
    except TypeError:
        print("TypeError: AffineExpr + str")


# CHECK-LABEL: TEST: test_affine_map
# CHECK: AffineMap((d0, d1, d2)[s0] -> (d2, d0 + s0, d1)) 3 1 4 [AffineExpr(d2), AffineExpr(d0 + s0), AffineExpr(d1)] False
# CHECK-NEXT: AffineMap((d0, d1) -> (d0, d1)) AffineMap(() -> ()) AffineMap(() -> (7))
# CHECK-NEXT: AffineMap((d0, d1, d2) -> (d1, d2))
# CHECK-NEXT: AffineMap((d0, d1, d2) -> (d2, d0, d1)) True True
# CHECK-NEXT: RuntimeError: Invalid permutation when attempting to create an AffineMap
# CHECK-NEXT: AffineMap((d0, d1, d2)[s0] -> (d2, d1)) AffineMap((d0, d1, d2)[s0] -> (d2)) AffineMap((d0, d1, d2)[s0] -> (d1))
# CHECK-NEXT: ValueError: result position out of bounds
# CHECK-NEXT: AffineMap((d0, d1, d2)[s0] -> (d0 * 3, d0 + s0, d1))
# CHECK-NEXT: AffineMap((d0, d1, d2) -> (d0, d1, d2))
# CHECK-NEXT: [AffineMap((d0)[s0] -> (d0 + s0))]
# CHECK-NEXT: True False
# CHECK-NEXT: AffineMapAttr(affine_map<(d0, d1, d2)[s0] -> (d2, d0 + s0, d1)>) True AffineMapAttr
# CHECK-NEXT: True
@run
def test_affine_map():
    d0, d1, d2 = (ir.AffineDimExpr.get(i) for i in range(3))
    s0 = ir.AffineSymbolExpr.get(0)
    m = ir.AffineMap.get(3, 1, [d2, d0 + s0, d1])
    print(repr(m), m.n_dims, m.n_symbols, m.n_inputs, m.results, m.is_permutation)
    print(repr(ir.AffineMap.get_identity(2)), repr(ir.AffineMap.get_empty()),
          repr(ir.AffineMap.get_constant(7)))
    print(repr(ir.AffineMap.get_minor_identity(3, 2)))
    perm = ir.AffineMap.get_permutation([2, 0, 1])
    print(repr(perm), perm.is_permutation, perm.is_projected_permutation)
    try:
        ir.AffineMap.get_permutation([0, 0])
    except RuntimeError as e:
        print("RuntimeError:", e)
    print(repr(m.get_submap([0, 2])), repr(m.get_major_submap(1)), repr(m.get_minor_submap(1)))
    try:
        m.get_submap([5])
    except ValueError as e:
        print("ValueError:", e)
    print(repr(m.replace(d2, d0 * 3, 3, 1)))
    print(repr(perm.compose(ir.AffineMap.get_permutation([1, 2, 0]))))
    maps = ir.AffineMap.compress_unused_symbols(
        [ir.AffineMap.get(1, 2, [d0 + ir.AffineSymbolExpr.get(1)])], ir.Context.current)
    print(maps)
    print(m == ir.AffineMap.get(3, 1, [d2, d0 + s0, d1]), m == perm)
    attr = ir.AffineMapAttr.get(m)
    print(repr(attr), attr.value == m, type(ir.Attribute.parse(str(attr))).__name__)
    print(ir.AffineMap._CAPICreate(m._CAPIPtr) == m)


# CHECK-LABEL: TEST: test_integer_set
# CHECK: IntegerSet((d0, d1)[s0] : (d0 - s0 == 0, d1 - 10 >= 0)) 2 1 3 1 1 False
# CHECK-NEXT: IntegerSetConstraint(d0 - s0 == 0) AffineExpr(d0 - s0) True
# CHECK-NEXT: IntegerSetConstraint(d1 - 10 >= 0) AffineExpr(d1 - 10) False
# CHECK-NEXT: IntegerSet((d0) : (1 == 0)) True
# CHECK-NEXT: IntegerSet((d0, d1) : (d1 - 5 == 0, d0 - 10 >= 0))
# CHECK-NEXT: ValueError: Expected the number of constraints to match that of equality flags
# CHECK-NEXT: ValueError: Expected non-empty list of constraints
# CHECK-NEXT: ValueError: Expected the number of dimension replacement expressions to match that of dimensions
# CHECK-NEXT: RuntimeError: Invalid expression when attempting to create an IntegerSet (element 1 is int, not AffineExpr)
# CHECK-NEXT: RuntimeError: Invalid expression (None?) when attempting to create an IntegerSet by replacing symbols (element 0 is NoneType, not AffineExpr)
# CHECK-NEXT: RuntimeError: Invalid expression when attempting to create an AffineMap (element 0 is str, not AffineExpr)
# CHECK-NEXT: RuntimeError: Invalid expression (None?) when attempting to create an AffineMap (element 0 is NoneType, not AffineExpr)
# CHECK-NEXT: IntegerSetAttr(affine_set<(d0, d1)[s0] : (d0 - s0 == 0, d1 - 10 >= 0)>) True True
# CHECK-NEXT: capsule: True
@run
def test_integer_set():
    d0, d1 = ir.AffineDimExpr.get(0), ir.AffineDimExpr.get(1)
    s0 = ir.AffineSymbolExpr.get(0)
    iset = ir.IntegerSet.get(2, 1, [d0 - s0, d1 - 10], [True, False])
    print(repr(iset), iset.n_dims, iset.n_symbols, iset.n_inputs,
          iset.n_equalities, iset.n_inequalities, iset.is_canonical_empty)
    for c in iset.constraints:
        print(repr(c), repr(c.expr), c.is_eq)
    empty = ir.IntegerSet.get_empty(1, 0)
    print(repr(empty), empty.is_canonical_empty)
    print(repr(iset.get_replaced([d1, d0], [ir.AffineConstantExpr.get(5)], 2, 0)))
    for bad in [lambda: ir.IntegerSet.get(1, 0, [d0], [True, False]),
                lambda: ir.IntegerSet.get(1, 0, [], []),
                lambda: iset.get_replaced([d0], [], 1, 0)]:
        try:
            bad()
        except ValueError as e:
            print("ValueError:", e)
    # Anything but an AffineExpr in a list of expressions: upstream's
    # RuntimeError, which says whether it was None.
    for bad in [lambda: ir.IntegerSet.get(1, 0, [d0, 1], [True, False]),
                lambda: iset.get_replaced([d1, d0], [None], 2, 0),
                lambda: ir.AffineMap.get(1, 1, ["d0"]),
                lambda: ir.AffineMap.get(1, 1, [None])]:
        try:
            bad()
        except RuntimeError as e:
            print("RuntimeError:", e)
    attr = ir.IntegerSetAttr.get(iset)
    print(repr(attr), attr.value == iset, iset == ir.IntegerSet.get(2, 1, [d0 - s0, d1 - 10], [True, False]))
    # The capsule round trip, as for AffineMap.
    print("capsule:", ir.IntegerSet._CAPICreate(iset._CAPIPtr) == iset)
