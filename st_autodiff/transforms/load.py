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
from typing import Any, cast

from .codegen import Generated


def load(gen: Generated, xp: Any, rt: Any) -> Callable[..., Any]:
    """Compile ``gen`` and return its function."""
    digest = hashlib.sha1(gen.source.encode()).hexdigest()[:10]
    filename = f"<st_autodiff {gen.name} {digest}>"
    lines = gen.source.splitlines(keepends=True)
    linecache.cache[filename] = (len(gen.source), None, lines, filename)
    namespace: dict[str, Any] = {"xp": xp, "rt": rt, "__name__": "st_autodiff.generated"}
    namespace.update(gen.globals)
    if xp is not None and getattr(xp, "__name__", "") != "numpy":  # (backends, issue 15)
        from ..runtime import backend  # noqa: PLC0415

        backend.check_names(gen.source, gen.line_map, xp)
        namespace.update(backend.constants_on(xp, gen.globals))
        namespace["rt"] = backend.bound_support(rt, xp)
    exec(compile(gen.source, filename, "exec"), namespace)  # noqa: S102 (our own codegen)
    fn: Any = namespace[gen.name]
    fn.__st_line_map__ = gen.line_map
    first = next((k + 1 for k, line in enumerate(lines) if line.strip() == "# adjoint"), None)
    if first is not None:
        ADJOINT_LINES[filename] = (first, gen.line_map)
    return cast("Callable[..., Any]", fn)


_PACKAGE = __file__.rsplit("/transforms/", 1)[0]

#: generated file name -> (first line of its adjoint part, generated line -> user loc)
ADJOINT_LINES: dict[str, tuple[int, dict[int, str]]] = {}


def locate_failure(exc: BaseException) -> BaseException:
    """``exc`` as raised by a generated function: a ``DerivativeRuntimeError`` at the
    user's line when it comes from the adjoint part (a derivative that cannot be
    computed at these inputs), else ``exc`` itself (the user's code failed)."""
    from ..errors import DerivativeRuntimeError  # noqa: PLC0415
    from ..ir.graph import Loc  # noqa: PLC0415

    tb, hit, last = exc.__traceback__, None, ""
    while tb is not None:
        last = tb.tb_frame.f_code.co_filename
        if last in ADJOINT_LINES:
            hit = (last, tb.tb_lineno)
        tb = tb.tb_next
    if hit is None or last.startswith(_PACKAGE) and not last.endswith("kernels.py"):
        return exc  # (an error st_autodiff raises on purpose, e.g. a rule's bad result)
    first, line_map = ADJOINT_LINES[hit[0]]
    if hit[1] < first:
        return exc
    user = max((k for k in line_map if k <= hit[1]), default=None)
    loc = None
    if user is not None:
        file, line, col = line_map[user].rsplit(":", 2)
        text = (linecache.getline(file, int(line)) or "").rstrip("\n")
        loc = Loc(file, int(line), int(col), text.strip() and text)
    err = DerivativeRuntimeError(
        f"the derivative of this line failed at these inputs: {type(exc).__name__}: {exc}",
        loc, "the function is not differentiable this way here (e.g. a singular matrix); "
        "see the generated code (.source) for the failing step")
    err.__cause__ = exc
    return err
