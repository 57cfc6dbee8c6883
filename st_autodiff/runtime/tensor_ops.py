"""Recording ops into the graph, and the two ``ops`` namespaces rules run with.

``record(cls, data, args, params)`` wraps a computed result in a non-leaf ``Tensor``
whose ``grad_fn`` is a new ``cls`` node (a ``RuleNode`` subclass): it links the node to
its inputs' graph edges and notes the versions of the tensors it saves.  Callers decide
first whether to record (grad mode on and some input requires grad).

``ARRAY_OPS`` runs rules on raw arrays (the usual backward: nothing is recorded, so it is
as fast as NumPy allows); ``TENSOR_OPS`` runs them on Tensors through ``apply_op``, which
records every op it runs, so a backward run with ``create_graph=True`` builds a graph of
its own.  ``apply_op`` evaluates any op of the table with NumPy semantics and names its
node after ``OP_INFO[op].backward_name``.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Literal, overload

import numpy as np

from .. import derivatives
from ..derivatives import RULES
from ..ir.kernels import resolve, run, unbroadcast
from ..ir.ops import OP_INFO, Op, Spelling
from . import dtypes
from .device import is_device, xp_of
from .function import Meta, MultiRuleNode, RuleNode, TensorBase, next_seq, node_class, save_plan
from .grad_mode import STATE
from .tensor import NO_EDGE, Tensor, edge_of, make, plain

__all__ = ["ARRAY_OPS", "TENSOR_OPS", "apply_op", "record", "record_multi"]

_new = object.__new__
_INFIX_FN = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
             "**": operator.pow, "%": operator.mod, "//": operator.floordiv,
             "@": operator.matmul, "==": np.equal, "!=": np.not_equal, "<": np.less,
             "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal}


def _new_node(cls: type[RuleNode], args: tuple[Any, ...], params: dict[Any, Any]) -> RuleNode:
    node: RuleNode = _new(cls)
    which = cls._edges
    if len(which) == 1:  # part "speed": the usual one or two edges without a list
        a = args[which[0]]
        if isinstance(a, Tensor):
            fn = a._grad_fn
            node.next_functions = ((fn, a._output_nr) if fn is not None else edge_of(a),)
        else:
            node.next_functions = (NO_EDGE,)
    elif len(which) == 2:  # (``_edge`` twice, inlined: every binary op comes here)
        a = args[which[0]]
        if isinstance(a, Tensor):
            fn = a._grad_fn
            ea = (fn, a._output_nr) if fn is not None else edge_of(a)
        else:
            ea = NO_EDGE
        b = args[which[1]]
        if isinstance(b, Tensor):
            fn = b._grad_fn
            eb = (fn, b._output_nr) if fn is not None else edge_of(b)
        else:
            eb = NO_EDGE
        node.next_functions = (ea, eb)
    else:
        node.next_functions = tuple([_edge(args[k]) for k in which])
    node._seq = next_seq()
    node._hooks = None
    node._args = args
    node._params = params
    return node


def _edge(a: Any) -> tuple[Any, ...]:
    """The graph edge of an op argument (``NO_EDGE`` for a constant)."""
    if isinstance(a, Tensor):
        fn = a._grad_fn
        return (fn, a._output_nr) if fn is not None else edge_of(a)
    return NO_EDGE


def record(cls: type[RuleNode], data: Any, args: tuple[Any, ...], params: dict[Any, Any]) -> Tensor:
    """A non-leaf tensor holding ``data``, made by a new ``cls`` node over ``args``."""
    which = cls._edges
    if len(which) == 1:  # ``_new_node``, inlined for the usual single edge (per-op cost)
        node: RuleNode = _new(cls)
        a = args[which[0]]
        if isinstance(a, Tensor):
            fn = a._grad_fn
            node.next_functions = ((fn, a._output_nr) if fn is not None else edge_of(a),)
        else:
            node.next_functions = (NO_EDGE,)
        node._seq = next_seq()
        node._hooks = None
        node._args = args
        node._params = params
    else:
        node = _new_node(cls, args, params)
    node._out = data if cls._keeps_out else None
    out = _new(Tensor)  # ``make(data, node)``, inlined: this is the hottest path
    out._data = data
    out._requires_grad = True
    out._grad_fn = node
    out._grad = None
    out._vc = [0]
    out._base = None
    out._output_nr = 0
    out._extra = None
    if cls._tensor_saves:
        saved = save_plan(node, args)
        node._saved = saved + ((None, out._vc, 0),) if cls._saves_result else saved
    elif cls._saves_result:
        node._saved = ((None, out._vc, 0),)
    else:
        node._saved = ()
    return out


def record_multi(cls: type[RuleNode], datas: tuple[Any, ...], args: tuple[Any, ...],
                 params: dict[Any, Any]) -> tuple[Any, ...]:
    """Like ``record`` for an op with several outputs (one node, one tensor per output)."""
    node = _new_node(cls, args, params)
    node._out = datas
    outs = tuple(make(d, node, i) for i, d in enumerate(datas))
    node._saved = save_plan(node, args) if cls._plan else ()
    return outs


def needs_grad(args: tuple[Any, ...]) -> bool:
    """Whether an op on ``args`` must be recorded (grad mode on, some input requires grad)."""
    if not STATE.enabled:
        return False
    for a in args:
        if isinstance(a, TensorBase) and a._requires_grad:
            return True
    return False


# --- generic ops (used by TENSOR_OPS and for ops without a PyTorch-specific node) ------

def _generic_plan(args: tuple[Any, ...]) -> tuple[Any, ...]:
    plan = tuple((f"arg{i}", i, None) for i, a in enumerate(args) if isinstance(a, TensorBase))
    return plan + (("result", "result", None),)


#: the ops whose result is a tuple (``OpInfo.multi``); ``tests/test_typing.py`` checks the list
MultiOp = Literal[Op.CALL_VJP, Op.CDIV, Op.CMUL, Op.EIG, Op.EIGH, Op.FFT_C2C, Op.FFT_R2C, Op.FOR,
                  Op.IF, Op.LU, Op.NONZERO, Op.QR, Op.SLOGDET, Op.SPLIT, Op.SVD, Op.WHILE]


@overload
def apply_op(op: MultiOp, *inputs: Any, **params: Any) -> tuple[Tensor, ...]: ...


@overload
def apply_op(op: Op, *inputs: Any, **params: Any) -> Tensor: ...


def apply_op(op: Op, *inputs: Any, **params: Any) -> Any:
    """Run ``op`` on Tensors (and constants) with NumPy semantics, recording it if needed.

    A tuple of Tensors for a multi-output op, else a Tensor (a plain Python value when only
    Python constants went in, which the typed overloads leave out).
    """
    key = op._value_  # (per-op cost: a string's cached hash, not Enum.__hash__ in Python)
    entry = _INFO.get(key)
    if entry is None:
        entry = _INFO[key] = _info_entry(op)
    info, direct, rule = entry
    full = info.param_defaults
    full.update(params)
    raw = tuple([v._data if isinstance(v, TensorBase) else v for v in inputs])
    xp = _namespace(raw)
    if xp is np:
        # (``run``'s last step for a plain function, without its walk past the special ops)
        data = direct(*raw, **full) if direct is not None and "dtype" not in full else \
            run(op, np, raw, full)
    else:  # a rule's host constants (index grids, zeros) join the device operands there
        raw = tuple(xp.asarray(v) if type(v) is np.ndarray and v.ndim else v for v in raw)
        inputs = tuple(r if type(v) is np.ndarray else v for v, r in zip(inputs, raw))  # saved
        data = run(op, xp, raw, full)
    if info.multi:
        datas = tuple(_as_data(d) for d in data)
        if not (rule is not None and needs_grad(inputs)):
            return tuple(plain(d) for d in datas)
        cls = _generic_class(key, info, rule, inputs, MultiRuleNode)
        return record_multi(cls, datas, inputs, full)
    if not hasattr(data, "dtype"):
        return data  # a Python value (only constants went in)
    data = _as_data(data)
    if rule is not None and data.dtype.kind == "f" and needs_grad(inputs):
        return record(_generic_class(key, info, rule, inputs, RuleNode), data, inputs, full)
    return plain(data)


#: op value -> (OP_INFO entry, NumPy function or None, rule or None)
_INFO: dict[str, tuple[Any, Any, Any]] = {}


def _info_entry(op: Op) -> tuple[Any, Any, Any]:
    """The op's info, for an op that ``run`` ends in a plain call of (not one of its
    special ops) the NumPy function it calls, and its rule (``eager_rules`` first)."""
    from .eager_rules import EAGER_RULES

    info = OP_INFO[op]
    direct = None
    if (info.spelling is Spelling.CALL and info.numpy and not info.variadic
            and op not in _RUN_SPECIAL):
        direct = resolve(np, info.numpy)
    return info, direct, EAGER_RULES.get(op, RULES.get(op))
#: (op value, rule, which inputs are Tensors, base) -> the node class ``node_class`` makes
_GENERIC: dict[tuple[Any, ...], type[RuleNode]] = {}


def _generic_class(key: str, info: Any, rule: Any, inputs: tuple[Any, ...],
                   base: type[RuleNode]) -> type[RuleNode]:
    """``apply_op``'s node class (per-op cost: its name, plan and ``node_class`` key are
    made once per configuration instead of on every op)."""
    flags = tuple([isinstance(a, TensorBase) for a in inputs])
    ckey = (key, rule, flags, base)
    cls = _GENERIC.get(ckey)
    if cls is None:
        cls = _GENERIC[ckey] = node_class(info.backward_name, rule, tuple(range(len(inputs))),
                                          _generic_plan(inputs), base=base)
    return cls


def _as_data(d: Any) -> Any:
    """Keep arrays and NumPy scalars; anything else becomes an array."""
    if isinstance(d, (np.ndarray, np.generic)) or is_device(d):
        return d
    return np.asarray(d)


def _namespace(raw: tuple[Any, ...]) -> Any:
    return xp_of(*raw)


# --- the ops namespaces ------------------------------------------------------------------

class ArrayOps(derivatives.ArrayOps):
    """The rules' ``ops`` on raw arrays (``derivatives.ArrayOps``), with a fast function per
    op cached on first use and the few extras the engine needs."""

    tensors = False

    def __getattr__(self, name: str) -> Any:
        try:
            op = Op(name)
        except ValueError:
            raise AttributeError(name) from None
        fn = _array_fn(op, self.xp)
        setattr(self, name, fn)
        return fn

    @staticmethod
    def meta(x: Any) -> Any:
        return x

    def const(self, value: Any) -> Any:  # type: ignore[override]  # (called on instances only)
        """A rule's host constant (an index grid ...), moved to the device of this ops."""
        if self.xp is not np and isinstance(value, np.ndarray):
            return self.xp.asarray(value)
        return value

    @staticmethod
    def dtype_name(x: Any) -> str:
        return str(x.dtype)

    @staticmethod
    def unbroadcast(g: Any, shape: tuple[Any, ...]) -> Any:
        return unbroadcast(g, shape)

    def broadcast_to(self, x: Any, shape: tuple[Any, ...]) -> Any:
        if self.xp is np and (type(x) is np.ndarray or isinstance(x, np.generic)):
            shape = tuple(shape)  # per-op cost: the NumPy case below, without its probes
            if x.shape == shape:
                return x
            if x.ndim == 0 and math.prod(shape) <= 65536:
                out = np.empty(shape, x.dtype)
                out.fill(x)
                return out
            return np.broadcast_to(x, shape)
        if getattr(x, "shape", None) == tuple(shape):
            return x
        # a reduction's gradient: filling a small array beats np.broadcast_to's Python
        # wrapper (same values; large shapes keep the zero-copy view)
        dt = getattr(x, "dtype", None)
        if dt is not None and self.xp is np and x.ndim == 0 and math.prod(shape) <= 65536 \
                and not is_device(x):
            out = np.empty(shape, dt)
            out.fill(x)
            return out
        # a graph that crosses devices: the gradient stays where it is
        return xp_of(x).broadcast_to(x, shape) if is_device(x) else self.xp.broadcast_to(x, shape)

    @staticmethod
    def astype(x: Any, dtype: Any = None) -> Any:
        return x.astype(dtype)

    def expand_dims(self, x: Any, axis: Any = None) -> Any:
        """``np.expand_dims`` (a reduction's gradient regaining its axes).  Per-op cost: for
        NumPy data its own final step, ``x.reshape`` with ones at the new axes, without its
        Python prologue; anything else (other arrays, odd axes) takes the generic call."""
        if self.xp is np and (type(x) is np.ndarray or isinstance(x, np.generic)):
            axes = axis if type(axis) is tuple else (axis,)
            nd = x.ndim + len(axes)
            new = {a % nd for a in axes if type(a) is int and -nd <= a < nd}
            if len(new) == len(axes):  # (else NumPy's own error, from the generic call)
                dims = iter(x.shape)
                return x.reshape(tuple([1 if i in new else next(dims) for i in range(nd)]))
        generic = self.__dict__.get("_expand_generic")
        if generic is None:
            generic = self.__dict__["_expand_generic"] = _array_fn(Op.EXPAND_DIMS, self.xp)
        return generic(x, axis=axis)

    def split(self, x: Any, indices_or_sections: Any = None, axis: Any = 0) -> Any:
        """``np.split`` at explicit indices (``stack``/``cat`` gradients).  Per-op cost: for a
        NumPy array, the slices ``np.array_split`` takes along ``axis`` (the same views),
        without its Python prologue; anything else takes the generic call."""
        cuts = indices_or_sections
        if (self.xp is np and type(x) is np.ndarray and type(cuts) is tuple
                and type(axis) is int and -x.ndim <= axis < x.ndim
                and all(type(c) is int for c in cuts)):
            ax = axis % x.ndim
            lead = (slice(None),) * ax
            points = (0, *cuts, x.shape[ax])
            return [x[lead + (slice(points[k], points[k + 1]),)] for k in range(len(cuts) + 1)]
        generic = self.__dict__.get("_split_generic")
        if generic is None:
            generic = self.__dict__["_split_generic"] = _array_fn(Op.SPLIT, self.xp)
        return generic(x, indices_or_sections=indices_or_sections, axis=axis)

    def scatter_add(self, shape: Any, g: Any, *dyn: Any, **params: Any) -> Any:
        """Zeros of ``shape`` with ``g`` added at the index (``getitem``'s adjoint).  Per-op
        cost: a NumPy gradient at a static index of integers and slices goes straight to
        ``zeros[index] += g``, which is what ``ir.kernels.scatter_add`` ends in there."""
        index = _basic_index(params) if not dyn and self.xp is np else None
        if index is not None and (type(g) is np.ndarray or isinstance(g, np.generic)):
            out = np.zeros(shape, g.dtype)
            out[index if len(index) >= len(out.shape) else (*index, Ellipsis)] += g
            return out
        generic = self.__dict__.get("_scatter_generic")
        if generic is None:
            generic = self.__dict__["_scatter_generic"] = _array_fn(Op.SCATTER_ADD, self.xp)
        return generic(shape, g, *dyn, **params)

    def fill_missing(self, grads: list[Any], out: Any, raw: Any) -> tuple[Any, ...]:
        return tuple(self.xp.zeros_like(o) if g is None else g
                     for g, o in zip(grads, out, strict=True))

    def zeros_of(self, meta: Any) -> Any:
        return self.xp.zeros(meta.shape, meta.dtype)


