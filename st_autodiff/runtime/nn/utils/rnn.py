"""``torch.nn.utils.rnn``: padding and packing variable-length sequences.

``PackedSequence`` holds the time-major rows of a batch of sequences sorted by length
(``data``), how many sequences are still running at each step (``batch_sizes``) and the
sort order.  Everything is composed of recorded ops (``pad``, ``stack``, ``cat``,
``index_select``), so gradients flow through packing and unpacking; the nodes are those
ops' (PyTorch records ``PackPaddedSequenceBackward0`` and ``CopySlices``).

``nn.RNN``/``LSTM``/``GRU`` accept a ``PackedSequence`` (``nn/rnn_packed.py``).

>>> import st_autodiff as torch
>>> from st_autodiff.nn.utils.rnn import pack_sequence
>>> pack_sequence([torch.tensor([1., 2.]), torch.tensor([3.])]).batch_sizes
tensor([2, 1])
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ... import shape_ops as S
from ...tensor import Tensor, plain
from ..vector_ops import pad

__all__ = ["PackedSequence", "pack_padded_sequence", "pack_sequence", "pad_packed_sequence",
           "pad_sequence", "unpack_sequence", "unpad_sequence"]


class PackedSequence_(NamedTuple):  # noqa: N801 (PyTorch's name)
    data: Any
    batch_sizes: Any
    sorted_indices: Any
    unsorted_indices: Any


class PackedSequence(PackedSequence_):
    """A packed batch of sequences (see the module docstring)."""

    def __new__(cls, data: Any, batch_sizes: Any = None, sorted_indices: Any = None,
                unsorted_indices: Any = None) -> PackedSequence:
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = _invert(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """The same packing with ``data`` converted by ``Tensor.to``."""
        data = self.data.to(*args, **kwargs)
        return self if data is self.data else type(self)(data, self.batch_sizes,
                                                          self.sorted_indices,
                                                          self.unsorted_indices)

    def double(self) -> PackedSequence:
        return self.to(dtype=_dtype("float64"))

    def float(self) -> PackedSequence:
        return self.to(dtype=_dtype("float32"))

    @property
    def is_cuda(self) -> bool:
        return bool(self.data.is_cuda)


def _dtype(name: str) -> Any:
    from ... import dtypes

    return getattr(dtypes, name)


def _ints(values: Any) -> list[int]:
    if isinstance(values, Tensor):
        return [int(v) for v in np.asarray(values._host()).reshape(-1)]
    return [int(v) for v in values]


def _long(values: Any) -> Tensor:
    return plain(np.asarray(values, dtype=np.int64))


def _invert(perm: Tensor) -> Tensor:
    order = np.asarray(perm._host()).astype(np.int64)
    inverse = np.empty_like(order)
    inverse[order] = np.arange(len(order))
    return _long(inverse).to(perm.device)


def pad_sequence(sequences: Any, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack sequences of different lengths, padded with ``padding_value`` to the longest:
    ``(T, B, *)``, or ``(B, T, *)`` with ``batch_first``."""
    if padding_side not in ("left", "right"):
        raise ValueError("Expected padding_side to be one of left or right, but got "
                         f"{padding_side}.")
    seqs = list(sequences.unbind(0) if isinstance(sequences, Tensor) else sequences)
    longest = max(s.shape[0] for s in seqs)
    padded = []
    for s in seqs:
        gap = longest - s.shape[0]
        amounts = (0, 0) * (s.dim() - 1) + ((0, gap) if padding_side == "right" else (gap, 0))
        padded.append(pad(s, amounts, value=padding_value) if gap else s)
    return S.stack(padded, 0 if batch_first else 1)


def pack_padded_sequence(input: Tensor, lengths: Any, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch whose sequence ``b`` has ``lengths[b]`` valid steps."""
    lens = _ints(lengths)
    if enforce_sorted:
        if any(a < b for a, b in zip(lens, lens[1:])):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                               "`enforce_sorted` is True. You can pass `enforce_sorted=False` "
                               "to pack_padded_sequence and/or pack_sequence to sidestep this "
                               "requirement if you do not need ONNX exportability.")
        sorted_indices = None
    else:
        order = np.argsort(-np.asarray(lens), kind="stable")
        sorted_indices = _long(order).to(input.device)
        lens = [lens[i] for i in order]
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if any(n <= 0 for n in lens):
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    x = S.transpose(input, 0, 1) if batch_first else input
    if lens and lens[0] > x.shape[0]:
        raise RuntimeError(f"Expected sequence length to be at most {x.shape[0]}, but got "
                           f"{lens[0]}")
    sizes = [sum(1 for n in lens if n > t) for t in range(lens[0] if lens else 0)]
    rows = [x[t, :b] for t, b in enumerate(sizes)]
    data = S.cat(rows, 0)
    return PackedSequence(data, _long(sizes), sorted_indices, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple[Tensor, Tensor]:
    """The padded batch and the lengths (in the original order) of a ``PackedSequence``."""
    sizes = _ints(sequence.batch_sizes)
    batch = sizes[0]
    if total_length is not None and total_length < len(sizes):
        raise ValueError("Expected total_length to be at least the length of the longest "
                         f"sequence in input, but got total_length={total_length} and max "
                         f"sequence length being {len(sizes)}")
    data = sequence.data
    steps, offset = [], 0
    for b in sizes:
        rows = data[offset:offset + b]
        offset += b
        gap = batch - b
        steps.append(pad(rows, (0, 0) * (rows.dim() - 1) + (0, gap), value=padding_value)
                     if gap else rows)
    out = S.stack(steps, 0)
    if total_length is not None and total_length > len(sizes):
        more = total_length - len(sizes)
        out = pad(out, (0, 0) * (out.dim() - 1) + (0, more), value=padding_value)
    lens = [sum(1 for b in sizes if b > i) for i in range(batch)]
    if batch_first:
        out = S.transpose(out, 0, 1)
    if sequence.unsorted_indices is not None:
        out = out.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lens = [lens[i] for i in _ints(sequence.unsorted_indices)]
    return out, _long(lens)


def pack_sequence(sequences: list[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """``pack_padded_sequence(pad_sequence(sequences), lengths)``."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences: Tensor, lengths: Any,
                   batch_first: bool = False) -> list[Tensor]:
    """The sequences of a padded batch, each cut to its length."""
    x = padded_sequences if batch_first else S.transpose(padded_sequences, 0, 1)
    return [x[i, :n] for i, n in enumerate(_ints(lengths))]


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The sequences of a ``PackedSequence``, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
