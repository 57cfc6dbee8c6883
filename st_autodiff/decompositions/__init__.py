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
from collections.abc import Callable
from typing import Any

import numpy as np

from ..ir.graph import Node
from ..ir.ops import Op
from . import numpy_impl as impl

Selection = tuple[Callable[..., Any], tuple]


class Unsupported(TypeError):
    """A use of a decomposed function that the decomposition does not cover."""


_NO: Any = np._NoValue  # NumPy's own "argument not given" marker


def _type(v: Any) -> Any:
    return v.type if isinstance(v, Node) else None


def _shape(v: Any, what: str = "the argument") -> tuple[int, ...]:
    """The shape of ``v``, known at compile time (from the example arguments)."""
    if isinstance(v, Node):
        t = v.type
        shape = None if t is None else (() if t.kind != "array" else t.shape)
        if shape is None:
            raise Unsupported(f"needs the shape of {what} at compile time")
        return tuple(shape)
    if isinstance(v, (list, tuple)):
        if any(isinstance(x, Node) or isinstance(x, (list, tuple)) for x in v):
            return (len(v),) if not any(isinstance(x, (list, tuple)) for x in v) else \
                _unsupported(f"{what} as a nested list of runtime values")
    return tuple(np.shape(v))


def _unsupported(message: str) -> Any:
    raise Unsupported(message)


def _dtype(v: Any) -> np.dtype:
    if isinstance(v, Node):
        t = v.type
        if t is None or t.dtype is None:
            return np.dtype(np.float64) if t is not None and t.kind == "float" else \
                _unsupported("needs the dtype of its argument at compile time")
        return np.dtype(t.dtype)
    return np.asarray(v).dtype


def _constant(v: Any) -> Any:
    """``v`` itself, or the value of a constant node (an array literal); else a node."""
    if isinstance(v, Node) and v.op is Op.CONST:
        return v.param("value")
    return v


def _static(v: Any, what: str) -> Any:
    if isinstance(v, Node):
        raise Unsupported(f"{what} must be a constant (it is computed at run time here)")
    return v


def _axis(axis: Any, nd: int) -> int:
    axis = operator.index(_static(axis, "axis"))
    if not -nd <= axis < max(nd, 1):
        raise Unsupported(f"axis {axis} is out of bounds for an array of dimension {nd}")
    return axis % nd if nd else 0


def _given(v: Any) -> bool:
    return v is not None and v is not _NO


# --- selectors ---------------------------------------------------------------------------


def _diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = _NO, append: Any = _NO
          ) -> Selection:
    shape = _shape(a)
    n = operator.index(_static(n, "n"))
    if n < 0:
        raise Unsupported(f"order must be non-negative but got {n}")
    axis = _axis(axis, len(shape))
    if not (_given(prepend) or _given(append)):
        return impl.diff, (a, n, axis)
    one = shape[:axis] + (1,) + shape[axis + 1:]
    parts = []
    for extra in (prepend, append):
        if not _given(extra):
            parts.append(np.zeros(shape[:axis] + (0,) + shape[axis + 1:], _dtype(a)))
        elif isinstance(extra, Node):
            if len(_shape(extra)) != len(shape):
                raise Unsupported("a runtime prepend/append must have the array's rank")
            parts.append(extra)
        elif np.ndim(extra) == 0:
            parts.append(np.broadcast_to(np.asarray(extra), one))
        else:
            parts.append(np.asarray(extra))
    return impl.diff_joined, (a, parts[0], parts[1], n, axis)


def _norm_axis(axis: Any, nd: int) -> Any:
    if axis is None:
        return None
    if isinstance(axis, tuple):
        return tuple(_axis(ax, nd) for ax in axis)
    return _axis(axis, nd)


def _keep(keepdims: Any) -> bool:
    return bool(_static(keepdims, "keepdims")) if keepdims is not _NO else False


def _ptp(a: Any, axis: Any = None, out: Any = None, keepdims: Any = _NO) -> Selection:
    if out is not None:
        raise Unsupported("out= is not supported")
    return impl.ptp, (a, _norm_axis(axis, len(_shape(a))), _keep(keepdims))


