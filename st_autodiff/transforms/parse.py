"""Pass 1, parse: Python source -> libcst tree with positions, behind the subset fence.

Input: a Python function object (its source is read with ``inspect``) or a file and a
function name (the CLI, which never executes the file).  Output: a ``ParsedFunction``,
the function's libcst node plus what later passes need to report locations.

The fence rejects, with the location and a hint, constructs no path of the compiler
accepts: ``global`` and ``nonlocal`` (Python applies them function-wide) and ``await``.
Everything it lets through, ``lower`` must handle: ``raise``, ``assert``, ``try`` and
imports are decided there (``static_stmts``), ``with`` in ``with_blocks``,
comprehensions and generators in ``comprehensions``/``generators``, star-unpacking in
``star``; ``del``, classes, the walrus operator and set literals of runtime values
(``LAZY_HINTS``) are refused only where lowering reaches them, so code that static
folding removes is never refused.  Parameters of
every kind are accepted (``lower.bind_arguments`` binds them as
Python does); ``*xs``/``**kw`` in calls are accepted and expanded where their length is
known when compiling.

The source read is checked against the running code (``check_fresh``): a file edited
after its module was imported is refused, since the compiler would differentiate text
that is not what Python runs.
"""

from __future__ import annotations
import __future__

import functools
import inspect
import linecache
import re
import textwrap
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from ..errors import SourceUnavailableError, UnsupportedSyntaxError
from ..ir.graph import Loc
from .depth import deep_recursion

#: the flags ``from __future__`` imports set on code objects (compile them the same way)
_FUTURE_FLAGS = functools.reduce(
    lambda acc, name: acc | getattr(__future__, name).compiler_flag,
    __future__.all_feature_names, 0)


@dataclass(frozen=True)
class Layout:
    """The shape of one call of the differentiated function: how many values its
    ``*args`` takes, the keys its ``**kwargs`` takes (in call order), and how many leading
    positional parameters are bound already (a bound method's ``self``)."""

    n_star: int = 0
    kw_keys: tuple[str, ...] = ()
    n_fixed: int = 0


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
        if rng is None:  # a node lowering synthesized stands for one of the user's
            origin = _SYNTHETIC.get(id(node))
            rng = self.positions.get(origin[1]) if origin and origin[0] is node else None
        if rng is None:
            return Loc(self.file, self.first_line, 1)
        line = rng.start.line + self.first_line - 1
        text = self.file_lines[line - 1] if 0 < line <= len(self.file_lines) else ""
        end = rng.end.column + self.indent + 1 if rng.end.line == rng.start.line else None
        return Loc(self.file, line, rng.start.column + self.indent + 1, text, end)


#: nodes lowering synthesizes (a comprehension's statements), by id: (node, the user's node
#: it stands for, whose location it reports)
_SYNTHETIC: dict[int, tuple[cst.CSTNode, cst.CSTNode]] = {}


def synthesize(node: cst.CSTNode, origin: cst.CSTNode) -> None:
    """Report the location of ``origin`` for the synthesized ``node``."""
    if len(_SYNTHETIC) > 65536:
        _SYNTHETIC.clear()  # entries of trees the caches dropped; live ones are remade
    _SYNTHETIC[id(node)] = (node, origin)


def synthetic_origin(node: cst.CSTNode) -> cst.CSTNode | None:
    """The user's node a synthesized node stands for, or None for the user's own nodes."""
    hit = _SYNTHETIC.get(id(node))
    return hit[1] if hit is not None and hit[0] is node else None


