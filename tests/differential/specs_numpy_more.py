"""Differential specs of the rest of NumPy's differentiable surface: functions compiled
from NumPy's own source and the decompositions of ``select_numpy_more`` (issue 11).

One spec per function (names start ``npm-``), with domains where the function is
differentiable: distinct values for order statistics (sort, partition, median, nanmax),
no NaN (the NaN-skipping functions meet real NaNs in ``tests/test_rules_numpy_more.py``),
inputs away from the jumps of piecewise-constant parts.  JAX (``jnp.<name>``) is the
oracle where it has the function.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from st_autodiff.ir.ops import Op

from .specs import Spec

V = (((5,),),)
M = (((3, 4),),)
F64 = ("float64",)


def _s(name: str, expr: str, ops: tuple[Op, ...], shapes: tuple[Any, ...],
       domain: tuple[str, ...] = ("real",), **kw: Any) -> Spec:
    return Spec(f"npm-{name}", expr, ops, shapes, domain, None, **kw)


#: the quantile methods JAX implements
_JAX_METHODS = ("lower", "higher", "nearest", "midpoint", "inverted_cdf")

SPECS_NUMPY_MORE: tuple[Spec, ...] = (
    # --- ranges with runtime ends --------------------------------------------------------
    _s("linspace-arrays", "np.linspace(a0, a1, 4)", (Op.LINSPACE,), (((2,), (2,)),),
       ("real", "real")),
    _s("logspace", "np.logspace(a0, a1, 4)", (Op.POW,), ((None, None), ((2,), (2,))),
       ("small", "small")),
    # NumPy's geomspace of float32 arrays is float64 (JAX: float32)
    _s("geomspace", "np.geomspace(a0, a1, 4)", (Op.LOG10,), ((None, None), ((2,), (2,))),
       ("positive", "positive"), dtypes=F64),
    # --- differences, integrals, statistics ----------------------------------------------
    _s("diff", "np.diff(a0, n=2, axis=0)", (Op.SUB,), (((4, 3),), ((5,),))),
    _s("ediff1d", "np.ediff1d(a0, to_begin=0.5)", (Op.SUB,), (((5,),), ((2, 3),))),
    _s("gradient", "np.gradient(a0, 0.5, axis=-1)", (Op.SUB,), (((3, 4),), ((5,),))),
    _s("trapezoid", "np.trapezoid(a0, a1)", (Op.SUM,), (((5,), (5,)), ((2, 4), (4,))),
       ("real", "real")),
    _s("median", "np.median(a0, axis=0)", (Op.SORT,), (((3, 4),), ((4, 2),)), ("distinct",)),
    # an array of q makes NumPy's weights float64 arrays: float32 input, float64 result
    # (JAX keeps float32), so those specs run in float64
    _s("percentile", "np.percentile(a0, np.array([20.0, 75.0]), axis=1)", (Op.SORT,), M,
       ("distinct",), dtypes=F64),
    _s("quantile", "np.quantile(a0, 0.3)", (Op.SORT,), (((7,),), ((2, 3),)), ("distinct",)),
    *(_s(f"quantile-{m}", f"np.quantile(a0, np.array([0.15, 0.6]), axis=-1, method={m!r})",
         (Op.SORT,), (((7,),), ((2, 5),)), ("distinct",), dtypes=F64,
         jax="" if m in _JAX_METHODS else None)
      for m in ("lower", "higher", "nearest", "midpoint", "weibull", "hazen",
                "median_unbiased", "normal_unbiased", "inverted_cdf",
                "averaged_inverted_cdf", "closest_observation",
                "interpolated_inverted_cdf")),
    _s("average", "np.average(a0, axis=1, weights=a1)", (Op.SUM,), (((3, 4), (3, 4)),),
       ("real", "positive")),
    _s("ptp", "np.ptp(a0, axis=0)", (Op.MAX, Op.MIN), M, ("distinct",)),
    # --- NaN-skipping reductions (no NaN here: see tests/test_rules_numpy_more.py) ---------
    _s("nansum", "np.nansum(a0, axis=0)", (Op.SUM,), M),
    _s("nanmean", "np.nanmean(a0, axis=1)", (Op.SUM,), M),
    _s("nanmax", "np.nanmax(a0, axis=1)", (Op.MAX,), M, ("distinct",)),
    _s("nanmin", "np.nanmin(a0)", (Op.MIN,), M + V, ("distinct",)),
    _s("nanprod", "np.nanprod(a0, axis=-1)", (Op.PROD,), M + V, ("nonzero",)),
    _s("nanvar", "np.nanvar(a0, axis=0, ddof=1)", (Op.SUM,), M + V),
    _s("nanstd", "np.nanstd(a0, axis=1, keepdims=True)", (Op.SQRT,), M),
    _s("nanmedian", "np.nanmedian(a0, axis=1)", (Op.SORT,), (((3, 4),), ((2, 5),)),
       ("distinct",)),
    _s("nanpercentile", "np.nanpercentile(a0, 35.0, axis=0)", (Op.SORT,), M, ("distinct",)),
    _s("nanquantile", "np.nanquantile(a0, np.array([0.25, 0.8]))", (Op.SORT,), M + V,
       ("distinct",), dtypes=F64),
    _s("nanquantile-scalar", "np.nanquantile(a0, 0.7, axis=1, keepdims=True)", (Op.SORT,),
       M, ("distinct",)),
    _s("nancumsum", "np.nancumsum(a0, axis=1)", (Op.CUMSUM,), M),
    _s("nancumprod", "np.nancumprod(a0)", (Op.CUMPROD,), V, ("nonzero",)),
    _s("cumulative_sum", "np.cumulative_sum(a0, axis=1, include_initial=True)",
       (Op.CUMSUM,), M),
    _s("cumulative_prod", "np.cumulative_prod(a0)", (Op.CUMPROD,), V, ("nonzero",)),
    _s("add-reduce", "np.add.reduce(a0, axis=1)", (Op.SUM,), M, jax=None),
    _s("maximum-reduce", "np.maximum.reduce(a0)", (Op.MAX,), M, ("distinct",), jax=None),
    _s("multiply-accumulate", "np.multiply.accumulate(a0, axis=1)", (Op.CUMPROD,), M,
       ("nonzero",), jax=None),
    # --- interpolation, signals, polynomials -------------------------------------------
    _s("interp", "np.interp(np.array([0.3, 1.7, 2.2]), np.arange(4.0), a0)", (Op.MUL,),
       (((4,),),)),
    _s("kron", "np.kron(a0, a1)", (Op.MUL,), (((2, 2), (2, 3)), ((3,), (2,))),
       ("real", "real")),
    _s("convolve", "np.convolve(a0, a1, mode='same')", (Op.MUL,), (((5,), (3,)),),
       ("real", "real")),
    _s("correlate", "np.correlate(a0, a1, mode='full')", (Op.MUL,), (((5,), (3,)),),
       ("real", "real")),
    _s("cross", "np.cross(a0, a1)", (Op.MUL,), (((3,), (3,)), ((2, 3), (3,))),
       ("real", "real")),
    _s("polyval", "np.polyval(a0, a1)", (Op.MUL,), (((3,), (4,)),), ("real", "real")),
    _s("polyfit", "np.polyfit(np.arange(6.0), a0, 2)", (Op.MATMUL,), (((6,),), ((6, 2),))),
    _s("polyder", "np.polyder(a0, 2)", (Op.MUL,), (((5,),),), dtypes=F64),  # as polyint
    # NumPy divides by an int64 arange: float64 results for float32 input (JAX: float32)
    _s("polyint", "np.polyint(a0, 2, k=[0.5, a1])", (Op.DIV,), (((4,), ()),),
       ("real", "real"), dtypes=F64, jax=lambda jnp, a0, a1: jnp.polyint(
           a0, 2, k=jnp.stack([jnp.asarray(0.5, a1.dtype), a1]))),
    _s("polymul", "np.polymul(a0, a1)", (Op.MUL,), (((3,), (2,)),), ("nonzero", "nonzero")),
    _s("polyadd", "np.polyadd(a0, a1)", (Op.ADD,), (((3,), (3,)),),
       ("real", "real")),
    _s("polysub", "np.polysub(a0, a1)", (Op.SUB,), (((2,), (2,)),), ("real", "real")),
    # NumPy's vander computes in promote_types(x.dtype, int): float64 for float32 input
    _s("vander", "np.vander(a0, 4)", (Op.CUMPROD,), (((3,),),), dtypes=F64),
    _s("sinc", "np.sinc(a0)", (), V),
    _s("i0", "np.i0(a0 * 6.0)", (Op.EXP,), V),
    _s("unwrap", "np.unwrap(a0 * 3.0)", (Op.CUMSUM,), V, ("small",)),
    # --- complex parts of real arrays ----------------------------------------------------
    _s("real", "np.real(a0) * a0", (Op.MUL,), V),
    _s("imag", "np.imag(a0) + a0", (Op.ADD,), V),
    _s("conj", "np.conj(a0) * a0", (Op.POSITIVE,), V),
    _s("conjugate", "np.conjugate(a0)", (Op.POSITIVE,), V),
    _s("angle", "np.angle(a0) * a0", (Op.MUL,), V, ("nonzero",)),
    _s("real_if_close", "np.real_if_close(a0)", (), V, jax=None),
    # --- joining and splitting -----------------------------------------------------------
    _s("append", "np.append(a0, a1, axis=0)", (Op.CONCATENATE,), (((2, 3), (1, 3)),),
       ("real", "real")),
    _s("insert", "np.insert(a0, np.array([1, 3]), a1)", (), (((4,), (2,)),), ("real", "real")),
    _s("insert-axis", "np.insert(a0, 1, a1, axis=1)", (), (((2, 3), (2,)),),
       ("real", "real")),
    _s("delete", "np.delete(a0, np.array([0, 2]), axis=1)", (), M),
    _s("array_split", "np.array_split(a0, 3)[1]", (), (((7,),),)),
    _s("split", "np.split(a0, 2, axis=1)[1]", (), M),
    _s("hsplit", "np.hsplit(a0, 2)[0]", (), M),
    _s("vsplit", "np.vsplit(a0, 3)[2]", (), (((3, 2),),)),
    _s("dsplit", "np.dsplit(a0, 2)[1]", (), (((1, 2, 4),),)),
    _s("column_stack", "np.column_stack([a0, a1])", (), (((3,), (3, 2)),), ("real", "real")),
    *([_s("row_stack", "np.row_stack([a0, a1])", (), (((3,), (2, 3)),), ("real", "real"),
          jax=lambda jnp, a0, a1: jnp.vstack([a0, a1]))]
      if hasattr(np, "row_stack") else []),  # (removed in NumPy 2.5)
    _s("dstack", "np.dstack([a0, a1])", (), (((3,), (3,)), ((2, 3), (2, 3))),
       ("real", "real")),
    _s("vstack-one", "np.vstack([a0])", (), (((3,),),)),
    _s("hstack-one", "np.hstack((a0,))", (), M),
    _s("vstack-array", "np.vstack(a0)", (), (((3,),), ((2, 3),), ((2, 2, 3),))),
    _s("hstack-array", "np.hstack(a0)", (), (((3,),), ((2, 3),), ((2, 2, 3),))),
    _s("block", "np.block([[a0, a1], [a1, a0]])", (Op.CONCATENATE,), (((2, 2), (2, 2)),),
       ("real", "real")),
    _s("atleast_1d", "np.atleast_1d(a0)", (), ((None,), ((),))),
    _s("atleast_2d", "np.atleast_2d(a0)", (), ((None,), ((3,),))),
    _s("atleast_3d", "np.atleast_3d(a0)", (), (((3,),), ((2, 3),))),
    _s("meshgrid", "np.meshgrid(a0, a1)[0] * np.meshgrid(a0, a1)[1] ** 2",
       (Op.BROADCAST_TO,), (((3,), (2,)),), ("real", "real")),
    _s("meshgrid-ij", "np.meshgrid(a0, a1, indexing='ij')[1]", (), (((3,), (2,)),),
       ("real", "real")),
    _s("meshgrid-sparse", "np.meshgrid(a0, a1, sparse=True)[0] + "
       "np.meshgrid(a0, a1, sparse=True)[1]", (), (((3,), (2,)),), ("real", "real")),
    # --- reordering ------------------------------------------------------------------------
    _s("rot90", "np.rot90(a0, 3)", (), M),
    _s("fliplr", "np.fliplr(a0)", (), M),
    _s("flipud", "np.flipud(a0)", (), M),
    _s("rollaxis", "np.rollaxis(a0, 2)", (), (((2, 3, 4),),)),
    _s("moveaxis", "np.moveaxis(a0, [0, 1], [2, 0])", (), (((2, 3, 4),),)),
    _s("swapaxes", "np.swapaxes(a0, 0, 1)", (), M),
    _s("matrix_transpose", "np.matrix_transpose(a0)", (), (((2, 3, 4),),)),
    _s("sort", "np.sort(a0, axis=0)", (Op.SORT,), M, ("distinct",)),
    # the order around the k-th element is NumPy's (introselect), not JAX's: compare what
    # does not depend on it
    _s("partition", "p = np.partition(a0, 2, axis=-1)\nreturn np.stack([p[..., 2], "
       "p[..., 0] + p[..., 1], p[..., 3] * p[..., 4] * p[..., 5]])", (Op.TAKE_ALONG_AXIS,),
       (((6,),), ((2, 6),)), ("distinct",), jax=lambda jnp, a0: (lambda p: jnp.stack(
           [p[..., 2], p[..., 0] + p[..., 1], p[..., 3] * p[..., 4] * p[..., 5]]))(
               jnp.partition(a0, 2, axis=-1))),
    _s("partition-values", "np.partition(a0, 3)", (Op.TAKE_ALONG_AXIS,), (((6,),),),
       ("distinct",), jax=None),
    _s("select", "np.select([a0 > 0.5, a0 < -0.5], [a0 ** 2, a0 ** 3], default=a0)", (),
       V, ("nonzero",)),
    _s("choose", "np.choose(np.array([0, 1, 0, 1, 1]), [a0, a1])", (), (((5,), (5,)),),
       ("real", "real")),
    _s("compress", "np.compress(np.array([True, False, True]), a0, axis=1)", (), (((2, 3),),)),
    _s("extract", "np.extract(np.array([True, False, True, True, False]), a0)", (), V,
       jax=lambda jnp, a0: a0[jnp.array([0, 2, 3])]),
    _s("piecewise", "np.piecewise(a0, [a0 < 0, a0 >= 0], [lambda v: v ** 2, lambda v: v ** 3])",
       (), V, ("nonzero",)),
    _s("piecewise-otherwise", "np.piecewise(a0, [a0 < -0.5], [lambda v: -v, 0.25])", (),
       V, ("nonzero",)),
    _s("put_along_axis", "b = a0.copy()\nnp.put_along_axis(b, np.array([[0], [2]]), a1, "
       "axis=1)\nreturn b", (), (((2, 3), (2, 1)),), ("real", "real"),
       jax=lambda jnp, a0, a1: a0.at[jnp.array([0, 1]), jnp.array([0, 2])].set(a1[:, 0])),
    _s("place", "b = a0.copy()\nnp.place(b, np.array([True, False, True, False, False]), "
       "a1)\nreturn b", (), (((5,), (2,)),), ("real", "real"),
       jax=lambda jnp, a0, a1: a0.at[jnp.array([0, 2])].set(a1)),
    _s("diagflat", "np.diagflat(a0, 1)", (Op.DIAG,), (((2, 2),),)),
    _s("tri", "np.tri(3, 4, 1) * a0", (), M, dtypes=F64),  # np.tri is float64
    _s("identity", "np.identity(3) @ a0", (Op.MATMUL,), (((3, 2),),)),
    _s("bincount", "np.bincount(np.array([0, 2, 2, 4, 0]), weights=a0, minlength=6)", (),
       V, dtypes=F64, jax=lambda jnp, a0: jnp.bincount(
           jnp.array([0, 2, 2, 4, 0]), weights=a0, length=6)),
    _s("resize", "np.resize(a0, (3, 3))", (), (((2, 2),),)),
    _s("trim_zeros", "np.trim_zeros(np.concatenate([np.zeros(2), a0, np.zeros(1)]))", (),
       V, ("nonzero",), jax=None),
    _s("apply_along_axis", "np.apply_along_axis(lambda v: v ** 2 + v[0], 1, a0)", (), M,
       jax=None),
    _s("ascontiguousarray", "np.ascontiguousarray(a0.T)", (), M, jax=None),
    _s("asfortranarray", "np.asfortranarray(a0)", (), M, jax=None),
    _s("array-nested", "np.array([[a0, a1], [a1 * 2.0, 1.0]])", (), ((None, None),),
       ("real", "real")),
    _s("asarray-nested", "np.asarray([a0, a1 ** 2, a0 * a1])", (), ((None, None),),
       ("real", "real")),
    # --- elementwise ------------------------------------------------------------------------
    _s("heaviside", "np.heaviside(a0, 0.5) * a1 + np.heaviside(a0 * 0.0, a1)", (),
       (((4,), (4,)),), ("nonzero", "real")),
    _s("copysign", "np.copysign(a0, a1)", (Op.ABS,), (((4,), (4,)), ((2, 3), (3,))),
       ("nonzero", "nonzero")),
    Spec("npm-fmod", "np.fmod(a0, a1)", (Op.FMOD,), (((4,), (4,)), ((2, 3), ()), (None, None)),
         ("mod_x", "mod_y"), (Op.FMOD, {})),
    Spec("npm-fmod-negative", "np.fmod(-a0, a1)", (Op.FMOD,), (((4,), (4,)),),
         ("mod_x", "mod_y"), None),
    _s("ldexp", "np.ldexp(a0, np.array([1, -2, 3]))", (Op.LDEXP,), (((3,),), ((2, 3),))),
    _s("remainder", "np.remainder(a0, a1)", (Op.MOD,), (((4,), (4,)),), ("mod_x", "mod_y")),
    _s("mod", "np.mod(a0, 1.1)", (Op.MOD,), V, ("mod_x",)),
    _s("divmod", "np.divmod(a0, a1)[1] + np.divmod(a0, a1)[0]", (Op.MOD,), (((4,), (4,)),),
       ("mod_x", "mod_y")),
    _s("frexp", "np.frexp(a0)[0] * 3.0", (), V, ("nonzero",)),
    _s("frexp-exponent", "np.frexp(a0)[0] * np.frexp(a0)[1]", (), V, ("nonzero",),
       dtypes=F64),  # float32 times int32 is float64 in NumPy, float32 in JAX
    _s("modf", "np.modf(a0 * 3.0)[0] + np.modf(a0 * 3.0)[1]", (), V, ("mod_x",)),
    _s("signbit", "np.where(np.signbit(a0), a0, 2.0 * a0)", (Op.WHERE,), V, ("nonzero",)),
    _s("deg2rad", "np.deg2rad(a0)", (Op.DEG2RAD,), V),
    _s("rad2deg", "np.rad2deg(a0)", (Op.RAD2DEG,), V),
    # --- ndarray methods -------------------------------------------------------------------
    _s("method-cumsum", "a0.cumsum(axis=1)", (Op.CUMSUM,), M,
       jax=lambda jnp, a0: a0.cumsum(axis=1)),
    _s("method-clip", "a0.clip(-0.5, 0.5)", (Op.CLIP,), V, ("nonzero",),
       jax=lambda jnp, a0: a0.clip(-0.5, 0.5)),
    _s("method-round", "a0.round(1) * a0", (Op.ROUND,), V,
       jax=lambda jnp, a0: a0.round(1) * a0),
    _s("method-trace", "a0.trace()", (Op.TRACE,), M, jax=lambda jnp, a0: a0.trace()),
    _s("method-diagonal", "a0.diagonal(1)", (Op.DIAGONAL,), M,
       jax=lambda jnp, a0: a0.diagonal(1)),
    _s("method-repeat", "a0.repeat(2, axis=0)", (Op.REPEAT,), M,
       jax=lambda jnp, a0: a0.repeat(2, axis=0)),
    _s("method-imag", "a0.imag + a0.mT", (Op.SWAPAXES,), (((2, 3, 3),),),
       jax=lambda jnp, a0: a0.imag + jnp.swapaxes(a0, -1, -2)),
    _s("method-compress", "a0.compress(np.array([True, False, True]), axis=1)", (),
       (((2, 3),),),
       jax=lambda jnp, a0: a0.compress(jnp.array([True, False, True]), axis=1)),
    _s("method-choose", "np.array([1, 0, 1, 1]).choose([a0, a1])", (), (((4,), (4,)),),
       ("real", "real"),
       jax=lambda jnp, a0, a1: jnp.choose(jnp.array([1, 0, 1, 1]), [a0, a1])),
    _s("method-partition", "b = a0 * 1.0\nb.partition(2)\nreturn b[..., 2] + b[..., 0] * "
       "b[..., 1]", (Op.TAKE_ALONG_AXIS,), (((5,),), ((2, 5),)), ("distinct",),
       jax=lambda jnp, a0: (lambda b: b[..., 2] + b[..., 0] * b[..., 1])(
           jnp.partition(a0, 2))),
    _s("method-nonzero", "a0[(a0 > 0).nonzero()]", (Op.NONZERO,), V, ("nonzero",),
       jax=None, order2=False),
)
