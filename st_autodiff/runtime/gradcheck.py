"""``torch.autograd.gradcheck`` / ``gradgradcheck`` (part "autograd", issue 12).

``gradcheck`` compares, for every differentiable output and every input that requires
grad, the Jacobian the engine computes (one vector-Jacobian product per output element,
with a one-hot cotangent) with central differences ``(f(x + eps) - f(x - eps)) / 2 eps``
taken one input element at a time.  A Jacobian here is laid out as PyTorch prints it:
``(input.numel(), output.numel())``.  Entries must satisfy
``|analytical - numerical| <= atol + rtol * |numerical|``.  It also checks, as PyTorch
does, that running the backward twice gives the same values (``nondet_tol``), that
gradients have their inputs' dtype and size, and that a zero cotangent gives zero
gradients ("backward not multiplied by grad_output").

``gradgradcheck`` runs ``gradcheck`` on the function ``(inputs, v) -> v^T J`` built with
``create_graph=True``, so second derivatives are checked the same way.

``fast_mode=True`` compares, as PyTorch does, only ``v^T J u`` for random unit vectors
``u`` (per input) and ``v`` (per differentiable output) drawn from a generator seeded like
a fresh ``torch.Generator()``, so the numbers in a failure message are PyTorch's; a
failure then recomputes the slow-mode Jacobians of the failing pair for the message.
Indices in messages count the differentiable inputs and outputs, as PyTorch's do.
``check_undefined_grad`` is accepted; the engine never calls a node whose incoming
gradients are all undefined, so that property holds by construction.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from . import grad_mode
from .device import is_device, to_device
from .engine import grad as _engine_grad
from .factory import rand as _rand
from .tensor import Tensor, plain

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]

_NONDET_NOTE = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` and ``gradgradcheck`` when a check fails."""


GradcheckError.__module__ = "torch.autograd.gradcheck"


def _as_tuple(x: Any) -> tuple[Any, ...]:
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _diff_inputs(inputs: tuple[Any, ...]) -> list[tuple[int, Tensor]]:
    return [(i, t) for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]


def _float_outputs(out: tuple[Any, ...]) -> list[Tensor]:
    return [o for o in out if isinstance(o, Tensor) and o._data.dtype.kind in "fc"]


def _like(data: Any, t: Tensor) -> Tensor:
    """Host values (a perturbed input, a cotangent) as a tensor on ``t``'s device: the
    check itself reads values on the host (as PyTorch's does), ``func`` runs where its
    inputs live."""
    return plain(to_device(data) if is_device(t._data) else data)


def _call(func: Callable[..., Any], inputs: tuple[Any, ...]) -> tuple[Any, ...]:
    return _as_tuple(func(*inputs))


def _numerical(func: Callable[..., Any], inputs: tuple[Any, ...],
               eps: float) -> list[list[np.ndarray[Any, Any]]]:
    """Central-difference Jacobians ``[input][output]``, each (input numel, output numel)."""
    # perturbed copies keep requires_grad: ``func`` may differentiate (gradgradcheck)
    base = list(inputs)
    with grad_mode.enable_grad():
        ref = _float_outputs(_call(func, tuple(base)))
        result = []
        for i, t in _diff_inputs(inputs):
            data = t._host().astype(t._data.dtype, copy=True)
            jacs = [np.zeros((data.size, o.numel()),
                             dtype=np.result_type(data.dtype, o._data.dtype)) for o in ref]
            flat = data.reshape(-1)
            for k in range(flat.size):
                orig = flat[k].copy()
                outs = []
                for delta in (eps, -eps):
                    flat[k] = orig + delta
                    args = list(base)
                    args[i] = _like(data.copy(), t).requires_grad_(True)
                    outs.append([o._host() for o in _float_outputs(_call(func, tuple(args)))])
                flat[k] = orig
                for j, (hi, lo) in enumerate(zip(outs[0], outs[1], strict=True)):
                    jacs[j][k] = ((hi - lo) / (2 * eps)).reshape(-1)
            result.append(jacs)
    return result


