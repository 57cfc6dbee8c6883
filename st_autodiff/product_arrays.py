"""The arrays that the derivative products (``products.py``) make and read themselves:
basis vectors, stacked Jacobian blocks, shapes and sizes, and the backend their
``backend=``/``device=`` choose.

Every helper reads an array's type, ``.shape`` and ``.dtype`` only, never its data: a
Dask graph is not computed and a device array is not copied to the host.  A new array
(a basis vector, an empty Jacobian block) is made in the library of the arrays it stands
beside, or in the chosen backend's when those are Python numbers: never made in NumPy
and converted.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .errors import StAutodiffError
from .ir.kernels import array_namespace
from .ir.namespaces import bound_namespace, describe_dtype_name, namespace_of
from .runtime.backend import choose_backend, namespace_for


def chosen_backend(backend: Any, device: Any) -> Any:
    """The namespace ``backend=``/``device=`` of a product name (None: the arguments'),
    with ``st.grad``'s errors (an unknown backend or device, the two disagreeing)."""
    try:
        return choose_backend(backend, device)
    except StAutodiffError as exc:
        raise exc.with_traceback(None) from None


def namespace_beside(values: tuple[Any, ...], chosen: Any) -> Any:
    """The ``xp`` to make a new array in beside ``values``: their library (a Dask array
    wins over NumPy ones, as in generated code), the chosen backend's where none is an
    array, else NumPy."""
    xp = array_namespace(*values)
    if xp is np and chosen is not None and all(namespace_of(v) is None for v in values):
        return bound_namespace(chosen)
    return xp


def shape_of(x: Any) -> tuple[Any, ...]:
    """``x.shape`` as a tuple (``()`` for a Python number), read from the type."""
    shape = getattr(x, "shape", None)
    return tuple(shape) if shape is not None else tuple(np.shape(x))


def size_of(x: Any, what: str = "an array") -> int:
    """How many elements ``x`` has, from its shape; a shape that is unknown until the
    data is computed (Dask after a boolean mask: ``nan``) is a clear error."""
    shape = shape_of(x)
    if not all(isinstance(d, (int, np.integer)) for d in shape):
        raise ValueError(f"{what} has shape {shape}: its size depends on its data and is "
                         "not known before it is computed, but a Jacobian needs one row or "
                         "column per element (Dask: call .compute_chunk_sizes() first)")
    return math.prod(int(d) for d in shape)


def float_dtype(xp: Any, x: Any) -> Any:
    """``x``'s dtype if floating point, else float32 promoted as NumPy does (float64
    but for bool/int8/int16/uint8/uint16, whose float32 suffices), as ``xp``'s dtype."""
    name = describe_dtype_name(getattr(x, "dtype", "float64"))
    return getattr(xp, np.result_type(np.dtype(name), np.float32).name)


def is_complex(x: Any) -> bool:
    """Whether ``x`` is complex, from its dtype (no data read)."""
    dt = getattr(x, "dtype", None)
    if dt is None:
        return isinstance(x, complex)
    return bool(np.dtype(describe_dtype_name(dt)).kind == "c")


def basis(like: Any, k: int, chosen: Any = None) -> Any:
    """The ``k``-th basis array shaped like ``like`` (a one at flat position ``k``),
    floating point, in ``like``'s library (the chosen backend's for a Python number)."""
    ns = namespace_of(like)
    if ns is np or ns is None and chosen is None:  # (NumPy, the common case: fast)
        e = np.zeros(shape_of(like), dtype=np.result_type(np.asarray(like).dtype, np.float32))
        e.flat[k] = 1.0
        return e
    xp = array_namespace(like) if ns is not None else bound_namespace(chosen)
    hot = xp.reshape(xp.arange(size_of(like)) == k, shape_of(like))
    return xp.astype(hot, float_dtype(xp, like))


def assemble(parts: list[Any], out_shape: tuple[int, ...], x: Any, axis: int,
             chosen: Any = None) -> Any:
    """One Jacobian block ``d out / d x`` of shape ``out_shape + x.shape`` from its rows
    (``axis=0``, reverse mode) or columns (``axis=-1``, forward mode), stacked in their
    library; ``None`` for an ``x`` that is not floating point."""
    from .api import _is_float  # noqa: PLC0415  (api imports products, which imports this)

    if not _is_float(x):
        return None
    xp = namespace_beside((x, *parts), chosen)
    if not parts:
        return xp.zeros(out_shape + shape_of(x), dtype=float_dtype(xp, x))
    stacked = xp.stack([xp.asarray(r) for r in parts], axis=axis)
    return xp.reshape(stacked, out_shape + shape_of(x))


_HOST = frozenset({np.ndarray, np.float64, np.float32, float, int, bool, type(None)})


def check_cotangent(outs: list[Any], cts: list[Any], paths: list[str]) -> None:
    """``BackendError`` (``st.grad``'s message, naming the parts) when a cotangent is an
    array of another library than the output it seeds: never converted."""
    if all(type(v) in _HOST for v in outs) and all(type(v) in _HOST for v in cts):
        return  # (NumPy arrays and Python numbers: one library, the common case)
    names = [f"the output{p}" for p in paths] + [f"the cotangent{p}" for p in paths]
    try:
        namespace_for(*outs, *cts, names=names)
    except StAutodiffError as exc:
        raise exc.with_traceback(None) from None
