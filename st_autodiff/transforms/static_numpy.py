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

import operator
from typing import TYPE_CHECKING, Any, cast

import libcst as cst
import numpy as np

from ..ir.graph import Node
from ..ir.ops import Op
from ..ir.types import type_module
from .no_complex import HINT, MESSAGE, is_complex_value

if TYPE_CHECKING:
    from .lower import Lowerer

class StaticArray:
    """An ndarray known while compiling: ``value`` is the array itself (written in place),
    ``node`` the ordinary path's node for it (valid while ``epoch`` is the lowerer's),
    ``builder`` the graph builder (region) its memory was made in."""

    __slots__ = ("builder", "epoch", "node", "node_builder", "value")

    def __init__(self, value: np.ndarray[Any, Any], node: Node | None, epoch: int,
                 builder: Any) -> None:
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

    def __repr__(self) -> str:  # formatting (f-strings, messages) reads the array's own
        return repr(self.value)

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


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
    if isinstance(v, slice):  # ``a[:n - k]`` with a runtime ``k`` is not static
        return all(_static(x, depth + 1) for x in (v.start, v.stop, v.step))
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
        _handed(lw)[id(sa.node)] = (sa.value, sa.node)
        return sa.node  # (an enclosing builder's node is captured by the body)
    if sa.value.dtype.kind == "c":
        raise lw.fail(f"{MESSAGE}: a complex array computed while compiling is used with "
                      "values known only at run time here", where, HINT)
    if sa.value.dtype.kind not in "biuf":
        raise lw.fail(f"an array of dtype {sa.value.dtype} computed while compiling cannot "
                      "be used with runtime values", where)
    node = lw.b.const(sa.value.copy())  # its contents now: later static writes are not seen
    sa.node, sa.epoch, sa.node_builder = node, epoch(lw), lw.b
    _handed(lw)[id(node)] = (sa.value, node)
    return node


def _handed(lw: Lowerer) -> dict[int, tuple[np.ndarray[Any, Any], Node]]:
    """The static arrays handed out as nodes so far, with those nodes (by node)."""
    return cast("dict[int, tuple[np.ndarray[Any, Any], Node]]",
                lw.__dict__.setdefault("static_handed", {}))


def nodes_sharing(lw: Lowerer, sa: StaticArray) -> list[Node]:
    """The nodes that stand for memory ``sa`` shares (for writes.py's holder check: a name
    bound to a static array holds the array a node was made from, ``g = h`` before ``h``
    becomes a runtime array)."""
    return [n for value, n in _handed(lw).values() if np.may_share_memory(value, sa.value)]


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


def _origin(lw: Lowerer, value: np.ndarray[Any, Any], sources: list[Any]) -> Any:
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
    except Exception:  # noqa: BLE001  (the fold is the answer; its contents become a constant)
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


def _current(lw: Lowerer, v: Any) -> bool:
    """Not a static array, or one whose ordinary node still holds its contents."""
    return not isinstance(v, StaticArray) or (
        v.node is not None and v.epoch == epoch(lw) and v.node_builder is lw.b)



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


def is_static_array(v: Any) -> bool:
    return isinstance(v, StaticArray)


def index_value(v: Any) -> Any:
    """A static array used as an index into a runtime array: its contents, a constant."""
    return v.value.copy() if isinstance(v, StaticArray) else v
