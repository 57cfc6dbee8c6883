"""Small Python constructs in lowering: bitwise augmented assignment, compile-time
iterators (``iter``/``next`` over static containers), ``del``.

``k &= 1``, ``k <<= 2`` on ints known when compiling fold as Python does; ``m &= other``
(``|=``, ``^=``) on boolean masks is the logical op, with the in-place rules of ``+=``
(``check_private``).  Shifts of runtime values are refused (no derivative meaning, no op).
"""

from __future__ import annotations

import builtins
import itertools
import math
import operator
from typing import TYPE_CHECKING, Any

import libcst as cst
import numpy as np

from ..errors import UnsupportedSyntaxError
from ..ir.graph import Node, holds_node
from ..ir.ops import Op
from . import aliases
from .scope import DELETED, Deleted, StaticIterator
from .static_stmts import static_exception

if TYPE_CHECKING:
    from .lower import Lowerer
    from .scope import Scope

_BITWISE = {cst.BitAndAssign: (operator.and_, Op.LOGICAL_AND, "&"),
            cst.BitOrAssign: (operator.or_, Op.LOGICAL_OR, "|"),
            cst.BitXorAssign: (operator.xor, Op.LOGICAL_XOR, "^"),
            cst.LeftShiftAssign: (operator.lshift, None, "<<"),
            cst.RightShiftAssign: (operator.rshift, None, ">>")}


def bitwise_aug(lw: Lowerer, s: cst.AugAssign, scope: Scope) -> bool:
    """``name &= v`` (``|=``, ``^=``, ``<<=``, ``>>=``); False when ``s`` is no such
    statement."""
    entry = _BITWISE.get(type(s.operator))
    if entry is None:
        return False
    fold, op, sym = entry
    if not isinstance(s.target, cst.Name):
        raise lw.fail(f"`{sym}=` on an item or attribute is not supported", s.target,
                      f"write name = name {sym} value with a name of its own",
                      kind=UnsupportedSyntaxError)
    current = lw.name(s.target, scope)
    value = lw.expr(s.value, scope)
    if not isinstance(current, Node) and not isinstance(value, Node):
        try:
            result = fold(current, value)
        except Exception as exc:
            raise static_exception(lw, exc, s) from None
        lw.assign(s.target, result, scope)
        return True
    if op is None:
        lw.assign(s.target, shift(lw, sym, current, value, s), scope)
        return True
    if isinstance(current, Node):
        t = current.type
        if t is None or t.kind == "array" and t.shape != ():
            lw.check_private(s.target.value, current, scope, s, op)
    lw.assign(s.target, lw.logical(op, current, value, s), scope)
    aliases.rebind_update(lw, s.target.value, current, scope, s)
    return True


def binary_shift(lw: Lowerer, e: cst.BinaryOperation, scope: Scope) -> Any:
    """``a << b`` / ``a >> b`` as an expression: folded on static ints (Python's result or
    its exception), else ``shift``; None when ``e`` is no shift."""
    sym = {cst.LeftShift: "<<", cst.RightShift: ">>"}.get(type(e.operator))
    if sym is None:
        return None
    a, b = lw.expr(e.left, scope), lw.expr(e.right, scope)
    if not isinstance(a, Node) and not isinstance(b, Node):
        try:
            return operator.lshift(a, b) if sym == "<<" else operator.rshift(a, b)
        except Exception as exc:
            raise static_exception(lw, exc, e) from None
    return shift(lw, sym, a, b, e)


def shift(lw: Lowerer, sym: str, a: Any, b: Any, where: cst.CSTNode) -> Any:
    """``a << b`` / ``a >> b`` with ``a`` a runtime integer scalar and ``b`` an int known when
    compiling: exactly ``a * 2**b`` / ``a // 2**b`` (Python's and NumPy's shifts of ints)."""
    t = a.type if isinstance(a, Node) else None
    int_scalar = t is not None and (t.kind == "int" or t.kind == "array" and t.shape == () and
                                    t.dtype is not None and t.dtype.startswith(("int", "uint")))
    if not int_scalar or isinstance(b, Node) or not isinstance(b, int) or b < 0:
        raise lw.fail(f"`{sym}` on a value computed at run time is only supported for an "
                      "integer shifted by a non-negative int known when compiling", where,
                      "shift ints known when compiling (from shapes or int arguments)",
                      kind=UnsupportedSyntaxError)
    return lw.binary(Op.MUL if sym == "<<" else Op.FLOORDIV, a, 1 << b, where)


# --- compile-time iterators --------------------------------------------------------------

#: builtins that consume an iterator argument whole: it is exhausted into a list first
_CONSUMERS = frozenset({builtins.list, builtins.tuple, builtins.zip, builtins.enumerate,
                        builtins.sorted, builtins.sum, builtins.min, builtins.max,
                        builtins.any, builtins.all, builtins.set, builtins.frozenset,
                        builtins.dict, builtins.map, builtins.filter, math.prod,
                        math.fsum})


