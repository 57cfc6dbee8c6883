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

Generator expressions are evaluated eagerly into a ``GeneratorValue``.  That is Python's
result when nothing can run between the generator's creation and its consumption, or
while it is consumed, that changes what it reads: a generator passed straight to a
consumer (``sum(... for ...)``, ``tuple``, ``max``, ``any``, ``",".join`` ...), iterated by
the ``for`` it is written in, or unpacked where it is made.  A generator stored and
consumed later is accepted when none of the names its body reads is assigned after it in
the function (nor in a loop around it) and nothing was written in place in between;
otherwise the consumption is refused with a location.  A consumed generator is empty, as
in Python.  Generator functions (``yield``) are inlined the same way: their body is
rewritten to append what it yields to a list (``yield from`` extends it), so loops in
them unroll or become regions like any loop, and the call returns a ``GeneratorValue``.
"""

from __future__ import annotations

import builtins
import types
from dataclasses import dataclass, field
from typing import Any

import libcst as cst
import numpy as np

from ..errors import CompileError
from ..ir.graph import Node
from ..ir.ops import Op
from .lists import TupleList
from .loops import _Range, _Reversed, _Zip
from .parse import ParsedFunction, synthesize
from .scope import Closure, Scope

#: a comprehension clause with more items than this is looped over, not unrolled
MAX_UNROLL = 256

#: builtins that consume an iterable argument completely, at once
_CONSUMERS = {builtins.sum, builtins.list, builtins.tuple, builtins.max, builtins.min,
              builtins.any, builtins.all, builtins.dict, builtins.set, builtins.frozenset,
              builtins.sorted, builtins.zip, builtins.enumerate, builtins.len,
              builtins.reversed}
#: NumPy functions that refuse a generator (NumPy raises TypeError, or makes a 0-d
#: object array), with what to write instead
_NUMPY_REFUSES = {np.stack: "np.stack", np.vstack: "np.vstack", np.hstack: "np.hstack",
                  np.column_stack: "np.column_stack", np.concatenate: "np.concatenate",
                  np.array: "np.array", np.asarray: "np.asarray", np.mean: "np.mean",
                  np.prod: "np.prod", np.max: "np.max", np.min: "np.min",
                  np.dstack: "np.dstack", np.sum: "np.sum"}
_MUTATING_METHODS = frozenset({"append", "extend", "insert", "pop", "remove", "clear",
                               "sort", "reverse", "update", "setdefault", "popitem", "add",
                               "discard", "fill", "put", "resize", "itemset", "partition"})


class _Restart(Exception):
    """A filter depends on runtime data while clause ``level`` is unrolled from a range or
    an array: lower the comprehension again with that clause looped over."""

    def __init__(self, level: int) -> None:
        super().__init__(level)
        self.level = level


class _Items(list):
    """The list a comprehension appends to while it is lowered (not a user's list:
    ``ExternalObjects`` does not count its appends as writes)."""

    hidden = True


class _CompIter(cst.Call):
    """The iterable of a comprehension's ``for`` clause, in the desugared statements."""


class _GenIter(cst.Call):
    """The iterable of a ``for`` that yields, in a generator function's rewritten body."""


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


@dataclass(eq=False)
class GeneratorValue:
    """A generator, evaluated eagerly: its items (a Python list, a runtime list node or
    a ``TupleList``), the node that made it, and whether it may be consumed later."""

    items: Any
    node: cst.CSTNode
    where: Any  # the creation's location
    reads: frozenset[str]  # names the lazy part reads from the enclosing function
    fn: ParsedFunction | None  # the function it was made in
    writes: tuple[int, int]  # in-place writes done before it was made
    mutated: bool  # its own evaluation changed a container or an array in place
    consumed: bool = False
    position: int = 0  # items taken by next()


_DESUGARED: dict[int, tuple[cst.CSTNode, _Desugared]] = {}
_INFO: dict[int, tuple[cst.CSTNode, cst.CSTNode, int]] = {}  # synthetic -> (comp, level)


