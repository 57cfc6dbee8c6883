"""The pickle half of ``torch.save``/``torch.load``: PyTorch's globals written and read.

PyTorch's ``data.pkl`` (pickle protocol 2) names ``torch._utils._rebuild_tensor_v2``,
``torch._utils._rebuild_parameter``, storage types such as ``torch.FloatStorage``,
``torch.Size``, ``torch.device`` and the dtypes.  Each storage is a persistent id
``('storage', <storage type>, key, location, numel)`` whose bytes live in the archive at
``data/<key>``.

Writing uses Python's pure pickler with a dispatch entry that emits a ``GLOBAL`` opcode for
a PyTorch name (a ``TorchName``), so no ``torch`` module is needed to name PyTorch's
functions.  Reading maps those names back to this runtime's functions; with
``weights_only=True`` (PyTorch's default) nothing else may be named but plain containers.
"""

from __future__ import annotations

import collections
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np

from . import dtypes
from .device import xp_of
from .tensor import Tensor, plain

__all__ = ["SAFE_GLOBALS", "STORAGE_DTYPES", "TorchName", "Unpickler", "Writer",
           "rebuild_tensor"]

# storage type name <-> dtype, as PyTorch names the typed storages
STORAGE_DTYPES: dict[str, np.dtype[Any]] = {
    "FloatStorage": np.dtype(np.float32), "DoubleStorage": np.dtype(np.float64),
    "HalfStorage": np.dtype(np.float16), "LongStorage": np.dtype(np.int64),
    "IntStorage": np.dtype(np.int32), "ShortStorage": np.dtype(np.int16),
    "CharStorage": np.dtype(np.int8), "ByteStorage": np.dtype(np.uint8),
    "BoolStorage": np.dtype(np.bool_), "ComplexFloatStorage": np.dtype(np.complex64),
    "ComplexDoubleStorage": np.dtype(np.complex128), "UntypedStorage": np.dtype(np.uint8),
}
_STORAGE_OF = {dt: name for name, dt in STORAGE_DTYPES.items() if name != "UntypedStorage"}


class TorchName:
    """A PyTorch global (``module.name``) to be written as a ``GLOBAL`` opcode."""

    _made: dict[tuple[str, str], TorchName] = {}

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    @classmethod
    def of(cls, module: str, name: str) -> TorchName:
        """One object per name, so the pickle memo writes a repeated name once."""
        key = (module, name)
        if key not in cls._made:
            cls._made[key] = cls(module, name)
        return cls._made[key]

    def __call__(self, *args: Any) -> Any:  # pickle wants reduce functions callable
        raise TypeError(f"{self.module}.{self.name} stands for a PyTorch name; it is not run")


def _save_torch_name(pickler: Any, obj: Any) -> None:
    """Write ``GLOBAL module name`` for a ``TorchName`` or a dtype (``torch.float32``)."""
    module, name = (obj.module, obj.name) if type(obj) is TorchName else ("torch", obj.name)
    pickler.write(pickle.GLOBAL + f"{module}\n{name}\n".encode())
    pickler.memoize(obj)


class StorageRef:
    """One storage to be written: a flat C-ordered host array, its archive key and the
    device it came from (``cpu`` or ``cuda:N``)."""

    def __init__(self, key: str, flat: np.ndarray[Any, Any], location: str = "cpu") -> None:
        self.key = key
        self.flat = flat
        self.location = location


class _Bare:
    """A parameter's data as a plain tensor (what PyTorch pickles inside a parameter)."""

    def __init__(self, tensor: Tensor) -> None:
        self.tensor = tensor


def _contiguous_strides(shape: tuple[Any, ...]) -> tuple[Any, ...]:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


