"""``scipy.linalg`` functions read through rules on the public functions
(``st_autodiff/decompositions/select_scipy_linalg.py``): ``det``, ``inv``, ``solve`` (every
``assume_a`` covered), ``solve_triangular``, ``cholesky``, ``cho_factor``/``cho_solve``,
``expm``, ``logm``, ``eigh``/``eigvalsh``, ``svd``, ``pinv``, ``block_diag``, ``toeplitz``.

Each case is a call as real code writes it.  The compiled value equals SciPy's (to 1e-13),
the gradient matches float64 central differences in every entry (SciPy reads one triangle
of a symmetric matrix: the other gets a zero gradient, as differences say), the forward
mode agrees with it and the Hessian matches central differences of the gradient.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rules import Case, check_gradient, check_hessian, check_jvp, check_value

import st_autodiff as st

linalg = pytest.importorskip("scipy.linalg")

_rng = np.random.default_rng(14)


def normal(*shape: int) -> np.ndarray:
    return _rng.standard_normal(shape)


def spd(n: int) -> np.ndarray:
    a = normal(n, n)
    return a @ a.T + n * np.eye(n)


A3, N3 = spd(3), normal(3, 3)
NONSYM = A3 + 0.2 * N3  # SciPy reads one triangle: the other must not matter
B3, B32 = normal(3), normal(3, 2)



def _cho_lower(a, b):
    return linalg.cho_solve(linalg.cho_factor(a, lower=True), b)


def _unit_trans(a, b):
    return linalg.solve_triangular(a, b, trans=1, lower=True, unit_diagonal=True)


def _diagonal(a, b):
    return linalg.solve(a * np.eye(3) + 2 * np.eye(3), b, assume_a="diagonal")


CASES = [
    Case("det", lambda a: linalg.det(a), (N3,)),
    Case("det_no_check", lambda a: linalg.det(a, check_finite=False), (A3,)),
    Case("inv", lambda a: linalg.inv(a), (N3 + 3 * np.eye(3),)),
    Case("inv_sym_lower", lambda a: linalg.inv(a, assume_a="sym", lower=True), (NONSYM,)),
    Case("inv_pos", lambda a: linalg.inv(a, assume_a="pos"), (NONSYM,)),
    Case("solve_vector", lambda a, b: linalg.solve(a, b), (N3 + 3 * np.eye(3), B3)),
    Case("solve_gen_matrix", lambda a, b: linalg.solve(a, b, assume_a="gen"), (N3, B32)),
    Case("solve_transposed", lambda a, b: linalg.solve(a, b, transposed=True), (N3, B32)),
    Case("solve_sym", lambda a, b: linalg.solve(a, b, assume_a="sym"), (NONSYM, B32)),
    Case("solve_pos_lower", lambda a, b: linalg.solve(a, b, assume_a="pos", lower=True),
         (NONSYM, B3)),
    Case("solve_pos_upper", lambda a, b: linalg.solve(a, b, assume_a="pos"), (NONSYM, B32)),
    Case("solve_diagonal", _diagonal, (N3, B32)),
    Case("solve_lower_triangular", lambda a, b: linalg.solve(a, b, assume_a="lower triangular"),
         (NONSYM, B3)),
    Case("solve_triangular_lower", lambda a, b: linalg.solve_triangular(a, b, lower=True),
         (NONSYM, B32)),
    Case("solve_triangular_upper_vector", lambda a, b: linalg.solve_triangular(a, b),
         (NONSYM, B3)),
    Case("solve_triangular_trans", lambda a, b: linalg.solve_triangular(a, b, trans="T"),
         (NONSYM, B32)),
    Case("solve_triangular_unit", _unit_trans, (N3, B3)),
    Case("cholesky_upper", lambda a: linalg.cholesky(a), (NONSYM,)),
    Case("cholesky_lower", lambda a: linalg.cholesky(a, lower=True), (NONSYM,)),
    Case("cho_factor_c", lambda a: linalg.cho_factor(a)[0], (NONSYM,)),
    Case("cho_solve", lambda a, b: linalg.cho_solve(linalg.cho_factor(a), b), (NONSYM, B32)),
    Case("cho_solve_lower_vector", _cho_lower, (NONSYM, B3)),
    Case("expm", lambda a: linalg.expm(a), (0.5 * N3,), tol=1e-5),
    Case("expm_stack", lambda a: linalg.expm(a), (0.3 * normal(2, 3, 3),), tol=1e-5),
    Case("logm", lambda a: linalg.logm(a), (NONSYM,), tol=1e-5),
    Case("eigh_values", lambda a: linalg.eigh(a)[0], (NONSYM,)),
    Case("eigh_upper_vectors_squared", lambda a: linalg.eigh(a, lower=False)[1] ** 2,
         (NONSYM,)),
    Case("eigvalsh", lambda a: linalg.eigvalsh(a), (NONSYM,)),
    Case("svd_values", lambda a: linalg.svd(a, compute_uv=False), (normal(4, 3),)),
    Case("svd_full_u_squared", lambda a: linalg.svd(a, full_matrices=False)[0] ** 2,
         (normal(4, 3),)),
    Case("pinv", lambda a: linalg.pinv(a), (normal(4, 3),)),
    Case("block_diag", lambda a, b: linalg.block_diag(a, b, 2.0), (N3, B32)),
    Case("block_diag_vector", lambda a, b: linalg.block_diag(b, a), (N3, B3)),
    Case("toeplitz", lambda c: linalg.toeplitz(c), (B3,)),
    Case("toeplitz_rows", lambda c, r: linalg.toeplitz(c, r), (B3, normal(4))),
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
