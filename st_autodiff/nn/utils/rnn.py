"""``st_autodiff.nn.utils.rnn``: the public face of ``runtime/nn/utils/rnn.py``."""

from __future__ import annotations

from ...runtime.nn.utils.rnn import (
    PackedSequence,
    pack_padded_sequence,
    pack_sequence,
    pad_packed_sequence,
    pad_sequence,
    unpack_sequence,
    unpad_sequence,
)

__all__ = ["PackedSequence", "pack_padded_sequence", "pack_sequence", "pad_packed_sequence",
           "pad_sequence", "unpack_sequence", "unpad_sequence"]
