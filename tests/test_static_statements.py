"""Static statements (``transforms/static_stmts.py``): ``raise``, ``assert``, ``try`` and
``import`` decided where lowering reaches them, strings built while compiling, and item
writes into static lists and dicts.

Accepted code is checked against central differences in float64 (and the plain Python
value); refused code must give a located error: a static ``raise`` carries the
exception's type and message at the ``raise``, a runtime one is refused at its line.
"""

# ruff: noqa: UP030, UP031, UP032  (library-style string formatting on purpose)
from __future__ import annotations

import inspect
import math
import operator
import sys

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import CompileError, StaticRaiseError, UnsupportedSyntaxError
from st_autodiff.testing import check_grads

X = np.array([0.5, -1.25, 2.0])
M = np.array([[1.0, 2.0], [0.5, -1.5]])


def check(f, *args):
    """Value equal to Python's, gradient of every float argument equal to central
    differences."""
    wrt = tuple(i for i, a in enumerate(args) if isinstance(a, (float, np.ndarray)))
    value, grads = st.value_and_grad(f, wrt=wrt)(*args)
    assert value == pytest.approx(f(*args), rel=1e-12, abs=1e-12)
    full = [None] * len(args)

    def grad_fn(*a):
        got = st.grad(f, wrt=wrt)(*a)
        for i, g in zip(wrt, got if isinstance(got, tuple) else (got,)):
            full[i] = g
        return full

    check_grads(f, args, grad_fn, argnums=wrt)
    return grads


def line_of(fn, text):
    """The file line of the first line of ``fn`` holding ``text``."""
    lines, first = inspect.getsourcelines(fn)
    hits = [first + k for k, ln in enumerate(lines) if text in ln]
    assert hits, text
    return hits[0]


def compile_error(fn, *args, kind=CompileError):
    with pytest.raises(kind) as info:
        st.grad(fn)(*args)
    return info.value


# --- raise and assert on untaken paths: accepted ----------------------------------------


def validated_cube(x):
    if x.ndim != 1:
        raise ValueError(f"x must be 1-D, got {x.ndim}-D")
    if x.shape[0] < 2:
        raise ValueError("need at least two points, got %d" % x.shape[0])
    assert x.dtype == np.float64, "float64 only"
    assert x.ndim == 1
    return np.sum(x ** 3)


def early_return_then_raise(x):
    if x.ndim == 1:
        return np.sum(np.sin(x) * x)
    raise ValueError("unreachable for vectors")


def _check_axis(axis, ndim):
    if not -ndim <= axis < ndim:
        raise IndexError("axis {} is out of bounds for {} dimensions".format(axis, ndim))
    return axis % ndim


def validated_by_helper(x, axis):
    ax = _check_axis(axis, x.ndim)
    return np.sum(np.cumsum(x, axis=ax) ** 2)


def test_raise_and_assert_on_untaken_paths_cost_nothing():
    check(validated_cube, X)
    check(early_return_then_raise, X)
    check(validated_by_helper, M, -1)
    check(validated_by_helper, M, 0)


# --- raise and assert on a static path: located errors with the message ----------------


def test_static_raise_is_a_located_error_with_type_and_message():
    err = compile_error(validated_cube, M, kind=StaticRaiseError)
    assert isinstance(err.exception, ValueError)
    assert err.message == "ValueError: x must be 1-D, got 2-D"
    assert (err.loc.file, err.loc.line) == (__file__, line_of(validated_cube, "raise Value"))
    assert err.loc.col == 9
    assert "check the arguments" in err.hint
    err = compile_error(validated_cube, np.array([1.0]), kind=StaticRaiseError)
    assert err.message == "ValueError: need at least two points, got 1"


def test_static_raise_in_a_callee_points_at_the_callee():
    err = compile_error(validated_by_helper, M, 2, kind=StaticRaiseError)
    assert err.message == "IndexError: axis 2 is out of bounds for 2 dimensions"
    assert err.loc.line == line_of(_check_axis, "raise IndexError")


