"""Pass 1, parse: Python source -> libcst tree with positions, behind the subset fence.

Input: a Python function object (its source is read with ``inspect``) or a file and a
function name (the CLI, which never executes the file).  Output: a ``ParsedFunction``,
the function's libcst node plus what later passes need to report locations.

The fence rejects, with the location and a hint, every construct the compiler does not
accept: ``try``/``with``, generators, ``global`` and
``nonlocal``, ``del``, comprehensions, the walrus operator, star-arguments, classes and
imports inside the function.  Everything it lets through, ``lower`` must handle.
"""

from __future__ import annotations

import functools
import inspect
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from ..errors import SourceUnavailableError, UnsupportedSyntaxError
from ..ir.graph import Loc


@dataclass(eq=False)
class ParsedModule:
    """A parsed piece of source with positions mapped back to the real file."""

    tree: cst.Module
    positions: Any
    file: str
    first_line: int  # file line number of line 1 of ``tree``
    indent: int  # columns removed by dedenting
    file_lines: list[str]

    def loc(self, node: cst.CSTNode) -> Loc:
        """The file location of a libcst node."""
        rng: CodeRange | None = self.positions.get(node)
        if rng is None:
            return Loc(self.file, self.first_line, 1)
        line = rng.start.line + self.first_line - 1
        text = self.file_lines[line - 1] if 0 < line <= len(self.file_lines) else ""
        end = rng.end.column + self.indent + 1 if rng.end.line == rng.start.line else None
        return Loc(self.file, line, rng.start.column + self.indent + 1, text, end)


@dataclass(eq=False)
class ParsedFunction:
    """One function (``def`` or ``lambda``) ready to lower."""

    name: str
    node: cst.FunctionDef | cst.Lambda
    module: ParsedModule
    defaults: dict[str, Any] = field(default_factory=dict)

    def loc(self, node: cst.CSTNode) -> Loc:
        """The file location of a node of this function."""
        return self.module.loc(node)

    @property
    def params(self) -> list[str]:
        """Positional parameter names, in order."""
        return [p.name.value for p in self.node.params.params]


