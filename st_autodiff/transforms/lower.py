"""Pass 2, lower: a parsed function -> an SSA ``Graph`` (a partial evaluator).

Input: a ``ParsedFunction`` and, optionally, example arguments.  Output: ``Lowered``,
the graph plus the example value of every node (used by the next passes to type adjoint
nodes, then dropped).

Lowering runs the function abstractly: values known at compile time (modules, functions,
Python ints, shapes of typed arrays, literals) are computed here; values that depend on
floating-point arguments become nodes.  Integer and boolean arguments are compile-time
constants, like JAX's static arguments (the cache key includes their value).  Calls to
user functions, lambdas and inner functions are inlined with their own source locations.

Rejects, with a location: unknown names, calls without a derivative rule, in-place
writes, recursion, and operator uses NumPy would reject for these types.
"""

from __future__ import annotations

import builtins
import math
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import libcst as cst
import numpy as np

from ..errors import (
    CompileError,
    EvaluationError,
    UnsupportedRecursionError,
    UnsupportedSyntaxError,
)
from ..ir.graph import CompileTimeError, Graph, GraphBuilder, Loc, Node
from ..ir.kernels import array_namespace, run
from ..ir.ops import Op
from ..ir.types import type_of
from . import calls
from .parse import ParsedFunction, parse_function

_BINARY = {
    cst.Add: Op.ADD, cst.Subtract: Op.SUB, cst.Multiply: Op.MUL, cst.Divide: Op.DIV,
    cst.Power: Op.POW, cst.Modulo: Op.MOD, cst.FloorDivide: Op.FLOORDIV,
    cst.MatrixMultiply: Op.MATMUL,
}
#: ``&``, ``|``, ``^`` on boolean masks (on Python ints they fold as Python operators).
_LOGICAL = {cst.BitAnd: Op.LOGICAL_AND, cst.BitOr: Op.LOGICAL_OR, cst.BitXor: Op.LOGICAL_XOR}
_COMPARE = {
    cst.LessThan: Op.LT, cst.LessThanEqual: Op.LE, cst.GreaterThan: Op.GT,
    cst.GreaterThanEqual: Op.GE, cst.Equal: Op.EQ, cst.NotEqual: Op.NE,
}
_AUG = {
    cst.AddAssign: Op.ADD, cst.SubtractAssign: Op.SUB, cst.MultiplyAssign: Op.MUL,
    cst.DivideAssign: Op.DIV, cst.PowerAssign: Op.POW, cst.ModuloAssign: Op.MOD,
    cst.FloorDivideAssign: Op.FLOORDIV, cst.MatrixMultiplyAssign: Op.MATMUL,
}
MAX_INLINE_DEPTH = 64


@dataclass
class Lowered:
    """The graph of a function and the example values of its nodes."""

    graph: Graph
    values: dict[Node, Any]


@dataclass(eq=False)
class Closure:
    """A lambda or inner ``def`` together with the scope it was defined in."""

    fn: ParsedFunction
    scope: Scope


class Scope:
    """Variables of one function activation; misses go to ``parent`` then ``outer``."""

    def __init__(self, parent: Scope | None, outer: Callable[[str], Any] | None) -> None:
        self.vars: dict[str, Any] = {}
        self.parent = parent
        self.outer = outer

    def lookup(self, name: str) -> Any:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.vars:
                return scope.vars[name]
            if scope.outer is not None:
                return scope.outer(name)
            scope = scope.parent
        raise KeyError(name)


_MISSING = object()


def python_resolver(fn: Callable[..., Any], const: Callable[[str, Any], Any]
                    ) -> Callable[[str], Any]:
    """Resolve free names of a live Python function: closure cells, globals, builtins."""
    code = fn.__code__
    cells = dict(zip(code.co_freevars, fn.__closure__ or ()))
    glb = fn.__globals__

    def resolve(name: str) -> Any:
        if name in cells:
            try:
                return const(name, cells[name].cell_contents)
            except ValueError:  # empty cell
                raise KeyError(name) from None
        if name in glb:
            return const(name, glb[name])
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise KeyError(name)

    return resolve


