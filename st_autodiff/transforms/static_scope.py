"""Free names of a function in a parsed file, resolved without running it (for the CLI).

``StaticScope(module).make_resolver`` is the ``make_resolver`` of ``compile_function``.  It
answers "what is ``np``, ``helper``, ``SCALE``?" from the file's top-level statements:
imports load the *installed* library (a module in the file's own directory is user code
and is refused); ``def helper`` becomes a ``Closure`` the lowerer inlines, fenced like the
function; ``NAME = expr`` is evaluated when ``expr`` is a literal, or is built from
literals, names bound above it, arithmetic, indexing, attributes and allow-listed pure
NumPy/math/builtin calls (``np.array([[1.0, 2.0]])``, ``2 * np.pi``, ``np.eye(3)``).
Anything else the function uses (classes, decorated functions, relative imports, names
changed by ``+=`` or bound in a top-level ``if``/``for``/``try``/``with``, other
expressions) is a ``StaticResolutionError`` located at its definition.  Functions see each
name's last top-level binding; unbound names fall through to builtins.
"""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
import importlib.util
import operator
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import libcst as cst
import libcst.matchers as m
import numpy as np
from libcst.helpers import get_full_name_for_node_or_raise as _dotted

from ..errors import CompileError
from .parse import ParsedFunction, ParsedModule, check_subset

if TYPE_CHECKING:
    from .lower import Lowerer

_HINT = ("the CLI reads the file without running it: make the value a literal or a NumPy "
         "expression of literals, pass it as an argument, or use st_autodiff.grad in Python")
_BUILTINS = {"abs", "bool", "float", "int", "len", "list", "max", "min", "pow", "range",
             "round", "sum", "tuple"}
_NUMPY = {"arange", "array", "asarray", "concatenate", "diag", "dot", "eye", "finfo", "full",
          "full_like", "identity", "iinfo", "linspace", "logspace", "matmul", "mean", "ones",
          "ones_like", "outer", "prod", "reshape", "stack", "sum", "transpose", "tril", "triu",
          "zeros", "zeros_like"}
_METHODS = {"astype", "copy", "flatten", "max", "mean", "min", "prod", "ravel", "reshape",
            "sum", "transpose"}
_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    cst.Add: operator.add, cst.Subtract: operator.sub, cst.Multiply: operator.mul,
    cst.Divide: operator.truediv, cst.FloorDivide: operator.floordiv,
    cst.Modulo: operator.mod, cst.Power: operator.pow, cst.MatrixMultiply: operator.matmul}
_UNARY: dict[type, Callable[[Any], Any]] = {cst.Minus: operator.neg, cst.Plus: operator.pos,
                                             cst.BitInvert: operator.invert, cst.Not: operator.not_}
_TARGETS = {cst.AssignTarget: "target", cst.AnnAssign: "target", cst.AugAssign: "target",
            cst.For: "target", cst.AsName: "name"}
_WHY = {cst.ClassDef: "it is a class", cst.ImportFrom: "relative imports name user code",
        cst.AugAssign: "it is changed by an augmented assignment at top level"}
Thunk = Callable[[], Any]


class StaticResolutionError(CompileError):
    """A free name of the function that the CLI cannot know without running the file."""


class _Unresolvable(Exception):
    """``(reason, node)`` inside the evaluator; ``value`` turns it into the located error."""


def _refuse(reason: str, node: cst.CSTNode) -> Thunk:
    def thunk() -> Any:
        raise _Unresolvable(reason, node)
    return thunk


