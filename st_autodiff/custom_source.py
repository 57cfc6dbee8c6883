"""Helpers of ``custom.py``: the Python source it generates (callers, rule wrappers,
transposes) and ``Primal``, ``custom_vjp``'s ``fwd`` as compiled code calls it.

Generated functions are compiled with ``compile`` and registered with ``linecache``
(``define``), so the compiler reads them like a user's own function: that is how the
rules of ``custom_jvp``/``custom_vjp`` are differentiated again (higher orders).
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import keyword
import linecache
import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .errors import CompileError

if TYPE_CHECKING:
    from .custom import _CustomFunction, custom_jvp


def tuple_display(items: Sequence[str]) -> str:
    """A tuple display of the expressions ``items``."""
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def identifier(name: str) -> str:
    return name if name.isidentifier() and not keyword.iskeyword(name) else "custom"


def param_names(fn: Callable[..., Any], n: int) -> list[str]:
    """``fn``'s positional parameter names when it has ``n`` of them (they make the
    generated code read like the user's), else ``x0 … x{n-1}``."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    ok = len(names) == len(params) == n and all(
        identifier(s) == s and not s.startswith("_st_") for s in names)
    return names if ok else [f"x{i}" for i in range(n)]


def dot_name(name: str, taken: list[str]) -> str:
    dot = f"{name}_dot"
    return dot if dot not in taken else f"_st_{name}_dot"


def define(source: str, name: str, namespace: dict[str, Any]) -> Callable[..., Any]:
    """Compile generated ``source`` and register it with ``linecache``, so that the
    compiler (which reads functions' source) can read it like a user's function."""
    digest = hashlib.sha1(source.encode()).hexdigest()[:10]
    filename = f"<st_autodiff {name} {digest}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    namespace = {"__name__": "st_autodiff.generated", **namespace}
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 (our own source)
    fn: Callable[..., Any] = namespace[name]
    return fn


def caller_of(custom: _CustomFunction) -> Callable[..., Any]:
    """``def NAME(a, b=default): return _st_fn(a, b)`` for the custom function."""
    try:
        sig = inspect.signature(custom.fn)
    except (TypeError, ValueError):
        sig = None
    params = list(sig.parameters.values()) if sig is not None else []
    if sig is None or any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                          for p in params):
        raise CompileError(
            f"cannot differentiate {custom._kind} function {custom.__name__} directly: "
            f"its parameters {sig} are not all positional",
            hint="call it from a function with fixed positional parameters and "
                 "differentiate that function")
    names = [p.name for p in params]
    if "_st_fn" in names:
        names = [f"x{i}" for i in range(len(names))]
    name = identifier(custom.__name__)
    source = f"def {name}({', '.join(names)}):\n    return _st_fn({', '.join(names)})\n"
    caller = define(source, name, {"_st_fn": custom})
    caller.__defaults__ = tuple(p.default for p in params if p.default is not p.empty) or None
    return caller


def jvps_rule(custom: custom_jvp, fns: Sequence[Callable[..., Any] | None]
               ) -> Callable[..., Any]:
    """The JVP rule ``defjvps`` describes, generated as Python the compiler reads:
    ``ans = f(*primals)`` and the sum of ``fns[i](tangents[i], ans, *primals)``."""
    n = len(fns)
    try:
        expected = len(inspect.signature(custom.fn).parameters)
    except (TypeError, ValueError):
        expected = n
    if n != expected:
        raise TypeError(f"{custom.__name__}.defjvps() got {n} functions for {expected} "
                        "arguments; give one per argument (None for no dependence)")
    names = param_names(custom.fn, n)
    dots = [dot_name(s, names) for s in names]
    args = ", ".join(names)
    terms = [f"_st_d{i}({dots[i]}, _st_ans, {args})" for i, f in enumerate(fns)
             if f is not None]
    name = f"{identifier(custom.__name__)}_jvps"
    source = (f"def {name}(_st_primals, _st_tangents):\n"
              f"    {args}, = _st_primals\n"
              f"    {', '.join(dots)}, = _st_tangents\n"
              f"    _st_ans = _st_fn({args})\n"
              f"    return _st_ans, {' + '.join(terms) if terms else '_st_ans * 0.0'}\n")
    namespace: dict[str, Any] = {"_st_fn": custom}
    namespace.update({f"_st_d{i}": f for i, f in enumerate(fns) if f is not None})
    return define(source, name, namespace)


NONE = object()


