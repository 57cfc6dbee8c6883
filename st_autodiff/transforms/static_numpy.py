"""Static NumPy values: arrays computed while compiling (design/staging.md §2.1 item 5).

A NumPy call whose every argument is static (ints, shapes, dtypes, Python constants, other
static arrays) runs while compiling, as Python would, and gives a ``StaticArray``: the real
ndarray (integer, bool, float or complex).  Lowering treats it as a Python value: its items
are read and written in place (views share memory, as in NumPy), it is iterated, zipped,
measured, compared, converted (``.astype``, ``.tolist()``) without a node.

Where a static array meets runtime values it becomes a node: the node the ordinary path
emitted when the array was made (kept in ``node``, so code that only passes static arrays
on is unchanged), or a constant of its current contents once anything static was written
since (``Lowerer.static_epoch`` counts those writes).  Complex contents never become a node
(a located refusal).  Writing a runtime value into a static array turns the array into a
node when nothing else can see its memory; otherwise the write is refused, located.

Purity is ``static_calls.pure`` (the one allowlist); NumPy functions of the op table are
folded too, since their node is kept.  ``np.ndindex`` and ``np.ndenumerate`` of static
shapes and arrays give lists of static tuples.
"""

from __future__ import annotations

import builtins
import math
import operator
from typing import TYPE_CHECKING, Any

import libcst as cst
import numpy as np

from ..errors import CompileError
from ..ir.graph import Node
from ..ir.ops import Op
from ..ir.types import type_module
from . import calls, static_calls
from .no_complex import HINT, MESSAGE, is_complex_value

if TYPE_CHECKING:
    from .lower import Lowerer
    from .scope import Scope

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
                   "identity": None, "tri": None}


class StaticArray:
    """An ndarray known while compiling: ``value`` is the array itself (written in place),
    ``node`` the ordinary path's node for it (valid while ``epoch`` is the lowerer's),
    ``builder`` the graph builder (region) its memory was made in."""

    __slots__ = ("builder", "epoch", "node", "node_builder", "value")

    def __init__(self, value: np.ndarray, node: Node | None, epoch: int, builder: Any) -> None:
        self.value = value
        self.node = node
        self.epoch = epoch
        self.builder = builder
        self.node_builder = builder  # where ``node`` was made (a read may make another)

    def items(self) -> list[Any]:
        """Iteration, as NumPy's: rows (views, static arrays too) or scalars."""
        if self.value.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        if self.value.ndim == 1:
            return list(self.value)
        return [StaticArray(row, None, -1, self.builder) for row in self.value]

    def __len__(self) -> int:
        return len(self.value)

    def __iter__(self) -> Any:
        return iter(self.items())

    def __bool__(self) -> bool:
        return bool(self.value)

    def __repr__(self) -> str:
        return f"StaticArray({self.value!r})"


def epoch(lw: Lowerer) -> int:
    return getattr(lw, "static_epoch", 0)


def has_static(v: Any, depth: int = 0) -> bool:
    """Whether ``v`` is or holds (in lists, tuples, dict values) a static array."""
    if isinstance(v, StaticArray):
        return True
    if depth > 8:
        return False
    if isinstance(v, (list, tuple)):
        return any(has_static(x, depth + 1) for x in v)
    if isinstance(v, dict):
        return any(has_static(x, depth + 1) for x in v.values())
    return False


def _static(v: Any, depth: int = 0) -> bool:
    """Plain static data or static arrays (no node, no outside array, no compiler object)."""
    if isinstance(v, StaticArray):
        return True
    if isinstance(v, (Node, np.ndarray)) or depth > 8:
        return False
    if isinstance(v, (list, tuple, set, frozenset)):
        return all(_static(x, depth + 1) for x in v)
    if isinstance(v, dict):
        return all(_static(x, depth + 1) for x in (*v.keys(), *v.values()))
    return not type_module(v).startswith("st_autodiff")


