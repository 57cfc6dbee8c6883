"""Calls during lowering: NumPy functions, array methods, builtins, user functions.

``call_value`` decides what a call in the user's code means and emits it through the
``Lowerer``.  Calls whose arguments are all static (no argument is or holds a node) and
whose result is a scalar are computed here (``np.sqrt(2.0)``, ``len(shape)``); the rest
become nodes, ``int(x)`` and ``round(x)`` of a runtime value included (binding times:
docs/architecture.md).
"""

from __future__ import annotations

import builtins
import functools
import math
import types
from typing import TYPE_CHECKING, Any

import libcst as cst
import numpy as np

from .. import decompositions, trees
from ..decompositions import select_numpy_more
from ..derivatives import CUSTOM_VJPS
from ..errors import CompileError, NoRuleError, StAutodiffError, UnsupportedSyntaxError
from ..ir import scalar_kinds
from ..ir.abstract import Abstract, is_numpy_scalar
from ..ir.graph import Loc, Node
from ..ir.ops import OP_INFO, Op, Spelling
from ..trees_classes import make as make_record
from . import (
    calls,
    effects,
    frozen_dists,
    identity,
    layout_queries,
    like_shapes,
    runtime_raises,
    small_ops,
    static_calls,
    static_numpy,
    static_queries,
    zero_d_writes,
)
from .array_like import array_inputs, as_array_input
from .external import argument
from .index_tricks import interleaved_einsum
from .no_complex import HINT, MESSAGE, makes_complex
from .objects import opaque_class
from .static_stmts import static_exception
from .wrappers import partial_call, transparent, unwrap

if TYPE_CHECKING:
    from .lower import Lowerer

_STATIC_BUILTINS = {builtins.int, builtins.float, builtins.bool, builtins.tuple,
                    builtins.list, builtins.len, builtins.min, builtins.max, builtins.sum,
                    builtins.abs, builtins.round, builtins.divmod, builtins.range,
                    builtins.pow, builtins.slice}


