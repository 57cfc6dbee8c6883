"""Complex numbers are refused everywhere, with a located error (issue bug 14).

st_autodiff's rules follow no single convention for complex values (JAX's, PyTorch's), so
rather than return a gradient that matches neither, both engines refuse them: the
compiler at the argument or construct that makes a complex value, for every
transformation; ``jvp``/``vjp`` when a tangent or cotangent is complex; the eager runtime
when a complex tensor would be made.  The decision is written in docs/architecture.md
("Complex numbers").  Real functions keep real gradients (the last tests).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import st_autodiff as st
import st_autodiff as torch
from st_autodiff.errors import UnsupportedSyntaxError
from st_autodiff.testing import check_grads

X = np.array([0.5, 1.5, 2.5])
Z = X + 0.25j
GLOBAL_Z = np.array([1.0 + 1.0j, 2.0, 3.0])
MESSAGE = "complex numbers are not supported yet"

TRANSFORMS: dict[str, Callable[[Callable[..., Any], Any], Any]] = {
    "grad": lambda f, x: st.grad(f)(x),
    "value_and_grad": lambda f, x: st.value_and_grad(f)(x),
    "vjp": lambda f, x: st.vjp(f, x)[1](1.0),
    "jvp": lambda f, x: st.jvp(f, (x,), (np.ones(np.shape(x)),)),
    "jacrev": lambda f, x: st.jacrev(f)(x),
    "jacfwd": lambda f, x: st.jacfwd(f)(x),
    "hessian": lambda f, x: st.hessian(f)(x),
}


# --- complex arguments ------------------------------------------------------------------

def abs_sin(z):  # <- argument
    return np.sum(np.abs(np.sin(z)))


@pytest.mark.parametrize("transform", TRANSFORMS, ids=list(TRANSFORMS))
@pytest.mark.parametrize("arg", [Z, Z.astype(np.complex64), 1.0 + 2.0j],
                         ids=["complex128", "complex64", "python-complex"])
def test_complex_argument_is_refused_at_the_parameter(transform: str, arg: Any) -> None:
    with pytest.raises(UnsupportedSyntaxError) as info:
        TRANSFORMS[transform](abs_sin, arg)
    exc = info.value
    assert f"{MESSAGE}: the argument 'z' is" in exc.message
    line, text = marked("argument")
    assert (exc.loc.file, exc.loc.line, exc.loc.col) == (FILE, line, text.index("z):") + 1)
    assert "two real arrays" in exc.hint


def mixed(x, z):
    return np.sum(np.abs(x * z))


def test_real_argument_next_to_a_complex_one_gets_no_complex_gradient() -> None:
    for call in (lambda: st.grad(mixed)(X, Z), lambda: st.grad(mixed, wrt=0)(X, Z),
                 lambda: st.vjp(mixed, X, Z)[1](1.0),
                 lambda: st.jvp(mixed, (X, Z), (np.ones(3), None))):
        with pytest.raises(UnsupportedSyntaxError, match="the argument 'z' is a complex128"):
            call()


# --- constructs that make complex values from real ones ---------------------------------

def astype_complex(x):
    return np.sum(np.abs(x.astype(complex)))  # <- astype


def asarray_complex(x):
    return np.sum(np.abs(np.asarray(x, dtype=np.complex128)))  # <- asarray


def literal(x):
    return np.sum(np.abs(np.exp(1j * x)))  # <- literal


def sqrt_of_complex(x):
    return np.sum(np.real(np.sqrt(x - 5.0 + 0j)))  # <- sqrt


def fft(x):  # np.fft.fft itself is supported (a pair of real arrays); np.exp of it is not
    return np.sum(np.abs(np.exp(np.fft.fft(x))))  # <- fft


def roots(x):  # (np.linalg.eig of real spectra is supported: docs/linalg.md)
    return np.sum(np.abs(np.roots(x)))  # <- roots


def emath_sqrt(x):
    return np.sum(np.real(np.emath.sqrt(x - 2.0)))  # <- emath


def complex_call(x):
    return np.sum(np.abs(x * complex(1.0, 2.0)))  # <- complex-call


def numpy_complex_scalar(x):
    return np.sum(np.abs(x * np.complex128(2.0)))  # <- numpy-scalar


def global_complex_array(x):
    return np.sum(np.abs(x * GLOBAL_Z))  # <- global


def in_a_loop(x):
    s = 0.0
    for i in range(3):
        s = s + np.sum(np.abs(x.astype(np.complex64) * i))  # <- loop
    return s


CONSTRUCTS = [
    # (function, marker, token at the error's column, part of the message)
    (astype_complex, "astype", "x.astype(complex)", "astype makes a complex128 value"),
    (asarray_complex, "asarray", "np.asarray(", "makes a complex128 value"),
    (literal, "literal", "1j", "the literal 1j is complex"),
    (sqrt_of_complex, "sqrt", "0j", "the literal 0j is complex"),
    (fft, "fft", "np.exp(np.fft", "np.exp() of a complex value"),
    (roots, "roots", "np.roots(", "numpy.roots makes complex values"),
    (emath_sqrt, "emath", "np.emath.sqrt(", "sqrt makes complex values"),
    (complex_call, "complex-call", "complex(1.0, 2.0)", "complex makes complex values"),
    (numpy_complex_scalar, "numpy-scalar", "x * np.complex128", "a complex128 value is used"),
    (global_complex_array, "global", "x * GLOBAL_Z", "mul makes a complex128 value"),
    (in_a_loop, "loop", "x.astype(np.complex64)", "astype makes a complex64 value"),
]
FILE = inspect.getsourcefile(abs_sin)
LINES = inspect.getsource(inspect.getmodule(abs_sin)).splitlines()


def marked(name: str) -> tuple[int, str]:
    """The line number and text of the line marked ``# <- name`` in this file."""
    hits = [k for k, text in enumerate(LINES, 1) if text.rstrip().endswith(f"# <- {name}")]
    assert len(hits) == 1, f"marker {name!r} found {len(hits)} times"
    return hits[0], LINES[hits[0] - 1]


