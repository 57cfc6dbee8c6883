"""The eager ``Tensor``: an array plus the autograd state PyTorch users expect.

Storage is a NumPy (or CuPy) array, or, for a 0-d tensor that nothing aliases, a NumPy
scalar: scalar arithmetic is several times cheaper than 0-d array arithmetic, and a chain
of scalar ops is the common case in tutorials.  Anything that aliases storage (views,
``detach``, ``numpy()``, in-place writes) first turns such a scalar into a 0-d array
(``_array``), so sharing and in-place semantics are exactly those of arrays.

Autograd state: ``_grad_fn`` (the node that made the tensor; ``None`` for leaves),
``_requires_grad`` (always true for non-leaves), ``_grad``, ``_vc`` (a one-element list
shared by all tensors that alias the same storage: the version counter; ``None`` marks
an inference tensor), ``_base`` (the tensor a view was taken from) and ``_extra`` (rare
state: hooks, retain_grad, the leaf's grad accumulator, a view's recipe).

Math and shape methods are attached by ``methods.py``; this module holds what touches the
autograd state.  ``nn.Parameter`` is meant to subclass ``Tensor`` and be created with
``Tensor._make_subclass(cls, data, requires_grad)``.
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from . import dtypes
from .function import AccumulateGrad, Node, TensorBase
from .grad_mode import STATE
from .hooks import HookDict, RemovableHandle, add_hook

if TYPE_CHECKING:  # the methods installed at import time, for type checkers (generated)
    from .tensor_api import TensorMethods as _InstalledMethods
else:
    _InstalledMethods = object

__all__ = ["Tensor", "edge_of", "make", "plain"]

NO_EDGE = (None, 0)
_new = object.__new__

NON_LEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information."
)
NON_LEAF_FLAG = (
    "you can only change requires_grad flags of leaf variables. If you want to use a "
    "computed variable in a subgraph that doesn't require differentiation use "
    "var_no_grad = var.detach()."
)
FLOAT_ONLY = "only Tensors of floating point and complex dtype can require gradients"
FLOAT_ONLY_NEW = "Only Tensors of floating point and complex dtype can require gradients"
# dtype names as PyTorch's messages spell them (C++ element type / ScalarType name)
_CPP = {"float16": "c10::Half", "float32": "float", "float64": "double", "int64": "long int",
        "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
        "bool": "bool"}
_WORD = {"float16": "Half", "float32": "Float", "float64": "Double", "int64": "Long",
         "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


class Extra:
    """Rarely used per-tensor state, allocated on first use."""

    __slots__ = ("hooks", "post", "retains", "acc", "view", "views", "nograd", "__weakref__")

    def __init__(self) -> None:
        self.hooks: HookDict | None = None  # leaf tensor hooks
        self.post: HookDict | None = None  # post-accumulate-grad hooks
        self.retains = False
        self.acc: Any = None  # weakref to the leaf's AccumulateGrad
        self.view: tuple[Any, ...] | None = None  # steps (op, params, input shape) from _base
        self.views: list[Any] | None = None  # weakrefs to the views of a non-leaf base
        self.nograd = False  # a view of a tensor requiring grad, taken under no_grad


class Tensor(TensorBase, _InstalledMethods):
    """A multi-dimensional array that can record the ops applied to it (see module doc)."""

    __slots__ = ("_data", "_requires_grad", "_grad_fn", "_grad", "_vc", "_base",
                 "_output_nr", "_extra", "__weakref__")
    # (what the slots hold is declared on TensorBase, in function.py, for type checkers)

    __array_priority__ = 1000

    def __new__(cls, *args: Any, **kwargs: Any) -> Tensor:
        """``torch.Tensor(data)`` or ``torch.Tensor(*sizes)``: the legacy float32 constructor."""
        from .factory import legacy_new

        return legacy_new(dtypes.get_default_dtype(), args, kwargs, cls)

    # --- construction helpers ---------------------------------------------------------

    @staticmethod
    def _make_subclass(cls: type, data: Tensor, require_grad: bool = False) -> Any:
        """A ``cls`` instance sharing ``data``'s storage, a leaf (for ``nn.Parameter``)."""
        t: Tensor = _new(cls)
        _init(t, data._array(), False, None)
        t._vc = data._vc if data._vc is not None else [0]
        if require_grad:
            t._set_requires_grad(True, FLOAT_ONLY_NEW)
        return t

    def _array(self) -> Any:
        """The storage as an array (a NumPy scalar becomes a 0-d array this tensor owns)."""
        d = self._data
        if not isinstance(d, np.ndarray) and isinstance(d, np.generic):
            d = self._data = np.asarray(d)
        return d

    def _host(self) -> np.ndarray[Any, Any]:
        """The values as a NumPy array on the host (a copy for GPU tensors)."""
        d = self._data
        if isinstance(d, (np.ndarray, np.generic)):
            return np.asarray(d)
        # a device array: the one explicit device -> host copy
        result: np.ndarray[Any, Any] = d.get()
        return result

    def _ex(self) -> Extra:
        ex = self._extra
        if ex is None:
            ex = self._extra = Extra()
        return ex

    # --- metadata ---------------------------------------------------------------------

    @property
    def shape(self) -> dtypes.Size:
        return dtypes.Size(self._data.shape)

    def size(self, dim: int | None = None) -> Any:
        """The shape, or the length of dimension ``dim``."""
        if dim is None:
            return dtypes.Size(self._data.shape)
        return self._data.shape[_dim(dim, self._data.ndim)]

    @property
    def ndim(self) -> int:
        result: int = self._data.ndim
        return result

    def dim(self) -> int:
        result: int = self._data.ndim
        return result

    ndimension = dim

    def numel(self) -> int:
        return int(self._data.size)

    nelement = numel

    @property
    def dtype(self) -> dtypes.dtype:
        return dtypes.from_numpy_dtype(self._data.dtype)

    def element_size(self) -> int:
        result: int = self._data.dtype.itemsize
        return result

    @property
    def device(self) -> dtypes.device:
        d = self._data
        if isinstance(d, (np.ndarray, np.generic)):
            return dtypes.CPU
        return dtypes.device("cuda", int(d.device.id))  # CuPy or the CPU stand-in

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    def get_device(self) -> int:
        return self.device.index if self.is_cuda else -1

    def is_floating_point(self) -> bool:
        result: bool = self._data.dtype.kind == "f"
        return result

    def is_inference(self) -> bool:
        return self._vc is None

    @property
    def is_leaf(self) -> bool:
        return self._grad_fn is None

    @property
    def grad_fn(self) -> Node | None:
        return self._grad_fn

    @property
    def output_nr(self) -> int:
        return self._output_nr

    @property
    def _version(self) -> int:
        return 0 if self._vc is None else self._vc[0]

    def _is_view(self) -> bool:
        return self._base is not None

    def _bump(self) -> None:
        """Record an in-place change of the storage (every alias sees the new version)."""
        if self._vc is not None:
            self._vc[0] += 1

    # --- requires_grad, grad ------------------------------------------------------------

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self._set_requires_grad(value, FLOAT_ONLY)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` in place (leaves only) and return the tensor."""
        if requires_grad and self._grad_fn is not None:
            return self  # part "autograd": a non-leaf already requires grad (torch: no error)
        self._set_requires_grad(requires_grad,
                                "only Tensors of floating point dtype can require gradients")
        return self

    def _set_requires_grad(self, value: bool, float_message: str) -> None:
        value = bool(value)
        if self._grad_fn is not None:
            if value:
                raise RuntimeError("you can only change requires_grad flags of leaf variables.")
            raise RuntimeError(NON_LEAF_FLAG)
        if value and self._data.dtype.kind != "f":
            raise RuntimeError(float_message)
        if value and self._vc is None and not STATE.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
        self._requires_grad = value

    @property
    def grad(self) -> Tensor | None:
        """The accumulated gradient (leaves, or non-leaves after ``retain_grad()``)."""
        g = self._grad
        if g is None and self._grad_fn is not None and not self.retains_grad:
            warnings.warn(NON_LEAF_GRAD, UserWarning, stacklevel=2)
        return g

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError("assigned grad expected to be a Tensor or None but got grad "
                                f"of type {type(value).__name__}")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_CPP[value.dtype.name]}' to "
                    f"a tensor with grad_dtype '{_WORD[self.dtype.name]}'. The gradient must "
                    "match the tensor's grad_dtype (defaults to the tensor's dtype). You can set "
                    "the tensor's grad_dtype attribute with a specific dtype, or None to allow "
                    "any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor "
                    "and its gradient may break downstream systems that assume they match.")
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value._data.shape)}' to a "
                    f"tensor of size '{list(self._data.shape)}'. Please ensure that the gradient "
                    "and the tensor are the same size")
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def retains_grad(self) -> bool:
        return self._grad_fn is not None and self._extra is not None and self._extra.retains

    def retain_grad(self) -> None:
        """Keep this non-leaf's gradient in ``.grad`` during backward."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        fn = self._grad_fn
        if fn is None or self.retains_grad:
            return
        self._ex().retains = True
        fn._ensure_hooks().retain[self._output_nr] = weakref.ref(self)

    def _move_retain(self, old: Node) -> None:
        """After an in-place op gave this tensor a new grad_fn, retained grads follow it."""
        if self.retains_grad and old._hooks is not None:
            ref = old._hooks.retain.pop(self._output_nr, None)
            if ref is not None:
                assert self._grad_fn is not None  # the in-place op that calls this set it
                self._grad_fn._ensure_hooks().retain[self._output_nr] = ref

    # --- graph edges and gradient accumulation -----------------------------------------

    def _accumulator(self) -> AccumulateGrad:
        """This leaf's AccumulateGrad node (kept alive by the graphs that use it)."""
        ex = self._ex()
        node = ex.acc() if ex.acc is not None else None
        if node is None:
            node = AccumulateGrad(self)
            ex.acc = weakref.ref(node)
        return node

    def _accumulate(self, g: Any, ops: Any) -> None:
        """Add ``g`` into ``.grad``: in place without grad mode, recorded with it."""
        old = self._grad
        if ops.tensors:
            if old is None:
                from . import functional as F

                self._grad = F.copy_like(g) if (g._requires_grad and STATE.enabled) else \
                    g.detach().clone()
            elif STATE.enabled:  # torch: out of place whenever grad mode is on
                self._grad = old + g
            else:
                old._add_into(g._data)
            return
        if old is None:  # a copy: rules may hand the same array to several inputs
            self._grad = plain(g if isinstance(g, np.generic) else g.copy())
        else:
            old._add_into(g)

    def _accumulate_retained(self, g: Any, ops: Any) -> None:
        """Part "autograd": a retained non-leaf grad is never changed in place (torch)."""
        old = self._grad
        if ops.tensors:
            self._grad = g.clone() if old is None else old + g
        else:
            self._grad = plain(g.copy() if old is None else old._data + g)

    def _add_into(self, g: Any) -> None:
        """``self += g`` on raw data, keeping the storage (and bumping the version)."""
        d = self._data
        if isinstance(d, np.ndarray) or not isinstance(d, np.generic):
            d += g
        else:
            self._data = (d + g).astype(d.dtype, copy=False)
        vc = self._vc  # ``_bump``, inlined (once per leaf and backward)
        if vc is not None:
            vc[0] += 1

    def _post_acc_hooks(self) -> HookDict | None:
        return None if self._extra is None else self._extra.post

    def _leaf_hooks(self) -> HookDict | None:
        return None if self._extra is None else self._extra.hooks

    # --- hooks ------------------------------------------------------------------------

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
        """Call ``hook(grad)`` whenever the gradient of this tensor is computed.

        The hook may return a new gradient that replaces it from then on.
        """
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                               "gradient")
        if self._grad_fn is not None:
            return self._grad_fn._register_tensor_hook(self._output_nr, hook)
        ex = self._ex()
        if ex.hooks is None:
            ex.hooks = HookDict()
        return add_hook(ex.hooks, hook)

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]
                                           ) -> RemovableHandle:
        """Call ``hook(tensor)`` after a gradient was accumulated into this leaf's ``.grad``."""
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors")
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                               "gradient")
        ex = self._ex()
        if ex.post is None:
            ex.post = HookDict()
        return add_hook(ex.post, hook)

    # --- backward -----------------------------------------------------------------------

    def backward(self, gradient: Tensor | None = None, retain_graph: bool | None = None,
                 create_graph: bool = False, inputs: Any = None) -> None:
        """Accumulate the gradient of this tensor into the leaves' ``.grad``."""
        backward = _ENGINE[0] if _ENGINE else _engine_backward()
        backward((self,), None if gradient is None else (gradient,), retain_graph,
                 create_graph, inputs=inputs)

    # --- aliasing -----------------------------------------------------------------------

    def detach(self) -> Tensor:
        """A new leaf sharing this tensor's storage and version counter."""
        t = _new(Tensor)
        _init(t, self._array(), False, None)
        t._vc = self._vc
        return t

    def detach_(self) -> Tensor:
        """Make this tensor a leaf that does not require grad (not allowed on views)."""
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is "
                "set as True, gradients are views of DDP buckets, and hence detach_() cannot "
                "be called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        self._grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self) -> Tensor:
        """The storage as a new tensor that does not require grad (own version counter)."""
        t = _new(Tensor)
        _init(t, self._array(), False, None)
        return t

    @data.setter
    def data(self, value: Tensor) -> None:
        self._data = value._data

    # --- conversion ---------------------------------------------------------------------

    def numpy(self, *, force: bool = False) -> np.ndarray[Any, Any]:
        """The storage as a NumPy array (shared, so writes go both ways)."""
        if force:
            result: np.ndarray[Any, Any] = self.detach().cpu()._array()
            return result
        if self._requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        if self.is_cuda:
            raise TypeError(f"can't convert {self.device} device type tensor to numpy. Use "
                            "Tensor.cpu() to copy the tensor to host memory first.")
        result = self._array()
        return result

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray[Any, Any]:
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def item(self) -> Any:
        """The value of a one-element tensor as a Python number."""
        n = self._data.size
        if n != 1:
            raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
        return self._host().item()

    def tolist(self) -> Any:
        return self._host().tolist()

    __hash__ = object.__hash__

    def __repr__(self, *, tensor_contents: Any = None) -> str:
        from .printing import format_tensor

        return format_tensor(self)


_ENGINE: list[Callable[..., None]] = []  # engine.backward, imported on first use (a cycle)


def _engine_backward() -> Callable[..., None]:
    from .engine import backward

    _ENGINE.append(backward)
    return backward


def _dim(dim: int, ndim: int) -> int:
    """Wrap a negative dimension, with PyTorch's IndexError when out of range."""
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if not lo <= dim <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], "
                         f"but got {dim})")
    return dim % ndim if ndim else 0


def _init(t: Tensor, data: Any, requires_grad: bool, fn: Node | None) -> None:
    t._data = data
    t._requires_grad = requires_grad
    t._grad_fn = fn
    t._grad = None
    t._vc = None if STATE.inference else [0]
    t._base = None
    t._output_nr = 0
    t._extra = None


def plain(data: Any) -> Tensor:
    """A new leaf tensor that does not require grad, owning ``data``."""
    t = _new(Tensor)  # ``_init(t, data, False, None)``, inlined (per-op cost)
    t._data = data
    t._requires_grad = False
    t._grad_fn = None
    t._grad = None
    t._vc = None if STATE.inference else [0]
    t._base = None
    t._output_nr = 0
    t._extra = None
    return t


def make(data: Any, fn: Node, nr: int = 0) -> Tensor:
    """A new non-leaf tensor: output ``nr`` of node ``fn``."""
    t = _new(Tensor)
    t._data = data
    t._requires_grad = True
    t._grad_fn = fn
    t._grad = None
    t._vc = [0]
    t._base = None
    t._output_nr = nr
    t._extra = None
    return t


def edge_of(t: Tensor) -> tuple[Any, ...]:
    """The graph edge a gradient for ``t`` flows along: ``(node, output_nr)``."""
    fn = t._grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    if t._requires_grad:
        return (t._accumulator(), 0)
    return NO_EDGE
