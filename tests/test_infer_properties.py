"""Hypothesis: the type rules of elementwise ops and reductions against the kernels, on
drawn shapes (broadcastable or not), dtypes and value kinds (arrays, 0-d arrays, NumPy
scalars, Python numbers), axes and ``keepdims``."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from st_autodiff.ir.abstract import Abstract, abstract_of
from st_autodiff.ir.infer import infer
from st_autodiff.ir.kernels import run
from st_autodiff.ir.ops import OP_INFO, Op
from st_autodiff.ir.types import Type

DTYPES = ["float64", "float32", "int64", "int32", "int8", "bool"]
BINARY = sorted((op for op, info in OP_INFO.items() if info.elementwise and len(
    info.inputs) == 2), key=lambda o: o.value)
UNARY = sorted((op for op, info in OP_INFO.items() if info.elementwise and len(
    info.inputs) == 1), key=lambda o: o.value)
REDUCTIONS = [Op.SUM, Op.MEAN, Op.PROD, Op.MAX, Op.MIN, Op.VAR, Op.STD, Op.ANY, Op.ALL,
              Op.LOGSUMEXP]


def _value(draw: Any, shape: tuple[int, ...]) -> Any:
    """A value of ``shape``: an array, or for ``()`` maybe a NumPy or Python number."""
    dtype = draw(st.sampled_from(DTYPES))
    kind = draw(st.sampled_from(["array", "scalar", "python"])) if shape == () else "array"
    arr = np.ones(shape, dtype)
    if kind == "scalar":
        return arr[()]
    if kind == "python":
        return draw(st.sampled_from([2.5, 3, True]))
    return arr


@st.composite
def binary_cases(draw: Any) -> tuple:
    op = draw(st.sampled_from(BINARY))
    if draw(st.booleans()):
        shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4,
                                                        max_side=4)).input_shapes
    else:  # maybe not broadcastable: both must refuse
        shapes = tuple(draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0,
                                             max_side=3)) for _ in range(2))
    return op, tuple(_value(draw, s) for s in shapes)


def _expect(op: Op, inputs: tuple, params: dict) -> tuple[Any, Exception | None]:
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return abstract_of(run(op, np, inputs, params)), None
        except Exception as exc:  # noqa: BLE001
            return None, exc


def _agree(op: Op, inputs: tuple, params: dict) -> None:
    expected, error = _expect(op, inputs, params)
    abstract = abstract_of(inputs)
    if error is not None:
        try:
            got = infer(op, abstract, params)
        except Exception as exc:  # noqa: BLE001
            assert isinstance(exc, (type(error), ValueError, TypeError)), (exc, error)
            return
        raise AssertionError(f"kernel raised {error!r}, infer gave {got}")
    got = infer(op, abstract, params)
    if isinstance(expected, (bool, int)) and any(isinstance(v, Abstract) for v in abstract):
        expected = Abstract(Type("bool" if isinstance(expected, bool) else "int"))
    assert got == expected, (op, inputs, params)


@settings(max_examples=300, deadline=None)
@given(binary_cases())
def test_binary_elementwise(case: tuple) -> None:
    op, inputs = case
    _agree(op, inputs, {})


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(UNARY), hnp.array_shapes(min_dims=0, max_dims=3, min_side=0,
                                                max_side=3), st.data())
def test_unary_elementwise(op: Op, shape: tuple, data: Any) -> None:
    x = _value(data.draw, shape)
    _agree(op, (x,), OP_INFO[op].param_defaults)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(REDUCTIONS), hnp.array_shapes(min_dims=0, max_dims=4, min_side=0,
                                                     max_side=3), st.data())
def test_reductions(op: Op, shape: tuple, data: Any) -> None:
    x = _value(data.draw, shape)
    nd = len(shape)
    axis = data.draw(st.one_of(
        st.none(), st.integers(-nd - 1, nd),
        st.lists(st.integers(-nd, max(nd - 1, 0)), max_size=3).map(tuple)))
    params = dict(OP_INFO[op].param_defaults, axis=axis, keepdims=data.draw(st.booleans()))
    _agree(op, (x,), params)
    # an unknown input shape: the same dtype; the shape only where the rule knows it
    expected, error = _expect(op, (x,), params)
    if error is None and isinstance(x, np.ndarray) and isinstance(expected, Abstract):
        got = infer(op, (Abstract(Type("array", str(x.dtype), None)),), params)
        assert got.type.dtype == expected.type.dtype
        assert got.type.shape is None and not got.generic or got == expected


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([Op.CUMSUM, Op.CUMPROD, Op.ARGMAX, Op.ARGMIN]),
       hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3), st.data())
def test_scans_and_arg_reductions(op: Op, shape: tuple, data: Any) -> None:
    x = _value(data.draw, shape)
    axis = data.draw(st.one_of(st.none(), st.integers(-len(shape) - 1, len(shape))))
    _agree(op, (x,), {"axis": axis})