def _basic_index(params: dict[str, Any]) -> tuple[Any, ...] | None:
    """The static ``index`` param as a tuple of ints and slices (``build_index``'s result),
    or None for anything else (arrays, lists, newaxis, dynamic parts, other params)."""
    index = params.get("index")
    if len(params) != 1 or type(index) is not tuple:
        return None
    out: list[Any] = []
    for e in index:
        if type(e) is int:
            out.append(e)
        elif (type(e) is tuple and len(e) == 4 and e[0] == "slice"
              and all(p is None or type(p) is int for p in e[1:])):
            out.append(slice(e[1], e[2], e[3]))
        else:
            return None
    return tuple(out)


#: ops that ``ir.kernels.run`` evaluates in a way of their own (speedcore)
_RUN_SPECIAL = frozenset(getattr(Op, name) for name in (
    "CONST", "TUPLE", "ITEM", "SHAPE", "GETITEM", "CALL", "OPAQUE_CALL", "CALL_VJP",
    "INDEX_ADD", "SCATTER_ADD", "SETITEM", "LIST", "LIST_GET", "LIST_LEN", "LIST_CONCAT",
    "LIST_REVERSE", "LIST_SLICE", "LIST_STACK", "LIST_CATENATE", "IF", "FOR", "WHILE",
    "EINSUM", "ASTYPE"))


