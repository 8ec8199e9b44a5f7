"""Helpers for writing transform scripts from Python (upstream
``mlir.dialects.transform.extras``), written anew.

- ``Handle`` (a ``Value``), with ``OpHandle``, ``ParamHandle`` and
  ``ValueHandle``: importing this module registers them as the value casters
  of the transform handle types, so the results of transform ops come back
  as these classes. ``OpHandle.match_ops(names | OpView class | interface)``
  emits ``transform.structured.match``, ``OpHandle.get_result(indices)``
  ``transform.get_result``, ``OpHandle.print(name=None)``
  ``transform.print``; ``ValueHandle.get_defining_op()``
  ``transform.get_defining_op``. A handle remembers the handles derived
  from it (``children``) and the one it was derived from (``parent``).
- ``NormalForm``: a class (never instantiated) naming the transforms
  (``_impl``) that bring a handle into a form; ``handle.normalize(Form)``
  applies them, and setting ``handle.normalForm`` propagates the form to
  parents and children as the form's ``propagate_up``/``propagate_down``
  say.
- ``constant_param(value)`` (an int or an Attribute) emits
  ``transform.param.constant``.
- ``insert_transform_script(block_or_ip, script)`` adds
  ``@__transform_main`` and calls ``script(root_handle)`` in its body.
- Decorators: ``sequence``, ``named_sequence``, ``apply_patterns``
  (``extras.meta.region_op``).
"""

from typing import Callable, Optional, Sequence, Type, Union

from .... import ir
from ....extras.meta import region_op
from ... import transform
from .. import (AnyOpType, AnyParamType, AnyValueType, ApplyPatternsOp,
                NamedSequenceOp, OperationType, ParamType, SequenceOp,
                YieldOp, structured)

__all__ = ["Handle", "OpHandle", "ParamHandle", "ValueHandle", "NormalForm",
           "constant_param", "insert_transform_script", "sequence",
           "named_sequence", "apply_patterns"]


class Handle(ir.Value):
    """A transform handle (a Value of a transform type) that knows the
    handles derived from it and the one it derives from: their payload ops
    are nested in its payload ops (children) or hold them (parent)."""

    def __init__(self, value: ir.Value, *, parent: Optional["Handle"] = None,
                 children: Optional[Sequence["Handle"]] = None):
        super().__init__(value)
        self.parent = parent
        self.children = list(children) if children is not None else []
        self._normalForm = NormalForm

    @property
    def normalForm(self) -> Type["NormalForm"]:
        """The form the transforms applied so far brought this handle into."""
        return self._normalForm

    @normalForm.setter
    def normalForm(self, form: Type["NormalForm"]):
        self._normalForm = form
        if form.propagate_up:
            self.propagate_up_normalform(form)
        if form.propagate_down:
            self.propagate_down_normalform(form)

    def propagate_up_normalform(self, form: Type["NormalForm"]):
        # Set directly: the setter would propagate back down.
        ancestor = self.parent
        while ancestor is not None:
            ancestor._normalForm = form
            ancestor = ancestor.parent

    def propagate_down_normalform(self, form: Type["NormalForm"]):
        pending = list(self.children)
        while pending:
            child = pending.pop()
            child._normalForm = form
            pending.extend(child.children)

    def normalize(self, form: Type["NormalForm"]) -> "Handle":
        """Brings this handle into `form`; returns the resulting handle."""
        return form.apply(self)


def _interface(ops):
    """The MatchInterfaceEnum `ops` names, or None."""
    if isinstance(ops, structured.MatchInterfaceEnum):
        return ops
    if isinstance(ops, str) and ops in structured.MatchInterfaceEnum.__members__:
        return structured.MatchInterfaceEnum[ops]
    return None


def _operation_name(op):
    if isinstance(op, str):
        return op
    name = getattr(op, "OPERATION_NAME", None)
    if name is None:
        raise TypeError(f"match_ops takes op names, OpView classes or an "
                        f"interface, got {op!r}")
    return name


