"""Every error a user can meet, checked as the user sees it.

Each case compiles a function of ``helpers_errors`` and checks the exception type and
the whole diagnostic: ``file:line:col: error: message`` pointing at the user's code, the
source line, a caret under the right column, and a hint saying what to write instead.
Expected lines come from the ``# <- NAME`` markers in ``helpers_errors`` (read with
``inspect``) and expected columns from a token on that line, so nothing is hard-coded.
"""

from __future__ import annotations

import functools
import inspect
import math
import os
import traceback
from dataclasses import dataclass
from typing import Any

import helpers_errors as H
import numpy as np
import pytest

import st_autodiff as st
from st_autodiff.errors import (
    CompileError,
    NonScalarOutputError,
    NoRuleError,
    SourceUnavailableError,
    StaticEvaluationError,
    StaticRaiseError,
    StAutodiffError,
    UnsupportedRecursionError,
    UnsupportedSyntaxError,
    WrtError,
)

FILE = inspect.getsourcefile(H)
LINES = inspect.getsource(H).splitlines()
PACKAGE_DIR = os.path.dirname(st.__file__)
X = np.arange(1.0, 4.0)


def marked(name: str) -> tuple[int, str]:
    """The line number and text of the line marked ``# <- name`` in helpers_errors."""
    hits = [k for k, text in enumerate(LINES, 1) if text.rstrip().endswith(f"# <- {name}")]
    assert len(hits) == 1, f"marker {name!r} found {len(hits)} times"
    return hits[0], LINES[hits[0] - 1]


@dataclass
class Case:
    fn: Any
    marker: str  # the marked line the error points at
    token: str  # the text that starts at the error's column
    error: type[CompileError]
    message: str  # part of the message: names the construct
    hint: str | None  # part of the hint: says what to write instead
    args: tuple = (X,)
    wrt: Any = 0

    @property
    def id(self) -> str:
        return self.marker if self.wrt == 0 else f"{self.marker}-wrt={self.wrt!r}"


