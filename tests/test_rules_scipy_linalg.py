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

import inspect

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
BAND = normal(3, 3) + np.array([[0.0], [4.0], [0.0]])  # (l + u + 1, M), diagonal dominant



def _cho_lower(a, b):
    return linalg.cho_solve(linalg.cho_factor(a, lower=True), b)


def _unit_trans(a, b):
    return linalg.solve_triangular(a, b, trans=1, lower=True, unit_diagonal=True)


def _diagonal(a, b):
    return linalg.solve(a + 3 * np.eye(3), b, assume_a="diagonal")  # off-diagonal unread


def _upper_transposed(a, b):
    return linalg.solve(a, b, assume_a="upper triangular", transposed=True)


def _lu_trans(a, b):
    return linalg.lu_solve(linalg.lu_factor(a), b, trans=1)


def _projector(a):
    v = linalg.eigh(a)[1][:, :2]
    return v @ v.T


def _banded_transposed(a, b):
    return linalg.solve(a, b, assume_a="banded", transposed=True)


CASES = [
    Case("det", lambda a: linalg.det(a), (N3,)),
    Case("det_no_check", lambda a: linalg.det(a, check_finite=False), (A3,)),
    Case("inv", lambda a: linalg.inv(a), (N3 + 3 * np.eye(3),)),
    Case("inv_upper_triangular", lambda a: linalg.inv(a, assume_a="upper triangular"),
         (NONSYM,)),
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
    Case("solve_tridiagonal", lambda a, b: linalg.solve(a, b, assume_a="tridiagonal"),
         (N3 + 3 * np.eye(3), B32)),
    Case("solve_banded_transposed", _banded_transposed, (N3 + 3 * np.eye(3), B3)),
    Case("solve_upper_triangular_transposed", _upper_transposed, (NONSYM, B32)),
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
    Case("eigh_lower_projector", _projector, (spd(4) + normal(4, 4),)),
    Case("eigvalsh", lambda a: linalg.eigvalsh(a), (NONSYM,)),
    Case("svd_values", lambda a: linalg.svd(a, compute_uv=False), (normal(4, 3),)),
    Case("svd_reduced_u_squared", lambda a: linalg.svd(a, full_matrices=False)[0] ** 2,
         (normal(4, 3),)),
    Case("svd_vh_squared", lambda a: linalg.svd(a)[2] ** 2, (normal(3, 3),)),
    Case("pinv", lambda a: linalg.pinv(a), (normal(4, 3),)),
    Case("block_diag", lambda a, b: linalg.block_diag(a, b, 2.0), (N3, B32)),
    Case("block_diag_vector", lambda a, b: linalg.block_diag(b, a), (N3, B3)),
    Case("solve_banded_1_1", lambda ab, b: linalg.solve_banded((1, 1), ab, b), (BAND, B32)),
    Case("solve_banded_2_0_vector", lambda ab, b: linalg.solve_banded((2, 0), ab, b),
         (BAND, B3)),
    Case("lu_factor_lu", lambda a: linalg.lu_factor(a)[0], (N3,)),
    Case("lu_solve", lambda a, b: linalg.lu_solve(linalg.lu_factor(a), b), (N3, B32)),
    Case("lu_solve_trans_vector", _lu_trans, (N3, B3)),
    Case("qr_economic_q", lambda a: linalg.qr(a, mode="economic")[0], (normal(4, 3),)),
    Case("qr_economic_r", lambda a: linalg.qr(a, mode="economic")[1], (normal(4, 3),)),
    Case("qr_square_both", lambda a: linalg.qr(a)[0] * 2 + linalg.qr(a)[1], (N3,)),
    Case("qr_mode_r", lambda a: linalg.qr(a, mode="r")[0], (normal(5, 2),)),
    Case("lstsq_x", lambda a, b: linalg.lstsq(a, b)[0], (normal(5, 3), normal(5, 2))),
    Case("lstsq_residues_vector", lambda a, b: linalg.lstsq(a, b)[1], (normal(5, 3), normal(5))),
    Case("lstsq_singular_values", lambda a, b: linalg.lstsq(a, b)[3], (normal(5, 3), normal(5))),
    Case("det_stack", lambda a: linalg.det(a), (normal(2, 3, 3),)),
    Case("inv_stack", lambda a: linalg.inv(a), (normal(2, 3, 3) + 3 * np.eye(3),)),
    Case("lu_p_l_u", lambda a: linalg.lu(a)[0] + linalg.lu(a)[1] * 2 + linalg.lu(a)[2] * 3,
         (N3,)),
    Case("lu_permute_l", lambda a: linalg.lu(a, permute_l=True)[0], (N3,)),
    Case("lu_indices_u", lambda a: linalg.lu(a, p_indices=True)[2], (N3,)),
    Case("hankel", lambda c: linalg.hankel(c), (B3,)),
    Case("hankel_rows", lambda c, r: linalg.hankel(c, r), (B3, normal(4))),
    Case("circulant", lambda c: linalg.circulant(c), (normal(4),)),
    Case("continuous_lyapunov", lambda a, q: linalg.solve_continuous_lyapunov(a, q),
         (-A3, normal(3, 3))),
    Case("discrete_lyapunov", lambda a, q: linalg.solve_discrete_lyapunov(a, q),
         (0.3 * N3, normal(3, 3))),
    Case("toeplitz", lambda c: linalg.toeplitz(c), (B3,)),
    Case("toeplitz_rows", lambda c, r: linalg.toeplitz(c, r), (B3, normal(4))),
]
def _installed_scipy_refusal(c: Case) -> Exception | None:
    """The installed SciPy's error for this call (``assume_a=`` of ``inv`` and stacks
    before SciPy 1.17), else None."""
    try:
        c.fn(*c.args)
    except (TypeError, ValueError) as exc:
        return exc
    return None