def unwrap(v: Any, depth: int = 0) -> Any:
    """``v`` with its static arrays as the ndarrays themselves."""
    if isinstance(v, StaticArray):
        return v.value
    if depth > 8:
        return v
    if type(v) in (list, tuple):
        return type(v)(unwrap(x, depth + 1) for x in v)
    if type(v) is dict:
        return {k: unwrap(x, depth + 1) for k, x in v.items()}
    return v


def _as_items(v: Any) -> Any:
    return v.items() if isinstance(v, StaticArray) else v


def materialize(lw: Lowerer, sa: StaticArray, where: cst.CSTNode) -> Node:
    """The node for ``sa`` where it meets runtime values (see the module docstring)."""
    if sa.node is not None and sa.epoch == epoch(lw) and _encloses(sa.node_builder, lw.b):
        _handed(lw).append((sa.value, sa.node))
        return sa.node  # (an enclosing builder's node is captured by the body)
    if sa.value.dtype.kind == "c":
        raise lw.fail(f"{MESSAGE}: a complex array computed while compiling is used with "
                      "values known only at run time here", where, HINT)
    if sa.value.dtype.kind not in "biuf":
        raise lw.fail(f"an array of dtype {sa.value.dtype} computed while compiling cannot "
                      "be used with runtime values", where)
    node = lw.b.const(sa.value.copy())  # its contents now: later static writes are not seen
    sa.node, sa.epoch, sa.node_builder = node, epoch(lw), lw.b
    _handed(lw).append((sa.value, node))
    return node


def _handed(lw: Lowerer) -> list[tuple[np.ndarray, Node]]:
    """The static arrays handed out as nodes so far, with those nodes."""
    return lw.__dict__.setdefault("static_handed", [])


def nodes_sharing(lw: Lowerer, sa: StaticArray) -> list[Node]:
    """The nodes that stand for memory ``sa`` shares (for writes.py's holder check: a name
    bound to a static array holds the array a node was made from, ``g = h`` before ``h``
    becomes a runtime array)."""
    return [n for value, n in _handed(lw) if np.may_share_memory(value, sa.value)]


def _encloses(outer: Any, b: Any) -> bool:
    """Whether the builder ``outer`` is ``b`` or one ``b`` is nested in."""
    while b is not None:
        if b is outer:
            return True
        b = getattr(b, "parent", None)
    return False


def output(lw: Lowerer, v: Any, where: cst.CSTNode) -> Node:
    """An output of the function as a node: a static array's constant is copied, so that
    each call returns a fresh array (as Python's would) that the caller may write into."""
    node = lw.to_node(v, where)
    if isinstance(v, StaticArray) and node.op is Op.CONST:
        return lw.emit(Op.COPY, [node], None, where)
    return node


def materialize_all(lw: Lowerer, v: Any, where: cst.CSTNode, depth: int = 0) -> Any:
    """``v`` with every static array it holds as a node."""
    if isinstance(v, StaticArray):
        return materialize(lw, v, where)
    if depth > 8:
        return v
    if type(v) in (list, tuple):
        return type(v)(materialize_all(lw, x, where, depth + 1) for x in v)
    if type(v) is dict:
        return {k: materialize_all(lw, x, where, depth + 1) for k, x in v.items()}
    return v


def _origin(lw: Lowerer, value: np.ndarray, sources: list[Any]) -> Any:
    """The builder whose memory ``value`` lives in: a view keeps its base's."""
    for s in sources:
        if isinstance(s, StaticArray) and np.may_share_memory(value, s.value):
            return s.builder
        if isinstance(s, (list, tuple)):
            found = _origin(lw, value, list(s))
            if found is not None:
                return found
    return None if sources else lw.b


