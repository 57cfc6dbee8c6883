"""Type queries of runtime values, answered while compiling (design/staging.md §2.1 4, 6).

``isinstance``, ``hasattr``, ``type``, ``np.ndim``, ``np.finfo`` ... of a runtime value are
computed on *stand-ins*: concrete values of the same Python type, dtype and shape
(zero-strided, O(1) memory).  Only the arguments of the differentiated function are keyed
on whether they are a Python number, a NumPy scalar or a 0-d array; for any other 0-d value
the query runs on each type it may have and must agree, else it is refused at the user's
line: never a guess.  Also here: shapes of typed values as tuples, ``np.ravel(order=...)``
and ``max``/``min``/``sum`` of one runtime array or tuple.
"""

from __future__ import annotations

import builtins
import inspect
import itertools
import math
from typing import TYPE_CHECKING, Any, cast

import libcst as cst
import numpy as np

from ..errors import CompileError
from ..ir.graph import Node
from ..ir.ops import Op
from ..ir.scalar_kinds import ARRAY, NUMPY, PYTHON, exact_kind
from ..ir.types import type_module
from . import layout_queries
from .zero_d_writes import marked_ndarray, zero_d_kind

if TYPE_CHECKING:
    from .lower import Lowerer

_NEEDS_EXAMPLES = "call the gradient with arguments first (types come from them)"

#: queries whose answer follows from a value's Python type alone
TYPE_ONLY: dict[Any, str] = {builtins.isinstance: "isinstance", builtins.type: "type",
                             builtins.callable: "callable", builtins.issubclass: "issubclass",
                             np.isscalar: "np.isscalar",
                             inspect.getattr_static: "inspect.getattr_static"}
#: queries that also read the dtype
DTYPE: dict[Any, str] = {np.result_type: "np.result_type", np.iscomplexobj: "np.iscomplexobj",
                         np.isrealobj: "np.isrealobj", np.issubdtype: "np.issubdtype",
                         np.finfo: "np.finfo", np.iinfo: "np.iinfo", np.dtype: "np.dtype",
                         np.can_cast: "np.can_cast", np.promote_types: "np.promote_types"}
#: queries that also read the shape
SHAPE: dict[Any, str] = {np.ndim: "np.ndim", np.shape: "np.shape", np.size: "np.size",
                         np.iterable: "np.iterable"}


#: array_api_compat's queries, in any vendored copy (SciPy's, scikit-learn's): they read
#: their arguments' Python types (and dtypes, SciPy's checks), never the data, and answer
#: alike for a Python number, a NumPy scalar and a 0-d array wherever NumPy's namespace is
#: the answer, so SciPy 1.18's ``apply_where(den != 0, ...)`` on computed values compiles
#: (the ``type(x)`` inside them alone would tell the three apart)
_COMPAT_QUERIES = frozenset({
    "array_namespace", "is_numpy_array", "is_cupy_array", "is_torch_array", "is_dask_array",
    "is_jax_array", "is_pydata_sparse_array", "is_ndonnx_array", "is_array_api_obj",
    "is_lazy_array"})


def _compat_query(fn: Any) -> str | None:
    """``fn``'s name where it is one of array_api_compat's type queries, else None."""
    name = getattr(fn, "__name__", None)
    module = getattr(fn, "__module__", None)
    if not isinstance(name, str) or name not in _COMPAT_QUERIES or not isinstance(module, str):
        return None
    if module.endswith("array_api_compat.common._helpers") or (
            module.endswith("._lib._array_api") and name == "array_namespace"):
        return name
    return None


def _lookup(table: dict[Any, str], fn: Any) -> str | None:
    try:
        return table.get(fn)
    except TypeError:  # unhashable callables are none of these
        return None


def query_name(fn: Any) -> str | None:
    """The name of the type query ``fn`` is (``"isinstance"``), else None."""
    for table in (TYPE_ONLY, DTYPE, SHAPE):
        name = _lookup(table, fn)
        if name is not None:
            return name
    return _compat_query(fn)


def _evaluate(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
              e: cst.Call) -> Any:
    from .static_calls import evaluate  # noqa: PLC0415  (static_calls imports this module)

    return evaluate(lw, fn, args, kwargs, e)


def _const(v: Any) -> Any:
    return v.param("value") if isinstance(v, Node) and v.op is Op.CONST else v


