"""``st_autodiff.autograd``: PyTorch's ``torch.autograd`` for the eager runtime.

``backward(tensors, grad_tensors)`` accumulates gradients into the leaves' ``.grad``
(``t.backward()`` is ``backward(t)``); ``grad(outputs, inputs)`` returns them instead.
``Function`` defines an op by its forward and backward, as ``torch.autograd.Function``.
Also here, as in torch: ``functional`` (jacobian, hessian, vjp, jvp, hvp, vhp),
``gradcheck``/``gradgradcheck``, ``profiler``, ``detect_anomaly``, ``Variable``.

>>> import st_autodiff as torch
>>> x = torch.tensor(2.0, requires_grad=True)
>>> torch.autograd.grad(x ** 3, x)
(tensor(12.),)
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from .runtime import grad_mode
from .runtime.backend import namespace_for
from .runtime.engine import backward as _backward
from .runtime.engine import grad as _grad
from .runtime.factory import zeros_like
from .runtime.function import FREED, Meta, Node, TensorBase, fit, next_seq
from .runtime.grad_mode import (
    enable_grad,
    inference_mode,
    no_grad,
    set_grad_enabled,
)
from .runtime.tensor import FLOAT_ONLY_NEW, Tensor, edge_of, make, plain

__all__ = [
    "Function", "FunctionCtx", "Variable", "backward", "enable_grad", "grad", "inference_mode",
    "no_grad", "set_grad_enabled",
]


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None,
             create_graph: bool = False, grad_variables: Any = None,
             inputs: Any = None) -> None:
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of graph leaves.

    ``grad_tensors`` holds one gradient per tensor (``None`` for a one-element tensor);
    ``grad_variables`` is its old name.  ``inputs`` limits accumulation to those tensors.
    """
    if grad_tensors is None:
        grad_tensors = grad_variables
    if grad_tensors is not None and isinstance(grad_tensors, TensorBase):
        grad_tensors = (grad_tensors,)
    _backward(tensors, grad_tensors, retain_graph, create_graph, inputs=inputs)


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, only_inputs: bool = True, allow_unused: bool | None = None,
         is_grads_batched: bool = False, materialize_grads: bool = False) -> tuple[Any, ...]:
    """The gradients of ``outputs`` with respect to each of ``inputs`` (a tuple).

    ``.grad`` fields are not touched.  With ``create_graph=True`` the results are
    themselves differentiable.  An input the outputs do not depend on is an error unless
    ``allow_unused=True`` (its gradient is then ``None``, or zeros with
    ``materialize_grads=True``).
    """
    if is_grads_batched:
        return _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
                             allow_unused, materialize_grads)
    return _grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                 materialize_grads)


def _batched_grad(outputs: Any, inputs: Any, grad_outputs: Any, retain_graph: bool | None,
                  create_graph: bool, allow_unused: bool | None,
                  materialize_grads: bool) -> tuple[Any, ...]:
    """``is_grads_batched=True``: one ``grad`` per row of the cotangents, stacked (PyTorch
    vmaps the backward instead, so its graph under ``create_graph`` has other nodes)."""
    from .runtime.shape_ops import stack

    outs = (outputs,) if isinstance(outputs, TensorBase) else tuple(outputs)
    single = isinstance(inputs, TensorBase)
    ins = (inputs,) if single else tuple(inputs)
    gos = (grad_outputs,) if isinstance(grad_outputs, TensorBase) or grad_outputs is None \
        else tuple(grad_outputs)
    if gos == (None,):
        gos = (None,) * len(outs)
    for i, (o, g) in enumerate(zip(outs, gos, strict=True)):
        if g is None:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        if tuple(g.shape[1:]) != tuple(o.shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each "
                "grad_output as the batch dimension. The sizes of the remaining dimensions are "
                "expected to match the shape of corresponding output, but a mismatch was "
                f"detected: grad_output[{i}] has a shape of {g.shape[1:]} and output[{i}] has a "
                f"shape of {o.shape}. If you only want some tensors in `grad_output` to be "
                "considered batched, consider using vmap.")
    rows = []
    batch = gos[0].shape[0]
    for b in range(batch):
        keep = True if b < batch - 1 else retain_graph
        rows.append(_grad(outs, ins, tuple(g[b] for g in gos), keep, create_graph,
                          True if allow_unused is None and materialize_grads else allow_unused,
                          False))
    result = []
    for k, inp in enumerate(ins):
        col = [r[k] for r in rows]
        if all(g is None for g in col):
            result.append(zeros_like(inp) if materialize_grads else None)
        else:
            result.append(stack([g if g is not None else zeros_like(inp) for g in col]))
    return tuple(result)


