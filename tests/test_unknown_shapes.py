"""Gradients compiled without example arguments (shapes and ranks unknown).

``st.grad(f).source`` before any call and ``st-autodiff dump file.py:f`` without ``--arg``
compile ``f`` with every argument's type unknown: the derivative rules read shapes at run
time in the generated code (``rt.unbroadcast(g, x.shape)``, an ``if`` on ``x.ndim`` where
a rule's form depends on the rank).  Each function here is compiled that way once, then
the generated gradient runs on several shapes (ranks too) and is compared with central
finite differences (float64) and with the gradient compiled for those arguments.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.cli import main
from st_autodiff.errors import CompileError
from st_autodiff.testing import check_grads
from st_autodiff.transforms.adjoint import UnknownShapeError

RNG = np.random.default_rng(7)


def arr(*shape: int) -> np.ndarray:
    return RNG.uniform(0.2, 1.2, shape)


def spd(*shape: int) -> np.ndarray:
    a = RNG.normal(size=shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


# --- the functions -----------------------------------------------------------------------


def elementwise(x, y):
    return np.sum(np.sin(x) * y + np.exp(-x ** 2) / (1.0 + y ** 2) - np.sqrt(x) * 0.5)


def broadcast_ops(x, y):
    return np.sum((x - y) ** 2 / (x + 2.0)) + np.sum(np.log(x * y + 1.0))


def reductions(x):
    a = np.sum(np.mean(x, axis=0) ** 2)
    b = np.sum(np.max(x, axis=-1, keepdims=True) * x)
    c = np.sum(np.var(x, axis=0)) + np.std(x)
    return a + b + c + np.min(x) + np.sum(np.prod(x, axis=-1))


def prod_axes(x):
    return np.sum(np.prod(x, axis=(0, -1)))


def means(x):
    return np.mean(x ** 2) + np.sum(np.mean(x, axis=-1, keepdims=True) * x)


def mlp(w, x, y):
    h = np.tanh(x @ w)
    return np.mean((h - y) ** 2)


def dots(x, w):
    return np.sum(np.dot(x, w) ** 2)


def shapes(x):
    a = np.sum(x.reshape(-1) ** 2)
    b = np.sum(np.transpose(x) * 2.0 + 1.0) + np.sum(x.T[0])
    c = np.sum(x[1:, ::2] ** 3) + np.sum(x[0]) + np.sum(np.expand_dims(x, 0) * 2.0)
    d = np.sum(np.swapaxes(x, 0, 1)[:, 1] ** 2)
    return a + b + c + d


def gather(x, idx):
    return np.sum(x[idx] ** 2) + np.sum(np.take(x, idx, axis=-1) * 3.0)


def selects(x, y):
    a = np.where(x > 0.6, x, 0.1 * x)
    b = np.clip(x, 0.4, 0.9)
    return np.sum(a * b) + np.sum(np.maximum(x, y) ** 2) + np.sum(np.minimum(x, 0.7 * y))


def softmax_xent(x, t):
    m = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x - m)
    p = e / np.sum(e, axis=-1, keepdims=True)
    return -np.sum(np.log(p) * t)


def logsumexp(x):
    m = np.max(x, axis=-1, keepdims=True)
    return np.sum(np.log(np.sum(np.exp(x - m), axis=-1, keepdims=True)) + m)


def recurrence(x, w, b):
    h = x
    for _ in range(3):
        h = np.tanh(h @ w + b)
    return np.sum(h ** 2)


def joins(x, y):
    c = np.concatenate([x, y], axis=-1)
    s = np.stack([x, x * 2.0])
    f = np.concatenate([x, y], axis=None)
    return np.sum(c ** 2) + np.sum(s * s) + np.sum(np.sin(f))


def linalg(a, b):
    x = np.linalg.solve(a, b)
    l_ = np.linalg.cholesky(a)
    t = np.sum(np.trace(a, axis1=-2, axis2=-1))
    return np.sum(x ** 2) + np.sum(l_ ** 2) + t + np.sum(np.diagonal(a, 1, -2, -1) ** 2)


def norms(x):
    return np.linalg.norm(x) + np.sum(np.linalg.norm(x, axis=-1)) + np.linalg.norm(x, np.inf)


def picks(x, idx):
    return np.sum(np.take_along_axis(x, idx, axis=-1) ** 2)


def copies(x):
    return np.sum(np.repeat(x, 2, axis=-1) ** 2) + np.sum(np.repeat(x, 3) * 2.0)


def padded(x):
    return np.sum(np.pad(x, ((1, 2), (0, 1))) ** 2 + 1.0) + np.sum(np.pad(x, 1) ** 3)


def unpacked(x):
    a, b, c = x  # rows of an array whose shape is unknown: array reads, not tuple items
    p, q = x.T[:2]
    return np.sum(a * b - c) + np.dot(p, q)


def two_loops(x, k):
    total = 0.0
    for i in range(k, len(x)):  # bounds known at run time only
        total = total + x[i] * x[i - k]
    for i in range(len(x) - k, 0, -2):  # a second accumulator of the same zeros
        total = total + np.exp(0.5 * x[i])
    return total


def tiled(x):
    return np.sum(np.tile(x, (2, 3)) ** 2) + np.sum(np.tile(x, 2) * 3.0)


def contractions(x, y):
    return np.sum(np.einsum("ij,jk->ik", x, y) ** 2)


def batched_contractions(x, y):
    z = np.einsum("...ij,...jk->...ik", x, y)
    return np.sum(z ** 2) + np.sum(np.einsum("...i->...", x) ** 2)


def batch_times_matrix(x, m):
    return np.sum(np.sin(np.einsum("...ij,jk->...ik", x, m)))


def stacks(x, y, z):
    return np.sum(np.hstack([x, y]) ** 2) + np.sum(np.vstack([x, z]) * 3.0)


#: (function, wrt, argument sets): each set runs through the one generic gradient
CASES = [
    (elementwise, (0, 1), [(arr(3, 4), arr(4)), (arr(5), arr(5)), (arr(2, 3), arr(1, 3)),
                           (arr(2, 1, 3), arr(4, 1)), (arr(3), 0.7)]),
    (broadcast_ops, (0, 1), [(arr(3, 4), arr(3, 1)), (arr(4), arr(2, 4)), (arr(2, 2, 2), 1.5)]),
    (reductions, (0,), [(arr(3, 4),), (arr(2, 3, 4),), (arr(5, 2),)]),
    (prod_axes, (0,), [(arr(3, 4),), (arr(2, 3, 4),)]),
    (means, (0,), [(arr(3, 4),), (arr(6),), (arr(2, 3, 2),)]),
    (mlp, (0, 1), [(arr(3, 2), arr(4, 3), arr(4, 2)), (arr(3), arr(4, 3), arr(4)),
                   (arr(3, 2), arr(3), arr(2)), (arr(3), arr(3), 0.5),
                   (arr(5, 3, 2), arr(5, 4, 3), arr(5, 4, 2)),
                   (arr(3, 2), arr(5, 4, 3), arr(4, 2))]),
    (dots, (0, 1), [(arr(4, 3), arr(3, 2)), (arr(3), arr(3, 2)), (arr(4, 3), arr(3)),
                    (arr(3), arr(3))]),
    (shapes, (0,), [(arr(3, 4),), (arr(4, 3),), (arr(3, 3),)]),
    (gather, (0,), [(arr(4, 5), np.array([0, 2, 2, 3])), (arr(4, 5), np.array([[1], [3]]))]),
    (selects, (0, 1), [(arr(3, 4), arr(4)), (arr(5), arr(5)), (arr(2, 3), 0.6)]),
    (softmax_xent, (0,), [(arr(4, 3), arr(4, 3)), (arr(5), arr(5)), (arr(2, 3, 4), arr(3, 4))]),
    (logsumexp, (0,), [(arr(4, 3),), (arr(6),), (arr(2, 2, 3),)]),
    (recurrence, (0, 1, 2), [(arr(2, 3), arr(3, 3), arr(3)), (arr(3), arr(3, 3), arr(3)),
                             (arr(4, 2), arr(2, 2), arr(4, 2))]),
    (joins, (0, 1), [(arr(2, 3), arr(2, 2)), (arr(3), arr(4))]),
    (linalg, (0, 1), [(spd(3, 3), arr(3)), (spd(3, 3), arr(3, 2)), (spd(2, 4, 4), arr(2, 4, 1))]),
    (norms, (0,), [(arr(3, 4),), (arr(5),)]),  # (ord= takes vectors and matrices only)
    (picks, (0,), [(arr(3, 4), np.array([[0, 3], [1, 1], [2, -1]])),
                   (arr(2, 3, 4), np.array([[[0], [1], [3]]]))]),
    (copies, (0,), [(arr(3, 4),), (arr(5),)]),
    (padded, (0,), [(arr(3, 4),), (arr(2, 1),)]),
    (unpacked, (0,), [(arr(3, 2),), (arr(3, 5),)]),
    (two_loops, (0,), [(arr(6), 2), (arr(7), 1)]),
    (tiled, (0,), [(arr(3, 4),), (arr(5),), (arr(2, 1, 3),)]),
    (contractions, (0, 1), [(arr(2, 3), arr(3, 4)), (arr(1, 3), arr(3, 2))]),
    (batched_contractions, (0, 1), [(arr(2, 3), arr(3, 4)), (arr(5, 2, 3), arr(3, 4)),
                                    (arr(1, 2, 3), arr(4, 3, 2)), (arr(2, 3), arr(2, 3, 1))]),
    (batch_times_matrix, (0, 1), [(arr(2, 3), arr(3, 4)), (arr(5, 2, 3), arr(3, 4)),
                                  (arr(4, 1, 2, 3), arr(3, 2))]),
    (stacks, (0, 1, 2), [(arr(2, 3), arr(2, 2), arr(1, 3)), (arr(3), arr(4), arr(3)),
                         (arr(2, 3), arr(2, 1), arr(3))]),
]


def _as_tuple(v):
    return v if isinstance(v, tuple) else (v,)


@pytest.mark.parametrize(("fn", "wrt", "argsets"), CASES, ids=[c[0].__name__ for c in CASES])
def test_generic_gradient_matches_finite_differences_and_specialised(fn, wrt, argsets):
    gf = st.grad(fn, wrt=wrt)
    source = gf.source  # compiled before any call: no example arguments
    compile(source, "<generic>", "exec")
    generic = gf.__wrapped__
    for args in argsets:
        got = _as_tuple(generic(*args))
        assert len(got) == len(wrt)
        for k, i in enumerate(wrt):
            assert np.shape(got[k]) == np.shape(args[i]), (fn.__name__, k)
        want = _as_tuple(st.grad(fn, wrt=wrt)(*args))  # specialised to these arguments
        for a, b in zip(got, want, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
        full = [None] * len(args)
        for k, i in enumerate(wrt):
            full[i] = got[k]
        check_grads(fn, args, lambda *_a, full=full: tuple(full), argnums=list(wrt))


def test_unknown_rank_matmul_branches_on_rank_and_known_rank_does_not():
    gf = st.grad(mlp, wrt=(0, 1))
    gf.cache_clear()  # st.grad(mlp) shares its specialisations with earlier tests' objects
    generic = gf.source
    assert "len(xp.shape(w)) <= 1" in generic and "\n    if " in generic
    gf(arr(3, 2), arr(4, 3), arr(4, 2))
    special = gf.source  # the specialisation: ranks known, no test at run time
    assert "len(" not in special and "x.T @" in special


def test_generic_source_is_printed_before_a_call_for_every_case():
    for fn, wrt, _ in CASES:
        assert f"def {fn.__name__}_grad(" in st.grad(fn, wrt=wrt).source


def tensordot(x, y):
    return np.sum(np.tensordot(x, y, axes=1))


def test_rank_needed_at_compile_time_is_a_located_error():
    with pytest.raises(CompileError) as exc:
        st.grad(tensordot).source  # noqa: B018
    err = exc.value
    assert "number of dimensions" in str(err) and "without example arguments" in str(err)
    assert err.loc is not None and err.loc.line > 0
    x, y = arr(2, 3), arr(3, 4)  # with arguments it compiles and is right
    g = st.grad(tensordot)(x, y)
    np.testing.assert_allclose(g, np.broadcast_to(y.sum(axis=1), (2, 3)), rtol=1e-12)


def _leaves(v):
    if isinstance(v, (tuple, list)):
        return [leaf for item in v for leaf in _leaves(item)]
    if isinstance(v, dict):
        return [leaf for k in sorted(v) for leaf in _leaves(v[k])]
    return [v]


def test_corpus_generic_gradients_equal_specialised_ones():
    """Every corpus function that compiles without arguments gives, on its example
    arguments, the gradient compiled for them; a derivative rule refuses only where it
    needs a rank while compiling (tensordot, inner, a spectral norm)."""
    try:
        from corpus import CORPUS  # noqa: PLC0415
    except ImportError:  # tests/ imported as a package
        from tests.corpus import CORPUS  # type: ignore[no-redef]  # noqa: PLC0415
    compared, refused = 0, []
    for e in CORPUS:
        args = e.make_args(np.random.default_rng(0))
        gf = st.grad(e.fn, wrt=e.wrt, has_aux=e.has_aux)
        try:
            _ = gf.source  # compiled without arguments: the compiler's error, if any
        except UnknownShapeError as exc:
            assert exc.loc is not None, e.name
            refused.append(str(exc).split(" here")[0].split()[-1])
            continue
        except st.StAutodiffError:
            continue  # lowering needs to know something (a loop over rows, x.ndim)
        got = gf.__wrapped__(*args)
        want = st.grad(e.fn, wrt=e.wrt, has_aux=e.has_aux)(*args)
        if e.has_aux:
            got, want = got[0], want[0]
        got, want = _leaves(got), _leaves(want)
        assert len(got) == len(want), e.name
        for a, b in zip(got, want, strict=True):
            assert np.shape(a) == np.shape(b), e.name
            np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10, err_msg=e.name)
        compared += 1
    assert set(refused) <= {"tensordot", "inner", "norm"}, refused
    assert compared > 0.8 * len(CORPUS)


# --- the command line --------------------------------------------------------------------

README_LOSS = '''import numpy as np

def loss(w, x, y):
    h = np.tanh(x @ w)
    return np.mean((h - y) ** 2)
'''

ORDINARY = '''import numpy as np

def softmax_xent(x, t):
    m = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x - m)
    p = e / np.sum(e, axis=-1, keepdims=True)
    return -np.sum(np.log(p) * t)

def mlp2(w1, w2, b, x):
    h = np.maximum(x @ w1 + b, 0.0)
    return np.sum(np.tanh(h @ w2) ** 2)

def normed(x):
    return np.linalg.norm(x - np.mean(x, axis=0)) + np.sum(np.clip(x, 0.0, 1.0))
'''


def _dump(capsys, path: Path, *argv: str) -> str:
    rc = main(["dump", str(path), *argv, "--color", "never"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert err == ""
    return out


def test_cli_dumps_the_readme_example_without_arg(tmp_path, capsys):
    path = tmp_path / "loss.py"
    path.write_text(README_LOSS)
    out = _dump(capsys, Path(f"{path}:loss"))
    assert out.startswith("def loss_grad(w, x, y, out_bar=1.0):")
    assert "return w_bar" in out
    ir = _dump(capsys, Path(f"{path}:loss"), "--ir")
    assert "matmul" in ir
    namespace: dict = {}
    exec(compile(out, "<dump>", "exec"), {"xp": np, "rt": _rt()}, namespace)
    w, x, y = arr(3, 2), arr(4, 3), arr(4, 2)
    np.testing.assert_allclose(namespace["loss_grad"](w, x, y), st.grad(mlp)(w, x, y),
                               rtol=1e-12)


@pytest.mark.parametrize("name", ["softmax_xent", "mlp2", "normed"])
def test_cli_dumps_ordinary_functions_without_arg(tmp_path, capsys, name):
    path = tmp_path / "model.py"
    path.write_text(ORDINARY)
    out = _dump(capsys, Path(f"{path}:{name}"))
    assert out.startswith(f"def {name}_grad(") and "_bar" in out
    compile(out, "<dump>", "exec")


def _rt():
    from st_autodiff.runtime import support  # noqa: PLC0415  (generated code's ``rt``)

    return support
