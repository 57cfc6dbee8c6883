"""Numerical helpers: linalg solve/lstsq/qr/norms, an FFT low-pass filter, special functions,
and torch.testing.assert_close with its failure message."""
import math

import torch

torch.manual_seed(55)
A = torch.randn(4, 4, dtype=torch.float64) + 4 * torch.eye(4, dtype=torch.float64)
b = torch.randn(4, dtype=torch.float64)
x = torch.linalg.solve(A, b)
print(x)
torch.testing.assert_close(A @ x, b)
print("solve ok", torch.linalg.norm(A @ x - b).item() < 1e-10)

M = torch.randn(10, 3, dtype=torch.float64)
y = M @ torch.tensor([1.0, 2.0, -1.0], dtype=torch.float64)
sol = torch.linalg.lstsq(M, y.unsqueeze(1)).solution
print(sol.squeeze(1))
Q, R = torch.linalg.qr(M)
print(Q.shape, R.shape, torch.allclose(Q @ R, M))
print(f"{torch.linalg.matrix_norm(A).item():.4f} {torch.linalg.vector_norm(b, ord=1).item():.4f}")
print(f"{torch.linalg.det(A).item():.4f} {torch.linalg.cond(A).item():.4f}")
Ainv = torch.linalg.inv(A)
print(torch.allclose(Ainv @ A, torch.eye(4, dtype=torch.float64)))

n = 64
t = torch.arange(n, dtype=torch.float32) / n
signal = torch.sin(2 * math.pi * 3 * t) + 0.5 * torch.sin(2 * math.pi * 20 * t)
spectrum = torch.fft.rfft(signal)
print(spectrum.shape, spectrum.dtype)
mags = spectrum.abs()
print([int(i) for i in mags.topk(2).indices])
spectrum[10:] = 0
smooth = torch.fft.irfft(spectrum, n=n)
print(f"{(smooth - torch.sin(2 * math.pi * 3 * t)).abs().max().item():.4f}")
freqs = torch.fft.rfftfreq(8, d=0.5)
print(freqs)

z = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
e = torch.special.erf(z) + torch.special.expit(z) + torch.special.gammaln(z)
e.sum().backward()
print(e, z.grad)
print(torch.special.logsumexp(z, dim=0), torch.special.xlogy(z, z))

try:
    torch.testing.assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.1]))
except AssertionError as exc:
    print("AssertionError:", str(exc).splitlines()[0])
try:
    torch.testing.assert_close(torch.tensor([1.0]), torch.tensor([1.0], dtype=torch.float64))
except AssertionError as exc:
    print("AssertionError:", str(exc).splitlines()[0])
torch.testing.assert_close(torch.tensor([1.0]), torch.tensor([1.0 + 1e-7]))
print("close enough")