class _VariableMeta(type):
    """Every Tensor is an instance of ``Variable``, as in PyTorch."""

    def __instancecheck__(cls, other: Any) -> bool:
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """The pre-0.4 wrapper: ``Variable(x)`` is a new leaf sharing ``x``'s storage.

    ``x`` itself is left alone (its ``requires_grad`` and graph are unchanged); the new
    leaf requires grad when asked to.
    """

    def __new__(cls, data: Any = None, requires_grad: bool = False,  # type: ignore[misc]
                volatile: bool = False) -> Tensor:
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with "
                          "torch.no_grad():` instead.", UserWarning, stacklevel=2)
        leaf = data.detach()
        if requires_grad:
            leaf._set_requires_grad(True, FLOAT_ONLY_NEW)
        return leaf


class FunctionCtx:
    """The ``ctx`` of a custom ``Function``: what forward leaves for backward.

    ``saved_tensors`` is checked when read, as PyTorch unpacks saved variables: a tensor
    changed in place since ``apply`` saved it raises the version error, and after a backward
    that did not retain the graph they are freed (the "backward through the graph a second
    time" error)."""

    def __init__(self) -> None:
        self.needs_input_grad: tuple[bool, ...] = ()
        self.materialize_grads = True
        self._dirty: tuple[Any, ...] = ()
        self._non_differentiable: tuple[Any, ...] = ()
        self._to_save: tuple[Any, ...] = ()
        #: (tensor, version counter, version, output index or -1) per saved tensor, set by
        #: ``apply`` once the outputs exist; None once a backward freed them
        self._saved: tuple[tuple[Any, Any, int, int], ...] | None = ()
        self._node: Any = None

    def save_for_backward(self, *tensors: Any) -> None:
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, TensorBase):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{i} is of type {type(t).__name__}")
        self._to_save = tensors

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        saved = self._saved
        if saved is None:
            raise RuntimeError(FREED)
        if not saved:
            return self._to_save  # (read inside ``forward``, or nothing was recorded)
        for t, counter, version, nr in saved:
            if counter is not None and counter[0] != version:
                raise RuntimeError(_saved_version_message(self._node, t, counter[0], version,
                                                          nr))
        return tuple(t for t, _, _, _ in saved)

    def mark_dirty(self, *tensors: Any) -> None:
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors: Any) -> None:
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = value


