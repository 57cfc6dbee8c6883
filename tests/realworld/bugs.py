"""The wrong results the corpus finds: one reason string per bug, and a minimal
reproduction of each for ``docs/realworld.md``.

Entries that hit one are strict xfails naming it (``Entry.xfail``): when the compiler is
fixed the xfail turns into an unexpected pass and the mark must go.

None is open.  The six the corpus found when it was built were fixed at their root:
RW1 bound methods and classmethods (an unlocated IndexError), RW2 keyword-only parameters
(the value given became ``out_bar``), RW3 callable objects and ``functools.partial``
(unlocated refusals), RW4 globals and closure cells rebound between calls (stale values:
now guarded), RW5 defaulted arguments in ``jvp``/``hessian`` (tangents landed in them), RW6
``np.cumprod`` at zeros (NaN: the rules now handle a slice's first zero).
"""

#: Minimal reproductions, by reason (saved in a .py file: the compiler reads source).
REPRODUCTIONS: dict[str, str] = {}
