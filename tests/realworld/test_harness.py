"""The corpus check itself can fail: a wrong gradient, a wrong reference and an
unlocated exception are each reported as ``wrong``; a located refusal as ``refused`` with
the wrapper's file and line; rebinding reaches module globals and closure cells."""

from __future__ import annotations

import numpy as np
import pytest

import st_autodiff as st

from . import entry as entry_module
from .entry import Registry, _free_names, _run


def _softplus(x):
    return np.logaddexp(0.0, x)


# A deliberately wrong rule (the true derivative is the logistic function).
st.register_vjp(_softplus, lambda g, out, x: (g * 2.0,))

X3 = np.array([0.3, -1.2, 0.8])
SCALE = 2.0


def wrong_rule_loss(x):
    return np.sum(_softplus(x))


def square_loss(x):
    return np.sum(x ** 2)


def refused_loss(x):
    assert x.ndim == 2  # false for vectors: a located error, for good
    return np.sum(x)


def scaled_loss(x):
    return SCALE * np.sum(x ** 2)


def _one(fn, *args, **options):
    reg = Registry("harness")
    reg.add(fn.__name__, fn, *args, **options)
    return reg.entries[0]


def test_wrong_gradient_is_wrong() -> None:
    out = _run(_one(wrong_rule_loss, X3))
    assert out.status == "wrong" and "central differences" in out.message


def test_wrong_reference_is_wrong() -> None:
    out = _run(_one(square_loss, X3, ref=lambda x: (3.0 * x,)))
    assert out.status == "wrong" and "analytic gradient" in out.message


def test_right_gradient_and_reference_pass() -> None:
    assert _run(_one(square_loss, X3, ref=lambda x: (2.0 * x,))).status == "pass"


def test_located_refusal() -> None:
    out = _run(_one(refused_loss, X3))
    assert out.status == "refused"
    assert out.location.endswith(f"test_harness.py:{refused_loss.__code__.co_firstlineno + 1}")


def test_unlocated_exception_is_wrong(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args, **kwargs):
        raise KeyError("internal")

    monkeypatch.setattr(entry_module.st, "value_and_grad", broken)
    out = _run(_one(square_loss, X3))
    assert out.status == "wrong" and "unlocated crash KeyError" in out.message


def test_rebinding_reaches_globals_and_closure_cells() -> None:
    def make(c):
        def f(x):
            return SCALE * c * np.sum(x)

        return f

    f = make(3.0)
    slots = _free_names(f)
    slots["SCALE"].set(5.0)
    slots["c"].set(7.0)
    assert f(np.ones(1)) == 35.0
    slots["SCALE"].set(2.0)
    assert SCALE == 2.0 and slots["c"].get() == 7.0


PAIR = (lambda x: np.sum(x ** 2), lambda x: np.sum(x ** 3))


def test_location_named_in_the_message_counts() -> None:
    reg = Registry("harness")
    reg.add("second_lambda", PAIR[1], X3)
    out = _run(reg.entries[0])
    if out.status == "refused":  # the compiler cannot tell the two lambdas apart
        line = PAIR[1].__code__.co_firstlineno
        assert out.location.endswith(f"test_harness.py:{line}")
    else:
        assert out.status == "pass"
