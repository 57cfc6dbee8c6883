"""Specialisations a compiled function keeps, and the words that explain them.

A ``GradFunction`` compiles one specialisation per *kind* of its arguments (each array's
dtype and shape, each int's value, ...; ``api._kind``) and per state of the guards on
what it read from outside (``transforms/guards.py``).  This module holds them:

* ``SpecCache``: the specialisations, least recently used first, at most ``limit`` of
  them (``st.config.cache_size`` or ``grad(f, cache_size=...)``); evictions are logged.
* ``why``/``describe_key``: the log line and the ``cache_info()`` text saying which
  argument's kind changed ("x: f64[3] -> f64[4]", "n: int 3 -> 4") or which guard failed.
* ``CacheInfo``: what ``GradFunction.cache_info()`` returns.

Keys of static arguments (``static_argnums``) are ``("static", type, value)``; dynamic
ints (``dynamic_argnums``) are ``("dynamic", type)``: their value is a runtime input.
"""

from __future__ import annotations

import logging
import types
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .config import config
from .ir.layout import checks_hold
from .ir.namespaces import describe_dtype_name
from .ir.versioned import version as rules_version
from .transforms.parse import Layout, ParsedFunction

log = logging.getLogger("st_autodiff")

STATIC = "static"
DYNAMIC = "dynamic"


class Specialisation:
    """One compiled specialisation: its key, its guard check (None: nothing to check),
    the loaded code, and why it exists."""

    __slots__ = ("key", "guard", "compiled", "fn", "guards", "hits", "reason", "origin",
                 "names", "same")

    def __init__(self, key: Any, guard: Callable[[], bool] | None, compiled: Any,
                 fn: Callable[..., Any], guards: Any, reason: str, origin: str) -> None:
        self.key = key
        self.guard = guard
        self.compiled = compiled
        self.fn = fn
        self.guards = guards
        self.hits = 0
        self.reason = reason
        self.origin = origin  # "compiled" or "disk"
        self.names: Sequence[str] | None = None  # the parameters' names, for messages
        # `a is b` answers between arguments it was compiled with: (i, j, args[i] is args[j])
        self.same: tuple[tuple[int, int, bool], ...] | None = getattr(
            compiled, "same_args", None) or None

    @property
    def source(self) -> str:
        """The generated code of this specialisation."""
        return self.compiled.stages["codegen"]  # type: ignore[no-any-return]


#: whether ``args`` give the answers to ``a is b`` between arguments that a specialisation
#: was compiled with (checked only where it asked; identity.py), and the layout facts of
#: arguments it asked for (``j`` = -1: ir/layout.py); one call on the cached-call path
same_objects = checks_hold


@dataclass(frozen=True)
class SpecialisationInfo:
    """One row of ``cache_info()``."""

    key: str  # the argument kinds, described
    hits: int  # calls that reused it
    reason: str  # why it was compiled
    origin: str  # "compiled" here, or "disk" (loaded from st.config.cache_dir)


@dataclass(frozen=True)
class CacheInfo:
    """``GradFunction.cache_info()``: the specialisations, least recently used first, and
    the counters (like ``functools.lru_cache``'s ``cache_info``)."""

    function: str
    specialisations: tuple[SpecialisationInfo, ...]
    hits: int
    misses: int
    evictions: int
    maxsize: int
    currsize: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "currsize", len(self.specialisations))

    def __str__(self) -> str:
        lines = [f"{self.function}: {self.currsize} specialisation(s) (limit {self.maxsize}),"
                 f" {self.hits} hits, {self.misses} misses, {self.evictions} evictions"]
        for i, s in enumerate(self.specialisations):
            lines.append(f"  [{i}] {s.key}: {s.hits} hits; {s.reason}"
                         + (" (loaded from disk)" if s.origin == "disk" else ""))
        return "\n".join(lines)


