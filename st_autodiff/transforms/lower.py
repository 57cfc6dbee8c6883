"""Pass 2, lower: a parsed function -> an SSA ``Graph`` (a partial evaluator).

Input: a ``ParsedFunction`` and, optionally, example arguments (read for their types
only: runtime values become ``Abstract``).  Output: ``Lowered``, the graph plus what is
known of every node's value (an ``Abstract`` or a folded constant), which the next passes
use to type adjoint nodes.

Lowering runs the function abstractly: values known at compile time (modules, functions,
Python ints, shapes of typed arrays, literals) are computed here; values that depend on
floating-point arguments become nodes.  Integer and boolean arguments are compile-time
constants, like JAX's static arguments (the cache key includes their value).  Calls to
user functions, lambdas and inner functions are inlined with their own source locations,
their arguments bound as Python binds them (``bind_arguments``).  Every value read from
outside the arguments (globals, closure cells, attributes, defaults) is recorded in
``Lowerer.guards`` (``guards.py``), so that a cached specialisation is never reused stale.

Rejects, with a location: unknown names, in-place writes, recursion, and operator uses
NumPy would reject for these types.  A call without a derivative rule is passed through
(``effects.py``); the adjoint refuses it only where its result is active.

Statements and functions are here; expressions are in ``expressions.py`` (a mixin of
``Lowerer``), calls in ``dispatch.py`` and ``calls.py``, scopes in ``scope.py``.
"""

from __future__ import annotations

import builtins
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import libcst as cst
import numpy as np

from .. import trees
from ..decompositions.common import SITE_LOCATED
from ..errors import (
    CompileError,
    SourceUnavailableError,
    StaticEvaluationError,
    UnsupportedRecursionError,
    UnsupportedSyntaxError,
)
from ..ir.abstract import Abstract, abstract_of, evaluate, is_numpy_scalar
from ..ir.graph import CompileTimeError, Graph, GraphBuilder, Loc, Node, holds_node
from ..ir.ops import OP_INFO, Op
from ..ir.types import type_module, type_of
from . import (
    aliases,
    callable_args,
    calls,
    complex_pairs,
    kind_calls,
    library_errors,
    object_operators,
    small_ops,
    static_numpy,
    static_numpy_calls,
    static_numpy_writes,
    static_queries,
    static_stmts,
    static_values,
)
from .array_converter import ArrayConverter
from .binding import BindingLowering, mangled
from .comprehensions import ComprehensionLowering
from .control import ControlLowering
from .depth import recursion_key
from .expressions import ExpressionLowering
from .external import ExternalObjects
from .generators import GeneratorLowering, GeneratorValue, is_generator_function
from .guards import Guards, is_library
from .instance_dict import InstanceDict
from .loops import _WhileGuard
from .no_complex import (
    HINT,
    MESSAGE,
    is_complex_value,
    refuse_complex_arguments,
    refuse_complex_graph,
    refuse_complex_node,
)
from .object_operators import NOT_OBJECTS, object_builtin
from .objects import ObjectLowering
from .parse import ParsedFunction, parse_function
from .scope import FLAGS, Closure, Scope
from .star import assign_starred, starred_index
from .static_format import StaticLowering
from .static_while import check_static_guard
from .writes import WriteLowering

_AUG = {
    cst.AddAssign: Op.ADD, cst.SubtractAssign: Op.SUB, cst.MultiplyAssign: Op.MUL,
    cst.DivideAssign: Op.DIV, cst.PowerAssign: Op.POW, cst.ModuloAssign: Op.MOD,
    cst.FloorDivideAssign: Op.FLOORDIV, cst.MatrixMultiplyAssign: Op.MATMUL,
}
_SYMBOL = {Op.ADD: "+", Op.SUB: "-", Op.MUL: "*", Op.DIV: "/", Op.POW: "**", Op.MOD: "%",
           Op.FLOORDIV: "//", Op.MATMUL: "@", Op.LOGICAL_AND: "&", Op.LOGICAL_OR: "|",
           Op.LOGICAL_XOR: "^"}
MAX_INLINE_DEPTH = 64


@dataclass
class Lowered:
    """The graph of a function and the example values of its nodes."""

    graph: Graph
    values: dict[Node, Any]
    n_primal: int = 0  # joint graphs: how many leading nodes are the primal sweep
    out_tree: Any = None  # the returned structure (``trees`` spec); None: one per output


_MISSING = object()


