"""Gradient oracles: check derivatives against central finite differences.

Three public checks, all in float64 on the numerical side:

* ``numerical_vjp(f, args, g)``: the vector-Jacobian product ``g^T J`` of ``f`` at
  ``args``, one central difference per input element;
* ``check_vjp(f, vjp_fn, args)``: the dot-product test.  For a random cotangent ``g`` and
  a random direction ``v`` per argument, ``<g, J v>`` (one central difference of ``f``
  along ``v``) must equal ``<vjp_fn(g), v>``;
* ``check_grads(f, args, grad_fn)``: the gradient of a scalar ``f`` compared element by
  element with central differences.

``f`` returns an array, a scalar or a tuple of them (a multi-output op); a cotangent has
the same structure.  Only floating-point arguments (arrays, NumPy scalars, Python floats)
are differentiated unless ``argnums`` says otherwise; the others (indices, masks, shapes)
are passed through unchanged.  Gradient functions return one entry per argument and may
return ``None`` for arguments that are not differentiated.  A mismatch raises
``AssertionError`` naming the argument and the absolute and relative errors; the
tolerance follows the lower precision of the argument and its gradient (see
``tolerance``).  The idea follows JAX's ``check_grads``/``check_vjp``.

>>> import numpy as np
>>> x = np.array([0.1, 0.7, 1.3])
>>> check_grads(lambda x: np.sum(np.sin(x)), (x,), lambda x: (np.cos(x),))
>>> check_vjp(np.sin, lambda g: (g * np.cos(x),), (x,))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np

__all__ = ["check_grads", "check_vjp", "numerical_vjp", "tolerance"]

#: (atol, rtol) per floating dtype, in the spirit of JAX's gradient tolerances.
TOLERANCES: dict[np.dtype[Any], tuple[float, float]] = {
    np.dtype(np.float16): (1e-1, 1e-1),
    np.dtype(np.float32): (2e-3, 2e-3),
    np.dtype(np.float64): (1e-6, 1e-5),
}


def tolerance(*dtypes: Any) -> tuple[float, float]:
    """``(atol, rtol)`` for the least precise of ``dtypes`` (float64 for non-floats)."""
    tols = [
        TOLERANCES.get(np.dtype(d), TOLERANCES[np.dtype(np.float64)])
        for d in dtypes
        if d is not None
    ]
    return max(tols, default=TOLERANCES[np.dtype(np.float64)])


def _tolerances(arg: Any, grad: Any, atol: float | None, rtol: float | None) -> tuple[float, float]:
    """The explicit tolerances, or the defaults for the argument's and gradient's dtypes."""
    d_atol, d_rtol = tolerance(np.asarray(arg).dtype, np.asarray(grad).dtype)
    return (d_atol if atol is None else atol), (d_rtol if rtol is None else rtol)


def _is_float(a: Any) -> bool:
    if isinstance(a, float):
        return True
    return isinstance(a, (np.ndarray, np.generic)) and np.issubdtype(a.dtype, np.floating)


def _argnums(args: Sequence[Any], argnums: Sequence[int] | None) -> list[int]:
    if argnums is not None:
        return list(argnums)
    return [i for i, a in enumerate(args) if _is_float(a)]


def _outputs(value: Any) -> list[np.ndarray[Any, Any]]:
    """The outputs of ``f`` as a flat list of float64 arrays; a complex output counts by
    its real part, the real loss ``Re <g, f(x)>`` whose gradient the adjoint computes."""
    parts = value if isinstance(value, (tuple, list)) else (value,)
    return [np.asarray(np.real(p), dtype=np.float64) for p in parts]


def _inner(g: Any, value: Any) -> float:
    """``<g, value>`` summed over all outputs, in float64."""
    return float(sum(np.sum(a * b) for a, b in zip(_outputs(g), _outputs(value), strict=True)))


def _with(args: Sequence[Any], i: int, x: np.ndarray[Any, Any]) -> list[Any]:
    new = list(args)
    new[i] = x
    return new


def _as64(a: Any) -> np.ndarray[Any, Any]:
    return np.array(a, dtype=np.float64)


def numerical_vjp(
    f: Callable[..., Any],
    args: Sequence[Any],
    g: Any,
    eps: float = 1e-6,
    *,
    argnums: Sequence[int] | None = None,
) -> tuple[np.ndarray[Any, Any] | None, ...]:
    """``g^T J`` of ``f`` at ``args`` by central differences in float64.

    Returns one float64 array per argument (shaped like it), ``None`` for arguments that
    are not differentiated.
    """
    nums = _argnums(args, argnums)
    base = [_as64(a) if i in nums else a for i, a in enumerate(args)]
    grads: list[np.ndarray[Any, Any] | None] = [None] * len(args)
    for i in nums:
        x = base[i]
        grad = np.zeros(x.shape)
        for j in range(x.size):
            step = np.zeros(x.size)
            step[j] = eps
            step = step.reshape(x.shape)
            hi = _inner(g, f(*_with(base, i, x + step)))
            lo = _inner(g, f(*_with(base, i, x - step)))
            grad.flat[j] = (hi - lo) / (2 * eps)
        grads[i] = grad
    return tuple(grads)


def _checked(grads: Sequence[Any], args: Sequence[Any], nums: list[int], who: str) -> list[Any]:
    """Validate that a gradient function returned one well-shaped entry per argument."""
    grads = list(grads)
    if len(grads) != len(args):
        raise AssertionError(f"{who}: got {len(grads)} gradients for {len(args)} arguments")
    for i in nums:
        if grads[i] is None:
            raise AssertionError(f"{who}: argument {i} is differentiable but its gradient is None")
        if np.shape(grads[i]) != np.shape(args[i]):
            raise AssertionError(
                f"{who}: argument {i} has shape {np.shape(args[i])} but its "
                f"gradient has shape {np.shape(grads[i])}"
            )
    return grads


def _dtype(a: Any) -> np.dtype[Any]:
    dt: np.dtype[Any] = np.asarray(a).dtype
    return dt


def _random_like(rng: np.random.Generator, value: Any) -> Any:
    """A random cotangent with the structure and (floating) dtype of ``value``."""
    if isinstance(value, (tuple, list)):
        return tuple(_random_like(rng, v) for v in value)
    arr = np.asarray(value)
    dtype = arr.dtype if np.issubdtype(arr.dtype, np.floating) else np.float64
    draws = np.asarray(rng.standard_normal(arr.shape))
    return draws.astype(dtype)


def check_vjp(
    f: Callable[..., Any],
    vjp_fn: Callable[[Any], Sequence[Any]],
    args: Sequence[Any],
    *,
    argnums: Sequence[int] | None = None,
    eps: float = 1e-6,
    atol: float | None = None,
    rtol: float | None = None,
    seed: int = 0,
) -> None:
    """Dot-product test of ``vjp_fn`` (the VJP of ``f`` at ``args``).

    ``vjp_fn(g)`` returns one cotangent per argument.  Each differentiated argument ``i``
    is tested on its own: ``<g, J_i v_i>`` by a central difference of ``f`` along a
    random ``v_i`` must match ``<vjp_fn(g)[i], v_i>`` within ``atol + rtol * scale``.
    """
    rng = np.random.default_rng(seed)
    nums = _argnums(args, argnums)
    g = _random_like(rng, f(*args))
    grads = _checked(vjp_fn(g), args, nums, "check_vjp")
    base = [_as64(a) if i in nums else a for i, a in enumerate(args)]
    for i in nums:
        v = rng.standard_normal(np.shape(args[i]))
        hi = _inner(g, f(*_with(base, i, base[i] + eps * v)))
        lo = _inner(g, f(*_with(base, i, base[i] - eps * v)))
        expected = (hi - lo) / (2 * eps)
        actual = float(np.sum(np.asarray(grads[i], dtype=np.float64) * v))
        a_tol, r_tol = _tolerances(args[i], grads[i], atol, rtol)
        err = abs(actual - expected)
        scale = max(abs(actual), abs(expected))
        if not err <= a_tol + r_tol * scale:  # also catches nan
            raise AssertionError(
                f"check_vjp: argument {i} (shape {np.shape(args[i])}, "
                f"{_dtype(args[i])}): <g, J v> = {expected:.6g} by central differences but "
                f"<vjp(g), v> = {actual:.6g}; abs error {err:.3g}, rel error "
                f"{err / scale if scale else err:.3g} (atol={a_tol:g}, rtol={r_tol:g})"
            )


def check_grads(
    f: Callable[..., Any],
    args: Sequence[Any],
    grad_fn: Callable[..., Sequence[Any]],
    *,
    argnums: Sequence[int] | None = None,
    eps: float = 1e-6,
    atol: float | None = None,
    rtol: float | None = None,
) -> None:
    """Compare ``grad_fn(*args)`` with central differences of the scalar ``f``.

    ``grad_fn`` returns one gradient per argument; every element must satisfy
    ``|got - expected| <= atol + rtol * |expected|``.
    """
    value = f(*args)
    if isinstance(value, (tuple, list)) or np.size(value) != 1:
        raise ValueError(
            "check_grads needs a scalar-valued f; use check_vjp or scalarise "
            "f with a fixed cotangent"
        )
    nums = _argnums(args, argnums)
    expected_all = numerical_vjp(f, args, 1.0, eps, argnums=nums)
    grads = _checked(grad_fn(*args), args, nums, "check_grads")
    for i in nums:
        got = np.asarray(grads[i], dtype=np.float64)
        expected = cast(np.ndarray[Any, Any], expected_all[i])  # (an array for every i in nums)
        a_tol, r_tol = _tolerances(args[i], grads[i], atol, rtol)
        err = np.abs(got - expected)
        err = np.where(np.isnan(err), np.inf, err)  # a nan gradient is always an error
        bad = err > a_tol + r_tol * np.abs(expected)
        if not bad.any():
            continue
        rel = err / np.maximum(np.abs(expected), np.finfo(np.float64).tiny)
        flat_worst = int(np.argmax(np.where(bad, err, -1.0)))
        worst = tuple(int(k) for k in np.unravel_index(flat_worst, err.shape))
        raise AssertionError(
            f"check_grads: argument {i} (shape {np.shape(args[i])}, {_dtype(args[i])}): "
            f"{int(bad.sum())} of {bad.size} elements differ; max abs error "
            f"{err.max():.3g}, max rel error {rel.max():.3g}; worst at index {worst}: "
            f"got {got[worst]:.6g}, expected {expected[worst]:.6g} "
            f"(atol={a_tol:g}, rtol={r_tol:g})"
        )


# issue 12, tensor part: ``torch.testing.assert_close`` for the eager runtime
from .runtime.assert_close import assert_close  # noqa: E402

__all__ += ["assert_close"]
