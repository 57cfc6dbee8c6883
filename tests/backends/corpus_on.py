"""The compiler corpus on another array namespace: what the backend suites share.

``run_entry`` compiles one corpus entry's gradient twice, once for its NumPy arguments and
once for the same arguments converted to another namespace, and compares the two.  The
expected outcome of every entry that cannot run on the array API standard is listed here
with the reason: the located error for a NumPy function the standard lacks, or the error
the namespace itself raises for user code outside the standard.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

try:
    from corpus import CORPUS, Entry
except ImportError:  # tests/ imported as a package
    from tests.corpus import CORPUS, Entry  # type: ignore[no-redef]

import st_autodiff as st

#: entries that call a NumPy function outside the array API standard: compiling them for
#: array-API arrays raises BackendUnsupportedError at this line of the user's code
UNSUPPORTED = {
    "la_einsum": ("numpy.einsum", "functions.py:227"),
    "la_einsum_spellings": ("numpy.einsum", "functions.py:771"),
    "la_einsum_size1_broadcast": ("numpy.einsum", "functions.py:838"),
    "model_self_attention_batched": ("numpy.einsum", "models.py:94"),
}

#: entries whose own code is outside the standard (the namespace refuses it when it
#: runs, as it would without st_autodiff): the error type and a part of its message
OUTSIDE_STANDARD = {
    "lst_concat_rows": (TypeError, "cannot be type promoted"),  # float64 * arange(int)
    "shp_creation": (TypeError, "cannot be type promoted"),  # float64 * arange(int)
    "idx_repeated_ints": (IndexError, "only integers, slices"),  # x[[4, 4, 2]]
    "idx_bool_mask": (IndexError, "masking is only specified"),  # x[:, mask[0]]
}


def convert(value: Any, to: Callable[[np.ndarray], Any]) -> Any:
    """``value`` with every NumPy array in it converted by ``to`` (tuples, lists, dicts
    kept)."""
    if isinstance(value, np.ndarray):
        return to(value)
    if isinstance(value, (tuple, list)):
        return type(value)(convert(v, to) for v in value)
    if isinstance(value, dict):
        return {k: convert(v, to) for k, v in value.items()}
    return value


def leaves(value: Any) -> list[Any]:
    """The non-container items of a result, in order."""
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in leaves(v)]
    if isinstance(value, dict):
        return [x for v in value.values() for x in leaves(v)]
    return [value]


def run_entry(entry: Entry, to: Callable[[np.ndarray], Any], is_array: Callable[[Any], bool],
              to_numpy: Callable[[Any], np.ndarray], rtol: float = 1e-12) -> None:
    """Assert that ``entry``'s gradient on converted arguments equals NumPy's, and that
    every array gradient is an array of the other namespace (not a host array)."""
    args = entry.make_args(np.random.default_rng(0))
    g = st.grad(entry.fn, wrt=entry.wrt, has_aux=entry.has_aux)
    want = leaves(g(*args))
    got = leaves(g(*convert(args, to)))
    assert len(got) == len(want)
    for w, v in zip(want, got):
        if isinstance(w, np.ndarray) and w.ndim > 0:
            assert is_array(v), f"a {type(v).__name__} where an array was expected"
        if isinstance(w, (np.ndarray, np.generic, float)):
            v = to_numpy(v) if is_array(v) else np.asarray(v)
            w = np.asarray(w)
            assert v.shape == w.shape and v.dtype == w.dtype, (v.shape, v.dtype, w.dtype)
            scale = max(1.0, float(np.max(np.abs(w)))) if w.size else 1.0
            np.testing.assert_allclose(v, w, rtol=rtol, atol=rtol * scale)
        else:
            assert v == w


def entries() -> list[Entry]:
    """Every corpus entry (the control-flow ones included)."""
    return list(CORPUS)
