#!/usr/bin/env bash
# Submits a sharded attnwb sweep to Slurm: a job array with one task per shard
# (sweep.sbatch) and a merge job that waits for all of them (merge.sbatch).
#
# Usage:
#   scripts/slurm/submit.sh [OPTIONS] OUTDIR -- SWEEP ARGS...
# Options:
#   --shards N        array tasks = shards (default 4)
#   --cpu             no GPU request (--gres=none): for --device cpu sweeps, or
#                     clusters without GPUs
#   --partition P     partition of both jobs
#   --time T          time limit of each sweep task (the merge has 15 min)
#   --max-running M   at most M tasks at once (--array=0-(N-1)%M)
#   --merge-arg ARG   passed to attnwb merge (repeatable), e.g. --allow-missing
#   --sbatch OPT      passed to both sbatch calls (repeatable), e.g.
#                     --sbatch --account=proj --sbatch --qos=short
# OUTDIR: created if needed; must be shared by the nodes and hold no earlier
# sweep-*-of-*.json or merged.json (it is refused otherwise). Results:
# OUTDIR/sweep-K-of-N.json per shard, OUTDIR/merged.json, OUTDIR/merge.rc,
# logs in OUTDIR/logs/.
#
# Example:
#   ATTNWB=$PWD/build/app/attnwb scripts/slurm/submit.sh --shards 8 --time 1:00:00 \
#       /shared/sweeps/a100 -- --device cuda --seq 1024,2048,4096,8192
#
# Prints "ARRAY_JOB_ID MERGE_JOB_ID" on stdout (what was submitted on stderr).
# Environment: ATTNWB (default attnwb from PATH; made absolute when it is a
# path here) reaches the jobs through sbatch's default --export=ALL, as does
# the rest of this shell's environment; SBATCH_* variables work as usual.
# Exit status: 0 submitted, 2 bad usage, 1 sbatch failed.

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
usage() { # the header above, without "# "
    sed -n '2,/^$/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
    exit "${1:-2}"
}
die() {
    echo "submit.sh: $*" >&2
    exit 2
}

shards=4 cpu=0 partition="" time_limit="" max_running=""
merge_args=() sbatch_args=()
while [[ $# -gt 0 ]]; do
    case $1 in
    --shards) shards=${2:?--shards needs a value}; shift 2 ;;
    --cpu) cpu=1; shift ;;
    --partition) partition=${2:?--partition needs a value}; shift 2 ;;
    --time) time_limit=${2:?--time needs a value}; shift 2 ;;
    --max-running) max_running=${2:?--max-running needs a value}; shift 2 ;;
    --merge-arg) merge_args+=("${2:?--merge-arg needs a value}"); shift 2 ;;
    --sbatch) sbatch_args+=("${2:?--sbatch needs a value}"); shift 2 ;;
    -h | --help) usage 0 ;;
    --) die "OUTDIR missing before --" ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) break ;;
    esac
done
[[ $# -ge 1 ]] || usage 2 >&2
outdir=$1
shift
if [[ $# -gt 0 ]]; then
    [[ $1 == -- ]] || die "expected -- after OUTDIR, got '$1'"
    shift
fi
[[ $shards =~ ^[1-9][0-9]*$ ]] || die "--shards must be a positive integer, got '$shards'"
[[ -z $max_running || $max_running =~ ^[1-9][0-9]*$ ]] || die "--max-running must be a positive integer"
for a in "$@"; do
    case $a in --json | --json=* | --shard | --shard=*) die "SWEEP ARGS must not set $a (the jobs choose them)" ;; esac
done

if [[ $cpu -eq 0 && " $* " =~ \ --device(\ |=)cpu\  ]]; then
    echo "submit.sh: note: a --device cpu sweep without --cpu still asks each task for a GPU" >&2
fi

mkdir -p "$outdir/logs"
outdir=$(cd "$outdir" && pwd)
shopt -s nullglob
old=("$outdir"/sweep-*-of-*.json)
shopt -u nullglob
[[ ! -e $outdir/merged.json ]] || old+=("$outdir/merged.json")
[[ ${#old[@]} -eq 0 ]] || die "$outdir already holds results (${old[*]##*/}); use a fresh OUTDIR"
if [[ ${ATTNWB:-} == */* ]]; then
    [[ -x $ATTNWB ]] || echo "submit.sh: warning: ATTNWB=$ATTNWB is not executable here" >&2
    [[ -e $ATTNWB ]] && ATTNWB=$(cd "$(dirname "$ATTNWB")" && pwd)/$(basename "$ATTNWB")
    export ATTNWB
fi

common=()
[[ -n $partition ]] && common+=(--partition="$partition")
common+=("${sbatch_args[@]}")

array_opts=(--array="0-$((shards - 1))${max_running:+%$max_running}" --output="$outdir/logs/sweep-%A_%a.out")
[[ $cpu -eq 1 ]] && array_opts+=(--gres=none)
[[ -n $time_limit ]] && array_opts+=(--time="$time_limit")

# --parsable prints "jobid" or "jobid;cluster".
array_id=$(sbatch --parsable "${common[@]}" "${array_opts[@]}" "$here/sweep.sbatch" "$outdir" "$@") ||
    { echo "submit.sh: sbatch of the sweep array failed" >&2; exit 1; }
array_id=${array_id%%;*}

merge_cmd=(sbatch --parsable "${common[@]}" --dependency="afterany:$array_id" --kill-on-invalid-dep=yes
    --output="$outdir/logs/merge-%j.out" "$here/merge.sbatch" "$outdir" "${merge_args[@]}")
if ! merge_id=$("${merge_cmd[@]}"); then
    echo "submit.sh: sbatch of the merge failed; the sweep array $array_id is queued. Merge by hand:" >&2
    echo "  ${merge_cmd[*]}" >&2
    exit 1
fi
merge_id=${merge_id%%;*}

{
    echo "submit.sh: sweep array $array_id ($shards tasks${max_running:+, $max_running at once}," \
        "$([[ $cpu -eq 1 ]] && echo "no GPU" || echo "1 GPU each")), merge $merge_id after it"
    echo "  shards:  $outdir/sweep-K-of-$shards.json"
    echo "  merged:  $outdir/merged.json (merge exit status in $outdir/merge.rc)"
    echo "  logs:    $outdir/logs/"
    echo "  watch:   squeue -j $array_id,$merge_id    cancel: scancel $array_id $merge_id"
} >&2
echo "$array_id $merge_id"