def _average(a: Any, axis: Any = None, weights: Any = None, returned: bool = False, *,
             keepdims: Any = _NO) -> Selection:
    shape = _shape(a)
    axis = _norm_axis(axis, len(shape))
    keep = _keep(keepdims)
    if weights is None:
        if not returned:
            return impl.mean, (a, axis, keep)
        size = np.prod([shape[i] for i in range(len(shape))
                        if axis is None or i in (axis if isinstance(axis, tuple) else (axis,))])
        return impl.average_returned, (a, axis, keep, float(size))
    wshape = _shape(weights, "weights")
    reshape: tuple = ()
    if wshape != shape:
        if axis is None:
            raise Unsupported("axis must be specified when shapes of a and weights differ")
        if len(wshape) != 1 or isinstance(axis, tuple) or wshape[0] != shape[axis]:
            raise Unsupported("1-d weights must have the length of a along axis")
        reshape = tuple(-1 if i == axis else 1 for i in range(len(shape)))
    fn = impl.average_weighted_returned if returned else impl.average_weighted
    return fn, (a, weights, axis, keep, reshape)


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
    q = np.true_divide(np.asanyarray(_static(q, "q")), scale) if scale != 1.0 else \
        np.asanyarray(_static(q, "q"))
    if q.ndim > 1:
        raise Unsupported("q must be a number or a 1-d sequence")
    shape = _shape(a)
    flat = axis is None
    ax = 0 if flat else _axis(axis, len(shape))
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
    shape = _shape(a)
    flat = axis is None
    ax = 0 if flat else _axis(axis, len(shape))
    if keepdims and flat:
        raise Unsupported("keepdims=True with axis=None is not supported")
    n = int(np.prod(shape)) if flat else shape[ax]
    return impl.median, (a, (n - 1) // 2, n // 2, ax, bool(keepdims), flat)


def _interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None, period: Any = None
            ) -> Selection:
    if period is not None:
        raise Unsupported("period= is not supported")
    if len(_shape(xp, "xp")) != 1 or len(_shape(fp, "fp")) != 1:
        raise Unsupported("xp and fp must be 1-d")
    return impl.interp, (x, xp, fp, 0.0 if left is None else left,
                         0.0 if right is None else right, left is not None, right is not None)


def _trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: int = -1) -> Selection:
    nd = len(_shape(y))
    axis = _axis(axis, nd)
    if x is None:
        return impl.trapezoid, (y, dx, axis)
    xnd = len(_shape(x, "x"))
    if xnd not in (1, nd):
        raise Unsupported("x must be 1-d or have y's rank")
    return impl.trapezoid_x, (y, x, axis, xnd == 1)


def _cov(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: Any = None,
         fweights: Any = None, aweights: Any = None, *, dtype: Any = None) -> Selection:
    if fweights is not None or aweights is not None or dtype is not None:
        raise Unsupported("fweights, aweights and dtype are not supported")
    shapes = [_shape(m)] + ([] if y is None else [_shape(y, "y")])
    if any(len(s) > 2 for s in shapes):
        raise Unsupported("m and y must have at most 2 dimensions")
    if ddof is None:
        ddof = 0 if bias else 1
    # NumPy: array(m, ndmin=2), transposed when not rowvar and it has more than one row
    flags = []
    for s in shapes:
        row = len(s) < 2
        flags += [row, not rowvar and (row or s[0] != 1) and not row]
    if y is None:
        return impl.cov, (m, flags[0], flags[1], int(_static(ddof, "ddof")))
    return impl.cov_xy, (m, y, *flags, int(_static(ddof, "ddof")))


def _corrcoef(x: Any, y: Any = None, rowvar: bool = True, bias: Any = _NO, ddof: Any = _NO, *,
              dtype: Any = None) -> Selection:
    fn, args = _cov(x, y, rowvar, dtype=dtype)
    scalar = y is None and len(_shape(x)) == 1
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
    n, m = _shape(a)[0], _shape(v, "v")[0]
    start, stop = _windows(n, m, _static(mode, "mode"))
    return impl.correlate, (a, v, start, stop)


def _convolve(a: Any, v: Any, mode: str = "full") -> Selection:
    n, m = _shape(a)[0], _shape(v, "v")[0]
    start, stop = _windows(n, m, _static(mode, "mode"))
    return impl.convolve, (a, v, start, stop)


