#!/usr/bin/env bash
# Sets up, builds and runs every test against both LibTorch builds (this is what CI runs):
#   1. Debian's libtorch-dev 1.13 (CPU) in build/: the core GoogleTest suite, the Qt tests, the CLI
#      checks and the importer's fuzz test;
#   2. the PyTorch wheel's LibTorch 2.11 (CUDA + Kineto, run on the CPU here) in build-torch2/: the
#      same suites against fixtures made with torch 2.11 (the fuzz test, which uses no LibTorch, once);
#   3. the Debian flavour under ThreadSanitizer in build-tsan/: the Qt tests (the engine thread, its
#      crossings with the GUI thread, Stop, the background analyses, the importer's reader thread) and
#      the memory snapshot's replay threads (tsan.*); a report fails them. (The numbers are checked by the plain builds: a sanitizer's allocator and
#      pace change what the profiler attributes.)
#   4. the same under AddressSanitizer (with leak checks) + UndefinedBehaviorSanitizer in build-asan/:
#      the Qt tests and the CLI test; a report exits 86 (ASan) or 87 (UBSan), which no check expects.
#      (The core's tests run under clang's ASan + UBSan in step 1: sanitize.core_tests.)
# Each ctest run prints its own summary; the last line sums both.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
jobs="$(nproc)"
status=0
summary=()
failed_dirs=()
# ctest counts skipped tests (the GPU-only ones without a GPU) as passed; the closing line does not.
passed=0 failed=0 skipped=0
for flavour in "" --torch2 --tsan --asan; do
  case "$flavour" in
    --torch2) dir=build-torch2 select=() ;;
    --tsan) dir=build-tsan select=(-R '^(ui\.qt_tests|tsan\..*)$') ;;
    --asan) dir=build-asan select=(-R '^(ui\.qt_tests|cli\.(engine|readers))$') ;;
    *) dir=build select=() ;;
  esac
  t0=$SECONDS
  bash scripts/build.sh $flavour
  echo "test: $dir built in $((SECONDS - t0)) s"
  t0=$SECONDS
  set +e
  (cd "$dir" && ctest --output-on-failure -j"$jobs" --timeout 900 "${select[@]}") | tee "$dir/ctest.log"
  rc=${PIPESTATUS[0]}
  set -e
  echo "test: $dir tested in $((SECONDS - t0)) s (ctest exit $rc)"
  [ "$rc" -eq 0 ] || { status=1; failed_dirs+=("$dir"); }
  line=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$dir/ctest.log" || true)
  summary+=("$dir: ${line:-no summary}")
  [ -n "$line" ] || { status=1; continue; }
  total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line")
  bad=$(sed -E 's/.* ([0-9]+) tests failed.*/\1/' <<<"$line")
  skip=$(grep -cE '^[[:space:]]*[0-9]+ - .*\(Skipped\)$' "$dir/ctest.log" || true)
  passed=$((passed + total - bad - skip)); failed=$((failed + bad)); skipped=$((skipped + skip))
done
# CI keeps the log's tail only: repeat what each failure said (QTest's FAIL! and its location, the
# sanitizers' reports, ctest's timeouts) below the summaries, so the cause is never cut away.
for dir in "${failed_dirs[@]}"; do
  echo "test: what failed in $dir:"
  grep -aE -A4 'FAIL!|SUMMARY: |WARNING: ThreadSanitizer|ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|\*\*\*(Failed|Timeout|Exception)|ui tests: .* failed|\[  FAILED  \]' \
    "$dir/ctest.log" | head -120 || true
done
printf 'test: %s\n' "${summary[@]}"
echo "$passed passed, $failed failed, $skipped skipped"
exit "$status"
