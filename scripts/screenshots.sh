#!/usr/bin/env bash
# Makes the screenshots of the README and docs/ with real data (the article's workload profiled on this machine):
# resources/screenshots/{main-window,main-window-1000x700,gpu-trace-window,timeline,operator-table,sweep-time,sweep-memory,sweep-roofline,sweep-merged,comparison,gpu-trace,gpu-time,findings,attention,attention-engines,attention-engines-1000x700,memory-totals,kernel-names,compare-verdict,compare-verdict-1000x700,memory-snapshot,memory-snapshot-1000x700,collectives,collectives-1000x700,ranks}.png
# from the Debian (1.13) build, and comparison-torch2.png (manual vs sdpa's fused CPU kernel) from the
# wheel's (2.11) build when build-torch2/ exists. Needs built trees (scripts/build.sh [--torch2]).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --build build --target awb_screenshots
[ -d build-torch2 ] && cmake --build build-torch2 --target awb_screenshots
QT_QPA_PLATFORM=offscreen ./build/tests/awb_screenshots resources/screenshots
if [ -x build-torch2/tests/awb_screenshots ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  QT_QPA_PLATFORM=offscreen ./build-torch2/tests/awb_screenshots "$tmp"
  cp "$tmp/comparison.png" resources/screenshots/comparison-torch2.png
fi
