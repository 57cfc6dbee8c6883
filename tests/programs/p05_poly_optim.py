"""The fit with torch.optim: RMSprop steps on a Sequential model."""
import torch

torch.manual_seed(4)
x = torch.linspace(-1.5, 1.5, 90)
y = torch.tanh(2 * x)
xx = torch.stack([x, x**2, x**3], dim=-1)

model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
loss_fn = torch.nn.MSELoss(reduction="mean")
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-2)
print(optimizer)

for t in range(250):
    loss = loss_fn(model(xx), y)
    if t % 50 == 49:
        print(t + 1, f"{loss.item():.5f}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

w = model[0].weight.detach().flatten()
print("poly:", f"{model[0].bias.item():.4f}", [round(v, 4) for v in w.tolist()])
state = optimizer.state_dict()
print(sorted(state["state"][0].keys()), state["param_groups"][0]["params"])
print("square_avg", state["state"][0]["square_avg"].shape)
for group in optimizer.param_groups:  # a manual learning-rate drop, then a few more steps
    group["lr"] *= 0.1
for _ in range(20):
    loss = loss_fn(model(xx), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"after the drop {loss.item():.5f}", optimizer.param_groups[0]["lr"])
print("grad is None after zero_grad(set_to_none)?", end=" ")
optimizer.zero_grad()
print(model[0].weight.grad is None)