@ir.register_value_caster(AnyOpType.get_static_typeid())
@ir.register_value_caster(OperationType.get_static_typeid())
class OpHandle(Handle):
    """A handle to payload operations."""

    def get_result(self, indices: Sequence[int] = (0,)) -> "ValueHandle":
        """Emits ``transform.get_result``: the payload ops' results at
        `indices`."""
        return transform.GetResultOp(AnyValueType.get(), self, list(indices)).result

    def match_ops(self, ops) -> "OpHandle":
        """Emits ``transform.structured.match`` of the ops nested in this
        handle's payload: by interface (a ``MatchInterfaceEnum`` or its
        name), by one name or OpView class (the result has that op's type),
        or by a list of them (``!transform.any_op``)."""
        interface = _interface(ops)
        if interface is not None:
            match = structured.MatchOp(AnyOpType.get(), self, interface=interface)
        else:
            if isinstance(ops, (list, tuple)):
                result_type = AnyOpType.get()
                names = [_operation_name(op) for op in ops]
            else:
                names = [_operation_name(ops)]
                result_type = OperationType.get(names[0])
            match = structured.MatchOp.match_op_names(result_type, self, names)
        handle = OpHandle(match.result, parent=self)
        self.children.append(handle)
        return handle

    def print(self, name: Optional[str] = None) -> "OpHandle":
        """Emits ``transform.print`` of this handle (with `name`); returns
        the handle."""
        transform.PrintOp(target=self, name=name)
        return self


@ir.register_value_caster(AnyParamType.get_static_typeid())
@ir.register_value_caster(ParamType.get_static_typeid())
class ParamHandle(Handle):
    """A handle to parameters (attributes)."""


@ir.register_value_caster(AnyValueType.get_static_typeid())
class ValueHandle(Handle):
    """A handle to payload values."""

    def get_defining_op(self) -> OpHandle:
        """Emits ``transform.get_defining_op`` of the payload values."""
        return transform.GetDefiningOp(AnyOpType.get(), self).result


def constant_param(value: Union[ir.Attribute, int]) -> ParamHandle:
    """Emits ``transform.param.constant`` of `value` (an int is an i64):
    a ``!transform.param<iN>`` for an integer, ``!transform.any_param``
    otherwise."""
    if isinstance(value, int):
        value = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)
    value_type = getattr(value, "type", None)
    if isinstance(value_type, ir.IntegerType):
        param_type = ParamType.get(value_type)
    else:
        param_type = AnyParamType.get()
    return transform.ParamConstantOp(param_type, value).param


class NormalForm:
    """A form of the payload a handle points to, reached by the transforms
    of ``_impl``. The class itself is the form: it is never instantiated.
    ``propagate_up``/``propagate_down``: whether reaching it also holds for
    the parent and child handles."""

    propagate_up: bool = True
    propagate_down: bool = True

    def __init__(self):
        raise TypeError("NormalForm is used as a class (Type[NormalForm]), "
                        "never instantiated")

    @classmethod
    def _impl(cls, handle: Handle) -> Handle:
        """The transforms that bring `handle` into this form (they may
        consume it); returns the resulting handle."""
        return handle

    @classmethod
    def apply(cls, handle: Handle) -> Handle:
        """Brings `handle` into this form; the resulting handle takes over
        its relations."""
        result = cls._impl(handle)
        if result is not handle:
            result.children.extend(handle.children)
            result.parent = handle.parent
        result.normalForm = cls
        return result


def insert_transform_script(
        block_or_insertion_point: Union[ir.Block, ir.InsertionPoint],
        script: Callable[[OpHandle], None], dump_script: bool = False) -> None:
    """Adds ``transform.named_sequence @__transform_main(!transform.any_op)``
    at the start of the block (or at the insertion point) and calls
    `script` with its argument, the root handle, inside its body; prints the
    sequence if `dump_script`."""
    if isinstance(block_or_insertion_point, ir.Block):
        context = block_or_insertion_point.owner.context
        insertion_point = ir.InsertionPoint.at_block_begin(block_or_insertion_point)
    else:
        insertion_point = block_or_insertion_point
        context = insertion_point.block.owner.context
    with context, ir.Location.unknown(context):
        with insertion_point:
            entry = NamedSequenceOp("__transform_main", [AnyOpType.get()], [])
        try:
            with ir.InsertionPoint(entry.body):
                script(entry.bodyTarget)
                YieldOp([])
        except BaseException:
            # Nothing half-built stays in the IR.
            entry.operation.erase()
            raise
    if dump_script:
        print(entry)


sequence = region_op(SequenceOp.__base__, terminator=YieldOp)
named_sequence = region_op(NamedSequenceOp, terminator=YieldOp)
apply_patterns = region_op(ApplyPatternsOp)
