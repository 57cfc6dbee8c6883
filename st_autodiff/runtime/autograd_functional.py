"""``torch.autograd.functional``: derivatives of whole functions (part "autograd", issue 12).

``vjp``, ``jvp``, ``jacobian``, ``hessian``, ``hvp`` and ``vhp`` call a user function on
fresh copies of its inputs under grad mode and differentiate the result with the engine.
Forward products (``jvp``, ``hvp``) use the double-backward trick, as PyTorch does: the
vector-Jacobian product is linear in its cotangent ``u``, so differentiating it with
respect to ``u`` (a zero leaf that requires grad) gives the Jacobian-vector product.

Structures follow PyTorch: a Tensor argument gives Tensor results, a tuple gives tuples,
and ``jacobian`` of a tuple of outputs by a tuple of inputs is a tuple (per output) of
tuples (per input).  An input the function does not use gets a zero gradient, or the
strict-mode error.  Without ``create_graph`` every result is detached.  ``vectorize``
and ``strategy`` change how PyTorch batches the work, not the values, so both strategies
run the same row-by-row reverse-mode loop here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import grad_mode
from .engine import grad as _engine_grad
from .factory import zeros_like
from .shape_ops import stack
from .tensor import Tensor, plain

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


def _as_tuple(value: Any, arg_name: str, fn_name: str) -> tuple[bool, tuple[Any, ...]]:
    """``(was_tuple, tuple_of_tensors)`` with PyTorch's TypeError for anything else."""
    is_tuple = isinstance(value, tuple)
    items = value if is_tuple else (value,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = (f"the value at index {i} has type {type(el)}" if is_tuple
                     else f"the given {arg_name} has type {type(el)}")
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                            f"tuple of Tensors but {where}.")
    return is_tuple, items


def _unpack(res: Any, to_unpack: Any) -> Any:
    """Undo the tuple wrapping of Tensor arguments (one flag, or (outputs, inputs) flags)."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
        return res
    return res if to_unpack else res[0]


def _prepare(inputs: tuple[Any, ...], create_graph: bool, need_graph: bool) -> tuple[Any, ...]:
    """Fresh tensors to differentiate with respect to (linked to the caller's graph only
    with ``create_graph``)."""
    out = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            out.append(inp.view_as(inp))
        else:
            out.append(inp.detach().requires_grad_(need_graph))
    return tuple(out)


def _finish(values: Any, create_graph: bool) -> Any:
    """Detach results (recursively through tuples) unless ``create_graph``."""
    if create_graph:
        return values
    if isinstance(values, tuple):
        return tuple(_finish(v, False) for v in values)
    return None if values is None else values.detach()


def _validate_v(v: tuple[Any, ...], other: tuple[Any, ...], other_is_tuple: bool) -> None:
    if len(v) != len(other):
        if other_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but "
                               f"got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (el_v, el_other) in enumerate(zip(v, other, strict=True)):
        if el_v.size() != el_other.size():
            prefix = f"Entry {i} in " if other_is_tuple else ""
            raise RuntimeError(f"{prefix}v has invalid size: should be {el_other.size()} but "
                               f"got {el_v.size()}.")


_STRICT_NEEDS_GRAD = {
    "hessian": ("The hessian of the user-provided function with respect to input {i} is "
                "independent of the input. This is not allowed in strict mode. You should "
                "ensure that your function is thrice differentiable and that the hessian "
                "depends on the inputs."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided "
                 "function with respect to input {i} is independent of the input. This is not "
                 "allowed in strict mode. You should ensure that your function is twice "
                 "differentiable and that the jacobian depends on the inputs (this would be "
                 "violated by a linear function for example)."),
    "grad_inputs": ("The gradient with respect to input {i} is independent of the inputs of "
                    "the user-provided function. This is not allowed in strict mode."),
    "outputs": ("Output {i} of the user-provided function does not require gradients. The "
                "outputs must be computed in a differentiable manner from the input when "
                "running in strict mode."),
}
_STRICT_UNUSED = {
    "back": ("The output of the user-provided function is independent of input {i}. This is "
             "not allowed in strict mode."),
    "back_trick": ("The gradient with respect to the input is independent of entry {i} in the "
                   "grad_outputs when using the double backward trick to compute forward mode "
                   "gradients. This is not allowed in strict mode."),
    "double_back": ("The jacobian of the user-provided function is independent of input {i}. "
                    "This is not allowed in strict mode."),
    "double_back_trick": ("The hessian of the user-provided function is independent of entry "
                          "{i} in the grad_jacobian. This is not allowed in strict mode as it "
                          "prevents from using the double backward trick to replace forward "
                          "mode AD."),
}


def _check_requires_grad(values: tuple[Any, ...], kind: str, strict: bool) -> None:
    if not strict:
        return
    for i, v in enumerate(values):
        if v is None:
            raise RuntimeError(_STRICT_UNUSED["back"].format(i=i))
        if not v.requires_grad:
            raise RuntimeError(_STRICT_NEEDS_GRAD[kind].format(i=i))


def _grad(outputs: tuple[Any, ...], inputs: tuple[Any, ...],
          grad_outputs: tuple[Any, ...] | None = None,
          create_graph: bool = False, retain_graph: bool | None = None) -> tuple[Any, ...]:
    """``autograd.grad`` over the outputs that require grad; ``None`` for unused inputs."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    kept = [(o, g) for o, g in zip(outputs, grad_outputs, strict=True)
            if o is not None and o.requires_grad]
    if not kept:
        return (None,) * len(inputs)
    return _engine_grad(tuple(o for o, _ in kept), inputs, tuple(g for _, g in kept),
                        retain_graph, create_graph, allow_unused=True)


