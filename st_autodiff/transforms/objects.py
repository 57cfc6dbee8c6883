"""Objects built inside the differentiated code: ``LinearModel(W, b)``, ``links.Logit()``.

Calling a class whose instances Python creates with plain ``object.__new__`` makes a
fresh instance for this compile (it never reaches the user) and inlines ``__init__``
with ``self`` bound to it (a dataclass's generated ``__init__`` is bound from its
fields; then ``__post_init__`` is inlined).  An attribute WRITE of a value known when
compiling is set on the instance; a write of a runtime value (a node, or a container
holding one) is kept in a shadow mapping, which reads consult first (the instance holds
a marker there, so that compile-time code sees the attribute exist but cannot use it).
Reads that reach the class are resolved without running anything: methods bind to the
instance, properties (and ``functools.cached_property``) inline their getter, a
property's setter is inlined on a write.  ``super()`` in such methods is Python's own
``super`` over the instance, its attributes resolved the same way.

A class whose instances are made by C code (``__new__`` or ``__init__`` not written in
Python) is built when compiling only if it is on a purity allowlist and every argument
is known when compiling; otherwise it is a located refusal naming the class.  Writes of
an object's attributes inside a branch or loop that runs at run time are refused (the
write would happen on one path only).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import threading
import types
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import libcst as cst
import numpy as np

from ..errors import CompileError, NoRuleError
from ..ir.graph import GraphBuilder, Node
from ..ir.types import type_module
from . import generator_contexts
from .instance_dict import InstanceDict

if TYPE_CHECKING:
    from .lower import Lowerer
    from .lowering_api import LowererAPI
else:
    LowererAPI = object  # the shared interface exists for the type checker only

#: classes implemented in C that are safe to build when compiling from static arguments
#: (and exceptions, which ``raise`` builds)
_PURE_CLASSES: frozenset[type] = frozenset({
    np.dtype, slice, range, frozenset, set, bytes, np.finfo, np.iinfo,
})


class RuntimeAttributeUse(TypeError):
    """A marker of a runtime attribute was used by Python code running while compiling
    (a user's ``__eq__`` called by ``in``, ``set()``, ``list.count``): that code needs the
    value, which only the compiled code has."""


def _refuse_use(self: Any, *args: Any) -> Any:
    raise RuntimeAttributeUse("an attribute computed at run time was used while compiling")


class _RuntimeAttribute:
    """Marker set on a built instance where the attribute's value is a runtime value:
    compile-time code sees that the attribute exists, but any use of it fails, loudly:
    comparing, hashing, arithmetic, indexing, iterating, converting it (NumPy too) raise
    ``RuntimeAttributeUse``, so a user's method run on it while compiling (``__eq__``
    through ``obj in [...]``) cannot compute a wrong answer from the marker itself."""

    def __array_ufunc__(self, *args: Any, **kwargs: Any) -> Any:  # np.sum(marker) ...
        return _refuse_use(self)

    def __repr__(self) -> str:
        return "<value known only at run time>"

    def __bool__(self) -> bool:
        raise RuntimeAttributeUse("an attribute computed at run time has no truth value "
                                  "when compiling")

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse_use
    __hash__ = _refuse_use
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _refuse_use
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = _refuse_use
    __mod__ = __rmod__ = __pow__ = __rpow__ = __matmul__ = __rmatmul__ = _refuse_use
    __neg__ = __pos__ = __abs__ = __invert__ = _refuse_use
    __getitem__ = __iter__ = __len__ = __contains__ = __call__ = _refuse_use
    __float__ = __int__ = __index__ = __complex__ = __array__ = _refuse_use


RUNTIME = _RuntimeAttribute()


@dataclass(eq=False)
class Built:
    """One instance built while lowering: the builder it was built in and the attributes
    whose values are runtime values."""

    obj: Any
    builder: GraphBuilder
    runtime: dict[str, Any] = field(default_factory=dict)


class ObjectLowering(LowererAPI):
    """Constructed objects for ``lower.Lowerer`` (see the module docstring)."""

    @property
    def built(self) -> dict[int, Built]:
        table = self.__dict__.get("_built")
        if table is None:
            table = self.__dict__["_built"] = {}
        return table

    def built_of(self, obj: Any) -> Built | None:
        """The ``Built`` record of an instance made in this compile, else None."""
        rec = self.built.get(id(obj))
        return rec if rec is not None and rec.obj is obj else None

    # --- construction -------------------------------------------------------------------

    def construct(self, cls: type, args: list[Any], kwargs: dict[str, Any],
                  e: cst.Call) -> Any:
        """``cls(*args, **kwargs)`` in the differentiated code."""
        name = f"{cls.__module__}.{cls.__qualname__}"
        static = not any(holds_runtime(v) for v in [*args, *kwargs.values()])
        if static and (cls in _PURE_CLASSES or issubclass(cls, BaseException)) or \
                plain_namedtuple(cls):  # a tuple of its arguments: holds nodes as tuples do
            try:
                return cls(*args, **kwargs)
            except Exception as exc:
                raise self.fail(f"{type(exc).__name__}: {exc}", e, kind=CompileError) from None
        if cls is dict:  # a Python container: its values may be runtime values
            try:
                out = dict(*args, **kwargs)
            except Exception as exc:
                raise self.fail(f"{type(exc).__name__}: {exc}", e, kind=CompileError) from None
            if any(holds_runtime(k) for k in out):
                raise self.fail("dict keys must be known when compiling", e,
                                kind=CompileError)
            return out
        init = _class_lookup(cls, "__init__")
        if _made_by_c(cls):
            raise NoRuleError(
                f"cannot build a {name} in the differentiated code: the class is created "
                "by code that is not Python the compiler reads (a C __new__ or __init__, a "
                "metaclass or a custom __setattr__)", self.loc(e),
                "build the object outside the function and pass it in or close over it")
        try:
            obj: Any = object.__new__(cls)
        except TypeError as exc:  # abstract classes
            raise self.fail(f"TypeError: {exc}", e, kind=CompileError) from None
        rec = Built(obj, self.b)
        self.built[id(obj)] = rec
        if dataclasses.is_dataclass(cls) and _generated(init):
            self._dataclass_init(obj, args, kwargs, e)
        elif isinstance(init, types.FunctionType):
            result = self.inline_python(init, [obj, *args], kwargs, e)
            if result is not None:
                raise self.fail(f"__init__() of {name} should return None", e,
                                kind=CompileError)
        elif args or kwargs:
            raise self.fail(f"{cls.__qualname__}() takes no arguments", e, kind=CompileError)
        return obj

    def _dataclass_init(self, obj: Any, args: list[Any], kwargs: dict[str, Any],
                        e: cst.Call) -> None:
        """A dataclass's generated ``__init__`` (built by ``exec``, without source), run
        as it is written: fields bound as the signature binds them, then
        ``__post_init__`` with the ``InitVar`` values."""
        cls = type(obj)
        try:
            bound = inspect.signature(cls).bind(*args, **kwargs)
        except TypeError as exc:
            raise self.fail(f"{cls.__qualname__}() {exc}", e, kind=CompileError) from None
        init_vars: list[Any] = []
        for f in _all_fields(cls):
            if f._field_type is dataclasses._FIELD_CLASSVAR:  # type: ignore[attr-defined]  # dataclasses internals
                continue
            if f.init and f.name in bound.arguments:
                value = bound.arguments[f.name]
            elif f.default is not dataclasses.MISSING:
                value = f.default
            elif f.default_factory is not dataclasses.MISSING:
                value = self.call(f.default_factory, [], {}, e)
            elif not f.init:
                continue
            else:
                raise self.fail(f"{cls.__qualname__}() missing argument {f.name!r}", e,
                                kind=CompileError)
            if f._field_type is dataclasses._FIELD_INITVAR:  # type: ignore[attr-defined]  # dataclasses internals
                init_vars.append(value)
            else:
                self.set_attribute(obj, f.name, value, e, through_setter=False)
        post = _class_lookup(cls, "__post_init__")
        if isinstance(post, types.FunctionType):
            self.inline_python(post, [obj, *init_vars], {}, e)
        elif post is not None:
            raise self.fail(f"__post_init__ of {cls.__qualname__} is not a Python function",
                            e)

    # --- attributes ---------------------------------------------------------------------

    def object_attribute(self, base: Any, attr: str, e: cst.CSTNode) -> Any:
        """``base.attr`` where ``base`` is a built instance or ``super()`` over one."""
        if isinstance(base, super):
            obj, start = base.__self__, base.__thisclass__  # type: ignore[attr-defined]  # not in typeshed
        else:
            obj, start = base, None
        rec = self.built_of(obj)
        assert rec is not None
        if start is None:
            if attr in rec.runtime and not _shadowed(type(obj), attr):
                return rec.runtime[attr]
            if attr == "__class__":
                return type(obj)
            if attr == "__dict__" and hasattr(obj, "__dict__"):
                return InstanceDict(self, obj, e)  # writes become attribute writes
            try:
                own = object.__getattribute__(obj, "__dict__")
            except AttributeError:
                own = {}
        else:
            own = {}
        found, owner = _mro_lookup(type(obj), attr, start)
        if owner is not None and _is_data_descriptor(found) or attr not in own:
            if owner is None:
                slot = _slot_value(obj, attr)
                if slot is not _NOTHING:
                    return self.const_of_global(attr, slot)
                if _class_lookup(type(obj), "__getattr__") is not None:
                    raise self.fail(f"{type(obj).__name__} object has no attribute {attr!r} "
                                    "and its class defines __getattr__, which the compiler "
                                    "does not run", e)
                raise self.fail(f"{type(obj).__name__} object has no attribute {attr!r}", e,
                                kind=CompileError)
            return self._descriptor(obj, attr, found, owner, e)
        value = own[attr]
        if type(value) in (list, dict) and not self.external.holds(value):
            return value  # a container the compile made and stored on its own object
        return self.const_of_global(attr, value)

    def _descriptor(self, obj: Any, attr: str, found: Any, owner: type,
                    e: cst.CSTNode) -> Any:
        """A class attribute read through a built instance, without running its code."""
        if isinstance(found, types.FunctionType):
            return types.MethodType(found, obj)
        if found is object.__init__:  # super().__init__() reaching object
            return types.MethodType(_object_init, obj)
        if isinstance(found, staticmethod):
            return found.__func__
        if isinstance(found, classmethod):
            return types.MethodType(found.__func__, type(obj))
        if isinstance(found, property):
            if not isinstance(found.fget, types.FunctionType):
                raise self.fail(f"the property {attr!r} of {type(obj).__qualname__} has no "
                                "Python getter", e)
            return self.inline_python(found.fget, [obj], {}, e)
        if isinstance(found, functools.cached_property):
            return self.inline_python(cast(types.FunctionType, found.func), [obj], {}, e)
        if isinstance(found, (types.MemberDescriptorType, types.GetSetDescriptorType)):
            try:
                return self.const_of_global(attr, found.__get__(obj, type(obj)))
            except AttributeError:
                raise self.fail(f"{type(obj).__name__} object has no attribute {attr!r}", e,
                                kind=CompileError) from None
        if hasattr(type(found), "__get__") and not isinstance(
                found, (types.BuiltinFunctionType, type)):
            raise self.fail(f"the attribute {attr!r} of {type(obj).__qualname__} is a "
                            f"{type(found).__name__} descriptor, which the compiler does "
                            "not read", e)
        return self.static_attribute(owner, attr)

    def set_attribute(self, obj: Any, attr: str, value: Any, e: cst.CSTNode,
                      through_setter: bool = True) -> None:
        """``obj.attr = value`` on a built instance (static values on the instance,
        runtime values in the shadow mapping)."""
        rec = self.built_of(obj)
        if rec is None and generator_contexts.first_local_write(cast("Lowerer", self), obj, attr,
                                                                value, e):
            return  # a thread-local cache filled on first use (generator_contexts)
        if rec is None:
            raise self.fail("attribute writes are supported only on objects built inside "
                            "the differentiated code", e, "compute a new value instead",
                            kind=CompileError)
        if self.b is not rec.builder:
            raise self.fail(f"the attribute {attr!r} of a {type(obj).__qualname__} is set "
                            "inside a loop, or a branch taken at run time; attributes of "
                            "objects are not carried through loops and branches", e,
                            "compute the value in a local variable and set the attribute "
                            "after the loop or branch")
        if through_setter and not _plain_setattr(type(obj)):
            raise self.fail(f"cannot assign to field {attr!r}: {type(obj).__qualname__} is a "
                            "frozen dataclass (FrozenInstanceError)", e, kind=CompileError)
        if through_setter:
            found, owner = _mro_lookup(type(obj), attr, None)
            if isinstance(found, property):
                if not isinstance(found.fset, types.FunctionType):
                    raise self.fail(f"the property {attr!r} of {type(obj).__qualname__} "
                                    "cannot be set", e, kind=CompileError)
                self.inline_python(found.fset, [obj, value], {}, e)
                return
            if owner is not None and _is_data_descriptor(found) and not isinstance(
                    found, types.MemberDescriptorType):
                raise self.fail(f"the attribute {attr!r} of {type(obj).__qualname__} is a "
                                f"{type(found).__name__} descriptor, which the compiler "
                                "does not write", e)
        if holds_runtime(value):
            rec.runtime[attr] = value
            object.__setattr__(obj, attr, RUNTIME)
        else:
            rec.runtime.pop(attr, None)
            object.__setattr__(obj, attr, value)

    def attribute_target(self, target: cst.Attribute, scope: Any) -> Any:
        """The object of an attribute assignment target (refused unless built here)."""
        base = self.expr(target.value, scope)
        if self.built_of(base) is None and not isinstance(base, threading.local):
            raise self.fail("assignment to an attribute is supported only on objects built "
                            "inside the differentiated code", target,
                            "compute a new value instead")
        return base

    def aug_assign_attribute(self, target: cst.Attribute, op: Any, value: cst.BaseExpression,
                             scope: Any, where: cst.CSTNode) -> None:
        """``obj.attr += v`` on a built instance: numbers are rebound (``self.n += 1``);
        an array attribute would be written in place, which is refused."""
        obj = self.attribute_target(target, scope)
        attr = target.attr.value
        current = self.object_attribute(obj, attr, target)
        t = current.type if isinstance(current, Node) else None
        if isinstance(current, np.ndarray) or t is not None and (
                t.kind == "array" and t.shape != ()) or t is None and isinstance(current, Node):
            raise self.fail(f"in-place update of the array attribute {attr!r}", where,
                            f"write self.{attr} = self.{attr} {'+'} ... to make a new array")
        rhs = self.expr(value, scope)
        if isinstance(current, (list, tuple)):
            raise self.fail(f"in-place update of the sequence attribute {attr!r}", where,
                            "build a new list and assign it")
        self.set_attribute(obj, attr, self.binary(op, current, rhs, where), target)

    def call_special(self, fn: Any, args: list[Any], kwargs: dict[str, Any],
                     e: cst.Call) -> Any:
        """``super()``, ``object.__setattr__(self, ...)``, ``getattr`` on a built instance
        and calls of callable objects; NotImplemented for other calls."""
        if fn is super:
            return self._super(args, e)
        if fn is object.__setattr__ and len(args) == 3 and not kwargs and \
                self.built_of(args[0]) is not None and isinstance(args[1], str):
            self.set_attribute(args[0], args[1], args[2], e, through_setter=False)
            return None
        if fn is map and len(args) >= 2 and not kwargs:  # consumed at once: calls in order
            columns = [self.star_items(a, e) for a in args[1:]]
            return [self.call(args[0], list(row), {}, e)
                    for row in zip(*columns)]
        owner = getattr(fn, "__self__", None)
        if isinstance(owner, InstanceDict):
            return owner.call(fn.__name__, args, kwargs, e)
        if isinstance(fn, types.BuiltinMethodType) and type(owner) is np.ndarray:
            from .dispatch import array_method  # noqa: PLC0415  (dispatch imports us)

            done = array_method(cast("Lowerer", self), owner, fn.__name__, args, kwargs, e)
            if done is not NotImplemented:  # a method of a constant array: its op
                return done
        if isinstance(fn, types.BuiltinMethodType) and type(owner) in (dict, list, tuple) \
                and fn.__name__ in _READ_METHODS.get(type(owner), ()):
            if fn.__name__ == "update":
                self.external.check_write(owner, "write into",
                                          self.loc(e))
            try:  # reads of a Python container (its items may be runtime values)
                return fn(*args, **kwargs)
            except Exception as exc:
                raise self.fail(f"{type(exc).__name__}: {exc}", e, kind=CompileError) from None
        if fn is setattr and len(args) == 3 and not kwargs and isinstance(args[1], str) and \
                self.built_of(args[0]) is not None:
            self.set_attribute(args[0], args[1], args[2], e)  # as ``obj.name = value``
            return None
        if fn is getattr and args and self.built_of(args[0]) is not None and \
                len(args) in (2, 3) and isinstance(args[1], str):
            try:
                return self.object_attribute(args[0], args[1], e)
            except CompileError:
                if len(args) == 3 and not _has_attribute(args[0], args[1]):
                    return args[2]
                raise
        return NotImplemented

    def _super(self, args: list[Any], e: cst.CSTNode) -> Any:
        """``super()`` (the class from the method's ``__class__`` cell, the instance from
        its first parameter) and ``super(C, obj)``."""
        if len(args) == 2:
            return super(args[0], args[1])
        if args:
            raise self.fail("super() takes zero or two arguments here", e, kind=CompileError)
        fn = self.fn
        scope = self.active_scopes[-1] if self.active_scopes else None
        if scope is None or not fn.positional:
            raise self.fail("super(): no arguments", e, kind=CompileError)
        try:
            cls = scope.lookup("__class__")
            first = scope.lookup(fn.positional[0].name.value)
        except KeyError:
            raise self.fail("super(): __class__ cell not found", e, kind=CompileError) from None
        try:
            return super(cls, first)
        except TypeError as exc:
            raise self.fail(f"TypeError: {exc}", e, kind=CompileError) from None


_NOTHING = object()
#: methods of Python containers that read them, and dict.update of a dict that does not
#: outlive the call (called as Python calls them)
_READ_METHODS: dict[type, tuple[str, ...]] = {
    dict: ("get", "keys", "values", "items", "copy", "update"),
    list: ("index", "count", "copy"), tuple: ("index", "count")}


def _object_init(self: Any) -> None:
    """``object.__init__`` as the compiler reads it (it takes no arguments)."""
    return None


def _made_by_c(cls: type) -> bool:
    """Whether building a ``cls`` runs code the compiler does not read (a C ``__new__``
    or ``__init__``, a metaclass ``__call__``, a custom ``__setattr__``)."""
    init = _class_lookup(cls, "__init__")
    python_init = isinstance(init, types.FunctionType) or init is object.__init__
    return (type(cls).__call__ is not type.__call__
            or cls.__new__ is not object.__new__  # type: ignore[comparison-overlap]  # slot functions compared by identity
            or not python_init or not _plain_setattr(cls) and not _frozen_dataclass(cls))


def plain_namedtuple(cls: type) -> bool:
    """A ``collections.namedtuple``/``typing.NamedTuple`` class whose instances its generated
    ``__new__`` makes (a tuple of the arguments, nothing run): built as Python builds it."""
    new = getattr(cls, "__new__", None)
    return issubclass(cls, tuple) and hasattr(cls, "_fields") and \
        cls.__init__ is object.__init__ and isinstance(new, types.FunctionType) and \
        (new.__doc__ or "").startswith("Create new instance of ")


def opaque_class(cls: type) -> bool:
    """A class whose instances the compiler cannot build by reading code (see
    ``_made_by_c``) and does not build at compile time either: calls to it are passed
    through (``effects.unknown_call``), so activity decides whether that is an error."""
    return _made_by_c(cls) and cls not in _PURE_CLASSES and cls is not dict and \
        not issubclass(cls, BaseException) and not plain_namedtuple(cls)


def holds_runtime(v: Any) -> bool:
    """Whether ``v`` is or holds a value known only at run time (a node, or an object of
    the lowering such as a closure)."""
    if isinstance(v, Node):
        return True
    if isinstance(v, (list, tuple)):
        return any(holds_runtime(x) for x in v)
    if isinstance(v, dict):
        return any(holds_runtime(x) for x in v.values())
    return type_module(v).startswith("st_autodiff.transforms")


def _shadowed(cls: type, attr: str) -> bool:
    """Whether a data descriptor of ``cls`` other than a slot (a property) takes
    ``obj.attr`` before the instance dict (a value written through ``obj.__dict__``)."""
    found, owner = _mro_lookup(cls, attr, None)
    return owner is not None and _is_data_descriptor(found) and \
        not isinstance(found, types.MemberDescriptorType)


def _plain_setattr(cls: type) -> bool:
    return _class_lookup(cls, "__setattr__") is object.__setattr__


def _frozen_dataclass(cls: type) -> bool:
    params = getattr(cls, "__dataclass_params__", None)
    return bool(params is not None and params.frozen and
                _generated(_class_lookup(cls, "__setattr__")))


def _class_lookup(cls: type, attr: str) -> Any:
    for klass in cls.__mro__:
        if attr in klass.__dict__:
            return klass.__dict__[attr]
    return None


def _mro_lookup(cls: type, attr: str, after: type | None) -> tuple[Any, type | None]:
    """The class attribute ``attr`` (and its owner) along ``cls``'s MRO, starting after
    ``after`` (``super``)."""
    mro = cls.__mro__
    if after is not None:
        mro = mro[mro.index(after) + 1:] if after in mro else ()
    for klass in mro:
        if attr in klass.__dict__:
            return klass.__dict__[attr], klass
    return None, None


def _is_data_descriptor(v: Any) -> bool:
    t = type(v)
    return hasattr(t, "__set__") or hasattr(t, "__delete__")


def _slot_value(obj: Any, attr: str) -> Any:
    try:
        return object.__getattribute__(obj, attr)
    except AttributeError:
        return _NOTHING


def _has_attribute(obj: Any, attr: str) -> bool:
    try:
        object.__getattribute__(obj, attr)
    except AttributeError:
        return False
    return True


def _generated(init: Any) -> bool:
    """Whether a dataclass ``__init__`` is the one ``dataclasses`` generated (by exec)."""
    return isinstance(init, types.FunctionType) and init.__code__.co_filename == "<string>"


def _all_fields(cls: type) -> list[Any]:
    """Every field of a dataclass, ``InitVar`` pseudo-fields included, in order."""
    return list(getattr(cls, dataclasses._FIELDS).values())  # type: ignore[attr-defined]  # dataclasses internals
