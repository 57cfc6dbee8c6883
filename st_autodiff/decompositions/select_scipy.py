"""Selectors of the SciPy and scikit-learn functions whose compiled kernels have no
derivative of their own (see ``decompositions/__init__``): ``scipy.spatial.distance``
``cdist``, ``pdist``, ``squareform`` and the vector distances; ``scipy.signal``
``convolve``/``correlate``/``fftconvolve``/``oaconvolve``/``lfilter``/``filtfilt``/
``sosfilt``/``sosfiltfilt``; ``scipy.linalg.sqrtm``/``solve_sylvester``; sklearn's
``additive_chi2_kernel``/``chi2_kernel``.

The rule sits on the public function, never on the C kernel it reaches: the compiler reads
``scipy_impl`` in its place, which is either NumPy with rules (distances, chi2: every mode
and order) or glue around one compiled kernel with its own rules (``scipy_kernels``:
convolutions, filters, ``sqrtm``), so the generated code shows one readable call.  Metric
names, modes, axes and padding are static.  What this does not cover (weights ``w=``,
``out=``, complex inputs, ``axes=`` over some axes, ``zi=`` with runtime ``sos``) is a located
error.  ``squareform``'s symmetry check on the values is not repeated in compiled code.
SciPy is never imported here: a program that calls these functions has imported them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from . import scipy_impl as impl
from . import select_linalg_more, select_ppoly, select_scipy_linalg, select_special
from .common import (
    NO,
    Node,
    Selection,
    Unsupported,
    constant,
    dtype_of,
    norm_axis_index,
    shape_of,
    static,
)
from .select_integrate import names as integrate_names  # (ode family)

_METRICS = ("euclidean", "sqeuclidean", "cityblock", "minkowski", "chebyshev", "cosine",
            "correlation", "braycurtis")


def _metric(fn: Any, metric: Any, kwargs: dict[str, Any]) -> tuple[str, float]:
    metric = static(metric, "metric")
    if not isinstance(metric, str):
        raise Unsupported("only a metric given by name is supported")
    aliases = getattr(sys.modules.get("scipy.spatial.distance"), "_METRIC_ALIAS", {})
    info = aliases.get(metric.lower())
    name = info.canonical_name if info is not None else metric.lower()
    if name not in _METRICS:
        raise Unsupported(f"metric {metric!r} has no derivative rule (supported: "
                          f"{', '.join(_METRICS)})")
    if kwargs.get("w") is not None:
        raise Unsupported("weights w= are not supported")
    extra = set(kwargs) - {"p", "w"}
    if extra:
        raise Unsupported(f"unsupported keyword arguments {sorted(extra)}")
    p = float(static(kwargs.get("p", 2.0), "p"))
    if name == "minkowski":
        if p == np.inf:
            name = "chebyshev"
        elif p < 1:
            raise Unsupported("minkowski with p < 1 is not differentiable at equal coordinates")
    return name, p


def _vectors(u: Any, v: Any) -> None:
    su, sv = shape_of(u, "u"), shape_of(v, "v")
    if len(su) != 1 or su != sv:
        raise Unsupported("u and v must be 1-d arrays of the same length")
    if dtype_of(u).kind == "c" or dtype_of(v).kind == "c":
        raise Unsupported("complex vectors are not supported")


def _vector_metric(name: str) -> Callable[..., Selection]:
    """``scipy.spatial.distance.<name>(u, v, ...)`` of two vectors, without weights."""

    def select(u: Any, v: Any, *args: Any, w: Any = None, **kwargs: Any) -> Selection:
        if name == "minkowski" and args:
            kwargs["p"], args = args[0], args[1:]
        if args or w is not None:
            raise Unsupported("weights w= are not supported")
        if kwargs.pop("centered", True) is not True:
            raise Unsupported("centered=False is not supported")
        metric, p = _metric(select, name, kwargs)
        _vectors(u, v)
        if metric == "braycurtis":  # SciPy converts v (only) to float64 first
            return impl.braycurtis, (u, *_float64(v))
        return impl.pair_metric, (u, v, metric, p)

    return select


def _float64(x: Any) -> tuple[Any, bool]:
    """``x`` and whether the compiled code converts it to float64 (a constant is
    converted here): SciPy's ``_validate_vector(x, dtype=np.float64)``."""
    if not isinstance(x, Node):
        return np.asarray(x, dtype=np.float64), False
    return x, dtype_of(x) != np.float64


