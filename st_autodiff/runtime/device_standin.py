"""A CuPy-shaped stand-in device library that runs on the CPU: GPU-readiness without a GPU.

Why not ``array_api_strict``: the eager runtime's kernels are written against the NumPy
API that CuPy also provides (``xp.add.at``, ``xp.minimum.reduce``, ``xp.einsum``,
``xp.lib.stride_tricks``, ``ndarray.get()`` ...), most of which is outside the array API
standard, so on ``array_api_strict`` the runtime would fail for reasons a real GPU never
shows, and pass none of the bugs a GPU does show.  What a GPU library does differently
from NumPy, and what breaks code written on NumPy, is where the data lives: CuPy refuses
every *silent* host conversion (``np.asarray(d)``, a NumPy array mixed into a CuPy op,
``d.__array__()``) and returns device arrays, never host scalars, from reductions.

This module reproduces exactly that contract on top of NumPy:

* ``StandinArray`` holds a private NumPy array; ``__array__`` raises CuPy's
  ``TypeError`` (so ``np.asarray(d)``, ``np.array(d)`` and NumPy calls that need the
  buffer fail), and only ``.get()`` copies to the host, as in CuPy;
* the namespace (this module's ``xp``) mirrors NumPy's functions, ufuncs (with
  ``.at``/``.reduce``) and submodules; arguments that are NumPy arrays (even 0-d ones) are
  refused with CuPy's ``Unsupported type`` error, creation functions (``asarray``,
  ``array``) are the one explicit way in, and every array result, reductions included,
  comes back as a 0-d or n-d ``StandinArray``;
* NumPy functions called on stand-in arrays (``np.exp(d)``, ``np.sum(d)``) dispatch to
  the stand-in through ``__array_ufunc__``/``__array_function__`` as they do for CuPy;
* ``float(d)``, ``int(d)``, ``bool(d)``, ``d.item()``, ``d.tolist()`` work (CuPy allows
  them; each is a device synchronisation) and are counted in ``SYNCS`` so tests can see
  host round trips; so are the reads CuPy makes itself to size a result by the data
  (``d[mask]``, ``nonzero``, ``unique``, ``bincount`` ...);
* NumPy keywords that CuPy's functions lack are refused too (``_CUPY_LACKS``: add one
  whenever a GPU run finds another), so CPU tests catch them as well.

Select it for ``device='cuda'`` tensors with ``ST_AUTODIFF_CUDA=standin`` (see
``runtime/device.py``); the stand-in's device reports itself as ``cuda:0``.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["SYNCS", "StandinArray", "xp"]

_IMPLICIT = ("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to "
             "construct a NumPy array explicitly.")
#: host synchronisations seen (``float(d)``, ``d.item()``, ``d.get()`` ...), by kind
SYNCS: dict[str, int] = {}
# functions that take host data in on purpose (host -> device copies)
_ENTRY = frozenset({"asarray", "array", "asanyarray", "ascontiguousarray"})
# keywords NumPy has and CuPy's function of the same name lacks (found on a GPU)
_CUPY_LACKS = {"indices": frozenset({"sparse"})}
# functions whose result's size depends on the data: CuPy reads a count back to the host
# to allocate it (one synchronisation each), as for ``d[mask]``
_SIZED_BY_DATA = frozenset({"nonzero", "argwhere", "flatnonzero", "unique", "extract",
                            "compress", "bincount"})


class _Device:
    """``d.device`` as CuPy shows it: an object with the GPU's ``id``."""

    id = 0

    def __repr__(self) -> str:
        return "<CUDA Device 0 (stand-in)>"


_DEVICE = _Device()


class _MemoryPointer:
    """``d.data`` as CuPy shows it: an address (``ptr``), not a host buffer."""

    def __init__(self, ptr: int) -> None:
        self.ptr = ptr


def _sync(kind: str) -> None:
    SYNCS[kind] = SYNCS.get(kind, 0) + 1


def _unwrap(v: Any) -> Any:
    """Stand-in arrays to their NumPy data; NumPy arrays refused (they live on the host)."""
    if type(v) is StandinArray:
        return v._a
    if isinstance(v, np.ndarray):
        raise TypeError(f"Unsupported type {type(v)}")
    if isinstance(v, (list, tuple)) and v and any(
            isinstance(x, (StandinArray, np.ndarray, list, tuple)) for x in v):
        return type(v)(_unwrap(x) for x in v)
    return v