@pytest.mark.parametrize("transform", TRANSFORMS, ids=list(TRANSFORMS))
@pytest.mark.parametrize("fn, marker, token, message", CONSTRUCTS,
                         ids=[c[0].__name__ for c in CONSTRUCTS])
def test_construct_making_complex_values_is_refused_where_it_is(
        fn: Callable[..., Any], marker: str, token: str, message: str, transform: str) -> None:
    with pytest.raises(UnsupportedSyntaxError) as info:
        TRANSFORMS[transform](fn, X.copy())
    exc = info.value
    line, text = marked(marker)
    assert exc.message.startswith(MESSAGE + ": ")
    assert message in exc.message
    assert (exc.loc.file, exc.loc.line, exc.loc.col) == (FILE, line, text.index(token) + 1)
    assert str(exc).splitlines()[1] == "    " + text.strip()


def test_complex_default_argument_is_refused() -> None:
    def scaled(x, c=1j):
        return np.sum(np.abs(x * c))

    with pytest.raises(UnsupportedSyntaxError, match="the argument 'c' is a Python complex"):
        st.grad(scaled)(X)


# --- complex tangents and cotangents ----------------------------------------------------

def cube(x):
    return np.sum(x**3)


def test_complex_tangent_or_cotangent_of_a_real_function_is_refused() -> None:
    with pytest.raises(TypeError, match="tangent of argument 0 is complex.*not supported yet"):
        st.jvp(cube, (X,), (X + 1j,))
    with pytest.raises(TypeError, match="tangent of argument 0 is complex"):
        st.hvp(cube, (X,), (X + 1j,))
    _, pullback = st.vjp(cube, X)
    with pytest.raises(TypeError, match="the cotangent is complex.*not supported yet"):
        pullback(1.0 + 1.0j)
    with pytest.raises(TypeError, match="the cotangent is complex"):
        st.hvp(cube, (X,), (X + 1j,), mode="reverse")


# --- the eager runtime --------------------------------------------------------------------

EAGER_MESSAGE = "complex tensors are not supported yet"
_LEAF = torch.tensor([1.0, 2.0], requires_grad=True)
EAGER = {
    "tensor": lambda: torch.tensor(np.array([1 + 2j, 3j])),
    "tensor-requires-grad": lambda: torch.tensor(np.array([1 + 2j, 3j]), requires_grad=True),
    "tensor-of-list": lambda: torch.tensor([1 + 2j, 3.0]),
    "from_numpy": lambda: torch.from_numpy(np.array([1j])),
    "as_tensor": lambda: torch.as_tensor(np.array([1j])),
    "zeros-dtype": lambda: torch.zeros(2, dtype=np.complex128, requires_grad=True),
    "full": lambda: torch.full((2,), 1j),
    "new_tensor": lambda: _LEAF.new_tensor(np.array([1j])),
    "to": lambda: _LEAF.to(np.complex128),
    "mul-python-complex": lambda: _LEAF * 1j,
    "radd-python-complex": lambda: 1j + _LEAF,
    "mul-numpy-complex": lambda: torch.mul(_LEAF, np.complex128(1j)),
    "exp-of-imaginary": lambda: torch.exp(_LEAF * 1j),
}


@pytest.mark.parametrize("make", EAGER.values(), ids=list(EAGER))
def test_eager_runtime_refuses_complex_tensors(make: Callable[[], Any]) -> None:
    with pytest.raises(TypeError, match=EAGER_MESSAGE):
        make()
    assert _LEAF.grad is None


# --- real functions keep real gradients ---------------------------------------------------

def real_only(x):
    return np.sum(np.abs(np.sin(x)) * np.sqrt(x) + np.linalg.norm(x) + np.var(x))


def test_real_function_gets_real_gradients_from_every_transform() -> None:
    check_grads(real_only, (X,), lambda a: (st.grad(real_only)(a),))
    results = [st.grad(real_only)(X), st.vjp(real_only, X)[1](1.0)[0],
               st.jvp(real_only, (X,), (np.ones(3),))[1], st.jacfwd(real_only)(X),
               st.hessian(real_only)(X)]
    for r in results:
        assert not np.iscomplexobj(r)
    t = torch.tensor(X, requires_grad=True)
    (torch.abs(torch.sin(t)) * torch.sqrt(t)).sum().backward()
    assert t.grad.dtype == torch.float64
    np.testing.assert_allclose(t.grad.numpy(), st.grad(abs_sin_sqrt)(X), rtol=1e-12)


def abs_sin_sqrt(x):
    return np.sum(np.abs(np.sin(x)) * np.sqrt(x))
