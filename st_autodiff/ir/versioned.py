"""``VersionedDict``: the registries of custom rules (``register_vjp``, ``custom_jvp``,
output types) as dicts that count their changes, so that compiled code shared between
``st.grad(f)`` objects (``specialize.shared_state``) can tell in O(1) that a rule was
registered, replaced or removed since it was compiled."""

from __future__ import annotations

from typing import Any

_CHANGES = [0]


def version() -> int:
    """How many changes all ``VersionedDict``s have had (it only grows)."""
    return _CHANGES[0]


class VersionedDict(dict[Any, Any]):
    """A dict whose every change bumps ``version()``."""

    def __setitem__(self, key: Any, value: Any) -> None:
        super().__setitem__(key, value)
        _CHANGES[0] += 1

    def __delitem__(self, key: Any) -> None:
        super().__delitem__(key)
        _CHANGES[0] += 1

    def pop(self, *args: Any) -> Any:
        _CHANGES[0] += 1
        return super().pop(*args)

    def popitem(self) -> Any:
        _CHANGES[0] += 1
        return super().popitem()

    def clear(self) -> None:
        _CHANGES[0] += 1
        super().clear()

    def update(self, *args: Any, **kwargs: Any) -> None:
        _CHANGES[0] += 1
        super().update(*args, **kwargs)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        _CHANGES[0] += 1
        return super().setdefault(key, default)

    # mypy checks this against dict's overloaded ``__or__`` (dict's own ``__ior__`` would fail too)
    def __ior__(self, other: Any) -> Any:  # type: ignore[misc]
        _CHANGES[0] += 1
        return super().__ior__(other)