def call_value(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
               e: cst.Call) -> Any:
    """Lower one call expression whose callee evaluated to ``fn``."""
    from .scope import BoundMethod, Closure, Scope  # noqa: PLC0415

    dynamic = any(isinstance(a, Node) or _has_node(a) for a in [*args, *kwargs.values()])
    if isinstance(fn, Closure):
        return lw.lower_function(fn.fn, args, kwargs, Scope(fn.scope, None), e)
    compose = getattr(fn, "st_compose", None) if isinstance(fn, types.FunctionType) else None
    if callable(compose):  # st.jvp, st.hessian(f) ... inside: see product_compose
        return _compose(lw, fn, compose, args, kwargs, e)
    if (fn is builtins.sorted or fn is builtins.max or fn is builtins.min) and \
            isinstance(kwargs.get("key"), Closure):
        return _keyed(lw, fn, args, kwargs, e)
    folded = static_calls.call(lw, fn, args, kwargs, e)  # queries, pure static calls
    if folded is not NotImplemented:
        return folded
    if isinstance(fn, BoundMethod):
        return _method(lw, fn.receiver, fn.name, args, kwargs, e)
    special = lw.call_special(fn, args, kwargs, e)  # super(), object writes (objects.py)
    if special is NotImplemented:
        special = transparent(lw, fn, args, kwargs, e)  # known wrappers (wrappers.py)
    if special is not NotImplemented:
        return special
    if fn is functools.partial:
        return partial_call(lw, args, kwargs, e)
    if fn is functools.reduce:
        return _reduce(lw, args, kwargs, e)
    if isinstance(fn, effects.OpaqueMethod):  # a method of an opaque object argument
        return effects.call_method(lw, fn, args, kwargs, e)
    if not dynamic and (_is_static_builtin(fn) or _is_scalar_math(fn)):
        if static_calls.holds_runtime_state([*args, *kwargs.values()]):
            raise lw.fail(f"{calls.callable_name(fn)}() of an object built in the function "
                          "would run the Python methods of its class (__iter__, __lt__, "
                          "...) while compiling, on attributes known only at run time",
                          e, "compute the value from the object's attributes, or give the "
                          "class a method that returns it", kind=UnsupportedSyntaxError)
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            raise static_exception(lw, exc, e) from None
    if (fn is np.vstack or fn is np.hstack) and args and isinstance(args[0], Node):
        # numpy-more family: np.vstack(x) / np.hstack(x) of one array (its rows joined)
        return _decomposed(lw, fn, select_numpy_more.stack_of_rows(fn), args, kwargs, e)
    if fn is np.ascontiguousarray or fn is np.asfortranarray:  # (layout_queries.py)
        return layout_queries.contiguous(lw, fn, args, kwargs, e)
    if fn is np.copy and isinstance(args[0] if args else None, Node) and (
            set(kwargs) <= {"order"}):
        return layout_queries.copy(lw, args[0], args[1:], kwargs, e, "np.copy", "K")
    if fn is np.array or fn is np.asarray or fn is np.asanyarray:
        return _asarray(lw, np.asarray if fn is np.asanyarray else fn, args, kwargs, e)
    if fn is builtins.len:
        if len(args) == 1 and isinstance(args[0], Node) and (
                args[0].type is None or args[0].type.kind == "object"):
            return effects.object_len(lw, args[0], e)  # a string made at run time
        return _len(lw, args, e)
    if fn in (builtins.max, builtins.min) and len(args) == 2 and not kwargs:
        return static_queries.builtin_pick(lw, fn.__name__, args[0], args[1], e)
    if fn is builtins.sum and len(args) == 1 and isinstance(args[0], (tuple, list)):
        total: Any = 0
        for v in args[0]:
            total = lw.binary(Op.ADD, total, v, e)
        return total
    if fn is builtins.float:
        return _scalar(lw, args[0], e, "float()")
    if fn is math.log and dynamic and len(args) == 2 and not kwargs:
        # math.log(x, base) is log(x) / log(base), each with its domain check, and a
        # Python division (ZeroDivisionError for base 1)
        num, den = (call_value(lw, math.log, [a], {}, e) for a in args)
        return lw.binary(Op.DIV, num, den, e)
    if fn is builtins.pow and dynamic and len(args) == 2 and not kwargs:
        return lw.binary(Op.POW, args[0], args[1], e)  # pow(a, b) is a ** b
    if fn is builtins.abs and dynamic and len(args) == 1 and not kwargs:
        return static_queries.python_result(lw, lw.emit(Op.ABS, args, None, e), args, e)
    if fn is math.hypot and dynamic and len(args) != 2 and not kwargs:
        # math.hypot(*coordinates), n-ary since Python 3.8: the length of the vector
        acc = call_value(lw, math.fabs, [args[0]], {}, e)
        for a in args[1:]:
            acc = call_value(lw, math.hypot, [acc, a], {}, e)
        return acc
    if fn is argument and len(args) == 2:  # a structured argument, rebuilt from its leaves
        lw.external.mark(args[0], f"argument {args[1]!r}")
        return args[0]
    if fn is make_record and len(args) == 3:  # a NamedTuple/dataclass argument's fields
        return make_record(*args)
    if dynamic and _is_runtime_builtin(fn) and not kwargs:
        return _runtime_builtin(lw, fn, args, e)
    if isinstance(fn, type) and issubclass(fn, np.generic) and len(args) == 1:
        if not dynamic:  # np.float32(0.5): a constant
            return fn(args[0])
        x = args[0]
        if isinstance(x, Node) and x.type is not None and x.type.kind != "array":
            x = lw.emit(Op.ASARRAY, [x], None, e)  # a Python float has no .astype
        return lw.emit(Op.ASTYPE, [x], {"dtype": np.dtype(fn).name}, e)
    retransform = getattr(fn, "generated_for", None)
    if retransform is not None:  # a compiled gradient, differentiated again
        try:  # bound as the gradient binds its arguments, in its canonical order
            flat, layout = fn.bind_call(args, kwargs)
        except TypeError as exc:
            raise lw.fail(str(exc), e, kind=CompileError) from None
        return lw.inline_python(retransform(_examples(lw, flat, e), layout), flat, {}, e)
    readable = getattr(fn, "st_readable_for", None)
    if callable(readable):  # a custom rule in generated code: read as the Python it runs
        from .call_types import effect_free  # noqa: PLC0415

        source = readable(_examples(lw, args, e))
        if source is None or not effect_free(source):
            why = "is not Python the compiler reads" if source is None else \
                "has effects (the compiler reads code, it does not run it)"
            raise NoRuleError(f"{calls.callable_name(fn)} (a derivative rule) {why}, so it "
                              "cannot be differentiated again", lw.loc(e),
                              "write the rule in Python with NumPy, without effects")
        return lw.inline_python(source, args, kwargs, e)
    like = like_shapes.like_call(lw, fn, args, kwargs, e)  # np.zeros_like(a, shape=s)
    if like is not NotImplemented:
        return like
    op = None if _registered(fn) else calls.FUNCTIONS.get(id(fn)) or calls.special_op(fn)
    if op is Op.EINSUM and args and not isinstance(args[0], str):
        args = interleaved_einsum(lw, args, e)  # einsum(a, [0, 1], b, [1, 2], [0, 2])
    if op in (Op.SCATTER_ADD, Op.INDEX_ADD, Op.SETITEM) and len(args) == 3 and \
            isinstance(args[2], tuple):
        spec, dyn = lw.index_spec(args[2], e)  # rt.scatter_add(shape, g, index) in our code
        return lw.emit(op, [args[0], args[1], *dyn], {"index": spec}, e)
    if op is not None:
        if not dynamic and _all_scalar(args) and op not in _CREATION:
            try:
                return fn(*args, **kwargs)
            except Exception as exc:
                raise static_exception(lw, exc, e) from None
        if _is_scalar_math(fn):  # math converts its arguments to Python floats first:
            args = [_python_float_arg(lw, a, e) for a in args]  # float32 in double
        elif _operator_of_python_numbers(op, args):
            args = [lw.emit(Op.ASARRAY, [a], None, e) if isinstance(a, Node) else a
                    for a in args]
        out = emit_call(lw, op, args, kwargs, e, calls.callable_name(fn))
        if _is_scalar_math(fn):  # math.sqrt(-1) raises ValueError; np.sqrt does not
            runtime_raises.mark_domain_errors(out)
            if isinstance(out, Node) and not kwargs:
                effects.emit_math_check(lw, fn.__name__, out, args, e)
            t = out.type if isinstance(out, Node) else None
            if t is not None and t.shape == () and t.dtype is not None and \
                    np.dtype(t.dtype).kind == "f":
                # math's result is a Python float, weak in NumPy's promotion; floor,
                # ceil and trunc give Python ints
                to_int = fn.__name__ in ("floor", "ceil", "trunc")
                out = lw.emit(Op.PY_INT if to_int else Op.PY_FLOAT, [out], None, e)
        return out
    missing = _missing_rule(fn)
    if missing is not None:  # st.custom_jvp / st.custom_vjp before defjvp / defvjp
        raise NoRuleError(missing, lw.loc(e), "a custom function's derivatives come only "
                          "from its rule (JAX's convention)")
    if _registered(fn):  # register_vjp / custom_vjp / custom_jvp: call it, use the rule
        if kwargs:
            raise lw.fail(f"pass the arguments of {calls.callable_name(fn)} positionally "
                          "(it has a registered VJP)", e, kind=CompileError)
        from .call_types import emit_call as emit_registered  # noqa: PLC0415

        return emit_registered(lw, fn, args, e)  # typed without calling it
    composed = decompositions.lookup(fn)  # np.diff, np.quantile …: NumPy code we read
    if composed is not None:
        return _decomposed(lw, fn, composed, args, kwargs, e)
    passed = effects.passthrough(lw, fn, args, kwargs, e)  # print, a draw, inactive fns
    if passed is not NotImplemented:
        return passed
    if isinstance(fn, types.FunctionType):
        return lw.inline_python(fn, args, kwargs, e)
    if isinstance(fn, types.MethodType) and isinstance(fn.__func__, types.FunctionType):
        return lw.inline_python(fn.__func__, [fn.__self__, *args], kwargs, e)  # obj.method
    name = calls.callable_name(fn)
    if makes_complex(fn):
        raise lw.fail(f"{MESSAGE}: {name} makes complex values", e, HINT)
    built = frozen_dists.construct(lw, fn, args, kwargs, e)  # a SciPy distribution copy
    if built is not NotImplemented:
        return built
    if isinstance(fn, type) and not opaque_class(fn):  # building an object (objects.py)
        return lw.construct(fn, args, kwargs, e)
    wrapped = unwrap(lw, fn, args, kwargs, e)  # wrappers, callable objects (wrappers.py)
    if wrapped is not NotImplemented:
        return wrapped
    # a C or builtin callable (a class made by C code included): passed through unless it
    # could write into a runtime array (then refused); activity decides whether its
    # result needs a derivative
    return effects.unknown_call(lw, fn, args, kwargs, e, _spelled(lw, e), name)


def _float_of_nd() -> bool:
    """Whether this NumPy converts a one-element array of rank 1 or more with float()
    (a DeprecationWarning until 2.4, a TypeError since)."""
    import warnings  # noqa: PLC0415

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            float(np.ones((1, 1)))
        except TypeError:
            return False
    return True


_FLOAT_OF_ND = _float_of_nd()


def _scalar(lw: Lowerer, x: Any, e: cst.CSTNode, what: str) -> Any:
    """``float(x)`` or ``x.item()``: the one element of ``x`` as a scalar.  An array of
    rank one or more is reshaped to ``()`` so that it broadcasts as a scalar would (a
    ``(1, 1)`` result would silently turn ``float(x) + y`` into a matrix); an array known
    to hold more than one element is Python's ``TypeError``/``ValueError``, located."""
    t = x.type if isinstance(x, Node) else None
    if t is None or t.shape is None or len(t.shape) == 0:
        return _python_number(lw, x, e, what)
    if what == "float()" and not _FLOAT_OF_ND:
        raise lw.fail(f"float() of an array of rank {len(t.shape)}: NumPy {np.__version__} "
                      "converts only 0-dimensional arrays", e, "use x.item() or index "
                      "the element", kind=CompileError)
    if any(isinstance(d, int) and d != 1 for d in t.shape):
        raise lw.fail(f"{what} needs an array of one element; this one has shape "
                      f"{tuple(t.shape)}", e, kind=CompileError)
    return _python_number(lw, emit_call(lw, Op.RESHAPE, [x, ()], {}, e, what), e, what)


def _python_number(lw: Lowerer, x: Any, e: cst.CSTNode, what: str) -> Any:
    """``x`` in the precision of the Python number ``float(x)``/``x.item()`` gives: a
    double.  ``float(i)`` of an int prints ``0.0``, and ``float(x32[0]) * 0.1`` computes in
    float64, so an int, bool or float32 value is cast (``x.item()`` keeps ints and bools)."""
    t = x.type if isinstance(x, Node) else None
    if t is None or t.kind == "float" or (t.dtype is None and t.kind not in ("int", "bool")):
        return x  # (already a Python float, or nothing known to convert)
    if t.dtype is None:  # a Python int or bool: Python's float, as int * 1.0 rounds it
        return lw.emit(Op.MUL, [x, 1.0], None, e) if what == "float()" else x
    kind = np.dtype(t.dtype).kind
    if what != "float()" and kind in "iu":  # x.item() of an integer: a Python int
        return lw.emit(Op.PY_INT, [x], None, e)
    if kind == "c" or (what != "float()" and kind != "f"):
        return x
    if kind == "f":  # a Python float: weak in NumPy's promotion (float(s) * x32 is float32)
        return lw.emit(Op.PY_FLOAT, [x], None, e)
    return emit_call(lw, Op.ASTYPE, [x], {"dtype": np.float64}, e, what)


