"""NumPy's own functions (polynomials, interpolation, integration, statistics, norms),
imported and called from small user wrappers."""

from __future__ import annotations

import numpy as np
from numpy.polynomial import chebyshev, hermite, hermite_e, laguerre, legendre, polyutils
from numpy.polynomial import polynomial as P

from .entry import Registry

REG = Registry("numpy")
entry = REG.entry

_rng = np.random.default_rng(0)
X5 = np.array([0.3, -1.2, 0.8, 2.1, -0.4])
C4 = np.array([0.5, -1.0, 0.25, 0.75])
T = np.linspace(-0.9, 0.9, 7)
M34 = _rng.standard_normal((3, 4))
W5 = np.array([0.5, 1.5, 1.0, 2.0, 0.7])


@entry(C4, T, wrt=(0, 1))
def polyval_loss(c, t):
    return np.sum(P.polyval(t, c) ** 2)


@entry(C4, T, wrt=(0, 1))
def np_polyval_loss(c, t):
    return np.sum(np.polyval(c, t))


@entry(C4, T, wrt=(0, 1))
def chebval_loss(c, t):
    return np.sum(chebyshev.chebval(t, c))


@entry(C4, T, wrt=(0, 1))
def legval_loss(c, t):
    return np.sum(legendre.legval(t, c))


@entry(C4, T, wrt=(0, 1))
def hermval_loss(c, t):
    return np.sum(hermite.hermval(t, c))


@entry(C4, T, wrt=(0, 1))
def hermeval_loss(c, t):
    return np.sum(hermite_e.hermeval(t, c))


@entry(C4, T, wrt=(0, 1))
def lagval_loss(c, t):
    return np.sum(laguerre.lagval(t, c))


@entry(np.array([0.2, -0.5, 1.1]), T)
def polyvalfromroots_loss(r, t):
    return np.sum(P.polyvalfromroots(t, r))


@entry(C4, 0.4, -0.3, wrt=(0, 1, 2))
def polyval2d_loss(c, x, y):
    return P.polyval2d(x, y, np.outer(c, c))


@entry(C4, T)
def polyder_eval_loss(c, t):
    return np.sum(P.polyval(t, P.polyder(c)))


@entry(C4, T)
def polyvander_fit_loss(c, t):
    V = P.polyvander(t, 3)
    return np.sum((V @ c - np.sin(t)) ** 2)


@entry(C4, T)
def chebvander_fit_loss(c, t):
    V = chebyshev.chebvander(t, 3)
    return np.sum((V @ c - np.cos(t)) ** 2)


@entry(np.array([0.0, 1.0, 0.5, -0.3, 0.2]), np.array([0.1, 1.7, 3.3]))
def interp_loss(fp, x):
    return np.sum(np.interp(x, np.arange(5.0), fp))


@entry(np.array([0.35, 1.75, 3.3]), np.array([0.0, 1.0, 0.5, -0.3, 0.2]))
def interp_wrt_x_loss(x, fp):
    return np.sum(np.interp(x, np.arange(5.0), fp) ** 2)


@entry(X5)
def trapezoid_loss(y):
    return np.trapezoid(y ** 2, dx=0.1)


@entry(X5, np.array([0.0, 0.4, 1.0, 1.3, 2.0]), wrt=(0, 1))
def trapezoid_x_loss(y, x):
    return np.trapezoid(np.sin(y), x)


@entry(M34)
def cov_loss(a):
    return np.sum(np.cov(a) ** 2)


@entry(M34)
def corrcoef_loss(a):
    return np.sum(np.corrcoef(a))


@entry(X5, W5, wrt=(0, 1))
def average_loss(a, w):
    return np.average(a ** 2, weights=w)


@entry(M34)
def average_axis_loss(a):
    return np.sum(np.average(a, axis=1, weights=np.array([1.0, 2.0, 3.0, 4.0])))


@entry(X5, modes=True)
def norm_default_loss(x):
    return np.linalg.norm(x)


@entry(X5)
def norm_l1_loss(x):
    return np.linalg.norm(x, ord=1)


@entry(X5)
def norm_inf_loss(x):
    return np.linalg.norm(x, ord=np.inf)


@entry(X5, modes=True)
def norm_p3_loss(x):
    return np.linalg.norm(x, ord=3)


@entry(M34)
def norm_fro_loss(a):
    return np.linalg.norm(a, "fro")


@entry(M34)
def norm_axis_loss(a):
    return np.sum(np.linalg.norm(a, axis=1))


@entry(M34)
def norm_nuclear_loss(a):
    return np.linalg.norm(a, "nuc")


@entry(M34)
def matrix_norm_2_loss(a):
    return np.linalg.norm(a, 2)


@entry(M34)
def vector_norm_loss(a):
    return np.sum(np.linalg.vector_norm(a, axis=0))


