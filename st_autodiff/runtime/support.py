"""Runtime support for generated code (the ``rt`` global): what NumPy lacks in one call.

The implementations live in ``ir/kernels.py`` so that the interpreter, the compile-time
evaluator and generated code share one definition.
"""

from __future__ import annotations

from ..ir.kernels import (
    index_add,
    index_add_,
    list_add,
    list_gather,
    list_index_add,
    list_split_like,
    list_sum,
    list_ungather,
    list_unstack,
    list_zeros,
    log_softmax,
    logsumexp,
    python_bool,
    python_float,
    python_int,
    relu,
    scatter_add,
    setitem,
    sigmoid,
    softmax,
    stop_gradient,
    unbroadcast,
)

__all__ = ["index_add", "index_add_", "list_add", "list_gather", "list_index_add",
           "list_split_like", "list_sum", "list_ungather", "list_unstack", "list_zeros",
           "log_softmax", "logsumexp", "python_bool", "python_float", "python_int",
           "relu", "scatter_add", "setitem",
           "sigmoid", "softmax", "stop_gradient", "unbroadcast"]

# the scipy.special ops (and np.sinc): rt.<name> in generated code
from ..ir.kernels_special import (  # noqa: E402
    betaln,
    boxcox,
    digamma,
    entr,
    erf,
    erfc,
    erfinv,
    expit,
    gammainc,
    gammaincc,
    gammaln,
    huber,
    kl_div,
    log_expit,
    log_ndtr,
    logit,
    ndtr,
    ndtri,
    polygamma,
    pseudo_huber,
    rel_entr,
    sinc,
    svd,
    xlog1py,
    xlogy,
)

__all__ += ["betaln", "boxcox", "digamma", "entr", "erf", "erfc", "erfinv", "expit",
            "gammainc", "gammaincc", "gammaln", "huber", "kl_div", "log_expit", "log_ndtr",
            "logit", "ndtr", "ndtri", "polygamma", "pseudo_huber", "rel_entr", "sinc", "svd",
            "xlog1py", "xlogy"]

# fft family: the transforms of real pairs (ir/kernels_fft.py)
from ..ir.kernels_fft import cdiv, cmul, fft_c2c, fft_c2r, fft_r2c  # noqa: E402

__all__ += ["cdiv", "cmul", "fft_c2c", "fft_c2r", "fft_r2c"]
# the linalg family's ops (issue 11): rt.<name> in generated code
from ..ir.kernels_linalg import eig, eigvals, lu, matrix_exp, qr  # noqa: E402

__all__ += ["eig", "eigvals", "lu", "matrix_exp", "qr"]
from ..ir.kernels import no_derivative  # noqa: E402  (stats: rt.no_derivative)

__all__ += ["no_derivative"]
# special family (issue 11): the scipy.special ops of ir/kernels_special_more
from ..ir.kernels_special_more import KERNELS as _SPECIAL_MORE  # noqa: E402

globals().update(_SPECIAL_MORE)
__all__ += sorted(_SPECIAL_MORE)
