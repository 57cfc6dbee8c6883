"""Expressions for ``lower``: the ``expr_*`` handlers of the partial evaluator.

``ExpressionLowering`` is mixed into ``lower.Lowerer``; a handler returns a graph node
for values that depend on differentiated arguments and a Python value for everything
known at compile time (numbers, tuples, modules, functions, closures).
"""

from __future__ import annotations

import math
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import libcst as cst
import numpy as np

from ..errors import CompileError
from ..ir.graph import Node
from ..ir.kernels import run
from ..ir.ops import Op
from ..ir.scalar_kinds import unknown
from . import (
    aliases,
    calls,
    complex_pairs,
    effects,
    identity,
    inplace,
    kind_calls,
    layout_queries,
    like_shapes,
    numpy_keywords,
    small_ops,
    static_calls,
    static_conditions,
    static_format,
    static_numpy,
    static_numpy_calls,
    static_numpy_writes,
    static_queries,
)
from .index_tricks import concatenate_items, is_concatenator
from .numpy_more_attrs import numpy_more_attribute
from .object_operators import NOT_OBJECTS, object_binary, object_unary
from .parse import ParsedFunction
from .records import NOT_HANDLED, record_attribute
from .scope import BoundMethod, Closure, Deleted, Diverged, Scope
from .star import literal_items
from .static_format import equals_string, string_binary
from .static_stmts import static_exception

if TYPE_CHECKING:
    from .lower import Lowerer
    from .lowering_api import LowererAPI
else:
    LowererAPI = object  # the shared interface exists for the type checker only

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
_IN_PLACE_METHODS = frozenset({"sort", "fill", "put", "resize", "partition", "itemset",
                               "setfield", "setflags"})
_UNARY_WORDS = {cst.Not: "not", cst.Minus: "-", cst.Plus: "+", cst.BitInvert: "~"}
_KIND_NAMES = {"float": "floats", "int": "integers", "bool": "booleans", "tuple": "tuples",
               "list": "lists built at run time", "none": "None values"}
_SPECIAL_METHODS = {"reshape", "transpose", "astype", "item", "tolist", "conj", "conjugate",
                    "__array__", "__array_namespace__"}


