"""The opt-in disk cache (``st.config.cache_dir``): a new process loads generated code
instead of compiling, gets identical results, and never reuses code that no longer fits
(changed globals or source, corrupt files); concurrent processes write whole files.
"""

from __future__ import annotations

import importlib
import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import st_autodiff as st

ROOT = Path(__file__).resolve().parents[1]

MODULE = '''
import os
import numpy as np

K = float(os.environ.get("DC_K", "3.0"))
W = np.array([1.0, 2.0, 3.0])
SHAPE = (3,)


def helper(x):
    return np.sin(x) * K


def loss(x, n):
    s = 0.0
    for i in range(n):
        s = s + np.sum(helper(x) * W) * (i + 1)
    return s + np.sum(np.reshape(x, SHAPE) ** 2)


class Cfg:
    scale = 2.0


CFG = Cfg()


def reads_an_attribute(x):
    return np.sum(x * CFG.scale)
'''

RUN = '''
import logging, sys
import numpy as np
logging.basicConfig(level=logging.INFO, format="LOG %(message)s")
import st_autodiff as st
import dcmod
g = st.grad(dcmod.loss)
x = np.array([0.1, 0.2, 0.3])
out = g(x, 3)
np.save(sys.argv[1], out)
print("ORIGIN", g.cache_info().specialisations[0].origin)
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "dcmod.py").write_text(MODULE)
    (tmp_path / "run.py").write_text(RUN)
    return tmp_path


def _start(project: Path, out: str, **env: str) -> subprocess.Popen:
    environ = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{project}",
               "ST_AUTODIFF_CACHE_DIR": str(project / "cache"), **env}
    return subprocess.Popen([sys.executable, str(project / "run.py"), str(project / out)],
                            cwd=project, env=environ, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def _run(project: Path, out: str, **env: str) -> str:
    p = _start(project, out, **env)
    text, _ = p.communicate(timeout=300)
    assert p.returncode == 0, text
    return text


def _entries(project: Path) -> list[Path]:
    return sorted((project / "cache").glob("*.stad"))


def _expected(k: float = 3.0) -> np.ndarray:
    x = np.array([0.1, 0.2, 0.3])
    return k * np.cos(x) * np.array([1.0, 2.0, 3.0]) * 6 + 2 * x


def test_a_new_process_loads_from_disk_with_identical_results(project: Path):
    first = _run(project, "a.npy")
    assert "ORIGIN compiled" in first and "compiling loss" in first
    assert len(_entries(project)) == 1
    second = _run(project, "b.npy")
    assert "ORIGIN disk" in second and "loading loss" in second
    assert "compiling loss" not in second
    a, b = np.load(project / "a.npy"), np.load(project / "b.npy")
    assert a.tobytes() == b.tobytes()
    np.testing.assert_allclose(a, _expected())


def test_a_changed_global_is_not_loaded_stale(project: Path):
    _run(project, "a.npy")
    text = _run(project, "b.npy", DC_K="5.0")
    assert "is stale (global 'K' changed)" in text and "ORIGIN compiled" in text
    np.testing.assert_allclose(np.load(project / "b.npy"), _expected(5.0))


def test_an_edited_function_gets_a_new_entry(project: Path):
    _run(project, "a.npy")
    source = (project / "dcmod.py").read_text()
    (project / "dcmod.py").write_text(source.replace("(i + 1)", "(i + 2)"))
    text = _run(project, "b.npy")
    assert "ORIGIN compiled" in text
    assert len(_entries(project)) == 2


def test_an_edited_inlined_helper_is_not_loaded(project: Path):
    _run(project, "a.npy")
    source = (project / "dcmod.py").read_text()
    (project / "dcmod.py").write_text(source.replace("np.sin(x) * K", "np.cos(x) * K"))
    text = _run(project, "b.npy")
    assert "dcmod.helper changed" in text and "ORIGIN compiled" in text
    x = np.array([0.1, 0.2, 0.3])
    np.testing.assert_allclose(np.load(project / "b.npy"),
                               -3.0 * np.sin(x) * np.array([1.0, 2.0, 3.0]) * 6 + 2 * x)


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty"])
def test_a_corrupt_file_is_ignored_and_rewritten(project: Path, damage: str):
    _run(project, "a.npy")
    (entry,) = _entries(project)
    data = entry.read_bytes()
    entry.write_bytes({"truncate": data[: len(data) // 2], "garbage": b"not a pickle" * 9,
                       "empty": b""}[damage])
    text = _run(project, "b.npy")
    assert "ignoring the corrupt disk cache file" in text and "ORIGIN compiled" in text
    np.testing.assert_allclose(np.load(project / "b.npy"), _expected())
    assert "ORIGIN disk" in _run(project, "c.npy")  # written whole again


def test_concurrent_processes_compile_the_same_function(project: Path):
    procs = [_start(project, f"p{i}.npy") for i in range(4)]
    for p in procs:
        text, _ = p.communicate(timeout=300)
        assert p.returncode == 0, text
    results = [np.load(project / f"p{i}.npy") for i in range(4)]
    assert all(r.tobytes() == results[0].tobytes() for r in results)
    assert len(_entries(project)) == 1
    assert not list((project / "cache").glob(".tmp-*"))
    assert "ORIGIN disk" in _run(project, "last.npy")
    assert np.load(project / "last.npy").tobytes() == results[0].tobytes()


# --- in one process -----------------------------------------------------------------------


@pytest.fixture
def dcmod(project: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.syspath_prepend(str(project))
    monkeypatch.setattr(st.config, "cache_dir", project / "cache")
    sys.modules.pop("dcmod", None)
    module = importlib.import_module("dcmod")
    yield module
    sys.modules.pop("dcmod", None)


def test_loaded_code_reads_global_arrays_at_call_time(dcmod):
    g = st.grad(dcmod.loss)
    x = np.array([0.1, 0.2, 0.3])
    g(x, 2)
    g.cache_clear()
    got = g(x, 2)
    assert g.cache_info().specialisations[0].origin == "disk"
    dcmod.W[:] = [0.0, 1.0, 0.0]  # written in place: the loaded code sees it
    expected = 3.0 * np.cos(x) * dcmod.W * 3 + 2 * x
    np.testing.assert_allclose(g(x, 2), expected)
    assert g.cache_info().misses == 1  # (no recompile: the array is the same object)
    assert not np.allclose(got, expected)


def test_loaded_guards_still_see_a_rebinding(dcmod):
    g = st.grad(dcmod.loss)
    x = np.array([0.1, 0.2, 0.3])
    g(x, 1)
    g.cache_clear()
    g(x, 1)
    assert g.cache_info().specialisations[0].origin == "disk"
    dcmod.K = 4.0
    np.testing.assert_allclose(g(x, 1), 4.0 * np.cos(x) * dcmod.W + 2 * x)
    assert "guard on global 'K'" in g.cache_info().specialisations[-1].reason


def test_vjp_forward_and_backward_are_loaded(dcmod):
    x = np.array([0.1, 0.2, 0.3])
    out, pullback = st.vjp(dcmod.helper, x)
    pullback.grad_function.cache_clear()
    out2, pullback2 = st.vjp(dcmod.helper, x)
    assert pullback2.grad_function.cache_info().specialisations[0].origin == "disk"
    np.testing.assert_array_equal(out, out2)
    np.testing.assert_array_equal(pullback(np.ones(3))[0], pullback2(np.ones(3))[0])
    assert "not available" in pullback2.grad_function.ir


def test_what_cannot_be_rebuilt_is_not_persisted_and_says_why(dcmod, caplog):
    caplog.set_level(logging.INFO, logger="st_autodiff")
    g = st.grad(dcmod.reads_an_attribute)
    np.testing.assert_allclose(g(np.ones(3)), np.full(3, 2.0))
    assert any("not kept in the disk cache: global 'CFG' is a Cfg, which another process "
               "cannot find again" in r.getMessage() for r in caplog.records)
    assert not (Path(dcmod.__file__).parent / "cache").exists()


def test_static_arguments_that_are_not_plain_values_are_not_persisted(dcmod, caplog):
    caplog.set_level(logging.INFO, logger="st_autodiff")

    class Opaque:
        def __hash__(self) -> int:
            return 1

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Opaque)

    source = textwrap.dedent("""
        def uses(x, o):
            return (x * x).sum()
    """)
    path = Path(dcmod.__file__).parent / "dcstatic.py"
    path.write_text(source)
    mod = importlib.import_module("dcstatic")
    try:
        g = st.grad(mod.uses, static_argnums=1)
        np.testing.assert_allclose(g(np.ones(2), Opaque()), np.full(2, 2.0))
        assert any("is not a plain value" in r.getMessage() for r in caplog.records)
    finally:
        sys.modules.pop("dcstatic", None)


def test_off_by_default():
    assert st.config.cache_dir is None or os.environ.get("ST_AUTODIFF_CACHE_DIR")


def test_dynamic_and_static_arguments_are_persisted(dcmod):
    g = st.grad(dcmod.loss, dynamic_argnums=1)
    x = np.array([0.1, 0.2, 0.3])
    g(x, 2)
    g.cache_clear()
    for n in (1, 2, 4):
        np.testing.assert_allclose(g(x, n), 3.0 * np.cos(x) * dcmod.W * n * (n + 1) / 2
                                   + 2 * x)
    info = g.cache_info()
    assert (info.currsize, info.specialisations[0].origin) == (1, "disk")
    h = st.grad(dcmod.loss, static_argnums=1)
    h(x, 3)
    h.cache_clear()
    np.testing.assert_allclose(h(x, 3), _expected())
    assert h.cache_info().specialisations[0].origin == "disk"
