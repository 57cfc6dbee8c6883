"""``st_autodiff.distributions`` is ``torch.distributions``: the runtime's package itself.

Importing this name puts the runtime's module objects in its place, one module object per
file, so ``import st_autodiff.distributions.constraints`` finds the runtime's module
instead of loading the file a second time under another name.
"""

import sys

from .runtime import distributions as _distributions

sys.modules[__name__] = _distributions
for _sub in _distributions.SUBMODULES:
    sys.modules[f"{__name__}.{_sub}"] = sys.modules[f"{_distributions.__name__}.{_sub}"]
