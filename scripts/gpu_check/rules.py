"""The agreement rules of the GPU check: attnwb against PyTorch's own profiler and timer.

Pure JSON in, verdicts out (no torch), so that tests/gpu_check/test_rules.py can try them here.
Each rule returns a Verdict: status "pass", "fail" or "n/a", one line saying why, and the figures.

(b) attnwb profile vs torch.profiler, two runs of the same workload on the same GPU (separate
    processes, so times differ by run-to-run noise, never by method):
  - operator rows (CPU side, without the CUDA runtime API rows and "[memory]"): the same names on both
    sides and the same calls on every row; at most two rows may differ by one call (PyTorch's
    duplicate-node rule turns a nanosecond tie into a call more or less, see
    tests/engine/test_op_table_reference.cpp);
  - self CUDA and CUDA total of every operator row that holds at least 2% of the Self CUDA total on
    either side: within 15% of each other (the larger of the two is the base);
  - kernels (device rows: kernels, copies, sets): the same names and calls; the total time of every
    kernel holding at least 2% of the device time: within 15%;
  - "Self CUDA time total": within 10%;
  - the ProfilerStep* row: the same calls, CUDA total within 10%;
  - kernel launches (cudaLaunchKernel, cuLaunchKernel*, cudaLaunchKernelExC...): the same calls;
  - the CUDA memory peak (max_memory_allocated over the run): within 1% or 1 MiB.
(e) attnwb inspect of a trace vs the table of the same profile (ours: the Kineto trace attnwb wrote
    against its report; PyTorch's: export_chrome_trace against its key_averages()): the same rows and
    calls, every time column within 1 us per call plus 0.1% (the trace rounds to the nanosecond, the
    table sums the same events), kernels the same names, calls and total times.
(c) attnwb bench vs torch.utils.benchmark: ratio of medians within 5%; forward TFLOP/s at least the goal.
(f) attnwb inspect --attention of PyTorch's trace of each variant: the calls found have the
    spec's shapes (B, Hq, Hkv, N, N, D), a forward per recorded step (and a backward in train mode;
    the chunked variant's blocks are not one call), forward FLOPs 4 B H N^2 D, on the GPU device time
    from kernels that is at most the trace's kernel time; TFLOP/s and % of the datasheet roof reported.
"""
import re

GPU_RUNTIME = re.compile(r"^(cuda|cu)[A-Z]")
LAUNCH = re.compile(r"^(cudaLaunchKernel|cuLaunchKernel|cudaLaunchCooperativeKernel|cudaGraphLaunch)")
IGNORED = {"[memory]",
           # Python's autograd.Function.apply records a region named after the class; C++'s apply does not.
           "ChunkedAttentionFunction"}
# The chunked variant's autograd node: a C++ custom Function here, a Python one in the reference.
CANONICAL = [(re.compile(r"torch::autograd::CppNode<awb::\(anonymous namespace\)::(\w+)>"), r"\1Backward")]

SHARE = 0.02          # rows below 2% of the device time are compared by calls only
ROW_TOLERANCE = 0.15  # two runs of the same kernels: within 15%
TOTAL_TOLERANCE = 0.10
PEAK_TOLERANCE = (0.01, 1 << 20)


class Verdict(dict):
    def __init__(self, rule, status, detail, **figures):
        super().__init__(rule=rule, status=status, detail=detail, figures=figures)


def canonical(name):
    for pattern, repl in CANONICAL:
        name = pattern.sub(repl, name)
    return name


def split_rows(rows):
    """(operators, runtime API rows, device rows), each {name: row}; rows of one name are summed.
    Device-side user annotations (a span on the stream, no kernel time of their own) are left out."""
    ops, runtime, device = {}, {}, {}
    for r in rows:
        name = canonical(r["name"])
        if name in IGNORED or r.get("user_annotation"):
            continue
        target = device if r.get("device_type") == "cuda" else runtime if GPU_RUNTIME.match(name) else ops
        if name in target:
            merged = dict(target[name])
            for key, value in r.items():
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    merged[key] = merged.get(key, 0) + value
            target[name] = merged
        else:
            target[name] = dict(r, name=name)
    return ops, runtime, device


def rel_diff(a, b):
    base = max(abs(a), abs(b))
    return 0.0 if base == 0 else abs(a - b) / base


def compare_sets(rule, ours, ref, what):
    only_ours, only_ref = sorted(set(ours) - set(ref)), sorted(set(ref) - set(ours))
    if only_ours or only_ref:
        return Verdict(rule, "fail", f"{what} differ: only attnwb {only_ours[:6]}, only PyTorch {only_ref[:6]}",
                       only_attnwb=only_ours, only_pytorch=only_ref)
    return Verdict(rule, "pass", f"the same {len(ours)} {what}", count=len(ours))