def wrap(lw: Lowerer, value: Any, node: Any, sources: list[Any]) -> Any:
    """A folded result: ndarrays become static arrays (with the ordinary path's node)."""
    if isinstance(value, np.ndarray):
        known = lw.__dict__.setdefault("static_wrappers", {})
        same = known.get(id(value))
        if same is not None and same.value is value:
            return same  # the very array (np.asarray(a) is a): one static array
        builder = _origin(lw, value, sources) or lw.b
        if not isinstance(node, Node) or builder is not lw.b:
            node = None
        known[id(value)] = StaticArray(value, node, epoch(lw), builder)
        return known[id(value)]
    if type(value) in (tuple, list) and any(isinstance(v, np.ndarray) for v in value):
        nodes = list(node) if isinstance(node, (tuple, list)) and len(node) == len(
            value) else [None] * len(value)
        return type(value)(wrap(lw, v, n, sources) for v, n in zip(value, nodes))
    return value


def _run(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
         where: cst.CSTNode) -> Any:
    from .static_stmts import static_exception  # noqa: PLC0415  (it imports lowering)

    try:
        return fn(*args, **kwargs)
    except Exception as exc:  # Python's error, at the user's call (a static try catches it)
        raise static_exception(lw, exc, where) from None


def _bypass(lw: Lowerer, thunk: Any) -> Any:
    """``thunk()`` with this module's hook off (the ordinary path of a call)."""
    before = getattr(lw, "static_numpy_off", False)
    lw.static_numpy_off = True
    try:
        return thunk()
    finally:
        lw.static_numpy_off = before


def _ordinary(lw: Lowerer, thunk: Any) -> Any:
    """The node the ordinary path makes (so generated code stays what it was), or None
    where that path refuses (a complex value, which stays static)."""
    before = getattr(lw, "static_numpy_off", False)
    lw.static_numpy_off = True
    start = len(lw.b.nodes)
    try:
        return thunk()
    except CompileError:
        return None
    finally:
        lw.static_numpy_off = before
        # nodes of static inputs only: the fold already ran them (static_stmts' try)
        lw.__dict__.setdefault("static_nodes", set()).update(id(n) for n in lw.b.nodes[start:])


def complex_literal(lw: Lowerer, e: cst.Imaginary) -> complex:
    """A complex literal: static, remembered so that where it meets runtime values the
    refusal points at the literal itself."""
    value = complex(e.value)
    literals = lw.__dict__.setdefault("complex_literals", {})
    literals[id(value)] = (value, e)
    return value


def complex_origin(lw: Lowerer, v: Any, where: cst.CSTNode) -> tuple[cst.CSTNode, str]:
    """Where to refuse the complex value ``v`` met by a runtime value, and what to say."""
    found = lw.__dict__.get("complex_literals", {}).get(id(v))
    if found is not None and found[0] is v:
        return found[1], f"the literal {found[1].value} is complex"
    return where, f"a {type(v).__name__} value is used here"


# --- calls --------------------------------------------------------------------------------


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
    shape = args[0] if args else kwargs.get("shape", kwargs.get("N"))
    try:
        dims = [int(shape)] if not isinstance(shape, (tuple, list)) else [int(d) for d in shape]
        if name in ("eye", "identity", "tri"):
            dims = [dims[0], int(args[1]) if len(args) > 1 and args[1] is not None else dims[0]]
    except (TypeError, ValueError):
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
    values = [*args, *kwargs.values()]
    statics = has_static(values)
    if not statics and not _numpy_callable(fn):
        return NotImplemented
    if all(_static(v) for v in values):
        raw_args, raw_kwargs = unwrap(list(args)), unwrap(dict(kwargs))
        if _numpy_callable(fn) and not _calls_python(values) and \
                _foldable(fn, raw_args, raw_kwargs) and not _too_big(fn, raw_args, raw_kwargs):
            value = _run(lw, fn, raw_args, raw_kwargs, e)
            if not _holds_array(value):
                return value  # a number, a dtype, a shape
            if not _numeric(value):
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


