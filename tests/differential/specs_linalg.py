"""Differential specs of the linalg family (issue 11): the ops qr, eig, eigvals, lu and
matrix_exp, and the numpy.linalg functions composed of ops (cond, matrix_power,
multi_dot, tensorinv, tensorsolve, svdvals, NumPy 2's array-API aliases).  JAX's
``jnp.linalg``/``jax.scipy.linalg`` is the oracle where it computes the same function.

Domains: ``wellcond`` (diagonally dominant) for inverses and factorizations.  Matrices
with real, well separated eigenvalues are built as ``diag(1.5, 3, 4.5) + 0.1 a0`` with
``a0`` in [-2, 2]: the perturbation's norm (below 0.6) is under half the gaps, so every
eigenvalue stays real and simple (Bauer-Fike).  JAX's ``eig`` is complex: its real part
is compared, eigenvalues sorted (the order is LAPACK's and need not agree).
"""

from __future__ import annotations

from typing import Any

from st_autodiff.ir.ops import Op

from .specs import Spec

_REAL_SPECTRUM = "np.diag(np.array([1.5, 3.0, 4.5])) + 0.1 * a0"


def _jax_eigvals(jnp: Any, a0: Any) -> Any:
    """JAX's eigenvalues (real parts, sorted); its second derivatives need the eigenvector
    derivatives, which JAX computes only when asked (valid here: simple eigenvalues)."""
    import jax  # noqa: PLC0415

    a = jnp.diag(jnp.array([1.5, 3.0, 4.5])) + 0.1 * a0
    w = jax.lax.linalg.eig(a, compute_left_eigenvectors=False, enable_eigvec_derivs=True)[0]
    return jnp.sort(w.real)


def _jax_lu(jnp: Any, a0: Any) -> Any:
    import jax.scipy.linalg  # noqa: PLC0415

    _p, lower, upper = jax.scipy.linalg.lu(a0)
    return lower * 2.0 + upper


def _jsl() -> Any:
    import jax.scipy.linalg  # noqa: PLC0415

    return jax.scipy.linalg


def _scipy(body: str) -> str:
    """A spec body that imports ``scipy.linalg`` as ``sl`` first."""
    return f"from scipy import linalg as sl\nreturn {body}"


def _jax_expm(jnp: Any, a0: Any) -> Any:
    import jax.scipy.linalg  # noqa: PLC0415

    return jax.scipy.linalg.expm(a0)


