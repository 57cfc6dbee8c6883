"""Strings built while compiling: f-strings, ``%`` and ``str.format`` on static values.

Library code builds messages for its exceptions (``f"x must be 2-D, got {x.ndim}"``,
``"bad axis %d" % axis``, ``"{}".format(shape)``).  On static values (ints, strings,
shapes, dtypes) lowering computes the string as Python would, so a ``raise`` that static
folding reaches carries the real message.

A runtime value (an array, a float computed from the arguments) inside a string is only
known when the generated code runs.  Two cases:

* in the message of a ``raise``/``assert`` lowering reaches on a static path (the error
  is certain for these argument types), the value is written ``<runtime value>``: the
  compile error still says what is wrong (``formatting_leniently``);
* anywhere else (``print(f"loss={loss:.4f}")``), ``runtime_format`` refuses it with the
  location: building strings at run time is future work (the effects of ``print``,
  ``warnings`` and ``logging`` will consume them).

``StaticLowering`` (a mixin of ``lower.Lowerer``) holds the expression handlers: strings,
set literals of static values, and the lazily refused walrus (``refuse_lazily`` refuses
what ``parse.LAZY_HINTS`` lists, where lowering reaches it).
"""

from __future__ import annotations

import ast
import contextlib
import operator
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

import libcst as cst
import numpy as np

from ..errors import CompileError, StaticRaiseError, UnsupportedSyntaxError
from ..ir.graph import Node
from ..ir.ops import Op
from ..ir.types import type_module
from .parse import LAZY_HINTS

if TYPE_CHECKING:
    from .lower import Lowerer
    from .lowering_api import LowererAPI
    from .scope import Scope
else:
    LowererAPI = object  # the shared interface exists for the type checker only


class RuntimeValue:
    """Stands for a runtime value inside a compile-time message."""

    def __repr__(self) -> str:
        return "<runtime value>"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return repr(self)


def runtime_format(lw: Lowerer, node: cst.CSTNode) -> CompileError:
    """The located refusal of a string built from a runtime value (one place, so that the
    effects of ``print``/``warnings`` can replace it with a runtime string)."""
    return lw.fail("formatting a runtime value into a string is not supported yet", node,
                   "format values known when compiling (shapes, dtypes, ints, strings); "
                   "print or log runtime values outside the differentiated function",
                   kind=UnsupportedSyntaxError)


@contextlib.contextmanager
def formatting_leniently(lw: Lowerer) -> Iterator[None]:
    """Within: runtime values in strings are written ``<runtime value>`` (the message of
    an exception that is raised for sure)."""
    lw.__dict__["_lenient_format"] = lw.__dict__.get("_lenient_format", 0) + 1
    try:
        yield
    finally:
        lw.__dict__["_lenient_format"] -= 1


def lenient(lw: Lowerer) -> bool:
    """Whether runtime values in strings are written as placeholders just now."""
    return bool(lw.__dict__.get("_lenient_format", 0))


def static_value(lw: Lowerer, v: Any, where: cst.CSTNode) -> Any:
    """``v`` as a Python value to format: constants folded from shapes become their value;
    a runtime value is a placeholder (leniently) or refused."""
    if isinstance(v, Node):
        if v.op is Op.CONST:
            return v.param("value")
        if lenient(lw):
            return RuntimeValue()
        raise runtime_format(lw, where)
    if isinstance(v, tuple):
        return tuple(static_value(lw, x, where) for x in v)
    if isinstance(v, list):
        return [static_value(lw, x, where) for x in v]
    if isinstance(v, dict):
        return {k: static_value(lw, x, where) for k, x in v.items()}
    return v


def _failed(lw: Lowerer, exc: Exception, where: cst.CSTNode) -> StaticRaiseError:
    from .static_stmts import static_exception  # noqa: PLC0415  (it imports this module)

    return static_exception(lw, exc, where)


def percent(lw: Lowerer, fmt: str, args: Any, where: cst.CSTNode) -> str:
    """``fmt % args`` on static values (Python's printf-style formatting)."""
    values = static_value(lw, args, where)
    try:
        return cast(str, fmt % values)
    except Exception as exc:
        raise _failed(lw, exc, where) from None


def call_format(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
                where: cst.CSTNode) -> str:
    """``"...".format(*args, **kwargs)`` (and ``str.format_map``) on static values."""
    a = [static_value(lw, v, where) for v in args]
    k = {key: static_value(lw, v, where) for key, v in kwargs.items()}
    try:
        return cast(str, fn(*a, **k))
    except Exception as exc:
        raise _failed(lw, exc, where) from None