def _wrap(r: Any) -> Any:
    """NumPy results back on the "device": arrays and NumPy scalars become stand-ins."""
    if isinstance(r, np.ndarray):
        return StandinArray(r)
    if isinstance(r, np.generic):
        return StandinArray(np.asarray(r))
    if isinstance(r, tuple):
        return tuple(_wrap(x) for x in r)
    if isinstance(r, list) and r and isinstance(r[0], np.ndarray):
        return [_wrap(x) for x in r]
    return r


def _refuse_device_repeats(repeats: Any) -> None:
    """CuPy's ``repeat`` takes repeats as an int, list or tuple: a device array would need
    its values on the host, so CuPy refuses it (NumPy takes any array)."""
    if type(repeats) is StandinArray:
        raise ValueError("cupy.ndarray is not supported for repeats argument")


def _device_fn(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``fn`` with stand-in arguments unwrapped and results wrapped."""
    entry = name in _ENTRY
    lacks = _CUPY_LACKS.get(name, frozenset())
    sized = name in _SIZED_BY_DATA

    def call(*args: Any, **kwargs: Any) -> Any:
        if sized or name == "where" and len(args) + len(kwargs) == 1:
            _sync(name)
        if name == "repeat":
            _refuse_device_repeats(kwargs.get("repeats", args[1] if len(args) > 1 else None))
        if lacks.intersection(kwargs):
            raise TypeError(f"{name}() got an unexpected keyword argument "
                            f"'{sorted(lacks.intersection(kwargs))[0]}' (as CuPy's does)")
        if entry and args and not isinstance(args[0], StandinArray):
            first = np.asarray(args[0]) if not isinstance(args[0], np.ndarray) else args[0]
            args = (first, *args[1:])
            return _wrap(fn(*args, **{k: _unwrap(v) for k, v in kwargs.items()}))
        a = tuple(_unwrap(x) for x in args)
        kw = {k: _unwrap(v) for k, v in kwargs.items()}
        return _wrap(fn(*a, **kw))

    call.__name__ = name
    call.__doc__ = f"NumPy's ``{name}`` on stand-in device arrays."
    return call


class _Ufunc:
    """A NumPy ufunc on stand-in arrays, with ``at``/``reduce``/``accumulate``/``outer``."""

    def __init__(self, uf: np.ufunc) -> None:
        self._uf = uf
        self.__name__ = uf.__name__
        self.nin, self.nout = uf.nin, uf.nout
        self.identity = uf.identity

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        out = kwargs.get("out")
        r = _device_fn(self._uf, self.__name__)(*args, **kwargs)
        return out if out is not None else r

    def at(self, a: StandinArray, indices: Any, b: Any = None) -> None:
        if type(a) is not StandinArray:
            raise TypeError(f"Unsupported type {type(a)}")
        args = (_unwrap(indices),) if b is None else (_unwrap(indices), _unwrap(b))
        self._uf.at(a._a, *args)

    def __getattr__(self, name: str) -> Any:
        return _device_fn(getattr(self._uf, name), f"{self.__name__}.{name}")


# the draws ``cupy.random.Generator`` offers (CuPy 13); NumPy's others are missing there
_CUPY_GENERATOR = frozenset(
    "random uniform integers beta chisquare dirichlet exponential f geometric hypergeometric "
    "logseries standard_exponential poisson power standard_normal gamma standard_gamma "
    "binomial".split())


class _Generator:
    """``cupy.random.default_rng(seed)``: a generator that draws on the device from device
    parameters (``standard_gamma(alpha)``, ``poisson(lam)``, ``binomial(n, p)``) and
    returns device arrays; like CuPy's, it refuses host arrays as parameters and has only
    the draws CuPy's ``Generator`` has."""

    def __init__(self, seed: Any = None) -> None:
        self._rng = np.random.default_rng(seed)

    def __getattr__(self, name: str) -> Any:
        if name not in _CUPY_GENERATOR:
            raise AttributeError(f"'Generator' object has no attribute '{name}' (as CuPy's)")
        return _device_fn(getattr(self._rng, name), f"Generator.{name}")


class _Namespace(types.SimpleNamespace):
    """A NumPy (sub)module seen through the stand-in's rules, built lazily per name."""

    def __init__(self, module: Any, prefix: str) -> None:
        super().__init__()
        object.__setattr__(self, "_module", module)
        object.__setattr__(self, "_prefix", prefix)

    @property
    def __name__(self) -> str:  # noqa: PLW3201 (modules have one; code reads it)
        return "st_autodiff_device_standin" + ("." + self._prefix[:-1] if self._prefix else "")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name == "ndarray":
            return StandinArray
        if name == "get_array_module":
            return lambda *vs: self
        if name == "asnumpy":
            return asnumpy
        if self._prefix == "random." and name == "default_rng":
            return _Generator
        value = getattr(self._module, name)
        if isinstance(value, np.ufunc):
            value = _Ufunc(value)
        elif isinstance(value, types.ModuleType):
            value = _Namespace(value, f"{self._prefix}{name}.")
        elif callable(value) and not isinstance(value, type):
            value = _device_fn(value, self._prefix + name)
        object.__setattr__(self, name, value)
        return value

    def __repr__(self) -> str:
        return f"<stand-in device namespace {self._prefix or 'xp'}>"


_SCIPY: dict[str, _Namespace] = {}


def _scipy_twin(which: str) -> _Namespace:
    """``cupyx.scipy.special`` (``linalg`` ...): SciPy's functions taking and returning device
    arrays.  Functions that are not ufuncs (``polygamma``, ``multigammaln``) convert their
    arguments with ``np.asarray``, which these arrays refuse; CuPy runs its own versions on
    the device, and so does this namespace (NumPy data underneath)."""
    if which not in _SCIPY:
        import importlib

        _SCIPY[which] = _Namespace(importlib.import_module(f"scipy.{which}"), f"scipy.{which}.")
    return _SCIPY[which]


def asnumpy(a: Any) -> np.ndarray[Any, Any]:
    """The explicit device -> host copy (``cupy.asnumpy``)."""
    return a.get() if type(a) is StandinArray else np.asarray(a)


def _binop(name: str) -> Callable[..., Any]:
    op = getattr(np.ndarray, name)

    def method(self: StandinArray, other: Any) -> Any:
        return _wrap(op(self._a, _unwrap(other)))

    method.__name__ = name
    return method


def _inplace(name: str) -> Callable[..., Any]:
    op = getattr(np.ndarray, name)

    def method(self: StandinArray, other: Any) -> StandinArray:
        op(self._a, _unwrap(other))
        return self

    method.__name__ = name
    return method


def _unary(name: str) -> Callable[..., Any]:
    op = getattr(np.ndarray, name)

    def method(self: StandinArray) -> Any:
        return _wrap(op(self._a))

    method.__name__ = name
    return method


class StandinArray:
    """A device array: NumPy data behind CuPy's refusals (see the module docstring)."""

    __slots__ = ("_a", "__weakref__")
    __array_priority__ = 2000

    def __init__(self, a: np.ndarray[Any, Any]) -> None:
        self._a = a

    # --- what makes it a device array -------------------------------------------------
    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray[Any, Any]:
        raise TypeError(_IMPLICIT)

    def __array_namespace__(self, api_version: Any = None) -> Any:
        return xp

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kw: Any) -> Any:
        if method == "at":
            return _Ufunc(ufunc).at(*inputs)
        fn = ufunc if method == "__call__" else getattr(ufunc, method)
        out = kw.get("out")
        r = _device_fn(fn, ufunc.__name__)(*inputs, **kw)
        return out[0] if isinstance(out, tuple) and len(out) == 1 else r

    def __array_function__(self, func: Any, types_: Any, args: Any, kwargs: Any) -> Any:
        return _device_fn(func, func.__name__)(*args, **kwargs)

    @staticmethod
    def __cupyx_scipy__(which: str) -> Any:
        """``cupyx.scipy.<which>`` for these arrays (``ir.namespaces.scipy_module``)."""
        return _scipy_twin(which)

    def get(self, stream: Any = None, order: str = "C", out: Any = None) -> np.ndarray[Any, Any]:
        _sync("get")
        return self._a.copy()

    @property
    def device(self) -> _Device:
        return _DEVICE

    @property
    def data(self) -> _MemoryPointer:
        """CuPy's ``MemoryPointer``: the buffer's (device) address as ``ptr``, no buffer."""
        return _MemoryPointer(self._a.__array_interface__["data"][0])

    # --- host synchronisations CuPy allows ------------------------------------------
    def item(self, *args: Any) -> Any:
        _sync("item")
        return self._a.item(*args)

    def tolist(self) -> Any:
        _sync("tolist")
        return self._a.tolist()

    def __float__(self) -> float:
        _sync("float")
        return float(self._a)

    def __int__(self) -> int:
        _sync("int")
        return int(self._a)

    def __index__(self) -> int:
        _sync("index")
        return self._a.__index__()

    def __bool__(self) -> bool:
        _sync("bool")
        return bool(self._a)

    def __complex__(self) -> complex:
        _sync("complex")
        return complex(self._a)

    # --- the rest of ndarray ----------------------------------------------------------
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # no __array_interface__/__array_struct__: the host's way in
            raise AttributeError(name)
        value = getattr(self._a, name)
        if callable(value):
            return _device_fn(value, name)
        return _wrap(value)

    def repeat(self, repeats: Any, axis: Any = None) -> Any:
        """``d.repeat(repeats)``, with CuPy's refusal of device repeats."""
        _refuse_device_repeats(repeats)
        return _wrap(self._a.repeat(_unwrap(repeats), axis))

    @property
    def T(self) -> StandinArray:  # noqa: N802 (ndarray's name)
        return StandinArray(self._a.T)

    @property
    def shape(self) -> tuple[Any, ...]:
        shape: tuple[Any, ...] = self._a.shape
        return shape

    @shape.setter
    def shape(self, value: tuple[Any, ...]) -> None:
        self._a.shape = value

    @property
    def dtype(self) -> np.dtype[Any]:
        dtype: np.dtype[Any] = self._a.dtype
        return dtype

    @property
    def ndim(self) -> int:
        return self._a.ndim

    @property
    def size(self) -> int:
        return self._a.size

    @property
    def strides(self) -> tuple[Any, ...]:
        return self._a.strides

    @property
    def base(self) -> Any:
        b = self._a.base
        return None if b is None else StandinArray(b) if isinstance(b, np.ndarray) else b

    def __getitem__(self, key: Any) -> Any:
        if any(type(k) is StandinArray and k._a.dtype == bool
               for k in (key if isinstance(key, tuple) else (key,))):
            _sync("mask")  # d[mask]: the number of selected items is read back first
        return _wrap(self._a[_unwrap(key)])

    def __setitem__(self, key: Any, value: Any) -> None:
        self._a[_unwrap(key)] = _unwrap(value)

    def __len__(self) -> int:
        return len(self._a)

    def __iter__(self) -> Any:
        return (_wrap(x) for x in self._a)

    def __repr__(self) -> str:
        return repr(self._a)

    def __str__(self) -> str:
        return str(self._a)

    def __copy__(self) -> StandinArray:
        return StandinArray(self._a.copy())

    def __deepcopy__(self, memo: Any) -> StandinArray:
        return StandinArray(self._a.copy())

    def __reduce__(self) -> Any:
        raise TypeError(_IMPLICIT)

    __hash__ = None  # type: ignore[assignment]


for _n in ("add sub mul truediv floordiv mod pow matmul and or xor lshift rshift "
           "radd rsub rmul rtruediv rfloordiv rmod rpow rmatmul rand ror rxor "
           "eq ne lt le gt ge divmod").split():
    setattr(StandinArray, f"__{_n}__", _binop(f"__{_n}__"))
for _n in "iadd isub imul itruediv ifloordiv imod ipow iand ior ixor imatmul".split():
    setattr(StandinArray, f"__{_n}__", _inplace(f"__{_n}__"))
for _n in ("neg", "pos", "abs", "invert"):
    setattr(StandinArray, f"__{_n}__", _unary(f"__{_n}__"))

#: the stand-in device namespace (what ``cupy`` is on a GPU)
xp = _Namespace(np, "")