def _array_fn(op: Op, xp: Any) -> Any:
    info = OP_INFO[op]
    if info.spelling is Spelling.INFIX:
        return _INFIX_FN[info.infix]  # type: ignore[index]
    if info.spelling is Spelling.PREFIX:
        return operator.neg if info.infix == "-" else operator.pos
    if (not info.params and info.spelling is Spelling.CALL and info.numpy
            and not info.variadic):
        return resolve(xp, info.numpy)
    defaults = info.param_defaults
    if (info.spelling is Spelling.CALL and info.numpy and not info.variadic
            and op not in _RUN_SPECIAL and not info.numpy.startswith("rt.")):
        # speedcore: what ``run`` ends with for a plain NumPy function, without walking its
        # list of special ops on every call
        fn = resolve(xp, info.numpy)

        def direct(*inputs: Any, **params: Any) -> Any:
            full = dict(defaults)
            full.update(params)
            if "dtype" in full:
                return run(op, xp, inputs, full)
            return fn(*inputs, **full)

        return direct

    def call(*inputs: Any, **params: Any) -> Any:
        full = dict(defaults)
        full.update(params)
        return run(op, xp, inputs, full)

    return call



class _TensorMeta:
    """A released input seen from TENSOR_OPS: its shape as a Size, its dtype as a dtype."""

    __slots__ = ("shape", "dtype", "ndim")

    def __init__(self, m: Meta) -> None:
        self.shape = dtypes.Size(m.shape)
        dt = m.dtype
        self.dtype = dt if dt is None or isinstance(dt, dtypes.dtype) else \
            dtypes.from_numpy_dtype(dt)
        self.ndim = len(m.shape)


