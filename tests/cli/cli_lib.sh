# What the CLI checks share (sourced by test_cli.sh): the program, a scratch folder removed on exit, the
# counts, check (run attnwb, compare its exit status and grep its output) and python_check.
set -u
attnwb=${1:?usage: test_cli.sh ATTNWB [engine|readers]}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
small=(--batch 1 --heads 2 --seq 64 --head-dim 16 --threads 1 --quiet)
passed=0 failed=0

check() {  # check NAME EXPECTED_RC GREP_PATTERN_IN_OUTPUT -- ARGS...
    local name=$1 want=$2 pattern=$3
    shift 4
    "$attnwb" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" -ne "$want" ]; then
        echo "FAIL $name: exit $rc, expected $want"; sed 's/^/  | /' "$tmp/err" | head -20; failed=$((failed + 1)); return
    fi
    if [ -n "$pattern" ] && ! grep -qE -- "$pattern" "$tmp/out" "$tmp/err"; then
        echo "FAIL $name: output lacks /$pattern/"; sed 's/^/  | /' "$tmp/out" "$tmp/err" | head -40; failed=$((failed + 1)); return
    fi
    echo "ok   $name"; passed=$((passed + 1))
}

python_check() { /usr/bin/python3 -c "$1" 2>&1; }
quick=(--budget 0 --min-repeats 2 --warmup 1)
sweep_small=(--batch 1 --heads 2 --head-dim 16 --threads 1 --quiet)  # --seq is a list here: repeated ones add up