class ComprehensionLowering:
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

    def expr_GeneratorExp(self, e: cst.GeneratorExp, scope: Scope) -> Any:
        before = self._mutations()
        items = self.comprehension(e, scope)
        return GeneratorValue(items, e, self.loc(e), _lazy_reads(e), self.fn, before,
                              self._mutations() != before)

    def comprehension(self, e: Any, scope: Scope) -> Any:
        """The list a comprehension builds: a Python list when every clause is unrolled,
        else what the loop machinery builds (a runtime list node or a ``TupleList``)."""
        if any(f.asynchronous is not None for f in _clauses(e.for_in)):
            raise self.fail("asynchronous comprehensions cannot be differentiated", e)
        sugar = _desugar(e)
        mark = len(self._write_log())  # type: ignore[attr-defined]
        state = _State()
        states = self.__dict__.setdefault("_comp_states", {})
        saved = states.get(id(e))
        try:
            while True:
                states[id(e)] = state
                state.modes = {}
                child = Scope(scope, None)
                child.vars[sugar.target] = _Items()
                try:
                    self.compound(sugar.loop, child)  # type: ignore[attr-defined]
                except _Restart as r:
                    del self._write_log()[mark:]  # type: ignore[attr-defined]
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
        if isinstance(it, GeneratorValue):
            it = self.consume_generator(it, where, direct=where is it.node)
        it = self.tuple_items(it, where)  # type: ignore[attr-defined]
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

    def expr__GenIter(self, e: _GenIter, scope: Scope) -> Any:
        """A generator's loop that yields: unrolled when its length is static (and at
        most ``MAX_UNROLL``), so the generator's items form a Python list."""
        where = e.args[0].value
        it = self.expr(where, scope)
        if isinstance(it, GeneratorValue):
            return it  # for_statement consumes it
        it = self.tuple_items(it, where)  # type: ignore[attr-defined]
        items = self._static_items(it, where)
        if items is not None and len(items) <= MAX_UNROLL:
            return items
        return it

    def expr__CompTest(self, e: _CompTest, scope: Scope) -> Any:
        comp, level = _info(e)
        state: _State = self.__dict__["_comp_states"][id(comp)]
        where = e.args[0].value
        value = self.expr(where, scope)
        cond = self.condition(value, where)  # type: ignore[attr-defined]
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
            if any(_runtime(v) for v in it):
                return None
            return list(it)
        if isinstance(it, _Reversed):
            inner = self._static_items(it.value, where)
            return None if inner is None else inner[::-1]
        if isinstance(it, _Zip):
            parts = [self._static_items(p, where) for p in it.parts]
            if any(p is None for p in parts):
                return None
            return list(zip(*parts))  # type: ignore[misc]
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
            return self.streams(it, where) is not None  # type: ignore[attr-defined]
        except CompileError:
            return False

    # --- generators -----------------------------------------------------------------------

    def _mutations(self) -> tuple[int, int]:
        """How many in-place writes (arrays, static containers) lowering has accepted."""
        return len(self._write_log()), self.external.writes  # type: ignore[attr-defined]

    def consume_generator(self, gen: GeneratorValue, where: cst.CSTNode, direct: bool
                          ) -> Any:
        """The items a generator still yields, marking it consumed.  ``direct``: it is
        consumed where it is made, with nothing run in between."""
        if not direct:
            self._check_late(gen, where)
        if gen.consumed:
            return []
        gen.consumed = True
        items = gen.items
        if gen.position:
            items = items[gen.position:]
        return items

    def for_generator(self, stmt: cst.For, gen: GeneratorValue, scope: Scope) -> None:
        """``for v in g``: the loop over the generator's items, refused when the body
        changes something in place (Python would make the later items after it)."""
        if gen.mutated:
            raise self.fail("a for loop over a generator whose items change a list, dict "
                            "or array in place is not supported", stmt.iter,
                            "build a list first: for v in [... for ...]")
        items = self.consume_generator(gen, stmt.iter, direct=stmt.iter is gen.node)
        before = self._mutations()
        self.for_items(stmt, items, scope)  # type: ignore[attr-defined]
        if self._mutations() != before:
            raise self.fail("this loop changes a list, dict or array in place while it "
                            "iterates over a generator, which Python runs item by item "
                            "between the loop's iterations", stmt.iter,
                            "build a list first: for v in [... for ...]")

    def _check_late(self, gen: GeneratorValue, where: cst.CSTNode) -> None:
        """Refuse consuming a stored generator when Python's lazy evaluation could see
        other values than the eager one did."""
        why = None
        if gen.mutated:
            why = "its items change a list, dict or array in place"
        elif self._mutations()[0] > gen.writes[0] or self._mutations()[1] != gen.writes[1]:
            why = "a list, dict or array was changed in place since it was made"
        elif gen.fn is not None:
            late = _assigned_later(gen.fn.node, gen.node, gen.reads)
            if late:
                why = f"{', '.join(sorted(late))} may be assigned after it was made"
        if why is not None:
            raise self.fail(f"a generator made at line {gen.where.line} is consumed here, "
                            f"later; Python computes its items only now, and {why}", where,
                            "consume the generator where it is made, or build a list "
                            "([... for ...]) instead")

    def generator_call(self, fn: Any, args: list[Any], kwargs: dict[str, Any],
                       e: cst.Call) -> Any:
        """A call with a generator among its arguments: a consumer gets the items; a
        Python function gets the generator; NumPy functions that reject generators are
        refused as NumPy would."""
        gens = [a for a in [*args, *kwargs.values()] if isinstance(a, GeneratorValue)]
        if isinstance(fn, (types.FunctionType, Closure)) or (
                isinstance(fn, types.MethodType) and isinstance(fn.__func__,
                                                                types.FunctionType)):
            return NotImplemented  # inlined: it consumes the generator itself
        name = _NUMPY_REFUSES.get(fn)
        if name is not None:
            raise self.fail(f"{name}() of a generator: NumPy does not iterate generators "
                            "here (it raises TypeError or makes an object array)", e,
                            f"pass a list: {name}([... for ...])", kind=CompileError)
        joins = getattr(fn, "__name__", "") == "join" and isinstance(
            getattr(fn, "__self__", None), str)
        if fn is builtins.len:
            raise self.fail("TypeError: object of type 'generator' has no len()", e,
                            kind=CompileError)
        if fn is builtins.next:
            return self.generator_next(gens[0], args, e)
        if fn in _CONSUMERS or joins:
            direct = {id(a.value) for a in e.args}
            fixed = [self.consume_generator(a, e, id(a.node) in direct)
                     if isinstance(a, GeneratorValue) else a for a in args]
            kws = {k: self.consume_generator(v, e, id(v.node) in direct)
                   if isinstance(v, GeneratorValue) else v for k, v in kwargs.items()}
            if not _runtime(fixed) and not _runtime(list(kws.values())):
                try:  # items known when compiling: Python's own result
                    return fn(*fixed, **kws)
                except Exception as exc:  # noqa: BLE001  (the user's error, located)
                    raise self.fail(f"{type(exc).__name__}: {exc}", e,
                                    kind=CompileError) from None
            return self.call(fn, fixed, kws, e)  # type: ignore[attr-defined]
        what = getattr(fn, "__name__", type(fn).__name__)
        raise self.fail(f"a generator passed to {what}(), which is not known to consume it "
                        "at once", e, "pass a list instead: [... for ...]")

    def generator_next(self, gen: GeneratorValue, args: list[Any], e: cst.Call) -> Any:
        """``next(g)`` and ``next(g, default)`` of a generator of static length."""
        if gen.consumed or not isinstance(gen.items, list):
            raise self.fail("next() of a generator whose length is known only at run "
                            "time, or that was already consumed, is not supported", e,
                            "build a list and index it")
        self._check_late(gen, e)
        if gen.position < len(gen.items):
            gen.position += 1
            return gen.items[gen.position - 1]
        if len(args) > 1:
            return args[1]
        raise self.fail("StopIteration: the generator is exhausted", e, kind=CompileError)

    def dict_view(self, fn: Any, args: list[Any], kwargs: dict[str, Any], e: cst.Call) -> Any:
        """``d.items()``, ``d.keys()``, ``d.values()`` of a dict known when compiling (what
        a comprehension or loop iterates), and ``max``/``min`` of a list of runtime values
        (what a comprehension builds); NotImplemented for any other call."""
        owner = getattr(fn, "__self__", None)
        if type(owner) is dict and getattr(fn, "__name__", "") in ("items", "keys", "values") \
                and not args and not kwargs:
            return getattr(owner, fn.__name__)()
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
                acc = self.call(fn, [acc, v], {}, e)  # type: ignore[attr-defined]
            return acc
        if fn is builtins.dict and len(args) == 1 and not kwargs and isinstance(
                args[0], (list, tuple)) and _runtime(args[0]) and all(
                isinstance(p, tuple) and len(p) == 2 and not _runtime(p[0]) for p in args[0]):
            return dict(args[0])  # pairs with keys known when compiling
        if fn in (builtins.any, builtins.all) and len(args) == 1 and not kwargs and \
                isinstance(args[0], (list, tuple)) and _runtime(args[0]):
            out: Any = fn is builtins.all  # any([]) is False, all([]) is True
            for v in args[0]:  # Python's truth value of each item, combined
                c = self.condition(v, e)  # type: ignore[attr-defined]
                out = self.logical(Op.LOGICAL_AND if fn is builtins.all else Op.LOGICAL_OR,
                                   out, c, e) if isinstance(c, Node) or isinstance(
                    out, Node) else (out and c if fn is builtins.all else out or c)
            return out
        return NotImplemented

    def generator_function(self, fn: ParsedFunction, args: list[Any], kwargs: dict[str, Any],
                           scope: Scope, where: cst.CSTNode | None) -> GeneratorValue:
        """A call of a generator function: its body inlined with every ``yield`` appending
        to a list, which becomes the items of the returned ``GeneratorValue``."""
        if where is None:
            raise CompileError(f"{fn.name}() is a generator function: calling it returns a "
                               "generator, not a value to differentiate",
                               fn.loc(_first_yield(fn.node)),
                               "return a value instead of yielding (sum(...), np.stack(...))")
        node, target = _generator_body(fn.node)  # type: ignore[arg-type]
        body = ParsedFunction(fn.name, node, fn.module, fn.defaults, fn.layout, fn.fixed)
        scope.vars[target] = _Items()
        before = self._mutations()
        caller = self.fn
        items = self.lower_function(body, args, kwargs, scope, where)  # type: ignore[attr-defined]
        if isinstance(items, _Items):
            items = list(items)
        return GeneratorValue(items, where, self.loc(where), _free_reads(fn.node), caller,
                              before, self._mutations() != before)

    def expr_Yield(self, e: cst.Yield, scope: Scope) -> Any:
        raise self.fail("yield inside an expression (a value sent into the generator) is "
                        "not supported", e, "yield in a statement of its own")