def _zeros_for_none(grads: tuple[Any, ...], refs: tuple[Any, ...], strict: bool,
                    stage: str) -> tuple[Any, ...]:
    out = []
    for i, (g, ref) in enumerate(zip(grads, refs, strict=True)):
        if g is None:
            if strict:
                raise RuntimeError(_STRICT_UNUSED[stage].format(i=i))
            g = zeros_like(ref)
        out.append(g)
    return tuple(out)


def _product(outputs: tuple[Any, ...], outputs_tuple: bool, grad_args: tuple[Any, Any, Any],
             like: tuple[Any, ...], like_tuple: bool, strict: bool, stage: str,
             create_graph: bool) -> tuple[Any, ...]:
    """The last step of vjp, jvp, vhp and hvp: ``autograd.grad(*grad_args)`` in the grad
    mode PyTorch uses there, a part without a gradient as zeros shaped like ``like``, and
    ``(outputs, result)`` unpacked as the inputs were given."""
    enabled = True if create_graph else grad_mode.is_grad_enabled()
    with grad_mode.set_grad_enabled(enabled):
        res = _zeros_for_none(_grad(*grad_args, create_graph=create_graph), like, strict, stage)
    return (_unpack(_finish(outputs, create_graph), outputs_tuple),
            _unpack(_finish(res, create_graph), like_tuple))


def vjp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, ...]:
    """``(func(*inputs), v^T J)``: the vector-Jacobian product at ``inputs``."""
    with grad_mode.enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided "
                                           "function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _prepare(v, create_graph, need_graph=False)
            _validate_v(v, outputs, outputs_tuple)
        elif len(outputs) != 1 or outputs[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function "
                               "returns a single Tensor with a single element.")
    return _product(outputs, outputs_tuple, (outputs, inputs, v), inputs, inputs_tuple,
                    strict, "back", create_graph)


def jvp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, ...]:
    """``(func(*inputs), J v)``: the Jacobian-vector product (double-backward trick)."""
    with grad_mode.enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _prepare(v, create_graph, need_graph=False)
            _validate_v(v, inputs, inputs_tuple)
        elif len(inputs) != 1 or inputs[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided "
                               "function is a single Tensor with a single element.")
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided "
                                           "function", "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        cotangents = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _grad(outputs, inputs, cotangents, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    return _product(outputs, outputs_tuple, (grad_inputs, cotangents, v), outputs,
                    outputs_tuple, strict, "back_trick", create_graph)


_STRATEGY = ('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
             'function has more outputs than inputs, "forward-mode" tends to be more '
             'performant. Otherwise, prefer to use "reverse-mode".')


