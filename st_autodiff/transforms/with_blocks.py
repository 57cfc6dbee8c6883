"""``with`` blocks: the manager is evaluated statically, the body is lowered in place.

The body is ordinary code, differentiated like any other (never passed through
undifferentiated: tangent's ``with`` passthrough gives silent zero gradients).  What the
manager does decides what is kept of it:

* ``np.errstate(...)`` and ``warnings.catch_warnings(...)`` change how the body runs
  (``errstate(divide='raise')`` turns a division by zero into ``FloatingPointError``), so
  they stay in the generated code: an ``opaque_call`` pair (``block="enter"``/``"exit"``)
  around the body's nodes, which codegen writes as a real ``with`` statement.  The adjoint
  (and the tangent sweep) mirrors the pair around the derivative of the body, so the
  derivative of ``a / b`` runs under the same error state as ``a / b``;
* ``contextlib.nullcontext(v)`` binds ``v`` and does nothing else;
* ``contextlib.suppress(...)`` catches exceptions like a ``try``: one raised while compiling
  ends the block; one the body's runtime nodes may raise (``runtime_raises``) is refused;
* a static object whose class has Python ``__enter__``/``__exit__``: both are inlined
  around the body (``__exit__(None, None, None)``), as Python calls them.

Anything else (a manager computed at run time, a C manager, ``async with``) is a located
refusal.
"""

from __future__ import annotations

import contextlib
import types
import warnings
from typing import TYPE_CHECKING, Any

import libcst as cst
import numpy as np

from ..errors import CompileError, StaticRaiseError, UnsupportedSyntaxError
from ..ir.graph import GraphBuilder, Node
from ..ir.ops import Op
from . import effects, effects_kinds, generator_contexts, runtime_raises

if TYPE_CHECKING:
    from .lower import Lowerer
    from .scope import Scope

#: managers kept in the generated code (they change how the body's arithmetic runs)
_RUNTIME = (np.errstate, warnings.catch_warnings)
_ERRSTATE_KEYS = ("all", "divide", "over", "under", "invalid")


def with_statement(lw: Lowerer, stmt: cst.With, scope: Scope) -> None:
    """Lower ``with a as x, b as y: body`` (items nest left to right)."""
    if stmt.asynchronous is not None:
        raise lw.fail("async with cannot be differentiated", stmt,
                      "differentiate a synchronous function")
    _items(lw, list(stmt.items), stmt, scope)


def _items(lw: Lowerer, items: list[cst.WithItem], stmt: cst.With, scope: Scope) -> None:
    if not items:
        lw.run_stmts(lw.suite(stmt.body), scope)
        return
    item, rest = items[0], items[1:]
    e = item.item
    args: list[Any]
    kwargs: dict[str, Any]
    factory, args, kwargs = None, [], {}
    if isinstance(e, cst.Call):
        fn = lw.expr(e.func, scope)
        if generator_contexts.is_generator_manager(fn):
            args, kwargs = lw.call_arguments(e, scope)
            def run_body(value: Any) -> None:  # binds the yielded value, then the rest
                _bind(lw, item, value, scope)
                _items(lw, rest, stmt, scope)

            generator_contexts.lower(lw, fn, args, kwargs, run_body, scope, e)
            return
        if _is_known(fn):
            factory = fn
            args, kwargs = lw.call_arguments(e, scope)
        elif isinstance(fn, type) or isinstance(fn, types.BuiltinFunctionType):
            raise _refused(lw, getattr(fn, "__name__", "this manager"), e,
                           "create the manager outside the function" if isinstance(
                               getattr(fn, "__enter__", None), types.FunctionType) else None)
    if factory is None:
        manager = lw.expr(e, scope)
        if isinstance(manager, Node):
            raise lw.fail("the context manager of this with block is computed at run time; "
                          "the compiler needs to know it when compiling", e,
                          "use np.errstate, warnings.catch_warnings, contextlib.nullcontext "
                          "or a manager object created outside the function",
                          kind=UnsupportedSyntaxError)
        factory, args, kwargs = _as_factory(lw, manager, e)
    if factory is contextlib.nullcontext:
        value = args[0] if args else kwargs.get("enter_result")
        _bind(lw, item, value, scope)
        _items(lw, rest, stmt, scope)
        return
    if factory is contextlib.suppress:
        _suppress(lw, items, stmt, scope, e, _suppressed(lw, args, e))
        return
    if factory in _RUNTIME:
        _static_args(lw, factory, args, kwargs, e)
        enter = effects.emit(lw, factory, None, args, kwargs, e, True, effects_kinds.OBJECT,
                             "enter")
        _bind(lw, item, enter, scope)
        before = len(lw.b.nodes)
        _items(lw, rest, stmt, scope)
        # under errstate(...='raise') any arithmetic of the body may raise: all of it
        # runs, read or not (the exit node reads it, so no pass drops it)
        kept = [n for n in lw.b.nodes[before:] if n.op is not Op.CONST and lw.b.owns(
            n)] if factory is np.errstate and "raise" in kwargs.values() else []
        effects.emit(lw, None, "__exit__", [enter, *kept], {}, e, True, effects_kinds.NONE,
                     "exit")
        return
    _user_manager(lw, factory, item, rest, stmt, scope, e)  # a static Python manager


