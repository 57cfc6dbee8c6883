"""``scipy.integrate``: ``odeint`` and ``solve_ivp`` (adjoint and forward sensitivity
rules, ``st_autodiff/decompositions/integrate_kernels.py``), ``quad`` (Leibniz's rule)
and the sampled rules ``trapezoid``, ``simpson``, ``cumulative_trapezoid`` and
``cumulative_simpson`` (compiled from SciPy's source).

The ODE derivatives are those of the exact solution computed to the solver's tolerance,
so they are compared with closed forms and with central differences of SciPy's own
solve at ``rtol = atol = 1e-10``, to about ``1e-5``; the values are SciPy's, bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest

import st_autodiff as st

si = pytest.importorskip("scipy.integrate")
linalg = pytest.importorskip("scipy.linalg")

TOL = {"rtol": 1e-10, "atol": 1e-10}
T5 = np.linspace(0.0, 1.0, 5)
Y0 = np.array([1.0, 0.5])
P = np.array([1.1, 0.4])
A = np.array([[-0.5, 1.0], [-1.0, -0.3]])
W = np.array([[0.3, -1.2], [0.7, 0.4], [-0.5, 1.1], [0.9, 0.2], [1.3, -0.8]])


def fd(fn, args, i, h=1e-6):
    """Central differences of ``fn`` in argument ``i`` (an array or a float)."""
    x = np.array(args[i], dtype=np.float64)
    out = np.zeros(x.shape)
    for k in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[k] += h
        lo[k] -= h
        up, down = list(args), list(args)
        up[i], down[i] = (hi, lo) if x.ndim else (float(hi), float(lo))
        out[k] = (fn(*up) - fn(*down)) / (2 * h)
    return out


def check_fd(fn, args, wrt, tol=1e-5):
    grads = st.grad(fn, wrt=wrt)(*args)
    grads = grads if isinstance(grads, tuple) else (grads,)
    for i, g in zip(wrt, grads):
        np.testing.assert_allclose(g, fd(fn, args, i), rtol=tol, atol=tol)
    return grads


# --- right-hand sides (module level: the solver's function is a static value) -------------


def decay(y, t, k):
    return -k * y


def linear(y, t, a):
    return a @ y


def lotka(y, t, p):
    return np.array([p[0] * y[0] - p[1] * y[0] * y[1], p[1] * y[0] * y[1] - 0.7 * y[1]])


def lotka_list(y, t, a, b):
    return [a * y[0] - b * y[0] * y[1], b * y[0] * y[1] - 0.7 * y[1]]


def forced(t, y, w):
    return -y + np.sin(w * t)


def lotka_ivp(t, y, a, b):
    return np.array([a * y[0] - b * y[0] * y[1], b * y[0] * y[1] - 0.7 * y[1]])


def stepped(y, t, k, n):
    return -k * y * n


# --- odeint -----------------------------------------------------------------------------


def decay_loss(y0, k, t):
    return np.sum(si.odeint(decay, y0, t, args=(k,), **TOL) * W)


def decay_closed(y0, k, t):
    return np.sum(y0[None, :] * np.exp(-k * (t - t[0]))[:, None] * W)


def test_decay_value_is_scipys():
    value, _ = st.value_and_grad(decay_loss, wrt=(0, 1))(Y0, 0.7, T5)
    assert value == decay_loss(Y0, 0.7, T5)


def test_decay_matches_closed_form_in_y0_k_and_every_t():
    got = st.grad(decay_loss, wrt=(0, 1, 2))(Y0, 0.7, T5)
    want = st.grad(decay_closed, wrt=(0, 1, 2))(Y0, 0.7, T5)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-7)


def test_decay_forward_mode_matches_closed_form():
    tangents = (np.array([0.3, -1.0]), 0.5, np.linspace(0.1, -0.2, 5))
    _, got = st.jvp(decay_loss, (Y0, 0.7, T5), tangents)
    _, want = st.jvp(decay_closed, (Y0, 0.7, T5), tangents)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def linear_loss(y0, a, t):
    return np.sum(si.odeint(linear, y0, t, args=(a,), **TOL) * W)


def test_linear_system_against_matrix_exponential():
    def closed(y0, a, t):
        ys = np.stack([linalg.expm(a * (tk - t[0])) @ y0 for tk in t])
        return np.sum(ys * W)

    got = st.grad(linear_loss, wrt=(0, 1, 2))(Y0, A, T5)
    for i, g in enumerate(got):
        np.testing.assert_allclose(g, fd(closed, (Y0, A, T5), i), rtol=1e-6, atol=1e-7)


def lotka_loss(y0, p, t):
    return np.sum(si.odeint(lotka, y0, t, args=(p,), **TOL) ** 2)


def test_lotka_volterra_against_finite_differences():
    check_fd(lotka_loss, (Y0, P, np.linspace(0.0, 3.0, 7)), (0, 1, 2))


def test_lotka_volterra_forward_mode_agrees_with_reverse():
    args = (Y0, P, np.linspace(0.0, 3.0, 7))
    grads = st.grad(lotka_loss, wrt=(0, 1, 2))(*args)
    tangents = (np.array([0.2, -0.4]), np.array([1.0, 0.3]), np.linspace(-0.1, 0.2, 7))
    _, tan = st.jvp(lotka_loss, args, tangents)
    np.testing.assert_allclose(tan, sum(np.sum(g * d) for g, d in zip(grads, tangents)),
                               rtol=1e-6)


def test_parameters_as_several_args_and_a_list_output():
    def loss(y0, a, b):
        return np.sum(si.odeint(lotka_list, y0, T5 * 2, args=(a, b), **TOL)[-1])

    check_fd(loss, (Y0, 1.1, 0.4), (0, 1, 2))


def test_integer_args_are_constants():
    def loss(y0, k):
        return np.sum(si.odeint(stepped, y0, T5, args=(k, 2), **TOL))

    check_fd(loss, (Y0, 0.3), (0, 1))


def test_tfirst_and_a_scalar_state():
    def loss(y0, w):
        return np.sum(si.odeint(forced, y0, T5 * 3, args=(w,), tfirst=True, **TOL))

    check_fd(loss, (0.4, 2.0), (0, 1))


def test_time_grid_gradients_against_finite_differences():
    t = np.array([0.2, 0.5, 1.1, 1.7])
    check_fd(lambda_free_grid_loss, (t,), (0,))


def lambda_free_grid_loss(t):
    return np.sum(si.odeint(lotka, Y0, t, args=(P,), **TOL) * np.arange(8.0).reshape(4, 2))


def relax(y, t, k):
    return -k * (y - np.sin(t))


def relax_ivp(t, y, k):
    return -k * (y - np.sin(t))


def relax_closed(k, tf):
    return (k * k * np.sin(tf) - k * np.cos(tf) + k * np.exp(-k * tf)) / (1 + k * k)


@pytest.mark.parametrize("k", [50.0, 500.0])
def test_stiff_relaxation_parameter_gradient(k):
    """A dissipative system: integrating the state backwards would amplify its error like
    exp(k t); the adjoint reads the state from a forward dense solve instead."""
    def loss(k, tf):
        return si.odeint(relax, np.array([0.0]), np.array([0.0, tf]), args=(k,), **TOL)[-1, 0]

    def loss_ivp(k, tf):
        return si.solve_ivp(relax_ivp, (0.0, tf), np.array([0.0]), method="Radau",
                            t_eval=[tf], args=(k,), **TOL).y[0, 0]

    want = st.grad(relax_closed, wrt=(0, 1))(k, 3.0)
    for fn in (loss, loss_ivp):
        got = st.grad(fn, wrt=(0, 1))(k, 3.0)
        np.testing.assert_allclose(got, want, rtol=2e-5)


@pytest.mark.parametrize("t", [np.array([2.0, 1.5, 0.3]), np.array([0.7]),
                               np.array([0.0, 0.5, 0.5, 1.0])],
                         ids=["decreasing", "one-time", "repeated-time"])
def test_time_grids_backwards_single_and_repeated(t):
    def loss(y0, p, t):
        return np.sum(si.odeint(lotka, y0, t, args=(p,), **TOL) ** 2)

    repeated = len(np.unique(t)) < len(t)  # (moving one of two equal times breaks the order)
    check_fd(loss, (Y0, P, t), (0, 1) if repeated else (0, 1, 2))


def test_step_limits_and_an_atol_per_component():
    def loss(y0, p):
        return np.sum(si.odeint(lotka, y0, [0.0, 1.0], args=(p,), hmax=0.01, rtol=1e-10,
                                atol=np.array([1e-10, 1e-11])))

    check_fd(loss, (Y0, P), (0, 1))


def test_solve_ivp_backwards_in_time_and_vectorized():
    def back(y0, a):
        return np.sum(si.solve_ivp(lotka_ivp, (1.0, 0.0), y0, t_eval=[0.6, 0.0],
                                   method="LSODA", args=(a, 0.4), **TOL).y)

    def vectorized(y0, a):
        return np.sum(si.solve_ivp(lotka_ivp, (0.0, 1.0), y0, t_eval=[0.5, 1.0],
                                   vectorized=True, args=(a, 0.4), **TOL).y)

    check_fd(back, (Y0, 1.1), (0, 1))
    check_fd(vectorized, (Y0, 1.1), (0, 1))


def test_default_tolerances_are_close_not_exact():
    def loss(y0):
        return np.sum(si.odeint(decay, y0, T5, args=(0.7,)))

    np.testing.assert_allclose(st.grad(loss)(Y0), np.sum(np.exp(-0.7 * T5)), rtol=1e-6)


def test_float32_state_follows_scipy():
    y0 = Y0.astype(np.float32)

    def loss(y0, k):
        out = si.odeint(decay, y0, T5, args=(k,), **TOL)
        return np.sum(out * W)

    value, (gy, gk) = st.value_and_grad(loss, wrt=(0, 1))(y0, np.float32(0.7))
    assert value == loss(y0, np.float32(0.7))  # odeint computes in float64
    assert gy.dtype == np.float32 and np.asarray(gk).dtype == np.float32
    np.testing.assert_allclose(gy, st.grad(decay_closed)(Y0, 0.7, T5), rtol=1e-5)


# --- solve_ivp --------------------------------------------------------------------------


def ivp_loss(y0, p, t0, method="RK45"):
    te = np.linspace(t0, 2.0, 5)
    sol = si.solve_ivp(lotka_ivp, (t0, 2.0), y0, method=method, t_eval=te, args=(p[0], p[1]),
                       **TOL)
    return np.sum(sol.y ** 2) + np.sum(sol.t)


@pytest.mark.parametrize("method", ["RK45", "DOP853", "RK23", "LSODA", "Radau", "BDF"])
def test_solve_ivp_methods_against_finite_differences(method):
    def loss(y0, p, t0):
        return ivp_loss(y0, p, t0, method)

    value, _ = st.value_and_grad(loss, wrt=(0, 1, 2))(Y0, P, 0.1)
    assert value == loss(Y0, P, 0.1)
    check_fd(loss, (Y0, P, 0.1), (0, 1, 2), tol=2e-5)


def test_solve_ivp_end_point_through_t_eval():
    def loss(y0, tf):
        sol = si.solve_ivp(lotka_ivp, (0.0, tf), y0, t_eval=[tf], args=(1.1, 0.4), **TOL)
        return np.sum(sol.y[:, -1] ** 2)

    check_fd(loss, (Y0, 1.5), (0, 1))


def test_solve_ivp_forward_mode():
    args = (Y0, P, 0.1)
    grads = st.grad(ivp_loss, wrt=(0, 1, 2))(*args)
    tangents = (np.array([1.0, -0.5]), np.array([0.2, 0.7]), 0.3)
    _, tan = st.jvp(ivp_loss, args, tangents)
    np.testing.assert_allclose(tan, sum(np.sum(g * d) for g, d in zip(grads, tangents)),
                               rtol=1e-6)


def test_solve_ivp_result_fields():
    def loss(y0):
        sol = si.solve_ivp(lotka_ivp, (0.0, 1.0), y0, t_eval=T5, args=(1.1, 0.4), **TOL)
        assert sol.success
        return np.sum(sol.y[0]) * sol.status + np.sum(sol.y[1])

    check_fd(loss, (Y0,), (0,))


def test_a_right_hand_side_passed_as_an_argument():
    def loss(y0, k, rhs):
        return np.sum(si.odeint(rhs, y0, T5, args=(k,), **TOL) * W)

    got = st.grad(loss, wrt=(0, 1))(Y0, 0.7, decay)
    want = st.grad(decay_closed, wrt=(0, 1))(Y0, 0.7, T5)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_constant_lists_for_y0_and_t():
    def loss(k):
        return np.sum(si.odeint(decay, [1.0, 0.5], [0, 1, 2], args=(k,), **TOL))

    np.testing.assert_allclose(st.grad(loss)(0.3), fd(loss, (0.3,), 0), rtol=1e-6)


def test_jacobians_of_the_readings():
    def end(y0, k):
        return si.odeint(decay, y0, T5, args=(k,), **TOL)[-1]

    for jac in (st.jacrev(end, wrt=(0, 1)), st.jacfwd(end, wrt=(0, 1))):
        jy, jk = jac(Y0, 0.7)
        np.testing.assert_allclose(jy, np.exp(-0.7) * np.eye(2), rtol=1e-7)
        np.testing.assert_allclose(jk, -Y0 * np.exp(-0.7), rtol=1e-7)


# --- quad -------------------------------------------------------------------------------


def gauss(x, s, c):
    return np.exp(-(x - c[0]) ** 2 / s) * c[1]


def quad_loss(a, b, s, c):
    value, _err = si.quad(gauss, a, b, args=(s, c))
    return value ** 2


QUAD_ARGS = (0.1, 1.3, 0.7, np.array([0.4, 1.5]))


def test_quad_in_its_limits_and_args():
    value, _ = st.value_and_grad(quad_loss, wrt=(0,))(*QUAD_ARGS)
    assert value == quad_loss(*QUAD_ARGS)
    check_fd(quad_loss, QUAD_ARGS, (0, 1, 2, 3), tol=1e-7)


def test_quad_forward_mode_and_infinite_limits():
    grads = st.grad(quad_loss, wrt=(0, 1, 2, 3))(*QUAD_ARGS)
    tangents = (0.3, -0.2, 0.5, np.array([1.0, 2.0]))
    _, tan = st.jvp(quad_loss, QUAD_ARGS, tangents)
    np.testing.assert_allclose(tan, sum(np.sum(g * d) for g, d in zip(grads, tangents)),
                               rtol=1e-8)

    def whole_line(s, c):
        return si.quad(gauss, -np.inf, np.inf, args=(s, c))[0]

    gs, gc = st.grad(whole_line, wrt=(0, 1))(0.7, QUAD_ARGS[3])
    np.testing.assert_allclose(gs, 1.5 * np.sqrt(np.pi) / (2 * np.sqrt(0.7)), rtol=1e-7)
    np.testing.assert_allclose(gc, [0.0, np.sqrt(0.7 * np.pi)], rtol=1e-7, atol=1e-9)


def test_quad_refuses_weights():
    def loss(s):
        return si.quad(gauss, 0, 1, args=(s, QUAD_ARGS[3]), weight="cos", wvar=2.0)[0]

    _refused(loss, (0.7,), "weight=")


# --- what is refused --------------------------------------------------------------------


def _refused(fn, args, match):
    with pytest.raises(st.StAutodiffError, match=match) as info:
        st.grad(fn)(*args)
    assert "test_rules_integrate.py" in str(info.value)  # located at the user's call
    return info.value


def test_events_and_dense_output_are_located_errors():
    def events(y0):
        def hit(t, y):
            return y[0] - 0.5

        return np.sum(si.solve_ivp(lotka_ivp, (0, 1), y0, t_eval=T5, events=hit,
                                   args=(1.1, 0.4)).y)

    def dense(y0):
        return np.sum(si.solve_ivp(lotka_ivp, (0, 1), y0, t_eval=T5, dense_output=True,
                                   args=(1.1, 0.4)).y)

    def no_t_eval(y0):
        return np.sum(si.solve_ivp(lotka_ivp, (0, 1), y0, args=(1.1, 0.4)).y)

    _refused(events, (Y0,), "events= is not supported")
    _refused(dense, (Y0,), "dense_output=True is not supported")
    _refused(no_t_eval, (Y0,), "t_eval= is needed")


def test_unsupported_odeint_options_are_located_errors():
    def full(y0):
        return np.sum(si.odeint(decay, y0, T5, args=(0.5,), full_output=True)[0])

    def jac(y0):
        return np.sum(si.odeint(decay, y0, T5, args=(0.5,), Dfun=lambda y, t, k: -k))

    def listed(y0):
        return np.sum(si.odeint(decay, y0, T5, args=[0.5]))

    _refused(full, (Y0,), "full_output=True is not supported")
    _refused(jac, (Y0,), "Dfun=")
    _refused(listed, (Y0,), "Extra arguments must be in a tuple")


def test_a_right_hand_side_defined_inside_is_a_located_error():
    def loss(y0, k):
        return np.sum(si.odeint(lambda y, t: -k * y, y0, T5))

    with pytest.raises(st.CompileError, match="pass the values it uses through args="):
        st.grad(loss)(Y0, 0.5)


def opaque(y, t):
    return np.asarray(sorted(y.tolist()))


def test_a_right_hand_side_the_compiler_cannot_read_is_a_clear_error():
    def loss(y0):
        return np.sum(si.odeint(opaque, y0, T5))

    err = _refused(loss, (Y0,), "odeint's func opaque cannot be differentiated")
    assert "sorted" in str(err) or "tolist" in str(err)


def test_a_solve_of_constants_needs_no_derivative_of_its_function():
    def loss(w):
        return np.sum(w * si.odeint(opaque, np.array([2.0, 1.0]), T5))

    w = np.linspace(0.5, 1.5, 10).reshape(5, 2)
    np.testing.assert_array_equal(st.grad(loss)(w), si.odeint(opaque, np.array([2.0, 1.0]),
                                                              T5))


def test_second_order_is_a_located_error_not_a_wrong_value():
    def loss(y0):
        return np.sum(si.odeint(decay, y0, T5, args=(0.5,)) ** 2)

    for hessian in (st.hessian(loss), st.hessian(loss, mode="reverse")):
        with pytest.raises(st.StAutodiffError, match="differentiated again|not supported"):
            hessian(Y0)


# --- quadrature -------------------------------------------------------------------------

X7 = np.array([0.0, 0.3, 0.45, 0.9, 1.4, 1.5, 2.1])
Y7 = np.cos(X7) + 1.5


@pytest.mark.parametrize("fn", [
    lambda y, x: si.trapezoid(y ** 2, x),
    lambda y, x: si.trapezoid(y ** 2, dx=0.3),
    lambda y, x: si.simpson(y ** 2, dx=0.25),
    lambda y, x: np.sum(si.cumulative_trapezoid(y ** 2, x, initial=0) * x),
    lambda y, x: np.sum(si.cumulative_trapezoid(y ** 2, x) ** 2),
    lambda y, x: np.sum(si.cumulative_simpson(y ** 2, x=x) * x[1:]),
    lambda y, x: np.sum(si.cumulative_simpson(y ** 2, x=x, initial=0.5) * x),
    lambda y, x: np.sum(si.trapezoid(np.outer(y, x), x, axis=0)),
], ids=["trapezoid-x", "trapezoid-dx", "simpson-dx-odd",
        "cumtrapz-initial", "cumtrapz", "cumsimpson", "cumsimpson-initial",
        "trapezoid-axis0"])
def test_quadrature_in_y_and_x(fn):
    def loss(y, x):
        return fn(y, x)

    value, _ = st.value_and_grad(loss, wrt=(0, 1))(Y7, X7)
    np.testing.assert_allclose(value, fn(Y7, X7), rtol=1e-13)
    check_fd(loss, (Y7, X7), (0, 1), tol=1e-7)



@pytest.mark.parametrize("odd", [True, False])
def test_simpson_with_sample_points(odd):
    """``simpson(y, x=x)``: differentiable in y and x, SciPy 1.18's array-API version too
    (its ``apply_where`` asks array_api_compat for the namespace of computed 0-d values,
    answered on their stand-ins)."""
    n = 7 if odd else 6

    def loss(y, x):
        return si.simpson(y[:n] ** 2, x=x[:n])

    value, _ = st.value_and_grad(loss, wrt=(0, 1))(Y7, X7)
    np.testing.assert_allclose(value, loss(Y7, X7), rtol=1e-13)
    check_fd(loss, (Y7, X7), (0, 1), tol=1e-7)
