# The engine half of the CLI checks (test_cli.sh ATTNWB engine): the commands that run models, shards
# and merge, Ctrl-C and SIGTERM in them, a full disk, a trace too big for the memory left.

check "help documents defaults" 0 '--seq INT=512' -- profile --help
check "--version names the LibTorch loaded" 0 '^LibTorch: built with [0-9.]+; loaded .*libtorch_cpu' -- --version
check "profile prints the table" 0 'Self CPU time total' -- profile "${small[@]}" --json "$tmp/r.json" --trace "$tmp/t.json"
check "group by shape shows shapes" 0 '\[\[2, 64, 16\], \[2, 16, 64\]\]' -- profile "${small[@]}" --group-by-shape --rows 0
check "sort by calls" 0 'sorted by calls' -- profile "${small[@]}" --sort calls --mode forward --mask causal
check "spec file" 0 'sdpa' -- profile --spec "$tmp/r.json" --variant sdpa --quiet
check "padding mask" 0 'key lengths 64 20' -- profile "${small[@]}" --batch 2 --mask padding --key-lengths 64,20

if python_check "import json,sys; r=json.load(open('$tmp/r.json')); \
assert r['schema']=='attention-workbench/profile-report', r['schema']; \
names={o['name'] for o in r['operators']}; assert {'aten::bmm','aten::softmax','ProfilerStep*','manual'} <= names, names; \
assert all(k in r['operators'][0] for k in ['calls','self_cpu_us','cpu_total_us','self_device_us','device_total_us','cpu_memory_bytes','self_cpu_memory_bytes','device_memory_bytes','self_device_memory_bytes']); \
assert r['peak_memory_bytes'] > 0 and r['memory_series'][0]['points_ts_us_bytes']; \
assert r['environment']['torch_version'] and r['environment']['blas']; \
t=json.load(open('$tmp/t.json')); assert any(e.get('name')=='[memory]' for e in t['traceEvents'])" >"$tmp/py"; then
    echo "ok   report and trace files are complete"; passed=$((passed + 1))
else
    echo "FAIL report and trace files: $(cat "$tmp/py")"; failed=$((failed + 1))
fi

# bench, sweep, check
check "bench prints statistics" 0 'profiler overhead +[0-9.]+x' -- bench "${small[@]}" "${quick[@]}" --json "$tmp/b.json"
check "bench reports GFLOP/s and peak" 0 'peak memory +[0-9.]+ MiB' -- bench "${small[@]}" "${quick[@]}" --variant chunked --no-overhead
check "sweep prints rows and exponents" 0 'Scaling with N' -- sweep "${sweep_small[@]}" "${quick[@]}" --seq 32,64 \
    --variants manual,chunked --json "$tmp/s.json" --csv "$tmp/s.csv"
check "sweep of 2 lengths refuses to fit and counts what it measured" 0 \
    'time +manual float32 1x2xNx16 train +no fit: 2 points \(a fit needs 3\)' -- sweep "${sweep_small[@]}" "${quick[@]}" --seq 32,64
check "sweep counts measured points like the GUI" 0 '^2 of 3 planned points measured; 1 refused$' -- sweep "${sweep_small[@]}" "${quick[@]}" \
    --seq 32,68719476736,48 --variants manual
check "sweep keeps going past a refused point" 0 'refused: memory: estimated peak' -- sweep "${sweep_small[@]}" "${quick[@]}" \
    --seq 32,68719476736,48 --variants manual
check "check passes" 0 'all variants within tolerance' -- check "${small[@]}" --mask causal --json "$tmp/c.json"
check "check out of tolerance exits 3" 3 'OUT OF TOLERANCE: manual, sdpa, chunked' -- check "${small[@]}" --tolerance 1e-12
check "sweep bad list" 2 'seq: 0 must be a positive integer' -- sweep "${sweep_small[@]}" --seq 64,0
check "sweep unknown variant" 2 "variants: 'flash9' is not a known variant" -- sweep "${sweep_small[@]}" --variants manual,flash9
check "sweep unknown dtype" 2 "dtypes: 'int3'" -- sweep "${sweep_small[@]}" --dtypes float32,int3
check "bench bad budget" 2 'budget: -1' -- bench "${small[@]}" --budget -1
check "check bad tolerance" 2 'tolerance: must be > 0' -- check "${small[@]}" --tolerance -1
check "sliding window checked against float64" 0 'all variants within tolerance' -- check "${small[@]}" --mask window --window 20 --block-size 16
check "a window needs its length" 2 'window: 0: mask window needs' -- check "${small[@]}" --mask window
check "bench counts the window's pairs" 0 'visible pairs only' -- bench "${small[@]}" --mask window --window 8 --budget 0.05 --no-memory

