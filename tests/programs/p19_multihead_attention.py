"""nn.MultiheadAttention: shapes, averaged weights, key padding masks and gradients."""
import torch
import torch.nn as nn

torch.manual_seed(19)
mha = nn.MultiheadAttention(embed_dim=6, num_heads=2, batch_first=True)
print(mha)
print(mha.in_proj_weight.shape, mha.out_proj.weight.shape, mha.in_proj_bias)

x = torch.randn(2, 3, 6)
out, attn = mha(x, x, x)
print(out.shape, attn.shape)
print(attn[0])
print(attn.sum(-1))

pad = torch.tensor([[False, False, True], [False, False, False]])
out2, attn2 = mha(x, x, x, key_padding_mask=pad)
print(attn2[0])
_, per_head = mha(x, x, x, need_weights=True, average_attn_weights=False)
print(per_head.shape)

memory = torch.randn(2, 4, 6)
cross, w = mha(x, memory, memory)
print(cross.shape, w.shape)
cross.sum().backward()
print(f"{mha.in_proj_weight.grad.norm().item():.4f} {mha.out_proj.bias.grad.sum().item():.4f}")
print(out.grad_fn is not None)

# attention pooling: a learned query picks out the token holding the largest value
torch.manual_seed(190)
pool = nn.MultiheadAttention(4, num_heads=1, batch_first=True)
query = nn.Parameter(torch.zeros(1, 1, 4))
tokens = torch.randn(16, 5, 4)
target = tokens.max(dim=1).values
opt = torch.optim.Adam(list(pool.parameters()) + [query], lr=0.05)
for step in range(20):
    pooled, weights = pool(query.expand(16, 1, 4), tokens, tokens)
    loss = nn.functional.mse_loss(pooled.squeeze(1), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 4:
        print(f"pool {step + 1} {loss.item():.4f} max weight {weights.max().item():.4f}")