def _one_hots(output: Tensor) -> list[np.ndarray[Any, Any]]:
    eye = np.eye(output.numel(), dtype=output._data.dtype)
    return [row.reshape(output._data.shape) for row in eye]


def _analytical(output: Tensor, diff: list[Tensor], nondet_tol: float,
                check_grad_dtypes: bool, cotangents: list[np.ndarray[Any, Any]] | None = None
                ) -> list[np.ndarray[Any, Any]]:
    """Per input, the engine's vector-Jacobian products of one output as columns (one per
    cotangent; one-hot cotangents, the default, give the Jacobian), with torch's checks."""
    cots_data = _one_hots(output) if cotangents is None else cotangents
    jacs = [np.zeros((t.numel(), len(cots_data)),
                     dtype=np.result_type(t._data.dtype, output._data.dtype)) for t in diff]
    again = [j.copy() for j in jacs]
    sizes_ok = types_ok = True
    for col, cot_data in enumerate(cots_data):
        cot = _like(np.asarray(cot_data, dtype=output._data.dtype), output)
        for target in (jacs, again):
            grads = _engine_grad((output,), tuple(diff), (cot,), True, False, allow_unused=True)
            for k, (g, t) in enumerate(zip(grads, diff, strict=True)):
                if g is None:
                    continue
                if g._data.dtype != t._data.dtype:
                    types_ok = False
                if g.numel() != t.numel():
                    sizes_ok = False
                    continue
                target[k][:, col] = g._host().reshape(-1)
    reentrant = all(np.max(np.abs(a - b), initial=0.0) <= nondet_tol
                    for a, b in zip(jacs, again, strict=True))
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckError(
            "Backward is not reentrant, i.e., running backward with same input and grad_output "
            "multiple times gives different values, although analytical gradient matches "
            f"numerical gradient.The tolerance for nondeterminism was {nondet_tol}."
            + _NONDET_NOTE)
    return jacs


def _as_printed(a: np.ndarray[Any, Any]) -> Tensor:
    return plain(a)


def _check_zero_cotangent(outputs: list[Tensor], diff: list[Tensor]) -> None:
    cots = tuple(_like(np.zeros_like(o._host()), o) for o in outputs)
    grads = _engine_grad(tuple(outputs), tuple(diff), cots, None, False, allow_unused=True)
    for g, t in zip(grads, diff, strict=True):
        if g is None:
            continue
        if np.any(g._host() != 0):
            raise GradcheckError("backward not multiplied by grad_output")
        if g._data.dtype != t._data.dtype:
            raise GradcheckError("grad is incorrect type")
        if g.shape != t.shape:
            raise GradcheckError("grad is incorrect size")


def _run(func: Callable[..., Any], inputs: tuple[Any, ...], eps: float, atol: float, rtol: float,
         nondet_tol: float, check_grad_dtypes: bool, fast_mode: bool) -> None:
    diff_pairs = _diff_inputs(inputs)
    for idx, t in diff_pairs:
        if t._data.dtype not in (np.float64, np.complex128):
            warnings.warn(f"Input #{idx} requires gradient and is not a double precision "
                          "floating point or complex. This check will likely fail if all the "
                          "inputs are not of double precision floating point or complex. ",
                          UserWarning, stacklevel=4)
    if not diff_pairs:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of them have requires_grad=True.")
    diff = [t for _, t in diff_pairs]
    with grad_mode.enable_grad():
        out = _call(func, inputs)
    outputs = [o for o in out if isinstance(o, Tensor) and o.requires_grad]
    check = _fast if fast_mode else _slow
    check(func, inputs, out, outputs, diff, eps, atol, rtol, nondet_tol, check_grad_dtypes)
    if outputs:
        _check_zero_cotangent(outputs, diff)


