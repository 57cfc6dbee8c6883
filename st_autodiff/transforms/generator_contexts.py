"""``with cm(...) as v:`` where ``cm`` is a ``@contextlib.contextmanager`` function.

Python runs such a manager in three parts: ``__enter__`` runs the generator up to its
``yield`` (the yielded value is bound to ``v``), then the ``with`` body runs, then
``__exit__`` resumes the generator after the ``yield`` (on a normal exit, ``return`` or
``break`` alike: the code after ``yield`` runs; an exception raised in the body is thrown
into the generator at the ``yield``, so only its ``try``/``except``/``finally`` around the
``yield`` see it).  The compiler lowers exactly that order: the generator's body is
rewritten with its single ``yield`` statement replaced by a marker, and the marker lowers
the ``with`` body (in the caller's scope, with the caller's flags, so ``return`` in the
body still runs the exit part of the generator).  Effects of setup, body and teardown
(``print``, random draws) are thus emitted in Python's order, once per call.  Exceptions
follow the static exception analysis of ``static_stmts``: an exception raised while
compiling in the body propagates through the generator's ``try`` around the ``yield``, as
it does in Python; a handler the body's runtime nodes could reach is refused there
(``runtime_raises``), and a ``finally`` after the ``yield`` that has effects at run time
is refused when the body may raise at run time anything beyond the floating-point and
memory errors every arithmetic op may raise (compiled code would skip the effects Python
runs; for those the rule of a ``try`` statement's ``finally`` applies: not refused).  A
generator that yields more than once, in a loop, inside an expression (``x = yield v``),
under a runtime condition, or never, is a located refusal.

**Restoring writes into outside dicts** (sklearn's ``config_context``).  A write into a
dict that lives outside the function is normally refused (``external``): Python repeats
it on every call, compiled code would do it once.  Inside a generator context it is
accepted when the context, at its end, leaves every such dict exactly as it found it (same
keys, each value the same object or an equal immutable value), and when every value
stored in it while the body runs is known when compiling.  Then Python's program does
change-then-restore on every call, the compiled program does it once while compiling:
outside the ``with`` both see the same dict, and inside it every read of the dict is made
while compiling (its contents are static), so what the body computed from it is folded
into the compiled code.  The dict is then unchanged between calls, so the guards on it
(``guards``) hold.  A context that does not restore the dict, or stores a value computed
at run time into it, is refused at the ``with``; a write under a condition or loop on
runtime data stays refused (both sides of a branch are lowered, so one side's write would
be seen by the other).  A refusal puts the dict back as it was.
"""

from __future__ import annotations

import contextlib
import threading
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import libcst as cst

from ..errors import CompileError, StaticRaiseError, UnsupportedSyntaxError
from ..ir.graph import GraphBuilder, Node, holds_node
from ..ir.ops import Op
from . import library_errors, runtime_raises
from .parse import ParsedFunction, parse_function, synthesize
from .scope import Scope

if TYPE_CHECKING:
    from .lower import Lowerer


@contextlib.contextmanager
def _probe() -> Any:
    yield


#: the code of the function ``contextlib.contextmanager`` returns (its ``helper``)
_HELPER = _probe.__code__


#: what every arithmetic node may raise (under ``np.errstate(...='raise')``, warnings as
#: errors, out of memory): not counted for a ``finally`` with effects, as for a ``try``
#: statement's ``finally`` (``static_stmts``)
_ARITHMETIC = (ArithmeticError, MemoryError, RuntimeWarning)


def is_generator_manager(fn: Any) -> bool:
    """Whether ``fn`` is a function decorated with ``contextlib.contextmanager`` (or such
    a function bound to an object: a method)."""
    if isinstance(fn, types.MethodType):
        fn = fn.__func__
    return isinstance(fn, types.FunctionType) and fn.__code__ is _HELPER and isinstance(
        getattr(fn, "__wrapped__", None), types.FunctionType)


class _WithBody(cst.Call):
    """The marker that replaces the generator's ``yield`` statement: lowers the body."""


