# The readers half of the CLI checks (test_cli.sh ATTNWB readers): inspect, diff and report, Ctrl-C in
# them, and the input errors of every command; it reads the results files the engine half (or test_cli.sh) made.

# inspect: our own trace reads back with the same operator table; a broken file is named, the others shown
check "inspect reads our trace" 0 'aten::softmax' -- inspect "$tmp/t.json" --rows 0 --json "$tmp/i.json" --quiet
gzip -c "$tmp/t.json" >"$tmp/t.json.gz"
check "inspect reads gzip" 0 'Self CPU time total' -- inspect "$tmp/t.json.gz" --quiet
# Cut inside the 10th event (5 bytes into its "ph"), wherever the header ends: a fixed byte count
# sometimes fell between two events, where the message rightly differs.
cut_at=$(grep -bo '"ph"' "$tmp/t.json" | sed -n 10p | cut -d: -f1)
head -c $((cut_at + 5)) "$tmp/t.json" >"$tmp/cut.json"
check "inspect names a truncated file" 2 'cut.json.*ends inside an event that starts at byte offset' -- inspect "$tmp/cut.json" "$tmp/t.json" --quiet
if python_check "import json; i=json.load(open('$tmp/i.json')); r=json.load(open('$tmp/r.json')); \
a={(o['name'],o['calls']) for o in i['traces'][0]['operators']}; b={(o['name'],o['calls']) for o in r['operators']}; \
assert a==b, a^b; assert i['traces'][0]['summary']['memory_events'] > 0" >"$tmp/py"; then
    echo "ok   inspect's operators equal the profile report's"; passed=$((passed + 1))
else
    echo "FAIL inspect vs profile report: $(cat "$tmp/py")"; failed=$((failed + 1))
fi

# A run of several ranks: its collectives matched and its straggler named; files of two runs refused by
# name with the reason, or shown one by one with --separate-runs.
gloo=$(dirname "$0")/../fixtures/traces/gloo
check "inspect --collectives names the straggler" 0 '^straggler: rank 2: the others waited' -- inspect "$gloo/straggler" --collectives --quiet
check "inspect refuses the ranks of two runs by name" 2 'not one run with the first: world size 2, not 4' -- \
    inspect --distributed "$gloo"/straggler/rank*.json "$gloo"/two_ranks_ws2/rank*.json --quiet
check "inspect --separate-runs shows each run" 0 '=== .*two_ranks_ws2/rank0.json \(ranks 0-1 of 2\)' -- \
    inspect --distributed --separate-runs "$gloo"/straggler/rank*.json "$gloo"/two_ranks_ws2/rank*.json --quiet --rows 1
check "inspect --ranks names the slowest rank" 0 '^slowest rank 2 \(its step less its waits\)' -- inspect "$gloo/straggler" --ranks --step 3 --quiet
check "diff puts two runs' collectives side by side" 0 '^straggler: A rank 2, B rank' -- diff "$gloo/straggler" "$gloo/collectives" --quiet
check "inspect of a subset of a run's ranks notes what is missing" 0 "^note: 2 of the run's 4 ranks are in the files; missing \[2, 3\]" -- \
    inspect --distributed "$gloo"/straggler/rank0.json "$gloo"/straggler/rank1.json --quiet --rows 1
check "inspect of a glob the shell did not expand opens its files as one run" 0 '^ranks 0 1 2 3 of 4 \(gloo\)' -- \
    inspect "$gloo/straggler/rank*.json" --quiet --rows 1
check "inspect of a glob that matches nothing says so" 2 "no file matches '.*/nothing\*.json'" -- inspect "$gloo/nothing*.json" --quiet
check "inspect --rank shows one rank of the run" 0 '^rank 2 of 4 \(gloo\)' -- inspect "$gloo/straggler" --rank 2 --quiet --rows 1
check "inspect --rank names a rank the run lacks" 2 '--rank 9: the run holds ranks 0 1 2 3' -- inspect "$gloo/straggler" --rank 9 --quiet
check "inspect --summary of a run asks for --rank" 2 'choose the one to summarise with --rank' -- \
    inspect "$gloo/straggler" --summary "$tmp/x.json.gz" --quiet
# Rank summaries, made one per rank (as a Slurm array would), opened together: the same collectives.
mkdir -p "$tmp/summaries"
for r in 0 1 2 3; do
    check "inspect --summary of rank $r" 0 "^summary of rank $r of .* written to .*rank$r.json.gz" -- \
        inspect "$gloo/straggler/rank$r.json" --summary "$tmp/summaries/rank$r.json.gz" --quiet
done
check "rank summaries open as the run and name the straggler" 0 "^straggler: rank 2: the others waited" -- \
    inspect "$tmp/summaries" --collectives --breakdown --quiet --json "$tmp/summaries.json"
