"""Generator expressions and generator functions for ``lower`` (mixed into ``Lowerer``).

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
import functools
import math
import types
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import libcst as cst
import numpy as np

from ..errors import CompileError
from .comprehensions import MAX_UNROLL, _clauses, _Items, _names, _runtime
from .generator_reads import reads_immutable
from .parse import ParsedFunction, synthesize
from .scope import Closure, Scope

if TYPE_CHECKING:
    from .lowering_api import LowererAPI
else:
    LowererAPI = object  # the shared interface exists for the type checker only

#: builtins that consume an iterable argument completely, at once
_CONSUMERS = {builtins.sum, builtins.list, builtins.tuple, builtins.max, builtins.min,
              builtins.any, builtins.all, builtins.dict, builtins.set, builtins.frozenset,
              builtins.sorted, builtins.zip, builtins.enumerate, builtins.len,
              builtins.reversed, functools.reduce, math.prod, math.fsum}


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


class _GenIter(cst.Call):
    """The iterable of a ``for`` that yields, in a generator function's rewritten body."""


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
    builder: Any = None  # the graph builder (region) it was made in
    #: it reads only immutable static values (its first iterable included), so no
    #: in-place write can change what it yields
    unaffected: bool = False


class GeneratorLowering(LowererAPI):
    """The generator half of ``lower.Lowerer`` (see the module docstring)."""

    def generator_items(self, it: Any, where: cst.CSTNode) -> Any:
        """``it``, or the items of a generator a comprehension's clause iterates."""
        if isinstance(it, GeneratorValue):
            return self.consume_generator(it, where, direct=where is it.node)
        return it

    def expr_GeneratorExp(self, e: cst.GeneratorExp, scope: Scope) -> Any:
        before = self._mutations()
        unaffected = reads_immutable(e, scope)
        items = self.comprehension(e, scope)
        return GeneratorValue(items, e, self.loc(e), _lazy_reads(e), self.fn, before,
                              self._mutations() != before, builder=self.b,
                              unaffected=unaffected)

    def _mutations(self) -> tuple[int, int]:
        """How many in-place writes (arrays, static containers) lowering has accepted."""
        return len(self._write_log()), self.external.writes

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
        self.for_items(stmt, items, scope)
        if self._mutations() != before and not gen.unaffected:
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
        elif self.b is not gen.builder:  # each branch (or loop pass) would consume it
            why = "it is consumed inside an if or a loop that the generator is not in"
        elif not gen.unaffected and (self._mutations()[0] > gen.writes[0]
                                     or self._mutations()[1] != gen.writes[1]):
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
            if not _runtime(fixed) and not _runtime(list(kws.values())) and not any(
                    isinstance(v, Closure) for v in [*fixed, *kws.values()]):
                try:  # items known when compiling: Python's own result
                    return fn(*fixed, **kws)
                except Exception as exc:  # noqa: BLE001  (the user's error, located)
                    raise self.fail(f"{type(exc).__name__}: {exc}", e,
                                    kind=CompileError) from None
            return self.call(fn, fixed, kws, e)
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

    def generator_function(self, fn: ParsedFunction, args: list[Any], kwargs: dict[str, Any],
                           scope: Scope, where: cst.CSTNode | None) -> GeneratorValue:
        """A call of a generator function: its body inlined with every ``yield`` appending
        to a list, which becomes the items of the returned ``GeneratorValue``."""
        assert isinstance(fn.node, cst.FunctionDef)  # (is_generator_function)
        if where is None:
            raise CompileError(f"{fn.name}() is a generator function: calling it returns a "
                               "generator, not a value to differentiate",
                               fn.loc(_first_yield(fn.node)),
                               "return a value instead of yielding (sum(...), np.stack(...))")
        endless = _endless_loop(fn.node)
        if endless is not None:
            raise CompileError(f"{fn.name}() is a generator that never ends (a while loop "
                               "on a constant true test, with no break or return): the "
                               "compiler collects every item of a generator when it is "
                               "called", fn.loc(endless), "give the loop an end (a count, a "
                               "break), or build a list of the items you need")
        node, target = _generator_body(fn.node)
        body = ParsedFunction(fn.name, node, fn.module, fn.defaults, fn.layout, fn.fixed)
        scope.vars[target] = _Items()
        before = self._mutations()
        caller = self.fn
        items = self.lower_function(body, args, kwargs, scope, where)
        if isinstance(items, _Items):
            items = list(items)
        return GeneratorValue(items, where, self.loc(where), _free_reads(fn.node), caller,
                              before, self._mutations() != before, builder=self.b)

    def expr__GenIter(self, e: _GenIter, scope: Scope) -> Any:
        """A generator's loop that yields: unrolled when its length is static (and at
        most ``MAX_UNROLL``), so the generator's items form a Python list."""
        where = e.args[0].value
        it = self.expr(where, scope)
        if isinstance(it, GeneratorValue):
            return it  # for_statement consumes it
        it = self.tuple_items(it, where)
        items = self._static_items(it, where)
        if items is not None and len(items) <= MAX_UNROLL:
            return items
        return it

    def expr_Yield(self, e: cst.Yield, scope: Scope) -> Any:
        raise self.fail("yield inside an expression (a value sent into the generator) is "
                        "not supported", e, "yield in a statement of its own")


def _endless_loop(fn: cst.FunctionDef) -> cst.While | None:
    """A ``while True:`` (any constant true test) of the generator ``fn`` that nothing
    leaves: no ``break`` of its own, no ``return`` (nested functions aside), else None."""
    found: list[cst.While] = []

    class Exits(cst.CSTVisitor):
        def __init__(self) -> None:
            self.exits = False
            self.depth = 0  # loops nested in the while: their breaks are theirs

        def visit_FunctionDef(self, n: cst.FunctionDef) -> bool:
            return False

        def visit_Lambda(self, n: cst.Lambda) -> bool:
            return False

        def visit_For(self, n: cst.For) -> None:
            self.depth += 1

        def leave_For(self, n: cst.For) -> None:
            self.depth -= 1

        def visit_While(self, n: cst.While) -> None:
            self.depth += 1

        def leave_While(self, n: cst.While) -> None:
            self.depth -= 1

        def visit_Break(self, n: cst.Break) -> None:
            if self.depth == 0:
                self.exits = True

        def visit_Return(self, n: cst.Return) -> None:
            self.exits = True

        def visit_Raise(self, n: cst.Raise) -> None:
            self.exits = True

    class V(cst.CSTVisitor):
        def visit_FunctionDef(self, n: cst.FunctionDef) -> bool:
            return n is fn

        def visit_While(self, n: cst.While) -> None:
            test = n.test
            true = isinstance(test, cst.Name) and test.value == "True" or isinstance(
                test, cst.Integer) and int(test.value, 0) != 0
            if not true or found:
                return
            v = Exits()
            n.body.visit(v)
            if not v.exits:
                found.append(n)

    fn.visit(V())
    return found[0] if found else None


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
            return append(y.value, original)

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
        cst.SimpleStatementLine(list(cast(cst.SimpleStatementSuite, body).body)), end]
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
    """Names a generator function's body reads, less its parameters and its locals."""
    ps = node.params
    params = {p.name.value for p in (*ps.posonly_params, *ps.params, *ps.kwonly_params)}
    for p in (ps.star_arg, ps.star_kwarg):
        if isinstance(p, cst.Param):
            params.add(p.name.value)
    from .loops import _assigned  # noqa: PLC0415  (loops imports lowering helpers)

    local, _ = _assigned(list(node.body.body))  # its own locals: never the caller's names
    return frozenset(_names(node.body) - params - local)


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
