"""Pictures of the graph: an eager ``grad_fn`` graph and the compiler's SSA graphs, as DOT.

Two drawings, one look:

* ``make_dot(y, params=dict(model.named_parameters()))`` walks ``y.grad_fn`` through
  ``next_functions`` like torchviz: the output in green, each backward record as a grey box
  named for its class (``MulBackward0``), leaves (``AccumulateGrad``) in blue with their
  name and shape, and with ``show_saved=True`` the tensors a record keeps for backward in
  orange, named as PyTorch names them (``self``, ``other``, ``result``).
* ``draw(st.grad(f), *args)`` draws the compiler's graph of a function (``stage="primal"``
  or the optimised ``"joint"`` graph, primal and adjoint), ``draw_graph(graph)`` any
  compiler ``Graph``, and ``st-autodiff dump FILE:FUNC --graph out.svg`` the same from the
  command line without running the file: arguments
  in blue, one box per SSA node (op, name, type, source line), adjoint nodes coloured and
  labelled with the record they belong to, region bodies (``for``/``while``/``if``) as
  nested clusters.

Both return a ``DotGraph``: its ``source`` is plain DOT text (no dependency);
``render``/``pipe`` call Graphviz's ``dot`` program, which the ``viz`` extra's notes tell how
to install; ``to_graphviz()`` gives a ``graphviz.Source`` for notebooks when that package
is installed.  Node ids are numbered in drawing order, so the text is deterministic.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["DotGraph", "draw", "draw_graph", "make_dot"]

_RENDER_HINT = ("drawing to {fmt} needs Graphviz's `dot` program on PATH (apt install "
                "graphviz, brew install graphviz or conda install graphviz); "
                "a .dot file needs nothing: save(path) with a .dot suffix")


class DotGraph:
    """A graph in the DOT language, renderable by Graphviz (see the module docstring)."""

    def __init__(self, name: str, lines: list[str]) -> None:
        self.name = name
        self.body = lines

    @property
    def source(self) -> str:
        """The DOT text."""
        attrs = ('  graph [rankdir=TB fontname="Helvetica"]\n'
                 '  node [fontname="Helvetica" fontsize=11 style=filled shape=box '
                 'align=left]\n  edge [arrowsize=0.7]\n')
        return f"digraph {_quote(self.name)} {{\n{attrs}" + "".join(
            f"  {line}\n" for line in self.body) + "}\n"

    def __str__(self) -> str:
        return self.source

    def pipe(self, format: str = "svg") -> bytes:  # noqa: A002  (graphviz's spelling)
        """The picture's bytes in ``format`` (``svg``, ``png``, ``pdf`` ...), made by ``dot``."""
        if format == "dot":
            return self.source.encode()
        dot = shutil.which("dot")
        if dot is None:
            raise RuntimeError(_RENDER_HINT.format(fmt=format))
        run = subprocess.run([dot, f"-T{format}"], input=self.source.encode(),
                             capture_output=True, check=False)
        if run.returncode != 0:
            raise RuntimeError(f"dot -T{format} failed: {run.stderr.decode().strip()}")
        return run.stdout

    def save(self, path: str | Path) -> Path:
        """Write the picture; the format is the suffix (``.svg``, ``.png``, ``.pdf``,
        ``.dot``)."""
        path = Path(path)
        fmt = path.suffix.lstrip(".").lower() or "dot"
        if fmt == "gv":
            fmt = "dot"
        path.write_bytes(self.pipe(fmt))
        return path

    render = save

    def _repr_svg_(self) -> str | None:
        """Jupyter's inline picture (the DOT text is shown when ``dot`` is missing)."""
        if shutil.which("dot") is None:
            return None
        return self.pipe("svg").decode()

    def to_graphviz(self) -> Any:
        """A ``graphviz.Source`` of this graph (needs the ``graphviz`` package: the viz
        extra)."""
        try:
            import graphviz  # noqa: PLC0415  (optional)
        except ImportError as exc:
            raise ImportError("to_graphviz() needs the graphviz package: "
                              "pip install 'st-autodiff[viz]'") from exc
        return graphviz.Source(self.source)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _shape(t: Any) -> str:
    return "(" + ", ".join(str(int(s)) for s in t.shape) + ")"


