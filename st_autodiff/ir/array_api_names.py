"""NumPy's names on an array-API namespace: the ``xp`` of generated code for arrays of a
library that only has the standard (``array_api_strict``, a device library).

Generated code calls ``xp.tanh``, ``xp.sum(x, axis=0)``, ``xp.concatenate``,
``xp.linalg.norm``; the standard spells some of these differently (``concat``,
``vector_norm``, ``correction=`` for ``ddof=``).  ``numpy_names(ns)`` is a module with the
namespace's own names plus NumPy's spelling of each standard function, every one written
with the namespace's functions only: no NumPy call, no conversion to NumPy.  A NumPy
function with no equivalent in the standard (``einsum``, ``add.at``) is simply absent, so
that ``transforms/load`` names it, at the user's line, when it binds generated code.
"""

from __future__ import annotations

import inspect
import math
import sys
import types
from typing import Any

#: NumPy name -> the standard's name (same arguments)
_RENAMED = {
    "arccos": "acos", "arcsin": "asin", "arctan": "atan", "arccosh": "acosh",
    "arcsinh": "asinh", "arctanh": "atanh", "arctan2": "atan2", "power": "pow",
    "absolute": "abs", "concatenate": "concat", "bitwise_invert": "bitwise_not",
    "invert": "bitwise_not", "left_shift": "bitwise_left_shift",
    "right_shift": "bitwise_right_shift", "amax": "max", "amin": "min",
}


def numpy_names(ns: Any) -> Any:
    """A module of NumPy's names over the array-API namespace ``ns`` (see the module
    docstring); ``__st_namespace__`` is ``ns``."""
    name = f"st_autodiff.xp.{getattr(ns, '__name__', type(ns).__name__)}"
    mod = types.ModuleType(name, f"NumPy's names on {name[15:]}")
    mod.__dict__.update({k: v for k, v in vars(ns).items() if not k.startswith("__")})
    for np_name, std in _RENAMED.items():
        if hasattr(ns, std):
            setattr(mod, np_name, getattr(ns, std))
    mod.__dict__.update(_scalar_safe(ns))
    made = _functions(ns)
    mod.__dict__.update(made)
    mod.linalg = _linalg(ns)  # type: ignore[attr-defined]
    mod.__st_namespace__ = ns  # type: ignore[attr-defined]
    sys.modules.setdefault(name, mod)
    return mod


def _scalar_safe(ns: Any) -> dict[str, Any]:
    """The standard's elementwise functions (``f(x, /)``, ``f(x1, x2, /)``), taking
    Python numbers where NumPy does (``xp.logical_not(flag)`` of a Python bool): a
    number is made an array of the namespace first."""
    out = {}
    for name, fn in vars(ns).items():
        if name.startswith("_") or not callable(fn) or isinstance(fn, type):
            continue
        try:
            params = list(inspect.signature(fn).parameters)
        except (TypeError, ValueError):
            continue
        if params in (["x"], ["x1", "x2"]):
            out[name] = _wrap_numbers(ns, fn)
    return out


def _wrap_numbers(ns: Any, fn: Any) -> Any:
    def call(*args: Any) -> Any:
        if any(hasattr(a, "shape") for a in args):
            return fn(*args)
        return fn(*[ns.asarray(a) for a in args])
    call.__name__ = call.__qualname__ = fn.__name__
    return call


def _axes(axis: Any) -> Any:
    return tuple(axis) if isinstance(axis, list) else axis


