"""``obj.__dict__`` of an object built inside the differentiated code.

Library constructors write their attributes through the instance dict:
``self.__dict__['coeffs'] = c`` (NumPy's ``poly1d``), ``self.__dict__.update(kwargs)``
(statsmodels' model data).  For an instance made in this compile that dict is the
object's own (it never reaches the user), so each write is an attribute write, lowered
as ``object.__setattr__`` is (runtime values go to the shadow mapping, writes inside a
branch or loop taken at run time are refused).  Reads resolve as attribute reads do,
without the descriptors of the class (a dict holds only the instance's own entries).

The real ``__dict__`` of an object that outlives the call stays a refused external dict.
"""

from __future__ import annotations

from typing import Any, cast

import libcst as cst

from ..errors import CompileError


class InstanceDict:
    """The ``__dict__`` of a built instance, as the lowering reads and writes it."""

    def __init__(self, lw: Any, obj: Any, e: cst.CSTNode) -> None:
        self.lw, self.obj, self.e = lw, obj, e

    def _own(self) -> dict[str, Any]:
        return cast("dict[str, Any]", object.__getattribute__(self.obj, "__dict__"))

    def _runtime(self) -> dict[str, Any]:
        return cast("dict[str, Any]", self.lw.built_of(self.obj).runtime)

    def set(self, key: Any, value: Any, e: cst.CSTNode) -> None:
        """``obj.__dict__[key] = value``: an attribute write without the class's setter."""
        if not isinstance(key, str):
            raise self.lw.fail(f"an instance dict key must be a string here, not {key!r}", e,
                               kind=CompileError)
        from .objects import RUNTIME, holds_runtime  # noqa: PLC0415  (objects imports us)

        rec = self.lw.built_of(self.obj)
        if self.lw.b is not rec.builder:
            raise self.lw.fail(f"the attribute {key!r} of a {type(self.obj).__qualname__} is "
                               "set inside a loop, or a branch taken at run time; attributes "
                               "of objects are not carried through loops and branches", e,
                               "compute the value in a local variable and set the attribute "
                               "after the loop or branch")
        own = self._own()  # the dict itself: a property of the class is not run
        if holds_runtime(value):
            rec.runtime[key] = value
            own[key] = RUNTIME
        else:
            rec.runtime.pop(key, None)
            own[key] = value

    def __getitem__(self, key: Any) -> Any:
        runtime = self._runtime()
        if key in runtime:
            return runtime[key]
        return self._own()[key]  # KeyError as Python raises it

    def __contains__(self, key: Any) -> bool:
        return key in self._own()

    def __iter__(self) -> Any:
        return iter(list(self._own()))

    def __len__(self) -> int:
        return len(self._own())

    def get(self, key: Any, default: Any = None) -> Any:
        return self[key] if key in self else default

    def keys(self) -> list[str]:
        return list(self._own())

    def values(self) -> list[Any]:
        return [self[k] for k in self._own()]

    def items(self) -> list[tuple[str, Any]]:
        return [(k, self[k]) for k in self._own()]

    def update(self, *args: Any, **kwargs: Any) -> None:
        """Lowered by ``call`` (the write needs the user's line)."""
        raise NotImplementedError

    def setdefault(self, *args: Any) -> Any:
        """Lowered by ``call``."""
        raise NotImplementedError

    def pop(self, *args: Any) -> Any:
        """Lowered by ``call``."""
        raise NotImplementedError

    def _pop(self, args: list[Any], e: cst.CSTNode) -> Any:
        """``obj.__dict__.pop(key[, default])``: the attribute's value, and it is gone."""
        key = args[0]
        if key not in self:
            if len(args) == 2:
                return args[1]
            raise self.lw.fail(f"KeyError: {key!r}", e, kind=CompileError)
        rec = self.lw.built_of(self.obj)
        if self.lw.b is not rec.builder:
            raise self.lw.fail(f"the attribute {key!r} of a {type(self.obj).__qualname__} is "
                               "removed inside a loop, or a branch taken at run time", e,
                               "remove it after the loop or branch")
        value = self[key]
        rec.runtime.pop(key, None)
        del self._own()[key]
        return value

    def call(self, name: str, args: list[Any], kwargs: dict[str, Any], e: cst.CSTNode) -> Any:
        """A method call on the instance dict (``update``, ``setdefault`` write through
        ``set``; the reads above run as Python runs them)."""
        if name == "update":
            if len(args) > 1:
                raise self.lw.fail("update expected at most 1 argument", e, kind=CompileError)
            pairs = list(dict(*args).items()) if args else []
            for k, v in [*pairs, *kwargs.items()]:
                self.set(k, v, e)
            return None
        if name == "setdefault" and 1 <= len(args) <= 2 and not kwargs:
            if args[0] not in self:
                self.set(args[0], args[1] if len(args) == 2 else None, e)
            return self[args[0]]
        if name == "pop" and 1 <= len(args) <= 2 and not kwargs:
            return self._pop(args, e)
        if name in ("get", "keys", "values", "items", "__contains__", "__getitem__"):
            try:
                return getattr(self, name)(*args, **kwargs)
            except Exception as exc:
                raise self.lw.fail(f"{type(exc).__name__}: {exc}", e,
                                   kind=CompileError) from None
        raise self.lw.fail(f"the instance dict method {name!r} is not supported", e)
