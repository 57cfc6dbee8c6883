"""Deterministic names for values: one allocator shared by the printer and codegen."""

from __future__ import annotations

import builtins
import keyword

_RESERVED = set(keyword.kwlist) | set(dir(builtins)) | {"xp", "rt"}


class Namespace:
    """Hands out unique names: ``z``, ``z_1``, ``z_2`` …; temporaries ``{prefix}0`` …"""

    def __init__(self, temp_prefix: str = "t", reserved: set[str] | None = None) -> None:
        self.temp_prefix = temp_prefix
        self.taken: set[str] = set(reserved or ()) | _RESERVED
        self.counts: dict[str, int] = {}
        self.temps = 0

    def fresh(self, base: str | None) -> str:
        """A new unique name built from ``base`` (or a temporary when ``base`` is None)."""
        if not base:
            while True:
                name = f"{self.temp_prefix}{self.temps}"
                self.temps += 1
                if name not in self.taken:
                    self.taken.add(name)
                    return name
        if base not in self.taken:
            self.taken.add(base)
            return base
        n = self.counts.get(base, 0)
        while True:
            n += 1
            name = f"{base}_{n}"
            if name not in self.taken:
                self.counts[base] = n
                self.taken.add(name)
                return name