def _current(lw: Lowerer, v: Any) -> bool:
    """Not a static array, or one whose ordinary node still holds its contents."""
    return not isinstance(v, StaticArray) or (
        v.node is not None and v.epoch == epoch(lw) and v.node_builder is lw.b)


def _static_arrays(v: Any, depth: int = 0) -> list[StaticArray]:
    if isinstance(v, StaticArray):
        return [v]
    if isinstance(v, (list, tuple)) and depth < 8:
        return [s for x in v for s in _static_arrays(x, depth + 1)]
    if isinstance(v, dict) and depth < 8:
        return [s for x in v.values() for s in _static_arrays(x, depth + 1)]
    return []


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
        return list(_run(lw, fn, args, kwargs, e))
    if len(args) != 1 or kwargs:
        raise lw.fail("np.ndenumerate takes one array", e, kind=CompileError)
    a = args[0]
    if isinstance(a, StaticArray):
        return [(idx, a.value[idx]) for idx in np.ndindex(a.value.shape)]
    if isinstance(a, Node) and a.type is not None and a.type.shape is not None:
        return [(idx, lw.emit(Op.GETITEM, [a], {"index": idx}, e))
                for idx in np.ndindex(a.type.shape)]
    if _static(a):
        return list(_run(lw, fn, [unwrap(a)], {}, e))
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
            node = _ordinary(lw, lambda: lw.call(lw.array_attribute(sa.node, name, e),
                                                 materialize_all(lw, list(args), e),
                                                 materialize_all(lw, dict(kwargs), e), e))
        return wrap(lw, value, node, [sa, *values])
    method = lw.array_attribute(materialize(lw, sa, e), name, e)
    return lw.call(method, materialize_all(lw, list(args), e),
                   materialize_all(lw, dict(kwargs), e), e)


def attribute(lw: Lowerer, sa: StaticArray, attr: str, e: cst.CSTNode) -> Any:
    """``a.attr`` of a static array: data attributes as static values, methods bound."""
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


# --- operators and items -----------------------------------------------------------------

_OPERATORS = {Op.ADD: operator.add, Op.SUB: operator.sub, Op.MUL: operator.mul,
              Op.DIV: operator.truediv, Op.FLOORDIV: operator.floordiv, Op.MOD: operator.mod,
              Op.POW: operator.pow, Op.MATMUL: operator.matmul}


def binary(lw: Lowerer, op: Op, a: Any, b: Any, where: cst.CSTNode) -> Any:
    """``a op b`` with a static array on one side: folded when both are static, else the
    static side becomes a node and the ordinary path goes on (``NotImplemented``)."""
    if _static(a) and _static(b):  # (a tuple or list side: NumPy's elementwise meaning)
        from ..ir.kernels import run  # noqa: PLC0415

        value = _run(lw, lambda: run(op, np, (unwrap(a), unwrap(b)), {}), [], {}, where)
        node = None
        if not is_complex_value(value) and all(_current(lw, v) for v in (a, b)):
            node = _ordinary(lw, lambda: lw.binary(op, materialize_all(lw, a, where),
                                                   materialize_all(lw, b, where), where))
        return wrap(lw, value, node, [a, b])
    return None


def bitwise(lw: Lowerer, op: Op, a: Any, b: Any, where: cst.CSTNode) -> Any:
    """``a & b`` (``|``, ``^``) with a static array on one side: NumPy's, when both are
    static; None otherwise."""
    if not (_static(a) and _static(b)):
        return None
    fn = {Op.LOGICAL_AND: operator.and_, Op.LOGICAL_OR: operator.or_,
          Op.LOGICAL_XOR: operator.xor}[op]
    return wrap(lw, _run(lw, fn, [unwrap(a), unwrap(b)], {}, where), None, [a, b])


