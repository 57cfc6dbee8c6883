"""``st_autodiff.nn.init``: the public face of ``runtime/nn/init.py``."""

from __future__ import annotations

from ..runtime.nn.init import (
    calculate_gain,
    constant_,
    dirac_,
    eye_,
    kaiming_normal_,
    kaiming_uniform_,
    normal_,
    ones_,
    orthogonal_,
    trunc_normal_,
    uniform_,
    xavier_normal_,
    xavier_uniform_,
    zeros_,
)

__all__ = [
    "calculate_gain", "constant_", "dirac_", "eye_", "kaiming_normal_", "kaiming_uniform_",
    "normal_", "ones_", "orthogonal_", "trunc_normal_", "uniform_", "xavier_normal_",
    "xavier_uniform_", "zeros_",
]
