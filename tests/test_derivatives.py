"""Table-driven tests of every VJP rule in ``st_autodiff.derivatives.RULES``.

Each ``Case`` is one op with concrete inputs drawn inside the op's domain (seeded, float64)
and the params to use; ops whose rule has branches get several cases.  For every case the
rule runs eagerly through ``ArrayOps(numpy)``, each gradient is summed down to its input's
shape (rules never unbroadcast), and ``st_autodiff.testing`` checks the result against
central differences twice: the dot-product test and an element-by-element comparison.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

import st_autodiff.transforms  # noqa: F401  (the compiler registers the rules of its own ops)
from st_autodiff.derivatives import (
    CUSTOM_VJPS,
    NONDIFFERENTIABLE,
    RULES,
    STRUCTURAL,
    ArrayOps,
    RuleError,
    vjp_of,
)
from st_autodiff.derivatives.special import NotDifferentiable
from st_autodiff.ir.kernels import run, unbroadcast
from st_autodiff.ir.ops import ELEMENTWISE, OP_INFO, Op
from st_autodiff.testing import check_grads, check_vjp, numerical_vjp

OPS = ArrayOps(np)
_rng = np.random.default_rng(1234)


# --- input domains --------------------------------------------------------------------


def normal(*shape: int) -> np.ndarray:
    return np.asarray(_rng.standard_normal(shape))


def uniform(lo: float, hi: float, *shape: int) -> np.ndarray:
    return np.asarray(_rng.uniform(lo, hi, shape))


def positive(*shape: int) -> np.ndarray:
    return uniform(0.5, 2.0, *shape)


def away(*shape: int) -> np.ndarray:
    """Values with |x| in [0.4, 1.5]: away from the kinks and poles at zero."""
    return np.asarray(uniform(0.4, 1.5, *shape) * _rng.choice([-1.0, 1.0], shape))


def distinct(*shape: int) -> np.ndarray:
    """Evenly spaced values (no ties, no zero) in random order."""
    n = int(np.prod(shape))
    return _rng.permutation(np.linspace(-1.5, 1.5, n) + 0.01).reshape(shape)


def wellcond(n: int, *batch: int) -> np.ndarray:
    """A well-conditioned square matrix (or a batch of them)."""
    return normal(*batch, n, n) * 0.3 + 2.0 * np.eye(n)


def spd(n: int) -> np.ndarray:
    """A symmetric positive definite matrix."""
    b = normal(n, n)
    return b @ b.T + n * np.eye(n)


def sym(a: np.ndarray) -> np.ndarray:
    """The symmetric part of ``a``: linear and self-adjoint, so it is its own VJP."""
    return (a + np.swapaxes(a, -1, -2)) / 2


def ints(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.intp)


# --- the case table -------------------------------------------------------------------


@dataclass
class Case:
    op: Op
    label: str
    inputs: tuple
    params: dict[str, Any] = field(default_factory=dict)
    eps: float = 1e-6
    atol: float | None = None
    rtol: float | None = None
    #: a self-adjoint linear map applied to input 0 before the op (cholesky reads only the
    #: lower triangle, so it is checked as ``cholesky(sym(a))``)
    prep: Callable[[np.ndarray], np.ndarray] | None = None
    #: the inputs to check against finite differences (default: every float input)
    argnums: tuple[int, ...] | None = None

    @property
    def id(self) -> str:
        return f"{self.op.value}-{self.label}"

    @property
    def full_params(self) -> dict[str, Any]:
        params = OP_INFO[self.op].param_defaults
        params.update(self.params)
        return params


CASES: list[Case] = []


def case(
    op: Op,
    label: str,
    *inputs: Any,
    eps: float = 1e-6,
    atol: float | None = None,
    rtol: float | None = None,
    prep: Callable | None = None,
    argnums: tuple[int, ...] | None = None,
    **params: Any,
) -> None:
    unknown = set(params) - set(OP_INFO[op].param_defaults)
    assert not unknown, f"{op.value} has no params {unknown}"
    CASES.append(Case(op, label, inputs, params, eps, atol, rtol, prep, argnums))


UNARY_DOMAINS: dict[Op, Callable[..., np.ndarray]] = {
    Op.COPY: normal,
    Op.POSITIVE: normal,
    Op.NEG: normal,
    Op.ABS: away,
    Op.EXP: normal,
    Op.EXP2: normal,
    Op.EXPM1: normal,
    Op.LOG: positive,
    Op.LOG2: positive,
    Op.LOG10: positive,
    Op.LOG1P: lambda *s: uniform(-0.5, 2.0, *s),
    Op.SQRT: positive,
    Op.CBRT: away,
    Op.SQUARE: normal,
    Op.RECIPROCAL: away,
    Op.SIN: normal,
    Op.COS: normal,
    Op.TAN: lambda *s: uniform(-1.2, 1.2, *s),
    Op.ARCSIN: lambda *s: uniform(-0.9, 0.9, *s),
    Op.ARCCOS: lambda *s: uniform(-0.9, 0.9, *s),
    Op.ARCTAN: normal,
    Op.SINH: normal,
    Op.COSH: normal,
    Op.TANH: normal,
    Op.ARCSINH: normal,
    Op.ARCCOSH: lambda *s: uniform(1.2, 3.0, *s),
    Op.ARCTANH: lambda *s: uniform(-0.9, 0.9, *s),
    Op.DEG2RAD: normal,
    Op.RAD2DEG: normal,
    Op.SIGMOID: normal,
    Op.RELU: away,
}
for _op, _dom in UNARY_DOMAINS.items():
    case(_op, "2d", _dom(3, 4))
    case(_op, "0d", _dom())

BINARY_DOMAINS: dict[Op, tuple[Callable[..., np.ndarray], Callable[..., np.ndarray]]] = {
    Op.ADD: (normal, normal),
    Op.SUB: (normal, normal),
    Op.MUL: (normal, normal),
    Op.DIV: (normal, away),
    Op.MOD: (lambda *s: uniform(-3.0, 3.0, *s), positive),
    Op.HYPOT: (away, away),
    Op.ARCTAN2: (away, away),
    Op.LOGADDEXP: (normal, normal),
    Op.LOGADDEXP2: (normal, normal),
    Op.POW: (positive, normal),
    Op.MAXIMUM: (normal, normal),
    Op.MINIMUM: (normal, normal),
    Op.FMAX: (normal, normal),
    Op.FMIN: (normal, normal),
}
for _op, (_dx, _dy) in BINARY_DOMAINS.items():
    case(_op, "same", _dx(3, 4), _dy(3, 4))
    case(_op, "bcast", _dx(3, 1), _dy(4))
    case(_op, "0d-y", _dx(2, 3), _dy())

# scipy.special ops and np.sinc (scipy is a test dependency)
SPECIAL_UNARY: dict[Op, Callable[..., np.ndarray]] = {
    Op.EXPIT: normal,
    Op.LOGIT: lambda *s: uniform(0.1, 0.9, *s),
    Op.LOG_EXPIT: normal,
    Op.GAMMALN: positive,
    Op.DIGAMMA: positive,
    Op.ERF: normal,
    Op.ERFC: normal,
    Op.ERFINV: lambda *s: uniform(-0.8, 0.8, *s),
    Op.NDTR: normal,
    Op.LOG_NDTR: lambda *s: uniform(-6.0, 3.0, *s),
    Op.NDTRI: lambda *s: uniform(0.1, 0.9, *s),
    Op.ENTR: positive,
    Op.SINC: lambda *s: uniform(-2.5, 2.5, *s),
}
for _op, _dom in SPECIAL_UNARY.items():
    case(_op, "2d", _dom(3, 4))
    case(_op, "0d", _dom())
case(Op.SINC, "near-zero", np.array([0.0, 1e-5, -4e-4, 2e-3, -0.5]), eps=1e-7)
SPECIAL_BINARY: dict[Op, tuple[Callable[..., np.ndarray], Callable[..., np.ndarray]]] = {
    Op.XLOGY: (normal, positive),
    Op.XLOG1PY: (normal, positive),
    Op.REL_ENTR: (positive, positive),
    Op.KL_DIV: (positive, positive),
    Op.HUBER: (positive, lambda *s: np.asarray(normal(*s) * 2.0)),
    Op.PSEUDO_HUBER: (positive, normal),
    Op.BOXCOX: (positive, normal),
    Op.BETALN: (positive, positive),
}
for _op, (_dx, _dy) in SPECIAL_BINARY.items():
    case(_op, "same", _dx(3, 4), _dy(3, 4))
    case(_op, "bcast", _dx(3, 1), _dy(4))
    case(_op, "0d-y", _dx(2, 3), _dy())
case(Op.XLOGY, "x-zero", np.array([0.0, 0.5, 0.0]), np.array([0.0, 1.5, 2.0]), argnums=(1,))
case(Op.BOXCOX, "lmbda-zero", positive(4), np.array([0.0, 0.3, 0.0, -0.7]))
for _op in (Op.GAMMAINC, Op.GAMMAINCC):  # no derivative in a: only x is checked
    case(_op, "x", positive(3, 4) * 2, positive(3, 4) * 2, argnums=(1,))
case(Op.POLYGAMMA, "n1", np.array([1, 2, 0]), positive(2, 3), argnums=(1,))
# special family (issue 11): the scipy.special ops of derivatives/special_more.py
SPECIAL_MORE_UNARY: dict[Op, Callable[..., np.ndarray]] = {
    Op.GAMMA: positive, Op.RGAMMA: positive, Op.LOGGAMMA: positive,
    Op.ERFCINV: lambda *s: uniform(0.2, 1.8, *s), Op.ERFCX: normal, Op.ERFI: normal,
    Op.DAWSN: normal, Op.I0: normal, Op.I0E: away, Op.I1: normal, Op.I1E: away, Op.J0: normal,
    Op.J1: normal, Op.Y0: positive, Op.Y1: positive, Op.K0: positive, Op.K0E: positive,
    Op.K1: positive, Op.K1E: positive, Op.EXP1: positive, Op.EXPI: away, Op.SPENCE: positive,
    Op.SP_LOG1P: positive, Op.SP_EXPM1: normal, Op.COSM1: normal, Op.EXPREL: normal,
    Op.SP_CBRT: positive, Op.SP_EXP2: normal, Op.EXP10: normal,
    Op.SINDG: lambda *s: uniform(-200.0, 200.0, *s),
    Op.COSDG: lambda *s: uniform(-200.0, 200.0, *s),
}
for _op, _dom in SPECIAL_MORE_UNARY.items():
    case(_op, "2d", _dom(3, 4))
    case(_op, "0d", _dom())
case(Op.EXPREL, "near-zero", np.array([0.0, 1e-5, -4e-4, 2e-3, -0.5]), eps=1e-7)
case(Op.SPENCE, "at-one", np.array([1.0, 0.5, 1.5]))
for _op, (_dx, _dy) in {
    Op.BETA: (positive, positive), Op.BOXCOX1P: (positive, normal),
    Op.INV_BOXCOX: (lambda *s: uniform(0.1, 0.8, *s), lambda *s: uniform(-0.5, 0.5, *s)),
    Op.OWENS_T: (normal, normal), Op.POCH: (positive, positive),
    Op.BINOM: (lambda *s: uniform(3.0, 5.0, *s), positive),
}.items():
    case(_op, "same", _dx(3, 4), _dy(3, 4))
    case(_op, "bcast", _dx(3, 1), _dy(4))
case(Op.BOXCOX1P, "lmbda-zero", positive(4), np.array([0.0, 0.3, 0.0, -0.7]))
case(Op.INV_BOXCOX, "lmbda-zero", positive(4) * 0.3, np.array([0.0, 0.3, 0.0, -0.7]))
#: ops differentiable in their last input only (an order; zeta's x; betainc's a and b)
SPECIAL_MORE_LAST_ONLY = {Op.IV, Op.IVE, Op.JV, Op.YV, Op.YN, Op.KV, Op.KVE, Op.ZETA,
                          Op.EXPN, Op.BETAINC}
for _op, _order, _dom in ((Op.IV, 1.5, positive), (Op.IVE, 2.0, away), (Op.JV, 2.5, positive),
                          (Op.YV, 0.5, positive), (Op.YN, 3, positive), (Op.KV, 1.5, positive),
                          (Op.KVE, 0.5, positive), (Op.ZETA, 2.5, positive),
                          (Op.EXPN, 2, positive)):
    case(_op, "x", np.full((3, 4), _order), _dom(3, 4), argnums=(1,))
case(Op.EXPN, "n0", np.array([0, 1, 2]), positive(2, 3), argnums=(1,))
case(Op.BETAINC, "x", positive(3, 4), positive(3, 4), uniform(0.1, 0.9, 3, 4), argnums=(2,))
# numpy-more family: fmod (both inputs, away from the jumps), ldexp (x; the exponent is
# an integer)
case(Op.FMOD, "same", uniform(-3.0, 3.0, 3, 4), positive(3, 4))
case(Op.FMOD, "bcast", uniform(-3.0, 3.0, 3, 1), positive(4))
case(Op.LDEXP, "x", normal(3, 4), np.array([1, -2, 0, 3]), argnums=(0,))

case(Op.POW, "python-float-exponent", positive(3, 4), 2.5)
# x ** y has no derivative in y where x < 0: only the base is checked
case(Op.POW, "integer-exponent-negative-base", away(3, 4), 3.0, argnums=(0,))
_tx = distinct(3, 4)
_ty = np.where(np.arange(12).reshape(3, 4) % 3 == 0, _tx, distinct(3, 4))
for _op in (Op.MAXIMUM, Op.MINIMUM, Op.FMAX, Op.FMIN):
    case(_op, "ties", _tx, _ty)  # central differences also see the 0.5/0.5 split
case(Op.FMAX, "nan", normal(5), np.array([0.3, np.nan, -0.2, np.nan, 1.0]))
case(Op.FMIN, "nan", np.array([np.nan, 0.1, 0.2, -0.4]), normal(4))

case(Op.WHERE, "bcast", normal(3, 4) > 0, normal(3, 4), normal(4))
case(Op.WHERE, "bcast-cond", normal(3, 1) > 0, normal(3, 4), normal(3, 4))
case(Op.CLIP, "array-bounds", normal(3, 4) * 1.5, uniform(-1.0, -0.2, 4), uniform(0.2, 1.0, 3, 1))
case(Op.CLIP, "python-bounds", normal(3, 4), -0.5, 0.5)
case(Op.CLIP, "no-lower", normal(3, 4), None, uniform(-0.5, 0.5, 4))
case(Op.CLIP, "no-upper", normal(3, 4), -0.5, None)

# reductions and scans
_x3 = normal(2, 3, 4)
for _op in (Op.SUM, Op.MEAN):
    for _label, _kw in [
        ("all", {}),
        ("axis1", {"axis": 1}),
        ("axis-neg", {"axis": -1}),
        ("axes", {"axis": (0, 2)}),
        ("axes-neg", {"axis": (-1, 0)}),
        ("keep-all", {"keepdims": True}),
        ("keep-axis", {"axis": 1, "keepdims": True}),
        ("keep-axes", {"axis": (0, 2), "keepdims": True}),
    ]:
        case(_op, _label, _x3, **_kw)
    case(_op, "0d", normal())
for _op in (Op.MAX, Op.MIN):
    _d = distinct(2, 3, 4)
    case(_op, "all", _d)
    case(_op, "axis1", _d, axis=1)
    case(_op, "axes", _d, axis=(0, 2))
    case(_op, "keep-neg", _d, axis=-1, keepdims=True)
    case(_op, "keep-all", _d, keepdims=True)
    case(_op, "tie2", np.array([0.3, -0.4, 0.3, 0.1] if _op is Op.MAX else [0.3, -0.4, -0.4, 0.1]))
    case(
        _op,
        "tie2-axis",
        np.array([[1.0, 2.0, 2.0], [0.5, 0.5, 0.1]]) * (1 if _op is Op.MAX else -1),
        axis=1,
    )
_p = away(2, 3, 4)
case(Op.PROD, "all", _p)
case(Op.PROD, "axis1", _p, axis=1)
case(Op.PROD, "axes", _p, axis=(0, 2))
case(Op.PROD, "keep-neg", _p, axis=-1, keepdims=True)
case(Op.PROD, "keep-all", _p, keepdims=True)
case(Op.PROD, "one-zero", np.array([0.5, 0.0, -1.5, 2.0]))
case(Op.PROD, "two-zeros", np.array([0.5, 0.0, -1.5, 0.0]))
case(Op.PROD, "zero-axis", np.array([[0.5, 0.0, 2.0], [1.5, -0.5, 0.7]]), axis=1)
for _op in (Op.VAR, Op.STD):
    _v = normal(3, 4)
    case(_op, "all", _v)
    case(_op, "axis0", _v, axis=0)
    case(_op, "keep-neg-ddof1", _v, axis=-1, keepdims=True, ddof=1)
    case(_op, "axes", normal(2, 3, 4), axis=(0, 2))
for _op in (Op.SOFTMAX, Op.LOG_SOFTMAX):
    case(_op, "last", normal(3, 4))
    case(_op, "axis0", normal(3, 4), axis=0)
    case(_op, "1d", normal(5))
case(Op.LOGSUMEXP, "all", normal(3, 4))
case(Op.LOGSUMEXP, "axis1", normal(2, 3, 4), axis=1)
case(Op.LOGSUMEXP, "axes-keep", normal(2, 3, 4), axis=(0, 2), keepdims=True)
case(Op.LOGSUMEXP, "large", normal(3, 4) * 50.0, axis=-1)
for _axis in (None, 0, -1):
    case(Op.CUMSUM, f"axis{_axis}", normal(3, 4), axis=_axis)
    case(Op.CUMPROD, f"axis{_axis}", away(3, 4), axis=_axis)

# linear algebra
case(Op.MATMUL, "1d-1d", normal(4), normal(4))
case(Op.MATMUL, "1d-2d", normal(3), normal(3, 4))
case(Op.MATMUL, "2d-1d", normal(3, 4), normal(4))
case(Op.MATMUL, "2d-2d", normal(2, 3), normal(3, 4))
case(Op.MATMUL, "batched-2d", normal(2, 3, 4), normal(4, 2))
case(Op.MATMUL, "bcast-batch", normal(2, 1, 3, 4), normal(3, 4, 2))
case(Op.MATMUL, "1d-3d", normal(3), normal(2, 3, 4))
case(Op.MATMUL, "3d-1d", normal(2, 3, 4), normal(4))
case(Op.DOT, "0d-2d", normal(), normal(2, 3))
case(Op.DOT, "2d-0d", normal(2, 3), normal())
case(Op.DOT, "1d-1d", normal(4), normal(4))
case(Op.DOT, "1d-2d", normal(3), normal(3, 4))
case(Op.DOT, "2d-1d", normal(3, 4), normal(4))
case(Op.DOT, "2d-2d", normal(2, 3), normal(3, 4))
case(Op.VDOT, "1d", normal(5), normal(5))
case(Op.VDOT, "2d", normal(2, 3), normal(3, 2))
case(Op.OUTER, "1d", normal(3), normal(4))
case(Op.OUTER, "2d-raveled", normal(2, 2), normal(3))
case(Op.INNER, "0d", normal(), normal(2, 3))
case(Op.INNER, "1d", normal(4), normal(4))
case(Op.INNER, "2d-1d", normal(3, 4), normal(4))
case(Op.INNER, "3d-2d", normal(2, 3, 4), normal(5, 4))
case(Op.TENSORDOT, "default", normal(2, 3, 4), normal(3, 4, 5))
case(Op.TENSORDOT, "int1", normal(2, 3), normal(3, 4), axes=1)
case(Op.TENSORDOT, "int0", normal(2), normal(3), axes=0)
case(Op.TENSORDOT, "lists", normal(2, 3, 4), normal(4, 5, 2), axes=([2, 0], [0, 2]))
case(Op.TENSORDOT, "neg-int-pair", normal(3, 4), normal(4, 5), axes=(-1, 0))
case(Op.TENSORDOT, "swapped-order", normal(3, 4, 2), normal(4, 3), axes=([0, 1], [1, 0]))
for _sub, _ops in [
    ("ij,jk->ik", (normal(2, 3), normal(3, 4))),
    ("ij,jk", (normal(2, 3), normal(3, 4))),
    ("ij->i", (normal(2, 3),)),
    ("ij->", (normal(2, 3),)),
    ("ij,i->i", (normal(2, 3), normal(2))),
    ("i,i->", (normal(4), normal(4))),
    ("i,j->ij", (normal(2), normal(3))),
    ("ijk->kji", (normal(2, 3, 4),)),
    ("bij,bjk->bik", (normal(2, 3, 4), normal(2, 4, 2))),
    ("ij,kj->ik", (normal(2, 3), normal(4, 3))),
    ("ij,jk,kl->il", (normal(2, 3), normal(3, 4), normal(4, 2))),
    ("...ij,jk->...ik", (normal(2, 3, 4), normal(4, 2))),
    ("...ij->...i", (normal(2, 3, 4),)),
    ("ij,...j->...i", (normal(2, 3), normal(4, 3))),
    ("...i,...i->...", (normal(2, 3), normal(1, 3))),
]:
    case(Op.EINSUM, _sub.replace("...", "E").replace("->", "_to_"), *_ops, subscripts=_sub)
for _k in (0, 1, -1):
    case(Op.TRACE, f"offset{_k}", normal(3, 4), offset=_k)
    case(Op.DIAGONAL, f"offset{_k}", normal(3, 4), offset=_k)
case(Op.TRACE, "3d-axes", normal(3, 2, 4), offset=1, axis1=2, axis2=0)
case(Op.DIAGONAL, "3d-axes", normal(3, 2, 4), offset=-1, axis1=2, axis2=0)
case(Op.DIAGONAL, "3d-last", normal(2, 3, 3), axis1=-2, axis2=-1)
for _k in (0, 1, -2):
    case(Op.DIAG, f"1d-k{_k}", normal(3), k=_k)
    case(Op.DIAG, f"2d-k{_k}", normal(3, 4), k=_k)
_nv = distinct(5)
for _ord in (None, 1, 2, np.inf, -np.inf, 3, 0.5, -2, 0):
    case(Op.NORM, f"vec-ord{_ord}", _nv, ord=_ord)
case(Op.NORM, "vec-keepdims", _nv, keepdims=True)
_nm = normal(3, 4)  # random: row and column sums of a grid can tie
for _ord in (None, "fro", 1, -1, np.inf, -np.inf):
    case(Op.NORM, f"mat-ord{_ord}", _nm, ord=_ord)
for _ord in (None, 1, 2, np.inf):
    case(Op.NORM, f"rows-ord{_ord}", _nm, ord=_ord, axis=1)
case(Op.NORM, "cols-keepdims", _nm, ord=2, axis=0, keepdims=True)
_nb = normal(2, 3, 4)
for _ord in ("fro", 1, np.inf, -1):
    case(Op.NORM, f"batch-ord{_ord}", _nb, ord=_ord, axis=(2, 0))
case(Op.NORM, "batch-keepdims", _nb, ord=1, axis=(1, 2), keepdims=True)
case(Op.NORM, "3d-default", _nb)
case(Op.NORM, "batch-ordNone", _nb, axis=(1, 2))
case(Op.NORM, "mat-keepdims", _nm, keepdims=True)
case(Op.NORM, "rows-ordinf-keepdims", _nm, ord=-np.inf, axis=1, keepdims=True)
for _ord in (2, -2, "nuc"):  # through the SVD (distinct singular values)
    case(Op.NORM, f"mat-ord{_ord}", _nm, ord=_ord)
    case(Op.NORM, f"batch-last-ord{_ord}", _nb, ord=_ord, axis=(-2, -1))
case(Op.NORM, "batch-nuc-keepdims", _nb, ord="nuc", axis=(1, 2), keepdims=True)
case(Op.INV, "2d", wellcond(3))
case(Op.INV, "batched", wellcond(3, 2))
case(Op.SOLVE, "vector-b", wellcond(3), normal(3))
case(Op.SOLVE, "matrix-b", wellcond(3), normal(3, 2))
case(Op.SOLVE, "batched-matrix-b", wellcond(3, 2), normal(3, 2))
case(Op.SOLVE, "batched-vector-b", wellcond(3, 2), normal(3))
case(Op.DET, "2d", wellcond(3))
case(Op.DET, "batched", wellcond(3, 2))
case(Op.SLOGDET, "2d", wellcond(3))
case(Op.SLOGDET, "negative-det", wellcond(3) * np.array([[1.0], [-1.0], [1.0]]))
case(Op.SLOGDET, "batched", wellcond(3, 2))
case(Op.CHOLESKY, "sym", spd(3), prep=sym)
case(Op.CHOLESKY, "sym-4", spd(4), prep=sym)
case(Op.CHOLESKY, "sym-batched", np.stack([spd(3), spd(3)]), prep=sym)
# eigh and svd: distinct eigenvalues / singular values; eigh reads one triangle, so it
# is checked on sym(a) (its gradient is the symmetric one)
case(Op.EIGH, "sym", spd(3), prep=sym)
case(Op.EIGH, "sym-batched", np.stack([spd(3), normal(3, 3)]), prep=sym)
case(Op.EIGVALSH, "sym", normal(4, 4), prep=sym)
case(Op.EIGVALSH, "upper", normal(3, 3), prep=sym, UPLO="U")
# without prep: the gradient of the function NumPy computes (one triangle read)
case(Op.EIGVALSH, "lower-read", spd(3))
case(Op.EIGVALSH, "upper-read", spd(3), UPLO="U")
case(Op.EIGH, "lower-read", spd(3))
case(Op.SVD, "square", normal(3, 3))
case(Op.SVD, "tall", normal(4, 3), full_matrices=False)
case(Op.SVD, "wide", normal(2, 4), full_matrices=False)
case(Op.SVD, "batched", normal(2, 3, 2), full_matrices=False)
case(Op.SVDVALS, "tall", normal(4, 3))
case(Op.SVDVALS, "batched-wide", normal(2, 2, 3))
# linalg family (issue 11): qr of every shape; eig/eigvals of a real, simple spectrum
case(Op.QR, "tall", normal(4, 3))
case(Op.QR, "square", wellcond(3))
case(Op.QR, "wide", normal(3, 5))
case(Op.QR, "wide-complete", normal(2, 4), mode="complete")
case(Op.QR, "batched", normal(2, 4, 3))
_real_spectrum = (lambda n: n @ np.diag([1.0, 2.5, -1.2]) @ np.linalg.inv(n))(wellcond(3))
case(Op.EIG, "real", _real_spectrum)
case(Op.EIG, "scipy", _real_spectrum, scipy=True)
case(Op.EIGVALS, "real", _real_spectrum)
# fft family: the transforms of real pairs and the complex product/quotient of pairs
case(Op.FFT_C2C, "1d", normal(5), normal(5), axes=(0,))
case(Op.FFT_C2C, "2d-inverse-ortho", normal(3, 4), normal(3, 4), axes=(0, 1), norm="ortho",
     inverse=True)
case(Op.FFT_R2C, "odd", normal(5), axes=(0,))
case(Op.FFT_R2C, "2d-forward", normal(3, 4), axes=(0, 1), norm="forward")
case(Op.FFT_C2R, "even", normal(3), normal(3), axes=(0,), n=4)
case(Op.FFT_C2R, "odd-ortho", normal(2, 3), normal(2, 3), axes=(1,), n=5, norm="ortho")
case(Op.CMUL, "pairs", normal(4), normal(4), normal(4), normal(4))
case(Op.CDIV, "pairs", normal(4), normal(4), uniform(1.0, 2.0, 4), uniform(1.0, 2.0, 4))
case(Op.EIGVALS, "batched", np.stack([_real_spectrum, _real_spectrum.T]))
case(Op.LU, "square", wellcond(3))
case(Op.LU, "batched", wellcond(3, 2))
case(Op.MATRIX_EXP, "square", normal(3, 3) * 0.5)
case(Op.MATRIX_EXP, "batched", normal(2, 3, 3) * 0.5)

# structure, shapes and data movement
_s = normal(3, 4)
case(Op.ASTYPE, "to-float32", _s, dtype="float32", eps=1e-2, atol=1e-3, rtol=1e-3)
case(Op.ASTYPE, "from-float32", _s.astype(np.float32), dtype="float64")
case(Op.ASTYPE, "same", _s, dtype="float64")
case(Op.PY_FLOAT, "scalar", np.float64(0.7))
case(Op.PY_FLOAT, "0-d", np.array(-1.3))
case(Op.FULL, "scalar", (2, 3), normal(), argnums=(1,))
case(Op.FULL, "row", (2, 3), normal(3), argnums=(1,))
case(Op.FULL_LIKE, "column", normal(2, 3), normal(2, 1), argnums=(1,))
case(Op.LINSPACE, "scalars", normal(), normal(), num=5)
case(Op.LINSPACE, "arrays", normal(2), normal(2), num=4)
case(Op.LINSPACE, "one", normal(), normal(), num=1)
case(Op.ARANGE, "float", 0.25, 3.0, 0.7, argnums=(0, 2))
case(Op.ASARRAY, "2d", _s)
case(Op.ASARRAY, "0d", normal())
case(Op.RESHAPE, "2d", _s, (4, 3))
case(Op.RESHAPE, "infer", _s, (2, -1))
case(Op.RAVEL, "2d", _s)
case(Op.SQUEEZE, "all", normal(3, 1, 4, 1))
case(Op.SQUEEZE, "axis", normal(3, 1, 4, 1), axis=1)
case(Op.BROADCAST_TO, "row", normal(4), (3, 4))
case(Op.BROADCAST_TO, "col", normal(3, 1), (2, 3, 4))
case(Op.EXPAND_DIMS, "int", _s, axis=1)
case(Op.EXPAND_DIMS, "tuple", _s, axis=(0, -1))
case(Op.SWAPAXES, "3d", _x3, axis1=0, axis2=-1)
case(Op.MOVEAXIS, "int", _x3, source=0, destination=-1)
case(Op.MOVEAXIS, "tuple", _x3, source=(0, 1), destination=(2, 0))
case(Op.FLIP, "all", _s)
case(Op.FLIP, "axis", _x3, axis=1)
case(Op.FLIP, "axes", _x3, axis=(0, 2))
case(Op.TRIU, "k0", _s)
case(Op.TRIU, "k1", _s, k=1)
case(Op.TRIL, "k0", _s)
case(Op.TRIL, "k-1", _s, k=-1)
case(Op.TRANSPOSE, "default", _x3)
case(Op.TRANSPOSE, "axes", _x3, axes=(1, 2, 0))
case(Op.TRANSPOSE, "neg-axes", _x3, axes=(-1, 0, 1))
case(Op.ROLL, "flat", _s, shift=5)
case(Op.ROLL, "axis", _s, shift=-1, axis=1)
case(Op.ROLL, "axes", _s, shift=(1, 2), axis=(0, 1))
case(Op.CONCATENATE, "1d", normal(2), normal(3), normal(1))
case(Op.CONCATENATE, "2d-axis0", normal(2, 3), normal(1, 3))
case(Op.CONCATENATE, "2d-axis-neg", normal(2, 3), normal(2, 1), axis=-1)
case(Op.CONCATENATE, "axis-none", normal(2, 3), normal(4), axis=None)
case(Op.STACK, "1d", normal(3), normal(3))
case(Op.STACK, "2d-axis1", normal(2, 3), normal(2, 3), normal(2, 3), axis=1)
case(Op.STACK, "2d-axis-neg", normal(2, 3), normal(2, 3), axis=-1)
case(Op.HSTACK, "0d-1d", normal(), normal(3))
case(Op.HSTACK, "1d", normal(2), normal(3))
case(Op.HSTACK, "2d", normal(2, 3), normal(2, 1))
case(Op.VSTACK, "1d", normal(3), normal(3))
case(Op.VSTACK, "1d-2d", normal(3), normal(2, 3))
case(Op.VSTACK, "2d", normal(2, 3), normal(1, 3))
case(Op.VSTACK, "3d", normal(2, 3, 2), normal(1, 3, 2))
case(Op.SPLIT, "sections", normal(4, 3), indices_or_sections=2)
case(Op.SPLIT, "indices-axis1", normal(2, 5), indices_or_sections=[1, 3], axis=1)
case(Op.TILE, "int", normal(3), reps=2)
case(Op.TILE, "longer-reps", normal(2, 3), reps=(2, 1, 2))
case(Op.TILE, "shorter-reps", normal(2, 3, 2), reps=(3,))
case(Op.TILE, "same-ndim", normal(2, 3), reps=(2, 3))
case(Op.REPEAT, "flat", normal(2, 3), repeats=2)
case(Op.REPEAT, "axis0", normal(2, 3), repeats=3, axis=0)
case(Op.REPEAT, "axis-neg", normal(2, 3), repeats=2, axis=-1)
case(Op.PAD, "int", _s, pad_width=1)
case(Op.PAD, "pairs", _s, pad_width=((1, 2), (0, 3)))
case(Op.PAD, "before-after", _s, pad_width=(2, 1))
case(Op.PAD, "singleton", _s, pad_width=(2,))
case(Op.PAD, "per-axis", _s, pad_width=((1,), (2,)))
case(Op.PAD, "constant", _s, pad_width=1, constant_values=3.0)
case(Op.SORT, "axis-last", distinct(3, 4))
case(Op.SORT, "axis0", distinct(3, 4), axis=0)
case(Op.SORT, "axis-none", distinct(3, 4), axis=None)
case(Op.TAKE, "flat", _s, ints(0, 5, 5, 11, -1))
case(Op.TAKE, "flat-2d-indices", _s, ints(0, 5, 5, 11).reshape(2, 2))
case(Op.TAKE, "axis1", _s, ints(3, 0, 3), axis=1)
case(Op.TAKE, "axis-neg2", _x3, ints(1, 1, 0), axis=-2)
case(Op.TAKE_ALONG_AXIS, "axis1", _s, ints(0, 3, 3, 1, 2, 2, 0, 0, 1).reshape(3, 3), axis=1)
case(Op.TAKE_ALONG_AXIS, "axis0", _s, ints(2, 2, 0, 1).reshape(1, 4), axis=0)
case(Op.TAKE_ALONG_AXIS, "argsort", _s, np.argsort(_s, axis=-1), axis=-1)
case(Op.TAKE_ALONG_AXIS, "axis-none", _s, ints(1, 1, 7), axis=None)
case(Op.TAKE_ALONG_AXIS, "bcast-indices", _s, ints(2, 0).reshape(2, 1), axis=0)
case(Op.TAKE_ALONG_AXIS, "bcast-x", normal(3, 1), ints(2, 1, 0, 0, 1, 1).reshape(2, 3), axis=0)
case(Op.TAKE, "python-int", _s, 5)
case(Op.TAKE, "numpy-int-axis", _s, np.intp(-1), axis=1)

_g = normal(4, 5)
_ALL = ("slice", None, None, None)
case(Op.GETITEM, "slices", _g, index=(("slice", 1, None, None), ("slice", None, None, 2)))
case(Op.GETITEM, "neg-steps", _g, index=(("slice", None, None, -1), ("slice", 4, 0, -2)))
case(Op.GETITEM, "none-ellipsis", _g, index=(None, Ellipsis, ("slice", 1, 3, None)))
case(Op.GETITEM, "int", _g, index=(2,))
case(Op.GETITEM, "int-neg-col", _g, index=(_ALL, -1))
case(Op.GETITEM, "array-repeated", _g, ints(0, 2, 0, 3), index=(("in", 0),))
case(Op.GETITEM, "slice-array", _g, ints(4, 1, 1), index=(_ALL, ("in", 0)))
case(Op.GETITEM, "two-arrays", _g, ints(0, 1, 0), ints(2, 2, 2), index=(("in", 0), ("in", 1)))
case(Op.GETITEM, "bool-mask", _g, _g > 0.2, index=(("in", 0),))
case(
    Op.GETITEM,
    "bool-rows",
    _g,
    np.array([True, False, True, True]),
    index=(("in", 0), ("slice", 1, None, None)),
)
case(Op.GETITEM, "list", _g, index=(("list", (0, 0, 3)),))
case(Op.SCATTER_ADD, "array", (4, 5), normal(3, 5), ints(1, 1, 3), index=(("in", 0),))
case(Op.SCATTER_ADD, "slices", (4, 5), normal(2, 5), index=(("slice", None, None, 2),))
case(
    Op.SCATTER_ADD,
    "bool",
    (4,),
    normal(2),
    np.array([True, False, False, True]),
    index=(("in", 0),),
)
case(Op.INDEX_ADD, "repeated", normal(4, 5), normal(3, 5), ints(1, 1, 3), index=(("in", 0),))
case(Op.INDEX_ADD, "basic", normal(4, 5), normal(5), index=(2,))
_w = normal(4, 5)
_rows = np.array([True, False, True, True])
case(Op.SETITEM, "int", _w, normal(5), index=(2,))
case(Op.SETITEM, "slice", _w, normal(2, 5), index=(("slice", 1, 3, None),))
case(Op.SETITEM, "column", _w, normal(4), index=(_ALL, 3))
case(Op.SETITEM, "column-scalar", _w, 0.7, index=(_ALL, -1))
case(Op.SETITEM, "bcast-column", _w, normal(4, 1), index=(_ALL, ("slice", 1, 4, 2)))
case(Op.SETITEM, "bcast-lead-ones", _w, normal(1, 1, 5), index=(-1,))
case(Op.SETITEM, "ellipsis-bcast", normal(2, 3, 4), normal(3), index=(Ellipsis, 1))
case(Op.SETITEM, "mask-scalar", _g, 0.0, _g > 0.2, index=(("in", 0),))
case(Op.SETITEM, "mask-array", _g, normal(int(np.sum(_g > 0.2))), _g > 0.2, index=(("in", 0),))
case(Op.SETITEM, "mask-rows-bcast", _w, normal(5), _rows, index=(("in", 0),))
case(Op.SETITEM, "mask-rows-0d", _w, normal(), _rows, index=(("in", 0), 1))
case(Op.SETITEM, "array", _w, normal(3, 5), ints(3, 0, 2), index=(("in", 0),))
case(Op.SETITEM, "array-0d", _w, normal(5), np.intp(2), index=(("in", 0),))
# repeated integer indices: NumPy keeps the last write, so only it gets a gradient
case(Op.SETITEM, "array-repeated", _w, normal(3, 5), ints(1, 1, 3), index=(("in", 0),))
case(Op.SETITEM, "array-repeated-bcast", _w, normal(5), ints(1, 3, 1), index=(("in", 0),))
case(Op.SETITEM, "array-neg-alias", _w, normal(2, 5), ints(3, -1), index=(("in", 0),))
case(Op.SETITEM, "two-arrays", _w, normal(3), ints(0, 1, 0), ints(2, 2, 2),
     index=(("in", 0), ("in", 1)))
case(Op.SETITEM, "list", _w, normal(2, 5), index=(("list", (0, 2)),))
case(Op.SETITEM, "list-repeated", _w, normal(3, 5), index=(("list", (0, 2, 0)),))
case(Op.SETITEM, "list-neg-alias", _w, normal(2), index=(_ALL, ("list", (4, -1))))
def _cube(x: Any) -> Any:
    """A user function with a registered VJP (the ``call`` op)."""
    return x**3


CUSTOM_VJPS[_cube] = lambda g, out, x: (g * 3.0 * x * x,)
case(Op.CALL, "registered", normal(3), fn=_cube)

case(Op.UNBROADCAST, "row", normal(3, 4), (1, 4))
case(Op.UNBROADCAST, "lead", normal(2, 3, 4), (3, 1))
case(Op.UNBROADCAST, "same", normal(3, 4), (3, 4))


# --- running a rule -------------------------------------------------------------------


def _is_float(a: Any) -> bool:
    if isinstance(a, float):
        return True
    return isinstance(a, (np.ndarray, np.generic)) and np.issubdtype(a.dtype, np.floating)


def apply(c: Case, *inputs: Any) -> Any:
    """The op (after ``prep``) on concrete inputs."""
    if c.prep is not None:
        inputs = (c.prep(inputs[0]), *inputs[1:])
    return run(c.op, np, tuple(inputs), c.full_params)


def raw_rule(c: Case, inputs: tuple, g: Any) -> tuple:
    """The rule's own result at ``inputs`` (after ``prep``), not yet unbroadcast."""
    if c.prep is not None:
        inputs = (c.prep(inputs[0]), *inputs[1:])
    out = run(c.op, np, inputs, c.full_params)
    grads = RULES[c.op](OPS, g, out, *inputs, **c.full_params)
    assert isinstance(grads, tuple) and len(grads) == len(inputs), grads
    return grads


