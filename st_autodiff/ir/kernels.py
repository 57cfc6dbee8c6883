"""Executable meaning of every op on an array namespace ``xp`` (NumPy or CuPy).

The interpreter, the compile-time evaluator and the eager rule namespace all run ops
through ``run``; generated code spells the same calls out.  The few ops that NumPy has no
single function for (``unbroadcast``, ``scatter_add``) are defined here and reach
generated code as ``rt.<name>``.
"""

from __future__ import annotations

import contextlib
import contextvars
import operator
from collections.abc import Callable, Iterator
from typing import Any

from .kernels_fft import cdiv, cmul, fft_c2c, fft_c2r, fft_r2c  # noqa: F401  (fft family: rt.<name>)
from .kernels_linalg import eig, eigvals, lu, matrix_exp, qr  # noqa: F401  (linalg family)
from .kernels_scatter import one_hot_add

# rt.<name> of the scipy.special ops, re-exported by name (mypy --strict)
from .kernels_special import betaln as betaln
from .kernels_special import boxcox as boxcox
from .kernels_special import digamma as digamma
from .kernels_special import entr as entr
from .kernels_special import erf as erf
from .kernels_special import erfc as erfc
from .kernels_special import erfinv as erfinv
from .kernels_special import expit as expit
from .kernels_special import gammainc as gammainc
from .kernels_special import gammaincc as gammaincc
from .kernels_special import gammaln as gammaln
from .kernels_special import huber as huber
from .kernels_special import kl_div as kl_div
from .kernels_special import log_expit as log_expit
from .kernels_special import log_ndtr as log_ndtr
from .kernels_special import logit as logit
from .kernels_special import ndtr as ndtr
from .kernels_special import ndtri as ndtri
from .kernels_special import polygamma as polygamma
from .kernels_special import pseudo_huber as pseudo_huber
from .kernels_special import rel_entr as rel_entr
from .kernels_special import sinc as sinc
from .kernels_special import svd as svd
from .kernels_special import xlog1py as xlog1py
from .kernels_special import xlogy as xlogy
from .kernels_special_more import KERNELS as _SPECIAL_MORE  # special family (issue 11)
from .ops import OP_INFO, Op, Spelling
from .types import Type, type_module

globals().update(_SPECIAL_MORE)  # rt.<name> of the scipy.special ops of kernels_special_more

_INFIX: dict[str, Callable[..., Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "**": operator.pow, "%": operator.mod, "//": operator.floordiv, "@": operator.matmul,
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge,
}
_PREFIX: dict[str, Callable[..., Any]] = {"-": operator.neg, "+": operator.pos}


def resolve(xp: Any, path: str) -> Any:
    """``xp.linalg.norm`` for path ``linalg.norm``; ``rt.x`` resolves in this module."""
    if path.startswith("rt."):
        return globals()[path[3:]]
    obj = xp
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def dtype_param(xp: Any, name: str | None) -> Any:
    """A dtype param (stored as its name) as the backend's dtype object (``object``, which
    NumPy no longer has as ``np.object``, is the builtin)."""
    if name == "object":
        return object
    return None if name is None else getattr(xp, name)


def build_index(index: tuple[Any, ...], dyn: tuple[Any, ...]) -> tuple[Any, ...]:
    """Rebuild a runtime index tuple from its static structure and dynamic parts."""

    def part(entry: Any) -> Any:
        if isinstance(entry, tuple):
            tag = entry[0]
            if tag == "in":
                return dyn[entry[1]]
            if tag == "slice":
                return slice(part(entry[1]), part(entry[2]), part(entry[3]))
            if tag == "list":
                return list(entry[1])
        return entry

    return tuple(part(e) for e in index)


def unbroadcast(g: Any, shape: tuple[int, ...]) -> Any:
    """Sum ``g`` down to ``shape`` (the adjoint of NumPy broadcasting)."""
    gshape = getattr(g, "shape", ())
    if tuple(gshape) == tuple(shape):
        return g
    lead = len(gshape) - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(shape) if d == 1 and gshape[lead + i] != 1)
    if not hasattr(g, "sum"):  # an array-API array: functions, not methods
        xp = array_namespace(g)
        out = xp.sum(g, axis=axes, keepdims=True) if axes else g
        return xp.reshape(out, shape) if lead or axes else out
    out = g.sum(axis=axes, keepdims=True) if axes else g
    return out.reshape(shape) if lead or axes else out


