"""The GPU check: build attnwb on the lent H200 and measure it against PyTorch there.

scripts/gpu-check.sh is the entry point; see its header for how to run it (here and on the device).
Steps, each with its own time limit; the whole check stops starting new steps when its budget is
spent, and writes what it has. Everything measured goes under --out (at most 8 files):
  summary.md, summary.json   every check: pass / fail / n/a / skipped, one line why, the figures
  logs.tar.gz                configure, build, ctest and every command's output
  profile.tar.gz             (b) and (e): attnwb's reports, traces and Kineto traces, PyTorch's tables
                             and traces, attnwb inspect of each trace
  bench.tar.gz               (c): attnwb bench and torch.utils.benchmark results, the GEMM roof
  sweep.tar.gz               (d): the sweep (JSON, CSV) and every attnwb check report
  modules.tar.gz             (g): the users' modules, profiled and checked
  snapshots.tar.gz           (h): the CUDA memory snapshots recorded by PyTorch and by attnwb (fixtures for
                             tests/fixtures/memory_snapshots/gpu/, a README saying what each is), attnwb
                             inspect's JSON, the plain-Python replay and memory_viz's summaries of each
The orchestrator never imports torch: PyTorch's side runs in tests/reference/gpu_reference.py, in its
own process, so that this process holds no GPU memory while attnwb runs.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import time
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import deps  # noqa: E402
import rules  # noqa: E402
import snapshots  # noqa: E402
from workloads import Workloads  # noqa: E402

REFERENCE = os.path.join(REPO, "tests", "reference", "gpu_reference.py")
SNAPSHOT_TORCH = os.path.join(HERE, "snapshot_torch.py")
SNAPSHOT_FIXTURES = os.path.join(REPO, "tests", "fixtures", "memory_snapshots")

# name, what it does, expected seconds on the H200 (16 cores), limit in seconds
STEPS = [
    ("env", "machine: GPU, driver, torch, nvcc, cmake, compiler", 5, 60),
    ("configure", "cmake: core + attnwb + core tests, AWB_BUILD_GUI=OFF, against python3's torch, carried deps", 30, 240),
    ("build", "ninja attnwb awb_core_tests awb_engine_tests on every core", 90, 480),
    ("tests", "(a) core tests (ctest -L core), the GPU-only ones included", 30, 240),
    ("profile", "(b) attnwb profile vs torch.profiler: manual, sdpa x {math, efficient, flash, cudnn}, chunked", 35, 300),
    ("inspect", "(e) attnwb inspect of the Kineto and PyTorch traces vs the tables of the same profiles; (f) the attention "
                "calls in PyTorch's traces (shapes, FLOPs, device time, % of the H200's roof)", 12, 120),
    ("snapshots", "(h) CUDA memory snapshots of the article's workload (manual, sdpa; fp16 train) recorded by PyTorch "
                  "(_record_memory_history, _dump_snapshot) and by attnwb profile --memory-snapshot; attnwb inspect of "
                  "each vs a plain-Python replay of its device_traces and memory_viz's segsum and trace; attnwb's "
                  "allocations placed in its own trace's operators (inspect --trace)", 30, 150),
    ("bench", "(c) attnwb bench vs torch.utils.benchmark, sdpa flash bf16 (4, 16, 8192, 128) fwd + train, GEMM roof", 30, 240),
    ("modules", "(g) users' modules on the device: the TorchScript fixtures (profile + check, train), a .pt2 AOT-compiled "
                "here for it by scripts/export_attention.py (profile + check, forward), a CPU .pt2 refused", 75, 240),
    ("sweep", "(d) sweep N = 1K..32K manual/sdpa/chunked bf16 + fp16 with CUDA peak; attnwb check per dtype/backend "
              "(the sweep is stopped like Ctrl-C when the budget runs out: what finished is kept)", 70, 360),
]
GPU_STEPS = {"profile", "bench", "sweep", "inspect", "modules", "snapshots"}


class Check:
    def __init__(self, args):
        self.args = args
        self.t0 = time.monotonic()
        self.out = os.path.abspath(args.out)
        self.work = os.path.join(os.path.abspath(args.build_dir), "gpu-check")
        self.build = os.path.abspath(args.build_dir)
        self.attnwb_bin = os.path.join(self.build, "app", "attnwb")
        self.verdicts = []      # {step, rule, status, detail, figures}
        self.steps = []         # {step, status, seconds, note}
        self.env = {}
        self.gpu = False
        self.device = "cuda"
        self.load = None
        self.run_env = None        # LD_LIBRARY_PATH for the prebuilt attnwb, when the build failed
        self.built_here = False    # the core tests need the build made here

    # ---- bookkeeping ------------------------------------------------------------------------------
    def elapsed(self):
        return time.monotonic() - self.t0

    def add(self, step, verdicts):
        for v in verdicts:
            v = dict(v, step=step)
            self.verdicts.append(v)
            mark = {"pass": "PASS", "fail": "FAIL", "n/a": "n/a ", "skipped": "SKIP", "info": "info"}.get(v["status"], v["status"])
            print(f"  [{mark}] {v['rule']}: {v['detail']}", flush=True)

    def run(self, cmd, log, limit, interrupt_after=None):
        """Runs cmd with its output in work/logs/<log>; returns (rc, seconds). rc 124: killed at its limit.
        interrupt_after: seconds after which it gets SIGINT (attnwb sweep then stops after the current
        point and still writes what finished), then the rest of its limit to finish."""
        os.makedirs(os.path.join(self.work, "logs"), exist_ok=True)
        path = os.path.join(self.work, "logs", log)
        # No command outlives the budget by more than the margin the device call's timeout leaves.
        limit = max(10.0, min(limit, self.args.budget + 40 - self.elapsed()))
        t = time.monotonic()
        with open(path, "a") as f:
            f.write("$ " + " ".join(cmd) + "\n")
            f.flush()
            p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=REPO,
                                 env=dict(os.environ, **self.run_env) if self.run_env else None)
            try:
                if interrupt_after is not None and interrupt_after < limit:
                    try:
                        p.wait(timeout=max(1.0, interrupt_after))
                    except subprocess.TimeoutExpired:
                        f.write(f"\n[gpu-check] interrupted (SIGINT) after {interrupt_after:.0f} s: the budget is spent\n")
                        f.flush()
                        p.send_signal(signal.SIGINT)
                rc = p.wait(timeout=max(1.0, limit - (time.monotonic() - t)))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
                f.write(f"\n[gpu-check] killed after its limit of {limit} s\n")
                rc = 124
        return rc, time.monotonic() - t

    def tail(self, log, lines=15):
        path = os.path.join(self.work, "logs", log)
        return "".join(open(path, errors="replace").readlines()[-lines:]) if os.path.exists(path) else ""

    def python(self, code):
        r = subprocess.run([self.args.python, "-c", code], capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise RuntimeError(f"{self.args.python} failed: {r.stderr.strip().splitlines()[-1:]}")
        return json.loads(r.stdout.strip().splitlines()[-1])

    # ---- steps ------------------------------------------------------------------------------------
    def step_env(self):
        probe = ("import json, torch, torch.utils; c = torch.cuda.is_available(); "
                 "print(json.dumps(dict(torch=torch.__version__, cuda_built=torch.version.cuda, gpu=c, "
                 "devices=[torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())] if c else [], "
                 "capability=list(torch.cuda.get_device_capability(0)) if c else [], "
                 "memory_gib=torch.cuda.get_device_properties(0).total_memory / 2**30 if c else 0, "
                 "cudnn=torch.backends.cudnn.version() if c else None, cmake_prefix=torch.utils.cmake_prefix_path)))")
        self.env["python"] = self.args.python
        self.env.update(self.python(probe))
        tools = {"nvcc": ["nvcc", "--version"], "cmake": ["cmake", "--version"], "ninja": ["ninja", "--version"], "ctest": ["ctest", "--version"],
                 "c++": ["c++", "--version"], "nvidia-smi": ["nvidia-smi", "--query-gpu=name,driver_version,memory.total,"
                                                              "clocks.max.sm,clocks.sm", "--format=csv,noheader"]}
        for name, cmd in tools.items():
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
                lines = [l for l in (r.stdout or r.stderr).strip().splitlines() if l.strip()]
                self.env[name] = lines[-1] if name in ("nvcc", "nvidia-smi") else lines[0]
            except (OSError, subprocess.TimeoutExpired) as e:
                self.env[name] = f"not found ({e.__class__.__name__})"
        self.env["cores"] = os.cpu_count()
        for k, v in self.env.items():
            print(f"  {k}: {v}")
        self.gpu = bool(self.env["gpu"])
        if self.env["c++"].startswith("not found"):  # CMake finds g++ or clang++ by those names too
            for alt in ("g++", "clang++"):
                if shutil.which(alt):
                    self.env["c++"] = alt + ": " + subprocess.run([alt, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
                    break
        missing_tools = [t for t in ("nvcc", "cmake", "ninja", "ctest", "c++") if self.env.get(t, "").startswith("not found")]
        verdicts = [rules.Verdict("torch", "pass" if self.env["torch"].startswith("2.") else "fail",
                                  f"{self.args.python}: torch {self.env['torch']}, CUDA {self.env['cuda_built']}"),
                    rules.Verdict("tools", "fail" if missing_tools else "pass",
                                  f"missing: {missing_tools}" if missing_tools else "nvcc, cmake, ctest, ninja and a C++ compiler found")]
        if self.gpu:
            verdicts.append(rules.Verdict("GPU", "pass", f"{self.env['devices'][0]}, compute "
                                          f"{'.'.join(map(str, self.env['capability']))}, {self.env['memory_gib']:.0f} GiB"))
        else:
            verdicts.append(rules.Verdict("GPU", "n/a", f"no CUDA GPU visible to {self.args.python} "
                                          f"(torch {self.env['torch']}, CUDA {self.env['cuda_built']}): steps (b)-(e) need one "
                                          + ("and run on the CPU instead (--cpu-rehearsal): not a GPU result"
                                             if self.args.cpu_rehearsal else "and are skipped, not passed")))
        self.add("env", verdicts)
        self.device = "cuda" if self.gpu else "cpu"
        self.load = Workloads(self.device)
        return not missing_tools

    def step_configure(self):
        gone = deps.missing(REPO)
        if gone:
            self.add("configure", [rules.Verdict("carried deps", "fail", f".gpu-deps lacks {gone[:3]}...: run "
                                                 "scripts/gpu-check.sh --prepare here and carry .gpu-deps")])
            return False
        cmd = ["cmake", "-S", REPO, "-B", self.build, "-G", "Ninja", "-DAWB_BUILD_GUI=OFF",
               f"-DAWB_TORCH_PYTHON={shutil.which(self.args.python) or self.args.python}", "-DCMAKE_BUILD_TYPE=RelWithDebInfo"] + deps.cmake_args(REPO)
        if self.args.cmake_arg:
            cmd += self.args.cmake_arg
        rc, secs = self.run(cmd, "configure.log", 240)
        log = open(os.path.join(self.work, "logs", "configure.log"), errors="replace").read()
        verdicts = [rules.Verdict("configure", "pass" if rc == 0 else "fail", f"cmake exit {rc} in {secs:.0f} s" +
                                  ("" if rc == 0 else ":\n" + self.tail("configure.log")), seconds=secs)]
        if rc == 0:
            cuda = "CUDA LibTorch found, building the CUDA path" in log
            verdicts.append(rules.Verdict("CUDA path", "pass" if cuda else "fail",
                                          "AWB_WITH_CUDA on" if cuda else "the wheel's LibTorch has no CUDA here"))
            cache = open(os.path.join(self.build, "CMakeCache.txt")).read()
            root = deps.deps_root(REPO)
            foreign = [line for line in cache.splitlines()
                       if line.split(":")[0] in ("nlohmann_json_DIR", "CLI11_DIR", "simdjson_DIR", "GTest_DIR", "ZLIB_LIBRARY_RELEASE",
                                                  "ZLIB_LIBRARY", "ZLIB_INCLUDE_DIR") and root not in line]
            verdicts.append(rules.Verdict("carried deps used", "fail" if foreign else "pass",
                                          f"found outside .gpu-deps: {foreign}" if foreign else
                                          "JSON, CLI11, simdjson, zlib and GoogleTest come from .gpu-deps"))
        self.add("configure", verdicts)
        return rc == 0

    def step_build(self):
        cmd = ["cmake", "--build", self.build, "-j", str(self.args.jobs or os.cpu_count()), "--target", "attnwb", "awb_core_tests", "awb_engine_tests"]
        rc, secs = self.run(cmd, "build.log", 480)
        log = open(os.path.join(self.work, "logs", "build.log"), errors="replace").read().splitlines()
        ours = [l for l in log if "warning:" in l and any(f"/{d}/" in l for d in ("core", "app", "tests"))
                and "site-packages" not in l]
        self.env["build_seconds"] = round(secs, 1)
        self.built_here = rc == 0
        self.add("build", [rules.Verdict("build", "pass" if rc == 0 else "fail", f"ninja exit {rc} in {secs:.0f} s"
                                         + ("" if rc == 0 else ":\n" + self.tail("build.log", 25)), seconds=secs),
                           rules.Verdict("warnings", "pass" if not ours else "fail",
                                         f"{len(ours)} warnings in our code" + (f": {ours[:3]}" if ours else ""))])
        return rc == 0 or self.use_prebuilt()

    def use_prebuilt(self):
        """The attnwb built elsewhere against the same torch wheel (.gpu-deps/prebuilt), run with this
        machine's torch libraries: steps (b)-(e) still measure; the core tests are not run."""
        exes = [os.path.join(deps.prebuilt_dir(REPO), name) for name in deps.PREBUILT]
        if not all(os.path.exists(exe) for exe in exes):
            return False
        os.makedirs(os.path.dirname(self.attnwb_bin), exist_ok=True)
        for exe in exes:  # attnwb starts attnwb-engine from its own folder
            shutil.copy2(exe, os.path.join(os.path.dirname(self.attnwb_bin), os.path.basename(exe)))
        torch_lib = os.path.normpath(os.path.join(self.env["cmake_prefix"], "..", "..", "lib"))
        paths = [torch_lib, os.path.join(deps.deps_root(REPO), deps.ARCH_LIB), "/usr/local/cuda/lib64", "/usr/local/cuda/lib"]
        self.run_env = {"LD_LIBRARY_PATH": ":".join(paths + [os.environ.get("LD_LIBRARY_PATH", "")])}
        built = open(os.path.join(deps.prebuilt_dir(REPO), "BUILT")).read().strip()
        rc, _ = self.run([self.attnwb_bin, "--help"], "prebuilt.log", 30)
        self.add("build", [rules.Verdict("prebuilt attnwb", "info" if rc == 0 else "fail",
                                         f"the build failed: (b)-(e) use the prebuilt attnwb ({built}), built against the same "
                                         f"torch wheel, with this machine's LibTorch (--help exit {rc}); the core tests need the build")])
        return rc == 0

    def step_tests(self):
        if not self.built_here:
            self.add("tests", [rules.Verdict("core tests", "skipped", "not built on this machine (see build)")])
            return True
        junit = os.path.join(self.work, "ctest.xml")
        cmd = ["ctest", "--test-dir", self.build, "-L", "^(core|engine)$", "-j", str(min(8, os.cpu_count() or 2)),
               "--timeout", "180", "--output-on-failure", "--output-junit", junit]
        rc, secs = self.run(cmd, "ctest.log", 240)
        counts = {"passed": 0, "failed": 0, "skipped": 0}
        gpu_only = {}
        if os.path.exists(junit):
            for case in ET.parse(junit).getroot().iter("testcase"):
                status = case.get("status", "run")
                state = "skipped" if status in ("disabled", "notrun") or case.find("skipped") is not None else \
                        "failed" if case.find("failure") is not None or status == "fail" else "passed"
                counts[state] += 1
                if case.get("name", "").startswith("CudaGpu."):
                    gpu_only[case.get("name")] = state
        self.env["tests"] = counts
        verdicts = [rules.Verdict("core tests", "pass" if rc == 0 and counts["failed"] == 0 and counts["passed"] > 0 else "fail",
                                  f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped in "
                                  f"{secs:.0f} s (ctest exit {rc})" + ("" if rc == 0 else ":\n" + self.tail("ctest.log", 25)),
                                  seconds=secs, **counts)]
        if self.gpu:
            ran = all(s == "passed" for s in gpu_only.values()) and gpu_only
            verdicts.append(rules.Verdict("GPU-only tests", "pass" if ran else "fail",
                                          ", ".join(f"{n} {s}" for n, s in sorted(gpu_only.items())) or "none found"))
        else:
            verdicts.append(rules.Verdict("GPU-only tests", "n/a", f"{len(gpu_only)} skipped: no GPU "
                                          f"({', '.join(sorted(gpu_only))})"))
        self.add("tests", verdicts)
        return True

    def attnwb(self, args, log, limit=120, interrupt_after=None):
        return self.run([self.attnwb_bin] + args, log, limit, interrupt_after)

    def step_profile(self):
        d = os.path.join(self.work, "profile")
        os.makedirs(d, exist_ok=True)
        cases = self.load.profile_cases()
        with open(os.path.join(d, "cases.json"), "w") as f:
            json.dump(cases, f, indent=1)
        ours = {}
        for c in cases:
            n = c["name"]
            rc, secs = self.attnwb(["profile", "-q", "--rows", "0", "--json", f"{d}/{n}.ours.json", "--trace",
                                    f"{d}/{n}.ours.trace.json", "--kineto-trace", f"{d}/{n}.kineto.json"] +
                                   self.load.spec_args(c["spec"]) + self.load.profile_option_args(c["options"]),
                                   f"profile.{n}.log")
            ours[n] = rc
        rc, secs = self.run([self.args.python, REFERENCE, "profile", os.path.join(d, "cases.json"), d], "profile.reference.log", 300)
        if rc != 0:
            self.add("profile", [rules.Verdict("PyTorch reference", "fail", f"gpu_reference.py exit {rc}:\n" +
                                               self.tail("profile.reference.log"))])
            return True
        for c in cases:
            n = c["name"]
            ref = json.load(open(f"{d}/{n}.ref.json"))
            if ours[n] == 2 or "refused" in ref:  # attnwb: bad input (an sdpa backend without a kernel)
                why = self.tail(f"profile.{n}.log", 3).strip().replace("\n", " ")
                both = ours[n] == 2 and "refused" in ref
                self.add("profile", [rules.Verdict(f"{n}", "pass" if both else "fail",
                                                   f"{'both refuse' if both else 'only one side refuses'}: attnwb (exit {ours[n]}) "
                                                   f"{why[:300]} | PyTorch: {ref.get('refused', 'ran')[:200]}")])
                continue
            if ours[n] != 0:
                self.add("profile", [rules.Verdict(n, "fail", f"attnwb profile exit {ours[n]}:\n" + self.tail(f"profile.{n}.log"))])
                continue
            rc, _ = self.attnwb(["inspect", "-q", "--rows", "0", "--json", f"{d}/{n}.ours.inspect.json", f"{d}/{n}.ours.trace.json"],
                                f"profile.{n}.log")
            kernels = json.load(open(f"{d}/{n}.ours.inspect.json"))["traces"][0]["kernels"] if rc == 0 else []
            report = json.load(open(f"{d}/{n}.ours.json"))
            # The footer attnwb printed is what a user reads: that is the number compared with torch's.
            printed = rules.printed_total(open(os.path.join(self.work, "logs", f"profile.{n}.log"), errors="replace").read())
            if printed is not None:
                report["self_cuda_total_us"] = printed
            print(f"  -- {n}", flush=True)
            self.add("profile", [dict(v, rule=f"{n}: {v['rule']}") for v in
                                 rules.profile_rules(report, kernels, ref, self.gpu)])
        return True

    def step_bench(self):
        d = os.path.join(self.work, "bench")
        os.makedirs(d, exist_ok=True)
        for mode in ("forward", "train"):
            spec = self.load.bench_spec(mode)
            with open(f"{d}/{mode}.spec.json", "w") as f:
                json.dump(spec, f)
            rc, _ = self.attnwb(["bench", "-q", "--no-overhead", "--budget", str(self.load.bench_budget), "--json",
                                 f"{d}/{mode}.ours.json"] + self.load.spec_args(spec), f"bench.{mode}.log", 180)
            ref_args = [self.args.python, REFERENCE, "bench", f"{d}/{mode}.spec.json", f"{d}/{mode}.timer.json",
                        "--min-run-time", str(self.load.bench_budget)] + (["--roof"] if mode == "train" and self.gpu else [])
            rrc, _ = self.run(ref_args, f"bench.{mode}.reference.log", 180)
            if rc != 0 or rrc != 0:
                self.add("bench", [rules.Verdict(f"{mode}", "fail", f"attnwb exit {rc}, reference exit {rrc}:\n" +
                                                 self.tail(f"bench.{mode}.log") + self.tail(f"bench.{mode}.reference.log"))])
                continue
            ours = json.load(open(f"{d}/{mode}.ours.json"))["result"]
            timer = json.load(open(f"{d}/{mode}.timer.json"))
            roof = timer.get("bf16_gemm_roof")
            if roof:
                self.add("bench", [rules.Verdict("bf16 GEMM roof", "pass", f"{roof['tflops']:.1f} TFLOP/s "
                                                 f"({roof['n']}^3, {roof['ms']:.3f} ms, CUDA events)", **roof)])
            goal = self.load.tflops_goal(mode)
            self.add("bench", [dict(v, rule=f"{mode}: {v['rule']}") for v in rules.bench_rules(ours, timer, goal, roof, cuda=self.gpu)])
        return True

    def module_runs(self, d, name, path, mode, verdicts, expect_refusal=""):
        """attnwb profile and check of one module file at the article's shape; verdicts appended."""
        spec = self.load.spec(variant=path, mode=mode)
        rc, secs = self.attnwb(["profile", "-q", "--rows", "20", "--json", f"{d}/{name}.profile.json"] + self.load.spec_args(spec),
                               f"modules.{name}.log", 120)
        log = open(os.path.join(self.work, "logs", f"modules.{name}.log"), errors="replace").read()
        if expect_refusal:
            ok = rc == 2 and expect_refusal in log
            verdicts.append(rules.Verdict(f"{name}: refused", "pass" if ok else "fail",
                                          f"exit {rc}: " + self.tail(f"modules.{name}.log", 3).strip().replace("\n", " ")[-300:]))
            return
        total = rules.printed_total(log, "Self CUDA" if self.gpu else "Self CPU")
        ok = rc == 0 and total is not None and total > 0
        verdicts.append(rules.Verdict(f"{name}: profile {mode}", "pass" if ok else "fail",
                                      f"exit {rc} in {secs:.0f} s, {'Self CUDA' if self.gpu else 'Self CPU'} total "
                                      f"{total if total is not None else '?'} us" + ("" if ok else ":\n" + self.tail(f"modules.{name}.log")),
                                      total_us=total))
        rc, _ = self.attnwb(["check", "-q", "--json", f"{d}/{name}.check.json"] + self.load.spec_args(spec),
                            f"modules.{name}.check.log", 120)
        worst = ""
        if os.path.exists(f"{d}/{name}.check.json"):
            worst = next((c["reason"] for c in json.load(open(f"{d}/{name}.check.json"))["checklist"]
                          if c["id"] == "numerical"), "")
        verdicts.append(rules.Verdict(f"{name}: check", "pass" if rc == 0 else "fail",
                                      f"exit {rc}: {worst[:400]}" if worst else f"exit {rc}:\n" + self.tail(f"modules.{name}.check.log")))

    def step_modules(self):
        d = os.path.join(self.work, "modules")
        os.makedirs(d, exist_ok=True)
        os.environ["PYTHONFAULTHANDLER"] = "1"  # a crash while exporting prints python's stack
        fx = os.path.join(REPO, "tests", "fixtures", "modules", "torch2")
        verdicts = []
        for stem in ("softcap", "manual_like"):
            self.module_runs(d, f"{stem}.pt", os.path.join(fx, stem + ".pt"), "train", verdicts)
        if self.gpu:  # the fixtures' .pt2 hold CPU code
            self.module_runs(d, "manual_like.pt2-cpu-on-cuda", os.path.join(fx, "manual_like.pt2"), "forward", verdicts,
                             expect_refusal="compiled for cpu")
        spec = self.load.spec()
        rc, secs = self.run([self.args.python, os.path.join(REPO, "scripts", "export_attention.py"),
                             os.path.join(REPO, "examples", "softcap.py") + ":softcap", "--semantics", "custom",
                             "--device", self.device, "--dtype", spec["dtype"], "--batch", str(spec["batch"]),
                             "--heads", str(spec["heads"]), "--head-dim", str(spec["head_dim"]), "--seq-min", "16",
                             "--seq-max", "4096", "--name", "softcap_here", "--out", d], "modules.export.log", 200)
        pt2 = os.path.join(d, "softcap_here.pt2")
        verdicts.append(rules.Verdict(f"export .pt2 for {self.device}", "pass" if rc == 0 and os.path.exists(pt2) else "fail",
                                      f"exit {rc} in {secs:.0f} s: " + self.tail("modules.export.log", 4).strip().replace("\n", " | ")[-400:],
                                      seconds=secs))
        if os.path.exists(pt2):
            self.module_runs(d, "softcap_here.pt2", pt2, "forward", verdicts)
        self.add("modules", verdicts)
        return True

    def step_sweep(self):
        d = os.path.join(self.work, "sweep")
        os.makedirs(d, exist_ok=True)
        # The checks below take ~25 s: the sweep gets what is left of the budget before them.
        left = self.args.budget - self.elapsed() - 25
        rc, secs = self.attnwb(["sweep", "-q", "--json", f"{d}/sweep.json", "--csv", f"{d}/sweep.csv"] + self.load.sweep_args(),
                               "sweep.log", 330, interrupt_after=max(20.0, left))
        verdicts = []
        if rc == 130:
            verdicts.append(rules.Verdict("sweep cut short", "info", f"stopped after {secs:.0f} s when the budget ran out; "
                                          "the points that finished are kept"))
        if rc not in (0, 130) or not os.path.exists(f"{d}/sweep.json"):
            verdicts.append(rules.Verdict("sweep", "fail", f"attnwb sweep exit {rc}:\n" + self.tail("sweep.log")))
        else:
            verdicts += self.load.sweep_verdicts(json.load(open(f"{d}/sweep.json")), secs)
        self.add("sweep", verdicts)
        checks = []
        for name, args in self.load.check_runs():
            rc, _ = self.attnwb(["check", "-q", "--json", f"{d}/check.{name}.json"] + args, f"check.{name}.log", 120)
            worst = ""
            if os.path.exists(f"{d}/check.{name}.json"):
                worst = next((c["reason"] for c in json.load(open(f"{d}/check.{name}.json"))["checklist"]
                              if c["id"] == "numerical"), "")
            log = self.tail(f"check.{name}.log", 6)
            if rc == 2 and "sdpa_backend" in log:  # LibTorch has no kernel of that backend for the spec; (b) compares such refusals
                checks.append(rules.Verdict(f"check {name}", "n/a", "refused: " + log.strip().replace("\n", " ")[-300:]))
                continue
            checks.append(rules.Verdict(f"check {name}", "pass" if rc == 0 else "fail", f"exit {rc}: {worst[:600]}" if worst
                                        else f"exit {rc}:\n" + log))
        self.add("sweep", checks)
        return True

    def step_inspect(self):
        d = os.path.join(self.work, "profile")
        if not os.path.exists(f"{d}/cases.json"):
            self.add("inspect", [rules.Verdict("inspect", "fail", "no profiles from step (b)")])
            return True
        for c in json.load(open(f"{d}/cases.json")):
            n = c["name"]
            pairs = [("attnwb's Kineto trace vs its report", f"{d}/{n}.kineto.json", f"{d}/{n}.ours.json"),
                     ("PyTorch's trace vs its key_averages", f"{d}/{n}.ref.trace.json", f"{d}/{n}.ref.json"),
                     ("attnwb's Kineto trace vs PyTorch's key_averages", f"{d}/{n}.kineto.json", f"{d}/{n}.ref.json")]
            for what, trace, table in pairs:
                if not os.path.exists(trace) or not os.path.exists(table):
                    continue  # refused cases write no trace; step (b) said why
                out = trace.replace(".json", ".inspect.json")
                rc = 0 if os.path.exists(out) else self.attnwb(["inspect", "-q", "--rows", "0", "--json", out, trace],
                                                               f"inspect.{n}.log")[0]
                if rc != 0:
                    self.add("inspect", [rules.Verdict(f"{n}: {what}", "fail", f"attnwb inspect exit {rc}:\n" +
                                                       self.tail(f"inspect.{n}.log"))])
                    continue
                got = json.load(open(out))["traces"][0]
                tab = json.load(open(table))
                if "ref" in table and "kineto" in trace:  # two runs: (b)'s rules, the peak from attnwb's report
                    report = dict(operators=got["operators"], peak_memory_bytes=json.load(open(f"{d}/{n}.ours.json"))["peak_memory_bytes"])
                    self.add("inspect", [dict(v, rule=f"{n}: {what}: {v['rule']}") for v in
                                         rules.profile_rules(report, got["kernels"], tab, self.gpu)])
                    continue
                if what.startswith("PyTorch's trace"):  # (f) the attention calls in PyTorch's own trace
                    att = trace.replace(".json", ".attention.json")
                    rc = self.attnwb(["inspect", "-q", "--rows", "0", "--attention", "--json", att, trace], f"attention.{n}.log")[0]
                    steps = c["options"]["active"] * c["options"]["repeat"]
                    self.add("inspect", [dict(v, rule=f"{n}: {v['rule']}") for v in
                                           (rules.attention_rules(json.load(open(att))["traces"][0], c["spec"], steps, self.gpu)
                                            if rc == 0 else [rules.Verdict("attention", "fail", f"exit {rc}: " + self.tail(f"attention.{n}.log"))])])
                table_kernels = tab.get("kernels")
                if table_kernels is None:  # our report has no kernel list: the kernels of our own trace
                    ours_inspect = f"{d}/{n}.ours.inspect.json"
                    table_kernels = json.load(open(ours_inspect))["traces"][0]["kernels"] if os.path.exists(ours_inspect) else []
                self.add("inspect", [dict(v, rule=f"{n}: {what}: {v['rule']}") for v in
                                     rules.same_profile_rules(got["operators"], got["kernels"], tab["operators"],
                                                              table_kernels, self.gpu)])
        return True

    # ---- (h) memory snapshots ---------------------------------------------------------------------
    def snapshot_refusal(self, d):
        """attnwb profile --memory-snapshot of a CPU spec: one problem naming the option, nothing run or written."""
        spec = self.load.spec(variant="manual", device="cpu", dtype="float32", batch=1, heads=2, kv_heads=2, seq_q=64, seq_k=64)
        path = os.path.join(d, "refused.pickle")
        rc, _ = self.attnwb(["profile", "-q", "--memory-snapshot", path] + self.load.spec_args(spec), "snapshots.refused.log", 60)
        lines = self.tail("snapshots.refused.log", 8).strip().splitlines()
        said = next((line for line in lines if line.startswith("memory_snapshot:")), " | ".join(lines[-3:]))
        ok = rc == 2 and "--memory-snapshot records the CUDA caching allocator: use --device cuda" in said and not os.path.exists(path)
        return rules.Verdict("--memory-snapshot of a CPU run refused", "pass" if ok else "fail", f"exit {rc}: {said[-300:]}")

    def record_snapshots(self, d, verdicts):
        """The article's workload, manual and sdpa, recorded by attnwb profile --memory-snapshot and by PyTorch."""
        opts = self.load.profile_cases()[0]["options"]
        steps = (opts["wait"] + opts["warmup"] + opts["active"]) * opts["repeat"]
        files, cases = [], []
        for variant in ("manual", "sdpa"):
            spec = self.load.spec(variant=variant)
            path = os.path.join(d, f"{variant}.attnwb.pickle")
            trace = os.path.join(d, f"{variant}.attnwb.trace.json")  # the same run's profile, for the operators' allocations
            rc, secs = self.attnwb(["profile", "-q", "--rows", "5", "--memory-snapshot", path, "--trace", trace] +
                                   self.load.spec_args(spec) + self.load.profile_option_args(opts), f"snapshots.{variant}.attnwb.log", 120)
            said = f"wrote the CUDA memory snapshot {path}" in open(os.path.join(self.work, "logs", f"snapshots.{variant}.attnwb.log"),
                                                                      errors="replace").read()
            ok = rc == 0 and os.path.exists(path) and said
            verdicts.append(rules.Verdict(f"{variant}: attnwb profile --memory-snapshot", "pass" if ok else "fail",
                                          f"exit {rc} in {secs:.0f} s, {os.path.getsize(path) if os.path.exists(path) else 0} bytes"
                                          + ("" if said else ", where it went not said") + ("" if ok else ":\n" +
                                          self.tail(f"snapshots.{variant}.attnwb.log")), seconds=secs))
            if ok:
                files.append((f"{variant}.attnwb", path))
            cases.append({"name": variant, "spec": spec, "steps": steps})
        with open(os.path.join(d, "cases.json"), "w") as f:
            json.dump(cases, f, indent=1)
        rc, secs = self.run([self.args.python, SNAPSHOT_TORCH, "record", d, os.path.join(d, "cases.json")],
                            "snapshots.pytorch.log", 150)
        for c in cases:
            path = os.path.join(d, f"{c['name']}.pytorch.pickle")
            ok = rc == 0 and os.path.exists(path)
            verdicts.append(rules.Verdict(f"{c['name']}: PyTorch's _dump_snapshot", "pass" if ok else "fail",
                                          f"exit {rc} in {secs:.0f} s" + ("" if ok else ":\n" + self.tail("snapshots.pytorch.log"))))
            if ok:
                files.append((f"{c['name']}.pytorch", path))
        return files

    def compare_snapshot(self, name, path, viz=("segsum", "trace")):
        """attnwb inspect --json of one snapshot against the plain-Python replay and memory_viz's summaries (those in
        viz must have been made)."""
        base = path[:-3] if path.endswith(".gz") else path
        out = base + ".inspect.json"
        rc, _ = self.attnwb(["inspect", "-q", "--rows", "0", "--json", out, path], f"snapshots.{name}.inspect.log", 60)
        if rc != 0 or not os.path.exists(out):
            self.add("snapshots", [rules.Verdict(f"{name}: attnwb inspect", "fail", f"exit {rc}:\n" + self.tail(f"snapshots.{name}.inspect.log"))])
            return None
        inspected = json.load(open(out))["snapshots"][0]
        snapshot = snapshots.load(path)
        texts = [open(f"{base}.{k}.txt").read() if os.path.exists(f"{base}.{k}.txt") else None for k in ("segsum", "trace")]
        texts = [t if k in viz else None for k, t in zip(("segsum", "trace"), texts)]
        if "trace" not in viz:
            self.add("snapshots", [rules.Verdict(f"{name}: memory_viz trace", "n/a", "its trace needs the segments' "
                                                 "allocated_size, which a CPU profile's _profile_to_snapshot does not write")])
        missing = [k for k, t in zip(("segsum", "trace"), texts) if t is None and k in viz]
        if missing:
            self.add("snapshots", [rules.Verdict(f"{name}: memory_viz", "fail", f"memory_viz made no {' or '.join(missing)}: " +
                                                 self.tail("snapshots.viz.log", 4).strip().replace("\n", " | ")[-300:])])
        with open(base + ".replay.json", "w") as f:
            json.dump([snapshots.replay(snapshot, dev) for dev in snapshots.devices_of(snapshot)], f, indent=1)
        self.add("snapshots", snapshots.snapshot_rules(name, inspected, snapshot, *texts))
        return inspected

    def snapshot_operators(self, name, path, trace):
        """attnwb inspect SNAPSHOT --trace TRACE: the snapshot's allocations placed in the operators of the same run's
        trace (a snapshot's time_us and the trace's times both count from the epoch): most must fall inside one."""
        out = path + ".operators.json"
        rc, _ = self.attnwb(["inspect", "-q", "--rows", "5", "--json", out, path, "--trace", trace], f"snapshots.{name}.operators.log", 60)
        rule = f"{name}: allocations by operator (inspect --trace)"
        if rc != 0 or not os.path.exists(out):
            return rules.Verdict(rule, "fail", f"exit {rc}:\n" + self.tail(f"snapshots.{name}.operators.log"))
        ops = json.load(open(out))["snapshots"][0]["operators"] or {}
        placed, allocs = ops.get("in_operators", 0), ops.get("allocations", 0)
        top = ", ".join(f"{o['operator']} {o['bytes_at_peak']} B" for o in ops.get("operators", [])[:3])
        ok = not ops.get("problem") and allocs > 0 and placed >= allocs / 2
        return rules.Verdict(rule, "pass" if ok else "fail", f"{placed} of {allocs} allocations inside operators; holding the peak: "
                             f"{top or 'none'}" + (f"; {ops['problem']}" if ops.get("problem") else ""),
                             in_operators=placed, allocations=allocs, operators=ops.get("operators", [])[:10])

    def step_snapshots(self):
        d = os.path.join(self.work, "snapshots")
        os.makedirs(d, exist_ok=True)
        verdicts = [self.snapshot_refusal(d)]
        if self.gpu:
            files = self.record_snapshots(d, verdicts)
        else:
            verdicts.append(rules.Verdict("recorded snapshots", "skipped", "skipped: no CUDA (attnwb profile --memory-snapshot and "
                                          "torch.cuda.memory._record_memory_history record a GPU's allocator); the three "
                                          "readings are compared on the committed CPU fixtures instead"))
            files = []
            for variant in ("manual", "sdpa", "handmade"):
                path = os.path.join(d, f"{variant}.cpu-fixture.pickle")
                shutil.copy2(os.path.join(SNAPSHOT_FIXTURES, f"{variant}.p4.pickle"), path)
                files.append((f"{variant}.cpu-fixture", path))
            for name in ("manual.attnwb", "sdpa.attnwb", "manual.pytorch", "sdpa.pytorch"):  # a GPU run's, committed
                path = os.path.join(d, f"{name}.gpu-fixture.pickle")
                shutil.copy2(os.path.join(SNAPSHOT_FIXTURES, "gpu", f"{name}.pickle"), path)
                files.append((f"{name}.gpu-fixture", path))
        self.add("snapshots", verdicts)
        if not files:
            return True
        rc, secs = self.run([self.args.python, SNAPSHOT_TORCH, "viz"] + [p for _, p in files], "snapshots.viz.log", 120)
        if rc != 0:
            self.add("snapshots", [rules.Verdict("memory_viz", "fail", f"snapshot_torch.py viz exit {rc}:\n" + self.tail("snapshots.viz.log"))])
        # memory_viz's trace needs the segments' allocated_size, which the CPU fixtures' _profile_to_snapshot does not write.
        cpu_made = lambda name: name.endswith(".cpu-fixture") and not name.startswith("handmade")
        inspected = {name: self.compare_snapshot(name, path, ("segsum",) if cpu_made(name) else ("segsum", "trace"))
                     for name, path in files}
        # Which operator allocated what: our runs' snapshots against their own traces; without a GPU, the committed
        # pair of a CPU profile and its snapshot.
        pairs = [(f"{v}.attnwb", os.path.join(d, f"{v}.attnwb.pickle"), os.path.join(d, f"{v}.attnwb.trace.json"))
                 for v in ("manual", "sdpa") if f"{v}.attnwb" in inspected and os.path.exists(os.path.join(d, f"{v}.attnwb.trace.json"))]
        if not self.gpu:
            pair = [os.path.join(d, "linked.cpu-fixture.pickle"), os.path.join(d, "linked.cpu-fixture.trace.json.gz")]
            for source, copy in zip(("manual.pickle", "manual.trace.json.gz"), pair):
                shutil.copy2(os.path.join(SNAPSHOT_FIXTURES, "linked", source), copy)
            pairs = [("linked.cpu-fixture", *pair)] + [
                (f"{v}.attnwb.gpu-fixture", os.path.join(d, f"{v}.attnwb.gpu-fixture.pickle"),
                 os.path.join(SNAPSHOT_FIXTURES, "gpu", f"{v}.attnwb.trace.json.gz")) for v in ("manual", "sdpa")]
        self.add("snapshots", [self.snapshot_operators(*pair) for pair in pairs])
        for variant in ("manual", "sdpa"):
            ours, theirs = inspected.get(f"{variant}.attnwb"), inspected.get(f"{variant}.pytorch")
            if ours and theirs and ours["devices"] and theirs["devices"]:
                self.add("snapshots", [snapshots.recordings_rule(variant, ours["devices"][0], theirs["devices"][0])])
        snapshots.write_fixtures(d, files, self.env)
        return True

    # ---- the run ----------------------------------------------------------------------------------
    def write_summary(self, final=False):
        os.makedirs(self.out, exist_ok=True)
        counts = {s: sum(1 for v in self.verdicts if v["status"] == s) for s in ("pass", "fail", "n/a", "skipped", "info")}
        summary = {"schema": "attention-workbench/gpu-check", "finished": final, "seconds": round(self.elapsed(), 1),
                   "environment": self.env, "steps": self.steps, "counts": counts, "verdicts": self.verdicts}
        with open(os.path.join(self.out, "summary.json"), "w") as f:
            json.dump(summary, f, indent=1, default=str)
        lines = [f"# GPU check: {counts['pass']} pass, {counts['fail']} fail, {counts['n/a']} n/a, {counts['skipped']} skipped"
                 f" ({self.elapsed():.0f} s{'' if final else ', unfinished'})", "",
                 f"- device: {', '.join(self.env.get('devices', [])) or 'no GPU'}; torch {self.env.get('torch')}; "
                 f"nvcc {self.env.get('nvcc')}; {self.env.get('c++')}; {self.env.get('cmake')}", "",
                 "| step | status | seconds | note |", "| --- | --- | --- | --- |"]
        lines += [f"| {s['step']} | {s['status']} | {s['seconds']:.0f} | {s['note']} |" for s in self.steps]
        lines += ["", "| step | check | status | detail |", "| --- | --- | --- | --- |"]
        lines += [f"| {v['step']} | {v['rule']} | {v['status']} | {v['detail'].splitlines()[0] if v['detail'] else ''} |"
                  for v in self.verdicts]
        with open(os.path.join(self.out, "summary.md"), "w") as f:
            f.write("\n".join(lines) + "\n")

    def pack(self):
        for name, folder in (("logs", "logs"), ("profile", "profile"), ("bench", "bench"), ("sweep", "sweep"), ("modules", "modules"),
                             ("snapshots", "snapshots")):
            src = os.path.join(self.work, folder)
            if os.path.isdir(src):
                with tarfile.open(os.path.join(self.out, f"{name}.tar.gz"), "w:gz") as tar:
                    tar.add(src, arcname=name)

    def main(self):
        os.makedirs(self.out, exist_ok=True)
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        only = set(self.args.steps.split(",")) if self.args.steps else None
        ok = True
        try:
            for name, what, expected, limit in STEPS:
                if only and name not in only and name != "env":  # env: every run says where it ran
                    continue
                left = self.args.budget - self.elapsed()
                note = ""
                if not ok:
                    status, note = "skipped", "an earlier step failed"
                elif name in GPU_STEPS and not self.gpu and not self.args.cpu_rehearsal:
                    status, note = "skipped", "no GPU"
                elif left < expected:
                    status, note = "skipped", f"{left:.0f} s of the {self.args.budget:.0f} s budget left, it needs ~{expected} s"
                else:
                    print(f"== {name}: {what} (expected ~{expected} s, {left:.0f} s of budget left)", flush=True)
                    t = time.monotonic()
                    try:
                        ok = getattr(self, "step_" + name)()
                        status = "done" if ok else "failed"
                    except Exception as e:  # a broken step is reported; the others still run
                        status, note = "failed", f"{e.__class__.__name__}: {e}"
                        self.add(name, [rules.Verdict(name, "fail", note)])
                        ok = name not in ("env", "configure", "build")
                    self.steps.append({"step": name, "status": status, "seconds": time.monotonic() - t, "note": note})
                    self.write_summary()
                    continue
                print(f"== {name}: skipped ({note})", flush=True)
                self.steps.append({"step": name, "status": status, "seconds": 0.0, "note": note})
                self.add(name, [rules.Verdict(name, "skipped", note)])
        finally:
            self.write_summary(final=True)
            self.pack()
        failed = sum(1 for v in self.verdicts if v["status"] == "fail")
        print(f"\n{failed} failed checks; summary in {self.out}/summary.md ({self.elapsed():.0f} s)")
        return 1 if failed else (4 if not self.gpu else 0)


