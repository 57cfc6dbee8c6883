"""Calls on static NumPy values (static_numpy.py): folding, methods, builtins.

``call`` is the hook of ``Lowerer.call``: a NumPy callable whose arguments are all static
runs while compiling (purity: ``static_calls.pure``, plus the op table's NumPy functions,
whose node is kept so code that only passes the result on is unchanged); methods of static
arrays run on the ndarray (writers in place); builtins see a static array's items
(``zip``, ``list``...) or the array (``len``, ``isinstance``...); ``np.ndindex`` and
``np.ndenumerate`` give lists of static index tuples.  A static array passed with runtime
values to C code becomes its node.
"""

from __future__ import annotations

import builtins
import math
from typing import TYPE_CHECKING, Any, cast

import libcst as cst
import numpy as np

from ..errors import CompileError
from ..ir.graph import Node
from ..ir.ops import Op
from . import calls, static_calls
from .no_complex import is_complex_value
from .scope import StaticIterator
from .static_numpy import (
    StaticArray,
    _as_items,
    _bypass,
    _current,
    _ordinary,
    _run,
    _static,
    epoch,
    has_static,
    materialize,
    materialize_all,
    unwrap,
    wrap,
)

if TYPE_CHECKING:
    from .lower import Lowerer


#: arrays larger than this are left to the ordinary path (never evaluated while compiling)
MAX_SIZE = 1 << 20
#: ndarray methods that write into the array
_WRITERS = frozenset({"fill", "sort", "put", "itemset", "resize", "partition", "setfield",
                      "setflags", "byteswap", "__setitem__", "__iadd__", "__isub__",
                      "__imul__", "__itruediv__", "__ifloordiv__", "__ipow__", "__imod__",
                      "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__",
                      "__imatmul__"})
#: ndarray methods that are never run while compiling (files, buffers, pickles)
_METHODS_DENIED = frozenset({"tofile", "dump", "dumps", "tobytes", "tostring", "view",
                             "getfield", "ctypes", "__array_function__", "__array_ufunc__",
                             "__reduce__", "__reduce_ex__", "__setstate__", "__dlpack__"})
#: builtins that iterate their arguments: a static array is passed as its items
_ITERATING = frozenset({builtins.zip, builtins.enumerate, builtins.list, builtins.tuple,
                        builtins.iter, builtins.reversed, builtins.sorted, builtins.sum,
                        builtins.min, builtins.max, builtins.any, builtins.all,
                        builtins.set, builtins.frozenset, builtins.map, builtins.filter,
                        builtins.dict})
#: builtins that read a static array as it is
_READING = frozenset({builtins.len, builtins.int, builtins.float, builtins.bool,
                      builtins.abs, builtins.isinstance, builtins.type, builtins.str,
                      builtins.repr, builtins.round, builtins.callable, builtins.hasattr,
                      builtins.getattr, builtins.hash, builtins.format, builtins.complex,
                      builtins.divmod, builtins.pow, builtins.id, builtins.issubclass})
_CREATION_SIZES = {"zeros": 0, "ones": 0, "full": 0, "empty": 0, "eye": None,
                   "identity": None, "tri": None, "arange": None}



def _numpy_callable(fn: Any) -> bool:
    module = getattr(fn, "__module__", None) or ""
    if isinstance(fn, np.ufunc):
        return True
    return module == "numpy" or module.startswith("numpy.")


def _foldable(fn: Any, args: list[Any], kwargs: dict[str, Any]) -> bool:
    """On the purity allowlist (``static_calls.pure``), or a NumPy function of the op table
    (pure, not folded there only to keep its node), or NumPy's array constructors."""
    if fn is np.array or fn is np.asarray or fn is np.asanyarray or fn is np.ascontiguousarray:
        return "out" not in kwargs
    if static_calls.pure(fn, args, kwargs):
        return True
    if not _numpy_callable(fn) or "out" in kwargs:
        return False
    name = getattr(fn, "__name__", "")
    if name in static_calls._NUMPY_DENIED:  # noqa: SLF001  (the one allowlist)
        return False
    module = getattr(fn, "__module__", None) or ""
    if module.startswith(static_calls._NUMPY_EFFECT_MODULES):  # noqa: SLF001
        return False
    return id(fn) in calls.FUNCTIONS or static_calls.pure(
        fn, args, kwargs) or _pure_but_complex(fn, args, kwargs)


def _pure_but_complex(fn: Any, args: list[Any], kwargs: dict[str, Any]) -> bool:
    """``static_calls.pure`` refuses functions that make complex values (for the ordinary
    path's message); while static, complex values are fine."""
    from .no_complex import makes_complex  # noqa: PLC0415

    if not makes_complex(fn) or fn is complex:
        return False
    module = getattr(fn, "__module__", None) or ""
    return module.startswith(("numpy.fft", "numpy.lib.scimath", "numpy.emath", "numpy.linalg"))


