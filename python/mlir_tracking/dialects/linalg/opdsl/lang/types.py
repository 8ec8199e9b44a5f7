"""Type variables: the element types of an op definition's operands.

A type variable (``T``, ``U``, ``TV.Acc``) is bound, when the op is emitted,
to the element type of the operands declared with it; all of them must
agree. ``I32``, ``I64``, ``F32`` and ``F64`` are bound in advance to those
types, as upstream's are.
"""

from .....ir import F32Type, F64Type, IntegerType
from .interned import InternedByName

__all__ = ["TypeVar", "TV", "T", "T1", "T2", "U", "V",
           "I32", "I64", "F32", "F64"]


class TypeVar(InternedByName):
    """A named element type variable; one object per name."""

    _instances = {}

    def __repr__(self):
        return f"TypeVar({self.name})"


class _TypeVarNamespace:
    """``TV.x``: the type variable named x."""

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return TypeVar(name)

    def __setattr__(self, name, value):
        raise AttributeError("type variables are named by attribute access "
                             "and cannot be assigned")

    def __repr__(self):
        return "TV"


TV = _TypeVarNamespace()

T = TV.T
T1 = TV.T1
T2 = TV.T2
U = TV.U
V = TV.V

I32 = TV.I32
I64 = TV.I64
F32 = TV.F32
F64 = TV.F64

# The type variables whose type is fixed, and how to get it in the current
# Context.
PREDEFINED = {
    "I32": lambda: IntegerType.get_signless(32),
    "I64": lambda: IntegerType.get_signless(64),
    "F32": F32Type.get,
    "F64": F64Type.get,
}
