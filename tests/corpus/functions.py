"""Corpus functions: the language subset and the NumPy API, one feature group at a time.

Every function here is registered with ``@case`` (see ``registry``); the helpers and
constants at the top are *called* by corpus functions (the compiler inlines them) and
are not registered themselves.  No ``if``/``for``/``while`` statements: the compiler
does not support statement-level control flow yet.
"""

from __future__ import annotations

import math

import numpy as np

from .registry import case, normal, separated, spd, uniform, well_conditioned

# --- module-level constants read by corpus functions --------------------------------------

SCALE = 0.75
OFFSET = -0.25
EXPONENT = 3
WEIGHTS = np.array([0.5, -1.0, 2.0, 0.25])
MIXING = np.array([[1.0, 0.5, -0.25], [0.0, 2.0, 1.0], [0.75, -1.5, 0.5]])
ROW_IDX = np.array([2, 0, 0, 1])


# --- helpers (called, inlined; never registered) ------------------------------------------


def _affine(x, w, b=0.1):
    return x @ w + b


def _softplus(t):
    return np.logaddexp(0.0, t)


def _smooth_act(t, kind="tanh"):
    return np.tanh(t) if kind == "tanh" else _softplus(t)


def _layer(x, w, b, scale=1.0):
    return _smooth_act(_affine(x, w, b=b) * scale)


def _scaled_power(x, scale=2.0, power=EXPONENT):
    return scale * x**power


def _moments(x):
    m = np.mean(x)
    return m, np.mean((x - m) ** 2)


def _apply_twice(f, x):
    return f(f(x))


def _softmax(z, axis=-1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _logsumexp(z, axis=-1):
    m = np.max(z, axis=axis, keepdims=True)
    return np.squeeze(m, axis=axis) + np.log(np.sum(np.exp(z - m), axis=axis))


# --- elementwise math ---------------------------------------------------------------------


@case("elementwise", lambda r: (normal(r, 6),))
def elem_trig(x):
    return np.sum(np.sin(x) * np.cos(2.0 * x) + np.tan(x / 3.0))


@case("elementwise", lambda r: (normal(r, 2, 3),))
def elem_exp_log(x):
    return np.sum(np.log1p(np.exp(x)) - np.expm1(x / 4.0) + np.exp2(x / 2.0))


@case("elementwise", lambda r: (normal(r, 5, scale=0.7),))
def elem_hyperbolic(x):
    y = np.sinh(x) * np.cosh(x) / (1.0 + np.tanh(x) ** 2)
    return np.sum(y + np.arcsinh(x) + np.arccosh(2.0 + x**2))


@case("elementwise", lambda r: (uniform(r, -0.8, 0.8, 7),))
def elem_inverse_trig(x):
    return np.sum(np.arcsin(x) + 2.0 * np.arccos(x) - np.arctan(x) * np.arctanh(x))


@case("elementwise", lambda r: (uniform(r, 0.5, 2.0, 3, 2),))
def elem_powers(x):
    y = np.sqrt(x) + np.cbrt(x) + np.square(x) - np.reciprocal(x)
    return np.sum(y * x**2.5 + 2.0**x - x**-0.5)


@case("elementwise", lambda r: (uniform(r, 0.5, 3.0, 5),))
def elem_logs(x):
    return np.sum(np.log(x) * np.log2(x) + np.log10(x + 1.0))


@case("elementwise", lambda r: (normal(r, 4), uniform(r, 0.5, 1.5, 4)), (0, 1))
def elem_binary(x, y):
    z = np.arctan2(x, y) + np.hypot(x, y) + np.logaddexp(x, y) - np.logaddexp2(y, x)
    return np.sum(z * np.power(y, 1.5))


@case("elementwise", lambda r: (separated(r, 8), separated(r, 8) + 0.05), (0, 1))
def elem_max_min(x, y):
    return np.sum(np.maximum(x, y) * 2.0 - np.minimum(x, y) + np.fmax(x, 0.3 * y)
                  - np.fmin(x, y) ** 2)


@case("elementwise", lambda r: (separated(r, 3, 4),))
def elem_abs_sign(x):
    return np.sum(np.abs(x) * np.sign(x) + np.absolute(x) ** 1.5 + abs(x))


@case("elementwise", lambda r: (separated(r, 10, gap=0.37, lo=-1.7),))
def elem_clip(x):
    return np.sum(np.clip(x, -0.5, 0.75) ** 2 + np.clip(x, None, 0.2) * x.clip(min=-1.0))


@case("elementwise", lambda r: (normal(r, 4), 0.7), (0, 1))
def elem_scalar_math(x, a):
    return math.sin(a) * np.sum(x) + math.exp(a) * np.sum(np.deg2rad(x)) + np.rad2deg(a)


@case("elementwise", lambda r: (normal(r, 3), normal(r, 3)), (1, 0))
def elem_arithmetic(x, y):
    return np.sum(-x + (+y) - x * y / (1.0 + y**2) + np.divide(x, 2.0) - np.subtract(y, x)
                  + np.multiply(x, np.negative(y)) + np.add(x, 1.0))


# --- reductions and scans -----------------------------------------------------------------


@case("reduction", lambda r: (normal(r, 2, 3, 4),))
def red_sum_axes(x):
    a = x.sum(axis=0)
    b = np.sum(x, axis=(0, 2))
    c = np.sum(x, axis=-1, keepdims=True)
    return np.sum(a**2) + np.sum(b * b) + np.sum(c * x)


@case("reduction", lambda r: (normal(r, 3, 5),))
def red_mean_var_std(x):
    return np.sum(np.var(x, axis=1)) + np.sum(x.std(axis=0, ddof=1)) + np.mean(x, axis=0)[1]


@case("reduction", lambda r: (uniform(r, 0.5, 1.5, 3, 4),))
def red_prod(x):
    return np.sum(np.prod(x, axis=1)) + x.prod()


@case("reduction", lambda r: (separated(r, 4, 5),))
def red_max_min(x):
    return np.sum(x.max(axis=0)) - np.sum(np.min(x, axis=1, keepdims=True) * x) + np.amax(x)


@case("reduction", lambda r: (uniform(r, 0.5, 1.5, 3, 4),))
def red_scans(x):
    return np.sum(np.cumsum(x, axis=1) ** 2) + np.sum(np.cumprod(x, axis=0)) + x.cumsum()[-1]


@case("reduction", lambda r: (normal(r, 3, 5),))
def red_logsumexp(x):
    m = x.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.sum(np.exp(x - m), axis=1))
    return np.sum(lse)