SYNTAX = UnsupportedSyntaxError
CASES = [
    # the fence: statements and expressions outside the supported subset
    Case(H.uses_if, "if", "x > 0", SYNTAX,
         "the truth value of an array of shape (3,) is ambiguous", "reduce it first"),
    Case(H.uses_for, "for", "else", SYNTAX,
         "for ... else is only supported on a loop over a Python list or tuple",
         "set a flag before break"),
    Case(H.uses_while, "while", "else", SYNTAX, "while ... else is not supported",
         "set a flag before break"),
    # a try around runtime code whose handler catches what NumPy raises at run time
    Case(H.uses_try, "try", "except", SYNTAX,
         "except FloatingPointError around values computed at run time is not supported",
         "catch only exceptions raised while compiling"),
    # (the lock's class is allocate_lock before Python 3.13, lock since)
    Case(H.uses_with, "with", "threading.Lock()", SYNTAX, "are not supported: the compiler "
         "keeps np.errstate and warnings.catch_warnings in the compiled code",
         "move the with block out"),
    Case(H.uses_yield, "yield", "yield ", CompileError,
         "uses_yield() is a generator function: calling it returns a generator",
         "return a value instead of yielding"),
    Case(H.uses_global, "global", "global ", SYNTAX, "global statements are not supported",
         "pass the value in as an argument"),
    Case(H.uses_nonlocal, "nonlocal", "nonlocal ", SYNTAX,
         "nonlocal statements are not supported", "pass the value in as an argument"),
    # del is lowered (the name is unbound); a read after a del in one runtime branch only
    Case(H.uses_del, "del", "y)", SYNTAX, "'y' is deleted in one branch of an if",
         "delete it in both branches, or in neither"),
    # comprehensions are lowered; what stays refused is a runtime filter over a Python
    # sequence (its length would be data-dependent) and a generator NumPy rejects
    Case(H.uses_listcomp, "listcomp", "np.sum(v) > 1.0", SYNTAX,
         "this comprehension's filter depends on values known only at run time",
         "np.where(cond, value, 0)"),
    Case(H.uses_genexp, "genexp", "np.stack(", CompileError,
         "np.stack() of a generator: NumPy does not iterate generators", "pass a list"),
    Case(H.uses_walrus, "walrus", "y :=", SYNTAX, "the walrus operator := is not supported",
         "assign on a separate line"),
    # *-arguments are accepted where their length is known (tests/test_binding.py)
    Case(H.uses_star_call, "starcall", "*s", CompileError,
         "*-arguments need a value whose length is known when compiling", None),
    Case(H.uses_star_params, "starparams", "def ", WrtError,
         "wrt names 'xs', the *xs parameter of uses_star_params()", "wrt=(i, j)",
         args=(X, X), wrt="xs"),
    # raise and assert on a static path: the exception Python raises, located
    Case(H.uses_assert, "assert", "assert ", StaticRaiseError,
         "AssertionError: x must be a matrix, got 1 axis", "check the arguments"),
    Case(H.uses_raise, "raise", "raise ", StaticRaiseError, "ValueError: no",
         "check the arguments"),
    Case(H.uses_import, "import", "no_such_name", StaticRaiseError,
         "ImportError: cannot import name 'no_such_name' from 'math'", "check the arguments"),
    # ... under a runtime condition they are effects of the compiled code
    # (tests/test_static_statements.py); a bare re-raise there has no exception to raise
    Case(H.uses_runtime_bare_raise, "runtimebare", "raise", SYNTAX,
         "a bare raise under a runtime condition is not supported", "make the condition"),
    Case(H.uses_dict, "dict", "x[0]", SYNTAX, "dict keys must be constants",
         "use string or integer literals as keys"),
    Case(H.uses_set, "set", "{", SYNTAX,
         "set literals of values computed at run time are not supported", "use a tuple"),
    Case(H.uses_class, "class", "class ", SYNTAX, "class definitions are not supported",
         "define the class at module level"),
    Case(H.uses_async, "async", "async def", SYNTAX, "async functions cannot be differentiated",
         "synchronous"),
    # lowering: in-place writes, array truth values, compile-time params
    Case(H.assigns_element, "setitem", "x[0]", SYNTAX,
         "writing into 'x' is not supported here: it is an argument", "copy"),
    Case(H.augassigns_element, "augsetitem", "y[0]", SYNTAX,
         "writing into 'y' is not supported here", "copy"),
    Case(H.array_and, "and", "(x > 0) and", SYNTAX,
         "the truth value of an array of shape (3,) is ambiguous", "(x > 0).any()"),
    Case(H.array_not, "not", "not x", SYNTAX,
         "the truth value of an array of shape (3,) is ambiguous", "(x > 0).all()"),
    Case(H.runtime_axis, "axis", "np.sum(x, axis", SYNTAX,
         "argument 'axis' of numpy.sum must be known when the function is compiled",
         "use a literal"),
    Case(H.no_return, "noreturn", "def ", CompileError, "no_return() does not return a value",
         "end the function with a return statement"),
    # calls without a derivative rule
    Case(H.calls_fft, "fft", "np.sqrt(np.fft", SYNTAX,
         "complex numbers are not supported yet: np.sqrt() of a complex value",
         "keep the real and imaginary parts as two real arrays"),
    Case(H.complex_literal, "complex", "1j", SYNTAX,
         "complex numbers are not supported yet: the literal 1j is complex",
         "keep the real and imaginary parts as two real arrays"),
    Case(H.calls_gamma, "gamma", "math.gamma(x)", NoRuleError,
         "call to math.gamma has no derivative rule", "st.register_vjp(math.gamma, rule)",
         args=(2.5,)),
    # what grad needs of the output
    Case(H.returns_vector, "vector", "x * 2.0", NonScalarOutputError,
         "grad needs a scalar output, but returns_vector() returns an array of shape (3,)",
         ".sum() or .mean()"),
    Case(H.returns_pair, "pair", "np.sum(x), x", NonScalarOutputError,
         "returns_pair() returns 2 values; grad needs one scalar", "has_aux=True"),
    # wrt
    Case(H.two_args, "params", "n)", WrtError,
         "cannot differentiate with respect to 'n': it is an integer argument",
         "only floating-point arguments", args=(X, 3), wrt=1),
    Case(H.bool_flag, "boolparam", "flag)", WrtError,
         "cannot differentiate with respect to 'flag': it is a boolean argument",
         "only floating-point arguments", args=(X, True), wrt="flag"),
    Case(H.int_index, "intparam", "idx)", WrtError,
         "cannot differentiate with respect to 'idx': it is an integer argument",
         "only floating-point arguments", args=(X, np.array([0, 2])), wrt=(0, 1)),
    Case(H.two_args, "params", "def ", WrtError,
         "wrt names 'z', but two_args() has no such parameter (its parameters: x, n)", None,
         args=(X, 3), wrt="z"),
    Case(H.two_args, "params", "def ", WrtError,
         "wrt=2 is out of range: two_args() takes 2 arguments", None, args=(X, 3), wrt=2),
    Case(H.two_args, "params", "def ", WrtError,
         "wrt=-3 is out of range: two_args() takes 2 arguments", None, args=(X, 3), wrt=-3),
    Case(H.two_args, "params", "def ", WrtError,
         "wrt must name arguments by position or name, got True", None, args=(X, 3), wrt=True),
    Case(H.two_args, "params", "def ", WrtError,
         "wrt must name arguments by position or name, got 1.5", None, args=(X, 3), wrt=1.5),
    # recursion and failures on the example inputs
    Case(H.recursive, "recursion", "recursive(x)", UnsupportedRecursionError,
         "recursive() is called again while it is being differentiated "
         "(recursive -> recursive); recursive functions are not supported",
         "rewrite the recursion"),
    Case(H.mutual, "pong", "ping(x)", UnsupportedRecursionError,
         "ping() is called again while it is being differentiated "
         "(mutual -> ping -> pong -> ping)",
         "rewrite the recursion"),
    Case(H.shape_mismatch, "mismatch", "z @ y", StaticEvaluationError,
         "matmul failed on the example arguments: ValueError: matmul", "fails for these inputs",
         args=(np.ones((2, 3)), np.ones((4, 2)))),
    # in-place updates that would change an array someone else sees
    # (other names holding the same array are rebound: tests/test_alias_writes.py)
    Case(H.update_argument, "argument", "x *= 2.0", SYNTAX,
         "in-place update of 'x' is not supported here: it is an argument, so the caller's "
         "array would change too", "write x = x * ... to make a new array"),
    Case(H.update_view, "view", "v += 1.0", SYNTAX,
         "in-place update of 'v' is not supported here: it may be a view of 'y' and would change "
         "too", "write v = v + ... to make a new array"),
]

