"""The bridge: a compiled NumPy function as one node of the eager autograd graph.

``st.function(f)`` returns a callable.  With NumPy (or CuPy) arrays it is ``f``.  With
Tensors, when grad mode is on and an argument requires grad, it runs the generated
forward function (``f_grad_fwd``: the primal sweep, keeping what the adjoint reads) on
the tensors' arrays and records ONE node, named after the function (``LossBackward0``
for ``loss``), whose backward is the generated adjoint (``f_grad_bwd``).  Hooks,
``retain_graph`` and version checks behave as for any node.

With ``create_graph=True`` the backward must itself be differentiable with respect to
the inputs, so it re-runs the generated joint code (primal and adjoint sweeps, the same
source the compiler printed) over Tensors: its ``xp`` is ``TensorNumPy``, a NumPy-named
namespace whose functions record ops of the shared table.  Derivatives of any order then
come from the same rules the compiler used.  (This stands in for re-transforming the
generated code, which needs the compiler to accept its own output: see issue 3.)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from .api import GradFunction, _is_float, _kind
from .ir.ops import OP_INFO, Op, Spelling
from .runtime import grad_mode
from .runtime.function import FREED, Node, fit, next_seq
from .runtime.tensor import Tensor, edge_of, make, plain
from .runtime.tensor_ops import apply_op
from .transforms import Options
from .transforms.load import load

__all__ = ["CompiledFunction", "TensorNumPy", "function"]


def function(fn: Callable[..., Any]) -> CompiledFunction:
    """Compile ``fn`` (a NumPy function) so that it can sit in an eager autograd graph."""
    return CompiledFunction(fn)


class CompiledFunction:
    """``fn`` for arrays; one recorded node for Tensors (see the module docstring)."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self._fn = fn
        self.__name__ = getattr(fn, "__name__", "function")
        self.__qualname__ = getattr(fn, "__qualname__", self.__name__)
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        self._grads: dict[tuple[int, ...], GradFunction[...]] = {}
        self._node_cls = type(_node_name(self.__name__), (CompiledNode,), {"__slots__": ()})

    def __call__(self, *args: Any) -> Any:
        if not any(isinstance(a, Tensor) for a in args):
            return self._fn(*args)
        raw = tuple(a._data if isinstance(a, Tensor) else a for a in args)
        wrt = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor) and _is_float(raw[i]))
        needs = grad_mode.STATE.enabled and any(args[i]._requires_grad for i in wrt)
        if not needs:
            return _wrap_plain(self._fn(*raw))
        g = self._grad_function(wrt)
        fwd, bwd = g.split(*raw)
        out, residuals = fwd(*raw)
        node = self._node_cls(self, g, wrt, args, residuals, bwd)
        return make(np.asarray(out) if np.isscalar(out) else out, node, 0)

    def _grad_function(self, wrt: tuple[int, ...]) -> GradFunction[...]:
        g = self._grads.get(wrt)
        if g is None:
            g = self._grads[wrt] = GradFunction(self._fn, wrt, "vjp", False, Options())
        return g

    def __repr__(self) -> str:
        return f"<st_autodiff.function of {self.__qualname__}>"


class CompiledNode(Node):
    """The node of one call of a compiled function; backward runs the generated adjoint."""

    __slots__ = ("_owner", "_grad", "_wrt", "_inputs", "_versions", "_residuals", "_bwd")

    def __init__(self, owner: CompiledFunction, grad: GradFunction[...], wrt: tuple[int, ...],
                 args: tuple[Any, ...], residuals: tuple[Any, ...],
                 bwd: Callable[..., Any]) -> None:
        self._owner = owner
        self._grad = grad
        self._wrt = wrt
        self._inputs = args
        self._versions = tuple(a._version if isinstance(a, Tensor) else 0 for a in args)
        self._residuals: tuple[Any, ...] | None = residuals
        self._bwd = bwd
        self.next_functions = tuple(edge_of(args[i]) if i in wrt and args[i]._requires_grad
                                    else (None, 0) for i in range(len(args)))
        self._seq = next_seq()
        self._hooks = None

    def backward(self, grads: list[Any], ops: Any) -> list[Any]:
        if self._residuals is None:
            raise RuntimeError(FREED)
        self._check_versions()
        g = grads[0]
        if g is None:
            return [None] * len(self.next_functions)
        if ops.tensors:
            got = self._differentiable_backward(g)
        else:
            got = self._bwd(*self._residuals, g)
        out: list[Any] = [None] * len(self._inputs)
        for i, gi in zip(self._wrt, got):
            if self.next_functions[i][0] is not None:
                like = self._inputs[i] if ops.tensors else self._inputs[i]._data
                out[i] = fit(ops, gi if ops.tensors else np.asarray(gi), like)
        return out

    def _differentiable_backward(self, g: Any) -> tuple[Any, ...]:
        """Run the generated joint code over recording Tensors (for ``create_graph``)."""
        joint = _joint_on_tensors(self._grad, self._inputs)
        args = [a if isinstance(a, Tensor) else a for a in self._inputs]
        with grad_mode.set_grad_enabled(True):
            grads: tuple[Any, ...] = joint(*args, g)
        return grads

    def _check_versions(self) -> None:
        for a, v in zip(self._inputs, self._versions):
            if isinstance(a, Tensor) and a._version != v:
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified "
                    f"by an inplace operation: [{_describe(a)}] is at version {a._version}; "
                    f"expected version {v} instead. Hint: the input of the compiled function "
                    f"{self._owner.__name__}() was changed in place after the call.")

    def _release(self) -> None:
        self._residuals = None


