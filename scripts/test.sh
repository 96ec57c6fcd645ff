#!/usr/bin/env bash
# Sets up, builds and runs every test (ctest: core GoogleTest suite, CLI checks, the LibTorch 2.x
# syntax-only compile of the core).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
cd build
ctest --output-on-failure -j"$(nproc)" --timeout 900
