"""autograd.profiler / torch.profiler: record_function labels and per-op counts."""
import torch
from torch import nn
from torch.autograd import profiler

torch.manual_seed(37)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
x = torch.randn(32, 8)

with profiler.profile() as prof:
    for _ in range(3):
        with profiler.record_function("forward_pass"):
            out = model(x)
        with profiler.record_function("backward_pass"):
            out.sum().backward()

averages = prof.key_averages()
by_key = {e.key: e for e in averages}
print(type(prof).__name__, type(averages).__name__)
for label in ("forward_pass", "backward_pass"):
    event = by_key[label]
    print(label, event.count, event.cpu_time_total >= 0)
print("has relu", any("relu" in key for key in by_key))
print("has addmm", "aten::addmm" in by_key, by_key["aten::addmm"].count)
table = averages.table(sort_by="cpu_time_total", row_limit=5)
header = table.splitlines()[1]
print(header.split()[:3])
print(len(table.splitlines()) > 5)
print(f"{out.sum().item():.4f}")

with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as p2:
    with torch.profiler.record_function("matmul_block"):
        torch.mm(torch.ones(4, 4), torch.ones(4, 4))
keys = {e.key for e in p2.key_averages()}
print("matmul_block" in keys, "aten::mm" in keys)
