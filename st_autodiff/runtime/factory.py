"""Creating tensors: ``tensor``, ``zeros``/``ones``/``full``/``empty``, ranges, random ones.

Dtypes are inferred as PyTorch infers them: Python floats give the default dtype
(float32), Python ints ``int64``, bools ``bool``; NumPy arrays keep their dtype.
``device='cuda'`` puts the data in a CuPy array (an error like PyTorch's when no GPU).
Sizes may be given as ``f(2, 3)``, ``f((2, 3))`` or ``f([2, 3])``.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from . import dtypes
from . import random as rnd
from .device import is_device, to_device
from .tensor import Tensor, plain

__all__ = [
    "arange", "as_tensor", "empty", "empty_like", "eye", "from_numpy", "full", "full_like",
    "linspace", "ones", "ones_like", "rand", "rand_like", "randint", "randn", "randn_like",
    "randperm", "scalar_tensor", "tensor", "zeros", "zeros_like",
]

_COPY_WARNING = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
    "or sourceTensor.detach().clone().requires_grad_(True), rather than "
    "torch.tensor(sourceTensor)."
)


# issue 12, tensor part: ``torch.set_default_device`` (None: the host)
_DEFAULT_DEVICE: list[Any] = [None]


def _finish(data: np.ndarray[Any, Any], dtype: dtypes.dtype | None, device: Any,
            requires_grad: bool) -> Tensor:
    """Cast, place and wrap freshly made data (0-d data is kept as a NumPy scalar)."""
    if device is None:
        device = _DEFAULT_DEVICE[0]
    if data.dtype.kind == "c":
        dtypes.refuse_complex("c", f"can't make a tensor of {data.dtype} data")
    if dtype is not None and data.dtype != dtype.np:
        data = data.astype(dtype.np)
    if device is not None and device is not dtypes.CPU and dtypes.device(device).type == "cuda":
        from .methods import _cuda_backend

        data = _cuda_backend().asarray(data)
    elif data.ndim == 0:
        data = data[()]
    t = plain(data)
    if requires_grad:
        if data.dtype.kind != "f":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t._requires_grad = True
    return t


def _infer(data: Any, target: Any = None) -> np.ndarray[Any, Any]:
    """Nested Python data as an array with PyTorch's dtype rules.  Python floats are read
    as doubles and rounded once, to ``target`` (the requested NumPy dtype) when given:
    ``tensor(0.7, dtype=torch.float64)`` is exactly 0.7, never 0.7 rounded to float32."""
    if isinstance(data, np.ndarray):
        return data.copy()
    if isinstance(data, np.generic) and not isinstance(data, np.float64):
        return np.asarray(data)
    if isinstance(data, Tensor):
        return data._host().copy()
    if isinstance(data, (list, tuple)):
        data = [_host_item(x) for x in data]
    arr = np.asarray(data)
    if arr.dtype.kind == "f":
        arr = arr.astype(target if target is not None else dtypes.get_default_dtype().np)
    elif arr.dtype.kind in "iu":
        arr = arr.astype(np.int64)
    elif arr.dtype.kind not in "b":
        dtypes.refuse_complex(arr.dtype.kind, f"can't make a tensor of complex "
                              f"{type(data).__name__} data")
        raise TypeError(f"Could not infer dtype of {type(data).__name__}")
    return arr


def _host_item(x: Any) -> Any:
    if isinstance(x, Tensor):
        return x._host()
    if isinstance(x, (list, tuple)):
        return [_host_item(v) for v in x]
    return x


def tensor(data: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:
    """A new leaf tensor holding a copy of ``data`` (nested lists, numbers, arrays).

    >>> import st_autodiff as torch
    >>> torch.tensor([1., 2.], requires_grad=True)
    tensor([1., 2.], requires_grad=True)
    """
    dt = None if dtype is None else dtypes.to_dtype(dtype)
    if isinstance(data, Tensor):
        warnings.warn(_COPY_WARNING, UserWarning, stacklevel=2)
        if device is None:  # PyTorch: a tensor's copy stays on its device (unless a
            device = _DEFAULT_DEVICE[0] or data.device  # default device was set)
        if is_device(data._data) and dtypes.device(device).type == "cuda":
            return _finish(data._data.copy(), dt, device, requires_grad)  # (no host trip)
    arr = _infer(data, None if dt is None else dt.np)
    return _finish(arr, dt, device, requires_grad)


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """``data`` as a tensor, sharing memory with a NumPy array or tensor when possible."""
    dt = None if dtype is None else dtypes.to_dtype(dtype)
    if isinstance(data, Tensor) and (dt is None or data.dtype is dt) and device is None:
        return data
    if isinstance(data, np.ndarray) and (dt is None or data.dtype == dt.np) and device is None:
        return from_numpy(data)
    return tensor(data, dtype=dt, device=device)


def from_numpy(ndarray: np.ndarray[Any, Any]) -> Tensor:
    """A tensor sharing memory with ``ndarray`` (writes show up in both)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    dtypes.from_numpy_dtype(ndarray.dtype)
    return plain(ndarray)


