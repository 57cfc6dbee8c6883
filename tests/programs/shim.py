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
SUBMODULES = ("autograd", "nn", "optim", "utils", "linalg", "fft", "special", "distributions",
              "cuda", "testing", "profiler", "backends", "random")


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
        return _as_package(found)
    try:
        return _as_package(importlib.import_module(f"{TARGET}.{dotted}"))
    except ModuleNotFoundError as exc:
        if exc.name is not None and not f"{TARGET}.{dotted}".startswith(exc.name):
            raise  # a missing dependency inside st_autodiff, not a missing submodule
        return None


def _as_package(module: types.ModuleType) -> types.ModuleType:
    """Let the import system look for submodules below ``module``.

    ``import torch.autograd.functional`` needs ``torch.autograd`` to be a package (to have
    ``__path__``) before any finder is asked, even where ``st_autodiff.autograd`` is a
    single file whose ``functional`` is an attribute. An empty ``__path__`` finds no files;
    this finder answers from the attribute.
    """
    if not hasattr(module, "__path__"):
        module.__path__ = []  # type: ignore[attr-defined]
    return module


def _alias_tree(alias: str, value: object, depth: int) -> None:
    """Enter ``value`` (a module) as ``alias`` and its module attributes below it."""
    if not isinstance(value, types.ModuleType) or not value.__name__.startswith(TARGET + "."):
        return
    sys.modules.setdefault(alias, _as_package(value))
    if depth > 1:
        for attr, sub in list(vars(value).items()):
            if not attr.startswith("_"):
                _alias_tree(f"{alias}.{attr}", sub, depth - 1)


def install() -> types.ModuleType:
    """Alias ``torch`` to ``st_autodiff`` in this interpreter; return the module."""
    target = importlib.import_module(TARGET)
    sys.modules[PREFIX] = target
    if not any(isinstance(f, TorchAliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, TorchAliasFinder())
    # the submodules PyTorch programs name, where st_autodiff has them already, so that
    # ``sys.modules['torch.nn'] is torch.nn`` holds before any program imports them
    for name in SUBMODULES:
        _alias_tree(f"{PREFIX}.{name}", getattr(target, name, None), depth=2)
    return target
