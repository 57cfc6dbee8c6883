"""In-place ops and indexed assignment, with PyTorch's checks and graph rewriting.

An in-place op ``t.op_(...)`` computes the out-of-place result, writes it into ``t``'s
storage and bumps the version counter shared by every alias of that storage, so a node
that saved one of them notices (``RuleNode.backward``).  Refused: in-place
changes to a leaf that requires grad, or to a view of one, while grad mode is on, and to
an inference tensor outside inference mode.

When the op is recorded, ``t`` takes the op's node as its new ``grad_fn``.  If ``t`` is a
view, its base is rewired instead, as PyTorch does: the base gets a ``CopySlices`` node
that routes the gradient of the viewed region through the op's node and passes the rest
through unchanged, and the view gets an ``AsStridedBackward0`` node that maps its
gradient back into the base.  Both move gradients with the view's recipe (see
``shape_ops``): forwards with ``ops.<op>``, backwards with the op's rule.
Indexed assignment ``t[i] = v`` is the same with an assignment as the op.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..derivatives import RULES
from ..ir.ops import Op
from . import dtypes
from .device import is_device, to_device
from .function import Meta, Node, RuleNode, TensorBase, next_seq, node_class
from .grad_mode import STATE
from .tensor import Tensor, edge_of

__all__ = ["inplace", "setitem"]

_LEAF = "a leaf Variable that requires grad is being used in an in-place operation."
_VIEW_OF_LEAF = ("a view of a leaf Variable that requires grad is being used in an in-place "
                 "operation.")
_NO_GRAD_VIEW = ("A view was created in no_grad mode and is being modified inplace with grad "
                 "mode enabled. Given that this use case is ambiguous and error-prone, it is "
                 "forbidden. You can clarify your code by moving both the view and the inplace "
                 "either both inside the no_grad block (if you don't want the inplace to be "
                 "tracked) or both outside (if you want the inplace to be tracked).")
_INFERENCE = ("Inplace update to inference tensor outside InferenceMode is not allowed.You can "
              "make a clone to get a normal tensor before doing inplace update.See "
              "https://github.com/pytorch/rfcs/pull/17 for more details.")
_OVERLAP = ("unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation.")


#: the nodes of functions returning several views (``unbind``, ``split``, ``chunk``), by the
#: name PyTorch's refusal gives them
_MULTI_VIEW = {"UnbindBackward0": "Unbind", "SplitBackward0": "Split",
               "SplitWithSizesBackward0": "SplitWithSizes"}


def check_inplace(t: Tensor, setitem_: bool = False) -> None:
    """PyTorch's refusals of in-place changes (see the module docstring)."""
    if t._vc is None and not STATE.inference:
        raise RuntimeError(_INFERENCE)
    if not STATE.enabled:
        return
    if t._grad_fn is None and t._requires_grad:
        raise RuntimeError(_VIEW_OF_LEAF if setitem_ else _LEAF)
    base = t._base
    if base is not None:
        if t._extra is not None and t._extra.nograd:
            raise RuntimeError(_NO_GRAD_VIEW)
        multi = _MULTI_VIEW.get(type(t._grad_fn).__name__)
        if multi is not None:
            raise RuntimeError(f"Output {t._output_nr} of {multi} is a view and is being modified "
                               "inplace. This view is the output of a function that returns "
                               "multiple views. Such functions do not allow the output views to "
                               "be modified inplace. You should replace the inplace operation by "
                               "an out-of-place one.")
        if base._grad_fn is None and base._requires_grad:
            raise RuntimeError(_VIEW_OF_LEAF)


def _type_word(d: Any) -> str:
    from .functional import _type_word as word

    return word(dtypes.from_numpy_dtype(d))


def write(t: Tensor, values: Any) -> None:
    """Store ``values`` in ``t``'s storage (cast to its dtype) and bump its version."""
    d = t._data
    vdt = getattr(values, "dtype", None)
    if vdt is not None and vdt.kind == "f" and d.dtype.kind in "iub":
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{_type_word(d.dtype)}")
    if isinstance(d, np.generic):
        t._data = np.asarray(values, dtype=d.dtype)[()]
    else:
        if isinstance(values, np.ndarray) and is_device(d):  # bke: copy_ from the host
            values = to_device(values)
        try:
            d[...] = values
        except ValueError as exc:
            if "read-only" in str(exc):
                raise RuntimeError(_OVERLAP) from None
            raise
    t._bump()


