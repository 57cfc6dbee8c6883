"""``python -m tests.programs.names``: the ``torch.*`` names the corpus uses that st_autodiff
lacks, each with the programs that use it.

Reads each program's source (no running): the aliases its imports give to ``torch`` modules
and names (``import torch.nn as nn``, ``from torch.utils.data import DataLoader``) and every
attribute chain rooted at one (``nn.functional.cross_entropy``), then resolves each dotted
name against st_autodiff standing in for ``torch`` (``shim.py``). Tensor methods are not
seen (their receiver's type is not known without running).
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections import defaultdict
from pathlib import Path

from tests.programs import shim
from tests.programs.harness import program_paths


def used_names(source: str) -> set[str]:
    """The dotted ``torch...`` names that ``source`` refers to."""
    tree = ast.parse(source)
    aliases: dict[str, str] = {}
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for item in node.names:
                if item.name == "torch" or item.name.startswith("torch."):
                    if item.asname:
                        aliases[item.asname] = item.name
                    else:
                        aliases["torch"] = "torch"
                    names.add(item.name)
        elif isinstance(node, ast.ImportFrom) and node.module and (
                node.module == "torch" or node.module.startswith("torch.")):
            for item in node.names:
                full = f"{node.module}.{item.name}"
                aliases[item.asname or item.name] = full
                names.add(full)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            parts: list[str] = []
            inner: ast.expr = node
            while isinstance(inner, ast.Attribute):
                parts.append(inner.attr)
                inner = inner.value
            if isinstance(inner, ast.Name) and inner.id in aliases:
                names.add(".".join([aliases[inner.id], *reversed(parts)]))
    return names


def missing_prefix(dotted: str) -> str | None:
    """The shortest prefix of ``dotted`` that st_autodiff (as ``torch``) lacks, or None."""
    parts = dotted.split(".")
    obj: object = sys.modules["torch"]
    for i in range(1, len(parts)):
        name = ".".join(parts[:i + 1])
        if hasattr(obj, parts[i]):
            obj = getattr(obj, parts[i])
            continue
        try:
            obj = importlib.import_module(name)
        except ImportError:
            return name
    return None


def main() -> None:
    shim.install()
    users: dict[str, list[str]] = defaultdict(list)
    for path in program_paths():
        for name in sorted(used_names(Path(path).read_text())):
            missing = missing_prefix(name)
            if missing is not None and path.stem not in users[missing]:
                users[missing].append(path.stem)
    for name in sorted(users, key=lambda n: (-len(users[n]), n)):
        programs = users[name]
        shown = ", ".join(p.split("_")[0] for p in programs)
        print(f"{name:<45} {len(programs):2d}  {shown}")
    print(f"{len(users)} missing names")


if __name__ == "__main__":
    main()
