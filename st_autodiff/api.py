"""The public compiler API: ``grad``, ``value_and_grad``, ``vjp``, ``jvp``, Jacobians,
``hessian`` and ``hvp`` (the custom-rule decorators live in ``custom.py``).

``grad(f)`` returns a ``GradFunction``: call it like ``f`` to get gradients.  The first
call with a new kind of arguments (dtype and shape of each array, value of each int)
compiles a specialised adjoint; later calls with the same kinds only look the function up
and run it.  The generated code is readable: ``.source``, ``.ir``, ``.adjoint_ir``,
``.stages()`` and ``inspect.getsource(g)`` show it.

>>> import numpy as np, st_autodiff as st
>>> def f(x):
...     return np.sum(np.sin(x) * x)
>>> g = st.grad(f)
>>> bool(np.allclose(g(np.array([0.5, 1.0])), np.cos([0.5, 1.0]) * [0.5, 1.0] + np.sin([0.5, 1.0])))
True
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .custom import ShapeDtype, custom_jvp, custom_vjp, register_vjp  # noqa: F401  (public)
from .errors import StAutodiffError, WrtError
from .ir.kernels import stop_gradient  # noqa: F401  (public: st.stop_gradient)
from .runtime import support
from .runtime.backend import namespace_for
from .transforms import Compiled, Options, Request, compile_function
from .transforms.lower import python_resolver
from .transforms.parse import ParsedFunction, parse_function

Wrt = int | str | Sequence[int | str]

_VERSION = 1


def _kind(a: Any) -> Any:
    """The part of an argument that generated code is specialised on."""
    t = type(a)
    shape = getattr(a, "shape", None)
    if shape is not None and hasattr(a, "dtype"):
        return (t, a.dtype, shape)
    if isinstance(a, (tuple, list)):  # loops over it unroll: its length is part of the code
        return (t, tuple(_KINDS.get(type(x), _kind)(x) for x in a))
    return (t, a) if isinstance(a, (int, str, type(None))) else t


def _ndarray_kind(a: np.ndarray) -> Any:
    return (a.dtype, a.shape)


def _float_kind(a: float) -> Any:
    return float


def _value_kind(a: Any) -> Any:
    return (type(a), a)


#: Fast paths of ``_kind`` for the common argument types (the cached-call hot path).
_KINDS: dict[type, Callable[[Any], Any]] = {np.ndarray: _ndarray_kind, float: _float_kind,
                                            int: _value_kind, bool: _value_kind}


class GradFunction:
    """A compiled gradient of a Python function (see the module docstring)."""

    def __init__(self, fn: Callable[..., Any], wrt: Wrt, mode: str, has_aux: bool,
                 options: Options) -> None:
        for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
            setattr(self, attr, getattr(fn, attr, None))
        self._fn = fn
        self._mode = mode
        self._has_aux = has_aux
        self._options = options
        self._parsed: ParsedFunction | None = None
        # a compiled gradient differentiated again takes the arguments of its function
        self._sig = fn._sig if isinstance(fn, GradFunction) else inspect.signature(fn)
        self._nparams = len(self._sig.parameters)
        self._functional: dict[Any, Callable[..., Any]] = {}
        self._wrt_spec = wrt
        self._request: Request | None = None
        self._cache: dict[Any, Callable[..., Any]] = {}
        self._compiled: dict[Any, Compiled] = {}
        self._last: Compiled | None = None
        self._seeds: tuple = ()  # jvp of a gradient: the seeds its generated code takes

    # --- calling ------------------------------------------------------------------------

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs or len(args) != self._nparams:
            args = self._bind(args, kwargs)
        return self.call_flat(*args)

    def call_flat(self, *args: Any) -> Any:
        """Call the generated function with every argument given positionally (the
        function's own, then any it adds: tangents for jvp)."""
        key = tuple([_KINDS.get(type(a), _kind)(a) for a in args])
        fn = self._cache.get(key)
        if fn is None:
            try:
                fn = self._compile(args, key)
            except StAutodiffError as exc:  # the user's error, not a trace of the compiler
                raise exc.with_traceback(None) from None
        return fn(*args)

    def _bind(self, args: tuple, kwargs: dict[str, Any]) -> tuple:
        try:
            bound = self._sig.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{self.__name__}(): {exc}") from None
        bound.apply_defaults()
        return tuple(bound.arguments.values())

    def split(self, *args: Any) -> tuple[Callable[..., Any], Callable[..., Any]]:
        """The generated ``(forward, backward)`` pair for these arguments (vjp mode)."""
        key = tuple([_KINDS.get(type(a), _kind)(a) for a in args])
        compiled = self._compiled.get(key)
        if compiled is None:
            compiled = self._build(list(args), namespace_for(*args))
            self._compiled[key] = compiled
            self._last = compiled
        return compiled.fwd, compiled.bwd  # type: ignore[return-value]

    def _compile(self, args: tuple, key: Any) -> Callable[..., Any]:
        xp = namespace_for(*args)
        compiled = self._build(list(args), xp)
        fn: Callable[..., Any] = compiled.fn  # type: ignore[assignment]
        if self._seeds:  # jvp of a gradient: its code takes (*primals, *seeds, *tangents)
            fn = _with_seeds(fn, self._nparams, self._seeds)
        self._cache[key] = fn
        self._compiled[key] = compiled
        self._last = compiled
        return fn

    def _build(self, args: list[Any] | None, xp: Any) -> Compiled:
        fn: Any = self._fn
        if isinstance(fn, GradFunction):  # differentiate the generated code again
            if args is None:
                raise WrtError(f"{self.__name__}: a derivative of a gradient is generated "
                               "for the arguments of a call; call it first")
            # the gradient's own arguments, then (jvp) one tangent per differentiated one
            primals, tangents = list(args[:self._nparams]), list(args[self._nparams:])
            fn = fn.generated_for(primals)
            parsed = parse_function(fn)
            # the generated code's trailing seeds (out_bar=1.0) stay constant arguments:
            # not differentiated, so their tangents are zero
            seeds = [parsed.defaults[p] for p in parsed.params[len(primals):]]
            self._seeds = tuple(seeds) if self._mode == "jvp" else ()
            args = primals + seeds + tangents
        else:
            fn = _readable(fn)
            parsed = self._parse()
        req = self._req(parsed)
        return compile_function(parsed, lambda lw: python_resolver(fn, lw.const_of_global),
                                args, req, self._options, xp, support,
                                code=getattr(fn, "__code__", None))

    def generated_for(self, args: list[Any]) -> Callable[..., Any]:
        """The generated function for these arguments, written so that the compiler can
        differentiate it again (no ``del``, no writes into arrays): higher derivatives
        come from transforming generated code, as Tangent does."""
        key = tuple(_kind(a) for a in args)
        fn = self._functional.get(key)
        if fn is None:
            inner = GradFunction(self._fn, self._wrt_spec, self._mode, self._has_aux,
                                 Options(optimize=self._options.optimize, functional=True))
            fn = self._functional[key] = inner._build(list(args), namespace_for(*args)).fn
        return fn  # type: ignore[return-value]

    def _parse(self) -> ParsedFunction:
        if self._parsed is None:
            self._parsed = parse_function(_readable(self._fn))
        return self._parsed

    def _req(self, parsed: ParsedFunction) -> Request:
        if self._request is None:
            self._request = _request(self._wrt_spec, parsed, self._mode, self._has_aux)
        return self._request

    # --- reading the generated code -----------------------------------------------------

    def _latest(self) -> Compiled:
        if self._last is None:
            try:
                self._last = self._build(None, np)
            except StAutodiffError as exc:
                raise exc.with_traceback(None) from None
        return self._last

    @property
    def source(self) -> str:
        """The generated adjoint (the latest specialisation, else a generic one)."""
        return self._latest().stages["codegen"]

    @property
    def ir(self) -> str:
        """The primal SSA graph, printed."""
        return self._latest().stages["lower"]

    @property
    def adjoint_ir(self) -> str:
        """The optimised joint (primal + adjoint) graph, printed."""
        return self._latest().stages["optimize"]

    def stages(self) -> dict[str, str]:
        """Each pass's printed output, in pipeline order."""
        return dict(self._latest().stages)

    @property
    def __wrapped__(self) -> Callable[..., Any]:
        """The generated function, so that ``inspect.getsource`` shows generated code."""
        return self._latest().fn  # type: ignore[return-value]

    def __repr__(self) -> str:
        return f"<st_autodiff.{self._mode} of {self.__qualname__}>"


def _readable(fn: Any) -> Any:
    """The Python function the compiler reads for ``fn``: a custom-rule function
    (``custom_jvp``, ``custom_vjp``) is read as a generated caller with its parameters, so
    that differentiating it goes through its rule."""
    caller = getattr(fn, "st_caller", None) if not inspect.isfunction(fn) else None
    return caller if callable(caller) else fn


def _with_seeds(fn: Callable[..., Any], n: int, seeds: tuple) -> Callable[..., Any]:
    """``fn(*args[:n], *seeds, *args[n:])``: generated jvp code of a gradient takes the
    gradient's seeds (constant 1.0) between its primals and its tangents."""

    def call(*args: Any) -> Any:
        return fn(*args[:n], *seeds, *args[n:])

    call.__wrapped__ = fn  # type: ignore[attr-defined]
    return call


def _request(wrt: Wrt, parsed: ParsedFunction, mode: str, has_aux: bool) -> Request:
    names = parsed.params
    single = isinstance(wrt, (int, str))
    items = [wrt] if single or not isinstance(wrt, Sequence) else list(wrt)
    positions = []
    for w in items:
        if isinstance(w, bool) or not isinstance(w, (int, str)):
            raise WrtError(f"wrt must name arguments by position or name, got {w!r}",
                           parsed.loc(parsed.node))
        if isinstance(w, str):
            if w not in names:
                raise WrtError(f"wrt names {w!r}, but {parsed.name}() has no such parameter "
                               f"(its parameters: {', '.join(names)})", parsed.loc(parsed.node))
            positions.append(names.index(w))
        else:
            if not -len(names) <= w < len(names):
                raise WrtError(f"wrt={w} is out of range: {parsed.name}() takes "
                               f"{len(names)} arguments", parsed.loc(parsed.node))
            positions.append(w % len(names))
    if mode == "vjp_joint":  # one function (args..., out_bar) -> gradients (the bridge)
        return Request(tuple(positions), single, "vjp", has_aux, split=False)
    return Request(tuple(positions), single, mode, has_aux, split=mode == "vjp")


def _make(mode: str, fn: Callable[..., Any] | None, wrt: Wrt, has_aux: bool,
          optimize: bool) -> Any:
    options = Options(optimize=optimize)
    if fn is None:
        return lambda f: GradFunction(f, wrt, mode, has_aux, options)
    return GradFunction(fn, wrt, mode, has_aux, options)


def grad(fn: Callable[..., Any] | None = None, wrt: Wrt = 0, *, has_aux: bool = False,
         optimize: bool = True) -> Any:
    """The gradient of a scalar function with respect to ``wrt`` (positions or names).

    Usable as ``grad(f)``, ``grad(f, wrt=(0, 1))``, ``@grad`` and ``@grad(wrt="w")``.
    With ``has_aux=True`` the function returns ``(loss, aux)`` and the gradient function
    returns ``(gradient, aux)``.
    """
    try:
        return _make("grad", fn, wrt, has_aux, optimize)
    except StAutodiffError as exc:
        raise exc.with_traceback(None) from None


def value_and_grad(fn: Callable[..., Any] | None = None, wrt: Wrt = 0, *,
                   has_aux: bool = False, optimize: bool = True) -> Any:
    """Like ``grad``, but the result is ``(value, gradient)``."""
    try:
        return _make("value_and_grad", fn, wrt, has_aux, optimize)
    except StAutodiffError as exc:
        raise exc.with_traceback(None) from None


def _is_float(a: Any) -> bool:
    if isinstance(a, (float, complex)):  # complex: differentiated, so lowering refuses it
        return True
    dt = getattr(a, "dtype", None)
    return dt is not None and np.dtype(dt).kind in "fc"


from .products import (  # noqa: E402  (products builds on GradFunction)
    hessian,
    hvp,
    jacfwd,
    jacobian,
    jacrev,
    jvp,
    vjp,
)

__all__ = ["GradFunction", "grad", "value_and_grad", "vjp", "jvp", "jacrev", "jacfwd",
           "jacobian", "hessian", "hvp", "custom_jvp", "custom_vjp", "register_vjp",
           "stop_gradient"]