def rule_vjp(c: Case, inputs: tuple, g: Any) -> list[Any]:
    """The rule's gradients at ``inputs``, each summed down to its input's shape."""
    result = [
        None if gr is None or isinstance(gr, NotDifferentiable)
        else unbroadcast(np.asarray(gr), np.shape(x))
        for gr, x in zip(raw_rule(c, inputs, g), inputs, strict=True)
    ]
    if c.prep is not None and result[0] is not None:
        result[0] = c.prep(result[0])
    return result


def cotangent(out: Any, seed: int = 7) -> Any:
    rng = np.random.default_rng(seed)
    if isinstance(out, (tuple, list)):
        return tuple(cotangent(o, seed + 1 + k) for k, o in enumerate(out))
    arr = np.asarray(out)
    return rng.standard_normal(arr.shape).astype(arr.dtype)


def inner(g: Any, out: Any) -> float:
    gs = g if isinstance(g, (tuple, list)) else (g,)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return float(
        sum(
            np.sum(np.asarray(a, np.float64) * np.asarray(b, np.float64))
            for a, b in zip(gs, outs, strict=True)
        )
    )


# --- the tests --------------------------------------------------------------------------


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_rule(c: Case) -> None:
    def f(*a: Any) -> Any:
        return apply(c, *a)

    tols = {"eps": c.eps, "atol": c.atol, "rtol": c.rtol, "argnums": c.argnums}
    # integer and boolean inputs (indices, masks, shapes) get None; float inputs a gradient
    # (but those left out of argnums: full_like's template, arange's stop, read as None)
    g = cotangent(apply(c, *c.inputs))
    grads = rule_vjp(c, c.inputs, g)
    for i, (x, gr) in enumerate(zip(c.inputs, grads, strict=True)):
        if c.argnums is None or i in c.argnums:
            assert (gr is None) == (not _is_float(x)), f"input {i}: gradient {gr!r}"
    # the dot-product test on random directions
    check_vjp(f, lambda g: rule_vjp(c, c.inputs, g), c.inputs, **tols)
    # every element of the VJP for one fixed cotangent
    check_grads(lambda *a: inner(g, f(*a)), c.inputs, lambda *a: rule_vjp(c, a, g), **tols)