_STRING_OPS = {Op.ADD: operator.add, Op.MUL: operator.mul, Op.EQ: operator.eq,
               Op.NE: operator.ne, Op.LT: operator.lt, Op.LE: operator.le, Op.GT: operator.gt,
               Op.GE: operator.ge}


def string_binary(lw: Lowerer, op: Op, a: Any, b: Any, where: cst.CSTNode) -> Any:
    """``+``, ``*`` and ``%`` with a string operand: Python's meaning, on static values."""
    if op is Op.MOD and isinstance(a, str):
        return percent(lw, a, b, where)
    if op in (Op.EQ, Op.NE) and isinstance(a, str) != isinstance(b, str):
        answer = equals_string(lw, b if isinstance(a, str) else a, op is Op.NE, where)
        if answer is not None:
            return answer
    a, b = static_value(lw, a, where), static_value(lw, b, where)
    fn = _STRING_OPS.get(op)
    try:
        if fn is None:
            raise TypeError(f"unsupported operand type(s) for {op.value}: "
                            f"{type(a).__name__!r} and {type(b).__name__!r}")
        return fn(a, b)
    except Exception as exc:
        raise _failed(lw, exc, where) from None


def equals_string(lw: Lowerer, v: Any, ne: bool, where: cst.CSTNode) -> Any:
    """``v == 'text'`` (``ne``: ``!=``) where ``v`` holds runtime values, answered from
    ``v``'s type alone as Python and NumPy 2 do: a tuple, list or dict never equals a str
    (a Python bool); a numeric array compares elementwise, all False (``!=``: all True),
    in its own shape; a 0-d value gives a NumPy or Python bool by its kind.  None where
    the answer's kind or shape is not known."""
    from ..ir.scalar_kinds import (  # noqa: PLC0415
        ARRAY,
        NUMPY,
        PYTHON,
        exact_kind,
        rank_one_or_more,
    )
    from .static_queries import _is_argument  # noqa: PLC0415  (static_queries imports us)

    if type(v) in (tuple, list, dict):  # (a subclass may define its own ==)
        return ne
    t = v.type if isinstance(v, Node) else None
    if t is None or t.kind not in ("array", "float", "int", "bool"):
        return None
    dt = np.dtype(t.dtype) if t.dtype is not None else np.dtype(np.float64)
    if t.kind == "array" and t.shape:
        return _installed_answer(np.zeros(t.shape, dt), ne)
    if t.kind == "array" and t.shape is None:
        if not rank_one_or_more(lw, v) or not isinstance(
                _installed_answer(np.zeros(1, dt), ne), np.ndarray):
            return None
        return lw.emit(Op.FULL_LIKE, [v, ne], {"dtype": "bool"}, where)
    kind = exact_kind(lw, v, _is_argument)
    if kind == PYTHON:
        return ne
    if kind in (NUMPY, ARRAY):  # NumPy 2.2 gives a Python bool for a NumPy scalar, 2.4 not
        return _installed_answer(np.zeros((), dt)[()] if kind == NUMPY else np.zeros((), dt), ne)
    return None


def _installed_answer(sample: Any, ne: bool) -> Any:
    """What the installed NumPy gives for ``sample == 'text'`` (``!=``): its type and shape
    follow the dtype and kind alone (a number never equals a str)."""
    import warnings  # noqa: PLC0415

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (sample != "\0") if ne else (sample == "\0")


def formatted_string(lw: Lowerer, e: cst.FormattedString, scope: Scope) -> str:
    """An f-string's value: a Python str when every value in it is static; a runtime value
    is refused (``runtime_format``) or, in a message raised for sure, a placeholder."""
    quote = e.end
    prefix = e.start[: len(e.start) - len(quote)].lower().replace("f", "")
    return _parts(lw, e.parts, scope, prefix, quote)


def _parts(lw: Lowerer, parts: Any, scope: Scope, prefix: str, quote: str) -> str:
    out = []
    for p in parts:
        if isinstance(p, cst.FormattedStringText):
            text = ast.literal_eval(f"{prefix}{quote}{p.value}{quote}") if p.value else ""
            out.append(text.replace("{{", "{").replace("}}", "}"))
            continue
        value = static_value(lw, lw.expr(p.expression, scope), p)
        if p.conversion == "r" or (p.equal is not None and p.conversion is None and
                                   p.format_spec is None):
            value = repr(value)
        elif p.conversion == "s":
            value = str(value)
        elif p.conversion == "a":
            value = ascii(value)
        spec = _parts(lw, p.format_spec, scope, prefix, quote) if p.format_spec else ""
        if p.equal is not None:  # f"{x=}": the expression's text, then its value
            out.append(lw.fn.module.tree.code_for_node(p.expression) + "=")
        try:
            out.append(format(value, spec))
        except Exception as exc:
            raise _failed(lw, exc, p) from None
    return "".join(out)