def unary(lw: Lowerer, op: str, v: StaticArray, where: cst.CSTNode) -> Any:
    fn = {"-": operator.neg, "+": operator.pos, "~": operator.invert,
          "not": operator.not_}[op]
    return wrap(lw, _run(lw, fn, [v.value], {}, where), None, [v])


def _index(parts: list[Any]) -> Any:
    raw = [unwrap(p) for p in parts]
    return raw[0] if len(raw) == 1 else tuple(raw)


def getitem(lw: Lowerer, sa: StaticArray, parts: list[Any], e: cst.CSTNode) -> Any:
    """``a[index]`` of a static array: a static value for a static index (a view for a basic
    one, as in NumPy), else a read of its node."""
    if all(_static(p) for p in parts):
        value = _run(lw, operator.getitem, [sa.value, _index(parts)], {}, e)
        return wrap(lw, value, None, [sa])
    return None


def setitem(lw: Lowerer, sa: StaticArray, target: cst.Subscript, value: Any, scope: Scope,
            op: Op | None = None, where: cst.CSTNode | None = None) -> bool:
    """``a[index] = value`` (``op=``) into a static array: in place when the index and the
    value are static and the write is not inside a runtime ``if``/loop the array was made
    outside of (True).  Otherwise the array becomes a node, where nothing else can see its
    memory, and the ordinary write goes on (False)."""
    parts = [lw.index_part(el, scope) for el in target.slice]
    if len(parts) == 1 and isinstance(parts[0], tuple):
        parts = list(parts[0])
    where = where or target
    if _static(value) and all(_static(p) for p in parts) and sa.builder is lw.b:
        index = _index(parts)
        if op is None:
            _run(lw, operator.setitem, [sa.value, index, unwrap(value)], {}, where)
        else:
            current = _run(lw, operator.getitem, [sa.value, index], {}, where)
            fn = _OPERATORS.get(op)
            if fn is None:
                raise lw.fail(f"the operator {op.value} is not supported here", where)
            inplace = getattr(operator, "i" + fn.__name__.strip("_"), None)
            if isinstance(current, np.ndarray) and inplace is not None:
                _run(lw, inplace, [current, unwrap(value)], {}, where)  # a view: in place
            else:
                new = _run(lw, fn, [current, unwrap(value)], {}, where)
                _run(lw, operator.setitem, [sa.value, index, new], {}, where)
        lw.static_epoch = epoch(lw) + 1
        return True
    to_runtime(lw, target.value, sa, scope, where)
    return False


def inplace_name(lw: Lowerer, name: cst.Name, sa: StaticArray, op: Op, value: Any,
                 scope: Scope, where: cst.CSTNode) -> bool:
    """``a op= value`` on a static array: NumPy's in-place update (views see it)."""
    if _static(value) and sa.builder is lw.b:
        fn = _OPERATORS.get(op)
        inplace = getattr(operator, "i" + fn.__name__.strip("_"), None) if fn else None
        if inplace is None:
            raise lw.fail(f"the operator {op.value} is not supported here", where)
        _run(lw, inplace, [sa.value, unwrap(value)], {}, where)
        lw.static_epoch = epoch(lw) + 1
        return True
    from .static_values import _SYMBOLS  # noqa: PLC0415  (one table of symbols)

    to_runtime(lw, name, sa, scope, where, _SYMBOLS.get(op, op.value))
    return False


def _check_region(lw: Lowerer, sa: StaticArray, where: cst.CSTNode) -> None:
    """A static write inside a runtime ``if``/loop into an array made outside it would be
    done once while compiling, whatever the data decide: refused."""
    if sa.builder is not lw.b:
        raise lw.fail("an array computed while compiling is written inside an if, for or "
                      "while that runs at run time, but it was made outside it", where,
                      "copy it inside the block (a = a.copy()), or make it with runtime "
                      "values")