class SpecCache:
    """Argument kinds -> specialisations (newest first), least recently used kinds first."""

    def __init__(self, limit: int | None) -> None:
        self.entries: OrderedDict[Any, list[Specialisation]] = OrderedDict()
        self.limit = limit  # None: st.config.cache_size, read at each insertion
        self.misses = 0
        self.evictions = 0
        self.evicted_hits = 0

    def __len__(self) -> int:
        return sum(len(v) for v in self.entries.values())

    def clear(self) -> None:
        """Drop every specialisation and zero the counters."""
        self.entries.clear()
        self.misses = self.evictions = self.evicted_hits = 0

    def insert(self, spec: Specialisation, per_key: int, owner: str) -> None:
        """Add ``spec`` as the newest of its key (keeping ``per_key`` of them), then evict
        the least recently used specialisations above the limit."""
        old = self.entries.pop(spec.key, [])
        self.entries[spec.key] = [spec, *old][:per_key]
        self.misses += 1
        limit = self.limit if self.limit is not None else config.cache_size
        total = len(self)
        while total > limit:
            lru_key = next(iter(self.entries))
            victims = self.entries[lru_key]
            victim = victims.pop()  # the oldest of the least recently used kinds
            if not victims:
                del self.entries[lru_key]
            self.evictions += 1
            self.evicted_hits += victim.hits
            total -= 1
            announce("%s: evicted the specialisation for %s (%d hits; cache limit %d)",
                     owner, describe_key(victim.key, victim.names), victim.hits, limit)

    def info(self, function: str) -> CacheInfo:
        """The rows of ``cache_info()``."""
        rows = tuple(SpecialisationInfo(describe_key(s.key, s.names), s.hits, s.reason,
                                        s.origin)
                     for entries in self.entries.values() for s in reversed(entries))
        hits = sum(r.hits for r in rows) + self.evicted_hits
        limit = self.limit if self.limit is not None else config.cache_size
        return CacheInfo(function, rows, hits, self.misses, self.evictions, limit)


def announce(message: str, *args: Any) -> None:
    """A specialisation event: INFO on logger ``st_autodiff``, WARNING when
    ``st.config.log_specialization`` is on (so that it shows without logging set up)."""
    level = logging.WARNING if config.log_specialization else logging.INFO
    if log.isEnabledFor(level):
        log.log(level, "st_autodiff: " + message, *args)


# --- describing kinds -------------------------------------------------------------------

_SHORT = {"f": "f", "i": "i", "u": "u", "c": "c"}


def describe_dtype(dt: Any) -> str:
    """``float64`` -> ``f64``, ``int32`` -> ``i32``, ``bool`` -> ``bool``."""
    try:
        d = np.dtype(dt)
    except TypeError:  # an array-API dtype object (array_api_strict.float64): by its name
        d = np.dtype(describe_dtype_name(dt))
    if d.kind in _SHORT:
        return f"{_SHORT[d.kind]}{d.itemsize * 8}"
    result: str = d.name
    return result


def describe_kind(kind: Any) -> str:
    """One argument's kind in a few characters (``f64[3,4]``, ``int 3``, ``float``)."""
    if isinstance(kind, type):
        return kind.__name__
    if isinstance(kind, tuple) and kind:
        head = kind[0]
        if head == STATIC and len(kind) == 3:
            return f"static {kind[1].__name__} {kind[2]!r}"
        if head == DYNAMIC and len(kind) == 2:
            return f"{kind[1].__name__} (runtime value)"
        if isinstance(head, np.dtype) and len(kind) == 2:
            return f"{describe_dtype(head)}[{','.join(map(str, kind[1]))}]"
        if isinstance(head, type) and len(kind) == 3:  # another array type (CuPy)
            return f"{head.__name__} {describe_dtype(kind[1])}[{','.join(map(str, kind[2]))}]"
        if isinstance(head, type) and len(kind) == 2:
            if head in (tuple, list) and isinstance(kind[1], tuple):
                return f"{head.__name__}({', '.join(describe_kind(k) for k in kind[1])})"
            if kind[1] is None:
                return "None"
            return f"{head.__name__} {kind[1]!r}"
    return repr(kind)


