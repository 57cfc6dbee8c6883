"""The catalogue's ``zero`` entries (``st_autodiff.catalog``): integer-, boolean- and
piecewise-constant-valued functions (``np.floor``, ``np.argmax``, ``np.isnan``, the
comparisons, ``np.zeros_like`` ...), whose derivative is zero wherever it exists.

Each case combines one of them with active values the way real code does
(``np.sum(np.floor(x) * x)``, ``x[np.argmax(x)] ** 2``, ``np.where(np.isnan(x), 0, x)``)
and checks the gradient four ways, at points away from the jumps: against the exact
formula (the zero-derivative function held constant), against float64 central
differences, against forward mode (``st.jvp``), and against the eager runtime
(PyTorch-style Tensors) where it spells the function.  A test enumerates the catalogue:
a new ``zero`` entry without a case here fails it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff import catalog

# np.fix is deprecated in NumPy 2.5 but still a function users call: its case stays
pytestmark = pytest.mark.filterwarnings("ignore:numpy.fix is deprecated:DeprecationWarning")

H = 1e-6
_W = np.array([0.7, -1.3, 0.4, 2.1, -0.6])  # fixed weights of the sorted values


def offgrid(rng: np.random.Generator, n: int = 5) -> np.ndarray:
    """Distinct values at least 0.01 from every multiple of 0.05 (the jumps of floor,
    ceil, rint, round(x, 1), x // 0.25 ...), none of them zero."""
    return rng.integers(-20, 20, n) / 10 + rng.uniform(0.01, 0.04, n)


def with_special(value: float, *at: int) -> Callable[[np.random.Generator], tuple]:
    """One off-grid vector with ``value`` (nan, inf, 0) at the positions ``at``."""
    def sample(rng: np.random.Generator) -> tuple:
        x = offgrid(rng)
        x[list(at)] = value
        return (x,)

    return sample


def one(rng: np.random.Generator) -> tuple:
    return (offgrid(rng),)


def two(rng: np.random.Generator) -> tuple:
    return offgrid(rng), offgrid(rng)


def scalar(rng: np.random.Generator) -> tuple:
    return (float(offgrid(rng, 1)[0]),)


def sorted_and_values(rng: np.random.Generator) -> tuple:
    return np.sort(offgrid(rng)), offgrid(rng)


def divisor(rng: np.random.Generator) -> tuple:
    """``x`` and ``y`` close to 0.5: ``x / y`` stays 0.01 away from the integers."""
    return offgrid(rng), rng.uniform(0.5, 0.5005, 5)


# --- the functions (module level: the compiler reads their source) --------------------


def floor_(x):
    return np.sum(np.floor(x) * x)


def ceil_(x):
    return np.sum(np.ceil(x) * x ** 2)


def trunc_(x):
    return np.sum(np.trunc(x) * np.sin(x))


def fix_(x):
    return np.sum(np.fix(x) * np.exp(x))


def rint_(x):
    return np.sum(np.rint(x) * x)


def round_(x):
    return np.sum(np.round(x) * x)


def around_(x):
    return np.sum(np.around(x, 1) * x ** 3)


def method_round(x):
    return np.sum(x.round(1) * x)


def sign_(x):
    return np.sum(np.sign(x) * x ** 2)


def signbit_(x):
    return np.sum(np.where(np.signbit(x), -x, x) + np.signbit(x) * x)


def gammasgn_(x):
    import scipy.special  # noqa: PLC0415

    return np.sum(scipy.special.gammasgn(x) * x ** 2)


def argmax_(x):
    return x[np.argmax(x)] ** 2


def argmin_(x):
    return x[np.argmin(x)] ** 3


def method_argmax(x):
    return np.sin(x[x.argmax()])


def method_argmin(x):
    return x[x.argmin()] * np.sum(x)


def argsort_(x):
    return np.sum(x[np.argsort(x)] * _W)


def method_argsort(x):
    return np.sum(x[x.argsort()] ** 2 * _W)


def nonzero_(x):
    return np.sum(x[np.nonzero(x)] ** 3)


def method_nonzero(x):
    return np.sum(x[np.floor(x).nonzero()] ** 2)


def any_(x):
    return np.sum(x ** 2) * np.any(x > 1.0) + np.sum(x ** 3) * np.any(x)


def all_(x):
    return np.sum(x ** 2) * np.all(x < 1.9) + np.sum(x ** 3) * np.all(x)


def method_any(x):
    return np.sum(x ** 2) * (x > 1.0).any() + np.sum(x) * x.any()


def method_all(x):
    return np.sum(x ** 2) * (x < 1.9).all() + np.sum(x) * x.all()


def isnan_(x):
    return np.sum(np.where(np.isnan(x), 0.0, x) ** 2)


def isinf_(x):
    return np.sum(np.where(np.isinf(x), 1.0, x) ** 2)


def isfinite_(x):
    return np.sum(np.where(np.isfinite(x), x, 0.0) ** 3)


def equal_(x):
    return np.sum(np.equal(x, x[0]) * x ** 2)


def not_equal_(x):
    return np.sum(np.not_equal(x, x[0]) * x ** 2)


def less_(x, y):
    return np.sum(np.less(x, y) * x * y)


def less_equal_(x, y):
    return np.sum(np.less_equal(x, y) * x ** 2 + y)


def greater_(x, y):
    return np.sum(np.greater(x, y) * x * y ** 2)


def greater_equal_(x, y):
    return np.sum(np.greater_equal(x, 0.3) * x * y)


def logical_and_(x, y):
    return np.sum(np.logical_and(x > 0, y < 0.5) * x * y)


def logical_or_(x, y):
    return np.sum(np.logical_or(x > 0, y < 0.5) * x * y)


def logical_xor_(x, y):
    return np.sum(np.logical_xor(x > 0, y < 0.5) * x * y)


def logical_not_(x):
    return np.sum(np.where(np.logical_not(x > 0), x ** 2, -x))


def floor_divide_(x, y):
    return np.sum(np.floor_divide(x, y) * x * y) + np.sum(np.floor_divide(x, 0.25) * x)


def shape_(x):
    n = np.shape(x)[0]
    return np.sum(x ** 2) * n


def zeros_(x):
    z = np.zeros(np.shape(x)) + x ** 2
    return np.sum(z * x)


def ones_(x):
    return np.sum(np.ones(5) * x ** 3)


def empty_(x):
    e = np.empty(5)
    e[:] = x ** 2
    return np.sum(e * x)


def zeros_like_(x):
    return np.sum((np.zeros_like(x) + x) ** 2)


def ones_like_(x):
    return np.sum(np.ones_like(x) * x ** 2)


def empty_like_(x):
    e = np.empty_like(x)
    e[...] = np.sin(x)
    return np.sum(e * x)


def eye_(x):
    return x @ (np.eye(5) * 2.0) @ x


def searchsorted_(a, x):
    return np.sum(np.searchsorted(a, x) * x * a[0]) + np.sum(a.searchsorted(x, side="right"))


def math_floor(x):
    return math.floor(x) * x


def math_ceil(x):
    return math.ceil(x) * x ** 2


def math_trunc(x):
    return math.trunc(x) * math.sin(x)


# --- the eager runtime's spelling of the same functions ---------------------------------


def _eye(t: Any) -> Any:
    return t @ (st.eye(5, dtype=st.float64) * 2.0) @ t


# --- the cases ------------------------------------------------------------------------


@dataclass(frozen=True)
class ZeroCase:
    """``fn`` (catalogue entries ``names``) on inputs from ``sample``, with the exact
    gradient ``grad`` (a tuple, one per argument) and the eager runtime's ``eager``."""

    names: tuple[str, ...]
    fn: Callable[..., Any]
    sample: Callable[[np.random.Generator], tuple]
    grad: Callable[..., tuple]
    eager: Callable[..., Any] | None = None


def _sorted_weights(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    g = np.zeros_like(x)
    g[np.argsort(x)] = w
    return g


def _at(x: np.ndarray, k: Any, value: float) -> np.ndarray:
    g = np.zeros_like(x)
    g[k] = value
    return g


CASES: tuple[ZeroCase, ...] = (
    ZeroCase(("numpy.signbit",), signbit_, one,
             lambda x: (np.where(np.signbit(x), -1.0, 1.0) + np.signbit(x),)),
    ZeroCase(("scipy.special.gammasgn",), gammasgn_, one,
             lambda x: (2 * x * np.sign(np.vectorize(__import__("math").gamma)(x)),)),
    ZeroCase(("numpy.floor",), floor_, one, lambda x: (np.floor(x),),
             lambda t: (st.floor(t) * t).sum()),
    ZeroCase(("numpy.ceil",), ceil_, one, lambda x: (2 * x * np.ceil(x),),
             lambda t: (st.ceil(t) * t ** 2).sum()),
    ZeroCase(("numpy.trunc",), trunc_, one, lambda x: (np.trunc(x) * np.cos(x),),
             lambda t: (st.trunc(t) * st.sin(t)).sum()),
    ZeroCase(("numpy.fix",), fix_, one, lambda x: (np.fix(x) * np.exp(x),)),
    ZeroCase(("numpy.rint",), rint_, one, lambda x: (np.rint(x),)),
    ZeroCase(("numpy.round",), round_, one, lambda x: (np.round(x),),
             lambda t: (st.round(t) * t).sum()),
    ZeroCase(("numpy.around",), around_, one, lambda x: (3 * x ** 2 * np.around(x, 1),)),
    ZeroCase(("ndarray.round",), method_round, one, lambda x: (x.round(1),)),
    ZeroCase(("numpy.sign",), sign_, one, lambda x: (2 * x * np.sign(x),),
             lambda t: (st.sign(t) * t ** 2).sum()),
    ZeroCase(("numpy.argmax",), argmax_, one,
             lambda x: (_at(x, np.argmax(x), 2 * np.max(x)),),
             lambda t: t[st.argmax(t)] ** 2),
    ZeroCase(("numpy.argmin",), argmin_, one,
             lambda x: (_at(x, np.argmin(x), 3 * np.min(x) ** 2),),
             lambda t: t[st.argmin(t)] ** 3),
    ZeroCase(("ndarray.argmax",), method_argmax, one,
             lambda x: (_at(x, np.argmax(x), np.cos(np.max(x))),),
             lambda t: st.sin(t[t.argmax()])),
    ZeroCase(("ndarray.argmin",), method_argmin, one,
             lambda x: (np.min(x) + _at(x, np.argmin(x), np.sum(x)),),
             lambda t: t[t.argmin()] * t.sum()),
    ZeroCase(("numpy.argsort",), argsort_, one, lambda x: (_sorted_weights(x, _W),)),
    ZeroCase(("ndarray.argsort",), method_argsort, one,
             lambda x: (_sorted_weights(x, 2 * np.sort(x) * _W),)),
    # exact zeros: sum(x[x != 0] ** 3) is differentiable there, with derivative 0
    ZeroCase(("numpy.nonzero",), nonzero_, with_special(0.0, 1, 3),
             lambda x: (3 * x ** 2,),
             lambda t: (t[st.nonzero(t, as_tuple=True)] ** 3).sum()),
    ZeroCase(("ndarray.nonzero",), method_nonzero, one,
             lambda x: (np.where(np.floor(x) != 0, 2 * x, 0.0),),
             lambda t: (t[st.floor(t).nonzero(as_tuple=True)] ** 2).sum()),
    ZeroCase(("numpy.any",), any_, one,
             lambda x: (2 * x * np.any(x > 1.0) + 3 * x ** 2 * np.any(x),),
             lambda t: (t ** 2).sum() * st.any(t > 1.0) + (t ** 3).sum() * st.any(t)),
    ZeroCase(("numpy.all",), all_, one,
             lambda x: (2 * x * np.all(x < 1.9) + 3 * x ** 2 * np.all(x),),
             lambda t: (t ** 2).sum() * st.all(t < 1.9) + (t ** 3).sum() * st.all(t)),
    ZeroCase(("ndarray.any",), method_any, one,
             lambda x: (2 * x * (x > 1.0).any() + x.any(),),
             lambda t: (t ** 2).sum() * (t > 1.0).any() + t.sum() * t.any()),
    ZeroCase(("ndarray.all",), method_all, one,
             lambda x: (2 * x * (x < 1.9).all() + x.all(),),
             lambda t: (t ** 2).sum() * (t < 1.9).all() + t.sum() * t.all()),
    ZeroCase(("numpy.isnan",), isnan_, with_special(np.nan, 1),
             lambda x: (np.where(np.isnan(x), 0.0, 2 * x),),
             lambda t: (st.where(st.isnan(t), 0.0, t) ** 2).sum()),
    ZeroCase(("numpy.isinf",), isinf_, with_special(np.inf, 2),
             lambda x: (np.where(np.isinf(x), 0.0, 2 * x),),
             lambda t: (st.where(st.isinf(t), 1.0, t) ** 2).sum()),
    ZeroCase(("numpy.isfinite",), isfinite_, with_special(-np.inf, 0, 3),
             lambda x: (np.where(np.isfinite(x), 3 * x ** 2, 0.0),),
             lambda t: (st.where(st.isfinite(t), t, 0.0) ** 3).sum()),
    ZeroCase(("numpy.equal",), equal_, one, lambda x: (_at(x, 0, 2 * x[0]),),
             lambda t: (st.eq(t, t[0]) * t ** 2).sum()),
    ZeroCase(("numpy.not_equal",), not_equal_, one,
             lambda x: (2 * x - _at(x, 0, 2 * x[0]),),
             lambda t: (st.ne(t, t[0]) * t ** 2).sum()),
    ZeroCase(("numpy.less",), less_, two, lambda x, y: ((x < y) * y, (x < y) * x),
             lambda t, u: (st.lt(t, u) * t * u).sum()),
    ZeroCase(("numpy.less_equal",), less_equal_, two,
             lambda x, y: ((x <= y) * 2 * x, np.ones_like(y)),
             lambda t, u: (st.le(t, u) * t ** 2 + u).sum()),
    ZeroCase(("numpy.greater",), greater_, two,
             lambda x, y: ((x > y) * y ** 2, (x > y) * 2 * x * y),
             lambda t, u: (st.gt(t, u) * t * u ** 2).sum()),
    ZeroCase(("numpy.greater_equal",), greater_equal_, two,
             lambda x, y: ((x >= 0.3) * y, (x >= 0.3) * x),
             lambda t, u: (st.ge(t, 0.3) * t * u).sum()),
    *(ZeroCase((f"numpy.logical_{op}",), fn, two,
               lambda x, y, ref=ref: (ref(x > 0, y < 0.5) * y, ref(x > 0, y < 0.5) * x),
               lambda t, u, op=op: (getattr(st, f"logical_{op}")(t > 0, u < 0.5) * t * u)
               .sum())
      for op, fn, ref in (("and", logical_and_, np.logical_and),
                          ("or", logical_or_, np.logical_or),
                          ("xor", logical_xor_, np.logical_xor))),
    ZeroCase(("numpy.logical_not",), logical_not_, one,
             lambda x: (np.where(x > 0, -1.0, 2 * x),),
             lambda t: st.where(st.logical_not(t > 0), t ** 2, -t).sum()),
    ZeroCase(("numpy.floor_divide",), floor_divide_, divisor,
             lambda x, y: (np.floor_divide(x, y) * y + np.floor_divide(x, 0.25),
                           np.floor_divide(x, y) * x),
             lambda t, u: (st.floor_divide(t, u) * t * u).sum()
             + (st.floor_divide(t, 0.25) * t).sum()),
    ZeroCase(("numpy.shape",), shape_, one, lambda x: (2 * x * 5,),
             lambda t: (t ** 2).sum() * t.shape[0]),
    ZeroCase(("numpy.zeros",), zeros_, one, lambda x: (3 * x ** 2,),
             lambda t: ((st.zeros(t.shape, dtype=st.float64) + t ** 2) * t).sum()),
    ZeroCase(("numpy.ones",), ones_, one, lambda x: (3 * x ** 2,),
             lambda t: (st.ones(5, dtype=st.float64) * t ** 3).sum()),
    ZeroCase(("numpy.empty",), empty_, one, lambda x: (3 * x ** 2,)),
    ZeroCase(("numpy.zeros_like",), zeros_like_, one, lambda x: (2 * x,),
             lambda t: ((st.zeros_like(t) + t) ** 2).sum()),
    ZeroCase(("numpy.ones_like",), ones_like_, one, lambda x: (2 * x,),
             lambda t: (st.ones_like(t) * t ** 2).sum()),
    ZeroCase(("numpy.empty_like",), empty_like_, one, lambda x: (np.sin(x) + x * np.cos(x),)),
    ZeroCase(("numpy.eye",), eye_, one, lambda x: (4 * x,), _eye),
    # a decomposition in the catalogue (it counts the elements below each value)
    ZeroCase(("numpy.searchsorted",), searchsorted_, sorted_and_values,
             lambda a, x: (_at(a, 0, np.sum(np.searchsorted(a, x) * x)),
                           np.searchsorted(a, x) * a[0])),
    ZeroCase(("math.floor",), math_floor, scalar, lambda x: (float(math.floor(x)),)),
    ZeroCase(("math.ceil",), math_ceil, scalar, lambda x: (2 * x * math.ceil(x),)),
    ZeroCase(("math.trunc",), math_trunc, scalar,
             lambda x: (math.trunc(x) * math.cos(x),)),
)


def _id(case: ZeroCase) -> str:
    return "+".join(case.names)


def _inputs(case: ZeroCase) -> tuple:
    return case.sample(np.random.default_rng(len(_id(case))))


def _as_tuple(g: Any) -> tuple:
    return g if isinstance(g, tuple) else (g,)


def _close(actual: Any, expected: Any, what: str) -> None:
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64),
                               np.asarray(expected, dtype=np.float64),
                               rtol=1e-12, atol=1e-12, err_msg=what)


