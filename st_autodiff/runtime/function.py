"""Backward graph nodes (``grad_fn``): what each recorded op needs to run its backward.

A ``Node`` has ``next_functions``, a tuple of ``(node, output_nr)`` edges (``None`` for
an input that needs no gradient), hooks, and one method that does the work::

    backward(grads: list, ops) -> sequence  # one gradient (or None) per edge

``grads`` holds one gradient per forward output of the node.  ``ops`` is the rules'
``ops`` protocol (see ``derivatives``): in the usual backward it is ``ARRAY_OPS`` and
every value is a raw NumPy/CuPy array; with ``create_graph=True`` (or when a node is
called directly) it is ``TENSOR_OPS`` and every value is a ``Tensor``, so whatever the
backward computes is itself recorded and can be differentiated again.  ``ops.tensors``
says which.

* ``RuleNode`` runs one rule of the shared table ``derivatives.RULES`` and fits each
  gradient to its input (sums broadcast axes away, casts to the input's dtype): that is
  the one place where unbroadcasting happens.  Its subclasses are made per PyTorch name
  by ``node_class`` (``MulBackward0``...), so ``type(y.grad_fn).__name__`` reads as in
  PyTorch.  A saved-value plan names what PyTorch saves (``_saved_self``,
  ``_saved_result`` ...): those tensors are version-checked before the rule runs and
  released by ``_release`` after a backward that does not retain the graph.
* ``AccumulateGrad`` ends every path at a leaf that requires grad and adds into ``.grad``.

Writing a custom node (the bridge to compiled functions does this; ``autograd.Function``
is a worked example): subclass ``Node`` with ``__slots__`` for what you keep, name the
class as it should print, and in ``__init__`` set ``self.next_functions`` (one
``tensor.edge_of(t)`` per input, ``(None, 0)`` for inputs without gradient),
``self._seq = next_seq()`` and ``self._hooks = None``.  Implement ``backward(grads, ops)``
returning one gradient per edge; any Python may run there.  When ``ops.tensors`` is false,
take and return raw arrays (``fit(ops, g, like)`` gives a gradient the shape and dtype of
its input); when it is true, build the result from Tensor operations (or ``ops.<op>``
calls) so that a ``create_graph`` backward stays differentiable.  Create the outputs with
``tensor.make(data, node, output_nr)`` (give the class a ``_nout`` when there are several)
and override ``_release`` to drop what you saved after a backward without
``retain_graph``.  For a forward that is one op of the table, ``node_class`` plus
``tensor_ops.record`` do all of this.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

import numpy as np

from .device import is_device
from .hooks import HookDict, RemovableHandle, add_hook

if TYPE_CHECKING:
    from .tensor import Extra, Tensor

__all__ = ["AccumulateGrad", "Meta", "MultiRuleNode", "Node", "RuleNode", "fit", "next_seq",
           "node_class"]

_counter = itertools.count()
next_seq = _counter.__next__

FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)
INFERENCE_SAVE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead "
    "of `torch.inference_mode()`."
)


class Meta:
    """Shape and dtype of a released value: all a shape-only rule (sum, view ...) reads."""

    __slots__ = ("shape", "dtype")

    def __init__(self, value: Any) -> None:
        self.shape = getattr(value, "shape", ())
        self.dtype = getattr(value, "dtype", None)

    @classmethod
    def of(cls, shape: tuple[Any, ...], dtype: Any) -> Meta:
        """A Meta for a value of ``shape`` and ``dtype``."""
        m = cls.__new__(cls)
        m.shape, m.dtype = tuple(shape), dtype
        return m

    @property
    def ndim(self) -> int:
        return len(self.shape)


class Hooks:
    """The hooks of one node, created on first registration (most nodes have none)."""

    __slots__ = ("pre", "post", "tensor", "retain")

    def __init__(self) -> None:
        self.pre = HookDict()  # register_prehook: fn(grad_outputs) -> None | new
        self.post = HookDict()  # register_hook: fn(grad_inputs, grad_outputs) -> None | new
        self.tensor: dict[int, HookDict] = {}  # Tensor.register_hook on output nr
        self.retain: dict[int, Any] = {}  # retain_grad(): output nr -> weakref(tensor)


class Node:
    """Base of every graph node (see the module docstring)."""

    __slots__ = ("next_functions", "_seq", "_hooks", "_metadata", "__weakref__")

    next_functions: tuple[tuple[Node | None, int], ...]  # (input's node, its output nr)
    _seq: float  # creation order (an int; inf for AccumulateGrad)
    _hooks: Hooks | None
    _nout = 1

    def name(self) -> str:
        """The node's name, e.g. ``MulBackward0``."""
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    @property
    def metadata(self) -> dict[Any, Any]:
        """A dict for users to attach information to the node."""
        try:
            return self._metadata
        except AttributeError:
            self._metadata: dict[Any, Any] = {}
            return self._metadata

    def backward(self, grads: list[Any], ops: Any) -> Sequence[Any]:
        raise NotImplementedError

    def _release(self) -> None:
        """Drop saved values after a backward that does not retain the graph."""

    def _ensure_hooks(self) -> Hooks:
        if self._hooks is None:
            self._hooks = Hooks()
        return self._hooks

    def register_hook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """``fn(grad_inputs, grad_outputs)`` after the node runs; may return new grad_inputs."""
        return add_hook(self._ensure_hooks().post, fn)

    def register_prehook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """``fn(grad_outputs)`` before the node runs; may return new grad_outputs."""
        return add_hook(self._ensure_hooks().pre, fn)

    def _register_tensor_hook(self, nr: int, fn: Callable[..., Any]) -> RemovableHandle:
        hooks = self._ensure_hooks().tensor
        return add_hook(hooks.setdefault(nr, HookDict()), fn)

    def __call__(self, *grads: Any) -> Any:
        """Run this node's backward on Tensors, recorded when grad mode is on."""
        from .device_ops import tensor_ops_for
        from .tensor_ops import as_tensor_grad

        if len(grads) != self._nout:
            raise TypeError(f"expected {self._nout} arguments, got {len(grads)} instead")
        ops = tensor_ops_for(next((g for g in grads if g is not None), None))
        out = self.backward([as_tensor_grad(g) for g in grads], ops)
        out = tuple(out)
        return out[0] if len(out) == 1 and not isinstance(self, AccumulateGrad) else out