def split_key(key: Any) -> tuple[Layout | None, tuple[Any, ...]]:
    """``(layout, kinds)`` of a cache key (``layout`` None for a plain call)."""
    if isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], Layout):
        return key[0], key[1]
    return None, key


def describe_key(key: Any, names: Sequence[str] | None = None) -> str:
    """All argument kinds of a key: ``x: f64[3], n: int 3``."""
    layout, kinds = split_key(key)
    names = _pad(names, len(kinds))
    text = ", ".join(f"{n}: {describe_kind(k)}" for n, k in zip(names, kinds))
    if layout is not None:
        text += f" ({_describe_layout(layout)})"
    return text or "no arguments"


def _describe_layout(layout: Layout | None) -> str:
    if layout is None:
        return "no *args, no **kwargs"
    return f"{layout.n_star} *args value(s), **kwargs keys {list(layout.kw_keys)}"


def _pad(names: Sequence[str] | None, n: int) -> list[str]:
    """``n`` names: the parameters' names, then ``arg<i>`` (tangents, seeds)."""
    got = list(names or ())[:n]
    return got + [f"arg{i}" for i in range(len(got), n)]


def key_change(old: Any, new: Any, names: Sequence[str] | None) -> str:
    """What differs between two keys: ``x: f64[3] -> f64[4]; n: int 3 -> 4``."""
    old_layout, old_kinds = split_key(old)
    new_layout, new_kinds = split_key(new)
    parts = []
    if old_layout != new_layout or len(old_kinds) != len(new_kinds):
        parts.append(f"call layout {_describe_layout(old_layout)} -> "
                     f"{_describe_layout(new_layout)}")
        return "; ".join(parts)
    names = _pad(names, len(new_kinds))
    for name, a, b in zip(names, old_kinds, new_kinds):
        if a != b:
            parts.append(f"{name}: {_change(a, b)}")
    return "; ".join(parts) or "same argument kinds"


def _change(a: Any, b: Any) -> str:
    """``int 3 -> 4`` for two values of one type, else ``f64[3] -> f64[4]``."""
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) and (
            len(a) == 3 and a[0] == STATIC == b[0] and a[1] is b[1]
            or len(a) == 2 and isinstance(a[0], type) and a[0] is b[0]
            and not isinstance(a[1], tuple)):
        head = describe_kind(a).rsplit(" ", 1)[0] if a[-1] is not None else ""
        return f"{head} {a[-1]!r} -> {b[-1]!r}"
    return f"{describe_kind(a)} -> {describe_kind(b)}"


def why(cache: SpecCache, key: Any, names: Sequence[str] | None) -> str:
    """Why a call with ``key`` compiles: the first call, a failed guard, or which
    argument kinds differ from the most recently used specialisation."""
    entries = cache.entries.get(key)
    if entries:
        changed = entries[0].guards.changed() if entries[0].guards is not None else None
        if changed is None and any(e.same for e in entries):
            return "an argument's memory layout or `is` answer differs"
        return f"guard on {changed or 'a value it read'} failed"
    if not cache.entries:
        return "first call" if not cache.misses else "first call since the others were evicted"
    latest = next(reversed(cache.entries))
    return key_change(latest, key, names)


def explain_key(cache: SpecCache, key: Any, names: Sequence[str] | None, who: str) -> str:
    """``st.explain``'s answer for a call with ``key``: the specialisation it reuses, or
    why it would compile (nothing is compiled or run)."""
    head = f"{who}({describe_key(key, names)}): "
    entries = cache.entries.get(key, [])
    for i, e in enumerate(entries):
        if e.guard is None or e.guard():
            age = "" if i == 0 else f" (an older one, {i} compile(s) back)"
            return (head + f"reuses a cached specialisation{age}, {e.hits} hits so far; it "
                    f"was compiled because: {e.reason}")
    # (new argument kinds: what differs from the most recently used specialisation)
    return head + f"would compile a new specialisation: {why(cache, key, names)}"


# --- static and dynamic arguments --------------------------------------------------------


