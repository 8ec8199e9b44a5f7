"""Emitting a defined op on actual values: checking the operands against the
definition (counts, element types bound to type variables, ranks, sizes
bound to symbols, attribute values), then building either a
``linalg.generic`` (indexing maps, iterator types, body) or the built-in
named op of the same name.

Everything is checked before anything is built, and a body that fails
half-way erases its op: a failed call leaves the IR as it was.
"""

import inspect

from .....ir import (AffineConstantExpr, AffineMap, AffineMapAttr, ArrayAttr,
                     Attribute, ComplexType, Context, FloatType, IndexType,
                     InsertionPoint, IntegerType, Location, MemRefType,
                     MLIRError, OpResultList, OpView, Operation,
                     RankedTensorType, ShapedType, Value)
from .... import linalg as _linalg
from ...._ods_common import get_op_result_or_op_results
from . import scalar_ops
from .affine import SymbolDef, _AffineBinary, _AffineConst
from .expressions import (BinaryFnType, FunctionKind, TensorFn,
                          TensorReduceFn, TensorUse, TypeFn, TypeFnType,
                          UnaryFnType, const, index)
from .operands import OperandKind, ScalarDef
from .types import PREDEFINED

__all__ = ["emit"]

_FN_ATTR_TYPES = {
    OperandKind.UNARY_FN_ATTR: (UnaryFnType, "UnaryFn", "unary_fn"),
    OperandKind.BINARY_FN_ATTR: (BinaryFnType, "BinaryFn", "binary_fn"),
    OperandKind.TYPE_FN_ATTR: (TypeFnType, "TypeFn", "type_fn"),
}


def _as_value(arg, what):
    if isinstance(arg, Value):
        return arg
    if isinstance(arg, (Operation, OpView)):
        results = arg.results
        if len(results) != 1:
            raise TypeError(f"{what} must be a value, got an op with "
                            f"{len(results)} results")
        return results[0]
    raise TypeError(f"{what} must be a Value (or an op with one result), "
                    f"got {type(arg).__name__}")


def _out_values(name, outs, outputs):
    expected = ", ".join(o.name for o in outputs)
    if outs is None:
        raise TypeError(f"{name}() needs outs=[...]: one value per output "
                        f"({expected})")
    if isinstance(outs, (Operation, OpView)):
        outs = list(outs.results)
    elif isinstance(outs, (OpResultList, list, tuple)):
        outs = list(outs)
    else:
        raise TypeError(f"{name}(): outs must be a list of values, got "
                        f"{type(outs).__name__}")
    if len(outs) != len(outputs):
        raise ValueError(f"{name}() takes {len(outputs)} output(s) "
                         f"({expected}), got {len(outs)} in outs")
    return [_as_value(v, f"{name}(): output '{o.name}'")
            for v, o in zip(outs, outputs)]


def _attribute_values(name, s, attributes):
    """The value of each attribute: the given one, else the default; and
    the ones given explicitly."""
    known = {o.name: o for o in s.index_attrs + s.fn_attrs}
    unknown = [k for k in attributes if k not in known]
    if unknown:
        raise TypeError(f"{name}() got unexpected keyword argument(s) "
                        f"{unknown}; its attributes are "
                        f"{list(known) or 'none'}")
    values = {}
    for attr in s.index_attrs:
        if attr.name not in attributes:
            values[attr] = list(attr.default_indices)
            continue
        given = attributes[attr.name]
        if isinstance(given, (str, bytes)) or not hasattr(given, "__iter__"):
            raise TypeError(f"{name}(): attribute '{attr.name}' takes a list "
                            f"of {len(attr.shape)} ints, got "
                            f"{type(given).__name__}")
        given = list(given)
        if any(isinstance(v, bool) or not isinstance(v, int) for v in given):
            raise TypeError(f"{name}(): attribute '{attr.name}' takes ints, "
                            f"got {given}")
        if len(given) != len(attr.shape):
            raise ValueError(f"{name}(): attribute '{attr.name}' takes "
                             f"{len(attr.shape)} value(s), got {len(given)}")
        values[attr] = given
    for attr in s.fn_attrs:
        fn_type, namespace, _ = _FN_ATTR_TYPES[attr.kind]
        given = attributes.get(attr.name, attr.default_fn)
        if not isinstance(given, fn_type):
            raise TypeError(f"{name}(): attribute '{attr.name}' takes a "
                            f"{namespace} function (e.g. {namespace}."
                            f"{attr.default_fn.fn_name}), got {given!r}")
        values[attr] = given
    return values, [known[k] for k in attributes]


