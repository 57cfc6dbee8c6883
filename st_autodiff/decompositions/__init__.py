"""NumPy functions the compiler differentiates as compositions of ops it has rules for.

``lookup(fn)`` gives the *selector* of a NumPy function (``np.diff``, ``np.quantile``,
``np.cov`` …) or None.  A selector takes the call's arguments as the user wrote them
(runtime values are IR nodes, the rest plain Python values), checks and normalises the
static ones with ordinary Python (axes, modes, optional arguments, shapes known at compile
time) and returns ``(impl, args)``: a function of ``numpy_impl`` that the compiler then
reads like the user's own code.  One place per function, no new op: the derivatives (both
modes, every order) are those of the ops ``impl`` calls.  An unsupported use raises
``Unsupported``, which the caller turns into an error located at the user's call.
"""

from __future__ import annotations

import operator
import sys
from collections.abc import Callable
from typing import Any, Literal

import numpy as np

from . import numpy_impl as impl
from . import select_linalg as la
from . import select_linalg_more as la_more  # linalg family (issue 11)
from . import select_numpy_more, select_scipy, select_stats
from .common import (
    NO,
    Node,
    Selection,
    Unsupported,
    constant,
    dtype_of,
    given,
    keep,
    norm_axis,
    norm_axis_index,
    shape_of,
    static,
)

# --- selectors ---------------------------------------------------------------------------


def _diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = NO, append: Any = NO
          ) -> Selection:
    shape = shape_of(a)
    n = operator.index(static(n, "n"))
    if n < 0:
        raise Unsupported(f"order must be non-negative but got {n}")
    axis = norm_axis_index(axis, len(shape))
    if not (given(prepend) or given(append)):
        return impl.diff, (a, n, axis)
    one = shape[:axis] + (1,) + shape[axis + 1:]
    parts: list[Any] = []
    for extra in (prepend, append):
        if not given(extra):
            parts.append(np.zeros(shape[:axis] + (0,) + shape[axis + 1:], dtype_of(a)))
        elif isinstance(extra, Node):
            if len(shape_of(extra)) != len(shape):
                raise Unsupported("a runtime prepend/append must have the array's rank")
            parts.append(extra)
        elif np.ndim(extra) == 0:
            parts.append(np.broadcast_to(np.asarray(extra), one))
        else:
            parts.append(np.asarray(extra))
    return impl.diff_joined, (a, parts[0], parts[1], n, axis)


def _ptp(a: Any, axis: Any = None, out: Any = None, keepdims: Any = NO) -> Selection:
    if out is not None:
        raise Unsupported("out= is not supported")
    return impl.ptp, (a, norm_axis(axis, len(shape_of(a))), keep(keepdims))


def _average(a: Any, axis: Any = None, weights: Any = None, returned: bool = False, *,
             keepdims: Any = NO) -> Selection:
    shape = shape_of(a)
    axis = norm_axis(axis, len(shape))
    kd = keep(keepdims)
    if weights is None:
        if not returned:
            return impl.mean, (a, axis, kd)
        size = np.prod([shape[i] for i in range(len(shape))
                        if axis is None or i in (axis if isinstance(axis, tuple) else (axis,))])
        return impl.average_returned, (a, axis, kd, float(size))
    wshape = shape_of(weights, "weights")
    reshape: tuple[Any, ...] = ()
    if wshape != shape:
        if axis is None:
            raise Unsupported("axis must be specified when shapes of a and weights differ")
        if len(wshape) != 1 or isinstance(axis, tuple) or wshape[0] != shape[axis]:
            raise Unsupported("1-d weights must have the length of a along axis")
        reshape = tuple(-1 if i == axis else 1 for i in range(len(shape)))
    fn = impl.average_weighted_returned if returned else impl.average_weighted
    return fn, (a, weights, axis, kd, reshape)


