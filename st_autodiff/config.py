"""``st.config``: process-wide settings of the compiler's caches and logs.

Each setting has an environment variable read once at import, so that a script can be
switched without editing it; assigning the attribute afterwards wins:

* ``cache_size`` (``ST_AUTODIFF_CACHE_SIZE``, default 64): specialisations kept per
  compiled function, least recently used evicted first (``grad(f, cache_size=...)``
  overrides it for one function).
* ``log_specialization`` (``ST_AUTODIFF_LOG_SPECIALIZATION=1``): log every
  (re-)specialisation and eviction at WARNING, so it shows without configuring logging
  (otherwise they are INFO records of logger ``st_autodiff``).
* ``cache_dir`` (``ST_AUTODIFF_CACHE_DIR``, default unset): a directory where generated
  code is kept between processes (``disk_cache.py``); unset means no disk cache.
"""

from __future__ import annotations

import os
from pathlib import Path


def _flag(value: str | None) -> bool:
    return (value or "").strip().lower() not in ("", "0", "false", "no", "off")


class Config:
    """The settings listed in the module docstring (one instance: ``st.config``)."""

    def __init__(self) -> None:
        self._cache_size = 64
        size = os.environ.get("ST_AUTODIFF_CACHE_SIZE")
        if size:
            self.cache_size = int(size)
        self.log_specialization: bool = _flag(os.environ.get("ST_AUTODIFF_LOG_SPECIALIZATION"))
        self._cache_dir: Path | None = None
        self.cache_dir = os.environ.get("ST_AUTODIFF_CACHE_DIR") or None

    @property
    def cache_size(self) -> int:
        """Specialisations kept per compiled function (at least 1)."""
        return self._cache_size

    @cache_size.setter
    def cache_size(self, n: int) -> None:
        self._cache_size = check_cache_size(n, "st.config.cache_size")

    @property
    def cache_dir(self) -> Path | None:
        """Where generated code persists between processes, or None (no disk cache)."""
        return self._cache_dir

    @cache_dir.setter
    def cache_dir(self, path: str | os.PathLike[str] | None) -> None:
        self._cache_dir = None if path is None or str(path) == "" else Path(path)

    def __repr__(self) -> str:
        return (f"st.config(cache_size={self.cache_size}, log_specialization="
                f"{self.log_specialization}, cache_dir={self.cache_dir})")


def check_cache_size(n: object, what: str) -> int:
    """``n`` as a cache size, or a TypeError/ValueError naming ``what``."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"{what} must be an int, got {type(n).__name__}")
    if n < 1:
        raise ValueError(f"{what} must be at least 1, got {n}")
    return n


config = Config()
