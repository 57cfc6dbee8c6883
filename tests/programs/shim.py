"""Make ``import torch`` (and every ``torch.x.y`` submodule) resolve to ``st_autodiff``.

A program written for PyTorch imports ``torch``, ``torch.nn``, ``torch.nn.functional``,
``torch.utils.data`` and so on. ``install()`` puts ``st_autodiff`` in ``sys.modules`` as
``torch`` and adds a meta-path finder that answers any ``torch.<dotted>`` import with the
``st_autodiff`` object of the same dotted name: first the attribute of the parent (so
``torch.linalg`` is whatever ``st_autodiff.linalg`` is, even where that is a module of
another file name), then ``st_autodiff.<dotted>`` imported as a module. A name that
``st_autodiff`` lacks fails as PyTorch's missing modules do, with ``ModuleNotFoundError``.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types

PREFIX = "torch"
TARGET = "st_autodiff"


class _AliasLoader(importlib.abc.Loader):
    """Hand back an already-imported module instead of executing a file."""

    def __init__(self, module: types.ModuleType) -> None:
        self.module = module
        self.saved = {k: module.__dict__[k] for k in ("__spec__", "__loader__")
                      if k in module.__dict__}

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return self.module

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run; undo the import system's relabelling of the module's spec."""
        module.__dict__.update(self.saved)


class TorchAliasFinder(importlib.abc.MetaPathFinder):
    """Find ``torch.a.b`` as the ``st_autodiff`` module reached by ``a.b``."""

    def find_spec(self, fullname: str, path: object = None,
                  target: object = None) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(PREFIX + "."):
            return None
        module = _resolve(fullname[len(PREFIX) + 1:])
        if module is None:
            return None
        spec = importlib.machinery.ModuleSpec(fullname, _AliasLoader(module))
        return spec


def _resolve(dotted: str) -> types.ModuleType | None:
    """The ``st_autodiff`` module named ``dotted`` (relative to the package), or None."""
    parent_name, _, last = dotted.rpartition(".")
    parent = sys.modules.get(f"{PREFIX}.{parent_name}" if parent_name else PREFIX)
    found = getattr(parent, last, None) if parent is not None else None
    if isinstance(found, types.ModuleType):
        return found
    try:
        return importlib.import_module(f"{TARGET}.{dotted}")
    except ModuleNotFoundError as exc:
        if exc.name is not None and not f"{TARGET}.{dotted}".startswith(exc.name):
            raise  # a missing dependency inside st_autodiff, not a missing submodule
        return None


def install() -> types.ModuleType:
    """Alias ``torch`` to ``st_autodiff`` in this interpreter; return the module."""
    target = importlib.import_module(TARGET)
    sys.modules[PREFIX] = target
    if not any(isinstance(f, TorchAliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, TorchAliasFinder())
    # submodules already imported by st_autodiff itself are aliased at once, so that
    # ``sys.modules['torch.nn'] is torch.nn`` holds before any program imports them
    for name, module in list(sys.modules.items()):
        if name.startswith(TARGET + ".") and module is not None:
            alias = PREFIX + name[len(TARGET):]
            if alias not in sys.modules and _is_public(name):
                sys.modules[alias] = module
    return target


def _is_public(name: str) -> bool:
    """Only the modules a PyTorch user can name (no ``runtime``/private parts)."""
    parts = name.split(".")[1:]
    return all(not p.startswith("_") for p in parts) and parts[0] not in {"runtime"}