def _decomposed(lw: Lowerer, fn: Any, select: Any, args: list[Any], kwargs: dict[str, Any],
                e: cst.Call) -> Any:
    """A NumPy function written with ops that have rules (``decompositions``)."""
    try:
        # selectors check static arguments as NumPy values (static_numpy: plain ndarrays)
        impl, impl_args = select(*static_numpy.unwrap(args), **static_numpy.unwrap(kwargs))
    except TypeError as exc:  # Unsupported, or a call NumPy itself would refuse
        raise lw.fail(f"{calls.callable_name(fn)}: {exc}", e, kind=CompileError) from None
    out = lw.inline_python(impl, list(impl_args), {}, e)
    kind = decompositions.result_kind(fn)
    return out if kind is None else _scalar_result(lw, out, kind, e)


def _scalar_result(lw: Lowerer, out: Any, kind: str, e: cst.Call) -> Any:
    """A decomposition's 0-d array results (a tuple's items too) as the NumPy scalars
    (``x[()]``) or Python floats its library returns (``np.median(x)`` is ``np.float64``:
    a ``float``, immutable, printed as a number)."""
    if isinstance(out, tuple):
        return tuple(_scalar_result(lw, o, kind, e) for o in out)
    t = out.type if isinstance(out, Node) else None
    if t is None or t.kind != "array" or t.shape != () or (
            kind == "numpy" and is_numpy_scalar(lw.example(out))):
        return out
    if kind == "python":
        return lw.emit(Op.PY_FLOAT, [out], None, e)
    return lw.emit(Op.GETITEM, [out], {"index": ()}, e)


def _compose(lw: Lowerer, fn: Any, compose: Any, args: list[Any], kwargs: dict[str, Any],
             e: cst.Call) -> Any:
    """A derivative product called in differentiated code: the readable Python it builds
    from generated code, inlined (``product_compose``); what it does not support is an
    error located at this call."""
    from ..product_compose import ComposeRefusal, Context  # noqa: PLC0415  (builds on api)
    from .scope import Closure  # noqa: PLC0415

    name = calls.callable_name(fn)

    def example(v: Any) -> Any:
        """``v`` with each runtime leaf replaced by its example value (trees' walk)."""
        leaves, spec = trees.flatten(v)
        if any(isinstance(x, Closure) for x in leaves):
            raise ComposeRefusal(f"{name} of a function defined inside the differentiated "
                                 "function is not supported", "define that function at "
                                 "module level (or outside this one)")
        return trees.unflatten(spec, [_examples(lw, [x], e)[0] if isinstance(x, Node) else
                                      static_numpy.unwrap([x])[0] for x in leaves])

    ctx = Context()
    ctx.example = example
    ctx.inline = lambda f, a: lw.inline_python(f, a, {}, e)
    here: Loc | None = lw.loc(e)
    if here is not None and here.file.startswith("<st_autodiff"):
        # a product differentiated at the top level (st.jacfwd(st.hessian(f))): no line
        # of the user's is compiled, and the traceback shows their call
        here = next((s for s in reversed(lw.user_sites)
                     if not s.file.startswith("<st_autodiff")), None)
    try:
        return compose(ctx, args, kwargs)
    except ComposeRefusal as exc:
        raise CompileError(str(exc), here, exc.hint) from None
    except CompileError as exc:
        if exc.loc is None and here is not None:
            exc.loc = here
            exc.rerender()
        raise
    except (TypeError, ValueError, NotImplementedError, StAutodiffError) as exc:
        raise CompileError(f"{name}: {exc}", here) from None


def _examples(lw: Lowerer, args: list[Any], e: cst.Call) -> list[Any]:
    """The example values of call arguments (to specialise a compiled gradient)."""
    out = []
    for a in args:
        if isinstance(a, Node):
            if a in lw.b.values:
                out.append(lw.b.values[a])
            elif a.type is not None and a.type.kind in ("float", "int", "bool") or (
                    a.type is not None and a.type.shape is not None and
                    a.type.dtype is not None):
                out.append(Abstract(a.type))  # (compiled without example values: typed)
            else:
                raise lw.fail("differentiating a compiled gradient needs example arguments",
                              e, kind=CompileError)
        else:
            out.append(a)
    return out


def _spelled(lw: Lowerer, e: cst.Call) -> str:
    """The callee as the user wrote it (``np.fft.fft``, ``scale``)."""
    return lw.fn.module.tree.code_for_node(e.func).strip()


def _missing_rule(fn: Any) -> str | None:
    """Why a custom function (``st.custom_jvp``, ``st.custom_vjp``) cannot be
    differentiated yet: its ``st_missing_rule``, a message naming it; else None."""
    if isinstance(fn, types.FunctionType):
        return None
    missing = getattr(fn, "st_missing_rule", None)
    return missing if isinstance(missing, str) else None


