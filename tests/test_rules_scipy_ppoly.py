"""SciPy's compiled piecewise-polynomial evaluation (``_ppoly.evaluate``, behind
``CubicSpline``, ``PPoly``, ``Akima1DInterpolator``) read through its selector
(``st_autodiff/decompositions/select_ppoly.py``): values equal SciPy's, gradients (to the
data, the points and the breakpoints) match float64 central differences, forward mode and
Hessian agree."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rules import Case, check_gradient, check_hessian, check_jvp, check_value

import st_autodiff as st
from st_autodiff.errors import StaticRaiseError

interpolate = pytest.importorskip("scipy.interpolate")

XS = np.linspace(0.0, 2.0, 7)
YS = np.sin(3 * XS)
PTS = np.array([0.1, 0.7, 1.5, 2.0])  # 2.0: the last interval is closed


def _spline(y):
    return interpolate.CubicSpline(XS, y)(PTS)


def _spline_derivatives(y):
    spline = interpolate.CubicSpline(XS, y)
    return spline(PTS, 1) + spline(PTS, 2) * 0.5 + spline(PTS, 3) * 0.1


def _spline_at(p):
    return interpolate.CubicSpline(XS, YS)(p)


def _spline_2d(y):
    return interpolate.CubicSpline(XS, y, axis=0)(PTS)


def _ppoly(c, x):
    return interpolate.PPoly(c, x)(np.array([-0.5, 0.25, 1.0, 1.75, 3.0]))


def _ppoly_no_extrapolate(c):
    return interpolate.PPoly(c, np.array([0.0, 1.0, 2.0]), extrapolate=False)(
        np.array([0.25, 1.0, 1.75]))


def _akima(y):
    return interpolate.Akima1DInterpolator(XS, y)(PTS)


CASES = [
    Case("cubic_spline", _spline, (YS,)),
    Case("cubic_spline_derivatives", _spline_derivatives, (YS,)),
    Case("cubic_spline_wrt_points", _spline_at, (np.array([0.1, 0.7, 1.45]),)),
    Case("cubic_spline_2d", _spline_2d, (np.stack([YS, YS ** 2], axis=1),)),
    Case("ppoly_breakpoints", _ppoly, (np.random.default_rng(1).standard_normal((3, 2)),
                                       np.array([0.0, 1.2, 2.0]))),
    Case("ppoly_no_extrapolate", _ppoly_no_extrapolate,
         (np.random.default_rng(2).standard_normal((4, 2)),)),
]
IDS = [c.id for c in CASES]


@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_value_matches_scipy(c: Case) -> None:
    check_value(Case(c.id, c.fn, c.args, exact=False))


@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_gradient_matches_central_differences(c: Case) -> None:
    check_gradient(c)


@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_jvp_agrees_with_gradient(c: Case) -> None:
    check_jvp(c)


@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_hessian_vector_product(c: Case) -> None:
    check_hessian(c)


def test_outside_without_extrapolation_is_nan_like_scipy() -> None:
    def loss(c):
        return interpolate.PPoly(c, np.array([0.0, 1.0]), extrapolate=False)(
            np.array([0.5, 1.5]))[1]

    c = np.ones((2, 1))
    assert np.isnan(st.value_and_grad(loss)(c)[0]) and np.isnan(loss(c))


def test_akima_value_matches_scipy() -> None:
    value = st.value_and_grad(lambda y: np.sum(_akima(y)))(YS)[0]
    np.testing.assert_allclose(value, np.sum(_akima(YS)), rtol=1e-13)


def test_decreasing_breakpoints_are_an_error_not_a_misread() -> None:
    """Constant breakpoints are checked while compiling (a located error); breakpoints
    known only at run time are checked when the code runs."""
    def loss(c):
        return np.sum(interpolate.PPoly(c, np.array([2.0, 1.0, 0.0]))(np.array([0.5])))

    with pytest.raises(StaticRaiseError, match="decreasing breakpoints") as info:
        st.grad(loss)(np.ones((2, 2)))
    assert "test_rules_scipy_ppoly.py" in str(info.value)

    def runtime_breaks(c, x):
        return np.sum(interpolate.PPoly(c, x)(np.array([0.5])))

    with pytest.raises(ValueError, match="decreasing breakpoints"):
        st.grad(runtime_breaks)(np.ones((2, 2)), np.array([2.0, 1.0, 0.0]))


def test_constant_spline_times_a_runtime_weight() -> None:
    def loss(w):
        return np.sum(w * interpolate.CubicSpline(XS, YS)(PTS))

    w = np.arange(4.0)
    value, grad = st.value_and_grad(loss)(w)
    np.testing.assert_allclose(value, loss(w), rtol=1e-13)
    np.testing.assert_allclose(grad, interpolate.CubicSpline(XS, YS)(PTS), rtol=1e-13)
