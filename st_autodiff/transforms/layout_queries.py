"""Layout queries while lowering: ``x.flags``, ``ravel(order='K'/'A')``, ``copy(order=...)``,
``np.ascontiguousarray``/``np.asfortranarray``.

Each is answered from the layout facts of ``ir/layout.py``: an argument's from its example
value (the fact becomes a per-call check, kept in ``lw.identity_checks`` beside the ``is``
answers), a computed value's from its op, a value made with an explicit order
(``x.copy(order='F')``) from what the call recorded in ``lw.layout_facts``.  A fact the
compiler cannot know is a located refusal naming the query.  The generated code then
computes what NumPy computes for that layout: ``ravel(order='K')`` of an F-ordered array is
``ravel(order='F')``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst
import numpy as np

from ..errors import CompileError
from ..ir import layout
from ..ir.graph import Node
from ..ir.ops import Op
from ..ir.scalar_kinds import rank_one_or_more
from . import identity

if TYPE_CHECKING:
    from .lower import Lowerer

_HINT = ("the compiler knows the layout of the function's arguments and of arrays made by "
         "NumPy calls; copy the array first (np.ascontiguousarray(x)) or pass it as an argument")

_NAMES = {"c": "C-contiguity", "f": "F-contiguity", "w": "writeability", "a": "alignment",
          "k": "memory order"}


class Deferred:
    """Layout facts worked out only when a query needs them: ``np.copy(x)`` keeps ``x``'s
    order, but reading an argument's flags for it would make every such function check
    them on every call (and read flags that a Dask or CuPy array may not have)."""

    _facts: dict[str, Any] | None

    def __init__(self, make: Any) -> None:
        self._make, self._facts = make, None

    def get(self) -> dict[str, Any]:
        if self._facts is None:
            self._facts = self._make()
        return self._facts


def _recorded(lw: Lowerer) -> dict[Node, Any]:
    table: dict[Node, Any] | None = getattr(lw, "layout_facts", None)
    if table is None:
        table = lw.layout_facts = {}
    return table


def _leaf(lw: Lowerer) -> layout.Leaf:
    """Facts lowering knows directly: recorded ones, an argument's (checked per call), a
    constant's, and those of the object a pass-through call returned."""
    current = getattr(lw.b, "_current", lambda n: n)
    slots = {current(n): i for n, i in getattr(lw, "arg_slots", {}).items()}
    recorded = {current(n): v for n, v in _recorded(lw).items()}

    def leaf(node: Node, fact: str) -> Any:
        node = current(node)
        facts = recorded.get(node)
        if isinstance(facts, Deferred):
            facts = facts.get()
        if facts is not None and fact in facts:
            return facts[fact]
        r = identity.root(lw, node)
        if r is not node:
            return layout.infer(r, fact, leaf)
        if node in slots:
            examples = getattr(lw, "example_args", None)
            value = examples[slots[node]] if examples is not None else None
            if not isinstance(value, (np.ndarray, np.generic)):
                return None  # no example, or no flags (a list)
            got = layout.runtime_fact(value, fact)
            # (the memory order of a C or F array follows from that flag: cheaper to check)
            checked = ("c", True) if got == "C" and value.flags.c_contiguous else (
                ("f", True) if got == "F" and value.flags.f_contiguous else (fact, got))
            layout.add_fact(lw.identity_checks, slots[node], *checked)
            return got
        if node.op is Op.CONST:
            value = node.param("value")
            return layout.runtime_fact(value, fact) if isinstance(value, np.ndarray) else None
        if fact in ("w", "a") and node.op is Op.COPY and rank_one_or_more(lw, node):
            return True  # a copy is a new, writeable ndarray whatever its unknown shape
        return NotImplemented
    return leaf


_MADE_BY = {Op.ITEM: "a branch or a loop", Op.ARG: "a value carried through a loop or branch",
            Op.IF: "a branch", Op.FOR: "a loop",
            Op.WHILE: "a loop", Op.GETITEM: "indexing (a view or a copy)",
            Op.OPAQUE_CALL: "a call run as-is", Op.CALL: "a call"}


def _made_by(x: Node) -> str:
    return _MADE_BY.get(x.op, x.op.value)


def fact(lw: Lowerer, x: Node, name: str, e: cst.CSTNode, what: str) -> Any:
    """One layout fact of ``x``, or a located refusal of ``what`` (the query)."""
    got = layout.infer(x, name, _leaf(lw))
    if got is None:
        raise lw.fail(f"{what} asks for the {_NAMES[name]} of an array whose layout is not "
                      f"known when compiling (made by {_made_by(x)})", e, _HINT)
    return got


