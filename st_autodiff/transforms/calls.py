"""Which Python callables are which ops, and how their arguments bind (used by ``lower``).

NumPy functions, ``math`` functions, ndarray methods and a few builtins map to ops of
``ir/ops.py``; their arguments bind to the op's inputs (runtime values) and params
(compile-time constants) by position and by keyword.  Keyword spellings NumPy uses for
the first argument (``a``, ``arr``) and for clip bounds (``min``/``max``) are accepted.
"""

from __future__ import annotations

import builtins
import math
import sys
from typing import Any

import numpy as np

from ..ir import kernels, kernels_special, kernels_special_more
from ..ir.ops import OP_INFO, REQUIRED, Op, Spelling

#: keyword spellings that mean an op's own input or param name
KEYWORD_ALIASES = {"a": "x", "arr": "x", "v": "x", "m": "x", "min": "a_min", "max": "a_max",
                   "newshape": "shape", "x1": "x", "x2": "y",
                   "correction": "ddof"}  # np.var/np.std: the Array API's name for ddof

_MATH = {
    "exp": Op.EXP, "expm1": Op.EXPM1, "log": Op.LOG, "log2": Op.LOG2, "log10": Op.LOG10,
    "log1p": Op.LOG1P, "sqrt": Op.SQRT, "cbrt": Op.CBRT, "sin": Op.SIN, "cos": Op.COS,
    "tan": Op.TAN, "asin": Op.ARCSIN, "acos": Op.ARCCOS, "atan": Op.ARCTAN, "sinh": Op.SINH,
    "cosh": Op.COSH, "tanh": Op.TANH, "asinh": Op.ARCSINH, "acosh": Op.ARCCOSH,
    "atanh": Op.ARCTANH, "atan2": Op.ARCTAN2, "hypot": Op.HYPOT, "fabs": Op.ABS,
    "pow": Op.POW, "floor": Op.FLOOR, "ceil": Op.CEIL, "trunc": Op.TRUNC,
    "degrees": Op.RAD2DEG, "radians": Op.DEG2RAD, "erf": Op.ERF, "erfc": Op.ERFC,
    "exp2": Op.EXP2, "fmod": Op.FMOD, "ldexp": Op.LDEXP,
}


def _numpy_functions() -> dict[int, Op]:
    table: dict[int, Op] = {}
    for op, info in OP_INFO.items():
        if info.spelling is Spelling.SPECIAL and op is not Op.EINSUM:
            continue
        if op.value.startswith("list_"):
            continue  # np.stack of a list built at run time is recognised by the lowering
        paths = [] if info.numpy is None or info.numpy.startswith("rt.") else [info.numpy]
        for path in paths + list(info.aliases):
            obj: Any = np
            try:
                for part in path.split("."):
                    obj = getattr(obj, part)
            except AttributeError:
                continue
            table.setdefault(id(obj), op)
    for name, op in _MATH.items():
        if hasattr(math, name):  # (math.cbrt is new in Python 3.11)
            table[id(getattr(math, name))] = op
    table[id(builtins.abs)] = Op.ABS
    table[id(builtins.pow)] = Op.POW
    table[id(np.shape)] = Op.SHAPE
    table[id(kernels.stop_gradient)] = Op.STOP_GRADIENT  # st.stop_gradient
    for op, info in OP_INFO.items():  # rt.* in generated code (differentiated again)
        if info.numpy and info.numpy.startswith("rt."):
            table.setdefault(id(getattr(kernels, info.numpy[3:])), op)
    return table


#: ``id(callable) -> Op`` for every NumPy/math function the compiler understands
FUNCTIONS: dict[int, Op] = _numpy_functions()

_SPECIAL: dict[int, Op] = {}