if python_check "import json; b=json.load(open('$tmp/b.json')); assert b['schema']=='attention-workbench/bench'; \
r=b['result']; t=r['timing']; assert t['p10_ns'] <= t['median_ns'] <= t['p90_ns'] and t['repeats'] >= 2; \
assert r['peak_bytes'] > 0 and r['profiler_overhead'] > 0 and r['gflops_per_s'] > 0; \
s=json.load(open('$tmp/s.json')); assert s['schema']=='attention-workbench/sweep' and len(s['points'])==4; \
assert {f['metric'] for f in s['fits']} == {'median_time','peak_memory'}; \
rows=open('$tmp/s.csv').read().splitlines(); assert len(rows)==5 and rows[0].startswith('variant,dtype'), rows; \
c=json.load(open('$tmp/c.json')); assert c['all_passed'] and len(c['variants'])==3" >"$tmp/py"; then
    echo "ok   bench, sweep and check files are complete"; passed=$((passed + 1))
else
    echo "FAIL bench, sweep and check files: $(cat "$tmp/py")"; failed=$((failed + 1))
fi

# Ctrl-C (SIGINT) during a sweep: the current point finishes, what finished is written, exit 130.
# SIGTERM (Slurm's scancel or time limit) stops at once and writes what finished too.
interrupted_sweep() {  # interrupted_sweep SIGNAL NAME EXTRA_PYTHON_ASSERTION
    local signal=$1 name=$2 extra=$3 pid rc
    # Remove the last run's files first: the background job truncates them only once it is scheduled,
    # and polling a stale ' ok' would signal a process that has not installed its handlers yet.
    rm -f "$tmp/int.out" "$tmp/int.err" "$tmp/int.json"
    "$attnwb" sweep "${sweep_small[@]}" --seq 32,40,48,56,64,72,80,88 --budget 0.3 --min-repeats 2 --variants manual \
        --json "$tmp/int.json" >"$tmp/int.out" 2>"$tmp/int.err" &
    pid=$!
    for _ in $(seq 1 300); do grep -q ' ok' "$tmp/int.out" 2>/dev/null && break; sleep 0.1; done
    kill "-$signal" "$pid"
    wait "$pid"
    rc=$?
    if [ "$rc" -eq 130 ] && python_check "import json; s=json.load(open('$tmp/int.json')); \
assert s['stopped_early'] and 1 <= len(s['points']) < 8, s['points']; $extra" >"$tmp/py"; then
        echo "ok   $name"; passed=$((passed + 1))
    else
        echo "FAIL $name: exit $rc, $(cat "$tmp/py")"; sed 's/^/  | /' "$tmp/int.err" | tail -5; failed=$((failed + 1))
    fi
}
interrupted_sweep INT "Ctrl-C stops a sweep after the current point and writes it" \
    "assert all(p['status']=='ok' for p in s['points']), s['points']"
interrupted_sweep TERM "SIGTERM stops a sweep and writes what finished" \
    "assert 'terminated (SIGTERM)' in open('$tmp/int.err').read()"

# Sharded sweeps: three shards chosen by torchrun's variables, merged, equal the sweep run
# whole (same points, same order); a missing shard, a duplicate and mixed environments are refused.
shard_sweep=(sweep "${sweep_small[@]}" "${quick[@]}" --seq 32,48,64 --variants manual,sdpa,chunked --block-size 16)
check "an unsharded sweep (--shard 0/1)" 0 '=== sweep: 9 points' -- "${shard_sweep[@]}" --shard 0/1 --json "$tmp/whole.json"
for k in 0 1 2; do
    RANK=$k WORLD_SIZE=3 check "torchrun's RANK=$k WORLD_SIZE=3 chooses the shard" 0 \
        "=== sweep shard $k of 3 \(from RANK/WORLD_SIZE\): [0-9] of 9 points, [0-9.]+% of the sweep's expected time" -- "${shard_sweep[@]}" --json "$tmp/sh-{shard}.json"
done
check "merge joins the shards" 0 '=== merged sweep: 9 of 9 points from 3 files' -- merge "$tmp"/sh-*-of-3.json --json "$tmp/merged.json"
if python_check "import json; w=json.load(open('$tmp/whole.json')); m=json.load(open('$tmp/merged.json')); \
key=lambda f: [(p['index'], p['spec'], p['status']) for p in f['points']]; assert key(w) == key(m), (key(w), key(m)); \
n=[len(json.load(open('$tmp/sh-%d-of-3.json' % k))['points']) for k in range(3)]; assert sum(n) == 9 and min(n) >= 1, n; \
assert all('ran_on' in p for p in m['points']) and m['shard']['count'] == 1 and len(m['merged_from']) == 3" >"$tmp/py"; then
    echo "ok   the merged shards are the points of the whole sweep, in its order"; passed=$((passed + 1))
