"""Alias sets for in-place writes: every name holding the written array is rebound.

``writes.WriteLowering`` lowers an in-place write (``a[i] = v``, ``a += v``, ``out=``,
``np.copyto``...) as a new SSA value bound to the written name.  NumPy changes the array
object itself, so every other name holding that very object sees the change.  Arrays made
inside the compiled code (inlined callees included) are tracked by node identity
(``writes._memory``'s ``same`` set: the written node and the values it stands for), so
the other holders are known when compiling: ``_check_holders`` asks ``rebindable`` about
each, and after the write ``rebind`` binds each of them to the new value:

* another name of the same frame (``b = a; a[0] = 1``; also ``b = np.asarray(a)`` or
  ``a.astype(a.dtype, copy=False)``, which are ``a`` itself: ``identity.same_object``);
  inside an ``if`` branch the branch's copy of the scope (the ``if`` outputs every name
  its branches bind differently); inside a loop body only names the body assigns (the
  loop carries no others: a name bound before the loop stays a located refusal);
* a name of a calling function (``h = np.ones(3); f(h)`` where ``f`` writes into its
  parameter), outside if/for/while bodies only;
* an item of a tuple such a name holds (``args = (a, b); ...; a[...] = v``), rebuilt;
* an attribute of an object built in the compiled code (``objects.Built``), where the
  object was built by the builder doing the write (``object_holders``).

Views of the array (basic slices, reshapes, transposes), lists, dicts, closures and bound
methods holding it stay located refusals (``writes``), as do writes into the function's
own arguments and globals.

A value read before the write and used after it in the same expression (``h + f(h)``
where ``f`` writes into ``h``; ``K + np.exp(K, out=K)``) would be the old array here and
the new one in NumPy: ``rebind`` records the old node as superseded, and ``check_inputs``
(called by ``Lowerer.emit``) and ``check_outputs`` (function and region outputs: a value
kept in a tuple or dict, ``return h, f(h)``) refuse any later use of it in the writing
builder or a region nested in it.

A ufunc's output passed positionally (``np.exp(K, K)``) is its ``out=`` (``out_keyword``),
and ``out=`` given as an expression (``out=np.asarray(X)``) names the local name holding
that very array (``out_name``).

``np.may_share_memory(a, b)`` and ``np.shares_memory(a, b)`` are answered from the same
tracking: ``shares_memory_call``.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

import libcst as cst
import numpy as np

from ..errors import UnsupportedSyntaxError
from ..ir.graph import Node
from ..ir.ops import Op
from .aliasing import NodeKey, _key

if TYPE_CHECKING:
    from .scope import Scope


def _state(lw: Any) -> dict[str, Any]:
    """The per-lowering alias state (made on first use: the mixin has no ``__init__``)."""
    st: dict[str, Any] | None = lw.__dict__.get("_alias_state")
    if st is None:
        st = lw.__dict__["_alias_state"] = {"pending": [], "objects": [], "same": set(),
                                            "superseded": {}}
    return st


def start(lw: Any, written: Node) -> None:
    """Forget the holders of a previous write: ``check_writable`` starts one into
    ``written``."""
    st = _state(lw)
    st["pending"], st["objects"] = [], []
    st["same"] = set()
    st["written"] = _key(written)


def forget(lw: Any) -> None:
    """A checked write that writes nothing (``np.fill_diagonal`` of an empty value): no
    holder changes."""
    st = _state(lw)
    st["pending"], st["objects"], st["same"], st["written"] = [], [], set(), None


def rebind_update(lw: Any, name: str, old: Any, scope: Scope, where: cst.CSTNode,
                  new: Any = None) -> None:
    """``rebind`` after a whole-value update (``x += y``, ``d[k] += y``) when
    ``check_writable`` looked at it (an array updated in place); nothing for numbers and
    lists, which are rebound or checked elsewhere."""
    if isinstance(old, Node) and _state(lw).get("written") == _key(old):
        rebind(lw, name, old, scope, where, new)


def rebindable(lw: Any, sc: Scope, k: str, v: Node, same: set[NodeKey], scope: Scope,
               written: Node) -> bool:
    """Whether the binding ``k`` of ``sc``, which reaches ``v`` (the written array itself,
    not a view), can be rebound to the written value; if so it is recorded for ``rebind``."""
    if v.type is None or v.type.kind != "array" or not _same_array(lw, v, written, same):
        return False
    in_region = lw.b.captures is not None
    if sc is not scope and (in_region or not any(sc is a for a in lw.active_scopes)):
        return False
    if in_region and not _carried(lw.b, sc.vars.get(k)):
        return False  # a loop body carries only the names it assigns: refused (``writes``)
    if k.startswith("#"):
        return False
    held = same | {_key(v)}
    if not _tuple_path(sc.vars.get(k), held, set()):
        return False
    st = _state(lw)
    st["pending"].append((sc, k))
    st["same"] |= held
    return True


def mark_branch(sub: Any) -> None:
    """Record that the builder ``sub`` is a branch of an ``if``: every name its scope
    binds differently from before becomes an output of the ``if``, so a holder rebound
    there is seen after it.  (A loop body carries only the names it assigns.)"""
    _BRANCHES.add(id(sub))
    weakref.finalize(sub, _BRANCHES.discard, id(sub))


_BRANCHES: set[int] = set()


def _carried(b: Any, value: Any) -> bool:
    """Whether a name bound to ``value`` in the region body built by ``b`` is an output of
    every enclosing region: ``if`` branches output every name they bind differently; a
    loop body only the names it assigns, whose values it (or an ``if`` branch in it) made,
    its arguments included.  Names a loop nested in the innermost one assigns are also
    assigned in it, so that loop decides."""
    owners = []
    while b is not None and b.captures is not None:
        owners.append(b)
        if id(b) not in _BRANCHES:  # the innermost loop body
            return isinstance(value, Node) and any(o.owns(value) for o in owners)
        b = b.parent
    return True


def _same_array(lw: Any, v: Node, written: Node, same: set[NodeKey]) -> bool:
    """Whether ``v`` is the written array object: the same node (or the value a region
    argument stands for), or the same object through ``np.asarray``/``astype(copy=False)``
    (``identity.same_object``)."""
    if _key(v) in same:
        return True
    from .identity import root  # noqa: PLC0415

    rv = root(lw, v)
    return _key(rv) in same or _key(rv) == _key(root(lw, written))


def same_object_source(lw: Any, n: Node) -> Node | None:
    """The array ``n`` is the very object of (``np.asarray(x)`` of an ndarray, recorded by
    ``identity.same_object``), for ``writes._parents``; None for other nodes."""
    roots: dict[Node, Node] | None = lw.__dict__.get("identity_roots")
    if not roots:
        return None
    current = getattr(lw.b, "_current", lambda m: m)
    key = _key(n)
    for result, source in roots.items():
        if _key(result) == key or _key(current(result)) == key:
            return source
    return None


def object_holders(lw: Any, memory: dict[NodeKey, Node], same: set[NodeKey], written: Node,
                   scope: Scope, where: cst.CSTNode) -> str | None:
    """Attributes of objects built in the compiled code (``objects.Built``: their runtime
    values) that hold the written array: recorded for ``rebind`` where the object was built
    by the current builder and the attribute holds the array itself (or a tuple of it);
    otherwise why the write cannot be followed (for the located refusal)."""
    built = lw.__dict__.get("_built") or {}
    st = _state(lw)
    for rec in list(built.values()):
        for attr, value in list(rec.runtime.items()):
            nodes = [n for n in _nodes_in(value) if not memory.keys().isdisjoint(
                lw._memory(n, None, scope, where)[0])]
            if not nodes:
                continue
            who = f"the attribute {attr!r} of a {type(rec.obj).__qualname__}"
            if not all(isinstance(n, Node) and n.type is not None and n.type.kind == "array"
                       and _same_array(lw, n, written, same) for n in nodes):
                return f"{who} may share memory with it"
            if rec.builder is not lw.b:
                return f"{who} (built outside this if, for or while) holds the same array"
            held = same | {_key(n) for n in nodes}
            if not _tuple_path(value, held, set()):
                return f"{who} holds the same array in a list or dict"
            st["objects"].append((rec, attr))
            st["same"] |= held
    return None


def _nodes_in(value: Any) -> list[Any]:
    """The nodes a runtime attribute value holds (itself, or through tuples, lists and
    dicts), for ``object_holders``."""
    if isinstance(value, Node):
        return [value]
    if isinstance(value, (tuple, list)):
        return [n for v in value for n in _nodes_in(v)]
    if isinstance(value, dict):
        return [n for v in value.values() for n in _nodes_in(v)]
    return []


def _tuple_path(value: Any, same: set[NodeKey], seen: set[int]) -> bool:
    """Whether ``value`` is the array or reaches it through tuples only (rebuildable)."""
    if isinstance(value, Node):
        return _key(value) in same
    if isinstance(value, tuple) and id(value) not in seen:
        seen.add(id(value))
        return any(_tuple_path(x, same, seen) for x in value)
    return False


def rebind(lw: Any, name: str, old: Node, scope: Scope, where: cst.CSTNode,
           new: Any = None) -> None:
    """After a write bound ``name`` (in ``scope``) to its new value (or ``new`` where the
    write has no name: a dict item): bind every holder ``rebindable`` recorded to it, and
    mark ``old`` superseded."""
    st = _state(lw)
    if new is None:
        new = scope.vars[name]
    same: set[NodeKey] = st["same"] | {_key(old)}
    for sc, k in st["pending"]:
        value = sc.vars.get(k)
        if isinstance(value, Node):
            sc.vars[k] = lw.b.rename(new, k) if isinstance(new, Node) else new
        else:
            sc.vars[k] = _substitute(value, same, new)
    for rec, attr in st["objects"]:
        rec.runtime[attr] = _substitute(rec.runtime[attr], same, new)
    st["pending"], st["objects"] = [], []
    st["same"] = set()
    st["written"] = None
    if isinstance(old, Node):
        st["superseded"][_key(old)] = (lw.b, name, lw.loc(where))


def _substitute(value: Any, same: set[NodeKey], new: Any) -> Any:
    if isinstance(value, Node):
        return new if _key(value) in same else value
    if isinstance(value, tuple):
        return tuple(_substitute(x, same, new) for x in value)
    return value


def check_inputs(lw: Any, nodes: list[Any], where: cst.CSTNode) -> None:
    """Refuse an op that reads an array value an in-place write replaced (see the module
    docstring): NumPy would read the changed array."""
    superseded = lw.__dict__.get("_alias_state", {}).get("superseded")
    if not superseded:
        return
    for n in nodes:
        if isinstance(n, Node):
            hit = superseded.get(_key(n))
            if hit is not None and _within(lw.b, hit[0]):
                _, name, loc = hit
                line = f" (line {loc.line})" if loc is not None else ""
                raise lw.fail(
                    f"{name!r} is written in place{line} while this expression is being "
                    "evaluated, after its value was read here: NumPy would use the changed "
                    "array, which st_autodiff cannot follow", where,
                    "do the in-place write in a statement of its own, before the expression")


def check_outputs(lw: Any, builder: Any, outputs: list[Any]) -> None:
    """Refuse a function or region output that is an array value an in-place write of
    ``builder`` replaced: a value read before the write and kept in a tuple, list or dict
    (``return h, f(h)`` where ``f`` writes into ``h``), which NumPy would see changed."""
    superseded = lw.__dict__.get("_alias_state", {}).get("superseded")
    if not superseded:
        return
    for n in outputs:
        hit = superseded.get(_key(n)) if isinstance(n, Node) else None
        if hit is not None and _within(builder, hit[0]):
            _, name, loc = hit
            raise UnsupportedSyntaxError(
                f"writing into {name!r} here changes an array whose value was read before "
                "the write and kept (in a tuple, list or dict, or a pending expression): "
                "NumPy would show the changed array, which st_autodiff cannot follow", loc,
                "do the in-place write in a statement of its own, before the value is read")


def _within(b: Any, writer: Any) -> bool:
    """Whether the builder ``b`` is ``writer`` or a region body nested in it (lowered
    after the write, so reading the replaced value there is reading a stale one)."""
    while b is not None:
        if b is writer:
            return True
        b = getattr(b, "parent", None)
    return False


# --- out= ------------------------------------------------------------------------------------

def out_keyword(fn: Any, args: list[Any], kwargs: dict[str, Any]
                ) -> tuple[list[Any], dict[str, Any]]:
    """A ufunc's output arrays passed positionally (``np.exp(K, K)``) as ``out=``."""
    if not isinstance(fn, np.ufunc) or len(args) <= fn.nin or "out" in kwargs:
        return args, kwargs
    outs = args[fn.nin:]
    return args[:fn.nin], {**kwargs, "out": outs[0] if len(outs) == 1 else tuple(outs)}


