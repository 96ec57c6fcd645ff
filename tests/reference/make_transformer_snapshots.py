"""Memory snapshots of a real training step, for the snapshot views and attnwb diff:
tests/fixtures/memory_snapshots/transformer_{manual,sdpa}.pickle.gz.

A 4-block pre-norm transformer (d_model 256, 8 heads, MLP 4x) trained with AdamW on a [4, 512, 256]
batch, two steps recorded by torch 2.11's CPU profiler (profile_memory, with_stack) after one warm-up
step, turned into a snapshot by torch's own torch.cuda._memory_viz._profile_to_snapshot (no GPU
needed). The two files differ only in the attention: the article's manual matmul -> softmax -> matmul,
whose [4, 8, 512, 512] float32 scores (32 MiB a layer) stay alive for the backward, and
F.scaled_dot_product_attention. Thousands of events, hundreds of blocks, module frames (nn.Module:
Attn_3), blocks alive before recording (the parameters and the optimizer's state).

Run with the torch 2.11 venv (scripts/setup-torch2.sh):
  ~/.cache/attention-workbench/venv-torch-2.11.0/bin/python tests/reference/make_transformer_snapshots.py
"""
import gzip
import pickle
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.cuda._memory_viz import _profile_to_snapshot

OUT = Path(__file__).resolve().parents[1] / "fixtures" / "memory_snapshots"


class Attn(nn.Module):
    def __init__(self, d, heads, manual):
        super().__init__()
        self.heads, self.manual = heads, manual
        self.qkv, self.o = nn.Linear(d, 3 * d), nn.Linear(d, d)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        if self.manual:
            scores = q @ k.transpose(-2, -1) / (d // self.heads) ** 0.5
            y = scores.softmax(-1) @ v
        else:
            y = F.scaled_dot_product_attention(q, k, v)
        return self.o(y.transpose(1, 2).reshape(b, n, d))


class Block(nn.Module):
    def __init__(self, d, heads, manual):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = Attn(d, heads, manual)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


def snapshot(manual):
    torch.manual_seed(0)
    model = nn.Sequential(*[Block(256, 8, manual) for _ in range(4)])
    opt = torch.optim.AdamW(model.parameters())
    x = torch.randn(4, 512, 256)

    def step():
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()

    step()
    with torch.profiler.profile(profile_memory=True, with_stack=True, record_shapes=True, acc_events=True) as prof:
        for _ in range(2):
            step()
    return _profile_to_snapshot(prof)


if __name__ == "__main__":
    for name, manual in (("manual", True), ("sdpa", False)):
        snap = snapshot(manual)
        with gzip.GzipFile(OUT / f"transformer_{name}.pickle.gz", "wb", mtime=0) as f:
            f.write(pickle.dumps(snap, protocol=4))
        print(f"transformer_{name}: {len(snap['device_traces'][0])} trace events")
