"""SciPy objectives, distances, filters, integration rules, interpolators and matrix
functions, imported and called from small user wrappers."""

from __future__ import annotations

import numpy as np
from scipy import integrate, interpolate, linalg, optimize, signal
from scipy.spatial import distance

from .entry import Registry

REG = Registry("scipy")
entry = REG.entry

X5 = np.array([0.3, -1.2, 0.8, 2.1, -0.4])
Y5 = np.array([1.1, 0.4, -0.7, 0.9, 0.2])
POS5 = np.array([0.4, 1.3, 2.2, 0.9, 3.1])
Q5 = np.array([0.2, 0.2, 0.2, 0.25, 0.15])
P5 = np.array([0.1, 0.25, 0.3, 0.15, 0.2])
R4 = np.array([1.2, 0.9, 1.1, 0.8])
SPD = np.array([[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 1.0]])
A3 = np.array([[0.3, -0.1, 0.2], [0.05, 0.2, -0.3], [0.1, 0.4, -0.2]])
XS = np.linspace(0.0, 2.0, 7)
SIG = np.sin(np.linspace(0.0, 3.0, 12)) + 0.1 * np.arange(12.0)


# --- scipy.optimize test functions (with the package's own gradients) ----------------
def _rosen_der(x):
    return (optimize.rosen_der(x),)


@entry(R4, ref=_rosen_der)
def rosen_loss(x):
    return optimize.rosen(x)


@entry(R4, np.array([0.3, -0.2, 0.5, 0.1]), wrt=(0, 1))
def rosen_hess_prod_loss(x, p):
    return np.sum(optimize.rosen_hess_prod(x, p) ** 2)


@entry(R4)
def rosen_der_norm_loss(x):
    return np.sum(optimize.rosen_der(x) ** 2)


# --- scipy.spatial.distance metrics --------------------------------------------------
@entry(X5, Y5, wrt=(0, 1))
def euclidean_loss(u, v):
    return distance.euclidean(u, v)


@entry(X5, Y5, wrt=(0, 1))
def sqeuclidean_loss(u, v):
    return distance.sqeuclidean(u, v)


@entry(X5, Y5, wrt=(0, 1))
def cityblock_loss(u, v):
    return distance.cityblock(u, v)


@entry(X5, Y5, wrt=(0, 1))
def cosine_loss(u, v):
    return distance.cosine(u, v)


@entry(X5, Y5, wrt=(0, 1))
def correlation_loss(u, v):
    return distance.correlation(u, v)


@entry(X5, Y5, wrt=(0, 1))
def chebyshev_loss(u, v):
    return distance.chebyshev(u, v)


@entry(X5, Y5, wrt=(0, 1))
def minkowski_loss(u, v):
    return distance.minkowski(u, v, 3)


@entry(POS5, POS5[::-1].copy(), wrt=(0, 1))
def braycurtis_loss(u, v):
    return distance.braycurtis(u, v)


@entry(POS5, POS5[::-1].copy() + 0.1, wrt=(0, 1))
def canberra_loss(u, v):
    return distance.canberra(u, v)


@entry(P5, Q5, wrt=(0, 1))
def jensenshannon_loss(p, q):
    return distance.jensenshannon(p, q)


@entry(X5[:3], Y5[:3], wrt=(0, 1))
def mahalanobis_loss(u, v):
    return distance.mahalanobis(u, v, np.linalg.inv(SPD))


@entry(X5, Y5, wrt=(0, 1))
def seuclidean_loss(u, v):
    return distance.seuclidean(u, v, POS5)


@entry(X5.reshape(5, 1) * np.array([[1.0, 0.5]]))
def pdist_loss(points):
    return np.sum(distance.pdist(points) ** 2)


@entry(X5.reshape(5, 1) * np.array([[1.0, 0.5]]))
def cdist_loss(points):
    return np.sum(np.exp(-distance.cdist(points, points, "sqeuclidean")))


# --- scipy.integrate rules -----------------------------------------------------------
@entry(SIG[:7], XS, wrt=(0, 1))
def simpson_loss(y, x):
    return integrate.simpson(y ** 2, x=x)


@entry(SIG[:6], XS[:6], wrt=(0, 1))
def simpson_even_loss(y, x):  # an even count: SciPy's out=np.zeros_like(...) divisions
    return integrate.simpson(y ** 2, x=x)