def positional_out(fn: Any, e: cst.Call) -> cst.BaseExpression | None:
    """The expression of a ufunc's first output passed positionally, if any."""
    if not isinstance(fn, np.ufunc):
        return None
    plain = [a for a in e.args if a.keyword is None]
    if len(plain) > fn.nin and not any(a.star for a in plain[:fn.nin + 1]):
        return plain[fn.nin].value
    return None


def out_name(lw: Any, out: Any, expr: cst.BaseExpression | None, e: cst.Call,
             scope: Scope) -> cst.Name | None:
    """The name to write an ``out=`` array into: the expression itself when it is a name,
    else (``out=np.asarray(X)``) a name of this frame bound to that very array object
    (``identity.root``); every other holder is rebound by the write anyway."""
    if isinstance(expr, cst.Name):
        return expr
    if not isinstance(out, Node) or expr is None:
        return None
    from .identity import root  # noqa: PLC0415
    from .parse import synthesize  # noqa: PLC0415

    target = _key(root(lw, out))
    for k, v in scope.vars.items():
        if not k.startswith("#") and isinstance(v, Node) and _key(root(lw, v)) == target:
            name = cst.Name(k)
            synthesize(name, expr)
            return name
    return None


# --- np.may_share_memory / np.shares_memory -----------------------------------------------

