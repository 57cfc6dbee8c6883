"""numpy.linalg and scipy.linalg functions of the linalg family in compiled code: values
equal the library's, gradients match central differences, forward mode agrees with the
gradient and Hessian-vector products match differences of the gradient.  Also the
conventions: eig of a matrix with complex eigenvalues is a run-time error; the QR and
null-space bases that are not unique are refused at the call."""

from __future__ import annotations

import traceback

import numpy as np
import pytest
import scipy.linalg as sl
from helpers_rules import Case, check_gradient, check_hessian, check_jvp, check_value

import st_autodiff as st

_rng = np.random.default_rng(11)


def normal(*shape: int) -> np.ndarray:
    return _rng.standard_normal(shape)


A = normal(3, 3) + 3 * np.eye(3)
A3 = normal(2, 3, 3) + 3 * np.eye(3)
TALL, WIDE = normal(4, 3), normal(3, 5)
SPD = A @ A.T
_N = normal(3, 3) + 2 * np.eye(3)
REAL_SPECTRUM = _N @ np.diag([1.0, 2.5, -1.2]) @ np.linalg.inv(_N)  # non-symmetric, real
BAND_LOWER = np.array([[4.0, 5, 6, 7], [1, 0.5, 0.2, 0]])
BAND_UPPER = np.array([[0.0, 1, 0.5, 0.2], [4.0, 5, 6, 7]])


def both_qr(a):
    q, r = np.linalg.qr(a)
    return q * r[0, -1] + np.sum(r)


NUMPY = [
    Case("qr", both_qr, (TALL,)),
    Case("qr-square", both_qr, (A,)),
    Case("qr-wide", both_qr, (WIDE,)),
    Case("qr-wide-complete", lambda a: np.linalg.qr(a, mode="complete")[0] ** 2, (WIDE,)),
    Case("qr-r", lambda a: np.linalg.qr(a, mode="r"), (TALL,)),
    Case("qr-stack", lambda a: np.linalg.qr(a)[1], (A3,)),
    Case("eig-values", lambda a: np.linalg.eig(a)[0], (REAL_SPECTRUM,)),
    Case("eig-vectors", lambda a: np.linalg.eig(a)[1] ** 2, (REAL_SPECTRUM,)),
    Case("eigvals", lambda a: np.linalg.eigvals(a), (REAL_SPECTRUM,)),
    Case("cond", lambda a: np.linalg.cond(a), (TALL,)),
    Case("cond-minus-2", lambda a: np.linalg.cond(a, -2), (A,)),
    Case("cond-fro", lambda a: np.linalg.cond(a, "fro"), (A,)),
    Case("cond-1", lambda a: np.linalg.cond(a, 1), (A,)),
    Case("cond-inf-stack", lambda a: np.linalg.cond(a, np.inf), (A3,)),
    Case("cond-nuc", lambda a: np.linalg.cond(a, "nuc"), (A,)),
    Case("matrix_power", lambda a: np.linalg.matrix_power(a, 3), (A3,)),
    Case("matrix_power-negative", lambda a: np.linalg.matrix_power(a, -2), (A,), exact=False),
    Case("multi_dot", lambda a, b: np.linalg.multi_dot([a[0], a, b, b[0]]), (A, TALL.T)),
    Case("multi_dot-3", lambda a, b: np.linalg.multi_dot([a, b, b.T]), (A, TALL.T)),
    Case("multi_dot-5", lambda a, b: np.linalg.multi_dot([b.T, a, a, b, b.T]), (A, TALL.T)),
    Case("tensorinv", lambda a: np.linalg.tensorinv(np.reshape(a, (3, 3)), ind=1), (A,)),
    Case("tensorsolve", lambda a, b: np.linalg.tensorsolve(a, b),
         (np.reshape(np.kron(A, A), (3, 3, 3, 3)), TALL[:3])),
    Case("tensorsolve-axes", lambda a, b: np.linalg.tensorsolve(a, b, axes=(0,)),
         (np.reshape(np.kron(A, A), (3, 3, 3, 3)), normal(3, 3))),
    Case("svdvals", lambda a: np.linalg.svdvals(a), (TALL,)),
    Case("trace", lambda a: np.linalg.trace(a, offset=1), (A3,)),
    Case("outer", lambda a: np.linalg.outer(a[0], a[1]), (A,)),
    Case("cross", lambda a: np.linalg.cross(a[0], a[1]), (A,)),
    Case("diagonal", lambda a: np.linalg.diagonal(a, offset=1), (A3,)),
    Case("matmul", lambda a: np.linalg.matmul(a, a), (A,)),
    Case("tensordot", lambda a: np.linalg.tensordot(a, a, axes=1), (A,)),
    Case("vecdot", lambda a: np.linalg.vecdot(a, a), (A,), exact=False),  # NumPy's own loop
    Case("matrix_transpose", lambda a: np.linalg.matrix_transpose(a) * a, (A3,)),
]

