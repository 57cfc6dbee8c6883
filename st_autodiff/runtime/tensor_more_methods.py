"""The ``Tensor`` methods of the names family (sorting, counting, triangles, diagonals ...):
installed by ``install()`` from ``namespace.py``, after ``methods.install``.

Methods take ``self`` as the functions' first argument, except where PyTorch's method
spelling differs (``Tensor.diag_embed`` and friends match; ``Tensor.bincount(weights,
minlength)``, ``Tensor.isin`` ...).  In-place versions run through ``inplace.inplace`` so
version counters, views and ``grad_fn`` behave as for every other in-place op.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import contractions as P
from . import counting as C
from . import functional as F
from . import numpy_more as N
from . import reductions as R
from . import shape_more as H
from . import shape_ops as S
from . import sorting as O
from . import tensor_extras as X
from . import tensor_misc as M
from .device import is_device
from .function import TensorBase, node_class, renamed
from .grad_mode import STATE
from .inplace import inplace, inplace_method
from .tensor import Tensor, _dim, plain
from .tensor_ops import record

__all__ = ["install"]

_FROM = {
    O: "sort argsort msort topk kthvalue median nanmedian mode",
    M: "triu tril triu_ tril_ fliplr flipud roll rot90 repeat_interleave diag diag_embed "
       "diagflat fill_diagonal_ cross tensor_split frac sgn",
    C: "bincount histc unique unique_consecutive count_nonzero heaviside bitwise_and "
       "bitwise_or bitwise_xor bitwise_not bitwise_left_shift bitwise_right_shift",
    X: "lerp clamp_min clamp_max cumprod cummax cummin logcumsumexp aminmax nan_to_num "
       "copysign signbit float_power deg2rad rad2deg logaddexp2 positive",
    H: "unflatten ravel moveaxis is_nonzero is_complex is_same_size",
    P: "addmv baddbmm addbmm kron gcd lcm cov corrcoef",
}


_INPLACE = {
    "frac_": M.frac, "sgn_": M.sgn, "atan2_": F.atan2, "arctan2_": F.atan2, "hypot_": F.hypot,
    "logical_and_": F.logical_and, "logical_or_": F.logical_or, "logical_xor_": F.logical_xor,
    "logical_not_": F.logical_not, "bitwise_and_": C.bitwise_and, "bitwise_or_": C.bitwise_or,
    "bitwise_xor_": C.bitwise_xor, "bitwise_not_": C.bitwise_not, "heaviside_": C.heaviside,
    "lerp_": X.lerp, "clamp_min_": X.clamp_min, "clamp_max_": X.clamp_max,
    "cumprod_": X.cumprod, "nan_to_num_": X.nan_to_num, "copysign_": X.copysign,
    "deg2rad_": X.deg2rad, "rad2deg_": X.rad2deg, "addmv_": P.addmv, "baddbmm_": P.baddbmm,
    "addbmm_": P.addbmm, "gcd_": P.gcd, "lcm_": P.lcm, "fmod_": N.fmod,
    "cumsum_": R.cumsum, "fix_": F.trunc, "floor_divide_": F.floor_divide,
    "true_divide_": F.div,
}


def _rule_zero(ops: Any, g: Any, out: Any, x: Any, other: Any) -> tuple[Any, ...]:
    """A comparison written in place: its value is piecewise constant, no gradient."""
    return ops.zeros_like(g), None if not hasattr(other, "shape") else ops.zeros_like(other)


_COMPARE = {(n, k): node_class(f"{n.capitalize()}Backward{k}", _rule_zero,
                               (0, 1) if k else (0,), (), False)
            for n in ("eq", "ne", "lt", "gt", "le", "ge") for k in (0, 1)}


def _compare_inplace(name: str) -> Any:
    def method(self: Tensor, other: Any) -> Tensor:
        def compute(t: Tensor, o: Any) -> Tensor:
            res = getattr(F, name)(t, o)._data.astype(t._data.dtype)
            tensor = isinstance(o, TensorBase)
            if STATE.enabled and t._requires_grad and t._data.dtype.kind == "f":
                return record(_COMPARE[(name, int(tensor))], res, (t, o), {})
            return plain(res)

        return inplace(self, compute, other)

    method.__name__ = method.__qualname__ = f"{name}_"
    method.__doc__ = f"``{name}`` written into this tensor as 0/1 in its own dtype."
    return method


def stride(self: Tensor, dim: int | None = None) -> Any:
    """Elements to step over for one step in each dimension."""
    a = self._data
    steps = tuple(s // a.itemsize for s in a.strides)
    return steps if dim is None else steps[_dim(dim, a.ndim)]


def storage_offset(self: Tensor) -> int:
    """Where this tensor starts in the memory it shares with its base, in elements."""
    a = self._data
    root = a
    if is_device(a):  # CuPy: a view's ``base`` chain and ``data.ptr`` device addresses
        while root.base is not None:
            root = root.base
        return int((a.data.ptr - root.data.ptr) // a.itemsize)
    while isinstance(root.base, np.ndarray):
        root = root.base
    start = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return int(start // a.itemsize)


def data_ptr(self: Tensor) -> int:
    """The address of this tensor's first element (equal for tensors sharing it, as after
    ``detach()``)."""
    a = self._array()
    if is_device(a):
        return int(a.data.ptr)
    return int(a.__array_interface__["data"][0])


def sum_to_size(self: Tensor, *size: Any) -> Tensor:
    """Sum the dimensions that ``size`` broadcasts over (``SumBackward1``, then a view when
    leading dimensions go)."""
    target = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) \
        else tuple(size)
    shape = tuple(self.shape)
    lead = len(shape) - len(target)
    if lead < 0 or any(t not in (1, s) for t, s in zip(target, shape[lead:], strict=True)):
        raise RuntimeError(f"size {{{', '.join(map(str, target))}}} is not expandable to size "
                           f"{{{', '.join(map(str, shape))}}}.")
    dims = list(range(lead)) + [i + lead for i, (t, s) in
                                enumerate(zip(target, shape[lead:], strict=True))
                                if t == 1 and s != 1]
    if not dims:
        return self
    out = R.sum(self, dims, keepdim=True)  # one reduction, then drop the leading ones
    return S.view(out, *target) if lead else out


def _inplace_view(name: str, op: Any, node: Any) -> Any:
    """``t.<name>(...)``: ``t`` itself takes the shape of ``op(t, ...)`` (same storage, version
    bumped) and, when recorded, its node (named ``node`` or ``node(args)``)."""
    def method(self: Tensor, *args: Any) -> Tensor:
        from .inplace import _alias, check_inplace

        check_inplace(self)
        if self._base is not None and self._requires_grad and STATE.enabled:
            raise RuntimeError(f"{name}: changing the shape of a view that requires grad in "
                               "place is not supported by st_autodiff; use the out-of-place "
                               f"{name[:-1]}")
        r = op(_alias(self), *args)  # the node keeps the old shape through the alias
        if r._grad_fn is not None:
            renamed(r, node(args) if callable(node) else node)
            self._grad_fn, self._output_nr = r._grad_fn, 0
        self._data = r._data
        self._bump()
        return self

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place ``{name[:-1]}``: this tensor takes the new shape."
    return method


def _squeeze_node(args: tuple[Any, ...]) -> str:
    if not args:
        return "SqueezeBackward3"
    return "SqueezeBackward5" if isinstance(args[0], (tuple, list)) else "SqueezeBackward4"


_INPLACE_VIEWS = {
    "unsqueeze_": (S.unsqueeze, "UnsqueezeBackward1"), "squeeze_": (S.squeeze, _squeeze_node),
    "t_": (S.t, "TBackward1"), "transpose_": (S.transpose, "TransposeBackward1"),
    "swapaxes_": (S.transpose, "TransposeBackward1"), "swapdims_": (S.transpose,
                                                                     "TransposeBackward1"),
}


def install() -> None:
    """Attach the family's methods to ``Tensor``."""
    for module, names in _FROM.items():
        for name in names.split():
            setattr(Tensor, name, getattr(module, name))
    for name, fn in _INPLACE.items():
        setattr(Tensor, name, inplace_method(fn, name))
    for name in ("eq", "ne", "lt", "gt", "le", "ge"):
        setattr(Tensor, f"{name}_", _compare_inplace(name))
    for name in ("fmod", "diff", "nansum", "nanmean"):
        setattr(Tensor, name, getattr(N, name))
    for name, (op, node) in _INPLACE_VIEWS.items():
        setattr(Tensor, name, _inplace_view(name, op, node))
    # (set by name: the generated stub class declares these methods for type checkers)
    for name, fn in {"stride": stride, "storage_offset": storage_offset,
                     "sum_to_size": sum_to_size, "data_ptr": data_ptr}.items():
        setattr(Tensor, name, fn)