class Primal:
    """``custom_vjp``'s ``fwd`` as compiled code calls it: returns the output and keeps
    the residuals, found again by the output's identity when the rule runs, so that one
    gradient runs ``fwd`` once and ``bwd`` once (JAX's order).  At most ``KEEP`` are kept
    (a primal whose backward never runs leaves its residuals); a rule that finds none
    runs ``fwd`` again."""

    KEEP = 1024

    def __init__(self, owner: Any, fwd: Callable[..., Any]) -> None:
        self.fwd = fwd
        self.st_typed_as = owner  # its output type is the function's
        self.__name__ = owner.__name__
        self.__qualname__ = owner.__qualname__
        self.__module__ = owner.__module__
        self._kept: dict[tuple[int, ...], tuple[tuple[Any, ...], Any]] = {}

    def __call__(self, *args: Any) -> Any:
        pair = self.fwd(*args)
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise TypeError(f"fwd of custom_vjp {self.__name__} must return a pair "
                            "(output, residuals)")
        out, res = pair
        items = _items(out)
        if len(self._kept) >= self.KEEP:
            del self._kept[next(iter(self._kept))]
        self._kept[tuple(map(id, items))] = (items, res)
        return out

    def residuals(self, out: Any) -> Any:
        """The residuals of the call that returned ``out`` (once), else ``NONE``."""
        items = _items(out)
        key = tuple(map(id, items))
        kept = self._kept.get(key)
        if kept is None or any(a is not b for a, b in zip(kept[0], items)):
            return NONE
        del self._kept[key]
        return kept[1]


def _items(out: Any) -> tuple[Any, ...]:
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


#: partial -> (its caller, the keywords it was made for)
_PARTIAL_CALLERS: weakref.WeakKeyDictionary[
    functools.partial[Any], tuple[Callable[..., Any], tuple[tuple[str, Any], ...]]] = \
    weakref.WeakKeyDictionary()


def partial_caller(p: functools.partial[Any]) -> Callable[..., Any]:
    """A generated function with the signature of ``functools.partial`` object ``p`` that
    calls ``p.func`` with the bound arguments, so the compiler reads (and inlines) it like
    a user's function; the bound values reach it as globals (read and guarded like any)."""
    entry = _PARTIAL_CALLERS.get(p)
    keywords = tuple(p.keywords.items())  # (changed in place: a new caller)
    if entry is not None and len(entry[1]) == len(keywords) and all(
            a[0] == b[0] and a[1] is b[1] for a, b in zip(entry[1], keywords)):
        return entry[0]
    sig = inspect.signature(p)
    namespace: dict[str, Any] = {"_st_fn": p.func}
    params, call, body = [], [], []
    for i, a in enumerate(p.args):
        namespace[f"_st_a{i}"] = a
        call.append(f"_st_a{i}")
    star_seen = False
    for i, q in enumerate(sig.parameters.values()):
        name = q.name
        default = ""
        if q.default is not q.empty:
            namespace[f"_st_d{i}"] = q.default
            default = f"=_st_d{i}"
        if q.kind is q.VAR_POSITIONAL:
            params.append(f"*{name}")
            call.append(f"*{name}")
            star_seen = True
        elif q.kind is q.VAR_KEYWORD:
            params.append(f"**{name}")
            # keywords the partial binds that only **kwargs takes (the signature shows
            # none of them): passed first, the call's own keywords overriding them
            extra = {k: v for k, v in p.keywords.items() if k not in sig.parameters}
            if extra:
                namespace["_st_kw"] = extra
                body.append(f"_st_all = _st_kw.copy()\n    _st_all.update({name})\n    ")
                call.append("**_st_all")
            else:
                call.append(f"**{name}")
        elif q.kind is q.KEYWORD_ONLY:
            if not star_seen:
                params.append("*")
                star_seen = True
            params.append(name + default)
            call.append(f"{name}={name}")
        else:
            params.append(name + default)
            call.append(name)
        if q.kind is q.POSITIONAL_ONLY and (
                i + 1 == len(sig.parameters)
                or list(sig.parameters.values())[i + 1].kind is not q.POSITIONAL_ONLY):
            params.append("/")
    name = identifier(getattr(p.func, "__name__", "partial")) + "_partial"
    source = (f"def {name}({', '.join(params)}):\n    {''.join(body)}"
              f"return _st_fn({', '.join(call)})\n")
    caller = define(source, name, namespace)
    _PARTIAL_CALLERS[p] = (caller, keywords)
    return caller
