"""``Sequential`` (modules applied in order) and ``ModuleList`` (an indexable list of them).

Children are registered under their positions (``'0'``, ``'1'`` ...) or, for a
``Sequential`` built from an ``OrderedDict``, under the given names, so parameter names
read ``'0.weight'`` as in PyTorch.  Slicing gives a new container of the same modules.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator
from typing import Any

from .module import Module, _indent

__all__ = ["ModuleList", "Sequential"]


class _Indexed(Module):
    """Shared indexing over ``_modules`` in insertion order."""

    def _index(self, idx: int) -> str:
        n = len(self._modules)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range")
        result: str = list(self._modules)[idx % n]
        return result

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, self._index(idx), module)

    def __delitem__(self, idx: int | slice) -> None:
        keys = list(self._modules)
        for key in (keys[idx] if isinstance(idx, slice) else [self._index(idx)]):
            delattr(self, key)
        self._renumber()

    def _renumber(self) -> None:
        """Give children their positions as names again (after a deletion: PyTorch renames
        a ``Sequential`` built from an ``OrderedDict`` too)."""
        kept = list(self._modules.values())
        self._modules.clear()
        for i, module in enumerate(kept):
            self._modules[str(i)] = module

    def append(self, module: Module) -> _Indexed:
        """Add ``module`` at the end."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> _Indexed:
        """Add each of ``modules`` at the end."""
        for module in modules:
            self.append(module)
        return self

    def pop(self, key: int | slice) -> Any:
        """Remove the child at ``key`` (the rest are renumbered) and return it."""
        v = self[key]  # type: ignore[index]
        del self[key]
        return v


class Sequential(_Indexed):
    """Modules applied one after another: ``Sequential(a, b)(x)`` is ``b(a(x))``.

    >>> import st_autodiff as torch
    >>> torch.nn.Sequential(torch.nn.Linear(4, 2), torch.nn.Tanh())
    Sequential(
      (0): Linear(in_features=4, out_features=2, bias=True)
      (1): Tanh()
    )
    """

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return self._modules[self._index(idx)]

    def forward(self, input: Any) -> Any:
        for module in self._modules.values():
            input = module(input)
        return input

    def insert(self, index: int, module: Module) -> Sequential:
        """Put ``module`` before position ``index`` (PyTorch's: children named by position)."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not (-n <= index <= n):
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self

    def __add__(self, other: Any) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        ret = Sequential()
        for layer in (*self, *other):
            ret.append(layer)
        return ret

    def __iadd__(self, other: Any) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        offset = len(self)
        for i, module in enumerate(other):
            self.add_module(str(i + offset), module)
        return self

    def _check_factor(self, other: Any) -> None:
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")

    def __mul__(self, other: int) -> Sequential:
        self._check_factor(other)
        combined = Sequential()
        offset = 0
        for _ in range(other):
            for module in self:
                combined.add_module(str(offset), module)
                offset += 1
        return combined

    __rmul__ = __mul__

    def __imul__(self, other: int) -> Sequential:
        self._check_factor(other)
        n = len(self)
        offset = n
        for _ in range(other - 1):
            for i in range(n):
                self.add_module(str(i + offset), self._modules[str(i)])
            offset += n
        return self


class ModuleList(_Indexed):
    """A list of modules, each registered as a child (it has no ``forward`` of its own)."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[self._index(idx)]

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        combined = ModuleList()
        for i, module in enumerate((*self, *other)):
            combined.add_module(str(i), module)
        return combined

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        self.extend(modules)
        return self

    # rnn part (issue 12): PyTorch prints runs of equal children once, as ``(0-1): 2 x ...``
    def __repr__(self) -> str:
        reprs = [repr(m) for m in self._modules.values()]
        if not reprs:
            return "ModuleList()"
        lines, start = [], 0
        for end in range(1, len(reprs) + 1):
            if end == len(reprs) or reprs[end] != reprs[start]:
                body = _indent(reprs[start], 2)
                count = end - start
                lines.append(f"({start}): {body}" if count == 1
                             else f"({start}-{end - 1}): {count} x {body}")
                start = end
        return "ModuleList(\n  " + "\n  ".join(lines) + "\n)"

    def insert(self, index: int, module: Module) -> None:
        """Put ``module`` before position ``index``."""
        kept = list(self._modules.values())
        kept.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(kept):
            self._modules[str(i)] = m