@case("reduction", lambda r: (normal(r, 3, 4),))
def red_norms(x):
    return (np.linalg.norm(x) + np.sum(np.linalg.norm(x, axis=1))
            + np.linalg.norm(x[0], ord=1) + np.linalg.norm(x[1], ord=3))


@case("reduction", lambda r: (normal(r, 4, 3),))
def red_centered(x):
    c = x - x.mean(keepdims=True)
    d = x - x.mean(axis=0, keepdims=True)
    return np.sum(c**3) + np.sum(d * c)


# --- linear algebra -----------------------------------------------------------------------


@case("linalg", lambda r: (normal(r, 3, 4), normal(r, 4, 2), normal(r, 2, 3)), (0, 1, 2))
def la_matmul_chain(a, b, c):
    return np.trace(a @ b @ c) + np.sum(np.matmul(a, b) ** 2)


@case("linalg", lambda r: (well_conditioned(r, 4), normal(r, 4, 4)), (0, 1))
def la_inv(a, w):
    return np.sum(np.linalg.inv(a) * w)


@case("linalg", lambda r: (well_conditioned(r, 3), normal(r, 3), normal(r, 3, 2)), (0, 1, 2))
def la_solve(a, b, c):
    x = np.linalg.solve(a, b)
    y = np.linalg.solve(a, c)
    return np.sum(x**2) + np.sum(y * c)


@case("linalg", lambda r: (well_conditioned(r, 3),))
def la_det(a):
    return np.linalg.det(a) + np.linalg.det(a @ a.T) ** 0.5


@case("linalg", lambda r: (spd(r, 4),))
def la_slogdet(a):
    sign, logdet = np.linalg.slogdet(a)
    return sign * logdet


@case("linalg", lambda r: (normal(r, 3, 3),))
def la_cholesky(s):
    chol = np.linalg.cholesky(s @ s.T + np.eye(3))
    return np.sum(np.log(np.diag(chol))) + np.sum(chol**2)


