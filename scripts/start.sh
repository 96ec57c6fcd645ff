#!/usr/bin/env bash
# Sets up, builds and starts Attention Workbench. Until the GUI lands this runs the article's
# experiment with attnwb: manual attention vs SDPA vs chunked, (2, 8, 512, 64), train, under the
# profiler (schedule 1/1/3), then the same with the profiler off, a correctness check, and a short
# sequence-length sweep. Reports, traces and the sweep go to results/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
mkdir -p results
for variant in manual sdpa chunked; do
  ./build/app/attnwb profile --variant "$variant" --json "results/$variant.json" --trace "results/$variant.trace.json" "$@"
  ./build/app/attnwb bench --variant "$variant" --json "results/$variant.bench.json"
done
./build/app/attnwb check
./build/app/attnwb sweep --seq 256,512,1024 --variants manual,sdpa,chunked --json results/sweep.json --csv results/sweep.csv
