"""The output type of a call to a function with a custom rule, found without calling it.

Lowering turns a call of a function registered with ``st.register_vjp`` (or made with
``st.custom_vjp`` / ``st.custom_jvp``) into one ``call`` node that the compiled code runs
once per call of the user's function.  The compiler never runs it itself: a user's
function may have effects (a counter, a print, a random draw), and those must happen
exactly as often as Python would make them.  The node still needs its output type
(dtype, shape, and how many items a tuple has), found here in this order:

1. the type the user gave: ``out_type=`` of ``register_vjp``/``custom_vjp``/``custom_jvp``
   (an ``st.ShapeDtype``, an example array, ``float``, a tuple or list of those, or a
   function of the arguments' ``ShapeDtype``s returning one, run while compiling, as
   JAX's ``pure_callback`` takes ``result_shape_dtypes``);
2. a NumPy or SciPy function (ufuncs included, ``numpy.random`` and other random
   functions excepted) is pure: it is run once on the example arguments;
3. a Python function is read, not run: its body is lowered in a throw-away graph on the
   arguments' types, when a scan of its source (and of the functions it calls) finds no
   effects: no ``global``/``nonlocal``, no statement that only calls something (``print``,
   ``log.append``) unless it appends to a list the function made, and no write into an
   object it did not make;
4. else a located ``CompileError`` that says to give ``out_type=``.

The item types of a tuple output become the ``out_type`` param of the ``call`` node, so
that passes, the adjoint (one cotangent per item) and the stand-in values used while
compiling (``kernels.compiling``) all see the same structure.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

import libcst as cst
import numpy as np

from ..errors import CompileError, StAutodiffError
from ..ir.abstract import dummy, is_abstract
from ..ir.graph import Node
from ..ir.ops import Op
from ..ir.types import Type, type_of
from ..ir.versioned import VersionedDict
from .parse import parse_function

if TYPE_CHECKING:
    from .lower import Lowerer

#: ``function -> out_type`` given to ``register_vjp``/``custom_vjp``/``custom_jvp``.
OUT_TYPES: dict[Any, Any] = VersionedDict()


class ShapeDtype:
    """An array's shape and dtype without its data, as JAX's ``ShapeDtypeStruct``: the
    output type of a function with a custom rule (``out_type=``).  ``shape=None`` says
    the shape is not known when compiling (it depends on the data)."""

    def __init__(self, shape: tuple[int, ...] | None, dtype: Any = np.float64) -> None:
        self.shape = None if shape is None else tuple(int(d) for d in shape)
        self.dtype = None if dtype is None else np.dtype(dtype)

    @property
    def ndim(self) -> int | None:
        """The rank, when the shape is known."""
        return None if self.shape is None else len(self.shape)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ShapeDtype) and (self.shape, self.dtype) == (
            other.shape, other.dtype)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype))

    def __repr__(self) -> str:
        return f"ShapeDtype(shape={self.shape}, dtype={self.dtype})"


def emit_call(lw: Lowerer, fn: Any, args: list[Any], e: cst.Call) -> Any:
    """Emit the ``call`` node of a registered function; a tuple or list output comes
    back as a tuple or list of ``item`` nodes, one per item."""
    out = out_type(lw, fn, args, e)
    nodes = [lw.to_node(a, e) for a in args]
    whole = out if isinstance(out, Type) else Type("tuple") if out is not None else None
    fn = getattr(fn, "st_compiled_call", fn)  # custom_vjp: its fwd, which keeps residuals
    node = lw.b.emit(Op.CALL, nodes, {"fn": fn, "out_type": out}, loc=lw.loc(e), type=whole)
    if not isinstance(out, (tuple, list)):
        return node
    items = [lw.b.emit(Op.ITEM, [node], {"index": i}, loc=lw.loc(e), type=t)
             for i, t in enumerate(out)]
    return type(out)(items)


def out_type(lw: Lowerer, fn: Any, args: list[Any], e: cst.Call) -> Any:
    """``fn``'s output type on ``args`` (a ``Type``, or a flat tuple or list of them),
    found without calling ``fn`` unless it is a pure library function; ``None`` when
    compiling without example arguments."""
    fn = getattr(fn, "st_typed_as", fn)  # custom_vjp's fwd in generated code: typed as f
    name = _name(fn)
    given = _given(fn)
    if given is not None:
        if callable(given) and not isinstance(given, type):
            try:
                given = given(*[_spec_of(lw, a) for a in args])
            except Exception as exc:
                raise CompileError(f"the out_type function of {name} failed: "
                                   f"{type(exc).__name__}: {exc}", lw.loc(e)) from None
        return _checked(_as_type(given, name, lw, e), name, lw, e)
    if lw.b.evaluate is None:
        return None  # no example arguments: nothing is typed
    if is_pure_library(fn):
        # run on stand-ins of the arguments' types (never their data): only the result's
        # type is kept
        examples = [dummy(lw.example(a)) if isinstance(a, Node) else a for a in args]
        if any(isinstance(a, Node) and v is None for a, v in zip(args, examples)):
            return None
        try:
            with np.errstate(all="ignore"):
                value = fn(*examples)
        except Exception as exc:
            if any(isinstance(a, Node) and (lw.b.is_abstract(a) or is_abstract(lw.example(a)))
                   for a in args):
                raise _needs_out_type(fn, name, lw, e) from None  # it failed on stand-ins
            raise CompileError(f"{name} failed on the example arguments: "
                               f"{type(exc).__name__}: {exc}", lw.loc(e),
                               "the function itself fails for these inputs") from None
        return _checked(_type_of_value(value), name, lw, e)
    target = getattr(fn, "fn", None) if hasattr(fn, "st_missing_rule") else fn
    call = getattr(type(target), "__call__", None)  # noqa: B004  (the class's own method)
    if not isinstance(target, (types.FunctionType, type)) and isinstance(
            call, types.FunctionType):
        args = [target, *args]  # a callable object: read its __call__ with self bound
        target = call
    if isinstance(target, types.FunctionType):
        found = _read_type(lw, target, args, e)
        if found is not None:
            return _checked(found, name, lw, e)
    raise _needs_out_type(fn, name, lw, e)


def _needs_out_type(fn: Any, name: str, lw: Lowerer, e: cst.Call) -> CompileError:
    """The located error for a call whose type the compiler cannot find."""
    kind = getattr(fn, "_kind", None)
    where = f"@st.{kind}(out_type=...)" if kind else f"st.register_vjp({name}, rule, " \
        "out_type=...)"
    return CompileError(
        f"st_autodiff needs the output type of {name}, and does not call it while "
        "compiling (it may have effects: each call of the compiled code calls it once); "
        "its source cannot be read for the type (it is not Python, calls functions "
        "st_autodiff does not know, or has effects)", lw.loc(e),
        f"give the type: {where} with st.ShapeDtype(shape, dtype), a tuple of them for "
        "a tuple output, or a function of the arguments' ShapeDtypes returning that")


def is_pure_library(fn: Any) -> bool:
    """A NumPy or SciPy function (ufuncs included) that draws no random numbers: running
    it on the example arguments cannot be observed, so it may type its own call."""
    if isinstance(fn, np.ufunc):
        return True
    owner = getattr(fn, "__self__", None)
    module = getattr(fn, "__module__", None) or (
        type(owner).__module__ if owner is not None else "")
    if module.split(".")[0] not in ("numpy", "scipy"):
        return False
    name = getattr(fn, "__name__", "")
    return "random" not in module and "random" not in name and name != "rvs"


def _is_library(fn: Any) -> bool:
    """NumPy, SciPy and st_autodiff's own functions: known, never scanned."""
    module = getattr(fn, "__module__", None) or ""
    return module.split(".")[0] in ("numpy", "scipy", "st_autodiff")


