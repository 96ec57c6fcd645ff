#!/usr/bin/env bash
# attention-workbench's command line: --help and --version answer on stdout and exit 0
# before any window, without a display; an unknown option is named on stderr (exit 2), not opened as
# a file. Usage: test_workbench_cli.sh path/to/attention-workbench
set -u
gui=${1:?usage: $0 ATTENTION_WORKBENCH}
passed=0 failed=0
run() {  # run NAME EXPECTED_RC STREAM PATTERN -- ARGS...
    local name=$1 want=$2 stream=$3 pattern=$4
    shift 5
    local out err rc
    out=$(env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM timeout 20 "$gui" "$@" 2>/tmp/awb_gui_err.$$)
    rc=$?
    err=$(cat /tmp/awb_gui_err.$$); rm -f /tmp/awb_gui_err.$$
    local text=$out
    [ "$stream" = err ] && text=$err
    if [ "$rc" -ne "$want" ]; then echo "FAIL $name: exit $rc, expected $want"; echo "$out$err" | head -20; failed=$((failed + 1)); return; fi
    if ! grep -qE -- "$pattern" <<<"$text"; then echo "FAIL $name: $stream lacks /$pattern/"; echo "$out$err" | head -20; failed=$((failed + 1)); return; fi
    echo "ok   $name"; passed=$((passed + 1))
}
run "--help prints usage" 0 out '^Usage: attention-workbench \[options\] \[files\.\.\.\]' -- --help
run "-h prints usage" 0 out 'print the version, ' -- -h
run "--help among files" 0 out '^Usage:' -- some.json --help
run "--version" 0 out '^attention-workbench [0-9]+\.[0-9]+\.[0-9]+ \(Attention Workbench\)$' -- --version
run "--version names LibTorch and Qt" 0 out '^Qt: built with [0-9.]+, running [0-9.]+$' -- --version
run "unknown option is named" 2 err 'unknown option --frobnicate' -- --frobnicate
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
