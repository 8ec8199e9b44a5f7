"""``@linalg_structured_op``: running the decorated function records an op
definition (its parameters, ``domain``, ``implements``/``defines`` metadata
and assignments); the result is a callable that emits the op.

The definition is analysed once, when it is decorated (``structure.py``),
so that a definition that could never be emitted fails there; everything
tied to a Context is done per call (``emitter.py``).
"""

import functools
import inspect
import threading

from .affine import DimDef
from .operands import (BinaryFnAttrDef, IndexAttrDef, OperandKind,
                       ScalarDef, TensorDef, TypeFnAttrDef, UnaryFnAttrDef)
from .structure import analyse
from . import emitter

__all__ = [
    "linalg_structured_op", "domain", "implements", "defines",
    "OpInterfaceDef", "ContractionOpInterface", "ConvolutionOpInterface",
    "FillOpInterface", "OpDefinitionDef", "Canonicalizer", "OpMetadataDef",
    "LinalgOpDef", "DefinedOpCallable",
]


class OpInterfaceDef:
    """An interface the op declares it implements (recorded only)."""

    def __init__(self, cpp_name):
        self.cpp_name = cpp_name

    def __repr__(self):
        return self.cpp_name


ContractionOpInterface = OpInterfaceDef("LinalgContractionOpInterface")
ConvolutionOpInterface = OpInterfaceDef("LinalgConvolutionOpInterface")
FillOpInterface = OpInterfaceDef("LinalgFillOpInterface")


class OpDefinitionDef:
    """A method the op declares it defines (recorded only)."""

    def __init__(self, def_name):
        self.def_name = def_name

    def __repr__(self):
        return self.def_name


Canonicalizer = OpDefinitionDef("hasCanonicalizer")


class OpMetadataDef:
    """Name, C++ class name, documentation, declared interfaces and
    definitions of an op."""

    def __init__(self, name, cpp_class_name, doc):
        self.name = name
        self.cpp_class_name = cpp_class_name
        self.doc = doc
        self.implements = []
        self.defines = []


# Call keywords and structured op methods an attribute cannot be named.
_RESERVED_ATTRIBUTE_NAMES = {
    "outs", "emit_generic", "loc", "ip", "inputs", "outputs",
    "result_tensors", "region", "iterator_types", "indexing_maps",
    "getRegionBuilder", "getLibraryCallName",
}


class LinalgOpDef:
    """What running the decorated function recorded."""

    def __init__(self, name, cpp_class_name=None, doc=None):
        self.metadata = OpMetadataDef(name, cpp_class_name, doc)
        self.registered_operands = {}
        self.domain = []
        self.assignments = []
        self.defining = False

    def add_operand(self, name, operand):
        kinds = [o.kind for o in self.registered_operands.values()]
        if operand.kind.is_attribute and name in _RESERVED_ATTRIBUTE_NAMES:
            raise ValueError(f"attribute '{name}' of '{self.metadata.name}': "
                             f"the name is reserved")
        if operand.kind.is_input and any(not k.is_input for k in kinds):
            raise ValueError(f"input '{name}' of '{self.metadata.name}' comes "
                             f"after an output or attribute; declare inputs "
                             f"first, then outputs, then attributes")
        if (operand.kind is OperandKind.OUTPUT_TENSOR
                and any(k.is_attribute for k in kinds)):
            raise ValueError(f"output '{name}' of '{self.metadata.name}' comes "
                             f"after an attribute; declare attributes last")
        operand.attach(self, name, len(self.registered_operands))
        self.registered_operands[name] = operand

    def add_assignment(self, use, value):
        self.assignments.append((use, value))

    def release(self):
        """Frees the parameters of a definition that failed, so that they
        can be used again."""
        for operand in self.registered_operands.values():
            operand.detach()

    @property
    def comprehensions(self):
        return list(self.assignments)


_CURRENT = threading.local()


def _current_op_def(what):
    op_def = getattr(_CURRENT, "op_def", None)
    if op_def is None:
        raise ValueError(f"{what}() can only be called inside the function "
                         f"decorated with @linalg_structured_op")
    return op_def


def domain(*dimensions):
    """Declares the iteration domain: its dimensions, in loop order.
    Without it, the dimensions used are ordered by name."""
    op_def = _current_op_def("domain")
    if op_def.domain:
        raise ValueError(f"'{op_def.metadata.name}' declares its domain twice")
    for dim in dimensions:
        if not isinstance(dim, DimDef):
            raise TypeError(f"domain takes dimensions (e.g. D.m), got "
                            f"{type(dim).__name__}")
    if len(set(dimensions)) != len(dimensions):
        raise ValueError(f"domain repeats a dimension: {list(dimensions)}")
    op_def.domain.extend(dimensions)


