"""Derivative products called inside differentiated code: how they compose, as in JAX.

``st.grad(st.grad(f))`` composes because the outer transform reads the *generated code*
of the inner gradient (``GradFunction.generated_for``) as ordinary Python.  The products
(``jvp``, ``vjp``, ``hvp``, ``jacfwd``/``jacrev``/``jacobian``, ``hessian``) are Python
wrappers around compiled gradients (``products.py``) whose own code the compiler cannot
read (caches, pytree plumbing, basis loops).  So when the compiler meets a product call
(``st.jvp(f, (x,), (v,))`` inside a loss, or ``st.hessian(f)`` differentiated by
``st.jacfwd``), it does not read the wrapper: it asks the product for *readable Python*
built from generated code, specialised on the call's example arguments, and inlines that:

* ``jvp(fn, primals, tangents)``: the generated tangent code of ``fn`` (``fn_jvp``).
* ``hvp(fn, primals, tangents)``: the same, of ``grad(fn)``, second output.
* ``vjp(fn, *primals)``: ``(fn(*primals), pullback)`` with ``pullback(ct)`` the generated
  gradient of ``sum(fn(*primals) * ct)`` (a nested ``def`` the compiler calls later).
* ``jacfwd``/``jacrev``/``jacobian``/``hessian``: one generated tangent run per element of
  each differentiated argument (a constant basis tangent), stacked.  Inside
  differentiated code every Jacobian is built by forward columns whatever its ``mode``:
  the values are the same; only the cost of the outer derivative differs.

Each piece is the compiler's own generated code, so differentiating it again needs no
rule and composes to any depth (``jacfwd(jacrev(jacfwd(f)))``).  A product differentiated
at the top level (``st.jacfwd(st.hessian(f))``) is read through ``caller``: a generated
``def hessian_f(x): return _st_fn(x)`` whose call reaches the same path.

Structured arguments (tuples, lists, dicts, NamedTuples, dataclasses) are handled as the
products handle them: the function of their leaves (``products._Flat``), its results
regrouped in the nesting the product gives at the top level.

What is refused (``ComposeRefusal``: a ``CompileError`` at the user's call, with a hint;
for a product differentiated at the top level, no line of the user's is compiled and the
error carries no place inside st_autodiff): a function defined inside the differentiated
function passed to a product, keyword arguments to a product's result, ``backend=``/
``device=`` naming another library than NumPy, a Hessian of structured arguments with
static or dynamic argnums, ``jvp`` with every tangent ``None``, and outputs other than
arrays and numbers in tuples, lists, dicts, NamedTuples or dataclasses.
"""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Callable
from typing import Any, cast

import numpy as np

from . import trees
from .custom_source import define
from .ir.namespaces import namespace_name
from .transforms import Options
from .transforms.parse import parse_function
from .trees_classes import Record, Static, make


class ComposeRefusal(Exception):
    """What a product inside differentiated code does not support; the compiler raises it
    as a located error at the user's call, with ``hint``."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint


class Context:
    """What a product needs from the compiler at the call: example values of the call's
    arguments and a way to inline a Python function (set by ``transforms/dispatch``)."""

    example: Callable[[Any], Any]
    inline: Callable[[Any, list[Any]], Any]  # (a Python function, its arguments)


_TREE_HINT = "pass the arrays of the tuple, list or dict as separate arguments"


def _seeds(fn: Any, primals: list[Any]) -> list[Any]:
    """The seeds (``out_bar=1.0``) a compiled gradient's generated code takes after its
    primals: the jvp code of a gradient takes them between primals and tangents."""
    from .api import GradFunction  # noqa: PLC0415  (api imports products, which import us)

    if not isinstance(fn, GradFunction):
        return []
    parsed = parse_function(fn.generated_for(primals))
    return [parsed.defaults[p] for p in parsed.params[len(primals):]]


def _jvp_code(fn: Any, primals: list[Any], tangents: list[Any]
              ) -> tuple[Callable[..., Any], list[Any], list[int]]:
    """The generated tangent code of ``fn`` for these example primals and tangents
    (``None``: zero), its seeds, and the positions with a tangent."""
    from .api import _is_float  # noqa: PLC0415
    from .products import _jvp_function  # noqa: PLC0415

    _, dots, g = _jvp_function(fn, primals, tangents, None)
    wrt = [k for k in cast("tuple[int, ...]", g._wrt_spec) if _is_float(primals[k])]
    code = g.generated_for([*primals, *(dots[k] for k in wrt)])
    return code, _seeds(fn, primals), wrt


def _leaves(values: list[Any]) -> list[Any]:
    """The leaves of call arguments in ``products._Flat``'s order (``None``: one leaf)."""
    out: list[Any] = []
    for v in values:
        out += [None] if v is None else trees.flatten(v)[0]
    return out


