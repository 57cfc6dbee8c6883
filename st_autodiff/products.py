"""Products and matrices of derivatives built on compiled gradients: ``vjp``, ``jvp``,
``jacrev``/``jacfwd``/``jacobian``, ``hessian`` and ``hvp``.

Each wraps a ``GradFunction`` (``api.py``) in the mode it needs and caches it per
function, so repeated calls compile once.
"""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np

from . import trees
from .api import _PLAIN, GradFunction, P, Wrt, _is_float, _is_tree, grad
from .custom_source import define
from .errors import StAutodiffError, WrtError
from .hessian_trees import tree_hessian
from .ir.kernels import array_namespace
from .ir.namespaces import namespace_of
from .library_callers import library_caller
from .product_arrays import (
    assemble,
    basis,
    check_cotangent,
    chosen_backend,
    is_complex,
    shape_of,
    size_of,
)
from .product_compose import Context, hvp_call, jacobian_call, jvp_call, vjp_call
from .specialize import ArgSpec, CacheInfo, argnum_positions, merge_info
from .transforms import Compiled, Options
from .transforms.callable_args import wrt_error
from .transforms.external import argument
from .trees_classes import Record, Static, make


def vjp(fn: Callable[..., Any], *args: Any, backend: Any = None, device: Any = None
        ) -> tuple[Any, Callable[[Any], tuple[Any, ...]]]:
    """``(fn(*args), vjp_fn)``; ``vjp_fn(cotangent)`` gives one gradient per argument.

    JAX's convention: the cotangent has the structure of the output (a tuple, list or
    dict of arrays and floats, nested or not; ``None`` for a zero part), and
    ``vjp_fn`` returns a tuple with one entry per argument in that argument's structure.
    The primal runs once, in a generated forward function that keeps exactly the values
    the adjoint reads; ``vjp_fn`` runs the generated backward function on them.  Parts
    that are not floating point (ints, bools, integer arrays) get ``None``.
    ``backend=``/``device=`` (keyword-only) are ``st.grad``'s: they fix the array library
    the generated code runs on; arrays of another library are an error, never copied.

    >>> import st_autodiff as st
    >>> def f(x):
    ...     return 2.0 * x, x + 1.0
    >>> out, vjp_fn = st.vjp(f, 1.0)
    >>> vjp_fn((1.0, 1.0))
    (3.0,)
    """
    fn = library_caller(fn) or fn  # st.vjp(np.sin): see library_callers
    return _vjp(fn, args, None, chosen_backend(backend, device))


def _vjp(fn: Callable[..., Any], args: tuple[Any, ...], argspec: ArgSpec | None,
         ns: Any = None) -> tuple[Any, Callable[[Any], tuple[Any, ...]]]:
    """``vjp``, with some arguments static or dynamic (``jacrev(..., static_argnums)``):
    static ones are constants of the generated code and get no gradient (``None``).
    ``ns``: the namespace ``backend=``/``device=`` chose (None: the arguments')."""
    flat, floats, g = _vjp_function(fn, args, argspec, ns)
    try:
        fwd, bwd = g.split(*flat.leaves)
    except StAutodiffError as exc:
        raise exc.with_traceback(None) from None
    out_spec = cast(Compiled, g._last).out_tree  # (split sets it)
    out, residuals = fwd(*flat.leaves)
    outs = trees.leaves_like(out_spec, out, "the output", none_is_leaf=False)

    def vjp_fn(cotangent: Any) -> tuple[Any, ...]:
        if any(is_complex(c) for c in trees.flatten(cotangent)[0]):
            raise TypeError("vjp: the cotangent is complex, but complex numbers are not "
                            "supported yet (the function's output is real)")
        cts = trees.leaves_like(out_spec, cotangent, "the cotangent")
        check_cotangent(outs, cts, [trees.path(out_spec, k) for k in range(len(outs))])
        seeds = [_cotangent(ct, o, trees.path(out_spec, k))
                 for k, (ct, o) in enumerate(zip(cts, outs))]
        grads = bwd(*residuals, *seeds)
        leaves: list[Any] = [None] * len(flat.leaves)
        for k, gk in zip(floats, grads):
            leaves[k] = gk
        return flat.unflatten(leaves)

    vjp_fn.grad_function = g  # type: ignore[attr-defined]
    return out, vjp_fn


def _vjp_function(fn: Callable[..., Any], args: tuple[Any, ...], argspec: ArgSpec | None,
                  ns: Any = None) -> tuple[_Flat, tuple[int, ...], GradFunction[...]]:
    """The leaves of a ``vjp`` call, the differentiated ones, and the compiled function
    (made once per function, structure, argument spec and chosen backend ``ns``)."""
    # (parameters left out take their defaults: GradFunction binds the call as Python does)
    flat = _Flat(fn, args, "vjp")
    spec, static = _leaf_spec(fn, flat, argspec, "vjp")
    floats = tuple(k for k, a in enumerate(flat.leaves) if _is_float(a) and k not in static)
    if not floats:
        raise WrtError(f"vjp of {flat.name}: no floating-point argument to differentiate")
    per_fn = _VJP_CACHE.setdefault(fn, {})
    key = _key((flat.key, floats) if spec is None else (flat.key, floats, spec), ns)
    g = per_fn.get(key)
    if g is None:
        g = per_fn[key] = GradFunction(flat.fn, floats, "vjp", False, Options(), spec, None,
                                       ns)
    return flat, floats, g