def _too_big(fn: Any, args: list[Any], kwargs: dict[str, Any]) -> bool:
    """Creation calls whose result would be large are left to the ordinary path."""
    name = getattr(fn, "__name__", "")
    if name not in _CREATION_SIZES or not _numpy_callable(fn):
        return False
    shape: Any = args[0] if args else kwargs.get("shape", kwargs.get("N"))
    try:
        dims = [int(shape)] if not isinstance(shape, (tuple, list)) else [int(d) for d in shape]
        if name == "arange":  # arange(stop) or arange(start, stop[, step])
            bounds = [float(a) for a in args[:3]]
            start, stop, step = (0.0, bounds[0], 1.0) if len(bounds) == 1 else (
                bounds[0], bounds[1], bounds[2] if len(bounds) > 2 else 1.0)
            dims = [int(abs((stop - start) / step)) if step else 0]
        elif name in ("eye", "identity", "tri"):
            dims = [dims[0], int(args[1]) if len(args) > 1 and args[1] is not None else dims[0]]
    except (TypeError, ValueError, OverflowError):
        return False
    return math.prod(dims) > MAX_SIZE


def call(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any], e: cst.Call) -> Any:
    """The hook of ``Lowerer.call``: NumPy calls on static values folded, methods and
    builtins of static arrays, ``np.ndindex``/``np.ndenumerate``; calls that pass a static
    array to C code with runtime values get its node.  ``NotImplemented`` otherwise."""
    if isinstance(fn, StaticMethod):
        return _method(lw, fn, args, kwargs, e)
    if fn is np.ndindex or fn is np.ndenumerate:
        return _index_iteration(lw, fn, args, kwargs, e)
    if fn is builtins.getattr and args and isinstance(args[0], StaticArray) and \
            len(args) in (2, 3) and isinstance(args[1], str) and not kwargs:
        if len(args) == 3 and not hasattr(args[0].value, args[1]):
            return args[2]
        return attribute(lw, args[0], args[1], e)  # getattr(a, "sum"): a's method
    values = [*args, *kwargs.values()]
    statics = has_static(values)
    if not statics and not _numpy_callable(fn):
        return NotImplemented
    if not statics and id(fn) not in calls.FUNCTIONS:  # np.unique(K) of a global K
        opened = _constants_opened(lw, list(args), dict(kwargs))
        if opened is not None:
            return _opened_call(lw, fn, args, kwargs, opened, e)
    if all(_static(v) for v in values):
        raw_args, raw_kwargs = unwrap(list(args)), unwrap(dict(kwargs))
        if _numpy_callable(fn) and not _calls_python(values) and \
                _foldable(fn, raw_args, raw_kwargs) and not _too_big(fn, raw_args, raw_kwargs):
            value = _run(lw, fn, raw_args, raw_kwargs, e)
            if not _holds_array(value):
                return value  # a number, a dtype, a shape
            if not _numeric(value) or _large(value):  # left to the ordinary path
                return _pass_on(lw, fn, args, kwargs, e) if statics else NotImplemented
            node = None
            if _keeps_node(lw, fn, values) and not is_complex_value(value):
                node = _ordinary(lw, lambda: lw.call(fn, materialize_all(lw, list(args), e),
                                                     materialize_all(lw, dict(kwargs), e), e))
            return wrap(lw, value, node, values)
        if statics and static_calls._in(_ITERATING, fn):  # noqa: SLF001
            items = [_as_items(a) for a in args]  # the ordinary path, on the items
            return _bypass(lw, lambda: lw.call(fn, items, dict(kwargs), e))
        if statics and static_calls._in(_READING, fn):  # noqa: SLF001
            return wrap(lw, _run(lw, fn, raw_args, raw_kwargs, e), None, values)
        if statics and static_calls.pure(fn, raw_args, raw_kwargs) and \
                not _calls_python(values):  # math, operator: on the arrays themselves
            return wrap(lw, _run(lw, fn, raw_args, raw_kwargs, e), None, values)
    if statics and _passes_to_c(fn):
        return _pass_on(lw, fn, args, kwargs, e)
    return NotImplemented


def _opened_call(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
                 opened: tuple[list[Any], dict[str, Any], list[tuple[Any, Any]]], e: cst.Call
                 ) -> Any:
    """``fn`` folded on copies of the constants; where its result is (a view of) one of
    them, Python's result would be the outside array itself: the ordinary call instead."""
    new_args, new_kwargs, copies = opened
    raw_args, raw_kwargs = unwrap(new_args), unwrap(new_kwargs)
    if _calls_python([*new_args, *new_kwargs.values()]) or not _foldable(
            fn, raw_args, raw_kwargs) or _too_big(fn, raw_args, raw_kwargs):
        return NotImplemented
    value = _run(lw, fn, raw_args, raw_kwargs, e)
    if any(isinstance(v, np.ndarray) and np.may_share_memory(v, c) for _, c in copies
           for v in (value if type(value) in (tuple, list) else [value])) or (
            _holds_array(value) and (not _numeric(value) or _large(value))):
        return NotImplemented
    for outside, _ in copies:
        lw.guards.array_contents(outside)
    return wrap(lw, value, None, []) if _holds_array(value) else value


