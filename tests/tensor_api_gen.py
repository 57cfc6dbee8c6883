"""Writes ``st_autodiff/runtime/tensor_api.py``: the Tensor methods the runtime installs at
import time (``methods.install`` and the parts' ``install_methods``), declared for type
checkers.  ``python -m tests.tensor_api_gen`` rewrites the file; ``tests/test_typing.py``
fails when it is out of date.
"""

from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "st_autodiff" / "runtime" / "tensor_api.py"

HEADER = '''# ruff: noqa: E501  (generated: one declaration per line)
"""The Tensor methods installed at import time, declared for type checkers (generated).

``Tensor`` gets most of its methods from the op functions when the runtime loads
(``methods.install`` and the parts' ``install_methods``), which a type checker cannot see;
``tensor.py`` inherits these declarations under ``TYPE_CHECKING`` only.  Do not edit:
``python -m tests.tensor_api_gen`` writes this file from the live class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # a plain class, not a Protocol, so that nothing in it is abstract
    from .tensor import Tensor


class TensorMethods:
    """The installed methods and properties of ``Tensor`` (signatures only).

    A plain class, not a ``Protocol``: mypy takes a protocol's bodiless methods for abstract
    ones, and ``Tensor(...)`` or ``nn.Parameter(...)`` would be refused as abstract."""

'''


def _declared() -> set[str]:
    """Names the ``Tensor`` class body itself defines."""
    tree = ast.parse((ROOT / "st_autodiff" / "runtime" / "tensor.py").read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tensor")
    names: set[str] = set()
    for n in cls.body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(n.name)
        elif isinstance(n, ast.Assign):
            names.update(t.id for t in n.targets if isinstance(t, ast.Name))
        elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name):
            names.add(n.target.id)
    return names


def _returns(fn: object) -> str:
    ann = getattr(fn, "__annotations__", {}).get("return")
    return "Tensor" if ann in ("Tensor", "TensorBase") else "Any"


def _params(fn: object) -> str:
    """``self, a: Any, b: Any = ..., *, c: Any = ...`` from the function's signature (the
    first parameter is the tensor the method is called on)."""
    try:
        sig = inspect.signature(fn)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return "self, *args: Any, **kwargs: Any"
    params = list(sig.parameters.values())
    out = ["self"]
    star = False
    for p in params[1:]:
        if p.kind is p.VAR_POSITIONAL:
            out.append(f"*{p.name}: Any")
            star = True
        elif p.kind is p.VAR_KEYWORD:
            out.append(f"**{p.name}: Any")
        else:
            if p.kind is p.KEYWORD_ONLY and not star:
                out.append("*")
                star = True
            default = "" if p.default is p.empty else " = ..."
            out.append(f"{p.name}: Any{default}")
        if p.kind is p.POSITIONAL_ONLY and (params.index(p) + 1 == len(params) or params[
                params.index(p) + 1].kind is not p.POSITIONAL_ONLY):
            out.append("/")
    if params and params[0].kind is params[0].POSITIONAL_ONLY and "/" not in out:
        out.insert(1, "/")
    return ", ".join(out)


def render() -> str:
    """The file's text, from the live ``Tensor`` class."""
    import st_autodiff

    st_autodiff.tensor  # noqa: B018  (loads the runtime, which installs the methods)
    from st_autodiff.runtime.tensor import Tensor

    declared = _declared()
    lines = [HEADER]
    for name in sorted(vars(Tensor)):
        if name in declared or (name.startswith("_") and not name.startswith("__")):
            continue
        value = vars(Tensor)[name]
        if isinstance(value, property):
            ret = _returns(value.fget) if value.fget else "Any"
            lines.append(f"    @property\n    def {name}(self) -> {ret}: {_BODY}\n\n")
        elif inspect.isfunction(value):
            if name.startswith("__") and name not in _OPERATORS:
                continue
            # (part mypyr: ``==``/``!=`` compare elementwise, so they return a Tensor where
            # object's return a bool: the override is deliberate, as in NumPy's stubs)
            ignore = "  # type: ignore[override]" if name in _ELEMENTWISE_EQ else ""
            head = f"    def {name}({_params(value)}) -> {_returns(value)}:"
            lines.append(f"{head} {_BODY}{ignore}\n\n")
    return "".join(lines).rstrip("\n") + "\n"


#: dunder methods worth declaring (operators and conversions)
_OPERATORS = {
    "__add__", "__radd__", "__iadd__", "__sub__", "__rsub__", "__isub__", "__mul__",
    "__rmul__", "__imul__", "__truediv__", "__rtruediv__", "__itruediv__", "__floordiv__",
    "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__", "__ipow__", "__matmul__",
    "__rmatmul__", "__neg__", "__pos__", "__abs__", "__invert__", "__and__", "__rand__",
    "__or__", "__ror__", "__xor__", "__rxor__", "__lt__", "__le__", "__gt__", "__ge__",
    "__getitem__", "__setitem__", "__len__", "__iter__", "__float__", "__int__",
    "__bool__", "__index__", "__contains__", "__lshift__", "__rshift__", "__eq__", "__ne__",
}
#: the body of every declaration (never run: the class is imported for type checkers only)
_BODY = "raise NotImplementedError"
#: comparisons that override object's (bool) with an elementwise Tensor result
_ELEMENTWISE_EQ = {"__eq__", "__ne__"}


if __name__ == "__main__":
    TARGET.write_text(render())
    print(f"wrote {TARGET.relative_to(ROOT)}", file=sys.stderr)