def compare_calls(rule, ours, ref, what, allowed_off_by_one=0):
    diffs = [(n, ours[n]["calls"], ref[n]["calls"]) for n in sorted(set(ours) & set(ref)) if ours[n]["calls"] != ref[n]["calls"]]
    small = [d for d in diffs if abs(d[1] - d[2]) == 1]
    if len(diffs) > len(small) or len(small) > allowed_off_by_one:
        return Verdict(rule, "fail", f"calls differ on {len(diffs)} {what}: " +
                       ", ".join(f"{n} {a} vs {b}" for n, a, b in diffs[:6]), differences=diffs)
    note = f" ({len(small)} off by one call, allowed)" if small else ""
    return Verdict(rule, "pass", f"calls equal on {len(set(ours) & set(ref))} {what}{note}", differences=diffs)


def compare_column(rule, ours, ref, column, total_ours, total_ref, tolerance=ROW_TOLERANCE, unit="us"):
    """Rows holding >= SHARE of the total on either side: the column within `tolerance`."""
    checked, bad = [], []
    for n in sorted(set(ours) & set(ref)):
        a, b = ours[n].get(column, 0.0), ref[n].get(column, 0.0)
        if (total_ours > 0 and a / total_ours >= SHARE) or (total_ref > 0 and b / total_ref >= SHARE):
            checked.append(n)
            if rel_diff(a, b) > tolerance:
                bad.append((n, round(a, 3), round(b, 3), round(rel_diff(a, b), 3)))
    if not checked:
        return Verdict(rule, "n/a", f"no row holds {SHARE:.0%} of the {column}")
    if bad:
        return Verdict(rule, "fail", f"{column} differs by more than {tolerance:.0%} on {len(bad)} of {len(checked)} rows: " +
                       ", ".join(f"{n} {a} vs {b} {unit}" for n, a, b, _ in bad[:4]), differences=bad, rows=len(checked))
    worst = max(rel_diff(ours[n].get(column, 0.0), ref[n].get(column, 0.0)) for n in checked)
    return Verdict(rule, "pass", f"{column} within {tolerance:.0%} on the {len(checked)} rows holding {SHARE:.0%}+ "
                   f"(worst {worst:.1%})", rows=len(checked), worst=worst)


def within(rule, a, b, tolerance, what, unit="us"):
    d = rel_diff(a, b)
    status = "pass" if d <= tolerance else "fail"
    return Verdict(rule, status, f"{what}: attnwb {a:.3f} {unit}, PyTorch {b:.3f} {unit} ({d:.1%}, limit {tolerance:.0%})",
                   attnwb=a, pytorch=b, rel_diff=d)


def kernels_by_name(kernels):
    """attnwb inspect's kernel rows (one per launch configuration) or the reference's, by name."""
    out = {}
    for k in kernels:
        total = k.get("total_us", k.get("total_ns", 0) / 1e3)
        row = out.setdefault(k["name"], {"name": k["name"], "calls": 0, "total_us": 0.0})
        row["calls"] += k["calls"]
        row["total_us"] += total
    return out


