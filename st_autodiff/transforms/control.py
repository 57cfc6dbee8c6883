"""Statements with control flow for ``lower``: ``if``, ``for``, ``while`` as regions.

``ControlLowering`` is mixed into ``lower.Lowerer``.  A condition known when the
function is compiled (it depends on shapes or integer arguments) picks its branch here,
as Python would; a condition on runtime values becomes an ``if`` node whose branches are
sub-graphs.  Loops over a range, an array, a runtime list or a ``zip``/``enumerate`` of
them become ``for`` nodes; ``while`` loops become ``while`` nodes; a loop over a Python
list or tuple (whose items may differ in shape) is unrolled.

``return``, ``break`` and ``continue`` set flags in the scope (``#ret``, ``#brk``,
``#cont``); the statements after one that may have run only at run time are lowered as
the ``then`` branch of an ``if`` on "nothing stopped us", so every region is structured.
Variables a region changes become its outputs (branches) or carried values (loops).
Loops themselves are ``loops.LoopLowering``; lists they build, ``lists.ListLowering``.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import libcst as cst
import numpy as np

from ..errors import CompileError, StaticRaiseError, UnsupportedSyntaxError
from ..ir import kernels, scalar_kinds
from ..ir.abstract import is_abstract
from ..ir.graph import GraphBuilder, Node
from ..ir.ops import Op
from ..ir.types import type_module
from . import aliases, small_ops, static_conditions, static_stmts
from .aliasing import changed_object_container, object_containers
from .list_arguments import ufunc_list_arguments
from .lists import Appender, ListLowering, TupleList
from .loops import (
    LoopLowering,
    _at,
    _container,
    _paths,
    _Range,
    _rebuild,
    _Reversed,
    _structure,
    _WhileGuard,
    _Zip,
)
from .scope import (
    FLAGS,
    MAYBE_DELETED,
    MISSING,
    RAISED,
    Closure,
    Deleted,
    Diverged,
    Scope,
    StaticIterator,
    copy_value,
    key_name,
    rebind_closures,
    restore_closures,
    visible_name,
)

if TYPE_CHECKING:
    from .lower import Lowerer

_LIST_KERNELS = {op.value: op for op in (
    Op.LIST_ZEROS, Op.LIST_ADD, Op.LIST_SUM, Op.LIST_UNSTACK, Op.LIST_INDEX_ADD,
    Op.LIST_GATHER, Op.LIST_UNGATHER, Op.LIST_SPLIT_LIKE)}


class ControlLowering(LoopLowering, ListLowering):
    """The control-flow half of ``lower.Lowerer`` (see the module docstring)."""

    region_depth = 0

    # --- statement sequences with flags ---------------------------------------------

    def run_stmts(self, stmts: Any, scope: Scope) -> None:
        """Lower statements in order until one stops the sequence (return, break,
        continue); after one that may stop it at run time, the rest is guarded."""
        stmts = list(stmts)
        for k, stmt in enumerate(stmts):
            try:
                self.compound(stmt, scope)
            except StaticRaiseError as err:
                if getattr(err, "builder", None) is not self.b or \
                        static_stmts.on_static_path(cast("Lowerer", self)):
                    raise
                self.raise_at_run_time(err, stmt, scope)
                return  # the rest is never reached (and may read what stmt did not bind)
            state = self.flow_state(scope, stmt)
            if state is True:
                return
            if isinstance(state, Node):
                rest = stmts[k + 1:]
                if rest:
                    self.guarded(state, lambda sc, rest=rest: self.run_stmts(rest, sc),  # type: ignore[misc]  # lambda with defaults
                                 scope, stmt)
                return

    def raise_at_run_time(self, err: StaticRaiseError, stmt: cst.CSTNode, scope: Scope
                          ) -> None:
        """A statement that fails while compiling (``x.shape[1]`` of a 1-d ``x``) under
        a runtime condition or in a loop body raises only if the compiled code gets
        there, as Python does (an ``if`` on data may never take the branch): the
        exception becomes a raise of the compiled code, like a ``raise`` statement in
        that branch, and the rest of the block is never reached."""
        from .effects import emit_raise  # noqa: PLC0415  (effects imports the lowering)

        exc = err.exception
        emit_raise(cast("Lowerer", self), type(exc), list(exc.args), stmt)
        scope.raised = True

    def guarded(self, stopped: Node, fn: Callable[[Scope], None], scope: Scope,
                where: cst.CSTNode) -> None:
        """Run ``fn`` under ``if not stopped``.  Inside, every flag that is only known at
        run time is known to be False; on the other side, a lone such flag is True (so
        ``if c: return a`` then ``return b`` returns on every path)."""
        runtime = [f for f in FLAGS if isinstance(scope.vars.get(f), Node)]

        def then_fn(sc: Scope) -> None:
            for f in runtime:
                sc.vars[f] = False
            fn(sc)

        def else_fn(sc: Scope) -> None:
            if len(runtime) == 1:
                sc.vars[runtime[0]] = True

        go_on = self.emit(Op.LOGICAL_NOT, [stopped], None, where)
        self.branch(go_on, then_fn, else_fn, scope, where)

    def flow_state(self, scope: Scope, where: cst.CSTNode) -> Any:
        """True when a flag is set for sure, a bool node when only at run time."""
        runtime = []
        for f in FLAGS:
            v = scope.vars.get(f, False)
            if isinstance(v, Node):
                runtime.append(v)
            elif v:
                return True
        if not runtime:
            return False
        out = runtime[0]
        for v in runtime[1:]:
            out = self.emit(Op.LOGICAL_OR, [out, v], None, where)
        return out

    def compound(self, stmt: Any, scope: Scope) -> None:
        """One statement line or compound statement."""
        if isinstance(stmt, cst.If):
            self.if_statement(stmt, scope)
        elif isinstance(stmt, cst.For):
            self.for_statement(stmt, scope)
        elif isinstance(stmt, cst.While):
            self.while_statement(stmt, scope)
        elif isinstance(stmt, cst.FunctionDef):
            self.define(stmt, scope)
        elif isinstance(stmt, cst.With):
            from .with_blocks import with_statement  # noqa: PLC0415  (it lowers the body)

            with_statement(cast("Lowerer", self), stmt, scope)
        elif isinstance(stmt, _WhileGuard):
            self.statement(stmt, scope)
        elif isinstance(stmt, (cst.Try, cst.TryStar, cst.ClassDef)):
            static_stmts.statement(cast("Lowerer", self), stmt, scope)
        elif isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in stmt.body:
                self.statement(small, scope)
                if self.flow_state(scope, small) is not False:
                    return
        else:
            raise self.fail(f"{type(stmt).__name__} statements are not supported", stmt)

    @staticmethod
    def suite(block: Any) -> list[Any]:
        """The statements of an indented block or a one-line suite."""
        if isinstance(block, cst.SimpleStatementSuite):
            return [block]
        return list(block.body)

    # --- builtins that build what a loop iterates -------------------------------------

    def zip_items(self, z: Any, e: cst.Call) -> list[Any] | None:
        """The tuples a ``zip``/``enumerate`` of sequences whose lengths are known while
        compiling gives (a runtime array: its rows), or None."""
        parts: list[Any] = []
        for p in z.parts:
            if isinstance(p, _Zip):
                p = self.zip_items(p, e)
            elif isinstance(p, _Reversed):
                inner = p.value
                inner = small_ops.rows_of(cast("Lowerer", self), inner, e) if isinstance(
                    inner, Node) else inner
                p = list(reversed(inner)) if isinstance(inner, (list, tuple, range)) \
                    else None
            elif isinstance(p, Node):
                p = small_ops.rows_of(cast("Lowerer", self), p, e)
            if not isinstance(p, (list, tuple, range, str)):
                return None
            parts.append(p)
        return list(zip(*parts))

    def control_call(self, fn: Any, args: list[Any], kwargs: dict[str, Any],
                     e: cst.Call) -> Any:
        """``range``/``zip``/``enumerate``/``reversed`` for loops, list appends and the
        list functions; ``NotImplemented`` for every other call."""
        if any(type(a).__name__ == "GeneratorValue" for a in [*args, *kwargs.values()]):
            done = self.generator_call(fn, args, kwargs, e)  # comprehensions.py
            if done is not NotImplemented:
                return done
        view = self.dict_view(fn, args, kwargs, e)  # comprehensions.py: d.items() of a static d
        if view is not NotImplemented:
            return view
        done = small_ops.iterator_call(cast("Lowerer", self), fn, args, kwargs,
                                       e)  # iter/next, sets
        if done is NotImplemented:
            done = small_ops.operator_call(cast("Lowerer", self), fn, args, kwargs, e)
        if done is not NotImplemented:
            return done
        owner = getattr(fn, "__self__", None)
        if isinstance(owner, Appender) and getattr(fn, "__name__", "") == "append":
            raise self.fail(f"{owner.name}.append(...) inside an expression is not "
                            "supported", e, "append in a statement of its own")
        if isinstance(owner, list) and getattr(fn, "__name__", "") == "append":
            self.external.check_write(owner, "append to", self.loc(e))
            owner.append(args[0])
            return None
        dynamic = any(isinstance(a, Node) for a in args)
        if fn is builtins.slice and dynamic:
            return slice(*args)  # rt.setitem(a, v, (i, slice(k, None, None))) in our code
        if fn is builtins.range and dynamic:
            if kwargs or not 1 <= len(args) <= 3:
                raise self.fail("range() takes 1 to 3 positional arguments", e,
                                kind=CompileError)
            bounds = [self.int_bound(a, e) for a in args]
            start, stop, step = ((0, bounds[0], 1) if len(bounds) == 1 else
                                 (bounds[0], bounds[1], bounds[2] if len(bounds) == 3 else 1))
            return _Range(start, stop, step)
        if fn is builtins.zip and not kwargs:
            if all(isinstance(a, (list, tuple)) for a in args):
                return list(zip(*args))
            return _Zip(list(args))
        if fn is builtins.enumerate:
            it = args[0]
            start = kwargs.get("start", args[1] if len(args) > 1 else 0)
            if isinstance(it, (list, tuple)):
                return list(enumerate(it, start))
            n = self.sequence_length(it, e)
            count: Any = range(start, start + n) if isinstance(n, int) else _Range(
                start, self.binary(Op.ADD, n, start, e) if start else n, 1)
            return _Zip([count, it])
        if fn is builtins.list and len(args) == 1 and isinstance(args[0], _Reversed) and \
                isinstance(args[0].value, Node):  # list(reversed(xs)) of a runtime list
            return self.emit(Op.LIST_REVERSE, [args[0].value], None, e)
        if fn is builtins.reversed:
            it = args[0]
            if isinstance(it, (list, tuple)):
                return list(reversed(it))
            return _Reversed(it)
        if fn in (builtins.list, builtins.tuple, builtins.dict) and len(args) == 1 and \
                not kwargs and isinstance(args[0], _Zip):  # dict(zip(names, theta))
            items = self.zip_items(args[0], e)
            if items is not None:
                return fn(items)
        list_op = _LIST_KERNELS.get(getattr(fn, "__name__", None)) if getattr(
            fn, "__module__", "") == kernels.__name__ else None
        if list_op is not None:  # rt.list_* in generated code, differentiated again
            return self.emit(list_op, list(args), dict(kwargs) or None, e)
        if any(isinstance(a, Appender) for a in args) or isinstance(fn, Appender):
            raise self.fail("a list that the loop appends to can only be read after the "
                            "loop", e, "keep the last value in a variable of its own")
        lst = args[0] if args else None
        if isinstance(lst, TupleList):
            return self.tuple_list_call(fn, lst, args, e)
        if isinstance(lst, Node) and lst.type is not None and lst.type.kind == "list":
            if fn is builtins.len:
                return self.emit(Op.LIST_LEN, [lst], None, e)
            if fn is builtins.sum and len(args) == 1 and not kwargs:  # (start=: a refusal)
                return self.emit(Op.LIST_SUM, [lst], None, e)
            if fn in (np.stack, np.array, np.asarray):
                return self.emit(Op.LIST_STACK, [lst], {"axis": kwargs.get("axis", 0)}, e)
            if fn is np.concatenate and len(args) == 1 and set(kwargs) <= {"axis"}:
                return self.emit(Op.LIST_CATENATE, [lst], {"axis": kwargs.get("axis", 0)}, e)
            if fn is np.sum and len(args) == 1:
                return self.emit(Op.SUM, [self.emit(Op.LIST_STACK, [lst], None, e)], None, e)
            if fn is np.mean and len(args) == 1:
                stacked = self.emit(Op.LIST_STACK, [lst], None, e)
                return self.emit(Op.MEAN, [stacked], None, e)
            if isinstance(fn, np.ufunc):  # NumPy converts the list: np.asarray(xs)
                return self.call(fn, ufunc_list_arguments(self, args, e), kwargs, e)
            raise self.fail(f"{getattr(fn, '__name__', 'this function')}() of a list built "
                            "at run time is not supported", e,
                            "use np.stack(xs), np.concatenate(xs), sum(xs), len(xs) or xs[k]")
        return NotImplemented

    def example(self, v: Any) -> Any:
        """The example value of ``v`` (a node of this builder or an enclosing one)."""
        if not isinstance(v, Node):
            return v
        if v.op is Op.CONST:
            return v.param("value")
        if v in self.b.values:
            return self.b.values[v]
        return self.b._outer_values.get(v)

    def int_bound(self, v: Any, where: cst.CSTNode) -> Any:
        """A range bound: a Python int or an integer node."""
        if isinstance(v, Node) and v.op is Op.CONST:
            v = v.param("value")  # folded at compile time (from shapes, int arguments)
        if isinstance(v, Node):
            t = v.type
            if t is not None and (t.kind not in ("int", "array") or t.kind == "array" and
                                  not (t.dtype or "").startswith(("int", "uint"))):
                raise self.fail(f"range() needs integers, got a {t} value", where,
                                "convert with int(...)")
            return v
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.fail(f"range() needs integers, got {type(v).__name__}", where,
                            kind=CompileError)
        return v

    def sequence_length(self, it: Any, where: cst.CSTNode) -> Any:
        s = self.streams(it, where)
        if s is None:
            return len(it)
        return self.stream_length(s[0], where)

    # --- if ---------------------------------------------------------------------------

    def if_statement(self, stmt: cst.If, scope: Scope) -> None:
        cond = self.condition(self.expr(stmt.test, scope), stmt.test)
        # constants only: decided now
        cond = static_conditions.fold(cast("Lowerer", self), cond, stmt.test)
        orelse = stmt.orelse
        if isinstance(orelse, cst.If):
            other: Any = [orelse]
        elif isinstance(orelse, cst.Else):
            other = self.suite(orelse.body)
        else:
            other = []
        then = self.suite(stmt.body)
        if not isinstance(cond, Node):
            self.run_stmts(then if cond else other, scope)
            return
        self.branch(cond, lambda sc: self.run_stmts(then, sc),
                    (lambda sc: self.run_stmts(other, sc)) if other else None, scope, stmt)

    def condition(self, v: Any, where: cst.CSTNode) -> Any:
        """A condition as a Python bool or a scalar boolean node."""
        if not isinstance(v, Node):
            return bool(v)
        if v.op is Op.CONST and isinstance(v.param("value"), (bool, int, tuple, str)):
            return bool(v.param("value"))  # folded from shapes or int arguments
        t = v.type
        if t is not None and t.kind == "array" and t.shape not in (None, ()):
            raise self.fail(f"the truth value of an array of shape {t.shape} is ambiguous",
                            where, "reduce it first: (x > 0).any(), (x > 0).all(), "
                            "x.sum() > 0")
        if t is not None and t.kind == "list":  # a list is true when it is not empty
            return self.emit(Op.GT, [self.emit(Op.LIST_LEN, [v], None, where), 0], None, where)
        if t is None or (t.dtype != "bool" and t.kind != "bool"):
            v = self.emit(Op.NE, [v, 0], None, where)
        return v

    def branch(self, cond: Node, then_fn: Callable[[Scope], None],
               else_fn: Callable[[Scope], None] | None, scope: Scope,
               where: cst.CSTNode) -> None:
        """Lower both branches as sub-graphs and bind what they change to the outputs of
        one ``if`` node."""
        before = dict(scope.vars)
        taken = self.example(cond)
        # a runtime condition: either branch may run (the data is never read to choose)
        unknown = isinstance(cond, Node) and self.b.is_abstract(cond) or is_abstract(taken)
        results = []
        for fn, side in ((then_fn, True), (else_fn, False)):
            soft = unknown or taken is not None and bool(taken) != side
            sub, vars_ = self.in_region(f"{self.b.name}_{'then' if side else 'else'}",
                                        soft, scope, before, fn, where)
            results.append((sub, vars_))
        raised = [v.pop(RAISED, False) for _, v in results]
        if all(raised):
            scope.raised = True  # (every way on raises)
        elif any(raised):  # the join is the other branch's state: the raising one stops
            _stop(results[raised.index(True)][1], results[raised.index(False)][1], before)
        names = sorted({k for _, v in results for k in v
                        if not _same(v.get(k, MISSING), before.get(k, MISSING))}
                       | {k for k in before if any(k not in v for _, v in results)})
        outs: list[Any] = []
        dict_names: list[str] = []
        path_names: list[str] = []  # containers merged value by value (_merged)
        returned = [v.get("#ret") is True for _, v in results]
        for k in names:
            a, b = (v.get(k, MISSING) for _, v in results)
            if not k.startswith("#") and returned[0] != returned[1]:
                # a branch certainly returned: nothing reads its names after the if (the
                # code after runs under "not returned"), so they keep the values before
                if returned[0]:
                    a = before.get(k, MISSING)
                else:
                    b = before.get(k, MISSING)
            if not k.startswith("#") and all(returned) and not _same(a, b):
                scope.vars[k] = Diverged(k, (a, b))  # both returned: read by no one after
                continue
            merged = _merged(k, a, b)
            if merged is not None:  # one output per value of the container that differs
                results[0][1][k], results[1][1][k] = merged
                for path in _paths(merged[0]):
                    if not _same(_at(merged[0], path), _at(merged[1], path)):
                        outs.append(_PathOut(k, path))
                path_names.append(k)
                continue
            if k not in before and MISSING in (a, b) and any(
                    isinstance(v, (list, dict, TupleList)) for v in (a, b)):
                scope.vars.pop(k, None)  # a list or dict one branch made for its own use
                continue
            if not _same(a, b) and (isinstance(a, Deleted) or isinstance(b, Deleted)):
                scope.vars[k] = MAYBE_DELETED  # ``del`` in one branch: a read is refused
                continue
            if _same(a, b):
                if a is MISSING:
                    scope.vars.pop(k, None)
                else:
                    scope.vars[k] = a
                continue
            if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys() and \
                    not any(isinstance(v, (dict, list)) for v in [*a.values(), *b.values()]):
                for key in a:  # one output per key the branches set differently
                    if not _same(a[key], b[key]):
                        outs.append((k, key))
                dict_names.append(k)
                continue
            if not (_carried(a) and _carried(b)) and not any(
                    isinstance(v, (list, dict, Appender, TupleList)) for v in (a, b)):
                scope.vars[k] = Diverged(k, (a, b))  # refused only where it is read
                continue
            for v in (a, b):
                if isinstance(v, (list, Appender)):
                    what = "the list made by this conditional expression" if \
                        k.startswith("#ifexp") else f"the list {k!r}"
                    raise self.fail(f"{what} is changed inside an if whose "
                                    "condition is only known at run time", where,
                                    "append in every iteration, outside the if")
                if isinstance(v, dict):
                    raise self.fail(f"the dict {k!r} is changed inside an if whose "
                                    "condition is only known at run time", where,
                                    "give it the same keys in both branches")
                if isinstance(v, set):
                    raise self.fail(f"the set {k!r} is changed inside an if whose "
                                    "condition is only known at run time", where,
                                    "make the same changes in both branches")
                if isinstance(v, StaticIterator):
                    raise self.fail(f"the iterator {k!r} is advanced inside an if whose "
                                    "condition is only known at run time", where,
                                    "index the sequence instead of calling next()")
            outs.append(k)
        graphs = []
        for sub, vars_ in results:
            values = []
            for k in outs:
                v = vars_.get(k, MISSING) if isinstance(k, str) else _at(
                    vars_[k.name], k.path) if isinstance(k, _PathOut) else vars_[k[0]][k[1]]
                if v is MISSING:  # an append site's flag is False where it did not run
                    flag = isinstance(k, str) and k.startswith("#apf")
                    values.append(sub.const(False if flag else None))
                elif isinstance(v, Closure) and isinstance(k, str):
                    raise self.fail(f"{visible_name(k) or k!r} is a function (a lambda or "
                                    "def) that an if or a loop on data may or may not "
                                    "define; they carry arrays and numbers, not functions",
                                    where, "define it before the branch or loop, with the "
                                    "values it reads as parameters")
                else:
                    values.append(self.node_in(sub, v, where))
            graphs.append((sub, values))
        union = _union_captures([s for s, _ in graphs])
        finished = [self.finish_region(sub, values, union) for sub, values in graphs]
        for sub, _ in graphs:
            self.b.values.update(sub.values)  # bodies keep their example values
        node = self.emit(Op.IF, [cond, *union], {"then": finished[0], "orelse": finished[1]},
                         where)
        for name in dict_names:  # the branches worked on copies: start from one side's
            scope.vars[name] = copy_value(results[0][1][name])  # (a defaultdict stays one)
        merged_values: dict[str, dict[tuple[Any, ...], Any]] = {
            k: {p: _at(results[0][1][k], p) for p in _paths(results[0][1][k])}
            for k in path_names}
        for pos, name in enumerate(outs):
            item = self.b.emit(Op.ITEM, [node], {"index": pos}, loc=self.loc(where))
            if isinstance(name, _PathOut):
                merged_values[name.name][name.path] = item
                if any(_at(v[name.name], name.path) is None for _, v in results):
                    self.maybe_none.add(item)
                continue
            if not isinstance(name, str):
                dname, key = name
                scope.vars[dname][key] = item if isinstance(key, int) else \
                    self.b.rename(item, key_name(visible_name(dname) or dname.lstrip("#"),
                                                 key))
                continue
            visible = visible_name(name)
            scope.vars[name] = item if visible is None else self.b.rename(item, visible)
            if any(self.may_be_none(v.get(name, MISSING)) for _, v in results):
                self.maybe_none.add(scope.vars[name])
        for name in path_names:
            scope.vars[name] = _rebuild(results[0][1][name], merged_values[name])

    def may_be_none(self, v: Any) -> bool:
        """Whether ``v`` (a value a path leaves in a name) is, or may be, ``None`` when
        the compiled code runs: ``None`` itself, an unbound name, a node of type none, or
        a region output that is ``None`` on some path."""
        if v is None or v is MISSING:
            return True
        return isinstance(v, Node) and (v.type is not None and v.type.kind == "none" or
                                        v in self.maybe_none)

    def in_region(self, name: str, soft: bool, scope: Scope, before: dict[str, Any],
                  fn: Callable[[Scope], None] | None, where: cst.CSTNode
                  ) -> tuple[GraphBuilder, dict[str, Any]]:
        """Lower ``fn`` into a fresh body builder over a copy of the scope.  A dict or
        list the branch changes in place (not rebinds) must not be held elsewhere too
        (``check_container_unshared``): the if would change only this name's values."""
        sub = self.b.body(name, soft)
        aliases.mark_branch(sub)  # its names become the if's outputs (``aliases``)
        sc = Scope(scope.parent, scope.outer)
        sc.vars = {k: copy_value(v) for k, v in before.items()}
        rebound = rebind_closures(sc, scope)
        copies = {k: v for k, v in sc.vars.items() if isinstance(v, (dict, list)) and
                  not k.startswith("#")}
        held = object_containers(self, before.values())
        if fn is not None:
            with self.building(sub):
                fn(sc)
        restore_closures(sc, rebound)
        if changed_object_container(held):
            raise self.fail("a list or dict held by an object's attribute is changed inside "
                            "an if whose condition is only known at run time; containers "
                            "inside objects are not carried through branches", where,
                            "change a local variable in the branch and set the attribute "
                            "after the if")
        for k, v in copies.items():
            if sc.vars.get(k) is v and not _same(v, before[k]):
                self.check_container_unshared(k, before[k], scope, where, "if")
        if getattr(sc, "raised", False):  # the branch ends in a runtime raise
            return sub, {**sc.vars, RAISED: True}
        return sub, sc.vars

    def building(self, sub: GraphBuilder) -> Any:
        """Context manager: make ``sub`` the current builder."""
        lowerer = self

        class _Swap:
            def __enter__(self) -> None:
                self.saved = lowerer.b
                lowerer.b = sub
                lowerer.region_depth += 1

            def __exit__(self, *exc: Any) -> None:
                lowerer.b = self.saved
                lowerer.region_depth -= 1

        return _Swap()

    def node_in(self, sub: GraphBuilder, v: Any, where: cst.CSTNode) -> Node:
        """``v`` as a node of the builder ``sub``."""
        with self.building(sub):
            return sub.capture(self.to_node(v, where))

    def finish_region(self, sub: GraphBuilder, outputs: list[Node], args: list[Node]) -> Any:
        """The body graph, its arguments being ``sub``'s own arguments followed by one per
        outer value in ``args`` (captured now if the body never read it)."""
        aliases.check_outputs(self, sub, outputs)
        for o in outputs:
            if _float_tuple(o):  # its items would carry no derivative out of the region
                raise UnsupportedSyntaxError(
                    "a tuple of values computed at run time leaves this if or loop as one "
                    "value, which is not supported (its derivative would be lost)", o.loc,
                    "bind its items to names of their own (a, b = ...) before the if or "
                    "loop ends, or give it the same structure before the if or loop")
        for n in args:
            sub.capture(n)
        assert sub.captures is not None  # (a body's builder)
        own = [a for a in sub.args if a not in set(sub.captures.values())]
        sub.args = own + [sub.captures[n] for n in args]
        graph = sub.finish(outputs)
        scalar_kinds.note_finished(self, sub, graph)  # its marks of unknown kind, kept
        return graph

