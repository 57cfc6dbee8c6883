"""The spec table of the differential rule tests: one ``Spec`` per NumPy function (and
per use of an op worth its own inputs), from which ``test_differential`` generates cases.

A spec is a NumPy expression over the arguments ``a0, a1, ...`` (or a function body
ending in ``return``), the shapes to call it with, and each argument's input domain
(positive for ``log``, inside (-1, 1) for ``arcsin``...), in the style of JAX's
``lax_autodiff_test``.  The same text is compiled by st_autodiff, run by NumPy for
central differences, and evaluated with ``np`` bound to ``jax.numpy`` for JAX.  ``eager``
names the op (and its params) the eager runtime runs on Tensors for the same case.

Shapes: ``None`` is a Python float; ``()`` a 0-d array.  Domains: see ``harness.DOMAINS``.
Dtypes: ``float64`` and ``float32``; complex dtypes are checked by their own tests, and
join here by adding ``"complex128"`` to a spec's ``dtypes`` (the harness draws complex
samples for any dtype whose kind is ``"c"``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from st_autodiff.ir.ops import Op
from st_autodiff.transforms.dispatch import _FLOAT_OF_ND

Shapes = tuple[Any, ...]


@dataclass(frozen=True)
class Spec:
    """One function under test (see the module docstring)."""

    name: str
    expr: str
    ops: tuple[Op, ...]
    shapes: tuple[Shapes, ...]
    domain: tuple[str, ...]
    eager: tuple[Op, dict[str, Any]] | Callable[..., Any] | None = None  # or a function
    order2: bool = True
    dtypes: tuple[str, ...] = ("float64", "float32")
    jax: Callable[..., Any] | str | None = ""  # "" = expr with np -> jax.numpy; None = skip
    wrt: tuple[int, ...] | None = None  # arguments differentiated (default: all floats)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def nargs(self) -> int:
        return len(self.domain)


UNARY_SHAPES: tuple[Shapes, ...] = ((None,), ((),), ((3,),), ((2, 3),), ((1,),), ((0,),))
BINARY_SHAPES: tuple[Shapes, ...] = (
    (None, None), ((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3)), (None, (2, 3)),
    ((), ()), ((2, 3), ()), ((0,), (0,)))
REDUCE_SHAPES: tuple[Shapes, ...] = (((2, 3),), ((4,),), ((2, 1),), ((1, 3),))
VECTOR_SHAPES: tuple[Shapes, ...] = (((4,),), ((2, 3),), ((1,),))


def _unary(name: str, domain: str = "real", op: Op | None = None, path: str | None = None,
           shapes: tuple[Shapes, ...] = UNARY_SHAPES, **kw: Any) -> Spec:
    op = op or Op(name)
    path = path or f"np.{name}"
    return Spec(name, f"{path}(a0)", (op,), shapes, (domain,), (op, {}), **kw)


def _binary(name: str, domains: tuple[str, str] = ("real", "real"), op: Op | None = None,
            **kw: Any) -> Spec:
    op = op or Op(name)
    return Spec(name, f"np.{name}(a0, a1)", (op,), kw.pop("shapes", BINARY_SHAPES), domains,
                (op, {}), **kw)


def _reduce(name: str, op: Op, params: dict[str, Any], domain: str = "real",
            shapes: tuple[Shapes, ...] = REDUCE_SHAPES, path: str | None = None,
            **kw: Any) -> Spec:
    args = "".join(f", {k}={'np.inf' if v == float('inf') else repr(v)}"
                   for k, v in params.items())
    label = name + "".join(f"-{k}{v}" for k, v in params.items()).replace(" ", "")
    return Spec(label, f"{path or 'np.' + name}(a0{args})", (op,), shapes, (domain,),
                (op, params), **kw)


_RT_JAX = {  # rt.* (st_autodiff.ir.kernels) spelled in JAX
    "sigmoid": lambda jnp, a0: __import__("jax").nn.sigmoid(a0),
    "relu": lambda jnp, a0: __import__("jax").nn.relu(a0),
}


def _jax_lse(**kw: Any) -> Callable[..., Any]:
    return lambda jnp, a0: __import__("jax.scipy.special").scipy.special.logsumexp(a0, **kw)


def _jax_softmax(name: str, **kw: Any) -> Callable[..., Any]:
    return lambda jnp, a0: getattr(__import__("jax").nn, name)(a0, **kw)


SPECS: tuple[Spec, ...] = (
    # --- elementwise unary ------------------------------------------------------------
    _unary("abs", "nonzero"), _unary("exp"), _unary("exp2"), _unary("expm1"),
    _unary("log", "positive"), _unary("log2", "positive"), _unary("log10", "positive"),
    _unary("log1p", "positive"), _unary("sqrt", "positive"), _unary("cbrt", "nonzero"),
    _unary("square"), _unary("reciprocal", "nonzero"), _unary("sin"), _unary("cos"),
    _unary("tan", "small"), _unary("arcsin", "unit"), _unary("arccos", "unit"),
    _unary("arctan"), _unary("sinh"), _unary("cosh"), _unary("tanh"), _unary("arcsinh"),
    _unary("arccosh", "above1"), _unary("arctanh", "unit"), _unary("deg2rad"),
    _unary("rad2deg"), _unary("negative", op=Op.NEG), _unary("positive"),
    _unary("copy"), _unary("asarray"),
    _unary("sigmoid", "real", path="rt.sigmoid", jax=_RT_JAX["sigmoid"]),
    _unary("relu", "nonzero", path="rt.relu", jax=_RT_JAX["relu"]),
    _unary("math.sin", "real", op=Op.SIN, path="math.sin", shapes=((None,),),
           jax=lambda jnp, a0: jnp.sin(a0)),
    _unary("math.sqrt", "positive", op=Op.SQRT, path="math.sqrt", shapes=((None,),),
           jax=lambda jnp, a0: jnp.sqrt(a0)),
    # float(x): a Python float (no eager twin: a Tensor's .item() leaves the graph); of a
    # one-element 1-d array only where this NumPy converts one (a TypeError since 2.4)
    Spec("float", "float(a0)", (Op.PY_FLOAT,), (((),), ((1,),)) if _FLOAT_OF_ND else (((),),),
         ("real",), None,
         jax=lambda jnp, a0: jnp.reshape(a0, ())),
    Spec("astype", "a0.astype(np.float64)", (Op.ASTYPE,), UNARY_SHAPES[1:], ("real",),
         (Op.ASTYPE, {"dtype": "float64"}), jax=lambda jnp, a0: a0.astype(jnp.float64)),
    Spec("astype32", "np.asarray(a0).astype(np.float32)", (Op.ASTYPE,), UNARY_SHAPES[1:],
         ("real",), None, dtypes=("float64",), jax=lambda jnp, a0: a0.astype(jnp.float32),
         extra={"h": 1e-2, "tol": "float32"}),  # float32 values: a long difference step
    # --- elementwise binary -----------------------------------------------------------
    _binary("add"), _binary("subtract", op=Op.SUB), _binary("multiply", op=Op.MUL),
    _binary("divide", ("real", "nonzero"), op=Op.DIV),
    _binary("mod", ("mod_x", "mod_y")),
    _binary("hypot", ("nonzero", "nonzero")), _binary("logaddexp"), _binary("logaddexp2"),
    _binary("power", ("positive", "real"), op=Op.POW),
    _binary("arctan2", ("nonzero", "nonzero")),
    _binary("maximum"), _binary("minimum"), _binary("fmax"), _binary("fmin"),
    Spec("pow-int", "a0 ** 3", (Op.POW,), UNARY_SHAPES, ("real",), None,
         jax=lambda jnp, a0: a0 ** 3),
    Spec("where", "np.where(a0 > 0, a1, a2)", (Op.WHERE,),
         (((3,), (3,), (3,)), ((2, 3), (3,), ()), (None, None, None)),
         ("nonzero", "real", "real"), None),
    Spec("clip", "np.clip(a0, a1, a2)", (Op.CLIP,),
         (((5,), (), ()), ((2, 3), (3,), ()), (None, None, None)),
         ("real", "low", "high"), (Op.CLIP, {})),
    Spec("clip-none", "np.clip(a0, None, 0.5)", (Op.CLIP,), (((5,),),), ("real",), None),
    # --- reductions -------------------------------------------------------------------
    _reduce("sum", Op.SUM, {}), _reduce("sum", Op.SUM, {"axis": 0}),
    _reduce("sum", Op.SUM, {"axis": -1, "keepdims": True}),
    _reduce("mean", Op.MEAN, {}), _reduce("mean", Op.MEAN, {"axis": 1},
                                          shapes=REDUCE_SHAPES[:1] + REDUCE_SHAPES[2:]),
    _reduce("max", Op.MAX, {}, "distinct"), _reduce("max", Op.MAX, {"axis": 0}, "distinct"),
    _reduce("min", Op.MIN, {"axis": -1}, "distinct"),
    _reduce("var", Op.VAR, {}), _reduce("var", Op.VAR, {"axis": 0, "ddof": 1},
                                        shapes=(((3, 2),), ((4,),))),
    _reduce("std", Op.STD, {}), _reduce("std", Op.STD, {"axis": -1, "keepdims": True},
                                        shapes=(((2, 3),), ((4,),))),
    _reduce("prod", Op.PROD, {}, "nonzero"), _reduce("prod", Op.PROD, {"axis": 1},
                                                     "nonzero", shapes=(((2, 3),),)),
    _reduce("cumsum", Op.CUMSUM, {"axis": 0}), _reduce("cumsum", Op.CUMSUM, {}),
    _reduce("cumprod", Op.CUMPROD, {"axis": -1}, "nonzero"),
    _reduce("logsumexp", Op.LOGSUMEXP, {}, path="rt.logsumexp", jax=_jax_lse()),
    _reduce("logsumexp", Op.LOGSUMEXP, {"axis": 0}, path="rt.logsumexp",
            jax=_jax_lse(axis=0)),
    _reduce("softmax", Op.SOFTMAX, {"axis": -1}, path="rt.softmax",
            jax=_jax_softmax("softmax", axis=-1)),
    _reduce("log_softmax", Op.LOG_SOFTMAX, {"axis": 0}, path="rt.log_softmax",
            jax=_jax_softmax("log_softmax", axis=0)),
    _reduce("norm", Op.NORM, {}, path="np.linalg.norm", shapes=VECTOR_SHAPES),
    _reduce("norm", Op.NORM, {"ord": 1}, "nonzero", path="np.linalg.norm",
            shapes=(((4,),),)),
    _reduce("norm", Op.NORM, {"ord": 3}, "nonzero", path="np.linalg.norm",
            shapes=(((4,),),)),
    _reduce("norm", Op.NORM, {"ord": float("inf")}, "distinct", path="np.linalg.norm",
            shapes=(((4,),),)),
    _reduce("norm", Op.NORM, {"axis": 1}, path="np.linalg.norm", shapes=(((2, 3),),)),
    _reduce("norm", Op.NORM, {"ord": "fro"}, path="np.linalg.norm", shapes=(((2, 3),),)),
    _reduce("norm", Op.NORM, {"ord": 1}, "distinct", path="np.linalg.norm",
            shapes=(((3, 3),),)),
    _reduce("sort", Op.SORT, {"axis": -1}, "distinct"),
    # --- linear algebra ---------------------------------------------------------------
    Spec("matmul", "a0 @ a1", (Op.MATMUL,),
         (((2, 3), (3, 4)), ((3,), (3, 2)), ((2, 3), (3,)), ((3,), (3,)), ((2, 2, 3), (3, 2))),
         ("real", "real"), (Op.MATMUL, {})),
    Spec("dot", "np.dot(a0, a1)", (Op.DOT,), (((2, 3), (3, 2)), ((3,), (3,)), ((), (3,))),
         ("real", "real"), (Op.DOT, {})),
    Spec("vdot", "np.vdot(a0, a1)", (Op.VDOT,), (((2, 3), (2, 3)),), ("real", "real"),
         (Op.VDOT, {})),
    Spec("inner", "np.inner(a0, a1)", (Op.INNER,), (((2, 3), (4, 3)), ((3,), (3,))),
         ("real", "real"), (Op.INNER, {})),
    Spec("outer", "np.outer(a0, a1)", (Op.OUTER,), (((2,), (3,)), ((2, 2), (3,))),
         ("real", "real"), (Op.OUTER, {})),
    Spec("tensordot", "np.tensordot(a0, a1, axes=([1, 0], [0, 2]))", (Op.TENSORDOT,),
         (((3, 2, 4), (2, 5, 3)),), ("real", "real"),
         (Op.TENSORDOT, {"axes": ((1, 0), (0, 2))})),
    Spec("einsum", "np.einsum('ij,jk->ik', a0, a1)", (Op.EINSUM,), (((2, 3), (3, 4)),),
         ("real", "real"), (Op.EINSUM, {"subscripts": "ij,jk->ik"})),
    Spec("einsum-ellipsis", "np.einsum('...ij,j->...i', a0, a1)", (Op.EINSUM,),
         (((2, 2, 3), (3,)),), ("real", "real"), None),
    Spec("diagonal", "np.diagonal(a0, 1)", (Op.DIAGONAL,), (((3, 4),), ((2, 3, 3),)),
         ("real",), (Op.DIAGONAL, {"offset": 1})),
    Spec("trace", "np.trace(a0)", (Op.TRACE,), (((3, 3),), ((2, 4),)), ("real",),
         (Op.TRACE, {})),
    Spec("diag", "np.diag(a0)", (Op.DIAG,), (((3,),), ((3, 3),)), ("real",), (Op.DIAG, {})),
    Spec("inv", "np.linalg.inv(a0)", (Op.INV,), (((3, 3),), ((2, 2, 2),)), ("wellcond",),
         (Op.INV, {})),
    Spec("solve", "np.linalg.solve(a0, a1)", (Op.SOLVE,), (((3, 3), (3, 2)), ((3, 3), (3,))),
         ("wellcond", "real"), (Op.SOLVE, {})),
    Spec("det", "np.linalg.det(a0)", (Op.DET,), (((3, 3),), ((2, 2, 2),)), ("wellcond",),
         (Op.DET, {})),
    Spec("slogdet", "np.linalg.slogdet(a0)[1]", (Op.SLOGDET,), (((3, 3),),), ("wellcond",),
         None),
    # NumPy reads the lower triangle only: symmetrise so differences move a symmetric input
    Spec("cholesky", "np.linalg.cholesky((a0 + a0.T) / 2)", (Op.CHOLESKY,), (((3, 3),),),
         ("spd",), None),
    # --- shapes and data movement -----------------------------------------------------
    Spec("reshape", "np.reshape(a0, (3, -1))", (Op.RESHAPE,), (((2, 3),), ((6,),)),
         ("real",), None),
    Spec("ravel", "np.ravel(a0)", (Op.RAVEL,), (((2, 3),), ((),)), ("real",),
         (Op.RAVEL, {})),
    Spec("squeeze", "np.squeeze(a0)", (Op.SQUEEZE,), (((1, 3, 1),), ((1,),)), ("real",),
         (Op.SQUEEZE, {})),
    Spec("broadcast_to", "np.broadcast_to(a0, (2, 3))", (Op.BROADCAST_TO,),
         (((3,),), ((1, 3),), ((),)), ("real",), None),
    Spec("expand_dims", "np.expand_dims(a0, 1)", (Op.EXPAND_DIMS,), (((2, 3),), ((3,),)),
         ("real",), (Op.EXPAND_DIMS, {"axis": 1})),
    Spec("swapaxes", "np.swapaxes(a0, 0, -1)", (Op.SWAPAXES,), (((2, 3, 4),),), ("real",),
         (Op.SWAPAXES, {"axis1": 0, "axis2": -1})),
    Spec("moveaxis", "np.moveaxis(a0, 0, 2)", (Op.MOVEAXIS,), (((2, 3, 4),),), ("real",),
         (Op.MOVEAXIS, {"source": 0, "destination": 2})),
    Spec("transpose", "np.transpose(a0, (1, 2, 0))", (Op.TRANSPOSE,), (((2, 3, 4),),),
         ("real",), (Op.TRANSPOSE, {"axes": (1, 2, 0)})),
    Spec("transpose-T", "a0.T", (Op.TRANSPOSE,), (((2, 3),),), ("real",), None,
         jax=lambda jnp, a0: a0.T),
    Spec("flip", "np.flip(a0, 0)", (Op.FLIP,), (((2, 3),), ((4,),)), ("real",),
         (Op.FLIP, {"axis": 0})),
    Spec("triu", "np.triu(a0, 1)", (Op.TRIU,), (((3, 4),),), ("real",), (Op.TRIU, {"k": 1})),
    Spec("tril", "np.tril(a0)", (Op.TRIL,), (((3, 3),), ((2, 3, 3),)), ("real",),
         (Op.TRIL, {})),
    Spec("roll", "np.roll(a0, 2, axis=1)", (Op.ROLL,), (((2, 3),),), ("real",),
         (Op.ROLL, {"shift": 2, "axis": 1})),
    Spec("concatenate", "np.concatenate([a0, a1], axis=0)", (Op.CONCATENATE,),
         (((2, 3), (1, 3)), ((3,), (2,))), ("real", "real"), None),
    Spec("stack", "np.stack([a0, a1], axis=1)", (Op.STACK,), (((2, 3), (2, 3)), ((3,), (3,))),
         ("real", "real"), None),
    Spec("hstack", "np.hstack([a0, a1])", (Op.HSTACK,), (((2, 3), (2, 1)), ((3,), (2,))),
         ("real", "real"), None),
    Spec("vstack", "np.vstack([a0, a1])", (Op.VSTACK,), (((2, 3), (1, 3)), ((3,), (3,))),
         ("real", "real"), None),
    Spec("split", "np.split(a0, 3, axis=1)[1]", (Op.SPLIT,), (((2, 6),),), ("real",), None),
    Spec("tile", "np.tile(a0, (2, 1))", (Op.TILE,), (((2, 3),), ((3,),)), ("real",),
         (Op.TILE, {"reps": (2, 1)})),
    Spec("repeat", "np.repeat(a0, 2, axis=0)", (Op.REPEAT,), (((2, 3),), ((3,),)), ("real",),
         (Op.REPEAT, {"repeats": 2, "axis": 0})),
    Spec("pad", "np.pad(a0, ((1, 0), (0, 2)))", (Op.PAD,), (((2, 3),),), ("real",),
         (Op.PAD, {"pad_width": ((1, 0), (0, 2))})),
    Spec("take", "np.take(a0, [2, 0, 2], axis=1)", (Op.TAKE,), (((2, 3),),), ("real",),
         None, jax=lambda jnp, a0: jnp.take(a0, jnp.array([2, 0, 2]), axis=1)),
    Spec("take_along_axis", "np.take_along_axis(a0, np.argsort(a0, axis=1), axis=1)",
         (Op.TAKE_ALONG_AXIS,), (((2, 3),),), ("distinct",), None),
    Spec("getitem", "a0[1:, ::2]", (Op.GETITEM,), (((3, 4),),), ("real",), None,
         jax=lambda jnp, a0: a0[1:, ::2]),
    Spec("getitem-repeat", "a0[[0, 2, 0]]", (Op.GETITEM,), (((3,),), ((3, 2),)), ("real",),
         None, jax=lambda jnp, a0: a0[jnp.array([0, 2, 0])]),
    Spec("getitem-mask", "a0[a0 > 0]", (Op.GETITEM,), (((5,),),), ("nonzero",), None,
         jax=None, order2=False),
    Spec("setitem", "b = a0.copy()\nb[1] = a1\nreturn b", (Op.SETITEM, Op.COPY),
         (((3, 2), (2,)), ((3,), ())), ("real", "real"), None,
         jax=lambda jnp, a0, a1: a0.at[1].set(a1)),
    Spec("setitem-repeat", "b = a0 * 1.0\nb[[0, 1, 0]] = a1\nreturn b", (Op.SETITEM,),
         (((3,), (3,)),), ("real", "real"), None,
         jax=None),  # JAX leaves the winner of repeated indices unspecified
    Spec("index-add", "b = a0 * 1.0\nb[1:] += a1\nreturn b", (Op.INDEX_ADD,),
         (((3, 2), (2,)),), ("real", "real"), None,
         jax=lambda jnp, a0, a1: (a0 * 1.0).at[1:].add(a1)),
    # --- creation from runtime values -------------------------------------------------
    Spec("full", "np.full((2, 3), a0)", (Op.FULL,), ((None,), ((),), ((3,),)), ("real",),
         None),
    Spec("full_like", "np.full_like(a1, a0)", (Op.FULL_LIKE,), ((None, (2, 3)), ((), (3,))),
         ("real", "real"), None),
    Spec("linspace", "np.linspace(a0, a1, 5)", (Op.LINSPACE,),
         ((None, None), ((), ()), ((2,), (2,))), ("real", "real"), None),
    Spec("linspace-1", "np.linspace(a0, a1, 1)", (Op.LINSPACE,), ((None, None),),
         ("real", "real"), None),
    Spec("arange", "np.arange(a0, 4.0, a1)", (Op.ARANGE,), ((None, None), ((), ())),
         ("arange_start", "arange_step"), None, jax=None),  # JAX needs concrete bounds
    # --- runtime lists (loops that append): their rules and the adjoint's list ops ------
    Spec("list-stack", "xs = []\nfor i in range(3):\n    xs.append(a0 * (i + 1.0))\n"
         "return np.stack(xs)", (Op.LIST_STACK, Op.LIST_UNSTACK), (((2,),), ((),)),
         ("real",), None, jax=lambda jnp, a0: jnp.stack([a0 * (i + 1.0) for i in range(3)])),
    Spec("list-sum", "xs = [a0]\nfor i in range(3):\n    xs.append(np.sin(xs[-1]))\n"
         "return sum(xs)", (Op.LIST, Op.LIST_ADD, Op.LIST_CONCAT, Op.LIST_GET, Op.LIST_SLICE,
                            Op.LIST_SUM), (((2,),), (None,)), ("real",), None, jax=None),
    Spec("list-catenate", "xs = []\nfor i in range(2):\n    xs.append(a0 * (i + 1.0))\n"
         "return np.concatenate(xs)", (Op.LIST_CATENATE, Op.LIST_SPLIT_LIKE), (((2,),),),
         ("real",), None, jax=None),
    Spec("list-reversed", "xs = []\nfor i in range(3):\n    xs.append(a0 * (i + 1.0))\n"
         "t = 0.0\nfor v in reversed(xs):\n    t = t * a0 + v\nreturn t",
         (Op.LIST_REVERSE,), (((2,),), (None,)), ("real",), None, jax=None),
    Spec("list-index", "xs = []\nfor i in range(4):\n    xs.append(a0 * (i + 1.0))\n"
         "t = 0.0\nfor k in [2, 0, 3]:\n    t = t + xs[k] * a0\nys = xs[1:3]\n"
         "return t + ys[0] * ys[1]", (Op.LIST_INDEX_ADD,), (((2,),),), ("real",), None,
         jax=None),
    Spec("list-while", "xs = []\nn = 0\nwhile n < 3:\n    xs.append(a0 * n)\n"
         "    n = n + 1\nreturn np.concatenate(xs)", (Op.LIST_GATHER, Op.LIST_UNGATHER),
         (((2,),),), ("real",), None, jax=None),
)

# --- scipy.special ops (rt.<name>: the kernels SciPy runs) and the decompositions ------


def _jsp(name: str) -> Callable[..., Any]:
    """``jax.scipy.special.<name>`` (``jax.numpy.sinc`` for sinc) applied to the args."""
    def call(jnp: Any, *a: Any) -> Any:
        if name == "sinc":
            return jnp.sinc(*a)
        return getattr(__import__("jax.scipy.special").scipy.special, name)(*a)

    return call


def _special(name: str, domains: tuple[str, ...], jax: bool = True, **kw: Any) -> Spec:
    args = ", ".join(f"a{k}" for k in range(len(domains)))
    shapes = UNARY_SHAPES if len(domains) == 1 else BINARY_SHAPES
    return Spec(name, f"rt.{name}({args})", (Op(name),), kw.pop("shapes", shapes), domains,
                (Op(name), {}), jax=_jsp(name) if jax else None, **kw)


SPECS += (
    _special("expit", ("real",)),
    _special("logit", ("prob",)),
    _special("log_expit", ("real",), jax=False),
    _special("gammaln", ("positive",)),
    _special("digamma", ("positive",)),
    _special("erf", ("real",)),
    _special("erfc", ("real",)),
    _special("erfinv", ("unit",)),
    _special("ndtr", ("real",)),
    _special("log_ndtr", ("real",)),
    _special("ndtri", ("prob",)),
    _special("entr", ("positive",)),
    _special("sinc", ("real",)),
    Spec("polygamma", "rt.polygamma(2, a0)", (Op.POLYGAMMA,), UNARY_SHAPES, ("positive",),
         None, jax=lambda jnp, a0: _jsp("polygamma")(jnp, 2, a0)),
    _special("xlogy", ("real", "positive")),
    _special("xlog1py", ("real", "positive")),
    _special("rel_entr", ("positive", "positive")),
    _special("kl_div", ("positive", "positive"), jax=False),  # JAX's kl_div differs off x, y > 0
    _special("huber", ("positive", "real"), jax=False, order2=False),
    _special("pseudo_huber", ("positive", "real"), jax=False),
    _special("boxcox", ("positive", "real"), jax=False),
    _special("betaln", ("positive", "positive")),
    Spec("gammainc", "rt.gammainc(2.5, a0)", (Op.GAMMAINC,), UNARY_SHAPES, ("positive",),
         None, jax=lambda jnp, a0: _jsp("gammainc")(jnp, 2.5, a0)),
    Spec("gammaincc", "rt.gammaincc(1.5, a0)", (Op.GAMMAINCC,), UNARY_SHAPES, ("positive",),
         None, jax=lambda jnp, a0: _jsp("gammaincc")(jnp, 1.5, a0)),
    # eigh reads one triangle: symmetrise so that differences (and JAX) see the same matrix
    Spec("eigvalsh", "np.linalg.eigvalsh((a0 + a0.T) / 2)", (Op.EIGVALSH,), (((3, 3),),),
         ("real",), None),
    Spec("eigh", "np.linalg.eigh((a0 + a0.T) / 2)[1] ** 2 + np.linalg.eigh(a0 + a0.T)[0]",
         (Op.EIGH,), (((3, 3),),), ("real",), None),
    Spec("svdvals", "np.linalg.svd(a0, compute_uv=False)", (Op.SVDVALS,),
         (((3, 3),), ((4, 2),), ((2, 3),)), ("real",), None),
    Spec("svd", "np.linalg.svd(a0, full_matrices=False)[0] ** 2", (Op.SVD,),
         (((3, 3),), ((4, 2),), ((2, 3),)), ("real",), None),
)
# --- issue 11's families, each in its own module ------------------------------------------
from .specs_catalog import SPECS_CATALOG  # noqa: E402, I001  (specs2: catalogue entries)
from .specs_fft import SPECS_FFT  # noqa: E402
from .specs_integrate import SPECS_INTEGRATE  # noqa: E402
from .specs_linalg import SPECS_LINALG  # noqa: E402
from .specs_numpy_more import SPECS_NUMPY_MORE  # noqa: E402
from .specs_scipy_kernels import SPECS_SCIPY_KERNELS  # noqa: E402
from .specs_special import SPECS_SPECIAL  # noqa: E402
from .specs_stats import SPECS_STATS  # noqa: E402

SPECS += (SPECS_SCIPY_KERNELS + SPECS_INTEGRATE + SPECS_FFT + SPECS_LINALG + SPECS_STATS
          + SPECS_SPECIAL + SPECS_NUMPY_MORE + SPECS_CATALOG)