def _leaf_spec(fn: Callable[..., Any], flat: _Flat, argspec: ArgSpec | None, who: str
               ) -> tuple[ArgSpec | None, frozenset[int]]:
    """The static/dynamic spec of ``fn`` over the leaves of a call, and the static leaves:
    ``argspec`` (numbers and names of ``fn``'s positional parameters), or the spec of a
    compiled gradient being differentiated again."""
    if argspec is None and isinstance(fn, GradFunction) and fn._argspec is not None:
        static, dynamic = fn._special_positions(_PLAIN)
    elif argspec is None:
        return None, frozenset()
    else:
        static, dynamic = _arg_positions(fn, argspec, len(flat.specs), who)
    static_leaves = frozenset(k for p in static for k in flat.span(p))
    dynamic_leaves = tuple(sorted(k for p in dynamic for k in flat.span(p)))
    spec = ArgSpec(tuple(sorted(static_leaves)), (), dynamic_leaves)
    return (spec if spec else None), static_leaves


def _arg_positions(fn: Callable[..., Any], argspec: ArgSpec, n: int, who: str
                   ) -> tuple[frozenset[int], frozenset[int]]:
    """The positions of a call of ``n`` positional arguments that ``argspec`` makes
    static and dynamic (names: ``fn``'s positional parameters)."""
    names = list((fn._sig if isinstance(fn, GradFunction) else inspect.signature(fn)
                  ).parameters)[:n]
    name = getattr(fn, "__name__", repr(fn))
    try:
        static = frozenset(argnum_positions(argspec.static_argnums, argspec.static_argnames,
                                            "static", n, names, name, names))
        dynamic = frozenset(argnum_positions(argspec.dynamic_argnums,
                                             argspec.dynamic_argnames, "dynamic", n, names,
                                             name, names))
    except ValueError as exc:
        raise ValueError(f"{who}: {exc}") from None
    if static & dynamic:
        raise ValueError(f"{who}: an argument is named both static and dynamic; pick one")
    return static, dynamic


_VJP_CACHE: weakref.WeakKeyDictionary[Callable[..., Any], dict[Any, GradFunction[...]]] = \
    weakref.WeakKeyDictionary()


def jvp(fn: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any], *,
        backend: Any = None, device: Any = None) -> tuple[Any, Any]:
    """``(fn(*primals), J @ tangents)`` by forward mode (JAX's convention).

    ``tangents`` has one entry per primal in that primal's structure (tuples, lists and
    dicts of arrays and floats), each part shaped like its primal; ``None`` means a zero
    tangent, for a part or a whole argument, and is what parts that are not floating
    point take.  The output tangent has the structure of the output.  The generated
    ``NAME_jvp`` runs the primal sweep, then the tangent sweep.  ``backend=``/``device=``
    are ``st.grad``'s (the primals and tangents must be arrays of that library).

    >>> import numpy as np, st_autodiff as st
    >>> def f(x):
    ...     return np.sin(x) * x
    >>> out, t = st.jvp(f, (np.array([0.0, 1.0]),), (np.array([1.0, 1.0]),))
    >>> bool(np.allclose(t, np.cos([0.0, 1.0]) * [0.0, 1.0] + np.sin([0.0, 1.0])))
    True
    """
    fn = library_caller(fn) or fn  # st.jvp(np.sin): see library_callers
    return _jvp(fn, primals, tangents, None, chosen_backend(backend, device))


def _jvp(fn: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any],
         argspec: ArgSpec | None, ns: Any = None) -> tuple[Any, Any]:
    """``jvp``, with some arguments static or dynamic (their tangents must be None), on
    the namespace ``ns`` that ``backend=`` chose (None: the arguments')."""
    flat, dots, g = _jvp_function(fn, primals, tangents, argspec, ns)
    result: tuple[Any, Any] = g.call_flat(
        *flat.leaves, *(dots[k] for k in cast("tuple[int, ...]", g._wrt_spec)))
    return result


