"""Comprehensions and generators for ``lower`` (mixed into ``lower.Lowerer``).

A comprehension is lowered as the ``for``/``if``/``append`` statements Python's own
definition gives it, run by the ordinary statement lowering in a child scope (so the loop
variables are the comprehension's own, as in Python 3, and a closure made in its body
sees their final values, Python's late binding).  There is no second lowering path: the
one choice made here is, per ``for`` clause, whether its iterable is unrolled or looped
over.  ``_CompIter`` (the clause's iterable) turns a sequence of static length (a Python
list or tuple, a tuple argument, a static ``range``, the rows of an array of known shape,
``zip``/``enumerate``/``reversed`` of those, a dict's keys or items) into a Python list,
which ``LoopLowering.for_statement`` unrolls; any other iterable (runtime length, or more
than ``MAX_UNROLL`` items) is left as it is, and ``for_statement`` builds a loop region
whose appends ``lists.ListLowering`` collects.  A filter (``_CompTest``) that turns out
to depend on runtime data while its clause is being unrolled from a range or an array
restarts the comprehension with that clause looped over (appends under a runtime ``if``
are what the loop machinery handles); over a Python sequence it is refused.

Generator expressions and generator functions are in ``generators.py``.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import libcst as cst

from ..errors import CompileError
from ..ir.graph import Node
from ..ir.ops import Op
from .lists import TupleList
from .loops import _Range, _Reversed, _Zip
from .parse import synthesize
from .scope import Scope

if TYPE_CHECKING:
    from collections.abc import Iterable

    from .lowering_api import LowererAPI
else:
    LowererAPI = object  # the shared interface exists for the type checker only

#: a comprehension clause with more items than this is looped over, not unrolled
MAX_UNROLL = 256

class _Restart(Exception):
    """A filter depends on runtime data while clause ``level`` is unrolled from a range or
    an array: lower the comprehension again with that clause looped over."""

    def __init__(self, level: int) -> None:
        super().__init__(level)
        self.level = level


class _Items(list[Any]):
    """The list a comprehension appends to while it is lowered (not a user's list:
    ``ExternalObjects`` does not count its appends as writes)."""

    hidden = True


class _CompIter(cst.Call):
    """The iterable of a comprehension's ``for`` clause, in the desugared statements."""


class _CompTest(cst.Call):
    """The condition of a comprehension's ``if`` clause, in the desugared statements."""


@dataclass
class _Desugared:
    """A comprehension's statements: ``for``/``if`` nests appending to ``target``."""

    loop: cst.For
    target: str
    levels: int


@dataclass
class _State:
    """One comprehension being lowered: the clauses forced to loop, and how each clause
    of the current attempt iterates (``"py"``: a Python sequence; ``"stream"``: a range or
    array unrolled; ``"loop"``: a loop region)."""

    loop_levels: set[int] = field(default_factory=set)
    modes: dict[int, str] = field(default_factory=dict)


_DESUGARED: dict[int, tuple[cst.CSTNode, _Desugared]] = {}
_INFO: dict[int, tuple[cst.CSTNode, cst.CSTNode, int]] = {}  # synthetic -> (comp, level)


