#!/usr/bin/env bash
# CI test of the sharded sweep through Slurm (scripts/slurm/), on a throwaway
# single-node cluster on this machine (tests/slurm/local_slurm.sh).
#
#   tests/slurm/test_slurm.sh ATTNWB
#
# 1. starts the local cluster (stopped again on any exit: trap);
# 2. scripts/slurm/submit.sh --cpu --shards 4: a 4-task array of a small CPU
#    sweep plus the dependent merge, ATTNWB passed through the environment;
# 3. waits for the merge (at most TEST_SLURM_TIMEOUT s, default 240, from the
#    start of the test; on timeout prints the queue and the logs);
# 4. runs the same sweep unsharded (--shard 0/1) and checks that the 4 shard
#    files exist, that the merge exited 0 (OUTDIR/merge.rc and Slurm's
#    ExitCode) and that merged.json has the unsharded run's points (index,
#    spec, status), in the same order;
# 5. scripts/slurm/summarize.sbatch: a 4-task array summarising the ranks of a
#    gloo run (attnwb inspect --summary), opened together: the straggler named.
# TEST_SLURM_KEEP=1 keeps the shard files and logs (the folder is printed).
# Exit status: 0 pass, 1 fail, 77 skipped (not root, or the packages
# slurmctld slurmd slurm-client munge are missing; the reason on one line).
# Needs nothing else beyond bash, coreutils and /usr/bin/python3.

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
timeout_s=${TEST_SLURM_TIMEOUT:-240}
t_test=$SECONDS

