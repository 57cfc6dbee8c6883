"""NumPy's floating-point error handling switched off and back, cheaper than ``np.errstate``.

PyTorch never warns about an overflow or an invalid value, so the runtime runs some of its
NumPy code (every backward, the optimizers' rounding helpers) with those warnings off.
``with np.errstate(...)`` builds a new error-state object on every entry, which costs a few
microseconds: as much as a small tensor op.  ``quiet(settings)`` sets the same state
(``settings`` is one of the constants below), reusing the object it built last time while
the surrounding state is unchanged, and returns a token for ``restore``.  Where NumPy's
private hook is missing (another NumPy version) both fall back to ``np.errstate``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["ALL", "INVALID", "INVALID_OVER", "OVER", "quiet", "restore"]

ALL = (("all", "ignore"),)
OVER = (("over", "ignore"),)
INVALID = (("invalid", "ignore"),)
INVALID_OVER = (("invalid", "ignore"), ("over", "ignore"))

try:
    from numpy._core._multiarray_umath import (  # type: ignore[import-not-found]  # no stubs
        _extobj_contextvar,
        _make_extobj,
    )
except ImportError:  # pragma: no cover  (NumPy without the hook)
    _extobj_contextvar = _make_extobj = None

#: settings -> (the state it was made on, the state it made)
_last: dict[tuple[Any, ...], tuple[Any, Any]] = {}


def quiet(settings: tuple[Any, ...]) -> Any:
    """Switch the warnings of ``settings`` off; hand the token to ``restore``."""
    if _extobj_contextvar is None:  # pragma: no cover
        state = np.errstate(**dict(settings))
        state.__enter__()
        return state
    current = _extobj_contextvar.get()
    made = _last.get(settings)
    if made is None or made[0] is not current:
        made = (current, _make_extobj(**dict(settings)))
        _last[settings] = made  # one entry per settings: the cache cannot grow
    return _extobj_contextvar.set(made[1])


def restore(token: Any) -> None:
    """Undo the ``quiet`` call that returned ``token``."""
    if _extobj_contextvar is None:  # pragma: no cover
        token.__exit__(None, None, None)
        return
    _extobj_contextvar.reset(token)