def check_loop_body(lw: Lowerer, before: dict[str, Any], after: dict[str, Any],
                    stmt: cst.CSTNode) -> None:
    """A loop lowered once as a region (its trip count known only at run time) must not
    advance a static iterator, change a static set or delete a name: each would happen
    once while compiling instead of once per iteration."""
    for k, old in before.items():
        new = after.get(k, old)
        what = None
        if isinstance(old, StaticIterator) and (
                not isinstance(new, StaticIterator) or new.pos != old.pos):
            what = f"the iterator {k!r} is advanced"
        elif isinstance(old, (set, frozenset)) and new != old:
            what = f"the set {k!r} is changed"
        elif isinstance(new, Deleted) and not isinstance(old, Deleted):
            what = f"{k!r} is deleted"
        if what is not None:
            raise lw.fail(f"{what} inside a loop whose trip count is only known at run time",
                          stmt, "index the sequence with the loop variable instead",
                          kind=UnsupportedSyntaxError)


def as_items(v: Any) -> Any:
    """A static iterator as the list of its remaining items (exhausting it), a set of
    static values as a list in Python's iteration order; anything else unchanged."""
    if isinstance(v, StaticIterator):
        return v.rest()
    if type(v).__name__ == "StaticArray":  # a static array's rows or items (static_numpy)
        return v.items()
    if isinstance(v, (set, frozenset)):
        return list(v)
    return v


def rows_of(lw: Lowerer, v: Any, e: cst.CSTNode) -> list[Any] | None:
    """The items iterating the runtime value ``v`` gives, where their number is known
    while compiling (an array's rows, a tuple argument's items); None otherwise."""
    if not isinstance(v, Node) or v.type is None:
        return None
    if v.type.kind == "tuple":
        items = lw.tuple_items(v, e)
        return items if isinstance(items, list) else None
    if v.type.kind == "array" and v.type.shape and isinstance(v.type.shape[0], int):
        return list(lw.unpack(v, v.type.shape[0], e))
    return None


def iterator_call(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
                  e: cst.Call) -> Any:
    """``iter(xs)`` of a static container (a tuple of runtime arrays, a range, dict keys,
    an array whose length is known), ``next(it)`` and ``next(it, default)``, and builtins
    that consume an iterator.  ``next`` past the end raises StopIteration while compiling,
    which a static ``try`` catches.  ``NotImplemented`` for every other call."""
    if fn is builtins.iter and len(args) == 1 and not kwargs:
        it = args[0]
        if isinstance(it, StaticIterator):
            return it
        if isinstance(it, (list, tuple, range, str, set, frozenset, dict)):
            return StaticIterator(list(it))
        if isinstance(it, Node) and it.type is not None and it.type.kind == "tuple":
            return StaticIterator(list(lw.tuple_items(it, e)))
        if isinstance(it, Node) and it.type is not None and it.type.kind == "array" and \
                it.type.shape and isinstance(it.type.shape[0], int):
            return StaticIterator(lw.unpack(it, it.type.shape[0], e))
        return NotImplemented
    if fn is builtins.next and args and isinstance(args[0], StaticIterator) and \
            len(args) <= 2 and not kwargs:
        it = args[0]
        if it.pos < len(it.items):
            it.pos += 1
            return it.items[it.pos - 1]
        if len(args) == 2:
            return args[1]
        raise static_exception(lw, StopIteration(), e)
    if any(fn is c for c in _CONSUMERS) and any(isinstance(a, StaticIterator) for a in args):
        args[:] = [a.rest() if isinstance(a, StaticIterator) else a for a in args]
    if any(fn is c for c in _COMBINATORS):
        return _combinator(lw, fn, args, kwargs, e)
    if fn is np.ndindex and not kwargs and not holds_node(args):
        try:  # static index tuples (apply_along_axis's loop): Python's, in C order
            return StaticIterator(list(np.ndindex(*args)))
        except Exception as exc:
            raise static_exception(lw, exc, e) from None
    return NotImplemented


#: ``itertools`` functions that only arrange the items of static containers
_COMBINATORS = (itertools.product, itertools.permutations, itertools.combinations,
                itertools.combinations_with_replacement, itertools.chain,
                itertools.chain.from_iterable, itertools.zip_longest, itertools.islice)


_FIRST_ONLY = (itertools.islice, itertools.permutations, itertools.combinations,
               itertools.combinations_with_replacement)


def _combinator(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
                e: cst.Call) -> Any:
    """``itertools.product(*[range(n) for n in x.shape[:-2]])`` and the like, on static
    containers (their items may be runtime nodes, which are only arranged): a static
    iterator over what Python would yield; ``NotImplemented`` for other arguments."""
    items = [a.rest() if isinstance(a, StaticIterator) else a for a in args]
    first_only = any(fn is f for f in _FIRST_ONLY)  # islice(xs, stop), combinations(xs, r)
    containers = items[:1] if first_only else items
    numbers = [*items[1:], *kwargs.values()] if first_only else [
        v for k, v in kwargs.items() if k != "fillvalue"]
    if holds_node(kwargs.get("fillvalue")):
        return NotImplemented
    if not all(isinstance(a, (list, tuple, range, str, dict)) for a in containers) or not all(
            v is None or isinstance(v, int) for v in numbers):
        return NotImplemented
    try:
        return StaticIterator(list(fn(*items, **kwargs)))
    except Exception as exc:  # Python's own error for these arguments (a bad r=...)
        raise static_exception(lw, exc, e) from None