def _jvp_function(fn: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any],
                  argspec: ArgSpec | None, ns: Any = None
                  ) -> tuple[_Flat, list[Any], GradFunction[...]]:
    """The leaves of a ``jvp`` call, their tangents, and the compiled function (per
    function, structure, differentiated leaves, argument spec and chosen backend)."""
    primals, tangents = tuple(primals), tuple(tangents)
    if len(primals) != len(tangents):
        raise TypeError(f"jvp: {len(primals)} primals but {len(tangents)} tangents; give "
                        "one tangent per primal")
    flat = _Flat(fn, primals, "jvp")
    spec, static = _leaf_spec(fn, flat, argspec, "jvp")
    dots: list[Any] = []
    for i, (tree, t) in enumerate(zip(flat.specs, tangents)):
        dots += trees.leaves_like(tree, t, f"tangents[{i}]")
    wrt: list[int] = []
    for k, (p, t) in enumerate(zip(flat.leaves, dots)):
        if t is None:
            continue
        where = f"the tangent of {flat.describe(k)}"
        if k in static:
            raise ValueError(f"jvp: {where} is given, but that argument is static (a "
                             "compile-time constant); pass None for it")
        if not _is_float(p):
            if namespace_of(t) in (None, np) and np.any(np.asarray(t) != 0):
                # (another library's tangent is not read: that would compute it)
                raise ValueError(f"jvp: {where} is not zero, but its primal is not floating "
                                 "point (its tangent is always zero); pass None for it")
            continue
        if is_complex(t) and not is_complex(p):
            raise TypeError(f"jvp: {where} is complex, but complex numbers are not "
                            "supported yet (its primal is real)")
        if shape_of(t) != shape_of(p):
            raise ValueError(f"jvp: {where} has shape {shape_of(t)}, but its primal has "
                             f"shape {shape_of(p)}")
        wrt.append(k)
    per_fn = _JVP_CACHE.setdefault(fn, {})
    key = _key((flat.key, tuple(wrt)) if spec is None else (flat.key, tuple(wrt), spec), ns)
    g = per_fn.get(key)
    if g is None:
        g = per_fn[key] = GradFunction(flat.fn, tuple(wrt), "jvp", False, Options(), spec,
                                       None, ns)
    return flat, dots, g


def _key(key: tuple[Any, ...], ns: Any) -> tuple[Any, ...]:
    """A products cache key with the chosen backend (unchanged when there is none)."""
    return key if ns is None else (*key, ns)


_JVP_CACHE: weakref.WeakKeyDictionary[Callable[..., Any], dict[Any, GradFunction[...]]] = \
    weakref.WeakKeyDictionary()


def jacrev(fn: Callable[P, Any], wrt: Wrt | None = None, *, argnums: Wrt | None = None,
           static_argnums: Any = None, static_argnames: Any = None,
           dynamic_argnums: Any = None, dynamic_argnames: Any = None,
           backend: Any = None, device: Any = None) -> Callable[P, Any]:
    """The Jacobian of ``fn`` with respect to argument(s) ``wrt`` (positions or names;
    ``argnums`` is JAX's name for it), by reverse mode: one primal run, then one generated
    backward call per output element.

    For an array output and one array argument the result has shape
    ``out.shape + x.shape``.  As in JAX, a tuple ``wrt`` gives a tuple (one Jacobian per
    argument), a structured argument a Jacobian of that structure, and a structured
    output that structure of those (the output's structure outside, the argument's
    inside).  ``static_argnums``/``static_argnames`` and ``dynamic_argnums``/
    ``dynamic_argnames`` are ``grad``'s (compile-time constants; runtime ints), and so are
    ``backend=``/``device=`` (the array library; arrays of another are an error).
    """
    fn = library_caller(fn) or fn  # st.jacrev(np.sin): see library_callers
    wrt = _wrt(fn, wrt, argnums, "jacrev")
    argspec = ArgSpec.make(static_argnums, static_argnames, dynamic_argnums, dynamic_argnames)
    ns = chosen_backend(backend, device)

    def jacobian_fn(*args: Any) -> Any:
        args = _bound(fn, args, "jacrev")
        positions, single = _positions(fn, wrt, args, "jacrev", argspec)
        out, pullback = _vjp(fn, args, argspec, ns)
        outs, spec = trees.flatten(out)  # a list built in a loop: one block per item
        arg_specs = [trees.flatten(args[p])[1] for p in positions]
        # per_out[k][q]: d(output leaf k) / d(leaf q of the wrt arguments), row by row
        per_out = []
        for k, o in enumerate(outs):
            rows: list[list[Any]] = []
            for e in range(size_of(o, "jacrev: the output")):
                cts: list[Any] = [None] * len(outs)
                cts[k] = basis(o, e, ns)
                grads = pullback(trees.unflatten(spec, cts))
                rows.append([g for p, aspec in zip(positions, arg_specs)
                             for g in trees.leaves_like(aspec, grads[p], "")])
            per_out.append([assemble([r[q] for r in rows], shape_of(o), x, 0, ns)
                            for q, x in enumerate(_wrt_leaves(args, positions))])
        return _nest(spec, per_out, arg_specs, single)

    def explain(*args: Any) -> str:
        args = _bound(fn, args, "jacrev")
        _positions(fn, wrt, args, "jacrev", argspec)
        flat, _, g = _vjp_function(fn, args, argspec, ns)
        return "jacrev: " + g.explain(*flat.leaves)

    def cache_info() -> CacheInfo:
        return merge_info(f"jacrev of {getattr(fn, '__qualname__', fn)}",
                          [g.cache_info() for g in _VJP_CACHE.get(fn, {}).values()])

    return _composes(_named(jacobian_fn, fn, "jacrev", explain, cache_info), "jacrev", fn,
                     wrt, argspec, ns)


