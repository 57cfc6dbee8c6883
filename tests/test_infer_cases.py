"""Input cases for ``tests/test_infer.py``: per op, a list of (inputs, params, keep)
where ``keep`` names the input positions that stay concrete (compile-time constants,
such as a constant index array); every other array or float input becomes abstract."""

from __future__ import annotations

from typing import Any

import numpy as np

from st_autodiff.ir.ops import OP_INFO, Op

_rng = np.random.default_rng(0)


def A(shape: tuple, dtype: str = "float64") -> np.ndarray:
    """An array of ``shape`` and ``dtype`` with values in [0.5, 1.5)."""
    return (_rng.random(shape) + 0.5).astype(dtype)


def spd(n: int, batch: tuple = ()) -> np.ndarray:
    """Symmetric positive definite matrices (cholesky accepts them)."""
    m = _rng.random(batch + (n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


#: values for elementwise ops: arrays of each dtype, 0-d arrays, NumPy scalars, Python
#: numbers, broadcasting shapes, an empty array and a shape that broadcasts with nothing
ELEMENT_VALUES: list[Any] = [
    A((3, 4)), A((3, 4), "float32"), A((4,), "int64"), A((3, 1)) > 1.0, np.array(1.5),
    np.float64(2.0), np.float32(1.5), np.int64(2), 2.5, 3, True, A((1, 4), "float32"),
    A((0, 4)), A((2,)), np.array(2, dtype="int32"),
]

Case = tuple[tuple, dict, tuple]


def _c(*inputs: Any, keep: tuple = (), **params: Any) -> Case:
    return (inputs, params, keep)


def elementwise_cases(op: Op) -> list[Case]:
    n = len(OP_INFO[op].inputs)
    vals = ELEMENT_VALUES
    if n == 1:
        cases = [_c(v) for v in vals]
        if op is Op.ROUND:
            cases += [_c(v, decimals=2) for v in vals[:6]]
        return cases
    if n == 2:
        return [_c(a, b) for a in vals for b in vals]
    small = [A((3, 4)), A((4,), "float32"), np.float64(1.0), 0.5, 2, A((3, 1)) > 1,
             np.array(0.7), A((2,))]
    if op is Op.CLIP:
        return [_c(a, b, c) for a in small for b in small + [None] for c in small[:4]] + [
            _c(small[0], None, None)]
    return [_c(a, b, c) for a in small for b in small for c in small]


_X3 = A((2, 3, 4))


def reduction_cases(op: Op) -> list[Case]:
    xs = [_X3, A((3, 4), "float32"), A((5,), "int64"), A((2, 3)) > 1.0, np.array(1.5),
          np.float64(2.0), 2.5, A((0, 3))]
    out = []
    if op in (Op.ARGMAX, Op.ARGMIN):
        for x in xs:
            out += [_c(x, axis=a) for a in (None, 0, -1, 2)]
        return out
    if op in (Op.CUMSUM, Op.CUMPROD):
        for x in xs:
            out += [_c(x, axis=a) for a in (None, 0, 1, -1, 3)]
        return out
    for x in xs:
        for axis in (None, 0, 1, -1, (0, 1), (0, 2), 3):
            for keep in (False, True):
                out.append(_c(x, axis=axis, keepdims=keep))
    if op in (Op.VAR, Op.STD):
        out += [_c(x, axis=None, ddof=1) for x in xs]
    return out


def softmax_cases(op: Op) -> list[Case]:
    return [_c(x, axis=a) for x in (_X3, A((4,), "float32"), A((3, 4), "int64"))
            for a in (-1, 0, 1, 3)]


def creation_cases(op: Op) -> list[Case]:
    dts = (None, "float32", "int64", "bool")
    if op in (Op.ZEROS, Op.ONES):
        return [_c(s, dtype=d) for s in ((3,), 4, (), (2, 0), (2, 3), (-1,)) for d in dts]
    if op is Op.FULL:
        fills = (1.5, np.float32(1.0), 2, True, A((3,)), A((4,), "int64"), np.array(2.5))
        return [_c(s, f, dtype=d) for s in ((2, 3), (3,)) for f in fills
                for d in (None, "float32")]
    if op is Op.EYE:
        return [_c(3, M=m, k=k, dtype=d) for m in (None, 4) for k in (0, 1, -5)
                for d in (None, "int64")]
    if op is Op.ARANGE:
        args = [(5, None, None), (1, 7, 2), (0.5, 3.2, 0.3), (np.float32(0), 5, 1),
                (10, 0, -3), (0, 5, 0), (2.5, None, None), (np.int32(1), np.int32(9), 2),
                (0.0, 1.0, 0.1), (1, 2.0, 0.25), (3, 3, 1)]
        return [_c(*a, dtype=d, keep=(0, 1, 2)) for a in args for d in (None, "float32")]
    if op is Op.LINSPACE:
        return [_c(0.0, 1.0, num=5), _c(A((3,)), A((3,)), num=4),
                _c(np.float32(0), np.float32(1), num=3), _c(0.0, 1.0, num=0),
                _c(A((3,), "float32"), 2.0, num=2), _c(1, 5, num=3), _c(A((2,)), A((3,)))]
    if op in (Op.ZEROS_LIKE, Op.ONES_LIKE, Op.FULL_LIKE):
        xs = (A((3, 4)), A((2,), "int64"), np.float64(1.0), np.array(1.0), 2.5, A((3,)) > 1)
        extra = (2.5,) if op is Op.FULL_LIKE else ()
        return [_c(x, *extra, dtype=d) for x in xs for d in (None, "int64", "float32")]
    raise AssertionError(op)


def cast_cases(op: Op) -> list[Case]:
    xs = (A((3, 4)), A((2,), "int64"), np.float64(1.0), np.float32(2.0), np.array(1.0),
          A((3,)) > 1, A((0,), "float32"))
    if op is Op.ASTYPE:
        return [_c(x, dtype=d) for x in xs for d in (None, "float32", "int64", "bool")]
    if op is Op.ASARRAY:
        return [_c(x) for x in xs + (2.5,)] + [
            _c([A((3,)), A((3,))]), _c([A((3,), "float32"), np.float64(1.0)]),
            _c([1.5, A(())]), _c((A((2, 2)), A((2, 2), "int64"))), _c([1, 2, 3])]
    return [_c(x) for x in xs + (2.5,)]


def shape_cases(op: Op) -> list[Case]:
    x = _X3
    table: dict[Op, list[Case]] = {
        Op.RESHAPE: [_c(x, (6, 4)), _c(x, (-1,)), _c(x, (4, -1)), _c(x, 24), _c(x, (5, 5)),
                     _c(x, (-1, -1)), _c(np.float64(1.0), ()), _c(2.5, (1, 1)),
                     _c(A((0, 3)), (-1,)), _c(A((0, 3)), (0, -1)), _c(np.array(1.0), (1,)),
                     _c(x, (7, -1)), _c(A((2, 3), "int64"), (3, 2))],
        Op.RAVEL: [_c(v) for v in (x, A((3,), "int64"), np.float64(1.0), 2.5, np.array(1))],
        Op.TRANSPOSE: [_c(x), _c(x, axes=(1, 0, 2)), _c(x, axes=(0, 1)), _c(np.array(1.0)),
                       _c(np.float64(1.0)), _c(2.5), _c(A((3,), "float32"))],
        Op.SWAPAXES: [_c(x, axis1=0, axis2=2), _c(x, axis1=-1, axis2=1),
                      _c(x, axis1=0, axis2=3), _c(A((3,)), axis1=0, axis2=0)],
        Op.MOVEAXIS: [_c(x, source=0, destination=-1), _c(x, source=(0, 1),
                                                          destination=(2, 0)),
                      _c(x, source=4, destination=0)],
        Op.EXPAND_DIMS: [_c(x, axis=0), _c(x, axis=-1), _c(x, axis=(0, 2)), _c(x, axis=5),
                         _c(np.float64(1.0), axis=0), _c(2.5, axis=0)],
        Op.SQUEEZE: [_c(A((3, 1, 4))), _c(A((3, 1, 4)), axis=1), _c(A((3, 1, 4)), axis=0),
                     _c(np.array(1.0)), _c(A((1, 1))), _c(np.float64(1.0))],
        Op.BROADCAST_TO: [_c(A((3, 1)), (2, 3, 4)), _c(A((3,)), (4,)), _c(2.5, (3,)),
                          _c(np.float32(1.0), (2, 2)), _c(A((3,)), (3,))],
        Op.CONCATENATE: [_c(A((2, 3)), A((4, 3))), _c(A((2, 3)), A((4, 3)), axis=1),
                         _c(A((2, 3)), A((2, 5), "float32"), axis=1),
                         _c(A((2, 3)), A((4, 3)), axis=None), _c(np.array(1.0), np.array(2.0)),
                         _c(A((2, 3)), A((3,))), _c(A((2,), "int64"), A((3,), "int32")),
                         _c(A((2, 3)), A((4, 3)), axis=2)],
        Op.STACK: [_c(A((2, 3)), A((2, 3))), _c(A((2, 3)), A((2, 3)), axis=-1),
                   _c(A((2, 3)), A((2, 3), "int64"), axis=1), _c(A((2, 3)), A((3, 2))),
                   _c(np.float64(1.0), 2.5), _c(A((2,)), A((2,)), axis=3)],
        Op.HSTACK: [_c(A((2,)), A((3,))), _c(A((2, 3)), A((2, 1))), _c(np.array(1.0), 2.5),
                    _c(A((2, 3)), A((3, 1)))],
        Op.VSTACK: [_c(A((2,)), A((2,))), _c(A((2, 3)), A((3,))), _c(np.array(1.0), 2.5),
                    _c(A((2, 3)), A((4,)))],
        Op.SPLIT: [_c(A((4, 3)), indices_or_sections=2),
                   _c(A((4, 3)), indices_or_sections=3),
                   _c(A((4, 3)), indices_or_sections=[1, 3]),
                   _c(A((4, 3)), indices_or_sections=3, axis=1),
                   _c(A((5,)), indices_or_sections=[2, 10]),
                   _c(A((5,)), indices_or_sections=[3, 1])],
        Op.TILE: [_c(A((3, 4)), reps=2), _c(A((3, 4)), reps=(2, 1)),
                  _c(A((3, 4)), reps=(2, 1, 3)), _c(np.float64(1.0), reps=3),
                  _c(2.5, reps=(2, 2)), _c(A((3,), "int64"), reps=())],
        Op.REPEAT: [_c(A((3, 2)), repeats=2), _c(A((3, 2)), repeats=2, axis=0),
                    _c(A((3, 2)), repeats=[1, 2, 3], axis=0),
                    _c(A((3, 2)), repeats=[1, 2], axis=0), _c(2.5, repeats=3),
                    _c(A((3, 2)), repeats=[2], axis=1), _c(A((3, 2)), repeats=2, axis=2)],
        Op.FLIP: [_c(x), _c(x, axis=0), _c(x, axis=(0, 1)), _c(x, axis=3), _c(2.5),
                  _c(np.float64(1.0))],
        Op.ROLL: [_c(x, shift=1), _c(x, shift=(1, 2), axis=(0, 1)), _c(x, shift=1, axis=4),
                  _c(2.5, shift=1)],
        Op.PAD: [_c(A((3, 4)), pad_width=1), _c(A((3, 4)), pad_width=((1, 2), (0, 3))),
                 _c(A((3, 4)), pad_width=(1, 2)), _c(A((3, 4), "int64"), pad_width=2,
                                                     constant_values=1.5),
                 _c(A((3, 4)), pad_width=((1, 2), (0, 3), (1, 1))),
                 _c(A((3,)), pad_width=-1)],
        Op.SORT: [_c(x), _c(x, axis=None), _c(x, axis=0), _c(x, axis=3),
                  _c(A((3,), "int64"))],
        Op.ARGSORT: [_c(x), _c(x, axis=None), _c(x, axis=0), _c(A((3,), "int64"))],
        Op.TAKE: [_c(A((3, 4)), np.array([0, 2]), keep=(1,)),
                  _c(A((3, 4)), np.array([0, 2]), axis=1, keep=(1,)),
                  _c(A((3, 4)), np.array([[0], [2]]), axis=0, keep=(1,)),
                  _c(A((3, 4)), 1, axis=0), _c(A((3, 4)), 1), _c(A((3, 4)), 5, axis=0),
                  _c(A((3, 4)), np.array([0.5]), keep=(1,)),
                  _c(A((3, 4)), np.array([1, 2]), axis=1)],
        Op.TAKE_ALONG_AXIS: [_c(A((3, 4)), np.array([[0], [1], [2]]), axis=1, keep=(1,)),
                             _c(A((3, 4)), np.array([[0, 1, 2, 0]]), axis=0, keep=(1,)),
                             _c(A((3, 4)), np.array([0, 5]), axis=None, keep=(1,)),
                             _c(A((3, 4)), np.array([0]), axis=0, keep=(1,)),
                             _c(A((3, 4)), np.array([[0], [1]]), axis=1, keep=(1,))],
        Op.TRIU: [_c(A((3, 4))), _c(A((4,))), _c(A((2, 3, 3)), k=1), _c(np.array(1.0))],
        Op.DIAG: [_c(A((4,))), _c(A((3, 4)), k=1), _c(A((3, 4)), k=-2), _c(A((3, 4)), k=9),
                  _c(_X3), _c(A((3,), "int64"), k=-1)],
        Op.DIAGONAL: [_c(A((3, 4))), _c(_X3, offset=1, axis1=1, axis2=2),
                      _c(A((3,)))],
        Op.TRACE: [_c(A((3, 4))), _c(_X3, axis1=1, axis2=2), _c(A((3,))),
                   _c(A((3, 3), "int32")), _c(A((3, 4)), offset=2)],
        Op.NONZERO: [_c(A((3, 4)) > 1.0), _c(A((4,))), _c(np.array(1.0))],
        Op.UNBROADCAST: [_c(A((3, 4)), (4,)), _c(A((3, 4)), (3, 4)), _c(A((3, 4)), (1, 4)),
                         _c(A((3, 4)), ()), _c(np.float64(1.0), ()), _c(2.5, ()),
                         _c(A((3, 4)) > 1, ()), _c(A((2, 3, 4), "float32"), (3, 1))],
    }
    table[Op.TRIL] = table[Op.TRIU]
    return table[op]


def linalg_cases(op: Op) -> list[Case]:
    m34, m45 = A((3, 4)), A((4, 5))
    v4 = A((4,))
    table: dict[Op, list[Case]] = {
        Op.MATMUL: [_c(m34, m45), _c(v4, m45), _c(m34, v4), _c(v4, v4), _c(A((2, 3, 4)), m45),
                    _c(A((2, 1, 3, 4)), A((5, 4, 2))), _c(m34, A((5,))), _c(np.array(1.0), v4),
                    _c(A((3, 4), "int64"), A((4,), "float32")), _c(A((2, 3, 4)), A((3, 4, 2)))],
        Op.DOT: [_c(m34, m45), _c(v4, m45), _c(m34, v4), _c(v4, v4), _c(A((2, 3, 4)), m45),
                 _c(m34, A((5,))), _c(2.5, m34), _c(np.float32(1.0), v4), _c(v4, A((3, 4, 2))),
                 _c(A((2, 3, 4)), A((5, 4, 2))), _c(A((4,), "int64"), A((4,), "int64"))],
        Op.VDOT: [_c(A((2, 3)), A((3, 2))), _c(A((6,)), A((5,))), _c(v4, A((4,), "float32"))],
        Op.INNER: [_c(m34, A((5, 4))), _c(v4, v4), _c(np.array(2.0), m34), _c(m34, m45),
                   _c(A((2, 3, 4)), v4)],
        Op.OUTER: [_c(A((3,)), A((2, 2))), _c(2.5, v4), _c(A((3,), "int64"), A((2,)))],
        Op.TENSORDOT: [_c(A((2, 3, 4)), A((3, 4, 5))), _c(A((2, 3, 4)), A((4, 5)), axes=1),
                       _c(A((2, 3, 4)), A((5, 2)), axes=([0], [1])),
                       _c(A((2, 3, 4)), A((5, 2)), axes=([1], [1])),
                       _c(m34, m45, axes=0)],
        Op.EINSUM: [_c(m34, m45, subscripts="ij,jk->ik"), _c(m34, m45, subscripts="ij,jk"),
                    _c(v4, v4, subscripts="i,i"), _c(A((3, 3)), subscripts="ii->i"),
                    _c(A((3, 3)), subscripts="ii"), _c(A((3, 4)), subscripts="ij->"),
                    _c(A((2, 3, 4)), m45, subscripts="...ij,...jk->...ik"),
                    _c(m34, A((3, 5)), subscripts="ij,ij->ij"),
                    _c(A((2, 3)), A((2, 4)), subscripts="bi,bj->bij"),
                    _c(A((2, 3)), A((2, 4)), subscripts="iA,ia"),
                    _c(A((2, 1)), A((3, 4)), subscripts="ij,jk->ik"),
                    _c(A((3, 4)), subscripts="ii"), _c(A((2, 3, 4)), subscripts="...i->..."),
                    _c(A((3,), "float32"), A((3,), "int64"), subscripts="i,i->i")],
        Op.NORM: [_c(m34), _c(v4, ord=2), _c(m34, ord="fro"), _c(m34, ord="nuc"),
                  _c(m34, axis=1), _c(m34, axis=(0, 1), keepdims=True), _c(A((2, 3, 4)), ord=1),
                  _c(A((4,), "int64")), _c(A((2, 3, 4)), axis=-1, keepdims=True),
                  _c(v4, ord="fro"), _c(m34, ord=np.inf, axis=(1, 0)),
                  _c(A((3,), "float32"), ord=1), _c(2.5), _c(np.float64(2.0))],
        Op.INV: [_c(spd(3)), _c(spd(2, (2,))), _c(A((3, 4))), _c(A((3,))),
                 _c(spd(2).astype("float32"))],
        Op.SOLVE: [_c(spd(3), A((3,))), _c(spd(3), A((3, 2))), _c(spd(3, (2,)), A((3, 2))),
                   _c(spd(3), A((4,))), _c(spd(3, (2,)), A((2, 3, 1))),
                   _c(spd(3).astype("float32"), A((3,), "float32"))],
    }
    for o in (Op.DET, Op.SLOGDET, Op.CHOLESKY):
        table[o] = table[Op.INV] + [_c(spd(2).astype("int64") * 0 + np.eye(2, dtype="int64"))]
    ints = _c(spd(2).astype("int64") * 0 + np.eye(2, dtype="int64"))
    for o in (Op.EIGH, Op.EIGVALSH):
        table[o] = table[Op.INV] + [ints, _c(spd(3), UPLO="U")]
    wide, tall = A((3, 4)), A((4, 2))
    table[Op.SVDVALS] = [_c(wide), _c(tall), _c(A((2, 3, 2))), _c(A((3,))),
                         _c(tall.astype("float32")), ints]
    table[Op.SVD] = table[Op.SVDVALS] + [_c(wide, full_matrices=False),
                                         _c(A((2, 3, 2)), full_matrices=False)]
    # linalg family (issue 11): qr of any shape; eig, eigvals, lu, matrix_exp of square ones
    table[Op.QR] = [_c(wide), _c(tall), _c(A((2, 3, 2))), _c(A((3,))), ints,
                    _c(tall.astype("float32")), _c(wide, mode="complete")]
    for o in (Op.EIG, Op.EIGVALS, Op.LU, Op.MATRIX_EXP):
        table[o] = table[Op.INV] + [ints]
    for o in (Op.EIG, Op.EIGVALS):
        table[o] = table[o] + [_c(spd(3), scipy=True), _c(A((3, 4)), scipy=True)]
    return table[op]


_F = ("slice", None, None, None)


def index_cases(op: Op) -> list[Case]:
    x = A((4, 5, 6))
    i02 = np.array([0, 2])
    mask = A((4, 5)) > 1.0
    idx: list[tuple[tuple, tuple, tuple]] = [  # (index, dynamic parts, keep)
        ((0,), (), ()), ((("slice", 1, 3, None),), (), ()), ((Ellipsis, 0), (), ()),
        ((None, 0, ("slice", None, None, 2)), (), ()), ((0, 1, 2), (), ()),
        ((("in", 0),), (np.array([0, 2, 3]),), (1,)),
        ((("in", 0), ("in", 1)), (np.array([0, 1]), np.array([[1], [2]])), (1, 2)),
        ((_F, ("in", 0)), (i02,), (1,)), ((0, _F, ("in", 0)), (i02,), (1,)),
        ((_F, ("in", 0), Ellipsis, ("in", 1)), (i02, i02), (1, 2)),
        ((_F, ("in", 0), None, ("in", 1)), (i02, i02), (1, 2)),
        ((("in", 0),), (mask,), (1,)), ((("in", 0), 1), (mask,), (1,)),
        ((("list", (0, 1, 3)),), (), ()), ((5,), (), ()), ((0, 0, 0, 0), (), ()),
        ((("in", 0),), (np.array([0, 9]),), (1,)), ((("in", 0),), (np.array([0.5]),), (1,)),
        ((("slice", ("in", 0), None, None),), (2,), ()), ((("in", 0), _F), (1,), ()),
        ((Ellipsis, Ellipsis), (), ()), ((("in", 0), ("in", 1)), (i02, np.array([0, 1, 2])),
                                         (1, 2)),
        ((("in", 0),), (A((4, 6)) > 1,), (1,)), ((("slice", None, None, -1), -1), (), ()),
        ((("slice", 2, 100, None),), (), ()), ((("in", 0),), (np.array(1),), (1,)),
        ((Ellipsis, None), (), ()), ((("in", 0),), (np.int64(2),), ()),
    ]
    scal = [(np.float64(1.0), ()), (np.array(1.0), ()), (np.array(1.0), (Ellipsis,)),
            (np.array(1.0), (None,)), (np.float64(1.0), (None,)), (A((3,), "int32"), (1,)),
            (A((3,)) > 1, (("slice", None, 2, None),))]
    cases: list[Case] = []
    if op is Op.GETITEM:
        cases += [_c(x, *dyn, index=i, keep=k) for i, dyn, k in idx]
        cases += [_c(v, index=i) for v, i in scal]
        return cases
    if op in (Op.SETITEM, Op.INDEX_ADD):
        vs = [2.5, A((6,)), A((5, 6), "float32"), A((3,)), A((1, 1, 6)), A((2, 1, 6)),
              np.int64(3), A((3, 5, 6))]
        for i, dyn, k in idx[:13]:
            for v in vs:
                cases.append(_c(x, v, *dyn, index=i, keep=tuple(p + 1 for p in k)))
        cases.append(_c(A((4,), "int64"), A((2,)), i02, index=(("in", 0),), keep=(2,)))
        cases.append(_c(A((4,), "int64"), 1, i02, index=(("in", 0),), keep=(2,)))
        return cases
    if op is Op.SCATTER_ADD:
        return [_c((4, 5), A((2, 5)), i02, index=(("in", 0),), keep=(2,)),
                _c((4, 5), 2.5, index=(0, 1)), _c((4, 5), A((5,), "float32"), index=(1,)),
                _c((4, 5), A((3,)), index=(1,)),
                _c((4, 5, 6), A((2, 5)), i02, i02, index=(("in", 0), _F, ("in", 1)),
                   keep=(2, 3))]
    raise AssertionError(op)


def list_cases(op: Op) -> list[Case]:
    a, b = A((3,)), A((3,), "float32")
    table: dict[Op, list[Case]] = {
        Op.LIST: [_c(a, b, 2.5), _c()],
        Op.LIST_GET: [_c([a, b], 1), _c([a, a], 0)],
        Op.LIST_LEN: [_c([a, b]), _c([])],
        Op.LIST_CONCAT: [_c([a], [b, 2.5]), _c([], [])],
        Op.LIST_REVERSE: [_c([a, b])],
        Op.LIST_SLICE: [_c([a, b, a], 1, 3), _c([a, b], 0, 0)],
        Op.LIST_STACK: [_c([a, a], axis=0), _c([a, b], axis=1), _c([np.float64(1.0), 2.5]),
                        _c([A((2,)), A((3,))])],
        Op.LIST_CATENATE: [_c([a, a]), _c([A((2, 3)), A((1, 3), "float32")], axis=0),
                           _c([A((2, 3)), A((2, 1))], axis=1)],
        Op.LIST_SUM: [_c([a, b]), _c([]), _c([2.5, 1.5]), _c([np.float32(1.0), a]),
                      _c([A((3, 1)), A((4,))])],
        Op.LIST_ZEROS: [_c([a, None, 2.5, [b], np.float64(1.0)]), _c(None)],
        Op.LIST_ADD: [_c([a, None], [b, 2.5]), _c(None, [a]), _c([a, [b]], 2.5),
                      _c([a], None)],
        Op.LIST_UNSTACK: [_c(A((3, 2))), _c(A((3, 2)), axis=1), _c(A((4,), "int64")),
                          _c(A((0, 2)))],
        Op.LIST_INDEX_ADD: [_c([a, b], 1, a), _c([a, 2.5], 1, 1.5)],
        Op.LIST_GATHER: [_c([a, a], [b, b], None, None), _c([a], None, None, None)],
        Op.LIST_UNGATHER: [_c([a, b, a, b], None, None, site=1)],
        Op.LIST_SPLIT_LIKE: [_c(A((5, 2)), [A((2, 2)), A((3, 2))]),
                             _c(A((2, 5)), [A((2, 1)), A((2, 4))], axis=1), _c(A((0,)), [])],
    }
    return table[op]


def structure_cases(op: Op) -> list[Case]:
    a = A((3,))
    table: dict[Op, list[Case]] = {
        Op.TUPLE: [_c(a, 2.5, 3), _c()],
        Op.ITEM: [_c((a, 2.5), index=1), _c([a, A((2,), "int64")], index=0)],
        Op.SHAPE: [_c(a), _c(A((2, 3))), _c(2.5), _c(np.float64(1.0)), _c(np.array(1.0))],
        Op.STOP_GRADIENT: [_c(a), _c(2.5), _c(np.float32(1.0))],
        Op.PY_FLOAT: [_c(np.float64(1.0)), _c(np.float32(2.0)), _c(np.array(1.5)), _c(A(())),
                      _c(A((), "float32"))],
        Op.PY_INT: [_c(np.float64(-2.7)), _c(np.float32(2.0)), _c(np.array(1.5)), _c(3),
                    _c(np.int64(4)), _c(A(())), _c(A((), "int64"))],
        Op.PY_BOOL: [_c(np.float64(-2.7)), _c(np.bool_(False)), _c(np.array(0.0)), _c(3),
                     _c(A(())), _c(A((), "bool"))],
        Op.NO_DERIVATIVE: [_c(a), _c(2.5), _c(A((2,), "int64"))],  # stats: identity
        Op.CONST: [_c(value=2.5), _c(value=(1, 2))],
    }
    return table[op]


def fft_cases(op: Op) -> list[Case]:
    """The fft family's pair ops: float64 and float32 parts, other axes, broadcasting."""
    a, b = A((4,)), A((3, 4))
    f32 = b.astype("float32")
    table: dict[Op, list[Case]] = {
        Op.FFT_C2C: [_c(a, a, axes=(0,)), _c(b, b, axes=(0, 1), norm="ortho", inverse=True),
                     _c(f32, f32, axes=(1,))],
        Op.FFT_R2C: [_c(a, axes=(0,)), _c(b, axes=(0, 1), norm="forward"), _c(f32, axes=(0,))],
        Op.FFT_C2R: [_c(a, a, axes=(0,), n=6), _c(b, b, axes=(1,), n=7),
                     _c(f32, f32, axes=(1,), n=6)],
        Op.CMUL: [_c(a, a, a, a), _c(b, b, a, a), _c(f32, f32, f32, f32)],
        Op.CDIV: [_c(a, a, a + 2.0, a), _c(b, b, a + 2.0, a), _c(f32, f32, f32 + 2, f32)],
    }
    return table[op]
