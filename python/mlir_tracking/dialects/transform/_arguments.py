"""Argument checks shared by the hand-written builders of the transform
dialect and its extensions (``transform``, ``transform.loop``,
``transform.tensor``, ``transform.memref``, ``transform.bufferization``,
``transform.gpu``).

Upstream's builders pass what they are given to the generated ones; here a
wrong argument is refused with a ``TypeError`` (or a ``ValueError`` for a
right kind of value that cannot be used) naming the builder and the
argument, before anything is built.
"""

from collections.abc import Sequence as _Sequence

from .._ods_common import get_op_result_or_value as _get_op_result_or_value
from ...ir import Attribute as _Attribute
from ...ir import BoolAttr as _BoolAttr
from ...ir import IntegerAttr as _IntegerAttr
from ...ir import OpResultList as _OpResultList
from ...ir import OpView as _OpView
from ...ir import Operation as _Operation
from ...ir import StringAttr as _StringAttr
from ...ir import Type as _Type
from ...ir import Value as _Value

HANDLES = (_Value, _Operation, _OpView)


def handle(value, builder, name="target"):
    """The Value `value` stands for: itself, or the single result of an op."""
    if isinstance(value, (_Value, _OpResultList)):
        return _get_op_result_or_value(value)
    if isinstance(value, (_Operation, _OpView)):
        count = len(value.results)
        if count != 1:
            raise ValueError(
                f"{builder}: {name} must be a handle; the op "
                f"'{value.name if isinstance(value, _Operation) else value.operation.name}'"
                f" given has {count} results, not one")
        return value.results[0]
    raise TypeError(f"{builder}: {name} must be a handle (a Value or a "
                    f"one-result op), got {type(value).__name__}")


def handles(values, builder, name="handles"):
    """The Values of a sequence of handles (or of an op's results)."""
    if isinstance(values, (_Operation, _OpView)):
        return list(values.results)
    if isinstance(values, (_Value, _Type, str, bytes)) \
            or not isinstance(values, _Sequence) \
            and not isinstance(values, _OpResultList):
        raise TypeError(f"{builder}: {name} must be a sequence of handles, "
                        f"got {type(values).__name__}")
    return [handle(value, builder, f"each of {name}") for value in values]


def type_(value, builder, name):
    """`value`, checked to be a Type."""
    if not isinstance(value, _Type):
        raise TypeError(f"{builder}: {name} must be a Type, got "
                        f"{type(value).__name__}")
    return value


def types(values, builder, name):
    """A list of Types, from a sequence of them."""
    if isinstance(values, (_Type, str, bytes)) \
            or not isinstance(values, _Sequence):
        raise TypeError(f"{builder}: {name} must be a sequence of Types, got "
                        f"{type(values).__name__}")
    return [type_(value, builder, f"each of {name}") for value in values]


def integer(value, builder, name, *, optional=False, minimum=None):
    """An int or an IntegerAttr (None passes when `optional`)."""
    if value is None and optional:
        return None
    given = value
    if isinstance(value, _IntegerAttr):
        value = value.value
    elif isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{builder}: {name} must be an int or an "
                        f"IntegerAttr, got {type(value).__name__}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{builder}: {name} must be >= {minimum}, got "
                         f"{value}")
    return given


def integers(value, builder, name):
    """None, an Attribute, or a sequence of ints."""
    if value is None or isinstance(value, _Attribute):
        return value
    if isinstance(value, (str, bytes)) or not isinstance(value, _Sequence) \
            or any(isinstance(v, bool) or not isinstance(v, int)
                   for v in value):
        raise TypeError(f"{builder}: {name} must be a sequence of ints or "
                        f"an Attribute, got {value!r}")
    return list(value)


def flag(value, builder, name):
    """A bool (or None) for a unit-attribute flag."""
    if value is None or isinstance(value, bool):
        return value
    raise TypeError(f"{builder}: {name} must be a bool, got "
                    f"{type(value).__name__}")


def boolean(value, builder, name, *, optional=False):
    """A bool or a BoolAttr (None passes when `optional`)."""
    if value is None and optional:
        return None
    if isinstance(value, (bool, _BoolAttr)):
        return value
    raise TypeError(f"{builder}: {name} must be a bool or a BoolAttr, got "
                    f"{type(value).__name__}")


def string(value, builder, name, *, optional=False):
    """A str or a StringAttr (None passes when `optional`)."""
    if value is None and optional:
        return None
    if isinstance(value, (str, _StringAttr)):
        return value
    raise TypeError(f"{builder}: {name} must be a str or a StringAttr, got "
                    f"{type(value).__name__}")


def positional(*args):
    """The positional arguments given, from a builder's parameters whose
    default is None (trailing Nones are the defaults, not arguments)."""
    count = len(args)
    while count and args[count - 1] is None:
        count -= 1
    return list(args[:count])


def split_types(args, count, rest, builder):
    """Upstream's two forms of an extension builder, ``X(*types, target,
    *rest)`` and ``X(target, *rest)``: (types or None, target, rest values)
    from the positional `args`, where `count` result Types may come first and
    `rest` names the arguments after the target (missing ones are None)."""
    args = list(args)
    if args and isinstance(args[0], _Type):
        given = args[:count]
        if len(given) < count or not all(isinstance(t, _Type) for t in given):
            raise TypeError(f"{builder}: give all {count} result Types or "
                            "none of them")
        args = args[count:]
        result_types = given
    else:
        result_types = None
    if not args:
        raise TypeError(f"{builder}: missing the target handle")
    if len(args) > 1 + len(rest):
        raise TypeError(f"{builder}: too many positional arguments "
                        f"(the target, then {', '.join(rest) or 'nothing'})")
    target = handle(args[0], builder)
    values = args[1:] + [None] * (1 + len(rest) - len(args))
    return result_types, target, values
