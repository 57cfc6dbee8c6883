"""Differences from PyTorch 2.13 found by the second round of differential testing of the
eager runtime (nn modules, optim, the module API, custom ``Function``, ``autograd.grad``,
in-place ops; live comparisons in ``test_eagerdiff2_torch.py``), each fixed.  The
expectations are what PyTorch 2.13 (CPU) gives, stored here so that these tests run
without PyTorch."""

from __future__ import annotations

import re

import pytest

import st_autodiff as torch


def _raises(exc: type[BaseException], message: str, f: object) -> None:
    with pytest.raises(exc, match=f"^{re.escape(message)}$"):
        f()  # type: ignore[operator]


# --- custom autograd.Function ---------------------------------------------------------------


class _Scale(torch.autograd.Function):
    """``k * a * b`` with a number first and a list last: only Tensors get edges."""

    @staticmethod
    def forward(ctx, k, a, b, extra):  # type: ignore[no-untyped-def]
        ctx.save_for_backward(a, b)
        ctx.k = k
        return a * b * k

    @staticmethod
    def backward(ctx, g):  # type: ignore[no-untyped-def]
        a, b = ctx.saved_tensors
        return None, g * b * ctx.k, g * a * ctx.k, None


def test_function_edges_are_its_tensor_arguments_only() -> None:
    # was: ((None, 0), (AccumulateGrad, 0), (None, 0), (None, 0)): an edge per argument
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = _Scale.apply(3.0, x, torch.ones(2), [1])
    fns = y.grad_fn.next_functions
    assert [None if f is None else type(f).__name__ for f, _ in fns] == ["AccumulateGrad", None]
    assert y.grad_fn.k == 3.0  # PyTorch's node is the ctx
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def _returning(grads: tuple[object, ...]) -> type:
    class B(torch.autograd.Function):
        @staticmethod
        def forward(ctx, k, a):  # type: ignore[no-untyped-def]
            return a * k

        @staticmethod
        def backward(ctx, g):  # type: ignore[no-untyped-def]
            return grads

    return B


def test_function_gradient_checks_name_positions_as_pytorch() -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    # was: accepted (and dropped) a gradient for the number argument
    b = _returning((torch.ones(2), torch.ones(2)))
    _raises(RuntimeError, "function BBackward returned a gradient different than None at "
            "position 1, but the corresponding forward input was not a Variable",
            lambda: b.apply(2.0, x).sum().backward())
    # was: NumPy's ValueError "shape mismatch: objects cannot be broadcast ..."
    b = _returning((None, torch.ones(3)))
    _raises(RuntimeError, "Function BBackward returned an invalid gradient at index 0 - got "
            "[3] but expected shape compatible with [2]",
            lambda: b.apply(2.0, x).sum().backward())
    b = _returning((None, torch.ones(1)))
    _raises(RuntimeError, "Function BBackward returned an invalid gradient at index 0 - got "
            "[1] but expected shape compatible with [2]",
            lambda: b.apply(2.0, x).sum().backward())
    b = _returning((None, torch.ones(2)))
    _raises(RuntimeError, "function BBackward returned an incorrect number of gradients "
            "(expected 2, got 1)", lambda: _returning((None,)).apply(2.0, x).sum().backward())
    b = _returning((None, torch.ones(3, 2), None))  # summed down; a trailing None is allowed
    b.apply(2.0, x).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


class _Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):  # type: ignore[no-untyped-def]
        ctx.save_for_backward(a)
        return a * a

    @staticmethod
    def backward(ctx, g):  # type: ignore[no-untyped-def]
        a, = ctx.saved_tensors
        return 2 * a * g


class _Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):  # type: ignore[no-untyped-def]
        r = a * 2
        ctx.save_for_backward(r)
        return r

    @staticmethod
    def backward(ctx, g):  # type: ignore[no-untyped-def]
        r, = ctx.saved_tensors
        return g * r


_HINT = ("Hint: enable anomaly detection to find the operation that failed to compute its "
         "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")


def test_function_saved_tensors_are_version_checked_and_freed() -> None:
    # was: the changed values were used silently, and a second backward worked
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a = x * 1
    y = _Square.apply(a)
    a.add_(1)
    _raises(RuntimeError, "one of the variables needed for gradient computation has been "
            "modified by an inplace operation: [torch.FloatTensor [3]], which is output 0 of "
            f"Add, is at version 1; expected version 0 instead. {_HINT}",
            lambda: y.sum().backward())
    y = _Double.apply(x)
    y.add_(1)
    _raises(RuntimeError, "one of the variables needed for gradient computation has been "
            "modified by an inplace operation: [torch.FloatTensor [3]], which is output 0 of "
            f"_Double, is at version 1; expected version 0 instead. {_HINT}",
            lambda: y.sum().backward())
    y = _Square.apply(x)
    assert y.grad_fn.saved_tensors[0] is x
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 4.0, 6.0]
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second"):
        y.sum().backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second"):
        y.grad_fn.saved_tensors  # noqa: B018
    y = _Square.apply(x)
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    assert x.grad.tolist() == [6.0, 12.0, 18.0]