def fit(ops: Any, g: Any, like: Any) -> Any:
    """``g`` summed down (or broadcast up) to the shape of ``like`` and cast to its dtype."""
    shape = like.shape
    if type(g) is np.ndarray and not ops.tensors:  # per-op cost: the usual NumPy case
        gshape = g.shape
        if gshape != shape:
            axes = _sum_axes(gshape, tuple(shape))
            if axes is not None:  # ``unbroadcast``'s sum, without its generic prologue
                g = _add_reduce(g, axes, None, None, True).reshape(shape)
        if g.shape == shape:
            dt = like.dtype
            if dt is not None and g.dtype != dt:
                g = g.astype(dt)
            return g
    if g.shape != shape:
        g = ops.unbroadcast(g, tuple(shape))
        if g.shape != shape:
            g = ops.broadcast_to(g, tuple(shape))
    dt = like.dtype
    if dt is not None and g.dtype != dt:
        g = ops.astype(g, dtype=ops.dtype_name(like))
    if not shape and type(g) is not np.ndarray and not isinstance(g, np.generic):
        g = _to_host_scalar(g, like)
    return g


def _to_host_scalar(g: Any, like: Any) -> Any:
    """A 0-d host operand of a device op (PyTorch lets one join as a scalar) gets its
    gradient on the host, where PyTorch's engine moves a 0-d gradient too."""
    data = g._data if isinstance(g, TensorBase) else g
    ldata = like._data if isinstance(like, TensorBase) else like
    if not isinstance(ldata, (np.ndarray, np.generic)) or not is_device(data):
        return g  # (a released input's Meta says nothing of its device: left alone)
    return g.cpu() if isinstance(g, TensorBase) else data.get()  # type: ignore[attr-defined]


_add_reduce: Any = np.add.reduce  # what ``ndarray.sum`` calls: the same sums, bit for bit
#: (gradient shape, input shape) -> the axes that sum the gradient down to the input
#: (``ir.kernels.unbroadcast``'s), or None where it is not a plain sum (broadcasting up)
_SUM_AXES: dict[tuple[Any, Any], tuple[int, ...] | None] = {}


def _sum_axes(gshape: tuple[int, ...], shape: tuple[int, ...]) -> tuple[int, ...] | None:
    key = (gshape, shape)
    try:
        return _SUM_AXES[key]
    except KeyError:
        pass
    lead = len(gshape) - len(shape)
    axes: tuple[int, ...] | None = None
    if lead >= 0 and all(d == 1 or gshape[lead + i] == d for i, d in enumerate(shape)):
        axes = tuple(range(lead)) + tuple(
            lead + i for i, d in enumerate(shape) if d == 1 and gshape[lead + i] != 1)
    if len(_SUM_AXES) >= 4096:  # shapes of one program are few; never grow without bound
        _SUM_AXES.clear()
    _SUM_AXES[key] = axes
    return axes


