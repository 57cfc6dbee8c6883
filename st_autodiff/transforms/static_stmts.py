"""Static statements: ``raise``, ``assert``, ``try`` and ``import`` in lowering.

Library code validates its inputs (``if x.ndim != 2: raise ValueError(...)``), picks
implementations in ``try`` blocks and imports inside functions.  Lowering is a partial
evaluator, so these statements are decided where it reaches them, with the facts known
there, as Python would run them; code in a branch that static folding removes is never
looked at.

**raise / assert.**  On a *static path* (every condition leading here was folded while
compiling) a ``raise`` is certain for these argument types, shapes and static values: the
exception is built statically (messages from f-strings, ``%`` and ``str.format``,
``static_format``) and lowering stops with ``StaticRaiseError``, located at the
``raise``, carrying the exception (a static ``try`` below may catch it).  An ``assert``
with a static condition is nothing when true and such an error when false.  Under a
runtime (data-dependent) condition the statement is an effect of the generated code;
``runtime_raise`` refuses it until effects exist.  A path is static when lowering is in
the builder of the innermost enclosing static ``try`` (or the function's own builder):
inside a region (a branch on runtime data, a loop body) it is not.

Failures of static evaluation (``TABLE[name]`` without the key, ``1 // 0`` on ints, an
attribute a module lacks, a failed import) are ``StaticRaiseError`` too
(``static_exception``): Python raises them there, and a ``try`` may catch them.

**try.**  The body is lowered; a ``StaticRaiseError`` raised on the static path of the
``try`` selects the first handler whose classes match (``isinstance``), binding ``as e``
to the exception; the scope is kept as it was when the exception was raised (Python keeps
the assignments made before it; the nodes emitted before it are pure and stay).  ``else``
runs when the body raised nothing (and did not stop on return/break/continue), ``finally``
always.  Soundness rule for runtime code in the body: generated code may raise at run
time too, and a handler would then have to run at run time.  ``runtime_raises`` says what
the body's nodes may raise when they run (views and ``np.asarray`` of an array nothing,
copies ``MemoryError``, arithmetic ``ArithmeticError``/``RuntimeWarning``/``MemoryError``,
``LinAlgError`` for ``inv``/``solve``/..., anything for opaque calls and effects).  A
handler whose classes overlap those (``except Exception`` around ``np.log``, ``except
LinAlgError`` around ``inv``) is refused with its location and the op that may raise; one
catching only classes the body cannot raise (``except Exception`` around ``np.asarray``
of an array, ``except ValueError`` around arithmetic on known shapes) is dropped and the
body compiled alone, which is what Python runs.  A handler chosen by a static exception is
decided statically.  An exception raised inside a region but caught outside it would
select its handler at run time: refused like a runtime raise.

**import.**  ``import m``, ``import a.b as c``, ``from m import x`` and relative imports
run while compiling, as Python runs them on every call (imports are cached by Python);
the names are bound in the scope.  ``from m import *`` is refused.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any, cast

import libcst as cst
import numpy as np

from ..errors import CompileError, StaticRaiseError, UnsupportedSyntaxError
from ..ir.graph import GraphBuilder, Node
from ..ir.ops import Op
from . import runtime_raises, static_format
from .parse import LAZY_HINTS
from .scope import FLAGS
from .static_format import refuse_lazily

if TYPE_CHECKING:
    from .lower import Lowerer
    from .scope import Scope

_STATIC_HINT = ("Python raises this here for arguments of these types, shapes and static "
                "values (st_autodiff evaluates it while compiling): check the arguments")


def _state(lw: Lowerer) -> dict[str, list[Any]]:
    """Per-lowering state: the builders of the enclosing static ``try`` blocks and the
    exceptions their handlers are handling (kept on the lowerer, created on first use)."""
    st = lw.__dict__.get("_static_stmts")
    if st is None:
        st = lw.__dict__["_static_stmts"] = {"try": [], "handling": []}
    return st


def _root(b: GraphBuilder) -> GraphBuilder:
    while b.parent is not None:
        b = b.parent
    return b


def static_builder(lw: Lowerer) -> GraphBuilder:
    """The builder in which a raise is on a static path: the innermost enclosing static
    ``try``'s, or the function's own."""
    tries = _state(lw)["try"]
    return tries[-1] if tries else _root(lw.b)


def on_static_path(lw: Lowerer) -> bool:
    """Whether an exception raised now is certain (no runtime condition or loop between
    here and the enclosing ``try`` or the function)."""
    return lw.b is static_builder(lw)


def static_exception(lw: Lowerer, exc: BaseException, where: cst.CSTNode,
                     message: str | None = None) -> StaticRaiseError:
    """The located error for ``exc``, raised by static evaluation at ``where``; a refusal
    where that evaluation ran Python code (a user's ``__eq__`` called by ``in``) on a
    marker of an attribute known only at run time, which Python itself would not."""
    from .objects import RuntimeAttributeUse  # noqa: PLC0415  (objects imports lowering)

    cause: BaseException | None = exc
    while cause is not None and not isinstance(cause, RuntimeAttributeUse):
        cause = cause.__cause__ or cause.__context__
    if cause is not None:
        raise lw.fail("this runs Python code of an object built in the function while "
                      "compiling (a method such as __eq__, __hash__ or __iter__, called by "
                      "`in`, set(), dict keys, list.count, sorted ...), and that code uses "
                      "an attribute known only at run time", where,
                      "compare or look up the attributes themselves, not the objects",
                      kind=UnsupportedSyntaxError)
    err = StaticRaiseError(exc, lw.loc(where), _STATIC_HINT, message)
    err.builder = lw.b
    return err


def runtime_raise(lw: Lowerer, node: cst.CSTNode, what: str = "raise") -> CompileError:
    """The refusal of what a runtime ``raise`` cannot be: a bare re-``raise`` or an
    exception caught by a handler when only the data decide it (Python semantics would
    need exception edges in the graph)."""
    return lw.fail(f"{what} under a runtime condition is not supported", node,
                   "the check depends on values computed at run time (array data, or a loop "
                   "that may not run): make the condition depend on shapes, dtypes or int "
                   "arguments, or raise outside the handler",
                   kind=UnsupportedSyntaxError)


def _runtime_raise(lw: Lowerer, s: cst.Raise, scope: Scope) -> None:
    """``raise E(...)`` under a runtime condition: an effect of the compiled code that
    raises the same exception, with its message formatted at run time
    (``effects.emit_raise``).  The statements after it in its block never run."""
    if s.exc is None:
        raise runtime_raise(lw, s, "a bare raise")
    exc = s.exc
    if isinstance(exc, cst.Call) and not any(a.star or a.keyword for a in exc.args):
        cls = lw.expr(exc.func, scope)
        parts = [lw.expr(a.value, scope) for a in exc.args]
    else:
        cls, parts = lw.expr(exc, scope), []
    if isinstance(cls, BaseException):  # a static instance: raised as it is
        cls, parts = type(cls), list(cls.args)
    if not (isinstance(cls, type) and issubclass(cls, BaseException)):
        raise lw.fail("raise of something that is not an exception class called with "
                      "positional arguments is not supported under a runtime condition", s,
                      "raise ExceptionClass(message)", kind=UnsupportedSyntaxError)
    from .effects import emit_raise  # noqa: PLC0415  (effects imports the lowering)

    emit_raise(lw, cls, parts, s)
    scope.raised = True  # (an if's join ignores this branch)


def statement(lw: Lowerer, s: cst.CSTNode, scope: Scope) -> None:
    """``raise``, ``assert``, ``import``, ``from ... import``, ``try`` and the statements
    refused lazily (``del``, ``class``)."""
    if isinstance(s, cst.Del):
        from .small_ops import del_statement  # noqa: PLC0415  (it imports this module)

        del_statement(lw, s.target, scope)
        return
    if type(s) in LAZY_HINTS:
        raise refuse_lazily(lw, s)
    if isinstance(s, (cst.Try, cst.TryStar)):
        try_statement(lw, s, scope)
    elif isinstance(s, cst.Raise):
        raise_statement(lw, s, scope)
    elif isinstance(s, cst.Assert):
        assert_statement(lw, s, scope)
    else:
        assert isinstance(s, (cst.Import, cst.ImportFrom))
        import_statement(lw, s, scope)


# --- raise and assert -------------------------------------------------------------------


def raise_statement(lw: Lowerer, s: cst.Raise, scope: Scope) -> None:
    """``raise E(...)`` / ``raise`` / ``raise E from c`` (see the module docstring)."""
    if not on_static_path(lw):
        _runtime_raise(lw, s, scope)
        return
    if s.exc is None:
        handling = _state(lw)["handling"]
        exc: Any = handling[-1] if handling else RuntimeError(
            "No active exception to reraise")
    else:
        with static_format.formatting_leniently(lw):
            exc = _exception(lw, lw.expr(s.exc, scope), s.exc)
            if s.cause is not None:
                cause = _exception(lw, lw.expr(s.cause.item, scope), s.cause.item) \
                    if not _is_none(s.cause.item) else None
                exc.__cause__ = cause
    err = static_exception(lw, exc, s)
    raise err


def _is_none(e: cst.BaseExpression) -> bool:
    return isinstance(e, cst.Name) and e.value == "None"


def _exception(lw: Lowerer, v: Any, where: cst.CSTNode) -> BaseException:
    """What ``raise v`` raises: an instance, or a class called without arguments."""
    if isinstance(v, type) and issubclass(v, BaseException):
        try:
            return v()
        except Exception as exc:
            return exc
    if isinstance(v, BaseException):
        return v
    return TypeError("exceptions must derive from BaseException")


def assert_statement(lw: Lowerer, s: cst.Assert, scope: Scope) -> None:
    """``assert test, msg``: nothing when ``test`` is statically true, a located
    ``AssertionError`` when false, a refusal when only known at run time."""
    test = lw.expr(s.test, scope)
    if isinstance(test, Node) and test.op is Op.CONST and not isinstance(
            test.param("value"), np.ndarray):
        test = test.param("value")
    if isinstance(test, Node):  # checked when the compiled code runs
        from .effects import emit_assert  # noqa: PLC0415  (effects imports the lowering)

        emit_assert(lw, test, [] if s.msg is None else [lw.expr(s.msg, scope)], s)
        return
    try:
        ok = bool(test)
    except Exception as exc:
        raise static_exception(lw, exc, s.test) from None
    if ok:
        return
    if not on_static_path(lw):  # a false assert in a branch taken at run time
        from .effects import emit_assert  # noqa: PLC0415

        emit_assert(lw, False, [] if s.msg is None else [lw.expr(s.msg, scope)], s)
        return
    if s.msg is None:
        text = lw.fn.module.tree.code_for_node(s.test).strip()
        raise static_exception(lw, AssertionError(), s,
                               f"AssertionError: assert {text} failed")
    with static_format.formatting_leniently(lw):
        msg = static_format.static_value(lw, lw.expr(s.msg, scope), s.msg)
    raise static_exception(lw, AssertionError(msg), s)


# --- try --------------------------------------------------------------------------------


def try_statement(lw: Lowerer, stmt: cst.Try | cst.TryStar, scope: Scope) -> None:
    """A ``try`` statement whose handlers are selected while compiling."""
    if isinstance(stmt, cst.TryStar):
        raise lw.fail("try ... except* is not supported", stmt,
                      "catch the exception group with a plain except")
    state = _state(lw)
    builder, start = lw.b, len(lw.b.nodes)
    flags = {f: scope.vars.get(f, False) for f in FLAGS}
    state["try"].append(builder)
    raised: StaticRaiseError | None = None
    try:
        lw.run_stmts(lw.suite(stmt.body), scope)
    except StaticRaiseError as err:
        raised = err
    finally:
        state["try"].pop()
    pending: StaticRaiseError | None = None
    try:
        _check_runtime_handlers(lw, stmt, lw.b.nodes[start:], scope)
        if raised is not None:
            handler = _handler(lw, stmt, raised.exception, scope)
            if handler is not None and getattr(raised, "builder", builder) is not builder:
                # raised in a branch or loop on runtime data: the handler runs at run time
                raise runtime_raise(lw, stmt, "an exception caught")
            if handler is None:
                pending = raised
            else:
                for f, v in flags.items():
                    scope.vars[f] = v
                _run_handler(lw, handler, raised.exception, scope)
        elif stmt.orelse is not None:
            _run_after(lw, lw.suite(stmt.orelse.body), scope, stmt)
    except StaticRaiseError as err:
        pending = err
    if stmt.finalbody is not None:
        _run_finally(lw, lw.suite(stmt.finalbody.body), scope, stmt, pending)
    if pending is not None:
        if not on_static_path(lw):
            raise runtime_raise(lw, stmt, "an exception raised")
        raise pending


def _handler(lw: Lowerer, stmt: cst.Try, exc: BaseException, scope: Scope
             ) -> cst.ExceptHandler | None:
    """The first handler of ``stmt`` whose classes ``exc`` is an instance of."""
    for h in stmt.handlers:
        if isinstance(exc, _classes(lw, h, scope)):
            return h
    return None


def _classes(lw: Lowerer, h: cst.ExceptHandler, scope: Scope) -> tuple[type, ...]:
    """The exception classes a handler names (``except:`` catches everything)."""
    if h.type is None:
        return (BaseException,)
    v = lw.expr(h.type, scope)
    items = v if isinstance(v, tuple) else (v,)
    if not all(isinstance(c, type) and issubclass(c, BaseException) for c in items):
        raise lw.fail("an except clause must name exception classes known when compiling",
                      h.type, kind=CompileError)
    return items


def _run_handler(lw: Lowerer, h: cst.ExceptHandler, exc: BaseException, scope: Scope
                 ) -> None:
    name = h.name.name.value if h.name is not None and isinstance(
        h.name.name, cst.Name) else None
    if name is not None:
        scope.vars[name] = exc
    handling = _state(lw)["handling"]
    handling.append(exc)
    try:
        lw.run_stmts(lw.suite(h.body), scope)
    finally:
        handling.pop()
        if name is not None:
            scope.vars.pop(name, None)  # Python deletes the name after the handler


def _run_after(lw: Lowerer, stmts: list[Any], scope: Scope, where: cst.CSTNode) -> None:
    """Statements that run only if nothing stopped the sequence (``else`` of a ``try``)."""
    state = lw.flow_state(scope, where)
    if state is True or not stmts:
        return
    if isinstance(state, Node):
        lw.guarded(state, lambda sc: lw.run_stmts(stmts, sc), scope, where)
        return
    lw.run_stmts(stmts, scope)


def _run_finally(lw: Lowerer, stmts: list[Any], scope: Scope, where: cst.CSTNode,
                 pending: StaticRaiseError | None) -> None:
    """``finally``: lowered with the flags cleared, then the flags of the body restored
    (unless ``finally`` itself returns, breaks or continues)."""
    saved = {f: scope.vars.get(f, False) for f in FLAGS}
    saved_ret = scope.vars.get("#retval")
    for f in FLAGS:
        scope.vars[f] = False
    lw.run_stmts(stmts, scope)
    own = {f: scope.vars.get(f, False) for f in FLAGS}
    if any(v is not False for v in own.values()):
        if pending is not None or any(v is not False for v in saved.values()):
            raise lw.fail("return, break or continue in a finally block that overrides "
                          "another exit is not supported", where,
                          "move the statement out of the finally block")
        return
    for f, v in saved.items():
        scope.vars[f] = v
    if saved_ret is not None:
        scope.vars["#retval"] = saved_ret


def _check_runtime_handlers(lw: Lowerer, stmt: cst.Try, nodes: list[Node], scope: Scope
                            ) -> None:
    """Refuse a handler that could catch an exception of the runtime nodes ``nodes``
    (emitted by the ``try`` body): it would have to be chosen at run time."""
    folded = lw.__dict__.get("static_nodes", ())  # static_numpy: made from static inputs
    runtime = runtime_raises.classes([n for n in nodes if id(n) not in folded])
    if not runtime:
        return
    for h in stmt.handlers:
        hit = runtime_raises.caught(_classes(lw, h, scope), runtime)
        if hit:
            names = ", ".join(c.__name__ for c in hit)
            raise lw.fail(f"except {names} around values computed at run time is not "
                          "supported: whether the handler runs would be decided by the data "
                          "when the compiled code runs; "
                          "in the try block, " + runtime_raises.refusal(list(nodes), hit),
                          h, "catch only exceptions raised while compiling (KeyError, "
                          "AttributeError, TypeError, ImportError), or move the "
                          "computation on arrays out of the try block")


# --- import -----------------------------------------------------------------------------


def import_statement(lw: Lowerer, s: cst.Import | cst.ImportFrom, scope: Scope) -> None:
    """Run an import while compiling and bind its names in the scope."""
    if isinstance(s, cst.Import):
        for alias in s.names:
            dotted = _dotted(alias.name)
            module = _import(lw, dotted, s, scope)
            if alias.asname is not None:
                scope.vars[cast(cst.Name, alias.asname.name).value] = module
            else:
                top = dotted.split(".")[0]
                scope.vars[top] = sys.modules.get(top) or _import(lw, top, s, scope)
        return
    if isinstance(s.names, cst.ImportStar):
        raise lw.fail("from ... import * inside a function is not supported", s,
                      "import the names you use")
    base = _dotted(s.module) if s.module is not None else ""
    if s.relative:
        package = _package(lw, scope, s)
        name = importlib.util.resolve_name("." * len(s.relative) + base, package)
    else:
        name = base
    module = _import(lw, name, s, scope)
    for alias in s.names:
        attr = _dotted(alias.name)
        if hasattr(module, attr):
            value = getattr(module, attr)
        else:
            try:
                value = _import(lw, f"{name}.{attr}", alias, scope)
            except CompileError:
                raise static_exception(lw, ImportError(
                    f"cannot import name {attr!r} from {name!r}"), alias) from None
        bound = cast(cst.Name, alias.asname.name).value if alias.asname is not None else attr
        scope.vars[bound] = lw.const_of_global(bound, value)


def _dotted(e: cst.BaseExpression) -> str:
    if isinstance(e, cst.Name):
        return e.value
    if isinstance(e, cst.Attribute):
        return f"{_dotted(e.value)}.{e.attr.value}"
    raise TypeError(f"not a dotted name: {type(e).__name__}")


def _import(lw: Lowerer, name: str, where: cst.CSTNode, scope: Scope | None = None
            ) -> types.ModuleType:
    """Import ``name``; under the CLI (which never runs user code) only installed modules,
    as its top-level imports (``static_scope``)."""
    cli = _cli_scope(scope)
    if cli is not None:
        try:
            return cast(types.ModuleType, cli._import(name, where))  # noqa: SLF001
        except Exception as exc:  # _Unresolvable: (reason, node)
            if "user code" in str(exc.args[0]):
                raise lw.fail(str(exc.args[0]), where, kind=CompileError) from None
            raise static_exception(lw, ImportError(exc.args[0]), where) from None
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise static_exception(lw, exc, where) from None


def _cli_scope(scope: Scope | None) -> Any:
    """The CLI's ``StaticScope`` when the function's free names come from one."""
    while scope is not None:
        if scope.outer is not None:
            return getattr(scope.outer, "static_scope", None)
        scope = scope.parent
    return None


def _package(lw: Lowerer, scope: Scope, where: cst.CSTNode) -> str:
    for key in ("__package__", "__name__"):
        try:
            value = scope.lookup(key)
        except KeyError:
            continue
        if isinstance(value, str) and value:
            return value if key == "__package__" else value.rpartition(".")[0]
    raise lw.fail("a relative import outside a package", where, kind=CompileError)