@dataclass(eq=False)
class _Context:
    """One generator context being lowered: what its marker needs from the caller."""

    marker: _WithBody
    run_body: Callable[[Any], None]  # binds the yielded value and lowers the with body
    caller: Any  # the caller's ParsedFunction
    caller_scope: Scope
    region_depth: int
    builder: GraphBuilder
    yield_node: cst.CSTNode
    ran: bool = False
    body_nodes: list[Node] = field(default_factory=list)


def lower(lw: Lowerer, factory: Any, args: list[Any], kwargs: dict[str, Any],
          run_body: Callable[[Any], None], scope: Scope, e: cst.CSTNode) -> None:
    """Lower ``with factory(*args, **kwargs) as v: body`` (see the module docstring)."""
    if isinstance(factory, types.MethodType):  # a method: the object is the first argument
        factory, args = factory.__func__, [factory.__self__, *args]
    gen = factory.__wrapped__
    parsed = parse_function(gen)
    yield_stmt, yield_node, under_try = _the_yield(lw, parsed, e)
    assert not isinstance(yield_node.value, cst.From)  # (_the_yield refuses yield from)
    marker = _WithBody(cst.Name("with_body"), [cst.Arg(
        yield_node.value if yield_node.value is not None else cst.Name("None"))])
    synthesize(marker, yield_node)
    synthesize(marker.func, yield_node)
    assert isinstance(parsed.node, cst.FunctionDef)  # (a generator function's def)
    node = _replace(parsed.node, yield_stmt, marker)
    body = ParsedFunction(parsed.name, node, parsed.module, parsed.defaults, parsed.layout,
                          parsed.fixed)
    ctx = _Context(marker, run_body, lw.fn, scope, lw.region_depth, lw.b, yield_node)
    contexts = lw.__dict__.setdefault("generator_contexts", {})
    contexts[id(marker)] = ctx
    if "expr__WithBody" not in lw.__dict__:
        lw.expr__WithBody = types.MethodType(_with_body, lw)
    ext = lw.external
    restoring: list[dict[int, tuple[dict[Any, Any], dict[Any, Any]]]] = ext.__dict__.setdefault(
        "restoring", [])
    restoring.append({})
    places = ext.__dict__.setdefault("restoring_at", [])
    places.append((lw, lw.b))
    start = len(lw.b.nodes)
    try:
        _lower_checked(lw, gen, body, args, kwargs, ctx, e)
    except BaseException:
        # a refusal (or an exception) leaves the outside dicts as they were before
        for target, snap in restoring[-1].values():
            if not _same(target, snap):
                target.clear()
                target.update(snap)
        raise
    finally:
        restoring.pop()
        places.pop()
        contexts.pop(id(marker), None)
    raised = tuple(c for c in runtime_raises.classes(ctx.body_nodes) if c not in _ARITHMETIC)
    if under_try and raised:
        after = lw.b.nodes[start:] if lw.b is ctx.builder else []
        seen = {id(n) for n in ctx.body_nodes}
        effects = [n for n in after if n.op is Op.OPAQUE_CALL and id(n) not in seen and
                   not _in_setup(n, ctx, after)]
        if effects:
            raise lw.fail(f"the with block over {gen.__name__}() may raise at run time, "
                          f"and then Python runs the manager's finally/except code after "
                          "its yield, which has effects at run time that compiled code "
                          "would skip; in the block, " + runtime_raises.refusal(
                              ctx.body_nodes, raised),
                          e, "move the effects out of the finally block, or the with "
                          "block out of the function", kind=UnsupportedSyntaxError)


def _lower_checked(lw: Lowerer, gen: types.FunctionType, body: ParsedFunction,
                   args: list[Any], kwargs: dict[str, Any], ctx: _Context, e: cst.CSTNode
                   ) -> None:
    """Lower the generator around the body; refuse when it leaves an outside dict it
    wrote into changed."""
    written = lw.external.restoring[-1]
    try:
        _inline(lw, gen, body, args, kwargs, e)
    except StaticRaiseError:
        if any(not _same(t, snap) for t, snap in written.values()):
            raise _not_restored(lw, e, "an exception raised while compiling ends the with "
                                "block before the manager restores it") from None
        raise
    if not ctx.ran:
        raise lw.fail(f"{gen.__name__}() did not yield: Python raises RuntimeError "
                      "(generator didn't yield)", e, kind=CompileError)
    for target, snap in written.values():
        if not _same(target, snap):
            raise _not_restored(lw, e, "the manager does not restore it when the block ends")
        for k, v in snap.items():  # the very objects back: the guards compare identity
            target[k] = v


