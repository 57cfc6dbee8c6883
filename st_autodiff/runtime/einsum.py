"""``torch.einsum`` built from recorded runtime ops, in PyTorch's order of steps.

Each operand first loses its repeated subscripts (``diagonal``) and the subscripts that
appear nowhere else (``sum``).  One operand: permute to the output order, summing the
contracted subscripts last (``PermuteBackward0`` or ``SumBackward1`` on top, as in
PyTorch).  Several operands fold left to right; a pair with contracted subscripts is
permuted to ``(batch, left, contracted)`` x ``(batch, contracted, right)``, multiplied with
``bmm``, permuted to the output order and reshaped (``ViewBackward0`` on top); a pair
without contraction is a broadcast product (``MulBackward0``).  Gradients come from those
ops' own rules, so no einsum-specific derivative exists to get wrong.
"""

from __future__ import annotations

import string
from typing import Any

from .function import TensorBase
from .tensor import Tensor

__all__ = ["einsum"]

_LETTERS = string.ascii_uppercase + string.ascii_lowercase


def _sublist(spec: Any) -> str:
    out = []
    for s in spec:
        if s is Ellipsis:
            out.append("...")
        elif isinstance(s, int) and 0 <= s < 52:
            out.append(_LETTERS[s])
        else:
            raise RuntimeError(f"einsum(): expected subscript to be within the range [0, 52) "
                               f"but got {s}")
    return "".join(out)


def _parse_args(args: tuple[Any, ...]) -> tuple[str, list[Any]]:
    """The equation and operands of both spellings (string, or operand/sublist pairs)."""
    if isinstance(args[0], str):
        ops = list(args[1])if len(args) == 2 and isinstance(args[1], (list, tuple)) else \
            list(args[1:])
        return args[0].replace(" ", ""), ops
    ops, specs = list(args[0::2]), [_sublist(s) for s in args[1::2]]
    out = None
    if len(ops) > len(specs):
        out = ops.pop()
        out = _sublist(out)
    eq = ",".join(specs) + ("" if out is None else "->" + out)
    return eq, ops


def _expand(spec: str, ndim: int, ell: str, pos: int) -> str:
    """Replace ``...`` by the operand's trailing broadcast letters (right aligned)."""
    if "..." not in spec:
        if len(spec) != ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation "
                               f"({len(spec)}) does not match the number of dimensions "
                               f"({ndim}) for operand {pos} and no ellipsis was given")
        return spec
    n = ndim - (len(spec) - 3)
    return spec.replace("...", ell[len(ell) - n:] if n else "")


def einsum(*args: Any) -> Tensor:
    """Sum of products over the subscripts an equation names (PyTorch's ``einsum``)."""
    eq, operands = _parse_args(args)
    lhs, arrow, rhs = eq.partition("->")
    specs = lhs.split(",")
    if len(specs) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the "
                           "equation")
    if len(specs) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation")
    for t in operands:
        if not isinstance(t, TensorBase):
            raise TypeError(f"einsum(): argument 'operands' must be tuple of Tensors, not "
                            f"{type(t).__name__}")
    used = set(lhs) - set(",.")
    free = [c for c in _LETTERS if c not in used]
    n_ell = max((t.ndim - (len(s) - 3) for s, t in zip(specs, operands, strict=True)
                 if "..." in s), default=0)
    ell = "".join(free[:n_ell])
    specs = [_expand(s, t.ndim, ell, i) for i, (s, t) in enumerate(zip(specs, operands,
                                                                        strict=True))]
    if arrow:
        out = _expand(rhs, n_ell + len(rhs.replace("...", "")), ell, -1) if "..." in rhs \
            else rhs
    else:
        counts = {c: "".join(specs).count(c) for c in set("".join(specs))}
        out = ell + "".join(sorted((c for c, k in counts.items() if k == 1 and c not in ell),
                                   key=_LETTERS.index))
    for c in out:
        if out.count(c) > 1:
            raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the "
                               "output")
        if not any(c in s for s in specs):
            raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation "
                               "for any input operand")
    sizes: dict[str, int] = {}
    for i, (s, t) in enumerate(zip(specs, operands, strict=True)):
        for c, n in zip(s, t.shape, strict=True):
            old = sizes.get(c)
            if old is None or old == 1:
                sizes[c] = n
            elif n not in (1, old):
                raise RuntimeError(f"einsum(): subscript {c} has size {n} for operand {i} which "
                                   f"does not broadcast with previously seen size {old}")
    items = [_prepare(t, s, out, specs[:i] + specs[i + 1:])
             for i, (t, s) in enumerate(zip(operands, specs, strict=True))]
    if len(items) == 1:
        t, s = items[0]
        return _finish_single(t, s, out)
    t, s = items[0]
    for k in range(1, len(items)):
        u, v = items[k]
        rest = "".join(x for _u, x in items[k + 1:]) + out
        t, s = _pair(t, s, u, v, rest, sizes, last=k == len(items) - 1, out=out)
    return t


