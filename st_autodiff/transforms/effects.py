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
import inspect
import logging
import types
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import libcst as cst
import numpy as np

from ..errors import CompileError, NoRuleError
from ..ir.abstract import Abstract, is_abstract
from ..ir.graph import Graph, Node
from ..ir.ops import Op
from ..ir.regions import REGIONS
from ..ir.types import Type
from ..ir.versioned import VersionedDict

if TYPE_CHECKING:
    from .lower import Lowerer

log = logging.getLogger("st_autodiff")


# --- the registry of inactive functions ------------------------------------------------


@dataclass(frozen=True)
class Inactive:
    """How ``st.register_inactive`` declared a function: which arguments it writes
    into (positions or keyword names), and its output type (``None``: unknown)."""

    mutates: tuple[int | str, ...] = ()
    out_type: Any = None


#: ``callable -> Inactive``: functions the compiler calls as they are, never reads,
#: never differentiates (``st.register_inactive``).
INACTIVE: dict[Any, Inactive] = VersionedDict()


def register_inactive(fn: Callable[..., Any], *, mutates: tuple[int | str, ...] = (),
                      out_type: Any = None) -> Callable[..., Any]:
    """Declare ``fn`` inactive: compiled code calls it as it is (once per call, in program
    order, never while compiling) and no derivative flows through it, like Enzyme's
    inactive functions or ChainRules' ``@non_differentiable``.  A call whose result the
    differentiated output depends on is still an error (never a silent zero).

    ``mutates`` names the arguments ``fn`` writes into (positions or keyword names):
    passing a runtime array there is refused, since the compiled code would not see the
    write.  ``out_type`` (an ``st.ShapeDtype``, ``float``, a tuple of them, or a function
    of the arguments' ``ShapeDtype``s) types the result; without it the result is of
    unknown type.  Returns ``fn`` (usable as a decorator)::

        >>> import numpy as np, st_autodiff as st
        >>> seen = []
        >>> def record(v):
        ...     seen.append(float(v))
        >>> _ = st.register_inactive(record)
        >>> def loss(x):
        ...     record(np.sum(x))
        ...     return np.sum(x * x)
        >>> st.grad(loss)(np.ones(2)), seen
        (array([2., 2.]), [2.0])
    """
    if not callable(fn):
        raise TypeError(f"register_inactive takes a callable, got {type(fn).__name__}")
    INACTIVE[_key(fn)] = Inactive(tuple(mutates), out_type)
    return fn


def _key(fn: Any) -> Any:
    """Bound methods register by their function (``Counter.bump`` for ``c.bump``)."""
    return getattr(fn, "__func__", fn)


def _registered(fn: Any) -> Inactive | None:
    try:
        return INACTIVE.get(_key(fn))
    except TypeError:  # unhashable: not registered
        return None


# --- what a call is -------------------------------------------------------------------


NONE = Type("none")
OBJECT = Type("object")


@dataclass(frozen=True)
class Kind:
    """What the compiler knows of one pass-through callable."""

    name: str
    effect: bool = True
    mutating: bool = True  # may write into a runtime array it is given
    out: Any = None  # a Type, a rule ``(lw, args, kwargs) -> Type | None``, or None
    mutates: tuple[int | str, ...] = ()  # registered: the arguments it writes into
    declared: bool = False  # registered: ``out`` is the user's ``out_type`` spec


_LOGGING_FUNCTIONS = frozenset({"debug", "info", "warning", "warn", "error", "critical",
                                "exception", "log"})
_WARNINGS_FUNCTIONS = frozenset({"simplefilter", "filterwarnings", "resetwarnings",
                                 "showwarning", "formatwarning"})


