"""Writes into containers that outlive the call (globals, closure cells, defaults,
attributes of objects) are refused at the user's line: lowering runs such a write once,
while compiling, where Python runs it on every call.  Containers the function makes
itself stay writable."""

from __future__ import annotations

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import UnsupportedSyntaxError

LOG: list = []
CONFIG: dict = {"scale": 2.0, "nested": {}}


class Holder:
    def __init__(self) -> None:
        self.items: list = []


HOLDER = Holder()


def append_global(x):
    LOG.append(1)
    return np.sum(x)


def write_global_dict(x):
    CONFIG["calls"] = 1
    return np.sum(x)


def write_nested_dict(x):
    CONFIG["nested"]["k"] = 2
    return np.sum(x)


def append_attribute(x):
    HOLDER.items.append(1)
    return np.sum(x)


def extend_alias_of_global(x):
    log = LOG
    log += [1]
    return np.sum(x)


def helper_that_logs(x):
    LOG.append(x)
    return x * 2.0


def calls_helper(x):
    return np.sum(helper_that_logs(x))


def mutable_default(x, seen={}):  # noqa: B006  (the pattern under test)
    seen["x"] = 1
    return np.sum(x)


def helper_with_default(x, cache={}):  # noqa: B006  (the pattern under test)
    cache["last"] = 1
    return x * 3.0


def calls_helper_with_default(x):
    return np.sum(helper_with_default(x))


def augmented_global_dict(x):
    CONFIG["scale"] += 1.0
    return np.sum(x) * CONFIG["scale"]


CASES = [
    (append_global, "append to the list 'LOG'", "LOG.append(1)"),
    (write_global_dict, "write into the dict 'CONFIG'", 'CONFIG["calls"]'),
    (write_nested_dict, "held by 'CONFIG'", 'CONFIG["nested"]'),
    (append_attribute, "append to the list 'items'", "HOLDER.items.append(1)"),
    (extend_alias_of_global, "extend the list 'LOG'", "log += [1]"),
    (calls_helper, "append to the list 'LOG'", "LOG.append(x)"),
    (mutable_default, "'seen'", 'seen["x"]'),
    (calls_helper_with_default, "default of parameter 'cache'", 'cache["last"]'),
    (augmented_global_dict, "write into the dict 'CONFIG'", 'CONFIG["scale"]'),
]


@pytest.mark.parametrize("fn, message, line", CASES, ids=[c[0].__name__ for c in CASES])
@pytest.mark.parametrize("transform", ["grad", "value_and_grad", "jvp"])
def test_write_into_outside_container_is_refused_at_the_line(fn, message, line, transform):
    before = (list(LOG), dict(CONFIG), {k: dict(v) if isinstance(v, dict) else v
                                        for k, v in CONFIG.items()}, list(HOLDER.items))
    x = np.ones(2)
    with pytest.raises(UnsupportedSyntaxError) as info:
        if transform == "jvp":
            st.jvp(fn, (x,), (x,))
        else:
            getattr(st, transform)(fn)(x)
    err = info.value
    assert message in err.message
    if fn is not mutable_default:  # at the top level a default is an argument: refused so
        assert "once, while compiling" in err.message
    assert err.loc is not None and err.loc.file == __file__
    assert line in err.loc.text
    # nothing was changed while compiling
    after = (list(LOG), dict(CONFIG), {k: dict(v) if isinstance(v, dict) else v
                                       for k, v in CONFIG.items()}, list(HOLDER.items))
    assert after == before


def local_containers(x):
    xs = []
    xs.append(x * 2.0)
    d = {}
    d["a"] = x * 1.0
    d["a"] += 1.0
    copy = list(LOG)
    copy.append(x)
    return np.sum(xs[0] * d["a"]) + np.sum(copy[-1])


def test_containers_the_function_makes_stay_writable():
    x = np.array([0.5, -1.0, 2.0])
    val, g = st.value_and_grad(local_containers)(x)
    assert val == pytest.approx(local_containers(x))
    np.testing.assert_allclose(g, 2.0 * (x + 1.0) + 2.0 * x + 1.0)
    assert LOG == []


def reads_globals(x):
    return np.sum(x) * CONFIG["scale"] + len(LOG)


def test_reading_outside_containers_is_fine():
    x = np.ones(3)
    assert st.grad(reads_globals)(x) == pytest.approx(np.full(3, CONFIG["scale"]))


def writes_into_dict_argument(p, x):
    p["seen"] = 1.0
    return np.sum(p["w"] * x)


def appends_to_list_in_dict_argument(p, x):
    p["log"].append(1.0)
    return np.sum(p["w"] * x)


@pytest.mark.parametrize("fn, line", [(writes_into_dict_argument, 'p["seen"]'),
                                      (appends_to_list_in_dict_argument, 'p["log"].append')])
def test_writes_into_structured_arguments_are_refused(fn, line):
    p = {"w": np.ones(2), "log": []}
    with pytest.raises(UnsupportedSyntaxError) as info:
        st.grad(fn)(p, np.ones(2))
    assert "argument 'p'" in info.value.message
    assert line in info.value.loc.text
    assert p == {"w": p["w"], "log": []}