def _positions(q: Any, n: int) -> tuple[Any, Any, Any]:
    """NumPy's 'linear' virtual indices ``(n - 1) q``: lower and upper neighbours and
    the interpolation weight (static: ``q`` and ``n`` are known)."""
    vi = np.asanyarray((n - 1) * np.asanyarray(q))
    lo = np.floor(vi).astype(np.intp)
    hi = lo + 1
    above, below = vi >= n - 1, vi < 0
    lo = np.where(above, n - 1, np.where(below, 0, lo))
    hi = np.where(above, n - 1, np.where(below, 0, hi))
    t = np.asanyarray(vi - lo, dtype=vi.dtype)
    if np.ndim(q) == 0:
        return int(lo), int(hi), float(t)
    return lo, hi, t


def _quantile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
              method: str = "linear", keepdims: bool = False, *, weights: Any = None,
              interpolation: Any = None, scale: float = 1.0) -> Selection:
    if method != "linear" or interpolation is not None or weights is not None or out is not None:
        raise Unsupported("only method='linear' without weights or out= is supported")
    q = np.true_divide(np.asanyarray(static(q, "q")), scale) if scale != 1.0 else \
        np.asanyarray(static(q, "q"))
    if q.ndim > 1:
        raise Unsupported("q must be a number or a 1-d sequence")
    shape = shape_of(a)
    flat = axis is None
    ax = 0 if flat else norm_axis_index(axis, len(shape))
    if isinstance(axis, tuple):
        raise Unsupported("a tuple of axes is not supported")
    n = int(np.prod(shape)) if flat else shape[ax]
    lo, hi, t = _positions(q if q.ndim else q[()], n)
    if keepdims and flat:
        raise Unsupported("keepdims=True with axis=None is not supported")
    return impl.quantile_linear, (a, lo, hi, t, ax, bool(keepdims), flat, q.ndim)


def _percentile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
                method: str = "linear", keepdims: bool = False, *, weights: Any = None,
                interpolation: Any = None) -> Selection:
    return _quantile(a, q, axis, out, overwrite_input, method, keepdims, weights=weights,
                     interpolation=interpolation, scale=100.0)


def _median(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
            keepdims: bool = False) -> Selection:
    if out is not None or isinstance(axis, tuple):
        raise Unsupported("out= and tuples of axes are not supported")
    shape = shape_of(a)
    flat = axis is None
    ax = 0 if flat else norm_axis_index(axis, len(shape))
    if keepdims and flat:
        raise Unsupported("keepdims=True with axis=None is not supported")
    n = int(np.prod(shape)) if flat else shape[ax]
    return impl.median, (a, (n - 1) // 2, n // 2, ax, bool(keepdims), flat)


def _interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None, period: Any = None
            ) -> Selection:
    if period is not None:
        raise Unsupported("period= is not supported")
    if len(shape_of(xp, "xp")) != 1 or len(shape_of(fp, "fp")) != 1:
        raise Unsupported("xp and fp must be 1-d")
    return impl.interp, (x, xp, fp, 0.0 if left is None else left,
                         0.0 if right is None else right, left is not None, right is not None)


def _trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: int = -1) -> Selection:
    nd = len(shape_of(y))
    axis = norm_axis_index(axis, nd)
    if x is None:
        return impl.trapezoid, (y, dx, axis)
    xnd = len(shape_of(x, "x"))
    if xnd not in (1, nd):
        raise Unsupported("x must be 1-d or have y's rank")
    return impl.trapezoid_x, (y, x, axis, xnd == 1)


def _cov(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: Any = None,
         fweights: Any = None, aweights: Any = None, *, dtype: Any = None) -> Selection:
    if fweights is not None or aweights is not None or dtype is not None:
        raise Unsupported("fweights, aweights and dtype are not supported")
    shapes = [shape_of(m)] + ([] if y is None else [shape_of(y, "y")])
    if any(len(s) > 2 for s in shapes):
        raise Unsupported("m and y must have at most 2 dimensions")
    if ddof is None:
        ddof = 0 if bias else 1
    # NumPy: array(m, ndmin=2), transposed when not rowvar and it has more than one row
    flags = []
    for s in shapes:
        row = len(s) < 2
        flags += [row, not rowvar and (row or s[0] != 1) and not row]
    # NumPy computes in result_type(m, y, float64): float32 data gives a float64 matrix
    kinds = [dtype_of(v) for v in (m, y) if v is not None]
    wide = np.result_type(*kinds, np.float64)
    cast = None if all(k == wide for k in kinds) else wide.name
    if y is None:
        return impl.cov, (m, flags[0], flags[1], int(static(ddof, "ddof")), cast)
    return impl.cov_xy, (m, y, *flags, int(static(ddof, "ddof")), cast)


