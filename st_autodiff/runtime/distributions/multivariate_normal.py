"""``MultivariateNormal``: a normal vector given by ``loc`` and exactly one of
``covariance_matrix``, ``precision_matrix`` or ``scale_tril``.

Everything is computed from the lower Cholesky factor ``L`` (``_unbroadcasted_scale_tril``):
``cholesky(covariance_matrix)``, ``cholesky(inv(precision_matrix))``, or ``scale_tril``
itself.  ``log_prob`` is ``-(k log 2 pi + |L^{-1}(x - loc)|^2) / 2 - sum(log diag L)``, with
the triangular solve done by the table's ``solve`` on ``tril(L)`` (so the upper triangle of
``scale_tril`` gets a zero gradient, as with PyTorch's ``solve_triangular``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...ir.ops import Op
from ..tensor import Tensor
from ..tensor_ops import apply_op
from . import constraints
from .distribution import Distribution
from .utils import cholesky, diagonal, lazy_property, solve_lower, standard_normal

__all__ = ["MultivariateNormal"]


def batch_mahalanobis(lower: Tensor, x: Tensor) -> Tensor:
    """``|lower^{-1} x|^2`` over the last dimension, batch dimensions broadcast."""
    return solve_lower(lower, x).pow(2).sum(-1)


class MultivariateNormal(Distribution):
    """The multivariate normal distribution (see the module docstring)."""

    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Tensor, covariance_matrix: Tensor | None = None,
                 precision_matrix: Tensor | None = None, scale_tril: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m is not None for m in (covariance_matrix, scale_tril, precision_matrix)]
        if sum(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        name, matrix = next((n, m) for n, m in (("scale_tril", scale_tril),
                                                ("covariance_matrix", covariance_matrix),
                                                ("precision_matrix", precision_matrix))
                            if m is not None)
        assert matrix is not None
        if matrix.dim() < 2:
            what = "scale_tril matrix" if name == "scale_tril" else name
            raise ValueError(f"{what} must be at least two-dimensional, with optional "
                             f"leading batch dimensions")
        batch = tuple(np.broadcast_shapes(tuple(matrix.shape)[:-2], tuple(loc.shape)[:-1]))
        setattr(self, name, matrix.expand(batch + (-1, -1)))
        self.loc = loc.expand(batch + (-1,))
        super().__init__(batch, tuple(self.loc.shape)[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = cholesky(covariance_matrix)
        else:
            assert precision_matrix is not None
            self._unbroadcasted_scale_tril = cholesky(apply_op(Op.INV, precision_matrix))

    def _matrix_shape(self) -> tuple[int, ...]:
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @lazy_property
    def scale_tril(self) -> Tensor:
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        lower = self._unbroadcasted_scale_tril
        return (lower @ lower.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> Tensor:
        lower = self._unbroadcasted_scale_tril
        result: Tensor = apply_op(Op.INV, lower @ lower.mT).expand(self._matrix_shape())
        return result

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        shape = tuple(self._batch_shape) + tuple(self._event_shape)
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        eps = standard_normal(tuple(self._extended_shape(sample_shape)), self.loc)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def _half_log_det(self) -> Tensor:
        return diagonal(self._unbroadcasted_scale_tril).log().sum(-1)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        m = batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        k = self._event_shape[0]
        result: Tensor = -0.5 * (k * math.log(2 * math.pi) + m) - self._half_log_det()
        return result

    def entropy(self) -> Tensor:
        k = self._event_shape[0]
        h = 0.5 * k * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        result: Tensor = h if len(self._batch_shape) == 0 else h.expand(tuple(self._batch_shape))
        return result
