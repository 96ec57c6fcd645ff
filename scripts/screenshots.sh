#!/usr/bin/env bash
# Makes the README's screenshots with real data (the article's workload profiled on this machine):
# resources/screenshots/{main-window,timeline,operator-table,sweep-time,sweep-memory,comparison,gpu-trace,findings}.png. Needs a built tree (scripts/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
QT_QPA_PLATFORM=offscreen ./build/tests/awb_screenshots resources/screenshots