def _constants_opened(lw: Lowerer, args: list[Any], kwargs: dict[str, Any]
                      ) -> tuple[list[Any], dict[str, Any], list[tuple[Any, Any]]] | None:
    """The arguments with constant array nodes (arrays read from outside the function) as
    static arrays, guarded on their contents, where that leaves every argument static:
    a NumPy call without an op of its own (``np.unique``) then runs while compiling instead
    of becoming an opaque call whose result has no shape.  None otherwise."""
    from .static_conditions import MAX_GUARDED  # noqa: PLC0415

    found: list[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]] = []  # (outside array, its copy)

    def opened(v: Any, depth: int = 0) -> Any:
        if isinstance(v, Node) and v.op is Op.CONST and isinstance(v.param("value"),
                                                                   np.ndarray):
            found.append((v.param("value"), v.param("value").copy()))
            return StaticArray(found[-1][1], None, epoch(lw), lw.b)
        if type(v) in (list, tuple) and depth < 8:
            return type(v)(opened(x, depth + 1) for x in v)
        return v

    new_args = [opened(a) for a in args]
    new_kwargs = {k: opened(v) for k, v in kwargs.items()}
    if not found or sum(a.size for a, _ in found) > MAX_GUARDED or not all(
            _static(v) for v in [*new_args, *new_kwargs.values()]) or any(
            a.dtype.kind not in "biufc" for a, _ in found):
        return None
    return new_args, new_kwargs, found


def _pass_on(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
             e: cst.Call) -> Any:
    """The ordinary call, with the static arrays among the arguments as nodes."""
    return lw.call(fn, materialize_all(lw, list(args), e), materialize_all(lw, dict(kwargs),
                                                                             e), e)


def _keeps_node(lw: Lowerer, fn: Any, values: list[Any]) -> bool:
    """Whether to make the ordinary path's node too: for plain static arguments (what the
    compiler did before static arrays), and for op-table functions of static arrays whose
    own nodes are current."""
    if not has_static(values):
        return True
    if id(fn) not in calls.FUNCTIONS:
        return False
    return all(_current(lw, v) for v in _static_arrays(values))


def _static_arrays(v: Any, depth: int = 0) -> list[StaticArray]:
    if isinstance(v, StaticArray):
        return [v]
    if isinstance(v, (list, tuple)) and depth < 8:
        return [s for x in v for s in _static_arrays(x, depth + 1)]
    if isinstance(v, dict) and depth < 8:
        return [s for x in v.values() for s in _static_arrays(x, depth + 1)]
    return []


def _large(value: Any) -> bool:
    """Arrays too large to keep while compiling (and to bake into code)."""
    if isinstance(value, np.ndarray):
        return value.size > MAX_SIZE
    return type(value) in (tuple, list) and any(_large(v) for v in value)


def _holds_array(value: Any) -> bool:
    return isinstance(value, np.ndarray) or type(value) in (tuple, list) and any(
        isinstance(v, np.ndarray) for v in value)


def _numeric(value: Any) -> bool:
    """A result to keep as static arrays (arrays of numbers, or tuples/lists of them)."""
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "biufc"
    if type(value) in (tuple, list):
        return all(_numeric(v) for v in value if isinstance(v, np.ndarray))
    return True


def _calls_python(values: list[Any]) -> bool:
    """A function among the arguments, which folding would call (``static_calls``)."""
    return any(static_calls._calls_back(v) for v in values)  # noqa: SLF001


def _passes_to_c(fn: Any) -> bool:
    """Callables the compiler does not read (NumPy, builtins, C code): they take nodes.
    Python functions read a static array as the static value it is."""
    import types  # noqa: PLC0415

    from .scope import BoundMethod, Closure  # noqa: PLC0415

    if isinstance(fn, (Closure, types.FunctionType, types.MethodType)):
        return _numpy_callable(fn)  # NumPy's own Python functions: their ordinary path
    if isinstance(fn, BoundMethod):
        return True
    return isinstance(fn, (types.BuiltinFunctionType, types.BuiltinMethodType, np.ufunc)) \
        or _numpy_callable(fn)