def _registered(fn: Any) -> bool:
    try:
        return fn in CUSTOM_VJPS
    except TypeError:  # unhashable: not registered
        return False


#: builtins and ``math`` functions that, on a value computed from the arguments, become
#: nodes (never folded from the example): int(x) of a float argument is a runtime value.
_RUNTIME_BUILTINS = {builtins.int, builtins.round, builtins.bool, builtins.divmod,
                     builtins.tuple, builtins.list, math.isfinite, math.isnan, math.isinf}


def _runtime_builtin(lw: Lowerer, fn: Any, args: list[Any], e: cst.Call) -> Any:
    """``int(x)``, ``round(x)``, ``bool(x)``, ``divmod(x, y)``... on runtime values: the
    same ops NumPy runs (integer-valued ones carry no gradient, by design)."""
    if fn in (builtins.tuple, builtins.list) and len(args) == 1 and \
            isinstance(args[0], (tuple, list)):
        return fn(args[0])
    if fn in (builtins.tuple, builtins.list) and len(args) == 1:
        rows = small_ops.rows_of(lw, args[0], e)  # the items iterating it gives
        if rows is not None:
            return fn(rows)
    if fn is builtins.divmod and len(args) == 2:
        return (lw.emit(Op.FLOORDIV, args, None, e), lw.emit(Op.MOD, args, None, e))
    if fn is builtins.bool and len(args) == 1:
        t = args[0].type if isinstance(args[0], Node) else None
        if t is not None and t.kind == "bool":
            return args[0]
        return lw.emit(Op.PY_BOOL, args, None, e)  # Python's bool (ambiguity raises too)
    checks = {math.isfinite: Op.ISFINITE, math.isnan: Op.ISNAN, math.isinf: Op.ISINF}
    if fn in checks and len(args) == 1:
        return lw.emit(checks[fn], args, None, e)
    if fn in (builtins.int, builtins.round) and len(args) == 1:
        t = args[0].type if isinstance(args[0], Node) else None
        if t is not None and t.kind in ("int", "bool") and fn is builtins.int:
            return args[0] if t.kind == "int" else lw.emit(Op.PY_INT, args, None, e)
        x = lw.emit(Op.ROUND, args, None, e) if fn is builtins.round else args[0]
        # a Python int (int(nan) raises ValueError, int(inf) OverflowError, as Python's)
        return lw.emit(Op.PY_INT, [x], None, e)
    if fn is builtins.round and len(args) == 2:
        digits = lw.static(args[1], "round(x, ndigits): ndigits", e)
        return static_queries.python_result(
            lw, lw.emit(Op.ROUND, [args[0]], {"decimals": digits}, e), [args[0]], e)
    raise lw.fail(f"{calls.callable_name(fn)}() with these arguments is not supported on "
                  "values computed from the arguments", e, kind=CompileError)


_CREATION = {Op.ZEROS, Op.ONES, Op.FULL, Op.EYE, Op.ARANGE, Op.LINSPACE, Op.ASARRAY}


def _is_runtime_builtin(fn: Any) -> bool:
    try:
        return fn in _RUNTIME_BUILTINS
    except TypeError:  # unhashable values are not builtins
        return False


def _is_static_builtin(fn: Any) -> bool:
    try:
        return fn in _STATIC_BUILTINS
    except TypeError:  # unhashable values are not builtins
        return False


def _keyed(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any], e: cst.Call
           ) -> Any:
    """``sorted``/``max``/``min`` with a ``key`` that is a lambda or an inner ``def``: the key
    is lowered for each item (it must come out known while compiling: the order is then
    Python's, stable and first-wins on ties); the items themselves may be runtime values.
    Python's builtin would be handed the compiler's closure object otherwise."""
    kwargs = dict(kwargs)
    key = kwargs.pop("key")
    reverse = kwargs.pop("reverse", False) if fn is builtins.sorted else False
    missing = object()
    default = kwargs.pop("default", missing) if fn is not builtins.sorted else missing
    if kwargs or not isinstance(reverse, bool) or not args or \
            fn is builtins.sorted and len(args) != 1:
        raise lw.fail(f"{fn.__name__}() with these arguments and a key function is not "
                      "supported", e, kind=CompileError)
    seq: Any = args if len(args) > 1 else args[0]
    items = small_ops.rows_of(lw, seq, e) if isinstance(seq, Node) else \
        small_ops.as_items(seq)
    if isinstance(items, (range, dict, str)):
        items = list(items)
    if not isinstance(items, (list, tuple)):
        raise lw.fail(f"{fn.__name__}() with a key function over a sequence whose length is "
                      "known only at run time is not supported", e, kind=CompileError)
    items = list(items)
    keys = [lw.call(key, [item], {}, e) for item in items]
    if any(isinstance(k, Node) or _has_node(k) for k in keys):
        raise lw.fail(f"{fn.__name__}() with a key computed at run time is not supported: "
                      "the order would depend on the data", e, "sort an array with "
                      "np.argsort and index it", kind=CompileError)
    try:
        if fn is builtins.sorted:
            order = sorted(range(len(items)), key=keys.__getitem__, reverse=reverse)
            return [items[i] for i in order]
        if not items:
            if default is missing:
                raise ValueError(f"{fn.__name__}() iterable argument is empty")
            return default
        return items[fn(range(len(items)), key=keys.__getitem__)]
    except Exception as exc:
        raise static_exception(lw, exc, e) from None