def _in_setup(n: Node, ctx: _Context, after: list[Node]) -> bool:
    """Whether ``n`` was emitted before the body (by the generator's setup part)."""
    if not ctx.body_nodes:
        return False
    first = ctx.body_nodes[0]
    for m in after:
        if m is first:
            return False
        if m is n:
            return True
    return False


def _inline(lw: Lowerer, gen: types.FunctionType, body: ParsedFunction, args: list[Any],
            kwargs: dict[str, Any], e: cst.CSTNode) -> None:
    """Lower the rewritten generator as ``inline_python`` lowers a call."""
    from .lower import python_resolver  # noqa: PLC0415  (lower imports this module's users)

    lw.guards.function_read(gen)
    outer = python_resolver(gen, lw.const_of_global, lw.guards)
    lw.code_stack.append(gen.__code__)
    try:
        lw.lower_function(body, args, kwargs, Scope(None, outer), e)
    except CompileError as exc:
        library_errors.library_call_site(exc, gen, lw.loc(e))
        raise
    finally:
        lw.code_stack.pop()


def _with_body(lw: Lowerer, e: _WithBody, scope: Scope) -> None:
    """The marker: bind the yielded value in the caller's scope and lower the body there,
    with the caller as the current function."""
    ctx: _Context | None = lw.__dict__.get("generator_contexts", {}).get(id(e))
    if ctx is None or ctx.marker is not e:
        raise lw.fail("internal: a with body marker outside its with block", e)
    if ctx.ran:
        raise lw.fail("a generator context manager that yields more than once is not "
                      "supported", ctx.yield_node, kind=UnsupportedSyntaxError)
    if lw.b is not ctx.builder:
        raise lw.fail("a yield under a condition or loop on values computed at run time is "
                      "not supported in a context manager", ctx.yield_node,
                      "yield unconditionally", kind=UnsupportedSyntaxError)
    value = lw.expr(e.args[0].value, scope)
    ctx.ran = True
    for target, _ in lw.external.restoring[-1].values():
        _static_values(lw, target, ctx)
    lw.fn_stack.append(ctx.caller)
    lw.active_scopes.append(ctx.caller_scope)
    saved = lw.region_depth
    lw.region_depth = ctx.region_depth
    start = len(lw.b.nodes)
    try:
        ctx.run_body(value)
    finally:
        ctx.body_nodes = [n for n in lw.b.nodes[start:] if n.op is not Op.CONST]
        lw.region_depth = saved
        lw.active_scopes.pop()
        lw.fn_stack.pop()
    for target, _ in lw.external.restoring[-1].values():
        _static_values(lw, target, ctx)


def _static_values(lw: Lowerer, target: dict[Any, Any], ctx: _Context) -> None:
    if any(isinstance(v, Node) for v in target.values()):
        raise lw.fail("a value computed at run time is stored in a dict that lives outside "
                      "the function, inside a context manager", ctx.yield_node,
                      "store values known when compiling", kind=UnsupportedSyntaxError)


def write_allowed(external: Any, target: Any) -> bool:
    """Whether a write into the outside container ``target`` is accepted: a dict, inside
    a generator context (which checks at its end that the dict is restored), not under a
    condition or loop on runtime data (both sides of a branch are lowered: a write on one
    would be seen by the other while compiling)."""
    restoring = external.__dict__.get("restoring")
    if not restoring or type(target) is not dict:
        return False
    lw, builder = external.__dict__["restoring_at"][-1]
    if lw.b is not builder:  # under a runtime condition or in a loop region: refused
        return False
    for level in restoring:
        level.setdefault(id(target), (target, dict(target)))
    return True


def _same(target: dict[Any, Any], snap: dict[Any, Any]) -> bool:
    """Whether ``target`` holds what ``snap`` held: same keys, same or equal values."""
    if target.keys() != snap.keys():
        return False
    for k, v in snap.items():
        w = target[k]
        if w is v:
            continue
        if type(w) is not type(v) or not isinstance(v, (bool, int, float, str, bytes,
                                                          type(None))) or w != v:
            return False
    return True


