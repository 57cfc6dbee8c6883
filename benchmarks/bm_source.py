"""Import Python source as a module from a real file, so ``inspect`` and st_autodiff can
read it (generated workloads, fresh copies that no cache has seen)."""

from __future__ import annotations

import importlib.util
import os
import sys
from typing import Any


def import_source(source: str, name: str, directory: str) -> Any:
    """Write ``source`` to ``directory/name.py`` and import it as module ``name``."""
    path = os.path.join(directory, name + ".py")
    with open(path, "w") as fh:
        fh.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod
