"""Custom derivative rules, JAX's way: ``register_vjp``, ``custom_vjp`` and ``custom_jvp``.

A function with a custom rule is called as it is, eagerly and from compiled code alike
(lowering turns the call into one ``Op.CALL`` node that names it); only its derivatives
come from the user's rule, through two tables:

* ``derivatives.CUSTOM_VJPS[f] = rule(g, out, *args) -> one gradient per argument``:
  reverse mode calls it from the generated adjoint (``Op.CALL_VJP``);
* ``derivatives.jvp.CUSTOM_JVPS[f] = tangent(*args, *tangents) -> tangent of the
  output``: forward mode calls it from the generated tangent sweep (``Op.CALL``).

``custom_vjp`` fills the first table, ``custom_jvp`` both.  A JVP rule
``rule(primals, tangents) -> (out, tangent)`` is linear in the tangents, so reverse mode
is its transpose, as in JAX: the VJP at ``primals`` of a cotangent ``ct`` is the gradient,
with respect to the tangents, of ``sum(rule(primals, tangents)[1] * ct)``.  st_autodiff
compiles that gradient from the rule's own source (a generated
``NAME_transpose(*primals, *tangents, ct)`` differentiated at zero tangents, which is
exact because the function is linear in them), so the rule should be written in the
subset the compiler reads.  A rule the compiler cannot read (one that calls SciPy, say) is
transposed numerically instead, one rule call per input element: exact as well, but
slow, so it is allowed only up to ``NUMERIC_TRANSPOSE_LIMIT`` input elements, with a
``NumericTransposeWarning`` saying why, and is an error beyond.

Tangents follow JAX: one per argument, shaped like it.  Floating-point arguments without a
tangent get zeros; other arguments (ints, integer arrays) get ``None``.  A custom function
returns an array (or scalar) or a flat tuple or list of them.  For a tuple output the VJP
rule gets ``g`` and ``out`` as tuples with one item per output item, the cotangent of an
item the caller does not use being zeros (a VJP rule may return ``None`` for a zero
gradient, JAX's convention, and gets zeros for it); a JVP rule returns a tuple of
tangents.  ``grad``, ``vjp`` and ``jvp`` of a custom function itself compile a generated
one-line caller with the function's parameters.

**Calls run as Python runs them.**  Compiled code calls the function once per call (and
the VJP rule once per backward pass); the compiler itself never calls a user's function
or rule, since they may have effects (a counter, a print, a random draw).  It needs the
call's output type, found without calling it (``transforms/call_types.py``):
``out_type=`` of ``register_vjp``/``custom_vjp``/``custom_jvp`` (an ``st.ShapeDtype``, a
tuple of them, or a function of the arguments' ``ShapeDtype``s, as JAX's
``pure_callback`` takes ``result_shape_dtypes``); else, for a NumPy or SciPy function
that draws no random numbers, running it on the example arguments (pure, so no one can
tell); else reading the Python function's source, when a scan finds no effect in it;
else a located error that says to give ``out_type``.  While compiling, the value of a
call is a stand-in of its type (zeros) that only types what is computed from it.  A rule
with effects is not read to differentiate it again (an error), and ``custom_jvp``
transposes such a rule numerically.  Where ``custom_jvp``'s reverse mode uses the rule's
transpose, the rule also runs once per argument kind to check what it returns.  For a
``custom_vjp`` function compiled code calls ``fwd`` in its place and keeps the residuals
for ``bwd`` (``custom_source.Primal``), as JAX does.  See ``docs/custom_rules.md``.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .custom_source import (
    NONE,
    Primal,
    caller_of,
    define,
    dot_name,
    identifier,
    jvps_rule,
    param_names,
    tuple_display,
)
from .derivatives import CUSTOM_VJPS
from .derivatives.jvp import CUSTOM_JVPS
from .errors import NoRuleError, StAutodiffError
from .transforms.call_types import OUT_TYPES, ShapeDtype, effect_free  # noqa: F401


class NumericTransposeWarning(UserWarning):
    """Reverse mode through a ``custom_jvp`` function transposes its rule numerically,
    because the compiler cannot read the rule (said once per argument kinds)."""


#: The most input elements a JVP rule the compiler cannot read is transposed for,
#: numerically (one rule call per element).
NUMERIC_TRANSPOSE_LIMIT = 256


def register_vjp(fn: Callable[..., Any], rule: Callable[..., Any], *,
                 out_type: Any = None) -> Callable[..., Any]:
    """Differentiate calls to ``fn`` (a NumPy, SciPy or any other function) with ``rule``.

    ``rule(g, out, *args)`` gets the output's adjoint ``g``, the output and the arguments,
    and returns one gradient (or ``None``, a zero) per argument, in NumPy.  For a tuple
    output, ``g`` and ``out`` are tuples.  Compiled code calls ``fn`` as it is, once per
    call; the compiler never calls it.  ``out_type`` (an ``st.ShapeDtype``, a tuple of
    them, or a function of the arguments' ``ShapeDtype``s) gives its output type where
    the compiler cannot find it otherwise (see the module docstring).  Returns ``fn``.

    >>> import numpy as np, st_autodiff as st
    >>> def softplus(x):  # stands for a function the compiler cannot read
    ...     return np.logaddexp(0.0, x)
    >>> _ = st.register_vjp(softplus, lambda g, out, x: (g / (1 + np.exp(-x)),))
    >>> def loss(x):
    ...     return np.sum(softplus(x))
    >>> bool(np.allclose(st.grad(loss)(np.zeros(2)), [0.5, 0.5]))
    True
    """
    CUSTOM_VJPS[fn] = rule
    if out_type is not None:
        OUT_TYPES[fn] = out_type
    return fn


class _CustomFunction:
    """A Python function called as it is, whose derivatives come from a user's rule."""

    _kind = "custom"
    _define_with = "a rule"

    def __new__(cls, fn: Callable[..., Any] | None = None, *, out_type: Any = None) -> Any:
        if fn is None:  # @st.custom_jvp(out_type=...): a decorator
            return functools.partial(cls, out_type=out_type)
        return super().__new__(cls)

    def __init__(self, fn: Callable[..., Any], *, out_type: Any = None) -> None:
        self.fn = fn
        if out_type is not None:  # the output type, where the compiler cannot read it
            OUT_TYPES[self] = out_type
        self.__name__ = getattr(fn, "__name__", self._kind)
        self.__qualname__ = getattr(fn, "__qualname__", self.__name__)
        self.__module__ = getattr(fn, "__module__", __name__)
        self.__doc__ = getattr(fn, "__doc__", None)
        self.__wrapped__ = fn  # inspect.signature reports the function's own parameters
        self._caller: Callable[..., Any] | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<st_autodiff.{self._kind} {self.__qualname__}>"

    @property
    def st_missing_rule(self) -> str | None:
        """Why this function cannot be differentiated yet (no rule defined), else None;
        lowering reports it where the function is called."""
        if self in CUSTOM_VJPS:
            return None
        return (f"{self._kind} function {self.__name__} has no derivative rule: define "
                f"one with {self._define_with} before differentiating code that calls it")

    @property
    def st_caller(self) -> Callable[..., Any]:
        """A generated Python function with this function's parameters that calls it:
        what ``grad``/``vjp``/``jvp`` compile when given the custom function itself."""
        if self._caller is None:
            self._caller = caller_of(self)
        return self._caller


class custom_vjp(_CustomFunction):  # noqa: N801  (JAX's name and convention)
    """A function with a hand-written VJP, JAX's way: ``f.defvjp(fwd, bwd)`` where
    ``fwd(*args) -> (out, residuals)`` and ``bwd(residuals, g) -> one gradient per
    argument``.  Calling ``f`` calls the function itself; gradients use ``bwd``."""

    _kind = "custom_vjp"
    _define_with = "f.defvjp(fwd, bwd)"

    def defvjp(self, fwd: Callable[..., Any], bwd: Callable[..., Any]) -> None:
        """Use ``bwd(residuals, g)`` as the gradient.  Compiled code calls ``fwd`` in
        place of the function, as JAX does, and keeps its residuals for ``bwd``."""
        primal = Primal(self, fwd)

        def rule(g: Any, out: Any, *args: Any) -> Any:
            res = primal.residuals(out)
            return tuple(bwd(fwd(*args)[1] if res is NONE else res, g))

        def readable(examples: Sequence[Any]) -> Callable[..., Any]:
            names = param_names(self.fn, len(examples) - 2)
            name = f"{identifier(self.__name__)}_vjp"
            source = (f"def {name}({', '.join(['_st_g', '_st_out', *names])}):\n"
                      f"    return _st_bwd(_st_fwd({', '.join(names)})[1], _st_g)\n")
            return define(source, name, {"_st_fwd": fwd, "_st_bwd": bwd})

        rule.__name__ = rule.__qualname__ = f"{self.__name__}_vjp"
        rule.st_readable_for = readable  # type: ignore[attr-defined]
        register_vjp(self, rule)
        register_vjp(primal, rule)
        self.st_compiled_call = primal  # what compiled code calls


class custom_jvp(_CustomFunction):  # noqa: N801  (JAX's name and convention)
    """A function with a hand-written JVP, JAX's way.

    >>> import numpy as np, st_autodiff as st
    >>> @st.custom_jvp
    ... def softplus(x):
    ...     return np.log1p(np.exp(x))
    >>> @softplus.defjvp
    ... def softplus_jvp(primals, tangents):
    ...     (x,), (x_dot,) = primals, tangents
    ...     return softplus(x), x_dot / (1 + np.exp(-x))
    >>> def loss(x):
    ...     return np.sum(softplus(x))
    >>> x = np.array([0.0, 50.0])
    >>> float(st.jvp(loss, (x,), (np.ones(2),))[1])
    1.5
    >>> st.grad(loss)(x)
    array([0.5, 1. ])

    Calling ``f`` runs the function itself.  ``st.jvp`` uses the rule; ``st.grad`` and
    ``st.vjp`` use its transpose (see the module docstring), so the rule must be linear
    in the tangents, as JAX requires.
    """

    _kind = "custom_jvp"
    _define_with = "@f.defjvp"

    def __init__(self, fn: Callable[..., Any], *, out_type: Any = None) -> None:
        super().__init__(fn, out_type=out_type)
        self.jvp_rule: Callable[..., Any] | None = None
        self._transposers: dict[Any, Callable[..., Any]] = {}  # (floats, items) -> grad
        self._numeric: dict[Any, StAutodiffError] = {}  # argument kinds -> compile error
        self._checked: set[Any] = set()  # argument kinds whose rule output was checked
        self._building: set[Any] = set()  # transposes being compiled (a rule calling f)
        self._warned: set[Any] = set()  # argument kinds transposed numerically

    def defjvp(self, jvp: Callable[..., Any]) -> Callable[..., Any]:
        """Use ``jvp(primals, tangents) -> (out, tangent)`` as the derivative (a
        decorator: returns ``jvp``).  ``primals`` and ``tangents`` are tuples with one
        entry per argument; the tangent must be linear in ``tangents``."""
        self.jvp_rule = jvp
        self._transposers.clear()
        self._numeric.clear()
        self._checked.clear()
        self._warned.clear()

        def tangent(*args: Any) -> Any:
            n = len(args) // 2
            return self.apply_rule(args[:n], args[n:])[1]

        def transpose(g: Any, out: Any, *args: Any) -> tuple[Any, ...]:
            return self._transpose(g, args)

        tangent.__name__ = tangent.__qualname__ = f"{self.__name__}_jvp"
        transpose.__name__ = transpose.__qualname__ = f"{self.__name__}_vjp"
        # generated code that calls them is read again (higher derivatives) as Python
        # that calls the rule, so the rule is differentiated like the user's own code
        tangent.st_readable_for = self._readable_tangent  # type: ignore[attr-defined]
        transpose.st_readable_for = self._readable_transpose  # type: ignore[attr-defined]
        CUSTOM_JVPS[self] = tangent
        register_vjp(self, transpose)
        return jvp

    def defjvps(self, *fns: Callable[..., Any] | None) -> None:
        """One function per argument, JAX's ``defjvps``: ``fns[i](t, ans, *args)`` is the
        tangent contribution of argument ``i`` with tangent ``t`` (``ans`` is the output);
        ``None`` means the output does not depend on that argument.  The rule made from
        them is generated Python, so the compiler can read (and transpose) it."""
        self.defjvp(jvps_rule(self, fns))

    def apply_rule(self, primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
        """``rule(primals, tangents)``, checked: ``(out, tangent)`` with one array output
        and a tangent shaped like it.  Raises ``TypeError`` naming the function when the
        rule returns something else."""
        if self.jvp_rule is None:
            raise NoRuleError(self.st_missing_rule or "")
        result = self.jvp_rule(tuple(primals), tuple(tangents))
        return _checked_pair(self.__name__, result)

    def _readable_tangent(self, examples: Sequence[Any]) -> Callable[..., Any]:
        """``NAME_jvp(*args, *tangents) = rule(args, tangents)[1]`` as Python the compiler
        reads: how it reads a call to the tangent function in generated code."""
        names = param_names(self.fn, len(examples) // 2)
        dots = [dot_name(s, names) for s in names]
        name = f"{identifier(self.__name__)}_jvp"
        source = (f"def {name}({', '.join(names + dots)}):\n"
                  f"    return _st_rule({tuple_display(names)}, {tuple_display(dots)})[1]\n")
        return define(source, name, {"_st_rule": self.jvp_rule})

    def _readable_transpose(self, examples: Sequence[Any]) -> Callable[..., Any]:
        """``NAME_vjp(g, out, *args)`` as Python the compiler reads: a call of the
        compiled transpose (which the compiler inlines as generated code) at zero
        tangents, so higher derivatives differentiate the rule itself."""
        args = examples[2:]
        floats = tuple(i for i, a in enumerate(args) if _is_float(a))
        names = param_names(self.fn, len(args))
        zeros = [f"_st_zeros_like({names[i]})" for i in floats]
        grads = {i: f"_st_grads[{k}]" for k, i in enumerate(floats)}
        name = f"{identifier(self.__name__)}_vjp"
        n_out = _n_out(examples[0])
        cts = ["_st_g"] if n_out is None else [f"_st_g[{k}]" for k in range(n_out)]
        source = (f"def {name}({', '.join(['_st_g', '_st_out', *names])}):\n"
                  f"    _st_grads = _st_transpose({', '.join([*names, *zeros, *cts])})\n"
                  f"    return {tuple_display([grads.get(i, 'None') for i in range(len(args))])}\n")
        return define(source, name, {"_st_transpose": self._transposer(len(args), floats,
                                                                        n_out),
                                      "_st_zeros_like": np.zeros_like})

    # --- reverse mode: the transpose of the rule -----------------------------------------

    def _transpose(self, g: Any, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """The VJP of the cotangent ``g`` at ``args``: one gradient (``None`` for
        arguments that are not floating point) per argument."""
        floats = tuple(i for i, a in enumerate(args) if _is_float(a))
        result: list[Any] = [None] * len(args)
        if not floats:
            return tuple(result)
        zeros = [_zeros_like(args[i]) for i in floats]
        key = (floats, tuple(_kind_of(a) for a in args), _kind_of(g))
        if key not in self._checked:  # the rule's output, checked once per kind
            self.apply_rule(args, _tangents(args, floats, zeros))
            self._checked.add(key)
        grads = None
        if key not in self._numeric and not effect_free(self.jvp_rule):
            self._numeric[key] = NoRuleError("the rule has effects, which compiling it would "
                                             "miss")
        if key in self._building:  # the rule calls f on tangents: its transpose needs itself
            self._numeric.setdefault(key, NoRuleError("the rule calls the function on its "
                                                      "tangents"))
        elif key not in self._numeric:
            self._building.add(key)
            try:
                n_out = _n_out(g)
                cts = [g] if n_out is None else list(g)
                grads = self._transposer(len(args), floats, n_out).call_flat(*args, *zeros,
                                                                              *cts)
            except StAutodiffError as exc:
                self._numeric[key] = exc
            finally:
                self._building.discard(key)
        if grads is None:
            grads = self._numeric_transpose(g, args, floats, zeros, key)
        for i, gi in zip(floats, grads):
            result[i] = gi
        return tuple(result)

    def _transposer(self, n: int, floats: tuple[int, ...], n_out: int | None = None) -> Any:
        """The compiled gradient of the generated ``NAME_transpose(*primals,
        *float_tangents, ct) = sum(rule(primals, tangents)[1] * ct)`` with respect to the
        tangents (one per floating-point argument); for a tuple output of ``n_out`` items,
        one cotangent per item and the sum over the items."""
        fn = self._transposers.get((floats, n_out))
        if fn is None:
            from .api import grad  # noqa: PLC0415  (api re-exports this module)

            names = param_names(self.fn, n)
            dots = [dot_name(names[i], names) for i in floats]
            tangent_of = dict(zip(floats, dots))
            tangents = tuple_display([tangent_of.get(i, "None") for i in range(n)])
            name = f"{identifier(self.__name__)}_transpose"
            cts = ["_st_ct"] if n_out is None else [f"_st_ct{k}" for k in range(n_out)]
            terms = ["_st_sum(_st_pair[1] * _st_ct)"] if n_out is None else [
                f"_st_sum(_st_pair[1][{k}] * _st_ct{k})" for k in range(n_out)]
            source = (f"def {name}({', '.join(names + dots + cts)}):\n"
                      f"    _st_pair = _st_rule({tuple_display(names)}, {tangents})\n"
                      f"    return {' + '.join(terms)}\n")
            wrapper = define(source, name, {"_st_rule": self.jvp_rule, "_st_sum": np.sum})
            fn = self._transposers[(floats, n_out)] = grad(
                wrapper, wrt=tuple(range(n, n + len(dots))))
        return fn

    def _numeric_transpose(self, g: Any, args: tuple[Any, ...], floats: tuple[int, ...],
                           zeros: list[Any], key: Any) -> list[Any]:
        """The transpose by columns: rule calls with unit tangents, one per element (the
        fallback for rules the compiler cannot read)."""
        why = self._numeric.get(key)
        reason = str(why).splitlines()[0] if why is not None else "unknown"
        size = sum(int(np.size(z)) for z in zeros)
        if size > NUMERIC_TRANSPOSE_LIMIT:
            raise NoRuleError(
                f"reverse mode through custom_jvp function {self.__name__} needs the "
                f"transpose of its JVP rule, and the compiler cannot read the rule "
                f"({reason}); transposing it numerically takes one rule call per input "
                f"element, and its inputs have {size} (more than {NUMERIC_TRANSPOSE_LIMIT})",
                hint="write the rule with NumPy functions st_autodiff knows, or give the "
                     "function a VJP with st.custom_vjp")
        if key not in self._warned:
            self._warned.add(key)
            warnings.warn(f"st_autodiff: the compiler cannot read the custom_jvp rule of "
                          f"{self.__name__} ({reason}); reverse mode transposes it "
                          "numerically, one rule call per input element",
                          NumericTransposeWarning, stacklevel=2)
        grads = []
        for k, i in enumerate(floats):
            z = np.asarray(zeros[k])
            gi = np.zeros(z.shape, dtype=z.dtype)
            for j in range(z.size):
                unit = np.zeros_like(z)
                unit.flat[j] = 1
                units = list(zeros)
                units[k] = unit if np.ndim(args[i]) else unit[()]
                t = self.apply_rule(args, _tangents(args, floats, units))[1]
                gi.flat[j] = sum(np.sum(np.asarray(tk) * np.asarray(gk)) for tk, gk in
                                 _pairs(t, g))
            grads.append(gi if not isinstance(args[i], float) else float(gi))
        return grads


# --- helpers --------------------------------------------------------------------------


def _checked_pair(name: str, result: Any) -> tuple[Any, Any]:
    """A JVP rule's ``(out, tangent)``, with the tangent shaped like the output."""
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        what = (f"a {type(result).__name__} of length {len(result)}"
                if isinstance(result, (tuple, list)) else f"a {type(result).__name__}")
        raise TypeError(f"the custom_jvp rule of {name} must return a pair "
                        f"(primal_out, tangent_out), but it returned {what}")
    out, t = result
    if isinstance(out, (tuple, list)):  # a tuple output: a tuple of tangents, one per item
        if not isinstance(t, (tuple, list)) or len(t) != len(out):
            raise TypeError(f"the custom_jvp rule of {name} returned a primal output of "
                            f"{len(out)} items and a tangent that is not a tuple of as many")
        return out, tuple(_checked_pair(name, (o, ti))[1] for o, ti in zip(out, t))
    if isinstance(t, (tuple, list)):
        raise TypeError(f"the custom_jvp rule of {name} returned a tuple as its tangent "
                        "for an output that is one array")
    if out is None:
        raise TypeError(f"the custom_jvp rule of {name} returned None as its primal output")
    if t is None:  # JAX's symbolic zero
        t = np.zeros_like(out) if hasattr(out, "shape") else 0.0 * out
    if np.shape(t) != np.shape(out):
        try:
            t = np.broadcast_to(t, np.shape(out))
        except ValueError:
            raise TypeError(f"the custom_jvp rule of {name} returned a tangent of shape "
                            f"{np.shape(t)} for a primal output of shape {np.shape(out)}; "
                            "they must match") from None
    return out, t


def _n_out(g: Any) -> int | None:
    """How many items a tuple output's cotangent has (``None`` for one array)."""
    return len(g) if isinstance(g, (tuple, list)) else None


def _pairs(t: Any, g: Any) -> list[tuple[Any, Any]]:
    """Tangent and cotangent items side by side (one pair for one array)."""
    return list(zip(t, g)) if isinstance(g, (tuple, list)) else [(t, g)]


def _tangents(args: Sequence[Any], floats: tuple[int, ...], given: list[Any]) -> list[Any]:
    """One tangent per argument: ``given`` for the floating-point ones, ``None`` else."""
    out: list[Any] = [None] * len(args)
    for i, t in zip(floats, given):
        out[i] = t
    return out


def _is_float(a: Any) -> bool:
    if isinstance(a, float):
        return True
    dt = getattr(a, "dtype", None)
    return dt is not None and np.dtype(dt).kind in "fc"


def _zeros_like(a: Any) -> Any:
    return 0.0 if isinstance(a, float) else np.zeros_like(a)


def _kind_of(a: Any) -> Any:
    """What the compiled transpose is specialised on (dtype and shape, or the value)."""
    if isinstance(a, (tuple, list)):
        return tuple(_kind_of(x) for x in a)
    if hasattr(a, "dtype") and hasattr(a, "shape"):
        return (type(a), str(a.dtype), tuple(a.shape))
    return (type(a), a) if isinstance(a, (int, str, type(None))) else type(a)
