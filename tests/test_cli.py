"""The command line: ``st-autodiff dump FILE.py:FUNC`` (parses the file, never runs it)."""

from __future__ import annotations

import io
import math
import subprocess
import sys
import uuid
from pathlib import Path

import numpy as np
import pytest

import st_autodiff
from st_autodiff.cli import example_value, main
from st_autodiff.transforms import STAGES
from st_autodiff.transforms.parse import parse_file
from st_autodiff.transforms.static_scope import StaticScope

SAMPLES = Path(__file__).parent / "cli_samples"
MODEL = SAMPLES / "model.py"
BROKEN = SAMPLES / "broken.py"
ANSI = "\x1b["


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(["dump", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def usage_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as exc:
        main(["dump", *argv])
    assert exc.value.code == 2
    return capsys.readouterr().err


# --- dumping --------------------------------------------------------------------------


def test_dump_inlines_helpers_and_constants(capsys):
    rc, out, err = run(capsys, f"{MODEL}:simple")
    assert rc == 0 and err == ""
    assert out.startswith("def simple_grad(x, out_bar=1.0):")
    assert "# model.py:17  return np.log1p(exp(x))" in out  # softplus(), inlined
    assert "* 0.5" in out  # SCALE
    assert str(math.sqrt(2.0)) in out  # math.sqrt(2.0), folded
    assert "return x_bar" in out
    compile(out, "<dump>", "exec")  # the dump is valid Python
    assert ANSI not in out


def test_dump_with_array_constant_and_default_argument(capsys):
    rc, out, _ = run(capsys, f"{MODEL}:mlp", "--arg", "x=f64[4,3]", "--arg", "w=f64[3,3]",
                     "--wrt", "w")
    assert rc == 0
    assert "def mlp_grad(x, w, out_bar=1.0):" in out
    assert "BIAS" in out and "xp.tanh" in out
    assert out.rstrip().endswith("return w_bar")


def test_wrt_by_name_and_by_position(capsys):
    by_name = run(capsys, f"{MODEL}:two", "--wrt", "y")
    by_pos = run(capsys, f"{MODEL}:two", "--wrt", "1")
    by_neg = run(capsys, f"{MODEL}:two", "--wrt", "-1")
    assert by_name == by_pos == by_neg
    assert by_name[0] == 0 and by_name[1].rstrip().endswith("return y_bar")
    default = run(capsys, f"{MODEL}:two")[1]
    assert default.rstrip().endswith("return x_bar")
    both = run(capsys, f"{MODEL}:two", "--wrt", "x,1")[1]
    assert both.rstrip().endswith("return x_bar, y_bar")


def test_wrt_unknown_name_is_a_located_error(capsys):
    rc, out, err = run(capsys, f"{MODEL}:two", "--wrt", "z")
    assert rc == 1 and out == ""
    assert f"{MODEL}:33:1: error:" in err and "no such parameter" in err


def test_ir_prints_primal_and_optimized_joint_graph(capsys):
    rc, out, _ = run(capsys, f"{MODEL}:two", "--ir")
    assert rc == 0
    assert "# primal graph (stage lower)\ngraph two(%x: ?, %y: ?) -> ?:" in out
    assert "# joint graph, optimized (stage optimize)\ngraph two_grad(" in out
    assert "# model.py:35" in out


@pytest.mark.parametrize("stage", STAGES)
def test_every_stage(capsys, stage):
    rc, out, err = run(capsys, f"{MODEL}:scaled", "--arg", "x=f64[5]", "--arg", "n=int=3",
                       "--stage", stage)
    assert rc == 0 and err == "" and out.strip()
    first = {"parse": "def scaled(x, n):", "lower": "graph scaled(", "activity": "active:",
             "adjoint": "graph scaled_grad(", "optimize": "graph scaled_grad(",
             "codegen": "def scaled_grad("}[stage]
    assert out.startswith(first)


def test_codegen_stage_is_the_default_output(capsys):
    assert run(capsys, f"{MODEL}:two", "--stage", "codegen") == run(capsys, f"{MODEL}:two")


def test_no_optimize_changes_the_joint_graph(capsys):
    args = (f"{MODEL}:two", "--arg", "x=f64[3]", "--arg", "y=f64[3]", "--stage", "optimize")
    assert run(capsys, *args)[1] != run(capsys, *args, "--no-optimize")[1]


def test_arg_specialises_the_output_deterministically(capsys):
    generic = run(capsys, f"{MODEL}:two", "--stage", "lower")[1]
    args = (f"{MODEL}:two", "--arg", "x=f64[4,3]", "--arg", "y=f32[3]", "--stage", "lower")
    special = run(capsys, *args)[1]
    assert special != generic
    assert "graph two(%x: f64[4,3], %y: f32[3])" in special
    assert run(capsys, *args)[1] == special
    code = run(capsys, f"{MODEL}:logdet", "--arg", "a=f64[3,3]")[1]  # needs shapes
    assert "def logdet_grad(a, out_bar=1.0):" in code and "xp.linalg.inv(a)" in code


def test_example_values_decide_types_deterministically():
    x = example_value("x", "f32[2,3]")
    assert x.dtype == np.float32 and x.shape == (2, 3)
    assert np.array_equal(x, example_value("x", "f32[2,3]"))
    assert np.all((x >= 0.1) & (x <= 0.9))
    assert example_value("s", "f64[]").shape == ()
    assert example_value("n", "int=5") == 5 and example_value("n", "5") == 5
    assert example_value("a", "float=0.25") == 0.25 and example_value("a", "0.25") == 0.25
    assert isinstance(example_value("a", "float"), float)
    assert example_value("b", "bool=true") is True
    assert example_value("i", "i64[4]").dtype == np.int64
    a = example_value("a", "f64[4,4]")  # square: SPD and well conditioned
    assert np.allclose(a, a.T) and np.all(np.linalg.eigvalsh(a) > 0.5)
    assert np.linalg.cond(a) < 10


@pytest.mark.parametrize("argv, message", [
    (("tests/x.py",), "expected FILE.py:FUNCTION"),
    (("m.py:f", "--stage", "nope"), "invalid choice"),
    ((f"{MODEL}:two", "--arg", "x=f64[3]"), "--arg is missing for parameter 'y'"),
    ((f"{MODEL}:two", "--arg", "z=f64[3]"), "two() has no parameter 'z'"),
    ((f"{MODEL}:two", "--arg", "x=q64[3]", "--arg", "y=float"), "unknown dtype 'q64'"),
    ((f"{MODEL}:scaled", "--arg", "x=f64[3]", "--arg", "n=int"), "need a value"),
    ((f"{MODEL}:two", "--wrt", "x+y"), "neither a parameter name nor a position"),
])
def test_usage_errors_exit_2(capsys, argv, message):
    assert message in usage_error(capsys, *argv)


# --- errors in the user's file -------------------------------------------------------


def test_error_in_user_file_is_located_without_traceback(capsys):
    rc, out, err = run(capsys, f"{BROKEN}:branchy")
    assert rc == 1 and out == ""
    assert err.startswith(f"{BROKEN}:14:10: error: with blocks over memoryview are not "
                          "supported")
    assert '    with memoryview(b"x"):\n         ^' in err and "hint:" in err
    assert "Traceback" not in err


def test_unresolvable_name_names_its_definition_and_use(capsys):
    rc, _, err = run(capsys, f"{BROKEN}:noisy", "--arg", "x=f64[3]")
    assert rc == 1
    assert err.startswith(f"{BROKEN}:5:7: error: the CLI cannot resolve 'NOISE' statically: "
                          "it needs 'rng'")
    assert f"used at {BROKEN}:20:23" in err and "Traceback" not in err
    err = run(capsys, f"{BROKEN}:maybe")[2]
    assert f"{BROKEN}:7:1: error:" in err and "top-level try statement" in err


def test_undefined_name_and_recursion(capsys):
    err = run(capsys, f"{BROKEN}:undefined")[2]
    assert err.startswith(f"{BROKEN}:24:23: error: name 'missing_name' is not defined")
    err = run(capsys, f"{BROKEN}:uses_fact", "--arg", "x=f64[3]")[2]
    assert f"{BROKEN}:32:12: error: fact() is called again while it is being differentiated" in err


def test_missing_function_lists_the_functions(capsys):
    rc, _, err = run(capsys, f"{MODEL}:nope")
    assert rc == 1
    assert "has no top-level function 'nope'" in err
    assert "softplus, layer, mean_sq, simple, two, mlp, logdet, scaled" in err


def test_missing_file_is_an_error(capsys, tmp_path):
    rc, _, err = run(capsys, f"{tmp_path}/absent.py:f")
    assert rc == 1 and "absent.py" in err and "Traceback" not in err


# --- the file is never executed -------------------------------------------------------


def test_user_file_is_not_executed(capsys, tmp_path, monkeypatch):
    marker = tmp_path / f"SHOULD_NOT_EXIST_{uuid.uuid4().hex}"
    sibling = tmp_path / "sibling_helpers.py"
    sibling.write_text(f"open({str(marker)!r}, 'w').close()\ndef g(x):\n    return x\n")
    user = tmp_path / "user.py"
    user.write_text(
        "import numpy as np\n"
        "from sibling_helpers import g\n"
        f"open({str(marker)!r}, 'w').close()\n"
        "raise SystemExit('user.py was executed')\n"
        "def f(x):\n    return np.sum(x * x)\n"
        "def h(x):\n    return np.sum(g(x))\n")
    monkeypatch.syspath_prepend(str(tmp_path))  # the sibling module would be importable
    rc, out, _ = run(capsys, f"{user}:f")
    assert rc == 0 and "def f_grad(x, out_bar=1.0):" in out
    rc, _, err = run(capsys, f"{user}:h")
    assert rc == 1 and "'sibling_helpers' is user code" in err
    assert not marker.exists()
    assert "sibling_helpers" not in sys.modules
    rc, out, _ = run(capsys, f"{SAMPLES / 'side_effects.py'}:f")  # raises SystemExit if run
    assert rc == 0 and "x_bar" in out


def test_static_scope_evaluates_constants_without_running_the_file():
    scope = StaticScope(parse_file(str(MODEL)))
    assert scope.value("TWO_PI") == 2 * np.pi
    assert np.array_equal(scope.value("BIAS"), [0.1, -0.2, 0.3])
    assert scope.value("ORDER") == (1, 2) and scope.value("np") is np
    assert scope.value("npsum") is np.sum and scope.value("linalg") is np.linalg
    with pytest.raises(KeyError):
        scope.value("not_bound_anywhere")


# --- colour and the module entry point -----------------------------------------------


def test_color_always_highlights_and_never_or_piped_does_not(capsys):
    pytest.importorskip("pygments")
    code = run(capsys, f"{MODEL}:simple", "--color", "always")[1]
    ir = run(capsys, f"{MODEL}:simple", "--ir", "--color", "always")[1]
    assert ANSI in code and ANSI in ir
    assert ANSI not in run(capsys, f"{MODEL}:simple", "--color", "never")[1]
    assert ANSI not in run(capsys, f"{MODEL}:simple")[1]  # auto, and stdout is not a tty


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_color_auto_highlights_on_a_terminal_unless_no_color(monkeypatch):
    pytest.importorskip("pygments")
    monkeypatch.delenv("NO_COLOR", raising=False)
    for no_color, expect in ((None, True), ("1", False)):
        if no_color:
            monkeypatch.setenv("NO_COLOR", no_color)
        monkeypatch.setattr(sys, "stdout", _Terminal())
        assert main(["dump", f"{MODEL}:simple"]) == 0
        assert (ANSI in sys.stdout.getvalue()) is expect


def test_python_dash_m_entry_point():
    proc = subprocess.run([sys.executable, "-m", "st_autodiff", "dump", f"{MODEL}:simple",
                           "--wrt", "x"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("def simple_grad(x, out_bar=1.0):")
    assert ANSI not in proc.stdout  # piped: no colour
    proc = subprocess.run([sys.executable, "-m", "st_autodiff", "dump", f"{BROKEN}:branchy"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert f"{BROKEN}:14:10: error:" in proc.stderr


def test_version_comes_from_the_installed_metadata(capsys: pytest.CaptureFixture[str]) -> None:
    """One version source: pyproject.toml, read back through importlib.metadata."""
    from importlib.metadata import version

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"st-autodiff {version('st-autodiff')}\n"
    assert st_autodiff.__version__ == version("st-autodiff")