def _check_result(t: Tensor, r: Any) -> None:
    """PyTorch's refusals of an in-place result that ``t`` cannot hold: another shape (the
    operands broadcast beyond ``t``) or a non-bool result into a bool tensor."""
    d = t._data
    if r.shape != d.shape:
        raise RuntimeError(f"output with shape {list(d.shape)} doesn't match the broadcast "
                           f"shape {list(r.shape)}")
    if d.dtype.kind == "b" and r.dtype.kind != "b":
        raise RuntimeError(f"result type {_type_word(r.dtype)} can't be cast to the desired "
                           "output type Bool")


def inplace(t: Tensor, compute: Callable[..., Tensor], *others: Any, **kwargs: Any) -> Tensor:
    """Run ``compute(t, *others)`` (an out-of-place op) and make ``t`` hold its result."""
    check_inplace(t)
    if not (STATE.enabled and (t._requires_grad or any(
            isinstance(o, TensorBase) and o._requires_grad for o in others))):
        prev = STATE.enabled
        STATE.enabled = False
        try:
            r = compute(t, *others, **kwargs)
        finally:
            STATE.enabled = prev
        rd = r._data
        if rd.shape != t._data.shape or (rd.dtype.kind != "b" and t._data.dtype.kind == "b"):
            _check_result(t, rd)
        write(t, rd)
        return t
    src = _alias(t)
    r = compute(src, *others, **kwargs)
    rd = r._data
    if rd.shape != t._data.shape or (rd.dtype.kind != "b" and t._data.dtype.kind == "b"):
        _check_result(t, rd)
    node = r._grad_fn
    if node is not None and _saves(node, src):
        src._data = src._data.copy()  # the op needs the value from before the write
    write(t, r._data)
    if node is None:
        return t
    if isinstance(node, RuleNode) and node._saved:
        node._saved = tuple((None, t._vc, t._vc[0])  # type: ignore[index]  # recorded: t has a counter
                            if (tt is None and c is r._vc) else (tt, c, v)
                            for tt, c, v in node._saved)
    if t._base is None:
        old = t._grad_fn
        t._grad_fn, t._output_nr, t._requires_grad = node, r._output_nr, True
        if old is not None:
            t._move_retain(old)
        _refresh_views(t, None)
    else:
        _rebase_view(t, node)
        _refresh_views(t._base, t)
    return t


def _alias(t: Tensor) -> Tensor:
    """A tensor with ``t``'s graph position and storage, but its own version counter."""
    a = object.__new__(Tensor)
    a._data = t._array()
    a._requires_grad = t._requires_grad
    a._grad_fn = t._grad_fn
    a._grad = None
    a._vc = [0]
    a._base = None
    a._output_nr = t._output_nr
    a._extra = None
    return a


def _saves(node: Node, src: Tensor) -> bool:
    saved: tuple[Any, ...] | None = getattr(node, "_saved", None)
    if not saved:
        return False
    return any(tt is src for tt, _c, _v in saved)


# --- views: CopySlices and AsStridedBackward0 ---------------------------------------------------

def _forward(steps: tuple[Any, ...], g: Any, ops: Any) -> Any:
    """The region of ``g`` (a gradient of the base) that the view covers."""
    for op, extra, params, _shape in steps:
        g = getattr(ops, op.value)(g, *extra, **params)
    return g


def _backward(steps: tuple[Any, ...], h: Any, ops: Any) -> Any:
    """``h`` (a gradient of the view) placed into a zero gradient of the base."""
    for op, extra, params, shape in reversed(steps):
        like = Meta.of(shape, getattr(h, "dtype", None))
        h = RULES[op](ops, h, None, ops.meta(like), *extra, **params)[0]
    return h


class CopySlices(Node):
    """The base after an in-place change through a view (or an indexed assignment)."""

    __slots__ = ("_inner", "_steps")

    def __init__(self, base_edge: tuple[Any, ...], inner: Node, steps: tuple[Any, ...]) -> None:
        self._inner = inner
        self._steps = steps
        self.next_functions = (base_edge,) + tuple(inner.next_functions[1:])
        self._seq = next_seq()
        self._hooks = None

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def backward(self, grads: list[Any], ops: Any) -> list[Any]:
        g = grads[0]
        gv = _forward(self._steps, g, ops)
        inner = list(self._inner.backward([gv], ops))
        h = inner[0]
        delta = -gv if h is None else h - gv
        return [g + _backward(self._steps, delta, ops)] + inner[1:]

    def _release(self) -> None:
        self._inner._release()