# --- del ---------------------------------------------------------------------------------


def del_statement(lw: Lowerer, target: cst.BaseExpression, scope: Scope) -> None:
    """``del name`` unbinds the name in this function's scope (a later read is Python's
    UnboundLocalError); ``del d[k]``/``del xs[i]`` change a dict or list built while
    compiling; ``del a, b`` deletes each in turn."""
    if isinstance(target, (cst.Tuple, cst.List)):
        for el in target.elements:
            del_statement(lw, el.value, scope)
        return
    if isinstance(target, cst.Name):
        current = scope.vars.get(target.value, DELETED)
        if isinstance(current, Deleted):
            raise deleted_read(lw, target, current)
        scope.vars[target.value] = DELETED
        return
    if isinstance(target, cst.Subscript):
        base = lw.expr(target.value, scope)
        if isinstance(base, (dict, list)):
            lw.external.check_write(base, "delete from", lw.loc(target))
            parts = [lw.index_part(el, scope) for el in target.slice]
            key: Any = parts[0] if len(parts) == 1 else tuple(parts)
            if isinstance(key, Node) or isinstance(key, slice) and any(
                    isinstance(p, Node) for p in (key.start, key.stop, key.step)):
                raise lw.fail("the index of del must be known when compiling", target,
                              "delete with keys and ints known when compiling",
                              kind=UnsupportedSyntaxError)
            try:
                del base[key]
            except Exception as exc:
                raise static_exception(lw, exc, target) from None
            return
        raise lw.fail("del of an item is only supported on lists and dicts built while "
                      "compiling", target, "NumPy arrays cannot delete items: use np.delete",
                      kind=UnsupportedSyntaxError)
    raise lw.fail("del of an attribute is not supported", target,
                  "stop using the attribute instead of deleting it",
                  kind=UnsupportedSyntaxError)


def deleted_read(lw: Lowerer, e: cst.Name, value: Deleted) -> Exception:
    """The error for reading a name after ``del``."""
    if value.maybe:
        return lw.fail(f"{e.value!r} is deleted in one branch of an if whose condition is "
                       "only known at run time, and read after it", e,
                       "delete it in both branches, or in neither", kind=UnsupportedSyntaxError)
    return static_exception(lw, UnboundLocalError(
        f"cannot access local variable {e.value!r} where it is not associated with a value"),
        e)


# --- for ... else ------------------------------------------------------------------------


def refuse_for_else(lw: Lowerer, stmt: cst.For) -> None:
    """``for ... else`` of a loop lowered as a region (its ``break`` decided at run time)."""
    if stmt.orelse is not None:
        raise lw.fail("for ... else is only supported on a loop over a Python list or tuple "
                      "(unrolled while compiling)", stmt.orelse,
                      "set a flag before break and test it after the loop",
                      kind=UnsupportedSyntaxError)


def for_else(lw: Lowerer, stmt: cst.For, broke: Any, scope: Scope) -> None:
    """The ``else`` of an unrolled ``for``: run when no ``break`` (nor ``return``) ended
    the loop, as Python does; refused when a ``break`` is decided at run time."""
    assert stmt.orelse is not None  # (called for a for ... else)
    returned = scope.vars.get("#ret", False)
    if broke is True or returned is True:
        return
    if isinstance(broke, Node) or isinstance(returned, Node):
        raise lw.fail("for ... else after a break or return decided at run time is not "
                      "supported", stmt.orelse,
                      "set a flag before break and test it after the loop",
                      kind=UnsupportedSyntaxError)
    lw.run_stmts(lw.suite(stmt.orelse.body), scope)


#: ``operator.truediv`` and kin as functions (scipy passes ``operator.truediv`` to
#: ``apply_where``): the infix operator's own lowering, so lists, strings and objects
#: keep Python's meaning
_OPERATOR_BINARY = {
    operator.add: Op.ADD, operator.sub: Op.SUB, operator.mul: Op.MUL,
    operator.truediv: Op.DIV, operator.floordiv: Op.FLOORDIV, operator.mod: Op.MOD,
    operator.pow: Op.POW, operator.matmul: Op.MATMUL, operator.lt: Op.LT,
    operator.le: Op.LE, operator.gt: Op.GT, operator.ge: Op.GE, operator.eq: Op.EQ,
    operator.ne: Op.NE,
}


def operator_call(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
                  e: cst.Call) -> Any:
    """``operator.add(a, b)`` (and the other arithmetic and comparison functions) of a
    runtime value as ``a + b``; ``NotImplemented`` for anything else (static operands
    fold as Python runs them)."""
    try:
        op = _OPERATOR_BINARY.get(fn)
    except TypeError:  # an unhashable callable
        return NotImplemented
    if op is None or kwargs or len(args) != 2 or not any(holds_node(a) for a in args):
        return NotImplemented
    return lw.binary(op, args[0], args[1], e)