def is_generator_function(fn: ParsedFunction) -> bool:
    """Whether ``fn`` is a ``def`` whose own body yields (cached per node)."""
    node = fn.node
    if not isinstance(node, cst.FunctionDef):
        return False
    hit = _GENERATORS.get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1]
    found = []

    class V(cst.CSTVisitor):
        def visit_FunctionDef(self, n: cst.FunctionDef) -> bool:
            return n is node

        def visit_Lambda(self, n: cst.Lambda) -> bool:
            return False

        def visit_Yield(self, n: cst.Yield) -> None:
            found.append(n)

    node.visit(V())
    if len(_GENERATORS) > 4096:
        _GENERATORS.clear()
        _BODIES.clear()
    _GENERATORS[id(node)] = (node, bool(found))
    return bool(found)


_GENERATORS: dict[int, tuple[cst.CSTNode, bool]] = {}
_BODIES: dict[int, tuple[cst.CSTNode, cst.FunctionDef, str]] = {}


def _generator_body(node: cst.FunctionDef) -> tuple[cst.FunctionDef, str]:
    """The generator function's body rewritten: ``yield v`` appends ``v`` to a list,
    ``yield from it`` appends each item of ``it``, and every ``return`` (and the end of
    the body) returns the list.  Rebuilt nodes report their originals' locations."""
    hit = _BODIES.get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1], hit[2]
    names = _names(node)
    target = next(f"yielded{k or ''}" for k in range(len(names) + 1)
                  if f"yielded{k or ''}" not in names)
    item = next(f"item{k or ''}" for k in range(len(names) + 1)
                if f"item{k or ''}" not in names)

    def append(value: cst.BaseExpression | None, origin: cst.CSTNode) -> cst.Expr:
        call = cst.Call(cst.Attribute(cst.Name(target), cst.Name("append")),
                        [cst.Arg(value if value is not None else cst.Name("None"))])
        out = cst.Expr(call)
        for n in (call, call.func, out):
            synthesize(n, origin)
        return out

    class Rewrite(cst.CSTTransformer):
        def visit_FunctionDef(self, n: cst.FunctionDef) -> bool:
            return n is node

        def visit_Lambda(self, n: cst.Lambda) -> bool:
            return False

        def leave_Expr(self, original: cst.Expr, updated: cst.Expr) -> Any:
            y = updated.value
            if not isinstance(y, cst.Yield) or isinstance(y.value, cst.From):
                return updated
            return append(y.value, original)  # type: ignore[arg-type]

        def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine,
                                      updated: cst.SimpleStatementLine) -> Any:
            if not any(isinstance(s, cst.Expr) and isinstance(s.value, cst.Yield) and
                       isinstance(s.value.value, cst.From) for s in updated.body):
                return updated
            out: list[Any] = []
            for s in updated.body:  # ``yield from it``: a loop of its own
                if isinstance(s, cst.Expr) and isinstance(s.value, cst.Yield) and \
                        isinstance(s.value.value, cst.From):
                    line = cst.SimpleStatementLine([append(cst.Name(item), s)])
                    stmt: Any = cst.For(cst.Name(item), s.value.value.item,
                                        cst.IndentedBlock([line]))
                    synthesize(line, s)
                else:
                    stmt = cst.SimpleStatementLine([s])
                synthesize(stmt, s)
                out.append(stmt)
            return cst.FlattenSentinel(out)

        def leave_For(self, original: cst.For, updated: cst.For) -> Any:
            if not _yields(original):
                return updated
            it = _GenIter(cst.Name("iterable"), [cst.Arg(updated.iter)])
            synthesize(it, original.iter)  # a loop that yields unrolls when it can
            return updated.with_changes(iter=it)

        def leave_Return(self, original: cst.Return, updated: cst.Return) -> Any:
            return cst.Return(cst.Name(target))

        def on_leave(self, original: cst.CSTNode, updated: Any) -> Any:
            out = super().on_leave(original, updated)
            if isinstance(out, cst.CSTNode) and out is not original:
                synthesize(out, original)
            return out

    new = node.visit(Rewrite())
    assert isinstance(new, cst.FunctionDef)
    end = cst.SimpleStatementLine([cst.Return(cst.Name(target))])
    synthesize(end, node)
    synthesize(end.body[0], node)
    body = new.body
    stmts = [*body.body, end] if isinstance(body, cst.IndentedBlock) else [
        cst.SimpleStatementLine(list(body.body)), end]
    out = new.with_changes(body=cst.IndentedBlock(stmts))
    synthesize(out, node)
    synthesize(out.body, node)
    if len(_BODIES) > 4096:
        _BODIES.clear()
    _BODIES[id(node)] = (node, out, target)
    # rewritten: a yield left in it (``v = yield x``) is refused where it is
    _GENERATORS[id(out)] = (out, False)
    return out, target


