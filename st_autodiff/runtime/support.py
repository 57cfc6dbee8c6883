"""Runtime support for generated code (the ``rt`` global): what NumPy lacks in one call.

The implementations live in ``ir/kernels.py`` so that the interpreter, the compile-time
evaluator and generated code share one definition.
"""

from __future__ import annotations

from ..ir.kernels import (
    index_add,
    index_add_,
    log_softmax,
    logsumexp,
    relu,
    scatter_add,
    sigmoid,
    softmax,
    stop_gradient,
    unbroadcast,
)

__all__ = ["index_add", "index_add_", "log_softmax", "logsumexp", "relu", "scatter_add",
           "sigmoid", "softmax", "stop_gradient", "unbroadcast"]
