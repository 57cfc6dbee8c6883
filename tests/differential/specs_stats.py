"""Specs of the scipy.stats distribution methods (``decompositions/select_stats.py``):
each distribution x method, differentiated in the point and in every parameter that has a
derivative there, on a domain inside the support.

The point is written through ``loc`` and ``scale`` where the support is bounded
(``ss.gamma.logpdf(a0 + a2, a1, a2, a3)``: the standardised point is ``a0 / a3 > 0``), so
that moving ``loc`` or ``scale`` keeps it inside.  Parameters without a derivative
(``t``'s ``df``, ``gamma``'s ``a`` in the distribution functions, ``binom``'s ``n``, the
points of discrete distributions) are constants here; their located errors are tested in
``tests/test_rules_stats.py``.  JAX's ``jax.scipy.stats`` is the extra oracle where it has
the function (``None`` where it does not: ``lognorm``, ``t.cdf`` …).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from st_autodiff.ir.ops import Op

from .specs import Shapes, Spec

_P1: tuple[Shapes, ...] = (((3,), (), ()), ((2, 3), (3,), (2, 1)), (None, None, None))
_P2: tuple[Shapes, ...] = (((3,), (), (), ()), ((2, 3), (3,), (), (2, 1)),
                           (None, None, None, None))
_P3: tuple[Shapes, ...] = (((3,), (), (), (), ()), ((2, 3), (3,), (1, 3), (), ()),
                           (None, None, None, None, None))
_DISCRETE_1: tuple[Shapes, ...] = (((3,),), ((),), (None,), ((2, 3),))
_DISCRETE_2: tuple[Shapes, ...] = (((3,), ()), ((), (3,)), (None, None))
_K = "np.array([0, 2, 5])"


def _jax(dist: str, method: str, template: str, f64: bool = True) -> Callable[..., Any]:
    """``jax.scipy.stats.<dist>.<method>`` called as ``template`` (over a0, a1, ...)."""

    def call(jnp: Any, *a: Any) -> Any:
        fn = getattr(getattr(__import__("jax.scipy.stats").scipy.stats, dist), method)
        env = {"jnp": jnp, "f": fn, **{f"a{i}": v for i, v in enumerate(a)}}
        out = eval(template.replace("np.", "jnp."), env)  # noqa: S307 (a fixed template)
        # SciPy's univariate methods give float64 for float32 inputs too
        return out.astype(jnp.float64) if f64 else out

    return call


_JAX_HAS = {
    "norm": ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"),
    "t": ("logpdf", "pdf"),
    "gamma": ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"),
    "beta": ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"),
    "chi2": ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"),
    "expon": ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"),
    "laplace": ("logpdf", "pdf", "cdf"),
    "logistic": ("logpdf", "pdf", "cdf", "sf", "ppf", "isf"),
    "cauchy": ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"),
    "uniform": ("logpdf", "pdf", "cdf", "ppf"),
    "poisson": ("logpmf", "pmf", "cdf"),
    "binom": ("logpmf", "pmf"),
    "nbinom": ("logpmf", "pmf"),
    "dirichlet": ("logpdf", "pdf"),
    "multivariate_normal": ("logpdf", "pdf"),
}


def _spec(dist: str, method: str, args: str, shapes: tuple[Shapes, ...],
          domain: tuple[str, ...], ops: tuple[Op, ...] = (Op.WHERE,), tag: str = "",
          **kw: Any) -> Spec:
    """``ss.<dist>.<method>(<args>)`` as a spec named ``stats-<dist>.<method><tag>``."""
    jax = _jax(dist, method, f"f({args})", dist != "dirichlet") if method in _JAX_HAS.get(
        dist, ()) else None
    expr = f"import scipy.stats as ss\nreturn ss.{dist}.{method}({args})"
    return Spec(f"stats-{dist}.{method}{tag}", expr, ops, shapes, domain, None,
                jax=kw.pop("jax", jax), **kw)


_DENSITY = ("logpdf", "pdf")
_DISTRIBUTION = ("cdf", "logcdf", "sf", "logsf")
_ALL = _DENSITY + _DISTRIBUTION


def _continuous() -> list[Spec]:
    out: list[Spec] = []
    real = ("real", "real", "positive")
    for dist in ("norm", "laplace", "logistic", "cauchy"):
        out += [_spec(dist, m, "a0, a1, a2", _P1, real) for m in _ALL]
    for dist in ("norm", "laplace", "logistic"):
        out += [_spec(dist, m, "a0, a1, a2", _P1, ("prob", "real", "positive"))
                for m in ("ppf", "isf")]
    # bounded below at loc: the point is loc + a0 (a0 > 0)
    out += [_spec("expon", m, "a0 + a1, a1, a2", _P1, ("positive", "real", "positive"))
            for m in _ALL]
    out += [_spec("expon", m, "a0, a1, a2", _P1, ("prob", "real", "positive"))
            for m in ("ppf", "isf")]
    for dist in ("gamma", "chi2"):  # shape: differentiable in the density only
        out += [_spec(dist, m, "a0 + a2, a1, a2, a3", _P2,
                      ("positive", "positive", "real", "positive")) for m in _DENSITY]
        out += [_spec(dist, m, "a0 + a1, 2.5, a1, a2", _P1, ("positive", "real", "positive"))
                for m in _DISTRIBUTION]
    out += [_spec("lognorm", m, "a0 + a2, a1, a2, a3", _P2,
                  ("positive", "positive", "real", "positive")) for m in _ALL]
    out += [_spec("lognorm", m, "a0, a1, a2, a3", _P2, ("prob", "positive", "real", "positive"))
            for m in ("ppf", "isf")]
    out += [_spec("t", m, "a0, a1, a2, a3", _P2, ("real", "positive", "real", "positive"))
            for m in _DENSITY]
    out += [_spec("t", m, "a0, 3.5, a1, a2", _P1, real, ops=(Op.CALL,)) for m in _DISTRIBUTION]
    prob = ("prob", "real", "positive")
    out += [_spec("t", m, "a0, 3.5, a1, a2", _P1, prob, ops=(Op.CALL,)) for m in ("ppf", "isf")]
    out += [_spec(d, m, "a0, 2.5, a1, a2", _P1, prob, ops=(Op.CALL,))
            for d in ("gamma", "chi2") for m in ("ppf", "isf")]
    out += [_spec("beta", m, "a0, 2.5, 1.7, a1, a2", _P1, prob, ops=(Op.CALL,))
            for m in ("ppf", "isf")]
    out += [_spec("cauchy", m, "a0, a1, a2", _P1, prob, ops=(Op.CALL,)) for m in ("ppf", "isf")]
    # bounded on both sides: the point is loc + scale * a0 (0 < a0 < 1)
    out += [_spec("beta", m, "a3 + a4 * a0, a1, a2, a3, a4", _P3,
                  ("prob", "positive", "positive", "real", "positive")) for m in _DENSITY]
    out += [_spec("beta", m, "a1 + a2 * a0, 2.5, 1.7, a1, a2", _P1,
                  ("prob", "real", "positive"), ops=(Op.CALL,)) for m in _DISTRIBUTION]
    out += [_spec("uniform", m, "a1 + a2 * a0, a1, a2", _P1, ("prob", "real", "positive"))
            for m in _DISTRIBUTION + ("pdf",)]
    out += [_spec("uniform", m, "a0, a1, a2", _P1, ("prob", "real", "positive"))
            for m in ("ppf", "isf")]
    return out


def _discrete() -> list[Spec]:
    nd = (Op.NO_DERIVATIVE,)
    out = [_spec("poisson", m, f"{_K}, a0", _DISCRETE_1, ("positive",), ops=nd)
           for m in ("pmf", "logpmf") + _DISTRIBUTION]
    out += [_spec("binom", m, f"{_K}, 7, a0", _DISCRETE_1, ("prob",), ops=nd)
            for m in ("pmf", "logpmf") + _DISTRIBUTION]
    out += [_spec("nbinom", m, f"{_K}, a0, a1", _DISCRETE_2, ("positive", "prob"), ops=nd)
            for m in ("pmf", "logpmf")]
    out += [_spec("nbinom", m, f"{_K}, 3.5, a0", _DISCRETE_1, ("prob",), ops=nd)
            for m in _DISTRIBUTION]
    return out


def _multivariate() -> list[Spec]:
    # the compiler reads SciPy's own source for dirichlet
    out = [_spec("dirichlet", m, "a0 / np.sum(a0), a1", (((3,), (3,)),),
                 ("positive", "positive"), ops=(Op.SUM,)) for m in _DENSITY]
    out += [_spec("multivariate_normal", m, "a0, a1, a2 @ a2.T + np.eye(3)",
                  (((3,), (3,), (3, 3)), ((2, 3), (3,), (3, 3))), ("real", "real", "real"),
                  ops=(Op.CHOLESKY, Op.SOLVE)) for m in _DENSITY]
    out += [_spec("multivariate_normal", "logpdf", "a0, cov=a1", (((4,), ()), ((2, 1), ())),
                  ("real", "positive"), ops=(Op.CHOLESKY,), tag="-scalar-cov",
                  jax=None)]
    return out


def _frozen() -> list[Spec]:
    return [
        Spec("stats-frozen-norm.logpdf", "import scipy.stats as ss\n"
             "return ss.norm(a1, scale=a2).logpdf(a0)", (Op.WHERE,), _P1,
             ("real", "real", "positive"), None,
             jax=_jax("norm", "logpdf", "f(a0, a1, a2)")),
        Spec("stats-frozen-gamma.cdf", "import scipy.stats as ss\n"
             "return ss.gamma(2.5, loc=a1, scale=a2).cdf(a0 + a1)", (Op.WHERE,), _P1,
             ("positive", "real", "positive"), None,
             jax=_jax("gamma", "cdf", "f(a0 + a1, 2.5, a1, a2)")),
        Spec("stats-frozen-beta.logpdf", "import scipy.stats as ss\n"
             "return ss.beta(a1, b=a2).logpdf(a0)", (Op.WHERE,), (((3,), (), ()),),
             ("prob", "positive", "positive"), None,
             jax=_jax("beta", "logpdf", "f(a0, a1, a2)")),
        Spec("stats-frozen-nbinom.pmf", "import scipy.stats as ss\n"
             f"return ss.nbinom(a0, p=a1).pmf({_K})", (Op.NO_DERIVATIVE,), _DISCRETE_2,
             ("positive", "prob"), None, jax=_jax("nbinom", "pmf", f"f({_K}, a0, a1)")),
        Spec("stats-frozen-multivariate_normal.logpdf", "import scipy.stats as ss\n"
             "return ss.multivariate_normal(a1, a2 @ a2.T + np.eye(3)).logpdf(a0)",
             (Op.CHOLESKY,), (((2, 3), (3,), (3, 3)),), ("real", "real", "real"), None,
             jax=_jax("multivariate_normal", "logpdf", "f(a0, a1, a2 @ a2.T + np.eye(3))")),
        Spec("stats-keywords-t.logpdf", "import scipy.stats as ss\n"
             "return ss.t.logpdf(x=a0, df=a1, scale=a2)", (Op.WHERE,), _P1,
             ("real", "positive", "positive"), None,
             jax=_jax("t", "logpdf", "f(a0, a1, scale=a2)")),
    ]


SPECS_STATS: tuple[Spec, ...] = (*_continuous(), *_discrete(), *_multivariate(), *_frozen())
