"""Gemma-2 style soft-capped attention scores: s = cap * tanh((Q K^T / sqrt(D)) / cap), cap 50, then
softmax(s) V. Not plain attention (the tanh bends large scores), so export it with --semantics custom; the
workbench checks the .pt2 against the .pt of the same function (the metadata's "reference").

    python scripts/export_attention.py examples/softcap.py:softcap --semantics custom
"""
import math

import torch


def softcap(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, cap: float = 50.0) -> torch.Tensor:
    if k.size(1) != q.size(1):
        k = k.repeat_interleave(q.size(1) // k.size(1), 1)
        v = v.repeat_interleave(q.size(1) // v.size(1), 1)
    scores = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(q.size(-1)))
    scores = torch.tanh(scores / cap) * cap
    return torch.matmul(torch.softmax(scores, -1), v)
