"""Inactive runtime code: calls the compiler passes through instead of differentiating.

Lowering turns a call it has no derivative rule for into one ``opaque_call`` node when
the call can be kept as it is in the generated code: ``print``, ``warnings.warn``,
``logging`` (module functions and ``Logger`` methods), ``str.format``, ``np.random``
draws (module functions, ``Generator`` and ``RandomState`` methods, ``default_rng``),
methods of opaque object arguments (a counter, a random generator passed in), functions
registered with ``st.register_inactive``, a NumPy/SciPy ufunc, and any other C or builtin
callable whose runtime arguments it cannot write into.  The node

* is never run while compiling: its type comes from a rule (a draw's ``size`` gives its
  shape, ``print`` gives ``None``), else it is unknown (``ir/abstract.opaque_value``);
* keeps its effect (``effect=True``): dead-code elimination roots it and every region
  holding it, CSE never merges two of them, codegen writes it as a statement of its own
  in program order, loops run it in their forward sweep only (the reverse sweep reads
  what it returned from the stacks), and re-transformation (higher derivatives) reads
  the same call in the generated code and passes it through again;
* gets a derivative from nobody: activity analysis decides.  A call whose result is not
  both varied and useful (``print(loss)``, a draw used in the loss) needs none; one that
  is (``special_fn(r + x)`` reaching the loss) is a located ``NoRuleError`` with the
  register hint, raised by the adjoint (or tangent) rule of ``opaque_call``.

Mutation: a call given a runtime array could write into it, which SSA would not see.  Only
a non-mutating allowlist (print, logging, warnings, formatting, ufuncs, random draws
other than ``shuffle`` and ``out=``) and functions registered with ``mutates=()`` may
receive one; anything else is a located error suggesting ``st.register_inactive``.
"""

from __future__ import annotations

import builtins
import logging
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import libcst as cst
import numpy as np

from ..errors import CompileError, NoRuleError
from ..ir.abstract import Abstract, is_abstract
from ..ir.graph import Node
from ..ir.ops import Op
from ..ir.types import Type
from .effects_graph import (  # noqa: F401  (the pipeline's hooks, re-exported)
    body_read,
    has_effect,
    holds_opaque,
    merge_regions,
    useful_nodes,
)
from .effects_kinds import (  # noqa: F401  (re-exported: st.register_inactive)
    _LOGGING_FUNCTIONS,
    INACTIVE,
    NONE,
    OBJECT,
    Kind,
    _draw_type,
    _name,
    _registered,
    check_assert,
    check_math,
    format_parts,
    kind_of,
    raise_error,
    register_inactive,
)

if TYPE_CHECKING:
    from .lower import Lowerer

log = logging.getLogger("st_autodiff")

# --- emitting ---------------------------------------------------------------------------


@dataclass(frozen=True)
class OpaqueMethod:
    """``obj.name`` of an opaque runtime object (an argument that is not an array, a
    number or a container): calling it passes the call through."""

    receiver: Node
    name: str


@dataclass(frozen=True)
class AbstractObject(Abstract):
    """An object a passed-through call made (``np.random.default_rng(0)``), known by its
    class only: its methods are typed by the class's rules."""

    cls: type | None = None


#: constructors whose result's class is known without calling them
_MAKES = {id(np.random.default_rng): np.random.Generator,
          id(logging.getLogger): logging.Logger}


def class_of(lw: Lowerer, x: Node) -> type | None:
    """The class of an opaque object node: its argument's example, or what made it."""
    v = lw.b.values.get(x)
    if isinstance(v, AbstractObject):
        return v.cls
    if v is None or _is_abstract(v):
        return None
    return type(v)


def object_attribute(lw: Lowerer, x: Node, attr: str, e: cst.CSTNode) -> Any:
    """``x.attr`` of an opaque object: a method to pass through; reading a data
    attribute is refused (the compiler would have to read the object)."""
    cls = class_of(lw, x)
    member = getattr(cls, attr, None) if cls is not None else None
    if cls is None or callable(member) or attr in _RANDOM_METHODS:
        return OpaqueMethod(x, attr)
    what = cls.__name__ if cls is not None else "object"
    raise lw.fail(f"reading the attribute {attr!r} of a {what} argument is not supported "
                  "(the compiler does not read opaque objects, it only calls their "
                  "methods)", e, "pass the value itself as an argument", kind=CompileError)


_RANDOM_METHODS = frozenset(dir(np.random.Generator)) | frozenset(dir(np.random.RandomState))


def _is_abstract(v: Any) -> bool:
    return is_abstract(v)


