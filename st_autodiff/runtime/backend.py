"""The array backend: which array namespace a call's inputs live in, and the ``xp`` that
generated code is bound to for it.

A value's namespace comes from the value itself: NumPy arrays and scalars (and Python
numbers) mean ``numpy``; a CuPy array means ``cupy``; a Dask array means ``dask.array``; any
other array that has ``__array_namespace__`` (``array_api_strict``, a device library) means
the namespace it names; PyTorch tensors go through ``array_api_compat`` when it is
installed.  Only the type and ``__array_namespace__`` are read: never the data, so a Dask
graph is not computed and a device array is not copied to the host.

Generated code is one source for every backend.  It calls NumPy's names through ``xp``;
``bound_namespace`` returns, per namespace, the object ``xp`` is bound to: the module itself
where it has every name generated code uses (NumPy, CuPy, Dask), else a module of NumPy
names written on the namespace's array-API functions (``runtime/array_api_names``).

Only this module imports CuPy, Dask or ``array_api_compat``, and only when such a value is
seen or asked for.
"""

from __future__ import annotations

import importlib
import linecache
import re
import sys
import types
from typing import Any

import numpy as np

from ..errors import CompileError, StAutodiffError


class BackendUnsupportedError(CompileError):
    """The user's code calls a NumPy function that the arguments' array namespace has
    no equivalent of (located at the call)."""


class BackendError(StAutodiffError, TypeError):
    """Arguments of one call live in different array namespaces, or a backend asked for
    by name cannot be used."""


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
            raise BackendError("PyTorch tensors as inputs of a compiled gradient need "
                               "array_api_compat: pip install array-api-compat") from exc
        return compat.array_namespace(value)
    return None


def _first(found: list[Any]) -> Any:
    spaces = [ns for ns in found if ns is not None]
    return spaces[0] if spaces else None


def namespace_for(*values: Any, names: Any = None) -> Any:
    """The one array namespace of ``values`` (``numpy`` when none is an array).

    Arrays of two namespaces in one call are an error that names the arguments
    (``names``: one name per value, for the message)."""
    seen: dict[int, tuple[Any, int]] = {}
    for i, v in enumerate(values):
        ns = namespace_of(v)
        if ns is not None and id(_canonical(ns)) not in seen:
            seen[id(_canonical(ns))] = (ns, i)
    if not seen:
        return np
    if len(seen) == 1:
        return next(iter(seen.values()))[0]
    labels = list(names or ())
    parts = []
    for ns, i in seen.values():
        label = labels[i] if i < len(labels) else f"argument {i}"
        parts.append(f"{label} is an array of {namespace_name(ns)}")
    raise BackendError(
        "the arguments of one call live in different array namespaces: "
        + ", ".join(parts) + "; convert them to one library first (cupy.asarray, "
        "dask.array.from_array, the library's asarray): st_autodiff does not copy arrays "
        "between libraries behind your back")


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


def get_backend(name: Any) -> Any:
    """A namespace by name (``numpy``/``cpu``, ``cupy``/``cuda``/``gpu``, ``dask``, or any
    importable module name such as ``array_api_strict``); a module is returned as it is."""
    if not isinstance(name, str):
        return name
    if name in ("numpy", "cpu"):
        return np
    if name in ("cupy", "cuda", "gpu") or name.startswith("cuda:"):
        try:
            return importlib.import_module("cupy")
        except ImportError as exc:
            raise BackendError("the CuPy backend needs cupy: pip install "
                               "'st-autodiff[cuda12]' (or [cuda13])") from exc
    if name in ("dask", "dask.array"):
        return importlib.import_module("dask.array")
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise BackendError(f"unknown backend {name!r}: use 'numpy', 'cupy', 'dask' or the "
                           "name of an importable array-API module") from exc


def choose_backend(backend: Any = None, device: Any = None) -> Any:
    """The namespace ``backend=``/``device=`` of ``st.grad`` name (None: from the
    arguments).  ``device`` is ``'cpu'`` (NumPy) or ``'cuda'``/``'cuda:N'``/``'gpu'``
    (CuPy); both given must agree."""
    chosen = None if backend is None else get_backend(backend)
    if device is not None:
        by_device = get_backend(str(device))
        if str(device) not in ("cpu", "cuda", "gpu") and not str(device).startswith("cuda:"):
            raise BackendError(f"unknown device {device!r}: use 'cpu' or 'cuda'")
        if chosen is not None and namespace_name(chosen) != namespace_name(by_device):
            raise BackendError(f"backend={namespace_name(chosen)!r} and device={device!r} "
                               "disagree: pass one")
        chosen = by_device
    return chosen


