#!/usr/bin/env bash
# The GPU check for the lent H200: one prepared command builds attnwb there against the
# machine's own torch (python3: torch 2.11.0+cu130) and measures it against PyTorch on the same GPU.
#
# Here (once, where apt works):   scripts/gpu-check.sh --prepare    # build deps into .gpu-deps (~8 MiB)
#                                 scripts/gpu-check.sh --dry-run    # the steps, expected times, deps
# On the device (one call):       run(command="bash scripts/gpu-check.sh", carry=[".gpu-deps"], timeout_s=560)
#   -> $OUT/summary.md, summary.json, logs.tar.gz, profile.tar.gz, bench.tar.gz, sweep.tar.gz
# Here, without a GPU (the build half, and the GPU half saying there is none):
#   scripts/gpu-check.sh --python "$(bash scripts/setup-torch2.sh)" [--cpu-rehearsal]
#   (--cpu-rehearsal runs steps b-e on the CPU at small sizes: the pipeline, not GPU figures)
# Exit: 0 every check passed, 1 a check failed, 4 no GPU (GPU steps skipped or rehearsed on the CPU).
# Options: scripts/gpu-check.sh --help
set -euo pipefail
cd "$(dirname "$0")/.."
# nvcc where CUDA images keep it, when it is not on PATH
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi
exec python3 -u scripts/gpu_check/run.py "$@"
