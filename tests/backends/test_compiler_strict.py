"""The whole compiler corpus on ``array_api_strict``: the stand-in for a device library
that only has the array API standard (no NumPy functions, no array methods, no implicit
conversion to NumPy, no Python-scalar-only calls).  Every place where generated code or
its runtime support reached for NumPy fails here.

Each entry's gradient on ``array_api_strict`` arrays equals NumPy's to 1e-12 and is an
``array_api_strict`` array; an entry calling a NumPy function outside the standard gets
the located ``BackendUnsupportedError`` at the user's line, and an entry whose own code is
outside the standard gets the namespace's own error (both listed in ``corpus_on``).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from st_autodiff.errors import DerivativeRuntimeError
from st_autodiff.runtime.backend import BackendUnsupportedError

from .corpus_on import OUTSIDE_STANDARD, UNSUPPORTED, entries, run_entry

xs = pytest.importorskip("array_api_strict")
_ARRAY = type(xs.asarray(0.0))


def _to_numpy(a: object) -> np.ndarray:
    return np.from_dlpack(a)


@pytest.mark.parametrize("entry", entries(), ids=lambda e: e.name)
def test_corpus_entry_on_array_api_strict(entry: object) -> None:
    name = entry.name  # type: ignore[attr-defined]
    run = lambda: run_entry(entry, xs.asarray, lambda v: isinstance(v, _ARRAY),  # noqa: E731
                            _to_numpy)
    if name in UNSUPPORTED:
        function, where = UNSUPPORTED[name]
        with pytest.raises(BackendUnsupportedError) as info:
            run()
        text = str(info.value)
        assert function in text and "array_api_strict" in text, text
        assert info.value.loc is not None and f"{info.value.loc.file.rsplit('/', 1)[-1]}:" \
            f"{info.value.loc.line}" == where, text
    elif name in OUTSIDE_STANDARD:
        kind, words = OUTSIDE_STANDARD[name]
        with pytest.raises(Exception) as info:  # noqa: PT011 (checked below)
            run()
        err = info.value  # (raised in the adjoint part: located, the namespace's cause)
        err = err.__cause__ if isinstance(err, DerivativeRuntimeError) else err
        assert isinstance(err, kind) and words in str(err), repr(info.value)
    else:
        run()


def test_the_lists_name_corpus_entries_and_are_few() -> None:
    """What does not run on the standard is listed with counts, and is a small part."""
    names = {e.name for e in entries()}
    assert set(UNSUPPORTED) <= names and set(OUTSIDE_STANDARD) <= names
    counts = Counter(f for f, _ in UNSUPPORTED.values())
    assert counts == {"numpy.einsum": 4}
    assert len(UNSUPPORTED) + len(OUTSIDE_STANDARD) <= len(names) // 25