def profile_rules(ours, ours_kernels, ref, cuda):
    """(b): ours = attnwb profile --json, ours_kernels = attnwb inspect --json of its trace's kernels,
    ref = tests/reference/gpu_reference.py profile's NAME.ref.json."""
    o_ops, o_rt, o_dev = split_rows(ours["operators"])
    r_ops, r_rt, r_dev = split_rows(ref["operators"])
    out = [compare_sets("operator rows", o_ops, r_ops, "operator rows"),
           compare_calls("operator calls", o_ops, r_ops, "operator rows", allowed_off_by_one=2)]
    if not cuda:
        out.append(Verdict("device columns", "n/a", "run on the CPU: no CUDA columns, kernels or CUDA peak"))
        return out
    o_total = ours.get("self_cuda_total_us")  # the footer attnwb printed, when the caller read it
    if o_total is None:
        o_total = sum(r["self_device_us"] for r in o_dev.values())
    r_total = ref["self_cuda_total_us"]
    out.append(within("Self CUDA time total", o_total, r_total, TOTAL_TOLERANCE, "Self CUDA time total"))
    step_o, step_r = o_ops.get("ProfilerStep*"), r_ops.get("ProfilerStep*")
    out.append(compare_column("operator self CUDA", o_ops, r_ops, "self_device_us", o_total, r_total))
    # CUDA total nests (ProfilerStep* > the variant's region > its ops): shares of the step's total.
    out.append(compare_column("operator CUDA total", o_ops, r_ops, "device_total_us",
                              step_o["device_total_us"] if step_o else o_total, step_r["device_total_us"] if step_r else r_total))
    ok, rk = kernels_by_name(ours_kernels), kernels_by_name(ref["kernels"])
    out.append(compare_sets("kernel names", ok, rk, "kernels"))
    out.append(compare_calls("kernel calls", ok, rk, "kernels"))
    out.append(compare_column("kernel time", ok, rk, "total_us", sum(k["total_us"] for k in ok.values()),
                              sum(k["total_us"] for k in rk.values())))
    if not step_o or not step_r:
        out.append(Verdict("ProfilerStep*", "fail", f"ProfilerStep* row missing (attnwb {bool(step_o)}, PyTorch {bool(step_r)})"))
    elif step_o["calls"] != step_r["calls"]:
        out.append(Verdict("ProfilerStep*", "fail", f"ProfilerStep* calls {step_o['calls']} vs {step_r['calls']}"))
    else:
        v = within("ProfilerStep*", step_o["device_total_us"], step_r["device_total_us"], TOTAL_TOLERANCE,
                   f"ProfilerStep* x{step_o['calls']} CUDA total")
        out.append(v)
    launches_o = sum(r["calls"] for n, r in o_rt.items() if LAUNCH.match(n))
    launches_r = sum(r["calls"] for n, r in r_rt.items() if LAUNCH.match(n))
    out.append(Verdict("kernel launches", "pass" if launches_o == launches_r else "fail",
                       f"launch API calls: attnwb {launches_o}, PyTorch {launches_r}", attnwb=launches_o, pytorch=launches_r))
    a, b = ours["peak_memory_bytes"], ref["cuda_peak_bytes"]
    rel, absolute = PEAK_TOLERANCE
    ok_peak = abs(a - b) <= max(rel * max(a, b), absolute)
    out.append(Verdict("CUDA peak", "pass" if ok_peak else "fail",
                       f"max_memory_allocated: attnwb {a / 2**20:.2f} MiB, PyTorch {b / 2**20:.2f} MiB "
                       f"(limit {rel:.0%} or {absolute >> 20} MiB)", attnwb=a, pytorch=b))
    return out


def same_profile_rules(trace_rows, trace_kernels, table_rows, table_kernels, cuda):
    """(e): a trace read by attnwb inspect against the table of the same profile: exact to rounding."""
    t_ops, _, t_dev = split_rows(trace_rows)
    k_ops, _, k_dev = split_rows(table_rows)
    out = [compare_sets("trace rows", t_ops, k_ops, "operator rows"),
           compare_calls("trace calls", t_ops, k_ops, "operator rows")]
    columns = ["self_cpu_us", "cpu_total_us"] + (["self_device_us", "device_total_us"] if cuda else [])
    bad = []
    for n in sorted(set(t_ops) & set(k_ops)):
        for c in columns:
            a, b = t_ops[n].get(c, 0.0), k_ops[n].get(c, 0.0)
            if abs(a - b) > 1.0 * max(1, k_ops[n]["calls"]) + 1e-3 * abs(b):
                bad.append((n, c, round(a, 3), round(b, 3)))
    out.append(Verdict("trace times", "fail" if bad else "pass",
                       (f"{len(bad)} time cells differ: " + ", ".join(f"{n} {c} {a} vs {b}" for n, c, a, b in bad[:4]))
                       if bad else f"{', '.join(columns)} within 1 us per call + 0.1% on every row", differences=bad))
    if cuda:
        tk, kk = kernels_by_name(trace_kernels), kernels_by_name(table_kernels)
        out.append(compare_sets("trace kernels", tk, kk, "kernels"))
        out.append(compare_calls("trace kernel calls", tk, kk, "kernels"))
        far = [(n, tk[n]["total_us"], kk[n]["total_us"]) for n in set(tk) & set(kk)
               if abs(tk[n]["total_us"] - kk[n]["total_us"]) > 1e-3 * tk[n]["calls"] + 1e-3 * kk[n]["total_us"]]
        out.append(Verdict("trace kernel time", "fail" if far else "pass",
                           f"{len(far)} kernel totals differ" if far else "kernel totals equal to the nanosecond",
                           differences=far))
    return out


