"""``import st_autodiff`` loads one file; the runtime and the compiler load on first use.

Each check runs in a fresh interpreter (``sys.modules`` shows what was imported). The
import's cost is measured by ``benchmarks/import_time.py``, never here."""

from __future__ import annotations

import subprocess
import sys

import pytest


def _run(code: str) -> str:
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=False, timeout=300)
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


def test_import_loads_nothing_heavy() -> None:
    out = _run("import sys, st_autodiff\n"
               "print(sorted(m for m in ('libcst', 'scipy', 'st_autodiff.runtime', "
               "'st_autodiff.api', 'st_autodiff.derivatives') if m in sys.modules))")
    assert out == "[]"


def test_eager_use_never_loads_the_compiler() -> None:
    out = _run("import sys, st_autodiff as torch\n"
               "x = torch.ones(3, requires_grad=True)\n"
               "torch.nn.functional.mse_loss(torch.nn.Linear(3, 2)(x), torch.zeros(2)).backward()\n"
               "print(x.grad.shape, 'libcst' in sys.modules, 'st_autodiff.api' in sys.modules)")
    assert out == "torch.Size([3]) False False"


@pytest.mark.parametrize("first", [
    "torch.nn.Linear(2, 3).weight.detach().uniform_(0, 1)",            # a submodule before any name
    "__import__('st_autodiff.nn').nn.Linear(2, 3).weight.detach().uniform_(0, 1)",
    "torch.optim.SGD([torch.nn.Parameter(torch.ones(2))], lr=0.1)",
    "torch.distributions.Normal(0.0, 1.0).sample().abs_()",
    "torch.grad",
])
def test_any_first_name_gives_the_whole_runtime(first: str) -> None:
    """Whatever is touched first, tensors have every method the runtime installs."""
    out = _run(f"import st_autodiff as torch\n{first}\nprint(torch.ones(2).argsort().tolist())")
    assert out == "[0, 1]"


def test_names_and_star_import() -> None:
    out = _run("import st_autodiff as st\n"
               "ns = {}\nexec('from st_autodiff import *', ns)\n"
               "print(all(n in ns for n in ('grad', 'tensor', 'nn', 'float32', 'config')), "
               "'tensor' in dir(st), type(st.config).__name__, st.__version__ != '')")
    assert out == "True True Config True"
    with pytest.raises(AssertionError, match="has no attribute 'no_such_name'"):
        _run("import st_autodiff as st\nst.no_such_name")


@pytest.mark.parametrize("module", ["st_autodiff.products", "st_autodiff.api",
                                    "st_autodiff.product_compose"])
def test_any_compiler_module_can_be_imported_first(module: str) -> None:
    # products builds on api's GradFunction; api reads the products from there lazily
    # (importing products first was a circular import)
    out = _run(f"import {module}\nimport st_autodiff as st, st_autodiff.api as api\n"
               "print(st.hessian is api.hessian, st.vjp.__module__)")
    assert out == "True st_autodiff.products"