def test_failed_static_assert():
    err = compile_error(validated_cube, X.astype(np.float32), kind=StaticRaiseError)
    assert err.message == "AssertionError: float64 only"
    assert err.loc.line == line_of(validated_cube, "float64 only")

    def bare(x):
        assert x.ndim == 3
        return np.sum(x)

    err = compile_error(bare, X, kind=StaticRaiseError)
    assert err.message == "AssertionError: assert x.ndim == 3 failed"


def message_with_runtime_value(x):
    if x.ndim == 1:
        raise ValueError(f"bad input: {np.sum(x)} (shape {x.shape})")
    return np.sum(x)


def test_runtime_values_in_a_certain_message_are_placeholders():
    err = compile_error(message_with_runtime_value, X, kind=StaticRaiseError)
    assert err.message == "ValueError: bad input: <runtime value> (shape (3,))"


def runtime_raise(x):
    if np.sum(x) > 0:
        raise ValueError("positive")
    return np.sum(x)


def runtime_assert(x):
    assert np.all(x > -10.0), "too small"
    return np.sum(x)


def raise_in_runtime_loop(x, n):
    total = 0.0
    for i in range(n):
        if x.ndim != 1:
            raise ValueError("vectors only")
        total = total + x[i]
    return total


def test_raise_under_a_runtime_condition_runs_with_the_compiled_code():
    """A raise or assert that only the data decide is an effect of the compiled code: the
    same exception, with the same message, when (and only when) Python raises it."""
    for f, good, bad in ((runtime_raise, -np.abs(X), np.abs(X) + 1.0),
                         (runtime_assert, X, X - 20.0)):
        check(f, good)
        with pytest.raises((ValueError, AssertionError)) as python:
            f(bad)
        with pytest.raises(type(python.value)) as compiled:
            st.grad(f)(bad)
        # (pytest's assert rewriting appends its explanation to Python's message)
        assert str(python.value).startswith(str(compiled.value))


def test_raise_inside_a_runtime_loop_is_not_static():
    check(raise_in_runtime_loop, X, 2)  # the raise is folded away for vectors
    np.testing.assert_allclose(st.grad(raise_in_runtime_loop)(M, 0), np.zeros_like(M))
    err = compile_error(raise_in_runtime_loop, M, 2, kind=StaticRaiseError)  # 2 trips: sure
    assert err.message == "ValueError: vectors only"


# --- try ----------------------------------------------------------------------------------

TABLE = {"square": lambda v: v * v, "sine": np.sin}


def lookup_with_default(x, name):
    try:
        impl = TABLE[name]
    except KeyError:
        impl = np.tanh
    return np.sum(impl(x) * x)


def try_else_finally(x):
    scale = 1.0
    try:
        y = x * 2.0
        impl = TABLE["square"]
    except (KeyError, AttributeError):
        impl = np.cos
    else:
        scale = 3.0
    finally:
        y = y + 1.0
    return np.sum(impl(y)) * scale


def _mode_plain(name):
    if name != "sum" and name != "mean":
        raise ValueError(f"unknown reduction {name!r}")
    return name


def reduce_with_fallback(x, name):
    try:
        mode = _mode_plain(name)
    except ValueError as e:
        mode = "mean" if str(e).startswith("unknown reduction") else "sum"
    y = x * x
    return np.sum(y) if mode == "sum" else np.mean(y)


def reraise_outer(x, name):
    try:
        try:
            impl = TABLE[name]
        except KeyError:
            raise
    except LookupError:
        impl = np.exp
    return np.sum(impl(x))


def return_in_try_runs_finally(x):
    total = {"n": 0}
    try:
        return np.sum(x * x) + total["n"]
    finally:
        total["n"] = 1


def exception_attributes(x):
    try:
        raise KeyError("alpha")
    except KeyError as e:
        key = e.args[0]
    return np.sum(x) * len(key)


def test_static_try_selects_its_handler():
    for name in ("square", "sine", "missing"):
        check(lookup_with_default, X, name)
    check(try_else_finally, X)
    check(reduce_with_fallback, X, "sum")
    check(reduce_with_fallback, X, "median")
    check(reraise_outer, X, "missing")
    check(reraise_outer, X, "sine")
    check(exception_attributes, X)


def test_return_in_try_with_finally():
    check(return_in_try_runs_finally, X)


def uncaught_in_try(x):
    try:
        impl = TABLE["missing"]
    except AttributeError:
        impl = np.cos
    return np.sum(impl(x))


