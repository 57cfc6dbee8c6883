"""Line-by-line comparison of two program outputs: numbers within tolerance, the rest exact.

Each line is split into number tokens and the text between them. The text must match
exactly (names, reprs, ``grad_fn`` names, error messages); integers must match exactly;
a float token matches when it is within ``REL``/``ABS`` of the other or, for values printed
with three or more decimals, within one unit of the last printed digit (two libraries
that agree to float32 precision can still round a printed value to neighbouring digits).
"""

from __future__ import annotations

import re

REL = 1e-4
ABS = 1e-5

# a number not glued to a name (``conv1``, ``AddBackward0``) or to another number
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w])")


def tokens(line: str) -> list[str]:
    """Alternating text and number tokens: text at even positions, numbers at odd ones."""
    parts: list[str] = []
    last = 0
    for match in _NUMBER.finditer(line):
        parts.append(line[last:match.start()])
        parts.append(match.group())
        last = match.end()
    parts.append(line[last:])
    return parts


def _decimals(token: str) -> tuple[int, int]:
    """(digits after the point, decimal exponent) of a printed float."""
    mantissa, _, exponent = token.lower().partition("e")
    digits = len(mantissa.partition(".")[2])
    return digits, int(exponent) if exponent else 0


def numbers_match(expected: str, actual: str) -> bool:
    """Whether two printed numbers agree (exactly for integers, within tolerance else)."""
    is_float = any(c in expected for c in ".eE")
    if is_float != any(c in actual for c in ".eE"):
        return False  # ``30`` against ``30.``: an integer printed where a float was, or back
    if not is_float:
        return expected.lstrip("+") == actual.lstrip("+")
    a, b = float(expected), float(actual)
    diff = abs(a - b)
    if diff <= max(ABS, REL * max(abs(a), abs(b))):
        return True
    (da, ea), (db, eb) = _decimals(expected), _decimals(actual)
    places = min(da, db)
    if places >= 3:
        unit = 10.0 ** (max(ea, eb) - places)
        return diff <= unit * 1.001
    return False


def lines_match(expected: str, actual: str) -> bool:
    """Whether one printed line agrees with another."""
    if expected == actual:
        return True
    left, right = tokens(expected), tokens(actual)
    if len(left) != len(right):
        return False
    for i, (x, y) in enumerate(zip(left, right)):
        if i % 2 == 0:
            if x != y:
                return False
        elif not numbers_match(x, y):
            return False
    return True


def first_difference(expected: str, actual: str) -> str | None:
    """None when the outputs agree, else a one-line description of the first difference."""
    left, right = expected.splitlines(), actual.splitlines()
    for i in range(max(len(left), len(right))):
        x = left[i] if i < len(left) else "<end of output>"
        y = right[i] if i < len(right) else "<end of output>"
        if i >= len(left) or i >= len(right) or not lines_match(x, y):
            return f"line {i + 1}: expected {x!r}, got {y!r}"
    return None


def is_close(expected: str, actual: str) -> bool:
    """Used by tests: ``first_difference`` is None."""
    return first_difference(expected, actual) is None