def bench_rules(ours, timer, goal_tflops=None, roof=None, tolerance=0.05, cuda=True):
    """(c): attnwb bench --json's result against gpu_reference.py bench. On the CPU the ratio is only
    reported: glibc's allocator settings decide it there (attnwb sets mmap/trim thresholds, Python does
    not); scripts/bench_engine.py compares the two with the allocator matched."""
    o_ms = ours["timing"]["median_ns"] / 1e6
    t_ms = timer["median_ms"]
    ratio = o_ms / t_ms
    status = ("pass" if abs(ratio - 1) <= tolerance else "fail") if cuda else "info"
    out = [Verdict("bench ratio", status,
                   f"median attnwb {o_ms:.4f} ms / Timer {t_ms:.4f} ms = {ratio:.3f} (goal within {tolerance:.0%})"
                   + ("" if cuda else "; CPU: allocator-bound, see scripts/bench_engine.py"),
                   attnwb_ms=o_ms, timer_ms=t_ms, ratio=ratio)]
    tflops = ours["flops"] / (o_ms / 1e3) / 1e12
    figures = dict(tflops=tflops, flops=ours["flops"])
    detail = f"{tflops:.1f} TFLOP/s ({ours['flops'] / 1e12:.3f} TFLOP per iteration)"
    if roof:
        figures["roof_tflops"] = roof["tflops"]
        detail += f", {tflops / roof['tflops']:.0%} of the measured bf16 GEMM rate {roof['tflops']:.0f} TFLOP/s"
    if goal_tflops is None:
        out.append(Verdict("TFLOP/s", "n/a", detail + " (no goal for this spec)", **figures))
    else:
        out.append(Verdict("TFLOP/s", "pass" if tflops >= goal_tflops else "fail", detail + f" (goal {goal_tflops:.0f})",
                           goal=goal_tflops, **figures))
    return out


def printed_total(text, what="Self CUDA"):
    """The "<what> time total: 1.234ms" footer of a table attnwb (or torch) printed, in us; None if absent."""
    m = re.search(what + r" time total: ([0-9.]+)(us|ms|s)\b", text)
    if not m:
        return None
    return float(m.group(1)) * {"us": 1.0, "ms": 1e3, "s": 1e6}[m.group(2)]


def attention_rules(inspected, spec, steps, cuda):
    """(f): `attnwb inspect --attention --json` of PyTorch's trace of one case against its spec."""
    att = inspected.get("attention") or {}
    calls = att.get("calls", [])
    if spec["variant"] == "chunked":
        return [Verdict("attention calls", "n/a", f"chunked: its blocks are matmuls of [block, block] ({len(calls)} found)")]
    b, h, hkv, n, d = spec["batch"], spec["heads"], spec["kv_heads"], spec["seq_q"], spec["head_dim"]
    want = dict(batch=b, heads_q=h, seq_q=n, seq_k=spec["seq_k"], head_dim=d)
    fwd = [c for c in calls if c["pass"] == "forward"]
    bwd = [c for c in calls if c["pass"] == "backward"]
    out = []
    wrong = [c for c in calls if any(c.get(k) != v for k, v in want.items())]
    expect_bwd = steps if spec["mode"] == "train" else 0
    ok = len(fwd) == steps and len(bwd) == expect_bwd and not wrong
    out.append(Verdict("attention calls", "pass" if ok else "fail",
                       f"{len(fwd)} forward and {len(bwd)} backward calls (expected {steps} and {expect_bwd}), "
                       f"{len(wrong)} with a shape other than {b}x{h}x{n}x{d}", forward=len(fwd), backward=len(bwd)))
    if spec["variant"] != "manual" and fwd and any(c.get("heads_kv") != hkv for c in fwd):
        out.append(Verdict("attention kv heads", "fail", f"Hkv {fwd[0].get('heads_kv')} instead of {hkv}"))
    flops = 4.0 * b * h * n * spec["seq_k"] * d
    bad = [c["flops"] for c in fwd if abs(c["flops"] - flops) > 1e-9 * flops]
    out.append(Verdict("attention FLOPs", "fail" if bad else "pass",
                       f"forward {flops / 1e9:.3f} GFLOP per call" + (f"; got {bad[:3]}" if bad else ""), flops=flops))
    if cuda and calls:
        kernels_us = sum(k.get("total_us", 0.0) for k in inspected.get("kernels", []))
        device_us = sum(c["device_us"] for c in calls)
        none = [c for c in calls if c["device_us"] <= 0]
        ok = not none and device_us <= kernels_us * 1.0001 + 1
        out.append(Verdict("attention device time", "pass" if ok else "fail",
                           f"{device_us:.1f} us of the trace's {kernels_us:.1f} us of kernels; {len(none)} calls without kernels",
                           device_us=device_us, kernels_us=kernels_us))
        roofs = att.get("roofs", [])
        rates = ", ".join(f"{c['pass']} {c['tflops_per_s']:.1f} TFLOP/s" for c in calls[:2])
        out.append(Verdict("attention rates", "info", rates + (f" under {roofs[0]['device']} {roofs[0]['dtype']} "
                                                                f"{roofs[0]['peak_tflops']:.0f} TFLOP/s" if roofs else ", no roof")))
    return out
