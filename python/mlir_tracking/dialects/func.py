"""The ``func`` dialect (upstream ``mlir.dialects.func``): generated op
classes plus ``FuncOp`` built from a name and a type, with
``add_entry_block``, ``arguments`` and the ``from_py_func`` decorator, and
``CallOp`` taking a ``FuncOp`` or a callee name."""

import inspect as _inspect
from typing import List as _List, Optional as _Optional, Sequence as _Sequence
from typing import Union as _Union

from ._func_ops_gen import *  # noqa: F401,F403
from ._func_ops_gen import _Dialect
from ._ods_common import _cext as _ods_cext
from ._function_like import FunctionLikeMixin as _FunctionLikeMixin
from ._ods_common import get_default_loc_context as _get_default_loc_context
from ..extras.meta import _discard
from ..ir import (
    ArrayAttr,
    DictAttr,
    FlatSymbolRefAttr,
    FunctionType,
    InsertionPoint,
    OpView,
    Operation,
    Type,
    TypeAttr,
    Value,
)

ARGUMENT_ATTRIBUTE_NAME = "arg_attrs"
RESULT_ATTRIBUTE_NAME = "res_attrs"


@_ods_cext.register_operation(_Dialect, replace=True)
class ConstantOp(ConstantOp):  # noqa: F405
    """``func.constant`` with its result ``type``."""

    @property
    def type(self) -> Type:
        return self.results[0].type


@_ods_cext.register_operation(_Dialect, replace=True)
class FuncOp(_FunctionLikeMixin, FuncOp):  # noqa: F405
    """``func.func`` built from a name and a function type (None
    visibility: public)."""

    @property
    def arg_attrs(self):
        """The argument attributes (empty dictionaries if unset)."""
        if ARGUMENT_ATTRIBUTE_NAME not in self.attributes:
            return ArrayAttr.get(
                [DictAttr.get({}, context=self.context) for _ in self.type.inputs],
                context=self.context,
            )
        return ArrayAttr(self.attributes[ARGUMENT_ATTRIBUTE_NAME])

    @arg_attrs.setter
    def arg_attrs(self, attribute):
        if not isinstance(attribute, ArrayAttr):
            attribute = ArrayAttr.get(attribute, context=self.context)
        self.attributes[ARGUMENT_ATTRIBUTE_NAME] = attribute

    @property
    def arguments(self):
        """The entry block's arguments."""
        return self.entry_block.arguments

    @property
    def result_attrs(self):
        """The result attributes (KeyError if unset)."""
        return self.attributes[RESULT_ATTRIBUTE_NAME]

    @result_attrs.setter
    def result_attrs(self, attribute):
        self.attributes[RESULT_ATTRIBUTE_NAME] = attribute

    @classmethod
    def from_py_func(
        cls,
        *inputs: Type,
        results: _Optional[_Sequence[Type]] = None,
        name: _Optional[str] = None,
    ):
        """Decorator: defines a function from a Python function at the
        current insertion point (a Location must be current too).

        The entry block gets one argument per type in `inputs`, passed
        positionally; a `func_op` keyword (or **kwargs) receives the FuncOp.
        Without `results`, the values the Python function returns are
        returned by an implicit `func.return` and give the result types;
        with `results`, the Python function must return None and add its own
        terminator. The function is named `name` or after the Python
        function. Calling the decorated function emits a `func.call` at the
        current insertion point and returns None, its Value, or its results;
        `decorated.func_op` is the FuncOp.
        """

        def decorator(f):
            parameters = _inspect.signature(f).parameters.values()
            wants_func_op = any(
                p.kind == p.VAR_KEYWORD
                or (
                    p.name == "func_op"
                    and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
                )
                for p in parameters
            )
            implicit_return = results is None
            symbol_name = name or f.__name__
            func_op = cls(
                symbol_name,
                FunctionType.get(
                    inputs=list(inputs), results=[] if implicit_return else list(results)
                ),
            )
            try:
                with InsertionPoint(func_op.add_entry_block()):
                    kwargs = {"func_op": func_op} if wants_func_op else {}
                    returned = f(*func_op.arguments, **kwargs)
                    if not implicit_return:
                        if returned is not None:
                            # AssertionError and its text, as upstream.
                            raise AssertionError(
                                "Capturing a python function with explicit "
                                "`results=` requires that the wrapped function "
                                "returns None."
                            )
                        return_types = list(results)
                    else:
                        if returned is None:
                            returned = []
                        elif isinstance(returned, Value):
                            returned = [returned]
                        elif isinstance(returned, (OpView, Operation)):
                            returned = list(returned.results)
                        else:
                            returned = list(returned)
                        ReturnOp(returned)  # noqa: F405
                        return_types = [v.type for v in returned]
                        func_op.attributes["function_type"] = TypeAttr.get(
                            FunctionType.get(inputs=list(inputs), results=return_types)
                        )
            except BaseException as error:
                # Nothing half-built stays in the IR (a function without its
                # terminator does not verify), unlike upstream.
                _discard(func_op, f"'func.func' @{symbol_name}", error)
                raise

            def emit_call_op(*call_args):
                call = CallOp(return_types, FlatSymbolRefAttr.get(symbol_name), list(call_args))
                if not return_types:
                    return None
                if len(return_types) == 1:
                    return call.result
                return call.results

            emit_call_op.__name__ = f.__name__
            emit_call_op.__doc__ = f.__doc__
            emit_call_op.func_op = func_op
            return emit_call_op

        return decorator


func = FuncOp.from_py_func


@_ods_cext.register_operation(_Dialect, replace=True)
class CallOp(CallOp):  # noqa: F405
    """``func.call`` of a FuncOp, or of a callee by name."""

    def __init__(
        self,
        calleeOrResults: _Union[FuncOp, _List[Type]],
        argumentsOrCallee,
        arguments: _Optional[_List] = None,
        *,
        loc=None,
        ip=None,
    ):
        """Either `CallOp(func_op, [args])`, or
        `CallOp([result types], "callee" or FlatSymbolRefAttr, [args])`."""
        context = _get_default_loc_context(loc)
        if isinstance(calleeOrResults, FuncOp):
            if not isinstance(argumentsOrCallee, (list, tuple)):
                raise ValueError(
                    "when calling a FuncOp, the second argument must be the "
                    f"list of call arguments, got {type(argumentsOrCallee).__name__}"
                )
            if arguments is not None:
                raise ValueError("unexpected third argument when calling a FuncOp")
            super().__init__(
                list(calleeOrResults.type.results),
                FlatSymbolRefAttr.get(calleeOrResults.name.value, context=context),
                list(argumentsOrCallee),
                loc=loc,
                ip=ip,
            )
            return
        if isinstance(argumentsOrCallee, str):
            argumentsOrCallee = FlatSymbolRefAttr.get(argumentsOrCallee, context=context)
        elif not isinstance(argumentsOrCallee, FlatSymbolRefAttr):
            raise ValueError(
                "when calling by name, the second argument must be a str or a "
                f"FlatSymbolRefAttr, got {type(argumentsOrCallee).__name__}"
            )
        super().__init__(
            calleeOrResults,
            argumentsOrCallee,
            [] if arguments is None else arguments,
            loc=loc,
            ip=ip,
        )