def scatter_add(shape: tuple[int, ...], g: Any, index: tuple[Any, ...]) -> Any:
    """Zeros of ``shape`` with ``g`` added at ``index``; repeated indices accumulate."""
    xp = array_namespace(g, *index)  # (g may be a Python number: the index's namespace)
    dtype = getattr(g, "dtype", None)
    return index_add_(xp.zeros(shape, dtype=dtype if dtype is not None else xp.float64),
                      index, g)


def stop_gradient(x: Any) -> Any:
    """``x`` itself, through which compiled gradients do not flow (``st.stop_gradient``,
    as ``jax.lax.stop_gradient``): the compiler lowers the call to a ``stop_gradient``
    node, which has no gradient by design."""
    return x


def python_float(x: Any) -> Any:
    """``float(x)``: a NumPy float as a Python float (a weak scalar in NumPy's promotion);
    other libraries' scalars (a CuPy or Dask 0-d array) stay as they are, so that the
    generated code reads nothing back from a device or a graph."""
    import numpy as np  # noqa: PLC0415  (this module reaches arrays through ``xp`` only)

    if isinstance(x, (np.floating, np.ndarray)):
        return float(x)
    return x


def python_int(x: Any) -> int:
    """``int(x)``: Python's int of a number or a 0-d array of any library (truncated; a
    NaN raises ``ValueError``, an infinity ``OverflowError``, an array of more than one
    element ``TypeError``, all as Python does), so that integer arithmetic on it is
    Python's: ``3 // int(x)`` raises ``ZeroDivisionError`` where NumPy's int64 gives 0.
    The user wrote ``int()``: reading a device value back is what they asked for."""
    return int(x)


def python_bool(x: Any) -> bool:
    """``bool(x)``: Python's bool of a number or an array of one element (an array of more
    raises ValueError, as Python does), so that ``bool(a) + bool(b)`` counts as Python's
    bools do (NumPy's bools add as a logical or) and ``-bool(a)`` is -1."""
    return bool(x)


def no_derivative(x: Any, what: str = "") -> Any:
    """``x`` itself (stats): an argument with no derivative (an integer count, a shape
    parameter of ``betainc``); the compiler refuses it, with its location, when it is
    active."""
    return x


def index_add(x: Any, g: Any, index: tuple[Any, ...]) -> Any:
    """A copy of ``x`` with ``g`` added at ``index`` (the functional form)."""
    return index_add_(array_namespace(x).copy(x), index, g)


def index_add_(out: Any, index: tuple[Any, ...], g: Any) -> Any:
    """Add ``g`` into ``out`` at ``index`` in place; repeated indices accumulate."""
    advanced = any(getattr(i, "dtype", None) is not None and i.dtype != bool
                   or isinstance(i, list) for i in index)
    if not advanced and not type_module(out).startswith(("numpy", "cupy")) and any(
            i is None for i in index):
        # another library (array API, Dask): no newaxis in a write; g reshaped to the
        # axes written
        index = tuple(i for i in index if i is not None)
        xp = array_namespace(out)
        g = xp.reshape(xp.asarray(g), out[index + (Ellipsis,)].shape)
    if not advanced:
        nd = getattr(out, "ndim", 0)
        if all(i is not Ellipsis for i in index) and sum(i is not None for i in index) < nd:
            index = (*index, Ellipsis)  # (the array API indexes every axis)
        out[index] += g
    else:  # NumPy's and CuPy's add.at (cupyx.scatter_add is deprecated in CuPy 14)
        xp = array_namespace(out)
        at = getattr(getattr(xp, "add", None), "at", None)
        if at is not None:
            at(out, index, g)
        else:  # an array-API namespace: no scatter-add; one index array, a one-hot matmul
            out = one_hot_add(xp, out, index, g)
    return out


def setitem(x: Any, v: Any, index: tuple[Any, ...]) -> Any:
    """A copy of ``x`` with ``v`` written at ``index`` (``x[index] = v`` as a value)."""
    out = array_namespace(x).copy(x)
    out[index] = v
    return out


def list_sum(items: list[Any]) -> Any:
    """``sum(items)`` as Python computes it (``0 + items[0] + ...``); an empty list sums
    to a float64 zero rather than the int 0 (generated code may read its ``.shape``)."""
    if not items:
        import numpy  # noqa: PLC0415

        return numpy.float64(0.0)
    return sum(items)