def query(lw: Lowerer, fn: Any, name: str, args: list[Any], kwargs: dict[str, Any],
           e: cst.Call, level: str | None = None) -> Any:
    """A type query of runtime values: the same answer on every stand-in, else refused.
    ``level`` is what it reads: the Python ``type``, the ``dtype`` or the ``shape``."""
    if level is None:
        level = "type" if _lookup(TYPE_ONLY, fn) else "dtype" if _lookup(DTYPE, fn) or \
            _compat_query(fn) else "shape"
    if fn is np.shape and not all(_shape_known(a) for a in args):
        return NotImplemented  # a shape only known at run time: the shape op
    if (fn is np.size or fn is np.ndim) and len(args) == 1 and not kwargs and \
            rank_unknown(args[0]):
        return runtime_size(lw, args[0], "size" if fn is np.size else "ndim", e)
    if fn is builtins.type and (len(args) != 1 or kwargs):
        return NotImplemented
    made = _made_class(lw, args[0]) if args and not kwargs else None
    if made is not None and fn is builtins.type and made in _EXACT_CLASSES:
        return made
    if made is not None and fn is builtins.isinstance and len(args) == 2 and not isinstance(
            args[1], Node):
        # an object a known constructor made (np.random.default_rng): an instance of
        # that class, or of a subclass (logging.getLogger) unless the class is exact
        inside = _evaluate(lw, builtins.issubclass, [made, _const(args[1])], {}, e)
        if inside or made in _EXACT_CLASSES:
            return inside
    values = [*args, *kwargs.values()]
    options = [_stand_ins(lw, v, level, name, e) for v in values]
    combos = list(itertools.islice(itertools.product(*options), 65))
    if len(combos) > 64:
        raise lw.fail(f"{name}() of these runtime values has too many possible types to "
                      "check", e, "pass fewer values to it")
    answers = []
    failed: list[Exception] = []
    for combo in combos:
        a = list(combo[:len(args)])
        k = dict(zip(kwargs, combo[len(args):]))
        try:
            answers.append(fn(*a, **k))
        except Exception as exc:  # noqa: BLE001  (Python's, for this kind of value)
            failed.append(exc)
    if failed and not answers:  # every kind the value may have raises: Python raises
        return _evaluate(lw, fn, list(combos[0][:len(args)]),
                         dict(zip(kwargs, combos[0][len(args):])), e)
    first = answers[0]
    if failed or not all(_same(first, other) for other in answers[1:]):
        raise lw.fail(f"{name}() here depends on whether a runtime value is a Python number, "
                      "a NumPy scalar or a 0-d array, which is not known when compiling", e,
                      "ask about the shape instead (np.ndim(x) == 0), or query the argument "
                      "itself, whose type is known")
    return first


#: classes whose constructor known to ``effects`` returns exactly them, never a subclass
_EXACT_CLASSES = (np.random.Generator,)


def _made_class(lw: Lowerer, v: Any) -> type | None:
    """The exact class of an opaque object a known constructor made, else None."""
    if not isinstance(v, Node) or v.type is None or v.type.kind != "object":
        return None
    made = getattr(lw.example(v), "cls", None)
    return made if isinstance(made, type) else None


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if a is b:
        return True
    try:
        return bool(a == b)
    except Exception:
        return False


def _shape_known(v: Any) -> bool:
    if isinstance(v, Node):
        return v.op is Op.CONST or v.type is not None and v.type.shape is not None
    if isinstance(v, (tuple, list)):
        return all(_shape_known(x) for x in v)
    return True