def _name(fn: Any) -> str:
    return getattr(fn, "__name__", None) or type(fn).__name__


def _given(fn: Any) -> Any:
    try:
        return OUT_TYPES.get(fn)
    except TypeError:  # unhashable
        return None


def _spec_of(lw: Lowerer, a: Any) -> Any:
    """What an ``out_type`` function gets for one argument: a ``ShapeDtype`` for arrays
    and floats, the value itself for static arguments (ints, tuples)."""
    if not isinstance(a, Node):
        return a
    t = a.type
    if t is None:
        return ShapeDtype(None, None)
    if t.kind == "array":
        return ShapeDtype(t.shape, t.dtype)
    if t.kind == "float":
        return ShapeDtype((), np.float64)
    return dummy(lw.example(a))


def _as_type(spec: Any, name: str, lw: Lowerer, e: cst.Call) -> Any:
    """A user's type spec as IR types."""
    if isinstance(spec, (tuple, list)):
        return _container(spec)(_as_type(s, name, lw, e) for s in spec)
    if spec is float:
        return Type("float", "float64", ())
    if spec is int:
        return Type("int")
    if hasattr(spec, "shape") and hasattr(spec, "dtype"):
        shape = None if spec.shape is None else tuple(int(d) for d in spec.shape)
        dtype = None if spec.dtype is None else np.dtype(spec.dtype).name
        return Type("array", dtype, shape)
    raise CompileError(f"out_type of {name} must be an st.ShapeDtype (or an array, float, "
                       f"or a tuple or list of those), not {type(spec).__name__}", lw.loc(e))


def _type_of_value(value: Any) -> Any:
    if isinstance(value, (tuple, list)):  # named tuples (EighResult) as tuples
        return _container(value)(_type_of_value(v) for v in value)
    if isinstance(value, np.generic):
        value = np.asarray(value)
    return type_of(value)


def _checked(out: Any, name: str, lw: Lowerer, e: cst.Call) -> Any:
    """``out`` when it is one value or a flat tuple or list of values (what the adjoint
    and the rules support), else a located error."""
    items = out if isinstance(out, (tuple, list)) else [out]
    for t in items:
        if isinstance(t, (tuple, list)) or isinstance(t, Type) and t.kind in (
                "tuple", "list", "object"):
            raise CompileError(f"{name} returns a nested tuple or an object; functions "
                               "with a custom rule return an array, a scalar, or a flat "
                               "tuple or list of them", lw.loc(e))
    if isinstance(out, (tuple, list)) and not out:
        raise CompileError(f"{name} returns an empty tuple", lw.loc(e))
    return _container(out)(out) if isinstance(out, (tuple, list)) else out


