"""ModuleList, ModuleDict, ParameterList, LayerNorm, GELU/SiLU/Softplus and a residual MLP."""
import torch
import torch.nn as nn


class ResidualMLP(nn.Module):
    def __init__(self, dim=8, depth=3):
        super().__init__()
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim), nn.GELU()) for _ in range(depth))
        self.heads = nn.ModuleDict({"reg": nn.Linear(dim, 1), "cls": nn.Linear(dim, 3)})
        self.scales = nn.ParameterList([nn.Parameter(torch.full((dim,), 0.5))
                                        for _ in range(depth)])
        self.act = nn.SiLU()

    def forward(self, x, head="reg"):
        for block, scale in zip(self.blocks, self.scales):
            x = x + scale * block(x)
        return self.heads[head](self.act(x))


torch.manual_seed(46)
model = ResidualMLP()
print(model)
print(len(model.blocks), list(model.heads.keys()), len(model.scales))
print([n for n, _ in model.named_parameters()][:5])

x = torch.randn(20, 8)
y_reg = x.mean(1, keepdim=True)
y_cls = torch.randint(0, 3, (20,))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for step in range(30):
    loss = (nn.functional.mse_loss(model(x, "reg"), y_reg)
            + nn.functional.cross_entropy(model(x, "cls"), y_cls))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 9:
        print(f"{step + 1} {loss.item():.4f}")

ln = nn.LayerNorm([2, 3], elementwise_affine=True)
t = torch.arange(12.0).reshape(2, 2, 3)
print(ln(t)[0], ln.weight.shape)
print(nn.Softplus(beta=2.0)(torch.tensor([-1.0, 0.0, 1.0])))
print(nn.GELU(approximate="tanh")(torch.tensor([-1.0, 0.5])))
hidden = model.blocks[0][1](x)
print(model.blocks[0][0](x).grad_fn.name(), model.blocks[0][2](hidden).grad_fn.name())
model.blocks.append(nn.Identity())
print(len(model.blocks), model.blocks[-1])