def gpu_available() -> bool:
    """True when CuPy imports and sees at least one CUDA device."""
    try:
        cupy = importlib.import_module("cupy")
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # any failure (no module, no driver, no device) means no GPU
        return False


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

    def split(x: Any, indices_or_sections: Any, axis: int = 0) -> list:
        """``np.split`` by slicing (lazy)."""
        n = x.shape[axis]
        cuts = indices_or_sections
        if isinstance(cuts, int):
            cuts = [n * k // cuts for k in range(1, cuts)]
        edges = [0, *cuts, n]
        lead = (slice(None),) * (axis % x.ndim)
        return [x[(*lead, slice(a, b))] for a, b in zip(edges[:-1], edges[1:])]
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
        return np.dtype(dt).name
    except TypeError:
        pass
    text = str(dt).rsplit(".", 1)[-1].strip("'>")
    try:
        return np.dtype(text).name
    except TypeError:
        return text


# --- binding generated code to a namespace -------------------------------------------------

_XP_NAME = re.compile(r"\bxp\.([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)")


def check_names(source: str, line_map: dict[int, str], xp: Any) -> None:
    """Raise ``CompileError`` at the user's line when generated code calls an ``xp.``
    function that the bound namespace lacks (``np.einsum`` on ``array_api_strict``): at
    compile time, naming the function and the namespace, rather than an
    ``AttributeError`` deep in a call."""
    for k, line in enumerate(source.splitlines(), 1):
        if line.lstrip().startswith("#"):
            continue
        for path in _XP_NAME.findall(line):
            obj = xp
            for part in path.split("."):
                obj = getattr(obj, part, _MISSING)
                if obj is _MISSING:
                    break
            if obj is _MISSING:
                raise _missing(path, k, line_map, xp)


_MISSING = object()


def _missing(path: str, line: int, line_map: dict[int, str], xp: Any) -> Exception:
    from ..ir.graph import Loc  # noqa: PLC0415

    user = max((k for k in line_map if k <= line), default=None)
    loc = None
    if user is not None:
        file, at, col = line_map[user].rsplit(":", 2)
        text = (linecache.getline(file, int(at)) or "").rstrip("\n")
        loc = Loc(file, int(at), int(col), text.strip() and text)
    name = namespace_name(base_namespace(xp))
    err = BackendUnsupportedError(
        f"numpy.{path} (used by this line or its derivative) has no equivalent in "
        f"{name}, the array namespace of the arguments", loc,
        "write it with functions of the array API standard, or call with NumPy arrays")
    return err


def constants_on(xp: Any, consts: dict[str, Any]) -> dict[str, Any]:
    """The NumPy arrays among generated code's constants (folded literals, module-level
    arrays the user's code read) as arrays of ``xp``'s namespace: moved once, when the
    code is bound, never per call."""
    # NumPy scalars too, except for CuPy and Dask, which take them as they are
    kinds = (np.ndarray,) if namespace_name(base_namespace(xp)) in (
        "cupy", "dask.array") else (np.ndarray, np.generic)
    out = {}
    for k, v in consts.items():
        if isinstance(v, kinds) or isinstance(v, tuple) and any(
                isinstance(x, kinds) for x in v):
            out[k] = _on(xp, v, kinds)
    return out


def _on(xp: Any, v: Any, kinds: tuple) -> Any:
    if isinstance(v, tuple):
        return tuple(_on(xp, x, kinds) for x in v)
    if isinstance(v, kinds) and v.dtype.kind in "biufc":
        return xp.asarray(v)
    return v


_SUPPORT: dict[tuple[int, int], tuple[Any, Any, Any]] = {}


def bound_support(rt: Any, xp: Any) -> Any:
    """Generated code's ``rt`` for arrays of ``xp``: ``rt`` itself, but for the helpers
    that make a new array from Python values only (no array to take the namespace
    from), which make it with ``xp``: ``scatter_add`` of a Python-number gradient at a
    list index, ``list_sum`` of an empty list.  Cached per namespace."""
    if rt is None:
        return rt
    hit = _SUPPORT.get((id(rt), id(xp)))
    if hit is not None and hit[0] is rt and hit[1] is xp:
        return hit[2]
    mod = types.ModuleType(f"{rt.__name__}.{namespace_name(base_namespace(xp))}")
    mod.__dict__.update({k: v for k, v in vars(rt).items() if not k.startswith("__")})
    base_scatter, base_sum = getattr(rt, "scatter_add", None), getattr(rt, "list_sum", None)
    if base_scatter is not None:
        def scatter_add(shape: tuple, g: Any, index: tuple) -> Any:
            """``rt.scatter_add``, a Python-number gradient made an ``xp`` array."""
            return base_scatter(shape, g if hasattr(g, "shape") else xp.asarray(
                g, dtype=xp.float64), index)
        mod.scatter_add = scatter_add  # type: ignore[attr-defined]
    if base_sum is not None:
        def list_sum(items: list) -> Any:
            """``rt.list_sum``; an empty list sums to an ``xp`` float64 zero."""
            return base_sum(items) if items else xp.asarray(0.0, dtype=xp.float64)
        mod.list_sum = list_sum  # type: ignore[attr-defined]
    _SUPPORT[(id(rt), id(xp))] = (rt, xp, mod)
    return mod