@case("linalg", lambda r: (normal(r, 2, 3, 4), normal(r, 2, 4, 3), normal(r, 3, 3)), (0, 1, 2))
def la_einsum(a, b, m):
    c = np.einsum("bij,bjk->bik", a, b)
    t = np.einsum("ij,ji->", m, m)
    o = np.einsum("bij,jk,bkl->", a, np.ones((4, 4)), b)
    return np.sum(c**2) + t * o + np.einsum("ij,ij", m, m)


@case("linalg", lambda r: (normal(r, 2, 3, 4), normal(r, 3, 4, 2)), (0, 1))
def la_tensordot(a, b):
    c = np.tensordot(a, b, axes=([1, 2], [0, 1]))
    d = np.tensordot(a[0], b[:, :, 0], axes=2)
    return np.sum(c**2) + d


@case("linalg", lambda r: (normal(r, 4), normal(r, 4)), (0, 1))
def la_vector_products(x, y):
    return (np.dot(x, y) + np.vdot(x, y) * np.inner(x, x) + np.sum(np.outer(x, y) ** 2)
            + x.dot(y))


@case("linalg", lambda r: (normal(r, 4, 4), normal(r, 4)), (0, 1))
def la_diag_tri(a, v):
    return (np.sum(np.diag(a) * v) + np.trace(a, offset=1) + np.sum(np.diagonal(a) ** 2)
            + np.sum(np.triu(a) * np.tril(a, k=-1).T) + np.sum(np.diag(v) @ a))


@case("linalg", lambda r: (normal(r, 3), spd(r, 3)), ("x", "a"))
def la_quadratic_form(x, a):
    return 0.5 * x @ a @ x - x.dot(np.ones(3))


# --- shapes and data movement -------------------------------------------------------------


@case("shape", lambda r: (normal(r, 2, 3), normal(r, 2, 3)), (0, 1))
def sh_concat_stack(x, y):
    c = np.concatenate([x, y], axis=0)
    s = np.stack((x, 2.0 * y), axis=-1)
    h = np.hstack([x, y])
    v = np.vstack((x, y[0]))
    return np.sum(c * c[::-1]) + np.sum(s[..., 0] * s[..., 1]) + np.sum(h**2) + np.sum(v**3)


@case("shape", lambda r: (normal(r, 2, 6),))
def sh_split(x):
    a, b, c = np.split(x, 3, axis=1)
    p, q = np.split(x, [1], axis=0)
    return np.sum(a * b - c) + np.sum(p * q)


@case("shape", lambda r: (normal(r, 2, 3),))
def sh_tile_repeat(x):
    t = np.tile(x, (2, 1))
    rr = np.repeat(x, 2, axis=0)
    return np.sum(t * rr) + np.sum(x.repeat(3) ** 2)


@case("shape", lambda r: (normal(r, 2, 3),))
def sh_pad(x):
    p = np.pad(x, ((1, 0), (2, 1)))
    q = np.pad(x, 1, constant_values=0.5)
    return np.sum(p[:, :-1] * p[:, 1:]) + np.sum(q**2)


@case("shape", lambda r: (normal(r, 2, 3, 4),))
def sh_reshape_transpose(x):
    n = x.shape[0]
    a = x.reshape(n, -1).T
    b = np.transpose(x, (2, 0, 1))
    c = np.swapaxes(x, 0, 2)
    d = np.moveaxis(x, 0, -1)
    e = np.reshape(x, (4, 6))
    return np.sum(a * a) + np.sum(b[0] * c[0].T) + np.sum(d**3) + np.sum(e[1:] * e[:-1])


@case("shape", lambda r: (normal(r, 3, 1, 2),))
def sh_expand_squeeze(x):
    s = np.squeeze(x, axis=1)
    e = np.expand_dims(s, 0)
    b = np.broadcast_to(x, (3, 4, 2))
    return np.sum(e**2) + np.sum(b * np.arange(4.0)[None, :, None]) + np.sum(x.squeeze())


@case("shape", lambda r: (normal(r, 3, 4),))
def sh_flip_roll(x):
    return np.sum(np.flip(x, axis=0) * x) + np.sum(np.roll(x, 1, axis=1) * x**2) + np.sum(
        np.roll(x, -2) * np.flip(x))


@case("shape", lambda r: (separated(r, 3, 4), normal(r, 3, 4)), (0, 1))
def sh_sort(x, w):
    return np.sum(np.sort(x, axis=1) * w) + np.sum(np.sort(x, axis=0)[0] ** 2)