# --- eager graphs ---------------------------------------------------------------------

def make_dot(outputs: Any, params: Mapping[str, Any] | None = None,
             show_saved: bool = False, max_attr_chars: int = 50) -> DotGraph:
    """The ``grad_fn`` graph behind ``outputs`` (a Tensor or a sequence of Tensors).

    ``params`` names leaves (``dict(model.named_parameters())``); unnamed leaves are drawn
    by shape.  ``show_saved`` adds the tensors each record saved for backward."""
    from .runtime.function import AccumulateGrad, Node, TensorBase  # noqa: PLC0415

    outs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    for o in outs:
        if not isinstance(o, TensorBase):
            raise TypeError(f"make_dot() expects Tensors, got {type(o).__name__}")
    names = {id(v): k for k, v in (params or {}).items()}
    ids: dict[Any, str] = {}
    lines: list[str] = []

    def node_id(obj: Any) -> str:
        key = obj if isinstance(obj, tuple) else id(obj)  # tuples: saved-value boxes
        if key not in ids:
            ids[key] = f"n{len(ids)}"
        return ids[key]

    def leaf_label(var: Any) -> str:
        name = names.get(id(var))
        return (f"{name}\n" if name else "") + _shape(var)

    seen: set[int] = set()
    stack: list[Node] = []
    for o in outs:
        oid = node_id(o)
        lines.append(f'{oid} [label={_quote(_shape(o))} fillcolor="#a8e6a1"]')
        fn = o.grad_fn
        if fn is None:
            if o.requires_grad:
                acc = o._accumulator() if hasattr(o, "_accumulator") else None
                if acc is not None:
                    stack.append(acc)
                    lines.append(f"{node_id(acc)} -> {oid}")
            continue
        stack.append(fn)
        lines.append(f"{node_id(fn)} -> {oid}")
    while stack:
        fn = stack.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        fid = node_id(fn)
        if isinstance(fn, AccumulateGrad):
            lines.append(f'{fid} [label={_quote(leaf_label(fn.variable))} '
                         f'fillcolor="#a9d1f7"]')
        else:
            lines.append(f'{fid} [label={_quote(type(fn).__name__)} fillcolor="#d9d9d9"]')
            if show_saved:
                lines.extend(_saved_lines(fn, fid, node_id, max_attr_chars))
        for nxt, _nr in fn.next_functions:
            if nxt is None:
                continue
            lines.append(f"{node_id(nxt)} -> {fid}")
            stack.append(nxt)
    return DotGraph("grad_fn", lines)


def _saved_lines(fn: Any, fid: str, node_id: Any, max_chars: int) -> list[str]:
    """Boxes for what ``fn`` saved: tensors by shape, other values by their repr."""
    from .runtime.function import TensorBase  # noqa: PLC0415

    plan = getattr(type(fn), "_plan", None)
    attrs = ([f"_saved_{n}" for n, _src, _need in plan] if plan is not None
             else [a for a in dir(fn) if a.startswith("_saved_")])
    out = []
    for attr in attrs:
        try:
            value = getattr(fn, attr)
        except (RuntimeError, AttributeError):  # freed by a backward without retain_graph
            continue
        if value is None:
            continue
        label = attr[len("_saved_"):]
        if isinstance(value, TensorBase):
            sid = node_id(("saved", id(fn), attr))
            out.append(f'{sid} [label={_quote(label + chr(10) + _shape(value))} '
                       f'fillcolor="#f7c59f"]')
            out.append(f"{sid} -> {fid} [style=dashed arrowhead=none]")
        else:
            text = repr(value)
            text = text if len(text) <= max_chars else text[:max_chars - 3] + "..."
            sid = node_id(("attr", id(fn), attr))
            out.append(f'{sid} [label={_quote(f"{label} = {text}")} shape=note '
                       f'fillcolor="#ffffff"]')
            out.append(f"{sid} -> {fid} [style=dotted arrowhead=none]")
    return out


# --- compiler graphs ------------------------------------------------------------------

