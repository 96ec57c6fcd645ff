#!/usr/bin/env python3
"""Writes the modules the workbench must refuse, with valid attnwb.json metadata so that the refusal comes from
the module itself, not from its metadata:
  wrong_arity.pt   forward(q, k): takes two inputs, the workbench passes q, k, v
  wrong_shape.pt   forward(q, k, v) returning [B, H, Nq, D/2], not q's shape
export_attention.py refuses to write these (its verification checks the output's shape and calls with q, k, v),
so they are saved here with torch.jit.script and the script's metadata writer.

Usage: PYTHON tests/modules/refusal_modules.py OUT_DIR   (PYTHON: /usr/bin/python3 or the torch 2 venv)
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import export_attention  # noqa: E402


class WrongArity(torch.nn.Module):
    def forward(self, q, k):
        return torch.softmax(q @ k.transpose(-2, -1), -1) @ k


class WrongShape(torch.nn.Module):
    def forward(self, q, k, v):
        p = torch.softmax(q @ k.transpose(-2, -1) / float(q.size(-1)) ** 0.5, -1)
        return (p @ v)[..., : q.size(-1) // 2]


def metadata(name, description):
    a = argparse.Namespace(layout="bhnd", inputs=[], semantics="attention", mask="none")
    return export_attention.build_metadata(a, name, "pt", description)


def main(out):
    os.makedirs(out, exist_ok=True)
    for stem, module, description in (
            ("wrong_arity", WrongArity(), "refusal fixture: forward(q, k) takes two inputs, not q, k, v"),
            ("wrong_shape", WrongShape(), "refusal fixture: returns [B, H, Nq, D/2], not q's shape")):
        path = os.path.join(out, stem + ".pt")
        torch.jit.script(module).save(path, _extra_files={"attnwb.json": metadata(type(module).__name__, description)})
        print(f"wrote {path}: {os.path.getsize(path) / 1024:.1f} KiB")


if __name__ == "__main__":
    main(sys.argv[1])