def runtime_code_under_broad_handler(x):
    try:
        y = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        y = x
    return np.sum(y)


def runtime_code_under_exception(x):
    try:
        y = np.log(x)
    except Exception:
        y = x
    return np.sum(y)


def runtime_code_under_key_error(x, name):
    try:
        y = np.log(x * x) * TABLE[name](x)
    except KeyError:
        y = x
    return np.sum(y)


def caught_only_at_run_time(x):
    try:
        if np.sum(x) > 0:
            y = TABLE["missing"](x)
        else:
            y = x
    except KeyError:
        y = x * 2.0
    return np.sum(y)


def test_try_errors_are_located():
    err = compile_error(uncaught_in_try, X, kind=StaticRaiseError)
    assert err.message == "KeyError: 'missing'"
    assert err.loc.line == line_of(uncaught_in_try, 'TABLE["missing"]')
    for fn, name in ((runtime_code_under_broad_handler, "LinAlgError"),
                     (runtime_code_under_exception, "Exception")):
        err = compile_error(fn, M, kind=UnsupportedSyntaxError)
        assert err.message.startswith(f"except {name} around values computed at run time")
        assert err.loc.line == line_of(fn, "    except ")
    err = compile_error(caught_only_at_run_time, X, kind=UnsupportedSyntaxError)
    # (the KeyError under the runtime if is raised by the compiled code, which the
    # handler would have to catch at run time)
    assert err.message.startswith("except KeyError around values computed at run time")


def shapes_checked_while_compiling(x):
    try:
        r = M @ x[:2] - 1.0  # a shape mismatch would be found while compiling
    except ValueError:
        r = np.zeros(2)
    return np.sum(r ** 2)


def inverse_under_value_error(x):
    try:
        y = np.linalg.inv(x)  # LinAlgError is a ValueError
    except ValueError:
        y = x
    return np.sum(y)


def test_runtime_code_under_a_handler_runtime_code_cannot_trigger():
    check(runtime_code_under_key_error, np.abs(X) + 0.5, "sine")
    check(runtime_code_under_key_error, np.abs(X) + 0.5, "missing")
    check(shapes_checked_while_compiling, X)
    err = compile_error(inverse_under_value_error, M, kind=UnsupportedSyntaxError)
    assert err.message.startswith("except ValueError around values computed at run time")


# --- import inside functions ------------------------------------------------------------


def imports_inside(x):
    import math as m

    from numpy import linalg
    from numpy.linalg import norm as vector_norm

    return vector_norm(x) * m.pi + np.sum(linalg.inv(np.eye(2)) @ x[:2])


def optional_import(x):
    try:
        from math import not_a_function as f  # noqa: F401
    except ImportError:
        f = np.sin
    return np.sum(f(x))


def test_imports_run_while_compiling():
    check(imports_inside, X)
    check(optional_import, X)


def failed_import(x):
    import not_a_module_st_autodiff_test  # noqa: F401

    return np.sum(x)


def test_failed_import_is_located():
    err = compile_error(failed_import, X, kind=StaticRaiseError)
    assert isinstance(err.exception, ImportError)
    assert err.loc.line == line_of(failed_import, "import not_a_module")


# --- strings --------------------------------------------------------------------------


def strings(x, name):
    label = f"{name!r}:{x.ndim:>3d}|{x.shape}|{{}}" + "%s-%03d" % (name, 7)
    parts = "{0}/{1}".format(name.upper(), len(label)).split("/")
    width = len(label) + len(parts[1]) + len(",".join(["a", "b"]))
    return np.sum(x) * width + (1.0 if label.startswith("'ab'") else 0.0)


def test_strings_are_static():
    name = "ab"
    label = f"{name!r}:{X.ndim:>3d}|{X.shape}|{{}}" + "%s-%03d" % (name, 7)
    assert strings(X, "ab") == pytest.approx(np.sum(X) * (len(label) + 2 + 3) + 1.0)
    check(strings, X, "ab")


def formats_runtime_value(x):
    label = f"loss={np.sum(x):.4f}"
    return np.sum(x) * len(label)