class _FunctionNode(Node):
    """The graph node of one ``Function.apply`` call; its backward is the user's.

    ``_metas`` holds, per forward output, its (shape, dtype, array module) or ``None`` for
    a non-Tensor output: a missing gradient is materialized as zeros of that kind unless
    ``ctx.set_materialize_grads(False)`` (then the user's backward gets ``None``).
    """

    __slots__ = ("_fn", "_ctx", "_outs", "_metas", "_tensor_args", "_in_meta")

    def __init__(self, fn: type[Function], ctx: FunctionCtx, tensor_args: Sequence[Any],
                 nout: int) -> None:
        self._fn = fn
        self._ctx = ctx
        self._outs = nout
        self._metas: tuple[tuple[Any, Any, Any] | None, ...] = ()
        flags: list[bool] = []
        metas: list[Meta | None] = []
        edges: list[tuple[Node | None, int]] = []
        for a in tensor_args:  # one pass over the arguments (this runs once per apply)
            if isinstance(a, Tensor):  # as PyTorch: an edge per Tensor argument only
                flags.append(True)
                metas.append(Meta(a._data))
                edges.append(edge_of(a))
            else:
                flags.append(False)
                metas.append(None)
        self._tensor_args = tuple(flags)
        self._in_meta = tuple(metas)
        self.next_functions = tuple(edges)
        self._seq = next_seq()
        self._hooks = None

    @property
    def _nout(self) -> int:  # type: ignore[override]
        return self._outs

    def __repr__(self) -> str:
        return f"<torch.autograd.function.{type(self).__name__} object at {hex(id(self))}>"

    def _release(self) -> None:
        self._ctx._saved = None

    def __getattr__(self, attr: str) -> Any:
        # PyTorch's node is the ctx: ``y.grad_fn.saved_tensors``, ``y.grad_fn.k`` ...
        if attr.startswith("__") or attr in _FunctionNode.__slots__:
            raise AttributeError(attr)
        return getattr(self._ctx, attr)

    def _materialize(self, grads: list[Any], tensors: bool) -> list[Any]:
        out: list[Any] = []
        for g, meta in zip(grads, self._metas, strict=False):
            if g is None and meta is not None:
                shape, dtype, xp = meta
                g = xp.zeros(shape, dtype=dtype)
                g = plain(g) if tensors else g
            out.append(g)
        return out + list(grads[len(out):])

    def backward(self, grads: list[Any], ops: Any) -> list[Any]:
        missing = grads[0] is None if len(grads) == 1 else any(g is None for g in grads)
        if missing and self._ctx.materialize_grads:
            grads = self._materialize(grads, ops.tensors)
        tensors = ops.tensors
        wrapped = grads if tensors else [None if g is None else plain(g) for g in grads]
        state = grad_mode.STATE  # ``with set_grad_enabled(tensors)``, without its object
        saved = (state.enabled, state.inference)
        state.enabled = tensors
        try:
            result = _user_backward(self._fn)(self._ctx, *wrapped)
        finally:
            state.enabled, state.inference = saved
        result = self._check_count(result if isinstance(result, tuple) else (result,))
        out: list[Any] = []
        # a Tensor input that needs no gradient still reports its gradient (hooks see it)
        i = -1  # the index among the Tensor arguments (the edges), as PyTorch counts
        for pos, (meta, g) in enumerate(zip(self._in_meta, result, strict=True)):
            if meta is None:
                if g is not None:
                    raise RuntimeError(
                        f"function {self.name()} returned a gradient different than None at "
                        f"position {pos + 1}, but the corresponding forward input was not a "
                        "Variable")
                continue
            i += 1
            if g is None:
                out.append(None)
                continue
            shape = tuple(g._data.shape)
            if shape != meta.shape or g._data.dtype != meta.dtype:
                if shape != meta.shape and not _expandable(meta.shape, shape):
                    raise RuntimeError(
                        f"Function {self.name()} returned an invalid gradient at index {i} - "
                        f"got {list(shape)} but expected shape compatible with "
                        f"{list(meta.shape)}")
                g = fit(ops, g if ops.tensors else g._data, meta)
                out.append(g)
            else:
                out.append(g if ops.tensors else g._data)
        return out

    def _check_count(self, result: tuple[Any, ...]) -> tuple[Any, ...]:
        expected = len(self._tensor_args)  # one per forward argument, Tensor or not
        if len(result) > expected and all(g is None for g in result[expected:]):
            result = result[:expected]
        if len(result) != expected:
            raise RuntimeError(f"function {self.name()} returned an incorrect number of "
                               f"gradients (expected {expected}, got {len(result)})")
        return result


def _expandable(shape: tuple[int, ...], to: tuple[int, ...]) -> bool:
    """Whether ``shape`` broadcasts to ``to`` (PyTorch's ``is_expandable_to``)."""
    if len(shape) > len(to):
        return False
    return all(d == 1 or d == t for d, t in zip(reversed(shape), reversed(to), strict=False))