def _read_type(lw: Lowerer, fn: types.FunctionType, args: list[Any], e: cst.Call) -> Any:
    """The output type of a Python function, from lowering its body in a throw-away
    graph (nothing of it is kept); ``None`` where its source has effects or cannot be
    lowered."""
    if not _effect_free(fn, set()):
        return None
    sub = lw.b.body(f"{lw.b.name}_type_of", soft=True)
    try:
        with lw.building(sub):
            result = lw.inline_python(fn, list(args), {}, e)
    except (StAutodiffError, RecursionError):
        return None
    parts = result if isinstance(result, (tuple, list)) else [result]
    found = []
    for p in parts:
        t = p.type if isinstance(p, Node) else type_of(p)
        if t is None or t.kind == "array" and t.dtype is None:
            return None
        found.append(t)
    return _container(result)(found) if isinstance(result, (tuple, list)) else found[0]


def _container(v: Any) -> type:
    """``list`` for lists, ``tuple`` for every tuple (named tuples included)."""
    return list if isinstance(v, list) else tuple


# --- the effect scan ------------------------------------------------------------------


def effect_free(fn: Any) -> bool:
    """Whether the Python function ``fn`` (and those it calls by name) can be read by
    the compiler without missing an effect; ``False`` for anything not Python."""
    return isinstance(fn, types.FunctionType) and _effect_free(fn, set())


def _effect_free(fn: types.FunctionType, seen: set[Any]) -> bool:
    """Whether ``fn``'s source, and that of the Python functions it calls by name, has
    no visible effect (see the module docstring): then reading it is safe."""
    if fn.__code__ in seen:
        return True
    seen.add(fn.__code__)
    try:
        node = parse_function(fn).node
    except StAutodiffError:
        return False
    scan = _EffectScan()
    node.visit(scan)
    scan.finish()
    if scan.effect:
        return False
    scope = {**fn.__globals__, **dict(zip(fn.__code__.co_freevars, _cells(fn)))}
    for called in scan.called:
        head, *rest = called.split(".")
        target = scope.get(head)
        for attr in rest:
            target = getattr(target, attr, None)
        if isinstance(target, types.FunctionType) and not _is_library(target) and \
                not _effect_free(target, seen):
            return False
    return True


def _cells(fn: types.FunctionType) -> list[Any]:
    out = []
    for c in fn.__closure__ or ():
        try:
            out.append(c.cell_contents)
        except ValueError:
            out.append(None)
    return out


class _EffectScan(cst.CSTVisitor):
    """Finds statements with effects; collects the local names and called names."""

    def __init__(self) -> None:
        self.effect = False
        self.local: set[str] = set()
        self.called: set[str] = set()
        self._writes: list[cst.BaseExpression] = []
        self._calls: list[cst.Call] = []

    def visit_Global(self, node: cst.Global) -> None:
        self.effect = True

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.effect = True

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._target(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._target(node.target)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.local.add(node.name.value)

    def visit_Del(self, node: cst.Del) -> None:
        self._writes.append(node.target)

    def visit_Call(self, node: cst.Call) -> None:
        path = _dotted(node.func)
        if path is not None:
            self.called.add(path)

    def visit_Expr(self, node: cst.Expr) -> None:
        if isinstance(node.value, cst.Call):
            self._calls.append(node.value)

    def _target(self, t: cst.BaseExpression) -> None:
        if isinstance(t, cst.Name):
            self.local.add(t.value)
        elif isinstance(t, (cst.Tuple, cst.List)):
            for el in t.elements:
                self._target(el.value)
        elif isinstance(t, cst.StarredElement):
            self._target(t.value)
        else:
            self._writes.append(t)

    def finish(self) -> None:
        """Decide, once every local name is known (parameters are not local: writing
        into one writes into the caller's object)."""
        for t in self._writes:  # x[i] = v, x.a = v: only into a value the function made
            if _base_name(t) not in self.local:
                self.effect = True
        for c in self._calls:  # a call for its effect: only xs.append(v) on a local list
            f = c.func
            if not (isinstance(f, cst.Attribute) and f.attr.value == "append" and
                    _base_name(f.value) in self.local):
                self.effect = True


def _dotted(e: cst.BaseExpression) -> str | None:
    """``"a.b.c"`` for the expression ``a.b.c``; ``None`` for anything else."""
    parts = []
    while isinstance(e, cst.Attribute):
        parts.append(e.attr.value)
        e = e.value
    if not isinstance(e, cst.Name):
        return None
    return ".".join([e.value, *reversed(parts)])


def _base_name(e: cst.BaseExpression) -> str | None:
    """``x`` for ``x``, ``x[i]``, ``x.a[i].b``; ``None`` for anything else."""
    while isinstance(e, (cst.Subscript, cst.Attribute)):
        e = e.value
    return e.value if isinstance(e, cst.Name) else None