@dataclass(eq=False)
class ParsedFunction:
    """One function (``def`` or ``lambda``) ready to lower."""

    name: str
    node: cst.FunctionDef | cst.Lambda
    module: ParsedModule
    defaults: dict[str, Any] = field(default_factory=dict)
    layout: Layout = Layout()
    fixed: tuple[Any, ...] = ()  # values of the leading positional parameters (a method's self)

    def loc(self, node: cst.CSTNode) -> Loc:
        """The file location of a node of this function."""
        return self.module.loc(node)

    @property
    def positional(self) -> list[cst.Param]:
        """Positional parameters (positional-only first), in order."""
        ps = self.node.params
        return [*ps.posonly_params, *ps.params]

    @property
    def star(self) -> cst.Param | None:
        """The ``*args`` parameter, if any."""
        s = self.node.params.star_arg
        return s if isinstance(s, cst.Param) else None

    @property
    def all_params(self) -> list[str]:
        """Every name the parameters bind (``*args`` and ``**kwargs`` included)."""
        ps = self.node.params
        star = [self.star] if self.star is not None else []
        kw = [ps.star_kwarg] if ps.star_kwarg is not None else []
        return [p.name.value for p in (*self.positional, *star, *ps.kwonly_params, *kw)]

    @property
    def slots(self) -> list[tuple[str, cst.Param, Any]]:
        """The generated function's parameters for this ``layout``, in the canonical
        order ``GradFunction`` passes its arguments in: positional parameters (less the
        bound ones), one per ``*args`` value (key: its index), keyword-only parameters, one
        per ``**kwargs`` key (key: the key).  Each is ``(name, parameter, key)``; the key
        is None for a named parameter."""
        ps, lay = self.node.params, self.layout
        out: list[tuple[str, cst.Param, Any]] = [
            (p.name.value, p, None) for p in self.positional[lay.n_fixed:]]
        if self.star is not None:
            out += [(f"{self.star.name.value}_{i}", self.star, i) for i in range(lay.n_star)]
        out += [(p.name.value, p, None) for p in ps.kwonly_params]
        if ps.star_kwarg is not None:
            base = ps.star_kwarg.name.value
            out += [(f"{base}_{re.sub(r'[^0-9A-Za-z_]', '_', k)}", ps.star_kwarg, k)
                    for k in lay.kw_keys]
        return out

    @property
    def params(self) -> list[str]:
        """The generated function's parameter names (see ``slots``)."""
        return [name for name, _, _ in self.slots]

    def with_layout(self, layout: Layout, fixed: tuple[Any, ...] = ()) -> ParsedFunction:
        """This function specialised on one call's ``*args`` length and ``**kwargs`` keys,
        with ``fixed`` bound to its first positional parameters."""
        return ParsedFunction(self.name, self.node, self.module, self.defaults,
                              Layout(layout.n_star, layout.kw_keys, len(fixed)), fixed)


def parse_source(source: str, file: str, first_line: int = 1,
                 file_lines: list[str] | None = None) -> ParsedModule:
    """Parse (dedented) source; locations are reported against ``file``."""
    dedented = textwrap.dedent(source)
    first = next((ln for ln in source.splitlines() if ln.strip()), "")
    indent = len(first) - len(first.lstrip()) if dedented != source else 0
    with deep_recursion(Loc(file, first_line, 1)):  # libcst recurses per nesting level
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
    loader = getattr(fn, "__globals__", {}).get("__loader__")
    rewritten = type(loader).__name__ == "AssertionRewritingHook"  # pytest's test modules
    parsed = _parse_cached(code.co_filename, code.co_firstlineno, code, rewritten)
    defaults = _defaults(fn)
    return ParsedFunction(parsed.name, parsed.node, parsed.module, defaults)


@functools.lru_cache(maxsize=512)
def _parse_cached(file: str, first_line: int, code: Any, rewritten: bool = False
                  ) -> ParsedFunction:
    try:
        # linecache first: inspect.findsource maps every loaded module to its file on
        # its first use (about 20 ms, a third of a small function's first call)
        linecache.checkcache(file)
        lines = linecache.getlines(file)
        if not lines or len(lines) < code.co_firstlineno:
            lines, _ = inspect.findsource(code)
        start = code.co_firstlineno - 1
        block = inspect.getblock(lines[code.co_firstlineno - 1:])
    except (OSError, TypeError, IndexError):
        raise SourceUnavailableError(
            f"cannot read the source of {code.co_name!r} (defined in {file}): functions "
            "typed at an interactive prompt or built with exec() have no source file",
            hint="define the function in a .py file or a notebook cell") from None
    del start
    first_line = code.co_firstlineno
    check_fresh(code, lines, rewritten)
    file_lines = [ln.rstrip("\n") for ln in lines]
    try:
        module = parse_source("".join(block), file, first_line, file_lines)
    except UnsupportedSyntaxError:
        if code.co_name != "<lambda>":
            raise
        module = _lambda_in_arguments(block, file, first_line, file_lines)
    node = _find_function(module, code)
    check_subset(node, module)
    return ParsedFunction(code.co_name, node, module)


def _lambda_in_arguments(block: list[str], file: str, first_line: int,
                         file_lines: list[str]) -> ParsedModule:
    """The lines of a lambda that are not a statement on their own, parsed as call
    arguments or dict items: ``lambda x: x, result_to_tuple=lambda x, _: (x,)`` inside a
    decorator's parentheses (SciPy's ``_axis_nan_policy_factory``), ``'a': lambda x: x,``
    inside a dict display.  The wrapper gets lines of its own
    so that every column stays the file's; the original refusal stands where this fails."""
    body = "".join(block).rstrip()
    if body.endswith(":") and "\n" not in body:  # a compound statement's header alone
        head = body.expandtabs()  # (`for f in [np.sin, lambda v: v ** 3]:`)
        indent = len(head) - len(head.lstrip())
        try:
            return parse_source(body + "\n" + " " * (indent + 4) + "pass\n", file,
                                first_line, file_lines)
        except UnsupportedSyntaxError:
            pass
    for opening, closing in (("_(", ")"), ("_({", "})")):  # a call's argument, a dict's value
        text = body
        for _ in range(4):  # closing brackets of the call or display the lambda is in
            try:
                return parse_source(f"{opening}\n{text}\n{closing}\n", file, first_line - 1,
                                    file_lines)
            except UnsupportedSyntaxError:
                if not text or text[-1] not in ")]},":
                    break
                text = text[:-1].rstrip()
    return parse_source("".join(block), file, first_line, file_lines)


