"""Rules of the stats op ``no_derivative`` (VJP and JVP, see ``derivatives``).

``rt.no_derivative(x, what)`` is ``x`` itself.  The scipy.stats decompositions
(``decompositions/stats_impl.py``) pass through it every argument that has no
derivative: an integer count (``binom``'s ``n``, the point ``k`` of a discrete
distribution) or a shape parameter of a function without a closed-form derivative in it
(``betainc``'s ``a`` and ``b``, ``stdtr``'s ``df``).  When such an argument is active, the
VJP rule answers ``NotDifferentiable``, which the adjoint pass turns into an error
located at the user's call, and the JVP rule raises: never a silent zero.
"""

from __future__ import annotations

from typing import Any

from ..ir.ops import Op
from . import RULES, Grads, RuleError
from .jvp import jvp_rule
from .special import NotDifferentiable


def _message(what: str) -> str:
    return (f"{what or 'this argument has no derivative'}; pass it as a constant "
            "(st.stop_gradient) or leave it out of wrt")


def _no_derivative_vjp(ops: Any, g: Any, out: Any, x: Any, what: str = "") -> Grads:
    return (NotDifferentiable(_message(what)),)


@jvp_rule(Op.NO_DERIVATIVE)
def _no_derivative_jvp(ops: Any, tangents: tuple[Any, ...], out: Any, x: Any,
                       what: str = "") -> Any:
    if tangents[0] is None:
        return None
    raise RuleError(_message(what))


RULES[Op.NO_DERIVATIVE] = _no_derivative_vjp