def call_method(lw: Lowerer, m: OpaqueMethod, args: list[Any], kwargs: dict[str, Any],
                e: cst.Call) -> Any:
    """``obj.name(*args, **kwargs)`` on an opaque object argument: one ``opaque_call``
    with the object as its first input."""
    cls = class_of(lw, m.receiver)
    member = getattr(cls, m.name, None) if cls is not None else None
    kind = None
    if member is not None:
        assert cls is not None
        reg = _registered(member)
        if reg is not None:
            kind = Kind(f"{cls.__name__}.{m.name}", True, bool(reg.mutates), reg.out_type,
                        tuple(k - 1 if isinstance(k, int) else k for k in reg.mutates
                              if k != 0), True)  # (positions counted with self)
        elif issubclass(cls, (np.random.Generator, np.random.RandomState)):
            kind = Kind(f"{cls.__name__}.{m.name}", True, m.name == "shuffle",
                        _draw_type(m.name))
        elif issubclass(cls, (logging.Logger, logging.LoggerAdapter)) and (
                m.name in _LOGGING_FUNCTIONS):
            kind = Kind(f"logger.{m.name}", True, False, NONE)
    what = f"{cls.__name__ if cls is not None else 'object'}.{m.name}"
    if kind is None:
        kind = Kind(what)
    _check_mutation(lw, kind, what, args, kwargs, e)
    out = _out_type(lw, kind, member, args, kwargs, e)
    return emit(lw, None, m.name, [m.receiver, *args], kwargs, e, kind.effect, out)


def passthrough(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
                e: cst.Call) -> Any:
    """The call of a known pass-through callable (``kind_of``), else ``NotImplemented``."""
    kind = kind_of(fn)
    if kind is None:
        return NotImplemented
    if not kind.effect:  # formatting a shape: done now, when everything is static
        static_args = [_static_value(a) for a in args]
        static_kw = {k: _static_value(v) for k, v in kwargs.items()}
        if not any(isinstance(a, Node) for a in _flat([*static_args, *static_kw.values()])):
            try:
                return fn(*static_args, **static_kw)
            except Exception as exc:  # noqa: BLE001  (Python's own error, located)
                raise lw.fail(f"{type(exc).__name__}: {exc}", e, kind=CompileError) from None
    _check_mutation(lw, kind, kind.name, args, kwargs, e)
    out = _out_type(lw, kind, fn, args, kwargs, e)
    return emit(lw, fn, None, args, kwargs, e, kind.effect, out)