@case("shape", lambda r: (normal(r, 2, 3),))
def sh_ravel(x):
    return np.sum(np.ravel(x) * np.arange(6.0)) + np.sum(x.flatten()[::2] ** 2) + x.ravel()[3]


# --- indexing -----------------------------------------------------------------------------


@case("indexing", lambda r: (normal(r, 4, 5),))
def idx_basic_slices(x):
    return np.sum(x[1:3, ::2] ** 2) + np.sum(x[-1]) * x[0, 0] + np.sum(x[:, 0] * x[:, -1])


@case("indexing", lambda r: (normal(r, 6, 3),))
def idx_negative_step(x):
    return np.sum(x[::-1] * x) + np.sum(x[::-2, 1:] ** 2) + np.sum(x[4:1:-1, ::-1] * 2.0)


@case("indexing", lambda r: (normal(r, 4), normal(r, 2, 3)), (0, 1))
def idx_newaxis(x, y):
    d = x[:, None] - x[None, :]
    e = y[np.newaxis, :, :, None] * y[:, np.newaxis, None, :]
    return np.sum(d**2) + np.sum(e)


@case("indexing", lambda r: (normal(r, 5), np.array([0, 3, 3, 1, 3, 0])), 0)
def idx_repeated_ints(x, idx):
    return np.sum(x[idx] ** 2) + np.sum(x[[4, 4, 2]] * x[idx[:3]])


@case("indexing", lambda r: (normal(r, 3, 4), np.array([[True, False, True, True],
                                                        [False, False, True, False],
                                                        [True, True, False, True]])), 0)
def idx_bool_mask(x, mask):
    return np.sum(x[mask] ** 3) + np.sum(x[:, mask[0]] * 0.5)


@case("indexing", lambda r: (separated(r, 10, lo=-0.6),))
def idx_mask_from_data(x):
    pos = x[x > 0.05]
    return np.sum(pos**2) - np.sum(x[x < 0.0] * 3.0)


@case("indexing", lambda r: (normal(r, 4, 3), np.array([3, 1, 1, 0, 3])), 0)
def idx_take(x, idx):
    return np.sum(np.take(x, idx, axis=0) ** 2) + np.sum(x.take(idx) * 2.0) + np.sum(
        np.take(x, [2, 2], axis=1))


@case("indexing", lambda r: (normal(r, 3, 4), np.array([[0, 3], [2, 2], [1, 0]])), 0)
def idx_take_along_axis(x, idx):
    return np.sum(np.take_along_axis(x, idx, axis=1) ** 2)


@case("indexing", lambda r: (normal(r, 2, 3, 4),))
def idx_ellipsis(x):
    return np.sum(x[..., 0] * x[..., -1]) + np.sum(x[0, ...] ** 2) + np.sum(x[..., 1:3, :])


@case("indexing", lambda r: (normal(r, 4, 3), np.array([0, 2, 2, 3]), np.array([1, 1, 0, 2])),
      0)
def idx_fancy_2d(x, rows, cols):
    return np.sum(x[rows, cols] ** 2) + np.sum(x[rows, 1:] * 0.5) + np.sum(x[ROW_IDX])


@case("indexing", lambda r: (normal(r, 5, 4),))
def idx_scalar_elements(x):
    a = x[1, 2]
    b = x[-1][-2]
    n = x.shape[0] - 2
    return a * b + x[n, 0] ** 2 + np.sum(x[n - 1: n + 1])


# --- selection: where, a if c else b, relu-like kinks -------------------------------------


@case("select", lambda r: (separated(r, 3, 4),))
def sel_where(x):
    y = np.where(x > 0, x**2, -x)
    z = np.where(x < -0.5, 0.0, np.sin(x))
    return np.sum(y + z)


@case("select", lambda r: (normal(r, 5), 3), 0)
def sel_ifexp_static(x, n):
    y = x * 2.0 if n > 2 else x * 3.0
    z = np.sin(y) if n == 3 else np.cos(y)
    return np.sum(z * y)


@case("select", lambda r: (normal(r, 5) + 0.5,))
def sel_ifexp_runtime(x):
    s = np.sum(x)
    t = s**2 if s > 0 else -s
    return t * np.mean(x)


