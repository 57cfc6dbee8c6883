"""Selectors of scipy.stats distribution methods: ``scipy.stats.norm.logpdf(x, loc,
scale)``, ``scipy.stats.t.cdf(x, df=3.0)``, ``scipy.stats.binom.pmf(k, n, p)`` … and, as
frozen distributions call them, ``scipy.stats.gamma(a, scale=s).logpdf(x)``.

``lookup(fn)`` recognises a bound method of one of SciPy's distribution objects whose
public method is ``rv_continuous``'s/``rv_discrete``'s own (a subclass that overrides
it, or a distribution built with other support bounds, is left to the compiler, which
reads SciPy's source).  The selector binds the arguments as SciPy's ``_parse_args`` does
(shape parameters by position or name, then ``loc`` and ``scale``) and returns the
implementation of ``stats_impl`` (continuous), ``stats_discrete_impl`` or
``stats_multivariate_impl`` (``multivariate_normal.logpdf``/``pdf`` and the frozen
``multivariate_normal(mean, cov)``).  The ``ppf`` of discrete distributions is left to the
compiler, which reads SciPy's source.

Non-differentiable arguments, named for the located error of ``rt.no_derivative``:
``binom``'s ``n`` and every discrete point ``k`` and ``loc`` (integers); ``df`` of ``t``,
``a`` of ``gamma``, ``df`` of ``chi2`` and ``a``, ``b`` of ``beta`` in their ``cdf``,
``sf``, ``logcdf``, ``logsf``, ``ppf`` and ``isf`` (no closed form); ``nbinom``'s ``n`` in
its distribution functions too.
SciPy is never imported here: a program that calls these methods has imported it.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from . import stats_discrete_impl as discrete
from . import stats_impl as impl
from .common import Node, Selection, Unsupported, shape_of
from .stats_multivariate_impl import frozen_mvn, mvn_logpdf

#: continuous distributions: the class name of SciPy's object -> (our name, shapes)
CONTINUOUS: dict[str, tuple[str, tuple[str, ...]]] = {
    "norm_gen": ("norm", ()), "t_gen": ("t", ("df",)), "gamma_gen": ("gamma", ("a",)),
    "beta_gen": ("beta", ("a", "b")), "chi2_gen": ("chi2", ("df",)),
    "expon_gen": ("expon", ()), "laplace_gen": ("laplace", ()),
    "logistic_gen": ("logistic", ()), "cauchy_gen": ("cauchy", ()),
    "lognorm_gen": ("lognorm", ("s",)), "uniform_gen": ("uniform", ()),
}
DISCRETE: dict[str, tuple[str, tuple[str, ...]]] = {
    "poisson_gen": ("poisson", ("mu",)), "binom_gen": ("binom", ("n", "p")),
    "nbinom_gen": ("nbinom", ("n", "p")),
}
#: the special function of the distribution functions that have a shape parameter
_KERNEL = {"t": "stdtr", "gamma": "gammainc", "beta": "betainc", "chi2": "gammainc"}
_DENSITY = ("logpdf", "pdf")
_DISTRIBUTION = ("cdf", "logcdf", "sf", "logsf")
#: every continuous distribution has its ppf/isf here (in the shape parameters of t,
#: gamma, beta and chi2 they have no closed-form derivative)
_QUANTILE = tuple(name for name, _ in CONTINUOUS.values())
_DISCRETE = ("pmf", "logpmf", "cdf", "logcdf", "sf", "logsf")


def _bind(name: str, method: str, point: str, shapes: tuple[str, ...], names: tuple[str, ...],
          defaults: dict[str, Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
    """The point, then each of ``names`` (shapes, loc, scale), as SciPy binds them."""
    kwargs = dict(kwargs)
    if args:
        x, args = args[0], args[1:]
    elif point in kwargs:
        x = kwargs.pop(point)
    else:
        raise Unsupported(f"{method}() missing 1 required positional argument: '{point}'")
    if len(args) > len(names):
        raise Unsupported(f"{method}() takes at most {len(names) + 1} arguments "
                          f"({len(args) + 1} given)")
    bound = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names:
            raise Unsupported(f"{method}() got an unexpected keyword argument '{key}'")
        if key in bound:
            raise Unsupported(f"{method}() got multiple values for argument '{key}'")
        bound[key] = value
    missing = [s for s in shapes if s not in bound]
    if missing:
        raise Unsupported(f"{method}() missing {len(missing)} required positional "
                          f"argument{'s' if len(missing) > 1 else ''}: "
                          + ", ".join(repr(s) for s in missing))
    return [x] + [bound.get(n, defaults.get(n)) for n in names]


def _continuous(name: str, shapes: tuple[str, ...], method: str
                ) -> Callable[..., Selection]:
    names = (*shapes, "loc", "scale")
    point = "q" if method in ("ppf", "isf") else "x"

    def select(*args: Any, **kwargs: Any) -> Selection:
        x, *rest = _bind(name, method, point, shapes, names, {"loc": 0, "scale": 1},
                         args, kwargs)
        p, loc, scale = tuple(rest[:-2]), rest[-2], rest[-1]
        if method in _DENSITY:
            return impl.density, (name, method == "logpdf", x, loc, scale, *p)
        if method in _DISTRIBUTION:
            what = tuple(f"scipy.stats.{name}.{method} has no derivative in {s} (its "
                         f"function, {_KERNEL.get(name, '')}, has none in closed form)"
                         for s in shapes)
            return impl.distribution, (name, method, x, loc, scale, what, *p)
        what = tuple(f"scipy.stats.{name}.{method} has no derivative in {s} (its "
                     f"function, the inverse of {_KERNEL.get(name, '')}, has none in closed "
                     "form)" for s in shapes)
        return impl.quantile, (name, method == "isf", x, loc, scale, what, *p)

    return select


def _discrete(name: str, shapes: tuple[str, ...], method: str) -> Callable[..., Selection]:
    names = (*shapes, "loc")

    def select(*args: Any, **kwargs: Any) -> Selection:
        k, *rest = _bind(name, method, "k", shapes, names, {"loc": 0}, args, kwargs)
        p, loc = tuple(rest[:-1]), rest[-1]
        what = (f"scipy.stats.{name}.{method} has no derivative in k (an integer point)",
                f"scipy.stats.{name}.{method} has no derivative in loc (an integer shift)",
                f"scipy.stats.{name}.{method} has no derivative in n ("
                + ("an integer count)" if name == "binom" else
                   "betainc has no closed-form derivative in its parameters)"))
        return discrete.method, (name, method, k, loc, what, *p)

    return select


def _mvn_parameters(mean: Any, cov: Any, allow_singular: Any) -> tuple[Any, Any, int, int]:
    """``mean``, ``cov``, the kind of ``cov`` (0-d, 1-d, 2-d) and the dimension, as SciPy's
    ``_process_parameters`` finds them (shapes only; values are checked at run time)."""
    if allow_singular is not False:
        raise Unsupported("allow_singular=True is not supported (only a positive definite "
                          "covariance is)")
    if not isinstance(cov, (Node, int, float, list, tuple, np.ndarray)):
        raise Unsupported("a Covariance object is not supported: pass the matrix")
    cshape = shape_of(cov, "cov")
    if mean is not None:
        mshape = shape_of(mean, "mean")
        dim = mshape[0] if len(mshape) == 1 else 1
    else:
        dim = cshape[0] if cshape else 1
        mean = np.zeros(dim)
    if len(cshape) > 2 or len(cshape) == 2 and cshape != (dim, dim) or \
            len(cshape) == 1 and cshape[0] != dim:
        raise Unsupported(f"cov of shape {cshape} does not match dimension {dim}")
    return mean, cov, len(cshape), dim


def _mvn_frozen(mean: Any = None, cov: Any = 1, allow_singular: Any = False, seed: Any = None
                ) -> Selection:
    """``multivariate_normal(mean, cov)``: a frozen distribution with logpdf and pdf."""
    mean, cov, cov_kind, dim = _mvn_parameters(mean, cov, allow_singular)
    return frozen_mvn, (mean, cov, cov_kind, dim)


def _mvn(method: str) -> Callable[..., Selection]:
    """``multivariate_normal.logpdf/pdf(x, mean=None, cov=1, allow_singular=False)``."""

    def select(x: Any, mean: Any = None, cov: Any = 1, allow_singular: Any = False
               ) -> Selection:
        mean, cov, cov_kind, dim = _mvn_parameters(mean, cov, allow_singular)
        xnd = len(shape_of(x, "x"))
        x_kind = 0 if xnd == 0 else (2 if dim == 1 else 1) if xnd == 1 else 3
        return mvn_logpdf, (x, mean, cov, cov_kind, dim, x_kind, method == "logpdf")

    return select


def _table() -> dict[tuple[str, str], Callable[..., Selection]]:
    table: dict[tuple[str, str], Callable[..., Selection]] = {}
    for cls, (name, shapes) in CONTINUOUS.items():
        methods = _DENSITY + _DISTRIBUTION + (("ppf", "isf") if name in _QUANTILE else ())
        for m in methods:
            table[cls, m] = _continuous(name, shapes, m)
    for cls, (name, shapes) in DISCRETE.items():
        for m in _DISCRETE:
            table[cls, m] = _discrete(name, shapes, m)
    for m in ("logpdf", "pdf"):
        table["multivariate_normal_gen", m] = _mvn(m)
    return table


_TABLE = _table()
_STANDARD: dict[str, Any] = {}


def _standard(obj: Any) -> bool:
    """Whether ``obj`` has the support and fill value of SciPy's own instance of its
    class (``scipy.stats.norm``), which the implementations assume."""
    cls = type(obj)
    ref = _STANDARD.get(cls.__name__)
    if ref is None:
        module = sys.modules.get("scipy.stats")
        name = (CONTINUOUS.get(cls.__name__) or DISCRETE.get(cls.__name__) or ("",))[0]
        ref = getattr(module, name, None) if module is not None else None
        if ref is None or type(ref) is not cls:
            return False
        _STANDARD[cls.__name__] = ref
    return bool(obj.a == ref.a and obj.b == ref.b and _nan(obj.badvalue))


def _nan(v: Any) -> bool:
    return isinstance(v, float) and v != v


def lookup(fn: Any) -> Callable[..., Selection] | None:
    """The selector of a scipy.stats distribution method ``fn``, or None."""
    if not isinstance(fn, types.MethodType):
        multi = sys.modules.get("scipy.stats._multivariate")
        gen = getattr(multi, "multivariate_normal_gen", None)
        return _mvn_frozen if gen is not None and type(fn) is gen else None
    obj = fn.__self__
    cls = type(obj).__name__
    select = _TABLE.get((cls, fn.__name__))
    if select is None:
        return None
    if cls == "multivariate_normal_gen":
        multi = sys.modules.get("scipy.stats._multivariate")
        own = getattr(getattr(multi, cls, None), fn.__name__, None)
        return select if fn.__func__ is own else None
    infra = sys.modules.get("scipy.stats._distn_infrastructure")
    if infra is None:
        return None
    base = infra.rv_continuous if cls in CONTINUOUS else infra.rv_discrete
    if fn.__func__ is not getattr(base, fn.__name__, None):
        return None  # the class overrides the public method: read SciPy's source
    if not _standard(obj):
        return None
    return select
