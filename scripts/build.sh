#!/usr/bin/env bash
# Configures and builds (Ninja, ccache when present). Two LibTorch builds, each in its own folder:
#   scripts/build.sh [CMAKE ARGS...]            Debian's libtorch-dev 1.13 (CPU) into build/
#   scripts/build.sh --torch2 [CMAKE ARGS...]   the PyTorch wheel's LibTorch 2.11 (CUDA, Kineto) into
#                                               build-torch2/ (scripts/setup-torch2.sh installs it)
#   scripts/build.sh --tsan [CMAKE ARGS...]     the Debian flavour under ThreadSanitizer into build-tsan/:
#                                               only the Qt tests (the engine thread and the background
#                                               work) and the snapshot replay's thread tests, which
#                                               scripts/test.sh runs there
#   scripts/build.sh --asan [CMAKE ARGS...]     the same under AddressSanitizer + UBSan (-Og, line tables)
#                                               into build-asan/: the Qt tests and the CLI (attnwb,
#                                               attnwb-engine)
# Extra arguments go to cmake's configure step, e.g. scripts/build.sh -DAWB_BUILD_GUI=OFF
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build
args=()
targets=()
if [ "${1:-}" = "--torch2" ]; then
  shift
  dir=build-torch2
  args=(-DAWB_TORCH_PYTHON="$(bash scripts/setup-torch2.sh)")
elif [ "${1:-}" = "--tsan" ]; then
  shift
  dir=build-tsan
  # -O1 -g1: what ThreadSanitizer's reports need, at half the compile time of -O2 -g (this folder only tests).
  args=(-DAWB_SANITIZE=thread "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG")
  targets=(--target awb_ui_tests awb_snapshot_thread_tests)
elif [ "${1:-}" = "--asan" ]; then
  shift
  dir=build-asan
  # -Og -g1: g++'s UBSan at -O1 -g doubled the compile time (run_json's unit 53 s -> 114 s); at -Og with
  # line tables only it is 43 s, and reports still name file and line.
  args=(-DAWB_SANITIZE=address,undefined "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-Og -g1")
  targets=(--target awb_ui_tests attnwb attnwb-engine)
fi
mkdir -p "$dir"
cmake -S . -B "$dir" -G Ninja "${args[@]}" "$@" >"$dir/configure.log" 2>&1 || { cat "$dir/configure.log" >&2; exit 1; }
grep -E "^-- Attention Workbench" "$dir/configure.log" || true
cmake --build "$dir" -j"$(nproc)" "${targets[@]}"