def _find_function(module: ParsedModule, code: Any) -> cst.FunctionDef | cst.Lambda:
    """The def (or the lambda) in ``module`` that ``code`` was compiled from."""
    if code.co_name == "<lambda>":
        found: list[cst.Lambda] = []

        class Find(cst.CSTVisitor):
            def visit_Lambda(self, node: cst.Lambda) -> None:
                found.append(node)

        module.tree.visit(Find())
        argnames = list(code.co_varnames[:code.co_argcount])
        matches = [lam for lam in found if [p.name.value for p in (
            *lam.params.posonly_params, *lam.params.params)] == argnames]
        if len(matches) > 1:  # two lambdas on one line: the one the code's positions name
            matches = _by_position(module, code, matches) if hasattr(
                code, "co_positions") else _by_bytecode(module, code, matches)
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


def _by_position(module: ParsedModule, code: Any, lambdas: list[cst.Lambda]
                 ) -> list[cst.Lambda]:
    """The innermost lambda that holds every source position of ``code``'s
    instructions (``co_positions``, Python 3.11+; none found before 3.11, so the caller
    refuses as before)."""
    if not hasattr(code, "co_positions"):
        return []
    spans = []
    for line, end_line, col, end_col in code.co_positions():
        if None in (line, end_line, col, end_col) or (line, col) == (end_line, end_col):
            continue  # no position, or the empty span of the function's entry
        spans.append((_char_pos(module, line, col), _char_pos(module, end_line, end_col)))
    if not spans:
        return []
    lo, hi = min(a for a, _ in spans), max(b for _, b in spans)
    holding = []
    for lam in lambdas:
        # the whole lambda (its body's range leaves out the body's parentheses, where the
        # code's positions of ``lambda x: (x,)`` start): it holds the code, unless the
        # code's span is exactly it (an enclosing lambda's code that only makes this one)
        rng = module.positions.get(lam)
        if rng is None:
            continue
        start = (rng.start.line + module.first_line - 1, rng.start.column + module.indent)
        end = (rng.end.line + module.first_line - 1, rng.end.column + module.indent)
        if start <= lo and hi <= end and (start, end) != (lo, hi):
            holding.append((start, end, lam))
    if not holding:
        return []
    inner = max(holding, key=lambda h: h[0])
    return [inner[2]] if all(h[1] >= inner[1] for h in holding) else []


def _by_bytecode(module: ParsedModule, code: Any, lambdas: list[cst.Lambda]
                 ) -> list[cst.Lambda]:
    """Before Python 3.11 (no ``co_positions``): the lambdas whose text compiles to the
    instructions, names and constants of ``code``; several only where their texts are the
    same (the same function wherever it stands on the line, so the first is taken)."""
    def signature(c: Any) -> tuple[Any, ...]:
        consts = tuple(signature(k) if isinstance(k, types.CodeType) else (type(k), k)
                       for k in c.co_consts)
        return c.co_code, c.co_names, c.co_varnames, c.co_freevars, consts

    want = signature(code)
    found: list[tuple[str, cst.Lambda]] = []
    for lam in lambdas:
        text = module.tree.code_for_node(lam)
        try:
            outer = compile(f"({text})", module.file, "eval")
        except SyntaxError:
            continue
        inner = [k for k in outer.co_consts if isinstance(k, types.CodeType)]
        if len(inner) == 1 and signature(inner[0]) == want:
            found.append((text, lam))
    if found and all(text == found[0][0] for text, _ in found):
        return [found[0][1]]
    return []


def _char_pos(module: ParsedModule, line: int, byte_col: int) -> tuple[int, int]:
    """A file position with its column in characters (code objects count UTF-8 bytes)."""
    text = module.file_lines[line - 1] if 0 < line <= len(module.file_lines) else ""
    return line, len(text.encode()[:byte_col].decode(errors="ignore"))


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
    cst.Await: ("await cannot be differentiated", "differentiate a synchronous function"),
    cst.Global: ("global statements are not supported",
                 "pass the value in as an argument and return the result"),
    cst.Nonlocal: ("nonlocal statements are not supported",
                   "pass the value in as an argument and return the result"),
}


