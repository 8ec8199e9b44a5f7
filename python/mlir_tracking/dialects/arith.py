"""The ``arith`` dialect (upstream ``mlir.dialects.arith``): generated op
classes, value builders (``arith.addi(a, b)``), enums, and a
``ConstantOp(type, value)`` with ``literal_value``."""

from array import array as _array
from typing import Union as _Union

from ._arith_ops_gen import *  # noqa: F401,F403
from ._arith_ops_gen import _Dialect
from ._arith_enum_gen import *  # noqa: F401,F403
from ._ods_common import _cext as _ods_cext
from ._ods_common import get_default_loc_context as _get_default_loc_context
from ._ods_common import get_op_result_or_op_results as _get_op_result_or_op_results
from ..ir import (
    Attribute,
    DenseFPElementsAttr,
    DenseIntElementsAttr,
    FloatAttr,
    FloatType,
    IndexType,
    IntegerAttr,
    IntegerType,
    Type,
    Value,
)


def _is_integer_like_type(type: Type) -> bool:
    return isinstance(type, (IntegerType, IndexType))


def _is_float_type(type: Type) -> bool:
    return isinstance(type, FloatType)


@_ods_cext.register_operation(_Dialect, replace=True)
class ConstantOp(ConstantOp):  # noqa: F405
    """``arith.constant`` from a typed attribute, or from a type and a
    Python int, float or ``array.array`` (for a dense shaped type)."""

    def __init__(self, result, value=None, *, loc=None, ip=None):
        if value is None:
            if not isinstance(result, Attribute):
                raise TypeError(
                    "ConstantOp(value) needs a typed Attribute; use "
                    "ConstantOp(type, python_value) for Python values"
                )
            super().__init__(result, loc=loc, ip=ip)
            return
        if not isinstance(result, Type):
            raise TypeError(f"ConstantOp(type, value): expected a Type, got {result!r}")
        if isinstance(value, Attribute):
            attr = value
        elif isinstance(value, bool) or isinstance(value, int):
            if not _is_integer_like_type(result):
                raise TypeError(f"integer constant of non-integer type {result}")
            attr = IntegerAttr.get(result, int(value))
        elif isinstance(value, float):
            if not _is_float_type(result):
                raise TypeError(f"float constant of non-float type {result}")
            attr = FloatAttr.get(result, value)
        elif isinstance(value, _array):
            width = result.element_type.width
            if 8 * value.itemsize != width:
                raise ValueError(
                    f"Mismatching array element ({8 * value.itemsize}) and type ({width}) width."
                )
            if value.typecode in ("b", "h", "i", "l", "q"):
                attr = DenseIntElementsAttr.get(value, type=result)
            elif value.typecode in ("f", "d"):
                attr = DenseFPElementsAttr.get(value, type=result)
            else:
                raise ValueError(f'Unsupported typecode: "{value.typecode}".')
        else:
            raise TypeError(
                f"constant value must be an int, float, array.array or Attribute, got {type(value).__name__}"
            )
        super().__init__(attr, loc=loc, ip=ip)

    @classmethod
    def create_index(cls, value: int, *, loc=None, ip=None):
        """An index constant."""
        return cls(IndexType.get(context=_get_default_loc_context(loc)), value, loc=loc, ip=ip)

    @property
    def type(self) -> Type:
        """The result type."""
        return self.results[0].type

    @property
    def value(self) -> Attribute:
        """The value attribute."""
        return self.operation.attributes["value"]

    @property
    def literal_value(self) -> _Union[int, float]:
        """The value as a Python int or float (ValueError for other
        constants, e.g. dense ones)."""
        if _is_integer_like_type(self.type):
            return IntegerAttr(self.value).value
        if _is_float_type(self.type):
            return FloatAttr(self.value).value
        raise ValueError("only integer and float constants have literal values")


def constant(result, value=None, *, loc=None, ip=None) -> Value:
    """The result of a new ``arith.constant`` (see ConstantOp)."""
    return _get_op_result_or_op_results(ConstantOp(result, value, loc=loc, ip=ip))