def draw_graph(graph: Any, title: str | None = None) -> DotGraph:
    """A compiler ``Graph`` as a picture (see the module docstring)."""
    from .ir.graph import Graph  # noqa: PLC0415

    if not isinstance(graph, Graph):
        raise TypeError(f"draw_graph() expects a compiler Graph, got {type(graph).__name__}")
    lines: list[str] = []
    counter = [0]
    _draw_body(graph, lines, counter, "")
    if title:
        lines.insert(0, f"label={_quote(title)} labelloc=t")
    return DotGraph(graph.name, lines)


def _draw_body(graph: Any, lines: list[str], counter: list[int], pad: str) -> dict[Any, str]:
    """Draw one graph's nodes into ``lines``; returns node -> DOT id."""
    from .ir.graph import Graph  # noqa: PLC0415
    from .ir.names import Namespace  # noqa: PLC0415
    from .ir.ops import Op  # noqa: PLC0415
    from .ir.printer import format_value  # noqa: PLC0415

    ids: dict[Any, str] = {}
    names = Namespace("t")  # the names the printed IR uses

    def new_id() -> str:
        counter[0] += 1
        return f"v{counter[0]}"

    for a in graph.args:
        ids[a] = new_id()
        label = f"{a.name}: {a.type or '?'}"
        lines.append(f'{pad}{ids[a]} [label={_quote(label)} '
                     f'shape=ellipse fillcolor="#a9d1f7"]')
    for a in graph.args:
        names.fresh(a.name)
    for n in graph.nodes:
        if n.op in (Op.ARG, Op.CONST) or n in ids:
            continue
        ids[n] = new_id()
        name = names.fresh(n.name)
        label = f"{n.op.value}  %{name}\n{n.type or '?'}"
        if n.loc is not None:
            label += f"\n{n.loc.short()}"
        if n.role:
            label += f"\n[{n.role}]"
        color = "#f7c59f" if n.role else "#d9d9d9"
        lines.append(f"{pad}{ids[n]} [label={_quote(label)} fillcolor=\"{color}\"]")
        for key, sub in n.params:
            if isinstance(sub, Graph):
                counter[0] += 1
                lines.append(f"{pad}subgraph cluster_{counter[0]} {{")
                title = f"{key} of %{name}: {sub.name}"
                lines.append(f'{pad}  label={_quote(title)} style=rounded color="#888888"')
                _draw_body(sub, lines, counter, pad + "  ")
                lines.append(f"{pad}}}")
    for n in graph.nodes:
        if n.op in (Op.ARG, Op.CONST):
            continue
        for k, i in enumerate(n.inputs):
            if i.op is Op.CONST and i not in ids:  # constants are drawn at each use
                cid = new_id()
                lines.append(f'{pad}{cid} [label={_quote(format_value(i.param("value")))} '
                             f'shape=plaintext style=""]')
                edge = f"{pad}{cid} -> {ids[n]}"
                lines.append(edge + (f' [label="{k}" fontsize=9]' if len(n.inputs) > 1
                                     else ""))
            elif i in ids:
                edge = f"{pad}{ids[i]} -> {ids[n]}"
                lines.append(edge + (f' [label="{k}" fontsize=9]' if len(n.inputs) > 1
                                     else ""))
    for k, o in enumerate(graph.outputs):
        oid = new_id()
        name = graph.output_names[k] if k < len(graph.output_names) else f"out{k}"
        if o.op is Op.CONST:
            name += " = " + format_value(o.param("value"))
        lines.append(f'{pad}{oid} [label={_quote(f"return {name}")} shape=ellipse '
                     f'fillcolor="#a8e6a1"]')
        if o in ids:
            lines.append(f"{pad}{ids[o]} -> {oid}")
    return ids


def draw(fn: Any, *args: Any, stage: str = "joint", **kwargs: Any) -> DotGraph:
    """The picture of a ``st.grad``-style function's graph: ``stage`` is ``"primal"`` or
    ``"joint"`` (primal and adjoint, optimised); ``args`` pick the specialisation."""
    if stage not in ("primal", "joint"):
        raise ValueError(f"stage must be 'primal' or 'joint', got {stage!r}")
    compiled = fn.compile(*args, **kwargs).compiled if args or kwargs else fn._latest()
    graph = compiled.primal if stage == "primal" else compiled.joint
    if graph is None:
        raise ValueError(f"{fn!r} kept no {stage} graph")
    return draw_graph(graph, title=f"{graph.name} ({stage})")