#: constructs refused only where lowering reaches them (``static_stmts.refuse_lazily``):
#: in a branch that static folding removes they cost nothing.  ``global``/``nonlocal``
#: stay in ``_HINTS``: Python applies them to the whole function, wherever they stand.
LAZY_HINTS: dict[type, tuple[str, str]] = {
    cst.ClassDef: ("class definitions are not supported inside a differentiated function",
                   "define the class at module level"),
    cst.NamedExpr: ("the walrus operator := is not supported", "assign on a separate line"),
    cst.Set: ("set literals of values computed at run time are not supported",
              "use a tuple"),
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
            return True

    with deep_recursion(module.loc(fn_node)):
        if isinstance(fn_node, cst.FunctionDef):
            _check_def(fn_node, module)
            fn_node.body.visit(Fence())
        else:
            fn_node.visit(Fence())


def _check_def(node: cst.FunctionDef | cst.Lambda, module: ParsedModule) -> None:
    """The ``async`` of a def (its body is fenced separately; every parameter kind is
    bound by ``lower.bind_arguments``)."""
    if isinstance(node, cst.FunctionDef) and node.asynchronous is not None:
        raise UnsupportedSyntaxError("async functions cannot be differentiated",
                                     module.loc(node), "differentiate a synchronous function")


def check_fresh(code: Any, lines: list[str], rewritten: bool = False) -> None:
    """Refuse source text that is not what ``code`` was compiled from: the file was
    edited after its module was imported.  The text is compiled again, whole (so that
    closures, classes and ``from __future__`` imports compile as they did at import), and
    the code object defined on the same line with the same name must have the same
    bytecode, constants, names and line table.  ``rewritten``: the module was imported
    by pytest, which rewrites ``assert`` statements; the text is rewritten the same way."""
    text, flags, where = "".join(lines), code.co_flags & _FUTURE_FLAGS, (
        code.co_name, code.co_firstlineno)
    want = _fingerprint(code)
    if want not in _compiled_like(code.co_filename, text, flags).get(where, ()) and not (
            rewritten and want in _compiled_like(code.co_filename, text, flags, True).get(
                where, ())):
        file = code.co_filename
        if file.startswith("<") and file.endswith(">"):
            # a pseudo-file such as <string> names every exec(); the text cached under it
            # (Python 3.13 caches `python -c` commands, pytest-xdist workers start so)
            # belongs to another exec, not to an edit of this function's file
            raise SourceUnavailableError(
                f"cannot read the source of {code.co_name!r} (defined in {file}): "
                "functions typed at an interactive prompt or built with exec() have no "
                "source file", hint="define the function in a .py file or a notebook cell")
        raise SourceUnavailableError(
            f"the source of {code.co_name!r} in {code.co_filename} has changed since it was "
            "loaded: st_autodiff reads the text of the file, which no longer matches the "
            "code Python runs", Loc(code.co_filename, code.co_firstlineno, 1),
            "reload the module (importlib.reload) or restart the interpreter, then take the "
            "gradient again")


@functools.lru_cache(maxsize=64)
def _compiled_like(file: str, text: str, flags: int, pytest_rewrite: bool = False
                   ) -> dict[tuple[str, int], set[Any]]:
    """Fingerprints of every function compiled from ``text``, by (name, first line)."""
    try:
        source: Any = text
        if pytest_rewrite:
            import ast  # noqa: PLC0415

            from _pytest.assertion.rewrite import rewrite_asserts  # noqa: PLC0415

            source = ast.parse(text, file)
            rewrite_asserts(source, text.encode(), file)
        top = compile(source, file, "exec", flags=flags, dont_inherit=True)
    except (SyntaxError, ValueError, ImportError):
        return {}
    out: dict[tuple[str, int], set[Any]] = {}
    todo = [top]
    while todo:
        c = todo.pop()
        out.setdefault((c.co_name, c.co_firstlineno), set()).add(_fingerprint(c))
        todo += [k for k in c.co_consts if inspect.iscode(k)]
    return out


def _const_key(k: Any) -> Any:
    """A constant as two compiles of one text agree on it: a frozenset (``x in {"f",
    "b"}``) by its sorted items, since its repr follows the order of its hash table,
    which differs between two builds of the same set."""
    if isinstance(k, frozenset):
        return ("frozenset", tuple(sorted(_const_key(x) for x in k)))
    if isinstance(k, tuple):
        return ("tuple", tuple(_const_key(x) for x in k))
    return (type(k).__name__, repr(k))


def _fingerprint(code: Any) -> Any:
    """What running a code object depends on, comparable across two compiles of one text
    (``co_code`` is the unspecialised bytecode on every Python version)."""
    consts = tuple(_fingerprint(k) if inspect.iscode(k) else _const_key(k)
                   for k in code.co_consts)
    return (code.co_name, code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount,
            code.co_code, consts, code.co_names, code.co_varnames, code.co_freevars,
            code.co_cellvars, code.co_firstlineno, tuple(code.co_lines()))