def _is_known(fn: Any) -> bool:
    return any(fn is k for k in (*_RUNTIME, contextlib.nullcontext, contextlib.suppress))


def _as_factory(lw: Lowerer, manager: Any, e: cst.CSTNode
                ) -> tuple[Any, list[Any], dict[str, Any]]:
    """A static manager object as ``(factory, args, kwargs)``: a global ``np.errstate``
    is entered again by its settings; other objects are their own factory."""
    if isinstance(manager, np.errstate):
        settings = {k: getattr(manager, "_" + k, None) for k in _ERRSTATE_KEYS}
        call = getattr(manager, "_call", None)
        if call is not None and callable(call):
            raise lw.fail("np.errstate(call=...) is not supported in a differentiated "
                          "function", e, "use 'ignore', 'warn' or 'raise'")
        return np.errstate, [], {k: v for k, v in settings.items() if v is not None}
    if isinstance(manager, contextlib.nullcontext):
        return contextlib.nullcontext, [getattr(manager, "enter_result", None)], {}
    if isinstance(manager, contextlib.suppress):
        return contextlib.suppress, list(getattr(manager, "_exceptions", ())), {}
    return manager, [], {}


def _static_args(lw: Lowerer, factory: Any, args: list[Any], kwargs: dict[str, Any],
                 e: cst.CSTNode) -> None:
    for v in [*args, *kwargs.values()]:
        if isinstance(v, Node):
            raise lw.fail(f"the arguments of {factory.__name__} must be known when "
                          "compiling", e, "use literals", kind=CompileError)
    if factory is np.errstate:
        if args or set(kwargs) - set(_ERRSTATE_KEYS):
            raise lw.fail("np.errstate takes the keywords all, divide, over, under and "
                          "invalid here", e, kind=CompileError)
        for k, v in kwargs.items():
            if v not in (None, "ignore", "warn", "raise", "call", "print", "log"):
                raise lw.fail(f"np.errstate({k}={v!r}) is not a valid mode", e,
                              kind=CompileError)


def _bind(lw: Lowerer, item: cst.WithItem, value: Any, scope: Scope) -> None:
    if item.asname is not None:
        lw.assign(item.asname.name, value, scope)


def _suppress(lw: Lowerer, items: list[cst.WithItem], stmt: cst.With, scope: Scope,
              e: cst.CSTNode, classes: tuple[type, ...]) -> None:
    """``contextlib.suppress(*classes)``: an exception of ``classes`` raised while
    compiling in the body (not in a branch or loop on runtime data) ends the block there
    (Python keeps the assignments made before it); one the body's runtime nodes may raise
    when they run (``runtime_raises``) would have to end it at run time: refused."""
    before = len(lw.b.nodes)
    builder = lw.b
    try:
        _items(lw, items[1:], stmt, scope)
    except StaticRaiseError as err:
        if not (isinstance(err.exception, classes) and getattr(err, "builder", None) is
                builder):  # raised in a branch or loop on runtime data: decided at run time
            raise
    made = [n for n in lw.b.nodes[before:] if n.op is not Op.CONST]
    hit = runtime_raises.caught(classes, runtime_raises.classes(made))
    if hit:
        raise lw.fail("contextlib.suppress around code computed at run time is not "
                      "supported: an exception it catches would skip the rest of the block; "
                      "in the block, " + runtime_raises.refusal(made, tuple(hit)),
                      e, "check the condition explicitly, or move the block out of the "
                      "function", kind=UnsupportedSyntaxError)