def special_op(fn: Any) -> Op | None:
    """The op of a scipy.special function (``gammaln``, ``psi`` …), or None.

    SciPy is never imported here: a program that calls its functions has imported it."""
    mod = sys.modules.get("scipy.special")
    if mod is None:
        return None
    if not _SPECIAL:
        names = {**kernels_special.SCIPY_NAMES, **kernels_special_more.SCIPY_NAMES_MORE}
        for name, target in names.items():
            if hasattr(mod, name):
                _SPECIAL[id(getattr(mod, name))] = Op(target)
    return _SPECIAL.get(id(fn))


#: ndarray method name -> Op
METHODS: dict[str, Op] = {m: op for op, info in OP_INFO.items() for m in info.methods}


def callable_name(fn: Any) -> str:
    """``numpy.linalg.norm`` style name of a callable, for messages."""
    mod = getattr(fn, "__module__", None) or ""
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
    if name is None:  # a callable object: name its method, never its address
        name = f"{type(fn).__qualname__}.__call__"
    if isinstance(fn, np.ufunc):
        owner = getattr(np, fn.__name__, None) is fn
        return f"numpy.{fn.__name__}" if owner else f"ufunc {fn.__name__!r}"
    return f"{mod}.{name}" if mod and mod != "builtins" else name


def dtype_name(value: Any) -> str | None:
    """A dtype-like object (np.float32, 'float32', np.dtype(...), float) as its name."""
    if value is None:
        return None
    try:
        return str(np.dtype(value).name)
    except TypeError:
        return None


def bind(op: Op, args: list[Any], kwargs: dict[str, Any], what: str
         ) -> tuple[list[Any], dict[str, Any]]:
    """Bind call arguments to ``op``'s inputs and params; raise ``TypeError`` on misuse.

    Returns (inputs, params); variadic inputs come out flattened.
    """
    info = OP_INFO[op]
    in_names = [n.lstrip("*") for n in info.inputs]
    param_names = [k for k, _ in info.params]
    order = in_names + param_names
    if op is Op.EINSUM:  # einsum(subscripts, *operands)
        order = ["subscripts", "operands"]
        # optimize= picks the order of the contractions, not what they compute
        kwargs = {k: v for k, v in kwargs.items()
                  if k != "optimize" or not (v is None or isinstance(v, (bool, str, list)))}
    if op is Op.SORT:  # kind= and stable= pick the algorithm, not the sorted values
        kwargs = {k: v for k, v in kwargs.items()
                  if not (k == "kind" and (v is None or isinstance(v, str)) or
                          k == "stable" and (v is None or isinstance(v, bool)))}
    bound: dict[str, Any] = {}
    rest: list[Any] = []
    positional = list(args)
    for name in order:
        if not positional:
            break
        if info.variadic and name == in_names[-1] and op is not Op.EINSUM:
            seq = positional.pop(0)
            if not isinstance(seq, (tuple, list)):
                raise TypeError(f"{what} expects a sequence of arrays (a tuple or list)")
            rest = list(seq)
            bound[name] = None
            continue
        if op is Op.EINSUM and name == "operands":
            rest, positional = positional, []
            bound[name] = None
            continue
        bound[name] = positional.pop(0)
    if positional:
        raise TypeError(f"{what} got {len(args)} positional arguments, more than it takes")
    for key, value in kwargs.items():
        name = key if key in order else KEYWORD_ALIASES.get(key, key)
        if name not in order:
            raise TypeError(f"{what} got an unsupported keyword argument {key!r} "
                            f"(supported: {', '.join(order)})")
        if name in bound:
            raise TypeError(f"{what} got multiple values for argument {key!r}")
        bound[name] = value
    inputs: list[Any] = []
    for name in in_names:
        if info.variadic and name == in_names[-1]:
            inputs.extend(rest)
        elif name in bound:
            inputs.append(bound[name])
        else:
            raise TypeError(f"{what} is missing the argument {name!r}")
    params = {k: bound[k] for k in param_names if k in bound}
    for k, default in info.params:
        if default is REQUIRED and k not in params:
            raise TypeError(f"{what} is missing the argument {k!r}")
    return inputs, params