class TensorOps(derivatives.ArrayOps):
    """The rules' ``ops`` on Tensors: every op is recorded (for higher-order gradients).
    Shape queries come from ``derivatives.ArrayOps``; ops go through ``apply_op``."""

    tensors = True

    def __init__(self) -> None:
        super().__init__(None)

    def __getattr__(self, name: str) -> Any:
        try:
            op = Op(name)
        except ValueError:
            raise AttributeError(name) from None

        def call(*inputs: Any, **params: Any) -> Any:
            return apply_op(op, *inputs, **params)

        setattr(self, name, call)
        return call

    @staticmethod
    def dtype(x: Any) -> str | None:
        dt = getattr(x, "dtype", None)
        if dt is None:
            return None
        return dt.name if isinstance(dt, dtypes.dtype) else str(dt)

    @staticmethod
    def meta(x: Any) -> Any:
        return _TensorMeta(x) if isinstance(x, Meta) else x

    @staticmethod
    def dtype_name(x: Any) -> str:
        name: str = x.dtype.name
        return name

    @staticmethod
    def unbroadcast(g: Any, shape: tuple[Any, ...]) -> Any:
        if tuple(g.shape) == tuple(shape):
            return g
        return apply_op(Op.UNBROADCAST, g, tuple(shape))

    @staticmethod
    def broadcast_to(x: Any, shape: tuple[Any, ...]) -> Any:
        if tuple(getattr(x, "shape", ())) == tuple(shape):
            return x
        return apply_op(Op.BROADCAST_TO, x, tuple(shape))

    def fill_missing(self, grads: list[Any], out: Any, raw: Any) -> tuple[Any, ...]:
        from .factory import zeros_like

        return tuple(zeros_like(o) if g is None else g for g, o in zip(grads, out, strict=True))

    def zeros_of(self, meta: Any) -> Any:
        return plain(np.zeros(meta.shape, meta.dtype))


