"""Products and matrices of derivatives built on compiled gradients: ``vjp``, ``jvp``,
``jacrev``/``jacfwd``/``jacobian``, ``hessian`` and ``hvp``.

Each wraps a ``GradFunction`` (``api.py``) in the mode it needs and caches it per
function, so repeated calls compile once.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .api import GradFunction, Options, _is_float, grad
from .errors import StAutodiffError, WrtError


def vjp(fn: Callable[..., Any], *args: Any) -> tuple[Any, Callable[[Any], tuple]]:
    """``(fn(*args), vjp_fn)``; ``vjp_fn(cotangent)`` gives one gradient per argument.

    The primal runs once, in a generated forward function that keeps exactly the values
    the adjoint reads; ``vjp_fn`` runs the generated backward function on them.
    Arguments that are not floating point (ints, bools, integer arrays) get ``None``.
    """
    # (parameters left out take their defaults: GradFunction binds the call as Python does)
    floats = tuple(i for i, a in enumerate(args) if _is_float(a))
    if not floats:
        raise WrtError(f"vjp of {getattr(fn, '__name__', fn)}: no floating-point argument "
                       "to differentiate")
    per_fn = _VJP_CACHE.setdefault(fn, {})
    g = per_fn.get(floats)
    if g is None:
        g = per_fn[floats] = GradFunction(fn, floats, "vjp", False, Options())
    try:
        fwd, bwd = g.split(*args)
    except StAutodiffError as exc:
        raise exc.with_traceback(None) from None
    out, residuals = fwd(*args)

    def vjp_fn(cotangent: Any) -> tuple:
        grads = bwd(*residuals, cotangent)
        result: list[Any] = [None] * len(args)
        for i, gi in zip(floats, grads):
            result[i] = gi
        return tuple(result)

    vjp_fn.grad_function = g  # type: ignore[attr-defined]
    return out, vjp_fn


_VJP_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def jvp(fn: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any]
        ) -> tuple[Any, Any]:
    """``(fn(*primals), J @ tangents)`` by forward mode (JAX's convention).

    ``tangents`` has one entry per primal, shaped like it; ``None`` means a zero tangent
    (and is what arguments that are not floating point take).  The generated ``NAME_jvp``
    runs the primal sweep, then the tangent sweep.

    >>> import numpy as np, st_autodiff as st
    >>> def f(x):
    ...     return np.sin(x) * x
    >>> out, t = st.jvp(f, (np.array([0.0, 1.0]),), (np.array([1.0, 1.0]),))
    >>> bool(np.allclose(t, np.cos([0.0, 1.0]) * [0.0, 1.0] + np.sin([0.0, 1.0])))
    True
    """
    primals, tangents = tuple(primals), tuple(tangents)
    if len(primals) != len(tangents):
        raise TypeError(f"jvp: {len(primals)} primals but {len(tangents)} tangents; give "
                        "one tangent per primal")
    wrt = tuple(i for i, a in enumerate(primals) if _is_float(a) and tangents[i] is not None)
    for i in wrt:
        if np.shape(tangents[i]) != np.shape(primals[i]):
            raise ValueError(f"jvp: tangent {i} has shape {np.shape(tangents[i])}, but its "
                             f"primal has shape {np.shape(primals[i])}")
    if isinstance(fn, GradFunction) and (fn._mode != "grad" or fn._has_aux or
                                         not isinstance(fn._wrt_spec, (int, str))):
        # forward mode carries the tangent of the first output only
        raise NotImplementedError(
            f"jvp of {fn!r}: its generated code returns a tuple, and forward mode "
            "differentiates one output; take the jvp of grad(f, wrt=i) for one argument i")
    per_fn = _JVP_CACHE.setdefault(fn, {})
    g = per_fn.get(wrt)
    if g is None:
        g = per_fn[wrt] = GradFunction(fn, wrt, "jvp", False, Options())
    return g.call_flat(*primals, *(tangents[i] for i in wrt))


_JVP_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def jacrev(fn: Callable[..., Any], wrt: int = 0) -> Callable[..., Any]:
    """The Jacobian of ``fn`` with respect to argument ``wrt``, by reverse mode: one primal
    run, then one generated backward call per output element.  The result has shape
    ``out.shape + x.shape``."""

    def jacobian_fn(*args: Any) -> Any:
        out, pullback = vjp(fn, *args)
        out = np.asarray(out)
        rows = [pullback(_basis(out, k))[wrt] for k in range(out.size)]
        return np.stack([np.asarray(r) for r in rows]).reshape(out.shape + np.shape(args[wrt]))

    return _named(jacobian_fn, fn, "jacrev")


def jacfwd(fn: Callable[..., Any], wrt: int = 0) -> Callable[..., Any]:
    """The Jacobian of ``fn`` with respect to argument ``wrt``, by forward mode: one
    generated tangent run per input element (cheaper than ``jacrev`` for few inputs)."""

    def jacobian_fn(*args: Any) -> Any:
        x = np.asarray(args[wrt])
        cols = []
        for k in range(x.size):
            tangents = [None] * len(args)
            tangents[wrt] = _basis(x, k)
            cols.append(np.asarray(jvp(fn, args, tangents)[1]))
        out_shape = cols[0].shape if cols else ()
        jac = np.stack(cols, axis=-1) if cols else np.zeros(out_shape + (0,))
        return jac.reshape(out_shape + x.shape)

    return _named(jacobian_fn, fn, "jacfwd")


#: ``jacobian`` is ``jacrev``, as in JAX.
jacobian = jacrev


def hessian(fn: Callable[..., Any], wrt: int = 0, *, mode: str = "forward"
            ) -> Callable[..., Any]:
    """The Hessian of a scalar ``fn`` with respect to argument ``wrt``: the Jacobian of the
    compiled gradient, whose generated code the compiler differentiates again.  The
    result has shape ``x.shape + x.shape``.

    ``mode="forward"`` (the default, JAX's ``jacfwd(grad(f))``) is forward over reverse:
    one generated tangent run of the gradient per element of ``x``, and the tangent sweep
    costs about as much as the gradient itself.  ``mode="reverse"`` is reverse over
    reverse (``jacrev(grad(f))``): one primal run, then one generated backward run of the
    gradient's adjoint per element of ``x``.
    """
    g = grad(fn, wrt=wrt)
    if mode == "forward":
        return _named(jacfwd(g, wrt=wrt), fn, "hessian")
    if mode == "reverse":
        return _named(jacrev(g, wrt=wrt), fn, "hessian")
    raise ValueError(f"hessian: mode must be 'forward' or 'reverse', got {mode!r}")


def hvp(fn: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any], *,
        mode: str = "forward") -> Any:
    """The Hessian-vector product of a scalar ``fn``: the derivative of its gradient with
    respect to the first argument along ``tangents``.  With a tangent for the first
    argument only, that is ``H(primals) @ tangents[0]``.

    ``mode="forward"`` is JAX's ``jvp(grad(f), primals, tangents)[1]``: one generated
    tangent run of the gradient (tangents of the other arguments, when given, move them
    too).  ``mode="reverse"`` is one pullback of the gradient (the Hessian is symmetric,
    so its VJP is its JVP); it takes a tangent for the first argument only.
    """
    primals, tangents = tuple(primals), tuple(tangents)
    g = _grad_of(fn)
    if mode == "forward":
        return jvp(g, primals, tangents)[1]
    if mode == "reverse":
        if any(t is not None for t in tangents[1:]):
            raise ValueError("hvp(mode='reverse') takes a tangent for the first argument "
                             "only; pass None for the others, or use mode='forward'")
        _, pullback = vjp(g, *primals)
        return pullback(tangents[0])[0]
    raise ValueError(f"hvp: mode must be 'forward' or 'reverse', got {mode!r}")


def _grad_of(fn: Callable[..., Any]) -> GradFunction:
    """``grad(fn)``, made once per function (so repeated ``hvp`` calls compile once)."""
    g = _GRAD_CACHE.get(fn)
    if g is None:
        g = _GRAD_CACHE[fn] = grad(fn)
    return g


_GRAD_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _basis(like: Any, k: int) -> Any:
    e = np.zeros(np.shape(like), dtype=np.result_type(like, np.float32))
    e.flat[k] = 1.0
    return e


def _named(wrapper: Callable[..., Any], fn: Callable[..., Any], kind: str) -> Any:
    wrapper.__name__ = f"{kind}_{getattr(fn, '__name__', 'function')}"
    wrapper.__qualname__ = wrapper.__name__
    wrapper.__doc__ = f"The Jacobian of {getattr(fn, '__qualname__', fn)} ({kind})."
    return wrapper
