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
names written on the namespace's array-API functions (``ir/array_api_names``).

Only this module imports CuPy, Dask or ``array_api_compat``, and only when such a value is
seen or asked for.
"""

from __future__ import annotations

import importlib
import linecache
import re
import types
from typing import Any

import numpy as np

from ..errors import CompileError, StAutodiffError
from ..ir.namespaces import (  # noqa: F401  (namespace_of and co.: public here too)
    _canonical,
    base_namespace,
    bound_namespace,
    describe_dtype_name,
    namespace_name,
    namespace_of,
)


class BackendUnsupportedError(CompileError):
    """The user's code calls a NumPy function that the arguments' array namespace has
    no equivalent of (located at the call)."""


class BackendUnavailableError(StAutodiffError, RuntimeError):
    """A backend asked for by name is not installed (CuPy)."""


class BackendError(StAutodiffError, TypeError):
    """Arguments of one call live in different array namespaces, or a backend asked for
    by name cannot be used."""


def namespace_for(*values: Any, names: Any = None) -> Any:
    """The one array namespace of ``values`` (``numpy`` when none is an array).

    Arrays of two namespaces in one call are an error that names the arguments
    (``names``: one name per value, for the message), except NumPy arrays beside Dask
    arrays, which Dask takes as constants: the namespace is then Dask's."""
    seen: dict[int, tuple[Any, int]] = {}
    for i, v in enumerate(values):
        ns = namespace_of(v)
        if ns is not None and id(_canonical(ns)) not in seen:
            seen[id(_canonical(ns))] = (ns, i)
    if not seen:
        return np
    if len(seen) == 2 and id(np) in seen:
        # NumPy arrays beside a library that takes them as constants (Dask: small NumPy
        # parameters with row-chunked data is how data-parallel gradients are written)
        other = next(ns for key, (ns, _) in seen.items() if key != id(np))
        if namespace_name(other).startswith("dask"):
            return other
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
            raise BackendUnavailableError("the CuPy backend needs cupy: pip install "
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
        result: bool = cupy.cuda.runtime.getDeviceCount() > 0
        return result
    except Exception:  # any failure (no module, no driver, no device) means no GPU
        return False


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
    # NumPy scalars too (CuPy's functions take no NumPy scalar where an array goes:
    # cupy.broadcast_to(np.float64(2.0), ...)), except for Dask, which takes them
    kinds = (np.ndarray,) if namespace_name(base_namespace(xp)) == "dask.array" else (
        np.ndarray, np.generic)
    out = {}
    for k, v in consts.items():
        if isinstance(v, kinds) or isinstance(v, tuple) and any(
                isinstance(x, kinds) for x in v):
            out[k] = _on(xp, v, kinds)
    return out


def _on(xp: Any, v: Any, kinds: tuple[Any, ...]) -> Any:
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
        def scatter_add(shape: tuple[Any, ...], g: Any, index: tuple[Any, ...]) -> Any:
            """``rt.scatter_add``, a Python-number gradient made an ``xp`` array."""
            return base_scatter(shape, g if hasattr(g, "shape") else xp.asarray(
                g, dtype=xp.float64), index)
        mod.scatter_add = scatter_add  # type: ignore[attr-defined]
    if base_sum is not None:
        def list_sum(items: list[Any]) -> Any:
            """``rt.list_sum``; an empty list sums to an ``xp`` float64 zero."""
            return base_sum(items) if items else xp.asarray(0.0, dtype=xp.float64)
        mod.list_sum = list_sum  # type: ignore[attr-defined]
    _SUPPORT[(id(rt), id(xp))] = (rt, xp, mod)
    return mod
