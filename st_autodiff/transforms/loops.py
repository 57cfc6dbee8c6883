"""Loops for ``lower``: ``for`` and ``while`` as regions (mixed into ``ControlLowering``).

A loop over a range, an array, a runtime list or a ``zip``/``enumerate``/``reversed`` of
them becomes a ``for`` node iterating positions (a lone range keeps its own bounds); a
``while`` loop becomes a ``while`` node whose body starts with ``if not test: break``; a
loop over a Python list or tuple (items may differ in shape) is unrolled.  Names the
body assigns that live on are carried values; their types are found by lowering the body
again until they stop changing (a shape that changes becomes unknown).  Lists the body
appends to are built by ``lists.ListLowering``.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, cast

import libcst as cst
import numpy as np

from ..errors import CompileError
from ..ir.abstract import Abstract, is_list_value
from ..ir.graph import GraphBuilder, Node, int_constant
from ..ir.ops import Op
from ..ir.types import Type
from . import small_ops
from .aliasing import changed_object_container, first_append, object_containers
from .lists import Appender, TupleList
from .loop_objects import UNROLL_OBJECTS, UNROLL_STATIC, carries_objects, static_only
from .parse import synthetic_origin
from .scope import (
    FLAGS,
    MISSING,
    Closure,
    Scope,
    copy_value,
    key_name,
    rebind_closures,
    restore_closures,
    visible_name,
    without,
)
from .static_while import UNROLL_INDICES, carries_indices, run_static_while

#: a static loop whose first trip loses a carried value's shape is unrolled up to this
#: many trips (each trip then keeps its sizes)
UNROLL_SHAPES = 16

if TYPE_CHECKING:
    from .lower import Lowerer
    from .lowering_api import LowererAPI
else:
    LowererAPI = object  # the shared interface exists for the type checker only


class LoopLowering(LowererAPI):
    """The loop half of ``ControlLowering`` (see the module docstring)."""

    # --- loops ------------------------------------------------------------------------

    def for_statement(self, stmt: cst.For, scope: Scope) -> None:
        if stmt.asynchronous is not None:
            raise self.fail("async for cannot be differentiated", stmt)
        it = self.expr(stmt.iter, scope)
        if type(it).__name__ == "GeneratorValue":
            small_ops.refuse_for_else(cast("Lowerer", self), stmt)
            self.for_generator(stmt, it, scope)  # comprehensions.py
            return
        self.for_items(stmt, it, scope)

    def for_items(self, stmt: cst.For, it: Any, scope: Scope) -> None:
        """A ``for`` over the evaluated iterable ``it``: unrolled or a loop region."""
        if type(it) is dict:  # its keys, in order; Python refuses a change of them meanwhile
            keys = list(it)
            self.unroll(stmt, keys, scope)
            if list(it) != keys:
                raise self.fail("RuntimeError: dictionary changed size during iteration",
                                stmt.iter, "iterate over list(d) to change d in the loop",
                                kind=CompileError)
            return
        it = self.tuple_items(small_ops.as_items(it), stmt.iter)
        streams = self.streams(it, stmt.iter)
        if streams is None:  # a Python list or tuple: unroll
            try:
                items = list(it.items) if isinstance(it, _Zip) else list(it)
            except TypeError:
                raise self.fail("zip of a Python list or tuple with a sequence built at run "
                                "time is not supported", stmt.iter, "convert the Python "
                                "sequence with np.stack, or zip with range(len(...))"
                                ) from None
            self.unroll(stmt, items, scope)
            return
        runs = _static_range(streams)
        if runs is not None and len(runs) <= UNROLL_INDICES and carries_indices(
                cast("Lowerer", self), stmt, scope):
            self.unroll(stmt, list(runs), scope)  # each trip indexes with other slices
            return
        if runs is not None and len(runs) <= UNROLL_OBJECTS and carries_objects(
                self, stmt, scope):
            self.unroll(stmt, list(runs), scope)  # p = poly1d(...); p += ... per trip
            return
        if runs is not None and len(runs) <= UNROLL_STATIC and static_only(self, stmt, scope):
            self.unroll(stmt, list(runs), scope)  # static values only: Python's own trips
            return
        small_ops.refuse_for_else(cast("Lowerer", self), stmt)
        self.loop(stmt, scope, _Streams(streams, _layout(it)))

    def tuple_items(self, it: Any, where: cst.CSTNode) -> Any:
        """A list or tuple argument (one node) as the list of its items, to unroll a loop
        over it; the generated code is specialised on its length."""
        if isinstance(it, TupleList):  # a list of tuples: the zip of its components
            return _Zip(list(it.lists))
        if type(it).__name__ == "StaticArray":  # an array known when compiling: its items
            return it.items()
        if isinstance(it, _Zip):
            if any(isinstance(p, TupleList) for p in it.parts):
                raise self.fail("zip or enumerate of a list of tuples built in a loop is not "
                                "supported", where, "iterate it directly, or over "
                                "range(len(...)) and index it")
            return _Zip([self.tuple_items(p, where) for p in it.parts])
        if isinstance(it, _Reversed):
            return _Reversed(self.tuple_items(it.value, where))
        if not (isinstance(it, Node) and it.type is not None and it.type.kind == "tuple"):
            return it
        value = self.example(it)
        if not isinstance(value, (tuple, list)):
            raise self.fail("a loop over a list or tuple argument needs example arguments",
                            where, "call the function with arguments first")
        return [self.emit(Op.ITEM, [it], {"index": k}, where) for k in range(len(value))]

    def streams(self, it: Any, where: cst.CSTNode) -> list[tuple[Any, ...]] | None:
        """What a ``for`` iterates over: ``[("range", start, stop, step, rev) |
        ("array", node, rev) | ("list", node, rev)]``, or None for a static sequence."""
        if isinstance(it, _Zip):
            parts = [self.streams(p, where) for p in it.parts]
            if any(p is None for p in parts):
                return None
            flat = [s for p in parts if p is not None for s in p]
            if len({s[-1] for s in flat}) > 1:  # enumerate(reversed(x)), zip(x, x[::-1])
                flat = [self.forward_stream(s, where) for s in flat]
            return flat
        if isinstance(it, _Reversed):
            inner = self.streams(it.value, where)
            if inner is None:
                return None
            return [(*s[:-1], not s[-1]) for s in inner]
        if isinstance(it, range):
            return [("range", it.start, it.stop, it.step, False)]
        if isinstance(it, _Range):
            return [("range", it.start, it.stop, it.step, False)]
        if isinstance(it, Node):
            t = it.type
            if t is not None and t.kind == "list":
                return [("list", it, False)]
            if t is not None and t.kind == "array":
                if t.shape == ():
                    raise self.fail("iteration over a 0-d array", where)
                return [("array", it, False)]
            if t is not None and t.kind == "tuple":
                return None
            if t is None and is_list_value(self.example(it)):
                return [("list", it, False)]  # a stack whose type the branches left open
            raise self.fail("cannot iterate over this value", where)
        if isinstance(it, (list, tuple, str)):  # unrolled (a str: its characters)
            return None
        if hasattr(it, "shape") and hasattr(it, "dtype"):
            return [("array", self.to_node(it, where), False)]
        raise self.fail(f"cannot iterate over a {type(it).__name__}", where)

    def forward_stream(self, s: tuple[Any, ...], where: cst.CSTNode) -> tuple[Any, ...]:
        """A reversed stream as a forward one over the reversed sequence (an array's
        ``x[::-1]`` view, a runtime list reversed, a static range's reversal), so that it
        zips with forward streams; any other stays as it is (``loop_range`` refuses it)."""
        if not s[-1]:
            return s
        if s[0] == "array":
            index, _ = self.index_spec([slice(None, None, -1)], where)
            return ("array", self.emit(Op.GETITEM, [s[1]], {"index": index}, where), False)
        if s[0] == "list":
            return ("list", self.emit(Op.LIST_REVERSE, [s[1]], None, where), False)
        if s[0] == "range" and all(isinstance(v, int) for v in s[1:4]):
            r = range(s[1], s[2], s[3])[::-1]
            return ("range", r.start, r.stop, r.step, False)
        return s

    def unroll(self, stmt: cst.For, items: list[Any], scope: Scope) -> None:
        """A loop over a Python sequence, one copy of the body per item."""
        body = self.suite(stmt.body)

        def step(k: int, sc: Scope) -> None:
            if k == len(items):
                return
            self.assign(stmt.target, items[k], sc)
            self.run_stmts(body, sc)
            sc.vars["#cont"] = False
            state = self.flow_state(sc, stmt)
            if state is True:
                return
            if isinstance(state, Node):
                self.guarded(state, lambda s: step(k + 1, s), sc, stmt)
                return
            step(k + 1, sc)

        step(0, scope)
        broke = scope.vars.get("#brk", False)
        scope.vars["#brk"] = False
        if stmt.orelse is not None:
            small_ops.for_else(cast("Lowerer", self), stmt, broke, scope)

    def while_statement(self, stmt: cst.While, scope: Scope) -> None:
        if stmt.orelse is not None:
            raise self.fail("while ... else is not supported", stmt.orelse,
                            "set a flag before break and test it after the loop")
        if run_static_while(cast("Lowerer", self), stmt, scope):
            return
        self.loop(stmt, scope, None)

    def loop(self, stmt: cst.For | cst.While, scope: Scope, streams: list[tuple[Any, ...]] | None,
             may_peel: bool = True) -> None:
        """A ``for`` over streams or a ``while``, as a region node."""
        where = stmt
        if streams is not None:
            assert isinstance(stmt, cst.For)  # (streams: a for loop's)
            header = self.loop_range(streams, stmt.iter)
            if header is None:
                return  # zero trips, known at compile time
            start, stop, step, reverse, positional = header
        body_stmts = self.suite(stmt.body)
        carried, appended = self.carried_names(stmt, scope)
        before = dict(scope.vars)
        appended = [a for a in appended if a in before]  # lists made inside are the body's
        for name in appended:
            v = before.get(name, MISSING)
            if isinstance(v, Appender):
                raise self.fail(f"{name!r} is appended to inside a loop nested in the loop "
                                "that builds it", stmt, "collect the inner loop's items in a "
                                "list of its own and append that (or its stack) once")
            if not isinstance(v, list) and not (isinstance(v, Node) and v.type is not None
                                                and v.type.kind == "list"):
                raise self.fail(f"{name!r} is appended to in the loop but is not a list "
                                "made before it", stmt, f"write {name} = [] before the loop")
        for name in appended:
            self.check_list_unshared(name, before[name], scope,
                                     first_append(body_stmts, name) or stmt)
        carried = carried + self.last_slots(body_stmts, appended, before, stmt)
        # a dict, list or tuple carried around the loop travels as one slot per value
        # (nested ones too), and the body and the code after the loop see a container
        # of the same kind: lists stay lists (``+`` concatenates, ``*`` repeats)
        # (a container first made in the body, read after the loop or in a later
        # iteration, or returned: its structure is learnt from the body's first lowering)
        tmpl = {k: before[k] for k in carried if _container(before.get(k))}

        def make_slots() -> tuple[list[tuple[str, Any]], list[Node | None],
                              list[tuple[Type | None, Any]]]:
            slots = [(k, key) for k in carried for key in (
                _paths(tmpl[k]) if k in tmpl else [None])]
            inits = [None if k not in before else self.to_node(
                before[k] if key is None else _at(before[k], key), where) for k, key in slots]
            guess: list[tuple[Type | None, Any]] = [
                (n.type, self.example(n)) if n is not None else (Type("none"), None)
                for n in inits]
            return slots, inits, guess

        slots, inits, guess = make_slots()
        kind = "for" if streams is not None else "while"
        i_value: int | Abstract | None
        i_value, zero_trips = None, False
        if streams is not None:  # the index of the first iteration, for example values
            first = [self.example(v) for v in (start, stop, step)]
            if all(isinstance(v, (int, np.integer)) for v in first):
                rng = range(*(int(v) for v in first))
                i_value = (rng[-1] if reverse else rng[0]) if len(rng) else int(first[0])
                # no iteration on the example arguments: the body's example values may
                # fail (x[i] past the end), so they are best-effort (types from the ops)
                zero_trips = not len(rng)
            elif self.b.evaluate is not None:  # bounds known at run time only
                i_value = Abstract(Type("int"))
        mark = len(self._write_log())
        for _attempt in range(4):
            del self._write_log()[mark:]  # writes of an earlier attempt at this body
            slot_args: list[Node] = []
            sub = self.b.body(f"{self.b.name}_{kind}", soft=zero_trips)
            sc = Scope(scope.parent, scope.outer)
            sc.vars = {k: copy_value(v) for k, v in before.items()}
            rebound = rebind_closures(sc, scope)
            with self.building(sub):
                xs_nodes: list[Node] = []
                if streams is not None:
                    assert isinstance(stmt, cst.For)
                    i_arg = sub.arg("i", Type("int"), i_value, self.loc(stmt.target))
                    known = _constant_range(start, stop, step)
                    if known is not None:  # x[i - k:i] then has a static shape
                        sub.ranges[i_arg] = known
                    target_value = self.stream_items(streams, i_arg, positional, start, step,
                                                     sub, xs_nodes, stmt)
                parts: dict[str, dict[tuple[Any, ...], Node]] = {}
                for (k, key), (t, value), init in zip(slots, guess, inits):
                    arg_name = (visible_name(k) or k.lstrip("#")) if key is None else \
                        key_name(visible_name(k) or k.lstrip("#"), "_".join(map(str, key)))
                    a = sub.arg(arg_name, t, value,
                                self.loc(stmt))
                    self.note_carried(a, init)
                    if t is not None and t.kind != "none" and (
                            init is None or self.may_be_none(init)):
                        self.maybe_none.add(a)  # None in the first iteration: `is None`
                        # is asked when the code runs, not answered from the later type
                    slot_args.append(a)
                    if key is None:
                        sc.vars[k] = a
                    else:
                        parts.setdefault(k, {})[key] = a
                for k, values in parts.items():
                    sc.vars[k] = _rebuild(tmpl[k], values)
                for name in appended:
                    sc.vars[name] = Appender(name, before[name])
                for f in FLAGS[1:]:
                    sc.vars[f] = False
                sc.vars["#ret"] = False
                entry = {k: (v, _structure(v), [_at(v, p) for p in _paths(v)])
                         for k, v in sc.vars.items() if k in before and _container(v)}
                held = object_containers(self, before.values())
                if streams is not None:
                    assert isinstance(stmt, cst.For)
                    self.assign(stmt.target, target_value, sc)
                    self.run_stmts(body_stmts, sc)
                else:
                    assert isinstance(stmt, cst.While)
                    self.run_stmts([_WhileGuard(stmt.test), *body_stmts], sc)
                restore_closures(sc, rebound)
                small_ops.check_loop_body(cast("Lowerer", self), before, sc.vars, stmt)
                if changed_object_container(held):
                    raise self.fail("a list or dict held by an object's attribute is changed "
                                    "inside this loop; containers inside objects are not "
                                    "carried through loops", stmt, "keep it in a local "
                                    "variable in the loop and set the attribute after it")
                for k, (obj, shape, leaves) in entry.items():  # changed in place, not rebound
                    if sc.vars.get(k) is obj and (_structure(obj) != shape or any(
                            _at(obj, p) is not x for p, x in zip(_paths(obj), leaves))):
                        self.check_container_unshared(k, before[k], scope, stmt)
                outs = []
                learnt = False
                for k, key in slots:
                    v = sc.vars.get(k, MISSING)
                    if key is not None:
                        self.check_carried_container(k, tmpl[k], v, stmt)
                        v = _at(v, key)
                    elif _container(v) and k in before:
                        raise self.fail(f"{k!r} becomes a {type(v).__name__} in this loop, "
                                        "but it is not one before the loop", stmt,
                                        f"make {k} a {type(v).__name__} of the same "
                                        "structure before the loop")
                    elif _container(v):
                        tmpl[k], learnt = v, True
                        continue
                    if isinstance(v, Closure):
                        raise self.fail(f"{k!r} is a function (a lambda or def) defined in "
                                        "a loop that runs at run time; a loop carries "
                                        "arrays and numbers, not functions", stmt,
                                        f"define {k} before the loop, with the values it "
                                        "reads as parameters")
                    outs.append(sub.const(None) if v is MISSING else sub.capture(
                        self.to_node(v, where)))
                # names the body changed without assigning them: an array written in
                # place by a call (np.copyto(out, v), out.sort(), np.add.at, a helper
                # that writes into its argument) is a new value the loop must carry
                # (and a dict or list changed by a method: d.update(k=v), lst.insert(0, v),
                # d.setdefault(k, []).append(v), d["a"].append(v))
                written = [k for k, v in before.items() if (
                           (isinstance(v, Node) or type(v).__name__ == "StaticArray") and
                           sc.vars.get(k, MISSING) is not v or
                           _container(v) and _changed(v, sc.vars.get(k, MISSING))) and
                           not k.startswith("#") and k not in carried and
                           k not in appended]
                if written:
                    carried = carried + written
                    tmpl.update({k: before[k] for k in written if _container(before[k])})
                    learnt = True
                for k in carried:  # empty containers have no slot, but keep their kind
                    if _container(before.get(k)) and not _paths(before[k]):
                        self.check_carried_container(k, before[k], sc.vars.get(k, MISSING),
                                                     stmt)
                ys: list[Node] = []
                layouts = [self.append_sites(sc, name, sub, ys, stmt) for name in appended]
                stop_flag = self.flow_state(without(sc, "#cont"), stmt)
                if stop_flag is True:
                    go_on: Any = sub.const(False)
                elif isinstance(stop_flag, Node):
                    go_on = self.emit(Op.LOGICAL_NOT, [stop_flag], None, stmt)
                else:
                    go_on = None
            if learnt:  # lower the body again, with a slot per value of the container
                # (or per name written in place)
                slots, inits, guess = make_slots()
                settled = False
                continue
            new_guess = [_join(g, o, sub) for g, o in zip(guess, outs)]
            if _attempt == 0 and may_peel and streams is not None and not appended and any(
                    g[0] is not None and o.type is not None and g[0].shape is not None and
                    o.type.shape is None for g, o in zip(guess, outs)):
                # a carried value's shape is lost in the first iteration (polyder's
                # ``der = np.empty((n,) + c.shape[1:])`` with ``n = n - 1``: a carried int
                # becomes a runtime value in a region): a short static loop is unrolled,
                # so each trip has its own static sizes
                runs = _static_range(streams)
                if runs is not None and len(runs) <= UNROLL_SHAPES and \
                        isinstance(stmt, cst.For):
                    self.unroll(stmt, list(runs), scope)
                    return
            if _attempt == 0 and may_peel and streams is not None and not appended and any(
                    g[0] is not None and o.type is not None and None not in (
                        g[0].shape, o.type.shape) and g[0].shape != o.type.shape
                    for g, o in zip(guess, outs)):
                # the first iteration changes a carried value's shape (p = c[0], then
                # p = p * x + c[i]): one type for every iteration would either forget the
                # shape (the adjoint then keeps values to read their shapes) or be wrong
                # for the first one; with static bounds, run that one on its own
                runs = _static_range(streams)
                if runs is not None and isinstance(stmt, cst.For):
                    self.peel(stmt, scope, runs, carried)
                    return
            settled = [g[0] for g in new_guess] == [g[0] for g in guess]  # types only
            if settled or _attempt == 3:
                break
            guess = new_guess
        if not settled:
            raise self.fail("a value carried around this loop changes type from one "
                            "iteration to the next: " + ", ".join(
                                f"{k} ({g[0]} -> {n[0]})" for (k, _), g, n in zip(slots, guess,
                                                                                  new_guess)
                                if g[0] != n[0]), stmt, "give it the same shape and dtype before "
                            "the loop as inside it")
        sites = [(repr(name) + self._line_of(name, sc), ys[at])
                 for name, (_, layout) in zip(appended, layouts) for ats, _ in layout
                 for at in ats]
        self.check_loop_aliases(sub, slots, slot_args, outs, sites, mark)
        assert sub.captures is not None  # (a body's builder)
        captured = list(sub.captures)
        body_outs = outs + ys + ([go_on] if go_on is not None else [])
        graph = self.finish_region(sub, body_outs, captured)
        self.b.values.update(sub.values)  # the body keeps its example values
        init_nodes = [n if n is not None else self.b.const(None) for n in inits]
        for pos, ((t, _), n) in enumerate(zip(guess, init_nodes)):
            if t is not None and t.kind == "array" and n.type is not None and \
                    n.type.kind in ("float", "int", "bool"):
                # a Python number the loop turns into an array (p = 0.0; p = p * x + c):
                # a 0-d array from the start, so the body's arrays are arrays every time
                init_nodes[pos] = self.emit(Op.ASARRAY, [n], None, where)
                if n.type.kind != "bool" and t.dtype in ("float32", "float16"):
                    # a Python number meets float32 values as a weak scalar (NEP 50):
                    # the loop's value is float32 from the first iteration on
                    init_nodes[pos] = self.emit(Op.ASTYPE, [init_nodes[pos]],
                                                {"dtype": t.dtype}, where)
        params: dict[str, Any] = {"body": graph, "n_carry": len(slots), "n_ys": len(ys),
                                  "has_break": go_on is not None}
        if streams is not None:
            params.update(n_xs=len(xs_nodes), reverse=reverse)
            node = self.emit(Op.FOR, [start, stop, step, *xs_nodes, *init_nodes, *captured],
                             params, where)
        else:
            node = self.emit(Op.WHILE, [*init_nodes, *captured], params, where)
        loc = self.loc(stmt)
        after: dict[str, dict[tuple[Any, ...], Node]] = {}
        for pos, (name, key) in enumerate(slots):
            item = self.b.emit(Op.ITEM, [node], {"index": pos}, loc=loc)
            if key is not None:
                after.setdefault(name, {})[key] = self.b.rename(item, key_name(
                    visible_name(name) or name.lstrip("#"), "_".join(map(str, key))))
                continue
            scope.vars[name] = item if name.startswith("#") else self.b.rename(item, name)
            if self.may_be_none(inits[pos]) or self.may_be_none(outs[pos]):
                self.maybe_none.add(scope.vars[name])
        for name, values in after.items():
            scope.vars[name] = _rebuild(tmpl[name], values)
            if name not in before:  # unbound after a loop that runs no iteration
                for item in values.values():
                    self.maybe_none.add(item)
        for name, layout in zip(appended, layouts):
            built = self.gathered(node, len(slots), layout, before[name], stmt)
            if built is not None:  # else its appends sit in branches never lowered
                scope.vars[name] = built
        for k in list(scope.vars):
            if k.startswith("#last:") or k not in before and k not in carried:
                scope.vars.pop(k)  # loop-local names are gone after the loop
        scope.vars["#brk"] = False
        scope.vars["#cont"] = False

    def check_carried_container(self, name: str, before: Any, v: Any,
                                where: cst.CSTNode) -> None:
        """A dict, list or tuple carried around the loop keeps its structure (kinds,
        lengths and keys, nested ones too): the loop carries one slot per value."""
        if _structure(v) == _structure(before):
            return
        if isinstance(before, dict) and isinstance(v, dict):
            if before.keys() == v.keys():
                raise self.fail(f"a list or dict inside the dict {name!r} changes its length "
                                "or keys in the loop", where, "give it the same structure "
                                "before the loop as inside it")
            raise self.fail(f"the keys of the dict {name!r} change in the loop", where,
                            "create every key before the loop")
        what = type(before).__name__
        raise self.fail(f"the {what} {name!r} changes its length or structure in this loop "
                        f"(a loop carries each of its values, so {name} must keep the "
                        "structure it has before the loop)", where,
                        f"append to a list ({name}.append(v)) instead of rebuilding it, or "
                        "stack its items into an array" if isinstance(before, list) else
                        "give it the same structure before the loop as inside it")

    def peel(self, stmt: cst.For, scope: Scope, rng: range, carried: list[str]) -> None:
        """The loop's first iteration as straight-line code, then a loop over the rest of
        ``rng`` (a ``range`` in the order the loop runs), whose carried values start with
        the types one iteration gives them."""
        keep = set(scope.vars) | set(carried)
        self.assign(stmt.target, rng[0], scope)
        self.run_stmts(self.suite(stmt.body), scope)
        scope.vars["#cont"] = False
        state = self.flow_state(scope, stmt)
        for k in list(scope.vars):
            if k not in keep and not k.startswith("#"):
                scope.vars.pop(k)  # loop-local names: the loop makes them again
        if state is not True:
            rest = [("range", rng.start + rng.step, rng.stop, rng.step, False)]

            def run_rest(sc: Scope) -> None:
                self.loop(stmt, sc, rest, may_peel=False)

            if isinstance(state, Node):
                self.guarded(state, run_rest, scope, stmt)
            else:
                run_rest(scope)
        scope.vars["#brk"] = False

    def loop_range(self, streams: list[tuple[Any, ...]], where: cst.CSTNode) -> Any:
        """``(start, stop, step, reverse, positional)`` of the loop, or None when it is
        known to run zero times.  A lone range keeps its own bounds; anything else
        iterates positions ``0 .. n-1`` (``positional``)."""
        revs = {s[-1] for s in streams}
        if len(revs) > 1:
            raise self.fail("zip of reversed and forward sequences is not supported", where)
        reverse = revs.pop()
        if len(streams) == 1 and streams[0][0] == "range":
            _, start, stop, step, _ = streams[0]
            if all(isinstance(v, int) for v in (start, stop, step)):
                if len(range(start, stop, step)) == 0:
                    return None
            if isinstance(step, Node):
                raise self.fail("the step of a range must be known when the function is "
                                "compiled", where)
            if step == 0:
                raise self.fail("range() arg 3 must not be zero", where, kind=CompileError)
            return start, stop, step, reverse, False
        lengths = [self.stream_length(s, where) for s in streams]
        n: Any = lengths[0]
        for m in lengths[1:]:
            n = min(n, m) if isinstance(n, int) and isinstance(m, int) else self.emit(
                Op.MINIMUM, [n, m], None, where)
        if isinstance(n, int) and n == 0:
            return None
        return 0, n, 1, reverse, True

    def stream_length(self, s: tuple[Any, ...], where: cst.CSTNode) -> Any:
        if s[0] == "range":
            _, start, stop, step, _ = s
            if all(isinstance(v, int) for v in (start, stop, step)):
                return len(range(start, stop, step))
            if isinstance(step, Node):
                raise self.fail("the step of a range must be known when the function is "
                                "compiled", where)
            # len(range(a, b, k)) = max(0, ceil((b - a) / k)), for either sign of k
            diff = self.binary(Op.SUB, stop, start, where) if step > 0 else \
                self.binary(Op.SUB, start, stop, where)
            if abs(step) != 1:
                diff = self.binary(Op.FLOORDIV, self.binary(Op.ADD, diff, abs(step) - 1, where),
                                   abs(step), where)
            return self.emit(Op.MAXIMUM, [diff, 0], None, where)
        node = s[1]
        if s[0] == "list":
            return self.emit(Op.LIST_LEN, [node], None, where)
        t = node.type
        if t is not None and t.shape is not None:
            return t.shape[0]
        shape = self.emit(Op.SHAPE, [node], None, where)
        return self.emit(Op.ITEM, [shape], {"index": 0}, where)

    def stream_items(self, streams: list[tuple[Any, ...]], i: Node, positional: bool, start: Any,
                     step: Any, sub: GraphBuilder, xs: list[Node], where: cst.CSTNode) -> Any:
        """The loop target's value inside the body, from the position/index ``i``."""
        values = []
        for s in streams:
            if s[0] == "range":
                if not positional:
                    values.append(i)
                    continue
                v: Any = i
                if s[3] != 1:
                    v = self.binary(Op.MUL, v, s[3], where)
                if not (isinstance(s[1], int) and s[1] == 0):
                    v = self.binary(Op.ADD, v, s[1], where)
                values.append(v)
            elif s[0] == "array":
                values.append(self.emit(Op.GETITEM, [s[1], i], {"index": (("in", 0),)},
                                        where))
            else:  # a runtime list: one item per position, passed in as ``xs``
                xs.append(s[1])
                value = None
                lst = self.example(s[1]) if sub.evaluate is not None else None
                if isinstance(lst, Abstract):  # a list known by its items' type
                    lst = [lst.item] if lst.item is not None else None
                if isinstance(lst, list) and lst:
                    value = lst[-1 if s[-1] else 0]
                item_type = _item_type(lst) if isinstance(lst, list) else None
                if value is None and item_type is not None:
                    # the first item is a placeholder (a branch that skipped the value):
                    # the body's example values are best-effort, its types from the ops
                    sub.soft = True
                values.append(sub.arg("item", item_type, value,
                                      self.loc(where)))
        layout = getattr(streams, "layout", None)
        if isinstance(layout, list) and any(part is not None for part in layout):
            return _regroup(iter(values), layout)  # enumerate(zip(a, b)): (i, (u, v))
        return values[0] if len(values) == 1 else tuple(values)

    def carried_names(self, stmt: Any, scope: Scope) -> tuple[list[str], list[str]]:
        """Names a loop body assigns that live on (defined before, or read elsewhere in
        the function), and lists it appends to."""
        assigned, appended = _assigned(self.suite(stmt.body))
        if isinstance(stmt, cst.For):
            targets, _ = _assigned([cst.SimpleStatementLine([cst.Assign(
                [cst.AssignTarget(stmt.target)], cst.Name("_"))])])
            # the target lives on where code after the loop reads it (numpy's trimseq:
            # ``for i in ...: if seq[i] != 0: break`` then ``seq[:i + 1]``)
            live = set() if synthetic_origin(stmt) else targets & _read_after(self.fn.node,
                                                                               stmt)
            assigned = (assigned - targets) | live
        # a comprehension's loop (synthesized): its names are its own
        outside = set() if synthetic_origin(stmt) else _loaded_outside(self.fn.node, stmt)
        names = sorted(n for n in assigned - set(appended)
                       if n in scope.vars or n in outside)
        if _has_return(stmt.body):
            names += ["#ret", "#retval"]
        return names, sorted(appended)


class _WhileGuard:
    """The test of a ``while`` loop, lowered as ``if not test: break`` in its body."""

    def __init__(self, test: cst.BaseExpression) -> None:
        self.test = test


class _Range:
    """``range(...)`` with runtime bounds."""

    def __init__(self, start: Any, stop: Any, step: Any) -> None:
        self.start, self.stop, self.step = start, stop, step


class _Streams(list):  # type: ignore[type-arg]  # (a list of stream tuples)
    """The streams of a loop (``LoopLowering.streams``, flat) with the nesting of the
    ``zip``/``enumerate`` they came from (``_layout``), to rebuild the loop target's
    value: ``enumerate(zip(a, b))`` gives ``(i, (u, v))``, not ``(i, u, v)``."""

    def __init__(self, streams: list[tuple[Any, ...]], layout: Any) -> None:
        super().__init__(streams)
        self.layout = layout


def _layout(it: Any) -> Any:
    """The nesting of zips in an iterable: ``None`` for one stream, else one entry per
    part."""
    if isinstance(it, _Zip):
        return [_layout(p) for p in it.parts]
    if isinstance(it, _Reversed):
        return _layout(it.value)
    return None


def _regroup(values: Any, layout: Any) -> Any:
    """The flat stream values (an iterator) nested as ``layout`` says."""
    if layout is None:
        return next(values)
    return tuple(_regroup(values, part) for part in layout)


class _Zip:
    """``zip(...)``/``enumerate(...)`` of iterables, before the loop reads it."""

    def __init__(self, parts: list[Any]) -> None:
        self.parts = parts

    @property
    def items(self) -> list[tuple[Any, ...]]:
        parts = []
        for p in self.parts:
            if isinstance(p, _Reversed) and isinstance(p.value, (range, list, tuple)):
                p = list(reversed(p.value))
            if isinstance(p, (_Range, _Reversed, _Zip)):
                raise TypeError("zip of a Python sequence with a runtime one")
            parts.append(p)
        return list(zip(*parts))


class _Reversed:
    """``reversed(x)`` before the loop reads it."""

    def __init__(self, value: Any) -> None:
        self.value = value


def _static_range(streams: list[tuple[Any, ...]]) -> range | None:
    """The one ``range`` a loop runs over, in the order it runs, when its bounds are
    known at compile time."""
    if len(streams) != 1 or streams[0][0] != "range":
        return None
    _, start, stop, step, reverse = streams[0]
    if not all(isinstance(v, int) for v in (start, stop, step)):
        return None
    rng = range(start, stop, step)
    return rng[::-1] if reverse else rng


def _join(guess: tuple[Type | None, Any], out: Node, sub: GraphBuilder
          ) -> tuple[Type | None, Any]:
    """The carried type after one more iteration: the body's output type, with the shape
    forgotten when it differs from the guess."""
    t, value = guess
    ot = out.type
    if ot is None and t is not None and t.kind in ("none", "int", "bool"):
        # a body output of unknown type (a float on one path, a 0-d array on the other)
        # where the value before the loop (None, a Python int) carries no derivative:
        # unknown, so that the derivative of what the body makes is kept
        return None, sub.values.get(out, value)
    if ot is None or (ot.kind == "none"):
        return guess
    if t is not None and t == ot:
        return guess
    if t is not None and t.kind != "none" and _shape(t) != _shape(ot):
        # also a Python number that becomes an array (p = 0.0, then p = p * x + c): the
        # body must not take the array's shape as static, the first iteration has ()
        ot = ot.without_shape()
    v = sub.values.get(out, value)
    return ot, v


def _shape(t: Type) -> tuple[int, ...] | None:
    return () if t.kind in ("float", "int", "bool") else t.shape


def _item_type(items: list[Any]) -> Type | None:
    """The type of every item of a runtime list, from all of the example's items (the
    first one alone may be the object-dtype zero of an iteration whose branch skipped
    the value), unknown when they disagree or some item is a ``None`` placeholder."""
    real = [v for v in items if v is not None]
    if real and all(is_list_value(v) for v in real):
        return Type("list")  # stacks of an inner loop (None where it did not run)
    if len(real) < len(items):
        return None  # a placeholder: what the branch that skipped it would hold is unknown
    types = {_type_of_value(v) for v in items if not (
        getattr(v, "dtype", None) is not None and v.dtype == object)}
    if None in types or not types:
        return None
    first = next(iter(types))
    assert first is not None  # (None is not in types)
    if len(types) == 1:
        return first
    if all(t.kind == first.kind and t.dtype == first.dtype for t in types if t is not None):
        return first.without_shape()  # x[:i] pushed for each i
    return None


def _type_of_value(v: Any) -> Type | None:
    if v is None:
        return None
    if is_list_value(v):
        return Type("list")  # a stack of stacks: an inner loop's saved values
    if isinstance(v, Abstract):
        return v.type
    from ..ir.types import type_of  # noqa: PLC0415

    return type_of(v)


def _assigned(stmts: list[Any]) -> tuple[set[str], list[str]]:
    """Names assigned (or written into) by statements, and names appended to."""
    names: set[str] = set()
    appended: list[str] = []

    class V(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            names.add(node.name.value)
            return False

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            _target_names(node.target, names)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            _target_names(node.target, names)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            _target_names(node.target, names)

        def visit_For(self, node: cst.For) -> None:
            _target_names(node.target, names)

        def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
            _target_names(node.target, names)

        def visit_Call(self, node: cst.Call) -> None:
            f = node.func
            if isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name) and \
                    f.attr.value == "append" and f.value.value not in appended:
                appended.append(f.value.value)

    for s in stmts:
        s.visit(V())
    return names, appended


def _target_names(t: cst.BaseExpression, out: set[str]) -> None:
    if isinstance(t, cst.Name):
        out.add(t.value)
    elif isinstance(t, (cst.Tuple, cst.List)):
        for el in t.elements:
            _target_names(el.value, out)
    elif isinstance(t, cst.Subscript):
        _target_names(t.value, out)


#: answers of the two whole-function scans below, by the identity of (function, loop):
#: a loop is lowered several times while its carried types settle (the scans were a
#: seventh of compile time); the nodes are held so that their ids stay theirs
_SCANS: dict[tuple[str, int, int], tuple[Any, Any, set[str]]] = {}


#: per function (by identity, the node held): how often each name occurs, and the ids
#: of its nodes (``_count_loaded_outside``)
_NAMES: dict[int, tuple[Any, dict[str, int], set[int]]] = {}


def _scan(kind: str, fn: Any, stmt: Any, compute: Any) -> set[str]:
    key = (kind, id(fn), id(stmt))
    hit = _SCANS.get(key)
    if hit is not None and hit[0] is fn and hit[1] is stmt:
        return hit[2]
    if len(_SCANS) > 4096:
        _SCANS.clear()
    found: set[str] = compute(fn, stmt)
    _SCANS[key] = (fn, stmt, found)
    return found


def _loaded_outside(fn: Any, stmt: Any) -> set[str]:
    """Names read anywhere in ``fn`` outside the statement ``stmt`` (callers must not
    change the set: it is shared by later calls)."""
    return _scan("outside", fn, stmt, _count_loaded_outside)


def _count_loaded_outside(fn: Any, stmt: Any) -> set[str]:
    """``_scan_loaded_outside`` by counting: the function's names are counted once (per
    function), the statement's each time; a name is read outside where the function has
    more of it than the statement.  A statement that is not in ``fn`` (a copy) skips
    nothing, as the scan would."""
    known = _NAMES.get(id(fn))
    if known is None or known[0] is not fn:
        counted: dict[str, int] = {}
        seen: set[int] = set()

        class Count(cst.CSTVisitor):
            def on_visit(self, node: cst.CSTNode) -> bool:
                seen.add(id(node))
                if isinstance(node, cst.Name):
                    counted[node.value] = counted.get(node.value, 0) + 1
                return True

        fn.visit(Count())
        if len(_NAMES) > 256:
            _NAMES.clear()
        known = (fn, counted, seen)
        _NAMES[id(fn)] = known
    _, names, ids = known
    if id(stmt) not in ids:
        return set(names)
    inside: dict[str, int] = {}

    class Inside(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if isinstance(node, cst.Name):
                inside[node.value] = inside.get(node.value, 0) + 1
            return True

    stmt.visit(Inside())
    return {n for n, c in names.items() if c > inside.get(n, 0)}


def _scan_loaded_outside(fn: Any, stmt: Any) -> set[str]:
    found: set[str] = set()

    class V(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if node is stmt:
                return False
            if isinstance(node, cst.Name):
                found.add(node.value)
            return True

    fn.visit(V())
    return found


def _read_after(fn: Any, stmt: Any) -> set[str]:
    """Names read in ``fn`` after the statement ``stmt`` (in source order; the targets of
    later loops and assignments bind, they do not read)."""
    return _scan("after", fn, stmt, _scan_read_after)


def _scan_read_after(fn: Any, stmt: Any) -> set[str]:
    found: set[str] = set()
    seen = [False]

    class V(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if not seen[0] and (node is stmt or isinstance(node, cst.For)
                                and node.deep_equals(stmt)):  # (the lowered copy)
                seen[0] = True
                return False
            if isinstance(node, cst.For) and seen[0]:
                node.iter.visit(self)
                node.body.visit(self)
                if node.orelse is not None:
                    node.orelse.visit(self)
                return False
            if isinstance(node, cst.AssignTarget) and isinstance(node.target, cst.Name):
                return False
            if isinstance(node, cst.Name) and seen[0]:
                found.add(node.value)
            return True

    fn.visit(V())
    return found


def _has_return(block: Any) -> bool:
    found = []

    class V(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

        def visit_Return(self, node: cst.Return) -> None:
            found.append(node)

    block.visit(V())
    return bool(found)


def _container(v: Any) -> bool:
    """A dict, list, tuple or NamedTuple a loop carries value by value."""
    return isinstance(v, dict) or type(v) in (list, tuple) or _named_tuple(v)


def _named_tuple(v: Any) -> bool:
    return isinstance(v, tuple) and isinstance(getattr(type(v), "_fields", None), tuple)


def _changed(before: Any, after: Any) -> bool:
    """Whether a loop body changed the container ``before`` (its copy is ``after``): its
    structure, or a value in it."""
    return _structure(after) != _structure(before) or any(
        _at(after, p) is not _at(before, p) for p in _paths(before))


def _paths(v: Any) -> list[tuple[Any, ...]]:
    """The positions of the values in nested dicts, lists and tuples: ``(key, 1)`` for
    ``v[key][1]``."""
    if not _container(v):
        return [()]
    keys = list(v) if isinstance(v, dict) else range(len(v))
    return [(k, *p) for k in keys for p in _paths(v[k])]


def _at(v: Any, path: tuple[Any, ...]) -> Any:
    for k in path:
        v = v[k]
    return v


def _structure(v: Any) -> Any:
    """The kinds, keys and lengths of nested containers, without their values."""
    if isinstance(v, dict):
        return (type(v), frozenset((k, _structure(x)) for k, x in v.items()))
    if type(v) in (list, tuple) or _named_tuple(v):
        return (type(v), tuple(_structure(x) for x in v))
    return None


def _rebuild(like: Any, values: dict[tuple[Any, ...], Any], path: tuple[Any, ...] = ()
             ) -> Any:
    """A container of ``like``'s structure holding ``values`` (by position)."""
    if not _container(like):
        return values[path]
    if isinstance(like, dict):  # (a defaultdict keeps its factory, as a copy does)
        out = copy.copy(like)
        for k, x in like.items():
            out[k] = _rebuild(x, values, (*path, k))
        return out
    items = [_rebuild(x, values, (*path, i)) for i, x in enumerate(like)]
    return type(like)(*items) if _named_tuple(like) else type(like)(items)


def _constant_range(start: Any, stop: Any, step: Any) -> tuple[int, int] | None:
    """The smallest and largest value of a loop counter over ``range(start, stop, step)``
    when the bounds are constants (ints, or constant nodes), else None; None too for an
    empty range (the body's types then describe no iteration)."""
    bounds = [int_constant(v) for v in (start, stop, step)]
    if None in bounds:
        return None
    rng = range(*cast("list[int]", bounds))
    return (min(rng[0], rng[-1]), max(rng[0], rng[-1])) if len(rng) else None