def _corrcoef(x: Any, y: Any = None, rowvar: bool = True, bias: Any = NO, ddof: Any = NO, *,
              dtype: Any = None) -> Selection:
    fn, args = _cov(x, y, rowvar, dtype=dtype)
    scalar = y is None and len(shape_of(x)) == 1
    return (impl.corrcoef if fn is impl.cov else impl.corrcoef_xy), (*args, scalar)


def _windows(n: int, m: int, mode: str) -> tuple[int, int]:
    """The slice of the full correlation (length n + m - 1) that ``mode`` keeps."""
    full = n + m - 1
    if mode == "full":
        return 0, full
    if mode == "valid":
        lo, hi = min(n, m), max(n, m)
        return lo - 1, lo - 1 + hi - lo + 1
    if mode == "same":
        length = max(n, m)
        start = (full - length) // 2 if n >= m else (full - length + 1) // 2
        return start, start + length
    raise Unsupported(f"mode must be 'valid', 'same' or 'full', not {mode!r}")


def _correlate(a: Any, v: Any, mode: str = "valid") -> Selection:
    n, m = shape_of(a)[0], shape_of(v, "v")[0]
    start, stop = _windows(n, m, static(mode, "mode"))
    return impl.correlate, (a, v, start, stop)


def _convolve(a: Any, v: Any, mode: str = "full") -> Selection:
    n, m = shape_of(a)[0], shape_of(v, "v")[0]
    start, stop = _windows(n, m, static(mode, "mode"))
    return impl.convolve, (a, v, start, stop)


def _cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: Any = None
           ) -> Selection:
    if axis is not None:
        axisa = axisb = axisc = axis
    sa, sb = shape_of(a), shape_of(b, "b")
    axisa, axisb = norm_axis_index(axisa, len(sa)), norm_axis_index(axisb, len(sb))
    if axisa - len(sa) != axisb - len(sb):
        raise Unsupported("the vector axes of a and b must line up (count from the end)")
    da, db = sa[axisa], sb[axisb]
    if (da, db) == (3, 3):
        nd = max(len(sa), len(sb))
        return impl.cross3, (a, b, axisa - len(sa), norm_axis_index(axisc, nd))
    if (da, db) == (2, 2):
        if not CROSS_OF_2_VECTORS:
            raise Unsupported(f"NumPy {np.__version__} refuses 2-vectors: both input arrays "
                              "must be (arrays of) 3-dimensional vectors")
        return impl.cross2, (a, b, axisa - len(sa))
    raise Unsupported("only pairs of 2-vectors or of 3-vectors are supported")


def _cross_of_2_vectors() -> bool:
    """Whether this NumPy takes 2-vectors in ``np.cross`` (deprecated in 2.0, an error
    since 2.5): the compiled code follows the installed NumPy."""
    import warnings  # noqa: PLC0415

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            np.cross(np.ones(2), np.ones(2))
        except ValueError:
            return False
    return True


CROSS_OF_2_VECTORS = _cross_of_2_vectors()


def _kron(a: Any, b: Any) -> Selection:
    sa, sb = shape_of(a), shape_of(b, "b")
    nd = max(len(sa), len(sb))
    sa, sb = (1,) * (nd - len(sa)) + sa, (1,) * (nd - len(sb)) + sb
    a_shape = tuple(d for k in sa for d in (k, 1))
    b_shape = tuple(d for k in sb for d in (1, k))
    return impl.kron, (a, b, a_shape, b_shape, tuple(i * j for i, j in zip(sa, sb)))


