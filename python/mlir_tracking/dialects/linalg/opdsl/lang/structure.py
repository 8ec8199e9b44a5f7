"""What an op definition means as a structured op, independent of any
Context: its loop dimensions and their iterator types, each operand's
access (index expressions per dimension) and the expression each output
is assigned.

Upstream's rules: without ``domain(...)`` the dimensions used are ordered
by name; a dimension is a reduction if an assignment reduces over it (all
assignments must reduce over the same ones); a tensor is accessed the same
way everywhere; one that is never accessed needs ``index_dims``. An op
that uses no dimension at all is rank-polymorphic: it iterates over the
rank of its first output (``O[None] = ...``).
"""

from .expressions import TensorFn, TensorReduceFn, TensorUse, index
from .operands import OperandKind, ScalarDef

__all__ = ["OpStructure", "analyse"]


class OpStructure:
    """The analysed definition (see the module docstring)."""

    def __init__(self):
        self.operands = []        # all parameters, in declaration order
        self.inputs = []          # scalars and input tensors
        self.outputs = []
        self.index_attrs = []
        self.fn_attrs = []
        self.dims = []            # the domain, in loop order
        self.reduction_dims = ()
        self.accesses = {}        # tensor OperandDef -> tuple of index exprs
        self.assignments = []     # (output OperandDef, expression)
        self.index_attr_symbols = {}  # SymbolDef -> (IndexAttr OperandDef, i)

    @property
    def rank_polymorphic(self):
        return not self.dims

    @property
    def iterator_types(self):
        return ["reduction" if d in self.reduction_dims else "parallel"
                for d in self.dims]


def _fail(op_def, message):
    raise ValueError(f"'{op_def.metadata.name}': {message}")


def analyse(op_def):
    """The OpStructure of a LinalgOpDef; ValueError if it cannot be
    emitted."""
    s = OpStructure()
    s.operands = list(op_def.registered_operands.values())
    s.inputs = [o for o in s.operands if o.kind.is_input]
    s.outputs = [o for o in s.operands
                 if o.kind is OperandKind.OUTPUT_TENSOR]
    s.index_attrs = [o for o in s.operands
                     if o.kind is OperandKind.INDEX_ATTR]
    s.fn_attrs = [o for o in s.operands
                  if o.kind.is_attribute and o.kind is not OperandKind.INDEX_ATTR]
    if not s.outputs:
        _fail(op_def, "declares no output (TensorDef(..., output=True))")
    if not op_def.assignments:
        _fail(op_def, "assigns no output")

    for attr in s.index_attrs:
        for position, symbol in enumerate(attr.shape):
            if symbol in s.index_attr_symbols:
                other = s.index_attr_symbols[symbol][0].name
                _fail(op_def, f"{symbol!r} belongs to both index attributes "
                              f"'{other}' and '{attr.name}'")
            s.index_attr_symbols[symbol] = (attr, position)

    # Every node of every assignment belongs to this op, and reductions are
    # whole right-hand sides.
    uses, used_dims, indices = [], [], []
    scalars = set()
    reductions = []
    for lhs, value in op_def.assignments:
        uses.append(lhs)
        reductions.append(frozenset(value.reducer.reduce_dims)
                          if isinstance(value, TensorReduceFn) else frozenset())
        for node in value.walk():
            if isinstance(node, TensorReduceFn) and node is not value:
                _fail(op_def, f"the reduction {node!r} must be the whole "
                              f"right-hand side of its assignment")
            operand = None
            if isinstance(node, TensorUse):
                uses.append(node)
                operand = node.operand
            elif isinstance(node, ScalarDef):
                operand = node.operand_def
                scalars.add(operand)
            elif isinstance(node, TensorFn) and node.attr is not None:
                operand = node.attr
            elif isinstance(node, index):
                indices.append(node.dim)
            if isinstance(node, TensorReduceFn) and node.reducer.binary_attr:
                operand = node.reducer.binary_attr.operand_def
            if operand is not None and operand.owner is not op_def:
                _fail(op_def, f"{node!r} uses a definition that is not a "
                              f"parameter of this op")
    for use in uses:
        for dim in use.dims():
            if dim not in used_dims:
                used_dims.append(dim)
        for expr in use.indices:
            for symbol in expr.symbols():
                if symbol not in s.index_attr_symbols:
                    _fail(op_def, f"{symbol!r} in the access {use!r} is not a "
                                  f"symbol of an IndexAttrDef (a size symbol "
                                  f"has no value in an index expression)")

    if op_def.domain:
        if set(op_def.domain) != set(used_dims):
            _fail(op_def, f"domain {list(op_def.domain)} does not match the "
                          f"dimensions the accesses use, "
                          f"{sorted(used_dims, key=lambda d: d.name)}")
        s.dims = list(op_def.domain)
    else:
        s.dims = sorted(used_dims, key=lambda d: d.name)

    for dim in indices:
        if dim not in s.dims:
            _fail(op_def, f"index({dim!r}) is not a dimension of the "
                          f"iteration domain {s.dims}")

    if len(set(reductions)) != 1:
        got = ", ".join(
            "(" + ", ".join(repr(d) for d in sorted(r, key=lambda d: d.name))
            + ")" for r in reductions)
        _fail(op_def, f"all assignments must reduce over the same "
                      f"dimensions, got {got}")
    s.reduction_dims = reductions[0]
    for dim in s.reduction_dims:
        if dim not in s.dims:
            _fail(op_def, f"reduction dimension {dim!r} is not used by any "
                          f"access")

    assigned = set()
    for lhs, value in op_def.assignments:
        if lhs.operand in assigned:
            _fail(op_def, f"{lhs.operand.name} is assigned more than once")
        assigned.add(lhs.operand)
        s.assignments.append((lhs.operand, value))
    missing = [o.name for o in s.outputs if o not in assigned]
    if missing:
        _fail(op_def, f"output(s) {missing} are never assigned")

    # One access per tensor.
    keys = {}
    for use in uses:
        key = use.access_key()
        if use.operand in keys and keys[use.operand] != key:
            _fail(op_def, f"{use.operand.name} is accessed in two ways, "
                          f"[{', '.join(keys[use.operand])}] and {use!r}; a "
                          f"structured op reads each operand through one "
                          f"indexing map")
        keys[use.operand] = key
        s.accesses[use.operand] = use.indices
    for operand in s.operands:
        if not operand.kind.is_tensor:
            continue
        if operand.index_dims is not None:
            for dim in operand.index_dims:
                if dim not in s.dims:
                    _fail(op_def, f"index_dims of {operand.name} uses {dim!r}, "
                                  f"which is not a dimension of the domain")
            key = tuple(repr(d) for d in operand.index_dims)
            if operand in keys and keys[operand] != key:
                _fail(op_def, f"{operand.name} is accessed as "
                              f"[{', '.join(keys[operand])}] but its "
                              f"index_dims are {list(operand.index_dims)}")
            s.accesses[operand] = operand.index_dims
        elif operand not in s.accesses:
            _fail(op_def, f"tensor {operand.name} is never accessed; give it "
                          f"index_dims=[...] to say how it maps to the domain")
    for operand in s.inputs:
        if operand.kind is OperandKind.SCALAR and operand not in scalars:
            _fail(op_def, f"scalar {operand.name} is never used")
    return s