def python_resolver(fn: Callable[..., Any], const: Callable[[str, Any], Any],
                    guards: Guards | None = None) -> Callable[[str], Any]:
    """Resolve free names of a live Python function: closure cells, globals, builtins.

    Each read is recorded in ``guards`` (unless ``fn`` is library code), so that a later
    rebinding of the name re-specialises instead of reusing a stale value."""
    code = fn.__code__
    cells = dict(zip(code.co_freevars, fn.__closure__ or ()))
    glb = fn.__globals__
    if guards is not None and is_library(glb.get("__name__")):
        guards = None

    def resolve(name: str) -> Any:
        if name in cells:
            try:
                value = cells[name].cell_contents
            except ValueError:  # empty cell
                raise KeyError(name) from None
            if guards is not None:
                guards.cell_read(cells[name], value)
            return const(name, value)
        if name in glb:
            value = glb[name]
            if guards is not None:
                guards.global_read(glb, name, value)
            return const(name, value)
        if hasattr(builtins, name):
            if guards is not None:
                guards.builtin_read(glb, name)
            return getattr(builtins, name)
        raise KeyError(name)

    return resolve


_evaluate = evaluate  # what the compiler knows of a node: concrete or by type


class Lowerer(ControlLowering, ExpressionLowering, WriteLowering, BindingLowering,
              ObjectLowering, StaticLowering, ComprehensionLowering, GeneratorLowering):
    """Walks libcst statements and expressions, building the graph."""

    # set only while in use (read with ``getattr``): ``static_numpy`` turns static arrays
    # off for one call, and counts in-place writes to them in ``static_epoch``
    static_numpy_off: bool
    static_epoch: int
    # side tables made on first use: ``identity`` (which nodes are one object),
    # ``layout_queries`` (layout facts), ``generator_contexts`` (its with-body expression)
    identity_roots: dict[Node, Node]
    identity_shared: set[Node]
    layout_facts: dict[Node, Any]
    expr__WithBody: Callable[..., Any]

    def __init__(self, name: str, evaluate: bool) -> None:
        self.b = GraphBuilder(name, _evaluate if evaluate else None)
        self.fn_stack: list[ParsedFunction] = []
        self.code_stack: list[Any] = []
        self.user_sites: list[Loc] = []  # stats: the user's calls into library code
        self.active_scopes: list[Scope] = []  # callers' scopes too: they hold arguments
        self.entry_params: dict[int, dict[str, Any]] = {}  # id(scope): its bound arguments
        self.global_consts: dict[tuple[int, str, int], tuple[Any, Node]] = {}
        self.frames: list[tuple[Any, Any]] = []  # (function node, static key) being inlined
        self.external = ExternalObjects()  # containers that outlive the call
        self.guards = Guards()  # what lowering read from outside the arguments
        # canonical argument positions the caller made static (any value) or dynamic (ints)
        self.static_args: frozenset[int] = frozenset()
        self.dynamic_args: frozenset[int] = frozenset()
        self.foreign_arrays = False  # arguments hold arrays other than numpy.ndarray
        self.retyped: set[Node] = set()  # float(x), x.item(): x stands for a Python number
        # outputs of branches and loops that are None on some path (``x is None`` on one
        # of them is answered when the compiled code runs, not while compiling)
        self.maybe_none: set[Node] = set()
        self.arg_slots: dict[Node, int] = {}  # argument nodes -> their positions
        self.example_args: list[Any] | None = None
        self.main_builder: GraphBuilder | None = None
        self.identity_checks: list[tuple[int, int, bool]] = []  # (i, j, args[i] is args[j])

    # --- helpers ------------------------------------------------------------------------

    @property
    def fn(self) -> ParsedFunction:
        return self.fn_stack[-1]

    def loc(self, node: cst.CSTNode) -> Loc:
        loc = self.fn.loc(node)
        if self.user_sites and loc.file in SITE_LOCATED:  # stats: at the user's call
            return self.user_sites[-1]
        return loc

    def fail(self, message: str, node: cst.CSTNode, hint: str | None = None,
             kind: type[CompileError] = UnsupportedSyntaxError) -> CompileError:
        return kind(message, self.loc(node), hint)

    def const_of_global(self, name: str, value: Any) -> Any:
        """Globals and closure cells: arrays become named constants, the rest stays static
        (containers among them are remembered as living outside the function)."""
        self.external.mark(value, repr(name))
        if _is_array(value):
            # one named constant per global and builder; the entry holds its builder, so
            # a finished region body's id is never reused for another body while the
            # entry lives (that handed a later body a node of a finished one)
            key = (id(value), name, id(self.b))
            entry = self.global_consts.get(key)
            if entry is None or entry[0] is not self.b:
                entry = self.global_consts[key] = (self.b, self.b.const(value, name=name))
            return entry[1]
        return value

    def static_attribute(self, base: Any, attr: str) -> Any:
        """``base.attr`` of a compile-time object (AttributeError if it has none); a read
        of an object from outside the arguments is guarded."""
        if attr.startswith("__") and not attr.endswith("__") and self.code_stack:
            attr = mangled(self.code_stack[-1], attr)  # ``self.__w`` in a class body
        value = getattr(base, attr)  # (only this AttributeError is Python's "no attribute")
        try:
            self.guards.attribute_read(base, attr, value)
            return self.const_of_global(attr, value)
        except AttributeError as exc:  # ours: never reported as the user's missing attribute
            raise RuntimeError(f"reading {attr!r} failed inside st_autodiff: {exc}") from exc

    def emit(self, op: Op, inputs: list[Any], params: dict[str, Any] | None,
             where: cst.CSTNode) -> Node:
        if op.value.startswith("list_"):
            # the list algebra takes Python lists as lists (``rt.list_split_like(g, [a,
            # b])`` in generated code), never as np.array's rows, whose items must agree
            inputs = [self.emit(Op.LIST, list(v), None, where) if isinstance(v, list) and
                      holds_node(v) else v for v in inputs]
        nodes = [self.to_node(v, where) for v in inputs]
        aliases.check_inputs(self, nodes, where)
        try:
            node = self.b.emit(op, nodes, params, loc=self.loc(where))
        except CompileTimeError as exc:
            cause = exc.__cause__ if isinstance(exc.__cause__, Exception) else exc
            err = StaticEvaluationError(cause, exc.loc, "the function itself fails for "
                                        "these inputs", f"{op.value} failed on the example "
                                        f"arguments: {exc}")
            err.builder = self.b  # what Python raises here: a static try may catch it
            raise err from None
        refuse_complex_node(node, op.value, self.loc(where))
        return node

    def to_node(self, v: Any, where: cst.CSTNode) -> Node:
        """A runtime value as a node: static numbers, tuples and arrays become constants."""
        if isinstance(v, Node):
            return v
        if isinstance(v, static_numpy.StaticArray):
            return static_numpy.materialize(self, v, where)
        if isinstance(v, complex_pairs.Pair):  # fft family: a spectrum used as an array
            raise complex_pairs.refuse(self, "this use", where)
        if isinstance(v, (bool, int, float, type(None))):
            return self.b.const(v)
        if is_complex_value(v):
            where, what = static_numpy.complex_origin(self, v, where)
            raise self.fail(f"{MESSAGE}: {what}", where, HINT)
        if isinstance(v, tuple) and any(isinstance(x, Node) for x in v):
            return self.emit(Op.TUPLE, list(v), None, where)
        if isinstance(v, (tuple, str)):
            return self.b.const(v)
        if isinstance(v, list):
            if holds_node(v):  # nested lists and tuples of numbers and nodes: np.array's rows
                return self.emit(Op.STACK, [self.to_node(list(x), where) if isinstance(
                    x, (list, tuple)) else x for x in v], None, where)
            return self.b.const(np.asarray(v))
        if isinstance(v, np.generic) or _is_array(v):
            return self.b.const(v)
        if type(v).__name__ == "TupleList":
            raise self.fail("a list of tuples built in a loop can only be iterated, indexed "
                            "or measured with len()", where, "append each item to a list of "
                            "its own to stack or sum them")
        if isinstance(v, Closure):
            raise self.fail("a function (a lambda or def) cannot be a runtime value: it is "
                            "stored in a list built at run time, or carried by a loop or "
                            "branch on data", where, "define it outside the loop or branch, "
                            "with the values it reads as parameters")
        raise self.fail(f"a value of type {type(v).__name__} cannot be used as an array here",
                        where)

    def static(self, v: Any, what: str, where: cst.CSTNode) -> Any:
        """A compile-time constant (params such as axis, keepdims, ord)."""
        if isinstance(v, Node):
            if v.op is Op.CONST:
                value = v.param("value")
                if _is_array(value):  # its contents become code: a write into it is a change
                    self.guards.array_contents(value)
                return value
            raise self.fail(f"{what} must be known when the function is compiled, but it "
                            "is computed from the arguments at run time", where,
                            "use a literal, or a value computed from shapes")
        if isinstance(v, list):
            return tuple(v)
        if isinstance(v, static_numpy.StaticArray):
            return v.value.copy()
        if isinstance(v, (type, np.dtype)):
            return calls.dtype_name(v)
        return v

    # --- functions ----------------------------------------------------------------------

    def _chain(self, callee: str) -> str:
        """``f -> g -> f``: the calls that lead back to ``callee``."""
        return " -> ".join([f.name for f in self.fn_stack] + [callee])

    def lower_function(self, fn: ParsedFunction, args: list[Any], kwargs: dict[str, Any],
                       scope: Scope, where: cst.CSTNode | None) -> Any:
        """Inline a call: bind arguments, lower the body, return the return value."""
        if is_generator_function(fn):  # comprehensions.py: inlined, yields into a list
            return self.generator_function(fn, args, kwargs, scope, where)
        key = recursion_key(args, kwargs)
        distinct = self.__dict__.pop("distinct_closure", None) is fn.node  # inline_python's
        again = not distinct and any(f.node is fn.node for f in self.fn_stack)
        if where is not None and again and (
                key is None or (fn.node, key) in self.frames):
            raise UnsupportedRecursionError(
                f"{fn.name}() is called again while it is being differentiated "
                f"({self._chain(fn.name)}); recursive functions are not supported",
                self.loc(where), "rewrite the recursion as a computation on arrays")
        if len(self.fn_stack) >= MAX_INLINE_DEPTH:
            raise UnsupportedRecursionError(f"calls nested deeper than {MAX_INLINE_DEPTH}",
                                            self.loc(where) if where else None)
        bound = self.bind_arguments(fn, args, kwargs, scope, where)
        scope.vars.update(bound)
        self.entry_params[id(scope)] = dict(bound)  # what a caller passed (writes.py)
        frames = self.frames
        frames.append((fn.node, key))  # static recursion: the static arguments change
        self.fn_stack.append(fn)
        self.active_scopes.append(scope)
        saved_depth = self.region_depth
        try:
            if isinstance(fn.node, cst.Lambda):
                return self.expr(fn.node.body, scope)
            self.region_depth = 0  # appends of the caller's loops are not ours
            return self.block(self.suite(fn.node.body), scope)
        finally:
            self.region_depth = saved_depth
            frames.pop()
            self.fn_stack.pop()
            self.active_scopes.pop()
            self.entry_params.pop(id(scope), None)

    def block(self, stmts: Any, scope: Scope) -> Any:
        """A function body: its return value (every path must return one)."""
        for f in FLAGS:
            scope.vars[f] = False
        self.run_stmts(stmts, scope)
        returned = scope.vars.get("#ret")
        if returned is True:
            return scope.vars["#retval"]
        if returned is False and len(self.fn_stack) > 1:
            return None  # a callee that ends without return (a validation helper) gives None
        if isinstance(returned, Node) and len(self.fn_stack) > 1 and _none(
                scope.vars.get("#retval")):
            return None  # ``return`` under a runtime condition, else the end: None both ways
        if isinstance(returned, Node):
            raise self.fail(f"{self.fn.name}() does not return a value on every path",
                            self.fn.node, "end the function with a return statement",
                            kind=CompileError)
        raise self.fail(f"{self.fn.name}() does not return a value", self.fn.node,
                        "end the function with a return statement", kind=CompileError)

    def define(self, stmt: cst.FunctionDef, scope: Scope) -> None:
        """An inner ``def``: a closure over the current scope."""
        inner = ParsedFunction(stmt.name.value, stmt, self.fn.module,
                               self.defaults_at_definition(stmt, scope))
        scope.vars[stmt.name.value] = Closure(inner, scope)

    def statement(self, s: Any, scope: Scope) -> Any:
        if isinstance(s, cst.Return):
            if s.value is None and len(self.fn_stack) <= 1:
                raise self.fail("return without a value", s, kind=CompileError)
            scope.vars["#retval"] = None if s.value is None else self.expr(s.value, scope)
            if len(self.fn_stack) <= 1 and isinstance(scope.vars["#retval"], complex_pairs.Pair):
                assert s.value is not None
                raise complex_pairs.refuse(self, "a return", s.value)  # (fft family)
            scope.vars["#ret"] = True
            return _MISSING
        if isinstance(s, cst.Break):
            scope.vars["#brk"] = True
            return _MISSING
        if isinstance(s, cst.Continue):
            scope.vars["#cont"] = True
            return _MISSING
        if isinstance(s, _WhileGuard):
            go_on = self.condition(self.expr(s.test, scope), s.test)
            if isinstance(go_on, Node):
                scope.vars["#brk"] = self.emit(Op.LOGICAL_NOT, [go_on], None, s.test)
            elif not go_on:
                scope.vars["#brk"] = True
            else:
                check_static_guard(self, s.test, scope)  # while stack: stack.pop()
            return _MISSING
        if isinstance(s, cst.Assign):
            value = self.expr(s.value, scope)
            for target in s.targets:
                self.assign(target.target, value, scope)
        elif isinstance(s, cst.AnnAssign):
            if s.value is not None:
                self.assign(s.target, self.expr(s.value, scope), scope)
        elif isinstance(s, cst.AugAssign):
            op = _AUG.get(type(s.operator))
            if op is None and small_ops.bitwise_aug(self, s, scope):
                return _MISSING
            if op is None:
                raise self.fail(f"the operator {s.operator.__class__.__name__} is not "
                                "supported", s)
            if isinstance(s.target, cst.Subscript):
                self.aug_assign_item(s.target, op, self.expr(s.value, scope), scope, s)
                return _MISSING
            if isinstance(s.target, cst.Attribute):
                self.aug_assign_attribute(s.target, op, s.value, scope, s)
                return _MISSING
            if not isinstance(s.target, cst.Name):
                raise self.fail("in-place update of an attribute is not supported",
                                s.target, "compute a new value instead")
            current = self.name(s.target, scope)
            if isinstance(current, static_numpy.StaticArray):
                if static_numpy_writes.inplace_name(self, s.target, current, op,
                                             self.expr(s.value, scope), scope, s):
                    return _MISSING
                current = self.name(s.target, scope)
            self.external.check_write(current, "extend", self.loc(s))
            t = current.type if isinstance(current, Node) else None
            ex = self.example(current)
            zero_d_array = isinstance(ex, np.ndarray) or isinstance(ex, Abstract) and (
                ex.type.kind == "array" and not ex.generic)
            if t is not None and (t.kind not in ("array", "list") or t.shape == () and
                                  not zero_d_array) or is_numpy_scalar(ex):
                pass  # numbers are immutable: ``k += 1`` rebinds the name (0-d arrays are not)
            else:
                self.check_private(s.target.value, current, scope, s, op)
            object_operators.check_in_place(self, op, current, s)  # obj += v: __iadd__
            value = self.binary(op, current, self.expr(s.value, scope), s)
            kind_calls.in_place(self, current, value)  # a 0-d array stays an array
            self.assign(s.target, value, scope)
            aliases.rebind_update(self, s.target.value, current, scope, s)
        elif isinstance(s, cst.Expr):
            if not isinstance(s.value, (cst.SimpleString, cst.ConcatenatedString)) and \
                    not self.append_statement(s.value, scope):
                self.expr(s.value, scope)
        elif isinstance(s, (cst.Raise, cst.Assert, cst.Import, cst.ImportFrom, cst.Del)):
            static_stmts.statement(self, s, scope)
        elif not isinstance(s, cst.Pass):
            raise self.fail(f"{type(s).__name__} statements are not supported", s)
        return _MISSING

    def check_private(self, name: str, value: Any, scope: Scope, where: cst.CSTNode,
                      op: Op) -> None:
        """``x += y`` on an ndarray writes into the array NumPy already holds, like
        ``x[...] += y``.  Lowering it as ``x = x + y`` is only right when nothing else can
        see that array: ``check_writable`` decides, with the same rules as element writes
        (other names, containers, appended items, closures, callers, views)."""
        if isinstance(value, np.ndarray) or isinstance(value, Node) and (
                value.type is None or value.type.kind == "array") and not is_numpy_scalar(
                self.b.values.get(value)):
            self.check_writable(name, value, scope, where, _SYMBOL[op])
        elif op in (Op.ADD, Op.MUL):  # list += and *= change the list itself
            self.check_list_unshared(name, value, scope, where, _SYMBOL[op])

    def assign(self, target: cst.BaseExpression, value: Any, scope: Scope) -> None:
        if isinstance(target, cst.Name):
            if isinstance(value, Node):
                value = self.b.rename(value, target.value)
            scope.vars[target.value] = value
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            star = starred_index(target)
            if star is not None:
                assign_starred(self, target, value, scope, star)
                return
            parts = self.unpack(value, len(target.elements), target)
            outer = self.pending_rhs
            try:
                for i, (el, part) in enumerate(zip(target.elements, parts)):
                    later = tuple(p for p in parts[i + 1:] if isinstance(p, Node))
                    self.pending_rhs = later + outer
                    self.assign(el.value, part, scope)
            finally:
                self.pending_rhs = outer
            return
        if isinstance(target, cst.Subscript):
            self.assign_item(target, value, scope)
            return
        if isinstance(target, cst.Attribute):
            self.set_attribute(self.attribute_target(target, scope), target.attr.value, value,
                               target)
            return
        raise self.fail(f"cannot assign to {type(target).__name__}", target)

    def assign_item(self, target: cst.Subscript, value: Any, scope: Scope) -> None:
        """``d[key] = v`` on a dict with a constant key, ``a[i] = v`` on an array."""
        base = self.expr(target.value, scope)
        if isinstance(base, dict):
            self.external.check_write(base, "write into", self.loc(target))
            base[self.dict_key(target, scope)] = value
            return
        if isinstance(base, InstanceDict):  # obj.__dict__[k] = v of an object built here
            base.set(self.dict_key(target, scope), value, target)
            return
        if isinstance(base, list):
            static_values.list_item_write(self, base, target, value, scope)
            return
        if isinstance(base, static_numpy.StaticArray) and static_numpy_writes.setitem(
                self, base, target, value, scope):
            return
        self.assign_subscript(target, value, scope)

    def aug_assign_item(self, target: cst.Subscript, op: Op, value: Any, scope: Scope,
                        where: cst.CSTNode) -> None:
        base = self.expr(target.value, scope)
        if isinstance(base, dict):
            self.external.check_write(base, "write into", self.loc(target))
            key = self.dict_key(target, scope)
            if key not in base:
                if getattr(type(base), "__missing__", None) is None:
                    raise self.fail(f"key {key!r} is not in the dict", target,
                                    kind=CompileError)
                base[key]  # noqa: B018  (a defaultdict's default, as Python's d[k] += v)
            label = f"{target.value.value}[{key!r}]" if isinstance(target.value, cst.Name) \
                else f"the dict item {key!r}"
            self.check_dict_item(label, base, key, scope, where, _SYMBOL[op])
            old = base[key]
            base[key] = self.binary(op, old, value, where)
            aliases.rebind_update(self, label, old, scope, where, base[key])
            return
        if isinstance(base, list):
            static_values.list_item_write(self, base, target, value, scope, op, where)
            return
        if isinstance(base, static_numpy.StaticArray) and static_numpy_writes.setitem(
                self, base, target, value, scope, op, where):
            return
        self.aug_assign_subscript(target, op, value, scope, where)

    def dict_key(self, target: cst.Subscript, scope: Scope) -> Any:
        parts = [self.index_part(el, scope) for el in target.slice]
        key = parts[0] if len(parts) == 1 else tuple(parts)
        if isinstance(key, Node) or isinstance(key, slice):
            raise self.fail("dict keys must be constants", target,
                            "use string or integer literals as keys")
        return key

    def unpack(self, value: Any, n: int, where: cst.CSTNode) -> list[Any]:
        if isinstance(value, GeneratorValue):
            value = self.consume_generator(value, where, direct=False)
        value = small_ops.as_items(value)  # a static iterator or set, a static array
        if isinstance(value, (tuple, list)):
            if len(value) != n:
                raise self.fail(f"cannot unpack {len(value)} values into {n} names", where,
                                kind=CompileError)
            return list(value)
        if isinstance(value, Node):
            t = value.type
            if t is not None and t.kind == "array" and t.shape is not None and t.shape:
                if t.shape[0] != n:
                    raise self.fail(f"cannot unpack an array of length {t.shape[0]} into {n}"
                                    " names", where, kind=CompileError)
                return [self.emit(Op.GETITEM, [value], {"index": (i,)}, where)
                        for i in range(n)]
            if t is None and value.op not in _MAY_BE_TUPLE and not OP_INFO[value.op].multi:
                # an array of unknown shape (no example arguments): rows, differentiated
                # as array reads (item would read it as a tuple, losing its gradient)
                return [self.emit(Op.GETITEM, [value], {"index": (i,)}, where)
                        for i in range(n)]
            return [self.emit(Op.ITEM, [value], {"index": i}, where) for i in range(n)]
        if isinstance(value, ArrayConverter):  # NumPy's converter: its default as_arrays()
            as_arrays = cast(types.FunctionType, ArrayConverter.as_arrays)
            return self.unpack(self.inline_python(as_arrays, [value], {}, where), n, where)
        raise self.fail(f"cannot unpack a {type(value).__name__}", where, kind=CompileError)

    def call(self, fn: Any, args: list[Any], kwargs: dict[str, Any], e: cst.Call) -> Any:
        from .dispatch import call_value  # noqa: PLC0415  (dispatch imports this module)

        if isinstance(fn, Node):  # a value computed at run time: not a function we see
            raise callable_args.call_node(self, fn, e)
        if (bad := callable_args.call_static(self, fn, e)) is not None:
            raise bad
        special = complex_pairs.call(self, fn, args, kwargs, e)  # fft family: spectra
        if special is not NotImplemented:
            return special
        if fn in (builtins.len, builtins.abs, builtins.float, builtins.int) and \
                len(args) == 1 and not kwargs:
            done = object_builtin(self, fn.__name__, args[0], e)  # a built object's __len__
            if done is not NOT_OBJECTS:
                return done
        if not self.__dict__.pop("static_numpy_off", False):  # (off for one call only)
            special = static_numpy_calls.call(self, fn, args, kwargs, e)  # static NumPy values
        if special is NotImplemented:
            special = self.control_call(fn, args, kwargs, e)
        if special is NotImplemented:
            special = static_values.static_call(self, fn, args, kwargs, e)
        if special is NotImplemented:
            special = call_value(self, fn, args, kwargs, e)
        kind_calls.after_call(self, fn, special)  # (ir/scalar_kinds)
        return special

    def inline_python(self, fn: types.FunctionType, args: list[Any], kwargs: dict[str, Any],
                      where: cst.CSTNode) -> Any:
        """Inline a call to a user-defined Python function."""
        cells = tuple(fn.__closure__ or ())
        inlined = self.__dict__.setdefault("inlined_cells", [])  # (code, cells) per frame
        again = [c for code, c in inlined if code is fn.__code__]
        # one code object with other closure cells is another function (array_api_compat's
        # get_xp wraps every function in the same ``wrapped_f``), unless it nests deeply
        distinct = bool(again) and not any(_same_cells(c, cells) for c in again) and \
            len(again) < _CLOSURE_REPEATS
        if again and not distinct and recursion_key(args, kwargs) is None:
            raise UnsupportedRecursionError(
                f"{fn.__name__}() is called again while it is being differentiated "
                f"({self._chain(fn.__name__)}); recursive functions are not supported",
                self.loc(where), "rewrite the recursion as a computation on arrays")
        try:
            parsed = parse_function(fn)
        except SourceUnavailableError as exc:
            if exc.loc is not None:
                raise
            from .wrappers import repacks, run_repacker  # noqa: PLC0415

            if fn.__code__.co_filename == "<string>" and repacks(fn):
                return run_repacker(self, fn, args, kwargs, where)  # SciPy's _parse_args
            # a callee without source (built by exec, as SciPy's generated argument
            # parsers are): say where the user's code reached it
            raise SourceUnavailableError(
                f"{exc.message}; it is called here ({self._chain(fn.__name__)})",
                self.loc(where), "register a derivative for the function that calls it with "
                "st.register_vjp, or call a function with readable source") from None
        self.guards.function_read(fn)
        self.guards.merge(getattr(fn, "__st_guards__", None))  # a gradient's own reads
        outer = python_resolver(fn, self.const_of_global, self.guards)
        self.code_stack.append(fn.__code__)
        inlined.append((fn.__code__, cells))
        if distinct:
            self.__dict__["distinct_closure"] = parsed.node
        site = self.loc(where)  # stats: the nearest call from the user's own code
        self.user_sites.append(site if library_errors.library_of(site.file) is None else
                               self.user_sites[-1] if self.user_sites else site)
        try:
            return self.lower_function(parsed, args, kwargs, Scope(None, outer), where)
        except CompileError as exc:  # in library code: also say where the user called it
            library_errors.library_call_site(exc, fn, self.loc(where))
            raise
        finally:
            self.code_stack.pop()
            inlined.pop()
            self.user_sites.pop()