def test_formatting_a_runtime_value_happens_at_run_time():
    assert st.grad(formats_runtime_value)(X) == pytest.approx(
        np.full(X.shape, float(len(f"loss={np.sum(X):.4f}"))))
    check(formats_runtime_value, X)


# --- static containers ----------------------------------------------------------------


def keepdims_by_hand(x, axis):
    shape = list(x.shape)
    shape[axis] = 1
    m = np.sum(x, axis=axis).reshape(shape)
    return np.sum((x - m) ** 2)


def dict_and_list_methods(x):
    params = {}
    params["scale"] = 2.0
    params.update(shift=x[0])
    params.setdefault("power", 3)
    order = [2, 0]
    order.extend([1])
    order.insert(0, 0)
    order.sort()
    total = 0.0
    for k, v in params.items():
        total = total + (v if k != "power" else 0.0)
    scaled = x * params.get("scale") + params.pop("shift")
    return np.sum(scaled ** params["power"]) * order.count(0) + total + order.index(2)


def aug_assign_into_list(x):
    items = [x * 1.0, 2.0]
    items[1] += 1.0
    items[0] = items[0] * items[1]
    return np.sum(items[0])


def test_static_containers():
    check(keepdims_by_hand, M, 0)
    check(keepdims_by_hand, M, 1)
    check(dict_and_list_methods, X)
    check(aug_assign_into_list, X)


GLOBAL_SHAPE = [2, 2]


def writes_global_list(x):
    shape = GLOBAL_SHAPE
    shape[0] = 4
    return np.sum(x.reshape(shape))


def test_global_containers_are_never_changed_while_compiling():
    with pytest.raises(UnsupportedSyntaxError, match="lives outside the function"):
        st.grad(writes_global_list)(np.ones(4))
    assert GLOBAL_SHAPE == [2, 2]


# --- errors inside library code ----------------------------------------------------------


def negative_degree(x):
    from numpy.polynomial.polynomial import polyvander

    return np.sum(polyvander(x, -1))


def test_library_error_names_the_users_call():
    """A static raise inside NumPy's Python code: the error starts at the user's call,
    then shows the library's line, and the hint is about the arguments."""
    from numpy.polynomial import polynomial

    err = compile_error(negative_degree, X, kind=StaticRaiseError)
    assert err.message == "ValueError: deg must be non-negative"
    assert err.loc.file == inspect.getsourcefile(polynomial)
    assert err.call_site is not None
    assert (err.call_site.file, err.call_site.line) == (
        __file__, line_of(negative_degree, "return np.sum(polyvander"))
    assert err.callee == "numpy.polynomial.polynomial.polyvander"
    lines = str(err).splitlines()
    assert lines[0] == (f"{err.call_site}: error: in numpy.polynomial.polynomial.polyvander: "
                        "ValueError: deg must be non-negative")
    assert lines[1].strip() == "return np.sum(polyvander(x, -1))"
    assert lines[3] == f"  {err.loc}: inside numpy.polynomial.polynomial.polyvander, here:"
    assert "check their types, shapes and values" in err.hint


def test_user_errors_have_no_call_site():
    err = compile_error(validated_by_helper, M, 2, kind=StaticRaiseError)
    assert err.call_site is None
    assert str(err).splitlines()[0].startswith(f"{__file__}:")


def calls_c_function(x):
    return np.sum(math.fsum(x) * x)  # a C function: not inlined


def test_errors_at_the_users_line_are_unchanged():
    err = compile_error(calls_c_function, X)
    assert err.call_site is None and err.loc.file == __file__


# --- dict methods on **kwargs: the partial's keywords reach them ----------------------


def _penalised(w, **options):
    lam = options.get("lam", 0.1)
    return np.sum(w ** 2) * lam + options.get("shift", 0.0)


def test_partial_keywords_taken_by_kwargs_are_passed():
    import functools

    for fn in (functools.partial(_penalised, lam=0.7),
               functools.partial(_penalised, lam=0.7, shift=2.0)):
        value, grad = st.value_and_grad(fn)(X)
        assert value == pytest.approx(fn(X))
        assert grad == pytest.approx(2 * 0.7 * X)
    fn = functools.partial(_penalised, lam=0.7)
    value, grad = st.value_and_grad(fn)(X, lam=0.3)  # the call's keyword wins
    assert value == pytest.approx(fn(X, lam=0.3))
    assert grad == pytest.approx(2 * 0.3 * X)


