"""``nn.Module``, ``Parameter``, the containers, the layers and ``nn.init``: API behaviour.

Registration by assignment, walking the tree, train/eval, requires_grad_, zero_grad,
state_dict round trips (with the error texts of ``load_state_dict``), dtype conversion,
forward hooks, reprs, and the initialisers' distributions.
"""

from __future__ import annotations

import copy
import math
import pickle
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import st_autodiff as torch
import st_autodiff.nn as nn


def _zero(t) -> bool:
    return not np.any(t.detach().numpy())


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(4, 2)
        self.scale = nn.Parameter(torch.ones(1))
        self.register_buffer("steps", torch.zeros(1))
        self.register_buffer("scratch", torch.zeros(2), persistent=False)
        self.note = "plain attribute"

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x))) * self.scale


# --- Parameter ------------------------------------------------------------------------------

def test_parameter_is_a_leaf_tensor_sharing_storage():
    data = torch.zeros(3)
    p = nn.Parameter(data)
    assert isinstance(p, torch.Tensor) and isinstance(p, nn.Parameter)
    assert p.is_leaf and p.requires_grad and p.grad_fn is None
    data[0] = 5.0
    assert p[0].item() == 5.0  # no copy
    assert not nn.Parameter(torch.ones(2), requires_grad=False).requires_grad
    assert nn.Parameter().shape == (0,)


def test_parameter_repr_and_results_are_plain_tensors():
    p = nn.Parameter(torch.tensor([1.0, 2.0]))
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    assert str(nn.Parameter(torch.ones(1), requires_grad=False)) == \
        "Parameter containing:\ntensor([1.])"
    assert type(p * 2) is torch.Tensor and type(p.detach()) is torch.Tensor
    assert repr(p * 2) == "tensor([2., 4.], grad_fn=<MulBackward0>)"


def test_parameter_of_a_computed_tensor_is_a_new_leaf():
    y = torch.ones(2, requires_grad=True) * 3
    p = nn.Parameter(y)
    assert p.is_leaf and p.requires_grad and p.tolist() == [3.0, 3.0]


def test_parameter_copies_and_pickles_as_parameter():
    p = nn.Parameter(torch.tensor([1.0, 2.0]))
    for q in (copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert type(q) is nn.Parameter and q.requires_grad and q.tolist() == [1.0, 2.0]
        with torch.no_grad():
            q[0] = 9.0
        assert p[0].item() == 1.0  # a copy, not an alias


# --- registration -----------------------------------------------------------------------------

def test_assignment_registers_parameters_modules_and_buffers():
    net = Net()
    assert list(net._parameters) == ["scale"]
    assert list(net._modules) == ["fc1", "act", "fc2"]
    assert list(net._buffers) == ["steps", "scratch"]
    assert net.note == "plain attribute" and "note" in net.__dict__
    assert net.fc1 is net._modules["fc1"] and net.scale is net._parameters["scale"]
    net.steps = torch.ones(1)  # a registered buffer stays a buffer
    assert net._buffers["steps"].item() == 1.0
    net.fc1 = None
    assert net.fc1 is None and "fc1" in net._modules
    del net.act
    assert "act" not in net._modules


def test_registration_errors_match_pytorch():
    lin = nn.Linear(3, 2)
    with pytest.raises(TypeError, match=r"cannot assign 'torch.FloatTensor' as parameter "
                                        r"'weight' \(torch.nn.Parameter or None expected\)"):
        lin.weight = torch.zeros(2, 3)
    with pytest.raises(TypeError, match="cannot assign 'int' as parameter 'weight'"):
        lin.weight = 3
    with pytest.raises(TypeError, match=r"cannot assign 'torch.FloatTensor' object to parameter "
                                        r"'foo' \(torch.nn.Parameter or None required\)"):
        lin.register_parameter("foo", torch.zeros(1))
    with pytest.raises(KeyError, match='contain "."'):
        lin.register_parameter("a.b", None)
    with pytest.raises(KeyError, match="attribute 'training' already exists"):
        lin.add_module("training", nn.ReLU())
    with pytest.raises(TypeError, match="int is not a Module subclass"):
        lin.add_module("x", 3)
    with pytest.raises(AttributeError, match="'Linear' object has no attribute 'nothing'"):
        _ = lin.nothing
    with pytest.raises(TypeError, match="object to parameter 'w'"):  # a product is no Parameter
        lin.register_parameter("w", nn.Parameter(torch.zeros(1)) * 2)


def test_assigning_before_init_is_refused():
    class Early(nn.Module):
        def __init__(self, what):
            if what == "module":
                self.x = nn.Linear(1, 1)
            else:
                self.x = nn.Parameter(torch.zeros(1))

    with pytest.raises(AttributeError, match=r"cannot assign module before Module.__init__"):
        Early("module")
    with pytest.raises(AttributeError, match=r"cannot assign parameters before Module"):
        Early("parameter")


def test_missing_forward():
    class Empty(nn.Module):
        pass

    with pytest.raises(NotImplementedError, match=r'Module \[Empty\] is missing the required '
                                                  r'"forward" function'):
        Empty()(1)


# --- walking the tree -------------------------------------------------------------------------

def test_named_parameters_children_and_modules_in_registration_order():
    net = Net()
    assert [n for n, _ in net.named_parameters()] == [
        "scale", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert [n for n, _ in net.named_parameters(recurse=False)] == ["scale"]
    assert [n for n, _ in net.named_parameters(prefix="net")][1] == "net.fc1.weight"
    assert len(list(net.parameters())) == 5
    assert [n for n, _ in net.named_children()] == ["fc1", "act", "fc2"]
    assert [n for n, _ in net.named_modules()] == ["", "fc1", "act", "fc2"]
    assert list(net.modules())[0] is net
    assert [n for n, _ in net.named_buffers()] == ["steps", "scratch"]


def test_shared_parameters_and_modules_are_listed_once():
    shared = nn.Linear(2, 2)
    seq = nn.Sequential(shared, nn.Tanh(), shared)
    assert len(list(seq.parameters())) == 2
    assert [n for n, _ in seq.named_modules()] == ["", "0", "1"]
    assert len(list(seq.named_parameters(remove_duplicate=False))) == 4


def test_apply_visits_children_first():
    seen = []
    nn.Sequential(nn.Linear(1, 1), nn.ReLU()).apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "ReLU", "Sequential"]


# --- modes and gradients ----------------------------------------------------------------------

def test_train_and_eval_reach_every_submodule():
    net = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Dropout(), nn.ReLU()))
    assert all(m.training for m in net.modules())
    assert net.eval() is net and not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        net.train("yes")