def _evaluate(op: Op, inputs: tuple, params: dict) -> Any:
    return run(op, array_namespace(*inputs), inputs, params)


class Lowerer:
    """Walks libcst statements and expressions, building the graph."""

    def __init__(self, name: str, evaluate: bool) -> None:
        self.b = GraphBuilder(name, _evaluate if evaluate else None)
        self.fn_stack: list[ParsedFunction] = []
        self.code_stack: list[Any] = []
        self.active_scopes: list[Scope] = []  # callers' scopes too: they hold arguments
        self.global_consts: dict[tuple[int, str], Node] = {}

    # --- helpers ------------------------------------------------------------------------

    @property
    def fn(self) -> ParsedFunction:
        return self.fn_stack[-1]

    def loc(self, node: cst.CSTNode) -> Loc:
        return self.fn.loc(node)

    def fail(self, message: str, node: cst.CSTNode, hint: str | None = None,
             kind: type[CompileError] = UnsupportedSyntaxError) -> CompileError:
        return kind(message, self.loc(node), hint)

    def const_of_global(self, name: str, value: Any) -> Any:
        """Globals and closure cells: arrays become named constants, the rest stays static."""
        if _is_array(value):
            key = (id(value), name)
            if key not in self.global_consts:
                self.global_consts[key] = self.b.const(value, name=name)
            return self.global_consts[key]
        return value

    def emit(self, op: Op, inputs: list[Any], params: dict[str, Any] | None,
             where: cst.CSTNode) -> Node:
        nodes = [self.to_node(v, where) for v in inputs]
        try:
            return self.b.emit(op, nodes, params, loc=self.loc(where))
        except CompileTimeError as exc:
            raise EvaluationError(f"{op.value} failed on the example arguments: {exc}",
                                  exc.loc, "the function itself fails for these inputs"
                                  ) from None

    def to_node(self, v: Any, where: cst.CSTNode) -> Node:
        """A runtime value as a node: static numbers, tuples and arrays become constants."""
        if isinstance(v, Node):
            return v
        if isinstance(v, (bool, int, float, type(None))):
            return self.b.const(v)
        if isinstance(v, tuple) and any(isinstance(x, Node) for x in v):
            return self.emit(Op.TUPLE, list(v), None, where)
        if isinstance(v, (tuple, str)):
            return self.b.const(v)
        if isinstance(v, list):
            if any(isinstance(x, Node) for x in v):
                return self.emit(Op.STACK, list(v), None, where)
            return self.b.const(np.asarray(v))
        if isinstance(v, np.generic) or _is_array(v):
            return self.b.const(v)
        raise self.fail(f"a value of type {type(v).__name__} cannot be used as an array here",
                        where)

    def static(self, v: Any, what: str, where: cst.CSTNode) -> Any:
        """A compile-time constant (params such as axis, keepdims, ord)."""
        if isinstance(v, Node):
            if v.op is Op.CONST:
                return v.param("value")
            raise self.fail(f"{what} must be known when the function is compiled, but it "
                            "is computed from the arguments at run time", where,
                            "use a literal, or a value computed from shapes")
        if isinstance(v, list):
            return tuple(v)
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
        if where is not None and any(f.node is fn.node for f in self.fn_stack):
            raise UnsupportedRecursionError(
                f"{fn.name}() is called again while it is being differentiated "
                f"({self._chain(fn.name)}); recursive functions are not supported",
                self.loc(where), "rewrite the recursion as a computation on arrays")
        if len(self.fn_stack) >= MAX_INLINE_DEPTH:
            raise UnsupportedRecursionError(f"calls nested deeper than {MAX_INLINE_DEPTH}",
                                            self.loc(where) if where else None)
        names = fn.params
        if len(args) > len(names):
            raise self.fail(f"{fn.name}() takes {len(names)} positional arguments but "
                            f"{len(args)} were given", where or fn.node, kind=CompileError)
        bound = dict(zip(names, args))
        kwonly = [p.name.value for p in fn.node.params.kwonly_params]
        for k, v in kwargs.items():
            if k not in names and k not in kwonly:
                raise self.fail(f"{fn.name}() got an unexpected keyword argument {k!r}",
                                where or fn.node, kind=CompileError)
            if k in bound:
                raise self.fail(f"{fn.name}() got multiple values for argument {k!r}",
                                where or fn.node, kind=CompileError)
            bound[k] = v
        for p in fn.node.params.params + fn.node.params.kwonly_params:
            name = p.name.value
            if name not in bound:
                if name in fn.defaults:
                    bound[name] = fn.defaults[name]
                elif p.default is not None:
                    self.fn_stack.append(fn)
                    bound[name] = self.expr(p.default, scope.parent or scope)
                    self.fn_stack.pop()
                else:
                    raise self.fail(f"{fn.name}() is missing the argument {name!r}",
                                    where or fn.node, kind=CompileError)
        scope.vars.update(bound)
        self.fn_stack.append(fn)
        self.active_scopes.append(scope)
        try:
            if isinstance(fn.node, cst.Lambda):
                return self.expr(fn.node.body, scope)
            body = fn.node.body  # an indented block, or a one-line `def f(x): return x`
            return self.block([body] if isinstance(body, cst.SimpleStatementSuite)
                              else body.body, scope)
        finally:
            self.fn_stack.pop()
            self.active_scopes.pop()

    def block(self, stmts: Any, scope: Scope) -> Any:
        for stmt in stmts:
            if isinstance(stmt, cst.FunctionDef):
                inner = ParsedFunction(stmt.name.value, stmt, self.fn.module,
                                       self.defaults_at_definition(stmt, scope))
                scope.vars[stmt.name.value] = Closure(inner, scope)
                continue
            if not isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
                raise self.fail(f"{type(stmt).__name__} statements are not supported", stmt)
            for small in stmt.body:
                result = self.statement(small, scope)
                if result is not _MISSING:
                    return result
        raise self.fail(f"{self.fn.name}() does not return a value", self.fn.node,
                        "end the function with a return statement", kind=CompileError)

    def statement(self, s: cst.BaseSmallStatement, scope: Scope) -> Any:
        if isinstance(s, cst.Return):
            if s.value is None:
                raise self.fail("return without a value", s, kind=CompileError)
            return self.expr(s.value, scope)
        if isinstance(s, cst.Assign):
            value = self.expr(s.value, scope)
            for target in s.targets:
                self.assign(target.target, value, scope)
        elif isinstance(s, cst.AnnAssign):
            if s.value is not None:
                self.assign(s.target, self.expr(s.value, scope), scope)
        elif isinstance(s, cst.AugAssign):
            if not isinstance(s.target, cst.Name):
                raise self.fail("in-place update of an array element or attribute is not "
                                "supported", s.target,
                                "compute a new array instead (np.where, np.concatenate)")
            op = _AUG.get(type(s.operator))
            if op is None:
                raise self.fail(f"the operator {s.operator.__class__.__name__} is not "
                                "supported", s)
            current = self.name(s.target, scope)
            self.check_private(s.target.value, current, scope, s)
            value = self.binary(op, current, self.expr(s.value, scope), s)
            self.assign(s.target, value, scope)
        elif isinstance(s, cst.Expr):
            if not isinstance(s.value, (cst.SimpleString, cst.ConcatenatedString)):
                self.expr(s.value, scope)
        elif not isinstance(s, cst.Pass):
            raise self.fail(f"{type(s).__name__} statements are not supported", s)
        return _MISSING

    def check_private(self, name: str, value: Any, scope: Scope, where: cst.CSTNode) -> None:
        """``x += y`` on an ndarray writes into the array NumPy already holds.  Lowering it
        as ``x = x + y`` is only right when nothing else can see that array: no other
        name, no caller (arguments, globals) and no view of another array."""
        if not isinstance(value, Node) or value.type is None or value.type.kind != "array" \
                or isinstance(self.b.values.get(value), np.generic):
            return  # Python numbers and NumPy scalars are immutable: += rebinds
        why = None
        if value.op is Op.ARG:
            why = "it is an argument, so the caller's array would change too"
        elif value.op is Op.CONST:
            why = "it is a global or closure array, so it would change for every call"
        elif value.op in _VIEWS:
            why = "it may be a view of another array, which would change too"
        else:
            seen = [sc for top in [scope, *self.active_scopes] for sc in _scopes(top)]
            others = [k for sc in dict.fromkeys(seen) for k, v in sc.vars.items()
                      if v is value and (k != name or sc is not scope)]
            if others:
                why = f"{others[0]!r} refers to the same array and would change too"
        if why is not None:
            raise self.fail(f"in-place update of {name!r} is not supported here: {why}",
                            where, f"write {name} = {name} <op> ... to make a new array")

    def assign(self, target: cst.BaseExpression, value: Any, scope: Scope) -> None:
        if isinstance(target, cst.Name):
            if isinstance(value, Node):
                value = self.b.rename(value, target.value)
            scope.vars[target.value] = value
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            parts = self.unpack(value, len(target.elements), target)
            for el, part in zip(target.elements, parts):
                self.assign(el.value, part, scope)
            return
        if isinstance(target, cst.Subscript):
            raise self.fail("assignment to an array element is not supported", target,
                            "build the new array with np.where(...) or np.concatenate(...)")
        raise self.fail(f"cannot assign to {type(target).__name__}", target)

    def unpack(self, value: Any, n: int, where: cst.CSTNode) -> list[Any]:
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
            return [self.emit(Op.ITEM, [value], {"index": i}, where) for i in range(n)]
        raise self.fail(f"cannot unpack a {type(value).__name__}", where, kind=CompileError)

    # --- expressions --------------------------------------------------------------------

    def expr(self, e: cst.BaseExpression, scope: Scope) -> Any:
        method = getattr(self, "expr_" + type(e).__name__, None)
        if method is None:
            raise self.fail(f"{type(e).__name__} expressions are not supported", e)
        return method(e, scope)

    def name(self, e: cst.Name, scope: Scope) -> Any:
        try:
            return scope.lookup(e.value)
        except KeyError:
            raise self.fail(f"name {e.value!r} is not defined", e, kind=CompileError) from None

    expr_Name = name

    def expr_Integer(self, e: cst.Integer, scope: Scope) -> Any:
        return e.evaluated_value

    def expr_Float(self, e: cst.Float, scope: Scope) -> Any:
        return e.evaluated_value

    def expr_SimpleString(self, e: cst.SimpleString, scope: Scope) -> Any:
        return e.evaluated_value

    def expr_Ellipsis(self, e: cst.Ellipsis, scope: Scope) -> Any:
        return Ellipsis

    def expr_Imaginary(self, e: cst.Imaginary, scope: Scope) -> Any:
        raise self.fail("complex numbers are not supported", e)

    def expr_Tuple(self, e: cst.Tuple, scope: Scope) -> Any:
        return tuple(self.expr(el.value, scope) for el in e.elements)

    def expr_List(self, e: cst.List, scope: Scope) -> Any:
        return [self.expr(el.value, scope) for el in e.elements]

    def expr_Lambda(self, e: cst.Lambda, scope: Scope) -> Any:
        return Closure(ParsedFunction("<lambda>", e, self.fn.module,
                                      self.defaults_at_definition(e, scope)), scope)

    def defaults_at_definition(self, node: cst.FunctionDef | cst.Lambda, scope: Scope
                               ) -> dict[str, Any]:
        """Default values of an inner def or lambda, evaluated where it is defined (as
        Python does: ``c = 1.0; f = lambda t, k=c: t * k; c = 2.0`` keeps ``k = 1.0``)."""
        ps = node.params
        return {p.name.value: self.expr(p.default, scope)
                for p in (*ps.params, *ps.kwonly_params) if p.default is not None}

    def expr_IfExp(self, e: cst.IfExp, scope: Scope) -> Any:
        cond = self.expr(e.test, scope)
        if not isinstance(cond, Node):
            return self.expr(e.body if cond else e.orelse, scope)
        return self.emit(Op.WHERE, [cond, self.expr(e.body, scope),
                                    self.expr(e.orelse, scope)], None, e)

    def expr_BinaryOperation(self, e: cst.BinaryOperation, scope: Scope) -> Any:
        op = _BINARY.get(type(e.operator))
        logical = _LOGICAL.get(type(e.operator))
        if logical is not None:
            return self.logical(logical, self.expr(e.left, scope), self.expr(e.right, scope), e)
        if op is None:
            raise self.fail(f"the operator {type(e.operator).__name__} is not supported", e)
        return self.binary(op, self.expr(e.left, scope), self.expr(e.right, scope), e)

    def binary(self, op: Op, a: Any, b: Any, where: cst.CSTNode) -> Any:
        if not isinstance(a, Node) and not isinstance(b, Node):
            try:
                return run(op, np, (a, b), {})
            except Exception as exc:
                raise self.fail(f"{type(exc).__name__}: {exc}", where, kind=CompileError
                                ) from None
        return self.emit(op, [a, b], None, where)

    def expr_UnaryOperation(self, e: cst.UnaryOperation, scope: Scope) -> Any:
        v = self.expr(e.expression, scope)
        if isinstance(e.operator, cst.Not):
            if isinstance(v, Node):
                raise self.fail("`not` on an array value is not supported", e,
                                "use np.logical_not(x)")
            return not v
        op = {cst.Minus: Op.NEG, cst.Plus: Op.POSITIVE}.get(type(e.operator))
        if op is None and isinstance(v, Node) and v.type is not None and v.type.dtype == "bool":
            return self.emit(Op.LOGICAL_NOT, [v], None, e)  # ~mask
        if op is None:
            if not isinstance(v, Node) and isinstance(v, int):
                return ~v
            raise self.fail("the operator ~ is not supported", e,
                            "~ inverts boolean masks only; use np.logical_not(mask)")
        if not isinstance(v, Node):
            return -v if op is Op.NEG else +v
        return self.emit(op, [v], None, e)

    def expr_Comparison(self, e: cst.Comparison, scope: Scope) -> Any:
        left = self.expr(e.left, scope)
        result: Any = None
        for target in e.comparisons:
            op = _COMPARE.get(type(target.operator))
            if op is None:
                word = {cst.Is: "is", cst.IsNot: "is not", cst.In: "in",
                        cst.NotIn: "not in"}.get(type(target.operator), "this comparison")
                raise self.fail(f"`{word}` comparisons are not supported here", e,
                                "compare values with == or !=, or np.isin for membership")
            right = self.expr(target.comparator, scope)
            part = self.binary(op, left, right, e)
            result = part if result is None else self.logical_and(result, part, e)
            left = right
        return result

    def logical(self, op: Op, a: Any, b: Any, where: cst.CSTNode) -> Any:
        """``a & b`` (``|``, ``^``): Python semantics on constants, logical ops on masks."""
        if not isinstance(a, Node) and not isinstance(b, Node):
            fn = {Op.LOGICAL_AND: lambda: a & b, Op.LOGICAL_OR: lambda: a | b,
                  Op.LOGICAL_XOR: lambda: a ^ b}[op]
            return fn()
        for v in (a, b):
            t = v.type if isinstance(v, Node) else None
            if t is not None and t.kind == "array" and t.dtype not in (None, "bool"):
                sym = {Op.LOGICAL_AND: "&", Op.LOGICAL_OR: "|", Op.LOGICAL_XOR: "^"}[op]
                raise self.fail(f"`{sym}` on {t.dtype} arrays (bitwise) is not supported", where,
                                "combine boolean masks with & | ^, e.g. (x > 0) & (x < 1)")
        return self.emit(op, [a, b], None, where)

    def logical_and(self, a: Any, b: Any, where: cst.CSTNode) -> Any:
        if not isinstance(a, Node) and not isinstance(b, Node):
            return a and b
        return self.emit(Op.LOGICAL_AND, [a, b], None, where)

    def expr_BooleanOperation(self, e: cst.BooleanOperation, scope: Scope) -> Any:
        a, b = self.expr(e.left, scope), self.expr(e.right, scope)
        if isinstance(a, Node) or isinstance(b, Node):
            name = "and" if isinstance(e.operator, cst.And) else "or"
            raise self.fail(f"`{name}` on array values is not supported", e,
                            f"use np.logical_{name}(a, b)")
        return (a and b) if isinstance(e.operator, cst.And) else (a or b)

    def expr_Attribute(self, e: cst.Attribute, scope: Scope) -> Any:
        base = self.expr(e.value, scope)
        attr = e.attr.value
        if isinstance(base, Node):
            return self.array_attribute(base, attr, e)
        try:
            return self.const_of_global(attr, getattr(base, attr))
        except AttributeError:
            owner = getattr(base, "__name__", None) if isinstance(base, types.ModuleType) \
                else None
            what = f"module {owner!r}" if owner else f"{type(base).__name__} object"
            raise self.fail(f"{what} has no attribute {attr!r}", e,
                            kind=CompileError) from None

    def array_attribute(self, x: Node, attr: str, e: cst.CSTNode) -> Any:
        t = x.type
        if attr == "T":
            return self.emit(Op.TRANSPOSE, [x], None, e)
        if attr == "shape":
            return self.emit(Op.SHAPE, [x], None, e)
        if attr in ("ndim", "size", "dtype"):
            if t is None or t.shape is None and attr != "dtype" or t.dtype is None:
                raise self.fail(f"x.{attr} is not known when compiling without example "
                                "arguments", e, "call the gradient with arguments first")
            if attr == "ndim":
                return len(t.shape)  # type: ignore[arg-type]
            if attr == "size":
                return math.prod(t.shape)  # type: ignore[arg-type]
            return np.dtype(t.dtype)
        if attr == "real":
            return x
        if attr in calls.METHODS or attr in _SPECIAL_METHODS:
            return BoundMethod(x, attr)
        raise self.fail(f"arrays have no supported attribute {attr!r}", e)

    def expr_Subscript(self, e: cst.Subscript, scope: Scope) -> Any:
        base = self.expr(e.value, scope)
        parts = [self.index_part(el, scope) for el in e.slice]
        if len(parts) == 1 and isinstance(parts[0], tuple):
            parts = list(parts[0])  # x[idx] with a tuple idx means x[idx[0], idx[1], ...]
        if not isinstance(base, Node):
            if any(isinstance(p, Node) for p in parts):
                raise self.fail("indexing a constant with a runtime value is not supported",
                                e)
            idx = parts[0] if len(parts) == 1 else tuple(parts)
            return base[idx]
        if base.type is not None and base.type.kind == "tuple":
            if len(parts) != 1 or not isinstance(parts[0], int):
                raise self.fail("tuples can only be indexed with an integer", e)
            return self.emit(Op.ITEM, [base], {"index": parts[0]}, e)
        dyn: list[Node] = []

        def entry(p: Any) -> Any:
            if isinstance(p, slice):
                return ("slice", entry(p.start), entry(p.stop), entry(p.step))
            if isinstance(p, Node):
                dyn.append(p)
                return ("in", len(dyn) - 1)
            if isinstance(p, list) and all(isinstance(i, int) and not isinstance(i, bool)
                                           for i in p):
                return ("list", tuple(p))
            if isinstance(p, (list, np.ndarray)):
                return entry(self.to_node(p, e))
            return p

        index = tuple(entry(p) for p in parts)
        return self.emit(Op.GETITEM, [base] + dyn, {"index": index}, e)

    def index_part(self, el: cst.SubscriptElement, scope: Scope) -> Any:
        s = el.slice
        if isinstance(s, cst.Index):
            return self.expr(s.value, scope)
        bounds = [None if b is None else self.expr(b, scope) for b in (s.lower, s.upper,
                                                                         s.step)]
        return slice(*bounds)

    def expr_Call(self, e: cst.Call, scope: Scope) -> Any:
        fn = self.expr(e.func, scope)
        args, kwargs = [], {}
        for a in e.args:
            v = self.expr(a.value, scope)
            if a.keyword is not None:
                kwargs[a.keyword.value] = v
            else:
                args.append(v)
        return self.call(fn, args, kwargs, e)

    def call(self, fn: Any, args: list[Any], kwargs: dict[str, Any], e: cst.Call) -> Any:
        from .dispatch import call_value  # noqa: PLC0415  (dispatch imports this module)

        return call_value(self, fn, args, kwargs, e)

    def inline_python(self, fn: types.FunctionType, args: list[Any], kwargs: dict[str, Any],
                      where: cst.CSTNode) -> Any:
        """Inline a call to a user-defined Python function."""
        if fn.__code__ in self.code_stack:
            raise UnsupportedRecursionError(
                f"{fn.__name__}() is called again while it is being differentiated "
                f"({self._chain(fn.__name__)}); recursive functions are not supported",
                self.loc(where), "rewrite the recursion as a computation on arrays")
        parsed = parse_function(fn)
        outer = python_resolver(fn, self.const_of_global)
        self.code_stack.append(fn.__code__)
        try:
            return self.lower_function(parsed, args, kwargs, Scope(None, outer), where)
        finally:
            self.code_stack.pop()


