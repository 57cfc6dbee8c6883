"""Module backward hooks: ``register_full_backward_hook`` / ``_pre_hook`` (part "autograd").

As in PyTorch, a module call with such hooks passes its positional Tensor inputs and its
Tensor outputs through an identity ``autograd.Function`` (``BackwardHookFunction``,
whose node prints as ``BackwardHookFunctionBackward``).  The output node's pre-hook sees
the gradients of the outputs (``grad_output``; ``None`` for an unused output): the
module's backward pre-hooks run there and may replace them.  The input node's post-hook
sees the gradients of the inputs (``grad_input``): the full backward hooks run there
with ``(module, grad_input, grad_output)`` and may replace ``grad_input``.  When no input
requires grad the full hooks run at the output node instead, with ``grad_input`` all
``None`` (and PyTorch's warning).  Entries follow the positional arguments / the output
tuple; non-Tensor positions are ``None``.
"""

from __future__ import annotations

import functools
import os
import sys
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from ..grad_mode import is_grad_enabled
from ..hooks import HookDict, RemovableHandle, add_hook
from ..tensor import Tensor

if TYPE_CHECKING:
    from ...autograd import Function

__all__ = ["BackwardHook", "BackwardHookFunction", "call_with_backward_hooks",
           "register_backward_hook", "register_full_backward_hook",
           "register_full_backward_pre_hook"]

_NO_INPUT_GRAD = (
    "Full backward hook is firing when gradients are computed with respect to module outputs "
    "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
    "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details."
)


_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _user_stacklevel() -> int:
    """The ``stacklevel`` of the first caller outside st_autodiff (where torch's engine
    warnings point: the user's ``backward()`` line)."""
    frame = sys._getframe(1)
    level = 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    return level


def _function_base() -> type[Function]:
    from ...autograd import Function

    return Function


def _make_hook_function() -> type[Function]:
    """``BackwardHookFunction``: identity forward and backward (built lazily: the public
    ``autograd`` module imports the runtime, not the other way round)."""
    base = _function_base()

    def forward(ctx: Any, *args: Tensor) -> tuple[Any, ...]:
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    def backward(ctx: Any, *grads: Any) -> tuple[Any, ...]:
        return grads

    return cast("type[Function]", type("BackwardHookFunction", (base,), {
        "forward": staticmethod(forward), "backward": staticmethod(backward),
        "__doc__": "Identity whose graph node carries a module's backward hooks."}))


_HOOK_FUNCTION: list[type[Function]] = []


def BackwardHookFunction() -> type[Function]:  # noqa: N802  (stands for the class)
    """The identity ``Function`` class (created on first use)."""
    if not _HOOK_FUNCTION:
        _HOOK_FUNCTION.append(_make_hook_function())
    return _HOOK_FUNCTION[0]


def _hooks(module: Any, name: str) -> HookDict:
    d: HookDict | None = module.__dict__.get(name)
    if d is None:
        d = HookDict()
        object.__setattr__(module, name, d)
    return d


def _add(registry: HookDict, hook: Callable[..., Any], prepend: bool) -> RemovableHandle:
    handle = add_hook(registry, hook)
    if prepend:
        items = list(registry.items())
        registry.clear()
        registry.update([items[-1], *items[:-1]])
    return handle


_BOTH = ("Cannot use both regular backward hooks and full backward hooks on a single Module. "
         "Please use only one of them.")


def _set_kind(module: Any, full: bool) -> None:
    if module.__dict__.get("_is_full_backward_hook", full) is not full:
        raise RuntimeError(_BOTH)
    object.__setattr__(module, "_is_full_backward_hook", full)


def register_full_backward_hook(module: Any, hook: Callable[..., Any],
                                prepend: bool = False) -> RemovableHandle:
    """Register ``hook(module, grad_input, grad_output) -> tuple | None``."""
    _set_kind(module, True)
    return _add(_hooks(module, "_backward_hooks"), hook, prepend)