def jacfwd(fn: Callable[P, Any], wrt: Wrt | None = None, *, argnums: Wrt | None = None,
           static_argnums: Any = None, static_argnames: Any = None,
           dynamic_argnums: Any = None, dynamic_argnames: Any = None,
           backend: Any = None, device: Any = None) -> Callable[P, Any]:
    """The Jacobian of ``fn`` with respect to argument(s) ``wrt``, by forward mode: one
    generated tangent run per input element (cheaper than ``jacrev`` for few inputs).
    Shapes, structures, static/dynamic arguments and ``backend=``/``device=`` as for
    ``jacrev``."""
    fn = library_caller(fn) or fn  # st.jacfwd(np.sin): see library_callers
    wrt = _wrt(fn, wrt, argnums, "jacfwd")
    argspec = ArgSpec.make(static_argnums, static_argnames, dynamic_argnums, dynamic_argnames)
    ns = chosen_backend(backend, device)

    def jacobian_fn(*args: Any) -> Any:
        args = _bound(fn, args, "jacfwd")
        positions, single = _positions(fn, wrt, args, "jacfwd", argspec)
        for p in positions:  # (a size known only once computed: said before compiling)
            for x in trees.flatten(args[p])[0]:
                size_of(x, f"jacfwd: argument {p}")
        if _has_effects(fn, args, positions, argspec, ns):  # one tangent run per column
            # would run them once per column (and draw anew): one primal run, then pullbacks
            return jacrev(fn, wrt, static_argnums=static_argnums,
                          static_argnames=static_argnames, dynamic_argnums=dynamic_argnums,
                          dynamic_argnames=dynamic_argnames, backend=ns)(*args)
        arg_specs = [trees.flatten(args[p])[1] for p in positions]
        xs = _wrt_leaves(args, positions)
        spec: Any = None
        cols_of: list[list[list[Any]]] = []  # [leaf q][column] -> the output tangent leaves
        for p, aspec in zip(positions, arg_specs):
            leaves = trees.flatten(args[p])[0]
            for j, x in enumerate(leaves):
                cols: list[list[Any]] = []
                for e in range(size_of(x, "jacfwd: an argument") if _is_float(x) else 0):
                    dots: list[Any] = [None] * len(leaves)
                    dots[j] = basis(x, e, ns)
                    tangents: list[Any] = [None] * len(args)
                    tangents[p] = trees.unflatten(aspec, dots)
                    out, out_dot = _jvp(fn, args, tangents, argspec, ns)
                    got, spec = trees.flatten(out_dot)
                    cols.append(got)
                cols_of.append(cols)
        if spec is None:  # no column: the structure of the output from one primal run
            out, _ = _jvp(fn, args, [None] * len(args), argspec, ns)
            spec = trees.flatten(out)[1]
        outs = trees.leaves_like(spec, out, "the output", none_is_leaf=False)
        per_out = [[assemble([c[k] for c in cols_of[q]], shape_of(o), x, -1, ns)
                    for q, x in enumerate(xs)] for k, o in enumerate(outs)]
        return _nest(spec, per_out, arg_specs, single)

    def explain(*args: Any) -> str:
        args = _bound(fn, args, "jacfwd")
        positions, _ = _positions(fn, wrt, args, "jacfwd", argspec)
        tangents: list[Any] = [None] * len(args)
        leaves, aspec = trees.flatten(args[positions[0]])
        first = next(j for j, x in enumerate(leaves) if _is_float(x))
        tangents[positions[0]] = trees.unflatten(aspec, [
            basis(x, 0, ns) if j == first else None for j, x in enumerate(leaves)])
        flat, dots, g = _jvp_function(fn, args, tangents, argspec, ns)
        return "jacfwd (first column): " + g.explain(
            *flat.leaves, *(dots[k] for k in cast("tuple[int, ...]", g._wrt_spec)))

    def cache_info() -> CacheInfo:
        return merge_info(f"jacfwd of {getattr(fn, '__qualname__', fn)}",
                          [g.cache_info() for g in _JVP_CACHE.get(fn, {}).values()])

    return _composes(_named(jacobian_fn, fn, "jacfwd", explain, cache_info), "jacfwd", fn,
                     wrt, argspec, ns)


