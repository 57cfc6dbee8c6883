"""Static calls and queries: what lowering answers at compile time (design/staging.md §2.1).

Three kinds of answers, each Python's own:

* **Comparisons** ``in``/``not in``/``is``/``is not`` on static values; ``x is None`` of a
  runtime value (typed, so never ``None``); ``x is x``.  The rest is a located refusal.
* **Type queries** (``isinstance``, ``hasattr``, ``type``, ``np.ndim``, ``np.finfo`` ...) of
  runtime values, answered from their types (``static_queries``).
* **Folding** of calls whose arguments are all static, for callables on a purity allowlist
  (NumPy but ``numpy.random`` and writers, ``math``, ``operator``, pure builtins,
  non-mutating methods of ``str``/``tuple``/``dict``/``np.dtype``/``type``).  Anything else
  keeps its own path: Python functions are inlined, unknown callables are not run.

``call`` is the hook of ``dispatch.call_value``; ``compare`` that of ``expr_Comparison``.
"""

from __future__ import annotations

import builtins
import collections
import importlib
import inspect
import types
from typing import TYPE_CHECKING, Any

import libcst as cst
import numpy as np

from ..ir.graph import Node, holds_node
from ..ir.ops import Op
from ..ir.types import Type, type_module
from . import calls, descriptors, identity
from . import static_queries as Q
from .array_converter import NUMPY_CONVERTER, ArrayConverter, Broadcast
from .no_complex import makes_complex

if TYPE_CHECKING:
    from .lower import Lowerer

_NEEDS_EXAMPLES = "call the gradient with arguments first (types come from them)"

# --- comparisons --------------------------------------------------------------------------


def compare(lw: Lowerer, word: str, left: Any, right: Any, e: cst.CSTNode) -> bool | Node:
    """``left <word> right`` for ``in``, ``not in``, ``is``, ``is not``: a Python bool, or a
    located refusal where the answer depends on run-time data or identity."""
    if word in ("is", "is not"):
        maybe = [v for v in (left, right) if isinstance(v, Node) and v in lw.maybe_none]
        if maybe and (left is None or right is None):  # None on some paths: at run time
            from .effects import emit  # noqa: PLC0415  (effects imports the lowering)
            from .effects_kinds import is_none  # noqa: PLC0415

            test = emit(lw, is_none, None, [maybe[0]], {}, e, False, Type("bool"))
            return test if word == "is" else lw.emit(Op.LOGICAL_NOT, [test], None, e)
        same = _identity(lw, left, right, e)
        return same if word == "is" else not same
    inside = _membership(lw, left, right, e)
    return inside if word == "in" else not inside


def _const(v: Any) -> Any:
    """A constant node as its Python value (a global array is that very array); a static
    array (static_numpy) as its ndarray."""
    if type(v).__name__ == "StaticArray":
        return v.value
    return v.param("value") if isinstance(v, Node) and v.op is Op.CONST else v


def _identity(lw: Lowerer, a: Any, b: Any, e: cst.CSTNode) -> bool:
    a, b = _const(a), _const(b)
    if not isinstance(a, Node) and not isinstance(b, Node):
        return a is b
    if isinstance(a, Node) and isinstance(b, Node):
        return identity.identical(lw, a, b, e)
    node, static = (a, b) if isinstance(a, Node) else (b, a)
    t = node.type
    if t is None:
        raise lw.fail("`is` on a runtime value whose type is not known", e, _NEEDS_EXAMPLES)
    if static is None:
        return t.kind == "none"
    could_be = {"array": (np.ndarray, np.generic), "float": (float, np.generic),
                "int": (int, np.generic), "bool": (bool, np.generic), "tuple": (tuple,),
                "list": (list,), "none": (type(None),)}.get(t.kind, (object,))
    made = getattr(lw.b.values.get(node), "cls", None)  # an object a known constructor made
    if isinstance(made, type) and not isinstance(static, made):
        return False  # (a Generator is never the module np.random)
    if isinstance(static, could_be):
        raise lw.fail(f"`is` between a runtime value and a {type(static).__name__} cannot be "
                      "decided when compiling", e, "compare values with == instead")
    return False  # a runtime value is never this static object (another type)