def _saved_version_message(node: Any, tensor: Any, now: int, expected: int, nr: int) -> str:
    """PyTorch's version error for a tensor a custom ``Function`` saved: an output is named
    as the output of the Function's node, an input by its own current node."""
    from .runtime.function import _short_name
    from .runtime.tensor_ops import describe

    if nr >= 0:
        what = f"{describe(tensor._data)}, which is output {nr} of {_short_name(node)},"
    elif tensor._grad_fn is not None:
        what = (f"{describe(tensor._data)}, which is output {tensor._output_nr} of "
                f"{_short_name(tensor._grad_fn)},")
    else:
        what = describe(tensor._data)
    return (
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: {what} is at version {now}; expected version {expected} "
        "instead. Hint: enable anomaly detection to find the operation that failed to "
        "compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )


def _save(ctx: FunctionCtx, node: Any, outs: tuple[Any, ...], wrapped: tuple[Any, ...]) -> None:
    """Record the tensors ``ctx.save_for_backward`` named, with their versions now (after
    the outputs exist, as PyTorch saves them); a saved output is the returned Tensor."""
    saved = []
    for t in ctx._to_save:
        if t is None:
            saved.append((None, None, 0, -1))
            continue
        nr = -1
        for k, o in enumerate(outs):
            if o is t:
                nr, t = k, wrapped[k]
                break
        counter = t._vc
        saved.append((t, counter, 0 if counter is None else counter[0], nr))
    ctx._saved = tuple(saved)
    ctx._node = node


def _user_backward(fn: type[Function]) -> Any:
    """The user's ``backward`` or ``vjp`` (defining both is an error, as in torch)."""
    backward_fn, vjp_fn = fn.backward, fn.vjp
    if backward_fn is not Function.backward and vjp_fn is not Function.vjp:
        raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is "
                           "not allowed. You should only implement one of them.")
    return vjp_fn if vjp_fn is not Function.vjp else backward_fn


def _output_meta(o: Any) -> tuple[Any, Any, Any] | None:
    if not isinstance(o, Tensor):
        return None
    d = o._data
    if type(d) is np.ndarray or isinstance(d, np.generic):  # per-op cost: no lookup
        return (d.shape, d.dtype, np)
    return (d.shape, d.dtype, namespace_for(d))


def _wrap_outputs(node: _FunctionNode, ctx: FunctionCtx, args: tuple[Any, ...],
                  outs: tuple[Any, ...]) -> tuple[Any, ...]:
    """The outputs of ``apply``: differentiable ones get ``node`` as ``grad_fn``.

    Outputs passed to ``ctx.mark_non_differentiable`` and integer outputs do not require
    grad; inputs passed to ``ctx.mark_dirty`` (changed in place) are returned themselves,
    now made by ``node``; other inputs returned unchanged come back as new aliases.
    """
    if not ctx._non_differentiable and not ctx._dirty:  # the usual case: fresh float outputs
        if all(isinstance(o, Tensor) and o._data.dtype.kind in "fc" for o in outs):
            return tuple(make(o._data, node, i) for i, o in enumerate(outs))
    non_diff = {id(t) for t in ctx._non_differentiable}
    dirty = {id(t) for t in ctx._dirty}
    inputs = {id(a) for a in args if isinstance(a, TensorBase)}
    wrapped: list[Any] = []
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor):
            wrapped.append(o)
        elif id(o) in dirty:
            if o._grad_fn is None and o._requires_grad:
                raise RuntimeError("a leaf Variable that requires grad has been used in an "
                                   "in-place operation.")
            old = o._grad_fn
            o._grad_fn, o._output_nr, o._requires_grad = node, i, True
            if old is not None:
                o._move_retain(old)
            wrapped.append(o)
        elif id(o) in non_diff or o._data.dtype.kind not in "fc":
            wrapped.append(o.detach() if id(o) in inputs or o._requires_grad else o)
        else:
            wrapped.append(make(o._data, node, i))
    return tuple(wrapped)


_NODE_CLASSES: dict[type, type] = {}