class StaticScope:
    """The top-level bindings of a parsed file, evaluated on demand and cached."""

    def __init__(self, module: ParsedModule) -> None:
        self.module = module
        self.home = Path(module.file).resolve().parent
        self.bindings: dict[str, list[tuple[int, Thunk]]] = {}  # name -> (statement, value)
        self.stars: list[tuple[int, str, cst.CSTNode]] = []
        self._cache: dict[tuple[str, int], Any] = {}
        self._stack: list[str] = []  # names being evaluated, for messages
        for i, stmt in enumerate(module.tree.body):
            for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else [stmt]:
                self._collect(i, small)

    def make_resolver(self, lw: Lowerer) -> Callable[[str], Any]:
        """The lowerer's free-name lookup: helpers as closures, arrays as named constants."""
        from .scope import Closure, Scope  # noqa: PLC0415

        closures: dict[int, Any] = {}

        def resolve(name: str) -> Any:
            try:
                value = self.value(name)
            except KeyError:
                if hasattr(builtins, name):
                    return getattr(builtins, name)
                raise
            except StaticResolutionError as exc:
                found = m.findall(lw.fn.node, m.Name(name)) if lw.fn_stack else []
                use = f" (used at {lw.fn.loc(found[0])})" if found else ""
                raise StaticResolutionError(exc.message + use, exc.loc, exc.hint) from None
            if isinstance(value, ParsedFunction):
                return closures.setdefault(id(value), Closure(value, Scope(None, resolve)))
            return lw.const_of_global(name, value)

        resolve.static_scope = self  # type: ignore[attr-defined]  # a function's attribute
        return resolve

    def value(self, name: str, before: int | None = None) -> Any:
        """The value of top-level ``name`` as bound above statement ``before`` (KeyError)."""
        limit = len(self.module.tree.body) if before is None else before
        self._stack.append(name)
        try:
            index, thunk = self._binding(name, limit)
            if (name, index) not in self._cache:
                self._cache[name, index] = thunk()
            return self._cache[name, index]
        except _Unresolvable as exc:
            reason, node = exc.args
            needs = f"it needs {name!r}, and " if len(self._stack) > 1 else ""
            raise StaticResolutionError(
                f"the CLI cannot resolve {self._stack[0]!r} statically: {needs}{reason}",
                self.module.loc(node), _HINT) from None
        finally:
            self._stack.pop()

    def _bind(self, name: str, i: int, thunk: Thunk) -> None:
        self.bindings.setdefault(name, []).append((i, thunk))

    def _collect(self, i: int, s: cst.CSTNode) -> None:
        if isinstance(s, cst.FunctionDef):
            self._bind(s.name.value, i, lambda: self._function(s))
        elif isinstance(s, cst.Import):
            for alias in s.names:
                full = _dotted(alias.name)
                top = full.split(".")[0]
                self._bind(alias.evaluated_alias or top, i,
                           lambda f=full, a=alias: self._import(f, a, top_level=not a.asname))  # type: ignore[misc]  # lambda with defaults
        elif isinstance(s, cst.ImportFrom) and not s.relative and s.module is not None:
            mod = _dotted(s.module)
            if isinstance(s.names, cst.ImportStar):
                self.stars.append((i, mod, s))
                return
            for alias in s.names:
                attr = _dotted(alias.name)
                self._bind(alias.evaluated_alias or attr, i,
                           lambda a=attr, n=alias: self._from(mod, a, n))  # type: ignore[misc]  # lambda with defaults
        elif isinstance(s, (cst.Assign, cst.AnnAssign)) and s.value is not None:
            targets = [t.target for t in s.targets] if isinstance(s, cst.Assign) else [s.target]
            for t in targets:
                if isinstance(t, cst.Name):
                    self._bind(t.value, i, lambda v=s.value: self._eval(v, i))  # type: ignore[misc]  # lambda with defaults
                else:
                    for name in _bound_names(s):
                        self._bind(name, i, _refuse("it is unpacked or modified", s))
        elif not isinstance(s, cst.AnnAssign):  # a bare annotation binds nothing
            what = _WHY.get(type(s), f"it is bound or changed in a top-level "
                                     f"{type(s).__name__.lower()} statement")
            for name in _bound_names(s):
                self._bind(name, i, _refuse(what, s))

    def _binding(self, name: str, limit: int) -> tuple[int, Thunk]:
        found = [(i, thunk) for i, thunk in self.bindings.get(name, ()) if i < limit]
        last = found[-1][0] if found else -1
        for i, mod, node in reversed(self.stars):
            if last < i < limit:
                module = self._import(mod, node)
                public = getattr(module, "__all__", None)
                if name in public if public is not None else (
                        not name.startswith("_") and hasattr(module, name)):
                    return i, functools.partial(getattr, module, name)
        if not found:
            raise KeyError(name)
        return found[-1]

    def _function(self, node: cst.FunctionDef) -> ParsedFunction:
        if node.decorators:
            raise _Unresolvable("decorators change what the function is", node.decorators[0])
        check_subset(node, self.module)
        return ParsedFunction(node.name.value, node, self.module)

    def _from(self, module_name: str, attr: str, node: cst.CSTNode) -> Any:
        module = self._import(module_name, node)
        return getattr(module, attr) if hasattr(module, attr) else self._import(
            f"{module_name}.{attr}", node)

    def _import(self, dotted: str, node: cst.CSTNode, top_level: bool = False) -> ModuleType:
        """Import an installed module (``top_level``: return its top package, like Python)."""
        top = dotted.split(".")[0]
        try:
            spec = importlib.util.find_spec(top)
        except (ImportError, ValueError) as exc:
            raise _Unresolvable(f"module {top!r} cannot be found ({exc})", node) from None
        if spec is None:
            raise _Unresolvable(f"module {top!r} is not installed", node)
        places = [spec.origin] if spec.has_location and spec.origin else []
        places += list(spec.submodule_search_locations or ())
        if any(Path(p).resolve().is_relative_to(self.home) for p in places):
            raise _Unresolvable(f"module {top!r} is user code next to {self.module.file}, "
                                "and the CLI never runs user code", node)
        try:
            module = importlib.import_module(dotted)
            return importlib.import_module(top) if top_level else module
        except ImportError as exc:
            raise _Unresolvable(f"importing {dotted!r} failed: {exc}", node) from None

    def _eval(self, e: cst.BaseExpression, before: int) -> Any:
        """A constant expression: literals, names above, arithmetic, pure calls."""
        try:
            return ast.literal_eval(self.module.tree.code_for_node(e).strip())
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            pass
        try:
            return self._eval_node(e, before)
        except (_Unresolvable, CompileError):
            raise
        except Exception as exc:  # NumPy rejecting the values: report, located
            raise _Unresolvable(f"evaluating it failed: {type(exc).__name__}: {exc}",
                                e) from None

    def _eval_node(self, e: cst.BaseExpression, before: int) -> Any:
        ev = self._eval
        if isinstance(e, cst.Name):
            try:
                return self.value(e.value, before)
            except KeyError:
                if e.value in _BUILTINS:
                    return getattr(builtins, e.value)
                raise _Unresolvable(f"{e.value!r} is not defined above it", e) from None
        if isinstance(e, cst.Attribute) and not e.attr.value.startswith("_"):
            return getattr(ev(e.value, before), e.attr.value)
        if isinstance(e, (cst.Tuple, cst.List)) and not m.findall(e, m.StarredElement()):
            items = [ev(el.value, before) for el in e.elements]
            return tuple(items) if isinstance(e, cst.Tuple) else items
        if isinstance(e, cst.BinaryOperation) and type(e.operator) in _BINARY:
            return _BINARY[type(e.operator)](ev(e.left, before), ev(e.right, before))
        if isinstance(e, cst.UnaryOperation):
            return _UNARY[type(e.operator)](ev(e.expression, before))
        if isinstance(e, cst.Subscript):
            parts = [ev(el.slice.value, before) if isinstance(el.slice, cst.Index)
                     else slice(*(None if x is None else ev(x, before)
                                  for x in (el.slice.lower, el.slice.upper, el.slice.step)))  # type: ignore[attr-defined]  # a Slice
                     for el in e.slice]
            return ev(e.value, before)[parts[0] if len(parts) == 1 else tuple(parts)]
        if isinstance(e, cst.Call) and not any(a.star for a in e.args):
            fn = ev(e.func, before)
            if not _is_pure(fn):
                raise _Unresolvable(f"calling {self.module.tree.code_for_node(e.func)} would "
                                    "run code the CLI does not evaluate", e)
            args = [ev(a.value, before) for a in e.args if a.keyword is None]
            kwargs = {a.keyword.value: ev(a.value, before) for a in e.args if a.keyword}
            return fn(*args, **kwargs)
        code = self.module.tree.code_for_node(e).strip()
        raise _Unresolvable(f"`{code}` is not a literal or a simple NumPy expression", e)