def _nan_to_num(x: Any, copy: bool = True, nan: float = 0.0, posinf: Any = None,
                neginf: Any = None) -> Selection:
    dt = dtype_of(x)
    if not np.issubdtype(dt, np.floating):
        return impl.identity, (x,)
    info = np.finfo(dt)
    return impl.nan_to_num, (x, static(nan, "nan"),
                             info.max if posinf is None else static(posinf, "posinf"),
                             info.min if neginf is None else static(neginf, "neginf"))


def _fabs(x: Any) -> Selection:
    """``np.fabs`` is ``abs`` in the float type its ufunc loop picks (int64 -> float64)."""
    dt = np.fabs(np.zeros(1, dtype_of(x))).dtype
    return (impl.fabs if dt != dtype_of(x) else impl.absolute), (x, dt)


def _float_power(x1: Any, x2: Any) -> Selection:
    return impl.float_power, (x1, x2)


def _polyval(p: Any, x: Any) -> Selection:
    shape = shape_of(p, "p")
    if len(shape) != 1:
        raise Unsupported("p must be 1-d")
    return impl.polyval, (p, x, shape[0])


def _nan_reduction(fn: Callable[..., Any]) -> Callable[..., Selection]:
    def select(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
               keepdims: Any = NO, *, where: Any = NO) -> Selection:
        if dtype is not None or out is not None or where is not NO:
            raise Unsupported("dtype=, out= and where= are not supported")
        return fn, (a, norm_axis(axis, len(shape_of(a))), keep(keepdims))

    return select


def _nansum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
            keepdims: Any = NO, initial: Any = NO, where: Any = NO) -> Selection:
    """np.nansum; ``where=`` and ``initial=`` (once dropped silently) as NumPy has them."""
    if dtype is not None or out is not None:
        raise Unsupported("dtype= and out= are not supported")
    args = (a, norm_axis(axis, len(shape_of(a))), keep(keepdims))
    if where is NO and initial is NO:
        return impl.nansum, args
    return impl.nansum_masked, (*args, True if where is NO else where,
                                0 if initial is NO else initial)


def _gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: int = 1) -> Selection:
    shape = shape_of(f)
    if edge_order != 1:
        raise Unsupported("only edge_order=1 is supported")
    axes = tuple(range(len(shape))) if axis is None else (
        tuple(norm_axis_index(ax, len(shape)) for ax in axis) if isinstance(axis, tuple)
        else (norm_axis_index(axis, len(shape)),))
    if len(varargs) == 0:
        dxs: tuple[Any, ...] = (1.0,) * len(axes)
    elif len(varargs) == 1:
        dxs = varargs * len(axes)
    elif len(varargs) == len(axes):
        dxs = varargs
    else:
        raise Unsupported("give one spacing, or one per axis")
    for d in dxs:
        if isinstance(d, Node) and shape_of(d, "the spacing") != () or np.ndim(d) != 0 and \
                not isinstance(d, Node):
            raise Unsupported("only scalar (uniform) spacings are supported")
    if any(shape[ax] < 2 for ax in axes):
        raise Unsupported("each differentiated axis needs at least 2 points")
    if len(axes) == 1:
        return impl.gradient_axis, (f, dxs[0], axes[0])
    if len(axes) == 2:
        return impl.gradient2, (f, *dxs, *axes)
    if len(axes) == 3:
        return impl.gradient3, (f, *dxs, *axes)
    raise Unsupported("at most 3 axes are supported")


def _logaddexp_reduce(array: Any, axis: Any = 0, dtype: Any = None, out: Any = None,
                      keepdims: bool = False, **kw: Any) -> Selection:
    if dtype is not None or out is not None or kw:
        raise Unsupported("dtype=, out=, initial= and where= are not supported")
    return impl.logaddexp_reduce, (array, norm_axis(axis, len(shape_of(array))),
                                   bool(keepdims))


def _asanyarray(a: Any, dtype: Any = None, order: Any = None, *, like: Any = None) -> Selection:
    if order is not None or like is not None:
        raise Unsupported("order= and like= are not supported")
    return (impl.asarray, (a,)) if dtype is None else (impl.asarray_dtype, (a, dtype))


