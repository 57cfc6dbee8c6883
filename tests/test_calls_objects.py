"""Calls and objects in differentiated code: star-unpacking, objects built inside the
function (user classes, dataclasses, library classes), wrappers (partial, lru_cache,
NumPy dispatchers, callable objects, exec-built argument repackers), static recursion,
implicit ``return None`` in callees, lambdas told apart by position, ``np.r_``/``np.c_``
and interleaved ``einsum``.  Gradients are checked against central differences."""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import InitVar, dataclass, field

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import CompileError, StAutodiffError
from st_autodiff.testing import check_grads

X = np.array([0.3, -1.2, 2.0, 0.7])
M = np.array([[1.0, 0.5, -0.3], [0.2, -0.4, 1.1]])


def check(f, *args):
    """The compiled value equals Python's, the gradient (first argument) central
    differences."""
    value, grad = st.value_and_grad(f)(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12, atol=1e-12)
    check_grads(f, args, lambda *a: (st.grad(f)(*a),), argnums=[0])
    return grad


def refused(f, *args, match: str) -> StAutodiffError:
    """``f`` is refused with a located error whose message contains ``match``."""
    with pytest.raises(StAutodiffError) as info:
        st.grad(f)(*args)
    assert match in str(info.value)
    assert info.value.loc is not None and info.value.loc.line > 0
    return info.value


# --- star-unpacking -----------------------------------------------------------------------

def _h(a, b, c):
    return a * b + c


def star_targets(x):
    c, *rest = x[0], x[1], x[2]
    first, *mid, last = x
    a = [1.0, *rest]
    b = (*rest, c)
    return np.sum(np.stack(a[1:]) * np.stack(b[:2])) + c * a[0] + first * last \
        + np.sum(np.stack(mid) ** 2)


def star_call(x):
    args = (x[0], x[1])
    kw = {"c": x[2]}
    return _h(*args, **kw) + _h(*x[:3]) + _h(x[0], *(x[1],), **{"c": 2.0})


def star_zip(x):
    pairs = [(x[0], x[1]), (x[2], x[3])]
    a, b = zip(*pairs)
    return np.sum(np.stack(a) * np.stack(b)) + np.sum(np.sin(np.stack([*a, *b])))


def star_tuple_argument(x, t):
    return _h(*t) * np.sum(x)


def star_dict_literal(x):
    base = {"a": x[0], "b": 2.0}
    merged = {**base, "c": x[1], **{"b": x[2]}}
    return _h(**merged)


@pytest.mark.parametrize("f", [star_targets, star_call, star_zip, star_dict_literal])
def test_star_forms(f):
    check(f, X)


def test_star_of_a_tuple_argument_uses_its_keyed_length():
    t = (1.5, -2.0, 0.5)
    g = st.grad(star_tuple_argument)(X, t)
    np.testing.assert_allclose(g, np.full(4, 1.5 * -2.0 + 0.5))


def star_unpack_too_few(x):
    a, b, *_rest, c = x[0], x[1]
    return a + b + c


def star_runtime_list(x):
    xs = []
    for row in M @ x[:3] > 0.0:
        xs.append(row)
    k = 0
    while k < np.sum(x) and k < 3:  # a trip count known at run time only
        xs.append(x[k])
        k += 1
    return _h(*xs)


def test_star_refusals_are_located():
    refused(star_unpack_too_few, X, match="not enough values to unpack")
    refused(star_runtime_list, X, match="*-arguments need a value whose length is known")


# --- objects built inside the function ---------------------------------------------------

class Affine:
    """A model with parameters set in ``__init__``."""

    scale = 2.0

    def __init__(self, w, b=0.5):
        self.w = w
        self.b = b
        self.calls = 0

    def predict(self, z):
        self.calls += 1  # a static counter on the fresh instance
        return z * self.w + self.b * self.scale

    @property
    def norm2(self):
        return np.sum(self.w ** 2)

    def __call__(self, z):
        return self.predict(z) + self.calls


class Ridge(Affine):
    """Inheritance: ``super().__init__`` and an overridden method calling ``super()``."""

    def __init__(self, w, lam):
        super().__init__(w, b=0.0)
        self.lam = lam

    def predict(self, z):
        return super().predict(z) * 1.5

    def loss(self, z):
        return np.sum(self.predict(z) ** 2) + self.lam * self.norm2


def build_affine(x):
    m = Affine(x[:2])
    y = m.predict(np.array([1.0, -2.0]))
    m.w = m.w * x[2]  # a runtime attribute written again
    return np.sum(y ** 2) + m.norm2 + np.sum(m(np.ones(2)))


def build_ridge(x):
    return Ridge(x[1:3], 0.3).loss(np.array([0.5, 2.0]))


