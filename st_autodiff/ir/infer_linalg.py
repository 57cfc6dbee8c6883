"""Type rules of linear algebra (see ``ir/infer``): matmul, dot, vdot, inner, outer,
tensordot, einsum (its subscripts parsed, ellipses and implicit outputs included), trace,
norm, inv, solve, det, slogdet, cholesky.  Shapes by each function's documented rule, with
NumPy's errors for misaligned operands; dtype and scalar-ness from a tiny probe (1x1
matrices of ones, which every decomposition accepts)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .infer_core import (
    broadcast,
    make,
    normalize_axis_index,
    normalize_axis_tuple,
    probe,
    shape_of,
    size,
    stand_in,
)
from .ops import Op

_LinAlgError = np.linalg.LinAlgError


def _spell(s: tuple[Any, ...]) -> str:
    return f"({s[0]},)" if len(s) == 1 else str(tuple(s)).replace(" ", "")


def _args(inputs: tuple[Any, ...], ranks: tuple[int, ...]) -> list[Any]:
    """Tiny stand-ins; an input of unknown shape gets the rank the op needs (and then
    every dimension is 1, so that no 0 clashes with a guessed 1)."""
    shapes = [shape_of(v) for v in inputs]
    if None not in shapes:
        return [stand_in(v) for v in inputs]
    return [stand_in(v, (1,) * (r if s is None else len(s))) for v, r, s in zip(
        inputs, ranks, shapes)]


def _matmul(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    sa, sb = shape_of(inputs[0]), shape_of(inputs[1])
    res = probe(op, _args(inputs, (2, 2)), params)  # NumPy's error for 0-d operands
    if sa is None or sb is None:
        return make(res, None)
    a = sa if len(sa) >= 2 else (1,) + sa
    b = sb if len(sb) >= 2 else sb + (1,)
    if a[-1] != b[-2]:
        raise ValueError("matmul: Input operand 1 has a mismatch in its core dimension 0, "
                         "with gufunc signature (n?,k),(k,m?)->(n?,m?) (size "
                         f"{b[-2]} is different from {a[-1]})")
    out = broadcast(a[:-2], b[:-2])
    out += (a[-2],) if len(sa) >= 2 else ()
    out += (b[-1],) if len(sb) >= 2 else ()
    return make(res, out)


def _dot(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    sa, sb = shape_of(inputs[0]), shape_of(inputs[1])
    res = probe(op, _args(inputs, (1, 1)), params)
    if sa is None or sb is None:
        return make(res, None)
    if not sa or not sb:
        return make(res, sa or sb)
    if op is Op.INNER:
        ka, kb = len(sa) - 1, len(sb) - 1
        out = sa[:-1] + sb[:-1]
    else:
        ka, kb = len(sa) - 1, max(len(sb) - 2, 0)
        out = sa[:-1] + sb[:-2] + sb[-1:] if len(sb) >= 2 else sa[:-1]
    if sa[ka] != sb[kb]:
        raise ValueError(f"shapes {_spell(sa)} and {_spell(sb)} not aligned: {sa[ka]} "
                         f"(dim {ka}) != {sb[kb]} (dim {kb})")
    return make(res, out)


def _vdot(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    sa, sb = shape_of(inputs[0]), shape_of(inputs[1])
    if sa is not None and sb is not None and size(sa) != size(sb):
        raise ValueError("vectors have different lengths")
    return make(probe(op, _args(inputs, (1, 1)), params), ())


def _outer(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    sa, sb = shape_of(inputs[0]), shape_of(inputs[1])
    out = None if sa is None or sb is None else (size(sa), size(sb))
    return make(probe(op, _args(inputs, (1, 1)), params), out)


def _tensordot(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    sa, sb = shape_of(inputs[0]), shape_of(inputs[1])
    axes = params.get("axes", 2)
    if isinstance(axes, (int, np.integer)):
        ra = rb = int(axes)
    else:
        ra = rb = 1 + max(max(np.ravel(axes[0]), default=0), max(np.ravel(axes[1]),
                                                                   default=0))
    if sa is None or sb is None:
        return make(probe(op, _args(inputs, (max(ra, 1), max(rb, 1))), params), None)
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        xa, xb = list(range(-n, 0)), list(range(n))
    else:
        xa = [int(a) for a in np.atleast_1d(axes[0])]
        xb = [int(b) for b in np.atleast_1d(axes[1])]
    equal = len(xa) == len(xb)
    for i, j in zip(xa, xb) if equal else ():  # as np.tensordot reads them
        if sa[i] != sb[j]:  # (an axis out of range: IndexError, as NumPy's)
            equal = False
            break
    if not equal:
        raise ValueError("shape-mismatch for sum")
    res = probe(op, _args(inputs, (0, 0)), params)  # (after the checks: tiny dims agree)
    xa = [i % len(sa) for i in xa]
    xb = [j % len(sb) for j in xb]
    out = tuple(d for i, d in enumerate(sa) if i not in xa) + tuple(
        d for j, d in enumerate(sb) if j not in xb)
    return make(res, out)


def _einsum(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    subscripts = params["subscripts"].replace(" ", "")
    lhs, arrow, rhs = subscripts.partition("->")
    terms = lhs.split(",")
    ranks = tuple(len(t.replace("...", "")) for t in terms)
    shapes: list[Any] = [shape_of(v) for v in inputs]  # None where unknown
    res = probe(op, _args(inputs, ranks + (0,) * (len(inputs) - len(ranks))), params)
    if any(s is None for s in shapes):
        return make(res, None)
    sizes: dict[str, int] = {}
    ells = []
    for k, (term, shape) in enumerate(zip(terms, shapes)):
        pre, ell, post = term.partition("...")
        n_ell = len(shape) - len(pre) - len(post) if ell else 0
        ells.append(shape[len(pre):len(pre) + n_ell])
        mine: dict[str, int] = {}
        for label, d in zip(pre + post, shape[:len(pre)] + shape[len(pre) + n_ell:]):
            if label in mine and mine[label] != d:
                raise ValueError(f"dimensions in operand {k} for collapsing index "
                                 f"'{label}' don't match ({mine[label]} != {d})")
            mine[label] = d
            seen = sizes.setdefault(label, d)
            if d != seen and 1 not in (d, seen):
                text = " ".join(f"{_spell(s)}->{_spell(s)}" for s in shapes)
                raise ValueError("operands could not be broadcast together with remapped "
                                 f"shapes [original->remapped]: {text} ")
            if seen == 1:  # a dimension of 1 broadcasts against any other
                sizes[label] = d
    ell_shape = broadcast(*ells)
    if not arrow:
        labels = "".join(terms).replace(".", "")
        rhs = "..." + "".join(sorted(c for c in set(labels) if labels.count(c) == 1))
    pre, ell, post = rhs.partition("...")
    out = tuple(sizes[c] for c in pre) + (ell_shape if ell else ()) + tuple(
        sizes[c] for c in post)
    return make(res, out)


def _trace(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    shape = shape_of(inputs[0])
    a1, a2 = params.get("axis1", 0), params.get("axis2", 1)
    front = max([a + 1 for a in (a1, a2) if a >= 0], default=0)
    rank = max(2, front + max([-a for a in (a1, a2) if a < 0], default=0))
    res = probe(op, _args(inputs, (rank,)), params)
    if shape is None:
        return make(res, None)
    axes = {normalize_axis_index(a1, len(shape)), normalize_axis_index(a2, len(shape))}
    return make(res, tuple(d for i, d in enumerate(shape) if i not in axes))


def _norm(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    shape = shape_of(inputs[0])
    axis, keep, order = params.get("axis"), params.get("keepdims"), params.get("ord")
    if shape is None:
        if axis is None:
            rank = 2 if order in ("fro", "nuc") else 1
        else:
            axes = axis if isinstance(axis, tuple) else (axis,)
            rank = max(a + 1 if a >= 0 else -a for a in axes)
        res = probe(op, _args(inputs, (rank,)), params)
        return make(res, () if axis is None and not keep else None)
    nd = len(shape)
    if axis is None and order is not None and nd not in (1, 2):
        raise ValueError("Improper number of dimensions to norm.")
    if axis is None:
        out = (1,) * nd if keep else ()
    else:
        axes = normalize_axis_tuple(axis, nd)
        if len(axes) > 2:
            raise ValueError("Improper number of dimensions to norm.")
        out = tuple(1 if i in axes else d for i, d in enumerate(shape) if keep or i not in
                    axes)
    return make(probe(op, _args(inputs, (0,)), params), out)


def _square(shape: tuple[int, ...]) -> None:
    if len(shape) < 2:
        raise _LinAlgError(f"{len(shape)}-dimensional array given. Array must be at least "
                           "two-dimensional")
    if shape[-1] != shape[-2]:
        raise _LinAlgError("Last 2 dimensions of the array must be square")


def _matrix(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """inv, cholesky (same shape), det, slogdet (the batch shape)."""
    shape = shape_of(inputs[0])
    if shape is not None:
        _square(shape)
    res = probe(op, _args(inputs, (2,)), params)
    out = None if shape is None else shape if op in (Op.INV, Op.CHOLESKY) else shape[:-2]
    if op is Op.SLOGDET:
        return tuple(make(r, out) for r in res)
    return make(res, out)


def _solve(op: Op, inputs: tuple[Any, ...], params: dict[str, Any]) -> Any:
    sa, sb = shape_of(inputs[0]), shape_of(inputs[1])
    if sa is not None:
        _square(sa)
    res = probe(op, _args(inputs, (2, 2)), params)
    if sa is None or sb is None:
        return make(res, None)
    m = sa[-1]
    if len(sb) == 1:
        name, sig, k, out = "solve1", "(m,m),(m)->(m)", sb[0], sa[:-2] + (m,)
    else:
        name, sig, k = "solve", "(m,m),(m,n)->(m,n)", sb[-2]
        out = broadcast(sa[:-2], sb[:-2]) + (m, sb[-1])
    if k != m:
        raise ValueError(f"{name}: Input operand 1 has a mismatch in its core dimension 0, "
                         f"with gufunc signature {sig} (size {k} is different from {m})")
    return make(res, out)


RULES = {
    Op.MATMUL: _matmul, Op.DOT: _dot, Op.INNER: _dot, Op.VDOT: _vdot, Op.OUTER: _outer,
    Op.TENSORDOT: _tensordot, Op.EINSUM: _einsum, Op.TRACE: _trace, Op.NORM: _norm,
    Op.INV: _matrix, Op.CHOLESKY: _matrix, Op.DET: _matrix, Op.SLOGDET: _matrix,
    Op.SOLVE: _solve,
}
