"""Differential specs of the catalogue entries no other spec module calls
(``st_autodiff/catalog.py``; ``tests/test_catalog.py`` requires every entry to be called by
some spec): NumPy compositions (``cov``, ``corrcoef``, ``histogram`` weights,
``linalg.lstsq``/``pinv``/``matrix_norm``/``vector_norm`` ...), the ``scipy.fft`` transforms,
the ``scipy.linalg`` functions with rules or compositions, ``scipy.special.logsumexp`` and
``scipy.stats.uniform.logpdf``.

Domains: ``wellcond`` (diagonally dominant) for inverses and solves, ``spd`` symmetrised in
the expression where the function reads one triangle (``(a0 + a0.T) / 2``: central
differences and JAX then see the same matrix as SciPy), ``diag(1.5, 3, 4.5) + 0.1 a0`` for
a real, positive, well separated spectrum (``logm``, ``sqrtm``, ``eig``), ``-spd`` for a
stable continuous Lyapunov equation and ``0.15 a0`` (spectral radius below 1) for the
discrete one.  Spectra are turned into real losses as in ``specs_fft.py``.  JAX is the
oracle where ``jax.numpy``/``jax.scipy`` computes the same function, else ``jax=None``; the
eager runtime runs its ``torch.linalg`` function where it has one (else ``eager`` is None).
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import Any

from st_autodiff.ir.ops import Op

from .specs import Shapes, Spec
from .specs_linalg import _jax_eigvals

_SYM = "(a0 + a0.T) / 2"
#: histogram data (the counts are piecewise constant in it: a constant, weights vary)
_DATA = "np.array([-1.7, -0.4, 0.1, 0.9, 1.3, 2.2])"
_RS = "np.diag(np.array([1.5, 3.0, 4.5])) + 0.1 * a0"
_IMPORTS = ("from scipy import linalg as sl\nfrom scipy import fft as sfft\n"
            "from scipy import special as sp\nimport scipy.stats as ss\n")


def _oracle(body: str, nargs: int) -> Callable[..., Any]:
    """The spec's body computed by JAX: ``np`` is ``jax.numpy``, ``sl`` ``jax.scipy.linalg``,
    ``sfft`` ``jax.numpy.fft``, ``sp`` ``jax.scipy.special``, ``ss`` ``jax.scipy.stats``."""
    params = ", ".join(f"a{k}" for k in range(nargs))
    src = f"def f(jnp, {params}):\n" + textwrap.indent(body, "    ")

    def call(jnp: Any, *a: Any) -> Any:
        import jax.scipy.linalg  # noqa: PLC0415
        import jax.scipy.special  # noqa: PLC0415
        import jax.scipy.stats  # noqa: PLC0415

        space: dict[str, Any] = {"np": jnp, "sl": jax.scipy.linalg, "sfft": jnp.fft,
                                 "sp": jax.scipy.special, "ss": jax.scipy.stats}
        exec(src, space)  # noqa: S102  (our own spec text)
        return space["f"](jnp, *a)

    return call


#: the op each spec's graph must reach (test_spec_reaches_its_ops), by name prefix
_REACHES = {
    "np.broadcast_arrays": "broadcast_to", "np.corrcoef": "clip", "np.cov": "dot",
    "np.fabs": "abs", "np.float_power": "pow", "np.histogram-weights": "matmul",
    "np.nan_to_num": "where", "np.linalg.lstsq": "svd", "np.linalg.matrix_norm": "norm",
    "np.linalg.pinv": "svd", "np.linalg.vector_norm": "norm", "sfft.fftshift": "roll",
    "sfft.ifftshift": "roll", "sfft.irfft": "fft_c2r", "sfft.hfft": "fft_c2r",
    "sfft.rfft": "fft_r2c", "sfft.ihfft": "fft_r2c", "sfft.fft": "fft_c2c", "sfft.ifft": "fft_c2c",
    "sl.cho_factor": "cholesky", "sl.cho_solve": "call", "sl.cholesky": "cholesky",
    "sl.circulant": "matmul", "sl.coshm": "call", "sl.sinhm": "call", "sl.det": "det",
    "sl.eigvalsh": "eigvalsh", "sl.eigh": "eigh", "sl.eig": "eig", "sl.expm": "call",
    "sl.hankel": "concatenate", "sl.inv": "inv", "sl.logm": "call", "sl.lstsq": "svd",
    "sl.lu": "call", "sl.norm": "norm", "sl.orth": "svd", "sl.pinv": "svd", "sl.qr": "call",
    "sl.solve_banded": "solve", "sl.solve_discrete": "solve", "sl.solve_triangular": "call",
    "sl.solve_": "call", "sl.solve-pos": "cholesky", "sl.solve": "solve", "sl.sqrtm": "call",
    "sl.svdvals": "svdvals", "sl.svd": "svd", "sl.toeplitz": "flip", "sp.logsumexp": "exp",
    "ss.uniform": "log",
}


def _reaches(name: str) -> tuple[Op, ...]:
    """The op of ``_REACHES`` under the longest prefix of ``name`` (none: no claim)."""
    keys = [k for k in _REACHES if name.startswith(k)]
    return (Op(_REACHES[max(keys, key=len)]),) if keys else ()


def _spec(name: str, body: str, shapes: tuple[Shapes, ...], domain: tuple[str, ...],
          jax: bool | Callable[..., Any] | None = True, f64: bool = False, like_a0: bool = False,
          **kw: Any) -> Spec:
    """``body`` (an expression, or lines ending in ``return``) as spec ``catalog.<name>``;
    ``jax=True``: JAX computes the same body (``f64``: in float64 for every input, as
    NumPy's ``cov`` does and JAX's does not; ``like_a0``: in ``a0``'s dtype, as NumPy's
    ``histogram`` gives float32 counts for float32 weights and JAX float64 ones)."""
    body = body if "\n" in body or body.startswith("return") else f"return {body}"
    oracle = _oracle(body, len(domain)) if jax is True else jax
    if (f64 or like_a0) and oracle is not None:
        inner = oracle

        def oracle(jnp: Any, *a: Any) -> Any:
            return inner(jnp, *a).astype(jnp.float64 if f64 else a[0].dtype)
    return Spec(f"catalog.{name}", _IMPORTS + body, kw.pop("ops", _reaches(name)), shapes, domain,
                kw.pop("eager", None), jax=oracle, **kw)


def _mix(call: str) -> str:
    """A nonlinear real function of the spectrum ``call`` (as in specs_fft.py)."""
    return f"z = {call}\nreturn z.real * z.imag + np.abs(z) ** 2 + np.sin(z.real)"


_ONE_D: tuple[Shapes, ...] = (((8,),), ((7,),), ((2, 5),))
_TWO_D: tuple[Shapes, ...] = (((4, 6),), ((3, 5),), ((2, 3, 4),))
_MAT: tuple[Shapes, ...] = (((3, 3),),)


def _numpy() -> list[Spec]:
    r = ("real",)
    return [
        _spec("np.asanyarray", "np.asanyarray(a0) * np.sin(a0)", (((3,),), ((2, 3),)), r,
              jax=lambda jnp, a0: jnp.asarray(a0) * jnp.sin(a0)),
        _spec("np.broadcast_arrays", "x, y = np.broadcast_arrays(a0, a1)\n"
              "return x * np.sin(y)", (((2, 3), (3,)), ((2, 1), (1, 3))), r * 2),
        _spec("np.corrcoef", "np.corrcoef(a0)", (((3, 5),),), r, f64=True),
        _spec("np.corrcoef-pair", "np.corrcoef(a0, a1, rowvar=False)", (((5, 2), (5, 1)),),
              r * 2, f64=True),
        _spec("np.cov", "np.cov(a0)", (((3, 5),), ((4,),)), r, f64=True),
        _spec("np.cov-ddof", "np.cov(a0, rowvar=False, ddof=0)", (((5, 3),),), r,
              f64=True),
        _spec("np.fabs", "np.fabs(a0)", (((3,),), ((2, 3),), ((),)), ("nonzero",)),
        _spec("np.float_power", "np.float_power(a0, a1)", (((3,), (3,)), ((2, 3), ()),
              (None, None)), ("positive", "real"), dtypes=("float64",)),
        # the counts are piecewise constant in the sample; the weights are linear
        _spec("np.histogram-weights", f"np.histogram({_DATA}, bins=np.array([-2.5, -1.0, 0.3,"
              " 2.5]), weights=a0)[0] * np.sum(a0)", (((6,),),), r,
              like_a0=True),
        _spec("np.histogram-range-density", f"np.histogram({_DATA}, bins=4, range=(-2.0, 2.0),"
              " weights=a0, density=True)[0]", (((6,),),), ("positive",), f64=True),
        _spec("np.nan_to_num", "np.nan_to_num(np.sqrt(a0) * a1, nan=0.5)",
              (((3,), (3,)), ((2, 3), ())), ("positive", "real")),
        _spec("np.vecdot", "np.vecdot(a0, a1)", (((2, 3), (3,)), ((4,), (4,))), r * 2),
        _spec("np.linalg.lstsq", "np.linalg.lstsq(a0, a1, rcond=None)[0]",
              (((5, 3), (5,)), ((5, 3), (5, 2))), r * 2),
        _spec("np.linalg.matrix_norm", "np.linalg.matrix_norm(a0)", (((3, 4),), ((2, 3, 3),)),
              r, eager=lambda a0: _torch().linalg.matrix_norm(a0)),
        _spec("np.linalg.matrix_norm-nuc", "np.linalg.matrix_norm(a0, ord='nuc')",
              (((3, 4),),), r, eager=lambda a0: _torch().linalg.matrix_norm(a0, ord="nuc")),
        _spec("np.linalg.matrix_norm-2", "np.linalg.matrix_norm(a0, ord=2, keepdims=True)",
              (((3, 3),),), r,
              eager=lambda a0: _torch().linalg.matrix_norm(a0, ord=2, keepdim=True)),
        _spec("np.linalg.pinv", "np.linalg.pinv(a0)", (((4, 3),), ((2, 4),)), r,
              eager=lambda a0: _torch().linalg.pinv(a0)),
        _spec("np.linalg.vector_norm", "np.linalg.vector_norm(a0)", (((3,),), ((2, 3),)), r,
              eager=lambda a0: _torch().linalg.vector_norm(a0)),
        _spec("np.linalg.vector_norm-ord", "np.linalg.vector_norm(a0, ord=3, axis=-1, "
              "keepdims=True)", (((2, 3),),), ("nonzero",),
              eager=lambda a0: _torch().linalg.vector_norm(a0, ord=3, dim=-1, keepdim=True)),
    ]


def _fft() -> list[Spec]:
    mix = [("fft", _ONE_D), ("ifft", _ONE_D), ("rfft", _ONE_D), ("ihfft", _ONE_D),
           ("fft2", _TWO_D), ("ifft2", _TWO_D), ("rfft2", _TWO_D), ("fftn", _TWO_D),
           ("ifftn", _TWO_D), ("rfftn", _TWO_D)]
    out = [_spec(f"sfft.{f}", _mix(f"sfft.{f}(a0)"), s, ("real",)) for f, s in mix]
    out += [_spec(f"sfft.{f}-ortho", _mix(f"sfft.{f}(a0, norm='ortho')"), s[:1], ("real",))
            for f, s in mix]
    pairs = [("irfft", "fft", _ONE_D), ("hfft", "fft", _ONE_D), ("irfft2", "fft2", _TWO_D),
             ("irfftn", "fftn", _TWO_D)]
    out += [_spec(f"sfft.{f}", f"np.sin(sfft.{f}(sfft.{g}(a0)))", s, ("real",))
            for f, g, s in pairs]
    out += [
        _spec("sfft.irfft-n", "np.sin(sfft.irfft(sfft.rfft(a0), n=7) * 3.0)", _ONE_D,
              ("real",)),
        _spec("sfft.fftshift", "sfft.fftshift(a0) * sfft.ifftshift(a0) ** 2", _ONE_D,
              ("real",)),
        _spec("sfft.ifftshift-pair", _mix("sfft.ifftshift(sfft.fftshift(sfft.fft(a0), "
                                          "axes=-1))"), _ONE_D, ("real",)),
    ]
    return out


def _linalg() -> list[Spec]:
    r, w, s = ("real",), ("wellcond",), ("spd",)
    jl = None
    return [
        _spec("sl.block_diag", "sl.block_diag(a0, a1, 2.0)", (((3, 3), (3, 2)),), r * 2,
              jax=lambda jnp, a0, a1: _jsl().block_diag(a0, a1, jnp.array([[2.0]]))),
        _spec("sl.cho_factor", f"np.triu(sl.cho_factor({_SYM})[0])", _MAT, s),
        _spec("sl.cho_solve", f"sl.cho_solve(sl.cho_factor({_SYM}, lower=True), a1)",
              (((3, 3), (3,)), ((3, 3), (3, 2))), ("spd", "real")),
        _spec("sl.cho_solve_banded", "sl.cho_solve_banded((a0 * np.array([[0.3], [0.0]])"
              " + np.array([[0.0], [2.0]]), False), a1)", (((2, 4), (4,)), ((2, 4), (4, 2))),
              r * 2, jax=jl),
        _spec("sl.cholesky", f"sl.cholesky({_SYM})", _MAT, s),
        _spec("sl.cholesky-lower", f"sl.cholesky({_SYM}, lower=True)", _MAT, s),
        _spec("sl.circulant", "sl.circulant(a0) @ a0", (((4,),),), r),
        _spec("sl.coshm", "sl.coshm(0.5 * a0)", _MAT, r, jax=jl),
        _spec("sl.sinhm", "sl.sinhm(0.5 * a0)", _MAT, r, jax=jl),
        _spec("sl.det", "sl.det(a0)", (((3, 3),), ((2, 2),)), r, f64=True),
        _spec("sl.eig", f"np.sort(np.real(sl.eig({_RS})[0]))", _MAT, r, jax=_jax_eigvals),
        _spec("sl.eig-vectors", f"sl.eig({_RS})[1] ** 2", _MAT, r, jax=jl),
        _spec("sl.eigh", f"sl.eigh({_SYM})[0]", _MAT, r),
        _spec("sl.eigh-vectors", f"sl.eigh({_SYM}, lower=False)[1] ** 2", _MAT, r, jax=jl),
        _spec("sl.eigvalsh", f"sl.eigvalsh({_SYM})", _MAT, r,
              jax=lambda jnp, a0: jnp.linalg.eigvalsh((a0 + a0.T) / 2)),
        _spec("sl.expm", "sl.expm(0.5 * a0)", (((3, 3),), ((2, 2, 2),)), r,
              eager=lambda a0: _torch().linalg.matrix_exp(0.5 * a0)),
        _spec("sl.hankel", "sl.hankel(a0)", (((3,),),), r),
        _spec("sl.hankel-rows", "sl.hankel(a0, a1)", (((3,), (4,)),), r * 2),
        _spec("sl.inv", "sl.inv(a0)", (((3, 3),),), w,
              eager=lambda a0: _torch().linalg.inv(a0)),
        _spec("sl.khatri_rao", "sl.khatri_rao(a0, a1)", (((2, 3), (4, 3)),), r * 2, jax=jl),
        _spec("sl.logm", f"sl.logm({_RS})", _MAT, r, jax=jl),
        _spec("sl.lstsq", "sl.lstsq(a0, a1)[0]", (((5, 3), (5,)), ((5, 3), (5, 2))), r * 2,
              jax=lambda jnp, a0, a1: jnp.linalg.lstsq(a0, a1)[0]),
        _spec("sl.lstsq-residues", "sl.lstsq(a0, a1)[1]", (((5, 3), (5,)),), r * 2,
              jax=lambda jnp, a0, a1: jnp.linalg.lstsq(a0, a1)[1][0]),
        _spec("sl.lu", "p, lower, upper = sl.lu(a0)\nreturn p + lower * 2.0 + upper * 3.0",
              _MAT, w),
        _spec("sl.lu_factor", "sl.lu_factor(a0)[0]", _MAT, w),
        _spec("sl.lu_solve", "sl.lu_solve(sl.lu_factor(a0), a1)",
              (((3, 3), (3,)), ((3, 3), (3, 2))), ("wellcond", "real")),
        _spec("sl.lu_solve-trans", "sl.lu_solve(sl.lu_factor(a0), a1, trans=1)",
              (((3, 3), (3, 2)),), ("wellcond", "real")),
        _spec("sl.norm-ord-axis", "sl.norm(a0, ord=3, axis=1)", (((2, 3),),), ("nonzero",),
              jax=lambda jnp, a0: jnp.linalg.norm(a0, ord=3, axis=1)),
        _spec("sl.norm-fro", "sl.norm(a0)", (((2, 3),),), r,
              jax=lambda jnp, a0: jnp.linalg.norm(a0)),
        _spec("sl.norm-2", "sl.norm(a0, 2)", (((3, 3),),), r,
              jax=lambda jnp, a0: jnp.linalg.norm(a0, 2)),
        # orth's columns have the SVD's signs: their projector does not depend on them
        _spec("sl.orth", "q = sl.orth(a0)\nreturn q @ q.T + np.sum(q ** 2)", (((4, 2),),), r,
              jax=jl),
        _spec("sl.pinv", "sl.pinv(a0)", (((4, 3),), ((2, 4),)), r,
              jax=lambda jnp, a0: jnp.linalg.pinv(a0)),
        _spec("sl.qr", "sl.qr(a0, mode='economic')[0] * 2.0 + sl.qr(a0, mode='economic')[1]"
              "[0, 2]", (((4, 3),),), r),
        _spec("sl.qr-square", "q, rr = sl.qr(a0)\nreturn q * 2.0 + rr", _MAT, r),
        _spec("sl.solve", "sl.solve(a0, a1)", (((3, 3), (3,)), ((3, 3), (3, 2))),
              ("wellcond", "real"), eager=lambda a0, a1: _torch().linalg.solve(a0, a1)),
        _spec("sl.solve-pos", f"sl.solve({_SYM}, a1, assume_a='pos')", (((3, 3), (3, 2)),),
              ("spd", "real"), jax=lambda jnp, a0, a1: jnp.linalg.solve((a0 + a0.T) / 2, a1)),
        _spec("sl.solve_banded", "sl.solve_banded((1, 1), a0 + np.array([[0.0], [4.0], "
              "[0.0]]), a1)", (((3, 4), (4,)), ((3, 4), (4, 2))), r * 2, jax=jl),
        _spec("sl.solve_continuous_lyapunov", "sl.solve_continuous_lyapunov(-a0, a1)",
              (((3, 3), (3, 3)),), ("spd", "real"), jax=jl),
        _spec("sl.solve_lyapunov", "sl.solve_lyapunov(-a0, a1)", (((3, 3), (3, 3)),),
              ("spd", "real"), jax=jl),
        _spec("sl.solve_discrete_lyapunov", "sl.solve_discrete_lyapunov(0.15 * a0, a1)",
              (((3, 3), (3, 3)),), r * 2, jax=jl),
        _spec("sl.solve_sylvester", "sl.solve_sylvester(a0, a1, a2)",
              (((3, 3), (2, 2), (3, 2)),), ("spd", "spd", "real"), jax=jl),
        _spec("sl.solve_triangular", "sl.solve_triangular(a0, a1, lower=True)",
              (((3, 3), (3, 2)), ((3, 3), (3,))), ("wellcond", "real")),
        _spec("sl.solve_triangular-trans", "sl.solve_triangular(a0, a1, trans='T')",
              (((3, 3), (3, 2)),), ("wellcond", "real")),
        _spec("sl.sqrtm", f"sl.sqrtm({_RS})", _MAT, r, jax=jl),
        _spec("sl.svd", "sl.svd(a0, full_matrices=False)[0] ** 2", (((4, 3),), ((3, 3),)), r,
              jax=lambda jnp, a0: jnp.linalg.svd(a0, full_matrices=False)[0] ** 2),
        _spec("sl.svd-vh", "sl.svd(a0)[2] ** 2", _MAT, r,
              jax=lambda jnp, a0: jnp.linalg.svd(a0)[2] ** 2),
        _spec("sl.svdvals", "sl.svdvals(a0)", (((4, 3),), ((2, 3),)), r,
              jax=lambda jnp, a0: jnp.linalg.svd(a0, compute_uv=False),
              eager=lambda a0: _torch().linalg.svdvals(a0)),
        _spec("sl.toeplitz", "sl.toeplitz(a0)", (((3,),),), r),
        _spec("sl.toeplitz-rows", "sl.toeplitz(a0, a1)", (((3,), (4,)),), r * 2),
    ]


def _torch() -> Any:
    import st_autodiff  # noqa: PLC0415  (the eager runtime under PyTorch's spelling)

    return st_autodiff


def _jsl() -> Any:
    import jax.scipy.linalg  # noqa: PLC0415

    return jax.scipy.linalg


def _special_stats() -> list[Spec]:
    r = ("real",)
    return [
        _spec("sp.logsumexp", "sp.logsumexp(a0)", (((3,),), ((2, 3),), ((),)), r),
        _spec("sp.logsumexp-axis", "sp.logsumexp(a0, axis=1, keepdims=True)", (((2, 3),),), r,
              eager=lambda a0: _torch().logsumexp(a0, dim=1, keepdim=True)),
        _spec("sp.logsumexp-b", "sp.logsumexp(a0, b=a1, axis=0)", (((2, 3), (2, 3)),
              ((2, 3), (3,))), ("real", "positive")),
        _spec("sp.logsumexp-sign", "v, s = sp.logsumexp(a0, b=a1, return_sign=True)\n"
              "return v * s", (((4,), (4,)),), ("real", "positive")),
        _spec("ss.uniform.logpdf", "ss.uniform.logpdf(a1 + a2 * a0, a1, a2) * a2",
              (((3,), (), ()), ((2, 3), (3,), (2, 1))), ("prob", "real", "positive"),
              f64=True),
    ]


def _jss() -> Any:
    import jax.scipy.stats  # noqa: PLC0415

    return jax.scipy.stats


#: ufunc reductions of fmax/fmin: nanmax/nanmin of distinct values (no ties, no NaN here)
_UFUNC_REDUCE = tuple(
    Spec(f"catalog.{name}.reduce", f"np.{name}.reduce(a0, axis={axis})", (op,),
         (((3, 4),),), ("distinct",), None,
         jax=lambda jnp, a0, name=name, axis=axis: getattr(jnp, "nan" + name[1:])(a0, axis=axis))
    for name, op, axis in (("fmax", Op.MAX, 0), ("fmin", Op.MIN, 1)))

SPECS_CATALOG: tuple[Spec, ...] = (*_numpy(), *_fft(), *_linalg(), *_special_stats(),
                                   *_UFUNC_REDUCE)