def _stand_ins(lw: Lowerer, v: Any, level: str, name: str, e: cst.CSTNode) -> list[Any]:
    """Concrete values with each Python type, dtype and shape ``v`` may have at run time."""
    if isinstance(v, (tuple, list)):
        # a type-only query reads the container's own type, not its items'
        items = [_stand_ins(lw, x, level, name, e)[:1 if level == "type" else None]
                 for x in v]
        out = [type(v)(c) for c in itertools.islice(itertools.product(*items), 65)]
        return out
    if isinstance(v, dict):
        keys = list(v)
        vals = [_stand_ins(lw, v[k], level, name, e)[:1 if level == "type" else None]
                for k in keys]
        return [dict(zip(keys, c)) for c in itertools.islice(itertools.product(*vals), 65)]
    if not isinstance(v, Node):
        return [v]
    if v.op is Op.CONST:
        return [v.param("value")]
    t = v.type
    if t is None:
        raise lw.fail(f"{name}() of a runtime value whose type is not known", e,
                      _NEEDS_EXAMPLES)
    exact: Any = _is_argument(lw, v)  # (below: the stand-in value, or None)
    known = lw.example(v)
    if t.kind == "none":
        return [None]
    if t.kind in ("tuple", "object") and exact and known is not None and not isinstance(
            known, Node) and type(known).__name__ != "Abstract":
        if t.kind == "object" and (level != "type" or name == "hasattr"):
            raise lw.fail(f"{name}() of an object argument is not known when compiling", e,
                          "read what the function needs from the object outside it")
        return _stand_ins(lw, _from_abstract(known), level, name, e)
    if t.kind in ("list", "tuple"):
        if level != "type":
            raise lw.fail(f"{name}() of a {t.kind} built at run time is not known when "
                          "compiling", e, "stack it first: np.stack(xs)")
        return [[] if t.kind == "list" else ()]
    if t.kind not in ("array", "float", "int", "bool"):
        raise lw.fail(f"{name}() of a runtime {t.kind} value is not known when compiling", e)
    if getattr(lw, "foreign_arrays", False):
        raise lw.fail(f"{name}() of an array of a type other than numpy.ndarray (a subclass, "
                      "a CuPy array) is not answered when compiling", e,
                      "pass numpy.ndarray arguments")
    dtype = np.dtype(t.dtype) if t.dtype is not None else {
        "float": np.dtype("float64"), "int": np.dtype("int64"), "bool": np.dtype("bool")
    }.get(t.kind)
    if dtype is None:
        raise lw.fail(f"{name}() of a runtime value whose dtype is not known", e,
                      _NEEDS_EXAMPLES)
    python = {"f": 1.0, "i": 1, "b": True}.get(dtype.kind) if dtype.name in (
        "float64", "int64", "bool") else None
    scalar, zero_d = dtype.type(1), np.ones((), dtype)
    if t.kind != "array" or t.shape == ():
        kind = ARRAY if marked_ndarray(lw, v) else exact_kind(
            lw, v, _is_argument)
        if kind is None and t.kind == "array":
            kind = zero_d_kind(lw, v)  # np.empty(()) and writes into it; out[()] of it
        exact = {PYTHON: python, NUMPY: scalar, ARRAY: zero_d}.get(kind)  # type: ignore[arg-type]  # None: none
        if exact is not None:
            return [exact]
    if t.kind != "array":  # a Python number, or a NumPy scalar the rules typed as one
        return [python] if exact else [python, scalar]
    if t.shape is None:
        if level != "shape" and exact_kind(lw, v, _is_argument) == ARRAY:
            return [zero_d]  # an ndarray (x[mask]): its Python type and dtype are known
        if level == "shape":
            raise lw.fail(f"{name}() of a runtime value whose shape is not known", e,
                          _NEEDS_EXAMPLES)
        return [np.ones((1,), dtype), zero_d, scalar]
    if t.shape == ():
        generic = getattr(known, "generic", None)
        if exact and generic is not None:
            return [scalar if generic else zero_d]
        return [scalar, zero_d] + ([python] if python is not None else [])
    return [np.broadcast_to(zero_d, t.shape)]


def _from_abstract(v: Any) -> Any:
    """An argument's example (abstract leaves in Python containers) as a stand-in."""
    from ..ir.abstract import Abstract, dummy  # noqa: PLC0415

    if isinstance(v, Abstract):
        return dummy(v)
    if isinstance(v, (tuple, list)):
        return type(v)(_from_abstract(x) for x in v)
    return v


def _is_argument(lw: Lowerer, v: Node) -> bool:
    """Whether ``v`` is an argument of the differentiated function (its Python type is
    part of the cache key), seen through the captures of region bodies."""
    b: Any = lw.b
    while b is not None:
        if v in lw.retyped:
            return False
        if any(a is v for a in b.args):
            if b.parent is None:
                return True
            outer = [k for k, arg in (b.captures or {}).items() if arg is v]
            if not outer:
                return False
            v = outer[0]
        b = b.parent
    return False