def build_ridge_two_arg_super(x):
    class_ = Ridge
    model = class_(x[:2], x[3])
    return super(Ridge, model).predict(np.ones(2))[0] + model.loss(x[2:])


@pytest.mark.parametrize("f", [build_affine, build_ridge, build_ridge_two_arg_super])
def test_user_classes(f):
    check(f, X)


@dataclass
class Params:
    w: np.ndarray
    lam: float = 0.1
    power: int = 2
    history: list = field(default_factory=list)
    offset: InitVar[float] = 0.0

    def __post_init__(self, offset):
        self.shifted = self.w + offset

    def penalty(self):
        return self.lam * np.sum(np.abs(self.w) ** self.power)


class Base:
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.base = 1.0


class Derived(Base):
    def __init__(self, w):
        super().__init__()
        self.w = w * self.base


def _scales():
    return [1.0, 2.0]


@dataclass
class WithFactory:
    w: np.ndarray
    scales: list = field(default_factory=_scales)
    kind: __import__("typing").ClassVar[str] = "factory"


def object_init_and_factories(x):
    d = Derived(x)
    wf = WithFactory(x)
    return np.sum(d.w ** 2) * wf.scales[1] + len(wf.kind)


def test_object_init_factories_and_classvars():
    check(object_init_and_factories, X)


@dataclass(frozen=True)
class Frozen:
    a: float
    b: float

    def __post_init__(self):
        object.__setattr__(self, "ab", self.a * self.b)


def build_dataclass(x):
    p = Params(x[:3], lam=x[3], offset=1.5)
    q = Params(x[1:], power=3)
    fr = Frozen(x[0], b=x[1])
    return p.penalty() + q.penalty() + np.sum(p.shifted ** 2) + fr.ab + len(p.history)


def test_dataclasses():
    check(build_dataclass, X)


def branch_write(x):
    m = Affine(x)
    if np.sum(x) > 0:
        m.w = x * 2.0
    return np.sum(m.w)


def loop_write(x):
    m = Affine(x)
    for _ in range(3):
        m.calls += 1
    return np.sum(m.w) * m.calls


def loop_reads(x):
    m = Affine(x)
    total = 0.0
    for i in range(int(np.sum(x > 0)) + 1):
        total = total + np.sum(m.w * x * i) + m.norm2 * m.b
    return total


def test_objects_read_inside_loops():
    check(loop_reads, X)


def returns_object(x):
    return Affine(x)


class Registering:
    instances: list = []

    def __init__(self, w):
        self.instances.append(w)
        self.w = w


def registers(x):
    return np.sum(Registering(x).w)


class CNew(tuple):
    def total(self):
        return self[0] + self[1]


def c_new(x):
    return CNew((x[0], x[1])).total()


def test_object_refusals_are_located():
    refused(branch_write, X, match="inside a loop, or a branch taken at run time")
    refused(loop_write, X, match="not carried through loops")
    refused(returns_object, X, match="Affine")
    refused(registers, X, match="instances")
    err = refused(c_new, X, match="CNew objects built from arrays")  # passed through
    assert "CNew" in str(err)
    assert not Registering.instances  # nothing built at compile time escapes


def test_instances_are_fresh_per_compile():
    g = st.grad(build_affine)
    a, b = g(X), g(X * 2.0)
    assert Affine.scale == 2.0 and "w" not in vars(Affine)
    check(build_affine, X * 2.0)
    np.testing.assert_allclose(a, st.grad(build_affine)(X))
    assert not np.allclose(a, b)


class Slotted:
    __slots__ = ("a", "k")

    def __init__(self, a, k=2):
        self.a = a
        self.k = k

    @functools.cached_property
    def unused(self):  # never read: cached_property needs a __dict__
        return 0.0

    @staticmethod
    def twice(v):
        return 2.0 * v

    @classmethod
    def make(cls, a):
        return cls(a, k=3)

    def value(self):
        return self.twice(np.sum(self.a ** self.k))


class Cached:
    def __init__(self, w):
        self.w = w

    @functools.cached_property
    def total(self):
        return np.sum(self.w ** 2)


class Abstract(__import__("abc").ABC):
    @__import__("abc").abstractmethod
    def f(self):
        ...


def slots_and_descriptors(x):
    s1 = Slotted(x)
    s2 = s1.make(x[:2])
    return s1.value() + s2.value() + Cached(x).total


def builds_abstract(x):
    return Abstract()


Point = __import__("collections").namedtuple("Point", "a b")


def builds_namedtuple(x):
    return Point(x[0], x[1]).a


def test_slots_static_class_methods_and_cached_property():
    check(slots_and_descriptors, X)
    refused(builds_abstract, X, match="abstract")
    check(builds_namedtuple, X)  # a namedtuple is a tuple of its arguments (built as Python)