def test_requires_grad_and_zero_grad():
    net = Net()
    net(torch.ones(2, 3)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad(set_to_none=False)
    assert all(p.grad is not None and _zero(p.grad) for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    assert net.requires_grad_(False) is net
    assert not any(p.requires_grad for p in net.parameters())
    assert not net(torch.ones(2, 3)).requires_grad


# --- state_dict -------------------------------------------------------------------------------

def test_state_dict_is_ordered_detached_and_skips_non_persistent_buffers():
    net = Net()
    sd = net.state_dict()
    assert isinstance(sd, OrderedDict)
    assert list(sd) == ["scale", "steps", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert all(not v.requires_grad and v.is_leaf for v in sd.values())
    assert sd._metadata[""] == {"version": 1} and "fc1" in sd._metadata
    sd["fc1.weight"][0, 0] = 42.0  # shares storage with the parameter
    assert net.fc1.weight[0, 0].item() == 42.0
    assert net.state_dict(keep_vars=True)["scale"] is net.scale


def test_state_dict_round_trip_restores_outputs():
    torch.manual_seed(0)
    a, b = Net(), Net()
    x = torch.randn(4, 3)
    assert not torch.allclose(a(x), b(x))
    result = b.load_state_dict(a.state_dict())
    assert repr(result) == "<All keys matched successfully>"
    assert torch.equal(a(x), b(x))
    params_before = [id(p) for p in b.parameters()]
    b.load_state_dict(copy.deepcopy(a.state_dict()))
    assert [id(p) for p in b.parameters()] == params_before  # copied in place


def test_load_state_dict_errors_and_non_strict_result():
    lin = nn.Linear(3, 2)
    with pytest.raises(RuntimeError) as err:
        lin.load_state_dict({"weight": torch.zeros(5, 3), "foo": torch.zeros(1)})
    assert str(err.value) == (
        'Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: "bias". '
        '\n\tUnexpected key(s) in state_dict: "foo". \n\tsize mismatch for weight: copying a '
        "param with shape torch.Size([5, 3]) from checkpoint, the shape in current model is "
        "torch.Size([2, 3]).")
    result = lin.load_state_dict({"weight": torch.zeros(2, 3), "foo": torch.zeros(2)},
                                 strict=False)
    assert repr(result) == "_IncompatibleKeys(missing_keys=['bias'], unexpected_keys=['foo'])"
    assert result.missing_keys == ["bias"] and _zero(lin.weight)
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        lin.load_state_dict([1])
    seq = nn.Sequential(nn.Linear(1, 1))
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "1.weight", '
                                           '"x.y". '):
        seq.load_state_dict({"0.weight": torch.zeros(1, 1), "0.bias": torch.zeros(1),
                             "1.weight": torch.zeros(1), "x.y": torch.zeros(1)})


def test_load_state_dict_assign_replaces_parameters():
    lin = nn.Linear(2, 1)
    new = {"weight": torch.ones(1, 2), "bias": torch.zeros(1)}
    lin.load_state_dict(new, assign=True)
    assert isinstance(lin.weight, nn.Parameter) and lin.weight.requires_grad
    assert lin.weight.tolist() == [[1.0, 1.0]]


def test_deepcopy_and_pickle_of_a_model():
    net = Net()
    x = torch.ones(1, 3)
    for twin in (copy.deepcopy(net), pickle.loads(pickle.dumps(net))):
        assert torch.equal(twin(x), net(x))
        assert all(type(p) is nn.Parameter for p in twin.parameters())
        assert twin.fc1.weight is not net.fc1.weight


# --- dtype conversion -------------------------------------------------------------------------

def test_double_keeps_parameter_objects():
    net = Net()
    before = [id(p) for p in net.parameters()]
    assert net.double() is net
    assert [id(p) for p in net.parameters()] == before
    assert all(p.dtype is torch.float64 for p in net.parameters())
    assert net.steps.dtype is torch.float64
    assert net(torch.ones(1, 3, dtype=torch.float64)).dtype is torch.float64
    net.to(torch.float32)
    assert all(p.dtype is torch.float32 for p in net.parameters())


# --- hooks ------------------------------------------------------------------------------------

def test_forward_hooks_can_replace_inputs_and_outputs():
    lin = nn.Linear(2, 2)
    calls = []
    pre = lin.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    post = lin.register_forward_hook(lambda m, args, out: calls.append(out.shape) or out + 1)
    out = lin(torch.ones(3, 2))
    assert calls == [torch.Size([3, 2])]
    assert torch.allclose(out, lin.bias.detach() + 1)
    pre.remove()
    post.remove()
    assert torch.allclose(lin(torch.zeros(1, 2)), lin.bias)


# --- containers and reprs -----------------------------------------------------------------------

def test_sequential_indexing_and_repr():
    seq = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Dropout(0.3), nn.Linear(4, 1),
                        nn.Sigmoid(), nn.Tanh())
    assert repr(seq) == (
        "Sequential(\n"
        "  (0): Linear(in_features=2, out_features=4, bias=True)\n"
        "  (1): ReLU()\n"
        "  (2): Dropout(p=0.3, inplace=False)\n"
        "  (3): Linear(in_features=4, out_features=1, bias=True)\n"
        "  (4): Sigmoid()\n"
        "  (5): Tanh()\n"
        ")")
    assert len(seq) == 6 and isinstance(seq[-1], nn.Tanh)
    assert repr(seq[4:]) == "Sequential(\n  (4): Sigmoid()\n  (5): Tanh()\n)"
    with pytest.raises(IndexError, match="index 6 is out of range"):
        seq[6]
    named = nn.Sequential(OrderedDict([("hidden", nn.Linear(1, 2)), ("out", nn.ReLU())]))
    assert [n for n, _ in named.named_parameters()] == ["hidden.weight", "hidden.bias"]
    assert repr(nn.Sequential()) == "Sequential()"
    seq.append(nn.Identity())
    assert len(seq) == 7


def test_nested_and_custom_reprs():
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(1, 1, bias=False), nn.ReLU(inplace=True))

        def forward(self, x):
            return self.body(x)

    assert repr(Block()) == (
        "Block(\n"
        "  (body): Sequential(\n"
        "    (0): Linear(in_features=1, out_features=1, bias=False)\n"
        "    (1): ReLU(inplace=True)\n"
        "  )\n"
        ")")
    assert repr(nn.Module()) == "Module()"
    assert repr(nn.CrossEntropyLoss()) == "CrossEntropyLoss()"
    assert repr(nn.Softmax(dim=1)) == "Softmax(dim=1)"