def attribute_query(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
                     e: cst.Call) -> Any:
    """``getattr(x, name[, default])`` and ``hasattr(x, name)`` with a static name."""
    what = "getattr" if fn is builtins.getattr else "hasattr"
    if kwargs or not (2 <= len(args) <= (3 if what == "getattr" else 2)):
        raise lw.fail(f"{what}() takes {'2 or 3' if what == 'getattr' else '2'} positional "
                      "arguments", e, kind=CompileError)
    obj, attr = args[0], _const(args[1])
    if not isinstance(attr, str):
        raise lw.fail(f"{what}() needs an attribute name known when compiling", e,
                      "use a string literal or a static string")
    if isinstance(obj, Node) and obj.op is not Op.CONST:
        has = query(lw, lambda o: hasattr(o, attr), "hasattr", [obj], {}, e, "type")
        if what == "hasattr":
            return has
        if not has and len(args) == 3:
            return args[2]
        return lw.array_attribute(obj, attr, e)
    obj = _const(obj)
    if what == "hasattr" and lw.built_of(obj) is not None:
        return _built_has(lw, obj, attr, e)
    if what == "getattr" and lw.built_of(obj) is not None:
        try:  # an object built here: its runtime attributes too, as ``obj.name`` reads them
            return lw.object_attribute(obj, attr, e)
        except CompileError:
            if len(args) == 3 and not hasattr(obj, attr):
                return args[2]
            raise
    try:
        value = lw.static_attribute(obj, attr)
    except AttributeError:
        if what == "hasattr":
            return False
        if len(args) == 3:
            return args[2]
        raise lw.fail(f"{type(obj).__name__} object has no attribute {attr!r}", e,
                      kind=CompileError) from None
    return True if what == "hasattr" else value


def _built_has(lw: Lowerer, obj: Any, attr: str, e: cst.Call) -> bool:
    """``hasattr(obj, attr)`` of an object built in the function, from its instance
    dict and its class, without running a property on attributes known only at run
    time (``hasattr`` ran it natively, which failed on their markers)."""
    if attr in getattr(obj, "__dict__", {}):
        return True
    for klass in type(obj).__mro__:
        if attr in klass.__dict__:
            return True
    if any("__getattr__" in klass.__dict__ for klass in type(obj).__mro__[:-1]):
        raise lw.fail(f"hasattr() of a {type(obj).__qualname__} object, whose class "
                      "computes attributes in __getattr__, is not supported", e,
                      "read the attribute where it is known to exist")
    return False


# --- array surface ------------------------------------------------------------------------


def rank_unknown(x: Any) -> bool:
    """An array whose shape depends on the data (``x[mask]``, ``np.nonzero``): even its
    rank is unknown when compiling (types keep no partial shapes)."""
    t = x.type if isinstance(x, Node) else None
    return t is not None and t.kind == "array" and t.shape is None and t.dtype is not None


def runtime_size(lw: Lowerer, x: Node, attr: str, e: cst.CSTNode) -> Node:
    """``x.size`` / ``x.ndim`` / ``x.nbytes`` (and ``np.size(x)``, ``np.ndim(x)``) of an
    array whose shape only the run knows: computed from ``x.shape`` when the function
    runs, as NumPy would, instead of refusing valid code."""
    shape = lw.emit(Op.SHAPE, [x], None, e)
    if attr == "ndim":  # len(x.shape)
        return lw.emit(Op.ITEM, [lw.emit(Op.SHAPE, [shape], None, e)], {"index": 0}, e)
    size = lw.emit(Op.ASTYPE, [lw.emit(Op.PROD, [shape], None, e)],  # np.prod(()) is 1.0
                   {"dtype": "int64", "copy": True}, e)
    if attr == "size":
        return size
    itemsize = np.dtype(cast(str, cast(Any, x.type).dtype)).itemsize
    return lw.emit(Op.MUL, [size, lw.to_node(itemsize, e)], None, e)


def known_shape(x: Node) -> tuple[int, ...] | None:
    """``x.shape`` as a Python tuple when the type says it (else None: a shape op)."""
    t = x.type
    if t is None or t.shape is None or t.kind not in ("array", "float", "int", "bool"):
        return None
    return tuple(t.shape)


