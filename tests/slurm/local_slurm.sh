#!/usr/bin/env bash
# A throwaway single-node Slurm cluster on localhost, for tests.
#
# Uses Debian 12's packages (Slurm 22.05: slurmctld, slurmd, slurm-client;
# munge) but none of their system configuration or services: munged,
# slurmctld and slurmd are started by hand (no systemd needed) with every
# file -- config, munge key and socket, state, spool, pid files, logs -- in
# one temporary folder, and with TCP ports picked from 20000-29999 that are
# free at start. Jobs run as the submitting user (root), one CPU each by
# default, several at once (select/cons_tres, CR_CPU); no cgroups, no
# accounting.
#
# As a library (what tests/slurm/test_slurm.sh does):
#   source tests/slurm/local_slurm.sh
#   local_slurm_start          # sets LOCAL_SLURM_DIR, exports SLURM_CONF
#   sbatch ...                 # the Slurm commands now talk to it
#   local_slurm_stop           # cancels jobs, kills the daemons, removes the folder
# As a command:
#   eval "$(tests/slurm/local_slurm.sh start)"   # prints the export lines
#   tests/slurm/local_slurm.sh stop [DIR]        # DIR defaults to $LOCAL_SLURM_DIR
#   tests/slurm/local_slurm.sh status|logs [DIR]
#   tests/slurm/local_slurm.sh check             # exit 0 if it can run here (root + packages)
#
# Start is idempotent (a running cluster in LOCAL_SLURM_DIR is reused) and
# first removes clusters that earlier runs left behind (folders
# ${TMPDIR:-/tmp}/attnwb-slurm.* whose owner process is gone). Stop only kills
# processes that belong to its own folder (checked through /proc) and is safe
# to call twice or on a half-started cluster.

LOCAL_SLURM_PACKAGES=(slurmctld slurmd slurm-client munge)
LOCAL_SLURM_PREFIX=attnwb-slurm

# True when the packages' programs are there.
local_slurm_available() {
    local p
    for p in munged slurmctld slurmd slurmstepd sbatch squeue scontrol scancel sinfo; do
        command -v "$p" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin:/sbin" command -v "$p" >/dev/null 2>&1 || return 1
    done
}

# Why the cluster cannot run here (empty when it can).
local_slurm_skip_reason() {
    if [[ $(id -u) -ne 0 ]]; then
        echo "needs root (slurmd runs jobs as their user)"
    elif ! local_slurm_available; then
        echo "Slurm/munge not installed (scripts/setup.sh installs ${LOCAL_SLURM_PACKAGES[*]})"
    fi
}

# --- helpers ---------------------------------------------------------------