# --- static-call folding and validation helpers ------------------------------------------


def _validate(x, axis):
    if not isinstance(axis, int):
        raise TypeError("axis must be an int")
    if operator.index(axis) >= x.ndim:
        raise ValueError("axis out of range")


def static_calls(x, axis):
    _validate(x, axis)  # a helper that returns None implicitly
    dt = np.result_type(np.float32, np.float64)
    order = sorted([2, 0, 1], reverse=True)
    ok = any([order[-1] == 0, False])
    return np.sum(np.sum(x, axis=axis).astype(dt) ** 2) * order[0] * (2.0 if ok else 1.0)


def test_static_calls_fold_and_helpers_may_return_none():
    check(static_calls, M, 1)
    err = compile_error(static_calls, M, 2, kind=StaticRaiseError)
    assert err.message == "ValueError: axis out of range"


def random_draw(x):
    return np.sum(x * np.random.rand(3))


def test_random_draws_are_never_folded():
    np.random.seed(5)
    got = st.grad(random_draw)(X)
    np.random.seed(5)
    np.testing.assert_allclose(got, np.random.rand(3))  # drawn when the gradient runs


# --- the CLI never runs user code: imports in functions load installed modules only -----


def test_cli_imports_inside_functions(tmp_path, capsys, monkeypatch):
    from st_autodiff.cli import main

    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "neighbour_mod_st_test.py").write_text("A = 1\n")
    path = tmp_path / "model.py"
    path.write_text(
        "import numpy as np\n\n\n"
        "def loss(x):\n"
        "    import math\n"
        "    from numpy.linalg import norm\n"
        "    try:\n"
        "        from math import not_there\n"
        "    except ImportError:\n"
        "        not_there = 2.0\n"
        "    return norm(x) * math.pi * not_there\n\n\n"
        "def uses_neighbour(x):\n"
        "    import neighbour_mod_st_test\n"
        "    return np.sum(x)\n")
    assert main(["dump", f"{path}:loss", "--arg", "x=f64[3]"]) == 0
    out = capsys.readouterr().out
    assert "3.14159" in out and "2.0" in out
    assert main(["dump", f"{path}:uses_neighbour", "--arg", "x=f64[3]"]) == 1
    err = capsys.readouterr().err
    assert f"{path}:15:5: error: module 'neighbour_mod_st_test' is user code" in err
    assert "neighbour_mod_st_test" not in sys.modules  # never imported


# --- the fence is lazy: code static folding removes is never refused --------------------


def dead_code_of_every_kind(x, legacy):
    if legacy:
        class Old:  # noqa: B903
            pass

        del x
        s = {1, 2}
        y = (z := 2.0) * z
        raise RuntimeError(f"legacy mode {s} {y}")
    return np.sum(np.exp(x))


def static_sets(x, method):
    allowed = {"linear", "cubic"}
    known = {1, 2} | {3}
    return np.sum(x ** len(known)) * len(allowed) * (2.0 if method == "cubic" else 1.0)


def test_set_literals_of_static_values():
    check(static_sets, X, "cubic")


def test_constructs_in_removed_branches_are_never_refused():
    check(dead_code_of_every_kind, X, False)
    err = compile_error(dead_code_of_every_kind, X, True)
    assert err.message == "class definitions are not supported inside a differentiated function"
    assert err.loc.line == line_of(dead_code_of_every_kind, "class Old")


def max_of_maybe_empty(x, k):
    try:
        m = np.max(x[:k])  # empty when k == 0: ValueError when it runs
    except ValueError:
        m = 0.0
    return m + np.sum(x)


def test_reductions_without_identity_keep_their_handler_honest():
    check(max_of_maybe_empty, X, 2)  # non-empty: the handler is dead
    # empty (k is static): np.max raises ValueError on every call, so the handler runs,
    # as in Python; never a silent skip of the handler
    check(max_of_maybe_empty, X, 0)
    np.testing.assert_array_equal(st.grad(max_of_maybe_empty)(X, 0), np.ones_like(X))
