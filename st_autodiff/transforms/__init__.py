"""The compiler: a straight line of passes from a Python function to a loaded adjoint.

parse -> lower -> activity -> adjoint -> optimize -> codegen -> load.  Each pass is a
plain function in its own module; ``compile_function`` calls them in order, keeps each
stage's printed form, and runs the IR verifier after every pass when asked.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import trees
from ..errors import NonScalarOutputError, WrtError
from ..ir.graph import Graph
from ..ir.printer import print_graph
from ..ir.verify import verify
from .activity import active_nodes
from .adjoint import adjoint
from .callable_args import refuse_wrt as _refuse_callable_wrt
from .codegen import Generated, generate, generate_split
from .depth import deep_recursion
from .forward import forward
from .load import load
from .lower import Lowerer, lower
from .optimize import optimize
from .parse import ParsedFunction

log = logging.getLogger("st_autodiff")

STAGES = ("parse", "lower", "activity", "adjoint", "optimize", "codegen")


@dataclass(frozen=True)
class Options:
    """Everything that changes generated code (part of the cache key)."""

    optimize: bool = True
    verify: bool = False
    dump: tuple[str, ...] = ()
    functional: bool = False  # code the compiler accepts again (higher derivatives)


@dataclass(frozen=True)
class Request:
    """What to build: which arguments, and what the generated function returns."""

    wrt: tuple[int, ...]
    single: bool  # grad returns one gradient rather than a tuple
    mode: str = "grad"  # grad | value_and_grad | vjp | jvp
    has_aux: bool = False
    split: bool = False  # generate NAME_fwd and NAME_bwd instead of one function


@dataclass
class Compiled:
    """A loaded adjoint with every stage's printed form."""

    fn: Callable[..., Any] | None
    generated: Generated
    stages: Mapping[str, str] = field(default_factory=dict)
    primal: Graph | None = None
    joint: Graph | None = None
    fwd: Callable[..., Any] | None = None  # split mode: (outputs, residuals)
    bwd: Callable[..., Any] | None = None  # split mode: (*residuals, out_bar) -> gradients
    out_tree: Any = None  # what the function returns (a ``trees`` spec over its outputs)
    guards: Any = None  # what lowering read from outside the arguments (guards.Guards)
    # `a is b` between arguments: (i, j, answer), checked per call
    same_args: tuple[tuple[int, int, bool], ...] = ()


def compile_function(parsed: ParsedFunction, make_resolver: Callable[[Lowerer], Any],
                     example_args: list[Any] | None, req: Request, options: Options,
                     xp: Any = None, rt: Any = None, code: Any = None) -> Compiled:
    """Run every pass; ``xp``/``rt`` None means "generate but do not load" (the CLI).

    With room for recursion as deep as the user's longest expression (``depth``)."""
    with deep_recursion(parsed.module.loc(parsed.node)):
        return _compile_function(parsed, make_resolver, example_args, req, options, xp, rt,
                                 code)


