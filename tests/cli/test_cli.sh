#!/usr/bin/env bash
# attnwb's exit codes and outputs: 0 on success, 2 on bad input (each problem named on stderr),
# 1 on a runtime failure. Usage: test_cli.sh ATTNWB [engine|readers]
#   engine   the commands that run models (profile, bench, sweep, check), shards and merge, Ctrl-C and
#            SIGTERM in them, a full disk, a trace too big for the memory left (cli_engine_checks.sh)
#   readers  inspect, diff and report of traces, snapshots and results files, Ctrl-C in them, and the
#            input errors of every command (cli_reader_checks.sh), on results files made first
#   (none)   both, in that order
# ctest runs the two halves as cli.engine and cli.readers, side by side.
here=$(cd "$(dirname "$0")" && pwd)
part=${2:-all}
case "$part" in
  all | engine | readers) ;;
  *) echo "usage: $0 ATTNWB [engine|readers]" >&2; exit 2 ;;
esac
# shellcheck source=tests/cli/cli_lib.sh
source "$here/cli_lib.sh"
[ "$part" = readers ] || source "$here/cli_engine_checks.sh"
if [ "$part" = readers ]; then  # the results files the reader checks read, made as the engine checks make them
    "$attnwb" profile "${small[@]}" --json "$tmp/r.json" --trace "$tmp/t.json" >/dev/null 2>&1 &&
        "$attnwb" bench "${small[@]}" "${quick[@]}" --json "$tmp/b.json" >/dev/null 2>&1 &&
        "$attnwb" sweep "${sweep_small[@]}" "${quick[@]}" --seq 32,64 --variants manual,chunked --json "$tmp/s.json" >/dev/null 2>&1 &&
        "$attnwb" check "${small[@]}" --mask causal --json "$tmp/c.json" >/dev/null 2>&1 ||
        { echo "FAIL making the results files the reader checks read"; exit 1; }
fi
[ "$part" = engine ] || source "$here/cli_reader_checks.sh"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
