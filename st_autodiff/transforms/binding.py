"""Binding a call's arguments to a function's parameters, as Python binds them.

A mixin of ``Lowerer``: ``bind_arguments`` (positional-only, keyword-only, defaults,
``*args`` as a tuple, ``**kwargs`` as a dict with the call's keys; Python's ``TypeError``
wording, located at the call) and ``call_arguments`` (``*xs`` and ``**d`` in calls,
expanded where their length and keys are known when compiling).
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any, cast

import libcst as cst

from ..errors import CompileError
from ..ir.graph import Node
from .parse import ParsedFunction
from .scope import Scope

if TYPE_CHECKING:
    from .lowering_api import LowererAPI
else:
    LowererAPI = object  # the shared interface exists for the type checker only


class BindingLowering(LowererAPI):
    """Argument binding for the lowerer (see the module docstring); its methods use the
    ``Lowerer``'s ``fail``, ``expr``, ``example``, ``unpack`` and ``fn_stack``."""

    def bind_arguments(self, fn: ParsedFunction, args: list[Any], kwargs: dict[str, Any],
                       scope: Scope, where: cst.CSTNode | None) -> dict[str, Any]:
        """Python's binding of a call's arguments to ``fn``'s parameters (every kind):
        positional-only ones only by position, ``*args`` a tuple of the extra positional
        values, keyword-only ones only by name, ``**kwargs`` a dict of the extra keywords,
        defaults for the rest; Python's ``TypeError`` as a located error."""
        ps = fn.node.params
        at = where or fn.node

        def error(message: str) -> CompileError:
            return self.fail(f"{fn.name}() {message}", at, kind=CompileError)

        positional = fn.positional
        star, kwstar = fn.star, ps.star_kwarg
        if len(args) > len(positional) and star is None:
            raise error(f"takes {len(positional)} positional argument"
                        f"{'' if len(positional) == 1 else 's'} but {len(args)} were given")
        bound: dict[str, Any] = {p.name.value: v for p, v in zip(positional, args)}
        if star is not None:
            bound[star.name.value] = tuple(args[len(positional):])
        posonly = {p.name.value for p in ps.posonly_params}
        named = {p.name.value for p in (*ps.params, *ps.kwonly_params)}
        extra: dict[str, Any] = {}
        for k, v in kwargs.items():
            if k in named:
                if k in bound:
                    raise error(f"got multiple values for argument {k!r}")
                bound[k] = v
            elif kwstar is not None:
                extra[k] = v
            elif k in posonly:
                raise error("got some positional-only arguments passed as keyword "
                            f"arguments: {k!r}")
            else:
                raise error(f"got an unexpected keyword argument {k!r}")
        if kwstar is not None:
            bound[kwstar.name.value] = extra
        for group, kind in ((positional, "positional"), (ps.kwonly_params, "keyword-only")):
            missing = []
            for p in group:
                name = p.name.value
                if name in bound:
                    continue
                if name in fn.defaults:
                    bound[name] = fn.defaults[name]
                    self.external.mark(bound[name], f"default of parameter {name!r}")
                elif p.default is not None:  # the CLI: no live function, read the source
                    self.fn_stack.append(fn)
                    bound[name] = self.expr(p.default, scope.parent or scope)
                    self.fn_stack.pop()
                else:
                    missing.append(repr(name))
            if missing:
                names = " and ".join(", ".join(missing).rsplit(", ", 1))
                raise error(f"missing {len(missing)} required {kind} argument"
                            f"{'' if len(missing) == 1 else 's'}: {names}")
        return bound

    def call_arguments(self, e: cst.Call, scope: Scope) -> tuple[list[Any], dict[str, Any]]:
        """The positional and keyword arguments of a call; ``*xs`` and ``**d`` expand when
        their length and keys are known when compiling."""
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for a in e.args:
            v = self.expr(a.value, scope)
            if a.star == "*":
                args.extend(self.star_items(v, a))
            elif a.star == "**":
                if not isinstance(v, dict) or any(not isinstance(k, str) for k in v):
                    raise self.fail("**-arguments must be a dict with string keys known when "
                                    "compiling", a, kind=CompileError)
                for k, item in v.items():
                    if k in kwargs:
                        raise self.fail(f"got multiple values for keyword argument {k!r}",
                                        a, kind=CompileError)
                    kwargs[k] = item
            elif a.keyword is not None:
                kwargs[a.keyword.value] = v
            else:
                args.append(v)
        return args, kwargs

    def star_items(self, v: Any, where: cst.CSTNode) -> list[Any]:
        """The values ``*v`` passes: a tuple or list, a tuple argument (its length is part
        of the specialisation), the rows of an array of known length, or the items of a
        generator (consumed here)."""
        from .generators import GeneratorValue  # noqa: PLC0415  (generators import us)

        if isinstance(v, GeneratorValue):  # f(*(a[m] for a in args))
            return self.star_items(self.generator_items(v, where), where)
        if isinstance(v, (tuple, list, range, str)):
            return list(v)
        if isinstance(v, dict):
            return list(v)
        if isinstance(v, (map, filter, zip, enumerate, reversed)):
            return list(v)  # made by a pure call folded on static values (static_calls)
        if type(v).__name__ == "StaticArray":  # an array known when compiling: its items
            return cast("list[Any]", v.items())
        if isinstance(v, Node):
            t = v.type
            if t is not None and t.kind == "array" and t.shape:
                return self.unpack(v, t.shape[0], where)
            ex = self.example(v)
            if t is not None and t.kind == "tuple" and isinstance(ex, tuple):
                return self.unpack(v, len(ex), where)
        raise self.fail("*-arguments need a value whose length is known when compiling "
                        "(a tuple, a list or an array of known shape)", where,
                        kind=CompileError)


def mangled(code: Any, attr: str) -> str:
    """``__w`` as Python compiled it in ``code`` (``_Net__w`` in a method of ``Net``):
    the name in the code's (or its nested functions') names that mangles ``attr``."""
    found: set[str]
    todo, found = [code], set()
    while todo:
        c = todo.pop()
        found.update(n for n in c.co_names if n.endswith(attr) and n.startswith("_")
                     and n[1:-len(attr)].isidentifier() and not n[1:-len(attr)].startswith("_"))
        todo += [k for k in c.co_consts if isinstance(k, types.CodeType)]
    return found.pop() if len(found) == 1 else attr
