"""What the GPU check runs: the specs of steps (b)-(d), on the H200 and, scaled down, on the
CPU for a rehearsal of the pipeline on a machine without a GPU (--cpu-rehearsal)."""
import rules

ARTICLE = dict(batch=2, heads=8, kv_heads=8, seq_q=512, seq_k=512, head_dim=64, mode="train", mask="none",
               layout="bhnd", sdpa_backend="auto", block_size=128, seed=7, threads=0)
PROFILE_OPTIONS = dict(wait=1, warmup=1, active=3, repeat=1, record_shapes=True, profile_memory=True)
SPEC_FLAGS = [("variant", "--variant"), ("batch", "--batch"), ("heads", "--heads"), ("kv_heads", "--kv-heads"),
              ("seq_q", "--seq-q"), ("seq_k", "--seq-k"), ("head_dim", "--head-dim"), ("dtype", "--dtype"),
              ("device", "--device"), ("mode", "--mode"), ("mask", "--mask"), ("layout", "--layout"),
              ("sdpa_backend", "--sdpa-backend"), ("block_size", "--block-size"), ("seed", "--seed")]


class Workloads:
    def __init__(self, device):
        self.device = device
        self.gpu = device == "cuda"
        self.bench_budget = 1.5 if self.gpu else 1.0

    def spec(self, **fields):
        base = dict(ARTICLE, device=self.device, dtype="float16" if self.gpu else "float32")
        if not self.gpu:  # the rehearsal: small enough for a 2-core CI machine
            base.update(batch=1, heads=4, kv_heads=4, seq_q=256, seq_k=256)
        base.update(fields)
        return base

    @staticmethod
    def spec_args(spec):
        return [a for key, flag in SPEC_FLAGS if key in spec for a in (flag, str(spec[key]))]

    @staticmethod
    def profile_option_args(o):
        return ["--wait", str(o["wait"]), "--warmup", str(o["warmup"]), "--active", str(o["active"]), "--repeat",
                str(o["repeat"]), "--record-shapes" if o["record_shapes"] else "--no-record-shapes",
                "--profile-memory" if o["profile_memory"] else "--no-profile-memory"]

    def backends(self):
        return ["math", "efficient", "flash", "cudnn"] if self.gpu else ["math", "flash"]

    # (b) the article's workload (fp16, (2, 8, 512, 64), train) for every variant and SDPA backend
    def profile_cases(self):
        cases = [("manual", self.spec(variant="manual"))]
        cases += [(f"sdpa-{b}", self.spec(variant="sdpa", sdpa_backend=b)) for b in self.backends()]
        cases += [("chunked", self.spec(variant="chunked"))]
        return [{"name": n, "spec": s, "options": PROFILE_OPTIONS} for n, s in cases]

    # (c) sdpa flash in bf16 at (4, 16, 8192, 128)
    def bench_spec(self, mode):
        if self.gpu:
            return self.spec(variant="sdpa", sdpa_backend="flash", dtype="bfloat16", batch=4, heads=16, kv_heads=16,
                             seq_q=8192, seq_k=8192, head_dim=128, mode=mode)
        return self.spec(variant="sdpa", sdpa_backend="flash", batch=1, heads=4, kv_heads=4, seq_q=1024, seq_k=1024, mode=mode)

    def tflops_goal(self, mode):
        return 300.0 if self.gpu and mode == "forward" else None  # FlashAttention-2 reaches ~335 on an H100

    # (d) N = 1K..32K, manual / sdpa / chunked, bf16 and fp16, with the CUDA peak
    def sweep_args(self):
        if self.gpu:
            # Blocks of 1024 keep the chunked loop's launches few enough (32 x 32 blocks at 32K) for the
            # time the check has; memory stays linear in N.
            return ["--device", "cuda", "--seq", "1024,2048,4096,8192,16384,32768", "--variants", "manual,sdpa,chunked",
                    "--dtypes", "bfloat16,float16", "--block-size", "1024", "--memory", "--warmup", "1",
                    "--budget", "0.3", "--min-repeats", "3"]
        return ["--device", "cpu", "--seq", "128,256,512", "--variants", "manual,sdpa,chunked", "--dtypes", "float32,bfloat16",
                "--batch", "1", "--heads", "2", "--block-size", "64", "--memory", "--warmup", "1", "--budget", "0.1",
                "--min-repeats", "2"]

    def sweep_verdicts(self, sweep, seconds):
        points = sweep["points"]
        by_status = {}
        for p in points:
            by_status.setdefault(p["status"], []).append(p)
        label = lambda p: f"{p['spec']['variant']} {p['spec']['dtype']} N={p['spec']['seq_q']}"
        out = [rules.Verdict("sweep points", "fail" if by_status.get("failed") or not by_status.get("ok") else "pass",
                             f"{len(points)} points in {seconds:.0f} s: " +
                             ", ".join(f"{len(v)} {k}" for k, v in sorted(by_status.items())) +
                             "".join(f"; failed {label(p)}: {p['reason'][:160]}" for p in by_status.get("failed", [])[:3]),
                             points=len(points))]
        refused = by_status.get("refused", [])
        oom = [p for p in by_status.get("failed", []) if "out of memory" in p["reason"].lower()]
        by_validation = [p for p in refused if p["reason"].startswith("memory")]
        if refused or oom:
            ok = not oom and len(by_validation) == len(refused)
            out.append(rules.Verdict("refused before allocating", "pass" if ok else "fail",
                                     f"refused by validation: {', '.join(label(p) for p in by_validation) or 'none'}; "
                                     f"out-of-memory failures: {', '.join(label(p) for p in oom) or 'none'}",
                                     refused=[label(p) for p in refused]))
        else:
            out.append(rules.Verdict("refused before allocating", "n/a", "every point fits on this device"))
        # Peak memory vs N: the fused and blockwise variants never hold [N, N]; manual does.
        for f in sweep["fits"]:
            series, metric, fit = f["series"], f["metric"], f["fit"]
            text = f"{series}: {metric} ~ N^{fit['exponent']:.2f} (R^2 {fit['r_squared']:.3f}, {fit['points']} points)"
            if metric == "peak_bytes" and fit["points"] >= 3:
                linear = not series.startswith("manual")
                ok = fit["exponent"] <= 1.3 if linear else fit["exponent"] >= 1.5
                out.append(rules.Verdict(f"memory exponent {series.split(' ')[0]} {series.split(' ')[1]}",
                                         "pass" if ok else "fail",
                                         text + (" (expected <= 1.3: never holds [N, N])" if linear else " (expected >= 1.5: holds [N, N])"),
                                         exponent=fit["exponent"]))
            else:
                out.append(rules.Verdict(f"{metric} exponent", "info", text, exponent=fit["exponent"]))
        for c in sweep.get("crossovers", []):
            out.append(rules.Verdict("crossover", "info", f"{c['metric']}: {c['series_a']} vs {c['series_b']} cross near "
                                     f"N = {c['n']:.0f}" + (" (within noise)" if c.get("within_noise") else "")))
        return out

    # attnwb check for every variant and dtype, and for each SDPA backend
    def check_runs(self):
        runs = [(d, ["--device", self.device, "--dtype", d] + ([] if self.gpu else ["--batch", "1", "--heads", "2", "--seq", "128"]))
                for d in ("float32", "float64", "float16", "bfloat16")]
        runs += [(f"sdpa-{b}", ["--device", self.device, "--variants", "sdpa", "--variant", "sdpa", "--sdpa-backend", b,
                                "--dtype", "float16" if self.gpu else "float32"] +
                  ([] if self.gpu else ["--batch", "1", "--heads", "2", "--seq", "128"])) for b in self.backends()]
        return runs