def _cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: Any = None
           ) -> Selection:
    if axis is not None:
        axisa = axisb = axisc = axis
    sa, sb = _shape(a), _shape(b, "b")
    axisa, axisb = _axis(axisa, len(sa)), _axis(axisb, len(sb))
    if axisa - len(sa) != axisb - len(sb):
        raise Unsupported("the vector axes of a and b must line up (count from the end)")
    da, db = sa[axisa], sb[axisb]
    if (da, db) == (3, 3):
        nd = max(len(sa), len(sb))
        return impl.cross3, (a, b, axisa - len(sa), _axis(axisc, nd))
    if (da, db) == (2, 2):
        return impl.cross2, (a, b, axisa - len(sa))
    raise Unsupported("only pairs of 2-vectors or of 3-vectors are supported")


def _kron(a: Any, b: Any) -> Selection:
    sa, sb = _shape(a), _shape(b, "b")
    nd = max(len(sa), len(sb))
    sa, sb = (1,) * (nd - len(sa)) + sa, (1,) * (nd - len(sb)) + sb
    a_shape = tuple(d for k in sa for d in (k, 1))
    b_shape = tuple(d for k in sb for d in (1, k))
    return impl.kron, (a, b, a_shape, b_shape, tuple(i * j for i, j in zip(sa, sb)))


def _nan_to_num(x: Any, copy: bool = True, nan: float = 0.0, posinf: Any = None,
                neginf: Any = None) -> Selection:
    dt = _dtype(x)
    if not np.issubdtype(dt, np.floating):
        return impl.identity, (x,)
    info = np.finfo(dt)
    return impl.nan_to_num, (x, _static(nan, "nan"),
                             info.max if posinf is None else _static(posinf, "posinf"),
                             info.min if neginf is None else _static(neginf, "neginf"))


def _float_power(x1: Any, x2: Any) -> Selection:
    return impl.float_power, (x1, x2)


def _polyval(p: Any, x: Any) -> Selection:
    shape = _shape(p, "p")
    if len(shape) != 1:
        raise Unsupported("p must be 1-d")
    return impl.polyval, (p, x, shape[0])


def _nan_reduction(fn: Callable[..., Any]) -> Callable[..., Selection]:
    def select(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
               keepdims: Any = _NO, **_: Any) -> Selection:
        if dtype is not None or out is not None:
            raise Unsupported("dtype= and out= are not supported")
        return fn, (a, _norm_axis(axis, len(_shape(a))), _keep(keepdims))

    return select


def _gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: int = 1) -> Selection:
    shape = _shape(f)
    if edge_order != 1:
        raise Unsupported("only edge_order=1 is supported")
    axes = tuple(range(len(shape))) if axis is None else (
        tuple(_axis(ax, len(shape)) for ax in axis) if isinstance(axis, tuple)
        else (_axis(axis, len(shape)),))
    if len(varargs) == 0:
        dxs: tuple = (1.0,) * len(axes)
    elif len(varargs) == 1:
        dxs = varargs * len(axes)
    elif len(varargs) == len(axes):
        dxs = varargs
    else:
        raise Unsupported("give one spacing, or one per axis")
    for d in dxs:
        if isinstance(d, Node) and _shape(d, "the spacing") != () or np.ndim(d) != 0 and \
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
    return impl.logaddexp_reduce, (array, _norm_axis(axis, len(_shape(array))), bool(keepdims))


def _vector_norm(x: Any, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2
                 ) -> Selection:
    shape = _shape(x)
    ax = _norm_axis(axis, len(shape))
    if ax is None:
        return impl.vector_norm_flat, (x, ord, bool(keepdims), (1,) * len(shape))
    if isinstance(ax, tuple) and len(ax) != 1:
        raise Unsupported("a tuple of several axes is not supported")
    return impl.norm, (x, ord, ax[0] if isinstance(ax, tuple) else ax, bool(keepdims))


def _matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> Selection:
    return impl.norm, (x, ord, (-2, -1), bool(keepdims))


def _svd(a: Any, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False
         ) -> Selection:
    if hermitian:
        raise Unsupported("hermitian=True is not supported (use np.linalg.eigh)")
    if not compute_uv:
        return impl.svdvals, (a,)
    return impl.svd, (a, bool(_static(full_matrices, "full_matrices")))


def _eigvalsh(a: Any, UPLO: str = "L") -> Selection:
    return impl.eigvalsh, (a, _static(UPLO, "UPLO"))


def _pinv(a: Any, rcond: Any = None, hermitian: bool = False, *, rtol: Any = _NO) -> Selection:
    shape = _shape(a)
    if hermitian:
        raise Unsupported("hermitian=True is not supported")
    if rcond is None:
        if rtol is _NO:
            rcond = 1e-15
        elif rtol is None:
            rcond = max(shape[-2:]) * np.finfo(_dtype(a)).eps
        else:
            rcond = rtol
    return impl.pinv, (a, _static(rcond, "rcond"))


