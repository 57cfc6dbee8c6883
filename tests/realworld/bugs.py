"""The wrong results the corpus finds today: one reason string per bug, and a minimal
reproduction of each for ``docs/realworld.md``.

Entries that hit one are strict xfails naming it (``Entry.xfail``): when the compiler is
fixed the xfail turns into an unexpected pass and the mark must go.
"""

BOUND_METHOD = ("RW1: st.grad(bound method or classmethod) crashes with an unlocated "
                "IndexError in transforms/lower.py (the bound self or cls is not among the "
                "example arguments)")
KEYWORD_ONLY = ("RW2: a keyword-only parameter: the body uses its default and the value "
                "given becomes out_bar, so the gradient is scaled by it")
UNLOCATED_CALLABLE = ("RW3: st.grad of a callable object or functools.partial raises "
                      "SourceUnavailableError without a location")
STALE_GLOBAL = ("RW4: a module global or closure variable rebound between two calls of one "
                "compiled gradient keeps its old value (stale value and gradient)")
DEFAULT_ARG_MODES = ("RW5: st.jvp and st.hessian of a function called without its "
                     "defaulted argument crash with an unlocated IndexError in "
                     "transforms/lower.py, or refuse with a false EvaluationError or "
                     "NonScalarOutputError")
CUMPROD_ZERO = ("RW6: np.cumprod's gradient divides by the input: NaN where an element "
                "is zero (central differences are finite)")

#: Minimal reproductions, by reason (saved in a .py file: the compiler reads source).
REPRODUCTIONS: dict[str, str] = {
    BOUND_METHOD: """\
class M:
    def loss(self, w):
        return np.sum(w ** 2)

st.grad(M().loss)(np.array([0.5, 0.1]))
# IndexError: list index out of range (st_autodiff/transforms/lower.py, in lower)
# expected [1.0, 0.2]; a classmethod (st.grad(Model.loss_cls)) and statsmodels'
# st.grad(Logit(y, X).loglike) hit the same; a staticmethod works""",
    KEYWORD_ONLY: """\
def h(w, *, scale=3.0):
    return np.sum(w ** 2)

st.grad(h)(np.array([1.0, 2.0]))             # [6, 12], expected [2, 4]
st.grad(h)(np.array([1.0, 2.0]), scale=5.0)  # [10, 20], expected [2, 4]
# the generated f_grad(w, out_bar=1.0) receives scale as out_bar
def p(*, w):
    return np.sum(w ** 2)
st.grad(p, wrt="w")(w=np.ones(2))   # WrtError: p() has no such parameter (its parameters: )""",
    UNLOCATED_CALLABLE: """\
st.grad(functools.partial(f, lam=0.7))(w)   # SourceUnavailableError, loc None
st.grad(model)(w)                            # model has __call__; same, loc None""",
    STALE_GLOBAL: """\
Y = np.array([1.0, 2.0]); SCALE = 2.0
def f(w):
    return SCALE * np.sum((w - Y) ** 2)
g = st.grad(f); g(np.array([0.5, 0.5]))      # [-2, -6], right
Y = np.array([5.0, 5.0]); SCALE = 1.0
g(np.array([0.5, 0.5]))                      # [-2, -6] again, expected [-9, -9]
# a closure variable rebound after st.grad (nonlocal) behaves the same""",
    DEFAULT_ARG_MODES: """\
def f(w, d=2.0):
    return d * np.sum(w ** 3)
w = np.array([0.5, 1.0, 1.5])
st.jvp(f, (w,), (np.ones(3),))     # IndexError in transforms/lower.py
st.hessian(f, mode="reverse")(w)   # IndexError in transforms/lower.py
st.hessian(f)(w)                   # NonScalarOutputError: "f() returns an array"
st.hessian(f)(w, 2.0)              # right: diag(12 w)""",
    CUMPROD_ZERO: """\
def f(a):
    return np.sum(np.cumprod(a))
st.grad(f)(np.array([2.0, 0.0, 3.0]))   # [1, nan, 0], expected [1, 8, 0]
# np.prod with a zero is right""",
}
