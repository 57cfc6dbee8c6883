"""The catalogue of differentiable library functions, read from the compiler's tables.

``docs/rules.md`` (``st-autodiff rules``) is generated from here, and the test suite
checks that every entry is exercised by the differential harness.  An entry is a public
function (or ndarray method) and how the compiler differentiates its calls:

* ``op``: the call is one op of the rule table (``ir/ops.py``, ``derivatives/``), with a
  VJP and a JVP written once for both engines;
* ``decomposition``: the call is rewritten into ops (``decompositions/``), possibly with a
  compiled kernel that carries its own rules (``scipy.signal.lfilter``);
* ``source``: the library's own Python source is compiled like the user's code (the
  functions listed in ``FROM_SOURCE``, each checked by a differential spec);
* ``zero``: an integer-, boolean- or piecewise-constant-valued function: its derivative is
  zero where it exists (``np.floor``, ``np.argmax``), so it may take active values.

Libraries are imported only when asked for (``entries(import_missing=True)``, as the
documentation build does); the compiler never needs this module.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

#: family -> module whose public callables are looked up in the compiler's tables
MODULES: dict[str, str] = {
    "numpy": "numpy", "numpy.linalg": "numpy.linalg", "numpy.fft": "numpy.fft",
    "math": "math", "scipy.special": "scipy.special", "scipy.linalg": "scipy.linalg",
    "scipy.signal": "scipy.signal", "scipy.spatial.distance": "scipy.spatial.distance",
    "scipy.fft": "scipy.fft", "scipy.integrate": "scipy.integrate",
    "scipy.stats": "scipy.stats",
}

#: the methods of scipy.stats distribution objects that are looked up (``norm.logpdf``)
STATS_METHODS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf", "pmf",
                 "logpmf")

#: Library functions the compiler differentiates by compiling their own Python source:
#: no table names them, so they are listed here (each has a differential spec).
FROM_SOURCE: dict[str, tuple[str, ...]] = {
    "numpy": ("angle", "append", "apply_along_axis", "array_split", "atleast_1d", "atleast_2d",
              "atleast_3d", "column_stack", "cumulative_prod", "cumulative_sum", "delete",
              "dsplit", "dstack", "extract", "fliplr", "flipud", "geomspace", "hsplit",
              "identity", "logspace", "matrix_transpose", "nancumprod", "nancumsum", "place",
              "polyadd", "polyder", "polysub", "put_along_axis", "real", "real_if_close",
              "resize", "rollaxis", "rot90", "select", "tri", "unwrap", "vsplit"),
    "numpy.linalg": ("cross", "diagonal", "matmul", "matrix_power", "matrix_transpose",
                     "outer", "tensordot", "tensorinv", "vecdot"),
    "scipy.special": (),
    "scipy.stats": ("dirichlet.logpdf", "dirichlet.pdf"),
    "scipy.linalg": ("coshm", "khatri_rao", "norm", "orth", "polar", "sinhm"),
    "scipy.integrate": ("cumulative_simpson", "cumulative_trapezoid", "simpson", "trapezoid"),
}

def _stats_notes() -> dict[str, str]:
    notes: dict[str, str] = {}
    for dist, shapes in (("t", "df"), ("gamma", "a"), ("chi2", "df"), ("beta", "a, b")):
        for m in ("cdf", "logcdf", "sf", "logsf", "ppf", "isf"):
            notes[f"scipy.stats.{dist}.{m}"] = f"not in {shapes} (no closed form)"
    for dist in ("poisson", "binom", "nbinom"):
        for m in ("pmf", "logpmf", "cdf", "logcdf", "sf", "logsf"):
            notes[f"scipy.stats.{dist}.{m}"] = "not in the point k or loc (integers)"
    for m in ("pmf", "logpmf", "cdf", "logcdf", "sf", "logsf"):
        notes[f"scipy.stats.binom.{m}"] += "; not in n"
    for m in ("cdf", "logcdf", "sf", "logsf"):
        notes[f"scipy.stats.nbinom.{m}"] += "; not in n"
    return notes


#: What an entry is not differentiable in (an active value there is a located error).
NOTES: dict[str, str] = {
    **_stats_notes(),
    "scipy.integrate.odeint": "first order only; not in func",
    "scipy.integrate.solve_ivp": "first order only; needs t_eval; not in fun",
    "scipy.integrate.quad": "first order only; not in func or infinite limits",
    "scipy.integrate.simpson": "with x=: refused on SciPy 1.18 (array-API dispatch); an "
                               "even number of samples with dx=: refused",
}

#: Entries the compiler handles at the call itself, outside the tables above: ufunc
#: methods that are reductions, memory-layout calls (``transforms/layout_queries``) and
#: ``np.signbit`` (a boolean ufunc: zero derivative).
HANDLED: dict[str, tuple[str, str]] = {
    "numpy.add.reduce": ("op", "sum"), "numpy.multiply.reduce": ("op", "prod"),
    "numpy.maximum.reduce": ("op", "max"), "numpy.minimum.reduce": ("op", "min"),
    "numpy.fmax.reduce": ("decomposition", "nanmax"),
    "numpy.fmin.reduce": ("decomposition", "nanmin"),
    "numpy.add.accumulate": ("op", "cumsum"), "numpy.multiply.accumulate": ("op", "cumprod"),
    "numpy.ascontiguousarray": ("op", "layout"), "numpy.asfortranarray": ("op", "layout"),
    "numpy.signbit": ("zero", "signbit"),
}

#: Library functions a table names that are still not differentiable: a constant argument
#: is computed while compiling, an active one is a located error (see each note).
REFUSED_WHEN_ACTIVE: dict[str, str] = {
    "scipy.linalg.null_space": "a basis of the null space has no derivative (it is not "
                               "unique); a constant matrix's is computed while compiling",
}


@dataclass(frozen=True)
class Entry:
    """One differentiable function: its public name, family and how it is handled."""

    name: str  # "numpy.sin", "scipy.special.gammaln", "ndarray.sum"
    family: str
    how: str  # "op", "decomposition", "source" or "zero"
    detail: str = ""  # the op's name, or the decomposition's module


def _public(module: Any) -> Iterator[tuple[str, Any]]:
    if module.__name__ == "scipy.stats":  # the methods of its distribution objects
        for name in sorted(n for n in dir(module) if not n.startswith("_")):
            obj = getattr(module, name)
            if type(obj).__name__.endswith("_gen"):
                for method in STATS_METHODS:
                    if hasattr(obj, method):
                        yield f"{name}.{method}", getattr(obj, method)
        return
    names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
    for name in sorted(set(names)):
        obj = getattr(module, name, None)
        if callable(obj) and not isinstance(obj, type):
            yield name, obj


def _classify(fn: Any) -> tuple[str, str] | None:
    from .decompositions import lookup  # noqa: PLC0415
    from .derivatives import NONDIFFERENTIABLE, RULES  # noqa: PLC0415
    from .transforms.calls import FUNCTIONS, special_op  # noqa: PLC0415
    from .transforms.fft_calls import kind_of as fft_kind  # noqa: PLC0415

    try:
        op = FUNCTIONS.get(id(fn)) or special_op(fn)
    except TypeError:
        return None
    if op is not None:
        if op in NONDIFFERENTIABLE:
            return "zero", op.value
        return ("op", op.value) if op in RULES else None
    kind = fft_kind(fn)
    if kind is not None:
        return "op", "fft_" + ("shift" if kind[0].endswith("shift") else "pair")
    selector = lookup(fn)
    if selector is not None:
        return "decomposition", selector.__module__.rsplit(".", 1)[-1]
    return None


def entries(import_missing: bool = False) -> list[Entry]:
    """Every catalogued function of the installed libraries, sorted by family and name.

    A library that is not imported yet is skipped unless ``import_missing`` (SciPy is
    optional; the documentation build imports it)."""
    from .transforms.calls import METHODS  # noqa: PLC0415

    out: dict[str, Entry] = {}
    for family, modname in MODULES.items():
        module = sys.modules.get(modname)
        if module is None and import_missing:
            try:
                module = importlib.import_module(modname)
            except ImportError:
                continue
        if module is None:
            continue
        for name, fn in _public(module):
            found = _classify(fn)
            full = f"{family}.{name}"
            if found is not None and full not in REFUSED_WHEN_ACTIVE:
                out.setdefault(full, Entry(full, family, *found))
        for name in FROM_SOURCE.get(family, ()):
            full = f"{family}.{name}"
            obj: Any = module
            for part in name.split("."):
                obj = getattr(obj, part, None)
            if obj is not None and full not in out:
                out[full] = Entry(full, family, "source")
    for family, names in FROM_SOURCE.items():
        if family not in MODULES:
            for name in names:
                out.setdefault(f"{family}.{name}", Entry(f"{family}.{name}", family, "source"))
    for name, (how, detail) in HANDLED.items():
        family = name.split(".")[0]
        if family in MODULES and sys.modules.get(MODULES[family]) is not None:
            out.setdefault(name, Entry(name, family, how, detail))
    for method, op in sorted(METHODS.items(), key=lambda kv: kv[0]):
        if hasattr(np.ndarray, method):
            found = _classify_op(op)
            if found is not None:
                out[f"ndarray.{method}"] = Entry(f"ndarray.{method}", "ndarray methods",
                                                 *found)
    return sorted(out.values(), key=lambda e: (e.family, e.name))


def _classify_op(op: Any) -> tuple[str, str] | None:
    from .derivatives import NONDIFFERENTIABLE, RULES  # noqa: PLC0415

    if op in NONDIFFERENTIABLE:
        return "zero", op.value
    return ("op", op.value) if op in RULES else None


#: the eager runtime's PyTorch-named namespaces whose functions run the same rules
TORCH_NAMESPACES = ("special", "linalg", "fft")
#: torch.distributions classes, whose log_prob (and cdf, entropy, rsample where PyTorch
#: has them) are differentiable in the value and every float parameter
_NOT_FUNCTIONS = {"SpectrumTensor", "fftfreq", "rfftfreq", "Distribution",
                  "ExponentialFamily", "constraints", "register_kl"}


def torch_names() -> list[str]:
    """The eager runtime's differentiable functions under PyTorch's names
    (``torch.special.gammaln``, ``torch.linalg.svd``, ``torch.fft.rfft``,
    ``torch.distributions.Normal``)."""
    import st_autodiff  # noqa: PLC0415

    out = []
    for space in (*TORCH_NAMESPACES, "distributions"):
        module = getattr(st_autodiff, space)
        names = getattr(module, "__all__", None) or [n for n in dir(module)
                                                      if not n.startswith("_")]
        out += [f"torch.{space}.{n}" for n in sorted(set(names)) if n not in _NOT_FUNCTIONS]
    return out


def counts(items: list[Entry]) -> dict[str, int]:
    """Entries per family (``zero`` ones included: they are differentiable, to zero)."""
    out: dict[str, int] = {}
    for e in items:
        out[e.family] = out.get(e.family, 0) + 1
    return out


def markdown(items: list[Entry]) -> str:
    """The catalogue as the Markdown page ``docs/rules.md``."""
    import scipy  # noqa: PLC0415

    total = counts(items)
    lines = [
        "# Supported functions",
        "",
        "Generated by `st-autodiff rules` from the compiler's tables "
        f"(NumPy {np.__version__}, SciPy {scipy.__version__}); do not edit by hand.",
        "Each function is differentiable in reverse and forward mode, to any order, in its",
        "floating-point arguments unless a note says otherwise.  *op*: one op of the rule",
        "table; *decomposition*: rewritten into ops; *source*: the library's own Python is",
        "compiled; *zero*: integer or piecewise-constant valued, so its derivative is zero.",
        "A function missing here gives \"has no derivative rule\" with the",
        "`st.register_vjp` hint (see custom_rules.md).",
        "",
        f"**{len(items)} functions and methods** in all.",
        "",
        "| family | count |",
        "|---|---|",
        *(f"| {fam} | {n} |" for fam, n in total.items()),
        "",
    ]
    torch = torch_names()
    lines += ["The eager runtime (`import st_autodiff as torch`) runs the same rules under "
              f"PyTorch's names: {len(torch)} functions and distributions in `torch.special`, "
              "`torch.linalg`, `torch.fft` and `torch.distributions` (listed at the end), "
              "beside the elementwise functions, reductions and `nn` of docs/eager_runtime.md.",
              ""]
    family = None
    for e in items:
        if e.family != family:
            family = e.family
            lines += ["", f"## {family}", "", "| function | how | detail | not differentiable in |",
                      "|---|---|---|---|"]
        lines.append(f"| `{e.name}` | {e.how} | {e.detail} | {NOTES.get(e.name, '')} |")
    lines += ["", "## PyTorch names in the eager runtime", ""]
    lines += [f"* `{name}`" for name in torch]
    return "\n".join(lines) + "\n"