def _membership(lw: Lowerer, item: Any, seq: Any, e: cst.CSTNode) -> bool:
    item, seq = _const(item), _const(seq)
    if isinstance(seq, Node):
        raise lw.fail("`in` on a runtime value is not supported", e,
                      "test membership with np.any(x == v) or np.isin(v, x)")
    if type_module(seq).startswith("st_autodiff"):
        raise lw.fail("`in` on a sequence built at run time is not supported", e,
                      "test membership with np.isin(v, np.stack(xs))")
    if isinstance(seq, dict):
        holds = holds_node(item)  # a dict tests its (static) keys only
    else:
        holds = holds_node(item) or holds_node(seq)
    if holds:
        raise lw.fail("`in` with runtime values compares them with ==, which is not known "
                      "when compiling", e, "use np.isin or compare with == explicitly")
    try:
        return item in seq
    except Exception as exc:  # Python's exception at the user's line (a try may catch it)
        from .static_stmts import static_exception  # noqa: PLC0415  (it imports this module)

        raise static_exception(lw, exc, e) from None


# --- calls --------------------------------------------------------------------------------

#: NumPy callables that write into an argument, read files or global state, or make
#: uninitialised memory: never run at compile time
_NUMPY_DENIED = frozenset({
    "copyto", "put", "place", "putmask", "put_along_axis", "fill_diagonal", "save", "savez",
    "savez_compressed", "savetxt", "load", "loadtxt", "genfromtxt", "fromfile", "fromregex",
    "memmap", "seterr", "seterrcall", "set_printoptions", "setbufsize", "printoptions",
    "errstate", "empty", "empty_like", "ndarray", "nditer", "vectorize", "frompyfunc",
    "apply_along_axis", "apply_over_axes", "fromfunction", "piecewise", "from_dlpack",
    "shares_memory", "may_share_memory", "random", "asanyarray", "array", "asarray",
    "tofile", "frombuffer", "einsum_path",
})
#: NumPy modules with state, files or tools (never evaluated while compiling)
_NUMPY_EFFECT_MODULES = ("numpy.random", "numpy.lib._npyio_impl", "numpy.lib.npyio",
                         "numpy.lib.format", "numpy.testing", "numpy.f2py", "numpy.distutils",
                         "numpy.ctypeslib", "numpy._pytesttester", "numpy.lib._datasource")
_PURE_BUILTINS = frozenset({
    builtins.isinstance, builtins.issubclass, builtins.type, builtins.callable,
    builtins.dict, builtins.set, builtins.frozenset, builtins.sorted, builtins.any,
    builtins.all, builtins.enumerate, builtins.zip, builtins.reversed, builtins.str,
    builtins.repr, builtins.format, builtins.map, builtins.int, builtins.float,
    builtins.bool, builtins.tuple, builtins.list, builtins.len, builtins.min, builtins.max,
    builtins.sum, builtins.abs, builtins.round, builtins.divmod, builtins.range,
    builtins.pow, builtins.slice, builtins.ord, builtins.chr, builtins.bin,
    builtins.hex, builtins.oct,
    # imports by name: run while compiling, as import statements are (Python caches them)
    builtins.__import__, importlib.import_module,
    # dicts with a default or an order: containers like dict (their values are tracked
    # as a dict's are), built from static arguments
    collections.defaultdict, collections.OrderedDict,
})
#: builtins that read only the keys of a dict argument (``set(kwds)``): static where the
#: keys are, whatever the values
_OF_KEYS = frozenset({builtins.set, builtins.frozenset, builtins.list, builtins.tuple,
                      builtins.sorted, builtins.len})
