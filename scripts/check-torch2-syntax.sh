#!/usr/bin/env bash
# Compiles every core translation unit syntax-only against LibTorch 2.x headers (Debian 13's
# libtorch-dev, downloaded and unpacked, never installed), so API drift shows up without a 2.x build.
# Usage: check-torch2-syntax.sh SOURCE_DIR WORK_DIR
set -euo pipefail
src=$(realpath "${1:?usage: $0 SOURCE_DIR WORK_DIR}")
work=$(realpath -m "${2:?usage: $0 SOURCE_DIR WORK_DIR}")
bash "$src/scripts/fetch-torch2-headers.sh" "$work"
inc="$work/root/usr/include"
grep -q "TORCH_VERSION_MAJOR 2" "$inc/torch/csrc/api/include/torch/version.h"
failed=0
count=0
for tu in "$src"/core/*.cpp; do
  count=$((count + 1))
  if g++ -std=c++20 -fsyntax-only -Wall -Wextra -DAWB_BUILD_TYPE='"syntax-check"' \
       -isystem "$inc" -isystem "$inc/torch/csrc/api/include" -I "$src/core" "$tu" 2>"$work/err.txt"; then
    echo "ok   $(basename "$tu")"
  else
    echo "FAIL $(basename "$tu")"; sed 's/^/  | /' "$work/err.txt" | head -30; failed=$((failed + 1))
  fi
done
# The compile above really saw 2.x: compat.h must select its 2.x branch.
printf '#include "compat.h"\nstatic_assert(awb::compat::kTorch2, "LibTorch 2.x headers expected");\n' >"$work/probe.cpp"
count=$((count + 1))
if g++ -std=c++20 -fsyntax-only -isystem "$inc" -isystem "$inc/torch/csrc/api/include" -I "$src/core" "$work/probe.cpp" 2>"$work/err.txt"; then
  echo "ok   compat.h selects the LibTorch 2.x branch"
else
  echo "FAIL compat.h does not see LibTorch 2.x"; sed 's/^/  | /' "$work/err.txt" | head -10; failed=$((failed + 1))
fi
echo "$((count - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
