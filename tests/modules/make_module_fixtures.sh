#!/bin/bash
# Writes the module fixtures (users' attention modules as files) with scripts/export_attention.py:
#   tests/fixtures/modules/torch1/  Debian's torch 1.13 (/usr/bin/python3): TorchScript .pt only
#   tests/fixtures/modules/torch2/  the torch 2.11 venv (scripts/setup-torch2.sh): .pt and AOTInductor .pt2
# See tests/fixtures/modules/README.md for what each file is. The .pt2 are compiled with --portable
# (x86-64-v3, AVX2 kernels) so that they load on any AVX2 CPU, not only the one that made them.
# Takes 138 s (measured 2026-12-03 on 2 shared cores): each .pt2 is ~20-40 s of AOTInductor compile, the .pt
# files and the refusals a few seconds (most of it python and torch start-up).
# Usage: bash tests/modules/make_module_fixtures.sh   (from anywhere)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="$root/tests/fixtures/modules"
py1=/usr/bin/python3
py2="${AWB_TORCH2_PYTHON:-/root/.cache/attention-workbench/venv-torch-2.11.0/bin/python}"
export_py="$root/scripts/export_attention.py"
ex="$root/examples"
shape=(--batch 1 --heads 2 --head-dim 16 --seq-min 16 --seq-max 1024)
start=$(date +%s)

make_set() {  # python, folder, formats of the softcap/manual_like exports
    local py="$1" dir="$2" formats="$3"
    rm -rf "$dir" && mkdir -p "$dir"
    "$py" "$export_py" "$ex/manual_attention.py:manual_attention" --name manual_like --out "$dir" \
        --formats "$formats" --portable --semantics attention "${shape[@]}" \
        --description "the workbench's manual variant, op for op (examples/manual_attention.py)"
    "$py" "$export_py" "$ex/manual_attention.py:manual_attention_masked" --name manual_masked --out "$dir" \
        --formats pt --inputs keep_mask --semantics attention "${shape[@]}" \
        --description "manual with the spec's mask passed in as keep_mask (examples/manual_attention.py)"
    "$py" "$export_py" "$ex/softcap.py:softcap" --name softcap --out "$dir" --formats "$formats" --portable \
        --semantics custom "${shape[@]}" --description "Gemma-2 tanh soft-capped scores, cap 50 (examples/softcap.py)"
    "$py" "$root/tests/modules/refusal_modules.py" "$dir"
}

make_set "$py1" "$out/torch1" pt
make_set "$py2" "$out/torch2" pt,pt2
"$py2" "$export_py" "$ex/manual_attention.py:manual_attention" --name static_n --out "$out/torch2" --formats pt2 \
    --portable --semantics attention --batch 1 --heads 2 --head-dim 16 --seq-min 64 --seq-max 64 \
    --description "refusal fixture: N static 64 (a spec with another N is refused)"
echo "fixtures written in $(( $(date +%s) - start )) s:"
(cd "$out" && find torch1 torch2 -type f -printf '%p %s\n' | sort && du -cb torch1 torch2 | tail -1)