def _yields(node: cst.CSTNode) -> bool:
    """Whether ``node`` contains a ``yield`` outside nested functions."""
    return _first_yield(node) is not node


def _first_yield(node: cst.CSTNode) -> cst.CSTNode:
    """The first ``yield`` in ``node`` outside nested functions (``node`` if none)."""
    found: list[cst.CSTNode] = []

    class V(cst.CSTVisitor):
        def visit_FunctionDef(self, n: cst.FunctionDef) -> bool:
            return False

        def visit_Lambda(self, n: cst.Lambda) -> bool:
            return False

        def visit_Yield(self, n: cst.Yield) -> None:
            found.append(n)

    body = node.body if isinstance(node, cst.FunctionDef) else node
    body.visit(V())
    return found[0] if found else node


def _free_reads(node: cst.FunctionDef) -> frozenset[str]:
    """Names a generator function's body reads, less its parameters."""
    ps = node.params
    params = {p.name.value for p in (*ps.posonly_params, *ps.params, *ps.kwonly_params)}
    for p in (ps.star_arg, ps.star_kwarg):
        if isinstance(p, cst.Param):
            params.add(p.name.value)
    return frozenset(_names(node.body) - params)


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


def _lazy_reads(e: cst.GeneratorExp) -> frozenset[str]:
    """Names a generator expression reads when it runs (all but its first iterable)."""
    clauses = _clauses(e.for_in)
    found = _names(e.elt)
    for k, f in enumerate(clauses):
        if k:
            found |= _names(f.iter)
        for cif in f.ifs:
            found |= _names(cif.test)
    local: set[str] = set()
    for f in clauses:
        local |= _names(f.target)
    return frozenset(found - local)