SHARES = (np.may_share_memory, np.shares_memory)


def is_shares_memory(fn: Any) -> bool:
    """Whether ``fn`` is ``np.may_share_memory`` or ``np.shares_memory``."""
    return any(fn is f for f in SHARES)


def shares_memory_call(lw: Any, fn: Any, args: list[Any], kwargs: dict[str, Any],
                       e: cst.Call, scope: Scope) -> bool:
    """``np.may_share_memory(a, b)``/``np.shares_memory(a, b)`` answered when compiling:
    True for the same array object, False when one is an array the compiled code made
    (not a view) and the other is anything else; otherwise a located refusal (views,
    two arguments: the caller decides)."""
    what = f"np.{fn.__name__}"
    if len(args) != 2 or set(kwargs) - {"max_work"}:
        raise lw.fail(f"{what} takes two arrays here", e)
    a, b = args
    if not isinstance(a, Node) or not isinstance(b, Node):
        static = [x for x in (a, b) if not isinstance(x, Node)]
        if all(isinstance(x, (bool, int, float, type(None))) for x in static):
            return False  # a Python number is made into a new array by NumPy
        raise lw.fail(f"{what} between a runtime array and a value known when compiling "
                      "is not decided here", e, "drop the check: compiled code copies")
    from .identity import root  # noqa: PLC0415

    ra, rb = root(lw, a), root(lw, b)
    mem_a, same_a = lw._memory(ra, None, scope, e)
    mem_b, same_b = lw._memory(rb, None, scope, e)
    if _key(ra) == _key(rb) or not same_a.isdisjoint(same_b):
        t = ra.type
        if t is not None and t.shape is not None and 0 in t.shape:
            return False  # an empty array shares no memory
        if t is not None and t.shape is not None:
            return True
    elif mem_a.keys().isdisjoint(mem_b.keys()) and (_made_here(lw, ra) or _made_here(lw, rb)):
        return False
    raise lw.fail(f"{what} here depends on which arrays the caller passed or on the memory "
                  "layout of views, which is not known when compiling", e,
                  "drop the check, or copy the array first")


def _made_here(lw: Any, r: Node) -> bool:
    """Whether ``r`` is an array an op of the compiled code made (not an argument, a
    constant, a view, or a value that may be one of several objects)."""
    from .identity import _MAY_PASS_THROUGH, _new_each_time  # noqa: PLC0415
    from .lower import _VIEWS  # noqa: PLC0415

    if r.op in _MAY_PASS_THROUGH or r.op.value.startswith("list") or not _new_each_time(r):
        return False
    if lw._is_function_arg(r):
        return False
    if lw.foreign_arrays and r.op in (Op.ASARRAY, Op.ASTYPE):
        return False  # np.asarray of an argument that may be another kind of array
    return not (r.op in _VIEWS and not lw._copies(r))
