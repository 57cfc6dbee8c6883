"""Differential specs of the SciPy functions the compiler rewrites around compiled kernels
(``decompositions/select_scipy.py``, ``scipy_kernels.py``): ``scipy.signal`` convolutions
and filters, and ``scipy.spatial.distance`` (``cdist``/``pdist`` with every supported
metric, the vector distances, ``squareform``).

Each spec calls the public function as user code does.  Domains keep to points where
the function is differentiable: random real signals have no ties for ``chebyshev`` and
no zero coordinates for ``cityblock``/``braycurtis``; filters are built from the sampled
values so that their poles lie inside the unit circle (``a = a1 * [1, -0.4, 0.3]`` with
``a1`` in ``high`` = (0.5, 1): ``|a[1] / a[0]| <= 0.8``, ``0.15 <= a[2] / a[0] <= 0.6``,
inside the stability triangle).  JAX has ``convolve``/``correlate``/``fftconvolve``
(``oaconvolve`` is checked against its ``fftconvolve``: the same function, computed by
overlap-add); it has no filters and no ``scipy.spatial``.  The eager runtime has
``torch.cdist``/``torch.pdist`` (p-norm metrics), run on the same inputs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from st_autodiff.ir.ops import Op

from .specs import Spec

# --- scipy.signal convolutions ------------------------------------------------------------

_CONV_SHAPES = (((9,), (3,)), ((3,), (7,)), ((5, 4), (2, 3)), ((1,), (1,)))


def _jax_signal(name: str, **kw: Any) -> Callable[..., Any]:
    def call(jnp: Any, *a: Any) -> Any:
        return getattr(__import__("jax.scipy.signal").scipy.signal, name)(*a, **kw)

    return call


def _conv(name: str, mode: str) -> Spec:
    jax_name = "fftconvolve" if name == "oaconvolve" else name
    return Spec(f"signal.{name}-{mode}", f"scipy.signal.{name}(a0, a1, mode={mode!r})",
                (Op.CALL,), _CONV_SHAPES, ("real", "real"), None,
                jax=_jax_signal(jax_name, mode=mode))


_CONVOLUTIONS = (
    *(_conv(name, mode) for name in ("convolve", "correlate", "fftconvolve", "oaconvolve")
      for mode in ("full", "same", "valid")),
    *(Spec(f"signal.{name}-method-{method}",
           f"scipy.signal.{name}(a0, a1, mode='same', method={method!r})", (Op.CALL,),
           _CONV_SHAPES[:3], ("real", "real"), None, jax=_jax_signal(name, mode="same"))
      for name in ("convolve", "correlate") for method in ("direct", "fft")),
    Spec("signal.fftconvolve-axes", "scipy.signal.fftconvolve(a0, a1, axes=(0, 1))",
         (Op.CALL,), (((5, 4), (2, 3)),), ("real", "real"), None,
         jax=_jax_signal("fftconvolve")),
)

# --- scipy.signal filters -----------------------------------------------------------------

_STABLE = "a = a1 * np.array([1.0, -0.4, 0.3])\n"  # poles inside the unit circle
_SOS = "[[0.2, 0.4, 0.2, 1.0, -0.3, 0.1], [1.0, -0.5, 0.0, 1.0, 0.2, 0.0]]"
_RUNTIME_SOS = ("sos = np.concatenate((a1[:, :3], np.ones((2, 1)), 0.2 * a1[:, 3:]), "
                "axis=1)\n")

_FILTERS = (
    Spec("signal.lfilter", _STABLE + "return scipy.signal.lfilter(a0, a, a2)", (Op.CALL,),
         (((3,), (3,), (8,)), ((2,), (3,), (2, 6)), ((4,), (3,), (5,)), ((1,), (3,), (1,))),
         ("real", "high", "real"), None, jax=None),
    Spec("signal.lfilter-axis0", _STABLE + "return scipy.signal.lfilter(a0, a, a2, axis=0)",
         (Op.CALL,), (((3,), (3,), (6, 2)),), ("real", "high", "real"), None, jax=None),
    Spec("signal.lfilter-zi",
         _STABLE + "y, zf = scipy.signal.lfilter(a0, a, a2, zi=a3)\n"
         "return np.concatenate((y, zf), axis=-1)", (Op.CALL,),
         (((3,), (3,), (8,), (2,)), ((2,), (3,), (2, 6), (2, 2)), ((3,), (3,), (1,), (2,))),
         ("real", "high", "real", "real"), None, jax=None),
    Spec("signal.lfilter-zi-axis0",
         _STABLE + "y, zf = scipy.signal.lfilter(a0, a, a2, axis=0, zi=a3)\n"
         "return np.concatenate((y, zf), axis=0)", (Op.CALL,),
         (((3,), (3,), (6, 2), (2, 2)),), ("real", "high", "real", "real"), None, jax=None),
    Spec("signal.lfilter-zi-long-b",  # b longer than a: a is padded with zeros
         "a = a1 * np.array([1.0, -0.4])\n"
         "y, zf = scipy.signal.lfilter(a0, a, a2, zi=a3)\n"
         "return np.concatenate((y, zf), axis=-1)", (Op.CALL,),
         (((4,), (2,), (7,), (3,)),), ("real", "high", "real", "real"), None, jax=None),
    Spec("signal.lfilter-constant",  # a one-pole smoother, as user code writes it
         "scipy.signal.lfilter([0.5], [1.0, -0.5], a0)", (Op.CALL,),
         (((8,),), ((2, 5),)), ("real",), None, jax=None),
    Spec("signal.lfilter-constant-zi",
         "y, zf = scipy.signal.lfilter([0.2, 0.3], [1.0, -0.5, 0.2], a0, zi=a1)\n"
         "return np.concatenate((y, zf))", (Op.CALL,), (((8,), (2,)),), ("real", "real"),
         None, jax=None),
    Spec("signal.filtfilt", _STABLE + "return scipy.signal.filtfilt(a0, a, a2)", (Op.CALL,),
         (((3,), (3,), (12,)), ((2,), (3,), (2, 11))), ("real", "high", "real"), None,
         jax=None),
    Spec("signal.filtfilt-constant",
         "scipy.signal.filtfilt([0.2, 0.3, 0.1], [1.0, -0.5, 0.2], a0, axis=0)",
         (Op.CALL,), (((12,),), ((10, 2),)), ("real",), None, jax=None),
    *(Spec(f"signal.filtfilt-pad{pad}",
           _STABLE + f"return scipy.signal.filtfilt(a0, a, a2, padtype={pad!r}{extra})",
           (Op.CALL,), (((3,), (3,), (12,)),), ("real", "high", "real"), None, jax=None)
      for pad, extra in (("even", ""), ("constant", ", padlen=4"), (None, ""))),
    Spec("signal.sosfilt", _RUNTIME_SOS + "return scipy.signal.sosfilt(sos, a0)", (Op.CALL,),
         (((8,), (2, 5)), ((2, 6), (2, 5))), ("real", "real"), None, jax=None),
    Spec("signal.sosfilt-zi",
         f"y, zf = scipy.signal.sosfilt({_SOS}, a0, zi=a1)\n"
         "return np.concatenate((y, np.ravel(zf)))", (Op.CALL,), (((8,), (2, 2)),),
         ("real", "real"), None, jax=None),
    Spec("signal.sosfiltfilt", f"scipy.signal.sosfiltfilt({_SOS}, a0)", (Op.CALL,),
         (((16,),), ((2, 14),)), ("real",), None, jax=None),
    Spec("signal.sosfiltfilt-even-axis0",
         f"scipy.signal.sosfiltfilt({_SOS}, a0, axis=0, padtype='even', padlen=3)",
         (Op.CALL,), (((8, 2),),), ("real",), None, jax=None),
)

# --- scipy.spatial.distance ---------------------------------------------------------------

#: metric -> (extra call text, p of torch.cdist, ops the graph shows)
_METRICS: dict[str, tuple[str, float | None, tuple[Op, ...]]] = {
    "euclidean": ("", 2.0, (Op.SQRT,)),
    "sqeuclidean": ("", None, (Op.SUM,)),
    "cityblock": ("", 1.0, (Op.ABS,)),
    "minkowski": (", p=3", 3.0, (Op.POW,)),
    "chebyshev": ("", float("inf"), (Op.MAX,)),
    "cosine": ("", None, (Op.SQRT, Op.DIV)),
    "correlation": ("", None, (Op.MEAN,)),
    "braycurtis": ("", None, (Op.ABS, Op.DIV)),
}


def _eager_cdist(p: float | None) -> Callable[..., Any] | None:
    if p is None:
        return None

    def run(x: Any, y: Any) -> Any:
        import st_autodiff as st  # noqa: PLC0415

        return st.cdist(x, y, p=p)

    return run


def _eager_pdist(p: float | None) -> Callable[..., Any] | None:
    if p is None:
        return None

    def run(x: Any) -> Any:
        import st_autodiff as st  # noqa: PLC0415

        return st.pdist(x, p=p)

    return run


_DISTANCES = (
    *(Spec(f"distance.cdist-{m}", f"scipy.spatial.distance.cdist(a0, a1, {m!r}{kw})", ops,
           (((5, 3), (4, 3)), ((1, 2), (3, 2))), ("real", "real"), _eager_cdist(p), jax=None)
      for m, (kw, p, ops) in _METRICS.items()),
    Spec("distance.cdist-alias-sqe", "scipy.spatial.distance.cdist(a0, a1, metric='sqe')",
         (Op.SUM,), (((3, 2), (2, 2)),), ("real", "real"), None, jax=None),
    Spec("distance.cdist-minkowski-inf", "scipy.spatial.distance.cdist(a0, a1, 'minkowski', "
         "p=np.inf)", (Op.MAX,), (((3, 2), (2, 2)),), ("real", "real"),
         _eager_cdist(float("inf")), jax=None),
    Spec("distance.cdist-minkowski-1.5", "scipy.spatial.distance.cdist(a0, a1, 'minkowski', "
         "p=1.5)", (Op.POW,), (((3, 2), (2, 2)),), ("real", "real"), _eager_cdist(1.5),
         jax=None),
    *(Spec(f"distance.pdist-{m}", f"scipy.spatial.distance.pdist(a0, {m!r}{kw})", ops,
           (((5, 3),), ((2, 4),)), ("real",), _eager_pdist(p), jax=None)
      for m, (kw, p, ops) in _METRICS.items()),
    # SciPy's euclidean of float32 vectors is a Python float (scipy.linalg.norm's BLAS
    # path), the compiled one a float32 0-d array of the same value: float64 only there
    *(Spec(f"distance.{m}", f"scipy.spatial.distance.{m}(a0, a1{kw})", ops,
           (((4,), (4,)), ((1,), (1,))), ("real", "real"), None, jax=None,
           dtypes=("float64",) if m == "euclidean" else ("float64", "float32"))
      for m, (kw, _p, ops) in _METRICS.items() if m != "correlation"),
    Spec("distance.correlation", "scipy.spatial.distance.correlation(a0, a1)", (Op.MEAN,),
         (((4,), (4,)),), ("real", "real"), None, jax=None),  # one coordinate: 0 / 0
    Spec("distance.minkowski-positional", "scipy.spatial.distance.minkowski(a0, a1, 1.5)",
         (Op.POW,), (((4,), (4,)),), ("real", "real"), None, jax=None),
    Spec("distance.seuclidean", "scipy.spatial.distance.seuclidean(a0, a1, a2)",
         (Op.SQRT, Op.DIV), (((4,), (4,), (4,)),), ("real", "real", "positive"), None,
         jax=None),
    Spec("distance.squareform-vector", "scipy.spatial.distance.squareform(a0)",
         (Op.GETITEM,), (((6,),), ((1,),), ((3,),)), ("real",), None, jax=None),
    Spec("distance.squareform-matrix",
         "m = (a0 + a0.T) * (1.0 - np.eye(4))\n"
         "return scipy.spatial.distance.squareform(m, checks=False)", (Op.GETITEM,),
         (((4, 4),),), ("real",), None, jax=None),
    Spec("distance.squareform-tovector",
         "scipy.spatial.distance.squareform(a0, force='tovector', checks=False)",
         (Op.GETITEM,), (((3, 3),),), ("real",), None, jax=None),
    Spec("distance.squareform-pdist",
         "scipy.spatial.distance.squareform(scipy.spatial.distance.pdist(a0))",
         (Op.GETITEM, Op.SQRT), (((4, 3),),), ("real",), None, jax=None),
)

SPECS_SCIPY_KERNELS: tuple[Spec, ...] = _CONVOLUTIONS + _FILTERS + _DISTANCES