def _directions(args: tuple) -> tuple:
    rng = np.random.default_rng(7)
    return tuple(float(rng.uniform(-1, 1)) if isinstance(a, float)
                 else rng.uniform(-1, 1, np.shape(a)) for a in args)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_reverse_mode_gives_the_formula(case: ZeroCase) -> None:
    args = _inputs(case)
    value, grads = st.value_and_grad(case.fn, wrt=tuple(range(len(args))))(*args)
    _close(value, case.fn(*args), "value")
    for k, (g, e) in enumerate(zip(_as_tuple(grads), case.grad(*args), strict=True)):
        _close(g, e, f"gradient of argument {k}")


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_formula_matches_central_differences(case: ZeroCase) -> None:
    """The expected formula is the derivative: the inputs sit away from the jumps."""
    args = _inputs(case)
    dirs = _directions(args)

    def at(h: float) -> float:
        return case.fn(*(a + h * d for a, d in zip(args, dirs, strict=True)))

    fd = (at(H) - at(-H)) / (2 * H)
    exact = sum(float(np.sum(np.where(np.isfinite(a), g * d, 0.0)))
                for a, g, d in zip(args, case.grad(*args), dirs, strict=True))
    np.testing.assert_allclose(fd, exact, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_forward_mode_gives_the_formula(case: ZeroCase) -> None:
    args = _inputs(case)
    dirs = _directions(args)
    value, tangent = st.jvp(case.fn, args, dirs)
    _close(value, case.fn(*args), "value")
    exact = sum(float(np.sum(np.where(np.isfinite(a), g * d, 0.0)))
                for a, g, d in zip(args, case.grad(*args), dirs, strict=True))
    _close(tangent, exact, "tangent")


EAGER = tuple(c for c in CASES if c.eager is not None)


@pytest.mark.parametrize("case", EAGER, ids=_id)
def test_eager_runtime_gives_the_formula(case: ZeroCase) -> None:
    args = _inputs(case)
    ts = [st.tensor(a, requires_grad=True) for a in args]
    out = case.eager(*ts)
    _close(out.detach().numpy(), case.fn(*args), "eager value")
    out.backward()
    for k, (t, e) in enumerate(zip(ts, case.grad(*args), strict=True)):
        assert t.grad is not None, f"eager: argument {k} got no gradient"
        _close(t.grad.numpy(), e, f"eager gradient of argument {k}")


def test_every_zero_entry_of_the_catalogue_has_a_case() -> None:
    """A function the catalogue lists as ``zero`` needs a case here; a case names real
    entries of the catalogue (``numpy.searchsorted`` is a decomposition there)."""
    entries = catalog.entries(import_missing=True)
    zero = {e.name for e in entries if e.how == "zero"}
    covered = {name for c in CASES for name in c.names}
    assert not zero - covered, f"zero entries without a case: {sorted(zero - covered)}"
    unknown = covered - {e.name for e in entries}
    assert not unknown, f"cases of no catalogue entry: {sorted(unknown)}"