#: callables that read their arguments' types and attributes but never call them: folded
#: even where an argument is a function (``isinstance(f, types.MethodType)``,
#: ``inspect.signature(f)`` in scipy.stats' ``_axis_nan_policy`` wrappers)
_INTROSPECTION = frozenset({
    builtins.isinstance, builtins.issubclass, builtins.type, builtins.callable,
    inspect.signature, inspect.getfullargspec, inspect.isfunction, inspect.ismethod,
    inspect.isclass, inspect.isbuiltin, inspect.isroutine, inspect.ismodule,
    inspect.iscoroutinefunction, inspect.isgeneratorfunction, inspect.isgenerator,
    inspect.isasyncgenfunction, inspect.iscode, inspect.getdoc,
    # reads without running descriptors; answered, not inlined: Python 3.12+ caches its
    # MRO walk with lru_cache over weak references, which compiled code cannot reproduce
    inspect.getattr_static,
})
#: non-mutating methods of builtin containers (str, tuple, int, float, bytes: all of them)
_PURE_METHODS = {
    dict: {"get", "keys", "values", "items", "copy", "__contains__", "__getitem__", "__len__"},
    types.MappingProxyType: {"get", "keys", "values", "items", "copy", "__contains__",
                             "__getitem__", "__len__"},  # inspect.Signature.parameters
    list: {"index", "count", "copy", "__contains__", "__getitem__", "__len__"},
    set: {"union", "intersection", "difference", "symmetric_difference", "issubset",
          "issuperset", "isdisjoint", "copy", "__contains__", "__len__"},
}
_IMMUTABLE_RECEIVERS = (str, bytes, tuple, int, float, frozenset, range, np.dtype, type,
                        np.generic)
#: methods that only move values: run even where arguments or items are runtime values
_MOVERS = {(dict, "get"), (dict, "copy"), (dict, "__getitem__"), (list, "copy")}
_IN_PLACE = ("add", "and", "concat", "floordiv", "lshift", "mod", "mul", "matmul", "or",
             "pow", "rshift", "sub", "truediv", "xor")
#: ``operator`` functions that write into their first argument
_OPERATOR_DENIED = frozenset({"setitem", "delitem", "__setitem__", "__delitem__"} |
                             {f"i{n}" for n in _IN_PLACE} | {f"__i{n}__" for n in _IN_PLACE})


def call(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any], e: cst.Call) -> Any:
    """The compile-time answer of a call, or ``NotImplemented`` for the other paths."""
    from .scope import BoundMethod, Closure  # noqa: PLC0415  (scope is imported by lower)

    if isinstance(fn, BoundMethod) and fn.name == "item" or fn is builtins.float and \
            args and isinstance(args[0], Node):
        # lowered as the value itself: from here on its Python type is not the node's
        receiver = fn.receiver if isinstance(fn, BoundMethod) else args[0]
        lw.retyped.add(receiver)
        return NotImplemented
    if isinstance(fn, BoundMethod):
        if fn.name in ("ravel", "flatten") and (args or kwargs):
            return Q.ravel(lw, fn.receiver, args, kwargs, e, f"ndarray.{fn.name}")
        return NotImplemented
    if fn is builtins.exec or fn is builtins.eval:  # passed through, the names it defines
        raise lw.fail(f"{fn.__name__}() of Python source is not supported: the compiler "
                      "reads code, it does not run it", e,  # would be missing
                      "build the object outside the differentiated function")
    if descriptors.is_descriptor_get(fn):  # inspect.getattr_static's reads
        return descriptors.descriptor_get(lw, fn, args, kwargs, e)
    if descriptors.is_object_getattribute(fn):
        return descriptors.object_getattribute(lw, args, kwargs, e)
    dynamic = holds_node(args) or holds_node(kwargs)
    if fn is builtins.getattr or fn is builtins.hasattr:
        return Q.attribute_query(lw, fn, args, kwargs, e)
    if fn is builtins.callable and len(args) == 1 and isinstance(args[0], (Closure,
                                                                           BoundMethod)):
        return True  # an inner def, a lambda, a method of an array
    if fn is np.ravel and (len(args) > 1 or kwargs):
        kwargs = dict(kwargs)
        x = args[0] if args else kwargs.pop("a", None)
        return Q.ravel(lw, x, args[1:], kwargs, e, "np.ravel")
    if dynamic:
        query = Q.query_name(fn)
        if query is not None:
            return Q.query(lw, fn, query, args, kwargs, e)
        if fn is builtins.max or fn is builtins.min or fn is builtins.sum:
            return Q.builtin_reduce(lw, fn, args, kwargs, e)
        if _in(_OF_KEYS, fn) and len(args) == 1 and not kwargs and \
                type(args[0]) is dict and not holds_node(list(args[0])):
            return evaluate(lw, fn, [dict.fromkeys(args[0])], {}, e)  # reads keys only
        owner = getattr(fn, "__self__", None)
        if (type(owner), getattr(fn, "__name__", "")) in _MOVERS and not holds_node(
                args[:1]):
            return evaluate(lw, fn, args, kwargs, e)
        return NotImplemented
    if pure(fn, args, kwargs):
        opened = _open_generators(lw, args, kwargs, e)
        if opened is None:
            return NotImplemented  # a generator of runtime values: the callee is inlined
        return fresh(lw, evaluate(lw, fn, *opened, e), e)
    if _transform(fn):  # st.grad(f) inside: its gradient object
        if any(_compiled(a) for a in [*args, *kwargs.values()]):
            raise lw.fail(f"st.{fn.__name__} of a function defined inside the "
                          "differentiated function is not supported", e,
                          "define that function at module level (or outside this one)")
        return evaluate(lw, fn, args, kwargs, e)
    return NotImplemented