def _context_of(name, values):
    current = Context.current
    for value in values:
        context = value.type.context
        if current is None:
            current = context
        elif context != current:
            raise ValueError(f"{name}(): the operands belong to another "
                             f"Context than the current one")
    if current is None:
        raise ValueError(f"{name}() needs a current Context")
    return current


def _is_element_type(t):
    if isinstance(t, IntegerType):
        return t.is_signless
    return isinstance(t, (IndexType, FloatType, ComplexType))


def _check_semantics(name, s, values):
    """A structured op has tensor semantics (results) or buffer semantics
    (side effects), not both."""
    shaped = [(o, v) for o, v in zip(s.inputs + s.outputs, values)
              if o.kind.is_tensor]
    memrefs = [o.name for o, v in shaped if isinstance(v.type, MemRefType)]
    if memrefs and len(memrefs) != len(shaped):
        raise TypeError(f"{name}(): the operands mix tensors and memrefs "
                        f"(memrefs: {', '.join(memrefs)}); a structured op "
                        f"takes all tensors or all memrefs")


def _bind_types(name, s, values):
    """The element type of each operand (its block argument type) and the
    type each type variable stands for."""
    bound = {}
    element_types = []
    for operand, value in zip(s.inputs + s.outputs, values):
        t = value.type
        role = "scalar" if operand.kind is OperandKind.SCALAR else (
            "output" if operand.kind is OperandKind.OUTPUT_TENSOR else "input")
        if operand.kind.is_tensor:
            if not isinstance(t, (RankedTensorType, MemRefType)):
                raise TypeError(f"{name}(): {role} '{operand.name}' must be a "
                                f"ranked tensor or memref, got {t}")
            element = t.element_type
        else:
            if isinstance(t, ShapedType):
                raise TypeError(f"{name}(): scalar '{operand.name}' takes a "
                                f"scalar value, got {t}")
            element = t
        if not _is_element_type(element):
            raise TypeError(f"{name}(): {role} '{operand.name}' has element "
                            f"type {element}; the body's arith, math and "
                            f"complex ops take signless integers, index, "
                            f"floats and complex numbers")
        var = operand.type_var.name
        if var in PREDEFINED:
            expected = PREDEFINED[var]()
            if element != expected:
                raise TypeError(f"{name}(): {role} '{operand.name}' must have "
                                f"element type {expected} ({var}), got {t}")
        elif var in bound and bound[var][0] != element:
            raise TypeError(
                f"{name}(): {role} '{operand.name}' has element type "
                f"{element}, but type variable {var} is {bound[var][0]} "
                f"(from '{bound[var][1]}')")
        bound.setdefault(var, (element, operand.name))
        element_types.append(element)
    return element_types, {k: v[0] for k, v in bound.items()}


def _check_shapes(name, s, values, attr_values):
    """Ranks against the definition, and the static sizes of the dimensions
    declared with one symbol (or constant) against each other and against
    the index attributes' values."""
    tensors = [(o, v.type) for o, v in zip(s.inputs + s.outputs, values)
               if o.kind.is_tensor]
    if s.rank_polymorphic:
        rank = tensors[-len(s.outputs)][1].rank
        for operand, t in tensors:
            if t.rank != rank and (t.rank != 0 or
                                   operand.kind is OperandKind.OUTPUT_TENSOR):
                raise ValueError(
                    f"{name}(): '{operand.name}' has rank {t.rank}; this op "
                    f"iterates over the rank of its first output ({rank}), "
                    f"and takes inputs of that rank or of rank 0")
        return rank
    for operand, t in tensors:
        if t.rank != len(operand.shape):
            raise ValueError(f"{name}(): '{operand.name}' must have rank "
                             f"{len(operand.shape)} {list(operand.shape)}, "
                             f"got {t}")
    known = {}
    for attr in s.index_attrs:
        for symbol, value in zip(attr.shape, attr_values[attr]):
            known[symbol] = (value, f"attribute '{attr.name}'")
    for operand, t in tensors:
        for i, size in enumerate(operand.shape):
            if isinstance(size, _AffineConst):
                expected, origin = size.value, "the definition"
            elif isinstance(size, SymbolDef):
                if size not in known:
                    if not t.is_dynamic_dim(i):
                        known[size] = (t.shape[i], f"dimension {i} of "
                                                   f"'{operand.name}'")
                    continue
                expected, origin = known[size]
            else:
                continue  # A size expression is a bound, not a size.
            if not t.is_dynamic_dim(i) and t.shape[i] != expected:
                raise ValueError(
                    f"{name}(): dimension {i} of '{operand.name}' ({t}) has "
                    f"size {t.shape[i]}, but {size!r} is {expected} (from "
                    f"{origin})")
    return None


