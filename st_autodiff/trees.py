"""Nested tuples, lists and dicts of values ("pytrees", as JAX calls them).

A tree's *spec* is the same nesting with each leaf replaced by its position in the
flattened list of leaves: ``flatten(([a, b], {"k": c}))`` is ``([a, b, c],
((0, 1), {"k": 2}))`` (lists stay lists).  The compiler uses specs to say what a
generated function returns (``codegen.returns``); ``vjp``, ``jvp`` and the Jacobians use
them to take structured arguments and outputs apart and put them back together.
Dicts keep their insertion order; a dict matched against a spec is read by key.  ``None``
is a tree without leaves (JAX's convention), its spec ``None``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from .trees_classes import Record, Static, is_record, record_fields, static_field

#: the containers a tree is made of (exact types: NamedTuple and dataclass instances are
#: records, ``trees_classes``; other subclasses are leaves)
CONTAINERS = (tuple, list, dict)


def is_container(x: Any) -> bool:
    """Whether ``x`` is a tuple, list, dict or record (and so not a leaf)."""
    return type(x) in CONTAINERS or is_record(x)


def flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None
            ) -> tuple[list[Any], Any]:
    """``(leaves, spec)`` of a tree, leaves in depth-first order.

    >>> flatten(([1.0, 2.0], {"k": 3.0, "n": None}))
    ([1.0, 2.0, 3.0], ([0, 1], {'k': 2, 'n': None}))
    """
    leaves: list[Any] = []

    def walk(x: Any) -> Any:
        if x is None:  # no leaves, as in JAX
            return None
        if (is_leaf is None or not is_leaf(x)) and is_container(x):
            if type(x) is dict:
                return {k: walk(v) for k, v in x.items()}
            if type(x) not in CONTAINERS:  # a NamedTuple or dataclass instance
                names = record_fields(x)
                assert names is not None
                return Record(type(x), names, [
                    Static(v) if static_field(v) else walk(v)
                    for v in (getattr(x, n) for n in names)])
            parts = [walk(v) for v in x]
            return parts if type(x) is list else tuple(parts)
        leaves.append(x)
        return len(leaves) - 1

    return leaves, walk(tree)


def unflatten(spec: Any, leaves: list[Any]) -> Any:
    """The tree of ``spec`` with leaf ``i`` replaced by ``leaves[i]`` (records rebuilt as
    instances of their class, static fields as they were)."""
    if isinstance(spec, int):
        return leaves[spec]
    if spec is None:
        return None
    if isinstance(spec, Static):
        return spec.value
    if type(spec) is dict:
        return {k: unflatten(v, leaves) for k, v in spec.items()}
    if isinstance(spec, Record):
        return spec.make([unflatten(c, leaves) for c in spec.children])
    parts = [unflatten(s, leaves) for s in spec]
    return parts if type(spec) is list else tuple(parts)


def map_spec(fn: Callable[[int], Any], spec: Any) -> Any:
    """``spec`` with each leaf index ``i`` replaced by ``fn(i)``."""
    if isinstance(spec, int):
        return fn(spec)
    if spec is None or isinstance(spec, Static):
        return spec
    if type(spec) is dict:
        return {k: map_spec(fn, v) for k, v in spec.items()}
    if isinstance(spec, Record):
        return Record(spec.cls, spec.names, [map_spec(fn, c) for c in spec.children])
    parts = [map_spec(fn, s) for s in spec]
    return parts if type(spec) is list else tuple(parts)


def indices(spec: Any) -> list[int]:
    """The leaf indices of ``spec`` in depth-first order."""
    return list(_walk(spec))


def _walk(spec: Any) -> Iterator[int]:
    if isinstance(spec, int):
        yield spec
        return
    if spec is None or isinstance(spec, Static):
        return
    if isinstance(spec, Record):
        spec = spec.children
    for s in spec.values() if type(spec) is dict else spec:
        yield from _walk(s)


def renumber(spec: Any) -> Any:
    """``spec`` with its leaves numbered 0, 1, 2 ... in depth-first order."""
    counter = iter(range(len(indices(spec))))
    return map_spec(lambda _: next(counter), spec)


def shift(spec: Any, by: int) -> Any:
    """``spec`` with every leaf index moved by ``by``."""
    return map_spec(lambda i: i + by, spec)


def describe(spec: Any) -> str:
    """A short picture of a structure for error messages: ``(*, [*, *], {'k': *})``."""
    if isinstance(spec, int):
        return "*"
    if spec is None:
        return "None"
    if isinstance(spec, Record):
        return spec.describe(describe)
    if type(spec) is dict:
        return "{" + ", ".join(f"{k!r}: {describe(v)}" for k, v in spec.items()) + "}"
    inner = ", ".join(describe(s) for s in spec)
    if type(spec) is list:
        return f"[{inner}]"
    return f"({inner},)" if len(spec) == 1 else f"({inner})"


def leaves_like(spec: Any, tree: Any, what: str, none_is_leaf: bool = True) -> list[Any]:
    """The leaves of ``tree`` read in the order of ``spec``, or a ``TypeError`` naming
    the structure expected.  Tuples and lists stand for each other; dicts are read by key;
    with ``none_is_leaf`` a ``None`` in place of a whole subtree stands for ``None`` at
    each of its leaves."""
    n = len(indices(spec))
    out: list[Any] = [None] * n

    def fail(path: str, why: str) -> TypeError:
        where = f" at {what}{path}" if path else f" for {what}"
        return TypeError(f"wrong structure{where}: {why}; expected the structure "
                         f"{describe(spec)} ({n} leaves)")

    def walk(s: Any, t: Any, path: str) -> None:
        if isinstance(s, int):
            out[s] = t
            return
        if t is None and (none_is_leaf or s is None):
            return
        if s is None:
            raise fail(path, f"got {type(t).__name__}, expected None")
        if isinstance(s, Static):  # fixed by the structure: any value stands for it
            return
        if isinstance(s, Record):
            if type(t) is not s.cls:
                raise fail(path, f"got {type(t).__name__}, expected a {s.cls.__name__}")
            for n, v in zip(s.names, s.children):
                walk(v, getattr(t, n, None), f"{path}.{n}")
            return
        if type(s) is dict:
            if type(t) is not dict:
                raise fail(path, f"got {type(t).__name__}, expected a dict")
            if set(t) != set(s):
                raise fail(path, f"got keys [{', '.join(sorted(map(repr, t)))}], expected "
                           f"keys [{', '.join(sorted(map(repr, s)))}]")
            for k, v in s.items():
                walk(v, t[k], f"{path}[{k!r}]")
            return
        if type(t) not in (tuple, list):
            raise fail(path, f"got {type(t).__name__}, expected a {type(s).__name__} of "
                       f"length {len(s)}")
        if len(t) != len(s):
            raise fail(path, f"got a {type(t).__name__} of length {len(t)}, expected "
                       f"length {len(s)}")
        for k, (v, x) in enumerate(zip(s, t)):
            walk(v, x, f"{path}[{k}]")

    walk(spec, tree, "")
    return out


def path(spec: Any, k: int) -> str:
    """Where leaf ``k`` sits in ``spec``: ``[1]['a']`` (empty for a bare leaf)."""

    def find(s: Any) -> str | None:
        if isinstance(s, int):
            return "" if s == k else None
        if s is None or isinstance(s, Static):
            return None
        if isinstance(s, Record):
            for n, v in zip(s.names, s.children):
                got = find(v)
                if got is not None:
                    return f".{n}{got}"
            return None
        items = s.items() if type(s) is dict else enumerate(s)
        for key, v in items:
            got = find(v)
            if got is not None:
                return f"[{key!r}]{got}"
        return None

    return find(spec) or ""
