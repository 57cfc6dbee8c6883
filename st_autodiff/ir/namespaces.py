"""Array namespaces, from values: which library an array belongs to, and the ``xp`` that
generated code is bound to for it (see ``runtime/backend`` for the user-facing side).

Only the type and ``__array_namespace__`` of a value are read, never its data.  This
module (with ``runtime/backend`` and ``ir/kernels``) is where CuPy is imported, lazily.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

import numpy as np


def namespace_of(value: Any) -> Any:
    """The array namespace of one value, or None for a value that is not an array (a
    Python number, a string, a function).  Containers (tuple, list, dict) are searched."""
    t = type(value)
    if t is np.ndarray or isinstance(value, np.generic):
        return np
    module = getattr(t, "__module__", None) or ""
    if not isinstance(module, str):
        module = ""
    if module.startswith("cupy"):
        return importlib.import_module("cupy")
    if module.startswith("dask") and hasattr(value, "dask"):
        return importlib.import_module("dask.array")
    if isinstance(value, np.ndarray):  # a subclass (np.matrix, a poisoned test array)
        return np
    if isinstance(value, (tuple, list)):
        return _first([namespace_of(v) for v in value])
    if isinstance(value, dict):
        return _first([namespace_of(v) for v in value.values()])
    get = getattr(value, "__array_namespace__", None)
    if get is not None and not isinstance(value, type):
        return get()
    if module.startswith("torch") and hasattr(value, "shape"):
        try:
            compat = importlib.import_module("array_api_compat")
        except ImportError as exc:
            raise TypeError("PyTorch tensors as inputs of a compiled gradient need "
                            "array_api_compat: pip install array-api-compat") from exc
        return compat.array_namespace(value)
    return None


def _first(found: list[Any]) -> Any:
    spaces = [ns for ns in found if ns is not None]
    return spaces[0] if spaces else None


def _canonical(ns: Any) -> Any:
    """``numpy`` for ``array_api_compat.numpy`` (the same arrays), else ``ns``."""
    name = getattr(ns, "__name__", "")
    if name.startswith("array_api_compat."):
        base = name[len("array_api_compat."):]
        try:
            return importlib.import_module(base)
        except ImportError:
            return ns
    return ns


def namespace_name(ns: Any) -> str:
    """A namespace's name for messages and cache keys (``numpy``, ``cupy``, ``dask.array``,
    ``array_api_strict``)."""
    return str(getattr(_canonical(ns), "__name__", type(ns).__name__))


# --- the ``xp`` of generated code ---------------------------------------------------------

#: names generated code and ``rt`` helpers call that some NumPy-like modules lack
_EXTRA = ("astype", "copy")

_BOUND: dict[int, tuple[Any, Any]] = {}


def bound_namespace(ns: Any) -> Any:
    """What generated code's ``xp`` is bound to for arrays of ``ns`` (cached per
    namespace): NumPy itself; CuPy or Dask with the few names they lack added; for any
    other namespace, NumPy's names written on its array-API functions."""
    ns = _canonical(ns)
    hit = _BOUND.get(id(ns))
    if hit is not None and hit[0] is ns:
        return hit[1]
    if ns is np:
        made = np
    elif namespace_name(ns) in ("cupy", "dask.array"):
        made = _numpy_like(ns)
    else:
        from .array_api_names import numpy_names  # noqa: PLC0415  (only for such inputs)

        made = numpy_names(ns)
    _BOUND[id(ns)] = (ns, made)
    return made


