#!/usr/bin/env bash
# Fuzzes a reader with libFuzzer under AddressSanitizer + UBSan for a fixed time:
#   scripts/fuzz.sh [SECONDS] [TARGET]      (default 60 s, trace_import)
#   scripts/fuzz.sh --build-only
# TARGET: trace_import (the chrome-trace importer), memory_snapshot (the snapshot pickle reader) or results_report, results_bench,
# results_sweep, results_check, results_workspace, results_diff (the readers of our own files),
# results_merge (attnwb merge of a sweep's shard files).
#
# Builds tests/fuzz (a standalone CMake project, clang only) into $AWB_FUZZ_BUILD_DIR (default
# build/fuzz); reconfigures only when that directory is new and rebuilds only what changed
# (AWB_FUZZ_NO_BUILD=1: not at all, for runs side by side after one --build-only). Seeds of
# trace_import: tests/fuzz/seeds/ plus whatever tests/fixtures/traces/ holds (*.json, *.json.gz, bad/*);
# of results_X: tests/fuzz/seeds-results/X/. Each target's working corpus grows in the build directory
# across runs (corpus/TARGET); nothing is written to the source tree.
# Exit status: 0 when the run ends clean, 1 when the fuzzer reports a crash, sanitizer error, leak,
# timeout or out-of-memory (the reproducer's path and the command to replay it are printed), 2 on a
# setup or build error.
# Environment: AWB_FUZZ_BUILD_DIR, AWB_FUZZ_CXX (default clang++), AWB_FUZZ_JOBS (build jobs,
# default nproc), AWB_FUZZ_ARGS (extra libFuzzer flags, e.g. "-jobs=2" or "-seed=1").
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_only=0
[ "${1:-}" = "--build-only" ] && build_only=1 && shift
secs="${1:-60}"
target="${2:-trace_import}"
if ! [[ "$secs" =~ ^[0-9]+$ ]] || [ "$secs" -lt 1 ]; then
  echo "usage: $0 [SECONDS] [TARGET]   (a whole number of seconds, default 60; TARGET default trace_import)" >&2
  exit 2
fi
case "$target" in
  trace_import | memory_snapshot | results_report | results_bench | results_sweep | results_check | results_workspace | results_diff | results_merge) ;;
  *) echo "fuzz: unknown target '$target' (trace_import, memory_snapshot or results_report|bench|sweep|check|workspace|diff|merge)" >&2; exit 2 ;;
esac
build="${AWB_FUZZ_BUILD_DIR:-$root/build/fuzz}"
cxx="${AWB_FUZZ_CXX:-clang++}"
jobs="${AWB_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}"
max_len=65536
src="$root/tests/fuzz"

if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "fuzz: $cxx not found (Debian: apt-get install clang libclang-rt-14-dev llvm)" >&2
  exit 2
fi
cxx="$(command -v "$cxx")"

# --- build (configure once; ninja/make rerun cmake themselves when a CMakeLists.txt changes) -----
mkdir -p "$build"
if [ ! -f "$build/CMakeCache.txt" ]; then
  gen=()
  command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
  launcher=()
  command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER="$(command -v ccache)")
  echo "fuzz: configuring $build with $cxx"
  if ! cmake -S "$src" -B "$build" "${gen[@]}" -DCMAKE_CXX_COMPILER="$cxx" "${launcher[@]}" >"$build/configure.log" 2>&1; then
    cat "$build/configure.log" >&2
    rm -f "$build/CMakeCache.txt"  # configure again next time
    echo "fuzz: configure failed" >&2
    exit 2
  fi
fi
if [ "${AWB_FUZZ_NO_BUILD:-0}" != 1 ]; then
  t0=$SECONDS
  if ! cmake --build "$build" --parallel "$jobs"; then
    echo "fuzz: build failed" >&2
    exit 2
  fi
  echo "fuzz: build step took $((SECONDS - t0)) s"
fi
[ "$build_only" = 1 ] && exit 0
fuzzer="$build/fuzz_$target"
[ -x "$fuzzer" ] || { echo "fuzz: $fuzzer is not built (scripts/fuzz.sh --build-only)" >&2; exit 2; }