def _has_effects(fn: Callable[..., Any], args: Any, positions: Any,
                 argspec: ArgSpec | None, ns: Any = None) -> bool:
    """Whether the compiled tangent function of ``fn`` runs effects (a print, a random
    draw, a registered inactive function): compiled for the first column, not run."""
    from .transforms.effects_graph import has_effect  # noqa: PLC0415

    tangents: list[Any] = [None] * len(args)
    for p in positions:
        leaves, aspec = trees.flatten(args[p])
        floats = [j for j, x in enumerate(leaves) if _is_float(x)]
        if floats:
            tangents[p] = trees.unflatten(aspec, [
                basis(x, 0, ns) if j == floats[0] else None for j, x in enumerate(leaves)])
            break
    else:
        return False
    flat, dots, g = _jvp_function(fn, args, tangents, argspec, ns)
    try:
        joint = g.compile(*flat.leaves, *(dots[k] for k in cast(
            "tuple[int, ...]", g._wrt_spec))).compiled.joint
    except StAutodiffError as exc:  # (a BackendError, say: the user's, not a trace of ours)
        raise exc.with_traceback(None) from None
    return joint is not None and any(has_effect(n) for n in joint.nodes)


#: ``jacobian`` is ``jacrev``, as in JAX.
jacobian = jacrev


def hessian(fn: Callable[P, Any], wrt: Wrt | None = None, *, argnums: Wrt | None = None,
            mode: str = "forward", static_argnums: Any = None, static_argnames: Any = None,
            dynamic_argnums: Any = None, dynamic_argnames: Any = None,
            backend: Any = None, device: Any = None) -> Callable[P, Any]:
    """The Hessian of a scalar ``fn`` with respect to argument(s) ``wrt`` (positions or
    names; ``argnums`` is JAX's name for it): the Jacobian of the compiled gradient, whose
    generated code the compiler differentiates again.  For one array argument the result
    has shape ``x.shape + x.shape``; a tuple ``wrt`` gives a tuple of tuples, ``H[i][j]``
    of shape ``x_i.shape + x_j.shape`` (JAX's convention; a pytree argument ``i`` nests
    as JAX does: ``H[i]`` has its structure, each leaf a tuple over ``j``).

    ``mode="forward"`` (the default, JAX's ``jacfwd(grad(f))``) is forward over reverse:
    one generated tangent run of the gradient per element of ``x``, and the tangent sweep
    costs about as much as the gradient itself.  ``mode="reverse"`` is reverse over
    reverse (``jacrev(grad(f))``): one primal run, then one generated backward run of the
    gradient's adjoint per element of ``x``.  Static and dynamic arguments, and
    ``backend=``/``device=``, as for ``grad``.
    """
    fn = library_caller(fn) or fn  # st.hessian(np.sin): see library_callers
    wrt = _wrt(fn, wrt, argnums, "hessian")
    argspec = ArgSpec.make(static_argnums, static_argnames, dynamic_argnums, dynamic_argnames)
    ns = chosen_backend(backend, device)
    g = grad(fn, wrt=wrt, static_argnums=static_argnums, static_argnames=static_argnames,
             dynamic_argnums=dynamic_argnums, dynamic_argnames=dynamic_argnames, backend=ns)
    if mode in ("forward", "reverse"):
        jac = (jacfwd if mode == "forward" else jacrev)(g, wrt=wrt, backend=ns)
        plain = static_argnums is None and static_argnames is None and \
            dynamic_argnums is None and dynamic_argnames is None

        def hessian_fn(*args: Any) -> Any:
            if plain and any(_is_tree(a) for a in args):  # pytrees: of fn of their leaves
                args = _bound(fn, args, "hessian")
                positions, single = _positions(fn, wrt, args, "hessian")
                return tree_hessian(fn, args, positions, single, mode, ns)
            return jac(*args)

        named = _named(hessian_fn, fn, "hessian", jac.explain,  # type: ignore[attr-defined]
                       jac.cache_info)  # type: ignore[attr-defined]
        # differentiated again: the Jacobian of the gradient g (argspec: g's own)
        return _composes(named, "hessian", g, wrt, None if plain else argspec, ns,
                         shown=fn)
    raise ValueError(f"hessian: mode must be 'forward' or 'reverse', got {mode!r}")


def hvp(fn: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any], *,
        mode: str = "forward", backend: Any = None, device: Any = None) -> Any:
    """The Hessian-vector product of a scalar ``fn``: the derivative of its gradient with
    respect to the first argument along ``tangents``.  With a tangent for the first
    argument only, that is ``H(primals) @ tangents[0]``.

    ``mode="forward"`` is JAX's ``jvp(grad(f), primals, tangents)[1]``: one generated
    tangent run of the gradient (tangents of the other arguments, when given, move them
    too).  ``mode="reverse"`` is one pullback of the gradient (the Hessian is symmetric,
    so its VJP is its JVP); it takes a tangent for the first argument only.
    ``backend=``/``device=`` as for ``grad``.
    """
    fn = library_caller(fn) or fn  # st.hvp(np.sin): see library_callers
    primals, tangents = tuple(primals), tuple(tangents)
    ns = chosen_backend(backend, device)
    g = _grad_of(fn, ns)
    if mode == "forward":
        return jvp(g, primals, tangents, backend=ns)[1]
    if mode == "reverse":
        if any(t is not None for t in tangents[1:]):
            raise ValueError("hvp(mode='reverse') takes a tangent for the first argument "
                             "only; pass None for the others, or use mode='forward'")
        _, pullback = vjp(g, *primals, backend=ns)
        return pullback(tangents[0])[0]
    raise ValueError(f"hvp: mode must be 'forward' or 'reverse', got {mode!r}")