def jvp_call(ctx: Context, fn: Any, primals: Any, tangents: Any) -> Any:
    """``st.jvp(fn, primals, tangents)`` inside differentiated code: its tangent code
    (structured primals: that of ``fn`` as a function of their leaves)."""
    from .products import _jvp_function  # noqa: PLC0415

    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise ComposeRefusal("jvp inside a differentiated function: primals and tangents "
                             "must be tuples written at the call", "st.jvp(f, (x,), (v,))")
    primals, tangents = list(primals), list(tangents)
    if len(primals) != len(tangents):
        raise ComposeRefusal(f"jvp: {len(primals)} primals but {len(tangents)} tangents",
                             "give one tangent per primal")
    ex_p = [ctx.example(p) for p in primals]
    ex_t = [ctx.example(t) for t in tangents]
    if all(t is None for t in trees.flatten(ex_t)[0]):
        raise ComposeRefusal("jvp inside a differentiated function: every tangent is None",
                             "call the function itself: its tangent is zero")
    if any(trees.is_container(p) for p in ex_p):  # a function of the leaves
        flat, _, g = _jvp_function(fn, ex_p, ex_t, None)
        if flat.fn is fn:
            raise ComposeRefusal("jvp inside a differentiated function: structured "
                                 "primals of a compiled gradient", _TREE_HINT)
        dots: list[Any] = []
        for spec, t in zip(flat.specs, tangents):
            dots += trees.leaves_like(spec, t, "a tangent")
        return jvp_call(ctx, flat.fn, _leaves(primals), dots)
    code, seeds, wrt = _jvp_code(fn, ex_p, ex_t)
    return ctx.inline(code, [*primals, *seeds, *(tangents[k] for k in wrt)])


def hvp_call(ctx: Context, fn: Any, primals: Any, tangents: Any) -> Any:
    """``st.hvp(fn, primals, tangents)`` inside differentiated code: the tangent code of
    ``grad(fn)`` (forward over reverse whatever ``mode``: the same values)."""
    from .products import _grad_of  # noqa: PLC0415

    pair = jvp_call(ctx, _grad_of(fn), primals, tangents)
    if isinstance(pair, tuple) and len(pair) == 2:  # (the generated code's return)
        return pair[1]
    return ctx.inline(_SECOND, [pair])


_SECOND = define("def second(pair):\n    return pair[1]\n", "second", {})


# --- Python source of the Jacobians and of vjp --------------------------------------------

def _leaf_paths(spec: Any) -> list[str]:
    """Subscript or attribute suffixes (``[0]['a'].w``) of the leaves of an output
    structure."""
    if spec is None or isinstance(spec, int):
        return [""]
    if isinstance(spec, Static):
        return []
    if isinstance(spec, Record):
        return [f".{n}{p}" for n, c in zip(spec.names, spec.children) for p in _leaf_paths(c)]
    if type(spec) is dict:
        return [f"[{k!r}]{p}" for k, v in spec.items() for p in _leaf_paths(v)]
    if type(spec) in (tuple, list):
        return [f"[{i}]{p}" for i, v in enumerate(spec) for p in _leaf_paths(v)]
    raise ComposeRefusal(f"a product inside a differentiated function: the output is a "
                         f"{type(spec).__name__}, and only arrays, numbers and tuples, "
                         "lists, dicts, NamedTuples and dataclasses of them are supported "
                         "there", "return a tuple of arrays")


def _rebuild(spec: Any, items: list[str], ns: dict[str, Any]) -> str:
    """Source that rebuilds a structure from one expression per leaf (records through
    ``trees_classes.make``, their class and static fields constants put in ``ns``)."""
    it = iter(items)

    def const(value: Any) -> str:
        name = f"_st_k{len(ns)}"
        ns[name] = value
        return name

    def walk(s: Any) -> str:
        if s is None or isinstance(s, int):
            return next(it)
        if isinstance(s, Static):
            return const(s.value)
        if isinstance(s, Record):
            ns["_st_make"] = make
            fields = [walk(c) for c in s.children]
            return (f"_st_make({const(s.cls)}, {s.names!r}, "
                    f"({', '.join(fields)}{',' if len(fields) == 1 else ''}))")
        if type(s) is dict:
            return "{" + ", ".join(f"{k!r}: {walk(v)}" for k, v in s.items()) + "}"
        parts = [walk(v) for v in s]
        if type(s) is list:
            return "[" + ", ".join(parts) + "]"
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"

    return walk(spec)