# --- module API ------------------------------------------------------------------------------


def test_replacing_a_parameter_or_child_keeps_its_position() -> None:
    # was: the replaced entry moved to the end: parameters() as [bias, weight], and a
    # Sequential whose child was replaced ran it last
    nn = torch.nn
    torch.manual_seed(0)
    m = nn.Linear(2, 2)
    m.weight = nn.Parameter(torch.ones(2, 2))
    assert [n for n, _ in m.named_parameters()] == ["weight", "bias"]
    assert list(m.state_dict()) == ["weight", "bias"]
    s = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    s[1] = nn.Sigmoid()
    assert [type(c).__name__ for c in s] == ["Linear", "Sigmoid", "Linear"]
    assert s(torch.ones(1, 2)).shape == (1, 1)
    ml = nn.ModuleList([nn.ReLU(), nn.Tanh(), nn.ReLU()])
    ml[1] = nn.Sigmoid()
    assert [type(c).__name__ for c in ml] == ["ReLU", "Sigmoid", "ReLU"]


def test_sequential_deletion_renumbers_and_list_operations() -> None:
    from collections import OrderedDict

    nn = torch.nn
    # was: keys '0', '2' after ``del s[1]`` (PyTorch renumbers, OrderedDict names too)
    s = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    del s[1]
    assert list(s.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias"]
    d = nn.Sequential(OrderedDict([("fc", nn.Linear(2, 3)), ("act", nn.ReLU()),
                                   ("out", nn.Linear(3, 1))]))
    del d[1]
    assert list(d.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias"]
    # were missing: insert, pop, +, +=, *, *= (Sequential); pop, +, += (ModuleList)
    s = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
    s.insert(-1, nn.Tanh())
    assert [type(c).__name__ for c in s] == ["Linear", "Tanh", "ReLU"]
    assert type(s.pop(1)).__name__ == "Tanh" and len(s) == 2
    t = s + nn.Sequential(nn.Sigmoid())
    assert [type(c).__name__ for c in t] == ["Linear", "ReLU", "Sigmoid"]
    assert list((2 * s).state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    s *= 2
    assert len(s) == 4 and s[2] is s[0]
    _raises(ValueError, "add operator supports only objects of Sequential class, but "
            "<class 'list'> is given.", lambda: s + [nn.ReLU()])
    _raises(IndexError, "Index out of range: 9", lambda: s.insert(9, nn.ReLU()))
    ml = nn.ModuleList([nn.ReLU()])
    ml += [nn.Tanh()]
    both = ml + nn.ModuleList([nn.Sigmoid()])
    assert [type(c).__name__ for c in both] == ["ReLU", "Tanh", "Sigmoid"]
    assert type(both.pop(0)).__name__ == "ReLU" and list(both._modules) == ["0", "1"]


# --- autograd.grad / backward argument checks --------------------------------------------------


def test_grad_and_backward_argument_checks_as_pytorch() -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    # was: RuntimeError "... appears to not have been used ..." (the check PyTorch makes first)
    _raises(ValueError, "Expected allow_unused to be True or not passed when "
            "materialize_grads=True, but got: allow_unused=False.",
            lambda: torch.autograd.grad((x * 2).sum(), x, allow_unused=False,
                                        materialize_grads=True))
    # was: "One of the differentiated Tensors ...": PyTorch checks the outputs first
    _raises(RuntimeError, "element 0 of tensors does not require grad and does not have a "
            "grad_fn", lambda: torch.autograd.grad(x.detach().sum(), x.detach()))
    # was: AttributeError
    _raises(RuntimeError, "all inputs have to be Tensors or GradientEdges, but got int",
            lambda: torch.autograd.grad(x.sum(), [x, 3]))
    # was: IndexError
    _raises(RuntimeError, "The differentiated Tensor at index 0 appears to not have been used "
            "in the graph. Set allow_unused=True if this is the desired behavior.",
            lambda: torch.autograd.grad([], x))
    assert torch.autograd.grad([], x, allow_unused=True) == (None,)
    assert torch.autograd.grad([], x, materialize_grads=True)[0].tolist() == [0.0, 0.0]
    # was: "got 1 tensors and 2 gradients" (PyTorch ignores extra gradients; with too few
    # its message counts the tensors first)
    g, = torch.autograd.grad([x * 2], x, grad_outputs=[torch.ones(2), torch.ones(2)])
    assert g.tolist() == [2.0, 2.0]
    _raises(RuntimeError, "got 2 tensors and 1 gradients",
            lambda: torch.autograd.grad([x * 2, x * 3], x, grad_outputs=[torch.ones(2)]))
    torch.autograd.backward([x * 2], grad_tensors=[torch.ones(2), torch.ones(2)])
    assert x.grad.tolist() == [2.0, 2.0]
    # was: accepted
    _raises(RuntimeError, "can't retain_grad on Tensor that has requires_grad=False",
            lambda: x.sum().backward(inputs=[x.detach()]))


# --- in-place ops and integer dtypes ---------------------------------------------------------


@pytest.mark.parametrize("op", [
    lambda a, b: a.add_(b), lambda a, b: a.mul_(b), lambda a, b: a.copy_(b),
    lambda a, b: a.pow_(b), lambda a, b: a.clamp_(min=b), lambda a, b: a.lerp_(b, 0.5),
    lambda a, b: a.addcmul_(b, torch.ones(3)), lambda a, b: a.atan2_(b)])
def test_inplace_result_wider_than_self_is_refused_as_pytorch(op: object) -> None:
    # was: NumPy's ValueError "could not broadcast input array from shape (2,3) into ..."
    _raises(RuntimeError, "output with shape [3] doesn't match the broadcast shape [2, 3]",
            lambda: op(torch.zeros(3), torch.ones(2, 3)))  # type: ignore[operator]
    # was: accepted (NumPy drops the leading 1 when it writes)
    _raises(RuntimeError, "output with shape [3] doesn't match the broadcast shape [1, 3]",
            lambda: op(torch.zeros(3), torch.ones(1, 3)))  # type: ignore[operator]


def test_inplace_checks_under_autograd_and_for_copy() -> None:
    x = torch.ones(2, 3, requires_grad=True)
    _raises(RuntimeError, "output with shape [1, 3] doesn't match the broadcast shape [2, 3]",
            lambda: torch.zeros(1, 3).sub_(x))
    _raises(RuntimeError, "The size of tensor a (3) must match the size of tensor b (4) at "
            "non-singleton dimension 0", lambda: torch.zeros(3).copy_(torch.ones(4)))
    a = torch.zeros(2, 3)
    a.add_(x)  # same shape: recorded
    a.sum().backward()
    assert x.grad.tolist() == [[1.0] * 3] * 2


def test_non_bool_result_into_a_bool_tensor_is_refused() -> None:
    # was: cast silently (True)
    _raises(RuntimeError, "result type Long can't be cast to the desired output type Bool",
            lambda: torch.zeros(3, dtype=torch.bool).add_(1))
    _raises(RuntimeError, "result type Long can't be cast to the desired output type Bool",
            lambda: torch.zeros(3, dtype=torch.bool).mul_(torch.tensor(2)))
    b = torch.zeros(3, dtype=torch.bool)
    b.add_(True)
    b.fill_(2)
    b[0] = 0
    b |= torch.tensor([True, False, False])
    assert b.tolist() == [True, True, True]


def test_python_int_out_of_an_integer_dtype_wraps_as_pytorch() -> None:
    # was: OverflowError "Python integer -1 out of bounds for uint8"
    u = torch.tensor([0, 100, 250], dtype=torch.uint8)
    assert (u + (-1)).tolist() == [255, 99, 249]
    assert (u * 300).tolist() == [0, 48, 248] and (u * 300).dtype == torch.uint8
    assert (torch.tensor([0, 100, -120], dtype=torch.int8) - 200).tolist() == [56, -100, -64]
    assert (torch.tensor([1, 2], dtype=torch.int32) * 3000000000).tolist() == \
        [-1294967296, 1705032704]
    u.add_(-1)
    assert u.tolist() == [255, 99, 249]


# --- pow at a zero exponent ------------------------------------------------------------------


def test_pow_with_zero_exponent_has_zero_base_gradient_at_zero() -> None:
    # was: nan (0 * 0 ** -1 = 0 * inf) for x ** 0 and x ** e with e == 0, at x == 0
    x = torch.tensor([0.0, 0.0, 2.0, -1.0], requires_grad=True)
    assert torch.autograd.grad((x ** 0).sum(), x)[0].tolist() == [0.0] * 4
    g, = torch.autograd.grad((x ** 0).sum(), x, create_graph=True)
    assert g.tolist() == [0.0] * 4
    e = torch.tensor([0.0, 1.0, 0.0, 2.0], requires_grad=True)
    gx, ge = torch.autograd.grad((x ** e).sum(), [x, e])
    assert gx.tolist() == [0.0, 1.0, 0.0, -2.0]  # PyTorch 2.13
    assert ge.tolist()[:3] == [0.0, 0.0, pytest.approx(0.6931471805599453)]
    s = (x[:2] ** 0.5).sum() + (x[:2] ** 0).sum()
    assert torch.autograd.grad(s, x)[0].tolist()[:2] == [float("inf")] * 2


def test_pow_gradients_agree_with_central_differences_away_from_zero() -> None:
    xs = [0.7, 1.3, 2.0]
    es = [0.0, 1.5, -2.0]
    x = torch.tensor(xs, dtype=torch.float64, requires_grad=True)
    e = torch.tensor(es, dtype=torch.float64, requires_grad=True)
    gx, ge = torch.autograd.grad((x ** e).sum(), [x, e])
    h = 1e-6
    for i, (a, b) in enumerate(zip(xs, es)):
        assert gx[i].item() == pytest.approx(((a + h) ** b - (a - h) ** b) / (2 * h), rel=1e-6)
        assert ge[i].item() == pytest.approx((a ** (b + h) - a ** (b - h)) / (2 * h), rel=1e-6)


# --- floor division and bool operands --------------------------------------------------------


def test_floor_division_result_dtype_follows_pytorch_promotion() -> None:
    # was: NumPy's promotion (float64 for an int tensor and a float, int64 for an int32
    # tensor and a 0-d int64 tensor ...)
    i = torch.tensor([1, 5])
    f = torch.tensor([1.0, 5.0])
    cases = [
        (i // 2.5, torch.float32, [0.0, 2.0]),
        (i // torch.tensor([1.0, 2.0]), torch.float32, [1.0, 2.0]),
        (f // torch.tensor(2.5, dtype=torch.float64), torch.float32, [0.0, 2.0]),
        (f // torch.tensor(3), torch.float32, [0.0, 1.0]),
        (torch.tensor([7, 9], dtype=torch.int32) // torch.tensor(3), torch.int32, [2, 3]),
        (torch.tensor([7, 9], dtype=torch.uint8) // torch.tensor(4), torch.uint8, [1, 2]),
        (torch.tensor(7) // torch.tensor([2, 4], dtype=torch.int8), torch.int8, [3, 1]),
        (torch.tensor([1.0, 3.0], dtype=torch.float16) // torch.tensor(2), torch.float16,
         [0.0, 1.0]),
        (7 // torch.tensor([2, 4]), torch.int64, [3, 1]),
        (torch.tensor([-7, 7]) // 2, torch.int64, [-4, 3]),
    ]
    for r, dtype, values in cases:
        assert r.dtype == dtype and r.tolist() == values
    x = torch.tensor([1.0, 5.0], requires_grad=True)
    assert (x // 2).grad_fn is None and (x // 2).tolist() == [0.0, 2.0]


def test_bool_tensor_with_python_numbers() -> None:
    b = torch.tensor([True, False])
    # was: [1, 0] (3 was cast to True before dividing)
    assert (b // 3).tolist() == [0, 0] and (b // 3).dtype == torch.int64
    assert torch.div(b, 3, rounding_mode="trunc").tolist() == [0, 0]
    # was: int64 / int8 (NumPy's bool ** bool)
    assert (b ** True).dtype == torch.bool and (b ** False).tolist() == [True, True]
    assert (b ** 2).dtype == torch.int64 and (b + 3).tolist() == [4, 3]


# --- cumprod's higher derivatives at several zeros -------------------------------------------


def _cumprod_grads(v: list[float], order: int) -> list[float]:
    """The ``order``-th derivative of ``sum(cumprod(x) * w)`` (weighted by ``w`` between
    orders), at ``v``."""
    x = torch.tensor(v, dtype=torch.float64, requires_grad=True)
    w = torch.arange(1.0, len(v) + 1, dtype=torch.float64)
    s = (x.cumprod(0) * w).sum()
    for _ in range(order):
        g, = torch.autograd.grad(s, x, create_graph=True)
        s = (g * w).sum()
    return g.tolist()


def test_cumprod_higher_derivatives_with_two_zeros_in_a_slice() -> None:
    # was: [0, 0, 0, 0] (by hand, and PyTorch 2.13: [10, 10, 0, 0] for the unweighted sum)
    x = torch.tensor([0.0, 0.0, 3.0, 2.0], requires_grad=True)
    g, = torch.autograd.grad(x.cumprod(0).sum(), x, create_graph=True)
    assert g.tolist() == [1.0, 0.0, 0.0, 0.0]
    assert torch.autograd.grad(g.sum(), x)[0].tolist() == [10.0, 10.0, 0.0, 0.0]
    # each order against float64 central differences of the order below (exact to rounding)
    h = 1e-5
    for v in ([0.0, 0.0, 3.0, 2.0], [2.0, 0.0, 0.0, 0.5], [0.0, 0.0, 0.0]):
        w = list(range(1, len(v) + 1))
        for order in (2, 3):
            got = _cumprod_grads(v, order)
            for i in range(len(v)):
                up = [a + (h if j == i else 0.0) for j, a in enumerate(v)]
                down = [a - (h if j == i else 0.0) for j, a in enumerate(v)]
                num = sum(wk * (a - b) for wk, a, b in zip(
                    w, _cumprod_grads(up, order - 1), _cumprod_grads(down, order - 1))) / (2 * h)
                assert got[i] == pytest.approx(num, abs=1e-6), (v, order, i)


def test_cumprod_along_a_dim_with_zeros_second_order() -> None:
    m = torch.tensor([[0.0, 2.0, 0.0], [1.0, 0.0, 0.0], [2.0, 3.0, 4.0]], dtype=torch.float64,
                     requires_grad=True)
    g, = torch.autograd.grad((m.cumprod(1) ** 2).sum(), m, create_graph=True)
    gg, = torch.autograd.grad(g.sum(), m)
    # PyTorch 2.13
    assert gg.tolist() == [[10.0, 0.0, 0.0], [2.0, 2.0, 0.0], [1004.0, 736.0, 552.0]]


# --- Python protocols --------------------------------------------------------------------------


def test_float_int_and_format_of_tensors_with_several_elements() -> None:
    # were: RuntimeError "a Tensor with 2 elements cannot be converted to Scalar"
    for f in (float, int):
        _raises(ValueError, "only one element tensors can be converted to Python scalars",
                lambda f=f: f(torch.tensor([1.0, 2.0])))  # type: ignore[misc]
        _raises(ValueError, "only one element tensors can be converted to Python scalars",
                lambda f=f: f(torch.tensor([])))  # type: ignore[misc]
    assert float(torch.tensor([1.5])) == 1.5 and int(torch.tensor([[2.7]])) == 2
    # was: ValueError "Unknown format code 'f' for object of type 'str'"
    _raises(TypeError, "unsupported format string passed to Tensor.__format__",
            lambda: f"{torch.tensor([2.5]):.2f}")
    assert f"{torch.tensor([2.5])}" == "tensor([2.5000])"
    assert f"{torch.tensor(2.5):.2f}" == "2.50" and f"{torch.tensor(2):>3}" == "  2"


def test_pad_by_mode_checks_the_padding_length_first() -> None:
    F = torch.nn.functional
    # was: NotImplementedError "Padding size 3 is not supported for 3D input tensor." ...
    _raises(RuntimeError, "Padding length must be divisible by 2",
            lambda: F.pad(torch.zeros(1, 2, 3), (1, 1, 1), mode="reflect"))
    _raises(RuntimeError, "Padding length should be less than or equal to two times the input "
            "dimension but got padding length 6 and input of dimension 2",
            lambda: F.pad(torch.zeros(3, 5), (1,) * 6, mode="replicate"))
    with pytest.raises(NotImplementedError, match="^Padding size 4 is not supported for 2D"):
        F.pad(torch.zeros(2, 3), (1, 1, 1, 1), mode="circular")


def test_module_type_and_buffer_assignment_message() -> None:
    nn = torch.nn
    # was: AttributeError (no Module.type)
    m = nn.BatchNorm1d(2).type(torch.float64)
    assert [str(b.dtype) for b in m.buffers()] == ["torch.float64"] * 3
    assert m.weight.dtype == torch.float64 and type(m.weight).__name__ == "Parameter"
    _raises(TypeError, "cannot assign 'int' as buffer 'running_mean' (torch.nn.Buffer, "
            "torch.Tensor or None expected)", lambda: setattr(m, "running_mean", 3))


# --- clone keeps the layout ------------------------------------------------------------------


def test_clone_of_a_transposed_tensor_stays_transposed() -> None:
    # was: a C-ordered copy, so ``reshape(-1)`` of it was a view and an in-place change of
    # that view changed the clone (PyTorch: reshape copies, the clone is unchanged)
    x = torch.tensor([[0.5, -1.2, 2.0], [1.1, 0.3, -0.7], [-2.0, 0.9, 1.4]], requires_grad=True)
    b = x.t().clone()
    assert b.stride() == (1, 3) and not b.is_contiguous()
    v = b.reshape(-1)
    assert v._base is None
    v.mul_(2)
    assert b.tolist() == x.t().tolist()
    (b * b).sum().backward()
    assert x.grad.tolist() == (2 * x).tolist()
    # a view of the transposed clone that PyTorch allows, and one it refuses
    assert b.t().view(-1).tolist() == x.reshape(-1).tolist()
    with pytest.raises(RuntimeError, match="^view size is not compatible"):
        b.view(-1)
    assert torch.ones(2, 3).expand(2, 2, 3).clone().stride() == (6, 3, 1)
    assert torch.ones(2, 3)[:, ::2].clone().stride() == (2, 1)


# --- diagonal is a view -----------------------------------------------------------------------


def test_writing_through_diagonal_writes_into_its_base() -> None:
    # was: "unsupported operation: more than one element of the written-to tensor refers to a
    # single memory location" (diagonal was a copy-like op over NumPy's read-only view)
    c = torch.zeros(3, 3)
    c.diagonal().add_(1)
    assert c.tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    d = torch.zeros(2, 3, 3)
    torch.diagonal(d, 1, 1, 2).copy_(torch.tensor([5.0, 6.0]))
    assert d[1].tolist() == [[0.0, 5.0, 0.0], [0.0, 0.0, 6.0], [0.0, 0.0, 0.0]]
    x = torch.tensor([[0.5, -1.2], [1.1, 0.3]], requires_grad=True)
    b = x * 2
    v = b.diagonal()
    assert v._base is b and type(v.grad_fn).__name__ == "DiagonalBackward0"
    assert v.grad_fn._saved_offset == 0 and v.grad_fn._saved_self_sym_sizes == (2, 2)
    v.mul_(3)
    assert type(b.grad_fn).__name__ == "CopySlices"
    (b * b).sum().backward()
    # d/dx sum(b^2) with b = 2x off the diagonal and 6x on it
    assert x.grad.reshape(-1).tolist() == pytest.approx([72.0 * 0.5, 8.0 * -1.2, 8.0 * 1.1,
                                                         72.0 * 0.3])
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad"):
        x.diagonal().zero_()
    _raises(IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
            lambda: torch.ones(3).diagonal())
    _raises(RuntimeError, "diagonal dimensions cannot be identical 1, 1",
            lambda: torch.ones(3, 3).diagonal(0, 1, 1))
    assert torch.ones(3, 3).diagonal(-5).shape == (0,)


def test_node_hooks_cannot_replace_a_missing_gradient() -> None:
    # was: accepted (the value went nowhere, or to an input with no gradient)
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2  # MulBackward0: (AccumulateGrad, None)
    y.grad_fn.register_hook(lambda gi, go: (gi[0], gi[0]))
    _raises(RuntimeError, "can't replace a None gradient with a non-None value",
            lambda: y.sum().backward())
    a, _ = (x * 2).split([1, 2])
    a.grad_fn.register_prehook(lambda go: (go[0], torch.ones(2)))
    _raises(RuntimeError, "can't replace a None gradient with a non-None value",
            lambda: a.sum().backward())
    b, _ = (x * 2).split([1, 2])
    b.grad_fn.register_prehook(lambda go: (go[0] * 3, None))
    b.sum().backward()
    assert x.grad.tolist() == [6.0, 0.0, 0.0]


def test_nll_and_cross_entropy_check_target_shapes_before_its_dtype() -> None:
    F = torch.nn.functional
    x = torch.zeros(4, 3)
    for f in (F.cross_entropy, F.nll_loss):
        # was: "expected target dtype to be Long or Byte, but got Float" first
        _raises(RuntimeError, "0D or 1D target tensor expected, multi-target not supported",
                lambda f=f: f(x, torch.zeros(4, 2)))
        _raises(ValueError, "Expected input batch_size (4) to match target batch_size (3).",
                lambda f=f: f(x, torch.zeros(3)))
        _raises(ValueError, "Expected input batch_size (4) to match target batch_size (1).",
                lambda f=f: f(x, torch.zeros(1, 4, dtype=torch.long)))
        _raises(RuntimeError, "expected target dtype to be Long or Byte, but got Float",
                lambda f=f: f(x, torch.zeros(4)))
        _raises(RuntimeError, "expected target dtype to be Long or Byte, but got Float",
                lambda f=f: f(torch.zeros(3), torch.zeros(2)))


# --- xlogy / xlog1py gradients at x == 0 -----------------------------------------------------


def test_xlogy_gradients_follow_pytorch_at_zero() -> None:
    # PyTorch 2.13: d/dx = xlogy(g, y), 0 where x == 0 and y <= 0; d/dy = g x / y, unmasked
    x = torch.tensor([0.0, 0.0, 2.0, 0.0], requires_grad=True)
    y = torch.tensor([0.0, 1.0, 0.0, -1.0], requires_grad=True)
    torch.xlogy(x, y).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, -float("inf"), 0.0]
    gy = y.grad.tolist()  # was: [0, 0, inf, 0]
    assert gy[0] != gy[0] and gy[1:] == [0.0, float("inf"), -0.0]
    x = torch.tensor([0.0, 0.0, 2.0, 0.0], requires_grad=True)
    y = torch.tensor([0.0, 1.0, 0.0, -1.0], requires_grad=True)
    torch.special.xlog1py(x, y).sum().backward()
    assert x.grad.tolist() == pytest.approx([0.0, 0.6931471805599453, 0.0, 0.0])  # was -inf
    assert y.grad.tolist()[:3] == [0.0, 0.0, 2.0] and y.grad.tolist()[3] != y.grad.tolist()[3]
    # kl_div of a zero target: NaN in the target's gradient (was -inf)
    t = torch.tensor([[0.0, 0.5, 0.5]], requires_grad=True)
    torch.nn.functional.kl_div(torch.tensor([[-1.0, -2.0, -0.5]]), t, reduction="sum").backward()
    g = t.grad.tolist()[0]
    assert g[0] != g[0] and g[1:] == pytest.approx([2.3068528194400546, 0.8068528194400546])


def test_xlogy_second_derivatives_against_central_differences() -> None:
    xs, ys = [0.5, 2.0, 1.5], [1.5, 0.7, 2.0]

    def grads(a: list[float], b: list[float]) -> list[float]:
        x = torch.tensor(a, dtype=torch.float64, requires_grad=True)
        y = torch.tensor(b, dtype=torch.float64, requires_grad=True)
        s = (torch.xlogy(x, y) + torch.special.xlog1py(x, y)).sum()
        gx, gy = torch.autograd.grad(s, [x, y], create_graph=True)
        return [v.item() for v in torch.autograd.grad(((gx + 2 * gy) ** 2).sum(), [x, y])[0]]

    def first(a: list[float], b: list[float]) -> float:
        x = torch.tensor(a, dtype=torch.float64, requires_grad=True)
        y = torch.tensor(b, dtype=torch.float64, requires_grad=True)
        s = (torch.xlogy(x, y) + torch.special.xlog1py(x, y)).sum()
        gx, gy = torch.autograd.grad(s, [x, y])
        return float(((gx + 2 * gy) ** 2).sum())

    got, h = grads(xs, ys), 1e-6
    for i in range(3):
        up = [v + (h if j == i else 0.0) for j, v in enumerate(xs)]
        down = [v - (h if j == i else 0.0) for j, v in enumerate(xs)]
        assert got[i] == pytest.approx((first(up, ys) - first(down, ys)) / (2 * h), rel=1e-5)


# --- node names and missing forms of a few linear-algebra ops ----------------------------------


def test_addmm_rsub_H_and_inner_as_pytorch() -> None:
    x = torch.tensor([[0.3, 0.6, 0.2], [0.4, 0.9, 0.1]], requires_grad=True)
    y = torch.tensor([[0.5, 0.25, 0.7], [0.35, 0.8, 0.15]], requires_grad=True)
    b = torch.ones(2, 2, requires_grad=True)
    r = torch.addmm(b, x, y.t())  # was: AddBackward0 over MmBackward0
    assert type(r.grad_fn).__name__ == "AddmmBackward0"
    r.sum().backward()
    assert b.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert torch.allclose(x.grad, y.sum(0).expand(2, 3))
    s = torch.rsub(x, y, alpha=2)  # was: SubBackward0 with (y, x) edges
    assert type(s.grad_fn).__name__ == "RsubBackward0" and s.grad_fn._saved_alpha == 2
    assert [type(f).__name__ for f, _ in s.grad_fn.next_functions] == ["AccumulateGrad"] * 2
    gx, gy = torch.autograd.grad(s.sum(), [x, y])
    assert gx.tolist() == [[-2.0] * 3] * 2 and gy.tolist() == [[1.0] * 3] * 2
    # was: x.H was x.T (PermuteBackward0, any rank); x.mH and adjoint() were missing
    assert type(x.H.grad_fn).__name__ == "TransposeBackward0"
    assert x.mH.shape == (3, 2) and x.adjoint().shape == (3, 2)
    _raises(RuntimeError, "tensor.H is only supported on matrices (2-D tensors). Got 3-D tensor. "
            "For batches of matrices, consider using tensor.mH", lambda: torch.ones(2, 3, 4).H)
    # was: "1D tensors expected, but got 2D and 2D tensors" (inner was dot)
    assert torch.inner(torch.ones(2, 3), torch.ones(4, 3)).tolist() == [[3.0] * 4] * 2
    assert torch.inner(torch.ones(2, 3), torch.tensor(2.0)).tolist() == [[2.0] * 3] * 2
    _raises(RuntimeError, "inner() the last dimension must match on both input tensors but got "
            "shapes [3] and [2]", lambda: torch.inner(torch.ones(3), torch.ones(2)))


def test_copy_gives_the_overwritten_value_a_zero_gradient() -> None:
    # was: None (x.grad stayed None; autograd.grad(allow_unused=True) gave None), and the
    # overwritten branch never ran (PyTorch runs it: a version error can surface there)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    u = torch.tensor([3.0, 4.0], requires_grad=True)
    b = x * 1
    b.copy_(u)
    b.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0] and u.grad.tolist() == [1.0, 1.0]
    b = x.clone()
    b.copy_(u * 2)
    assert torch.autograd.grad((b * b).sum(), [x, u], allow_unused=True)[0].tolist() == [0.0, 0.0]
    t = x.tanh()
    t.copy_(u)
    t.add_(1)
    with pytest.raises(RuntimeError, match="which is output 0 of Tanh, is at version 2; "
                                           "expected version 0 instead"):
        t.sum().backward()


def test_sigmoid_of_a_zero_dim_view() -> None:
    # was: TypeError "return arrays must be of ArrayType" (the fast kernel wrote into the
    # NumPy scalar np.exp returns for a 0-d array): torch.sigmoid(m[0, 1]) failed
    m = torch.tensor([[1.0, 2.0]], requires_grad=True)
    y = torch.sigmoid(m[0, 1])
    assert y.item() == pytest.approx(0.8807970779778823)
    y.backward()
    assert m.grad.tolist() == [[0.0, pytest.approx(0.10499358540350662)]]
    b = torch.zeros(2, 2)
    b[0][0].sigmoid_()
    assert b.tolist() == [[0.5, 0.0], [0.0, 0.0]]
    d = torch.tensor(0.5).detach()
    d.numpy()  # (a 0-d array from now on)
    assert torch.sigmoid(d).item() == pytest.approx(0.6224593312018546)


def test_index_add_argument_errors_as_pytorch() -> None:
    # were: IndexError with index_copy_'s wording, RuntimeError "index 5 is out of bounds
    # ...", NumPy's ValueError "cannot reshape array of size 3 into shape (1,2)"
    _raises(RuntimeError, "index_add_(): Number of indices (2) should be equal to "
            "source.size(dim): (1), for dim: 1",
            lambda: torch.zeros(3, 2).index_add(1, torch.tensor([0, 1]), torch.zeros(3, 1)))
    _raises(IndexError, "index out of range in self",
            lambda: torch.zeros(3).index_add(0, torch.tensor([5]), torch.ones(1)))
    _raises(RuntimeError, "index -1 is out of bounds for dimension 0 with size 3",  # 2-d: so
            lambda: torch.zeros(3, 2).index_add(0, torch.tensor([-1]), torch.ones(1, 2)))
    _raises(RuntimeError, "source tensor shape must match self tensor shape, excluding the "
            "specified dimension. Got self.shape = [3, 2] source.shape = [1, 3]",
            lambda: torch.zeros(3, 2).index_add(0, torch.tensor([0]), torch.ones(1, 3)))
    _raises(IndexError, "index_copy_(): Number of indices (1) should be equal to "
            "source.size(dim) (0)",
            lambda: torch.zeros(3).index_copy_(0, torch.tensor([0]), torch.zeros(0)))
    r = torch.zeros(3, 2).index_add(0, torch.tensor([0, 0]), torch.ones(2, 2))
    assert r.tolist() == [[2.0, 2.0], [0.0, 0.0], [0.0, 0.0]]


def test_logit_gradient_is_nan_outside_the_unit_interval() -> None:
    # was: the formula's finite value (-1.3333 at -0.5 and 1.5)
    x = torch.tensor([-0.5, 0.05, 0.5, 1.5], requires_grad=True)
    torch.logit(x).sum().backward()
    g = x.grad.tolist()
    assert g[0] != g[0] and g[3] != g[3] and g[1:3] == pytest.approx([21.052631, 4.0])
    y = torch.tensor([0.2, 0.5, 1.5], requires_grad=True)
    gy, = torch.autograd.grad(torch.logit(y).sum(), y, create_graph=True)
    assert torch.autograd.grad(gy.sum(), y)[0].tolist() == pytest.approx([-23.4375, 0.0, 0.0])


def test_full_median_backward_with_a_nan_gradient_stays_on_the_median() -> None:
    # was: NaN everywhere (the gradient was multiplied by the 0/1 share mask)
    a = torch.tensor([-1.93, 0.48, 0.53, 0.48], requires_grad=True)
    (a.median() * float("nan")).backward()
    g = a.grad.tolist()
    assert g[0] == 0.0 and g[2] == 0.0 and g[1] != g[1] and g[3] != g[3]
    a.grad = None
    (a.nanmedian() * float("inf")).backward()
    assert a.grad.tolist() == [0.0, float("inf"), 0.0, float("inf")]
    b = torch.tensor([1.0, 2.0, 2.0], requires_grad=True)
    assert torch.autograd.grad(b.median() * 3, b)[0].tolist() == [0.0, 1.5, 1.5]


def test_atan2_gradient_at_the_origin_is_zero() -> None:
    # was: NaN for both operands (y / (x^2 + y^2) at 0 / 0), as PyTorch gives 0
    x = torch.tensor([0.0, 1.0, -2.0], requires_grad=True)
    y = torch.tensor([0.0, 0.0, 1.0], requires_grad=True)
    torch.atan2(x, y).sum().backward()
    assert x.grad.tolist() == pytest.approx([0.0, 0.0, 0.2])
    assert y.grad.tolist() == pytest.approx([0.0, -1.0, 0.4])
    a = torch.tensor([0.84, -0.67, 1.38], dtype=torch.float64, requires_grad=True)
    v = torch.nn.functional.mse_loss(a, a)
    (torch.atan2(v, v) + a.sum()).backward()
    assert a.grad.tolist() == [1.0, 1.0, 1.0]
