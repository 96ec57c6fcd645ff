"""FlexAttention (torch.nn.attention.flex_attention, torch >= 2.5) with a sliding-window causal block mask:
query i sees keys i - W + 1 .. i, W = 256 (the workbench's --mask window --window 256). It computes plain
attention under that mask, so export it with --semantics attention --mask window --window 256.

TorchScript cannot script or trace flex_attention (it is a higher-order op dispatched through torch.compile
machinery), so export the .pt2 only:

    python scripts/export_attention.py examples/flex_window.py:flex_window --formats pt2 \
        --mask window --window 256 --semantics attention

See examples/README.md for what AOTInductor on CPU makes of it in torch 2.11.
"""
import torch
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

WINDOW = 256


def sliding_window_causal(b, h, q_idx, kv_idx):
    return (q_idx >= kv_idx) & (q_idx - kv_idx < WINDOW)


def flex_window(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    block_mask = create_block_mask(sliding_window_causal, B=None, H=None, Q_LEN=q.size(-2), KV_LEN=k.size(-2),
                                   device=q.device)
    return flex_attention(q, k, v, block_mask=block_mask, enable_gqa=k.size(1) != q.size(1))