@entry(M34)
def matrix_norm_loss(a):
    return np.linalg.matrix_norm(a)


@entry(X5)
def var_std_loss(x):
    return np.var(x) + np.std(x, ddof=1)


@entry(X5)
def ptp_loss(x):
    return np.ptp(x)


@entry(X5)
def median_loss(x):
    return np.median(x)


@entry(X5)
def percentile_loss(x):
    return np.percentile(x, 30.0)


@entry(X5)
def quantile_loss(x):
    return np.quantile(x, 0.75)


@entry(X5)
def cumsum_diff_loss(x):
    return np.sum(np.diff(np.cumsum(x) ** 2))


@entry(X5)
def gradient_loss(x):
    return np.sum(np.gradient(x, 0.5) ** 2)


@entry(X5, np.array([1.0, -0.5, 0.25]), wrt=(0, 1))
def convolve_loss(x, k):
    return np.sum(np.convolve(x, k, mode="valid") ** 2)


@entry(X5, np.array([1.0, -0.5, 0.25]), wrt=(0, 1))
def correlate_loss(x, k):
    return np.sum(np.correlate(x, k, mode="full") ** 2)


@entry(np.array([[2.0, 0.3], [0.3, 1.5]]), modes=True)
def slogdet_loss(a):
    sign, logdet = np.linalg.slogdet(a)
    return sign * logdet


@entry(np.array([[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 1.0]]), X5[:3], wrt=(0, 1),
       modes=True)
def solve_loss(a, b):
    return np.sum(np.linalg.solve(a, b) ** 2)


@entry(np.array([[1.0, 0.3, 0.1], [0.2, 0.9, -0.2], [0.1, -0.4, 0.7]]), modes=True)
def cholesky_loss(b):
    # np.linalg.cholesky reads one triangle only; the gradient of a symmetric input is a
    # convention (JAX symmetrises it), so the user builds the symmetric matrix here.
    a = b @ b.T + np.eye(3)
    return np.sum(np.log(np.diag(np.linalg.cholesky(a))))


@entry(M34, X5[:3], wrt=(0, 1))
def lstsq_loss(a, b):
    coef = np.linalg.lstsq(a.T @ a + np.eye(4), a.T @ b, rcond=None)[0]
    return np.sum(coef ** 2)


@entry(X5, X5[::-1].copy(), wrt=(0, 1))
def kron_outer_loss(a, b):
    return np.sum(np.kron(a, b[:2])) + np.sum(np.outer(a, b) ** 2)


@entry(X5)
def logaddexp_reduce_loss(x):
    return np.logaddexp.reduce(x)


@entry(X5)
def clip_nan_to_num_loss(x):
    return np.sum(np.nan_to_num(np.clip(x, -1.0, 1.0)) ** 2)


@entry(M34, modes=True)
def einsum_trace_loss(a):
    return np.einsum("ij,ij->", a, a) + np.trace(a @ a.T)


@entry(M34)
def apply_along_axis_loss(a):
    return np.sum(np.apply_along_axis(np.sum, 1, a ** 2))


@entry(X5)
def histogram_weights_loss(w):
    counts, _ = np.histogram(np.array([0.1, 0.4, 0.5, 0.9, 0.2]), bins=3, weights=w)
    return np.sum(counts ** 2)


N3 = np.array([[0.5, 1.2, -0.3], [0.2, -0.8, 0.9], [1.1, 0.4, 0.3]])


@entry(N3, modes=True)
def det_loss(a):
    return np.linalg.det(a)


@entry(N3, modes=True)
def inv_loss(a):
    return np.sum(np.linalg.inv(a) ** 2)


@entry(N3)
def slogdet_negative_loss(a):
    sign, logdet = np.linalg.slogdet(a)
    return sign * np.exp(logdet)


@entry(M34)
def norm_matrix_l1_loss(a):
    return np.linalg.norm(a, ord=1) + np.linalg.norm(a, ord=-np.inf)


@entry(X5)
def norm_negative_order_loss(x):
    return np.linalg.norm(x, ord=-2) + np.linalg.norm(x, ord=0.5)


@entry(M34)
def norm_keepdims_loss(a):
    return np.sum(np.linalg.norm(a, axis=-1, keepdims=True) * a)


@entry(M34, modes=True)
def var_axis_ddof_loss(a):
    return np.sum(np.var(a, axis=0, ddof=1)) + np.std(a[0])


@entry(M34)
def max_min_loss(a):
    return np.sum(np.max(a, axis=1)) + np.min(a) + np.sum(np.amax(a, axis=0) ** 2)


@entry(X5, modes=True)
def cumprod_prod_loss(x):
    return np.sum(np.cumprod(x)) + np.prod(x)


@entry(X5)
def sort_weighted_loss(x):
    return np.sum(np.sort(x) * np.arange(5.0))


