"""Constants in generated code are source that evaluates to the same value and dtype.

A static array that reached an op's parameter (``np.moveaxis(a, source=np.array([0]))``
on NumPy 2.2) was written as ``array([0])``: a NameError in the generated function.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from st_autodiff.transforms.codegen import literal

CASES = [np.array([0]), np.array([[1.5, np.inf], [np.nan, -0.0]]), np.array(True),
         np.array([], dtype=np.int32), np.zeros((0, 3)), np.array([3], dtype=np.uint8),
         np.int64(7), np.float32(0.1), 2.5, float("inf"), (1, (2.0, np.int16(3)))]


@pytest.mark.parametrize("value", CASES, ids=[repr(c) for c in CASES])
def test_literal_round_trips(value: Any) -> None:
    back = eval(literal(value), {"xp": np})  # noqa: S307  (the generated code's namespace)
    if isinstance(value, np.ndarray):
        assert back.dtype == value.dtype and back.shape == value.shape
        np.testing.assert_array_equal(back, value)
    elif isinstance(value, tuple):
        assert back == value
    else:
        assert type(back) is type(value) and (back == value or np.isnan(back))