else
    echo "FAIL merged shards vs whole sweep: $(cat "$tmp/py")"; failed=$((failed + 1))
fi
SLURM_ARRAY_TASK_ID=12 SLURM_ARRAY_TASK_MIN=10 SLURM_ARRAY_TASK_STEP=2 SLURM_ARRAY_TASK_COUNT=2 \
    check "a Slurm array's task chooses the shard" 0 'sweep shard 1 of 2 \(from SLURM_ARRAY_TASK_ID' -- \
    "${shard_sweep[@]}" --json "$tmp/slurm.json"
[ -f "$tmp/slurm.shard-1-of-2.json" ] && { echo "ok   a shard's path without {shard} gets .shard-K-of-N"; passed=$((passed + 1)); } \
    || { echo "FAIL no $tmp/slurm.shard-1-of-2.json"; failed=$((failed + 1)); }
check "a shard past the count is refused" 2 'shard: --shard 3/3: shard 3 is not one of 0..2' -- "${shard_sweep[@]}" --shard 3/3
RANK=x WORLD_SIZE=2 check "a malformed RANK is named" 2 "RANK='x' is not an integer" -- "${shard_sweep[@]}"
check "merge names a missing shard" 2 'shard 1 of 3 is missing \(no file for it\)' -- merge "$tmp/sh-0-of-3.json" "$tmp/sh-2-of-3.json"
check "merge --allow-missing keeps what there is" 0 'points from 2 files' -- merge "$tmp/sh-0-of-3.json" "$tmp/sh-2-of-3.json" --allow-missing
cp "$tmp/sh-0-of-3.json" "$tmp/copy.json"
check "merge names a duplicated point" 2 "is in both '.*sh-0-of-3.json' and '.*copy.json'" -- \
    merge "$tmp"/sh-*-of-3.json "$tmp/copy.json"
check "merge names shards of a sweep split another way" 2 "is shard 0 of 1 but .* is shard 0 of 3" -- \
    merge "$tmp/sh-0-of-3.json" "$tmp/whole.json"
/usr/bin/python3 -c "import json; f=json.load(open('$tmp/sh-2-of-3.json')); f['environment']['torch_version']='9.9.9'; \
json.dump(f, open('$tmp/sh-mixed.json', 'w'))"
check "merge refuses mixed environments" 2 'ran on different environments: torch .* \(.*\); torch 9.9.9' -- \
    merge "$tmp/sh-0-of-3.json" "$tmp/sh-1-of-3.json" "$tmp/sh-mixed.json"
check "merge --allow-mixed keeps where each point ran" 0 'merged as allowed, each point keeps where it ran' -- \
    merge "$tmp/sh-0-of-3.json" "$tmp/sh-1-of-3.json" "$tmp/sh-mixed.json" --allow-mixed --json "$tmp/mixed.json"
if python_check "import json; m=json.load(open('$tmp/mixed.json')); assert m['mixed_environments']; \
t={p['ran_on']['torch_version'] for p in m['points']}; assert len(t) == 2 and '9.9.9' in t, t" >"$tmp/py"; then
    echo "ok   a mixed merge keeps each point's environment"; passed=$((passed + 1))
else
    echo "FAIL mixed merge: $(cat "$tmp/py")"; failed=$((failed + 1))
fi
check "merge refuses what is not a sweep" 2 "is a benchmark, not a sweep" -- merge "$tmp/b.json"

