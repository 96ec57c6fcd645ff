"""ALiBi (Press et al., "Train Short, Test Long"): a per-head linear bias -slope_h * (i - j) on the scores of
query i and key j, causal (keys after the query masked out, query i sees keys 0..i as the workbench's causal
mask does, also when Nq != Nk). Slopes 2^(-8 h / H), h = 1..H: the paper's sequence for H a power of two
(for other H the paper interleaves two such sequences; this module does not).

The module applies its causal mask itself, so export it with --mask causal --semantics custom (the bias makes
it differ from plain causal attention):

    python scripts/export_attention.py examples/alibi.py:alibi --mask causal --semantics custom
"""
import math

import torch


def alibi(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    heads, nq, nk = q.size(1), q.size(2), k.size(2)
    if k.size(1) != heads:
        k = k.repeat_interleave(heads // k.size(1), 1)
        v = v.repeat_interleave(heads // v.size(1), 1)
    h = torch.arange(1, heads + 1, device=q.device, dtype=q.dtype)
    slopes = torch.pow(2.0, h * (-8.0 / heads)).view(heads, 1, 1)
    i = torch.arange(nq, device=q.device).view(nq, 1)
    j = torch.arange(nk, device=q.device).view(1, nk)
    bias = slopes * (j - i).to(q.dtype)  # [H, Nq, Nk], <= 0 on the visible keys
    scores = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(q.size(-1))) + bias
    scores = scores.masked_fill(j > i, float("-inf"))
    return torch.matmul(torch.softmax(scores, -1), v)
