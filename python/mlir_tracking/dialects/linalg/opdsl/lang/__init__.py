"""The OpDSL language: ``from mlir_tracking.dialects.linalg.opdsl.lang
import *`` gives what upstream's ``mlir.dialects.linalg.opdsl.lang`` does for
defining and emitting ops.

    @linalg_structured_op
    def matmul_poly(A=TensorDef(T1, S.M, S.K), B=TensorDef(T2, S.K, S.N),
                    C=TensorDef(U, S.M, S.N, output=True),
                    cast=TypeFnAttrDef(default=TypeFn.cast_signed)):
        domain(D.m, D.n, D.k)
        C[D.m, D.n] += cast(U, A[D.m, D.k]) * cast(U, B[D.k, D.n])

    matmul_poly(a, b, outs=[c], cast=TypeFn.cast_unsigned)

Modules: ``affine`` (D, S and index expressions), ``types`` (type
variables), ``expressions`` (right-hand sides and the function namespaces),
``operands`` (the parameter definitions), ``definition`` (the decorator),
``structure`` (what a definition means as a structured op), ``emitter`` and
``scalar_ops`` (building the IR).
"""

from .affine import *  # noqa: F401,F403
from .types import *  # noqa: F401,F403
from .expressions import *  # noqa: F401,F403
from .operands import *  # noqa: F401,F403
from .definition import *  # noqa: F401,F403
from . import affine, definition, expressions, operands, types
# Upstream's star import gives `ir` too (its dsl module imports it), and
# OpDSL programs use it for affine maps and types.
from ..... import ir

__all__ = (affine.__all__ + types.__all__ + expressions.__all__
           + operands.__all__ + definition.__all__ + ["ir"])