def implements(*interfaces):
    """Records the interfaces the op implements (metadata only)."""
    op_def = _current_op_def("implements")
    for interface in interfaces:
        if not isinstance(interface, OpInterfaceDef):
            raise TypeError(f"implements takes OpInterfaceDefs (e.g. "
                            f"ContractionOpInterface), got {interface!r}")
    op_def.metadata.implements.extend(interfaces)


def defines(*definitions):
    """Records the methods the op defines (metadata only)."""
    op_def = _current_op_def("defines")
    for definition in definitions:
        if not isinstance(definition, OpDefinitionDef):
            raise TypeError(f"defines takes OpDefinitionDefs (e.g. "
                            f"Canonicalizer), got {definition!r}")
    op_def.metadata.defines.extend(definitions)


_PARAMETER_TYPES = (TensorDef, ScalarDef, IndexAttrDef, UnaryFnAttrDef,
                    BinaryFnAttrDef, TypeFnAttrDef)


def _class_name(op_name):
    return "".join(part.title() for part in op_name.split("_")) + "Op"


class DefinedOpCallable:
    """A defined op: call it as ``op(*ins, outs=[...], **attributes)`` to
    emit it at the current insertion point (see ``__call__``)."""

    def __init__(self, op_name, op_def, structure):
        self.op_name = op_name
        self.op_def = op_def
        self.structure = structure
        self.__name__ = op_name
        self.__doc__ = op_def.metadata.doc

    def __call__(self, *ins, outs=None, emit_generic=False, loc=None, ip=None,
                 **attributes):
        """Emits the op on the inputs ``ins`` (one per tensor or scalar
        input, in order) and the outputs ``outs`` (a list, one per output),
        with attribute values overriding the defaults (``strides=[2, 2]``,
        ``cast=TypeFn.cast_unsigned``).

        Builds a ``linalg.generic``, or, when ``emit_generic`` is False and
        ``linalg.<op name>`` is a built-in named op, that op. Returns the
        result (several: the list; none, on memrefs: the op)."""
        return emitter.emit(self, ins, outs, emit_generic, attributes,
                            loc=loc, ip=ip)

    def __repr__(self):
        return f"<linalg OpDSL op '{self.op_name}'>"


def linalg_structured_op(dsl_func=None, *, op_name=None, op_class_name=None):
    """Decorator: defines a structured op from ``dsl_func``, whose
    parameters default to the op's operands and attributes and whose body
    assigns its outputs. ``op_name`` defaults to the function's name (it
    selects the named op ``emit_generic=False`` builds), ``op_class_name``
    to its CamelCase with ``Op``."""
    if dsl_func is None:
        return functools.partial(linalg_structured_op, op_name=op_name,
                                 op_class_name=op_class_name)
    if not callable(dsl_func):
        raise TypeError(f"@linalg_structured_op decorates a function, got "
                        f"{type(dsl_func).__name__}")
    if op_name is None:
        op_name = dsl_func.__name__
    if not isinstance(op_name, str) or not op_name.isidentifier():
        raise ValueError(f"op_name must be an identifier, got {op_name!r}")
    if op_class_name is None:
        op_class_name = _class_name(op_name)

    op_def = LinalgOpDef(op_name, op_class_name, inspect.getdoc(dsl_func))
    arguments = []
    try:
        for name, parameter in inspect.signature(dsl_func).parameters.items():
            default = parameter.default
            if (parameter.kind in (parameter.VAR_POSITIONAL,
                                   parameter.VAR_KEYWORD)
                    or not isinstance(default, _PARAMETER_TYPES)):
                raise TypeError(
                    f"parameter '{name}' of '{op_name}' must default to a "
                    f"TensorDef, ScalarDef, IndexAttrDef or *FnAttrDef, got "
                    f"{default if default is not parameter.empty else 'none'!r}")
            op_def.add_operand(name, default.operand_def)
            arguments.append(default)

        if getattr(_CURRENT, "op_def", None) is not None:
            raise ValueError(f"'{op_name}' is defined inside the definition of "
                             f"'{_CURRENT.op_def.metadata.name}'")
        _CURRENT.op_def = op_def
        op_def.defining = True
        try:
            dsl_func(*arguments)
        finally:
            op_def.defining = False
            _CURRENT.op_def = None
        structure = analyse(op_def)
    except BaseException:
        op_def.release()
        raise
    return DefinedOpCallable(op_name, op_def, structure)