# True when PID runs (a zombie counts as gone: PID 1 in a container may not reap).
_ls_alive() {
    local stat
    [[ -n $1 ]] && stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    stat=${stat##*) }
    [[ ${stat%% *} != Z ]]
}

# Start time of PID (field 22 of /proc/PID/stat), to tell a reused PID apart.
_ls_starttime() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    stat=${stat##*) }
    # shellcheck disable=SC2086
    set -- $stat
    echo "${20}"
}

# True when TCP port $1 is in use (any state, IPv4 or IPv6).
_ls_port_used() {
    local hex
    hex=$(printf '%04X' "$1")
    grep -q ":$hex " /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# A TCP port in 20000-29999 that is free now, different from $1.
_ls_free_port() {
    local p i
    for ((i = 0; i < 200; i++)); do
        p=$((20000 + (RANDOM * 32768 + RANDOM) % 10000))
        [[ $p != "${1:-}" ]] && ! _ls_port_used "$p" && { echo "$p"; return 0; }
    done
    return 1
}

# PIDs of the processes that belong to the cluster in DIR: the daemons
# (slurmctld, slurmd, slurmstepd, munged started with DIR on their command line
# or SLURM_CONF=DIR/slurm.conf in their environment) and the jobs' processes
# (SLURM_CONF=DIR/slurm.conf and SLURM_JOB_ID in their environment). Never the
# calling shell.
_ls_pids_of() {
    local dir=$1 d pid comm env cmd nl=$'\n'
    for d in /proc/[0-9]*; do
        pid=${d#/proc/}
        [[ $pid == "$$" || $pid == "${BASHPID:-$$}" ]] && continue
        env=$nl$(tr '\0' '\n' 2>/dev/null <"$d/environ")$nl || continue
        comm=$(cat 2>/dev/null "$d/comm") || continue
        cmd=$(tr '\0' ' ' 2>/dev/null <"$d/cmdline") || continue
        case $comm in
        slurmctld | slurmd | slurmstepd | munged)
            [[ $env == *"${nl}SLURM_CONF=$dir/slurm.conf$nl"* || $cmd == *"$dir/"* ]] || continue ;;
        *)
            [[ $env == *"${nl}SLURM_CONF=$dir/slurm.conf$nl"* && $env == *"${nl}SLURM_JOB_ID="* ]] || continue ;;
        esac
        if _ls_alive "$pid"; then echo "$pid"; fi
    done
    return 0
}

# Signal the processes of DIR with TERM, wait up to $2 s, then KILL what is left.
_ls_kill_all() {
    local dir=$1 wait_s=${2:-5} pids pid i
    pids=$(_ls_pids_of "$dir")
    [[ -z $pids ]] && return 0
    # shellcheck disable=SC2086
    kill -TERM $pids 2>/dev/null || true
    for ((i = 0; i < wait_s * 10; i++)); do
        local left=""
        for pid in $pids; do _ls_alive "$pid" && left+=" $pid"; done
        [[ -z $left ]] && return 0
        pids=$left
        sleep 0.1
    done
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null || true
    sleep 0.2
    return 0
}

# Stop the cluster in DIR and remove DIR (DIR must be one of ours).
_ls_stop_dir() {
    local dir=$1
    [[ -n $dir && -d $dir && $(basename "$dir") == "$LOCAL_SLURM_PREFIX".* ]] || return 0
    if [[ -f $dir/slurm.conf ]] && _ls_alive "$(cat "$dir/run/slurmctld.pid" 2>/dev/null)"; then
        # Cancel the jobs (slurmstepd ends their processes), wait up to 5 s.
        local conf=$dir/slurm.conf jobs i
        jobs=$(SLURM_CONF=$conf timeout 10 squeue -h -o %A 2>/dev/null | sort -u) || jobs=""
        if [[ -n $jobs ]]; then
            # shellcheck disable=SC2086
            SLURM_CONF=$conf timeout 10 scancel $jobs 2>/dev/null || true
            for ((i = 0; i < 50; i++)); do
                [[ -z $(SLURM_CONF=$conf timeout 5 squeue -h -o %A 2>/dev/null) ]] && break
                sleep 0.1
            done
        fi
    fi
    _ls_kill_all "$dir" 5
    rm -rf "$dir"
}

# Remove clusters whose owner process is gone (a run killed before its trap).
_ls_reap_stale() {
    local d owner
    for d in "${TMPDIR:-/tmp}/$LOCAL_SLURM_PREFIX".*; do
        [[ -d $d && $d != "${LOCAL_SLURM_DIR:-}" ]] || continue
        owner=$(cat "$d/owner" 2>/dev/null) || owner=""
        # owner file: "PID STARTTIME"; keep the folder while that process lives
        if [[ -n $owner ]] && _ls_alive "${owner% *}" &&
            [[ $(_ls_starttime "${owner% *}") == "${owner#* }" ]]; then
            continue
        fi
        echo "local_slurm: removing a cluster left behind: $d" >&2
        _ls_stop_dir "$d"
    done
}

_ls_write_conf() {
    local dir=$1 host ctld_port slurmd_port cpus mem_mib
    host=$(hostname -s 2>/dev/null || uname -n)
    host=${host%%.*}
    ctld_port=$(_ls_free_port) || return 1
    slurmd_port=$(_ls_free_port "$ctld_port") || return 1
    cpus=$(nproc)
    # RealMemory must not exceed what slurmd finds, or the node is drained.
    mem_mib=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
    cat >"$dir/slurm.conf" <<EOF
# Throwaway single-node cluster written by tests/slurm/local_slurm.sh
ClusterName=attnwb-local
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket.2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups: plain process tracking, no task binding, no accounting.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
# CPUs are the only consumable: one-CPU jobs share the node.
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
# Start jobs as soon as CPUs free up (default: up to 3 s later).
SchedulerParameters=batch_sched_delay=0
ReturnToService=2
MailProg=/bin/true
KillWait=5
InactiveLimit=0
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mib State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
}

# True when the node has registered and is idle.
_ls_node_idle() {
    [[ $(sinfo -h -N -o %T 2>/dev/null) == idle* ]]
}

# --- start / stop -------------------------------------------------------------

# Start a cluster (or reuse the one in LOCAL_SLURM_DIR). Sets LOCAL_SLURM_DIR
# and exports SLURM_CONF. Owner (whose end lets a later start reap it):
# $1, default this shell.
local_slurm_start() {
    local owner=${1:-$$} reason
    reason=$(local_slurm_skip_reason)
    [[ -z $reason ]] || { echo "local_slurm_start: $reason" >&2; return 1; }
    PATH="$PATH:/usr/sbin:/sbin"
    if [[ -n ${LOCAL_SLURM_DIR:-} && -f $LOCAL_SLURM_DIR/slurm.conf ]] &&
        _ls_alive "$(cat "$LOCAL_SLURM_DIR/run/slurmctld.pid" 2>/dev/null)" &&
        _ls_alive "$(cat "$LOCAL_SLURM_DIR/run/slurmd.pid" 2>/dev/null)"; then
        export SLURM_CONF=$LOCAL_SLURM_DIR/slurm.conf
        return 0
    fi
    _ls_reap_stale
    local dir
    dir=$(mktemp -d "${TMPDIR:-/tmp}/$LOCAL_SLURM_PREFIX.XXXXXX") || return 1
    LOCAL_SLURM_DIR=$dir
    # munged insists on a socket folder that everyone can enter and nobody
    # else can write, up to /.
    chmod 755 "$dir"
    mkdir -p "$dir"/{munge,state,spool,run,log}
    echo "$owner $(_ls_starttime "$owner")" >"$dir/owner"
    _ls_write_conf "$dir" || { echo "local_slurm_start: no free port" >&2; return 1; }
    export SLURM_CONF=$dir/slurm.conf

    # munge: own key and socket (root may run it; Slurm finds it via AuthInfo).
    head -c 1024 /dev/urandom >"$dir/munge/munge.key"
    chmod 600 "$dir/munge/munge.key"
    munged --socket="$dir/munge/munge.socket.2" --key-file="$dir/munge/munge.key" \
        --log-file="$dir/log/munged.log" --pid-file="$dir/run/munged.pid" \
        --seed-file="$dir/munge/munged.seed" || { _ls_start_failed "munged failed"; return 1; }

    # The daemons fork into the background (stdio on /dev/null) and write their pid files.
    slurmctld -f "$SLURM_CONF" || { _ls_start_failed "slurmctld failed"; return 1; }
    slurmd -f "$SLURM_CONF" || { _ls_start_failed "slurmd failed"; return 1; }

    # Ready when the node has registered and is idle (0.1-1.5 s here).
    local i
    for ((i = 0; i < 150; i++)); do
        _ls_node_idle && return 0
        sleep 0.2
    done
    _ls_start_failed "the node did not become idle in 30 s"
    return 1
}

# Report why start failed (state, logs), then stop what it started.
_ls_start_failed() {
    echo "local_slurm_start: $1" >&2
    local_slurm_status >&2 || true
    local_slurm_logs >&2 || true
    local_slurm_stop
}

# Stop the cluster in DIR (default LOCAL_SLURM_DIR) and remove its folder.
local_slurm_stop() {
    local dir=${1:-${LOCAL_SLURM_DIR:-}}
    [[ -n $dir ]] || return 0
    _ls_stop_dir "$dir"
    if [[ $dir == "${LOCAL_SLURM_DIR:-}" ]]; then
        unset LOCAL_SLURM_DIR
        [[ ${SLURM_CONF:-} == "$dir/slurm.conf" ]] && unset SLURM_CONF
    fi
    return 0
}

# Nodes and jobs (for failure reports).
local_slurm_status() {
    local dir=${1:-${LOCAL_SLURM_DIR:-}}
    [[ -f $dir/slurm.conf ]] || { echo "no cluster in '$dir'"; return 1; }
    echo "--- sinfo"
    SLURM_CONF=$dir/slurm.conf timeout 10 sinfo -N -l 2>&1
    echo "--- squeue"
    SLURM_CONF=$dir/slurm.conf timeout 10 squeue -t all -o '%.18i %.9P %.20j %.8T %.10M %.12l %R' 2>&1
    echo "--- scontrol show jobs (state, exit code, reason)"
    SLURM_CONF=$dir/slurm.conf timeout 10 scontrol -o show jobs 2>&1 |
        grep -oE '(JobId|ArrayJobId|ArrayTaskId|JobState|Reason|ExitCode|Dependency)=[^ ]*' | paste -sd' ' | sed 's/ JobId=/\nJobId=/g'
}

# Tails of the daemons' logs (for failure reports).
local_slurm_logs() {
    local dir=${1:-${LOCAL_SLURM_DIR:-}} n=${2:-30} f
    for f in "$dir"/log/*.log; do
        [[ -f $f ]] || continue
        echo "--- tail -$n $f"
        tail -n "$n" "$f"
    done
}

# --- command line ------------------------------------------------------------

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    set -euo pipefail
    case ${1:-} in
    start)
        local_slurm_start "$PPID" >&2
        printf 'export LOCAL_SLURM_DIR=%q\nexport SLURM_CONF=%q\n' "$LOCAL_SLURM_DIR" "$SLURM_CONF"
        ;;
    stop) local_slurm_stop "${2:-}" ;;
    status) local_slurm_status "${2:-}" ;;
    logs) local_slurm_logs "${2:-}" ;;
    check)
        reason=$(local_slurm_skip_reason)
        [[ -z $reason ]] || { echo "$reason"; exit 1; }
        ;;
    *)
        echo "usage: $0 start | stop [DIR] | status [DIR] | logs [DIR] | check" >&2
        exit 2
        ;;
    esac
fi
