"""What generated code may raise when it runs: the side table behind runtime ``try``.

A ``try`` around runtime nodes is compiled with its handlers chosen while compiling
(``static_stmts``), which is Python's semantics only if the nodes of the body cannot
raise, when they run, an exception a handler would catch.  This module answers, for a
list of nodes, the exception classes they may raise at run time given what lowering has
already checked (shapes, dtypes and static indices are verified while compiling, so a
mismatch there is a compile-time ``StaticRaiseError``, never a runtime one).

Tiers, by op (``classes``):

* **nothing**: constants, arguments, tuples and their items, shapes, ``stop_gradient``
  and views that neither compute nor allocate an array's data: ``np.asarray`` of an
  array (it returns the array itself), ``transpose``, ``swapaxes``, ``moveaxis``,
  ``expand_dims``, ``squeeze``, ``broadcast_to``; the ``enter``/``exit`` nodes of
  ``np.errstate`` and ``warnings.catch_warnings`` blocks (their arguments are checked
  while compiling, ``with_blocks``);
* **allocation**: ops that copy or create data without arithmetic (``reshape`` may
  copy, ``concatenate``, ``triu``, ``zeros``, ...): ``MemoryError``;
* **arithmetic**: every other op: ``ArithmeticError`` (``FloatingPointError`` under
  ``np.errstate(...='raise')`` or ``np.seterr``, ``ZeroDivisionError`` of Python
  numbers), ``RuntimeWarning`` (warnings turned into errors) and ``MemoryError``.

On top of its tier, a node adds ``ValueError`` where it is a LinAlg op (``LinAlgError``
is a ``ValueError``), a ``math`` call (domain errors: ``mark_domain_errors``), a cast of
floats to integers (``int(x)`` of a NaN raises it in Python; the cast it lowers to does
not), a reduction without identity over a possibly empty array, or a
shape is unknown when compiling; ``IndexError`` where an index is computed at run time;
``TypeError`` and ``IndexError`` for untyped nodes; and anything at all
(``BaseException``) for calls of functions the compiler does not see into (opaque C
calls, registered functions, effects such as a runtime ``raise``) and regions holding
them.
"""

from __future__ import annotations

import math
import warnings
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..ir.graph import Node
from ..ir.ops import Op
from .effects_kinds import check_math

#: raised by every op that computes (see the module docstring)
ARITHMETIC: tuple[type, ...] = (ArithmeticError, RuntimeWarning, MemoryError)
#: warnings the generated code never raises: ComplexWarning comes from casting complex
#: values to real, and complex values are refused where they appear (no_complex.py)
NEVER_RAISED: tuple[type, ...] = (np.exceptions.ComplexWarning,)

#: ops that neither compute nor allocate array data (given typed, shaped inputs)
_NOTHING = frozenset({Op.CONST, Op.ARG, Op.TUPLE, Op.ITEM, Op.SHAPE, Op.STOP_GRADIENT,
                      Op.TRANSPOSE, Op.SWAPAXES, Op.MOVEAXIS, Op.EXPAND_DIMS, Op.SQUEEZE,
                      Op.BROADCAST_TO})
#: ops that copy or create array data without arithmetic
_ALLOCATE = frozenset({Op.COPY, Op.RESHAPE, Op.RAVEL, Op.CONCATENATE, Op.STACK, Op.HSTACK,
                       Op.VSTACK, Op.TILE, Op.REPEAT, Op.FLIP, Op.ROLL, Op.TRIU, Op.TRIL,
                       Op.ZEROS, Op.ONES, Op.EYE, Op.ZEROS_LIKE, Op.ONES_LIKE, Op.LIST,
                       Op.DIAG, Op.DIAGONAL})
#: managers whose enter/exit nodes cannot raise (arguments checked while compiling)
_QUIET_BLOCKS = (np.errstate, warnings.catch_warnings, None)
#: ops that raise ``LinAlgError`` (a ``ValueError``) on some data
_LINALG = frozenset({"inv", "solve", "cholesky", "det", "slogdet", "eigh", "eigvalsh",
                     "svd", "svdvals", "qr", "eig", "eigvals", "lu", "matrix_exp"})
