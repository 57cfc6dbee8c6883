"""A custom nn.Module with Parameters and a helper method, trained with SGD + momentum."""
import torch


class Cubic(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))

    def forward(self, x):
        return self.a + self.b * x + self.c * x**2 + self.d * x**3

    def string(self):
        return (f"y = {self.a.item():.4f} + {self.b.item():.4f} x + "
                f"{self.c.item():.4f} x^2 + {self.d.item():.4f} x^3")


torch.manual_seed(5)
x = torch.linspace(-1, 1, 100)
y = torch.sigmoid(3 * x)

model = Cubic()
print(model)
print(sum(p.numel() for p in model.parameters()), "parameters")
criterion = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)

for t in range(200):
    loss = criterion(model(x), y)
    if t % 40 == 39:
        print(t + 1, f"{loss.item():.5f}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

print(model.string())
print(list(model.state_dict().keys()))
print(model.a)
print(type(model.a).__name__, isinstance(model.a, torch.Tensor))
