"""``scipy.stats.multivariate_normal.logpdf`` and ``.pdf`` written with functions the
compiler has rules for (``select_stats`` picks them, after binding ``mean``, ``cov`` and
the shapes as SciPy's ``_process_parameters``/``_process_quantiles`` do).

SciPy factors the covariance with ``eigh`` (its ``_PSD``); here a Cholesky factor gives
the log-determinant and a solve gives the Mahalanobis term, which agree with SciPy's to
rounding (about 1e-15 relative for a well-conditioned covariance) and whose derivatives
do not break down at repeated eigenvalues (``cov = I``), where those of ``eigh`` do.  A
covariance that is not positive definite raises NumPy's ``LinAlgError`` at run time
(SciPy raises ``ValueError`` or ``LinAlgError``); ``allow_singular=True`` is not covered.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .common import SITE_LOCATED

SITE_LOCATED.add(__file__)

_LOG_2PI = np.log(2 * np.pi)


def mvn_logpdf(x: Any, mean: Any, cov: Any, cov_kind: int, dim: int, x_kind: int,
               log: bool) -> Any:
    """The log-density (``log``) or density of ``N(mean, cov)`` at the rows of ``x``.

    ``cov_kind``: 0 a scalar variance, 1 a vector of variances, 2 a matrix; ``x_kind``: 0
    a 0-d point, 1 one point of ``dim > 1`` components, 2 points of one component,
    3 points along the last axis."""
    x = np.asarray(x, dtype=float)
    if x_kind == 0:
        x = x[np.newaxis]
    elif x_kind == 1:
        x = x[np.newaxis, :]
    elif x_kind == 2:
        x = x[:, np.newaxis]
    if cov_kind == 0:
        cov = cov * np.eye(dim)
    elif cov_kind == 1:
        cov = np.diag(cov)
    factor = np.linalg.cholesky(cov)
    log_det = 2.0 * np.sum(np.log(np.diagonal(factor)))
    dev = x - mean
    flat = np.reshape(dev, (-1, dim))
    maha = np.sum(flat * np.linalg.solve(cov, flat.T).T, axis=-1)
    out = -0.5 * (dim * _LOG_2PI + log_det + np.reshape(maha, np.shape(dev)[:-1]))
    if not log:
        out = np.exp(out)
    out = np.squeeze(out)
    if out.ndim == 0:
        return out[()]
    return out


def quantile_kind(x: Any, dim: int) -> int:
    """``x_kind`` of ``mvn_logpdf`` (SciPy's ``_process_quantiles``) from ``x``'s rank."""
    nd = np.ndim(x)
    if nd == 0:
        return 0
    if nd == 1:
        return 2 if dim == 1 else 1
    return 3


class FrozenMultivariateNormal:
    """``scipy.stats.multivariate_normal(mean, cov)`` in compiled code: its ``logpdf`` and
    ``pdf`` (``mean``, ``cov`` and the dimension as the selector bound them)."""

    def __init__(self, mean: Any, cov: Any, cov_kind: int, dim: int) -> None:
        self.mean, self.cov, self.cov_kind, self.dim = mean, cov, cov_kind, dim

    def logpdf(self, x: Any) -> Any:
        return mvn_logpdf(x, self.mean, self.cov, self.cov_kind, self.dim,
                          quantile_kind(x, self.dim), True)

    def pdf(self, x: Any) -> Any:
        return mvn_logpdf(x, self.mean, self.cov, self.cov_kind, self.dim,
                          quantile_kind(x, self.dim), False)


def frozen_mvn(mean: Any, cov: Any, cov_kind: int, dim: int) -> FrozenMultivariateNormal:
    """The frozen distribution (see ``FrozenMultivariateNormal``)."""
    return FrozenMultivariateNormal(mean, cov, cov_kind, dim)
