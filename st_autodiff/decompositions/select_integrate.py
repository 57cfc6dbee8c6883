"""Selectors of ``scipy.integrate.odeint``, ``solve_ivp`` and ``quad``.

The right-hand side (integrand) is a static value (a function defined outside the
differentiated code, or passed to it as an argument: keyed by identity as
``transforms/callable_args`` keys functions); the solver options are static; ``y0``, the
times, the limits and the ``args`` are runtime values or constants.  The call becomes one
kernel of ``integrate_kernels`` (one per function and options), which runs SciPy itself
and whose rules integrate the adjoint (reverse mode) or the forward sensitivities
(forward mode) with the same solver.  Where an input is computed at run time, the
function is compiled here (``st.vjp`` of it, on the argument kinds the solver will pass),
so a function st_autodiff cannot read is an error at the user's call.

Differentiable: ``odeint`` in ``y0``, every ``t`` and the floating-point ``args``;
``solve_ivp`` in ``y0``, ``t_span[0]``, ``t_eval`` and the floating-point ``args`` (the
readings do not depend on ``t_span[1]``: ``t_eval=[tf]`` reads the end point); ``quad``
in ``a``, ``b`` and the floating-point ``args``.  Not supported (a located error):
``Dfun``/``jac``, ``full_output``, ``tcrit``, banded Jacobians, ``events``,
``dense_output``, a solver class as ``method``, ``solve_ivp`` without ``t_eval`` (it
returns the steps the solver chose, how many being known only at run time), ``quad``'s
weights and break points, a function defined inside the differentiated function (its
values come through ``args``), and complex states.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import StAutodiffError
from ..ir.graph import Node
from ..transforms.callable_args import CallableKey, is_static_callable
from . import integrate_impl as impl
from . import integrate_kernels as kernels
from .common import Selection, Unsupported, constant, dtype_of, shape_of, static

METHODS = ("RK23", "RK45", "DOP853", "Radau", "BDF", "LSODA")


def _func(fn: Any, what: str) -> None:
    if type(fn).__name__ == "Closure":  # a lambda or def inside the compiled function
        raise Unsupported(f"{what} is a function defined inside the differentiated code; "
                          "define it outside (at module level, or pass it as an argument) "
                          "and pass the values it uses through args=")
    if isinstance(fn, Node) or not is_static_callable(fn):
        raise Unsupported(f"{what} must be a Python function known when compiling")


def _freeze(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        return (v.dtype.str, v.shape, tuple(v.ravel().tolist()))
    if isinstance(v, (list, tuple)):
        return tuple(_freeze(x) for x in v)
    return v


def _options(given: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for name, value in given.items():
        value = static(value, name)
        if isinstance(value, (list, tuple)):
            value = np.asarray(value, dtype=np.float64)
        out[name] = value
    return out


def _state(y0: Any) -> int:
    shape = shape_of(y0, "y0")
    if len(shape) > 1:
        raise Unsupported("Initial condition y0 must be one-dimensional.")
    if dtype_of(y0).kind == "c":
        raise Unsupported("complex states are not supported")
    return 1 if not shape else shape[0]


def _example(v: Any) -> Any:
    """A value of ``v``'s kind to compile ``func`` with (None: not known)."""
    if not isinstance(v, Node):
        return v
    t = v.type
    if t is None:
        return None
    if t.kind == "array" and t.shape is not None and t.dtype is not None:
        return np.zeros(t.shape, dtype=t.dtype)
    if t.kind == "float":
        return 0.0
    return None


def _runtime(*values: Any) -> bool:
    """Whether a value (or an item of a list or tuple) is computed at run time."""
    return any(isinstance(constant(v), Node) or isinstance(v, (list, tuple)) and _runtime(*v)
               for v in values)


def _compiles(func: Any, name: str, head: tuple[Any, ...], args: tuple[Any, ...],
              inputs: tuple[Any, ...]) -> None:
    """Compile ``st.vjp`` of ``func`` on the kinds the solver passes it (``head``: a
    float64 state and a float time, or a float point for ``quad``, then ``args``), so
    that a function the compiler cannot read is an error here, at the user's call.  A
    solve of constants needs no derivative: its function is not compiled."""
    if not _runtime(*inputs):
        return
    examples = [_example(a) for a in args]
    if any(e is None for e in examples):
        return  # an argument known only at run time (an int): compiled on first use
    call = (*head, *examples)
    products = kernels._products()
    try:
        flat, _floats, g = products._vjp_function(func, call, None)
        g.compile(*flat.leaves)
    except StAutodiffError as exc:
        raise Unsupported(f"{name} cannot be differentiated by st_autodiff, so neither can "
                          f"the solve: {exc}") from None