def _none(v: Any) -> bool:
    return v is None or isinstance(v, Node) and v.type is not None and v.type.kind == "none"


def _float_tuple(n: Node) -> bool:
    """A ``tuple`` node holding a value that may carry a derivative."""
    if n.op is not Op.TUPLE:
        return False
    return any(_float_tuple(i) if i.op is Op.TUPLE else i.type is None or i.type.is_float
               for i in n.inputs)


class _PathOut:
    """An output of an ``if``: one value inside a container that the branches set."""

    def __init__(self, name: str, path: tuple[Any, ...]) -> None:
        self.name, self.path = name, path


_LEAVES = (Node, bool, int, float, str, type(None), np.generic, np.ndarray)


def _merged(k: str, a: Any, b: Any) -> tuple[Any, Any] | None:
    """Two containers of one structure that an ``if`` merges value by value (one
    ``tuple`` node would carry no derivative, a stacked list would read as an array):
    tuples of values or of tuples under any name (they are immutable), and anything
    returned (``#retval``: a returned list, dict or tuple is read once, after the
    return).  The value of a path that did not bind the name (did not return) is the
    same structure holding None, read only where the other path did.  None for anything
    else: named lists and dicts keep their own rules (another name may hold them)."""
    if k == "#retval":  # no return yet on the other path (a loop's carried ``None``)
        a, b = (MISSING if _none(v) else v for v in (a, b))
    elif not (isinstance(a, tuple) or isinstance(b, tuple)):
        return None
    if MISSING in (a, b):
        other = b if a is MISSING else a
        if not _container(other):
            return None
        blank = _rebuild(other, dict.fromkeys(_paths(other)))
        a, b = (a, blank) if b is MISSING else (blank, b)
    if not _container(a) or _structure(a) != _structure(b):
        return None
    if k != "#retval" and not _tuples_only(a):
        return None
    if not all(isinstance(_at(v, p), _LEAVES) for v in (a, b) for p in _paths(v)):
        return None
    return a, b


