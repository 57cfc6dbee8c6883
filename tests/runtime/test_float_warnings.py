"""PyTorch never warns about floating-point errors; the runtime's NumPy kernels would (a
RuntimeWarning from the runtime's own line).  Run in a fresh interpreter: pytest restores
the warnings filters that imports made inside its collection."""

from __future__ import annotations

import subprocess
import sys

_PROGRAM = """
import numpy as np
import st_autodiff as torch
x = torch.tensor([0.0, 1.0], requires_grad=True)
y = torch.log(x) + x / torch.tensor([0.0, 2.0]) + torch.sqrt(x - 1.0)
y.sum().backward()
print(y.detach().numpy().tolist(), x.grad.numpy().tolist())
np.log(np.array([0.0]))  # the user's own NumPy call: NumPy's warning, an error here
"""


def test_runtime_kernels_raise_no_float_warnings_and_numpy_still_does() -> None:
    run = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-c", _PROGRAM],
                         capture_output=True, text=True, timeout=120)
    assert "[nan, 0.5] [nan, inf]" in run.stdout, run.stderr  # PyTorch's values
    assert run.returncode != 0
    assert "RuntimeWarning: divide by zero encountered in log" in run.stderr
    assert run.stderr.count("RuntimeWarning") == 1 and 'line 8' in run.stderr