def _holds_runtime(v: Any) -> bool:
    if isinstance(v, Node) or type_module(v).startswith("st_autodiff"):
        return True
    if isinstance(v, (tuple, list, set, frozenset)):
        return any(_holds_runtime(x) for x in v)
    if isinstance(v, dict):
        return any(_holds_runtime(x) for x in v.values())
    return False


def _reads_outside(fn: cst.CSTNode, inner: cst.CSTNode, name: str) -> bool:
    """Whether ``name`` appears in ``fn`` outside ``inner``."""
    count = {"all": 0, "inner": 0}

    class V(cst.CSTVisitor):
        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

        def visit_Name(self, node: cst.Name) -> None:
            if node.value == name:
                count[self.key] += 1

    fn.visit(V("all"))
    inner.visit(V("inner"))
    return count["all"] > count["inner"]


def refuse_lazily(lw: Lowerer, node: cst.CSTNode) -> CompileError:
    """The located refusal of a construct of ``parse.LAZY_HINTS``, reached by lowering."""
    message, hint = LAZY_HINTS[type(node)]
    return lw.fail(message, node, hint)


class StaticLowering(LowererAPI):
    """Expressions of ``lower.Lowerer`` decided here: strings (``static_format``) and the
    lazily refused ones."""

    def expr_FormattedString(self, e: cst.FormattedString, scope: Scope) -> str:
        return formatted_string(cast("Lowerer", self), e, scope)

    def expr_ConcatenatedString(self, e: cst.ConcatenatedString, scope: Scope
                                ) -> Any:
        left, right = self.expr(e.left, scope), self.expr(e.right, scope)
        if isinstance(left, bytes) != isinstance(right, bytes):
            raise self.fail("cannot mix bytes and nonbytes literals", e, kind=CompileError)
        if isinstance(left, Node) or isinstance(right, Node):  # an f-string of runtime values
            if lenient(cast("Lowerer", self)):
                return RuntimeValue()
            from .effects import concatenate_strings  # noqa: PLC0415

            return concatenate_strings(cast("Lowerer", self), left, right, e)
        return left + right

    def expr_NamedExpr(self, e: cst.NamedExpr, scope: Scope) -> Any:
        """``(name := value)``: assigns ``name`` in the function's scope, then is the value.
        Inside a comprehension it would bind in the enclosing function: refused there."""
        if not isinstance(e.target, cst.Name):
            raise refuse_lazily(cast("Lowerer", self), e)
        value = self.expr(e.value, scope)
        home, comps = scope, []
        while getattr(home, "comprehension", None) is not None and home.parent is not None:
            comps.append(home.comprehension)
            home = home.parent  # a comprehension's walrus binds in the enclosing function
        if comps:
            if _holds_runtime(value) or self.b is not (self.main_builder or self.b):
                # (static values, comprehensions unrolled: only)
                raise refuse_lazily(cast("Lowerer", self), e)
            if any(isinstance(c, cst.GeneratorExp) for c in comps):
                # consumed eagerly here, lazily in Python (``any`` stops early): only a
                # name the rest of the function never reads keeps Python's meaning
                if _reads_outside(self.fn_stack[-1].node, comps[-1], e.target.value):
                    raise refuse_lazily(cast("Lowerer", self), e)
                home = scope
        self.assign(e.target, value, home)
        return home.vars[e.target.value]

    def expr_Set(self, e: cst.Set, scope: Scope) -> Any:
        """A set of static values (``{"linear", "cubic"}``) is a Python set; one holding a
        runtime value is refused."""
        items = []
        for el in e.elements:
            if not isinstance(el, cst.Element):
                raise refuse_lazily(cast("Lowerer", self), e)
            v = self.expr(el.value, scope)
            if isinstance(v, Node) and v.op is Op.CONST and not isinstance(
                    v.param("value"), np.ndarray):
                v = v.param("value")
            if isinstance(v, Node) or type_module(v).startswith("st_autodiff"):
                raise refuse_lazily(cast("Lowerer", self), e)
            items.append(v)
        try:
            return set(items)
        except TypeError as exc:  # unhashable
            raise _failed(cast("Lowerer", self), exc, e) from None
