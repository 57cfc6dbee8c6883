"""Loops decided by static values: ``while`` loops run while compiling, and ``for`` loops
unrolled so that each trip indexes with static slices and dict keys.

``n = 1; k = 0; while n < N: n <<= 1; k += 1`` (``scipy.integrate.romb`` finding the
number of halvings of a static length) computes ints only: Python would run it on every
call with the same result, so lowering runs it, and ``k`` stays a static int that later
code may index dicts and slice with.  Only loops whose body is simple assignments to
names, ``xs.append(v)`` on a list of static values and ``if``/``else`` of those, whose
every name the body reads is bound to a static number, string, or tuple of those, and
whose test (no calls) comes out static qualify; anything else is a loop region of the
compiled code (``loops``).  A loop still running after ``_MAX_TRIPS`` trips
is a located error.

A ``for`` over a static ``range`` of at most ``UNROLL_INDICES`` trips is unrolled (one copy
of the body per trip, exactly what Python runs) when it changes a static index tuple
(``slice_R = tupleset(slice_R, axis, slice(start, stop, step))``) or keys a static dict by
its loop variable (``R[(i, j)] = ...``): as a loop region, the slice would become a runtime
value without a shape and the dict would need runtime keys (``carries_indices``).
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any

import libcst as cst
import numpy as np

from ..errors import CompileError
from ..ir.graph import Node, holds_node
from ..ir.ops import Op
from . import static_numpy

if TYPE_CHECKING:
    from .lower import Lowerer
    from .scope import Scope

_MAX_TRIPS = 100_000
_STATIC = (bool, int, float, str)


def run_static_while(lw: Lowerer, stmt: cst.While, scope: Scope) -> bool:
    """Run ``stmt`` while compiling if it only computes static values; False (nothing
    done) when it does not qualify."""
    if stmt.orelse is not None or not _qualifies(stmt, scope):
        return False
    body = lw.suite(stmt.body)
    for trip in range(_MAX_TRIPS):
        test = lw.expr(stmt.test, scope)
        if holds_node(test):
            if trip == 0:
                return False  # a loop on runtime data: a region
            raise lw.fail("the test of this while loop became a runtime value", stmt.test,
                          kind=CompileError)  # cannot happen: the body assigns static values
        if not test:
            return True
        lw.run_stmts(body, scope)
        scope.vars["#cont"] = False
        flags = [scope.vars.get(f, False) for f in ("#ret", "#brk")]
        if any(isinstance(f, Node) for f in flags):  # cannot happen: static tests only
            raise lw.fail("a return or break in this while loop became a runtime choice",
                          stmt, kind=CompileError)
        if flags[0]:
            return True  # a return: the function's result is set
        if flags[1]:
            scope.vars["#brk"] = False
            return True
    raise lw.fail(f"this while loop on static values ran {_MAX_TRIPS} times while compiling",
                  stmt, "check that its condition becomes false", kind=CompileError)


def _qualifies(stmt: cst.While, scope: Scope) -> bool:
    names: list[str] = []
    lists: list[str] = []
    if not _simple_block(stmt.body, names, lists):
        return False
    test: list[str] = []
    _reads(stmt.test, test, calls_too=False)
    made = _assigned_names(stmt.body)  # (first bound in the body: static as it runs)
    return "#" not in test and all(
        _static(v) or v is _Absent and n in made for n in names
        for v in [_value(scope, n)]) and \
        all(_static_list(scope.vars.get(n, _Absent)) for n in lists)


def _assigned_names(body: cst.CSTNode) -> set[str]:
    """The names ``body`` assigns (``=``, ``+=``)."""
    out: set[str] = set()

    class _Find(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            if isinstance(node.target, cst.Name):
                out.add(node.target.value)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            if isinstance(node.target, cst.Name):
                out.add(node.target.value)

    body.visit(_Find())
    return out


def _value(scope: Scope, name: str) -> Any:
    """What ``name`` holds: a local, else a closure cell or global (a static int such as
    a module constant qualifies), a builtin read as ``#builtin:min``; ``_Absent`` if
    unbound."""
    if name.startswith("#builtin:"):
        name = name.removeprefix("#builtin:")
        try:
            return _Builtin if scope.lookup(name) is getattr(builtins, name) else _Absent
        except KeyError:
            return _Absent
    if name in scope.vars:
        return scope.vars[name]
    try:
        return scope.lookup(name)
    except KeyError:
        return _Absent


def _simple_block(body: cst.BaseSuite, names: list[str], lists: list[str]) -> bool:
    """Whether ``body`` holds only assignments to names, ``xs.append(v)`` on lists and
    ``if``/``else`` of those (``scipy.stats``' exponentiation by squaring builds its list of
    exponents so), collecting the names read into ``names`` and the lists into ``lists``."""
    if not isinstance(body, cst.IndentedBlock):
        return False
    for line in body.body:
        if isinstance(line, cst.While) and line.orelse is None:  # a nested static loop
            _reads(line.test, names)
            if not _simple_block(line.body, names, lists):
                return False
            continue
        if isinstance(line, cst.If):
            _reads(line.test, names)
            orelse = line.orelse
            if not _simple_block(line.body, names, lists) or orelse is not None and not (
                    isinstance(orelse, cst.Else) and _simple_block(orelse.body, names, lists)
                    or isinstance(orelse, cst.If) and _simple_block(
                        cst.IndentedBlock(body=[orelse]), names, lists)):
                return False
            continue
        if not isinstance(line, cst.SimpleStatementLine):
            return False
        for s in line.body:
            if isinstance(s, cst.AugAssign) and isinstance(s.target, cst.Name):
                names.append(s.target.value)
                _reads(s.value, names)
            elif isinstance(s, cst.Assign) and all(
                    isinstance(t.target, cst.Name) for t in s.targets):
                _reads(s.value, names)
            elif isinstance(s, (cst.Break, cst.Continue, cst.Pass)):
                continue
            elif isinstance(s, cst.Return):
                if s.value is not None:
                    _reads(s.value, names)
            elif _appends(s):
                assert isinstance(s, cst.Expr) and isinstance(s.value, cst.Call)
                func = s.value.func
                assert isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                lists.append(func.value.value)
                _reads(s.value.args[0].value, names)
            else:
                return False
    return True


def _appends(s: cst.BaseSmallStatement) -> bool:
    """``name.append(value)``, one positional argument."""
    if not isinstance(s, cst.Expr) or not isinstance(s.value, cst.Call):
        return False
    call = s.value
    return isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name) \
        and call.func.attr.value == "append" and len(call.args) == 1 \
        and call.args[0].keyword is None and not call.args[0].star


class _Absent:
    pass


class _Builtin:
    """A builtin read by the loop (``min``): static given static arguments."""


#: builtins of numbers that a static while loop may call (``min(p35, match)``)
_PURE_BUILTINS = frozenset({"min", "max", "abs", "int", "float", "round", "divmod", "pow",
                            "len", "bool"})
#: methods of Python numbers a static while loop may call (``(q - 1).bit_length()``)
_NUMBER_METHODS = frozenset({"bit_length", "bit_count", "is_integer", "conjugate"})


def _reads(e: cst.CSTNode, out: list[str], calls_too: bool = True) -> None:
    """Names read by ``e``; a call, lambda, comprehension or ``:=`` disqualifies
    (``"#"``), and so do a subscript and an attribute unless ``calls_too`` is False (the
    test: any value it reads is fine if the test comes out static)."""
    if isinstance(e, cst.Name):
        out.append(e.value)
    elif calls_too and isinstance(e, cst.Call) and all(
            a.keyword is None and not a.star for a in e.args) and (
            isinstance(e.func, cst.Name) and e.func.value in _PURE_BUILTINS or
            isinstance(e.func, cst.Attribute) and e.func.attr.value in _NUMBER_METHODS):
        if isinstance(e.func, cst.Name):  # (checked to be the builtin: ``_value``)
            out.append(f"#builtin:{e.func.value}")
        else:
            _reads(e.func.value, out, calls_too)
        for a in e.args:
            _reads(a.value, out, calls_too)
    elif isinstance(e, (cst.Call, cst.Lambda, cst.BaseComp, cst.NamedExpr)) or calls_too and (
            isinstance(e, (cst.Subscript, cst.Attribute))):
        out.append("#")
    else:
        for child in e.children:
            _reads(child, out, calls_too)


def check_static_guard(lw: Lowerer, test: cst.BaseExpression, scope: Scope) -> None:
    """Refuse a ``while`` loop lowered as a region whose test came out static while it
    reads a list, dict, set or array: a change the body makes to it in place
    (``stack.pop()``) happens once, while compiling, so the compiled loop would test a
    value that never changes (``while stack: i = stack.pop()`` ran forever)."""
    names: list[str] = []
    _all_names(test, names)
    for name in names:
        v = scope.vars.get(name)
        if isinstance(v, (list, dict, set, bytearray, np.ndarray)) or type(v).__name__ == (
                "StaticArray"):
            raise lw.fail(f"the test of this while loop reads {name!r}, a "
                          f"{type(v).__name__} made while compiling, and the loop's body is "
                          "compiled once: a change to it in the body would not be seen by "
                          "the test", test, "loop over a range or the items instead "
                          "(for i in reversed(stack): ...)")


def _all_names(e: cst.CSTNode, out: list[str]) -> None:
    if isinstance(e, cst.Name):
        out.append(e.value)
    for child in e.children:
        _all_names(child, out)


def _static(v: Any) -> bool:
    if isinstance(v, _STATIC) or v is _Builtin:
        return True
    return isinstance(v, tuple) and all(isinstance(x, _STATIC) for x in v)


def _static_list(v: Any) -> bool:
    """A list made while compiling that holds static numbers and strings only."""
    return type(v) is list and all(isinstance(x, _STATIC) for x in v)


# --- for loops unrolled for static indices -------------------------------------------

#: the most trips a loop carrying static index tuples is unrolled for
UNROLL_INDICES = 64


def _holds_index(v: Any) -> bool:
    """A static tuple holding a slice, ``None`` or ``...``: an index, not a number."""
    return isinstance(v, tuple) and any(
        isinstance(x, slice) or x is None or x is Ellipsis for x in v) and not any(
        isinstance(x, Node) for x in v)


def _static_ints(v: Any) -> bool:
    """An integer array or sequence known while compiling (segment bounds, offsets):
    indexed by the loop variable, its items are sizes and slice bounds, static only in an
    unrolled loop (SciPy's ``detrend``: ``A = np.ones((bp[m + 1] - bp[m], 2))``)."""
    if isinstance(v, static_numpy.StaticArray):
        v = v.value
    elif isinstance(v, Node) and v.op is Op.CONST:
        v = v.param("value")
    if isinstance(v, np.ndarray):
        return v.ndim == 1 and v.dtype.kind in "iu"
    return isinstance(v, (tuple, list)) and bool(v) and all(
        type(x) is int or isinstance(x, np.integer) for x in v)


def _keyed_by(body: cst.CSTNode, target: str) -> set[str]:
    """The names ``body`` subscripts with a key that reads the loop variable ``target``."""
    found: set[str] = set()

    class _Find(cst.CSTVisitor):
        def visit_Subscript(self, node: cst.Subscript) -> bool:
            if isinstance(node.value, cst.Name) and any(
                    isinstance(n, cst.Name) and n.value == target
                    for el in node.slice for n in _names(el)):
                found.add(node.value.value)
            return True

    body.visit(_Find())
    return found


def _names(node: cst.CSTNode) -> list[cst.CSTNode]:
    """Every node under ``node`` (to look for a name)."""
    out: list[cst.CSTNode] = [node]
    for child in node.children:
        out.extend(_names(child))
    return out


def _mixed_sequence(v: Any) -> bool:
    """A static list or tuple holding a Python constant beside runtime values, or runtime
    values of different types (``[1, *list(x)]``): indexed by a loop variable, the loop is
    unrolled so that each trip reads one item as it is (a runtime list of them would have
    no one item type)."""
    if not isinstance(v, (list, tuple)) or not any(isinstance(x, Node) for x in v):
        return False
    return len({x.type if isinstance(x, Node) else type(x) for x in v}) > 1


def carries_indices(lw: Lowerer, stmt: cst.For, scope: Scope) -> bool:
    """Whether the loop carries a static index tuple (slices, ``None``, ``...``) it
    changes (``sl = tupleset(sl, axis, slice(a, b))``) or keys a static dict by its
    target (``R[(i, j)] = ...``): it is unrolled, so that each trip indexes with static
    slices and keys (a slice computed at run time has no shape, a dict no runtime key)."""
    if isinstance(stmt.target, cst.Name):
        for name in _keyed_by(stmt.body, stmt.target.value):
            try:
                v = scope.lookup(name)  # (a local, a closure cell or a global)
            except KeyError:
                continue
            if isinstance(v, dict) or _mixed_sequence(v) or _static_ints(v):
                return True
    if not any(_holds_index(v) for v in scope.vars.values()):
        return False
    carried, _ = lw.carried_names(stmt, scope)
    return any(_holds_index(scope.vars.get(k)) for k in carried)
