"""numpy.linalg decompositions in compiled code: svd (both ``compute_uv``), eigh,
eigvalsh, pinv, lstsq, and the nuclear and spectral norms.  Values equal NumPy's, the
gradient matches central differences (eigh on ``sym(a)``: it reads one triangle), forward
mode agrees and second order is checked where the values are distinct."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_rules import Case, check_gradient, check_hessian, check_jvp, check_value

import st_autodiff as st

_rng = np.random.default_rng(5)


def normal(*shape: int) -> np.ndarray:
    return _rng.standard_normal(shape)


def sym(a):
    return (a + a.T) / 2


def u_squared(a):
    return np.linalg.svd(a, full_matrices=False)[0] ** 2  # squared: the sign is arbitrary


def svd_parts(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return np.sum(u ** 2 * s[None, :]) + np.sum(vh[:, 1:] ** 2) + np.sum(s ** 3)


def reconstructed(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return (u * s) @ vh


def eigh_parts(a):
    w, v = np.linalg.eigh(sym(a))
    return np.sum(w ** 2) + np.sum(v ** 2 * np.arange(3.0))


CASES = [
    Case("svdvals", lambda a: np.linalg.svd(a, compute_uv=False), (normal(4, 3),)),
    Case("svdvals-wide", lambda a: np.linalg.svd(a, compute_uv=False), (normal(2, 4),)),
    Case("svd-u", u_squared, (normal(4, 3),)),
    Case("svd-u-wide", u_squared, (normal(3, 5),)),
    Case("svd-parts", svd_parts, (normal(4, 3),)),
    Case("svd-parts-wide", svd_parts, (normal(3, 4),)),
    Case("svd-square", lambda a: np.linalg.svd(a)[2] ** 2, (normal(3, 3),)),
    Case("svd-reconstructed", reconstructed, (normal(4, 3),), exact=False),
    Case("eigvalsh", lambda a: np.linalg.eigvalsh(sym(a)) ** 3, (normal(3, 3),)),
    Case("eigh-values", lambda a: np.linalg.eigh(sym(a))[0], (normal(3, 3),)),
    Case("eigh-vectors", lambda a: np.linalg.eigh(sym(a))[1] ** 2, (normal(3, 3),)),
    Case("eigh-parts", eigh_parts, (normal(3, 3),)),
    # one triangle read: the gradient is zero on the other (central differences agree)
    Case("eigvalsh-lower", lambda a: np.linalg.eigvalsh(a) ** 3, (sym(normal(3, 3)),)),
    Case("eigvalsh-upper", lambda a: np.linalg.eigvalsh(a, UPLO="U"), (sym(normal(3, 3)),)),
    Case("eigh-lower", lambda a: np.linalg.eigh(a)[1] ** 2, (sym(normal(3, 3)),)),
    Case("pinv", lambda a: np.linalg.pinv(a), (normal(4, 3),)),
    Case("pinv-wide", lambda a: np.linalg.pinv(a), (normal(2, 3),)),
    Case("lstsq", lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0], (normal(5, 3), normal(5)),
         exact=False),
    Case("lstsq-residuals", lambda a, b: np.linalg.lstsq(a, b, rcond=None)[1],
         (normal(5, 3), normal(5, 2)), exact=False),
    Case("norm-nuc", lambda a: np.linalg.norm(a, "nuc"), (normal(4, 3),)),
    Case("norm-2", lambda a: np.linalg.norm(a, 2), (normal(4, 3),)),
    Case("norm-minus-2", lambda a: np.linalg.norm(a, -2), (normal(3, 4),)),
    Case("matrix_norm-nuc", lambda a: np.linalg.matrix_norm(a, ord="nuc"), (normal(2, 3, 3),)),
    Case("matrix_norm-2-keepdims", lambda a: np.linalg.matrix_norm(a, ord=2, keepdims=True),
         (normal(2, 3, 4),)),
]
IDS = [c.id for c in CASES]


@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_value_matches_numpy(c: Case) -> None:
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


def test_eigvalsh_of_repeated_eigenvalues_is_finite() -> None:
    """Only eigenvalues used: no division by eigenvalue gaps, so the identity (all equal)
    has the gradient V diag(g) V^T = I, not NaN."""
    def f(a):
        return np.sum(np.linalg.eigvalsh(a))

    np.testing.assert_allclose(st.grad(f)(np.eye(3)), np.eye(3), atol=1e-14)
    assert st.grad(f)(np.eye(3) + np.triu(np.ones((3, 3)), 1))[0, 1] == 0  # upper: unread

    def g(a):
        return np.sum(np.linalg.eigh(a)[0] ** 2)

    np.testing.assert_allclose(st.grad(g)(2 * np.eye(3)), 4 * np.eye(3), atol=1e-13)


def test_svd_full_matrices_of_non_square_vectors_is_a_located_error() -> None:
    def f(a):
        return np.sum(np.linalg.svd(a)[0])

    with pytest.raises(st.CompileError, match="full_matrices=False"):
        st.grad(f)(normal(4, 3))


def test_norm_ord2_over_other_axes_stays_refused() -> None:
    def f(a):
        return np.linalg.norm(a, 2, axis=(0, 2))

    with pytest.raises(st.CompileError, match="last two axes"):
        st.grad(lambda a: np.sum(f(a)))(normal(3, 2, 3))


# --- the eager runtime: st.linalg (torch.linalg's names) ----------------------------------


def _svd_u_loss(a):
    return np.sum(np.linalg.svd(a, full_matrices=False)[0] ** 2 * np.arange(3.0))


def _eigh_loss(a):
    w, v = np.linalg.eigh(a)
    return np.sum(w ** 2) + np.sum(v ** 2 * np.arange(3.0))


def test_eager_svd_and_svdvals_match_the_compiler() -> None:
    a = normal(4, 3)

    def f(a):
        return np.sum(np.linalg.svd(a, compute_uv=False) ** 3)

    want = st.grad(f)(a)
    t = st.tensor(a, requires_grad=True)
    u, s, vh = st.linalg.svd(t, full_matrices=False)
    (s ** 3).sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), want, rtol=1e-12)
    np.testing.assert_array_equal(s.detach().numpy(), np.linalg.svd(a, full_matrices=False)[1])
    t.grad = None
    (st.linalg.svdvals(t) ** 3).sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), want, rtol=1e-12)
    t.grad = None
    (st.linalg.svd(t, full_matrices=False).U ** 2 * st.tensor(np.arange(3.0))).sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), st.grad(_svd_u_loss)(a), rtol=1e-10)


def test_eager_eigh_and_norms() -> None:
    a = sym(normal(3, 3))
    t = st.tensor(a, requires_grad=True)
    w, v = st.linalg.eigh(t)
    ((w ** 2).sum() + (v ** 2 * st.tensor(np.arange(3.0))).sum()).backward()
    np.testing.assert_allclose(t.grad.numpy(), st.grad(_eigh_loss)(a), rtol=1e-10)
    e = st.tensor(2 * np.eye(3), requires_grad=True)  # repeated: eigenvalues alone are fine
    (st.linalg.eigh(e).eigenvalues ** 2).sum().backward()
    np.testing.assert_allclose(e.grad.numpy(), 4 * np.eye(3), atol=1e-13)
    b = normal(3, 4)
    m = st.tensor(b, requires_grad=True)
    st.linalg.matrix_norm(m, ord="nuc").backward()
    np.testing.assert_allclose(m.grad.numpy(), st.grad(lambda a: np.linalg.norm(a, "nuc"))(b),
                               rtol=1e-12)
    m.grad = None
    st.linalg.vector_norm(m).backward()
    np.testing.assert_allclose(m.grad.numpy(), b / np.linalg.norm(b), rtol=1e-12)
    assert st.linalg.vector_norm(m, dim=1, keepdim=True).shape == (3, 1)


def _lstsq_with_residuals(a, b):
    x, r, rank, s = np.linalg.lstsq(a, b)
    return np.sum(x ** 2) + np.sum(r)


def _lstsq_solution(a, b):
    return np.sum(np.linalg.lstsq(a, b)[0] ** 2)


def test_lstsq_residuals_of_a_rank_deficient_matrix_are_refused_not_invented():
    """NumPy returns an empty residual array below full column rank; the compiled code
    cannot return an array whose shape only the data decide, so it raises where the
    residuals are used (value or gradient), never a silently different value."""
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(5, 3)), np.arange(5.0)
    deficient = a.copy()
    deficient[:, 2] = deficient[:, 1]
    np.testing.assert_allclose(st.value_and_grad(_lstsq_with_residuals)(a, b)[0],
                               _lstsq_with_residuals(a, b))
    for fn in (st.grad, st.value_and_grad):
        with pytest.raises(np.linalg.LinAlgError, match="rank 2 < 3"):
            fn(_lstsq_with_residuals)(deficient, b)
    assert np.all(np.isfinite(st.grad(_lstsq_solution)(deficient, b)))  # x alone: fine