def scalar_tensor(value: Any, *, dtype: Any = None, device: Any = None,
                  requires_grad: bool = False) -> Tensor:
    dt = dtypes.to_dtype(dtype) if dtype is not None else dtypes.get_default_dtype()
    return _finish(np.asarray(value, dtype=dt.np), dt, device, requires_grad)


def scalar_like(value: Any, other: Tensor) -> Tensor:
    """A Python number as a 0-d tensor, typed as PyTorch wraps scalars next to ``other``."""
    return plain(np.asarray(value, dtype=dtypes.result_type(other, value).np)[()])


def _size(size: tuple[Any, ...]) -> tuple[int, ...]:
    if len(size) == 1 and isinstance(size[0], (tuple, list, dtypes.Size)):
        size = tuple(size[0])
    for s in size:  # the usual case, plain ints, needs no conversion
        if type(s) is not int:
            return tuple(int(s) for s in size)
    return size


def _dt(dtype: Any, default: dtypes.dtype | None = None) -> dtypes.dtype:
    if dtype is not None:
        return dtypes.to_dtype(dtype)
    return default or dtypes.get_default_dtype()


def zeros(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
          out: Any = None, layout: Any = None) -> Tensor:
    d = _dt(dtype)
    return _finish(np.zeros(_size(size), d.np), d, device, requires_grad)


def ones(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
         out: Any = None, layout: Any = None) -> Tensor:
    d = _dt(dtype)
    return _finish(np.ones(_size(size), d.np), d, device, requires_grad)


def empty(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
          out: Any = None, layout: Any = None, memory_format: Any = None) -> Tensor:
    """Like ``zeros`` (the values of an empty tensor are unspecified; here they are 0)."""
    return zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)


def _fill_dtype(value: Any) -> dtypes.dtype:
    if isinstance(value, bool):
        return dtypes.bool_
    if isinstance(value, int):
        return dtypes.int64
    return dtypes.get_default_dtype()


def full(size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None,
         requires_grad: bool = False, out: Any = None, layout: Any = None) -> Tensor:
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    dtypes.refuse_complex(np.asarray(fill_value).dtype.kind, "full(): complex fill_value")
    d = _dt(dtype, _fill_dtype(fill_value))
    return _finish(np.full(_size((size,)), fill_value, d.np), d, device, requires_grad)


def _like(input: Tensor, dtype: Any, device: Any) -> tuple[tuple[Any, ...], dtypes.dtype, Any]:
    if device is None:  # (autograd hands raw arrays here too: theirs is CPU or cuda)
        device = input.device if isinstance(input, Tensor) else \
            "cuda" if is_device(input) else None
    dt = input.dtype
    return (tuple(input.shape), _dt(dtype, dt if isinstance(dt, dtypes.dtype) else
                                    dtypes.from_numpy_dtype(dt)), device)


def zeros_like(input: Tensor, *, dtype: Any = None, device: Any = None,
               requires_grad: bool = False, memory_format: Any = None) -> Tensor:
    shape, d, dev = _like(input, dtype, device)
    return zeros(shape, dtype=d, device=dev, requires_grad=requires_grad)


def ones_like(input: Tensor, *, dtype: Any = None, device: Any = None,
              requires_grad: bool = False, memory_format: Any = None) -> Tensor:
    shape, d, dev = _like(input, dtype, device)
    return ones(shape, dtype=d, device=dev, requires_grad=requires_grad)


