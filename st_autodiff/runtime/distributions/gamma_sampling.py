"""Reparameterised gamma draws: ``standard_gamma(alpha)`` with an implicit gradient.

A draw ``x ~ Gamma(alpha, 1)`` comes from a rejection sampler, which is not a smooth
function of ``alpha``; as PyTorch does (``_standard_gamma_grad``), the gradient is the
implicit one that keeps the draw's quantile ``u = P(alpha, x)`` fixed::

    dx/dalpha = -(dP/dalpha)(alpha, x) / p(x; alpha)

where ``P`` is the regularised lower incomplete gamma function and ``p`` the density.
``dP/dalpha`` has no closed form.  The fast path differentiates the series
``P = x**a e**-x sum_n x**n / Gamma(a + n + 1)`` term by term, divided by ``p(x)``::

    dx/da = -sum_n r_n (log x - digamma(a + n + 1)),  r_n = x**(n+1) Gamma(a) / Gamma(a+n+1)

(vectorised, ``r_n`` and the digamma values by recurrence).  Where that series is slow or
cancels (deep in the upper tail: more than 4096 terms, or a sum of magnitudes 1e5 times
the result), the element falls back to adaptive quadrature of ``(log t - digamma(a)) p(t)``
over the lower tail ``[0, x]`` (with ``t = x v**(1/a)``, which removes the ``t**(a-1)``
singularity) when ``x < a <= 50`` and over the upper tail ``[x, inf)`` otherwise (the two differ
only in sign because ``E[log t] = digamma(a)``), scaled by ``1 / p(x)`` inside the integral
so neither tail underflows.  Relative accuracy is about 1e-10 either way
(``test_distributions`` checks both against central differences of
``scipy.special.gammaincinv``).

This gradient is a first derivative only: differentiating it again raises, as in PyTorch
("the derivative for '_standard_gamma_grad' is not implemented").
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...autograd import Function
from ..device import is_device, to_device, to_host, xp_of
from ..tensor import Tensor, plain
from .utils import rng_for

__all__ = ["standard_gamma", "standard_gamma_grad"]


def _grad_one(a: float, x: float) -> float:
    from scipy import integrate, special

    if x <= 0.0 or not math.isfinite(x):
        return 0.0
    psi: float = special.digamma(a)
    log_px = (a - 1) * math.log(x) - x  # log p(x) + lgamma(a)
    val: float
    if x < a <= 50.0:  # beyond, the lower integrand is too sharply peaked for quad
        log_x = math.log(x)

        def lower(v: float) -> float:
            # t = x v**(1/a): t**(a-1) dt = x**a dv / a, and x**a / p(x) = x e**x
            w = v ** (1.0 / a)
            return (log_x + math.log(v) / a - psi) * x * math.exp(x - x * w) / a

        val, _ = integrate.quad(lower, 0.0, 1.0, epsabs=0.0, epsrel=1e-12, limit=200)
        return -val

    def upper(s: float) -> float:
        t = x + s
        return (math.log(t) - psi) * math.exp((a - 1) * math.log(t) - t - log_px)

    val, _ = integrate.quad(upper, 0.0, math.inf, epsabs=0.0, epsrel=1e-12, limit=200)
    return val


_MAX_TERMS = 4096
_MAX_CANCELLATION = 1e5


def _series(a: np.ndarray[Any, Any], x: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any],
            np.ndarray[Any, Any]]:
    """The series for ``dx/da`` (module docstring) and a mask of where it is trusted.

    Elements leave the loop as they converge (checked every 16 terms)."""
    from scipy import special

    out = np.zeros(a.shape)
    ok = np.zeros(a.shape, bool)
    with np.errstate(all="ignore"):
        live = np.arange(a.size)
        a_, x_ = a, x
        log_x = np.log(x_)
        r = x_ / a_
        psi = special.digamma(a_ + 1)
        c = r * (log_x - psi)
        total, size = c.copy(), np.abs(c)
        for n in range(1, _MAX_TERMS):
            r = r * (x_ / (a_ + n))
            psi = psi + 1 / (a_ + n)
            c = r * (log_x - psi)
            total += c
            size += np.abs(c)
            if n % 16 and n != _MAX_TERMS - 1:
                continue
            done = (r <= 1e-17 * np.abs(total)) & (x_ < a_ + n)
            bad = ~np.isfinite(total)
            finished = done | bad
            out[live[done]] = -total[done]
            ok[live[done]] = (size[done] <= _MAX_CANCELLATION * np.abs(total[done]))
            keep = ~finished
            if not keep.any():
                break
            live, a_, x_, log_x = live[keep], a_[keep], x_[keep], log_x[keep]
            r, psi, total, size = r[keep], psi[keep], total[keep], size[keep]
    return out, ok


def standard_gamma_grad(alpha: np.ndarray[Any, Any], x: np.ndarray[Any, Any]) -> np.ndarray[Any,
                        Any]:
    """``dx/dalpha`` of unit-rate gamma draws ``x`` at fixed quantile (module docstring)."""
    a64, x64 = np.broadcast_arrays(np.asarray(alpha, np.float64), np.asarray(x, np.float64))
    a64, x64 = a64.ravel(), x64.ravel()
    out = np.zeros(a64.shape)
    live = (x64 > 0) & np.isfinite(x64)
    fast, ok = _series(a64[live], x64[live])
    idx = np.flatnonzero(live)
    out[idx[ok]] = fast[ok]
    for i in idx[~ok]:
        out[i] = _grad_one(float(a64[i]), float(x64[i]))
    return out.reshape(np.broadcast_shapes(np.shape(alpha), np.shape(x))).astype(
        np.result_type(alpha, x))


class _StandardGammaGrad(Function):
    """The saved derivative as a node whose own derivative is not implemented."""

    @staticmethod
    def forward(ctx: Any, alpha: Tensor, x: Tensor) -> Tensor:
        a = alpha._data
        if not is_device(a):
            return plain(standard_gamma_grad(a, x._data))
        # the series' early exits and SciPy's quadrature run on the host: one explicit round
        # trip per backward (a known gap, docs/backends_eager.md)
        return plain(to_device(standard_gamma_grad(to_host(a), to_host(x._data))))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Any:
        raise RuntimeError("the derivative for '_standard_gamma_grad' is not implemented.")


class _StandardGamma(Function):
    """``x ~ Gamma(alpha, 1)`` with the implicit reparameterisation gradient."""

    @staticmethod
    def forward(ctx: Any, alpha: Tensor) -> Tensor:
        a: Any = alpha._data  # an array or a NumPy scalar
        xp = xp_of(a)
        draw = rng_for(a).standard_gamma(xp.asarray(a, np.float64))
        tiny = np.finfo(a.dtype).tiny
        x = plain(xp.maximum(draw, tiny).astype(a.dtype))
        ctx.alpha, ctx.x = alpha, x
        return x

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        result: Tensor = grad * _StandardGammaGrad.apply(ctx.alpha, ctx.x)
        return result


def standard_gamma(alpha: Tensor) -> Tensor:
    """Unit-rate gamma draws of ``alpha``'s shape, differentiable in ``alpha``."""
    result: Tensor = _StandardGamma.apply(alpha)
    return result
