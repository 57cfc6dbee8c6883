"""The check that a file's text is what Python runs, on code holding set constants.

``x in {"f", "b"}`` compiles to a frozenset constant whose repr follows its hash table's
order, which differs between two builds of the same set (and between hash seeds): the
check compared reprs and refused NumPy's ``trim_zeros`` (so ``scipy.interpolate.lagrange``)
as "changed since it was loaded" in some processes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from st_autodiff.errors import SourceUnavailableError
from st_autodiff.transforms.parse import _const_key, check_fresh

_CHECK = textwrap.dedent("""
    import numpy.lib._function_base_impl as m
    from st_autodiff.transforms.parse import check_fresh
    code = m.trim_zeros._implementation.__code__
    with open(code.co_filename) as fh:
        check_fresh(code, fh.readlines())
    print("fresh")
""")


@pytest.mark.parametrize("seed", ["0", "1", "3", "7"])
def test_numpy_trim_zeros_is_fresh_under_every_hash_seed(seed: str) -> None:
    pytest.importorskip("numpy.lib._function_base_impl")
    env = dict(os.environ, PYTHONHASHSEED=seed,
               PYTHONPATH=os.pathsep.join([os.getcwd(), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", _CHECK], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "fresh", out.stderr[-2000:]


def test_set_constants_compare_by_their_items() -> None:
    a = frozenset(["f", "bf", "b", "fb"])
    b = frozenset(["fb", "b", "bf", "f"])
    assert _const_key(a) == _const_key(b)
    assert _const_key(a) != _const_key(frozenset(["f", "b"]))
    assert _const_key((1, a)) == _const_key((1, b))
    assert _const_key(1) != _const_key(1.0)


def test_an_edited_set_literal_is_still_refused(tmp_path) -> None:
    path = tmp_path / "mod.py"
    old = "def f(t):\n    return t in {'f', 'b', 'fb'}\n"
    path.write_text(old)
    code = compile(old, str(path), "exec").co_consts[0]
    check_fresh(code, old.splitlines(keepends=True))  # the same text: fresh
    new = old.replace("'fb'", "'bf'")
    with pytest.raises(SourceUnavailableError, match="has changed since it was loaded"):
        check_fresh(code, new.splitlines(keepends=True))