ARRAY_OPS = ArrayOps(np)
TENSOR_OPS = TensorOps()
_GPU_OPS: dict[int, ArrayOps] = {}


def array_ops_for(value: Any) -> ArrayOps:
    """ARRAY_OPS for NumPy values, a CuPy twin for GPU values."""
    if isinstance(value, (np.ndarray, np.generic)) or not is_device(value):
        return ARRAY_OPS
    xp = xp_of(value)
    ops = _GPU_OPS.get(id(xp))
    if ops is None:
        ops = _GPU_OPS[id(xp)] = ArrayOps(xp)
    return ops


# --- helpers for nodes (imported lazily by function.py) ----------------------------------

def as_tensor_grad(g: Any) -> Any:
    """A gradient handed to ``node(...)``: Tensors stay, None stays."""
    if g is None or isinstance(g, TensorBase):
        return g
    raise TypeError(f"expected a Tensor or None as gradient, got {type(g).__name__}")


def wrap_saved_result(node: RuleNode) -> Tensor:
    """The node's saved output as a new Tensor sharing its storage (grad_fn is the node)."""
    out = node._out
    counter = next((c for t, c, _v in (node._saved or ()) if t is None), None)
    if isinstance(out, tuple):
        return tuple(_wrap_out(o, node, i, counter) for i, o in enumerate(out))  # type: ignore
    return _wrap_out(out, node, 0, counter)


def _wrap_out(data: Any, node: RuleNode, nr: int, counter: Any) -> Tensor:
    t = make(data, node, nr)
    if counter is not None:
        t._vc = counter
    return t


def scalar_tensor(value: Any) -> Any:
    """A saved Python scalar shown as PyTorch shows it: a 0-d tensor."""
    if value is None or isinstance(value, (tuple, list, str)):
        return value
    if isinstance(value, bool):
        return plain(np.bool_(value))
    if isinstance(value, int):
        return plain(np.int64(value))
    if isinstance(value, float):
        return plain(np.float64(value))
    return plain(value) if hasattr(value, "dtype") else value


def describe(data: Any) -> str:
    """``[torch.FloatTensor [2, 3]]``, as PyTorch names a tensor in error messages."""
    if isinstance(data, Meta):
        shape, dt = data.shape, data.dtype
    else:
        shape, dt = data.shape, data.dtype
    kind = dtypes.from_numpy_dtype(dt)._tensor_type
    return f"[torch.{kind} [{', '.join(str(d) for d in shape)}]]"