def _affine(expr, positions, symbol_value):
    if isinstance(expr, _AffineBinary) and expr.operator in (
            "floordiv", "ceildiv", "mod"):
        divisor = expr.rhs.to_ir(positions.__getitem__, symbol_value)
        if isinstance(divisor, AffineConstantExpr) and divisor.value <= 0:
            raise ValueError(f"the divisor of {expr!r} is {divisor.value}; "
                             f"it must be positive")
    for child in (expr.lhs, expr.rhs) if isinstance(expr, _AffineBinary) else ():
        _affine(child, positions, symbol_value)
    return expr.to_ir(positions.__getitem__, symbol_value)


def _indexing_maps(name, s, values, attr_values, rank):
    operands = s.inputs + s.outputs
    if s.rank_polymorphic:
        maps = []
        for operand, value in zip(operands, values):
            if operand.kind.is_tensor and value.type.rank == rank:
                maps.append(AffineMap.get_identity(rank))
            else:
                maps.append(AffineMap.get(rank, 0, []))
        return maps, ["parallel"] * rank
    positions = {dim: i for i, dim in enumerate(s.dims)}
    symbol_values = {}
    for attr in s.index_attrs:
        symbol_values.update(zip(attr.shape, attr_values[attr]))
    maps = []
    for operand in operands:
        exprs = []
        if operand.kind.is_tensor:
            try:
                exprs = [_affine(e, positions, symbol_values.__getitem__)
                         for e in s.accesses[operand]]
            except ValueError as e:
                raise ValueError(f"{name}(): indexing map of "
                                 f"'{operand.name}': {e}") from None
        maps.append(AffineMap.get(len(s.dims), 0, exprs))
    return maps, s.iterator_types


class _Body:
    """Evaluates the assigned expressions on the block arguments."""

    def __init__(self, name, s, arguments, types, attr_values):
        self.name = name
        self.s = s
        self.arguments = arguments
        self.types = types
        self.attr_values = attr_values

    def type_of(self, type_var):
        if type_var.name in self.types:
            return self.types[type_var.name]
        if type_var.name in PREDEFINED:
            return PREDEFINED[type_var.name]()
        raise ValueError(f"type variable {type_var.name} is not the element "
                         f"type of any operand")

    def apply(self, fn, expr, operands):
        try:
            if fn.kind is FunctionKind.TYPE:
                return scalar_ops.cast(
                    fn.fn_name, self.type_of(expr.type_var), operands[0],
                    unsigned=fn is TypeFn.cast_unsigned)
            return scalar_ops.apply(fn.fn_name, *operands)
        except TypeError as e:
            raise TypeError(f"{e}, in {expr!r}") from None

    def evaluate(self, expr):
        if isinstance(expr, TensorUse):
            return self.arguments[expr.operand]
        if isinstance(expr, ScalarDef):
            return self.arguments[expr.operand_def]
        if isinstance(expr, const):
            return scalar_ops.constant(expr.value)
        if isinstance(expr, index):
            return _linalg.IndexOp(self.s.dims.index(expr.dim)).result
        if isinstance(expr, TensorFn):
            fn = expr.fn if expr.fn is not None else self.attr_values[expr.attr]
            operands = [self.evaluate(a) for a in expr.args]
            return self.apply(fn, expr, operands)
        if isinstance(expr, TensorReduceFn):
            reducer = expr.reducer
            fn = (reducer.binary_fn if reducer.binary_fn is not None else
                  self.attr_values[reducer.binary_attr.operand_def])
            lhs = self.arguments[expr.lhs.operand]
            return self.apply(fn, expr, [lhs, self.evaluate(expr.args[0])])
        raise TypeError(f"unexpected node {expr!r}")

    def build(self, element_types):
        results = {}
        for output, expr in self.s.assignments:
            value = self.evaluate(expr)
            expected = element_types[output]
            if value.type != expected:
                raise TypeError(
                    f"the value assigned to {output.name} has type "
                    f"{value.type}, but {output.name}'s element type is "
                    f"{expected} (convert it with TypeFn), in {expr!r}")
            results[output] = value
        _linalg.YieldOp([results[o] for o in self.s.outputs])


def _emit_generic(name, s, ins, outs, element_types, types, attr_values,
                  maps, iterator_types, ip):
    result_types = [v.type for v in outs if isinstance(v.type, RankedTensorType)]
    op = _linalg.GenericOp(
        result_types, ins, outs,
        ArrayAttr.get([AffineMapAttr.get(m) for m in maps]),
        ArrayAttr.get([Attribute.parse(f"#linalg.iterator_type<{t}>")
                       for t in iterator_types]),
        ip=ip)
    operands = s.inputs + s.outputs
    block = op.regions[0].blocks.append(*element_types)
    try:
        with InsertionPoint(block):
            body = _Body(name, s, dict(zip(operands, block.arguments)), types,
                         attr_values)
            body.build(dict(zip(operands, element_types)))
    except BaseException as e:
        op.operation.erase()
        if isinstance(e, (TypeError, ValueError)):
            raise type(e)(f"{name}(): {e}") from None
        raise
    return op