class ComprehensionLowering(LowererAPI):
    """The comprehension and generator half of ``lower.Lowerer`` (module docstring)."""

    # --- comprehensions -----------------------------------------------------------------

    def expr_ListComp(self, e: cst.ListComp, scope: Scope) -> Any:
        return self.comprehension(e, scope)

    def expr_SetComp(self, e: cst.SetComp, scope: Scope) -> Any:
        items = self.comprehension(e, scope)
        if not isinstance(items, list) or any(_runtime(v) for v in items):
            raise self.fail("a set comprehension of values computed at run time is not "
                            "supported", e, "build a list, or an array with np.unique")
        try:
            return set(items)
        except TypeError as exc:
            raise self.fail(f"TypeError: {exc}", e, kind=CompileError) from None

    def expr_DictComp(self, e: cst.DictComp, scope: Scope) -> Any:
        pairs = self.comprehension(e, scope)
        if not isinstance(pairs, list):
            raise self.fail("a dict comprehension over a sequence whose length is known "
                            "only at run time is not supported", e, "iterate over a Python "
                            "list or tuple, or a range of known length")
        out: dict[Any, Any] = {}
        for key, value in pairs:
            if _runtime(key):
                raise self.fail("dict keys must be known when compiling", e.key,
                                "use strings or integers computed from shapes as keys")
            try:
                out[key] = value
            except TypeError as exc:
                raise self.fail(f"TypeError: {exc}", e.key, kind=CompileError) from None
        return out

    def comprehension(self, e: Any, scope: Scope) -> Any:
        """The list a comprehension builds: a Python list when every clause is unrolled,
        else what the loop machinery builds (a runtime list node or a ``TupleList``)."""
        if any(f.asynchronous is not None for f in _clauses(e.for_in)):
            raise self.fail("asynchronous comprehensions cannot be differentiated", e)
        sugar = _desugar(e)
        mark = len(self._write_log())
        state = _State()
        states = self.__dict__.setdefault("_comp_states", {})
        saved = states.get(id(e))
        try:
            while True:
                states[id(e)] = state
                state.modes = {}
                child = Scope(scope, None)
                child.comprehension = e  # (where a walrus binds)
                child.vars[sugar.target] = _Items()
                try:
                    self.compound(sugar.loop, child)
                except _Restart as r:
                    del self._write_log()[mark:]
                    state.loop_levels.add(r.level)
                    continue
                out = child.vars[sugar.target]
                return list(out) if isinstance(out, _Items) else out
        finally:
            if saved is None:
                states.pop(id(e), None)
            else:
                states[id(e)] = saved

    def expr__CompIter(self, e: _CompIter, scope: Scope) -> Any:
        comp, level = _info(e)
        state: _State = self.__dict__["_comp_states"][id(comp)]
        where = e.args[0].value
        it = self.expr(where, scope)
        it = self.generator_items(it, where)
        it = self.tuple_items(it, where)
        items = self._static_items(it, where)
        streamable = not isinstance(it, (list, tuple)) and self._streamable(it, where)
        if items is not None and (len(items) <= MAX_UNROLL or not streamable) and (
                level not in state.loop_levels or not streamable):
            if len(items) > MAX_UNROLL:
                raise self.fail(f"this comprehension would be unrolled into {len(items)} "
                                f"copies (more than {MAX_UNROLL})", where,
                                "use array operations (broadcasting, np.sum over an axis) "
                                "instead of a comprehension over a long Python sequence")
            state.modes[level] = "stream" if streamable else "py"
            return items
        if any(m == "loop" for k, m in state.modes.items() if k < level):
            raise self.fail("a comprehension whose for clauses both iterate over sequences "
                            "whose length is known only at run time is not supported",
                            where, "nest two comprehensions ([[... for b in B] for a in A]) "
                            "or use array operations (broadcasting)")
        state.modes[level] = "loop"
        return it

    def expr__CompTest(self, e: _CompTest, scope: Scope) -> Any:
        comp, level = _info(e)
        state: _State = self.__dict__["_comp_states"][id(comp)]
        where = e.args[0].value
        value = self.expr(where, scope)
        cond = self.condition(value, where)
        if not isinstance(cond, Node):
            return cond
        modes = [state.modes.get(k) for k in range(level + 1)]
        if "loop" in modes:
            return cond  # inside a loop region: the append is flagged
        streams = [k for k in range(level + 1) if modes[k] == "stream"]
        if streams:
            raise _Restart(streams[-1])
        raise self.fail("this comprehension's filter depends on values known only at run "
                        "time, so the number of items is too; over a Python list or tuple "
                        "that is not supported", where, "keep every item and mask instead "
                        "(np.where(cond, value, 0)), or iterate over an array or a range")

    def _static_items(self, it: Any, where: cst.CSTNode) -> list[Any] | None:
        """The items of a sequence whose length is known when compiling, else None."""
        if isinstance(it, (list, tuple, range, str)):
            return list(it)
        if isinstance(it, (dict, set, frozenset, type({}.keys()), type({}.values()),
                           type({}.items()))):
            if any(_runtime(v) for v in cast("Iterable[Any]", it)):
                return None
            return list(it)
        if isinstance(it, _Reversed):
            inner = self._static_items(it.value, where)
            return None if inner is None else inner[::-1]
        if isinstance(it, _Zip):
            parts = [self._static_items(p, where) for p in it.parts]
            if any(p is None for p in parts):
                return None
            return list(zip(*parts))
        if isinstance(it, _Range) or isinstance(it, TupleList):
            return None
        if isinstance(it, Node):
            t = it.type
            if t is not None and t.kind == "array" and t.shape is not None and t.shape:
                if t.shape[0] > MAX_UNROLL:
                    return [None] * t.shape[0]  # only its length matters then
                return [self.emit(Op.GETITEM, [it], {"index": (k,)}, where)
                        for k in range(t.shape[0])]
            return None
        if hasattr(it, "shape") and hasattr(it, "dtype") and getattr(it, "ndim", 0) >= 1:
            return self._static_items(self.to_node(it, where), where)
        return None

    def _streamable(self, it: Any, where: cst.CSTNode) -> bool:
        """Whether the loop machinery can iterate ``it`` as a region."""
        if isinstance(it, (dict, set, frozenset, str)):
            return False
        try:
            return self.streams(it, where) is not None
        except CompileError:
            return False

    # --- generators -----------------------------------------------------------------------

    def dict_view(self, fn: Any, args: list[Any], kwargs: dict[str, Any], e: cst.Call) -> Any:
        """``d.items()``, ``d.keys()``, ``d.values()`` of a dict known when compiling (what
        a comprehension or loop iterates), and ``max``/``min`` of a list of runtime values
        (what a comprehension builds); NotImplemented for any other call."""
        owner = getattr(fn, "__self__", None)
        if type(owner) is dict and getattr(fn, "__name__", "") in ("items", "keys", "values") \
                and not args and not kwargs:
            return list(getattr(owner, fn.__name__)())  # a snapshot: iterated as a list
        if fn in (builtins.max, builtins.min) and len(args) == 1 and not kwargs and \
                isinstance(args[0], (list, tuple)) and _runtime(args[0]):
            items = list(args[0])  # max of a list of runtime scalars: max(a, b) in turn
            if not items:
                raise self.fail(f"ValueError: {fn.__name__}() arg is an empty sequence", e,
                                kind=CompileError)
            for v in items:
                t = v.type if isinstance(v, Node) else None
                if isinstance(v, Node) and (t is None or t.kind not in ("float", "int") and (
                        t.kind != "array" or t.shape != ())):
                    raise self.fail(f"{fn.__name__}() of a list of arrays: Python compares "
                                    "whole arrays (their truth value is ambiguous)", e,
                                    f"np.{fn.__name__}(np.stack(xs)) or np.{fn.__name__}imum",
                                    kind=CompileError)
            acc = items[0]
            for v in items[1:]:
                acc = self.call(fn, [acc, v], {}, e)
            return acc
        if fn is builtins.dict and len(args) == 1 and not kwargs and isinstance(
                args[0], (list, tuple)) and _runtime(args[0]) and all(
                isinstance(p, tuple) and len(p) == 2 and not _runtime(p[0]) for p in args[0]):
            return dict(args[0])  # pairs with keys known when compiling
        if fn in (builtins.any, builtins.all) and len(args) == 1 and not kwargs and \
                isinstance(args[0], (list, tuple)) and _runtime(args[0]):
            out: Any = fn is builtins.all  # any([]) is False, all([]) is True
            for v in args[0]:  # Python's truth value of each item, combined
                c = self.condition(v, e)
                out = self.logical(Op.LOGICAL_AND if fn is builtins.all else Op.LOGICAL_OR,
                                   out, c, e) if isinstance(c, Node) or isinstance(
                    out, Node) else (out and c if fn is builtins.all else out or c)
            return out
        return NotImplemented