def array_attribute(lw: Lowerer, x: Node, attr: str, e: cst.CSTNode) -> Any:
    """``x.itemsize`` and ``x.nbytes`` of a typed value, ``x.__class__`` as ``type(x)``
    answers it (sklearn's ``y.__class__.__name__``); ``NotImplemented`` otherwise."""
    if attr == "__class__":
        return query(lw, builtins.type, "type", [x], {}, cast("cst.Call", e))
    if attr not in ("itemsize", "nbytes"):
        return NotImplemented
    t = x.type
    if attr == "nbytes" and rank_unknown(x):
        return runtime_size(lw, x, attr, e)
    if t is None or t.dtype is None or attr == "nbytes" and t.shape is None:
        raise lw.fail(f"x.{attr} is not known when compiling without example arguments", e,
                      _NEEDS_EXAMPLES)
    size = np.dtype(t.dtype).itemsize
    return size if attr == "itemsize" else size * math.prod(t.shape)  # type: ignore[arg-type]  # not None: refused above


def ravel(lw: Lowerer, x: Any, args: list[Any], kwargs: dict[str, Any], e: cst.Call,
           what: str) -> Any:
    """``np.ravel(x, order)`` and ``x.ravel(order)``: 'C' and 'F' exactly; 'K' and 'A'
    follow the memory layout, known only for ranks 0 and 1."""
    kwargs = dict(kwargs)
    order = args[0] if args else kwargs.pop("order", "C")
    if len(args) > 1 or kwargs:
        raise lw.fail(f"{what}() got unsupported arguments (it takes x and order)", e,
                      kind=CompileError)
    order = lw.static(order, "order", e)
    if not isinstance(x, Node):
        return _evaluate(lw, np.ravel, [x, order], {}, e)
    if order not in ("C", "F", "K", "A"):
        raise lw.fail(f"{what}(order={order!r}): order must be one of 'C', 'F', 'A', 'K'", e,
                      kind=CompileError)
    ndim = None if x.type is None else x.type.ndim
    if order in ("K", "A") and (ndim is None or ndim > 1):  # the layout decides
        order = layout_queries.ravel_order(lw, x, order, e, what)
    if order == "F" and ndim != 0:
        x = lw.emit(Op.TRANSPOSE, [x], None, e)
    node = lw.emit(Op.RAVEL, [x], None, e)
    return layout_queries.new_array(lw, node) if what.endswith("flatten") else node


def builtin_reduce(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
                    e: cst.Call) -> Any:
    """``max``/``min``/``sum`` of one runtime array or tuple, ``max(a, b, c)`` of scalars."""
    name = fn.__name__
    if kwargs and not (name == "sum" and set(kwargs) == {"start"}):
        raise lw.fail(f"{name}() with keyword arguments is not supported on runtime values",
                      e, kind=CompileError)
    if name == "sum":
        if not 1 <= len(args) <= 2:
            return NotImplemented
        start = args[1] if len(args) == 2 else kwargs.get("start", 0)
        items = list(args[0]) if isinstance(args[0], (tuple, list)) else \
            _tuple_items(lw, args[0], e) if isinstance(args[0], Node) else None
        if items is None and not isinstance(args[0], Node):
            return NotImplemented
        if items is None:
            x = args[0]
            ndim = None if x.type is None else x.type.ndim
            if x.type is None or x.type.kind != "array" or not ndim:
                raise lw.fail("sum() of this runtime value is not supported", e,
                              "use np.sum(x)")
            if x.type.shape is None or x.type.shape[0] == 0:
                raise lw.fail("sum() of an array of unknown (or zero) length", e,
                              "use np.sum(x, axis=0)")
            total = lw.emit(Op.SUM, [x], {"axis": 0}, e)  # Python adds the rows
            return total if _is_zero(start) else lw.binary(Op.ADD, start, total, e)
        total = start
        for v in items:
            total = lw.binary(Op.ADD, total, v, e)
        return total
    if len(args) == 1:
        x = args[0]
        if isinstance(x, (tuple, list)):
            items = list(x)
        elif isinstance(x, Node):
            items = _tuple_items(lw, x, e)
            if items is None:
                t = x.type
                if t is None or t.kind != "array" or t.ndim != 1:
                    raise lw.fail(f"{name}() of a runtime value other than a 1-d array or "
                                  "a tuple is not supported (Python compares its rows)", e,
                                  f"use np.{name}(x)")
                # Python compares the items with > (<): a NaN item never wins unless it
                # is the first, which then stays (np.max would give NaN for any NaN)
                first = lw.emit(Op.GETITEM, [x], {"index": (0,)}, e)
                rest = lw.call(np.nanmax if name == "max" else np.nanmin, [x], {}, e)
                return lw.emit(Op.WHERE, [lw.emit(Op.ISNAN, [first], None, e), first, rest],
                               None, e)
        else:
            return NotImplemented
    elif len(args) == 2 and not kwargs:
        return NotImplemented  # max(a, b): the elementwise op, as lowering always did
    else:
        items = list(args)
    if not items:
        raise lw.fail(f"{name}() of an empty sequence", e, kind=CompileError)
    for v in items:
        t = v.type if isinstance(v, Node) else None
        if isinstance(v, Node) and t is not None and t.ndim not in (0, None):
            raise lw.fail(f"{name}() compares its items with >, which is not defined for "
                          "arrays", e, f"use np.{'maximum' if name == 'max' else 'minimum'}")
    acc = items[0]
    for v in items[1:]:
        if not isinstance(acc, Node) and not isinstance(v, Node):
            acc = fn(acc, v)
        else:
            acc = builtin_pick(lw, name, acc, v, e)
    return acc