def jacobian(func: Callable[..., Any], inputs: Any, create_graph: bool = False,
             strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode") -> Any:
    """The Jacobian of ``func`` at ``inputs``: ``out.shape + in.shape`` per (output, input)."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(_STRATEGY)
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either '
                'set `create_graph=False` or `strategy="reverse-mode"`.')
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or "
                                      "forward-over-reverse Hessian isonly implemented for "
                                      "`vectorize=True`.")
    with grad_mode.enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided "
                                           "function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        result = tuple(_jacobian_rows(i, out, inputs, create_graph, strict)
                       for i, out in enumerate(outputs))
    return _unpack(_finish(result, create_graph), (outputs_tuple, inputs_tuple))


def _jacobian_rows(i: int, out: Tensor, inputs: tuple[Any, ...], create_graph: bool,
                   strict: bool) -> tuple[Any, ...]:
    """The Jacobian blocks of output ``i``: one gradient per output element, stacked."""
    rows: tuple[list[Any], ...] = tuple([] for _ in inputs)
    n = out.nelement()
    host = type(out._data) is np.ndarray
    flat = None if host else out.reshape(-1)
    for j in range(n):
        if host:
            # the gradient of ``out.reshape(-1)[j]`` is that of ``out`` seeded with a
            # one-hot (the same values), without recording a view and a select per row
            seed = np.zeros(out._data.shape, out._data.dtype)
            seed.reshape(-1)[j] = 1
            grads = _grad((out,), inputs, (plain(seed),), retain_graph=True,
                          create_graph=create_graph)
        else:
            assert flat is not None  # not host
            grads = _grad((flat[j],), inputs, retain_graph=True, create_graph=create_graph)
        for k, (g, inp) in enumerate(zip(grads, inputs, strict=True)):
            if g is None:
                if strict:
                    raise RuntimeError(f"Output {i} of the user-provided function is "
                                       f"independent of input {k}. This is not allowed in "
                                       "strict mode.")
                g = zeros_like(inp)
            elif strict and create_graph and not g.requires_grad:
                raise RuntimeError("The jacobian of the user-provided function is not "
                                   f"differentiable with respect to input {k}. This is not "
                                   "allowed in strict mode when create_graph=True.")
            rows[k].append(g)
    if not n:
        raise RuntimeError("stack expects a non-empty TensorList")  # torch's (empty output)
    return tuple(stack(rows[k], dim=0).view(tuple(out.size()) + tuple(inp.size()))
                 for k, inp in enumerate(inputs))


def hessian(func: Callable[..., Any], inputs: Any, create_graph: bool = False,
            strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """The Hessian of a scalar ``func``: ``in_i.shape + in_j.shape`` per pair of inputs."""
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def single_output(*inp: Tensor) -> Tensor:
        out: Tensor = func(*inp)  # checked below
        out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(outs, "outputs", strict)
        if out_tuple:
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out.squeeze()

    def jac_func(*inp: Tensor) -> tuple[Any, ...]:
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac: tuple[Any, ...] = jacobian(single_output, inp, create_graph=True)  # inp: a tuple
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _unpack(res, (inputs_tuple, inputs_tuple))


def _scalar_function_setup(func: Callable[..., Any], inputs: Any, v: Any, create_graph: bool,
                           strict: bool, name: str) -> tuple[Any, ...]:
    """Shared start of ``hvp``/``vhp``: inputs, v, outputs and the first gradient."""
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", name)
    inputs = _prepare(inputs, create_graph, need_graph=True)
    if v is not None:
        _, v = _as_tuple(v, "v", name)
        v = _prepare(v, create_graph, need_graph=False)
        _validate_v(v, inputs, inputs_tuple)
    elif len(inputs) != 1 or inputs[0].nelement() != 1:
        raise RuntimeError("The vector v can only be None if the input to the user-provided "
                           "function is a single Tensor with a single element.")
    outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function",
                                       name)
    _check_requires_grad(outputs, "outputs", strict)
    if outputs_tuple:
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {name} should "
                           "contain a single element")
    jac = _grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict)
    return inputs_tuple, inputs, v, outputs_tuple, outputs, jac


def vhp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, ...]:
    """``(func(*inputs), v^T H)`` for a scalar ``func``."""
    with grad_mode.enable_grad():
        inputs_tuple, inputs, v, outputs_tuple, outputs, jac = _scalar_function_setup(
            func, inputs, v, create_graph, strict, "vhp")
    return _product(outputs, outputs_tuple, (jac, inputs, v), inputs, inputs_tuple, strict,
                    "double_back", create_graph)


def hvp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, ...]:
    """``(func(*inputs), H v)`` for a scalar ``func`` (double-backward trick)."""
    with grad_mode.enable_grad():
        inputs_tuple, inputs, v, outputs_tuple, outputs, jac = _scalar_function_setup(
            func, inputs, v, create_graph, strict, "hvp")
        grad_jac = tuple(zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
    return _product(outputs, outputs_tuple, (double_back, grad_jac, v), inputs, inputs_tuple,
                    strict, "double_back_trick", create_graph)
