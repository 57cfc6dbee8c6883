"""In-place writes for ``lower``: ``a[i] = v`` and ``a[i] op= v`` as a functional ``setitem``.

``WriteLowering`` is mixed into ``lower.Lowerer``.  ``a[idx] = v`` becomes the SSA value
``a_1 = setitem(a, v, idx)`` (a copy of ``a`` with ``v`` written at ``idx``), bound to the
name ``a``: later reads see ``a_1``, while operations that read ``a`` before the write keep
the old value as their own input, so their gradients stay right, and the rule of
``setitem`` sends the gradient of the overwritten region to ``v`` alone.  ``a[idx] op= v``
reads ``a[idx]`` first: ``setitem(a, a[idx] op v, idx)``, which is NumPy's meaning even for
repeated indices (each position is updated once, by its last write).

The rewrite is exact only when nothing else can see the array that NumPy would change.
``check_writable`` refuses, with a location and a hint:

* writes into something that is not an array, or into a 0-d value (a scalar);
* names of an enclosing function or of the module (other uses would miss the change);
* arguments (the caller holds the array), global and closure arrays (they would change
  for every later call), and possible views of them;
* arrays that share memory with a value another live name holds as a view: its base
  (``b = a[1:]; b[0] = 1`` changes ``a``), a view of it (``v = a[:2]; a[0] = 5`` changes
  ``v``), or anything sharing a base with it.  Another name, tuple item or calling
  function's name holding the same array (``b = a; b[0] = 1``) is rebound to the new
  value with it (``aliases``), where the enclosing regions output that name; elsewhere
  it is refused too.

The same check covers whole-array updates (``x += y`` on an ndarray, including a 0-d
one, and ``d[key] += y`` on an array a dict holds: ``check_dict_item``), which NumPy also
does in place; their messages say "in-place update of" and hint ``x = x + ...``.

"Live" means bound in a scope of a function being lowered (callers included), or held by
a tuple, list, dict, closure or bound method such a scope holds, or appended to a list
earlier in the loop body being lowered (the scope's ``#app...`` and ``#last:`` slots).
Across iterations, ``check_loop_aliases`` (called by the loop lowering once a body is
lowered) refuses a write into a carried array that the previous iteration also appended
to a list or left in another carried name the body reads: the write log records what
each accepted write wrote.  Memory is followed
through the ops of ``lower._VIEWS`` (a ``getitem`` with an integer-array, list or boolean
index is a copy, not a view), through containers (tuples, runtime lists hold the arrays
themselves) and, inside ``if``/``for``/``while`` bodies, from a body argument to the value
it stands for.  Fresh arrays (``np.zeros``, ``np.ones``, ``np.zeros_like``, ``np.copy``,
``x.copy()``, arithmetic, ``np.array`` of a literal) are writable.

Regions (``if``/``for``/``while`` bodies, lowered in copies of the scope).  A write in a
body rebinds the name in the body's scope, so the region outputs the new array.  A loop
body argument stands for the value its name had before the loop: the loop lowering says
which with ``note_carried(arg, before)``; for a loop at the top level of its function no
note is needed (that value is still bound in the function's scope).  A body argument
whose origin is unknown is refused, and so is a write, inside a region, into an array an
inlined function's parameters hold (the caller's scope copy for that region, where other
names may refer to it, is not searched): refusals, never a silent wrong result.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

import libcst as cst
import numpy as np

from ..ir.abstract import is_numpy_scalar
from ..ir.graph import GraphBuilder, Node, index_may_repeat
from ..ir.ops import Op
from ..ir.regions import REGIONS
from . import aliases, layout_queries, nested_writes, static_numpy, static_numpy_writes
from .aliasing import LoopAliasing, NodeKey, _appended_list, _key, _Write
from .fresh import runs_at_least_once
from .scope import BoundMethod, Closure, Scope, scope_chain
from .zero_d_writes import is_zero_d_ndarray

if TYPE_CHECKING:
    from .lower import Lowerer

#: Ops whose value holds its inputs themselves (tuples; runtime lists where the op table
#: has them), and ops whose value is one of the arrays a container holds.
_CONTAINERS = frozenset({Op.TUPLE} | {op for op in Op if op.name in ("LIST", "LIST_CONCAT")})
_ITEMS = frozenset({op for op in Op if op.name == "LIST_GET"})

class WriteLowering(LoopAliasing):
    """The in-place-write half of ``lower.Lowerer`` (see the module docstring)."""

    #: The values of a tuple assignment (``a, b[0] = x, y``) not assigned yet, while one
    #: of its targets is: a write into memory they share would change them first.
    pending_rhs: tuple[Node, ...] = ()

    # --- the two statements ---------------------------------------------------------

    def assign_subscript(self, target: cst.Subscript, value: Any, scope: Scope) -> None:
        """Lower ``name[index] = value``: ``name`` is bound to ``setitem(name, value,
        index)`` in the scope where it lives."""
        if isinstance(target.value, cst.Subscript):  # a[i][j] = v: through the view a[i]
            return nested_writes.write(self, target, value, scope)
        name, base = self.write_target(target, scope)
        index, dyn = self.write_index(target, scope)
        new = self.emit(Op.SETITEM, [base, value, *dyn], {"index": index}, target)
        scope.vars[name] = self.b.rename(new, name)
        aliases.rebind(self, name, base, scope, target)

    def aug_assign_subscript(self, target: cst.Subscript, op: Op, value: Any, scope: Scope,
                             where: cst.CSTNode) -> None:
        """Lower ``name[index] op= value`` as ``name[index] = name[index] op value`` (the
        index is evaluated once)."""
        if isinstance(target.value, cst.Subscript):
            return nested_writes.write(self, target, value, scope, op, where)
        name, base = self.write_target(target, scope)
        index, dyn = self.write_index(target, scope)
        if op in (Op.ADD, Op.SUB) and _accumulates(base, value, index, dyn):
            # an addition at distinct positions: index_add, whose adjoint passes the
            # array's gradient through whole (setitem's would copy and zero the region)
            if op is Op.SUB:
                value = self.emit(Op.NEG, [value], None, where) if isinstance(
                    value, Node) else -value
            new = self.emit(Op.INDEX_ADD, [base, value, *dyn], {"index": index}, where)
        else:
            old = self.emit(Op.GETITEM, [base, *dyn], {"index": index}, target)
            combined = self.binary(op, old, value, where)
            new = self.emit(Op.SETITEM, [base, combined, *dyn], {"index": index}, where)
        scope.vars[name] = self.b.rename(new, name)
        aliases.rebind(self, name, base, scope, where)

    def write_target(self, target: cst.Subscript, scope: Scope) -> tuple[str, Node]:
        """The written name and its current value, once ``check_writable`` allows it."""
        if not isinstance(target.value, cst.Name):  # (a[i][j] = v: nested_writes)
            raise self.fail(
                "only a named array can be written element by element (name[index] = value)",
                target, "bind the array to a local name, write into it, and use that name")
        name = target.value.value
        value = self.name(target.value, scope)
        self.check_writable(name, value, scope, target)
        return name, value

    def write_index(self, target: cst.Subscript, scope: Scope
                    ) -> tuple[tuple[Any, ...], list[Node]]:
        """The subscript of ``target`` as the IR's static index and its runtime parts."""
        parts = [self.index_part(el, scope) for el in target.slice]
        if len(parts) == 1 and isinstance(parts[0], tuple):
            parts = list(parts[0])  # a[idx] with a tuple idx means a[idx[0], idx[1], ...]
        return self.index_spec(parts, target)

    # --- may this array be written? ---------------------------------------------------

    def check_writable(self, name: str, value: Any, scope: Scope, where: cst.CSTNode,
                       update: str | None = None) -> None:
        """Refuse (a located error with a hint) a write into ``value``, bound to ``name``
        in ``scope``, that NumPy would make visible somewhere the functional rewrite
        would not; see the module docstring.  ``update`` is the operator of a whole-array
        in-place update (``+`` for ``name += v``), for the message and hint."""
        self._check_kind(name, value, where, update)
        copy_hint = (f"write {name} = {name} {update} ... to make a new array" if update
                     else f"copy it first ({name} = {name}.copy()) and write into the copy")
        if name not in scope.vars:  # found in an enclosing function or the module
            why = ("it is a global or closure array, so it would change for every call"
                   if value.op is Op.CONST else "it belongs to an enclosing function, whose "
                   "other uses of it would not see the change")
            raise self._refuse(name, why, where, copy_hint, update)
        self._check_holders(name, value, scope, where, update, copy_hint)

    def check_dict_item(self, label: str, d: dict[Any, Any], key: Any, scope: Scope,
                        where: cst.CSTNode, update: str) -> None:
        """``d[key] op= v`` on an array a dict holds updates that array in place: refuse
        it (``label`` names the item in messages) when something other than this entry of
        ``d`` can see the array."""
        value = d[key]
        if isinstance(value, static_numpy.StaticArray):
            del d[key]  # the entry itself is the one holder allowed
            try:
                static_numpy_writes.check_item_unshared(cast("Lowerer", self), value, label,
                                                        scope, where, update)
            finally:
                d[key] = value
            return
        t = value.type if isinstance(value, Node) else None
        if not isinstance(value, Node) or t is None or t.kind != "array" or t.shape == () \
                or is_numpy_scalar(self.b.values.get(value)):
            return  # numbers are immutable: the entry is rebound
        del d[key]  # the entry itself is the one holder allowed
        try:
            self._check_holders(label, value, scope, where, update,
                                f"write {label} = {label} {update} ... to make a new array")
        finally:
            d[key] = value

    def _check_holders(self, name: str, value: Node, scope: Scope, where: cst.CSTNode,
                       update: str | None, copy_hint: str) -> None:
        """The part of ``check_writable`` that looks for other holders of the memory."""
        memory, same = self._memory(value, name, scope, where, update)
        aliases.start(self, value)
        for key, m in memory.items():
            why = self._foreign(m, key in same)
            if why is not None:
                raise self._refuse(name, why, where, copy_hint, update)
        if len(self.fn_stack) > 1 and self.b.captures is not None and \
                not memory.keys().isdisjoint(self._passed_in(scope, where)):
            # a caller's if/for/while body is not among the scopes searched below
            raise self._refuse(name, "it may be an array passed in by a caller, and inside "
                               "an if, for or while st_autodiff cannot check what else "
                               "refers to it", where, copy_hint + ", then return it", update)
        for sc, k, held, v in self._bindings(scope):
            if k == name and not held and self._same_frame(sc, scope):
                continue  # the written name itself (or its copy outside this if/for/while)
            if sc is not scope and k in scope.vars and self._same_frame(sc, scope):
                continue  # outside this if/for/while, replaced by the body's own binding
            shared, _ = self._memory(v, None, scope, where)
            if memory.keys().isdisjoint(shared):
                continue
            if aliases.rebindable(self, sc, k, v, same, scope, value):
                continue  # the same array: rebound to the new value after the write
            listed = _appended_list(k)
            if listed is not None:  # an item appended to a list earlier in this loop body
                what = "it is" if _key(v) in same else "a view of it is" if not \
                    same.isdisjoint(shared) else "an array sharing memory with it is"
                why = f"{what} stored in the list {listed!r}{self._line_of(listed, sc)}, which"
                raise self._refuse(name, why + " would change too", where, copy_hint, update)
            who = repr(k) + self._whose(sc, scope)
            if v.type is not None and v.type.kind == "list":
                why = f"it may be stored in the list {who}"
            elif _key(v) in same:
                why = f"{who} {'holds' if held else 'refers to'} the same array"
            elif _key(v) in memory:
                why = f"it may be a view of {who}"
            elif not same.isdisjoint(shared):
                why = f"{who} may be a view of it"
            else:
                why = f"{who} may share memory with it"
            hint = copy_hint if _key(v) in memory or update else (
                f"make {k} a copy where it is made (... .copy()) if it must keep its values")
            raise self._refuse(name, why + " and would change too", where, hint, update)
        why = aliases.object_holders(self, memory, same, value, scope, where)
        if why is not None:  # an attribute of an object built here that cannot follow
            raise self._refuse(name, why + " and would change too", where, copy_hint, update)
        for v in self.pending_rhs:  # a, b[0] = ...: values still to be assigned
            shared, _ = self._memory(v, None, scope, where)
            if not memory.keys().isdisjoint(shared):
                raise self._refuse(
                    name, "a value on the right of this assignment, assigned after this "
                    "write, is this array or a view of it, so NumPy assigns it with the "
                    "change (in `b[0], b[1] = b[1], b[0]` on rows, both rows end up equal)",
                    where, "copy that value on the right (b[0].copy()), or swap with one "
                    "advanced index: b[[0, 1]] = b[[1, 0]]", update)
        self._write_log().append(_Write(set(memory), name, self.loc(where), copy_hint,
                                        update))

    def _passed_in(self, scope: Scope, where: cst.CSTNode) -> set[NodeKey]:
        """The memory of what the parameters of the function being lowered hold (in its
        own scope and in ``scope``, its copy for an if/for/while body)."""
        names = self.fn.all_params
        top = self.active_scopes[-1] if self.active_scopes else scope
        entry = getattr(self, "entry_params", {}).get(id(top))
        keys: set[NodeKey] = set()
        # the values the parameters were bound to on entry: a parameter rebound since to a
        # fresh array (c = np.array(c, copy=True)) no longer holds the caller's memory
        for p in names:
            values = [top.vars.get(p), scope.vars.get(p)]
            if entry is not None and p in entry:
                # the body's binding stands for the caller's array unless the function
                # rebound the name before this if/for/while
                values = [entry[p]] + ([scope.vars.get(p)] if top.vars.get(p) is entry[p]
                                       else [])
            for v in values:
                if isinstance(v, Node):
                    keys.update(self._memory(v, None, scope, where)[0])
        return keys

    def note_carried(self, arg: Node, before: Node | None) -> None:
        """Record that the loop body argument ``arg`` carries the value ``before`` had
        before the loop (``None``: a name the loop creates), for ``check_writable``."""
        self._carried()[_key(arg)] = before

    def _check_kind(self, name: str, value: Any, where: cst.CSTNode,
                    update: str | None = None) -> None:
        """Only arrays with at least one dimension have elements to write."""
        t = value.type if isinstance(value, Node) else None
        if isinstance(value, Node) and (t is None or t.kind == "array"):
            if update is None and ((t is not None and t.shape == ()) or is_numpy_scalar(
                    self.b.values.get(value))) and not is_zero_d_ndarray(self, value):
                raise self.fail(f"cannot write into an element of {name!r}: it is a 0-d "
                                "value (a scalar), not an array with elements", where,
                                f"assign it a new value instead: {name} = ...")
            return
        if isinstance(value, Node):
            assert t is not None  # (returned above when unknown)
            what = {"float": "a number", "int": "an integer", "bool": "a boolean",
                    "tuple": "a tuple", "list": "a list"}.get(t.kind, f"a {t.kind} value")
        elif isinstance(value, np.ndarray):
            raise self._refuse(name, "it is an array the function did not create (a default "
                               "argument or a global), so it would change for every call",
                               where, f"write {name} = {name} {update} ... to make a new "
                               "array" if update else f"copy it first ({name} = "
                               f"{name}.copy()) and write into the copy", update)
        else:
            what = f"a {type(value).__name__} known when compiling"
        raise self.fail(f"cannot write into an element of {name!r}: it is {what}, not an "
                        "array", where, "element writes are supported on NumPy arrays; "
                        "build a new value instead")

    def _refuse(self, name: str, why: str, where: cst.CSTNode, hint: str,
                update: str | None = None) -> Exception:
        verb = "in-place update of" if update else "writing into"
        return self.fail(f"{verb} {name!r} is not supported here: {why}", where, hint)

    def _foreign(self, m: Node, itself: bool) -> str | None:
        """Why writing into memory ``m`` would reach outside the function, or None."""
        if self._is_function_arg(m):
            return ("it is an argument, so the caller's array would change too" if itself
                    else f"it may be a view of the argument {m.name!r}, so the caller's "
                    "array would change too")
        if m.op is Op.CONST and m.name is not None:
            return ("it is a global or closure array, so it would change for every call"
                    if itself else f"it may be a view of the global or closure array "
                    f"{m.name!r}, so it would change for every call")
        return None

    # --- memory: views, containers, region arguments ---------------------------------

    def _memory(self, n: Node, name: str | None, scope: Scope, where: cst.CSTNode,
                update: str | None = None) -> tuple[dict[NodeKey, Node], set[NodeKey]]:
        """``n`` and every node whose memory it may share (the bases of views, the arrays
        a container holds, the values body arguments stand for), and the keys of those
        that are ``n``'s array itself (``n`` and the values it stands for).  With ``name``
        (the written value), a body argument of unknown origin is refused; elsewhere it
        ends the walk."""
        found: dict[NodeKey, Node] = {}
        same: set[NodeKey] = set()
        todo = [n]
        while todo:
            m = todo.pop()
            if _key(m) in found:
                continue
            found[_key(m)] = m
            if m.op is Op.ARG and not self._is_function_arg(m):
                origin, known = self._origin(m, name if m is n else None, scope)
                if origin is not None:
                    todo.append(origin)
                elif not known and name is not None:
                    raise self._refuse(
                        name, "it comes from an enclosing if, for or while, and st_autodiff "
                        "cannot check what else refers to it there", where,
                        "write into an array made at this loop's level (e.g. make it "
                        "with np.zeros before the loop)", update)
            else:
                todo.extend(self._parents(m))
        m = n  # n's own array: n, the value it stands for, and so on
        while _key(m) in found and _key(m) not in same:
            same.add(_key(m))
            if m.op is not Op.ARG or self._is_function_arg(m):
                break
            origin = self._origin(m, name if m is n else None, scope)[0]
            if origin is None:
                break
            m = origin
        return found, same

    def _parents(self, n: Node) -> tuple[Node, ...]:
        """The nodes whose memory ``n`` may share directly."""
        from .lower import _VIEWS  # noqa: PLC0415  (lower imports this module)

        if n.op in _CONTAINERS:
            return n.inputs
        source = aliases.same_object_source(self, n)  # np.asarray(x): x itself
        if source is not None:
            return (source,)
        if n.op is Op.ITEM and n.inputs[0].op in REGIONS:
            return self._region_output_parents(n.inputs[0], n.param("index"))
        if n.op in _ITEMS or (n.op in _VIEWS and not self._copies(n)):
            return n.inputs[:1]
        return ()

    def _region_output_parents(self, r: Node, k: int) -> tuple[Node, ...]:
        """The inputs of the region ``r`` whose memory its output ``k`` may share: follow
        the body output back through views and containers to body arguments, and those
        to the region's inputs (a carried value also to its value before the loop, and
        to what the body makes of it).  Fresh arrays the body makes share nothing."""
        if r.op is Op.IF:
            bodies = [r.param("then"), r.param("orelse")]
            outer = {a: i for body in bodies for a, i in zip(body.args, r.inputs[1:])}
            carry: dict[Node, int] = {}
        else:
            body = r.param("body")
            bodies = [body]
            lead = 3 if r.op is Op.FOR else 0  # start, stop, step
            n_xs = r.param("n_xs") or 0
            args = body.args[1:] if r.op is Op.FOR else body.args
            outer = dict(zip(args, r.inputs[lead:]))
            first = n_xs  # carried arguments follow the loop items
            carry = {a: j for j, a in enumerate(args[first:first + r.param("n_carry")])}
        n_carry = r.param("n_carry") or 0
        if r.op is not Op.IF and k >= n_carry + (r.param("n_ys") or 0):
            return ()  # the trip count
        found: dict[NodeKey, Node] = {}
        seen: set[NodeKey] = set()
        todo = [body.outputs[k] for body in bodies]
        while todo:
            m = todo.pop()
            if _key(m) in seen:
                continue
            seen.add(_key(m))
            if m.op is Op.ARG:
                if m in outer:
                    found[_key(outer[m])] = outer[m]
                if m in carry:  # a carried value: also what the body makes of it
                    todo.append(bodies[0].outputs[carry[m]])
                continue
            parents = self._parents(m)
            if not parents:  # an array the body makes: two outputs holding it share it
                found[_key(m)] = m
            todo.extend(parents)
        if r.op is not Op.IF and k < n_carry and not runs_at_least_once(r):
            # zero iterations: the value before (with one or more, the body's output,
            # which reaches the value before through the body arguments if it can)
            init = r.inputs[(3 if r.op is Op.FOR else 0) + (r.param("n_xs") or 0) + k]
            found[_key(init)] = init
        return tuple(found.values())

    def _copies(self, n: Node) -> bool:
        """Whether a ``getitem`` certainly copies: an integer-array, list or boolean
        index (NumPy's advanced indexing), or a NumPy scalar result."""
        if layout_queries.is_new_array(cast("Lowerer", self), n):
            return True  # x.flatten(): a ravel that always copies
        if n.op is not Op.GETITEM:
            return False
        if is_numpy_scalar(self.b.values.get(n)):
            return True
        for entry in n.param("index") or ():
            if isinstance(entry, tuple) and entry[0] == "list":
                return True
            if isinstance(entry, tuple) and entry[0] == "in":
                t = n.inputs[1 + entry[1]].type
                if t is not None and t.kind == "array" and (
                        t.dtype == "bool" or (t.shape is not None and t.shape != ())):
                    return True
        return False

    def _is_function_arg(self, n: Node) -> bool:
        """An argument of the function being differentiated, or a region body's copy of
        one (same location: its parameter).  Other body arguments are region values."""
        if n.op is not Op.ARG or n.loc is None:
            return False
        top = self.fn_stack[0]
        return n.loc in {top.loc(p) for p in top.node.params.params}

    def _origin(self, arg: Node, name: str | None, scope: Scope) -> tuple[Node | None, bool]:
        """``(value, known)``: the value the region body argument ``arg`` stands for, and
        whether that is known (a loop-created name stands for nothing: ``(None, True)``)."""
        carried = self._carried()
        if _key(arg) in carried:
            return carried[_key(arg)], True
        b: GraphBuilder | None = self.b  # the region may be this body or one it is nested in
        while b is not None:
            for outer, inner in (b.captures or {}).items():
                if _key(inner) == _key(arg):
                    return outer, True
            b = b.parent
        # the written name, carried by a loop at the top level of this function: its
        # value before the loop is still bound in the function's own scope
        top = self.active_scopes[-1] if self.active_scopes else None
        if (name is not None and top is not None and self.region_depth == 1
                and self.b.captures is not None and self.b.owns(arg)
                and self._same_frame(top, scope)):
            before = top.vars.get(name)
            return (before if isinstance(before, Node) else None), True
        return None, False

    def _carried(self) -> dict[NodeKey, Node | None]:
        """Body arguments -> the values they carry, from ``note_carried`` (made here on
        first use: the mixin has no ``__init__``)."""
        table = self.__dict__.get("_carried_values")
        if table is None:
            table = self.__dict__["_carried_values"] = {}
        return table

    # --- live names ---------------------------------------------------------------------

    def _bindings(self, scope: Scope) -> Iterator[tuple[Scope, str, bool, Node]]:
        """``(scope, name, held, node)`` for every node a live name can reach; ``held``
        when it is reached through a container, closure or bound method."""
        todo = [sc for top in [scope, *self.active_scopes] for sc in scope_chain(top)]
        seen: set[int] = set()
        while todo:
            sc = todo.pop(0)
            if id(sc) in seen:
                continue
            seen.add(id(sc))
            for k, v in list(sc.vars.items()):
                if k.startswith("#") and _appended_list(k) is None:
                    continue  # control-flow flags and a pending return value, not names
                stack: list[tuple[Any, bool]] = [(v, False)]
                while stack:
                    item, held = stack.pop()
                    if isinstance(item, Node):
                        yield sc, k, held, item
                    elif isinstance(item, static_numpy.StaticArray):
                        # its memory
                        for node in static_numpy.nodes_sharing(cast("Lowerer", self), item):
                            yield sc, k, held, node  # as nodes it was handed out as
                    elif isinstance(item, (tuple, list)):
                        if id(item) not in seen:
                            seen.add(id(item))
                            stack.extend((x, True) for x in item)
                    elif isinstance(item, dict):
                        stack.extend((x, True) for x in item.values())
                    elif isinstance(item, BoundMethod):
                        stack.append((item.receiver, True))
                    elif isinstance(item, Closure) and id(item) not in seen:
                        seen.add(id(item))
                        stack.extend((x, True) for x in item.fn.defaults.values())
                        todo.extend(scope_chain(item.scope))

    def _same_frame(self, sc: Scope, scope: Scope) -> bool:
        """Whether ``sc`` is ``scope``, or the scope of the function being lowered while
        ``scope`` is its copy for an if/for/while body (whose names replace it after)."""
        if sc is scope:
            return True
        top = self.active_scopes[-1] if self.active_scopes else None
        return sc is top and scope.parent is top.parent and scope.outer is top.outer

    def _whose(self, sc: Scope, scope: Scope) -> str:
        """Where a binding lives, for messages: nothing for the current function."""
        if self._same_frame(sc, scope):
            return ""
        if sc in scope_chain(scope):
            return " (in an enclosing function)"
        if any(sc is a for a in self.active_scopes):
            return " (in a calling function)"
        return " (held by a closure)"


def _accumulates(base: Node, value: Any, index: tuple[Any, ...], dyn: list[Node]) -> bool:
    """Whether ``base[index] += value`` is ``index_add``: the index names each position
    once (``index_may_repeat``: no integer arrays or lists), the sum keeps the array's
    dtype, and the shapes are known (so the adjoint can sum the value's gradient down to
    the value's shape)."""
    bt = base.type
    if bt is None or bt.kind != "array" or bt.shape is None or not bt.is_float:
        return False
    if index_may_repeat(index, dyn):
        return False
    if isinstance(value, bool) or not isinstance(value, (Node, int, float)):
        return False
    if isinstance(value, (int, float)):
        return True
    vt = value.type
    if vt is None or vt.ndim is None or vt.dtype is None:
        return False
    return np.result_type(np.dtype(bt.dtype), np.dtype(vt.dtype)) == np.dtype(bt.dtype)
