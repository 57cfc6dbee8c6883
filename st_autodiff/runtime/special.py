"""``torch.special`` for the eager runtime: SciPy's special functions on tensors, their
backward nodes running the rules of ``derivatives.special``/``special_more`` (the
compiler's rules), named as PyTorch names them (``LgammaBackward0``, ``I0Backward0``,
``SpecialI1EBackward0`` ...).  Functions PyTorch has no derivative for
(``bessel_j0``, ``modified_bessel_k1`` ...) get the rule of the table under a node named
in PyTorch's style (``SpecialBesselJ0Backward0``).

An argument without a derivative rule (``zeta``'s ``input``, ``gammainc``'s ``input``)
raises at ``backward`` when a gradient must flow to it, as PyTorch does ("the derivative
... is not implemented"); other arguments of the same call still get theirs.

``import st_autodiff as torch; torch.special.erf(x)``.  SciPy is imported on first use.
The top-level aliases PyTorch has (``torch.lgamma``, ``torch.erf``, ``torch.i0``,
``torch.igamma`` ...) are exported from here by ``runtime/namespace``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..derivatives import RULES
from ..derivatives.special import NotDifferentiable
from ..ir.kernels import resolve
from ..ir.ops import OP_INFO, Op
from . import device as D
from . import dtypes
from .function import TensorBase, node_class
from .functional import (
    NONE,
    RESULT,
    SELF,
    _unary,
    exp2,
    expm1,
    log1p,
    log_softmax,
    logsumexp,
    softmax,
)
from .functional import round as _round
from .grad_mode import STATE
from .tensor import Tensor, plain
from .tensor_ops import record

__all__ = [
    "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "digamma", "entr", "erf", "erfc",
    "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln", "i0",
    "i0e", "i1", "i1e", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp",
    "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
    "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round", "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1", "sinc", "softmax", "spherical_bessel_j0", "xlog1py", "xlogy",
    "zeta",
]

round = _round  # noqa: A001  (torch.special.round is torch.round)
expit = _unary("expit", Op.EXPIT, "SigmoidBackward0", RESULT)
erf = _unary("erf", Op.ERF, "ErfBackward0", SELF, keeps_out=False)
erfc = _unary("erfc", Op.ERFC, "ErfcBackward0", SELF, keeps_out=False)
erfcx = _unary("erfcx", Op.ERFCX, "SpecialErfcxBackward0", SELF)
erfinv = _unary("erfinv", Op.ERFINV, "ErfinvBackward0", RESULT)
digamma = _unary("digamma", Op.DIGAMMA, "DigammaBackward0", SELF, keeps_out=False)
psi = digamma
gammaln = _unary("gammaln", Op.GAMMALN, "LgammaBackward0", SELF, keeps_out=False)
ndtr = _unary("ndtr", Op.NDTR, "SpecialNdtrBackward0", SELF, keeps_out=False)
ndtri = _unary("ndtri", Op.NDTRI, "SpecialNdtriBackward0", RESULT)
log_ndtr = _unary("log_ndtr", Op.LOG_NDTR, "SpecialLogNdtrBackward0", RESULT)
entr = _unary("entr", Op.ENTR, "SpecialEntrBackward0", SELF, keeps_out=False)
sinc = _unary("sinc", Op.SINC, "SincBackward0", RESULT)
i0 = _unary("i0", Op.I0, "I0Backward0", SELF, keeps_out=False)
i0e = _unary("i0e", Op.I0E, "SpecialI0EBackward0", SELF)
i1 = _unary("i1", Op.I1, "SpecialI1Backward0", SELF)
i1e = _unary("i1e", Op.I1E, "SpecialI1EBackward0", SELF)
bessel_j0 = _unary("bessel_j0", Op.J0, "SpecialBesselJ0Backward0", SELF, keeps_out=False)
bessel_j1 = _unary("bessel_j1", Op.J1, "SpecialBesselJ1Backward0", SELF, keeps_out=False)
bessel_y0 = _unary("bessel_y0", Op.Y0, "SpecialBesselY0Backward0", SELF, keeps_out=False)
bessel_y1 = _unary("bessel_y1", Op.Y1, "SpecialBesselY1Backward0", SELF, keeps_out=False)
modified_bessel_i0 = _unary("modified_bessel_i0", Op.I0, "SpecialModifiedBesselI0Backward0",
                            SELF, keeps_out=False)
modified_bessel_i1 = _unary("modified_bessel_i1", Op.I1, "SpecialModifiedBesselI1Backward0",
                            SELF, keeps_out=False)
modified_bessel_k0 = _unary("modified_bessel_k0", Op.K0, "SpecialModifiedBesselK0Backward0",
                            SELF, keeps_out=False)
modified_bessel_k1 = _unary("modified_bessel_k1", Op.K1, "SpecialModifiedBesselK1Backward0",
                            SELF, keeps_out=False)
scaled_modified_bessel_k0 = _unary("scaled_modified_bessel_k0", Op.K0E,
                                   "SpecialScaledModifiedBesselK0Backward0", SELF)
scaled_modified_bessel_k1 = _unary("scaled_modified_bessel_k1", Op.K1E,
                                   "SpecialScaledModifiedBesselK1Backward0", SELF)
def _rule_logit(ops: Any, g: Any, out: Any, x: Any) -> tuple[Any, ...]:
    """``g / (x (1 - x))``, NaN outside ``[0, 1]`` as PyTorch's (the formula alone is finite
    there, though ``logit`` is NaN)."""
    d = g / (x * (1 - x))
    return (ops.where(ops.logical_or(x < 0, x > 1), float("nan"), d),)


_logit_plain = _unary("logit", Op.LOGIT, "LogitBackward0", SELF, keeps_out=False,
                      rule=_rule_logit)


def logit(input: Tensor, eps: float | None = None) -> Tensor:
    """``log(p / (1 - p))``; ``eps`` clamps ``input`` to ``[eps, 1 - eps]`` first."""
    if eps is not None:
        input = input.clamp(eps, 1 - eps)
    return _logit_plain(input)


def _checked(rule: Callable[..., tuple[Any, ...]], names: tuple[str, ...], fname: str,
             strict: bool) -> Callable[..., tuple[Any, ...]]:
    """``rule`` with its ``NotDifferentiable`` answers made None (``strict=False``: that
    argument needs no gradient) or an error raised at backward (``strict=True``)."""

    def checked(ops: Any, g: Any, out: Any, *inputs: Any) -> tuple[Any, ...]:
        grads = rule(ops, g, out, *inputs)
        for k, d in enumerate(grads):
            if isinstance(d, NotDifferentiable):
                if strict:
                    raise RuntimeError(f"the derivative of torch.special.{fname} for "
                                       f"'{names[k]}' is not implemented: {d.message}")
        return tuple(None if isinstance(d, NotDifferentiable) else d for d in grads)

    return checked


def _special2(fname: str, op: Op, node: str, names: tuple[str, str],
              nondiff: tuple[int, ...] = ()) -> Callable[..., Tensor]:
    """``torch.special.<fname>(a, b)`` of an op of two inputs, either a tensor or a Python
    number; arguments in ``nondiff`` have no derivative (an error at backward)."""
    kernel = resolve(np, OP_INFO[op].numpy)  # type: ignore[arg-type]
    from .eager_rules import EAGER_RULES

    rule = EAGER_RULES.get(op, RULES[op])
    classes = {strict: node_class(node, _checked(rule, names, fname, strict), (0, 1),
                                  NONE, False) for strict in (False, True)}

    def fn(input: Any, other: Any) -> Tensor:
        args = (input, other)
        tensors = [a for a in args if isinstance(a, TensorBase)]
        if not tensors:
            raise TypeError(f"{fname}(): expected at least one Tensor argument")
        target = dtypes.result_type(*args).np if len(tensors) == 2 else tensors[0]._data.dtype
        if target.kind != "f":
            target = dtypes.get_default_dtype().np
        data = [a._data.astype(target, copy=False) if isinstance(a, TensorBase)
                else a.item() if isinstance(a, np.generic) else a for a in args]
        r = D.asarray(kernel(*data))
        r = r if r.dtype == target else r.astype(target)
        wants = [isinstance(a, TensorBase) and a._requires_grad for a in args]
        if STATE.enabled and any(wants):
            strict = any(wants[k] for k in nondiff)
            return record(classes[strict], r, args, {})
        return plain(r)

    fn.__name__ = fn.__qualname__ = fname
    fn.__doc__ = f"``torch.special.{fname}({', '.join(names)})``; records ``{node}``."
    return fn


xlogy = _special2("xlogy", Op.XLOGY, "XlogyBackward0", ("self", "other"))
xlog1py = _special2("xlog1py", Op.XLOG1PY, "SpecialXlog1PyBackward0", ("self", "other"))
zeta = _special2("zeta", Op.ZETA, "SpecialZetaBackward0", ("input", "other"), (0,))
gammainc = _special2("gammainc", Op.GAMMAINC, "IgammaBackward0", ("input", "other"), (0,))
gammaincc = _special2("gammaincc", Op.GAMMAINCC, "IgammacBackward0", ("input", "other"), (0,))
_polygamma = _special2("polygamma", Op.POLYGAMMA, "PolygammaBackward0", ("n", "input"))


def polygamma(n: int, input: Tensor) -> Tensor:
    """``polygamma(n, input)``: the n-th derivative of digamma (n an int)."""
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not "
                        f"{type(n).__name__}")
    return _polygamma(n, input)


def _mvlgamma_rule(ops: Any, g: Any, out: Any, x: Any, p: int = 1) -> tuple[Any, ...]:
    """d/dx multigammaln(x, p) = sum(digamma(x - j / 2), j < p): digamma has rules, so the
    node can be differentiated again."""
    total = ops.digamma(x)
    for j in range(1, p):
        total = total + ops.digamma(x - j / 2)
    return (g * total,)


_MVLGAMMA = node_class("MvlgammaBackward0", _mvlgamma_rule, (0,), SELF, False)


def multigammaln(input: Tensor, p: int) -> Tensor:
    """The multivariate log-gamma function of dimension ``p`` (SciPy's ``multigammaln``
    elementwise): ``sum(lgamma(input - j / 2), j < p) + p (p - 1) / 4 log(pi)``; every
    element must be above ``(p - 1) / 2``, as PyTorch checks."""
    d = input._data
    if d.dtype.kind != "f":
        d = d.astype(dtypes.get_default_dtype().np)
    if not bool(np.all(d > (p - 1) / 2)):
        raise RuntimeError(f"All elements must be greater than {(p - 1) / 2}")
    gammaln_k = resolve(np, OP_INFO[Op.GAMMALN].numpy)  # type: ignore[arg-type]
    r = gammaln_k(d)
    for j in range(1, p):
        r = r + gammaln_k(d - j / 2)
    r = np.asarray(r + p * (p - 1) / 4 * math.log(math.pi), dtype=d.dtype)
    if STATE.enabled and input._requires_grad:
        return record(_MVLGAMMA, r, (input,), {"p": p})
    return plain(r)


def spherical_bessel_j0(input: Tensor) -> Tensor:
    """``sin(x) / x`` (1 at 0), as ``sinc(x / pi)``."""
    return sinc(input / math.pi)


#: ``torch.<name>`` -> function: the top-level aliases PyTorch has for these
TOP_LEVEL: dict[str, Any] = {
    "lgamma": gammaln, "digamma": digamma, "polygamma": polygamma, "mvlgamma": multigammaln,
    "erf": erf, "erfc": erfc, "erfinv": erfinv, "i0": i0, "sinc": sinc, "xlogy": xlogy,
    "logit": logit, "igamma": gammainc, "igammac": gammaincc,
}


def install_methods() -> None:
    """The ``Tensor`` methods PyTorch has for these (``x.lgamma()``, ``x.polygamma(n)``)."""
    for name in ("lgamma", "digamma", "erf", "erfc", "erfinv", "i0", "sinc", "logit", "xlogy",
                 "mvlgamma", "igamma", "igammac"):
        setattr(Tensor, name, TOP_LEVEL[name])
    # installs the method tensor_api declares
    Tensor.polygamma = lambda self, n: polygamma(n, self)  # type: ignore[method-assign,arg-type]