def _slow(func: Callable[..., Any], inputs: tuple[Any, ...], out: tuple[Any, ...],
          outputs: list[Tensor],
          diff: list[Tensor], eps: float, atol: float, rtol: float, nondet_tol: float,
          check_grad_dtypes: bool) -> None:
    """Every Jacobian entry; indices in messages count differentiable outputs and inputs."""
    numerical = _numerical(func, inputs, eps)
    if not outputs:
        for per_input in numerical:
            if any(np.any(jac != 0) for jac in per_input):
                raise GradcheckError("Numerical gradient for function expected to be zero")
        return
    float_outs = _float_outputs(out)
    for i, o in enumerate(outputs):
        j = next(n for n, f in enumerate(float_outs) if f is o)
        analytical = _analytical(o, diff, nondet_tol, check_grad_dtypes)
        for k, a in enumerate(analytical):
            n = numerical[k][j]
            if not np.all(np.abs(a - n) <= atol + rtol * np.abs(n)):
                raise GradcheckError(
                    f"Jacobian mismatch for output {i} with respect to input {k},\n"
                    f"numerical:{_as_printed(n)!r}\nanalytical:{_as_printed(a)!r}\n")


_SLOW_OK = """
Fast gradcheck failed but element-wise differences are small. This means that the
test might've passed in slow_mode!

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck:

If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `fast_mode=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_fast_mode=False`
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_fast_mode=False`
""".strip()
_FAST_SEED = 67280421310721  # the seed of a fresh torch.Generator(): the same vectors


def _unit_vectors(tensors: list[Tensor], gen: Any) -> list[np.ndarray[Any, Any]]:
    """One random unit vector per tensor (float32 draws, cast, normalised), as torch."""
    out = []
    for t in tensors:
        vec = _rand(t.numel(), generator=gen)._host().astype(t._data.dtype)
        out.append(vec / np.sqrt(np.sum(vec * vec)))
    return out


def _directional(func: Callable[..., Any], inputs: tuple[Any, ...], pos: int,
                 u: np.ndarray[Any, Any],
                 eps: float) -> list[np.ndarray[Any, Any]]:
    """``(f(x + eps u) - f(x - eps u)) / 2 eps`` for each floating output (flattened)."""
    t = inputs[pos]
    data = t._host()
    outs = []
    with grad_mode.enable_grad():
        for sign in (-1, 1):
            args = list(inputs)
            args[pos] = _like(data + sign * eps * u.reshape(data.shape), t).requires_grad_(True)
            outs.append([o._host() for o in _float_outputs(_call(func, tuple(args)))])
    return [((b - a) / (2 * eps)).reshape(-1) for a, b in zip(outs[0], outs[1], strict=True)]


def _fast(func: Callable[..., Any], inputs: tuple[Any, ...], out: tuple[Any, ...],
          outputs: list[Tensor],
          diff: list[Tensor], eps: float, atol: float, rtol: float, nondet_tol: float,
          check_grad_dtypes: bool) -> None:
    """PyTorch's fast mode: compare ``v^T J u`` for random unit ``u`` (per input) and
    ``v`` (per differentiable output) instead of whole Jacobians."""
    from .random import Generator

    gen = Generator().manual_seed(_FAST_SEED)
    positions = [i for i, _ in _diff_inputs(inputs)]
    all_u = _unit_vectors(diff, gen)
    all_v = _unit_vectors(outputs, gen)
    numerical = []
    for pos, u in zip(positions, all_u, strict=True):
        ju = _directional(func, inputs, pos, u, eps)
        if not outputs:
            if any(np.any(x != 0) for x in ju):
                raise GradcheckError("Numerical gradient for function expected to be zero")
            continue
        # v_j pairs with output j's own directional derivative (torch pairs it with the
        # j-th floating output, which differs when a non-differentiable one comes first)
        floats = _float_outputs(out)
        ju_diff = [ju[next(n for n, f in enumerate(floats) if f is o)] for o in outputs]
        numerical.append([float(np.sum(v * x)) for v, x in zip(all_v, ju_diff, strict=True)])
    if not outputs:
        return
    analytical = []
    for o, v in zip(outputs, all_v, strict=True):
        rows = _analytical(o, diff, nondet_tol, check_grad_dtypes, [v.reshape(o._data.shape)])
        analytical.append([float(np.sum(r[:, 0] * u)) for r, u in zip(rows, all_u, strict=True)])
    for k, per_input in enumerate(numerical):
        for j, n in enumerate(per_input):
            a = analytical[j][k]
            tol = atol * float(np.sum(all_u[k])) * float(np.sum(all_v[j]))
            if not abs(a - n) <= tol + rtol * abs(n):
                raise GradcheckError(
                    f"Jacobian mismatch for output {j:d} with respect to input {k:d},\n"
                    f"numerical:{n}\nanalytical:{a}\n"
                    + _slow_recheck(func, inputs, out, outputs, diff, k, j, eps, atol, rtol))


