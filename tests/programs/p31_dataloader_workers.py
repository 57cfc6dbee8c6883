"""A map-style Dataset of dicts loaded by two worker processes, with a custom collate_fn."""
import torch
from torch.utils.data import DataLoader, Dataset, default_collate


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        x = torch.tensor([float(i), float(i) ** 2])
        return {"x": x, "label": i % 3, "name": f"item{i}"}


def pad_collate(items):
    batch = default_collate(items)
    batch["size"] = len(items)
    return batch


if __name__ == "__main__":
    torch.manual_seed(31)
    ds = Squares(10)
    loader = DataLoader(ds, batch_size=4, num_workers=2, shuffle=True,
                        generator=torch.Generator().manual_seed(7))
    for batch in loader:
        print(sorted(batch), batch["x"].shape, batch["label"].tolist(), batch["name"])
    print(len(loader), loader.num_workers)

    loader = DataLoader(ds, batch_size=3, num_workers=2, collate_fn=pad_collate)
    sizes = []
    total = torch.zeros(2)
    for batch in loader:
        sizes.append(batch["size"])
        total += batch["x"].sum(0)
    print(sizes, total)

    plain = DataLoader(list(range(7)), batch_size=3)
    print([b.tolist() for b in plain])
    pairs = DataLoader([(1, 2.5), (3, 4.5)], batch_size=2)
    print(next(iter(pairs)))