#: Ops whose rules may return a gradient of the broadcast (batch) shape rather than the
#: input's shape; the adjoint pass and the eager engine must sum those down.
BROADCASTING_RULES = ELEMENTWISE | {Op.MATMUL, Op.DOT, Op.INNER, Op.SOLVE, Op.EINSUM}


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_rule_gradient_shapes(c: Case) -> None:
    g = cotangent(apply(c, *c.inputs))
    for i, (x, gr) in enumerate(zip(c.inputs, raw_rule(c, c.inputs, g), strict=True)):
        if gr is not None and c.op not in BROADCASTING_RULES:
            assert np.shape(gr) == np.shape(x), f"input {i}: {np.shape(gr)} != {np.shape(x)}"


def test_ids_unique() -> None:
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))


def test_every_op_has_exactly_one_kind() -> None:
    for op in Op:
        kinds = [op in RULES, op in NONDIFFERENTIABLE, op in STRUCTURAL]
        assert sum(kinds) == 1, f"{op}: in RULES/NONDIFFERENTIABLE/STRUCTURAL = {kinds}"


#: ops whose rule only explains that it cannot go on (tested in
#: test_unsupported_uses_raise_rule_error): a registered VJP differentiated again; a
#: passed-through call whose result is active (tests/test_effects.py)
RAISING = {Op.CALL_VJP, Op.OPAQUE_CALL,
           Op.RIEMANN_ZETA}  # special family: tests/test_rules_special_more.py