class ExpressionLowering(LowererAPI):
    """The expression half of ``lower.Lowerer`` (see the module docstring)."""


    def expr(self, e: cst.BaseExpression, scope: Scope) -> Any:
        method = getattr(self, "expr_" + type(e).__name__, None)
        if method is None:
            raise self.fail(f"{type(e).__name__} expressions are not supported", e)
        return method(e, scope)

    def name(self, e: cst.Name, scope: Scope) -> Any:
        try:
            value = scope.lookup(e.value)
        except KeyError:
            raise self.fail(f"name {e.value!r} is not defined", e, kind=CompileError) from None
        if isinstance(value, Diverged):
            kinds = " or ".join(sorted({type(v).__name__ for v in value.values}))
            raise self.fail(f"{e.value!r} is a {kinds} that depends on which side of an if "
                            "on a runtime condition ran; such objects are known only when "
                            "compiling", e, "give it the same value on both sides, or "
                            "compute it from static values only")
        if isinstance(value, Deleted):
            raise small_ops.deleted_read(cast("Lowerer", self), e, value)
        return value

    expr_Name = name

    def expr_Integer(self, e: cst.Integer, scope: Scope) -> Any:
        return e.evaluated_value

    def expr_Float(self, e: cst.Float, scope: Scope) -> Any:
        return e.evaluated_value

    def expr_SimpleString(self, e: cst.SimpleString, scope: Scope) -> Any:
        return e.evaluated_value

    def expr_FormattedString(self, e: cst.FormattedString, scope: Scope) -> Any:
        if static_format.lenient(cast("Lowerer", self)):  # the message of a raise certain to happen
            return static_format.formatted_string(cast("Lowerer", self), e, scope)
        # static: a str; else a node
        return effects.formatted_string(cast("Lowerer", self), e, scope)

    def expr_Ellipsis(self, e: cst.Ellipsis, scope: Scope) -> Any:
        return Ellipsis

    def expr_Imaginary(self, e: cst.Imaginary, scope: Scope) -> Any:
        # static while it meets static values only: to_node refuses it at the literal
        return static_numpy.complex_literal(cast("Lowerer", self), e)

    def expr_Dict(self, e: cst.Dict, scope: Scope) -> Any:
        out: dict[Any, Any] = {}
        for el in e.elements:
            if isinstance(el, cst.StarredDictElement):
                items = self.expr(el.value, scope)
                if not isinstance(items, dict):
                    raise self.fail("**-unpacking in a dict needs a dict known when "
                                    "compiling", el, kind=CompileError)
                out.update(items)
                continue
            if not isinstance(el, cst.DictElement):
                raise self.fail("**-unpacking in a dict is not supported", el)
            key = self.expr(el.key, scope)
            if isinstance(key, Node):
                raise self.fail("dict keys must be constants", el.key,
                                "use string or integer literals as keys")
            out[key] = self.expr(el.value, scope)
        return out

    def expr_Tuple(self, e: cst.Tuple, scope: Scope) -> Any:
        return tuple(literal_items(self, e.elements, scope))

    def expr_List(self, e: cst.List, scope: Scope) -> Any:
        return literal_items(self, e.elements, scope)

    def expr_Lambda(self, e: cst.Lambda, scope: Scope) -> Any:
        return Closure(ParsedFunction("<lambda>", e, self.fn.module,
                                      self.defaults_at_definition(e, scope)), scope)

    def defaults_at_definition(self, node: cst.FunctionDef | cst.Lambda, scope: Scope
                               ) -> dict[str, Any]:
        """Default values of an inner def or lambda, evaluated where it is defined (as
        Python does: ``c = 1.0; f = lambda t, k=c: t * k; c = 2.0`` keeps ``k = 1.0``)."""
        ps = node.params
        return {p.name.value: self.expr(p.default, scope)
                for p in (*ps.posonly_params, *ps.params, *ps.kwonly_params)
                if p.default is not None}

    def expr_IfExp(self, e: cst.IfExp, scope: Scope) -> Any:
        cond = self.expr(e.test, scope)
        if not isinstance(cond, Node):
            return self.expr(e.body if cond else e.orelse, scope)
        # Python's truth value (a list's length; an array must have one element), never
        # NumPy's elementwise choice
        cond = self.condition(cond, e.test)
        cond = static_conditions.fold(cast("Lowerer", self), cond, e.test)
        if not isinstance(cond, Node):
            return self.expr(e.body if cond else e.orelse, scope)
        # a branch, as Python runs it: only the side taken is computed, so the other
        # side's NaN or error (np.sqrt(x) if x > 0 else 0.0) never reaches the gradient
        # (a np.where would give 0 * nan there)
        key = f"#ifexp{id(e)}"

        def side(branch: cst.BaseExpression) -> Callable[[Scope], None]:
            def fn(sc: Scope) -> None:
                sc.vars[key] = self.expr(branch, sc)
            return fn

        self.branch(cond, side(e.body), side(e.orelse), scope, e)
        return scope.vars.pop(key)

    def expr_BinaryOperation(self, e: cst.BinaryOperation, scope: Scope) -> Any:
        op = _BINARY.get(type(e.operator))
        logical = _LOGICAL.get(type(e.operator))
        if logical is not None:
            return self.logical(logical, self.expr(e.left, scope), self.expr(e.right, scope), e)
        if op is None:
            shifted = small_ops.binary_shift(cast("Lowerer", self), e, scope)
            if shifted is not None:
                return shifted
            raise self.fail(f"the operator {type(e.operator).__name__} is not supported", e)
        return self.binary(op, self.expr(e.left, scope), self.expr(e.right, scope), e)

    def binary(self, op: Op, a: Any, b: Any, where: cst.CSTNode) -> Any:
        paired = complex_pairs.binary(cast("Lowerer", self), op, a, b, where)  # fft family: spectra
        if paired is not NotImplemented:
            return paired
        if isinstance(a, static_numpy.StaticArray) or isinstance(b, static_numpy.StaticArray):
            folded = static_numpy.binary(cast("Lowerer", self), op, a, b, where)
            if folded is not None:
                return folded
            a, b = (static_numpy.materialize_all(cast("Lowerer", self), v, where) for v in (a, b))
        if _sequence(a) or _sequence(b):
            value = self.sequence_binary(op, a, b, where)
            if value is not None:
                return value
        if isinstance(b, str) and isinstance(a, Node) and op in (Op.EQ, Op.NE):
            # x == 'text': by type
            answer = equals_string(cast("Lowerer", self), a, op is Op.NE, where)
            if answer is not None:
                return answer
        if isinstance(a, str) or isinstance(b, str) and not isinstance(a, Node):
            return string_binary(cast("Lowerer", self), op, a, b, where)
        done = object_binary(self, op, a, b, where)  # p + q of objects built here
        if done is not NOT_OBJECTS:
            return done
        if not isinstance(a, Node) and not isinstance(b, Node):
            try:
                return run(op, np, (a, b), {})
            except Exception as exc:
                raise static_exception(cast("Lowerer", self), exc, where) from None
        if op in _ARITHMETIC and (type(a) is bool) != (type(b) is bool):
            # a static bool times a number array is that number times 1 or 0 (same values,
            # same dtype in NumPy); the array API refuses Python bools with non-bool arrays
            other = b if type(a) is bool else a
            t = other.type if isinstance(other, Node) else None
            if t is not None and t.dtype is not None and t.dtype != "bool":
                a, b = (int(v) if type(v) is bool else v for v in (a, b))
        return self.emit(op, [a, b], None, where)

    def sequence_binary(self, op: Op, a: Any, b: Any, where: cst.CSTNode) -> Any:
        """Python's meaning of ``+`` and ``*`` on lists and tuples (concatenation and
        repetition) where Python uses it; NumPy's (elementwise) where one side is an array
        (``[1.0, 2.0] + x``), as in Python; None when neither applies."""
        kinds = (_sequence(a), _sequence(b))
        static = [isinstance(v, (list, tuple)) for v in (a, b)]
        if op is Op.ADD and all(static) and type(a) is type(b):
            return a + b
        for seq, n in ((a, b), (b, a)):
            if op is Op.MUL and isinstance(seq, (list, tuple)) and isinstance(n, int) and \
                    not isinstance(n, bool):
                return a * b
        if "list" in kinds and any(isinstance(v, Node) and _sequence(v) for v in (a, b)):
            if op is Op.ADD and set(kinds) == {"list"}:
                items = [self.emit(Op.LIST, list(v), None, where) if isinstance(v, list)
                         else v for v in (a, b)]
                return self.emit(Op.LIST_CONCAT, items, None, where)
            raise self.fail(f"the operator {op.value} is not defined between a list built at "
                            "run time and this value", where, "lists concatenate with +; for"
                            " arithmetic on their items, make an array first (np.stack(xs))")
        if all(kinds) and any(isinstance(v, Node) for v in (a, b)):
            raise self.fail(f"the operator {op.value} on a tuple argument is not supported",
                            where, "index its items instead")
        return None

    def expr_UnaryOperation(self, e: cst.UnaryOperation, scope: Scope) -> Any:
        v = self.expr(e.expression, scope)
        if isinstance(v, complex_pairs.Pair):  # fft family: -z of a spectrum
            return complex_pairs.unary(cast("Lowerer", self), _UNARY_WORDS[type(e.operator)], v, e)
        if isinstance(v, static_numpy.StaticArray):
            word = {cst.Not: "not", cst.Minus: "-", cst.Plus: "+", cst.BitInvert: "~"}
            return static_numpy.unary(cast("Lowerer", self), word[type(e.operator)], v, e)
        word = {cst.Not: "not", cst.Minus: "-", cst.Plus: "+", cst.BitInvert: "~"}
        done = object_unary(self, word[type(e.operator)], v, e)
        if done is not NOT_OBJECTS:
            return done
        if isinstance(e.operator, cst.Not):
            if isinstance(v, Node):  # Python's bool: (not a) + (not b) counts to 2
                flipped = self.emit(Op.LOGICAL_NOT, [self.condition(v, e)], None, e)
                return self.emit(Op.PY_BOOL, [flipped], None, e)
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
            right = self.expr(target.comparator, scope)
            if op is None:  # in, not in, is, is not: static (or a located refusal)
                word = {cst.Is: "is", cst.IsNot: "is not", cst.In: "in",
                        cst.NotIn: "not in"}[type(target.operator)]
                part = static_calls.compare(cast("Lowerer", self), word, left, right, e)
            else:
                part = self.binary(op, left, right, e)
            result = part if result is None else unknown(  # (Python's and: an operand)
                self, self.logical_and(result, part, e))
            left = right
        return result

    def logical(self, op: Op, a: Any, b: Any, where: cst.CSTNode) -> Any:
        """``a & b`` (``|``, ``^``): Python semantics on constants, logical ops on masks."""
        if isinstance(a, static_numpy.StaticArray) or isinstance(b, static_numpy.StaticArray):
            folded = static_numpy.bitwise(cast("Lowerer", self), op, a, b, where)
            if folded is not None:
                return folded
            a, b = (static_numpy.materialize_all(cast("Lowerer", self), v, where) for v in (a, b))
        if not isinstance(a, Node) and not isinstance(b, Node):
            fn: Callable[[], Any] = {Op.LOGICAL_AND: lambda: a & b, Op.LOGICAL_OR: lambda: a | b,
                  Op.LOGICAL_XOR: lambda: a ^ b}[op]
            return fn()
        for v in (a, b):
            t = v.type if isinstance(v, Node) else None
            what = None
            if t is not None and t.kind == "array" and t.dtype not in (None, "bool"):
                what = f"{t.dtype} arrays"
            elif t is not None and t.kind in ("int", "float"):
                what = f"{t.kind}s computed at run time"  # bitwise in Python, not logical
            elif isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) \
                    and v not in (0, 1):
                what = f"the int {v} and a mask"
            if what is not None:
                sym = {Op.LOGICAL_AND: "&", Op.LOGICAL_OR: "|", Op.LOGICAL_XOR: "^"}[op]
                raise self.fail(f"`{sym}` on {what} (bitwise) is not supported", where,
                                "combine boolean masks with & | ^, e.g. (x > 0) & (x < 1)")
        return self.emit(op, [a, b], None, where)

    def logical_and(self, a: Any, b: Any, where: cst.CSTNode) -> Any:
        if not isinstance(a, Node) and not isinstance(b, Node):
            return a and b
        return self.emit(Op.LOGICAL_AND, [a, b], None, where)

    def expr_BooleanOperation(self, e: cst.BooleanOperation, scope: Scope) -> Any:
        a = self.expr(e.left, scope)
        is_and = isinstance(e.operator, cst.And)
        if not isinstance(a, Node) and (not a if is_and else a):
            return a  # short circuit on a value known at compile time
        if isinstance(a, Node) and not self.cannot_raise(e.right, scope):
            return self.short_circuit(a, is_and, e, scope)
        b = self.expr(e.right, scope)
        if not isinstance(a, Node) and not isinstance(b, Node):
            return (a and b) if is_and else (a or b)
        if type(b) is bool and b is not is_and and _truth_value(a):
            # a bool known only at run time `and False` is false either way (`or True`:
            # true), SciPy's `if any(contains_nan) and nan_policy == 'omit':`.  (The
            # both-sides op below gives a bool node too, never the operand itself.)
            return b
        if not (_truth_value(a) and (_truth_value(b) or type(b) is bool)):
            # Python gives an operand, not a bool: ``c and x or y`` is x or y, ``v or 1.0``
            # is v when v is not zero (a logical op of both gave True/False here)
            return self.operand_branch(a, is_and, lambda sc: b, e, scope)
        # bool conditions (``while err > tol and k < n``): both sides are evaluated
        op = Op.LOGICAL_AND if is_and else Op.LOGICAL_OR
        return unknown(self, self.emit(op, [self.condition(a, e), self.condition(b, e)], None, e))

    def operand_branch(self, a: Node, is_and: bool, right: Callable[[Scope], Any],
                       e: cst.BooleanOperation, scope: Scope) -> Any:
        """``a and b`` (``a or b``) as Python computes it: ``b`` where ``a`` is true (false),
        else ``a`` itself, in a runtime ``if`` on ``a``'s truth; ``right`` gives ``b`` in the
        branch that evaluates it (only there, as in Python)."""
        test = self.condition(a, e)
        if not isinstance(test, Node):  # (a 0-d constant)
            return right(scope) if test == is_and else a
        name = f"#operand{id(e)}"

        def take_right(sc: Scope) -> None:
            sc.vars[name] = right(sc)

        def take_left(sc: Scope) -> None:
            sc.vars[name] = a

        self.branch(test, take_right if is_and else take_left,
                    take_left if is_and else take_right, scope, e)
        return unknown(self, scope.vars.pop(name))

    def short_circuit(self, a: Node, is_and: bool, e: cst.BooleanOperation, scope: Scope
                      ) -> Any:
        """``a and b``/``a or b`` with ``a`` known at run time only and a ``b`` whose
        evaluation may fail where Python never evaluates it (``i < n and x[i] > 0``,
        ``best is None or v > best``): ``b`` runs in an ``if`` on ``a``, as in Python, and
        the result is the operand Python gives."""
        return self.operand_branch(a, is_and, lambda sc: self.expr(e.right, sc), e, scope)

    def cannot_raise(self, e: cst.BaseExpression, scope: Scope) -> bool:
        """An operand whose evaluation cannot fail (nor warn): names that are never None,
        number and string literals, ``None``/``True``/``False``, and comparisons, ``not``,
        ``+``, ``-``, ``*`` of these (``any(nans) and policy == "omit"`` stays one op)."""
        if isinstance(e, cst.Name) and e.value in ("None", "True", "False"):
            return True
        if isinstance(e, cst.Name):
            try:
                v = scope.lookup(e.value)  # (the operand reads it anyway)
            except Exception:  # unbound: Python's NameError, where b is evaluated
                return False
            return v is not None and not isinstance(v, (Deleted, Diverged)) and not (
                isinstance(v, Node) and (v in self.maybe_none or (
                    v.type is not None and v.type.kind in ("none", "object"))))
        if isinstance(e, (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString)):
            return True
        if isinstance(e, cst.UnaryOperation):
            return self.cannot_raise(e.expression, scope)
        if isinstance(e, cst.BinaryOperation):
            return isinstance(e.operator, (cst.Add, cst.Subtract, cst.Multiply)) and \
                self.cannot_raise(e.left, scope) and self.cannot_raise(e.right, scope)
        if isinstance(e, cst.Comparison):
            return self.cannot_raise(e.left, scope) and all(
                self.cannot_raise(c.comparator, scope) for c in e.comparisons)
        if isinstance(e, cst.BooleanOperation):
            return self.cannot_raise(e.left, scope) and self.cannot_raise(e.right, scope)
        return False

    def expr_Attribute(self, e: cst.Attribute, scope: Scope) -> Any:
        base = self.expr(e.value, scope)
        attr = e.attr.value
        if isinstance(base, Node):
            return self.array_attribute(base, attr, e)
        if isinstance(base, complex_pairs.Pair):  # fft family: z.real of a spectrum
            return complex_pairs.attribute(cast("Lowerer", self), base, attr, e)
        if isinstance(base, static_numpy.StaticArray):
            return static_numpy_calls.attribute(cast("Lowerer", self), base, attr, e)
        got = record_attribute(cast("Lowerer", self), base, attr, e)
        if got is not NOT_HANDLED:  # a property of a NamedTuple/dataclass argument
            return got
        if self.built_of(base.__self__ if isinstance(base, super) else base  # type: ignore[attr-defined]  # super's __self__: not in typeshed
                         ) is not None:
            return self.object_attribute(base, attr, e)
        try:
            return self.static_attribute(base, attr)
        except AttributeError:
            owner = getattr(base, "__name__", None) if isinstance(base, types.ModuleType) \
                else None
            what = f"module {owner!r}" if owner else f"{type(base).__name__} object"
            raise static_exception(cast("Lowerer", self),
                                   AttributeError(f"{what} has no attribute {attr!r}"),
                                   e) from None

    def array_attribute(self, x: Node, attr: str, e: cst.CSTNode) -> Any:
        kind_calls.python_attribute(cast("Lowerer", self), x, attr, e)  # s.dtype of a Python float
        t = x.type
        if t is not None and t.kind == "object":  # an opaque object: its methods run as-is
            return effects.object_attribute(cast("Lowerer", self), x, attr, e)
        if attr == "T":
            return self.emit(Op.TRANSPOSE, [x], None, e)
        if attr in ("ndim", "size", "shape") and (t is None or t.shape is None or None in t.shape):
            # of constants only
            known = static_conditions.constant_example(cast("Lowerer", self), x)
            if known is not None:
                return getattr(np.asarray(known), attr)
        if attr == "shape":
            shape = static_queries.known_shape(x)
            return shape if shape is not None else self.emit(Op.SHAPE, [x], None, e)
        if attr in ("ndim", "size") and static_queries.rank_unknown(x):
            return static_queries.runtime_size(cast("Lowerer", self), x, attr, e)
        if attr in ("ndim", "size", "dtype"):
            if t is None or t.shape is None and attr != "dtype" or t.dtype is None:
                raise self.fail(f"x.{attr} is not known when compiling without example "
                                "arguments", e, "call the gradient with arguments first")
            if attr == "ndim":
                return len(t.shape)  # type: ignore[arg-type]  # not None: refused above
            if attr == "size":
                return math.prod(t.shape)  # type: ignore[arg-type]  # not None: refused above
            return np.dtype(t.dtype)
        if attr == "real":
            # a view in NumPy: another object
            identity.same_node_new_object(cast("Lowerer", self), x)
            return x
        if attr in calls.METHODS or attr in _SPECIAL_METHODS:
            return BoundMethod(x, attr)
        # numpy-more family: x.imag of a real array, x.mT, x.compress(...), x.choose(...)
        more = numpy_more_attribute(self, x, attr, e)
        if more is not NotImplemented:
            return more
        if attr == "flags" and (t is None or t.kind == "array"):
            return layout_queries.Flags(cast("Lowerer", self), x, e)
        value = static_queries.array_attribute(cast("Lowerer", self), x, attr, e)
        if value is not NotImplemented:
            return value
        if attr in ("fill", "sort", "partition") and (t is None or t.kind == "array"):
            return inplace.InPlaceMethod(x, attr)  # lowered as a write when called
        if attr == "searchsorted" and (t is None or t.kind == "array"):
            return inplace.searchsorted_method(x)
        if attr in _IN_PLACE_METHODS and (t is None or t.kind == "array"):
            raise self.fail(f"x.{attr}() writes into the array in place; compiled code "
                            "would not see the write", e, f"use the function that returns "
                            f"a new array instead (np.{attr}(x), where NumPy has one)")
        what = "arrays have" if t is None or t.kind == "array" else \
            f"{_KIND_NAMES.get(t.kind, t.kind + ' values')} have"
        raise self.fail(f"{what} no supported attribute {attr!r}", e)

    def expr_Subscript(self, e: cst.Subscript, scope: Scope) -> Any:
        base = self.expr(e.value, scope)
        parts = [self.index_part(el, scope) for el in e.slice]
        if type(base).__name__ in ("Appender", "TupleList"):  # lists a loop builds
            index = parts[0] if len(parts) == 1 else tuple(parts)
            if type(base).__name__ == "TupleList":
                return self.tuple_list_item(base, index, e)
            return self.appended_last(base, index, scope, e)
        if len(parts) == 1 and isinstance(parts[0], tuple):
            parts = list(parts[0])  # x[idx] with a tuple idx means x[idx[0], idx[1], ...]
        if isinstance(base, complex_pairs.Pair):  # fft family: z[k] of a spectrum
            return complex_pairs.getitem(cast("Lowerer", self), base, parts, e)
        if is_concatenator(base):
            return concatenate_items(self, base, parts, e)
        if isinstance(base, static_numpy.StaticArray):
            got = static_numpy.getitem(cast("Lowerer", self), base, parts, e)
            if got is not None:
                return got
            base = static_numpy.materialize(cast("Lowerer", self), base, e)
        parts = [static_numpy.index_value(p) for p in parts]
        if isinstance(base, np.ndarray) and any(isinstance(p, Node) for p in parts):
            base = self.to_node(base, e)  # an array constant read at a runtime index
        if not isinstance(base, Node):
            if any(isinstance(p, Node) for p in parts):
                # [1, *xs][k]
                item = like_shapes.runtime_item(cast("Lowerer", self), base, parts, e)
                if item is not NotImplemented:
                    return item
                raise self.fail("indexing a constant with a runtime value is not supported",
                                e)
            idx = parts[0] if len(parts) == 1 else tuple(parts)
            getitem = getattr(type(base), "__getitem__", None)
            if isinstance(getitem, types.FunctionType) and self.built_of(base) is not None:
                return self.inline_python(getitem, [base, idx], {}, e)  # an object built here
            try:
                return base[idx]
            except Exception as exc:  # KeyError, IndexError: Python's, at the user's line
                raise static_exception(cast("Lowerer", self), exc, e) from None
        if base.type is not None and base.type.kind == "list":
            if len(parts) == 1 and isinstance(parts[0], slice):
                return self.list_slice(base, parts[0], e)
            if len(parts) != 1 or isinstance(parts[0], tuple):
                raise self.fail("lists built at run time can only be indexed with one "
                                "integer or sliced", e, "stack them first: np.stack(xs)[...]")
            return self.emit(Op.LIST_GET, [base, parts[0]], None, e)
        if base.type is not None and base.type.kind == "tuple":
            if len(parts) == 1 and isinstance(parts[0], slice) and all(
                    b is None or type(b) is int for b in (parts[0].start, parts[0].stop,
                                                          parts[0].step)):
                known = self.example(base)  # t[1:] of a runtime tuple of known length
                if isinstance(known, tuple):
                    return tuple(self.emit(Op.ITEM, [base], {"index": i}, e)
                                 for i in range(len(known))[parts[0]])
            if len(parts) != 1 or not isinstance(parts[0], int):
                raise self.fail("tuples can only be indexed with an integer", e)
            return self.emit(Op.ITEM, [base], {"index": parts[0]}, e)
        index, dyn = self.index_spec(parts, e)
        return self.emit(Op.GETITEM, [base, *dyn], {"index": index}, e)

    def list_slice(self, items: Node, s: slice, e: cst.CSTNode) -> Node:
        """``xs[a:b]`` and ``xs[a:b:-1]`` of a list built at run time (Python's slice rules)."""
        if s.step is None or (isinstance(s.step, int) and s.step == 1):
            start = 0 if s.start is None else s.start
            stop = self.emit(Op.LIST_LEN, [items], None, e) if s.stop is None else s.stop
            return self.emit(Op.LIST_SLICE, [items, start, stop], None, e)
        if isinstance(s.step, int) and s.step == -1 and s.start is None and s.stop is None:
            return self.emit(Op.LIST_REVERSE, [items], None, e)
        if s.step == -1 and all(b is None or type(b) is int for b in (s.start, s.stop)):
            # xs[a:b:-1] is reversed(xs[b + 1:a + 1]) with Python's normalisation of
            # negative bounds: a == -1 (the last item) and b == -1 (empty) are the two
            # bounds whose "+ 1" would wrap around to 0
            last: Any = s.start
            stop = self.emit(Op.LIST_LEN, [items], None, e) if last is None or last == -1 \
                else last + 1
            first: Any = s.stop
            start = 0 if first is None else (
                self.emit(Op.LIST_LEN, [items], None, e) if first == -1 else first + 1)
            part = self.emit(Op.LIST_SLICE, [items, start, stop], None, e)
            return self.emit(Op.LIST_REVERSE, [part], None, e)
        raise self.fail("lists built at run time can only be sliced with step 1 or -1 and "
                        "constant bounds", e, "stack them first: np.stack(xs)[a:b:k]")

    def index_spec(self, parts: Any, e: cst.CSTNode) -> tuple[tuple[Any, ...], list[Node]]:
        """An index as the IR's static structure plus its runtime parts (``("in", k)``)."""
        dyn: list[Node] = []

        def entry(p: Any) -> Any:
            p = static_numpy.index_value(p)  # a static array: its contents, a constant
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

        return tuple(entry(p) for p in parts), dyn

    def index_part(self, el: cst.SubscriptElement, scope: Scope) -> Any:
        s = el.slice
        if isinstance(s, cst.Index):
            return self.expr(s.value, scope)
        assert isinstance(s, cst.Slice)
        bounds = [None if b is None else self.expr(b, scope) for b in (s.lower, s.upper,
                                                                         s.step)]
        return slice(*bounds)

    def expr_Call(self, e: cst.Call, scope: Scope) -> Any:
        fn = static_calls.alias(self.expr(e.func, scope))
        if inplace.is_writer(fn):  # np.place, np.copyto, ...: a write into a named array
            return inplace.writer_call(self, fn, e, scope)
        args, kwargs = self.call_arguments(e, scope)
        if aliases.is_shares_memory(fn):
            return aliases.shares_memory_call(self, fn, args, kwargs, e, scope)
        args, kwargs = aliases.out_keyword(fn, args, kwargs)  # np.exp(x, x): out=x
        if kwargs and not numpy_keywords.KEYWORDS.isdisjoint(kwargs):
            static_numpy_writes.out_target(cast("Lowerer", self), e, kwargs, scope)
            done = numpy_keywords.keyword_call(cast("Lowerer", self), fn, args, kwargs, e, scope)
            if done is not NotImplemented:
                return done
        fn = static_numpy_writes.method_target(cast("Lowerer", self), fn, args, kwargs, e, scope)
        if isinstance(fn, inplace.InPlaceMethod):  # x.fill(v), x.sort()
            return inplace.method_call(self, fn, args, kwargs, e, scope)
        return self.call(fn, args, kwargs, e)


#: binary ops whose Python-bool operand may be an int for a number array (``x * True``)
_ARITHMETIC = frozenset({Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.FLOORDIV, Op.MOD, Op.POW})


def _truth_value(v: Any) -> bool:
    """Whether ``v`` is a runtime Python bool or 0-d NumPy bool (``any(...)``, ``x > 0``)."""
    t = v.type if isinstance(v, Node) else None
    return t is not None and (t.kind == "bool" or t.dtype == "bool" and t.shape == ())


def _sequence(v: Any) -> str | None:
    """``"list"``/``"tuple"`` for a Python list or tuple or a list or tuple node, else None."""
    if isinstance(v, (list, tuple)):
        return type(v).__name__
    if isinstance(v, Node) and v.type is not None and v.type.kind in ("list", "tuple"):
        return v.type.kind
    return None