def _functions(ns: Any) -> dict[str, Any]:  # noqa: C901, PLR0915  (one closure per name)
    """NumPy's spelling of the standard functions whose arguments differ."""
    f: dict[str, Any] = {}
    name = getattr(ns, "__name__", "this namespace")

    def asarray(x: Any, dtype: Any = None, copy: Any = None) -> Any:
        if isinstance(x, (list, tuple)) and any(hasattr(v, "shape") for v in x):
            return ns.stack([ns.asarray(v, dtype=dtype) for v in x])
        return ns.asarray(x, dtype=dtype, copy=copy)

    def array(x: Any, dtype: Any = None, copy: bool = True) -> Any:
        return ns.asarray(asarray(x, dtype=dtype), copy=copy)

    def reduction(std: Any) -> Any:
        def fn(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False,
               **kw: Any) -> Any:
            x = asarray(x)
            if dtype is not None:
                x = ns.astype(x, dtype)
            return std(x, axis=_axes(axis), keepdims=keepdims, **kw)
        return fn

    for k in ("sum", "prod", "mean", "max", "min", "any", "all"):
        if hasattr(ns, k):
            f[k] = reduction(getattr(ns, k))
    f["amax"], f["amin"] = f.get("max"), f.get("min")

    def moments(std: Any) -> Any:
        def fn(x: Any, axis: Any = None, dtype: Any = None, ddof: float = 0,
               keepdims: bool = False) -> Any:
            x = asarray(x) if dtype is None else ns.astype(asarray(x), dtype)
            return std(x, axis=_axes(axis), correction=ddof, keepdims=keepdims)
        return fn

    f["var"], f["std"] = moments(ns.var), moments(ns.std)

    def astype(x: Any, dtype: Any, /, *, copy: bool = True) -> Any:
        return ns.astype(asarray(x), dtype, copy=copy)

    def transpose(x: Any, axes: Any = None) -> Any:
        axes = tuple(range(x.ndim))[::-1] if axes is None else tuple(axes)
        return ns.permute_dims(x, axes)

    def swapaxes(x: Any, axis1: int, axis2: int) -> Any:
        order = list(range(x.ndim))
        order[axis1], order[axis2] = order[axis2], order[axis1]
        return ns.permute_dims(x, tuple(order))

    def reshape(x: Any, shape: Any, order: str = "C") -> Any:
        return ns.reshape(asarray(x), tuple(shape) if isinstance(shape, (list, tuple))
                          else (shape,))

    def ravel(x: Any) -> Any:
        return ns.reshape(asarray(x), (-1,))

    def squeeze(x: Any, axis: Any = None) -> Any:
        if axis is None:
            axis = tuple(i for i, d in enumerate(x.shape) if d == 1)
        return ns.squeeze(x, axis=axis)

    def cumsum(x: Any, axis: Any = None, dtype: Any = None) -> Any:
        if axis is None:
            x, axis = ns.reshape(x, (-1,)), 0
        return ns.cumulative_sum(x, axis=axis, dtype=dtype)

    def cumprod(x: Any, axis: Any = None, dtype: Any = None) -> Any:
        if axis is None:
            x, axis = ns.reshape(x, (-1,)), 0
        return ns.cumulative_prod(x, axis=axis, dtype=dtype)

    def trace(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
        return ns.sum(diagonal(x, offset, axis1, axis2), axis=-1)

    def diagonal(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
        rest = [i for i in range(x.ndim) if i not in (axis1 % x.ndim, axis2 % x.ndim)]
        return ns.linalg.diagonal(ns.permute_dims(x, (*rest, axis1, axis2)), offset=offset)

    def dot(a: Any, b: Any) -> Any:
        if a.ndim == 0 or b.ndim == 0:
            return a * b
        if b.ndim <= 2:
            return ns.matmul(a, b)
        return ns.tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 2]))

    def outer(a: Any, b: Any) -> Any:
        return ns.reshape(a, (-1, 1)) * ns.reshape(b, (1, -1))

    def inner(a: Any, b: Any) -> Any:
        return ns.tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 1]))

    def stack(items: Any, axis: int = 0) -> Any:
        return ns.stack([asarray(v) for v in items], axis=axis)

    def concatenate(items: Any, axis: Any = 0) -> Any:
        return ns.concat([asarray(v) for v in items], axis=axis)

    def split(x: Any, indices_or_sections: Any, axis: int = 0) -> list[Any]:
        cuts = indices_or_sections
        n = x.shape[axis]
        if isinstance(cuts, int):
            cuts = [n * k // cuts for k in range(1, cuts)]
        edges = [0, *cuts, n]
        lead = (slice(None),) * (axis % x.ndim)
        return [x[lead + (slice(a, b), ...)] for a, b in zip(edges[:-1], edges[1:])]

    def take(x: Any, indices: Any, axis: Any = None) -> Any:
        if axis is None:
            x, axis = ns.reshape(x, (-1,)), 0
        if isinstance(indices, int):
            lead = (slice(None),) * (axis % x.ndim)
            return x[lead + (indices, ...)]
        return ns.take(x, asarray(indices), axis=axis)

    def where(cond: Any, a: Any = None, b: Any = None) -> Any:
        if not hasattr(a, "shape") and not hasattr(b, "shape"):  # two Python numbers
            a = ns.asarray(a, dtype=ns.float64 if isinstance(b, float) else None)
        return ns.where(asarray(cond), a, b)

    def maximum(a: Any, b: Any) -> Any:
        return ns.maximum(a, b)

    def shape(x: Any) -> tuple[Any, ...]:
        return tuple(getattr(x, "shape", ()))

    def ndim(x: Any) -> int:
        return int(getattr(x, "ndim", 0))

    def size(x: Any) -> int:
        return math.prod(getattr(x, "shape", ()))

    def zeros(shape: Any, dtype: Any = None) -> Any:
        return ns.zeros(shape, dtype=dtype)

    def ones(shape: Any, dtype: Any = None) -> Any:
        return ns.ones(shape, dtype=dtype)

    def broadcast_to(x: Any, shape: Any) -> Any:
        return ns.broadcast_to(asarray(x), tuple(shape))

    def expand_dims(x: Any, axis: Any) -> Any:
        x = asarray(x)
        if isinstance(axis, tuple):
            for a in sorted(ax % (x.ndim + len(axis)) for ax in axis):
                x = ns.expand_dims(x, axis=a)
            return x
        return ns.expand_dims(x, axis=axis)

    def square(x: Any) -> Any:
        return x * x

    def negative(x: Any) -> Any:
        return -x

    def reciprocal(x: Any) -> Any:
        return 1 / x

    def matrix_transpose(x: Any) -> Any:
        return ns.matrix_transpose(x)

    def tensordot(a: Any, b: Any, axes: Any = 2) -> Any:
        return ns.tensordot(asarray(a), asarray(b), axes=axes)

    def diff(x: Any, n: int = 1, axis: int = -1) -> Any:
        return ns.diff(x, axis=axis, n=n)

    def full(shape: Any, fill_value: Any, dtype: Any = None) -> Any:
        return ns.full(shape, fill_value, dtype=dtype)

    def copy(x: Any) -> Any:
        return ns.asarray(x, copy=True)

    def tile(x: Any, reps: Any) -> Any:
        return ns.tile(asarray(x), tuple(reps) if isinstance(reps, (list, tuple)) else (reps,))

    def moveaxis(x: Any, source: Any, destination: Any) -> Any:
        return ns.moveaxis(x, source, destination)

    def vdot(a: Any, b: Any) -> Any:
        return ns.sum(ns.reshape(a, (-1,)) * ns.reshape(b, (-1,)))

    def repeat(x: Any, repeats: Any, axis: Any = None) -> Any:
        if axis is None:
            x, axis = ns.reshape(x, (-1,)), 0
        return ns.repeat(x, repeats, axis=axis)

    def pad(x: Any, pad_width: Any, mode: str = "constant", constant_values: Any = 0) -> Any:
        if mode != "constant":
            raise TypeError(f"np.pad(mode={mode!r}) on {name}: only mode='constant'")
        if isinstance(pad_width, int):
            pad_width = (pad_width, pad_width)
        widths = [tuple(w) for w in (pad_width if isinstance(pad_width[0], (tuple, list))
                                     else [pad_width] * x.ndim)]
        shape = tuple(d + a + b for d, (a, b) in zip(x.shape, widths))
        out = ns.full(shape, constant_values, dtype=x.dtype)
        out[tuple(slice(a, a + d) for d, (a, _) in zip(x.shape, widths))] = x
        return out

    def hstack(items: Any) -> Any:
        items = [asarray(v) for v in items]
        return ns.concat(items, axis=0 if items[0].ndim == 1 else 1)

    def vstack(items: Any) -> Any:
        return ns.concat([ns.reshape(v, (1, -1)) if v.ndim < 2 else v
                          for v in map(asarray, items)], axis=0)

    def diag(v: Any, k: int = 0) -> Any:
        if v.ndim == 2:
            return diagonal(v, k)
        n = v.shape[0] + abs(k)
        body = ns.concat([v, ns.zeros((abs(k),), dtype=v.dtype)])
        # k >= 0: row i holds v[i] at column i + k; k < 0: column j holds v[j] at j - k
        scale = ns.reshape(body, (-1, 1)) if k >= 0 else ns.reshape(body, (1, -1))
        return ns.eye(n, k=k, dtype=v.dtype) * scale

    def exp2(x: Any) -> Any:
        return ns.pow(2.0, x)

    def cbrt(x: Any) -> Any:
        return ns.sign(x) * ns.pow(ns.abs(x), 1.0 / 3.0)

    def deg2rad(x: Any) -> Any:
        return x * (math.pi / 180.0)

    def rad2deg(x: Any) -> Any:
        return x * (180.0 / math.pi)

    def eye(n: int, M: Any = None, k: int = 0, dtype: Any = None) -> Any:  # noqa: N803
        return ns.eye(n, M, k=k, dtype=dtype)

    def zeros_like(x: Any, dtype: Any = None) -> Any:
        if x is None:  # (NumPy: a 0-d object array; the adjoint of an unset value)
            return 0.0
        return ns.zeros_like(asarray(x), dtype=dtype)

    def fmin(a: Any, b: Any) -> Any:
        return ns.where(ns.isnan(b), a, ns.where(ns.isnan(a), b, ns.minimum(a, b)))

    def fmax(a: Any, b: Any) -> Any:
        return ns.where(ns.isnan(b), a, ns.where(ns.isnan(a), b, ns.maximum(a, b)))

    def logaddexp2(a: Any, b: Any) -> Any:
        m = ns.maximum(a, b)
        m = ns.where(ns.isfinite(m), m, 0.0)
        return m + ns.log2(ns.pow(2.0, a - m) + ns.pow(2.0, b - m))

    def isscalar(x: Any) -> bool:
        return isinstance(x, (int, float, complex, bool))

    f.update({k: v for k, v in locals().items() if callable(v) and not k.startswith("_")
              and k not in ("f", "ns", "name", "reduction", "moments")})
    f["e"], f["pi"], f["inf"], f["nan"] = ns.e, ns.pi, ns.inf, ns.nan
    f["newaxis"] = ns.newaxis if hasattr(ns, "newaxis") else None
    return f


def _linalg(ns: Any) -> Any:
    """``linalg`` with NumPy's spelling: ``norm`` on ``vector_norm``/``matrix_norm``."""
    la = types.ModuleType(f"st_autodiff.xp.{getattr(ns, '__name__', 'ns')}.linalg")
    base: Any = getattr(ns, "linalg", None)
    if base is not None:
        la.__dict__.update({k: v for k, v in vars(base).items() if not k.startswith("__")})

    def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
        x = ns.asarray(x)
        if axis is None and ord is None:
            return base.vector_norm(x, axis=None, keepdims=keepdims)
        if isinstance(axis, tuple) and len(axis) == 2 or axis is None and x.ndim == 2:
            ax = axis if axis is not None else (-2, -1)
            return base.matrix_norm(ns.moveaxis(x, ax, (-2, -1)) if ax != (-2, -1) else x,
                                    ord="fro" if ord is None else ord, keepdims=keepdims)
        return base.vector_norm(x, ord=2 if ord is None else ord, axis=axis,
                                keepdims=keepdims)

    if base is not None:
        la.norm = norm  # type: ignore[attr-defined]
    return la
