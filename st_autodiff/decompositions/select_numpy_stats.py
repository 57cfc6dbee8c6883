"""Selectors of NumPy's reductions that the numpy-more family adds: the ``reduce`` and
``accumulate`` methods of ufuncs with rules (``np.add.reduce`` is ``np.sum``...), the
NaN-skipping reductions (``nanmax``, ``nanvar``, ``nanmedian``, ``nanquantile``...) and
``np.quantile``/``np.percentile`` with NumPy's other methods.  See
``select_numpy_more`` for the table and ``numpy_more_impl`` for the implementations.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, cast

import numpy as np
from numpy.lib import _function_base_impl

from . import numpy_impl as base
from . import numpy_more_impl as impl
from .common import (
    NO,
    Selection,
    Unsupported,
    constant,
    dtype_of,
    keep,
    norm_axis,
    norm_axis_index,
    shape_of,
    static,
)

#: NumPy's private quantile helpers (methods, indexes, gamma): not in NumPy's stubs
_fb: Any = _function_base_impl

# --- ufunc.reduce / ufunc.accumulate ----------------------------------------------------



def _plain(dtype: Any, out: Any, kw: dict[str, Any]) -> None:
    if dtype is not None or out is not None or kw:
        raise Unsupported("dtype=, out=, initial= and where= are not supported")


def _ufunc_reduce(fn: Callable[..., Any]) -> Callable[..., Selection]:
    def select(array: Any, axis: Any = 0, dtype: Any = None, out: Any = None,
               keepdims: Any = False, **kw: Any) -> Selection:
        _plain(dtype, out, kw)
        return fn, (array, norm_axis(axis, len(shape_of(array))), bool(keepdims))

    return select


def _ufunc_accumulate(fn: Callable[..., Any]) -> Callable[..., Selection]:
    def select(array: Any, axis: int = 0, dtype: Any = None, out: Any = None) -> Selection:
        _plain(dtype, out, {})
        return fn, (array, norm_axis_index(axis, len(shape_of(array))))

    return select


def _sum(a: Any, axis: Any, keepdims: Any) -> Any:
    return np.sum(a, axis=axis, keepdims=keepdims)


def _prod(a: Any, axis: Any, keepdims: Any) -> Any:
    return np.prod(a, axis=axis, keepdims=keepdims)


def _max(a: Any, axis: Any, keepdims: Any) -> Any:
    return np.max(a, axis=axis, keepdims=keepdims)


def _min(a: Any, axis: Any, keepdims: Any) -> Any:
    return np.min(a, axis=axis, keepdims=keepdims)


def _cumsum(a: Any, axis: int) -> Any:
    return np.cumsum(a, axis=axis)


def _cumprod(a: Any, axis: int) -> Any:
    return np.cumprod(a, axis=axis)


# --- NaN-skipping reductions -------------------------------------------------------------


def _inexact(a: Any) -> bool:
    return np.issubdtype(dtype_of(a), np.inexact)


def _nan_extreme(fn: Callable[..., Any], plain: Callable[..., Any]) -> Callable[..., Selection]:
    def select(a: Any, axis: Any = None, out: Any = None, keepdims: Any = NO,
               initial: Any = NO, where: Any = NO) -> Selection:
        if out is not None or initial is not NO or where is not NO:
            raise Unsupported("out=, initial= and where= are not supported")
        args = (a, norm_axis(axis, len(shape_of(a))), keep(keepdims))
        return (fn if _inexact(a) else plain), args

    return select


def _nanprod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
             keepdims: Any = NO, initial: Any = NO, where: Any = NO) -> Selection:
    if dtype is not None or out is not None or initial is not NO or where is not NO:
        raise Unsupported("dtype=, out=, initial= and where= are not supported")
    return (impl.nanprod if _inexact(a) else _prod), (a, norm_axis(axis, len(shape_of(a))),
                                                       keep(keepdims))


def _nanmean(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
             keepdims: Any = NO, *, where: Any = NO) -> Selection:
    if dtype is not None or out is not None or where is not NO:
        raise Unsupported("dtype=, out= and where= are not supported")
    args = (a, norm_axis(axis, len(shape_of(a))), keep(keepdims))
    dt = dtype_of(a)
    if not np.issubdtype(dt, np.inexact):
        return base.mean, args  # NumPy: np.mean for arrays that cannot hold NaN
    return impl.nanmean, (*args, dt)


def _nanvar_of(fn: Callable[..., Any]) -> Callable[..., Selection]:
    def select(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0,
               keepdims: Any = NO, *, where: Any = NO, mean: Any = NO, correction: Any = NO
               ) -> Selection:
        if dtype is not None or out is not None or where is not NO or mean is not NO:
            raise Unsupported("dtype=, out=, where= and mean= are not supported")
        if correction is not NO:
            ddof = correction
        dt = dtype_of(a)
        if not np.issubdtype(dt, np.floating):
            raise Unsupported("only real floating arrays are supported")
        return fn, (a, norm_axis(axis, len(shape_of(a))), keep(keepdims), ddof, dt)

    return select


def _reduced_axis(a: Any, axis: Any) -> tuple[int, bool, int]:
    if isinstance(axis, tuple):
        raise Unsupported("a tuple of axes is not supported")
    nd = len(shape_of(a))
    flat = axis is None
    return (0 if flat else norm_axis_index(axis, nd)), flat, nd


def _nanmedian(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
               keepdims: Any = NO) -> Selection:
    if out is not None:
        raise Unsupported("out= is not supported")
    if not _inexact(a):
        return base.median, _median_args(a, axis, keep(keepdims))
    ax, flat, nd = _reduced_axis(a, axis)
    return impl.nanmedian, (a, ax, keep(keepdims), flat, nd)


def _median_args(a: Any, axis: Any, keepdims: Any) -> tuple[Any, ...]:
    ax, flat, _ = _reduced_axis(a, axis)
    if keepdims and flat:
        raise Unsupported("keepdims=True with axis=None is not supported")
    shape = shape_of(a)
    n = math.prod(shape) if flat else shape[ax]
    return a, (n - 1) // 2, n // 2, ax, keepdims, flat


def _q_array(q: Any, scale: float) -> np.ndarray[Any, Any]:
    q = np.asanyarray(static(constant(q), "q"))
    if scale != 1.0:
        q = np.asanyarray(np.true_divide(q, scale))
    if q.ndim > 1:
        raise Unsupported("q must be a number or a 1-d sequence")
    return cast(np.ndarray[Any, Any], q)


def _nanquantile(a: Any, q: Any, axis: Any = None, out: Any = None,
                 overwrite_input: bool = False, method: str = "linear", keepdims: Any = NO,
                 *, weights: Any = None, interpolation: Any = None, scale: float = 1.0
                 ) -> Selection:
    if method != "linear" or interpolation is not None or weights is not None or \
            out is not None:
        raise Unsupported("only method='linear' without weights or out= is supported")
    qa = _q_array(q, scale)
    ax, flat, nd = _reduced_axis(a, axis)
    qv = qa[()] if qa.ndim == 0 else qa
    dt = np.result_type(dtype_of(a), np.float64) if not _inexact(a) else dtype_of(a)
    return impl.nanquantile, (a, qv, ax, keep(keepdims), flat, qa.ndim, nd, np.dtype(dt))


def _nanpercentile(a: Any, q: Any, axis: Any = None, out: Any = None,
                   overwrite_input: bool = False, method: str = "linear", keepdims: Any = NO,
                   *, weights: Any = None, interpolation: Any = None) -> Selection:
    return _nanquantile(a, q, axis, out, overwrite_input, method, keepdims, weights=weights,
                        interpolation=interpolation, scale=100.0)


def quantile_method(a: Any, q: Any, axis: Any = None, out: Any = None,
                     overwrite_input: bool = False, method: str = "linear",
                     keepdims: Any = False, *, weights: Any = None, interpolation: Any = None,
                     scale: float = 1.0) -> Selection:
    """``np.quantile``/``np.percentile`` with any of NumPy's methods: the positions and
    weights come from NumPy's own table of methods (static: ``q`` and the length are
    known), then one element is taken or two are interpolated."""
    if method == "linear" or interpolation is not None:
        from . import _percentile, _quantile  # noqa: PLC0415  (the linear method)

        fn = _quantile if scale == 1.0 else _percentile
        return fn(a, constant(q), axis, out, overwrite_input, method, keepdims, weights=weights,
                  interpolation=interpolation)
    if weights is not None or out is not None:
        raise Unsupported("weights= and out= are not supported")
    if method not in _fb._QuantileMethods:
        raise Unsupported(f"{method!r} is not a valid method")
    qa = _q_array(q, scale)
    ax, flat, nd = _reduced_axis(a, axis)
    shape = shape_of(a)
    n = math.prod(shape) if flat else shape[ax]
    props = _fb._QuantileMethods[method]
    vi = np.asanyarray(props["get_virtual_index"](n, qa))
    kd = bool(keepdims)
    if props["fix_gamma"] is None:
        index = vi.astype(np.intp)
        index = int(index) if index.ndim == 0 else index
        return impl.quantile_take, (a, index, ax, kd, flat, qa.ndim, nd)
    lo, hi = _fb._get_indexes(np.zeros(1), vi, n)
    lo, hi = np.where(lo < 0, n + lo, lo), np.where(hi < 0, n + hi, hi)
    t = _fb._get_gamma(vi, lo.astype(vi.dtype), props)
    if qa.ndim == 0:
        return impl.quantile_lerp, (a, int(lo), int(hi), float(t), ax, kd, flat, 0, nd)
    return impl.quantile_lerp, (a, lo, hi, t, ax, kd, flat, 1, nd)


def percentile_method(a: Any, q: Any, axis: Any = None, out: Any = None,
                       overwrite_input: bool = False, method: str = "linear",
                       keepdims: Any = False, *, weights: Any = None,
                       interpolation: Any = None) -> Selection:
    return quantile_method(a, q, axis, out, overwrite_input, method, keepdims,
                            weights=weights, interpolation=interpolation, scale=100.0)


_REDUCE = {np.add: _ufunc_reduce(_sum), np.multiply: _ufunc_reduce(_prod),
           np.maximum: _ufunc_reduce(_max), np.minimum: _ufunc_reduce(_min),
           np.fmax: _ufunc_reduce(impl.nanmax), np.fmin: _ufunc_reduce(impl.nanmin)}
_ACCUMULATE = {np.add: _ufunc_accumulate(_cumsum), np.multiply: _ufunc_accumulate(_cumprod)}


def ufunc_method(ufunc: Any, name: str) -> Callable[..., Selection] | None:
    """The selector of ``ufunc.reduce``/``ufunc.accumulate`` for a ufunc with a rule."""
    table = _REDUCE if name == "reduce" else _ACCUMULATE if name == "accumulate" else {}
    return table.get(ufunc)


def table() -> dict[Any, Callable[..., Selection]]:
    """The NaN-skipping reductions by function."""
    return {
        np.nanmax: _nan_extreme(impl.nanmax, _max), np.nanmin: _nan_extreme(impl.nanmin, _min),
        np.nanprod: _nanprod, np.nanmean: _nanmean, np.nanvar: _nanvar_of(impl.nanvar),
        np.nanstd: _nanvar_of(impl.nanstd), np.nanmedian: _nanmedian,
        np.nanquantile: _nanquantile, np.nanpercentile: _nanpercentile,
    }