def list_zeros(items: list[Any] | None) -> list[Any] | None:
    """Zeros shaped like each item: the adjoint of a list nothing flowed into.  None (a
    loop-carried list before its first assignment) has no adjoint: None.  A None item
    (an iteration that appended nothing) gets 0.0, a zero of any shape."""
    if items is None:
        return None
    return [0.0 if v is None else list_zeros(v) if isinstance(v, list) else
            array_namespace(v).zeros_like(v) if hasattr(v, "shape") else 0.0 * v
            for v in items]


def list_add(a: list[Any], b: Any) -> list[Any]:
    """Item-by-item sum of two equally long lists (adjoints of one list); ``b`` that is
    not a list is added to every item (the adjoint of ``sum(xs)``)."""
    if a is None or b is None:  # the adjoint of a carried list before its first value
        return b if a is None else a
    if isinstance(b, list):  # items may be lists too (an inner loop's stacks): recurse
        return [x if y is None else y if x is None else list_add(x, y) if isinstance(
            x, list) else x + y for x, y in zip(a, b, strict=True)]
    return [list_add(x, b) if isinstance(x, list) else x + b for x in a]


def list_gather(*parts: Any) -> list[Any]:
    """The list a loop built with appends that some iterations skip: ``parts`` holds one
    list per append site (an item for every iteration) and then one list of flags per
    site (None for a site that always appends); iteration by iteration, site by site,
    the items whose flag is set.  A site's list may be None: items with no value."""
    n = len(parts) // 2
    ys, flags = parts[:n], parts[n:]
    out = []
    some: list[Any] = next((y for y in ys if y is not None), [])
    for t in range(_iterations(flags, some, 1)):
        for s in range(n):
            if flags[s] is None or flags[s][t]:
                out.append(None if ys[s] is None else ys[s][t])
    return out


def list_ungather(g: list[Any], *flags: Any, site: int = 0) -> list[Any]:
    """The items of ``g`` (shaped like ``list_gather``'s result) that append site
    ``site`` made, one per iteration, 0.0 (a zero of any shape) where it made none: the
    adjoint of ``list_gather`` for that site."""
    n = len(flags)
    out, k = [], 0
    for t in range(_iterations(flags, g, n)):
        for s in range(n):
            made = flags[s] is None or bool(flags[s][t])
            if s == site:
                out.append(g[k] if made else 0.0)
            k += made
    return out


def _iterations(flags: tuple[Any, ...], items: list[Any], per: int) -> int:
    """How many iterations ran: a flag list's length, else ``len(items) // per``."""
    for f in flags:
        if f is not None:
            return len(f)
    return len(items) // per if per else 0


def list_split_like(x: Any, items: list[Any], axis: int = 0) -> list[Any]:
    """``x`` cut along ``axis`` into pieces as long as ``items``: the adjoint of
    ``np.concatenate(items)``."""
    xp = array_namespace(x)
    cuts, at = [], 0
    for v in items[:-1]:
        at += v.shape[axis]
        cuts.append(at)
    return list(xp.split(x, cuts, axis=axis)) if items else []


def list_index_add(items: list[Any], index: int, g: Any) -> list[Any]:
    """A copy of ``items`` with ``g`` added to item ``index`` (the adjoint of ``xs[k]``)."""
    out = list(items)
    out[index] = out[index] + g
    return out


def list_unstack(x: Any, axis: int = 0) -> list[Any]:
    """``list(x)`` along ``axis``: the adjoint of ``np.stack``."""
    xp = array_namespace(x)
    return [xp.take(x, k, axis=axis) for k in range(x.shape[axis])]


def sigmoid(x: Any) -> Any:
    """``1 / (1 + exp(-x))`` without overflow for large ``|x|``."""
    xp = array_namespace(x)
    e = xp.exp(-xp.abs(x))
    return xp.where(x >= 0, 1 / (1 + e), e / (1 + e))


def relu(x: Any) -> Any:
    """``max(x, 0)`` elementwise (NaN stays NaN)."""
    return array_namespace(x).maximum(x, 0)