def _tuples_only(v: Any) -> bool:
    if isinstance(v, tuple):
        return all(_tuples_only(x) for x in v)
    return not _container(v)


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if isinstance(a, StaticIterator) and isinstance(b, StaticIterator):
        return a.items is b.items and a.pos == b.pos
    if isinstance(a, set) and isinstance(b, set):
        return a == b and not any(isinstance(v, Node) for v in a)
    if isinstance(a, tuple) and type(a) is type(b) and len(a) == len(b):
        return all(_same(x, y) for x, y in zip(a, b))  # a copy of one holding a list
    if isinstance(a, (list, dict)) and type(a) is type(b) and len(a) == len(b):
        # each branch works on its own copy: unchanged means the same items
        if isinstance(a, dict):
            assert isinstance(b, dict)  # (of a's type)
            return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
        return all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, Node) or isinstance(b, Node):
        return False
    if isinstance(a, (bool, int, float, str, type(None))) and type(a) is type(b):
        return a == b
    return False


def _union_captures(builders: list[GraphBuilder]) -> list[Node]:
    out: dict[Node, None] = {}
    for b in builders:
        for n in b.captures or {}:
            out.setdefault(n)
    return list(out)


def _stop(stops: dict[str, Any], goes_on: dict[str, Any], before: dict[str, Any]) -> None:
    """Make the state of a branch that ends in a runtime raise agree with the branch that
    goes on, whose state is the only one after the ``if``: its static values are taken as
    they are (``msg = x.dtype`` before a ``raise`` does not make a runtime value), its
    runtime ones get a placeholder in the raising branch (never read: it raised)."""
    for k in {*stops, *goes_on}:
        g = goes_on.get(k, MISSING)
        if g is MISSING or isinstance(g, Node) and not (k in before and before[k] is g):
            stops.pop(k, None)
        elif k in before and before[k] is g or not _holds_node(g):
            stops[k] = g


def _holds_node(v: Any) -> bool:
    if isinstance(v, Node):
        return True
    if isinstance(v, (tuple, list, set, frozenset)):
        return any(_holds_node(x) for x in v)
    if isinstance(v, dict):
        return any(_holds_node(x) for x in v.values())
    return type_module(v).startswith("st_autodiff")


def _carried(v: Any) -> bool:
    """Whether a branch's value can be an output of the ``if`` (a node, a number, a string,
    None, an array, a tuple of these; a name the branch does not bind)."""
    if v is MISSING or isinstance(v, (Node, bool, int, float, str, type(None), np.ndarray,
                                      np.generic)):
        return True
    if isinstance(v, tuple):
        return all(_carried(x) for x in v)
    return type_module(v).startswith("st_autodiff")  # (runtime helpers: as before)