RAISING.add(Op.NO_DERIVATIVE)  # stats: its rule is a located error (test_rules_stats.py)


#: list rules take lists, which this table cannot hold: the "list" category of the control
#: flow corpus (tests/corpus/control.py) checks them through whole functions
_LIST_OPS = {op for op in Op if op.value.startswith("list")}


def test_every_rule_has_a_case() -> None:
    missing = set(RULES) - {c.op for c in CASES} - RAISING - _LIST_OPS
    assert not missing, f"rules without a test case: {sorted(o.value for o in missing)}"


_REDUCTIONS = {
    Op.SUM,
    Op.MEAN,
    Op.PROD,
    Op.MAX,
    Op.MIN,
    Op.VAR,
    Op.STD,
    Op.CUMSUM,
    Op.CUMPROD,
    Op.NORM,
    Op.SOFTMAX,
    Op.LOG_SOFTMAX,
    Op.LOGSUMEXP,
}
_F32_CASES = [
    c for c in CASES if (OP_INFO[c.op].elementwise or c.op in _REDUCTIONS) and c.op is not Op.ASTYPE
]


@pytest.mark.parametrize("c", _F32_CASES, ids=[c.id for c in _F32_CASES])
def test_float32_stays_float32(c: Case) -> None:
    inputs = tuple(
        x.astype(np.float32) if isinstance(x, np.ndarray) and _is_float(x) else x for x in c.inputs
    )
    out = apply(c, *inputs)
    g = cotangent(out)
    grads = rule_vjp(c, inputs, g)
    for i, (x, gr) in enumerate(zip(inputs, grads, strict=True)):
        if isinstance(x, np.ndarray) and _is_float(x) and (c.argnums is None or i in c.argnums):
            assert gr.dtype == np.float32, f"input {i}: gradient is {gr.dtype}"
    check_vjp(
        lambda *a: apply(c, *a),
        lambda g: rule_vjp(c, inputs, g),
        inputs,
        eps=max(c.eps, 1e-4),
        argnums=c.argnums,
    )


