"""The scalar ops of a body: which arith/math/complex op each OpDSL function
becomes for the element types it is applied to.

The choices follow Linalg's own region builder for named ops (and
upstream's OpDSL emitter), so that an op emitted as ``linalg.generic``
computes what the named op computes: integers are signless and the
``_signed``/``_unsigned`` variants pick the op; on i1, ``add`` is ``ori``
and ``mul`` is ``andi``. Combinations they do not define raise TypeError.
"""

from .....ir import (ComplexType, F64Type, FloatAttr, FloatType, IndexType,
                     IntegerAttr, IntegerType)
from .... import arith, complex as complex_dialect, math

__all__ = ["constant", "cast", "apply"]


def _is_float(t):
    return isinstance(t, FloatType)


def _is_int(t):
    return isinstance(t, IntegerType)


def _is_index(t):
    return isinstance(t, IndexType)


def _is_bool(t):
    return isinstance(t, IntegerType) and t.width == 1


def _is_complex(t):
    return isinstance(t, ComplexType)


def constant(value):
    """``const``: an i64 for an int, an f64 for a float."""
    if isinstance(value, int):
        i64 = IntegerType.get_signless(64)
        if value >= 2**63:
            value -= 2**64  # an unsigned 64-bit pattern
        return arith.ConstantOp(i64, IntegerAttr.get(i64, value)).result
    f64 = F64Type.get()
    return arith.ConstantOp(f64, FloatAttr.get(f64, value)).result


def _cast_error(name, value, to_type, why=""):
    return TypeError(f"{name} cannot convert {value.type} to {to_type}{why}")


def cast(name, to_type, value, unsigned):
    """``TypeFn.cast_signed``/``cast_unsigned`` of ``value`` to ``to_type``."""
    from_type = value.type
    if from_type == to_type:
        return value
    if _is_int(to_type):
        if _is_float(from_type):
            op = arith.FPToUIOp if unsigned else arith.FPToSIOp
            return op(to_type, value).result
        if _is_index(from_type):
            # Signed or not, as the named ops' C++ bodies do.
            return arith.IndexCastOp(to_type, value).result
        if _is_int(from_type):
            if to_type.width > from_type.width:
                op = arith.ExtUIOp if unsigned else arith.ExtSIOp
                return op(to_type, value).result
            return arith.TruncIOp(to_type, value).result
    elif _is_float(to_type):
        if _is_int(from_type):
            op = arith.UIToFPOp if unsigned else arith.SIToFPOp
            return op(to_type, value).result
        if _is_float(from_type):
            if to_type.width > from_type.width:
                return arith.ExtFOp(to_type, value).result
            if to_type.width < from_type.width:
                return arith.TruncFOp(to_type, value).result
            raise _cast_error(name, value, to_type,
                              " (same width, different format)")
    elif _is_index(to_type):
        if _is_int(from_type):
            return arith.IndexCastOp(to_type, value).result
    raise _cast_error(name, value, to_type)


def _unsupported(name, values):
    types = ", ".join(str(v.type) for v in values)
    return TypeError(f"{name} is not defined on ({types})")


def _float_unary(op, complex_op=None):
    """A math op on floats (and, given ``complex_op``, a complex op on
    complex numbers: ``abs`` of one is its float magnitude)."""
    def build(name, x):
        if _is_float(x.type):
            return op(x).result
        if complex_op and _is_complex(x.type):
            return complex_op(x).result
        raise _unsupported(name, [x])
    return build


def _negf(name, x):
    if _is_float(x.type):
        return arith.NegFOp(x).result
    if _is_complex(x.type):
        return complex_dialect.NegOp(x).result
    raise _unsupported(name, [x])


def _reciprocal(name, x):
    if _is_float(x.type):
        one = arith.ConstantOp(x.type, FloatAttr.get(x.type, 1.0)).result
        return arith.DivFOp(one, x).result
    raise _unsupported(name, [x])


def _square(name, x):
    if _is_float(x.type):
        return arith.MulFOp(x, x).result
    raise _unsupported(name, [x])


def _binary(float_op=None, int_op=None, bool_op=None, complex_op=None,
            bool_allowed=True):
    def build(name, lhs, rhs):
        t = lhs.type
        if float_op and _is_float(t):
            return float_op(lhs, rhs).result
        if _is_bool(t):
            if bool_op:
                return bool_op(lhs, rhs).result
            if not bool_allowed:
                raise _unsupported(name, [lhs, rhs])
        if int_op and (_is_int(t) or _is_index(t)):
            return int_op(lhs, rhs).result
        if complex_op and _is_complex(t):
            return complex_op(lhs, rhs).result
        raise _unsupported(name, [lhs, rhs])
    return build


def _select(name, condition, true_value, false_value):
    if not _is_bool(condition.type):
        raise TypeError(f"{name} needs an i1 condition, got {condition.type}")
    if true_value.type != false_value.type:
        raise TypeError(f"{name} chooses between values of one type, got "
                        f"{true_value.type} and {false_value.type}")
    return arith.SelectOp(condition, true_value, false_value).result


_FUNCTIONS = {
    "exp": _float_unary(math.ExpOp, complex_dialect.ExpOp),
    "log": _float_unary(math.LogOp, complex_dialect.LogOp),
    "abs": _float_unary(math.AbsFOp, complex_dialect.AbsOp),
    "ceil": _float_unary(math.CeilOp),
    "floor": _float_unary(math.FloorOp),
    "negf": _negf,
    "reciprocal": _reciprocal,
    "round": _float_unary(math.RoundOp),
    "sqrt": _float_unary(math.SqrtOp),
    "rsqrt": _float_unary(math.RsqrtOp),
    "square": _square,
    "tanh": _float_unary(math.TanhOp),
    "erf": _float_unary(math.ErfOp),
    "add": _binary(arith.AddFOp, arith.AddIOp, arith.OrIOp,
                   complex_dialect.AddOp),
    "sub": _binary(arith.SubFOp, arith.SubIOp, None, complex_dialect.SubOp,
                   bool_allowed=False),
    "mul": _binary(arith.MulFOp, arith.MulIOp, arith.AndIOp,
                   complex_dialect.MulOp),
    "div": _binary(arith.DivFOp, arith.DivSIOp, None, complex_dialect.DivOp,
                   bool_allowed=False),
    "div_unsigned": _binary(None, arith.DivUIOp, bool_allowed=False),
    "max_signed": _binary(arith.MaximumFOp, arith.MaxSIOp),
    "min_signed": _binary(arith.MinimumFOp, arith.MinSIOp),
    "max_unsigned": _binary(arith.MaximumFOp, arith.MaxUIOp),
    "min_unsigned": _binary(arith.MinimumFOp, arith.MinUIOp),
    "powf": _binary(math.PowFOp),
    "select": _select,
}


def apply(name, *values):
    """Applies the unary, binary or ternary function ``name``; the operands
    of a binary function must have one type."""
    if len(values) == 2 and values[0].type != values[1].type:
        raise TypeError(f"{name} needs operands of one type, got "
                        f"{values[0].type} and {values[1].type} (convert one "
                        f"with TypeFn)")
    return _FUNCTIONS[name](name, *values)