def _grad_of(fn: Callable[..., Any], ns: Any = None) -> GradFunction[...]:
    """``grad(fn, backend=ns)``, made once per function and backend (so repeated ``hvp``
    calls compile once)."""
    per_fn = _GRAD_CACHE.setdefault(fn, {})
    g = per_fn.get(ns)
    if g is None:
        g = per_fn[ns] = grad(fn, backend=ns)
    return g


_GRAD_CACHE: weakref.WeakKeyDictionary[Callable[..., Any], dict[Any, GradFunction[...]]] = \
    weakref.WeakKeyDictionary()


def _bound(fn: Callable[..., Any], args: tuple[Any, ...], who: str) -> tuple[Any, ...]:
    """``args`` with the positional parameters left out taking their defaults (so that
    ``wrt`` positions index them); keyword-only ones keep theirs inside the call."""
    if isinstance(fn, GradFunction):
        return tuple(args)
    try:
        sig = inspect.signature(fn)
        sig.bind(*args)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{who} of {getattr(fn, '__name__', fn)}: {exc}") from None
    positional = [p for p in sig.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    rest = [p.default for p in positional[len(args):]]
    if any(d is inspect.Parameter.empty for d in rest):
        return tuple(args)  # (bind said yes: cannot happen)
    return tuple(args) + tuple(rest)


class _Flat:
    """The arguments of a call as one flat list of leaves (arrays, floats, ints ...), and
    ``fn`` as a function of those leaves: structured arguments (tuples, lists and dicts,
    nested) become one argument of the generated code per leaf."""

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...], who: str) -> None:
        self.name = getattr(fn, "__name__", repr(fn))
        self.specs: list[Any] = []
        self.offsets: list[int] = []
        self.leaves: list[Any] = []
        for a in args:  # an argument None stays one (static) argument
            leaves, spec = ([None], 0) if a is None else trees.flatten(a)
            self.specs.append(spec)
            self.offsets.append(len(self.leaves))
            self.leaves += leaves
        structured = any(trees.is_container(a) for a in args)
        self.key: Any = repr(self.specs) if structured else None
        self.fn = _flat_function(fn, self.specs, who) if structured else fn

    def span(self, i: int) -> range:
        """The positions in ``leaves`` of argument ``i``'s leaves."""
        end = self.offsets[i + 1] if i + 1 < len(self.offsets) else len(self.leaves)
        return range(self.offsets[i], end)

    def unflatten(self, leaves: list[Any]) -> tuple[Any, ...]:
        """One value per argument, each in that argument's structure."""
        return tuple(trees.unflatten(s, leaves[o:]) for s, o in zip(self.specs, self.offsets))

    def describe(self, k: int) -> str:
        """``argument 1[0]['a']``: where leaf ``k`` sits."""
        i = max(j for j, o in enumerate(self.offsets) if o <= k)
        return f"argument {i}{trees.path(self.specs[i], k - self.offsets[i])}"


def _flat_function(fn: Callable[..., Any], specs: list[Any], who: str) -> Any:
    """A generated Python function of the leaves that rebuilds the structures and calls
    ``fn`` (which the compiler inlines): ``def f(xs_0, xs_1): return _st_fn([xs_0, xs_1])``."""
    key = repr(specs)
    per_fn = _FLAT_CACHE.setdefault(fn, {})
    if key in per_fn:
        return per_fn[key]
    if isinstance(fn, GradFunction):
        raise NotImplementedError(f"{who} of {fn!r}: a compiled gradient takes arrays and "
                                  "floats, not tuples, lists or dicts")
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        names = []
    taken: set[str] = {"_st_fn", "_st_arg", "_st_make"}
    params: list[str] = []

    def fresh(base: str) -> str:
        name, k = base, 1
        while name in taken:
            name, k = f"{base}_{k}", k + 1
        taken.add(name)
        return name

    consts: dict[str, Any] = {}

    def const(value: Any) -> str:
        name = fresh("_st_c")
        consts[name] = value
        return name

    def expr(spec: Any, base: str, top: bool) -> str:
        if spec is None:
            return "None"
        if isinstance(spec, Static):  # a static record field: a constant of the code
            return const(spec.value)
        if isinstance(spec, Record):  # a NamedTuple or dataclass of its fields
            fields = ", ".join(expr(c, f"{base}_{n}" if top else f"{base}_{n}", False)
                               for n, c in zip(spec.names, spec.children))
            return (f"_st_make({const(spec.cls)}, {spec.names!r}, "
                    f"({fields}{',' if len(spec.names) == 1 else ''}))")
        if isinstance(spec, int):
            params.append(fresh(base if top else f"{base}_{spec}"))
            return params[-1]
        if type(spec) is dict:
            for k in spec:
                if type(k) not in (str, int):
                    raise TypeError(f"{who}: dict keys of arguments must be strings or ints, "
                                    f"got {k!r}")
            return "{" + ", ".join(f"{k!r}: {expr(v, base, False)}"
                                   for k, v in spec.items()) + "}"
        parts = [expr(v, base, False) for v in spec]
        if type(spec) is list:
            return "[" + ", ".join(parts) + "]"
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"

    call = []
    for i, s in enumerate(specs):
        base = names[i] if i < len(names) else f"arg{i}"
        text = expr(s, base, True)
        # a rebuilt container is the caller's object: writes into it are refused
        call.append(f"_st_arg({text}, {base!r})" if not isinstance(s, int) and s is not None
                    else text)
    name = getattr(fn, "__name__", "")
    name = fresh(name if name.isidentifier() else "flat")
    source = (f"def {name}({', '.join(params)}):\n"
              f"    return _st_fn({', '.join(call)})\n")
    per_fn[key] = define(source, name, {"_st_fn": fn, "_st_arg": argument,
                                        "_st_make": make, **consts})
    return per_fn[key]