if [[ $# -ne 1 ]]; then
    echo "usage: $0 ATTNWB" >&2
    exit 2
fi
[[ -x $1 && -f $1 ]] || { echo "test_slurm: FAIL: ATTNWB '$1' is not an executable file" >&2; exit 1; }
attnwb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")

# shellcheck source=tests/slurm/local_slurm.sh
source "$here/local_slurm.sh"
reason=$(local_slurm_skip_reason)
if [[ -n $reason ]]; then
    echo "test_slurm: SKIP: $reason"
    exit 77
fi

work=""
keep_work() { # with TEST_SLURM_KEEP=1, move the results and logs out of the cluster's folder
    if [[ ${TEST_SLURM_KEEP:-0} == 1 && -n $work && -d $work ]]; then
        local kept
        kept=$(mktemp -d "${TMPDIR:-/tmp}/attnwb-slurm-test.XXXXXX") && mv "$work" "$kept/" &&
            echo "test_slurm: kept $kept/${work##*/}" >&2
    fi
    return 0
}
cleanup() {
    local rc=$?
    trap - EXIT INT TERM HUP
    cd /
    keep_work
    local_slurm_stop || true # also removes $work, which lives in the cluster's folder
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# Queue, job states and log tails, for a failure.
diagnose() {
    echo "==== diagnostics"
    local_slurm_status || true
    local_slurm_logs "" 40 || true
    local f
    for f in "$work"/out/logs/*; do
        [[ -f $f ]] && { echo "--- $f"; tail -n 40 "$f"; }
    done
    echo "===="
}
fail() {
    echo "test_slurm: FAIL: $*" >&2
    diagnose >&2
    exit 1
}
secs() { # seconds since $1 (an $EPOCHREALTIME), 1 decimal
    local now=$EPOCHREALTIME d
    d=$(((10#${now/./} - 10#${1/./}) / 100000))
    echo "$((d / 10)).$((d % 10))"
}
# "JobId ArrayTaskId JobState ExitCode" for each job (array task) of job $1.
job_states() {
    scontrol -o show job "$1" | tr ' ' '\n' |
        awk -F= '$1 == "JobId" { id = $2 } $1 == "ArrayTaskId" { t = $2 }
                 $1 == "JobState" { s = $2 } $1 == "ExitCode" { print id, (t == "" ? "-" : t), s, $2; t = "" }'
}

sweep_args=(--device cpu --seq "64,128,256" --variants "manual,sdpa" --batch 1 --heads 2 --head-dim 16
    --budget 0.05 --warmup 1 --min-repeats 3 -q)
shards=4
# The jobs inherit this environment: no torchrun rank in it.
unset RANK WORLD_SIZE LOCAL_RANK LOCAL_WORLD_SIZE SBATCH_GRES

t0=$EPOCHREALTIME
local_slurm_start || fail "could not start the local Slurm cluster"
t_start=$(secs "$t0")
# Results and logs inside the cluster's folder: whatever removes the cluster
# (the trap, or the next start after a SIGKILL) removes them too.
work=$LOCAL_SLURM_DIR/test
mkdir "$work"
cd "$work"

# --- the sharded sweep through Slurm
t0=$EPOCHREALTIME
ids=$(ATTNWB=$attnwb "$repo/scripts/slurm/submit.sh" --cpu --shards "$shards" "$work/out" -- "${sweep_args[@]}") ||
    fail "submit.sh failed"
read -r array_id merge_id <<<"$ids"
[[ $array_id =~ ^[0-9]+$ && $merge_id =~ ^[0-9]+$ ]] || fail "submit.sh printed '$ids', not two job ids"
while [[ -n $(squeue -h -j "$array_id,$merge_id" -o %i 2>/dev/null) ]]; do
    ((SECONDS - t_test < timeout_s)) || fail "the jobs did not finish within $timeout_s s of the test's start"
    sleep 0.5
done
t_slurm=$(secs "$t0")

# Slurm's view: every array task and the merge completed with exit code 0.
# (MinJobAge=600 keeps finished jobs in scontrol; no accounting, so no sacct.)
states=$(job_states "$array_id")
n_ok=$(grep -c ' COMPLETED 0:0$' <<<"$states" || true)
[[ $n_ok -eq $shards ]] || fail "$n_ok of $shards array tasks completed with exit code 0 (JobId TaskId State ExitCode):
$states"
merge_state=$(job_states "$merge_id")
[[ $merge_state == "$merge_id - COMPLETED 0:0" ]] || fail "merge job (JobId TaskId State ExitCode): $merge_state"
[[ -f $work/out/merge.rc ]] || fail "merge.sbatch wrote no merge.rc"
[[ $(cat "$work/out/merge.rc") == 0 ]] || fail "attnwb merge exited $(cat "$work/out/merge.rc")"
for ((k = 0; k < shards; k++)); do
    [[ -s $work/out/sweep-$k-of-$shards.json ]] || fail "shard file sweep-$k-of-$shards.json is missing"
done
[[ -s $work/out/merged.json ]] || fail "merged.json is missing"

# --- the same sweep in one piece
t0=$EPOCHREALTIME
timeout 120 "$attnwb" sweep "${sweep_args[@]}" --shard 0/1 --json "$work/unsharded.json" >"$work/unsharded.log" 2>&1 ||
    fail "the unsharded sweep failed (exit $?): $(tail -n 20 "$work/unsharded.log")"
t_unsharded=$(secs "$t0")

# --- merged == unsharded (index, spec, status of every point, in order)
summary=$(/usr/bin/python3 - "$work/out/merged.json" "$work/unsharded.json" "$work/out" "$shards" <<'EOF'
import json, sys
merged_path, whole_path, outdir, shards = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

def points(path):
    with open(path) as f:
        doc = json.load(f)
    return [(p.get("index"), p.get("spec"), p.get("status")) for p in doc["points"]]

merged, whole = points(merged_path), points(whole_path)
problems = []
if len(merged) != len(whole):
    problems.append(f"merged.json has {len(merged)} points, the unsharded run {len(whole)}")
for i, (m, w) in enumerate(zip(merged, whole)):
    if m != w:
        problems.append(f"point #{i}: merged {json.dumps(m)} != unsharded {json.dumps(w)}")
if [p[0] for p in whole] != list(range(len(whole))):
    problems.append(f"unsharded indices are not 0..{len(whole) - 1}: {[p[0] for p in whole]}")
per_shard = [len(points(f"{outdir}/sweep-{k}-of-{shards}.json")) for k in range(shards)]
if sum(per_shard) != len(whole):
    problems.append(f"points per shard {per_shard} do not add up to {len(whole)}")
if problems:
    print("\n".join(problems[:20]))
    sys.exit(1)
print(f"{len(whole)} points in {shards} shards ({'+'.join(map(str, per_shard))})")
EOF
) || fail "merged.json differs from the unsharded run:
$summary"

# --- rank summaries through Slurm: one array task per rank of a 4-rank gloo run, opened together
t0=$EPOCHREALTIME
gloo=$repo/tests/fixtures/traces/gloo/straggler
sum_id=$(ATTNWB=$attnwb sbatch --parsable --array=0-3 --output=/dev/null "$repo/scripts/slurm/summarize.sbatch" "$gloo" "$work/summaries") ||
    fail "sbatch summarize.sbatch failed"
while [[ -n $(squeue -h -j "$sum_id" -o %i 2>/dev/null) ]]; do
    ((SECONDS - t_test < timeout_s)) || fail "the summaries did not finish within $timeout_s s of the test's start"
    sleep 0.5
done
n_ok=$(job_states "$sum_id" | grep -c ' COMPLETED 0:0$' || true)
[[ $n_ok -eq 4 ]] || fail "$n_ok of 4 summary tasks completed with exit code 0: $(job_states "$sum_id"); $(cat "$work"/summaries/logs/* 2>/dev/null)"
"$attnwb" inspect "$work/summaries" --collectives --quiet >"$work/summaries.txt" 2>&1 || fail "the summaries do not open: $(tail -n 5 "$work/summaries.txt")"
grep -q '^straggler: rank 2: the others waited' "$work/summaries.txt" || fail "the summaries' straggler is not rank 2: $(grep -E '^(straggler|note)' "$work/summaries.txt")"
t_summaries=$(secs "$t0")

cd /
keep_work
t0=$EPOCHREALTIME
local_slurm_stop
t_stop=$(secs "$t0")
echo "test_slurm: PASS: $summary match the unsharded run; 4 rank summaries opened together name the straggler; cluster start ${t_start} s," \
    "array + merge ${t_slurm} s, unsharded sweep ${t_unsharded} s, summaries ${t_summaries} s, stop ${t_stop} s, total $((SECONDS - t_test)) s"