"$attnwb" inspect "$gloo/straggler" --collectives --breakdown --quiet --json "$tmp/whole.json" >/dev/null 2>&1
if python_check "import json; a, b = (json.load(open(f))['traces'][0] for f in ('$tmp/whole.json', '$tmp/summaries.json')); \
assert all(a[k] == b[k] for k in ('collectives', 'gpu_breakdown', 'kernels')), 'differ'" >"$tmp/py"; then
    echo "ok   rank summaries give the run's collectives, breakdown and kernels"; passed=$((passed + 1))
else
    echo "FAIL rank summaries give the run's collectives, breakdown and kernels: $(cat "$tmp/py")"; failed=$((failed + 1))
fi

# inspect of a memory snapshot (a pickle, whatever its name): the peak and its blocks; a wrong field and a
# cut file are named (exit 2) and the other files still read.
snapshots="$(cd "$(dirname "$0")/.." && pwd)/fixtures/memory_snapshots"
cp "$snapshots/manual.p4.pickle.gz" "$tmp/any-name.bin"
check "inspect reads a memory snapshot" 0 'peak allocated 144.0 KiB, after event 41 \(of 78 events\)' -- inspect "$tmp/any-name.bin" --json "$tmp/snap.json"
check "inspect names a snapshot's wrong field" 2 'size_a_str.pickle: device_traces\[0\]\[0\].size: a str, not an int' -- \
    inspect "$snapshots/bad/size_a_str.pickle" "$snapshots/handmade.p2.pickle"
head -c 300 "$snapshots/manual.p4.pickle" >"$tmp/cut.pickle"
check "inspect names a cut snapshot and reads the next" 2 'cut.pickle: the pickle ends inside an opcode .*byte offset 299' -- \
    inspect "$tmp/cut.pickle" "$snapshots/handmade.p2.pickle"
if python_check "import json; s=json.load(open('$tmp/snap.json'))['snapshots'][0]['devices'][0]; \
assert s['peak_allocated_bytes'] == 147472 and s['blocks_at_peak'][0]['bytes'] == 32768, s" >"$tmp/py"; then
    echo "ok   inspect --json of a snapshot"; passed=$((passed + 1))
else
    echo "FAIL inspect --json of a snapshot: $(cat "$tmp/py")"; failed=$((failed + 1))
fi

# A frame filter counts only what was allocated under it (softmax: one 32 KiB block at its peak); two
# snapshots compare by allocating frame (manual's attention holds the scores at the peak, SDPA's does
# not); a snapshot against a trace is refused by name; the HTML report draws the snapshot.
check "inspect --frame filters a snapshot" 0 "frame filter 'softmax'.*" -- inspect "$snapshots/manual.p4.pickle" --frame softmax
check "inspect names a CPU profile's snapshot's memory cpu" 0 '^cpu: 78 trace events' -- inspect "$snapshots/manual.p4.pickle"
check "inspect names a CUDA snapshot's device" 0 '^cuda:0: 305 trace events' -- inspect "$snapshots/gpu/manual.pytorch.pickle"
check "inspect --frame: the filtered peak" 0 'peak allocated 32.0 KiB' -- inspect "$snapshots/manual.p4.pickle" --frame SOFTMAX
check "diff of two snapshots" 0 'peak allocated A 338.5 MiB, B 175.5 MiB \(-163.0 MiB\)' -- \
    diff "$snapshots/transformer_manual.pickle.gz" "$snapshots/transformer_sdpa.pickle.gz" --json "$tmp/snapdiff.json"
check "diff names the frame that holds the scores" 0 'both +156.0 MiB +32.3 MiB +-123.8 MiB .*make_transformer_snapshots.py\(33\): forward' -- \
    diff "$snapshots/transformer_manual.pickle.gz" "$snapshots/transformer_sdpa.pickle.gz"
check "diff: a CPU profile's conversion has no reserved" 0 'peak reserved A not recorded, B not recorded \(-\)' -- \
    diff "$snapshots/transformer_manual.pickle.gz" "$snapshots/transformer_sdpa.pickle.gz"
check "inspect: a CPU profile's conversion has no reserved" 0 'reserved not recorded: the snapshot has no allocator segments' -- \
    inspect "$snapshots/manual.p4.pickle"
check "diff refuses a snapshot against a trace" 2 "is a memory snapshot and .* is not" -- \
    diff "$snapshots/manual.p4.pickle" "$(cd "$(dirname "$0")/.." && pwd)/fixtures/traces/kineto_gpu_2x.json"
# --trace: the snapshot's allocations by the operators of the same run's profile (the expected rows are
# tests/fixtures/memory_snapshots/linked/manual.link.json's); a trace of another run is said so.
linked="$snapshots/linked"
check "inspect --trace names the operators holding the peak" 0 '512.0 KiB +1 +512.0 KiB +1 +aten::_softmax' -- \
    inspect "$linked/manual.pickle" --trace "$linked/manual.trace.json.gz" --json "$tmp/snapops.json"