def _lstsq(a: Any, b: Any, rcond: Any = None) -> Selection:
    sa, sb = _shape(a), _shape(b, "b")
    if len(sa) != 2:
        raise Unsupported("a must be 2-d")
    m, n = sa
    if rcond is None:
        rcond = np.finfo(_dtype(a)).eps * max(m, n)
    return impl.lstsq, (a, b, _static(rcond, "rcond"), m > n, len(sb) == 1)


def _asanyarray(a: Any, dtype: Any = None, order: Any = None, *, like: Any = None) -> Selection:
    if order is not None or like is not None:
        raise Unsupported("order= and like= are not supported")
    return (impl.asarray, (a,)) if dtype is None else (impl.asarray_dtype, (a, dtype))


def _searchsorted(a: Any, v: Any, side: str = "left", sorter: Any = None) -> Selection:
    """Integer positions (no derivative): by NumPy when every argument is a constant, else
    by counting the elements of ``a`` below ``v``."""
    a, v, sorter = _constant(a), _constant(v), _constant(sorter)
    if not any(isinstance(x, Node) for x in (a, v, sorter)):
        return impl.identity, (np.searchsorted(a, v, side=side, sorter=sorter),)
    if sorter is not None or len(_shape(a)) != 1:
        raise Unsupported("a runtime searchsorted needs a 1-d a and no sorter")
    if side not in ("left", "right"):
        raise Unsupported(f"side must be 'left' or 'right', not {side!r}")
    return impl.searchsorted, (a, v, side == "right")


def _histogram(a: Any, bins: Any = 10, range: Any = None, density: Any = None,
               weights: Any = None) -> Selection:
    """Weighted counts, differentiable in the weights: with the data and the bins constant,
    each count is a fixed sum of weights (a 0/1 matrix times ``weights``)."""
    a, bins, range = _constant(a), _constant(bins), _constant(range)
    if isinstance(a, Node) or isinstance(bins, Node) or isinstance(range, Node):
        raise Unsupported("the data and the bins must be constants (the counts are piecewise "
                          "constant in the data)")
    if weights is None or density:
        return impl.identity, (np.histogram(a, bins=bins, range=range, density=density),)
    a = np.asarray(a)
    n = a.size
    columns = [np.histogram(a, bins=bins, range=range, weights=np.eye(n)[i].reshape(a.shape))[0]
               for i in builtins_range(n)]
    edges = np.histogram_bin_edges(a, bins=bins, range=range)
    return impl.histogram_weighted, (weights, np.stack(columns, axis=1), edges)


builtins_range = range

_TABLE: dict[int, Callable[..., Selection]] = {}


def _build() -> None:
    table = {
        np.diff: _diff, np.ptp: _ptp, np.average: _average, np.quantile: _quantile,
        np.percentile: _percentile, np.median: _median, np.interp: _interp,
        np.trapezoid: _trapezoid, np.cov: _cov, np.corrcoef: _corrcoef,
        np.correlate: _correlate, np.convolve: _convolve, np.cross: _cross, np.kron: _kron,
        np.nan_to_num: _nan_to_num, np.float_power: _float_power, np.polyval: _polyval,
        np.nansum: _nan_reduction(impl.nansum), np.nanmean: _nan_reduction(impl.nanmean),
        np.gradient: _gradient, np.logaddexp.reduce: _logaddexp_reduce,
        np.linalg.vector_norm: _vector_norm, np.linalg.matrix_norm: _matrix_norm,
        np.linalg.svd: _svd, np.linalg.eigvalsh: _eigvalsh, np.linalg.pinv: _pinv,
        np.linalg.lstsq: _lstsq, np.asanyarray: _asanyarray, np.searchsorted: _searchsorted,
        np.histogram: _histogram,
    }
    _TABLE.update((id(fn), sel) for fn, sel in table.items())


def lookup(fn: Any) -> Callable[..., Selection] | None:
    """The selector of ``fn``, or None where ``fn`` is not decomposed here."""
    if not _TABLE:
        _build()
    if getattr(fn, "__self__", None) is np.logaddexp and getattr(fn, "__name__", "") == "reduce":
        return _logaddexp_reduce  # a new bound method object on every attribute read
    return _TABLE.get(id(fn))
