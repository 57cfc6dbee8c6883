"""The command line: ``st-autodiff dump FILE.py:FUNC`` prints what the compiler makes.

``dump`` reads and parses the file but never runs it: no import, no exec.  Free names of
the function (``np``, helper functions, module constants) are resolved statically from
the file's top-level statements (see ``transforms/static_scope.py``).

    st-autodiff dump model.py:loss                      # the generated adjoint
    st-autodiff dump model.py:loss --wrt w,b --ir       # primal and optimised joint IR
    st-autodiff dump model.py:loss --stage adjoint      # one pass's printed output
    st-autodiff dump model.py:loss --arg x=f64[4,3] --arg w=f64[3] --arg n=int=5

Without ``--arg`` the function is compiled generically (types unknown): derivative rules
read shapes at run time, and branch on a rank they need (``if len(xp.shape(x)) <= 1:``),
so the output is right for every argument kind (docs/cli.md).  With ``--arg`` the output
is specialised to the given types.  ``--arg`` needs every parameter that has
no literal default.  Types: ``f64[4,3]``, ``f32[10]``, ``f64[]`` (0-d), ``i64[5]``,
``bool[3]``, ``float``, ``float=0.5``, ``int=5`` (ints are compile-time constants, so
they need a value), ``bool=true``; a bare number (``n=5``, ``a=0.5``) also works.  The
CLI makes deterministic example values (seeded per parameter name): floats in
[0.1, 0.9], square matrices symmetric positive definite and well conditioned (fine for
``inv``, ``solve``, ``cholesky``), integer arrays 0 or 1.  The values only decide types;
the generated code is the same for any values of those types.

Exit status: 0 on success, 1 for an error in the user's file (a located diagnostic on
stderr, no traceback), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import sys
import zlib
from collections.abc import Sequence
from typing import Any, TextIO

import numpy as np

from .api import _request  # the API's wrt rules and messages, reused as they are
from .errors import CompileError, StAutodiffError
from .transforms import STAGES, Compiled, Options, compile_function
from .transforms.parse import ParsedFunction, find_def, parse_file
from .transforms.static_scope import StaticScope

_DTYPES = {"f16": "float16", "f32": "float32", "f64": "float64", "i8": "int8",
           "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8", "b": "bool",
           "bool": "bool"}
_ARRAY = re.compile(r"^(\w+)\[([\d,\s]*)\]$")
_IR_STAGES = {"lower", "activity", "adjoint", "optimize"}


class _UsageError(Exception):
    """A bad command-line value found after argparse (reported with exit status 2)."""


def main(argv: list[str] | None = None) -> int:
    """Run ``st-autodiff ARGS`` (``sys.argv[1:]`` when ``argv`` is None); the exit status.

    For example ``main(["dump", "model.py:loss", "--wrt", "w", "--arg", "w=f64[3]"])``
    prints the generated gradient of ``loss`` with respect to ``w`` and returns 0.
    """
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "rules":
        return _rules(args)
    try:
        text, lexer = _dump(args)
    except _UsageError as exc:
        parser.error(str(exc))
    except CompileError as exc:
        print(exc.render(), file=sys.stderr)
        return 1
    except (StAutodiffError, OSError, UnicodeDecodeError, RuntimeError) as exc:
        print(f"st-autodiff: error: {exc}", file=sys.stderr)
        return 1
    _write(text, lexer, args.color, sys.stdout)
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="st-autodiff", description="Source-transformation autodiff for NumPy.")
    parser.add_argument("--version", action="version", version=f"st-autodiff {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    dump = sub.add_parser(
        "dump", help="print the generated gradient of a function in a file (never runs it)",
        description="Print the gradient st_autodiff generates for FILE.py:FUNC, or its IR. "
        "The file is parsed, never imported or executed.")
    dump.add_argument("target", metavar="FILE.py:FUNC", help="the file and the function")
    dump.add_argument("--wrt", default="0", metavar="ARGS",
                      help="parameters to differentiate, by name or position, comma-separated"
                      " (default: the first)")
    show = dump.add_mutually_exclusive_group()
    show.add_argument("--ir", action="store_true",
                      help="print the primal SSA graph and the optimised joint graph")
    show.add_argument("--stage", choices=STAGES, help="print one stage's output")
    dump.add_argument("--arg", action="append", default=[], metavar="NAME=TYPE",
                      help="an example type, e.g. x=f64[4,3], s=float, n=int=5 (repeatable;"
                      " specialises the output)")
    dump.add_argument("--no-optimize", action="store_true", help="skip DCE, CSE and folding")
    show.add_argument("--graph", metavar="OUT", help="draw the graph to OUT instead of "
                      "printing (.svg, .png, .pdf need Graphviz's dot; .dot needs nothing)")
    dump.add_argument("--graph-stage", choices=("primal", "joint"), default="joint",
                      help="with --graph: the primal graph or the optimised joint graph "
                      "(primal and adjoint; the default)")
    dump.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                      help="syntax highlighting (auto: when stdout is a terminal)")
    rules = sub.add_parser(
        "rules", help="list the library functions st_autodiff differentiates",
        description="List the differentiable NumPy, math and SciPy functions, by family, "
        "from the compiler's tables (imports SciPy when it is installed).")
    rules.add_argument("--markdown", action="store_true",
                       help="print the Markdown page docs/rules.md is made of")
    return parser


def _version() -> str:
    from . import __version__  # noqa: PLC0415

    version: str = __version__
    return version


def _rules(args: argparse.Namespace) -> int:
    """Print the catalogue of differentiable functions (``st_autodiff.catalog``)."""
    from . import catalog  # noqa: PLC0415 (imports SciPy: only for this command)

    items = catalog.entries(import_missing=True)
    if args.markdown:
        sys.stdout.write(catalog.markdown(items))
        return 0
    for e in items:
        print(f"{e.name:45s} {e.how:13s} {e.detail}")
    counts = ", ".join(f"{fam} {n}" for fam, n in catalog.counts(items).items())
    print(f"\n{len(items)} functions and methods ({counts})")
    return 0


def _dump(args: argparse.Namespace) -> tuple[str, str]:
    """The text to print and its lexer ("python" or "ir")."""
    path, sep, name = args.target.rpartition(":")
    if not sep or not path or not name.isidentifier():
        raise _UsageError(f"expected FILE.py:FUNCTION, got {args.target!r}")
    module = parse_file(path)
    parsed = find_def(module, name)
    items = [_wrt_item(w) for w in args.wrt.split(",")]
    req = _request(items[0] if len(items) == 1 else tuple(items), parsed, "grad", False)
    example = _example_args(parsed, args.arg) if args.arg else None
    scope = StaticScope(module)
    compiled: Compiled = compile_function(parsed, scope.make_resolver, example, req,
                                          Options(optimize=not args.no_optimize))
    if args.graph:
        return _draw(compiled, args.graph, args.graph_stage), "text"
    if args.stage:
        text = compiled.stages[args.stage].lstrip("\n")  # parse keeps the def's blank lines
        return text, "ir" if args.stage in _IR_STAGES else "python"
    if args.ir:
        return (f"# primal graph (stage lower)\n{compiled.stages['lower'].rstrip()}\n\n"
                f"# joint graph, optimized (stage optimize)\n"
                f"{compiled.stages['optimize'].rstrip()}\n"), "ir"
    return compiled.generated.source, "python"


def _draw(compiled: Compiled, out: str, stage: str) -> str:
    """Draw one of the compiled graphs to ``out``; the line to print."""
    from .viz import draw_graph  # noqa: PLC0415

    graph = compiled.primal if stage == "primal" else compiled.joint
    if graph is None:
        raise _UsageError(f"no {stage} graph was kept for this function")
    path = draw_graph(graph, title=f"{graph.name} ({stage})").save(out)
    return f"wrote {path} ({stage} graph of {graph.name}, {len(graph.nodes)} nodes)\n"


def _wrt_item(text: str) -> int | str:
    text = text.strip()
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if not text.isidentifier():
        raise _UsageError(f"--wrt: {text!r} is neither a parameter name nor a position")
    return text


def _example_args(parsed: ParsedFunction, specs: Sequence[str]) -> list[Any]:
    """One example value per parameter, from ``NAME=TYPE`` specs and literal defaults."""
    given: dict[str, str] = {}
    for spec in specs:
        pname, sep, ty = spec.partition("=")
        pname = pname.strip()
        if not sep or not ty:
            raise _UsageError(f"--arg expects NAME=TYPE (e.g. x=f64[4,3]), got {spec!r}")
        if pname not in parsed.params:
            raise _UsageError(f"--arg {pname}: {parsed.name}() has no parameter {pname!r} "
                              f"(its parameters: {', '.join(parsed.params)})")
        given[pname] = ty.strip()
    values = []
    for pname, param, _ in parsed.slots:  # every named parameter, keyword-only included
        if pname in given:
            values.append(example_value(pname, given[pname]))
        elif param.default is not None:
            values.append(_literal_default(parsed, param))
        else:
            raise _UsageError(f"--arg is missing for parameter {pname!r}: give every "
                              f"parameter of {parsed.name}() a type, e.g. {pname}=f64[3]")
    return values


def _literal_default(parsed: ParsedFunction, param: Any) -> Any:
    code = parsed.module.tree.code_for_node(param.default)
    try:
        return ast.literal_eval(code.strip())
    except (ValueError, SyntaxError) as exc:
        raise _UsageError(f"the default of {param.name.value!r} ({code}) is not a literal; "
                          f"give it with --arg {param.name.value}=TYPE") from exc


def example_value(name: str, spec: str) -> Any:
    """A deterministic example value of type ``spec`` for parameter ``name``.

    >>> example_value("x", "f64[2,3]").shape, example_value("n", "int=5")
    ((2, 3), 5)
    """
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    kind, _, literal = spec.partition("=")
    kind = kind.strip()
    try:
        if kind in ("int", "float", "bool") and literal:
            if kind == "bool":
                return {"true": True, "false": False}[literal.strip().lower()]
            return {"int": int, "float": float}[kind](literal)
        if kind == "float":
            return float(np.round(rng.uniform(0.1, 0.9), 4))
        if not literal and re.fullmatch(r"-?\d+", kind):
            return int(kind)
        if not literal and re.fullmatch(r"[-+.\deE]+", kind):
            return float(kind)
    except (ValueError, KeyError):
        raise _UsageError(f"bad value in --arg {name}={spec}") from None
    if kind in ("int", "bool"):
        example = "5" if kind == "int" else "true"
        raise _UsageError(f"--arg {name}={kind}: {kind} arguments are compile-time constants "
                          f"and need a value, e.g. {name}={kind}={example}")
    m = _ARRAY.match(kind)
    if m is None or literal:
        raise _UsageError(f"--arg {name}={spec}: expected a type like f64[4,3], f32[], "
                          "float, float=0.5, int=5 or bool=true")
    try:
        dtype = np.dtype(_DTYPES.get(m.group(1), m.group(1)))
    except TypeError:
        raise _UsageError(f"--arg {name}={spec}: unknown dtype {m.group(1)!r}") from None
    shape = tuple(int(d) for d in m.group(2).replace(" ", "").split(",") if d)
    return _array(rng, dtype, shape)


def _array(rng: np.random.Generator, dtype: np.dtype[Any],
           shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(0, 2, shape).astype(dtype)
    values = rng.uniform(0.1, 0.9, shape)
    if len(shape) >= 2 and shape[-1] == shape[-2]:  # SPD, diagonally dominant
        n = shape[-1]
        values = (values + np.swapaxes(values, -1, -2)) / (4 * n) + np.eye(n)
    return values.astype(dtype)


def _write(text: str, lexer: str, color: str, out: TextIO) -> None:
    """Print ``text``, highlighted when asked (``always``) or on a terminal (``auto``)."""
    if not text.endswith("\n"):
        text += "\n"
    use = lexer != "text" and (color == "always" or (
        color == "auto" and out.isatty() and not os.environ.get("NO_COLOR")))
    out.write(_highlight(text, lexer) if use else text)


def _highlight(text: str, lexer: str) -> str:
    try:
        from pygments import highlight  # noqa: PLC0415  (optional dependency)
        from pygments.formatters import TerminalFormatter  # noqa: PLC0415
        from pygments.lexer import RegexLexer, bygroups  # noqa: PLC0415
        from pygments.lexers import PythonLexer  # noqa: PLC0415
        from pygments.token import Comment, Keyword, Name, Number, Operator, Text  # noqa: PLC0415
    except ImportError:
        return text

    class IRLexer(RegexLexer):  # type: ignore[misc]  # pygments has no stubs: Any base
        """The printed SSA graph: ``%t0: f64[4,2] = matmul %x, %w  # f.py:3``."""

        tokens = {"root": [
            (r"#.*$", Comment),
            (r"\b(graph|return|active)\b", Keyword),
            (r"%[\w.]+", Name.Variable),
            (r"(=)(\s*)([a-z_]\w*)", bygroups(Operator, Text, Name.Function)),
            (r"\b([fiu]\d+|bool|float|int)\b(\[[\d,]*\])?", Keyword.Type),
            (r"-?\d+(\.\d*)?([eE][-+]?\d+)?", Number),
            (r"\s+|.", Text),
        ]}

    out: str = highlight(text, IRLexer() if lexer == "ir" else PythonLexer(), TerminalFormatter())
    return out