check "inspect --op lists what ran under it" 0 'allocated while aten::matmul ran .*: 2 block\(s\), 640.0 KiB' -- \
    inspect "$linked/manual.pickle" --trace "$linked/manual.trace.json.gz" --op aten::matmul
check "inspect --trace of another run says why nothing is placed" 0 'not the same run' -- \
    inspect "$linked/manual.pickle" --trace "$(cd "$(dirname "$0")/.." && pwd)/fixtures/traces/torch2/manual_train.json"
check "inspect --trace of a missing file is one message" 2 'attnwb inspect: --trace: .*no-such.json' -- \
    inspect "$linked/manual.pickle" --trace "$tmp/no-such.json"
check "inspect --op without --trace is refused" 2 '--op requires --trace' -- inspect "$linked/manual.pickle" --op aten::bmm
# A real CUDA run (tests/fixtures/memory_snapshots/gpu/): the snapshot holds the warm-up, the trace only the
# profiled steps; the table reads the peak inside the trace and says where the run's own peak was.
gpu_snaps="$snapshots/gpu"
check "inspect --trace of a real CUDA run reads the peak inside the trace" 0 \
    "the table's peak is the one inside the trace, 103.0 MiB after event 163; the device's own, 103.0 MiB after event 103, came before the trace began" -- \
    inspect "$gpu_snaps/manual.attnwb.pickle" --trace "$gpu_snaps/manual.attnwb.trace.json.gz"
check "inspect --trace of a real CUDA run: the warm-up's blocks are named as such" 0 '67.0 MiB +5 +195.0 MiB +43 +\(before the trace began\)' -- \
    inspect "$gpu_snaps/manual.attnwb.pickle" --trace "$gpu_snaps/manual.attnwb.trace.json.gz"
check "inspect of a real CUDA snapshot hides the allocator's frames" 0 '32.0 MiB +0x7f4af2000000 +3 +at::cuda::setWorkspaceForHandle' -- \
    inspect "$gpu_snaps/manual.attnwb.pickle"
if python_check "import json; o=json.load(open('$tmp/snapops.json'))['snapshots'][0]['operators']; \
    r={x['operator']: x for x in o['operators']}; assert o['in_operators'] == 37 and r['aten::bmm']['bytes'] == 1572864, o" >"$tmp/py"; then
    echo "ok   inspect --trace --json"; passed=$((passed + 1))
else
    echo "FAIL inspect --trace --json: $(cat "$tmp/py")"; failed=$((failed + 1))