def unknown_call(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
                 e: cst.Call, spelled: str, name: str) -> Any:
    """A C or builtin callable the compiler knows nothing of: passed through when it
    cannot write into a runtime array (its runtime arguments are numbers, objects and
    tuples of them); a pure NumPy/SciPy function of static arguments is evaluated now."""
    from .call_types import is_pure_library  # noqa: PLC0415

    dynamic = [a for a in _flat([*args, *kwargs.values()]) if isinstance(a, Node)]
    if not dynamic and (is_pure_library(fn) and not isinstance(fn, type) or _pure_method(fn)):
        try:
            with np.errstate(all="ignore"):
                return fn(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001  (the user's call fails: say where)
            raise lw.fail(f"{type(exc).__name__}: {exc}", e, kind=CompileError) from None
    if any(fn is b for b in _PURE_BUILTINS):  # reads its arguments, writes none
        return emit(lw, fn, None, args, kwargs, e, False, None)
    if any(_may_be_array(a) for a in dynamic) and isinstance(fn, type) and not (
            fn.__module__ == "builtins"):
        raise NoRuleError(
            f"{name} objects built from arrays computed at run time are not supported "
            "(the compiler would have to read the object's code at run time)", lw.loc(e),
            f"build the {fn.__name__} outside the differentiated function, or wrap the "
            "computation that uses it in a function with st.register_vjp")
    if any(_may_be_array(a) for a in dynamic):
        raise NoRuleError(
            f"call to {name} has no derivative rule, and it is given an array "
            "computed at run time, which it might write into", lw.loc(e),
            f"if its result depends on differentiated values, register a derivative with "
            f"st.register_vjp({spelled}, rule), where rule(g, out, *args) returns one "
            f"gradient per argument; if it needs none and writes into no argument, "
            f"declare it with st.register_inactive({spelled})")
    return emit(lw, fn, None, args, kwargs, e, True, None)


#: builtins that never write into their arguments
_PURE_BUILTINS = frozenset({isinstance, issubclass, hasattr, callable, type, id, repr, str,
                            format, hash, ascii, any, all, sorted, bin, hex, oct, sum})
#: methods of immutable (or read-only) static receivers evaluated while compiling
_PURE_METHODS = {str: None, bytes: None, tuple: None, frozenset: None, int: None,
                 float: None, dict: frozenset({"get", "keys", "values", "items", "copy",
                                               "__getitem__", "__contains__"})}


def _pure_method(fn: Any) -> bool:
    """A builtin method of a static ``str``, ``tuple``, ``dict`` (reading)..."""
    owner = getattr(fn, "__self__", None)
    if owner is None or not isinstance(fn, types.BuiltinMethodType):
        return False
    for cls, names in _PURE_METHODS.items():
        if type(owner) is cls:
            return names is None or getattr(fn, "__name__", "") in names
    return False


def _static_value(v: Any) -> Any:
    """A constant node's Python value where it is a number, a string or a tuple of them
    (a folded shape), else ``v``."""
    if isinstance(v, Node) and v.op is Op.CONST:
        value = v.param("value")
        if isinstance(value, (int, float, str, tuple, np.generic)):
            return value
    if isinstance(v, tuple):
        return tuple(_static_value(x) for x in v)
    return v


def object_len(lw: Lowerer, x: Node, e: cst.Call) -> Node:
    """``len(obj)`` of an opaque object (a string made at run time): at run time."""
    return emit(lw, builtins.len, None, [x], {}, e, False, Type("int"))


def _may_be_array(v: Node) -> bool:
    t = v.type
    return t is None or t.kind in ("array", "list", "object", "tuple")


def _flat(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if isinstance(v, (tuple, list)):
            out.extend(_flat(list(v)))
        elif isinstance(v, dict):
            out.extend(_flat(list(v.values())))
        else:
            out.append(v)
    return out


def _check_mutation(lw: Lowerer, kind: Kind, what: str, args: list[Any],
                    kwargs: dict[str, Any], e: cst.Call) -> None:
    """Refuse a runtime array passed where the callee may write into it."""
    if "out" in kwargs:
        raise lw.fail(f"{what}(out=...) writes into an array; compiled code would not see "
                      "the write", e, "use the returned value instead", kind=CompileError)
    if not kind.mutating:
        return
    named = [(k, v) for k, v in enumerate(args)] + list(kwargs.items())
    for key, v in named:
        if kind.mutates and key not in kind.mutates:
            continue
        if any(isinstance(a, Node) and _may_be_array(a) for a in _flat([v])):
            where = f"argument {key!r}" if isinstance(key, str) else f"argument {key}"
            hint = ("compute a new array instead of writing into this one" if kind.mutates
                    else f"if {what} does not write into its arguments, declare it with "
                    f"st.register_inactive({what.split('.')[-1]}, mutates=())")
            raise CompileError(f"{what} may write into its {where}, an array computed at "
                               "run time; compiled code would not see the write",
                               lw.loc(e), hint)


def _out_type(lw: Lowerer, kind: Kind, fn: Any, args: list[Any], kwargs: dict[str, Any],
              e: cst.Call) -> Any:
    """The result type: declared (``register_inactive(out_type=...)``), from the
    callable's rule, or ``None`` (unknown)."""
    out = kind.out
    if kind.declared:
        return None if out is None else _declared(lw, kind, out, args, e)
    if out is None or isinstance(out, Type):
        return out
    try:
        return out(lw, fn, args, kwargs)
    except Exception:  # noqa: BLE001  (a rule that cannot tell: the type stays unknown)
        return None


def _declared(lw: Lowerer, kind: Kind, spec: Any, args: list[Any], e: cst.Call) -> Any:
    """A registered ``out_type`` as an IR type (a single value only)."""
    from .call_types import _as_type, _spec_of  # noqa: PLC0415

    if callable(spec) and not isinstance(spec, type):
        try:
            spec = spec(*[_spec_of(lw, a) for a in args])
        except Exception as exc:  # noqa: BLE001
            raise CompileError(f"the out_type function of {kind.name} failed: "
                               f"{type(exc).__name__}: {exc}", lw.loc(e)) from None
    t = _as_type(spec, kind.name, lw, e)
    return t if isinstance(t, Type) else None


def emit(lw: Lowerer, fn: Any, method: str | None, args: list[Any],
         kwargs: dict[str, Any], e: cst.CSTNode, effect: bool, out: Type | None,
         block: str | None = None) -> Node:
    """One ``opaque_call`` node: positional inputs, then keyword inputs (static values
    become constants of any kind: a warning class, a format string); ``block`` marks the
    nodes that open and close a ``with`` (``with_blocks``)."""
    keywords = tuple(kwargs)
    nodes = [_as_node(lw, v, e) for v in [*args, *kwargs.values()]]
    params = {"fn": fn, "method": method, "keywords": keywords, "effect": effect,
              "out_type": out, "name": _spelled(lw, e), "block": block}
    node = lw.b.emit(Op.OPAQUE_CALL, nodes, params, loc=lw.loc(e), type=out)
    made = fn if isinstance(fn, type) else _MAKES.get(id(fn))
    if out == OBJECT and made is not None and lw.b.evaluate is not None:
        lw.b.values[node] = AbstractObject(OBJECT, cls=made)
    log.debug("passed through %s at %s", method or _name(fn), node.loc)
    return node


def _spelled(lw: Lowerer, e: cst.CSTNode) -> str:
    """The callee as the user wrote it (``math.gamma``, ``rng.normal``)."""
    func = e.func if isinstance(e, cst.Call) else e
    try:
        return lw.fn.module.tree.code_for_node(func).strip()
    except Exception:  # noqa: BLE001  (a node not from the module: no spelling)
        return ""


def _as_node(lw: Lowerer, v: Any, e: cst.CSTNode) -> Node:
    if isinstance(v, Node):
        return v
    if isinstance(v, (tuple, list)) and any(isinstance(x, Node) for x in _flat([v])):
        return lw.to_node(v, e)
    if isinstance(v, list):
        v = tuple(v)  # a static list argument: rebuilt as a tuple (never written into)
    if getattr(v, "compile_time_only", False):  # x.flags (layout_queries.py)
        raise lw.fail(f"{getattr(v, 'spelled', type(v).__name__)} exists only while "
                      "compiling: it cannot be passed to code that runs", e,
                      getattr(v, "hint", None))
    return lw.b.const(v)


# --- pipeline facts ---------------------------------------------------------------------


def opaque_text(ref: Callable[[Node], str], name_of: Callable[[Any], str], n: Node) -> str:
    """The Python that runs an ``opaque_call`` node (``name_of(fn)`` names the callee in
    the generated module's globals)."""
    keywords = n.param("keywords") or ()
    ins = n.inputs
    pos, kw = ins[:len(ins) - len(keywords)], ins[len(ins) - len(keywords):]
    method = n.param("method")
    if method:
        head, pos = f"{ref(pos[0])}.{method}", pos[1:]
    else:
        head = name_of(n.param("fn"))
    parts = [ref(i) for i in pos] + [f"{k}={ref(v)}" for k, v in zip(keywords, kw)]
    return f"{head}({', '.join(parts)})"


def no_rule(n: Node, forward: bool = False) -> NoRuleError:
    """The located error for a passed-through call whose result is active."""
    fn, method = n.param("fn"), n.param("method")
    what = n.param("name") or (method if method else _name(fn))
    mode = "its tangent" if forward else "its derivative"
    registered = fn is not None and _registered(fn) is not None
    why = " (it is registered inactive)" if registered else ""
    spelled = what if method is None else f"type({what.rsplit('.', 1)[0]}).{method}"
    return NoRuleError(
        f"call to {what} has no derivative rule{why}, and the differentiated output "
        f"depends on its result here, so {mode} is needed", n.loc,
        f"register one with st.register_vjp({spelled}, rule), where rule(g, out, *args) "
        "returns one gradient per argument; or compute the value with NumPy functions "
        "st_autodiff knows; or cut the dependence with st.stop_gradient")


def _register_rules() -> None:
    """``opaque_call`` has no derivative: its rules raise the located error (they run
    only for active nodes; forward mode skips the calls the outputs do not read)."""
    from ..derivatives import JVP_RULES, RULES  # noqa: PLC0415  (filled by derivatives.jvp)

    def vjp(ops: Any, g: Any, out: Any, *args: Any, **params: Any) -> Any:
        raise no_rule(ops.current)

    def jvp(ops: Any, tangents: Any, out: Any, *args: Any, **params: Any) -> Any:
        t = ops.current.type
        if t is not None and t.kind == "none":
            return None  # print(x) returns None whatever x is
        raise no_rule(ops.current, forward=True)

    RULES[Op.OPAQUE_CALL] = vjp
    JVP_RULES[Op.OPAQUE_CALL] = jvp


_register_rules()


def formatted_string(lw: Lowerer, e: cst.FormattedString, scope: Any) -> Any:
    """An f-string: a Python ``str`` when every value in it is static (formatted now,
    as Python would), else a node that formats the runtime values when the compiled
    code runs (``format_parts``), e.g. ``print(f"loss = {loss:.4f}")``."""
    template: list[Any] = []
    values: list[Any] = []
    _template(lw, e, e.parts, scope, template, values)
    if not any(isinstance(v, Node) or isinstance(v, (tuple, list)) and any(
            isinstance(x, Node) for x in _flat([v])) for v in values):
        try:
            return format_parts(tuple(template), *values)
        except Exception as exc:  # noqa: BLE001  (Python's own error, located)
            raise lw.fail(f"{type(exc).__name__}: {exc}", e, kind=CompileError) from None
    return emit(lw, format_parts, None, [tuple(template), *values], {}, e, False, OBJECT)


def concatenate_strings(lw: Lowerer, left: Any, right: Any, e: cst.CSTNode) -> Node:
    """``"text" f"{x}"`` (implicitly joined literals) when a part is formatted at run time:
    one more ``format_parts`` node, joining the two strings."""
    template = tuple(p if isinstance(p, str) else (None, "") for p in (left, right))
    values = [p for p in (left, right) if not isinstance(p, str)]
    return emit(lw, format_parts, None, [template, *values], {}, e, False, OBJECT)


def _template(lw: Lowerer, e: cst.FormattedString, parts: Any, scope: Any,
              template: list[Any], values: list[Any]) -> None:
    quote = e.start.lstrip("fFrRbBuU")
    raw = "r" in e.prefix.lower()
    for part in parts:
        if isinstance(part, cst.FormattedStringText):
            text = part.value.replace("{{", "{").replace("}}", "}")
            template.append(text if raw else _unescape(text, quote))
            continue
        if part.whitespace_before_expression.value or part.equal is not None:
            src = lw.fn.module.tree.code_for_node(part.expression)
            if part.equal is not None:
                template.append(src + "=")
        spec = ""
        if part.format_spec:
            inner: list[Any] = []
            inner_values: list[Any] = []
            _template(lw, e, part.format_spec, scope, inner, inner_values)
            if any(isinstance(v, Node) for v in inner_values):
                raise lw.fail("a format spec computed at run time is not supported", part,
                              "use a literal format spec, e.g. {x:.4f}")
            spec = format_parts(tuple(inner), *inner_values)
        conversion = part.conversion
        if conversion is None and part.equal is not None and not spec:
            conversion = "r"  # f"{x=}" shows repr(x)
        template.append((conversion, spec))
        value = lw.expr(part.expression, scope)
        if isinstance(value, Node) and value.op is Op.CONST:  # a folded shape: static
            value = lw.static(value, "an f-string value", part)
        values.append(value)


def _unescape(text: str, quote: str) -> str:
    import ast  # noqa: PLC0415

    try:
        value = ast.literal_eval(quote + text + quote)
    except (SyntaxError, ValueError):
        return text
    return value if isinstance(value, str) else text


def emit_raise(lw: Lowerer, exc_class: Any, message_parts: list[Any],
               node: cst.CSTNode) -> Node:
    """``raise exc_class(*message_parts)`` when the compiled code reaches this point: an
    effect node (under a runtime condition, inside the ``if`` region's branch).  The
    parts are the exception's arguments: static values or runtime nodes (an f-string
    with runtime values is one node, ``formatted_string``)."""
    return emit(lw, raise_error, None, [exc_class, *message_parts], {}, node, True, NONE)


def emit_assert(lw: Lowerer, cond: Any, message_parts: list[Any], node: cst.CSTNode
                ) -> Node:
    """``assert cond, *message_parts`` on a runtime condition: an effect node that
    raises ``AssertionError`` when the compiled code finds ``cond`` false."""
    return emit(lw, check_assert, None, [cond, *message_parts], {}, node, True, NONE)


def emit_math_check(lw: Lowerer, name: str, result: Any, args: list[Any],
                    node: cst.CSTNode) -> Node:
    """``math.<name>(*args)``'s ValueError/OverflowError where the NumPy op it lowers to
    gave ``result`` NaN or infinite instead (``check_math``), when the code runs."""
    return emit(lw, check_math, None, [name, result, *args], {}, node, True, NONE)


def emit_print(lw: Lowerer, args: list[Any], kwargs: dict[str, Any],
               node: cst.Call) -> Node:
    """``print(*args, **kwargs)`` in the compiled code, once per call, in order."""
    return cast(Node, passthrough(lw, builtins.print, args, kwargs, node))