def _args(args: Any) -> tuple[Any, ...]:
    if args is None:
        return ()
    if not isinstance(args, (tuple, list)):
        raise Unsupported("args must be a tuple")
    for a in args:
        if not isinstance(a, (Node, int, float, np.ndarray, np.generic)) or isinstance(a, bool):
            raise Unsupported(f"args may hold arrays and numbers only, not "
                              f"{type(a).__name__}")
        if not isinstance(a, Node) and np.iscomplexobj(a) or isinstance(a, Node) and \
                a.type is not None and a.type.dtype is not None and \
                np.dtype(a.type.dtype).kind == "c":
            raise Unsupported("complex args are not supported")
    return tuple(args)


def _odeint(func: Any, y0: Any, t: Any, args: Any = (), Dfun: Any = None,  # noqa: N803
            col_deriv: Any = 0, full_output: Any = 0, ml: Any = None, mu: Any = None,
            rtol: Any = None, atol: Any = None, tcrit: Any = None, h0: Any = 0.0,
            hmax: Any = 0.0, hmin: Any = 0.0, ixpr: Any = 0, mxstep: Any = 0,
            mxhnil: Any = 0, mxordn: Any = 12, mxords: Any = 5, printmessg: Any = 0,
            tfirst: Any = False) -> Selection:
    _func(func, "func")
    if Dfun is not None or ml is not None or mu is not None or col_deriv:
        raise Unsupported("Dfun=, col_deriv=, ml= and mu= are not supported (the derivatives "
                          "use st_autodiff's own Jacobian products of func)")
    if static(full_output, "full_output"):
        raise Unsupported("full_output=True is not supported (its info dict is no array)")
    if tcrit is not None:
        raise Unsupported("tcrit= is not supported")
    n = _state(y0)
    if len(shape_of(t, "t")) != 1 or shape_of(t, "t")[0] == 0:
        raise Unsupported("t must be a non-empty 1-d sequence of times")
    if not isinstance(args, tuple):
        raise Unsupported("Extra arguments must be in a tuple.")
    args = _args(args)
    tfirst = bool(static(tfirst, "tfirst"))
    given = {"rtol": rtol, "atol": atol, "h0": h0, "hmax": hmax, "hmin": hmin, "ixpr": ixpr,
             "mxstep": mxstep, "mxhnil": mxhnil, "mxordn": mxordn, "mxords": mxords,
             "printmessg": printmessg}
    defaults = {"rtol": None, "atol": None, "h0": 0.0, "hmax": 0.0, "hmin": 0.0, "ixpr": 0,
                "mxstep": 0, "mxhnil": 0, "mxordn": 12, "mxords": 5, "printmessg": 0}
    options = _options({k: v for k, v in given.items() if v is not defaults[k] and (
        isinstance(v, Node) or v is None or np.any(v != defaults[k]))})
    name = getattr(func, "__name__", "func")
    head = (0.0, np.zeros(n)) if tfirst else (np.zeros(n), 0.0)
    _compiles(func, f"odeint's func {name}", head, args, (y0, t, *args))
    problem_key = ("odeint", CallableKey(func), tfirst, _freeze(sorted(options.items())))
    kernel = kernels.kernel(problem_key, lambda: kernels.OdeintKernel(
        kernels.Problem(func, tfirst, "odeint", "LSODA", options)))
    return impl.odeint, (kernel, y0, t, *args)