fi
check "report of a snapshot" 0 'wrote' -- report "$snapshots/transformer_manual.pickle.gz" -o "$tmp/snap.html"
if grep -q '<h2>Memory snapshot</h2>' "$tmp/snap.html" && [ "$(grep -c '<polygon fill="#' "$tmp/snap.html")" -ge 100 ] &&
    grep -q 'make_transformer_snapshots.py(33): forward' "$tmp/snap.html" &&
    python_check "import json; d=json.load(open('$tmp/snapdiff.json')); assert d['kind'] == 'memory-snapshot' and d['devices'][0]['peak_allocated_a_bytes'] == 354963688, d" >"$tmp/py"; then
    echo "ok   report and diff --json of snapshots"; passed=$((passed + 1))
else
    echo "FAIL report and diff --json of snapshots: $(cat "$tmp/py")"; failed=$((failed + 1))
fi

# diff: a run's report against its own trace joins every operator with no delta; two ranks differ by
# their kernels; a file that is neither report nor trace is named (exit 2).
fixtures="$(cd "$(dirname "$0")/.." && pwd)/fixtures/traces"
check "diff of a report and its trace" 0 'Operators by impact' -- diff "$tmp/r.json" "$tmp/t.json" --json "$tmp/d.json" --quiet
if python_check "import json; d=json.load(open('$tmp/d.json')); r=json.load(open('$tmp/r.json')); \
assert d['schema']=='attention-workbench/diff' and len(d['operators'])==len(r['operators']); \
assert all(o['in_a'] and o['in_b'] and o['calls_delta']==0 and abs(o['self_cpu_delta_us'])<1e-6 for o in d['operators']); \
assert isinstance(r['findings'], list)" >"$tmp/py"; then
    echo "ok   diff joins a run with itself without deltas; reports carry findings"; passed=$((passed + 1))
else
    echo "FAIL diff of a run with itself: $(cat "$tmp/py")"; failed=$((failed + 1))
fi
check "diff of two ranks shows kernels" 0 'ncclDevKernel_AllReduce.*both.*-25.2' -- diff "$fixtures/multi_rank/rank0.pt.trace.json" "$fixtures/multi_rank/rank1.pt.trace.json" --quiet
# Two imported traces: their steps are their ProfilerStep#k spans (six each), and the verdict says which is
# faster per step, by how much, and whether beyond the noise (tests/fixtures/traces/compare/README.md).
check "diff of two traces gives a verdict on their ProfilerSteps" 0 'B is 49\.3% slower per step \(median B 114\.69 ms vs A 76\.83 ms; 95% CI of B/A .* over 6 and 6 steps, beyond noise\)' -- \
    diff "$fixtures/compare/a100_control_steps.json" "$fixtures/compare/v100_test_steps.json" --quiet
check "diff names a bad file" 2 "cut.json" -- diff "$tmp/cut.json" "$tmp/t.json" --quiet
check "diff of a sweep file" 2 "not a profile report" -- diff "$tmp/s.json" "$tmp/r.json" --quiet
check "profile prints findings" 0 'Findings:' -- profile "${small[@]}" --quiet

# Reports: every measuring command prints the checklist, writes it in its JSON and, with --report, an
# HTML page; attnwb report joins results files, judging the checklist on all of them together.
check "profile prints the checklist and writes HTML" 0 'Measurement checklist: [0-9] of 7 pass' -- profile "${small[@]}" --report "$tmp/r.html"
check "report joins run, bench, sweep and check" 0 '\[pass\] re-measured with the profiler off: profiler-off median' -- \
    report "$tmp/r.json" "$tmp/b.json" "$tmp/s.json" "$tmp/c.json" -o "$tmp/all.html" --quiet
if python_check "import json; r=json.load(open('$tmp/r.json')); assert [i['id'] for i in r['checklist']]==\
['environment','scope','warm-up','collected','lengths','profiler-off','numerical'], r['checklist']; \
h=open('$tmp/all.html').read(); assert h.startswith('<!DOCTYPE html>') and h.count('<svg ')>=5 and 'Measurement checklist' in h; \
assert 'Correctness check' in h and 'Sweep (profiler off)' in h and 'src=' not in h; \
assert '<h2>Measurement checklist</h2>' in open('$tmp/r.html').read()" >"$tmp/py"; then
    echo "ok   reports hold the checklist, sections and charts"; passed=$((passed + 1))
else
    echo "FAIL report contents: $(cat "$tmp/py")"; failed=$((failed + 1))
fi
check "report of a trace" 0 'self and total time, calls and input shapes' -- report "$tmp/t.json" -o "$tmp/t.html" --quiet
check "report refuses two runs" 2 'a second profiled run' -- report "$tmp/r.json" "$tmp/t.json" -o "$tmp/x.html" --quiet
check "report names a bad file" 2 'cut.json' -- report "$tmp/cut.json" -o "$tmp/x.html" --quiet
check "report of a missing file" 2 'none.json' -- report "$tmp/none.json" -o "$tmp/x.html"
check "unwritable HTML report" 1 "cannot write '/nonexistent-dir/r.html'" -- profile "${small[@]}" --report /nonexistent-dir/r.html

# Ctrl-C in the readers (inspect, report, diff). A trace fed through a FIFO holds the reader at a known
# place: 6 MB go in, the feeder pauses 2 s (Ctrl-C lands then), the rest follows. inspect keeps the traces
# read (once: the one being read is finished; twice: it is dropped); report and diff stop at the next
# batch and leave their previous output file as it was.
/usr/bin/python3 -c "
ev = '{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 1}'
with open('$tmp/slow.json', 'w') as f:
    f.write('{\"traceEvents\": [' + ','.join(ev % (2 * i) for i in range(200000)) + ']}')"
fed_run() {  # fed_run NAME SIGNALS EXPECTED_RC PYTHON_CHECK -- ARGS... ($tmp/fifo is the fed trace)
    local name=$1 signals=$2 want=$3 py=$4 pid feeder rc t0 ms
    shift 5
    rm -f "$tmp/fifo" "$tmp/fed" "$tmp/resumed"; mkfifo "$tmp/fifo"
    { head -c 6000000 "$tmp/slow.json"; : >"$tmp/fed"; sleep 2; date +%s%N >"$tmp/resumed"; tail -c +6000001 "$tmp/slow.json"; } >"$tmp/fifo" 2>/dev/null &
    feeder=$!
    "$attnwb" "$@" >"$tmp/fr.out" 2>"$tmp/fr.err" &
    pid=$!
    for _ in $(seq 1 100); do [ -e "$tmp/fed" ] && break; sleep 0.1; done
    sleep 0.3
    for _ in $(seq 1 "$signals"); do kill -INT "$pid"; sleep 0.2; done
    wait "$pid"; rc=$?
    t0=$(cat "$tmp/resumed" 2>/dev/null || date +%s%N)
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    kill "$feeder" 2>/dev/null; wait "$feeder" 2>/dev/null
    if [ -e "$tmp/fed" ] && [ "$rc" -eq "$want" ] && python_check "$py" >"$tmp/py"; then
        echo "ok   $name (exit $rc ${ms} ms after the feed resumed)"; passed=$((passed + 1))
    else
        echo "FAIL $name: exit $rc after ${ms} ms, $(cat "$tmp/py")"; sed 's/^/  | /' "$tmp/fr.err" | tail -5; failed=$((failed + 1))
    fi
}
fed_run "Ctrl-C once in inspect finishes the trace being read, reads no other, writes both" 1 130 \
    "import json; i=json.load(open('$tmp/fi.json')); assert i['interrupted'] and len(i['traces'])==2, len(i['traces']); \
assert i['traces'][1]['summary']['events']==200000, i['traces'][1]['summary']; \
assert '2 of 3 file(s) read, and written' in open('$tmp/fr.err').read()" \
    -- inspect "$tmp/t.json" "$tmp/fifo" "$tmp/t.json" --quiet --json "$tmp/fi.json"
fed_run "Ctrl-C twice in inspect drops the trace being read, writes the one before" 2 130 \
    "import json; i=json.load(open('$tmp/fi2.json')); assert i['interrupted'] and len(i['traces'])==1, len(i['traces'])" \
    -- inspect "$tmp/t.json" "$tmp/fifo" "$tmp/t.json" --quiet --json "$tmp/fi2.json"
echo previous >"$tmp/keep.html"
fed_run "Ctrl-C in report stops reading and leaves the previous report" 1 130 \
    "assert open('$tmp/keep.html').read()=='previous\\n'; assert 'report: cancelled' in open('$tmp/fr.err').read()" \
    -- report "$tmp/fifo" -o "$tmp/keep.html" --quiet
echo previous >"$tmp/keep.json"
fed_run "Ctrl-C in diff stops reading and leaves the previous output" 1 130 \
    "assert open('$tmp/keep.json').read()=='previous\\n'; assert 'diff: cancelled' in open('$tmp/fr.err').read()" \
    -- diff "$tmp/t.json" "$tmp/fifo" --json "$tmp/keep.json" --quiet
rm -f "$tmp/slow.json" "$tmp/fifo"

check "kv_heads not dividing heads" 2 'kv_heads: 3 does not divide heads = 2' -- profile "${small[@]}" --kv-heads 3
check "every problem at once" 2 'dtype:.*int3' -- profile "${small[@]}" --dtype int3 --mask diagonal --variant foo
check "every problem at once (mask)" 2 "mask: 'diagonal'" -- profile "${small[@]}" --dtype int3 --mask diagonal --variant foo
check "non-numeric size" 2 'batch' -- profile --batch two
check "unknown option" 2 'not expected: .*--bogus' -- profile --bogus 1
check "padding without lengths" 2 'key_lengths: padding needs one key length per batch entry' -- profile "${small[@]}" --mask padding
check "bad sort key" 2 "sort: 'fastest'" -- profile "${small[@]}" --sort fastest
check "cuda absent" 2 'device:.*(was built without CUDA|no CUDA GPU is visible)' -- profile "${small[@]}" --device cuda
check "too big for memory" 2 'memory: estimated peak' -- profile "${small[@]}" --seq 2000000
check "bad schedule" 2 'active: 0 must be >= 1' -- profile "${small[@]}" --active 0
echo '{"spec": {"batch": "x"' >"$tmp/bad.json"
check "corrupt spec file" 2 'spec:.*not valid JSON' -- profile --spec "$tmp/bad.json"
check "missing spec file" 2 "spec: cannot open" -- profile --spec "$tmp/none.json"
check "unwritable report path" 1 "cannot write '/nonexistent-dir/r.json'" -- profile "${small[@]}" --json /nonexistent-dir/r.json
check "no subcommand" 2 '' --
check "kineto trace to a missing folder" 2 "kineto_trace: (cannot write '/nonexistent-dir/k.json'|LibTorch .* is built without Kineto)" -- profile "${small[@]}" --kineto-trace /nonexistent-dir/k.json
if "$attnwb" profile "${small[@]}" --kineto-trace "$tmp/k.json" >/dev/null 2>&1; then
    check "kineto trace imports like ours" 0 'Self CPU time total' -- inspect "$tmp/k.json"
else
    check "kineto trace needs Kineto" 2 'built without Kineto' -- profile "${small[@]}" --kineto-trace "$tmp/k.json"
fi

# --memory-snapshot: the CUDA allocator's history needs the 2.x build with CUDA and a CUDA spec; each
# refusal is one problem naming the option, before anything runs (no table, no file). The recording
# itself needs a GPU: tests/engine (CudaGpu.MemorySnapshotOfTheArticleWorkload) and scripts/gpu-check.sh.
check "profile --help offers --memory-snapshot" 0 '--memory-snapshot TEXT +Record the CUDA caching allocator' -- profile --help
refused_before_running() {  # refused_before_running NAME PATTERN -- ARGS...: exit 2, one line on stderr, nothing run or written
    local name=$1 pattern=$2
    shift 3
    check "$name" 2 "$pattern" -- "$@"
    if [ -s "$tmp/out" ] || [ -e "$tmp/m.pickle" ] || [ "$(grep -c 'memory_snapshot:' "$tmp/err")" -ne 1 ]; then
        echo "FAIL $name: ran or wrote something, or said it more than once"; sed 's/^/  | /' "$tmp/out" "$tmp/err" | head -20
        failed=$((failed + 1))
    fi
}
if "$attnwb" --version | grep -qE '^LibTorch: built with 2\.' && ! "$attnwb" --version | grep -q '^CUDA: none'; then
    refused_before_running "memory snapshot of a CPU run is refused" \
        '^memory_snapshot: --memory-snapshot records the CUDA caching allocator: use --device cuda \(the spec runs on cpu\)$' \
        -- profile "${small[@]}" --memory-snapshot "$tmp/m.pickle"
    check "memory snapshot to a missing folder" 2 "memory_snapshot: cannot write '/nonexistent-dir/m.pickle'" \
        -- profile "${small[@]}" --device cuda --memory-snapshot /nonexistent-dir/m.pickle
    if ! "$attnwb" --version | grep -q 'device here ('; then
        check "memory snapshot of a CUDA run without a GPU: the device is named" 2 'device:.*no CUDA GPU is visible' \
            -- profile "${small[@]}" --device cuda --memory-snapshot "$tmp/m.pickle"
    fi
else
    for device in cpu cuda; do
        refused_before_running "memory snapshot needs the 2.x build ($device)" \
            '^memory_snapshot: --memory-snapshot needs the 2\.x build \(LibTorch with CUDA\); this engine has LibTorch [0-9.]+ without CUDA' \
            -- profile "${small[@]}" --device "$device" --memory-snapshot "$tmp/m.pickle"
    done
fi

# Two programs: attnwb reads traces and results without LibTorch and hands the rest to
# attnwb-engine next to it; the options every subcommand shares are registered once.
if readelf -d "$attnwb" | grep -qiE 'NEEDED.*(libtorch|libc10)'; then
    echo "FAIL attnwb links LibTorch"; failed=$((failed + 1))
else
    echo "ok   attnwb links no LibTorch"; passed=$((passed + 1))
fi
for sub in profile bench sweep check inspect diff report; do
    check "$sub --help lists --quiet" 0 '-q,--quiet' -- "$sub" --help
done
for sub in profile bench sweep check; do
    check "$sub --help lists --report" 0 '--report TEXT' -- "$sub" --help
done
mkdir -p "$tmp/alone"
cp "$attnwb" "$tmp/alone/attnwb"
attnwb_full=$attnwb
attnwb="$tmp/alone/attnwb"
check "inspect needs no engine" 0 'Self CPU time total' -- inspect "$tmp/t.json" --quiet
# --breakdown: a CPU trace says it has no device work; a GPU trace gets the table and the kernel classes
check "breakdown of a CPU trace" 0 'no kernels, copies or sets' -- inspect "$tmp/t.json" --quiet --breakdown
fixtures="$(dirname "$0")/../fixtures/traces"
check "breakdown of a GPU trace" 0 'exposed comm' -- inspect "$fixtures/kineto_gpu_2x.json" --quiet --breakdown
check "kernel classes of a GPU trace" 0 '^GEMM +0 +2 ' -- inspect "$fixtures/kineto_gpu_2x.json" --quiet
# --attention: our own run of the manual variant and PyTorch 2.11's trace of sdpa (CPU flash, forward and backward)
check "attention calls of our own run" 0 '^manual +manual +fwd +dense ' -- inspect "$tmp/t.json" --quiet --attention
check "our own run's attention against its measured roof" 0 '^Roof for float: CPU, [0-9.]+ GFLOP/s, [0-9.]+ GB/s, ridge [0-9.]+ FLOP/byte \(measured in this run' -- inspect "$tmp/t.json" --quiet --attention
python3 -c "import json; t=json.load(open('$tmp/t.json')); t['attention_workbench']['roof']={'device': 5}; json.dump(t, open('$tmp/badroof.json', 'w'))"
check "a roof of the wrong type in our metadata: the calls without it" 0 '^manual +manual +fwd ' -- inspect "$tmp/badroof.json" --quiet --attention
check "attention calls of a torch 2.11 trace" 0 '^PyTorch SDPA +CPU flash +bwd +dense +64 +1 +2 +2 +64 +64 +16 ' -- inspect "$fixtures/torch2/sdpa_train_stack.pt.trace.json.gz" --quiet --attention --json "$tmp/att.json"
if python_check "import json; a=json.load(open('$tmp/att.json'))['traces'][0]['attention']['calls']; \
assert len(a)==4, len(a); assert sorted(x['pass'] for x in a)==['backward','backward','forward','forward']; \
f=[x for x in a if x['pass']=='forward'][0]; assert f['flops']==4*2*64*64*16 and f['causal'] is False and f['backend']=='CPU flash', f; \
assert f['library']=='PyTorch SDPA' and f['layout']=='dense' and f['query_tokens']==64 and f['missing'] is None, f" >"$tmp/py"; then
    echo "ok   attention JSON"; passed=$((passed + 1))
else
    echo "FAIL attention JSON"; sed 's/^/  | /' "$tmp/py"; failed=$((failed + 1))
fi
check "no attention in a trace without it" 0 'none found' -- inspect "$fixtures/kineto_2021.json" --quiet --attention
# Libraries and engines: vLLM's unified attention (cut from a public trace), the rules table
check "vLLM's attention: paged, its KV lengths not in the trace" 0 '^vLLM +unified attention +fwd +paged +8192 +\? +64 +8 ' -- inspect "$fixtures/libraries/vllm_unified_attention.json.gz" --quiet --attention
check "the attention rules table, no trace needed" 0 '^kernel +contains +kernel_unified_attention +vLLM ' -- inspect --attention-rules
# The kernel class rules: one table, printed by the program; docs/inspect.md holds its output verbatim.
docs_rules=$(awk '/^<!-- attnwb inspect --kernel-classes -->$/ { at = 1; next } at == 1 && /^```$/ { at = 2; next }
                 at == 2 && /^```$/ { exit } at == 2' "$(dirname "$0")/../../docs/inspect.md")
if [ -n "$docs_rules" ] && [ "$docs_rules" = "$("$attnwb" inspect --kernel-classes)" ]; then
    echo "ok   the kernel class rules in docs/inspect.md are the program's"; passed=$((passed + 1))
else
    echo "FAIL the kernel class rules in docs/inspect.md differ from attnwb inspect --kernel-classes:"
    diff <(echo "$docs_rules") <("$attnwb" inspect --kernel-classes) | head -20 | sed 's/^/  | /'; failed=$((failed + 1))
fi
check "inspect with no trace says so" 2 'give one or more trace files' -- inspect
check "profile without the engine says so" 1 "'profile' needs the engine \\(.*/alone/attnwb-engine or .*/libexec/attention-workbench/attnwb-engine\\)" -- profile "${small[@]}"
check "--version without the engine still gives the version" 1 '^LibTorch: unknown: the engine \(' -- --version
attnwb=$attnwb_full

# CUDA/HIP graph replays read with their capture traces: a folder as vLLM writes it (capture_traces/ with
# execution_details.json), --capture, and captures that cannot serve (each named once, exit 2, the replay
# still shown as it is).
gr="$(dirname "$0")/../fixtures/traces/graph_replay"
check "a vLLM replay folder attributes its graphs' kernels" 0 '^CUDA graph replay: 34 of 34 kernels attributed to capture-time ops \(3 of 3 graph launches matched\)' \
    -- inspect "$gr/vllm" --quiet
check "an xDiT replay folder: sage_fwd under its capture op" 0 '^ +sage_fwd_1 +0\.00% +0\.000us +0\.00% +0\.000us' -- inspect "$gr/xdit" --quiet --rows 0
check "--capture on a CUDA pair counts what it cannot attribute" 0 '1 graph launch \(4 kernels\): no captured graph has 4 kernels \(captured: 2, 3\)' \
    -- inspect "$gr/cuda/replay.json" --capture "$gr/cuda/capture_traces/capture.json" --quiet --rows 0 --json "$tmp/gr.json"
if python_check "import json; t=json.load(open('$tmp/gr.json'))['traces'][0]; g=t['graph_replay']; \
assert (g['graph_launches'], g['matched'], g['kernels'], g['attributed'], g['unattributed'], g['ops_added']) == (4, 3, 12, 8, 4, 12), g; \
assert g['problems'] == [] and g['capture_files'][0].endswith('capture.json'), g; \
mm=[o for o in t['operators'] if o['name']=='aten::mm'][0]; \
assert mm['calls']==2 and mm['self_cpu_us']==0 and mm['cpu_total_us']==0 and mm['self_device_us']==200, mm; \
relu=[o for o in t['operators'] if o['name']=='aten::relu'][0]; assert relu['cpu_total_us']==50 and relu['self_device_us']==20, relu" >"$tmp/py"; then
    echo "ok   graph replay JSON"; passed=$((passed + 1))
else
    echo "FAIL graph replay JSON"; sed 's/^/  | /' "$tmp/py"; failed=$((failed + 1))
fi
check "a capture without graph captures is named" 2 "replay.json' holds no graph capture \(no cudaStreamBeginCapture" \
    -- inspect "$gr/cuda/replay.json" --capture "$gr/cuda/replay.json" --quiet
check "... and the replay is still shown as it is" 2 '^Self CPU time total: 130\.000us' -- inspect "$gr/cuda/replay.json" --capture "$gr/cuda/replay.json" --quiet
check "another run's capture is named" 2 "no graph captured in '.*graph_capture_rank_0\.json\.gz' matches a graph launch of" \
    -- inspect "$gr/cuda/replay.json" --capture "$gr/vllm/capture_traces" --quiet
check "an unreadable capture is named" 2 "none\.json.*\(not used as a capture\)" -- inspect "$gr/cuda/replay.json" --capture "$tmp/none.json" --quiet
check "a replay without graph launches says so" 2 "kineto_gpu_2x\.json' holds no graph launch" \
    -- inspect "$gr/../kineto_gpu_2x.json" --capture "$gr/cuda/capture_traces" --quiet

# A user's module as a variant, on the fixtures of this build's torch (tests/fixtures/modules).
torch_major=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['environment']['torch_version'][0])" "$tmp/r.json")
mods="$(dirname "$0")/../fixtures/modules/torch$torch_major"
check "a module profiles under its stem, its identity printed" 0 'module manual_like: .*manual_like\.pt \(torchscript, [0-9.]+ KiB, sha256 [0-9a-f]{12}, exported by torch' \
    -- profile "${small[@]}" --variant "$mods/manual_like.pt" --json "$tmp/mod.json"
if python_check "import json; j=json.load(open('$tmp/mod.json')); m=j['environment']['modules'][0]; \
assert j['spec']['variant']=='manual_like' and j['spec']['module'].endswith('/manual_like.pt'), j['spec']; \
assert len(m['sha256'])==64 and m['format']=='torchscript' and m['size_bytes']>0, m; \
assert any(o['name']=='manual_like' for o in j['operators']) and any(a['backend']=='manual' for a in j['attention'])" >"$tmp/py"; then
    echo "ok   the module's report: spec, identity, region and the manual pattern inside it"; passed=$((passed + 1))
else
    echo "FAIL module report: $(cat "$tmp/py")"; failed=$((failed + 1))
fi
check "a module's wrong arity is refused, named" 2 "wrong_arity\.pt'.s forward takes 2 inputs, the workbench passes 3" \
    -- profile "${small[@]}" --variant "$mods/wrong_arity.pt"
check "a module's wrong output shape is refused, named" 2 "wrong_shape\.pt' returned \[1, 2, 64, 8\] for q \[1, 2, 64, 16\]" \
    -- bench "${small[@]}" "${quick[@]}" --variant "$mods/wrong_shape.pt"
check "a module file that is not there" 2 "cannot read module '.*nothere\.pt'" -- profile "${small[@]}" --variant "$tmp/nothere.pt"
check "a sweep of sdpa and a module, the module's refusals recorded" 0 '2 of 4 planned points measured; 2 refused' \
    -- sweep "${sweep_small[@]}" "${quick[@]}" --seq 32,64 --variants "sdpa,$mods/wrong_shape.pt" --json "$tmp/modsweep.json"
check "two variants of one name are refused" 2 "two variants are named 'softcap'" \
    -- sweep "${sweep_small[@]}" --variants "$mods/softcap.pt,$tmp/softcap.pt"
check "check --variant PATH: the module of unknown semantics against itself in float64" 0 \
    'softcap: compared with the module itself in float64' -- check "${small[@]}" --variant "$mods/softcap.pt"
check "check --reference: softcap is not plain attention" 3 'OUT OF TOLERANCE: softcap' \
    -- check "${small[@]}" --variants "$mods/softcap.pt" --reference "$mods/manual_like.pt"
if [ "$torch_major" = 1 ]; then
    check "an AOTInductor package on LibTorch 1.13 is refused" 2 'AOTInductor package, which needs LibTorch 2.x' \
        -- profile "${small[@]}" --variant "$mods/manual_like.pt"2
else
    check "a .pt2 module benchmarks forward" 0 'module manual_like: .*\(aotinductor' \
        -- bench "${small[@]}" "${quick[@]}" --variant "$mods/manual_like.pt2" --mode forward
    check "a .pt2 has no backward: train refused" 2 'no backward' -- bench "${small[@]}" "${quick[@]}" --variant "$mods/manual_like.pt2"
    check "a .pt2 checked against its TorchScript export, output only" 0 "compared with its TorchScript export 'softcap.pt'" \
        -- check "${small[@]}" --variant "$mods/softcap.pt2"
    check "a .pt2 with a static N refuses another N" 2 'static N of 64, the spec has 32' \
        -- bench "${small[@]}" "${quick[@]}" --variant "$mods/static_n.pt2" --mode forward --seq 32    # Compiled on the H200 by the GPU check (tests/fixtures/gpu/h200-2026-12-04): CUDA code, refused on the CPU.
    check "a .pt2 compiled for CUDA is refused on the CPU, named" 2 "softcap_cuda\.pt2' was compiled for cuda, the spec runs on cpu" \
        -- profile "${small[@]}" --variant "$mods/softcap_cuda.pt2" --mode forward
fi