# Ctrl-C in the other engine commands: once, the current step finishes and what finished is kept,
# printed and written (exit 130); twice, the same at the next step. wait_for FILE PATTERN polls stderr.
wait_for() { for _ in $(seq 1 300); do grep -qE -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
interrupted_run() {  # interrupted_run NAME PATTERN_BEFORE_INT SIGNALS PYTHON_CHECK -- ARGS...
    local name=$1 ready=$2 signals=$3 py=$4
    shift 5
    rm -f "$tmp/ir.out" "$tmp/ir.err"  # as in interrupted_sweep: never poll the last run's output
    "$attnwb" "$@" >"$tmp/ir.out" 2>"$tmp/ir.err" &
    local pid=$! t0 rc
    wait_for "$tmp/ir.err" "$ready"
    t0=$(date +%s%N)
    for _ in $(seq 1 "$signals"); do kill -INT "$pid" 2>/dev/null; sleep 0.2; done
    wait "$pid"
    rc=$?
    local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    if [ "$rc" -eq 130 ] && python_check "$py" >"$tmp/py"; then
        echo "ok   $name (exit 130 ${ms} ms after Ctrl-C)"; passed=$((passed + 1))
    else
        echo "FAIL $name: exit $rc after ${ms} ms, $(cat "$tmp/py")"; sed 's/^/  | /' "$tmp/ir.err" | tail -5; failed=$((failed + 1))
    fi
}
nq=(--batch 1 --heads 2 --seq 64 --head-dim 16 --threads 1)
interrupted_run "Ctrl-C once keeps a benchmark's samples" 'sample [0-9]+' 1 \
    "import json; b=json.load(open('$tmp/ib.json'))['result']; assert b['interrupted'] and b['timing']['repeats'] >= 1 \
and len(b['samples_ns']) == b['timing']['repeats'] and b['peak_bytes'] == -1, b['timing']; \
assert 'INTERRUPTED' in open('$tmp/ir.out').read()" -- bench "${nq[@]}" --budget 60 --min-sample 0.05 --json "$tmp/ib.json"
interrupted_run "Ctrl-C twice stops a benchmark at once and still writes it" 'sample [0-9]+' 2 \
    "import json; b=json.load(open('$tmp/ib2.json'))['result']; assert b['interrupted'], b" \
    -- bench "${nq[@]}" --budget 60 --min-sample 0.05 --json "$tmp/ib2.json"
interrupted_run "Ctrl-C once keeps a profile's recorded steps" '\(record' 1 \
    "import json; r=json.load(open('$tmp/ip.json')); out=open('$tmp/ir.out').read(); \
assert 'INTERRUPTED after step' in out and any(o['name']=='aten::softmax' for o in r['operators']), out[:300]; \
t=json.load(open('$tmp/ip.trace.json')); assert t['attention_workbench']['interrupted'] is True" \
    -- profile --batch 1 --heads 4 --seq 256 --head-dim 32 --threads 1 --active 20000 --json "$tmp/ip.json" --trace "$tmp/ip.trace.json"
interrupted_run "Ctrl-C once keeps a check's finished variants" 'float64 reference' 1 \
    "import json; c=json.load(open('$tmp/ic.json')); assert c['interrupted'] and 1 <= len(c['variants']) < 3, c['variants']" \
    -- check --batch 2 --heads 8 --seq 1024 --head-dim 64 --threads 1 --variants manual,sdpa,chunked --json "$tmp/ic.json"

# Saving: a full disk is one clear message naming the file; nothing is half-written.
check "a full disk is named" 1 "cannot write '/dev/full': No space left on device \(the disk is full\)" \
    -- bench "${nq[@]}" --budget 0.05 --quiet --no-overhead --json /dev/full

# A trace larger than the memory this process may take is refused before reading, with a message
# (under a cgroup limit the OOM killer would otherwise end it): here the limit is ulimit -v.
/usr/bin/python3 -c "
import sys
ev = '{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 1}'
with open('$tmp/big.json', 'w') as f:
    f.write('{\"traceEvents\": [')
    f.write(','.join(ev % i for i in range(1500000)))
    f.write(']}')"
if [ -n "${AWB_SANITIZE:-}" ]; then
    # A sanitizer reserves terabytes of address space for its shadow: no ulimit -v can be set. The
    # plain builds run this check.
    echo "skip a trace that cannot fit (-fsanitize=$AWB_SANITIZE: ulimit -v cannot apply)"
elif (ulimit -v 300000; "$attnwb" inspect "$tmp/big.json" --quiet) >"$tmp/out" 2>"$tmp/err"; then rc=0; else rc=$?; fi
if [ -n "${AWB_SANITIZE:-}" ]; then :
elif [ "$rc" -eq 2 ] && grep -qE "big.json' needs about [0-9.]+ MiB of memory to import \([0-9.]+ MiB of JSON\) but [0-9.]+ MiB is left \(this process's address-space limit \(ulimit -v\)\)" "$tmp/err" \
    && (ulimit -v 300000; "$attnwb" inspect "$tmp/t.json" --quiet >/dev/null 2>&1); then
    echo "ok   a trace that cannot fit is refused before reading ($(du -m "$tmp/big.json" | cut -f1) MiB under ulimit -v 300000)"; passed=$((passed + 1))
else
    echo "FAIL trace that cannot fit: exit $rc"; sed 's/^/  | /' "$tmp/err" | head -5; failed=$((failed + 1))
fi
rm -f "$tmp/big.json"