def _out_tree(fn: Any, examples: list[Any]) -> Any:
    """The structure of ``fn``'s output at these example arguments (from its compiled
    primal: the function is not run)."""
    from .products import _vjp_function  # noqa: PLC0415
    from .transforms import Compiled  # noqa: PLC0415

    flat, _, g = _vjp_function(fn, tuple(examples), None)
    g.split(*flat.leaves)
    last: Compiled | None = g._last
    return None if last is None else last.out_tree


def _basis(x: Any, k: int) -> Any:
    """The ``k``-th basis tangent shaped like the example ``x`` (a concrete array, or an
    ``Abstract`` value known by its type): a NumPy constant of its floating dtype."""
    from .product_arrays import float_dtype, shape_of  # noqa: PLC0415

    shape = shape_of(x)
    e = np.zeros(shape, dtype=float_dtype(np, x))
    e.flat[k] = 1.0
    kind = getattr(getattr(x, "type", None), "kind", None)
    return float(e) if isinstance(x, float) or kind == "float" else e


def jacobian_code(fn: Any, positions: list[int], single: bool, examples: list[Any],
                  name: str) -> Callable[..., Any]:
    """Readable Python computing the Jacobian of ``fn`` with respect to ``positions`` at
    arguments like ``examples``: one inlined tangent run per basis tangent, stacked.  It
    takes the leaves of the arguments (``products._Flat``); blocks are nested as JAX
    nests them (the output's structure, the ``wrt`` tuple, each argument's structure)."""
    from .api import _is_float  # noqa: PLC0415
    from .product_arrays import shape_of, size_of  # noqa: PLC0415
    from .products import _Flat  # noqa: PLC0415

    flat = _Flat(fn, tuple(examples), "jacobian")
    leaf_fn, leaves = flat.fn, flat.leaves
    params = [f"a{i}" for i in range(len(leaves))]
    ns: dict[str, Any] = {"_st_np": np}
    lines: list[str] = []
    spec = _out_tree(leaf_fn, leaves)
    paths = _leaf_paths(spec)
    blocks: list[list[str]] = [[] for _ in paths]  # [output leaf] -> one block per position
    for p in positions:
        exprs: list[list[str]] = [[] for _ in paths]  # [output leaf] -> per leaf of p
        for j in flat.span(p):
            x = leaves[j]
            n = size_of(x, f"argument {p}") if _is_float(x) else 0
            if n == 0:  # (not floating point: no block, as the products give)
                for q in range(len(paths)):
                    exprs[q].append("None")
                continue
            tangents: list[Any] = [None] * len(leaves)
            tangents[j] = _basis(x, 0)
            code, seeds, _ = _jvp_code(leaf_fn, leaves, tangents)
            ns[f"_st_jvp{j}"] = code
            seed_names = []
            for s, seed in enumerate(seeds):
                ns[f"_st_seed{j}_{s}"] = seed
                seed_names.append(f"_st_seed{j}_{s}")
            cols = []
            for k in range(n):
                ns[f"_st_e{j}_{k}"] = _basis(x, k)
                cols.append(f"_st_c{j}_{k}")
                call = ", ".join([*params, *seed_names, f"_st_e{j}_{k}"])
                lines.append(f"    _st_c{j}_{k} = _st_jvp{j}({call})[1]")
            xshape = repr(tuple(int(d) for d in shape_of(x)))
            for q, path in enumerate(paths):
                stacked = ", ".join(f"{c}{path}" for c in cols)
                exprs[q].append(f"_st_np.reshape(_st_np.stack([{stacked}], axis=-1), "
                                f"_st_np.shape({cols[0]}{path}) + {xshape})")
        for q in range(len(paths)):
            blocks[q].append(_rebuild(trees.renumber(flat.specs[p]), exprs[q], ns))
    per_leaf = [b[0] if single else "(" + ", ".join(b) + ("," if len(b) == 1 else "") + ")"
                for b in blocks]
    source = (f"def {name}({', '.join(params)}):\n" + "\n".join(lines) + "\n"
              f"    return {_rebuild(spec, per_leaf, ns)}\n")
    return define(source, name, ns)


