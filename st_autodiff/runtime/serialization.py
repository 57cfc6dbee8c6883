"""``torch.save`` / ``torch.load`` in PyTorch's own zip format, so checkpoints cross over.

An archive holds, under one folder (the file name's stem, or ``archive`` for a file
object), these stored (uncompressed) records in this order: ``data.pkl`` (the pickled
object, see ``serialization_pickle``), ``.format_version`` (``1``), ``.storage_alignment``
(``64``), ``byteorder`` (``little``), ``data/0``, ``data/1``, ... (each storage's raw
little-endian bytes, starting on a 64-byte boundary of the file), ``version`` (``3``) and
``.data/serialization_id``.  Loading finds the folder from the ``data.pkl`` record, so any
folder name works, and gives every storage one NumPy buffer, so tensors that shared a
storage when saved share memory when loaded.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import zipfile
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from . import dtypes
from .serialization_pickle import SAFE_GLOBALS, Unpickler, Writer
from .tensor import Tensor, plain

__all__ = ["add_safe_globals", "clear_safe_globals", "get_safe_globals", "load",
           "safe_globals", "save"]

_ALIGN = 64
_NO_CUDA = ("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() "
            "is False. If you are running on a CPU-only machine, please use torch.load with "
            "map_location=torch.device('cpu') to map your storages to the CPU.")
_PAD_ID = b"FB"


def _hash_combine(seed: int, value: int) -> int:
    """Boost-style ``hash_combine`` on 64 bits (how PyTorch folds its records' CRCs)."""
    mask = (1 << 64) - 1
    return (seed ^ ((value + 0x9E3779B9 + ((seed << 6) & mask) + (seed >> 2)) & mask)) & mask


def _archive_name(f: Any) -> str:
    if isinstance(f, (str, os.PathLike)):
        stem = os.path.splitext(os.path.basename(os.fspath(f)))[0]
        return stem or "archive"
    return "archive"


class _ArchiveWriter:
    """Stored zip records whose data starts on a 64-byte boundary (as PyTorch aligns)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.buffer = io.BytesIO()
        self.zip = zipfile.ZipFile(self.buffer, "w", zipfile.ZIP_STORED)
        self._crcs = 0  # PyTorch's combined CRC-32 of the records (its id's second half)
        self._sizes = 0  # our first half: the record sizes combined the same way

    def add(self, name: str, data: bytes) -> None:
        info = zipfile.ZipInfo(f"{self.prefix}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_STORED
        head = self.buffer.tell() + 30 + len(info.filename.encode())
        pad = -(head + 4) % _ALIGN
        info.extra = _PAD_ID + pad.to_bytes(2, "little") + b"Z" * pad
        self.zip.writestr(info, data)
        self._crcs = _hash_combine(self._crcs, zlib.crc32(data))
        self._sizes = _hash_combine(self._sizes, len(data))

    def finish(self) -> bytes:
        """Close the archive with its ``.data/serialization_id`` (40 digits, deterministic)."""
        ident = f"{self._sizes:020d}{self._crcs:020d}"
        self.add(".data/serialization_id", ident.encode())
        self.zip.close()
        return self.buffer.getvalue()


def save(obj: Any, f: Any, pickle_module: Any = None, pickle_protocol: int = 2,
         _use_new_zipfile_serialization: bool = True,
         _disable_byteorder_record: bool = False) -> None:
    """Write ``obj`` (tensors, containers of them, state dicts, numbers, strings) to ``f``,
    a path or a writable binary file, in PyTorch's checkpoint format.

    >>> import io, st_autodiff as torch
    >>> buf = io.BytesIO()
    >>> torch.save({"w": torch.ones(2)}, buf)
    >>> torch.load(io.BytesIO(buf.getvalue()))
    {'w': tensor([1., 1.])}
    """
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("only the zip checkpoint format is written")
    pkl = io.BytesIO()
    writer = Writer(pkl, pickle_protocol)
    writer.dump(obj)
    archive = _ArchiveWriter(_archive_name(f))
    archive.add("data.pkl", pkl.getvalue())
    archive.add(".format_version", b"1")
    archive.add(".storage_alignment", str(_ALIGN).encode())
    if not _disable_byteorder_record:
        archive.add("byteorder", b"little")
    for ref in writer.storages:
        archive.add(f"data/{ref.key}", ref.flat.astype(ref.flat.dtype.newbyteorder("<"),
                                                       copy=False).tobytes())
    archive.add("version", b"3\n")
    blob = archive.finish()
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as out:
            out.write(blob)
    else:
        f.write(blob)


def _open_zip(f: Any) -> zipfile.ZipFile:
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as src:
            raw = src.read()
    else:
        raw = f.read()
    if not zipfile.is_zipfile(io.BytesIO(raw)):
        if raw[:2] == b"\x80\x02" or raw[:1] == b"\x80":
            raise RuntimeError("checkpoints in PyTorch's legacy (pre-1.6, non-zip) format "
                               "are not supported; re-save with a recent torch.save")
        raise pickle.UnpicklingError(f"invalid load key, {raw[:1].decode('latin1')!r}.")
    return zipfile.ZipFile(io.BytesIO(raw))


def _prefix(z: zipfile.ZipFile) -> str:
    for name in z.namelist():
        folder, _, rest = name.partition("/")
        if rest == "data.pkl":
            return folder
    raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found")


def _placer(map_location: Any) -> Callable[[Tensor, str], Tensor]:
    """A function putting a loaded storage (as a flat tensor) where ``map_location`` says."""

    def move(t: Tensor, where: Any) -> Tensor:
        dev = dtypes.device(where)
        if dev.type == "cpu":
            return t
        from . import cuda

        if not cuda.is_available():
            raise RuntimeError(_NO_CUDA)
        if (dev.index or 0) >= cuda.device_count():
            raise RuntimeError(f"Attempting to deserialize object on CUDA device {dev.index} "
                               f"but torch.cuda.device_count() is {cuda.device_count()}. "
                               f"Please use torch.load with map_location to map your "
                               f"storages to an existing device.")
        return t.to(dev)

    if map_location is None:
        return lambda t, loc: move(t, loc) if loc.startswith("cuda") else t
    if callable(map_location):
        def call(t: Tensor, loc: str) -> Tensor:
            out = map_location(t, loc)
            return t if out is None else out

        return call
    if isinstance(map_location, dict):
        return lambda t, loc: move(t, map_location.get(loc, loc))
    return lambda t, loc: move(t, map_location)


def load(f: Any, map_location: Any = None, pickle_module: Any = None, *,
         weights_only: bool | None = None, mmap: bool | None = None,
         **pickle_load_args: Any) -> Any:
    """Read an object written by ``save`` or by PyTorch's ``torch.save``.

    ``weights_only`` (default true, as in PyTorch 2.6+) refuses any global but tensors,
    parameters, storages, dtypes, sizes, devices and plain containers; ``map_location``
    is a device, a device name, a ``{saved: wanted}`` dict or ``fn(storage, location)``.
    """
    weights_only = True if weights_only is None else weights_only
    z = _open_zip(f)
    prefix = _prefix(z)
    names = set(z.namelist())
    order = z.read(f"{prefix}/byteorder").decode() if f"{prefix}/byteorder" in names else "little"
    place = _placer(map_location)
    storages: dict[str, Any] = {}

    def load_storage(np_dtype: np.dtype[Any], key: str, location: str, numel: int) -> Any:
        if key not in storages:
            raw = bytearray(z.read(f"{prefix}/data/{key}"))
            kind = np_dtype.newbyteorder("<" if order == "little" else ">")
            flat = np.frombuffer(raw, dtype=kind, count=numel).astype(np_dtype, copy=False)
            storages[key] = place(plain(flat), location)._data
        return storages[key]

    with z.open(f"{prefix}/data.pkl") as pkl:
        return Unpickler(pkl, load_storage, weights_only).load()


def add_safe_globals(safe_globals: list[Any]) -> None:
    """Let ``load(weights_only=True)`` build these classes or call these functions (an
    entry may also be ``(obj, "module.name")``)."""
    SAFE_GLOBALS.extend(safe_globals)


def get_safe_globals() -> list[Any]:
    return list(SAFE_GLOBALS)


def clear_safe_globals() -> None:
    SAFE_GLOBALS.clear()


@contextlib.contextmanager
def safe_globals(safe_globals: list[Any]) -> Iterator[None]:
    """``add_safe_globals`` for the duration of a ``with`` block."""
    before = list(SAFE_GLOBALS)
    SAFE_GLOBALS.extend(safe_globals)
    try:
        yield
    finally:
        SAFE_GLOBALS[:] = before
