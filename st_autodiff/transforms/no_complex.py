"""Complex numbers are refused by the compiler, with a location (for ``lower``).

st_autodiff differentiates real functions only: its rules follow no single convention for
complex inputs, so rather than return a gradient that matches neither JAX nor PyTorch,
every complex value is an error at the construct that makes it (see docs/architecture.md,
"Complex numbers").  Three checks, all located in the user's code:

* ``refuse_complex_arguments``: an example argument that is a Python ``complex`` or a
  complex array (or holds one, in a tuple or list), at its parameter;
* ``refuse_complex_node``: a node whose example value is complex, at the expression that
  made it (``x.astype(complex)``, ``np.sqrt(z)``, ``np.linalg.eig(a)``, a complex global);
* ``refuse_complex_graph``: the whole lowered graph, region bodies included, as a last
  net for nodes made without going through ``refuse_complex_node``.

Complex literals (``1j``) are refused where they are read (``expressions.py``).  FFT
spectra never reach these checks: ``complex_pairs.py`` carries them as pairs of real
arrays and refuses, with the same message, the uses that would need a complex value.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import UnsupportedSyntaxError
from ..ir.graph import Graph, Loc, Node
from .parse import ParsedFunction

MESSAGE = "complex numbers are not supported yet"
HINT = ("st_autodiff differentiates real functions: keep the real and imaginary parts as "
        "two real arrays")


def is_complex_value(value: Any) -> bool:
    """A Python complex, a complex NumPy/CuPy array or scalar, or a tuple/list holding one."""
    if isinstance(value, complex):
        return True
    if isinstance(value, (tuple, list)):
        return any(is_complex_value(v) for v in value)
    kind = getattr(getattr(value, "dtype", None), "kind", None)
    return kind == "c"


#: functions with no derivative rule whose results are complex for real inputs: their
#: refusal says so, rather than only "no derivative rule" (``np.linalg.eig``/``eigvals``
#: are read by ``decompositions`` first: real spectra, a run-time error for complex ones)
_COMPLEX_FUNCTIONS = (complex, np.linalg.eig, np.linalg.eigvals, np.roots)
_COMPLEX_MODULES = ("numpy.fft", "numpy.lib.scimath", "numpy.emath", "cupy.fft")


def makes_complex(fn: Any) -> bool:
    """Whether ``fn`` (a function without a derivative rule) makes complex values."""
    if any(fn is f for f in _COMPLEX_FUNCTIONS):
        return True
    module = getattr(fn, "__module__", None) or ""
    return module.startswith(_COMPLEX_MODULES)


def refuse_complex_arguments(fn: ParsedFunction, example_args: list[Any] | None) -> None:
    """Refuse a complex example argument, at its parameter."""
    for (name, param, _), value in zip(fn.slots, example_args or ()):
        if is_complex_value(value):
            what = "a Python complex" if isinstance(value, complex) else (
                f"a {value.dtype} array" if hasattr(value, "dtype") else "complex values")
            raise UnsupportedSyntaxError(
                f"{MESSAGE}: the argument {name!r} is {what}", fn.loc(param), HINT)


def refuse_complex_node(node: Node, what: str, loc: Loc | None) -> None:
    """Refuse ``node`` (made by ``what``, an op name) when its value is complex."""
    t = node.type
    if t is not None and t.dtype is not None and t.dtype.startswith("complex"):
        raise UnsupportedSyntaxError(f"{MESSAGE}: {what} makes a {t.dtype} value",
                                     loc or node.loc, HINT)


def refuse_complex_graph(graph: Graph) -> None:
    """Refuse the first complex value of ``graph`` or of a region body inside it."""
    for node in graph.nodes:
        refuse_complex_node(node, node.op.value, node.loc)
        for _, value in node.params:
            if isinstance(value, Graph):
                refuse_complex_graph(value)