#: errors whose message and location are right but which give no hint (yet)
NO_HINT = [
    Case(H.undefined_name, "undefined", "undefined_thing", CompileError,
         "name 'undefined_thing' is not defined", None),
    Case(H.array_invert, "invert", "~x", SYNTAX, "the operator ~ is not supported", None),
    Case(H.array_is, "is", "w is y", SYNTAX,
         "`is` between two runtime values, one of which may be any of several objects here",
         "compare values with ==",
         args=(X, X + 1.0)),
    Case(H.array_in, "in", "2.0 in x", SYNTAX, "`in` on a runtime value is not supported",
         "np.any(x == v)"),
    Case(H.bare_return, "barereturn", "return", CompileError, "return without a value", None),
    Case(H.unpack_mismatch, "unpack", "a, b", CompileError,
         "cannot unpack an array of length 3 into 2 names", None),
    Case(H.calls_tolist, "tolist", "x.tolist()", SYNTAX, "tolist() leaves NumPy", None),
    Case(H.bad_keyword, "keyword", "np.sum(x, bogus", CompileError,
         "numpy.sum got an unsupported keyword argument 'bogus' (supported: x, axis, keepdims)",
         None),
    Case(H.inline_too_many, "toomany", "helper(x, x, x)", CompileError,
         "helper() takes 2 positional arguments but 3 were given", None),
    Case(H.inline_missing, "missing", "helper(x)", CompileError,
         "helper() missing 1 required positional argument: 'b'", None),
    Case(H.unknown_module_attr, "modattr", "np.not_a_function", StaticRaiseError,
         "has no attribute 'not_a_function'", None),
    Case(H.unknown_array_attr, "arrayattr", "x.strides", SYNTAX,
         "arrays have no supported attribute 'strides'", None),
]


def compile_error(case: Case) -> CompileError:
    with pytest.raises(case.error) as info:
        st.grad(case.fn, wrt=case.wrt)(*case.args)
    assert type(info.value) is case.error  # not a more general or a sibling class
    return info.value