def test_module_list():
    layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    assert len(layers) == 3 and len(list(layers.parameters())) == 6
    del layers[0]
    assert [n for n, _ in layers.named_children()] == ["0", "1"]
    layers.insert(0, nn.ReLU())
    assert isinstance(layers[0], nn.ReLU) and len(layers[1:]) == 2


# --- layers -------------------------------------------------------------------------------------

def test_linear_shapes_and_no_bias():
    lin = nn.Linear(3, 5, bias=False)
    assert lin.bias is None and [n for n, _ in lin.named_parameters()] == ["weight"]
    assert lin(torch.ones(2, 7, 3)).shape == (2, 7, 5)
    assert lin(torch.ones(3)).shape == (5,)
    assert nn.Linear(3, 5, dtype=torch.float64).weight.dtype is torch.float64


def test_dropout_train_and_eval():
    torch.manual_seed(0)
    drop = nn.Dropout(p=0.25)
    x = torch.ones(100, 100)
    y = drop(x)
    kept = y != 0
    assert torch.allclose(y[kept], torch.tensor(1 / 0.75))
    assert 0.70 < kept.float().mean().item() < 0.80
    assert drop.eval()(x) is x
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, "
                                         "but got 1.5"):
        nn.Dropout(1.5)


def test_loss_modules_legacy_flags_warn():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert nn.MSELoss(reduce=False).reduction == "none"
        assert nn.L1Loss(size_average=False).reduction == "sum"
    assert "please use reduction='none' instead." in str(caught[0].message)
    y = torch.ones(1, 5, requires_grad=True)
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value"):
        nn.L1Loss(y, torch.ones(1, 5))  # a tutorial's mistake, caught as in PyTorch