SPECS_LINALG: tuple[Spec, ...] = (
    # --- the family's ops -----------------------------------------------------------
    Spec("linalg-qr", "np.linalg.qr(a0)[0] * 2.0 + np.linalg.qr(a0)[1][0, 1]", (Op.QR,),
         (((4, 3),), ((3, 3),), ((2, 4, 3),)), ("real",), None),
    Spec("linalg-qr-wide", "np.linalg.qr(a0)[0] * 2.0 + np.linalg.qr(a0)[1][0, 3]",
         (Op.QR,), (((3, 5),),), ("real",), None),
    Spec("linalg-qr-r", "np.linalg.qr(a0, mode='r')", (Op.QR,), (((4, 3),), ((3, 4),)),
         ("real",), None),
    Spec("linalg-eigvals", f"np.sort(np.linalg.eigvals({_REAL_SPECTRUM}))", (Op.EIGVALS,),
         (((3, 3),),), ("real",), None, jax=_jax_eigvals),
    Spec("linalg-eig", f"np.sort(np.linalg.eig({_REAL_SPECTRUM})[0])", (Op.EIG,),
         (((3, 3),),), ("real",), None, jax=_jax_eigvals),
    # eigenvectors: unit columns, sign LAPACK's (squared here); JAX's order may differ
    Spec("linalg-eig-vectors", f"np.linalg.eig({_REAL_SPECTRUM})[1] ** 2", (Op.EIG,),
         (((3, 3),),), ("real",), None, jax=None),
    Spec("linalg-lu", "rt.lu(a0)[1] * 2.0 + rt.lu(a0)[2]", (Op.LU,), (((3, 3),),),
         ("wellcond",), None, jax=_jax_lu),
    Spec("linalg-matrix_exp", "rt.matrix_exp(0.5 * a0)", (Op.MATRIX_EXP,),
         (((3, 3),), ((2, 2, 2),)), ("real",), None,
         jax=lambda jnp, a0: _jax_expm(jnp, 0.5 * a0)),
    # --- numpy.linalg functions composed of ops --------------------------------------
    Spec("linalg-cond", "np.linalg.cond(a0)", (Op.SVDVALS,), (((3, 3),), ((4, 3),)),
         ("real",), None),
    Spec("linalg-cond-fro", "np.linalg.cond(a0, 'fro')", (Op.INV,), (((3, 3),),),
         ("wellcond",), None),
    Spec("linalg-cond-1", "np.linalg.cond(a0, 1)", (Op.INV,), (((3, 3),),), ("wellcond",),
         None),
    Spec("linalg-matrix_power", "np.linalg.matrix_power(a0, 3)", (Op.MATMUL,),
         (((3, 3),), ((2, 3, 3),)), ("real",), None),
    Spec("linalg-matrix_power-neg", "np.linalg.matrix_power(a0, -2)", (Op.INV,),
         (((3, 3),),), ("wellcond",), None),
    Spec("linalg-multi_dot", "np.linalg.multi_dot([a0, a1, a0.T])", (Op.MATMUL,),
         (((3, 4), (4, 4)),), ("real", "real"), None),
    Spec("linalg-tensorinv", "np.linalg.tensorinv(np.reshape(a0, (3, 2, 6)), ind=2)",
         (Op.INV,), (((6, 6),),), ("wellcond",), None,
         jax=lambda jnp, a0: jnp.linalg.tensorinv(jnp.reshape(a0, (3, 2, 6)), ind=2)),
    Spec("linalg-tensorsolve", "np.linalg.tensorsolve(np.reshape(a0, (2, 3, 6)), a1)",
         (Op.SOLVE,), (((6, 6), (2, 3)),), ("wellcond", "real"), None,
         jax=lambda jnp, a0, a1: jnp.linalg.tensorsolve(jnp.reshape(a0, (2, 3, 6)), a1)),
    Spec("linalg-svdvals", "np.linalg.svdvals(a0)", (Op.SVDVALS,), (((4, 3),),), ("real",),
         None),
    Spec("linalg-trace", "np.linalg.trace(a0, offset=1)", (Op.TRACE,), (((2, 3, 3),),),
         ("real",), None),
    Spec("linalg-matrix_transpose", "np.linalg.matrix_transpose(a0) * a0[0, 0]",
         (Op.SWAPAXES,), (((3, 3),),), ("real",), None),
    Spec("linalg-vecdot", "np.linalg.vecdot(a0, a1)", (Op.MUL,), (((2, 3), (3,)),),
         ("real", "real"), None),
    Spec("linalg-outer", "np.linalg.outer(a0, a1)", (Op.OUTER,), (((3,), (2,)),),
         ("real", "real"), None),
    Spec("linalg-cross", "np.linalg.cross(a0, a1)", (Op.MUL,), (((2, 3), (3,)),),
         ("real", "real"), None),
    Spec("linalg-diagonal", "np.linalg.diagonal(a0, offset=-1)", (Op.DIAGONAL,),
         (((2, 3, 3),),), ("real",), None),
    Spec("linalg-matmul", "np.linalg.matmul(a0, a1)", (Op.MATMUL,), (((2, 3), (3, 2)),),
         ("real", "real"), None),
    Spec("linalg-tensordot", "np.linalg.tensordot(a0, a1, axes=1)", (Op.TENSORDOT,),
         (((2, 3), (3, 2)),), ("real", "real"), None),
    # --- scipy.linalg kernels with rules (Op.CALL) and compositions --------------------
    # SciPy's 'SPS' expm_frechet computes in float64 (JAX keeps float32): float64 only
    Spec("linalg-sl-expm_frechet", _scipy("sl.expm_frechet(0.5 * a0, a1)[1]"), (Op.CALL,),
         (((3, 3), (3, 3)),), ("real", "real"), None, dtypes=("float64",),
         jax=lambda jnp, a0, a1: _jsl().expm_frechet(0.5 * a0, a1)[1]),
    Spec("linalg-sl-expm_frechet-expm", _scipy("sl.expm_frechet(0.5 * a0, a1)[0]"),
         (Op.CALL,), (((3, 3), (3, 3)),), ("real", "real"), None, dtypes=("float64",),
         jax=lambda jnp, a0, a1: _jsl().expm_frechet(0.5 * a0, a1)[0]),
    Spec("linalg-sl-cosm", _scipy("sl.cosm(0.5 * a0)"), (Op.CALL,), (((3, 3),),), ("real",),
         None, jax=None),
    Spec("linalg-sl-sinm", _scipy("sl.sinm(0.5 * a0)"), (Op.CALL,), (((3, 3),),), ("real",),
         None, jax=None),
    Spec("linalg-sl-tanm", _scipy("sl.tanm(0.2 * a0)"), (Op.CALL,), (((3, 3),),), ("real",),
         None, jax=None),
    Spec("linalg-sl-tanhm", _scipy("sl.tanhm(0.5 * a0)"), (Op.CALL,), (((3, 3),),), ("real",),
         None, jax=None),
    Spec("linalg-sl-fractional_matrix_power", _scipy("sl.fractional_matrix_power(a0, 0.5)"),
         (Op.CALL,), (((3, 3),),), ("spd",), None, jax=None, dtypes=("float64",)),
    # SciPy's eigvals is complex: its real part (ours is real already)
    Spec("linalg-sl-eigvals", _scipy(f"np.sort(np.real(sl.eigvals({_REAL_SPECTRUM})))"),
         (Op.EIGVALS,),
         (((3, 3),),), ("real",), None, jax=_jax_eigvals),
    Spec("linalg-sl-polar", _scipy("sl.polar(a0)[0]"), (Op.SVD,), (((3, 3),),),
         ("wellcond",), None, jax=lambda jnp, a0: _jsl().polar(a0, method="svd")[0]),
    Spec("linalg-sl-solveh_banded", _scipy(
        "sl.solveh_banded(a0 * np.array([[0.3], [0.0]]) + np.array([[0.0], [3.0]]), a1)"),
         (Op.CALL,), (((2, 4), (4,)),), ("real", "real"), None, jax=None),
    Spec("linalg-sl-cholesky_banded", _scipy(
        "sl.cholesky_banded(a0 * np.array([[0.3], [0.3]]) + np.array([[0.0], [3.0]]))"),
         (Op.CALL,), (((2, 4),),), ("real",), None, jax=None),
)