class RuleNode(Node):
    """A node whose backward is one rule of the shared table (see the module docstring).

    Class attributes, set by ``node_class``: ``_rule``; ``_edges`` (for each edge, the rule
    input it comes from); ``_plan`` (saved values: ``(attr, source, needed_for)``, where
    source is an input index, ``"result"`` or a callable on (args, params)); ``_keeps_out``
    (whether the rule reads ``out``).
    """

    __slots__ = ("_args", "_params", "_out", "_saved")

    _args: Any  # the inputs (a tuple); None once released
    _params: dict[str, Any]
    _out: Any  # the result's array (a tuple of them if _multi); None once released
    _saved: tuple[Any, ...] | None  # (tensor, version counter, version) to check
    _rule: Callable[..., tuple[Any, ...]]
    _edges: tuple[int, ...] = ()
    _plan: tuple[Any, ...] = ()
    _keeps_out = True
    _freeable = False  # some saved value is a tensor: a second backward must fail
    _multi = False  # the op has several outputs: g and out are tuples
    _tensor_saves: tuple[Any, ...] = ()  # (input index, edge positions that need it, or None)
    _saves_result = False

    def backward(self, grads: list[Any], ops: Any) -> list[Any]:
        saved = self._saved
        if saved:
            for tensor, counter, version in saved:
                if counter[0] != version:
                    raise RuntimeError(_version_message(self, tensor, counter[0], version))
        elif saved is None and self._freeable:
            raise RuntimeError(FREED)
        args = self._args
        out = self._out
        if ops.tensors:
            vals = args
            if self._keeps_out:
                out = self._unpack_out()
        else:
            vals = [a._data if isinstance(a, TensorBase) else a for a in args]
        g = ops.fill_missing(grads, out, self._out) if self._multi else grads[0]
        res = self._rule(ops, g, out, *vals, **self._params)
        result = []
        for (fn, _), k in zip(self.next_functions, self._edges):
            gi = res[k] if fn is not None else None
            if gi is not None:
                like = vals[k]
                if isinstance(gi, TensorBase) and isinstance(like, TensorBase):
                    # (create_graph: the arrays' shapes and dtypes first, cheaper than the
                    # Tensors' Size and dtype objects, which decide only when they differ)
                    gd, ld = gi._data, like._data
                    tg: Any = gi  # (Tensors: ``dtype`` is a property of Tensor's, not the base's)
                    tl: Any = like
                    if gd.shape != ld.shape or (gd.dtype != ld.dtype and tg.dtype != tl.dtype):
                        gi = fit(ops, gi, ops.meta(like))
                elif gi.shape != like.shape or (gi.dtype is not like.dtype
                                                and gi.dtype != like.dtype):
                    gi = fit(ops, gi, ops.meta(like))
            result.append(gi)
        return result

    def _unpack_out(self) -> Any:
        from .tensor_ops import wrap_saved_result

        return wrap_saved_result(self)

    def _release(self) -> None:
        """Drop saved values; a node that saved none keeps its inputs (for their shapes)."""
        self._saved = None
        self._out = None
        if self._freeable:
            self._args = None

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("_saved_"):
            key = attr[len("_saved_"):]
            for name, source, needed in self._plan:
                if name == key:
                    return self._saved_value(source, needed)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{attr}'")

    def _saved_value(self, source: Any, needed: tuple[int, ...] | None) -> Any:
        from .tensor_ops import scalar_tensor

        if callable(source):
            if self._args is None:
                raise RuntimeError(FREED)
            return source(self._args, self._params)
        if not self._is_active(needed):
            return None
        if self._saved is None:
            raise RuntimeError(FREED)
        if source == "result":
            return self._unpack_out()
        value = self._args[source]
        return value if isinstance(value, TensorBase) else scalar_tensor(value)

    def _is_active(self, needed: tuple[int, ...] | None) -> bool:
        if needed is None:
            return True
        fns = self.next_functions
        return any(fns[j][0] is not None for j, k in enumerate(self._edges) if k in needed)


class MultiRuleNode(RuleNode):
    """A ``RuleNode`` for an op with several outputs (``split``, ``slogdet`` ...)."""

    __slots__ = ()

    _multi = True

    @property
    def _nout(self) -> int:  # type: ignore[override]
        return len(self._out)


class TensorBase:
    """Marker base of ``Tensor`` (lets this module test for tensors without importing it)."""

    __slots__ = ()

    if TYPE_CHECKING:  # Tensor's slots (set by ``tensor._init``), declared for type checkers
        _data: Any  # a NumPy or CuPy array, or a NumPy scalar
        _requires_grad: bool
        _grad_fn: Node | None
        _grad: Tensor | None
        _vc: list[int] | None
        _base: Tensor | None
        _output_nr: int
        _extra: Extra | None