def _reduce(lw: Lowerer, args: list[Any], kwargs: dict[str, Any], e: cst.Call) -> Any:
    """``functools.reduce(f, items[, initial])``: the calls of ``f`` Python makes, one
    after the other, where the number of items is known while compiling (a list or tuple,
    a range, an array's rows)."""
    if "initial" in kwargs and len(args) == 2:  # (Python 3.14 names it)
        args = [*args, kwargs["initial"]]
        kwargs = {k: v for k, v in kwargs.items() if k != "initial"}
    if kwargs or not 2 <= len(args) <= 3:
        raise static_exception(lw, TypeError("reduce() takes 2 or 3 positional arguments"),
                               e)
    fn, seq = args[0], args[1]
    items = small_ops.rows_of(lw, seq, e) if isinstance(seq, Node) else \
        small_ops.as_items(seq)
    if isinstance(items, range):
        items = list(items)
    if not isinstance(items, (list, tuple)):
        raise lw.fail("functools.reduce over a sequence whose length is known only at run "
                      "time is not supported", e, "reduce a list or tuple, or an array whose "
                      "shape is known", kind=CompileError)
    rest = list(items)
    if len(args) == 3:
        acc = args[2]
    elif not rest:
        raise static_exception(lw, TypeError(
            "reduce() of empty iterable with no initial value"), e)
    else:
        acc, rest = rest[0], rest[1:]
    for item in rest:
        acc = lw.call(fn, [acc, item], {}, e)
    return acc


def _is_scalar_math(fn: Any) -> bool:
    return getattr(fn, "__module__", None) == "math"


def _python_float_arg(lw: Lowerer, a: Any, e: cst.CSTNode) -> Any:
    """A float16/float32 scalar argument of a ``math`` function as the Python float
    ``math`` computes with (``math.exp(np.float32(x))`` is exp in double precision)."""
    t = a.type if isinstance(a, Node) else None
    if t is not None and t.kind == "array" and t.shape == () and \
            t.dtype in ("float16", "float32"):
        return lw.emit(Op.PY_FLOAT, [a], None, e)
    return a


def _has_node(v: Any) -> bool:
    return isinstance(v, (tuple, list)) and any(isinstance(x, Node) or _has_node(x) for x in v)


def _all_scalar(args: list[Any]) -> bool:
    return all(isinstance(a, (int, float, bool, np.generic)) for a in args)


def _operator_of_python_numbers(op: Op, args: list[Any]) -> bool:
    """Whether ``np.add(a, b)``-like calls of an op written with Python's operators
    (``a + b``) get only Python numbers, one of them a runtime value.  NumPy turns them
    into NumPy scalars first, so its semantics hold, not Python's: ``np.power(-1.0, 0.5)``
    is nan (Python: a complex number), ``np.divide(1.0, 0.0)`` inf (Python: an error),
    and the result is a NumPy scalar.  The caller makes the runtime operands 0-d arrays,
    which gives exactly that (a ufunc of 0-d arrays returns a NumPy scalar), in the
    derivative's code too (``np.divide(a, 0.0)``'s gradient is inf, not an error)."""
    def python_number(a: Any) -> bool:
        if isinstance(a, Node):
            return a.type is not None and a.type.kind in ("float", "int", "bool")
        return isinstance(a, (int, float))

    return OP_INFO[op].spelling in (Spelling.INFIX, Spelling.PREFIX) and any(
        isinstance(a, Node) for a in args) and all(python_number(a) for a in args)


def emit_call(lw: Lowerer, op: Op, args: list[Any], kwargs: dict[str, Any], e: cst.CSTNode,
              what: str) -> Any:
    """Bind arguments to ``op``'s signature and emit it (tuples of items for multi ops)."""
    kwargs = dict(kwargs)
    if op is Op.WHERE and len(args) == 1 and not kwargs:  # np.where(c) is np.nonzero(c)
        op = Op.NONZERO
    if op is Op.ZETA and len(args) < 2 and kwargs.get("q") is None:  # special family:
        op, args = Op.RIEMANN_ZETA, args[:1]  # scipy.special.zeta(x) without q
        kwargs.pop("q", None)
    if op is Op.PAD:
        mode = kwargs.pop("mode", "constant")
        if mode != "constant":
            raise lw.fail(f"np.pad(mode={mode!r}) is not supported; only mode='constant'", e)
    if op is Op.ARANGE:
        args = _arange_args(args, kwargs)
        kwargs = {k: v for k, v in kwargs.items() if k == "dtype"}
    if op is Op.CLIP:  # NumPy 2 lets either bound be left out: x.clip(min=0.0)
        given = {calls.KEYWORD_ALIASES.get(k, k) for k in kwargs}
        for bound in ("a_min", "a_max")[max(len(args) - 1, 0):]:
            if bound not in given:
                kwargs[bound] = None
    try:
        inputs, params = calls.bind(op, args, kwargs, what)
    except TypeError as exc:
        raise lw.fail(str(exc), e, kind=CompileError) from None
    params = {k: lw.static(v, f"argument {k!r} of {what}", e) for k, v in params.items()}
    if "dtype" in params:
        params["dtype"] = calls.dtype_name(params["dtype"])
    inputs = array_inputs(lw, op, inputs, e)  # np.sin((x, y)): the tuple's rows stacked
    if op is Op.CLIP:
        inputs = [inputs[0]] + [(-math.inf if i == 1 else math.inf) if v is None else v
                                for i, v in enumerate(inputs[1:], 1)]
    node = lw.emit(op, inputs, params, e)
    if not OP_INFO[op].multi:
        return node
    n = _multi_count(op, node, params)
    return tuple(lw.emit(Op.ITEM, [node], {"index": i}, e) for i in range(n))


