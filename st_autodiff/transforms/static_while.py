"""``while`` loops over static values, run while compiling.

``n = 1; k = 0; while n < N: n <<= 1; k += 1`` (``scipy.integrate.romb`` finding the
number of halvings of a static length) computes ints only: Python would run it on every
call with the same result, so lowering runs it, and ``k`` stays a static int that later
code may index dicts and slice with.  Only loops whose body is simple assignments to
names, whose every name the body reads is bound to a static number, string, or tuple of
those, and whose test (no calls) comes out static qualify; anything else is a loop
region of the compiled code (``loops``).  A loop still running after ``_MAX_TRIPS`` trips
is a located error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from ..errors import CompileError
from ..ir.graph import holds_node

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
    raise lw.fail(f"this while loop on static values ran {_MAX_TRIPS} times while compiling",
                  stmt, "check that its condition becomes false", kind=CompileError)


def _qualifies(stmt: cst.While, scope: Scope) -> bool:
    body = stmt.body
    if not isinstance(body, cst.IndentedBlock):
        return False
    names: list[str] = []
    for line in body.body:
        if not isinstance(line, cst.SimpleStatementLine):
            return False
        for s in line.body:
            if isinstance(s, cst.AugAssign) and isinstance(s.target, cst.Name):
                names.append(s.target.value)
                _reads(s.value, names)
            elif isinstance(s, cst.Assign) and all(
                    isinstance(t.target, cst.Name) for t in s.targets):
                _reads(s.value, names)
            else:
                return False
    test: list[str] = []
    _reads(stmt.test, test, calls_too=False)
    return "#" not in test and all(_static(scope.vars.get(n, _Absent)) for n in names)


class _Absent:
    pass


def _reads(e: cst.CSTNode, out: list[str], calls_too: bool = True) -> None:
    """Names read by ``e``; a call, lambda, comprehension or ``:=`` disqualifies
    (``"#"``), and so do a subscript and an attribute unless ``calls_too`` is False (the
    test: any value it reads is fine if the test comes out static)."""
    if isinstance(e, cst.Name):
        out.append(e.value)
    elif isinstance(e, (cst.Call, cst.Lambda, cst.BaseComp, cst.NamedExpr)) or calls_too and (
            isinstance(e, (cst.Subscript, cst.Attribute))):
        out.append("#")
    else:
        for child in e.children:
            _reads(child, out, calls_too)


def _static(v: Any) -> bool:
    if isinstance(v, _STATIC):
        return True
    return isinstance(v, tuple) and all(isinstance(x, _STATIC) for x in v)