# --- explicit values where central differences are not the whole story ------------------


@pytest.mark.parametrize("op", [Op.MAXIMUM, Op.MINIMUM, Op.FMAX, Op.FMIN])
def test_binary_ties_split_evenly(op: Op) -> None:
    x = np.array([1.0, -2.0, 3.0])
    g = np.array([2.0, 4.0, -6.0])
    gx, gy = RULES[op](OPS, g, run(op, np, (x, x), {}), x, x)
    np.testing.assert_array_equal(gx, 0.5 * g)
    np.testing.assert_array_equal(gy, 0.5 * g)


@pytest.mark.parametrize("op", [Op.MAX, Op.MIN])
def test_reduction_ties_split_equally(op: Op) -> None:
    x = np.array([[2.0, 2.0, 2.0, 1.0], [-1.0, -1.0, -3.0, -5.0]]) * (1 if op is Op.MAX else -1)
    params = {"axis": 1, "keepdims": False}
    (gx,) = RULES[op](OPS, np.array([3.0, 1.0]), run(op, np, (x,), params), x, **params)
    np.testing.assert_allclose(gx, [[1.0, 1.0, 1.0, 0.0], [0.5, 0.5, 0.0, 0.0]])
    (gall,) = RULES[op](OPS, np.float64(1.0), run(op, np, (x,), {"axis": None}), x)
    hits = x == (x.max() if op is Op.MAX else x.min())
    np.testing.assert_allclose(gall, hits / hits.sum())