@entry(M34)
def take_along_axis_loss(a):
    return np.sum(np.take_along_axis(a, np.argsort(a, axis=1), axis=1) * np.arange(4.0))


@entry(M34, modes=True)
def tensordot_loss(a):
    return np.sum(np.tensordot(a, a, axes=([1], [1])))


@entry(M34, modes=True)
def pad_roll_loss(a):
    return np.sum(np.pad(a, ((0, 1), (2, 0))) ** 2) + np.sum(np.roll(a, 1, axis=1) * a)


@entry(X5, modes=True)
def logaddexp_loss(x):
    return np.sum(np.logaddexp(x, 0.3)) + np.sum(np.logaddexp2(x, 1.0))


@entry(X5, modes=True)
def hypot_arctan2_loss(x):
    return np.sum(np.arctan2(x, 1.3)) + np.sum(np.hypot(x, 0.4))


@entry(M34, modes=True)
def array_methods_loss(a):
    return a.sum() + a.var() + a.std(ddof=1) + a.prod(axis=0).sum() + (a @ a.T).trace()


@entry(M34, modes=True)
def triu_tril_loss(a):
    return np.sum(np.triu(a @ a.T, 1)) + np.sum(np.tril(a, -1))


@entry(X5)
def float_power_loss(x):
    return np.sum(np.float_power(np.abs(x), 1.5))


@entry(X5)
def sinc_loss(x):
    return np.sum(np.sinc(x))


@entry(X5)
def fft_power_loss(x):
    return np.sum(np.abs(np.fft.rfft(x)) ** 2)


@entry(np.array([[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 1.0]]))
def eigvalsh_loss(a):
    return np.sum(np.linalg.eigvalsh(a) ** 3)


@entry(M34)
def svd_nuclear_loss(a):
    return np.sum(np.linalg.svd(a, compute_uv=False))


@entry(N3)
def pinv_loss(a):
    return np.sum(np.linalg.pinv(a))


@entry(X5)
def nanmean_loss(x):
    return np.nanmean(x) + np.nansum(x ** 2)


@entry(X5, np.array([0.5, 0.2, 1.0, 0.1, 0.3]), wrt=(0, 1))
def cross_loss(a, b):
    return np.sum(np.cross(a[:3], b[:3]) ** 2)


@entry(np.array([2.0, 0.0, 3.0, -1.5]), modes=True)
def cumprod_zero_loss(x):
    return np.sum(np.cumprod(x))


@entry(np.array([2.0, 0.0, 3.0, -1.5]))
def prod_zero_loss(x):
    return np.prod(x) + np.prod(x[1:] + 1.0)


@entry(np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, -1.0, 2.0]]))
def det_singular_loss(a):
    return np.linalg.det(a)


# --- found by the hunt beyond the corpus (tests/test_hunt_regressions.py) -------------
@entry(X5, np.array([1.1, 0.4, -0.7]), wrt=(0, 1))
def convolve_same_loss(a, v):
    return np.sum(np.convolve(a, v, mode="same") ** 2)


@entry(X5, np.array([1.1, 0.4, -0.7]), wrt=(0, 1))
def correlate_full_loss(a, v):
    return np.sum(np.correlate(a, v, mode="full") * np.arange(7.0))


@entry(np.array([1.0, -2.0, 0.5, 0.0, 0.0]))
def trimseq_loss(c):  # a loop target read after its loop (``seq[:i + 1]``)
    return np.sum(polyutils.trimseq(c) ** 2)


@entry(X5)
def percentile_methods_loss(x):
    return (np.percentile(x, 40, method="midpoint") + np.quantile(x, 0.3, method="hazen")
            + np.sum(np.quantile(x, [0.2, 0.7], method="weibull")))


@entry(M34, modes=True)
def norm_nuc_loss(m):
    return np.linalg.norm(m, "nuc") + np.linalg.norm(m, 2)


@entry(M34[:2, :2], M34[1:, 2:], wrt=(0, 1), modes=True)
def kron_loss(a, b):
    return np.sum(np.kron(a, b) ** 2)


@entry(np.array([0.1, 3.0, 6.5, -3.0, 1.0]))
def unwrap_loss(p):
    return np.sum(np.unwrap(p) ** 2) + np.sum(np.unwrap(p, period=4.0))


@entry(X5, modes=True)
def i0_sinc_loss(x):
    return np.sum(np.i0(x) + np.sinc(x) ** 2)


@entry(np.array([0.3, np.nan, 0.8, 2.1, -0.4]))
def nan_statistics_loss(x):
    return np.nanstd(x) + np.nanvar(x, ddof=1) + np.nanmedian(x) + np.nanprod(x)


@entry(M34[:, :3], modes=True)
def matrix_power_loss(a):
    return np.sum(np.linalg.matrix_power(a, 3))
