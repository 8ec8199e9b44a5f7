"""What upstream's hand-written function ops share (``func.FuncOp``,
``ml_program.FuncOp``): built from a name and a type, with the body and
entry block helpers. Mixed in before the generated class, whose builder
takes ``(sym_name, function_type, *, sym_visibility=None, ...)``."""

from typing import Optional as _Optional, Sequence as _Sequence

from ._ods_common import get_default_loc_context as _get_default_loc_context
from ..ir import Block, FunctionType, InsertionPoint, Location, StringAttr, Type
from ..ir import TypeAttr


class FunctionLikeMixin:
    """A function op: ``name``, ``type`` (a FunctionType, or an
    (inputs, results) pair of type lists), optional ``visibility`` and
    ``body_builder``."""

    def __init__(
        self, name, type, *, visibility=None, body_builder=None, loc=None, ip=None
    ):
        """Creates a function `name` of `type` (a FunctionType, or an
        (inputs, results) pair of type lists). `visibility` is "public",
        "private" or "nested" (None: no sym_visibility attribute). With
        `body_builder`, an entry block is added and `body_builder(op)` runs
        with the insertion point in it; if it raises, the function is erased
        again."""
        context = _get_default_loc_context(loc)
        if isinstance(type, tuple):
            if len(type) != 2:
                raise ValueError("type must be a FunctionType or (inputs, results)")
            type = FunctionType.get(
                inputs=list(type[0]), results=list(type[1]), context=context
            )
        if not isinstance(type, FunctionType):
            if isinstance(type, Type):
                type = FunctionType(type)
            else:
                raise TypeError(
                    f"type must be a FunctionType or (inputs, results), got {type!r}"
                )
        super().__init__(
            StringAttr.get(str(name), context=context),
            TypeAttr.get(type, context=context),
            sym_visibility=(
                StringAttr.get(str(visibility), context=context)
                if visibility is not None
                else None
            ),
            loc=loc,
            ip=ip,
        )
        if body_builder is not None:
            try:
                with InsertionPoint(self.add_entry_block()):
                    body_builder(self)
            except BaseException as error:
                # Nothing half-built stays in the IR (upstream keeps it).
                from ..extras.meta import _discard

                _discard(self, f"'{self.operation.name}' @{name}", error)
                raise

    @property
    def is_external(self) -> bool:
        """True while the function has no body."""
        return len(self.regions[0].blocks) == 0

    @property
    def body(self):
        """The body region."""
        return self.regions[0]

    @property
    def type(self) -> FunctionType:
        """The function type."""
        return FunctionType(TypeAttr(self.attributes["function_type"]).value)

    @property
    def visibility(self):
        """The sym_visibility attribute (KeyError if there is none)."""
        return self.attributes["sym_visibility"]

    @property
    def name(self) -> StringAttr:
        """The symbol name, as a StringAttr (upstream: `op.name.value` is
        the str; the op name is `op.operation.name`)."""
        return StringAttr(self.attributes["sym_name"])

    @property
    def entry_block(self) -> Block:
        """The first block; IndexError for an external function."""
        if self.is_external:
            raise IndexError("External function does not have a body")
        return self.regions[0].blocks[0]

    def add_entry_block(self, arg_locs: _Optional[_Sequence[Location]] = None) -> Block:
        """Adds the entry block, with one argument per input of the function
        type, and returns it; IndexError if there is one already."""
        if not self.is_external:
            raise IndexError("The function already has an entry block!")
        self.body.blocks.append(*self.type.inputs, arg_locs=arg_locs)
        return self.body.blocks[0]