def _numpy_like(ns: Any) -> Any:
    """A module with ``ns``'s names, plus those of ``_EXTRA`` it lacks."""
    mod = types.ModuleType(f"st_autodiff.xp.{ns.__name__}",
                           f"{ns.__name__} as generated code calls it")
    mod.__dict__.update({k: v for k, v in vars(ns).items() if not k.startswith("__")})
    mod.__st_namespace__ = ns  # type: ignore[attr-defined]

    def __getattr__(name: str) -> Any:  # noqa: N807  (PEP 562: a name ns loads lazily)
        return getattr(ns, name)
    mod.__getattr__ = __getattr__  # type: ignore[method-assign]
    if not hasattr(ns, "astype"):
        def astype(x: Any, dtype: Any, /, *, copy: bool = True) -> Any:
            """``x.astype(dtype)`` as a function (what the array API spells)."""
            return x.astype(dtype, copy=copy)
        mod.astype = astype  # type: ignore[attr-defined]
    if not hasattr(ns, "copy"):
        def copy(x: Any) -> Any:
            """A copy of ``x`` (``np.copy``)."""
            return x.copy()
        mod.copy = copy  # type: ignore[attr-defined]
    if ns.__name__ == "dask.array":
        _dask_fixes(mod, ns)
    zeros_like = ns.zeros_like

    def zeros_like_none(x: Any, *args: Any, **kwargs: Any) -> Any:
        """``zeros_like``; of None (the adjoint of a value never set) 0.0, as NumPy's
        0-d object zero adds."""
        return 0.0 if x is None else zeros_like(x, *args, **kwargs)
    mod.zeros_like = zeros_like_none  # type: ignore[attr-defined]
    sys.modules.setdefault(mod.__name__, mod)
    return mod


def _dask_fixes(mod: Any, da: Any) -> None:
    """Where ``dask.array`` means something else than NumPy under the same name, or
    lacks a name whose NumPy meaning it can compute lazily."""
    linalg = types.ModuleType(f"{mod.__name__}.linalg")
    linalg.__dict__.update({k: v for k, v in vars(da.linalg).items()
                            if not k.startswith("__")})

    def cholesky(a: Any) -> Any:
        """NumPy's lower factor (``dask.array.linalg.cholesky`` returns the upper one)."""
        return da.linalg.cholesky(a, lower=True)
    linalg.cholesky = cholesky  # type: ignore[attr-defined]
    mod.linalg = linalg

    def split(x: Any, indices_or_sections: Any, axis: int = 0) -> list[Any]:
        """``np.split`` by slicing (lazy)."""
        n = x.shape[axis]
        cuts = indices_or_sections
        if isinstance(cuts, int):
            cuts = [n * k // cuts for k in range(1, cuts)]
        edges = [0, *cuts, n]
        lead = (slice(None),) * (axis % x.ndim)
        return [x[lead + (slice(a, b),)] for a, b in zip(edges[:-1], edges[1:])]
    mod.split = split

    def repeat(x: Any, repeats: Any, axis: Any = None) -> Any:
        """``np.repeat``; ``axis=None`` repeats the flattened array."""
        if axis is None:
            x, axis = da.reshape(x, (-1,)), 0
        return da.repeat(x, repeats, axis=axis)
    mod.repeat = repeat


def base_namespace(xp: Any) -> Any:
    """The namespace a bound ``xp`` was made for (``xp`` itself for NumPy)."""
    return getattr(xp, "__st_namespace__", xp)


def describe_dtype_name(dt: Any) -> str:
    """A dtype's name (``float64``) from a NumPy, CuPy, Dask or array-API dtype object,
    without touching any data."""
    try:
        result: str = np.dtype(dt).name
        return result
    except TypeError:
        pass
    text = str(dt).rsplit(".", 1)[-1].strip("'>")
    try:
        return np.dtype(text).name
    except TypeError:
        return text


def scipy_module(which: str, *values: Any) -> Any:
    """``scipy.<which>`` (``special``, ``linalg``), or CuPy's ``cupyx.scipy.<which>`` when
    a value is a CuPy array: never a hidden copy to the host.  Arrays that take over NumPy
    ufuncs (``__array_ufunc__``: Dask, the eager runtime's device stand-in) get
    ``scipy.special``, whose functions are ufuncs; other arrays have no such module: a
    ``TypeError`` that says so."""
    for v in values:
        module = type(v).__module__
        if module.startswith("cupy"):
            return importlib.import_module(f"cupyx.scipy.{which}")
        twin = getattr(type(v), "__cupyx_scipy__", None)  # a CuPy double's cupyx.scipy
        if twin is not None:
            return twin(which)
        if which == "special" and getattr(type(v), "__array_ufunc__", None) is not None:
            continue  # scipy.special's functions are ufuncs: such arrays take them over
        if hasattr(v, "shape") and not isinstance(v, type) and not module.startswith(
                "numpy") and namespace_of(v) is not np:
            raise TypeError(f"scipy.{which} has no equivalent for {module.split('.')[0]} "
                            "arrays; call with NumPy or CuPy arrays")
    return importlib.import_module(f"scipy.{which}")