def _version_message(node: RuleNode, tensor: Any, now: int, expected: int) -> str:
    from .tensor_ops import describe

    if tensor is None:  # the node's own result
        what = f"{describe(node._out)}, which is output 0 of {_short_name(node)}"
    elif tensor._grad_fn is not None:
        what = (f"{describe(tensor._data)}, which is output {tensor._output_nr} of "
                f"{_short_name(tensor._grad_fn)}")
    else:
        what = describe(tensor._data)
    sep = "" if tensor is not None and tensor._grad_fn is None else ","
    return (
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: {what}{sep} is at version {now}; expected version {expected} "
        "instead. Hint: enable anomaly detection to find the operation that failed to "
        "compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )


def _short_name(node: Node) -> str:
    """The node's name as PyTorch's version error shows it: without ``Backward``, and
    without the overload number 0 (``MulBackward0``: ``Mul``; ``FillBackward2``: ``Fill2``)."""
    name = node.name()
    digits = name[len(name.rstrip("0123456789")):]
    base = name[: len(name) - len(digits)]
    if not base.endswith("Backward"):
        # PyTorch's hand-written nodes keep their C++ namespace there
        return f"torch::autograd::{name}" if name in ("CopyBackwards", "CopySlices") else name
    return base[: -len("Backward")] + ("" if digits in ("", "0") else digits)


def save_plan(node: RuleNode, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """The (tensor, version counter, version) triples a new node must check later."""
    saved = []
    fns = node.next_functions
    for source, positions in node._tensor_saves:
        value = args[source]
        if not isinstance(value, TensorBase):
            continue
        if positions is not None:
            for j in positions:
                if fns[j][0] is not None:
                    break
            else:
                continue  # PyTorch saves it only for gradients nobody needs here
        counter = value._vc
        if counter is None:
            raise RuntimeError(INFERENCE_SAVE)
        saved.append((value, counter, counter[0]))
    return tuple(saved)


_CLASSES: dict[tuple[Any, ...], type[RuleNode]] = {}


def node_class(name: str, rule: Callable[..., tuple[Any, ...]], edges: tuple[int, ...],
               plan: tuple[Any, ...] = (), keeps_out: bool = True,
               base: type[RuleNode] = RuleNode) -> type[RuleNode]:
    """The node class printed as ``name`` running ``rule`` (one class per configuration)."""
    key = (name, rule, edges, plan, keeps_out, base)
    cls = _CLASSES.get(key)
    if cls is None:
        freeable = any(not callable(src) for _n, src, _need in plan)
        tensor_saves = tuple(
            (src, None if need is None else tuple(j for j, k in enumerate(edges) if k in need))
            for _n, src, need in plan if isinstance(src, int))
        attrs = {"__slots__": (), "_rule": staticmethod(rule), "_edges": edges, "_plan": plan,
                 "_keeps_out": keeps_out, "_freeable": freeable, "_tensor_saves": tensor_saves,
                 "_saves_result": any(src == "result" for _n, src, _need in plan)}
        cls = cast("type[RuleNode]", type(name, (base,), attrs))  # once per configuration
        _CLASSES[key] = cls
    return cls


_T = TypeVar("_T", bound=TensorBase)


def renamed(t: _T, name: str) -> _T:
    """``t`` with its node shown as ``name``: PyTorch's name for a node the runtime makes
    from a generic rule (same rule, edges and saved values; only the class changes)."""
    fn = t._grad_fn
    if fn is not None:
        cls: Any = type(fn)  # a RuleNode class made by node_class
        fn.__class__ = node_class(name, cls._rule, cls._edges, cls._plan, cls._keeps_out,
                                  cls.__mro__[1])
    return t


_INF = float("inf")  # (one float for every accumulator: one is made per leaf and graph)


class AccumulateGrad(Node):
    """The sink of a leaf that requires grad: adds the incoming gradient into ``.grad``."""

    __slots__ = ("variable",)

    def __init__(self, variable: Any) -> None:
        self.variable = variable
        self.next_functions = ()
        self._seq = _INF  # runs as soon as its gradient is complete
        self._hooks = None

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def backward(self, grads: list[Any], ops: Any) -> tuple[Any, ...]:
        g = grads[0]
        if g is None:
            return ()
        var = self.variable
        var._accumulate(g, ops)
        post = var._post_acc_hooks()
        if post:
            for hook in list(post.values()):
                hook(var)
        return ()