def builtin_pick(lw: Lowerer, name: str, acc: Any, v: Any, e: cst.CSTNode) -> Any:
    """Python's ``max(acc, v)`` (``min``) of scalars: ``v`` only where ``v > acc``
    (``v < acc``), else ``acc``, so a tie or a NaN comparison keeps the first item (NumPy's
    maximum would give NaN for ``max(x, nan)``, and split a tie's gradient)."""
    for item in (acc, v):
        t = item.type if isinstance(item, Node) else None
        if t is not None and t.kind == "array" and t.shape is not None and \
                int(np.prod(t.shape)) > 1:
            raise lw.fail(f"{name}() compares its items with >, which is not defined for "
                          "arrays with more than one element", e,
                          f"use np.{'maximum' if name == 'max' else 'minimum'}")
    wins = lw.binary(Op.GT if name == "max" else Op.LT, v, acc, e)
    return python_result(lw, lw.emit(Op.WHERE, [wins, v, acc], None, e), [acc, v], e)


def python_result(lw: Lowerer, out: Any, args: list[Any], e: cst.CSTNode) -> Any:
    """A builtin's result on Python numbers as the Python number it is (``abs(v)``,
    ``pow(v, 2)``, ``round(v, 3)``, ``max(v, c)`` of Python floats): NumPy's op would give
    a NumPy scalar or a 0-d array, on which ``1.0 / abs(v)`` is inf where Python raises
    ``ZeroDivisionError``.  Anything else is left as the op gives it."""
    if not isinstance(out, Node) or out.type is None or not any(
            isinstance(a, Node) for a in args):
        return out
    for a in args:
        if isinstance(a, Node):
            if a.type is None or a.type.kind not in ("float", "int", "bool"):
                return out
        elif type(a) not in (int, float, bool):  # (np.float64 is a float subclass)
            return out
    t = out.type
    kind = t.kind if t.kind != "array" or t.shape != () or t.dtype is None else \
        {"f": "float", "i": "int", "u": "int", "b": "bool"}.get(np.dtype(t.dtype).kind)
    op = {"float": Op.PY_FLOAT, "int": Op.PY_INT, "bool": Op.PY_BOOL}.get(kind or "")
    return out if op is None else lw.emit(op, [out], None, e)


def _is_zero(v: Any) -> bool:
    return not isinstance(v, Node) and type(v) is int and v == 0


def _tuple_items(lw: Lowerer, x: Node, e: cst.CSTNode) -> list[Any] | None:
    """The items of a runtime tuple (its length from the type), else None."""
    if x.type is None or x.type.kind != "tuple":
        return None
    known = lw.example(x)
    if not isinstance(known, tuple):
        raise lw.fail("the length of this runtime tuple is not known", e, _NEEDS_EXAMPLES)
    return [lw.emit(Op.ITEM, [x], {"index": i}, e) for i in range(len(known))]


def foreign_arrays(values: Any) -> bool:
    """Whether example arguments hold arrays of a type other than ``numpy.ndarray`` (a
    subclass, a CuPy array), whose Python type the stand-ins of type queries would miss."""
    if isinstance(values, (tuple, list)):
        return any(foreign_arrays(v) for v in values)
    if isinstance(values, dict):
        return any(foreign_arrays(v) for v in values.values())
    if isinstance(values, (np.ndarray, np.generic)):
        return type(values) is not np.ndarray and not isinstance(values, np.generic)
    if type_module(values).startswith("st_autodiff"):  # st.ShapeDtype: an ndarray's type
        return False
    return hasattr(values, "dtype") and hasattr(values, "shape") and not isinstance(
        values, type)