@case("select", lambda r: (separated(r, 4, 3),))
def sel_relu_family(x):
    relu = np.maximum(x, 0.0)
    leaky = np.where(x > 0, x, 0.1 * x)
    elu = np.where(x > 0, x, np.expm1(x))
    return np.sum(relu * leaky + elu)


# --- Python syntax: assignment, unpacking, augmented assignment, nesting ------------------


@case("syntax", lambda r: (normal(r, 3), normal(r, 3)), (0, 1))
def syn_tuple_unpack(x, y):
    a, b = x + y, x * y
    a, b = b, a
    (c, d), e = (a - 1.0, b), a * b
    return np.sum(a * 2.0 + b + c * d - e)


@case("syntax", lambda r: (uniform(r, 0.5, 1.5, 4),))
def syn_augassign(x):
    z = x + 0.0
    z += 1.0
    z *= x
    z -= 0.5
    z /= 2.0
    z **= 2
    w = np.sum(z)
    w += np.sum(x)
    return w


@case("syntax", lambda r: (normal(r, 4),))
def syn_chained_assign(x):
    a = b = x * 2.0
    c: np.ndarray = a + 1.0
    return np.sum(a * b * c)


@case("syntax", lambda r: (normal(r, 3), normal(r, 3)), (0, 1))
def syn_deep_nesting(x, y):
    return np.sum(np.exp(-((np.sin(x * (y + 1.0)) - np.cos(y / (2.0 + x**2))) ** 2) / (
        1.0 + np.tanh(np.sum(x * y) * (x - y) / 3.0) ** 2)))