def test_prod_with_zero_is_exact() -> None:
    x = np.array([[0.5, 0.0, 2.0], [0.0, 3.0, 0.0], [1.5, -2.0, 4.0]])
    params = {"axis": 1, "keepdims": False}
    (gx,) = RULES[Op.PROD](OPS, np.ones(3), run(Op.PROD, np, (x,), params), x, **params)
    assert not np.isnan(gx).any()
    np.testing.assert_array_equal(gx, [[0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [-8.0, 6.0, -3.0]])


def test_vector_norm_ord0_has_zero_gradient() -> None:
    x = np.array([0.5, 0.0, -2.0])
    (gx,) = RULES[Op.NORM](OPS, np.float64(1.0), np.float64(2.0), x, ord=0)
    np.testing.assert_array_equal(gx, np.zeros(3))


@pytest.mark.parametrize(
    "op, inputs, params",
    [
        (Op.DOT, (normal(2, 3, 4), normal(4, 2)), {}),
        (Op.NORM, (normal(3, 2, 3),), {"ord": 2, "axis": (0, 2)}),
        (Op.NORM, (normal(3, 2, 3),), {"ord": "nuc", "axis": (2, 0)}),
        (Op.EINSUM, (normal(3, 3),), {"subscripts": "ii->i"}),
        (Op.REPEAT, (normal(3),), {"repeats": ints(1, 2, 3), "axis": None}),
        (Op.CALL_VJP, (normal(3), normal(3), normal(3)), {"fn": CUSTOM_VJPS[_cube]}),
    ],
    ids=["dot-3d", "norm-spectral", "norm-nuclear", "einsum-repeated-index", "repeat-array",
         "call-vjp-again"],
)
def test_unsupported_uses_raise_rule_error(op: Op, inputs: tuple, params: dict) -> None:
    out = run(op, np, inputs, {**OP_INFO[op].param_defaults, **params})
    full = {**OP_INFO[op].param_defaults, **params}
    with pytest.raises(RuleError, match=r"\S"):
        RULES[op](OPS, cotangent(out), out, *inputs, **full)


@pytest.mark.parametrize(
    "op, inputs",
    [
        (Op.FLOOR, (normal(3, 4) * 3,)),
        (Op.CEIL, (normal(3, 4) * 3,)),
        (Op.ROUND, (normal(3, 4) * 3,)),
        (Op.RINT, (normal(3, 4) * 3,)),
        (Op.TRUNC, (normal(3, 4) * 3,)),
        (Op.SIGN, (away(3, 4),)),
        (Op.FLOORDIV, (normal(3, 4) * 3, positive(3, 4))),
    ],
    ids=lambda v: v.value if isinstance(v, Op) else None,
)
def test_nondifferentiable_ops_are_flat(op: Op, inputs: tuple) -> None:
    params = OP_INFO[op].param_defaults

    def f(*a: Any) -> Any:
        return run(op, np, a, params)

    g = cotangent(f(*inputs))
    for num in numerical_vjp(f, inputs, g):
        np.testing.assert_array_equal(num, 0.0)
    with pytest.raises(RuleError, match="no gradient by design"):
        vjp_of(op)