def jacobian_call(ctx: Context, kind: str, fn: Any, wrt: Any, argspec: Any, ns: Any,
                  args: list[Any], kwargs: dict[str, Any], user: Any = None) -> Any:
    """A call of ``jacfwd``/``jacrev``/``hessian(fn, wrt)``'s result inside
    differentiated code (``fn``: for ``hessian``, the compiled gradient of ``user``).
    Static and dynamic argnums only key the specialisation: inside generated code a
    static argument is a compile-time value already."""
    from .products import _bound, _positions  # noqa: PLC0415

    if kwargs:
        raise ComposeRefusal(f"{kind} inside a differentiated function: keyword arguments "
                             f"to the {kind} of a function are not supported there",
                             "pass the arguments positionally")
    if ns is not None and namespace_name(ns) != "numpy":
        raise ComposeRefusal(f"{kind} inside a differentiated function: backend=/device= "
                             f"({namespace_name(ns)}) is not supported there",
                             f"make the {kind} without it: the code runs on the backend of "
                             "the function being differentiated")
    args = list(_bound(fn, tuple(args), kind))
    examples = [ctx.example(a) for a in args]
    positions, single = _positions(fn, wrt, tuple(examples), kind, argspec)
    # (built at each compilation, not cached: the generated pieces it calls come from
    # the compiled functions' own caches, which check their guards (a global changed))
    name = f"{kind}_{getattr(user or fn, '__name__', 'f')}"
    name = name if name.isidentifier() else kind
    if kind == "hessian" and any(trees.is_container(a) for a in examples):
        if argspec is not None:  # (of the user's function of the leaves)
            raise ComposeRefusal("hessian inside a differentiated function: tuple, list "
                                 "or dict arguments with static or dynamic argnums are "
                                 "not supported there", _TREE_HINT)
        code = hessian_tree_code(user, positions, single, examples, name)
    else:
        code = jacobian_code(fn, positions, single, examples, name)
    return ctx.inline(code, _leaves(args))


def hessian_tree_code(fn: Any, positions: list[int], single: bool, examples: list[Any],
                      name: str) -> Callable[..., Any]:
    """Readable Python for the Hessian of ``fn`` at structured arguments like
    ``examples``: the Jacobian (``jacobian_code``) of the gradient of ``fn`` as a function
    of its leaves, regrouped as ``hessian_trees.tree_hessian`` nests it at the top level
    (for a tuple ``wrt``: ``H[i]`` in argument ``i``'s structure, each leaf a tuple over
    ``j`` of argument ``j``'s structure of blocks, as JAX nests it),
    so a Hessian has the same structure inside differentiated code as outside."""
    from .api import _is_float, grad  # noqa: PLC0415
    from .products import _Flat  # noqa: PLC0415

    flat = _Flat(fn, tuple(examples), "hessian")
    leaves = flat.leaves
    wrt = [k for p in positions for k in flat.span(p) if _is_float(leaves[k])]
    index = {k: q for q, k in enumerate(wrt)}
    ns: dict[str, Any] = {}
    g = grad(flat.fn, wrt=tuple(wrt))
    jac = jacobian_code(g, wrt, False, list(leaves), f"{name}_leaves")

    def row(k: int, q: int) -> str:
        """Argument ``q``'s structure of the blocks of leaf ``k``."""
        if k not in index:
            return "None"
        return _rebuild(trees.renumber(flat.specs[q]),
                        [f"_st_h[{index[k]}][{index[m]}]" if m in index else "None"
                         for m in flat.span(q)], ns)

    def tup(parts: list[str]) -> str:
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"

    def nested(p: int) -> str:
        """Argument ``p``'s structure; each leaf a tuple over the arguments (JAX's)."""
        return _rebuild(trees.renumber(flat.specs[p]), [
            "None" if k not in index else tup([row(k, q) for q in positions])
            for k in flat.span(p)], ns)

    p0 = positions[0]
    result = _rebuild(trees.renumber(flat.specs[p0]), [row(k, p0) for k in flat.span(p0)],
                      ns) if single else tup([nested(p) for p in positions])
    params = [f"a{i}" for i in range(len(leaves))]
    source = (f"def {name}({', '.join(params)}):\n"
              f"    _st_h = _st_jac({', '.join(params)})\n"
              f"    return {result}\n")
    ns["_st_jac"] = jac
    return define(source, name, ns)


