"""Hypothesis: the type rules of elementwise ops and reductions against the kernels, on
drawn shapes (broadcastable or not), dtypes and value kinds (arrays, 0-d arrays, NumPy
scalars, Python numbers), axes and ``keepdims``."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from st_autodiff.ir.abstract import Abstract, NotKnown, abstract_of
from st_autodiff.ir.infer import NoTypeRule, infer
from st_autodiff.ir.infer_index import _OLD_NUMPY
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


def _agree(op: Op, inputs: tuple, params: dict, constants: int = 0) -> None:
    """The rule and the kernel agree (or both refuse); the last ``constants`` inputs
    stay concrete (constant index arrays)."""
    expected, error = _expect(op, inputs, params)
    cut = len(inputs) - constants
    abstract = abstract_of(inputs[:cut]) + inputs[cut:]
    if error is not None:
        try:
            got = infer(op, abstract, params)
        except NoTypeRule:  # typed by the kernel on stand-ins instead (NumPy < 2.3 writes)
            assert _OLD_NUMPY and op in (Op.SETITEM, Op.INDEX_ADD)
            return
        except Exception as exc:  # noqa: BLE001
            # (NumPy 2.2 says IndexError where later ones say ValueError: both refuse)
            assert isinstance(exc, (type(error), ValueError, TypeError, IndexError)), (
                exc, error)
            return
        raise AssertionError(f"kernel raised {error!r}, infer gave {got}")
    try:
        got = infer(op, abstract, params)
    except NoTypeRule:  # typed by the kernel on stand-ins instead (NumPy < 2.3 writes)
        assert _OLD_NUMPY and op in (Op.SETITEM, Op.INDEX_ADD)
        return
    except NotKnown:  # a type NumPy picks by value (< 2.3's fast powers): none claimed
        assert op is Op.POW
        return
    if isinstance(expected, (bool, int)) and any(isinstance(v, Abstract) for v in abstract):
        expected = Abstract(Type("bool" if isinstance(expected, bool) else "int"))
    assert got == expected, (op, inputs, params)


@settings(max_examples=150, deadline=None)
@given(binary_cases())
def test_binary_elementwise(case: tuple) -> None:
    op, inputs = case
    _agree(op, inputs, {})


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(UNARY), hnp.array_shapes(min_dims=0, max_dims=3, min_side=0,
                                                max_side=3), st.data())
def test_unary_elementwise(op: Op, shape: tuple, data: Any) -> None:
    x = _value(data.draw, shape)
    _agree(op, (x,), OP_INFO[op].param_defaults)


@settings(max_examples=150, deadline=None)
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


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([Op.CUMSUM, Op.CUMPROD, Op.ARGMAX, Op.ARGMIN]),
       hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3), st.data())
def test_scans_and_arg_reductions(op: Op, shape: tuple, data: Any) -> None:
    x = _value(data.draw, shape)
    axis = data.draw(st.one_of(st.none(), st.integers(-len(shape) - 1, len(shape))))
    _agree(op, (x,), {"axis": axis})


@st.composite
def index_cases(draw: Any) -> tuple:
    """An array shape and an index for it: ints (some out of bounds), slices, None, one
    Ellipsis, integer arrays (broadcastable or not) and constant boolean masks."""
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4))
    static: list[Any] = []
    dyn: list[Any] = []
    dim, ell = 0, False
    for _ in range(draw(st.integers(0, 5))):
        left = len(shape) - dim
        kind = draw(st.sampled_from(["int", "slice", "none", "ell", "arr", "mask"]))
        if kind in ("int", "slice", "arr", "mask") and left == 0 or kind == "ell" and ell:
            kind = "none"
        if kind == "int":
            static.append(draw(st.integers(-shape[dim] - 1, shape[dim])))
        elif kind == "slice":
            bound = st.one_of(st.none(), st.integers(-6, 6))
            step = st.one_of(st.none(), st.integers(-3, 3).filter(bool))
            static.append(("slice", draw(bound), draw(bound), draw(step)))
        elif kind == "none":
            static.append(None)
            continue
        elif kind == "ell":
            static.append(Ellipsis)
            ell = True
            continue
        elif kind == "arr":
            n = max(shape[dim], 1)
            ishape = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3))
            dyn.append(draw(hnp.arrays(np.int64, ishape, elements=st.integers(-n, n - 1))))
            static.append(("in", len(dyn) - 1))
        else:
            k = draw(st.integers(1, left))
            dyn.append(draw(hnp.arrays(np.bool_, shape[dim:dim + k])))
            static.append(("in", len(dyn) - 1))
            dim += k - 1
        dim += 1
    return shape, tuple(static), tuple(dyn)


@settings(max_examples=200, deadline=None)
@given(index_cases(), st.sampled_from(["float64", "int32", "bool"]))
def test_indexing(case: tuple, dtype: str) -> None:
    """getitem's rule against NumPy on drawn indices: constant index arrays give exact
    shapes; abstract ones the same, except a mask's count (unknown)."""
    shape, index, dyn = case
    x = np.ones(shape, dtype)
    params = {"index": index}
    expected, error = _expect(Op.GETITEM, (x, *dyn), params)
    inputs = (abstract_of(x), *dyn)
    if error is not None:
        with pytest.raises((type(error), IndexError, ValueError, TypeError)):
            infer(Op.GETITEM, inputs, params)
        return
    assert infer(Op.GETITEM, inputs, params) == expected
    got = infer(Op.GETITEM, abstract_of((x, *dyn)), params)
    if any(d.dtype == bool and d.ndim for d in dyn):  # a mask's count: maybe unknown
        assert got in (Abstract(Type("array", dtype, None)), expected)
    else:
        assert got == expected


