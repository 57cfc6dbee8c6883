"""``out=np.zeros_like(h)`` where ``h`` is made while compiling: a fresh array nothing else
holds, so its new values are only the call's result (SciPy 1.17's ``simpson`` divides this
way for even lengths and for sample points ``x=``; both were refused: the real-world corpus
checks simpson itself, ``corpus_scipy_misc.py``).  An ``out=`` that another name can see
stays a located refusal.  Gradients against central differences."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.testing import check_grads

X = np.array([0.3, 0.7, 1.5, 0.2, 0.9, 1.1])


def masked_product(x: np.ndarray) -> Any:
    c = np.array([1.0, -2.0, 3.0, 0.5, -1.0, 2.0])
    r = np.multiply(x, 2.0, out=np.zeros_like(c), where=c > 0)
    return np.sum(r * x)


def static_quotient(x: np.ndarray) -> Any:
    c = np.array([1.0, -2.0, 3.0, 0.5, -1.0, 2.0])
    r = np.divide(c, c + 3.0, out=np.zeros_like(c), where=c > 0)
    return np.sum(r * x)


@pytest.mark.parametrize("fn", [masked_product, static_quotient], ids=lambda f: f.__name__)
def test_out_into_a_fresh_temporary(fn: Any) -> None:
    np.testing.assert_allclose(st.value_and_grad(fn)(X)[0], fn(X), rtol=1e-13)
    check_grads(fn, (X,), lambda x: (st.grad(fn)(x),))


def test_out_that_another_name_sees_is_refused_at_the_call() -> None:
    def f(x: np.ndarray) -> Any:
        a = np.zeros(6)
        np.add(x, 1.0, out=np.asarray(a))  # np.asarray(a) is a itself
        return np.sum(a * x)

    with pytest.raises(st.UnsupportedSyntaxError, match=r"test_out_temporaries.py:\d+:\d+: "
                       r"error: out= into an array computed while compiling must name it"):
        st.grad(f)(X)