def kind_of(fn: Any) -> Kind | None:
    """How a static callable is passed through, or ``None`` if it is not one the compiler
    knows (then ``unknown_call`` decides)."""
    reg = _registered(fn)
    if reg is not None:
        return Kind(_name(fn), True, bool(reg.mutates), reg.out_type, reg.mutates, True)
    runtime = _RUNTIME.get(id(fn))
    if runtime is not None:  # our own helpers, in generated code lowered again
        return runtime
    if fn is builtins.print:
        return Kind("print", True, False, NONE)
    owner = getattr(fn, "__self__", None)
    name = getattr(fn, "__name__", "")
    module = getattr(fn, "__module__", None)
    if fn in (warnings.warn, warnings.warn_explicit) or module == "warnings" and (
            name in _WARNINGS_FUNCTIONS):
        return Kind(f"warnings.{name}", True, False, NONE)
    if module == "logging" and name in _LOGGING_FUNCTIONS:
        return Kind(f"logging.{name}", True, False, NONE)
    if fn is logging.getLogger:
        return Kind("logging.getLogger", True, False, OBJECT)
    if isinstance(owner, (logging.Logger, logging.LoggerAdapter)) and (
            name in _LOGGING_FUNCTIONS):
        return Kind(f"logger.{name}", True, False, NONE)
    if isinstance(owner, str) and name == "format":
        return Kind("str.format", False, False, OBJECT)
    if _is_random(fn):
        return Kind(f"np.random.{name}" if owner is None or _is_global_state(owner) else
                    f"{type(owner).__name__}.{name}", True, name == "shuffle",
                    _draw_type(name))
    if isinstance(fn, np.ufunc):  # never writes into its inputs (without out=)
        return Kind(_name(fn), False, False, _ufunc_type(fn))
    return None


def _is_random(fn: Any) -> bool:
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, (np.random.Generator, np.random.RandomState,
                          np.random.BitGenerator, np.random.SeedSequence)):
        return True
    module = getattr(fn, "__module__", None) or ""
    return module.startswith("numpy.random")


def _is_global_state(owner: Any) -> bool:
    return owner is getattr(np.random.mtrand, "_rand", None)


def _name(fn: Any) -> str:
    owner = getattr(fn, "__self__", None)
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or \
        type(fn).__name__
    if owner is not None and not isinstance(owner, types.ModuleType) and "." not in name:
        return f"{type(owner).__name__}.{name}"
    return name


# --- result types -----------------------------------------------------------------------

_INT_DRAWS = frozenset({"integers", "randint", "random_integers", "poisson", "binomial",
                        "negative_binomial", "geometric", "hypergeometric", "zipf",
                        "logseries", "multinomial"})
_SHAPE_ARGS = frozenset({"rand", "randn"})  # rand(d0, d1, ...): the shape, positionally
_OBJECTS = frozenset({"default_rng", "RandomState", "Generator", "spawn", "bit_generator",
                      "get_state", "SeedSequence", "PCG64", "MT19937", "Philox", "SFC64"})
_NOTHING = frozenset({"seed", "set_state", "shuffle"})
_UNKNOWN = frozenset({"choice", "permutation", "permuted", "multivariate_normal",
                      "dirichlet", "bytes"})


