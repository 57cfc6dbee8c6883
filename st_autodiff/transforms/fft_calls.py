"""The calls of ``numpy.fft`` and ``scipy.fft`` transforms, as ops on pairs of real arrays
(see ``complex_pairs``).

Arguments are bound with the library's own signature; ``n``/``s``, ``axis``/``axes`` and
``norm`` must be known when compiling, and are resolved as NumPy resolves them
(``_cook_nd_args``: ``s`` defaults to the input's sizes, ``axes`` to the last ``len(s)``
axes, ``-1`` in ``s`` keeps a size, ``irfft``'s length defaults to ``2 * (m - 1)``).  The
input is then fitted to those sizes with ``getitem`` (truncation) and ``pad`` (zeros), so
the transform ops see sizes that are already right.  ``hfft`` is ``irfft`` of the
conjugate with the swapped norm and ``ihfft`` the conjugate of ``rfft`` with the swapped
norm, as NumPy defines them.  SciPy's ``overwrite_x`` and ``workers`` change nothing
(the input is never overwritten); ``out=`` and ``plan=`` are refused.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

import libcst as cst
import numpy as np

from ..errors import CompileError
from ..ir.graph import Node
from ..ir.kernels_fft import cook_1d, cook_nd, fit_plan
from ..ir.ops import Op
from . import static_numpy
from .complex_pairs import Pair, conj, constant, refuse
from .static_queries import known_shape

if TYPE_CHECKING:
    from .lower import Lowerer

_NAMES = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2",
          "irfft2", "fftn", "ifftn", "rfftn", "irfftn", "fftshift", "ifftshift")
_KINDS: dict[int, tuple[str, str, Any]] | None = None
_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _table() -> dict[int, tuple[str, str, Any]]:
    global _KINDS
    if _KINDS is None:
        table = {id(getattr(np.fft, n)): (n, "numpy", getattr(np.fft, n)) for n in _NAMES}
        sfft: Any
        try:
            import scipy.fft as sfft  # noqa: PLC0415
        except ImportError:  # pragma: no cover
            sfft = None
        if sfft is not None:
            table.update({id(getattr(sfft, n)): (n, "scipy", getattr(sfft, n))
                          for n in _NAMES})
        _KINDS = table
    return _KINDS


def kind_of(fn: Any) -> tuple[str, str, Any] | None:
    """``(name, library, function)`` when ``fn`` is one of the transforms, else None."""
    got = _table().get(id(fn))
    return got if got is not None and got[2] is fn else None


def _has_dynamic(v: Any) -> bool:
    if isinstance(v, (Node, Pair)):
        return True
    return isinstance(v, (list, tuple)) and any(_has_dynamic(x) for x in v)


def transform(lw: Lowerer, kind: tuple[str, str, Any], args: list[Any],
              kwargs: dict[str, Any], e: cst.Call) -> Any:
    """``np.fft.<name>(...)`` (or ``scipy.fft``'s): a pair, or a real array."""
    name, lib, fn = kind
    what = f"{'np' if lib == 'numpy' else 'scipy'}.fft.{name}"
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except TypeError as exc:
        raise lw.fail(f"{what}: {exc}", e, kind=CompileError) from None
    bound.apply_defaults()
    a = dict(bound.arguments)
    x = a.pop("a" if "a" in a else "x")
    if not _has_dynamic(x) and not any(_has_dynamic(v) for v in a.values()):
        try:  # of constants: a constant
            value = fn(*static_numpy.unwrap(args), **static_numpy.unwrap(kwargs))
        except (ValueError, TypeError, IndexError) as exc:
            raise lw.fail(f"{what}: {exc}", e, kind=CompileError) from None
        return constant(lw, value, e) if np.iscomplexobj(value) else value
    for key in ("out", "plan"):
        if a.get(key) is not None:
            raise lw.fail(f"{what}({key}=...) is not supported", e, kind=CompileError)
    for key in ("overwrite_x", "workers"):  # no effect on values here
        lw.static(a.pop(key, None), key, e)
    if not isinstance(x, (Node, Pair)):
        x = constant(lw, x, e) if np.iscomplexobj(x) else lw.to_node(x, e)
    shape = known_shape(x.re if isinstance(x, Pair) else x)
    if shape is None:
        raise lw.fail(f"{what} needs the shape of its input; call with example arguments "
                      "first", e, kind=CompileError)
    if name in ("fftshift", "ifftshift"):
        return _shift(lw, name, x, lw.static(a["axes"], "axes", e), shape, e)
    norm = lw.static(a["norm"], "norm", e)
    if norm not in (None, "backward", "ortho", "forward"):
        raise lw.fail(f'{what}: Invalid norm value {norm}; should be "backward", "ortho" '
                      'or "forward".', e, kind=CompileError)
    norm = norm or "backward"
    try:
        if "n" in a:
            axes, sizes = cook_1d(name, shape, lw.static(a["n"], "n", e),
                                   lw.static(a["axis"], "axis", e))
        else:
            axes, sizes = cook_nd(name, shape, lw.static(a["s"], "s", e),
                                   lw.static(a["axes"], "axes", e))
    except (ValueError, TypeError, np.exceptions.AxisError) as exc:
        raise lw.fail(f"{what}: {exc}", e, kind=CompileError) from None
    base = name.rstrip("n2")
    if base in ("rfft", "ihfft"):
        if isinstance(x, Pair):
            raise refuse(lw, f"{what}()", e)
        nrm = _SWAP[norm] if base == "ihfft" else norm
        node = lw.emit(Op.FFT_R2C, [_fit(lw, x, axes, sizes, e)],
                       {"axes": axes, "norm": nrm, "lib": lib}, e)
        out = Pair(*(lw.emit(Op.ITEM, [node], {"index": i}, e) for i in (0, 1)))
        return conj(lw, out, e) if base == "ihfft" else out
    z = x if isinstance(x, Pair) else Pair(x, 0.0)
    if base in ("irfft", "hfft"):
        if base == "hfft":
            z, norm = (conj(lw, z, e) if isinstance(x, Pair) else z), _SWAP[norm]
        fitted = (*sizes[:-1], sizes[-1] // 2 + 1)
        return lw.emit(Op.FFT_C2R, [_fit(lw, p, axes, fitted, e) for p in (z.re, z.im)],
                       {"axes": axes, "norm": norm, "lib": lib, "n": sizes[-1]}, e)
    node = lw.emit(Op.FFT_C2C, [_fit(lw, p, axes, sizes, e) for p in (z.re, z.im)],
                   {"axes": axes, "norm": norm, "lib": lib, "inverse": base == "ifft"}, e)
    return Pair(*(lw.emit(Op.ITEM, [node], {"index": i}, e) for i in (0, 1)))


def _fit(lw: Lowerer, x: Any, axes: tuple[int, ...], sizes: tuple[int, ...],
         e: cst.CSTNode) -> Any:
    """``x`` truncated or padded with zeros to ``sizes`` along ``axes``."""
    if not isinstance(x, Node):
        return x  # the number 0.0: a real input's imaginary part
    shape = known_shape(x)
    assert shape is not None  # (checked before the transform)
    cut, pad = fit_plan(shape, axes, sizes)
    if cut is not None:
        x = lw.emit(Op.GETITEM, [x], {"index": cut}, e)
    if pad is not None:
        x = lw.emit(Op.PAD, [x], {"pad_width": pad, "constant_values": 0}, e)
    return x


def _shift(lw: Lowerer, name: str, x: Any, axes: Any, shape: tuple[int, ...],
           e: cst.Call) -> Any:
    """``fftshift``/``ifftshift``: a ``roll`` by half of each size (of each part)."""
    if axes is None:
        axes = tuple(range(len(shape)))
    elif isinstance(axes, (int, np.integer)):
        axes = (int(axes),)
    sign = 1 if name == "fftshift" else -1
    shift = tuple(sign * (shape[ax] // 2) for ax in axes)
    if isinstance(x, Pair):
        return Pair(*(lw.call(np.roll, [p, shift], {"axis": tuple(axes)}, e)
                      for p in (x.re, x.im)))
    return lw.call(np.roll, [x, shift], {"axis": tuple(axes)}, e)
