"""``torch.special`` for the eager runtime: SciPy's special functions on tensors, their
backward nodes running the rules of ``derivatives.special`` (the compiler's rules).

``import st_autodiff as torch; torch.special.erf(x)``.  SciPy is imported on first use.
"""

from __future__ import annotations

from ..ir.ops import Op
from .functional import NONE, RESULT, SELF, _binary, _unary

__all__ = ["digamma", "entr", "erf", "erfc", "erfinv", "expit", "gammaln", "log_ndtr", "logit",
           "ndtr", "ndtri", "psi", "sinc", "xlog1py", "xlogy"]

expit = _unary("expit", Op.EXPIT, "SigmoidBackward0", RESULT)
logit = _unary("logit", Op.LOGIT, "LogitBackward0", SELF, keeps_out=False)
erf = _unary("erf", Op.ERF, "ErfBackward0", SELF, keeps_out=False)
erfc = _unary("erfc", Op.ERFC, "ErfcBackward0", SELF, keeps_out=False)
erfinv = _unary("erfinv", Op.ERFINV, "ErfinvBackward0", RESULT)
digamma = _unary("digamma", Op.DIGAMMA, "DigammaBackward0", SELF, keeps_out=False)
psi = digamma
gammaln = _unary("gammaln", Op.GAMMALN, "LgammaBackward0", SELF, keeps_out=False)
ndtr = _unary("ndtr", Op.NDTR, "SpecialNdtrBackward0", SELF, keeps_out=False)
ndtri = _unary("ndtri", Op.NDTRI, "SpecialNdtriBackward0", RESULT)
log_ndtr = _unary("log_ndtr", Op.LOG_NDTR, "SpecialLogNdtrBackward0", RESULT)
entr = _unary("entr", Op.ENTR, "SpecialEntrBackward0", SELF, keeps_out=False)
sinc = _unary("sinc", Op.SINC, "SincBackward0", RESULT)
xlogy = _binary("xlogy", Op.XLOGY, "XlogyBackward0", NONE)
xlog1py = _binary("xlog1py", Op.XLOG1PY, "SpecialXlog1pyBackward0", NONE)