class Writer(pickle._Pickler):
    """A protocol-2 pickler that writes tensors the way ``torch.save`` does.

    Tensors viewing one NumPy buffer (a view saved with its base) share one storage.
    ``storages`` lists them in key order once ``dump`` returns.
    """

    dispatch = pickle._Pickler.dispatch.copy()
    dispatch[TorchName] = _save_torch_name
    dispatch[dtypes.dtype] = _save_torch_name

    def __init__(self, file: Any, protocol: int = 2) -> None:
        super().__init__(file, protocol=protocol)
        self.storages: list[StorageRef] = []
        self._by_root: dict[tuple[int, str], tuple[StorageRef, np.ndarray[Any, Any]]] = {}

    def persistent_id(self, obj: Any) -> Any:
        if type(obj) is StorageRef:
            kind = _STORAGE_OF.get(obj.flat.dtype)
            if kind is None:
                raise pickle.PicklingError(f"cannot save a tensor of dtype {obj.flat.dtype}")
            return ("storage", TorchName.of("torch", kind), obj.key, obj.location,
                    int(obj.flat.size))
        return None

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, Tensor):
            from .nn.parameter import Parameter

            if isinstance(obj, Parameter):
                return (TorchName.of("torch._utils", "_rebuild_parameter"),
                        (_Bare(obj), obj.requires_grad, collections.OrderedDict()))
            return self._tensor(obj, obj.requires_grad)
        if type(obj) is _Bare:
            return self._tensor(obj.tensor, False)
        if isinstance(obj, dtypes.device):
            return (TorchName.of("torch", "device"), (str(obj),))
        if isinstance(obj, dtypes.Size):
            return (TorchName.of("torch", "Size"), (tuple(obj),))
        return NotImplemented

    def _tensor(self, t: Tensor, requires_grad: bool) -> tuple[Any, ...]:
        ref, offset, stride = self._storage_of(t._host())
        if t.is_cuda:  # a host copy: its own storage, recorded where it lives
            ref.location = str(t.device)
        args: tuple[Any, ...] = (ref, offset, tuple(t.shape), stride, requires_grad,
                       collections.OrderedDict())
        return (TorchName.of("torch._utils", "_rebuild_tensor_v2"), args)

    def _storage_of(self, a: np.ndarray[Any, Any]) -> tuple[StorageRef, int, tuple[Any, ...]]:
        """The storage holding ``a``, ``a``'s offset in it and its strides (in elements)."""
        root = a
        while isinstance(root.base, np.ndarray):
            root = root.base
        item = a.dtype.itemsize
        shift = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
        shares = (root.dtype == a.dtype and root.flags.c_contiguous and a.size > 0
                  and shift % item == 0 and all(s >= 0 and s % item == 0 for s in a.strides))
        if not shares:
            flat = np.ascontiguousarray(a).reshape(-1)
            ref = StorageRef(str(len(self.storages)), flat)
            self.storages.append(ref)
            return ref, 0, _contiguous_strides(a.shape)
        key = (id(root), a.dtype.str)
        found = self._by_root.get(key)
        if found is None:
            ref = StorageRef(str(len(self.storages)), root.reshape(-1))
            self.storages.append(ref)
            self._by_root[key] = found = (ref, root)  # keeps ``root`` alive: ids stay unique
        return found[0], shift // item, tuple(s // item for s in a.strides)


# --- reading -----------------------------------------------------------------------------


def rebuild_tensor(storage: np.ndarray[Any, Any], offset: int, size: tuple[Any, ...],
                   stride: tuple[Any, ...],
                   requires_grad: bool, backward_hooks: Any = None, metadata: Any = None
                   ) -> Tensor:
    """``torch._utils._rebuild_tensor_v2``: a tensor viewing ``storage`` (no copy)."""
    xp = xp_of(storage)  # NumPy, or the device library for storages mapped to a GPU
    item = storage.dtype.itemsize
    size = tuple(int(n) for n in size)
    strides = tuple(int(s) * item for s in stride)
    if 0 in size or storage.size == 0:
        data = xp.zeros(size, storage.dtype)
    elif xp is np:  # a view whose ``base`` is the storage: saving it again shares it again
        data = np.ndarray(size, storage.dtype, buffer=storage, offset=int(offset) * item,
                          strides=strides)
    else:
        data = xp.lib.stride_tricks.as_strided(storage[int(offset):], size, strides)
    t = plain(data)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_parameter(data: Tensor, requires_grad: bool, backward_hooks: Any = None) -> Any:
    from .nn.parameter import Parameter

    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data: Tensor, requires_grad: bool, backward_hooks: Any,
                                  state: Any) -> Any:
    p = _rebuild_parameter(data, requires_grad)
    _set_state(p, state)
    return p


def _set_state(obj: Any, state: Any) -> None:
    if isinstance(state, tuple):  # (dict state, slots state)
        state = {**(state[0] or {}), **(state[1] or {})}
    for k, v in (state or {}).items():
        setattr(obj, k, v)


def _rebuild_from_type_v2(func: Callable[..., Any], new_type: Any, args: tuple[Any, ...],
                          state: Any) -> Any:
    out = func(*args)
    if isinstance(new_type, type) and not isinstance(out, new_type):
        out = new_type(out) if issubclass(new_type, Tensor) else out
    _set_state(out, state)
    return out


