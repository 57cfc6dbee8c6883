"""einsum, gather, scatter/scatter_add, index_select, masked_select and their gradients."""
import torch

torch.manual_seed(49)
A = torch.randn(2, 3, requires_grad=True)
B = torch.randn(3, 4, requires_grad=True)
C = torch.einsum("ij,jk->ik", A, B)
print(torch.allclose(C, A @ B), C.grad_fn is not None)
print(torch.einsum("ii->i", torch.arange(9.0).reshape(3, 3)))
print(torch.einsum("bi,bi->b", A, A.detach() * 2))
print(torch.einsum("i,j->ij", torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0, 5.0])))
C.sum().backward()
print(A.grad)

scores = torch.randn(4, 5, requires_grad=True)
picks = torch.tensor([[1], [0], [4], [2]])
chosen = scores.gather(1, picks)
print(chosen.squeeze(1), chosen.grad_fn.name())
chosen.sum().backward()
print(scores.grad)

src = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0])
index = torch.tensor([0, 1, 0, 2, 1])
print(torch.zeros(3).scatter_add(0, index, src))
print(torch.zeros(3, 5).scatter(0, torch.tensor([[0, 1, 2, 0, 1]]), 7.0))
w = torch.randn(5, requires_grad=True)
summed = torch.zeros(3).scatter_add(0, index, w * 2)
summed.pow(2).sum().backward()
print(w.grad)

table = torch.arange(12.0).reshape(4, 3).requires_grad_()
rows = torch.index_select(table, 0, torch.tensor([3, 1, 3]))
print(rows, rows.grad_fn.name())
rows.sum().backward()
print(table.grad)
mask = table > 6
print(torch.masked_select(table, mask), table.detach()[mask].shape)