def _ints(v: Any, what: str) -> tuple[int, ...]:
    items = (v,) if isinstance(v, int) else tuple(v) if v is not None else ()
    for i in items:
        if isinstance(i, bool) or not isinstance(i, int):
            raise TypeError(f"{what} must be an int or a sequence of ints, got {v!r}")
    return items


def _strs(v: Any, what: str) -> tuple[str, ...]:
    items = (v,) if isinstance(v, str) else tuple(v) if v is not None else ()
    for s in items:
        if not isinstance(s, str):
            raise TypeError(f"{what} must be a str or a sequence of strs, got {v!r}")
    return items


@dataclass(frozen=True)
class ArgSpec:
    """Which arguments are compile-time constants keyed by value (``static_*``, JAX's
    ``jit`` arguments) and which ints are runtime values (``dynamic_*``)."""

    static_argnums: tuple[int, ...] = ()
    static_argnames: tuple[str, ...] = ()
    dynamic_argnums: tuple[int, ...] = ()
    dynamic_argnames: tuple[str, ...] = ()

    @staticmethod
    def make(static_argnums: Any = None, static_argnames: Any = None,
             dynamic_argnums: Any = None, dynamic_argnames: Any = None) -> ArgSpec | None:
        """The spec of a ``grad(...)`` call's arguments (None when it names none)."""
        if static_argnums is static_argnames is dynamic_argnums is dynamic_argnames is None:
            return None
        spec = ArgSpec(_ints(static_argnums, "static_argnums"),
                       _strs(static_argnames, "static_argnames"),
                       _ints(dynamic_argnums, "dynamic_argnums"),
                       _strs(dynamic_argnames, "dynamic_argnames"))
        return spec if spec else None

    def __bool__(self) -> bool:
        return bool(self.static_argnums or self.static_argnames or self.dynamic_argnums
                    or self.dynamic_argnames)

    def positions(self, parsed: Any, wrt: Sequence[int]
                  ) -> tuple[frozenset[int], frozenset[int]]:
        """Canonical positions (``ParsedFunction.slots``) of the static and the dynamic
        arguments: numbers index the positional arguments of the call, as ``wrt`` does;
        names name parameters (keyword-only ones too) or ``**kwargs`` keys."""
        slots = parsed.slots
        names = [k if isinstance(k, str) else n for n, _, k in slots]
        kwonly = parsed.node.params.kwonly_params
        n_pos = sum(1 for _, p, k in slots
                    if not isinstance(k, str) and not any(p is q for q in kwonly))

        static = argnum_positions(self.static_argnums, self.static_argnames, "static",
                                  n_pos, names, parsed.name, parsed.all_params)
        dynamic = argnum_positions(self.dynamic_argnums, self.dynamic_argnames, "dynamic",
                                   n_pos, names, parsed.name, parsed.all_params)
        if static & dynamic:
            both = ", ".join(repr(names[i]) for i in sorted(static & dynamic))
            raise ValueError(f"{parsed.name}(): argument {both} is named both static and "
                             "dynamic; pick one")
        if static & set(wrt):
            both = ", ".join(repr(names[i]) for i in sorted(static & set(wrt)))
            raise ValueError(f"{parsed.name}(): cannot differentiate with respect to the "
                             f"static argument {both}: a static argument is a compile-time "
                             "constant; drop it from static_argnums/static_argnames")
        return frozenset(static), frozenset(dynamic)


def argnum_positions(nums: Sequence[int], strs: Sequence[str], what: str, n: int,
                     names: Sequence[str], fn_name: str, shown: Sequence[str]) -> set[int]:
    """The positions ``{what}_argnums`` (indices into the call's ``n`` positional
    arguments, negative ones from the end) and ``{what}_argnames`` (``names``: the
    parameter at each position) pick; ``shown`` lists the parameters in messages."""
    out = set()
    for i in nums:
        if not -n <= i < n:
            raise ValueError(f"{what}_argnums={i} is out of range: {fn_name}() takes {n} "
                             "positional arguments in this call")
        out.add(i % n)
    for s in strs:
        if s not in names:
            raise ValueError(f"{what}_argnames names {s!r}, but {fn_name}() has no such "
                             f"parameter (its parameters: {', '.join(shown)})")
        out.add(names.index(s))
    return out