@entry(SIG[:6])
def simpson_even_dx_loss(y):
    return integrate.simpson(np.sin(y), dx=0.3)


@entry(SIG[:7], XS, wrt=(0, 1))
def integrate_trapezoid_loss(y, x):
    return integrate.trapezoid(np.exp(-y), x)


@entry(SIG[:7])
def cumulative_trapezoid_loss(y):
    return np.sum(integrate.cumulative_trapezoid(y, dx=0.25))


@entry(SIG[:5])
def romb_loss(y):
    return integrate.romb(y ** 2, dx=0.5)


# --- scipy.signal filters --------------------------------------------------------------
@entry(np.array([0.5, 0.3]), SIG, wrt=(0, 1))
def lfilter_loss(b, x):
    return np.sum(signal.lfilter(b, np.array([1.0, -0.4]), x) ** 2)


@entry(SIG, np.array([1.0, -0.5, 0.25]), wrt=(0, 1))
def signal_convolve_loss(x, k):
    return np.sum(signal.convolve(x, k, mode="same") ** 2)


@entry(SIG, np.array([1.0, -0.5, 0.25]), wrt=(0, 1))
def fftconvolve_loss(x, k):
    return np.sum(signal.fftconvolve(x, k) ** 2)


@entry(SIG)
def savgol_loss(x):
    return np.sum(signal.savgol_filter(x, 5, 2) ** 2)


@entry(SIG)
def detrend_loss(x):
    return np.sum(signal.detrend(x) ** 2)


@entry(SIG)
def windowed_energy_loss(x):
    w = signal.windows.hann(12)
    return np.sum((w * x) ** 2)


@entry(SIG)
def get_window_loss(x):
    w = signal.get_window("hamming", 12)
    return np.sum(w * x)


@entry(SIG)
def filtfilt_loss(x):
    b, a = signal.butter(2, 0.3)
    return np.sum(signal.filtfilt(b, a, x) ** 2)


@entry(SIG)
def sosfilt_loss(x):
    sos = signal.butter(2, 0.3, output="sos")
    return np.sum(signal.sosfilt(sos, x) ** 2)


# --- scipy.interpolate -------------------------------------------------------------------
@entry(SIG[:7])
def cubic_spline_loss(y):
    spline = interpolate.CubicSpline(XS, y)
    return np.sum(spline(np.array([0.1, 0.7, 1.5])) ** 2)


@entry(SIG[:7])
def interp1d_loss(y):
    f = interpolate.interp1d(XS, y)
    return np.sum(f(np.array([0.1, 0.7, 1.5])))


@entry(SIG[:7])
def barycentric_loss(y):
    return np.sum(interpolate.barycentric_interpolate(XS, y, np.array([0.1, 0.7, 1.5])))


@entry(SIG[:4])
def lagrange_loss(y):
    poly = interpolate.lagrange(XS[:4], y)
    return poly(0.5)


@entry(SIG[:7])
def pchip_loss(y):
    return np.sum(interpolate.pchip_interpolate(XS, y, np.array([0.1, 0.7, 1.5])))


# --- scipy.linalg ------------------------------------------------------------------------
@entry(A3)
def expm_loss(a):
    return np.sum(linalg.expm(a))


@entry(SPD)
def linalg_det_loss(a):
    return linalg.det(a)


@entry(SPD)
def linalg_inv_loss(a):
    return np.sum(linalg.inv(a))


@entry(SPD, X5[:3], wrt=(0, 1))
def linalg_solve_loss(a, b):
    return np.sum(linalg.solve(a, b, assume_a="pos") ** 2)


@entry(X5[:3])
def cho_solve_loss(b):
    factor = linalg.cho_factor(SPD)
    return np.sum(linalg.cho_solve(factor, b) ** 2)


@entry(A3)
def linalg_norm_loss(a):
    return linalg.norm(a)


@entry(SPD)
def sqrtm_loss(a):
    return np.trace(linalg.sqrtm(a))


@entry(SPD)
def logm_loss(a):
    return np.trace(linalg.logm(a))


@entry(SPD, X5[:3], wrt=(0, 1))
def solve_triangular_loss(a, b):
    return np.sum(linalg.solve_triangular(np.tril(a), b, lower=True) ** 2)
