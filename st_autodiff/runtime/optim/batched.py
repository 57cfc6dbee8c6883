"""One update for a whole parameter group: the elementwise optimizers' arithmetic on the
concatenation of all parameters, instead of once per parameter (speedcore).

``SGD``, ``Adam``, ``AdamW``, ``RMSprop`` and ``Adagrad`` update every element of a parameter
from the same elements of its gradient and buffers, with scalars shared by the group (the
learning rate, betas, and the step count once every parameter has taken the same number of
steps).  Running their ``_update`` once on the flattened, concatenated arrays therefore gives
exactly the bits of running it parameter by parameter, while paying NumPy's per-call cost once
per group instead of once per parameter.  The results are scattered back into each parameter's
storage and buffers in place.  Anything outside that pattern (one parameter, repeated
parameters or parameters viewing the same array, mixed dtypes, buffers of other shapes,
unequal step counts, a subclass with its own ``_update``, non-NumPy storage) takes the
per-parameter path.
"""

from __future__ import annotations

from itertools import accumulate
from typing import Any

import numpy as np

from ..tensor import Tensor, plain

__all__ = ["update_group"]


def _flat(arrays: list[Any]) -> Any:
    return np.concatenate([a.reshape(-1) for a in arrays])


def _layout(opt: Any, params: list[Tensor], grads: list[Any]) -> tuple[Any, bool] | None:
    """The shared dtype and whether the state is still empty, or ``None`` when the group
    cannot be updated as one array."""
    dtype = None
    fresh = None
    state = opt.state
    keys = None
    step = None
    owners = set()
    for p, g in zip(params, grads):
        d = p._data
        if type(d) is not np.ndarray or type(g) is not np.ndarray or g.shape != d.shape:
            return None
        owner = id(d if d.base is None else d.base)
        if owner in owners:  # two parameters that may share memory: update them in turn
            return None
        owners.add(owner)
        if dtype is None:
            dtype = d.dtype
            if dtype.kind != "f":
                return None
        if d.dtype != dtype or g.dtype != dtype:
            return None
        s = state.get(p)
        empty = not s
        if fresh is None:
            fresh = empty
            keys = None if empty else set(s)
        elif fresh != empty:
            return None
        if empty:
            continue
        if set(s) != keys:
            return None
        for key, value in s.items():
            if type(value) is not Tensor or type(value._data) is not np.ndarray:
                return None
            if key == "step":
                if value._data.shape != ():
                    return None
                if step is None:
                    step = value._data.item()
                elif value._data.item() != step:
                    return None
            elif value._data.shape != d.shape or value._data.dtype != dtype:
                return None
    return dtype, bool(fresh)


_ELEMENTWISE: set[Any] = set()


def _elementwise(opt: Any) -> bool:
    """Whether ``opt``'s ``_update`` is one of the elementwise ones named in the module doc."""
    if not _ELEMENTWISE:
        from .adagrad import Adagrad
        from .adam import Adam
        from .rmsprop import RMSprop
        from .sgd import SGD

        _ELEMENTWISE.update(c.__dict__["_update"] for c in (Adagrad, Adam, RMSprop, SGD))
    return type(opt)._update in _ELEMENTWISE


def update_group(opt: Any, params: list[Tensor], grads: list[Any], group: dict[str, Any]) -> bool:
    """Update ``params`` (each with raw gradient in ``grads``) as one array; ``False`` when
    the group has to be updated parameter by parameter (nothing is changed then)."""
    if len(params) < 2 or len({id(p) for p in params}) != len(params) or not _elementwise(opt):
        return False
    found = _layout(opt, params, grads)
    if found is None:
        return False
    _, fresh = found
    datas = [p._data for p in params]
    sizes = [d.size for d in datas]
    flat = plain(_flat(datas))
    state = opt.state
    if not fresh:
        first = state[params[0]]
        packed: dict[str, Any] = {}
        for key, value in first.items():
            if key == "step":
                packed[key] = plain(value._data.copy())
            else:
                packed[key] = plain(_flat([state[p][key]._data for p in params]))
        state[flat] = packed
    try:
        opt._update(flat, _flat(grads), group)
        result = state[flat]
    finally:
        state.pop(flat, None)
    stops = list(accumulate(sizes))  # Python ints: cheaper slicing than NumPy's
    starts = [b - n for b, n in zip(stops, sizes)]
    out = flat._data
    for d, a, b in zip(datas, starts, stops):
        d[...] = out[a:b].reshape(d.shape)
    for key, value in result.items():
        v = value._data
        if key == "step":
            for p in params:
                if fresh:
                    state[p][key] = plain(v.copy())
                else:
                    state[p][key]._data[...] = v
            continue
        for p, d, a, b in zip(params, datas, starts, stops):
            piece = v[a:b].reshape(d.shape)
            if fresh:
                state[p][key] = plain(piece.copy())
            else:
                state[p][key]._data[...] = piece
    return True
