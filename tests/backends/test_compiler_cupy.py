"""The whole compiler corpus on CuPy arrays (skipped only where no CUDA GPU is present):
each gradient is a CuPy array, not a host array, and equals NumPy's.

CuPy mirrors NumPy's API, so every entry runs, the array-API exceptions of
``test_compiler_strict`` included (CuPy has ``einsum`` and NumPy's promotion rules).  A
failure here is hidden NumPy in generated code or in ``rt``: a constant left on the host,
a helper calling ``np.``, a Python number where CuPy wants an array.
"""

from __future__ import annotations

import numpy as np
import pytest

from st_autodiff.runtime.backend import gpu_available

from .corpus_on import entries, run_entry

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not gpu_available(), reason="no CUDA GPU (CuPy) here")]


@pytest.mark.parametrize("entry", entries(), ids=lambda e: e.name)
def test_corpus_entry_on_cupy(entry: object) -> None:
    import cupy

    # GPU reductions add in another order than NumPy's: equal to 1e-10, not bit for bit
    run_entry(entry, cupy.asarray, lambda v: isinstance(v, cupy.ndarray), cupy.asnumpy,
              rtol=1e-10)


def test_a_gradient_of_cupy_arrays_reads_no_host_value() -> None:
    """Implicit conversion of a CuPy array to NumPy raises in CuPy itself; the gradient of
    a small model runs with no such conversion and stays on the device."""
    import cupy

    import st_autodiff as st

    def loss(w, x, y):
        return np.mean((np.tanh(x @ w) - y) ** 2)

    rng = np.random.default_rng(0)
    w, x, y = rng.normal(size=3), rng.normal(size=(50, 3)), rng.normal(size=50)
    got = st.grad(loss)(cupy.asarray(w), cupy.asarray(x), cupy.asarray(y))
    assert isinstance(got, cupy.ndarray) and got.device.id == cupy.cuda.Device().id
    np.testing.assert_allclose(cupy.asnumpy(got), st.grad(loss)(w, x, y), rtol=1e-12)