def _searchsorted(a: Any, v: Any, side: Literal["left", "right"] = "left",
                  sorter: Any = None) -> Selection:
    """Integer positions (no derivative): by NumPy when every argument is a constant, else
    by counting the elements of ``a`` below ``v``."""
    a, v, sorter = constant(a), constant(v), constant(sorter)
    if not any(isinstance(x, Node) for x in (a, v, sorter)):
        return impl.identity, (np.searchsorted(a, v, side=side, sorter=sorter),)
    if sorter is not None or len(shape_of(a)) != 1:
        raise Unsupported("a runtime searchsorted needs a 1-d a and no sorter")
    if side not in ("left", "right"):
        raise Unsupported(f"side must be 'left' or 'right', not {side!r}")
    return impl.searchsorted, (a, v, side == "right")


def _vecdot(x1: Any, x2: Any, /, *, axis: int = -1, **kw: Any) -> Selection:
    """``np.vecdot`` of real arrays: the sum of the products along ``axis``."""
    if kw:
        raise Unsupported("only axis= is supported")
    if not isinstance(axis, int) or axis >= 0 and len(shape_of(x1)) != len(shape_of(x2)):
        raise Unsupported("axis must be a negative int when the arrays' ranks differ")
    return impl.vecdot, (x1, x2, axis)


def _histogram(a: Any, bins: Any = 10, range: Any = None, density: Any = None,
               weights: Any = None) -> Selection:
    """Weighted counts, differentiable in the weights: with the data and the bins constant,
    each count is a fixed sum of weights (a 0/1 matrix times ``weights``)."""
    a, bins, range = constant(a), constant(bins), constant(range)
    if isinstance(a, Node) or isinstance(bins, Node) or isinstance(range, Node):
        raise Unsupported("the data and the bins must be constants (the counts are piecewise "
                          "constant in the data)")
    if weights is None:
        return impl.identity, (np.histogram(a, bins=bins, range=range, density=density),)
    a = np.asarray(a)
    n = a.size
    columns = [np.histogram(a, bins=bins, range=range, weights=np.eye(n)[i].reshape(a.shape))[0]
               for i in builtins_range(n)]
    edges = np.histogram_bin_edges(a, bins=bins, range=range)
    if density:  # NumPy: the weighted counts / the bin widths / their sum
        return impl.histogram_weighted_density, (weights, np.stack(columns, axis=1), edges,
                                                 np.array(np.diff(edges), float))
    # NumPy's weighted counts have the weights' dtype (the 0/1 matrix is exact in it)
    members = np.stack(columns, axis=1).astype(np.result_type(dtype_of(weights), np.int8))
    return impl.histogram_weighted, (weights, members, edges)


def _broadcast_arrays(*args: Any, subok: bool = False) -> Selection:
    """The arguments broadcast to their common shape (static from their shapes): each one
    itself where it already has that shape, as NumPy returns it."""
    if subok:
        raise Unsupported("subok=True is not supported")
    try:
        shapes = [shape_of(a) for a in args]
    except Unsupported:  # a shape known only at run time (a boolean mask's result)
        return impl.broadcast_arrays_at_run_time, args
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError as exc:
        raise Unsupported(str(exc)) from None
    same = tuple(s == shape for s in shapes)
    return impl.broadcast_arrays, (shape, same, *args)


builtins_range = range

_TABLE: dict[int, Callable[..., Selection]] = {}