def softmax(x: Any, axis: int = -1) -> Any:
    """``exp(x) / sum(exp(x))`` along ``axis``, shifted by the maximum for stability."""
    xp = array_namespace(x)
    if _plain_numpy(xp, x):  # the same reductions without np.max/np.sum's Python wrappers
        e = xp.exp(x - xp.maximum.reduce(x, axis=axis, keepdims=True))
        return e / xp.add.reduce(e, axis=axis, keepdims=True)
    e = xp.exp(x - xp.max(x, axis=axis, keepdims=True))
    return e / xp.sum(e, axis=axis, keepdims=True)


def _plain_numpy(xp: Any, x: Any) -> bool:
    """True for a NumPy ndarray (not a subclass), whose ufunc reductions are what
    ``np.max``/``np.sum`` end in."""
    return xp.__name__ == "numpy" and type(x) is xp.ndarray


def log_softmax(x: Any, axis: int = -1) -> Any:
    """``x - logsumexp(x)`` along ``axis``."""
    xp = array_namespace(x)
    if _plain_numpy(xp, x):
        s = x - xp.maximum.reduce(x, axis=axis, keepdims=True)
        return s - xp.log(xp.add.reduce(xp.exp(s), axis=axis, keepdims=True))
    s = x - xp.max(x, axis=axis, keepdims=True)
    return s - xp.log(xp.sum(xp.exp(s), axis=axis, keepdims=True))