# --- init -----------------------------------------------------------------------------------

def test_init_functions_fill_in_place_under_no_grad():
    w = nn.Parameter(torch.empty(200, 50))
    for fn, args in [(nn.init.zeros_, ()), (nn.init.ones_, ()), (nn.init.constant_, (0.5,))]:
        assert fn(w, *args) is w and w.is_leaf
    assert _zero(w - 0.5) and w.grad_fn is None
    nn.init.uniform_(w, -2.0, 3.0)
    assert -2.0 <= w.min().item() and w.max().item() < 3.0
    nn.init.normal_(w, 1.0, 0.5)
    assert abs(w.mean().item() - 1.0) < 0.05 and abs(w.std().item() - 0.5) < 0.05


@pytest.mark.parametrize("fn,bound", [
    (nn.init.xavier_uniform_, math.sqrt(6 / (50 + 200))),
    (lambda t: nn.init.kaiming_uniform_(t, a=math.sqrt(5)), 1 / math.sqrt(50)),
    (lambda t: nn.init.kaiming_uniform_(t, nonlinearity="relu"), math.sqrt(6 / 50)),
])
def test_uniform_initialisers_bounds(fn, bound):
    w = torch.empty(200, 50)
    fn(w)
    assert w.abs().max().item() <= bound
    assert w.abs().max().item() > 0.95 * bound  # 10,000 draws reach close to the bound


def test_normal_initialisers_scale():
    w = torch.empty(400, 100)
    nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
    assert abs(w.std().item() - math.sqrt(2 / 400)) < 0.005
    nn.init.xavier_normal_(w, gain=2.0)
    assert abs(w.std().item() - 2 * math.sqrt(2 / 500)) < 0.005


def test_init_helpers_and_errors():
    assert nn.init.calculate_gain("relu") == math.sqrt(2)
    assert nn.init.calculate_gain("tanh") == 5 / 3
    assert nn.init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2 / 1.04)
    with pytest.raises(ValueError, match="Unsupported nonlinearity foo"):
        nn.init.calculate_gain("foo")
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        nn.init.xavier_uniform_(torch.empty(3))
    with pytest.raises(ValueError, match="Mode fan_up not supported"):
        nn.init.kaiming_uniform_(torch.empty(2, 2), mode="fan_up")
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        nn.init.kaiming_uniform_(torch.empty(0, 3))


def test_linear_init_bounds_follow_fan_in():
    torch.manual_seed(0)
    lin = nn.Linear(16, 300)
    bound = 1 / math.sqrt(16)
    w = lin.weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.99 * bound
    assert np.abs(lin.bias.detach().numpy()).max() <= bound
