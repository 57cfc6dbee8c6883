"""``Flatten``/``Unflatten`` and the keyed containers ``ModuleDict``, ``ParameterList`` and
``ParameterDict``.

The containers register their entries as children (modules) or parameters under their
keys (``'0'``, ``'1'`` ... for a list), so ``named_parameters`` and ``state_dict`` read as in
PyTorch.  A plain tensor put in a parameter container becomes a ``Parameter``.  As in
PyTorch, ``ParameterDict`` built from a plain ``dict`` takes the keys sorted (from an
``OrderedDict`` or another ``ParameterDict``, in their order), while ``ModuleDict`` keeps
any mapping's order.  The reprs copy PyTorch's, including its two spellings of a
parameter's type (``torch.float32`` in a list, ``torch.FloatTensor`` in a dict).

>>> import st_autodiff as torch
>>> torch.nn.Flatten()(torch.ones(2, 3, 4)).shape
torch.Size([2, 12])
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .. import shape_ops as S
from ..tensor import Tensor
from .module import Module, typename
from .parameter import Parameter

__all__ = ["Flatten", "ModuleDict", "ParameterDict", "ParameterList", "Unflatten"]


class Flatten(Module):
    """Flattens dimensions ``start_dim`` .. ``end_dim`` into one (the batch is kept)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return S.flatten(input, self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Splits dimension ``dim`` into ``unflattened_size`` (one entry may be -1)."""

    def __init__(self, dim: int, unflattened_size: Any) -> None:
        super().__init__()
        if isinstance(dim, str):
            raise NotImplementedError("Unflatten over a named dimension needs named tensors, "
                                      "which st_autodiff does not have")
        if not isinstance(dim, int):
            raise TypeError("invalid argument type for dim parameter")
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError("unflattened_size must be a tuple of ints, but found type "
                            f"{type(unflattened_size).__name__}")
        for i, n in enumerate(unflattened_size):
            if not isinstance(n, int):
                raise TypeError("unflattened_size must be tuple of ints, but found element of "
                                f"type {type(n).__name__} at pos {i}")
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        shape = list(input.shape)
        d = self.dim % len(shape) if shape else 0
        sizes = list(self.unflattened_size)
        if -1 in sizes:
            known = 1
            for n in sizes:
                known *= n if n != -1 else 1
            sizes[sizes.index(-1)] = shape[d] // known if known else 0
        total = 1
        for n in sizes:
            total *= n
        if total != shape[d]:
            raise RuntimeError(f"unflatten: Provided sizes {list(self.unflattened_size)} don't "
                               f"multiply up to the size of dim {self.dim} ({shape[d]}) in the "
                               "input tensor")
        return S.view(input, *(shape[:d] + sizes + shape[d + 1:]))

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class ModuleDict(Module):
    """Modules held under string keys, in insertion order (no ``forward`` of its own)."""

    def __init__(self, modules: Mapping[str, Module] | Iterable[Any] | None = None
                 ) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        module: Module = self._modules[key]
        return module

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: object) -> bool:
        return key in self._modules

    def clear(self) -> None:
        """Remove every module."""
        self._modules.clear()

    def pop(self, key: str) -> Module:
        """Remove ``key`` and return its module."""
        module = self[key]
        del self[key]
        return module

    def keys(self) -> Any:
        """The keys, in order."""
        return self._modules.keys()

    def items(self) -> Any:
        """``(key, module)`` pairs, in order."""
        return self._modules.items()

    def values(self) -> Any:
        """The modules, in order."""
        return self._modules.values()

    def update(self, modules: Mapping[str, Module] | Iterable[Any]) -> None:
        """Add (or replace) entries from a mapping or from ``(key, module)`` pairs."""
        pairs = modules.items() if isinstance(modules, Mapping) else modules
        for j, pair in enumerate(pairs):
            if isinstance(modules, Mapping):
                key, module = pair
            else:
                pair = tuple(pair)
                if len(pair) != 2:
                    raise ValueError(f"ModuleDict update sequence element #{j} has length "
                                     f"{len(pair)}; 2 is required")
                key, module = pair
            self[key] = module


def _describe(p: Any, type_name: str) -> str:
    if not isinstance(p, Tensor):
        return f"Object of type: {type(p).__name__}"
    size = "x".join(str(n) for n in p.shape)
    device = f" ({p.device})" if p.device.type == "cuda" else ""
    kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
    return f"{kind} containing: [{type_name} of size {size}{device}]"


def _as_parameter(value: Any) -> Any:
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


class ParameterList(Module):
    """Parameters held in a list (a plain tensor is made a ``Parameter``)."""

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        object.__setattr__(self, "_size", 0)
        if values is not None:
            self += values

    def _key(self, idx: int) -> str:
        if not -self._size <= idx < self._size:
            raise IndexError(f"index {idx} is out of range")
        return str(idx % self._size)

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return type(self)([self[i] for i in range(self._size)[idx]])
        return getattr(self, self._key(idx))

    def __setitem__(self, idx: int, param: Any) -> None:
        setattr(self, self._key(idx), _as_parameter(param))

    def __len__(self) -> int:
        result: int = self._size
        return result

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(self._size))

    def __iadd__(self, parameters: Iterable[Any]) -> ParameterList:
        return self.extend(parameters)

    def __dir__(self) -> list[str]:
        return [k for k in super().__dir__() if not k.isdigit()]

    def append(self, value: Any) -> ParameterList:
        """Add ``value`` at the end."""
        object.__setattr__(self, "_size", self._size + 1)
        self[self._size - 1] = value
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        """Add each of ``values`` at the end."""
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(f"  ({i}): {_describe(p, str(getattr(p, 'dtype', '')))}"
                         for i, p in enumerate(self))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """Parameters held under string keys (a plain tensor is made a ``Parameter``)."""

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        object.__setattr__(self, "_keys", {})
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[key] = None
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def keys(self) -> Any:
        """The keys, in order."""
        return self._keys.keys()

    def items(self) -> Iterator[tuple[str, Any]]:
        """``(key, parameter)`` pairs, in order."""
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterator[Any]:
        """The parameters, in order."""
        return (self[k] for k in self._keys)

    def get(self, key: str, default: Any = None) -> Any:
        """The entry at ``key``, or ``default``."""
        return self[key] if key in self else default

    def pop(self, key: str) -> Any:
        """Remove ``key`` and return its entry."""
        value = self[key]
        del self[key]
        return value

    def clear(self) -> None:
        """Remove every entry."""
        for key in list(self._keys):
            del self[key]

    def setdefault(self, key: str, default: Any = None) -> Any:
        """The entry at ``key``, first set to ``default`` if missing."""
        if key not in self:
            self[key] = default
        return self[key]

    def update(self, parameters: Any) -> None:
        """Add entries: a plain mapping's in sorted key order, an ``OrderedDict``'s or a
        ``ParameterDict``'s in theirs, or ``(key, value)`` pairs in order."""
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            pairs = list(parameters.items())
        elif isinstance(parameters, Mapping):
            pairs = sorted(parameters.items())
        else:
            pairs = [tuple(p) for p in parameters]
        for key, value in pairs:
            self[key] = value

    def extra_repr(self) -> str:
        return "\n".join(f"  ({k}): {_describe(p, typename(p))}" for k, p in self.items())