def construct_builtin_static(x):
    opts = dict(remove_none=False, kinds=[])  # as sklearn's _array_api helpers
    params = dict(zip(("a", "b"), (x[0], x[1])), c=x[2])
    return np.sum(x[slice(1, 3)]) * len(range(3)) + np.finfo(np.dtype("float64")).eps \
        + len(opts["kinds"]) + params["a"] * params["b"] + params["c"] + len(set((1, 2, 2)))


def constant_array_methods(x):
    ls = np.squeeze(np.array([0.7])).astype(float)  # as sklearn's _check_length_scale
    return np.sum(x / ls) + np.array([1.0, 2.0]).sum() * x[0] + np.ones((2, 2)).T[0, 1]


def test_pure_c_classes_fold():
    check(construct_builtin_static, X)
    check(constant_array_methods, X)


# --- library classes built inside the function -------------------------------------------

def test_statsmodels_links_and_norms():
    links = pytest.importorskip("statsmodels.genmod.families.links")
    norms = pytest.importorskip("statsmodels.robust.norms")
    varfuncs = pytest.importorskip("statsmodels.genmod.families.varfuncs")
    p = np.array([0.2, 0.4, 0.7, 0.9])

    def logit(q):
        return np.sum(links.Logit()(q) ** 2) + np.sum(links.Logit().inverse(q))

    def cloglog(q):
        return np.sum(links.CLogLog().deriv(q))

    def huber(z):
        return np.sum(norms.HuberT(t=1.345).rho(z)) + np.sum(norms.HuberT()(z))

    def tukey(z):
        return np.sum(norms.TukeyBiweight(c=4.0).psi(z))

    def variance(q):
        return np.sum(varfuncs.Binomial()(q)) + np.sum(varfuncs.Power(power=1.5)(q))

    for f, a in ((logit, p), (cloglog, p), (huber, X * 2.0), (tukey, X), (variance, p)):
        check(f, a)


# --- wrappers --------------------------------------------------------------------------

def _scaled(x, k, *, shift=0.0):
    return np.sum(x * k) + shift


_PARTIAL = functools.partial(_scaled, k=3.0, shift=0.5)


def partial_inside(x):
    f = functools.partial(_scaled, k=x[0])
    g = functools.partial(f, shift=x[1])
    return g(x) + _PARTIAL(x)


def _penalised(x, **options):
    return np.sum(x ** 2) * options.get("lam", 0.1) + options.get("missing", 1.0)


@functools.lru_cache(maxsize=8)
def _n_terms(n):
    return float(sum(range(n)))


def lru_static(x):
    return np.sum(x) / _n_terms(4)


@functools.lru_cache(maxsize=8)
def _cached_square(v):
    return v ** 2


def lru_runtime_array(x):
    return np.sum(_cached_square(x))


class Quadratic:
    def __init__(self, a):
        self.a = a

    def __call__(self, x):
        return self.a * np.sum(x ** 2)


_QUAD = Quadratic(1.5)


def callable_global(x):
    return _QUAD(x) + Quadratic(x[0])(x)


def test_callable_object_from_the_error_helpers_now_inlines():
    from tests import helpers_errors as H

    np.testing.assert_allclose(st.grad(H.calls_object)(X), np.full(4, 2.0))


_ITEM = __import__("operator").itemgetter(1)


def c_callable_object(x):
    return _ITEM((x[0], x[1])) * 2.0


def test_c_level_callable_object_is_refused_located():
    refused(c_callable_object, X, match="has no derivative rule")


def test_wrappers():
    check(partial_inside, X)
    check(functools.partial(_penalised, lam=0.7), X)  # a keyword into **options
    g = st.grad(functools.partial(_penalised, lam=0.7))(X)
    np.testing.assert_allclose(g, 1.4 * X)
    check(lru_static, X)
    check(callable_global, X)
    refused(lru_runtime_array, X, match="lru_cache")


def test_sklearn_validate_params_wrapper():
    pv = pytest.importorskip("sklearn.utils._param_validation")
    from numbers import Integral

    @pv.validate_params({"x": ["array-like"], "power": [pv.Interval(Integral, 1, None,
                                                                      closed="left")]},
                        prefer_skip_nested_validation=True)
    def powered(x, power=2):
        return np.sum(np.abs(x) ** power)

    def good(x):
        return powered(x, power=3) + powered(x)

    def bad(x):
        return powered(x, power=0)

    check(good, X)
    refused(bad, X, match="must be an int in the range [1, inf). Got 0 instead")


