#!/usr/bin/env bash
# Sets up, builds and starts Attention Workbench. With a display (X11 or Wayland, or QT_QPA_PLATFORM
# set) it opens the GUI with the article's spec in the Run panel (press Ctrl+R). Without one it runs
# the article's experiment headless with attnwb: manual vs SDPA vs chunked, (2, 8, 512, 64), train,
# under the profiler (schedule 1/1/3) and with the profiler off, a correctness check and a short
# sequence-length sweep; reports, traces, the sweep and one HTML report per variant (run + benchmark +
# sweep + check, with the measurement checklist) go to results/.
#
# Usage: scripts/start.sh [--torch2] [ARGS...]: with --torch2 it builds and runs against the PyTorch
# wheel's LibTorch 2.11 (CUDA, Kineto; build-torch2/, installed by scripts/setup-torch2.sh) instead of
# Debian's 1.13; on a machine with a GPU that build also runs the article's fp16 CUDA experiment.
set -euo pipefail
cd "$(dirname "$0")/.."
flavour=() dir=build
if [ "${1:-}" = "--torch2" ]; then
  shift
  flavour=(--torch2) dir=build-torch2
fi
bash scripts/setup.sh
bash scripts/build.sh "${flavour[@]}"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}${QT_QPA_PLATFORM:-}" ]; then
  exec "./$dir/app/attention-workbench" "$@"
fi
attnwb="./$dir/app/attnwb"
echo "No display found: running the article's experiment with $attnwb (results in results/)."
mkdir -p results
for variant in manual sdpa chunked; do
  "$attnwb" profile --variant "$variant" --json "results/$variant.json" --trace "results/$variant.trace.json" "$@"
  "$attnwb" bench --variant "$variant" --json "results/$variant.bench.json"
done
"$attnwb" check --json results/check.json
"$attnwb" sweep --seq 256,512,1024 --variants manual,sdpa,chunked --json results/sweep.json --csv results/sweep.csv
for variant in manual sdpa chunked; do
  "$attnwb" report "results/$variant.json" "results/$variant.bench.json" results/sweep.json results/check.json \
    -o "results/$variant.html" --quiet >/dev/null
done
echo "HTML reports: results/manual.html, results/sdpa.html, results/chunked.html"