# --- seed corpus: recreated each run from the repository (read-only for libFuzzer) --------------
seeds="$build/seeds/$target"
corpus="$build/corpus/$target"
artifacts="$build/artifacts/$target"
rm -rf "$seeds"
mkdir -p "$seeds" "$corpus" "$artifacts"
n_seeds=0
n_skipped=0
add_seed() {  # add_seed FILE PREFIX
  local f="$1" size
  [ -f "$f" ] || return 0
  size=$(stat -c %s "$f")
  if [ "$size" -gt "$max_len" ]; then
    n_skipped=$((n_skipped + 1))  # libFuzzer would truncate it to -max_len: just a broken file
    return 0
  fi
  cp "$f" "$seeds/$2$(basename "$f")"
  n_seeds=$((n_seeds + 1))
}
shopt -s nullglob
if [ "$target" = trace_import ]; then
  dict="$src/trace.dict"
  for f in "$src"/seeds/*; do add_seed "$f" "seed_"; done
  fixtures="$root/tests/fixtures/traces"
  for f in "$fixtures"/*.json "$fixtures"/*.json.gz; do add_seed "$f" "fixture_"; done
  for f in "$fixtures"/bad/*; do add_seed "$f" "fixture_bad_"; done
elif [ "$target" = memory_snapshot ]; then
  dict="$src/pickle.dict"
  fixtures="$root/tests/fixtures/memory_snapshots"
  for f in "$fixtures"/*.pickle "$fixtures"/*.pickle.gz "$fixtures"/bad/*.pickle "$fixtures"/linked/*.pickle "$fixtures"/gpu/*.pickle; do add_seed "$f" "fixture_"; done
else
  dict="$src/results.dict"
  for f in "$src/seeds-results/${target#results_}"/*; do add_seed "$f" "seed_"; done
fi
shopt -u nullglob
[ "$n_seeds" -gt 0 ] || { echo "fuzz: no seeds for $target" >&2; exit 2; }
echo "fuzz: $target: $n_seeds seed files ($n_skipped over $max_len bytes skipped), working corpus $corpus"

# --- run ----------------------------------------------------------------------------------------
symbolizer="$(command -v llvm-symbolizer || true)"
[ -z "$symbolizer" ] && [ -x /usr/lib/llvm-14/bin/llvm-symbolizer ] && symbolizer=/usr/lib/llvm-14/bin/llvm-symbolizer
if [ -n "$symbolizer" ]; then
  export ASAN_SYMBOLIZER_PATH="$symbolizer"
else
  echo "fuzz: llvm-symbolizer not found; stacks will be unsymbolized (Debian: apt-get install llvm)" >&2
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:halt_on_error=1"

marker="$build/.run-start-$target"
touch "$marker"
log="$build/fuzz-$target.log"
echo "fuzz: running $fuzzer for $secs s (log: $log)"
set +e
# shellcheck disable=SC2086  # AWB_FUZZ_ARGS is a list of flags
"$fuzzer" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" \
  -dict="$dict" -artifact_prefix="$artifacts/" -print_final_stats=1 \
  ${AWB_FUZZ_ARGS:-} "$corpus" "$seeds" 2>&1 | tee "$log" | grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE)'
rc=${PIPESTATUS[0]}
set -e

grep -E '^(Done [0-9]+ runs|stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb))' "$log" |
  sed 's/^/fuzz: /' || true
mapfile -t found < <(find "$artifacts" -maxdepth 1 -type f -newer "$marker" | sort)
if [ "$rc" -ne 0 ] || [ ${#found[@]} -gt 0 ]; then
  echo "fuzz: FAILED (libFuzzer exit status $rc); see $log" >&2
  for f in "${found[@]}"; do
    echo "fuzz: reproducer: $f" >&2
    echo "fuzz:   replay with: $fuzzer $f" >&2
  done
  [ ${#found[@]} -eq 0 ] && echo "fuzz: no reproducer was written (the fuzzer itself failed to run?)" >&2
  exit 1
fi
echo "fuzz: $target OK, no findings in $secs s"