def empty_like(input: Tensor, *, dtype: Any = None, device: Any = None,
               requires_grad: bool = False, memory_format: Any = None) -> Tensor:
    return zeros_like(input, dtype=dtype, device=device, requires_grad=requires_grad)


def full_like(input: Tensor, fill_value: Any, *, dtype: Any = None, device: Any = None,
              requires_grad: bool = False, memory_format: Any = None) -> Tensor:
    shape, d, dev = _like(input, dtype, device)
    return full(shape, fill_value, dtype=d, device=dev, requires_grad=requires_grad)


def arange(start: Any, end: Any = None, step: Any = 1, *, dtype: Any = None, device: Any = None,
           requires_grad: bool = False, out: Any = None, layout: Any = None) -> Tensor:
    """Values from ``start`` up to (not including) ``end`` in steps of ``step``."""
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = vals
    all_int = all(isinstance(v, int) for v in vals)
    d = _dt(dtype, dtypes.int64 if all_int else None)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    n = max(0, math.ceil((end - start) / step))
    data = start + np.arange(n, dtype=np.int64 if all_int else np.float64) * step
    return _finish(np.asarray(data), d, device, requires_grad)


def linspace(start: float, end: float, steps: int, *, dtype: Any = None, device: Any = None,
             requires_grad: bool = False, out: Any = None, layout: Any = None) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    d = _dt(dtype)
    n = int(steps)
    if n == 1:
        data = np.asarray([start], dtype=np.float64)
    else:
        step = (end - start) / (n - 1)
        i = np.arange(n)
        half = n // 2
        data = np.where(i < half, start + step * i, end - step * (n - 1 - i))
    return _finish(np.asarray(data), d, device, requires_grad)


def logspace(start: float, end: float, steps: int, base: float = 10.0, **kwargs: Any) -> Tensor:
    lin = linspace(start, end, steps, dtype=dtypes.float64, device="cpu")  # (placed below)
    d = _dt(kwargs.get("dtype"))
    return _finish(np.power(base, lin._array()), d, kwargs.get("device"),
                   kwargs.get("requires_grad", False))


def eye(n: int, m: int | None = None, *, dtype: Any = None, device: Any = None,
        requires_grad: bool = False, out: Any = None, layout: Any = None) -> Tensor:
    d = _dt(dtype)
    return _finish(np.eye(n, m, dtype=d.np), d, device, requires_grad)


def rand(*size: Any, generator: Any = None, dtype: Any = None, device: Any = None,
         requires_grad: bool = False, out: Any = None, layout: Any = None) -> Tensor:
    """Uniform random values in [0, 1) (PyTorch's sequence for the same seed)."""
    d = _dt(dtype)
    return _finish(rnd.uniform_data(_size(size), d, generator=generator), d, device,
                   requires_grad)


def randn(*size: Any, generator: Any = None, dtype: Any = None, device: Any = None,
          requires_grad: bool = False, out: Any = None, layout: Any = None) -> Tensor:
    """Standard normal random values (PyTorch's sequence for the same seed)."""
    d = _dt(dtype)
    return _finish(rnd.normal_data(_size(size), d, generator=generator), d, device,
                   requires_grad)


def rand_like(input: Tensor, *, dtype: Any = None, device: Any = None,
              requires_grad: bool = False, memory_format: Any = None) -> Tensor:
    shape, d, dev = _like(input, dtype, device)
    return rand(shape, dtype=d, device=dev, requires_grad=requires_grad)


def randn_like(input: Tensor, *, dtype: Any = None, device: Any = None,
               requires_grad: bool = False, memory_format: Any = None) -> Tensor:
    shape, d, dev = _like(input, dtype, device)
    return randn(shape, dtype=d, device=dev, requires_grad=requires_grad)


def randint(*args: Any, generator: Any = None, dtype: Any = None, device: Any = None,
            requires_grad: bool = False, size: Any = None, **kwargs: Any) -> Tensor:
    """``randint(high, size)`` or ``randint(low, high, size)``: integers in [low, high)."""
    args = args + ((size,) if size is not None else ())
    low, high, shape = (0, args[0], args[1]) if len(args) == 2 else args[:3]
    low = kwargs.get("low", low)
    high = kwargs.get("high", high)
    d = _dt(dtype, dtypes.int64)
    data = rnd.randint_data(int(low), int(high), _size((shape,)), generator)
    return _finish(data, d, device, requires_grad)


