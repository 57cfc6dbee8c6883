"""The layering rules of DESIGN.md, checked on the package's imports (read with ``ast``).

* ``ir`` imports nothing else of ours;
* ``derivatives`` (with ``derivatives.jvp``, its forward-mode half, and
  ``derivatives.lists``) imports only ``ir``;
* ``transforms`` never imports ``runtime.tensor``: of the runtime it may use only the
  array backend and the support module that generated code calls (``backend``,
  ``support``), never the eager side (tensor, engine, function, grad modes, hooks, nn,
  optim);
* ``runtime`` never imports ``transforms`` (the bridge between them lives in ``api``);
* CuPy is optional: no module imports it at import time.  Only ``runtime/backend.py``
  imports it, and ``ir/kernels.py``, which the interpreter, the compile-time evaluator
  and generated code share, may import ``cupy``/``cupyx`` inside a function, on the
  branch taken only for CuPy arrays.

Imports inside ``if TYPE_CHECKING:`` blocks are checked too: they are still a dependency
for the reader.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import st_autodiff

ROOT = Path(st_autodiff.__file__).parent
PACKAGE = "st_autodiff"


@dataclass(frozen=True)
class Import:
    module: str  # the importing module, dotted
    target: str  # the imported module (or module.name), dotted and absolute
    line: int
    lazy: bool  # inside a function body

    def __str__(self) -> str:
        return f"{self.module}:{self.line} imports {self.target}"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, module: str) -> list[Import]:
    """Every import in the file ``path`` of the dotted module ``module``."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: list[Import] = []

    def visit(node: ast.AST, lazy: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = lazy or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                               ast.Lambda))
            if isinstance(child, ast.Import):
                found.extend(Import(module, a.name, child.lineno, lazy) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = package.split(".")
                    anchor = anchor[:len(anchor) - (child.level - 1)]
                    base = ".".join(anchor + ([base] if base else []))
                found.append(Import(module, base, child.lineno, lazy))
                found.extend(Import(module, f"{base}.{a.name}", child.lineno, lazy)
                             for a in child.names)
            elif isinstance(child, ast.Call) and _dynamic_import(child):
                found.append(Import(module, child.args[0].value, child.lineno, lazy))
            visit(child, inner)

    visit(tree, False)
    return found


def _dynamic_import(call: ast.Call) -> bool:
    """``importlib.import_module("x")`` and ``__import__("x")`` with a literal name."""
    f = call.func
    name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
    return (name in ("import_module", "__import__") and bool(call.args)
            and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str))


ALL = [imp for path in sorted(ROOT.rglob("*.py")) for imp in imports_of(path, module_name(path))]


def ours(imp: Import) -> bool:
    return imp.target == PACKAGE or imp.target.startswith(PACKAGE + ".")


def within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def violations(source: str, rule) -> list[str]:
    return [str(i) for i in ALL if within(i.module, source) and ours(i) and not rule(i.target)]


def test_the_scanner_sees_the_package():
    modules = {i.module for i in ALL}
    assert {"st_autodiff.api", "st_autodiff.ir.graph", "st_autodiff.transforms.lower",
            "st_autodiff.derivatives", "st_autodiff.runtime.backend"} <= modules
    assert any(str(i).startswith("st_autodiff.api:") and i.target == "st_autodiff.transforms"
               for i in ALL)
    assert any(i.module == "st_autodiff.runtime.backend" and i.target == "cupy" for i in ALL)


def test_ir_imports_nothing_else_of_ours():
    assert violations("st_autodiff.ir", lambda t: within(t, "st_autodiff.ir")) == []


DERIVATIVES = ("st_autodiff.derivatives", "st_autodiff.derivatives.jvp",
               "st_autodiff.derivatives.lists", "st_autodiff.derivatives.special",
               "st_autodiff.derivatives.linalg")


def test_derivatives_imports_only_ir():
    def allowed(t: str) -> bool:
        return within(t, "st_autodiff.ir") or t == PACKAGE or any(within(t, d)
                                                                  for d in DERIVATIVES)

    assert [v for d in DERIVATIVES for v in violations(d, allowed)] == []


RUNTIME_FOR_TRANSFORMS = ("st_autodiff.runtime.backend", "st_autodiff.runtime.support")


def test_transforms_never_import_the_eager_runtime():
    def allowed(t: str) -> bool:
        if t in ("st_autodiff.runtime",) + RUNTIME_FOR_TRANSFORMS:
            return True
        return not within(t, "st_autodiff.runtime") and not within(t, "st_autodiff.api")

    assert violations("st_autodiff.transforms", allowed) == []


def test_runtime_never_imports_transforms_or_api():
    assert violations("st_autodiff.runtime", lambda t: not within(t, "st_autodiff.transforms")
                      and not within(t, "st_autodiff.api")) == []


def is_cupy(target: str) -> bool:
    return target.split(".")[0] in ("cupy", "cupyx")


def test_cupy_is_never_imported_at_import_time():
    assert [str(i) for i in ALL if is_cupy(i.target) and not i.lazy] == []


def test_only_the_backend_and_the_kernels_import_cupy():
    allowed = {"st_autodiff.runtime.backend", "st_autodiff.ir.kernels",
               "st_autodiff.ir.namespaces"}  # (backends, issue 15: namespaces from values)
    assert [str(i) for i in ALL if is_cupy(i.target) and i.module not in allowed] == []


def test_the_scanner_resolves_relative_lazy_and_dynamic_imports(tmp_path):
    path = tmp_path / "probe.py"
    path.write_text("from ..ir.graph import Node\n"
                    "import numpy as np\n"
                    "def f():\n"
                    "    import cupy\n"
                    "    return importlib.import_module('cupyx')\n")
    found = {(i.target, i.lazy) for i in imports_of(path, "st_autodiff.transforms.probe")}
    assert found == {("st_autodiff.ir.graph", False), ("st_autodiff.ir.graph.Node", False),
                     ("numpy", False), ("cupy", True), ("cupyx", True)}