def _compile_function(parsed: ParsedFunction, make_resolver: Callable[[Lowerer], Any],
                      example_args: list[Any] | None, req: Request, options: Options,
                      xp: Any, rt: Any, code: Any) -> Compiled:
    stages = Stages()
    stages["parse"] = lambda: parsed.module.tree.code_for_node(parsed.node)
    _refuse_callable_wrt(parsed, example_args, req.wrt)  # (a function: no gradient)
    # [dask part, issue 15] lazy (Dask) arguments: shapes known, no branch on their data
    from .lazy_conditions import check_lazy_conditions, check_lazy_shapes  # noqa: PLC0415
    check_lazy_shapes(parsed, example_args)
    low = lower(parsed, example_args, make_resolver, code=code)
    _check(low.graph, options, stages, "lower")
    check_lazy_conditions(low.graph, [s[0] for s in parsed.slots], example_args)
    if req.mode == "jvp":
        return _compile_jvp(parsed, low, example_args, req, options, stages, xp, rt)
    tree = out_tree(low)
    _check_request(low.graph, parsed, req, low.values, tree)
    # vjp seeds every output (its cotangent has the output's structure); grad the first
    seeded = range(len(low.graph.outputs)) if req.mode == "vjp" else 0
    active = active_nodes(low.graph, req.wrt, seeded)
    stages["activity"] = lambda: "active: " + ", ".join(
        f"%{n.name or n.id}" for n in low.graph.nodes if n in active) + "\n"
    joint = adjoint(low, active, req.wrt, seed_like_output=req.mode == "vjp")
    _check(joint.graph, options, stages, "adjoint")
    examples = [joint.values.get(a) for a in joint.graph.args]
    spec = _returns(low.graph, req, tree)
    graph = joint.graph if req.split else _only_returned(joint.graph, spec)
    if not req.split:  # outputs that are not returned (grad's value) are dead code
        spec = trees.renumber(spec)
    opt = optimize(graph, options.optimize, examples if example_args is not None else None)
    _check(opt, options, stages, "optimize")
    name = f"{parsed.name.strip('<>')}_grad"
    # parameters that had literal defaults keep them (a re-transformed gradient's seeds)
    # (the generated function is always called with every argument, in the canonical
    # order of ``ParsedFunction.slots``: defaults there are documentation and seeds)
    defaults = {p: repr(v) for p, v in parsed.defaults.items() if p in parsed.params and (
        isinstance(v, (bool, int, str, type(None))) or type(v) is float and math.isfinite(v))}
    if req.mode != "vjp":
        defaults["out_bar"] = "1.0"
    if req.split:
        fgen, bgen = generate_split(opt, tree, spec, name, defaults)
        stages["codegen"] = fgen.source + "\n\n" + bgen.source
        _log(options, parsed, stages)
        if xp is None:
            return Compiled(None, fgen, stages, low.graph, opt, out_tree=tree)
        return Compiled(None, bgen, stages, low.graph, opt, load(fgen, xp, rt),
                        load(bgen, xp, rt), out_tree=tree)
    gen = generate(opt, spec, name, defaults, options.functional)
    stages["codegen"] = gen.source
    _log(options, parsed, stages)
    fn = load(gen, xp, rt) if xp is not None else None
    return Compiled(fn, gen, stages, low.graph, opt, out_tree=tree)


def _compile_jvp(parsed: ParsedFunction, low: Any, example_args: list[Any] | None,
                 req: Request, options: Options, stages: Stages, xp: Any, rt: Any
                 ) -> Compiled:
    """Forward mode: ``NAME_jvp(*args, *tangents) -> (out, out_dot)``, ``out_dot`` the
    tangent of every output, in the structure of ``out`` (JAX's convention)."""
    n = len(parsed.params)
    tangents = example_args[n:] if example_args is not None else None
    joint = forward(low, req.wrt, tangents)
    _check(joint.graph, options, stages, "forward")
    examples = [joint.values.get(a) for a in joint.graph.args]
    opt = optimize(joint.graph, options.optimize, examples if example_args is not None else None)
    _check(opt, options, stages, "optimize")
    tree = out_tree(low)
    spec = (tree, trees.shift(tree, len(low.graph.outputs)))
    gen = generate(opt, spec, f"{parsed.name.strip('<>')}_jvp")
    stages["codegen"] = gen.source
    _log(options, parsed, stages)
    fn = load(gen, xp, rt) if xp is not None else None
    return Compiled(fn, gen, stages, low.graph, opt, out_tree=tree)


def _log(options: Options, parsed: ParsedFunction, stages: Mapping[str, str]) -> None:
    for stage in options.dump:
        log.info("st_autodiff %s of %s:\n%s", stage, parsed.name, stages.get(stage, ""))