def _suppressed(lw: Lowerer, args: list[Any], e: cst.CSTNode) -> tuple[type, ...]:
    """The exception classes ``contextlib.suppress(*args)`` catches."""
    if not all(isinstance(c, type) and issubclass(c, BaseException) for c in args):
        raise lw.fail("contextlib.suppress takes exception classes known when compiling", e,
                      kind=CompileError)
    return tuple(args)


def _refused(lw: Lowerer, name: str, e: cst.CSTNode, hint: str | None = None
             ) -> CompileError:
    return lw.fail(f"with blocks over {name} are not supported: the compiler keeps "
                   "np.errstate and warnings.catch_warnings in the compiled code, and reads "
                   "managers written in Python", e, hint or "use one of those, or move the "
                   "with block out of the function", kind=UnsupportedSyntaxError)


def _user_manager(lw: Lowerer, manager: Any, item: cst.WithItem, rest: list[cst.WithItem],
                  stmt: cst.With, scope: Scope, e: cst.CSTNode) -> None:
    """A static object whose class defines ``__enter__``/``__exit__`` in Python: both
    inlined around the body, as Python calls them."""
    cls = type(manager)
    enter, exit_ = getattr(cls, "__enter__", None), getattr(cls, "__exit__", None)
    if not (isinstance(enter, types.FunctionType) and isinstance(exit_, types.FunctionType)):
        raise _refused(lw, cls.__name__, e)
    value = lw.inline_python(enter, [manager], {}, e)
    _bind(lw, item, value, scope)
    _items(lw, rest, stmt, scope)
    lw.inline_python(exit_, [manager, None, None, None], {}, e)


# --- the adjoint and tangent sweeps -----------------------------------------------------


def mirror(b: GraphBuilder, n: Node, opened: dict[Node, Node], reverse: bool) -> None:
    """Keep a ``with`` the primal sweep opens around the derivative of its body: the
    reverse sweep meets the exit first (it opens the manager again) and the enter last
    (it closes it); the tangent sweep meets them in program order."""
    block = n.param("block")
    opening = block == ("exit" if reverse else "enter")
    enter = n.inputs[0] if block == "exit" else n
    if opening:
        node = b.emit(Op.OPAQUE_CALL, list(enter.inputs), {**enter.kwargs},
                      loc=n.loc, type=enter.type, role="with")
        opened[enter] = node
        return
    again = opened.pop(enter, None)
    if again is not None:
        params = {**enter.kwargs, "fn": None, "method": "__exit__", "keywords": (),
                  "out_type": effects_kinds.NONE, "block": "exit"}
        b.emit(Op.OPAQUE_CALL, [again], params, loc=n.loc, type=effects_kinds.NONE, role="with")


def with_lines(body: list[tuple[str, Node | None]]) -> list[tuple[str, Node | None]]:
    """Generated statements with the ``opaque_call`` pairs that open and close a manager
    written as a ``with`` statement around the statements between them."""
    if not any(node is not None and node.op is Op.OPAQUE_CALL and node.param("block")
               for _, node in body):
        return body
    out: list[tuple[str, Node | None]] = []
    depth = 0
    for text, node in body:
        block = node.param("block") if node is not None and node.op is \
            Op.OPAQUE_CALL else None
        pad = "    " * depth
        if block == "exit":
            if out and out[-1][1] is None and out[-1][0].lstrip().startswith("#"):
                out.pop()  # the comment that introduced the closing node
            if out and out[-1][1] is not None and out[-1][1].param("block") == "enter":
                out.append((pad + "pass", None))
            depth -= 1
            continue
        out.append((pad + text.replace("\n", "\n" + pad), node))
        if block == "enter":
            depth += 1
    return out