def _assigned_later(fn: cst.CSTNode, gen: cst.CSTNode, names: frozenset[str]) -> set[str]:
    """The ``names`` a statement after ``gen`` (or in a loop around it) assigns, writes
    into (``x[i] = ...``, ``x += ...``) or calls a changing method on."""
    hits: set[str] = set()
    state = {"after": False}
    loops: list[cst.CSTNode] = []
    around: list[cst.CSTNode] = []

    def note(name: str) -> None:
        if name in names and (state["after"] or any(loop in around for loop in loops)):
            hits.add(name)

    class V(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if node is gen:
                state["after"] = True
                around.extend(loops)
                return False
            if isinstance(node, (cst.For, cst.While)):
                loops.append(node)
            if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
                _target_bases(node.target, note)
            if isinstance(node, cst.For):
                _target_bases(node.target, note)
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
                    isinstance(node.func.value, cst.Name) and \
                    node.func.attr.value in _MUTATING_METHODS:
                note(node.func.value.value)
            return True

        def on_leave(self, node: cst.CSTNode) -> None:
            if loops and node is loops[-1]:
                loops.pop()

    fn.visit(V())
    if around:  # a loop around it runs its statements before the generator again
        state["after"] = True
        for loop in around:
            loops[:] = [loop]
            around[:] = [loop]
            loop.visit(V())
    return hits


def _target_bases(t: cst.BaseExpression, note: Any) -> None:
    if isinstance(t, cst.Name):
        note(t.value)
    elif isinstance(t, (cst.Tuple, cst.List)):
        for el in t.elements:
            _target_bases(el.value, note)
    elif isinstance(t, (cst.Subscript, cst.Attribute)):
        _target_bases(t.value, note)
    elif isinstance(t, cst.StarredElement):
        _target_bases(t.value, note)