def _describe(t: Tensor) -> str:
    kind = {"float32": "Float", "float64": "Double", "float16": "Half"}.get(
        str(t._data.dtype), str(t._data.dtype))
    dims = ", ".join(str(d) for d in t._data.shape)
    return f"torch.{kind}Tensor [{dims}]" if dims else f"torch.{kind}Tensor []"


def _node_name(fn_name: str) -> str:
    """``mlp_loss`` -> ``MlpLossBackward0``: PyTorch's node naming, after the function."""
    parts = [p for p in re.split(r"[_\W]+", fn_name) if p]
    return "".join(p[:1].upper() + p[1:] for p in parts) + "Backward0"


def _wrap_plain(out: Any) -> Any:
    if isinstance(out, tuple):
        return tuple(_wrap_plain(o) for o in out)
    return plain(np.asarray(out)) if np.isscalar(out) or hasattr(out, "dtype") else out


def _joint_on_tensors(grad: GradFunction[...], inputs: tuple[Any, ...]) -> Callable[..., Any]:
    """The generated joint function (args..., out_bar) -> grads, loaded over Tensors."""
    raw = tuple(a._data if isinstance(a, Tensor) else a for a in inputs)
    key = tuple(_kind(a) for a in raw)
    hit: tuple[Callable[[], bool], Any] | None = (
        grad._tensor_joint.get(key) if hasattr(grad, "_tensor_joint") else None)
    if hit is None or not hit[0]():  # compiled again when a value it read changed (guards)
        joint: GradFunction[...] = GradFunction(grad._fn, grad._wrt_spec, "vjp_joint", False,
                                                Options())
        compiled = joint._build(list(raw), np)
        hit = (compiled.guards.check(), load(compiled.generated, TENSOR_NUMPY, TensorRuntime))
        if not hasattr(grad, "_tensor_joint"):
            grad._tensor_joint = {}  # type: ignore[attr-defined]
        grad._tensor_joint[key] = hit  # type: ignore[attr-defined]
    return hit[1]


class _DType(str):
    """``xp.float32`` in generated code: a dtype name that can also convert a constant."""

    def __call__(self, value: Any) -> Any:
        return np.dtype(str(self)).type(value)


class TensorNumPy:
    """NumPy's names over Tensors: each function applies an op of the shared table."""

    inf = float("inf")
    nan = float("nan")
    newaxis = None

    def __init__(self, prefix: str = "") -> None:
        self._prefix = prefix

    def __getattr__(self, name: str) -> Any:
        path = self._prefix + name
        if path == "linalg":
            sub = TensorNumPy("linalg.")
            setattr(self, name, sub)
            return sub
        if isinstance(getattr(np, name, None), type) and issubclass(getattr(np, name),
                                                                     np.generic):
            return _DType(name)
        op = _BY_NUMPY_NAME.get(path)
        if op is None:
            raise AttributeError(f"generated code called xp.{path}, which has no op")
        if op is Op.SHAPE:
            return lambda x: tuple(x.shape)
        seq = OP_INFO[op].spelling is Spelling.SEQCALL
        if op is Op.EINSUM:
            return lambda subscripts, *ops: apply_op(op, *ops, subscripts=subscripts)
        if seq:
            return lambda arrays, **params: apply_op(op, *arrays, **params)
        if OP_INFO[op].spelling is Spelling.METHOD:  # xp.astype(x, dtype): params by place
            names = [name for name, _ in OP_INFO[op].params]
            return lambda x, *pos, **params: apply_op(op, x, **dict(zip(names, pos)), **params)
        return lambda *inputs, **params: apply_op(op, *inputs, **params)


def _numpy_names() -> dict[str, Op]:
    names: dict[str, Op] = {}
    for op, info in OP_INFO.items():
        for path in ([info.numpy] if info.numpy else []) + list(info.aliases):
            if not path.startswith("rt."):
                names.setdefault(path, op)
    return names


_BY_NUMPY_NAME = _numpy_names()
TENSOR_NUMPY = TensorNumPy()


class TensorRuntime:
    """``rt`` for generated code running over Tensors."""

    @staticmethod
    def unbroadcast(g: Any, shape: tuple[int, ...]) -> Any:
        return apply_op(Op.UNBROADCAST, g, tuple(shape))

    @staticmethod
    def scatter_add(shape: tuple[int, ...], g: Any, index: tuple[Any, ...]) -> Any:
        spec, dyn = _index_spec(index)
        return apply_op(Op.SCATTER_ADD, tuple(shape), g, *dyn, index=spec)

    @staticmethod
    def index_add(x: Any, g: Any, index: tuple[Any, ...]) -> Any:
        spec, dyn = _index_spec(index)
        return apply_op(Op.INDEX_ADD, x, g, *dyn, index=spec)

    @staticmethod
    def index_add_(x: Any, index: tuple[Any, ...], g: Any) -> Any:
        """Functional over Tensors (generated code rebinds the result)."""
        return TensorRuntime.index_add(x, g, index)


def _index_spec(index: tuple[Any, ...]) -> tuple[tuple[Any, ...], list[Any]]:
    """A runtime index tuple as the IR's static structure plus its dynamic parts."""
    dyn: list[Any] = []

    def part(e: Any) -> Any:
        if isinstance(e, slice):
            return ("slice", part(e.start), part(e.stop), part(e.step))
        if isinstance(e, (Tensor, np.ndarray)):
            dyn.append(e)
            return ("in", len(dyn) - 1)
        if isinstance(e, list):
            return ("list", tuple(e))
        return e

    return tuple(part(e) for e in index), dyn
