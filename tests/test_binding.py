"""Arguments are bound as Python binds them: positional-only, keyword-only, defaults,
``*args`` and ``**kwargs``, for the differentiated function, for every inlined callee and
for ``*``/``**`` in calls; bound methods are differentiated with ``self`` bound.

Every gradient is checked against central finite differences in float64.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import CompileError, WrtError

W = np.array([1.0, 2.0])
X = np.array([0.5, -1.0, 2.0])
Y = np.array([1.5, 0.25, -0.75])


def fd(f: Callable[..., Any], args: tuple, i: int = 0, kwargs: dict | None = None,
       key: str | None = None, eps: float = 1e-6) -> Any:
    """Central differences of scalar ``f`` in positional argument ``i`` (or keyword
    ``key``)."""
    kwargs = dict(kwargs or {})
    base = kwargs[key] if key is not None else args[i]
    x = np.array(base, dtype=np.float64)
    out = np.zeros_like(x)
    for j in np.ndindex(x.shape):
        vals = []
        for s in (eps, -eps):
            xs = x.copy()
            xs[j] += s
            v = xs if np.ndim(base) else float(xs)
            a, kw = list(args), dict(kwargs)
            if key is not None:
                kw[key] = v
            else:
                a[i] = v
            vals.append(f(*a, **kw))
        out[j] = (vals[0] - vals[1]) / (2 * eps)
    return out if np.ndim(base) else float(out)


# --- keyword-only parameters (the reproduction 1) -----------------------------------

def loss(w, *, lam=0.1):
    return np.sum(w ** 2) + lam * np.sum(w)


def test_keyword_only_default_is_used_and_not_taken_for_the_seed():
    np.testing.assert_allclose(st.grad(loss)(W), [2.1, 4.1])
    np.testing.assert_allclose(st.grad(loss)(W), fd(loss, (W,)), rtol=1e-6)


def test_keyword_only_value_passed_by_keyword():
    value, g = st.value_and_grad(loss)(W, lam=0.5)
    assert value == pytest.approx(6.5)
    np.testing.assert_allclose(g, [2.5, 4.5])
    np.testing.assert_allclose(g, fd(loss, (W,), kwargs={"lam": 0.5}), rtol=1e-6)


def test_keyword_only_is_a_parameter_of_the_generated_code_not_out_bar():
    g = st.grad(loss)
    g(W, lam=0.5)
    header = g.source.splitlines()[0]
    assert header == "def loss_grad(w, lam=0.1, out_bar=1.0):", header


def test_wrt_names_a_keyword_only_parameter():
    g = st.grad(loss, wrt="lam")(W, lam=0.3)
    assert g == pytest.approx(fd(loss, (W,), kwargs={"lam": 0.3}, key="lam"))
    gw, gl = st.grad(loss, wrt=(0, "lam"))(W, lam=0.3)
    np.testing.assert_allclose(gw, [2.3, 4.3])
    assert gl == pytest.approx(3.0)


def test_keyword_only_cannot_be_passed_by_position():
    with pytest.raises(TypeError, match="positional"):
        st.grad(loss)(W, 0.5)


def test_wrt_position_past_the_positional_arguments_says_to_name_keyword_only_ones():
    with pytest.raises(WrtError, match="keyword-only ones are named"):
        st.grad(loss, wrt=1)(W)


def test_keyword_only_of_an_inlined_callee():
    def f(x):
        return loss(x, lam=2.0) + loss(x)

    np.testing.assert_allclose(st.grad(f)(W), fd(f, (W,)), rtol=1e-6)


def test_missing_keyword_only_argument_of_a_callee_is_located():
    def needs(x, *, k):
        return np.sum(x * k)

    def f(x):
        return needs(x)

    with pytest.raises(CompileError, match="missing 1 required keyword-only argument: 'k'"
                       ) as info:
        st.grad(f)(W)
    assert "return needs(x)" in str(info.value)


# --- positional-only parameters (reproduction 2) ---------------------------------------------

a = np.full(3, 10.0)  # the global a positional-only parameter must not fall back to


def h_posonly(a, /, b=1.0):
    return a * b


def f_posonly(x):
    return np.sum(h_posonly(x))


def test_positional_only_parameter_of_a_callee_is_bound():
    value, g = st.value_and_grad(f_posonly)(np.ones(3))
    assert value == pytest.approx(3.0)
    np.testing.assert_allclose(g, [1.0, 1.0, 1.0])


def h_xy(x, /, y):
    return x * y


def by_position(x):
    return h_xy(x, 2.0)


def by_keyword(x):
    return h_xy(x, y=2.0)


@pytest.mark.parametrize("call", [by_position, by_keyword], ids=["positional", "keyword"])
def test_positional_only_then_positional_or_keyword(call):
    def f(x):
        return np.sum(call(x) ** 2)

    np.testing.assert_allclose(st.grad(f)(X), fd(f, (X,)), rtol=1e-6)
    np.testing.assert_allclose(st.grad(f)(X), 8.0 * X)


def test_positional_only_passed_by_keyword_is_a_located_error():
    def f(x):
        return np.sum(h_xy(x=x, y=2.0))

    with pytest.raises(CompileError, match="positional-only arguments passed as keyword"
                       ) as info:
        st.grad(f)(X)
    assert "h_xy(x=x" in str(info.value)


def top_posonly(x, /, y, *, z=3.0):
    return np.sum(x * y) * z


def test_positional_only_parameters_of_the_differentiated_function():
    g = st.grad(top_posonly, wrt=(0, 1))
    gx, gy = g(X, Y)
    np.testing.assert_allclose(gx, fd(top_posonly, (X, Y), 0), rtol=1e-6)
    np.testing.assert_allclose(gy, fd(top_posonly, (X, Y), 1), rtol=1e-6)
    gx, gy = g(X, y=Y, z=1.0)
    np.testing.assert_allclose(gx, Y)
    np.testing.assert_allclose(gy, X)
    with pytest.raises(TypeError, match="positional"):
        g(x=X, y=Y)


def test_lambda_with_positional_only_parameter():
    f = lambda x, /, s=2.0: np.sum(x ** 2) * s  # noqa: E731
    np.testing.assert_allclose(st.grad(f)(X), 4.0 * X)


# --- *args and **kwargs in callees and in calls -----------------------------------------------

def total(*xs):
    s = 0.0
    for x in xs:
        s = s + np.sum(x ** 2)
    return s


def scaled(x, **opts):
    return opts["scale"] * np.sum(x ** 3)


def test_star_args_parameter_of_a_callee():
    def f(x, y):
        return total(x, y * 2.0, x * y)

    gx, gy = st.grad(f, wrt=(0, 1))(X, Y)
    np.testing.assert_allclose(gx, fd(f, (X, Y), 0), rtol=1e-6)
    np.testing.assert_allclose(gy, fd(f, (X, Y), 1), rtol=1e-6)


def test_star_args_with_no_values_is_an_empty_tuple():
    def f(x):
        return total() + np.sum(x)

    np.testing.assert_allclose(st.grad(f)(X), np.ones(3))


def test_star_kwargs_parameter_of_a_callee():
    def f(x):
        return scaled(x, scale=3.0)

    np.testing.assert_allclose(st.grad(f)(X), 9.0 * X ** 2)


def test_star_and_double_star_in_calls():
    def f(x, y):
        parts = (x, y)
        opts = {"scale": 2.0}
        return total(*parts) + scaled(x, **opts) + np.sum(np.maximum(*(x, y)))

    gx, gy = st.grad(f, wrt=(0, 1))(X, Y)
    np.testing.assert_allclose(gx, fd(f, (X, Y), 0), rtol=1e-6)
    np.testing.assert_allclose(gy, fd(f, (X, Y), 1), rtol=1e-6)


def test_star_of_an_array_of_known_length_passes_its_rows():
    def f(m):
        return total(*m)

    m = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(st.grad(f)(m), 2.0 * m)


def test_star_of_a_tuple_argument():
    def f(x, pair):
        return np.sum(x * h_xy(*pair))

    pair = (X, Y)
    np.testing.assert_allclose(st.grad(f)(Y, pair), X * Y)


def test_double_star_repeating_a_keyword_is_a_located_error():
    def f(x):
        return scaled(x, scale=1.0, **{"scale": 2.0})

    with pytest.raises(CompileError, match="multiple values for keyword argument 'scale'"):
        st.grad(f)(X)


def test_too_many_positional_arguments_for_a_callee_is_located():
    def f(x):
        return np.sum(h_xy(x, x, x))

    with pytest.raises(CompileError, match="takes 2 positional arguments but 3 were given"):
        st.grad(f)(X)


# --- *args and **kwargs of the differentiated function ---------------------------------------

def top_star(*xs):
    return total(*xs) + np.sum(xs[0] * xs[-1])


def test_top_level_star_args_differentiates_by_call_position():
    g = st.grad(top_star)
    np.testing.assert_allclose(g(X, Y), fd(top_star, (X, Y), 0), rtol=1e-6)
    g2 = st.grad(top_star, wrt=(0, -1))
    g0, g_last = g2(X, Y, X * Y)
    np.testing.assert_allclose(g0, fd(top_star, (X, Y, X * Y), 0), rtol=1e-6)
    np.testing.assert_allclose(g_last, fd(top_star, (X, Y, X * Y), 2), rtol=1e-6)


def test_top_level_star_args_length_is_part_of_the_specialisation():
    g = st.grad(top_star)
    g(X, Y)
    g(X, Y, Y)
    g(X + 1.0, Y, Y)
    assert len(g._cache) == 2


def test_wrt_naming_star_args_is_refused_with_a_hint():
    with pytest.raises(WrtError, match=r"name its values by position"):
        st.grad(top_star, wrt="xs")(X, Y)


def test_top_level_star_kwargs_keys_are_part_of_the_specialisation():
    def f(x, **kw):
        return np.sum(x * kw["a"]) + 10.0 * np.sum(x * kw["b"])

    g = st.grad(f)
    np.testing.assert_allclose(g(X, a=1.0, b=2.0), 21.0 * np.ones(3))
    np.testing.assert_allclose(g(X, b=1.0, a=2.0), 12.0 * np.ones(3))  # same keys, other order
    assert len(g._cache) == 2


def test_wrt_names_a_key_passed_through_star_kwargs():
    def f(x, **kw):
        return np.sum(x * kw["s"] ** 2)

    gs = st.grad(f, wrt="s")(X, s=1.5)
    assert gs == pytest.approx(fd(f, (X,), kwargs={"s": 1.5}, key="s"))


def test_reassigned_defaults_of_the_differentiated_function_are_used():
    def f(x, s=2.0):
        return np.sum(x) * s

    g = st.grad(f)
    np.testing.assert_allclose(g(X), 2.0 * np.ones(3))
    f.__defaults__ = (5.0,)
    np.testing.assert_allclose(g(X), 5.0 * np.ones(3))


# --- bound methods ---------------------------------------------------------------------------

class Model:
    def __init__(self) -> None:
        self.w = np.array([1.0, -2.0, 0.5])
        self.lam = 0.25

    def penalty(self, x):
        return self.lam * np.sum(x ** 2)

    def loss(self, x, *, scale=1.0):
        return scale * np.sum(np.sin(self.w * x)) + self.penalty(x)

    @classmethod
    def cls_loss(cls, x):
        return np.sum(x ** 2) * cls.factor

    factor = 3.0


def test_gradient_of_a_bound_method():
    m = Model()
    g = st.grad(m.loss)
    np.testing.assert_allclose(g(X), fd(m.loss, (X,)), rtol=1e-6)
    np.testing.assert_allclose(g(X, scale=2.0), fd(m.loss, (X,), kwargs={"scale": 2.0}),
                               rtol=1e-6)


def test_gradient_of_a_classmethod():
    np.testing.assert_allclose(st.grad(Model.cls_loss)(X), 6.0 * X)


def test_method_called_inside_a_differentiated_function():
    m = Model()

    def f(x):
        return m.loss(x) * 2.0

    np.testing.assert_allclose(st.grad(f)(X), fd(f, (X,)), rtol=1e-6)


# --- gradients of gradients keep the binding --------------------------------------------------

def test_gradient_called_with_a_keyword_inside_a_differentiated_function():
    gl = st.grad(loss)

    def f(w):
        return np.sum(gl(w, lam=0.5) ** 2)

    def ref(w):
        return np.sum((2.0 * w + 0.5) ** 2)

    np.testing.assert_allclose(st.grad(f)(W), fd(ref, (W,)), rtol=1e-6)


def test_second_derivative_of_a_function_with_keyword_only_parameter():
    gg = st.grad(lambda w: np.sum(st_grad_loss(w, lam=3.0) ** 3))

    def ref(w):
        return np.sum((2.0 * w + 3.0) ** 3)

    np.testing.assert_allclose(gg(W), fd(ref, (W,)), rtol=1e-5)


st_grad_loss = st.grad(loss)


def test_cli_dump_binds_keyword_only_and_positional_only_parameters(tmp_path, capsys):
    from st_autodiff.cli import main

    path = tmp_path / "kwonly_model.py"
    path.write_text("import numpy as np\n\n\ndef loss(w, /, b, *, lam=0.1):\n"
                    "    return np.sum(w ** 2) + lam * np.sum(w * b)\n")
    assert main(["dump", f"{path}:loss", "--wrt", "w,lam", "--arg", "w=f64[2]",
                 "--arg", "b=f64[2]"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("def loss_grad(w, b, lam, out_bar=1.0):"), out
    assert "return w_bar, lam_bar" in out


# --- vjp, jvp and Hessians bind their positional primals the same way ------------------------

def with_defaults(w, s=2.0, *, lam=0.5):
    return np.sum(s * w ** 2) + lam * np.sum(w)


def test_vjp_of_a_function_with_defaults_and_keyword_only_parameters():
    out, pull = st.vjp(with_defaults, W)
    assert out == pytest.approx(with_defaults(W))
    (gw,) = pull(1.0)  # one cotangent per primal given
    np.testing.assert_allclose(gw, fd(with_defaults, (W,)), rtol=1e-6)
    out, pull = st.vjp(with_defaults, W, 3.0)
    gw, gs = pull(2.0)
    np.testing.assert_allclose(gw, 2.0 * fd(with_defaults, (W, 3.0), 0), rtol=1e-6)
    assert gs == pytest.approx(2.0 * fd(with_defaults, (W, 3.0), 1))


def test_jvp_tangents_never_land_in_a_defaulted_parameter():
    t = np.array([1.0, -1.0])
    out, dout = st.jvp(with_defaults, (W,), (t,))
    assert out == pytest.approx(with_defaults(W))
    assert dout == pytest.approx(float(fd(with_defaults, (W,)) @ t), rel=1e-6)


def test_hessian_of_a_function_with_keyword_only_parameter():
    np.testing.assert_allclose(st.hessian(with_defaults)(W), 4.0 * np.eye(2))


class Quadratic:
    def __init__(self, a):
        self.a = a

    def __call__(self, x, *, shift=0.0):
        return np.sum(self.a * (x - shift) ** 2)


def test_gradient_of_a_callable_object_reads_its_call_method():
    q = Quadratic(np.array([1.0, 3.0]))
    g = st.grad(q)
    np.testing.assert_allclose(g(W), fd(q, (W,)), rtol=1e-6)
    np.testing.assert_allclose(g(W, shift=1.0), fd(q, (W,), kwargs={"shift": 1.0}), rtol=1e-6)
    q.a = np.array([2.0, 2.0])  # an attribute it read: guarded
    np.testing.assert_allclose(g(W), 4.0 * W)


def test_decorator_wrapper_with_star_args_and_star_kwargs():
    def deco(fn):
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs)
        return wrapper

    @deco
    def inner(x, s=1.0):
        return np.sum(x ** 2) * s

    def outer(x):
        return inner(x, s=3.0)

    np.testing.assert_allclose(st.grad(outer)(W), 6.0 * W)
    np.testing.assert_allclose(st.grad(inner)(W, s=2.0), 4.0 * W)
