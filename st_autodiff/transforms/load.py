"""Pass 7, load: generated source -> a live Python function, registered with linecache.

The source is compiled with ``compile`` under a unique ``<st_autodiff …>`` file name and
put into ``linecache`` (no temp files), so ``inspect.getsource``, tracebacks and pdb show
the generated lines.  Its globals are ``xp`` (the array backend), ``rt`` (runtime
support) and the constants codegen asked for.
"""

from __future__ import annotations

import hashlib
import linecache
from collections.abc import Callable
from typing import Any

from .codegen import Generated


def load(gen: Generated, xp: Any, rt: Any) -> Callable[..., Any]:
    """Compile ``gen`` and return its function."""
    digest = hashlib.sha1(gen.source.encode()).hexdigest()[:10]
    filename = f"<st_autodiff {gen.name} {digest}>"
    lines = gen.source.splitlines(keepends=True)
    linecache.cache[filename] = (len(gen.source), None, lines, filename)
    namespace: dict[str, Any] = {"xp": xp, "rt": rt, "__name__": "st_autodiff.generated"}
    namespace.update(gen.globals)
    exec(compile(gen.source, filename, "exec"), namespace)  # noqa: S102 (our own codegen)
    fn = namespace[gen.name]
    fn.__st_line_map__ = gen.line_map
    return fn