def _seuclidean(u: Any, v: Any, V: Any) -> Selection:  # noqa: N803 (SciPy's name)
    _vectors(u, v)
    if shape_of(V, "V") != shape_of(u, "u"):
        raise Unsupported("V must be a 1-d array of the vectors' length")
    var, cast = _float64(V)  # SciPy converts V to float64, then weighs u - v by it
    cast = cast or dtype_of(u) != np.float64 or dtype_of(v) != np.float64
    return impl.seuclidean, (u, v, var, cast)


def _double_matrix(x: Any, what: str) -> tuple[Any, tuple[int, ...], bool]:
    """``x`` as SciPy's distance kernels take it: a 2-d float64 array (a constant is
    converted here, a runtime value of another dtype by ``astype`` in the compiled code)."""
    if not isinstance(x, Node):
        x = np.asarray(x, dtype=np.float64)
    shape = shape_of(x, what)
    if len(shape) != 2:
        raise Unsupported(f"{what} must be a 2-dimensional array")
    kind = dtype_of(x).kind
    if kind == "c":
        raise Unsupported(f"{what} is complex; distances of complex arrays are not supported")
    return x, shape, dtype_of(x) != np.float64


def _cdist(xa: Any, xb: Any, metric: Any = "euclidean", *, out: Any = None, **kwargs: Any
           ) -> Selection:
    if out is not None:
        raise Unsupported("out= is not supported")
    name, p = _metric(_cdist, metric, kwargs)
    (xa, sa, ca), (xb, sb, cb) = _double_matrix(xa, "XA"), _double_matrix(xb, "XB")
    if sa[1] != sb[1]:
        raise Unsupported("XA and XB must have the same number of columns")
    return impl.cdist, (xa, xb, name, p, ca, cb)


def _pdist(x: Any, metric: Any = "euclidean", *, out: Any = None, **kwargs: Any
           ) -> Selection:
    if out is not None:
        raise Unsupported("out= is not supported")
    name, p = _metric(_pdist, metric, kwargs)
    x, (n, _k), cast = _double_matrix(x, "X")
    first, second = np.triu_indices(n, 1)
    return impl.pdist, (x, first, second, name, p, cast)


def _squareform(x: Any, force: str = "no", checks: bool = True) -> Selection:
    shape = shape_of(x, "X")
    force = static(force, "force").lower()
    if len(shape) == 1 and force != "tovector":
        size = shape[0]
        n = int(np.ceil(np.sqrt(size * 2)))
        if n * (n - 1) != size * 2:
            raise Unsupported("Incompatible vector size. It must be a binomial coefficient n "
                              "choose 2 for some integer n >= 2.")
        n = max(n, 1)
        index = np.zeros((n, n), dtype=np.intp)
        first, second = np.triu_indices(n, 1)
        index[first, second] = index[second, first] = np.arange(1, size + 1)
        return impl.to_square, (x, index)
    if len(shape) == 2 and force != "tomatrix":
        if shape[0] != shape[1]:
            raise Unsupported("The matrix argument must be square.")
        first, second = np.triu_indices(shape[0], 1)
        return impl.to_condensed, (x, first, second)
    raise Unsupported("the argument must be a 1-d condensed vector or a 2-d square matrix "
                      "(as force= says)")


