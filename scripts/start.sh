#!/usr/bin/env bash
# Sets up, builds and starts Attention Workbench. Until the GUI lands this runs the article's
# experiment (manual attention vs SDPA, (2, 8, 512, 64), train, profiler schedule 1/1/3) with attnwb.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
mkdir -p results
for variant in manual sdpa; do
  ./build/app/attnwb profile --variant "$variant" --json "results/$variant.json" --trace "results/$variant.trace.json" "$@"
done