_FLAT_CACHE: weakref.WeakKeyDictionary[Callable[..., Any], dict[str, Any]] = \
    weakref.WeakKeyDictionary()


def _cotangent(ct: Any, out: Any, where: str) -> Any:
    """The seed for the output ``out``: ``ct`` checked against it (``None``: zeros)."""
    at = f" at {where}" if where else ""
    if isinstance(out, list):  # a list the function built in a loop: item by item
        if ct is None:
            ct = [None] * len(out)
        if type(ct) not in (list, tuple) or len(ct) != len(out):
            got = f"a {type(ct).__name__}" + (f" of length {len(ct)}" if isinstance(
                ct, (list, tuple)) else "")
            raise TypeError(f"vjp: the cotangent{at} is {got}, but the output{at} is a "
                            f"list of {len(out)} items; give one cotangent per item")
        return [_cotangent(c, o, f"{where}[{i}]") for i, (c, o) in enumerate(zip(ct, out))]
    if ct is None:
        return array_namespace(out).zeros_like(out) if hasattr(out, "shape") else 0.0 * out
    if shape_of(ct) != shape_of(out):
        raise ValueError(f"vjp: the cotangent{at} has shape {shape_of(ct)}, but the "
                         f"output{at} has shape {shape_of(out)}; a cotangent is shaped like "
                         "its output")
    if type(ct) in (float, int) and getattr(getattr(out, "dtype", None), "kind", None) == "f":
        # a Python number for a NumPy output: a value of the output's own kind and dtype
        # (generated code casts it with the array API's astype, which takes no Python float)
        v = array_namespace(out).asarray(ct, dtype=out.dtype)
        return v[()] if isinstance(out, np.generic) else v
    return ct


def _wrt(fn: Callable[..., Any], wrt: Wrt | None, argnums: Wrt | None, who: str) -> Any:
    """``wrt`` or JAX's ``argnums`` (not both) as an int, a name or a tuple of them."""
    if wrt is not None and argnums is not None:
        raise TypeError(f"{who}: pass wrt or argnums (JAX's name for it), not both")
    w = argnums if wrt is None else wrt
    if w is None:
        return 0
    if isinstance(w, (list, tuple)):
        w = tuple(w)
        if not w:
            raise WrtError(f"{who}: wrt is empty; name at least one argument")
    for x in w if isinstance(w, tuple) else (w,):
        if isinstance(x, bool) or not isinstance(x, (int, str)):
            raise WrtError(f"{who}: wrt must name arguments by position or name, got {x!r}")
    return w


def _positions(fn: Callable[..., Any], wrt: Any, args: tuple[Any, ...], who: str,
               argspec: ArgSpec | None = None) -> tuple[list[int], bool]:
    """The argument positions ``wrt`` names, and whether it named one (not a tuple);
    none of them may be static."""
    static = _arg_positions(fn, argspec, len(args), who)[0] if argspec else frozenset()
    single = not isinstance(wrt, tuple)
    items = [wrt] if single else list(wrt)
    names = list((fn._sig if isinstance(fn, GradFunction) else inspect.signature(fn)
                  ).parameters)
    name = getattr(fn, "__name__", fn)
    positions = []
    for w in items:
        if isinstance(w, str):
            if w not in names:
                raise WrtError(f"{who}: wrt names {w!r}, but {name}() has no such parameter "
                               f"(its parameters: {', '.join(names)})")
            w = names.index(w)
        if not -len(args) <= w < len(args):
            raise WrtError(f"{who}: wrt={w} is out of range: {name}() takes {len(args)} "
                           "arguments")
        p = w % len(args)
        if p in static:
            raise ValueError(f"{who}: cannot differentiate with respect to argument {p} of "
                             f"{name}(): it is static (a compile-time constant)")
        if (bad := wrt_error(fn, p, args[p], who)) is not None:  # a function: no gradient
            raise bad
        if not any(_is_float(x) for x in trees.flatten(args[p])[0]):
            raise WrtError(f"{who}: cannot differentiate with respect to argument {p} of "
                           f"{name}(): it holds no floating-point value "
                           f"({type(args[p]).__name__})")
        positions.append(p)
    return positions, single


