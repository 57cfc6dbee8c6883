"""Run the seed examples under st_autodiff (as ``torch``) or under real PyTorch.

The examples run in a fresh interpreter per engine, each after ``manual_seed(0)`` so that
examples which draw random numbers without seeding print the same values under both.
What is compared is stdout plus, when the example raises, one final line
``<ExceptionType>: <message>``; object addresses are normalised (``0x...``).
``python -m tests.runtime.seed_harness`` re-records the expected outputs (``*.out``) from
the installed PyTorch.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent / "seed_examples"
ROOT = Path(__file__).resolve().parents[2]

_BOOT = r"""
import contextlib, io, json, runpy, sys
{setup}
results = {{}}
for path in sys.argv[1:]:
    out = io.StringIO()
    torch.manual_seed(0)
    with contextlib.redirect_stdout(out):
        try:
            runpy.run_path(path, run_name="__main__")
        except BaseException as exc:
            print(f"{{type(exc).__name__}}: {{exc}}")
    torch.set_grad_enabled(True)
    results[path] = out.getvalue()
print(json.dumps(results))
"""

_SETUPS = {
    "st": ("import st_autodiff as torch\n"
           "sys.modules['torch'] = torch\n"
           "sys.modules['torch.autograd'] = torch.autograd\n"
           "if hasattr(torch, 'nn'): sys.modules['torch.nn'] = torch.nn\n"
           "if hasattr(torch, 'nn'): sys.modules['torch.nn.functional'] = torch.nn.functional"),
    "torch": "import torch",
}


def normalise(text: str) -> str:
    """Replace object addresses, which differ between runs."""
    return re.sub(r"0x[0-9a-fA-F]+", "0x...", text)


def run_examples(paths: list[Path], engine: str) -> dict[str, str]:
    """The normalised output of each example (by file stem) under ``engine``.

    All examples run in one fresh interpreter, one after the other, each after
    ``manual_seed(0)``; ``engine`` is ``st`` (st_autodiff as ``torch``) or ``torch``.
    """
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore")
    code = _BOOT.format(setup=_SETUPS[engine])
    proc = subprocess.run([sys.executable, "-c", code, *map(str, paths)], capture_output=True,
                          text=True, cwd=str(ROOT), env=env, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"running the examples under {engine} failed:\n{proc.stderr}")
    return {Path(k).stem: normalise(v) for k, v in json.loads(proc.stdout).items()}


def run_example(path: Path, engine: str) -> str:
    """The normalised output of one example under ``engine``."""
    return run_examples([path], engine)[path.stem]


def examples() -> list[Path]:
    return sorted(HERE.glob("*.py"))


def main() -> None:
    """Record ``<example>.out`` from real PyTorch for every example."""
    outputs = run_examples(examples(), "torch")
    for path in examples():
        path.with_suffix(".out").write_text(outputs[path.stem])
        print(f"recorded {path.with_suffix('.out').name}")


if __name__ == "__main__":
    main()