#: st_autodiff's own transforms (``st.grad(f)(x)`` written inside a differentiated
#: function): building the transformed function only wraps ``f``, as a global
#: ``G = st.grad(f)`` does, and calling that object is the path such globals take
_TRANSFORMS = {"st_autodiff.api": frozenset({"grad", "value_and_grad"}),
               "st_autodiff.products": frozenset({"jacrev", "jacfwd", "jacobian", "hessian"})}


def _transform(fn: Any) -> bool:
    names = _TRANSFORMS.get(getattr(fn, "__module__", None) or "")
    return names is not None and isinstance(fn, types.FunctionType) and \
        fn.__name__ in names


def _open_generators(lw: Lowerer, args: list[Any], kwargs: dict[str, Any], e: cst.Call
                     ) -> tuple[list[Any], dict[str, Any]] | None:
    """The arguments with each generator (``np.indices(len(a) for a in arrays)``) replaced
    by an iterator over its items, consumed, for a call run now; None when a generator
    yields values known only at run time."""
    from .generators import GeneratorValue  # noqa: PLC0415  (generators import lowering)

    gens = [a for a in [*args, *kwargs.values()] if isinstance(a, GeneratorValue)]
    if not gens:
        return args, kwargs
    if any(not isinstance(g.items, list) or holds_node(g.items) for g in gens):
        return None
    direct = {id(a.value) for a in e.args}

    def opened(v: Any) -> Any:
        if not isinstance(v, GeneratorValue):
            return v
        return iter(list(lw.consume_generator(v, e, id(v.node) in direct)))

    return [opened(a) for a in args], {k: opened(v) for k, v in kwargs.items()}


def fresh(lw: Lowerer, value: Any, e: cst.Call) -> Any:
    """A folded result: arrays it made become constant nodes of this function, which it may
    write into (``I = np.identity(3); I[0, 0] = x``) as into any array it creates."""
    if isinstance(value, np.ndarray):
        return lw.to_node(value, e)
    if isinstance(value, (tuple, list)) and any(isinstance(v, np.ndarray) for v in value):
        return type(value)(fresh(lw, v, e) for v in value)
    return value


def _in(group: frozenset[Any], fn: Any) -> bool:
    try:
        return fn in group
    except TypeError:  # unhashable: not a builtin
        return False


def evaluate(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
              e: cst.Call) -> Any:
    """``fn(*args, **kwargs)`` now; what it raises becomes a located compile error."""
    from .static_stmts import static_exception  # noqa: PLC0415  (it imports lowering)

    try:
        return fn(*args, **kwargs)
    except Exception as exc:  # what Python would raise, at the user's call (a static
        raise static_exception(lw, exc, e) from None  # try may catch it)