class Stages(Mapping[str, str]):
    """Each pass's printed output, printed only when read (printing costs compile time)."""

    def __init__(self) -> None:
        self._made: dict[str, Callable[[], str]] = {}
        self._text: dict[str, str] = {}

    def __setitem__(self, name: str, value: str | Callable[[], str]) -> None:
        if callable(value):
            self._made[name] = value
        else:
            self._text[name] = value
            self._made[name] = lambda: value

    def __getitem__(self, name: str) -> str:
        if name not in self._text:
            self._text[name] = self._made[name]()
        return self._text[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._made)

    def __len__(self) -> int:
        return len(self._made)


def _check(graph: Graph, options: Options, stages: Stages, name: str) -> None:
    if options.verify:
        verify(graph)
    stages[name] = lambda: print_graph(graph)


def _check_request(graph: Graph, parsed: ParsedFunction, req: Request,
                   values: dict[Any, Any], tree: Any) -> None:
    aux_shaped = isinstance(tree, tuple) and len(tree) > 1 and isinstance(tree[0], int)
    if req.mode != "vjp" and not isinstance(tree, int) and not (req.has_aux and aux_shaped):
        what = (f"{len(graph.outputs)} values" if len(graph.outputs) > 1 else
                f"a {type(tree).__name__}")
        raise NonScalarOutputError(
            f"{parsed.name}() returns {what}; grad needs one scalar",
            graph.outputs[0].loc or parsed.loc(parsed.node),
            "return only the loss, or pass has_aux=True to return (loss, aux) like JAX"
            if not req.has_aux else "with has_aux=True return a pair (loss, aux)")
    out = graph.outputs[0]
    t = out.type
    scalar = t is None or t.is_scalar or (  # an unknown shape (sum of a list empty for
        t.shape is None and np.ndim(values.get(out, 0.0)) == 0)  # the example): its value
    if req.mode != "vjp" and not scalar:
        assert t is not None  # (an unknown type counts as scalar)
        raise NonScalarOutputError(
            f"grad needs a scalar output, but {parsed.name}() returns an array of shape "
            f"{t.shape}", out.loc or parsed.loc(parsed.node),
            "reduce it (e.g. .sum() or .mean()), or use st.vjp for vector outputs")
    names = parsed.params
    for i in req.wrt:
        at = graph.args[i].type
        if at is not None and not at.is_float:
            kind = "an integer" if at.kind == "int" or (at.dtype or "").startswith(
                ("int", "uint")) else ("a boolean" if "bool" in (at.kind, at.dtype) else
                                       f"a {at.kind}")
            raise WrtError(f"cannot differentiate with respect to {names[i]!r}: it is "
                           f"{kind} argument", graph.args[i].loc or parsed.loc(parsed.node),
                           "only floating-point arguments (floats and float arrays) have "
                           "gradients; pass floats, or drop it from wrt")


def out_tree(low: Any) -> Any:
    """What the function returns, as a ``trees`` spec over the graph's outputs."""
    if low.out_tree is not None:
        return low.out_tree
    n_out = len(low.graph.outputs)
    return 0 if n_out == 1 else tuple(range(n_out))


def _only_returned(graph: Graph, spec: Any) -> Graph:
    """The graph with just the outputs ``spec`` returns, in ``trees.indices`` order."""
    outputs = tuple(graph.outputs[i] for i in trees.indices(spec))
    return Graph(graph.name, graph.args, graph.nodes, outputs, graph.output_names)


def _returns(graph: Graph, req: Request, tree: Any) -> Any:
    """What the generated function returns: gradients, with the value and aux in the
    structure the function returned them."""
    n_out = len(graph.outputs)
    grads: Any = tuple(range(n_out, n_out + len(req.wrt)))
    if req.single:
        grads = grads[0]
    if req.mode == "vjp":
        return grads
    aux_spec: Any = ()
    if req.has_aux and isinstance(tree, tuple):
        aux_spec = tree[1] if len(tree) == 2 else tuple(tree[1:])
    value = tree[0] if req.has_aux and isinstance(tree, tuple) else tree
    if req.mode == "value_and_grad":
        return ((value, aux_spec), grads) if req.has_aux else (value, grads)
    return (grads, aux_spec) if req.has_aux else grads