SCIPY = [
    Case("sl.norm", lambda a: sl.norm(a), (A,)),
    Case("sl.norm-1-axis", lambda a: sl.norm(a, 1, axis=0), (A,)),
    Case("sl.norm-2", lambda a: sl.norm(a, 2), (A,)),
    Case("sl.eig", lambda a: sl.eig(a)[0], (REAL_SPECTRUM,)),
    Case("sl.eig-vectors", lambda a: sl.eig(a)[1] ** 2, (REAL_SPECTRUM,)),
    Case("sl.eig-values-only", lambda a: sl.eig(a, right=False), (REAL_SPECTRUM,)),
    Case("sl.eigvals", lambda a: sl.eigvals(a), (REAL_SPECTRUM,)),
    Case("cosm", lambda a: sl.cosm(a), (A * 0.3,)),
    Case("sinm", lambda a: sl.sinm(a), (A * 0.3,)),
    Case("tanm", lambda a: sl.tanm(a), (A * 0.1,)),
    Case("coshm", lambda a: sl.coshm(a), (A * 0.3,)),
    Case("sinhm", lambda a: sl.sinhm(a), (A * 0.3,)),
    Case("tanhm", lambda a: sl.tanhm(a), (A * 0.3,)),
    Case("fractional_matrix_power", lambda a: sl.fractional_matrix_power(a, 0.5), (SPD,)),
    Case("fractional_matrix_power-t", lambda a, t: sl.fractional_matrix_power(a, t),
         (SPD, 0.7)),
    Case("expm_frechet-L", lambda a, e: sl.expm_frechet(a * 0.3, e)[1], (A, TALL[:3])),
    Case("expm_frechet-expm", lambda a, e: sl.expm_frechet(a * 0.3, e)[0], (A, TALL[:3])),
    Case("expm_frechet-block", lambda a, e: sl.expm_frechet(
        a * 0.3, e, method="blockEnlarge", compute_expm=False), (A, TALL[:3])),
    # compiled from SciPy's source, whose arithmetic changes between releases (1.18's polar
    # and orth round differently from 1.17's): equal to rounding, not bit for bit
    Case("polar-u", lambda a: sl.polar(a)[0], (A,), exact=False),
    Case("polar-p-left", lambda a: sl.polar(a, side="left")[1], (A,), exact=False),
    Case("orth", lambda a: sl.orth(a) ** 2, (TALL,), exact=False),
    Case("khatri_rao", lambda a, b: sl.khatri_rao(a, b), (A, TALL)),
    Case("solveh_banded-lower", lambda a, b: sl.solveh_banded(a, b, lower=True),
         (BAND_LOWER, normal(4))),
    Case("solveh_banded-upper", lambda a, b: sl.solveh_banded(a, b), (BAND_UPPER, normal(4, 2))),
    Case("cho_solve_banded-upper", lambda a, b: sl.cho_solve_banded((a, False), b),
         (sl.cholesky_banded(BAND_UPPER), normal(4))),
    Case("cho_solve_banded-lower", lambda a, b: sl.cho_solve_banded((a, True), b),
         (sl.cholesky_banded(BAND_LOWER, lower=True), normal(4, 2))),
    Case("cholesky_banded-upper", lambda a: sl.cholesky_banded(a), (BAND_UPPER,)),
    Case("cholesky_banded-lower", lambda a: sl.cholesky_banded(a, lower=True), (BAND_LOWER,)),
    Case("cholesky_banded-then-solve", lambda a, b: sl.cho_solve_banded(
        (sl.cholesky_banded(a), False), b), (BAND_UPPER, normal(4))),
]

CASES = NUMPY + SCIPY
IDS = [c.id for c in CASES]


@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_value_matches_the_library(c: Case) -> None:
    check_value(c)


@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_gradient_matches_central_differences(c: Case) -> None:
    check_gradient(c)


@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_jvp_agrees_with_gradient(c: Case) -> None:
    check_jvp(c)


@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_hessian_vector_product(c: Case) -> None:
    check_hessian(c)