@case("syntax", lambda r: (normal(r, 4, 6),))
def syn_shape_arithmetic(x):
    n, m = x.shape
    k = n * m // 4
    y = x.reshape(k, -1)
    half = len(x) // 2
    scale = 1.0 / (x.ndim * x.size)
    return np.sum(y[:, : m // 3] ** 2) * scale + np.sum(x[:half] * x[half:])


@case("syntax", lambda r: (normal(r, 3, 2),))
def syn_unpack_array(x):
    a, b, c = x
    p, q = x.T
    return np.sum(a * b - c) + np.dot(p, q)


@case("syntax", lambda r: (normal(r, 4),))
def syn_constants(x):
    y = SCALE * x + OFFSET
    return np.sum(y**EXPONENT) + np.sum(x * WEIGHTS) + math.pi * np.sum(x)


@case("syntax", lambda r: (normal(r, 3), 2), 0)
def syn_static_int(x, k):
    m = k * 2 + 1
    return np.sum(x**m) / k + np.sum(np.tile(x, k))


@case("syntax", lambda r: (normal(r, 3, 3),))
def syn_constant_matrix(x):
    return np.sum(np.tanh(x @ MIXING) * MIXING.T)


# --- calls: helpers, keyword arguments, defaults, lambdas, inner functions, closures ------


@case("calls", lambda r: (normal(r, 4, 3), normal(r, 3, 2)), (0, 1))
def call_helper(x, w):
    return np.sum(_affine(x, w) ** 2) + np.sum(_affine(x, w, b=-0.5))


@case("calls", lambda r: (normal(r, 4, 3), normal(r, 3, 2), normal(r, 2)), ("w", "b"))
def call_helper_chain(x, w, b):
    h = _layer(x, w, b)
    g = _layer(x, w, b=b, scale=0.5)
    return np.sum(h * g)


@case("calls", lambda r: (normal(r, 5),))
def call_kwargs_defaults(x):
    return np.sum(_scaled_power(x) + _scaled_power(x, power=2) + _scaled_power(x, 0.5, 1)
                  + _smooth_act(x, kind="softplus"))


@case("calls", lambda r: (normal(r, 4),))
def call_lambda(x):
    sq = lambda t: t * t  # noqa: E731
    f = lambda t, c=2.0: np.sin(t) * c  # noqa: E731
    return np.sum(sq(x) + f(x) + f(x, c=-1.0))


@case("calls", lambda r: (normal(r, 4), normal(r, 4)), (0, 1))
def call_inner_closure(x, y):
    def inner(t):
        return np.sin(t) * y

    def twice(t, k=2.0):
        return inner(t) * k + inner(t * y)

    return np.sum(twice(x) + inner(x**2))


@case("calls", lambda r: (normal(r, 4),))
def call_higher_order(x):
    return np.sum(_apply_twice(np.tanh, x) + _apply_twice(lambda t: 0.5 * t + t**2, x))


@case("calls", lambda r: (normal(r, 3), normal(r, 3)), (0, 1))
def call_nested_closures(x, y):
    c = np.sum(y)

    def outer(t):
        shift = lambda u: u + c  # noqa: E731

        def deep(u):
            return shift(u) * y

        return deep(t) ** 2

    return np.sum(outer(x))


@case("calls", lambda r: (normal(r, 6),))
def call_tuple_return(x):
    m, v = _moments(x)
    return v / (m**2 + 1.0)


@case("calls", lambda r: (normal(r, 4),))
def call_module_constants(x):
    def weighted(t):
        return t * WEIGHTS * SCALE

    return np.sum(weighted(x) ** 2) + np.sum(_affine(x, WEIGHTS, b=OFFSET))


@case("calls", lambda r: (normal(r, 3, 4),))
def call_softmax_helpers(z):
    p = _softmax(z)
    q = _softmax(z, axis=0)
    return np.sum(p * q) + np.sum(_logsumexp(z)) + np.sum(_logsumexp(z, axis=0))


# --- array methods and attributes ---------------------------------------------------------


@case("methods", lambda r: (normal(r, 3, 4),))
def meth_reductions(x):
    return x.sum() + x.mean(axis=1).dot(x.var(axis=1)) + x.std() + x.sum(axis=0).max()


@case("methods", lambda r: (normal(r, 3, 3),))
def meth_matrix(x):
    return x.T.dot(x).trace() + x.diagonal().sum() + x.swapaxes(0, 1)[0].sum() + x.transpose(
    ).min()


@case("methods", lambda r: (normal(r, 2, 6),))
def meth_shape(x):
    y = x.reshape(3, 4).T.reshape((12,))
    z = x.reshape((2, 3, 2)).transpose(2, 0, 1).ravel()
    return (y * z).sum() + x.mean(keepdims=True).squeeze() * x.max()


@case("methods", lambda r: (separated(r, 2, 5),))
def meth_misc(x):
    return (x.clip(-0.5, 0.5) ** 2).sum() + x.cumsum(axis=1).prod() + x.copy().astype(
        np.float64).sum() + x.min(axis=0).sum()


# --- has_aux: (loss, aux) -----------------------------------------------------------------


@case("aux", lambda r: (normal(r, 3), normal(r, 5, 3), normal(r, 5)), ("w", "x"), has_aux=True)
def aux_prediction(w, x, y):
    pred = x @ w
    loss = np.mean((pred - y) ** 2)
    return loss, pred


@case("aux", lambda r: (normal(r, 4),), has_aux=True)
def aux_tuple(x):
    m, v = _moments(x)
    return m + v, (m, v)


# --- more: creation ops, builtins, keyword-only helpers, Python closures, static args -----


def _kwonly(x, *, scale=1.0, shift=0.0):
    return scale * np.sin(x) + shift


def _make_scaler(c):
    def scaled(t):
        return c * t + np.cos(t) * c

    return scaled


SCALER = _make_scaler(0.5)


def _make_loss(power, weights):
    def closure_power_loss(x):
        return np.sum(weights * np.abs(x) ** power) + power * np.sum(SCALER(x))

    return closure_power_loss


case("calls", lambda r: (separated(r, 4, lo=-0.9, gap=0.4),))(
    _make_loss(2.5, WEIGHTS))


@case("shape", lambda r: (normal(r, 3, 4),))
def shp_creation(x):
    z = np.zeros_like(x)
    o = np.ones(x.shape)
    e = np.eye(x.shape[0])
    a = np.arange(x.shape[1])
    lin = np.linspace(0.0, 1.0, x.shape[1])
    f = np.full_like(x, 2.0)
    return np.sum((x + o) * f * a + lin * x) + np.sum(e @ x) + np.sum(z + x**2)


@case("calls", lambda r: (separated(r, 4), separated(r, 4, lo=-1.9) + 0.3), (0, 1))
def call_builtins(x, y):
    s = sum([x, y, x * y])
    m = max(np.sum(x), np.sum(y)) + min(np.sum(x**2), np.sum(y**2))
    return np.sum(s) + m + np.sum(abs(x) + pow(y, 2)) + float(np.sum(x)) * len(x)


@case("calls", lambda r: (normal(r, 5),))
def call_keyword_only(x):
    return np.sum(_kwonly(x) + _kwonly(x, scale=2.0) * _kwonly(x, shift=-1.0, scale=0.5))


@case("calls", lambda r: (normal(r, 4),))
def call_python_closure(x):
    return np.sum(SCALER(x) ** 2) + np.sum(_make_scaler(2.0)(x))


@case("syntax", lambda r: (normal(r, 4), "softplus", True), 0)
def syn_static_string_bool(x, kind, flag):
    y = x**2 if flag else x
    return np.sum(_smooth_act(y, kind)) + np.sum(_smooth_act(x, kind=kind))


@case("syntax", lambda r: (normal(r, 3),))
def syn_array_literal(x):
    v = np.array([np.sum(x), np.mean(x), x[0]])
    w = np.asarray(x)
    return np.sum(v * v) + np.sum(np.stack([w, w**2]) * 0.5) + _moments(x)[1]


@case("reduction", lambda r: (normal(r, 3, 4), separated(r, 5)), (0, 1))
def red_norm_variants(x, v):
    return (np.linalg.norm(x, ord="fro") + np.linalg.norm(v, ord=np.inf)
            + np.linalg.norm(v, ord=2) + np.sum(np.linalg.norm(x, axis=0, keepdims=True)))


@case("methods", lambda r: (uniform(r, 0.5, 1.5, 3, 4) * np.linspace(1.0, 2.0, 12).reshape(3, 4),))
def meth_more(x):
    return (np.sum(x.prod(axis=0)) + x.var(ddof=1) + np.sum(x.std(axis=1, keepdims=True))
            + x.cumprod()[-1] + x.ravel()[np.argmax(x)] + np.sort(x)[..., -1].sum())


@case("indexing", lambda r: (separated(r, 6), normal(r, 6)), (0, 1))
def idx_argsort_gather(x, w):
    order = np.argsort(x)
    return np.sum(x[order] * w) + np.sum(w[order[:3]] ** 2) + x[np.argmin(x)]


@case("select", lambda r: (separated(r, 6), 0.7), (0, 1))
def sel_where_scalar_branch(x, a):
    return np.sum(np.where(x > 0.0, a, x) * x) + np.sum(np.where(x < 0.5, a * x, a**2))


@case("elementwise", lambda r: (0.3, 1.2), (0, 1))
def elem_python_floats(a, b):
    return math.sin(a) * b**2 + np.exp(a * b) - math.sqrt(b) / (1.0 + a**2)


@case("linalg", lambda r: (np.stack([well_conditioned(r, 3) for _ in range(2)]),
                           normal(r, 2, 3, 1)), (0, 1))
def la_batched(a, b):
    x = np.linalg.solve(a, b)
    return np.sum(x**2) + np.sum(np.linalg.det(a)) + np.sum(np.linalg.inv(a)[:, 0])


@case("shape", lambda r: (normal(r, 3), normal(r, 2, 3)), (0, 1))
def shp_concat_variants(v, m):
    a = np.concatenate([m, v[None, :]], axis=-2)
    b = np.hstack([v, v * 2.0])
    c = np.vstack([m, v])
    d = np.stack([v, v], axis=1)
    return np.sum(a * c) + np.sum(b**2) + np.sum(d[:, 0] * d[:, 1] * v)


# --- more: unusual shapes and spellings -------------------------------------------------


@case("syntax", lambda r: (normal(r, 3), normal(r, 2, 2), normal(r, 4)), (0, 1, -1))
def syn_unused_arguments(x, y, z):
    return np.sum(x**2) * y.shape[0] + 0.0 * len(z)


@case("elementwise", lambda r: (uniform(r, 0.5, 2.0, 4), uniform(r, -1.0, 2.0, 4)), (0, 1))
def elem_variable_power(x, y):
    return np.sum(x**y + np.power(y**2 + 1.0, x) + x**3 - y**2)


@case("reduction", lambda r: (separated(r, 2, 3, 4),))
def red_tuple_axes(x):
    return (np.sum(np.mean(x, axis=(0, 1)) ** 2) + np.sum(np.max(x, axis=(0, 2)))
            + np.sum(np.var(x, axis=-1)) + np.sum(np.std(x, axis=(1, 2), keepdims=True) * x)
            + np.sum(np.linalg.norm(x, axis=(1, 2))))


@case("shape", lambda r: (normal(r, 3), normal(r, 2, 3)), (0, 1))
def shp_repeat_tile_roll(v, m):
    a = np.repeat(v, 2)
    b = np.tile(v, 2)
    c = np.roll(m, (1, -1), axis=(0, 1))
    d = np.diag(v, k=1)
    return np.sum(a * np.arange(6.0)) + np.sum(b**3) + np.sum(c * m) + np.sum(d**2 * 0.5)


@case("indexing", lambda r: (separated(r, 3, 4, lo=-0.8),))
def idx_where_nonzero(x):
    i = np.where(x > 0.0)
    j = np.nonzero(x < 0.0)
    return np.sum(x[i] ** 2) + np.sum(x[j] * 3.0)


@case("linalg", lambda r: (normal(r, 3), normal(r, 3), normal(r, 2, 3, 4), normal(r, 4, 3)),
      (0, 1, 2, 3))
def la_einsum_spellings(a, b, t, m):
    return (np.einsum("i,i->", a, b) + np.sum(np.einsum("ij->ji", m) ** 2)
            + np.sum(np.einsum("bij->j", t)) + np.sum(np.einsum("...ij,jk->...ik", t, m))
            + np.sum(np.einsum("i,j->ij", a, b) ** 2))


@case("linalg", lambda r: (normal(r, 2, 3, 4), normal(r, 4, 5), normal(r, 4), normal(r, 3)),
      (0, 1, 2, 3))
def la_matmul_shapes(t, m, v, w):
    a = t @ m
    b = m.T @ v
    c = w @ t[0]
    d = np.dot(t[1].T, w)
    e = np.tensordot(v, v, axes=0)
    f = np.tensordot(t, v, axes=1)
    return np.sum(a**2) + np.sum(b) + np.sum(c * d) + np.sum(e) + np.sum(f * w)


@case("indexing", lambda r: (normal(r, 3, 4),))
def idx_tuple_variable(x):
    idx = (1, 2)
    first = (0,)
    return x[idx] * x[(0, -1)] + np.sum(x[first] ** 2) + np.sum(x[(1, Ellipsis)])


@case("calls", lambda r: (normal(r, 4),))
def call_default_binding(x):
    c = 1.5
    early = lambda t, k=c: t * k  # noqa: E731

    def inner(t, k=c * 2.0):
        return np.sin(t) * k * c

    late = lambda t: t * c  # noqa: E731
    c = 0.5
    return np.sum(early(x) + inner(x) + late(x) ** 2)


@case("elementwise", lambda r: (np.array([0.3, 1.2, 2.6, -0.7, -1.9]) + 0.05 * normal(r, 5),))
def elem_mod_floordiv(x):
    return np.sum((x % 1.0) ** 2 + (x // 1.0) * x + np.mod(x, 0.5) * np.floor_divide(x, 0.5))


@case("syntax", lambda r: (separated(r, 8, lo=-0.45), 3, True), 0)
def syn_comparisons_and_casts(x, n, flag):
    inside = np.logical_and(0.0 < x, x < 0.5)
    y = np.where(inside, x**2, x)
    scale = 2.0 if flag and n > 2 else 1.0
    z = np.zeros(3, dtype=x.dtype) + np.float32(0.5) * x[:3].real
    keep = np.logical_not(x < -0.2)
    return np.sum(y * scale) + np.sum(z.astype(x.dtype) ** 2) + np.sum(x[keep]) * (0 < n <= 3)


@case("elementwise", lambda r: (normal(r, 3), 0.4), (0, 1))
def elem_scalar_casts(x, a):
    return np.sum(x * np.float64(a)) + np.float64(a) ** 2 + np.sum(np.float64(x))


@case("elementwise", lambda r: (normal(r, 3), normal(r, 2, 3)), (0, 1))
def elem_cancelling_terms(x, y):
    t = x - x  # the gradient of x is g + (-g) of one broadcast g: it must keep its shape
    return np.sum(t) + np.sum(np.sin(y))


# --- regressions: einsum broadcasting a size-1 axis ------------------------------------

@case("linalg", lambda r: (normal(r, 1), normal(r, 3)), (0, 1))
def la_einsum_size1_broadcast(a, b):
    return np.einsum("i,i->", a, b)