def _wrt_leaves(args: tuple[Any, ...], positions: list[int]) -> list[Any]:
    return [x for p in positions for x in trees.flatten(args[p])[0]]


def _nest(out_spec: Any, per_out: list[list[Any]], arg_specs: list[Any], single: bool
          ) -> Any:
    """The Jacobian blocks in JAX's nesting: the output's structure outside, then the
    tuple of ``wrt`` arguments (unless one was named), then each argument's structure."""
    def for_output(blocks: list[Any]) -> Any:
        per_arg, start = [], 0
        for spec in arg_specs:
            n = len(trees.indices(spec))
            per_arg.append(trees.unflatten(spec, blocks[start:start + n]))
            start += n
        return per_arg[0] if single else tuple(per_arg)

    return trees.unflatten(out_spec, [for_output(b) for b in per_out])


def _named(wrapper: Callable[..., Any], fn: Callable[..., Any], kind: str,
           explain: Callable[..., str], cache_info: Callable[[], CacheInfo]) -> Callable[..., Any]:
    """``wrapper`` named after ``fn``, with ``explain(*args)`` and ``cache_info()`` (the
    specialisations it compiled, shared with ``st.vjp``/``st.jvp`` of the same function)."""
    wrapper.explain = explain  # type: ignore[attr-defined]
    wrapper.cache_info = cache_info  # type: ignore[attr-defined]
    wrapper.__name__ = f"{kind}_{getattr(fn, '__name__', 'function')}"
    wrapper.__qualname__ = wrapper.__name__
    wrapper.__doc__ = f"The Jacobian of {getattr(fn, '__qualname__', fn)} ({kind})."
    return wrapper


def _composes(wrapper: Callable[..., Any], kind: str, fn: Callable[..., Any], wrt: Any,
              argspec: ArgSpec | None, ns: Any, shown: Callable[..., Any] | None = None
              ) -> Callable[..., Any]:
    """``wrapper`` (a product's result) made differentiable again: called inside
    differentiated code it is read as the generated code ``product_compose`` builds
    (``st_compose``), and it has ``fn``'s signature (``st.jacfwd(st.hessian(f))`` binds
    its arguments by name)."""
    def compose(ctx: Context, args: list[Any], kwargs: dict[str, Any]) -> Any:
        return jacobian_call(ctx, kind, fn, wrt, argspec, ns, args, kwargs, shown)

    of = shown or fn
    wrapper.st_compose = compose  # type: ignore[attr-defined]
    wrapper.st_product_of = of  # type: ignore[attr-defined]
    try:  # (a GradFunction's own: inspect would read its __wrapped__, which compiles)
        wrapper.__signature__ = of._sig if isinstance(  # type: ignore[attr-defined]
            of, GradFunction) else inspect.signature(of)
    except (TypeError, ValueError):
        pass
    return wrapper


def _compose_jvp(ctx: Context, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """``st.jvp(f, primals, tangents)`` inside differentiated code."""
    if kwargs or len(args) != 3:
        raise _refusal("jvp", "st.jvp(f, primals, tangents)")
    return jvp_call(ctx, _function(ctx, args[0]), args[1], args[2])


def _compose_hvp(ctx: Context, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """``st.hvp(f, primals, tangents)`` inside differentiated code (any ``mode``: the
    same values)."""
    if set(kwargs) - {"mode"} or len(args) != 3:
        raise _refusal("hvp", "st.hvp(f, primals, tangents)")
    if kwargs.get("mode", "forward") not in ("forward", "reverse"):
        raise ValueError(f"hvp: mode must be 'forward' or 'reverse', got {kwargs['mode']!r}")
    return hvp_call(ctx, _function(ctx, args[0]), args[1], args[2])


def _compose_vjp(ctx: Context, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """``st.vjp(f, *primals)`` inside differentiated code."""
    if kwargs or not args:
        raise _refusal("vjp", "st.vjp(f, *primals)")
    return vjp_call(ctx, _function(ctx, args[0]), list(args[1:]))


def _function(ctx: Context, fn: Any) -> Any:
    """The function a product inside differentiated code is taken of (one defined inside
    the differentiated function is refused by ``ctx.example``)."""
    fn = ctx.example(fn)
    return library_caller(fn) or fn


def _refusal(who: str, form: str) -> Exception:
    from .product_compose import ComposeRefusal  # noqa: PLC0415

    return ComposeRefusal(f"{who} inside a differentiated function takes the form {form}: "
                          "keyword arguments (backend=, device=) are not supported there",
                          f"write {form}; the backend is that of the outer function")


jvp.st_compose = _compose_jvp  # type: ignore[attr-defined]
hvp.st_compose = _compose_hvp  # type: ignore[attr-defined]
vjp.st_compose = _compose_vjp  # type: ignore[attr-defined]