# --- conventions ------------------------------------------------------------------------


def _eigvals_sum(a):
    return np.sum(np.linalg.eigvals(a))


def test_complex_eigenvalues_are_a_located_run_time_error() -> None:
    """A rotation has eigenvalues +-i: NumPy returns complex arrays; the compiled code
    raises (naming this file's line in its traceback), never drops the imaginary part."""
    rotation = np.array([[0.0, -1.0], [1.0, 0.0]])
    g = st.grad(_eigvals_sum)
    g(REAL_SPECTRUM)
    with pytest.raises(ValueError, match="complex eigenvalues") as info:
        g(rotation)
    frames = traceback.extract_tb(info.value.__traceback__)
    generated = [f for f in frames if f.filename.startswith("<st_autodiff _eigvals_sum")]
    assert generated and "rt.eigvals(a)" in generated[0].line  # the user's call, compiled
    with pytest.raises(ValueError, match="complex eigenvalues"):
        st.grad(lambda a: np.sum(sl.eig(a)[1]))(rotation)


def test_eig_and_eigvals_are_real_arrays_of_the_library_values() -> None:
    w, v = np.linalg.eig(REAL_SPECTRUM)
    got = st.value_and_grad(lambda a: np.sum(np.linalg.eig(a)[0] * np.arange(3.0)))
    assert got(REAL_SPECTRUM)[0] == np.sum(w * np.arange(3.0))
    sw = sl.eigvals(REAL_SPECTRUM)
    val = st.value_and_grad(lambda a: np.sum(sl.eigvals(a) ** 2))(REAL_SPECTRUM)[0]
    assert val == np.sum(sw.real ** 2)


@pytest.mark.parametrize("fn, match", [
    (lambda a: np.sum(np.linalg.qr(a, mode="complete")[0]), "mode='reduced'"),
    (lambda a: np.sum(np.linalg.qr(a, mode="raw")[0]), "raw"),
    (lambda a: np.sum(sl.null_space(a.T)), "projector"),
])
def test_non_unique_bases_are_refused_at_the_call(fn, match) -> None:
    with pytest.raises(st.CompileError, match=match) as info:
        st.grad(fn)(TALL)
    assert "test_rules_linalg_family.py" in str(info.value)


def test_null_space_of_a_constant_is_the_library_value() -> None:
    basis = sl.null_space(WIDE)

    def f(x):
        return np.sum(sl.null_space(WIDE) ** 2) * x

    assert st.grad(f)(2.0) == np.sum(basis ** 2)


def test_complex_fractional_power_is_refused_at_run_time() -> None:
    with pytest.raises(ValueError, match="complex"):
        st.grad(lambda a: np.sum(sl.fractional_matrix_power(a, 0.5)))(np.diag([1.0, -2.0]))


def test_eigenvector_gradient_of_repeated_eigenvalues_is_not_finite_values_alone_are() -> None:
    """The convention of JAX and PyTorch: eigenvalues alone have a finite derivative where
    they are repeated; eigenvectors' derivatives divide by the gap and are not finite."""
    q = np.linalg.qr(_N)[0]  # symmetric, so every LAPACK path keeps the spectrum real
    a = q @ np.diag([2.0, 2.0, 5.0]) @ q.T
    a = (a + a.T) / 2
    grad_w = st.grad(lambda m: np.sum(np.linalg.eigvals(m)))(a)
    np.testing.assert_allclose(grad_w, np.eye(3), atol=1e-12)  # d trace = I
    col = int(np.argmin(np.abs(np.linalg.eigvals(a) - 2.0)))  # a repeated one

    def vector(m):
        return np.sum(np.linalg.eig(m)[1][:, col])

    with np.errstate(all="ignore"):
        grad_v = st.grad(vector)(a)
    assert not np.all(np.isfinite(grad_v)) or np.max(np.abs(grad_v)) > 1e6  # 1 / (gap ~ eps)


def test_named_results_as_numpy_returns_them() -> None:
    """``np.linalg.qr``, ``eig`` and ``svd`` return NumPy's named tuples: fields or
    unpacking."""
    def f(a):
        res = np.linalg.qr(a)
        q, r = res
        u = np.linalg.svd(a, full_matrices=False)
        w = np.linalg.eig(a[:3] @ a[:3].T + 3.0 * np.eye(3)).eigenvalues
        return np.sum(res.Q ** 2 * res.R[0, 0]) + np.sum(r) + np.sum(u.S) + np.sum(w)

    check_gradient(Case("named", f, (TALL,)))