def special_key(key: tuple[Any, ...], args: tuple[Any, ...], static: frozenset[int],
                dynamic: frozenset[int], owner: str,
                names: Sequence[str] | None) -> tuple[Any, ...]:
    """A cache key with static arguments keyed by type and value, dynamic ints by type."""
    kinds = list(key)

    def name(i: int) -> str:
        return repr(names[i]) if names is not None and i < len(names) else f"#{i}"

    for i in static:
        a = args[i]
        try:
            hash(a)
        except TypeError:
            raise TypeError(f"{owner}(): static argument {name(i)} is a {type(a).__name__}, "
                            "which is not hashable; static arguments are compile-time "
                            "constants keyed by their value, so they must be hashable (pass "
                            "a tuple instead of a list; arrays are runtime arguments: drop "
                            "it from static_argnums/static_argnames)") from None
        kinds[i] = (STATIC, type(a), a)
    for i in dynamic:
        a = args[i]
        if type(a) in (int, bool):
            kinds[i] = (DYNAMIC, type(a))
        elif not (isinstance(a, float) or hasattr(a, "shape") and hasattr(a, "dtype")):
            raise TypeError(f"{owner}(): dynamic argument {name(i)} is a {type(a).__name__}; "
                            "only ints and bools can be made runtime values (floats and "
                            "arrays always are)")
    return tuple(kinds)


# --- the same code for ``st.grad(f)`` written twice ---------------------------------------


class Shared:
    """What every ``GradFunction`` of one function object and one set of options shares:
    the parsed source, the specialisations, the resolved argument positions."""

    __slots__ = ("parsed", "requests", "cache", "functional", "positions", "template",
                 "shareable", "rules", "__weakref__")

    def __init__(self, shareable: bool = False) -> None:
        self.shareable = shareable  # other GradFunctions of the function will use it
        self.template: dict[str, Any] | None = None  # a GradFunction's attributes
        self.rules = -1  # ``ir.versioned.version()`` of the rules its code was compiled with
        self.parsed: ParsedFunction | None = None
        self.requests: dict[Any, Any] = {}
        self.cache: SpecCache | None = None
        self.functional: dict[Any, Any] = {}
        self.positions: dict[Any, tuple[frozenset[int], frozenset[int]]] = {}


#: function object -> options -> shared state.  Weak on the function: the state holds no
#: reference to it, so a closure made in a loop is collected with its code.
_SHARED: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], Shared]] = weakref.WeakKeyDictionary()


def shared_state(fn: Any, options: tuple[Any, ...]) -> Shared:
    """The state ``st.grad(fn, ...)`` shares with earlier ``st.grad(fn, ...)`` of the same
    function object and options; plain functions only (closures and lambdas included,
    by identity: a new closure object is a new function).  Bound methods, callable
    objects and ``functools.partial`` get their own, since a new bound method is made on
    every attribute read and its receiver would have to be kept alive by the cache."""
    if type(fn) is not types.FunctionType:
        return Shared()
    try:
        per_fn = _SHARED.get(fn)
        if per_fn is None:
            per_fn = _SHARED[fn] = {}
        state = per_fn.get(options)
        rules = rules_version()  # (a rule registered since: compile again)
        if state is None or state.rules != rules:
            state = per_fn[options] = Shared(shareable=True)
            state.rules = rules
    except TypeError:  # an unhashable option (wrt given as a list)
        return Shared()
    return state


def merge_info(function: str, infos: Sequence[CacheInfo]) -> CacheInfo:
    """One ``CacheInfo`` for a transform made of several compiled functions (a Jacobian
    compiles one per structure of its arguments)."""
    return CacheInfo(function, tuple(r for i in infos for r in i.specialisations),
                     sum(i.hits for i in infos), sum(i.misses for i in infos),
                     sum(i.evictions for i in infos), sum(i.maxsize for i in infos))