#: reductions that raise ``ValueError`` on an empty array
_NO_IDENTITY = frozenset({"max", "min", "argmax", "argmin"})
#: ops whose index inputs may be computed at run time (position of the first index)
_INDEXING = {"getitem": 1, "setitem": 2, "index_add": 2, "scatter_add": 2, "list_get": 1,
             "list_slice": 1, "take": 1, "take_along_axis": 1, "list_index_add": 2}


#: nodes lowered from ``math`` functions: Python raises ``ValueError`` for a domain error
#: (``math.sqrt(-1.0)``, ``math.log(0.0)``, ``math.floor(nan)``) where NumPy's op gives NaN.
#: Held by identity and by (source position, op): naming a node (``v = math.sqrt(x)``)
#: replaces it by a copy that keeps its position and op.
_DOMAIN_ERRORS: weakref.WeakSet[Node] = weakref.WeakSet()
_DOMAIN_SITES: set[tuple[Any, Op]] = set()


def mark_domain_errors(value: Any) -> None:
    """Record that the node ``value`` (when it is one) stands for a ``math`` call, which
    raises ``ValueError`` on a domain error where the NumPy op it lowers to does not."""
    if isinstance(value, Node):
        _DOMAIN_ERRORS.add(value)
        if value.loc is not None:
            _DOMAIN_SITES.add((value.loc, value.op))


def _domain_errors(n: Node) -> bool:
    return n in _DOMAIN_ERRORS or (n.loc is not None and (n.loc, n.op) in _DOMAIN_SITES)


def classes(nodes: list[Node]) -> tuple[type, ...]:
    """The exception classes the runtime nodes ``nodes`` may raise when they run
    (``(BaseException,)`` when anything may be raised)."""
    out: set[type] = set()
    for n in nodes:
        own = _node_classes(n)
        if BaseException in own:
            return (BaseException,)
        out.update(own)
    return tuple(out)


def _node_classes(n: Node) -> tuple[type, ...]:
    if n.op in (Op.CONST, Op.ARG):
        return ()
    params = dict(n.params)
    if n.op is Op.OPAQUE_CALL and params.get("block") in ("enter", "exit") and any(
            params.get("fn") is f for f in _QUIET_BLOCKS):
        return ()
    if n.op is Op.OPAQUE_CALL and any(params.get("fn") is f for f in _FILTER_CALLS) and (
            _filter_call_is_valid(n, params)):
        return ()
    if n.op is Op.OPAQUE_CALL and params.get("fn") is check_math:
        return (ValueError, OverflowError)  # math's domain and range errors
    if n.op is Op.CALL or "call" in n.op.value or "effect" in n.op.value:
        return (BaseException,)
    out: set[type] = set(_tier(n))
    if n.op.value in _LINALG or any(_shapeless(i) for i in (n, *n.inputs)) or (
            n.op.value in _NO_IDENTITY and any(_may_be_empty(i) for i in n.inputs)):
        out.add(ValueError)  # LinAlgError; shapes that may not match when it runs
    if any(i.type is None for i in (n, *n.inputs)):
        out.update((TypeError, IndexError))  # untyped (generic) code: anything
    if n.op is Op.PY_BOOL and any(i.type is None or i.type.kind == "array" and (
            i.type.shape is None or math.prod(i.type.shape) != 1) for i in n.inputs):
        out.add(ValueError)  # bool() of an array of several elements: ambiguous
    if _float_to_int(n) or _domain_errors(n):
        out.add(ValueError)  # int(x)/round(x) of a NaN raises ValueError in Python
    fixed = _INDEXING.get(n.op.value)
    if fixed is not None and (len(n.inputs) > fixed or any(
            i.type is None or i.type.shape is None for i in n.inputs[:1])):
        out.add(IndexError)
    for _, v in n.params:
        inner = getattr(v, "nodes", None)
        if inner is not None:  # a region body
            out.update(classes(list(inner)))
            if BaseException in out:
                return (BaseException,)
    return tuple(out)


#: ``warnings`` calls that raise only on invalid arguments (sklearn's ``check_array`` sets
#: ``simplefilter("error", ComplexWarning)`` inside the ``try`` of its callers)
_FILTER_CALLS = (warnings.simplefilter, warnings.filterwarnings, warnings.resetwarnings)