REFUSED = [c for c in CASES if _installed_scipy_refusal(c) is not None]
CASES = [c for c in CASES if c not in REFUSED]
IDS = [c.id for c in CASES]


def test_refused_where_the_installed_scipy_refuses() -> None:
    """A call the installed SciPy refuses is a located error with SciPy's message (every
    refused case is a call of one matrix)."""
    refused = [*REFUSED, Case("inv_too_many", lambda a: linalg.inv(a, False, True, 1), (A3,))]
    for c in refused:
        message = str(_installed_scipy_refusal(c))  # "inv() got an unexpected keyword ..."
        expected = "too many positional arguments" if "positional" in message else \
            message.split("() ", 1)[-1]
        with pytest.raises(st.CompileError) as info:
            st.value_and_grad(lambda a, c=c: np.sum(c.fn(a)))(*c.args)
        assert expected in str(info.value), (c.id, message, str(info.value))
        assert "test_rules_scipy_linalg.py" in str(info.value)


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


# --- SciPy's run-time checks, copy semantics, one kernel call -----------------------------


def test_check_finite_raises_scipys_error_at_run_time() -> None:
    def loss(a, b):
        return np.sum(linalg.solve(a, b))

    g = st.grad(loss)
    g(A3, B3)
    with pytest.raises(ValueError, match="must not contain infs or NaNs"):
        g(A3, np.array([1.0, np.nan, 0.0]))

    def unchecked(a, b):
        return np.sum(linalg.solve(a, b, check_finite=False))

    assert np.isnan(st.grad(unchecked)(A3, np.array([1.0, np.nan, 0.0]))).any()


def test_not_positive_definite_raises_linalg_error() -> None:
    def loss(a, b):
        return np.sum(linalg.solve(a, b, assume_a="pos"))

    with pytest.raises(np.linalg.LinAlgError):
        st.grad(loss)(-A3, B3)


def test_complex_logm_is_a_runtime_error_not_a_dropped_imaginary_part() -> None:
    def loss(a):
        return np.sum(linalg.logm(a))

    with pytest.raises(Exception, match="logarithm is complex"):
        st.grad(loss)(np.diag([1.0, -2.0, 3.0]))


def test_overwrite_flags_never_write_into_the_callers_arrays() -> None:
    def loss(a, b):
        x = linalg.solve(a, b, overwrite_a=True, overwrite_b=True)
        c = linalg.cho_factor(a, overwrite_a=True)
        y = linalg.solve_banded((1, 1), a, b, overwrite_ab=True, overwrite_b=True,
                                check_finite=False)  # as CubicSpline calls it
        return np.sum(x) + np.sum(linalg.cho_solve(c, b, overwrite_b=True)) + np.sum(y)

    def plain(a, b):
        x = linalg.solve(a, b)
        c = linalg.cho_factor(a)
        y = linalg.solve_banded((1, 1), a, b)
        return np.sum(x) + np.sum(linalg.cho_solve(c, b)) + np.sum(y)

    a, b = A3.copy(), B32.copy()
    got = st.grad(loss, wrt=(0, 1))(a, b)
    assert np.array_equal(a, A3) and np.array_equal(b, B32)
    # SciPy itself may overwrite: central differences are taken of the copying version
    check_gradient(Case("overwrite", plain, (A3, B32)))
    for g, e in zip(got, st.grad(plain, wrt=(0, 1))(A3, B32), strict=True):
        np.testing.assert_array_equal(g, e)


def test_triangular_solve_is_one_call_in_the_generated_code() -> None:
    def loss(a, b):
        return np.sum(linalg.solve_triangular(a, b, lower=True) ** 2)

    g = st.grad(loss)
    g(A3, B3)
    assert "solve_lower" in g.source, g.source