#: How often one code object may be inlined within itself with other closure cells before
#: it counts as recursion (closures made anew on every level).
_CLOSURE_REPEATS = 4


def _same_cells(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _is_array(value: Any) -> bool:
    """NumPy or CuPy arrays (not modules, which also have ``shape`` and ``dtype``)."""
    return isinstance(value, np.ndarray) or (
        type_module(value).startswith("cupy") and hasattr(value, "__cuda_array_interface__"))


#: Ops whose untyped result may be a Python tuple or list (unpacked with ``item``).
_MAY_BE_TUPLE = frozenset({Op.CALL, Op.ITEM, Op.TUPLE, Op.IF, Op.FOR, Op.WHILE, Op.LIST,
                           Op.LIST_GET, Op.LIST_SLICE, Op.LIST_CONCAT, Op.LIST_REVERSE})

#: Ops whose result can share memory with an input in NumPy.
_VIEWS = frozenset({Op.GETITEM, Op.RESHAPE, Op.RAVEL, Op.TRANSPOSE, Op.SWAPAXES, Op.MOVEAXIS,
                    Op.EXPAND_DIMS, Op.SQUEEZE, Op.BROADCAST_TO, Op.DIAGONAL, Op.ASARRAY,
                    Op.ITEM, Op.SPLIT, Op.FLIP})


Resolver = Callable[[str], Any]


def _none(v: Any) -> bool:
    """Whether a return value is None on every path (a value no path set is None too)."""
    return v is None or isinstance(v, Node) and v.type is not None and v.type.kind == "none"


def lower(fn: ParsedFunction, example_args: list[Any] | None,
          make_resolver: Callable[[Lowerer], Resolver], name: str | None = None,
          code: Any = None) -> Lowered:
    """Lower ``fn``; with ``example_args`` every node is typed from its example value.

    ``make_resolver(lowerer)`` gives the function's free-name lookup (globals, closure).
    """
    refuse_complex_arguments(fn, example_args)
    lw = Lowerer(name or fn.name, example_args is not None)
    lw.foreign_arrays = static_queries.foreign_arrays(example_args)  # (type queries)
    lw.example_args = example_args
    lw.main_builder = lw.b  # (a walrus in a comprehension binds outside it: unrolled only)
    resolver = make_resolver(lw)
    lw.fn_stack.append(fn)
    if code is not None:
        lw.code_stack.append(code)
    args: list[Any] = list(fn.fixed)  # a bound method's receiver
    stars: list[Any] = []
    kwargs: dict[str, Any] = {}
    for i, (pname, param, key) in enumerate(fn.slots):
        loc = fn.loc(param)
        if example_args is None:
            value: Any = lw.b.arg(pname, None, None, loc)
        else:
            value = example_args[i]
            static = i in lw.static_args or isinstance(value, (bool, int, str, type(
                None))) and not isinstance(value, float) and i not in lw.dynamic_args
            if not static and callable_args.is_static_argument(value):  # keyed by identity
                static = True
                lw.guards.note(value)  # (a receiver's attributes are guarded)
            # a runtime argument is known by its type only: its data is never read
            known = value if static else Abstract(type_of(value)) if isinstance(
                value, (bool, int)) else abstract_of(value)
            node = lw.b.arg(pname, type_of(value), known, loc)
            lw.arg_slots[node] = i  # (identity.py: `a is b` of two arguments)
            value = value if static else node
        if param is fn.star:
            stars.append(value)
        elif key is not None:  # a **kwargs value
            kwargs[key] = value
        elif any(param is p for p in fn.node.params.kwonly_params):
            kwargs[pname] = value
        else:
            args.append(value)
    for v in fn.fixed:
        lw.guards.note(v)
    lw.fn_stack.pop()
    result = lw.lower_function(fn, args + stars, kwargs, Scope(None, resolver), None)
    # a returned tuple, list or dict is a tree: each leaf is an output of the graph
    outputs, out_tree = trees.flatten(result)
    where = fn.node
    if not outputs:
        raise CompileError(f"{fn.name}() returns {result!r}, which holds no value to "
                           "differentiate", fn.loc(where))
    lw.fn_stack.append(fn)
    nodes = [static_numpy.output(lw, v, where) for v in outputs]
    aliases.check_outputs(lw, lw.b, nodes)
    nodes[0] = lw.b.rename(nodes[0], "out")
    lw.fn_stack.pop()
    graph = lw.b.finish(nodes)
    refuse_complex_graph(graph)
    return Lowered(graph, lw.b.values, out_tree=out_tree)
