"""``descr.__get__(obj)`` of a slot or getset descriptor of a builtin class, the way
``inspect.getattr_static`` reads through the class (``type.__dict__['__mro__'].__get__(k)``).

Such a read depends on the object only through its type where the type is not the
descriptor's class (Python's ``TypeError``, which a ``try`` around it may catch), and is a
plain read of a static object otherwise: both are answered while compiling.  A runtime value
of the descriptor's class itself (rare: ``ndarray`` getsets such as ``.flags``) keeps its
other paths."""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

import libcst as cst
import numpy as np

from ..ir.graph import Node
from ..ir.ops import Op

if TYPE_CHECKING:
    from .lower import Lowerer

#: the Python types a runtime value of each kind may have
PYTHON_TYPES: dict[str, tuple[type, ...]] = {
    "array": (np.ndarray, np.generic), "float": (float, np.generic), "int": (int, np.generic),
    "bool": (bool, np.generic), "tuple": (tuple,), "list": (list,), "none": (type(None),)}


def is_descriptor_get(fn: Any) -> bool:
    """Whether ``fn`` is the bound ``__get__`` of a member or getset descriptor."""
    return isinstance(fn, types.MethodWrapperType) and fn.__name__ == "__get__" and \
        isinstance(fn.__self__, (types.MemberDescriptorType, types.GetSetDescriptorType))


def descriptor_get(lw: Lowerer, fn: Any, args: list[Any], kwargs: dict[str, Any],
                   e: cst.Call) -> Any:
    """Python's answer of ``descr.__get__(obj[, owner])``, or ``NotImplemented``."""
    from .static_calls import evaluate, fresh  # noqa: PLC0415  (it imports this module)
    from .static_stmts import static_exception  # noqa: PLC0415

    if kwargs or not 1 <= len(args) <= 2:
        return NotImplemented
    descr = fn.__self__
    obj = args[0]
    if isinstance(obj, Node) and obj.op is Op.CONST:
        obj = obj.param("value")  # a global array: that very array
    if any(isinstance(a, Node) for a in args[1:]):
        return NotImplemented
    if not isinstance(obj, Node):
        value = evaluate(lw, fn, [obj, *args[1:]], kwargs, e)
        if obj is not None and not isinstance(obj, (type, np.ndarray, np.generic)):
            lw.guards.attribute_read(obj, descr.__name__, value)  # a mutable object's slot
        return fresh(lw, value, e)
    kinds = PYTHON_TYPES.get(obj.type.kind) if obj.type is not None else None
    if kinds is None or any(issubclass(k, descr.__objclass__) for k in kinds):
        return NotImplemented
    raise static_exception(lw, TypeError(
        f"descriptor '{descr.__name__}' for '{descr.__objclass__.__name__}' objects doesn't "
        f"apply to a '{kinds[0].__name__}' object"), e)


def is_object_getattribute(fn: Any) -> bool:
    """Whether ``fn`` is ``object.__getattribute__`` (the slot wrapper itself)."""
    return fn is object.__getattribute__


def object_getattribute(lw: Lowerer, args: list[Any], kwargs: dict[str, Any],
                        e: cst.Call) -> Any:
    """``object.__getattribute__(obj, name)``: evaluated on a static object; on a runtime
    value, ``__dict__`` is Python's ``AttributeError`` (arrays, NumPy scalars, numbers,
    tuples and lists have none); other names keep their other paths."""
    from .static_calls import evaluate, fresh  # noqa: PLC0415
    from .static_stmts import static_exception  # noqa: PLC0415

    if kwargs or len(args) != 2 or isinstance(args[1], Node):
        return NotImplemented
    obj, name = args
    if isinstance(obj, Node) and obj.op is Op.CONST:
        obj = obj.param("value")
    if not isinstance(obj, Node):
        value = evaluate(lw, object.__getattribute__, [obj, name], {}, e)
        if not isinstance(obj, (type, np.ndarray, np.generic, types.ModuleType)):
            lw.guards.attribute_read(obj, name, value)
        return fresh(lw, value, e)
    kinds = PYTHON_TYPES.get(obj.type.kind) if obj.type is not None else None
    if name != "__dict__" or kinds is None:
        return NotImplemented
    raise static_exception(lw, AttributeError(
        f"'{kinds[0].__name__}' object has no attribute '__dict__'"), e)