def _index_iteration(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
                     e: cst.Call) -> Any:
    """``np.ndindex(shape)``: the list of its static index tuples; ``np.ndenumerate(a)`` of
    a static array: its (index, item) pairs (of a runtime array: item reads)."""
    if fn is np.ndindex:
        if not all(_static(v) for v in [*args, *kwargs.values()]) or has_static(args):
            raise lw.fail("np.ndindex needs a shape known when compiling", e,
                          "use the shape of an array (x.shape) or ints")
        return StaticIterator(list(_run(lw, fn, args, kwargs, e)))  # an iterator, as NumPy's
    return StaticIterator(_enumerated(lw, args, kwargs, e))


def _enumerated(lw: Lowerer, args: list[Any], kwargs: dict[str, Any], e: cst.Call
                ) -> list[Any]:
    """The (index, item) pairs of ``np.ndenumerate(a)``."""
    if len(args) != 1 or kwargs:
        raise lw.fail("np.ndenumerate takes one array", e, kind=CompileError)
    a = args[0]
    if isinstance(a, StaticArray):
        return [(idx, a.value[idx]) for idx in np.ndindex(a.value.shape)]
    if isinstance(a, Node) and a.type is not None and a.type.shape is not None:
        return [(idx, lw.emit(Op.GETITEM, [a], {"index": idx}, e))
                for idx in np.ndindex(a.type.shape)]
    if _static(a):
        return list(_run(lw, np.ndenumerate, [unwrap(a)], {}, e))
    raise lw.fail("np.ndenumerate needs an array whose shape is known when compiling", e,
                  "call the gradient with arguments first (shapes come from them)")


class StaticMethod:
    """``a.name`` of a static array, before it is called."""

    __slots__ = ("name", "receiver")

    def __init__(self, receiver: StaticArray, name: str) -> None:
        self.receiver = receiver
        self.name = name


def _method(lw: Lowerer, fn: StaticMethod, args: list[Any], kwargs: dict[str, Any],
            e: cst.Call) -> Any:
    sa, name = fn.receiver, fn.name
    values = [*args, *kwargs.values()]
    if name in _WRITERS:
        if not all(_static(v) for v in values):
            raise lw.fail(f"a.{name}() writes values known only at run time into an array "
                          "computed while compiling", e, "make the array with np.array(...) "
                          "of runtime values, or copy it first: a = a.astype(float)")
        _check_region(lw, sa, e)
        result = _run(lw, getattr(sa.value, name), unwrap(list(args)), unwrap(dict(kwargs)), e)
        lw.static_epoch = epoch(lw) + 1
        return result
    if all(_static(v) for v in values):
        bound = getattr(sa.value, name)
        raw_args, raw_kwargs = unwrap(list(args)), unwrap(dict(kwargs))
        if "out" in raw_kwargs or _calls_python(values):
            raise lw.fail(f"a.{name}(out=...) is not supported here", e)
        value = _run(lw, bound, raw_args, raw_kwargs, e)
        if not _numeric(value):
            return value
        node = None
        if isinstance(value, np.ndarray) and _current(lw, sa) and not is_complex_value(value):
            node = _ordinary(lw, lambda: lw.call(lw.array_attribute(cast(Node, sa.node), name, e),
                                                 materialize_all(lw, list(args), e),
                                                 materialize_all(lw, dict(kwargs), e), e))
        return wrap(lw, value, node, [sa, *values])
    method = lw.array_attribute(materialize(lw, sa, e), name, e)
    return lw.call(method, materialize_all(lw, list(args), e),
                   materialize_all(lw, dict(kwargs), e), e)


def attribute(lw: Lowerer, sa: StaticArray, attr: str, e: cst.CSTNode) -> Any:
    """``a.attr`` of a static array: data attributes as static values, methods bound."""
    if attr == "__class__":  # as type(a) answers it (sklearn's y.__class__.__name__)
        return type(sa.value)
    if attr in _METHODS_DENIED or attr.startswith("_") and attr not in _WRITERS:
        raise lw.fail(f"a.{attr} of an array computed while compiling is not supported", e)
    try:
        value = getattr(sa.value, attr)
    except AttributeError as exc:
        from .static_stmts import static_exception  # noqa: PLC0415

        raise static_exception(lw, exc, e) from None
    if callable(value):
        return StaticMethod(sa, attr)
    if attr in ("flat", "data", "ctypes"):
        raise lw.fail(f"a.{attr} of an array computed while compiling is not supported", e)
    return wrap(lw, value, None, [sa])


def _check_region(lw: Lowerer, sa: StaticArray, where: cst.CSTNode) -> None:
    """A static write inside a runtime ``if``/loop into an array made outside it would be
    done once while compiling, whatever the data decide: refused."""
    if sa.builder is not lw.b:
        raise lw.fail("an array computed while compiling is written inside an if, for or "
                      "while that runs at run time, but it was made outside it", where,
                      "copy it inside the block (a = a.copy()), or make it with runtime "
                      "values")