def _prepare(t: Tensor, s: str, out: str, others: list[Any]) -> tuple[Tensor, str]:
    """Take diagonals of repeated subscripts; sum away those used nowhere else."""
    from .linalg_family import diagonal

    while len(set(s)) < len(s):
        c = next(c for c in s if s.count(c) > 1)
        i, j = s.index(c), s.index(c, s.index(c) + 1)
        t = diagonal(t, dim1=i, dim2=j)
        s = s[:i] + s[i + 1:j] + s[j + 1:] + c  # the diagonal becomes the last dimension
    if len(others):
        elsewhere = set("".join(others)) | set(out)
        drop = [i for i, c in enumerate(s) if c not in elsewhere]
        if drop:
            t = t.sum(drop)
            s = "".join(c for i, c in enumerate(s) if i not in drop)
    return t, s


def _finish_single(t: Tensor, s: str, out: str) -> Tensor:
    summed = [c for c in s if c not in out]
    order = [s.index(c) for c in out] + [s.index(c) for c in summed]
    t = t.permute(order)
    if summed:
        t = t.sum(list(range(len(out), len(out) + len(summed))))
    return t


def _pair(a: Tensor, sa: str, b: Tensor, sb: str, rest: str, sizes: dict[Any, Any], last: bool,
          out: str) -> tuple[Tensor, str]:
    """The product of two prepared operands, keeping the subscripts in ``rest``."""
    contracted = [c for c in sa if c in sb and c not in rest]
    keep = out if last else "".join(dict.fromkeys(c for c in sa + sb if c in rest))
    if not contracted:
        order: Any = keep  # the subscripts here; an index list below
        return _aligned(a, sa, order) * _aligned(b, sb, order), order
    batch = [c for c in sa if c in sb and c in rest]
    left = [c for c in sa if c not in sb]
    right = [c for c in sb if c not in sa]
    # a subscript only one side has but the other needs to broadcast is already handled:
    # it is in ``left`` or ``right`` and so in the product's shape
    a, b = _expand_batch(a, sa, b, sb, batch)
    pa = a.permute([sa.index(c) for c in batch + left + contracted])
    pb = b.permute([sb.index(c) for c in batch + contracted + right])
    nb, nl, nc, nr = (_prod(a, sa, batch, b, sb), _prod(a, sa, left), _prod(a, sa, contracted),
                      _prod(b, sb, right))
    prod = pa.reshape(nb, nl, nc).bmm(pb.reshape(nb, nc, nr))
    have = batch + left + right
    shape = [_size(a, sa, b, sb, c) for c in have]
    r = prod.reshape(shape) if shape else prod.reshape(())
    order = [have.index(c) for c in keep]
    r = r.permute(order)
    return r.view([_size(a, sa, b, sb, c) for c in keep]), keep


def _size(a: Tensor, sa: str, b: Tensor, sb: str, c: str) -> int:
    na = a.shape[sa.index(c)] if c in sa else 1
    nb = b.shape[sb.index(c)] if c in sb else 1
    return max(na, nb)


def _prod(a: Tensor, sa: str, cs: list[Any], b: Tensor | None = None, sb: str = "") -> int:
    n = 1
    for c in cs:
        n *= _size(a, sa, b, sb, c) if b is not None else a.shape[sa.index(c)]
    return n


def _aligned(t: Tensor, s: str, order: str) -> Tensor:
    """``t`` permuted into ``order`` with size-1 dimensions for the subscripts it lacks."""
    mine = [c for c in order if c in s]
    t = t.permute([s.index(c) for c in mine])
    shape = [t.shape[mine.index(c)] if c in s else 1 for c in order]
    return t.reshape(shape)


def _expand_batch(a: Tensor, sa: str, b: Tensor, sb: str, batch: list[Any]) -> tuple[Any, ...]:
    """Broadcast size-1 batch dimensions of one operand to the other's size."""
    for t, s, other, so in ((a, sa, b, sb), (b, sb, a, sa)):
        want = [other.shape[so.index(c)] if c in batch and t.shape[i] == 1 else t.shape[i]
                for i, c in enumerate(s)]
        if want != list(t.shape):
            if t is a:
                a = a.expand(want)
            else:
                b = b.expand(want)
    return a, b
