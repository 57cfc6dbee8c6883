"""The ``Tensor`` methods of the names family (sorting, counting, triangles, diagonals ...):
installed by ``install()`` from ``namespace.py``, after ``methods.install``.

Methods take ``self`` as the functions' first argument, except where PyTorch's method
spelling differs (``Tensor.diag_embed`` and friends match; ``Tensor.bincount(weights,
minlength)``, ``Tensor.isin`` ...).  In-place versions run through ``inplace.inplace`` so
version counters, views and ``grad_fn`` behave as for every other in-place op.
"""

from __future__ import annotations

from typing import Any

from . import contractions as P
from . import counting as C
from . import functional as F
from . import shape_more as H
from . import sorting as O
from . import tensor_extras as X
from . import tensor_more as M
from .inplace import inplace
from .tensor import Tensor

__all__ = ["install"]

_FROM = {
    O: "sort argsort msort topk kthvalue median nanmedian mode",
    M: "triu tril triu_ tril_ fliplr flipud roll rot90 repeat_interleave diag diag_embed "
       "diagflat fill_diagonal_ cross tensor_split frac sgn",
    C: "bincount histc unique unique_consecutive isin count_nonzero heaviside bitwise_and "
       "bitwise_or bitwise_xor bitwise_not bitwise_left_shift bitwise_right_shift",
    X: "lerp clamp_min clamp_max cumprod cummax cummin logcumsumexp aminmax nan_to_num "
       "copysign signbit float_power deg2rad rad2deg logaddexp2 positive",
    H: "unflatten ravel moveaxis is_nonzero is_complex is_same_size",
    P: "addmv baddbmm addbmm kron gcd lcm",
}


def _inplace_method(fn: Any, name: str) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return inplace(self, fn, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place ``{name[:-1]}``."
    return method


_INPLACE = {
    "frac_": M.frac, "sgn_": M.sgn, "atan2_": F.atan2, "arctan2_": F.atan2, "hypot_": F.hypot,
    "logical_and_": F.logical_and, "logical_or_": F.logical_or, "logical_xor_": F.logical_xor,
    "logical_not_": F.logical_not, "bitwise_and_": C.bitwise_and, "bitwise_or_": C.bitwise_or,
    "bitwise_xor_": C.bitwise_xor, "bitwise_not_": C.bitwise_not, "heaviside_": C.heaviside,
    "lerp_": X.lerp, "clamp_min_": X.clamp_min, "clamp_max_": X.clamp_max,
    "cumprod_": X.cumprod, "nan_to_num_": X.nan_to_num, "copysign_": X.copysign,
    "deg2rad_": X.deg2rad, "rad2deg_": X.rad2deg, "addmv_": P.addmv, "baddbmm_": P.baddbmm,
    "addbmm_": P.addbmm, "gcd_": P.gcd, "lcm_": P.lcm,
}


def install() -> None:
    """Attach the family's methods to ``Tensor``."""
    for module, names in _FROM.items():
        for name in names.split():
            setattr(Tensor, name, getattr(module, name))
    for name, fn in _INPLACE.items():
        setattr(Tensor, name, _inplace_method(fn, name))