def numpy_python_function(x):
    # Python functions behind NumPy's dispatcher, inlined through ``_implementation``
    a = np.atleast_2d(x)
    b = np.atleast_3d(x[:2])
    return np.sum(a * x) + np.sum(b ** 3) + np.sum(np.sinc(x)) \
        + np.sum(np.column_stack((x, x ** 2)) * 0.5)


def test_numpy_dispatchers_inline():
    check(numpy_python_function, X)


_NS: dict = {}
exec("def _pack(a, b, c=2.0, *more, scale=1.0):\n"  # noqa: S102
     "    return (a, b), c, scale, more\n"
     "def _call_inside(a):\n"
     "    return abs(a)\n", _NS)


def exec_repacker(x):
    (a, b), c, scale, more = _NS["_pack"](x[0], x[1], scale=x[2])
    (d, e), f, _, rest = _NS["_pack"](x[3], 1.0, x[0], x[1])
    return a * b * c + scale ** 2 + d * e + f + rest[0] + len(more)


def exec_with_call(x):
    return _NS["_call_inside"](x[0])


def test_exec_built_functions():
    check(exec_repacker, X)
    refused(exec_with_call, X, match="built with exec")


# --- recursion, return None, lambdas, r_/c_, einsum ---------------------------------------

def _power(x, n):
    if n == 0:
        return 1.0
    return x * _power(x, n - 1)


def static_recursion(x):
    return np.sum(_power(x, 3)) + np.sum(_power(x, 0))


def _tree_sum(xs):
    if len(xs) == 1:
        return xs[0]
    half = len(xs) // 2
    return _tree_sum(xs[:half]) + _tree_sum(xs[half:])


def tree_recursion(x):
    return _tree_sum((x[0], x[1] ** 2, x[2], np.sin(x[3])))


def _forever(x, n):
    return _forever(x, n)


def same_static_key(x):
    return _forever(x, 1)


def test_static_recursion():
    check(static_recursion, X)
    check(tree_recursion, X)
    refused(same_static_key, X, match="recursive functions are not supported")


class Accumulator:
    def __init__(self):
        self.total = 0.0

    def add(self, v):
        self.total = self.total + v  # returns None implicitly


def _note(x):
    y = x * 2.0  # noqa: F841  (a callee without a return statement)


def _early(x, flag):
    if flag:
        return
    return x


def implicit_none(x):
    acc = Accumulator()
    acc.add(np.sum(x ** 2))
    acc.add(x[0])
    _note(x)
    _early(x, True)
    return acc.total + np.sum(_early(x, False))


def no_return_at_top(x):
    _note(x)


def test_implicit_return_none():
    check(implicit_none, X)
    with pytest.raises(CompileError, match="does not return a value"):
        st.grad(no_return_at_top)(X)


LOSSES = {"sq": lambda w: np.sum(w ** 2), "sin": lambda w: np.sum(np.sin(w) * w)}
PAIR = (lambda w: np.sum(w ** 3), lambda w: np.sum(np.cos(w)))
NESTED = lambda w: (lambda v: np.sum(v ** 2))(w * 2.0) + np.sum(w)  # noqa: E731
MULTI = (lambda w:  # noqa: E731
         np.sum(np.exp(w)
                * w))


@pytest.mark.parametrize("f", [NESTED, MULTI])
def test_lambdas_told_apart(f):
    check(f, X)


@pytest.mark.parametrize("f", [LOSSES["sq"], LOSSES["sin"], PAIR[0], PAIR[1]])
def test_lambdas_on_one_line(f):
    """Several lambdas on one line are told apart by their columns (``co_positions``,
    Python 3.11+) or, on 3.10, which keeps no columns, by the instructions each one's text
    compiles to."""
    check(f, X)


def r_and_c(x):
    r = np.r_[x, x[:2] * 2.0, 1.0, 0:3]
    c = np.c_[x, x ** 2, np.ones((4, 1))]
    return np.sum(r ** 2) + np.sum(c @ np.array([1.0, -1.0, 0.5]))


def einsum_interleaved(x):
    a = np.outer(x, x[:3])
    b = np.outer(x[1:], x)
    return np.einsum(a, [0, 1], b, [1, 2], [0, 2]).sum() + np.einsum(x, [0], x, [0]) \
        + np.sum(np.einsum(a, [Ellipsis, 1], [1, Ellipsis]))


def r_directive(x):
    return np.sum(np.r_["0,2", x, x])


@pytest.mark.parametrize("f", [r_and_c, einsum_interleaved])
def test_index_tricks_and_einsum(f):
    check(f, X)


def test_r_directive_refused():
    refused(r_directive, X, match="directive string")


def test_dataclass_fields_match_python():
    p = Params(X, lam=0.2)
    assert [f.name for f in dataclasses.fields(p)] == ["w", "lam", "power", "history"]