def register_backward_hook(module: Any, hook: Callable[..., Any]) -> RemovableHandle:
    """The deprecated hook on the node that made the module's output (PyTorch's
    ``register_backward_hook``): ``grad_input`` are that node's input gradients only."""
    _set_kind(module, False)
    return _add(_hooks(module, "_backward_hooks"), hook, False)


def register_full_backward_pre_hook(module: Any, hook: Callable[..., Any],
                                    prepend: bool = False) -> RemovableHandle:
    """Register ``hook(module, grad_output) -> tuple | None``."""
    return _add(_hooks(module, "_backward_pre_hooks"), hook, prepend)


def has_backward_hooks(module: Any) -> bool:
    d = module.__dict__
    return bool(d.get("_backward_hooks")) or bool(d.get("_backward_pre_hooks"))


def _pack(indices: list[int] | None, values: Any, size: int) -> tuple[Any, ...]:
    res: list[Any] = [None] * size
    for i, v in zip(indices or [], values, strict=False):
        res[i] = v
    return tuple(res)


class BackwardHook:
    """The hook state of one module call (inputs and outputs wrapped, grad_output kept)."""

    def __init__(self, module: Any, hooks: list[Any], pre_hooks: list[Any]) -> None:
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.grad_outputs: tuple[Any, ...] | None = None
        self.n_inputs = 0
        self.n_outputs = 0
        self.input_index: list[int] | None = None
        self.output_index: list[int] | None = None

    def _apply(self, setup: Callable[[Any], None],
               args: tuple[Any, ...]) -> tuple[tuple[Any, ...], list[Any] | None]:
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in index]
        if not (any(t.requires_grad for t in tensors) and is_grad_enabled()):
            return args, None
        new = BackwardHookFunction().apply(*tensors)
        node = next(t.grad_fn for t in new if t.grad_fn is not None)
        setup(node)
        out = list(args)
        for i, t in zip(index, new, strict=True):
            out[i] = t
        return tuple(out), index

    def setup_input_hook(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        self.n_inputs = len(args)
        res, self.input_index = self._apply(lambda node: node.register_hook(self._input_hook),
                                            args)
        return res

    def setup_output_hook(self, result: Any) -> Any:
        is_tuple = isinstance(result, tuple)
        args = result if is_tuple else (result,)
        self.n_outputs = len(args)
        res, self.output_index = self._apply(
            lambda node: node.register_prehook(self._output_hook), args)
        return res if is_tuple else res[0]

    def _input_hook(self, grad_input: tuple[Any, ...],
                    _grad_output: tuple[Any, ...]) -> tuple[Any, ...] | None:
        if self.grad_outputs is None:
            return None  # the outputs' hook did not run: nothing to report
        res = _pack(self.input_index, grad_input, self.n_inputs)
        for hook in self.hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(res):
                raise RuntimeError("Backward hook returned an invalid number of grad_input, got "
                                   f"{len(out)}, but expected {len(res)}")
            res = out
        self.grad_outputs = None
        return tuple(res[i] for i in self.input_index or [])

    def _output_hook(self, grad_output: tuple[Any, ...]) -> tuple[Any, ...] | None:
        self.grad_outputs = _pack(self.output_index, grad_output, self.n_outputs)
        for pre in self.pre_hooks:
            new = pre(self.module, self.grad_outputs)
            if new is None:
                continue
            if len(new) != len(self.grad_outputs):
                raise RuntimeError("Backward pre hook returned an invalid number of grad_output, "
                                   f"got {len(new)}, but expected {len(self.grad_outputs)}")
            self.grad_outputs = tuple(new)
        local = self.grad_outputs
        if self.input_index is None:
            warnings.warn(_NO_INPUT_GRAD, UserWarning, stacklevel=_user_stacklevel())
            grad_inputs = _pack([], [], self.n_inputs)
            for hook in self.hooks:
                res = hook(self.module, grad_inputs, self.grad_outputs)
                if res is not None and not (isinstance(res, tuple)
                                            and all(el is None for el in res)):
                    raise RuntimeError("Backward hook for Modules where no input requires "
                                       "gradient should always return None or None for all "
                                       "gradients.")
            self.grad_outputs = None
        return tuple(local[i] for i in self.output_index or [])


def call_with_backward_hooks(module: Any, forward_pre: HookDict, forward_post: HookDict,
                             args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """A module call with backward hooks: forward pre-hooks, wrapped inputs, ``forward``,
    forward hooks, wrapped outputs (PyTorch's order)."""
    for hook in list(forward_pre.values()):
        new = hook(module, args)
        if new is not None:
            args = new if isinstance(new, tuple) else (new,)
    hooks = list(module.__dict__.get("_backward_hooks", {}).values())
    full = module.__dict__.get("_is_full_backward_hook", True)
    pre = list(module.__dict__.get("_backward_pre_hooks", {}).values())
    bw = BackwardHook(module, hooks if full else [], pre) if (full and hooks) or pre else None
    if bw is not None:
        args = bw.setup_input_hook(args)
    result = module.forward(*args, **kwargs)
    for hook in list(forward_post.values()):
        new = hook(module, args, result)
        if new is not None:
            result = new
    if bw is not None:
        if not isinstance(result, (Tensor, tuple)):
            warnings.warn("For backward hooks to be called, module output should be a Tensor "
                          f"or a tuple of Tensors but received {type(result)}", UserWarning,
                          stacklevel=3)
        result = bw.setup_output_hook(result)
    if hooks and not full:
        _attach_legacy(module, hooks, args, result)
    return result


def _attach_legacy(module: Any, hooks: list[Any], args: tuple[Any, ...], result: Any) -> None:
    """Non-full hooks go on the node of the first Tensor in the output (as PyTorch)."""
    var = result
    while not isinstance(var, Tensor):
        var = next(v for v in var.values() if isinstance(v, Tensor)) if isinstance(
            var, dict) else var[0]
    node = var.grad_fn
    if node is None:
        return
    for hook in hooks:
        node.register_hook(functools.partial(_call_legacy, hook, module))
    _warn_legacy(args, result, node)


def _call_legacy(hook: Callable[..., Any], module: Any, grad_input: tuple[Any, ...],
                 grad_output: tuple[Any, ...]) -> Any:
    return hook(module, grad_input, grad_output)


_MISSING = ("is deprecated and will be removed in future versions. This hook will be missing "
            "some {} Please use register_full_backward_hook to get the documented behavior.")


def _warn_legacy(inputs: tuple[Any, ...], result: Any, node: Any) -> None:
    """PyTorch's FutureWarnings when a non-full hook cannot see every gradient."""
    def warn(text: str) -> None:
        warnings.warn(text, FutureWarning, stacklevel=_user_stacklevel())

    results = (result,) if isinstance(result, Tensor) else result
    if not (isinstance(results, tuple) and all(isinstance(r, Tensor) for r in results)):
        warn("Using non-full backward hooks on a Module that does not return a single Tensor "
             "or a tuple of Tensors " + _MISSING.format("of the grad_output."))
        return
    if not all(isinstance(i, Tensor) for i in inputs):
        warn("Using non-full backward hooks on a Module that does not take as input a single "
             "Tensor or a tuple of Tensors " + _MISSING.format("of the grad_input."))
        return
    out_fns = {r.grad_fn for r in results if r.grad_fn is not None}
    if not out_fns or (len(out_fns) == 1 and node not in out_fns):
        warn("Using a non-full backward hook when outputs are nested in python data structure "
             "is deprecated and will be removed in future versions. This hook will be missing "
             "some grad_output.")
    elif len(out_fns) > 1:
        warn("Using a non-full backward hook when outputs are generated by different autograd "
             "Nodes " + _MISSING.format("grad_output."))
    elif {i.grad_fn for i in inputs if i.grad_fn is not None} != {
            fn for fn, _ in node.next_functions}:
        warn("Using a non-full backward hook when the forward contains multiple autograd Nodes "
             + _MISSING.format("grad_input."))
