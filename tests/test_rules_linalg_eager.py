"""torch.linalg in the eager runtime (``st.linalg``): values equal NumPy's/SciPy's, the
``backward`` gradient matches central differences of the same eager function, and
``grad_fn`` carries PyTorch's node name.  Second order through ``create_graph=True``."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sl

import st_autodiff as st
from st_autodiff.testing import check_grads

L = st.linalg
_rng = np.random.default_rng(21)


def normal(*shape: int) -> np.ndarray:
    return _rng.standard_normal(shape)


A = normal(3, 3) + 3 * np.eye(3)
A3 = normal(2, 3, 3) + 3 * np.eye(3)
TALL, WIDE = normal(4, 3), normal(3, 5)
SPD = A @ A.T
B, V = normal(3, 2), normal(3)
BIG = normal(6, 6) + 4 * np.eye(6)


def sym(t):
    return (t + t.transpose(-2, -1)) / 2


# name: (eager function of tensors, arrays, reference of arrays, PyTorch's grad_fn name)
CASES = {
    "inv": (L.inv, (A3,), np.linalg.inv, "LinalgInvExBackward0"),
    "det": (L.det, (A3,), np.linalg.det, "LinalgDetBackward0"),
    "slogdet": (lambda a: L.slogdet(a).logabsdet, (A,), lambda a: np.linalg.slogdet(a)[1],
                "LinalgSlogdetBackward0"),
    "solve": (L.solve, (A, B), np.linalg.solve, "LinalgSolveExBackward0"),
    "solve-batch-of-vectors": (L.solve, (A3, normal(2, 3)),
                               lambda a, b: np.linalg.solve(a, b[..., None])[..., 0],
                               "LinalgSolveExBackward0"),
    "solve-right": (lambda a, b: L.solve(a, b, left=False), (A, B.T),
                    lambda a, b: np.linalg.solve(a.T, b.T).T, "LinalgSolveExBackward0"),
    # cholesky reads one triangle; PyTorch's gradient is the symmetric one: move sym(a)
    "cholesky": (lambda a: L.cholesky(sym(a)), (SPD,), np.linalg.cholesky,
                 "LinalgCholeskyExBackward0"),
    "cholesky-upper": (lambda a: L.cholesky(sym(a), upper=True), (SPD,),
                       lambda a: np.linalg.cholesky(a).T, "LinalgCholeskyExBackward0"),
    "eigh": (lambda a: L.eigh(sym(a)).eigenvectors ** 2, (SPD,),
             lambda a: np.linalg.eigh(a)[1] ** 2, "PowBackward0"),
    "eigvalsh": (lambda a: L.eigvalsh(sym(a)), (SPD,), np.linalg.eigvalsh,
                 "LinalgEighBackward0"),
    "svd": (lambda a: L.svd(a, full_matrices=False).S, (TALL,),
            lambda a: np.linalg.svd(a)[1], "LinalgSvdBackward0"),
    "svdvals": (L.svdvals, (TALL,), lambda a: np.linalg.svd(a, compute_uv=False),
                "LinalgSvdBackward0"),
    "qr": (lambda a: L.qr(a).Q, (TALL,), lambda a: np.linalg.qr(a)[0], "LinalgQrBackward0"),
    "qr-wide": (lambda a: L.qr(a).R, (WIDE,), lambda a: np.linalg.qr(a)[1],
                "LinalgQrBackward0"),
    "qr-r": (lambda a: L.qr(a, mode="r").R, (TALL,), lambda a: np.linalg.qr(a)[1],
             "LinalgQrBackward0"),
    "lu": (lambda a: L.lu(a).U, (A,), lambda a: sl.lu(a)[2], "LinalgLuBackward0"),
    "lu_factor": (lambda a: L.lu_factor(a).LU, (A,), lambda a: sl.lu_factor(a)[0],
                  "LinalgLuFactorExBackward0"),
    "lu_solve": (lambda a, b: L.lu_solve(*L.lu_factor(a), b), (A, B), np.linalg.solve,
                 "LinalgLuSolveBackward0"),
    "lu_solve-adjoint": (lambda a, b: L.lu_solve(*L.lu_factor(a), b, adjoint=True), (A, B),
                         lambda a, b: np.linalg.solve(a.T, b), "LinalgLuSolveBackward0"),
    "lu_solve-right": (lambda a, b: L.lu_solve(*L.lu_factor(a), b, left=False), (A, B.T),
                       lambda a, b: np.linalg.solve(a.T, b.T).T, "LinalgLuSolveBackward0"),
    "solve_triangular": (lambda a, b: L.solve_triangular(a, b, upper=True), (A, B),
                         lambda a, b: sl.solve_triangular(a, b), "LinalgSolveTriangularBackward0"),
    "solve_triangular-unit-right": (
        lambda a, b: L.solve_triangular(a, b, upper=False, left=False, unitriangular=True),
        (A, B.T), lambda a, b: sl.solve_triangular(a, b.T, lower=True, unit_diagonal=True,
                                                   trans=1).T,
        "LinalgSolveTriangularBackward0"),
    "pinv": (L.pinv, (TALL,), np.linalg.pinv, "LinalgPinvBackward0"),
    "pinv-hermitian": (lambda a: L.pinv(sym(a), hermitian=True), (SPD,),
                       lambda a: np.linalg.pinv(a, hermitian=True), "LinalgPinvBackward0"),
    "lstsq": (lambda a, b: L.lstsq(a, b).solution, (TALL, normal(4, 2)),
              lambda a, b: np.linalg.lstsq(a, b)[0], "LinalgLstsqBackward0"),
    "lstsq-vector": (lambda a, b: L.lstsq(a, b).solution, (TALL, normal(4)),
                     lambda a, b: np.linalg.lstsq(a, b)[0], "LinalgLstsqBackward0"),
    "norm": (L.norm, (A3,), lambda a: np.linalg.norm(a.ravel()), "LinalgVectorNormBackward0"),
    "norm-nuc": (lambda a: L.norm(a, "nuc"), (A,), lambda a: np.linalg.norm(a, "nuc"),
                 "SumBackward1"),
    "vector_norm-dims": (lambda a: L.vector_norm(a, 3, dim=(0, 2), keepdim=True), (A3,),
                         lambda a: np.sum(np.abs(a) ** 3, axis=(0, 2), keepdims=True) ** (1 / 3),
                         "LinalgVectorNormBackward0"),
    "norm-dim": (lambda a: L.norm(a, 3, dim=1), (A,), lambda a: np.linalg.norm(a, 3, axis=1),
                 "LinalgVectorNormBackward0"),
    "vector_norm": (lambda a: L.vector_norm(a, 1, dim=0), (A,),
                    lambda a: np.linalg.norm(a, 1, axis=0), "LinalgVectorNormBackward0"),
    "matrix_norm": (lambda a: L.matrix_norm(a, 2), (A3,), lambda a: np.linalg.norm(a, 2, (1, 2)),
                    "AmaxBackward0"),
    "matrix_norm-fro": (L.matrix_norm, (A3,), lambda a: np.linalg.norm(a, "fro", (1, 2)),
                        "LinalgVectorNormBackward0"),
    "matrix_power": (lambda a: L.matrix_power(a, 3), (A3,),
                     lambda a: np.linalg.matrix_power(a, 3), None),
    "matrix_power-negative": (lambda a: L.matrix_power(a, -2), (A,),
                              lambda a: np.linalg.matrix_power(a, -2), None),
    "multi_dot": (lambda a, b: L.multi_dot([a[0], a, b]), (A, B),
                  lambda a, b: np.linalg.multi_dot([a[0], a, b]), None),
    "cross": (L.cross, (A, V), np.cross, "LinalgCrossBackward0"),
    "vecdot": (L.vecdot, (A, V), lambda a, b: np.sum(a * b, -1), "SumBackward1"),
    "matrix_exp": (lambda a: L.matrix_exp(a * 0.3), (A3,), lambda a: sl.expm(a * 0.3),
                   "LinalgMatrixExpBackward0"),
    "cond": (L.cond, (A,), np.linalg.cond, "DivBackward0"),
    "cond-fro": (lambda a: L.cond(a, "fro"), (A,), lambda a: np.linalg.cond(a, "fro"), None),
    "tensorinv": (lambda a: L.tensorinv(a.reshape(3, 2, 6), ind=2), (BIG,),
                  lambda a: np.linalg.tensorinv(a.reshape(3, 2, 6), ind=2), None),
    "tensorsolve": (lambda a, b: L.tensorsolve(a.reshape(2, 3, 6), b), (BIG, normal(2, 3)),
                    lambda a, b: np.linalg.tensorsolve(a.reshape(2, 3, 6), b), None),
    "diagonal": (lambda a: L.diagonal(a, offset=1), (A3,),
                 lambda a: np.diagonal(a, 1, -2, -1), "DiagonalBackward0"),
    "torch.det": (st.det, (A,), np.linalg.det, "LinalgDetBackward0"),
    "torch.inverse": (st.inverse, (A,), np.linalg.inv, "LinalgInvExBackward0"),
    "torch.slogdet": (lambda a: st.slogdet(a)[1], (A,), lambda a: np.linalg.slogdet(a)[1],
                      "LinalgSlogdetBackward0"),
    "torch.logdet": (st.logdet, (SPD,), lambda a: np.log(np.linalg.det(a)), "LogdetBackward0"),
    "torch.matrix_exp": (st.matrix_exp, (A * 0.2,), sl.expm, "LinalgMatrixExpBackward0"),
    "torch.matrix_power": (lambda a: st.matrix_power(a, 2), (A,),
                           lambda a: np.linalg.matrix_power(a, 2), None),
    "torch.diagonal": (st.diagonal, (A3,), np.diagonal, "DiagonalBackward0"),
    "torch.trace": (st.trace, (A,), np.trace, "TraceBackward0"),
    "torch.pinverse": (st.pinverse, (TALL,), np.linalg.pinv, "LinalgPinvBackward0"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_value_gradient_and_node_name(name: str) -> None:
    fn, args, ref, node = CASES[name]
    ts = [st.tensor(a, requires_grad=True) for a in args]
    out = fn(*ts)
    np.testing.assert_allclose(out.detach().numpy(), ref(*args), rtol=1e-10, atol=1e-12)
    if node is not None:
        assert type(out.grad_fn).__name__ == node
    w = np.random.default_rng(len(name)).standard_normal(tuple(out.shape))
    out.backward(st.tensor(w))
    grads = tuple(t.grad.numpy() for t in ts)

    def loss(*a):
        return np.sum(fn(*[st.tensor(x) for x in a]).detach().numpy() * w)

    check_grads(loss, args, lambda *a: grads)


@pytest.mark.parametrize("name, fn, arg", [
    ("qr", lambda a: L.qr(a).R[0, 1] * L.qr(a).Q.sum(), TALL),
    ("matrix_exp", lambda a: (L.matrix_exp(a * 0.3) ** 2).sum(), A),
    ("lu", lambda a: (L.lu(a).L * L.lu(a).U).sum(), A),
    ("solve_triangular", lambda a: (L.solve_triangular(a, st.tensor(B), upper=False) ** 2).sum(),
     A),
])
def test_second_order_through_create_graph(name, fn, arg) -> None:
    """The rules run again on Tensors: the gradient of the gradient along ``v`` equals the
    central difference of the gradient."""
    v = np.random.default_rng(4).standard_normal(arg.shape)

    def gradient(x):
        t = st.tensor(x, requires_grad=True)
        (g,) = st.autograd.grad(fn(t), t, create_graph=True)
        return t, g

    t, g = gradient(arg)
    (hv,) = st.autograd.grad((g * st.tensor(v)).sum(), t)
    eps = 1e-5
    fd = (gradient(arg + eps * v)[1].detach().numpy()
          - gradient(arg - eps * v)[1].detach().numpy()) / (2 * eps)
    np.testing.assert_allclose(hv.numpy(), fd, rtol=1e-5, atol=1e-6)


def test_eager_and_compiler_agree_on_qr_and_lu() -> None:
    def f(a):
        q, r = np.linalg.qr(a)
        return np.sum(q ** 3) + np.sum(r ** 2)

    t = st.tensor(TALL, requires_grad=True)
    q, r = L.qr(t)
    ((q ** 3).sum() + (r ** 2).sum()).backward()
    np.testing.assert_allclose(t.grad.numpy(), st.grad(f)(TALL), rtol=1e-10)


def test_pytorch_errors() -> None:
    with pytest.raises(RuntimeError, match="square"):
        L.inv(st.tensor(TALL))
    with pytest.raises(RuntimeError, match="length 3"):
        L.cross(st.tensor(WIDE), st.tensor(WIDE))
    with pytest.raises(RuntimeError, match="unrecognized mode"):
        L.qr(st.tensor(A), mode="raw")
    with pytest.raises(RuntimeError, match="at least 2"):
        L.multi_dot([st.tensor(A)])


def test_tensor_methods() -> None:
    t = st.tensor(A, requires_grad=True)
    np.testing.assert_allclose(t.det().detach().numpy(), np.linalg.det(A), rtol=1e-12)
    np.testing.assert_allclose(t.inverse().detach().numpy(), np.linalg.inv(A), rtol=1e-12)
    np.testing.assert_allclose(t.matrix_power(2).detach().numpy(), A @ A, rtol=1e-12)
    np.testing.assert_allclose(t.diagonal(1).detach().numpy(), np.diagonal(A, 1))
    np.testing.assert_allclose(t.matrix_exp().detach().numpy(), sl.expm(A), rtol=1e-10)
    assert type(t.slogdet()[1].grad_fn).__name__ == "LinalgSlogdetBackward0"
    t.det().backward()
    np.testing.assert_allclose(t.grad.numpy(), np.linalg.det(A) * np.linalg.inv(A).T,
                               rtol=1e-10)