def _runtime(v: Any) -> bool:
    return isinstance(v, Node) or isinstance(v, (list, tuple)) and any(_runtime(x) for x in v)


def _clauses(f: cst.CompFor | None) -> list[cst.CompFor]:
    out = []
    while f is not None:
        out.append(f)
        f = f.inner_for_in
    return out


def _info(node: cst.CSTNode) -> tuple[cst.CSTNode, int]:
    synthetic, comp, level = _INFO[id(node)]
    assert synthetic is node
    return comp, level


def _desugar(e: Any) -> _Desugared:
    """``for``/``if`` statements appending each item to a hidden list (cached per node)."""
    hit = _DESUGARED.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1]
    names = _names(e)
    target = next(f"comp{k or ''}" for k in range(len(names) + 1)
                  if f"comp{k or ''}" not in names)
    if isinstance(e, cst.DictComp):
        value: cst.BaseExpression = cst.Tuple([cst.Element(e.key), cst.Element(e.value)])
        synthesize(value, e.key)
        elt: cst.CSTNode = e.key
    else:
        value = e.elt
        elt = e.elt
    call = cst.Call(cst.Attribute(cst.Name(target), cst.Name("append")), [cst.Arg(value)])
    line = cst.SimpleStatementLine([cst.Expr(call)])
    for n in (call, line, line.body[0], call.func):
        synthesize(n, elt)
    body: list[Any] = [line]
    clauses = _clauses(e.for_in)
    for level in range(len(clauses) - 1, -1, -1):
        f = clauses[level]
        for cif in reversed(f.ifs):
            test = _CompTest(cst.Name("comp"), [cst.Arg(cif.test)])
            _INFO[id(test)] = (test, e, level)
            synthesize(test, cif.test)
            stmt: Any = cst.If(test, cst.IndentedBlock(body))
            synthesize(stmt, cif)
            body = [stmt]
        it = _CompIter(cst.Name("comp"), [cst.Arg(f.iter)])
        _INFO[id(it)] = (it, e, level)
        synthesize(it, f.iter)
        stmt = cst.For(f.target, it, cst.IndentedBlock(body))
        synthesize(stmt, f)
        body = [stmt]
    sugar = _Desugared(body[0], target, len(clauses))
    if len(_DESUGARED) > 4096:
        _DESUGARED.clear()  # entries of parsed modules dropped from the parse cache
    _DESUGARED[id(e)] = (e, sugar)
    return sugar


def _names(node: cst.CSTNode) -> set[str]:
    found: set[str] = set()

    class V(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            found.add(n.value)

    node.visit(V())
    return found
