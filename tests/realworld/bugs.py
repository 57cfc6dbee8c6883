"""The wrong results the corpus finds today, one reason string per bug.

Entries that hit one are strict xfails naming it (``Entry.xfail``): when the compiler is
fixed the xfail turns into an unexpected pass and the mark must go.  ``docs/realworld.md``
lists them with reproductions.
"""

BOUND_METHOD = ("RW1: st.grad(bound method) crashes with an unlocated IndexError in "
                "transforms/lower.py (the bound self is not among the example arguments)")
KEYWORD_ONLY = ("RW2: a keyword-only parameter: the body uses its default and the value "
                "given becomes out_bar, so the gradient is scaled by it")
UNLOCATED_CALLABLE = ("RW3: st.grad of a callable object or functools.partial raises "
                      "SourceUnavailableError without a location")
STALE_GLOBAL = ("RW4: a module global rebound between two calls of one compiled gradient "
                "keeps its old value (stale value and gradient)")