def _is_pure(fn: Any) -> bool:
    """Calls a constant expression may make: they compute, and touch nothing else."""
    return (isinstance(fn, np.ufunc) or getattr(fn, "__module__", None) == "math"
            or (isinstance(fn, type) and issubclass(fn, np.generic))
            or (isinstance(getattr(fn, "__self__", None), np.ndarray)
                and getattr(fn, "__name__", "") in _METHODS)
            or any(fn is getattr(np, n) for n in _NUMPY)
            or any(fn is getattr(builtins, n) for n in _BUILTINS))


def _target_names(t: cst.BaseExpression) -> list[str]:
    """Names an assignment target binds or changes (``a`` of ``a``, ``a[i]``, ``a.b``)."""
    if isinstance(t, cst.Name):
        return [t.value]
    if isinstance(t, (cst.Tuple, cst.List)):
        return [n for el in t.elements for n in _target_names(el.value)]
    return _target_names(t.value) if isinstance(t, (cst.Subscript, cst.Attribute)) else []


def _bound_names(node: cst.CSTNode) -> list[str]:
    """Every name a top-level statement may bind or change (not inside nested defs)."""
    names: list[str] = []

    class Visitor(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            if isinstance(n, (cst.FunctionDef, cst.ClassDef)):
                names.append(n.name.value)
                return False
            if isinstance(n, cst.ImportAlias) and n.asname is None:
                names.append(_dotted(n.name).split(".")[0])
            if type(n) in _TARGETS:
                names.extend(_target_names(getattr(n, _TARGETS[type(n)])))
            elif isinstance(n, cst.Del):
                names.extend(_target_names(n.target))
            return True

    node.visit(Visitor())
    return names
