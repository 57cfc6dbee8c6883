"""A denoising autoencoder with Dropout: train() draws masks, eval() turns them off."""
import torch
from torch import nn

torch.manual_seed(51)
basis = torch.randn(2, 10)
codes = torch.randn(64, 2)
clean = torch.tanh(codes @ basis)


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(10, 6), nn.ReLU(), nn.Dropout(p=0.2),
                                     nn.Linear(6, 2))
        self.decoder = nn.Sequential(nn.Linear(2, 6), nn.ReLU(), nn.Linear(6, 10), nn.Tanh())

    def forward(self, x):
        return self.decoder(self.encoder(x))


model = AutoEncoder()
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(40):
    noisy = clean + 0.1 * torch.randn_like(clean)
    recon = model(noisy)
    loss = nn.functional.mse_loss(recon, clean)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 10 == 9:
        print(f"epoch {epoch + 1} loss {loss.item():.5f}")

drop = nn.Dropout(0.5)
ones = torch.ones(2, 6)
print(drop(ones))
print(nn.functional.dropout(ones, p=0.5, training=False))
drop.eval()
print(drop(ones))
model.eval()
with torch.no_grad():
    a = model(clean[:2])
    b = model(clean[:2])
print(torch.equal(a, b), f"{nn.functional.mse_loss(model(clean), clean).item():.5f}")
print(model.encoder[2], model.training, model.encoder[2].training)
