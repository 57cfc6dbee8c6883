"""Golden tests: the printed IR, the optimised joint IR and the generated source.

Each function below is compiled on fixed example arguments; its ``g.ir``,
``g.adjoint_ir`` and ``g.source`` are compared with ``tests/golden/<name>.txt``.  On a
mismatch the test prints a unified diff and the command that rewrites the files:

    ST_AUTODIFF_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py

Source locations appear in the golden text as ``test_golden.py:LINE``, so the functions
stay at the top of this module: edits further down do not move them.
"""
# ruff: noqa: E402  (the functions come first so that their line numbers stay put)

import numpy as np


def product(x, y):
    z = x * y
    return z.sum()


def row_norms(x):
    s = np.sum(x * x, axis=1)
    return np.sum(np.sqrt(s))


def tanh_layer_loss(w, b, x, y):
    h = np.tanh(x @ w + b)
    return np.mean((h - y) ** 2)


def scaled(x, d):
    return np.sum(x / d)


def gather(x, i):
    picked = x[i] + x[[0, 0, 2]]
    return np.sum(picked**2)


def recurrence(w, h0):
    h = h0
    for _t in range(5):
        h = np.tanh(w * h + 0.5)
    return np.sum(h)


def piecewise(x):
    if x.sum() > 0:
        y = np.sin(x) * 2.0
    else:
        y = x * x
    return np.sum(y)


def fill_rows(x):
    out = np.zeros((3, 2))
    out[1] = x[0] * 2.0
    out[:, 0] *= x[1, 0]
    return np.sum(out * out)


def kept_rows(x):
    kept = []
    for row in x:
        if row.sum() > 0:
            kept.append(np.tanh(row))
    return np.sum(np.stack(kept))


# --- the tests ------------------------------------------------------------------------

import difflib
import os
import sys
from pathlib import Path

import pytest

import st_autodiff as st

GOLDEN = Path(__file__).parent / "golden"
UPDATE = "ST_AUTODIFF_UPDATE_GOLDEN"
RNG = np.random.default_rng(7)

CASES = {
    "product": (product, (0, 1), (np.arange(1.0, 4.0), np.array([2.0, -1.0, 0.5]))),
    "row_norms": (row_norms, 0, (np.arange(1.0, 7.0).reshape(2, 3),)),
    "tanh_layer_loss": (tanh_layer_loss, ("w", "b"),
                        (RNG.standard_normal((3, 2)), np.zeros(2),
                         RNG.standard_normal((4, 3)), RNG.standard_normal((4, 2)))),
    "scaled": (scaled, (0, 1), (np.ones((3, 4)), np.arange(1.0, 5.0))),
    "gather": (gather, 0, (np.arange(1.0, 4.0), np.array([2, 1, 1]))),
    # control flow: one loop, one branch, one in-place write (issue 3)
    "recurrence": (recurrence, (0, 1), (np.array([0.5, -0.3]), np.array([0.1, 0.2]))),
    "piecewise": (piecewise, 0, (np.array([0.5, -0.2, 1.0]),)),
    "fill_rows": (fill_rows, 0, (np.array([[1.0, 2.0], [3.0, 4.0]]),)),
    # a list appended to under a runtime condition (gathered after the loop)
    "kept_rows": (kept_rows, 0, (np.array([[1.0, 2.0], [-3.0, 1.0], [0.5, 0.5]]),)),
}


def render(name: str) -> str:
    fn, wrt, args = CASES[name]
    g = st.grad(fn, wrt=wrt)
    g(*args)
    return (f"# golden output of st_autodiff for {name}; see tests/test_golden.py\n"
            f"\n## g.ir\n{g.ir}\n## g.adjoint_ir\n{g.adjoint_ir}\n## g.source\n{g.source}")


def compare_golden(name: str, actual: str) -> None:
    """Compare ``actual`` with the golden file, or rewrite it when asked to."""
    path = GOLDEN / f"{name}.txt"
    if os.environ.get(UPDATE) == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(actual, encoding="utf-8")
        return
    expected = path.read_text(encoding="utf-8") if path.exists() else ""
    if actual != expected:
        diff = "".join(difflib.unified_diff(
            expected.splitlines(keepends=True), actual.splitlines(keepends=True),
            fromfile=f"tests/golden/{name}.txt", tofile=f"{name} (now)"))
        pytest.fail(f"golden output of {name} changed:\n{diff}\n"
                    f"if the change is intended, update the files with:\n"
                    f"    {UPDATE}=1 python -m pytest tests/test_golden.py", pytrace=False)


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name):
    compare_golden(name, render(name))


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_output_is_path_independent(name):
    text = render(name)
    assert str(Path(__file__).parent) not in text
    assert "test_golden.py:" in text  # locations are printed with base names
    assert "0x" not in text and "<st_autodiff" not in text  # no addresses or file digests


def test_golden_outputs_run_and_agree_with_the_primal():
    for fn, wrt, args in CASES.values():
        value, _ = st.value_and_grad(fn, wrt=wrt)(*args)
        assert value == pytest.approx(fn(*args))


def test_a_mismatch_prints_a_diff_and_the_update_command(monkeypatch):
    monkeypatch.delenv(UPDATE, raising=False)
    with pytest.raises(pytest.fail.Exception) as info:
        compare_golden("product", render("product").replace("mul", "MUL", 1))
    message = str(info.value)
    assert "--- tests/golden/product.txt" in message
    assert "+++ product (now)" in message
    assert "\n-" in message and "\n+" in message
    assert f"{UPDATE}=1 python -m pytest tests/test_golden.py" in message


def test_update_mode_rewrites_the_file(monkeypatch, tmp_path):
    monkeypatch.setenv(UPDATE, "1")
    monkeypatch.setattr(sys.modules[__name__], "GOLDEN", tmp_path)
    compare_golden("anything", "new text\n")
    assert (tmp_path / "anything.txt").read_text() == "new text\n"