class Function:
    """Define a differentiable op by ``forward(ctx, *args)`` and ``backward(ctx, *grads)``.

    ``backward`` returns one gradient (or ``None``) per argument of ``forward``.
    Call the op with ``MyFunction.apply(*args)``.
    """

    @staticmethod
    def forward(ctx: FunctionCtx, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx: FunctionCtx, *grad_outputs: Any) -> Any:
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode "
                                  "AD.")

    vjp = backward

    @staticmethod
    def setup_context(ctx: FunctionCtx, inputs: tuple[Any, ...], output: Any) -> Any:
        """Override to fill ``ctx`` when ``forward`` takes no ``ctx`` (torch 2 style)."""
        raise NotImplementedError("setup_context is not implemented.")

    @classmethod
    def apply(cls, *args: Any) -> Any:
        ctx = FunctionCtx()
        ctx.needs_input_grad = needs = tuple([isinstance(a, Tensor) and a._requires_grad
                                              for a in args])
        state = grad_mode.STATE  # ``with no_grad()``, without its object (per-op cost)
        saved = (state.enabled, state.inference)
        state.enabled = False
        try:
            if cls.setup_context is not Function.setup_context:  # forward without ctx
                out = cls.forward(*args)
                cls.setup_context(ctx, args, out)
            else:
                out = cls.forward(ctx, *args)
        finally:
            state.enabled, state.inference = saved
        record = saved[0] and True in needs
        outs = out if isinstance(out, tuple) else (out,)
        if not record:
            return out
        node_cls = _NODE_CLASSES.get(cls)
        if node_cls is None:
            node_cls = type(f"{cls.__name__}Backward", (_FunctionNode,), {"__slots__": ()})
            _NODE_CLASSES[cls] = node_cls
        node = node_cls(cls, ctx, args, len(outs))
        node._metas = tuple(_output_meta(o) for o in outs)
        wrapped = _wrap_outputs(node, ctx, args, outs)
        if ctx._to_save:
            _save(ctx, node, outs, wrapped)
        return wrapped if isinstance(out, tuple) else wrapped[0]



class _DelayedError(Node):
    """Stands after a ``once_differentiable`` backward: differentiating through it fails."""

    __slots__ = ("_n",)

    def __init__(self, n: int) -> None:
        self._n = n
        self.next_functions = ((None, 0),) * n
        self._seq = next_seq()
        self._hooks = None

    @property
    def _nout(self) -> int:  # type: ignore[override]
        return self._n

    def name(self) -> str:
        return "DelayedError"

    def backward(self, grads: list[Any], ops: Any) -> list[Any]:
        raise RuntimeError("trying to differentiate twice a function that was marked with "
                           "@once_differentiable")


def once_differentiable(fn: Any) -> Any:
    """Decorate a custom ``backward`` that is not itself differentiable: it runs without
    recording, and a ``create_graph`` result that needs a graph fails when differentiated."""
    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        with no_grad():
            outputs = fn(ctx, *args)
        if not grad_mode.is_grad_enabled() or not any(
                isinstance(a, Tensor) and a._requires_grad for a in args):
            return outputs
        outs = outputs if isinstance(outputs, tuple) else (outputs,)
        node = _DelayedError(len(outs))
        wrapped = tuple(make(o._data, node, i) if isinstance(o, Tensor) else o
                        for i, o in enumerate(outs))
        return wrapped if isinstance(outputs, tuple) else wrapped[0]

    return wrapper


# --- part "autograd" (issue 12): functional, gradcheck, profiler -------------------------
import sys as _sys  # noqa: E402
import types as _types  # noqa: E402

from . import profiler as _torch_profiler  # noqa: E402, F401  (``torch.profiler``)
from .runtime import anomaly_mode, profiler  # noqa: E402
from .runtime import autograd_functional as functional  # noqa: E402
from .runtime import gradcheck as _gradcheck_module  # noqa: E402
from .runtime.anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: E402
from .runtime.gradcheck import gradcheck, gradgradcheck  # noqa: E402

_sys.modules[__name__ + ".functional"] = functional  # ``import torch.autograd.functional``
_sys.modules[__name__ + ".profiler"] = profiler
_sys.modules[__name__ + ".gradcheck"] = _gradcheck_module  # its GradcheckError
_sys.modules[__name__ + ".anomaly_mode"] = anomaly_mode
function = _types.ModuleType(__name__ + ".function", "torch.autograd.function")
function.__dict__.update(Function=Function, FunctionCtx=FunctionCtx,
                         once_differentiable=once_differentiable)
_sys.modules[function.__name__] = function
__all__ += ["anomaly_mode", "detect_anomaly", "function", "functional", "once_differentiable",
            "set_detect_anomaly", "gradcheck", "gradgradcheck",
            "profiler"]