def _named_class(name, class_name):
    cls = getattr(_linalg, class_name, None)
    if (cls is None or not _linalg._is_named_structured(cls)
            or cls.OPERATION_NAME != f"linalg.{name}"):
        raise ValueError(
            f"{name}(): linalg.{name} is not a named structured op this "
            f"definition can build (no class {class_name} with the form "
            f"(result_tensors, inputs, outputs)); pass emit_generic=True")
    return cls


def _emit_named(name, class_name, ins, outs, attr_values, explicit, ip):
    cls = _named_class(name, class_name)
    parameters = list(inspect.signature(cls.__init__).parameters.values())[4:]
    accepted = {p.name for p in parameters} - {"loc", "ip"}
    required = [p.name for p in parameters
                if p.default is p.empty and p.name not in ("loc", "ip")]
    if required:
        raise ValueError(f"{name}(): linalg.{name} needs {required}, which "
                         f"the definition does not provide; pass "
                         f"emit_generic=True")
    kwargs = {}
    for attr in explicit:
        if attr.name not in accepted:
            raise TypeError(f"{name}(): linalg.{name} has no attribute "
                            f"'{attr.name}' (it takes {sorted(accepted)}); "
                            f"pass emit_generic=True to use it")
        value = attr_values[attr]
        if attr.kind is OperandKind.INDEX_ATTR:
            elements = ", ".join(str(v) for v in value)
            kwargs[attr.name] = Attribute.parse(
                f"dense<[{elements}]> : tensor<{len(value)}xi64>")
        else:
            kind = _FN_ATTR_TYPES[attr.kind][2]
            kwargs[attr.name] = Attribute.parse(
                f"#linalg.{kind}<{value.fn_name}>")
    result_types = [v.type for v in outs if isinstance(v.type, RankedTensorType)]
    op = cls(result_types, ins, outs, ip=ip, **kwargs)
    # The named op's verifier checks what its definition here does not (a
    # fill's value must have the output's element type, say).
    try:
        op.operation.verify()
    except MLIRError as e:
        op.operation.erase()
        message = e.error_diagnostics[0].message if e.error_diagnostics else e
        raise ValueError(f"{name}(): linalg.{name} does not verify on these "
                         f"operands ({message}); pass emit_generic=True to "
                         f"build the definition's generic op") from None
    return op


def emit(defined, ins, outs, emit_generic, attributes, *, loc=None, ip=None):
    """Emits the op of ``defined`` (a DefinedOpCallable); see its
    ``__call__``."""
    name = defined.op_name
    s = defined.structure
    if not isinstance(emit_generic, bool):
        raise TypeError(f"{name}(): emit_generic must be a bool, got "
                        f"{type(emit_generic).__name__}")
    if len(ins) != len(s.inputs):
        raise TypeError(f"{name}() takes {len(s.inputs)} input(s) "
                        f"({', '.join(o.name for o in s.inputs) or 'none'}), "
                        f"got {len(ins)}")
    ins = [_as_value(v, f"{name}(): input '{o.name}'")
           for v, o in zip(ins, s.inputs)]
    outs = _out_values(name, outs, s.outputs)
    attr_values, explicit = _attribute_values(name, s, attributes)
    if loc is not None and not isinstance(loc, Location):
        raise TypeError(f"{name}(): loc must be a Location, got "
                        f"{type(loc).__name__}")
    context = _context_of(name, ins + outs)
    if loc is None:
        loc = Location.current or Location.unknown(context)
    if loc.context != context:
        raise ValueError(f"{name}(): the location belongs to another Context "
                         f"than the operands")
    with loc:
        element_types, types = _bind_types(name, s, ins + outs)
        _check_semantics(name, s, ins + outs)
        rank = _check_shapes(name, s, ins + outs, attr_values)
        maps, iterator_types = _indexing_maps(name, s, ins + outs,
                                              attr_values, rank)
        if not emit_generic and context.is_registered_operation(
                f"linalg.{name}"):
            op = _emit_named(name, defined.op_def.metadata.cpp_class_name,
                             ins, outs, attr_values, explicit, ip)
        else:
            op = _emit_generic(name, s, ins, outs, element_types, types,
                               attr_values, maps, iterator_types, ip)
    return get_op_result_or_op_results(op)