def _draw_type(name: str) -> Any:
    """The rule typing a random draw: ``size`` (or ``rand``'s dimensions) gives the shape,
    float64 (int64 for counts) the dtype; no size and scalar parameters give a Python
    float; array parameters their broadcast shape."""
    if name in _OBJECTS:
        return OBJECT
    if name in _NOTHING:
        return NONE
    if name in _UNKNOWN:
        return None

    def rule(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        dtype = "int64" if name in _INT_DRAWS else "float64"
        if "dtype" in kwargs and not isinstance(kwargs["dtype"], Node):
            try:
                dtype = np.dtype(kwargs["dtype"]).name
            except TypeError:
                return None
        if name in _SHAPE_ARGS:
            if any(isinstance(a, Node) for a in args):
                return None
            if not args:
                return Type("float", "float64", ())
            return Type("array", dtype, tuple(int(a) for a in args))
        try:
            bound = inspect.signature(fn).bind(*args, **kwargs).arguments
        except (TypeError, ValueError):
            bound = {"size": kwargs["size"]} if "size" in kwargs else None
        if bound is None:
            return None
        size = bound.get("size")
        if isinstance(size, Node) or isinstance(size, (tuple, list)) and any(
                isinstance(s, Node) for s in size):
            return None
        if size is not None:
            shape = (int(size),) if isinstance(size, (int, np.integer)) else tuple(
                int(s) for s in size)
            return Type("array", dtype, shape)
        params = [v for k, v in bound.items() if k not in ("size", "dtype", "out")]
        shapes = []
        for p in params:
            if isinstance(p, Node):
                t = p.type
                if t is None or t.kind == "array" and t.shape is None:
                    return None
                shapes.append(() if t.kind != "array" else t.shape)
            elif isinstance(p, (list, tuple, np.ndarray)):
                shapes.append(np.shape(p))
        shape = np.broadcast_shapes(*shapes) if shapes else ()
        if shape == ():
            return Type("int") if dtype == "int64" and not shapes else Type(
                "float", "float64", ()) if dtype == "float64" else Type("array", dtype, ())
        return Type("array", dtype, shape)

    return rule


def _ufunc_type(fn: np.ufunc) -> Any:
    """A ufunc's output: its inputs broadcast, the dtype NumPy's loop gives on empty
    inputs of theirs (no data is read; empty arrays run nothing)."""

    def rule(lw: Lowerer, _: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if kwargs or fn.nout != 1 or len(args) != fn.nin:
            return None
        shapes, empties = [], []
        for a in args:
            t = a.type if isinstance(a, Node) else None
            if isinstance(a, Node):
                if t is None or t.kind == "array" and (t.shape is None or t.dtype is None):
                    return None
                dt = "float64" if t.kind == "float" else t.dtype or {
                    "int": "int64", "bool": "bool"}.get(t.kind)
                if dt is None:
                    return None
                shapes.append(t.shape if t.kind == "array" else ())
                empties.append(np.empty(0, dt))
            else:
                shapes.append(np.shape(a))
                empties.append(np.asarray(a).ravel()[:0] if np.ndim(a) else a)
        try:
            with np.errstate(all="ignore"):
                dtype = fn(*empties).dtype.name
            shape = np.broadcast_shapes(*shapes)
        except Exception:  # noqa: BLE001  (no loop for these dtypes: type unknown)
            return None
        if shape == () and all(isinstance(a, Node) and a.type.kind == "float" or
                               isinstance(a, float) for a in args):
            return Type("array", dtype, ())  # a NumPy scalar
        return Type("array", dtype, shape)

    return rule


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
    if not dynamic and is_pure_library(fn) and not isinstance(fn, type):
        try:
            with np.errstate(all="ignore"):
                return fn(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001  (the user's call fails: say where)
            raise lw.fail(f"{type(exc).__name__}: {exc}", e, kind=CompileError) from None
    if any(_may_be_array(a) for a in dynamic):
        raise NoRuleError(
            f"call to {name} has no derivative rule, and it is given an array "
            "computed at run time, which it might write into", lw.loc(e),
            f"if its result depends on differentiated values, register a derivative with "
            f"st.register_vjp({spelled}, rule), where rule(g, out, *args) returns one "
            f"gradient per argument; if it needs none and writes into no argument, "
            f"declare it with st.register_inactive({spelled})")
    return emit(lw, fn, None, args, kwargs, e, True, None)


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
    return lw.b.const(v)


# --- pipeline facts ---------------------------------------------------------------------


def has_effect(n: Node) -> bool:
    """Whether ``n`` must run as often as Python runs it: a call of a user's function, a
    passed-through call with an effect, or a region whose bodies hold one."""
    if n.op is Op.CALL:
        return True
    if n.op is Op.OPAQUE_CALL:
        return bool(n.param("effect"))
    if n.op in REGIONS:
        return any(isinstance(v, Graph) and any(has_effect(m) for m in v.nodes)
                   for _, v in n.params)
    return False


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


def holds_opaque(graph: Graph) -> bool:
    """Whether a passed-through call is in ``graph`` or in a region body of it."""
    return any(n.op is Op.OPAQUE_CALL or n.op in REGIONS and any(
        isinstance(v, Graph) and holds_opaque(v) for _, v in n.params) for n in graph.nodes)


def body_read(n: Node, graph: Graph, useful: set[Node] | None) -> set[int] | None:
    """The outputs of region ``n``'s bodies the enclosing graph needs (``None``: all):
    a branch's outputs whose items are useful; a loop's carried values always (the next
    iteration reads them), its stacks where useful, and its continue flag."""
    if not useful:
        return None
    taken = {m.param("index") for m in graph.nodes
             if m.op is Op.ITEM and m.inputs[0] is n and m in useful}
    if n.op is Op.IF:
        return taken
    n_carry, n_ys = n.param("n_carry"), n.param("n_ys")
    body = n.param("body")
    return set(range(n_carry)) | {k for k in range(n_carry, n_carry + n_ys) if k in taken} | \
        set(range(n_carry + n_ys, len(body.outputs)))


def useful_nodes(graph: Graph, read: set[int] | None = None) -> set[Node]:
    """Nodes the graph's outputs (those in ``read``; ``None``: all) depend on."""
    useful = {o for k, o in enumerate(graph.outputs) if read is None or k in read}
    for n in reversed(graph.nodes):
        if n in useful:
            useful.update(n.inputs)
    return useful


def _register_rules() -> None:
    """``opaque_call`` has no derivative: its rules raise the located error (they run
    only for active nodes; forward mode skips the calls the outputs do not read)."""
    from ..derivatives import RULES  # noqa: PLC0415
    from ..derivatives_jvp import JVP_RULES  # noqa: PLC0415

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


# --- forward mode: one run of a region with effects -------------------------------------


def primal_index(n: Node, r: Node, k: int) -> int:
    """Where the tangent region ``r`` (built from ``n`` by ``forward.region_jvp``) keeps
    ``n``'s output ``k``: branches keep their outputs first; loops keep carried values
    first, then their stacks after the carried tangents, then the trip count."""
    if n.op is Op.IF:
        return k
    n_carry, n_ys = n.param("n_carry"), n.param("n_ys")
    carry_all = r.param("n_carry")
    if k < n_carry:
        return k
    if k < n_carry + n_ys:
        return carry_all + (k - n_carry)
    return carry_all + 2 * n_ys + (k - n_carry - n_ys)


def merge_regions(graph: Graph, values: dict[Node, Any], pairs: dict[Node, Node]
                  ) -> tuple[Graph, dict[Node, Any]]:
    """``graph`` with each primal region ``n`` of ``pairs`` dropped and its outputs read
    from its tangent region ``pairs[n]``, which takes ``n``'s place (what it reads is
    placed before it): a region with effects runs once, not once for the primal and once
    more for the tangents."""
    new: dict[Node, Node] = {}
    out: list[Node] = []
    items: dict[tuple[Node, int], Node] = {}

    def rebuilt(m: Node) -> Node:
        if m.op is Op.ITEM and m.inputs[0] in pairs:
            n = m.inputs[0]
            r = pairs[n]
            key = (r, primal_index(n, r, m.param("index")))
            if key not in items:
                place(r)
                items[key] = _renode(len(out), m.op, (new[r],), (("index", key[1]),), m)
                out.append(items[key])
            return items[key]
        return _renode(len(out), m.op, tuple(new[i] for i in m.inputs), m.params, m)

    def place(start: Node) -> None:
        stack = [start]
        while stack:
            m = stack[-1]
            if m in new:
                stack.pop()
                continue
            waiting = [i for i in _sources(m, pairs) if i not in new]
            if waiting:
                stack.extend(reversed(waiting))
                continue
            stack.pop()
            node = rebuilt(m)
            if node not in out:
                out.append(node)
            new[m] = node

    for m in graph.nodes:
        place(pairs.get(m, m))
    new_values = {new[k]: v for k, v in values.items() if k in new}
    args = tuple(new[a] for a in graph.args)
    outs = tuple(new[o] for o in graph.outputs)
    return Graph(graph.name, args, tuple(out), outs, graph.output_names), new_values


def _sources(m: Node, pairs: dict[Node, Node]) -> list[Node]:
    if m.op is Op.ITEM and m.inputs[0] in pairs:
        return [pairs[m.inputs[0]]]
    return list(m.inputs)


def _renode(k: int, op: Op, inputs: tuple[Node, ...], params: Any, like: Node) -> Node:
    return Node(k, op, inputs, params, like.type, like.name, like.loc, like.role)


# --- runtime formatting, raise and assert ------------------------------------------------


def format_parts(template: tuple, *values: Any) -> str:
    """An f-string at run time: ``template`` holds literal text and, for each value,
    ``(conversion, format_spec)``, as Python's f-string would apply them."""
    out, it = [], iter(values)
    for piece in template:
        if isinstance(piece, str):
            out.append(piece)
            continue
        conversion, spec = piece
        v = next(it)
        if conversion is not None:
            v = {"r": repr, "s": str, "a": ascii}[conversion](v)
        out.append(format(v, spec))
    return "".join(out)


def raise_error(cls: Any, *args: Any) -> None:
    """``raise cls(*args)`` at run time (a ``raise`` under a runtime condition)."""
    raise cls(*args)


def check_assert(cond: Any, *args: Any) -> None:
    """``assert cond, *args`` at run time: raises ``AssertionError`` when ``cond`` is
    false (Python's ``__debug__`` semantics: skipped under ``python -O``)."""
    if __debug__ and not cond:
        raise AssertionError(*args)


_RUNTIME = {id(format_parts): Kind("f-string", False, False, OBJECT),
            id(raise_error): Kind("raise", True, False, NONE),
            id(check_assert): Kind("assert", True, False, NONE)}


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


def emit_print(lw: Lowerer, args: list[Any], kwargs: dict[str, Any],
               node: cst.CSTNode) -> Node:
    """``print(*args, **kwargs)`` in the compiled code, once per call, in order."""
    return passthrough(lw, builtins.print, args, kwargs, node)  # type: ignore[arg-type]