def vjp_call(ctx: Context, fn: Any, primals: list[Any]) -> Any:
    """``st.vjp(fn, *primals)`` inside differentiated code: ``(out, pullback)`` with
    ``pullback(ct)`` the generated gradient of ``sum(fn(*primals) * ct)`` (structured
    primals: of ``fn`` as a function of their leaves, regrouped)."""
    from .api import GradFunction, _is_float  # noqa: PLC0415
    from .products import _Flat  # noqa: PLC0415

    flat = _Flat(fn, tuple(ctx.example(p) for p in primals), "vjp")
    leaf_fn, examples = flat.fn, flat.leaves
    floats = tuple(k for k, x in enumerate(examples) if _is_float(x))
    if not floats:
        raise ComposeRefusal("vjp: no floating-point argument to differentiate",
                             "pass a float array")
    spec = _out_tree(leaf_fn, examples)
    paths = _leaf_paths(spec)
    params = [f"a{i}" for i in range(len(examples))]
    cts = [f"_st_ct{q}" for q in range(len(paths))]
    name = f"vjp_{getattr(fn, '__name__', 'f')}"
    name = name if name.isidentifier() else "vjp_f"
    dot_terms = " + ".join(f"_st_np.sum(_st_out{p} * {c})" for p, c in zip(paths, cts))
    dot = define(f"def {name}_dot({', '.join(params + cts)}):\n"
                 f"    _st_out = _st_fn({', '.join(params)})\n"
                 f"    return {dot_terms}\n", f"{name}_dot",
                 {"_st_fn": leaf_fn, "_st_np": np})
    ct_ex = _output_examples(leaf_fn, examples)
    g: GradFunction[...] = GradFunction(dot, floats, "grad", False, Options())
    code = g.generated_for([*examples, *ct_ex])
    grads = ["None"] * len(examples)
    for j, k in enumerate(floats):
        grads[k] = f"_st_g[{j}]"
    ns: dict[str, Any] = {"_st_fn": leaf_fn, "_st_grad": code}
    per_arg = [_rebuild(trees.renumber(sp), [grads[k] for k in flat.span(i)], ns)
               for i, sp in enumerate(flat.specs)]
    source = (f"def {name}({', '.join(params)}):\n"
              f"    def pullback(_st_cotangent):\n"
              + "".join(f"        {c} = _st_cotangent{p}\n" for p, c in zip(paths, cts))
              + f"        _st_g = _st_grad({', '.join(params + cts)})\n"
              f"        return ({', '.join(per_arg)},)\n"
              f"    return _st_fn({', '.join(params)}), pullback\n")
    wrapper = define(source, name, ns)
    return ctx.inline(wrapper, _leaves(list(primals)))


def _output_examples(fn: Any, examples: list[Any]) -> list[Any]:
    """Zeros like each output leaf of ``fn`` at the example arguments (from the types of
    its compiled primal's outputs: the function is not run)."""
    from .products import _vjp_function  # noqa: PLC0415

    flat, _, g = _vjp_function(fn, tuple(examples), None)
    g.split(*flat.leaves)
    last = g._last
    out: list[Any] = []
    for node in last.primal.outputs if last is not None and last.primal is not None else ():
        t = node.type
        if t is None or t.kind == "float":
            out.append(0.0)
            continue
        if t.shape is None or t.dtype is None:
            raise ComposeRefusal("vjp inside a differentiated function: the shape of the "
                                 "output is not known when compiling",
                                 "call the function outside, or use st.grad of a sum")
        out.append(np.zeros(t.shape, dtype=np.result_type(np.dtype(t.dtype), np.float32)))
    return out


# --- a product differentiated at the top level --------------------------------------------

def caller(product: Callable[..., Any], fn: Callable[..., Any]) -> Callable[..., Any]:
    """``def NAME(x, y): return _st_fn(x, y)`` with ``fn``'s positional parameters, for a
    product's result ``product`` of ``fn`` differentiated again: the compiler reads this
    and meets the product call, which composes (``st.jacfwd(st.hessian(f))``)."""
    got = _CALLERS.get(product)
    if got is not None:
        return got
    from .api import GradFunction  # noqa: PLC0415

    try:  # (a GradFunction's own: inspect would read its __wrapped__, which compiles)
        sig = fn._sig if isinstance(fn, GradFunction) else inspect.signature(fn)
    except (TypeError, ValueError):
        sig = None
    params = list(sig.parameters.values()) if sig is not None else []
    if sig is None or any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                          for p in params):
        return product  # (read as it is: the compiler's refusal names it)
    names = [p.name for p in params]
    if any(n.startswith("_st_") for n in names):
        names = [f"x{i}" for i in range(len(names))]
    name = getattr(product, "__name__", "product")
    name = name if name.isidentifier() else "product"
    made = define(f"def {name}({', '.join(names)}):\n"
                  f"    return _st_fn({', '.join(names)})\n", name, {"_st_fn": product})
    made.__defaults__ = tuple(p.default for p in params if p.default is not p.empty) or None
    _CALLERS[product] = made
    return made


_CALLERS: weakref.WeakKeyDictionary[Any, Callable[..., Any]] = weakref.WeakKeyDictionary()