def _solve_ivp(fun: Any, t_span: Any, y0: Any, method: Any = "RK45", t_eval: Any = None,
               dense_output: Any = False, events: Any = None, vectorized: Any = False,
               args: Any = None, **options: Any) -> Selection:
    _func(fun, "fun")
    if static(dense_output, "dense_output"):
        raise Unsupported("dense_output=True is not supported (the interpolant is no array)")
    if events is not None:
        raise Unsupported("events= is not supported (event times have no derivative rule "
                          "here)")
    method = static(method, "method")
    if method not in METHODS:
        raise Unsupported(f"method must be one of {', '.join(METHODS)} (a solver class is "
                          "not supported)")
    for bad in ("jac", "jac_sparsity", "lband", "uband"):
        if options.get(bad) is not None:
            raise Unsupported(f"{bad}= is not supported (the derivatives use st_autodiff's "
                              "own Jacobian products of fun)")
    unknown = set(options) - {"rtol", "atol", "max_step", "first_step", "min_step", "jac",
                              "jac_sparsity", "lband", "uband"}
    if unknown:
        raise Unsupported(f"unsupported options {sorted(unknown)}")
    n = _state(y0)
    t0, tf = _span(t_span)
    args = _args(args)
    opts = _options({k: v for k, v in options.items() if v is not None})
    if static(vectorized, "vectorized"):
        opts["vectorized"] = True
    if t_eval is None:
        raise Unsupported("t_eval= is needed: without it the solver's own steps are returned, "
                          "and how many there are is known only at run time (for the end "
                          "point alone, pass t_eval=[tf])")
    shape = shape_of(t_eval, "t_eval")
    if len(shape) != 1:
        raise Unsupported("t_eval must be 1-dimensional")
    name = getattr(fun, "__name__", "fun")
    _compiles(fun, f"solve_ivp's fun {name}", (0.0, np.zeros(n)), args,
              (t0, tf, y0, t_eval, *args))
    key = ("solve_ivp", CallableKey(fun), method, shape[0], _freeze(sorted(opts.items())))
    kernel = kernels.kernel(key, lambda: kernels.IvpKernel(
        kernels.Problem(fun, True, "solve_ivp", method, opts), shape[0]))
    return impl.solve_ivp, (kernel, t0, tf, y0, t_eval, *args)


def _span(t_span: Any) -> tuple[Any, Any]:
    if isinstance(t_span, Node):
        if shape_of(t_span, "t_span") != (2,):
            raise Unsupported("t_span must have 2 elements")
        raise Unsupported("pass t_span as a tuple (t0, tf)")
    if isinstance(t_span, np.ndarray):
        t_span = tuple(t_span.tolist())
    if not isinstance(t_span, (tuple, list)) or len(t_span) != 2:
        raise Unsupported("t_span must be a tuple (t0, tf)")
    return t_span[0], t_span[1]


def _quad(func: Any, a: Any, b: Any, args: Any = (), full_output: Any = 0,
          epsabs: Any = 1.49e-08, epsrel: Any = 1.49e-08, limit: Any = 50, points: Any = None,
          weight: Any = None, wvar: Any = None, wopts: Any = None, maxp1: Any = 50,
          limlst: Any = 50, complex_func: Any = False) -> Selection:
    _func(func, "func")
    if static(full_output, "full_output") or static(complex_func, "complex_func"):
        raise Unsupported("full_output= and complex_func= are not supported")
    if points is not None or weight is not None or wvar is not None or wopts is not None:
        raise Unsupported("points=, weight=, wvar= and wopts= are not supported")
    for x, what in ((a, "a"), (b, "b")):
        if shape_of(x, what) != ():
            raise Unsupported(f"the limit {what} must be a number")
    args = _args(args if isinstance(args, tuple) else (args,))
    given = {"epsabs": epsabs, "epsrel": epsrel, "limit": limit}
    options = _options({k: v for k, v in given.items()
                        if isinstance(v, Node) or v != {"epsabs": 1.49e-08, "epsrel": 1.49e-08,
                                                        "limit": 50}[k]})
    name = getattr(func, "__name__", "func")
    _compiles(func, f"quad's func {name}", (0.0,), args, (a, b, *args))
    key = ("quad", CallableKey(func), _freeze(sorted(options.items())))
    kernel = kernels.kernel(key, lambda: kernels.QuadKernel(func, options))
    return impl.quad, (kernel, a, b, *args)


def names() -> dict[str, Callable[..., Selection]]:
    """The selectors by their name in ``scipy.integrate``."""
    return {"odeint": _odeint, "solve_ivp": _solve_ivp, "quad": _quad}
