"""The workbench's own `manual` variant (core/engine/variants.cpp, ManualAttention) as a module, op for op:
GQA by repeat_interleave on dim 1 when KVH < H, matmul(q, k^T), mul by 1/sqrt(D), masked_fill(~keep, -inf)
when masked, softmax over the keys, matmul(p, v). Timing it through the workbench next to `manual` shows what
running a user's module costs (the file's loading and calling) against the built-in variant.

One difference: in TorchScript `scores * scale` is aten::mul.Scalar, where the engine calls mul.Tensor with a
wrapped 0-dim scalar (as eager Python does); the values are the same.

    python scripts/export_attention.py examples/manual_attention.py:manual_attention --semantics attention
    python scripts/export_attention.py examples/manual_attention.py:manual_attention_masked \
        --inputs keep_mask --semantics attention
"""
import math

import torch


def manual_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    if k.size(1) != q.size(1):
        k = k.repeat_interleave(q.size(1) // k.size(1), 1)
        v = v.repeat_interleave(q.size(1) // v.size(1), 1)
    scale = 1.0 / math.sqrt(q.size(-1))
    scores = torch.matmul(q, k.transpose(-2, -1)) * scale
    return torch.matmul(torch.softmax(scores, -1), v)


def manual_attention_masked(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, keep_mask: torch.Tensor) -> torch.Tensor:
    if k.size(1) != q.size(1):
        k = k.repeat_interleave(q.size(1) // k.size(1), 1)
        v = v.repeat_interleave(q.size(1) // v.size(1), 1)
    scale = 1.0 / math.sqrt(q.size(-1))
    scores = torch.matmul(q, k.transpose(-2, -1)) * scale
    scores = scores.masked_fill(keep_mask.logical_not(), float("-inf"))
    return torch.matmul(torch.softmax(scores, -1), v)