def to_runtime(lw: Lowerer, target: cst.BaseExpression, sa: StaticArray, scope: Scope,
               where: cst.CSTNode, update: str | None = None) -> None:
    """Rebind the name ``target`` from the static array ``sa`` to its node, so a runtime
    value can be written into it; refused where another name, container or view would
    keep the static contents."""
    if not isinstance(target, cst.Name):
        return  # the ordinary write refuses it (only named arrays are written)
    if target.value not in scope.vars:
        raise lw.fail("a value known only at run time is written into an array computed "
                      "while compiling that is not a local name of this function", where,
                      "bind the array to a local name first, or copy it: a = a.copy()")
    name = target.value
    for who, same in _holders(lw, sa, scope, name):
        why = f"{who} refers to the same array" if same else \
            f"it may be a view of {who}" if sa.value.base is not None else \
            f"{who} may be a view of it"
        hint = f"write {name} = {name} {update} ... to make a new array" if update else \
            f"copy it first ({name} = {name}.copy()) and write into the copy"
        raise lw._refuse(name, why + " (made while compiling) and would keep its old "  # noqa: SLF001
                         "values", where, hint, update)
    scope.vars[name] = lw.b.rename(materialize(lw, sa, where), name)


def _holders(lw: Lowerer, sa: StaticArray, scope: Scope, name: str
             ) -> list[tuple[str, bool]]:
    """Names (and containers) other than ``name`` in ``scope`` that can see ``sa``'s memory."""
    from .scope import BoundMethod, Closure, scope_chain  # noqa: PLC0415

    found: list[tuple[str, bool]] = []
    todo = [sc for top in [scope, *lw.active_scopes] for sc in scope_chain(top)]
    seen: set[int] = set()
    while todo:
        sc = todo.pop(0)
        if id(sc) in seen:
            continue
        seen.add(id(sc))
        for k, v in list(sc.vars.items()):
            stack: list[tuple[Any, bool]] = [(v, False)]
            while stack:
                item, held = stack.pop()
                if isinstance(item, StaticArray):
                    same = lw._same_frame(sc, scope)  # noqa: SLF001  (writes.py's rule)
                    if k == name and not held and same or \
                            sc is not scope and k in scope.vars and same:
                        continue  # the name itself, or its copy outside this if/for body
                    if np.may_share_memory(item.value, sa.value):
                        found.append((repr(k), item is sa))
                elif isinstance(item, StaticMethod):
                    stack.append((item.receiver, True))
                elif isinstance(item, (tuple, list)) and id(item) not in seen:
                    seen.add(id(item))
                    stack.extend((x, True) for x in item)
                elif isinstance(item, dict) and id(item) not in seen:
                    seen.add(id(item))
                    stack.extend((x, True) for x in item.values())
                elif isinstance(item, BoundMethod):
                    stack.append((item.receiver, True))
                elif isinstance(item, Closure) and id(item) not in seen:
                    seen.add(id(item))
                    todo.extend(scope_chain(item.scope))
    return found


def is_static_array(v: Any) -> bool:
    return isinstance(v, StaticArray)


def writer(lw: Lowerer, fn: Any, name: str, sa: StaticArray, args: list[Any],
           kwargs: dict[str, Any], scope: Scope, e: cst.Call) -> bool:
    """``np.place``/``np.putmask``/``np.copyto``/``np.fill_diagonal`` into the static array
    bound to ``name``: run in place when every argument is static (True); otherwise the
    array becomes a node for the ordinary write (False)."""
    if all(_static(v) for v in [*args, *kwargs.values()]) and sa.builder is lw.b:
        _run(lw, fn, unwrap(list(args)), unwrap(dict(kwargs)), e)
        lw.static_epoch = epoch(lw) + 1
        return True
    to_runtime(lw, cst.Name(name), sa, scope, e)
    return False


def index_value(v: Any) -> Any:
    """A static array used as an index into a runtime array: its contents, a constant."""
    return v.value.copy() if isinstance(v, StaticArray) else v