class Flags:
    """``x.flags`` of a runtime array: each flag read is answered when compiling."""

    _ATTRS = {"c_contiguous": "c", "contiguous": "c", "f_contiguous": "f", "fortran": "f",
              "writeable": "w", "aligned": "a"}
    _KEYS = {"C_CONTIGUOUS": "c", "C": "c", "CONTIGUOUS": "c", "F_CONTIGUOUS": "f",
             "F": "f", "FORTRAN": "f", "WRITEABLE": "w", "W": "w", "ALIGNED": "a", "A": "a"}
    _DERIVED = {"fnc": "FNC", "forc": "FORC", "behaved": "BEHAVED", "carray": "CARRAY",
                "farray": "FARRAY", "writebackifcopy": "WRITEBACKIFCOPY"}
    _DERIVED_KEYS = {"FNC": "FNC", "FORC": "FORC", "B": "BEHAVED", "BEHAVED": "BEHAVED",
                     "CA": "CARRAY", "CARRAY": "CARRAY", "FA": "FARRAY", "FARRAY": "FARRAY",
                     "X": "WRITEBACKIFCOPY", "WRITEBACKIFCOPY": "WRITEBACKIFCOPY"}

    def __init__(self, lw: Lowerer, x: Node, e: cst.CSTNode) -> None:
        self._lw, self._x, self._e = lw, x, e
        base = e.value if isinstance(e, cst.Attribute) else None
        code = cst.Module([]).code_for_node(base) if base is not None else "x"
        self._name = code if len(code) <= 40 else "x"

    def _fact(self, name: str, spelled: str) -> bool:
        return bool(fact(self._lw, self._x, name, self._e, f"{self._name}.flags.{spelled}"))

    def _derived(self, which: str) -> bool:
        get = self._fact
        if which == "WRITEBACKIFCOPY":
            return False  # set only on arrays made by C code for out= arguments
        if which == "FORC":
            return get("c", "forc") or get("f", "forc")
        if which == "FNC":
            return get("f", "fnc") and not get("c", "fnc")
        behaved = get("a", which.lower()) and get("w", which.lower())
        if which == "BEHAVED":
            return behaved
        if which == "CARRAY":
            return behaved and get("c", "carray")
        return behaved and get("f", "farray") and not get("c", "farray")

    def __getattr__(self, attr: str) -> bool:
        if attr.startswith("_"):
            raise AttributeError(attr)
        if attr in self._ATTRS:
            return self._fact(self._ATTRS[attr], attr)
        if attr in self._DERIVED:
            return self._derived(self._DERIVED[attr])
        if attr in ("owndata", "num") or hasattr(np.ones(1).flags, attr):
            raise self._lw.fail(f"{self._name}.flags.{attr} is not supported (the compiler answers "
                                "contiguity, writeability and alignment)", self._e)
        raise AttributeError(f"'numpy.flagsobj' object has no attribute {attr!r}")

    def __getitem__(self, key: Any) -> bool:
        if isinstance(key, str) and key.upper() == key and key in self._KEYS:
            return self._fact(self._KEYS[key], key)
        if isinstance(key, str) and key in self._DERIVED_KEYS:
            return self._derived(self._DERIVED_KEYS[key])
        raise self._lw.fail(f"{self._name}.flags[{key!r}] is not supported (the compiler answers "
                            "contiguity, writeability and alignment)", self._e)

    def __setattr__(self, attr: str, value: Any) -> None:
        if attr.startswith("_"):
            object.__setattr__(self, attr, value)
            return
        raise self._lw.fail("setting x.flags changes the array in place; compiled code does "
                            "not", self._e, "use x.copy() where a writeable array is needed")

    compile_time_only = True  # never a constant of generated code (effects.py)
    hint = "pass the flags you need: x.flags.c_contiguous, x.flags.writeable"

    @property
    def spelled(self) -> str:
        """The expression as the user wrote it, for messages."""
        return f"{self._name}.flags"

    def __repr__(self) -> str:
        return f"<{self._name}.flags>"


def ravel_order(lw: Lowerer, x: Node, order: str, e: cst.CSTNode, what: str) -> str:
    """The order ('C' or 'F') that ``ravel(order='K'/'A')`` of ``x`` reads its elements in."""
    query = f"{what}(order={order!r})"
    if order == "A":
        return "F" if fact(lw, x, "f", e, query) and not fact(lw, x, "c", e, query) else "C"
    got = layout.infer(x, "k", _leaf(lw))
    if got is None:
        raise lw.fail(f"{query} reads the array in its memory order, which is neither C nor F "
                      f"order here or is not known when compiling (made by {_made_by(x)})", e,
                      "use order='C' (row-major) or order='F' (column-major)")
    return str(got)


