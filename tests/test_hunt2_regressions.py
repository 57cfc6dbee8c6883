"""Wrong results and bad refusals found by a second outside hunt (hand-written programs
in patterns users write, and library functions imported at test time), one test per
root cause.  Gradients are compared with float64 central differences.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import st_autodiff as st
from st_autodiff.testing import check_grads

X3 = np.array([0.3, -1.2, 0.8])


def _agrees(f: Callable[..., Any], *args: Any) -> None:
    """``st.value_and_grad(f)`` gives Python's value and central differences' gradient."""
    vg = st.value_and_grad(f)
    value, _ = vg(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-10)
    check_grads(f, args, lambda *a: (vg(*a)[1],), argnums=[0])


# --- keyword-only defaults changed in place (f.__kwdefaults__["w"] = v keeps the dict's
# identity): the cached gradient kept the old default, silently --------------------------

def test_kwdefaults_changed_in_place_top_level() -> None:
    def f(x: Any, *, w: float = 2.0, p: int = 2) -> Any:
        return np.sum(w * x ** p)

    g = st.grad(f)
    g(X3)
    f.__kwdefaults__["w"] = 7.0  # type: ignore[index]
    check_grads(f, (X3,), lambda x: (g(x),))
    f.__kwdefaults__["p"] = 3  # type: ignore[index]
    check_grads(f, (X3,), lambda x: (g(x),))


def test_kwdefaults_changed_in_place_inlined_helper() -> None:
    def h(x: Any, *, w: float = 2.0, p: int = 2) -> Any:
        return w * x ** p

    def f(x: Any) -> Any:
        return np.sum(h(x))

    g = st.grad(f)
    g(X3)
    h.__kwdefaults__["w"] = 7.0  # type: ignore[index]
    check_grads(f, (X3,), lambda x: (g(x),))
    h.__kwdefaults__["p"] = 3  # type: ignore[index]
    check_grads(f, (X3,), lambda x: (g(x),))