def _slow_recheck(func: Callable[..., Any], inputs: tuple[Any, ...], out: tuple[Any, ...],
                  outputs: list[Tensor],
                  diff: list[Tensor], k: int, j: int, eps: float, atol: float,
                  rtol: float) -> str:
    """The slow-mode Jacobians of the failing pair, appended to a fast-mode failure."""
    floats = _float_outputs(out)
    n = _numerical(func, inputs, eps)[k][next(i for i, f in enumerate(floats)
                                              if f is outputs[j])]
    a = _analytical(outputs[j], diff, float("inf"), False)[k]
    worst = float(np.max(np.abs(n - a), initial=0.0))
    msg = ("\nThe above quantities relating the numerical and analytical jacobians are computed "
           "\nin fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more "
           "background \nabout fast mode. Below, we recompute numerical and analytical "
           "jacobians in slow mode:\n\n"
           f"Numerical:\n {_as_printed(n)!r}\nAnalytical:\n{_as_printed(a)!r}\n\n"
           f"The max per-element difference (slow mode) is: {worst}.\n")
    if np.all(np.abs(a - n) <= atol + rtol * np.abs(n)):
        msg += _SLOW_OK
    return msg


def gradcheck(func: Callable[..., Any], inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5,
              rtol: float = 1e-3, raise_exception: bool = True, nondet_tol: float = 0.0,
              check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
              check_batched_grad: bool = False, check_batched_forward_grad: bool = False,
              check_forward_ad: bool = False, check_backward_ad: bool = True,
              fast_mode: bool = False, masked: bool | None = None) -> bool:
    """Check the gradients of ``func`` at ``inputs`` against central differences.

    Returns ``True``; on a mismatch raises ``GradcheckError`` (or returns ``False`` with
    ``raise_exception=False``).  Use float64 inputs: float32 warns and usually fails.
    """
    inputs = _as_tuple(inputs)
    try:
        _run(func, inputs, eps, atol, rtol, nondet_tol, check_grad_dtypes, fast_mode)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def gradgradcheck(func: Callable[..., Any], inputs: Any, grad_outputs: Any = None, *,
                  eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
                  gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True,
                  nondet_tol: float = 0.0, check_undefined_grad: bool = True,
                  check_grad_dtypes: bool = False, check_batched_grad: bool = False,
                  check_fwd_over_rev: bool = False, check_rev_over_rev: bool = True,
                  fast_mode: bool = False, masked: bool = False) -> bool:
    """Check second derivatives: ``gradcheck`` of ``(inputs, v) -> v^T J``.

    ``grad_outputs`` (the ``v``) default to random values in [-1, 1) that require grad.
    """
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        with grad_mode.enable_grad():
            outs = _call(func, inputs)
        grad_outputs = tuple(
            (_rand(*o.shape, dtype=o.dtype, device=o.device) * 2 - 1).detach().requires_grad_(True)
            for o in outs if isinstance(o, Tensor) and o.requires_grad)
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)

    def first_derivative(*args: Any) -> tuple[Any, ...]:
        ins, vs = args[:n_in], args[n_in:]
        outs = [o for o in _call(func, ins) if isinstance(o, Tensor) and o.requires_grad]
        diff = tuple(t for _, t in _diff_inputs(ins))
        grads = _engine_grad(tuple(outs), diff, tuple(vs), None, True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivative, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, fast_mode=fast_mode)
