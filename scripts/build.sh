#!/usr/bin/env bash
# Configures and builds into build/ (Ninja, ccache when present). Extra arguments go to cmake's
# configure step, e.g. scripts/build.sh -DAWB_BUILD_GUI=OFF
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja "$@" >/dev/null
cmake --build build -j"$(nproc)"