def dry_run(args):
    total = 0
    print(f"GPU check, steps in order (expected seconds on the H200, limit): budget {args.budget:.0f} s")
    for name, what, expected, limit in STEPS:
        total += expected
        print(f"  {name:<10} ~{expected:>4} s  (limit {limit:>3} s)  {what}")
    print(f"  total      ~{total:>4} s of command time (at most {args.budget:.0f} s: no step starts that would not fit); "
          f"with the machine's start (~60-90 s) and 30 s warm after, about {(total + 120) / 60:.1f} minutes of device time")
    gone = deps.missing(REPO)
    print(f"carried deps (.gpu-deps): {'complete' if not gone else 'MISSING ' + ', '.join(gone[:3]) + ' (scripts/gpu-check.sh --prepare)'}"
          f", {deps.folder_bytes(os.path.join(REPO, '.gpu-deps')) / 2**20:.1f} MiB")
    built = os.path.join(deps.prebuilt_dir(REPO), "BUILT")
    print("prebuilt fallback attnwb: " + (open(built).read().strip() if os.path.exists(built) else "none"))
    print("device call: run(command='bash scripts/gpu-check.sh', carry=['.gpu-deps'], timeout_s=480)")
    return 0 if not gone else 1


def main():
    ap = argparse.ArgumentParser(description="GPU check for the lent H200")
    ap.add_argument("--prepare", action="store_true", help="download the carried build deps into .gpu-deps (here, needs apt)")
    ap.add_argument("--dry-run", action="store_true", help="list the steps with their expected times and check the carried deps")
    ap.add_argument("--python", default="python3", help="the python whose torch to build against and compare with")
    ap.add_argument("--out", default=os.environ.get("OUT") or os.path.join(REPO, "results", "gpu-check"))
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build-gpu"))
    ap.add_argument("--jobs", type=int, default=0, help="build jobs (default: every core)")
    ap.add_argument("--budget", type=float, default=400,
                    help="seconds of command time: no step starts that would not fit, the sweep is stopped at it")
    ap.add_argument("--steps", default="", help="only these steps, comma-separated (e.g. env,configure,build)")
    ap.add_argument("--cpu-rehearsal", action="store_true",
                    help="without a GPU, run (b)-(e) on the CPU at small sizes to try the whole pipeline")
    ap.add_argument("--cmake-arg", action="append", default=[], help="an extra cmake configure argument")
    args = ap.parse_args()
    if args.prepare:
        return deps.prepare(REPO)
    if args.dry_run:
        return dry_run(args)
    return Check(args).main()


if __name__ == "__main__":
    sys.exit(main())