def _build() -> None:
    table: dict[Any, Callable[..., Selection]] = {
        np.diff: _diff, np.ptp: _ptp, np.average: _average, np.quantile: _quantile,
        np.percentile: _percentile, np.median: _median, np.interp: _interp,
        np.trapezoid: _trapezoid, np.cov: _cov, np.corrcoef: _corrcoef,
        np.correlate: _correlate, np.convolve: _convolve, np.cross: _cross, np.kron: _kron,
        np.nan_to_num: _nan_to_num, np.float_power: _float_power, np.fabs: _fabs,
        np.polyval: _polyval,
        np.nansum: _nansum, np.nanmean: _nan_reduction(impl.nanmean),
        np.gradient: _gradient, np.logaddexp.reduce: _logaddexp_reduce,
        np.linalg.vector_norm: la._vector_norm, np.linalg.matrix_norm: la._matrix_norm,
        np.linalg.svd: la._svd, np.linalg.eigvalsh: la._eigvalsh, np.linalg.pinv: la._pinv,
        np.linalg.lstsq: la._lstsq, np.asanyarray: _asanyarray, np.searchsorted: _searchsorted,
        np.histogram: _histogram, np.vecdot: _vecdot,
        np.broadcast_arrays: _broadcast_arrays,
    }
    table.update(la_more.numpy_table())  # linalg family: qr, eig, eigvals, cond, ...
    _TABLE.update((id(fn), sel) for fn, sel in table.items())


#: Functions whose result, when it has shape ``()``, is a NumPy scalar ("numpy") or a Python
#: float ("python") in their library, where their decomposition ends in ops that give a
#: 0-d array (``np.where``, a squeezed ``keepdims`` reduction).  ``result_kind`` reads it;
#: tests/differential checks every case's kind of result against the library's.
_RESULT_KINDS: dict[str, dict[str, str]] = {
    "numpy": dict.fromkeys(("median", "percentile", "quantile", "nanmedian", "nanpercentile",
                            "nanquantile", "nanmax", "nanmin", "nanvar", "nanstd", "interp"),
                           "numpy"),
    "scipy.special": {"logsumexp": "numpy"},
    # (SciPy 1.17 returns Python floats from euclidean and seuclidean, 1.18 NumPy
    # scalars: asked of the installed SciPy, ``_probed``)
    "scipy.spatial.distance": {"euclidean": "probe", "seuclidean": "probe",
                               "minkowski": "numpy"},
}
_PROBED: dict[str, str] = {}


def _probed(name: str, fn: Any) -> str:
    """What the installed library's ``fn`` returns for two small vectors (and unit
    variances): ``"python"`` for a Python float, else ``"numpy"``; asked once."""
    if name not in _PROBED:
        ones, zeros = np.ones(2), np.zeros(2)
        out = fn(zeros, ones, ones) if name == "seuclidean" else fn(zeros, ones)
        _PROBED[name] = "python" if type(out) is float else "numpy"
    return _PROBED[name]


def _logaddexp_reduce_of(fn: Any) -> bool:
    """Whether ``fn`` is ``np.logaddexp.reduce`` (a new bound method on every read)."""
    return getattr(fn, "__self__", None) is np.logaddexp and getattr(fn, "__name__", "") == \
        "reduce"


def result_kind(fn: Any) -> str | None:
    """``"numpy"`` or ``"python"``: what a 0-d result of the decomposed ``fn`` is in its
    library (see ``_RESULT_KINDS``); None where the decomposition already gives it."""
    if _logaddexp_reduce_of(fn):
        return "numpy"
    for module, kinds in _RESULT_KINDS.items():
        mod = sys.modules.get(module)
        for name, kind in kinds.items():
            target = getattr(mod, name, None) if mod is not None else None
            if target is not None and (fn is target or
                                       getattr(fn, "__wrapped__", None) is target):
                return _probed(name, target) if kind == "probe" else kind
    return None


def lookup(fn: Any) -> Callable[..., Selection] | None:
    """The selector of ``fn``, or None where ``fn`` is not decomposed here."""
    if not _TABLE:
        _build()
    if _logaddexp_reduce_of(fn):
        return _logaddexp_reduce  # a new bound method object on every attribute read
    # numpy-more family: ufunc.reduce/accumulate, nan* reductions, quantile methods...
    more = select_numpy_more.lookup(fn) or select_numpy_more.QUANTILE_METHODS.get(id(fn))
    if more is not None:
        return more
    found = _TABLE.get(id(fn))
    if found is None:  # stats: scipy.stats distribution methods (select_stats.py)
        found = select_stats.lookup(fn)
    return found if found is not None else select_scipy.lookup(fn)