def _pair_xy(x: Any, y: Any) -> tuple[Any, Any]:
    y = x if y is None else y
    sx, sy = shape_of(x, "X"), shape_of(y, "Y")
    if len(sx) != 2 or len(sy) != 2 or sx[1] != sy[1]:
        raise Unsupported("X and Y must be 2-d arrays with the same number of columns")
    if dtype_of(x).kind != "f" or dtype_of(y).kind != "f":
        raise Unsupported("X and Y must be floating-point arrays")
    return x, y


def _additive_chi2_kernel(X: Any, Y: Any = None) -> Selection:  # noqa: N803 (sklearn's names)
    return impl.additive_chi2, _pair_xy(X, Y)


def _chi2_kernel(X: Any, Y: Any = None, gamma: Any = 1.0) -> Selection:  # noqa: N803
    return impl.chi2, (*_pair_xy(X, Y), gamma)


# --- convolutions -----------------------------------------------------------------------


def _real(x: Any, what: str) -> tuple[int, ...]:
    if dtype_of(x).kind == "c":
        raise Unsupported(f"{what} is complex; only real convolutions have derivative rules")
    return shape_of(x, what)


def _window(s1: tuple[Any, ...], s2: tuple[Any, ...], mode: str) -> tuple[Any, ...]:
    full = tuple(a + b - 1 for a, b in zip(s1, s2))
    if mode == "full":
        return tuple(slice(0, f) for f in full)
    if mode == "same":
        return tuple(slice((f - a) // 2, (f - a) // 2 + a) for f, a in zip(full, s1))
    if mode == "valid":
        if not (all(a >= b for a, b in zip(s1, s2)) or all(b >= a for a, b in zip(s1, s2))):
            raise Unsupported("For 'valid' mode, one must be at least as large as the other "
                              "in every dimension")
        return tuple(slice(min(a, b) - 1, max(a, b)) for a, b in zip(s1, s2))
    raise Unsupported(f"mode must be 'full', 'valid' or 'same', not {mode!r}")


def _conv(in1: Any, in2: Any, mode: Any, kind: str) -> Selection:
    s1, s2 = _real(in1, "in1"), _real(in2, "in2")
    if len(s1) != len(s2):
        raise Unsupported("in1 and in2 should have the same dimensionality")
    if 0 in s1 or 0 in s2:
        raise Unsupported("empty inputs are not supported")
    window = _window(s1, s2, static(mode, "mode"))
    if kind == "correlate":
        return impl.correlate, (in1, in2, window)
    return impl.convolve, (in1, in2, window, kind == "fft")


def _convolve(in1: Any, in2: Any, mode: str = "full", method: str = "auto") -> Selection:
    return _conv(in1, in2, mode, "direct")


def _correlate(in1: Any, in2: Any, mode: str = "full", method: str = "auto") -> Selection:
    return _conv(in1, in2, mode, "correlate")


def _fftconvolve(in1: Any, in2: Any, mode: str = "full", axes: Any = None) -> Selection:
    nd = len(shape_of(in1))
    if axes is not None and sorted((np.atleast_1d(static(axes, "axes")) % max(nd, 1)).tolist()
                                   ) != list(range(nd)):
        raise Unsupported("axes= over some of the axes is not supported")
    return _conv(in1, in2, mode, "fft")


# --- filters and matrix functions -------------------------------------------------------


def _coefficients(v: Any, what: str) -> tuple[Any, int]:
    """Filter coefficients as SciPy reads them (``np.atleast_1d``): a constant list or
    number becomes a float64 array here; a runtime value must be a 1-d array."""
    v = constant(v)
    if not isinstance(v, Node):
        v = np.atleast_1d(np.asarray(v))
        if v.dtype.kind in "biu":
            v = v.astype(np.float64)
    return v, _vector(v, what)


def _vector(v: Any, what: str) -> int:
    shape = shape_of(v, what)
    if len(shape) != 1 or shape[0] == 0:
        raise Unsupported(f"{what} must be a non-empty 1-d array")
    if dtype_of(v).kind == "c":
        raise Unsupported(f"{what} is complex; only real filters have derivative rules")
    return shape[0]


def _lfilter(b: Any, a: Any, x: Any, axis: int = -1, zi: Any = None) -> Selection:
    (b, nb), (a, na) = _coefficients(b, "b"), _coefficients(a, "a")
    shape = _real(x, "x")
    axis = norm_axis_index(axis, len(shape))
    if zi is None:
        return impl.lfilter, (b, a, x, axis)
    k = max(nb, na) - 1
    want = shape[:axis] + (k,) + shape[axis + 1:]
    if k == 0 or shape_of(zi, "zi") != want:
        raise Unsupported(f"zi must have shape {want} (x's shape with {k} along axis)")
    n = shape[axis]
    pad = k + 1
    index = np.array([[n + i - j + pad if j > i else 0 for j in range(k + 1)]
                      for i in range(k)], dtype=np.intp)
    return impl.lfilter_zi, (b, a, x, zi, axis, index, pad, k + 1 - nb, k + 1 - na)


def _filtfilt(b: Any, a: Any, x: Any, axis: int = -1, padtype: Any = "odd", padlen: Any = None,
              method: str = "pad", irlen: Any = None) -> Selection:
    if static(method, "method") != "pad" or irlen is not None:
        raise Unsupported("only method='pad' is supported")
    (b, nb), (a, na) = _coefficients(b, "b"), _coefficients(a, "a")
    n = max(nb, na)
    if n == 1:
        raise Unsupported("a filter of order 0 (len(a) == len(b) == 1) is not supported")
    shape = _real(x, "x")
    axis = norm_axis_index(axis, len(shape))
    padtype = static(padtype, "padtype")
    if padtype not in ("odd", "even", "constant", None):
        raise Unsupported(f"Unknown value '{padtype}' given to padtype.")
    edge = 0 if padtype is None else (3 * n if padlen is None else int(static(padlen,
                                                                             "padlen")))
    if shape[axis] <= edge:
        raise Unsupported(f"The length of the input vector x must be greater than padlen, "
                          f"which is {edge}.")
    if isinstance(b, Node) or isinstance(a, Node):
        first = np.zeros((1, n - 1))
        first[0, 0] = 1.0
        return impl.filtfilt_runtime, (b, a, x, np.eye(n - 1, k=1), first, axis, edge,
                                       padtype or "none", n - nb, n - na)
    zi = sys.modules["scipy.signal"].lfilter_zi(b, a)
    return impl.filtfilt, (b, a, x, zi, axis, edge, padtype or "none")


def _sosfiltfilt(sos: Any, x: Any, axis: int = -1, padtype: Any = "odd", padlen: Any = None
                 ) -> Selection:
    sos = constant(sos)
    if isinstance(sos, Node):
        raise Unsupported("sos must be a constant (its zeros decide the padding length)")
    sos = np.asarray(sos, dtype=np.float64)
    if sos.ndim != 2 or sos.shape[1] != 6:
        raise Unsupported("sos array must be shape (n_sections, 6)")
    shape = _real(x, "x")
    axis = norm_axis_index(axis, len(shape))
    padtype = static(padtype, "padtype")
    if padtype not in ("odd", "even", "constant", None):
        raise Unsupported(f"Unknown value '{padtype}' given to padtype.")
    ntaps = 2 * sos.shape[0] + 1 - min(int((sos[:, 2] == 0).sum()), int((sos[:, 5] == 0).sum()))
    edge = 0 if padtype is None else (3 * ntaps if padlen is None else int(static(padlen,
                                                                                 "padlen")))
    if shape[axis] <= edge:
        raise Unsupported(f"The length of the input vector x must be greater than padlen, "
                          f"which is {edge}.")
    zi = sys.modules["scipy.signal"].sosfilt_zi(sos)
    sections = tuple((row[:3], row[3:], z) for row, z in zip(sos, zi))
    return impl.sosfiltfilt, (sections, x, axis, edge, padtype or "none")


def _sosfilt(sos: Any, x: Any, axis: int = -1, zi: Any = None) -> Selection:
    s = shape_of(sos, "sos")
    if len(s) != 2 or s[1] != 6:
        raise Unsupported("sos array must be shape (n_sections, 6)")
    shape = _real(x, "x")
    axis = norm_axis_index(axis, len(shape))
    if zi is None:
        return impl.sosfilt, (sos, x, axis)
    sos = constant(sos)
    if isinstance(sos, Node):
        raise Unsupported("with zi=, sos must be a constant")
    sos = np.asarray(sos, dtype=np.float64)
    if np.any(sos[:, 3] != 1):
        raise Unsupported("sos[:, 3] should be all ones")
    want = (s[0], *shape[:axis], 2, *shape[axis + 1:])
    if shape_of(zi, "zi") != want:
        raise Unsupported(f"Invalid zi shape. With axis={axis}, an input with shape "
                          f"{shape}, and an sos array with {s[0]} sections, zi must have "
                          f"shape {want}, got {shape_of(zi, 'zi')}.")
    n = shape[axis]
    index = np.array([[n + i - j + 3 if j > i else 0 for j in range(3)] for i in range(2)],
                     dtype=np.intp)
    sections = tuple((row[:3], row[3:], k) for k, row in enumerate(sos))
    return impl.sosfilt_zi, (sections, x, zi, axis, index, 3)


def _square_real(a: Any, what: str) -> None:
    shape = shape_of(a, what)
    if len(shape) != 2 or shape[0] != shape[1]:
        raise Unsupported(f"{what} must be a square 2-d matrix")
    if dtype_of(a).kind == "c":
        raise Unsupported(f"{what} is complex; only real matrices have derivative rules")


def _sqrtm(A: Any, disp: Any = NO, blocksize: Any = NO) -> Selection:  # noqa: N803
    if disp is not NO and disp is not True:
        raise Unsupported("disp=False is not supported")
    _square_real(A, "A")
    return impl.sqrtm, (A,)


def _solve_sylvester(a: Any, b: Any, q: Any) -> Selection:
    _square_real(a, "a")
    _square_real(b, "b")
    return impl.solve_sylvester, (a, b, q)


_SOURCES: dict[str, dict[str, Callable[..., Selection]]] = {
    "scipy.spatial.distance": {"cdist": _cdist, "pdist": _pdist, "squareform": _squareform,
                               "seuclidean": _seuclidean,
                               **{m: _vector_metric(m) for m in _METRICS}},
    "scipy.signal": {"convolve": _convolve, "correlate": _correlate,
                     "fftconvolve": _fftconvolve, "oaconvolve": _fftconvolve,
                     "lfilter": _lfilter, "sosfilt": _sosfilt, "filtfilt": _filtfilt,
                     "sosfiltfilt": _sosfiltfilt},
    "scipy.linalg": {"sqrtm": _sqrtm, "solve_sylvester": _solve_sylvester,
                     **select_scipy_linalg.names(),
                     **select_linalg_more.scipy_names()},  # linalg family
    "scipy.interpolate._ppoly": select_ppoly.names(),
    "scipy.integrate": integrate_names(),  # (ode family)
    "scipy.special": select_special.names(),  # special family (issue 11)
    "sklearn.metrics.pairwise": {"additive_chi2_kernel": _additive_chi2_kernel,
                                 "chi2_kernel": _chi2_kernel},
}

_TABLE: dict[int, Callable[..., Selection]] = {}
_SEEN: set[str] = set()


def lookup(fn: Any) -> Callable[..., Selection] | None:
    """The selector of ``fn``, or None (modules are read once they are imported)."""
    for module, names in _SOURCES.items():
        if module in _SEEN:
            continue
        mod = sys.modules.get(module)
        if mod is None:
            continue
        _SEEN.add(module)
        for name, select in names.items():
            target = getattr(mod, name, None)
            while target is not None:  # sklearn's validate_params wrapper and the function
                _TABLE[id(target)] = select
                target = getattr(target, "__wrapped__", None)
    return _TABLE.get(id(fn))
