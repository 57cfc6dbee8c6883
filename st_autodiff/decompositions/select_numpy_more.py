"""Selectors of more NumPy functions (elementwise ufuncs without an op, data movement,
polynomials...) and the table of the numpy-more family; the reductions (``nan*``,
``ufunc.reduce``/``accumulate``, quantile methods) are in ``select_numpy_stats``.

Each selector checks and normalises the static arguments of one call and returns
``(impl, args)``: a function of ``numpy_more_impl`` that the compiler reads like the
user's own code (see ``decompositions/__init__.py``).  ``lookup(fn)`` finds the selector
of a function, or of a bound ``ufunc.reduce``/``ufunc.accumulate`` method.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.lib import _function_base_impl

from . import numpy_impl as base
from . import numpy_more_impl as impl
from . import select_numpy_stats as stats
from .common import (
    Node,
    Selection,
    Unsupported,
    constant,
    dtype_of,
    norm_axis_index,
    shape_of,
    static,
)

#: NumPy's private i0 coefficients: not in NumPy's stubs
_fb: Any = _function_base_impl

# --- elementwise ------------------------------------------------------------------------


def _float_type(fn: Any, *args: Any) -> np.dtype[Any]:
    """The result dtype of the ufunc ``fn`` for the arguments' dtypes (Python numbers
    weak, as NumPy treats them)."""
    samples = [a if isinstance(a, (int, float)) and not isinstance(a, bool)
               else np.zeros(1, dtype_of(a)) for a in args]
    dt: np.dtype[Any] = np.asarray(fn(*samples)).dtype
    return dt


def _no_out(out: Any, kw: dict[str, Any]) -> None:
    if out is not None or kw:
        raise Unsupported("out=, where=, casting= and dtype= are not supported")


def _copysign(x1: Any, x2: Any, /, out: Any = None, **kw: Any) -> Selection:
    _no_out(out, kw)
    return impl.copysign, (x1, x2, _float_type(np.copysign, x1, x2))


def _heaviside(x1: Any, x2: Any, /, out: Any = None, **kw: Any) -> Selection:
    _no_out(out, kw)
    return impl.heaviside, (x1, x2, _float_type(np.heaviside, x1, x2))


def _divmod(x1: Any, x2: Any, /, out: Any = (None, None), **kw: Any) -> Selection:
    _no_out(None if out == (None, None) else out, kw)
    return impl.divmod_, (x1, x2)


def _frexp(x: Any, /, out: Any = (None, None), **kw: Any) -> Selection:
    _no_out(None if out == (None, None) else out, kw)
    if not np.issubdtype(dtype_of(x), np.floating):
        raise Unsupported("only floating arrays are supported")
    return impl.frexp, (x,)


def _modf(x: Any, /, out: Any = (None, None), **kw: Any) -> Selection:
    _no_out(None if out == (None, None) else out, kw)
    return impl.modf, (x, _float_type(np.modf, x))


def _conj(x: Any, /, out: Any = None, **kw: Any) -> Selection:
    _no_out(out, kw)
    if np.issubdtype(dtype_of(x), np.complexfloating):
        raise Unsupported("complex arrays are not supported (real arrays are)")
    return impl.conj_real, (x,)


def _imag(val: Any) -> Selection:
    if np.issubdtype(dtype_of(val), np.complexfloating):
        raise Unsupported("complex arrays are not supported (real arrays are)")
    return impl.imag_real, (val,)


def _i0(x: Any) -> Selection:
    if not np.issubdtype(dtype_of(x), np.floating):
        raise Unsupported("only real floating arrays are supported")
    return impl.i0, (x, _fb._i0A, _fb._i0B)


# --- data movement ----------------------------------------------------------------------


def _labels(shape: tuple[int, ...], start: int) -> np.ndarray[Any, Any]:
    return np.arange(start, start + math.prod(shape), dtype=np.intp).reshape(shape)


def _insert(arr: Any, obj: Any, values: Any, axis: Any = None) -> Selection:
    """Where NumPy puts each element, from ``np.insert`` of integer labels (static: the
    positions and every shape are known); then the values gathered there."""
    obj = constant(obj)
    if isinstance(obj, Node):
        raise Unsupported("the insertion positions must be constants")
    values = constant(values)
    sa, sv = shape_of(arr), shape_of(values, "values")
    labels = np.insert(_labels(sa, 0), obj, _labels(sv, math.prod(sa)), axis=axis)
    return impl.gather_flat, ([arr, values], labels, dtype_of(arr))


def _partition(a: Any, kth: Any, axis: Any = -1, kind: str = "introselect",
               order: Any = None) -> Selection:
    if order is not None:
        raise Unsupported("order= is not supported")
    kth = static(constant(kth), "kth")
    if axis is None:
        return impl.partition_flat, (a, kth)
    return impl.partition, (a, kth, norm_axis_index(axis, len(shape_of(a))))


def _choose(a: Any, choices: Any, out: Any = None, mode: str = "raise") -> Selection:
    if out is not None or mode != "raise":
        raise Unsupported("only mode='raise' without out= is supported")
    a = constant(a)
    if isinstance(choices, Node):
        raise Unsupported("give the choices as a list or tuple")
    choices = [constant(c) for c in choices]
    shape = np.broadcast_shapes(shape_of(a), *(shape_of(c) for c in choices))
    return impl.choose, (a, shape, *choices)


def _compress(condition: Any, a: Any, axis: Any = None, out: Any = None) -> Selection:
    if out is not None:
        raise Unsupported("out= is not supported")
    axis = None if axis is None else norm_axis_index(axis, len(shape_of(a)))
    condition = constant(condition)
    if isinstance(condition, Node):
        return impl.compress_mask, (a, condition, axis)
    positions = np.nonzero(np.ravel(np.asarray(condition, dtype=bool)))[0]
    return impl.compress, (a, positions, axis)


def ndarray_compress(a: Any, condition: Any, axis: Any = None, out: Any = None) -> Any:
    """``a.compress(condition, axis)``: the method spelled as a function (the compiler reads
    it through ``_compress``; called directly it is NumPy's method)."""
    return np.asarray(a).compress(condition, axis=axis, out=out)


def _ndarray_compress(a: Any, condition: Any, axis: Any = None, out: Any = None) -> Selection:
    return _compress(condition, a, axis, out)


def _diagflat(v: Any, k: int = 0) -> Selection:
    return impl.diagflat, (v, operator.index(static(k, "k")))


def _ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> Selection:
    dt = dtype_of(ary)
    extras = []
    for v in (to_begin, to_end):
        v = constant(v)
        if v is not None and not isinstance(v, Node) and \
                not np.can_cast(np.asanyarray(v), dt, casting="same_kind"):
            raise TypeError("dtype of `to_begin`/`to_end` must be compatible with input `ary` "
                            "under the `same_kind` rule.")
        extras.append(() if v is None else (v,))
    return impl.ediff1d, (ary, extras[0], extras[1], dt)


def _vander(x: Any, N: Any = None, increasing: bool = False) -> Selection:
    shape = shape_of(x)
    if len(shape) != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    return impl.vander, (x, shape[0] if N is None else operator.index(static(N, "N")),
                         bool(increasing))


def _bincount(x: Any, /, weights: Any = None, minlength: int = 0) -> Selection:
    x = constant(x)
    if isinstance(x, Node) and np.issubdtype(dtype_of(x), np.floating):
        raise Unsupported("the labels must be integers")
    if weights is None:
        if isinstance(x, Node):
            raise Unsupported("counts of runtime labels without weights are not supported")
        return base.identity, (np.bincount(x, minlength=minlength),)
    if isinstance(x, Node):
        raise Unsupported("the labels must be constants (the length of the result is "
                          "decided by their values)")
    length = max(int(np.max(x, initial=-1)) + 1, int(minlength))
    return impl.bincount, (np.asarray(x), weights, length)


def _trim_zeros(filt: Any, trim: str = "fb", axis: Any = None) -> Selection:
    if len(shape_of(filt)) != 1:
        raise Unsupported("only 1-d arrays are supported")
    trim = static(trim, "trim").lower()
    return impl.trim_zeros, (filt, "f" in trim, "b" in trim)


def _meshgrid(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy"
              ) -> Selection:
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    ndim = len(xi)
    s0 = (1,) * ndim
    shapes = [s0[:i] + (math.prod(shape_of(x)),) + s0[i + 1:] for i, x in enumerate(xi)]
    if indexing == "xy" and ndim > 1:
        shapes[0] = (1, shapes[0][0]) + s0[2:]
        shapes[1] = (shapes[1][1], 1) + s0[2:]
    full = None if sparse else np.broadcast_shapes(*shapes)
    return impl.meshgrid, (tuple(shapes), full, bool(copy), *xi)


def _block(arrays: Any) -> Selection:
    leaves: list[Any] = []

    def walk(v: Any) -> tuple[Any, int]:
        if isinstance(v, list):
            if not v:
                raise Unsupported("empty lists are not supported")
            parts = [walk(x) for x in v]
            depths = {d for _, d in parts}
            if len(depths) != 1:
                raise ValueError("List depths are mismatched")
            return tuple(t for t, _ in parts), 1 + depths.pop()
        if isinstance(v, tuple):
            raise TypeError("np.block does not allow implicit conversion from tuple to "
                            "ndarray")
        leaves.append(v)
        return len(leaves) - 1, 0

    tree, depth = walk(arrays)
    nd = max([depth] + [len(shape_of(v)) for v in leaves])
    return impl.block, (tree, nd, *leaves)


def _piecewise(x: Any, condlist: Any, funclist: Any, *args: Any, **kw: Any) -> Selection:
    funcs = list(funclist)
    if isinstance(condlist, Node) or not isinstance(condlist, (list, tuple)):
        condlist = [condlist]
    conds = list(condlist)
    if len(funcs) == len(conds) + 1:
        return impl.piecewise_otherwise, (x, tuple(funcs), args, kw, *conds)
    if len(funcs) != len(conds):
        raise ValueError(f"with {len(conds)} condition(s), either {len(conds)} or "
                         f"{len(conds) + 1} functions are expected")
    return impl.piecewise, (x, tuple(funcs), args, kw, *conds)


def _polyint(p: Any, m: int = 1, k: Any = None) -> Selection:
    m = operator.index(static(m, "m"))
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    if len(shape_of(p)) != 1:
        raise Unsupported("p must be 1-d")
    if k is None:
        ks: list[Any] = [0.0] * m
    elif isinstance(k, Node) and shape_of(k) == ():
        ks = [k] * m
    elif isinstance(k, (list, tuple)) or isinstance(k, np.ndarray) and k.ndim:
        ks = list(k)
        if len(ks) == 1 and m > 1:
            ks = ks * m
    else:
        ks = [k] * m
    if len(ks) < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    return impl.polyint, (p, m, tuple(ks))


def _polymul(a1: Any, a2: Any) -> Selection:
    for v in (a1, a2):
        c = constant(v)
        if not isinstance(c, Node) and np.ndim(c) and np.asarray(c)[0] == 0:
            raise Unsupported("leading zero coefficients are not supported")
    return impl.polymul, (a1, a2)


def _polyfit(x: Any, y: Any, deg: Any, rcond: Any = None, full: bool = False, w: Any = None,
             cov: bool = False) -> Selection:
    if full or w is not None or cov:
        raise Unsupported("full=, w= and cov= are not supported")
    order = operator.index(static(deg, "deg")) + 1
    sx, sy = shape_of(x, "x"), shape_of(y, "y")
    if len(sx) != 1 or len(sy) not in (1, 2) or sy[0] != sx[0]:
        raise TypeError("expected 1-d x and 1-d or 2-d y of the same length")
    if rcond is None:
        rcond = sx[0] * np.finfo(np.float64).eps
    return impl.polyfit, (x, y, order, rcond, len(sy) == 2)


def _row_stack(tup: Any, *, dtype: Any = None, casting: str = "same_kind") -> Selection:
    if isinstance(tup, Node):
        raise Unsupported("give the arrays as a list or tuple")
    return impl.vhstack, (list(tup), 0, dtype)


def stack_of_rows(fn: Any) -> Callable[..., Selection]:
    """``np.vstack(x)``/``np.hstack(x)`` of one array: NumPy joins its rows ``x[i]``."""
    def select(tup: Any, *, dtype: Any = None, casting: str = "same_kind") -> Selection:
        if dtype is not None:
            raise Unsupported("dtype= is not supported")
        shape = shape_of(tup)
        if not shape:
            raise TypeError("arrays to stack must be passed as a sequence")
        if fn is np.vstack:
            rows = (-1, 1) if len(shape) == 1 else shape if len(shape) == 2 else \
                (shape[0] * shape[1],) + shape[2:]
            return impl.reshape_copy, (tup, rows)
        if len(shape) <= 2:
            return impl.reshape_copy, (tup, (-1,))
        return impl.rows_side_by_side, (tup, (shape[1], shape[0] * shape[2]) + shape[3:])

    return select


_TABLE: dict[int, Callable[..., Selection]] = {}


def _build() -> None:
    table: dict[Any, Callable[..., Selection]] = {
        **stats.table(),
        np.copysign: _copysign, np.heaviside: _heaviside, np.divmod: _divmod,
        np.frexp: _frexp, np.modf: _modf, np.conj: _conj, np.conjugate: _conj,
        np.imag: _imag, np.i0: _i0, np.insert: _insert, np.partition: _partition,
        np.choose: _choose, np.compress: _compress, np.diagflat: _diagflat,
        np.vander: _vander, np.ediff1d: _ediff1d, np.bincount: _bincount,
        np.trim_zeros: _trim_zeros, np.meshgrid: _meshgrid, np.block: _block,
        np.piecewise: _piecewise, ndarray_compress: _ndarray_compress, np.polyint: _polyint,
        np.polymul: _polymul, np.polyfit: _polyfit,
    }
    if hasattr(np, "row_stack"):
        table[np.row_stack] = _row_stack
    _TABLE.update((id(fn), sel) for fn, sel in table.items())


#: np.quantile / np.percentile with a method other than 'linear' (the linear one stays
#: with the selectors of ``decompositions/__init__``)
QUANTILE_METHODS = {id(np.quantile): stats.quantile_method,
                    id(np.percentile): stats.percentile_method}


def lookup(fn: Any) -> Callable[..., Selection] | None:
    """The selector of ``fn`` here, or None."""
    if not _TABLE:
        _build()
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, np.ufunc):
        name = getattr(fn, "__name__", "")
        return stats.ufunc_method(owner, name)
    return _TABLE.get(id(fn))
