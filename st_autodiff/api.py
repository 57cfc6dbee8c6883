"""The public compiler API: ``grad``, ``value_and_grad``, ``vjp``, ``jvp``, Jacobians,
``hessian`` and ``hvp`` (the custom-rule decorators live in ``custom.py``).

``grad(f)`` returns a ``GradFunction``: call it like ``f`` to get gradients.  The first
call with a new kind of arguments (dtype and shape of each array, value of each int)
compiles a specialised adjoint; later calls with the same kinds only look the function up
and run it, after checking the guards on what it read from globals, closures and
objects when it was compiled (a changed value compiles again).  ``cache_info()``,
``st.explain``, ``static_argnums``/``dynamic_argnums``, the LRU limit, sharing between
``st.grad(f)`` made twice and the disk cache are in ``specialize.py``, ``disk_cache.py``
and ``docs/specialization.md``.  The generated code is readable: ``.source``, ``.ir``,
``.adjoint_ir``, ``.stages()`` and ``inspect.getsource(g)`` show it.

>>> import numpy as np, st_autodiff as st
>>> def f(x):
...     return np.sum(np.sin(x) * x)
>>> g = st.grad(f)
>>> bool(np.allclose(g(np.array([0.5, 1.0])), np.cos([0.5, 1.0]) * [0.5, 1.0] + np.sin([0.5, 1.0])))
True
"""

from __future__ import annotations

import functools
import inspect
import logging
import types
from collections.abc import Callable, Sequence
from typing import Any, Generic, ParamSpec, overload

import numpy as np

from . import trees
from .config import check_cache_size
from .custom import custom_jvp, custom_vjp, register_vjp  # noqa: F401  (public)
from .custom_source import partial_caller
from .disk_cache import DiskEntry
from .errors import StAutodiffError, WrtError
from .ir.kernels import stop_gradient  # noqa: F401  (public: st.stop_gradient)
from .ir.namespaces import bound_namespace, describe_dtype_name, namespace_name, namespace_of
from .library_callers import library_caller
from .runtime import support
from .runtime.backend import BackendError, choose_backend, namespace_for
from .specialize import (
    ArgSpec,
    CacheInfo,
    SpecCache,
    Specialisation,
    announce,
    explain_key,
    same_objects,
    shared_state,
    special_key,
    why,
)
from .transforms import Compiled, Options, Request, compile_function
from .transforms.call_types import ShapeDtype  # noqa: F401  (public)
from .transforms.callable_args import KINDS as CALLABLE_KINDS
from .transforms.callable_args import callable_kind
from .transforms.guards import Guards
from .transforms.load import locate_failure
from .transforms.lower import python_resolver
from .transforms.parse import Layout, ParsedFunction, parse_function
from .trees_classes import is_record

log = logging.getLogger("st_autodiff")

Wrt = int | str | Sequence[int | str]
#: the parameters of a differentiated function; its gradient function takes the same
P = ParamSpec("P")

_VERSION = 1


def _kind(a: Any) -> Any:
    """The part of an argument that generated code is specialised on."""
    t = type(a)
    shape = getattr(a, "shape", None)
    if shape is not None and hasattr(a, "dtype"):
        return (t, a.dtype, shape)
    if isinstance(a, (tuple, list)):  # loops over it unroll: its length is part of the code
        return (t, tuple(_KINDS.get(type(x), _kind)(x) for x in a))
    if isinstance(a, (int, str, type(None))):
        return (t, a)
    return callable_kind(a) if callable(a) else t  # a function argument: keyed by identity


class _TreeArgument(Exception):
    """Raised by ``_kind_or_tree`` for a pytree argument (the cached-call fast path)."""


def _kind_or_tree(a: Any) -> Any:
    """``_kind(a)``, or ``_TreeArgument`` when ``a`` is a pytree (``_is_tree``)."""
    if _is_tree(a):
        raise _TreeArgument
    return _kind(a)


def _ndarray_kind(a: np.ndarray[Any, Any]) -> Any:
    return (a.dtype, a.shape)


def _float_kind(a: float) -> Any:
    return float


def _value_kind(a: Any) -> Any:
    return (type(a), a)


#: Fast paths of ``_kind`` for the common argument types (the cached-call hot path).
_KINDS: dict[type, Callable[[Any], Any]] = {np.ndarray: _ndarray_kind, float: _float_kind,
                                            int: _value_kind, bool: _value_kind,
                                            ShapeDtype: _ndarray_kind}  # (for compile)
_KINDS.update(CALLABLE_KINDS)  # (functions passed as arguments: keyed by identity)