def _arange_args(args: list[Any], kwargs: dict[str, Any]) -> list[Any]:
    start, stop, step = kwargs.get("start"), kwargs.get("stop"), kwargs.get("step")
    pos = list(args)
    if len(pos) == 1 and stop is None:
        return [0, pos[0], 1 if step is None else step]
    pos += [None] * (3 - len(pos))
    return [pos[0] if start is None else start, pos[1] if stop is None else stop,
            (pos[2] if pos[2] is not None else 1) if step is None else step]


def _multi_count(op: Op, node: Node, params: dict[str, Any]) -> int:
    if op in (Op.SLOGDET, Op.EIGH, Op.SVD, Op.QR, Op.EIG, Op.LU,  # Op.QR ...: linalg family
              Op.FFT_C2C, Op.FFT_R2C, Op.CMUL, Op.CDIV):  # (fft family: pairs)
        return 3 if op in (Op.SVD, Op.LU) else 2
    if op is Op.SPLIT:
        ios = params.get("indices_or_sections", 2)
        return ios if isinstance(ios, int) else len(ios) + 1
    x = node.inputs[0].type
    if x is None or x.ndim is None:
        raise CompileError(f"{op.value} needs the rank of its input; call with arguments "
                           "first", node.loc)
    return x.ndim


_ASARRAY_KEYWORDS = ("dtype", "copy", "ndmin", "order", "subok")


def _asarray(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
             e: cst.Call) -> Any:
    """``np.array(value, dtype, copy=..., ndmin=...)`` and ``np.asarray``: a cast, then
    leading axes up to ``ndmin``.  ``copy=True`` (``np.array``'s default) makes a copy, which
    the function may then write into in place; ``order`` only lays memory out; anything else
    (``like``, ``device``) is refused with the call's location; ``subok`` changes nothing
    either (the values here are plain ndarrays).  ``np.asanyarray`` is ``np.asarray``."""
    what = "np.array" if fn is np.array else "np.asarray"
    names = ("object", *_ASARRAY_KEYWORDS[: 3 if fn is np.array else 1])
    if len(args) > len(names):
        raise lw.fail(f"{what} got {len(args)} positional arguments, more than it takes",
                      e, kind=CompileError)
    bound = dict(zip(names, args))
    for key, v in kwargs.items():
        if key not in _ASARRAY_KEYWORDS or (fn is np.asarray and key in ("ndmin", "subok")):
            raise lw.fail(f"{what} got an unsupported keyword argument {key!r} "
                          f"(supported: {', '.join(n for n in names[1:] + ('order',))})",
                          e, kind=CompileError)
        if key in bound:
            raise lw.fail(f"{what} got multiple values for argument {key!r}", e,
                          kind=CompileError)
        bound[key] = v
    if "object" not in bound:
        raise lw.fail(f"{what}() needs a value", e, kind=CompileError)
    value = as_array_input(lw, bound["object"], e)  # np.asarray((x, y)): stacked rows
    dtype = calls.dtype_name(lw.static(bound.get("dtype"), "dtype", e))
    ndmin = lw.static(bound.get("ndmin", 0), "ndmin", e)
    order = lw.static(bound.get("order"), "order", e)
    copy = lw.static(bound.get("copy", fn is np.array), "copy", e)
    lw.static(bound.get("subok"), "subok", e)  # values here are plain ndarrays: no subclass
    if not isinstance(ndmin, int) or isinstance(ndmin, bool):
        raise lw.fail(f"{what}(ndmin=...) must be an int, got {ndmin!r}", e,
                      kind=CompileError)
    if order not in (None, "K", "A", "C", "F", "k", "a", "c", "f"):  # as NumPy, any case
        raise lw.fail(f"{what}(order={order!r}) is not a valid order", e, kind=CompileError)
    if not isinstance(value, Node) and not _has_node(value):
        return lw.to_node(np.array(value, dtype=dtype, ndmin=ndmin), e)
    node = lw.to_node(list(value) if isinstance(value, tuple) else value, e)  # rows, as
    if dtype is not None:  # NumPy reads a tuple as it reads a list
        if node.type is not None and node.type.kind in ("int", "float", "bool"):
            node = lw.emit(Op.ASARRAY, [node], None, e)  # a Python number has no .astype
        node = lw.emit(Op.ASTYPE, [node], {"dtype": dtype}, e)
        scalar_kinds.unknown(lw, node)  # not s.astype(d): an ndarray (mark_ndarray below)
    elif not isinstance(value, (list, tuple)):
        # np.array copies by default: a fresh array the function may write into
        node = lw.emit(Op.COPY if copy is True else Op.ASARRAY, [node], None, e)
        if copy is True:  # a new ndarray (0-d too): writeable, aligned
            layout_queries.new_array(lw, node)
    laid_out = layout_queries.ordered(lw, value, node, order, e, what)  # (its layout)
    if (fn is not np.array or bound.get("copy", True) is not True) and identity.ndarray_of(
            value, dtype) and laid_out:
        # np.asarray(x) of an ndarray is x itself (where it is laid out as `order` asks)
        identity.same_object(lw, value, node)
    ndim = None if node.type is None else node.type.ndim
    if ndmin > 0 and ndim is None:
        raise lw.fail(f"{what}(ndmin={ndmin}) needs the rank of its value; call with "
                      "example arguments first", e, kind=CompileError)
    if ndim is not None and ndim < ndmin:
        node = lw.emit(Op.EXPAND_DIMS, [node], {"axis": tuple(range(ndmin - ndim))}, e)
    if node is value and node.type is not None and node.type.kind == "array" and \
            node.type.shape == ():  # a cast folded away: the input may be a NumPy scalar
        node = lw.emit(Op.ASARRAY, [node], None, e)
    return zero_d_writes.mark_ndarray(lw, node)  # an ndarray, even of a NumPy scalar