def first_local_write(lw: Lowerer, obj: Any, attr: str, value: Any, e: cst.CSTNode
                      ) -> bool:
    """``local.attr = value`` on a ``threading.local`` that lacks ``attr``: a cache filled
    on first use (sklearn's thread-local config).  Python fills it on the first call in
    the thread, compiled code while compiling in that thread; later calls find it either
    way (and the guards on reading it compile again in a thread that lacks it).  The value
    must be known when compiling; it lives outside the function from then on."""
    if not isinstance(obj, threading.local) or hasattr(obj, attr):
        return False
    if isinstance(value, Node) or holds_node(value):
        raise lw.fail("a value computed at run time is stored in a thread-local object "
                      "that lives outside the function", e, kind=UnsupportedSyntaxError)
    setattr(obj, attr, value)
    lw.external.mark(value, f"attribute {attr!r} of a threading.local")
    return True


def _not_restored(lw: Lowerer, e: cst.CSTNode, why: str) -> CompileError:
    return lw.fail("this with block writes into a dict that lives outside the function, "
                   f"and {why}: Python changes it on every call, compiled code would change "
                   "it once, while compiling", e, "restore the dict in a finally block "
                   "after the yield", kind=UnsupportedSyntaxError)


def _the_yield(lw: Lowerer, parsed: ParsedFunction, e: cst.CSTNode
               ) -> tuple[cst.SimpleStatementLine, cst.Yield, bool]:
    """The generator's single ``yield`` statement, its ``Yield`` node, and whether it is
    inside a ``try`` (a ``finally`` or handler may run after it)."""
    found: list[tuple[cst.SimpleStatementLine | None, cst.Yield, bool, bool]] = []
    root = parsed.node
    stack: list[cst.CSTNode] = []

    class V(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            if isinstance(n, (cst.FunctionDef, cst.Lambda, cst.ClassDef)) and n is not root:
                return False
            if isinstance(n, cst.Yield):
                line = stack[-2] if len(stack) >= 2 else None
                ok = isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and \
                    isinstance(stack[-1], cst.Expr) and not isinstance(n.value, cst.From)
                loop = any(isinstance(s, (cst.For, cst.While)) for s in stack)
                tried = any(isinstance(s, cst.Try) for s in stack)
                found.append((cast(cst.SimpleStatementLine, line) if ok else None, n, loop,
                              tried))
            stack.append(n)
            return True

        def on_leave(self, n: cst.CSTNode) -> None:
            if stack and stack[-1] is n:
                stack.pop()

    root.visit(V())
    if not found:
        raise lw.fail("internal: a contextmanager function without yield", e)
    line, y, loop, tried = found[0]
    if len(found) > 1 or loop:
        raise lw.fail("a generator context manager with more than one yield (or a yield in "
                      "a loop) is not supported", found[-1][1] if len(found) > 1 else y,
                      "yield once", kind=UnsupportedSyntaxError)
    if line is None:
        raise lw.fail("in a context manager, only a yield statement of its own is supported "
                      "(not 'x = yield v' or 'yield from')", y, "write 'yield v'",
                      kind=UnsupportedSyntaxError)
    return line, y, tried


def _replace(node: cst.FunctionDef, line: cst.SimpleStatementLine, marker: _WithBody
             ) -> cst.FunctionDef:
    """``node`` with the statement ``line`` replaced by the marker statement; rebuilt
    nodes report their originals' locations."""

    class R(cst.CSTTransformer):
        def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine,
                                      updated: cst.SimpleStatementLine) -> Any:
            if original is not line:
                return updated
            expr = cst.Expr(marker)
            out = cst.SimpleStatementLine([expr])
            synthesize(expr, original)
            synthesize(out, original)
            return out

        def on_leave(self, original: cst.CSTNode, updated: Any) -> Any:
            out = super().on_leave(original, updated)
            if isinstance(out, cst.CSTNode) and out is not original:
                synthesize(out, original)
            return out

    new = node.visit(R())
    assert isinstance(new, cst.FunctionDef)
    return new