def pure(fn: Any, args: list[Any], kwargs: dict[str, Any]) -> bool:
    """Whether ``fn`` may run at compile time on these static arguments: on the purity
    allowlist, with no callable argument it could call back and no ``out=``."""
    if _in(_INTROSPECTION, fn):
        return not any(_compiled(a) for a in [*args, *kwargs.values()])
    if "out" in kwargs or any(_calls_back(a) for a in [*args, *kwargs.values()]) or \
            makes_complex(fn):  # (refused where it is called, with the complex hint)
        return False
    if _runtime_state(fn):  # Polynomial(x)(0.7): an object built here, with runtime
        return False  # attributes (its class's module is NumPy's, its state is not static)
    if any(holds_runtime_state(a) for a in [*args, *kwargs.values()]):
        return False  # sum(obj), max(a, b), round(obj): they would run obj's methods here
    if isinstance(fn, np.ufunc):
        return True
    if _in(_PURE_BUILTINS, fn):
        return True
    owner = getattr(fn, "__self__", None)
    if isinstance(fn, (types.BuiltinMethodType, types.MethodWrapperType)) and \
            owner is not None and not isinstance(owner, types.ModuleType):
        return _pure_method(owner, fn.__name__)
    if isinstance(fn, (types.MethodDescriptorType, types.WrapperDescriptorType)):
        return _pure_method_of_class(fn.__objclass__, fn.__name__)
    module = getattr(fn, "__module__", None) or ""
    if isinstance(fn, type) and not issubclass(fn, (np.generic, np.dtype, np.finfo,
                                                    np.iinfo)):
        return False  # building other objects runs their __init__
    if module == "math":
        return True
    if module == "operator" or module == "_operator":
        return getattr(fn, "__name__", "") not in _OPERATOR_DENIED
    if module == "numpy" or module.startswith("numpy.") and not module.startswith(
            _NUMPY_EFFECT_MODULES):
        name = getattr(fn, "__name__", "")
        return name not in _NUMPY_DENIED and id(fn) not in calls.FUNCTIONS
    return False


def holds_runtime_state(v: Any) -> bool:
    """Whether ``v`` is, or a list, tuple or dict of ``v`` holds, an object whose
    attributes hold values known only at run time: a builtin given it would call the
    object's Python methods (``__iter__``, ``__lt__``, a property) on their markers."""
    if isinstance(v, (list, tuple)):
        return any(holds_runtime_state(x) for x in v)
    if isinstance(v, dict):
        return any(holds_runtime_state(x) for x in v.values())
    return not isinstance(v, (types.FunctionType, type)) and _runtime_state(v)


def _runtime_state(fn: Any) -> bool:
    """A callable object whose attributes hold values known only at run time."""
    from .objects import RUNTIME, holds_runtime  # noqa: PLC0415  (objects imports lowering)

    if isinstance(fn, types.MethodType):  # Polynomial(x).deriv(): its receiver's state
        return _runtime_state(fn.__self__)
    state = getattr(fn, "__dict__", None)
    if isinstance(fn, (types.FunctionType, types.BuiltinFunctionType, type)) or \
            not isinstance(state, dict):
        return False
    return any(v is RUNTIME or holds_runtime(v) for v in state.values())


def _pure_method(owner: Any, name: str) -> bool:
    if isinstance(owner, _IMMUTABLE_RECEIVERS):
        return True
    return _pure_method_of_class(type(owner), name)


def _pure_method_of_class(cls: type, name: str) -> bool:
    if issubclass(cls, _IMMUTABLE_RECEIVERS):
        return True
    return any(issubclass(cls, k) and name in names for k, names in _PURE_METHODS.items())


def _compiled(v: Any) -> bool:
    """A function the compiler made (an inner ``def``, a method of an array): Python's
    introspection of it would read the compiler's object, not the user's function."""
    from .scope import BoundMethod, Closure  # noqa: PLC0415

    if isinstance(v, (Closure, BoundMethod)):
        return True
    return isinstance(v, (tuple, list)) and any(_compiled(x) for x in v)


def _calls_back(v: Any) -> bool:
    """A function among the arguments (``map(f, xs)``, ``sorted(key=f)``): only pure ones."""
    from .scope import BoundMethod, Closure  # noqa: PLC0415

    if isinstance(v, (Closure, BoundMethod)):
        return True
    if isinstance(v, (tuple, list)):
        return any(_calls_back(x) for x in v)
    if isinstance(v, type) or not callable(v):
        return False
    return not pure(v, [], {})


#: NumPy spellings that mean the same op here (``asanyarray`` keeps ndarray subclasses,
#: which the compiler does not make; ``_array_converter`` and ``broadcast`` are C code)
ALIASES: dict[int, Any] = {id(np.asanyarray): np.asarray}
ALIASES[id(np.broadcast)] = Broadcast  # C classes as Python the compiler reads
if NUMPY_CONVERTER is not None:
    ALIASES[id(NUMPY_CONVERTER)] = ArrayConverter


def alias(fn: Any) -> Any:
    """The callable that ``fn`` behaves as for the compiler."""
    try:
        return ALIASES.get(id(fn), fn)
    except TypeError:
        return fn
