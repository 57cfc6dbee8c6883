"""``nn.Module``: a container of parameters, buffers and submodules with a ``forward``.

Assigning an attribute routes it by type, as in PyTorch: a ``Parameter`` goes to
``_parameters``, a ``Module`` to ``_modules``, a tensor to ``_buffers`` when the name was
registered as a buffer, anything else to the instance dict.  Reading falls back to those
three dicts, so ``self.weight`` and ``self.fc`` work.  Everything that walks the tree
(``named_parameters``, ``named_modules``, ``state_dict``, ``train`` ...) visits in
registration order, depth first, and lists a shared parameter or module once.

>>> import st_autodiff as torch
>>> net = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU())
>>> [name for name, _ in net.named_parameters()]
['0.weight', '0.bias']
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ..grad_mode import no_grad
from ..hooks import HookDict, RemovableHandle, add_hook
from ..tensor import Tensor
from . import backward_hooks
from .parameter import Parameter
from .state import IncompatibleKeys, load_state_dict

__all__ = ["Module", "typename"]


def typename(obj: Any) -> str:
    """PyTorch's name for ``obj``'s type in messages (``torch.FloatTensor``, ``int`` ...)."""
    if isinstance(obj, Tensor):
        tensor_type: str = obj.type()
        return tensor_type
    module = getattr(obj, "__module__", "") or ""
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if name is None:
        module, name = type(obj).__module__ or "", type(obj).__qualname__
    return name if module in ("", "builtins") else f"{module}.{name}"


def _indent(text: str, spaces: int) -> str:
    """Indent every line of ``text`` but the first."""
    first, *rest = text.split("\n")
    return "\n".join([first] + [" " * spaces + line for line in rest])


class Module:
    """Base class of every layer and model: subclass it and define ``forward``."""

    training: bool
    _version: int = 1

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments")
        put = object.__setattr__
        put(self, "training", True)
        put(self, "_parameters", {})
        put(self, "_buffers", {})
        put(self, "_non_persistent_buffers_set", set())
        put(self, "_modules", {})
        put(self, "_forward_pre_hooks", HookDict())
        put(self, "_forward_hooks", HookDict())

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Run the forward pre-hooks, ``forward``, then the forward hooks."""
        # part "autograd": backward hooks (registered lazily into the instance dict)
        if ("_backward_hooks" in self.__dict__ or "_backward_pre_hooks" in self.__dict__) \
                and backward_hooks.has_backward_hooks(self):
            return backward_hooks.call_with_backward_hooks(
                self, self._forward_pre_hooks, self._forward_hooks, args, kwargs)
        if not self._forward_pre_hooks and not self._forward_hooks:
            return self.forward(*args, **kwargs)
        for hook in list(self._forward_pre_hooks.values()):
            new = hook(self, args)
            if new is not None:
                args = new if isinstance(new, tuple) else (new,)
        result = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks.values()):
            new = hook(self, args, result)
            if new is not None:
                result = new
        return result

    def register_forward_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """``hook(module, args)`` before ``forward``; may return replacement args."""
        return add_hook(self._forward_pre_hooks, hook)

    def register_forward_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """``hook(module, args, output)`` after ``forward``; may return a new output."""
        return add_hook(self._forward_hooks, hook)

    def register_full_backward_hook(self, hook: Callable[..., Any],
                                    prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_input, grad_output)`` once the inputs' gradients are known;
        may return a replacement ``grad_input`` (part "autograd", see backward_hooks)."""
        return backward_hooks.register_full_backward_hook(self, hook, prepend)

    def register_full_backward_pre_hook(self, hook: Callable[..., Any],
                                        prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_output)`` before the module's backward; may replace it."""
        return backward_hooks.register_full_backward_pre_hook(self, hook, prepend)

    def register_backward_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Deprecated in PyTorch: ``hook(module, grad_input, grad_output)`` on the node that
        made the output (use ``register_full_backward_hook``)."""
        return backward_hooks.register_backward_hook(self, hook)

    # --- registration ----------------------------------------------------------------------

    def _check_name(self, name: Any, kind: str, table: str) -> None:
        if table not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in self.__dict__[table]:
            raise KeyError(f"attribute '{name}' already exists")

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add ``param`` (or a ``None`` placeholder) under ``name``."""
        self._check_name(name, "parameter", "_parameters")
        if param is not None:
            if not isinstance(param, Parameter):
                raise TypeError(f"cannot assign '{typename(param)}' object to parameter "
                                f"'{name}' (torch.nn.Parameter or None required)")
            if param.grad_fn is not None:
                raise ValueError(
                    f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters "
                    f"must be created explicitly. To express '{name}' as a function of "
                    "another Tensor, compute the value in the forward() method.")
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a tensor that is state but not a parameter (saved unless not ``persistent``)."""
        self._check_name(name, "buffer", "_buffers")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a child module under ``name``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, "_parameters")
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            params[name] = None
        elif isinstance(value, Module):
            if d.get("_modules") is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, "_modules")
            d["_modules"][name] = value
        elif d.get("_modules") is not None and name in d["_modules"]:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            d["_modules"][name] = None
        elif d.get("_buffers") is not None and name in d["_buffers"]:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            d["_buffers"][name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str, keep: str) -> None:
        """Drop ``name`` from every place an attribute can live but the table ``keep`` it is
        being assigned into (where it keeps its position, as in PyTorch: replacing a
        parameter or a ``Sequential``'s child leaves the order of ``parameters()`` and of
        the forward as it was)."""
        self.__dict__.pop(name, None)
        for table in ("_parameters", "_buffers", "_modules"):
            if table != keep:
                self.__dict__[table].pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        # speedcore: the three tables unrolled (this runs for every ``self.weight``)
        entries = d.get("_parameters")
        if entries is not None and name in entries:
            return entries[name]
        entries = d.get("_buffers")
        if entries is not None and name in entries:
            return entries[name]
        entries = d.get("_modules")
        if entries is not None and name in entries:
            return entries[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for table in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__[table]:
                del self.__dict__[table][name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        names = set(super().__dir__())
        for table in ("_parameters", "_buffers", "_modules"):
            names.update(self.__dict__[table])
        return sorted(n for n in names if not n[:1].isdigit())

    # --- walking the tree ------------------------------------------------------------------

    def named_modules(self, memo: set[Module] | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        """``(dotted name, module)`` for this module and every descendant."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if self in memo:
                return
            memo.add(self)
        yield prefix, self
        for name, child in self._modules.items():
            if child is not None:
                sub = f"{prefix}.{name}" if prefix else name
                yield from child.named_modules(memo, sub, remove_duplicate)

    def modules(self) -> Iterator[Module]:
        for _, module in self.named_modules():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """``(name, module)`` for each direct child, each module once."""
        seen = set()
        for name, child in self._modules.items():
            if child is not None and child not in seen:
                seen.add(child)
                yield name, child

    def children(self) -> Iterator[Module]:
        for _, child in self.named_children():
            yield child

    def _named_members(self, table: str, prefix: str, recurse: bool,
                       remove_duplicate: bool) -> Iterator[tuple[str, Any]]:
        seen: set[int] = set()
        owners = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                  if recurse else [(prefix, self)])
        for owner_name, owner in owners:
            for name, value in owner.__dict__[table].items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield (f"{owner_name}.{name}" if owner_name else name), value

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """``(dotted name, parameter)`` pairs, e.g. ``('0.weight', Parameter ...)``."""
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Call ``fn`` on every submodule (children first), then on this module."""
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    # --- modes and gradients ---------------------------------------------------------------

    def train(self, mode: bool = True) -> Module:
        """Set training mode (affects ``Dropout`` and similar) here and below."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for child in self.children():
            child.train(mode)
        return self

    def eval(self) -> Module:
        """Evaluation mode: ``train(False)``.  It does not turn off gradient recording."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Set ``requires_grad`` on every parameter."""
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the parameters' gradients: to ``None`` by default, else to zeros."""
        for param in self.parameters():
            _reset_grad(param, set_to_none)

    # --- state -----------------------------------------------------------------------------

    def state_dict(self, *args: Any, destination: Any = None, prefix: str = "",
                   keep_vars: bool = False) -> OrderedDict[str, Any]:
        """An ordered mapping from dotted names to parameters and persistent buffers
        (detached from the graph unless ``keep_vars``)."""
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        meta = getattr(destination, "_metadata", None)
        if meta is not None:
            meta[prefix[:-1]] = {"version": self._version}
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        for name, child in self._modules.items():
            if child is not None:
                child.state_dict(destination=destination, prefix=f"{prefix}{name}.",
                                 keep_vars=keep_vars)
        result: OrderedDict[str, Any] = destination
        return result

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True,
                        assign: bool = False) -> IncompatibleKeys:
        """Copy values from ``state_dict`` into the parameters and buffers, in place (or
        replace them with ``assign``); returns the keys that did not match."""
        return load_state_dict(self, state_dict, strict, assign)

    # --- dtype and device ------------------------------------------------------------------

    def _apply(self, fn: Callable[[Tensor], Tensor]) -> Module:
        """Convert every parameter (keeping the Parameter object), its grad and buffers."""
        for module in self.modules():
            for param in module._parameters.values():
                if param is None:
                    continue
                with no_grad():
                    param.data = fn(param)
                    if param._grad is not None:
                        param._grad = fn(param._grad)
            for name, buf in module._buffers.items():
                if buf is not None:
                    module._buffers[name] = fn(buf)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """Move and/or cast parameters and buffers (floating ones only change dtype)."""
        return self._apply(lambda t: t.to(*args, **kwargs) if t.is_floating_point() else
                           t.to(*[a for a in args if not _is_dtype(a)],
                                **{k: v for k, v in kwargs.items() if k != "dtype"}))

    def double(self) -> Module:
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def float(self) -> Module:
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def half(self) -> Module:
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def type(self, dst_type: Any) -> Module:
        """Cast every parameter and buffer to ``dst_type`` (integer buffers too)."""
        return self._apply(lambda t: t.type(dst_type))

    def cpu(self) -> Module:
        return self._apply(lambda t: t.cpu())

    def cuda(self, device: Any = None) -> Module:
        return self._apply(lambda t: t.cuda() if device is None else t.cuda(device))

    def get_submodule(self, target: str) -> Module:
        """The descendant at the dotted path ``target`` (``""`` is this module)."""
        if target == "":
            return self
        mod: Module = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    # --- printing --------------------------------------------------------------------------

    def extra_repr(self) -> str:
        """The text inside ``Name(...)`` before the children; override to describe settings."""
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        children = [f"({name}): {_indent(repr(child), 2)}"
                    for name, child in self._modules.items()]
        body = lines + children
        if len(lines) == 1 and not children:
            inner = lines[0]
        elif body:
            inner = "\n  " + "\n  ".join(body) + "\n"
        else:
            inner = ""
        return f"{self._get_name()}({inner})"


def _is_dtype(value: Any) -> bool:
    from ..dtypes import dtype

    return isinstance(value, dtype)


def _reset_grad(param: Tensor, set_to_none: bool) -> None:
    """``param.grad = None``, or zero it in place (detached from any graph)."""
    grad = param._grad
    if grad is None:
        return
    if set_to_none:
        param.grad = None
        return
    if grad.grad_fn is not None:
        grad.detach_()
    else:
        grad.requires_grad_(False)
    grad.zero_()