class GradFunction(Generic[P]):
    """A compiled gradient of a Python function (see the module docstring).

    Arguments are bound as Python binds them (``inspect.Signature.bind``: positional-only,
    keyword-only, defaults, ``*args``, ``**kwargs``) and passed to generated code in a
    canonical order: positional parameters, the ``*args`` values, keyword-only parameters,
    the ``**kwargs`` values.  The length of ``*args`` and the keys of ``**kwargs`` are
    part of the specialisation, like shapes.  Each specialisation also carries guards on
    what it read from globals, closures, defaults and objects (``transforms/guards.py``):
    when one changes, the next call compiles again instead of reusing stale values.
    """

    # (part mypyk: attributes first set in a branch of __init__, declared for type checkers)
    _target: Any
    _receiver: tuple[Any, ...]
    _last: Compiled | None
    _trees: dict[Any, GradFunction[...]]  # structured arguments: per structure
    _argspec: ArgSpec | None
    _sig: inspect.Signature

    def __init__(self, fn: Callable[..., Any], wrt: Wrt, mode: str, has_aux: bool,
                 options: Options, argspec: ArgSpec | None = None,
                 cache_size: int | None = None, backend: Any = None) -> None:
        fn = library_caller(fn) or fn  # st.grad(np.sin): a caller read from the rule table
        # state shared by every GradFunction of the same function object and options, so
        # that ``st.grad(f)(x)`` written inside a loop reuses the first one's code
        # (wrt by its text: ``True`` and ``1`` hash alike, but True is a WrtError)
        shared = shared_state(fn, (repr(wrt), mode, has_aux, options, argspec, cache_size,
                                   None if backend is None else id(backend)))
        if shared.template is not None:  # made before: its attributes, but for fn's
            self.__dict__.update(shared.template)
            self._fn = self._target = fn
            self._last = None
            self._trees = {}
            return
        for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
            setattr(self, attr, getattr(fn, attr, None))
        self._fn = fn
        self._mode = mode
        self._has_aux = has_aux
        self._options = options
        self._backend = backend  # (backends: the namespace backend=/device= chose)
        if argspec is None and isinstance(fn, GradFunction):  # a derivative of a gradient
            argspec = fn._argspec  # takes its arguments: their static ones stay static
        self._argspec = argspec if argspec else None
        self._shared = shared
        call = None if isinstance(fn, (types.FunctionType, types.MethodType, GradFunction)) \
            else next((vars(k)["__call__"] for k in type(fn).__mro__ if "__call__" in vars(k)),
                      None)
        if isinstance(call, types.FunctionType) and _readable(fn) is fn:
            self.__name__ = self.__qualname__ = type(fn).__name__
            fn = fn.__call__  # a callable object: its __call__, bound to it
        # a bound method: its function is read, its receiver bound to the first parameter
        method = isinstance(fn, types.MethodType) and isinstance(fn.__func__,
                                                                 types.FunctionType)
        # (``method`` says fn is a bound method: mypy does not narrow through the bool)
        self._target = fn.__func__ if method else _readable(fn)  # type: ignore[attr-defined]
        self._receiver = (fn.__self__,) if method else ()  # type: ignore[attr-defined]
        self._defaults_seen = _defaults_of(self._fn if isinstance(
            self._fn, functools.partial) else self._target)
        # a compiled gradient differentiated again takes the arguments of its function
        self._sig = fn._sig if isinstance(fn, GradFunction) else _signature(fn)
        self._set_signature(self._sig)
        self._functional: dict[Any, tuple[Any, Callable[..., Any]]] = shared.functional
        self._wrt_spec = wrt
        self._requests: dict[Layout, Request] = shared.requests
        # kinds of the arguments -> specialisations (newest first per kinds, kinds least
        # recently used first), at most ``cache_size`` of them
        if shared.cache is None:
            shared.cache = SpecCache(None if cache_size is None else check_cache_size(
                cache_size, "cache_size"))
        self._specs: SpecCache = shared.cache
        self._cache = self._specs.entries
        self._last = None
        self._trees = {}
        self._seeds: tuple[Any, ...] = ()  # jvp of a gradient: the seeds its generated code takes
        if shared.shareable:  # (without the function: the cache must not keep it alive)
            shared.template = {k: v for k, v in vars(self).items()
                               if k not in ("_fn", "_target", "_last", "_trees")}

    @property
    def _compiled(self) -> dict[Any, Compiled]:
        """The newest specialisation per argument kinds."""
        return {k: entries[0].compiled for k, entries in self._cache.items()}

    def _set_signature(self, sig: inspect.Signature) -> None:
        self._sig = sig
        kinds = [p.kind for p in sig.parameters.values()]
        self._nparams = len(kinds)
        self._plain = all(k in (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD) for k in kinds)
        # signatures without *args/**kwargs bind without Signature.bind (its cost is ~10 µs)
        self._fixed_arity = all(k not in (_P.VAR_POSITIONAL, _P.VAR_KEYWORD) for k in kinds)
        self._params = [(p.name, p.kind is _P.POSITIONAL_ONLY, p.default)
                        for p in sig.parameters.values()]
        self._n_positional = sum(k is not _P.KEYWORD_ONLY for k in kinds)

    # --- calling ------------------------------------------------------------------------

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> Any:
        if kwargs or not self._plain or len(args) != self._nparams:
            flat, layout = self.bind_call(args, kwargs)
            return self._run(tuple(flat), layout)
        return self._run(args, _PLAIN)

    def call_flat(self, *args: Any) -> Any:
        """Call the generated function with the function's own arguments given
        positionally, then any it adds (tangents for jvp: one per ``wrt`` position).  The
        function's own are bound as Python binds a positional call (defaults of the
        parameters left out, keyword-only ones included)."""
        n_extra = len(self._wrt_spec) if self._mode == "jvp" and isinstance(
            self._wrt_spec, tuple) else 0
        own = len(args) - n_extra
        if self._plain and own == self._nparams:
            return self._run(args, _PLAIN)
        flat, layout = self.bind_call(args[:own], {})
        return self._run((*flat, *args[own:]), layout)

    def _run(self, args: tuple[Any, ...], layout: Layout) -> Any:
        try:  # (one pass over the arguments: a pytree stops it)
            key: Any = tuple([_KINDS.get(type(a), _kind_or_tree)(a) for a in args])
        except _TreeArgument:
            if self._mode in ("grad", "value_and_grad") and self._tree_call(args, layout):
                return self._run_tree(args, layout)
            key = tuple([_KINDS.get(type(a), _kind)(a) for a in args])
        if self._argspec is not None:
            key = self._special_key(key, args, layout)
        if layout is not _PLAIN:
            key = (layout, key)
        cache = self._cache
        entries = cache.get(key)
        if entries is not None:
            for e in entries:
                if (e.guard is None or e.guard()) and (e.same is None or same_objects(
                        e.same, args)):
                    e.hits += 1
                    if len(cache) > 1:
                        try:
                            cache.move_to_end(key)
                        except KeyError:  # evicted by another thread meanwhile
                            pass
                    return _call(e.fn, args)
        try:
            fn = self._compile(args, key, layout).fn
        except WrtError as exc:
            if self._float_sequence_wrt(args, layout):  # grad of f([1.0, 2.0]): its leaves
                return self._run_tree(args, layout)
            raise exc.with_traceback(None) from None
        except StAutodiffError as exc:  # the user's error, not a trace of the compiler
            raise exc.with_traceback(None) from None
        return _call(fn, args)

    def _float_sequence_wrt(self, args: tuple[Any, ...], layout: Layout) -> bool:
        """Whether a differentiated argument is a tuple or list of plain numbers with a
        float among them (otherwise a static-length argument, not a pytree): JAX
        differentiates its leaves, so the call goes the pytree way."""
        if self._mode not in ("grad", "value_and_grad") or layout is not _PLAIN or \
                not self._plain:
            return False
        try:
            positions = self._req(self._parse()).wrt
        except StAutodiffError:
            return False
        return any(p < len(args) and type(args[p]) in (tuple, list) and any(
            _is_float(leaf) for leaf in trees.flatten(args[p])[0]) for p in positions)

    def _key(self, args: tuple[Any, ...], layout: Layout) -> Any:
        """The cache key of a call (arguments in the canonical order)."""
        key: Any = tuple([_KINDS.get(type(a), _kind)(a) for a in args])
        if self._argspec is not None:
            key = self._special_key(key, args, layout)
        return key if layout is _PLAIN else (layout, key)

    def _special_key(self, key: tuple[Any, ...], args: tuple[Any, ...],
                     layout: Layout) -> tuple[Any, ...]:
        """``key`` with static arguments keyed by value and dynamic ints by type."""
        static, dynamic = self._special_positions(layout)
        return special_key(key, args, static, dynamic, self.__qualname__,
                           self._slot_names(layout))

    def _special_positions(self, layout: Layout) -> tuple[frozenset[int], frozenset[int]]:
        """Canonical positions of the static and the dynamic arguments of a call."""
        got = self._shared.positions.get(layout)
        if got is None:
            if isinstance(self._fn, GradFunction):
                got = self._fn._special_positions(layout)
            else:
                parsed = self._parse().with_layout(layout, self._receiver)
                assert self._argspec is not None
                got = self._argspec.positions(parsed, self._req(parsed).wrt)
            self._shared.positions[layout] = got
        return got

    def _slot_names(self, layout: Layout) -> list[str] | None:
        """The names of the generated function's parameters (for messages)."""
        if isinstance(self._fn, GradFunction):
            return self._fn._slot_names(layout)
        try:
            return self._parse().with_layout(layout, self._receiver).params
        except StAutodiffError:
            return None

    def _tree_call(self, args: Any, layout: Layout) -> bool:
        """Whether a call with pytree arguments is compiled as a function of their leaves:
        a NamedTuple or dataclass passed as a static argument stays one value, keyed by
        its hash."""
        if self._argspec is None:
            return True
        static = self._special_positions(layout)[0]
        return any(_is_tree(a) and (i not in static or not is_record(a))
                   for i, a in enumerate(args))

    def _run_tree(self, args: tuple[Any, ...], layout: Layout) -> Any:
        """Structured arguments (pytrees: tuples, lists and dicts of arrays and floats, as in
        JAX): the gradient of a function of their leaves, regrouped so that each
        differentiated argument's gradient has its structure (``None`` for leaves that are
        not floating point)."""
        inner, flat, positions, wrt_leaves = self._tree_function(args, layout)
        result = inner(*flat.leaves)
        self._last = inner._last
        value, aux = None, None
        if self._mode == "value_and_grad":
            value, grads = result
            if self._has_aux:
                value, aux = value
        else:
            grads = result
            if self._has_aux:
                grads, aux = grads
        by_leaf = dict(zip(wrt_leaves, grads))
        per_arg = []
        for p in positions:
            leaves = [by_leaf.get(k) for k in flat.span(p)]
            per_arg.append(trees.unflatten(flat.specs[p], leaves)
                           if trees.is_container(args[p]) else leaves[0])
        out: Any = per_arg[0] if isinstance(self._wrt_spec, (int, str)) else tuple(per_arg)
        if self._mode == "value_and_grad":
            return ((value, aux) if self._has_aux else value), out
        return (out, aux) if self._has_aux else out

    def _tree_function(self, args: tuple[Any, ...],
                       layout: Layout) -> tuple[GradFunction[...], Any, Any, Any]:
        """The gradient of the function of the leaves of structured ``args`` (made once per
        structure), the flattened call, the differentiated positions and leaves."""
        from .products import _Flat  # noqa: PLC0415  (products builds on this module)

        if layout is not _PLAIN or not self._plain:
            raise WrtError(f"{self.__name__}: tuple, list or dict arguments are supported "
                           "for functions whose parameters are all positional")
        positions = self._req(self._parse()).wrt
        flat = _Flat(self._fn, args, self._mode)
        wrt_leaves = [k for p in positions for k in flat.span(p) if _is_float(flat.leaves[k])]
        if not wrt_leaves:
            raise WrtError(f"{self.__name__}: the differentiated arguments hold no "
                           "floating-point value")
        key = (flat.key, tuple(wrt_leaves))
        inner = self._trees.get(key)
        if inner is None:
            argspec = None
            if self._argspec is not None:  # static or dynamic arguments: all their leaves
                static, dynamic = self._special_positions(layout)
                argspec = ArgSpec(tuple(k for p in static for k in flat.span(p)), (),
                                  tuple(k for p in dynamic for k in flat.span(p)))
            inner = self._trees[key] = GradFunction(flat.fn, tuple(wrt_leaves), self._mode,
                                                    self._has_aux, self._options, argspec)
        return inner, flat, positions, wrt_leaves

    def bind_call(self, args: Any, kwargs: dict[str, Any]) -> tuple[list[Any], Layout]:
        """Python's binding of a call: the arguments in the canonical order, and the
        layout (``*args`` length, ``**kwargs`` keys) of this call."""
        if not isinstance(self._fn, GradFunction):
            now, seen = _defaults_of(self._fn if isinstance(
                self._fn, functools.partial) else self._target), self._defaults_seen
            if now[0] is not seen[0] or now[1] is not seen[1] or (
                    now[1] and not _same_values(now[1], seen[2])):
                self._defaults_seen = now  # f.__defaults__ was reassigned, or an item of
                # the (mutable) f.__kwdefaults__ dict
                self._set_signature(inspect.signature(self._fn))
        if self._fixed_arity and len(args) <= self._n_positional:
            flat: list[Any] = list(args)
            used = 0
            for name, posonly, default in self._params[len(args):]:
                if not posonly and name in kwargs:
                    flat.append(kwargs[name])
                    used += 1
                elif default is not _P.empty:
                    flat.append(default)
                else:
                    break  # missing: Signature.bind words the error
            else:
                if used == len(kwargs):  # else an unknown or repeated keyword
                    return flat, _PLAIN
        try:
            bound = self._sig.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{self.__name__}(): {exc}") from None
        bound.apply_defaults()
        flat = []
        n_star, keys = 0, ()
        for name, p in self._sig.parameters.items():
            v = bound.arguments[name]
            if p.kind is _P.VAR_POSITIONAL:
                flat.extend(v)
                n_star = len(v)
            elif p.kind is _P.VAR_KEYWORD:
                flat.extend(v.values())
                keys = tuple(v)
            else:
                flat.append(v)
        return flat, (_PLAIN if not n_star and not keys else Layout(n_star, keys))

    def _n_primal(self, layout: Layout) -> int:
        """How many arguments the function's own call has, in the canonical order."""
        n_var = sum(p.kind in (_P.VAR_POSITIONAL, _P.VAR_KEYWORD)
                    for p in self._sig.parameters.values())
        return self._nparams - n_var + layout.n_star + len(layout.kw_keys)

    def split(self, *args: Any) -> tuple[Callable[..., Any], Callable[..., Any]]:
        """The generated ``(forward, backward)`` pair for these arguments (vjp mode);
        ``forward`` takes the same positional arguments as this call."""
        layout = _PLAIN
        given = args
        if not self._plain or len(args) != self._nparams:
            flat, layout = self.bind_call(args, {})
            args = tuple(flat)
        key = self._key(args, layout)
        valid = [e for e in self._cache.get(key, ()) if (e.guard is None or e.guard()) and
                 (e.same is None or same_objects(e.same, args))]
        if valid:
            valid[0].hits += 1
            self._cache.move_to_end(key) if key in self._cache else None
        compiled = valid[0].compiled if valid else self._compile(args, key, layout).compiled
        self._last = compiled  # (its out_tree says how vjp reads the outputs)
        fwd: Callable[..., Any] = compiled.fwd
        if args is not given:  # defaults filled in: forward binds its call the same way
            inner = fwd

            def fwd(*call: Any) -> Any:
                return inner(*self.bind_call(call, {})[0])

        return fwd, compiled.bwd

    def _compile(self, args: tuple[Any, ...], key: Any, layout: Layout) -> Specialisation:
        old = self._cache.get(key, [])
        names = self._slot_names(layout)
        reason = why(self._specs, key, names)
        if old:
            if len(old) == _MAX_SPECIALISATIONS - 1:
                log.warning("st_autodiff: %s was compiled %d times for the same argument "
                            "kinds; %s keeps changing (a property that builds a new object "
                            "on every read?): pass it as an argument instead",
                            self.__qualname__, _MAX_SPECIALISATIONS, reason)
        xp = self._namespace(args, names)
        disk = DiskEntry.for_call(self, key, xp)
        compiled = disk.load(self) if disk is not None else None
        origin = "disk" if compiled is not None else "compiled"
        announce("%s %s (%s): %s", "loading" if compiled is not None else "compiling",
                 self.__qualname__, self._mode, reason)
        if compiled is None:
            compiled = self._build(list(args), xp, layout)
            if disk is not None and not compiled.same_args:  # (`is` answers: not keyed)
                disk.store(compiled)
        guards = compiled.guards
        fn: Callable[..., Any] = compiled.fn  # type: ignore[assignment]
        if self._seeds:  # jvp of a gradient: its code takes (*primals, *seeds, *tangents)
            fn = _with_seeds(fn, self._n_primal(layout), self._seeds)
        entry = Specialisation(key, guards.check() if len(guards) else None, compiled, fn,
                               guards, reason, origin)
        entry.names = names
        self._specs.insert(entry, _MAX_SPECIALISATIONS, self.__qualname__)
        self._last = compiled
        return entry

    def _namespace(self, args: Any, names: Sequence[str] | None) -> Any:
        """The ``xp`` generated code is bound to for these arguments: their array
        namespace (``runtime/backend``), or the one ``backend=`` named."""
        chosen = getattr(self, "_backend", None)
        ns = namespace_for(*args, names=names)
        if chosen is not None and not any(namespace_of(a) is not None for a in args):
            ns = chosen  # (Python numbers only: the chosen namespace's code)
        elif chosen is not None and namespace_name(ns) != namespace_name(chosen):
            raise BackendError(
                f"{self.__qualname__} was made with backend {namespace_name(chosen)!r} but "
                f"its arguments are {namespace_name(ns)} arrays; convert them first "
                "(st_autodiff never copies arrays between libraries behind your back)")
        return bound_namespace(ns)

    def _build(self, args: list[Any] | None, xp: Any, layout: Layout | None = None
               ) -> Compiled:
        """Compile a specialisation; its ``guards`` are what it read from outside."""
        layout = layout or _PLAIN
        fn: Any = self._fn
        inherited: Guards | None = None
        if isinstance(fn, GradFunction):  # differentiate the generated code again
            if args is None:
                raise WrtError(f"{self.__name__}: a derivative of a gradient is generated "
                               "for the arguments of a call; call it first")
            # the gradient's own arguments, then (jvp) one tangent per differentiated one
            n = self._n_primal(layout)
            primals, tangents = list(args[:n]), list(args[n:])
            fn = fn.generated_for(primals, layout)
            inherited = getattr(fn, "__st_guards__", None)
            same = getattr(fn, "__st_same__", ())  # the inner function's `is` answers
            parsed = parse_function(fn)
            # the generated code's trailing seeds (out_bar=1.0) stay constant arguments:
            # not differentiated, so their tangents are zero
            seeds = [parsed.defaults[p] for p in parsed.params[len(primals):]]
            self._seeds = tuple(seeds) if self._mode == "jvp" else ()
            args = primals + seeds + tangents
        else:
            fn = self._target
            parsed = self._parse().with_layout(layout, self._receiver)
            same = None
        req = self._req(parsed)
        lowerers: list[Any] = []

        def resolver(lw: Any) -> Any:
            lowerers.append(lw)
            if self._argspec is not None:
                lw.static_args, lw.dynamic_args = self._special_positions(layout)
            lw.guards.merge(inherited)  # (its own defaults are arguments: not guarded)
            return python_resolver(fn, lw.const_of_global, lw.guards)

        compiled = compile_function(parsed, resolver, args, req, self._options, xp, support,
                                    code=getattr(fn, "__code__", None))
        compiled.guards = lowerers[0].guards if lowerers else Guards()
        compiled.same_args = tuple(same if same is not None else
                                   lowerers[0].identity_checks if lowerers else ())
        if compiled.fn is not None:
            compiled.fn.__st_guards__ = compiled.guards  # type: ignore[attr-defined]
            compiled.fn.__st_same__ = compiled.same_args  # type: ignore[attr-defined]
        return compiled

    def generated_for(self, args: list[Any], layout: Layout | None = None
                      ) -> Callable[..., Any]:
        """The generated function for these arguments (canonical order, see ``bind_call``),
        written so that the compiler can differentiate it again (no ``del``, no writes
        into arrays): higher derivatives come from transforming generated code, as Tangent
        does.  Its ``__st_guards__`` are the reads it depends on."""
        layout = layout or _PLAIN
        key = (layout, tuple(_kind(a) for a in args))
        hit = self._functional.get(key)
        if hit is None or (hit[0] is not None and not hit[0]()) or not same_objects(
                getattr(hit[1], "__st_same__", ()), args):
            inner: GradFunction[...] = GradFunction(
                self._fn, self._wrt_spec, self._mode, self._has_aux,
                Options(optimize=self._options.optimize, functional=True), self._argspec)
            self._namespace(args, None)  # (mixed namespaces: the error, here too)
            # bound to NumPy whatever the arguments: this code is read (lowered) again,
            # never run, and the compiler reads NumPy's names; the code compiled from it
            # is bound to the arguments' namespace when it is loaded
            compiled = inner._build(list(args), np, layout)
            guards = compiled.guards
            assert compiled.fn is not None  # (a built specialisation has its function)
            hit = self._functional[key] = (guards.check() if len(guards) else None,
                                           compiled.fn)
        return hit[1]

    def _parse(self) -> ParsedFunction:
        if self._shared.parsed is None:
            self._shared.parsed = parse_function(self._target)
        return self._shared.parsed

    def _req(self, parsed: ParsedFunction) -> Request:
        req = self._requests.get(parsed.layout)
        if req is None:
            req = self._requests[parsed.layout] = _request(self._wrt_spec, parsed,
                                                           self._mode, self._has_aux)
        return req

    # --- what is cached -----------------------------------------------------------------

    def cache_info(self) -> CacheInfo:
        """The specialisations kept (least recently used first): their argument kinds,
        hits and why each was compiled; and hit, miss and eviction counts."""
        return self._specs.info(f"{self._mode} of {self.__qualname__}")

    def cache_clear(self) -> None:
        """Drop every specialisation and zero the counters (the next call compiles
        again)."""
        self._specs.clear()

    def _bound(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[list[Any], Any, bool]:
        """A call's arguments in canonical order (jvp: the tangents follow), its layout,
        and whether a grad/value_and_grad call passes pytrees (then compiled per
        structure as a function of their leaves)."""
        n_extra = len(self._wrt_spec) if self._mode == "jvp" and isinstance(
            self._wrt_spec, tuple) else 0
        flat, layout = self.bind_call(args[:len(args) - n_extra], kwargs)
        flat += args[len(args) - n_extra:]
        tree = self._mode in ("grad", "value_and_grad") and any(
            _is_tree(a) for a in flat) and self._tree_call(flat, layout)
        return list(flat), layout, tree

    def explain(self, *args: Any, **kwargs: Any) -> str:
        """Which specialisation a call with these arguments would use, or why it would
        compile a new one; nothing is compiled or run.  (jvp: the tangents follow the
        arguments, as in ``call_flat``.)"""
        flat, layout, tree = self._bound(args, kwargs)
        if tree:  # pytrees: a function of their leaves, per structure
            from .products import _Flat  # noqa: PLC0415

            leaves = _Flat(self._fn, tuple(flat), self._mode)
            inner = next((g for (k, _), g in self._trees.items() if k == leaves.key), None)
            if inner is None:
                return (f"{self._mode} of {self.__qualname__}: would compile a new "
                        "specialisation: first call with this structure of arguments")
            return inner.explain(*leaves.leaves)
        key = self._key(tuple(flat), layout)
        return explain_key(self._specs, key, self._slot_names(layout),
                           f"{self._mode} of {self.__qualname__}")

    def compile(self, *args: Any, **kwargs: Any) -> Specialisation:
        """Compile the specialisation that a call with these arguments uses, without
        running the function (JAX's ``jit(f).lower(*args).compile()``), and keep it in the
        cache: the next call with arguments of the same kinds is a hit.  An array argument
        may be an ``st.ShapeDtype(shape, dtype)``, which stands for every NumPy array of
        that shape and dtype: compiling reads types, never array data.  Returns the
        specialisation: ``.source`` (the generated code), ``.fn`` (the loaded function,
        called with the arguments in the order of ``bind_call``), ``.reason``.  (jvp: the
        tangents follow the arguments, as in ``call_flat``; vjp: ``.compiled.fwd`` and
        ``.compiled.bwd``.)

        >>> import numpy as np, st_autodiff as st
        >>> def f(x):
        ...     return np.sum(x * x)
        >>> g = st.grad(f)
        >>> print(g.compile(st.ShapeDtype((3,), np.float64)).reason)
        first call
        >>> _ = g(np.ones(3))
        >>> g.cache_info().hits
        1
        """
        for a in (*args, *kwargs.values()):
            if isinstance(a, ShapeDtype) and (a.shape is None or a.dtype is None):
                raise ValueError(f"{self.__name__}.compile: {a} has no shape or no dtype; "
                                 "an argument's kind needs both")
        flat, layout, is_tree = self._bound(args, kwargs)
        if is_tree:  # pytrees: a function of their leaves, per structure
            inner, tree, _, _ = self._tree_function(tuple(flat), layout)
            return inner.compile(*tree.leaves)
        key = self._key(tuple(flat), layout)
        for e in self._cache.get(key, ()):
            if (e.guard is None or e.guard()) and (e.same is None or same_objects(
                    e.same, flat)):
                return e
        try:
            return self._compile(tuple(flat), key, layout)
        except StAutodiffError as exc:
            raise exc.with_traceback(None) from None

    # --- reading the generated code -----------------------------------------------------

    def _latest(self) -> Compiled:
        if self._last is None and self._cache:  # st.grad(f) again: the shared, latest one
            return next(reversed(self._cache.values()))[0].compiled  # type: ignore[no-any-return]
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
        """The generated function, so that ``inspect.getsource`` shows generated code.
        A function whose code needs its arguments' types has none before a call: then
        there is no ``__wrapped__`` (``hasattr`` is False, so ``inspect.signature`` reads
        ``__signature__`` instead of failing with the compile error)."""
        try:
            return self._latest().fn  # type: ignore[return-value]
        except StAutodiffError as exc:
            raise AttributeError(f"{self.__qualname__} has no generated code before a call "
                                 f"(call it with arguments first): {exc}") from None

    @property
    def __signature__(self) -> inspect.Signature:
        """The differentiated function's parameters (keyword-only ones stay so), as
        ``functools.wraps`` gives JAX's ``grad``: not the generated code's, which adds
        ``out_bar``."""
        return self._sig

    def __repr__(self) -> str:
        return f"<st_autodiff.{self._mode} of {self.__qualname__}>"


_P = inspect.Parameter
_PLAIN = Layout()
#: specialisations kept per argument kinds (older ones whose guards failed are dropped)
_MAX_SPECIALISATIONS = 8


def _defaults_of(fn: Any) -> tuple[Any, Any, Any]:
    """``fn``'s defaults, its keyword-only defaults and a snapshot of their items (the
    dict can be changed in place); for a ``functools.partial``, its keywords (bound as
    defaults of the function the compiler reads)."""
    if isinstance(fn, functools.partial):
        return None, fn.keywords, tuple(fn.keywords.items())
    kw = getattr(fn, "__kwdefaults__", None)
    return getattr(fn, "__defaults__", None), kw, tuple(kw.items()) if kw else ()


def _same_values(kw: dict[str, Any], items: tuple[tuple[str, Any], ...]) -> bool:
    """``kw`` still holds ``items`` (same keys, same objects)."""
    return len(kw) == len(items) and all(
        kw.get(k, _P.empty) is v for k, v in items)


def _signature(fn: Any) -> inspect.Signature:
    """``fn``'s signature; a callable without one (a NumPy ufunc on Python 3.10) has no
    Python source either, which is the error the user needs."""
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        parse_function(_readable(fn))  # raises SourceUnavailableError for C callables
        raise


def _readable(fn: Any) -> Any:
    """The Python function the compiler reads for ``fn``: a custom-rule function
    (``custom_jvp``, ``custom_vjp``) is read as a generated caller with its parameters, so
    that differentiating it goes through its rule."""
    if isinstance(fn, functools.partial):
        return partial_caller(fn)
    product_of = getattr(fn, "st_product_of", None)
    if product_of is not None and inspect.isfunction(fn):  # st.jacfwd(st.hessian(f))
        from .product_compose import caller as product_caller  # noqa: PLC0415

        return product_caller(fn, product_of)
    caller = getattr(fn, "st_caller", None) if not inspect.isfunction(fn) else None
    return caller if callable(caller) else fn


def _with_seeds(fn: Callable[..., Any], n: int, seeds: tuple[Any, ...]) -> Callable[..., Any]:
    """``fn(*args[:n], *seeds, *args[n:])``: generated jvp code of a gradient takes the
    gradient's seeds (constant 1.0) between its primals and its tangents."""

    def call(*args: Any) -> Any:
        return fn(*args[:n], *seeds, *args[n:])

    call.__wrapped__ = fn  # type: ignore[attr-defined]
    return call


def _request(wrt: Wrt, parsed: ParsedFunction, mode: str, has_aux: bool) -> Request:
    """Which generated parameters ``wrt`` names.  Names: a parameter (keyword-only ones
    included) or a key the call passes through ``**kwargs``.  Positions: the positional
    arguments of the call (JAX's ``argnums``), ``*args`` values included, negative ones
    counted from the last."""
    slots = parsed.slots
    names = [k if isinstance(k, str) else n for n, _, k in slots]  # **kwargs: by key
    n_pos = sum(1 for _, p, k in slots if not isinstance(k, str) and not any(
        p is q for q in parsed.node.params.kwonly_params))
    single = isinstance(wrt, (int, str))
    items = [wrt] if single or not isinstance(wrt, Sequence) else list(wrt)
    positions = []
    where = parsed.loc(parsed.node)
    for w in items:
        if isinstance(w, bool) or not isinstance(w, (int, str)):
            raise WrtError(f"wrt must name arguments by position or name, got {w!r}", where)
        if isinstance(w, str):
            star = parsed.star
            if star is not None and w == star.name.value:
                raise WrtError(f"wrt names {w!r}, the *{w} parameter of {parsed.name}(): "
                               "name its values by position instead", where,
                               f"wrt=(i, j) differentiates the i-th and j-th positional "
                               f"arguments of the call, *{w} values included")
            if w not in names:
                raise WrtError(f"wrt names {w!r}, but {parsed.name}() has no such parameter "
                               f"(its parameters: {', '.join(parsed.all_params)})", where)
            positions.append(names.index(w))
        else:
            if not -n_pos <= w < n_pos:
                call = " in this call" if parsed.star is not None else ""
                kw = " by position (keyword-only ones are named: wrt='name')" if n_pos < len(
                    slots) else ""
                raise WrtError(f"wrt={w} is out of range: {parsed.name}() takes {n_pos} "
                               f"arguments{kw}{call}", where)
            positions.append(w % n_pos)
    if mode == "vjp_joint":  # one function (args..., out_bar) -> gradients (the bridge)
        return Request(tuple(positions), single, "vjp", has_aux, split=False)
    return Request(tuple(positions), single, mode, has_aux, split=mode == "vjp")


def _make(mode: str, fn: Callable[..., Any] | None, wrt: Wrt | None, argnums: Wrt | None,
          has_aux: bool, optimize: bool, argspec: ArgSpec | None, cache_size: int | None,
          backend: Any = None, device: Any = None) -> Any:
    if wrt is not None and argnums is not None:
        raise TypeError(f"{mode}() got both wrt and argnums; they are the same argument "
                        "(argnums is JAX's name for it): pass one")
    spec: Wrt = wrt if wrt is not None else (argnums if argnums is not None else 0)
    if isinstance(spec, list):
        spec = tuple(spec)
    if cache_size is not None:
        check_cache_size(cache_size, "cache_size")
    options = _OPTIONS[True] if optimize is True else Options(optimize=optimize)
    ns = choose_backend(backend, device)
    if fn is None:
        return lambda f: GradFunction(f, spec, mode, has_aux, options, argspec, cache_size, ns)
    return GradFunction(fn, spec, mode, has_aux, options, argspec, cache_size, ns)


_OPTIONS = {True: Options(optimize=True)}


@overload
def grad(fn: Callable[P, Any], wrt: Wrt | None = None, *,
         argnums: Wrt | None = None, has_aux: bool = False, optimize: bool = True,
         static_argnums: int | Sequence[int] | None = None,
         static_argnames: str | Sequence[str] | None = None,
         dynamic_argnums: int | Sequence[int] | None = None,
         dynamic_argnames: str | Sequence[str] | None = None,
         cache_size: int | None = None, backend: Any = None,
         device: Any = None) -> GradFunction[P]: ...


@overload
def grad(fn: None = None, wrt: Wrt | None = None, *,
         argnums: Wrt | None = None, has_aux: bool = False, optimize: bool = True,
         static_argnums: int | Sequence[int] | None = None,
         static_argnames: str | Sequence[str] | None = None,
         dynamic_argnums: int | Sequence[int] | None = None,
         dynamic_argnames: str | Sequence[str] | None = None,
         cache_size: int | None = None, backend: Any = None, device: Any = None
         ) -> Callable[[Callable[P, Any]], GradFunction[P]]: ...


def grad(fn: Callable[..., Any] | None = None, wrt: Wrt | None = None, *,
         argnums: Wrt | None = None, has_aux: bool = False, optimize: bool = True,
         static_argnums: int | Sequence[int] | None = None,
         static_argnames: str | Sequence[str] | None = None,
         dynamic_argnums: int | Sequence[int] | None = None,
         dynamic_argnames: str | Sequence[str] | None = None,
         cache_size: int | None = None, backend: Any = None, device: Any = None) -> Any:
    """The gradient of a scalar function with respect to ``wrt`` (positions or names;
    ``argnums`` is JAX's name for it; the first argument when neither is given).

    Usable as ``grad(f)``, ``grad(f, wrt=(0, 1))``, ``@grad`` and ``@grad(wrt="w")``.
    With ``has_aux=True`` the function returns ``(loss, aux)`` and the gradient function
    returns ``(gradient, aux)``.

    Specialisation (see ``docs/specialization.md``): ``static_argnums``/``static_argnames``
    make arguments compile-time constants keyed by value (they must be hashable, as in
    JAX); ``dynamic_argnums``/``dynamic_argnames`` make int (or bool) arguments runtime
    values, so that a changing loop length does not compile again.  ``cache_size`` caps
    the specialisations kept (default ``st.config.cache_size``).

    Backends (see ``docs/backends_compiler.md``): generated code runs on the array
    namespace of the arguments (NumPy, CuPy, Dask, any array-API library); ``backend=``
    (a module or its name) or ``device=`` (``'cpu'``, ``'cuda'``) fixes it: arrays of
    another namespace are then an error, never copied.
    """
    try:
        return _make("grad", fn, wrt, argnums, has_aux, optimize, ArgSpec.make(
            static_argnums, static_argnames, dynamic_argnums, dynamic_argnames), cache_size,
            backend, device)
    except StAutodiffError as exc:
        raise exc.with_traceback(None) from None


@overload
def value_and_grad(fn: Callable[P, Any], wrt: Wrt | None = None, *,
                   argnums: Wrt | None = None, has_aux: bool = False,
                   optimize: bool = True, static_argnums: int | Sequence[int] | None = None,
                   static_argnames: str | Sequence[str] | None = None,
                   dynamic_argnums: int | Sequence[int] | None = None,
                   dynamic_argnames: str | Sequence[str] | None = None,
                   cache_size: int | None = None, backend: Any = None,
         device: Any = None) -> GradFunction[P]: ...


@overload
def value_and_grad(fn: None = None, wrt: Wrt | None = None, *,
                   argnums: Wrt | None = None, has_aux: bool = False,
                   optimize: bool = True, static_argnums: int | Sequence[int] | None = None,
                   static_argnames: str | Sequence[str] | None = None,
                   dynamic_argnums: int | Sequence[int] | None = None,
                   dynamic_argnames: str | Sequence[str] | None = None,
                   cache_size: int | None = None, backend: Any = None, device: Any = None
                   ) -> Callable[[Callable[P, Any]], GradFunction[P]]: ...


def value_and_grad(fn: Callable[..., Any] | None = None, wrt: Wrt | None = None, *,
                   argnums: Wrt | None = None, has_aux: bool = False,
                   optimize: bool = True, static_argnums: int | Sequence[int] | None = None,
                   static_argnames: str | Sequence[str] | None = None,
                   dynamic_argnums: int | Sequence[int] | None = None,
                   dynamic_argnames: str | Sequence[str] | None = None,
                   cache_size: int | None = None, backend: Any = None,
                   device: Any = None) -> Any:
    """Like ``grad``, but the result is ``(value, gradient)``."""
    try:
        return _make("value_and_grad", fn, wrt, argnums, has_aux, optimize, ArgSpec.make(
            static_argnums, static_argnames, dynamic_argnums, dynamic_argnames), cache_size,
            backend, device)
    except StAutodiffError as exc:
        raise exc.with_traceback(None) from None


def explain(fn: Any, *args: Any, **kwargs: Any) -> str:
    """Which cached specialisation ``fn(*args, **kwargs)`` would use, or why it would compile
    a new one (which argument's kind changed, which guard failed), without compiling or
    running anything.  ``fn`` is a compiled function: ``st.grad(f)``,
    ``st.value_and_grad(f)``, ``st.jacrev(f)``...

    >>> import numpy as np, st_autodiff as st
    >>> def f(x):
    ...     return np.sum(x * x)
    >>> g = st.grad(f)
    >>> _ = g(np.ones(3))
    >>> print(st.explain(g, np.ones(4)))
    grad of f(x: f64[4]): would compile a new specialisation: x: f64[3] -> f64[4]
    """
    method = getattr(fn, "explain", None)
    if not callable(method):
        raise TypeError(f"explain() takes a compiled function (st.grad(f), st.jacrev(f), "
                        f"...), got {type(fn).__name__}; wrap it first: "
                        f"st.explain(st.grad(f), *args)")
    return method(*args, **kwargs)  # type: ignore[no-any-return]


def _is_tree(a: Any) -> bool:
    """Whether an argument is a pytree whose leaves are differentiated one by one: a dict,
    a NamedTuple or dataclass instance, or a tuple or list holding one of those or an
    array (tuples of plain numbers stay static-length arguments)."""
    t = type(a)
    if t is dict:
        return True
    if t is tuple or t is list:
        return _has_float_array(a)
    return is_record(a)


def _has_float_array(a: Any) -> bool:
    """Whether a tuple or list holds (at any depth) an array, a dict or a record."""
    return any(type(x) is dict or isinstance(x, (np.ndarray, ShapeDtype)) or
               type(x) in (tuple, list) and _has_float_array(x) or is_record(x) for x in a)


def _is_float(a: Any) -> bool:
    if isinstance(a, (float, complex)):  # complex: differentiated, so lowering refuses it
        return True
    dt = getattr(a, "dtype", None)
    if dt is None:
        return False
    try:
        return np.dtype(dt).kind in "fc"
    except TypeError:  # an array-API dtype object: by its name
        return np.dtype(describe_dtype_name(dt)).kind in "fc"


_PRODUCTS = ("hessian", "hvp", "jacfwd", "jacobian", "jacrev", "jvp", "vjp")


def __getattr__(name: str) -> Any:
    """The products (``products.py``, built on ``GradFunction``), read from there on first
    use: importing them here at import time made ``import st_autodiff.products`` as the
    first import a circular import."""
    if name in _PRODUCTS:
        from . import products  # noqa: PLC0415

        return getattr(products, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["GradFunction", "explain", "grad", "value_and_grad", "custom_jvp", "custom_vjp",
           "register_vjp", "stop_gradient"]  # (the products: products.__all__)


def _call(fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    """Run generated code; a derivative that fails at run time is located at the user's
    line (the user's own errors pass through as Python raises them)."""
    try:
        return fn(*args)
    except Exception as exc:
        located = locate_failure(exc)
        if located is exc:
            raise
        raise located from exc