def parse_source(source: str, file: str, first_line: int = 1,
                 file_lines: list[str] | None = None) -> ParsedModule:
    """Parse (dedented) source; locations are reported against ``file``."""
    dedented = textwrap.dedent(source)
    first = next((ln for ln in source.splitlines() if ln.strip()), "")
    indent = len(first) - len(first.lstrip()) if dedented != source else 0
    try:
        tree = cst.parse_module(dedented)
    except cst.ParserSyntaxError as exc:
        raise UnsupportedSyntaxError(f"cannot parse the function's source: {exc.message}",
                                     Loc(file, first_line + exc.raw_line - 1,
                                         exc.raw_column + 1)) from None
    wrapper = MetadataWrapper(tree, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    lines = file_lines if file_lines is not None else source.splitlines()
    return ParsedModule(wrapper.module, positions, file, first_line, indent, lines)


def parse_function(fn: Callable[..., Any]) -> ParsedFunction:
    """Read and parse a Python function's source (cached per code object)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        name = getattr(fn, "__name__", None)  # never the repr: it holds an address
        what = repr(name) if name else f"a {type(fn).__qualname__} object"
        raise SourceUnavailableError(
            f"cannot read the source of {what}: it is not a Python function "
            "(built-in functions and C extensions have no Python source)",
            hint="wrap the computation in a Python function written with NumPy")
    # code objects compare equal across files when only co_filename differs: key on the
    # file and line as well, or two identical functions would share locations
    parsed = _parse_cached(code.co_filename, code.co_firstlineno, code)
    defaults = _defaults(fn)
    return ParsedFunction(parsed.name, parsed.node, parsed.module, defaults)


@functools.lru_cache(maxsize=512)
def _parse_cached(file: str, first_line: int, code: Any) -> ParsedFunction:
    try:
        lines, start = inspect.findsource(code)
        block = inspect.getblock(lines[code.co_firstlineno - 1:])
    except (OSError, TypeError, IndexError):
        raise SourceUnavailableError(
            f"cannot read the source of {code.co_name!r} (defined in {file}): functions "
            "typed at an interactive prompt or built with exec() have no source file",
            hint="define the function in a .py file or a notebook cell") from None
    del start
    first_line = code.co_firstlineno
    module = parse_source("".join(block), file, first_line, [ln.rstrip("\n") for ln in lines])
    node = _find_function(module, code)
    check_subset(node, module)
    return ParsedFunction(code.co_name, node, module)


def _find_function(module: ParsedModule, code: Any) -> cst.FunctionDef | cst.Lambda:
    """The def (or the lambda) in ``module`` that ``code`` was compiled from."""
    if code.co_name == "<lambda>":
        found: list[cst.Lambda] = []

        class Find(cst.CSTVisitor):
            def visit_Lambda(self, node: cst.Lambda) -> None:
                found.append(node)

        module.tree.visit(Find())
        argnames = list(code.co_varnames[:code.co_argcount])
        matches = [lam for lam in found if [p.name.value for p in lam.params.params]
                   == argnames]
        if len(matches) != 1:
            raise SourceUnavailableError(
                f"cannot tell which lambda on line {module.first_line} of {module.file} "
                "to differentiate", hint="give the function a name with def")
        return matches[0]
    for stmt in module.tree.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == code.co_name:
            return stmt
    raise SourceUnavailableError(f"cannot find the definition of {code.co_name!r} in "
                                 f"{module.file}")


def _defaults(fn: Callable[..., Any]) -> dict[str, Any]:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return {}
    return {k: p.default for k, p in sig.parameters.items()
            if p.default is not inspect.Parameter.empty}


def parse_file(path: str) -> ParsedModule:
    """Parse a whole file (for the CLI, which must not execute it)."""
    with open(path, encoding="utf-8") as fh:
        source = fh.read()
    return parse_source(source, path, 1, source.splitlines())


def find_def(module: ParsedModule, name: str) -> ParsedFunction:
    """A top-level function of a parsed file, fenced."""
    for stmt in module.tree.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name:
            check_subset(stmt, module)
            return ParsedFunction(name, stmt, module)
    known = [s.name.value for s in module.tree.body if isinstance(s, cst.FunctionDef)]
    raise SourceUnavailableError(f"{module.file} has no top-level function {name!r}"
                                 + (f"; it defines {', '.join(known)}" if known else ""))


_HINTS: dict[type, tuple[str, str]] = {
    cst.Try: ("try blocks cannot be differentiated", "move the try block out of the function"),
    cst.With: ("with blocks cannot be differentiated", "move the with block out of the function"),
    cst.Yield: ("generators cannot be differentiated", "return a value instead of yielding"),
    cst.Await: ("await cannot be differentiated", "differentiate a synchronous function"),
    cst.Global: ("global statements are not supported",
                 "pass the value in as an argument and return the result"),
    cst.Nonlocal: ("nonlocal statements are not supported",
                   "pass the value in as an argument and return the result"),
    cst.Del: ("del is not supported", "stop using the name instead of deleting it"),
    cst.Raise: ("raise is not supported in a differentiated function",
                "check inputs before calling the gradient"),
    cst.Assert: ("assert is not supported in a differentiated function",
                 "check inputs before calling the gradient"),
    cst.ClassDef: ("class definitions are not supported inside a differentiated function",
                   "define the class at module level"),
    cst.Import: ("imports inside a differentiated function are not supported",
                 "import at module level"),
    cst.ImportFrom: ("imports inside a differentiated function are not supported",
                     "import at module level"),
    cst.ListComp: ("list comprehensions are not supported",
                   "use array operations (np.stack, broadcasting) instead"),
    cst.SetComp: ("set comprehensions are not supported", "use array operations instead"),
    cst.DictComp: ("dict comprehensions are not supported", "use array operations instead"),
    cst.GeneratorExp: ("generator expressions are not supported",
                       "use array operations (np.sum over an axis) instead"),
    cst.NamedExpr: ("the walrus operator := is not supported", "assign on a separate line"),
    cst.Set: ("set literals are not supported", "use a tuple"),
    cst.StarredElement: ("star-unpacking (*x) is not supported", "index the values explicitly"),
}


def check_subset(fn_node: cst.FunctionDef | cst.Lambda, module: ParsedModule) -> None:
    """Raise ``UnsupportedSyntaxError`` at the first construct outside the subset."""

    class Fence(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            refused = _HINTS.get(type(node))  # the listed classes are all concrete
            if refused is not None:
                raise UnsupportedSyntaxError(refused[0], module.loc(node), refused[1])
            if isinstance(node, (cst.FunctionDef, cst.Lambda)):
                _check_def(node, module)
            if isinstance(node, cst.Arg) and node.star:
                raise UnsupportedSyntaxError(f"{node.star}-arguments in calls are not "
                                             "supported", module.loc(node),
                                             "pass the arguments one by one")
            return True

    if isinstance(fn_node, cst.FunctionDef):
        _check_def(fn_node, module)
        fn_node.body.visit(Fence())
    else:
        fn_node.visit(Fence())


def _check_def(node: cst.FunctionDef | cst.Lambda, module: ParsedModule) -> None:
    """The parameters and ``async`` of a def or lambda (its body is fenced separately)."""
    _check_params(node, module)
    if isinstance(node, cst.FunctionDef) and node.asynchronous is not None:
        raise UnsupportedSyntaxError("async functions cannot be differentiated",
                                     module.loc(node), "differentiate a synchronous function")


def _check_params(node: cst.FunctionDef | cst.Lambda, module: ParsedModule) -> None:
    p = node.params
    star = p.star_arg if isinstance(p.star_arg, cst.Param) else None
    for bad, what in ((star, "*args"), (p.star_kwarg, "**kwargs")):
        if bad is not None:
            raise UnsupportedSyntaxError(f"{what} parameters are not supported",
                                         module.loc(bad), "name each parameter")