@settings(max_examples=100, deadline=None)
@given(index_cases(), st.sampled_from(["float64", "int32"]), st.data())
def test_writes(case: tuple, dtype: str, data: Any) -> None:
    """setitem and index_add: the value must fit the indexed part (NumPy's rule)."""
    shape, index, dyn = case
    x = np.ones(shape, dtype)
    target, error = _expect(Op.GETITEM, (x, *dyn), {"index": index})
    if error is not None or not isinstance(target, Abstract):
        return
    vshape = list(target.shape)
    for k in range(len(vshape)):  # broadcastable, or not
        vshape[k] = data.draw(st.sampled_from([vshape[k], 1, vshape[k] + 1]))
    vshape = [1] * data.draw(st.integers(0, 1)) + vshape[data.draw(st.integers(
        0, len(vshape))):]
    v = np.ones(vshape, data.draw(st.sampled_from(["float64", "float32", "int64"])))
    for op in (Op.SETITEM, Op.INDEX_ADD):
        _agree(op, (x, v, *dyn), {"index": index}, constants=len(dyn))


def _matrix_shapes(draw: Any) -> tuple:
    a = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3))
    b = list(draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)))
    if a and b and draw(st.booleans()):  # align the contracted dimension
        b[max(len(b) - 2, 0)] = a[-1]
    return a, tuple(b)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([Op.MATMUL, Op.DOT, Op.INNER, Op.VDOT, Op.OUTER]), st.data())
def test_products(op: Op, data: Any) -> None:
    a, b = _matrix_shapes(data.draw)
    dts = st.sampled_from(["float64", "float32", "int64", "bool"])
    x, y = np.ones(a, data.draw(dts)), np.ones(b, data.draw(dts))
    _agree(op, (x, y), {})


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_einsum(data: Any) -> None:
    """Drawn subscripts (explicit or implicit output, repeated labels) on drawn sizes."""
    labels = "ijk"
    sizes = {c: data.draw(st.integers(1, 3)) for c in labels}
    terms = ["".join(data.draw(st.lists(st.sampled_from(labels), min_size=0, max_size=3)))
             for _ in range(data.draw(st.integers(1, 2)))]
    used = sorted(set("".join(terms)))
    out = "".join(data.draw(st.permutations(used))[:data.draw(st.integers(0, len(used)))])
    subscripts = ",".join(terms) + (("->" + out) if data.draw(st.booleans()) else "")
    operands = tuple(np.ones([sizes[c] if data.draw(st.integers(0, 5)) else
                              sizes[c] + 1 for c in t]) for t in terms)
    _agree(Op.EINSUM, operands, {"subscripts": subscripts})