def _is_array(value: Any) -> bool:
    """NumPy or CuPy arrays (not modules, which also have ``shape`` and ``dtype``)."""
    return isinstance(value, np.ndarray) or (
        type(value).__module__.startswith("cupy") and hasattr(value, "__cuda_array_interface__"))


#: Ops whose result can share memory with an input in NumPy.
_VIEWS = frozenset({Op.GETITEM, Op.RESHAPE, Op.RAVEL, Op.TRANSPOSE, Op.SWAPAXES, Op.MOVEAXIS,
                    Op.EXPAND_DIMS, Op.SQUEEZE, Op.BROADCAST_TO, Op.DIAGONAL, Op.ASARRAY,
                    Op.ITEM, Op.SPLIT})


def _scopes(scope: Scope) -> list[Scope]:
    out = []
    cur: Scope | None = scope
    while cur is not None:
        out.append(cur)
        cur = cur.parent
    return out


@dataclass(frozen=True)
class BoundMethod:
    """``x.sum`` before it is called."""

    receiver: Node
    name: str


_SPECIAL_METHODS = {"reshape", "transpose", "astype", "item", "tolist", "conj", "conjugate"}


Resolver = Callable[[str], Any]


def lower(fn: ParsedFunction, example_args: list[Any] | None,
          make_resolver: Callable[[Lowerer], Resolver], name: str | None = None,
          code: Any = None) -> Lowered:
    """Lower ``fn``; with ``example_args`` every node is typed from its example value.

    ``make_resolver(lowerer)`` gives the function's free-name lookup (globals, closure).
    """
    lw = Lowerer(name or fn.name, example_args is not None)
    resolver = make_resolver(lw)
    lw.fn_stack.append(fn)
    if code is not None:
        lw.code_stack.append(code)
    args: list[Any] = []
    for i, pname in enumerate(fn.params):
        loc = fn.loc(fn.node.params.params[i])
        if example_args is None:
            args.append(lw.b.arg(pname, None, None, loc))
            continue
        value = example_args[i]
        node = lw.b.arg(pname, type_of(value), value, loc)
        static = isinstance(value, (bool, int, str, type(None))) and not isinstance(
            value, float)
        args.append(value if static else node)
    lw.fn_stack.pop()
    result = lw.lower_function(fn, args, {}, Scope(None, resolver), None)
    outputs = result if isinstance(result, tuple) else (result,)
    where = fn.node
    lw.fn_stack.append(fn)
    nodes = [lw.to_node(v, where) for v in outputs]
    nodes[0] = lw.b.rename(nodes[0], "out")
    lw.fn_stack.pop()
    graph = lw.b.finish(nodes)
    return Lowered(graph, lw.b.values)