def randperm(n: int, *, generator: Any = None, dtype: Any = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:
    """A random permutation of ``0..n-1``."""
    return _finish(rnd.randperm_data(int(n), generator), _dt(dtype, dtypes.int64), device,
                   requires_grad)


def bernoulli(input: Tensor, p: float | None = None, *, generator: Any = None) -> Tensor:
    """1 where a uniform draw falls below the probability in ``input``, else 0."""
    u = rnd.uniform_data(tuple(input.shape), dtypes.float64, generator=generator)
    if is_device(input._data):  # the draws go to the device; the probabilities stay there
        return plain((to_device(u) < (input._data if p is None else p)).astype(
            input._data.dtype))
    probs = input._host() if p is None else np.full(tuple(input.shape), p)
    return plain((u < probs).astype(input._data.dtype)[()] if input.ndim == 0 else
                 (u < probs).astype(input._data.dtype))


def normal(mean: Any, std: Any = 1.0, size: Any = None, *, generator: Any = None,
           **kwargs: Any) -> Tensor:
    if isinstance(mean, Tensor):
        shape = tuple(mean.shape)
        z = rnd.normal_data(shape, mean.dtype, generator=generator)
        s = std._data if isinstance(std, Tensor) else std
        if is_device(mean._data):  # the draws go to the device
            return plain((to_device(z) * s + mean._data).astype(mean._data.dtype))
        return plain(np.asarray(z * s + mean._data).astype(mean._data.dtype))
    d = _dt(kwargs.get("dtype"))
    z = rnd.normal_data(_size((size,)), d, mean, std, generator)
    return _finish(z, d, kwargs.get("device"), kwargs.get("requires_grad", False))


# --- the legacy constructors: torch.Tensor(...), torch.FloatTensor(...) ---------------------

def legacy_new(dtype: dtypes.dtype, args: tuple[Any, ...], kwargs: dict[Any, Any],
               cls: type = Tensor) -> Tensor:
    """``Tensor(data)`` copies data; ``Tensor(2, 3)`` makes an (zero-filled) 2x3 tensor."""
    device = kwargs.get("device")
    if not args:
        t = _finish(np.zeros((0,), dtype.np), dtype, device, False)
    elif all(isinstance(a, int) and not isinstance(a, bool) for a in args) or isinstance(
            args[0], dtypes.Size):
        t = _finish(np.zeros(_size(args), dtype.np), dtype, device, False)
    else:
        t = _finish(_infer(args[0], dtype.np), dtype, device, False)
    if cls is not Tensor:
        result: Tensor = Tensor._make_subclass(cls, t)
        return result
    return t


class _LegacyType(type):
    """``isinstance(t, FloatTensor)`` is true for float32 tensors, as in PyTorch."""

    _dtype: dtypes.dtype  # set on each class made with this metaclass

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and obj.dtype is cls._dtype

    def __call__(cls, *args: Any, **kwargs: Any) -> Tensor:
        return legacy_new(cls._dtype, args, kwargs)

    def __repr__(cls) -> str:
        return f"<class 'torch.{cls.__name__}'>"


def _legacy(name: str, dtype: dtypes.dtype) -> type:
    return _LegacyType(name, (), {"_dtype": dtype, "__doc__": f"A {dtype} tensor constructor."})


HalfTensor = _legacy("HalfTensor", dtypes.float16)
FloatTensor = _legacy("FloatTensor", dtypes.float32)
DoubleTensor = _legacy("DoubleTensor", dtypes.float64)
ByteTensor = _legacy("ByteTensor", dtypes.uint8)
CharTensor = _legacy("CharTensor", dtypes.int8)
ShortTensor = _legacy("ShortTensor", dtypes.int16)
IntTensor = _legacy("IntTensor", dtypes.int32)
LongTensor = _legacy("LongTensor", dtypes.int64)
BoolTensor = _legacy("BoolTensor", dtypes.bool_)
