"""Bag-of-words sentiment: nn.Embedding averaged over tokens, on a made-up vocabulary."""
import torch
import torch.nn as nn

torch.manual_seed(15)
vocab = ["<pad>", "good", "great", "fine", "bad", "awful", "poor", "the", "movie", "was", "a"]
index = {w: i for i, w in enumerate(vocab)}
sentences = [
    ("the movie was good", 1), ("a great movie", 1), ("the movie was fine", 1),
    ("good good movie", 1), ("the movie was bad", 0), ("a awful movie", 0),
    ("poor movie", 0), ("bad bad bad", 0), ("was great", 1), ("was poor", 0),
]


def encode(text, length=4):
    ids = [index[w] for w in text.split()]
    return ids + [0] * (length - len(ids))


X = torch.tensor([encode(s) for s, _ in sentences])
y = torch.tensor([label for _, label in sentences])
print(X)


class BagOfWords(nn.Module):
    def __init__(self, n_words, dim=6):
        super().__init__()
        self.embed = nn.Embedding(n_words, dim, padding_idx=0)
        self.fc = nn.Linear(dim, 2)

    def forward(self, ids):
        mask = (ids != 0).unsqueeze(-1).float()
        vectors = self.embed(ids) * mask
        mean = vectors.sum(1) / mask.sum(1)
        return self.fc(mean)


model = BagOfWords(len(vocab))
print(model)
print(model.embed.weight[0])
opt = torch.optim.Adagrad(model.parameters(), lr=0.3)
for epoch in range(50):
    loss = nn.functional.cross_entropy(model(X), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 10 == 9:
        print(epoch + 1, f"{loss.item():.4f}")

print("padding row grad", model.embed.weight.grad[0])
test = torch.tensor([encode("the movie was great"), encode("awful awful")])
print(model(test).argmax(1).tolist())
print(model.embed(test).grad_fn.name())