def test_expm_gradient_matches_scipys_frechet_derivative() -> None:
    a, w = 0.5 * N3, normal(3, 3)

    def loss(a):
        return np.sum(linalg.expm(a) * w)

    expected = linalg.expm_frechet(a.T, w, compute_expm=False)
    np.testing.assert_allclose(st.grad(loss)(a), expected, rtol=1e-12, atol=1e-13)


# --- what stays refused: located errors at the user's call ------------------------------


def _generalized(a):
    return np.sum(linalg.eigh(a, np.eye(3))[0])


def _subset(a):
    return np.sum(linalg.eigvalsh(a, subset_by_index=[0, 1]))


def _unknown_structure(a):
    return np.sum(linalg.solve(a, np.ones(3), assume_a="skew"))


def _pinv_atol(a):
    return np.sum(linalg.pinv(a, atol=0.1))


def _inv_symmetric_spelled_out(a):
    return np.sum(linalg.inv(a, assume_a="symmetric"))  # SciPy's inv knows only 'sym'


def _inv_diagonal(a):
    return np.sum(linalg.inv(a, assume_a="diagonal"))


def _wrong_rhs(a):
    return np.sum(linalg.solve(a, np.ones(4)))


def _qr_full_tall(a):
    return np.sum(linalg.qr(np.concatenate((a, a)))[0])


def _qr_pivoting(a):
    return np.sum(linalg.qr(a, pivoting=True)[1])


@pytest.mark.parametrize("lower", [True, False])
def test_eigenvectors_and_singular_vectors_have_scipys_signs(lower: bool) -> None:
    """SciPy's LAPACK drivers choose signs NumPy's may not (and flip them under tiny
    perturbations, so central differences of raw eigenvectors mean nothing: the gradient
    cases above are sign-invariant); the values are SciPy's, signs included."""
    def vectors(a):
        return np.sum(linalg.eigh(a, lower=lower)[1] * w)

    def singular(a):
        u, s, vh = linalg.svd(a, full_matrices=False)
        return np.sum(u * w[:, :3]) + np.sum(vh * w[:3, :3])

    w = normal(4, 4)
    for k in range(6):
        a = normal(4, 4) + 0.3 * k * np.eye(4)
        np.testing.assert_allclose(st.value_and_grad(vectors)(a)[0], vectors(a), rtol=1e-12)
        np.testing.assert_allclose(st.value_and_grad(singular)(a[:, :3])[0],
                                   singular(a[:, :3]), rtol=1e-12)


def test_single_precision_stays_single_like_scipy() -> None:
    def loss(a, b):
        x = linalg.solve_triangular(a, b, lower=True)
        q, r = linalg.qr(a)
        return np.sum(x * x) + np.sum(linalg.expm(a * 0.1)) + np.sum(r) + np.sum(
            linalg.lu_factor(a)[0])

    a, b = A3.astype(np.float32), B32.astype(np.float32)
    value, grads = st.value_and_grad(loss, wrt=(0, 1))(a, b)
    np.testing.assert_allclose(value, loss(a, b), rtol=1e-5)
    assert grads[0].dtype == np.float32 and grads[1].dtype == np.float32
    expected = st.grad(loss, wrt=(0, 1))(A3, B32)
    for g, e in zip(grads, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=2e-3, atol=2e-3)


def test_lu_row_indices_are_scipys() -> None:
    def loss(a):
        p, lower, upper = linalg.lu(a, p_indices=True)
        return np.sum(lower * (p[:, None] + 1.0) ** 2) + np.sum(upper)

    a = normal(4, 4)
    value, _ = st.value_and_grad(loss)(a)
    np.testing.assert_allclose(value, loss(a), rtol=1e-13)
    check_gradient(Case("lu_indices", loss, (a,)))


#: whether the installed SciPy's inv takes assume_a= (1.17 on), else its refusal
_INV_ASSUME_A = "assume_a" in inspect.signature(linalg.inv).parameters
_NO_ASSUME_A = "got an unexpected keyword argument 'assume_a'"


@pytest.mark.parametrize("fn, message", [
    (_qr_full_tall, "mode='full' of a tall matrix"),
    (_qr_pivoting, "pivoting=True"),
    (_generalized, "generalized eigenproblem"),
    (_subset, "eigenvalue subsets"),
    (_unknown_structure, "skew is not a recognized matrix structure"),
    (_pinv_atol, "atol > 0"),
    (_wrong_rhs, "b must have shape (3,)"),
    (_inv_diagonal, "assume_a='diagonal') is not supported" if _INV_ASSUME_A else _NO_ASSUME_A),
    (_inv_symmetric_spelled_out, "'symmetric' is not a recognized matrix structure"
     if _INV_ASSUME_A else _NO_ASSUME_A),
])
def test_uncovered_uses_are_located_errors(fn, message) -> None:
    with pytest.raises(st.StAutodiffError) as info:
        st.grad(fn)(A3)
    assert message in str(info.value)
    assert "test_rules_scipy_linalg.py" in str(info.value)