class _StorageType:
    """What ``torch.FloatStorage`` and its kin unpickle to: the dtype they stand for."""

    def __init__(self, np_dtype: np.dtype[Any] | None) -> None:
        self.np_dtype = np_dtype  # None: a PyTorch dtype this runtime lacks (bfloat16)


def _torch_globals() -> dict[tuple[str, str], Any]:
    """PyTorch's names that a weights-only checkpoint may use, mapped to ours."""
    from .nn.parameter import Parameter

    table: dict[tuple[str, str], Any] = {
        ("collections", "OrderedDict"): collections.OrderedDict,
        ("torch._utils", "_rebuild_tensor_v2"): rebuild_tensor,
        ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
        ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter_with_state,
        ("torch._tensor", "_rebuild_from_type_v2"): _rebuild_from_type_v2,
        ("torch", "Size"): dtypes.Size,
        ("torch", "device"): dtypes.device,
        ("torch", "Tensor"): Tensor,
        ("torch.nn.parameter", "Parameter"): Parameter,
        ("_codecs", "encode"): _latin1_encode,
        ("builtins", "set"): set, ("builtins", "frozenset"): frozenset,
        ("builtins", "complex"): complex, ("builtins", "slice"): slice,
        ("builtins", "bytearray"): bytearray,
    }
    for name, dt in STORAGE_DTYPES.items():
        table[("torch", name)] = _StorageType(dt)
    table[("torch", "BFloat16Storage")] = _StorageType(None)  # so loading says what fails
    for name in ("float16", "float32", "float64", "uint8", "int8", "int16", "int32", "int64",
                 "bool", "half", "float", "double", "long", "int", "short"):
        table[("torch", name)] = getattr(dtypes, {"bool": "bool_", "float": "float32",
                                                  "int": "int32"}.get(name, name))
    return table


def _latin1_encode(text: str, encoding: str = "latin1") -> bytes:
    """``_codecs.encode`` as protocol 2 uses it for ``bytes``."""
    return text.encode(encoding)


_UNSAFE = (
    "Weights only load failed. This file can still be loaded, to do so you have two options, "
    "\x1b[1mdo those steps only if you trust the source of the checkpoint\x1b[0m. \n\t(1) In "
    "PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will "
    "likely succeed, but it can result in arbitrary code execution. Do it only if you got the "
    "file from a trusted source.\n\t(2) Alternatively, to load with `weights_only=True` "
    "please check the recommended steps in the following error message.\n\tWeightsUnpickler "
    "error: Unsupported global: GLOBAL {0} was not an allowed global by default. Please use "
    "`torch.serialization.add_safe_globals([{0}])` or the "
    "`torch.serialization.safe_globals([{0}])` context manager to allowlist this global if "
    "you trust this class/function.\n\nCheck the documentation of torch.load to learn more "
    "about types accepted by default with weights_only "
    "https://pytorch.org/docs/stable/generated/torch.load.html.")

SAFE_GLOBALS: list[Any] = []  # what ``add_safe_globals`` allowed (objects or (obj, name))


def _safe_lookup(module: str, name: str) -> Any:
    for entry in SAFE_GLOBALS:
        obj, full = entry if isinstance(entry, tuple) else (
            entry, f"{entry.__module__}.{entry.__qualname__}")
        if full == f"{module}.{name}":
            return obj
    return None


class Unpickler(pickle.Unpickler):
    """Reads ``data.pkl``: PyTorch's names become ours; ``load_storage(type, key, location,
    numel)`` supplies each storage as a flat array."""

    def __init__(self, file: Any, load_storage: Callable[..., Any], weights_only: bool) -> None:
        super().__init__(file, encoding="utf-8")
        self._load_storage = load_storage
        self._weights_only = weights_only
        self._table = _torch_globals()

    def find_class(self, module: str, name: str) -> Any:
        found = self._table.get((module, name))
        if found is None:
            found = _safe_lookup(module, name)
        if found is not None:
            return found
        if self._weights_only or module == "torch" or module.startswith("torch."):
            raise pickle.UnpicklingError(_UNSAFE.format(f"{module}.{name}"))
        return super().find_class(module, name)

    def persistent_load(self, pid: Any) -> Any:
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")
        _, kind, key, location, numel = pid
        if not isinstance(kind, _StorageType):
            raise pickle.UnpicklingError(f"unknown storage type in persistent id {pid!r}")
        if kind.np_dtype is None:
            raise TypeError("cannot load a bfloat16 tensor: st_autodiff has no bfloat16 dtype "
                            "(convert it with .float() before torch.save)")
        return self._load_storage(kind.np_dtype, str(key), str(location), int(numel))