def _order_facts(lw: Lowerer, x: Node, order: str, e: cst.CSTNode, what: str
                 ) -> dict[str, Any]:
    """The layout facts of a new array copied from ``x`` in ``order``."""
    order = order.upper()
    if order == "A":
        order = "F" if fact(lw, x, "f", e, what) and not fact(lw, x, "c", e, what) else "C"
    if order == "K":
        got = layout.infer(x, "k", _leaf(lw))
        order = got if got in ("C", "F") else None  # type: ignore[assignment]  # None: layout unknown
    facts: dict[str, Any] = {"w": True, "a": True}
    if order is not None:
        simple = x.type is not None and x.type.shape is not None and (
            0 in x.type.shape or sum(n > 1 for n in x.type.shape) <= 1)
        facts.update(c=order == "C" or simple, f=order == "F" or simple, k=order)
    return facts


def copy(lw: Lowerer, x: Node, args: list[Any], kwargs: dict[str, Any], e: cst.CSTNode,
         what: str, default: str = "C") -> Node:
    """``x.copy(order)`` and ``np.copy(x, order)`` (``default``: 'C' and 'K'): a new array
    with that layout."""
    kwargs = dict(kwargs)
    order = lw.static(args[0] if args else kwargs.pop("order", default), "order", e)
    if len(args) > 1 or kwargs:
        raise lw.fail(f"{what}() got unsupported arguments (it takes order)", e,
                      kind=CompileError)
    if not isinstance(order, str) or order.upper() not in ("C", "F", "A", "K"):
        raise lw.fail(f"{what}(order={order!r}): order must be one of 'C', 'F', 'A', 'K'", e,
                      kind=CompileError)
    node = lw.emit(Op.COPY, [x], None, e)
    _recorded(lw)[node] = Deferred(lambda: _order_facts(lw, x, order, e, what))
    return node


def contiguous(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
               e: cst.Call) -> Any:
    """``np.ascontiguousarray(x, dtype)``/``np.asfortranarray(x, dtype)``: ``x`` itself
    where it is already laid out so (and of that dtype), else a copy laid out so; at
    least 1-d."""
    order = "C" if fn is np.ascontiguousarray else "F"
    what = f"np.{fn.__name__}"
    names = ("a", "dtype")
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names or k in bound:
            raise lw.fail(f"{what} got an unexpected or repeated argument {k!r}", e,
                          kind=CompileError)
        bound[k] = v
    if len(args) > 2 or "a" not in bound:
        raise lw.fail(f"{what} takes a and dtype", e, kind=CompileError)
    from .dispatch import _asarray  # noqa: PLC0415 (dispatch imports this module)

    node = _asarray(lw, np.asarray, [bound["a"]],
                    {"dtype": bound["dtype"]} if "dtype" in bound else {}, e)
    if not isinstance(node, Node):
        return node
    if node.type is not None and node.type.shape == ():
        node = lw.emit(Op.EXPAND_DIMS, [node], {"axis": (0,)}, e)
    already = layout.infer(node, order.lower(), _leaf(lw))
    if already is not True:  # a copy laid out so (or x itself if it is: same values)
        new = lw.emit(Op.COPY if already is False else Op.ASARRAY, [node], None, e)
        _recorded(lw)[new] = _order_facts(lw, node, order, e, what)
        return new
    return node


def ordered(lw: Lowerer, x: Any, node: Node, order: str | None, e: cst.CSTNode,
            what: str) -> bool:
    """``np.asarray(x, order=...)`` made ``node``: record its layout; whether it may be
    ``x`` itself (False: ``x`` is laid out otherwise, so NumPy copies it)."""
    if order is None or order.upper() not in ("C", "F") or not isinstance(x, Node):
        return True
    order = order.upper()
    already = layout.infer(x, order.lower(), _leaf(lw))
    if already is True:
        return True
    facts = _order_facts(lw, x, order, e, what)
    if already is None:  # x itself or a copy: laid out so either way, writeable unknown
        facts = {k: v for k, v in facts.items() if k not in ("w", "a")}
    _recorded(lw)[node] = facts
    return already is None


def new_array(lw: Lowerer, node: Any) -> Any:
    """``node`` is a new array (``x.flatten()``, lowered as a ravel, which may be a view)."""
    if isinstance(node, Node):
        _recorded(lw).setdefault(node, {}).update(w=True, a=True, new=True)
    return node


def is_new_array(lw: Lowerer, node: Node) -> bool:
    """Whether ``new_array`` marked ``node``: a write into it reaches no other array."""
    recorded = _recorded(lw)
    facts = recorded.get(node)
    if isinstance(facts, dict) and facts.get("new"):
        return True
    current = getattr(lw.b, "_current", lambda n: n)  # (a region's view of the node)
    return any(isinstance(f, dict) and f.get("new") and current(m) is node
               for m, f in recorded.items())