class AsStridedBackward0(Node):
    """A view after an in-place change: its gradient goes back into the base."""

    __slots__ = ("_steps",)

    def __init__(self, base_edge: tuple[Any, ...], steps: tuple[Any, ...]) -> None:
        self._steps = steps
        self.next_functions = (base_edge,)
        self._seq = next_seq()
        self._hooks = None

    def backward(self, grads: list[Any], ops: Any) -> list[Any]:
        return [_backward(self._steps, grads[0], ops)]


def _rebase_view(t: Tensor, inner: Node) -> None:
    base, ex = t._base, t._extra
    assert base is not None and ex is not None and ex.view is not None  # t is a view
    steps = ex.view
    copy_slices = CopySlices(edge_of(base), inner, steps)
    _set_grad_fn(base, copy_slices)
    t._grad_fn = AsStridedBackward0((copy_slices, 0), steps)
    t._output_nr = 0
    t._requires_grad = True


def _refresh_views(root: Tensor, changed: Tensor | None) -> None:
    """After an in-place change of ``root`` (or of its view ``changed``), the other views
    of ``root`` that are alive get ``AsStridedBackward0`` over ``root``'s new node, as
    PyTorch regenerates a view's ``grad_fn`` when its base's version moved (else their
    gradient would miss the change).  Outputs of ``split``/``unbind`` are left (PyTorch
    refuses to use them then)."""
    ex = root._extra
    views = ex.views if ex is not None else None
    if not views:
        return
    edge = (root._grad_fn, root._output_nr)
    alive = []
    for ref in views:
        v = ref()
        if v is None:
            continue
        alive.append(ref)
        vex = v._extra
        if v is changed or vex is None or vex.view is None \
                or type(v._grad_fn).__name__ in _MULTI_VIEW:
            continue
        v._grad_fn = AsStridedBackward0(edge, vex.view)
        v._output_nr = 0
        v._requires_grad = True
    ex.views = alive  # type: ignore[union-attr]


def _set_grad_fn(t: Tensor, node: Node) -> None:
    old = t._grad_fn
    t._grad_fn, t._output_nr, t._requires_grad = node, 0, True
    if old is not None:
        t._move_retain(old)


# --- indexed assignment ---------------------------------------------------------------------------

def _rule_assign(ops: Any, g: Any, out: Any, old: Any, value: Any) -> tuple[Any, ...]:
    """Overwriting a region with ``value``: the old region gets nothing, ``value`` gets ``g``."""
    return (None, g)


_ASSIGN = node_class("CopyBackwards", _rule_assign, (0, 1), (), False)


def setitem(t: Tensor, index: Any, value: Any) -> None:
    """``t[index] = value`` (see the module docstring)."""
    from .shape_ops import numpy_index
    from .tensor_ops import _new_node

    check_inplace(t, setitem_=True)
    np_index, static, dyn = numpy_index(index)
    is_tensor = isinstance(value, TensorBase)
    vd = value._data if is_tensor else value
    target = t._array()
    if is_device(target):  # bke: host index parts and values are copied to the device
        np_index = tuple(to_device(p) if isinstance(p, np.ndarray) else p for p in np_index)
        vd = to_device(vd) if isinstance(vd, np.ndarray) else vd
    try:
        target[np_index] = vd
    except ValueError as exc:
        if "read-only" in str(exc):
            raise RuntimeError(_OVERLAP) from None
        raise RuntimeError(str(exc)) from None
    t._bump()
    if not (STATE.enabled and (t._requires_grad or (is_tensor and value._requires_grad))):
        return
    region = Meta(target[np_index]) if not dyn else Meta(np.empty(0))
    inner = _new_node(_ASSIGN, (region, value), {})
    inner._out = None
    inner._saved = ()
    step = (Op.GETITEM, dyn, {"index": static}, tuple(target.shape))
    if t._base is None:
        _set_grad_fn(t, CopySlices(edge_of(t), inner, (step,)))
        _refresh_views(t, None)
        return
    base, ex = t._base, t._extra
    assert ex is not None and ex.view is not None  # t is a view
    steps = ex.view + (step,)
    copy_slices = CopySlices(edge_of(base), inner, steps)
    _set_grad_fn(base, copy_slices)
    t._grad_fn = AsStridedBackward0((copy_slices, 0), ex.view)
    t._output_nr = 0
    t._requires_grad = True
    _refresh_views(base, t)


def inplace_method(fn: Any, name: str) -> Any:
    """A Tensor method ``name`` (``add_``...) that applies the op ``fn`` to ``self`` in place."""
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return inplace(self, fn, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place ``{name[:-1]}``."
    return method