def logsumexp(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """``log(sum(exp(x)))`` over ``axis``, exact for large values and for all -inf."""
    xp = array_namespace(x)
    m = xp.max(x, axis=axis, keepdims=True)
    m = xp.where(xp.isfinite(m), m, 0)
    out = xp.log(xp.sum(xp.exp(x - m), axis=axis, keepdims=True)) + m
    if not keepdims:
        out = xp.squeeze(out, axis=axis) if axis is not None else out.reshape(())
    return out


def array_namespace(*values: Any) -> Any:
    """The ``xp`` of the values' array namespace (``ir/namespaces``): ``numpy`` for
    NumPy arrays and Python numbers, ``cupy`` for CuPy arrays, NumPy's names on the
    namespace of any other array (``array_api_strict``, Dask)."""
    for v in values:
        if type(v).__module__ != "numpy" and hasattr(v, "shape") or isinstance(v, list):
            from .namespaces import bound_namespace, namespace_of  # noqa: PLC0415

            # bke (issue 15, eager runtime): the CPU device stand-in names its own namespace
            if type_module(v).endswith("device_standin"):
                return v.__array_namespace__()
            ns = namespace_of(v)
            if ns is not None:
                return bound_namespace(ns)
    import numpy

    return numpy


#: True while the compiler evaluates nodes on example values (see ``compiling``)
_COMPILING: contextvars.ContextVar[bool] = contextvars.ContextVar("st_compiling",
                                                                  default=False)

#: ops that call a user's function (or rule): run once per call of the compiled code,
#: never while compiling, never shared (CSE) or dropped (DCE)
OPAQUE = frozenset({Op.CALL, Op.CALL_VJP, Op.OPAQUE_CALL})


@contextlib.contextmanager
def compiling() -> Iterator[None]:
    """While active, ``run`` gives ``call``/``call_vjp`` nodes a stand-in value of their
    type instead of calling the user's function: the compiler evaluates example values
    for types, and a user's function may have effects (a counter, a print, a random
    draw) that must happen once per call of the compiled code, never while compiling."""
    token = _COMPILING.set(True)
    try:
        yield
    finally:
        _COMPILING.reset(token)


def stand_in(xp: Any, spec: Any) -> Any:
    """A value of the type ``spec`` (a ``Type``, or a tuple or list of them): zeros.
    Raises ``ValueError`` where the type does not say enough (an unknown shape)."""
    if isinstance(spec, (tuple, list)):
        return type(spec)(stand_in(xp, s) for s in spec)
    if not isinstance(spec, Type):
        raise ValueError("the output type of this call is unknown")
    if spec.kind == "float":
        return 0.0
    if spec.kind == "int":
        return 0
    if spec.kind == "bool":
        return False
    if spec.kind == "none":
        return None
    if spec.kind == "array" and spec.shape is not None and spec.dtype is not None:
        return xp.zeros(spec.shape, dtype=getattr(xp, spec.dtype))
    raise ValueError(f"the output type of this call ({spec}) has no known shape")


def _zero_gradient(xp: Any, a: Any) -> Any:
    """The stand-in gradient of one argument of a registered function: zeros like a
    floating-point argument, ``None`` for the others (see ``custom.VjpCall``)."""
    if type(a) is float:
        return 0.0
    dt = getattr(a, "dtype", None)
    if dt is not None and getattr(dt, "kind", "") in ("f", "c"):
        return xp.zeros_like(a)
    return None


def call_opaque(inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """Run an ``opaque_call`` node: ``fn(*args, **kwargs)``, or ``args[0].method(...)``;
    the last ``len(keywords)`` inputs are the keyword arguments."""
    keywords = params.get("keywords") or ()
    pos = inputs[:len(inputs) - len(keywords)]
    kw = dict(zip(keywords, inputs[len(pos):]))
    block = params.get("block")
    if block == "exit":  # the end of a with block (generated code writes a with)
        pos[0].__exit__(None, None, None)
        return None
    method = params.get("method")
    if method is not None:
        return getattr(pos[0], method)(*pos[1:], **kw)
    made = params["fn"](*pos, **kw)
    if block == "enter":
        made.__enter__()
    return made


def run(op: Op, xp: Any, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """Evaluate one op on concrete inputs."""
    info = OP_INFO[op]
    sp = info.spelling
    if sp is Spelling.INFIX:
        return _INFIX[info.infix](*inputs)  # type: ignore[index]
    if sp is Spelling.PREFIX:
        return _PREFIX[info.infix](inputs[0])  # type: ignore[index]
    if op is Op.CONST:
        return params["value"]
    if op is Op.TUPLE:
        return tuple(inputs)
    if op is Op.ITEM:
        return inputs[0][params["index"]]
    if op is Op.SHAPE:
        return tuple(getattr(inputs[0], "shape", ()))
    if op is Op.GETITEM:
        index = build_index(params["index"], inputs[1:])
        if isinstance(inputs[0], tuple) and len(index) == 1:
            index = index[0]  # x.shape[0] of a shape known at run time only
        return inputs[0][index]
    if op is Op.CALL:
        if _COMPILING.get():  # never run a user's function while compiling: its type
            return stand_in(xp, params.get("out_type"))
        return params["fn"](*inputs)
    if op is Op.OPAQUE_CALL:
        if _COMPILING.get():  # typed by its rule (ir/infer), never run while compiling
            raise ValueError("a passed-through call is never run while compiling")
        return call_opaque(inputs, params)
    if op is Op.CALL_VJP:
        if _COMPILING.get():  # nor its rule: gradients are typed like the arguments
            return tuple(_zero_gradient(xp, a) for a in inputs[2:])
        return tuple(params["fn"](*inputs))
    if op is Op.INDEX_ADD:
        return index_add(inputs[0], inputs[1], build_index(params["index"], inputs[2:]))
    if op is Op.SCATTER_ADD:
        return scatter_add(inputs[0], inputs[1], build_index(params["index"], inputs[2:]))
    if op is Op.SETITEM:
        return setitem(inputs[0], inputs[1], build_index(params["index"], inputs[2:]))
    if op is Op.LIST:
        return list(inputs)
    if op is Op.LIST_GET:
        return inputs[0][inputs[1]]
    if op is Op.LIST_LEN:
        return len(inputs[0])
    if op is Op.LIST_CONCAT:
        return list(inputs[0]) + list(inputs[1])
    if op is Op.LIST_REVERSE:
        return list(reversed(inputs[0]))
    if op is Op.LIST_SLICE:
        return list(inputs[0][inputs[1]:inputs[2]])
    if op is Op.LIST_STACK:
        return xp.stack(inputs[0], axis=params["axis"])
    if op is Op.LIST_CATENATE:
        return xp.concatenate(inputs[0], axis=params["axis"])
    if op in (Op.IF, Op.FOR, Op.WHILE):
        from .regions import run_region  # noqa: PLC0415  (regions interprets sub-graphs)

        return run_region(op, xp, inputs, params)
    if op is Op.EINSUM:
        return xp.einsum(params["subscripts"], *inputs)
    if op is Op.ASTYPE:
        return inputs[0].astype(dtype_param(xp, params["dtype"]), copy=params.get("copy", True))
    kwargs = dict(params)
    if "dtype" in kwargs:
        kwargs["dtype"] = dtype_param(xp, kwargs["dtype"])
    fn = resolve(xp, info.numpy)  # type: ignore[arg-type]
    if sp is Spelling.SEQCALL:
        return fn(tuple(inputs), **kwargs)
    return fn(*inputs, **kwargs)
