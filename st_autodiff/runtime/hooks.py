"""Hook registries with removable handles.

Hooks live in plain dicts keyed by a process-wide increasing id, so they run in
registration order and a handle removes exactly its own hook.  ``RemovableHandle`` is
also a context manager: the hook is removed on leaving the ``with`` block.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable
from typing import Any

__all__ = ["RemovableHandle", "add_hook"]

_ids = itertools.count()


class RemovableHandle:
    """Returned by every ``register_*hook``: ``remove()`` unregisters the hook."""

    __slots__ = ("id", "_dicts", "__weakref__")

    def __init__(self, *dicts: dict[int, Any]) -> None:
        self.id = next(_ids)
        # weak references: a handle must not keep a graph node or tensor alive
        self._dicts = tuple(weakref.ref(d) for d in dicts)

    def remove(self) -> None:
        """Unregister the hook (a no-op when it is already gone)."""
        for ref in self._dicts:
            d = ref()
            if d is not None:
                d.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


class HookDict(dict[Any, Any]):
    """A dict that can be weakly referenced (plain dicts cannot)."""

    __slots__ = ("__weakref__",)


def add_hook(registry: HookDict, fn: Callable[..., Any]) -> RemovableHandle:
    """Register ``fn`` in ``registry`` and return its handle."""
    handle = RemovableHandle(registry)
    registry[handle.id] = fn
    return handle