def _filter_call_is_valid(n: Node, params: dict[str, Any]) -> bool:
    """Whether a ``warnings`` filter call with constant arguments accepts them: it is run
    once here, inside ``catch_warnings`` (so the process's filters are left as they were),
    and what it does with these arguments is what it does when the generated code runs."""
    if not all(i.op is Op.CONST for i in n.inputs):
        return False
    values = [i.param("value") for i in n.inputs]
    names = tuple(params.get("keywords") or ())
    split = len(values) - len(names)
    try:
        with warnings.catch_warnings():
            params["fn"](*values[:split], **dict(zip(names, values[split:])))
    except Exception:  # noqa: BLE001  (the call would raise it at run time: keep BaseException)
        return False
    return True


def _tier(n: Node) -> tuple[type, ...]:
    """The classes of ``n``'s tier: nothing, allocation or arithmetic."""
    if n.op in _NOTHING or (n.op is Op.ASARRAY and all(
            i.type is not None and i.type.kind == "array" for i in n.inputs)):
        return ()
    if n.op in _ALLOCATE:
        return (MemoryError,)
    return ARITHMETIC


def culprit(nodes: list[Node], handler_classes: Sequence[type]) -> Node | None:
    """The first of ``nodes`` that may raise an exception a handler of
    ``handler_classes`` catches (to say where, in a refusal)."""
    for n in nodes:
        if caught(handler_classes, _node_classes(n)):
            return n
    return None


def what(n: Node) -> str:
    """``n`` for a refusal: its op and, where known, its line (``log at f.py:3``)."""
    params = dict(n.params)
    name = params.get("name") if isinstance(params.get("name"), str) else n.op.value
    return f"{name} at {n.loc.short()}" if n.loc is not None else str(name)


def caught(handler_classes: Sequence[type], runtime: tuple[type, ...]) -> list[type]:
    """The classes of a handler that may catch one of ``runtime`` (a superclass or a
    subclass of one), leaving out those the generated code never raises."""
    return [c for c in handler_classes if not issubclass(c, NEVER_RAISED) and any(
        issubclass(r, c) or issubclass(c, r) for r in runtime)]


def _float_to_int(n: Node) -> bool:
    """Whether ``n`` casts floating values to integers: ``int(x)`` and ``round(x)`` lower
    to such a cast, and Python raises ``ValueError`` for NaN (``OverflowError`` for
    infinities, an ``ArithmeticError`` already in the tier) where the cast does not."""
    if n.op is Op.PY_INT and n.inputs:  # int(x): also a TypeError for a non-0-d array
        src = n.inputs[0].type
        return src is None or src.kind not in ("int", "bool") and (
            src.dtype is None or not src.dtype.startswith(("int", "uint", "bool")))
    if n.op is not Op.ASTYPE or n.type is None or not n.inputs:
        return False
    src = n.inputs[0].type
    return (src is None or src.dtype is None or src.dtype.startswith(("float", "complex"))) and (
        n.type.dtype is None or n.type.dtype.startswith(("int", "uint")))


def _may_be_empty(n: Node) -> bool:
    """Whether ``n`` may be an array with no elements (a reduction without identity
    raises ``ValueError`` on it)."""
    t = n.type
    return t is None or t.kind == "array" and (t.shape is None or 0 in t.shape)


def _shapeless(n: Node) -> bool:
    """Whether ``n`` is an array (or untyped) value whose shape is unknown when compiling."""
    t = n.type
    return t is None or t.kind == "array" and t.shape is None


def describe(own: tuple[type, ...]) -> str:
    """The classes one node may raise, as a sentence fragment for a refusal."""
    if BaseException in own:
        return "any exception (the compiler does not see into it)"
    return ", ".join(sorted(c.__name__ for c in own))


def refusal(nodes: list[Node], handler_classes: Sequence[type]) -> str:
    """Why a handler of ``handler_classes`` cannot be decided while compiling: the op of
    the ``try`` body that may raise what it catches, and what that op may raise."""
    n = culprit(nodes, handler_classes)
    if n is None:
        return "the generated code may raise it when it runs"
    return f"{what(n)} may raise {describe(_node_classes(n))} when it runs"
