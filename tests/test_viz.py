"""Pictures of graphs (``st_autodiff.viz`` and ``st-autodiff dump --graph``).

The DOT text is checked everywhere; rendering runs where Graphviz's ``dot`` is installed
(the only condition under which these tests skip)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest

import st_autodiff as st
import st_autodiff as torch
from st_autodiff import viz
from st_autodiff.cli import main

MODEL = Path(__file__).parent / "cli_samples" / "model.py"
HAS_DOT = shutil.which("dot") is not None
needs_dot = pytest.mark.skipif(not HAS_DOT, reason="Graphviz's dot is not installed")


def _labels(source: str) -> list[str]:
    return re.findall(r'label="([^"]*)"', source)


def _edges(source: str) -> set[tuple[str, str]]:
    return set(re.findall(r"^\s*(\w+) -> (\w+)", source, re.M))


def _by_label(source: str) -> dict[str, str]:
    """label -> node id (the first node with that label)."""
    out: dict[str, str] = {}
    for nid, label in re.findall(r'^\s*(\w+) \[label="([^"]*)"', source, re.M):
        out.setdefault(label, nid)
    return out


# --- eager graphs -----------------------------------------------------------------------

def test_make_dot_golden_text() -> None:
    """A two-leaf graph reads as torchviz draws it: output, records, named leaves."""
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    y = (a * b).sum()
    assert viz.make_dot(y, params={"a": a, "b": b}).source == (
        'digraph "grad_fn" {\n'
        '  graph [rankdir=TB fontname="Helvetica"]\n'
        '  node [fontname="Helvetica" fontsize=11 style=filled shape=box align=left]\n'
        "  edge [arrowsize=0.7]\n"
        '  n0 [label="()" fillcolor="#a8e6a1"]\n'
        "  n1 -> n0\n"
        '  n1 [label="SumBackward0" fillcolor="#d9d9d9"]\n'
        "  n2 -> n1\n"
        '  n2 [label="MulBackward0" fillcolor="#d9d9d9"]\n'
        "  n3 -> n2\n"
        "  n4 -> n2\n"
        '  n4 [label="b\\n(2)" fillcolor="#a9d1f7"]\n'
        '  n3 [label="a\\n(2)" fillcolor="#a9d1f7"]\n'
        "}\n")


def test_make_dot_structure_follows_next_functions() -> None:
    """Every grad_fn edge appears once, a shared leaf is one node, saved tensors show."""
    x = torch.randn(3, requires_grad=True)
    w = torch.randn(3, 3, requires_grad=True)
    y = (torch.tanh(w @ x) * x).sum()
    src = viz.make_dot(y, params={"x": x, "w": w}, show_saved=True).source
    ids = _by_label(src)
    assert _labels(src).count("x\\n(3)") == 1  # x feeds two records but is drawn once
    for child, parent in [("TanhBackward0", "MulBackward0"), ("MvBackward0", "TanhBackward0"),
                          ("x\\n(3)", "MvBackward0"), ("x\\n(3)", "MulBackward0"),
                          ("w\\n(3, 3)", "MvBackward0"), ("MulBackward0", "SumBackward0")]:
        assert (ids[child], ids[parent]) in _edges(src), (child, parent)
    # the records' saved values: TanhBackward0 keeps its result, Mv its two inputs
    assert "result\\n(3)" in _labels(src)
    assert {"self\\n(3, 3)", "vec\\n(3)"} <= set(_labels(src))
    assert "self_sym_sizes = (3,)" in _labels(src)


def test_make_dot_leaf_and_freed_graph() -> None:
    """A leaf output is its AccumulateGrad; after backward the freed saved values vanish."""
    x = torch.ones(2, requires_grad=True)
    src = viz.make_dot(x).source
    assert "(2)" in _labels(src)
    y = (x * x).sum()
    y.backward()
    src = viz.make_dot(y, show_saved=True).source  # saved tensors were freed: not drawn
    assert "MulBackward0" in _labels(src)
    assert not any(lab.startswith("self\\n") for lab in _labels(src))
    with pytest.raises(TypeError, match="expects Tensors, got ndarray"):
        viz.make_dot(np.ones(2))


# --- compiler graphs --------------------------------------------------------------------

def _looped(x, w):
    h = np.tanh(w @ x)
    for _ in range(3):
        h = h * x
    return np.sum(h)


def test_draw_joint_graph_regions_and_records() -> None:
    g = st.grad(_looped)
    x, w = np.ones(3), np.eye(3)
    joint = viz.draw(g, x, w).source
    labels = _labels(joint)
    assert labels[0] == "_looped_grad (joint)"
    assert "x: f64[3]" in labels and "w: f64[3,3]" in labels
    # primal nodes carry their source line, adjoint nodes also their record
    line = _looped.__code__.co_firstlineno + 1
    assert any(lab.startswith("tanh  %h\\nf64[3]\\ntest_viz.py:" + str(line)) for lab in labels)
    assert any(lab.endswith("[TanhBackward0]") for lab in labels)
    assert any(lab.endswith("[ForBackward0]") for lab in labels)
    # both loop bodies are clusters
    assert len(re.findall(r"subgraph cluster_\d+", joint)) == 2
    assert "body of %" in joint
    primal = viz.draw(g, x, w, stage="primal").source
    assert not any("Backward0" in lab for lab in _labels(primal))
    with pytest.raises(ValueError, match="stage must be"):
        viz.draw(g, x, w, stage="adjoint")


def test_draw_graph_rejects_other_objects() -> None:
    with pytest.raises(TypeError, match="expects a compiler Graph"):
        viz.draw_graph("graph")


# --- the command line and rendering -----------------------------------------------------

def test_cli_graph_dot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "g.dot"
    assert main(["dump", f"{MODEL}:simple", "--graph", str(out)]) == 0
    msg = capsys.readouterr().out
    assert msg.startswith(f"wrote {out} (joint graph of simple_grad, ")
    text = out.read_text()
    assert text.startswith('digraph "simple_grad" {')
    assert any(lab.startswith("log1p") for lab in _labels(text))
    assert main(["dump", f"{MODEL}:simple", "--graph", str(out), "--graph-stage",
                 "primal"]) == 0
    assert "Backward0" not in out.read_text()


def test_cli_graph_excludes_ir(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["dump", f"{MODEL}:simple", "--graph", "x.svg", "--ir"])
    assert "not allowed with argument" in capsys.readouterr().err


def test_render_without_dot_says_how(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="needs Graphviz's `dot` program"):
        viz.make_dot((x * 2).sum()).save(tmp_path / "g.svg")
    assert viz.make_dot((x * 2).sum())._repr_svg_() is None
    assert main(["dump", f"{MODEL}:simple", "--graph", str(tmp_path / "g.png")]) == 1
    assert "apt install graphviz" in capsys.readouterr().err


@needs_dot
@pytest.mark.parametrize("suffix", ["svg", "png"])
def test_render_pictures(tmp_path: Path, suffix: str) -> None:
    x = torch.randn(4, requires_grad=True)
    y = torch.sigmoid(x).pow(2).mean()
    path = viz.make_dot(y, params={"x": x}, show_saved=True).save(tmp_path / f"e.{suffix}")
    data = path.read_bytes()
    if suffix == "svg":
        assert b"<svg" in data and b"SigmoidBackward0" in data and b"PowBackward0" in data
    else:
        assert data.startswith(b"\x89PNG")
    path = viz.draw(st.grad(_looped), np.ones(3), np.eye(3)).save(tmp_path / f"c.{suffix}")
    assert path.stat().st_size > 1000


@needs_dot
def test_cli_renders_svg(tmp_path: Path) -> None:
    out = tmp_path / "g.svg"
    assert main(["dump", f"{MODEL}:simple", "--graph", str(out)]) == 0
    svg = out.read_text()
    assert "<svg" in svg and "Log1pBackward0" in svg
