"""The eager runtime: PyTorch-style tensors whose autograd runs the shared rule table.

Importing any part of the package loads ``namespace`` first: it attaches the op methods
to ``Tensor`` (``methods.install`` and the parts' ``install_methods``), so a tensor made
through any import path (``import st_autodiff.nn``, ``from st_autodiff.runtime.tensor
import Tensor``) has all of them.

PyTorch never warns about a floating-point error (``torch.log(torch.tensor(0.))`` is
``-inf``, silently); NumPy does, from the line that called the ufunc.  One warnings filter
for the runtime's own modules keeps NumPy's RuntimeWarnings raised inside them quiet, at no
cost per op (filters are read only when a warning is raised); the user's own NumPy calls,
and the compiler's generated code, warn as NumPy does.
"""

import warnings as _warnings

from . import namespace as _namespace  # noqa: F401  (installs the Tensor methods)

_warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"st_autodiff\.runtime\.")
