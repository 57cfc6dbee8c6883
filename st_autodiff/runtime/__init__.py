"""The eager runtime: PyTorch-style tensors whose autograd runs the shared rule table.

Importing any part of the package loads ``namespace`` first: it attaches the op methods
to ``Tensor`` (``methods.install`` and the parts' ``install_methods``), so a tensor made
through any import path (``import st_autodiff.nn``, ``from st_autodiff.runtime.tensor
import Tensor``) has all of them.
"""

from . import namespace as _namespace  # noqa: F401  (installs the Tensor methods)