def check_diagnostic(exc: CompileError, case: Case) -> None:
    line, text = marked(case.marker)
    assert case.token in text, f"token {case.token!r} is not on line {line}"
    col = text.index(case.token) + 1
    assert case.message in exc.message
    assert (exc.loc.file, exc.loc.line, exc.loc.col) == (FILE, line, col)
    rendered = str(exc).splitlines()
    assert rendered[0] == f"{FILE}:{line}:{col}: error: {exc.message}"
    stripped = text.strip()
    indent = len(text) - len(text.lstrip())
    assert rendered[1] == "    " + stripped
    caret = rendered[2]
    assert caret.startswith("    " + " " * (col - 1 - indent) + "^"), caret
    assert set(caret.strip()) <= {"^", "~"} and len(caret) <= len(rendered[1])
    if case.hint is not None:
        assert len(rendered) == 4
        assert rendered[3] == f"hint: {exc.hint}"
        assert case.hint in exc.hint


def check_short_traceback(exc: BaseException) -> None:
    """No frames from the compiler's passes: the API re-raises from its own frame."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if f.filename.startswith(PACKAGE_DIR)]
    assert not [f for f in ours if os.sep + "transforms" + os.sep in f.filename], ours
    assert {os.path.basename(f.filename) for f in ours} <= {"api.py"}, ours
    assert exc.__cause__ is None and exc.__suppress_context__
    assert "st_autodiff/transforms" not in "".join(traceback.format_exception(exc))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_error_points_at_the_user_code_and_says_what_to_do(case):
    exc = compile_error(case)
    check_diagnostic(exc, case)
    check_short_traceback(exc)
    assert isinstance(exc, StAutodiffError)


@pytest.mark.parametrize("case", NO_HINT, ids=lambda c: c.id)
def test_error_without_hint_still_points_at_the_user_code(case):
    exc = compile_error(case)
    check_diagnostic(exc, case)
    check_short_traceback(exc)


def test_every_helper_function_is_used():
    used = {c.fn.__name__ for c in CASES + NO_HINT}
    helpers = {name for name, f in vars(H).items() if inspect.isfunction(f)
               and f.__module__ == H.__name__}
    support = {"helper", "ping", "pong", "from_exec", "_bump", "update_private",
               "calls_object"}  # calls_object now compiles (test_calls_objects.py)
    assert helpers - support == used


def test_value_and_grad_checks_the_output_too():
    with pytest.raises(NonScalarOutputError):
        st.value_and_grad(H.returns_vector)(X)


def test_builtin_without_a_rule_names_the_register_hint():
    """A C callable the rule table does not know (np.sin and the like are differentiated
    from the table: tests/test_library_callers.py) says so, with the register hint."""
    with pytest.raises(NoRuleError) as info:
        st.grad(math.factorial)(3)
    exc = info.value
    assert exc.loc is None
    assert str(exc) == (
        "error: math.factorial has no derivative rule, and it is compiled code with no "
        "Python source to differentiate\n"
        "hint: register one with st.register_vjp(math.factorial, rule), where "
        "rule(g, out, *args) returns one gradient per argument")
    check_short_traceback(exc)


def test_callable_object_is_read_through_its_call_method():
    _, pull = st.vjp(H.scale, X)  # (its __call__ is a Python method: tests/test_binding.py)
    np.testing.assert_allclose(pull(np.ones(3))[0], 2.0 * np.ones(3))


def test_partial_object_is_read_through_a_generated_caller():
    part = functools.partial(H.two_args, n=3)
    g = st.grad(part)(X)
    np.testing.assert_allclose(g, st.grad(H.two_args)(X, 3))


def test_source_of_an_exec_function_is_unavailable():
    with pytest.raises(SourceUnavailableError) as info:
        st.grad(H.from_exec)(X)
    exc = info.value
    assert exc.loc is None
    assert "cannot read the source of 'from_exec' (defined in <string>)" in exc.message
    assert "built with exec()" in exc.message
    assert exc.hint == "define the function in a .py file or a notebook cell"
    check_short_traceback(exc)


def test_errors_are_raised_again_on_the_next_call():
    g = st.grad(H.uses_if)
    for _ in range(2):
        with pytest.raises(UnsupportedSyntaxError):
            g(X)


def test_in_place_update_of_a_private_array_is_allowed():
    x = np.array([1.0, 2.0, 3.0])
    g = st.grad(H.update_private)(x)
    # d/dx [sum(2x + 1) + 3 * sum(x)] = 2 + 3
    np.testing.assert_allclose(g, np.full(3, 5.0))