def _len(lw: Lowerer, args: list[Any], e: cst.Call) -> Any:
    x = args[0]
    if isinstance(x, (tuple, list)):
        return len(x)
    shape = lw.emit(Op.SHAPE, [x], None, e)
    if isinstance(shape, Node) and shape.op is Op.CONST:
        return shape.param("value")[0]
    return lw.emit(Op.ITEM, [shape], {"index": 0}, e)


def _namespace_of(x: Any, *args: Any, **kwargs: Any) -> Any:
    """``x.__array_namespace__(...)``: asked of each type a runtime value may have (a
    Python float has none: Python's AttributeError, located)."""
    return x.__array_namespace__(*args, **kwargs)


def array_method(lw: Lowerer, value: np.ndarray[Any, Any], name: str, args: list[Any],
                 kwargs: dict[str, Any], e: cst.Call) -> Any:
    """``a.name(...)`` of an array known when compiling (``np.squeeze(0.7).astype(float)``
    in library code): the method's op on the array as a constant; NotImplemented for
    methods without one."""
    if name not in calls.METHODS and name not in ("reshape", "transpose", "astype",
                                                   "item", "conj", "conjugate", "__array__"):
        return NotImplemented
    return _method(lw, lw.to_node(value, e), name, args, kwargs, e)


def _method(lw: Lowerer, x: Node, name: str, args: list[Any], kwargs: dict[str, Any],
            e: cst.Call) -> Any:
    """``x.name(*args, **kwargs)`` on an array value."""
    what = f"ndarray.{name}"
    if name == "__array_namespace__":  # the array API namespace: of the type alone
        if getattr(lw, "foreign_arrays", False):
            # (backends: code is compiled as NumPy's and runs on the inputs' namespace,
            # the generated code's ``xp``; so the namespace it reads is NumPy's here)
            return np
        return static_queries.query(lw, _namespace_of, "x.__array_namespace__",
                                    [x, *args], kwargs, e, "type")
    if name == "__array__":  # the array itself (a NumPy scalar: a 0-d array), as asarray
        if set(kwargs) - {"dtype"} or len(args) > 1:
            raise lw.fail("x.__array__() with copy= is not supported", e,
                          "use np.asarray(x) or np.array(x)")
        return lw.call(np.asarray, [x, *args], kwargs, e)
    if name == "reshape":
        if "order" in kwargs:
            raise lw.fail("reshape(order=...) is not supported", e)
        shape = args[0] if len(args) == 1 else tuple(args)
        return emit_call(lw, Op.RESHAPE, [x, shape], kwargs, e, what)
    if name == "transpose":
        axes = None if not args else (args[0] if len(args) == 1 else tuple(args))
        return emit_call(lw, Op.TRANSPOSE, [x], {"axes": axes} if axes is not None else {},
                         e, what)
    if name == "astype":
        dtype = calls.dtype_name(lw.static(args[0] if args else kwargs.get("dtype"),
                                           "dtype", e))
        node = lw.emit(Op.ASTYPE, [x], {"dtype": dtype}, e)
        if kwargs.get("copy", True) is False and identity.ndarray_of(x, dtype):
            identity.same_object(lw, x, node)  # astype(x.dtype, copy=False) is x itself
        return node
    if name == "item" and not args and not kwargs:
        return _scalar(lw, x, e, "item()")
    if name in ("conj", "conjugate"):
        return x
    if name == "copy":  # a new array laid out in `order` (layout_queries.py)
        return layout_queries.copy(lw, x, args, kwargs, e, what)
    if name == "tolist":
        raise lw.fail("tolist() leaves NumPy; it cannot be differentiated", e)
    op = calls.METHODS[name]
    node = emit_call(lw, op, [x, *args], kwargs, e, what)
    return layout_queries.new_array(lw, node) if name == "flatten" else node
